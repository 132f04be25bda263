/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the CRC implementations behind mpd_crc32() and
 * mpd_crc16_vcrc(): every path (tables, PCLMULQDQ folding, whatever the
 * public functions picked) against bitwise references written from the
 * definitions, at every length 0..1024 and alignment 0..15, with random
 * data and seeds; chaining; and the folding constants recomputed from
 * their definitions.
 *
 * meson runs this twice, once with MADPMD_CRC_NO_PCLMUL=1 so that the public
 * functions take the table path.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/wire.h"
#include "../../lib/wire/crc_priv.h"
#include "tap.h"

#define LEN_MAX		1024
#define ALIGN_MAX	16
#define BIG_MAX		(64 * 1024)

/* ---- references --------------------------------------------------------- */

static uint64_t
reflect(uint64_t v, unsigned int bits)
{
	uint64_t r = 0;
	unsigned int i;

	for (i = 0; i < bits; i++)
		if (v >> i & 1)
			r |= 1ull << (bits - 1 - i);
	return r;
}

/*
 * A bit-reflected CRC by its definition: the register, MSB first, holds the
 * remainder; message bits enter LSB first; seed and result go through the
 * reflection and the inversion. poly without its x^width term.
 */
static uint32_t
ref_crc(unsigned int width, uint32_t poly, uint32_t seed, const uint8_t *p,
	size_t n)
{
	uint32_t top = 1u << (width - 1);
	uint32_t mask = (uint32_t)((1ull << width) - 1);
	uint32_t c = (uint32_t)reflect(~seed & mask, width);
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < 8; k++) {
			bool in = p[i] >> k & 1;
			bool out = c & top;

			c = (c << 1) & mask;
			if (in != out)
				c ^= poly;
		}
	}
	return ~(uint32_t)reflect(c, width) & mask;
}

static uint32_t
ref_crc32(uint32_t seed, const uint8_t *p, size_t n)
{
	return ref_crc(32, 0x04c11db7u, seed, p, n);
}

static uint16_t
ref_vcrc(const uint8_t *p, size_t n)
{
	return (uint16_t)ref_crc(16, 0x100b, 0, p, n);
}

/* ---- the folding constants ---------------------------------------------- */

/* x^k mod pp, pp of degree 32 with its x^32 term (bit 32) */
static uint64_t
xk_mod(unsigned int k, uint64_t pp)
{
	uint64_t r = 1;

	while (k--) {
		r <<= 1;
		if (r >> 32 & 1)
			r ^= pp;
	}
	return r;
}

/* floor(x^64 / pp) by long division, bit by bit from x^64 down */
static uint64_t
x64_div(uint64_t pp)
{
	uint64_t q = 0, r = 0;
	int d;

	for (d = 64; d >= 0; d--) {
		r = r << 1 | (d == 64);
		q <<= 1;
		if (r >> 32 & 1) {
			r ^= pp;
			q |= 1;
		}
	}
	return q;
}

/* g(k): the constant congruent to x^k as the fold routine stores it */
static uint64_t
fold_const(unsigned int k, uint64_t pp)
{
	return reflect(xk_mod(k - 32, pp), 32) << 1;
}

static void
gen_consts(uint64_t pp, struct mpd_crc_fold_k *k)
{
	unsigned int m;

	for (m = 1; m <= MPD_CRC_FOLD_MAX; m++) {
		k->by128[m - 1][0] = fold_const(128 * m + 64, pp);
		k->by128[m - 1][1] = fold_const(128 * m, pp);
	}
	k->red64 = fold_const(96, pp);
	k->mu = reflect(x64_div(pp), 33);
	k->poly = reflect(pp, 33);
}

static void
check_consts(const char *name, uint64_t pp, const struct mpd_crc_fold_k *got)
{
	struct mpd_crc_fold_k want;
	unsigned int m;

	gen_consts(pp, &want);
	for (m = 1; m <= MPD_CRC_FOLD_MAX; m++) {
		is_int(got->by128[m - 1][0], want.by128[m - 1][0],
		       "%s: by128[%u][0] = x^%u", name, m - 1, 128 * m + 64);
		is_int(got->by128[m - 1][1], want.by128[m - 1][1],
		       "%s: by128[%u][1] = x^%u", name, m - 1, 128 * m);
	}
	is_int(got->red64, want.red64, "%s: red64 = x^96", name);
	is_int(got->mu, want.mu, "%s: mu = floor(x^64 / P')", name);
	is_int(got->poly, want.poly, "%s: poly = P'", name);
}

static void
test_consts(void)
{
	uint64_t q, hi = 0, lo = 0;
	int i;

	/* the generator itself: small cases worked by hand */
	is_int(xk_mod(31, 0x104c11db7ull), 1ull << 31, "x^31 mod P is x^31");
	is_int(xk_mod(32, 0x104c11db7ull), 0x04c11db7ull,
	       "x^32 mod P is P - x^32");
	q = x64_div(0x104c11db7ull);
	is_int(q >> 32, 1, "floor(x^64 / P) has degree 32");
	/* x^64 = q * P + r with deg r < 32: multiply back, 128 bits wide */
	for (i = 0; i <= 32; i++) {
		if (!(q >> i & 1))
			continue;
		lo ^= 0x104c11db7ull << i;
		if (i)
			hi ^= 0x104c11db7ull >> (64 - i);
	}
	is_int(hi, 1, "q * P reaches exactly x^64");
	is_int(lo >> 32, 0, "x^64 - q * P has degree < 32");

	check_consts("crc32", 0x104c11db7ull, &mpd_crc32_fold_k);
	check_consts("crc16", 0x1100bull << 16, &mpd_crc16_fold_k);
}

