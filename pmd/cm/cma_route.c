/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where an rdma_cm address is and how to get there: the fabric's own
 * address table (struct hca_port's neigh, filled by the launcher for IB
 * and RoCE ports alike) instead of ARP, never an IP packet; on IB a
 * PathRecord from the SA (IBA 15.2.5.16), on RoCEv2 a route the port
 * makes itself, as the kernel's cma.c does for IBoE.
 */
#include <errno.h>
#include <string.h>

#include <endian.h>

#include "madpmd/mad.h"
#include "madpmd/sa.h"
#include "cma.h"

#define AF_INET_	2
#define AF_INET6_	10

static bool
is_zero(const uint8_t *b, unsigned int n)
{
	while (n--)
		if (*b++)
			return false;
	return true;
}

/* An IPv4 address: AF_INET, or IPv4-mapped IPv6 (RFC 4291 2.5.5.2) */
static const uint8_t *
ip4_of(const struct mpd_cm_addr *a)
{
	if (a->family == AF_INET_)
		return a->addr;
	if (a->family == AF_INET6_ && hca_gid_ip4_mapped(a->addr))
		return a->addr + 12;
	return NULL;
}

static bool
own_gid(const struct hca_port *p, const uint8_t gid[16])
{
	struct hca_neigh self;

	hca_port_neigh(p, &self);
	return !memcmp(self.gid, gid, 16);
}

bool
hca_cma_addr_local(const struct hca_port *p, const struct mpd_cm_addr *a)
{
	const uint8_t *ip4 = ip4_of(a);
	static const uint8_t lo6[16] = { [15] = 1 };

	if (ip4)
		return is_zero(ip4, 4) || ip4[0] == 127 ||
		       !memcmp(ip4, p->ip4, 4);
	if (a->family != AF_INET6_)
		return false;
	return is_zero(a->addr, 16) || !memcmp(a->addr, lo6, 16) ||
	       own_gid(p, a->addr);
}

bool
hca_cma_addr_any(const struct mpd_cm_addr *a)
{
	static const uint8_t lo6[16] = { [15] = 1 };

	if (a->family == AF_INET_)
		return is_zero(a->addr, 4) || a->addr[0] == 127;
	return a->family == AF_INET6_ &&
	       (is_zero(a->addr, 16) || !memcmp(a->addr, lo6, 16));
}

bool
hca_cma_addr_mcast(const struct mpd_cm_addr *a)
{
	const uint8_t *ip4 = ip4_of(a);

	if (ip4)
		return (ip4[0] & 0xf0) == 0xe0;
	return a->family == AF_INET6_ && a->addr[0] == 0xff;
}

bool
hca_cma_addr_resolve(const struct hca_port *p, const struct mpd_cm_addr *dst,
		     struct hca_neigh *n)
{
	const uint8_t *ip4 = ip4_of(dst);
	uint32_t i;

	/* loopback, the wildcard and our own addresses are this port; a
	 * group is reached through it too (the kernel resolves one to the
	 * device its route leaves by: mckey resolves its group first) */
	if (hca_cma_addr_local(p, dst) || hca_cma_addr_mcast(dst)) {
		hca_port_neigh(p, n);
		return true;
	}
	for (i = 0; i < p->nneigh; i++) {
		const struct hca_neigh *e = &p->neigh[i];

		if ((ip4 && !memcmp(e->ip4, ip4, 4)) ||
		    (!ip4 && dst->family == AF_INET6_ &&
		     !memcmp(e->gid, dst->addr, 16))) {
			*n = *e;
			return true;
		}
	}
	return false;
}

void
hca_cma_gid(const struct hca_port *p, const struct hca_neigh *n,
	    uint8_t gid[16])
{
	if (p->link == MPD_LINK_IB) {
		memcpy(gid, n->gid, 16);
		return;
	}
	hca_gid_from_ip4(n->ip4, gid);
}

