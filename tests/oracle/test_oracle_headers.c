/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transport headers on every link, checked by tshark: LRH, GRH, BTH, DETH,
 * ImmDt, ICRC, VCRC, and the RoCE carriers (Ethernet, 802.1Q, IPv4 with
 * its checksum, IPv6 with the UDP checksum, UDP 4791). Random headers and
 * payloads of every pad count.
 */
#include <stdio.h>
#include <string.h>

#include "oracle.h"
#include "tap.h"

#define PER_LINK 24

int
main(void)
{
	static const enum mpd_link links[] = {
		MPD_LINK_IB, MPD_LINK_ROCE_V1, MPD_LINK_ROCE_V2,
	};
	static const char *const names[] = { "IB", "RoCEv1", "RoCEv2" };
	struct oracle *o;
	unsigned int l, i;

	tap_seed();
	o = oracle_new("headers");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	for (l = 0; l < 3; l++) {
		for (i = 0; i < PER_LINK; i++) {
			uint8_t payload[600];
			size_t len = 1 + (size_t)rnd_bits(9);
			struct mpd_pkt p;
			char label[64];
			int fr;

			/* QPs above 1: the payload is not a MAD */
			oracle_pkt_init(&p, links[l],
					2 + (uint32_t)rnd_bits(23),
					2 + (uint32_t)rnd_bits(23));
			if (i % 3 == 2)
				p.bth.opcode = MPD_OP_UD_SEND_ONLY_IMM;
			p.imm = (uint32_t)rnd64();
			rnd_bytes(payload, len);
			/* keep stock heuristics (EoIB claims a first byte
			 * of 0b11xxxxxx) off our random data */
			payload[0] &= 0x3f;
			snprintf(label, sizeof(label), "%s UD %zu bytes%s%s",
				 names[l], len, p.has_grh ? " +GRH" : "",
				 p.link == MPD_LINK_ROCE_V2 ?
				 (p.ip_ver == 4 ? " IPv4" : " IPv6") : "");
			fr = oracle_add_pkt(o, label, &p, payload, len);
			if (!fr)
				continue;
			if (p.bth.opcode == MPD_OP_UD_SEND_ONLY_IMM) {
				uint8_t be[4];

				mpd_put_be32(be, p.imm);
				oracle_expect_bytes(o, fr, "infiniband.immdt",
						    0, be, 4);
			}
			/* tshark shows the pad bytes as part of the data */
			memset(payload + len, 0, p.bth.pad_cnt);
			oracle_expect_bytes(o, fr, "data.data", 0, payload,
					    len + p.bth.pad_cnt);
		}
	}
	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
