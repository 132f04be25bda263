/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_hca internals: one ethdev is one HCA port. The ethdev's tx side is
 * the port's receiver (packets from the wire go into tx_burst), its rx side
 * the port's transmitter (what the port emits comes out of rx_burst).
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

#include "madpmd/wire.h"

extern int hca_logtype;
#define HCA_LOG(level, fmt, ...)					\
	rte_log(RTE_LOG_ ## level, hca_logtype, "net_hca: " fmt "\n",	\
		##__VA_ARGS__)

#define HCA_MAX_QUEUES		4
#define HCA_PKEY_TABLE_LEN	32
#define HCA_NODE_DESC_LEN	64
#define HCA_EGRESS_RING		4096

/* IBA 14.2.5.6 PortState / PortPhysicalState */
enum hca_port_state {
	HCA_PORT_NOP = 0,
	HCA_PORT_DOWN = 1,
	HCA_PORT_INIT = 2,
	HCA_PORT_ARMED = 3,
	HCA_PORT_ACTIVE = 4,
};

enum hca_phys_state {
	HCA_PHYS_SLEEP = 1,
	HCA_PHYS_POLLING = 2,
	HCA_PHYS_DISABLED = 3,
	HCA_PHYS_LINKUP = 5,
};

/* Port counters (IBA 16.1.3.5 and 16.1.4); data in 4-byte words. */
struct hca_counters {
	uint64_t symbol_errors;
	uint64_t link_error_recovery;
	uint64_t link_downed;
	uint64_t rcv_errors;		/* malformed, bad CRC, bad length */
	uint64_t rcv_remote_phys_errors;
	uint64_t rcv_switch_relay_errors;
	uint64_t xmit_discards;
	uint64_t xmit_constraint_errors;
	uint64_t rcv_constraint_errors;
	uint64_t local_link_integrity_errors;
	uint64_t excessive_buffer_overrun;
	uint64_t vl15_dropped;
	uint64_t xmit_wait;
	uint64_t xmit_data;
	uint64_t rcv_data;
	uint64_t xmit_pkts;
	uint64_t rcv_pkts;
	uint64_t unicast_xmit_pkts;
	uint64_t unicast_rcv_pkts;
	uint64_t multicast_xmit_pkts;
	uint64_t multicast_rcv_pkts;
	/* PortRcvErrorDetails (IBA 16.1.4): what rcv_errors is made of */
	uint64_t rcv_local_phys_errors;	/* bad ICRC/VCRC, link not up */
	uint64_t rcv_malformed_errors;	/* lengths, versions, headers, VL */
	uint64_t rcv_buffer_overruns;	/* no receive buffer holds it */
	/* PortInfo violation counters (IBA 14.2.5.6), 16 bits on the wire */
	uint64_t mkey_violations;
	uint64_t pkey_violations;
	uint64_t qkey_violations;
	/* drops by cause, for xstats */
	uint64_t drop_truncated;
	uint64_t drop_bad_icrc;
	uint64_t drop_bad_vcrc;
	uint64_t drop_bad_header;
	uint64_t drop_no_agent;
	uint64_t drop_egress_full;
	uint64_t drop_bad_dlid;		/* not one of our LIDs */
	/* RMPP transfers the MAD layer ran for clients (IBA 13.6) */
	uint64_t rmpp_sent;		/* messages sent whole */
	uint64_t rmpp_received;		/* messages reassembled */
	uint64_t rmpp_timeouts;		/* windows sent again */
	uint64_t rmpp_failed;		/* aborted, stopped or timed out */
	uint64_t rec_dropped;		/* capture records nobody took */
};

/* State of one HCA port: what its SMA reports and Set changes. */
struct hca_port {
	char node_name[HCA_NODE_DESC_LEN];
	char node_desc[HCA_NODE_DESC_LEN];
	enum mpd_link link;		/* MPD_LINK_IB or MPD_LINK_ROCE_V2 */
	uint64_t node_guid;
	uint64_t port_guid;
	uint64_t sys_guid;
	uint8_t port_num;
	uint8_t num_ports;
	uint16_t lid;
	uint8_t lmc;
	uint16_t sm_lid;
	uint8_t sm_sl;
	uint8_t port_state;		/* enum hca_port_state */
	uint8_t phys_state;		/* enum hca_phys_state */
	uint8_t admin_up;		/* link set up/down by the operator */
	uint32_t cap_mask;
	uint64_t gid_prefix;
	uint64_t mkey;
	uint8_t mkey_protect;		/* 2 bits */
	uint16_t mkey_lease;
	uint8_t subnet_timeout;
	uint8_t resp_time;
	uint8_t link_width_supported;
	uint8_t link_width_enabled;
	uint8_t link_width_active;
	uint8_t link_speed_supported;
	uint8_t link_speed_enabled;
	uint8_t link_speed_active;
	uint8_t mtu_cap;
	uint8_t neighbor_mtu;
	uint8_t vl_cap;
	uint8_t op_vls;
	uint16_t pkeys[HCA_PKEY_TABLE_LEN];
	uint8_t sl2vl[16];
	uint8_t vl_arb[4][64];		/* low, high blocks as on the wire */
	uint8_t vl_high_limit;
	uint8_t hoq_life;
	uint8_t mkey_lease_running;
	uint64_t mkey_lease_deadline;	/* TSC when protection lapses */
	struct rte_ether_addr mac;
	uint8_t ip4[4];
	uint8_t node_info[40];		/* NodeInfo as sent: it never changes */
	uint64_t trap_tid;
	struct hca_counters cnt;
};

struct hca_internals;

struct hca_queue {
	struct hca_internals *hi;
	struct rte_mempool *mp;
	uint64_t pkts;
	uint64_t bytes;
};

struct hca_umad_srv;

/* A counter as a field of that many bits shows it: stuck at its maximum
 * (IBA 16.1.3.5: counters saturate rather than wrap). */
static inline uint64_t
hca_sat(uint64_t v, unsigned int bits)
{
	uint64_t max = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;

	return v > max ? max : v;
}

/* PortXmitData/PortRcvData of a frame of len bytes, in 4-byte words (IBA
 * 16.1.3.5): on IB the octets from the LRH to the ICRC, VCRC excluded;
 * on RoCE the whole frame. */
static inline uint32_t
hca_data_words(enum mpd_link link, uint32_t len)
{
	if (link == MPD_LINK_IB)
		return len > MPD_VCRC_LEN ? (len - MPD_VCRC_LEN + 3u) / 4 : 0;
	return (len + 3u) / 4;
}

/* What the last port event record said (hca_records.c) */
struct hca_rec_port_state {
	uint8_t state;
	uint8_t lmc;
	uint8_t sm_sl;
	uint8_t is_sm;
	uint16_t lid;
	uint16_t sm_lid;
};

struct hca_internals {
	struct hca_port port;
	struct hca_umad_srv *srv;	/* client channel, when run_dir= */
	char run_dir[256];
	unsigned int umad_mode;		/* permissions of socket and ISSM */
	rte_spinlock_t lock;		/* guards port state for Sets */
	struct rte_ring *egress;	/* responses waiting for rx_burst */
	struct hca_queue rxq[HCA_MAX_QUEUES];
	struct hca_queue txq[HCA_MAX_QUEUES];
	uint16_t port_id;
	bool started;
	bool promisc;
	/* capture records, while the application asks for them */
	volatile bool rec_on;
	struct rte_ring *rec_ring;
	uint32_t rec_seq;
	struct hca_rec_port_state rec_last;
};

/* Ingress: a frame from the wire, in buf/len. Returns the response length
 * written back into buf (<= cap) when the port answers, 0 when it does
 * not (counted), never more than cap. */
int hca_port_input(struct hca_internals *hi, uint8_t *buf, uint16_t len,
		   uint16_t cap);

/* What the SMA makes of an SMP rewritten in place */
enum hca_reply {
	HCA_NO_REPLY = 0,
	HCA_REPLY = 1,		/* the response, back to the requester */
	HCA_TRAP = 2,		/* a Trap, LID-routed to the master SM */
};

/* SMA / PMA: mad is a 256-byte MAD, rewritten in place as the response. */
enum hca_reply hca_sma_handle(struct hca_port *p, uint8_t *mad,
			      const struct mpd_pkt *pkt);
bool hca_pma_handle(struct hca_port *p, uint8_t *mad);
/* Prepare what the SMA sends unchanged (NodeInfo); at probe. */
void hca_sma_init(struct hca_port *p);
/* The link's data rate: lane speed x width, in Mb/s */
uint32_t hca_port_rate_mbps(const struct hca_port *p);
/* PortInfo:CapabilityMask as the port reports it */
uint32_t hca_sma_cap_mask(const struct hca_port *p);

/* ---- capture records (hca_records.c); hi->lock held ---- */

struct hca_session;
/* A umad message a client sent (MPD_REC_UMAD_SEND) or will read
 * (MPD_REC_UMAD_RECV): its 64-byte ib_user_mad header and the MAD. */
void hca_rec_umad(struct hca_internals *hi, const struct hca_session *s,
		  uint8_t direction, const void *hdr, const uint8_t *mad,
		  uint32_t len);
/* A port event record when state, LIDs, SM or IsSM changed since the last
 * one. Call after anything that may change them. */
void hca_rec_port_check(struct hca_internals *hi);
/* Drop what is queued and the ring (port close). */
void hca_records_release(struct hca_internals *hi);
/* The net_hca port behind an ethdev port id; NULL when it is none. */
struct hca_internals *hca_of_port(uint16_t port_id);

/* ---- the client channel and MAD layer (umad_srv.c, mad_layer.c) ---- */

/* Start/stop the control plane: socket, ISSM FIFO, control thread. */
int hca_umad_srv_start(struct hca_internals *hi);
void hca_umad_srv_stop(struct hca_internals *hi);
/* Receive side: a MAD (payload of pk, whole) no port agent took. Returns
 * true when it went to a client. Called with hi->lock held. */
bool hca_mad_deliver(struct hca_internals *hi, const struct mpd_pkt *pk,
		     const uint8_t *mad, uint32_t len);
/* Send side: drain the clients' send rings into frames, at most n, in
 * mbufs from mp; also runs send time-outs. Called with hi->lock held. */
uint16_t hca_mad_send_burst(struct hca_internals *hi, struct rte_mempool *mp,
			    struct rte_mbuf **bufs, uint16_t n);
/* True when a client agent wants SMPs of this method/attribute (an SM
 * registered on the port answers SMInfo). hi->lock held. */
bool hca_mad_smp_for_agent(struct hca_internals *hi, const uint8_t *mad);

#endif
