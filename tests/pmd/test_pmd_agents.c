/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_hca's own agents through its ethdev face: SMPs (LID-routed and
 * directed route) to the SMA, PerfMgt to the PMA, M_Key protection, P_Key
 * and Q_Key enforcement, and garbage that must be dropped and counted while
 * the port keeps answering.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "hca_test.h"
#include "madpmd/attr.h"
#include "rte_pmd_hca.h"
#include "tap.h"

#define NODE_GUID	0x0002c90300a0b0c0ull
#define IB_PORT		0
#define ROCE_PORT	1
#define TWO_PORTS	2	/* port 1 of a two-port node */

static uint64_t tid = 0x1000;

static void
smp_init(struct mpd_mad *m, bool dr, uint8_t method, uint16_t attr,
	 uint32_t mod, uint64_t mkey)
{
	memset(m, 0, sizeof(*m));
	m->hdr.base_version = 1;
	m->hdr.mgmt_class = dr ? MPD_CLASS_SUBN_DR : MPD_CLASS_SUBN_LID;
	m->hdr.class_version = 1;
	m->hdr.method = method;
	m->hdr.tid = ++tid;
	m->hdr.attr_id = attr;
	m->hdr.attr_mod = mod;
	m->mkey = mkey;
	if (dr) {
		/* one hop, as the SM's SMI hands it to the wire (C14-9:1) */
		m->hdr.class_specific = 1 << 8 | 1;
		m->dr_slid = MPD_LID_PERMISSIVE;
		m->dr_dlid = MPD_LID_PERMISSIVE;
		m->initial_path[1] = 1;
	}
}

/* Send an SMP (data: 64 bytes or NULL) and decode the answer. */
/* where LID-routed SMPs go: any LID while the port has none (it cannot
 * tell), then the one the SM gave it */
static uint16_t port_lid = 1;

static int
smp_xchg(struct mpd_mad *m, const void *data, uint8_t *rmad,
	 struct mpd_mad *rm)
{
	uint8_t mad[MPD_MAD_LEN], frame[512], resp[512];
	struct mpd_pkt p;
	bool dr = mpd_mad_is_dr(&m->hdr);
	int n;

	mpd_mad_encode(m, data, data ? MPD_SMP_DATA_LEN : 0, mad, sizeof(mad));
	n = hca_test_frame(MPD_LINK_IB, IB_PORT, 0,
			   dr ? MPD_LID_PERMISSIVE : port_lid,
			   dr ? MPD_LID_PERMISSIVE : 99, 0xffff, 0, mad, frame,
			   sizeof(frame));
	n = hca_test_xchg(IB_PORT, frame, (size_t)n, resp, sizeof(resp));
	if (n <= 0)
		return n;
	if (mpd_pkt_decode(MPD_LINK_IB, resp, (size_t)n, 0, &p) != MPD_OK ||
	    p.payload_len != MPD_MAD_LEN)
		return -1;
	memcpy(rmad, p.payload, MPD_MAD_LEN);
	return mpd_mad_decode(rmad, MPD_MAD_LEN, rm) == MPD_MAD_LEN ? n : -1;
}

static void
test_dr_node_info(void)
{
	struct mpd_mad m, r;
	struct mpd_node_info ni;
	uint8_t rmad[MPD_MAD_LEN];

	smp_init(&m, true, MPD_METHOD_GET, MPD_ATTR_NODE_INFO, 0, 0);
	if (!ok(smp_xchg(&m, NULL, rmad, &r) > 0, "DR Get(NodeInfo) answered"))
		return;
	is_int(r.hdr.method, MPD_METHOD_GET_RESP, "method is GetResp");
	is_int(r.hdr.tid, m.hdr.tid, "TID echoed");
	ok(r.hdr.status & MPD_SMP_STATUS_D, "D bit set on the response");
	is_int(r.hdr.status & 0x7fff, 0, "status 0");
	is_int(mpd_smp_hop_ptr(&r.hdr), 1,
	       "hop pointer back at the count: the requester takes it to 0 (C14-13:1)");
	is_int(r.return_path[1], 1, "ReturnPath[1] is the arrival port");
	mpd_layout_decode(&mpd_node_info_layout, rmad + r.data_off,
			  r.data_len, &ni);
	is_int(ni.node_type, MPD_NODE_TYPE_CA, "NodeType CA");
	is_int(ni.node_guid, NODE_GUID, "NodeGUID from devargs");
	is_int(ni.port_guid, NODE_GUID + 1, "PortGUID defaults to NodeGUID+port");
	is_int(ni.num_ports, 1, "NumPorts");
	is_int(ni.local_port_num, 1, "LocalPortNum");
}

static void
test_node_desc(void)
{
	struct mpd_mad m, r;
	uint8_t rmad[MPD_MAD_LEN];

	smp_init(&m, true, MPD_METHOD_GET, MPD_ATTR_NODE_DESC, 0, 0);
	if (ok(smp_xchg(&m, NULL, rmad, &r) > 0, "Get(NodeDescription)"))
		ok(strcmp((char *)rmad + r.data_off, "alpha HCA-1") == 0,
		   "NodeDescription from devargs: '%s'",
		   (char *)rmad + r.data_off);
}

