/* SPDX-License-Identifier: BSD-3-Clause */
/* SMP attribute layouts (IBA 14.2.5). */
#include "madpmd/attr.h"

#define F(m, o, w) MPD_FIELD(struct mpd_node_info, m, o, w)
static const struct mpd_field node_info_fields[] = {	/* IBA 14.2.5.3 */
	F(base_version, 0, 8),
	F(class_version, 8, 8),
	F(node_type, 16, 8),
	F(num_ports, 24, 8),
	F(sys_image_guid, 32, 64),
	F(node_guid, 96, 64),
	F(port_guid, 160, 64),
	F(partition_cap, 224, 16),
	F(device_id, 240, 16),
	F(revision, 256, 32),
	F(local_port_num, 288, 8),
	F(vendor_id, 296, 24),
};
#undef F
const struct mpd_layout mpd_node_info_layout =
	MPD_LAYOUT("NodeInfo", 40, node_info_fields);

/*
 * Tables are arrays in the host structs and one field per element here.
 * X(i) is expanded for the literal indices 0..n-1 so member names read
 * "p_key[12]" in diagnostics.
 */
#define REP10(X, d)	X(d##0) X(d##1) X(d##2) X(d##3) X(d##4)		\
			X(d##5) X(d##6) X(d##7) X(d##8) X(d##9)
#define REP8(X)		X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define REP16(X)	REP10(X, ) X(10) X(11) X(12) X(13) X(14) X(15)
#define REP32(X)	REP10(X, ) REP10(X, 1) REP10(X, 2) X(30) X(31)
#define REP64(X)	REP10(X, ) REP10(X, 1) REP10(X, 2) REP10(X, 3)	\
			REP10(X, 4) REP10(X, 5) X(60) X(61) X(62) X(63)

static const struct mpd_field node_desc_fields[] = {	/* IBA 14.2.5.2 */
	MPD_FIELD_BYTES(struct mpd_node_desc, desc, 0),
};
const struct mpd_layout mpd_node_desc_layout =
	MPD_LAYOUT("NodeDescription", MPD_NODE_DESC_LEN, node_desc_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_switch_info, m, o, w)
static const struct mpd_field switch_info_fields[] = {	/* IBA 14.2.5.4 */
	F(linear_fdb_cap, 0, 16),
	F(random_fdb_cap, 16, 16),
	F(multicast_fdb_cap, 32, 16),
	F(linear_fdb_top, 48, 16),
	F(default_port, 64, 8),
	F(default_mcast_primary_port, 72, 8),
	F(default_mcast_not_primary_port, 80, 8),
	F(life_time_value, 88, 5),
	F(port_state_change, 93, 1),
	F(optimized_sl2vl_programming, 94, 2),
	F(lids_per_port, 96, 16),
	F(partition_enforcement_cap, 112, 16),
	F(inbound_enforcement_cap, 128, 1),
	F(outbound_enforcement_cap, 129, 1),
	F(filter_raw_inbound_cap, 130, 1),
	F(filter_raw_outbound_cap, 131, 1),
	F(enhanced_port0, 132, 1),
	/* 133..143 reserved */
	F(multicast_fdb_top, 144, 16),
};
#undef F
const struct mpd_layout mpd_switch_info_layout =
	MPD_LAYOUT("SwitchInfo", 20, switch_info_fields);

#define X(i) MPD_FIELD(struct mpd_guid_info, guid[i], 64 * (i), 64),
static const struct mpd_field guid_info_fields[] = {	/* IBA 14.2.5.5 */
	REP8(X)
};
#undef X
const struct mpd_layout mpd_guid_info_layout =
	MPD_LAYOUT("GUIDInfo", 64, guid_info_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_port_info, m, o, w)
static const struct mpd_field port_info_fields[] = {	/* IBA 14.2.5.6 */
	F(m_key, 0, 64),
	F(gid_prefix, 64, 64),
	F(lid, 128, 16),
	F(master_sm_lid, 144, 16),
	F(capability_mask, 160, 32),
	F(diag_code, 192, 16),
	F(m_key_lease_period, 208, 16),
	F(local_port_num, 224, 8),
	F(link_width_enabled, 232, 8),
	F(link_width_supported, 240, 8),
	F(link_width_active, 248, 8),
	F(link_speed_supported, 256, 4),
	F(port_state, 260, 4),
	F(port_phys_state, 264, 4),
	F(link_down_default_state, 268, 4),
	F(m_key_protect_bits, 272, 2),
	/* 274..276 reserved */
	F(lmc, 277, 3),
	F(link_speed_active, 280, 4),
	F(link_speed_enabled, 284, 4),
	F(neighbor_mtu, 288, 4),
	F(master_sm_sl, 292, 4),
	F(vl_cap, 296, 4),
	F(init_type, 300, 4),
	F(vl_high_limit, 304, 8),
	F(vl_arb_high_cap, 312, 8),
	F(vl_arb_low_cap, 320, 8),
	F(init_type_reply, 328, 4),
	F(mtu_cap, 332, 4),
	F(vl_stall_count, 336, 3),
	F(hoq_life, 339, 5),
	F(operational_vls, 344, 4),
	F(partition_enforcement_inbound, 348, 1),
	F(partition_enforcement_outbound, 349, 1),
	F(filter_raw_inbound, 350, 1),
	F(filter_raw_outbound, 351, 1),
	F(m_key_violations, 352, 16),
	F(p_key_violations, 368, 16),
	F(q_key_violations, 384, 16),
	F(guid_cap, 400, 8),
	F(client_reregister, 408, 1),
	F(mcast_pkey_trap_suppression, 409, 2),
	F(subnet_timeout, 411, 5),
	/* 416..418 reserved */
	F(resp_time_value, 419, 5),
	F(local_phy_errors, 424, 4),
	F(overrun_errors, 428, 4),
	F(max_credit_hint, 432, 16),
	/* 448..455 reserved */
	F(link_round_trip_latency, 456, 24),
	F(capability_mask2, 480, 16),
	F(link_speed_ext_active, 496, 4),
	F(link_speed_ext_supported, 500, 4),
	/* 504..506 reserved */
	F(link_speed_ext_enabled, 507, 5),
};
#undef F
const struct mpd_layout mpd_port_info_layout =
	MPD_LAYOUT("PortInfo", 64, port_info_fields);

#define X(i) MPD_FIELD(struct mpd_pkey_table, p_key[i], 16 * (i), 16),
static const struct mpd_field pkey_table_fields[] = {	/* IBA 14.2.5.7 */
	REP32(X)
};
#undef X
const struct mpd_layout mpd_pkey_table_layout =
	MPD_LAYOUT("P_KeyTable", 64, pkey_table_fields);

/* SL i's VL sits in bits 4i..4i+3: SL0 in the high nibble of byte 0 */
#define X(i) MPD_FIELD(struct mpd_sl2vl_table, vl[i], 4 * (i), 4),
static const struct mpd_field sl2vl_table_fields[] = {	/* IBA 14.2.5.8 */
	REP16(X)
};
#undef X
const struct mpd_layout mpd_sl2vl_table_layout =
	MPD_LAYOUT("SLtoVLMappingTable", 8, sl2vl_table_fields);

/* Each entry: 4 reserved bits, VL (4 bits), Weight (8 bits) */
#define X(i)								\
	MPD_FIELD(struct mpd_vl_arb_table, entry[i].vl, 16 * (i) + 4, 4), \
	MPD_FIELD(struct mpd_vl_arb_table, entry[i].weight, 16 * (i) + 8, 8),
static const struct mpd_field vl_arb_table_fields[] = {	/* IBA 14.2.5.9 */
	REP32(X)
};
#undef X
const struct mpd_layout mpd_vl_arb_table_layout =
	MPD_LAYOUT("VLArbitrationTable", 64, vl_arb_table_fields);

#define X(i) MPD_FIELD(struct mpd_lft_block, port[i], 8 * (i), 8),
static const struct mpd_field lft_block_fields[] = {	/* IBA 14.2.5.10 */
	REP64(X)
};
#undef X
const struct mpd_layout mpd_lft_block_layout =
	MPD_LAYOUT("LinearForwardingTable", 64, lft_block_fields);

#define X(i) MPD_FIELD(struct mpd_mft_block, port_mask[i], 16 * (i), 16),
static const struct mpd_field mft_block_fields[] = {	/* IBA 14.2.5.12 */
	REP32(X)
};
#undef X
const struct mpd_layout mpd_mft_block_layout =
	MPD_LAYOUT("MulticastForwardingTable", 64, mft_block_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_sm_info, m, o, w)
static const struct mpd_field sm_info_fields[] = {	/* IBA 14.2.5.13 */
	F(guid, 0, 64),
	F(sm_key, 64, 64),
	F(act_count, 128, 32),
	F(priority, 160, 4),
	F(sm_state, 164, 4),
};
#undef F
const struct mpd_layout mpd_sm_info_layout =
	MPD_LAYOUT("SMInfo", 21, sm_info_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_notice, m, o, w)
static const struct mpd_field notice_fields[] = {	/* IBA 13.4.8.2 */
	F(is_generic, 0, 1),
	F(type, 1, 7),
	F(producer_type, 8, 24),
	F(trap_number, 32, 16),
	F(issuer_lid, 48, 16),
	F(notice_toggle, 64, 1),
	F(notice_count, 65, 15),
	MPD_FIELD_BYTES(struct mpd_notice, data_details, 80),
	MPD_FIELD_BYTES(struct mpd_notice, issuer_gid, 512),
};
#undef F
const struct mpd_layout mpd_notice_layout =
	MPD_LAYOUT("Notice", MPD_NOTICE_LEN, notice_fields);
