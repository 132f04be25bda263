/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs library's shared-memory rings (lib/verbs/vring.c) against
 * rings in ordinary memory, the test playing the daemon: CQ polling by
 * the owner rule across laps, num_entries limits, when ci is published,
 * cq_ex start/next/end_poll (ENOENT leaves ci at the producer), arming,
 * the count of completions pending;
 * WQE writing with room, state, SGE and inline checks, errno returns,
 * bad_wr, UD addresses and the doorbell.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/verbs/vring.h"
#include "tap.h"

/* ---- CQ ---- */

#define NCQE	8u
#define CQE_OFF	((uint32_t)sizeof(struct mpd_v_cq_shm))
#define CQ_SIZE	(CQE_OFF + NCQE * (uint32_t)sizeof(struct mpd_v_cqe))

struct tcq {
	uint8_t *mem;
	struct mpd_v_cq_shm *shm;
	struct mpd_v_cqe *cqe;
	uint32_t pi;			/* the daemon's */
	struct mpd_v_cq_ring r;
};

static void
tcq_open(struct tcq *t)
{
	t->mem = aligned_alloc(64, CQ_SIZE);
	if (!t->mem)
		exit(1);
	memset(t->mem, 0, CQ_SIZE);
	t->shm = (struct mpd_v_cq_shm *)t->mem;
	t->shm->magic = MPD_V_CQ_MAGIC;
	t->shm->ncqe = NCQE;
	t->shm->cqe_off = CQE_OFF;
	t->cqe = (struct mpd_v_cqe *)(t->mem + CQE_OFF);
	t->pi = 0;
}

/* the daemon writes a completion named by its count */
static void
produce(struct tcq *t)
{
	struct mpd_v_cqe *e = &t->cqe[t->pi % NCQE];
	uint8_t owner = (uint8_t)(1 + ((t->pi / NCQE) & 1));

	e->wr_id = 1000 + t->pi;
	e->status = t->pi % 3;
	e->opcode = IBV_WC_RECV;
	e->vendor_err = 7;
	e->byte_len = t->pi * 10;
	e->imm_data = 0x11223344;
	e->qp_num = 0x123456;
	e->src_qp = 0x654321;
	e->wc_flags = IBV_WC_GRH | IBV_WC_WITH_IMM;
	e->pkey_index = 3;
	e->slid = 0x42;
	e->sl = 5;
	e->dlid_path_bits = 1;
	__atomic_store_n(&e->owner, owner, __ATOMIC_RELEASE);
	t->pi++;
}

static void
test_cq_attach(void)
{
	struct tcq t;

	tcq_open(&t);
	is_int(mpd_v_cq_attach(&t.r, t.mem, CQ_SIZE, NCQE), 0, "attach");
	is_int(mpd_v_cq_attach(&t.r, t.mem, CQ_SIZE, NCQE * 2), EPROTO,
	       "ncqe other than the reply's");
	is_int(mpd_v_cq_attach(&t.r, t.mem, CQ_SIZE - 1, NCQE), EPROTO,
	       "entries past the mapping");
	t.shm->cqe_off = 8;
	is_int(mpd_v_cq_attach(&t.r, t.mem, CQ_SIZE, NCQE), EPROTO,
	       "entries over the header");
	t.shm->cqe_off = CQE_OFF;
	t.shm->ncqe = 6;
	is_int(mpd_v_cq_attach(&t.r, t.mem, CQ_SIZE, 6), EPROTO,
	       "ncqe not a power of two");
	t.shm->ncqe = NCQE;
	t.shm->magic = 0;
	is_int(mpd_v_cq_attach(&t.r, t.mem, CQ_SIZE, NCQE), EPROTO,
	       "bad magic");
	free(t.mem);
}

/* what ibv_resize_cq() compares a smaller size with */
static void
test_cq_pending(void)
{
	struct ibv_wc wc[NCQE];
	struct tcq t;
	int i;

	tcq_open(&t);
	mpd_v_cq_attach(&t.r, t.mem, CQ_SIZE, NCQE);
	is_int(mpd_v_cq_pending(&t.r), 0, "pending: none");
	for (i = 0; i < 3; i++)
		produce(&t);
	is_int(mpd_v_cq_pending(&t.r), 3, "pending: three written");
	is_int(mpd_v_cq_poll(&t.r, 2, wc), 2, "two taken");
	is_int(mpd_v_cq_pending(&t.r), 1, "pending: one left");
	for (i = 0; i < (int)NCQE - 1; i++)
		produce(&t);
	is_int(mpd_v_cq_pending(&t.r), NCQE, "pending: full, across the lap");
	is_int(t.r.ci, 2, "counting consumes nothing");
	free(t.mem);
}

