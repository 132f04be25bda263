/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Records linked to the wire: a CQ completion or a QP state change that
 * carries a PSN points at the frame that caused it (madpmd.wc.frame,
 * madpmd.qp.frame), found by destination QP and PSN among the RC frames
 * before it (RoCEv2 and native IB exported for the stock dissector):
 *   - a receive: the request to the QP with that PSN, not a later one;
 *   - a send: the ACK to the QP with that PSN, or the coalesced ACK that
 *     first covered it; a request to the same QP with the same PSN (the
 *     peer's own direction) is not taken;
 *   - a QP to ERR: a NAK to the QP, else its own request to the peer that
 *     went unanswered;
 *   - nothing found, no PSN, or a 52-byte WC of an older capture: no link.
 * tshark runs with -2, as the link is made in the first pass.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/pcapng.h"
#include "madpmd/records.h"
#include "madpmd/wire.h"
#include "dtest.h"
#include "tap.h"

#define QP_A	0x41	/* ours */
#define QP_B	0x52	/* its peer */

/* upper layers stock tshark tries on RC payloads by heuristics */
static const char *const payload_protos[] = {
	"smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet", "iser",
	"infiniband.eoib", "infiniband_sdp", "fcoib",
};

static struct mpd_pcapng *w;
static uint32_t if_eth, if_up;

/* An RC packet to dest_qp with psn, on RoCEv2/IPv4 or native IB (as the
 * exported PDU "infiniband" madpmd captures hold by default). */
static int
add_rc(struct oracle *o, const char *label, enum mpd_link link, uint8_t op,
       uint32_t dest_qp, uint32_t psn)
{
	uint8_t buf[512], payload[16];
	struct mpd_pkt p;
	size_t len = mpd_op_hdrs(op) & MPD_HDR_PAYLOAD ? sizeof(payload) : 0;
	int n, rc;

	oracle_pkt_init(&p, link, dest_qp, 0);
	p.ip_ver = 4;
	p.ip4.ttl = 64;
	p.bth.opcode = op;
	p.bth.psn = psn;
	p.aeth.syndrome = MPD_AETH_ACK | 0x1f;
	p.aeth.msn = (uint32_t)rnd_bits(24);
	memset(payload, 0x11, sizeof(payload));
	n = mpd_pkt_encode(&p, payload, len, buf, sizeof(buf));
	if (!ok(n > 0, "%s: encode", label))
		return 0;
	if (link == MPD_LINK_IB)
		rc = mpd_pcapng_write_exported(w, if_up, dtest_next_ts(0),
					       MPD_PCAPNG_DIR_IN, "infiniband",
					       MPD_EXP_PDU_NO_PORT,
					       MPD_EXP_PDU_NO_PORT, buf,
					       (size_t)n);
	else
		rc = mpd_pcapng_write(w, if_eth, dtest_next_ts(0),
				      MPD_PCAPNG_DIR_IN, buf, (size_t)n);
	if (!ok(rc == 0, "%s: written", label))
		return 0;
	n = oracle_add_written(o, label);
	/* what the link is made from, as the stock dissector sees it */
	oracle_expect_uint(o, n, "infiniband.bth.opcode", 0, op);
	oracle_expect_uint(o, n, "infiniband.bth.destqp", 0, dest_qp);
	oracle_expect_uint(o, n, "infiniband.bth.psn", 0, psn);
	return n;
}

static int
add_wc(struct oracle *o, const char *label, uint32_t qp, uint32_t opcode,
       uint32_t psn, int cause)
{
	struct mpd_rec_hdr h = { .port = 1, .node_id = 0 };
	struct mpd_rec_wc wc;
	static uint32_t seq;
	int fr;

	memset(&wc, 0, sizeof(wc));
	h.seq = seq++;
	wc.cq_id = 3;
	wc.qp_num = qp;
	wc.wr_id = rnd64();
	wc.opcode = opcode;
	wc.byte_len = 16;
	wc.src_qp = opcode >= 128 ? QP_B : 0;
	wc.psn = psn;
	if (!ok(mpd_rec_write_wc(w, if_up, dtest_next_ts(0), &h, &wc) == 0,
		"%s: written", label))
		return 0;
	fr = oracle_add_written(o, label);
	oracle_expect_uint(o, fr, "madpmd.rec.bodylen", 0, MPD_REC_WC_LEN);
	oracle_expect_uint(o, fr, "madpmd.wc.qpnum", 0, qp);
	oracle_expect_uint(o, fr, "madpmd.wc.opcode", 0, opcode);
	if (psn == MPD_REC_NO_PSN)
		oracle_expect_absent(o, fr, "madpmd.wc.psn");
	else
		oracle_expect_uint(o, fr, "madpmd.wc.psn", 0, psn);
	if (cause)
		oracle_expect_uint(o, fr, "madpmd.wc.frame", 0,
				   (uint64_t)cause);
	else
		oracle_expect_absent(o, fr, "madpmd.wc.frame");
	return fr;
}

int
main(void)
{
	struct mpd_rec_hdr h = { .port = 1, .node_id = 0, .seq = 100 };
	struct mpd_rec_qp q;
	struct mpd_rec_wc wc;
	struct oracle *o;
	uint8_t rec[MPD_REC_HDR_LEN + MPD_REC_WC_LEN];
	int send, ack, req, fr;
	size_t i;

	if (!dtest_init("link"))
		return 0;
	o = dtest_oracle("link");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	for (i = 0; i < sizeof(payload_protos) / sizeof(payload_protos[0]);
	     i++) {
		oracle_add_tshark_arg(o, "--disable-protocol");
		oracle_add_tshark_arg(o, payload_protos[i]);
	}
	oracle_add_tshark_arg(o, "--disable-heuristic");
	oracle_add_tshark_arg(o, "eth_over_ib");
	oracle_add_tshark_arg(o, "-2");
	w = oracle_writer(o, &if_eth, &if_up);

	/* a receive: the SEND Only, not the one after it with another PSN,
	 * nor the copy of the same PSN on a QP of another number */
	send = add_rc(o, "RoCEv2 RC SEND Only to QP 0x41 PSN 0x123",
		      MPD_LINK_ROCE_V2, MPD_OP_SEND_ONLY, QP_A, 0x123);
	add_rc(o, "RoCEv2 RC SEND Only to QP 0x41 PSN 0x124",
	       MPD_LINK_ROCE_V2, MPD_OP_SEND_ONLY, QP_A, 0x124);
	add_rc(o, "RoCEv2 RC SEND Only to QP 0x42 PSN 0x123",
	       MPD_LINK_ROCE_V2, MPD_OP_SEND_ONLY, QP_A + 1, 0x123);
	fr = add_wc(o, "WC RECV QP 0x41 PSN 0x123", QP_A, 128, 0x123, send);
	oracle_expect_str(o, fr, "_ws.col.Info", 0,
			  "CQ completion QP 0x000041 RECV SUCCESS");

	/* a QP to ERR on retries exceeded: its own request to the peer */
	req = add_rc(o, "RoCEv2 RC SEND Only to QP 0x52 PSN 0x200",
		     MPD_LINK_ROCE_V2, MPD_OP_SEND_ONLY, QP_B, 0x200);
	memset(&q, 0, sizeof(q));
	q.qp_num = QP_A;
	q.handle = 7;
	q.qp_type = 2;
	q.old_state = 3;
	q.new_state = 6;
	q.cause = MPD_REC_QP_ERROR;
	q.status = 12;
	q.psn = 0x200;
	q.dest_qp = QP_B;
	ok(mpd_rec_write_qp(w, if_up, dtest_next_ts(0), &h, &q) == 0,
	   "QP record RTS -> ERR written");
	fr = oracle_add_written(o, "QP 0x41 RTS -> ERR, RETRY_EXC_ERR");
	oracle_expect_uint(o, fr, "madpmd.rec.kind", 0, MPD_REC_QP);
	oracle_expect_uint(o, fr, "madpmd.rec.bodylen", 0, MPD_REC_QP_LEN);
	oracle_expect_uint(o, fr, "madpmd.qp.qpnum", 0, QP_A);
	oracle_expect_uint(o, fr, "madpmd.qp.handle", 0, 7);
	oracle_expect_uint(o, fr, "madpmd.qp.type", 0, 2);
	oracle_expect_uint(o, fr, "madpmd.qp.oldstate", 0, 3);
	oracle_expect_uint(o, fr, "madpmd.qp.newstate", 0, 6);
	oracle_expect_uint(o, fr, "madpmd.qp.cause", 0, MPD_REC_QP_ERROR);
	oracle_expect_uint(o, fr, "madpmd.qp.status", 0, 12);
	oracle_expect_uint(o, fr, "madpmd.qp.psn", 0, 0x200);
	oracle_expect_uint(o, fr, "madpmd.qp.destqp", 0, QP_B);
	oracle_expect_uint(o, fr, "madpmd.qp.frame", 0, (uint64_t)req);
	oracle_expect_str(o, fr, "_ws.expert.message", 0,
			  "QP to ERR by an error: RETRY_EXC_ERR");
	oracle_expect_str(o, fr, "_ws.col.Info", 0,
			  "QP 0x000041 RTS -> ERR (error RETRY_EXC_ERR)");

	/* a QP to ERR on a NAK (remote access): the NAK to it, before its
	 * own request with that PSN */
	add_rc(o, "RoCEv2 RC SEND Only to QP 0x52 PSN 0x250",
	       MPD_LINK_ROCE_V2, MPD_OP_SEND_ONLY, QP_B, 0x250);
	ack = add_rc(o, "RoCEv2 RC NAK to QP 0x41 PSN 0x250",
		     MPD_LINK_ROCE_V2, MPD_OP_ACK, QP_A, 0x250);
	q.old_state = 3;
	q.status = 10;
	q.psn = 0x250;
	h.seq++;
	ok(mpd_rec_write_qp(w, if_up, dtest_next_ts(0), &h, &q) == 0,
	   "QP record on a NAK written");
	fr = oracle_add_written(o, "QP 0x41 RTS -> ERR, REM_ACCESS_ERR");
	oracle_expect_uint(o, fr, "madpmd.qp.frame", 0, (uint64_t)ack);

	/* a modify: no PSN, no link */
	q.old_state = 2;
	q.new_state = 3;
	q.cause = MPD_REC_QP_MODIFY;
	q.status = 0;
	q.psn = MPD_REC_NO_PSN;
	h.seq++;
	ok(mpd_rec_write_qp(w, if_up, dtest_next_ts(0), &h, &q) == 0,
	   "QP record RTR -> RTS written");
	fr = oracle_add_written(o, "QP 0x41 RTR -> RTS");
	oracle_expect_uint(o, fr, "madpmd.qp.cause", 0, MPD_REC_QP_MODIFY);
	oracle_expect_absent(o, fr, "madpmd.qp.psn");
	oracle_expect_absent(o, fr, "madpmd.qp.frame");
	oracle_expect_absent(o, fr, "_ws.expert.message");
	oracle_expect_str(o, fr, "_ws.col.Info", 0,
			  "QP 0x000041 RTR -> RTS (modify)");

	/* a 52-byte WC, as captures before the PSN have it */
	memset(&wc, 0, sizeof(wc));
	wc.qp_num = QP_A;
	wc.opcode = 128;
	wc.psn = 0x123;
	h.seq++;
	ok(mpd_rec_encode_wc(&h, &wc, rec, sizeof(rec)) == (int)sizeof(rec),
	   "WC encoded");
	mpd_put_be32(rec + 20, MPD_REC_WC_LEN_V1);
	ok(mpd_rec_write(w, if_up, dtest_next_ts(0), MPD_PCAPNG_DIR_UNKNOWN,
			 rec, MPD_REC_HDR_LEN + MPD_REC_WC_LEN_V1) == 0,
	   "52-byte WC written");
	fr = oracle_add_written(o, "WC of 52 bytes");
	oracle_expect_uint(o, fr, "madpmd.rec.bodylen", 0, MPD_REC_WC_LEN_V1);
	oracle_expect_uint(o, fr, "madpmd.wc.qpnum", 0, QP_A);
	oracle_expect_uint(o, fr, "madpmd.wc.dlidpathbits", 0, 0);
	oracle_expect_absent(o, fr, "madpmd.wc.psn");
	oracle_expect_absent(o, fr, "madpmd.wc.frame");
	oracle_expect_absent(o, fr, "madpmd.rec.bad");

	/* a send completed by the ACK of its PSN; then the peer's own
	 * request to QP 0x41 with that PSN, which is not it */
	ack = add_rc(o, "RoCEv2 RC ACK to QP 0x41 PSN 0x400",
		     MPD_LINK_ROCE_V2, MPD_OP_ACK, QP_A, 0x400);
	add_rc(o, "RoCEv2 RC SEND Only to QP 0x41 PSN 0x400",
	       MPD_LINK_ROCE_V2, MPD_OP_SEND_ONLY, QP_A, 0x400);
	add_wc(o, "WC SEND QP 0x41 PSN 0x400", QP_A, 0, 0x400, ack);

	/* sends completed by a coalesced ACK: the first one covering their
	 * PSN, not the one before it nor the ones after */
	add_rc(o, "RoCEv2 RC ACK to QP 0x41 PSN 0x4ff", MPD_LINK_ROCE_V2,
	       MPD_OP_ACK, QP_A, 0x4ff);
	ack = add_rc(o, "RoCEv2 RC ACK to QP 0x41 PSN 0x503",
		     MPD_LINK_ROCE_V2, MPD_OP_ACK, QP_A, 0x503);
	add_rc(o, "RoCEv2 RC ACK to QP 0x41 PSN 0x504", MPD_LINK_ROCE_V2,
	       MPD_OP_ACK, QP_A, 0x504);
	add_wc(o, "WC SEND QP 0x41 PSN 0x500", QP_A, 0, 0x500, ack);
	add_wc(o, "WC RDMA_WRITE QP 0x41 PSN 0x502", QP_A, 1, 0x502, ack);
	/* a READ's last response across the PSN wrap, which also completes
	 * the SEND before it */
	add_rc(o, "RoCEv2 RC ACK to QP 0x43 PSN 0xfffff0", MPD_LINK_ROCE_V2,
	       MPD_OP_ACK, 0x43, 0xfffff0);
	ack = add_rc(o, "RoCEv2 RC READ Response Last to QP 0x43 PSN 0x000001",
		     MPD_LINK_ROCE_V2, MPD_OP_READ_RESP_LAST, 0x43, 0x000001);
	add_wc(o, "WC SEND QP 0x43 PSN 0xfffffe", 0x43, 0, 0xfffffe, ack);
	add_wc(o, "WC RDMA_READ QP 0x43 PSN 0x000001", 0x43, 2, 0x000001, ack);

	/* native IB, exported for the stock dissector */
	send = add_rc(o, "IB RC SEND Last to QP 0x77 PSN 0x10", MPD_LINK_IB,
		      MPD_OP_SEND_LAST, 0x77, 0x10);
	add_wc(o, "WC RECV QP 0x77 PSN 0x10", 0x77, 128, 0x10, send);

	/* nothing found, and no PSN */
	add_wc(o, "WC RECV QP 0x41 PSN 0x999 (no such frame)", QP_A, 128,
	       0x999, 0);
	add_wc(o, "WC SEND QP 0x41 without PSN", QP_A, 0, MPD_REC_NO_PSN, 0);

	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
