/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Table-driven codec for the fixed layouts of IBA management structures.
 *
 * IBA draws every MAD attribute as 32-bit words with fields at bit offsets
 * counted from the most significant bit of the first byte. A layout here is
 * an array of struct mpd_field giving, for each member of a host C struct,
 * where it sits on the wire; one pair of functions encodes and decodes every
 * attribute, so a layout can be checked against the spec table by eye.
 */
#ifndef MADPMD_FIELD_H
#define MADPMD_FIELD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum mpd_field_kind {
	MPD_FK_UINT = 0,	/* unsigned integer member of 1, 2, 4 or 8 bytes */
	MPD_FK_BYTES = 1,	/* byte array copied as is (GIDs, strings) */
};

struct mpd_field {
	const char *name;	/* member name, for diagnostics and tests */
	uint16_t bit_off;	/* from the MSB of byte 0 of the structure */
	uint16_t bits;		/* width on the wire */
	uint16_t mem_off;	/* offsetof() in the host struct */
	uint8_t mem_size;	/* sizeof() the member */
	uint8_t kind;		/* enum mpd_field_kind */
};

struct mpd_layout {
	const char *name;		/* e.g. "NodeInfo" */
	uint16_t wire_len;		/* bytes the structure occupies */
	uint16_t nfields;
	const struct mpd_field *fields;
};

#define MPD_FIELD(type, member, off, width) {				\
	.name = #member, .bit_off = (off), .bits = (width),		\
	.mem_off = offsetof(type, member),				\
	.mem_size = sizeof(((type *)0)->member),			\
	.kind = MPD_FK_UINT }

/* A byte array; width in bits must equal 8 * sizeof(member). */
#define MPD_FIELD_BYTES(type, member, off) {				\
	.name = #member, .bit_off = (off),				\
	.bits = 8 * sizeof(((type *)0)->member),			\
	.mem_off = offsetof(type, member),				\
	.mem_size = sizeof(((type *)0)->member),			\
	.kind = MPD_FK_BYTES }

#define MPD_LAYOUT(lname, len, tbl) {					\
	.name = (lname), .wire_len = (len),				\
	.nfields = sizeof(tbl) / sizeof((tbl)[0]), .fields = (tbl) }

/*
 * Encode the host struct obj into buf[0..layout->wire_len). Bits not covered
 * by a field (reserved) are written as zero. Returns wire_len, MPD_ENOSPC
 * when cap is short, MPD_ERANGE when a member does not fit its width.
 */
int mpd_layout_encode(const struct mpd_layout *l, const void *obj,
		      uint8_t *buf, size_t cap);
/* Decode buf into the members of obj the layout names; other members are
 * left as they are. Returns wire_len or MPD_ETRUNC. */
int mpd_layout_decode(const struct mpd_layout *l, const uint8_t *buf,
		      size_t len, void *obj);

/* Raw bit access, MSB-first bit numbering, width 1..64. */
uint64_t mpd_bits_get(const uint8_t *buf, unsigned int bit_off,
		      unsigned int bits);
void mpd_bits_set(uint8_t *buf, unsigned int bit_off, unsigned int bits,
		  uint64_t val);

/* Read/write one member of a host struct as described by f (UINT kind). */
uint64_t mpd_field_load(const struct mpd_field *f, const void *obj);
void mpd_field_store(const struct mpd_field *f, void *obj, uint64_t val);
/* Look a field up by member name; NULL when absent. */
const struct mpd_field *mpd_layout_find(const struct mpd_layout *l,
					const char *name);

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_FIELD_H */
