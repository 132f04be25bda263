/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QPs and SRQs on an id, and their moves through the connection: the
 * attributes for each state come from the daemon's CM (INIT_QP_ATTR, as
 * the kernel's rdma_init_qp_attr() gives them) and the move itself is an
 * ibv_modify_qp() of madpmd's libibverbs, as librdmacm does it
 * (ucma_init_conn_qp, ucma_init_ud_qp, ucma_modify_qp_rtr/rts/err).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_verbs.h>

#include "rdmacm_priv.h"

void
cma_ah_from_mpd(struct ibv_ah_attr *dst, const struct mpd_v_ah *src)
{
	memset(dst, 0, sizeof(*dst));
	memcpy(dst->grh.dgid.raw, src->dgid, 16);
	dst->grh.flow_label = src->flow_label & 0xfffff;
	dst->grh.sgid_index = src->sgid_index;
	dst->grh.hop_limit = src->hop_limit;
	dst->grh.traffic_class = src->traffic_class;
	dst->dlid = src->dlid;
	dst->sl = src->sl & 0xf;
	dst->src_path_bits = src->src_path_bits;
	dst->static_rate = src->static_rate;
	dst->is_global = !!src->is_global;
	dst->port_num = src->port_num;
}

static void
qp_attr_from_mpd(struct ibv_qp_attr *dst, const struct mpd_v_qp_attr *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->qp_state = (enum ibv_qp_state)src->qp_state;
	dst->cur_qp_state = (enum ibv_qp_state)src->cur_qp_state;
	dst->path_mtu = (enum ibv_mtu)src->path_mtu;
	dst->path_mig_state = (enum ibv_mig_state)src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn & 0xffffff;
	dst->sq_psn = src->sq_psn & 0xffffff;
	dst->dest_qp_num = src->dest_qp_num & 0xffffff;
	dst->qp_access_flags = (unsigned int)src->qp_access_flags;
	dst->cap.max_send_wr = src->cap.max_send_wr;
	dst->cap.max_recv_wr = src->cap.max_recv_wr;
	dst->cap.max_send_sge = src->cap.max_send_sge;
	dst->cap.max_recv_sge = src->cap.max_recv_sge;
	dst->cap.max_inline_data = src->cap.max_inline_data;
	cma_ah_from_mpd(&dst->ah_attr, &src->ah);
	cma_ah_from_mpd(&dst->alt_ah_attr, &src->alt_ah);
	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
}

/* INIT_QP_ATTR for attr->qp_state: 0 or an errno */
static int
init_qp_attr(struct cma_id *p, struct ibv_qp_attr *attr, int *mask)
{
	struct mpd_chan_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_INIT_QP_ATTR;
	m.len = sizeof(m.u.cm_qp_attr_req);
	m.u.cm_qp_attr_req.id = p->handle;
	m.u.cm_qp_attr_req.qp_state = (uint32_t)attr->qp_state;
	rc = cma_call(cma_chan(p->id.channel), &m);
	if (rc)
		return rc;
	qp_attr_from_mpd(attr, &m.u.cm_qp_attr_rep.attr);
	*mask = (int)m.u.cm_qp_attr_rep.attr_mask;
	return 0;
}

CMA_EXPORT int
rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,
		  int *qp_attr_mask)
{
	int rc;

	if (!id || !qp_attr || !qp_attr_mask)
		return cma_err(EINVAL);
	rc = init_qp_attr(cma_id(id), qp_attr, qp_attr_mask);
	return rc ? cma_err(rc) : 0;
}

static int
move(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int rc = ibv_modify_qp(qp, attr, mask);

	/* a positive errno, as rdma-core's rdma_seterrno() takes it */
	return rc > 0 ? rc : rc < 0 ? EINVAL : 0;
}

