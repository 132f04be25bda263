/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two link CRCs of IBA 7.8: ICRC is CRC-32 with the Ethernet polynomial
 * (bit-reflected, seed and result inverted, as zlib's crc32); VCRC is CRC-16
 * with polynomial 0x100B, same bit order, seed 0xFFFF, result inverted.
 * CRC-32 runs slicing-by-8 since every packet goes through it twice.
 */
#include <pthread.h>

#include "madpmd/wire.h"

#define CRC32_POLY_REFLECTED	0xedb88320u
#define CRC16_POLY_REFLECTED	0xd008u	/* 0x100B bit-reversed */

static uint32_t crc32_tbl[8][256];
static uint16_t crc16_tbl[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void
crc_tables_init(void)
{
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
		crc16_tbl[i] = d;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			crc32_tbl[j][i] = (crc32_tbl[j - 1][i] >> 8) ^
					  crc32_tbl[0][crc32_tbl[j - 1][i] & 0xff];
}

uint32_t
mpd_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t c = ~crc;

	pthread_once(&crc_once, crc_tables_init);
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
	return ~c;
}

uint16_t
mpd_crc16_vcrc(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint16_t c = 0xffff;

	pthread_once(&crc_once, crc_tables_init);
	while (len--)
		c = (uint16_t)(crc16_tbl[(c ^ *p++) & 0xff] ^ (c >> 8));
	return (uint16_t)~c;
}
