/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <string.h>

#include "layout_check.h"
#include "madpmd/mad.h"
#include "madpmd/wire.h"
#include "tap.h"

#define MEM_MAX	1024	/* largest host struct the checks take */

static int
bit_is_set(const uint8_t *b, unsigned int bit)
{
	return (b[bit / 8] >> (7 - bit % 8)) & 1;
}

static void
bit_set(uint8_t *b, unsigned int bit)
{
	b[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
}

static bool
bad_geometry(const struct mpd_layout *l, const struct mpd_field *f,
	     size_t size)
{
	return f->bits == 0 || f->bit_off + f->bits > 8u * l->wire_len ||
	       f->mem_off + f->mem_size > size ||
	       (f->kind == MPD_FK_UINT &&
		(f->bits > 8u * f->mem_size || f->bits > 64 ||
		 (f->mem_size != 1 && f->mem_size != 2 &&
		  f->mem_size != 4 && f->mem_size != 8))) ||
	       (f->kind == MPD_FK_BYTES &&
		(f->bit_off % 8 || f->bits != 8u * f->mem_size));
}

void
lc_check_layout(const struct mpd_layout *l, size_t size)
{
	uint8_t wire[MPD_MAD_LEN] = { 0 }, mem[MEM_MAX] = { 0 };
	unsigned int bits = 0;
	uint16_t i;
	int bad = 0;

	if (!ok(l->wire_len <= sizeof(wire) && size <= sizeof(mem) &&
		l->nfields > 0, "%s: sizes are sane", l->name))
		return;
	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];
		unsigned int b, m;

		if (bad_geometry(l, f, size)) {
			tap_diag("%s.%s: bad geometry", l->name, f->name);
			bad++;
			continue;
		}
		for (b = f->bit_off; b < f->bit_off + f->bits; b++) {
			if (bit_is_set(wire, b)) {
				tap_diag("%s.%s: wire bit %u used twice",
					 l->name, f->name, b);
				bad++;
				break;
			}
			bit_set(wire, b);
		}
		for (m = f->mem_off; m < f->mem_off + f->mem_size; m++) {
			if (mem[m]++) {
				tap_diag("%s.%s: member byte %u used twice",
					 l->name, f->name, m);
				bad++;
				break;
			}
		}
		bits += f->bits;
		if (f->name == NULL || mpd_layout_find(l, f->name) != f) {
			tap_diag("%s: field %u name not unique", l->name, i);
			bad++;
		}
	}
	ok(bad == 0, "%s: %u fields, %u of %u bits, no overlap", l->name,
	   l->nfields, bits, 8u * l->wire_len);
}

void
lc_random_fill(const struct mpd_layout *l, void *obj)
{
	uint16_t i;

	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];

		if (f->kind == MPD_FK_UINT)
			mpd_field_store(f, obj, rnd_bits(f->bits));
		else
			rnd_bytes((uint8_t *)obj + f->mem_off, f->mem_size);
	}
}

void
lc_max_fill(const struct mpd_layout *l, void *obj)
{
	uint16_t i;

	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];

		if (f->kind == MPD_FK_UINT)
			mpd_field_store(f, obj, f->bits >= 64 ? ~0ull :
					(1ull << f->bits) - 1);
		else
			memset((uint8_t *)obj + f->mem_off, 0xff, f->mem_size);
	}
}

static unsigned int
popcount(const uint8_t *b, size_t n)
{
	unsigned int c = 0;
	size_t i;

	for (i = 0; i < n; i++)
		c += (unsigned int)__builtin_popcount(b[i]);
	return c;
}

