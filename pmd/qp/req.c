/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester (IBA 9.7.4, 9.8): the send queue's WRs cut into packets
 * of the path MTU, each WR given its PSNs as it starts: in order, a
 * fenced one after the READs and atomics before it, at most
 * max_rd_atomic of those and REQ_WINDOW packets unacknowledged on RC.
 * What the peer answers, the timers and the CQEs are the completer's
 * (comp.c), which rewinds this one to send again.
 */
#include <endian.h>
#include <string.h>

#include "qp_priv.h"

/* The payload of [off, off + len) of w: in place when it lies in one
 * SGE, else gathered into the scratch buffer; NULL on a bad key */
static const uint8_t *
gather(struct hca_verbs *v, struct hca_v_qp *qp, const struct hca_v_swr *w,
       uint32_t off, uint32_t len)
{
	uint32_t i, o = off;

	if (!len)
		return v->scratch;
	if (w->w.flags & IBV_SEND_INLINE)
		return w->u.inl + off;
	for (i = 0; i < w->w.num_sge; i++) {
		if (o >= w->u.sg[i].length) {
			o -= w->u.sg[i].length;
			continue;
		}
		if (w->u.sg[i].length - o >= len)
			return mr_lookup(v, w->u.sg[i].lkey, qp->pd,
					 w->u.sg[i].addr + o, len, 0);
		break;
	}
	if (len > sizeof(v->scratch) ||
	    !sge_copy(v, qp->pd, w->u.sg, w->w.num_sge, off, v->scratch, len,
		      false))
		return NULL;
	return v->scratch;
}

static uint8_t
opcode_for(const struct hca_v_qp *qp, const struct hca_v_swr *w, uint32_t k)
{
	bool first = k == 0, last = k + 1 == w->npkts;
	uint8_t tp = qp->type == IBV_QPT_RC ? MPD_TP_RC :
		     qp->type == IBV_QPT_UC ? MPD_TP_UC : MPD_TP_UD;
	uint8_t op;

	switch (w->w.opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		if (first && last)
			op = w->w.opcode == IBV_WR_RDMA_WRITE ?
			     MPD_OP_WRITE_ONLY : MPD_OP_WRITE_ONLY_IMM;
		else if (first)
			op = MPD_OP_WRITE_FIRST;
		else if (!last)
			op = MPD_OP_WRITE_MIDDLE;
		else
			op = w->w.opcode == IBV_WR_RDMA_WRITE ?
			     MPD_OP_WRITE_LAST : MPD_OP_WRITE_LAST_IMM;
		break;
	case IBV_WR_RDMA_READ:
		op = MPD_OP_READ_REQ;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		op = MPD_OP_CMP_SWAP;
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		op = MPD_OP_FETCH_ADD;
		break;
	default:
		if (first && last)
			op = w->w.opcode == IBV_WR_SEND ? MPD_OP_SEND_ONLY :
			     w->w.opcode == IBV_WR_SEND_WITH_IMM ?
			     MPD_OP_SEND_ONLY_IMM : MPD_OP_SEND_ONLY_INV;
		else if (first)
			op = MPD_OP_SEND_FIRST;
		else if (!last)
			op = MPD_OP_SEND_MIDDLE;
		else
			op = w->w.opcode == IBV_WR_SEND ? MPD_OP_SEND_LAST :
			     w->w.opcode == IBV_WR_SEND_WITH_IMM ?
			     MPD_OP_SEND_LAST_IMM : MPD_OP_SEND_LAST_INV;
		break;
	}
	return tp | op;
}