static void
test_cq_poll(void)
{
	struct ibv_wc wc[NCQE * 2];
	struct tcq t;
	uint32_t want = 0;
	bool order = true;
	int n, i, round;

	tcq_open(&t);
	mpd_v_cq_attach(&t.r, t.mem, CQ_SIZE, NCQE);
	t.shm->ci = 0xdead;
	is_int(mpd_v_cq_poll(&t.r, 4, wc), 0, "empty: 0");
	is_int(t.shm->ci, 0xdead, "empty: ci not written");

	produce(&t);
	produce(&t);
	produce(&t);
	is_int(mpd_v_cq_poll(&t.r, 2, wc), 2, "num_entries limits");
	is_int(t.shm->ci, 2, "ci published");
	is_int(wc[0].wr_id, 1000, "first wr_id");
	is_int(wc[1].wr_id, 1001, "second wr_id");
	is_int(wc[1].status, 1, "status");
	is_int(wc[1].opcode, IBV_WC_RECV, "opcode");
	is_int(wc[1].vendor_err, 7, "vendor_err");
	is_int(wc[1].byte_len, 10, "byte_len");
	is_int(wc[1].imm_data, 0x11223344, "imm_data as is");
	is_int(wc[1].qp_num, 0x123456, "qp_num");
	is_int(wc[1].src_qp, 0x654321, "src_qp");
	is_int(wc[1].wc_flags, IBV_WC_GRH | IBV_WC_WITH_IMM, "wc_flags");
	is_int(wc[1].pkey_index, 3, "pkey_index");
	is_int(wc[1].slid, 0x42, "slid");
	is_int(wc[1].sl, 5, "sl");
	is_int(wc[1].dlid_path_bits, 1, "dlid_path_bits");
	is_int(mpd_v_cq_poll(&t.r, 8, wc), 1, "the rest");
	is_int(wc[0].wr_id, 1002, "in order");
	is_int(mpd_v_cq_poll(&t.r, 8, wc), 0, "empty again");
	is_int(mpd_v_cq_poll(&t.r, 0, wc), 0, "num_entries 0");

	/* many laps: the previous lap's entries must never look valid */
	want = t.r.ci;
	for (round = 0; round < 200; round++) {
		int k = (int)rnd_bits(3) + 1;

		for (i = 0; i < k && t.pi - t.r.ci < NCQE; i++)
			produce(&t);
		n = mpd_v_cq_poll(&t.r, (int)rnd_bits(4) + 1, wc);
		for (i = 0; i < n; i++)
			if (wc[i].wr_id != 1000 + want++)
				order = false;
		if (t.shm->ci != t.r.ci)
			order = false;
	}
	while ((n = mpd_v_cq_poll(&t.r, 16, wc)) > 0)
		for (i = 0; i < n; i++)
			if (wc[i].wr_id != 1000 + want++)
				order = false;
	ok(order, "200 rounds across laps: every entry once, in order, ci published");
	is_int(want, t.pi, "all taken (%u)", t.pi);
	ok(t.pi > 4 * NCQE, "wrapped several times");

	/* overrun: what is there comes out, then the error */
	produce(&t);
	t.shm->error = 1;
	is_int(mpd_v_cq_poll(&t.r, 4, wc), 1, "error: entries first");
	is_int(mpd_v_cq_poll(&t.r, 4, wc), -1, "error: then negative");
	free(t.mem);
}

