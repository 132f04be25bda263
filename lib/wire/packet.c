/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole packets on the three links: native IB, RoCEv1 and RoCEv2; UD, RC
 * and UC opcodes with the extension headers each one carries. Lengths, pad
 * count, checksums and CRCs are computed here so that every producer of
 * frames (PMD, tests, tools) agrees on them.
 */
#include <string.h>

#include "wire_priv.h"

#define ICRC_MASK_MAX	(MPD_LRH_LEN + 60 + MPD_UDP_LEN + MPD_BTH_LEN)

/* Bytes of the extension headers h (MPD_HDR_*) between BTH and payload */
static size_t
ext_len(uint32_t h)
{
	return (h & MPD_HDR_DETH ? MPD_DETH_LEN : 0) +
	       (h & MPD_HDR_RETH ? MPD_RETH_LEN : 0) +
	       (h & MPD_HDR_ATOMIC ? MPD_ATOMIC_ETH_LEN : 0) +
	       (h & MPD_HDR_AETH ? MPD_AETH_LEN : 0) +
	       (h & MPD_HDR_ATOMIC_ACK ? MPD_ATOMIC_ACK_LEN : 0) +
	       (h & MPD_HDR_IMM ? 4 : 0) +
	       (h & MPD_HDR_IETH ? 4 : 0);
}

/* Writes the extension headers h from p at buf, in their wire order (IBA
 * 9.2 Table 35); the caller has checked the room. Returns bytes written. */
static int
encode_ext(const struct mpd_pkt *p, uint32_t h, uint8_t *buf, size_t cap)
{
	size_t off = 0;
	int rc;

	if (h & MPD_HDR_DETH) {
		rc = mpd_deth_encode(&p->deth, buf, cap);
		if (rc < 0)
			return rc;
		off += MPD_DETH_LEN;
	}
	if (h & MPD_HDR_RETH) {
		mpd_reth_encode(&p->reth, buf + off, cap - off);
		off += MPD_RETH_LEN;
	}
	if (h & MPD_HDR_ATOMIC) {
		mpd_atomic_eth_encode(&p->atomic, buf + off, cap - off);
		off += MPD_ATOMIC_ETH_LEN;
	}
	if (h & MPD_HDR_AETH) {
		rc = mpd_aeth_encode(&p->aeth, buf + off, cap - off);
		if (rc < 0)
			return rc;
		off += MPD_AETH_LEN;
	}
	if (h & MPD_HDR_ATOMIC_ACK) {
		mpd_atomic_ack_encode(p->atomic_orig, buf + off, cap - off);
		off += MPD_ATOMIC_ACK_LEN;
	}
	if (h & MPD_HDR_IMM) {
		mpd_put_be32(buf + off, p->imm);
		off += 4;
	}
	if (h & MPD_HDR_IETH) {
		mpd_put_be32(buf + off, p->ieth);
		off += 4;
	}
	return (int)off;
}

/* Reads the extension headers h into p from buf[0..len). Returns the bytes
 * read, or MPD_ETRUNC when one of them does not fit. */
static int
decode_ext(const uint8_t *buf, size_t len, uint32_t h, struct mpd_pkt *p)
{
	size_t off = 0;
	int rc;

	if (h & MPD_HDR_DETH) {
		rc = mpd_deth_decode(buf, len, &p->deth);
		if (rc < 0)
			return rc;
		off += (size_t)rc;
	}
	if (h & MPD_HDR_RETH) {
		rc = mpd_reth_decode(buf + off, len - off, &p->reth);
		if (rc < 0)
			return rc;
		off += (size_t)rc;
	}
	if (h & MPD_HDR_ATOMIC) {
		rc = mpd_atomic_eth_decode(buf + off, len - off, &p->atomic);
		if (rc < 0)
			return rc;
		off += (size_t)rc;
	}
	if (h & MPD_HDR_AETH) {
		rc = mpd_aeth_decode(buf + off, len - off, &p->aeth);
		if (rc < 0)
			return rc;
		off += (size_t)rc;
	}
	if (h & MPD_HDR_ATOMIC_ACK) {
		rc = mpd_atomic_ack_decode(buf + off, len - off,
					   &p->atomic_orig);
		if (rc < 0)
			return rc;
		off += (size_t)rc;
	}
	if (h & MPD_HDR_IMM) {
		if (len - off < 4)
			return MPD_ETRUNC;
		p->imm = mpd_get_be32(buf + off);
		off += 4;
	}
	if (h & MPD_HDR_IETH) {
		if (len - off < 4)
			return MPD_ETRUNC;
		p->ieth = mpd_get_be32(buf + off);
		off += 4;
	}
	return (int)off;
}

