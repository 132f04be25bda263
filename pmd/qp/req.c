/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester (IBA 9.7.4, 9.8): send WRs taken off the shared ring into
 * the daemon's own copies, cut into packets of the path MTU with PSNs;
 * on RC, ACKs and NAKs complete them in order, a time-out or a NAK sends
 * again from the oldest unacknowledged packet (go-back-N, retry_cnt), an
 * RNR NAK waits its timer (rnr_retry; 7 is for ever).
 */
#include <string.h>

#include "qp_priv.h"

#define RTO_MIN_NS	1000000ull	/* a time-out shorter than the
					 * scheduler's slices only resends */

/* IBA 9.7.5.2.8 Table 45: RNR NAK timer field -> microseconds */
static const uint32_t rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static uint64_t
rto_ns(const struct hca_v_qp *qp)
{
	/* IBA 9.7.6.1.3: 4.096 us * 2^timeout; 0 means for ever */
	uint64_t ns = 4096ull << qp->attr.timeout;

	return ns < RTO_MIN_NS ? RTO_MIN_NS : ns;
}

static struct hca_v_swr *
swr_at(struct hca_v_qp *qp, uint32_t n)
{
	return &qp->swr[n & (qp->sq_wqes - 1)];
}

static uint32_t
swr_last_psn(const struct hca_v_swr *w)
{
	return psn_add(w->first_psn, w->npkts - 1);
}

static void
complete(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_swr *w,
	 enum ibv_wc_status status)
{
	struct mpd_v_cqe e;

	if (w->rd_atomic && qp->rd_in_flight && qp->wr_done < qp->wr_psn)
		qp->rd_in_flight--;
	qp->wr_done++;
	qp->acked_pkts = 0;
	if (!w->signaled && status == IBV_WC_SUCCESS)
		return;
	memset(&e, 0, sizeof(e));
	e.wr_id = w->w.wr_id;
	e.status = status;
	e.opcode = w->wc_opcode;
	e.qp_num = qp->qpn;
	if (status == IBV_WC_SUCCESS)
		e.byte_len = w->len;
	/* the answer that completed it (an RC WR), none for a flush or a
	 * UD/UC WR done as it left */
	cq_push(v, qp->scq, &e, false,
		status == IBV_WC_WR_FLUSH_ERR || qp->type != IBV_QPT_RC ?
		HCA_V_NO_PSN : qp->cur_psn);
}

/* A WR in error, and the QP with it (IBA 10.8.3.1: RC to ERR; UD and UC
 * to SQE, which this port treats as ERR) */
static void
fail(struct hca_verbs *v, struct hca_v_qp *qp, enum ibv_wc_status status)
{
	complete(v, qp, swr_at(qp, qp->wr_done), status);
	qp_error_at(qp, status, qp->cur_psn);
}

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
	default:
		return IBV_WC_SEND;
	}
}

/* One WQE off the ring into w: false when the client wrote nonsense */
static bool
take_one(struct hca_v_qp *qp, const uint8_t *slot, struct hca_v_swr *w)
{
	uint32_t i, mtu = qp->mtu ? qp->mtu : 256;
	uint64_t len = 0;

	memcpy(&w->w, slot, sizeof(w->w));
	w->signaled = qp->sq_sig_all || (w->w.flags & IBV_SEND_SIGNALED);
	w->wc_opcode = wc_opcode_of(w->w.opcode);
	w->rd_atomic = w->w.opcode == IBV_WR_RDMA_READ ||
		       w->w.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		       w->w.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
	if (!mpd_v_op_allowed(qp->type, w->w.opcode))
		return false;
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
	if (w->w.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    w->w.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		if (w->len != 8 || (w->w.remote_addr & 7))
			return false;
		w->npkts = 1;
	} else if (qp->type == IBV_QPT_UD) {
		if (w->len > mtu)
			return false;
		w->npkts = 1;
	} else {
		w->npkts = w->len ? (w->len + mtu - 1) / mtu : 1;
	}
	return true;
}

