/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The send queue: WQEs the client writes into its shared ring, copied
 * once into the daemon's own WRs (req.swr) and checked there; what the
 * client writes after that is never read again (IBA 10.8.3: a malformed
 * WR completes in error, in order).
 */
#include <string.h>

#include "qp_priv.h"

static uint8_t
wc_opcode_of(uint8_t wr_op)
{
	switch (wr_op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	case IBV_WR_BIND_MW:
		return IBV_WC_BIND_MW;
	case IBV_WR_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	default:
		return IBV_WC_SEND;
	}
}

/* The packets w takes: an atomic one (8 bytes, aligned), a UD datagram
 * one (at most the MTU), else one per MTU; 0 when it cannot go */
static uint32_t
packets_of(const struct hca_v_qp *qp, const struct hca_v_swr *w)
{
	uint32_t mtu = qp_mtu(qp);

	if (w->w.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    w->w.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
		return w->len == 8 && !(w->w.remote_addr & 7);
	if (qp->type == IBV_QPT_UD)
		return w->len <= mtu;
	return w->len ? (w->len + mtu - 1) / mtu : 1;
}

/* One WQE off the ring into w: false when the client wrote nonsense */
static bool
take_one(const struct hca_v_qp *qp, const uint8_t *slot, struct hca_v_swr *w)
{
	uint64_t len = 0;
	uint32_t i;

	memcpy(&w->w, slot, sizeof(w->w));
	w->signaled = qp->sq_sig_all || (w->w.flags & IBV_SEND_SIGNALED);
	w->wc_opcode = wc_opcode_of(w->w.opcode);
	w->rd_atomic = w->w.opcode == IBV_WR_RDMA_READ ||
		       w->w.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		       w->w.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
	w->local = false;
	if (!mpd_v_op_allowed(qp->type, w->w.opcode))
		return false;
	if (w->w.opcode == IBV_WR_BIND_MW || w->w.opcode == IBV_WR_LOCAL_INV) {
		/* done here, no packet: what it names is checked then */
		w->local = true;
		w->len = 0;
		w->npkts = 0;
		return true;
	}
	if (w->w.flags & IBV_SEND_INLINE) {
		if (w->w.inline_len > qp->cap.max_inline_data || w->rd_atomic)
			return false;
		memcpy(w->u.inl, slot + MPD_V_SWQE_HDR, w->w.inline_len);
		len = w->w.inline_len;
	} else {
		if (w->w.num_sge > qp->cap.max_send_sge)
			return false;
		memcpy(w->u.sg, slot + MPD_V_SWQE_HDR,
		       w->w.num_sge * sizeof(struct mpd_v_sge));
		for (i = 0; i < w->w.num_sge; i++)
			len += w->u.sg[i].length;
	}
	if (len > 0x80000000ull)
		return false;
	w->len = (uint32_t)len;
	w->npkts = packets_of(qp, w);
	return w->npkts != 0;
}

static const uint8_t *
sq_slot(const struct hca_v_qp *qp, uint32_t n)
{
	return qp->sq.base + (size_t)(n & (qp->sq.wqes - 1)) * qp->sq.stride;
}

void
sq_take(struct hca_verbs *v, struct hca_v_qp *qp)
{
	uint32_t pi = __atomic_load_n(&qp->shm->sq_pi, __ATOMIC_ACQUIRE);
	uint32_t start = qp->sq.taken;

	if (pi - qp->sq.taken > qp->sq.wqes)
		return;		/* a count it cannot have: nothing taken */
	while (qp->sq.taken != pi &&
	       qp->sq.taken - qp->comp.done < qp->sq.wqes) {
		struct hca_v_swr *w = sq_wr(qp, qp->sq.taken);

		if (!take_one(qp, sq_slot(qp, qp->sq.taken), w)) {
			v->port->cnt.qp_bad_wqes++;
			w->npkts = 0;
			w->w.opcode = HCA_V_WR_BAD;
		}
		qp->sq.taken++;
	}
	if (qp->sq.taken != start)
		__atomic_store_n(&qp->shm->sq_ci, qp->sq.taken,
				 __ATOMIC_RELEASE);
}

uint32_t
sq_owed(const struct hca_v_qp *qp)
{
	uint32_t pi = __atomic_load_n(&qp->shm->sq_pi, __ATOMIC_ACQUIRE);
	uint32_t c, n = 0;

	for (c = qp->comp.done; c != qp->sq.taken; c++)
		n += qp->req.swr[c & (qp->sq.wqes - 1)].signaled;
	if (pi - qp->sq.taken > qp->sq.wqes)
		return n;	/* a count it cannot have: none taken either */
	for (c = qp->sq.taken; c != pi; c++) {
		const struct mpd_v_swqe *w = (const void *)sq_slot(qp, c);

		n += qp->sq_sig_all ||
		     (__atomic_load_n(&w->flags, __ATOMIC_RELAXED) &
		      IBV_SEND_SIGNALED);
	}
	return n;
}
