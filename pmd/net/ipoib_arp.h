/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPoIB's encapsulation header and ARP (RFC 4391 sections 6 and 4.1): a
 * 4-byte header (EtherType, reserved) before every IP or ARP packet, and
 * ARP with a 20-byte link-layer address, the sender's QPN and port GID.
 */
#ifndef HCA_NET_IPOIB_ARP_H
#define HCA_NET_IPOIB_ARP_H

#include <stdbool.h>
#include <stdint.h>

#define HCA_IPOIB_HDR		4
#define HCA_IPOIB_ARP_LEN	56	/* 8 + 2 * (20 + 4) */
#define HCA_IPOIB_ARPHRD	32	/* ARPHRD_INFINIBAND */
#define HCA_IPOIB_ET_IP4	0x0800
#define HCA_IPOIB_ET_ARP	0x0806

/* A link-layer address: flags (0), QPN, GID */
struct hca_ipoib_hw {
	uint32_t qpn;
	uint8_t gid[16];
};

struct hca_ipoib_arp {
	uint16_t op;			/* 1 request, 2 reply */
	struct hca_ipoib_hw sha, tha;
	uint8_t spa[4], tpa[4];
};

/* The header's EtherType, or 0 for a payload too short to hold one */
uint16_t hca_ipoib_type(const uint8_t *p, uint32_t len);
void hca_ipoib_put_hdr(uint8_t *p, uint16_t type);
/* An ARP packet after the header: true when it is one for IPv4 over IB */
bool hca_ipoib_arp_decode(const uint8_t *p, uint32_t len,
			  struct hca_ipoib_arp *a);
/* HCA_IPOIB_ARP_LEN bytes */
void hca_ipoib_arp_encode(const struct hca_ipoib_arp *a, uint8_t *p);

#endif
