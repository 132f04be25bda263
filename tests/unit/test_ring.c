/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client channel's SPSC byte rings (lib/chan/ring.c): layout and
 * attach, filling and draining across the wrap with padding records
 * against a model of when a record fits, and a peer that scribbles over
 * the shared positions and records between operations. The ring sits in
 * a buffer with 64 guard bytes of 0xA5 after data[], which no operation
 * may ever touch, whatever the peer wrote.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/chan.h"
#include "madpmd/ring.h"
#include "tap.h"

#define SIZE		256u
#define GUARD		64u
#define GUARD_BYTE	0xa5
#define HDR		((uint32_t)sizeof(struct mpd_chan_ring))
#define REC		((uint32_t)sizeof(struct mpd_chan_rec))
#define MAX_LEN		(SIZE / 2 - REC)	/* largest record payload */

struct tring {
	struct mpd_chan_ring *r;
	uint8_t *guard;
	struct mpd_ring_view p;		/* producer */
	struct mpd_ring_view c;		/* consumer */
};

static void
tring_open(struct tring *t)
{
	t->r = aligned_alloc(64, HDR + SIZE + GUARD);
	if (!t->r) {
		tap_diag("out of memory");
		exit(1);
	}
	memset(t->r, 0, HDR + SIZE);
	t->guard = t->r->data + SIZE;
	memset(t->guard, GUARD_BYTE, GUARD);
	mpd_ring_init(t->r, SIZE);
	mpd_ring_attach(&t->p, t->r, SIZE);
	mpd_ring_attach(&t->c, t->r, SIZE);
}

static void
tring_close(struct tring *t)
{
	free(t->r);
	t->r = NULL;
}

/* Nothing outside data[] and the two positions was written: the guard
 * after data[], the header's padding and its size. */
static bool
tring_intact(const struct tring *t)
{
	static const uint8_t zero[64];
	uint32_t i;

	for (i = 0; i < GUARD; i++)
		if (t->guard[i] != GUARD_BYTE)
			return false;
	return t->r->size == SIZE &&
	       !memcmp(t->r->pad0, zero, sizeof(t->r->pad0)) &&
	       !memcmp(t->r->pad1, zero, sizeof(t->r->pad1)) &&
	       !memcmp(t->r->pad2, zero, sizeof(t->r->pad2));
}

/* A record the consumer was handed lies inside data[]. */
static bool
in_data(const struct tring *t, const uint8_t *d, uint32_t len)
{
	return d >= t->r->data + REC && d <= t->r->data + SIZE &&
	       len <= (uint32_t)(t->r->data + SIZE - d);
}

/* Payload of record seq: its bytes are a function of seq and position. */
static void
fill(uint8_t *buf, uint32_t len, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(seq * 31u + i * 7u + 1u);
}

static bool
check(const uint8_t *buf, uint32_t len, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != (uint8_t)(seq * 31u + i * 7u + 1u))
			return false;
	return true;
}

static void
put_rec(struct tring *t, uint32_t seq, uint32_t len, int want, const char *what)
{
	uint8_t buf[SIZE];

	fill(buf, len, seq);
	is_int(mpd_ring_put(&t->p, MPD_CHAN_REC_UMAD, buf, len, NULL, 0), want,
	       "%s", what);
}

/* ---- init and attach ---------------------------------------------------------- */

