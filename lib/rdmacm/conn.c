/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connections: rdma_connect() (REQ, or SIDR_REQ for a UD id),
 * rdma_accept() (REP / SIDR_REP, the QP moved to RTR and RTS first),
 * rdma_reject(), rdma_establish() (the active side's RTU when the id has
 * no QP), rdma_disconnect() (the QP to ERR, then DREQ), rdma_notify(),
 * and rdma_get_request() for a synchronous listener: rdma-core's
 * librdmacm over the daemon's CM (IBA 12) instead of the kernel's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm_priv.h"

static uint8_t
min_u8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

/* ucma_valid_param(): a TCP id's depths within what the device has */
static int
valid_param(struct cma_id *p, const struct rdma_conn_param *param)
{
	if (p->id.ps != RDMA_PS_TCP)
		return 0;
	if (!p->id.qp && !param)
		return EINVAL;
	if (!param)
		return 0;
	if (!p->dev)
		return EINVAL;
	if (param->responder_resources != RDMA_MAX_RESP_RES &&
	    param->responder_resources > p->dev->max_responder_resources)
		return EINVAL;
	if (param->initiator_depth != RDMA_MAX_INIT_DEPTH &&
	    param->initiator_depth > p->dev->max_initiator_depth)
		return EINVAL;
	return 0;
}

/* The request's parameters (ucma_copy_conn_param_to_kern): EINVAL when
 * the private data do not fit what the channel carries (the daemon
 * checks the message's own limit) */
static int
conn_param(struct cma_id *p, struct mpd_cm_conn_param *dst,
	   const struct rdma_conn_param *src, uint32_t qp_num, uint8_t srq)
{
	size_t len = p->connect_len;

	memset(dst, 0, sizeof(*dst));
	dst->qp_num = qp_num & 0xffffff;
	dst->srq = srq;
	dst->responder_resources = p->responder_resources;
	dst->initiator_depth = p->initiator_depth;
	if (p->id.qp_type == IBV_QPT_UD)
		dst->qkey = RDMA_UDP_QKEY;
	if (src && src->private_data)
		len += src->private_data_len;
	if (len > MPD_CM_PDATA_MAX)
		return EINVAL;
	if (p->connect_len)
		memcpy(dst->private_data, p->connect, p->connect_len);
	if (src) {
		dst->flow_control = src->flow_control;
		dst->retry_count = src->retry_count;
		dst->rnr_retry_count = src->rnr_retry_count;
		if (src->private_data && src->private_data_len)
			memcpy(dst->private_data + p->connect_len,
			       src->private_data, src->private_data_len);
	} else {
		dst->retry_count = 7;
		dst->rnr_retry_count = 7;
	}
	dst->private_data_len = (uint8_t)len;
	return 0;
}

CMA_EXPORT int
rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	struct cma_id *p = cma_id(id);
	struct mpd_chan_msg m;
	uint8_t max_init, max_resp, srq;
	uint32_t qp_num;
	int rc;

	if (!id)
		return cma_err(EINVAL);
	rc = valid_param(p, param);
	if (rc)
		return cma_err(rc);
	max_init = p->dev ? p->dev->max_initiator_depth : 0;
	max_resp = p->dev ? p->dev->max_responder_resources : 0;
	p->initiator_depth = param &&
		param->initiator_depth != RDMA_MAX_INIT_DEPTH ?
		param->initiator_depth : max_init;
	p->responder_resources = param &&
		param->responder_resources != RDMA_MAX_RESP_RES ?
		param->responder_resources : max_resp;
	qp_num = param ? param->qp_num : 0;
	srq = param ? param->srq : 0;
	if (id->qp) {
		qp_num = id->qp->qp_num;
		srq = !!id->qp->srq;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_CONNECT;
	m.len = sizeof(m.u.cm_conn_req);
	m.u.cm_conn_req.id = p->handle;
	rc = conn_param(p, &m.u.cm_conn_req.param, param, qp_num, srq);
	if (!rc)
		rc = cma_call(cma_chan(id->channel), &m);
	if (rc)
		return cma_err(rc);
	free(p->connect);
	p->connect = NULL;
	p->connect_len = 0;
	return cma_complete(p);
}

