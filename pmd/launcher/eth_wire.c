/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An IB link over Ethernet: a switch, CA or net_hca port of a native IB
 * fabric cabled (--wire) to an ethdev such as net_af_packet on a veth or
 * a NIC, whose other end is a port of another daemon. Each IB frame
 * (LRH..VCRC, unchanged) travels behind an Ethernet header of EtherType
 * MPD_ETHERTYPE_IB, addressed to the MAC the other end was heard from
 * (broadcast until then; on a trunk, trunk.c, the other end's address). What else the interface hears (the kernel's
 * IPv6, other hosts, strangers) is dropped and counted, never taken for
 * IB: link_peer.c decides, this file moves the mbufs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "fabric.h"
#include "madpmd/wire.h"

void
fab_eth_wire_start(struct fabric *f, struct fab_port *p)
{
	struct rte_ether_addr a = { { 0 } };
	uint64_t guid = 0;
	uint8_t port = 0;

	rte_eth_macaddr_get(p->port_id, &a);
	if (p->peer >= 0) {
		guid = f->port[p->peer].guid;
		port = f->port[p->peer].num;
	}
	link_peer_start(&p->ew, a.addr_bytes, guid, port);
}

/* The peer's heartbeat, against the file: crossed cables are said once */
static void
check_cable(struct fabric *f, struct fab_port *p,
	    const struct mpd_link_hello *h)
{
	const struct fab_port *q = p->peer >= 0 ? &f->port[p->peer] : NULL;

	if (!q || !q->far_guid || p->ew.warned ||
	    (h->guid == q->far_guid && h->port == q->far_port))
		return;
	p->ew.warned = true;
	fprintf(stderr, "madpmd: %s[%u] over %s: the other end is port %u of 0x%016" PRIx64 ", the topology says %s (0x%016" PRIx64 "): are the cables crossed?\n",
		q->node, q->num, p->dev, h->port, h->guid, q->far,
		q->far_guid);
}

/* The IB frame inside m, alone in it; false when m is not one for us. */
static bool
unwrap(struct fabric *f, struct fab_port *p, struct rte_mbuf *m, uint64_t now)
{
	struct mpd_link_hello h;
	size_t off = 0, ib_len = 0;
	enum link_rx v;

	if (!rte_pktmbuf_is_contiguous(m) && rte_pktmbuf_linearize(m) != 0) {
		p->ew.bad++;
		return false;
	}
	v = link_peer_rx(&p->ew, rte_pktmbuf_mtod(m, const uint8_t *),
			 rte_pktmbuf_data_len(m), now, &off, &ib_len, &h);
	if (v == LINK_RX_HELLO)
		check_cable(f, p, &h);
	if (v != LINK_RX_IB)
		return false;
	rte_pktmbuf_adj(m, (uint16_t)off);
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) - ib_len));
	return true;
}

uint16_t
fab_eth_wire_rx(struct fabric *f, struct fab_port *p, struct rte_mbuf **m,
		uint16_t n)
{
	uint64_t now = n ? fab_clock_ns(CLOCK_MONOTONIC) : 0;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (unwrap(f, p, m[i], now))
			m[k++] = m[i];
		else
			rte_pktmbuf_free(m[i]);
	}
	return k;
}

uint16_t
fab_eth_wire_tx(struct fab_port *p, struct rte_mbuf **m, uint16_t n)
{
	const uint8_t *dst = link_peer_dst(&p->ew);
	uint16_t i, k = 0;
	uint8_t *h;

	for (i = 0; i < n; i++) {
		h = (uint8_t *)rte_pktmbuf_prepend(m[i], MPD_ETH_LEN);
		if (!h) {
			p->ew.no_room++;
			rte_pktmbuf_free(m[i]);
			continue;
		}
		mpd_ib_eth_header(dst, p->ew.mac, h, MPD_ETH_LEN);
		m[k++] = m[i];
	}
	p->ew.tx += k;
	return k;
}

static void
send_hello(struct fabric *f, struct fab_port *p)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(f->pool);
	struct mpd_link_hello h;
	uint8_t *buf;

	if (!m)
		return;
	link_peer_hello(&p->ew, &h);
	buf = (uint8_t *)rte_pktmbuf_append(m, MPD_LINK_HELLO_FRAME);
	if (!buf || mpd_link_hello_encode(link_peer_hello_dst(&p->ew), p->ew.mac, &h, buf,
					  MPD_LINK_HELLO_FRAME) < 0 ||
	    rte_eth_tx_burst(p->port_id, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return;
	}
	p->ew.hellos_tx++;
}

int
fab_eth_wire_tick(struct fabric *f, struct fab_port *p, bool enabled,
		  uint64_t now)
{
	bool send;
	int rc = link_peer_tick(&p->ew, enabled, now, &send);

	if (send)
		send_hello(f, p);
	return rc;
}