static void
test_cq_ex(void)
{
	struct tcq t;
	uint32_t ci0;

	tcq_open(&t);
	mpd_v_cq_attach(&t.r, t.mem, CQ_SIZE, NCQE);
	t.shm->ci = 0xdead;
	is_int(mpd_v_cq_start(&t.r), ENOENT, "start on empty: ENOENT");
	is_int(t.r.ci, 0, "ci stays");
	is_int(t.shm->ci, 0xdead, "nothing published");
	/* an application that calls end_poll anyway */
	mpd_v_cq_end(&t.r);
	is_int(t.r.ci, 0, "end after ENOENT: ci not past the producer");

	produce(&t);
	produce(&t);
	is_int(mpd_v_cq_start(&t.r), 0, "start");
	is_int(t.r.cur.wr_id, 1000, "first in hand");
	is_int(t.r.ci, 0, "start consumes nothing yet");
	is_int(mpd_v_cq_next(&t.r), 0, "next");
	is_int(t.r.cur.wr_id, 1001, "second in hand");
	is_int(mpd_v_cq_next(&t.r), ENOENT, "next: ENOENT");
	mpd_v_cq_end(&t.r);
	is_int(t.r.ci, 2, "end after ENOENT: ci at the producer (rxe: 3)");
	is_int(t.shm->ci, 2, "published");
	is_int(mpd_v_cq_start(&t.r), ENOENT, "empty");

	ci0 = t.r.ci;
	produce(&t);
	produce(&t);
	is_int(mpd_v_cq_start(&t.r), 0, "start");
	mpd_v_cq_end(&t.r);
	is_int(t.r.ci, ci0 + 1, "end consumes the one in hand");
	is_int(t.shm->ci, ci0 + 1, "and publishes");
	is_int(mpd_v_cq_start(&t.r), 0, "the other one");
	is_int(t.r.cur.wr_id, 1000 + ci0 + 1, "in order");
	mpd_v_cq_end(&t.r);
	is_int(t.r.ci, t.pi, "all taken");

	/* arming: +2 per arm, bit 0 solicited-only, one store */
	mpd_v_cq_arm(&t.r, 0);
	is_int(t.shm->comp_arm, 2, "arm");
	mpd_v_cq_arm(&t.r, 1);
	is_int(t.shm->comp_arm, 5, "arm solicited");
	mpd_v_cq_arm(&t.r, 0);
	is_int(t.shm->comp_arm, 6, "arm again");
	free(t.mem);
}

/* ---- work queues ---- */

#define SQ_WQES		4u
#define RQ_WQES		4u
#define MAX_SGE		2u
#define MAX_INLINE	64u
#define SQ_STRIDE	(96u + MAX_INLINE)
#define RQ_STRIDE	(16u + MAX_SGE * 16u)
#define SQ_OFF		((uint32_t)sizeof(struct mpd_v_qp_shm))
#define RQ_OFF		(SQ_OFF + SQ_WQES * SQ_STRIDE)
#define QP_SIZE		(RQ_OFF + RQ_WQES * RQ_STRIDE)

struct tqp {
	uint8_t *mem;
	struct mpd_v_qp_shm *shm;
	struct mpd_v_qp_cap cap;
	struct mpd_v_qp_ring q;
	struct mpd_v_doorbell db;
	uint32_t armed;
	uint32_t rings;
};

static int
tqp_open(struct tqp *t, uint32_t qp_type)
{
	t->mem = aligned_alloc(64, QP_SIZE);
	if (!t->mem)
		exit(1);
	memset(t->mem, 0, QP_SIZE);
	t->shm = (struct mpd_v_qp_shm *)t->mem;
	t->shm->magic = MPD_V_QP_MAGIC;
	t->shm->sq_wqes = SQ_WQES;
	t->shm->rq_wqes = RQ_WQES;
	t->shm->sq_stride = SQ_STRIDE;
	t->shm->rq_stride = RQ_STRIDE;
	t->shm->sq_off = SQ_OFF;
	t->shm->rq_off = RQ_OFF;
	t->cap.max_send_wr = SQ_WQES;
	t->cap.max_recv_wr = RQ_WQES;
	t->cap.max_send_sge = MAX_SGE;
	t->cap.max_recv_sge = MAX_SGE;
	t->cap.max_inline_data = MAX_INLINE;
	t->armed = 0;
	t->rings = 0;
	t->db.armed = &t->armed;
	t->db.rings = &t->rings;
	t->db.fd = -1;
	return mpd_v_qp_attach(&t->q, t->mem, QP_SIZE, &t->cap, qp_type, true,
			       true, &t->db);
}

static struct mpd_v_swqe *
swqe(struct tqp *t, uint32_t i)
{
	return (struct mpd_v_swqe *)(t->mem + SQ_OFF +
				     (i % SQ_WQES) * SQ_STRIDE);
}

