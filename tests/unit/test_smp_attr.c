/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SMP attribute layouts (IBA 14.2.5, Notice 13.4.8.2): golden bytes
 * written by hand from the IBA tables, random round trips, reserved bits
 * left zero, every error path, and layout sanity.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/attr.h"
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
	{ &mpd_node_info_layout, sizeof(struct mpd_node_info) },
	{ &mpd_node_desc_layout, sizeof(struct mpd_node_desc) },
	{ &mpd_switch_info_layout, sizeof(struct mpd_switch_info) },
	{ &mpd_guid_info_layout, sizeof(struct mpd_guid_info) },
	{ &mpd_port_info_layout, sizeof(struct mpd_port_info) },
	{ &mpd_pkey_table_layout, sizeof(struct mpd_pkey_table) },
	{ &mpd_sl2vl_table_layout, sizeof(struct mpd_sl2vl_table) },
	{ &mpd_vl_arb_table_layout, sizeof(struct mpd_vl_arb_table) },
	{ &mpd_lft_block_layout, sizeof(struct mpd_lft_block) },
	{ &mpd_mft_block_layout, sizeof(struct mpd_mft_block) },
	{ &mpd_sm_info_layout, sizeof(struct mpd_sm_info) },
	{ &mpd_notice_layout, sizeof(struct mpd_notice) },
};

static void
golden_node_info(void)
{
	struct mpd_node_info ni;
	static const uint8_t want[40] = {
		0x01, 0x01, 0x01, 0x02,				/* 0 */
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x11, 0x22, 0x33,	/* 4 */
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x11, 0x22, 0x34,	/* 12 */
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x11, 0x22, 0x35,	/* 20 */
		0x00, 0x80, 0x10, 0x17,				/* 28 */
		0x00, 0x00, 0x00, 0xa1,				/* 32 */
		0x01, 0x00, 0x02, 0xc9,				/* 36 */
	};

	memset(&ni, 0, sizeof(ni));
	ni.base_version = 1;
	ni.class_version = 1;
	ni.node_type = MPD_NODE_TYPE_CA;
	ni.num_ports = 2;
	ni.sys_image_guid = 0x0002c90300112233ull;
	ni.node_guid = 0x0002c90300112234ull;
	ni.port_guid = 0x0002c90300112235ull;
	ni.partition_cap = 0x80;
	ni.device_id = 0x1017;
	ni.revision = 0xa1;
	ni.local_port_num = 1;
	ni.vendor_id = 0x0002c9;
	LC_GOLDEN(mpd_node_info_layout, struct mpd_node_info, &ni, want);
}

static void
golden_node_desc(void)
{
	struct mpd_node_desc nd;
	uint8_t want[64] = { 'm', 'a', 'd', 'p', 'm', 'd', ' ', 'H', 'C',
			     'A', '-', '1' };

	memset(&nd, 0, sizeof(nd));
	memcpy(nd.desc, "madpmd HCA-1", 12);
	LC_GOLDEN(mpd_node_desc_layout, struct mpd_node_desc, &nd, want);
}

static void
golden_switch_info(void)
{
	struct mpd_switch_info si;
	static const uint8_t want[20] = {
		0xc0, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x23,	/* caps, top */
		0x01, 0xff, 0xfe,				/* ports */
		0x9e,	/* LifeTimeValue 0x13 << 3 | state change | opt 2 */
		0x00, 0x01, 0x00, 0x20,
		0xa8,	/* inbound, filter raw inbound, enhanced port 0 */
		0x00, 0xc0, 0x10,				/* MFDB top */
	};

	memset(&si, 0, sizeof(si));
	si.linear_fdb_cap = 0xc000;
	si.multicast_fdb_cap = 0x0200;
	si.linear_fdb_top = 0x0123;
	si.default_port = 1;
	si.default_mcast_primary_port = 0xff;
	si.default_mcast_not_primary_port = 0xfe;
	si.life_time_value = 0x13;
	si.port_state_change = 1;
	si.optimized_sl2vl_programming = 2;
	si.lids_per_port = 1;
	si.partition_enforcement_cap = 0x20;
	si.inbound_enforcement_cap = 1;
	si.filter_raw_inbound_cap = 1;
	si.enhanced_port0 = 1;
	si.multicast_fdb_top = 0xc010;
	LC_GOLDEN(mpd_switch_info_layout, struct mpd_switch_info, &si, want);
}

static void
golden_guid_info(void)
{
	struct mpd_guid_info gi;
	static const uint8_t want[64] = {
		[0] = 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
		[8] = 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x00, 0x01,
		[56] = 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
	};

	memset(&gi, 0, sizeof(gi));
	gi.guid[0] = 0x0011223344556677ull;
	gi.guid[1] = 0x0002c90300000001ull;
	gi.guid[7] = 0x8899aabbccddeeffull;
	LC_GOLDEN(mpd_guid_info_layout, struct mpd_guid_info, &gi, want);
}

