/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd capture records: what the API saw, beside the wire packets.
 *
 * Each record is one exported PDU (LINKTYPE_WIRESHARK_UPPER_PDU) naming the
 * "madpmd" dissector; the pcapng timestamp is the record's time. The byte
 * layout is specified in docs/capture-format.md: a 24-byte common header
 * (magic "MPDR", version, kind, flags, node and port ids, sequence number,
 * body length), then the body of the kind. Multi-byte fields are big-endian
 * except where the format keeps a host structure's own layout (the UMAD
 * header, whose host-order integers are stored little-endian).
 *
 * Encoders take host values and return the record length or a negative
 * status (MPD_ENOSPC, MPD_ERANGE, MPD_EINVAL from madpmd/wire.h); writers
 * encode and append to a pcapng and return 0 or -errno / a status.
 */
#ifndef MADPMD_RECORDS_H
#define MADPMD_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "madpmd/pcapng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPD_REC_DISSECTOR	"madpmd"	/* record dissector */
#define MPD_REC_DISSECTOR_MAD	"madpmd_mad"	/* a bare MAD (message) */
#define MPD_REC_DISSECTOR_IB	"madpmd_ib"	/* an LRH-first IB packet */

#define MPD_REC_MAGIC		0x4d504452u	/* "MPDR" */
#define MPD_REC_VERSION		1
#define MPD_REC_HDR_LEN		24

enum mpd_rec_kind {
	MPD_REC_UMAD = 1,	/* a umad message as the API saw it */
	MPD_REC_WC = 2,		/* a CQ completion (struct ibv_wc) */
	MPD_REC_CM = 3,		/* an rdma_cm event */
	MPD_REC_PORT = 4,	/* a port event */
	MPD_REC_QP = 5,		/* a QP state change */
};

/* Common header flags */
#define MPD_REC_F_TRUNCATED	0x0001u	/* variable part cut short */

/* The common header, in host form. */
struct mpd_rec_hdr {
	uint8_t kind;		/* enum mpd_rec_kind (the encoders set it) */
	uint16_t flags;		/* MPD_REC_F_* */
	uint8_t port;		/* port number on the node (1-based) */
	uint32_t node_id;	/* the daemon's node index */
	uint32_t seq;		/* per-node record sequence number */
};

/* ---- UMAD ---------------------------------------------------------- */

#define MPD_REC_UMAD_SEND	0	/* umad_send() handed it down */
#define MPD_REC_UMAD_RECV	1	/* umad_recv() returned it */

#define MPD_REC_UMAD_FIXED	24	/* before the ib_user_mad header */
#define MPD_REC_UMAD_HDR_LEN	64	/* struct ib_user_mad without data */

/*
 * struct ib_user_mad (rdma-core libibumad/umad.h, 64 bytes) in host form.
 * In the record the host-order members (agent_id .. length, pkey_index)
 * are stored little-endian and the network-order ones (qpn, qkey, lid,
 * flow_label) big-endian, byte for byte as on a little-endian host.
 */
struct mpd_rec_umad {
	uint8_t direction;	/* MPD_REC_UMAD_SEND / _RECV */
	uint32_t pid;		/* the client process */
	uint32_t portid;	/* umad_open_port()'s handle in that client */
	uint32_t agent_id;
	uint32_t status;	/* 0, or an errno such as ETIMEDOUT (110) */
	uint32_t timeout_ms;
	uint32_t retries;
	uint32_t length;
	uint32_t qpn;
	uint32_t qkey;
	uint16_t lid;
	uint8_t sl;
	uint8_t path_bits;
	uint8_t grh_present;
	uint8_t gid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t gid[16];
	uint32_t flow_label;
	uint16_t pkey_index;
};

/* ---- CQ completion --------------------------------------------------- */

#define MPD_REC_WC_LEN		56	/* 52 in captures before the PSN */
#define MPD_REC_WC_LEN_V1	52
#define MPD_REC_NO_PSN		0xffffffffu

struct mpd_rec_wc {
	uint32_t cq_id;		/* the CQ's handle in the backend */
	uint32_t qp_num;
	uint64_t wr_id;
	uint32_t status;	/* enum ibv_wc_status */
	uint32_t opcode;	/* enum ibv_wc_opcode */
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;	/* as a number (host value of the be32) */
	uint32_t src_qp;
	uint32_t wc_flags;	/* IBV_WC_GRH, IBV_WC_WITH_IMM, ... */
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
	/* the packet that completed it: the last PSN of a send WR the ACK
	 * (or READ response, atomic ACK) covered, the last packet of a
	 * received message; MPD_REC_NO_PSN when no packet did (a flush, a
	 * UD or UC send done as it left) */
	uint32_t psn;
};

/* ---- QP state change ------------------------------------------------- */

#define MPD_REC_QP_LEN		24

/* Why it changed */
#define MPD_REC_QP_MODIFY	0	/* the client's ibv_modify_qp() */
#define MPD_REC_QP_ERROR	1	/* a WR or a packet failed: to ERR */
#define MPD_REC_QP_DESTROY	2	/* destroyed (new_state RESET) */

