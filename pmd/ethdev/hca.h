/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_hca's ethdev glue: one ethdev is one HCA port, composed of the
 * node's port (node/), its MAD layer (mad/), its client channel (chan/)
 * and its capture records (capture/). The ethdev's tx side is the port's
 * receiver (packets from the wire go into tx_burst), its rx side the
 * port's transmitter (what the port emits comes out of rx_burst).
 */
#ifndef NET_HCA_H
#define NET_HCA_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "../capture/records.h"
#include "../chan/chan.h"
#include "../mad/mad_layer.h"
#include "../net/netif.h"
#include "../node/node.h"
#include "../qp/qp.h"

extern int hca_logtype;
#define HCA_LOG(level, fmt, ...)					\
	rte_log(RTE_LOG_ ## level, hca_logtype, "net_hca: " fmt "\n",	\
		##__VA_ARGS__)

#define HCA_MAX_QUEUES		4
#define HCA_EGRESS_RING		4096

struct hca_internals;

struct hca_queue {
	struct hca_internals *hi;
	struct rte_mempool *mp;
	uint64_t pkts;
	uint64_t bytes;
};

struct hca_internals {
	struct hca_port port;		/* the node's port */
	struct hca_mad_layer ml;
	struct hca_verbs verbs;		/* QPs, CQs, MRs */
	struct hca_chan *chan;		/* when run_dir= */
	struct hca_cm *cm;		/* IB CM and rdma_cm ids */
	struct hca_recorder rec;
	struct hca_netif netif;		/* in the node's network namespace */
	struct hca_ipoib ipoib;		/* IB: what carries netif's packets */
	struct rte_ether_addr mac;	/* the ethdev's copy of port.mac */
	char run_dir[256];
	unsigned int umad_mode;		/* permissions of socket and ISSM */
	/* guards the port, MAD layer and sessions: lcores against the
	 * channel's control thread and the ethdev ops */
	rte_spinlock_t lock;
	struct rte_ring *egress;	/* responses waiting for rx_burst */
	struct rte_ring *loop;		/* frames to the port itself */
	/* rx interrupts: one epoll set for every queue, of our eventfd and
	 * the sessions' doorbells, which clients ring when they queue a send
	 * while the lcore sleeps */
	struct rte_intr_handle *intr;
	struct hca_doorbells db;
	/* the last poll found nothing for the clients and timers to do
	 * (port_quiet()); cleared by a frame from the wire */
	struct hca_chan_quiet quiet;
	struct hca_queue rxq[HCA_MAX_QUEUES];
	struct hca_queue txq[HCA_MAX_QUEUES];
	uint16_t port_id;
	/* rte_pmd_hca_crc_lazy(): port.crc_lazy follows it while no
	 * dpdk-dumpcap callback watches the port (hca_crc_watched()) */
	bool crc_lazy;
	bool started;
	bool no_carrier;	/* nobody at the other end of the cable */
	bool promisc;
	bool link_told;		/* the link status ethdev last showed */
	bool disabled_told;	/* and whether the port was Disabled */
};

/* The ethdev link is up when the IB port is logically up: a port in
 * Init/Armed moves only SMPs, like a real HCA */
static inline bool
hca_link_up(const struct hca_port *p)
{
	return p->phys_state == HCA_PHYS_LINKUP &&
	       p->port_state >= HCA_PORT_INIT;
}

/* Lock held: the link went up or down, or the port was disabled or
 * enabled, since ethdev was last told */
static inline bool
hca_link_moved(const struct hca_internals *hi)
{
	return hca_link_up(&hi->port) != hi->link_told ||
	       (hi->port.phys_state == HCA_PHYS_DISABLED) != hi->disabled_told;
}

struct rte_eth_dev;
struct rte_eth_link;

/* hca_link.c: the ethdev link of port p */
void hca_link_fill(const struct hca_port *p, struct rte_eth_link *l);
/* ethdev's link_update op: lock not held; 0 when the status moved */
int hca_link_update(struct rte_eth_dev *dev, int wait);
/* Lock not held: ethdev's link status, and RTE_ETH_EVENT_INTR_LSC to the
 * application when it moved, as a NIC's link interrupt (a `set link`, a
 * carrier lost or back, an SM's Set(PortInfo) disabling the port); also
 * when a disabled port is enabled again (Polling), whose link is still
 * down but may train now */
void hca_link_event(struct hca_internals *hi);

/* No lock: as quiet as the last locked look found it (hi->quiet) */
static inline bool
hca_still_quiet(const struct hca_internals *hi)
{
	return hi->chan && hca_chan_still_quiet(&hi->quiet, hi->chan);
}

/* A dpdk-dumpcap or dpdk-pdump callback sees what the port sends or
 * takes (any queue): whole frames only, no CRCs left to the application */
bool hca_crc_watched(const struct hca_internals *hi);
/* Lock held: port.crc_lazy, CRCs left zero while the application asks for
 * it (rte_pmd_hca_crc_lazy()) and no dpdk-dumpcap looks */
void hca_crc_lazy_update(struct hca_internals *hi);

/* The net_hca port behind an ethdev port id; NULL when it is none. */
struct hca_internals *hca_of_port(uint16_t port_id);

uint16_t hca_rx_burst(void *q, struct rte_mbuf **bufs, uint16_t n);
uint16_t hca_tx_burst(void *q, struct rte_mbuf **bufs, uint16_t n);
/* A secondary process sees the port's ethdev, not its heap: no bursts. */
uint16_t hca_burst_none(void *q, struct rte_mbuf **bufs, uint16_t n);

#endif