/* The headers after the BTH: what the opcode carries (its mask) */
static void
ext_headers(const struct hca_v_qp *qp, const struct hca_v_swr *w, uint32_t k,
	    uint32_t hdrs, struct mpd_pkt *pk)
{
	uint32_t mtu = qp_mtu(qp);

	if (hdrs & MPD_HDR_DETH) {
		/* IBA 10.2.4.2: a WR Q_Key with the high bit set means the
		 * QP's own */
		pk->deth.qkey = (w->w.remote_qkey & 0x80000000u) ?
				qp->attr.qkey : w->w.remote_qkey;
		pk->deth.src_qp = qp->qpn;
	}
	if (hdrs & MPD_HDR_RETH) {
		pk->reth.va = w->w.remote_addr;
		pk->reth.rkey = w->w.rkey;
		pk->reth.dma_len = w->len;
		if (w->w.opcode == IBV_WR_RDMA_READ) {
			/* a READ sent again asks for what did not come */
			pk->reth.va += (uint64_t)k * mtu;
			pk->reth.dma_len = w->len - k * mtu;
		}
	}
	if (hdrs & MPD_HDR_ATOMIC) {
		pk->atomic.va = w->w.remote_addr;
		pk->atomic.rkey = w->w.rkey;
		pk->atomic.swap_add = w->w.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ?
				      w->w.swap : w->w.compare_add;
		pk->atomic.compare = w->w.compare_add;
	}
	if (hdrs & MPD_HDR_IMM)
		pk->imm = be32toh(w->w.imm_data);	/* __be32 in the WR */
	if (hdrs & MPD_HDR_IETH)
		pk->ieth = w->w.imm_data;
}

/* Packet k of w; false when it could not go (no room, no route, bad
 * key: the last two fail the WR) */
static bool
send_pkt(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_swr *w,
	 uint32_t k, struct hca_v_out *out)
{
	uint32_t mtu = qp_mtu(qp), off = k * mtu, len = 0;
	const struct mpd_v_ah *ah = qp->type == IBV_QPT_UD ? &w->w.ah
							   : &qp->attr.ah;
	uint32_t dqp = qp->type == IBV_QPT_UD ? w->w.remote_qpn
					      : qp->attr.dest_qp_num;
	const uint8_t *payload = NULL;
	struct mpd_pkt pk;
	uint32_t hdrs;

	if (!qp_headers(v, qp, ah, dqp, &pk)) {
		comp_fail(v, qp, IBV_WC_LOC_QP_OP_ERR);
		return false;
	}
	pk.bth.opcode = opcode_for(qp, w, k);
	pk.bth.psn = psn_add(w->first_psn, k);
	hdrs = mpd_op_hdrs(pk.bth.opcode);
	if (hdrs & MPD_HDR_PAYLOAD) {
		len = w->len - off < mtu ? w->len - off : mtu;
		payload = gather(v, qp, w, off, len);
		if (!payload) {
			comp_fail(v, qp, IBV_WC_LOC_PROT_ERR);
			return false;
		}
	}
	if (k + 1 == w->npkts) {
		pk.bth.se = (w->w.flags & IBV_SEND_SOLICITED) != 0;
		pk.bth.ack_req = qp->type == IBV_QPT_RC;
	} else {
		pk.bth.ack_req = qp->type == IBV_QPT_RC &&
				 (k + 1) % ACK_EVERY == 0;
	}
	ext_headers(qp, w, k, hdrs, &pk);
	if (!out->emit(out->ctx, &pk, payload, len))
		return false;
	out->room--;
	v->port->cnt.qp_pkts_out++;
	return true;
}

/* Give the next WR its PSNs, when it may start (IBA 10.8.3.3: a fenced WR
 * waits for the READs and atomics before it; at most max_rd_atomic of
 * them; a window of packets on RC); false: it waits */
static bool
number(struct hca_v_qp *qp, struct hca_v_swr *w, uint64_t now_ns)
{
	uint32_t rd_max = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
	bool rc = qp->type == IBV_QPT_RC;

	if ((w->w.flags & IBV_SEND_FENCE) && qp->req.rd_atomic)
		return false;
	if (w->rd_atomic && qp->req.rd_atomic >= rd_max)
		return false;
	if (rc && psn_diff(qp->req.psn, comp_oldest_psn(qp)) >= REQ_WINDOW)
		return false;
	w->first_psn = qp->req.psn;
	qp->req.psn = psn_add(qp->req.psn, w->npkts);
	qp->req.numbered++;
	if (w->rd_atomic)
		qp->req.rd_atomic++;
	if (rc)
		comp_timer_start(qp, now_ns);
	return true;
}

