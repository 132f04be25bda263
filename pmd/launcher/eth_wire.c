/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An IB link over Ethernet: a switch, CA or net_hca port of a native IB
 * fabric cabled (--wire) to an ethdev such as net_af_packet on a veth or
 * a NIC, whose other end is a port of another daemon. Each IB frame
 * (LRH..VCRC, unchanged) travels behind an Ethernet header of EtherType
 * MPD_ETHERTYPE_IB, addressed to the MAC the other end was heard from
 * (broadcast until then). What else the interface hears (the kernel's
 * IPv6, other hosts) is dropped and counted, never taken for IB.
 *
 * The link's peer is whoever the port trains with: the MAC and the port
 * (PortGUID, number) of the first heartbeat heard while it has none.
 * From then on only that peer's heartbeats and IB frames count; a
 * stranger's are counted and dropped, so that nobody else on the segment
 * takes the link, flaps it or keeps it up (docs/switch.md, "Trust").
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "fabric.h"
#include "madpmd/wire.h"

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

void
fab_eth_wire_start(struct fabric *f, struct fab_port *p)
{
	struct rte_ether_addr a;

	p->ew.on = true;
	if (rte_eth_macaddr_get(p->port_id, &a) == 0)
		memcpy(p->ew.mac, a.addr_bytes, sizeof(p->ew.mac));
	if (p->peer >= 0) {
		p->ew.guid = f->port[p->peer].guid;
		p->ew.port = f->port[p->peer].num;
	}
}

/* How long the peer may be silent: FAB_WIRE_DEAD of its intervals, an
 * interval counting for FAB_WIRE_HELLO_MS at most (whatever it says, it
 * is Down within FAB_WIRE_DEAD * FAB_WIRE_HELLO_MS of its last word) */
static uint64_t
dead_ns(const struct fab_port *p)
{
	uint64_t ms = p->ew.last.interval_ms;

	if (ms > FAB_WIRE_HELLO_MS)
		ms = FAB_WIRE_HELLO_MS;
	return ms * FAB_WIRE_DEAD * 1000000ull;
}

/* Whether the peer's last heartbeat is recent and names us */
static bool
link_up(const struct fab_port *p, uint64_t now)
{
	const struct mpd_link_hello *h = &p->ew.last;

	return p->ew.have_last && now - p->ew.heard_ns < dead_ns(p) &&
	       (h->flags & MPD_LINK_HEARD) && h->heard_guid == p->ew.guid &&
	       h->heard_port == p->ew.port;
}

/* A heartbeat from the peer the port trains with, or the first one
 * while it has none. For as long again as a peer was silent before its
 * link went down, only that peer may train it again: a dead peer's
 * cable is not taken by whoever on the segment speaks first. */
static bool
from_peer(const struct fab_port *p, const struct mpd_eth *eth,
	  const struct mpd_link_hello *h, uint64_t now)
{
	if (!p->ew.have_last && now >= p->ew.hold_ns)
		return true;
	return !memcmp(eth->src, p->ew.peer, 6) &&
	       h->guid == p->ew.last.guid && h->port == p->ew.last.port;
}

/* A heartbeat from the other end (never passed on) */
static void
heard(struct fabric *f, struct fab_port *p, const struct mpd_eth *eth,
      const struct mpd_link_hello *h, uint64_t now)
{
	const struct fab_port *q = p->peer >= 0 ? &f->port[p->peer] : NULL;

	if (!from_peer(p, eth, h, now)) {
		p->ew.strangers++;
		return;
	}
	p->ew.hellos_rx++;
	/* it does not hear us yet: answer now rather than at our next */
	if (!p->ew.have_last || !(h->flags & MPD_LINK_HEARD) ||
	    h->heard_guid != p->ew.guid)
		p->ew.hello_next_ns = now;
	p->ew.last = *h;
	p->ew.have_last = true;
	p->ew.heard_ns = now;
	memcpy(p->ew.peer, eth->src, 6);
	p->ew.peer_known = true;
	if (q && q->far_guid && !p->ew.warned &&
	    (h->guid != q->far_guid || h->port != q->far_port)) {
		p->ew.warned = true;
		fprintf(stderr, "madpmd: %s[%u] over %s: the other end is port %u of 0x%016" PRIx64 ", the topology says %s (0x%016" PRIx64 "): are the cables crossed?\n",
			q->node, q->num, p->dev, h->port, h->guid, q->far,
			q->far_guid);
	}
}

