/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd wire codec: InfiniBand transport headers (LRH, GRH, BTH, DETH),
 * their CRCs (ICRC, VCRC) and the RoCE framings (v1 ethertype 0x8915,
 * v2 UDP 4791 over IPv4/IPv6).
 *
 * No DPDK dependency: the PMD, the client library, the tests and the tools
 * all use this. Every decoder takes (buffer, length) and rejects input that
 * is shorter than it needs or whose length fields disagree with it.
 */
#ifndef MADPMD_WIRE_H
#define MADPMD_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: 0 is success, every failure is negative and distinct. */
enum mpd_status {
	MPD_OK = 0,
	MPD_ETRUNC = -1,	/* input shorter than the structure needs */
	MPD_ELEN = -2,		/* a length field disagrees with the input */
	MPD_EVERSION = -3,	/* unsupported version (LVer, IPVer, TVer, ...) */
	MPD_ENEXTHDR = -4,	/* unsupported next header / ethertype / port */
	MPD_EICRC = -5,		/* invariant CRC mismatch */
	MPD_EVCRC = -6,		/* variant CRC mismatch */
	MPD_ERANGE = -7,	/* value does not fit its field (encode) */
	MPD_ENOSPC = -8,	/* output buffer too small (encode) */
	MPD_EINVAL = -9,	/* inconsistent fields or bad argument */
	MPD_ECSUM = -10,	/* IPv4 header checksum mismatch */
	MPD_EOPCODE = -11,	/* BTH opcode this codec does not carry */
};

/* A sentence describing a status code, never NULL. */
const char *mpd_strerror(int status);

/* ---- CRCs (IBA 7.8) ---------------------------------------------------- */

/* CRC-32 (Ethernet/zlib polynomial), seeded with crc from a previous call
 * (0 for the first). Returns the finalised CRC of everything so far. */
uint32_t mpd_crc32(uint32_t crc, const void *buf, size_t len);
/* VCRC: CRC-16, polynomial 0x100B, seed 0xFFFF, bit-reflected, inverted
 * (IBA 7.8.2). */
uint16_t mpd_crc16_vcrc(const void *buf, size_t len);

/* ---- Native IB transport headers --------------------------------------- */

#define MPD_LRH_LEN	8
#define MPD_GRH_LEN	40
#define MPD_BTH_LEN	12
#define MPD_DETH_LEN	8
#define MPD_ICRC_LEN	4
#define MPD_VCRC_LEN	2

/* LRH Link Next Header (IBA 7.7.3) */
enum mpd_lnh {
	MPD_LNH_RAW = 0,
	MPD_LNH_IP = 1,
	MPD_LNH_IBA_LOCAL = 2,	/* BTH follows */
	MPD_LNH_IBA_GLOBAL = 3,	/* GRH, then BTH */
};

#define MPD_LID_PERMISSIVE	0xffff
#define MPD_LID_MCAST_LO	0xc000	/* multicast LIDs: 0xc000 .. 0xfffe */
#define MPD_QPN_MCAST		0xffffff	/* a multicast packet's DestQP (IBA 9.2) */
#define MPD_VL15		15
#define MPD_GRH_NEXT_HDR_IBA	0x1b

/*
 * BTH opcodes (IBA 9.2 Table 35): the transport in bits 7..5, the
 * operation in bits 4..0. This codec carries RC, UC and UD (not RD, not
 * CNP); which extension headers follow the BTH is the opcode's
 * (mpd_op_hdrs()).
 */
#define MPD_TP_RC		0x00
#define MPD_TP_UC		0x20
#define MPD_TP_UD		0x60
#define MPD_TP_MASK		0xe0

enum mpd_op {
	MPD_OP_SEND_FIRST = 0x00,
	MPD_OP_SEND_MIDDLE = 0x01,
	MPD_OP_SEND_LAST = 0x02,
	MPD_OP_SEND_LAST_IMM = 0x03,
	MPD_OP_SEND_ONLY = 0x04,
	MPD_OP_SEND_ONLY_IMM = 0x05,
	MPD_OP_WRITE_FIRST = 0x06,
	MPD_OP_WRITE_MIDDLE = 0x07,
	MPD_OP_WRITE_LAST = 0x08,
	MPD_OP_WRITE_LAST_IMM = 0x09,
	MPD_OP_WRITE_ONLY = 0x0a,
	MPD_OP_WRITE_ONLY_IMM = 0x0b,
	MPD_OP_READ_REQ = 0x0c,
	MPD_OP_READ_RESP_FIRST = 0x0d,
	MPD_OP_READ_RESP_MIDDLE = 0x0e,
	MPD_OP_READ_RESP_LAST = 0x0f,
	MPD_OP_READ_RESP_ONLY = 0x10,
	MPD_OP_ACK = 0x11,
	MPD_OP_ATOMIC_ACK = 0x12,
	MPD_OP_CMP_SWAP = 0x13,
	MPD_OP_FETCH_ADD = 0x14,
	MPD_OP_SEND_LAST_INV = 0x16,
	MPD_OP_SEND_ONLY_INV = 0x17,
};

