/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The launcher's fabric: net_hca ports created from a topology, wires
 * between them (or to other ethdevs), and the busy-poll lcore that moves
 * packets along the wires, backing off to sleep when idle.
 */
#ifndef MADPMD_FABRIC_H
#define MADPMD_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <rte_spinlock.h>

#include "madpmd/wire.h"
#include "link_peer.h"
#include "wake_timer.h"

struct mpd_pcapng;
struct rte_mbuf;
struct fab_replay;
struct fab_switch;
struct fab_ca;
struct mpd_topo_node;
struct rte_pmd_hca_neigh;

/* a three-level fat tree of 36-port switches has 11,664 hosts and 1,620
 * switches: 69,984 ports (scripts/gen-fattree --levels 3); the arrays of
 * that many are touched only as far as the fabric goes */
#define FAB_MAX_PORTS	(1 << 17)
#define FAB_NAME_LEN	64
#define FAB_MAX_SWITCHES	4096
#define FAB_MAX_CAS	FAB_MAX_PORTS
/* a frame of the largest path MTU whole (IBA 7.7.8: 4096 bytes of
 * payload, LRH, GRH, BTH, RETH, ICRC and VCRC; or its RoCEv2 headers) */
#define FAB_FRAME_MAX	(4096 + 256)

struct fab_port {
	char node[FAB_NAME_LEN];	/* node name */
	uint8_t num;			/* port number on the node */
	uint16_t port_id;		/* ethdev */
	char dev[FAB_NAME_LEN];		/* ethdev name, e.g. net_hca0 */
	bool hca;			/* a net_hca port (else external or a
					 * switch's) */
	struct fab_switch *sw;		/* a switch's external port: no ethdev */
	struct fab_ca *ca;		/* a CA port the daemon serves alone:
					 * no ethdev */
	struct hca_port *node_port;	/* a switch's or served CA's port: its
					 * state, which port.c reads */
	enum mpd_link link;
	int peer;			/* index of the port at the other end */
	bool wired;			/* --wire gave it its ethdev */
	bool recording;			/* the port makes capture records */
	struct fab_replay *replay;	/* a capture replayed into the port */
	bool replay_done;
	bool replay_active;		/* after=active is met */
	uint64_t replay_checked;	/* ns: last look at the port state */
	/* what the lossy wire did to frames this port sent */
	uint64_t lost;
	uint64_t duplicated;
	uint64_t reordered;
	struct rte_mbuf *held;		/* a frame held back to reorder */
	/* an outside ethdev on a native IB fabric: IB frames in an
	 * Ethernet envelope (eth_wire.c), from its trained peer only */
	struct link_peer ew;
	uint64_t guid;			/* PortGUID (a switch's: NodeGUID) */
	char far[FAB_NAME_LEN + 8];	/* cabled to NODE[port] of another
					 * daemon (--nodes) */
	uint64_t far_guid;		/* ... whose PortGUID is this */
	uint8_t far_port;
	/* where the ends of its cable are in the whole file (their ports
	 * counted node by node, as the ethdev names): a trunk cable's
	 * addresses (trunk.c) */
	uint32_t slot, far_slot;
	bool trunk;			/* a cable of the trunk: its ethdev is
					 * the trunk's, shared */
	bool enabled, enabled_known;	/* a trunk cable's peer's, last read */
	/* a switch's or served CA's port: the prompt's `set link` for the
	 * lcore (FAB_LINK_*); a switch port's being disabled took the
	 * peer's link down */
	int link_req;
	bool cut_peer;
	/* CRCs (docs/pmd.md, "CRCs"): the frames this port sends may carry
	 * theirs zero (a node of ours encoding with MPD_PKT_CRC_LATER), and
	 * what it takes is not checked (its node's crc_ours) */
	bool crc_lazy;
	bool crc_unchecked;
};

#define FAB_LINK_NONE	0
#define FAB_LINK_DOWN	1
#define FAB_LINK_UP	2

