/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The extended send API (lib/verbs/qpex.c over vring.c) on a QP ring in
 * ordinary memory, called as applications call it: through rdma-core's
 * inline ibv_wr_*() helpers and the QP's function pointers. Batches are
 * published only at wr_complete (one sq_pi store, one doorbell), abort
 * and any error publish nothing and leave the slots to the next batch,
 * the first error is the one returned; WQE contents for every operation,
 * SGE lists, inline data, UD addresses; send ops per transport; the
 * verbs_qp layout ibv_qp_to_qp_ex() relies on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/verbs/vring.h"
#include "tap.h"

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
	struct mpd_v_qp_base b;
	struct ibv_qp_ex *x;
	struct mpd_v_doorbell db;
	uint32_t armed;
};

static void
tqp_open(struct tqp *t, uint32_t qp_type)
{
	struct mpd_v_qp_cap cap = {
		.max_send_wr = SQ_WQES, .max_recv_wr = RQ_WQES,
		.max_send_sge = MAX_SGE, .max_recv_sge = MAX_SGE,
		.max_inline_data = MAX_INLINE,
	};

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
	t->shm->state = IBV_QPS_RTS;
	t->armed = 0;
	t->db.armed = &t->armed;
	t->db.rings = NULL;
	t->db.fd = -1;
	memset(&t->b, 0, sizeof(t->b));
	if (mpd_v_qp_attach(&t->b.ring, t->mem, QP_SIZE, &cap, qp_type, true,
			    true, &t->db))
		exit(1);
	pthread_spin_init(&t->b.sq_lock, PTHREAD_PROCESS_PRIVATE);
	t->b.qpx.qp_base.qp_type = (enum ibv_qp_type)qp_type;
	mpd_v_qpex_init(&t->b);
	t->x = &t->b.qpx;
}

static void
tqp_close(struct tqp *t)
{
	pthread_spin_destroy(&t->b.sq_lock);
	free(t->mem);
}

static struct mpd_v_swqe *
swqe(struct tqp *t, uint32_t i)
{
	return (struct mpd_v_swqe *)(t->mem + SQ_OFF +
				     (i % SQ_WQES) * SQ_STRIDE);
}

static struct mpd_v_sge *
sges(struct tqp *t, uint32_t i)
{
	return (struct mpd_v_sge *)((uint8_t *)swqe(t, i) + MPD_V_SWQE_HDR);
}

static void
test_layout(void)
{
	struct tqp t;

	/* rdma-core's verbs_qp: { union { ibv_qp; ibv_qp_ex; }; uint32_t
	 * comp_mask; struct verbs_xrcd *xrcd; } */
	is_int(offsetof(struct mpd_v_qp_base, qpx.qp_base), 0, "ibv_qp first");
	is_int(offsetof(struct mpd_v_qp_base, comp_mask),
	       sizeof(struct ibv_qp_ex), "comp_mask after ibv_qp_ex");
	is_int(offsetof(struct mpd_v_qp_base, xrcd),
	       (sizeof(struct ibv_qp_ex) + 4 + 7) & ~(size_t)7,
	       "xrcd after comp_mask");
	tqp_open(&t, IBV_QPT_RC);
	ok(t.b.comp_mask & MPD_VERBS_QP_EX, "VERBS_QP_EX set");
	ok(t.x->wr_start && t.x->wr_complete && t.x->wr_abort &&
	   t.x->wr_send && t.x->wr_send_imm && t.x->wr_send_inv &&
	   t.x->wr_rdma_write && t.x->wr_rdma_write_imm &&
	   t.x->wr_rdma_read && t.x->wr_atomic_cmp_swp &&
	   t.x->wr_atomic_fetch_add && t.x->wr_set_sge &&
	   t.x->wr_set_sge_list && t.x->wr_set_inline_data &&
	   t.x->wr_set_inline_data_list && t.x->wr_set_ud_addr &&
	   t.x->wr_bind_mw && t.x->wr_local_inv && t.x->wr_send_tso &&
	   t.x->wr_set_xrc_srqn && t.x->wr_atomic_write,
	   "every pointer set");
	tqp_close(&t);
}

