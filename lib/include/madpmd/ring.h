/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SPSC byte rings of the client channel (madpmd/chan.h), usable from
 * both sides. The peer process can write anything into the shared memory
 * at any time, so a view keeps everything it relies on to itself (the
 * memif/rxe discipline): the ring size, and the position it produces
 * (producer: head) or consumes (consumer: tail). Its own position is
 * stored into the ring only as advice for the peer and never read back;
 * the peer's position is read from the ring and checked against the
 * private one before it is used. No value in shared memory can make a
 * view write or hand out bytes outside data[0..size).
 */
#ifndef MADPMD_RING_H
#define MADPMD_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "madpmd/chan.h"

/* A producer that finds its ring (of 4 MiB or more) empty past this
 * offset pads to the end and starts again at data[0] (when the record
 * fits before it). */
#define MPD_RING_RESTART	(1u << 20)

struct mpd_ring_view {
	struct mpd_chan_ring *r;
	uint32_t size;			/* trusted copy */
	/* producer: its head (private); consumer: the last valid head seen */
	uint64_t head;
	/* consumer: its tail (private); producer: the last valid tail seen */
	uint64_t tail;
	uint64_t peeked;		/* consumer: end of the peeked record */
	/* producer: the last padding it wrote, [pad_from, pad_to) */
	uint64_t pad_from, pad_to;
};

/* Lay a ring of size bytes (power of two, >= 64) out at r. */
int mpd_ring_init(struct mpd_chan_ring *r, uint32_t size);
/* Attach a view; size is what the attaching side expects. The view takes
 * head and tail from the ring once (both 0 after mpd_ring_init()). 0, or
 * -EINVAL for a bad size or positions that make no ring of that size. */
int mpd_ring_attach(struct mpd_ring_view *v, struct mpd_chan_ring *r,
		    uint32_t size);
/* Producer: one record made of a then b. 0, -ENOSPC (full for now),
 * -EMSGSIZE (can never fit) or -EBADMSG (the consumer's tail is garbage:
 * not 8-aligned, past our head, more than size behind it, or gone
 * backwards; nothing is written). */
int mpd_ring_put(struct mpd_ring_view *v, uint32_t kind, const void *a,
		 uint32_t alen, const void *b, uint32_t blen);
/* Producer: mpd_ring_put() (same returns), and *wake set when the
 * consumer had taken every earlier record: only then can it be asleep,
 * and need a wake-up (see the wake-up rule in madpmd/chan.h). */
int mpd_ring_put_wake(struct mpd_ring_view *v, uint32_t kind, const void *a,
		      uint32_t alen, const void *b, uint32_t blen, bool *wake);
/* Producer: bytes of records the consumer has not taken yet, by its tail
 * as it reads now (the last valid one seen when it is garbage), without
 * the padding the producer wrote: a restart's pads most of the ring. */
uint64_t mpd_ring_queued(struct mpd_ring_view *v);
/* Consumer: the next record, padding skipped. 1 with data, len, kind
 * set, 0 when empty, -EBADMSG when the producer wrote garbage (a head
 * behind our tail, more than size ahead of it, not 8-aligned or gone
 * backwards, or a record that overruns head or the end of data[]). */
int mpd_ring_peek(struct mpd_ring_view *v, const uint8_t **data,
		  uint32_t *len, uint32_t *kind);
/* Consumer: release the record last peeked. */
void mpd_ring_consume(struct mpd_ring_view *v);
/* Consumer: nothing queued past our tail. */
bool mpd_ring_empty(const struct mpd_ring_view *v);
/* Bytes a record of len payload bytes takes, header and padding included. */
uint32_t mpd_ring_rec_size(uint32_t len);

#endif
