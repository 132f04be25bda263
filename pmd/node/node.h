/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node layer: one IB node's state (a CA now, a switch next) and its
 * own agents. Nothing here knows DPDK, a clock, a lock or a client: the
 * SMA and PMA are functions of the port's state and the MAD's bytes (the
 * caller passes the time), so they are tested without an EAL. The layers
 * above (the MAD layer, the channel, the ethdev glue) include this one;
 * it includes none of them.
 */
#ifndef NET_HCA_NODE_H
#define NET_HCA_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "madpmd/wire.h"

#define HCA_PKEY_TABLE_LEN	32
/* a port's address table: the fabric's CA ports (every daemon's, when
 * split: 8,748 of another three quarters of the 11,664-host tree) */
#define HCA_NEIGH_MAX		65536
#define HCA_NODE_DESC_LEN	64

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
/* Where a GID is on a RoCE fabric: the fabric's own address table, so that
 * nothing is ever asked of the network (no ARP, no ND). */
struct hca_neigh {
	uint8_t gid[16];		/* the port's GID 0: prefix + port GUID */
	uint8_t mac[6];
	uint8_t ip4[4];			/* its GID 1 is ::ffff:ip4 */
};

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
	/* the MAD layer and the client channel */
	uint64_t mad_unmatched;		/* Get/Set no agent serves: 0x000C */
	uint64_t chan_ring_full;	/* MADs a client's full ring refused */
	uint64_t chan_quota;		/* sends over a client's share */
	uint64_t chan_requests;		/* control requests served (HELLO,
					 * umad, verbs, rdma_cm) */
	/* the QP layer (qp/) */
	uint64_t qp_pkts_in;		/* data packets for QPs above 1 */
	uint64_t qp_pkts_out;
	uint64_t qp_duplicates;		/* RC packets behind the PSN */
	uint64_t qp_seq_naks;		/* sequence errors NAKed or heard */
	uint64_t qp_rnr_naks_sent;	/* RNR NAKs the responder sent */
	uint64_t qp_rnr_naks_rcvd;	/* ... the requester heard */
	uint64_t qp_rnr_retry_exc;	/* WRs done with RNR_RETRY_EXC_ERR */
	uint64_t qp_retransmits;	/* time-outs that sent again */
	uint64_t qp_no_qp;		/* for no QP in a state to take it */
	uint64_t qp_bad_wqes;		/* WRs a client wrote wrong */
	uint64_t cq_overruns;
};

/* State of one HCA port: what its SMA reports and Set changes. */
struct hca_port {
	char node_name[HCA_NODE_DESC_LEN];
	char node_desc[HCA_NODE_DESC_LEN];
	enum mpd_link link;		/* MPD_LINK_IB or MPD_LINK_ROCE_V2 */
	/* the other end of the cable is a port of this process's, whose
	 * frames carry CRCs its own encoder made: not checked again (a
	 * cable in memory flips no bit); a wire from outside always is */
	bool crc_ours;
	/* what the port sends goes where its CRCs are made when needed
	 * (the launcher: mpd_pkt_crc_fill()): IB frames leave with theirs
	 * zero, when crc_ours says its own loopback takes them unchecked */
	bool crc_lazy;
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
	/* a switch external port's PartitionEnforcementInbound/Outbound, as
	 * the SM set them (a CA port always checks what it receives) */
	uint8_t pkey_enforce_in;
	uint8_t pkey_enforce_out;
	uint8_t mkey_lease_running;
	uint64_t mkey_lease_deadline;	/* ns when protection lapses */
	uint8_t mac[6];
	uint8_t ip4[4];
	uint8_t node_info[40];		/* NodeInfo as sent: it never changes */
	uint64_t trap_tid;
	uint32_t cap_told;		/* CapabilityMask as the SM last heard
					 * it (trap 144 when it moves) */
	struct hca_neigh *neigh;	/* RoCE: the fabric's ports, nneigh */
	uint32_t nneigh;
	uint32_t neigh_cap;		/* neigh's room, grown as needed */
	struct hca_counters cnt;
};

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

/* What the node makes of a MAD for its own agents, rewritten in place */
enum hca_reply {
	HCA_NO_REPLY = 0,	/* taken, nothing to answer */
	HCA_REPLY = 1,		/* the response, back to the requester */
	HCA_TRAP = 2,		/* a Trap, LID-routed to the master SM */
	HCA_NOT_MINE = 3,	/* not for the SMA or the PMA */
};

/* ---- the port's receive checks (port.c) ---- */

