/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the daemon's side of a client's send ring (lib/chan
 * ring.c, the consumer), with the client as the attacker: it owns data[]
 * and the head index in shared memory. Input:
 *   the ring's 1024 data bytes (what is there is taken, the rest zero),
 *   then steps of 1 byte op + 10 bytes:
 *     op bit 0: head = head + le16(arg) (any value, aligned or not)
 *     op bit 1: 8 bytes written into data[] at le16(arg + 2) % size
 *     op bit 2: head = le64 of the 8 bytes (wherever it points)
 *     then up to 4 records are peeked and consumed
 * Every record handed out must lie inside data[]; after -EBADMSG the
 * daemon would cut the client off, so the run ends.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SIZE	1024u
#define STEP	11

static uint64_t
le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mpd_chan_ring *r = malloc(sizeof(*r) + SIZE);
	struct mpd_ring_view v;
	const uint8_t *rec;
	uint32_t len, kind;
	size_t n = size < SIZE ? size : SIZE;
	int i, rc;

	if (!r)
		return 0;
	if (mpd_ring_init(r, SIZE) || mpd_ring_attach(&v, r, SIZE))
		abort();
	memset(r->data, 0, SIZE);
	memcpy(r->data, data, n);
	data += n;
	size -= n;
	for (; size >= STEP; data += STEP, size -= STEP) {
		uint8_t op = data[0];

		if (op & 1)
			r->head += le(data + 1, 2);
		if (op & 2)
			memcpy(r->data + (le(data + 3, 2) % (SIZE - 7)),
			       data + 3, 8);
		if (op & 4)
			r->head = le(data + 3, 8);
		for (i = 0; i < 4; i++) {
			rc = mpd_ring_peek(&v, &rec, &len, &kind);
			if (rc == 0)
				break;
			if (rc < 0) {
				if (rc != -EBADMSG)
					abort();
				goto out;
			}
			if (rec < r->data || len > SIZE ||
			    rec + len > r->data + SIZE)
				abort();
			mpd_ring_consume(&v);
			if (r->tail & 7 || r->tail > r->head)
				abort();
		}
		(void)mpd_ring_empty(&v);
	}
out:
	free(r);
	return 0;
}