/*
 * ICRC (IBA 7.8.1; RoCE annex A16/A17): CRC-32 over the packet from the
 * LRH (RoCE: eight 0xFF bytes in its place) to the end of the payload, with
 * the fields that may change in flight replaced by ones: LRH VL, GRH/IPv6
 * traffic class, flow label and hop limit, IPv4 TOS, TTL and checksum, UDP
 * checksum, BTH reserved byte 4.
 */
static uint32_t
icrc_compute(enum mpd_link link, const uint8_t *f, size_t net_off,
	     size_t bth_off, size_t icrc_off)
{
	uint8_t m[ICRC_MASK_MAX + 64];
	size_t n = MPD_LRH_LEN, hl = bth_off - net_off, body_len, more;
	const uint8_t *body;
	uint32_t crc;

	if (link == MPD_LINK_IB) {
		memcpy(m, f, MPD_LRH_LEN);
		m[0] |= 0xf0;
	} else {
		memset(m, 0xff, MPD_LRH_LEN);
	}
	memcpy(m + n, f + net_off, hl);
	if (link == MPD_LINK_IB || link == MPD_LINK_ROCE_V1 ||
	    (hl > 0 && m[n] >> 4 == 6)) {
		if (hl >= MPD_GRH_LEN) {	/* GRH and IPv6 share the layout */
			m[n] |= 0x0f;
			memset(m + n + 1, 0xff, 3);
			m[n + 7] = 0xff;
		}
		if (link == MPD_LINK_ROCE_V2)
			memset(m + n + MPD_IPV6_LEN + 6, 0xff, 2);
	} else if (hl > 0) {			/* RoCEv2 over IPv4 */
		size_t ihl = (size_t)(m[n] & 0xf) * 4;

		m[n + 1] = 0xff;
		m[n + 8] = 0xff;
		memset(m + n + 10, 0xff, 2);
		memset(m + n + ihl + 6, 0xff, 2);
	}
	n += hl;
	memcpy(m + n, f + bth_off, MPD_BTH_LEN);
	m[n + 4] = 0xff;
	n += MPD_BTH_LEN;
	/* carry on with the unmasked bytes up to a multiple of 64: the CRC
	 * then folds both pieces 16 bytes at a time, and only the packet's
	 * own last bytes go through the tables */
	body = f + bth_off + MPD_BTH_LEN;
	body_len = icrc_off - bth_off - MPD_BTH_LEN;
	more = ((n + 63) & ~(size_t)63) - n;
	if (more > body_len)
		more = body_len;
	memcpy(m + n, body, more);
	crc = mpd_crc32(0, m, n + more);
	return mpd_crc32(crc, body + more, body_len - more);
}

/* Folded one's-complement sum of the IPv6 pseudo-header and the UDP
 * datagram (RFC 8200 8.1). */
static uint16_t
udp6_sum(const uint8_t *ip6, const uint8_t *udp, size_t udp_len)
{
	uint32_t sum = 0;

	sum = mpd_inet_sum(sum, ip6 + 8, 32);	/* source + destination */
	sum += (uint32_t)udp_len;
	sum += 17;
	sum = mpd_inet_sum(sum, udp, udp_len);
	return mpd_inet_fold(sum);
}

