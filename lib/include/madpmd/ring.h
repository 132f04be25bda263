/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SPSC byte rings of the client channel (madpmd/chan.h), usable from
 * both sides. A view keeps its own copy of the ring size: whatever the
 * peer writes into shared memory is checked, never trusted.
 */
#ifndef MADPMD_RING_H
#define MADPMD_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "madpmd/chan.h"

struct mpd_ring_view {
	struct mpd_chan_ring *r;
	uint32_t size;			/* trusted copy */
	uint64_t peeked;		/* consumer: end of the peeked record */
};

/* Lay a ring of size bytes (power of two, >= 64) out at r. */
int mpd_ring_init(struct mpd_chan_ring *r, uint32_t size);
/* Attach a view; size is what the attaching side expects. 0 or -EINVAL. */
int mpd_ring_attach(struct mpd_ring_view *v, struct mpd_chan_ring *r,
		    uint32_t size);
/* Producer: one record made of a then b. 0, -ENOSPC (full for now) or
 * -EMSGSIZE (can never fit). */
int mpd_ring_put(struct mpd_ring_view *v, uint32_t kind, const void *a,
		 uint32_t alen, const void *b, uint32_t blen);
/* Producer: mpd_ring_put(), and *wake set when the consumer had taken
 * every earlier record: only then can it be asleep, and need a wake-up
 * (see the wake-up rule in madpmd/chan.h). */
int mpd_ring_put_wake(struct mpd_ring_view *v, uint32_t kind, const void *a,
		      uint32_t alen, const void *b, uint32_t blen, bool *wake);
/* Consumer: the next record, padding skipped. 1 with data, len, kind
 * set, 0 when empty, -EBADMSG when the producer wrote garbage. */
int mpd_ring_peek(struct mpd_ring_view *v, const uint8_t **data,
		  uint32_t *len, uint32_t *kind);
/* Consumer: release the record last peeked. */
void mpd_ring_consume(struct mpd_ring_view *v);
bool mpd_ring_empty(const struct mpd_ring_view *v);
/* Bytes a record of len payload bytes takes, header and padding included. */
uint32_t mpd_ring_rec_size(uint32_t len);

#endif