/* New WRs off the shared ring, as far as the daemon has room for them */
static void
take_wrs(struct hca_verbs *v, struct hca_v_qp *qp)
{
	uint32_t pi = __atomic_load_n(&qp->shm->sq_pi, __ATOMIC_ACQUIRE);
	uint32_t start = qp->sq_taken;

	if (pi - qp->sq_taken > qp->sq_wqes)
		return;		/* a count it cannot have: nothing taken */
	while (qp->sq_taken != pi && qp->sq_taken - qp->wr_done < qp->sq_wqes) {
		struct hca_v_swr *w = swr_at(qp, qp->sq_taken);
		const uint8_t *slot = qp->sq + (size_t)(qp->sq_taken &
					(qp->sq_wqes - 1)) * qp->sq_stride;

		if (!take_one(qp, slot, w)) {
			/* IBA 10.8.3: a malformed WR completes in error */
			v->port->cnt.qp_bad_wqes++;
			w->npkts = 0;
			w->w.opcode = 0xff;
		}
		qp->sq_taken++;
	}
	if (qp->sq_taken != start)
		__atomic_store_n(&qp->shm->sq_ci, qp->sq_taken,
				 __ATOMIC_RELEASE);
}

uint32_t
req_owed(const struct hca_v_qp *qp)
{
	uint32_t pi = __atomic_load_n(&qp->shm->sq_pi, __ATOMIC_ACQUIRE);
	uint32_t c, n = 0;

	for (c = qp->wr_done; c != qp->sq_taken; c++)
		n += qp->swr[c & (qp->sq_wqes - 1)].signaled;
	if (pi - qp->sq_taken > qp->sq_wqes)
		return n;	/* a count it cannot have: none taken either */
	for (c = qp->sq_taken; c != pi; c++) {
		const struct mpd_v_swqe *w = (const void *)(qp->sq +
			(size_t)(c & (qp->sq_wqes - 1)) * qp->sq_stride);

		n += qp->sq_sig_all ||
		     (__atomic_load_n(&w->flags, __ATOMIC_RELAXED) &
		      IBV_SEND_SIGNALED);
	}
	return n;
}

void
req_flush(struct hca_verbs *v, struct hca_v_qp *qp)
{
	take_wrs(v, qp);
	while (qp->wr_done != qp->sq_taken)
		complete(v, qp, swr_at(qp, qp->wr_done), IBV_WC_WR_FLUSH_ERR);
	qp->wr_cur = qp->wr_psn = qp->wr_done;
	qp->cur_pkt = 0;
	qp->rd_in_flight = 0;
}

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

/* Packet k of w; false when it could not go (no room, no route, bad
 * key: the last two fail the WR) */
