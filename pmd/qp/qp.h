/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP layer of one port, beside the MAD layer: memory regions, CQs,
 * SRQs and UD/RC/UC queue pairs (IBA 9-11), driven by the work requests
 * clients post into shared memory and by the data packets off the wire.
 *
 * Like the MAD layer it knows no mbuf, no lock and no clock: callers hold
 * the port lock for every call but the *_new()/free ones and pass the
 * time in ns; frames leave through an emit callback. It knows a client
 * only as a struct hca_v_owner with one callback (an async event), and a
 * completion channel only as a refcounted socket it writes after the lock
 * is dropped (hca_v_kicks()). It includes no channel header.
 *
 * Memory the client shares (rings, MRs) is mapped by the channel; the
 * layer reads what the client writes there once, into its own copies,
 * and checks every value before use.
 */
#ifndef NET_HCA_QP_H
#define NET_HCA_QP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "madpmd/verbs.h"
#include "../node/node.h"

#define HCA_V_MAX_QPS		MPD_V_PORT_QPS
#define HCA_V_QPN_BASE		0x40	/* below: QP0, QP1 and reserved */
#define HCA_V_MAX_MRS		MPD_V_PORT_MRS
#define HCA_V_KICKS_MAX		64
#define HCA_V_NO_PSN		0xffffffffu

/* A QP's state changed (for capture records) */
struct hca_v_qp_event {
	uint32_t qpn;
	uint32_t handle;
	uint32_t qp_type;
	uint32_t old_state;
	uint32_t new_state;
	uint32_t cause;			/* 0 modify, 1 error, 2 destroy */
	uint32_t status;		/* error: enum ibv_wc_status */
	uint32_t psn;			/* error: the packet; HCA_V_NO_PSN */
	uint32_t dest_qp;
};

struct hca_v_owner;

struct hca_v_owner_ops {
	/* an async event for the owner (lock held; no system call) */
	void (*async)(struct hca_v_owner *o, const struct mpd_v_async_rec *r);
};

/* A client as the QP layer knows it; the channel embeds it. */
struct hca_v_owner {
	const struct hca_v_owner_ops *ops;
	uint32_t id;
	bool dead;
};

/* A completion channel: our end of a socketpair, a byte sent an event
 * after the lock is dropped (never blocking, never SIGPIPE). Freed (fd
 * closed) by whoever drops the last reference. */
struct hca_v_comp {
	int fd;
	uint32_t refs;
	bool queued;			/* in the kick list */
};

void hca_v_comp_get(struct hca_v_comp *c);
void hca_v_comp_put(struct hca_v_comp *c);

/* A memory region: pages of a client's shared memory. Or a memory window
 * (IBA 10.6.7, mw_type 1 or 2): a key of its own for remote access to a
 * part of a region, bound and unbound by work requests (mw.c); the same
 * fields then describe what is bound, in the same key space. */
struct hca_v_mr {
	struct hca_v_owner *owner;
	uint32_t pd;
	uint32_t key;			/* lkey == rkey */
	uint32_t access;		/* enum ibv_access_flags */
	uint64_t iova;			/* the client's address of byte 0 */
	uint64_t length;
	uint8_t *base;			/* the daemon's mapping of byte 0 */
	void *map;			/* the channel's: who unmaps it */
	uint32_t users;			/* windows bound to it */
	uint8_t mw_type;		/* 0: a region; a window's type */
	bool bound;			/* a window: bound to parent */
	struct hca_v_mr *parent;	/* the region a bound window is in */
	uint32_t qpn;			/* a bound type 2 window: the QP
					 * that bound it, the only one it
					 * serves (type 2B) */
};

struct hca_v_cq {
	struct hca_v_owner *owner;
	uint32_t handle;
	struct mpd_v_cq_shm *shm;
	struct mpd_v_cqe *cqe;
	uint32_t ncqe;
	uint32_t pi;			/* entries written */
	uint32_t ci_seen;		/* the client's count, checked */
	uint32_t arm_fired;		/* the arm count last raised for */
	uint32_t events;		/* comp events raised */
	uint32_t users;			/* QPs that complete into it */
	uint32_t async_events;		/* CQ_ERR raised */
	bool error;
	struct hca_v_comp *comp;
	void *map;
	size_t map_len;
};