static void
golden_port_info(void)
{
	struct mpd_port_info pi;
	static const uint8_t want[64] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	/* M_Key */
		0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* GidPrefix */
		0x12, 0x34,		/* 16: LID */
		0x00, 0x01,		/* 18: MasterSMLID */
		0x02, 0x51, 0x0a, 0x68,	/* 20: CapabilityMask */
		0x00, 0x00,		/* 24: DiagCode */
		0x00, 0x3c,		/* 26: M_KeyLeasePeriod */
		0x01, 0x03, 0x03, 0x02,	/* 28: port, LinkWidth E/S/A */
		0x14,	/* 32: LinkSpeedSupported 1, PortState 4 (Active) */
		0x52,	/* 33: PortPhysicalState 5, LinkDownDefault 2 */
		0x42,	/* 34: M_KeyProtectBits 1, 3 reserved, LMC 2 */
		0x13,	/* 35: LinkSpeedActive 1, LinkSpeedEnabled 3 */
		0x50,	/* 36: NeighborMTU 5, MasterSMSL 0 */
		0x40,	/* 37: VLCap 4, InitType 0 */
		0x00, 0x08, 0x08,	/* 38: VLHighLimit, VLArb caps */
		0x05,	/* 41: InitTypeReply 0, MTUCap 5 */
		0xf3,	/* 42: VLStallCount 7, HOQLife 0x13 */
		0x4d,	/* 43: OperationalVLs 4, enforcement/filter 1101 */
		0x11, 0x11, 0x22, 0x22, 0x33, 0x33,	/* 44: violations */
		0x80,	/* 50: GUIDCap */
		0xd2,	/* 51: ClientReregister, McastPKeyTrapSupp 2, STO 18 */
		0x11,	/* 52: 3 reserved, RespTimeValue 0x11 */
		0x89,	/* 53: LocalPhyErrors 8, OverrunErrors 9 */
		0xab, 0xcd,		/* 54: MaxCreditHint */
		0x00,			/* 56: reserved */
		0x12, 0x34, 0x56,	/* 57: LinkRoundTripLatency */
		0x00, 0x42,		/* 60: CapabilityMask2 */
		0x13,	/* 62: LinkSpeedExtActive 1, LinkSpeedExtSupported 3 */
		0x1e,	/* 63: 3 reserved, LinkSpeedExtEnabled 0x1e */
	};

	memset(&pi, 0, sizeof(pi));
	pi.m_key = 0x0102030405060708ull;
	pi.gid_prefix = 0xfe80000000000000ull;
	pi.lid = 0x1234;
	pi.master_sm_lid = 1;
	pi.capability_mask = 0x02510a68;
	pi.m_key_lease_period = 60;
	pi.local_port_num = 1;
	pi.link_width_enabled = 3;
	pi.link_width_supported = 3;
	pi.link_width_active = 2;
	pi.link_speed_supported = 1;
	pi.port_state = MPD_PORT_STATE_ACTIVE;
	pi.port_phys_state = MPD_PHYS_STATE_LINKUP;
	pi.link_down_default_state = 2;
	pi.m_key_protect_bits = 1;
	pi.lmc = 2;
	pi.link_speed_active = 1;
	pi.link_speed_enabled = 3;
	pi.neighbor_mtu = 5;
	pi.vl_cap = 4;
	pi.vl_arb_high_cap = 8;
	pi.vl_arb_low_cap = 8;
	pi.mtu_cap = 5;
	pi.vl_stall_count = 7;
	pi.hoq_life = 0x13;
	pi.operational_vls = 4;
	pi.partition_enforcement_inbound = 1;
	pi.partition_enforcement_outbound = 1;
	pi.filter_raw_outbound = 1;
	pi.m_key_violations = 0x1111;
	pi.p_key_violations = 0x2222;
	pi.q_key_violations = 0x3333;
	pi.guid_cap = 128;
	pi.client_reregister = 1;
	pi.mcast_pkey_trap_suppression = 2;
	pi.subnet_timeout = 18;
	pi.resp_time_value = 0x11;
	pi.local_phy_errors = 8;
	pi.overrun_errors = 9;
	pi.max_credit_hint = 0xabcd;
	pi.link_round_trip_latency = 0x123456;
	pi.capability_mask2 = 0x42;
	pi.link_speed_ext_active = 1;
	pi.link_speed_ext_supported = 3;
	pi.link_speed_ext_enabled = 0x1e;
	LC_GOLDEN(mpd_port_info_layout, struct mpd_port_info, &pi, want);
}

