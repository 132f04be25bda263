/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC, UC and UD data packets checked by stock tshark: one frame of each
 * kind of extension header the codec writes (RETH, AETH, AtomicETH,
 * AtomicAckETH, ImmDt, IETH, DETH) on RoCEv2 over IPv4 and IPv6 and on
 * native IB. tshark must name the opcode, show every header field as
 * encoded, the ICRC the codec computed, and find nothing malformed.
 */
#include <stdio.h>
#include <string.h>

#include "oracle.h"
#include "tap.h"

/* What the stock dissector's Info column says (packet-infiniband.c): the
 * opcode's name, " QP=0x%06x ", and for a NAK the error in brackets. */
static const struct {
	uint8_t op;
	const char *name;
	uint8_t aeth;		/* syndrome for AETH opcodes */
	const char *nak;	/* the Info column's NAK text */
} pkts[] = {
	{ MPD_OP_SEND_ONLY, "RC Send Only", 0, "" },
	{ MPD_OP_SEND_FIRST, "RC Send First", 0, "" },
	{ MPD_OP_WRITE_FIRST, "RC RDMA Write First", 0, "" },
	{ MPD_OP_WRITE_ONLY, "RC RDMA Write Only", 0, "" },
	{ MPD_OP_WRITE_ONLY_IMM, "RC RDMA Write Only Immediate", 0, "" },
	{ MPD_OP_READ_REQ, "RC RDMA Read Request", 0, "" },
	{ MPD_OP_READ_RESP_FIRST, "RC RDMA Read Response First",
	  MPD_AETH_ACK | 0x0e, "" },
	{ MPD_OP_READ_RESP_MIDDLE, "RC RDMA Read Response Middle", 0, "" },
	{ MPD_OP_READ_RESP_LAST, "RC RDMA Read Response Last",
	  MPD_AETH_ACK | MPD_AETH_CREDITS_INVALID, "" },
	{ MPD_OP_READ_RESP_ONLY, "RC RDMA Read Response Only",
	  MPD_AETH_ACK | 0x03, "" },
	{ MPD_OP_ACK, "RC Acknowledge", MPD_AETH_ACK | 0x08, "" },
	{ MPD_OP_ACK, "RC Acknowledge", MPD_AETH_NAK | MPD_NAK_PSN_SEQ_ERR,
	  "[PSN Sequence Error] " },
	{ MPD_OP_ACK, "RC Acknowledge", MPD_AETH_NAK | MPD_NAK_REM_ACCESS,
	  "[Remote Access Error] " },
	{ MPD_OP_ACK, "RC Acknowledge", MPD_AETH_RNR_NAK | 0x0c, "" },
	{ MPD_OP_ATOMIC_ACK, "RC Atomic Acknowledge", MPD_AETH_ACK | 0x1f,
	  "" },
	{ MPD_OP_CMP_SWAP, "RC Compare Swap", 0, "" },
	{ MPD_OP_FETCH_ADD, "RC Fetch Add", 0, "" },
	{ MPD_OP_SEND_ONLY_INV, "RC Send Only Invalidate", 0, "" },
	{ MPD_TP_UC | MPD_OP_SEND_ONLY_IMM, "UC Send Only Immediate", 0, "" },
	{ MPD_TP_UC | MPD_OP_WRITE_FIRST, "UC RDMA Write First", 0, "" },
	{ MPD_OP_UD_SEND_ONLY_IMM, "UD Send Only Immediate", 0, "" },
};

#define NPKTS	(sizeof(pkts) / sizeof(pkts[0]))

/* Upper layers stock tshark tries on RC/UC payloads by heuristics: random
 * data can make one of them (RPC-over-RDMA on SEND with Invalidate) claim
 * the payload and throw. Off, the payload shows as data. */
static const char *const payload_protos[] = {
	"smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet", "iser",
	"infiniband.eoib", "infiniband_sdp", "fcoib",
};

