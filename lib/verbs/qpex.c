/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The extended send API (struct ibv_qp_ex, ibv_wr_*): an application's
 * inline ibv_wr_*() calls land here through the QP's function pointers.
 * As mlx5 does it: wr_start takes the send queue's lock until
 * wr_complete or wr_abort; each operation starts a WQE from the wr_id and
 * wr_flags the application set before it, the setters that follow fill
 * it in; nothing reaches the daemon before wr_complete, which publishes
 * the whole batch or, on the first error of the batch, none of it. The
 * WQEs are vring.c's, written by the same code as ibv_post_send's.
 * No session here: tests/unit/test_verbs_qpex.c runs it on memory.
 */
#include <errno.h>

#include "vring.h"

static inline struct mpd_v_qp_base *
qpb(struct ibv_qp_ex *x)
{
	return (struct mpd_v_qp_base *)x;
}

static void
wr_start(struct ibv_qp_ex *x)
{
	struct mpd_v_qp_base *b = qpb(x);

	pthread_spin_lock(&b->sq_lock);
	mpd_v_batch_start(&b->ring, &b->wr);
}

static int
wr_complete(struct ibv_qp_ex *x)
{
	struct mpd_v_qp_base *b = qpb(x);
	int rc = mpd_v_batch_complete(&b->ring, &b->wr);

	pthread_spin_unlock(&b->sq_lock);
	return rc;
}

static void
wr_abort(struct ibv_qp_ex *x)
{
	struct mpd_v_qp_base *b = qpb(x);

	mpd_v_batch_abort(&b->ring, &b->wr);
	pthread_spin_unlock(&b->sq_lock);
}

/* Start a WQE for op: the one the setters and the caller fill, or NULL
 * when the batch failed already */
static struct mpd_v_swqe_b *
op(struct ibv_qp_ex *x, enum ibv_wr_opcode opcode)
{
	struct mpd_v_qp_base *b = qpb(x);

	mpd_v_batch_op(&b->ring, &b->wr, opcode, x->wr_id, x->wr_flags);
	return mpd_v_batch_cur(&b->wr);
}

/* ---- operations ---- */

static void
wr_send(struct ibv_qp_ex *x)
{
	op(x, IBV_WR_SEND);
}

static void
wr_send_imm(struct ibv_qp_ex *x, __be32 imm_data)
{
	struct mpd_v_swqe_b *w = op(x, IBV_WR_SEND_WITH_IMM);

	if (w)
		mpd_v_swqe_imm(w, imm_data);
}

static void
wr_send_inv(struct ibv_qp_ex *x, uint32_t invalidate_rkey)
{
	struct mpd_v_swqe_b *w = op(x, IBV_WR_SEND_WITH_INV);

	if (w)
		mpd_v_swqe_imm(w, invalidate_rkey);
}

static void
wr_rdma_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t remote_addr)
{
	struct mpd_v_swqe_b *w = op(x, IBV_WR_RDMA_WRITE);

	if (w)
		mpd_v_swqe_remote(w, rkey, remote_addr);
}

static void
wr_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey, uint64_t remote_addr,
		  __be32 imm_data)
{
	struct mpd_v_swqe_b *w = op(x, IBV_WR_RDMA_WRITE_WITH_IMM);

	if (!w)
		return;
	mpd_v_swqe_remote(w, rkey, remote_addr);
	mpd_v_swqe_imm(w, imm_data);
}

static void
wr_rdma_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t remote_addr)
{
	struct mpd_v_swqe_b *w = op(x, IBV_WR_RDMA_READ);

	if (w)
		mpd_v_swqe_remote(w, rkey, remote_addr);
}

static void
wr_atomic_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey, uint64_t remote_addr,
		  uint64_t compare, uint64_t swap)
{
	struct mpd_v_swqe_b *w = op(x, IBV_WR_ATOMIC_CMP_AND_SWP);

	if (w)
		mpd_v_swqe_atomic(w, rkey, remote_addr, compare, swap);
}

static void
wr_atomic_fetch_add(struct ibv_qp_ex *x, uint32_t rkey, uint64_t remote_addr,
		    uint64_t add)
{
	struct mpd_v_swqe_b *w = op(x, IBV_WR_ATOMIC_FETCH_AND_ADD);

	if (w)
		mpd_v_swqe_atomic(w, rkey, remote_addr, add, 0);
}

/* What create refuses (EOPNOTSUPP) can still be called: the batch fails
 * rather than the application jumping through NULL */
static void
unsupported(struct ibv_qp_ex *x)
{
	mpd_v_batch_fail(&qpb(x)->wr, EOPNOTSUPP);
}

static void
wr_bind_mw(struct ibv_qp_ex *x, struct ibv_mw *mw, uint32_t rkey,
	   const struct ibv_mw_bind_info *bind_info)
{
	struct mpd_v_swqe_b *w = op(x, IBV_WR_BIND_MW);

	if (w)
		mpd_v_batch_fail(&qpb(x)->wr,
				 mpd_v_swqe_bind(w, mw, rkey, bind_info));
}