static void
golden_tables(void)
{
	struct mpd_pkey_table pk;
	struct mpd_sl2vl_table sv;
	struct mpd_vl_arb_table va;
	struct mpd_lft_block lft;
	struct mpd_mft_block mft;
	static const uint8_t pk_want[64] = {
		[0] = 0xff, 0xff, 0x80, 0x01, [62] = 0x7f, 0xff,
	};
	static const uint8_t sv_want[8] = { 0x12, [7] = 0xf0 };
	static const uint8_t va_want[64] = {
		[0] = 0x03, 0x40, [62] = 0x0f, 0xff,
	};
	static const uint8_t lft_want[64] = { [0] = 0x01, [63] = 0xff };
	static const uint8_t mft_want[64] = {
		[0] = 0x80, 0x01, [62] = 0x12, 0x34,
	};

	memset(&pk, 0, sizeof(pk));
	pk.p_key[0] = 0xffff;	/* default partition, full member */
	pk.p_key[1] = MPD_PKEY_FULL | 1;
	pk.p_key[31] = 0x7fff;
	LC_GOLDEN(mpd_pkey_table_layout, struct mpd_pkey_table, &pk, pk_want);

	memset(&sv, 0, sizeof(sv));
	sv.vl[0] = 1;		/* SL0 in the high nibble of byte 0 */
	sv.vl[1] = 2;
	sv.vl[14] = 15;
	LC_GOLDEN(mpd_sl2vl_table_layout, struct mpd_sl2vl_table, &sv, sv_want);

	memset(&va, 0, sizeof(va));
	va.entry[0].vl = 3;
	va.entry[0].weight = 0x40;
	va.entry[31].vl = 15;
	va.entry[31].weight = 0xff;
	LC_GOLDEN(mpd_vl_arb_table_layout, struct mpd_vl_arb_table, &va, va_want);

	memset(&lft, 0, sizeof(lft));
	lft.port[0] = 1;
	lft.port[63] = 0xff;
	LC_GOLDEN(mpd_lft_block_layout, struct mpd_lft_block, &lft, lft_want);

	memset(&mft, 0, sizeof(mft));
	mft.port_mask[0] = 0x8001;
	mft.port_mask[31] = 0x1234;
	LC_GOLDEN(mpd_mft_block_layout, struct mpd_mft_block, &mft, mft_want);
}

static void
golden_sm_info(void)
{
	struct mpd_sm_info sm;
	static const uint8_t want[21] = {
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x12, 0x34,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0xde, 0xad, 0xbe, 0xef,
		0xa3,	/* Priority 10, SMState 3 (master) */
	};

	memset(&sm, 0, sizeof(sm));
	sm.guid = 0x0002c90300001234ull;
	sm.sm_key = 0x1122334455667788ull;
	sm.act_count = 0xdeadbeef;
	sm.priority = 10;
	sm.sm_state = MPD_SM_STATE_MASTER;
	LC_GOLDEN(mpd_sm_info_layout, struct mpd_sm_info, &sm, want);
}

static void
golden_notice(void)
{
	struct mpd_notice n;
	static const uint8_t want[80] = {
		0x84,			/* IsGeneric, Type 4 (informational) */
		0x00, 0x00, 0x02,	/* ProducerType: switch */
		0x00, 0x80,		/* TrapNumber 128 */
		0x00, 0x42,		/* IssuerLID */
		0x92, 0x34,		/* NoticeToggle, NoticeCount 0x1234 */
		[12] = 0x00, 0x05,	/* DataDetails: LIDADDR of trap 128 */
		[63] = 0xee,		/* last DataDetails byte */
		[64] = 0xfe, 0x80, [79] = 0x01,	/* IssuerGID */
	};

	memset(&n, 0, sizeof(n));
	n.is_generic = 1;
	n.type = 4;
	n.producer_type = MPD_NODE_TYPE_SWITCH;
	n.trap_number = 128;
	n.issuer_lid = 0x42;
	n.notice_toggle = 1;
	n.notice_count = 0x1234;
	n.data_details[3] = 0x05;
	n.data_details[MPD_NOTICE_DETAILS_LEN - 1] = 0xee;
	n.issuer_gid[0] = 0xfe;
	n.issuer_gid[1] = 0x80;
	n.issuer_gid[15] = 0x01;
	LC_GOLDEN(mpd_notice_layout, struct mpd_notice, &n, want);
}

int
main(void)
{
	size_t i;

	tap_seed();
	for (i = 0; i < N(attrs); i++) {
		lc_check_layout(attrs[i].l, attrs[i].size);
		lc_check_codec(attrs[i].l, attrs[i].size, ITERS);
	}
	golden_node_info();
	golden_node_desc();
	golden_switch_info();
	golden_guid_info();
	golden_port_info();
	golden_tables();
	golden_sm_info();
	golden_notice();

	/* wire sizes from the IBA tables */
	is_int(mpd_port_info_layout.wire_len, 64, "PortInfo is 64 bytes");
	is_int(mpd_node_desc_layout.wire_len, 64,
	       "NodeDescription is 64 bytes");
	is_int(mpd_notice_layout.wire_len, 80, "Notice is 80 bytes");
	is_int(mpd_pkey_table_layout.nfields, 32, "P_KeyTable has 32 keys");
	is_int(mpd_vl_arb_table_layout.nfields, 64,
	       "VLArbitrationTable has 32 VL/weight pairs");
	is_int(mpd_lft_block_layout.nfields, 64, "LFT block has 64 ports");
	is_int(mpd_mft_block_layout.nfields, 32, "MFT block has 32 masks");
	return tap_done();
}
