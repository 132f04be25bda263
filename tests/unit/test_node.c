/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node layer alone (pmd/node): the port's receive checks, the SMA and
 * the PMA as functions of the port's state, the frame's bytes and a time
 * given by the test. No EAL, no lcore, no clock.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "node/node.h"
#include "tap.h"

#define NODE_GUID	0x6d61640000123400ull
#define SEC		1000000000ull

static void
port_init(struct hca_port *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->node_name, sizeof(p->node_name), "hca1");
	snprintf(p->node_desc, sizeof(p->node_desc), "hca1 desc");
	p->link = MPD_LINK_IB;
	p->node_guid = NODE_GUID;
	p->port_guid = NODE_GUID + 1;
	p->sys_guid = NODE_GUID;
	p->port_num = 1;
	p->num_ports = 1;
	p->lid = 5;
	p->port_state = HCA_PORT_ACTIVE;
	p->phys_state = HCA_PHYS_LINKUP;
	p->link_width_active = 2;
	p->link_speed_active = 4;
	p->mtu_cap = 5;
	p->vl_cap = 4;		/* VL0-7 */
	p->op_vls = 1;		/* VL0 */
	p->pkeys[0] = 0xffff;
	p->pkeys[1] = 0x8001;
	hca_sma_init(p);
}

/* A frame of mad to the port: QP qp, on VL15 when vl15. */
static int
frame(uint8_t *buf, size_t cap, const uint8_t *mad, uint32_t qp, bool vl15,
      uint16_t pkey, uint32_t qkey)
{
	struct mpd_pkt pk;

	memset(&pk, 0, sizeof(pk));
	pk.link = MPD_LINK_IB;
	pk.lrh.vl = vl15 ? MPD_VL15 : 0;
	pk.lrh.dlid = 5;
	pk.lrh.slid = 9;
	pk.bth.opcode = MPD_OP_UD_SEND_ONLY;
	pk.bth.pkey = pkey;
	pk.bth.dest_qp = qp;
	pk.deth.qkey = qkey;
	pk.deth.src_qp = qp;
	return mpd_pkt_encode(&pk, mad, MPD_MAD_LEN, buf, cap);
}

static void
smp(uint8_t *mad, uint8_t method, uint16_t attr, uint32_t mod, uint64_t mkey,
    const void *data)
{
	struct mpd_mad m;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_LID;
	m.hdr.class_version = MPD_SMP_CLASS_VERSION;
	m.hdr.method = method;
	m.hdr.tid = 0x1234;
	m.hdr.attr_id = attr;
	m.hdr.attr_mod = mod;
	m.mkey = mkey;
	mpd_mad_encode(&m, data, data ? MPD_SMP_DATA_LEN : 0, mad, MPD_MAD_LEN);
}

/* The port's receive path and its agents: the reply's status, or -1 when
 * the frame was dropped, -2 when there was no reply, -3 not the node's. */
static int
input(struct hca_port *p, const uint8_t *mad, uint32_t qp, bool vl15,
      uint16_t pkey, uint32_t qkey, uint64_t now, uint8_t *out)
{
	uint8_t buf[512], *m;
	struct mpd_pkt pk;
	enum hca_reply r;
	int n = frame(buf, sizeof(buf), mad, qp, vl15, pkey, qkey);

	if (n < 0 || hca_port_rx(p, buf, (uint16_t)n, false, &pk, &m) != HCA_RX_MAD)
		return -1;
	r = hca_node_agent(p, qp, m, &pk, now);
	if (r == HCA_NOT_MINE)
		return -3;
	if (r != HCA_REPLY)
		return -2;
	memcpy(out, m, MPD_MAD_LEN);
	return mpd_get_be16(m + MPD_MAD_OFF_STATUS);
}