static int
port_info(bool dr, uint8_t method, const struct mpd_port_info *set,
	  uint64_t mkey, struct mpd_port_info *out, uint16_t *status)
{
	struct mpd_mad m, r;
	uint8_t rmad[MPD_MAD_LEN], data[MPD_SMP_DATA_LEN];
	int n;

	smp_init(&m, dr, method, MPD_ATTR_PORT_INFO, 0, mkey);
	if (set)
		mpd_layout_encode(&mpd_port_info_layout, set, data,
				  sizeof(data));
	n = smp_xchg(&m, set ? data : NULL, rmad, &r);
	if (n <= 0)
		return n;
	*status = r.hdr.status & 0x7fff;
	mpd_layout_decode(&mpd_port_info_layout, rmad + r.data_off,
			  r.data_len, out);
	return n;
}

static void
test_port_state_machine(void)
{
	struct mpd_port_info pi, set;
	uint16_t st = 0xffff;
	uint64_t before;

	if (!ok(port_info(true, MPD_METHOD_GET, NULL, 0, &pi, &st) > 0,
		"DR Get(PortInfo)"))
		return;
	is_int(pi.port_state, MPD_PORT_STATE_INIT, "started port is Init");
	is_int(pi.port_phys_state, 5, "PortPhysicalState LinkUp");
	is_int(pi.lid, 0, "no LID before the SM assigns one");

	set = pi;
	set.port_phys_state = 0;	/* no change, as OpenSM sends it */
	set.port_state = MPD_PORT_STATE_ACTIVE;
	set.lid = 7;
	ok(port_info(true, MPD_METHOD_SET, &set, 0, &pi, &st) > 0 &&
	   st == MPD_STATUS_INVALID_FIELD && pi.port_state ==
	   MPD_PORT_STATE_INIT && pi.lid == 0,
	   "Init -> Active refused with invalid-field status, nothing applied");

	set.port_state = MPD_PORT_STATE_ARMED;
	set.master_sm_lid = 1;
	ok(port_info(true, MPD_METHOD_SET, &set, 0, &pi, &st) > 0 && st == 0 &&
	   pi.port_state == MPD_PORT_STATE_ARMED && pi.lid == 7 &&
	   pi.master_sm_lid == 1, "Set(PortInfo) assigns LID 7, SM LID 1, Armed");
	set.port_state = MPD_PORT_STATE_ACTIVE;
	ok(port_info(true, MPD_METHOD_SET, &set, 0, &pi, &st) > 0 && st == 0 &&
	   pi.port_state == MPD_PORT_STATE_ACTIVE, "Armed -> Active");
	before = hca_test_xstat(IB_PORT, "drop_bad_dlid");
	ok(port_info(false, MPD_METHOD_GET, NULL, 0, &pi, &st) <= 0,
	   "LID-routed Get(PortInfo) to LID 1, not the port's: no answer");
	is_int(hca_test_xstat(IB_PORT, "drop_bad_dlid"), before + 1,
	       "dropped for its DLID, counted (IBA 7.11.1)");
	port_lid = 7;
	ok(port_info(false, MPD_METHOD_GET, NULL, 0, &pi, &st) > 0 &&
	   pi.lid == 7, "LID-routed Get(PortInfo) to the new LID");
}

/* A Get with the wrong M_Key: no answer, but Trap 256 to the SM (LID 1,
 * set by test_port_state_machine) naming the requester and the key. */
static void
test_bad_mkey_trap(void)
{
	uint8_t mad[MPD_MAD_LEN], frame[512], resp[512];
	uint8_t notice[MPD_NOTICE_LEN];
	struct mpd_notice n;
	struct mpd_mad m, t;
	struct mpd_pkt p;
	int len;

	smp_init(&m, false, MPD_METHOD_GET, MPD_ATTR_PORT_INFO, 0, 0xbad);
	mpd_mad_encode(&m, NULL, 0, mad, sizeof(mad));
	len = hca_test_frame(MPD_LINK_IB, IB_PORT, 0, 7, 99, 0xffff, 0, mad,
			     frame, sizeof(frame));
	len = hca_test_xchg(IB_PORT, frame, (size_t)len, resp, sizeof(resp));
	if (!ok(len > 0 && mpd_pkt_decode(MPD_LINK_IB, resp, (size_t)len, 0,
					  &p) == MPD_OK &&
		mpd_mad_decode(p.payload, p.payload_len, &t) == MPD_MAD_LEN,
		"a wrong M_Key gets no answer but a trap (IBA 14.2.4.2)"))
		return;
	is_int(p.lrh.dlid, 1, "the trap goes to the master SM's LID");
	is_int(p.lrh.slid, 7, "from the port's LID");
	is_int(t.hdr.method, MPD_METHOD_TRAP, "method Trap");
	is_int(t.hdr.attr_id, MPD_ATTR_NOTICE, "attribute Notice");
	ok(t.hdr.tid != m.hdr.tid, "with a TID of the port's own");
	/* the SMP carries the Notice without its IssuerGID */
	memset(notice, 0, sizeof(notice));
	memcpy(notice, p.payload + t.data_off, MPD_NOTICE_SMP_LEN);
	mpd_layout_decode(&mpd_notice_layout, notice, sizeof(notice), &n);
	is_int(n.trap_number, 256, "trap 256, Bad M_Key");
	ok(n.is_generic && n.producer_type == MPD_NODE_TYPE_CA,
	   "generic, produced by a CA");
	is_int(mpd_get_be16(n.data_details + 2), 99, "names the requester LID");
	is_int(mpd_get_be64(n.data_details + 14), 0xbad,
	       "and the M_Key it tried");
}

