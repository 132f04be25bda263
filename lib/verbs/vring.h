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

#include <pthread.h>
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
/* Completions written and not yet consumed (at most ncqe) */
uint32_t mpd_v_cq_pending(const struct mpd_v_cq_ring *r);

/* ---- work queues ---- */

struct mpd_v_doorbell {
	const uint32_t *armed;		/* the session's doorbell_armed */
	uint32_t *rings;		/* its doorbell_rings; NULL: none */
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

/*
 * A send WQE being written into the slot at sq.pi. open checks the
 * operation against the transport and the room (EINVAL, ENOMEM); the
 * data setters write into the slot, the header stays here until close
 * checks the whole (UD has an address, an atomic one SGE), copies it in
 * and counts the WQE in sq.pi. Nothing is published: post_send and the
 * ibv_wr_* batch do that.
 */
struct mpd_v_swqe_b {
	struct mpd_v_swqe h;
	uint8_t *slot;
	bool has_ah;
};

int mpd_v_swqe_open(struct mpd_v_qp_ring *q, struct mpd_v_swqe_b *b,
		    enum ibv_wr_opcode op, uint64_t wr_id, unsigned int flags);
/* UD: the AH's address, remote QPN and Q_Key (EINVAL: no AH, not UD) */
int mpd_v_swqe_ud(struct mpd_v_qp_ring *q, struct mpd_v_swqe_b *b,
		  const struct ibv_ah *ah, uint32_t remote_qpn,
		  uint32_t remote_qkey);
/* The data: SGEs (EINVAL past max_send_sge), or a copy of buffers
 * (EINVAL past max_inline_data, or for an operation that carries no data
 * out: reads and atomics). The last setter called wins. */
int mpd_v_swqe_sge(struct mpd_v_qp_ring *q, struct mpd_v_swqe_b *b,
		   const struct ibv_sge *sg, size_t n);
int mpd_v_swqe_inline(struct mpd_v_qp_ring *q, struct mpd_v_swqe_b *b,
		      const struct ibv_data_buf *buf, size_t n);
int mpd_v_swqe_close(struct mpd_v_qp_ring *q, struct mpd_v_swqe_b *b);

static inline void
mpd_v_swqe_remote(struct mpd_v_swqe_b *b, uint32_t rkey, uint64_t addr)
{
	b->h.rkey = rkey;
	b->h.remote_addr = addr;
}

static inline void
mpd_v_swqe_atomic(struct mpd_v_swqe_b *b, uint32_t rkey, uint64_t addr,
		  uint64_t compare_add, uint64_t swap)
{
	mpd_v_swqe_remote(b, rkey, addr);
	b->h.compare_add = compare_add;
	b->h.swap = swap;
}

/* imm_data (network order), or a send's invalidate_rkey */
static inline void
mpd_v_swqe_imm(struct mpd_v_swqe_b *b, uint32_t imm)
{
	b->h.imm_data = imm;
}

/* IBV_WR_BIND_MW (madpmd/verbs.h): EINVAL when rkey is not the window's
 * (another index), or no MR is given for a range */
int mpd_v_swqe_bind(struct mpd_v_swqe_b *b, const struct ibv_mw *mw,
		    uint32_t rkey, const struct ibv_mw_bind_info *info);

/*
 * The ibv_wr_* API's batch, between wr_start and wr_complete: WQEs are
 * written as above past the published sq_pi; complete publishes them
 * all, or none when any call failed (the first error is returned) or the
 * QP is not yet ready to send (EINVAL, as post_send); abort drops them.
 */
struct mpd_v_wr_batch {
	struct mpd_v_swqe_b cur;
	uint32_t start;			/* sq.pi at start */
	int err;			/* the first error */
	bool open;			/* cur is a WQE not closed yet */
};

void mpd_v_batch_start(struct mpd_v_qp_ring *q, struct mpd_v_wr_batch *bt);
/* Close the WQE in hand and open one for op: the one the setters fill */
void mpd_v_batch_op(struct mpd_v_qp_ring *q, struct mpd_v_wr_batch *bt,
		    enum ibv_wr_opcode op, uint64_t wr_id, unsigned int flags);
int mpd_v_batch_complete(struct mpd_v_qp_ring *q, struct mpd_v_wr_batch *bt);
void mpd_v_batch_abort(struct mpd_v_qp_ring *q, struct mpd_v_wr_batch *bt);

/* The WQE the setters fill: NULL after an error (they do nothing) */
static inline struct mpd_v_swqe_b *
mpd_v_batch_cur(struct mpd_v_wr_batch *bt)
{
	return bt->err || !bt->open ? NULL : &bt->cur;
}

/* Keep the first error of the batch */
static inline void
mpd_v_batch_fail(struct mpd_v_wr_batch *bt, int rc)
{
	if (rc && !bt->err)
		bt->err = rc;
}

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

/* ---- a QP's send side (qpex.c) ---- */

/* rdma-core's struct verbs_qp: ibv_qp_ex, then comp_mask and xrcd, which
 * ibv_qp_to_qp_ex() reads (driver.h's enum verbs_qp_mask) */
#define MPD_VERBS_QP_EX		(1u << 1)

struct mpd_v_qp_base {
	struct ibv_qp_ex qpx;		/* qpx.qp_base is the ibv_qp */
	uint32_t comp_mask;		/* MPD_VERBS_QP_EX: made with send ops */
	void *xrcd;			/* none here */
	pthread_spinlock_t sq_lock;	/* posts; held wr_start..complete */
	struct mpd_v_qp_ring ring;
	struct mpd_v_wr_batch wr;	/* under sq_lock */
};

/* ibv_create_qp_ex()'s send_ops_flags for a transport: 0 or EOPNOTSUPP */
int mpd_v_qpex_check(uint32_t qp_type, uint64_t send_ops_flags);
/* Fill the ibv_wr_* pointers of a QP whose ring is attached */
void mpd_v_qpex_init(struct mpd_v_qp_base *b);

/* address vectors both ways */
void mpd_v_ah_from_attr(struct mpd_v_ah *av, const struct ibv_ah_attr *a);
void mpd_v_ah_to_attr(struct ibv_ah_attr *a, const struct mpd_v_ah *av);

#endif
