/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multicast attachments of the port's UD QPs (IBA 10.5.2.3, 11.3.1:
 * Attach/Detach QP to Multicast Group): a small table of groups, each
 * the QPs that take a copy of a packet to its MLID (and MGID, when the
 * packet carries a GRH). qp.c hands such a packet to every QP the group
 * lists; nothing here calls back into it.
 */
#include <errno.h>
#include <string.h>

#include "qp_priv.h"

static struct hca_v_mcg *
group_of(struct hca_verbs *v, const uint8_t gid[16], uint16_t lid)
{
	unsigned int i;

	for (i = 0; i < MPD_V_MAX_MCAST_GRP; i++) {
		struct hca_v_mcg *g = &v->mcg[i];

		if (g->nqps && g->mlid == lid && !memcmp(g->mgid, gid, 16))
			return g;
	}
	return NULL;
}

static int
qp_slot(const struct hca_v_mcg *g, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < g->nqps; i++)
		if (g->qpn[i] == qpn)
			return (int)i;
	return -1;
}

/* What ib_attach_mcast() refuses: not UD, not a multicast GID (on RoCE
 * also an IPv4 group mapped, rdma_is_multicast_addr()), on IB a LID
 * outside 0xC000..0xFFFE (RoCE has no LIDs) */
static int
args_ok(const struct hca_verbs *v, const struct hca_v_qp *qp,
	const uint8_t gid[16], uint16_t lid)
{
	if (qp->type != IBV_QPT_UD)
		return EINVAL;
	if (v->port->link == MPD_LINK_IB ? gid[0] != 0xff :
	    !hca_gid_multicast(gid))
		return EINVAL;
	if (v->port->link == MPD_LINK_IB &&
	    (lid < MPD_LID_MCAST_LO || lid == MPD_LID_PERMISSIVE))
		return EINVAL;
	return 0;
}

int
hca_v_mcast_attach(struct hca_verbs *v, struct hca_v_qp *qp,
		   const uint8_t gid[16], uint16_t lid)
{
	struct hca_v_mcg *g;
	unsigned int i;
	int rc = args_ok(v, qp, gid, lid);

	if (rc)
		return rc;
	g = group_of(v, gid, lid);
	if (g) {
		/* ib_uverbs: attaching twice is no error */
		if (qp_slot(g, qp->qpn) >= 0)
			return 0;
		if (g->nqps >= MPD_V_MAX_MCAST_QP_ATTACH)
			return ENOMEM;
		g->qpn[g->nqps++] = qp->qpn;
		return 0;
	}
	for (i = 0; i < MPD_V_MAX_MCAST_GRP; i++) {
		g = &v->mcg[i];
		if (g->nqps)
			continue;
		memcpy(g->mgid, gid, 16);
		g->mlid = lid;
		g->qpn[0] = qp->qpn;
		g->nqps = 1;
		return 0;
	}
	return ENOMEM;
}

static void
drop_slot(struct hca_v_mcg *g, int k)
{
	/* order does not matter: every listed QP gets its copy */
	g->qpn[k] = g->qpn[--g->nqps];
}

int
hca_v_mcast_detach(struct hca_verbs *v, struct hca_v_qp *qp,
		   const uint8_t gid[16], uint16_t lid)
{
	struct hca_v_mcg *g;
	int k, rc = args_ok(v, qp, gid, lid);

	if (rc)
		return rc;
	g = group_of(v, gid, lid);
	k = g ? qp_slot(g, qp->qpn) : -1;
	if (k < 0)
		return EINVAL;
	drop_slot(g, k);
	return 0;
}

void
mcast_qp_gone(struct hca_verbs *v, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < MPD_V_MAX_MCAST_GRP; i++) {
		struct hca_v_mcg *g = &v->mcg[i];
		int k = g->nqps ? qp_slot(g, qpn) : -1;

		if (k >= 0)
			drop_slot(g, k);
	}
}

/* RoCEv2: the group is the destination IP, as a GID (an IPv4 group
 * mapped); its MAC must be that group's */
static const struct hca_v_mcg *
roce_group(const struct hca_verbs *v, const struct mpd_pkt *pk)
{
	uint8_t gid[16], mac[6];
	unsigned int i;

	if (pk->ip_ver == 4)
		hca_gid_from_ip4(pk->ip4.dst, gid);
	else
		memcpy(gid, pk->ip6.dst, 16);
	if (!hca_gid_multicast(gid))
		return NULL;
	hca_gid_group_mac(gid, mac);
	if (memcmp(mac, pk->eth.dst, 6))
		return NULL;
	for (i = 0; i < MPD_V_MAX_MCAST_GRP; i++) {
		const struct hca_v_mcg *g = &v->mcg[i];

		if (g->nqps && !memcmp(g->mgid, gid, 16))
			return g;
	}
	return NULL;
}

const struct hca_v_mcg *
mcast_group(const struct hca_verbs *v, const struct mpd_pkt *pk)
{
	unsigned int i;

	if (pk->link != MPD_LINK_IB)
		return roce_group(v, pk);
	for (i = 0; i < MPD_V_MAX_MCAST_GRP; i++) {
		const struct hca_v_mcg *g = &v->mcg[i];

		/* IBA 7.11.1: the DLID names the group; the DGID must
		 * agree when the packet has a GRH */
		if (!g->nqps || pk->lrh.dlid != g->mlid)
			continue;
		if (pk->has_grh && memcmp(pk->grh.dgid, g->mgid, 16))
			continue;
		return g;
	}
	return NULL;
}
