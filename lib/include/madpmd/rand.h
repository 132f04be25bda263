/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small generator for what needs spreading, not secrecy (CM
 * transaction IDs, PSNs, test inputs): Marsaglia's xorshift64 (13, 7,
 * 17). The state must not be 0.
 */
#ifndef MADPMD_RAND_H
#define MADPMD_RAND_H

#include <stdint.h>

static inline uint64_t
mpd_xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif
