/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of the drop-in librdmacm.so.1 over madpmd. Built against
 * Debian's own <rdma/rdma_cma.h>, <rdma/rdma_verbs.h> and
 * <rdma/rsocket.h>, so that every prototype is checked; every ibv_* call
 * goes to madpmd's libibverbs.so.1. The daemon runs the IB CM and the
 * rdma_cm ids (madpmd/cma.h); this library is what rdma-core's librdmacm
 * is over the kernel's ucma. Nothing but the entry points of
 * librdmacm.map leaves it.
 *
 * Files, lowest first (none calls one above it):
 *   chan.c   event channels: a session each, its requests and its ring
 *   device.c the verbs device, opened once for the process
 *   id.c     ids: the handle table, create, destroy, migrate, acks
 *   query.c  QUERY into an id's route, addresses as sockaddrs
 *   qp.c     QPs and SRQs on an id, their moves through the CM's states
 *   event.c  rdma_get_cm_event(), and the wait of a synchronous id
 *   addr.c   bind, resolve_addr, resolve_route, listen, ports
 *   conn.c   connect, accept, reject, disconnect, establish, notify
 *   ep.c     rdma_create_ep() and its synchronous helpers
 *   addrinfo.c, mcast.c, option.c, rsocket.c: on their own
 */
#ifndef MADPMD_RDMACM_PRIV_H
#define MADPMD_RDMACM_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

#include "../chan/chan_client.h"

#define CMA_EXPORT	__attribute__((visibility("default")))

/* rdma-core's limits, as its cma.h has them */
#define CMA_MAX_PRIVATE_DATA	256	/* RDMA_MAX_PRIVATE_DATA */
#define CMA_SYNC_TIMEOUT_MS	2000	/* rdma_create_ep()'s resolutions */
/* A destroyed id's events the daemon counted but not yet queued: how
 * long rdma_destroy_id() waits for them before it gives up */
#define CMA_DRAIN_WAIT_MS	2000

/* Set errno, return -1: what every rdma_* call does on failure */
static inline int
cma_err(int e)
{
	errno = e;
	return -1;
}

/* An event record taken out of a channel's ring, waiting to be handed
 * out (in order) */
struct cma_rec {
	struct cma_rec *next;
	struct mpd_cm_event_rec r;
};

/* An event channel: a session with the daemon (madpmd/cma.h). Requests
 * go one at a time on sock (ctl_lock); events are records of its
 * receive ring, moved into the list "queued" before they are handed out
 * (so that a destroyed id's records can be taken out of the middle);
 * ch.fd is an epoll fd over the session's eventfd (efd), readable while
 * either holds one.
 *
 * refs: one for the application, one per rdma_get_cm_event() under way.
 * The kernel keeps a file alive under a read() in flight; so do we: a
 * destroy that finds a thread waiting in rdma_get_cm_event() (rping's
 * cm_thread does, while main tears down) only marks the channel closing,
 * and the last reference closes the session and frees it. */
struct cma_chan {
	struct rdma_event_channel ch;	/* what the application sees */
	unsigned int refs;		/* atomic */
	bool closing;			/* atomic: destroyed by its owner */
	pthread_mutex_t ctl_lock;	/* sock, seq, dead */
	int sock;
	int efd;			/* the session's wake-ups, under ch.fd */
	uint32_t seq;
	int dead;			/* errno once the session is gone */
	void *shm;
	size_t shm_size;
	pthread_mutex_t rx_lock;	/* rx, wake, queued */
	struct mpd_ring_view rx;
	struct mpd_chan_rx_wake wake;
	struct cma_rec *queued, **queued_tail;
	char path[MPD_CHAN_PATH_MAX + 2 * MPD_CHAN_NODE_MAX];
};

static inline struct cma_chan *
cma_chan(struct rdma_event_channel *ch)
{
	return (struct cma_chan *)ch;
}

/* The verbs device of the process's node, as librdmacm's cma_device */
struct cma_device {
	struct ibv_context *verbs;
	struct ibv_pd *pd;		/* the default PD, while refs */
	unsigned int refs;		/* ids bound to it, device lists */
	uint8_t max_initiator_depth;
	uint8_t max_responder_resources;
	uint32_t max_qp_wr;
};

/* A multicast join of an id: rdma-core's cma_multicast. The daemon's
 * records name it by uid (its address here), which is looked up in the
 * id's list, never followed. */
struct cma_mc {
	struct cma_mc *next;
	void *context;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	uint16_t join_flags;		/* RDMA_MC_JOIN_FLAG_* */
	union ibv_gid mgid;		/* once joined */
	uint16_t mlid;
	uint32_t out;			/* events handed out, not acked */
};

/* An id: rdma-core's cma_id_private, less what the kernel kept */
struct cma_id {
	struct rdma_cm_id id;		/* first: the application's pointer */
	uint32_t handle;		/* the daemon's, never 0 */
	bool sync;			/* id.channel is its own */
	bool connect_error;		/* CONNECT_ERROR given: drop what follows */
	bool dying;			/* destroyed: its records are dropped */
	struct cma_device *dev;		/* once bound to the port */
	uint8_t initiator_depth;
	uint8_t responder_resources;
	struct ibv_qp_init_attr *qp_init_attr;	/* rdma_create_ep(), passive */
	void *connect;			/* rdma_create_ep(): ai_connect */
	size_t connect_len;
	struct ibv_ece local_ece;
	pthread_mutex_t mut;		/* the counts */
	pthread_cond_t cond;
	uint32_t seen;			/* records taken out of a ring */
	uint32_t completed;		/* acked, or dropped by us */
	uint32_t out;			/* taken from a list, not completed */
	struct cma_mc *mc_list;		/* joins not left, under mut */
	struct cma_id *hnext;		/* the handle table (id.c) */
};

