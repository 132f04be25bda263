/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd wire codec: the 256-byte MAD and its class headers
 * (IBA 13.4 common header, 14.2.1 SMP LID-routed and directed route,
 * 13.6.2 RMPP, 15.2.1 SA, 13.4.x vendor with OUI, 16.1 PerfMgt).
 */
#ifndef MADPMD_MAD_H
#define MADPMD_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "madpmd/field.h"
#include "madpmd/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPD_MAD_LEN		256
#define MPD_MAD_HDR_LEN		24
#define MPD_RMPP_HDR_LEN	12
#define MPD_SMP_DATA_OFF	64
#define MPD_SMP_DATA_LEN	64
#define MPD_SMP_PATH_LEN	64
#define MPD_SMP_MAX_HOPS	63	/* IBA 14.2.1.2: HopCount 0..63 */
#define MPD_SA_HDR_END		56	/* MAD + RMPP + SA class header */
#define MPD_SA_DATA_LEN		200
#define MPD_VENDOR_DATA_OFF	40	/* range 2: MAD + RMPP + rsvd + OUI */
#define MPD_PERF_DATA_OFF	64
#define MPD_CM_DATA_OFF		24

#define MPD_BASE_VERSION	1

/* Management classes (IBA 13.4.4) */
#define MPD_CLASS_SUBN_LID	0x01
#define MPD_CLASS_SUBN_ADM	0x03
#define MPD_CLASS_PERF		0x04
#define MPD_CLASS_BM		0x05
#define MPD_CLASS_DEV_MGT	0x06
#define MPD_CLASS_CM		0x07
#define MPD_CLASS_SNMP		0x08
#define MPD_CLASS_VENDOR_R1_LO	0x09
#define MPD_CLASS_VENDOR_R1_HI	0x0f
#define MPD_CLASS_VENDOR_R2_LO	0x30
#define MPD_CLASS_VENDOR_R2_HI	0x4f
#define MPD_CLASS_SUBN_DR	0x81

/* Class versions */
#define MPD_SMP_CLASS_VERSION	1
#define MPD_SA_CLASS_VERSION	2
#define MPD_PERF_CLASS_VERSION	1
#define MPD_CM_CLASS_VERSION	2

/* Methods (IBA 13.4.5, 15.2.2) */
#define MPD_METHOD_GET		0x01
#define MPD_METHOD_SET		0x02
#define MPD_METHOD_SEND		0x03
#define MPD_METHOD_TRAP		0x05
#define MPD_METHOD_REPORT	0x06
#define MPD_METHOD_TRAP_REPRESS	0x07
#define MPD_METHOD_GET_TABLE	0x12
#define MPD_METHOD_GET_TRACE_TBL 0x13
#define MPD_METHOD_GET_MULTI	0x14
#define MPD_METHOD_DELETE	0x15
#define MPD_METHOD_RESP		0x80	/* R bit */
#define MPD_METHOD_GET_RESP	0x81
#define MPD_METHOD_REPORT_RESP	0x86
#define MPD_METHOD_GET_TABLE_RESP 0x92

/* MAD status (IBA 13.4.7) */
#define MPD_STATUS_BUSY		0x0001
#define MPD_STATUS_REDIRECT	0x0002
#define MPD_STATUS_BAD_VERSION	(1u << 2)
#define MPD_STATUS_METHOD_UNSUP	(2u << 2)
#define MPD_STATUS_METHOD_ATTR_UNSUP (3u << 2)
#define MPD_STATUS_INVALID_FIELD (7u << 2)
#define MPD_SMP_STATUS_D	0x8000	/* direction bit of DR SMPs */

/* Attribute IDs: common (IBA 13.4.8), SMP (14.2.5), SA (15.2.5),
 * PerfMgt (16.1.3), CM (12.6) */
