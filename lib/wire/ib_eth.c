/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Native IB frames on Ethernet: how two daemons (or one daemon and a
 * capture) carry an IB link over a veth or a NIC. The Ethernet header is
 * only the envelope; the IB packet inside is what the link carries, with
 * its own CRCs.
 */
#include <string.h>

#include "wire_priv.h"

/* An untagged Ethernet header of this EtherType into buf */
static int
eth_header(const uint8_t dst[6], const uint8_t src[6], uint16_t type,
	   uint8_t *buf, size_t cap)
{
	struct mpd_eth h = { .ethertype = type };

	memcpy(h.dst, dst, 6);
	memcpy(h.src, src, 6);
	return mpd_eth_encode(&h, buf, cap);
}

int
mpd_ib_eth_header(const uint8_t dst[6], const uint8_t src[6], uint8_t *buf,
		  size_t cap)
{
	return eth_header(dst, src, MPD_ETHERTYPE_IB, buf, cap);
}

int
mpd_ib_eth_decap(const uint8_t *buf, size_t len, struct mpd_eth *eth,
		 size_t *ib_len)
{
	int off = mpd_eth_decode(buf, len, eth);
	size_t words, n;

	if (off < 0)
		return off;
	if (eth->ethertype != MPD_ETHERTYPE_IB)
		return MPD_ENEXTHDR;
	if (len - (size_t)off < MPD_LRH_LEN)
		return MPD_ETRUNC;
	/* IBA 7.7.5: PktLen counts 4-byte words from the LRH through the
	 * ICRC; the VCRC follows */
	words = mpd_get_be16(buf + off + 4) & 0x7ff;
	if (words < MPD_LRH_LEN / 4)
		return MPD_ELEN;
	n = words * 4 + MPD_VCRC_LEN;
	if (len - (size_t)off < n)
		return MPD_ETRUNC;
	*ib_len = n;
	return off;
}

static const uint8_t hello_magic[4] = { 'M', 'P', 'D', 'L' };

int
mpd_link_hello_encode(const uint8_t dst[6], const uint8_t src[6],
		      const struct mpd_link_hello *h, uint8_t *buf, size_t cap)
{
	uint8_t *p;

	if (cap < MPD_LINK_HELLO_FRAME)
		return MPD_ENOSPC;
	if (!h->interval_ms)
		return MPD_EINVAL;
	memset(buf, 0, MPD_LINK_HELLO_FRAME);
	p = buf + eth_header(dst, src, MPD_ETHERTYPE_LINK, buf, cap);
	memcpy(p, hello_magic, sizeof(hello_magic));
	p[4] = MPD_LINK_HELLO_VERSION;
	p[5] = h->flags;
	mpd_put_be16(p + 6, h->interval_ms);
	mpd_put_be64(p + 8, h->guid);
	p[16] = h->port;
	mpd_put_be64(p + 20, h->heard_guid);
	p[28] = h->heard_port;
	return MPD_LINK_HELLO_FRAME;
}

int
mpd_link_hello_decode(const uint8_t *buf, size_t len, struct mpd_eth *eth,
		      struct mpd_link_hello *h)
{
	int off = mpd_eth_decode(buf, len, eth);
	const uint8_t *p;

	if (off < 0)
		return off;
	if (eth->ethertype != MPD_ETHERTYPE_LINK)
		return MPD_ENEXTHDR;
	if (len - (size_t)off < MPD_LINK_HELLO_LEN)
		return MPD_ETRUNC;
	p = buf + off;
	if (memcmp(p, hello_magic, sizeof(hello_magic)))
		return MPD_EINVAL;
	if (p[4] != MPD_LINK_HELLO_VERSION)
		return MPD_EVERSION;
	h->flags = p[5];
	h->interval_ms = mpd_get_be16(p + 6);
	if (!h->interval_ms)
		return MPD_EINVAL;
	h->guid = mpd_get_be64(p + 8);
	h->port = p[16];
	h->heard_guid = mpd_get_be64(p + 20);
	h->heard_port = p[28];
	return MPD_OK;
}
