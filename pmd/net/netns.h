/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A node's own network namespace, made when a client first asks for it
 * (madpmd-run --net): one per node, holding a network device per port
 * that asked, with the port's MAC and IPv4 address. The device is a TAP
 * on a RoCE port, whose Ethernet frames the port carries beside RoCE
 * (netif.h), and a TUN on an IB port, whose IPv4 packets go as IPoIB
 * (ipoib.h); the daemon keeps its fd and the namespace's. The addresses
 * exist only in that namespace.
 *
 * Made by a child process (the daemon is threaded; unshare(2) of a user
 * namespace is for a process of one thread): as root a plain network
 * namespace, else one in a user namespace of the daemon's user, mapping
 * its uid to itself, which the daemon's user joins (madpmd-sysfs).
 */
#ifndef HCA_NET_NETNS_H
#define HCA_NET_NETNS_H

#include <stdbool.h>
#include <stdint.h>

#define HCA_NETNS_IFNAMSIZ	16

struct hca_netns_req {
	const char *node;		/* one namespace a node name */
	unsigned int port_num;
	bool roce;			/* a TAP (RoCE), else a TUN (IPoIB) */
	uint8_t mac[6];
	uint8_t ip4[4];
	unsigned int mtu;
};

/*
 * The port's device in the node's namespace (the namespace made first if
 * there is none): 0 with *dev (its fd, non-blocking) and ifname, or an
 * errno (nothing left open).
 */
int hca_netns_add_port(const struct hca_netns_req *r, int *dev,
		       char ifname[HCA_NETNS_IFNAMSIZ]);

/*
 * For a client joining the node's namespace: 0 with *ns (the network
 * namespace) and *user (its user namespace, -1 when it is the daemon's
 * own), each a new fd the caller closes; ENOENT when none was made.
 */
int hca_netns_fds(const char *node, int *ns, int *user);

#endif