struct hca_v_srq {
	struct hca_v_owner *owner;
	uint32_t handle;
	uint32_t pd;
	struct mpd_v_qp_shm *shm;
	uint8_t *rq;
	uint32_t wqes, stride, max_sge;
	uint32_t ci;			/* receives taken */
	uint32_t limit;			/* SRQ_LIMIT_REACHED below this */
	uint32_t users;
	uint32_t async_events;
	void *map;
	size_t map_len;
};

struct hca_v_qp;

/* A multicast group some of the port's UD QPs are attached to */
struct hca_v_mcg {
	uint8_t mgid[16];
	uint16_t mlid;
	uint16_t nqps;			/* 0: a free slot */
	uint32_t qpn[MPD_V_MAX_MCAST_QP_ATTACH];
};

struct hca_verbs {
	struct hca_port *port;
	struct hca_v_qp *qp[HCA_V_MAX_QPS];	/* by qpn - HCA_V_QPN_BASE */
	uint32_t next_qp;
	uint32_t nqps;
	TAILQ_HEAD(, hca_v_qp) active;	/* QPs whose queues to look at */
	struct hca_v_mr *mr[HCA_V_MAX_MRS];	/* by key >> 8 */
	uint32_t next_mr;
	uint8_t mr_gen[HCA_V_MAX_MRS];
	struct hca_v_comp *kick[HCA_V_KICKS_MAX];
	unsigned int nkick;
	uint8_t scratch[4096 + 64];	/* a payload gathered from SGEs */
	struct hca_v_mcg mcg[MPD_V_MAX_MCAST_GRP];
	/* every completion written and state change, for capture records
	 * (lock held) */
	void (*on_cqe)(void *ctx, uint32_t cq_handle, const struct mpd_v_cqe *e,
		       uint32_t psn);
	void (*on_qp)(void *ctx, const struct hca_v_qp_event *ev);
	void *rec_ctx;
};

/* Frames the layer sends: headers in pk (addresses, BTH and extension
 * headers filled) and len bytes of payload. false when there was no
 * room (the frame is counted as a discard by the callee). */
struct hca_v_out {
	bool (*emit)(void *ctx, struct mpd_pkt *pk, const void *payload,
		     uint32_t len);
	void *ctx;
	unsigned int room;
};

void hca_verbs_init(struct hca_verbs *v, struct hca_port *port);
/* The link's headers of a packet to ah from port p (IB: LRH, and the GRH
 * when ah is global; RoCEv2: Ethernet, IP and UDP to RoCE's port, the
 * source port left to the sender), pk cleared first; false: no route.
 * The QP layer's and the daemon's own UD sender's (net/ipoib.c). */
bool hca_path_headers(const struct hca_port *p, const struct mpd_v_ah *ah,
		      struct mpd_pkt *pk);

/* A data packet off the wire (dest QP > 1), checked by the port. */
void hca_verbs_input(struct hca_verbs *v, const struct mpd_pkt *pk,
		     uint64_t now_ns, struct hca_v_out *out);
/* Send queues and timers. */
void hca_verbs_poll(struct hca_verbs *v, uint64_t now_ns,
		    struct hca_v_out *out);
/* The monotonic time (ns) the QPs next have work at without a client or
 * the wire bringing it: 0 when a send queue, an ACK, a READ response or
 * an error is due now, the nearest RNR wait's or retransmission timer's
 * end, HCA_V_NEVER when nothing. */
#define HCA_V_NEVER	UINT64_MAX
uint64_t hca_verbs_wake_at(const struct hca_verbs *v);
/* true while a timer runs (retransmission, RNR wait) or a send queue
 * has work, whatever the QP's state: the port's polls must look (a QP
 * can be moved to RTS with sends queued). */
bool hca_verbs_busy(const struct hca_verbs *v);
/* Completion channels to write, taken with the lock held. */
unsigned int hca_v_kicks(struct hca_verbs *v, struct hca_v_comp **k);
void hca_v_kick(struct hca_v_comp **k, unsigned int n);

/* ---- objects: made outside the lock, added and removed under it ---- */

/* MRs and windows: add returns 0 (key set) or ENOMEM; remove 0 or EBUSY
 * (a region windows are bound to); a window is unbound first. */