/* Writes the network header(s) before the BTH; returns their end offset. */
static int
encode_net(struct mpd_pkt *p, size_t tlen, uint8_t *buf, size_t cap,
	   size_t *net_off)
{
	size_t off = 0;
	int rc;

	switch (p->link) {
	case MPD_LINK_IB:
		p->lrh.lnh = p->has_grh ? MPD_LNH_IBA_GLOBAL : MPD_LNH_IBA_LOCAL;
		off = MPD_LRH_LEN + (p->has_grh ? MPD_GRH_LEN : 0);
		if ((off + tlen) / 4 > 0x7ff)
			return MPD_ERANGE;
		p->lrh.pkt_len = (uint16_t)((off + tlen) / 4);
		rc = mpd_lrh_encode(&p->lrh, buf, cap);
		if (rc < 0)
			return rc;
		*net_off = MPD_LRH_LEN;
		if (!p->has_grh)
			return (int)off;
		p->grh.pay_len = (uint16_t)tlen;
		rc = mpd_grh_encode(&p->grh, buf + MPD_LRH_LEN,
				    cap - MPD_LRH_LEN);
		return rc < 0 ? rc : (int)off;
	case MPD_LINK_ROCE_V1:
		p->has_grh = true;
		p->eth.ethertype = MPD_ETHERTYPE_ROCE;
		rc = mpd_eth_encode(&p->eth, buf, cap);
		if (rc < 0)
			return rc;
		off = (size_t)rc;
		*net_off = off;
		if (tlen > 0xffff)
			return MPD_ERANGE;
		p->grh.pay_len = (uint16_t)tlen;
		rc = mpd_grh_encode(&p->grh, buf + off, cap - off);
		return rc < 0 ? rc : (int)(off + MPD_GRH_LEN);
	case MPD_LINK_ROCE_V2:
		break;
	default:
		return MPD_EINVAL;
	}

	if (p->ip_ver != 4 && p->ip_ver != 6)
		return MPD_EINVAL;
	p->eth.ethertype = p->ip_ver == 4 ? MPD_ETHERTYPE_IPV4
					  : MPD_ETHERTYPE_IPV6;
	rc = mpd_eth_encode(&p->eth, buf, cap);
	if (rc < 0)
		return rc;
	off = (size_t)rc;
	*net_off = off;
	/* IPv4 total length counts its header, IPv6 payload length does not */
	if (tlen + MPD_UDP_LEN + (p->ip_ver == 4 ? MPD_IPV4_LEN : 0) > 0xffff)
		return MPD_ERANGE;
	if (p->ip_ver == 4) {
		p->ip4.total_len = (uint16_t)(MPD_IPV4_LEN + MPD_UDP_LEN + tlen);
		p->ip4.proto = 17;
		p->ip4.csum = 0;
		rc = mpd_ipv4_encode(&p->ip4, buf + off, cap - off);
		if (rc < 0)
			return rc;
		p->ip4.csum = (uint16_t)~mpd_inet_fold(
				mpd_inet_sum(0, buf + off, MPD_IPV4_LEN));
		mpd_put_be16(buf + off + 10, p->ip4.csum);
		off += MPD_IPV4_LEN;
		p->udp.csum = 0;	/* optional on IPv4; RoCEv2 sends 0 */
	} else {
		p->ip6.pay_len = (uint16_t)(MPD_UDP_LEN + tlen);
		p->ip6.next_hdr = 17;
		rc = mpd_ipv6_encode(&p->ip6, buf + off, cap - off);
		if (rc < 0)
			return rc;
		off += MPD_IPV6_LEN;
		p->udp.csum = 0;	/* filled once the payload is in */
	}
	p->udp.len = (uint16_t)(MPD_UDP_LEN + tlen);
	rc = mpd_udp_encode(&p->udp, buf + off, cap - off);
	return rc < 0 ? rc : (int)(off + MPD_UDP_LEN);
}