static void
test_attach(void)
{
	struct tring t;
	struct mpd_ring_view v;

	tring_open(&t);
	is_int(mpd_ring_init(t.r, 32), -EINVAL, "init: 32 bytes is too small");
	is_int(mpd_ring_init(t.r, 96), -EINVAL, "init: 96 is no power of two");
	is_int(mpd_ring_attach(&v, NULL, SIZE), -EINVAL, "attach: NULL ring");
	is_int(mpd_ring_attach(&v, t.r, 0), -EINVAL, "attach: size 0");
	is_int(mpd_ring_attach(&v, t.r, 192), -EINVAL, "attach: size 192");
	is_int(mpd_ring_init(t.r, SIZE), 0, "init");
	memset(&v, 0xff, sizeof(v));
	is_int(mpd_ring_attach(&v, t.r, SIZE), 0, "attach to a fresh ring");
	ok(v.r == t.r && v.size == SIZE && v.head == 0 && v.tail == 0 &&
	   v.peeked == 0, "fresh view: head and tail 0, nothing peeked");

	/* a re-attach takes the positions as they are, once */
	t.r->head = 3 * SIZE + 64;
	t.r->tail = 2 * SIZE + 128;
	is_int(mpd_ring_attach(&v, t.r, SIZE), 0, "re-attach a ring in use");
	ok(v.head == 3 * SIZE + 64 && v.tail == 2 * SIZE + 128,
	   "re-attach: the positions from the ring");
	t.r->head = 12345;
	t.r->tail = 999;
	ok(v.head == 3 * SIZE + 64 && v.tail == 2 * SIZE + 128,
	   "and never again: writes to the ring do not reach the view");

	t.r->head = 3 * SIZE + 64;
	t.r->tail = 3 * SIZE + 72;
	is_int(mpd_ring_attach(&v, t.r, SIZE), -EINVAL,
	       "attach: tail past head: -EINVAL");
	t.r->tail = 2 * SIZE + 56;
	is_int(mpd_ring_attach(&v, t.r, SIZE), -EINVAL,
	       "attach: head more than size ahead of tail: -EINVAL");
	t.r->tail = 2 * SIZE + 132;
	is_int(mpd_ring_attach(&v, t.r, SIZE), -EINVAL,
	       "attach: tail not 8-aligned: -EINVAL");
	t.r->tail = 2 * SIZE + 128;
	t.r->head = 3 * SIZE + 65;
	is_int(mpd_ring_attach(&v, t.r, SIZE), -EINVAL,
	       "attach: head not 8-aligned: -EINVAL");
	t.r->head = 2 * SIZE + 128;
	is_int(mpd_ring_attach(&v, t.r, SIZE), 0, "attach: empty at 640");
	ok(mpd_ring_empty(&v), "and empty");
	ok(tring_intact(&t), "nothing written past data[]");
	tring_close(&t);
}

/* ---- filling and draining across the wrap --------------------------------------- */

/* Whether a record of len bytes fits now, as the ring's rule says: it
 * does not wrap, so it may need a pad to the end of data[] first. */
static bool
model_fits(uint64_t head, uint64_t tail, uint32_t len)
{
	uint32_t need = mpd_ring_rec_size(len);
	uint32_t room_end = SIZE - (uint32_t)(head % SIZE);
	/* padded to the end when the record does not fit before it (a ring
	 * this small never restarts early: see test_restart()) */
	uint64_t take = room_end < need ? room_end + need : need;

	return head - tail + take <= SIZE;
}