int hca_v_mr_add(struct hca_verbs *v, struct hca_v_mr *mr);
int hca_v_mr_remove(struct hca_verbs *v, struct hca_v_mr *mr);

/* A CQ of ncqe entries (a power of two) in shm (map_len bytes). */
void hca_v_cq_init(struct hca_v_cq *cq, void *shm, size_t map_len,
		   uint32_t ncqe);
int hca_v_cq_remove(struct hca_verbs *v, struct hca_v_cq *cq);
/* Completions the CQ will get for sends posted already: signaled send
 * WRs of its QPs not completed yet (taken, or still on their rings) */
uint32_t hca_v_cq_owed(const struct hca_verbs *v, const struct hca_v_cq *cq);
/* Move a CQ to a new zeroed mapping shm (map_len bytes, ncqe entries: a
 * power of two > cqe), the entries the client has not polled at ci
 * copied (madpmd/verbs.h's RESIZE_CQ); EINVAL when ci is not one the
 * client can have or more than cqe entries follow it with the owed ones
 * (hca_v_cq_owed()), and the CQ stays as it was. The caller unmaps the
 * old mapping (cq->map before). */
int hca_v_cq_resize(struct hca_v_cq *cq, void *shm, size_t map_len,
		    uint32_t ncqe, uint32_t cqe, uint32_t ci, uint32_t owed);

void hca_v_srq_init(struct hca_v_srq *srq, void *shm, size_t map_len,
		    uint32_t wqes, uint32_t stride, uint32_t max_sge);
int hca_v_srq_modify(struct hca_verbs *v, struct hca_v_srq *srq,
		     uint32_t mask, uint32_t max_wr, uint32_t limit);

/* The shared memory a QP of these capacities needs (its layout filled
 * into *shm_hdr), rounded to pages; cap rounded up to what it gets. */
size_t hca_v_qp_layout(uint32_t qp_type, struct mpd_v_qp_cap *cap,
		       bool has_srq, struct mpd_v_qp_shm *shm_hdr);
/* A QP, RESET, in shared memory laid out by hca_v_qp_layout(); NULL on
 * ENOMEM. Outside the lock. */
struct hca_v_qp *hca_v_qp_new(struct hca_v_owner *o, uint32_t handle,
			      const struct mpd_v_create_qp_req *req,
			      const struct mpd_v_qp_cap *cap, void *shm,
			      size_t map_len);
/* Give it a number, its CQs and SRQ; 0 or ENOMEM (no number left). */
int hca_v_qp_add(struct hca_verbs *v, struct hca_v_qp *qp,
		 struct hca_v_cq *scq, struct hca_v_cq *rcq,
		 struct hca_v_srq *srq);
uint32_t hca_v_qp_num(const struct hca_v_qp *qp);
int hca_v_qp_modify(struct hca_verbs *v, struct hca_v_qp *qp,
		    const struct mpd_v_qp_attr *attr, uint32_t mask,
		    uint64_t now_ns);
void hca_v_qp_query(const struct hca_v_qp *qp, struct mpd_v_query_qp_rep *r);
/* Async events raised for it so far */
uint32_t hca_v_qp_async_events(const struct hca_v_qp *qp);
/* Port lock held: sends the client posted that the lcore has not put on
 * the wire yet (in RTS; in SQD, the ones it had taken), or an ACK the
 * responder owes */
bool hca_v_qp_sends_pending(const struct hca_v_qp *qp);
/* ibv_attach_mcast(), ibv_detach_mcast(): 0 or the errno of
 * madpmd/verbs.h's ATTACH_MCAST (lock held) */
int hca_v_mcast_attach(struct hca_verbs *v, struct hca_v_qp *qp,
		       const uint8_t gid[16], uint16_t lid);
int hca_v_mcast_detach(struct hca_verbs *v, struct hca_v_qp *qp,
		       const uint8_t gid[16], uint16_t lid);
/* Out of the tables (lock held); its memory freed by hca_v_qp_free()
 * (outside the lock), which also unmaps it. */
void hca_v_qp_remove(struct hca_verbs *v, struct hca_v_qp *qp);
void hca_v_qp_free(struct hca_v_qp *qp);

#endif
