/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's CQ writer (pmd/qp/cq.c) on rings in ordinary memory, the
 * test playing the client: hca_v_cq_resize() growing and shrinking a CQ
 * that holds completions across a wrap (same counts, owner values of the
 * new size), what it carries over (ci, arm word, events, error), the
 * counts it refuses (a ci the client cannot have, more pending or owed
 * than asked) leaving the CQ as it was, the overrun check on the new size,
 * and the library's poller (lib/verbs/vring.c) taking the moved entries
 * in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qp/qp_priv.h"
#include "../../lib/verbs/vring.h"
#include "tap.h"

static struct hca_port port;
static struct hca_verbs v;

struct ring {
	void *mem;
	size_t len;
	uint32_t ncqe;
};

static struct ring
ring_new(uint32_t ncqe)
{
	struct ring r = { .ncqe = ncqe };

	r.len = 256 + (size_t)ncqe * sizeof(struct mpd_v_cqe);
	r.mem = aligned_alloc(64, r.len);
	if (!r.mem)
		exit(1);
	memset(r.mem, 0, r.len);
	return r;
}

static struct mpd_v_cqe *
slot(const struct hca_v_cq *cq, uint32_t count)
{
	return &cq->cqe[count & (cq->ncqe - 1)];
}

/* a completion named by its count */
static bool
push(struct hca_v_cq *cq)
{
	struct mpd_v_cqe e = {
		.wr_id = 1000 + cq->pi, .opcode = IBV_WC_SEND,
		.byte_len = cq->pi * 10, .qp_num = 0x42,
	};

	return cq_push(&v, cq, &e, false, HCA_V_NO_PSN);
}

/* the client consumed up to ci */
static void
client_ci(struct hca_v_cq *cq, uint32_t ci)
{
	__atomic_store_n(&cq->shm->ci, ci, __ATOMIC_RELEASE);
}

/* entries [from, to) at their counts with the owner value of the ring */
static bool
holds(const struct hca_v_cq *cq, uint32_t from, uint32_t to)
{
	uint32_t c;

	for (c = from; c != to; c++) {
		const struct mpd_v_cqe *e = slot(cq, c);

		if (e->wr_id != 1000 + c || e->byte_len != c * 10 ||
		    e->opcode != IBV_WC_SEND || e->qp_num != 0x42 ||
		    e->owner != 1 + ((c / cq->ncqe) & 1))
			return false;
	}
	return true;
}