static void
test_mkey(void)
{
	struct mpd_port_info pi, set;
	uint16_t st;
	uint64_t before;

	if (port_info(true, MPD_METHOD_GET, NULL, 0, &pi, &st) <= 0)
		return;
	set = pi;
	set.port_phys_state = 0;
	set.port_state = MPD_PORT_STATE_NOP;
	set.m_key = 0x5eed;
	set.m_key_protect_bits = 2;
	set.m_key_lease_period = 0;
	ok(port_info(true, MPD_METHOD_SET, &set, 0, &pi, &st) > 0 && st == 0 &&
	   pi.m_key == 0x5eed && pi.m_key_protect_bits == 2,
	   "M_Key 0x5eed set with protect bits 2");
	before = hca_test_xstat(IB_PORT, "ib_m_key_violations");
	test_bad_mkey_trap();
	is_int(hca_test_xstat(IB_PORT, "ib_m_key_violations"), before + 1,
	       "the bad M_Key is counted");
	ok(port_info(true, MPD_METHOD_GET, NULL, 0x5eed, &pi, &st) > 0 &&
	   pi.m_key_violations == before + 1,
	   "Get with the right M_Key answers and shows M_KeyViolations");
	set = pi;
	set.port_phys_state = 0;
	set.port_state = MPD_PORT_STATE_NOP;
	set.m_key = 0;
	set.m_key_protect_bits = 0;
	ok(port_info(true, MPD_METHOD_SET, &set, 0x5eed, &pi, &st) > 0 &&
	   pi.m_key == 0, "M_Key cleared with the right key");
}

/* GMP to the PMA on link/port; returns the response status or -1. */
static int
perf_xchg(enum mpd_link link, uint16_t port, uint8_t method, uint16_t attr,
	  uint16_t pkey, uint32_t qkey, void *attr_obj,
	  const struct mpd_layout *l)
{
	uint8_t mad[MPD_MAD_LEN], frame[512], resp[512], data[192];
	struct mpd_mad m, r;
	struct mpd_pkt p;
	int n;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_PERF;
	m.hdr.class_version = 1;
	m.hdr.method = method;
	m.hdr.tid = ++tid;
	m.hdr.attr_id = attr;
	memset(data, 0, sizeof(data));
	if (attr_obj)
		mpd_layout_encode(l, attr_obj, data, sizeof(data));
	mpd_mad_encode(&m, data, sizeof(data), mad, sizeof(mad));
	n = hca_test_frame(link, port, 1, 7, 99, pkey, qkey, mad, frame,
			   sizeof(frame));
	n = hca_test_xchg(port, frame, (size_t)n, resp, sizeof(resp));
	if (n <= 0)
		return -1;
	if (mpd_pkt_decode(link, resp, (size_t)n, 0, &p) != MPD_OK ||
	    mpd_mad_decode(p.payload, p.payload_len, &r) != MPD_MAD_LEN ||
	    r.hdr.tid != m.hdr.tid || r.hdr.method != MPD_METHOD_GET_RESP)
		return -2;
	if (attr_obj)
		mpd_layout_decode(l, p.payload + r.data_off, r.data_len,
				  attr_obj);
	return r.hdr.status;
}

