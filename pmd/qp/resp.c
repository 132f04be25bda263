/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder (IBA 9.7.5, 9.8): packets in PSN order into receive WRs
 * and memory regions. On RC a packet ahead of the expected PSN gets one
 * sequence-error NAK, one behind it is a duplicate (acknowledged again, a
 * READ answered again from memory, an atomic answered with the value it
 * returned the first time); a SEND without a receive WR gets an RNR NAK.
 *
 * As rxe's responder, a packet of a connected QP goes through steps,
 * each a small function returning the next: the PSN, the opcode
 * sequence, the MTU, then the checks in the order each operation needs
 * them (a SEND: its receive WR, the length; a WRITE: the R_Key, the
 * length, a receive WR only with immediate data, so that an RNR NAK
 * leaves nothing half done; a READ or atomic: a job slot, the R_Key),
 * then the execution, the completion and the acknowledgement. A failed
 * check names an error step, which says what the requester and the
 * client are told. What goes back is ack.c's.
 */
#include <endian.h>
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
		} else if (qp->type == IBV_QPT_UD) {
			/* RoCE has no SL: a UD completion's says what the
			 * frame was, as mlx5's does (bit 3 UDP, bits 2:0 the
			 * L3 header: 1 IPv6, 2 IPv4; A17.4.5.1 wants the CQE
			 * to tell them apart), which UCX's ud_verbs reads to
			 * find the destination GID in the GRH area */
			e.sl = 0x8 | (pk->ip_ver == 4 ? 0x2 : 0x1);
		}
		if (imm) {
			e.wc_flags |= IBV_WC_WITH_IMM;
			e.imm_data = htobe32(pk->imm);	/* __be32 in the WC */
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
	uint32_t mask = mpd_op_mask(pk->bth.opcode);
	uint32_t pd = qp->srq ? qp->srq->pd : qp->pd;
	uint32_t len = (uint32_t)pk->payload_len;
	uint8_t grh[GRH_AREA];
	struct hca_v_rwr r;
	bool bad;

	/* UD has SEND Only (+Imm) alone; an opcode no codec carries can
	 * reach the layer only from a caller that forged it */
	if (!(mask & MPD_OPC_SEND))
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
		 mask & MPD_HDR_IMM, false);
}

/* ---- RC and UC: the steps ---- */

enum resp_state {
	RESP_CHECK_PSN,
	RESP_DUPLICATE,		/* RC: behind the PSN expected */
	RESP_CHECK_OP_SEQ,	/* First, Middle, Last in their order */
	RESP_CHECK_MTU,		/* all but the last packet a full MTU */
	RESP_CHECK_RESOURCE,	/* a receive WR; a READ/atomic slot */
	RESP_CHECK_RKEY,	/* the R_Key, its range and access */
	RESP_CHECK_LENGTH,	/* the data fits where it goes */
	RESP_EXECUTE,
	RESP_COMPLETE,		/* the message's last packet: its CQE */
	RESP_ACKNOWLEDGE,
	RESP_ERR_INV_REQ,	/* malformed: NAK Invalid Request */
	RESP_ERR_LOC_LEN,	/* a SEND longer than its receive WR */
	RESP_ERR_LOC_PROT,	/* the receive WR's SGEs refused the data */
	RESP_ERR_RWQE,		/* the client wrote a receive WQE wrong */
	RESP_ERR_RKEY,		/* the R_Key, range or access refused */
	RESP_NO_RWQE,		/* no receive WR: RNR NAK (RC), drop (UC) */
	RESP_DONE,
};

/* The packet in hand */
struct resp_pkt {
	const struct mpd_pkt *pk;
	uint32_t mask;			/* mpd_op_mask() of its opcode */
	uint32_t len;			/* payload bytes */
	bool rc;
	struct hca_v_rwr imm_wqe;	/* a WRITE with immediate's receive */
	uint8_t *atomic;		/* an atomic's target */
	enum resp_state state;		/* the step running */
};

typedef enum resp_state (*resp_step)(struct hca_verbs *v, struct hca_v_qp *qp,
				      struct resp_pkt *p);

/* The QP to Error for what the peer sent (IBA 9.9.3.1.1: the responder's
 * QP goes to Error too); an RC peer is told first by a NAK, which
 * ack_poll() sends from ERR. UC has no NAK to send: none is queued, or
 * the port would look busy until the QP went away. */
