/* SPDX-License-Identifier: BSD-3-Clause */
/* CM message layouts (IBA 12.6, 12.8, 12.11); offsets from the CM data. */
#include "madpmd/cm.h"

#define PDATA(type, off) MPD_FIELD_BYTES(type, private_data, off)

/* A REQ path (IBA 12.6.5): 44 bytes starting at byte b of the message. */
#define REQ_PATH(p, b)							\
	F(p.local_lid, 8 * (b), 16),					\
	F(p.remote_lid, 8 * ((b) + 2), 16),				\
	MPD_FIELD_BYTES(struct mpd_cm_req, p.local_gid, 8 * ((b) + 4)),	\
	MPD_FIELD_BYTES(struct mpd_cm_req, p.remote_gid, 8 * ((b) + 20)), \
	F(p.flow_label, 8 * ((b) + 36), 20),				\
	F(p.packet_rate, 8 * ((b) + 39) + 2, 6),			\
	F(p.tclass, 8 * ((b) + 40), 8),					\
	F(p.hop_limit, 8 * ((b) + 41), 8),				\
	F(p.sl, 8 * ((b) + 42), 4),					\
	F(p.subnet_local, 8 * ((b) + 42) + 4, 1),			\
	F(p.local_ack_timeout, 8 * ((b) + 43), 5)

#define F(m, o, w) MPD_FIELD(struct mpd_cm_req, m, o, w)
static const struct mpd_field req_fields[] = {	/* IBA 12.6.5 */
	F(local_comm_id, 0, 32),
	/* 32: 8 bits reserved */
	F(vendor_id, 40, 24),
	F(service_id, 64, 64),
	F(local_ca_guid, 128, 64),
	/* 192: 32 bits reserved */
	F(local_qkey, 224, 32),
	F(local_qpn, 256, 24),
	F(resp_resources, 280, 8),
	F(local_eecn, 288, 24),
	F(initiator_depth, 312, 8),
	F(remote_eecn, 320, 24),
	F(remote_cm_resp_timeout, 344, 5),
	F(transport_type, 349, 2),
	F(e2e_flow_ctrl, 351, 1),
	F(starting_psn, 352, 24),
	F(local_cm_resp_timeout, 376, 5),
	F(retry_count, 381, 3),
	F(pkey, 384, 16),
	F(path_mtu, 400, 4),
	F(rdc_exists, 404, 1),
	F(rnr_retry_count, 405, 3),
	F(max_cm_retries, 408, 4),
	F(srq, 412, 1),
	F(ext_transport_type, 413, 3),
	REQ_PATH(primary, 52),
	REQ_PATH(alternate, 96),
	F(sap_supported, 1117, 1),
	PDATA(struct mpd_cm_req, 1120),
};
#undef F
const struct mpd_layout mpd_cm_req_layout =
	MPD_LAYOUT("REQ", MPD_CM_DATA_LEN, req_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_cm_mra, m, o, w)
static const struct mpd_field mra_fields[] = {	/* IBA 12.6.6 */
	F(local_comm_id, 0, 32),
	F(remote_comm_id, 32, 32),
	F(msg_mraed, 64, 2),
	F(service_timeout, 72, 5),
	PDATA(struct mpd_cm_mra, 80),
};
#undef F
const struct mpd_layout mpd_cm_mra_layout =
	MPD_LAYOUT("MRA", MPD_CM_DATA_LEN, mra_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_cm_rej, m, o, w)
static const struct mpd_field rej_fields[] = {	/* IBA 12.6.7 */
	F(local_comm_id, 0, 32),
	F(remote_comm_id, 32, 32),
	F(msg_rejected, 64, 2),
	F(reject_info_len, 72, 7),
	F(reason, 80, 16),
	MPD_FIELD_BYTES(struct mpd_cm_rej, ari, 96),
	PDATA(struct mpd_cm_rej, 672),
};
#undef F
const struct mpd_layout mpd_cm_rej_layout =
	MPD_LAYOUT("REJ", MPD_CM_DATA_LEN, rej_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_cm_rep, m, o, w)
static const struct mpd_field rep_fields[] = {	/* IBA 12.6.8 */
	F(local_comm_id, 0, 32),
	F(remote_comm_id, 32, 32),
	F(local_qkey, 64, 32),
	F(local_qpn, 96, 24),
	F(vendor_id_hi, 120, 8),
	F(local_eecn, 128, 24),
	F(vendor_id_mid, 152, 8),
	F(starting_psn, 160, 24),
	F(vendor_id_lo, 184, 8),
	F(resp_resources, 192, 8),
	F(initiator_depth, 200, 8),
	F(target_ack_delay, 208, 5),
	F(failover_accepted, 213, 2),
	F(e2e_flow_ctrl, 215, 1),
	F(rnr_retry_count, 216, 3),
	F(srq, 219, 1),
	/* 220: 4 bits reserved */
	F(local_ca_guid, 224, 64),
	PDATA(struct mpd_cm_rep, 288),
};
#undef F
const struct mpd_layout mpd_cm_rep_layout =
	MPD_LAYOUT("REP", MPD_CM_DATA_LEN, rep_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_cm_rtu, m, o, w)
