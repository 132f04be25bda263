/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory windows (IBA 10.6.7): a handle and an R_Key of the device
 * session; the daemon binds and invalidates them as the QP's send queue
 * reaches the WRs (pmd/qp/mw.c). ibv_bind_mw() on a type 1 window posts
 * such a WR, as rxe's provider does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_priv.h"

struct ibv_mw *
mpd_v_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct mpd_chan_msg m;
	struct ibv_mw *mw;
	int rc;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_ALLOC_MW;
	m.len = sizeof(m.u.v_alloc_mw_req);
	m.u.v_alloc_mw_req.pd = pd->handle;
	m.u.v_alloc_mw_req.type = type;
	rc = mpd_v_call(mpd_verbs_ctx(pd->context), &m, NULL);
	if (rc) {
		free(mw);
		errno = rc;
		return NULL;
	}
	mw->context = pd->context;
	mw->pd = pd;
	mw->rkey = m.u.v_alloc_mw_rep.rkey;
	mw->handle = m.u.v_alloc_mw_rep.handle;
	mw->type = type;
	return mw;
}

int
mpd_v_dealloc_mw(struct ibv_mw *mw)
{
	int rc;

	rc = mpd_v_destroy(mpd_verbs_ctx(mw->context), MPD_V_DEALLOC_MW,
			   mw->handle, NULL);
	if (rc)
		return rc;
	free(mw);
	return 0;
}

/* ibv_bind_mw(3), type 1 (the inline wrapper checked the type and the
 * MR's PD): the window's next key byte, set in mw once posted */
int
mpd_v_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
	      struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr, *bad;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	rc = qp->context->ops.post_send(qp, &wr, &bad);
	if (!rc)
		mw->rkey = wr.bind_mw.rkey;
	return rc;
}