static void
test_pad(void)
{
	struct tring t;
	const uint8_t *d;
	struct mpd_chan_rec pad;
	uint32_t len, kind;

	tring_open(&t);
	/* 224 bytes of records, then a 200-byte drain: head 224, tail 224 */
	put_rec(&t, 1, 112, 0, "a 112-byte record (120 with its header)");
	put_rec(&t, 2, 96, 0, "a 96-byte record (104)");
	is_int(t.r->head, 224, "head 224");
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 1, "peek the first");
	ok(len == 112 && kind == MPD_CHAN_REC_UMAD && check(d, len, 1),
	   "the first record, intact");
	mpd_ring_consume(&t.c);
	is_int(t.r->tail, 120, "consume publishes tail 120");
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 1, "peek the second");
	ok(len == 96 && check(d, len, 2), "the second record, intact");
	mpd_ring_consume(&t.c);
	ok(mpd_ring_empty(&t.c), "empty");

	/* 32 bytes left before the end: a 40-byte record (48) pads first */
	put_rec(&t, 3, 40, 0, "a record that does not fit before the end");
	is_int(t.r->head, 224 + 32 + 48, "head counts the 32-byte pad");
	memcpy(&pad, t.r->data + 224, REC);
	ok(pad.kind == MPD_CHAN_REC_PAD && pad.len == 32 - REC,
	   "a pad record covers the end of data[]");
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 1, "peek past the pad");
	ok(d == t.r->data + REC && len == 40 && check(d, len, 3),
	   "the record starts data[] again, intact");
	is_int(t.r->tail, 256, "the pad is released at once");
	ok(!mpd_ring_empty(&t.c), "not empty while the record is only peeked");
	mpd_ring_consume(&t.c);
	is_int(t.r->tail, 304, "tail 304");
	ok(mpd_ring_empty(&t.c), "empty");

	/* a record that fits exactly to the end needs no pad */
	put_rec(&t, 4, MAX_LEN, 0, "the largest record");
	is_int(t.r->head, 432, "head 432");
	put_rec(&t, 5, 72, 0, "a record ending exactly at the end of data[]");
	is_int(t.r->head, 512, "head 512, no pad");
	put_rec(&t, 6, 0, 0, "an empty record");
	is_int(t.r->head, 520, "8 bytes");
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 1, "peek");
	ok(len == MAX_LEN && check(d, len, 4), "intact");
	mpd_ring_consume(&t.c);
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 1, "peek");
	ok(d == t.r->data + 184 && len == 72 && check(d, len, 5),
	   "intact, up to the last byte of data[]");
	mpd_ring_consume(&t.c);
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 1, "peek the empty one");
	is_int(len, 0, "length 0");
	mpd_ring_consume(&t.c);
	mpd_ring_consume(&t.c);
	is_int(t.r->tail, 520, "a second consume releases nothing");
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 0, "empty: 0");
	put_rec(&t, 6, MAX_LEN + 1, -EMSGSIZE, "more than half the ring: -EMSGSIZE");
	ok(tring_intact(&t), "nothing written past data[]");
	tring_close(&t);
}

static void
test_wrap(void)
{
	uint64_t pads = 0, recs = 0, bad_rc = 0, bad_data = 0, bad_fit = 0;
	uint32_t seq_in = 0, seq_out = 0, lens[SIZE], len, kind, n, i;
	uint8_t buf[SIZE];
	const uint8_t *d;
	struct tring t;
	int rc;

	tring_open(&t);
	while (t.p.head < 400 * SIZE) {
		/* fill with random lengths until the ring says full */
		for (;;) {
			uint64_t head = t.p.head, tail = t.r->tail;

			len = (uint32_t)(rnd64() % (MAX_LEN + 1));
			fill(buf, len, seq_in);
			rc = mpd_ring_put(&t.p, MPD_CHAN_REC_UMAD, buf, len,
					  NULL, 0);
			if (rc != 0 && rc != -ENOSPC)
				bad_rc++;
			if ((rc == 0) != model_fits(head, tail, len))
				bad_fit++;
			if (rc)
				break;
			if (t.r->head - head > mpd_ring_rec_size(len))
				pads++;
			lens[seq_in++ % SIZE] = len;
		}
		/* drain some, now and then all */
		n = (uint32_t)(rnd64() % 4) ? (uint32_t)(rnd64() % 4) : ~0u;
		for (i = 0; i < n; i++) {
			rc = mpd_ring_peek(&t.c, &d, &len, &kind);
			if (rc == 0)
				break;
			if (rc != 1 || kind != MPD_CHAN_REC_UMAD ||
			    len != lens[seq_out % SIZE] || !in_data(&t, d, len)) {
				bad_rc++;
				break;
			}
			if (!check(d, len, seq_out))
				bad_data++;
			seq_out++;
			recs++;
			mpd_ring_consume(&t.c);
		}
		if (bad_rc)
			break;
	}
	is_int(bad_rc, 0, "400 rings' worth of records: every put 0 or -ENOSPC, every record in order");
	is_int(bad_fit, 0, "-ENOSPC exactly when the record (and its pad) does not fit");
	is_int(bad_data, 0, "every record's bytes intact across the wrap");
	ok(pads > 100, "many pad records written (%llu)", (unsigned long long)pads);
	ok(recs > 1000, "many records read (%llu)", (unsigned long long)recs);
	while (mpd_ring_peek(&t.c, &d, &len, &kind) == 1) {
		seq_out++;
		mpd_ring_consume(&t.c);
	}
	is_int(seq_out, seq_in, "drained: as many out as in");
	ok(mpd_ring_empty(&t.c) && t.r->head == t.r->tail, "empty at the end");
	ok(tring_intact(&t), "nothing written past data[]");
	tring_close(&t);
}