static void
wr_local_inv(struct ibv_qp_ex *x, uint32_t invalidate_rkey)
{
	struct mpd_v_swqe_b *w = op(x, IBV_WR_LOCAL_INV);

	if (w)
		mpd_v_swqe_imm(w, invalidate_rkey);
}

static void
wr_send_tso(struct ibv_qp_ex *x, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	(void)hdr;
	(void)hdr_sz;
	(void)mss;
	unsupported(x);
}

static void
wr_set_xrc_srqn(struct ibv_qp_ex *x, uint32_t remote_srqn)
{
	(void)remote_srqn;
	unsupported(x);
}

static void
wr_atomic_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t remote_addr,
		const void *atomic_wr)
{
	(void)rkey;
	(void)remote_addr;
	(void)atomic_wr;
	unsupported(x);
}

/* ---- setters: the WQE in hand ---- */

static void
wr_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah, uint32_t remote_qpn,
	       uint32_t remote_qkey)
{
	struct mpd_v_qp_base *b = qpb(x);
	struct mpd_v_swqe_b *w = mpd_v_batch_cur(&b->wr);

	if (w)
		mpd_v_batch_fail(&b->wr, mpd_v_swqe_ud(&b->ring, w, ah,
						       remote_qpn,
						       remote_qkey));
}

static void
wr_set_sge_list(struct ibv_qp_ex *x, size_t num_sge,
		const struct ibv_sge *sg_list)
{
	struct mpd_v_qp_base *b = qpb(x);
	struct mpd_v_swqe_b *w = mpd_v_batch_cur(&b->wr);

	if (w)
		mpd_v_batch_fail(&b->wr, mpd_v_swqe_sge(&b->ring, w, sg_list,
							num_sge));
}

static void
wr_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr,
	   uint32_t length)
{
	struct ibv_sge sg = { .addr = addr, .length = length, .lkey = lkey };

	wr_set_sge_list(x, 1, &sg);
}

static void
wr_set_inline_data_list(struct ibv_qp_ex *x, size_t num_buf,
			const struct ibv_data_buf *buf_list)
{
	struct mpd_v_qp_base *b = qpb(x);
	struct mpd_v_swqe_b *w = mpd_v_batch_cur(&b->wr);

	if (w)
		mpd_v_batch_fail(&b->wr, mpd_v_swqe_inline(&b->ring, w,
							   buf_list,
							   num_buf));
}

static void
wr_set_inline_data(struct ibv_qp_ex *x, void *addr, size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	wr_set_inline_data_list(x, 1, &buf);
}

/* ---- create ---- */

/* What each transport carries (the daemon's requester agrees) */
#define QPEX_OPS_UD	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define QPEX_OPS_UC	(QPEX_OPS_UD | IBV_QP_EX_WITH_RDMA_WRITE | \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			 IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV)
#define QPEX_OPS_RC	(QPEX_OPS_UC | IBV_QP_EX_WITH_RDMA_READ | \
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			 IBV_QP_EX_WITH_SEND_WITH_INV)

int
mpd_v_qpex_check(uint32_t qp_type, uint64_t send_ops_flags)
{
	uint64_t ok;

	switch (qp_type) {
	case IBV_QPT_RC:
		ok = QPEX_OPS_RC;
		break;
	case IBV_QPT_UC:
		ok = QPEX_OPS_UC;
		break;
	case IBV_QPT_UD:
		ok = QPEX_OPS_UD;
		break;
	default:
		return EOPNOTSUPP;
	}
	return send_ops_flags & ~ok ? EOPNOTSUPP : 0;
}

/* Every pointer is set, whatever was asked: an operation the transport
 * lacks fails the batch with EINVAL (vring.c), as post_send does */
void
mpd_v_qpex_init(struct mpd_v_qp_base *b)
{
	struct ibv_qp_ex *x = &b->qpx;

	x->wr_start = wr_start;
	x->wr_complete = wr_complete;
	x->wr_abort = wr_abort;
	x->wr_send = wr_send;
	x->wr_send_imm = wr_send_imm;
	x->wr_send_inv = wr_send_inv;
	x->wr_rdma_write = wr_rdma_write;
	x->wr_rdma_write_imm = wr_rdma_write_imm;
	x->wr_rdma_read = wr_rdma_read;
	x->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	x->wr_atomic_fetch_add = wr_atomic_fetch_add;
	x->wr_bind_mw = wr_bind_mw;
	x->wr_local_inv = wr_local_inv;
	x->wr_send_tso = wr_send_tso;
	x->wr_set_xrc_srqn = wr_set_xrc_srqn;
	x->wr_atomic_write = wr_atomic_write;
	x->wr_set_ud_addr = wr_set_ud_addr;
	x->wr_set_sge = wr_set_sge;
	x->wr_set_sge_list = wr_set_sge_list;
	x->wr_set_inline_data = wr_set_inline_data;
	x->wr_set_inline_data_list = wr_set_inline_data_list;
	b->comp_mask |= MPD_VERBS_QP_EX;
}