#define MPD_ATTR_CLASS_PORT_INFO	0x0001
#define MPD_ATTR_NOTICE			0x0002
#define MPD_ATTR_INFORM_INFO		0x0003
#define MPD_ATTR_NODE_DESC		0x0010
#define MPD_ATTR_NODE_INFO		0x0011
#define MPD_ATTR_SWITCH_INFO		0x0012
#define MPD_ATTR_GUID_INFO		0x0014
#define MPD_ATTR_PORT_INFO		0x0015
#define MPD_ATTR_PKEY_TABLE		0x0016
#define MPD_ATTR_SL2VL_TABLE		0x0017
#define MPD_ATTR_VL_ARB_TABLE		0x0018
#define MPD_ATTR_LINEAR_FWD_TABLE	0x0019
#define MPD_ATTR_RANDOM_FWD_TABLE	0x001a
#define MPD_ATTR_MCAST_FWD_TABLE	0x001b
#define MPD_ATTR_SM_INFO		0x0020
#define MPD_ATTR_VENDOR_DIAG		0x0030
#define MPD_ATTR_LED_INFO		0x0031
#define MPD_ATTR_SA_NODE_RECORD		0x0011
#define MPD_ATTR_SA_PORT_INFO_RECORD	0x0012
#define MPD_ATTR_SA_SERVICE_RECORD	0x0031
#define MPD_ATTR_SA_PATH_RECORD		0x0035
#define MPD_ATTR_SA_MCMEMBER_RECORD	0x0038
#define MPD_ATTR_PERF_PORT_COUNTERS	0x0012
#define MPD_ATTR_PERF_PORT_RCV_ERROR_DETAILS	0x0015
#define MPD_ATTR_PERF_PORT_XMIT_DISCARD_DETAILS	0x0016
#define MPD_ATTR_PERF_PORT_COUNTERS_EXT	0x001d
#define MPD_ATTR_CM_REQ			0x0010
#define MPD_ATTR_CM_MRA			0x0011
#define MPD_ATTR_CM_REJ			0x0012
#define MPD_ATTR_CM_REP			0x0013
#define MPD_ATTR_CM_RTU			0x0014
#define MPD_ATTR_CM_DREQ		0x0015
#define MPD_ATTR_CM_DREP		0x0016
#define MPD_ATTR_CM_SIDR_REQ		0x0017
#define MPD_ATTR_CM_SIDR_REP		0x0018
#define MPD_ATTR_CM_LAP			0x0019
#define MPD_ATTR_CM_APR			0x001a

/* RMPP (IBA 13.6.2) */
#define MPD_RMPP_VERSION	1
#define MPD_RMPP_TYPE_DATA	1
#define MPD_RMPP_TYPE_ACK	2
#define MPD_RMPP_TYPE_STOP	3
#define MPD_RMPP_TYPE_ABORT	4
#define MPD_RMPP_FLAG_ACTIVE	0x1
#define MPD_RMPP_FLAG_FIRST	0x2
#define MPD_RMPP_FLAG_LAST	0x4

/*
 * Byte offsets in a raw 256-byte MAD, for code that works on the bytes
 * (the MAD layer, the SMA): IBA 13.4.3 common header, 14.2.1.2 DR SMP,
 * 13.6.2.1 RMPP header, 13.4.4 vendor range 2 OUI.
 */
#define MPD_MAD_OFF_BASE_VER	0
#define MPD_MAD_OFF_CLASS	1
#define MPD_MAD_OFF_CLASS_VER	2
#define MPD_MAD_OFF_METHOD	3
#define MPD_MAD_OFF_STATUS	4	/* 16 bits; DR SMPs: D bit 15 */
#define MPD_SMP_OFF_HOP_PTR	6
#define MPD_SMP_OFF_HOP_CNT	7
#define MPD_MAD_OFF_TID		8
#define MPD_MAD_OFF_ATTR_ID	16
#define MPD_MAD_OFF_ATTR_MOD	20
#define MPD_SMP_OFF_MKEY	24
#define MPD_SMP_OFF_DR_SLID	32
#define MPD_SMP_OFF_DR_DLID	34
#define MPD_SMP_OFF_INIT_PATH	128
#define MPD_SMP_OFF_RET_PATH	192
#define MPD_RMPP_OFF_TYPE	25
#define MPD_RMPP_OFF_FLAGS	26	/* RRespTime << 3 | flags */
#define MPD_VENDOR_OFF_OUI	37	/* 24 bits */

/* QP1's well-known Q_Key (IBA 13.5.1.1.1) */
#define MPD_QP1_QKEY		0x80010000u
/* PortInfo:CapabilityMask bits (IBA 14.2.5.6) */
#define MPD_PORT_CAP_IS_SM	(1u << 1)
#define MPD_PORT_CAP_IS_TRAP		(1u << 3)
#define MPD_PORT_CAP_IS_SYS_IMAGE_GUID	(1u << 11)
#define MPD_PORT_CAP_IS_CM		(1u << 16)
#define MPD_PORT_CAP_IS_VENDOR_CLASS	(1u << 20)
#define MPD_PORT_CAP_IS_CLIENT_REREG	(1u << 25)
/* P_Key membership bit and base (IBA 10.9.1) */
#define MPD_PKEY_FULL		0x8000u
#define MPD_PKEY_BASE_MASK	0x7fffu

static inline uint8_t
mpd_mad_class(const uint8_t *mad)
{
	return mad[MPD_MAD_OFF_CLASS];
}

static inline uint8_t
mpd_mad_method(const uint8_t *mad)
{
	return mad[MPD_MAD_OFF_METHOD];
}

static inline uint64_t
mpd_mad_tid(const uint8_t *mad)
{
	return mpd_get_be64(mad + MPD_MAD_OFF_TID);
}

