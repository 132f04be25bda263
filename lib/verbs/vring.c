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

uint32_t
mpd_v_cq_pending(const struct mpd_v_cq_ring *r)
{
	struct mpd_v_cq_ring at = *r;
	uint32_t n = 0;

	while (n < r->ncqe && cq_peek(&at)) {
		at.ci++;
		n++;
	}
	return n;
}

void
mpd_v_cq_arm(struct mpd_v_cq_ring *r, int solicited_only)
{
	r->arm = ((r->arm & ~1u) + 2) | (solicited_only ? 1u : 0u);
	__atomic_store_n(&r->shm->comp_arm, r->arm, __ATOMIC_RELEASE);
	/* the arming before any poll after it: pairs with the daemon's
	 * fence between a new entry and its look at the arming (cq_push()) */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
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
 * fence (after doorbell_armed) and ours, one sees the other's store. The
 * ring is counted first, so that the lcore reads it back (madpmd/chan.h,
 * "Doorbell") */
static void
wq_publish(struct mpd_v_wq *wq, const struct mpd_v_doorbell *db)
{
	__atomic_store_n(wq->pi_shm, wq->pi, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (db && db->fd >= 0 && db->armed &&
	    __atomic_load_n(db->armed, __ATOMIC_ACQUIRE)) {
		static const uint8_t one = 1;

		if (db->rings)
			__atomic_add_fetch(db->rings, 1, __ATOMIC_RELEASE);
		if (write(db->fd, &one, 1) < 0) {
			/* full: the daemon wakes anyway */
		}
	}
}

/* Operations that carry data out, which may be inline */
static bool
opcode_sends_data(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static bool
opcode_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

int
mpd_v_swqe_bind(struct mpd_v_swqe_b *b, const struct ibv_mw *mw,
		uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	/* the index is the window's; the low byte its next key */
	if (!mw || !info || (rkey >> 8) != (mw->rkey >> 8) ||
	    (!info->mr && (info->length || mw->type == IBV_MW_TYPE_2)))
		return EINVAL;
	b->h.rkey = rkey;
	b->h.remote_addr = info->addr;
	b->h.compare_add = info->length;
	b->h.swap = info->mw_access_flags;
	b->h.remote_qkey = info->mr ? info->mr->lkey : 0;
	return 0;
}

int
mpd_v_swqe_open(struct mpd_v_qp_ring *q, struct mpd_v_swqe_b *b,
		enum ibv_wr_opcode op, uint64_t wr_id, unsigned int flags)
{
	if (!q->sq.wqes || !mpd_v_op_allowed(q->qp_type, op))
		return EINVAL;
	if (wq_full(&q->sq))
		return ENOMEM;
	memset(b, 0, sizeof(*b));
	b->slot = wq_slot(&q->sq);
	b->h.wr_id = wr_id;
	b->h.opcode = (uint8_t)op;
	/* inline is what the data setter says, not the flag */
	b->h.flags = (uint8_t)(flags & ~(unsigned int)IBV_SEND_INLINE);
	return 0;
}

int
mpd_v_swqe_ud(struct mpd_v_qp_ring *q, struct mpd_v_swqe_b *b,
	      const struct ibv_ah *ah, uint32_t remote_qpn,
	      uint32_t remote_qkey)
{
	if (q->qp_type != IBV_QPT_UD || !ah)
		return EINVAL;
	b->h.remote_qpn = remote_qpn;
	b->h.remote_qkey = remote_qkey;
	b->h.ah = ((const struct mpd_v_ah_obj *)ah)->av;
	b->has_ah = true;
	return 0;
}

int
mpd_v_swqe_sge(struct mpd_v_qp_ring *q, struct mpd_v_swqe_b *b,
	       const struct ibv_sge *sg, size_t n)
{
	struct mpd_v_sge *d = (struct mpd_v_sge *)(b->slot + MPD_V_SWQE_HDR);
	size_t i;

	if (n > q->sq.max_sge || (n && !sg))
		return EINVAL;
	for (i = 0; i < n; i++) {
		d[i].addr = sg[i].addr;
		d[i].length = sg[i].length;
		d[i].lkey = sg[i].lkey;
	}
	b->h.num_sge = (uint8_t)n;
	b->h.inline_len = 0;
	b->h.flags &= (uint8_t)~IBV_SEND_INLINE;
	return 0;
}

/* Room for total bytes inline; the copy follows */
static int
swqe_inline_ok(const struct mpd_v_qp_ring *q, const struct mpd_v_swqe_b *b,
	       uint64_t total)
{
	if (!opcode_sends_data((enum ibv_wr_opcode)b->h.opcode) ||
	    total > q->sq.max_inline)
		return EINVAL;
	return 0;
}

static void
swqe_inline_set(struct mpd_v_swqe_b *b, uint64_t total)
{
	b->h.num_sge = 0;
	b->h.inline_len = (uint32_t)total;
	b->h.flags |= IBV_SEND_INLINE;
}

int
mpd_v_swqe_inline(struct mpd_v_qp_ring *q, struct mpd_v_swqe_b *b,
		  const struct ibv_data_buf *buf, size_t n)
{
	uint8_t *p = b->slot + MPD_V_SWQE_HDR;
	uint64_t total = 0;
	size_t i;
	int rc;

	if (n && !buf)
		return EINVAL;
	for (i = 0; i < n; i++)
		total += buf[i].length;
	rc = swqe_inline_ok(q, b, total);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		if (buf[i].length)
			memcpy(p, buf[i].addr, buf[i].length);
		p += buf[i].length;
	}
	swqe_inline_set(b, total);
	return 0;
}

/* post_send's inline: the SGEs name the bytes */
static int
swqe_inline_sge(struct mpd_v_qp_ring *q, struct mpd_v_swqe_b *b,
		const struct ibv_sge *sg, size_t n)
{
	uint8_t *p = b->slot + MPD_V_SWQE_HDR;
	uint64_t total = 0;
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		total += sg[i].length;
	rc = swqe_inline_ok(q, b, total);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		memcpy(p, (const void *)(uintptr_t)sg[i].addr, sg[i].length);
		p += sg[i].length;
	}
	swqe_inline_set(b, total);
	return 0;
}

int
mpd_v_swqe_close(struct mpd_v_qp_ring *q, struct mpd_v_swqe_b *b)
{
	if (q->qp_type == IBV_QPT_UD && !b->has_ah)
		return EINVAL;
	/* the 8 bytes an atomic returns go to one SGE */
	if (opcode_atomic((enum ibv_wr_opcode)b->h.opcode) &&
	    (b->h.num_sge != 1 || (b->h.flags & IBV_SEND_INLINE)))
		return EINVAL;
	memcpy(b->slot, &b->h, sizeof(b->h));
	q->sq.pi++;
	return 0;
}

static int
write_swqe(struct mpd_v_qp_ring *q, const struct ibv_send_wr *wr)
{
	struct mpd_v_swqe_b b;
	int rc;

	if (wr->num_sge < 0 || (wr->num_sge && !wr->sg_list))
		return EINVAL;
	rc = mpd_v_swqe_open(q, &b, wr->opcode, wr->wr_id, wr->send_flags);
	if (rc)
		return rc;
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		mpd_v_swqe_imm(&b, wr->imm_data);
		/* fall through */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		mpd_v_swqe_remote(&b, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		mpd_v_swqe_atomic(&b, wr->wr.atomic.rkey,
				  wr->wr.atomic.remote_addr,
				  wr->wr.atomic.compare_add, wr->wr.atomic.swap);
		break;
	case IBV_WR_SEND_WITH_IMM:
		mpd_v_swqe_imm(&b, wr->imm_data);
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		mpd_v_swqe_imm(&b, wr->invalidate_rkey);
		break;
	case IBV_WR_BIND_MW:
		rc = mpd_v_swqe_bind(&b, wr->bind_mw.mw, wr->bind_mw.rkey,
				     &wr->bind_mw.bind_info);
		if (rc)
			return rc;
		break;
	default:
		break;
	}
	if (q->qp_type == IBV_QPT_UD && wr->wr.ud.ah) {
		rc = mpd_v_swqe_ud(q, &b, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				   wr->wr.ud.remote_qkey);
		if (rc)
			return rc;
	}
	/* IBV_SEND_INLINE on a read or an atomic means nothing (as on
	 * hardware): the SGEs are where the data goes */
	if ((wr->send_flags & IBV_SEND_INLINE) && opcode_sends_data(wr->opcode))
		rc = swqe_inline_sge(q, &b, wr->sg_list, (size_t)wr->num_sge);
	else
		rc = mpd_v_swqe_sge(q, &b, wr->sg_list, (size_t)wr->num_sge);
	if (rc)
		return rc;
	return mpd_v_swqe_close(q, &b);
}

/* The state the daemon says the QP is in allows sends: from RTS on (and
 * in SQD, SQE and ERR, which complete sends with errors or hold them) */
static bool
sq_ready(const struct mpd_v_qp_ring *q)
{
	uint32_t state = __atomic_load_n(&q->shm->state, __ATOMIC_ACQUIRE);

	return state != IBV_QPS_RESET && state != IBV_QPS_INIT &&
	       state != IBV_QPS_RTR;
}

int
mpd_v_post_send(struct mpd_v_qp_ring *q, struct ibv_send_wr *wr,
		struct ibv_send_wr **bad)
{
	uint32_t start = q->sq.pi;
	int rc = 0;

	if (!q->sq.wqes || !sq_ready(q)) {
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

/* ---- the ibv_wr_* batch ---- */

void
mpd_v_batch_start(struct mpd_v_qp_ring *q, struct mpd_v_wr_batch *bt)
{
	bt->start = q->sq.pi;
	bt->err = 0;
	bt->open = false;
}

void
mpd_v_batch_op(struct mpd_v_qp_ring *q, struct mpd_v_wr_batch *bt,
	       enum ibv_wr_opcode op, uint64_t wr_id, unsigned int flags)
{
	if (bt->err)
		return;
	if (bt->open) {
		bt->open = false;
		mpd_v_batch_fail(bt, mpd_v_swqe_close(q, &bt->cur));
		if (bt->err)
			return;
	}
	mpd_v_batch_fail(bt, mpd_v_swqe_open(q, &bt->cur, op, wr_id, flags));
	bt->open = !bt->err;
}

int
mpd_v_batch_complete(struct mpd_v_qp_ring *q, struct mpd_v_wr_batch *bt)
{
	if (bt->open) {
		bt->open = false;
		mpd_v_batch_fail(bt, mpd_v_swqe_close(q, &bt->cur));
	}
	/* as mlx5 before RTS: nothing goes out */
	if (!sq_ready(q))
		mpd_v_batch_fail(bt, EINVAL);
	if (bt->err) {
		q->sq.pi = bt->start;
		return bt->err;
	}
	if (q->sq.pi != bt->start)
		wq_publish(&q->sq, q->db);
	return 0;
}

void
mpd_v_batch_abort(struct mpd_v_qp_ring *q, struct mpd_v_wr_batch *bt)
{
	q->sq.pi = bt->start;
	bt->open = false;
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