int
cma_qp_to_rtr(struct cma_id *p, uint8_t resp_res)
{
	struct ibv_qp_attr attr;
	int mask, rc;

	if (!p->id.qp)
		return 0;
	/* the INIT attributes again: those of the connection, not the
	 * defaults the QP was made with */
	attr.qp_state = IBV_QPS_INIT;
	rc = init_qp_attr(p, &attr, &mask);
	if (!rc)
		rc = move(p->id.qp, &attr, mask);
	if (rc)
		return rc;
	attr.qp_state = IBV_QPS_RTR;
	rc = init_qp_attr(p, &attr, &mask);
	if (rc)
		return rc;
	if (resp_res != RDMA_MAX_RESP_RES)
		attr.max_dest_rd_atomic = resp_res;
	return move(p->id.qp, &attr, mask);
}

int
cma_qp_to_rts(struct cma_id *p, uint8_t init_depth)
{
	struct ibv_qp_attr attr;
	int mask, rc;

	if (!p->id.qp)
		return 0;
	attr.qp_state = IBV_QPS_RTS;
	rc = init_qp_attr(p, &attr, &mask);
	if (rc)
		return rc;
	if (init_depth != RDMA_MAX_INIT_DEPTH)
		attr.max_rd_atomic = init_depth;
	return move(p->id.qp, &attr, mask);
}

int
cma_qp_to_err(struct cma_id *p)
{
	struct ibv_qp_attr attr;

	if (!p->id.qp)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_ERR;
	return move(p->id.qp, &attr, IBV_QP_STATE);
}

int
cma_conn_resp(struct cma_id *p)
{
	int rc;

	rc = cma_qp_to_rtr(p, RDMA_MAX_RESP_RES);
	if (!rc)
		rc = cma_qp_to_rts(p, RDMA_MAX_INIT_DEPTH);
	/* the RTU (IBA 12.6.8), which the kernel's ucma sends for ACCEPT on
	 * the active side */
	if (!rc)
		rc = cma_id_call(p, MPD_CM_ESTABLISH, 0);
	if (rc)
		cma_qp_to_err(p);
	return rc;
}

/* A connected QP: to INIT on the id's port and P_Key */
static int
init_conn_qp(struct cma_id *p, struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	int mask, rc;

	attr.qp_state = IBV_QPS_INIT;
	rc = init_qp_attr(p, &attr, &mask);
	return rc ? rc : move(qp, &attr, mask);
}

/* A UD QP: through INIT (with the id's Q_Key) to RTS at once */
static int
init_ud_qp(struct cma_id *p, struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	int rc;

	rc = init_conn_qp(p, qp);
	if (rc)
		return rc;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	rc = move(qp, &attr, IBV_QP_STATE);
	if (rc)
		return rc;
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0;
	return move(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static void
destroy_cqs(struct rdma_cm_id *id)
{
	if (id->recv_cq) {
		ibv_destroy_cq(id->recv_cq);
		if (id->send_cq && id->send_cq != id->recv_cq) {
			ibv_destroy_cq(id->send_cq);
			id->send_cq = NULL;
		}
		id->recv_cq = NULL;
	}
	if (id->recv_cq_channel) {
		ibv_destroy_comp_channel(id->recv_cq_channel);
		if (id->send_cq_channel &&
		    id->send_cq_channel != id->recv_cq_channel) {
			ibv_destroy_comp_channel(id->send_cq_channel);
			id->send_cq_channel = NULL;
		}
		id->recv_cq_channel = NULL;
	}
}

/* CQs of the given sizes (0: none), each with its completion channel,
 * as ucma_create_cqs() makes them: 0 or an errno */
static int
create_cqs(struct rdma_cm_id *id, uint32_t send_size, uint32_t recv_size)
{
	int err;

	if (recv_size) {
		id->recv_cq_channel = ibv_create_comp_channel(id->verbs);
		if (!id->recv_cq_channel)
			goto fail;
		id->recv_cq = ibv_create_cq(id->verbs, (int)recv_size, id,
					    id->recv_cq_channel, 0);
		if (!id->recv_cq)
			goto fail;
	}
	if (send_size) {
		id->send_cq_channel = ibv_create_comp_channel(id->verbs);
		if (!id->send_cq_channel)
			goto fail;
		id->send_cq = ibv_create_cq(id->verbs, (int)send_size, id,
					    id->send_cq_channel, 0);
		if (!id->send_cq)
			goto fail;
	}
	return 0;
fail:
	err = errno ? errno : ENOMEM;
	destroy_cqs(id);
	return err;
}

CMA_EXPORT int
rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq *srq;

	if (!id || !attr || !(attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE))
		return cma_err(EINVAL);
	if (!id->verbs)
		return cma_err(EINVAL);
	/* XRC needs XRC domains, which madpmd's verbs do not have */
	if (attr->srq_type != IBV_SRQT_BASIC)
		return cma_err(EOPNOTSUPP);
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		attr->pd = id->pd;
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	}
	srq = ibv_create_srq_ex(id->verbs, attr);
	if (!srq)
		return -1;
	if (!id->pd)
		id->pd = attr->pd;
	id->srq = srq;
	return 0;
}

