/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CQ polling and work request posting on the verbs shared memory
 * (madpmd/verbs.h), as hardware providers do it: no system call, except
 * the doorbell write when the daemon's lcore sleeps.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "vring.h"

static bool
pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* ---- CQ ---------------------------------------------------------------- */

int
mpd_v_cq_attach(struct mpd_v_cq_ring *r, void *map, size_t size,
		uint32_t ncqe)
{
	struct mpd_v_cq_shm hdr;

	memset(r, 0, sizeof(*r));
	if (size < sizeof(hdr))
		return EPROTO;
	/* one copy: what is checked is what is used */
	memcpy(&hdr, map, sizeof(hdr));
	if (hdr.magic != MPD_V_CQ_MAGIC || hdr.ncqe != ncqe || !pow2(ncqe) ||
	    hdr.cqe_off < sizeof(hdr) || (hdr.cqe_off & 63) ||
	    (uint64_t)hdr.cqe_off + (uint64_t)ncqe *
	    sizeof(struct mpd_v_cqe) > size)
		return EPROTO;
	r->shm = map;
	r->cqe = (struct mpd_v_cqe *)((uint8_t *)map + hdr.cqe_off);
	r->ncqe = ncqe;
	return 0;
}

/* The owner value of a valid entry at count ci: 1 on even laps, 2 on odd
 * ones (0 is never written); 2^32 is a whole number of laps */
static inline uint8_t
cq_phase(const struct mpd_v_cq_ring *r, uint32_t ci)
{
	return (uint8_t)(1 + ((ci / r->ncqe) & 1));
}

/* The entry at ci if the daemon has written it; its other fields are
 * visible once owner is (acquire pairs with the daemon's release). */
static inline const struct mpd_v_cqe *
cq_peek(const struct mpd_v_cq_ring *r)
{
	const struct mpd_v_cqe *e = &r->cqe[r->ci & (r->ncqe - 1)];

	if (__atomic_load_n(&e->owner, __ATOMIC_ACQUIRE) != cq_phase(r, r->ci))
		return NULL;
	return e;
}

static inline void
cq_publish(struct mpd_v_cq_ring *r)
{
	__atomic_store_n(&r->shm->ci, r->ci, __ATOMIC_RELEASE);
}

static inline void
cqe_to_wc(const struct mpd_v_cqe *e, struct ibv_wc *wc)
{
	wc->wr_id = e->wr_id;
	wc->status = (enum ibv_wc_status)e->status;
	wc->opcode = (enum ibv_wc_opcode)e->opcode;
	wc->vendor_err = e->vendor_err;
	wc->byte_len = e->byte_len;
	wc->imm_data = e->imm_data;
	wc->qp_num = e->qp_num;
	wc->src_qp = e->src_qp;
	wc->wc_flags = e->wc_flags;
	wc->pkey_index = e->pkey_index;
	wc->slid = e->slid;
	wc->sl = e->sl;
	wc->dlid_path_bits = e->dlid_path_bits;
}

int
mpd_v_cq_poll(struct mpd_v_cq_ring *r, int n, struct ibv_wc *wc)
{
	const struct mpd_v_cqe *e;
	int i;

	for (i = 0; i < n; i++) {
		e = cq_peek(r);
		if (!e)
			break;
		cqe_to_wc(e, &wc[i]);
		r->ci++;
	}
	if (i) {
		cq_publish(r);
		return i;
	}
	/* an overrun stopped the CQ: what was in it is taken, now fail */
	if (__atomic_load_n(&r->shm->error, __ATOMIC_RELAXED))
		return -1;
	return 0;
}

static int
cq_take(struct mpd_v_cq_ring *r)
{
	const struct mpd_v_cqe *e = cq_peek(r);

	if (!e)
		return ENOENT;
	memcpy(&r->cur, e, sizeof(r->cur));
	r->cur_valid = true;
	return 0;
}

int
mpd_v_cq_start(struct mpd_v_cq_ring *r)
{
	r->cur_valid = false;
	return cq_take(r);
}

