/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs: their shared memory, the state machine of IBA 10.3 with
 * the attributes each transition requires and allows (IBA 11.2.5.2,
 * Table 91; the kernel's ib_modify_qp_is_ok()), their addresses, and the
 * dispatch of packets and polls to the requester, the completer and the
 * responder.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "madpmd/mad.h"
#include "madpmd/page.h"
#include "qp_priv.h"

#define QP_HDR		256u	/* struct mpd_v_qp_shm, rounded */

static uint32_t
pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static uint32_t
round_up(uint32_t n, uint32_t a)
{
	return (n + a - 1) / a * a;
}

size_t
hca_v_qp_layout(uint32_t qp_type, struct mpd_v_qp_cap *cap, bool has_srq,
		struct mpd_v_qp_shm *h)
{
	uint32_t sq_room;
	size_t end;

	(void)qp_type;
	if (cap->max_send_wr > MPD_V_MAX_QP_WR ||
	    cap->max_recv_wr > MPD_V_MAX_QP_WR ||
	    cap->max_send_sge > MPD_V_MAX_SGE ||
	    cap->max_recv_sge > MPD_V_MAX_SGE ||
	    cap->max_inline_data > MPD_V_MAX_INLINE)
		return 0;
	if (!cap->max_send_sge)
		cap->max_send_sge = 1;
	if (!cap->max_recv_sge)
		cap->max_recv_sge = 1;
	memset(h, 0, sizeof(*h));
	h->magic = MPD_V_QP_MAGIC;
	h->sq_wqes = pow2_at_least(cap->max_send_wr ? cap->max_send_wr : 1);
	sq_room = cap->max_send_sge * sizeof(struct mpd_v_sge);
	if (sq_room < cap->max_inline_data)
		sq_room = cap->max_inline_data;
	h->sq_stride = round_up((uint32_t)MPD_V_SWQE_HDR + sq_room, 64);
	/* what the stride holds anyway is the client's to use */
	sq_room = h->sq_stride - (uint32_t)MPD_V_SWQE_HDR;
	cap->max_send_sge = sq_room / sizeof(struct mpd_v_sge);
	if (cap->max_send_sge > MPD_V_MAX_SGE)
		cap->max_send_sge = MPD_V_MAX_SGE;
	cap->max_inline_data = sq_room < MPD_V_MAX_INLINE ? sq_room
							  : MPD_V_MAX_INLINE;
	cap->max_send_wr = h->sq_wqes;
	h->sq_off = QP_HDR;
	end = QP_HDR + (size_t)h->sq_wqes * h->sq_stride;
	if (!has_srq) {
		h->rq_wqes = pow2_at_least(cap->max_recv_wr ? cap->max_recv_wr
							    : 1);
		h->rq_stride = round_up(sizeof(struct mpd_v_rwqe) +
					cap->max_recv_sge *
					sizeof(struct mpd_v_sge), 64);
		cap->max_recv_sge = (h->rq_stride - sizeof(struct mpd_v_rwqe)) /
				    sizeof(struct mpd_v_sge);
		if (cap->max_recv_sge > MPD_V_MAX_SGE)
			cap->max_recv_sge = MPD_V_MAX_SGE;
		cap->max_recv_wr = h->rq_wqes;
		h->rq_off = (uint32_t)end;
		end += (size_t)h->rq_wqes * h->rq_stride;
	} else {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	return mpd_page_round(end);
}

struct hca_v_qp *
hca_v_qp_new(struct hca_v_owner *o, uint32_t handle,
	     const struct mpd_v_create_qp_req *req,
	     const struct mpd_v_qp_cap *cap, void *shm, size_t map_len)
{
	struct hca_v_qp *qp = calloc(1, sizeof(*qp));
	struct mpd_v_qp_shm *h = shm;

	if (!qp)
		return NULL;
	qp->req.swr = calloc(h->sq_wqes, sizeof(*qp->req.swr));
	if (!qp->req.swr) {
		free(qp);
		return NULL;
	}
	qp->owner = o;
	qp->handle = handle;
	qp->type = req->qp_type;
	qp->pd = req->pd;
	qp->sq_sig_all = req->sq_sig_all != 0;
	qp->cap = *cap;
	qp->map = shm;
	qp->map_len = map_len;
	qp->shm = h;
	qp->sq.base = (uint8_t *)shm + h->sq_off;
	qp->rq.base = h->rq_wqes ? (uint8_t *)shm + h->rq_off : NULL;
	qp->sq.wqes = h->sq_wqes;
	qp->rq.wqes = h->rq_wqes;
	qp->sq.stride = h->sq_stride;
	qp->rq.stride = h->rq_stride;
	qp->attr.qp_state = IBV_QPS_RESET;
	qp->attr.cap = *cap;
	return qp;
}

int
hca_v_qp_add(struct hca_verbs *v, struct hca_v_qp *qp, struct hca_v_cq *scq,
	     struct hca_v_cq *rcq, struct hca_v_srq *srq)
{
	uint32_t i, idx;

	for (i = 0; i < HCA_V_MAX_QPS; i++) {
		/* round robin, as for keys: a late packet for a QP that
		 * went rarely finds a new one under its number */
		idx = (v->next_qp + i) % HCA_V_MAX_QPS;
		if (v->qp[idx])
			continue;
		v->qp[idx] = qp;
		v->next_qp = idx + 1;
		v->nqps++;
		qp->qpn = HCA_V_QPN_BASE + idx;
		qp->scq = scq;
		qp->rcq = rcq;
		qp->srq = srq;
		scq->users++;
		rcq->users++;
		if (srq)
			srq->users++;
		return 0;
	}
	return ENOMEM;
}

uint32_t
hca_v_qp_async_events(const struct hca_v_qp *qp)
{
	return qp->async_events;
}

bool
hca_v_qp_sends_pending(const struct hca_v_qp *qp)
{
	uint32_t st = qp->attr.qp_state, pi;

	if (qp->owner->dead)
		return false;
	/* an ACK the responder owes: a HCA sends it before the receiver
	 * sees the completion, so before any destroy that follows */
	if (qp->resp.ack.pending &&
	    (st == IBV_QPS_RTR || st == IBV_QPS_RTS || st == IBV_QPS_SQD ||
	     st == IBV_QPS_SQE))
		return true;
	if (!qp->sq.wqes)
		return false;
	if (st == IBV_QPS_SQD)
		return qp->req.cur != qp->sq.taken;
	if (st != IBV_QPS_RTS)
		return false;
	pi = __atomic_load_n(&qp->shm->sq_pi, __ATOMIC_ACQUIRE);
	/* a count the client cannot have posted is nothing to wait for */
	if (pi - qp->sq.taken > qp->sq.wqes)
		pi = qp->sq.taken;
	return pi != qp->sq.taken || qp->req.cur != qp->sq.taken;
}

uint32_t
hca_v_cq_owed(const struct hca_verbs *v, const struct hca_v_cq *cq)
{
	const struct hca_v_qp *qp;
	uint32_t n = 0;

	/* a QP in RESET posts nothing */
	TAILQ_FOREACH(qp, &v->active, next)
		if (qp->scq == cq && qp->sq.wqes)
			n += sq_owed(qp);
	return n;
}

uint32_t
hca_v_qp_num(const struct hca_v_qp *qp)
{
	return qp->qpn;
}

/* The state, in the QP and its shared memory (the client's post checks),
 * and a capture record of the change */
static void
set_state(struct hca_verbs *v, struct hca_v_qp *qp, uint32_t state,
	  uint32_t cause)
{
	uint32_t old = qp->attr.qp_state;

	qp->attr.qp_state = state;
	__atomic_store_n(&qp->shm->state, state, __ATOMIC_RELEASE);
	if (v->on_qp && (old != state || cause == 2)) {
		struct hca_v_qp_event ev = {
			.qpn = qp->qpn, .handle = qp->handle,
			.qp_type = qp->type, .old_state = old,
			.new_state = state, .cause = cause,
			.status = cause == 1 ? qp->err.status : 0,
			.psn = cause == 1 ? qp->err.psn : HCA_V_NO_PSN,
			.dest_qp = qp->type == IBV_QPT_UD ? 0 :
				   qp->attr.dest_qp_num,
		};

		v->on_qp(v->rec_ctx, &ev);
	}
}

static void
activate(struct hca_verbs *v, struct hca_v_qp *qp)
{
	if (qp->listed)
		return;
	TAILQ_INSERT_TAIL(&v->active, qp, next);
	qp->listed = true;
}

static void
deactivate(struct hca_verbs *v, struct hca_v_qp *qp)
{
	if (!qp->listed)
		return;
	TAILQ_REMOVE(&v->active, qp, next);
	qp->listed = false;
}

/* cause: 0 the client asked, 1 a WR or packet failed (err_status) */
static void
qp_to_error(struct hca_verbs *v, struct hca_v_qp *qp, uint32_t cause)
{
	qp->err.pending = false;
	if (qp->attr.qp_state == IBV_QPS_ERR)
		return;
	set_state(v, qp, IBV_QPS_ERR, cause);
	qp->comp.rto_at = 0;
	qp->comp.rnr_at = 0;
	comp_flush(v, qp);
	resp_flush(v, qp);
}

/* Everything the QP holds forgotten (IBA 10.3.1: Reset). What the
 * client had posted is skipped, never executed: the requester's counts
 * start where the ring stands, so that no copy the daemon took before
 * (completed, or flushed) lies between the oldest live WR and the next
 * one to take. */
static void
qp_reset(struct hca_v_qp *qp)
{
	struct hca_v_swr *swr = qp->req.swr;
	uint32_t epsn = qp->resp.epsn, psn = qp->req.psn;

	qp->sq.taken = __atomic_load_n(&qp->shm->sq_pi, __ATOMIC_ACQUIRE);
	qp->rq.taken = __atomic_load_n(&qp->shm->rq_pi, __ATOMIC_ACQUIRE);
	__atomic_store_n(&qp->shm->sq_ci, qp->sq.taken, __ATOMIC_RELEASE);
	__atomic_store_n(&qp->shm->rq_ci, qp->rq.taken, __ATOMIC_RELEASE);
	/* the PSNs stay until RTR and RTS set them (queried before) */
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->req.swr = swr;
	qp->req.psn = psn;
	qp->resp.epsn = epsn;
	qp->req.cur = qp->req.numbered = qp->sq.taken;
	qp->comp.done = qp->sq.taken;
	qp->comp.acked_pkts = 0;
	qp->comp.rto_at = qp->comp.rnr_at = 0;
}

/* ---- IBA 11.2.5.2: the attributes of each transition ---- */

enum { T_UD, T_UC, T_RC, T_N };

struct trans {
	bool ok;
	uint32_t req[T_N];
	uint32_t opt[T_N];
};

#define PATH_OPT	(IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | \
			 IBV_QP_PKEY_INDEX)
#define RTS_OPT_UC	(IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | \
			 IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE)

