/* SPDX-License-Identifier: BSD-3-Clause */
/* SA record layouts (IBA 15.2.5). */
#include "madpmd/sa.h"

/* NodeRecord: NodeInfo sits at byte 4, so its IBA 14.2.5.3 bit offsets
 * move by 32; NodeDescription follows at byte 44. */
#define F(m, o, w) MPD_FIELD(struct mpd_node_record, m, o, w)
#define NI(m, o, w) F(node_info.m, 32 + (o), w)
static const struct mpd_field node_record_fields[] = {	/* IBA 15.2.5.2 */
	F(lid, 0, 16),
	NI(base_version, 0, 8),
	NI(class_version, 8, 8),
	NI(node_type, 16, 8),
	NI(num_ports, 24, 8),
	NI(sys_image_guid, 32, 64),
	NI(node_guid, 96, 64),
	NI(port_guid, 160, 64),
	NI(partition_cap, 224, 16),
	NI(device_id, 240, 16),
	NI(revision, 256, 32),
	NI(local_port_num, 288, 8),
	NI(vendor_id, 296, 24),
	MPD_FIELD_BYTES(struct mpd_node_record, node_desc, 352),
};
#undef NI
#undef F
const struct mpd_layout mpd_node_record_layout =
	MPD_LAYOUT("NodeRecord", 108, node_record_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_port_info_record, m, o, w)
static const struct mpd_field port_info_record_fields[] = { /* 15.2.5.3 */
	F(endport_lid, 0, 16),
	F(port_num, 16, 8),
	F(options, 24, 8),
	MPD_FIELD_BYTES(struct mpd_port_info_record, port_info, 32),
};
#undef F
const struct mpd_layout mpd_port_info_record_layout =
	MPD_LAYOUT("PortInfoRecord", 68, port_info_record_fields);

/* ServiceData arrays: 16 x 8 bits at byte 112, 8 x 16 at 128, 4 x 32 at
 * 144, 2 x 64 at 160; element 0 first. */
#define F(m, o, w) MPD_FIELD(struct mpd_service_record, m, o, w)
#define D8(i) F(service_data8[i], 896 + 8 * (i), 8)
#define D16(i) F(service_data16[i], 1024 + 16 * (i), 16)
#define D32(i) F(service_data32[i], 1152 + 32 * (i), 32)
#define D64(i) F(service_data64[i], 1280 + 64 * (i), 64)
static const struct mpd_field service_record_fields[] = { /* 15.2.5.14 */
	F(service_id, 0, 64),
	MPD_FIELD_BYTES(struct mpd_service_record, service_gid, 64),
	F(service_pkey, 192, 16),
	/* 208: 16 bits reserved */
	F(service_lease, 224, 32),
	MPD_FIELD_BYTES(struct mpd_service_record, service_key, 256),
	MPD_FIELD_BYTES(struct mpd_service_record, service_name, 384),
	D8(0), D8(1), D8(2), D8(3), D8(4), D8(5), D8(6), D8(7),
	D8(8), D8(9), D8(10), D8(11), D8(12), D8(13), D8(14), D8(15),
	D16(0), D16(1), D16(2), D16(3), D16(4), D16(5), D16(6), D16(7),
	D32(0), D32(1), D32(2), D32(3),
	D64(0), D64(1),
};
#undef D64
#undef D32
#undef D16
#undef D8
#undef F
const struct mpd_layout mpd_service_record_layout =
	MPD_LAYOUT("ServiceRecord", 176, service_record_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_path_record, m, o, w)
static const struct mpd_field path_record_fields[] = {	/* IBA 15.2.5.16 */
	F(service_id, 0, 64),
	MPD_FIELD_BYTES(struct mpd_path_record, dgid, 64),
	MPD_FIELD_BYTES(struct mpd_path_record, sgid, 192),
	F(dlid, 320, 16),
	F(slid, 336, 16),
	F(raw_traffic, 352, 1),
	/* 353: 3 bits reserved */
	F(flow_label, 356, 20),
	F(hop_limit, 376, 8),
	F(tclass, 384, 8),
	F(reversible, 392, 1),
	F(numb_path, 393, 7),
	F(pkey, 400, 16),
	F(qos_class, 416, 12),
	F(sl, 428, 4),
	F(mtu_selector, 432, 2),
	F(mtu, 434, 6),
	F(rate_selector, 440, 2),
	F(rate, 442, 6),
	F(pkt_life_selector, 448, 2),
	F(pkt_life, 450, 6),
	F(preference, 456, 8),
	/* 464: 48 bits reserved */
};
#undef F
const struct mpd_layout mpd_path_record_layout =
	MPD_LAYOUT("PathRecord", 64, path_record_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_mcmember_record, m, o, w)
static const struct mpd_field mcmember_record_fields[] = { /* 15.2.5.17 */
	MPD_FIELD_BYTES(struct mpd_mcmember_record, mgid, 0),
	MPD_FIELD_BYTES(struct mpd_mcmember_record, port_gid, 128),
	F(qkey, 256, 32),
	F(mlid, 288, 16),
	F(mtu_selector, 304, 2),
	F(mtu, 306, 6),
	F(tclass, 312, 8),
	F(pkey, 320, 16),
	F(rate_selector, 336, 2),
	F(rate, 338, 6),
	F(pkt_life_selector, 344, 2),
	F(pkt_life, 346, 6),
	F(sl, 352, 4),
	F(flow_label, 356, 20),
	F(hop_limit, 376, 8),
	F(scope, 384, 4),
	F(join_state, 388, 4),
	F(proxy_join, 392, 1),
	/* 393: 23 bits reserved */
};
#undef F
const struct mpd_layout mpd_mcmember_record_layout =
	MPD_LAYOUT("MCMemberRecord", 52, mcmember_record_fields);