/* ---- a peer that scribbles ------------------------------------------------------ */

/* Producer side: the consumer writes garbage into tail (or into head,
 * which only the producer owns). */
static void
test_scribble_tail(void)
{
	uint8_t snap[SIZE], buf[SIZE];
	const uint8_t *d;
	uint32_t len, kind, i;
	struct tring t;
	uint64_t real, head;
	bool wake;
	struct {
		const char *what;
		uint64_t tail;
	} bad[8];
	int nbad = 0, k;

	tring_open(&t);
	/* move both sides a few rings on, some records queued */
	for (i = 0; i < 40; i++) {
		put_rec(&t, i, 100, 0, "warm-up put");
		if (mpd_ring_peek(&t.c, &d, &len, &kind) == 1)
			mpd_ring_consume(&t.c);
	}
	put_rec(&t, 40, 50, 0, "a record left queued");
	/* the consumer looks (and skips a restart's pad), takes nothing */
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 1, "record 40 seen");
	head = t.p.head;
	real = t.r->tail;
	ok(head - real > 0 && head > 3 * SIZE, "head %llu, tail %llu",
	   (unsigned long long)head, (unsigned long long)real);

	bad[nbad].what = "tail ~0";
	bad[nbad++].tail = ~0ull;
	bad[nbad].what = "tail 2^63";
	bad[nbad++].tail = 1ull << 63;
	bad[nbad].what = "tail not 8-aligned";
	bad[nbad++].tail = real + 4;
	bad[nbad].what = "tail ahead of head";
	bad[nbad++].tail = head + 8;
	bad[nbad].what = "tail more than size behind head";
	bad[nbad++].tail = head - SIZE - 8;
	bad[nbad].what = "tail 0";
	bad[nbad++].tail = 0;
	bad[nbad].what = "tail gone backwards";
	bad[nbad++].tail = t.p.tail - 8;	/* behind what the producer saw */
	for (k = 0; k < nbad; k++) {
		memcpy(snap, t.r->data, SIZE);
		t.r->tail = bad[k].tail;
		put_rec(&t, 99, 20, -EBADMSG, bad[k].what);
		fill(buf, 20, 99);
		is_int(mpd_ring_put_wake(&t.p, MPD_CHAN_REC_UMAD, buf, 20, NULL,
					 0, &wake), -EBADMSG,
		       "put_wake with %s: -EBADMSG", bad[k].what);
		ok(!wake && !memcmp(snap, t.r->data, SIZE) &&
		   t.r->head == head && t.p.head == head,
		   "%s: nothing written, head kept", bad[k].what);
		ok(tring_intact(&t), "%s: guard intact", bad[k].what);
	}
	t.r->tail = real;
	put_rec(&t, 41, 30, 0, "the real tail back: put works");

	/* the producer's own head, scribbled: ignored, then rewritten. The
	 * old ring took an unaligned head near the end for the truth and
	 * wrote its pad header 5 bytes past data[]. */
	head = t.p.head;
	t.r->head = head - head % SIZE + SIZE - 3;
	put_rec(&t, 42, 60, 0, "head scribbled to 3 bytes before the end: put 0");
	ok(tring_intact(&t), "guard intact");
	ok(t.r->head == t.p.head && t.p.head > head,
	   "head published from the private copy");
	t.r->head = ~0ull;
	put_rec(&t, 43, 10, 0, "head scribbled to ~0: put 0");
	ok(t.r->head == t.p.head, "head published from the private copy");
	for (i = 40; i <= 43; i++) {
		is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 1,
		       "the consumer reads record %u", i);
		ok(check(d, len, i) && in_data(&t, d, len), "record %u intact", i);
		mpd_ring_consume(&t.c);
	}
	ok(mpd_ring_empty(&t.c), "empty");

	/* put_wake: the consumer had taken everything, then not */
	fill(buf, 20, 1);
	is_int(mpd_ring_put_wake(&t.p, MPD_CHAN_REC_UMAD, buf, 20, NULL, 0,
				 &wake), 0, "put_wake into an empty ring");
	ok(wake, "wakes the consumer");
	is_int(mpd_ring_put_wake(&t.p, MPD_CHAN_REC_UMAD, buf, 20, NULL, 0,
				 &wake), 0, "put_wake behind a queued record");
	ok(!wake, "no wake-up");
	ok(tring_intact(&t), "guard intact");
	tring_close(&t);
}

