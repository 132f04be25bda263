/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd wire codec: communication manager messages (IBA 12.6, 12.8,
 * 12.11), as host structs with their wire layouts.
 *
 * CM MADs are class 0x07 version 2 on QP1; a message occupies the 232
 * bytes after the common MAD header (MPD_CM_DATA_OFF). Every layout here
 * has wire_len MPD_CM_DATA_LEN, and bit offsets count from the first byte
 * of that data, as the IBA tables do.
 */
#ifndef MADPMD_CM_H
#define MADPMD_CM_H

#include <stdint.h>

#include "madpmd/field.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPD_CM_DATA_LEN		232
#define MPD_CM_ARI_LEN		72	/* REJ ARI, APR and SIDR_REP info */

#define MPD_CM_REQ_PDATA_LEN		92
#define MPD_CM_MRA_PDATA_LEN		222
#define MPD_CM_REJ_PDATA_LEN		148
#define MPD_CM_REP_PDATA_LEN		196
#define MPD_CM_RTU_PDATA_LEN		224
#define MPD_CM_DREQ_PDATA_LEN		220
#define MPD_CM_DREP_PDATA_LEN		224
#define MPD_CM_SIDR_REQ_PDATA_LEN	216
#define MPD_CM_SIDR_REP_PDATA_LEN	136
#define MPD_CM_LAP_PDATA_LEN		168
#define MPD_CM_APR_PDATA_LEN		148

/* Transport Service Type of REQ (IBA 12.6.5) */
#define MPD_CM_TRANSPORT_RC	0
#define MPD_CM_TRANSPORT_UC	1
#define MPD_CM_TRANSPORT_RD	2

/* Message MRAed / Message REJected (IBA 12.6.6, 12.6.7) */
#define MPD_CM_MSG_REQ		0
#define MPD_CM_MSG_REP		1
#define MPD_CM_MSG_LAP		2
#define MPD_CM_MSG_OTHER	3	/* REJ only */

/* SIDR_REP status (IBA 12.11.2) */
#define MPD_CM_SIDR_OK			0
#define MPD_CM_SIDR_NO_SERVICE		1
#define MPD_CM_SIDR_REJECT		2
#define MPD_CM_SIDR_NO_QP		3
#define MPD_CM_SIDR_REDIRECT		4
#define MPD_CM_SIDR_BAD_VERSION		5

/*
 * One path of a REQ (primary or alternate) or LAP (alternate): the
 * fields IBA 12.6.5 lists per path, in host form.
 */
struct mpd_cm_path {
	uint16_t local_lid;
	uint16_t remote_lid;
	uint8_t local_gid[16];
	uint8_t remote_gid[16];
	uint32_t flow_label;		/* 20 bits */
	uint8_t packet_rate;		/* 6 bits */
	uint8_t tclass;
	uint8_t hop_limit;
	uint8_t sl;			/* 4 bits */
	uint8_t subnet_local;		/* 1 bit */
	uint8_t local_ack_timeout;	/* 5 bits */
};

/* ConnectRequest (IBA 12.6.5) */
struct mpd_cm_req {
	uint32_t local_comm_id;
	uint32_t vendor_id;		/* 24 bits */
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;		/* 24 bits */
	uint8_t resp_resources;
	uint32_t local_eecn;		/* 24 bits */
	uint8_t initiator_depth;
	uint32_t remote_eecn;		/* 24 bits */
	uint8_t remote_cm_resp_timeout;	/* 5 bits */
	uint8_t transport_type;		/* 2 bits, MPD_CM_TRANSPORT_* */
	uint8_t e2e_flow_ctrl;		/* 1 bit */
	uint32_t starting_psn;		/* 24 bits */
	uint8_t local_cm_resp_timeout;	/* 5 bits */
	uint8_t retry_count;		/* 3 bits */
	uint16_t pkey;
	uint8_t path_mtu;		/* 4 bits */
	uint8_t rdc_exists;		/* 1 bit */
	uint8_t rnr_retry_count;	/* 3 bits */
	uint8_t max_cm_retries;		/* 4 bits */
	uint8_t srq;			/* 1 bit */
	uint8_t ext_transport_type;	/* 3 bits */
	struct mpd_cm_path primary;
	struct mpd_cm_path alternate;
	uint8_t sap_supported;		/* 1 bit */
	uint8_t private_data[MPD_CM_REQ_PDATA_LEN];
};
extern const struct mpd_layout mpd_cm_req_layout;

