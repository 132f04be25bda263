/* SPDX-License-Identifier: BSD-3-Clause */
/* Native IB transport headers: LRH (IBA 7.7), GRH (8.3), BTH (9.2), the
 * extension headers after it (DETH, RETH, AtomicETH, AETH, AtomicAckETH:
 * 9.3) and which of them each opcode carries (9.2 Table 35). */
#include <string.h>

#include "madpmd/wire.h"

int
mpd_lrh_encode(const struct mpd_lrh *h, uint8_t *buf, size_t cap)
{
	if (cap < MPD_LRH_LEN)
		return MPD_ENOSPC;
	if (h->vl > 15 || h->lver > 15 || h->sl > 15 || h->lnh > 3 ||
	    h->pkt_len > 0x7ff)
		return MPD_ERANGE;
	buf[0] = (uint8_t)(h->vl << 4 | h->lver);
	buf[1] = (uint8_t)(h->sl << 4 | h->lnh);
	mpd_put_be16(buf + 2, h->dlid);
	mpd_put_be16(buf + 4, h->pkt_len);
	mpd_put_be16(buf + 6, h->slid);
	return MPD_LRH_LEN;
}

int
mpd_lrh_decode(const uint8_t *buf, size_t len, struct mpd_lrh *h)
{
	if (len < MPD_LRH_LEN)
		return MPD_ETRUNC;
	h->vl = buf[0] >> 4;
	h->lver = buf[0] & 0xf;
	h->sl = buf[1] >> 4;
	h->lnh = buf[1] & 0x3;
	h->dlid = mpd_get_be16(buf + 2);
	h->pkt_len = mpd_get_be16(buf + 4) & 0x7ff;
	h->slid = mpd_get_be16(buf + 6);
	if (h->lver != 0)	/* IBA 7.7.1: link version 0 */
		return MPD_EVERSION;
	return MPD_LRH_LEN;
}

int
mpd_grh_encode(const struct mpd_grh *h, uint8_t *buf, size_t cap)
{
	if (cap < MPD_GRH_LEN)
		return MPD_ENOSPC;
	if (h->ip_ver > 15 || h->flow_label > 0xfffff)
		return MPD_ERANGE;
	mpd_put_be32(buf, (uint32_t)h->ip_ver << 28 |
			  (uint32_t)h->tclass << 20 | h->flow_label);
	mpd_put_be16(buf + 4, h->pay_len);
	buf[6] = h->next_hdr;
	buf[7] = h->hop_limit;
	memcpy(buf + 8, h->sgid, 16);
	memcpy(buf + 24, h->dgid, 16);
	return MPD_GRH_LEN;
}

int
mpd_grh_decode(const uint8_t *buf, size_t len, struct mpd_grh *h)
{
	uint32_t w;

	if (len < MPD_GRH_LEN)
		return MPD_ETRUNC;
	w = mpd_get_be32(buf);
	h->ip_ver = (uint8_t)(w >> 28);
	h->tclass = (uint8_t)(w >> 20);
	h->flow_label = w & 0xfffff;
	h->pay_len = mpd_get_be16(buf + 4);
	h->next_hdr = buf[6];
	h->hop_limit = buf[7];
	memcpy(h->sgid, buf + 8, 16);
	memcpy(h->dgid, buf + 24, 16);
	if (h->ip_ver != 6)	/* IBA 8.3.1: IPVer 6 */
		return MPD_EVERSION;
	return MPD_GRH_LEN;
}

int
mpd_bth_encode(const struct mpd_bth *h, uint8_t *buf, size_t cap)
{
	if (cap < MPD_BTH_LEN)
		return MPD_ENOSPC;
	if (h->se > 1 || h->mig_req > 1 || h->pad_cnt > 3 || h->tver > 15 ||
	    h->dest_qp > 0xffffff || h->ack_req > 1 || h->psn > 0xffffff)
		return MPD_ERANGE;
	buf[0] = h->opcode;
	buf[1] = (uint8_t)(h->se << 7 | h->mig_req << 6 | h->pad_cnt << 4 |
			   h->tver);
	mpd_put_be16(buf + 2, h->pkey);
	mpd_put_be32(buf + 4, (uint32_t)h->resv8a << 24 | h->dest_qp);
	mpd_put_be32(buf + 8, (uint32_t)h->ack_req << 31 | h->psn);
	return MPD_BTH_LEN;
}

