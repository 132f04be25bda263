/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wireshark as the oracle: tests build packets with the codec, write them
 * into a pcapng with the capture writer, state what every field holds,
 * then one tshark run reads the file back and each statement is checked
 * against tshark's own decode (run unprivileged, as Wireshark wants).
 */
#ifndef MADPMD_TEST_ORACLE_H
#define MADPMD_TEST_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "madpmd/field.h"
#include "madpmd/mad.h"
#include "madpmd/wire.h"

struct oracle;
struct mpd_pcapng;

struct oracle *oracle_new(const char *name);
void oracle_free(struct oracle *o);

/* Random, valid headers for a UD packet on link (QP numbers as given);
 * RoCEv2 alternates IPv4/IPv6 and VLAN by the PRNG, IB adds a GRH at
 * random. */
void oracle_pkt_init(struct mpd_pkt *p, enum mpd_link link, uint32_t dest_qp,
		     uint32_t src_qp);
/*
 * Encode p + payload, write it, and expect every transport header field
 * (the extension headers mpd_op_hdrs() gives the opcode, and none of the
 * others) and the ICRC (and VCRC, framing lengths, checksums) as encoded. Returns the
 * frame number (1-based) or 0 when encoding failed (which is reported).
 */
int oracle_add_pkt(struct oracle *o, const char *label, struct mpd_pkt *p,
		   const void *payload, size_t len);
/* Write an already-built frame without expectations beyond "not malformed". */
int oracle_add_frame(struct oracle *o, const char *label, enum mpd_link link,
		     const void *frame, size_t len);

/* Expectations on frame: the occurrence-th value (0-based) of field. */
/* The common MAD header as the stock dissector shows it; with_status,
 * also infiniband.mad.status (the SMP test checks a directed-route
 * SMP's status as infiniband.smpdirected.smpstatus instead). */
void oracle_expect_mad_hdr(struct oracle *o, int frame,
			   const struct mpd_mad *m, bool with_status);
void oracle_expect_uint(struct oracle *o, int frame, const char *field,
			unsigned int occurrence, uint64_t value);
void oracle_expect_str(struct oracle *o, int frame, const char *field,
		       unsigned int occurrence, const char *value);
void oracle_expect_bytes(struct oracle *o, int frame, const char *field,
			 unsigned int occurrence, const void *value,
			 size_t len);
/* FT_IPv6/GID fields: compared as 16 bytes. */
void oracle_expect_gid(struct oracle *o, int frame, const char *field,
		       unsigned int occurrence, const uint8_t gid[16]);
/* Field must not appear in the frame at all. */
void oracle_expect_absent(struct oracle *o, int frame, const char *field);
/* Drop the expectations stated so far on field in frame (e.g. one that
 * oracle_add_pkt() made and the stock dissector is known not to show). */
void oracle_forget(struct oracle *o, int frame, const char *field);

/* A mapping from a codec layout member to a tshark field, for
 * oracle_expect_layout(). */
enum oracle_as {
	ORACLE_AS_FIELD = 0,	/* integer, or bytes compared as hex */
	ORACLE_AS_STRING,	/* byte array shown as an FT_STRING */
	ORACLE_AS_GID,		/* 16-byte array shown as FT_IPv6 */
};

struct oracle_map {
	const char *member;	/* mpd_field name in the layout */
	const char *tshark;	/* tshark field; NULL: not shown by tshark */
	enum oracle_as as;
};

/*
 * Expect, for each mapped member of layout, tshark's field to hold obj's
 * value (occurrence as given). Every member of the layout must appear in
 * map (with tshark NULL when Wireshark does not show it), so a layout
 * change cannot silently drop a check.
 */
void oracle_expect_layout(struct oracle *o, int frame,
			  const struct mpd_layout *l, const void *obj,
			  const struct oracle_map *map, size_t nmap,
			  unsigned int occurrence);

/* Extra tshark options (e.g. "-o", "pref:value"); call before run. */
void oracle_add_tshark_arg(struct oracle *o, const char *arg);

/*
 * Run tshark once over everything written and check every expectation,
 * plus: no frame malformed, no expert info of error severity. Prints a TAP
 * line per frame and per failed expectation; returns failures.
 */
int oracle_run(struct oracle *o);

/* ---- hooks for tests of our own dissector (tests/dissector) ---------- */

/* Run tshark with WIRESHARK_PLUGIN_DIR=dir (laid out as dir/4.0/epan/). */
void oracle_set_plugin_dir(struct oracle *o, const char *dir);
/* The capture writer and its interfaces (Ethernet, exported PDU), for
 * frames a test writes itself; each such frame is then announced with
 * oracle_add_written(), which returns its frame number. */
struct mpd_pcapng *oracle_writer(struct oracle *o, uint32_t *if_eth,
				 uint32_t *if_upper);
int oracle_add_written(struct oracle *o, const char *label);
/* Expert info of error severity is expected on frame (a bad CRC). */
void oracle_allow_errors(struct oracle *o, int frame);

#endif