/* The VCRC of the len bytes before it (IBA 7.8.2), little-endian */
static uint16_t
put_vcrc(uint8_t *buf, size_t len)
{
	uint16_t v = mpd_crc16_vcrc(buf, len);

	buf[len] = (uint8_t)v;
	buf[len + 1] = (uint8_t)(v >> 8);
	return v;
}

int
mpd_pkt_encode(struct mpd_pkt *p, const void *payload, size_t payload_len,
	       uint8_t *buf, size_t cap)
{
	return mpd_pkt_encode_flags(p, payload, payload_len, buf, cap, 0);
}

int
mpd_pkt_encode_flags(struct mpd_pkt *p, const void *payload,
		     size_t payload_len, uint8_t *buf, size_t cap,
		     unsigned int flags)
{
	uint32_t hdrs = mpd_op_hdrs(p->bth.opcode);
	size_t pad = (4 - payload_len % 4) % 4;
	size_t tlen = MPD_BTH_LEN + ext_len(hdrs) + payload_len + pad +
		      MPD_ICRC_LEN;
	size_t net_off = 0, off, icrc_off, total;
	int rc;

	if (!hdrs)
		return MPD_EOPCODE;
	/* ACK, READ request, atomics: headers only (IBA 9.2 Table 35) */
	if (payload_len && (!payload || !(hdrs & MPD_HDR_PAYLOAD)))
		return MPD_EINVAL;
	if (tlen > 0xffff)
		return MPD_ERANGE;
	rc = encode_net(p, tlen, buf, cap, &net_off);
	if (rc < 0)
		return rc;
	off = (size_t)rc;
	total = off + tlen + (p->link == MPD_LINK_IB ? MPD_VCRC_LEN : 0);
	if (cap < total)
		return MPD_ENOSPC;

	p->bth.pad_cnt = (uint8_t)pad;
	p->bth_off = off;
	rc = mpd_bth_encode(&p->bth, buf + off, cap - off);
	if (rc < 0)
		return rc;
	off += MPD_BTH_LEN;
	rc = encode_ext(p, hdrs, buf + off, cap - off);
	if (rc < 0)
		return rc;
	off += (size_t)rc;
	/* a response built in place already sits where it belongs */
	if (payload_len && payload != buf + off)
		memmove(buf + off, payload, payload_len);
	memset(buf + off + payload_len, 0, pad);
	icrc_off = off + payload_len + pad;

	if (p->link == MPD_LINK_IB && (flags & MPD_PKT_CRC_LATER)) {
		/* zero: mpd_pkt_crc_fill() makes them where they are needed */
		p->icrc = 0;
		p->vcrc = 0;
		memset(buf + icrc_off, 0, MPD_ICRC_LEN + MPD_VCRC_LEN);
	} else {
		p->icrc = icrc_compute(p->link, buf, net_off, p->bth_off,
				       icrc_off);
		mpd_put_le32(buf + icrc_off, p->icrc);
		if (p->link == MPD_LINK_IB)
			p->vcrc = put_vcrc(buf, icrc_off + MPD_ICRC_LEN);
	}
	if (p->link == MPD_LINK_ROCE_V2 && p->ip_ver == 6) {
		size_t udp_off = p->bth_off - MPD_UDP_LEN;

		p->udp.csum = (uint16_t)~udp6_sum(buf + udp_off - MPD_IPV6_LEN,
						  buf + udp_off, p->udp.len);
		if (p->udp.csum == 0)
			p->udp.csum = 0xffff;	/* RFC 768: zero means none */
		mpd_put_be16(buf + udp_off + 6, p->udp.csum);
	}
	p->payload = NULL;
	p->payload_len = payload_len;
	return (int)total;
}

/* Parses the headers before the BTH. On success *end is where the ICRC
 * ends (IB: where the VCRC starts), *net_off where the ICRC's network
 * header part starts. Returns the BTH offset. */
static int
decode_net(enum mpd_link link, const uint8_t *buf, size_t len,
	   struct mpd_pkt *p, size_t *net_off, size_t *end)
{
	size_t off;
	int rc;

