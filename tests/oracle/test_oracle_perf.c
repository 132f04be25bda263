/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PerfMgt MADs (class 0x04, QP1) on every link, checked by tshark:
 * ClassPortInfo, PortCounters and PortCountersExtended with random values.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "layout_check.h"
#include "oracle.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define PER_ATTR 2

#define CPI(f) "infiniband.classportinfo." f
static const struct oracle_map class_port_info_map[] = {
	{ "base_version", CPI("baseversion") },
	{ "class_version", CPI("classversion") },
	{ "capability_mask", CPI("capabilitymask") },
	{ "capability_mask2", CPI("capabilitymask2") },
	{ "resp_time_value", CPI("resptimevalue") },
	{ "redirect_gid", CPI("redirectgid"), ORACLE_AS_GID },
	{ "redirect_tc", CPI("redirecttc") },
	{ "redirect_sl", CPI("redirectsl") },
	{ "redirect_fl", CPI("redirectfl") },
	{ "redirect_lid", CPI("redirectlid") },
	{ "redirect_pkey", CPI("redirectpkey") },
	{ "redirect_qp", CPI("redirectqp") },
	{ "redirect_qkey", CPI("redirectqkey") },
	{ "trap_gid", CPI("trapgid"), ORACLE_AS_GID },
	{ "trap_tc", CPI("traptc") },
	{ "trap_sl", CPI("trapsl") },
	{ "trap_fl", CPI("trapfl") },
	{ "trap_lid", CPI("traplid") },
	{ "trap_pkey", CPI("trappkey") },
	/* Wireshark 4.0 shows TrapHL as a Reserved byte: see add_perf() */
	{ "trap_hl", NULL },
	{ "trap_qp", CPI("trapqp") },
	{ "trap_qkey", CPI("trapqkey") },
};

#define PC(f) "infiniband.portcounters." f
static const struct oracle_map port_counters_map[] = {
	{ "port_select", PC("portselect") },
	{ "counter_select", PC("counterselect") },
	{ "symbol_error_counter", PC("symbolerrorcounter") },
	{ "link_error_recovery_counter", PC("linkerrorrecoverycounter") },
	{ "link_downed_counter", PC("linkdownedcounter") },
	{ "port_rcv_errors", PC("portrcverrors") },
	{ "port_rcv_remote_physical_errors",
	  PC("portrcvremotephysicalerrors") },
	{ "port_rcv_switch_relay_errors", PC("portrcvswitchrelayerrors") },
	{ "port_xmit_discards", PC("portxmitdiscards") },
	{ "port_xmit_constraint_errors", PC("portxmitconstrainterrors") },
	{ "port_rcv_constraint_errors", PC("portrcvconstrainterrors") },
	/* Wireshark 4.0 shows byte 18 as reserved */
	{ "counter_select2", NULL },
	{ "local_link_integrity_errors", PC("locallinkintegrityerrors") },
	{ "excessive_buffer_overrun_errors",
	  PC("excessivebufferoverrunerrors") },
	/* Wireshark 4.0 shows bytes 20-21 as reserved */
	{ "qp1_dropped", NULL },
	{ "vl15_dropped", PC("vl15dropped") },
	{ "port_xmit_data", PC("portxmitdata") },
	{ "port_rcv_data", PC("portrcvdata") },
	{ "port_xmit_pkts", PC("portxmitpkts") },
	{ "port_rcv_pkts", PC("portrcvpkts") },
	/* Wireshark 4.0 stops after byte 39: PortXmitWait is not shown */
	{ "port_xmit_wait", NULL },
};
#undef PC

#define PCX(f) "infiniband.portcounters_ext." f
static const struct oracle_map port_counters_ext_map[] = {
	{ "port_select", PCX("portselect") },
	{ "counter_select", PCX("counterselect") },
	{ "port_xmit_data", PCX("portxmitdata") },
	{ "port_rcv_data", PCX("portrcvdata") },
	{ "port_xmit_pkts", PCX("portxmitpkts") },
	{ "port_rcv_pkts", PCX("portrcvpkts") },
	{ "port_unicast_xmit_pkts", PCX("portunicastxmitpkts") },
	{ "port_unicast_rcv_pkts", PCX("portunicastrcvpkts") },
	{ "port_multicast_xmit_pkts", PCX("portmulticastxmitpkts") },
	{ "port_multicast_rcv_pkts", PCX("portmulticastrcvpkts") },
};
#undef PCX

