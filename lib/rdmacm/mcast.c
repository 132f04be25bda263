/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multicast joins: not served yet (MPD_CM_JOIN_MCAST is reserved in
 * madpmd/cma.h), so they fail at once with ENOSYS, before any request,
 * and an application sees it cannot join. The arguments are checked
 * first as rdma-core checks them.
 */
#include <errno.h>

#include "rdmacm_priv.h"

CMA_EXPORT int
rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
		    void *context)
{
	(void)context;
	if (!id || !cma_addrlen(addr))
		return cma_err(EINVAL);
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rdma_join_multicast_ex(struct rdma_cm_id *id,
		       struct rdma_cm_join_mc_attr_ex *mc_join_attr,
		       void *context)
{
	(void)context;
	if (!id || !mc_join_attr)
		return cma_err(EINVAL);
	if (mc_join_attr->comp_mask >= RDMA_CM_JOIN_MC_ATTR_RESERVED)
		return cma_err(ENOTSUP);
	if (!(mc_join_attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS) ||
	    !(mc_join_attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS) ||
	    mc_join_attr->join_flags >= RDMA_MC_JOIN_FLAG_RESERVED ||
	    !cma_addrlen(mc_join_attr->addr))
		return cma_err(EINVAL);
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (!id || !cma_addrlen(addr))
		return cma_err(EINVAL);
	/* nothing was joined: rdma-core's answer for an address not joined */
	return cma_err(EADDRNOTAVAIL);
}
