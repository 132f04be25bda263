/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the peer of an IB link over Ethernet
 * (pmd/launcher/link_peer.c, no DPDK) against what anyone on the segment
 * sends: heartbeats with any fields, IB frames in the envelope, any
 * bytes, from the peer, a stranger, our own MAC or any, between ticks of
 * the clock. Besides no crash, the trust rules hold after every step:
 *  - a link that is up keeps the peer it came up with;
 *  - while the link has a peer, and for the hold time after it lost
 *    one, nothing from another MAC is taken (a heartbeat or an IB
 *    frame), and nothing of our own MAC ever is;
 *  - a link is never up more than FAB_WIRE_DEAD * FAB_WIRE_HELLO_MS
 *    after its peer's last heartbeat, whatever else arrives (a trunk's
 *    cable: FAB_TRUNK_DEAD * FAB_TRUNK_HELLO_MS);
 *  - a trunk's cable sends nothing to broadcast.
 * Input: a mode byte (odd: the link is a trunk's cable, its far end A),
 * then operations, an opcode byte and operands:
 *   0 HELLO  src, flags, le16 interval, guid[8], port, heard guid[8],
 *            heard port
 *   1 IB     src, dst (0 us, 1 broadcast, 2 other), le16 n, n bytes
 *   2 RAW    le16 n, n bytes (a whole Ethernet frame)
 *   3 TICK   ms / 4 to wait, enabled
 * src: 0 the peer A, 1 a stranger B, 2 our own MAC.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/link_peer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OUR_GUID	0x200000ull
#define OUR_PORT	5

static const uint8_t macs[3][6] = {
	{ 0x02, 0, 0, 0, 0, 0x0a },	/* A */
	{ 0x02, 0, 0, 0, 0, 0x0b },	/* B */
	{ 0x02, 0, 0, 0, 0, 0x01 },	/* ours */
};
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

struct in {
	const uint8_t *p;
	size_t n;
};

static bool
take(struct in *in, void *out, size_t n)
{
	if (in->n < n)
		return false;
	memcpy(out, in->p, n);
	in->p += n;
	in->n -= n;
	return true;
}

static uint64_t
le64(const uint8_t *b)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

struct state {
	struct link_peer l;
	uint64_t now;
	uint64_t last_hello;	/* the peer's last heartbeat taken */
	bool up_known;
	uint8_t up_peer[6];	/* the peer the link came up with */
	uint64_t up_guid;
	uint8_t up_port;
};

static void
check_rx(struct state *s, const struct link_peer *before,
	 const uint8_t *src, enum link_rx v)
{
	if (v == LINK_RX_DROP)
		return;
	if (src && !memcmp(src, macs[2], 6))
		abort();	/* our own frame taken */
	if (src && before->have_last && memcmp(src, before->peer, 6))
		abort();	/* a stranger's frame taken */
	if (src && !before->have_last && s->now < before->hold_ns &&
	    memcmp(src, before->peer, 6))
		abort();	/* a dead peer's cable taken by a stranger */
	if (v == LINK_RX_HELLO)
		s->last_hello = s->now;
}

static void
check_state(struct state *s)
{
	const struct link_peer *l = &s->l;

	if (!l->up) {
		s->up_known = false;
		return;
	}
	if (!l->have_last)
		abort();
	if (!s->up_known) {
		s->up_known = true;
		memcpy(s->up_peer, l->peer, 6);
		s->up_guid = l->last.guid;
		s->up_port = l->last.port;
		return;
	}
	if (memcmp(s->up_peer, l->peer, 6) || s->up_guid != l->last.guid ||
	    s->up_port != l->last.port)
		abort();	/* the peer changed under a link that is up */
}

static void
rx(struct state *s, const uint8_t *f, size_t len, const uint8_t *src)
{
	struct link_peer before = s->l;
	struct mpd_link_hello h;
	size_t off = 0, ib = 0;
	enum link_rx v;

	v = link_peer_rx(&s->l, f, len, s->now, &off, &ib, &h);
	if (v == LINK_RX_IB && (off > len || ib > len - off))
		abort();
	/* a raw frame's source is its bytes 6..11 */
	if (!src && len >= 12)
		src = f + 6;
	check_rx(s, &before, src, v);
	check_state(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct state s;
	struct in in = { data, size };
	uint8_t op, mode, f[2048];
	uint64_t dead = (uint64_t)FAB_WIRE_DEAD * FAB_WIRE_HELLO_MS;

	memset(&s, 0, sizeof(s));
	s.now = 1000000000ull;
	link_peer_start(&s.l, macs[2], OUR_GUID, OUR_PORT);
	if (!take(&in, &mode, 1))
		return 0;
	if (mode & 1) {
		link_peer_trunk(&s.l, macs[0], s.now);
		dead = (uint64_t)FAB_TRUNK_DEAD * FAB_TRUNK_HELLO_MS;
	}
	while (take(&in, &op, 1)) {
		if ((mode & 1) && (!memcmp(link_peer_dst(&s.l), bcast, 6) ||
				   !memcmp(link_peer_hello_dst(&s.l), bcast, 6)))
			abort();	/* a trunk's cable to broadcast */
		switch (op % 4) {
		case 0: {
			uint8_t b[22];
			struct mpd_link_hello h;

			if (!take(&in, b, sizeof(b)))
				return 0;
			h.flags = b[1];
			h.interval_ms = (uint16_t)(b[2] | b[3] << 8);
			h.guid = le64(b + 4);
			h.port = b[12];
			h.heard_guid = le64(b + 13);
			h.heard_port = b[21];
			if (mpd_link_hello_encode(bcast, macs[b[0] % 3], &h, f,
						  sizeof(f)) < 0)
				break;
			rx(&s, f, MPD_LINK_HELLO_FRAME, macs[b[0] % 3]);
			break;
		}
		case 1: {
			uint8_t b[4];
			uint16_t n;
			const uint8_t *dst;

			if (!take(&in, b, sizeof(b)))
				return 0;
			n = (uint16_t)(b[2] | b[3] << 8) % (sizeof(f) - 14);
			dst = b[1] % 3 == 0 ? macs[2] : b[1] % 3 == 1 ? bcast :
			      macs[1];
			mpd_ib_eth_header(dst, macs[b[0] % 3], f, 14);
			if (!take(&in, f + 14, n))
				return 0;
			rx(&s, f, 14u + n, macs[b[0] % 3]);
			break;
		}
		case 2: {
			uint8_t b[2];
			uint16_t n;

			if (!take(&in, b, sizeof(b)))
				return 0;
			n = (uint16_t)(b[0] | b[1] << 8) % sizeof(f);
			if (!take(&in, f, n))
				return 0;
			rx(&s, f, n, NULL);
			break;
		}
		default: {
			uint8_t b[2];
			bool send;

			if (!take(&in, b, sizeof(b)))
				return 0;
			s.now += (uint64_t)b[0] * 4 * 1000000ull;
			link_peer_tick(&s.l, b[1] & 1, s.now, &send);
			if (s.l.up && s.now - s.last_hello >= dead * 1000000ull)
				abort();	/* a dead peer's link kept up */
			check_state(&s);
			break;
		}
		}
	}
	return 0;
}