/* Consumer side: the producer writes garbage into head, or into the
 * records, or into tail (which only the consumer owns). */
static void
test_scribble_head(void)
{
	const uint8_t *d;
	uint32_t len, kind, i;
	struct mpd_chan_rec rec;
	struct tring t;
	uint64_t real, tail;
	struct {
		const char *what;
		uint64_t head;
	} bad[8];
	int nbad = 0, k;

	tring_open(&t);
	for (i = 0; i < 30; i++) {
		put_rec(&t, i, 88, 0, "warm-up put");
		if (mpd_ring_peek(&t.c, &d, &len, &kind) == 1)
			mpd_ring_consume(&t.c);
	}
	put_rec(&t, 30, 16, 0, "a record queued");
	/* the consumer has seen real only once it peeks (and skipped a
	 * restart's pad then) */
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 1, "peek the record");
	real = t.r->head;
	tail = t.c.tail;
	ok(real > tail && tail > 3 * SIZE, "head %llu, tail %llu",
	   (unsigned long long)real, (unsigned long long)tail);

	bad[nbad].what = "head ~0";
	bad[nbad++].head = ~0ull;
	bad[nbad].what = "head behind tail";
	bad[nbad++].head = tail - 8;
	bad[nbad].what = "head more than size ahead";
	bad[nbad++].head = tail + SIZE + 8;
	bad[nbad].what = "head not 8-aligned";
	bad[nbad++].head = real + 3;
	bad[nbad].what = "head 0";
	bad[nbad++].head = 0;
	bad[nbad].what = "head gone backwards";
	bad[nbad++].head = tail;	/* below the head already seen */
	for (k = 0; k < nbad; k++) {
		t.r->head = bad[k].head;
		is_int(mpd_ring_peek(&t.c, &d, &len, &kind), -EBADMSG,
		       "peek with %s: -EBADMSG", bad[k].what);
		is_int(t.c.tail, tail, "%s: tail kept", bad[k].what);
	}
	t.r->head = real;
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 1, "the real head back");
	ok(len == 16 && check(d, len, 30), "the record, intact");

	/* the consumer's own tail, scribbled: ignored, then rewritten */
	t.r->tail = real;
	ok(!mpd_ring_empty(&t.c), "tail scribbled to head: still not empty");
	t.r->tail = 5;
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), 1, "tail scribbled: peek 1");
	ok(len == 16 && check(d, len, 30), "the same record");
	mpd_ring_consume(&t.c);
	is_int(t.r->tail, real, "consume publishes the private tail");
	ok(mpd_ring_empty(&t.c), "empty");

	/* garbage records */
	put_rec(&t, 31, 40, 0, "a record");
	tail = t.c.tail;
	memcpy(&rec, t.r->data + tail % SIZE, REC);
	rec.len = 0xfffffff8u;
	memcpy(t.r->data + tail % SIZE, &rec, REC);
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), -EBADMSG,
	       "a record of 4 GiB: -EBADMSG");
	rec.len = 48;
	memcpy(t.r->data + tail % SIZE, &rec, REC);
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), -EBADMSG,
	       "a record longer than what head publishes: -EBADMSG");
	rec.len = SIZE - (uint32_t)(tail % SIZE) - REC + 8;
	t.r->head = tail + SIZE;
	memcpy(t.r->data + tail % SIZE, &rec, REC);
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), -EBADMSG,
	       "a record past the end of data[]: -EBADMSG");
	rec.kind = MPD_CHAN_REC_PAD;
	rec.len = SIZE;
	memcpy(t.r->data + tail % SIZE, &rec, REC);
	is_int(mpd_ring_peek(&t.c, &d, &len, &kind), -EBADMSG,
	       "a pad past the end of data[]: -EBADMSG");
	is_int(t.c.tail, tail, "tail kept");
	ok(tring_intact(&t), "guard intact");
	tring_close(&t);
}

