/* SPDX-License-Identifier: BSD-3-Clause */
/* Which Ethernet frames are the host's (netif.h) */
#include <string.h>

#include "netif.h"

#define ETH_HLEN	14
#define ET_IP4		0x0800
#define ET_ARP		0x0806
#define ET_IP6		0x86dd
#define IPPROTO_UDP_	17
#define ROCE_PORT	4791

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* UDP to RoCE v2's port (IBA A17.4.1), after the IP header at l3 */
static bool
roce_v2(const uint8_t *f, uint32_t len, uint16_t type)
{
	uint32_t l4;

	if (type == ET_IP4) {
		if (len < ETH_HLEN + 20 || f[ETH_HLEN + 9] != IPPROTO_UDP_)
			return false;
		l4 = ETH_HLEN + (uint32_t)(f[ETH_HLEN] & 0x0f) * 4;
	} else {
		if (len < ETH_HLEN + 40 || f[ETH_HLEN + 6] != IPPROTO_UDP_)
			return false;
		l4 = ETH_HLEN + 40;
	}
	return len >= l4 + 4 && be16(f + l4 + 2) == ROCE_PORT;
}

bool
hca_netif_host_frame(const uint8_t *f, uint32_t len)
{
	uint16_t type;

	if (len < ETH_HLEN)
		return false;
	type = be16(f + 12);
	if (type == ET_ARP)
		return true;
	if (type != ET_IP4 && type != ET_IP6)
		return false;
	return !roce_v2(f, len, type);
}

bool
hca_netif_for_host(const uint8_t *f, uint32_t len, const uint8_t mac[6])
{
	if (len < ETH_HLEN || (memcmp(f, mac, 6) && !(f[0] & 1)))
		return false;
	return hca_netif_host_frame(f, len);
}
