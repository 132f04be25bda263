/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client side of the channel (madpmd/chan.h), which libibumad,
 * libibverbs and librdmacm over madpmd share: finding the node in the
 * run directory, connecting to its control socket, HELLO and the fds it
 * hands over, request/reply on the socket, the receive ring's wake-ups
 * and the daemon's doorbell. Linked into each library and never exported
 * (their version scripts). Errors: a negative errno, as libibumad's own
 * calls return them.
 */
#ifndef MADPMD_CHAN_CLIENT_H
#define MADPMD_CHAN_CLIENT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "madpmd/chan.h"
#include "madpmd/ring.h"

#define MPD_CHAN_NODE_MAX	64	/* bytes of a node name, NUL included */
#define MPD_CHAN_PATH_MAX	512
#define MPD_CHAN_CTL_TIMEOUT_S	10	/* a daemon that never answers */

/* umad_debug()'s level: warnings go to stderr as "ibwarn: [pid] fn: ..." */
extern int mpd_chan_debug;

void mpd_chan_warn(const char *fn, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define MPD_CHAN_DBG(...)						\
	do {								\
		if (mpd_chan_debug)					\
			mpd_chan_warn(__func__, __VA_ARGS__);		\
	} while (0)

/* A node of the fabric, as the daemon lists it in $RUN_DIR/nodes. */
struct mpd_chan_node {
	char run_dir[MPD_CHAN_PATH_MAX];
	char name[MPD_CHAN_NODE_MAX];
	char dev[MPD_CHAN_NODE_MAX];	/* the name its CA has here */
	uint64_t node_guid;
	unsigned int num_ports;
	bool sw;		/* a switch: its port 0 alone ("0" ports) */
};

enum mpd_chan_lookup {
	MPD_CHAN_NODE_FOUND = 0,
	MPD_CHAN_NODE_UNKNOWN,	/* nodes lists others, not this one */
	MPD_CHAN_NODE_NO_FABRIC,	/* no nodes file, or an empty one */
};

/*
 * Which node a call is about: ca_name if given, else $MADPMD_NODE, else
 * the first line of $MADPMD_RUN_DIR/nodes. The run directory is filled in
 * whatever the outcome; so is the name when one was asked for.
 *
 * The process's own node (no ca_name, or ca_name $MADPMD_DEVICE) has the
 * CA name $MADPMD_DEVICE when that is set, as every host of a cluster
 * names its HCA alike (madpmd-run sets it: "madpmd0"); any other node,
 * and every node when it is unset, is named as the fabric names it. The
 * name to show is dev.
 */
enum mpd_chan_lookup mpd_chan_node_lookup(const char *ca_name,
					  struct mpd_chan_node *n);

/* A connected control socket after HELLO, before the shm is mapped. */
struct mpd_chan_session {
	int sock;
	int memfd;
	int efd;			/* our end of the wake-ups: the port fd */
	int efd_w;			/* the daemon's end, to wake ourselves */
	int doorbell;			/* -1: the daemon has none */
	int doorbell_rd;		/* a reader of it we keep: no SIGPIPE */
	uint32_t seq;
	struct mpd_chan_hello_rep rep;
};

/*
 * Connect to the node's control socket and say HELLO for port_num (0: the
 * daemon's choice). 0, -EINVAL (the daemon refuses the port), -EMFILE,
 * -EUSERS or -ENOMEM (the process's, the user's or the port's sessions
 * taken, or the daemon's memory) or -EIO (no daemon, or one speaking
 * garbage); explained once on stderr.
 */
int mpd_chan_hello(const struct mpd_chan_node *n, int port_num,
		    struct mpd_chan_session *h);
/* mpd_chan_hello()'s refusal as a context that could not be opened says
 * it (ibv_open_device(), rdma_create_event_channel()): a share of the
 * port taken as itself, anything else ENODEV */
static inline int
mpd_chan_hello_errno(int rc)
{
	return rc == -EMFILE || rc == -EUSERS || rc == -ENOMEM ? -rc : ENODEV;
}
void mpd_chan_session_close(struct mpd_chan_session *h);
/*
 * A session's receive ring, from HELLO's memfd of shm_size bytes (the
 * daemon's; checked before use): 0 with *shm mapped and rx attached, or
 * a negative errno (-EPROTO: not a session's memory) with nothing
 * mapped.
 * The caller unmaps *shm (shm_size bytes) when done.
 */
int mpd_chan_map_rx(int memfd, uint32_t shm_size, void **shm,
		struct mpd_ring_view *rx);

/* The most fds one reply carries (HELLO's, madpmd/chan.h) */
#define MPD_CHAN_MAX_FDS	5

/* One control request on a session's socket: 0 with the reply in *m, or
 * a negative errno for a transport failure (the reply's own status is
 * left in m->status). */
int mpd_chan_call(int sock, uint32_t *seq, struct mpd_chan_msg *m,
		   int *fds, int max_fds, int *nfds);

/*
 * The receive side of a session's wake-ups (madpmd/chan.h, "Wake-ups"):
 * readable exactly when records are queued. The caller holds whatever
 * lock serialises its consumer of the receive ring.
 */
struct mpd_chan_rx_wake {
	int efd;			/* our end of the socketpair */
	int efd_w;			/* the daemon's end, to wake ourselves */
	const struct mpd_chan_shm *shm;
	uint64_t kicks_seen;		/* the daemon's writes we read */
	uint64_t efd_mine;		/* our writes since we last read it */
	bool may_block;			/* the fd's owner picks O_NONBLOCK:
					 * look before each read */
};

/* After the consumer found or left the ring empty: clear the fd if
 * it may be readable, look again, and re-arm it if a record slipped in.
 * True when the ring is (still) empty. */
bool mpd_chan_rx_settle(struct mpd_chan_rx_wake *w,
			const struct mpd_ring_view *rx);
/* Records stay queued after a take: make sure the fd says so. */
void mpd_chan_rx_left_queued(struct mpd_chan_rx_wake *w);

/* Ring a doorbell (or any pipe of the daemon's): one byte. */
void mpd_chan_kick(int fd);

/* Print a "madpmd: ..." sentence once per process (per kind). */
enum mpd_chan_once {
	MPD_CHAN_ONCE_NO_FABRIC,
	MPD_CHAN_ONCE_UNKNOWN_NODE,
	MPD_CHAN_ONCE_PROTOCOL,
	MPD_CHAN_ONCE_NO_SM,
	MPD_CHAN_ONCE_MAX,
};

void mpd_chan_once(enum mpd_chan_once kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A program that reads an IB port no SM has brought up (it trained, it
 * has no SM LID) is about to fail for want of one (saquery, perftest):
 * one line says so, "no SM: ... (run madpmd-run opensm)". Not in an SM. */
void mpd_chan_no_sm_hint(const char *ca_name,
			 const struct mpd_chan_port_info *pi);

/* A port of the node, as the daemon describes it (umad_get_port()) */
int mpd_chan_port_query(const struct mpd_chan_node *n, int port_num,
			struct mpd_chan_port_info *pi);

#endif