CMA_EXPORT int
rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
		struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex;
	int rc;

	if (!id || !attr)
		return cma_err(EINVAL);
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	ex.srq_type = id->qp_type == IBV_QPT_XRC_RECV ? IBV_SRQT_XRC :
							IBV_SRQT_BASIC;
	ex.pd = pd;
	rc = rdma_create_srq_ex(id, &ex);
	memcpy(attr, &ex, sizeof(*attr));
	return rc;
}

CMA_EXPORT void
rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->srq)
		ibv_destroy_srq(id->srq);
	id->srq = NULL;
	destroy_cqs(id);
}

CMA_EXPORT int
rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct cma_id *p = cma_id(id);
	struct ibv_qp *qp;
	int rc;

	if (!id || !attr || id->qp || !id->verbs)
		return cma_err(EINVAL);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
		attr->pd = id->pd;
	} else if (attr->pd->context != id->verbs) {
		return cma_err(EINVAL);
	}
	if ((id->recv_cq && attr->recv_cq && id->recv_cq != attr->recv_cq) ||
	    (id->send_cq && attr->send_cq && id->send_cq != attr->send_cq))
		return cma_err(EINVAL);
	if (id->qp_type == IBV_QPT_XRC_RECV)
		return cma_err(EOPNOTSUPP);
	rc = create_cqs(id, attr->send_cq || id->send_cq ? 0 :
			attr->cap.max_send_wr,
			attr->recv_cq || id->recv_cq ? 0 :
			attr->cap.max_recv_wr);
	if (rc)
		return cma_err(rc);
	if (!attr->send_cq)
		attr->send_cq = id->send_cq;
	if (!attr->recv_cq)
		attr->recv_cq = id->recv_cq;
	if (id->srq && !attr->srq)
		attr->srq = id->srq;
	qp = ibv_create_qp_ex(id->verbs, attr);
	if (!qp) {
		rc = errno ? errno : ENOMEM;
		goto fail_cqs;
	}
	rc = id->qp_type == IBV_QPT_UD ? init_ud_qp(p, qp) :
					 init_conn_qp(p, qp);
	if (rc)
		goto fail_qp;
	id->pd = qp->pd;
	id->qp = qp;
	return 0;
fail_qp:
	ibv_destroy_qp(qp);
fail_cqs:
	destroy_cqs(id);
	return cma_err(rc);
}

CMA_EXPORT int
rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
	       struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ex;
	int rc;

	if (!id || !qp_init_attr)
		return cma_err(EINVAL);
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, qp_init_attr, sizeof(*qp_init_attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd ? pd : id->pd;
	rc = rdma_create_qp_ex(id, &ex);
	memcpy(qp_init_attr, &ex, sizeof(*qp_init_attr));
	return rc;
}

CMA_EXPORT void
rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		ibv_destroy_qp(id->qp);
	id->qp = NULL;
	destroy_cqs(id);
}
