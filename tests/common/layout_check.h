/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks every codec layout's unit test runs: geometry, random round trips,
 * reserved bits, the error paths, and golden bytes. */
#ifndef MADPMD_TEST_LAYOUT_CHECK_H
#define MADPMD_TEST_LAYOUT_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "madpmd/field.h"
#include "tap.h"

/* Fields inside wire_len and the host struct (size bytes), widths their
 * members hold, byte arrays on whole bytes, unique names, and no wire bit
 * or member byte used twice. */
void lc_check_layout(const struct mpd_layout *l, size_t size);
/* Every member random within its width. */
void lc_random_fill(const struct mpd_layout *l, void *obj);
/* Every member at its maximum. */
void lc_max_fill(const struct mpd_layout *l, void *obj);
/*
 * iters random round trips (struct -> wire -> struct -> wire, and random
 * wire -> struct -> wire keeping every field bit and clearing every
 * reserved one); all-ones fields set exactly the field bits; MPD_ERANGE
 * for each value one bit too wide, the maximum accepted; MPD_ENOSPC and
 * MPD_ETRUNC on short buffers; encode into exactly wire_len.
 */
void lc_check_codec(const struct mpd_layout *l, size_t size,
		    unsigned int iters);
/* obj encodes to exactly the len bytes of want (what names it; NULL: the
 * layout's name); differing bytes are listed. */
void lc_golden(const char *what, const struct mpd_layout *l, const void *obj,
	       const uint8_t *want, size_t len);
/* obj encodes to the golden bytes want, and want decodes back to obj
 * (a struct of the given type). */
#define LC_GOLDEN(layout, type, objp, want) do {			\
	type back_;							\
									\
	lc_golden(NULL, &(layout), (objp), (want), sizeof(want));	\
	memset(&back_, 0, sizeof(back_));				\
	ok(mpd_layout_decode(&(layout), (want), sizeof(want), &back_)	\
	   == (int)sizeof(want) &&					\
	   memcmp(&back_, (objp), sizeof(type)) == 0,			\
	   "%s: golden bytes decode to the golden value",		\
	   (layout).name);						\
} while (0)
/* v as n big-endian bytes at p (golden bytes of any width). */
void lc_put_be(uint8_t *p, uint64_t v, int n);

#endif
