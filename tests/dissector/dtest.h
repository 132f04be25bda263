/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the plugin tests: a private WIRESHARK_PLUGIN_DIR holding the
 * built madpmd.so (tshark runs as nobody, so it is a copy in /tmp), frames
 * written with the codec and expected field by field under madpmd.*.
 */
#ifndef MADPMD_TEST_DTEST_H
#define MADPMD_TEST_DTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "madpmd/field.h"
#include "madpmd/mad.h"
#include "madpmd/wire.h"
#include "oracle.h"

/*
 * Prepare the plugin directory from $MADPMD_PLUGIN. Returns its path, or
 * NULL after printing a TAP plan that skips the test with the reason
 * (sanitized build whose plugin stock tshark cannot load, no plugin).
 */
const char *dtest_init(const char *name);
/* An oracle that runs tshark with our plugin. */
struct oracle *dtest_oracle(const char *name);

/* Run tshark (unprivileged, our plugin) on file with extra arguments;
 * returns its standard output (malloc'd) or NULL. */
char *dtest_tshark(const char *file, const char *const *args);
/* tshark -G <what> with our plugin. */
char *dtest_tshark_g(const char *what);

/* Timestamps: frames get ts = base + n * step unless given. */
uint64_t dtest_next_ts(uint64_t step_ns);

/*
 * Encode p + payload and write it (RoCE: Ethernet interface; IB: exported
 * PDU naming "madpmd_ib"), expecting our transport fields and a good ICRC
 * (and VCRC). Returns the frame number, 0 on failure (reported).
 * If corrupt_at >= 0, that byte of the frame is flipped after encoding and
 * no CRC status is expected.
 */
int dtest_add_pkt(struct oracle *o, const char *label, struct mpd_pkt *p,
		  const void *payload, size_t len, uint64_t ts, int corrupt_at,
		  uint8_t *frame_out, size_t *frame_len);

/* The plugin's field name of a layout member: prefix + "." + member
 * without '_' and array indices (docs/dissector.md). */
void dtest_field_name(char *out, size_t cap, const char *prefix,
		      const char *member);
/* Random values for every member of a layout (strings printable). */
void dtest_fill_layout(const struct mpd_layout *l, void *obj);
/* Expect every member of l in frame, as the occ-th instance of the
 * structure in that frame. */
void dtest_expect_layout(struct oracle *o, int frame,
			 const struct mpd_layout *l, const void *obj,
			 const char *prefix, unsigned int occ);
/* Expect the common MAD header fields of m. */
void dtest_expect_mad_hdr(struct oracle *o, int frame,
			  const struct mpd_mad_hdr *h);

#endif