void
lc_check_codec(const struct mpd_layout *l, size_t size, unsigned int iters)
{
	uint8_t a[MEM_MAX] __attribute__((aligned(8)));
	uint8_t b[MEM_MAX] __attribute__((aligned(8)));
	uint8_t wire[MPD_MAD_LEN], wire2[MPD_MAD_LEN], mask[MPD_MAD_LEN];
	unsigned int bits = 0, it;
	int bad = 0, n;
	uint16_t i;
	size_t j;

	/* the bits some field covers: all-ones fields set exactly these */
	memset(a, 0, sizeof(a));
	lc_max_fill(l, a);
	for (i = 0; i < l->nfields; i++)
		bits += l->fields[i].bits;
	n = mpd_layout_encode(l, a, mask, sizeof(mask));
	is_int(n == l->wire_len ? popcount(mask, l->wire_len) : 0, bits,
	       "%s: all-ones fields leave the reserved bits zero", l->name);

	for (it = 0; it < iters; it++) {
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		lc_random_fill(l, a);
		n = mpd_layout_encode(l, a, wire, sizeof(wire));
		if (n != l->wire_len ||
		    mpd_layout_decode(l, wire, l->wire_len, b) != l->wire_len ||
		    memcmp(a, b, size) != 0 ||
		    mpd_layout_encode(l, b, wire2, l->wire_len) != l->wire_len ||
		    memcmp(wire, wire2, l->wire_len) != 0)
			bad++;
		/* random wire: decode then encode keeps every field bit and
		 * clears every reserved one */
		rnd_bytes(wire, l->wire_len);
		memset(a, 0, sizeof(a));
		mpd_layout_decode(l, wire, l->wire_len, a);
		if (mpd_layout_encode(l, a, wire2, sizeof(wire2)) != l->wire_len)
			bad++;
		for (j = 0; j < l->wire_len; j++)
			if (wire2[j] != (wire[j] & mask[j]))
				bad++;
	}
	ok(bad == 0, "%s: %u random round trips, reserved bits zero", l->name,
	   iters);

	/* a value one bit too wide, field by field */
	bad = 0;
	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];

		if (f->kind != MPD_FK_UINT || f->bits >= 8u * f->mem_size)
			continue;
		memset(a, 0, sizeof(a));
		mpd_field_store(f, a, 1ull << f->bits);
		n = mpd_layout_encode(l, a, wire, sizeof(wire));
		if (n != MPD_ERANGE) {
			tap_diag("%s.%s = 1 << %u: %s", l->name, f->name,
				 f->bits, mpd_strerror(n));
			bad++;
		}
		mpd_field_store(f, a, (1ull << f->bits) - 1);
		if (mpd_layout_encode(l, a, wire, sizeof(wire)) != l->wire_len) {
			tap_diag("%s.%s: maximum refused", l->name, f->name);
			bad++;
		}
	}
	ok(bad == 0, "%s: MPD_ERANGE for every value wider than its field",
	   l->name);

	memset(a, 0, sizeof(a));
	is_int(mpd_layout_encode(l, a, wire, l->wire_len - 1u), MPD_ENOSPC,
	       "%s: encode into %u bytes is MPD_ENOSPC", l->name,
	       l->wire_len - 1u);
	is_int(mpd_layout_encode(l, a, wire, 0), MPD_ENOSPC,
	       "%s: encode into 0 bytes is MPD_ENOSPC", l->name);
	is_int(mpd_layout_encode(l, a, wire, l->wire_len), l->wire_len,
	       "%s: encode into exactly %u bytes", l->name, l->wire_len);
	is_int(mpd_layout_decode(l, wire, l->wire_len - 1u, b), MPD_ETRUNC,
	       "%s: decode of %u bytes is MPD_ETRUNC", l->name,
	       l->wire_len - 1u);
	is_int(mpd_layout_decode(l, wire, 0, b), MPD_ETRUNC,
	       "%s: decode of 0 bytes is MPD_ETRUNC", l->name);
}

void
lc_golden(const char *what, const struct mpd_layout *l, const void *obj,
	  const uint8_t *want, size_t len)
{
	uint8_t wire[MPD_MAD_LEN];
	int n = mpd_layout_encode(l, obj, wire, sizeof(wire));
	size_t i;

	if (!what)
		what = l->name;
	is_int(n, (long long)len, "%s: golden value encodes to %zu bytes",
	       what, len);
	if (n != (int)len)
		return;
	for (i = 0; i < len; i++)
		if (wire[i] != want[i])
			tap_diag("%s: byte %zu is 0x%02x, IBA says 0x%02x",
				 what, i, wire[i], want[i]);
	ok(memcmp(wire, want, len) == 0, "%s: golden bytes", what);
}

void
lc_put_be(uint8_t *p, uint64_t v, int n)
{
	while (n-- > 0) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}
