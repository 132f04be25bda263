/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the QP layer: the QP, its requester (req.c) and responder
 * (resp.c) state, the CQ writer (cq.c), the MR checks (mr.c), paths
 * (path.c), receive WRs (rq.c) and async events (async.c). qp.c owns the
 * state machine and the dispatch and calls the others; req.c and resp.c
 * call only the helpers below them, never qp.c or each other.
 */
#ifndef NET_HCA_QP_PRIV_H
#define NET_HCA_QP_PRIV_H

#include <infiniband/verbs.h>

#include "qp.h"

#define PSN_MASK	0xffffffu
#define REQ_WINDOW	256	/* packets in flight, unacknowledged */
#define ACK_EVERY	16	/* a multi-packet message asks for an ACK */
#define RD_JOBS		MPD_V_MAX_RD_ATOMIC	/* READ responses queued */

/* a - b on the 24-bit PSN circle, signed */
static inline int32_t
psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

static inline uint32_t
psn_add(uint32_t a, uint32_t n)
{
	return (a + n) & PSN_MASK;
}

/* A send WR as the daemon keeps it: what the client wrote, read once */
struct hca_v_swr {
	struct mpd_v_swqe w;
	union {
		struct mpd_v_sge sg[MPD_V_MAX_SGE];
		uint8_t inl[MPD_V_MAX_INLINE];
	} u;
	uint32_t len;			/* bytes it moves */
	uint32_t npkts;			/* packets (PSNs) it takes */
	uint32_t first_psn;
	uint8_t wc_opcode;		/* enum ibv_wc_opcode */
	bool signaled;
	bool rd_atomic;			/* READ or atomic: an answer awaited */
};

/* A receive WR, as copied off the receive queue */
struct hca_v_rwr {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t len;			/* room in its SGEs */
	struct mpd_v_sge sg[MPD_V_MAX_SGE];
};

/* A READ or atomic the responder answers (IBA 9.7.5.1.x): kept for
 * duplicates until MaxDestRdAtomic newer ones replace it */
struct hca_v_rdjob {
	uint32_t psn;			/* first response PSN */
	uint32_t npkts;
	uint32_t sent;			/* responses sent so far */
	uint64_t va;
	uint32_t rkey;
	uint32_t len;
	bool atomic;
	uint64_t orig;			/* atomic: the value before */
	bool pending;			/* responses still to send */
};

struct hca_v_qp {
	TAILQ_ENTRY(hca_v_qp) next;	/* in v->active */
	bool listed;
	struct hca_v_owner *owner;
	uint32_t handle;
	uint32_t qpn;
	uint32_t type;			/* IBV_QPT_RC, UC, UD */
	uint32_t pd;
	bool sq_sig_all;
	struct hca_v_cq *scq, *rcq;
	struct hca_v_srq *srq;
	struct mpd_v_qp_cap cap;
	struct mpd_v_qp_attr attr;	/* the state and what modify set */
	uint32_t mtu;			/* bytes, from path_mtu */
	/* shared memory */
	void *map;
	size_t map_len;
	struct mpd_v_qp_shm *shm;
	uint8_t *sq, *rq;
	uint32_t sq_wqes, rq_wqes, sq_stride, rq_stride;
	uint32_t sq_taken;		/* send WQEs copied off the ring */
	uint32_t rq_taken;
	/* requester: swr[] holds WRs taken, by count % sq_wqes */
	struct hca_v_swr *swr;
	uint32_t wr_done;		/* WRs completed (the oldest live) */
	uint32_t wr_cur;		/* the WR being sent */
	uint32_t cur_pkt;		/* its next packet */
	uint32_t wr_psn;		/* WRs with PSNs given */
	uint32_t sq_psn;		/* next PSN to give */
	uint32_t acked_pkts;		/* of the oldest WR, acknowledged */
	uint32_t rd_in_flight;		/* READs and atomics sent */
	uint32_t rd_resp_psn;		/* next READ response expected */
	uint64_t rto_at;		/* ns; 0: no timer */
	uint64_t rnr_at;		/* ns; 0: not waiting out an RNR NAK */
	uint8_t retry_left;
	uint8_t rnr_left;
	bool sq_error;			/* SQE/ERR: flush what is left */
	/* responder */
	uint32_t epsn;
	uint32_t msn;
	bool nak_sent;			/* one NAK per sequence error */
	bool ack_pending;
	uint8_t ack_syn;		/* the syndrome to send */
	uint32_t ack_psn;
	struct hca_v_rwr cur;		/* the receive a message fills */
	bool cur_valid;
	uint32_t cur_off;
	bool cur_drop;			/* UC: rest of a broken message */
	uint64_t wr_va;			/* RDMA WRITE in progress */
	uint32_t wr_rkey;
	uint32_t wr_left;
	struct hca_v_rdjob rd[RD_JOBS];
	uint32_t rd_head;		/* jobs queued, ring of RD_JOBS */
	bool comm_est;			/* received since RTR: COMM_EST raised */
	bool error_pending;		/* to ERR once the packet or poll ends */
	uint32_t err_status;		/* ... why (enum ibv_wc_status) */
	uint32_t err_psn;		/* ... and the packet that said it */
	uint32_t cur_psn;		/* the requester's packet in hand */
	uint32_t async_events;
};