/* Either side, against a peer that writes random positions and random
 * bytes into data[] between operations: every call returns one of its
 * documented values, nothing outside data[] is written, and every record
 * handed out lies inside data[]. */
static void
test_scribble_fuzz(void)
{
	uint64_t n_put = 0, n_peek = 0, n_bad = 0, fails = 0;
	uint8_t buf[SIZE], snap[SIZE];
	const uint8_t *d;
	uint32_t len, kind;
	struct tring t;
	int i, rc;
	bool wake;

	tring_open(&t);
	for (i = 0; i < 200000 && !fails; i++) {
		uint64_t *pos = rnd64() & 1 ? &t.r->head : &t.r->tail;
		uint64_t base = pos == &t.r->head ? t.p.head : t.c.tail;

		switch (rnd64() % 8) {
		case 0:		/* scribble a position */
			switch (rnd64() % 5) {
			case 0:
				*pos = rnd64();
				break;
			case 1:
				*pos = base + rnd64() % (3 * SIZE) - SIZE;
				break;
			case 2:
				*pos = base + (rnd64() % 16) * 8 - 64;
				break;
			case 3:
				*pos = base + 1 + rnd64() % 7;
				break;
			default:
				*pos = 0;
				break;
			}
			break;
		case 1:		/* scribble records */
			rnd_bytes(t.r->data + rnd64() % (SIZE - 16), 16);
			break;
		case 2:		/* the peer behaves again, or starts over */
			if (rnd64() & 1) {
				t.r->head = t.p.head;
				t.r->tail = t.c.tail;
				break;
			}
			/* a lie the views took for the truth can keep them
			 * apart for good, as it would a real session */
			mpd_ring_init(t.r, SIZE);
			mpd_ring_attach(&t.p, t.r, SIZE);
			mpd_ring_attach(&t.c, t.r, SIZE);
			break;
		case 3:
		case 4:
			memcpy(snap, t.r->data, SIZE);
			len = (uint32_t)(rnd64() % (MAX_LEN + 8));
			rnd_bytes(buf, len);
			rc = rnd64() & 1 ?
			     mpd_ring_put(&t.p, MPD_CHAN_REC_UMAD, buf, len,
					  NULL, 0) :
			     mpd_ring_put_wake(&t.p, MPD_CHAN_REC_UMAD, buf, len,
					       NULL, 0, &wake);
			if (rc == 0)
				n_put++;
			else if (rc == -EBADMSG)
				n_bad++;
			else if (rc != -ENOSPC && rc != -EMSGSIZE)
				fails++;
			if (rc && memcmp(snap, t.r->data, SIZE))
				fails++;
			break;
		default:
			rc = mpd_ring_peek(&t.c, &d, &len, &kind);
			if (rc == 1) {
				n_peek++;
				if (!in_data(&t, d, len) ||
				    kind == MPD_CHAN_REC_PAD)
					fails++;
				if (rnd64() & 1)
					mpd_ring_consume(&t.c);
			} else if (rc == -EBADMSG) {
				n_bad++;
			} else if (rc != 0) {
				fails++;
			}
			break;
		}
		if (!tring_intact(&t))
			fails++;
		if (fails)
			tap_diag("step %d failed", i);
	}
	is_int(fails, 0, "200000 steps against a scribbling peer: only documented returns, failed puts write nothing, records inside data[], guard intact");
	ok(n_put > 1000 && n_peek > 1000 && n_bad > 1000,
	   "puts %llu, records read %llu, -EBADMSG %llu",
	   (unsigned long long)n_put, (unsigned long long)n_peek,
	   (unsigned long long)n_bad);
	tring_close(&t);
}

