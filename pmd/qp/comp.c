/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The completer (IBA 9.7.5.1, 9.9.2, 10.8.3): on RC, ACKs and NAKs
 * complete the requester's WRs in order and READ responses and atomic
 * ACKs carry their data back; a time-out or a NAK sends again from the
 * oldest unacknowledged packet (go-back-N, retry_cnt), an RNR NAK waits
 * its timer (rnr_retry; 7 is for ever). UD and UC WRs complete here as
 * they leave. Every CQE of a send WR is written here.
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

void
comp_timer_start(struct hca_v_qp *qp, uint64_t now_ns)
{
	if (!qp->comp.rto_at && qp->attr.timeout)
		qp->comp.rto_at = now_ns + rto_ns(qp);
}

static uint32_t
last_psn(const struct hca_v_swr *w)
{
	return psn_add(w->first_psn, w->npkts - 1);
}

void
comp_wr(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_swr *w,
	enum ibv_wc_status status)
{
	struct mpd_v_cqe e;

	/* a READ or atomic the requester numbered (and counted): the
	 * counts wrap, they start where the client's ring stands */
	if (w->rd_atomic && qp->req.rd_atomic &&
	    (int32_t)(qp->req.numbered - qp->comp.done) > 0)
		qp->req.rd_atomic--;
	qp->comp.done++;
	qp->comp.acked_pkts = 0;
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
		HCA_V_NO_PSN : qp->comp.psn);
}

void
comp_fail(struct hca_verbs *v, struct hca_v_qp *qp, enum ibv_wc_status status)
{
	comp_wr(v, qp, sq_wr(qp, qp->comp.done), status);
	qp_error_at(qp, status, qp->comp.psn);
}

void
comp_flush(struct hca_verbs *v, struct hca_v_qp *qp)
{
	sq_take(v, qp);
	while (qp->comp.done != qp->sq.taken)
		comp_wr(v, qp, sq_wr(qp, qp->comp.done), IBV_WC_WR_FLUSH_ERR);
	qp->req.cur = qp->req.numbered = qp->comp.done;
	qp->req.cur_pkt = 0;
	qp->req.rd_atomic = 0;
}

bool
comp_timers(struct hca_verbs *v, struct hca_v_qp *qp, uint64_t now_ns)
{
	struct qp_comp *c = &qp->comp;

	if (c->rnr_at) {
		if (now_ns < c->rnr_at)
			return false;
		/* the wait is over: sent again now, timed from now */
		c->rnr_at = 0;
		comp_timer_start(qp, now_ns);
	}
	if (!c->rto_at || now_ns < c->rto_at)
		return true;
	if (!c->retry_left) {
		comp_fail(v, qp, IBV_WC_RETRY_EXC_ERR);
		return false;
	}
	c->retry_left--;
	v->port->cnt.qp_retransmits++;
	comp_rewind(qp);
	c->rto_at = qp->attr.timeout ? now_ns + rto_ns(qp) : 0;
	return true;
}

/* An answer moved things on: the retry counts start again, the timer
 * runs for what is still out */
static void
progress(struct hca_v_qp *qp, uint64_t now_ns)
{
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	if (qp->comp.done == qp->req.numbered)
		qp->comp.rto_at = 0;
	else if (qp->attr.timeout)
		qp->comp.rto_at = now_ns + rto_ns(qp);
}

/* Everything up to psn acknowledged: SENDs and WRITEs complete, a READ
 * or atomic not answered yet stops the walk (its answer was lost when
 * psn is past it: send it again) */
static void
acked_upto(struct hca_verbs *v, struct hca_v_qp *qp, uint32_t psn)
{
	while (qp->comp.done != qp->req.numbered) {
		struct hca_v_swr *w = sq_wr(qp, qp->comp.done);

		if (psn_diff(psn, w->first_psn) < 0)
			return;
		if (w->rd_atomic) {
			if (psn_diff(psn, last_psn(w)) >= 0 &&
			    qp->req.cur != qp->comp.done)
				comp_rewind(qp);
			return;
		}
		if (psn_diff(psn, last_psn(w)) < 0) {
			uint32_t n = (uint32_t)psn_diff(psn, w->first_psn) + 1;

			if (n > qp->comp.acked_pkts)
				qp->comp.acked_pkts = n;
			return;
		}
		comp_wr(v, qp, w, IBV_WC_SUCCESS);
	}
}

/* IBA 9.7.5.2.8: wait the timer the responder asked for, then send
 * again from the oldest packet */
