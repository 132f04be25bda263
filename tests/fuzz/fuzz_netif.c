/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: which Ethernet frames a RoCE port hands to its node's
 * network device, and which the device may send (pmd/net/netif.c); and
 * the same bytes as an IPoIB payload, its header and ARP (ipoib_arp.c).
 * Input: a frame as any peer on the wire, or a process in the namespace
 * with a raw socket, could make it. Besides no crash or read past the
 * frame: a frame the host may send is never one the port would take as
 * RoCE v2, and an ARP decoded, encoded and decoded again is the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/ipoib_arp.h"
#include "net/netif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t mac[6] = { 0x02, 0x00, 0x11, 0x22, 0x33, 0x44 };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact copy: ASan sees a read past the frame's end */
	uint8_t *f = malloc(size ? size : 1);
	bool host, mine;

	if (!f)
		return 0;
	memcpy(f, data, size);
	host = hca_netif_host_frame(f, (uint32_t)size);
	mine = hca_netif_for_host(f, (uint32_t)size, mac);
	/* for the host implies a host frame */
	if (mine && !host)
		abort();
	/* a host frame is never UDP to 4791 over IPv4 with a whole header */
	if (host && size >= 14 + 20 + 4 && f[12] == 0x08 && f[13] == 0x00 &&
	    f[14 + 9] == 17) {
		size_t l4 = 14 + (size_t)(f[14] & 0x0f) * 4;

		if (l4 + 4 <= size && f[l4 + 2] == 0x12 && f[l4 + 3] == 0xb7)
			abort();
	}
	/* as IPoIB: header, then ARP */
	if (hca_ipoib_type(f, (uint32_t)size) == HCA_IPOIB_ET_ARP) {
		struct hca_ipoib_arp a, b;
		uint8_t enc[HCA_IPOIB_ARP_LEN];

		if (hca_ipoib_arp_decode(f + HCA_IPOIB_HDR,
					 (uint32_t)size - HCA_IPOIB_HDR, &a)) {
			hca_ipoib_arp_encode(&a, enc);
			if (!hca_ipoib_arp_decode(enc, sizeof(enc), &b) ||
			    memcmp(&a, &b, sizeof(a)))
				abort();
		}
	}
	free(f);
	return 0;
}