/* What a frame off the wire is, once the port has checked it */
enum hca_rx {
	HCA_RX_DROP = 0,	/* dropped, counted by cause */
	HCA_RX_MAD = 1,		/* a MAD on QP0/QP1: *mad points into buf */
	HCA_RX_DATA = 2,	/* for a QP above 1 (the QP layer's) */
};

/* A frame off the wire, decoded and checked (IBA 7.6.5 VL15/QP0, 7.11.1
 * DLID, 10.9.3 P_Key on QP1, 10.2.4 Q_Key, a 256-byte MAD on QP0/QP1;
 * the ICRC and VCRC unless p->crc_ours). promisc: a RoCE port takes
 * frames for other MACs. */
enum hca_rx hca_port_rx(struct hca_port *p, uint8_t *buf, uint16_t len,
			bool promisc, struct mpd_pkt *pk, uint8_t **mad);
/* Turn a received packet's headers around for a response from qp. */
void hca_port_reverse(const struct hca_port *p, struct mpd_pkt *pk,
		      uint32_t qp);
/* The P_Key table index of pkey (its base), 0 when absent. */
uint16_t hca_port_pkey_index(const struct hca_port *p, uint16_t pkey);
/* True when one of the port's P_Keys matches pkey (IBA 10.9.3). */
bool hca_port_pkey_ok(const struct hca_port *p, uint16_t pkey);
/* True when dlid is one of the port's LIDs (LID .. LID + 2^LMC - 1). */
bool hca_port_owns_lid(const struct hca_port *p, uint16_t dlid);
/* The neighbour a RoCE GID names (its GID 0, prefix + port GUID, or its
 * IPv4-mapped GID 1), the port itself included: true with *n filled. */
bool hca_port_resolve(const struct hca_port *p, const uint8_t gid[16],
		      struct hca_neigh *n);
/* An IPv4-mapped GID (RFC 4291 2.5.5.2): a RoCEv2 port's GID 1, whose
 * packets go over IPv4 */
bool hca_gid_ip4_mapped(const uint8_t gid[16]);
/* An IPv4 address as a GID: ::ffff:a.b.c.d (RoCEv2, IBA A17.4.5.1) */
void hca_gid_from_ip4(const uint8_t ip4[4], uint8_t gid[16]);
/* A multicast group's GID, as rdma_is_multicast_addr() says: an IPv4
 * group (224.0.0.0/4) mapped, or ff00::/8 */
bool hca_gid_multicast(const uint8_t gid[16]);
/* The Ethernet group MAC of a RoCE multicast GID's IP group */
void hca_gid_group_mac(const uint8_t gid[16], uint8_t mac[6]);
/* The port's own entry in an address table. */
void hca_port_neigh(const struct hca_port *p, struct hca_neigh *n);
/* A DR SMP (class 0x81) the port received, by IBA 14.2.2.2 at an end
 * port (C14-9:3-4, C14-13:3-4): the pointer moved, the return path noted;
 * false when it must be dropped. */
bool hca_port_dr_recv(const struct hca_port *p, uint8_t *mad);
/* The pointer of the response to such a request as it leaves (C14-13:1). */
void hca_port_dr_reply(uint8_t *mad);
/* Count one frame the port sends, of len bytes (IBA 16.1.3.5). */
/* PortPhysicalState Disabled (off: Down, LinkDownedCounter when the link
 * was up), or enabled again: Polling until the link trains. Returns
 * whether anything changed. */
bool hca_port_disable(struct hca_port *p, bool off);
/*
 * Moves of any port's PortPhysicalState in the process, counted: whoever
 * changes one calls hca_link_changed() after (link.c and switch.c do), and
 * the launcher looks at its cables' ends again only when the count moved,
 * not 70,000 ports every 10 ms of a three-level fat tree.
 */
extern uint32_t hca_link_changes;

static inline void
hca_link_changed(void)
{
	__atomic_add_fetch(&hca_link_changes, 1, __ATOMIC_RELEASE);
}
/* The IB MTU (enum: 1 256 .. 5 4096) a RoCE port's Ethernet MTU carries:
 * what is left after RoCEv2's headers (GRH, UDP, BTH, the largest
 * extended header, ICRC: rdma-core's and the kernel's iboe_get_mtu()),
 * rounded down; 0 when not even 256 fits. */
uint8_t hca_roce_mtu(uint32_t eth_mtu);
/* The IB MTU (enum) whose packets, with the most headers one can have
 * (LRH, GRH, BTH, AtomicETH, ICRC, VCRC), fit in frame bytes; 0: none */