/* Frames carrying a MAD of this management class (and attribute). */
struct fab_mad_sel {
	uint8_t mgmt_class;
	bool any_attr;
	uint16_t attr_id;
};

#define FAB_LOSSY_MAX_SEL	8

/* A lossy wire: each frame is dropped, duplicated or held back behind the
 * next one with these probabilities (scaled to 2^32; UINT32_MAX: always);
 * with selectors, only frames that one of them picks out. */
struct fab_lossy {
	uint32_t drop;
	uint32_t dup;
	uint32_t reorder;
	int port;			/* only this port's wire; -1: all */
	uint64_t seed;
	unsigned int nsel;
	struct fab_mad_sel sel[FAB_LOSSY_MAX_SEL];	/* mad=CLASS[:ATTR] */
};

/* What a capture holds (the capture socket's kinds=) */
#define FAB_CAP_WIRE	0x01u	/* packets on the wires */
#define FAB_CAP_UMAD	0x02u	/* umad messages as the API saw them */
#define FAB_CAP_PORT	0x04u	/* port events */
#define FAB_CAP_WC	0x08u	/* CQ completions */
#define FAB_CAP_CM	0x10u	/* rdma_cm events */
#define FAB_CAP_ALL	0x1fu
#define FAB_MAX_SINKS	8	/* captures at once: the file and 7 live */

/* One capture: a pcapng writer and what goes into it. */
struct fab_sink {
	struct mpd_pcapng *w;
	uint32_t kinds;			/* FAB_CAP_* */
	bool live;			/* a client: cut off, never waited for */
	const char *ib_dissector;	/* named by native IB packets */
	char what[96];			/* for messages */
	int wire_if[FAB_MAX_PORTS];	/* pcapng interface per port; -1 */
	int rec_if[FAB_MAX_PORTS];	/* where its records go; -1 */
};

struct fab_opts {
	enum mpd_link link;		/* for every HCA port */
	unsigned int client_ports;	/* CA ports with an ethdev, at most:
					 * the CAs after them are served */
	unsigned int idle_polls;	/* empty polls before sleeping */
	unsigned int idle_sleep_us;	/* longest sleep when idle */
	bool no_intr;			/* never sleep on rx interrupts */
	const char *run_dir;		/* where the HCAs serve clients */
	const char *switch_clients;	/* --switch-clients patterns */
	unsigned int umad_mode;		/* client and capture sockets */
	const char *ib_dissector;	/* "infiniband" (stock) or "madpmd_ib" */
	struct fab_lossy lossy;
};

struct fabric {
	struct fab_port port[FAB_MAX_PORTS];
	unsigned int nports;
	struct fab_opts opts;
	struct rte_mempool *pool;
	struct fab_sink *sink[FAB_MAX_SINKS];	/* the polling lcore's; 0: file */
	struct fab_sink *pending[FAB_MAX_SINKS];	/* handed over to it */
	bool sinks_pending;
	rte_spinlock_t sink_lock;		/* guards pending[] */
	volatile bool stop;
	/* capture requests from the prompt, applied by the polling lcore */
	char *volatile cap_request;	/* path to start, or "" to stop */
	unsigned int poll_lcore;
	uint64_t forwarded;
	uint64_t idle_sleeps;
	uint64_t shared_yields;		/* to a client spinning on our CPU */
	uint64_t lcore_moves;		/* off it, to a CPU with nothing to run */
	struct wake_timer wake;		/* the ports' next timer, sleeping */
	uint64_t rng;			/* lossy wires' state, lcore-owned */
	volatile unsigned int replays_left;	/* replays not done yet */
	struct fab_switch *sw[FAB_MAX_SWITCHES];
	unsigned int nsw;
	/* those whose port 0 serves clients: polled every round */
	struct fab_switch *mgmt[FAB_MAX_SWITCHES];
	unsigned int nmgmt;
	struct fab_ca *ca[FAB_MAX_CAS];
	unsigned int nca;
	/* what a polling round looks at: the ethdev ports (from
	 * fab_start()), and the served CA ports with answers queued (a
	 * FIFO, each port in it once) */
	int eth[FAB_MAX_PORTS];
	unsigned int neth;
	int ready[FAB_MAX_PORTS];
	unsigned int ready_head, nready;
	uint64_t sw_links_next;		/* TSC: next look at their links */
	uint64_t round_ns;		/* CLOCK_MONOTONIC of this polling
					 * round, once asked (fab_round_ns) */
	unsigned int nwires;		/* IB links to other daemons */
	bool ca_link_reqs;		/* a served CA port has a link_req */
	uint32_t links_seen;		/* hca_link_changes, last look */
	bool link_events;		/* a net_hca port's link moved (its
					 * RTE_ETH_EVENT_INTR_LSC) */
	struct fab_trunk *trunk;	/* --trunk: cables to other daemons */
	/* CA ports other daemons run: GIDs, MACs, IPv4 addresses */
	struct rte_pmd_hca_neigh *far;
	unsigned int nfar;
};

