/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CQs: a ring of 64-byte completions in a memfd the daemon made
 * (madpmd/verbs.h), polled with no system call (vring.c); ibv_cq_ex's
 * start/next/end_poll over the same ring.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verbs_priv.h"

/* ---- the context's ops ---- */

/* Empty polls in a row between two looks at where a thread runs */
#define EMPTY_POLLS_LOOK	4

/*
 * A poll that found nothing (looked at every fourth in a row: the look
 * costs a vDSO call). The completion comes once the daemon's lcore has
 * run; a thread that polls on the lcore's own CPU keeps it from running
 * until the scheduler takes the CPU back, a tick later (ib_send_bw
 * stalled 3-4 ms in every 8, and its receiver ran out of receive WRs).
 * So it yields there, as a umad client spinning there does
 * (madpmd/chan.h, "Sharing a CPU"); on any other CPU it polls on without
 * a system call.
 */
static void
poll_found(struct ibv_context *ctx, bool any)
{
	static __thread unsigned int empty;
	struct mpd_chan_shm *h = mpd_verbs_ctx(ctx)->shm;
	uint32_t lcore;
	int cpu;

	if (any) {
		empty = 0;
		return;
	}
	if (++empty % EMPTY_POLLS_LOOK || !h)
		return;
	lcore = __atomic_load_n(&h->lcore_cpu, __ATOMIC_RELAXED);
	cpu = sched_getcpu();
	if (!lcore || cpu < 0 || (uint32_t)cpu + 1 != lcore)
		return;
	/* and the lcore, when it has nothing to do, yields back */
	__atomic_store_n(&h->rx_awake_cpu, lcore, __ATOMIC_RELAXED);
	__atomic_add_fetch(&h->poll_yields, 1, __ATOMIC_RELEASE);
	sched_yield();
}

int
mpd_v_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct mpd_v_cq *cq = mpd_v_cq(ibcq);
	int rc;

	if (n <= 0)
		return 0;
	pthread_spin_lock(&cq->lock);
	rc = mpd_v_cq_poll(&cq->ring, n, wc);
	pthread_spin_unlock(&cq->lock);
	poll_found(ibcq->context, rc != 0);
	return rc;
}

int
mpd_v_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct mpd_v_cq *cq = mpd_v_cq(ibcq);

	pthread_spin_lock(&cq->lock);
	mpd_v_cq_arm(&cq->ring, solicited_only);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

/* ---- ibv_cq_ex ---- */

static inline struct mpd_v_cq *
cq_of_ex(struct ibv_cq_ex *cq)
{
	return (struct mpd_v_cq *)cq;
}

static void
ex_head(struct mpd_v_cq *cq)
{
	cq->cq_ex.wr_id = cq->ring.cur.wr_id;
	cq->cq_ex.status = (enum ibv_wc_status)cq->ring.cur.status;
}

/* The lock is held from a start_poll that found an entry to end_poll */
static int
ex_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct mpd_v_cq *cq = cq_of_ex(ibcq);

	if (attr && attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	if (mpd_v_cq_start(&cq->ring)) {
		pthread_spin_unlock(&cq->lock);
		poll_found(ibcq->context, false);
		return ENOENT;
	}
	poll_found(ibcq->context, true);
	cq->ex_polling = true;
	ex_head(cq);
	return 0;
}

static int
ex_next_poll(struct ibv_cq_ex *ibcq)
{
	struct mpd_v_cq *cq = cq_of_ex(ibcq);

	if (!cq->ex_polling || mpd_v_cq_next(&cq->ring))
		return ENOENT;
	ex_head(cq);
	return 0;
}

static void
ex_end_poll(struct ibv_cq_ex *ibcq)
{
	struct mpd_v_cq *cq = cq_of_ex(ibcq);

	/* after a start_poll that said ENOENT there is nothing to end */
	if (!cq->ex_polling)
		return;
	mpd_v_cq_end(&cq->ring);
	cq->ex_polling = false;
	pthread_spin_unlock(&cq->lock);
}

#define CUR(ibcq)	(cq_of_ex(ibcq)->ring.cur)

static enum ibv_wc_opcode
ex_read_opcode(struct ibv_cq_ex *ibcq)
{
	return (enum ibv_wc_opcode)CUR(ibcq).opcode;
}

static uint32_t
ex_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return CUR(ibcq).vendor_err;
}

static uint32_t
ex_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return CUR(ibcq).byte_len;
}

static __be32
ex_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return CUR(ibcq).imm_data;
}

static uint32_t
ex_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return CUR(ibcq).qp_num;
}

static uint32_t
ex_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return CUR(ibcq).src_qp;
}

static unsigned int
ex_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return CUR(ibcq).wc_flags;
}

static uint32_t
ex_read_slid(struct ibv_cq_ex *ibcq)
{
	return CUR(ibcq).slid;
}

static uint8_t
ex_read_sl(struct ibv_cq_ex *ibcq)
{
	return CUR(ibcq).sl;
}