static void
test_pma(enum mpd_link link, uint16_t port, const char *name)
{
	struct mpd_port_counters pc, pc2;
	struct mpd_port_counters_ext pe;
	struct mpd_class_port_info ci;

	memset(&ci, 0, sizeof(ci));
	ok(perf_xchg(link, port, MPD_METHOD_GET, MPD_ATTR_CLASS_PORT_INFO,
		     0xffff, 0x80010000, &ci, &mpd_class_port_info_layout) == 0 &&
	   ci.class_version == 1 && (ci.capability_mask & (1u << 9)),
	   "%s: PerfMgt ClassPortInfo says PortCountersExtended", name);
	memset(&pc, 0, sizeof(pc));
	pc.port_select = 1;
	ok(perf_xchg(link, port, MPD_METHOD_GET, MPD_ATTR_PERF_PORT_COUNTERS,
		     0xffff, 0x80010000, &pc, &mpd_port_counters_layout) == 0,
	   "%s: Get(PortCounters)", name);
	memset(&pc2, 0, sizeof(pc2));
	pc2.port_select = 1;
	perf_xchg(link, port, MPD_METHOD_GET, MPD_ATTR_PERF_PORT_COUNTERS,
		  0xffff, 0x80010000, &pc2, &mpd_port_counters_layout);
	is_int(pc2.port_rcv_pkts, pc.port_rcv_pkts + 1,
	       "%s: PortRcvPkts moves with traffic", name);
	is_int(pc2.port_xmit_pkts, pc.port_xmit_pkts + 1,
	       "%s: PortXmitPkts moves with traffic", name);
	memset(&pc, 0, sizeof(pc));
	pc.port_select = 1;
	pc.counter_select = 0xffff;
	ok(perf_xchg(link, port, MPD_METHOD_SET, MPD_ATTR_PERF_PORT_COUNTERS,
		     0xffff, 0x80010000, &pc, &mpd_port_counters_layout) == 0 &&
	   pc.port_rcv_pkts == 0 && pc.port_rcv_errors == 0,
	   "%s: Set(PortCounters) clears", name);
	memset(&pe, 0, sizeof(pe));
	pe.port_select = 1;
	ok(perf_xchg(link, port, MPD_METHOD_GET,
		     MPD_ATTR_PERF_PORT_COUNTERS_EXT, 0xffff, 0x80010000, &pe,
		     &mpd_port_counters_ext_layout) == 0 &&
	   pe.port_rcv_pkts >= 1 && pe.port_unicast_rcv_pkts >= 1,
	   "%s: Get(PortCountersExtended)", name);
	memset(&pc, 0, sizeof(pc));
	pc.port_select = 9;
	is_int(perf_xchg(link, port, MPD_METHOD_GET,
			 MPD_ATTR_PERF_PORT_COUNTERS, 0xffff, 0x80010000, &pc,
			 &mpd_port_counters_layout), MPD_STATUS_INVALID_FIELD,
	       "%s: PortSelect of another port is an invalid field", name);
	is_int(perf_xchg(link, port, MPD_METHOD_GET, 0x0099, 0xffff,
			 0x80010000, NULL, NULL), MPD_STATUS_METHOD_ATTR_UNSUP,
	       "%s: unknown PerfMgt attribute gets unsupported status", name);
}

/* A PerfMgt Get(attr) to dlid on the IB port, on VL vl; returns the frame
 * length. */
static int
perf_frame(uint16_t dlid, uint8_t vl, uint16_t attr, uint8_t *frame,
	   size_t cap)
{
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_mad m;
	struct mpd_pkt p;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_PERF;
	m.hdr.class_version = 1;
	m.hdr.method = MPD_METHOD_GET;
	m.hdr.tid = ++tid;
	m.hdr.attr_id = attr;
	mpd_mad_encode(&m, NULL, 0, mad, sizeof(mad));
	memset(&p, 0, sizeof(p));
	p.link = MPD_LINK_IB;
	p.lrh.vl = vl;
	p.lrh.dlid = dlid;
	p.lrh.slid = 99;
	p.bth.opcode = MPD_OP_UD_SEND_ONLY;
	p.bth.pkey = 0xffff;
	p.bth.dest_qp = 1;
	p.deth.qkey = 0x80010000;
	p.deth.src_qp = 1;
	return mpd_pkt_encode(&p, mad, MPD_MAD_LEN, frame, cap);
}

/* What ClassPortInfo claims (IBA 16.1.3.1), and status 0x000C for every
 * attribute the PMA does not serve (IBA 13.4.7). */
static void
test_pma_caps(void)
{
	static const uint16_t unserved[] = {
		0x0010,	/* PortSamplesControl */
		0x0011,	/* PortSamplesResult */
		0x0017,	/* PortOpRcvCounters */
		0x0018,	/* PortFlowCtlCounters */
		0x001c,	/* PortVLXmitWaitCounters */
		0x001e,	/* PortExtendedSpeedsCounters */
		0x0036,	/* PortXmitDataSL */
		0x0037,	/* PortRcvDataSL */
	};
	struct mpd_class_port_info ci;
	struct mpd_port_counters pc;
	unsigned int i, bad = 0;

	memset(&ci, 0, sizeof(ci));
	ok(perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
		     MPD_ATTR_CLASS_PORT_INFO, 0xffff, 0x80010000, &ci,
		     &mpd_class_port_info_layout) == 0, "Get(ClassPortInfo)");
	is_int(ci.capability_mask, 0x1300,
	       "CapabilityMask: AllPortSelect, PortCountersExtended, "
	       "PortXmitWait; no samples, no QP1Dropped");
	is_int(ci.capability_mask2, 0, "CapabilityMask2: nothing");
	is_int(perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_SET,
			 MPD_ATTR_CLASS_PORT_INFO, 0xffff, 0x80010000, &ci,
			 &mpd_class_port_info_layout),
	       MPD_STATUS_METHOD_ATTR_UNSUP, "Set(ClassPortInfo) refused");
	memset(&pc, 0, sizeof(pc));
	pc.port_select = 0xff;
	ok(perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
		     MPD_ATTR_PERF_PORT_COUNTERS, 0xffff, 0x80010000, &pc,
		     &mpd_port_counters_layout) == 0 && pc.port_select == 1,
	   "PortSelect 0xFF on a one-port node: its port");
	for (i = 0; i < sizeof(unserved) / sizeof(unserved[0]); i++) {
		int st = perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
				   unserved[i], 0xffff, 0x80010000, NULL,
				   NULL);

		if (st != MPD_STATUS_METHOD_ATTR_UNSUP) {
			tap_diag("attribute 0x%04x: status %d", unserved[i],
				 st);
			bad++;
		}
	}
	is_int(bad, 0, "%u attributes not served: GetResp with status 0x000C",
	       i);
}

