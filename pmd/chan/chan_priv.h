/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the channel. chan.c (socket, sessions, shared memory, dispatch)
 * calls the handler tables of chan_umad.c, chan_verbs.c, chan_cm.c and
 * issm.c; they call nothing
 * of chan.c, only the inline helpers here.
 */
#ifndef NET_HCA_CHAN_PRIV_H
#define NET_HCA_CHAN_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>
#include <time.h>

#include "madpmd/chan.h"
#include "madpmd/page.h"
#include "madpmd/ring.h"
#include "chan.h"

extern int hca_logtype;
#define CHAN_LOG(level, fmt, ...)					\
	rte_log(RTE_LOG_ ## level, hca_logtype, "net_hca: " fmt "\n",	\
		##__VA_ARGS__)

#define CHAN_MAX_SESSIONS	HCA_CHAN_WAKE_MAX	/* per port */
#define CHAN_SESSIONS_PER_PID	16	/* one process cannot take them all */
/* nor one user: another always finds a process's worth */
#define CHAN_SESSIONS_PER_UID	(CHAN_MAX_SESSIONS - CHAN_SESSIONS_PER_PID)
#define CHAN_MAX_PENDING	32	/* connections that have not said HELLO */
#define CHAN_HELLO_MS		1000	/* ... and their time to say it */
#define CHAN_WAKE_MAX		HCA_CHAN_WAKE_MAX
#define CHAN_TRIM_MS		1000	/* idle transfer memory given back */
#define CHAN_MAX_FDS		5	/* handed over with one reply */

/* What a session's verbs objects hold of the port (chan_verbs.c) */
struct chan_vuse {
	uint32_t objs[8];		/* by kind */
	uint64_t wqes, cqes;
};

struct hca_session {
	TAILQ_ENTRY(hca_session) next;
	struct hca_mad_client mc;	/* what the MAD layer knows of it */
	struct hca_chan *ch;
	int sock;
	int wake_fd;			/* our end of the wake-up socketpair */
	int db_r;			/* our reader of its doorbell, or -1 */
	uint32_t rings_seen;		/* its doorbell_rings, as last read
					 * back (lcore, port lock) */
	uint32_t yields_seen;		/* its poll_yields, as the lcore
					 * last looked (port lock) */
	void *shm;
	size_t shm_size;
	struct mpd_ring_view tx;	/* client -> daemon */
	struct mpd_ring_view rx;	/* daemon -> client */
	pid_t pid;			/* SO_PEERCRED */
	uid_t uid;
	uint64_t hello_deadline;	/* ms, before HELLO */
	bool listed;			/* in ch->sessions (after HELLO) */
	bool wake;			/* in ch->wake, a write owed */
	uint32_t refs;			/* control thread 1, wake list 1 */
	uint64_t posted[3];		/* sends taken, per share */
	const char *kill_why;		/* chan_session_kill()'s reason */
	/* verbs (chan_verbs.c): what the QP layer knows of it, and the
	 * objects it made, by handle */
	struct hca_v_owner vo;
	struct chan_vobj *vobj;
	struct chan_vuse vuse;
	/* rdma_cm (chan_cm.c): the owner of its ids */
	struct hca_cma_owner co;
};

TAILQ_HEAD(hca_session_list, hca_session);

struct hca_chan {
	struct hca_chan_cfg cfg;
	char node[64];
	char dir[512];			/* run_dir/node */
	char sock_path[600];
	char issm_path[600];
	int listen_fd;
	int epfd;
	uint64_t refused, refused_logged;	/* past EMFILE; ms logged */
	bool listen_paused;		/* no descriptor even to refuse */
	uint64_t warn_sec;		/* chan_warn_ok(): this second's */
	unsigned int warn_n, warn_dropped;
	pthread_t thread;
	volatile bool stop;
	uint32_t next_session_id;
	struct hca_session_list sessions;	/* after HELLO; lock held */
	struct hca_session_list pending;	/* before; thread only */
	unsigned int nsessions, npending;
	/* bumped, port lock held, by whatever gives a quiet port work the
	 * lcore does not see come in (a session, ISSM): hca_chan_gen() */
	uint32_t gen;
	struct hca_session *rr;		/* next to serve; lock held */
	bool armed;			/* the lcore sleeps on the doorbell */
	uint32_t cpu;			/* 1 + the lcore's CPU, as published */
	struct hca_session *wake[CHAN_WAKE_MAX];	/* lcore only */
	unsigned int nwake;
	/* ISSM (issm.c) */
	int inotify_fd;
	int issm_fd;			/* our own hold on the FIFO */
	int issm_opens;			/* opens by others (IsSM while > 0) */
	int issm_wd;
	uint64_t issm_retry_ms;		/* to make the FIFO again; 0 none */
	uint64_t trim_ms;		/* next trim_sessions() */
	uint32_t next_pd;		/* PD numbers, unique on the port */
	/* the port as verbs clients last heard of it (chan_verbs.c) */
	uint8_t ev_state;
	uint16_t ev_lid;
	uint16_t ev_sm_lid;
};

static inline struct hca_session *
chan_session_of(struct hca_mad_client *c)
{
	return (struct hca_session *)((char *)c -
				      offsetof(struct hca_session, mc));
}

/*
 * What a client did wrong is logged, but a client cannot fill the log:
 * at most CHAN_WARN_BURST warnings a second per port, then one line that
 * says how many were left out. Control thread only.
 */
#define CHAN_WARN_BURST		10

static inline bool
chan_warn_ok(struct hca_chan *ch)
{
	uint64_t sec = (uint64_t)time(NULL);

	if (sec != ch->warn_sec) {
		if (ch->warn_dropped)
			CHAN_LOG(WARNING, "%s: %u more warnings about clients left out",
				 ch->node, ch->warn_dropped);
		ch->warn_sec = sec;
		ch->warn_n = 0;
		ch->warn_dropped = 0;
	}
	if (ch->warn_n < CHAN_WARN_BURST) {
		ch->warn_n++;
		return true;
	}
	ch->warn_dropped++;
	return false;
}

/* Cut a client off from the data plane; the control thread says why
 * (a log line is a system call: not under the port lock) and frees it. */
static inline void
chan_session_kill(struct hca_session *s, const char *why)
{
	if (!s->mc.dead)
		s->kill_why = why;
	s->mc.dead = true;
}

/* Ring the port's doorbell (not under the port lock) */
static inline void
chan_doorbell_ring(const struct hca_chan_cfg *cfg)
{
	hca_doorbell_ring(cfg->doorbell, cfg->rung);
}

/* A wake-up owed to s once the port lock is dropped (lcore, lock held). */
static inline void
chan_wake_mark(struct hca_chan *ch, struct hca_session *s)
{
	if (s->wake || ch->nwake == CHAN_WAKE_MAX)
		return;
	s->wake = true;
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
	ch->wake[ch->nwake++] = s;
}

/* ---- the handler table (chan_umad.c): one entry per message type ---- */
#define CHAN_REPLIED	(-1)	/* the handler sent the reply itself */
#define CHAN_GONE	(-2)	/* ... and could not: the client is gone */

struct hca_chan_handler {
	uint32_t type;			/* enum mpd_chan_type */
	/* a control request, control thread: 0 or a positive errno (the
	 * reply is sent for it), or CHAN_REPLIED / CHAN_GONE */
	int (*ctl)(struct hca_chan *ch, struct hca_session *s,
		   struct mpd_chan_msg *m);
};

struct hca_chan_service {
	uint32_t rec_kind;		/* enum mpd_chan_rec_kind it sends */
	const struct hca_chan_handler *handlers;	/* type 0 ends */
	const struct hca_mad_client_ops *client_ops;
	/* one record from a client's send ring, lcore, port lock held:
	 * false cuts the client off */
	bool (*rec)(struct hca_chan *ch, struct hca_session *s,
		    const uint8_t *rec, uint32_t len, uint64_t now_ns,
		    struct hca_mad_out *out);
	/* NULL, or 0 when the port has the service, else the errno its
	 * requests fail with */
	int (*ready)(const struct hca_chan *ch);
};

extern const struct hca_chan_service hca_chan_umad;
extern const struct hca_chan_service hca_chan_verbs;
extern const struct hca_chan_service hca_chan_cm;
extern const struct hca_chan_service hca_chan_net;

/* reply.c: a reply with nfds fds (at most CHAN_MAX_FDS); 0 or -1 */
int hca_chan_send_reply(int sock, struct mpd_chan_msg *m, const int *fds,
			int nfds);
/* A successful reply carrying one fd (status 0); 0 or -1. */
int hca_chan_reply(struct hca_session *s, struct mpd_chan_msg *m, int fd);
/* chan_verbs.c: free what a session made, as it ends */
struct chan_vobj;
void hca_chan_verbs_end(struct hca_chan *ch, struct hca_session *s);
/* chan_cm.c: destroy a session's rdma_cm ids, as it ends */
void hca_chan_cm_end(struct hca_chan *ch, struct hca_session *s);

/* The port as a client's HELLO and PORT_INFO see it; lock held. */
void hca_chan_port_info(const struct hca_chan *ch,
			struct mpd_chan_port_info *pi);

/* ---- wake.c: what a session's client shares with us ---- */
/* A stream socketpair, non-blocking: 0 or an errno. */
int chan_sock_pair(int *ours, int *theirs);
/* One byte on our end of one, never blocking, never SIGPIPE (dropped
 * when the client's end is full or gone). */
void chan_sock_kick(int fd);
/* The session's wake-up socketpair, and its doorbell when doorbells (the
 * port's interrupt epoll set) is one: 0 with the fds for the client in
 * fds (its port fd, our end; then its doorbell's write end and a read end
 * it keeps) and their number in *nfds (2 or 4), or an errno. */
int chan_wake_open(struct hca_session *s, int doorbells, int *fds,
		   int *nfds);
/* After the reply: close what only the client keeps. */
void chan_wake_sent(int *fds, int nfds);
void chan_wake_close(struct hca_session *s);
/* Read a session's doorbell empty (the lcore, awake, under the port lock:
 * hca_chan_arm()) */
void chan_doorbell_drain(const struct hca_session *s);

/* ---- issm.c: the SM's hold on the port (IsSM) ---- */
int hca_issm_start(struct hca_chan *ch);
/* inotify said something; also retries a FIFO that could not be made */
void hca_issm_events(struct hca_chan *ch, uint64_t now_ms);
void hca_issm_stop(struct hca_chan *ch);

#endif