	if (link == MPD_LINK_IB) {
		size_t plen;

		rc = mpd_lrh_decode(buf, len, &p->lrh);
		if (rc < 0)
			return rc;
		if (p->lrh.lnh != MPD_LNH_IBA_LOCAL &&
		    p->lrh.lnh != MPD_LNH_IBA_GLOBAL)
			return MPD_ENEXTHDR;
		plen = (size_t)p->lrh.pkt_len * 4;
		if (len < plen + MPD_VCRC_LEN)
			return MPD_ETRUNC;
		if (len != plen + MPD_VCRC_LEN)
			return MPD_ELEN;
		*net_off = MPD_LRH_LEN;
		*end = plen;
		off = MPD_LRH_LEN;
		p->has_grh = p->lrh.lnh == MPD_LNH_IBA_GLOBAL;
		if (!p->has_grh)
			return (int)off;
		rc = mpd_grh_decode(buf + off, len - off, &p->grh);
		if (rc < 0)
			return rc;
		if (p->grh.next_hdr != MPD_GRH_NEXT_HDR_IBA)
			return MPD_ENEXTHDR;
		off += MPD_GRH_LEN;
		if (off + p->grh.pay_len != plen)
			return MPD_ELEN;
		return (int)off;
	}

	rc = mpd_eth_decode(buf, len, &p->eth);
	if (rc < 0)
		return rc;
	off = (size_t)rc;
	*net_off = off;
	if (link == MPD_LINK_ROCE_V1) {
		if (p->eth.ethertype != MPD_ETHERTYPE_ROCE)
			return MPD_ENEXTHDR;
		p->has_grh = true;
		rc = mpd_grh_decode(buf + off, len - off, &p->grh);
		if (rc < 0)
			return rc;
		if (p->grh.next_hdr != MPD_GRH_NEXT_HDR_IBA)
			return MPD_ENEXTHDR;
		off += MPD_GRH_LEN;
		if (off + p->grh.pay_len > len)
			return MPD_ETRUNC;
		*end = off + p->grh.pay_len;
		return (int)off;
	}
	if (link != MPD_LINK_ROCE_V2)
		return MPD_EINVAL;

	if (p->eth.ethertype == MPD_ETHERTYPE_IPV4) {
		p->ip_ver = 4;
		rc = mpd_ipv4_decode(buf + off, len - off, &p->ip4);
		if (rc < 0)
			return rc;
		if (p->ip4.proto != 17)
			return MPD_ENEXTHDR;
		if (off + p->ip4.total_len > len)
			return MPD_ETRUNC;
		*end = off + p->ip4.total_len;
		off += (size_t)rc;
	} else if (p->eth.ethertype == MPD_ETHERTYPE_IPV6) {
		p->ip_ver = 6;
		rc = mpd_ipv6_decode(buf + off, len - off, &p->ip6);
		if (rc < 0)
			return rc;
		if (p->ip6.next_hdr != 17)
			return MPD_ENEXTHDR;
		off += MPD_IPV6_LEN;
		if (off + p->ip6.pay_len > len)
			return MPD_ETRUNC;
		*end = off + p->ip6.pay_len;
	} else {
		return MPD_ENEXTHDR;
	}
	rc = mpd_udp_decode(buf + off, *end - off, &p->udp);
	if (rc < 0)
		return rc;
	if (p->udp.dport != MPD_ROCE_UDP_PORT)
		return MPD_ENEXTHDR;
	if (off + p->udp.len != *end)
		return MPD_ELEN;
	/* The UDP checksum is not checked: the ICRC protects the packet,
	 * masks the checksum field, and RoCE senders may leave it zero. */
	return (int)(off + MPD_UDP_LEN);
}