static void
test_check(void)
{
	const uint64_t rc_ops = IBV_QP_EX_WITH_SEND |
		IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_WRITE |
		IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
		IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		IBV_QP_EX_WITH_SEND_WITH_INV;

	is_int(mpd_v_qpex_check(IBV_QPT_RC, rc_ops), 0, "RC: all eight");
	is_int(mpd_v_qpex_check(IBV_QPT_RC, 0), 0, "no ops at all");
	is_int(mpd_v_qpex_check(IBV_QPT_RC, IBV_QP_EX_WITH_BIND_MW |
				IBV_QP_EX_WITH_LOCAL_INV), 0,
	       "RC: bind MW, local invalidate");
	is_int(mpd_v_qpex_check(IBV_QPT_UC, IBV_QP_EX_WITH_BIND_MW |
				IBV_QP_EX_WITH_LOCAL_INV), 0,
	       "UC: bind MW, local invalidate");
	is_int(mpd_v_qpex_check(IBV_QPT_UD, IBV_QP_EX_WITH_BIND_MW),
	       EOPNOTSUPP, "UD: no bind MW");
	is_int(mpd_v_qpex_check(IBV_QPT_RC, IBV_QP_EX_WITH_ATOMIC_WRITE),
	       EOPNOTSUPP, "atomic write");
	is_int(mpd_v_qpex_check(IBV_QPT_RC, 1ull << 40), EOPNOTSUPP,
	       "an unknown bit");
	is_int(mpd_v_qpex_check(IBV_QPT_UC, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				IBV_QP_EX_WITH_SEND), 0, "UC: writes");
	is_int(mpd_v_qpex_check(IBV_QPT_UC, IBV_QP_EX_WITH_RDMA_READ),
	       EOPNOTSUPP, "UC: no read");
	is_int(mpd_v_qpex_check(IBV_QPT_UC, IBV_QP_EX_WITH_SEND_WITH_INV),
	       EOPNOTSUPP, "UC: no send with invalidate");
	is_int(mpd_v_qpex_check(IBV_QPT_UD, IBV_QP_EX_WITH_SEND |
				IBV_QP_EX_WITH_SEND_WITH_IMM), 0,
	       "UD: sends");
	is_int(mpd_v_qpex_check(IBV_QPT_UD, IBV_QP_EX_WITH_RDMA_WRITE),
	       EOPNOTSUPP, "UD: no write");
	is_int(mpd_v_qpex_check(IBV_QPT_UD, IBV_QP_EX_WITH_TSO), EOPNOTSUPP,
	       "UD: no TSO");
	is_int(mpd_v_qpex_check(IBV_QPT_RAW_PACKET, IBV_QP_EX_WITH_SEND),
	       EOPNOTSUPP, "no raw packet QPs");
}

