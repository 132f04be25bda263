/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client channel of one port (madpmd/chan.h is its protocol): the
 * control socket, sessions and their shared memory, and a table of
 * handlers per message type (umad's now; verbs' and the CM's beside
 * them). It runs a control thread of its own; on the lcore it drains the
 * clients' send rings into the MAD layer, fairly.
 */
#ifndef NET_HCA_CHAN_H
#define NET_HCA_CHAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rte_spinlock.h>

#include "../capture/records.h"
#include "../cm/cm_agent.h"
#include "../mad/mad_layer.h"
#include "../net/ipoib.h"
#include "../net/netif.h"
#include "../node/node.h"
#include "../qp/qp.h"

struct hca_chan;

/* What the channel serves: the port's parts, owned by the ethdev glue. */
struct hca_chan_cfg {
	struct hca_port *port;
	uint8_t node_type;		/* MPD_NODE_TYPE_CA, or _SWITCH: port
					 * is its port 0 */
	struct hca_mad_layer *ml;
	struct hca_verbs *verbs;	/* NULL: no verbs service */
	struct hca_cm *cm;		/* NULL: no rdma_cm service */
	struct hca_recorder *rec;
	rte_spinlock_t *lock;		/* the port lock */
	const char *run_dir;
	unsigned int mode;		/* permissions of socket and ISSM */
	uint16_t port_id;
	int doorbell;			/* an eventfd the port's rx interrupt
					 * watches: the daemon's own rings */
	uint64_t *rung;			/* those rings, each counted once
					 * written (the lcore drains the
					 * eventfd only when it moved) */
	int doorbells;			/* the epoll set that interrupt is:
					 * sessions' doorbells join it; -1 */
	struct hca_netif *netif;	/* NULL: no network namespace */
	struct hca_ipoib *ipoib;	/* an IB port's IPoIB, for netif */
};

/* Ring a port's doorbell eventfd (the lcore wakes if it sleeps on it),
 * then count the ring in *rung, by which the lcore knows to read the
 * eventfd back. Any thread, not under the port lock. */
static inline void
hca_doorbell_ring(int doorbell, uint64_t *rung)
{
	static const uint64_t one = 1;

	if (doorbell < 0)
		return;
	if (write(doorbell, &one, sizeof(one)) < 0) {
		/* saturated: it rings anyway */
	}
	if (rung)
		__atomic_add_fetch(rung, 1, __ATOMIC_RELEASE);
}

/* The epoll data of a doorbells set's own eventfd (sessions' pipes: 0),
 * and of the port's network device (its frames wake the lcore) */
#define HCA_DOORBELL_OURS	1
#define HCA_DOORBELL_NETIF	2

/* The lcore, awake again: what rang off the doorbells set's ready list
 * (edge-triggered: each ring is an edge). The eventfd is read here; the
 * sessions' pipes are read back by hca_chan_arm(ch, false). */
static inline void
hca_doorbells_drain(int doorbells, int doorbell)
{
	struct epoll_event ev[16];
	uint64_t v;
	int n, i;

	do {
		n = epoll_wait(doorbells, ev, 16, 0);
		for (i = 0; i < n; i++)
			if (ev[i].data.u64 == HCA_DOORBELL_OURS &&
			    read(doorbell, &v, sizeof(v)) < 0) {
				/* rung and read already */
			}
	} while (n == 16);
}

/*
 * A port's doorbells, whatever the port (a CA's ethdev, a switch's port
 * 0): an eventfd the daemon's own threads ring, in an epoll set that the
 * sessions' doorbell pipes join; the lcore sleeps on the set (the rx
 * interrupt is it). chan_cfg's doorbell, rung and doorbells are these.
 */
struct hca_doorbells {
	int fd;				/* the eventfd */
	int set;			/* the epoll set */
	uint64_t rung;			/* writes of fd, by any thread */
	uint64_t rung_seen;		/* ... as the lcore last drained it */
};

