/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an id knows of itself: QUERY's answer copied into its route, as
 * ucma_query_route() copies the kernel's (addresses, GIDs, P_Key, the
 * path), and the id bound to the device once the daemon names its port.
 * Addresses between sockaddrs and the channel's struct mpd_cm_addr.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <endian.h>

#include "rdmacm_priv.h"

socklen_t
cma_addrlen(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		/* AF_IB included: librdmacm without AF_IB support */
		return 0;
	}
}

int
cma_addr_from_sockaddr(const struct sockaddr *sa, struct mpd_cm_addr *a)
{
	const struct sockaddr_in6 *s6;
	const struct sockaddr_in *s4;

	memset(a, 0, sizeof(*a));
	switch (sa ? sa->sa_family : AF_UNSPEC) {
	case AF_INET:
		s4 = (const struct sockaddr_in *)sa;
		a->family = AF_INET;
		a->port = ntohs(s4->sin_port);
		memcpy(a->addr, &s4->sin_addr, 4);
		return 0;
	case AF_INET6:
		s6 = (const struct sockaddr_in6 *)sa;
		a->family = AF_INET6;
		a->port = ntohs(s6->sin6_port);
		a->scope_id = s6->sin6_scope_id;
		memcpy(a->addr, &s6->sin6_addr, 16);
		return 0;
	default:
		return EINVAL;
	}
}

/* The daemon's address as a sockaddr; anything but IPv4 and IPv6 (none
 * yet: family 0) leaves it zero */
static void
addr_to_sockaddr(const struct mpd_cm_addr *a, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	switch (a->family) {
	case AF_INET:
		s4->sin_family = AF_INET;
		s4->sin_port = htons(a->port);
		memcpy(&s4->sin_addr, a->addr, 4);
		break;
	case AF_INET6:
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(a->port);
		s6->sin6_scope_id = a->scope_id;
		memcpy(&s6->sin6_addr, a->addr, 16);
		break;
	default:
		break;
	}
}

/* rdma-core's struct ibv_sa_path_rec: network order where it says so */
static void
path_from_mpd(struct ibv_sa_path_rec *dst, const struct mpd_cm_path_rec *src)
{
	memset(dst, 0, sizeof(*dst));
	memcpy(dst->dgid.raw, src->dgid, 16);
	memcpy(dst->sgid.raw, src->sgid, 16);
	dst->dlid = htobe16(src->dlid);
	dst->slid = htobe16(src->slid);
	dst->raw_traffic = src->raw_traffic;
	dst->flow_label = htobe32(src->flow_label);
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->reversible = src->reversible;
	dst->numb_path = src->numb_path;
	dst->pkey = htobe16(src->pkey);
	dst->sl = src->sl & 0xf;
	dst->mtu_selector = src->mtu_selector;
	dst->mtu = src->mtu;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}

int
cma_query(struct cma_id *p)
{
	struct rdma_route *rt = &p->id.route;
	struct ibv_sa_path_rec *path = NULL;
	struct mpd_cm_id_info info;
	struct mpd_chan_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_QUERY;
	m.len = sizeof(m.u.cm_id_req);
	m.u.cm_id_req.id = p->handle;
	rc = cma_call(cma_chan(p->id.channel), &m);
	if (rc)
		return rc;
	info = m.u.cm_id_info;
	if (info.num_paths) {
		path = malloc(sizeof(*path));
		if (!path)
			return ENOMEM;
		path_from_mpd(path, &info.path);
	}
	if (!p->dev && info.port_num) {
		rc = cma_device_get(&p->dev);
		if (rc) {
			free(path);
			return rc;
		}
		p->id.verbs = p->dev->verbs;
		p->id.pd = p->dev->pd;
		p->id.port_num = info.port_num;
	}
	addr_to_sockaddr(&info.src, &rt->addr.src_storage);
	addr_to_sockaddr(&info.dst, &rt->addr.dst_storage);
	memcpy(rt->addr.addr.ibaddr.sgid.raw, info.sgid, 16);
	memcpy(rt->addr.addr.ibaddr.dgid.raw, info.dgid, 16);
	rt->addr.addr.ibaddr.pkey = htobe16(info.pkey);
	free(rt->path_rec);
	rt->path_rec = path;
	/* one path at most (the daemon keeps no alternate) */
	rt->num_paths = path ? 1 : 0;
	return 0;
}