static void
test_batch(void)
{
	uint8_t data[MAX_INLINE];
	struct ibv_sge sg[2] = {
		{ .addr = 0x1000, .length = 10, .lkey = 0x71 },
		{ .addr = 0x2000, .length = 20, .lkey = 0x72 },
	};
	struct ibv_data_buf bufs[2];
	struct mpd_v_swqe *w;
	struct tqp t;
	uint8_t v[8];
	int dbr;
	unsigned int i;

	tqp_open(&t, IBV_QPT_RC);
	{
		int pp[2];

		if (pipe2(pp, O_NONBLOCK) != 0)
			abort();
		dbr = pp[0];
		t.db.fd = pp[1];
	}
	t.armed = 1;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(0xa0 + i);

	ibv_wr_start(t.x);
	t.x->wr_id = 11;
	t.x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(t.x);
	ibv_wr_set_sge(t.x, 0x77, 0x5000, 33);
	is_int(t.shm->sq_pi, 0, "nothing published after the first WQE");
	t.x->wr_id = 12;
	t.x->wr_flags = IBV_SEND_SOLICITED;
	ibv_wr_rdma_write_imm(t.x, 0x5555, 0x123456789aull, htobe32(0xabcd));
	ibv_wr_set_sge_list(t.x, 2, sg);
	t.x->wr_id = 13;
	t.x->wr_flags = 0;
	ibv_wr_send_imm(t.x, htobe32(7));
	bufs[0].addr = data;
	bufs[0].length = 24;
	bufs[1].addr = data + 24;
	bufs[1].length = MAX_INLINE - 24;
	ibv_wr_set_inline_data_list(t.x, 2, bufs);
	is_int(t.shm->sq_pi, 0, "nothing published before wr_complete");
	ok(read(dbr, v, sizeof(v)) < 0 && errno == EAGAIN,
	   "no doorbell before wr_complete");
	is_int(ibv_wr_complete(t.x), 0, "a batch of three");
	is_int(t.shm->sq_pi, 3, "published at once");
	ok(read(dbr, v, sizeof(v)) == 1,
	   "doorbell rung once for the batch");

	w = swqe(&t, 0);
	ok(w->wr_id == 11 && w->opcode == IBV_WR_SEND &&
	   w->flags == IBV_SEND_SIGNALED && w->num_sge == 1 &&
	   w->inline_len == 0, "send: wr_id, flags (the INLINE flag is no "
	   "data setter), one SGE");
	ok(sges(&t, 0)[0].addr == 0x5000 && sges(&t, 0)[0].length == 33 &&
	   sges(&t, 0)[0].lkey == 0x77, "wr_set_sge");
	w = swqe(&t, 1);
	ok(w->wr_id == 12 && w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM &&
	   w->flags == IBV_SEND_SOLICITED && w->rkey == 0x5555 &&
	   w->remote_addr == 0x123456789aull &&
	   w->imm_data == htobe32(0xabcd) && w->num_sge == 2,
	   "write with immediate");
	ok(sges(&t, 1)[0].addr == 0x1000 && sges(&t, 1)[1].length == 20 &&
	   sges(&t, 1)[1].lkey == 0x72, "wr_set_sge_list");
	w = swqe(&t, 2);
	ok(w->wr_id == 13 && w->opcode == IBV_WR_SEND_WITH_IMM &&
	   w->imm_data == htobe32(7) && w->flags == IBV_SEND_INLINE &&
	   w->num_sge == 0 && w->inline_len == MAX_INLINE,
	   "send with immediate, inline");
	ok(!memcmp((uint8_t *)w + MPD_V_SWQE_HDR, data, MAX_INLINE),
	   "inline list copied in order");

	/* abort: nothing published, the slots are the next batch's */
	t.shm->sq_ci = 3;
	ibv_wr_start(t.x);
	t.x->wr_id = 21;
	ibv_wr_send(t.x);
	ibv_wr_set_sge(t.x, 1, 0x9000, 1);
	ibv_wr_abort(t.x);
	is_int(t.shm->sq_pi, 3, "abort publishes nothing");
	ok(read(dbr, v, sizeof(v)) < 0, "and rings nothing");
	ibv_wr_start(t.x);
	t.x->wr_id = 22;
	ibv_wr_rdma_read(t.x, 0x66, 0x8000);
	ibv_wr_set_sge(t.x, 2, 0xa000, 64);
	t.x->wr_id = 23;
	ibv_wr_atomic_cmp_swp(t.x, 0x67, 0x8008, 5, 6);
	ibv_wr_set_sge(t.x, 3, 0xb000, 8);
	t.x->wr_id = 24;
	ibv_wr_atomic_fetch_add(t.x, 0x68, 0x8010, 9);
	ibv_wr_set_sge(t.x, 4, 0xc000, 8);
	t.x->wr_id = 25;
	ibv_wr_send_inv(t.x, 0x4321);
	ibv_wr_set_inline_data(t.x, data, 5);
	is_int(ibv_wr_complete(t.x), 0, "read, atomics, send with invalidate");
	is_int(t.shm->sq_pi, 7, "four more");
	w = swqe(&t, 3);
	ok(w->wr_id == 22 && w->opcode == IBV_WR_RDMA_READ &&
	   w->rkey == 0x66 && w->remote_addr == 0x8000 &&
	   sges(&t, 3)[0].length == 64, "read in the aborted WQE's slot");
	w = swqe(&t, 4);
	ok(w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP && w->rkey == 0x67 &&
	   w->remote_addr == 0x8008 && w->compare_add == 5 && w->swap == 6 &&
	   w->num_sge == 1, "compare and swap");
	w = swqe(&t, 5);
	ok(w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD && w->compare_add == 9 &&
	   w->swap == 0 && sges(&t, 5)[0].addr == 0xc000, "fetch and add");
	w = swqe(&t, 6);
	ok(w->opcode == IBV_WR_SEND_WITH_INV && w->imm_data == 0x4321 &&
	   w->inline_len == 5 && !memcmp((uint8_t *)w + MPD_V_SWQE_HDR, data, 5),
	   "send with invalidate: the rkey, inline data");

	/* an empty batch */
	ibv_wr_start(t.x);
	is_int(ibv_wr_complete(t.x), 0, "empty batch");
	is_int(t.shm->sq_pi, 7, "publishes nothing");
	close(t.db.fd);
	close(dbr);
	tqp_close(&t);
}