static void
rc_error(struct hca_v_qp *qp, uint8_t code)
{
	static const uint32_t status[] = {
		[MPD_NAK_INV_REQ] = IBV_WC_REM_INV_REQ_ERR,
		[MPD_NAK_REM_ACCESS] = IBV_WC_REM_ACCESS_ERR,
		[MPD_NAK_REM_OP] = IBV_WC_REM_OP_ERR,
	};
	uint32_t st = code < sizeof(status) / sizeof(status[0]) ?
		      status[code] : IBV_WC_GENERAL_ERR;

	qp_error_at(qp, st, qp->resp.epsn);
	if (qp->type == IBV_QPT_RC)
		ack_nak(qp, code);
}

/* IBA 9.7.5.1.2, 9.8.4: the PSN. RC: one NAK for a packet ahead, a
 * duplicate behind; UC drops the message a lost packet broke and starts
 * again at the next First */
static enum resp_state
check_psn(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	struct qp_resp *r = &qp->resp;
	uint32_t psn = p->pk->bth.psn;
	bool first = p->mask & MPD_OPC_FIRST;
	int32_t d = psn_diff(psn, r->epsn);

	(void)v;
	if (p->rc && d < 0)
		return RESP_DUPLICATE;
	if (p->rc && d > 0) {
		if (!r->nak_sent) {
			r->nak_sent = true;
			ack_nak(qp, MPD_NAK_PSN_SEQ_ERR);
		}
		return RESP_DONE;
	}
	if (!p->rc && d != 0) {
		r->wqe_valid = false;
		r->write.left = 0;
		if (!first) {
			r->drop = true;
			r->epsn = psn_add(psn, 1);
			return RESP_DONE;
		}
		r->epsn = psn;
		r->drop = false;
	}
	r->nak_sent = false;
	if (!p->rc && r->drop) {
		if (!first) {
			r->epsn = psn_add(r->epsn, 1);
			return RESP_DONE;
		}
		r->drop = false;
	}
	return RESP_CHECK_OP_SEQ;
}

/* A duplicate READ or atomic (IBA 9.7.5.1.4): answered again */
static void
rd_again(struct hca_verbs *v, struct hca_v_qp *qp, const struct resp_pkt *p)
{
	const struct mpd_pkt *pk = p->pk;
	bool atomic = p->mask & MPD_OPC_ATOMIC;
	uint32_t i;

	for (i = 0; i < RD_JOBS; i++) {
		struct hca_v_rdjob *j = &qp->resp.rd[i];
		int32_t d = psn_diff(pk->bth.psn, j->psn);

		if (!j->npkts || d < 0 || (uint32_t)d >= j->npkts)
			continue;
		if (j->atomic != atomic)
			return;
		if (!j->atomic) {
			/* from the PSN asked, for what it asks */
			if (pk->reth.dma_len &&
			    !rkey_lookup(v, qp, pk->reth.rkey, pk->reth.va,
				       pk->reth.dma_len, IBV_ACCESS_REMOTE_READ))
				return;
			j->sent = (uint32_t)d;
			j->va = pk->reth.va - (uint64_t)d * qp_mtu(qp);
			j->rkey = pk->reth.rkey;
		} else {
			j->sent = 0;
		}
		j->pending = true;
		return;
	}
}

/* IBA 9.7.5.1.4: a SEND or WRITE acknowledged again, a READ or atomic
 * answered again */
static enum resp_state
duplicate(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	v->port->cnt.qp_duplicates++;
	if (p->mask & MPD_OPC_RD_ATOMIC)
		rd_again(v, qp, p);
	else
		ack_queue(qp, MPD_AETH_ACK | MPD_AETH_CREDITS_INVALID,
			  psn_add(qp->resp.epsn, PSN_MASK));
	return RESP_DONE;
}

/* IBA 9.7.5.1.3, 9.8.4: a packet that does not follow the one before (a
 * Middle without a First, a First inside a message) */
static enum resp_state
check_op_seq(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	bool first = p->mask & MPD_OPC_FIRST;
	bool send = p->mask & MPD_OPC_SEND;
	bool busy = qp->resp.wqe_valid || qp->resp.write.left != 0;

	(void)v;
	if (first == busy || (!first && send != qp->resp.wqe_valid))
		return RESP_ERR_INV_REQ;
	return RESP_CHECK_MTU;
}

/* IBA 9.7.5.1.3: First and Middle packets carry exactly the MTU */
static enum resp_state
check_mtu(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	(void)v;
	if (!(p->mask & MPD_OPC_LAST) && p->len != qp_mtu(qp))
		return RESP_ERR_INV_REQ;
	/* a WRITE's receive WR (with immediate) is taken after its checks */
	return p->mask & MPD_OPC_WRITE ? RESP_CHECK_RKEY : RESP_CHECK_RESOURCE;
}

