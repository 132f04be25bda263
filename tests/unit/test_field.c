/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the table-driven field codec: raw MSB-first bit access
 * against a naive reference, and a test-local layout with unaligned fields,
 * byte arrays and reserved gaps (golden bytes, round trips, every error).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/field.h"
#include "madpmd/wire.h"
#include "tap.h"

#define BUF_LEN	24

/* ---- naive reference: one byte per bit ----------------------------------- */

static void
to_bits(const uint8_t *buf, size_t len, uint8_t *bits)
{
	size_t i;

	for (i = 0; i < len * 8; i++)
		bits[i] = (uint8_t)((buf[i / 8] & (0x80 >> (i % 8))) != 0);
}

static void
from_bits(const uint8_t *bits, size_t len, uint8_t *buf)
{
	size_t i;

	memset(buf, 0, len);
	for (i = 0; i < len * 8; i++)
		if (bits[i])
			buf[i / 8] |= (uint8_t)(0x80 >> (i % 8));
}

static uint64_t
naive_get(const uint8_t *buf, size_t len, unsigned int off, unsigned int n)
{
	uint8_t bits[BUF_LEN * 8];
	uint64_t v = 0;
	unsigned int i;

	to_bits(buf, len, bits);
	for (i = 0; i < n; i++)
		if (bits[off + i])
			v |= 1ull << (n - 1 - i);
	return v;
}

static void
naive_set(uint8_t *buf, size_t len, unsigned int off, unsigned int n,
	  uint64_t v)
{
	uint8_t bits[BUF_LEN * 8];
	unsigned int i;

	to_bits(buf, len, bits);
	for (i = 0; i < n; i++)
		bits[off + i] = (uint8_t)((v >> (n - 1 - i)) & 1);
	from_bits(bits, len, buf);
}