/* After packet req.cur_pkt of w went: the next packet, or the next WR
 * (UD and UC WRs are done once sent: IBA 10.8.3.1) */
static void
advance(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_swr *w)
{
	/* a READ is one request however many responses it takes */
	if (w->w.opcode == IBV_WR_RDMA_READ)
		qp->req.cur_pkt = w->npkts;
	else
		qp->req.cur_pkt++;
	if (qp->req.cur_pkt < w->npkts)
		return;
	qp->req.cur++;
	qp->req.cur_pkt = 0;
	if (qp->type != IBV_QPT_RC && qp->comp.done + 1 == qp->req.cur)
		comp_wr(v, qp, w, IBV_WC_SUCCESS);
}

/*
 * The start of a poll: in Error, what the client posted is flushed; in
 * RTS, new WRs are taken off the ring; on RC the completer's timers run
 * (a time-out rewinds the requester or fails the WR). False when nothing
 * may be sent now: not RTS or SQD, or waiting out an RNR NAK.
 */
static bool
poll_start(struct hca_verbs *v, struct hca_v_qp *qp, uint64_t now_ns)
{
	uint32_t st = qp->attr.qp_state;

	if (st == IBV_QPS_ERR) {
		if (__atomic_load_n(&qp->shm->sq_pi, __ATOMIC_RELAXED) !=
		    qp->sq.taken)
			comp_flush(v, qp);
		return false;
	}
	if (st != IBV_QPS_RTS && st != IBV_QPS_SQD)
		return false;
	/* what fails here failed on no packet of the peer's: the time-out
	 * names the oldest packet not acknowledged */
	qp->comp.psn = qp->comp.done != qp->req.numbered ?
		       comp_oldest_psn(qp) : HCA_V_NO_PSN;
	if (st == IBV_QPS_RTS)
		sq_take(v, qp);
	return qp->type != IBV_QPT_RC || comp_timers(v, qp, now_ns);
}

/* A bind or invalidation (mw.c), once every WR before it is complete:
 * done and completed at once, or failed (the QP to ERR, IBA 10.6.7.2.3);
 * false then */
static bool
local_op(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_swr *w)
{
	enum ibv_wc_status st = mw_local_op(v, qp, w);

	qp->comp.psn = HCA_V_NO_PSN;	/* no packet completed it */
	if (qp->req.numbered == qp->req.cur)
		qp->req.numbered++;
	qp->req.cur++;
	qp->req.cur_pkt = 0;
	if (st != IBV_WC_SUCCESS) {
		comp_fail(v, qp, st);
		return false;
	}
	comp_wr(v, qp, w, IBV_WC_SUCCESS);
	return true;
}

void
req_poll(struct hca_verbs *v, struct hca_v_qp *qp, uint64_t now_ns,
	 struct hca_v_out *out)
{
	if (!poll_start(v, qp, now_ns))
		return;
	while (out->room && qp->req.cur != qp->sq.taken) {
		struct hca_v_swr *w = sq_wr(qp, qp->req.cur);

		if (w->w.opcode == HCA_V_WR_BAD) {
			/* a WR the client wrote wrong: in order, in error */
			if (qp->comp.done != qp->req.cur)
				break;
			comp_fail(v, qp, IBV_WC_LOC_QP_OP_ERR);
			return;
		}
		if (w->local) {
			if (qp->comp.done != qp->req.cur)
				break;
			if (!local_op(v, qp, w))
				return;
			continue;
		}
		if (qp->req.cur == qp->req.numbered && !number(qp, w, now_ns))
			break;
		if (!send_pkt(v, qp, w, qp->req.cur_pkt, out))
			return;
		advance(v, qp, w);
	}
	if (qp->attr.qp_state == IBV_QPS_SQD &&
	    qp->comp.done == qp->sq.taken && qp->attr.en_sqd_async_notify) {
		qp->attr.en_sqd_async_notify = 0;
		qp_async(qp, IBV_EVENT_SQ_DRAINED);
	}
}
