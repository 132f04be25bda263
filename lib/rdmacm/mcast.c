/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multicast joins, as rdma-core's librdmacm makes them over ucma: the
 * join is kept in the id's list and asked of the daemon (JOIN_MCAST,
 * madpmd/cma.h), which joins through the port's SA; its event attaches
 * the id's QP (event.c, as ucma_process_join()). Leaving detaches the
 * QP, asks LEAVE_MCAST and waits until the join's events handed out are
 * acked. The arguments are checked first as rdma-core checks them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm_priv.h"

static int
join(struct rdma_cm_id *id, struct sockaddr *addr, socklen_t addrlen,
     uint16_t flags, void *context)
{
	struct cma_id *p = cma_id(id);
	struct mpd_cm_join_req *req;
	struct mpd_chan_msg m;
	struct cma_mc *mc, **pos;
	int rc;

	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_JOIN_MCAST;
	m.len = sizeof(*req);
	req = &m.u.cm_join_req;
	rc = cma_addr_from_sockaddr(addr, &req->addr);
	if (rc)
		return cma_err(rc);
	mc = calloc(1, sizeof(*mc));
	if (!mc)
		return cma_err(ENOMEM);
	mc->context = context;
	mc->join_flags = flags;
	mc->addrlen = addrlen;
	memcpy(&mc->addr, addr, addrlen);
	req->id = p->handle;
	req->flags = flags;
	req->uid = (uintptr_t)mc;
	/* listed first: the event may be taken before the reply comes */
	pthread_mutex_lock(&p->mut);
	mc->next = p->mc_list;
	p->mc_list = mc;
	pthread_mutex_unlock(&p->mut);
	rc = cma_call(cma_chan(id->channel), &m);
	if (rc) {
		pthread_mutex_lock(&p->mut);
		for (pos = &p->mc_list; *pos != mc; pos = &(*pos)->next)
			;
		*pos = mc->next;
		pthread_mutex_unlock(&p->mut);
		free(mc);
		return cma_err(rc);
	}
	return cma_complete(p);
}

CMA_EXPORT int
rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
		    void *context)
{
	socklen_t len;

	if (!id)
		return cma_err(EINVAL);
	len = cma_addrlen(addr);
	if (!len)
		return cma_err(EINVAL);
	return join(id, addr, len, RDMA_MC_JOIN_FLAG_FULLMEMBER, context);
}

CMA_EXPORT int
rdma_join_multicast_ex(struct rdma_cm_id *id,
		       struct rdma_cm_join_mc_attr_ex *mc_join_attr,
		       void *context)
{
	socklen_t len;

	if (!id || !mc_join_attr)
		return cma_err(EINVAL);
	if (mc_join_attr->comp_mask >= RDMA_CM_JOIN_MC_ATTR_RESERVED)
		return cma_err(ENOTSUP);
	if (!(mc_join_attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS) ||
	    !(mc_join_attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS) ||
	    mc_join_attr->join_flags >= RDMA_MC_JOIN_FLAG_RESERVED)
		return cma_err(EINVAL);
	len = cma_addrlen(mc_join_attr->addr);
	if (!len)
		return cma_err(EINVAL);
	return join(id, mc_join_attr->addr, len,
		    (uint16_t)mc_join_attr->join_flags, context);
}

CMA_EXPORT int
rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct mpd_cm_join_req *req;
	struct cma_mc *mc, **pos;
	struct mpd_chan_msg m;
	struct cma_id *p;
	socklen_t len;
	int rc;

	if (!id)
		return cma_err(EINVAL);
	len = cma_addrlen(addr);
	if (!len)
		return cma_err(EINVAL);
	p = cma_id(id);
	pthread_mutex_lock(&p->mut);
	for (pos = &p->mc_list; *pos; pos = &(*pos)->next)
		if (!memcmp(&(*pos)->addr, addr, len))
			break;
	mc = *pos;
	if (mc)
		*pos = mc->next;
	pthread_mutex_unlock(&p->mut);
	if (!mc)
		return cma_err(EADDRNOTAVAIL);
	/* as rdma-core: whatever the MLID (0 on RoCE, which has none) */
	if (id->qp && mc->join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		ibv_detach_mcast(id->qp, &mc->mgid, mc->mlid);
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_LEAVE_MCAST;
	m.len = sizeof(*req);
	req = &m.u.cm_join_req;
	req->id = p->handle;
	req->uid = (uintptr_t)mc;
	cma_addr_from_sockaddr(addr, &req->addr);
	rc = cma_call(cma_chan(id->channel), &m);
	/* what is queued for it is dropped (it is no longer listed); what
	 * was handed out must be acked before it goes */
	pthread_mutex_lock(&p->mut);
	while (mc->out)
		pthread_cond_wait(&p->cond, &p->mut);
	pthread_mutex_unlock(&p->mut);
	free(mc);
	return rc ? cma_err(rc) : 0;
}
