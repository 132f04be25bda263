/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <string.h>
#include <zlib.h>

#include "crc_ref.h"

#define FRAME_MAX	(16 * 1024)

static size_t
be16(const uint8_t *p)
{
	return (size_t)p[0] << 8 | p[1];
}

/* Mask the GRH's TClass, FlowLabel and HopLimit (IBA 7.8.1). */
static void
mask_grh(uint8_t *g)
{
	g[0] |= 0x0f;
	g[1] = g[2] = g[3] = 0xff;
	g[7] = 0xff;
}

int
crc_ref_icrc(enum mpd_link link, const uint8_t *f, size_t len, uint32_t *icrc)
{
	static uint8_t s[FRAME_MAX + 8];
	size_t end, n, l3, bth;

	if (len > FRAME_MAX)
		return -1;
	if (link == MPD_LINK_IB) {
		/* LRH [GRH] BTH ... ICRC VCRC */
		if (len < 8 + 12 + 6)
			return -1;
		end = len - 6;
		memcpy(s, f, end);
		n = end;
		s[0] |= 0xf0;				/* LRH VL */
		bth = 8;
		if ((f[1] & 3) == 3) {			/* LNH: GRH */
			mask_grh(s + 8);
			bth += 40;
		}
	} else {
		/* Ethernet [802.1Q] L3 ... ICRC; LRH replaced by 8 ones */
		if (len < 14 + 4)
			return -1;
		l3 = be16(f + 12) == 0x8100 ? 18 : 14;
		end = len - 4;
		if (end < l3)
			return -1;
		memset(s, 0xff, 8);
		memcpy(s + 8, f + l3, end - l3);
		n = 8 + end - l3;
		if (link == MPD_LINK_ROCE_V1) {
			mask_grh(s + 8);
			bth = 8 + 40;
		} else if (f[l3] >> 4 == 4) {
			size_t ihl = (size_t)(f[l3] & 0xf) * 4;
			uint8_t *ip = s + 8;

			if (n < 8 + ihl + 8)
				return -1;
			ip[1] = 0xff;			/* TOS */
			ip[8] = 0xff;			/* TTL */
			ip[10] = ip[11] = 0xff;		/* header checksum */
			ip[ihl + 6] = ip[ihl + 7] = 0xff; /* UDP checksum */
			bth = 8 + ihl + 8;
		} else {
			uint8_t *ip = s + 8;

			if (n < 8 + 40 + 8)
				return -1;
			mask_grh(ip);			/* same fields in IPv6 */
			ip[40 + 6] = ip[40 + 7] = 0xff;	/* UDP checksum */
			bth = 8 + 40 + 8;
		}
	}
	if (n < bth + 12)
		return -1;
	s[bth + 4] = 0xff;				/* BTH resv8a */
	*icrc = (uint32_t)crc32(0L, s, (uInt)n);
	return 0;
}

/* CRC-16, x^16+x^12+x^3+x+1 (0x100B), reflected, seed and result
 * inverted: IBA 7.8.2, bit by bit. */
uint16_t
crc_ref_vcrc(const uint8_t *f, size_t len)
{
	uint16_t c = 0xffff;
	size_t i;
	int k;

	if (len < 2)
		return 0;
	for (i = 0; i < len - 2; i++) {
		c ^= f[i];
		for (k = 0; k < 8; k++)
			c = (c & 1) ? (uint16_t)(c >> 1 ^ 0xd008) : c >> 1;
	}
	return (uint16_t)~c;
}
