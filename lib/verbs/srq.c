/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues: the receive half of a QP's shared memory
 * (madpmd/verbs.h), posted to as a QP's receive queue. There is no
 * QUERY_SRQ and no resizing: ibv_query_srq() answers from what the
 * library knows, and ibv_modify_srq() changes the limit only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "verbs_priv.h"

int
mpd_v_post_srq_recv_op(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct mpd_v_srq *srq = (struct mpd_v_srq *)ibsrq;
	int rc;

	pthread_spin_lock(&srq->lock);
	rc = mpd_v_post_recv(&srq->ring, false, wr, bad_wr);
	pthread_spin_unlock(&srq->lock);
	return rc;
}

VERBS_EXPORT struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct mpd_v_create_srq_rep rep;
	struct mpd_v_qp_cap cap;
	struct mpd_verbs_ctx *c;
	struct mpd_chan_msg m;
	struct mpd_v_srq *srq;
	void *map;
	int rc, fd = -1;

	if (!pd || !attr || !attr->attr.max_wr ||
	    attr->attr.max_wr > MPD_V_MAX_QP_WR ||
	    attr->attr.max_sge > MPD_V_MAX_SGE ||
	    attr->attr.srq_limit > attr->attr.max_wr) {
		errno = EINVAL;
		return NULL;
	}
	c = mpd_verbs_ctx(pd->context);
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_CREATE_SRQ;
	m.len = sizeof(m.u.v_create_srq_req);
	m.u.v_create_srq_req.pd = pd->handle;
	m.u.v_create_srq_req.max_wr = attr->attr.max_wr;
	m.u.v_create_srq_req.max_sge = attr->attr.max_sge;
	m.u.v_create_srq_req.srq_limit = attr->attr.srq_limit;
	rc = mpd_v_call(c, &m, &fd);
	if (rc) {
		free(srq);
		errno = rc;
		return NULL;
	}
	rep = m.u.v_create_srq_rep;
	map = mpd_v_map(fd, rep.shm_size);
	if (!map) {
		rc = errno;
		goto undo;
	}
	memset(&cap, 0, sizeof(cap));
	cap.max_recv_wr = rep.max_wr;
	cap.max_recv_sge = rep.max_sge;
	rc = mpd_v_qp_attach(&srq->ring, map, rep.shm_size, &cap, 0, false,
			     true, &c->db);
	if (!rc && (rep.max_wr < attr->attr.max_wr ||
		    rep.max_sge < attr->attr.max_sge))
		rc = EPROTO;
	if (rc) {
		munmap(map, rep.shm_size);
		goto undo;
	}
	srq->map_size = rep.shm_size;
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	srq->max_wr = rep.max_wr;
	srq->max_sge = rep.max_sge;
	srq->srq_limit = attr->attr.srq_limit;
	attr->attr.max_wr = rep.max_wr;
	attr->attr.max_sge = rep.max_sge;
	srq->srq.context = pd->context;
	srq->srq.srq_context = attr->srq_context;
	srq->srq.pd = pd;
	srq->srq.handle = rep.handle;
	pthread_mutex_init(&srq->srq.mutex, NULL);
	pthread_cond_init(&srq->srq.cond, NULL);
	mpd_v_obj_add(c, &srq->obj, MPD_V_OBJ_SRQ, rep.handle, &srq->srq);
	return &srq->srq;
undo:
	mpd_v_destroy(c, MPD_V_DESTROY_SRQ, rep.handle, NULL);
	free(srq);
	errno = rc;
	return NULL;
}

/* IBV_SRQ_MAX_WR would resize a sealed memfd: EINVAL, as for a device
 * without IBV_DEVICE_SRQ_RESIZE */
VERBS_EXPORT int
ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *srq_attr,
	       int srq_attr_mask)
{
	struct mpd_v_srq *srq = (struct mpd_v_srq *)ibsrq;
	struct mpd_verbs_ctx *c;
	struct mpd_chan_msg m;
	int rc;

	if (!ibsrq || !srq_attr || (srq_attr_mask & ~IBV_SRQ_LIMIT))
		return EINVAL;
	if (!srq_attr_mask)
		return 0;
	if (srq_attr->srq_limit > srq->max_wr)
		return EINVAL;
	c = mpd_verbs_ctx(ibsrq->context);
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_MODIFY_SRQ;
	m.len = sizeof(m.u.v_modify_srq_req);
	m.u.v_modify_srq_req.handle = ibsrq->handle;
	m.u.v_modify_srq_req.attr_mask = IBV_SRQ_LIMIT;
	m.u.v_modify_srq_req.srq_limit = srq_attr->srq_limit;
	rc = mpd_v_call(c, &m, NULL);
	if (rc)
		return rc;
	pthread_mutex_lock(&c->obj_lock);
	srq->srq_limit = srq_attr->srq_limit;
	pthread_mutex_unlock(&c->obj_lock);
	return 0;
}

VERBS_EXPORT int
ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *srq_attr)
{
	struct mpd_v_srq *srq = (struct mpd_v_srq *)ibsrq;
	struct mpd_verbs_ctx *c;

	if (!ibsrq || !srq_attr)
		return EINVAL;
	c = mpd_verbs_ctx(ibsrq->context);
	pthread_mutex_lock(&c->obj_lock);
	srq_attr->max_wr = srq->max_wr;
	srq_attr->max_sge = srq->max_sge;
	srq_attr->srq_limit = srq->srq_limit;
	pthread_mutex_unlock(&c->obj_lock);
	return 0;
}

VERBS_EXPORT int
ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	struct mpd_v_srq *srq = (struct mpd_v_srq *)ibsrq;
	struct mpd_v_destroy_rep rep;
	struct mpd_verbs_ctx *c;
	int rc;

	if (!ibsrq)
		return EINVAL;
	c = mpd_verbs_ctx(ibsrq->context);
	mpd_v_wait_count(c, &srq->obj.async_returned, &ibsrq->mutex,
			 &ibsrq->cond, &ibsrq->events_completed);
	memset(&rep, 0, sizeof(rep));
	rc = mpd_v_destroy(c, MPD_V_DESTROY_SRQ, ibsrq->handle, &rep);
	if (rc)
		return rc;
	mpd_v_obj_del(c, &srq->obj, rep.async_events);
	munmap(srq->ring.shm, srq->map_size);
	pthread_spin_destroy(&srq->lock);
	pthread_mutex_destroy(&ibsrq->mutex);
	pthread_cond_destroy(&ibsrq->cond);
	free(srq);
	return 0;
}
