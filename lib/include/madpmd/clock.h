/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one clock of the daemon and the libraries: CLOCK_MONOTONIC (vDSO,
 * no system call), in ns or ms. Every timer of a layer is a time from
 * here, so that times taken in two places compare.
 */
#ifndef MADPMD_CLOCK_H
#define MADPMD_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
mpd_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t
mpd_mono_us(void)
{
	return mpd_mono_ns() / 1000u;
}

static inline uint64_t
mpd_mono_ms(void)
{
	return mpd_mono_ns() / 1000000u;
}

#endif
