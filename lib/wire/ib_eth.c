/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Native IB frames on Ethernet: how two daemons (or one daemon and a
 * capture) carry an IB link over a veth or a NIC. The Ethernet header is
 * only the envelope; the IB packet inside is what the link carries, with
 * its own CRCs.
 */
#include <string.h>

#include "wire_priv.h"

int
mpd_ib_eth_header(const uint8_t dst[6], const uint8_t src[6], uint8_t *buf,
		  size_t cap)
{
	struct mpd_eth h = { .ethertype = MPD_ETHERTYPE_IB };

	memcpy(h.dst, dst, 6);
	memcpy(h.src, src, 6);
	return mpd_eth_encode(&h, buf, cap);
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