static void
test_errors(void)
{
	struct ibv_sge sg[3] = {
		{ 0x1000, 8, 1 }, { 0x2000, 8, 2 }, { 0x3000, 8, 3 },
	};
	uint8_t data[MAX_INLINE + 1] = { 0 };
	struct tqp t;
	unsigned int i;

	tqp_open(&t, IBV_QPT_RC);
	/* full: four fit, the fifth fails the whole batch */
	ibv_wr_start(t.x);
	for (i = 0; i < SQ_WQES + 1; i++) {
		t.x->wr_id = 100 + i;
		ibv_wr_send(t.x);
		ibv_wr_set_sge(t.x, 1, 0x1000, 8);
	}
	is_int(ibv_wr_complete(t.x), ENOMEM, "queue full: ENOMEM");
	is_int(t.shm->sq_pi, 0, "nothing published");
	ibv_wr_start(t.x);
	for (i = 0; i < SQ_WQES; i++) {
		t.x->wr_id = 200 + i;
		ibv_wr_send(t.x);
		ibv_wr_set_sge(t.x, 1, 0x1000, 8);
	}
	is_int(ibv_wr_complete(t.x), 0, "the four fit after the rollback");
	is_int(t.shm->sq_pi, SQ_WQES, "published");
	is_int(swqe(&t, 0)->wr_id, 200, "from the first slot");
	t.shm->sq_ci = SQ_WQES;

	ibv_wr_start(t.x);
	ibv_wr_send(t.x);
	ibv_wr_set_sge_list(t.x, MAX_SGE + 1, sg);
	is_int(ibv_wr_complete(t.x), EINVAL, "SGEs past max_send_sge: EINVAL");
	ibv_wr_start(t.x);
	ibv_wr_rdma_write(t.x, 1, 2);
	ibv_wr_set_inline_data(t.x, data, MAX_INLINE + 1);
	is_int(ibv_wr_complete(t.x), EINVAL, "inline past max_inline: EINVAL");
	ibv_wr_start(t.x);
	ibv_wr_rdma_write(t.x, 1, 2);
	ibv_wr_set_inline_data(t.x, data, MAX_INLINE);
	is_int(ibv_wr_complete(t.x), 0, "inline of max_inline");
	ibv_wr_start(t.x);
	ibv_wr_rdma_read(t.x, 1, 2);
	ibv_wr_set_inline_data(t.x, data, 8);
	is_int(ibv_wr_complete(t.x), EINVAL, "no inline for a read");
	ibv_wr_start(t.x);
	ibv_wr_atomic_fetch_add(t.x, 1, 2, 3);
	is_int(ibv_wr_complete(t.x), EINVAL, "atomic without its SGE");
	ibv_wr_start(t.x);
	ibv_wr_atomic_fetch_add(t.x, 1, 2, 3);
	ibv_wr_set_sge_list(t.x, 2, sg);
	is_int(ibv_wr_complete(t.x), EINVAL, "atomic with two SGEs");
	ibv_wr_start(t.x);
	ibv_wr_send(t.x);
	ibv_wr_set_ud_addr(t.x, NULL, 1, 2);
	is_int(ibv_wr_complete(t.x), EINVAL, "a UD address on RC");
	ibv_wr_start(t.x);
	ibv_wr_bind_mw(t.x, NULL, 5, NULL);
	is_int(ibv_wr_complete(t.x), EINVAL, "bind MW without a window");
	{
		struct ibv_mw mw = { .rkey = 0x4501, .type = IBV_MW_TYPE_2 };
		struct ibv_mr mr = { .lkey = 0x777 };
		struct ibv_mw_bind_info bi = { .mr = &mr, .addr = 0x1000,
			.length = 64, .mw_access_flags = IBV_ACCESS_REMOTE_WRITE };
		uint32_t pi = t.shm->sq_pi;

		ibv_wr_start(t.x);
		ibv_wr_bind_mw(t.x, &mw, 0x4602, &bi);
		is_int(ibv_wr_complete(t.x), EINVAL,
		       "bind MW with another window's key");
		ibv_wr_start(t.x);
		t.x->wr_id = 77;
		ibv_wr_bind_mw(t.x, &mw, 0x4502, &bi);
		ibv_wr_local_inv(t.x, 0x4502);
		is_int(ibv_wr_complete(t.x), 0, "bind MW, local invalidate");
		ok(t.shm->sq_pi == pi + 2 &&
		   swqe(&t, pi)->opcode == IBV_WR_BIND_MW &&
		   swqe(&t, pi)->rkey == 0x4502 &&
		   swqe(&t, pi)->remote_addr == 0x1000 &&
		   swqe(&t, pi)->compare_add == 64 &&
		   swqe(&t, pi)->swap == IBV_ACCESS_REMOTE_WRITE &&
		   swqe(&t, pi)->remote_qkey == 0x777 &&
		   swqe(&t, pi + 1)->opcode == IBV_WR_LOCAL_INV &&
		   swqe(&t, pi + 1)->imm_data == 0x4502,
		   "their WQEs: the new key, address, length, access, the MR's L_Key; the key to invalidate");
		t.shm->sq_ci = t.shm->sq_pi;
	}

	/* the first error is the one returned, later calls change nothing */
	ibv_wr_start(t.x);
	ibv_wr_send(t.x);
	ibv_wr_set_sge_list(t.x, MAX_SGE + 1, sg);
	for (i = 0; i < SQ_WQES + 1; i++) {
		ibv_wr_send(t.x);
		ibv_wr_set_sge(t.x, 1, 0x1000, 8);
	}
	is_int(ibv_wr_complete(t.x), EINVAL, "EINVAL first, then full: EINVAL");
	ibv_wr_start(t.x);
	ibv_wr_send(t.x);
	ibv_wr_set_sge(t.x, 1, 0x1000, 8);
	ibv_wr_send(t.x);
	ibv_wr_set_sge_list(t.x, MAX_SGE + 1, sg);
	is_int(ibv_wr_complete(t.x), EINVAL, "a bad second WQE");
	is_int(t.shm->sq_pi, SQ_WQES + 3, "fails the good first one too");

	/* before RTS nothing goes out, as with post_send and mlx5 */
	for (i = IBV_QPS_RESET; i <= IBV_QPS_RTR; i++) {
		uint32_t pi = t.shm->sq_pi;

		t.shm->state = i;
		ibv_wr_start(t.x);
		ibv_wr_send(t.x);
		ibv_wr_set_sge(t.x, 1, 0x1000, 8);
		is_int(ibv_wr_complete(t.x), EINVAL, "state %u: EINVAL", i);
		is_int(t.shm->sq_pi, pi, "nothing published");
	}
	t.shm->state = IBV_QPS_RTS;
	ibv_wr_start(t.x);
	ibv_wr_send(t.x);
	ibv_wr_set_sge(t.x, 1, 0x1000, 8);
	is_int(ibv_wr_complete(t.x), 0, "RTS again");
	tqp_close(&t);

	/* no send queue */
	tqp_open(&t, IBV_QPT_RC);
	t.b.ring.sq.wqes = 0;
	ibv_wr_start(t.x);
	ibv_wr_send(t.x);
	is_int(ibv_wr_complete(t.x), EINVAL, "a QP with no send queue");
	tqp_close(&t);
}