/* A session's ring drained as fast as it is filled: the records stay in
 * its first MPD_RING_RESTART bytes (plus one record), so the shared
 * memory it touches is what it uses, not the whole 8 MiB; and a big
 * record after small ones still fits. */
static void
test_restart(void)
{
	const uint32_t size = MPD_CHAN_RING_SIZE;
	struct mpd_chan_ring *r = calloc(1, sizeof(*r) + size);
	struct mpd_ring_view p, c;
	uint32_t len, kind, i, lens[4], maxlen = 0, bad = 0;
	uint64_t high = 0, restarts = 0, prev = 0;
	static uint8_t buf[2u << 20];
	const uint8_t *d;

	if (!r || mpd_ring_init(r, size) || mpd_ring_attach(&p, r, size) ||
	    mpd_ring_attach(&c, r, size)) {
		ok(0, "an 8 MiB ring");
		free(r);
		return;
	}
	for (i = 0; i < 200000; i++) {
		uint32_t n = 1 + (uint32_t)(rnd64() % 4), k;

		/* a few records (a MAD and its header each), then all read */
		for (k = 0; k < n; k++) {
			lens[k] = 64 + (uint32_t)(rnd64() % 257);
			fill(buf, lens[k], i * 4 + k);
			if (mpd_ring_put(&p, MPD_CHAN_REC_UMAD, buf, lens[k],
					 NULL, 0))
				bad++;
		}
		for (k = 0; k < n; k++) {
			if (mpd_ring_peek(&c, &d, &len, &kind) != 1 ||
			    len != lens[k] || !check(d, len, i * 4 + k)) {
				bad++;
				break;
			}
			if ((uint64_t)(d - r->data) + len > high)
				high = (uint64_t)(d - r->data) + len;
			restarts += d - r->data < (long)prev;
			prev = (uint64_t)(d - r->data);
			mpd_ring_consume(&c);
		}
		if (bad)
			break;
	}
	is_int(bad, 0, "800k records of 64-320 bytes through an 8 MiB ring, in order and intact");
	ok(high <= MPD_RING_RESTART + 2048,
	   "they stay in its first %u KiB (%llu bytes touched)",
	   MPD_RING_RESTART >> 10, (unsigned long long)high);
	ok(restarts > 50, "the ring started again at data[0] %llu times",
	   (unsigned long long)restarts);
	/* the largest record fits right after a restart */
	maxlen = size / 2 - REC;
	for (i = 0; i < 2; i++) {
		is_int(mpd_ring_put(&p, MPD_CHAN_REC_UMAD, buf, 2u << 20, NULL,
				    0), 0, "a 2 MiB record (%u)", i);
		is_int(mpd_ring_peek(&c, &d, &len, &kind), 1, "read back");
		is_int(len, 2u << 20, "whole");
		mpd_ring_consume(&c);
	}
	is_int(mpd_ring_put(&p, MPD_CHAN_REC_UMAD, buf, 64, NULL, 0), 0,
	       "a small one after");
	ok(maxlen >= 2u << 20, "the ring's largest record is at least 2 MiB");
	free(r);
}

