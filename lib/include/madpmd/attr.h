/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd wire codec: SMP attributes (IBA 14.2.5) and PerfMgt attributes
 * (IBA 16.1.3), as host structs with their wire layouts.
 *
 * Encode with mpd_layout_encode(&mpd_<attr>_layout, &obj, buf, cap) and
 * decode with mpd_layout_decode(); every layout's wire_len is the
 * attribute's size on the wire.
 */
#ifndef MADPMD_ATTR_H
#define MADPMD_ATTR_H

#include <stdint.h>

#include "madpmd/field.h"
#include "madpmd/mad.h"	/* MPD_PKEY_FULL */

#ifdef __cplusplus
extern "C" {
#endif

/* Node types (IBA 14.2.5.3) */
#define MPD_NODE_TYPE_CA	1
#define MPD_NODE_TYPE_SWITCH	2
#define MPD_NODE_TYPE_ROUTER	3

/* NodeInfo (IBA 14.2.5.3), 40 bytes */
struct mpd_node_info {
	uint8_t base_version;
	uint8_t class_version;
	uint8_t node_type;
	uint8_t num_ports;
	uint64_t sys_image_guid;
	uint64_t node_guid;
	uint64_t port_guid;
	uint16_t partition_cap;
	uint16_t device_id;
	uint32_t revision;
	uint8_t local_port_num;
	uint32_t vendor_id;	/* 24 bits */
};
extern const struct mpd_layout mpd_node_info_layout;

/* NodeDescription (IBA 14.2.5.2): 64 bytes of UTF-8, NUL padded */
#define MPD_NODE_DESC_LEN	64
struct mpd_node_desc {
	char desc[MPD_NODE_DESC_LEN];
};
extern const struct mpd_layout mpd_node_desc_layout;

/* SwitchInfo (IBA 14.2.5.4), 20 bytes */
struct mpd_switch_info {
	uint16_t linear_fdb_cap;
	uint16_t random_fdb_cap;
	uint16_t multicast_fdb_cap;
	uint16_t linear_fdb_top;
	uint8_t default_port;
	uint8_t default_mcast_primary_port;
	uint8_t default_mcast_not_primary_port;
	uint8_t life_time_value;		/* 5 bits */
	uint8_t port_state_change;		/* 1 bit */
	uint8_t optimized_sl2vl_programming;	/* 2 bits */
	uint16_t lids_per_port;
	uint16_t partition_enforcement_cap;
	uint8_t inbound_enforcement_cap;	/* 1 bit */
	uint8_t outbound_enforcement_cap;	/* 1 bit */
	uint8_t filter_raw_inbound_cap;		/* 1 bit */
	uint8_t filter_raw_outbound_cap;	/* 1 bit */
	uint8_t enhanced_port0;			/* 1 bit */
	uint16_t multicast_fdb_top;
};
extern const struct mpd_layout mpd_switch_info_layout;

/* GUIDInfo (IBA 14.2.5.5): one block of 8 GUIDs, 64 bytes */
#define MPD_GUID_INFO_BLOCK	8
struct mpd_guid_info {
	uint64_t guid[MPD_GUID_INFO_BLOCK];
};
extern const struct mpd_layout mpd_guid_info_layout;

/* PortState, PortPhysicalState (IBA 14.2.5.6) */
#define MPD_PORT_STATE_NOP	0
#define MPD_PORT_STATE_DOWN	1
#define MPD_PORT_STATE_INIT	2
#define MPD_PORT_STATE_ARMED	3
#define MPD_PORT_STATE_ACTIVE	4
#define MPD_PHYS_STATE_NOP	0
#define MPD_PHYS_STATE_SLEEP	1
#define MPD_PHYS_STATE_POLLING	2
#define MPD_PHYS_STATE_DISABLED	3
#define MPD_PHYS_STATE_TRAINING	4
#define MPD_PHYS_STATE_LINKUP	5
#define MPD_PHYS_STATE_ERROR_RECOVERY 6

/* PortInfo (IBA 14.2.5.6), 64 bytes */
struct mpd_port_info {
	uint64_t m_key;
	uint64_t gid_prefix;
	uint16_t lid;
	uint16_t master_sm_lid;
	uint32_t capability_mask;
	uint16_t diag_code;
	uint16_t m_key_lease_period;
	uint8_t local_port_num;
	uint8_t link_width_enabled;
	uint8_t link_width_supported;
	uint8_t link_width_active;
	uint8_t link_speed_supported;		/* 4 bits */
	uint8_t port_state;			/* 4 bits */
	uint8_t port_phys_state;		/* 4 bits */
	uint8_t link_down_default_state;	/* 4 bits */
	uint8_t m_key_protect_bits;		/* 2 bits */
	uint8_t lmc;				/* 3 bits */
	uint8_t link_speed_active;		/* 4 bits */
	uint8_t link_speed_enabled;		/* 4 bits */
	uint8_t neighbor_mtu;			/* 4 bits */
	uint8_t master_sm_sl;			/* 4 bits */
	uint8_t vl_cap;				/* 4 bits */
	uint8_t init_type;			/* 4 bits */
	uint8_t vl_high_limit;
	uint8_t vl_arb_high_cap;
	uint8_t vl_arb_low_cap;
	uint8_t init_type_reply;		/* 4 bits */
	uint8_t mtu_cap;			/* 4 bits */
	uint8_t vl_stall_count;			/* 3 bits */
	uint8_t hoq_life;			/* 5 bits */
	uint8_t operational_vls;		/* 4 bits */
	uint8_t partition_enforcement_inbound;	/* 1 bit */
	uint8_t partition_enforcement_outbound;	/* 1 bit */
	uint8_t filter_raw_inbound;		/* 1 bit */
	uint8_t filter_raw_outbound;		/* 1 bit */
	uint16_t m_key_violations;
	uint16_t p_key_violations;
	uint16_t q_key_violations;
	uint8_t guid_cap;
	uint8_t client_reregister;		/* 1 bit */
	uint8_t mcast_pkey_trap_suppression;	/* 2 bits */
	uint8_t subnet_timeout;			/* 5 bits */
	uint8_t resp_time_value;		/* 5 bits */
	uint8_t local_phy_errors;		/* 4 bits */
	uint8_t overrun_errors;			/* 4 bits */
	uint16_t max_credit_hint;
	uint32_t link_round_trip_latency;	/* 24 bits */
	uint16_t capability_mask2;
	uint8_t link_speed_ext_active;		/* 4 bits */
	uint8_t link_speed_ext_supported;	/* 4 bits */
	uint8_t link_speed_ext_enabled;		/* 5 bits */
};
extern const struct mpd_layout mpd_port_info_layout;

/* P_KeyTable (IBA 14.2.5.7): one block of 32 P_Keys, 64 bytes; bit 15
 * of each is the membership type (1: full). AttributeModifier: the block
 * in bits 15:0; on a switch the port in bits 31:16 */
#define MPD_PKEY_BLOCK		32
#define MPD_PKEY_MOD_BLOCK_MASK	0xffffu
#define MPD_PKEY_MOD_PORT_SHIFT	16
struct mpd_pkey_table {
	uint16_t p_key[MPD_PKEY_BLOCK];
};
extern const struct mpd_layout mpd_pkey_table_layout;

/* SLtoVLMappingTable (IBA 14.2.5.8): VL (4 bits) for each of 16 SLs,
 * 8 bytes. AttributeModifier on a switch: output port in bits 7:0, input
 * port in bits 15:8 */
#define MPD_SL2VL_MOD_PORT_MASK	0xffu
struct mpd_sl2vl_table {
	uint8_t vl[16];
};
extern const struct mpd_layout mpd_sl2vl_table_layout;

/* VLArbitrationTable (IBA 14.2.5.9): one block of 32 entries, 64 bytes.
 * AttributeModifier: the block (1-4) in bits 31:16; on a switch the
 * output port in bits 15:0 */
#define MPD_VL_ARB_BLOCK	32
#define MPD_VL_ARB_MOD_BLOCK_SHIFT 16
#define MPD_VL_ARB_MOD_PORT_MASK 0xffffu
struct mpd_vl_arb_entry {
	uint8_t vl;		/* 4 bits */
	uint8_t weight;
};
struct mpd_vl_arb_table {
	struct mpd_vl_arb_entry entry[MPD_VL_ARB_BLOCK];
};
extern const struct mpd_layout mpd_vl_arb_table_layout;

/* LinearForwardingTable (IBA 14.2.5.10): output ports of 64 LIDs; the
 * block is the AttributeModifier. Port 255 is "no port": discard */
#define MPD_LFT_BLOCK		64
#define MPD_LFT_PORT_NONE	0xff
struct mpd_lft_block {
	uint8_t port[MPD_LFT_BLOCK];
};
extern const struct mpd_layout mpd_lft_block_layout;

/* MulticastForwardingTable (IBA 14.2.5.12): 16-bit port masks of 32
 * MLIDs, 64 bytes. AttributeModifier: the PortMask position (ports
 * 16*pos .. 16*pos+15) in bits 31:28, the block of 32 MLIDs (block 0
 * starts at MLID 0xC000) in bits 8:0 */
#define MPD_MFT_BLOCK		32
#define MPD_MFT_POSITION_PORTS	16
#define MPD_MFT_MOD_POS_SHIFT	28
#define MPD_MFT_MOD_BLOCK_MASK	0x1ffu
struct mpd_mft_block {
	uint16_t port_mask[MPD_MFT_BLOCK];
};
extern const struct mpd_layout mpd_mft_block_layout;

/* SMInfo (IBA 14.2.5.13), 21 bytes */
#define MPD_SM_STATE_NOT_ACTIVE	0
#define MPD_SM_STATE_DISCOVERING 1
#define MPD_SM_STATE_STANDBY	2
#define MPD_SM_STATE_MASTER	3
struct mpd_sm_info {
	uint64_t guid;
	uint64_t sm_key;
	uint32_t act_count;
	uint8_t priority;	/* 4 bits */
	uint8_t sm_state;	/* 4 bits */
};
extern const struct mpd_layout mpd_sm_info_layout;

/*
 * Notice (IBA 13.4.8.2), 80 bytes. An SMP trap carries only the first 64
 * (its data area is 64 bytes, IBA 14.2.1.1), so no IssuerGID; GMPs such
 * as SA Report() carry all 80.
 */
#define MPD_NOTICE_LEN		80
#define MPD_NOTICE_SMP_LEN	64
#define MPD_NOTICE_DETAILS_LEN	54
struct mpd_notice {
	uint8_t is_generic;		/* 1 bit */
	uint8_t type;			/* 7 bits */
	uint32_t producer_type;		/* 24 bits; VendorID when !is_generic */
	uint16_t trap_number;		/* DeviceID when !is_generic */
	uint16_t issuer_lid;
	uint8_t notice_toggle;		/* 1 bit */
	uint16_t notice_count;		/* 15 bits */
	uint8_t data_details[MPD_NOTICE_DETAILS_LEN];
	uint8_t issuer_gid[16];
};
extern const struct mpd_layout mpd_notice_layout;

/* ---- PerfMgt (IBA 16.1), attribute data at MAD byte 64 ---------------- */

/* ClassPortInfo (IBA 13.4.8.1), common to all GSI classes, 72 bytes */
struct mpd_class_port_info {
	uint8_t base_version;
	uint8_t class_version;
	uint16_t capability_mask;
	uint32_t capability_mask2;	/* 27 bits */
	uint8_t resp_time_value;	/* 5 bits */
	uint8_t redirect_gid[16];
	uint8_t redirect_tc;
	uint8_t redirect_sl;		/* 4 bits */
	uint32_t redirect_fl;		/* 20 bits */
	uint16_t redirect_lid;
	uint16_t redirect_pkey;
	uint32_t redirect_qp;		/* 24 bits */
	uint32_t redirect_qkey;
	uint8_t trap_gid[16];
	uint8_t trap_tc;
	uint8_t trap_sl;		/* 4 bits */
	uint32_t trap_fl;		/* 20 bits */
	uint16_t trap_lid;
	uint16_t trap_pkey;
	uint8_t trap_hl;
	uint32_t trap_qp;		/* 24 bits */
	uint32_t trap_qkey;
};
extern const struct mpd_layout mpd_class_port_info_layout;

/* PortCounters (IBA 16.1.3.5), 44 bytes */
struct mpd_port_counters {
	uint8_t port_select;
	uint16_t counter_select;
	uint16_t symbol_error_counter;
	uint8_t link_error_recovery_counter;
	uint8_t link_downed_counter;
	uint16_t port_rcv_errors;
	uint16_t port_rcv_remote_physical_errors;
	uint16_t port_rcv_switch_relay_errors;
	uint16_t port_xmit_discards;
	uint8_t port_xmit_constraint_errors;
	uint8_t port_rcv_constraint_errors;
	uint8_t counter_select2;
	uint8_t local_link_integrity_errors;	/* 4 bits */
	uint8_t excessive_buffer_overrun_errors; /* 4 bits */
	uint16_t qp1_dropped;
	uint16_t vl15_dropped;
	uint32_t port_xmit_data;
	uint32_t port_rcv_data;
	uint32_t port_xmit_pkts;
	uint32_t port_rcv_pkts;
	uint32_t port_xmit_wait;
};
extern const struct mpd_layout mpd_port_counters_layout;

/* PortCountersExtended (IBA 16.1.4), 72 bytes */
struct mpd_port_counters_ext {
	uint8_t port_select;
	uint16_t counter_select;
	uint64_t port_xmit_data;
	uint64_t port_rcv_data;
	uint64_t port_xmit_pkts;
	uint64_t port_rcv_pkts;
	uint64_t port_unicast_xmit_pkts;
	uint64_t port_unicast_rcv_pkts;
	uint64_t port_multicast_xmit_pkts;
	uint64_t port_multicast_rcv_pkts;
};
extern const struct mpd_layout mpd_port_counters_ext_layout;

/* PortRcvErrorDetails (IBA 16.1.4), 16 bytes: what PortRcvErrors is made
 * of; CounterSelect bit n selects the n-th counter */
struct mpd_port_rcv_error_details {
	uint8_t port_select;
	uint16_t counter_select;
	uint16_t port_local_physical_errors;
	uint16_t port_malformed_packet_errors;
	uint16_t port_buffer_overrun_errors;
	uint16_t port_dlid_mapping_errors;
	uint16_t port_vl_mapping_errors;
	uint16_t port_looping_errors;
};
extern const struct mpd_layout mpd_port_rcv_error_details_layout;

/* PortXmitDiscardDetails (IBA 16.1.4), 12 bytes: why PortXmitDiscards
 * moved; CounterSelect bit n selects the n-th counter */
struct mpd_port_xmit_discard_details {
	uint8_t port_select;
	uint16_t counter_select;
	uint16_t port_inactive_discards;
	uint16_t port_neighbor_mtu_discards;
	uint16_t port_sw_lifetime_limit_discards;
	uint16_t port_sw_hoq_lifetime_limit_discards;
};
extern const struct mpd_layout mpd_port_xmit_discard_details_layout;

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_ATTR_H */