static void
rnr_nak(struct hca_verbs *v, struct hca_v_qp *qp, uint8_t syn,
	uint64_t now_ns)
{
	v->port->cnt.qp_rnr_naks_rcvd++;
	if (qp->attr.rnr_retry != 7) {
		if (!qp->comp.rnr_left) {
			v->port->cnt.qp_rnr_retry_exc++;
			comp_fail(v, qp, IBV_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		qp->comp.rnr_left--;
	}
	qp->comp.rnr_at = now_ns + rnr_us[syn & 0x1f] * 1000ull;
	/* the NAK answered: no transport time-out runs while we wait, one
	 * starts when we send again (a wait longer than the time-out took
	 * a retry_cnt each, and a QP that retries RNR for ever failed with
	 * RETRY_EXC_ERR) */
	qp->comp.rto_at = 0;
	comp_rewind(qp);
}

/* IBA 9.7.5.2: the NAK acknowledges what is before its PSN */
static void
nak(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
    uint64_t now_ns)
{
	uint8_t syn = pk->aeth.syndrome;

	acked_upto(v, qp, psn_add(pk->bth.psn, PSN_MASK));	/* psn - 1 */
	if (qp->comp.done == qp->req.numbered)
		return;		/* nothing there to answer for */
	if ((syn & MPD_AETH_TYPE_MASK) == MPD_AETH_RNR_NAK) {
		rnr_nak(v, qp, syn, now_ns);
		return;
	}
	switch (syn & 0x1f) {
	case MPD_NAK_PSN_SEQ_ERR:
		v->port->cnt.qp_seq_naks++;
		if (!qp->comp.retry_left) {
			comp_fail(v, qp, IBV_WC_RETRY_EXC_ERR);
			return;
		}
		qp->comp.retry_left--;
		comp_rewind(qp);
		return;
	case MPD_NAK_REM_ACCESS:
		comp_fail(v, qp, IBV_WC_REM_ACCESS_ERR);
		return;
	case MPD_NAK_REM_OP:
		comp_fail(v, qp, IBV_WC_REM_OP_ERR);
		return;
	default:
		comp_fail(v, qp, IBV_WC_REM_INV_REQ_ERR);
		return;
	}
}

/* An atomic ACK: the value before, into the WR's one SGE */
static void
atomic_ack(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_swr *w,
	   const struct mpd_pkt *pk, uint64_t now_ns)
{
	uint64_t orig = pk->atomic_orig;

	if (w->w.opcode == IBV_WR_RDMA_READ)
		return;
	if (!sge_copy(v, qp->pd, w->u.sg, w->w.num_sge, 0, (uint8_t *)&orig,
		      8, true)) {
		comp_fail(v, qp, IBV_WC_LOC_PROT_ERR);
		return;
	}
	comp_wr(v, qp, w, IBV_WC_SUCCESS);
	progress(qp, now_ns);
}

/* READ response k of w, in order: a full MTU but at the end */
static void
read_resp(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_swr *w,
	  const struct mpd_pkt *pk, uint32_t k, uint64_t now_ns)
{
	uint32_t mask = mpd_op_mask(pk->bth.opcode);
	uint32_t mtu = qp_mtu(qp), off;

	if (w->w.opcode != IBV_WR_RDMA_READ || k != qp->comp.acked_pkts)
		return;		/* out of order: the time-out asks again */
	off = k * mtu;
	if (!(mask & MPD_OPC_LAST) ? pk->payload_len != mtu
				   : pk->payload_len != w->len - off) {
		comp_fail(v, qp, IBV_WC_BAD_RESP_ERR);
		return;
	}
	if (pk->payload_len &&
	    !sge_copy(v, qp->pd, w->u.sg, w->w.num_sge, off,
		      (uint8_t *)pk->payload, (uint32_t)pk->payload_len,
		      true)) {
		comp_fail(v, qp, IBV_WC_LOC_PROT_ERR);
		return;
	}
	qp->comp.acked_pkts++;
	if (mask & MPD_OPC_LAST)
		comp_wr(v, qp, w, IBV_WC_SUCCESS);
	progress(qp, now_ns);
}

/* A READ response or atomic ACK for the oldest WR, which must be its
 * READ or atomic (earlier WRs are acknowledged by it: IBA 9.7.5.1.1) */
static void
answer(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
       uint64_t now_ns)
{
	struct hca_v_swr *w;

	acked_upto(v, qp, psn_add(pk->bth.psn, PSN_MASK));
	if (qp->comp.done == qp->req.numbered)
		return;
	w = sq_wr(qp, qp->comp.done);
	if (!w->rd_atomic || psn_diff(pk->bth.psn, w->first_psn) < 0 ||
	    psn_diff(pk->bth.psn, last_psn(w)) > 0)
		return;		/* a duplicate, or for something else */
	if (mpd_op_mask(pk->bth.opcode) & MPD_OPC_ATOMIC_ACK)
		atomic_ack(v, qp, w, pk, now_ns);
	else
		read_resp(v, qp, w, pk,
			  (uint32_t)psn_diff(pk->bth.psn, w->first_psn),
			  now_ns);
}

void
comp_input(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
	   uint64_t now_ns)
{
	uint32_t before = qp->comp.done;

	if (qp->attr.qp_state != IBV_QPS_RTS &&
	    qp->attr.qp_state != IBV_QPS_SQD)
		return;
	qp->comp.psn = pk->bth.psn;
	/* an answer to a PSN never sent is dropped (IBA 9.9.2.1.2) */
	if (psn_diff(pk->bth.psn, qp->req.psn) >= 0)
		return;
	if (!(mpd_op_mask(pk->bth.opcode) & MPD_OPC_ACK)) {
		answer(v, qp, pk, now_ns);
		return;
	}
	if ((pk->aeth.syndrome & MPD_AETH_TYPE_MASK) != MPD_AETH_ACK) {
		nak(v, qp, pk, now_ns);
		return;
	}
	acked_upto(v, qp, pk->bth.psn);
	if (qp->comp.done != before)
		progress(qp, now_ns);
}