/* A node of two ports: port 1 cannot speak for port 2, so no
 * AllPortSelect and PortSelect 0xFF is an invalid field. */
static void
test_pma_two_ports(uint16_t port)
{
	struct mpd_class_port_info ci;
	struct mpd_port_counters pc;

	memset(&ci, 0, sizeof(ci));
	ok(perf_xchg(MPD_LINK_IB, port, MPD_METHOD_GET,
		     MPD_ATTR_CLASS_PORT_INFO, 0xffff, 0x80010000, &ci,
		     &mpd_class_port_info_layout) == 0,
	   "port 1 of 2: Get(ClassPortInfo)");
	is_int(ci.capability_mask, 0x1200,
	       "port 1 of 2: CapabilityMask without AllPortSelect");
	memset(&pc, 0, sizeof(pc));
	pc.port_select = 0xff;
	is_int(perf_xchg(MPD_LINK_IB, port, MPD_METHOD_GET,
			 MPD_ATTR_PERF_PORT_COUNTERS, 0xffff, 0x80010000, &pc,
			 &mpd_port_counters_layout), MPD_STATUS_INVALID_FIELD,
	       "port 1 of 2: PortSelect 0xFF is an invalid field");
}

static int
rcv_err_details(uint8_t method, uint16_t sel,
		struct mpd_port_rcv_error_details *d)
{
	memset(d, 0, sizeof(*d));
	d->port_select = 1;
	d->counter_select = sel;
	return perf_xchg(MPD_LINK_IB, IB_PORT, method,
			 MPD_ATTR_PERF_PORT_RCV_ERROR_DETAILS, 0xffff,
			 0x80010000, d, &mpd_port_rcv_error_details_layout);
}

static uint64_t
rcv_errors(void)
{
	return hca_test_xstat(IB_PORT, "ib_port_rcv_errors");
}

/* PortRcvErrorDetails (IBA 16.1.4): bad CRCs are local physical errors,
 * bad lengths and a GMP on VL15 malformed packets; PortRcvErrors is
 * their sum; Set clears what CounterSelect names. */
static void
test_pma_rcv_err_details(void)
{
	struct mpd_port_rcv_error_details d0, d;
	struct mpd_port_xmit_discard_details x;
	uint8_t frame[512], resp[512];
	uint64_t e0;
	int len;

	if (!ok(rcv_err_details(MPD_METHOD_GET, 0, &d0) == 0,
		"Get(PortRcvErrorDetails)"))
		return;
	e0 = rcv_errors();
	len = perf_frame(7, 0, MPD_ATTR_CLASS_PORT_INFO, frame, sizeof(frame));
	frame[40] ^= 0x10;	/* in the MAD: bad ICRC */
	hca_test_xchg(IB_PORT, frame, (size_t)len, resp, sizeof(resp));
	frame[40] ^= 0x10;
	frame[len - 1] ^= 0x01;	/* bad VCRC */
	hca_test_xchg(IB_PORT, frame, (size_t)len, resp, sizeof(resp));
	frame[len - 1] ^= 0x01;
	hca_test_xchg(IB_PORT, frame, (size_t)len - 6, resp, sizeof(resp));
	len = perf_frame(7, MPD_VL15, MPD_ATTR_CLASS_PORT_INFO, frame,
			 sizeof(frame));
	is_int(hca_test_xchg(IB_PORT, frame, (size_t)len, resp, sizeof(resp)),
	       0, "a GMP on VL15 is dropped (IBA 7.6.5)");
	ok(rcv_err_details(MPD_METHOD_GET, 0, &d) == 0, "and again");
	is_int(d.port_local_physical_errors,
	       d0.port_local_physical_errors + 2,
	       "PortLocalPhysicalErrors: the bad ICRC and the bad VCRC");
	is_int(d.port_malformed_packet_errors,
	       d0.port_malformed_packet_errors + 2,
	       "PortMalformedPktErrors: the cut frame and the VL15 GMP");
	is_int(rcv_errors(), e0 + 4, "PortRcvErrors counts the four");
	ok(d.port_select == 1 && d.port_buffer_overrun_errors == 0 &&
	   d.port_dlid_mapping_errors == 0 && d.port_vl_mapping_errors == 0 &&
	   d.port_looping_errors == 0,
	   "a CA relays nothing: no DLID/VL mapping or looping errors");
	ok(rcv_err_details(MPD_METHOD_SET, 0x0001, &d) == 0 &&
	   d.port_local_physical_errors == 0 &&
	   d.port_malformed_packet_errors >= 2,
	   "Set with CounterSelect bit 0 clears PortLocalPhysicalErrors only");
	ok(rcv_err_details(MPD_METHOD_SET, 0xffff, &d) == 0 &&
	   d.port_malformed_packet_errors == 0, "CounterSelect 0xFFFF all");
	d.port_select = 9;
	is_int(perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
			 MPD_ATTR_PERF_PORT_RCV_ERROR_DETAILS, 0xffff,
			 0x80010000, &d, &mpd_port_rcv_error_details_layout),
	       MPD_STATUS_INVALID_FIELD, "PortSelect of another port refused");

	memset(&x, 0xee, sizeof(x));
	x.port_select = 1;
	x.counter_select = 0;
	ok(perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
		     MPD_ATTR_PERF_PORT_XMIT_DISCARD_DETAILS, 0xffff,
		     0x80010000, &x, &mpd_port_xmit_discard_details_layout) ==
	   0 && x.port_select == 1 && x.port_inactive_discards == 0 &&
	   x.port_neighbor_mtu_discards == 0 &&
	   x.port_sw_lifetime_limit_discards == 0 &&
	   x.port_sw_hoq_lifetime_limit_discards == 0,
	   "Get(PortXmitDiscardDetails): served, four true zeros");
}