int
mpd_v_cq_next(struct mpd_v_cq_ring *r)
{
	if (r->cur_valid) {
		r->ci++;
		r->cur_valid = false;
	}
	return cq_take(r);
}

/* Only an entry in hand is consumed: after ENOENT ci stays where the
 * producer is (rxe moved it one past) */
void
mpd_v_cq_end(struct mpd_v_cq_ring *r)
{
	if (r->cur_valid) {
		r->ci++;
		r->cur_valid = false;
	}
	cq_publish(r);
}

void
mpd_v_cq_arm(struct mpd_v_cq_ring *r, int solicited_only)
{
	r->arm = ((r->arm & ~1u) + 2) | (solicited_only ? 1u : 0u);
	__atomic_store_n(&r->shm->comp_arm, r->arm, __ATOMIC_RELEASE);
}

/* ---- work queues ------------------------------------------------------- */

static int
wq_attach(struct mpd_v_wq *wq, uint8_t *map, size_t size, uint32_t wqes,
	  uint32_t stride, uint32_t off, uint32_t want_wr, uint32_t need)
{
	if (!pow2(wqes) || wqes < want_wr || stride < need || (stride & 7) ||
	    off < sizeof(struct mpd_v_qp_shm) || (off & 7) ||
	    (uint64_t)off + (uint64_t)wqes * stride > size)
		return EPROTO;
	wq->buf = map + off;
	wq->wqes = wqes;
	wq->stride = stride;
	return 0;
}

int
mpd_v_qp_attach(struct mpd_v_qp_ring *q, void *map, size_t size,
		const struct mpd_v_qp_cap *cap, uint32_t qp_type,
		bool has_sq, bool has_rq, const struct mpd_v_doorbell *db)
{
	struct mpd_v_qp_shm hdr;
	uint32_t need;

	memset(q, 0, sizeof(*q));
	if (size < sizeof(hdr))
		return EPROTO;
	memcpy(&hdr, map, sizeof(hdr));
	if (hdr.magic != MPD_V_QP_MAGIC)
		return EPROTO;
	q->shm = map;
	q->qp_type = qp_type;
	q->db = db;
	if (has_sq) {
		if (cap->max_send_sge > MPD_V_MAX_SGE ||
		    cap->max_inline_data > MPD_V_MAX_INLINE)
			return EPROTO;
		need = cap->max_send_sge * (uint32_t)sizeof(struct mpd_v_sge);
		if (need < cap->max_inline_data)
			need = cap->max_inline_data;
		if (wq_attach(&q->sq, map, size, hdr.sq_wqes, hdr.sq_stride,
			      hdr.sq_off, cap->max_send_wr,
			      (uint32_t)MPD_V_SWQE_HDR + need))
			return EPROTO;
		q->sq.pi_shm = &q->shm->sq_pi;
		q->sq.ci_shm = &q->shm->sq_ci;
		q->sq.max_sge = cap->max_send_sge;
		q->sq.max_inline = cap->max_inline_data;
	}
	if (has_rq) {
		if (cap->max_recv_sge > MPD_V_MAX_SGE)
			return EPROTO;
		if (wq_attach(&q->rq, map, size, hdr.rq_wqes, hdr.rq_stride,
			      hdr.rq_off, cap->max_recv_wr,
			      (uint32_t)(sizeof(struct mpd_v_rwqe) +
					 cap->max_recv_sge *
					 sizeof(struct mpd_v_sge))))
			return EPROTO;
		q->rq.pi_shm = &q->shm->rq_pi;
		q->rq.ci_shm = &q->shm->rq_ci;
		q->rq.max_sge = cap->max_recv_sge;
	}
	return 0;
}

/* Room for one more: the daemon's count says which slots it has passed
 * (garbage in it only makes the queue look full) */
static bool
wq_full(const struct mpd_v_wq *wq)
{
	uint32_t ci = __atomic_load_n(wq->ci_shm, __ATOMIC_ACQUIRE);

	return wq->pi - ci >= wq->wqes;
}

