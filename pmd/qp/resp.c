/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder (IBA 9.7.5, 9.8): packets in PSN order into receive WRs
 * and memory regions. On RC a packet ahead of the expected PSN gets one
 * sequence-error NAK, one behind it is a duplicate (acknowledged again, a
 * READ answered again from memory, an atomic answered with the value it
 * returned the first time); a SEND without a receive WR gets an RNR NAK.
 * ACKs are coalesced: one per QP per poll, for the last PSN that asked.
 */
#include <string.h>

#include "qp_priv.h"

#define GRH_AREA	40	/* IBA 11.4.1.1: a UD receive's first bytes */

static uint16_t
pkey_index(const struct hca_verbs *v, uint16_t pkey)
{
	return hca_port_pkey_index(v->port, pkey);
}

static void
recv_cqe(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
	 const struct hca_v_rwr *r, enum ibv_wc_status status, uint8_t opcode,
	 uint32_t len, bool imm, bool inv)
{
	struct mpd_v_cqe e;

	memset(&e, 0, sizeof(e));
	e.wr_id = r->wr_id;
	e.status = status;
	e.opcode = opcode;
	e.qp_num = qp->qpn;
	if (status == IBV_WC_SUCCESS) {
		e.byte_len = len;
		e.src_qp = qp->type == IBV_QPT_UD ? pk->deth.src_qp
						  : qp->attr.dest_qp_num;
		e.pkey_index = pkey_index(v, pk->bth.pkey);
		if (pk->link == MPD_LINK_IB) {
			e.slid = pk->lrh.slid;
			e.sl = pk->lrh.sl;
			e.dlid_path_bits = (uint8_t)(pk->lrh.dlid &
						     ((1u << v->port->lmc) - 1));
		}
		if (imm) {
			e.wc_flags |= IBV_WC_WITH_IMM;
			e.imm_data = __builtin_bswap32(pk->imm);
		} else if (inv) {
			e.wc_flags |= IBV_WC_WITH_INV;
			e.imm_data = pk->ieth;
		}
		if (qp->type == IBV_QPT_UD &&
		    (pk->has_grh || pk->link != MPD_LINK_IB))
			e.wc_flags |= IBV_WC_GRH;
	}
	cq_push(v, qp->rcq, &e, pk->bth.se,
		status == IBV_WC_WR_FLUSH_ERR ? HCA_V_NO_PSN : pk->bth.psn);
}

static void
ack(struct hca_v_qp *qp, uint8_t syn, uint32_t psn)
{
	/* a NAK is never replaced by a later ACK in the same poll */
	if (qp->ack_pending && (qp->ack_syn & MPD_AETH_TYPE_MASK) !=
	    MPD_AETH_ACK)
		return;
	qp->ack_pending = true;
	qp->ack_syn = syn;
	qp->ack_psn = psn;
}

static void
nak(struct hca_verbs *v, struct hca_v_qp *qp, uint8_t code)
{
	(void)v;
	if (qp->ack_pending && qp->ack_syn != MPD_AETH_ACK &&
	    qp->ack_syn != (MPD_AETH_ACK | MPD_AETH_CREDITS_INVALID))
		return;		/* the first NAK says it */
	qp->ack_pending = true;
	qp->ack_syn = MPD_AETH_NAK | code;
	qp->ack_psn = qp->epsn;
}

/* IBA 9.7.5.2.8: no receive WR for a SEND; the packets behind it are
 * dropped without a word until it comes again */
static void
rnr_nak(struct hca_verbs *v, struct hca_v_qp *qp)
{
	v->port->cnt.qp_rnr_naks++;
	qp->ack_pending = true;
	qp->ack_syn = MPD_AETH_RNR_NAK | (qp->attr.min_rnr_timer & 0x1f);
	qp->ack_psn = qp->epsn;
	qp->nak_sent = true;
}

/* ---- UD (IBA 9.8.3) ---- */

/* The 40 bytes before a UD payload: the GRH as received; on RoCEv2 over
 * IPv4 the IPv4 header in the last 20 of them, as rdma-core expects */
