/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPoIB (RFC 4391, datagram mode) for an IB port's network device in its
 * node's namespace (netns.h): the device is a TUN whose IPv4 packets the
 * port carries as UD sends of a QP the daemon owns, as a host's ib_ipoib
 * does. The port joins the IPv4 broadcast group OpenSM creates
 * (ff12:401b:ffff::ffff:ffff, an MCMemberRecord Set to the SA) and
 * resolves addresses by IPoIB ARP on it; unicast goes to the QPN and LID
 * the ARP gave. A TUN has no link layer: ARP is done here, not by the
 * kernel, and only IPv4 is carried (IPv6 needs neighbour discovery over
 * IPoIB, not done).
 *
 * Lcore, port lock held, except where said.
 */
#ifndef HCA_NET_IPOIB_H
#define HCA_NET_IPOIB_H

#include <stdbool.h>
#include <stdint.h>

#include "../mad/mad_layer.h"
#include "../node/node.h"
#include "../qp/qp.h"
#include "ipoib_arp.h"

#define HCA_IPOIB_QPN		2	/* the daemon's: below client QPNs */
#define HCA_IPOIB_MTU		2044	/* IB MTU 2048, the group's, less 4 */
#define HCA_IPOIB_NEIGH		64
#define HCA_IPOIB_PEND		8

struct hca_ipoib_neigh {
	bool used;
	uint8_t ip4[4];
	struct hca_ipoib_hw hw;
	uint16_t lid;
	uint64_t seen_ns;
};

/* An IP packet waiting for its destination's ARP reply */
struct hca_ipoib_pend {
	bool used;
	uint8_t ip4[4];
	uint16_t len;
	uint64_t since_ns, arp_ns;
	uint8_t buf[HCA_IPOIB_HDR + HCA_IPOIB_MTU];
};

enum hca_ipoib_state {
	HCA_IPOIB_DOWN,			/* not joined; next try at join_ns */
	HCA_IPOIB_JOINING,
	HCA_IPOIB_JOINED,
};

struct hca_ipoib {
	struct hca_mad_client mc;	/* its SA agent's */
	struct hca_mad_layer *ml;
	struct hca_port *port;
	int fd;				/* the TUN; -1 until started */
	bool attached;
	uint32_t agent;
	enum hca_ipoib_state state;
	uint64_t join_ns, now_ns;
	uint32_t tid;
	uint16_t sm_lid;		/* the SM it joined through */
	uint16_t mlid;
	uint32_t qkey;
	uint8_t sl;
	uint8_t mgid[16];
	uint32_t psn;
	struct hca_ipoib_neigh neigh[HCA_IPOIB_NEIGH];
	struct hca_ipoib_pend pend[HCA_IPOIB_PEND];
	uint64_t to_host, from_host, dropped;
};

/* Its MAD client's pools, before start: 0 or ENOMEM. No lock. */
int hca_ipoib_init(struct hca_ipoib *ip);
/* Port lock held: the TUN fd, and its SA agent on the port's MAD layer:
 * 0 or an errno (nothing attached) */
int hca_ipoib_start(struct hca_ipoib *ip, struct hca_port *p,
		    struct hca_mad_layer *ml, int fd);
/* Port lock held: detached (fd left to its owner) */
void hca_ipoib_stop(struct hca_ipoib *ip);
/* Its pools freed, once stopped. No lock. */
void hca_ipoib_fini(struct hca_ipoib *ip);

/* The join (and joining again when the port or its SM changed) */
void hca_ipoib_join_poll(struct hca_ipoib *ip, uint64_t now_ns,
			 struct hca_mad_out *mout);
/* Then ARPs sent again, and what the TUN has to send */
void hca_ipoib_poll(struct hca_ipoib *ip, uint64_t now_ns,
		    struct hca_v_out *out);
/* A data packet off the wire: true when it was IPoIB's alone (unicast
 * to its QPN); multicast to its group is taken and still false, so that
 * client QPs attached to the group get theirs */
bool hca_ipoib_input(struct hca_ipoib *ip, const struct mpd_pkt *pk,
		     uint64_t now_ns, struct hca_v_out *out);

#endif