static inline struct cma_id *
cma_id(struct rdma_cm_id *id)
{
	return (struct cma_id *)id;
}

/* An event handed out: rdma-core's cma_event */
struct cma_event {
	struct rdma_cm_event event;
	uint8_t private_data[CMA_MAX_PRIVATE_DATA];
	struct cma_id *owner;		/* whose count the ack completes */
	struct cma_mc *mc;		/* MULTICAST_*: the join's too */
};

/* chan.c */
struct cma_chan *cma_chan_open(void);
void cma_chan_close(struct cma_chan *c);
void cma_chan_get(struct cma_chan *c);
void cma_chan_put(struct cma_chan *c);
bool cma_chan_closing(struct cma_chan *c);
/* One request on the channel's session: 0 with the reply in *m, the
 * daemon's status (a positive errno), ENOSYS (the daemon cut the session
 * off for a request it does not serve) or EIO (the daemon is gone). */
int cma_call(struct cma_chan *c, struct mpd_chan_msg *m);
/* The next CM record of the ring into *r: 1, 0 when it is empty, or
 * -EIO on a ring the daemon wrote garbage into (records of other kinds,
 * or of another size, are skipped). rx_lock held. */
int cma_chan_pull(struct cma_chan *c, struct mpd_cm_event_rec *r);
/* After c->queued changed: the fd readable exactly while a record waits
 * in the ring or the list. rx_lock held. */
void cma_chan_rearm(struct cma_chan *c);
/* Sleep until the fd is readable (or timeout_ms, -1 for ever): 0, EAGAIN
 * when the application made the fd non-blocking and nothing is there,
 * ETIMEDOUT, or EIO when the daemon is gone. */
int cma_chan_wait(struct cma_chan *c, int timeout_ms);

/* device.c */
/* The device of the port an id is bound to, a reference taken, its
 * default PD allocated: 0 or an errno */
int cma_device_get(struct cma_device **dev);
void cma_device_put(struct cma_device *dev);
/* The port's link layer (IBV_LINK_LAYER_*) */
uint8_t cma_device_link_layer(struct cma_device *dev, uint8_t port_num);

/* id.c */
/* A new id on channel (NULL: a private one), the daemon's handle not yet
 * set: NULL with errno */
struct cma_id *cma_id_alloc(struct rdma_event_channel *channel,
			    void *context, enum rdma_port_space ps,
			    enum ibv_qp_type qp_type);
/* Enter a handle the daemon gave into the table */
void cma_id_insert(struct cma_id *p, uint32_t handle);
void cma_id_free(struct cma_id *p);
/* The id of a handle (also one being destroyed: look at dying), or
 * NULL. The table's lock is taken inside. */
struct cma_id *cma_id_lookup(uint32_t handle);
/* A record of the id taken from a channel's list (to be handed out),
 * and its completion: acked, or dropped while it was processed */
void cma_id_taken(struct cma_id *p);
void cma_id_complete(struct cma_id *p);
/* Move the ring's records into c->queued, dropping those of ids being
 * destroyed (and of handles we do not know); the fd re-armed after.
 * rx_lock held. 0 or EIO. */
int cma_drain(struct cma_chan *c);
/* CREATE_ID with the given port space and QP type */
int cma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
		  void *context, enum rdma_port_space ps,
		  enum ibv_qp_type qp_type);
/* DESTROY_ID of a handle nobody holds (a request we could not take) */
void cma_destroy_handle(struct cma_chan *c, uint32_t handle);
/* A request naming the id only (struct mpd_cm_id_req) */
int cma_id_call(struct cma_id *p, uint32_t type, uint32_t arg);

/* query.c */
/* QUERY the id into its route and addresses; binds it to the device
 * once the daemon names its port. 0 or an errno. */
int cma_query(struct cma_id *p);
/* An address for a request: EINVAL for a family rdma_cm does not take
 * (AF_IB is not served: librdmacm without AF_IB support refuses it) */
int cma_addr_from_sockaddr(const struct sockaddr *sa, struct mpd_cm_addr *a);
socklen_t cma_addrlen(const struct sockaddr *sa);

/* qp.c */
/* Move the id's QP (if any) to RTR then RTS, as rdma_init_qp_attr() has
 * it: ucma_modify_qp_rtr/rts. 0 or an errno. */
int cma_qp_to_rtr(struct cma_id *p, uint8_t resp_res);
int cma_qp_to_rts(struct cma_id *p, uint8_t init_depth);
int cma_qp_to_err(struct cma_id *p);
/* The active side after the REP: QP to RTR and RTS, then ESTABLISH (the
 * RTU); the QP in ERR on failure. 0 or an errno. */
int cma_conn_resp(struct cma_id *p);
void cma_ah_from_mpd(struct ibv_ah_attr *dst, const struct mpd_v_ah *src);

/* event.c */
/* A synchronous id: wait for the event its call produces, as
 * ucma_complete() does; 0 for an asynchronous one. -1 with errno. */
int cma_complete(struct cma_id *p);

#endif
