/* SPDX-License-Identifier: BSD-3-Clause */
/* PerfMgt attribute layouts (IBA 16.1) and the common ClassPortInfo. */
#include "madpmd/attr.h"

#define F(m, o, w) MPD_FIELD(struct mpd_class_port_info, m, o, w)
#define B(m, o) MPD_FIELD_BYTES(struct mpd_class_port_info, m, o)
static const struct mpd_field class_port_info_fields[] = { /* IBA 13.4.8.1 */
	F(base_version, 0, 8),
	F(class_version, 8, 8),
	F(capability_mask, 16, 16),
	F(capability_mask2, 32, 27),
	F(resp_time_value, 59, 5),
	B(redirect_gid, 64),
	F(redirect_tc, 192, 8),
	F(redirect_sl, 200, 4),
	F(redirect_fl, 204, 20),
	F(redirect_lid, 224, 16),
	F(redirect_pkey, 240, 16),
	/* 256..263 reserved */
	F(redirect_qp, 264, 24),
	F(redirect_qkey, 288, 32),
	B(trap_gid, 320),
	F(trap_tc, 448, 8),
	F(trap_sl, 456, 4),
	F(trap_fl, 460, 20),
	F(trap_lid, 480, 16),
	F(trap_pkey, 496, 16),
	F(trap_hl, 512, 8),
	F(trap_qp, 520, 24),
	F(trap_qkey, 544, 32),
};
#undef B
#undef F
const struct mpd_layout mpd_class_port_info_layout =
	MPD_LAYOUT("ClassPortInfo", 72, class_port_info_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_port_counters, m, o, w)
static const struct mpd_field port_counters_fields[] = {	/* IBA 16.1.3.5 */
	/* 0..7 reserved */
	F(port_select, 8, 8),
	F(counter_select, 16, 16),
	F(symbol_error_counter, 32, 16),
	F(link_error_recovery_counter, 48, 8),
	F(link_downed_counter, 56, 8),
	F(port_rcv_errors, 64, 16),
	F(port_rcv_remote_physical_errors, 80, 16),
	F(port_rcv_switch_relay_errors, 96, 16),
	F(port_xmit_discards, 112, 16),
	F(port_xmit_constraint_errors, 128, 8),
	F(port_rcv_constraint_errors, 136, 8),
	F(counter_select2, 144, 8),
	F(local_link_integrity_errors, 152, 4),
	F(excessive_buffer_overrun_errors, 156, 4),
	F(qp1_dropped, 160, 16),
	F(vl15_dropped, 176, 16),
	F(port_xmit_data, 192, 32),
	F(port_rcv_data, 224, 32),
	F(port_xmit_pkts, 256, 32),
	F(port_rcv_pkts, 288, 32),
	F(port_xmit_wait, 320, 32),
};
#undef F
const struct mpd_layout mpd_port_counters_layout =
	MPD_LAYOUT("PortCounters", 44, port_counters_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_port_counters_ext, m, o, w)
static const struct mpd_field port_counters_ext_fields[] = { /* IBA 16.1.4 */
	/* 0..7 reserved */
	F(port_select, 8, 8),
	F(counter_select, 16, 16),
	/* 32..63 reserved */
	F(port_xmit_data, 64, 64),
	F(port_rcv_data, 128, 64),
	F(port_xmit_pkts, 192, 64),
	F(port_rcv_pkts, 256, 64),
	F(port_unicast_xmit_pkts, 320, 64),
	F(port_unicast_rcv_pkts, 384, 64),
	F(port_multicast_xmit_pkts, 448, 64),
	F(port_multicast_rcv_pkts, 512, 64),
};
#undef F
const struct mpd_layout mpd_port_counters_ext_layout =
	MPD_LAYOUT("PortCountersExtended", 72, port_counters_ext_fields);

/* IBA 16.1.4 */
#define F(m, o, w) MPD_FIELD(struct mpd_port_rcv_error_details, m, o, w)
static const struct mpd_field port_rcv_error_details_fields[] = {
	/* 0..7 reserved */
	F(port_select, 8, 8),
	F(counter_select, 16, 16),
	F(port_local_physical_errors, 32, 16),
	F(port_malformed_packet_errors, 48, 16),
	F(port_buffer_overrun_errors, 64, 16),
	F(port_dlid_mapping_errors, 80, 16),
	F(port_vl_mapping_errors, 96, 16),
	F(port_looping_errors, 112, 16),
};
#undef F
const struct mpd_layout mpd_port_rcv_error_details_layout =
	MPD_LAYOUT("PortRcvErrorDetails", 16, port_rcv_error_details_fields);

/* IBA 16.1.4 */
#define F(m, o, w) MPD_FIELD(struct mpd_port_xmit_discard_details, m, o, w)
static const struct mpd_field port_xmit_discard_details_fields[] = {
	/* 0..7 reserved */
	F(port_select, 8, 8),
	F(counter_select, 16, 16),
	F(port_inactive_discards, 32, 16),
	F(port_neighbor_mtu_discards, 48, 16),
	F(port_sw_lifetime_limit_discards, 64, 16),
	F(port_sw_hoq_lifetime_limit_discards, 80, 16),
};
#undef F
const struct mpd_layout mpd_port_xmit_discard_details_layout =
	MPD_LAYOUT("PortXmitDiscardDetails", 12,
		   port_xmit_discard_details_fields);