static void
test_checks(void)
{
	struct hca_port p;
	uint8_t mad[MPD_MAD_LEN], out[MPD_MAD_LEN];
	struct mpd_node_info ni;

	port_init(&p);
	smp(mad, MPD_METHOD_GET, MPD_ATTR_NODE_INFO, 0, 0, NULL);
	is_int(input(&p, mad, 0, true, 0xffff, 0, 0, out), 0,
	       "Get(NodeInfo) on VL15/QP0: answered");
	mpd_layout_decode(&mpd_node_info_layout, out + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &ni);
	ok(ni.node_guid == NODE_GUID && ni.port_guid == NODE_GUID + 1,
	   "with the node's GUIDs");
	is_int(out[MPD_MAD_OFF_METHOD], MPD_METHOD_GET_RESP, "a GetResp");
	is_int(input(&p, mad, 0, false, 0xffff, 0, 0, out), -1,
	       "QP0 off VL15: dropped (IBA 7.6.5)");
	is_int(p.cnt.rcv_errors, 1, "counted in PortRcvErrors");

	/* PerfMgt on QP1: P_Key and Q_Key checked (10.9.3, 10.2.4) */
	memset(mad, 0, sizeof(mad));
	mad[MPD_MAD_OFF_BASE_VER] = MPD_BASE_VERSION;
	mad[MPD_MAD_OFF_CLASS] = MPD_CLASS_PERF;
	mad[MPD_MAD_OFF_CLASS_VER] = MPD_PERF_CLASS_VERSION;
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET;
	mpd_put_be16(mad + MPD_MAD_OFF_ATTR_ID, MPD_ATTR_PERF_PORT_COUNTERS);
	mad[MPD_PERF_DATA_OFF + 1] = 1;		/* PortSelect */
	is_int(input(&p, mad, 1, false, 0xffff, MPD_QP1_QKEY, 0, out), 0,
	       "Get(PortCounters) on QP1: answered");
	p.pkeys[2] = 0x0002;	/* a limited member of partition 2 */
	is_int(input(&p, mad, 1, false, 0x0002, MPD_QP1_QKEY, 0, out), -1,
	       "limited P_Key 0x0002 against the limited 0x0002: dropped");
	is_int(p.cnt.pkey_violations, 1, "a P_Key violation");
	is_int(input(&p, mad, 1, false, 0x8002, MPD_QP1_QKEY, 0, out), 0,
	       "the full 0x8002 against the limited 0x0002: answered");
	is_int(input(&p, mad, 1, false, 0x0001, MPD_QP1_QKEY, 0, out), 0,
	       "the limited 0x0001 against the full 0x8001: answered");
	is_int(input(&p, mad, 1, false, 0x0003, MPD_QP1_QKEY, 0, out), -1,
	       "a partition the port is not in: dropped");
	is_int(p.cnt.pkey_violations, 2, "another violation");
	is_int(input(&p, mad, 1, false, 0xffff, 0x1234, 0, out), -1,
	       "a wrong Q_Key: dropped");
	is_int(p.cnt.qkey_violations, 1, "a Q_Key violation");
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET_RESP;
	is_int(input(&p, mad, 1, false, 0xffff, MPD_QP1_QKEY, 0, out), -3,
	       "a response is not the PMA's: up to the MAD layer");
	mad[MPD_MAD_OFF_CLASS] = MPD_CLASS_SUBN_ADM;
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET;
	is_int(input(&p, mad, 1, false, 0xffff, MPD_QP1_QKEY, 0, out), -3,
	       "an SA Get is not the node's either");
}

/* IBA 14.2.4.3: a lapsed M_Key lease drops the protection; the time is
 * the caller's. */
static void
test_mkey_lease(void)
{
	struct hca_port p;
	uint8_t mad[MPD_MAD_LEN], out[MPD_MAD_LEN];

	port_init(&p);
	p.mkey = 0x1111;
	p.mkey_protect = 2;
	p.mkey_lease = 2;		/* seconds */
	p.sm_lid = 0;
	smp(mad, MPD_METHOD_GET, MPD_ATTR_PORT_INFO, 1, 0x2222, NULL);
	is_int(input(&p, mad, 0, true, 0xffff, 0, 10 * SEC, out), -2,
	       "a wrong M_Key at protect level 2: no answer");
	is_int(p.cnt.mkey_violations, 1, "an M_Key violation");
	is_int(input(&p, mad, 0, true, 0xffff, 0, 11 * SEC, out), -2,
	       "one second later: still protected");
	is_int(input(&p, mad, 0, true, 0xffff, 0, 12 * SEC + 1, out), 0,
	       "past the 2 s lease: the protection lapsed, answered");
	is_int(p.mkey_protect, 0, "and the protect bits are 0");
}

