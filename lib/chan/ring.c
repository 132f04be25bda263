/* SPDX-License-Identifier: BSD-3-Clause */
/* SPSC byte rings in shared memory (see madpmd/chan.h). */
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

uint32_t
mpd_ring_rec_size(uint32_t len)
{
	return REC_HDR + ((len + 7u) & ~7u);
}

int
mpd_ring_init(struct mpd_chan_ring *r, uint32_t size)
{
	if (size < 64 || (size & (size - 1)))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->size = size;
	return 0;
}

int
mpd_ring_attach(struct mpd_ring_view *v, struct mpd_chan_ring *r,
		uint32_t size)
{
	if (!r || size < 64 || (size & (size - 1)))
		return -EINVAL;
	v->r = r;
	v->size = size;
	v->peeked = 0;
	return 0;
}

int
mpd_ring_put(struct mpd_ring_view *v, uint32_t kind, const void *a,
	     uint32_t alen, const void *b, uint32_t blen)
{
	struct mpd_chan_ring *r = v->r;
	uint64_t head = r->head, tail = load_acq(&r->tail);
	uint32_t len = alen + blen, need, off, room_end;
	struct mpd_chan_rec rec;

	/* at most half the ring less a header: with the padding before it
	 * a record then always fits an empty ring (never ENOSPC forever);
	 * alen and blen are checked alone first so that the sum cannot wrap */
	if (alen > v->size / 2 || blen > v->size / 2 ||
	    len > v->size / 2 - REC_HDR)
		return -EMSGSIZE;
	need = mpd_ring_rec_size(len);
	off = (uint32_t)(head & (v->size - 1));
	room_end = v->size - off;
	/* a record does not wrap: pad to the end first if it must */
	if (room_end < need) {
		if (head + room_end + need - tail > v->size)
			return -ENOSPC;
		rec.len = room_end - REC_HDR;
		rec.kind = MPD_CHAN_REC_PAD;
		memcpy(r->data + off, &rec, REC_HDR);
		head += room_end;
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
	store_rel(&r->head, head + need);
	return 0;
}

int
mpd_ring_put_wake(struct mpd_ring_view *v, uint32_t kind, const void *a,
		  uint32_t alen, const void *b, uint32_t blen, bool *wake)
{
	uint64_t before = v->r->head;
	int rc = mpd_ring_put(v, kind, a, alen, b, blen);

	*wake = false;
	if (rc)
		return rc;
	/* head is published; only now look at the consumer. Paired with the
	 * consumer's fence between clearing its wake-up and looking at head:
	 * one of the two sides sees the other's store. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*wake = load_acq(&v->r->tail) == before;
	return 0;
}

int
mpd_ring_peek(struct mpd_ring_view *v, const uint8_t **data, uint32_t *len,
	      uint32_t *kind)
{
	struct mpd_chan_ring *r = v->r;
	uint64_t tail = r->tail, head = load_acq(&r->head);
	struct mpd_chan_rec rec;
	uint32_t off;

	for (;;) {
		if (head == tail)
			return 0;
		if (head - tail > v->size || (tail & 7))
			return -EBADMSG;
		off = (uint32_t)(tail & (v->size - 1));
		if (v->size - off < REC_HDR)
			return -EBADMSG;
		memcpy(&rec, r->data + off, REC_HDR);
		if (rec.len > v->size - off - REC_HDR ||
		    mpd_ring_rec_size(rec.len) > head - tail)
			return -EBADMSG;
		if (rec.kind != MPD_CHAN_REC_PAD)
			break;
		tail += mpd_ring_rec_size(rec.len);
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
	if (v->peeked)
		store_rel(&v->r->tail, v->peeked);
	v->peeked = 0;
}

bool
mpd_ring_empty(const struct mpd_ring_view *v)
{
	return load_acq(&v->r->head) == load_acq(&v->r->tail);
}
