/* SPDX-License-Identifier: BSD-3-Clause */
/* RoCE carriers: Ethernet (802.1Q optional), IPv4, IPv6, UDP. */
#include <string.h>

#include "wire_priv.h"

int
mpd_eth_encode(const struct mpd_eth *h, uint8_t *buf, size_t cap)
{
	size_t n = MPD_ETH_LEN + (h->has_vlan ? MPD_VLAN_LEN : 0);

	if (cap < n)
		return MPD_ENOSPC;
	memcpy(buf, h->dst, 6);
	memcpy(buf + 6, h->src, 6);
	if (h->has_vlan) {
		mpd_put_be16(buf + 12, MPD_ETHERTYPE_VLAN);
		mpd_put_be16(buf + 14, h->vlan_tci);
	}
	mpd_put_be16(buf + n - 2, h->ethertype);
	return (int)n;
}

int
mpd_eth_decode(const uint8_t *buf, size_t len, struct mpd_eth *h)
{
	size_t n = MPD_ETH_LEN;

	if (len < MPD_ETH_LEN)
		return MPD_ETRUNC;
	memcpy(h->dst, buf, 6);
	memcpy(h->src, buf + 6, 6);
	h->ethertype = mpd_get_be16(buf + 12);
	h->has_vlan = h->ethertype == MPD_ETHERTYPE_VLAN;
	h->vlan_tci = 0;
	if (h->has_vlan) {
		n += MPD_VLAN_LEN;
		if (len < n)
			return MPD_ETRUNC;
		h->vlan_tci = mpd_get_be16(buf + 14);
		h->ethertype = mpd_get_be16(buf + 16);
	}
	return (int)n;
}

uint32_t
mpd_inet_sum(uint32_t sum, const uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += mpd_get_be16(buf + i);
	if (len & 1)
		sum += (uint32_t)buf[len - 1] << 8;
	return sum;
}

uint16_t
mpd_inet_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

int
mpd_ipv4_encode(const struct mpd_ipv4 *h, uint8_t *buf, size_t cap)
{
	if (cap < MPD_IPV4_LEN)
		return MPD_ENOSPC;
	buf[0] = 0x45;
	buf[1] = h->tos;
	mpd_put_be16(buf + 2, h->total_len);
	mpd_put_be16(buf + 4, h->id);
	mpd_put_be16(buf + 6, h->frag);
	buf[8] = h->ttl;
	buf[9] = h->proto;
	mpd_put_be16(buf + 10, h->csum);
	memcpy(buf + 12, h->src, 4);
	memcpy(buf + 16, h->dst, 4);
	return MPD_IPV4_LEN;
}

int
mpd_ipv4_decode(const uint8_t *buf, size_t len, struct mpd_ipv4 *h)
{
	size_t ihl;

	if (len < MPD_IPV4_LEN)
		return MPD_ETRUNC;
	if (buf[0] >> 4 != 4)
		return MPD_EVERSION;
	ihl = (size_t)(buf[0] & 0xf) * 4;
	if (ihl < MPD_IPV4_LEN)
		return MPD_ELEN;
	if (len < ihl)
		return MPD_ETRUNC;
	h->tos = buf[1];
	h->total_len = mpd_get_be16(buf + 2);
	h->id = mpd_get_be16(buf + 4);
	h->frag = mpd_get_be16(buf + 6);
	h->ttl = buf[8];
	h->proto = buf[9];
	h->csum = mpd_get_be16(buf + 10);
	memcpy(h->src, buf + 12, 4);
	memcpy(h->dst, buf + 16, 4);
	if (h->total_len < ihl)
		return MPD_ELEN;
	if (mpd_inet_fold(mpd_inet_sum(0, buf, ihl)) != 0xffff)
		return MPD_ECSUM;
	return (int)ihl;
}

int
mpd_ipv6_encode(const struct mpd_ipv6 *h, uint8_t *buf, size_t cap)
{
	if (cap < MPD_IPV6_LEN)
		return MPD_ENOSPC;
	if (h->flow_label > 0xfffff)
		return MPD_ERANGE;
	mpd_put_be32(buf, 6u << 28 | (uint32_t)h->tclass << 20 |
			  h->flow_label);
	mpd_put_be16(buf + 4, h->pay_len);
	buf[6] = h->next_hdr;
	buf[7] = h->hop_limit;
	memcpy(buf + 8, h->src, 16);
	memcpy(buf + 24, h->dst, 16);
	return MPD_IPV6_LEN;
}

int
mpd_ipv6_decode(const uint8_t *buf, size_t len, struct mpd_ipv6 *h)
{
	uint32_t w;

	if (len < MPD_IPV6_LEN)
		return MPD_ETRUNC;
	w = mpd_get_be32(buf);
	if (w >> 28 != 6)
		return MPD_EVERSION;
	h->tclass = (uint8_t)(w >> 20);
	h->flow_label = w & 0xfffff;
	h->pay_len = mpd_get_be16(buf + 4);
	h->next_hdr = buf[6];
	h->hop_limit = buf[7];
	memcpy(h->src, buf + 8, 16);
	memcpy(h->dst, buf + 24, 16);
	return MPD_IPV6_LEN;
}

int
mpd_udp_encode(const struct mpd_udp *h, uint8_t *buf, size_t cap)
{
	if (cap < MPD_UDP_LEN)
		return MPD_ENOSPC;
	mpd_put_be16(buf, h->sport);
	mpd_put_be16(buf + 2, h->dport);
	mpd_put_be16(buf + 4, h->len);
	mpd_put_be16(buf + 6, h->csum);
	return MPD_UDP_LEN;
}

int
mpd_udp_decode(const uint8_t *buf, size_t len, struct mpd_udp *h)
{
	if (len < MPD_UDP_LEN)
		return MPD_ETRUNC;
	h->sport = mpd_get_be16(buf);
	h->dport = mpd_get_be16(buf + 2);
	h->len = mpd_get_be16(buf + 4);
	h->csum = mpd_get_be16(buf + 6);
	if (h->len < MPD_UDP_LEN)
		return MPD_ELEN;
	return MPD_UDP_LEN;
}