static bool
send_pkt(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_swr *w,
	 uint32_t k, struct hca_v_out *out)
{
	uint32_t mtu = qp->mtu ? qp->mtu : 256, off = k * mtu, len = 0;
	const struct mpd_v_ah *ah = qp->type == IBV_QPT_UD ? &w->w.ah
							   : &qp->attr.ah;
	uint32_t dqp = qp->type == IBV_QPT_UD ? w->w.remote_qpn
					      : qp->attr.dest_qp_num;
	const uint8_t *payload = NULL;
	struct mpd_pkt pk;
	uint32_t hdrs;

	if (!qp_headers(v, qp, ah, dqp, &pk)) {
		fail(v, qp, IBV_WC_LOC_QP_OP_ERR);
		return false;
	}
	pk.bth.opcode = opcode_for(qp, w, k);
	pk.bth.psn = psn_add(w->first_psn, k);
	hdrs = mpd_op_hdrs(pk.bth.opcode);
	if (hdrs & MPD_HDR_PAYLOAD) {
		len = w->len - off < mtu ? w->len - off : mtu;
		payload = gather(v, qp, w, off, len);
		if (!payload) {
			fail(v, qp, IBV_WC_LOC_PROT_ERR);
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
	if (hdrs & MPD_HDR_DETH) {
		/* IBA 10.2.4.2: a WR Q_Key with the high bit set means the
		 * QP's own */
		pk.deth.qkey = (w->w.remote_qkey & 0x80000000u) ?
			       qp->attr.qkey : w->w.remote_qkey;
		pk.deth.src_qp = qp->qpn;
	}
	if (hdrs & MPD_HDR_RETH) {
		pk.reth.va = w->w.remote_addr;
		pk.reth.rkey = w->w.rkey;
		pk.reth.dma_len = w->len;
		if (w->w.opcode == IBV_WR_RDMA_READ) {
			/* a READ sent again asks for what did not come */
			pk.reth.va += (uint64_t)k * mtu;
			pk.reth.dma_len = w->len - k * mtu;
		}
	}
	if (hdrs & MPD_HDR_ATOMIC) {
		pk.atomic.va = w->w.remote_addr;
		pk.atomic.rkey = w->w.rkey;
		pk.atomic.swap_add = w->w.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ?
				     w->w.swap : w->w.compare_add;
		pk.atomic.compare = w->w.compare_add;
	}
	if (hdrs & MPD_HDR_IMM)
		pk.imm = __builtin_bswap32(w->w.imm_data);
	if (hdrs & MPD_HDR_IETH)
		pk.ieth = w->w.imm_data;
	if (!out->emit(out->ctx, &pk, payload, len))
		return false;
	out->room--;
	v->port->cnt.qp_pkts_out++;
	return true;
}

static uint32_t
oldest_unacked_psn(struct hca_v_qp *qp)
{
	if (qp->wr_done == qp->wr_psn)
		return qp->sq_psn;
	return psn_add(swr_at(qp, qp->wr_done)->first_psn, qp->acked_pkts);
}

/* Send from the oldest unacknowledged packet again */
static void
rewind_to_oldest(struct hca_v_qp *qp)
{
	qp->wr_cur = qp->wr_done;
	qp->cur_pkt = qp->acked_pkts;
}

void
req_poll(struct hca_verbs *v, struct hca_v_qp *qp, uint64_t now_ns,
	 struct hca_v_out *out)
{
	uint32_t st = qp->attr.qp_state;
	uint32_t rd_max = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;

	if (st == IBV_QPS_ERR) {
		if (__atomic_load_n(&qp->shm->sq_pi, __ATOMIC_RELAXED) !=
		    qp->sq_taken)
			req_flush(v, qp);
		return;
	}
	if (st != IBV_QPS_RTS && st != IBV_QPS_SQD)
		return;
	/* what fails here failed on no packet of the peer's: the time-out
	 * names the oldest packet not acknowledged */
	qp->cur_psn = qp->wr_done != qp->wr_psn ? oldest_unacked_psn(qp)
						: HCA_V_NO_PSN;
	if (st == IBV_QPS_RTS)
		take_wrs(v, qp);
	if (qp->type == IBV_QPT_RC) {
		if (qp->rnr_at) {
			if (now_ns < qp->rnr_at)
				return;
			qp->rnr_at = 0;
		}
		if (qp->rto_at && now_ns >= qp->rto_at) {
			if (!qp->retry_left) {
				fail(v, qp, IBV_WC_RETRY_EXC_ERR);
				return;
			}
			qp->retry_left--;
			v->port->cnt.qp_retransmits++;
			rewind_to_oldest(qp);
			qp->rto_at = qp->attr.timeout ? now_ns + rto_ns(qp) : 0;
		}
	}
	while (out->room && qp->wr_cur != qp->sq_taken) {
		struct hca_v_swr *w = swr_at(qp, qp->wr_cur);

		if (w->w.opcode == 0xff) {
			/* a WR the client wrote wrong: in order, in error */
			if (qp->wr_done != qp->wr_cur)
				break;
			fail(v, qp, IBV_WC_LOC_QP_OP_ERR);
			return;
		}
		if (qp->wr_cur == qp->wr_psn) {
			/* IBA 10.8.3.3: a fenced WR waits for the READs and
			 * atomics before it; at most max_rd_atomic of them */
			if ((w->w.flags & IBV_SEND_FENCE) && qp->rd_in_flight)
				break;
			if (w->rd_atomic && qp->rd_in_flight >= rd_max)
				break;
			if (qp->type == IBV_QPT_RC &&
			    psn_diff(qp->sq_psn, oldest_unacked_psn(qp)) >=
			    REQ_WINDOW)
				break;
			w->first_psn = qp->sq_psn;
			qp->sq_psn = psn_add(qp->sq_psn, w->npkts);
			qp->wr_psn++;
			if (w->rd_atomic)
				qp->rd_in_flight++;
			if (qp->type == IBV_QPT_RC && !qp->rto_at &&
			    qp->attr.timeout)
				qp->rto_at = now_ns + rto_ns(qp);
		}
		if (!send_pkt(v, qp, w, qp->cur_pkt, out))
			return;
		/* a READ is one request however many responses it takes */
		if (w->w.opcode == IBV_WR_RDMA_READ)
			qp->cur_pkt = w->npkts;
		else
			qp->cur_pkt++;
		if (qp->cur_pkt < w->npkts)
			continue;
		qp->wr_cur++;
		qp->cur_pkt = 0;
		/* UD and UC are done once sent (IBA 10.8.3.1) */
		if (qp->type != IBV_QPT_RC && qp->wr_done + 1 == qp->wr_cur)
			complete(v, qp, w, IBV_WC_SUCCESS);
	}
	if (st == IBV_QPS_SQD && qp->wr_done == qp->sq_taken &&
	    qp->attr.en_sqd_async_notify) {
		qp->attr.en_sqd_async_notify = 0;
		qp_async(qp, IBV_EVENT_SQ_DRAINED);
	}
}

/* ---- answers (RC) ---- */

static void
progress(struct hca_v_qp *qp, uint64_t now_ns)
{
	qp->retry_left = qp->attr.retry_cnt;
	qp->rnr_left = qp->attr.rnr_retry;
	if (qp->wr_done == qp->wr_psn)
		qp->rto_at = 0;
	else if (qp->attr.timeout)
		qp->rto_at = now_ns + rto_ns(qp);
}

/* Everything up to psn acknowledged: SENDs and WRITEs complete, a READ
 * or atomic not answered yet stops the walk (its answer was lost when
 * psn is past it: send it again) */
static void
ack_upto(struct hca_verbs *v, struct hca_v_qp *qp, uint32_t psn)
{
	while (qp->wr_done != qp->wr_psn) {
		struct hca_v_swr *w = swr_at(qp, qp->wr_done);

		if (psn_diff(psn, w->first_psn) < 0)
			return;
		if (w->rd_atomic) {
			if (psn_diff(psn, swr_last_psn(w)) >= 0 &&
			    qp->wr_cur != qp->wr_done)
				rewind_to_oldest(qp);
			return;
		}
		if (psn_diff(psn, swr_last_psn(w)) < 0) {
			uint32_t n = (uint32_t)psn_diff(psn, w->first_psn) + 1;

			if (n > qp->acked_pkts)
				qp->acked_pkts = n;
			return;
		}
		complete(v, qp, w, IBV_WC_SUCCESS);
	}
}

static void
on_nak(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
       uint64_t now_ns)
{
	uint8_t syn = pk->aeth.syndrome;
	uint32_t psn = pk->bth.psn;

	ack_upto(v, qp, psn_add(psn, PSN_MASK));	/* psn - 1 */
	if (qp->wr_done == qp->wr_psn)
		return;		/* nothing there to answer for */
	if ((syn & MPD_AETH_TYPE_MASK) == MPD_AETH_RNR_NAK) {
		v->port->cnt.qp_rnr_naks++;
		if (qp->attr.rnr_retry != 7) {
			if (!qp->rnr_left) {
				fail(v, qp, IBV_WC_RNR_RETRY_EXC_ERR);
				return;
			}
			qp->rnr_left--;
		}
		qp->rnr_at = now_ns + rnr_us[syn & 0x1f] * 1000ull;
		rewind_to_oldest(qp);
		return;
	}
	switch (syn & 0x1f) {
	case MPD_NAK_PSN_SEQ_ERR:
		v->port->cnt.qp_seq_naks++;
		if (!qp->retry_left) {
			fail(v, qp, IBV_WC_RETRY_EXC_ERR);
			return;
		}
		qp->retry_left--;
		rewind_to_oldest(qp);
		return;
	case MPD_NAK_REM_ACCESS:
		fail(v, qp, IBV_WC_REM_ACCESS_ERR);
		return;
	case MPD_NAK_REM_OP:
		fail(v, qp, IBV_WC_REM_OP_ERR);
		return;
	default:
		fail(v, qp, IBV_WC_REM_INV_REQ_ERR);
		return;
	}
}

/* A READ response or atomic ACK for the oldest WR, which must be its
 * READ or atomic (earlier WRs are acknowledged by it: IBA 9.7.5.1.1) */
static void
on_answer(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
	  uint64_t now_ns)
{
	uint8_t op = pk->bth.opcode & ~MPD_TP_MASK;
	uint32_t mtu = qp->mtu ? qp->mtu : 256, k, off;
	struct hca_v_swr *w;

	ack_upto(v, qp, psn_add(pk->bth.psn, PSN_MASK));
	if (qp->wr_done == qp->wr_psn)
		return;
	w = swr_at(qp, qp->wr_done);
	if (!w->rd_atomic || psn_diff(pk->bth.psn, w->first_psn) < 0 ||
	    psn_diff(pk->bth.psn, swr_last_psn(w)) > 0)
		return;		/* a duplicate, or for something else */
	k = (uint32_t)psn_diff(pk->bth.psn, w->first_psn);
	if (op == MPD_OP_ATOMIC_ACK) {
		uint64_t orig = pk->atomic_orig;

		if (w->w.opcode == IBV_WR_RDMA_READ)
			return;
		if (!sge_copy(v, qp->pd, w->u.sg, w->w.num_sge, 0,
			      (uint8_t *)&orig, 8, true)) {
			fail(v, qp, IBV_WC_LOC_PROT_ERR);
			return;
		}
		complete(v, qp, w, IBV_WC_SUCCESS);
		progress(qp, now_ns);
		return;
	}
	if (w->w.opcode != IBV_WR_RDMA_READ || k != qp->acked_pkts)
		return;		/* out of order: the time-out asks again */
	off = k * mtu;
	if ((op == MPD_OP_READ_RESP_FIRST || op == MPD_OP_READ_RESP_MIDDLE) ?
	    pk->payload_len != mtu : pk->payload_len != w->len - off) {
		fail(v, qp, IBV_WC_BAD_RESP_ERR);
		return;
	}
	if (pk->payload_len &&
	    !sge_copy(v, qp->pd, w->u.sg, w->w.num_sge, off,
		      (uint8_t *)pk->payload, (uint32_t)pk->payload_len, true)) {
		fail(v, qp, IBV_WC_LOC_PROT_ERR);
		return;
	}
	qp->acked_pkts++;
	if (op == MPD_OP_READ_RESP_LAST || op == MPD_OP_READ_RESP_ONLY)
		complete(v, qp, w, IBV_WC_SUCCESS);
	progress(qp, now_ns);
}

void
req_input(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
	  uint64_t now_ns)
{
	uint8_t op = pk->bth.opcode & ~MPD_TP_MASK;
	uint32_t before = qp->wr_done;

	if (qp->attr.qp_state != IBV_QPS_RTS && qp->attr.qp_state != IBV_QPS_SQD)
		return;
	qp->cur_psn = pk->bth.psn;
	/* an answer to a PSN never sent is dropped (IBA 9.9.2.1.2) */
	if (psn_diff(pk->bth.psn, qp->sq_psn) >= 0)
		return;
	if (op == MPD_OP_ACK) {
		if ((pk->aeth.syndrome & MPD_AETH_TYPE_MASK) != MPD_AETH_ACK) {
			on_nak(v, qp, pk, now_ns);
			return;
		}
		ack_upto(v, qp, pk->bth.psn);
		if (qp->wr_done != before)
			progress(qp, now_ns);
		return;
	}
	on_answer(v, qp, pk, now_ns);
}
