/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Async events of a QP (IBA 11.6.3), through its owner's callback.
 */
#include "qp_priv.h"

void
qp_async(struct hca_v_qp *qp, enum ibv_event_type ev)
{
	struct mpd_v_async_rec r = {
		.event_type = ev, .obj = MPD_V_OBJ_QP, .handle = qp->handle,
	};

	if (qp->owner->dead)
		return;
	qp->async_events++;
	qp->owner->ops->async(qp->owner, &r);
}