static inline uint8_t *
wq_slot(const struct mpd_v_wq *wq)
{
	return wq->buf + (size_t)(wq->pi & (wq->wqes - 1)) * wq->stride;
}

/* Publish pi, then ring the doorbell if the lcore sleeps on it: of its
 * fence (after doorbell_armed) and ours, one sees the other's store */
static void
wq_publish(struct mpd_v_wq *wq, const struct mpd_v_doorbell *db)
{
	__atomic_store_n(wq->pi_shm, wq->pi, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (db && db->fd >= 0 && db->armed &&
	    __atomic_load_n(db->armed, __ATOMIC_ACQUIRE)) {
		uint64_t one = 1;

		if (write(db->fd, &one, sizeof(one)) < 0) {
			/* saturated: the daemon wakes anyway */
		}
	}
}

/* Which operations a transport carries (IBA 10.7.3, and no memory
 * windows or invalidation here) */
static bool
opcode_ok(uint32_t qp_type, enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return true;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return qp_type == IBV_QPT_RC || qp_type == IBV_QPT_UC;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return qp_type == IBV_QPT_RC;
	default:
		return false;
	}
}

static int
write_swqe(struct mpd_v_qp_ring *q, const struct ibv_send_wr *wr)
{
	struct mpd_v_wq *sq = &q->sq;
	struct mpd_v_swqe h;
	unsigned int flags = wr->send_flags;
	uint8_t *slot;
	uint64_t total = 0;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > sq->max_sge ||
	    !opcode_ok(q->qp_type, wr->opcode))
		return EINVAL;
	if (wr->num_sge && !wr->sg_list)
		return EINVAL;
	if (q->qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	/* data inline for sends and writes only; elsewhere the flag means
	 * nothing (as on hardware) */
	if (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM &&
	    wr->opcode != IBV_WR_RDMA_WRITE &&
	    wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM)
		flags &= ~(unsigned int)IBV_SEND_INLINE;
	if (flags & IBV_SEND_INLINE) {
		for (i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
		if (total > sq->max_inline)
			return EINVAL;
	}
	if ((wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	     wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) && wr->num_sge != 1)
		return EINVAL;
	if (wq_full(sq))
		return ENOMEM;

	memset(&h, 0, sizeof(h));
	h.wr_id = wr->wr_id;
	h.opcode = (uint8_t)wr->opcode;
	h.flags = (uint8_t)flags;
	if (wr->opcode == IBV_WR_SEND_WITH_IMM ||
	    wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		h.imm_data = wr->imm_data;
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		h.remote_addr = wr->wr.rdma.remote_addr;
		h.rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		h.remote_addr = wr->wr.atomic.remote_addr;
		h.rkey = wr->wr.atomic.rkey;
		h.compare_add = wr->wr.atomic.compare_add;
		h.swap = wr->wr.atomic.swap;
		break;
	default:
		break;
	}
	if (q->qp_type == IBV_QPT_UD) {
		const struct mpd_v_ah_obj *ah =
			(const struct mpd_v_ah_obj *)wr->wr.ud.ah;

		h.remote_qpn = wr->wr.ud.remote_qpn;
		h.remote_qkey = wr->wr.ud.remote_qkey;
		h.ah = ah->av;
	}
	slot = wq_slot(sq);
	if (flags & IBV_SEND_INLINE) {
		uint8_t *p = slot + MPD_V_SWQE_HDR;

		h.inline_len = (uint32_t)total;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		struct mpd_v_sge *sg =
			(struct mpd_v_sge *)(slot + MPD_V_SWQE_HDR);

		h.num_sge = (uint8_t)wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			sg[i].addr = wr->sg_list[i].addr;
			sg[i].length = wr->sg_list[i].length;
			sg[i].lkey = wr->sg_list[i].lkey;
		}
	}
	memcpy(slot, &h, sizeof(h));
	sq->pi++;
	return 0;
}

