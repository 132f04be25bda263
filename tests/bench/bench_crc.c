/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Micro-benchmark of the link CRCs: the table CRC-32 (slicing-by-8) against
 * PCLMULQDQ folding, and the CRC-16 VCRC before (byte at a time) and after
 * (slicing-by-8, PCLMULQDQ folding), on 310-byte packets and on 64 KiB.
 *
 * usage: bench_crc [packet bytes]	(default 310)
 *
 * Then, for 16..128 bytes, where folding starts to beat the tables (this
 * sets MPD_CRC_CLMUL_MIN).
 *
 * Every figure is the best of REPS runs; each run walks a ring of NPKT
 * packets at odd offsets, as frames sit in mbufs, and keeps every result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "madpmd/clock.h"
#include "madpmd/wire.h"
#include "crc_priv.h"

#define NPKT		256
#define REPS		7
#define RUN_BYTES	(64u << 20)	/* bytes hashed per run */
#define BIG_LEN		(64 * 1024)
#define HDR_LEN		60	/* masked ICRC header: LRH + GRH + BTH */

typedef uint32_t (*crc32_fn)(uint32_t, const void *, size_t);
typedef uint16_t (*crc16_fn)(const void *, size_t);

struct result {
	double ns;	/* per call */
	double mbs;	/* 10^6 bytes per second */
};

static uint8_t *ring;
static size_t stride;
static volatile uint32_t sink;

static unsigned long
calls_per_run(size_t len)
{
	unsigned long n = RUN_BYTES / (len ? len : 1);

	return n < 100000 ? 100000 : n;
}

static struct result
time32(crc32_fn fn, size_t len)
{
	unsigned long n = calls_per_run(len), i;
	struct result r = { 1e300, 0 };
	int rep;

	for (rep = 0; rep < REPS; rep++) {
		uint32_t acc = 0;
		double t0 = (double)mpd_mono_ns(), dt;

		for (i = 0; i < n; i++)
			acc ^= fn(0, ring + (i % NPKT) * stride, len);
		dt = (double)mpd_mono_ns() - t0;
		sink ^= acc;
		if (dt / (double)n < r.ns)
			r.ns = dt / (double)n;
	}
	r.mbs = (double)len / r.ns * 1e3;
	return r;
}

static struct result
time16(crc16_fn fn, size_t len)
{
	unsigned long n = calls_per_run(len), i;
	struct result r = { 1e300, 0 };
	int rep;

	for (rep = 0; rep < REPS; rep++) {
		uint32_t acc = 0;
		double t0 = (double)mpd_mono_ns(), dt;

		for (i = 0; i < n; i++)
			acc ^= fn(ring + (i % NPKT) * stride, len);
		dt = (double)mpd_mono_ns() - t0;
		sink ^= acc;
		if (dt / (double)n < r.ns)
			r.ns = dt / (double)n;
	}
	r.mbs = (double)len / r.ns * 1e3;
	return r;
}

/* one large buffer, in MB/s */
static double
big32(crc32_fn fn, const uint8_t *big)
{
	double best = 1e300;
	int rep, i;

	for (rep = 0; rep < REPS; rep++) {
		double t0 = (double)mpd_mono_ns(), dt;

		for (i = 0; i < 64; i++)
			sink ^= fn(0, big, BIG_LEN);
		dt = ((double)mpd_mono_ns() - t0) / 64;
		if (dt < best)
			best = dt;
	}
	return BIG_LEN / best * 1e3;
}

static double
big16(crc16_fn fn, const uint8_t *big)
{
	double best = 1e300;
	int rep, i;

	for (rep = 0; rep < REPS; rep++) {
		double t0 = (double)mpd_mono_ns(), dt;

		for (i = 0; i < 64; i++)
			sink ^= fn(big, BIG_LEN);
		dt = ((double)mpd_mono_ns() - t0) / 64;
		if (dt < best)
			best = dt;
	}
	return BIG_LEN / best * 1e3;
}

static void
row(const char *name, struct result r, double big, const struct result *base,
    double base_big)
{
	printf("  %-24s %9.1f %10.0f %12.0f", name, r.ns, r.mbs, big);
	if (base)
		printf("   x%5.2f   x%6.2f", base->ns / r.ns, big / base_big);
	printf("\n");
}