static uint64_t
mask_of(unsigned int n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* Every offset 0..127 with every width that fits a 24-byte buffer; the
 * buffer is allocated to its exact size so that a sanitizer sees any
 * access past the last byte a field touches. */
static void
test_bits_exhaustive(void)
{
	size_t get_bad = 0, set_bad = 0, trunc_bad = 0, tried = 0;
	unsigned int off, n;

	for (off = 0; off < 128; off++) {
		for (n = 1; n <= 64; n++) {
			size_t len = (off + n + 7) / 8;
			uint8_t *b = malloc(len), *r = malloc(len);
			uint64_t v = rnd_bits(n), got;

			if (!b || !r)
				abort();
			tried++;
			rnd_bytes(b, len);
			memcpy(r, b, len);
			got = mpd_bits_get(b, off, n);
			if (got != naive_get(b, len, off, n) && !get_bad++)
				tap_diag("get off %u width %u: 0x%llx", off, n,
					 (unsigned long long)got);
			mpd_bits_set(b, off, n, v);
			naive_set(r, len, off, n, v);
			if ((memcmp(b, r, len) != 0 ||
			     mpd_bits_get(b, off, n) != v) && !set_bad++)
				tap_diag("set off %u width %u", off, n);
			/* bits above the width are not written anywhere */
			mpd_bits_set(b, off, n, v | ~mask_of(n));
			naive_set(r, len, off, n, v);
			if (n < 64 && memcmp(b, r, len) != 0 && !trunc_bad++)
				tap_diag("set off %u width %u with high bits",
					 off, n);
			free(b);
			free(r);
		}
	}
	is_int(get_bad, 0, "mpd_bits_get matches the naive reference at %zu "
	       "offset/width pairs (offsets 0..127, widths 1..64)", tried);
	is_int(set_bad, 0, "mpd_bits_set matches the naive reference and "
	       "leaves the neighbouring bits alone");
	is_int(trunc_bad, 0, "mpd_bits_set ignores value bits above the "
	       "width");
}

static void
test_bits_random(void)
{
	uint8_t b[BUF_LEN], r[BUF_LEN];
	size_t i, bad = 0;

	for (i = 0; i < 20000; i++) {
		unsigned int n = 1 + (unsigned int)(rnd64() % 64);
		unsigned int off = (unsigned int)(rnd64() %
						  (BUF_LEN * 8 - n + 1));
		uint64_t v = rnd_bits(n);

		rnd_bytes(b, sizeof(b));
		memcpy(r, b, sizeof(b));
		if (mpd_bits_get(b, off, n) != naive_get(b, sizeof(b), off, n))
			bad++;
		mpd_bits_set(b, off, n, v);
		naive_set(r, sizeof(r), off, n, v);
		if (memcmp(b, r, sizeof(b)) != 0)
			bad++;
	}
	is_int(bad, 0, "20000 random get/set against the naive reference");

	/* a few by hand */
	memset(b, 0, sizeof(b));
	mpd_bits_set(b, 0, 1, 1);
	is_int(b[0], 0x80, "bit 0 is the MSB of byte 0");
	mpd_bits_set(b, 15, 1, 1);
	is_int(b[1], 0x01, "bit 15 is the LSB of byte 1");
	mpd_bits_set(b, 20, 8, 0xab);
	ok(b[2] == 0x0a && b[3] == 0xb0, "8 bits at 20 straddle bytes 2..3");
	is_int(mpd_bits_get(b, 20, 8), 0xab, "... and read back");
	memset(b, 0xff, sizeof(b));
	mpd_bits_set(b, 4, 64, 0);
	ok(b[0] == 0xf0 && b[8] == 0x0f && b[1] == 0 && b[7] == 0,
	   "64 bits at offset 4 clear bytes 0..8 between the nibbles");
	mpd_bits_set(b, 64, 64, 0x0123456789abcdefull);
	is_int(mpd_get_be64(b + 8), 0x0123456789abcdefull,
	       "64 aligned bits are big-endian");
	is_int(mpd_bits_get(b, 64, 64), 0x0123456789abcdefull,
	       "... and read back");
	is_int(mpd_bits_get(b, 64, 16), 0x0123, "16 aligned bits");
	is_int(mpd_bits_get(b, 68, 16), 0x1234, "16 bits at a nibble");
}

/* ---- a test-local layout ------------------------------------------------ */

struct tl {
	uint8_t a;		/* 4 bits at 0 */
	uint8_t b;		/* 1 bit at 4 */
	uint16_t c;		/* 11 bits at 5, across bytes 0..1 */
	/* bits 16..18 reserved */
	uint16_t d;		/* 13 bits at 19 */
	/* byte 4 reserved */
	uint64_t e;		/* 64 bits at 40 (bytes 5..12) */
	/* bits 104..106 reserved */
	uint64_t f;		/* 37 bits at 107 (to the end of byte 17) */
	/* bytes 18..19 reserved */
	uint8_t gid[16];	/* bytes 20..35 */
	uint32_t g;		/* 32 bits at byte 36 */
	/* bytes 40..41 reserved */
	uint16_t h;		/* 16 bits at byte 42 */
	char name[6];		/* bytes 44..49 */
	uint8_t i;		/* 2 bits at 400 (byte 50, bits 7..6) */
	/* rest of byte 50 and byte 51 reserved */
};

#define TL_LEN	52
#define F(m, o, w) MPD_FIELD(struct tl, m, o, w)
static const struct mpd_field tl_fields[] = {
	F(a, 0, 4),
	F(b, 4, 1),
	F(c, 5, 11),
	F(d, 19, 13),
	F(e, 40, 64),
	F(f, 107, 37),
	MPD_FIELD_BYTES(struct tl, gid, 160),
	F(g, 288, 32),
	F(h, 336, 16),
	MPD_FIELD_BYTES(struct tl, name, 352),
	F(i, 400, 2),
};
#undef F
static const struct mpd_layout tl_layout =
	MPD_LAYOUT("TestLayout", TL_LEN, tl_fields);

static const uint8_t tl_golden[TL_LEN] = {
	0xad, 0x55,			/* a=0xA b=1 c=0x555 */
	0x1a, 0xbc,			/* rsv3, d=0x1ABC */
	0x00,				/* reserved */
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,	/* e */
	0x15, 0xde, 0xad, 0xbe, 0xef,	/* rsv3, f=0x15DEADBEEF */
	0x00, 0x00,			/* reserved */
	0xfe, 0x80, 0, 0, 0, 0, 0, 0,	/* gid */
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x00, 0x01,
	0xca, 0xfe, 0xba, 0xbe,		/* g */
	0x00, 0x00,			/* reserved */
	0x12, 0x34,			/* h */
	'a', 'b', 'c', 'd', 'e', 'f',	/* name */
	0xc0, 0x00,			/* i=3, reserved */
};

static void
tl_golden_obj(struct tl *t)
{
	memset(t, 0, sizeof(*t));
	t->a = 0xa;
	t->b = 1;
	t->c = 0x555;
	t->d = 0x1abc;
	t->e = 0x0123456789abcdefull;
	t->f = 0x15deadbeefull;
	memcpy(t->gid, tl_golden + 20, 16);
	t->g = 0xcafebabe;
	t->h = 0x1234;
	memcpy(t->name, "abcdef", 6);
	t->i = 3;
}

static bool
tl_equal(const struct tl *x, const struct tl *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c &&
	       x->d == y->d && x->e == y->e && x->f == y->f &&
	       memcmp(x->gid, y->gid, 16) == 0 && x->g == y->g &&
	       x->h == y->h && memcmp(x->name, y->name, 6) == 0 &&
	       x->i == y->i;
}

static void
tl_random(struct tl *t)
{
	memset(t, 0, sizeof(*t));
	t->a = (uint8_t)rnd_bits(4);
	t->b = (uint8_t)rnd_bits(1);
	t->c = (uint16_t)rnd_bits(11);
	t->d = (uint16_t)rnd_bits(13);
	t->e = rnd64();
	t->f = rnd_bits(37);
	rnd_bytes(t->gid, 16);
	t->g = (uint32_t)rnd64();
	t->h = (uint16_t)rnd64();
	rnd_bytes(t->name, 6);
	t->i = (uint8_t)rnd_bits(2);
}

static void
test_layout(void)
{
	uint8_t buf[TL_LEN + 8], *exact;
	struct tl t, u;
	size_t n, bad;
	uint16_t k;
	int rc;

	/* golden bytes; reserved bits written as zero over 0xEE */
	tl_golden_obj(&t);
	memset(buf, 0xee, sizeof(buf));
	is_int(mpd_layout_encode(&tl_layout, &t, buf, sizeof(buf)), TL_LEN,
	       "layout encode returns wire_len");
	ok(memcmp(buf, tl_golden, TL_LEN) == 0,
	   "layout golden bytes: unaligned fields, byte arrays, reserved "
	   "bits zero");
	for (n = 0; n < TL_LEN; n++)
		if (buf[n] != tl_golden[n])
			tap_diag("byte %zu: 0x%02x, want 0x%02x", n, buf[n],
				 tl_golden[n]);
	ok(buf[TL_LEN] == 0xee && buf[TL_LEN + 7] == 0xee,
	   "layout encode writes nothing past wire_len");
	exact = malloc(TL_LEN);
	if (!exact)
		abort();
	is_int(mpd_layout_encode(&tl_layout, &t, exact, TL_LEN), TL_LEN,
	       "layout encode into exactly wire_len bytes");
	ok(memcmp(exact, tl_golden, TL_LEN) == 0, "... same bytes");

	/* decode, and again with every reserved bit set */
	memset(&u, 0, sizeof(u));
	is_int(mpd_layout_decode(&tl_layout, tl_golden, TL_LEN, &u), TL_LEN,
	       "layout decode returns wire_len");
	ok(tl_equal(&t, &u), "layout decode of the golden bytes");
	memcpy(buf, tl_golden, TL_LEN);
	buf[2] |= 0xe0;
	buf[4] = 0xff;
	buf[13] |= 0xe0;
	buf[18] = buf[19] = 0xff;
	buf[40] = buf[41] = 0xff;
	buf[50] |= 0x3f;
	buf[51] = 0xff;
	memset(&u, 0x77, sizeof(u));
	is_int(mpd_layout_decode(&tl_layout, buf, TL_LEN, &u), TL_LEN,
	       "layout decode with every reserved bit set");
	ok(tl_equal(&t, &u), "... reserved bits do not leak into fields");
	memcpy(exact, buf, TL_LEN);
	memset(&u, 0, sizeof(u));
	is_int(mpd_layout_decode(&tl_layout, exact, TL_LEN, &u), TL_LEN,
	       "layout decode from exactly wire_len bytes");
	is_int(mpd_layout_encode(&tl_layout, &u, buf, sizeof(buf)), TL_LEN,
	       "re-encode of the decoded fields");
	ok(memcmp(buf, tl_golden, TL_LEN) == 0,
	   "... clears the reserved bits again");
	free(exact);

	/* random round trips */
	bad = 0;
	for (n = 0; n < 2000; n++) {
		tl_random(&t);
		memset(&u, 0, sizeof(u));
		if (mpd_layout_encode(&tl_layout, &t, buf, TL_LEN) != TL_LEN ||
		    mpd_layout_decode(&tl_layout, buf, TL_LEN, &u) != TL_LEN ||
		    !tl_equal(&t, &u))
			bad++;
		/* the bits of f and d against the raw accessor */
		if (mpd_bits_get(buf, 107, 37) != t.f ||
		    mpd_bits_get(buf, 19, 13) != t.d)
			bad++;
	}
	is_int(bad, 0, "2000 random layout round trips");

	/* MPD_ERANGE for each integer field narrower than its member */
	bad = 0;
	for (k = 0; k < tl_layout.nfields; k++) {
		const struct mpd_field *f = &tl_fields[k];

		if (f->kind != MPD_FK_UINT || f->bits >= 8 * f->mem_size)
			continue;
		tl_golden_obj(&t);
		mpd_field_store(f, &t, 1ull << f->bits);
		rc = mpd_layout_encode(&tl_layout, &t, buf, sizeof(buf));
		if (rc != MPD_ERANGE) {
			bad++;
			tap_diag("%s = 1 << %u: %d", f->name, f->bits, rc);
		}
		tl_golden_obj(&t);
		mpd_field_store(f, &t, mask_of(f->bits));
		if (mpd_layout_encode(&tl_layout, &t, buf, sizeof(buf)) !=
		    TL_LEN || mpd_bits_get(buf, f->bit_off, f->bits) !=
		    mask_of(f->bits)) {
			bad++;
			tap_diag("%s all ones rejected", f->name);
		}
	}
	is_int(bad, 0, "each field one past its width is MPD_ERANGE, all "
	       "ones fits");
	tl_golden_obj(&t);
	t.e = ~0ull;
	is_int(mpd_layout_encode(&tl_layout, &t, buf, sizeof(buf)), TL_LEN,
	       "a 64-bit field takes any value");

	/* MPD_ENOSPC, nothing written */
	bad = 0;
	tl_golden_obj(&t);
	for (n = 0; n < TL_LEN; n++) {
		size_t j;

		memset(buf, 0xee, sizeof(buf));
		if (mpd_layout_encode(&tl_layout, &t, buf, n) != MPD_ENOSPC)
			bad++;
		for (j = 0; j < sizeof(buf); j++)
			if (buf[j] != 0xee)
				bad++;
	}
	is_int(bad, 0, "encode into 0..51 bytes is MPD_ENOSPC and writes "
	       "nothing");

	/* MPD_ETRUNC */
	bad = 0;
	for (n = 0; n < TL_LEN; n++) {
		uint8_t *d = malloc(n ? n : 1);

		if (!d)
			abort();
		memcpy(d, tl_golden, n);
		if (mpd_layout_decode(&tl_layout, d, n, &u) != MPD_ETRUNC)
			bad++;
		free(d);
	}
	is_int(bad, 0, "decode of 0..51 bytes is MPD_ETRUNC");
}

static void
test_find_and_members(void)
{
	struct tl t;
	uint16_t k;
	size_t bad = 0;
	const struct mpd_field *f;

	for (k = 0; k < tl_layout.nfields; k++)
		if (mpd_layout_find(&tl_layout, tl_fields[k].name) !=
		    &tl_fields[k])
			bad++;
	is_int(bad, 0, "mpd_layout_find finds each of the %u fields",
	       tl_layout.nfields);
	ok(mpd_layout_find(&tl_layout, "nope") == NULL,
	   "mpd_layout_find of an unknown name is NULL");
	ok(mpd_layout_find(&tl_layout, "") == NULL,
	   "mpd_layout_find of the empty name is NULL");
	ok(mpd_layout_find(&tl_layout, "gi") == NULL &&
	   mpd_layout_find(&tl_layout, "gidx") == NULL,
	   "mpd_layout_find does not match prefixes");

	f = mpd_layout_find(&tl_layout, "f");
	ok(f && f->bit_off == 107 && f->bits == 37 && f->mem_size == 8 &&
	   f->kind == MPD_FK_UINT, "field f as declared");
	f = mpd_layout_find(&tl_layout, "name");
	ok(f && f->bit_off == 352 && f->bits == 48 && f->mem_size == 6 &&
	   f->kind == MPD_FK_BYTES, "byte array name as declared");

	/* load/store of 1, 2, 4 and 8-byte members */
	memset(&t, 0, sizeof(t));
	mpd_field_store(mpd_layout_find(&tl_layout, "a"), &t, 0x1ff);
	is_int(t.a, 0xff, "store into a u8 member truncates to 8 bits");
	mpd_field_store(mpd_layout_find(&tl_layout, "c"), &t, 0x12345);
	is_int(t.c, 0x2345, "store into a u16 member");
	mpd_field_store(mpd_layout_find(&tl_layout, "g"), &t, 0x123456789ull);
	is_int(t.g, 0x23456789, "store into a u32 member");
	mpd_field_store(mpd_layout_find(&tl_layout, "e"), &t, ~0ull);
	ok(t.e == ~0ull, "store into a u64 member");
	is_int(mpd_field_load(mpd_layout_find(&tl_layout, "a"), &t), 0xff,
	       "load a u8 member");
	is_int(mpd_field_load(mpd_layout_find(&tl_layout, "c"), &t), 0x2345,
	       "load a u16 member");
	is_int(mpd_field_load(mpd_layout_find(&tl_layout, "g"), &t),
	       0x23456789, "load a u32 member");
	ok(mpd_field_load(mpd_layout_find(&tl_layout, "e"), &t) == ~0ull,
	   "load a u64 member");
	ok(t.b == 0 && t.d == 0 && t.h == 0 && t.i == 0,
	   "stores touch only their member");
}

/* Decode writes only the members its layout names. */
static void
test_decode_partial(void)
{
	static const struct mpd_field some[] = {
		MPD_FIELD(struct tl, a, 0, 4),
		MPD_FIELD(struct tl, g, 288, 32),
	};
	static const struct mpd_layout part =
		MPD_LAYOUT("Partial", TL_LEN, some);
	struct tl t, u;

	tl_random(&t);
	u = t;
	is_int(mpd_layout_decode(&part, tl_golden, TL_LEN, &t), TL_LEN,
	       "decode with a layout naming two members");
	ok(t.a == 0xa && t.g == 0xcafebabe, "... fills those two");
	u.a = t.a;
	u.g = t.g;
	ok(tl_equal(&t, &u), "... and leaves the other members as they were");
}

int
main(void)
{
	tap_seed();
	test_bits_exhaustive();
	test_bits_random();
	test_layout();
	test_find_and_members();
	test_decode_partial();
	return tap_done();
}
