/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the QP layer, in rxe's shape: the QP nests the state of its
 * requester (req.c: send WRs into packets), completer (comp.c: ACKs,
 * NAKs, READ responses and timers into CQEs) and responder (resp.c:
 * packets into receive WRs and memory, a state machine of checks; ack.c:
 * what it sends back). Below them: the send and receive queues (sq.c,
 * rq.c), the CQ writer (cq.c), the MR checks (mr.c), paths (path.c) and
 * async events (async.c). qp.c owns the QP state machine and the
 * dispatch and calls the others; req.c calls comp.c (its timers, a WR
 * done as it leaves or failed, the flush in Error), resp.c calls ack.c,
 * and none calls back up. (The completer's state is qp->comp; a
 * completion channel is cq.c's struct hca_v_comp.)
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
	bool local;			/* a bind or local invalidation: no
					 * packet (mw.c) */
};

/* w.opcode of a WR the client wrote wrong (IBA 10.8.3: it completes in
 * error, in order) */
#define HCA_V_WR_BAD	0xff

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

/* A work queue in the client's shared memory: it writes WQEs and the
 * producer count, the daemon copies them off and writes the consumer's */
struct qp_ring {
	uint8_t *base;
	uint32_t wqes;			/* a power of two; 0: none (SRQ) */
	uint32_t stride;
	uint32_t taken;			/* WQEs copied off it */
};

/* The requester (req.c): WRs taken off the send queue into packets */
struct qp_req {
	struct hca_v_swr *swr;		/* taken WRs, by count % sq.wqes */
	uint32_t cur;			/* the WR being sent */
	uint32_t cur_pkt;		/* its next packet */
	uint32_t numbered;		/* WRs given their PSNs */
	uint32_t psn;			/* the next PSN to give */
	uint32_t rd_atomic;		/* READs and atomics outstanding */
};

/* The completer (comp.c): what the responder answered, timers, CQEs */
struct qp_comp {
	uint32_t done;			/* WRs completed: the oldest live */
	uint32_t acked_pkts;		/* of the oldest, acknowledged */
	uint64_t rto_at;		/* ns; 0: no timer */
	uint64_t rnr_at;		/* ns; 0: not waiting out an RNR NAK */
	uint8_t retry_left;
	uint8_t rnr_left;
	uint32_t psn;			/* what a failure names: the answer
					 * in hand, or at a poll the oldest
					 * packet not acknowledged (records) */
};

/* The responder (resp.c, ack.c): packets into receive WRs and memory */
struct qp_resp {
	uint32_t epsn;			/* the PSN expected next */
	uint32_t msn;
	bool nak_sent;			/* one NAK per sequence error */
	struct {
		bool pending;
		uint8_t syn;		/* AETH syndrome */
		uint32_t psn;
	} ack;				/* the ACK or NAK to send */
	struct hca_v_rwr wqe;		/* the receive a SEND fills */
	bool wqe_valid;
	uint32_t off;			/* its bytes so far; a WRITE's length */
	bool drop;			/* UC: the rest of a broken message */
	struct {
		uint64_t va;
		uint32_t rkey;
		uint32_t left;
	} write;			/* the RDMA WRITE in progress */
	struct hca_v_rdjob rd[RD_JOBS];
	uint32_t rd_head;		/* jobs queued, ring of RD_JOBS */
	bool comm_est;			/* a packet since RTR: COMM_EST */
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
	struct qp_ring sq, rq;
	struct qp_req req;
	struct qp_comp comp;
	struct qp_resp resp;
	struct {
		bool pending;		/* to ERR after this packet or poll */
		uint32_t status;	/* why (enum ibv_wc_status) */
		uint32_t psn;		/* the packet that said it */
	} err;
	uint32_t async_events;
};

static inline uint32_t
qp_mtu(const struct hca_v_qp *qp)
{
	return qp->mtu ? qp->mtu : 256;
}

/* ---- sq.c: the send queue ---- */
/* New WRs off the shared ring into req.swr, as far as there is room */
void sq_take(struct hca_verbs *v, struct hca_v_qp *qp);
/* The WR numbered n (taken, not completed) */
static inline struct hca_v_swr *
sq_wr(struct hca_v_qp *qp, uint32_t n)
{
	return &qp->req.swr[n & (qp->sq.wqes - 1)];
}

/* Signaled WRs posted (taken or still on the ring) and not completed */
uint32_t sq_owed(const struct hca_v_qp *qp);

/* ---- cq.c ---- */
/* Write one completion, psn the packet that completed it (for capture
 * records; HCA_V_NO_PSN); false when the CQ overran (it is in error). */
bool cq_push(struct hca_verbs *v, struct hca_v_cq *cq,
	     const struct mpd_v_cqe *e, bool solicited, uint32_t psn);

/* ---- mr.c ---- */
/* The daemon's address of [va, va + len) of MR key for a use needing
 * access (IBV_ACCESS_*; 0 for a local read) by a QP of pd; NULL when
 * the key, range, PD or access is wrong. */
/* A key: its slot in the table of regions and windows, then a byte that
 * changes (a region's generation, a window's key byte its client gives) */
#define MR_KEY_GEN_BITS	8