void
hca_cma_path_query(const struct hca_port *p, const uint8_t sgid[16],
		   const uint8_t dgid[16], uint16_t pkey, uint32_t tid,
		   uint8_t *mad, struct hca_mad_desc *d)
{
	struct mpd_path_record r;
	struct mpd_mad m;
	uint8_t rec[MPD_SA_DATA_LEN];

	memset(&r, 0, sizeof(r));
	memcpy(r.dgid, dgid, 16);
	memcpy(r.sgid, sgid, 16);
	r.pkey = pkey;
	r.numb_path = 1;
	r.reversible = 1;
	memset(rec, 0, sizeof(rec));
	mpd_layout_encode(&mpd_path_record_layout, &r, rec, sizeof(rec));
	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_ADM;
	m.hdr.class_version = MPD_SA_CLASS_VERSION;
	m.hdr.method = MPD_METHOD_GET;
	m.hdr.tid = tid;
	m.hdr.attr_id = MPD_ATTR_SA_PATH_RECORD;
	/* what the kernel's cma_query_ib_route() asks */
	m.comp_mask = MPD_SA_PR_COMP_DGID | MPD_SA_PR_COMP_SGID |
		      MPD_SA_PR_COMP_PKEY | MPD_SA_PR_COMP_NUMB_PATH |
		      MPD_SA_PR_COMP_REVERSIBLE;
	mpd_mad_encode(&m, rec, sizeof(rec), mad, MPD_MAD_LEN);
	/* to the SM, on QP1 with the GSI Q_Key (IBA 15.4.1) */
	memset(d, 0, sizeof(*d));
	d->qpn = htobe32(1);
	d->qkey = htobe32(MPD_QP1_QKEY);
	d->lid = htobe16(p->sm_lid);
	d->sl = p->sm_sl;
	d->length = MPD_MAD_LEN;
}

int
hca_cma_path_answer(const uint8_t *mad, uint32_t len,
		    struct mpd_cm_path_rec *path)
{
	struct mpd_path_record r;

	if (len < MPD_MAD_LEN || mpd_mad_class(mad) != MPD_CLASS_SUBN_ADM ||
	    mpd_mad_method(mad) != MPD_METHOD_GET_RESP ||
	    mpd_mad_attr_id(mad) != MPD_ATTR_SA_PATH_RECORD ||
	    mpd_get_be16(mad + MPD_MAD_OFF_STATUS) != 0)
		return EHOSTUNREACH;
	memset(&r, 0, sizeof(r));
	mpd_layout_decode(&mpd_path_record_layout, mad + MPD_SA_HDR_END,
			  MPD_SA_DATA_LEN, &r);
	memset(path, 0, sizeof(*path));
	memcpy(path->dgid, r.dgid, 16);
	memcpy(path->sgid, r.sgid, 16);
	path->dlid = r.dlid;
	path->slid = r.slid;
	path->pkey = r.pkey;
	path->raw_traffic = r.raw_traffic;
	path->reversible = r.reversible;
	path->flow_label = r.flow_label;
	path->hop_limit = r.hop_limit;
	path->traffic_class = r.tclass;
	path->numb_path = r.numb_path;
	path->sl = r.sl;
	path->mtu_selector = r.mtu_selector;
	path->mtu = r.mtu;
	path->rate_selector = r.rate_selector;
	path->rate = r.rate;
	path->packet_life_time_selector = r.pkt_life_selector;
	path->packet_life_time = r.pkt_life;
	path->preference = r.preference;
	return r.dlid ? 0 : EHOSTUNREACH;
}

void
hca_cma_roce_path(const struct hca_port *p, const uint8_t sgid[16],
		  const uint8_t dgid[16], uint8_t tos,
		  struct mpd_cm_path_rec *path)
{
	memset(path, 0, sizeof(*path));
	memcpy(path->dgid, dgid, 16);
	memcpy(path->sgid, sgid, 16);
	path->pkey = 0xffff;
	path->reversible = 1;
	path->numb_path = 1;
	path->hop_limit = 64;
	path->traffic_class = tos;
	path->sl = tos >> 5;
	path->mtu_selector = MPD_SA_SEL_EQ;
	/* the port's active MTU: what its Ethernet MTU carries (1024 of
	 * 1500, as iboe_get_mtu()), set with rte_eth_dev_set_mtu() */
	path->mtu = p->neighbor_mtu;
	path->rate_selector = MPD_SA_SEL_EQ;
	path->rate = 7;			/* 40 Gb/s */
	path->packet_life_time_selector = MPD_SA_SEL_EQ;
	path->packet_life_time = HCA_CMA_IBOE_LIFETIME;
}
