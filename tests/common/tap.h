/* SPDX-License-Identifier: BSD-3-Clause */
/* Minimal TAP output for meson's 'tap' protocol, and a seeded PRNG. */
#ifndef MADPMD_TEST_TAP_H
#define MADPMD_TEST_TAP_H

#include <stddef.h>
#include <stdint.h>

void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Prints the plan; returns the process exit code. */
int tap_done(void);

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...)						\
	do {								\
		long long g_ = (long long)(got), w_ = (long long)(want); \
		if (!ok(g_ == w_, __VA_ARGS__))				\
			tap_diag("got %lld (0x%llx), want %lld (0x%llx)", \
				 g_, (unsigned long long)g_, w_,	\
				 (unsigned long long)w_);		\
	} while (0)

/* Seeds from MADPMD_TEST_SEED or /dev/urandom and prints the seed, so a
 * failure can be replayed. */
uint64_t tap_seed(void);
uint64_t rnd64(void);
/* A random value of the given width in bits (1..64). */
uint64_t rnd_bits(unsigned int bits);
void rnd_bytes(void *p, size_t n);

#endif