/* The region or window in key's slot of the table, whatever its key byte */
static inline struct hca_v_mr *
key_slot(struct hca_verbs *v, uint32_t key)
{
	uint32_t idx = key >> MR_KEY_GEN_BITS;

	return idx < HCA_V_MAX_MRS ? v->mr[idx] : NULL;
}
#define MR_REMOTE_ACCESS	(IBV_ACCESS_REMOTE_WRITE | \
				 IBV_ACCESS_REMOTE_READ | \
				 IBV_ACCESS_REMOTE_ATOMIC)
/* A remote access through key for qp (its PD; a type 2 window bound by
 * it): the address, or NULL */
uint8_t *rkey_lookup(struct hca_verbs *v, const struct hca_v_qp *qp,
		     uint32_t key, uint64_t va, uint64_t len, uint32_t access);
/* mw.c: windows. Bind (IBV_WR_BIND_MW) and local invalidation
 * (IBV_WR_LOCAL_INV): the WR's status. Invalidation by a peer's SEND
 * with Invalidate to qp: true when done. A window's binding let go (a
 * region's: nothing). */
enum ibv_wc_status mw_local_op(struct hca_verbs *v, struct hca_v_qp *qp,
			       const struct hca_v_swr *w);
bool mw_remote_invalidate(struct hca_verbs *v, struct hca_v_qp *qp,
			  uint32_t rkey);
void mw_unbind(struct hca_v_mr *mw);
/* qp goes: the type 2 windows it bound are free again */
void mw_qp_gone(struct hca_verbs *v, const struct hca_v_qp *qp);
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
	if (!qp->err.pending) {
		qp->err.status = status;
		qp->err.psn = psn;
	}
	qp->err.pending = true;
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
		const struct mpd_v_ah *ah, uint32_t dest_qp,
		struct mpd_pkt *pk);
uint32_t qp_mtu_bytes(uint32_t path_mtu);

/* ---- rq.c ---- */
/* Take one receive WR from the QP's RQ or SRQ into *r: false when none
 * (or a bad one: *bad set, and the caller puts the QP in error). */
bool qp_take_recv(struct hca_verbs *v, struct hca_v_qp *qp,
		  struct hca_v_rwr *r, bool *bad);

/* ---- comp.c: the completer ---- */
/* The oldest PSN not acknowledged; the next to give when none is out
 * (sq_wr()'s indexing, on a const QP) */
static inline uint32_t
comp_oldest_psn(const struct hca_v_qp *qp)
{
	if (qp->comp.done == qp->req.numbered)
		return qp->req.psn;
	return psn_add(qp->req.swr[qp->comp.done & (qp->sq.wqes - 1)].first_psn,
		       qp->comp.acked_pkts);
}

/* The requester sends from the oldest unacknowledged packet again */
static inline void
comp_rewind(struct hca_v_qp *qp)
{
	qp->req.cur = qp->comp.done;
	qp->req.cur_pkt = qp->comp.acked_pkts;
}

/* w is done (status) and the next WR the oldest: its CQE when signaled
 * or failed */
void comp_wr(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_swr *w,
	     enum ibv_wc_status status);
/* The oldest WR failed (status), and the QP with it (IBA 10.8.3.1: RC
 * to ERR; UD and UC to SQE, which this port treats as ERR) */
void comp_fail(struct hca_verbs *v, struct hca_v_qp *qp,
	       enum ibv_wc_status status);
/* The retransmission timer runs, if it did not (RC; a WR numbered) */
void comp_timer_start(struct hca_v_qp *qp, uint64_t now_ns);
/* Timers (RC): false while an RNR wait runs or when the retries ran out
 * (the QP fails); a time-out rewinds the requester */
bool comp_timers(struct hca_verbs *v, struct hca_v_qp *qp, uint64_t now_ns);
/* An ACK, NAK, READ response or atomic ACK for this QP */
void comp_input(struct hca_verbs *v, struct hca_v_qp *qp,
		const struct mpd_pkt *pk, uint64_t now_ns);
/* Complete every WR taken with flush errors (the QP is in ERR) */
void comp_flush(struct hca_verbs *v, struct hca_v_qp *qp);

/* ---- req.c: the requester ---- */
void req_poll(struct hca_verbs *v, struct hca_v_qp *qp, uint64_t now_ns,
	      struct hca_v_out *out);

/* ---- resp.c: the responder ---- */
void resp_input(struct hca_verbs *v, struct hca_v_qp *qp,
		const struct mpd_pkt *pk, uint64_t now_ns);
void resp_flush(struct hca_verbs *v, struct hca_v_qp *qp);

/* ---- ack.c: what the responder sends ---- */
static inline struct hca_v_rdjob *
resp_rd_slot(struct hca_v_qp *qp, uint32_t n)
{
	return &qp->resp.rd[n % RD_JOBS];
}

/* An ACK (MPD_AETH_ACK | credits) for psn; never replaces a NAK queued
 * in the same poll */
void ack_queue(struct hca_v_qp *qp, uint8_t syn, uint32_t psn);
/* A NAK for the PSN expected; the first one queued says it */
void ack_nak(struct hca_v_qp *qp, uint8_t code);
/* IBA 9.7.5.2.8: an RNR NAK with the QP's min_rnr_timer */
void ack_rnr(struct hca_verbs *v, struct hca_v_qp *qp);
/* READ responses, atomic ACKs, then the ACK or NAK queued */
void ack_poll(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_out *out);

#endif
