/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client's side of the verbs shared memory (madpmd/verbs.h): a CQ
 * ring it polls, and the work queues it posts into. Pure functions of
 * memory (and a doorbell fd), no session: tests/unit/test_verbs_ring.c
 * runs them against rings in ordinary memory. Everything the daemon
 * could change after the checks (sizes, offsets) is copied once; the
 * indexes we produce or consume are ours, the daemon's are advice.
 */
#ifndef MADPMD_VRING_H
#define MADPMD_VRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "madpmd/verbs.h"

/* ---- CQ ---- */

struct mpd_v_cq_ring {
	struct mpd_v_cq_shm *shm;
	struct mpd_v_cqe *cqe;
	uint32_t ncqe;			/* a power of two, checked */
	uint32_t ci;			/* ours; shm->ci is its copy */
	uint32_t arm;			/* the last comp_arm we stored */
	struct mpd_v_cqe cur;		/* cq_ex: the entry in hand */
	bool cur_valid;
};

/* Check a CQ mapping of size bytes that should hold ncqe entries: 0 or
 * EPROTO. */
int mpd_v_cq_attach(struct mpd_v_cq_ring *r, void *map, size_t size,
		    uint32_t ncqe);
/* ibv_poll_cq(): entries taken (0 when empty), or -1 when the CQ is in
 * error and empty. Publishes ci once. */
int mpd_v_cq_poll(struct mpd_v_cq_ring *r, int n, struct ibv_wc *wc);
/* cq_ex: take the next entry into r->cur: 0 or ENOENT. start consumes
 * nothing; next consumes the entry in hand first; end consumes the entry
 * in hand (if any) and publishes ci. */
int mpd_v_cq_start(struct mpd_v_cq_ring *r);
int mpd_v_cq_next(struct mpd_v_cq_ring *r);
void mpd_v_cq_end(struct mpd_v_cq_ring *r);
/* ibv_req_notify_cq() */
void mpd_v_cq_arm(struct mpd_v_cq_ring *r, int solicited_only);

/* ---- work queues ---- */

struct mpd_v_doorbell {
	const uint32_t *armed;		/* the session's doorbell_armed */
	int fd;				/* -1: none */
};

struct mpd_v_wq {
	uint8_t *buf;
	uint32_t wqes;			/* a power of two; 0: none */
	uint32_t stride;
	uint32_t pi;			/* ours; *pi_shm is its copy */
	uint32_t *pi_shm;
	const uint32_t *ci_shm;		/* the daemon's */
	uint32_t max_sge;
	uint32_t max_inline;		/* send queue */
};

struct mpd_v_qp_ring {
	struct mpd_v_qp_shm *shm;
	struct mpd_v_wq sq, rq;
	uint32_t qp_type;		/* enum ibv_qp_type */
	const struct mpd_v_doorbell *db;
};

/* An address handle: the address goes into each UD send's WQE */
struct mpd_v_ah_obj {
	struct ibv_ah ah;
	struct mpd_v_ah av;
};

/* Check a QP (or SRQ: no send queue, srq set) mapping of size bytes
 * against the capabilities granted: 0 or EPROTO. */
int mpd_v_qp_attach(struct mpd_v_qp_ring *q, void *map, size_t size,
		    const struct mpd_v_qp_cap *cap, uint32_t qp_type,
		    bool has_sq, bool has_rq, const struct mpd_v_doorbell *db);
/* ibv_post_send() / ibv_post_recv() on the ring: 0, or a positive errno
 * with *bad set to the first WR not posted (those before it are). */
int mpd_v_post_send(struct mpd_v_qp_ring *q, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad);
int mpd_v_post_recv(struct mpd_v_qp_ring *q, bool check_state,
		    struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);

/* address vectors both ways */
void mpd_v_ah_from_attr(struct mpd_v_ah *av, const struct ibv_ah_attr *a);
void mpd_v_ah_to_attr(struct ibv_ah_attr *a, const struct mpd_v_ah *av);

#endif
