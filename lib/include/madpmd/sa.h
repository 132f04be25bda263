/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd wire codec: SA records (IBA 15.2.5), as host structs with their
 * wire layouts, plus the component mask bits of PathRecord and
 * MCMemberRecord queries.
 *
 * Encode with mpd_layout_encode(&mpd_<record>_layout, &obj, buf, cap) and
 * decode with mpd_layout_decode(). A layout's wire_len is the record's own
 * size; in a SA table the records are spaced AttributeOffset 8-byte words
 * apart (IBA 15.2.1.1), see mpd_sa_attr_offset().
 */
#ifndef MADPMD_SA_H
#define MADPMD_SA_H

#include <stdint.h>

#include "madpmd/attr.h"
#include "madpmd/field.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPD_SA_HDR_LEN		20	/* SM_Key, AttributeOffset, CompMask */
#define MPD_GID_LEN		16
#define MPD_NODE_DESC_LEN	64
#define MPD_PORT_INFO_LEN	64

/* Selectors of MTU, Rate and PacketLifeTime (IBA 15.2.5.16) */
#define MPD_SA_SEL_GT		0
#define MPD_SA_SEL_LT		1
#define MPD_SA_SEL_EQ		2
#define MPD_SA_SEL_BEST		3	/* largest MTU or rate, smallest life */

/* MCMemberRecord JoinState bits (IBA 15.2.5.17) */
#define MPD_MCM_JOIN_FULL		0x1
#define MPD_MCM_JOIN_NON		0x2
#define MPD_MCM_JOIN_SEND_ONLY_NON	0x4
#define MPD_MCM_JOIN_SEND_ONLY_FULL	0x8

/*
 * PathRecord component mask (IBA 15.2.5.16): one bit per field in table
 * order, reserved fields included; ServiceID takes bits 0 and 1.
 */
#define MPD_SA_COMP(n)			(UINT64_C(1) << (n))
#define MPD_SA_PR_COMP_SERVICE_ID	(MPD_SA_COMP(0) | MPD_SA_COMP(1))
#define MPD_SA_PR_COMP_DGID		MPD_SA_COMP(2)
#define MPD_SA_PR_COMP_SGID		MPD_SA_COMP(3)
#define MPD_SA_PR_COMP_DLID		MPD_SA_COMP(4)
#define MPD_SA_PR_COMP_SLID		MPD_SA_COMP(5)
#define MPD_SA_PR_COMP_RAW_TRAFFIC	MPD_SA_COMP(6)
/* bit 7: reserved */
#define MPD_SA_PR_COMP_FLOW_LABEL	MPD_SA_COMP(8)
#define MPD_SA_PR_COMP_HOP_LIMIT	MPD_SA_COMP(9)
#define MPD_SA_PR_COMP_TCLASS		MPD_SA_COMP(10)
#define MPD_SA_PR_COMP_REVERSIBLE	MPD_SA_COMP(11)
#define MPD_SA_PR_COMP_NUMB_PATH	MPD_SA_COMP(12)
#define MPD_SA_PR_COMP_PKEY		MPD_SA_COMP(13)
#define MPD_SA_PR_COMP_QOS_CLASS	MPD_SA_COMP(14)
#define MPD_SA_PR_COMP_SL		MPD_SA_COMP(15)
#define MPD_SA_PR_COMP_MTU_SELECTOR	MPD_SA_COMP(16)
#define MPD_SA_PR_COMP_MTU		MPD_SA_COMP(17)
#define MPD_SA_PR_COMP_RATE_SELECTOR	MPD_SA_COMP(18)
#define MPD_SA_PR_COMP_RATE		MPD_SA_COMP(19)
#define MPD_SA_PR_COMP_PKT_LIFE_SELECTOR MPD_SA_COMP(20)
#define MPD_SA_PR_COMP_PKT_LIFE		MPD_SA_COMP(21)
#define MPD_SA_PR_COMP_PREFERENCE	MPD_SA_COMP(22)