static uint8_t
ex_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return CUR(ibcq).dlid_path_bits;
}

static void
ex_ops(struct mpd_v_cq *cq)
{
	struct ibv_cq_ex *x = &cq->cq_ex;

	x->start_poll = ex_start_poll;
	x->next_poll = ex_next_poll;
	x->end_poll = ex_end_poll;
	x->read_opcode = ex_read_opcode;
	x->read_vendor_err = ex_read_vendor_err;
	x->read_wc_flags = ex_read_wc_flags;
	/* the optional ones only when asked for, as providers do */
	if (cq->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		x->read_byte_len = ex_read_byte_len;
	if (cq->wc_flags & IBV_WC_EX_WITH_IMM)
		x->read_imm_data = ex_read_imm_data;
	if (cq->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		x->read_qp_num = ex_read_qp_num;
	if (cq->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		x->read_src_qp = ex_read_src_qp;
	if (cq->wc_flags & IBV_WC_EX_WITH_SLID)
		x->read_slid = ex_read_slid;
	if (cq->wc_flags & IBV_WC_EX_WITH_SL)
		x->read_sl = ex_read_sl;
	if (cq->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		x->read_dlid_path_bits = ex_read_dlid_path_bits;
}

/* ---- create and destroy ---- */

static struct mpd_v_cq *
cq_create(struct ibv_context *context, int cqe, void *cq_context,
	  struct ibv_comp_channel *channel, int comp_vector)
{
	struct mpd_verbs_ctx *c = mpd_verbs_ctx(context);
	struct mpd_v_create_cq_rep rep;
	struct mpd_chan_msg m;
	struct mpd_v_cq *cq;
	void *map;
	int rc, fd = -1;

	if (cqe < 1 || (uint32_t)cqe >= MPD_V_MAX_CQE || comp_vector < 0 ||
	    comp_vector >= context->num_comp_vectors ||
	    (channel && channel->context != context)) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_CREATE_CQ;
	m.len = sizeof(m.u.v_create_cq_req);
	m.u.v_create_cq_req.cqe = (uint32_t)cqe;
	m.u.v_create_cq_req.channel = channel ? mpd_v_channel_handle(channel) :
						MPD_V_NO_HANDLE;
	rc = mpd_v_call(c, &m, &fd);
	if (rc) {
		free(cq);
		errno = rc;
		return NULL;
	}
	rep = m.u.v_create_cq_rep;
	rc = EPROTO;
	if (rep.ncqe <= (uint32_t)cqe || rep.ncqe > MPD_V_MAX_CQE) {
		close(fd);
		goto undo;
	}
	map = mpd_v_map(fd, rep.shm_size);
	if (!map) {
		rc = errno;
		goto undo;
	}
	if (mpd_v_cq_attach(&cq->ring, map, rep.shm_size, rep.ncqe)) {
		munmap(map, rep.shm_size);
		goto undo;
	}
	cq->map_size = rep.shm_size;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->cq.context = context;
	cq->cq.channel = channel;
	cq->cq.cq_context = cq_context;
	cq->cq.handle = rep.handle;
	/* what it holds: one slot stays free for the owner rule's sake */
	cq->cq.cqe = (int)rep.ncqe - 1;
	pthread_mutex_init(&cq->cq.mutex, NULL);
	pthread_cond_init(&cq->cq.cond, NULL);
	mpd_v_obj_add(c, &cq->obj, MPD_V_OBJ_CQ, rep.handle, &cq->cq);
	if (channel) {
		struct mpd_v_channel *ch = (struct mpd_v_channel *)channel;

		pthread_mutex_lock(&c->obj_lock);
		cq->ch_next = ch->cqs;
		ch->cqs = cq;
		channel->refcnt++;
		pthread_mutex_unlock(&c->obj_lock);
	}
	return cq;
undo:
	mpd_v_destroy(c, MPD_V_DESTROY_CQ, rep.handle, NULL);
	free(cq);
	errno = rc;
	return NULL;
}

VERBS_EXPORT struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	struct mpd_v_cq *cq;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	cq = cq_create(context, cqe, cq_context, channel, comp_vector);
	return cq ? &cq->cq : NULL;
}

struct ibv_cq_ex *
mpd_v_create_cq_ex(struct ibv_context *context,
		   struct ibv_cq_init_attr_ex *attr)
{
	struct mpd_v_cq *cq;

	/* no time stamps, VLANs, flow tags or tag matching here */
	if (attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS ||
	    attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->cqe > INT32_MAX || attr->comp_vector > INT32_MAX) {
		errno = EINVAL;
		return NULL;
	}
	cq = cq_create(context, (int)attr->cqe, attr->cq_context,
		       attr->channel, (int)attr->comp_vector);
	if (!cq)
		return NULL;
	cq->wc_flags = attr->wc_flags;
	ex_ops(cq);
	return &cq->cq_ex;
}

/* The ring a CQ of at least cqe entries gets: as the daemon sizes it */
static uint32_t
cq_ring_size(int cqe)
{
	uint32_t n = 2;

	while (n <= (uint32_t)cqe)
		n <<= 1;
	return n;
}

/*
 * Under the CQ's lock for the whole exchange (as mlx5 does): polling
 * stops, so the count we send is the one the daemon copies from and the
 * old ring gets no more reads or writes of ours after the reply. A size
 * that gives the ring it has is no request: 0, or EINVAL when more
 * completions are there than asked for. Once the daemon has switched, a
 * mapping that fails leaves the CQ without its completions (the errno).
 */
VERBS_EXPORT int
ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct mpd_v_cq *cq = mpd_v_cq(ibcq);
	struct mpd_v_resize_cq_rep rep;
	struct mpd_verbs_ctx *c;
	struct mpd_v_cq_ring nr;
	struct mpd_chan_msg m;
	struct mpd_v_cq_shm *old;
	size_t old_size;
	int rc, fd = -1;
	void *map;

	if (!ibcq || cqe < 1 || (uint32_t)cqe >= MPD_V_MAX_CQE)
		return EINVAL;
	c = mpd_verbs_ctx(ibcq->context);
	pthread_spin_lock(&cq->lock);
	if (cq_ring_size(cqe) == cq->ring.ncqe) {
		rc = mpd_v_cq_pending(&cq->ring) > (uint32_t)cqe ? EINVAL : 0;
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_RESIZE_CQ;
	m.len = sizeof(m.u.v_resize_cq_req);
	m.u.v_resize_cq_req.handle = ibcq->handle;
	m.u.v_resize_cq_req.cqe = (uint32_t)cqe;
	m.u.v_resize_cq_req.ci = cq->ring.ci;
	rc = mpd_v_call(c, &m, &fd);
	if (rc)
		goto out;
	rep = m.u.v_resize_cq_rep;
	if (rep.ncqe <= (uint32_t)cqe || rep.ncqe > MPD_V_MAX_CQE) {
		close(fd);
		rc = EPROTO;
		goto out;
	}
	map = mpd_v_map(fd, rep.shm_size);
	if (!map) {
		rc = errno;
		goto out;
	}
	if (mpd_v_cq_attach(&nr, map, rep.shm_size, rep.ncqe)) {
		munmap(map, rep.shm_size);
		rc = EPROTO;
		goto out;
	}
	/* our counts go on: the daemon copied the entries at them */
	nr.ci = cq->ring.ci;
	nr.arm = cq->ring.arm;
	__atomic_store_n(&nr.shm->ci, nr.ci, __ATOMIC_RELEASE);
	/* ibv_get_cq_event reads comp_events under obj_lock, not ours */
	pthread_mutex_lock(&c->obj_lock);
	old = cq->ring.shm;
	old_size = cq->map_size;
	cq->ring = nr;
	cq->map_size = rep.shm_size;
	pthread_mutex_unlock(&c->obj_lock);
	ibcq->cqe = (int)rep.ncqe - 1;
	pthread_spin_unlock(&cq->lock);
	munmap(old, old_size);
	return 0;
out:
	pthread_spin_unlock(&cq->lock);
	return rc;
}

/* As the man page says: waits until every event handed out for the CQ
 * (completion and async) has been acknowledged */
VERBS_EXPORT int
ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct mpd_v_cq *cq = mpd_v_cq(ibcq);
	struct mpd_v_destroy_rep rep;
	struct mpd_verbs_ctx *c;
	int rc;

	if (!ibcq)
		return EINVAL;
	c = mpd_verbs_ctx(ibcq->context);
	mpd_v_wait_count(c, &cq->comp_returned, &ibcq->mutex, &ibcq->cond,
			 &ibcq->comp_events_completed);
	mpd_v_wait_count(c, &cq->obj.async_returned, &ibcq->mutex,
			 &ibcq->cond, &ibcq->async_events_completed);
	memset(&rep, 0, sizeof(rep));
	rc = mpd_v_destroy(c, MPD_V_DESTROY_CQ, ibcq->handle, &rep);
	if (rc)
		return rc;
	if (ibcq->channel) {
		struct mpd_v_channel *ch = (struct mpd_v_channel *)ibcq->channel;
		struct mpd_v_cq **pp;

		pthread_mutex_lock(&c->obj_lock);
		for (pp = &ch->cqs; *pp; pp = &(*pp)->ch_next)
			if (*pp == cq) {
				*pp = cq->ch_next;
				break;
			}
		ibcq->channel->refcnt--;
		pthread_mutex_unlock(&c->obj_lock);
	}
	mpd_v_obj_del(c, &cq->obj, rep.async_events);
	munmap(cq->ring.shm, cq->map_size);
	pthread_spin_destroy(&cq->lock);
	pthread_mutex_destroy(&ibcq->mutex);
	pthread_cond_destroy(&ibcq->cond);
	free(cq);
	return 0;
}