/* UD SEND Only (+immediate): what every MAD travels as */
#define MPD_OP_UD_SEND_ONLY	(MPD_TP_UD | MPD_OP_SEND_ONLY)
#define MPD_OP_UD_SEND_ONLY_IMM	(MPD_TP_UD | MPD_OP_SEND_ONLY_IMM)

/* Extension headers after the BTH, in this order on the wire (IBA 9.2) */
#define MPD_HDR_DETH		0x01u	/* UD */
#define MPD_HDR_RETH		0x02u	/* RDMA WRITE First/Only, READ req */
#define MPD_HDR_ATOMIC		0x04u	/* AtomicETH: CmpSwap, FetchAdd */
#define MPD_HDR_AETH		0x08u	/* ACK, READ responses, Atomic ACK */
#define MPD_HDR_ATOMIC_ACK	0x10u	/* AtomicAckETH */
#define MPD_HDR_IMM		0x20u	/* ImmDt */
#define MPD_HDR_IETH		0x40u	/* the rkey to invalidate */
#define MPD_HDR_PAYLOAD		0x80u	/* the opcode may carry data */

#define MPD_RETH_LEN		16
#define MPD_AETH_LEN		4
#define MPD_ATOMIC_ETH_LEN	28
#define MPD_ATOMIC_ACK_LEN	8

#define MPD_HDR_ALL		0xffu

/*
 * What an opcode is (IBA 9.2 Table 35, 9.4), beside its headers in the
 * same table: the QP layer's requester, completer and responder classify
 * packets by these bits, as rxe's rxe_opcode[] masks do. Exactly one
 * class bit per opcode the codec carries; an Only opcode is both FIRST
 * and LAST, and so is a READ request, an atomic and an ACK.
 */
#define MPD_OPC_SEND		0x00100u	/* SEND First..Only, Imm, Inv */
#define MPD_OPC_WRITE		0x00200u	/* WRITE First..Only, Imm */
#define MPD_OPC_READ		0x00400u	/* READ request */
#define MPD_OPC_ATOMIC		0x00800u	/* CmpSwap, FetchAdd */
#define MPD_OPC_READ_RESP	0x01000u	/* READ response First..Only */
#define MPD_OPC_ACK		0x02000u	/* Acknowledge: ACK or NAK */
#define MPD_OPC_ATOMIC_ACK	0x04000u	/* Atomic Acknowledge */
#define MPD_OPC_FIRST		0x08000u	/* starts a message */
#define MPD_OPC_LAST		0x10000u	/* ends one */
/* requests the responder answers from memory, and answers the
 * requester's completer takes */
#define MPD_OPC_RD_ATOMIC	(MPD_OPC_READ | MPD_OPC_ATOMIC)
#define MPD_OPC_ANSWER		(MPD_OPC_READ_RESP | MPD_OPC_ACK | \
				 MPD_OPC_ATOMIC_ACK)

/* The headers an opcode carries (MPD_HDR_*), or 0 for an opcode this
 * codec does not carry. */
uint32_t mpd_op_hdrs(uint8_t opcode);
/* Its headers and class (MPD_HDR_* | MPD_OPC_*); 0 likewise. */
uint32_t mpd_op_mask(uint8_t opcode);

/* RDMA Extended Transport Header (IBA 9.3.3.1) */
struct mpd_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
};

/* ACK Extended Transport Header (IBA 9.3.5): syndrome bits 6..5 say
 * ACK (0), RNR NAK (1, timer in 4..0) or NAK (3, code in 4..0) */
struct mpd_aeth {
	uint8_t syndrome;
	uint32_t msn;		/* 24 bits */
};

#define MPD_AETH_ACK		0x00
#define MPD_AETH_RNR_NAK	0x20
#define MPD_AETH_NAK		0x60
#define MPD_AETH_TYPE_MASK	0x60
#define MPD_AETH_CREDITS_INVALID 0x1f	/* an ACK without credits */
#define MPD_NAK_PSN_SEQ_ERR	0x00	/* IBA 9.3.5.1 Table 46 */
#define MPD_NAK_INV_REQ		0x01
#define MPD_NAK_REM_ACCESS	0x02
#define MPD_NAK_REM_OP		0x03
#define MPD_NAK_INV_RD_REQ	0x04