/* The receive WR a SEND fills, a WRITE with immediate consumes */
static enum resp_state
take_rwqe(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_rwr *r)
{
	bool bad;

	if (qp_take_recv(v, qp, r, &bad))
		return RESP_EXECUTE;
	return bad ? RESP_ERR_RWQE : RESP_NO_RWQE;
}

/* IBA 9.7.5.1.6 (RNR), 9.4.4 (MaxDestRdAtomic): what the packet uses up */
static enum resp_state
check_resource(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	struct qp_resp *r = &qp->resp;
	struct hca_v_rdjob *j;
	uint32_t i, busy = 0;

	if (p->mask & MPD_OPC_SEND) {
		if (!r->wqe_valid) {
			enum resp_state s = take_rwqe(v, qp, &r->wqe);

			if (s != RESP_EXECUTE)
				return s;
			r->wqe_valid = true;
			r->off = 0;
		}
		return RESP_CHECK_LENGTH;
	}
	if (p->mask & MPD_OPC_WRITE)
		return p->mask & MPD_HDR_IMM ? take_rwqe(v, qp, &p->imm_wqe)
					     : RESP_EXECUTE;
	for (i = 0; i < RD_JOBS; i++)
		busy += r->rd[i].pending;
	if (busy >= (qp->attr.max_dest_rd_atomic ? qp->attr.max_dest_rd_atomic
						 : 1))
		return RESP_ERR_INV_REQ;
	/* the oldest job slot, kept until now for duplicates, is this
	 * request's: exec_rd_atomic() fills it */
	j = resp_rd_slot(qp, r->rd_head);
	memset(j, 0, sizeof(*j));
	j->psn = p->pk->bth.psn;
	return RESP_CHECK_RKEY;
}

/* IBA 9.7.4.1.3, 10.6.3: the R_Key names a region of the QP's PD that
 * holds the range with the access the operation needs, on a QP that
 * allows it. A WRITE's First packet starts the cursor its others use. */
static enum resp_state
check_rkey(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	const struct mpd_pkt *pk = p->pk;
	uint32_t access = qp->attr.qp_access_flags;

	if (p->mask & MPD_OPC_WRITE) {
		if (!(p->mask & MPD_HDR_RETH))
			return RESP_CHECK_LENGTH;
		if (!(access & IBV_ACCESS_REMOTE_WRITE) ||
		    (pk->reth.dma_len &&
		     !rkey_lookup(v, qp, pk->reth.rkey, pk->reth.va,
				pk->reth.dma_len, IBV_ACCESS_REMOTE_WRITE)))
			return RESP_ERR_RKEY;
		qp->resp.write.va = pk->reth.va;
		qp->resp.write.rkey = pk->reth.rkey;
		qp->resp.write.left = pk->reth.dma_len;
		qp->resp.off = pk->reth.dma_len;	/* for the CQE */
		return RESP_CHECK_LENGTH;
	}
	if (p->mask & MPD_OPC_READ) {
		if (!(access & IBV_ACCESS_REMOTE_READ) ||
		    (pk->reth.dma_len &&
		     !rkey_lookup(v, qp, pk->reth.rkey, pk->reth.va,
				pk->reth.dma_len, IBV_ACCESS_REMOTE_READ)))
			return RESP_ERR_RKEY;
		return RESP_EXECUTE;
	}
	if (!(access & IBV_ACCESS_REMOTE_ATOMIC))
		return RESP_ERR_RKEY;
	p->atomic = rkey_lookup(v, qp, pk->atomic.rkey, pk->atomic.va, 8,
				IBV_ACCESS_REMOTE_ATOMIC);
	if (!p->atomic)
		return RESP_ERR_RKEY;
	if (pk->atomic.va & 7)
		return RESP_ERR_INV_REQ;	/* IBA 9.4.5: 8-byte aligned */
	return RESP_EXECUTE;
}

/* The data fits: a SEND in its receive WR, a WRITE in the DMA length
 * its First packet gave (the Last packet ends it exactly) */
static enum resp_state
check_length(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	struct qp_resp *r = &qp->resp;

	(void)v;
	if (p->mask & MPD_OPC_SEND)
		return r->off + (uint64_t)p->len > r->wqe.len ?
		       RESP_ERR_LOC_LEN : RESP_EXECUTE;
	if (p->len > r->write.left ||
	    ((p->mask & MPD_OPC_LAST) && p->len != r->write.left)) {
		r->write.left = 0;
		return RESP_ERR_INV_REQ;
	}
	return RESP_CHECK_RESOURCE;
}