struct mpd_rec_qp {
	uint32_t qp_num;
	uint32_t handle;	/* the QP's handle in its client's session */
	uint8_t qp_type;	/* enum ibv_qp_type: 2 RC, 3 UC, 4 UD */
	uint8_t old_state;	/* enum ibv_qp_state: 0 RESET .. 6 ERR */
	uint8_t new_state;
	uint8_t cause;		/* MPD_REC_QP_* */
	uint32_t status;	/* cause ERROR: the ibv_wc_status of the WR */
	uint32_t psn;		/* cause ERROR: the PSN of the packet that
				 * failed (a NAK's, a time-out's oldest
				 * unacknowledged), else MPD_REC_NO_PSN */
	uint32_t dest_qp;	/* RC/UC: the peer QP; 0 */
};

/* ---- CM event -------------------------------------------------------- */

#define MPD_REC_CM_FIXED	48
#define MPD_REC_CM_PDATA_MAX	255

struct mpd_rec_cm {
	uint32_t event;		/* enum rdma_cm_event_type */
	int32_t status;
	uint32_t id;		/* the rdma_cm_id's handle */
	uint32_t listen_id;	/* CONNECT_REQUEST: the listening id */
	uint32_t local_qpn;	/* 24 bits */
	uint32_t remote_qpn;	/* 24 bits */
	uint32_t local_comm_id;	/* IB CM communication ids */
	uint32_t remote_comm_id;
	uint64_t service_id;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t retry_count;		/* 3 bits */
	uint8_t rnr_retry_count;	/* 3 bits */
	uint8_t private_data_len;
	uint8_t private_data[MPD_REC_CM_PDATA_MAX];
};

/* ---- Port event ------------------------------------------------------ */

#define MPD_REC_PORT_LEN	32

/* What changed (the record's "changes" bit mask) */
#define MPD_REC_PORT_STATE	0x01u	/* PortState */
#define MPD_REC_PORT_LID	0x02u	/* LID or LMC */
#define MPD_REC_PORT_SM_LID	0x04u	/* MasterSMLID or SL */
#define MPD_REC_PORT_ISSM_SET	0x08u	/* CapabilityMask.IsSM set */
#define MPD_REC_PORT_ISSM_CLR	0x10u	/* CapabilityMask.IsSM cleared */
#define MPD_REC_PORT_SM_CHANGE	0x20u	/* a different master SM */
#define MPD_REC_PORT_REREG	0x40u	/* ClientReregister */

struct mpd_rec_port {
	uint8_t changes;	/* MPD_REC_PORT_* */
	uint8_t old_state;	/* PortState, MPD_PORT_STATE_* */
	uint8_t new_state;
	uint8_t phys_state;	/* PortPhysicalState now */
	uint16_t old_lid;
	uint16_t new_lid;
	uint16_t old_sm_lid;
	uint16_t new_sm_lid;
	uint8_t is_sm;		/* CapabilityMask.IsSM now (0/1) */
	uint8_t lmc;		/* 3 bits */
	uint8_t sm_sl;		/* 4 bits */
	uint32_t capability_mask;
	uint64_t port_guid;
};

/* ---- Encoding and writing --------------------------------------------- */

/* Record lengths for a body of the given variable part. */
static inline size_t
mpd_rec_umad_len(size_t mad_len)
{
	return MPD_REC_HDR_LEN + MPD_REC_UMAD_FIXED + MPD_REC_UMAD_HDR_LEN +
	       mad_len;
}

int mpd_rec_encode_umad(const struct mpd_rec_hdr *h,
			const struct mpd_rec_umad *u, const void *mad,
			size_t mad_len, uint8_t *buf, size_t cap);
int mpd_rec_encode_wc(const struct mpd_rec_hdr *h, const struct mpd_rec_wc *wc,
		      uint8_t *buf, size_t cap);
int mpd_rec_encode_cm(const struct mpd_rec_hdr *h, const struct mpd_rec_cm *cm,
		      uint8_t *buf, size_t cap);
int mpd_rec_encode_port(const struct mpd_rec_hdr *h,
			const struct mpd_rec_port *pe, uint8_t *buf,
			size_t cap);
int mpd_rec_encode_qp(const struct mpd_rec_hdr *h, const struct mpd_rec_qp *q,
		      uint8_t *buf, size_t cap);

/*
 * Parse a record's common header: checks magic, version (records of a later
 * version are accepted when their header is at least as long as ours) and
 * lengths. On success fills *h and the body's place and returns 0.
 */
int mpd_rec_decode_hdr(const uint8_t *buf, size_t len, struct mpd_rec_hdr *h,
		       const uint8_t **body, size_t *body_len);

/* Append an encoded record to w on an UPPER_PDU interface. */
int mpd_rec_write(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		  uint32_t direction, const uint8_t *rec, size_t len);
/* Encode and append: UMAD sends are written as outbound, receives as
 * inbound, the other kinds without a direction. */
int mpd_rec_write_umad(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		       const struct mpd_rec_hdr *h,
		       const struct mpd_rec_umad *u, const void *mad,
		       size_t mad_len);
int mpd_rec_write_wc(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		     const struct mpd_rec_hdr *h, const struct mpd_rec_wc *wc);
int mpd_rec_write_cm(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		     const struct mpd_rec_hdr *h, const struct mpd_rec_cm *cm);
int mpd_rec_write_port(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		       const struct mpd_rec_hdr *h,
		       const struct mpd_rec_port *pe);
int mpd_rec_write_qp(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		     const struct mpd_rec_hdr *h, const struct mpd_rec_qp *q);

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_RECORDS_H */
