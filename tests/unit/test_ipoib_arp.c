/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPoIB's encapsulation header and ARP (pmd/net/ipoib_arp.c) against
 * RFC 4391's layout written out by hand: a request from QPN 2 of GID
 * fe80::10:1 at 10.77.1.2 for 10.77.1.3.
 */
#include <string.h>

#include "net/ipoib_arp.h"
#include "tap.h"

static const uint8_t request[HCA_IPOIB_HDR + HCA_IPOIB_ARP_LEN] = {
	0x08, 0x06, 0x00, 0x00,			/* EtherType ARP, reserved */
	0x00, 0x20, 0x08, 0x00, 20, 4, 0x00, 0x01,	/* hrd 32, IPv4, op 1 */
	0x00, 0x00, 0x00, 0x02,			/* sender: flags, QPN 2 */
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0x01,
	10, 77, 1, 2,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	10, 77, 1, 3,
};

int
main(void)
{
	struct hca_ipoib_arp a;
	uint8_t out[sizeof(request)];

	ok(hca_ipoib_type(request, sizeof(request)) == HCA_IPOIB_ET_ARP,
	   "the header's EtherType: ARP");
	ok(hca_ipoib_type(request, 3) == 0, "3 bytes: no header");
	ok(hca_ipoib_arp_decode(request + HCA_IPOIB_HDR, HCA_IPOIB_ARP_LEN,
				&a) &&
	   a.op == 1 && a.sha.qpn == 2 && a.sha.gid[0] == 0xfe &&
	   a.sha.gid[15] == 1 && !memcmp(a.spa, "\x0a\x4d\x01\x02", 4) &&
	   !memcmp(a.tpa, "\x0a\x4d\x01\x03", 4), "decoded: a request, QPN 2, GID, both addresses");
	hca_ipoib_put_hdr(out, HCA_IPOIB_ET_ARP);
	hca_ipoib_arp_encode(&a, out + HCA_IPOIB_HDR);
	ok(!memcmp(out, request, sizeof(out)), "encoded again: the same bytes");
	ok(!hca_ipoib_arp_decode(request + HCA_IPOIB_HDR,
				 HCA_IPOIB_ARP_LEN - 1, &a),
	   "a byte short: refused");
	memcpy(out, request, sizeof(out));
	out[HCA_IPOIB_HDR + 1] = 1;			/* Ethernet's hrd */
	ok(!hca_ipoib_arp_decode(out + HCA_IPOIB_HDR, HCA_IPOIB_ARP_LEN, &a),
	   "hardware type 1 (Ethernet): refused");
	memcpy(out, request, sizeof(out));
	out[HCA_IPOIB_HDR + 4] = 6;		/* a 6-byte hw address */
	ok(!hca_ipoib_arp_decode(out + HCA_IPOIB_HDR, HCA_IPOIB_ARP_LEN, &a),
	   "hardware address length 6: refused");
	memcpy(out, request, sizeof(out));
	out[HCA_IPOIB_HDR + 7] = 3;			/* RARP */
	ok(!hca_ipoib_arp_decode(out + HCA_IPOIB_HDR, HCA_IPOIB_ARP_LEN, &a),
	   "op 3: refused");
	return tap_done();
}
