/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs: made, changed and queried by control requests on the
 * device session; posted to through their shared memory (vring.c). The
 * daemon validates state transitions and attributes (madpmd/verbs.h):
 * the library converts and forwards the attr_mask as given.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verbs_priv.h"

/* ---- the context's ops ---- */

int
mpd_v_post_send_op(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct mpd_v_qp *qp = mpd_v_qp(ibqp);
	int rc;

	pthread_spin_lock(&qp->b.sq_lock);
	rc = mpd_v_post_send(&qp->b.ring, wr, bad_wr);
	pthread_spin_unlock(&qp->b.sq_lock);
	return rc;
}

int
mpd_v_post_recv_op(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct mpd_v_qp *qp = mpd_v_qp(ibqp);
	int rc;

	/* a QP on an SRQ has no receive queue of its own */
	if (ibqp->srq) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->rq_lock);
	rc = mpd_v_post_recv(&qp->b.ring, true, wr, bad_wr);
	pthread_spin_unlock(&qp->rq_lock);
	return rc;
}

/* ---- create ---- */

static bool
cap_ok(const struct ibv_qp_cap *cap, bool srq)
{
	return cap->max_send_wr <= MPD_V_MAX_QP_WR &&
	       cap->max_send_sge <= MPD_V_MAX_SGE &&
	       cap->max_inline_data <= MPD_V_MAX_INLINE &&
	       (srq || (cap->max_recv_wr <= MPD_V_MAX_QP_WR &&
			cap->max_recv_sge <= MPD_V_MAX_SGE));
}

VERBS_EXPORT struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct mpd_v_create_qp_req *req;
	struct mpd_v_create_qp_rep rep;
	struct mpd_v_qp_cap asked;
	struct mpd_verbs_ctx *c;
	struct mpd_chan_msg m;
	struct mpd_v_qp *qp;
	struct ibv_qp *q;
	bool has_sq, has_rq;
	void *map;
	int rc, fd = -1;

	if (!pd || !attr || !attr->send_cq || !attr->recv_cq ||
	    !cap_ok(&attr->cap, attr->srq != NULL)) {
		errno = EINVAL;
		return NULL;
	}
	/* the transports this device carries; raw packet, XRC and driver
	 * QPs it has not, as rxe refuses them (rxe_qp_chk_init()) */
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	c = mpd_verbs_ctx(pd->context);
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_CREATE_QP;
	m.len = sizeof(*req);
	req = &m.u.v_create_qp_req;
	req->pd = pd->handle;
	req->send_cq = attr->send_cq->handle;
	req->recv_cq = attr->recv_cq->handle;
	req->srq = attr->srq ? attr->srq->handle : MPD_V_NO_HANDLE;
	req->qp_type = attr->qp_type;
	req->sq_sig_all = attr->sq_sig_all ? 1 : 0;
	req->cap.max_send_wr = attr->cap.max_send_wr;
	req->cap.max_send_sge = attr->cap.max_send_sge;
	req->cap.max_inline_data = attr->cap.max_inline_data;
	if (!attr->srq) {
		req->cap.max_recv_wr = attr->cap.max_recv_wr;
		req->cap.max_recv_sge = attr->cap.max_recv_sge;
	}
	asked = req->cap;
	rc = mpd_v_call(c, &m, &fd);
	if (rc) {
		free(qp);
		errno = rc;
		return NULL;
	}
	rep = m.u.v_create_qp_rep;
	map = mpd_v_map(fd, rep.shm_size);
	if (!map) {
		rc = errno;
		goto undo;
	}
	has_sq = rep.cap.max_send_wr > 0;
	has_rq = !attr->srq && rep.cap.max_recv_wr > 0;
	rc = mpd_v_qp_attach(&qp->b.ring, map, rep.shm_size, &rep.cap,
			     attr->qp_type, has_sq, has_rq, &c->db);
	/* (the reply overwrote the request: what was asked is a copy) */
	if (!rc && (rep.cap.max_send_wr < asked.max_send_wr ||
		    rep.cap.max_send_sge < asked.max_send_sge ||
		    rep.cap.max_inline_data < asked.max_inline_data ||
		    rep.cap.max_recv_wr < asked.max_recv_wr ||
		    rep.cap.max_recv_sge < asked.max_recv_sge))
		rc = EPROTO;
	if (rc) {
		munmap(map, rep.shm_size);
		goto undo;
	}
	qp->map_size = rep.shm_size;
	pthread_spin_init(&qp->b.sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	qp->sq_sig_all = attr->sq_sig_all;
	/* what it has, as the kernel reports it back */
	attr->cap.max_send_wr = rep.cap.max_send_wr;
	attr->cap.max_send_sge = rep.cap.max_send_sge;
	attr->cap.max_inline_data = rep.cap.max_inline_data;
	if (!attr->srq) {
		attr->cap.max_recv_wr = rep.cap.max_recv_wr;
		attr->cap.max_recv_sge = rep.cap.max_recv_sge;
	}
	qp->cap = attr->cap;
	q = &qp->b.qpx.qp_base;
	q->context = pd->context;
	q->qp_context = attr->qp_context;
	q->pd = pd;
	q->send_cq = attr->send_cq;
	q->recv_cq = attr->recv_cq;
	q->srq = attr->srq;
	q->handle = rep.handle;
	q->qp_num = rep.qpn;
	q->state = IBV_QPS_RESET;
	q->qp_type = attr->qp_type;
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->cond, NULL);
	mpd_v_obj_add(c, &qp->obj, MPD_V_OBJ_QP, rep.handle, q);
	return q;