static int
counters_ext(struct mpd_port_counters_ext *pe)
{
	memset(pe, 0, sizeof(*pe));
	pe->port_select = 1;
	return perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
			 MPD_ATTR_PERF_PORT_COUNTERS_EXT, 0xffff, 0x80010000,
			 pe, &mpd_port_counters_ext_layout);
}

/* PortXmitData/PortRcvData count LRH to ICRC (IBA 16.1.3.5): a MAD is
 * 72 words; multicast DLIDs count as multicast. */
static void
test_pma_data_words(void)
{
	struct mpd_port_counters_ext e1, e2;
	uint8_t frame[512], resp[512];
	uint64_t mc;
	int len;

	counters_ext(&e1);
	ok(perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
		     MPD_ATTR_CLASS_PORT_INFO, 0xffff, 0x80010000, NULL,
		     NULL) == 0, "one Get between two Get(PortCountersExt)");
	counters_ext(&e2);
	is_int(e2.port_rcv_data - e1.port_rcv_data, 2 * 72,
	       "PortRcvData: 72 words a MAD (the VCRC is not data)");
	is_int(e2.port_xmit_data - e1.port_xmit_data, 2 * 72,
	       "PortXmitData: 72 words an answer");
	mc = hca_test_xstat(IB_PORT, "ib_port_multicast_rcv_pkts");
	len = perf_frame(0xc001, 0, MPD_ATTR_CLASS_PORT_INFO, frame,
			 sizeof(frame));
	hca_test_xchg(IB_PORT, frame, (size_t)len, resp, sizeof(resp));
	counters_ext(&e1);
	is_int(e1.port_multicast_rcv_pkts, mc + 1,
	       "a packet to multicast LID 0xC001: PortMulticastRcvPkts");
	is_int(e1.port_unicast_rcv_pkts, e2.port_unicast_rcv_pkts + 1,
	       "and not unicast (only the Get since is)");
}

/* PortXmitWait (IBA 16.1.3.5): answers the wire could not take in one
 * poll wait a tick until the next. */
static void
test_pma_xmit_wait(void)
{
	struct rte_mempool *mp;
	struct rte_mbuf *m[8];
	struct mpd_port_counters pc;
	uint8_t frame[512];
	uint32_t w0;
	unsigned int i, got[3];
	int len;

	memset(&pc, 0, sizeof(pc));
	pc.port_select = 1;
	perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
		  MPD_ATTR_PERF_PORT_COUNTERS, 0xffff, 0x80010000, &pc,
		  &mpd_port_counters_layout);
	w0 = pc.port_xmit_wait;
	mp = rte_pktmbuf_pool_create("pma_wait", 63, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE,
				     rte_socket_id());
	if (!ok(mp && rte_pktmbuf_alloc_bulk(mp, m, 8) == 0, "8 mbufs"))
		return;
	for (i = 0; i < 8; i++) {
		len = perf_frame(7, 0, MPD_ATTR_CLASS_PORT_INFO, frame,
				 sizeof(frame));
		memcpy(rte_pktmbuf_append(m[i], (uint16_t)len), frame,
		       (size_t)len);
	}
	ok(rte_eth_tx_burst(IB_PORT, 0, m, 8) == 8, "8 Gets in one burst");
	for (i = 0; i < 3; i++) {
		got[i] = rte_eth_rx_burst(IB_PORT, 0, m, 4);
		rte_pktmbuf_free_bulk(m, got[i]);
	}
	ok(got[0] == 4 && got[1] == 4 && got[2] == 0,
	   "taken 4 at a time: %u, %u, %u", got[0], got[1], got[2]);
	memset(&pc, 0, sizeof(pc));
	pc.port_select = 1;
	perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
		  MPD_ATTR_PERF_PORT_COUNTERS, 0xffff, 0x80010000, &pc,
		  &mpd_port_counters_layout);
	is_int(pc.port_xmit_wait, w0 + 1,
	       "PortXmitWait: one tick with answers left behind");
	memset(&pc, 0, sizeof(pc));
	pc.port_select = 1;
	pc.counter_select2 = 1;
	ok(perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_SET,
		     MPD_ATTR_PERF_PORT_COUNTERS, 0xffff, 0x80010000, &pc,
		     &mpd_port_counters_layout) == 0 && pc.port_xmit_wait == 0,
	   "CounterSelect2 bit 0 clears it");
	rte_mempool_free(mp);
}