/* The IB frame inside m, alone in it; false when m is not one for us. */
static bool
unwrap(struct fabric *f, struct fab_port *p, struct rte_mbuf *m, uint64_t now)
{
	struct mpd_link_hello h;
	struct mpd_eth eth;
	size_t ib_len;
	int off;

	if (!rte_pktmbuf_is_contiguous(m) && rte_pktmbuf_linearize(m) != 0) {
		p->ew.bad++;
		return false;
	}
	off = mpd_link_hello_decode(rte_pktmbuf_mtod(m, const uint8_t *),
				    rte_pktmbuf_data_len(m), &eth, &h);
	if (off != MPD_ENEXTHDR) {
		if (off == MPD_OK && memcmp(eth.src, p->ew.mac, 6))
			heard(f, p, &eth, &h, now);
		else if (off != MPD_OK)
			p->ew.bad++;
		return false;
	}
	off = mpd_ib_eth_decap(rte_pktmbuf_mtod(m, const uint8_t *),
			       rte_pktmbuf_data_len(m), &eth, &ib_len);
	if (off == MPD_ENEXTHDR ||
	    (off >= 0 && ((memcmp(eth.dst, p->ew.mac, 6) &&
			   memcmp(eth.dst, bcast, 6)) ||
			  !memcmp(eth.src, p->ew.mac, 6)))) {
		p->ew.not_ib++;
		return false;
	}
	if (off < 0) {
		p->ew.bad++;
		return false;
	}
	/* IB only from the peer; only its heartbeats say it is alive */
	if (!p->ew.have_last || memcmp(p->ew.peer, eth.src, 6)) {
		p->ew.strangers++;
		return false;
	}
	rte_pktmbuf_adj(m, (uint16_t)off);
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) - ib_len));
	p->ew.rx++;
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
	const uint8_t *dst = p->ew.peer_known ? p->ew.peer : bcast;
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
	struct mpd_link_hello h = {
		.interval_ms = FAB_WIRE_HELLO_MS,
		.guid = p->ew.guid,
		.port = p->ew.port,
	};
	struct rte_mbuf *m = rte_pktmbuf_alloc(f->pool);
	uint8_t *buf;

	if (!m)
		return;
	if (p->ew.have_last) {
		h.flags = MPD_LINK_HEARD;
		h.heard_guid = p->ew.last.guid;
		h.heard_port = p->ew.last.port;
	}
	buf = (uint8_t *)rte_pktmbuf_append(m, MPD_LINK_HELLO_FRAME);
	if (!buf || mpd_link_hello_encode(bcast, p->ew.mac, &h, buf,
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
	bool up;

	if (enabled && now >= p->ew.hello_next_ns) {
		send_hello(f, p);
		p->ew.hello_next_ns = now + FAB_WIRE_HELLO_MS * 1000000ull;
	}
	up = enabled && link_up(p, now);
	/* a peer heard once that never trained is forgotten as a dead one */
	if (!up && !p->ew.up && p->ew.have_last &&
	    now - p->ew.heard_ns >= dead_ns(p)) {
		p->ew.have_last = false;
		p->ew.peer_known = false;
	}
	if (up == p->ew.up)
		return 0;
	p->ew.up = up;
	if (up)
		return 1;
	/* whoever comes next on this cable is learned anew, once the old
	 * peer has had its time to come back */
	p->ew.downs++;
	p->ew.hold_ns = now + dead_ns(p);
	p->ew.have_last = false;
	p->ew.peer_known = false;
	return -1;
}