/* IBA 14.2.5.8: SL2VL entries name data VLs below OperationalVLs' count
 * (1: VL0, 2: VL0-1, 3: VL0-3 ...), or VL15. */
static void
test_sl2vl(void)
{
	struct mpd_sl2vl_table t;
	struct hca_port p;
	uint8_t mad[MPD_MAD_LEN], out[MPD_MAD_LEN], data[MPD_SMP_DATA_LEN];

	port_init(&p);
	memset(&t, 0, sizeof(t));
	t.vl[3] = 3;
	mpd_layout_encode(&mpd_sl2vl_table_layout, &t, data, sizeof(data));
	smp(mad, MPD_METHOD_SET, MPD_ATTR_SL2VL_TABLE, 0, 0, data);
	is_int(input(&p, mad, 0, true, 0xffff, 0, 0, out),
	       MPD_STATUS_INVALID_FIELD, "SL3 to VL3 with only VL0: invalid");
	p.op_vls = 3;
	smp(mad, MPD_METHOD_SET, MPD_ATTR_SL2VL_TABLE, 0, 0, data);
	is_int(input(&p, mad, 0, true, 0xffff, 0, 0, out), 0,
	       "SL3 to VL3 with VL0-3 (OperationalVLs 3): taken");
	is_int(p.sl2vl[3], 3, "and kept");
	t.vl[3] = 4;
	mpd_layout_encode(&mpd_sl2vl_table_layout, &t, data, sizeof(data));
	smp(mad, MPD_METHOD_SET, MPD_ATTR_SL2VL_TABLE, 0, 0, data);
	is_int(input(&p, mad, 0, true, 0xffff, 0, 0, out),
	       MPD_STATUS_INVALID_FIELD, "VL4 with VL0-3: invalid");
	t.vl[3] = MPD_VL15;
	mpd_layout_encode(&mpd_sl2vl_table_layout, &t, data, sizeof(data));
	smp(mad, MPD_METHOD_SET, MPD_ATTR_SL2VL_TABLE, 0, 0, data);
	is_int(input(&p, mad, 0, true, 0xffff, 0, 0, out), 0,
	       "VL15 (drop) is always allowed");
}

/*
 * A response goes back the way the request came (IBA 13.5.2): addresses
 * swapped at every layer, GRH GIDs (IB) and IPv6 addresses (RoCEv2)
 * included, our QP as the source and the requester's as the destination.
 */