static void
grh_area(const struct mpd_pkt *pk, uint8_t *a)
{
	struct mpd_grh g;

	memset(a, 0, GRH_AREA);
	if (pk->link == MPD_LINK_ROCE_V2 && pk->ip_ver == 4) {
		uint8_t *h = a + 20;

		h[0] = 0x45;
		h[1] = pk->ip4.tos;
		mpd_put_be16(h + 2, pk->ip4.total_len);
		mpd_put_be16(h + 4, pk->ip4.id);
		mpd_put_be16(h + 6, pk->ip4.frag);
		h[8] = pk->ip4.ttl;
		h[9] = pk->ip4.proto;
		mpd_put_be16(h + 10, pk->ip4.csum);
		memcpy(h + 12, pk->ip4.src, 4);
		memcpy(h + 16, pk->ip4.dst, 4);
		return;
	}
	if (pk->link == MPD_LINK_ROCE_V2) {
		memset(&g, 0, sizeof(g));
		g.ip_ver = 6;
		g.tclass = pk->ip6.tclass;
		g.flow_label = pk->ip6.flow_label;
		g.pay_len = pk->ip6.pay_len;
		g.next_hdr = pk->ip6.next_hdr;
		g.hop_limit = pk->ip6.hop_limit;
		memcpy(g.sgid, pk->ip6.src, 16);
		memcpy(g.dgid, pk->ip6.dst, 16);
		mpd_grh_encode(&g, a, GRH_AREA);
		return;
	}
	if (pk->has_grh)
		mpd_grh_encode(&pk->grh, a, GRH_AREA);
}

static void
ud_input(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk)
{
	uint8_t op = pk->bth.opcode & ~MPD_TP_MASK, grh[GRH_AREA];
	uint32_t pd = qp->srq ? qp->srq->pd : qp->pd;
	uint32_t len = (uint32_t)pk->payload_len;
	struct hca_v_rwr r;
	bool bad;

	if (op != MPD_OP_SEND_ONLY && op != MPD_OP_SEND_ONLY_IMM)
		return;
	if (!qp_take_recv(v, qp, &r, &bad)) {
		/* IBA 9.8.3.2: no receive WR, the datagram is dropped */
		if (bad)
			qp_error(qp);
		else
			v->port->cnt.rcv_buffer_overruns++;
		return;
	}
	if (len + GRH_AREA > r.len) {
		recv_cqe(v, qp, pk, &r, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0,
			 false, false);
		return;
	}
	grh_area(pk, grh);
	if (!sge_copy(v, pd, r.sg, r.num_sge, 0, grh, GRH_AREA, true) ||
	    !sge_copy(v, pd, r.sg, r.num_sge, GRH_AREA, (uint8_t *)pk->payload,
		      len, true)) {
		recv_cqe(v, qp, pk, &r, IBV_WC_LOC_PROT_ERR, IBV_WC_RECV, 0,
			 false, false);
		qp_error(qp);
		return;
	}
	recv_cqe(v, qp, pk, &r, IBV_WC_SUCCESS, IBV_WC_RECV, len + GRH_AREA,
		 op == MPD_OP_SEND_ONLY_IMM, false);
}

/* ---- RC and UC ---- */

static bool
is_first(uint8_t op)
{
	return op == MPD_OP_SEND_FIRST || op == MPD_OP_SEND_ONLY ||
	       op == MPD_OP_SEND_ONLY_IMM || op == MPD_OP_SEND_ONLY_INV ||
	       op == MPD_OP_WRITE_FIRST || op == MPD_OP_WRITE_ONLY ||
	       op == MPD_OP_WRITE_ONLY_IMM || op == MPD_OP_READ_REQ ||
	       op == MPD_OP_CMP_SWAP || op == MPD_OP_FETCH_ADD;
}

static bool
is_last(uint8_t op)
{
	return op != MPD_OP_SEND_FIRST && op != MPD_OP_SEND_MIDDLE &&
	       op != MPD_OP_WRITE_FIRST && op != MPD_OP_WRITE_MIDDLE;
}

static bool
is_send(uint8_t op)
{
	return op <= MPD_OP_SEND_ONLY_IMM || op == MPD_OP_SEND_LAST_INV ||
	       op == MPD_OP_SEND_ONLY_INV;
}

