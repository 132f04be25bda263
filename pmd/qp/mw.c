/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory windows (IBA 10.6.7): a window gives a peer remote access to a
 * part of a region under a key of its own, which the client binds and
 * lets go without registering anything. A window sits in the regions' key
 * table (mr.c); bound, its fields describe the part of the region it
 * shows. Type 1 windows are bound (and unbound, with length 0) by
 * ibv_bind_mw(); type 2 windows by an IBV_WR_BIND_MW work request, and
 * invalidated by IBV_WR_LOCAL_INV or a peer's SEND with Invalidate
 * (type 2B: only through the QP that bound them). Both kinds of WR are
 * local operations of the send queue, done in order (req.c).
 */
#include "qp_priv.h"

#define KEY_BYTE	((1u << MR_KEY_GEN_BITS) - 1)

void
mw_unbind(struct hca_v_mr *mw)
{
	if (!mw->mw_type || !mw->bound)
		return;
	mw->parent->users--;
	mw->parent = NULL;
	mw->bound = false;
	mw->base = NULL;
	mw->iova = mw->length = 0;
	mw->access = 0;
	mw->qpn = 0;
}

/* The region a bind names: the client's own, in the QP's PD, which allows
 * windows (IBA 10.6.7.2.1 C10-68, C10-71) and holds the range */
static struct hca_v_mr *
bind_region(struct hca_verbs *v, const struct hca_v_qp *qp, uint32_t lkey,
	    uint64_t addr, uint64_t len, uint32_t access)
{
	struct hca_v_mr *mr = key_slot(v, lkey);

	if (!mr || mr->mw_type || mr->key != lkey || mr->owner != qp->owner ||
	    mr->pd != qp->pd || !(mr->access & IBV_ACCESS_MW_BIND))
		return NULL;
	if (addr < mr->iova || len > mr->length ||
	    addr - mr->iova > mr->length - len)
		return NULL;
	/* remote write or atomic through the window writes the region:
	 * it must allow local write (C10-73) */
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IBV_ACCESS_LOCAL_WRITE))
		return NULL;
	return mr;
}

static enum ibv_wc_status
bind(struct hca_verbs *v, struct hca_v_qp *qp, const struct hca_v_swr *w)
{
	uint32_t rkey = w->w.rkey, access = (uint32_t)w->w.swap;
	uint64_t addr = w->w.remote_addr, len = w->w.compare_add;
	struct hca_v_mr *mw = key_slot(v, rkey), *mr = NULL;

	/* the window by its index (the WR brings its new key byte), in
	 * the QP's PD (C10-68) */
	if (!mw || !mw->mw_type || mw->owner != qp->owner || mw->pd != qp->pd)
		return IBV_WC_MW_BIND_ERR;
	/* only remote rights (local write is the region's business);
	 * zero-based windows are not this device's */
	if (access & ~(MR_REMOTE_ACCESS | IBV_ACCESS_LOCAL_WRITE))
		return IBV_WC_MW_BIND_ERR;
	/* a type 2 window is bound once, to something (o10-37.2.30,
	 * o10-37.2.40) */
	if (mw->mw_type == IBV_MW_TYPE_2 && (mw->bound || !len))
		return IBV_WC_MW_BIND_ERR;
	if (len) {
		mr = bind_region(v, qp, w->w.remote_qkey, addr, len, access);
		if (!mr)
			return IBV_WC_MW_BIND_ERR;
	}
	/* a type 1 window bound again (or with length 0: unbound) */
	mw_unbind(mw);
	mw->key = (mw->key & ~KEY_BYTE) | (rkey & KEY_BYTE);
	if (!mr)
		return IBV_WC_SUCCESS;
	mw->bound = true;
	mw->parent = mr;
	mr->users++;
	mw->base = mr->base + (addr - mr->iova);
	mw->iova = addr;
	mw->length = len;
	mw->access = access & MR_REMOTE_ACCESS;
	mw->qpn = mw->mw_type == IBV_MW_TYPE_2 ? qp->qpn : 0;
	return IBV_WC_SUCCESS;
}

/* A type 2 window of the QP's client and PD by its whole key (o10-37.2.26:
 * a type 1 window is unbound by a bind of length 0 only); regions are not
 * invalidated here (no fast-registered ones) */
static struct hca_v_mr *
inv_window(struct hca_verbs *v, const struct hca_v_qp *qp, uint32_t rkey)
{
	struct hca_v_mr *mw = key_slot(v, rkey);

	if (!mw || mw->key != rkey || mw->mw_type != IBV_MW_TYPE_2 ||
	    mw->owner != qp->owner || mw->pd != qp->pd)
		return NULL;
	return mw;
}

enum ibv_wc_status
mw_local_op(struct hca_verbs *v, struct hca_v_qp *qp,
	    const struct hca_v_swr *w)
{
	struct hca_v_mr *mw;

	if (w->w.opcode == IBV_WR_BIND_MW)
		return bind(v, qp, w);
	mw = inv_window(v, qp, w->w.imm_data);
	if (!mw)
		return IBV_WC_MW_BIND_ERR;
	mw_unbind(mw);
	return IBV_WC_SUCCESS;
}

bool
mw_remote_invalidate(struct hca_verbs *v, struct hca_v_qp *qp, uint32_t rkey)
{
	struct hca_v_mr *mw = inv_window(v, qp, rkey);

	/* IBA 10.6.7.2.2: bound, through the QP that bound it (type 2B) */
	if (!mw || !mw->bound || mw->qpn != qp->qpn)
		return false;
	mw_unbind(mw);
	return true;
}

void
mw_qp_gone(struct hca_verbs *v, const struct hca_v_qp *qp)
{
	uint32_t i;

	/* a type 2 window serves the QP that bound it alone: it goes free
	 * with it, so that no later QP given the number reaches it */
	for (i = 0; i < HCA_V_MAX_MRS; i++) {
		struct hca_v_mr *mw = v->mr[i];

		if (mw && mw->mw_type == IBV_MW_TYPE_2 && mw->bound &&
		    mw->owner == qp->owner && mw->qpn == qp->qpn)
			mw_unbind(mw);
	}
}