static void
test_qp_attach(void)
{
	struct tqp t;

	is_int(tqp_open(&t, IBV_QPT_RC), 0, "attach");
	t.shm->sq_stride = SQ_STRIDE - 8;
	is_int(mpd_v_qp_attach(&t.q, t.mem, QP_SIZE, &t.cap, IBV_QPT_RC, true,
			       true, &t.db), EPROTO, "send stride too small");
	t.shm->sq_stride = SQ_STRIDE;
	is_int(mpd_v_qp_attach(&t.q, t.mem, QP_SIZE - 1, &t.cap, IBV_QPT_RC,
			       true, true, &t.db), EPROTO,
	       "receive queue past the mapping");
	t.shm->sq_wqes = 2;
	is_int(mpd_v_qp_attach(&t.q, t.mem, QP_SIZE, &t.cap, IBV_QPT_RC, true,
			       true, &t.db), EPROTO, "fewer WQEs than granted");
	t.shm->sq_wqes = 3;
	t.cap.max_send_wr = 3;
	is_int(mpd_v_qp_attach(&t.q, t.mem, QP_SIZE, &t.cap, IBV_QPT_RC, true,
			       true, &t.db), EPROTO, "not a power of two");
	t.shm->sq_wqes = SQ_WQES;
	t.shm->magic = 1;
	is_int(mpd_v_qp_attach(&t.q, t.mem, QP_SIZE, &t.cap, IBV_QPT_RC, true,
			       true, &t.db), EPROTO, "bad magic");
	free(t.mem);
}

