/* SPDX-License-Identifier: BSD-3-Clause */
/* IPoIB's header and ARP (ipoib_arp.h) */
#include <string.h>

#include "ipoib_arp.h"

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint16_t
hca_ipoib_type(const uint8_t *p, uint32_t len)
{
	return len < HCA_IPOIB_HDR ? 0 : be16(p);
}

void
hca_ipoib_put_hdr(uint8_t *p, uint16_t type)
{
	put16(p, type);
	p[2] = p[3] = 0;
}

static void
get_hw(const uint8_t *p, struct hca_ipoib_hw *h)
{
	h->qpn = (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	memcpy(h->gid, p + 4, 16);
}

static void
put_hw(uint8_t *p, const struct hca_ipoib_hw *h)
{
	p[0] = 0;
	p[1] = (uint8_t)(h->qpn >> 16);
	p[2] = (uint8_t)(h->qpn >> 8);
	p[3] = (uint8_t)h->qpn;
	memcpy(p + 4, h->gid, 16);
}

bool
hca_ipoib_arp_decode(const uint8_t *p, uint32_t len, struct hca_ipoib_arp *a)
{
	memset(a, 0, sizeof(*a));
	if (len < HCA_IPOIB_ARP_LEN || be16(p) != HCA_IPOIB_ARPHRD ||
	    be16(p + 2) != HCA_IPOIB_ET_IP4 || p[4] != 20 || p[5] != 4)
		return false;
	a->op = be16(p + 6);
	if (a->op != 1 && a->op != 2)
		return false;
	get_hw(p + 8, &a->sha);
	memcpy(a->spa, p + 28, 4);
	get_hw(p + 32, &a->tha);
	memcpy(a->tpa, p + 52, 4);
	return true;
}

void
hca_ipoib_arp_encode(const struct hca_ipoib_arp *a, uint8_t *p)
{
	put16(p, HCA_IPOIB_ARPHRD);
	put16(p + 2, HCA_IPOIB_ET_IP4);
	p[4] = 20;
	p[5] = 4;
	put16(p + 6, a->op);
	put_hw(p + 8, &a->sha);
	memcpy(p + 28, a->spa, 4);
	put_hw(p + 32, &a->tha);
	memcpy(p + 52, a->tpa, 4);
}