static void
test_pkey_qkey(void)
{
	uint64_t pv = hca_test_xstat(IB_PORT, "ib_p_key_violations");
	uint64_t qv = hca_test_xstat(IB_PORT, "ib_q_key_violations");

	is_int(perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
			 MPD_ATTR_CLASS_PORT_INFO, 0x8123, 0x80010000, NULL,
			 NULL), -1, "GMP with an unknown P_Key is dropped");
	is_int(hca_test_xstat(IB_PORT, "ib_p_key_violations"), pv + 1,
	       "P_Key violation counted");
	is_int(perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
			 MPD_ATTR_CLASS_PORT_INFO, 0x7fff, 0x80010000, NULL,
			 NULL), 0, "limited member P_Key 0x7fff matches full 0xffff");
	is_int(perf_xchg(MPD_LINK_IB, IB_PORT, MPD_METHOD_GET,
			 MPD_ATTR_CLASS_PORT_INFO, 0xffff, 0x12345678, NULL,
			 NULL), -1, "GMP with a wrong Q_Key is dropped");
	is_int(hca_test_xstat(IB_PORT, "ib_q_key_violations"), qv + 1,
	       "Q_Key violation counted");
}

static void
test_garbage(void)
{
	uint8_t mad[MPD_MAD_LEN], frame[512], resp[512];
	struct mpd_mad m;
	uint64_t errs = hca_test_xstat(IB_PORT, "ib_port_rcv_errors");
	uint64_t icrc = hca_test_xstat(IB_PORT, "drop_bad_icrc");
	uint64_t vcrc = hca_test_xstat(IB_PORT, "drop_bad_vcrc");
	uint64_t trunc = hca_test_xstat(IB_PORT, "drop_truncated");
	uint64_t hdr = hca_test_xstat(IB_PORT, "drop_bad_header");
	unsigned int i, bad = 0;
	int len;

	smp_init(&m, true, MPD_METHOD_GET, MPD_ATTR_NODE_INFO, 0, 0);
	mpd_mad_encode(&m, NULL, 0, mad, sizeof(mad));
	len = hca_test_frame(MPD_LINK_IB, IB_PORT, 0, MPD_LID_PERMISSIVE,
			     MPD_LID_PERMISSIVE, 0xffff, 0, mad, frame,
			     sizeof(frame));
	/* every truncation */
	for (i = 0; i < (unsigned int)len; i++)
		bad += hca_test_xchg(IB_PORT, frame, i, resp, sizeof(resp)) != 0;
	is_int(bad, 0, "no truncated frame is answered (%d lengths)", len);
	is_int(hca_test_xstat(IB_PORT, "drop_truncated") - trunc +
	       hca_test_xstat(IB_PORT, "drop_bad_header") - hdr, (uint64_t)len,
	       "every truncated frame counted as a drop");
	frame[40] ^= 0x10;	/* inside the MAD: ICRC and VCRC break */
	is_int(hca_test_xchg(IB_PORT, frame, (size_t)len, resp, sizeof(resp)),
	       0, "corrupted payload dropped");
	is_int(hca_test_xstat(IB_PORT, "drop_bad_icrc"), icrc + 1,
	       "counted as bad ICRC");
	frame[40] ^= 0x10;
	frame[len - 1] ^= 0x01;	/* VCRC only */
	is_int(hca_test_xchg(IB_PORT, frame, (size_t)len, resp, sizeof(resp)),
	       0, "bad VCRC dropped");
	is_int(hca_test_xstat(IB_PORT, "drop_bad_vcrc"), vcrc + 1,
	       "counted as bad VCRC");
	/* frames the launcher's own nodes encoded: not checked again */
	is_int(rte_pmd_hca_crc_ours(IB_PORT, 1), 0, "rte_pmd_hca_crc_ours on");
	ok(hca_test_xchg(IB_PORT, frame, (size_t)len, resp, sizeof(resp)) > 0 &&
	   hca_test_xstat(IB_PORT, "drop_bad_vcrc") == vcrc + 1,
	   "crc_ours: the bad VCRC is not checked, the SMP answered");
	is_int(rte_pmd_hca_crc_ours(IB_PORT, 0), 0, "rte_pmd_hca_crc_ours off");
	is_int(hca_test_xchg(IB_PORT, frame, (size_t)len, resp, sizeof(resp)),
	       0, "off again: bad VCRC dropped");
	is_int(rte_pmd_hca_crc_ours(RTE_MAX_ETHPORTS, 1), -ENODEV,
	       "rte_pmd_hca_crc_ours on no port: -ENODEV");
	frame[len - 1] ^= 0x01;
	for (i = 0; i < 200; i++) {
		size_t glen = (size_t)rnd_bits(9);

		rnd_bytes(resp, glen);
		hca_test_xchg(IB_PORT, resp, glen, resp, sizeof(resp));
	}
	ok(hca_test_xstat(IB_PORT, "ib_port_rcv_errors") >= errs + len + 2,
	   "PortRcvErrors counts the garbage");
	ok(hca_test_xchg(IB_PORT, frame, (size_t)len, resp, sizeof(resp)) > 0,
	   "the port still answers after 200 random frames");
}