static inline uint16_t
mpd_mad_attr_id(const uint8_t *mad)
{
	return mpd_get_be16(mad + MPD_MAD_OFF_ATTR_ID);
}

/* A response, as the kernel's ib_response_mad(): the R bit, or a
 * TrapRepress (which answers a Trap without the R bit; IBA 13.4.5). */
static inline bool
mpd_mad_is_response(const uint8_t *mad)
{
	uint8_t m = mad[MPD_MAD_OFF_METHOD];

	return (m & MPD_METHOD_RESP) || m == MPD_METHOD_TRAP_REPRESS;
}

/* Get or Set: what a port's own agents (SMA, PMA) answer. */
static inline bool
mpd_mad_is_get_set(const uint8_t *mad)
{
	return mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_GET ||
	       mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_SET;
}

/* IBA 10.9.3: two P_Keys match when their base (low 15 bits) is equal,
 * non-zero, and at least one of the two is a full member. */
static inline bool
mpd_pkey_match(uint16_t a, uint16_t b)
{
	return (a & MPD_PKEY_BASE_MASK) != 0 &&
	       (a & MPD_PKEY_BASE_MASK) == (b & MPD_PKEY_BASE_MASK) &&
	       ((a | b) & MPD_PKEY_FULL);
}

/* Common MAD header (IBA 13.4.3) */
struct mpd_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;		/* R bit included */
	uint16_t status;	/* DR SMPs: D bit in bit 15 */
	uint16_t class_specific; /* DR SMPs: hop pointer << 8 | hop count */
	uint64_t tid;
	uint16_t attr_id;
	uint16_t resv;
	uint32_t attr_mod;
};

/* RMPP header (IBA 13.6.2.1) */
struct mpd_rmpp_hdr {
	uint8_t version;
	uint8_t type;
	uint8_t resp_time;	/* 5 bits */
	uint8_t flags;		/* 3 bits: active, first, last */
	uint8_t status;
	uint32_t data1;		/* segment number */
	uint32_t data2;		/* payload length / new window last */
};

/*
 * A decoded MAD: the common header plus whichever class header its
 * management class carries. data_off/data_len locate the attribute data in
 * the 256-byte MAD (for RMPP DATA segments: this segment's part).
 */
struct mpd_mad {
	struct mpd_mad_hdr hdr;
	/* SMP (classes 0x01, 0x81) */
	uint64_t mkey;
	uint16_t dr_slid;	/* DR only */
	uint16_t dr_dlid;	/* DR only */
	uint8_t initial_path[MPD_SMP_PATH_LEN];	/* DR only */
	uint8_t return_path[MPD_SMP_PATH_LEN];	/* DR only */
	/* RMPP-capable classes (SA, vendor range 2, ...) */
	bool has_rmpp;
	struct mpd_rmpp_hdr rmpp;
	/* SA (class 0x03) */
	uint64_t sm_key;
	uint16_t attr_offset;	/* in 8-byte words */
	uint64_t comp_mask;
	/* vendor range 2 */
	uint32_t oui;		/* 24 bits */
	/* where the class data starts and how long it is */
	uint16_t data_off;
	uint16_t data_len;
};

/* True for a directed-route SMP. */
static inline bool
mpd_mad_is_dr(const struct mpd_mad_hdr *h)
{
	return h->mgmt_class == MPD_CLASS_SUBN_DR;
}

static inline uint8_t
mpd_smp_hop_ptr(const struct mpd_mad_hdr *h)
{
	return (uint8_t)(h->class_specific >> 8);
}

static inline uint8_t
mpd_smp_hop_cnt(const struct mpd_mad_hdr *h)
{
	return (uint8_t)h->class_specific;
}

/* True when the class carries the RMPP header at byte 24 (IBA 13.6.1). */
bool mpd_class_has_rmpp(uint8_t mgmt_class);
/* Where the attribute data of this class starts in a MAD. */
uint16_t mpd_class_data_off(uint8_t mgmt_class);

/*
 * Encode m into a 256-byte MAD in buf; data (data_len bytes, at most the
 * class's room) is copied to the class data area, the rest zeroed. The
 * data_off/data_len members of m are ignored. Returns 256 or a status.
 */
int mpd_mad_encode(const struct mpd_mad *m, const void *data, size_t data_len,
		   uint8_t *buf, size_t cap);
/*
 * Decode the MAD at buf. len must be at least 256 (shorter is
 * MPD_ETRUNC); MADs other than base version 1 are MPD_EVERSION; a DR SMP
 * whose hop pointer or hop count is out of range (IBA 14.2.2) is
 * MPD_EINVAL. Returns 256.
 */
int mpd_mad_decode(const uint8_t *buf, size_t len, struct mpd_mad *m);

extern const struct mpd_layout mpd_mad_hdr_layout;
extern const struct mpd_layout mpd_rmpp_hdr_layout;

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_MAD_H */
