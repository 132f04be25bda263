/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multicast joins of the port's rdma_cm ids, as the kernel's cma.c and
 * multicast.c make them on IB: the table of joins, the MGID of a group
 * address (cma_set_mgid()), the SubnAdm Set and Delete of the port's
 * MCMemberRecord (IBA 15.2.5.17) and the address vector of the SA's
 * answer (ib_init_ah_from_mcmember()). The requests and their events
 * are cma.c's; nothing here calls it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <endian.h>

#include "madpmd/mad.h"
#include "cma.h"

#define MC_GEN_SHIFT	10
_Static_assert((1u << MC_GEN_SHIFT) == HCA_CMA_MAX_MC, "join slot bits");
#define AF_INET_	2
#define AF_INET6_	10

int
hca_cma_mc_init(struct hca_cma *cma)
{
	cma->mcs = calloc(HCA_CMA_MAX_MC, sizeof(*cma->mcs));
	return cma->mcs ? 0 : -ENOMEM;
}

void
hca_cma_mc_fini(struct hca_cma *cma)
{
	free(cma->mcs);
	cma->mcs = NULL;
}

struct hca_cma_mc *
hca_cma_mc_alloc(struct hca_cma *cma)
{
	uint32_t i, gen;

	for (i = 0; cma->mcs && i < HCA_CMA_MAX_MC; i++) {
		struct hca_cma_mc *mc = &cma->mcs[i];

		if (mc->state != HCA_CMA_MC_FREE)
			continue;
		memset(mc, 0, sizeof(*mc));
		/* bit 31 clear: Deletes use the TIDs that have it */
		do
			gen = ++cma->mc_gen & ((1u << (31 - MC_GEN_SHIFT)) - 1);
		while (gen == 0);
		mc->handle = gen << MC_GEN_SHIFT | i;
		mc->state = HCA_CMA_MC_JOINING;
		return mc;
	}
	return NULL;
}

void
hca_cma_mc_free(struct hca_cma *cma, struct hca_cma_mc *mc)
{
	(void)cma;
	memset(mc, 0, sizeof(*mc));
}

struct hca_cma_mc *
hca_cma_mc_by_handle(struct hca_cma *cma, uint32_t h)
{
	struct hca_cma_mc *mc;

	if (!cma->mcs)
		return NULL;
	mc = &cma->mcs[h & (HCA_CMA_MAX_MC - 1)];
	return mc->state != HCA_CMA_MC_FREE && mc->handle == h ? mc : NULL;
}

static bool
same_addr(const struct mpd_cm_addr *a, const struct mpd_cm_addr *b)
{
	if (a->family != b->family)
		return false;
	return !memcmp(a->addr, b->addr, a->family == AF_INET_ ? 4 : 16);
}

struct hca_cma_mc *
hca_cma_mc_next(struct hca_cma *cma, uint32_t id, const struct mpd_cm_addr *a,
		struct hca_cma_mc *from)
{
	uint32_t i = from ? (uint32_t)(from - cma->mcs) + 1 : 0;

	for (; cma->mcs && i < HCA_CMA_MAX_MC; i++) {
		struct hca_cma_mc *mc = &cma->mcs[i];

		if (mc->state != HCA_CMA_MC_FREE && mc->id == id &&
		    (!a || same_addr(&mc->addr, a)))
			return mc;
	}
	return NULL;
}

void
hca_cma_mgid(uint32_t ps, uint16_t pkey, const struct mpd_cm_addr *a,
	     uint8_t mgid[16])
{
	static const uint8_t zero[16];
	const uint8_t *ip4 = NULL;

	memset(mgid, 0, 16);
	if (a->family == AF_INET_)
		ip4 = a->addr;
	else if (hca_gid_ip4_mapped(a->addr))
		ip4 = a->addr + 12;
	/* the wildcard: the SA assigns one */
	if ((ip4 && !memcmp(ip4, zero, 4)) ||
	    (!ip4 && !memcmp(a->addr, zero, 16)))
		return;
	/* an MGID the SA assigned (ff1x:a01b:...) is the address itself */
	if (!ip4 && a->addr[0] == 0xff && (a->addr[1] & 0xf0) == 0x10 &&
	    a->addr[2] == 0xa0 && a->addr[3] == 0x1b) {
		memcpy(mgid, a->addr, 16);
		return;
	}
	/* ip_ib_mc_map() / ipv6_ib_mc_map(): link-local scope (2) of the
	 * IPoIB broadcast address, its P_Key with the full member bit */
	mgid[0] = 0xff;
	mgid[1] = 0x12;
	mgid[2] = ip4 ? 0x40 : 0x60;
	mgid[3] = ps == HCA_CMA_PS_UDP ? 0x01 : 0x1b;
	mgid[4] = (uint8_t)((pkey | 0x8000) >> 8);
	mgid[5] = (uint8_t)pkey;
	if (ip4) {
		mgid[12] = ip4[0] & 0x0f;
		memcpy(mgid + 13, ip4 + 1, 3);
	} else {
		memcpy(mgid + 6, a->addr + 6, 10);
	}
}