int
mpd_pkt_decode(enum mpd_link link, const uint8_t *buf, size_t len,
	       unsigned int flags, struct mpd_pkt *p)
{
	size_t net_off = 0, end = 0, off, icrc_off, hdr_end;
	uint32_t hdrs;
	int rc;

	memset(p, 0, sizeof(*p));
	p->link = link;
	rc = decode_net(link, buf, len, p, &net_off, &end);
	if (rc < 0)
		return rc;
	off = (size_t)rc;
	p->bth_off = off;
	if (end < off + MPD_BTH_LEN + MPD_ICRC_LEN)
		return MPD_ETRUNC;
	icrc_off = end - MPD_ICRC_LEN;
	rc = mpd_bth_decode(buf + off, icrc_off - off, &p->bth);
	if (rc < 0)
		return rc;
	hdrs = mpd_op_hdrs(p->bth.opcode);
	if (!hdrs)
		return MPD_EOPCODE;
	off += MPD_BTH_LEN;
	rc = decode_ext(buf + off, icrc_off - off, hdrs, p);
	if (rc < 0)
		return rc;
	hdr_end = off + (size_t)rc;
	if (icrc_off < hdr_end + p->bth.pad_cnt)
		return MPD_ELEN;
	/* data (or pad) on an opcode without payload disagrees with the
	 * packet length the opcode implies (IBA 9.2 Table 35) */
	if (!(hdrs & MPD_HDR_PAYLOAD) && icrc_off != hdr_end)
		return MPD_ELEN;
	p->payload = buf + hdr_end;
	p->payload_len = icrc_off - hdr_end - p->bth.pad_cnt;
	p->icrc = mpd_get_le32(buf + icrc_off);
	if (link == MPD_LINK_IB)
		p->vcrc = (uint16_t)(buf[end] | buf[end + 1] << 8);

	if (!(flags & MPD_PKT_NO_ICRC_CHECK) &&
	    icrc_compute(link, buf, net_off, p->bth_off, icrc_off) != p->icrc)
		return MPD_EICRC;
	if (link == MPD_LINK_IB && !(flags & MPD_PKT_NO_VCRC_CHECK) &&
	    mpd_crc16_vcrc(buf, end) != p->vcrc)
		return MPD_EVCRC;
	return MPD_OK;
}

/* The ICRC a whole frame should carry, and where it sits (*icrc_off) */
static int
frame_icrc(enum mpd_link link, const uint8_t *frame, size_t frame_len,
	   uint32_t *icrc, size_t *icrc_off)
{
	struct mpd_pkt p;
	size_t net_off = 0, end = 0;
	int rc;

	memset(&p, 0, sizeof(p));
	rc = decode_net(link, frame, frame_len, &p, &net_off, &end);
	if (rc < 0)
		return rc;
	if (end < (size_t)rc + MPD_BTH_LEN + MPD_ICRC_LEN)
		return MPD_ETRUNC;
	*icrc_off = end - MPD_ICRC_LEN;
	*icrc = icrc_compute(link, frame, net_off, (size_t)rc, *icrc_off);
	return MPD_OK;
}

int
mpd_pkt_icrc(enum mpd_link link, const uint8_t *frame, size_t frame_len,
	     uint32_t *icrc)
{
	size_t off;

	return frame_icrc(link, frame, frame_len, icrc, &off);
}

int
mpd_pkt_crc_fill(enum mpd_link link, uint8_t *frame, size_t frame_len)
{
	static const uint8_t zero[MPD_ICRC_LEN];
	uint32_t icrc;
	size_t off;
	int rc;

	if (link != MPD_LINK_IB)
		return MPD_EINVAL;
	/* an IB frame ends in its ICRC and VCRC (decode_net checks it) */
	if (frame_len >= MPD_ICRC_LEN + MPD_VCRC_LEN &&
	    memcmp(frame + frame_len - MPD_ICRC_LEN - MPD_VCRC_LEN, zero,
		   MPD_ICRC_LEN) != 0)
		return 0;
	rc = frame_icrc(link, frame, frame_len, &icrc, &off);
	if (rc < 0)
		return rc;
	mpd_put_le32(frame + off, icrc);
	put_vcrc(frame, off + MPD_ICRC_LEN);
	return 1;
}