struct perf_case {
	const char *name;
	uint16_t attr_id;
	const struct mpd_layout *layout;
	const struct oracle_map *map;
	size_t nmap;
};

static const struct perf_case perf_cases[] = {
	{ "ClassPortInfo", MPD_ATTR_CLASS_PORT_INFO,
	  &mpd_class_port_info_layout, class_port_info_map,
	  N(class_port_info_map) },
	{ "PortCounters", MPD_ATTR_PERF_PORT_COUNTERS,
	  &mpd_port_counters_layout, port_counters_map,
	  N(port_counters_map) },
	{ "PortCountersExtended", MPD_ATTR_PERF_PORT_COUNTERS_EXT,
	  &mpd_port_counters_ext_layout, port_counters_ext_map,
	  N(port_counters_ext_map) },
};

static void
add_perf(struct oracle *o, enum mpd_link link, const char *link_name,
	 const struct perf_case *c)
{
	uint8_t obj[256] __attribute__((aligned(8)));
	uint8_t data[MPD_MAD_LEN - MPD_PERF_DATA_OFF];
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_mad m;
	struct mpd_pkt p;
	char label[80];
	int fr, n;

	memset(obj, 0, sizeof(obj));
	lc_random_fill(c->layout, obj);
	n = mpd_layout_encode(c->layout, obj, data, sizeof(data));
	if (!ok(n == c->layout->wire_len, "%s encodes to %u bytes", c->name,
		c->layout->wire_len))
		return;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_PERF;
	m.hdr.class_version = MPD_PERF_CLASS_VERSION;
	m.hdr.method = rnd64() & 1 ? MPD_METHOD_GET_RESP : MPD_METHOD_GET;
	m.hdr.tid = rnd64();
	m.hdr.attr_id = c->attr_id;
	m.hdr.attr_mod = (uint32_t)rnd_bits(8);
	if (!ok(mpd_mad_encode(&m, data, (size_t)n, mad, sizeof(mad)) ==
		MPD_MAD_LEN, "%s: MAD encodes", c->name))
		return;

	snprintf(label, sizeof(label), "%s PerfMgt %s", link_name, c->name);
	oracle_pkt_init(&p, link, 1, 1);
	fr = oracle_add_pkt(o, label, &p, mad, sizeof(mad));
	if (!fr)
		return;
	oracle_expect_mad_hdr(o, fr, &m, true);
	oracle_expect_layout(o, fr, c->layout, obj, c->map, c->nmap, 0);
	if (c->attr_id == MPD_ATTR_CLASS_PORT_INFO) {
		const struct mpd_class_port_info *cpi = (const void *)obj;

		/* byte 32 is reserved; Wireshark 4.0 also calls byte 64,
		 * TrapHL, "Reserved" */
		oracle_expect_uint(o, fr, CPI("reserved"), 0, 0);
		oracle_expect_uint(o, fr, CPI("reserved"), 1, cpi->trap_hl);
	}
	/* Wireshark 4.0 shows neither ICRC nor VCRC after a PerfMgt MAD
	 * (they are checked on every other MAD and payload) */
	oracle_forget(o, fr, "infiniband.invariant.crc");
	oracle_forget(o, fr, "infiniband.variant.crc");
	oracle_expect_absent(o, fr, "infiniband.invariant.crc");
	oracle_expect_absent(o, fr, "infiniband.variant.crc");
}

int
main(void)
{
	static const enum mpd_link links[] = {
		MPD_LINK_IB, MPD_LINK_ROCE_V1, MPD_LINK_ROCE_V2,
	};
	static const char *const names[] = { "IB", "RoCEv1", "RoCEv2" };
	struct oracle *o;
	unsigned int l, c, i;

	tap_seed();
	o = oracle_new("perf");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	for (l = 0; l < N(links); l++)
		for (c = 0; c < N(perf_cases); c++)
			for (i = 0; i < PER_ATTR; i++)
				add_perf(o, links[l], names[l], &perf_cases[c]);
	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