static const struct trans trans_table[7][7] = {
	[IBV_QPS_RESET] = {
		[IBV_QPS_RESET] = { .ok = true },
		[IBV_QPS_INIT] = { .ok = true,
			.req = {
				[T_UD] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_QKEY,
				[T_UC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS,
				[T_RC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS,
			} },
	},
	[IBV_QPS_INIT] = {
		[IBV_QPS_INIT] = { .ok = true,
			.opt = {
				[T_UD] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_QKEY,
				[T_UC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS,
				[T_RC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS,
			} },
		[IBV_QPS_RTR] = { .ok = true,
			.req = {
				[T_UC] = IBV_QP_AV | IBV_QP_PATH_MTU |
					 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
				[T_RC] = IBV_QP_AV | IBV_QP_PATH_MTU |
					 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					 IBV_QP_MAX_DEST_RD_ATOMIC |
					 IBV_QP_MIN_RNR_TIMER,
			},
			.opt = {
				[T_UD] = IBV_QP_PKEY_INDEX | IBV_QP_QKEY,
				[T_UC] = PATH_OPT,
				[T_RC] = PATH_OPT,
			} },
	},
	[IBV_QPS_RTR] = {
		[IBV_QPS_RTS] = { .ok = true,
			.req = {
				[T_UD] = IBV_QP_SQ_PSN,
				[T_UC] = IBV_QP_SQ_PSN,
				[T_RC] = IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					 IBV_QP_MAX_QP_RD_ATOMIC,
			},
			.opt = {
				[T_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
				[T_UC] = RTS_OPT_UC,
				[T_RC] = RTS_OPT_UC | IBV_QP_MIN_RNR_TIMER,
			} },
	},
	[IBV_QPS_RTS] = {
		[IBV_QPS_RTS] = { .ok = true,
			.opt = {
				[T_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
				[T_UC] = RTS_OPT_UC,
				[T_RC] = RTS_OPT_UC | IBV_QP_MIN_RNR_TIMER,
			} },
		[IBV_QPS_SQD] = { .ok = true,
			.opt = {
				[T_UD] = IBV_QP_EN_SQD_ASYNC_NOTIFY,
				[T_UC] = IBV_QP_EN_SQD_ASYNC_NOTIFY,
				[T_RC] = IBV_QP_EN_SQD_ASYNC_NOTIFY,
			} },
	},
	[IBV_QPS_SQD] = {
		[IBV_QPS_RTS] = { .ok = true,
			.opt = {
				[T_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
				[T_UC] = RTS_OPT_UC,
				[T_RC] = RTS_OPT_UC | IBV_QP_MIN_RNR_TIMER,
			} },
		[IBV_QPS_SQD] = { .ok = true,
			.opt = {
				[T_UD] = IBV_QP_PKEY_INDEX | IBV_QP_QKEY,
				[T_UC] = IBV_QP_AV | PATH_OPT |
					 IBV_QP_PATH_MIG_STATE,
				[T_RC] = IBV_QP_PORT | IBV_QP_AV |
					 IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					 IBV_QP_RNR_RETRY |
					 IBV_QP_MAX_QP_RD_ATOMIC |
					 IBV_QP_MAX_DEST_RD_ATOMIC | PATH_OPT |
					 IBV_QP_MIN_RNR_TIMER |
					 IBV_QP_PATH_MIG_STATE,
			} },
	},
	[IBV_QPS_SQE] = {
		[IBV_QPS_RTS] = { .ok = true,
			.opt = {
				[T_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
				[T_UC] = IBV_QP_CUR_STATE |
					 IBV_QP_ACCESS_FLAGS,
			} },
	},
};

static int
type_index(uint32_t type)
{
	switch (type) {
	case IBV_QPT_UD:
		return T_UD;
	case IBV_QPT_UC:
		return T_UC;
	case IBV_QPT_RC:
		return T_RC;
	default:
		return -1;
	}
}

/* The values a transition brings, checked (EINVAL) before any is set */
static int
check_values(const struct hca_verbs *v, const struct hca_v_qp *qp,
	     const struct mpd_v_qp_attr *a, uint32_t mask)
{
	const struct hca_port *p = v->port;

	if ((mask & IBV_QP_PORT) && a->port_num != p->port_num)
		return EINVAL;
	if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index >= HCA_PKEY_TABLE_LEN)
		return EINVAL;
	if ((mask & IBV_QP_PATH_MTU) &&
	    (a->path_mtu < 1 || a->path_mtu > p->neighbor_mtu))
		return EINVAL;
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) &&
	    a->max_rd_atomic > MPD_V_MAX_RD_ATOMIC)
		return EINVAL;
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > MPD_V_MAX_RD_ATOMIC)
		return EINVAL;
	if ((mask & IBV_QP_TIMEOUT) && a->timeout > 31)
		return EINVAL;
	if ((mask & IBV_QP_RETRY_CNT) && a->retry_cnt > 7)
		return EINVAL;
	if ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry > 7)
		return EINVAL;
	if ((mask & IBV_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return EINVAL;
	if ((mask & IBV_QP_DEST_QPN) && a->dest_qp_num > PSN_MASK)
		return EINVAL;
	if ((mask & IBV_QP_AV) && (a->ah.port_num && a->ah.port_num != p->port_num))
		return EINVAL;
	/* RoCE has no LIDs: a path is a GID (IBA A16.4) */
	if ((mask & IBV_QP_AV) && p->link != MPD_LINK_IB && !a->ah.is_global)
		return EINVAL;
	if ((mask & IBV_QP_AV) && a->ah.is_global && a->ah.sgid_index >=
	    (p->link == MPD_LINK_IB ? 1 : 2))
		return EINVAL;
	if ((mask & IBV_QP_CAP) && (a->cap.max_send_wr > qp->cap.max_send_wr ||
				    a->cap.max_recv_wr > qp->cap.max_recv_wr))
		return EINVAL;
	return 0;
}

int
hca_v_qp_modify(struct hca_verbs *v, struct hca_v_qp *qp,
		const struct mpd_v_qp_attr *a, uint32_t mask, uint64_t now_ns)
{
	uint32_t cur = qp->attr.qp_state, next, allowed;
	const struct trans *t;
	int ti = type_index(qp->type), rc;

	(void)now_ns;
	if (ti < 0)
		return EINVAL;
	next = (mask & IBV_QP_STATE) ? a->qp_state : cur;
	if (cur > IBV_QPS_ERR || next > IBV_QPS_ERR)
		return EINVAL;
	if ((mask & IBV_QP_CUR_STATE) && a->cur_qp_state != cur)
		return EINVAL;
	mask &= ~(uint32_t)IBV_QP_STATE;
	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR) {
		/* any state may go to Reset or Error; nothing else counts */
		if (mask & ~(uint32_t)IBV_QP_CUR_STATE)
			return EINVAL;
		if (next == IBV_QPS_ERR) {
			qp_to_error(v, qp, 0);
			return 0;
		}
		set_state(v, qp, IBV_QPS_RESET, 0);
		qp_reset(qp);
		deactivate(v, qp);
		return 0;
	}
	t = &trans_table[cur][next];
	if (!t->ok)
		return EINVAL;
	allowed = t->req[ti] | t->opt[ti] | IBV_QP_CUR_STATE;
	if ((mask & t->req[ti]) != t->req[ti] || (mask & ~allowed))
		return EINVAL;
	rc = check_values(v, qp, a, mask);
	if (rc)
		return rc;

	if (mask & IBV_QP_PKEY_INDEX)
		qp->attr.pkey_index = a->pkey_index;
	if (mask & IBV_QP_PORT)
		qp->attr.port_num = a->port_num;
	if (mask & IBV_QP_QKEY)
		qp->attr.qkey = a->qkey;
	if (mask & IBV_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = a->qp_access_flags;
	if (mask & IBV_QP_AV)
		qp->attr.ah = a->ah;
	if (mask & IBV_QP_ALT_PATH) {
		qp->attr.alt_ah = a->alt_ah;
		qp->attr.alt_pkey_index = a->alt_pkey_index;
		qp->attr.alt_port_num = a->alt_port_num;
		qp->attr.alt_timeout = a->alt_timeout;
	}
	if (mask & IBV_QP_PATH_MIG_STATE)
		qp->attr.path_mig_state = a->path_mig_state;
	if (mask & IBV_QP_PATH_MTU) {
		qp->attr.path_mtu = a->path_mtu;
		qp->mtu = qp_mtu_bytes(a->path_mtu);
	}
	if (mask & IBV_QP_DEST_QPN)
		qp->attr.dest_qp_num = a->dest_qp_num;
	if (mask & IBV_QP_RQ_PSN)
		qp->attr.rq_psn = a->rq_psn & PSN_MASK;
	if (mask & IBV_QP_SQ_PSN)
		qp->attr.sq_psn = a->sq_psn & PSN_MASK;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = a->max_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = a->min_rnr_timer;
	if (mask & IBV_QP_TIMEOUT)
		qp->attr.timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		qp->attr.retry_cnt = a->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		qp->attr.rnr_retry = a->rnr_retry;
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		qp->attr.en_sqd_async_notify = a->en_sqd_async_notify;

	if (cur == IBV_QPS_RESET)
		qp_reset(qp);
	if (next == IBV_QPS_RTR && cur == IBV_QPS_INIT) {
		qp->resp.epsn = qp->attr.rq_psn;
		qp->resp.comm_est = false;
		if (qp->type == IBV_QPT_UD)
			qp->mtu = qp_mtu_bytes(v->port->neighbor_mtu);
	}
	if (next == IBV_QPS_RTS && cur == IBV_QPS_RTR)
		qp->req.psn = qp->attr.sq_psn;
	if ((mask & IBV_QP_RETRY_CNT) || (mask & IBV_QP_RNR_RETRY)) {
		qp->comp.retry_left = qp->attr.retry_cnt;
		qp->comp.rnr_left = qp->attr.rnr_retry;
	}
	set_state(v, qp, next, 0);
	activate(v, qp);
	return 0;
}

void
hca_v_qp_query(const struct hca_v_qp *qp, struct mpd_v_query_qp_rep *r)
{
	memset(r, 0, sizeof(*r));
	r->attr = qp->attr;
	r->attr.cur_qp_state = qp->attr.qp_state;
	r->attr.cap = qp->cap;
	r->attr.sq_psn = qp->attr.qp_state >= IBV_QPS_RTS ? qp->req.psn
							  : qp->attr.sq_psn;
	r->attr.sq_draining = qp->attr.qp_state == IBV_QPS_SQD &&
			      qp->comp.done != qp->req.cur;
	r->sq_sig_all = qp->sq_sig_all;
	r->qp_type = qp->type;
}

void
hca_v_qp_remove(struct hca_verbs *v, struct hca_v_qp *qp)
{
	uint32_t idx = qp->qpn - HCA_V_QPN_BASE;

	set_state(v, qp, IBV_QPS_RESET, 2);
	deactivate(v, qp);
	mcast_qp_gone(v, qp->qpn);
	mw_qp_gone(v, qp);
	if (qp->qpn >= HCA_V_QPN_BASE && idx < HCA_V_MAX_QPS &&
	    v->qp[idx] == qp) {
		v->qp[idx] = NULL;
		v->nqps--;
	}
	if (qp->scq)
		qp->scq->users--;
	if (qp->rcq)
		qp->rcq->users--;
	if (qp->srq)
		qp->srq->users--;
}

void
hca_v_qp_free(struct hca_v_qp *qp)
{
	if (!qp)
		return;
	if (qp->map)
		munmap(qp->map, qp->map_len);
	free(qp->req.swr);
	free(qp);
}

/* ---- the layer ---- */

void
hca_verbs_init(struct hca_verbs *v, struct hca_port *port)
{
	memset(v, 0, sizeof(*v));
	v->port = port;
	v->next_mr = 1;
	TAILQ_INIT(&v->active);
}

static struct hca_v_qp *
qp_of(struct hca_verbs *v, uint32_t qpn)
{
	uint32_t idx = qpn - HCA_V_QPN_BASE;

	if (qpn < HCA_V_QPN_BASE || idx >= HCA_V_MAX_QPS)
		return NULL;
	return v->qp[idx];
}

/* A packet for one QP (a group's copy too): its state, transport, keys,
 * then the completer (an answer: RC alone has them, and the transport
 * matched the QP's) or the responder */
static void
qp_input(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_pkt *pk,
	 uint64_t now_ns)
{
	uint8_t tp = pk->bth.opcode & MPD_TP_MASK;
	uint32_t st;

	if (!qp || qp->owner->dead) {
		v->port->cnt.qp_no_qp++;
		return;
	}
	st = qp->attr.qp_state;
	/* IBA 10.3.1: only RTR and later take packets */
	if (st != IBV_QPS_RTR && st != IBV_QPS_RTS && st != IBV_QPS_SQD &&
	    st != IBV_QPS_SQE) {
		v->port->cnt.qp_no_qp++;
		return;
	}
	if ((tp == MPD_TP_RC && qp->type != IBV_QPT_RC) ||
	    (tp == MPD_TP_UC && qp->type != IBV_QPT_UC) ||
	    (tp == MPD_TP_UD && qp->type != IBV_QPT_UD)) {
		v->port->cnt.qp_no_qp++;
		return;
	}
	if (qp->type == IBV_QPT_UD) {
		/* IBA 10.2.4: a Q_Key with the high bit set means the QP's
		 * own; the port counts violations */
		uint32_t want = qp->attr.qkey;

		if (pk->deth.qkey != want) {
			v->port->cnt.qkey_violations++;
			return;
		}
	}
	/* IBA 10.9.3: every QP takes only its own partition's packets, a
	 * UD QP too (unicast or a group's copy: IPoIB makes a UD QP per
	 * partition for that) */
	if (pk->bth.pkey != 0 &&
	    !mpd_pkey_match(v->port->pkeys[qp->attr.pkey_index %
					   HCA_PKEY_TABLE_LEN],
			    pk->bth.pkey)) {
		v->port->cnt.pkey_violations++;
		return;
	}
	/*
	 * IBA 11.6.3: the first packet on a connected QP since it entered
	 * RTR, once. Also in RTS: rdma_accept() moves the passive QP to RTS
	 * before the REP leaves, so with the RTU lost this event is how its
	 * CM learns the connection is up, as if the RTU had come.
	 */
	if ((st == IBV_QPS_RTR || st == IBV_QPS_RTS) && !qp->resp.comm_est &&
	    qp->type != IBV_QPT_UD) {
		qp->resp.comm_est = true;
		qp_async(qp, IBV_EVENT_COMM_EST);
	}
	if (mpd_op_mask(pk->bth.opcode) & MPD_OPC_ANSWER)
		comp_input(v, qp, pk, now_ns);
	else
		resp_input(v, qp, pk, now_ns);
	if (qp->err.pending)
		qp_to_error(v, qp, 1);
}

/* IBA 10.5.2.3: a UD packet to DestQP 0xFFFFFF goes to every QP of the
 * port attached to its group, a copy each; the sender's own QP among
 * them when it is attached (mlx5's default: multicast loopback on). */
static void
mcast_input(struct hca_verbs *v, const struct mpd_pkt *pk, uint64_t now_ns)
{
	const struct hca_v_mcg *g = mcast_group(v, pk);
	uint32_t qpn[MPD_V_MAX_MCAST_QP_ATTACH];
	unsigned int i, n;

	if ((pk->bth.opcode & MPD_TP_MASK) != MPD_TP_UD || !g) {
		v->port->cnt.qp_no_qp++;
		return;
	}
	/* a copy of the list: a QP's error may not change it, but the
	 * group is the table's, not this loop's */
	n = g->nqps;
	memcpy(qpn, g->qpn, n * sizeof(qpn[0]));
	for (i = 0; i < n; i++)
		qp_input(v, qp_of(v, qpn[i]), pk, now_ns);
}

void
hca_verbs_input(struct hca_verbs *v, const struct mpd_pkt *pk,
		uint64_t now_ns, struct hca_v_out *out)
{
	(void)out;
	v->port->cnt.qp_pkts_in++;
	if (pk->bth.dest_qp == MPD_QPN_MCAST) {
		mcast_input(v, pk, now_ns);
		return;
	}
	qp_input(v, qp_of(v, pk->bth.dest_qp), pk, now_ns);
}

void
hca_verbs_poll(struct hca_verbs *v, uint64_t now_ns, struct hca_v_out *out)
{
	struct hca_v_qp *qp, *tmp;

	for (qp = TAILQ_FIRST(&v->active); qp && out->room; qp = tmp) {
		tmp = TAILQ_NEXT(qp, next);
		if (qp->owner->dead)
			continue;
		ack_poll(v, qp, out);
		req_poll(v, qp, now_ns, out);
		/* IBA 10.3.1: WRs posted in Error complete flushed */
		if (qp->attr.qp_state == IBV_QPS_ERR && !qp->srq &&
		    __atomic_load_n(&qp->shm->rq_pi, __ATOMIC_RELAXED) !=
		    qp->rq.taken)
			resp_flush(v, qp);
		if (qp->err.pending)
			qp_to_error(v, qp, 1);
	}
	/* round robin: who went first goes last next time */
	qp = TAILQ_FIRST(&v->active);
	if (qp && TAILQ_NEXT(qp, next)) {
		TAILQ_REMOVE(&v->active, qp, next);
		TAILQ_INSERT_TAIL(&v->active, qp, next);
	}
}

/* When a QP next has work for hca_verbs_poll(): now (0) for what is due,
 * the end of the RNR wait or the retransmission timer it waits for, else
 * never. As the poll goes: a state that sends nothing waits for the
 * client's next modify (chan_verbs.c rings the lcore for it). */
static uint64_t
qp_wake_at(const struct hca_v_qp *qp)
{
	uint32_t st = qp->attr.qp_state;
	uint64_t at = HCA_V_NEVER;
	bool sends;
	unsigned int i;

	if (qp->err.pending)
		return 0;
	if (st == IBV_QPS_ERR)
		/* IBA 10.3.1: what is posted in Error completes flushed */
		return __atomic_load_n(&qp->shm->sq_pi, __ATOMIC_RELAXED) !=
		       qp->sq.taken || (!qp->srq &&
		       __atomic_load_n(&qp->shm->rq_pi, __ATOMIC_RELAXED) !=
		       qp->rq.taken) ? 0 : HCA_V_NEVER;
	if (qp->type == IBV_QPT_RC) {
		for (i = 0; i < RD_JOBS; i++)
			if (qp->resp.rd[i].pending)
				return 0;
		if (qp->resp.ack.pending)
			return 0;
	}
	if (st != IBV_QPS_RTS && st != IBV_QPS_SQD)
		return HCA_V_NEVER;
	sends = qp->req.cur != qp->sq.taken || (st == IBV_QPS_RTS &&
		__atomic_load_n(&qp->shm->sq_pi, __ATOMIC_RELAXED) !=
		qp->sq.taken);
	if (qp->type != IBV_QPT_RC)
		return sends ? 0 : HCA_V_NEVER;
	if (sends) {
		/* IBA 9.7.5.2.8: nothing goes out before the RNR timer */
		if (!qp->comp.rnr_at)
			return 0;
		at = qp->comp.rnr_at;
	}
	if (qp->comp.rto_at && qp->comp.rto_at < at)
		at = qp->comp.rto_at;
	return at;
}

uint64_t
hca_verbs_wake_at(const struct hca_verbs *v)
{
	const struct hca_v_qp *qp;
	uint64_t at = HCA_V_NEVER, q;

	TAILQ_FOREACH(qp, &v->active, next) {
		if (qp->owner->dead)
			continue;
		q = qp_wake_at(qp);
		if (q < at)
			at = q;
		if (!at)
			break;
	}
	return at;
}

bool
hca_verbs_busy(const struct hca_verbs *v)
{
	const struct hca_v_qp *qp;
	unsigned int i;

	TAILQ_FOREACH(qp, &v->active, next) {
		if (qp->owner->dead)
			continue;
		for (i = 0; i < RD_JOBS; i++)
			if (qp->resp.rd[i].pending)
				return true;
		if (qp->comp.rto_at || qp->comp.rnr_at ||
		    qp->resp.ack.pending ||
		    __atomic_load_n(&qp->shm->sq_pi, __ATOMIC_RELAXED) !=
		    qp->sq.taken || qp->req.cur != qp->sq.taken)
			return true;
	}
	return false;
}