static void
test_reverse(void)
{
	static const uint8_t us[6] = { 0x02, 0, 0, 0, 0, 0x05 };
	static const uint8_t them[6] = { 0x02, 0, 0, 0, 0, 0x09 };
	uint8_t gid_a[16], gid_b[16];
	struct hca_port p;
	struct mpd_pkt pk;

	rnd_bytes(gid_a, sizeof(gid_a));
	rnd_bytes(gid_b, sizeof(gid_b));
	port_init(&p);
	memset(&pk, 0, sizeof(pk));
	pk.link = MPD_LINK_IB;
	pk.lrh.dlid = 5;
	pk.lrh.slid = 9;
	pk.has_grh = true;
	pk.grh.hop_limit = 3;
	memcpy(pk.grh.sgid, gid_a, 16);
	memcpy(pk.grh.dgid, gid_b, 16);
	pk.bth.dest_qp = 1;
	pk.deth.src_qp = 0x1234;
	hca_port_reverse(&p, &pk, 1);
	ok(pk.lrh.dlid == 9 && pk.lrh.slid == 5 && pk.lrh.vl == 0,
	   "IB response: to the requester's LID from ours, on VL0 (%u -> %u, "
	   "VL%u)", pk.lrh.slid, pk.lrh.dlid, pk.lrh.vl);
	ok(pk.has_grh && !memcmp(pk.grh.dgid, gid_a, 16) &&
	   !memcmp(pk.grh.sgid, gid_b, 16),
	   "IB response to a request with a GRH: the GIDs swapped");
	ok(pk.bth.dest_qp == 0x1234 && pk.deth.src_qp == 1,
	   "IB response: to the requester's QP from QP1");

	port_init(&p);
	p.link = MPD_LINK_ROCE_V2;
	memcpy(p.mac, us, 6);
	memset(&pk, 0, sizeof(pk));
	pk.link = MPD_LINK_ROCE_V2;
	memcpy(pk.eth.dst, us, 6);
	memcpy(pk.eth.src, them, 6);
	pk.ip_ver = 6;
	pk.ip6.hop_limit = 1;
	memcpy(pk.ip6.src, gid_a, 16);
	memcpy(pk.ip6.dst, gid_b, 16);
	pk.udp.sport = 0xc000;
	pk.udp.dport = MPD_ROCE_UDP_PORT;
	pk.bth.dest_qp = 1;
	pk.deth.src_qp = 1;
	hca_port_reverse(&p, &pk, 1);
	ok(!memcmp(pk.eth.dst, them, 6) && !memcmp(pk.eth.src, us, 6),
	   "RoCEv2 response: to the requester's MAC from ours");
	ok(!memcmp(pk.ip6.dst, gid_a, 16) && !memcmp(pk.ip6.src, gid_b, 16),
	   "RoCEv2/IPv6 response: the addresses swapped");
	is_int(pk.ip6.hop_limit, 64, "RoCEv2/IPv6 response: a fresh hop limit");
	is_int(pk.udp.dport, MPD_ROCE_UDP_PORT,
	       "RoCEv2 response: to UDP port 4791");
}

/* A DR Get(NodeInfo) of hop count cnt, as its sender built it */
static void
dr_smp(uint8_t *mad, uint8_t cnt, uint8_t ptr, bool d)
{
	memset(mad, 0, MPD_MAD_LEN);
	mad[MPD_MAD_OFF_BASE_VER] = MPD_BASE_VERSION;
	mad[MPD_MAD_OFF_CLASS] = MPD_CLASS_SUBN_DR;
	mad[MPD_MAD_OFF_CLASS_VER] = MPD_SMP_CLASS_VERSION;
	mad[MPD_MAD_OFF_METHOD] = d ? MPD_METHOD_GET_RESP : MPD_METHOD_GET;
	mpd_put_be16(mad + MPD_MAD_OFF_STATUS, d ? MPD_SMP_STATUS_D : 0);
	mad[MPD_SMP_OFF_HOP_PTR] = ptr;
	mad[MPD_SMP_OFF_HOP_CNT] = cnt;
	mpd_put_be16(mad + MPD_MAD_OFF_ATTR_ID, MPD_ATTR_NODE_INFO);
	mpd_put_be16(mad + MPD_SMP_OFF_DR_SLID, MPD_LID_PERMISSIVE);
	mpd_put_be16(mad + MPD_SMP_OFF_DR_DLID, MPD_LID_PERMISSIVE);
}

/*
 * The end port's SMI (IBA 14.2.2.2, the kernel's smi.c): a request at the
 * end of its path leaves the SMI at count + 1 (C14-9:3), its response
 * leaves at count (C14-13:1), and the requester takes 1 to 0 (C14-13:3).
 */