/* 0, or an errno with nothing left open (both -1) */
int hca_doorbells_open(struct hca_doorbells *d);
void hca_doorbells_close(struct hca_doorbells *d);
/* The lcore, awake again: what rang drained off the set, when a session
 * may have rung (sessions: hca_chan_arm(ch, false)) or fd was */
void hca_doorbells_awake(struct hca_doorbells *d, bool sessions);

/* 0 (also when run_dir is empty: no channel, *pc NULL), ENOMEM or EIO. */
int hca_chan_start(struct hca_chan **pc, const struct hca_chan_cfg *cfg);
void hca_chan_stop(struct hca_chan *ch);

/* Lcore, port lock held: the clients' sends, round robin, into the MAD
 * layer; frames into out. */
void hca_chan_send_burst(struct hca_chan *ch, uint64_t now_ns,
			 struct hca_mad_out *out);
/* Port lock held: true when no client has a session (nothing of theirs
 * to send, to deliver or to wake). */
bool hca_chan_idle(const struct hca_chan *ch);
/* Any thread, no lock: moves whenever the port gets work for the lcore
 * that comes neither from the wire nor from a session (a client's
 * session coming, an ISSM holder); unchanged, a port found idle with the
 * lock held is idle still, as far as the channel goes. */
uint32_t hca_chan_gen(const struct hca_chan *ch);

/*
 * A port's last look under its lock found nothing for its clients and
 * timers to do: while that stays so (the channel's gen has not moved and
 * nothing from the wire cleared it) the next polls skip the lock. Most
 * ports of a fabric have no client, and a lock taken for each of them at
 * every poll is most of what the lcore's idle rounds cost.
 */
struct hca_chan_quiet {
	bool quiet;
	uint32_t gen;
};

/* Port lock held: what the look found */
static inline void
hca_chan_quiet_note(struct hca_chan_quiet *q, const struct hca_chan *ch,
		    bool quiet)
{
	__atomic_store_n(&q->gen, hca_chan_gen(ch), __ATOMIC_RELAXED);
	__atomic_store_n(&q->quiet, quiet, __ATOMIC_RELAXED);
}

/* Port lock held: work came in (a frame from the wire) */
static inline void
hca_chan_quiet_clear(struct hca_chan_quiet *q)
{
	__atomic_store_n(&q->quiet, false, __ATOMIC_RELAXED);
}

/* No lock: as quiet as the last look found it */
static inline bool
hca_chan_still_quiet(const struct hca_chan_quiet *q, const struct hca_chan *ch)
{
	return __atomic_load_n(&q->quiet, __ATOMIC_RELAXED) &&
	       hca_chan_gen(ch) == __atomic_load_n(&q->gen, __ATOMIC_RELAXED);
}
/* The lcore goes to sleep on the doorbell (on) or is awake again: every
 * session's client is told to ring it after queueing a send. Takes the
 * port lock. Going to sleep: true when sends are queued already (a client
 * that did not see the doorbell armed), and the caller rings it itself.
 * Awake again: true when a session's doorbell may have rung (the port has
 * sessions), which the caller then takes off the interrupt. */
bool hca_chan_arm(struct hca_chan *ch, bool on);

/* Whether a client thread spins on its receive ring on this CPU (a hint
 * the client writes: madpmd/chan.h, "Sharing a CPU"). Takes the lock. */
bool hca_chan_spins_on(struct hca_chan *ch, int cpu);

/* Port lock held, after anything that may move the port (an SM's Set,
 * the link): the verbs clients' async events (IBV_EVENT_PORT_ACTIVE,
 * PORT_ERR, LID_CHANGE, SM_CHANGE) for what changed. */
void hca_chan_port_events(struct hca_chan *ch);

/* Wake-ups owed to clients: taken with the port lock held (into w, at
 * most HCA_CHAN_WAKE_MAX), written after it is released. */
#define HCA_CHAN_WAKE_MAX	64
struct hca_session;
unsigned int hca_chan_wakes(struct hca_chan *ch, struct hca_session **w);
void hca_chan_wake(struct hca_session **w, unsigned int n);

#endif
