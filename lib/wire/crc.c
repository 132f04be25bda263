/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two link CRCs of IBA 7.8: ICRC is CRC-32 with the Ethernet polynomial
 * (bit-reflected, seed and result inverted, as zlib's crc32); VCRC is CRC-16
 * with polynomial 0x100B, same bit order, seed 0xFFFF, result inverted.
 *
 * The PMD computes both twice per packet, so on x86 CPUs with PCLMULQDQ
 * inputs of MPD_CRC_CLMUL_MIN bytes or more are folded with carry-less
 * multiplies (Intel, "Fast CRC Computation for Generic Polynomials Using
 * PCLMULQDQ", 2009): four 128-bit lanes folded 512 bits ahead per step;
 * then the lanes and the last whole blocks all moved onto the last block
 * at once; that 128-bit value reduced to 64 bits and Barrett-reduced to
 * the CRC. The last 0..15 bytes, short inputs and CPUs without PCLMULQDQ
 * use slicing-by-8 tables. The choice is made once, at the first call;
 * MADPMD_CRC_NO_PCLMUL=1 in the environment keeps the tables (to test them).
 *
 * One fold routine serves both CRCs: the CRC-16 runs with P' = P * x^16,
 * a degree-32 polynomial, for which (M * x^32) mod P' = x^16 * CRC16(M)
 * (bit-reflected: the CRC-16 is the low half of the 32-bit result). The
 * fold and reduction steps only use congruences mod P', never division by
 * x, so they hold for P' although it is not coprime with x.
 *
 * Bit order. A little-endian 128-bit load of 16 message bytes puts the
 * message's first bit in register bit 0; register bit i stands for x^(127-i).
 * For 64-bit operands a (bit i = x^(63-i) of A) and c (bit j = x^(64-j) of
 * C), PCLMULQDQ(a, c) is then exactly A * C in the 128-bit convention. A
 * constant congruent to x^k is stored as C = x^32 * (x^(k-32) mod P'), i.e.
 * c = g(k) = reflect32(x^(k-32) mod P') << 1, a 33-bit value; that keeps
 * every product inside 128 bits. For a lane X = XH * x^64 + XL (XH in the
 * low qword), moving it F bits ahead is XH * x^(F+64) + XL * x^F, hence the
 * pairs { g(F+64), g(F) } below, F = 128 .. 768.
 *
 * Final reduction of one lane X (the CRC register is X * x^32 mod P'):
 *   1. XH * g(128) ^ (X >> 64 bits) = x^32 * W, W = X * x^32 (mod P'),
 *      96 bits wide, in register bits 0..95;
 *   2. WH (bits 0..31) * g(96) ^ (W >> 32 bits) = x^64 * Z, Z = W (mod P'),
 *      64 bits wide, in register bits 0..63;
 *   3. Barrett, exact for polynomials of degree < 64: Q = (ZH * mu) >> 32
 *      with mu = floor(x^64 / P'), then ZL ^ low32(Q * P') is Z mod P',
 *      bit-reflected, in register bits 32..63.
 * The constants were computed from these definitions (x^k mod P' by
 * shift-and-subtract, mu by long division); test_crc.c recomputes them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/wire.h"
#include "crc_priv.h"

#if defined(__x86_64__) || defined(__i386__)
#define CRC_HAVE_X86	1
#include <immintrin.h>
#define CRC_TARGET_CLMUL	__attribute__((target("pclmul,sse4.1")))
#else
#define CRC_HAVE_X86	0
#endif

#define CRC32_POLY_REFLECTED	0xedb88320u
#define CRC16_POLY_REFLECTED	0xd008u	/* 0x100B bit-reversed */

const struct mpd_crc_fold_k mpd_crc32_fold_k = {
	/* P' = x^32 + 0x04C11DB7 */
	.by128 = {
		{ 0x1751997d0ull, 0x0ccaa009eull },	/* x^192, x^128 */
		{ 0x0f1da05aaull, 0x15a546366ull },	/* x^320, x^256 */
		{ 0x03db1ecdcull, 0x174359406ull },	/* x^448, x^384 */
		{ 0x154442bd4ull, 0x1c6e41596ull },	/* x^576, x^512 */
		{ 0x1c7569e54ull, 0x0ae0b5394ull },	/* x^704, x^640 */
		{ 0x0df068dc2ull, 0x18cb44e58ull },	/* x^832, x^768 */
	},
	.red64 = 0x163cd6124ull,			/* x^96 */
	.mu = 0x1f7011641ull,
	.poly = 0x1db710641ull,
};

const struct mpd_crc_fold_k mpd_crc16_fold_k = {
	/* P' = (x^16 + 0x100B) * x^16 */
	.by128 = {
		{ 0x00001f9eaull, 0x00001e9deull },	/* x^192, x^128 */
		{ 0x00000a008ull, 0x00001b7dcull },	/* x^320, x^256 */
		{ 0x00001ed08ull, 0x00001f366ull },	/* x^448, x^384 */
		{ 0x0000009c2ull, 0x0000064b0ull },	/* x^576, x^512 */
		{ 0x00001a70aull, 0x000018b5eull },	/* x^704, x^640 */
		{ 0x000002922ull, 0x0000052ecull },	/* x^832, x^768 */
	},
	.red64 = 0x000015864ull,			/* x^96 */
	.mu = 0x1b4b0b111ull,
	.poly = 0x00001a011ull,
};

static uint32_t crc32_tbl[8][256];
static uint16_t crc16_tbl[8][256];
static bool crc_cpu_clmul;	/* the CPU has PCLMULQDQ and SSE4.1 */
static bool crc_use_clmul;	/* ... and the environment allows it */
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void
crc_init(void)
{
	const char *env;
	unsigned int i, j;

	for (i = 0; i < 256; i++) {
		uint32_t c = i;
		uint16_t d = (uint16_t)i;

		for (j = 0; j < 8; j++) {
			c = (c & 1) ? (c >> 1) ^ CRC32_POLY_REFLECTED : c >> 1;
			d = (d & 1) ? (uint16_t)((d >> 1) ^ CRC16_POLY_REFLECTED)
				    : (uint16_t)(d >> 1);
		}
		crc32_tbl[0][i] = c;
		crc16_tbl[0][i] = d;
	}
	/* table j: byte i followed by j zero bytes */
	for (i = 0; i < 256; i++) {
		for (j = 1; j < 8; j++) {
			uint32_t c = crc32_tbl[j - 1][i];
			uint16_t d = crc16_tbl[j - 1][i];

			crc32_tbl[j][i] = (c >> 8) ^ crc32_tbl[0][c & 0xff];
			crc16_tbl[j][i] = (uint16_t)((d >> 8) ^
						     crc16_tbl[0][d & 0xff]);
		}
	}

#if CRC_HAVE_X86
	__builtin_cpu_init();
	crc_cpu_clmul = __builtin_cpu_supports("pclmul") &&
			__builtin_cpu_supports("sse4.1");
#endif
	env = getenv(MPD_CRC_ENV_NO_PCLMUL);
	crc_use_clmul = crc_cpu_clmul &&
			(env == NULL || env[0] == '\0' || strcmp(env, "0") == 0);
}

bool
mpd_crc_cpu_has_clmul(void)
{
	pthread_once(&crc_once, crc_init);
	return crc_cpu_clmul;
}

bool
mpd_crc_clmul_enabled(void)
{
	pthread_once(&crc_once, crc_init);
	return crc_use_clmul;
}

/* ---- tables ------------------------------------------------------------- */

/* On the raw (not inverted) reflected register. */
static uint32_t
crc32_sb8_raw(uint32_t c, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				   (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);

		c = crc32_tbl[7][lo & 0xff] ^ crc32_tbl[6][(lo >> 8) & 0xff] ^
		    crc32_tbl[5][(lo >> 16) & 0xff] ^ crc32_tbl[4][lo >> 24] ^
		    crc32_tbl[3][p[4]] ^ crc32_tbl[2][p[5]] ^
		    crc32_tbl[1][p[6]] ^ crc32_tbl[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = crc32_tbl[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

static uint16_t
crc16_sb8_raw(uint16_t c, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		unsigned int lo = c ^ ((unsigned int)p[0] |
				       (unsigned int)p[1] << 8);

		c = crc16_tbl[7][lo & 0xff] ^ crc16_tbl[6][lo >> 8] ^
		    crc16_tbl[5][p[2]] ^ crc16_tbl[4][p[3]] ^
		    crc16_tbl[3][p[4]] ^ crc16_tbl[2][p[5]] ^
		    crc16_tbl[1][p[6]] ^ crc16_tbl[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = (uint16_t)(crc16_tbl[0][(c ^ *p++) & 0xff] ^ (c >> 8));
	return c;
}

uint32_t
mpd_crc32_sb8(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return ~crc32_sb8_raw(~crc, buf, len);
}

uint16_t
mpd_crc16_sb8(const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return (uint16_t)~crc16_sb8_raw(0xffff, buf, len);
}

/* The implementation before slicing: kept for the benchmark. */
uint16_t
mpd_crc16_bytewise(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint16_t c = 0xffff;

	pthread_once(&crc_once, crc_init);
	while (len--)
		c = (uint16_t)(crc16_tbl[0][(c ^ *p++) & 0xff] ^ (c >> 8));
	return (uint16_t)~c;
}

/* ---- PCLMULQDQ folding -------------------------------------------------- */

#if CRC_HAVE_X86

static inline CRC_TARGET_CLMUL __m128i
crc_load(const void *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

/* x moved ahead by the distance k is for, plus the next data d */
static inline CRC_TARGET_CLMUL __m128i
crc_fold(__m128i x, __m128i k, __m128i d)
{
	__m128i h = _mm_clmulepi64_si128(x, k, 0x00);	/* XH * k[0] */
	__m128i l = _mm_clmulepi64_si128(x, k, 0x11);	/* XL * k[1] */

	return _mm_xor_si128(_mm_xor_si128(h, l), d);
}

/*
 * Runs the raw reflected register c (CRC-16: in the low 16 bits) over the
 * whole 16-byte blocks of *pp (*lenp >= 16), advancing *pp and *lenp past
 * them; fewer than 16 bytes remain.
 *
 * From 64 bytes on, four lanes go 64 bytes at a time. What is left then,
 * the four lanes and up to three more blocks (or, below 64 bytes, one to
 * three blocks), is moved to the last block in one step, each by its own
 * distance, so that nothing waits on a chain of folds.
 */
static CRC_TARGET_CLMUL uint32_t
crc_fold_clmul(uint32_t c, const uint8_t **pp, size_t *lenp,
	       const struct mpd_crc_fold_k *k)
{
	const __m128i lo32 = _mm_set_epi32(0, 0, 0, -1);
	const __m128i k128 = crc_load(k->by128[0]);
	const __m128i kred = _mm_set_epi64x(0, (long long)k->red64);
	const __m128i kbar = _mm_set_epi64x((long long)k->poly,
					    (long long)k->mu);
	const uint8_t *p = *pp;
	size_t len = *lenp;
	__m128i v[MPD_CRC_FOLD_MAX + 1], x, t;
	unsigned int n = 0, i;

	/* the register goes into the first bytes, as in the table loop */
	v[0] = _mm_xor_si128(crc_load(p), _mm_cvtsi32_si128((int)c));
	if (len >= 64) {
		const __m128i k512 = crc_load(k->by128[3]);
		__m128i x0 = v[0], x1 = crc_load(p + 16);
		__m128i x2 = crc_load(p + 32), x3 = crc_load(p + 48);

		p += 64;
		len -= 64;
		while (len >= 64) {
			x0 = crc_fold(x0, k512, crc_load(p));
			x1 = crc_fold(x1, k512, crc_load(p + 16));
			x2 = crc_fold(x2, k512, crc_load(p + 32));
			x3 = crc_fold(x3, k512, crc_load(p + 48));
			p += 64;
			len -= 64;
		}
		v[0] = x0;
		v[1] = x1;
		v[2] = x2;
		v[3] = x3;
		n = 4;
	} else {
		p += 16;
		len -= 16;
		n = 1;
	}
	while (len >= 16) {
		v[n++] = crc_load(p);
		p += 16;
		len -= 16;
	}
	x = v[n - 1];
	for (i = 0; i + 1 < n; i++)
		x = crc_fold(v[i], crc_load(k->by128[n - 2 - i]), x);

	/* 128 -> 96 bits: XH * x^128 ^ XL * x^64, in bits 0..95 */
	t = _mm_clmulepi64_si128(x, k128, 0x10);
	x = _mm_xor_si128(_mm_srli_si128(x, 8), t);
	/* 96 -> 64 bits: WH * x^96 ^ WL * x^64, in bits 0..63 */
	t = _mm_clmulepi64_si128(_mm_and_si128(x, lo32), kred, 0x00);
	x = _mm_xor_si128(_mm_srli_si128(x, 4), t);
	/* Barrett: Q in bits 0..31 of ZH * mu, then ZL ^ low32(Q * P') */
	t = _mm_clmulepi64_si128(_mm_and_si128(x, lo32), kbar, 0x00);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, lo32), kbar, 0x10);
	x = _mm_xor_si128(x, t);

	*pp = p;
	*lenp = len;
	return (uint32_t)_mm_extract_epi32(x, 1);
}

/* PCLMULQDQ from min (>= 16) bytes on, tables below and for the tail */
static inline uint32_t
crc32_clmul_raw(uint32_t c, const uint8_t *p, size_t len, size_t min)
{
	if (len >= min)
		c = crc_fold_clmul(c, &p, &len, &mpd_crc32_fold_k);
	return crc32_sb8_raw(c, p, len);
}

static inline uint16_t
crc16_clmul_raw(uint16_t c, const uint8_t *p, size_t len, size_t min)
{
	if (len >= min)
		c = (uint16_t)crc_fold_clmul(c, &p, &len, &mpd_crc16_fold_k);
	return crc16_sb8_raw(c, p, len);
}

#else /* !CRC_HAVE_X86: never called, crc_cpu_clmul stays false */

static inline uint32_t
crc32_clmul_raw(uint32_t c, const uint8_t *p, size_t len, size_t min)
{
	(void)min;
	return crc32_sb8_raw(c, p, len);
}

static inline uint16_t
crc16_clmul_raw(uint16_t c, const uint8_t *p, size_t len, size_t min)
{
	(void)min;
	return crc16_sb8_raw(c, p, len);
}

#endif

uint32_t
mpd_crc32_clmul(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return ~crc32_clmul_raw(~crc, buf, len, 16);
}

uint16_t
mpd_crc16_clmul(const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return (uint16_t)~crc16_clmul_raw(0xffff, buf, len, 16);
}

/* ---- public ------------------------------------------------------------- */

uint32_t
mpd_crc32(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
	if (crc_use_clmul)
		return ~crc32_clmul_raw(~crc, buf, len,
					 MPD_CRC_CLMUL_MIN);
	return ~crc32_sb8_raw(~crc, buf, len);
}

uint16_t
mpd_crc16_vcrc(const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
	if (crc_use_clmul)
		return (uint16_t)~crc16_clmul_raw(0xffff, buf, len,
						   MPD_CRC_CLMUL_MIN);
	return (uint16_t)~crc16_sb8_raw(0xffff, buf, len);
}
