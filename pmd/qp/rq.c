/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive WRs, off a QP's receive queue or its SRQ (IBA 10.2.9.5), read
 * once into the daemon's copy and checked; the SRQ limit event.
 */
#include <string.h>

#include "qp_priv.h"

#define QP_HDR		256u	/* struct mpd_v_qp_shm, rounded */

static bool
read_rwqe(struct hca_verbs *v, uint32_t pd, const uint8_t *slot,
	  uint32_t max_sge, struct hca_v_rwr *r)
{
	const struct mpd_v_rwqe *w = (const void *)slot;
	uint32_t i, n;

	r->wr_id = w->wr_id;
	n = __atomic_load_n(&w->num_sge, __ATOMIC_RELAXED);
	if (n > max_sge)
		return false;
	r->num_sge = n;
	r->len = 0;
	memcpy(r->sg, w->sg, n * sizeof(r->sg[0]));
	for (i = 0; i < n; i++) {
		if (r->len + (uint64_t)r->sg[i].length > UINT32_MAX)
			return false;
		r->len += r->sg[i].length;
	}
	(void)v;
	(void)pd;
	return true;
}

bool
qp_take_recv(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_rwr *r,
	     bool *bad)
{
	struct hca_v_srq *srq = qp->srq;
	uint32_t pi;

	*bad = false;
	if (srq) {
		pi = __atomic_load_n(&srq->shm->rq_pi, __ATOMIC_ACQUIRE);
		if (pi == srq->ci || pi - srq->ci > srq->wqes)
			return false;
		if (!read_rwqe(v, srq->pd, srq->rq + (size_t)(srq->ci &
			       (srq->wqes - 1)) * srq->stride, srq->max_sge, r)) {
			*bad = true;
			v->port->cnt.qp_bad_wqes++;
			return false;
		}
		srq->ci++;
		__atomic_store_n(&srq->shm->rq_ci, srq->ci, __ATOMIC_RELEASE);
		if (srq->limit && pi - srq->ci < srq->limit) {
			struct mpd_v_async_rec ev = {
				.event_type = IBV_EVENT_SRQ_LIMIT_REACHED,
				.obj = MPD_V_OBJ_SRQ, .handle = srq->handle,
			};

			/* IBA 11.3.3: once, then it must be armed again */
			srq->limit = 0;
			if (!srq->owner->dead) {
				srq->async_events++;
				srq->owner->ops->async(srq->owner, &ev);
			}
		}
		return true;
	}
	pi = __atomic_load_n(&qp->shm->rq_pi, __ATOMIC_ACQUIRE);
	if (pi == qp->rq.taken || pi - qp->rq.taken > qp->rq.wqes)
		return false;
	if (!read_rwqe(v, qp->pd, qp->rq.base + (size_t)(qp->rq.taken &
		       (qp->rq.wqes - 1)) * qp->rq.stride, qp->cap.max_recv_sge,
		       r)) {
		*bad = true;
		v->port->cnt.qp_bad_wqes++;
		return false;
	}
	qp->rq.taken++;
	__atomic_store_n(&qp->shm->rq_ci, qp->rq.taken, __ATOMIC_RELEASE);
	return true;
}

/* ---- SRQs ---- */

void
hca_v_srq_init(struct hca_v_srq *srq, void *shm, size_t map_len,
	       uint32_t wqes, uint32_t stride, uint32_t max_sge)
{
	struct mpd_v_qp_shm *h = shm;

	memset(h, 0, sizeof(*h));
	h->magic = MPD_V_QP_MAGIC;
	h->rq_wqes = wqes;
	h->rq_stride = stride;
	h->rq_off = QP_HDR;
	srq->shm = h;
	srq->rq = (uint8_t *)shm + QP_HDR;
	srq->wqes = wqes;
	srq->stride = stride;
	srq->max_sge = max_sge;
	srq->map = shm;
	srq->map_len = map_len;
}

int
hca_v_srq_modify(struct hca_verbs *v, struct hca_v_srq *srq, uint32_t mask,
		 uint32_t max_wr, uint32_t limit)
{
	(void)v;
	if (mask & ~(uint32_t)(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
		return EINVAL;
	/* a resize would move the ring under the client */
	if ((mask & IBV_SRQ_MAX_WR) && max_wr > srq->wqes)
		return EINVAL;
	if ((mask & IBV_SRQ_LIMIT) && limit > srq->wqes)
		return EINVAL;
	if (mask & IBV_SRQ_LIMIT)
		srq->limit = limit;
	return 0;
}

