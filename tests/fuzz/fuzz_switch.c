/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: a switch node (pmd/node/switch*.c, no DPDK) fed frames
 * on its ports, as the fabric hands them over: hca_switch_rx() checks,
 * forwards by the LFT and MFT, walks directed routes, answers its SMA and
 * PMA in place. Input:
 *   byte 0: which of ports 1..8 are Active (the others Init)
 *   byte 1: bit 0, clients on port 0 (an SM there, claiming SMInfo);
 *           the rest LinearFDBTop / 4 (0: not set)
 *   then frames of 1 byte (the port it comes in on, mod 9; 0: sent by
 *   port 0's clients through hca_switch_from_port0(), or port 1 without
 *   them) + 2 bytes (length, little-endian) + that many bytes; state
 *   carries over from frame to frame (an SMP Set programs the tables),
 *   and every 16th frame asks for trap 128 and, IsSM flipped, trap 144.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/mad.h"
#include "node/node.h"
#include "node/switch.h"

#define PORTS	8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
claims(void *arg, const uint8_t *mad)
{
	(void)arg;
	return mpd_mad_attr_id(mad) == MPD_ATTR_SM_INFO;
}

static const struct hca_switch_port0 p0c = { claims, NULL };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hca_switch sw;
	uint8_t out[PORTS + 1], trap[512];
	uint64_t now = 1000000000ull;
	unsigned int n, i, frames = 0;
	uint16_t len, tlen;
	uint8_t *buf, in;

	if (size < 2 ||
	    hca_switch_init(&sw, PORTS, 0x6d61640000000a00ull, "fuzz switch",
			    1024, 64) != 0)
		return 0;
	sw.port[0].lid = 5;
	sw.port[0].sm_lid = 1;
	sw.lft_top = (uint16_t)((data[1] & ~1u) * 4u);
	if (data[1] & 1)
		sw.p0c = &p0c;
	for (i = 1; i <= PORTS; i++) {
		hca_switch_link(&sw, (uint8_t)i, true);
		if (data[0] & (1u << (i - 1)))
			sw.port[i].port_state = HCA_PORT_ACTIVE;
		sw.lft[i] = (uint8_t)i;
	}
	sw.lft[1] = 1;
	data += 2;
	size -= 2;
	while (size >= 3) {
		in = (uint8_t)(data[0] % (PORTS + 1));
		len = (uint16_t)(data[1] | data[2] << 8);
		data += 3;
		size -= 3;
		if (len > size)
			len = (uint16_t)size;
		/* exactly the frame's bytes, so that ASan sees overruns: a
		 * response is never longer than its request */
		buf = malloc(len ? len : 1);
		if (!buf)
			break;
		memcpy(buf, data, len);
		data += len;
		size -= len;
		now += 1000000;
		if (in == 0 && sw.p0c)
			n = hca_switch_from_port0(&sw, buf, &len, len, now, out,
						  sizeof(out));
		else
			n = hca_switch_rx(&sw, in ? in : 1, buf, &len, len, now,
					  out, sizeof(out));
		if (n > sizeof(out))
			abort();
		/* port 0 only for clients there */
		for (i = 0; i < n; i++)
			if (out[i] > PORTS || (out[i] == 0 && !sw.p0c))
				abort();
		free(buf);
		if (++frames % 16 == 0) {
			n = hca_switch_trap_link(&sw, trap, sizeof(trap), &tlen,
						 out);
			if (n > 1 || (n && (out[0] > PORTS ||
					    tlen > sizeof(trap))))
				abort();
			sw.port[0].cap_mask ^= MPD_PORT_CAP_IS_SM;
			n = hca_switch_trap_cap(&sw, trap, sizeof(trap), &tlen,
						out);
			if (n > 1 || (n && (out[0] > PORTS ||
					    tlen > sizeof(trap))))
				abort();
		}
	}
	hca_switch_fini(&sw);
	return 0;
}