undo:
	mpd_v_destroy(c, MPD_V_DESTROY_QP, rep.handle, NULL);
	free(qp);
	errno = rc;
	return NULL;
}

/* rdma-core's verbs_qp, which ibv_qp_to_qp_ex() in applications built
 * against it would read: comp_mask right after the ibv_qp_ex */
_Static_assert(offsetof(struct mpd_v_qp_base, comp_mask) ==
	       sizeof(struct ibv_qp_ex), "verbs_qp layout");
_Static_assert(offsetof(struct mpd_v_qp, b) == 0, "verbs_qp layout");

/*
 * PD and send ops (ibv_wr_*); creation flags none (0 is no flag, and
 * pyverbs asks for it); no XRC, RSS or TSO (and no raw packet QPs, the
 * only kind a TSO header is for): EOPNOTSUPP, as query_device_ex
 * reports (no tso_caps, no rss_caps).
 */
struct ibv_qp *
mpd_v_create_qp_ex(struct ibv_context *context,
		   struct ibv_qp_init_attr_ex *attr)
{
	const uint32_t known = IBV_QP_INIT_ATTR_PD |
			       IBV_QP_INIT_ATTR_CREATE_FLAGS |
			       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	struct ibv_qp *q;
	int rc;

	(void)context;
	if (attr->comp_mask & ~known ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		rc = mpd_v_qpex_check(attr->qp_type, attr->send_ops_flags);
		if (rc) {
			errno = rc;
			return NULL;
		}
	}
	q = ibv_create_qp(attr->pd, (struct ibv_qp_init_attr *)attr);
	if (q && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		mpd_v_qpex_init(&mpd_v_qp(q)->b);
	return q;
}

/* Only QPs made with send ops have one (rdma-core: NULL for the others,
 * errno untouched) */
VERBS_EXPORT struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *ibqp)
{
	struct mpd_v_qp *qp = mpd_v_qp(ibqp);

	if (!ibqp || !(qp->b.comp_mask & MPD_VERBS_QP_EX))
		return NULL;
	return &qp->b.qpx;
}

/* ---- modify, query ---- */

static void
attr_to_wire(struct mpd_v_qp_attr *w, const struct ibv_qp_attr *a)
{
	memset(w, 0, sizeof(*w));
	w->qp_state = a->qp_state;
	w->cur_qp_state = a->cur_qp_state;
	w->path_mtu = a->path_mtu;
	w->path_mig_state = a->path_mig_state;
	w->qkey = a->qkey;
	w->rq_psn = a->rq_psn;
	w->sq_psn = a->sq_psn;
	w->dest_qp_num = a->dest_qp_num;
	w->qp_access_flags = (uint32_t)a->qp_access_flags;
	w->pkey_index = a->pkey_index;
	w->alt_pkey_index = a->alt_pkey_index;
	w->en_sqd_async_notify = a->en_sqd_async_notify;
	w->sq_draining = a->sq_draining;
	w->max_rd_atomic = a->max_rd_atomic;
	w->max_dest_rd_atomic = a->max_dest_rd_atomic;
	w->min_rnr_timer = a->min_rnr_timer;
	w->port_num = a->port_num;
	w->timeout = a->timeout;
	w->retry_cnt = a->retry_cnt;
	w->rnr_retry = a->rnr_retry;
	w->alt_port_num = a->alt_port_num;
	w->alt_timeout = a->alt_timeout;
	mpd_v_ah_from_attr(&w->ah, &a->ah_attr);
	mpd_v_ah_from_attr(&w->alt_ah, &a->alt_ah_attr);
	w->cap.max_send_wr = a->cap.max_send_wr;
	w->cap.max_recv_wr = a->cap.max_recv_wr;
	w->cap.max_send_sge = a->cap.max_send_sge;
	w->cap.max_recv_sge = a->cap.max_recv_sge;
	w->cap.max_inline_data = a->cap.max_inline_data;
}

