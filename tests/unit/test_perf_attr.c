/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PerfMgt attribute layouts (IBA 16.1) and ClassPortInfo (13.4.8.1):
 * golden bytes written by hand from the IBA tables, random round trips,
 * reserved bits left zero, every error path, and layout sanity.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "madpmd/wire.h"
#include "layout_check.h"
#include "tap.h"

#define ITERS 100
#define N(a) (sizeof(a) / sizeof((a)[0]))

struct attr {
	const struct mpd_layout *l;
	size_t size;		/* sizeof the host struct */
};

static const struct attr attrs[] = {
	{ &mpd_class_port_info_layout, sizeof(struct mpd_class_port_info) },
	{ &mpd_port_counters_layout, sizeof(struct mpd_port_counters) },
	{ &mpd_port_counters_ext_layout,
	  sizeof(struct mpd_port_counters_ext) },
	{ &mpd_port_rcv_error_details_layout,
	  sizeof(struct mpd_port_rcv_error_details) },
	{ &mpd_port_xmit_discard_details_layout,
	  sizeof(struct mpd_port_xmit_discard_details) },
};

static void
golden_class_port_info(void)
{
	struct mpd_class_port_info cpi;
	static const uint8_t want[72] = {
		0x01, 0x01,		/* BaseVersion, ClassVersion */
		0x06, 0x00,		/* CapabilityMask */
		0x00, 0x00, 0x00, 0x32,	/* CapabilityMask2 1, RespTimeValue 18 */
		[8] = 0xfe, 0x80, [23] = 0x02,	/* RedirectGID */
		[24] = 0x10,		/* RedirectTC */
		0x3a, 0xbc, 0xde,	/* RedirectSL 3, RedirectFL 0xabcde */
		0x00, 0x07,		/* 28: RedirectLID */
		0xff, 0xff,		/* 30: RedirectP_Key */
		0x00,			/* 32: reserved */
		0x00, 0x00, 0x01,	/* 33: RedirectQP */
		0x80, 0x01, 0x00, 0x00,	/* 36: RedirectQ_Key */
		[40] = 0xfe, 0x80, [55] = 0x03,	/* TrapGID */
		[56] = 0x20,		/* TrapTC */
		0x5f, 0xff, 0xff,	/* TrapSL 5, TrapFL 0xfffff */
		0x00, 0x09,		/* 60: TrapLID */
		0x7f, 0xff,		/* 62: TrapP_Key */
		0x40,			/* 64: TrapHL */
		0x12, 0x34, 0x56,	/* 65: TrapQP */
		0x01, 0x02, 0x03, 0x04,	/* 68: TrapQ_Key */
	};

	memset(&cpi, 0, sizeof(cpi));
	cpi.base_version = 1;
	cpi.class_version = 1;
	cpi.capability_mask = 0x0600;
	cpi.capability_mask2 = 1;
	cpi.resp_time_value = 18;
	cpi.redirect_gid[0] = 0xfe;
	cpi.redirect_gid[1] = 0x80;
	cpi.redirect_gid[15] = 0x02;
	cpi.redirect_tc = 0x10;
	cpi.redirect_sl = 3;
	cpi.redirect_fl = 0xabcde;
	cpi.redirect_lid = 7;
	cpi.redirect_pkey = 0xffff;
	cpi.redirect_qp = 1;
	cpi.redirect_qkey = 0x80010000;
	cpi.trap_gid[0] = 0xfe;
	cpi.trap_gid[1] = 0x80;
	cpi.trap_gid[15] = 0x03;
	cpi.trap_tc = 0x20;
	cpi.trap_sl = 5;
	cpi.trap_fl = 0xfffff;
	cpi.trap_lid = 9;
	cpi.trap_pkey = 0x7fff;
	cpi.trap_hl = 64;
	cpi.trap_qp = 0x123456;
	cpi.trap_qkey = 0x01020304;
	LC_GOLDEN(mpd_class_port_info_layout, struct mpd_class_port_info, &cpi,
	       want);
}

static void
golden_port_counters(void)
{
	struct mpd_port_counters pc;
	static const uint8_t want[44] = {
		0x00,			/* reserved */
		0x01,			/* PortSelect */
		0xff, 0xff,		/* CounterSelect */
		0x01, 0x02,		/* 4: SymbolErrorCounter */
		0x03, 0x04,		/* 6: LinkErrorRecovery, LinkDowned */
		0x05, 0x06,		/* 8: PortRcvErrors */
		0x07, 0x08,		/* 10: PortRcvRemotePhysicalErrors */
		0x09, 0x0a,		/* 12: PortRcvSwitchRelayErrors */
		0x0b, 0x0c,		/* 14: PortXmitDiscards */
		0x0d, 0x0e,		/* 16: Xmit/RcvConstraintErrors */
		0x0f,			/* 18: CounterSelect2 */
		0x12,	/* 19: LocalLinkIntegrity 1, ExcessiveBufferOverrun 2 */
		0x13, 0x14,		/* 20: QP1Dropped */
		0x15, 0x16,		/* 22: VL15Dropped */
		0x17, 0x18, 0x19, 0x20,	/* 24: PortXmitData */
		0x21, 0x22, 0x23, 0x24,	/* 28: PortRcvData */
		0x25, 0x26, 0x27, 0x28,	/* 32: PortXmitPkts */
		0x29, 0x30, 0x31, 0x32,	/* 36: PortRcvPkts */
		0x33, 0x34, 0x35, 0x36,	/* 40: PortXmitWait */
	};

	memset(&pc, 0, sizeof(pc));
	pc.port_select = 1;
	pc.counter_select = 0xffff;
	pc.symbol_error_counter = 0x0102;
	pc.link_error_recovery_counter = 3;
	pc.link_downed_counter = 4;
	pc.port_rcv_errors = 0x0506;
	pc.port_rcv_remote_physical_errors = 0x0708;
	pc.port_rcv_switch_relay_errors = 0x090a;
	pc.port_xmit_discards = 0x0b0c;
	pc.port_xmit_constraint_errors = 0x0d;
	pc.port_rcv_constraint_errors = 0x0e;
	pc.counter_select2 = 0x0f;
	pc.local_link_integrity_errors = 1;
	pc.excessive_buffer_overrun_errors = 2;
	pc.qp1_dropped = 0x1314;
	pc.vl15_dropped = 0x1516;
	pc.port_xmit_data = 0x17181920;
	pc.port_rcv_data = 0x21222324;
	pc.port_xmit_pkts = 0x25262728;
	pc.port_rcv_pkts = 0x29303132;
	pc.port_xmit_wait = 0x33343536;
	LC_GOLDEN(mpd_port_counters_layout, struct mpd_port_counters, &pc, want);
}