uint8_t hca_ib_frame_mtu(uint32_t frame);
/* A port whose link carries packets of at most IB MTU m (enum): its
 * MTUCap, and the NeighborMTU it starts with, lowered to m (PortInfo,
 * IBA 14.2.5.6), so that the SM sets paths through it no larger */
void hca_port_mtu_limit(struct hca_port *p, uint8_t m);
/* Whether a partner is at the other end of the cable: without, Down and
 * Polling; when it comes back, a Polling port trains (LinkUp, up_state).
 * A disabled port stays so. */
void hca_port_carrier(struct hca_port *p, bool on, uint8_t up_state);
void hca_port_count_xmit(struct hca_port *p, uint32_t len);
/* A frame received (PMA's PortRcv counters, IBA 16.1.3.5) */
void hca_port_count_rcv(struct hca_port *p, uint32_t len, bool multicast);
/* Undo hca_port_count_xmit() for a frame that could not leave after all. */
void hca_port_uncount_xmit(struct hca_port *p, uint32_t len);

/* The frame of the answer (r: HCA_REPLY, or HCA_TRAP LID-routed to the
 * master SM) the agents made in place of the request pk carried: its
 * headers turned around, encoded into buf (cap bytes; mad may lie in buf
 * already). Its length, or 0, counted as a PortXmitDiscard, when it does
 * not fit. */
uint16_t hca_port_answer(struct hca_port *p, struct mpd_pkt *pk,
			 const uint8_t *mad, enum hca_reply r, uint8_t *buf,
			 uint16_t cap);

/*
 * The port's own agents (IBA 13.5.2): Get/Set SMPs on QP0 go to the SMA,
 * Get/Set PerfMgt MADs on QP1 to the PMA; anything else is HCA_NOT_MINE.
 * mad is a whole 256-byte MAD, answered in place. now_ns: a monotonic
 * clock, for M_Key leases.
 */
enum hca_reply hca_node_agent(struct hca_port *p, uint32_t qp, uint8_t *mad,
			      const struct mpd_pkt *pk, uint64_t now_ns);

/* A Get or Set that no agent serves: answered at once with status 0x000C
 * (IBA 13.4.7.2; the Linux MAD layer's generate_unmatched_resp()). */
enum hca_reply hca_node_unmatched(struct hca_port *p, uint8_t *mad);
/* A CA port as a new device is: one port, Down, 4x QDR, MTU 4096, the
 * default P_Key, GUIDs, MAC and IPv4 address from a hash of name. */
void hca_port_defaults(struct hca_port *p, const char *name);

/* ---- a CA port that no client opens (ca_rx.c) ---- */

/*
 * The frame buf (len bytes, cap bytes of room) came in on CA port p,
 * which has no MAD layer above it: its SMA and PMA answer (IBA 13.5.2),
 * a Get or Set nobody serves gets status 0x000C, anything else is dropped
 * and counted. True when buf now holds the response (*len updated), to
 * go back out of p; it is counted as sent.
 */
bool hca_ca_rx(struct hca_port *p, uint8_t *buf, uint16_t *len, uint16_t cap,
	       uint64_t now_ns);

/* ---- SMA and PMA (sma.c, pma.c) ---- */

/* mad is a 256-byte MAD, rewritten in place as the response. */
enum hca_reply hca_sma_handle(struct hca_port *p, uint8_t *mad,
			      const struct mpd_pkt *pkt, uint64_t now_ns);
bool hca_pma_handle(struct hca_port *p, uint8_t *mad);
/* Prepare what the SMA sends unchanged (NodeInfo); at probe. */
void hca_sma_init(struct hca_port *p);

/* What the CA's SMA and a switch's SMA share (sma.c), on one port. */
struct mpd_mad;
struct mpd_port_info;
struct mpd_node_info;
struct mpd_notice;
/* NodeInfo's fields that are the product's, not the node's (versions,
 * PartitionCap, VendorID, DeviceID, Revision), and the node type; the
 * rest zeroed for the caller (IBA 14.2.5.3). */
void hca_sma_node_info_init(struct mpd_node_info *ni, uint8_t node_type);
/*
 * A Trap(Notice) SMP from p's SMA (IBA 13.4.8.2, 14.2.5.1): n encoded
 * into mad (MPD_MAD_LEN bytes) with p's next trap TID and its M_Key, the
 * Notice up to IssuerGID. 0 or -1. Shared by the CA's traps and the
 * switch's (port 0).
 */