/* ---- the paths ---------------------------------------------------------- */

typedef uint32_t (*crc32_fn)(uint32_t, const void *, size_t);
typedef uint16_t (*crc16_fn)(const void *, size_t);

struct path32 {
	const char *name;
	crc32_fn fn;
	bool clmul;
};

struct path16 {
	const char *name;
	crc16_fn fn;
	bool clmul;
};

static const struct path32 paths32[] = {
	{ "mpd_crc32", mpd_crc32, false },
	{ "slicing-by-8", mpd_crc32_sb8, false },
	{ "pclmul", mpd_crc32_clmul, true },
};

static const struct path16 paths16[] = {
	{ "mpd_crc16_vcrc", mpd_crc16_vcrc, false },
	{ "bytewise", mpd_crc16_bytewise, false },
	{ "slicing-by-8", mpd_crc16_sb8, false },
	{ "pclmul", mpd_crc16_clmul, true },
};

#define N32	(sizeof(paths32) / sizeof(paths32[0]))
#define N16	(sizeof(paths16) / sizeof(paths16[0]))

static bool have_clmul;

static void
test_dispatch(void)
{
	const char *env = getenv(MPD_CRC_ENV_NO_PCLMUL);
	bool off = env && env[0] && strcmp(env, "0") != 0;

	have_clmul = mpd_crc_cpu_has_clmul();
	tap_diag("CPU %s PCLMULQDQ; %s=%s; public functions use %s",
		 have_clmul ? "has" : "lacks", MPD_CRC_ENV_NO_PCLMUL,
		 env ? env : "(unset)",
		 mpd_crc_clmul_enabled() ? "PCLMULQDQ" : "tables");
	is_int(mpd_crc_clmul_enabled(), have_clmul && !off,
	       "public functions use PCLMULQDQ iff the CPU has it and %s "
	       "is not set", MPD_CRC_ENV_NO_PCLMUL);
	if (!have_clmul)
		tap_diag("the pclmul paths are not run on this CPU");
}

static void
test_check_values(void)
{
	static const uint8_t check[] = "123456789";
	size_t i;

	is_int(ref_crc32(0, check, 9), 0xcbf43926u,
	       "reference crc32 check value is 0xCBF43926");
	is_int(ref_vcrc(check, 9), 0x0a3d,
	       "reference VCRC check value is 0x0A3D");
	for (i = 0; i < N32; i++) {
		if (paths32[i].clmul && !have_clmul)
			continue;
		is_int(paths32[i].fn(0, check, 9), 0xcbf43926u,
		       "crc32 %s: check value", paths32[i].name);
		is_int(paths32[i].fn(0x5a5a5a5au, check, 0), 0x5a5a5a5au,
		       "crc32 %s: nothing keeps the seed", paths32[i].name);
	}
	for (i = 0; i < N16; i++) {
		if (paths16[i].clmul && !have_clmul)
			continue;
		is_int(paths16[i].fn(check, 9), 0x0a3d,
		       "VCRC %s: check value", paths16[i].name);
		is_int(paths16[i].fn(check, 0), 0,
		       "VCRC %s: of nothing is 0", paths16[i].name);
	}
}

/*
 * Every length 0..LEN_MAX at every alignment 0..15, each in its own heap
 * block that ends where the data ends (so the sanitizers see any overread),
 * random data and a random seed each time.
 */
static void
test_lengths(void)
{
	unsigned int bad32[N32] = { 0 }, bad16[N16] = { 0 };
	size_t len, off, i;

	for (off = 0; off < ALIGN_MAX; off++) {
		for (len = 0; len <= LEN_MAX; len++) {
			uint8_t *blk = malloc(off + len ? off + len : 1);
			uint8_t *p = blk + off;
			uint32_t seed, want32;
			uint16_t want16;

			if (!blk)
				abort();
			rnd_bytes(blk, off + len);
			seed = (len & 3) == 0 ? 0 : (uint32_t)rnd64();
			want32 = ref_crc32(seed, p, len);
			want16 = ref_vcrc(p, len);
			for (i = 0; i < N32; i++)
				if ((!paths32[i].clmul || have_clmul) &&
				    paths32[i].fn(seed, p, len) != want32)
					bad32[i]++;
			for (i = 0; i < N16; i++)
				if ((!paths16[i].clmul || have_clmul) &&
				    paths16[i].fn(p, len) != want16)
					bad16[i]++;
			free(blk);
		}
	}
	for (i = 0; i < N32; i++)
		if (!paths32[i].clmul || have_clmul)
			is_int(bad32[i], 0, "crc32 %s = reference, lengths "
			       "0..%d, alignments 0..%d, random seeds",
			       paths32[i].name, LEN_MAX, ALIGN_MAX - 1);
	for (i = 0; i < N16; i++)
		if (!paths16[i].clmul || have_clmul)
			is_int(bad16[i], 0, "VCRC %s = reference, lengths "
			       "0..%d, alignments 0..%d", paths16[i].name,
			       LEN_MAX, ALIGN_MAX - 1);
}