static void
add(struct oracle *o, enum mpd_link link, uint8_t ip_ver, size_t i)
{
	uint32_t h = mpd_op_hdrs(pkts[i].op);
	uint8_t payload[300];
	size_t len = h & MPD_HDR_PAYLOAD ? 1 + (size_t)rnd_bits(8) : 0;
	struct mpd_pkt p;
	char label[96], info[128];
	int fr;

	oracle_pkt_init(&p, link, 2 + (uint32_t)rnd_bits(23),
			2 + (uint32_t)rnd_bits(23));
	p.ip_ver = ip_ver;
	p.bth.opcode = pkts[i].op;
	p.reth.va = rnd64();
	p.reth.rkey = (uint32_t)rnd64();
	p.reth.dma_len = (uint32_t)rnd64();
	p.aeth.syndrome = pkts[i].aeth;
	p.aeth.msn = (uint32_t)rnd_bits(24);
	p.atomic.va = rnd64() & ~(uint64_t)7;	/* 8-byte aligned */
	p.atomic.rkey = (uint32_t)rnd64();
	p.atomic.swap_add = rnd64();
	p.atomic.compare = rnd64();
	p.atomic_orig = rnd64();
	p.imm = (uint32_t)rnd64();
	p.ieth = (uint32_t)rnd64();
	rnd_bytes(payload, len);
	/* keep stock heuristics off our random data (EoIB claims a first
	 * byte of 0b11xxxxxx) */
	if (len)
		payload[0] &= 0x3f;
	snprintf(label, sizeof(label), "%s %s%s, %zu bytes",
		 link == MPD_LINK_IB ? "IB" : ip_ver == 4 ? "RoCEv2/IPv4" :
		 "RoCEv2/IPv6", pkts[i].name,
		 !(h & MPD_HDR_AETH) ? "" :
		 (pkts[i].aeth & MPD_AETH_TYPE_MASK) == MPD_AETH_NAK ? " (NAK)" :
		 (pkts[i].aeth & MPD_AETH_TYPE_MASK) == MPD_AETH_RNR_NAK ?
		 " (RNR NAK)" : "", len);
	fr = oracle_add_pkt(o, label, &p, payload, len);
	if (!fr)
		return;
	/* tshark 4.0 leaves out the space after "UC RDMA Write First" */
	snprintf(info, sizeof(info), "%s%sQP=0x%06x %s", pkts[i].name,
		 p.bth.opcode == (MPD_TP_UC | MPD_OP_WRITE_FIRST) ? "" : " ",
		 p.bth.dest_qp, pkts[i].nak);
	oracle_expect_str(o, fr, "_ws.col.Info", 0, info);
	if (!(h & MPD_HDR_PAYLOAD)) {
		oracle_expect_absent(o, fr, "data.data");
		return;
	}
	/* tshark shows the pad bytes as part of the data */
	memset(payload + len, 0, p.bth.pad_cnt);
	oracle_expect_bytes(o, fr, "data.data", 0, payload,
			    len + p.bth.pad_cnt);
}

int
main(void)
{
	struct oracle *o;
	size_t i;

	tap_seed();
	o = oracle_new("rc");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	for (i = 0; i < sizeof(payload_protos) / sizeof(payload_protos[0]);
	     i++) {
		oracle_add_tshark_arg(o, "--disable-protocol");
		oracle_add_tshark_arg(o, payload_protos[i]);
	}
	/* the infiniband dissector's own Ethernet-over-IB heuristic */
	oracle_add_tshark_arg(o, "--disable-heuristic");
	oracle_add_tshark_arg(o, "eth_over_ib");
	for (i = 0; i < NPKTS; i++)
		add(o, MPD_LINK_ROCE_V2, 4, i);
	for (i = 0; i < NPKTS; i++)
		add(o, MPD_LINK_ROCE_V2, 6, i);
	for (i = 0; i < NPKTS; i++)
		add(o, MPD_LINK_IB, 0, i);
	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