int hca_sma_trap(struct hca_port *p, const struct mpd_notice *n, uint8_t *mad);
/* A generic Notice of this type (1 urgent, 2 security, 4 informational),
 * producer NodeType, trap number and IssuerLID; DataDetails zeroed. */
void hca_sma_notice(struct mpd_notice *n, uint8_t type, uint8_t producer,
		    uint16_t number, uint16_t issuer_lid);
/* The headers of p's Trap: LID-routed on VL15 from p to its SM, QP0. */
void hca_sma_trap_pkt(const struct hca_port *p, struct mpd_pkt *pk);
/*
 * Trap 144, Local Changes (IBA 14.2.5.1, 14.3.11 in the OPA spec's
 * numbering): when p's CapabilityMask moved since the SM last heard it
 * (a client took or gave back the ISSM: IsSM), a Trap of the new mask into
 * mad and its frame's headers into pk (LID-routed on VL15 to the master
 * SM). true when there is one to send; a change while the port has no SM
 * to tell is noted and not sent (the SM reads PortInfo when it comes).
 */
bool hca_sma_cap_trap(struct hca_port *p, struct mpd_pkt *pk, uint8_t *mad);
/* The same from a node of that type (a switch's port 0: MPD_NODE_TYPE_SWITCH) */
bool hca_sma_cap_trap_by(struct hca_port *p, uint8_t producer,
			 struct mpd_pkt *pk, uint8_t *mad);
/* Trap 256, Bad M_Key, for the SMP m (read from mad, which the Trap then
 * replaces), sent by a node of that NodeType from port p. */
void hca_sma_bad_mkey_trap(struct hca_port *p, uint8_t *mad,
			   const struct mpd_mad *m, uint16_t requester_lid,
			   uint8_t producer_type);
/* M_Key check (IBA 14.2.4.1-3): false when the SMP must not be answered;
 * *hide when a Get is answered with the M_Key hidden. */
bool hca_sma_mkey_ok(struct hca_port *p, const struct mpd_mad *m,
		     uint64_t now_ns, bool *hide);
void hca_sma_port_info_get(const struct hca_port *p, struct mpd_port_info *pi,
			   bool hide_mkey);
/* Set(PortInfo) (IBA 14.2.5.6) of a CA port or a switch's port 0: the
 * link's fields and the management fields (LID, SM, M_Key), all checked
 * before any is set. Returns 0 or "invalid field". */
uint16_t hca_sma_port_info_set(struct hca_port *p,
			       const struct mpd_port_info *pi);
/* Its link half alone, for a switch's external ports: check, then set. */
uint16_t hca_sma_link_check(const struct hca_port *p,
			    const struct mpd_port_info *pi);
void hca_sma_link_set(struct hca_port *p, const struct mpd_port_info *pi);
/* Decode a MAD for an SMA: false (no answer) when it is malformed
 * (counted on p), not an SMP, or not a Get or Set. */
bool hca_sma_decode(struct hca_port *p, const uint8_t *mad, struct mpd_mad *m);
/* Turn an SMP into its GetResp with status (D set when directed route). */
void hca_sma_reply(uint8_t *mad, uint16_t status, bool dr);
/* Get/Set of a port's tables; data is the SMP's 64 bytes, rewritten as
 * the response's. Return the MAD status. */
void hca_sma_pkey_block(struct hca_port *p, bool set, uint8_t *data);
uint16_t hca_sma_sl2vl(struct hca_port *p, bool set, uint8_t *data);
uint16_t hca_sma_vl_arb(struct hca_port *p, uint32_t blk, bool set,
			uint8_t *data);
/* The link's data rate: lane speed x width, in Mb/s */
uint32_t hca_port_rate_mbps(const struct hca_port *p);
/* PortInfo:CapabilityMask as the port reports it */
uint32_t hca_sma_cap_mask(const struct hca_port *p);

/* mpd_pkt_decode() flags for what p receives */
static inline unsigned int
hca_port_crc_flags(const struct hca_port *p)
{
	return p->crc_ours ? MPD_PKT_NO_ICRC_CHECK | MPD_PKT_NO_VCRC_CHECK : 0;
}

/* mpd_pkt_encode_flags() flags for what p sends */
static inline unsigned int
hca_port_enc_flags(const struct hca_port *p)
{
	return p->crc_lazy && p->crc_ours ? MPD_PKT_CRC_LATER : 0;
}

#endif