static bool
has_imm(uint8_t op)
{
	return op == MPD_OP_SEND_LAST_IMM || op == MPD_OP_SEND_ONLY_IMM ||
	       op == MPD_OP_WRITE_LAST_IMM || op == MPD_OP_WRITE_ONLY_IMM;
}

static struct hca_v_rdjob *
rd_slot(struct hca_v_qp *qp, uint32_t n)
{
	return &qp->rd[n % RD_JOBS];
}

static void
rc_error(struct hca_verbs *v, struct hca_v_qp *qp, uint8_t code)
{
	static const uint32_t status[] = {
		[MPD_NAK_INV_REQ] = IBV_WC_REM_INV_REQ_ERR,
		[MPD_NAK_REM_ACCESS] = IBV_WC_REM_ACCESS_ERR,
		[MPD_NAK_REM_OP] = IBV_WC_REM_OP_ERR,
	};

	qp_error_at(qp, code < 4 ? status[code] : IBV_WC_GENERAL_ERR, qp->epsn);
	nak(v, qp, code);
	/* IBA 9.9.3.1.1: the responder's QP goes to error too; its NAK
	 * leaves first (resp_poll sends it from ERR) */
	qp_error(qp);
}

/* A READ request or an atomic, in order: checked, queued for resp_poll */
static bool
rd_request(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
	   uint8_t op)
{
	uint32_t mtu = qp->mtu ? qp->mtu : 256, i, busy = 0;
	struct hca_v_rdjob *j;
	uint8_t *p;

	for (i = 0; i < RD_JOBS; i++)
		busy += qp->rd[i].pending;
	if (busy >= (qp->attr.max_dest_rd_atomic ? qp->attr.max_dest_rd_atomic
						 : 1)) {
		rc_error(v, qp, MPD_NAK_INV_REQ);
		return false;
	}
	j = rd_slot(qp, qp->rd_head);
	memset(j, 0, sizeof(*j));
	j->psn = pk->bth.psn;
	if (op == MPD_OP_READ_REQ) {
		if (!(qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_READ) ||
		    (pk->reth.dma_len &&
		     !mr_lookup(v, pk->reth.rkey, qp->pd, pk->reth.va,
				pk->reth.dma_len, IBV_ACCESS_REMOTE_READ))) {
			rc_error(v, qp, MPD_NAK_REM_ACCESS);
			return false;
		}
		j->va = pk->reth.va;
		j->rkey = pk->reth.rkey;
		j->len = pk->reth.dma_len;
		j->npkts = j->len ? (j->len + mtu - 1) / mtu : 1;
	} else {
		uint64_t *a;

		if (!(qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC) ||
		    !(p = mr_lookup(v, pk->atomic.rkey, qp->pd, pk->atomic.va,
				    8, IBV_ACCESS_REMOTE_ATOMIC))) {
			rc_error(v, qp, MPD_NAK_REM_ACCESS);
			return false;
		}
		if (pk->atomic.va & 7) {
			rc_error(v, qp, MPD_NAK_INV_REQ);
			return false;
		}
		/* atomic against the client's own accesses too */
		a = (uint64_t *)(void *)p;
		if (op == MPD_OP_CMP_SWAP) {
			uint64_t expect = pk->atomic.compare;

			__atomic_compare_exchange_n(a, &expect,
						    pk->atomic.swap_add, false,
						    __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
			j->orig = expect;
		} else {
			j->orig = __atomic_fetch_add(a, pk->atomic.swap_add,
						     __ATOMIC_SEQ_CST);
		}
		j->atomic = true;
		j->npkts = 1;
	}
	j->pending = true;
	qp->rd_head++;
	qp->epsn = psn_add(qp->epsn, j->npkts);
	qp->msn = (qp->msn + 1) & PSN_MASK;
	return true;
}

/* A duplicate READ or atomic (IBA 9.7.5.1.4): answered again */
static void
rd_duplicate(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
	     uint8_t op)
{
	uint32_t i, mtu = qp->mtu ? qp->mtu : 256;

	for (i = 0; i < RD_JOBS; i++) {
		struct hca_v_rdjob *j = &qp->rd[i];
		int32_t d = psn_diff(pk->bth.psn, j->psn);

		if (!j->npkts || d < 0 || (uint32_t)d >= j->npkts)
			continue;
		if (j->atomic != (op != MPD_OP_READ_REQ))
			return;
		if (!j->atomic) {
			/* from the PSN asked, for what it asks */
			if (!mr_lookup(v, pk->reth.rkey, qp->pd, pk->reth.va,
				       pk->reth.dma_len,
				       IBV_ACCESS_REMOTE_READ) && pk->reth.dma_len)
				return;
			j->sent = (uint32_t)d;
			j->va = pk->reth.va - (uint64_t)d * mtu;
			j->rkey = pk->reth.rkey;
		} else {
			j->sent = 0;
		}
		j->pending = true;
		return;
	}
}

static void
cur_fail(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
	 enum ibv_wc_status st, uint8_t code)
{
	if (qp->cur_valid)
		recv_cqe(v, qp, pk, &qp->cur, st, IBV_WC_RECV, 0, false, false);
	qp->cur_valid = false;
	if (qp->type == IBV_QPT_RC)
		rc_error(v, qp, code);
	else
		qp->cur_drop = true;
}

static void
conn_input(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk)
{
	uint8_t op = pk->bth.opcode & ~MPD_TP_MASK;
	uint32_t pd = qp->srq ? qp->srq->pd : qp->pd;
	uint32_t mtu = qp->mtu ? qp->mtu : 256;
	uint32_t len = (uint32_t)pk->payload_len;
	bool rc = qp->type == IBV_QPT_RC, bad;
	int32_t d = psn_diff(pk->bth.psn, qp->epsn);

	if (rc && d < 0) {
		v->port->cnt.qp_duplicates++;
		if (op == MPD_OP_READ_REQ || op == MPD_OP_CMP_SWAP ||
		    op == MPD_OP_FETCH_ADD)
			rd_duplicate(v, qp, pk, op);
		else
			ack(qp, MPD_AETH_ACK | MPD_AETH_CREDITS_INVALID,
			    psn_add(qp->epsn, PSN_MASK));
		return;
	}
	if (rc && d > 0) {
		/* IBA 9.7.5.1.2: one NAK until the sequence is whole */
		if (!qp->nak_sent) {
			qp->nak_sent = true;
			nak(v, qp, MPD_NAK_PSN_SEQ_ERR);
		}
		return;
	}
	if (!rc && d != 0) {
		/* IBA 9.8.4: UC drops the message a lost packet broke and
		 * starts again at the next first packet */
		qp->cur_valid = false;
		qp->wr_left = 0;
		if (!is_first(op)) {
			qp->cur_drop = true;
			qp->epsn = psn_add(pk->bth.psn, 1);
			return;
		}
		qp->epsn = pk->bth.psn;
		qp->cur_drop = false;
	}
	qp->nak_sent = false;
	if (!rc && qp->cur_drop) {
		if (!is_first(op)) {
			qp->epsn = psn_add(qp->epsn, 1);
			return;
		}
		qp->cur_drop = false;
	}
	/* IBA 9.7.5.1.3 / 9.8.4: a packet that does not follow the one
	 * before (a middle without a first, a first inside a message) */
	if (is_first(op) == (qp->cur_valid || qp->wr_left != 0) ||
	    (!is_first(op) && is_send(op) != qp->cur_valid)) {
		cur_fail(v, qp, pk, IBV_WC_REM_INV_REQ_ERR, MPD_NAK_INV_REQ);
		return;
	}
	if (!is_last(op) && len != mtu) {
		cur_fail(v, qp, pk, IBV_WC_REM_INV_REQ_ERR, MPD_NAK_INV_REQ);
		return;
	}
	if (op == MPD_OP_READ_REQ || op == MPD_OP_CMP_SWAP ||
	    op == MPD_OP_FETCH_ADD) {
		rd_request(v, qp, pk, op);
		return;
	}
	if (is_send(op)) {
		if (!qp->cur_valid) {
			if (!qp_take_recv(v, qp, &qp->cur, &bad)) {
				if (bad) {
					rc_error(v, qp, MPD_NAK_REM_OP);
				} else if (rc) {
					rnr_nak(v, qp);
				} else {
					qp->cur_drop = !is_last(op);
					qp->epsn = psn_add(qp->epsn, 1);
				}
				return;
			}
			qp->cur_valid = true;
			qp->cur_off = 0;
		}
		if (qp->cur_off + (uint64_t)len > qp->cur.len) {
			cur_fail(v, qp, pk, IBV_WC_LOC_LEN_ERR, MPD_NAK_INV_REQ);
			return;
		}
		if (len && !sge_copy(v, pd, qp->cur.sg, qp->cur.num_sge,
				     qp->cur_off, (uint8_t *)pk->payload, len,
				     true)) {
			cur_fail(v, qp, pk, IBV_WC_LOC_PROT_ERR, MPD_NAK_REM_OP);
			return;
		}
		qp->cur_off += len;
		if (is_last(op)) {
			recv_cqe(v, qp, pk, &qp->cur, IBV_WC_SUCCESS,
				 IBV_WC_RECV, qp->cur_off, has_imm(op),
				 op == MPD_OP_SEND_LAST_INV ||
				 op == MPD_OP_SEND_ONLY_INV);
			qp->cur_valid = false;
			qp->msn = (qp->msn + 1) & PSN_MASK;
		}
	} else {
		struct hca_v_rwr r;
		uint8_t *p = NULL;

		if (op == MPD_OP_WRITE_FIRST || op == MPD_OP_WRITE_ONLY ||
		    op == MPD_OP_WRITE_ONLY_IMM) {
			if (!(qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE) ||
			    (pk->reth.dma_len &&
			     !mr_lookup(v, pk->reth.rkey, qp->pd, pk->reth.va,
					pk->reth.dma_len,
					IBV_ACCESS_REMOTE_WRITE))) {
				if (rc)
					rc_error(v, qp, MPD_NAK_REM_ACCESS);
				else
					qp->cur_drop = !is_last(op);
				return;
			}
			qp->wr_va = pk->reth.va;
			qp->wr_rkey = pk->reth.rkey;
			qp->wr_left = pk->reth.dma_len;
			qp->cur_off = pk->reth.dma_len;	/* for the CQE */
		}
		if (len > qp->wr_left || (is_last(op) && len != qp->wr_left)) {
			qp->wr_left = 0;
			cur_fail(v, qp, pk, IBV_WC_REM_INV_REQ_ERR,
				 MPD_NAK_INV_REQ);
			return;
		}
		/* with immediate data: a receive WR first, so that an RNR
		 * NAK leaves nothing half done (the retry writes again) */
		if (has_imm(op) && !qp_take_recv(v, qp, &r, &bad)) {
			if (bad) {
				rc_error(v, qp, MPD_NAK_REM_OP);
			} else if (rc) {
				rnr_nak(v, qp);
				qp->wr_left = 0;
			} else {
				qp->wr_left = 0;
				qp->epsn = psn_add(qp->epsn, 1);
			}
			return;
		}
		if (len) {
			p = mr_lookup(v, qp->wr_rkey, qp->pd, qp->wr_va, len,
				      IBV_ACCESS_REMOTE_WRITE);
			if (!p) {
				qp->wr_left = 0;
				if (rc)
					rc_error(v, qp, MPD_NAK_REM_ACCESS);
				return;
			}
			memcpy(p, pk->payload, len);
		}
		qp->wr_va += len;
		qp->wr_left -= len;
		if (is_last(op)) {
			if (has_imm(op))
				recv_cqe(v, qp, pk, &r, IBV_WC_SUCCESS,
					 IBV_WC_RECV_RDMA_WITH_IMM,
					 qp->cur_off, true, false);
			qp->msn = (qp->msn + 1) & PSN_MASK;
		}
	}
	qp->epsn = psn_add(qp->epsn, 1);
	if (rc && pk->bth.ack_req)
		ack(qp, MPD_AETH_ACK | MPD_AETH_CREDITS_INVALID,
		    psn_add(qp->epsn, PSN_MASK));
}

void
resp_input(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
	   uint64_t now_ns)
{
	(void)now_ns;
	if (qp->attr.qp_state == IBV_QPS_ERR)
		return;
	if (qp->type == IBV_QPT_UD)
		ud_input(v, qp, pk);
	else
		conn_input(v, qp, pk);
}

/* ---- what the responder sends ---- */

static bool
rd_send(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_rdjob *j,
	struct hca_v_out *out)
{
	uint32_t mtu = qp->mtu ? qp->mtu : 256;

	while (out->room && j->sent < j->npkts) {
		uint32_t k = j->sent, off = k * mtu, len = 0;
		const uint8_t *payload = NULL;
		struct mpd_pkt pk;
		uint8_t op;

		if (!qp_headers(v, qp, &qp->attr.ah, qp->attr.dest_qp_num, &pk))
			return false;
		if (j->atomic) {
			op = MPD_OP_ATOMIC_ACK;
			pk.atomic_orig = j->orig;
		} else if (j->npkts == 1) {
			op = MPD_OP_READ_RESP_ONLY;
		} else if (k == 0) {
			op = MPD_OP_READ_RESP_FIRST;
		} else if (k + 1 < j->npkts) {
			op = MPD_OP_READ_RESP_MIDDLE;
		} else {
			op = MPD_OP_READ_RESP_LAST;
		}
		if (!j->atomic) {
			len = j->len - off < mtu ? j->len - off : mtu;
			if (len) {
				/* the region may have gone since: answered
				 * with a NAK instead */
				payload = mr_lookup(v, j->rkey, qp->pd,
						    j->va + off, len,
						    IBV_ACCESS_REMOTE_READ);
				if (!payload) {
					j->pending = false;
					qp->ack_pending = true;
					qp->ack_syn = MPD_AETH_NAK |
						      MPD_NAK_REM_ACCESS;
					qp->ack_psn = psn_add(j->psn, k);
					return true;
				}
			}
		}
		pk.bth.opcode = MPD_TP_RC | op;
		pk.bth.psn = psn_add(j->psn, k);
		pk.aeth.syndrome = MPD_AETH_ACK | MPD_AETH_CREDITS_INVALID;
		pk.aeth.msn = qp->msn;
		if (!out->emit(out->ctx, &pk, payload, len))
			return false;
		out->room--;
		v->port->cnt.qp_pkts_out++;
		j->sent++;
	}
	if (j->sent == j->npkts)
		j->pending = false;
	return !j->pending;
}

void
resp_poll(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_out *out)
{
	struct mpd_pkt pk;
	uint32_t i;

	if (qp->type != IBV_QPT_RC)
		return;
	/* answers in PSN order: READs and atomics, oldest first, before
	 * an ACK for a later PSN */
	for (i = 0; i < RD_JOBS; i++) {
		struct hca_v_rdjob *j = rd_slot(qp, qp->rd_head + i);

		if (j->pending && !rd_send(v, qp, j, out))
			return;
	}
	if (!qp->ack_pending || !out->room)
		return;
	if (!qp_headers(v, qp, &qp->attr.ah, qp->attr.dest_qp_num, &pk))
		return;
	pk.bth.opcode = MPD_TP_RC | MPD_OP_ACK;
	pk.bth.psn = qp->ack_psn;
	pk.aeth.syndrome = qp->ack_syn;
	pk.aeth.msn = qp->msn;
	if (!out->emit(out->ctx, &pk, NULL, 0))
		return;
	out->room--;
	v->port->cnt.qp_pkts_out++;
	qp->ack_pending = false;
}

void
resp_flush(struct hca_verbs *v, struct hca_v_qp *qp)
{
	struct mpd_pkt none;
	struct hca_v_rwr r;
	bool bad;

	memset(&none, 0, sizeof(none));
	if (qp->cur_valid)
		recv_cqe(v, qp, &none, &qp->cur, IBV_WC_WR_FLUSH_ERR,
			 IBV_WC_RECV, 0, false, false);
	qp->cur_valid = false;
	/* an SRQ's WRs are not this QP's to flush (IBA 10.2.9.5) */
	if (qp->srq) {
		qp_async(qp, IBV_EVENT_QP_LAST_WQE_REACHED);
		return;
	}
	while (qp_take_recv(v, qp, &r, &bad))
		recv_cqe(v, qp, &none, &r, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0,
			 false, false);
}
