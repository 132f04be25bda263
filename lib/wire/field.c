/* SPDX-License-Identifier: BSD-3-Clause */
/* Table-driven encode/decode of IBA fixed layouts. */
#include <string.h>

#include "madpmd/field.h"
#include "madpmd/wire.h"

uint64_t
mpd_bits_get(const uint8_t *buf, unsigned int bit_off, unsigned int bits)
{
	uint64_t v = 0;
	unsigned int i;

	/* Whole aligned bytes take the fast path; IBA fields mostly are. */
	if ((bit_off & 7) == 0 && (bits & 7) == 0) {
		for (i = 0; i < bits / 8; i++)
			v = v << 8 | buf[bit_off / 8 + i];
		return v;
	}
	/* a field inside 8 bytes: those bytes, shifted and masked */
	if (bits < 64 && (bit_off % 8 + bits + 7) / 8 <= 8) {
		unsigned int n = (bit_off % 8 + bits + 7) / 8;

		for (i = 0; i < n; i++)
			v = v << 8 | buf[bit_off / 8 + i];
		return v >> (n * 8 - bit_off % 8 - bits) &
		       ((1ull << bits) - 1);
	}
	for (i = 0; i < bits; i++) {
		unsigned int b = bit_off + i;

		v = v << 1 | ((buf[b / 8] >> (7 - b % 8)) & 1u);
	}
	return v;
}

void
mpd_bits_set(uint8_t *buf, unsigned int bit_off, unsigned int bits,
	     uint64_t val)
{
	unsigned int i;

	if ((bit_off & 7) == 0 && (bits & 7) == 0) {
		for (i = bits / 8; i > 0; i--) {
			buf[bit_off / 8 + i - 1] = (uint8_t)val;
			val >>= 8;
		}
		return;
	}
	/* a field inside 8 bytes: read them, change the field, write */
	if (bits < 64 && (bit_off % 8 + bits + 7) / 8 <= 8) {
		unsigned int n = (bit_off % 8 + bits + 7) / 8;
		unsigned int shift = n * 8 - bit_off % 8 - bits;
		uint64_t mask = ((1ull << bits) - 1) << shift, w = 0;

		for (i = 0; i < n; i++)
			w = w << 8 | buf[bit_off / 8 + i];
		w = (w & ~mask) | (val << shift & mask);
		for (i = n; i > 0; i--) {
			buf[bit_off / 8 + i - 1] = (uint8_t)w;
			w >>= 8;
		}
		return;
	}
	for (i = bits; i > 0; i--) {
		unsigned int b = bit_off + i - 1;
		uint8_t mask = (uint8_t)(1u << (7 - b % 8));

		if (val & 1u)
			buf[b / 8] |= mask;
		else
			buf[b / 8] &= (uint8_t)~mask;
		val >>= 1;
	}
}

uint64_t
mpd_field_load(const struct mpd_field *f, const void *obj)
{
	const uint8_t *m = (const uint8_t *)obj + f->mem_off;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (f->mem_size) {
	case 1:
		memcpy(&u8, m, 1);
		return u8;
	case 2:
		memcpy(&u16, m, 2);
		return u16;
	case 4:
		memcpy(&u32, m, 4);
		return u32;
	default:
		memcpy(&u64, m, 8);
		return u64;
	}
}

void
mpd_field_store(const struct mpd_field *f, void *obj, uint64_t val)
{
	uint8_t *m = (uint8_t *)obj + f->mem_off;
	uint8_t u8 = (uint8_t)val;
	uint16_t u16 = (uint16_t)val;
	uint32_t u32 = (uint32_t)val;

	switch (f->mem_size) {
	case 1:
		memcpy(m, &u8, 1);
		break;
	case 2:
		memcpy(m, &u16, 2);
		break;
	case 4:
		memcpy(m, &u32, 4);
		break;
	default:
		memcpy(m, &val, 8);
		break;
	}
}

int
mpd_layout_encode(const struct mpd_layout *l, const void *obj, uint8_t *buf,
		  size_t cap)
{
	uint16_t i;

	if (cap < l->wire_len)
		return MPD_ENOSPC;
	memset(buf, 0, l->wire_len);
	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];
		uint64_t v;

		if (f->kind == MPD_FK_BYTES) {
			memcpy(buf + f->bit_off / 8,
			       (const uint8_t *)obj + f->mem_off, f->bits / 8);
			continue;
		}
		v = mpd_field_load(f, obj);
		if (f->bits < 64 && (v >> f->bits) != 0)
			return MPD_ERANGE;
		mpd_bits_set(buf, f->bit_off, f->bits, v);
	}
	return l->wire_len;
}

int
mpd_layout_decode(const struct mpd_layout *l, const uint8_t *buf, size_t len,
		  void *obj)
{
	uint16_t i;

	if (len < l->wire_len)
		return MPD_ETRUNC;
	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];

		if (f->kind == MPD_FK_BYTES)
			memcpy((uint8_t *)obj + f->mem_off,
			       buf + f->bit_off / 8, f->bits / 8);
		else
			mpd_field_store(f, obj,
					mpd_bits_get(buf, f->bit_off, f->bits));
	}
	return l->wire_len;
}

const struct mpd_field *
mpd_layout_find(const struct mpd_layout *l, const char *name)
{
	uint16_t i;

	for (i = 0; i < l->nfields; i++)
		if (strcmp(l->fields[i].name, name) == 0)
			return &l->fields[i];
	return NULL;
}