/* ---- cq.c ---- */
/* Write one completion, psn the packet that completed it (for capture
 * records; HCA_V_NO_PSN); false when the CQ overran (it is in error). */
bool cq_push(struct hca_verbs *v, struct hca_v_cq *cq,
	     const struct mpd_v_cqe *e, bool solicited, uint32_t psn);

/* ---- mr.c ---- */
/* The daemon's address of [va, va + len) of MR key for a use needing
 * access (IBV_ACCESS_*; 0 for a local read) by a QP of pd; NULL when
 * the key, range, PD or access is wrong. */
uint8_t *mr_lookup(struct hca_verbs *v, uint32_t key, uint32_t pd,
		   uint64_t va, uint64_t len, uint32_t access);
/* Copy between SGEs and a flat buffer, from byte off of the SGE list;
 * false on a bad SGE. to_sge: the data goes into the SGEs. */
bool sge_copy(struct hca_verbs *v, uint32_t pd, const struct mpd_v_sge *sg,
	      uint32_t nsge, uint32_t off, uint8_t *buf, uint32_t len,
	      bool to_sge);

/* The QP goes to ERR (IBA 10.3.1, everything outstanding flushed) once
 * the packet or poll that found the error is done: qp.c does it, so
 * that the requester and responder never call back into it. */
static inline void
qp_error_at(struct hca_v_qp *qp, uint32_t status, uint32_t psn)
{
	if (!qp->error_pending) {
		qp->err_status = status;
		qp->err_psn = psn;
	}
	qp->error_pending = true;
}

static inline void
qp_error(struct hca_v_qp *qp)
{
	qp_error_at(qp, IBV_WC_GENERAL_ERR, HCA_V_NO_PSN);
}

/* ---- mcast.c ---- */
/* The group a packet to DestQP 0xFFFFFF is for (its DLID, and its DGID
 * when it has a GRH), or NULL */
const struct hca_v_mcg *mcast_group(const struct hca_verbs *v,
				    const struct mpd_pkt *pk);
/* A QP going away leaves every group */
void mcast_qp_gone(struct hca_verbs *v, uint32_t qpn);

/* ---- async.c ---- */
void qp_async(struct hca_v_qp *qp, enum ibv_event_type ev);

/* ---- path.c ---- */
/* Headers to the QP's destination (RC/UC) or ah (UD). false: no route */
bool qp_headers(struct hca_verbs *v, struct hca_v_qp *qp,
		const struct mpd_v_ah *ah, uint32_t dest_qp, struct mpd_pkt *pk);
uint32_t qp_mtu_bytes(uint32_t path_mtu);

/* ---- rq.c ---- */
/* Take one receive WR from the QP's RQ or SRQ into *r: false when none
 * (or a bad one: *bad set, and the caller puts the QP in error). */
bool qp_take_recv(struct hca_verbs *v, struct hca_v_qp *qp,
		  struct hca_v_rwr *r, bool *bad);

/* ---- req.c: the requester ---- */
void req_poll(struct hca_verbs *v, struct hca_v_qp *qp, uint64_t now_ns,
	      struct hca_v_out *out);
/* an ACK, NAK, READ response or atomic ACK for this QP */
void req_input(struct hca_verbs *v, struct hca_v_qp *qp,
	       const struct mpd_pkt *pk, uint64_t now_ns);
/* Complete every WR taken with flush errors (the QP is in ERR). */
void req_flush(struct hca_verbs *v, struct hca_v_qp *qp);
/* Signaled WRs posted (taken or still on the ring) and not completed */
uint32_t req_owed(const struct hca_v_qp *qp);

/* ---- resp.c: the responder ---- */
void resp_input(struct hca_verbs *v, struct hca_v_qp *qp,
		const struct mpd_pkt *pk, uint64_t now_ns);
void resp_poll(struct hca_verbs *v, struct hca_v_qp *qp,
	       struct hca_v_out *out);
void resp_flush(struct hca_verbs *v, struct hca_v_qp *qp);

#endif
