/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peer of an IB link over Ethernet and its training (link_peer.h):
 * the frames' verdicts and the link's state, from bytes and a clock.
 */
#include <string.h>

#include "link_peer.h"

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

void
link_peer_start(struct link_peer *l, const uint8_t mac[6], uint64_t guid,
		uint8_t port)
{
	l->on = true;
	memcpy(l->mac, mac, sizeof(l->mac));
	l->guid = guid;
	l->port = port;
	l->hello_ms = FAB_WIRE_HELLO_MS;
	l->dead = FAB_WIRE_DEAD;
}

void
link_peer_trunk(struct link_peer *l, const uint8_t far[6], uint64_t first_ns)
{
	memcpy(l->far, far, sizeof(l->far));
	l->far_known = true;
	l->hello_ms = FAB_TRUNK_HELLO_MS;
	l->dead = FAB_TRUNK_DEAD;
	l->hello_next_ns = first_ns;
}

/* How long the peer may be silent: l->dead of its intervals, an
 * interval counting for ours at most (whatever it says, it is Down
 * within FAB_WIRE_DEAD * FAB_WIRE_HELLO_MS of its last word, a trunk's
 * cable within FAB_TRUNK_DEAD * FAB_TRUNK_HELLO_MS) */
static uint64_t
dead_ns(const struct link_peer *l)
{
	uint64_t ms = l->last.interval_ms;

	if (ms > l->hello_ms)
		ms = l->hello_ms;
	return ms * l->dead * 1000000ull;
}

/* Whether the peer's last heartbeat is recent and names us */
static bool
link_up(const struct link_peer *l, uint64_t now)
{
	const struct mpd_link_hello *h = &l->last;

	return l->have_last && now - l->heard_ns < dead_ns(l) &&
	       (h->flags & MPD_LINK_HEARD) && h->heard_guid == l->guid &&
	       h->heard_port == l->port;
}

/* A heartbeat from the peer the port trains with, or the first one
 * while it has none. For as long again as a peer was silent before its
 * link went down, only that peer may train it again: a dead peer's
 * cable is not taken by whoever on the segment speaks first. */
static bool
from_peer(const struct link_peer *l, const struct mpd_eth *eth,
	  const struct mpd_link_hello *h, uint64_t now)
{
	if (!l->have_last && now >= l->hold_ns)
		return true;
	return !memcmp(eth->src, l->peer, 6) && h->guid == l->last.guid &&
	       h->port == l->last.port;
}

/* A heartbeat, not our own: the peer's taken, a stranger's counted */
static enum link_rx
heard(struct link_peer *l, const struct mpd_eth *eth,
      const struct mpd_link_hello *h, uint64_t now)
{
	if (!from_peer(l, eth, h, now)) {
		l->strangers++;
		return LINK_RX_DROP;
	}
	l->hellos_rx++;
	/* it does not hear us yet: answer now rather than at our next */
	if (!l->have_last || !(h->flags & MPD_LINK_HEARD) ||
	    h->heard_guid != l->guid)
		l->hello_next_ns = now;
	l->last = *h;
	l->have_last = true;
	l->heard_ns = now;
	memcpy(l->peer, eth->src, 6);
	l->peer_known = true;
	return LINK_RX_HELLO;
}

enum link_rx
link_peer_rx(struct link_peer *l, const uint8_t *buf, size_t len,
	     uint64_t now, size_t *ib_off, size_t *ib_len,
	     struct mpd_link_hello *h)
{
	struct mpd_eth eth;
	int off;

	off = mpd_link_hello_decode(buf, len, &eth, h);
	if (off != MPD_ENEXTHDR) {
		if (off != MPD_OK) {
			l->bad++;
			return LINK_RX_DROP;
		}
		if (!memcmp(eth.src, l->mac, 6))
			return LINK_RX_DROP;	/* our own, looped back */
		return heard(l, &eth, h, now);
	}
	off = mpd_ib_eth_decap(buf, len, &eth, ib_len);
	if (off == MPD_ENEXTHDR ||
	    (off >= 0 && ((memcmp(eth.dst, l->mac, 6) &&
			   memcmp(eth.dst, bcast, 6)) ||
			  !memcmp(eth.src, l->mac, 6)))) {
		l->not_ib++;
		return LINK_RX_DROP;
	}
	if (off < 0) {
		l->bad++;
		return LINK_RX_DROP;
	}
	/* IB only from the peer; only its heartbeats say it is alive */
	if (!l->have_last || memcmp(l->peer, eth.src, 6)) {
		l->strangers++;
		return LINK_RX_DROP;
	}
	*ib_off = (size_t)off;
	l->rx++;
	return LINK_RX_IB;
}

int
link_peer_tick(struct link_peer *l, bool enabled, uint64_t now, bool *send)
{
	bool up;

	*send = enabled && now >= l->hello_next_ns;
	if (*send)
		l->hello_next_ns = now + l->hello_ms * 1000000ull;
	up = enabled && link_up(l, now);
	/* a peer heard once that never trained is forgotten as a dead one */
	if (!up && !l->up && l->have_last && now - l->heard_ns >= dead_ns(l)) {
		l->have_last = false;
		l->peer_known = false;
	}
	if (up == l->up)
		return 0;
	l->up = up;
	if (up)
		return 1;
	/* whoever comes next on this cable is learned anew, once the old
	 * peer has had its time to come back */
	l->downs++;
	l->hold_ns = now + dead_ns(l);
	l->have_last = false;
	l->peer_known = false;
	return -1;
}

void
link_peer_hello(const struct link_peer *l, struct mpd_link_hello *h)
{
	memset(h, 0, sizeof(*h));
	h->interval_ms = (uint16_t)l->hello_ms;
	h->guid = l->guid;
	h->port = l->port;
	if (l->have_last) {
		h->flags = MPD_LINK_HEARD;
		h->heard_guid = l->last.guid;
		h->heard_port = l->last.port;
	}
}

const uint8_t *
link_peer_hello_dst(const struct link_peer *l)
{
	return l->far_known ? l->far : bcast;
}

const uint8_t *
link_peer_dst(const struct link_peer *l)
{
	return l->peer_known ? l->peer : link_peer_hello_dst(l);
}