/* a few large inputs, where the four-lane loop runs for long */
static void
test_big(void)
{
	static const size_t lens[] = { 4096, 9000, 9022, BIG_MAX - 1, BIG_MAX };
	unsigned int bad32[N32] = { 0 }, bad16[N16] = { 0 };
	uint8_t *buf = malloc(BIG_MAX);
	size_t l, i;

	if (!buf)
		abort();
	for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		uint32_t seed = (uint32_t)rnd64(), want32;
		uint16_t want16;
		const uint8_t *p = buf + (BIG_MAX - lens[l]);

		rnd_bytes(buf, BIG_MAX);
		want32 = ref_crc32(seed, p, lens[l]);
		want16 = ref_vcrc(p, lens[l]);
		for (i = 0; i < N32; i++)
			if ((!paths32[i].clmul || have_clmul) &&
			    paths32[i].fn(seed, p, lens[l]) != want32)
				bad32[i]++;
		for (i = 0; i < N16; i++)
			if ((!paths16[i].clmul || have_clmul) &&
			    paths16[i].fn(p, lens[l]) != want16)
				bad16[i]++;
	}
	for (i = 0; i < N32; i++)
		if (!paths32[i].clmul || have_clmul)
			is_int(bad32[i], 0, "crc32 %s = reference up to %d "
			       "bytes", paths32[i].name, BIG_MAX);
	for (i = 0; i < N16; i++)
		if (!paths16[i].clmul || have_clmul)
			is_int(bad16[i], 0, "VCRC %s = reference up to %d "
			       "bytes", paths16[i].name, BIG_MAX);
	free(buf);
}

/*
 * crc(A || B) == crc(crc(A), B): every split of every length up to 200,
 * then random splits (and three-piece chains) up to LEN_MAX bytes.
 */
static void
test_chaining(void)
{
	static uint8_t buf[2 * LEN_MAX];
	unsigned int bad[N32] = { 0 }, bad_ref = 0;
	size_t len, a, b, i;
	int n;

	rnd_bytes(buf, sizeof(buf));
	for (len = 0; len <= 200; len++) {
		uint32_t seed = (uint32_t)rnd64();
		uint32_t whole = ref_crc32(seed, buf, len);

		for (a = 0; a <= len; a++)
			for (i = 0; i < N32; i++) {
				crc32_fn f = paths32[i].fn;

				if (paths32[i].clmul && !have_clmul)
					continue;
				if (f(f(seed, buf, a), buf + a, len - a) !=
				    whole)
					bad[i]++;
			}
	}
	for (n = 0; n < 3000; n++) {
		uint32_t seed = (uint32_t)rnd64(), whole;

		len = (size_t)(rnd64() % (sizeof(buf) + 1));
		a = (size_t)(rnd64() % (len + 1));
		b = a + (size_t)(rnd64() % (len - a + 1));
		whole = ref_crc32(seed, buf, len);
		if (ref_crc32(ref_crc32(seed, buf, a), buf + a, len - a) !=
		    whole)
			bad_ref++;
		for (i = 0; i < N32; i++) {
			crc32_fn f = paths32[i].fn;

			if (paths32[i].clmul && !have_clmul)
				continue;
			if (f(f(seed, buf, a), buf + a, len - a) != whole ||
			    f(f(f(seed, buf, a), buf + a, b - a), buf + b,
			      len - b) != whole)
				bad[i]++;
		}
	}
	is_int(bad_ref, 0, "reference crc32 chains (sanity)");
	for (i = 0; i < N32; i++)
		if (!paths32[i].clmul || have_clmul)
			is_int(bad[i], 0, "crc32 %s: crc(A||B) == "
			       "crc(crc(A), B), every split to 200 bytes, "
			       "random 2- and 3-piece splits to %zu",
			       paths32[i].name, sizeof(buf));

	/* the paths mixed: tables for A, folding for B, and back */
	if (have_clmul) {
		unsigned int bad_mix = 0;

		for (n = 0; n < 2000; n++) {
			uint32_t seed = (uint32_t)rnd64();

			len = (size_t)(rnd64() % (sizeof(buf) + 1));
			a = (size_t)(rnd64() % (len + 1));
			if (mpd_crc32_clmul(mpd_crc32_sb8(seed, buf, a),
					    buf + a, len - a) !=
			    mpd_crc32_sb8(mpd_crc32_clmul(seed, buf, a),
					  buf + a, len - a))
				bad_mix++;
		}
		is_int(bad_mix, 0, "crc32 chains across the two paths");
	}
}

int
main(void)
{
	tap_seed();
	test_consts();
	test_dispatch();
	test_check_values();
	test_lengths();
	test_big();
	test_chaining();
	return tap_done();
}
