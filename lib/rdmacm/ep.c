/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_create_ep() and rdma_destroy_ep(): a synchronous id made from an
 * rdma_getaddrinfo() result, bound (passive) or resolved to a route with
 * its QP (active), as rdma-core's librdmacm makes them for rdma_server,
 * rdma_client and rstream.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_verbs.h>

#include "rdmacm_priv.h"

static int
passive_ep(struct rdma_cm_id *id, struct rdma_addrinfo *res,
	   struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct cma_id *p = cma_id(id);

	if (rdma_bind_addr(id, res->ai_src_addr))
		return -1;
	if (pd)
		id->pd = pd;
	if (!qp_init_attr)
		return 0;
	/* the QP each rdma_get_request() makes */
	p->qp_init_attr = malloc(sizeof(*qp_init_attr));
	if (!p->qp_init_attr)
		return cma_err(ENOMEM);
	*p->qp_init_attr = *qp_init_attr;
	p->qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	return 0;
}

CMA_EXPORT int
rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
	       struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cm_id;
	struct cma_id *p;
	int rc;

	if (!id || !res)
		return cma_err(EINVAL);
	rc = cma_create_id(NULL, &cm_id, NULL,
			   (enum rdma_port_space)res->ai_port_space,
			   (enum ibv_qp_type)res->ai_qp_type);
	if (rc)
		return rc;
	if (res->ai_flags & RAI_PASSIVE) {
		if (passive_ep(cm_id, res, pd, qp_init_attr))
			goto fail;
		*id = cm_id;
		return 0;
	}
	if (rdma_resolve_addr(cm_id, res->ai_src_addr, res->ai_dst_addr,
			      CMA_SYNC_TIMEOUT_MS))
		goto fail;
	/* a route given in res (ibacm's) is not taken: the SM's is asked */
	if (rdma_resolve_route(cm_id, CMA_SYNC_TIMEOUT_MS))
		goto fail;
	if (qp_init_attr) {
		qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
		if (rdma_create_qp(cm_id, pd, qp_init_attr))
			goto fail;
	}
	if (res->ai_connect_len) {
		p = cma_id(cm_id);
		p->connect = malloc(res->ai_connect_len);
		if (!p->connect) {
			errno = ENOMEM;
			goto fail;
		}
		memcpy(p->connect, res->ai_connect, res->ai_connect_len);
		p->connect_len = res->ai_connect_len;
	}
	*id = cm_id;
	return 0;
fail:
	rc = errno;
	rdma_destroy_ep(cm_id);
	return cma_err(rc);
}

CMA_EXPORT void
rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	if (id->srq)
		rdma_destroy_srq(id);
	rdma_destroy_id(id);
}