int
main(void)
{
	struct ring a = ring_new(4), b = ring_new(16), c = ring_new(4),
		    d = ring_new(8), bad = ring_new(8);
	struct mpd_v_cq_ring cr;
	struct ibv_wc wc[8];
	struct hca_v_cq cq;
	int i, n;

	v.port = &port;
	memset(&cq, 0, sizeof(cq));
	hca_v_cq_init(&cq, a.mem, a.len, a.ncqe);

	/* 3 written and polled, 3 more: counts 3..5, slots 3, 0, 1 */
	for (i = 0; i < 3; i++)
		push(&cq);
	client_ci(&cq, 3);
	for (i = 0; i < 3; i++)
		push(&cq);
	ok(cq.pi == 6 && cq.ci_seen == 3 && holds(&cq, 3, 6),
	   "a ring of 4 holding counts 3..5 across its wrap");
	cq.shm->comp_arm = 5;		/* two armings, solicited only */
	cq.arm_fired = 4;
	cq.events = 3;

	is_int(hca_v_cq_resize(&cq, bad.mem, bad.len, 8, 2, 3, 0), EINVAL,
	       "3 pending, 2 asked: EINVAL");
	is_int(hca_v_cq_resize(&cq, bad.mem, bad.len, 8, 4, 3, 2), EINVAL,
	       "3 pending and 2 sends owed, 4 asked: EINVAL");
	is_int(hca_v_cq_resize(&cq, bad.mem, bad.len, 8, 7, 2, 0), EINVAL,
	       "a ci behind what the client told: EINVAL");
	is_int(hca_v_cq_resize(&cq, bad.mem, bad.len, 8, 7, 7, 0), EINVAL,
	       "a ci past what was written: EINVAL");
	is_int(hca_v_cq_resize(&cq, bad.mem, bad.len, 8, 8, 3, 0), EINVAL,
	       "a ring not bigger than cqe: EINVAL");
	is_int(hca_v_cq_resize(&cq, bad.mem, 256 + 7 * 64, 8, 7, 3, 0), EINVAL,
	       "a mapping too short for its entries: EINVAL");
	ok(cq.map == a.mem && cq.ncqe == 4 && cq.ci_seen == 3 &&
	   holds(&cq, 3, 6) && !((uint8_t *)bad.mem)[0],
	   "refused: the CQ is as it was, the new mapping untouched");

	/* grow to 16, the client having polled one more (ci 4) */
	is_int(hca_v_cq_resize(&cq, b.mem, b.len, 16, 12, 4, 0), 0,
	       "grow 4 -> 16 at ci 4");
	{
		const struct mpd_v_cq_shm *s = b.mem;

		ok(s->magic == MPD_V_CQ_MAGIC && s->ncqe == 16 &&
		   s->cqe_off == 256 && s->ci == 4 && s->comp_arm == 5 &&
		   s->comp_events == 3 && !s->error,
		   "new header: magic, ncqe, cqe_off, ci, arm word, events");
	}
	ok(cq.map == b.mem && cq.map_len == b.len && cq.ncqe == 16 &&
	   cq.shm == b.mem && cq.ci_seen == 4 && cq.pi == 6 &&
	   cq.arm_fired == 4 && cq.events == 3,
	   "the CQ on the new ring; counts, arm and events kept");
	ok(holds(&cq, 4, 6) && !slot(&cq, 3)->owner && !slot(&cq, 6)->owner,
	   "counts 4, 5 at slots 4, 5; the polled one and beyond not written");

	/* fill to count 21 (the ring wraps), client at 19: 19, 20 pending
	 * land at slots 3 and 0 of a ring of 4, laps 4 and 5 */
	for (i = 6; i < 19; i++)
		if (!push(&cq))
			break;
	client_ci(&cq, 19);
	for (; i < 21; i++)
		if (!push(&cq))
			break;
	ok(i == 21 && holds(&cq, 19, 21), "15 more on the ring of 16");
	is_int(hca_v_cq_resize(&cq, c.mem, c.len, 4, 1, 19, 0), EINVAL,
	       "shrink below the 2 pending: EINVAL");
	is_int(hca_v_cq_resize(&cq, c.mem, c.len, 4, 2, 19, 0), 0,
	       "shrink 16 -> 4 with 2 pending");
	ok(cq.ncqe == 4 && slot(&cq, 19) == &cq.cqe[3] &&
	   slot(&cq, 20) == &cq.cqe[0] && cq.cqe[3].owner == 1 &&
	   cq.cqe[0].owner == 2 && holds(&cq, 19, 21),
	   "counts 19, 20 at slots 3, 0 with owners 1, 2");

	/* the new size's overrun check: 2 pending, 2 more fill the ring */
	ok(push(&cq) && push(&cq) && !cq.error, "two more fit");
	ok(!push(&cq) && cq.error && cq.shm->error == 1 &&
	   port.cnt.cq_overruns == 1,
	   "the next overruns the ring of 4: the CQ in error");

	/* an errored CQ moves with its error, its 4 entries kept */
	is_int(hca_v_cq_resize(&cq, d.mem, d.len, 8, 4, 19, 0), 0,
	       "resize the CQ in error to 8");
	ok(((struct mpd_v_cq_shm *)d.mem)->error == 1 && cq.error &&
	   holds(&cq, 19, 23), "error carried over, entries 19..22 copied");

	/* the library's poller on the new ring at its count */
	ok(mpd_v_cq_attach(&cr, d.mem, d.len, 8) == 0, "the client attaches");
	cr.ci = 19;
	n = mpd_v_cq_poll(&cr, 8, wc);
	ok(n == 4 && wc[0].wr_id == 1019 && wc[1].wr_id == 1020 &&
	   wc[2].wr_id == 1021 && wc[3].wr_id == 1022 &&
	   wc[3].byte_len == 220, "it polls 19..22 in order (%d)", n);
	is_int(mpd_v_cq_poll(&cr, 8, wc), -1, "then the error: -1");

	free(a.mem);
	free(b.mem);
	free(c.mem);
	free(d.mem);
	free(bad.mem);
	return tap_done();
}
