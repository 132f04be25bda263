/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_getaddrinfo() and rdma_freeaddrinfo(), as rdma-core 44's
 * addrinfo.c: host names and services through getaddrinfo(), the first
 * answer made into one rdma_addrinfo (RAI_PASSIVE gives a source
 * address, otherwise a destination), the QP type and port space from the
 * hints or the socket type and protocol. No ibacm, so no route or
 * connect data, and no AF_IB (EAI_FAMILY). Unlike rdma-core's, it works
 * without an RDMA device: it is only name resolution.
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm_priv.h"

static void
to_ai_hints(struct addrinfo *ai, const struct rdma_addrinfo *rai)
{
	memset(ai, 0, sizeof(*ai));
	if (rai->ai_flags & RAI_PASSIVE)
		ai->ai_flags = AI_PASSIVE;
	if (rai->ai_flags & RAI_NUMERICHOST)
		ai->ai_flags |= AI_NUMERICHOST;
	ai->ai_family = rai->ai_family;
	switch (rai->ai_qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		ai->ai_socktype = SOCK_STREAM;
		break;
	case IBV_QPT_UD:
		ai->ai_socktype = SOCK_DGRAM;
		break;
	default:
		break;
	}
	switch (rai->ai_port_space) {
	case RDMA_PS_TCP:
		ai->ai_protocol = IPPROTO_TCP;
		break;
	case RDMA_PS_IPOIB:
	case RDMA_PS_UDP:
		ai->ai_protocol = IPPROTO_UDP;
		break;
	case RDMA_PS_IB:
		if (ai->ai_socktype == SOCK_STREAM)
			ai->ai_protocol = IPPROTO_TCP;
		else if (ai->ai_socktype == SOCK_DGRAM)
			ai->ai_protocol = IPPROTO_UDP;
		break;
	default:
		break;
	}
}

static int
copy_addr(struct sockaddr **dst, socklen_t *dst_len,
	  const struct sockaddr *src, socklen_t src_len)
{
	*dst = malloc(src_len);
	if (!*dst)
		return cma_err(ENOMEM);
	memcpy(*dst, src, src_len);
	*dst_len = src_len;
	return 0;
}

static int
from_ai(struct rdma_addrinfo *rai, const struct rdma_addrinfo *hints,
	const struct addrinfo *ai)
{
	if (hints->ai_qp_type)
		rai->ai_qp_type = hints->ai_qp_type;
	else if (ai->ai_socktype == SOCK_STREAM)
		rai->ai_qp_type = IBV_QPT_RC;
	else if (ai->ai_socktype == SOCK_DGRAM)
		rai->ai_qp_type = IBV_QPT_UD;
	if (hints->ai_port_space)
		rai->ai_port_space = hints->ai_port_space;
	else if (ai->ai_protocol == IPPROTO_TCP)
		rai->ai_port_space = RDMA_PS_TCP;
	else if (ai->ai_protocol == IPPROTO_UDP)
		rai->ai_port_space = RDMA_PS_UDP;
	rai->ai_family = ai->ai_family;
	if (ai->ai_flags & AI_PASSIVE) {
		rai->ai_flags = RAI_PASSIVE;
		if (ai->ai_canonname)
			rai->ai_src_canonname = strdup(ai->ai_canonname);
		return copy_addr(&rai->ai_src_addr, &rai->ai_src_len,
				 ai->ai_addr, ai->ai_addrlen);
	}
	if (ai->ai_canonname)
		rai->ai_dst_canonname = strdup(ai->ai_canonname);
	return copy_addr(&rai->ai_dst_addr, &rai->ai_dst_len, ai->ai_addr,
			 ai->ai_addrlen);
}

CMA_EXPORT int
rdma_getaddrinfo(const char *node, const char *service,
		 const struct rdma_addrinfo *hints, struct rdma_addrinfo **res)
{
	static const struct rdma_addrinfo nohints;
	struct addrinfo ai_hints, *ai;
	struct rdma_addrinfo *rai;
	int rc = 0;

	if ((!node && !service && !hints) || !res)
		return cma_err(EINVAL);
	if (hints && hints->ai_family == AF_IB)
		return EAI_FAMILY;
	rai = calloc(1, sizeof(*rai));
	if (!rai)
		return cma_err(ENOMEM);
	if (node || service) {
		if (hints) {
			to_ai_hints(&ai_hints, hints);
			rc = getaddrinfo(node, service, &ai_hints, &ai);
		} else {
			rc = getaddrinfo(node, service, NULL, &ai);
		}
		/* the EAI_* code, as rdma-core 44 returns it
		 * (gai_strerror() tells what it means) */
		if (rc)
			goto fail;
		rc = from_ai(rai, hints ? hints : &nohints, ai);
		freeaddrinfo(ai);
	} else {
		rai->ai_flags = hints->ai_flags;
		rai->ai_family = hints->ai_family;
		rai->ai_qp_type = hints->ai_qp_type;
		rai->ai_port_space = hints->ai_port_space;
		if (hints->ai_dst_len)
			rc = copy_addr(&rai->ai_dst_addr, &rai->ai_dst_len,
				       hints->ai_dst_addr, hints->ai_dst_len);
	}
	if (rc)
		goto fail;
	if (!rai->ai_src_len && hints && hints->ai_src_len) {
		rc = copy_addr(&rai->ai_src_addr, &rai->ai_src_len,
			       hints->ai_src_addr, hints->ai_src_len);
		if (rc)
			goto fail;
	}
	*res = rai;
	return 0;
fail:
	rdma_freeaddrinfo(rai);
	return rc;
}

CMA_EXPORT void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct rdma_addrinfo *rai;

	while ((rai = res)) {
		res = rai->ai_next;
		free(rai->ai_connect);
		free(rai->ai_route);
		free(rai->ai_src_canonname);
		free(rai->ai_dst_canonname);
		free(rai->ai_src_addr);
		free(rai->ai_dst_addr);
		free(rai);
	}
}