static void
test_dr_end_port(void)
{
	struct hca_port p;
	struct mpd_pkt pk;
	uint8_t mad[MPD_MAD_LEN];

	port_init(&p);
	memset(&pk, 0, sizeof(pk));
	dr_smp(mad, 3, 3, false);
	ok(hca_port_dr_recv(&p, mad) && mad[MPD_SMP_OFF_HOP_PTR] == 4 &&
	   mad[MPD_SMP_OFF_RET_PATH + 3] == 1,
	   "C14-9:3: a request at the end: pointer 4, ReturnPath[3] = port 1");
	is_int(hca_sma_handle(&p, mad, &pk, 0), HCA_REPLY,
	       "the SMA answers it");
	is_int(mad[MPD_SMP_OFF_HOP_PTR], 4, "the SMA keeps the pointer");
	hca_port_dr_reply(mad);
	is_int(mad[MPD_SMP_OFF_HOP_PTR], 3,
	       "C14-13:1: the response leaves with the pointer at the count");

	dr_smp(mad, 3, 3, false);
	is_int(hca_sma_handle(&p, mad, &pk, 0), HCA_REPLY,
	       "a caller that skipped the SMI: the SMA takes the step itself");
	is_int(mad[MPD_SMP_OFF_HOP_PTR], 4, "pointer 4 there too");

	dr_smp(mad, 3, 1, true);
	ok(hca_port_dr_recv(&p, mad) && mad[MPD_SMP_OFF_HOP_PTR] == 0,
	   "C14-13:3: a response back at the requester: 1 to 0 for the SM");
	dr_smp(mad, 3, 1, true);
	mpd_put_be16(mad + MPD_SMP_OFF_DR_SLID, 7);
	ok(!hca_port_dr_recv(&p, mad),
	   "C14-13:3 with a DrSLID: a switch's to route, dropped at a CA");
	dr_smp(mad, 3, 0, true);
	ok(hca_port_dr_recv(&p, mad), "C14-13:4: pointer 0, for the SM");
	dr_smp(mad, 3, 2, true);
	ok(!hca_port_dr_recv(&p, mad), "C14-13:2 at a CA: dropped");

	dr_smp(mad, 0, 0, false);
	ok(hca_port_dr_recv(&p, mad) && mad[MPD_SMP_OFF_HOP_PTR] == 1,
	   "hop count 0 (the port itself): pointer 1");
	hca_port_dr_reply(mad);
	is_int(mad[MPD_SMP_OFF_HOP_PTR], 0, "and its response 0 (C14-13:3)");

	dr_smp(mad, 3, 0, false);
	ok(!hca_port_dr_recv(&p, mad),
	   "C14-9:1: a sender should have moved the pointer: dropped");
	dr_smp(mad, 3, 2, false);
	ok(!hca_port_dr_recv(&p, mad), "C14-9:2 at a CA: dropped");
	dr_smp(mad, 3, 3, false);
	mpd_put_be16(mad + MPD_SMP_OFF_DR_DLID, 7);
	ok(!hca_port_dr_recv(&p, mad),
	   "C14-9:3 with a DrDLID: the LID-routed leg is a switch's");
	dr_smp(mad, 3, 4, false);
	ok(hca_port_dr_recv(&p, mad) && mad[MPD_SMP_OFF_HOP_PTR] == 4,
	   "C14-9:4: at count + 1 after a LID-routed leg: taken as it is");
	dr_smp(mad, 3, 5, false);
	ok(!hca_port_dr_recv(&p, mad), "C14-9:5: past count + 1: dropped");
}

/* Trap 144 (Local Changes) when the CapabilityMask moves: to the master SM
 * on VL15, the new mask in OpenSM's ntc_144 place; once per change; not
 * sent by an SM's own port or without an SM, but noted. */
