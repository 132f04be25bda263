/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peer of an IB link carried over Ethernet (eth_wire.c), without
 * DPDK: which frames off the interface are the peer's IB frames, how the
 * link trains on heartbeats (mpd_link_hello) and when it is up. Pure
 * state and bytes, so that it is fuzzed as it runs (tests/fuzz).
 *
 * The link's peer is whoever the port trains with: the MAC and the port
 * (PortGUID, number) of the first heartbeat heard while it has none.
 * From then on only that peer's heartbeats and IB frames count; a
 * stranger's are counted and dropped, so that nobody else on the segment
 * takes the link, flaps it or keeps it up (docs/switch.md, "Trust").
 */
#ifndef MADPMD_LINK_PEER_H
#define MADPMD_LINK_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "madpmd/wire.h"

/* Each end sends a heartbeat every FAB_WIRE_HELLO_MS; a link whose peer
 * is silent for FAB_WIRE_DEAD of its intervals (one counting for
 * FAB_WIRE_HELLO_MS at most, whatever the heartbeat says) goes down */
#define FAB_WIRE_HELLO_MS	100
#define FAB_WIRE_DEAD		10
/* A cable of a trunk (many cables on one ethdev, trunk.c) beats slower,
 * so that thousands of them cost little: Down within 3 s */
#define FAB_TRUNK_HELLO_MS	1000
#define FAB_TRUNK_DEAD		3

struct link_peer {
	bool on;
	uint8_t mac[6];		/* the ethdev's */
	uint8_t peer[6];	/* the trained peer's, or the last one's */
	bool peer_known;	/* IB frames go to peer, not to broadcast */
	uint64_t rx, tx;	/* IB frames */
	uint64_t not_ib;	/* other EtherTypes, other MACs */
	uint64_t bad;		/* shorter than their LRH says */
	uint64_t no_room;	/* no headroom for the envelope */
	uint64_t strangers;	/* heartbeats and IB frames from another
				 * than the trained peer */
	/* the heartbeat: the link is up while the peer is heard and says
	 * it hears us */
	uint64_t guid;		/* our end: the port behind the wire */
	uint8_t port;
	bool up;
	bool warned;		/* the other end is not the file's */
	uint64_t heard_ns;	/* the peer's last heartbeat */
	uint64_t hello_next_ns;	/* our next heartbeat */
	struct mpd_link_hello last;	/* the peer's last heartbeat */
	bool have_last;		/* a peer (trained or training) */
	uint64_t hold_ns;	/* till then only the last peer trains the
				 * link again */
	uint64_t hellos_rx, hellos_tx, downs;
	/* the heartbeat's interval and how many of them may go unheard */
	uint32_t hello_ms;
	uint32_t dead;
	/* a trunk's cable: the other end's address, from the file, where
	 * heartbeats (and IB frames, before a peer is known) go instead of
	 * to broadcast */
	bool far_known;
	uint8_t far[6];
};

enum link_rx {
	LINK_RX_DROP,		/* counted, not passed on */
	LINK_RX_HELLO,		/* the peer's heartbeat, taken */
	LINK_RX_IB,		/* the peer's IB frame, at *ib_off */
};

/* Our end: the ethdev's MAC, the port behind the wire */
void link_peer_start(struct link_peer *l, const uint8_t mac[6],
		     uint64_t guid, uint8_t port);
/* Port l is a cable of a trunk: the other end is at far (heartbeats and
 * IB frames go there, not to broadcast), the heartbeat slower
 * (FAB_TRUNK_*); its first heartbeat goes at first_ns, so that a trunk's
 * cables do not all beat at once */
void link_peer_trunk(struct link_peer *l, const uint8_t far[6],
		     uint64_t first_ns);
/* Where this end's heartbeats go: broadcast, or a trunk cable's far end */
const uint8_t *link_peer_hello_dst(const struct link_peer *l);
/* One frame off the interface at now (ns). LINK_RX_IB: the IB frame is
 * buf[*ib_off, *ib_off + *ib_len); LINK_RX_HELLO: *h is the heartbeat. */
enum link_rx link_peer_rx(struct link_peer *l, const uint8_t *buf,
			  size_t len, uint64_t now, size_t *ib_off,
			  size_t *ib_len, struct mpd_link_hello *h);
/* The link at now, enabled or not: 1 it came up, -1 it went down, 0 as
 * it was; *send: a heartbeat is due (link_peer_hello() makes it) */
int link_peer_tick(struct link_peer *l, bool enabled, uint64_t now,
		   bool *send);
/* The heartbeat this end sends */
void link_peer_hello(const struct link_peer *l, struct mpd_link_hello *h);
/* Where IB frames go: the peer's MAC; while it has none broadcast (or a
 * trunk cable's far end) */
const uint8_t *link_peer_dst(const struct link_peer *l);

#endif