static void
test_post_send(void)
{
	uint8_t data[MAX_INLINE + 1];
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sg[3];
	struct mpd_v_swqe *w;
	struct mpd_v_sge *s;
	struct tqp t;
	int i, dbr;

	tqp_open(&t, IBV_QPT_RC);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		sg[i].addr = 0x1000u * (i + 1);
		sg[i].length = 100u + i;
		sg[i].lkey = 0x77u + i;
	}
	wr[0].wr_id = 1;
	wr[0].sg_list = sg;
	wr[0].num_sge = 2;
	wr[0].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr[0].send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	wr[0].imm_data = 0xabcdef01;
	wr[0].wr.rdma.remote_addr = 0x123456789aull;
	wr[0].wr.rdma.rkey = 0x5555;

	for (i = IBV_QPS_RESET; i <= IBV_QPS_RTR; i++) {
		t.shm->state = (uint32_t)i;
		bad = NULL;
		is_int(mpd_v_post_send(&t.q, wr, &bad), EINVAL,
		       "send in state %d: EINVAL (positive)", i);
		ok(bad == wr, "bad_wr set");
	}
	is_int(t.shm->sq_pi, 0, "nothing published");

	t.shm->state = IBV_QPS_RTS;
	is_int(mpd_v_post_send(&t.q, wr, &bad), 0, "send in RTS");
	is_int(t.shm->sq_pi, 1, "sq_pi published");
	w = swqe(&t, 0);
	is_int(w->wr_id, 1, "wr_id");
	is_int(w->opcode, IBV_WR_RDMA_WRITE_WITH_IMM, "opcode");
	is_int(w->flags, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED, "flags");
	is_int(w->num_sge, 2, "num_sge");
	is_int(w->imm_data, 0xabcdef01, "imm");
	is_int(w->remote_addr, 0x123456789aull, "remote_addr");
	is_int(w->rkey, 0x5555, "rkey");
	is_int(w->inline_len, 0, "not inline");
	s = (struct mpd_v_sge *)((uint8_t *)w + MPD_V_SWQE_HDR);
	ok(s[0].addr == 0x1000 && s[0].length == 100 && s[0].lkey == 0x77 &&
	   s[1].addr == 0x2000 && s[1].length == 101 && s[1].lkey == 0x78,
	   "SGEs after the header");

	/* a chain with a bad WR in the middle */
	wr[0].next = &wr[1];
	wr[1] = wr[0];
	wr[1].wr_id = 2;
	wr[1].num_sge = 3;
	wr[1].next = &wr[2];
	wr[2] = wr[0];
	wr[2].next = NULL;
	is_int(mpd_v_post_send(&t.q, wr, &bad), EINVAL, "num_sge > max");
	ok(bad == &wr[1], "bad_wr is the second");
	is_int(t.shm->sq_pi, 2, "the first is posted");

	/* inline */
	for (i = 0; i < (int)sizeof(data); i++)
		data[i] = (uint8_t)i;
	sg[0].addr = (uintptr_t)data;
	sg[0].length = 40;
	sg[1].addr = (uintptr_t)data + 40;
	sg[1].length = MAX_INLINE - 40;
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 3;
	wr[0].sg_list = sg;
	wr[0].num_sge = 2;
	wr[0].opcode = IBV_WR_SEND;
	wr[0].send_flags = IBV_SEND_INLINE;
	is_int(mpd_v_post_send(&t.q, wr, &bad), 0, "inline of max_inline");
	w = swqe(&t, 2);
	is_int(w->inline_len, MAX_INLINE, "inline_len");
	is_int(w->num_sge, 0, "no SGEs");
	ok(!memcmp((uint8_t *)w + MPD_V_SWQE_HDR, data, MAX_INLINE),
	   "data copied after the header");
	sg[1].length++;
	is_int(mpd_v_post_send(&t.q, wr, &bad), EINVAL, "inline too long");
	ok(bad == wr, "bad_wr");
	sg[1].length--;

	/* room: 3 posted, the daemon has taken none */
	is_int(mpd_v_post_send(&t.q, wr, &bad), 0, "the fourth fits");
	is_int(mpd_v_post_send(&t.q, wr, &bad), ENOMEM, "full: ENOMEM");
	ok(bad == wr, "bad_wr");
	is_int(t.shm->sq_pi, 4, "pi stays");
	t.shm->sq_ci = 1;
	is_int(mpd_v_post_send(&t.q, wr, &bad), 0, "room once sq_ci moved");
	is_int(swqe(&t, 4)->wr_id, 3, "slot 0 again");
	t.shm->sq_ci = 0x80000000u;
	is_int(mpd_v_post_send(&t.q, wr, &bad), ENOMEM,
	       "a garbage sq_ci only makes it full");
	t.shm->sq_ci = 5;

	/* memory windows: a bind names its window, by the key's index */
	wr[0].opcode = IBV_WR_BIND_MW;
	wr[0].bind_mw.mw = NULL;
	is_int(mpd_v_post_send(&t.q, wr, &bad), EINVAL,
	       "bind MW without a window");
	{
		struct ibv_mw mw = { .rkey = 0x4501, .type = IBV_MW_TYPE_1 };

		wr[0].bind_mw.mw = &mw;
		wr[0].bind_mw.rkey = 0x4602;
		wr[0].bind_mw.bind_info = (struct ibv_mw_bind_info){ 0 };
		is_int(mpd_v_post_send(&t.q, wr, &bad), EINVAL,
		       "bind MW with another window's key");
		wr[0].bind_mw.rkey = 0x4502;
		wr[0].bind_mw.bind_info.length = 64;
		is_int(mpd_v_post_send(&t.q, wr, &bad), EINVAL,
		       "bind MW of a range without its MR");
	}
	/* send with invalidate: the rkey where imm_data goes (the daemon's
	 * requester carries it in the IETH) */
	wr[0].opcode = IBV_WR_SEND_WITH_INV;
	wr[0].invalidate_rkey = 0x1234;
	is_int(mpd_v_post_send(&t.q, wr, &bad), 0, "send with invalidate on RC");
	w = swqe(&t, 5);
	ok(w->opcode == IBV_WR_SEND_WITH_INV && w->imm_data == 0x1234 &&
	   w->inline_len == MAX_INLINE, "invalidate rkey, inline data");
	wr[0].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr[0].num_sge = 2;
	is_int(mpd_v_post_send(&t.q, wr, &bad), EINVAL, "atomic with 2 SGEs");
	wr[0].num_sge = 1;
	sg[0].length = 8;
	wr[0].wr.atomic.remote_addr = 0x88;
	wr[0].wr.atomic.compare_add = 5;
	wr[0].wr.atomic.swap = 6;
	wr[0].wr.atomic.rkey = 9;
	is_int(mpd_v_post_send(&t.q, wr, &bad), 0, "atomic");
	w = swqe(&t, 6);
	ok(w->remote_addr == 0x88 && w->compare_add == 5 && w->swap == 6 &&
	   w->rkey == 9 && !(w->flags & IBV_SEND_INLINE),
	   "atomic fields; inline flag dropped");

	/* doorbell (a pipe, a byte a ring): written only while armed */
	{
		int pp[2];

		if (pipe2(pp, O_NONBLOCK) != 0)
			abort();
		dbr = pp[0];
		t.db.fd = pp[1];
	}
	t.shm->sq_ci = t.shm->sq_pi;
	wr[0].opcode = IBV_WR_SEND;
	wr[0].send_flags = 0;
	is_int(mpd_v_post_send(&t.q, wr, &bad), 0, "post, disarmed");
	{
		uint8_t v[8];

		ok(read(dbr, v, sizeof(v)) < 0 && errno == EAGAIN,
		   "no doorbell while the lcore runs");
		is_int(t.rings, 0, "no ring counted while the lcore runs");
		t.armed = 1;
		is_int(mpd_v_post_send(&t.q, wr, &bad), 0, "post, armed");
		ok(read(dbr, v, sizeof(v)) == 1, "doorbell rung once");
		/* counted, for the lcore to read it back (madpmd/chan.h) */
		is_int(t.rings, 1, "the ring counted");
	}
	close(t.db.fd);
	close(dbr);
	free(t.mem);
}