static const struct mpd_field rtu_fields[] = {	/* IBA 12.6.9 */
	F(local_comm_id, 0, 32),
	F(remote_comm_id, 32, 32),
	PDATA(struct mpd_cm_rtu, 64),
};
#undef F
const struct mpd_layout mpd_cm_rtu_layout =
	MPD_LAYOUT("RTU", MPD_CM_DATA_LEN, rtu_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_cm_dreq, m, o, w)
static const struct mpd_field dreq_fields[] = {	/* IBA 12.6.10 */
	F(local_comm_id, 0, 32),
	F(remote_comm_id, 32, 32),
	F(remote_qpn_eecn, 64, 24),
	PDATA(struct mpd_cm_dreq, 96),
};
#undef F
const struct mpd_layout mpd_cm_dreq_layout =
	MPD_LAYOUT("DREQ", MPD_CM_DATA_LEN, dreq_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_cm_drep, m, o, w)
static const struct mpd_field drep_fields[] = {	/* IBA 12.6.11 */
	F(local_comm_id, 0, 32),
	F(remote_comm_id, 32, 32),
	PDATA(struct mpd_cm_drep, 64),
};
#undef F
const struct mpd_layout mpd_cm_drep_layout =
	MPD_LAYOUT("DREP", MPD_CM_DATA_LEN, drep_fields);

/* LAP carries one path in a tighter packing than REQ: TClass follows
 * the flow label after 4 reserved bits, hop limit before packet rate. */
#define F(m, o, w) MPD_FIELD(struct mpd_cm_lap, m, o, w)
static const struct mpd_field lap_fields[] = {	/* IBA 12.8.1 */
	F(local_comm_id, 0, 32),
	F(remote_comm_id, 32, 32),
	/* 64: 32 bits reserved */
	F(remote_qpn_eecn, 96, 24),
	F(remote_cm_resp_timeout, 120, 5),
	/* 128: 32 bits reserved */
	F(alternate.local_lid, 160, 16),
	F(alternate.remote_lid, 176, 16),
	MPD_FIELD_BYTES(struct mpd_cm_lap, alternate.local_gid, 192),
	MPD_FIELD_BYTES(struct mpd_cm_lap, alternate.remote_gid, 320),
	F(alternate.flow_label, 448, 20),
	F(alternate.tclass, 472, 8),
	F(alternate.hop_limit, 480, 8),
	F(alternate.packet_rate, 490, 6),
	F(alternate.sl, 496, 4),
	F(alternate.subnet_local, 500, 1),
	F(alternate.local_ack_timeout, 504, 5),
	PDATA(struct mpd_cm_lap, 512),
};
#undef F
const struct mpd_layout mpd_cm_lap_layout =
	MPD_LAYOUT("LAP", MPD_CM_DATA_LEN, lap_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_cm_apr, m, o, w)
static const struct mpd_field apr_fields[] = {	/* IBA 12.8.2 */
	F(local_comm_id, 0, 32),
	F(remote_comm_id, 32, 32),
	F(add_info_len, 64, 8),
	F(ap_status, 72, 8),
	/* 80: 16 bits reserved */
	MPD_FIELD_BYTES(struct mpd_cm_apr, add_info, 96),
	PDATA(struct mpd_cm_apr, 672),
};
#undef F
const struct mpd_layout mpd_cm_apr_layout =
	MPD_LAYOUT("APR", MPD_CM_DATA_LEN, apr_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_cm_sidr_req, m, o, w)
static const struct mpd_field sidr_req_fields[] = {	/* IBA 12.11.1 */
	F(request_id, 0, 32),
	F(pkey, 32, 16),
	/* 48: 16 bits reserved */
	F(service_id, 64, 64),
	PDATA(struct mpd_cm_sidr_req, 128),
};
#undef F
const struct mpd_layout mpd_cm_sidr_req_layout =
	MPD_LAYOUT("SIDR_REQ", MPD_CM_DATA_LEN, sidr_req_fields);

#define F(m, o, w) MPD_FIELD(struct mpd_cm_sidr_rep, m, o, w)
static const struct mpd_field sidr_rep_fields[] = {	/* IBA 12.11.2 */
	F(request_id, 0, 32),
	F(status, 32, 8),
	F(add_info_len, 40, 8),
	F(vendor_id_hi, 48, 16),
	F(qpn, 64, 24),
	F(vendor_id_lo, 88, 8),
	F(service_id, 96, 64),
	F(qkey, 160, 32),
	MPD_FIELD_BYTES(struct mpd_cm_sidr_rep, class_port_info, 192),
	PDATA(struct mpd_cm_sidr_rep, 768),
};
#undef F
const struct mpd_layout mpd_cm_sidr_rep_layout =
	MPD_LAYOUT("SIDR_REP", MPD_CM_DATA_LEN, sidr_rep_fields);