/* Atomic Extended Transport Header (IBA 9.3.3.2) */
struct mpd_atomic_eth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap_add;
	uint64_t compare;
};

/* Local Route Header (IBA 7.7) */
struct mpd_lrh {
	uint8_t vl;		/* 4 bits */
	uint8_t lver;		/* 4 bits */
	uint8_t sl;		/* 4 bits */
	uint8_t lnh;		/* 2 bits */
	uint16_t dlid;
	uint16_t pkt_len;	/* 11 bits, in 4-byte words, LRH..ICRC */
	uint16_t slid;
};

/* Global Route Header (IBA 8.3) */
struct mpd_grh {
	uint8_t ip_ver;		/* 4 bits, 6 */
	uint8_t tclass;
	uint32_t flow_label;	/* 20 bits */
	uint16_t pay_len;	/* bytes after the GRH, ICRC included */
	uint8_t next_hdr;
	uint8_t hop_limit;
	uint8_t sgid[16];
	uint8_t dgid[16];
};

/* Base Transport Header (IBA 9.2) */
struct mpd_bth {
	uint8_t opcode;
	uint8_t se;		/* 1 bit solicited event */
	uint8_t mig_req;	/* 1 bit */
	uint8_t pad_cnt;	/* 2 bits */
	uint8_t tver;		/* 4 bits, 0 */
	uint16_t pkey;
	uint8_t resv8a;		/* FECN/BECN on IB; masked out of the ICRC */
	uint32_t dest_qp;	/* 24 bits */
	uint8_t ack_req;	/* 1 bit */
	uint32_t psn;		/* 24 bits */
};

/* Datagram Extended Transport Header (IBA 9.3.3) */
struct mpd_deth {
	uint32_t qkey;
	uint32_t src_qp;	/* 24 bits */
};

int mpd_lrh_encode(const struct mpd_lrh *h, uint8_t *buf, size_t cap);
int mpd_lrh_decode(const uint8_t *buf, size_t len, struct mpd_lrh *h);
int mpd_grh_encode(const struct mpd_grh *h, uint8_t *buf, size_t cap);
int mpd_grh_decode(const uint8_t *buf, size_t len, struct mpd_grh *h);
int mpd_bth_encode(const struct mpd_bth *h, uint8_t *buf, size_t cap);
int mpd_bth_decode(const uint8_t *buf, size_t len, struct mpd_bth *h);
int mpd_deth_encode(const struct mpd_deth *h, uint8_t *buf, size_t cap);
int mpd_deth_decode(const uint8_t *buf, size_t len, struct mpd_deth *h);
int mpd_reth_encode(const struct mpd_reth *h, uint8_t *buf, size_t cap);
int mpd_reth_decode(const uint8_t *buf, size_t len, struct mpd_reth *h);
int mpd_aeth_encode(const struct mpd_aeth *h, uint8_t *buf, size_t cap);
int mpd_aeth_decode(const uint8_t *buf, size_t len, struct mpd_aeth *h);
int mpd_atomic_eth_encode(const struct mpd_atomic_eth *h, uint8_t *buf,
			  size_t cap);
int mpd_atomic_eth_decode(const uint8_t *buf, size_t len,
			  struct mpd_atomic_eth *h);
int mpd_atomic_ack_encode(uint64_t orig, uint8_t *buf, size_t cap);
int mpd_atomic_ack_decode(const uint8_t *buf, size_t len, uint64_t *orig);

/* ---- RoCE framing ------------------------------------------------------ */

#define MPD_ETH_LEN		14
#define MPD_VLAN_LEN		4
#define MPD_IPV4_LEN		20
#define MPD_IPV6_LEN		40
#define MPD_UDP_LEN		8
#define MPD_ETHERTYPE_IPV4	0x0800
#define MPD_ETHERTYPE_IPV6	0x86dd
#define MPD_ETHERTYPE_VLAN	0x8100
#define MPD_ETHERTYPE_ROCE	0x8915	/* RoCEv1: GRH follows */
#define MPD_ROCE_UDP_PORT	4791	/* RoCEv2: BTH follows UDP */
/* native IB frames carried on Ethernet between daemons (IEEE 802 Local
 * Experimental EtherType 1): LRH..VCRC follow, unchanged */
#define MPD_ETHERTYPE_IB	0x88b5

struct mpd_eth {
	uint8_t dst[6];
	uint8_t src[6];
	uint16_t vlan_tci;	/* valid when has_vlan */
	bool has_vlan;
	uint16_t ethertype;	/* of the payload, after any VLAN tag */
};

