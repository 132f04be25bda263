/* SPDX-License-Identifier: BSD-3-Clause */
/* net_hca's private API, for applications that know they drive one. */
#ifndef RTE_PMD_HCA_H
#define RTE_PMD_HCA_H

#include <stdint.h>

struct rte_pmd_hca_port_info {
	char node_desc[64];
	uint64_t node_guid;
	uint64_t port_guid;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t port_num;
	uint8_t port_state;	/* IBA PortState: 1 Down .. 4 Active */
	uint8_t phys_state;	/* IBA PortPhysicalState: 5 LinkUp */
	uint8_t link_roce;	/* 0: native IB, 1: RoCEv2 */
	uint8_t active_mtu;	/* IB MTU enum: 1 256 .. 5 4096 */
	uint32_t cap_mask;
};

/*
 * The address table of a port: where a GID is (its GID 0, prefix + port
 * GUID, or its IPv4-mapped GID 1), so that umad sends with a GRH reach
 * the right MAC without asking the network, and rdma_cm resolves IPv4
 * addresses (on IB too). The launcher adds every port of its fabric to
 * every port of the same link type; a port always knows itself.
 */
struct rte_pmd_hca_neigh {
	uint8_t gid[16];
	uint8_t mac[6];
	uint8_t ip4[4];
};

/* The port's own entry. 0, -ENODEV or -ENOTSUP. */
int rte_pmd_hca_neigh_self(uint16_t port_id, struct rte_pmd_hca_neigh *n);
/* Add (or update, by GID) an entry. 0, -ENODEV, -ENOTSUP, -ENOMEM or
 * -ENOSPC (65,536 entries: the table grows as they come). */
int rte_pmd_hca_neigh_add(uint16_t port_id,
			  const struct rte_pmd_hca_neigh *n);

/*
 * How long an application that sleeps on the port's rx interrupt
 * (rte_eth_dev_rx_intr_enable()) may sleep: 1 (ms) while the port has
 * sends waiting for their response or RMPP transfers (their timers are
 * 1 ms grained), the ms until the CM's next timer (REQ, REP and DREQ
 * time-outs, timewait; at most 1000), -1 when only a frame or a client can
 * give it work (both ring the interrupt). -ENODEV or -ENOTSUP otherwise.
 */
int rte_pmd_hca_idle_ms(uint16_t port_id);

/*
 * The same to the nanosecond: in *at_ns the CLOCK_MONOTONIC time at which
 * an application sleeping on the port's rx interrupt must poll the port
 * again without a ring (0 or a past time: now; the end of an RNR wait or
 * a retransmission timer of a QP; a MAD-layer timer's next millisecond;
 * the CM's next timer), UINT64_MAX when only a frame or a client can give
 * it work. 0, or -ENODEV, -ENOTSUP or -EINVAL (at_ns NULL).
 */
int rte_pmd_hca_wake_at(uint16_t port_id, uint64_t *at_ns);

/*
 * 1 when a thread of one of the port's clients spins on its receive ring
 * on CPU cpu (the caller's own, from sched_getcpu()), waiting for an
 * answer that the caller, the port's lcore, would give if it ran: the
 * lcore then yields rather than polls or sleeps (the CPU is shared, even
 * if its run delay does not show it). 0 if not (or not known), -ENODEV
 * or -ENOTSUP.
 */
int rte_pmd_hca_client_spins_on(uint16_t port_id, int cpu);

/* 0, -ENODEV (no such port) or -ENOTSUP (not a net_hca port). */
int rte_pmd_hca_port_info_get(uint16_t port_id,
			      struct rte_pmd_hca_port_info *info);

/*
 * Whether anyone is at the other end of the port's cable (default: yes).
 * Without, the port is Down with PortPhysicalState Polling, as an IB port
 * whose link has no partner to train with; when one comes back the link
 * trains again: LinkUp and Init. A link taken down on purpose
 * (rte_eth_dev_set_link_down: Disabled) stays down. 0, -ENODEV or
 * -ENOTSUP.
 */
int rte_pmd_hca_carrier_set(uint16_t port_id, int on);

/*
 * The largest IB MTU (enum: 1 256 .. 5 4096) the port's cable carries: an
 * IB port's MTUCap and NeighborMTU are lowered to it (the SM then sets
 * paths through the port to fit), a RoCE port's active MTU too. Never
 * raised above what the port had. 0, -EINVAL (mtu not 1..5), -ENODEV or
 * -ENOTSUP.
 */
int rte_pmd_hca_mtu_limit(uint16_t port_id, uint8_t mtu);

/*
 * What comes into the port (its tx_burst) was encoded in this process (by
 * another net_hca port, or a switch or CA of the madpmd launcher), never
 * by an outside ethdev or a capture: its ICRC and VCRC are not checked
 * again (on: a cable in memory flips no bit; default off, every frame
 * checked). 0, -ENODEV or -ENOTSUP.
 */
int rte_pmd_hca_crc_ours(uint16_t port_id, int on);

/*
 * What the port sends (its rx_burst) goes to an application that makes
 * the CRCs of a frame before anyone else sees it (mpd_pkt_crc_fill(): a
 * capture, another process, a port that checks them), as the madpmd
 * launcher does: IB frames leave with their ICRC and VCRC zero, which
 * saves computing them for a port of the same process that does not
 * check them. Only while rte_pmd_hca_crc_ours() is on as well (the port's
 * own loopback takes them unchecked then); RoCE frames always carry
 * theirs. Default off. 0, -ENODEV or -ENOTSUP.
 */
int rte_pmd_hca_crc_lazy(uint16_t port_id, int on);

/*
 * 1 while a dpdk-dumpcap or dpdk-pdump callback sees what the port sends
 * or takes, else 0 (-ENODEV, -ENOTSUP). Meanwhile the port makes the CRCs
 * of everything it sends whatever rte_pmd_hca_crc_lazy() says, and the
 * application fills those of the frames it gives it.
 */
int rte_pmd_hca_crc_watched(uint16_t port_id);

/*
 * Capture records (docs/capture-format.md): umad messages as the port's
 * API clients saw them and port events, encoded (madpmd/records.h), for an
 * application that captures the fabric. Off by default; while on, records
 * queue in the port (up to 8192; beyond, dropped and counted in the
 * "rec_dropped" xstat) until taken.
 */
struct rte_pmd_hca_record {
	uint64_t ts_ns;		/* CLOCK_REALTIME, when it happened */
	uint32_t kind;		/* MPD_REC_UMAD, MPD_REC_PORT, ... */
	uint32_t len;		/* of data */
	uint8_t data[];		/* the record, common header first */
};

/* Start (on != 0) or stop making records. 0, -ENODEV or -ENOMEM. */
int rte_pmd_hca_records_enable(uint16_t port_id, int on);
/* Take up to n queued records; each to be freed with
 * rte_pmd_hca_record_free(). Returns how many. One consumer at a time. */
unsigned int rte_pmd_hca_records_dequeue(uint16_t port_id,
					 struct rte_pmd_hca_record **recs,
					 unsigned int n);
void rte_pmd_hca_record_free(struct rte_pmd_hca_record *r);

#endif
