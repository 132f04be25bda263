/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's network device in its node's namespace (netns.h), as the
 * port's data path sees it: the fd the channel thread set (under the
 * port lock) once a client asked for the namespace, read by the lcore
 * for frames to send and written with the frames that came for the host.
 * On a RoCE port the frames are Ethernet (a TAP): ARP and IP beside
 * RoCE, on the same wire and in the same capture.
 */
#ifndef HCA_NET_NETIF_H
#define HCA_NET_NETIF_H

#include <stdbool.h>
#include <stdint.h>

#include "netns.h"

struct hca_netif {
	int fd;				/* -1: none; port lock */
	char ifname[HCA_NETNS_IFNAMSIZ];
	uint64_t to_host;		/* frames written to the device */
	uint64_t from_host;		/* frames it gave, sent */
	uint64_t dropped;		/* either way: no room, or refused */
};

/*
 * An Ethernet frame for the host's IP stack rather than the RoCE engine:
 * ARP, or IPv4/IPv6 that is not UDP to port 4791, to mac or to a group
 * address. A frame the host sends that is RoCE (a raw socket's) is
 * refused: the host's stack makes none, and a forged one would reach
 * another node's QPs.
 */
bool hca_netif_host_frame(const uint8_t *f, uint32_t len);
bool hca_netif_for_host(const uint8_t *f, uint32_t len, const uint8_t mac[6]);

#endif