struct mpd_ipv4 {
	uint8_t tos;
	uint16_t total_len;
	uint16_t id;
	uint16_t frag;		/* flags + fragment offset */
	uint8_t ttl;
	uint8_t proto;
	uint16_t csum;
	uint8_t src[4];
	uint8_t dst[4];
};

struct mpd_ipv6 {
	uint8_t tclass;
	uint32_t flow_label;	/* 20 bits */
	uint16_t pay_len;
	uint8_t next_hdr;
	uint8_t hop_limit;
	uint8_t src[16];
	uint8_t dst[16];
};

struct mpd_udp {
	uint16_t sport;
	uint16_t dport;
	uint16_t len;
	uint16_t csum;
};

/* ---- Native IB on Ethernet (a fabric across hosts) --------------------- */

/*
 * The IB packet (LRH through VCRC) an Ethernet frame of EtherType
 * MPD_ETHERTYPE_IB carries: its offset in buf (returned) and its length
 * (*ib_len, from the LRH's PktLen, so that the padding a short Ethernet
 * frame gets is cut off), with the Ethernet header in *eth. MPD_ENEXTHDR
 * for any other EtherType, MPD_ETRUNC when the frame is shorter than the
 * LRH says, MPD_ELEN when PktLen is below the smallest packet.
 */
int mpd_ib_eth_decap(const uint8_t *buf, size_t len, struct mpd_eth *eth,
		     size_t *ib_len);
/* The Ethernet header that goes in front of an IB packet, into buf:
 * MPD_ETH_LEN, or MPD_ENOSPC. */
int mpd_ib_eth_header(const uint8_t dst[6], const uint8_t src[6],
		      uint8_t *buf, size_t cap);

/*
 * The link's heartbeat: what each end of such a link sends every
 * interval_ms (to broadcast, EtherType MPD_ETHERTYPE_LINK, IEEE 802 Local
 * Experimental 2), as an IB port trains with the one at the other end of
 * its cable (IBA 5.6.4 in spirit: a link is up when both ends hear each
 * other, and goes when one stops hearing). It names the port that sends
 * it and the one it last heard, so that each end knows whether the
 * other hears it and who is really at the other end of the cable.
 * Payload, big endian: "MPDL", version 1, flags, interval_ms (16 bits),
 * GUID (64), port, 3 reserved, heard GUID (64), heard port, 3 reserved.
 */
#define MPD_ETHERTYPE_LINK	0x88b6
#define MPD_LINK_HELLO_LEN	32	/* its payload */
#define MPD_LINK_HELLO_FRAME	60	/* the frame: Ethernet's shortest */
#define MPD_LINK_HELLO_VERSION	1
#define MPD_LINK_HEARD		0x01	/* flags: heard names whom it hears */

struct mpd_link_hello {
	uint8_t flags;
	uint16_t interval_ms;	/* how often the sender sends; not 0 */
	uint64_t guid;		/* the sender's port: PortGUID, port number */
	uint8_t port;
	uint64_t heard_guid;	/* the port it hears (with MPD_LINK_HEARD) */
	uint8_t heard_port;
};

/* A heartbeat frame from src to dst into buf: MPD_LINK_HELLO_FRAME, or
 * MPD_ENOSPC, or MPD_EINVAL for an interval of 0. */
int mpd_link_hello_encode(const uint8_t dst[6], const uint8_t src[6],
			  const struct mpd_link_hello *h, uint8_t *buf,
			  size_t cap);
/* The heartbeat in an Ethernet frame: MPD_OK with *eth and *h,
 * MPD_ENEXTHDR for any other EtherType, MPD_ETRUNC when short,
 * MPD_EINVAL without the magic or with an interval of 0, MPD_EVERSION
 * for a version other than 1. */
int mpd_link_hello_decode(const uint8_t *buf, size_t len, struct mpd_eth *eth,
			  struct mpd_link_hello *h);

/* ---- Whole packets ----------------------------------------------------- */

enum mpd_link {
	MPD_LINK_IB = 0,	/* LRH [GRH] BTH DETH payload ICRC VCRC */
	MPD_LINK_ROCE_V1 = 1,	/* Eth(0x8915) GRH BTH DETH payload ICRC */
	MPD_LINK_ROCE_V2 = 2,	/* Eth IPv4|IPv6 UDP(4791) BTH DETH payload ICRC */
};

/*
 * The headers of one packet: every MAD travels on UD QP0/QP1, data on UD,
 * RC and UC QPs with the extension headers their opcode says. On encode
 * the length fields (LRH PktLen, GRH PayLen, IP lengths, UDP length), the
 * pad count, the IPv4 checksum, the IPv6 UDP checksum, the ICRC and the VCRC
 * are computed, whatever the caller put there; everything else is taken as
 * given. On decode every field is filled from the wire.
 */