CMA_EXPORT int
rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	struct cma_id *p = cma_id(id);
	struct mpd_chan_msg m;
	uint32_t qp_num;
	uint8_t srq;
	int rc;

	if (!id || (!id->qp && !param))
		return cma_err(EINVAL);
	rc = valid_param(p, param);
	if (rc)
		return cma_err(rc);
	qp_num = id->qp ? id->qp->qp_num : param->qp_num;
	srq = id->qp ? !!id->qp->srq : param->srq;
	if (!param || param->initiator_depth == RDMA_MAX_INIT_DEPTH) {
		if (p->dev)
			p->initiator_depth = min_u8(p->initiator_depth,
				p->dev->max_initiator_depth);
	} else {
		p->initiator_depth = param->initiator_depth;
	}
	if (!param || param->responder_resources == RDMA_MAX_RESP_RES) {
		if (p->dev)
			p->responder_resources = min_u8(p->responder_resources,
				p->dev->max_responder_resources);
	} else {
		p->responder_resources = param->responder_resources;
	}
	if (id->qp_type != IBV_QPT_UD) {
		rc = cma_qp_to_rtr(p, p->responder_resources);
		if (!rc)
			rc = cma_qp_to_rts(p, p->initiator_depth);
		if (rc)
			return cma_err(rc);
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_ACCEPT;
	m.len = sizeof(m.u.cm_conn_req);
	m.u.cm_conn_req.id = p->handle;
	rc = conn_param(p, &m.u.cm_conn_req.param, param, qp_num, srq);
	if (!rc)
		rc = cma_call(cma_chan(id->channel), &m);
	if (rc) {
		cma_qp_to_err(p);
		return cma_err(rc);
	}
	if (id->qp_type == IBV_QPT_UD)
		return 0;
	return cma_complete(p);
}

CMA_EXPORT int
rdma_reject(struct rdma_cm_id *id, const void *private_data,
	    uint8_t private_data_len)
{
	struct mpd_cm_reject_req *req;
	struct mpd_chan_msg m;
	int rc;

	if (!id || private_data_len > MPD_CM_PDATA_MAX)
		return cma_err(EINVAL);
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_REJECT;
	m.len = sizeof(*req);
	req = &m.u.cm_reject_req;
	req->id = cma_id(id)->handle;
	if (private_data && private_data_len) {
		memcpy(req->private_data, private_data, private_data_len);
		req->private_data_len = private_data_len;
	}
	rc = cma_call(cma_chan(id->channel), &m);
	return rc ? cma_err(rc) : 0;
}

/* ECE (vendor options in the REQ and REP) is not carried: the local
 * values are kept, as librdmacm keeps them before a QP exists, and the
 * peer's read as none */
CMA_EXPORT int
rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
		uint8_t private_data_len)
{
	/* the REJ goes as consumer-defined (reason 28), not 35 */
	return rdma_reject(id, private_data, private_data_len);
}

CMA_EXPORT int
rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	if (!id || id->qp || !ece || !ece->vendor_id || ece->comp_mask)
		return cma_err(EINVAL);
	cma_id(id)->local_ece = *ece;
	return 0;
}

CMA_EXPORT int
rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	if (!id || id->qp || !ece)
		return cma_err(EINVAL);
	memset(ece, 0, sizeof(*ece));
	return 0;
}

CMA_EXPORT int
rdma_establish(struct rdma_cm_id *id)
{
	int rc;

	/* with a QP the library sent the RTU itself at CONNECT_RESPONSE */
	if (!id || id->qp)
		return cma_err(EINVAL);
	rc = cma_conn_resp(cma_id(id));
	return rc ? cma_err(rc) : 0;
}

CMA_EXPORT int
rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	int rc;

	if (!id)
		return cma_err(EINVAL);
	/* EISCONN when established already, EINVAL in other states or for
	 * other events (the daemon's ib_cm_notify) */
	rc = cma_id_call(cma_id(id), MPD_CM_NOTIFY, (uint32_t)event);
	return rc ? cma_err(rc) : 0;
}

CMA_EXPORT int
rdma_disconnect(struct rdma_cm_id *id)
{
	struct cma_id *p = cma_id(id);
	int rc;

	/* ucma_shutdown(): an IB transport's QP goes to ERR first, so that
	 * its work requests flush */
	if (!id || !id->verbs)
		return cma_err(EINVAL);
	rc = cma_qp_to_err(p);
	if (!rc)
		rc = cma_id_call(p, MPD_CM_DISCONNECT, 0);
	if (rc)
		return cma_err(rc);
	return cma_complete(p);
}

CMA_EXPORT int
rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct cma_id *p = cma_id(listen);
	struct ibv_qp_init_attr attr;
	struct rdma_cm_event *event;
	int rc;

	if (!listen || !id || !p->sync)
		return cma_err(EINVAL);
	if (listen->event) {
		rdma_ack_cm_event(listen->event);
		listen->event = NULL;
	}
	rc = rdma_get_cm_event(listen->channel, &event);
	if (rc)
		return rc;
	if (event->event == RDMA_CM_EVENT_REJECTED) {
		rc = cma_err(ECONNREFUSED);
		goto fail;
	}
	if (event->status) {
		rc = cma_err(event->status < 0 ? -event->status :
						  event->status);
		goto fail;
	}
	if (event->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		rc = cma_err(EINVAL);
		goto fail;
	}
	if (p->qp_init_attr) {
		attr = *p->qp_init_attr;
		rc = rdma_create_qp(event->id, listen->pd, &attr);
		if (rc)
			goto fail;
	}
	*id = event->id;
	(*id)->event = event;
	return 0;
fail:
	listen->event = event;
	return rc;
}