static void
test_ud(void)
{
	struct mpd_v_ah_obj ah;
	struct ibv_ah_attr a;
	struct mpd_v_swqe *w;
	struct tqp t;
	uint8_t data[4] = { 1, 2, 3, 4 };

	tqp_open(&t, IBV_QPT_UD);
	memset(&a, 0, sizeof(a));
	a.dlid = 0x17;
	a.sl = 3;
	a.port_num = 1;
	a.is_global = 1;
	a.grh.dgid.raw[15] = 9;
	a.grh.hop_limit = 64;
	a.grh.sgid_index = 1;
	memset(&ah, 0, sizeof(ah));
	mpd_v_ah_from_attr(&ah.av, &a);

	/* pyverbs' order: the operation, the address, the data */
	ibv_wr_start(t.x);
	t.x->wr_id = 0x123;
	t.x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(t.x);
	ibv_wr_set_ud_addr(t.x, &ah.ah, 0x99, 0x11111111);
	ibv_wr_set_sge(t.x, 5, 0x4000, 0);
	/* and data first, address last */
	t.x->wr_id = 0x124;
	ibv_wr_send_imm(t.x, htobe32(3));
	ibv_wr_set_inline_data(t.x, data, sizeof(data));
	ibv_wr_set_ud_addr(t.x, &ah.ah, 0x98, 0x22222222);
	is_int(ibv_wr_complete(t.x), 0, "two UD sends");
	is_int(t.shm->sq_pi, 2, "published");
	w = swqe(&t, 0);
	ok(w->wr_id == 0x123 && w->remote_qpn == 0x99 &&
	   w->remote_qkey == 0x11111111 && w->num_sge == 1 &&
	   sges(&t, 0)[0].length == 0, "remote QPN, Q_Key; a zero-length SGE");
	ok(w->ah.dlid == 0x17 && w->ah.sl == 3 && w->ah.is_global &&
	   w->ah.dgid[15] == 9 && w->ah.hop_limit == 64 &&
	   w->ah.sgid_index == 1 && w->ah.port_num == 1,
	   "the AH's address in the WQE");
	w = swqe(&t, 1);
	ok(w->wr_id == 0x124 && w->remote_qpn == 0x98 &&
	   w->opcode == IBV_WR_SEND_WITH_IMM && w->inline_len == 4 &&
	   !memcmp((uint8_t *)w + MPD_V_SWQE_HDR, data, 4),
	   "address after inline data");

	ibv_wr_start(t.x);
	ibv_wr_send(t.x);
	ibv_wr_set_sge(t.x, 5, 0x4000, 8);
	is_int(ibv_wr_complete(t.x), EINVAL, "UD without an address");
	ibv_wr_start(t.x);
	ibv_wr_rdma_write(t.x, 1, 2);
	ibv_wr_set_ud_addr(t.x, &ah.ah, 0x99, 1);
	ibv_wr_set_sge(t.x, 5, 0x4000, 8);
	is_int(ibv_wr_complete(t.x), EINVAL, "no RDMA on UD");
	ibv_wr_start(t.x);
	ibv_wr_send_inv(t.x, 1);
	is_int(ibv_wr_complete(t.x), EINVAL, "no send with invalidate on UD");
	is_int(t.shm->sq_pi, 2, "none published");
	tqp_close(&t);
}

int
main(void)
{
	tap_seed();
	test_layout();
	test_check();
	test_batch();
	test_errors();
	test_ud();
	return tap_done();
}