static void
attr_from_wire(struct ibv_qp_attr *a, const struct mpd_v_qp_attr *w)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = (enum ibv_qp_state)w->qp_state;
	a->cur_qp_state = (enum ibv_qp_state)w->cur_qp_state;
	a->path_mtu = (enum ibv_mtu)w->path_mtu;
	a->path_mig_state = (enum ibv_mig_state)w->path_mig_state;
	a->qkey = w->qkey;
	a->rq_psn = w->rq_psn;
	a->sq_psn = w->sq_psn;
	a->dest_qp_num = w->dest_qp_num;
	a->qp_access_flags = (unsigned int)w->qp_access_flags;
	a->pkey_index = w->pkey_index;
	a->alt_pkey_index = w->alt_pkey_index;
	a->en_sqd_async_notify = w->en_sqd_async_notify;
	a->sq_draining = w->sq_draining;
	a->max_rd_atomic = w->max_rd_atomic;
	a->max_dest_rd_atomic = w->max_dest_rd_atomic;
	a->min_rnr_timer = w->min_rnr_timer;
	a->port_num = w->port_num;
	a->timeout = w->timeout;
	a->retry_cnt = w->retry_cnt;
	a->rnr_retry = w->rnr_retry;
	a->alt_port_num = w->alt_port_num;
	a->alt_timeout = w->alt_timeout;
	mpd_v_ah_to_attr(&a->ah_attr, &w->ah);
	mpd_v_ah_to_attr(&a->alt_ah_attr, &w->alt_ah);
}

VERBS_EXPORT int
ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct mpd_chan_msg m;
	int rc;

	if (!qp || !attr)
		return EINVAL;
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_MODIFY_QP;
	m.len = sizeof(m.u.v_modify_qp_req);
	m.u.v_modify_qp_req.handle = qp->handle;
	m.u.v_modify_qp_req.attr_mask = (uint32_t)attr_mask;
	attr_to_wire(&m.u.v_modify_qp_req.attr, attr);
	rc = mpd_v_call(mpd_verbs_ctx(qp->context), &m, NULL);
	if (rc)
		return rc;
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

VERBS_EXPORT int
ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
	     struct ibv_qp_init_attr *init_attr)
{
	struct mpd_v_qp *qp = mpd_v_qp(ibqp);
	struct mpd_v_query_qp_rep rep;
	struct mpd_chan_msg m;
	int rc;

	(void)attr_mask;	/* every field is filled in, as providers do */
	if (!ibqp || !attr || !init_attr)
		return EINVAL;
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_QUERY_QP;
	m.len = sizeof(m.u.v_destroy_req);
	m.u.v_destroy_req.handle = ibqp->handle;
	rc = mpd_v_call(mpd_verbs_ctx(ibqp->context), &m, NULL);
	if (rc)
		return rc;
	rep = m.u.v_query_qp_rep;
	attr_from_wire(attr, &rep.attr);
	attr->cap = qp->cap;
	ibqp->state = attr->qp_state;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = qp->cap;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->sq_sig_all = qp->sq_sig_all;
	return 0;
}

/* Waits, as the man page says, until the async events handed out for it
 * are acknowledged */
VERBS_EXPORT int
ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct mpd_v_qp *qp = mpd_v_qp(ibqp);
	struct mpd_v_destroy_rep rep;
	struct mpd_verbs_ctx *c;
	int rc;

	if (!ibqp)
		return EINVAL;
	c = mpd_verbs_ctx(ibqp->context);
	mpd_v_wait_count(c, &qp->obj.async_returned, &ibqp->mutex,
			 &ibqp->cond, &ibqp->events_completed);
	memset(&rep, 0, sizeof(rep));
	rc = mpd_v_destroy(c, MPD_V_DESTROY_QP, ibqp->handle, &rep);
	if (rc)
		return rc;
	mpd_v_obj_del(c, &qp->obj, rep.async_events);
	munmap(qp->b.ring.shm, qp->map_size);
	pthread_spin_destroy(&qp->b.sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	pthread_mutex_destroy(&ibqp->mutex);
	pthread_cond_destroy(&ibqp->cond);
	free(qp);
	return 0;
}
