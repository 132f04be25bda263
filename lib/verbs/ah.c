/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address handles: the library's own objects (the daemon never sees
 * one); a UD send copies the address into its WQE (madpmd/verbs.h).
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_priv.h"

/*
 * The kernel's rdma_check_ah_attr(): a RoCE port addresses by GID alone,
 * so its AH must carry a GRH (is_global), and a GRH's source GID index
 * must name a GID of the port. A port's kind is the context's to know
 * after its first look: no round trip per AH.
 */
static bool
ah_grh_ok(struct ibv_context *context, const struct ibv_ah_attr *attr)
{
	bool roce;
	int ngids = mpd_v_port_gids(context, attr->port_num, &roce);

	if (!ngids)
		return false;
	if (!attr->is_global)
		return !roce;
	return attr->grh.sgid_index < ngids;
}

VERBS_EXPORT struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct mpd_verbs_ctx *c;
	struct mpd_v_ah_obj *ah;

	if (!pd || !attr) {
		errno = EINVAL;
		return NULL;
	}
	c = mpd_verbs_ctx(pd->context);
	if (attr->port_num < 1 || attr->port_num > c->vdev->node.num_ports ||
	    attr->sl > 15 || !ah_grh_ok(pd->context, attr)) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ah->ah.context = pd->context;
	ah->ah.pd = pd;
	mpd_v_ah_from_attr(&ah->av, attr);
	return &ah->ah;
}

VERBS_EXPORT int
ibv_destroy_ah(struct ibv_ah *ah)
{
	if (!ah)
		return EINVAL;
	free(ah);
	return 0;
}

/* The GID index of gid on the port, or -1 */
static int
gid_index(struct ibv_context *context, uint8_t port_num,
	  const union ibv_gid *gid)
{
	union ibv_gid g;
	int i;

	for (i = 0; i < 2; i++) {
		if (ibv_query_gid(context, port_num, i, &g))
			break;
		if (!memcmp(g.raw, gid->raw, sizeof(g.raw)))
			return i;
	}
	return -1;
}

static void
ipv4_mapped(union ibv_gid *gid, const uint8_t *ip4)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(gid->raw + 12, ip4, 4);
}

/*
 * As rdma-core: the reply goes back to the sender's LID and, with a GRH,
 * its GID. On RoCE v2 over IPv4 the 40 bytes hold 20 unused ones and the
 * IPv4 header (version 4, IHL 5 at byte 20).
 */
VERBS_EXPORT int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
		    struct ibv_wc *wc, struct ibv_grh *grh,
		    struct ibv_ah_attr *ah_attr)
{
	const uint8_t *raw = (const uint8_t *)grh;
	union ibv_gid sgid, dgid;
	uint32_t flow;
	int idx;

	if (!context || !wc || !ah_attr ||
	    port_num < 1 ||
	    port_num > mpd_verbs_ctx(context)->vdev->node.num_ports) {
		errno = EINVAL;
		return -1;
	}
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;
	if (!grh) {
		errno = EINVAL;
		return -1;
	}
	ah_attr->is_global = 1;
	if (raw[20] == 0x45) {
		/* IPv4: saddr at 12, daddr at 16 of the header */
		ipv4_mapped(&dgid, raw + 20 + 12);
		ipv4_mapped(&sgid, raw + 20 + 16);
		ah_attr->grh.traffic_class = raw[21];
		ah_attr->grh.hop_limit = 0xff;
	} else {
		dgid = grh->sgid;
		sgid = grh->dgid;
		flow = be32toh(grh->version_tclass_flow);
		ah_attr->grh.flow_label = flow & 0xfffff;
		ah_attr->grh.traffic_class = (uint8_t)(flow >> 20);
		ah_attr->grh.hop_limit = 0xff;
	}
	ah_attr->grh.dgid = dgid;
	idx = gid_index(context, port_num, &sgid);
	if (idx < 0) {
		errno = ENOENT;
		return -1;
	}
	ah_attr->grh.sgid_index = (uint8_t)idx;
	return 0;
}

VERBS_EXPORT struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
		      uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (!pd) {
		errno = EINVAL;
		return NULL;
	}
	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}
