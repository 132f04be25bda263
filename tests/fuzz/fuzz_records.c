/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the capture record decoder (the common header, which
 * every reader of madpmd records goes through first): the input is one
 * record as an exported PDU carries it. The body handed back must lie in
 * the input and be as long as the header says.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	}
	free(b);
	return 0;
}
