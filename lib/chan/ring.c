/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SPSC byte rings in shared memory (see madpmd/chan.h). Each side's own
 * position lives in its view; what the ring holds of it is advice for the
 * peer, stored and never loaded. The peer's position is loaded and
 * checked against ours first, so a peer that scribbles over the ring can
 * make it look full, empty or corrupt, but never move our writes or the
 * records we hand out outside data[].
 */
#include <errno.h>
#include <string.h>

#include "madpmd/ring.h"

#define REC_HDR		((uint32_t)sizeof(struct mpd_chan_rec))

static uint64_t
load_acq(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void
store_rel(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/*
 * A producer that finds the ring empty past this offset starts again at
 * data[0], padding to the end: a ring that is drained as fast as it is
 * filled then touches only its first pages, and its shared memory stays
 * what the session uses. Until the consumer skips the pad, the ring holds
 * only the bytes before it; the record that restarts must fit there, and
 * the offset (1 MiB, in rings of 4 MiB and more; small rings never
 * restart) is large enough that a consumer which just emptied the ring
 * reads the pad before that fills.
 */
static uint32_t
restart_off(uint32_t size)
{
	return size >= 4 * MPD_RING_RESTART ? MPD_RING_RESTART : size;
}

static bool
size_ok(uint32_t size)
{
	return size >= 64 && !(size & (size - 1));
}

/* head and tail as a ring of size bytes can hold them: records are
 * 8-aligned and the consumer is never ahead nor more than size behind */
static bool
positions_ok(uint64_t head, uint64_t tail, uint32_t size)
{
	return !((head | tail) & 7) && tail <= head && head - tail <= size;
}

uint32_t
mpd_ring_rec_size(uint32_t len)
{
	return REC_HDR + ((len + 7u) & ~7u);
}

int
mpd_ring_init(struct mpd_chan_ring *r, uint32_t size)
{
	if (!size_ok(size))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->size = size;
	return 0;
}

int
mpd_ring_attach(struct mpd_ring_view *v, struct mpd_chan_ring *r,
		uint32_t size)
{
	uint64_t head, tail;

	if (!r || !size_ok(size))
		return -EINVAL;
	/* the only time a side reads its own position back */
	head = load_acq(&r->head);
	tail = load_acq(&r->tail);
	if (!positions_ok(head, tail, size))
		return -EINVAL;
	v->r = r;
	v->size = size;
	v->head = head;
	v->tail = tail;
	v->peeked = 0;
	v->pad_from = v->pad_to = head;
	return 0;
}

/* Producer: the consumer's tail, checked against our head and the last
 * tail seen (it only moves forward). */
static int
prod_tail(struct mpd_ring_view *v, uint64_t *tail)
{
	uint64_t t = load_acq(&v->r->tail);

	if (!positions_ok(v->head, t, v->size) || t < v->tail)
		return -EBADMSG;
	v->tail = t;
	*tail = t;
	return 0;
}

int
mpd_ring_put(struct mpd_ring_view *v, uint32_t kind, const void *a,
	     uint32_t alen, const void *b, uint32_t blen)
{
	struct mpd_chan_ring *r = v->r;
	uint32_t len = alen + blen, need, off, room_end;
	uint64_t head = v->head, tail;
	struct mpd_chan_rec rec;
	int rc;

	/* at most half the ring less a header: with the padding before it
	 * a record then always fits an empty ring (never ENOSPC forever);
	 * alen and blen are checked alone first so that the sum cannot wrap */
	if (alen > v->size / 2 || blen > v->size / 2 ||
	    len > v->size / 2 - REC_HDR)
		return -EMSGSIZE;
	rc = prod_tail(v, &tail);
	if (rc)
		return rc;
	need = mpd_ring_rec_size(len);
	/* head is ours and 8-aligned: off <= size - 8, and the writes below
	 * stay in data[] whatever tail says */
	off = (uint32_t)(head & (v->size - 1));
	room_end = v->size - off;
	/* a record does not wrap: pad to the end first if it must, or when
	 * the ring is empty and we are past the restart offset */
	if (room_end < need ||
	    (head == tail && off >= restart_off(v->size) && need <= off)) {
		if (head + room_end + need - tail > v->size)
			return -ENOSPC;
		rec.len = room_end - REC_HDR;
		rec.kind = MPD_CHAN_REC_PAD;
		memcpy(r->data + off, &rec, REC_HDR);
		v->pad_from = head;
		head += room_end;
		v->pad_to = head;
		off = 0;
	} else if (head + need - tail > v->size) {
		return -ENOSPC;
	}
	rec.len = len;
	rec.kind = kind;
	memcpy(r->data + off, &rec, REC_HDR);
	if (alen)
		memcpy(r->data + off + REC_HDR, a, alen);
	if (blen)
		memcpy(r->data + off + REC_HDR + alen, b, blen);
	v->head = head + need;
	store_rel(&r->head, v->head);
	return 0;
}

uint64_t
mpd_ring_queued(struct mpd_ring_view *v)
{
	uint64_t tail, used;

	if (prod_tail(v, &tail))
		tail = v->tail;
	used = v->head - tail;
	/* the consumer skips a pad whole: its tail is never inside one */
	if (tail <= v->pad_from)
		used -= v->pad_to - v->pad_from;
	return used;
}

int
mpd_ring_put_wake(struct mpd_ring_view *v, uint32_t kind, const void *a,
		  uint32_t alen, const void *b, uint32_t blen, bool *wake)
{
	uint64_t before = v->head;
	int rc = mpd_ring_put(v, kind, a, alen, b, blen);

	*wake = false;
	if (rc)
		return rc;
	/* head is published; only now look at the consumer. Paired with the
	 * consumer's fence between clearing its wake-up and looking at head:
	 * one of the two sides sees the other's store. Only a comparison:
	 * a garbage tail here costs a wake-up at most, and the next put
	 * reports it. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*wake = load_acq(&v->r->tail) == before;
	return 0;
}

int
mpd_ring_peek(struct mpd_ring_view *v, const uint8_t **data, uint32_t *len,
	      uint32_t *kind)
{
	struct mpd_chan_ring *r = v->r;
	uint64_t tail = v->tail, head = load_acq(&r->head);
	struct mpd_chan_rec rec;
	uint32_t off;

	/* the producer's head only moves forward, by whole records */
	if (!positions_ok(head, tail, v->size) || head < v->head)
		return -EBADMSG;
	v->head = head;
	for (;;) {
		if (head == tail)
			return 0;
		/* tail is ours and 8-aligned: the header is inside data[] */
		off = (uint32_t)(tail & (v->size - 1));
		memcpy(&rec, r->data + off, REC_HDR);
		if (rec.len > v->size - off - REC_HDR ||
		    mpd_ring_rec_size(rec.len) > head - tail)
			return -EBADMSG;
		if (rec.kind != MPD_CHAN_REC_PAD)
			break;
		tail += mpd_ring_rec_size(rec.len);
		v->tail = tail;
		store_rel(&r->tail, tail);
	}
	*data = r->data + off + REC_HDR;
	*len = rec.len;
	*kind = rec.kind;
	v->peeked = tail + mpd_ring_rec_size(rec.len);
	return 1;
}

void
mpd_ring_consume(struct mpd_ring_view *v)
{
	if (!v->peeked)
		return;
	v->tail = v->peeked;
	v->peeked = 0;
	store_rel(&v->r->tail, v->tail);
}

bool
mpd_ring_empty(const struct mpd_ring_view *v)
{
	return load_acq(&v->r->head) == v->tail;
}