/* A READ or atomic: queued for ack_poll to answer; an atomic done now,
 * against the client's own accesses too. Its responses are its
 * acknowledgement: the PSNs they take and the MSN move here, and no
 * complete or acknowledge step follows. */
static enum resp_state
exec_rd_atomic(struct hca_v_qp *qp, struct resp_pkt *p)
{
	struct qp_resp *r = &qp->resp;
	struct hca_v_rdjob *j = resp_rd_slot(qp, r->rd_head);
	uint32_t mtu = qp_mtu(qp);
	const struct mpd_pkt *pk = p->pk;

	if (p->mask & MPD_OPC_READ) {
		j->va = pk->reth.va;
		j->rkey = pk->reth.rkey;
		j->len = pk->reth.dma_len;
		j->npkts = j->len ? (j->len + mtu - 1) / mtu : 1;
	} else {
		uint64_t *a = (uint64_t *)(void *)p->atomic;

		if (pk->bth.opcode == MPD_OP_CMP_SWAP) {
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
	r->rd_head++;
	r->epsn = psn_add(r->epsn, j->npkts);
	r->msn = (r->msn + 1) & PSN_MASK;
	return RESP_DONE;
}

static enum resp_state
execute(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	struct qp_resp *r = &qp->resp;
	uint32_t pd = qp->srq ? qp->srq->pd : qp->pd;
	uint8_t *dst;

	if (p->mask & MPD_OPC_RD_ATOMIC)
		return exec_rd_atomic(qp, p);
	if (p->mask & MPD_OPC_SEND) {
		if (p->len && !sge_copy(v, pd, r->wqe.sg, r->wqe.num_sge,
					r->off, (uint8_t *)p->pk->payload,
					p->len, true))
			return RESP_ERR_LOC_PROT;
		r->off += p->len;
		return RESP_COMPLETE;
	}
	if (p->len) {
		/* the region checked at the First packet may have gone */
		dst = rkey_lookup(v, qp, r->write.rkey, r->write.va, p->len,
				  IBV_ACCESS_REMOTE_WRITE);
		if (!dst) {
			r->write.left = 0;
			return p->rc ? RESP_ERR_RKEY : RESP_DONE;
		}
		memcpy(dst, p->pk->payload, p->len);
	}
	r->write.va += p->len;
	r->write.left -= p->len;
	return RESP_COMPLETE;
}

/* The message's last packet: the receive WR's CQE (a SEND, a WRITE
 * with immediate), the MSN one more */
static enum resp_state
complete(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	struct qp_resp *r = &qp->resp;

	if (!(p->mask & MPD_OPC_LAST))
		return RESP_ACKNOWLEDGE;
	/* IBA 9.4.6, 10.6.7.2.2: the window named goes with the message,
	 * or the message fails (an invalid request) */
	if ((p->mask & MPD_HDR_IETH) &&
	    !mw_remote_invalidate(v, qp, p->pk->ieth))
		return RESP_ERR_INV_REQ;
	if (p->mask & MPD_OPC_SEND) {
		recv_cqe(v, qp, p->pk, &r->wqe, IBV_WC_SUCCESS, IBV_WC_RECV,
			 r->off, p->mask & MPD_HDR_IMM,
			 p->mask & MPD_HDR_IETH);
		r->wqe_valid = false;
	} else if (p->mask & MPD_HDR_IMM) {
		recv_cqe(v, qp, p->pk, &p->imm_wqe, IBV_WC_SUCCESS,
			 IBV_WC_RECV_RDMA_WITH_IMM, r->off, true, false);
	}
	r->msn = (r->msn + 1) & PSN_MASK;
	return RESP_ACKNOWLEDGE;
}

/* The next PSN expected; on RC an ACK when the packet asked */
static enum resp_state
acknowledge(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	struct qp_resp *r = &qp->resp;

	(void)v;
	r->epsn = psn_add(r->epsn, 1);
	if (p->rc && p->pk->bth.ack_req)
		ack_queue(qp, MPD_AETH_ACK | MPD_AETH_CREDITS_INVALID,
			  psn_add(r->epsn, PSN_MASK));
	return RESP_DONE;
}

/* ---- RC and UC: the errors ---- */

/* The message in progress fails, why as its state says: its receive WR
 * completes with that status; RC NAKs (the code) and goes to ERR, UC
 * drops the rest of the message */
static enum resp_state
err_msg(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	static const struct {
		uint8_t status;		/* enum ibv_wc_status */
		uint8_t code;		/* MPD_NAK_* */
	} why[] = {
		[RESP_ERR_INV_REQ] = { IBV_WC_REM_INV_REQ_ERR,
				       MPD_NAK_INV_REQ },
		[RESP_ERR_LOC_LEN] = { IBV_WC_LOC_LEN_ERR, MPD_NAK_INV_REQ },
		[RESP_ERR_LOC_PROT] = { IBV_WC_LOC_PROT_ERR, MPD_NAK_REM_OP },
	};

	if (qp->resp.wqe_valid)
		recv_cqe(v, qp, p->pk, &qp->resp.wqe, why[p->state].status,
			 IBV_WC_RECV, 0, false, false);
	qp->resp.wqe_valid = false;
	if (p->rc)
		rc_error(qp, why[p->state].code);
	else
		qp->resp.drop = true;
	return RESP_DONE;
}

/* A receive WQE the client wrote wrong: the QP goes to ERR, UC too */
static enum resp_state
err_rwqe(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	(void)v;
	(void)p;
	rc_error(qp, MPD_NAK_REM_OP);
	return RESP_DONE;
}

/* IBA 9.7.5.1.5: RC NAKs Remote Access Error; UC drops the message */
static enum resp_state
err_rkey(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	(void)v;
	if (p->rc)
		rc_error(qp, MPD_NAK_REM_ACCESS);
	else
		qp->resp.drop = !(p->mask & MPD_OPC_LAST);
	return RESP_DONE;
}

/* IBA 9.7.5.2.8: no receive WR. RC sends an RNR NAK and takes the
 * message again when it comes; UC drops it (IBA 9.8.4) */
static enum resp_state
no_rwqe(struct hca_verbs *v, struct hca_v_qp *qp, struct resp_pkt *p)
{
	qp->resp.write.left = 0;
	if (p->rc) {
		ack_rnr(v, qp);
		return RESP_DONE;
	}
	qp->resp.drop = !(p->mask & MPD_OPC_LAST);
	qp->resp.epsn = psn_add(qp->resp.epsn, 1);
	return RESP_DONE;
}

static const resp_step steps[RESP_DONE] = {
	[RESP_CHECK_PSN] = check_psn,
	[RESP_DUPLICATE] = duplicate,
	[RESP_CHECK_OP_SEQ] = check_op_seq,
	[RESP_CHECK_MTU] = check_mtu,
	[RESP_CHECK_RESOURCE] = check_resource,
	[RESP_CHECK_RKEY] = check_rkey,
	[RESP_CHECK_LENGTH] = check_length,
	[RESP_EXECUTE] = execute,
	[RESP_COMPLETE] = complete,
	[RESP_ACKNOWLEDGE] = acknowledge,
	[RESP_ERR_INV_REQ] = err_msg,
	[RESP_ERR_LOC_LEN] = err_msg,
	[RESP_ERR_LOC_PROT] = err_msg,
	[RESP_ERR_RWQE] = err_rwqe,
	[RESP_ERR_RKEY] = err_rkey,
	[RESP_NO_RWQE] = no_rwqe,
};

void
resp_input(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
	   uint64_t now_ns)
{
	enum resp_state s = RESP_CHECK_PSN;
	struct resp_pkt p;		/* imm_wqe is filled when taken */

	(void)now_ns;
	if (qp->attr.qp_state == IBV_QPS_ERR)
		return;
	if (qp->type == IBV_QPT_UD) {
		ud_input(v, qp, pk);
		return;
	}
	p.pk = pk;
	p.mask = mpd_op_mask(pk->bth.opcode);
	p.len = (uint32_t)pk->payload_len;
	p.rc = qp->type == IBV_QPT_RC;
	p.atomic = NULL;
	while (s != RESP_DONE) {
		p.state = s;
		s = steps[s](v, qp, &p);
	}
}

void
resp_flush(struct hca_verbs *v, struct hca_v_qp *qp)
{
	struct mpd_pkt none;
	struct hca_v_rwr r;
	bool bad;

	memset(&none, 0, sizeof(none));
	if (qp->resp.wqe_valid)
		recv_cqe(v, qp, &none, &qp->resp.wqe, IBV_WC_WR_FLUSH_ERR,
			 IBV_WC_RECV, 0, false, false);
	qp->resp.wqe_valid = false;
	/* an SRQ's WRs are not this QP's to flush (IBA 10.2.9.5) */
	if (qp->srq) {
		qp_async(qp, IBV_EVENT_QP_LAST_WQE_REACHED);
		return;
	}
	while (qp_take_recv(v, qp, &r, &bad))
		recv_cqe(v, qp, &none, &r, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0,
			 false, false);
}