static void
test_ud(void)
{
	struct ibv_send_wr wr, *bad;
	struct mpd_v_ah_obj ah;
	struct ibv_ah_attr a;
	struct ibv_sge sg = { .addr = 0x1000, .length = 64, .lkey = 1 };
	struct mpd_v_swqe *w;
	struct tqp t;

	tqp_open(&t, IBV_QPT_UD);
	t.shm->state = IBV_QPS_RTS;
	memset(&a, 0, sizeof(a));
	a.dlid = 0x17;
	a.sl = 3;
	a.port_num = 1;
	a.is_global = 1;
	a.grh.dgid.raw[15] = 9;
	a.grh.hop_limit = 64;
	a.grh.flow_label = 0x12345;
	memset(&ah, 0, sizeof(ah));
	mpd_v_ah_from_attr(&ah.av, &a);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.wr.ud.remote_qpn = 0x99;
	wr.wr.ud.remote_qkey = 0x11111111;
	is_int(mpd_v_post_send(&t.q, &wr, &bad), EINVAL, "UD without an AH");
	wr.wr.ud.ah = &ah.ah;
	is_int(mpd_v_post_send(&t.q, &wr, &bad), 0, "UD send");
	w = swqe(&t, 0);
	ok(w->remote_qpn == 0x99 && w->remote_qkey == 0x11111111,
	   "remote QPN and Q_Key");
	ok(w->ah.dlid == 0x17 && w->ah.sl == 3 && w->ah.is_global &&
	   w->ah.dgid[15] == 9 && w->ah.hop_limit == 64 &&
	   w->ah.flow_label == 0x12345 && w->ah.port_num == 1,
	   "the AH's address in the WQE");
	wr.opcode = IBV_WR_RDMA_WRITE;
	is_int(mpd_v_post_send(&t.q, &wr, &bad), EINVAL, "no RDMA on UD");
	wr.opcode = IBV_WR_SEND_WITH_INV;
	is_int(mpd_v_post_send(&t.q, &wr, &bad), EINVAL,
	       "no send with invalidate on UD");
	{
		struct ibv_ah_attr back;

		mpd_v_ah_to_attr(&back, &ah.av);
		ok(back.dlid == a.dlid && back.grh.flow_label == 0x12345 &&
		   back.grh.dgid.raw[15] == 9, "AH round trip");
	}
	free(t.mem);
}