/* What the producer counts as queued: the records' bytes past the
 * consumer's tail, never a pad, and most of all not a restart's, which
 * covers 7 MiB of an 8 MiB ring (a CM session was once cut off for
 * "4096 events untaken" with one queued, about 3700 events into its life). */
static void
test_queued(void)
{
	const uint32_t size = MPD_CHAN_RING_SIZE, len = 272;
	const uint32_t rec = mpd_ring_rec_size(len);
	struct mpd_chan_ring *r = calloc(1, sizeof(*r) + size);
	struct mpd_ring_view p, c;
	const uint8_t *d;
	uint32_t l, kind, i, bad = 0, restarts = 0;
	uint64_t before;
	static uint8_t buf[512];
	struct tring t;

	if (!r || mpd_ring_init(r, size) || mpd_ring_attach(&p, r, size) ||
	    mpd_ring_attach(&c, r, size)) {
		ok(0, "an 8 MiB ring");
		free(r);
		return;
	}
	is_int(mpd_ring_queued(&p), 0, "a new ring: nothing queued");
	/* one record at a time, each taken before the next: across many
	 * restarts, one record queued after every put */
	for (i = 0; i < 20000; i++) {
		before = p.head;
		if (mpd_ring_put(&p, MPD_CHAN_REC_CM, buf, len, NULL, 0)) {
			bad++;
			break;
		}
		restarts += p.head - before > rec;
		if (mpd_ring_queued(&p) != rec)
			bad++;
		if (mpd_ring_peek(&c, &d, &l, &kind) != 1)
			bad++;
		mpd_ring_consume(&c);
		if (mpd_ring_queued(&p) != 0)
			bad++;
	}
	is_int(bad, 0, "20000 records put and taken: one queued, then none");
	ok(restarts >= 5, "across %u restarts at data[0]", restarts);
	/* 3000 queued after a restart: their bytes, not the pad's (until
	 * the consumer skips the pad, the ring holds MPD_RING_RESTART bytes
	 * of records) */
	while (p.head % size < MPD_RING_RESTART) {
		mpd_ring_put(&p, MPD_CHAN_REC_CM, buf, len, NULL, 0);
		mpd_ring_peek(&c, &d, &l, &kind);
		mpd_ring_consume(&c);
	}
	for (i = 0; i < 3000; i++)
		bad += mpd_ring_put(&p, MPD_CHAN_REC_CM, buf, len, NULL, 0) != 0;
	is_int(bad, 0, "3000 records put");
	is_int(p.head % size, 3000ull * rec, "a restart before them");
	is_int(mpd_ring_queued(&p), 3000ull * rec, "3000 records queued");
	mpd_ring_peek(&c, &d, &l, &kind);
	mpd_ring_consume(&c);
	is_int(mpd_ring_queued(&p), 2999ull * rec,
	       "one taken: 2999, the tail read afresh");
	r->tail = 3;
	is_int(mpd_ring_queued(&p), 2999ull * rec,
	       "a garbage tail: the last valid one counts");
	free(r);

	/* a small ring's wrap pad is left out too */
	tring_open(&t);
	put_rec(&t, 1, 112, 0, "112 bytes");
	put_rec(&t, 2, 96, 0, "96 bytes");
	for (i = 0; i < 2; i++) {
		mpd_ring_peek(&t.c, &d, &l, &kind);
		mpd_ring_consume(&t.c);
	}
	put_rec(&t, 3, 40, 0, "a record after a 32-byte pad");
	is_int(mpd_ring_queued(&t.p), 48, "queued: the record's 48 bytes");
	tring_close(&t);
}

int
main(void)
{
	tap_seed();
	test_attach();
	test_pad();
	test_wrap();
	test_scribble_tail();
	test_scribble_head();
	test_scribble_fuzz();
	test_restart();
	test_queued();
	return tap_done();
}