struct mpd_pkt {
	enum mpd_link link;
	/* MPD_LINK_IB */
	struct mpd_lrh lrh;
	bool has_grh;		/* IB: LNH says GRH; RoCEv1: always */
	struct mpd_grh grh;
	/* RoCE */
	struct mpd_eth eth;
	uint8_t ip_ver;		/* RoCEv2: 4 or 6 */
	struct mpd_ipv4 ip4;
	struct mpd_ipv6 ip6;
	struct mpd_udp udp;
	/* transport */
	struct mpd_bth bth;
	struct mpd_deth deth;
	uint32_t imm;		/* ImmDt (host order) */
	/* RC/UC extension headers, present as mpd_op_hdrs(opcode) says */
	struct mpd_reth reth;
	struct mpd_aeth aeth;
	struct mpd_atomic_eth atomic;
	uint64_t atomic_orig;	/* AtomicAckETH */
	uint32_t ieth;		/* the rkey to invalidate */
	/* decode only */
	const uint8_t *payload;	/* points into the decoded buffer */
	size_t payload_len;	/* without pad */
	size_t bth_off;		/* offset of the BTH in the frame */
	uint32_t icrc;
	uint16_t vcrc;
};

/* Decode flags */
#define MPD_PKT_NO_ICRC_CHECK	0x1u
#define MPD_PKT_NO_VCRC_CHECK	0x2u

/* Encode headers + payload into buf. Returns the frame length or a status.
 * The payload may lie in buf already, e.g. at its place in a request being
 * turned into the response. */
int mpd_pkt_encode(struct mpd_pkt *p, const void *payload, size_t payload_len,
		   uint8_t *buf, size_t cap);

/* Encode flag: an IB frame's ICRC and VCRC are left zero, for a frame
 * that goes to a node of the same process that does not check them
 * (MPD_PKT_NO_ICRC_CHECK | MPD_PKT_NO_VCRC_CHECK); whoever shows it to
 * anyone else (a capture, another process, a port that checks) calls
 * mpd_pkt_crc_fill() first. RoCE frames always get theirs (their UDP
 * checksum covers the ICRC). */
#define MPD_PKT_CRC_LATER	0x1u

/* mpd_pkt_encode() with MPD_PKT_* encode flags */
int mpd_pkt_encode_flags(struct mpd_pkt *p, const void *payload,
			 size_t payload_len, uint8_t *buf, size_t cap,
			 unsigned int flags);

/*
 * The CRCs of an IB frame encoded with MPD_PKT_CRC_LATER, made: when its
 * ICRC is zero, the ICRC and VCRC are computed and written (a frame whose
 * true ICRC is zero gets the same bytes again). Returns 1 when it wrote
 * them, 0 when the ICRC was not zero (the frame is left as it is), or a
 * negative status for a frame it cannot parse (MPD_EINVAL for RoCE).
 */
int mpd_pkt_crc_fill(enum mpd_link link, uint8_t *frame, size_t frame_len);
/* Decode a frame of the given link type. Checks lengths, versions and CRCs. */
int mpd_pkt_decode(enum mpd_link link, const uint8_t *buf, size_t len,
		   unsigned int flags, struct mpd_pkt *p);
/* The ICRC the frame should carry (the frame's own ICRC bytes not read).
 * frame_len covers everything up to and including the ICRC (and VCRC on IB). */
int mpd_pkt_icrc(enum mpd_link link, const uint8_t *frame, size_t frame_len,
		 uint32_t *icrc);

/* Byte helpers for everyone who reads or writes big-endian fields. */
static inline uint16_t
mpd_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
mpd_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t
mpd_get_be64(const uint8_t *p)
{
	return (uint64_t)mpd_get_be32(p) << 32 | mpd_get_be32(p + 4);
}

static inline void
mpd_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
mpd_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
mpd_put_be64(uint8_t *p, uint64_t v)
{
	mpd_put_be32(p, (uint32_t)(v >> 32));
	mpd_put_be32(p + 4, (uint32_t)v);
}

/* ... and little-endian ones: the ICRC and VCRC on the wire, host-order
 * integers of rdma-core structures in capture records. */
static inline uint32_t
mpd_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void
mpd_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void
mpd_put_le32(uint8_t *p, uint32_t v)
{
	mpd_put_le16(p, (uint16_t)v);
	mpd_put_le16(p + 2, (uint16_t)(v >> 16));
}

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_WIRE_H */