static void
test_post_recv(void)
{
	struct ibv_recv_wr wr[2], *bad;
	struct ibv_sge sg[3] = {
		{ 0x1000, 10, 1 }, { 0x2000, 20, 2 }, { 0x3000, 30, 3 },
	};
	struct mpd_v_rwqe *w;
	struct tqp t;
	int i;

	tqp_open(&t, IBV_QPT_RC);
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 5;
	wr[0].sg_list = sg;
	wr[0].num_sge = 2;
	is_int(mpd_v_post_recv(&t.q, true, wr, &bad), EINVAL,
	       "recv in RESET: EINVAL (rxe took it)");
	ok(bad == wr, "bad_wr");
	t.shm->state = IBV_QPS_INIT;
	is_int(mpd_v_post_recv(&t.q, true, wr, &bad), 0, "recv in INIT");
	is_int(t.shm->rq_pi, 1, "rq_pi published");
	w = (struct mpd_v_rwqe *)(t.mem + RQ_OFF);
	ok(w->wr_id == 5 && w->num_sge == 2 && w->sg[0].addr == 0x1000 &&
	   w->sg[1].length == 20 && w->sg[1].lkey == 2, "receive WQE");
	wr[0].num_sge = 3;
	is_int(mpd_v_post_recv(&t.q, true, wr, &bad), EINVAL, "num_sge > max");
	wr[0].num_sge = 1;
	for (i = 0; i < 3; i++)
		is_int(mpd_v_post_recv(&t.q, true, wr, &bad), 0, "fill %d", i);
	is_int(mpd_v_post_recv(&t.q, true, wr, &bad), ENOMEM, "full: ENOMEM");
	t.shm->rq_ci = 2;
	wr[0].next = &wr[1];
	wr[1] = wr[0];
	wr[1].next = NULL;
	is_int(mpd_v_post_recv(&t.q, true, wr, &bad), 0, "two in a chain");
	is_int(t.shm->rq_pi, 6, "rq_pi");
	/* an SRQ has no state to look at */
	t.shm->state = IBV_QPS_RESET;
	t.shm->rq_ci = 6;
	wr[0].next = NULL;
	is_int(mpd_v_post_recv(&t.q, false, wr, &bad), 0, "SRQ-style post");
	free(t.mem);
}

/* madpmd/verbs.h's numbers are rdma-core's */
static void
test_consts(void)
{
	ok(MPD_V_QPT_RC == IBV_QPT_RC && MPD_V_QPT_UC == IBV_QPT_UC &&
	   MPD_V_QPT_UD == IBV_QPT_UD, "QP types as enum ibv_qp_type");
	ok(MPD_V_WR_RDMA_WRITE == IBV_WR_RDMA_WRITE &&
	   MPD_V_WR_RDMA_WRITE_IMM == IBV_WR_RDMA_WRITE_WITH_IMM &&
	   MPD_V_WR_SEND == IBV_WR_SEND &&
	   MPD_V_WR_SEND_IMM == IBV_WR_SEND_WITH_IMM &&
	   MPD_V_WR_RDMA_READ == IBV_WR_RDMA_READ &&
	   MPD_V_WR_CMP_SWAP == IBV_WR_ATOMIC_CMP_AND_SWP &&
	   MPD_V_WR_FETCH_ADD == IBV_WR_ATOMIC_FETCH_AND_ADD &&
	   MPD_V_WR_SEND_INV == IBV_WR_SEND_WITH_INV &&
	   MPD_V_WR_LOCAL_INV == IBV_WR_LOCAL_INV &&
	   MPD_V_WR_BIND_MW == IBV_WR_BIND_MW,
	   "opcodes as enum ibv_wr_opcode");
	ok(mpd_v_op_allowed(IBV_QPT_UD, IBV_WR_SEND) &&
	   !mpd_v_op_allowed(IBV_QPT_UD, IBV_WR_RDMA_WRITE) &&
	   mpd_v_op_allowed(IBV_QPT_UC, IBV_WR_RDMA_WRITE_WITH_IMM) &&
	   !mpd_v_op_allowed(IBV_QPT_UC, IBV_WR_RDMA_READ) &&
	   mpd_v_op_allowed(IBV_QPT_RC, IBV_WR_ATOMIC_FETCH_AND_ADD) &&
	   mpd_v_op_allowed(IBV_QPT_RC, IBV_WR_BIND_MW) &&
	   mpd_v_op_allowed(IBV_QPT_UC, IBV_WR_LOCAL_INV) &&
	   !mpd_v_op_allowed(IBV_QPT_UD, IBV_WR_BIND_MW) &&
	   !mpd_v_op_allowed(IBV_QPT_UD, IBV_WR_LOCAL_INV),
	   "operations by transport (IBA 10.7.3)");
}

int
main(void)
{
	tap_seed();
	test_consts();
	test_cq_attach();
	test_cq_poll();
	test_cq_pending();
	test_cq_ex();
	test_qp_attach();
	test_post_send();
	test_ud();
	test_post_recv();
	return tap_done();
}