static void
test_cap_trap(void)
{
	struct hca_port p;
	struct mpd_pkt pk;
	uint8_t mad[MPD_MAD_LEN];
	const uint8_t *nt = mad + MPD_SMP_DATA_OFF;	/* the Notice */

	port_init(&p);
	p.sm_lid = 1;
	ok(!hca_sma_cap_trap(&p, &pk, mad), "no change, no trap 144");
	p.cap_mask |= MPD_PORT_CAP_IS_SM;
	ok(hca_sma_cap_trap(&p, &pk, mad), "IsSM set: trap 144");
	ok(mad[MPD_MAD_OFF_CLASS] == MPD_CLASS_SUBN_LID &&
	   mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_TRAP &&
	   mpd_get_be16(mad + MPD_MAD_OFF_ATTR_ID) == MPD_ATTR_NOTICE,
	   "a Trap(Notice) SMP, LID-routed class");
	ok((nt[0] & 0x80) && (nt[0] & 0x7f) == 4 && nt[3] == MPD_NODE_TYPE_CA &&
	   mpd_get_be16(nt + 4) == 144 && mpd_get_be16(nt + 6) == 5,
	   "generic, informational, from a CA, number 144, issuer LID 5");
	ok(mpd_get_be16(nt + 12) == 5 && nt[15] == 0 &&
	   mpd_get_be32(nt + 16) == hca_sma_cap_mask(&p) &&
	   (mpd_get_be32(nt + 16) & MPD_PORT_CAP_IS_SM) &&
	   mpd_get_be16(nt + 20) == 0,
	   "DataDetails: LID 5, LocalChanges 0, the new CapabilityMask with IsSM at offset 16, ChangeFlags 0");
	ok(pk.lrh.vl == MPD_VL15 && pk.lrh.dlid == 1 && pk.lrh.slid == 5 &&
	   pk.bth.dest_qp == 0 && pk.deth.src_qp == 0,
	   "VL15, from LID 5 to the SM at LID 1, QP0 to QP0");
	ok(!hca_sma_cap_trap(&p, &pk, mad), "told once: no second trap");
	p.cap_mask &= ~MPD_PORT_CAP_IS_SM;
	p.sm_lid = 5;
	ok(!hca_sma_cap_trap(&p, &pk, mad) && p.cap_told == p.cap_mask,
	   "the SM's own port: noted, not sent");
	p.cap_mask |= MPD_PORT_CAP_IS_SM;
	p.sm_lid = 1;
	p.port_state = HCA_PORT_ARMED;
	ok(!hca_sma_cap_trap(&p, &pk, mad) && p.cap_told == p.cap_mask,
	   "a port not Active: noted, not sent");
}

/* What an Ethernet MTU carries: RoCE as iboe_get_mtu() counts (96 bytes
 * of headers), native IB frames with every header (94) */
static void
test_link_mtu(void)
{
	struct hca_port p;

	is_int(hca_roce_mtu(1500), 3, "RoCE on 1500: IB MTU 1024");
	is_int(hca_roce_mtu(9000), 5, "RoCE on 9000: 4096");
	is_int(hca_roce_mtu(4096 + 96), 5, "RoCE on 4192: 4096 just fits");
	is_int(hca_roce_mtu(4096 + 95), 4, "RoCE on 4191: 2048");
	is_int(hca_roce_mtu(256 + 96), 1, "RoCE on 352: 256");
	is_int(hca_roce_mtu(256 + 95), 0, "RoCE on 351: nothing");
	is_int(hca_ib_frame_mtu(1500), 3, "IB frames of 1500 bytes: 1024");
	is_int(hca_ib_frame_mtu(2048 + 94), 4, "2142 bytes: 2048");
	is_int(hca_ib_frame_mtu(2048 + 93), 3, "2141 bytes: 1024");
	is_int(hca_ib_frame_mtu(200), 0, "200 bytes: nothing");
	port_init(&p);
	p.neighbor_mtu = 5;
	hca_port_mtu_limit(&p, 3);
	ok(p.mtu_cap == 3 && p.neighbor_mtu == 3, "a port limited to 1024: MTUCap and NeighborMTU");
	hca_port_mtu_limit(&p, 5);
	ok(p.mtu_cap == 3, "a limit is never raised");
}

int
main(void)
{
	tap_seed();
	test_checks();
	test_mkey_lease();
	test_sl2vl();
	test_reverse();
	test_dr_end_port();
	test_cap_trap();
	test_link_mtu();
	return tap_done();
}