/* MCMemberRecord component mask (IBA 15.2.5.17) */
#define MPD_SA_MCM_COMP_MGID		MPD_SA_COMP(0)
#define MPD_SA_MCM_COMP_PORT_GID	MPD_SA_COMP(1)
#define MPD_SA_MCM_COMP_QKEY		MPD_SA_COMP(2)
#define MPD_SA_MCM_COMP_MLID		MPD_SA_COMP(3)
#define MPD_SA_MCM_COMP_MTU_SELECTOR	MPD_SA_COMP(4)
#define MPD_SA_MCM_COMP_MTU		MPD_SA_COMP(5)
#define MPD_SA_MCM_COMP_TCLASS		MPD_SA_COMP(6)
#define MPD_SA_MCM_COMP_PKEY		MPD_SA_COMP(7)
#define MPD_SA_MCM_COMP_RATE_SELECTOR	MPD_SA_COMP(8)
#define MPD_SA_MCM_COMP_RATE		MPD_SA_COMP(9)
#define MPD_SA_MCM_COMP_PKT_LIFE_SELECTOR MPD_SA_COMP(10)
#define MPD_SA_MCM_COMP_PKT_LIFE	MPD_SA_COMP(11)
#define MPD_SA_MCM_COMP_SL		MPD_SA_COMP(12)
#define MPD_SA_MCM_COMP_FLOW_LABEL	MPD_SA_COMP(13)
#define MPD_SA_MCM_COMP_HOP_LIMIT	MPD_SA_COMP(14)
#define MPD_SA_MCM_COMP_SCOPE		MPD_SA_COMP(15)
#define MPD_SA_MCM_COMP_JOIN_STATE	MPD_SA_COMP(16)
#define MPD_SA_MCM_COMP_PROXY_JOIN	MPD_SA_COMP(17)

/*
 * NodeRecord (IBA 15.2.5.2), 108 bytes: RID (LID, reserved), then the
 * NodeInfo attribute at byte 4 and NodeDescription at byte 44.
 */
struct mpd_node_record {
	uint16_t lid;
	struct mpd_node_info node_info;
	uint8_t node_desc[MPD_NODE_DESC_LEN];
};
extern const struct mpd_layout mpd_node_record_layout;

/*
 * PortInfoRecord (IBA 15.2.5.3), 68 bytes: RID (EndportLID, PortNum,
 * Options), then the 64-byte PortInfo attribute at byte 4, as on the wire.
 */
struct mpd_port_info_record {
	uint16_t endport_lid;
	uint8_t port_num;
	uint8_t options;
	uint8_t port_info[MPD_PORT_INFO_LEN];
};
extern const struct mpd_layout mpd_port_info_record_layout;

/* ServiceRecord (IBA 15.2.5.14), 176 bytes */
struct mpd_service_record {
	uint64_t service_id;
	uint8_t service_gid[MPD_GID_LEN];
	uint16_t service_pkey;
	uint32_t service_lease;
	uint8_t service_key[16];
	uint8_t service_name[64];	/* UTF-8, NUL padded */
	uint8_t service_data8[16];
	uint16_t service_data16[8];
	uint32_t service_data32[4];
	uint64_t service_data64[2];
};
extern const struct mpd_layout mpd_service_record_layout;

/* PathRecord (IBA 15.2.5.16), 64 bytes */
struct mpd_path_record {
	uint64_t service_id;
	uint8_t dgid[MPD_GID_LEN];
	uint8_t sgid[MPD_GID_LEN];
	uint16_t dlid;
	uint16_t slid;
	uint8_t raw_traffic;		/* 1 bit */
	uint32_t flow_label;		/* 20 bits */
	uint8_t hop_limit;
	uint8_t tclass;
	uint8_t reversible;		/* 1 bit */
	uint8_t numb_path;		/* 7 bits */
	uint16_t pkey;
	uint16_t qos_class;		/* 12 bits */
	uint8_t sl;			/* 4 bits */
	uint8_t mtu_selector;		/* 2 bits */
	uint8_t mtu;			/* 6 bits */
	uint8_t rate_selector;		/* 2 bits */
	uint8_t rate;			/* 6 bits */
	uint8_t pkt_life_selector;	/* 2 bits */
	uint8_t pkt_life;		/* 6 bits */
	uint8_t preference;
};
extern const struct mpd_layout mpd_path_record_layout;

/* MCMemberRecord (IBA 15.2.5.17), 52 bytes */
struct mpd_mcmember_record {
	uint8_t mgid[MPD_GID_LEN];
	uint8_t port_gid[MPD_GID_LEN];
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_selector;		/* 2 bits */
	uint8_t mtu;			/* 6 bits */
	uint8_t tclass;
	uint16_t pkey;
	uint8_t rate_selector;		/* 2 bits */
	uint8_t rate;			/* 6 bits */
	uint8_t pkt_life_selector;	/* 2 bits */
	uint8_t pkt_life;		/* 6 bits */
	uint8_t sl;			/* 4 bits */
	uint32_t flow_label;		/* 20 bits */
	uint8_t hop_limit;
	uint8_t scope;			/* 4 bits */
	uint8_t join_state;		/* 4 bits, MPD_MCM_JOIN_* */
	uint8_t proxy_join;		/* 1 bit */
};
extern const struct mpd_layout mpd_mcmember_record_layout;

/* AttributeOffset of a table of records of len bytes (IBA 15.2.1.1):
 * the record size in 8-byte words, rounded up. */
static inline uint16_t
mpd_sa_attr_offset(uint16_t len)
{
	return (uint16_t)((len + 7u) / 8u);
}

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_SA_H */