static void
golden_port_counters_ext(void)
{
	struct mpd_port_counters_ext pc;
	static const uint8_t want[72] = {
		0x00, 0xff, 0x00, 0xff,	/* reserved, PortSelect, CounterSelect */
		0x00, 0x00, 0x00, 0x00,	/* reserved */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* XmitData */
		0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, /* RcvData */
		0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, /* XmitPkts */
		0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, /* RcvPkts */
		0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, /* UcXmit */
		0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, /* UcRcv */
		0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, /* McXmit */
		0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, /* McRcv */
	};

	memset(&pc, 0, sizeof(pc));
	pc.port_select = 0xff;
	pc.counter_select = 0x00ff;
	pc.port_xmit_data = 0x0102030405060708ull;
	pc.port_rcv_data = 0x1112131415161718ull;
	pc.port_xmit_pkts = 0x2122232425262728ull;
	pc.port_rcv_pkts = 0x3132333435363738ull;
	pc.port_unicast_xmit_pkts = 0x4142434445464748ull;
	pc.port_unicast_rcv_pkts = 0x5152535455565758ull;
	pc.port_multicast_xmit_pkts = 0x6162636465666768ull;
	pc.port_multicast_rcv_pkts = 0xf1f2f3f4f5f6f7f8ull;
	LC_GOLDEN(mpd_port_counters_ext_layout, struct mpd_port_counters_ext,
	       &pc, want);
}

static void
golden_port_rcv_error_details(void)
{
	struct mpd_port_rcv_error_details d;
	static const uint8_t want[16] = {
		0x00, 0x01,		/* reserved, PortSelect */
		0x00, 0x3f,		/* 2: CounterSelect */
		0x01, 0x02,		/* 4: PortLocalPhysicalErrors */
		0x03, 0x04,		/* 6: PortMalformedPacketErrors */
		0x05, 0x06,		/* 8: PortBufferOverrunErrors */
		0x07, 0x08,		/* 10: PortDLIDMappingErrors */
		0x09, 0x0a,		/* 12: PortVLMappingErrors */
		0x0b, 0x0c,		/* 14: PortLoopingErrors */
	};

	memset(&d, 0, sizeof(d));
	d.port_select = 1;
	d.counter_select = 0x003f;
	d.port_local_physical_errors = 0x0102;
	d.port_malformed_packet_errors = 0x0304;
	d.port_buffer_overrun_errors = 0x0506;
	d.port_dlid_mapping_errors = 0x0708;
	d.port_vl_mapping_errors = 0x090a;
	d.port_looping_errors = 0x0b0c;
	LC_GOLDEN(mpd_port_rcv_error_details_layout,
		  struct mpd_port_rcv_error_details, &d, want);
}

static void
golden_port_xmit_discard_details(void)
{
	struct mpd_port_xmit_discard_details d;
	static const uint8_t want[12] = {
		0x00, 0x02,		/* reserved, PortSelect */
		0x00, 0x0f,		/* 2: CounterSelect */
		0x11, 0x12,		/* 4: PortInactiveDiscards */
		0x13, 0x14,		/* 6: PortNeighborMTUDiscards */
		0x15, 0x16,		/* 8: PortSwLifetimeLimitDiscards */
		0x17, 0x18,		/* 10: PortSwHOQLifetimeLimitDiscards */
	};

	memset(&d, 0, sizeof(d));
	d.port_select = 2;
	d.counter_select = 0x000f;
	d.port_inactive_discards = 0x1112;
	d.port_neighbor_mtu_discards = 0x1314;
	d.port_sw_lifetime_limit_discards = 0x1516;
	d.port_sw_hoq_lifetime_limit_discards = 0x1718;
	LC_GOLDEN(mpd_port_xmit_discard_details_layout,
		  struct mpd_port_xmit_discard_details, &d, want);
}

int
main(void)
{
	size_t i;

	tap_seed();
	for (i = 0; i < N(attrs); i++) {
		lc_check_layout(attrs[i].l, attrs[i].size);
		lc_check_codec(attrs[i].l, attrs[i].size, ITERS);
		/* PerfMgt data starts at MAD byte 64 and has 192 bytes */
		ok(attrs[i].l->wire_len <= MPD_MAD_LEN - MPD_PERF_DATA_OFF,
		   "%s fits the PerfMgt data area", attrs[i].l->name);
	}
	golden_class_port_info();
	golden_port_counters();
	golden_port_counters_ext();
	golden_port_rcv_error_details();
	golden_port_xmit_discard_details();
	is_int(mpd_class_port_info_layout.wire_len, 72,
	       "ClassPortInfo is 72 bytes");
	is_int(mpd_port_counters_ext_layout.wire_len, 72,
	       "PortCountersExtended is 72 bytes");
	return tap_done();
}