int
mpd_v_post_send(struct mpd_v_qp_ring *q, struct ibv_send_wr *wr,
		struct ibv_send_wr **bad)
{
	uint32_t state, start = q->sq.pi;
	int rc = 0;

	if (!q->sq.wqes) {
		rc = EINVAL;
		goto out;
	}
	/* the daemon's state: a send queue works from RTS on (and in SQD,
	 * SQE and ERR, which complete sends with errors or hold them) */
	state = __atomic_load_n(&q->shm->state, __ATOMIC_ACQUIRE);
	if (state == IBV_QPS_RESET || state == IBV_QPS_INIT ||
	    state == IBV_QPS_RTR) {
		rc = EINVAL;
		goto out;
	}
	for (; wr; wr = wr->next) {
		rc = write_swqe(q, wr);
		if (rc)
			break;
	}
out:
	if (rc)
		*bad = wr;
	if (q->sq.pi != start)
		wq_publish(&q->sq, q->db);
	return rc;
}

int
mpd_v_post_recv(struct mpd_v_qp_ring *q, bool check_state,
		struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct mpd_v_wq *rq = &q->rq;
	uint32_t start = rq->pi;
	int rc = 0, i;

	if (!rq->wqes) {
		rc = EINVAL;
		goto out;
	}
	/* a receive queue takes WRs from INIT on (rxe took them in RESET) */
	if (check_state && __atomic_load_n(&q->shm->state, __ATOMIC_ACQUIRE) ==
	    IBV_QPS_RESET) {
		rc = EINVAL;
		goto out;
	}
	for (; wr; wr = wr->next) {
		struct mpd_v_rwqe *w;

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge ||
		    (wr->num_sge && !wr->sg_list)) {
			rc = EINVAL;
			break;
		}
		if (wq_full(rq)) {
			rc = ENOMEM;
			break;
		}
		w = (struct mpd_v_rwqe *)(rq->buf +
			(size_t)(rq->pi & (rq->wqes - 1)) * rq->stride);
		w->wr_id = wr->wr_id;
		w->num_sge = (uint32_t)wr->num_sge;
		w->pad = 0;
		for (i = 0; i < wr->num_sge; i++) {
			w->sg[i].addr = wr->sg_list[i].addr;
			w->sg[i].length = wr->sg_list[i].length;
			w->sg[i].lkey = wr->sg_list[i].lkey;
		}
		rq->pi++;
	}
out:
	if (rc)
		*bad = wr;
	if (rq->pi != start)
		wq_publish(rq, q->db);
	return rc;
}

/* ---- address vectors --------------------------------------------------- */

void
mpd_v_ah_from_attr(struct mpd_v_ah *av, const struct ibv_ah_attr *a)
{
	memset(av, 0, sizeof(*av));
	av->dlid = a->dlid;
	av->sl = a->sl;
	av->src_path_bits = a->src_path_bits;
	av->static_rate = a->static_rate;
	av->is_global = a->is_global;
	av->port_num = a->port_num;
	if (a->is_global) {
		av->sgid_index = a->grh.sgid_index;
		memcpy(av->dgid, a->grh.dgid.raw, sizeof(av->dgid));
		av->flow_label = a->grh.flow_label;
		av->hop_limit = a->grh.hop_limit;
		av->traffic_class = a->grh.traffic_class;
	}
}

void
mpd_v_ah_to_attr(struct ibv_ah_attr *a, const struct mpd_v_ah *av)
{
	memset(a, 0, sizeof(*a));
	a->dlid = av->dlid;
	a->sl = av->sl;
	a->src_path_bits = av->src_path_bits;
	a->static_rate = av->static_rate;
	a->is_global = av->is_global;
	a->port_num = av->port_num;
	a->grh.sgid_index = av->sgid_index;
	memcpy(a->grh.dgid.raw, av->dgid, sizeof(av->dgid));
	a->grh.flow_label = av->flow_label;
	a->grh.hop_limit = av->hop_limit;
	a->grh.traffic_class = av->traffic_class;
}
