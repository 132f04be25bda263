/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client channel between a umad client (libibumad over madpmd) and the
 * daemon that owns the node's ports. Version 1.
 *
 * Files, under the run directory (madpmd/run_dir.h):
 *   <node>/umad     SOCK_SEQPACKET control socket, one per node
 *   <node>/issm     a FIFO: while a process holds it open, the node's port
 *                   has PortInfo:CapabilityMask.IsSM set (inotify watches it)
 *   nodes           one line per node: "<node> <node_guid> <num_ports>"
 * All created 0600 by default (like /dev/infiniband/umad*).
 *
 * A session: connect, HELLO (the reply carries a memfd holding struct
 * mpd_chan_shm and the session's pipe ends, below), then control
 * requests; the MADs
 * themselves travel in the two rings. Closing the socket (or dying) ends
 * the session; the daemon frees its agents and rings.
 *
 * A session has its share of the port: sends waiting for a response and
 * RMPP transfers (counts in the HELLO reply). The daemon publishes in the
 * shared memory how many sends of each kind it has taken and no longer
 * holds a share for; the client counts what it posted, and a send beyond
 * its share fails in umad_send() at once (ENOMEM). The daemon keeps the
 * same accounts itself and never reads them back.
 *
 * Control datagrams are struct mpd_chan_msg: a request carries type, seq
 * and the request body; the reply echoes type and seq and carries status
 * (0 or a positive errno) and the reply body. One request in flight per
 * session. Everything a client writes is untrusted: the daemon checks
 * lengths, offsets and values and cuts a client off on garbage.
 */
#ifndef MADPMD_CHAN_H
#define MADPMD_CHAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "madpmd/cma.h"
#include "madpmd/mad.h"
#include "madpmd/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPD_CHAN_VERSION	9
#define MPD_CHAN_SOCK		"umad"
#define MPD_CHAN_ISSM		"issm"
#define MPD_CHAN_NODES		"nodes"

/* A port's file under <run_dir>/<node>/: base ("umad" or "issm") for
 * port 1 (and 0, the default port), "base.N" for port N > 1, as the
 * kernel has one umad and issm device per port. */
static inline int
mpd_chan_port_file(char *buf, size_t len, const char *base, unsigned int port)
{
	return port > 1 ? snprintf(buf, len, "%s.%u", base, port)
			: snprintf(buf, len, "%s", base);
}

#define MPD_CHAN_MAX_AGENTS	32	/* per session, as per umad fd */
#define MPD_CHAN_RING_SIZE	(8u << 20)	/* bytes, each direction */
#define MPD_CHAN_MAX_MSG	(2u << 20)	/* largest umad record */

enum mpd_chan_type {
	MPD_CHAN_HELLO = 1,
	MPD_CHAN_REGISTER = 2,
	MPD_CHAN_UNREGISTER = 3,
	MPD_CHAN_PORT_INFO = 4,
	MPD_CHAN_RESOLVE = 5,		/* RoCE: is a GID in the fabric? */
	MPD_CHAN_NETNS = 6,		/* the node's network namespace:
					 * reply fds: the netns, and its
					 * user namespace unless the
					 * daemon's own (madpmd-run --net) */
};

struct mpd_chan_hello_req {
	uint32_t version;		/* MPD_CHAN_VERSION */
	uint32_t port_num;		/* 0: the node's first active port */
	uint32_t pid;
};

/* The port as umad_get_port() reports it; integers in host order,
 * except where noted. */
struct mpd_chan_port_info {
	char ca_name[20];		/* the node name, as a CA name */
	char node_desc[64];
	uint64_t node_guid;		/* host order */
	uint64_t sys_guid;
	uint64_t port_guid;
	uint64_t gid_prefix;
	uint32_t node_type;		/* 1 CA */
	uint32_t num_ports;
	uint32_t port_num;
	uint32_t lid;
	uint32_t lmc;
	uint32_t sm_lid;
	uint32_t sm_sl;
	uint32_t state;			/* PortState 1..4 */
	uint32_t phys_state;		/* PortPhysicalState */
	uint32_t rate;			/* Gb/s, as sysfs "rate" */
	uint32_t capmask;		/* host order */
	uint32_t link_layer;		/* 0 InfiniBand, 1 Ethernet */
	uint32_t fw_ver;
	uint32_t num_pkeys;
	uint16_t pkeys[32];
	/* PortInfo encodings (IBA 14.2.5.6), which verbs use as they are */
	uint8_t width_active;		/* LinkWidthActive */
	uint8_t speed_active;		/* LinkSpeedActive */
	uint8_t mtu_cap;		/* MTUCap: 1 256 .. 5 4096 */
	uint8_t neighbor_mtu;		/* the active MTU */
	uint8_t vl_cap;			/* VLCap: 1 VL0 .. 4 VL0-14 */
	uint8_t subnet_timeout;
	uint8_t pad2[2];
	uint8_t ip4[4];			/* the port's IPv4 address, on IB and
					 * RoCE: what rdma_cm resolves to it;
					 * on RoCE its GID 1, IPv4-mapped
					 * (GID 0 is gid_prefix:port_guid on
					 * both) */
};

struct mpd_chan_hello_rep {
	uint32_t version;
	uint32_t shm_size;		/* bytes of the memfd to map */
	struct mpd_chan_port_info port;
	uint32_t share_out;		/* sends waiting for a response */
	uint32_t share_xfer;		/* RMPP sends in flight */
};

/* umad_register2()'s attributes; method_mask bit n = method n */
struct mpd_chan_register_req {
	uint8_t mgmt_class;		/* 0: send-only agent */
	uint8_t class_version;
	uint8_t rmpp_version;		/* 0 or 1 */
	uint8_t qpn;			/* 0 or 1, derived by the client */
	uint32_t flags;
	uint64_t method_mask[2];
	uint32_t oui;			/* vendor range 2 classes */
};

struct mpd_chan_register_rep {
	uint32_t agent_id;		/* 0 .. MPD_CHAN_MAX_AGENTS - 1 */
};

struct mpd_chan_unregister_req {
	uint32_t agent_id;
};

/* RESOLVE: status 0 when the port's address table has the GID (its GID 0
 * or IPv4-mapped GID 1), EHOSTUNREACH when not, EINVAL on an IB port. */
struct mpd_chan_resolve_req {
	uint8_t gid[16];
};

struct mpd_chan_msg {
	uint32_t type;			/* enum mpd_chan_type */
	uint32_t seq;
	int32_t status;			/* reply: 0 or positive errno */
	uint32_t len;			/* bytes of body used */
	union {
		struct mpd_chan_hello_req hello_req;
		struct mpd_chan_hello_rep hello_rep;
		struct mpd_chan_register_req reg_req;
		struct mpd_chan_register_rep reg_rep;
		struct mpd_chan_unregister_req unreg_req;
		struct mpd_chan_resolve_req resolve_req;
		struct mpd_chan_port_info port;
		/* verbs (madpmd/verbs.h) */
		struct mpd_v_handle v_handle;
		struct mpd_v_reg_mr_req v_reg_mr_req;
		struct mpd_v_reg_mr_rep v_reg_mr_rep;
		struct mpd_v_create_cq_req v_create_cq_req;
		struct mpd_v_create_cq_rep v_create_cq_rep;
		struct mpd_v_resize_cq_req v_resize_cq_req;
		struct mpd_v_resize_cq_rep v_resize_cq_rep;
		struct mpd_v_create_qp_req v_create_qp_req;
		struct mpd_v_create_qp_rep v_create_qp_rep;
		struct mpd_v_modify_qp_req v_modify_qp_req;
		struct mpd_v_query_qp_rep v_query_qp_rep;
		struct mpd_v_create_srq_req v_create_srq_req;
		struct mpd_v_create_srq_rep v_create_srq_rep;
		struct mpd_v_modify_srq_req v_modify_srq_req;
		struct mpd_v_destroy_req v_destroy_req;
		struct mpd_v_destroy_rep v_destroy_rep;
		struct mpd_v_mcast_req v_mcast_req;
		struct mpd_v_alloc_mw_req v_alloc_mw_req;
		struct mpd_v_alloc_mw_rep v_alloc_mw_rep;
		/* rdma_cm (madpmd/cma.h) */
		struct mpd_cm_create_id_req cm_create_id_req;
		struct mpd_cm_id_rep cm_id_rep;
		struct mpd_cm_id_req cm_id_req;
		struct mpd_cm_events_rep cm_events_rep;
		struct mpd_cm_bind_req cm_bind_req;
		struct mpd_cm_resolve_addr_req cm_resolve_addr_req;
		struct mpd_cm_resolve_route_req cm_resolve_route_req;
		struct mpd_cm_id_info cm_id_info;
		struct mpd_cm_conn_req cm_conn_req;
		struct mpd_cm_reject_req cm_reject_req;
		struct mpd_cm_qp_attr_req cm_qp_attr_req;
		struct mpd_cm_qp_attr_rep cm_qp_attr_rep;
		struct mpd_cm_option_req cm_option_req;
		struct mpd_cm_join_req cm_join_req;
	} u;
};

/*
 * A single-producer single-consumer byte ring in the shared memory. head
 * and tail count bytes since the start (never wrap); the producer owns
 * head, the consumer tail. Each side keeps its own position privately and
 * stores it here (release) only as advice for the peer, never reading it
 * back; it loads the peer's (acquire) and checks it against its own
 * before use (madpmd/ring.h). Records are 8-byte aligned:
 *   struct mpd_chan_rec { len, kind } followed by len bytes, padded to 8.
 * A record never wraps: when it does not fit before the end of data[], the
 * producer writes a MPD_CHAN_REC_PAD record covering the rest and starts at 0.
 */
struct mpd_chan_ring {
	uint64_t head;
	uint8_t pad0[56];
	uint64_t tail;
	uint8_t pad1[56];
	uint32_t size;			/* bytes of data[], a power of two */
	uint32_t pad2[15];
	uint8_t data[];
};

enum mpd_chan_rec_kind {
	MPD_CHAN_REC_PAD = 0,
	MPD_CHAN_REC_UMAD = 1,	/* struct ib_user_mad (64 bytes) + MAD data */
	MPD_CHAN_REC_ASYNC = 2,	/* struct mpd_v_async_rec (madpmd/verbs.h) */
	MPD_CHAN_REC_CM = 3,	/* struct mpd_cm_event_rec (madpmd/cma.h) */
};

struct mpd_chan_rec {
	uint32_t len;			/* bytes after this header */
	uint32_t kind;			/* enum mpd_chan_rec_kind */
};

/*
 * The memfd: the client's send ring (client produces, daemon consumes)
 * then its receive ring (daemon produces, client consumes). Offsets are
 * from the start of the mapping.
 */
struct mpd_chan_shm {
	uint32_t magic;			/* MPD_CHAN_MAGIC */
	uint32_t version;
	uint32_t tx_off;		/* struct mpd_chan_ring, client -> daemon */
	uint32_t rx_off;		/* struct mpd_chan_ring, daemon -> client */
	uint8_t pad[48];
	/* written by the daemon only: sends of each share it has taken
	 * off the ring and holds nothing for any more (enum mpd_chan_share) */
	uint64_t share_done[3];
	/* written by the daemon only: non-zero while its lcore sleeps until
	 * a doorbell (HELLO's fourth fd) rings */
	uint32_t doorbell_armed;
	/* written by the daemon only: 1 + the CPU its lcore last took this
	 * port's sends on, 0 until it has (see "Sharing a CPU" below) */
	uint32_t lcore_cpu;
	/* written by the daemon only: its wake-up writes so far,
	 * each counted once it is done (see "Wake-ups" below) */
	uint64_t rx_kicks __attribute__((aligned(64)));
	/* written by the client only: how many of its threads spin on the
	 * receive ring now, looking at it without the port fd */
	uint32_t rx_awake __attribute__((aligned(64)));
	/* written by the client only: 1 + the CPU of the thread that last
	 * began to spin on the receive ring */
	uint32_t rx_awake_cpu;
	/* written by the client only: its doorbell writes so far, each
	 * counted before it is written (see "Doorbell" below) */
	uint32_t doorbell_rings;
	/* written by the client only: yields of its threads that found a
	 * CQ empty on the lcore's CPU, each after storing rx_awake_cpu (see
	 * "Sharing a CPU" below) */
	uint32_t poll_yields;
};

/*
 * Which share a umad send takes, as both sides count it: an RMPP transfer
 * when it is longer than a MAD or (for an agent with RMPP, of a class with
 * an RMPP header) sets Active, as ib_umad_write() decides; else a slot
 * while it waits for its response when it is a request with a time-out.
 * mad is the send's data (len bytes, at least the 36 of MAD and RMPP
 * headers).
 */
enum mpd_chan_share {
	MPD_CHAN_SHARE_NONE = 0,
	MPD_CHAN_SHARE_OUT = 1,
	MPD_CHAN_SHARE_XFER = 2,
};

static inline enum mpd_chan_share
mpd_chan_send_share(const uint8_t *mad, uint32_t len, bool rmpp_agent,
		    uint32_t timeout_ms)
{
	if (len > MPD_MAD_LEN ||
	    (rmpp_agent && len >= MPD_MAD_HDR_LEN + MPD_RMPP_HDR_LEN &&
	     mpd_class_has_rmpp(mpd_mad_class(mad)) &&
	     (mad[MPD_RMPP_OFF_FLAGS] & MPD_RMPP_FLAG_ACTIVE)))
		return MPD_CHAN_SHARE_XFER;
	if (timeout_ms && !mpd_mad_is_response(mad))
		return MPD_CHAN_SHARE_OUT;
	return MPD_CHAN_SHARE_NONE;
}

#define MPD_CHAN_MAGIC	0x6d706463	/* "mpdc" */

/*
 * HELLO's reply carries, in this order: the session's shared memory (a
 * memfd); the client's end of a stream socketpair (the "port fd" the
 * client hands to poll()) and the daemon's end of it, on which the client
 * makes its own end readable; and, when the port sleeps on interrupts,
 * the write end of the session's doorbell pipe and a read end of it that
 * the client only keeps open (so that its writes never raise SIGPIPE).
 * No client can make a write or read of the daemon block: O_NONBLOCK
 * belongs to an open file, so the daemon sends with MSG_DONTWAIT and
 * reads the doorbell through an open file of its own. Each write is one
 * byte; the client counts writes as the bytes it reads.
 *
 * Doorbell: while the daemon's lcore has nothing to do it may sleep until
 * a doorbell rings (its port's rx interrupt watches the daemon's end of
 * every session's doorbell pipe). It sets doorbell_armed first, fences,
 * and looks at every send ring once more; a client publishes a send,
 * fences, and writes a byte to its doorbell when it finds doorbell_armed
 * set. One of the two sees the other, so no send waits for a timer. A
 * client that rings without need wakes the lcore, as a send would; one
 * that fills its doorbell silences only its own. The client counts each
 * ring in doorbell_rings before it writes; the lcore, awake again, reads
 * empty the doorbells whose count moved, and nothing else reads them: a
 * read while the lcore sleeps could take the byte whose edge its epoll
 * has not looked at yet, and it would sleep on with the send queued.
 *
 * Wake-ups: the daemon's lcore polls every send ring. For the other
 * direction the daemon sends a byte to the port fd after queueing a
 * record into an empty receive ring (it publishes the record, fences,
 * and finds the client's tail where its head was), unless it then finds
 * rx_awake set: a client thread is spinning on the ring and will see the
 * record. It bumps rx_kicks before each write. The port fd must be
 * readable whenever a record is queued and no thread of the client looks
 * at the ring:
 *  - a spinning thread adds 1 to rx_awake, fences, spins, and before it
 *    stops takes its 1 back, fences and looks at the ring once more (of
 *    the daemon's fence and its own, one sees the other's store: a record
 *    the daemon did not wake it for is seen by that last look);
 *  - a client that takes a record and leaves others queued makes the fd
 *    readable itself (a byte sent on the daemon's end), unless it wrote
 *    it already and has not cleared it since (a write counted in rx_kicks
 *    may be one it has cleared);
 *  - a client that empties its receive ring clears the fd when it may be
 *    readable (it wrote it, or rx_kicks is past the daemon's writes it
 *    has read: it counts the bytes each read returns, less its own
 *    writes, so a write counted but not landed is read the next time),
 *    fences, and looks at the ring once more, writing a byte back if a
 *    record slipped in.
 * So a client that spins while the daemon answers makes no system call,
 * and neither does the daemon; a client that sleeps in poll() gets one
 * write per empty-to-queued edge. A daemon write that finds the pipe full
 * is dropped: the fd is readable anyway.
 *
 * Sharing a CPU: when the scheduler runs a client thread and the lcore on
 * one CPU (a CPU-bound process has the other), each waits for the other
 * to be switched in. A client thread that finds lcore_cpu its own CPU
 * spins by sched_yield() instead of pausing, after storing rx_awake_cpu;
 * a lcore that has nothing to do yields (for a while) instead of polling
 * or sleeping while a thread spins with rx_awake_cpu its own CPU. The
 * hand-off is then two yields, not a write, a wake-up and a sleep on
 * each side. A verbs client has no spin to bracket: a thread whose CQ
 * poll finds nothing a few times in a row on the lcore's CPU yields,
 * after storing rx_awake_cpu and counting the yield in poll_yields; the
 * lcore takes a count that moved since its last look as a thread
 * spinning there. A client thread that finds lcore_cpu another CPU spins
 * there even when its own CPU is shared: it cannot be taking the lcore's.
 * Both words are hints: a wrong one costs a yield, a sleep or a spin of
 * at most the client's spin time, never a record.
 */

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_CHAN_H */