int
mpd_bth_decode(const uint8_t *buf, size_t len, struct mpd_bth *h)
{
	if (len < MPD_BTH_LEN)
		return MPD_ETRUNC;
	h->opcode = buf[0];
	h->se = buf[1] >> 7;
	h->mig_req = (buf[1] >> 6) & 1;
	h->pad_cnt = (buf[1] >> 4) & 3;
	h->tver = buf[1] & 0xf;
	h->pkey = mpd_get_be16(buf + 2);
	h->resv8a = buf[4];
	h->dest_qp = mpd_get_be32(buf + 4) & 0xffffff;
	h->ack_req = buf[8] >> 7;
	h->psn = mpd_get_be32(buf + 8) & 0xffffff;
	if (h->tver != 0)	/* IBA 9.2.1: transport version 0 */
		return MPD_EVERSION;
	return MPD_BTH_LEN;
}

int
mpd_deth_encode(const struct mpd_deth *h, uint8_t *buf, size_t cap)
{
	if (cap < MPD_DETH_LEN)
		return MPD_ENOSPC;
	if (h->src_qp > 0xffffff)
		return MPD_ERANGE;
	mpd_put_be32(buf, h->qkey);
	mpd_put_be32(buf + 4, h->src_qp);	/* byte 4 reserved, zero */
	return MPD_DETH_LEN;
}

int
mpd_deth_decode(const uint8_t *buf, size_t len, struct mpd_deth *h)
{
	if (len < MPD_DETH_LEN)
		return MPD_ETRUNC;
	h->qkey = mpd_get_be32(buf);
	h->src_qp = mpd_get_be32(buf + 4) & 0xffffff;
	return MPD_DETH_LEN;
}

int
mpd_reth_encode(const struct mpd_reth *h, uint8_t *buf, size_t cap)
{
	if (cap < MPD_RETH_LEN)
		return MPD_ENOSPC;
	mpd_put_be64(buf, h->va);
	mpd_put_be32(buf + 8, h->rkey);
	mpd_put_be32(buf + 12, h->dma_len);
	return MPD_RETH_LEN;
}

int
mpd_reth_decode(const uint8_t *buf, size_t len, struct mpd_reth *h)
{
	if (len < MPD_RETH_LEN)
		return MPD_ETRUNC;
	h->va = mpd_get_be64(buf);
	h->rkey = mpd_get_be32(buf + 8);
	h->dma_len = mpd_get_be32(buf + 12);
	return MPD_RETH_LEN;
}

int
mpd_aeth_encode(const struct mpd_aeth *h, uint8_t *buf, size_t cap)
{
	if (cap < MPD_AETH_LEN)
		return MPD_ENOSPC;
	if (h->msn > 0xffffff)
		return MPD_ERANGE;
	mpd_put_be32(buf, (uint32_t)h->syndrome << 24 | h->msn);
	return MPD_AETH_LEN;
}

int
mpd_aeth_decode(const uint8_t *buf, size_t len, struct mpd_aeth *h)
{
	if (len < MPD_AETH_LEN)
		return MPD_ETRUNC;
	h->syndrome = buf[0];
	h->msn = mpd_get_be32(buf) & 0xffffff;
	return MPD_AETH_LEN;
}

int
mpd_atomic_eth_encode(const struct mpd_atomic_eth *h, uint8_t *buf,
		      size_t cap)
{
	if (cap < MPD_ATOMIC_ETH_LEN)
		return MPD_ENOSPC;
	mpd_put_be64(buf, h->va);
	mpd_put_be32(buf + 8, h->rkey);
	mpd_put_be64(buf + 12, h->swap_add);
	mpd_put_be64(buf + 20, h->compare);
	return MPD_ATOMIC_ETH_LEN;
}

int
mpd_atomic_eth_decode(const uint8_t *buf, size_t len,
		      struct mpd_atomic_eth *h)
{
	if (len < MPD_ATOMIC_ETH_LEN)
		return MPD_ETRUNC;
	h->va = mpd_get_be64(buf);
	h->rkey = mpd_get_be32(buf + 8);
	h->swap_add = mpd_get_be64(buf + 12);
	h->compare = mpd_get_be64(buf + 20);
	return MPD_ATOMIC_ETH_LEN;
}

int
mpd_atomic_ack_encode(uint64_t orig, uint8_t *buf, size_t cap)
{
	if (cap < MPD_ATOMIC_ACK_LEN)
		return MPD_ENOSPC;
	mpd_put_be64(buf, orig);
	return MPD_ATOMIC_ACK_LEN;
}

