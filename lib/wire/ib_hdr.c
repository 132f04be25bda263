/* SPDX-License-Identifier: BSD-3-Clause */
/* Native IB transport headers: LRH (IBA 7.7), GRH (8.3), BTH (9.2),
 * DETH (9.3.3). */
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
