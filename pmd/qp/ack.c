/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the RC responder sends (IBA 9.7.5.1, 9.7.5.2): READ responses and
 * atomic ACKs, oldest first, then one ACK or NAK per QP per poll for the
 * last PSN that asked. A NAK is never replaced by a later ACK in the
 * same poll, nor a NAK by a later NAK; an RNR NAK and a READ's access
 * NAK (the region went while its responses were out) replace what is
 * queued: they stop the message where they say.
 */
#include <string.h>

#include "qp_priv.h"

void
ack_queue(struct hca_v_qp *qp, uint8_t syn, uint32_t psn)
{
	struct qp_resp *r = &qp->resp;

	if (r->ack.pending && (r->ack.syn & MPD_AETH_TYPE_MASK) != MPD_AETH_ACK)
		return;
	r->ack.pending = true;
	r->ack.syn = syn;
	r->ack.psn = psn;
}

void
ack_nak(struct hca_v_qp *qp, uint8_t code)
{
	struct qp_resp *r = &qp->resp;

	if (r->ack.pending && r->ack.syn != MPD_AETH_ACK &&
	    r->ack.syn != (MPD_AETH_ACK | MPD_AETH_CREDITS_INVALID))
		return;		/* the first NAK says it */
	r->ack.pending = true;
	r->ack.syn = MPD_AETH_NAK | code;
	r->ack.psn = r->epsn;
}

/* The packets behind it are dropped without a word until the SEND comes
 * again (nak_sent) */
void
ack_rnr(struct hca_verbs *v, struct hca_v_qp *qp)
{
	struct qp_resp *r = &qp->resp;

	v->port->cnt.qp_rnr_naks_sent++;
	r->ack.pending = true;
	r->ack.syn = MPD_AETH_RNR_NAK | (qp->attr.min_rnr_timer & 0x1f);
	r->ack.psn = r->epsn;
	r->nak_sent = true;
}

static uint8_t
rd_opcode(const struct hca_v_rdjob *j, uint32_t k)
{
	if (j->atomic)
		return MPD_OP_ATOMIC_ACK;
	if (j->npkts == 1)
		return MPD_OP_READ_RESP_ONLY;
	if (k == 0)
		return MPD_OP_READ_RESP_FIRST;
	if (k + 1 < j->npkts)
		return MPD_OP_READ_RESP_MIDDLE;
	return MPD_OP_READ_RESP_LAST;
}

/* The job's responses, as far as there is room: true when it is done */
static bool
rd_send(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_rdjob *j,
	struct hca_v_out *out)
{
	uint32_t mtu = qp_mtu(qp);

	while (out->room && j->sent < j->npkts) {
		uint32_t k = j->sent, off = k * mtu, len = 0;
		const uint8_t *payload = NULL;
		struct mpd_pkt pk;

		if (!qp_headers(v, qp, &qp->attr.ah, qp->attr.dest_qp_num, &pk))
			return false;
		if (j->atomic)
			pk.atomic_orig = j->orig;
		else
			len = j->len - off < mtu ? j->len - off : mtu;
		if (len) {
			/* the region may have gone since: answered with a
			 * NAK instead */
			payload = rkey_lookup(v, qp, j->rkey, j->va + off,
					      len, IBV_ACCESS_REMOTE_READ);
			if (!payload) {
				j->pending = false;
				qp->resp.ack.pending = true;
				qp->resp.ack.syn = MPD_AETH_NAK |
						   MPD_NAK_REM_ACCESS;
				qp->resp.ack.psn = psn_add(j->psn, k);
				return true;
			}
		}
		pk.bth.opcode = MPD_TP_RC | rd_opcode(j, k);
		pk.bth.psn = psn_add(j->psn, k);
		pk.aeth.syndrome = MPD_AETH_ACK | MPD_AETH_CREDITS_INVALID;
		pk.aeth.msn = qp->resp.msn;
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
ack_poll(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_out *out)
{
	struct qp_resp *r = &qp->resp;
	struct mpd_pkt pk;
	uint32_t i;

	if (qp->type != IBV_QPT_RC)
		return;
	/* answers in PSN order: READs and atomics, oldest first, before
	 * an ACK for a later PSN */
	for (i = 0; i < RD_JOBS; i++) {
		struct hca_v_rdjob *j = resp_rd_slot(qp, r->rd_head + i);

		if (j->pending && !rd_send(v, qp, j, out))
			return;
	}
	if (!r->ack.pending || !out->room)
		return;
	if (!qp_headers(v, qp, &qp->attr.ah, qp->attr.dest_qp_num, &pk))
		return;
	pk.bth.opcode = MPD_TP_RC | MPD_OP_ACK;
	pk.bth.psn = r->ack.psn;
	pk.aeth.syndrome = r->ack.syn;
	pk.aeth.msn = r->msn;
	if (!out->emit(out->ctx, &pk, NULL, 0))
		return;
	out->room--;
	v->port->cnt.qp_pkts_out++;
	r->ack.pending = false;
}