/* A port the fabric moves frames of through an ethdev (a net_hca port or
 * an external one), not a switch's or a served CA's. */
static inline bool
fab_port_ethdev(const struct fab_port *p)
{
	return !p->sw && !p->ca;
}

/* What comes from the other end of port i's cable was encoded in this
 * process (a switch's, a served CA's or a net_hca port's frame), not
 * brought by an outside ethdev: hca_port.crc_ours. */
static inline bool
fab_peer_ours(const struct fabric *f, unsigned int i)
{
	int q = f->port[i].peer;

	return q >= 0 && (!fab_port_ethdev(&f->port[q]) || f->port[q].hca);
}

/* The time of clock c in ns (CLOCK_REALTIME: capture stamps;
 * CLOCK_MONOTONIC: the node layer's timers). */
static inline uint64_t
fab_clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC for the node layer's timers, read once a polling round
 * (a frame crosses a fat tree's switches within one): the polling lcore */
static inline uint64_t
fab_round_ns(struct fabric *f)
{
	if (!f->round_ns)
		f->round_ns = fab_clock_ns(CLOCK_MONOTONIC);
	return f->round_ns;
}

/* Add a net_hca port for node/port number, ethdev net_hca<name_idx>
 * (devargs may add keys); returns its index or -1 with a message on
 * stderr. */
int fab_add_hca(struct fabric *f, const char *node, uint8_t num,
		uint8_t num_ports, uint64_t node_guid, unsigned int name_idx,
		const char *devargs);
/* Where a CA port of another daemon is (--nodes): every net_hca port
 * learns it with the fabric's own; -1 when out of memory. */
int fab_add_far_neigh(struct fabric *f, const uint8_t gid[16],
		      const uint8_t mac[6], const uint8_t ip4[4]);
/* Add an external ethdev by name (created by EAL --vdev or a PCI port). */
int fab_add_external(struct fabric *f, const char *dev);
/* Connect two ports with a wire; -1 when either end is taken. */
int fab_connect(struct fabric *f, int a, int b);
/* Configure and start every port. */
int fab_start(struct fabric *f);
/* The polling loop (run on an lcore): until f->stop. */
int fab_poll_loop(void *arg);
void fab_stop(struct fabric *f);

/* ---- one end of a cable (port.c) ---- */

/* n frames into ethdev port b, as they arrive on its cable: captured
 * (at ts, 0: now), in their Ethernet envelope on an outside IB wire, and
 * freed when the ethdev takes them not. The polling lcore. */
void fab_port_tx(struct fabric *f, struct fab_port *b, struct rte_mbuf **m,
		 uint16_t n, uint64_t ts);
/* The CRCs of n frames a node of ours may have left zero, made (IB;
 * mpd_pkt_crc_fill()): before a capture shows them or a port that checks
 * them (to, NULL: none) takes them. The polling lcore. */
void fab_crc_fill(struct fabric *f, enum mpd_link link,
		  const struct fab_port *to, struct rte_mbuf **m, uint16_t n);
/* A node port's PortPhysicalState (a switch's, a served CA's, a net_hca
 * port's); 0 for an outside ethdev or a port that cannot say */
uint8_t fab_port_phys(const struct fab_port *q);
/* Whether the port at the other end of a cable is there to train with: a
 * net_hca port whose link is up, a switch's or a served CA's port that is
 * not disabled, an outside ethdev (another daemon's, while heard). */
bool fab_port_present(const struct fab_port *b);
/* The link at the other end of a cable goes (on false), or trains again
 * when ours does: a served CA's or a net_hca port; a switch's port sees to
 * its own (fab_switches_links()), another daemon's by the heartbeats. The
 * polling lcore. */
void fab_port_carrier(struct fab_port *b, bool on);
/* Net_hca ports (hcas) and served CA ports (cas) disabled since the last
 * look (by `set link down`, an SM's or ibportstate's Set(PortInfo)) take
 * the link at the other end down with them, and enabled again let it
 * train, as a real cable's far end sees its partner go (IBA 5.4.2). The
 * polling lcore. */
void fab_ports_disabled(struct fabric *f, bool hcas, bool cas);
/* Index of a net_hca port by "node:port", "node" (port 1) or any port by
 * its ethdev name. */
int fab_find(const struct fabric *f, const char *spec);
/* The same, a switch's or a served CA's port too. */
int fab_find_node_port(const struct fabric *f, const char *spec);
/* Make the wires lossy: "drop=P,dup=P,reorder=P[,seed=N][,port=NODE:PORT]
 * [,mad=CLASS[:ATTR]]..." with P a probability (0.05 or 5%), or "off". 0,
 * or -1 with a message on stderr. Before fab_poll_loop() starts. */
int fab_set_lossy(struct fabric *f, const char *spec);

/* ---- switches (switch_fabric.c) ---- */

/* Add a switch of the topology: its external ports 1..N become fabric
 * ports (no ethdev); returns the index of port 1, or -1 with a message
 * on stderr. link=ib only. */
int fab_add_switch(struct fabric *f, const struct mpd_topo_node *nd,
		   bool clients);
/* The links of cabled switch ports train; from fab_start(). */
void fab_switches_start(struct fabric *f);
/* Frames a cable brought to switch port b: forwarded to the peers of the
 * ports the switch names, answered (its SMA, its PMA) or dropped; every
 * mbuf is passed on or freed. The polling lcore only. */
void fab_switch_input(struct fabric *f, struct fab_port *b,
		      struct rte_mbuf **m, uint16_t n);
void fab_switches_free(struct fabric *f);
/* The links of switch ports, every few ms on the polling lcore: a port
 * follows whoever is at the other end of its cable (a net_hca port `set
 * link down` at the prompt or disabled by an SMP, a disabled switch or
 * served CA port): Down when it goes, Init when it trains again,
 * PortStateChange set and trap 128 sent to the SM either way. A switch
 * port disabled (by the SM's Set(PortInfo), or `set link` at the prompt
 * through link_req) takes the link of a CA at the other end down with
 * it, and gives it back when enabled. */
void fab_switches_links(struct fabric *f, bool moved);
/* The switch port 0 clients may open (ethdev/hca_mgmt.c), on the polling
 * lcore: their sends through the switches, and sleeping on their
 * doorbells (setup false: cannot; arm: the ms the MAD layers' timers
 * allow, -1 none, 0 sends queued). */
unsigned int fab_switches_mgmt_poll(struct fabric *f);
bool fab_switches_sleep_setup(struct fabric *f);
int fab_switches_arm(struct fabric *f);
void fab_switches_disarm(struct fabric *f);
bool fab_switches_client_spins_on(struct fabric *f, int cpu);
/* A switch port's PortState, PortPhysicalState and its switch's LID and
 * SM LID, as the polling lcore last left them (for the prompt). */
void fab_switch_port_state(const struct fab_port *p, uint8_t *state,
			   uint8_t *phys, uint16_t *lid, uint16_t *sm_lid);
/* Switch port p's link carries IB MTU m (enum) at most; before the lcore
 * runs. */
void fab_switch_mtu_limit(struct fab_port *p, uint8_t m);

/* ---- nodes without an ethdev (fabric_node.c) ---- */

struct hca_port;
struct mpd_topo_port;
/* The next fabric port (the caller checked there is room), for port num
 * of node: named NODE[num], link=ib, no peer. */
struct fab_port *fab_port_add(struct fabric *f, const char *node,
			      uint8_t num);
/* The widths and speeds a port line of the topology gives, onto p. */
void fab_port_link(struct hca_port *p, const struct mpd_topo_port *tp);

/* ---- CAs the daemon serves alone (ca_fabric.c) ---- */

/* Add a CA of the topology without an ethdev: its ports 1..N become
 * fabric ports that answer with their SMA and PMA and that no client
 * opens; returns the index of port 1, or -1 with a message on stderr. */
int fab_add_ca(struct fabric *f, const struct mpd_topo_node *nd);
/* Cabled ports train (Init, LinkUp); from fab_start(). */
void fab_cas_start(struct fabric *f);
/* Frames a cable brought to served CA port b: answered onto the port's
 * queue or dropped; every mbuf is kept or freed. The polling lcore. */
void fab_ca_input(struct fabric *f, struct fab_port *b,
		  struct rte_mbuf **m, uint16_t n);
/* Up to n answers port a queued (its rx_burst). */
uint16_t fab_ca_output(struct fab_port *a, struct rte_mbuf **m, uint16_t n);
/* The next served CA port with answers queued (taken off the list, which
 * fab_ca_input() and fab_ca_relist() put it back on), or -1. */
int fab_ca_next_ready(struct fabric *f);
/* Put port a back on the list when it still holds frames. */
void fab_ca_relist(struct fabric *f, struct fab_port *a);
/* The port's PortState, PortPhysicalState, LID and SM LID (the prompt). */
void fab_ca_port_state(const struct fab_port *p, uint8_t *state,
		       uint8_t *phys, uint16_t *lid, uint16_t *sm_lid);
/* Whether anyone is at the other end of served CA port p's cable: Down
 * and Polling without, LinkUp and Init when it comes back (not a port
 * disabled by an SMP). The polling lcore. */
void fab_ca_carrier(struct fab_port *p, bool on);
/* Served CA port p's link carries IB MTU m (enum) at most; before the
 * lcore runs. */
void fab_ca_mtu_limit(struct fab_port *p, uint8_t m);
/* Disable served CA port p (Disabled, Down) or let it train again
 * (Polling): false when it already was so. The polling lcore. */
bool fab_ca_disable(struct fab_port *p, bool off);
void fab_cas_free(struct fabric *f);

/* ---- native IB links over Ethernet ethdevs (eth_wire.c) ---- */

/* Port p, an outside ethdev of an IB fabric (--wire), carries its frames
 * in an Ethernet envelope: the ethdev's MAC read; from fab_start(). Its
 * link is down until the heartbeats say both ends hear each other. */
void fab_eth_wire_start(struct fabric *f, struct fab_port *p);
/* The heartbeat of wire p at now (ns, CLOCK_MONOTONIC), on the polling
 * lcore: one sent when due, none while our port is disabled (enabled
 * false: so the other end's link goes down too, as a disabled port stops
 * training). Returns 1 when the link came up, -1 when it went down, 0. */
int fab_eth_wire_tick(struct fabric *f, struct fab_port *p, bool enabled,
		      uint64_t now);
/* Of n frames p received, the IB frames inside the envelope, kept in
 * front of m (returned: how many); everything else freed and counted. */
uint16_t fab_eth_wire_rx(struct fabric *f, struct fab_port *p,
			 struct rte_mbuf **m, uint16_t n);
/* n IB frames in their envelope, to the peer learned or broadcast; one
 * that cannot take it is freed and counted (returned: how many are
 * left, in front of m). */
uint16_t fab_eth_wire_tx(struct fab_port *p, struct rte_mbuf **m,
			 uint16_t n);

/* ---- many cables to other daemons over one ethdev (trunk.c) ---- */

/* descriptors each way on the trunk's ethdev */
#define FAB_TRUNK_RING	2048

struct fab_trunk {
	uint16_t port_id;
	char dev[FAB_NAME_LEN];
	bool started;
	int *cable;		/* its cables' ports, by their slot */
	unsigned int ncables;
	uint64_t rx;		/* frames off the ethdev */
	uint64_t not_ours;	/* addressed to no cable of ours */
	unsigned int said_up;	/* cables up, last said */
	uint64_t said_ns;
};

/* A cable end's address on a trunk, from its slot */
void fab_trunk_mac(uint32_t slot, uint8_t mac[6]);
/* --trunk DEV: each cable of ours to another daemon's node that is still
 * dark (no --wire) gets a port on ethdev DEV; 0, or -1 said on stderr.
 * After the topology and --wire, before fab_start(). */
int fab_trunk_open(struct fabric *f, const char *dev);
/* The trunk's ethdev started (from fab_start(), its mbufs from f->pool)
 * and its cables training; 0 or -1 said on stderr */
int fab_trunk_start(struct fabric *f);
/* The polling lcore: of the next n frames off the trunk, the IB frames
 * for our cables, in front of m, the cable's port of each in to[]
 * (returned: how many); heartbeats taken, the rest freed and counted */
uint16_t fab_trunk_rx(struct fabric *f, struct rte_mbuf **m, int *to,
		      uint16_t n);
/* What the trunk carried and dropped, one line */
void fab_trunk_stats(const struct fabric *f, FILE *out);
void fab_trunk_stop(struct fabric *f);

/* ---- what lossy wires select (lossy.c) ---- */

/* Add the selector "CLASS[:ATTR]" to l: 0, -EINVAL when malformed or out
 * of range, -E2BIG past FAB_LOSSY_MAX_SEL. */
int fab_lossy_sel_parse(struct fab_lossy *l, const char *v);
/* Whether the frame m, of this framing, is one the wire impairs: any frame
 * without selectors, else one carrying a MAD a selector names. */
bool fab_lossy_selects(const struct fab_lossy *l, enum mpd_link link,
		       const struct rte_mbuf *m);

/* ---- captures (capture.c) ---- */

/* The file capture: path ("-" for stdout), every port and kind; 0 or
 * -errno. Only the polling lcore may call these while it runs. */
int fab_capture_open(struct fabric *f, const char *path);
void fab_capture_close(struct fabric *f);
void fab_capture_close_all(struct fabric *f);
/* "wire,umad,..." into FAB_CAP_* bits; -1 for a name we do not know. */
int fab_cap_kinds_parse(const char *list, uint32_t *kinds);
/* A sink writing to w (section header written): interfaces for the HCA
 * ports selected (ports[i], or all when NULL). NULL on failure (w is
 * then still the caller's). Any thread. */
struct fab_sink *fab_sink_new(const struct fabric *f, struct mpd_pcapng *w,
			      uint32_t kinds, const bool *ports,
			      const char *what);
void fab_sink_free(struct fab_sink *s);
/* Hand a sink to the polling lcore; 0 or -EBUSY (too many). Any thread. */
int fab_sink_attach(struct fabric *f, struct fab_sink *s);
/* The polling lcore: wire packets of port p into the sinks that want
 * them; new sinks and the ports' records (returns how many records). */
void fab_capture_packets(struct fabric *f, const struct fab_port *p,
			 uint32_t dir, struct rte_mbuf **m, uint16_t n,
			 uint64_t ts);
unsigned int fab_capture_poll(struct fabric *f);
void fab_capture_flush(struct fabric *f);
bool fab_capturing(const struct fabric *f);

#endif
