/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "madpmd/rand.h"
#include "tap.h"

static int tap_n, tap_failed;
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

void
tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int
tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("# failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

uint64_t
tap_seed(void)
{
	const char *s = getenv("MADPMD_TEST_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : 0;

	if (!seed) {
		FILE *f = fopen("/dev/urandom", "rb");

		if (!f || fread(&seed, sizeof(seed), 1, f) != 1)
			seed = 0x9e3779b97f4a7c15ull;
		if (f)
			fclose(f);
	}
	if (!seed)
		seed = 1;
	rng_state = seed;
	tap_diag("seed 0x%llx (replay with MADPMD_TEST_SEED=0x%llx)",
		 (unsigned long long)seed, (unsigned long long)seed);
	return seed;
}

uint64_t
rnd64(void)
{
	return mpd_xorshift64(&rng_state);
}

uint64_t
rnd_bits(unsigned int bits)
{
	return bits >= 64 ? rnd64() : rnd64() & ((1ull << bits) - 1);
}

void
rnd_bytes(void *p, size_t n)
{
	uint8_t *b = p;

	while (n--)
		*b++ = (uint8_t)rnd64();
}
