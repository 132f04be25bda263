/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_attach_mcast(), ibv_detach_mcast(): a UD QP takes the packets of a
 * multicast group, or no longer does. The daemon keeps the port's groups
 * (madpmd/verbs.h's ATTACH_MCAST); as the verbs do, 0 or the errno.
 */
#include <errno.h>
#include <string.h>

#include "verbs_priv.h"

static int
mcast_call(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid,
	   uint32_t type)
{
	struct mpd_chan_msg m;

	if (!qp || !gid)
		return EINVAL;
	memset(&m, 0, sizeof(m));
	m.type = type;
	m.len = sizeof(m.u.v_mcast_req);
	m.u.v_mcast_req.qp = qp->handle;
	m.u.v_mcast_req.lid = lid;
	memcpy(m.u.v_mcast_req.gid, gid->raw, sizeof(gid->raw));
	return mpd_v_call(mpd_verbs_ctx(qp->context), &m, NULL);
}

VERBS_EXPORT int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return mcast_call(qp, gid, lid, MPD_V_ATTACH_MCAST);
}

VERBS_EXPORT int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return mcast_call(qp, gid, lid, MPD_V_DETACH_MCAST);
}
