/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues in shared memory (madpmd/verbs.h): the lcore writes
 * entries with an owner value the client polls for, mlx5-style, and
 * raises a completion event for each arming (IBA 11.4.2.2): the next
 * completion, or the next solicited one, after ibv_req_notify_cq().
 * A resize moves the entries not yet polled to a new ring at their counts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qp_priv.h"

void
hca_v_comp_get(struct hca_v_comp *c)
{
	__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
}

void
hca_v_comp_put(struct hca_v_comp *c)
{
	if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL))
		return;
	close(c->fd);
	free(c);
}

static inline uint8_t
cq_owner(uint32_t count, uint32_t ncqe)
{
	return (uint8_t)(1 + ((count / ncqe) & 1));
}

/* Lay out a zeroed mapping and point cq at it */
static void
cq_map(struct hca_v_cq *cq, void *shm, size_t map_len, uint32_t ncqe)
{
	struct mpd_v_cq_shm *s = shm;

	cq->map = shm;
	cq->map_len = map_len;
	cq->shm = s;
	cq->ncqe = ncqe;
	s->magic = MPD_V_CQ_MAGIC;
	s->ncqe = ncqe;
	s->cqe_off = 256;
	cq->cqe = (struct mpd_v_cqe *)((uint8_t *)shm + s->cqe_off);
}

void
hca_v_cq_init(struct hca_v_cq *cq, void *shm, size_t map_len, uint32_t ncqe)
{
	cq_map(cq, shm, map_len, ncqe);
}

int
hca_v_cq_resize(struct hca_v_cq *cq, void *shm, size_t map_len,
		uint32_t ncqe, uint32_t cqe, uint32_t ci, uint32_t owed)
{
	struct mpd_v_cq_shm *old = cq->shm, *s = shm;
	const struct mpd_v_cqe *from = cq->cqe;
	uint32_t old_ncqe = cq->ncqe, c;
	struct mpd_v_cqe *to;

	if (!ncqe || (ncqe & (ncqe - 1)) || ncqe <= cqe ||
	    map_len < 256 + (size_t)ncqe * sizeof(*to))
		return EINVAL;
	/* a count the client can have: not behind what it told us, not
	 * past what we wrote */
	if ((uint32_t)(ci - cq->ci_seen) > (uint32_t)(cq->pi - cq->ci_seen))
		return EINVAL;
	/* what it holds, and what sends posted already will add: the lcore
	 * may not have run them yet, and a smaller ring would overrun */
	if ((uint64_t)(cq->pi - ci) + owed > cqe)
		return EINVAL;
	cq_map(cq, shm, map_len, ncqe);
	to = cq->cqe;
	/* the client polls them at the counts it has: same counts, the
	 * owner value of the new size (not yet visible: no ordering) */
	for (c = ci; c != cq->pi; c++) {
		struct mpd_v_cqe *e = &to[c & (ncqe - 1)];

		memcpy(e, &from[c & (old_ncqe - 1)], sizeof(*e));
		e->owner = cq_owner(c, ncqe);
	}
	s->ci = ci;
	s->comp_arm = __atomic_load_n(&old->comp_arm, __ATOMIC_ACQUIRE);
	s->comp_events = cq->events;
	s->error = cq->error;
	cq->ci_seen = ci;
	return 0;
}

int
hca_v_cq_remove(struct hca_verbs *v, struct hca_v_cq *cq)
{
	(void)v;
	/* a kick still queued keeps its own reference to the channel */
	return cq->users ? EBUSY : 0;
}

static void
kick_queue(struct hca_verbs *v, struct hca_v_comp *c)
{
	if (c->queued || v->nkick == HCA_V_KICKS_MAX)
		return;
	c->queued = true;
	hca_v_comp_get(c);
	v->kick[v->nkick++] = c;
}

bool
cq_push(struct hca_verbs *v, struct hca_v_cq *cq, const struct mpd_v_cqe *e,
	bool solicited, uint32_t psn)
{
	struct mpd_v_cq_shm *s = cq->shm;
	struct mpd_v_cqe *slot;
	uint32_t ci, arm;

	if (cq->error)
		return false;
	/* the client's count, taken only when it is one it can have */
	ci = __atomic_load_n(&s->ci, __ATOMIC_ACQUIRE);
	if ((uint32_t)(cq->pi - ci) <= cq->ncqe &&
	    (int32_t)(ci - cq->ci_seen) > 0)
		cq->ci_seen = ci;
	if (cq->pi - cq->ci_seen >= cq->ncqe) {
		/* IBA 11.4.2.1: an overrun puts the CQ in error, and the
		 * client hears of it (IBV_EVENT_CQ_ERR) */
		cq->error = true;
		__atomic_store_n(&s->error, 1, __ATOMIC_RELEASE);
		v->port->cnt.cq_overruns++;
		if (cq->owner && !cq->owner->dead) {
			struct mpd_v_async_rec r = {
				.event_type = IBV_EVENT_CQ_ERR,
				.obj = MPD_V_OBJ_CQ, .handle = cq->handle,
			};

			cq->async_events++;
			cq->owner->ops->async(cq->owner, &r);
		}
		return false;
	}
	slot = &cq->cqe[cq->pi & (cq->ncqe - 1)];
	memcpy(slot, e, offsetof(struct mpd_v_cqe, owner));
	__atomic_store_n(&slot->owner, cq_owner(cq->pi, cq->ncqe),
			 __ATOMIC_RELEASE);
	cq->pi++;
	if (v->on_cqe)
		v->on_cqe(v->rec_ctx, cq->handle, e, psn);
	if (!cq->comp)
		return true;
	/*
	 * An arming not raised for yet: bits 31..1 count armings. The entry
	 * stored above and the arming loaded here, against the client's
	 * arming stored and the ring polled after it (mpd_v_cq_arm()): a
	 * full fence on both sides, or each may miss the other's store and
	 * the client waits for an event that never comes (ibv_rc_pingpong -e
	 * hung one run in 30 without it)
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	arm = __atomic_load_n(&s->comp_arm, __ATOMIC_ACQUIRE);
	if ((arm >> 1) != (cq->arm_fired >> 1) &&
	    (!(arm & 1) || solicited || e->status != IBV_WC_SUCCESS)) {
		cq->arm_fired = arm;
		cq->events++;
		__atomic_store_n(&s->comp_events, cq->events, __ATOMIC_RELEASE);
		kick_queue(v, cq->comp);
	}
	return true;
}

unsigned int
hca_v_kicks(struct hca_verbs *v, struct hca_v_comp **k)
{
	unsigned int n = v->nkick;

	memcpy(k, v->kick, n * sizeof(*k));
	v->nkick = 0;
	return n;
}

void
hca_v_kick(struct hca_v_comp **k, unsigned int n)
{
	static const uint8_t one = 1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		__atomic_store_n(&k[i]->queued, false, __ATOMIC_RELAXED);
		if (send(k[i]->fd, &one, 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			/* full: readable anyway; gone: nobody to tell */
		}
		hca_v_comp_put(k[i]);
	}
}