uint8_t
hca_cma_mc_leave_bits(const struct hca_cma *cma, const struct hca_cma_mc *mc)
{
	uint8_t held = 0;
	uint32_t i;

	for (i = 0; i < HCA_CMA_MAX_MC; i++) {
		const struct hca_cma_mc *o = &cma->mcs[i];

		if (o == mc || (o->state != HCA_CMA_MC_JOINING &&
				o->state != HCA_CMA_MC_JOINED))
			continue;
		if (!memcmp(o->mgid, mc->mgid, 16))
			held |= o->join_state;
	}
	return mc->join_state & (uint8_t)~held;
}

void
hca_cma_mc_query(const struct hca_port *p, uint8_t method,
		 const uint8_t mgid[16], uint8_t join_state, uint32_t qkey,
		 uint16_t pkey, uint32_t tid, uint8_t *mad,
		 struct hca_mad_desc *d)
{
	struct mpd_mcmember_record r;
	struct hca_neigh self;
	struct mpd_mad m;
	uint8_t rec[MPD_SA_DATA_LEN];

	hca_port_neigh(p, &self);
	memset(&r, 0, sizeof(r));
	memcpy(r.mgid, mgid, 16);
	memcpy(r.port_gid, self.gid, 16);
	r.qkey = qkey;
	r.pkey = pkey | 0x8000;
	r.join_state = join_state;
	/* SL, flow label and traffic class 0: the IPoIB broadcast group's
	 * as OpenSM makes it, which the kernel copies */
	memset(rec, 0, sizeof(rec));
	mpd_layout_encode(&mpd_mcmember_record_layout, &r, rec, sizeof(rec));
	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_ADM;
	m.hdr.class_version = MPD_SA_CLASS_VERSION;
	m.hdr.method = method;
	m.hdr.tid = tid;
	m.hdr.attr_id = MPD_ATTR_SA_MCMEMBER_RECORD;
	/* cma_join_ib_multicast()'s mask: what OpenSM needs to create a
	 * group (IBA 15.4.4: MGID, PortGID, Q_Key, P_Key, SL, FlowLabel,
	 * TClass, JoinState) */
	m.comp_mask = MPD_SA_MCM_COMP_MGID | MPD_SA_MCM_COMP_PORT_GID |
		      MPD_SA_MCM_COMP_PKEY | MPD_SA_MCM_COMP_JOIN_STATE |
		      MPD_SA_MCM_COMP_QKEY | MPD_SA_MCM_COMP_SL |
		      MPD_SA_MCM_COMP_FLOW_LABEL | MPD_SA_MCM_COMP_TCLASS;
	mpd_mad_encode(&m, rec, sizeof(rec), mad, MPD_MAD_LEN);
	/* to the SM, on QP1 with the GSI Q_Key (IBA 15.4.1) */
	memset(d, 0, sizeof(*d));
	d->qpn = htobe32(1);
	d->qkey = htobe32(MPD_QP1_QKEY);
	d->lid = htobe16(p->sm_lid);
	d->sl = p->sm_sl;
	d->length = MPD_MAD_LEN;
	d->timeout_ms = HCA_CMA_MC_TIMEOUT_MS;
	d->retries = 0;
}

int
hca_cma_mc_answer(const struct hca_port *p, const uint8_t *mad, uint32_t len,
		  const uint8_t mgid[16], struct mpd_mcmember_record *rec)
{
	static const uint8_t zero[16];
	struct hca_neigh self;

	if (len < MPD_MAD_LEN || mpd_mad_class(mad) != MPD_CLASS_SUBN_ADM ||
	    mpd_mad_method(mad) != MPD_METHOD_GET_RESP ||
	    mpd_mad_attr_id(mad) != MPD_ATTR_SA_MCMEMBER_RECORD ||
	    mpd_get_be16(mad + MPD_MAD_OFF_STATUS) != 0)
		return EINVAL;
	memset(rec, 0, sizeof(*rec));
	mpd_layout_decode(&mpd_mcmember_record_layout, mad + MPD_SA_HDR_END,
			  MPD_SA_DATA_LEN, rec);
	hca_port_neigh(p, &self);
	/* the group asked for (any, when the SA was to assign it) */
	if ((memcmp(mgid, zero, 16) && memcmp(rec->mgid, mgid, 16)) ||
	    rec->mgid[0] != 0xff || rec->mlid < MPD_LID_MCAST_LO ||
	    rec->mlid == MPD_LID_PERMISSIVE)
		return EINVAL;
	return 0;
}

void
hca_cma_mc_ah(const struct hca_port *p, const struct mpd_mcmember_record *rec,
	      struct mpd_v_ah *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = rec->mlid;
	ah->sl = rec->sl;
	ah->static_rate = rec->rate;
	ah->port_num = p->port_num;
	ah->is_global = 1;
	memcpy(ah->dgid, rec->mgid, 16);
	ah->flow_label = rec->flow_label;
	ah->hop_limit = rec->hop_limit;
	ah->traffic_class = rec->tclass;
	ah->sgid_index = 0;		/* the port GID the record names */
}