/* MsgRcptAck (IBA 12.6.6) */
struct mpd_cm_mra {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_mraed;		/* 2 bits, MPD_CM_MSG_* */
	uint8_t service_timeout;	/* 5 bits */
	uint8_t private_data[MPD_CM_MRA_PDATA_LEN];
};
extern const struct mpd_layout mpd_cm_mra_layout;

/* ConnectReject (IBA 12.6.7) */
struct mpd_cm_rej {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_rejected;		/* 2 bits, MPD_CM_MSG_* */
	uint8_t reject_info_len;	/* 7 bits */
	uint16_t reason;
	uint8_t ari[MPD_CM_ARI_LEN];
	uint8_t private_data[MPD_CM_REJ_PDATA_LEN];
};
extern const struct mpd_layout mpd_cm_rej_layout;

/* ConnectReply (IBA 12.6.8); VendorID is split over three bytes */
struct mpd_cm_rep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;		/* 24 bits */
	uint8_t vendor_id_hi;		/* VendorID[23:16] */
	uint32_t local_eecn;		/* 24 bits */
	uint8_t vendor_id_mid;		/* VendorID[15:8] */
	uint32_t starting_psn;		/* 24 bits */
	uint8_t vendor_id_lo;		/* VendorID[7:0] */
	uint8_t resp_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay;	/* 5 bits */
	uint8_t failover_accepted;	/* 2 bits */
	uint8_t e2e_flow_ctrl;		/* 1 bit */
	uint8_t rnr_retry_count;	/* 3 bits */
	uint8_t srq;			/* 1 bit */
	uint64_t local_ca_guid;
	uint8_t private_data[MPD_CM_REP_PDATA_LEN];
};
extern const struct mpd_layout mpd_cm_rep_layout;

/* ReadyToUse (IBA 12.6.9) */
struct mpd_cm_rtu {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[MPD_CM_RTU_PDATA_LEN];
};
extern const struct mpd_layout mpd_cm_rtu_layout;

/* DisconnectRequest (IBA 12.6.10) */
struct mpd_cm_dreq {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn_eecn;	/* 24 bits */
	uint8_t private_data[MPD_CM_DREQ_PDATA_LEN];
};
extern const struct mpd_layout mpd_cm_dreq_layout;

/* DisconnectReply (IBA 12.6.11) */
struct mpd_cm_drep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[MPD_CM_DREP_PDATA_LEN];
};
extern const struct mpd_layout mpd_cm_drep_layout;

/* LoadAlternatePath (IBA 12.8.1) */
struct mpd_cm_lap {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn_eecn;	/* 24 bits */
	uint8_t remote_cm_resp_timeout;	/* 5 bits */
	struct mpd_cm_path alternate;
	uint8_t private_data[MPD_CM_LAP_PDATA_LEN];
};
extern const struct mpd_layout mpd_cm_lap_layout;

/* AlternatePathResponse (IBA 12.8.2) */
struct mpd_cm_apr {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t add_info_len;
	uint8_t ap_status;
	uint8_t add_info[MPD_CM_ARI_LEN];
	uint8_t private_data[MPD_CM_APR_PDATA_LEN];
};
extern const struct mpd_layout mpd_cm_apr_layout;

/* ServiceIDResReq (IBA 12.11.1) */
struct mpd_cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint64_t service_id;
	uint8_t private_data[MPD_CM_SIDR_REQ_PDATA_LEN];
};
extern const struct mpd_layout mpd_cm_sidr_req_layout;

/* ServiceIDResReqResp (IBA 12.11.2); VendorID split as in REP */
struct mpd_cm_sidr_rep {
	uint32_t request_id;
	uint8_t status;			/* MPD_CM_SIDR_* */
	uint8_t add_info_len;
	uint16_t vendor_id_hi;		/* VendorID[23:8] */
	uint32_t qpn;			/* 24 bits */
	uint8_t vendor_id_lo;		/* VendorID[7:0] */
	uint64_t service_id;
	uint32_t qkey;
	uint8_t class_port_info[MPD_CM_ARI_LEN];
	uint8_t private_data[MPD_CM_SIDR_REP_PDATA_LEN];
};
extern const struct mpd_layout mpd_cm_sidr_rep_layout;

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_CM_H */