static void
test_roce(void)
{
	uint8_t mad[MPD_MAD_LEN], frame[512], resp[512];
	struct mpd_mad m;
	int n;

	test_pma(MPD_LINK_ROCE_V2, ROCE_PORT, "RoCEv2");
	smp_init(&m, false, MPD_METHOD_GET, MPD_ATTR_NODE_INFO, 0, 0);
	mpd_mad_encode(&m, NULL, 0, mad, sizeof(mad));
	n = hca_test_frame(MPD_LINK_ROCE_V2, ROCE_PORT, 0, 0, 0, 0xffff, 0,
			   mad, frame, sizeof(frame));
	is_int(hca_test_xchg(ROCE_PORT, frame, (size_t)n, resp, sizeof(resp)),
	       0, "RoCE has no QP0: SMP not answered");
}

/* A bad devarg fails the probe with a line naming the key and the
 * accepted values. */
static void
test_bad_devargs(void)
{
	static const struct {
		const char *args, *says;
	} cases[] = {
		{ "link=eth", "invalid devarg link=eth: accepted values: ib, roce" },
		{ "node_guid=0", "invalid devarg node_guid=0: accepted values: a non-zero 64-bit GUID" },
		{ "pkeys=0xffff:0x8000", "invalid devarg pkeys=0xffff:0x8000: accepted values: 1 to 32 P_Keys" },
		{ "port=3,num_ports=2", "invalid devarg port=3: accepted values: 1 to num_ports (2)" },
		{ "mac=01:00:00:00:00:01", "invalid devarg mac=01:00:00:00:00:01: accepted values: a unicast MAC" },
		{ "width=3x", "invalid devarg width=3x: accepted values: 1x, 4x, 8x, 12x" },
		{ "colour=blue", "cannot parse devargs 'colour=blue': accepted keys:" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *log = NULL;
		size_t loglen = 0;
		FILE *f = open_memstream(&log, &loglen);
		int rc;

		rte_openlog_stream(f);
		rc = rte_vdev_init("net_hca9", cases[i].args);
		rte_openlog_stream(NULL);
		fclose(f);
		ok(rc < 0 && log && strstr(log, cases[i].says),
		   "devargs '%s' refused: %s", cases[i].args,
		   log ? strtok(log, "\n") : "(no log)");
		free(log);
	}
}

int
main(void)
{
	static const char *const vdevs[] = {
		"net_hca0,node=alpha,desc=alpha HCA-1,node_guid=0x0002c90300a0b0c0",
		"net_hca1,node=beta,link=roce",
		"net_hca2,node=gamma,port=1,num_ports=2",
	};
	struct rte_eth_link l;

	tap_seed();
	if (!ok(hca_test_eal_init("test_pmd_agents", vdevs, 3) == 0,
		"EAL up with three net_hca ports"))
		return tap_done();
	ok(rte_eth_dev_count_avail() == 3, "three ethdevs probed");
	ok(hca_test_port_start(IB_PORT) == 0 &&
	   hca_test_port_start(ROCE_PORT) == 0 &&
	   hca_test_port_start(TWO_PORTS) == 0, "ports started");
	ok(rte_eth_link_get_nowait(IB_PORT, &l) == 0 && l.link_status == 1,
	   "link is up after start");
	test_dr_node_info();
	test_node_desc();
	test_port_state_machine();
	test_mkey();
	test_pma(MPD_LINK_IB, IB_PORT, "IB");
	test_pma_caps();
	test_pma_rcv_err_details();
	test_pma_data_words();
	test_pma_xmit_wait();
	test_pma_two_ports(TWO_PORTS);
	test_pkey_qkey();
	test_garbage();
	test_roce();
	test_bad_devargs();
	hca_test_eal_fini();
	return tap_done();
}