int
mpd_atomic_ack_decode(const uint8_t *buf, size_t len, uint64_t *orig)
{
	if (len < MPD_ATOMIC_ACK_LEN)
		return MPD_ETRUNC;
	*orig = mpd_get_be64(buf);
	return MPD_ATOMIC_ACK_LEN;
}

/* ---- opcodes (IBA 9.2 Table 35, 9.3) ------------------------------------ */

#define P	MPD_HDR_PAYLOAD
#define IMM	MPD_HDR_IMM
#define F	MPD_OPC_FIRST
#define L	MPD_OPC_LAST
#define SEND	MPD_OPC_SEND
#define WRITE	MPD_OPC_WRITE

/* The operations RC and UC share: SEND and RDMA WRITE (IBA 9.4.1, 9.4.2) */
#define SEND_WRITE_OPS(tp)						\
	[(tp) | MPD_OP_SEND_FIRST] = SEND | F | P,			\
	[(tp) | MPD_OP_SEND_MIDDLE] = SEND | P,				\
	[(tp) | MPD_OP_SEND_LAST] = SEND | L | P,			\
	[(tp) | MPD_OP_SEND_LAST_IMM] = SEND | L | IMM | P,		\
	[(tp) | MPD_OP_SEND_ONLY] = SEND | F | L | P,			\
	[(tp) | MPD_OP_SEND_ONLY_IMM] = SEND | F | L | IMM | P,		\
	[(tp) | MPD_OP_WRITE_FIRST] = WRITE | F | MPD_HDR_RETH | P,	\
	[(tp) | MPD_OP_WRITE_MIDDLE] = WRITE | P,			\
	[(tp) | MPD_OP_WRITE_LAST] = WRITE | L | P,			\
	[(tp) | MPD_OP_WRITE_LAST_IMM] = WRITE | L | IMM | P,		\
	[(tp) | MPD_OP_WRITE_ONLY] = WRITE | F | L | MPD_HDR_RETH | P,	\
	[(tp) | MPD_OP_WRITE_ONLY_IMM] = WRITE | F | L | MPD_HDR_RETH | IMM | P

/* One lookup per packet on the data path, for the codec (the headers)
 * and the QP layer (the class); 0 for RD (0x40..), CNP (0x80), reserved
 * codes (RC 0x15) and the operations UC and UD do not have. */
static const uint32_t op_mask[256] = {
	SEND_WRITE_OPS(MPD_TP_RC),
	[MPD_OP_READ_REQ] = MPD_OPC_READ | F | L | MPD_HDR_RETH,
	[MPD_OP_READ_RESP_FIRST] = MPD_OPC_READ_RESP | F | MPD_HDR_AETH | P,
	/* the only response without AETH */
	[MPD_OP_READ_RESP_MIDDLE] = MPD_OPC_READ_RESP | P,
	[MPD_OP_READ_RESP_LAST] = MPD_OPC_READ_RESP | L | MPD_HDR_AETH | P,
	[MPD_OP_READ_RESP_ONLY] = MPD_OPC_READ_RESP | F | L | MPD_HDR_AETH | P,
	[MPD_OP_ACK] = MPD_OPC_ACK | F | L | MPD_HDR_AETH,
	[MPD_OP_ATOMIC_ACK] = MPD_OPC_ATOMIC_ACK | F | L | MPD_HDR_AETH |
			      MPD_HDR_ATOMIC_ACK,
	[MPD_OP_CMP_SWAP] = MPD_OPC_ATOMIC | F | L | MPD_HDR_ATOMIC,
	[MPD_OP_FETCH_ADD] = MPD_OPC_ATOMIC | F | L | MPD_HDR_ATOMIC,
	[MPD_OP_SEND_LAST_INV] = SEND | L | MPD_HDR_IETH | P,
	[MPD_OP_SEND_ONLY_INV] = SEND | F | L | MPD_HDR_IETH | P,
	SEND_WRITE_OPS(MPD_TP_UC),
	[MPD_OP_UD_SEND_ONLY] = SEND | F | L | MPD_HDR_DETH | P,
	[MPD_OP_UD_SEND_ONLY_IMM] = SEND | F | L | MPD_HDR_DETH | IMM | P,
};

#undef P
#undef IMM
#undef F
#undef L
#undef SEND
#undef WRITE
#undef SEND_WRITE_OPS

uint32_t
mpd_op_hdrs(uint8_t opcode)
{
	return op_mask[opcode] & MPD_HDR_ALL;
}

uint32_t
mpd_op_mask(uint8_t opcode)
{
	return op_mask[opcode];
}
