/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The individual CRC implementations behind mpd_crc32() and
 * mpd_crc16_vcrc(), for the unit test and the benchmark; not installed.
 * The public functions pick one of them at first use.
 */
#ifndef MADPMD_CRC_PRIV_H
#define MADPMD_CRC_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "madpmd/wire.h"

/* Set to 1 (any value but "0" or "") to keep the table paths even on a CPU
 * with PCLMULQDQ. Read once, at the first CRC call of the process. */
#define MPD_CRC_ENV_NO_PCLMUL	"MADPMD_CRC_NO_PCLMUL"

/*
 * Folding constants for one bit-reflected CRC whose polynomial, P', has
 * degree 32 (CRC-32: P itself; CRC-16: P * x^16). With
 * g(k) = reflect32(x^(k-32) mod P') << 1, a 33-bit value congruent to x^k
 * in the fold routine's bit order:
 *   by128[m - 1] = { g(128m + 64), g(128m) }	a 128-bit lane m lanes ahead
 *   red64 = g(96)				96 -> 64 bits
 *   mu = reflect33(floor(x^64 / P'))		Barrett quotient
 *   poly = reflect33(P')
 * crc.c explains where the shifts come from; test_crc.c recomputes them.
 */
#define MPD_CRC_FOLD_MAX	6

struct mpd_crc_fold_k {
	uint64_t by128[MPD_CRC_FOLD_MAX][2];
	uint64_t red64;
	uint64_t mu;
	uint64_t poly;
};

extern const struct mpd_crc_fold_k mpd_crc32_fold_k;
extern const struct mpd_crc_fold_k mpd_crc16_fold_k;

/* The CPU can run the PCLMULQDQ paths (pclmul and sse4.1). */
bool mpd_crc_cpu_has_clmul(void);
/* mpd_crc32() and mpd_crc16_vcrc() use the PCLMULQDQ paths: the CPU has
 * them and MADPMD_CRC_NO_PCLMUL did not turn them off. */
bool mpd_crc_clmul_enabled(void);

/* mpd_crc32() and mpd_crc16_vcrc() keep inputs shorter than this on the
 * tables, even with PCLMULQDQ. bench_crc measured the break-even at 32..40
 * bytes (EPYC, PCLMULQDQ one per 2 cycles); 48 leaves a margin for CPUs
 * with slower PCLMULQDQ and still folds the ICRC's masked headers (48 bytes
 * for RoCEv2/IPv4, 60 for IB with GRH). */
#define MPD_CRC_CLMUL_MIN	48

/* CRC-32, same contract as mpd_crc32(). */
uint32_t mpd_crc32_sb8(uint32_t crc, const void *buf, size_t len);
/* Only when mpd_crc_cpu_has_clmul(): PCLMULQDQ over the whole 16-byte
 * blocks of any input from 16 bytes on, tables for the rest. */
uint32_t mpd_crc32_clmul(uint32_t crc, const void *buf, size_t len);

/* VCRC, same contract as mpd_crc16_vcrc(). */
uint16_t mpd_crc16_bytewise(const void *buf, size_t len);
uint16_t mpd_crc16_sb8(const void *buf, size_t len);
/* Only when mpd_crc_cpu_has_clmul(): PCLMULQDQ over the whole 16-byte
 * blocks of any input from 16 bytes on, tables for the rest. */
uint16_t mpd_crc16_clmul(const void *buf, size_t len);

#endif
