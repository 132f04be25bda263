/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addresses of an id: rdma_bind_addr(), rdma_resolve_addr(),
 * rdma_resolve_route() and rdma_listen(), each a request to the daemon
 * followed by what rdma-core's librdmacm does after the kernel's answer
 * (QUERY into the route; the wait of a synchronous id for its event).
 * The daemon resolves addresses in the fabric's own table and routes by a
 * PathRecord from the SM (madpmd/cma.h); no ibacm.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "rdmacm_priv.h"

CMA_EXPORT int
rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct cma_id *p = cma_id(id);
	struct mpd_chan_msg m;
	int rc;

	if (!id || !cma_addrlen(addr))
		return cma_err(EINVAL);
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_BIND;
	m.len = sizeof(m.u.cm_bind_req);
	m.u.cm_bind_req.id = p->handle;
	cma_addr_from_sockaddr(addr, &m.u.cm_bind_req.addr);
	rc = cma_call(cma_chan(id->channel), &m);
	if (!rc)
		rc = cma_query(p);
	return rc ? cma_err(rc) : 0;
}

CMA_EXPORT int
rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		  struct sockaddr *dst_addr, int timeout_ms)
{
	struct cma_id *p = cma_id(id);
	struct mpd_cm_resolve_addr_req *req;
	struct mpd_chan_msg m;
	socklen_t dst_len;
	int rc;

	dst_len = cma_addrlen(dst_addr);
	if (!id || !dst_len || (src_addr && !cma_addrlen(src_addr)))
		return cma_err(EINVAL);
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_RESOLVE_ADDR;
	m.len = sizeof(*req);
	req = &m.u.cm_resolve_addr_req;
	req->id = p->handle;
	req->timeout_ms = timeout_ms > 0 ? (uint32_t)timeout_ms : 0;
	if (src_addr)
		cma_addr_from_sockaddr(src_addr, &req->src);
	cma_addr_from_sockaddr(dst_addr, &req->dst);
	rc = cma_call(cma_chan(id->channel), &m);
	if (rc)
		return cma_err(rc);
	memcpy(&id->route.addr.dst_storage, dst_addr, dst_len);
	return cma_complete(p);
}

CMA_EXPORT int
rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct cma_id *p = cma_id(id);
	struct mpd_chan_msg m;
	int rc;

	if (!id)
		return cma_err(EINVAL);
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_RESOLVE_ROUTE;
	m.len = sizeof(m.u.cm_resolve_route_req);
	m.u.cm_resolve_route_req.id = p->handle;
	m.u.cm_resolve_route_req.timeout_ms =
		timeout_ms > 0 ? (uint32_t)timeout_ms : 0;
	rc = cma_call(cma_chan(id->channel), &m);
	if (rc)
		return cma_err(rc);
	return cma_complete(p);
}

CMA_EXPORT int
rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct cma_id *p = cma_id(id);
	int rc;

	if (!id)
		return cma_err(EINVAL);
	/* 0: the daemon's default, as the kernel takes backlog <= 0 */
	rc = cma_id_call(p, MPD_CM_LISTEN, backlog > 0 ? (uint32_t)backlog : 0);
	if (!rc)
		rc = cma_query(p);
	return rc ? cma_err(rc) : 0;
}

static __be16
port_of(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)sa)->sin_port;
	case AF_INET6:
		return ((const struct sockaddr_in6 *)sa)->sin6_port;
	default:
		return 0;
	}
}

CMA_EXPORT __be16
rdma_get_src_port(struct rdma_cm_id *id)
{
	return id ? port_of(&id->route.addr.src_addr) : 0;
}

CMA_EXPORT __be16
rdma_get_dst_port(struct rdma_cm_id *id)
{
	return id ? port_of(&id->route.addr.dst_addr) : 0;
}
