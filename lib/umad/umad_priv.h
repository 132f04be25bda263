/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of libibumad over madpmd (libmadpmd / the drop-in
 * libibumad.so.3). Nothing here is exported: the library is built with
 * -fvisibility=hidden and a version script; only the umad_* entry points
 * marked UMAD_EXPORT leave it.
 */
#ifndef MADPMD_UMAD_PRIV_H
#define MADPMD_UMAD_PRIV_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "madpmd/chan.h"
#include "madpmd/ring.h"

#define UMAD_EXPORT	__attribute__((visibility("default")))

#define UMAD_HDR_SIZE	((int)sizeof(struct ib_user_mad))	/* 64 */
#define UMAD_SEG_SIZE	256	/* one MAD; the first RMPP segment */
#define UMAD_RMPP_HDR	36	/* MAD + RMPP headers: the kernel's minimum */
#define UMAD_MAX_DATA	((int)MPD_CHAN_MAX_MSG - UMAD_HDR_SIZE)
#define UMAD_NODE_MAX	64	/* bytes of a node name, NUL included */
#define UMAD_PATH_MAX	512
#define UMAD_CTL_TIMEOUT_S	10	/* a daemon that never answers */
#define UMAD_SEND_WAIT_MS	250	/* a full send ring, before ENOMEM */

/* umad_debug() level; messages go to stderr as "ibwarn: [pid] fn: ..." */
extern int umad_priv_debug;

void umad_priv_warn(const char *fn, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define UMAD_DBG(...)							\
	do {								\
		if (umad_priv_debug)					\
			umad_priv_warn(__func__, __VA_ARGS__);		\
	} while (0)

/* A node of the fabric, as the daemon lists it in $RUN_DIR/nodes. */
struct umad_node {
	char run_dir[UMAD_PATH_MAX];
	char name[UMAD_NODE_MAX];
	uint64_t node_guid;
	unsigned int num_ports;
	bool sw;		/* a switch: its port 0 alone ("0" ports) */
};

enum umad_lookup {
	UMAD_NODE_FOUND = 0,
	UMAD_NODE_UNKNOWN,	/* nodes lists others, not this one */
	UMAD_NODE_NO_FABRIC,	/* no nodes file, or an empty one */
};

/*
 * Which node a call is about: ca_name if given, else $MADPMD_NODE, else
 * the first line of $MADPMD_RUN_DIR/nodes. The run directory is filled in
 * whatever the outcome; so is the name when one was asked for.
 */
enum umad_lookup umad_node_lookup(const char *ca_name, struct umad_node *n);

/* A connected control socket after HELLO, before the shm is mapped. */
struct umad_hello {
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
int umad_chan_hello(const struct umad_node *n, int port_num,
		    struct umad_hello *h);
/* umad_chan_hello()'s refusal as a context that could not be opened says
 * it (ibv_open_device(), rdma_create_event_channel()): a share of the
 * port taken as itself, anything else ENODEV */
static inline int
umad_hello_errno(int rc)
{
	return rc == -EMFILE || rc == -EUSERS || rc == -ENOMEM ? -rc : ENODEV;
}
void umad_hello_close(struct umad_hello *h);
/*
 * A session's receive ring, from HELLO's memfd of shm_size bytes (the
 * daemon's; checked before use): 0 with *shm mapped and rx attached, or
 * a positive errno (EPROTO: not a session's memory) with nothing mapped.
 * The caller unmaps *shm (shm_size bytes) when done.
 */
int umad_map_rx(int memfd, uint32_t shm_size, void **shm,
		struct mpd_ring_view *rx);

/* The most fds one reply carries (HELLO's, madpmd/chan.h) */
#define UMAD_CHAN_MAX_FDS	5

/* One control request on a session's socket: 0 with the reply in *m, or
 * a negative errno for a transport failure (the reply's own status is
 * left in m->status). */
int umad_chan_call(int sock, uint32_t *seq, struct mpd_chan_msg *m,
		   int *fds, int max_fds, int *nfds);

/*
 * The receive side of a session's wake-ups (madpmd/chan.h, "Wake-ups"):
 * readable exactly when records are queued. The caller holds whatever
 * lock serialises its consumer of the receive ring.
 */
struct umad_rx_wake {
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
bool umad_rx_settle(struct umad_rx_wake *w, const struct mpd_ring_view *rx);
/* Records stay queued after a take: make sure the fd says so. */
void umad_rx_left_queued(struct umad_rx_wake *w);

/* Ring a doorbell (or any pipe of the daemon's): one byte. */
void umad_pipe_kick(int fd);

/* Print a "madpmd: ..." sentence once per process (per kind). */
enum umad_once {
	UMAD_ONCE_NO_FABRIC,
	UMAD_ONCE_UNKNOWN_NODE,
	UMAD_ONCE_PROTOCOL,
	UMAD_ONCE_MAX,
};

void umad_once(enum umad_once kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- umad_tid.c: requests in flight, for the duplicate check ---- */
#define UMAD_TIDS_MAX	512	/* twice the outstanding-send share */

struct umad_tids {
	unsigned int n;
	struct {
		uint64_t key;		/* umad_tid_key() */
		uint64_t deadline_ms;	/* gone by then whatever happens */
	} e[UMAD_TIDS_MAX];
};

/* A request's name: agent, class, TID 31..0. */
uint64_t umad_tid_key(const uint8_t *mad, uint32_t agent);
/* Whether key is in flight (entries past their deadline are dropped). */
bool umad_tids_busy(struct umad_tids *t, uint64_t key, uint64_t now_ms);
void umad_tids_add(struct umad_tids *t, uint64_t key, uint64_t deadline_ms);
void umad_tids_del(struct umad_tids *t, uint64_t key);

/* A port of the node, as the daemon describes it (umad_get_port()). */
int umad_port_info(const struct umad_node *n, int port_num,
		   struct mpd_chan_port_info *pi);

#endif
