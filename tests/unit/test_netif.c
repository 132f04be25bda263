/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which Ethernet frames a RoCE port gives its node's network device
 * (madpmd-run --net) and which the device may send (pmd/net/netif.c):
 * ARP and IP beside RoCE, never RoCE v2 (UDP 4791, IBA A17.4.1) either way.
 */
#include <string.h>

#include "net/netif.h"
#include "tap.h"

static const uint8_t me[6] = { 0x02, 0x00, 0x11, 0x22, 0x33, 0x44 };
static const uint8_t peer[6] = { 0x02, 0x00, 0x55, 0x66, 0x77, 0x88 };

/* dst, src, EtherType; returns the length so far */
static uint32_t
eth(uint8_t *f, const uint8_t *dst, uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, peer, 6);
	f[12] = (uint8_t)(type >> 8);
	f[13] = (uint8_t)type;
	return 14;
}

/* IPv4 (ihl words) with proto, then 4 bytes of L4 ports */
static uint32_t
ip4(uint8_t *f, const uint8_t *dst, uint8_t ihl, uint8_t proto,
    uint16_t dport)
{
	uint32_t n = eth(f, dst, 0x0800), l4 = n + ihl * 4u;

	memset(f + n, 0, ihl * 4u + 8);
	f[n] = (uint8_t)(0x40 | ihl);
	f[n + 9] = proto;
	f[l4 + 2] = (uint8_t)(dport >> 8);
	f[l4 + 3] = (uint8_t)dport;
	return l4 + 8;
}

static uint32_t
ip6(uint8_t *f, const uint8_t *dst, uint8_t next, uint16_t dport)
{
	uint32_t n = eth(f, dst, 0x86dd);

	memset(f + n, 0, 48);
	f[n] = 0x60;
	f[n + 6] = next;
	f[n + 42] = (uint8_t)(dport >> 8);
	f[n + 43] = (uint8_t)dport;
	return n + 48;
}

int
main(void)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t v6mc[6] = { 0x33, 0x33, 0, 0, 0, 1 };
	uint8_t f[128];
	uint32_t n;

	n = eth(f, bcast, 0x0806) + 28;
	memset(f + 14, 0, 28);
	ok(hca_netif_for_host(f, n, me), "a broadcast ARP is the host's");
	n = ip4(f, me, 5, 6, 80);
	ok(hca_netif_for_host(f, n, me), "IPv4 TCP to our MAC is the host's");
	ok(!hca_netif_for_host(f, n, peer), "... not to another MAC's port");
	n = ip4(f, me, 5, 17, 4791);
	ok(!hca_netif_for_host(f, n, me) && !hca_netif_host_frame(f, n),
	   "IPv4 UDP to 4791 is RoCE v2: not the host's, and the host may not send it");
	n = ip4(f, me, 7, 17, 4791);
	ok(!hca_netif_host_frame(f, n), "... behind IPv4 options too (IHL 7)");
	n = ip4(f, me, 5, 17, 53);
	ok(hca_netif_for_host(f, n, me), "IPv4 UDP to another port is the host's");
	n = ip6(f, v6mc, 58, 0);
	ok(hca_netif_for_host(f, n, me), "IPv6 ICMPv6 to a group MAC is the host's");
	n = ip6(f, me, 17, 4791);
	ok(!hca_netif_host_frame(f, n), "IPv6 UDP to 4791 is RoCE v2");
	eth(f, me, 0x8915);
	ok(!hca_netif_host_frame(f, 60), "RoCE v1 (EtherType 0x8915) is not the host's");
	eth(f, me, 0x88cc);
	ok(!hca_netif_host_frame(f, 60), "nor LLDP, nor anything but ARP and IP");
	ok(!hca_netif_host_frame(f, 13), "13 bytes: no Ethernet header");
	n = ip4(f, me, 5, 17, 4791);
	ok(hca_netif_host_frame(f, 14 + 20), "an IPv4 UDP frame cut before its ports cannot be RoCE: the host's");
	return tap_done();
}