int
main(int argc, char **argv)
{
	size_t len = argc > 1 ? strtoul(argv[1], NULL, 0) : 310;
	struct result c32_old, c32_new, c32_hdr_old, c32_hdr_new, c32_rest_old,
		      c32_rest_new, c16_old, c16_sb8, c16_new;
	double b32_old, b32_new, b16_old, b16_sb8, b16_new = 0;
	double pkt_old, pkt_new;
	bool clmul = mpd_crc_cpu_has_clmul();
	uint8_t *big;
	size_t i;

	if (len < HDR_LEN || len > 9000) {
		fprintf(stderr, "usage: %s [packet bytes, %d..9000]\n",
			argv[0], HDR_LEN);
		return 2;
	}
	stride = len + 13;	/* packets at every alignment */
	ring = malloc(stride * NPKT);
	big = malloc(BIG_LEN);
	if (!ring || !big)
		return 1;
	srand(1);
	for (i = 0; i < stride * NPKT; i++)
		ring[i] = (uint8_t)rand();
	for (i = 0; i < BIG_LEN; i++)
		big[i] = (uint8_t)rand();

	printf("madpmd CRC micro-benchmark: %zu-byte packets, ring of %d, "
	       "best of %d\n", len, NPKT, REPS);
	printf("CPU PCLMULQDQ: %s; %s=%s; mpd_crc32()/mpd_crc16_vcrc() "
	       "use %s\n\n", clmul ? "yes" : "no", MPD_CRC_ENV_NO_PCLMUL,
	       getenv(MPD_CRC_ENV_NO_PCLMUL) ? getenv(MPD_CRC_ENV_NO_PCLMUL)
					    : "(unset)",
	       mpd_crc_clmul_enabled() ? "PCLMULQDQ" : "tables");
	if (!clmul)
		printf("(no PCLMULQDQ: the 'pclmul' rows run the tables)\n\n");

	c32_old = time32(mpd_crc32_sb8, len);
	c32_new = time32(mpd_crc32_clmul, len);
	b32_old = big32(mpd_crc32_sb8, big);
	b32_new = big32(mpd_crc32_clmul, big);
	c16_old = time16(mpd_crc16_bytewise, len);
	c16_sb8 = time16(mpd_crc16_sb8, len);
	c16_new = time16(mpd_crc16_clmul, len);
	b16_old = big16(mpd_crc16_bytewise, big);
	b16_sb8 = big16(mpd_crc16_sb8, big);
	b16_new = big16(mpd_crc16_clmul, big);
	/* the ICRC is two calls: masked header copy, then the rest */
	c32_hdr_old = time32(mpd_crc32_sb8, HDR_LEN);
	c32_hdr_new = time32(mpd_crc32_clmul, HDR_LEN);
	c32_rest_old = time32(mpd_crc32_sb8, len - HDR_LEN);
	c32_rest_new = time32(mpd_crc32_clmul, len - HDR_LEN);

	printf("  %-24s %9s %10s %12s   %6s   %7s\n", "", "ns/pkt",
	       "MB/s", "64KiB MB/s", "speed", "64KiB");
	row("CRC-32 slicing-by-8 (old)", c32_old, b32_old, NULL, 0);
	row("CRC-32 pclmul", c32_new, b32_new, &c32_old, b32_old);
	row("CRC-16 bytewise (old)", c16_old, b16_old, NULL, 0);
	row("CRC-16 slicing-by-8", c16_sb8, b16_sb8, &c16_old, b16_old);
	row("CRC-16 pclmul", c16_new, b16_new, &c16_old, b16_old);

	/* per packet: ICRC and VCRC checked on receive, made on transmit */
	pkt_old = 2 * (c32_hdr_old.ns + c32_rest_old.ns) + 2 * c16_old.ns;
	pkt_new = 2 * (c32_hdr_new.ns + c32_rest_new.ns) + 2 * c16_new.ns;
	printf("\n  ICRC as the codec calls it: %d-byte header %.1f -> %.1f "
	       "ns, %zu-byte rest %.1f -> %.1f ns\n", HDR_LEN,
	       c32_hdr_old.ns, c32_hdr_new.ns, len - HDR_LEN,
	       c32_rest_old.ns, c32_rest_new.ns);
	printf("  per packet, 2 x ICRC + 2 x VCRC: old %.1f ns, new %.1f ns "
	       "(x%.2f); CRC-only ceiling %.1f -> %.1f M packets/s/core\n",
	       pkt_old, pkt_new, pkt_old / pkt_new, 1e3 / pkt_old,
	       1e3 / pkt_new);

	/* where PCLMULQDQ starts paying: mpd_crc*_clmul() fold from 16 bytes,
	 * the public functions from MPD_CRC_CLMUL_MIN */
	printf("\n  short inputs, ns (public functions fold from %d bytes):\n"
	       "  %6s %10s %10s %10s %10s\n", MPD_CRC_CLMUL_MIN, "bytes",
	       "crc32 sb8", "pclmul", "crc16 sb8", "pclmul");
	for (i = 16; i <= 128; i += 8) {
		if (i > 64 && i % 32)
			continue;
		printf("  %6zu %10.1f %10.1f %10.1f %10.1f\n", i,
		       time32(mpd_crc32_sb8, i).ns,
		       time32(mpd_crc32_clmul, i).ns,
		       time16(mpd_crc16_sb8, i).ns,
		       time16(mpd_crc16_clmul, i).ns);
	}
	free(big);
	free(ring);
	return 0;
}
