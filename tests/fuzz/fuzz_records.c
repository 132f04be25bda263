/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the capture record decoder (the common header, which
 * every reader of madpmd records goes through first): the input is one
 * record as an exported PDU carries it. The body handed back must lie in
 * the input and be as long as the header says. Bodies of a fixed layout
 * (CQ completion with its PSN, QP state change) are read as a reader of
 * docs/capture-format.md would and encoded again: the same bytes, the
 * reserved ones zero.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/records.h"
#include "madpmd/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
same_body(int rc, const uint8_t *out, const uint8_t *body, size_t len)
{
	if (rc == MPD_ERANGE)
		return;			/* a value the encoder refuses */
	if (rc != (int)(MPD_REC_HDR_LEN + len) ||
	    memcmp(out + MPD_REC_HDR_LEN, body, len) != 0)
		abort();
}

static void
wc_again(const struct mpd_rec_hdr *h, const uint8_t *b)
{
	uint8_t out[MPD_REC_HDR_LEN + MPD_REC_WC_LEN], want[MPD_REC_WC_LEN];
	struct mpd_rec_wc wc = {
		.cq_id = mpd_get_be32(b), .qp_num = mpd_get_be32(b + 4),
		.wr_id = mpd_get_be64(b + 8), .status = mpd_get_be32(b + 16),
		.opcode = mpd_get_be32(b + 20),
		.vendor_err = mpd_get_be32(b + 24),
		.byte_len = mpd_get_be32(b + 28),
		.imm_data = mpd_get_be32(b + 32),
		.src_qp = mpd_get_be32(b + 36),
		.wc_flags = mpd_get_be32(b + 40),
		.pkey_index = mpd_get_be16(b + 44),
		.slid = mpd_get_be16(b + 46), .sl = b[48],
		.dlid_path_bits = b[49], .psn = mpd_get_be32(b + 52),
	};

	memcpy(want, b, sizeof(want));
	want[50] = want[51] = 0;	/* reserved */
	same_body(mpd_rec_encode_wc(h, &wc, out, sizeof(out)), out, want,
		  sizeof(want));
}

static void
qp_again(const struct mpd_rec_hdr *h, const uint8_t *b)
{
	uint8_t out[MPD_REC_HDR_LEN + MPD_REC_QP_LEN];
	struct mpd_rec_qp q = {
		.qp_num = mpd_get_be32(b), .handle = mpd_get_be32(b + 4),
		.qp_type = b[8], .old_state = b[9], .new_state = b[10],
		.cause = b[11], .status = mpd_get_be32(b + 12),
		.psn = mpd_get_be32(b + 16), .dest_qp = mpd_get_be32(b + 20),
	};

	same_body(mpd_rec_encode_qp(h, &q, out, sizeof(out)), out, b,
		  MPD_REC_QP_LEN);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *body;
	struct mpd_rec_hdr h;
	size_t body_len;
	uint8_t *b = malloc(size ? size : 1);

	if (!b)
		return 0;
	memcpy(b, data, size);
	if (mpd_rec_decode_hdr(b, size, &h, &body, &body_len) == 0) {
		if (body < b + MPD_REC_HDR_LEN || body + body_len > b + size)
			abort();
		if (body_len && (body[0] | body[body_len - 1]) == 0x100)
			abort();		/* touch both ends */
		if (h.kind == MPD_REC_WC && body_len >= MPD_REC_WC_LEN)
			wc_again(&h, body);
		else if (h.kind == MPD_REC_QP && body_len >= MPD_REC_QP_LEN)
			qp_again(&h, body);
	}
	free(b);
	return 0;
}
