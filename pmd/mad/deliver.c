/* SPDX-License-Identifier: BSD-3-Clause */
/* Which client a received MAD is for, and handing it over with its
 * address (the kernel's ib_mad_recv_wc, as ib_umad fills ib_user_mad). */
#include <string.h>

#include <endian.h>

#include "mad_priv.h"

static void
desc_from_pkt(const struct hca_port *p, const struct mpd_pkt *pk,
	      struct hca_mad_desc *d)
{
	d->qpn = htobe32(pk->deth.src_qp);
	d->qkey = htobe32(pk->deth.qkey);
	d->lid = htobe16(pk->lrh.slid);
	d->sl = pk->lrh.sl;
	d->path_bits = (uint8_t)(pk->lrh.dlid & ((1u << p->lmc) - 1));
	d->pkey_index = hca_port_pkey_index(p, pk->bth.pkey);
	if (pk->link == MPD_LINK_ROCE_V2) {
		/* RoCEv2: the GRH is the IP header's (IBA A17.4.5.1) */
		d->grh_present = 1;
		if (pk->ip_ver == 4) {
			hca_gid_from_ip4(pk->ip4.src, d->gid);
			d->hop_limit = pk->ip4.ttl;
			d->traffic_class = pk->ip4.tos;
		} else {
			memcpy(d->gid, pk->ip6.src, 16);
			d->hop_limit = pk->ip6.hop_limit;
			d->traffic_class = pk->ip6.tclass;
			d->flow_label = htobe32(pk->ip6.flow_label);
		}
	} else if (pk->has_grh) {
		d->grh_present = 1;
		d->hop_limit = pk->grh.hop_limit;
		d->traffic_class = pk->grh.tclass;
		memcpy(d->gid, pk->grh.sgid, 16);
		d->flow_label = htobe32(pk->grh.flow_label);
	}
}

bool
mad_route(struct hca_mad_layer *ml, const uint8_t *mad, bool free_wait,
	  struct hca_mad_client **pc, uint32_t *pid)
{
	struct hca_mad_client *c = NULL;
	uint32_t id = 0;

	if (mpd_mad_is_response(mad)) {
		uint64_t tid = mpd_mad_tid(mad);
		struct hca_outstanding *o = mad_out_find(ml, tid,
							 mpd_mad_class(mad));

		/* a response counts only against a send waiting for it;
		 * sends without a time-out expect nothing, but a response
		 * still finds its agent by TID */
		if (o) {
			c = o->c;
			id = o->agent;
			if (free_wait)
				mad_out_free(ml, o);
		} else if (!mad_find_agent_by_tid(ml, tid, &c, &id)) {
			return false;
		}
	} else if (!mad_find_agent(ml, mad, &c, &id)) {
		return false;
	}
	if (c->dead)
		return false;
	*pc = c;
	*pid = id;
	return true;
}

bool
mad_deliver_to(struct hca_mad_layer *ml, struct hca_mad_client *c,
	       uint32_t agent, const struct mpd_pkt *pk, const uint8_t *mad,
	       uint32_t len)
{
	struct hca_mad_desc d;

	memset(&d, 0, sizeof(d));
	d.agent_id = agent;
	d.length = MAD_DESC_LEN + len;	/* ib_umad_read(): header included */
	desc_from_pkt(ml->port, pk, &d);
	if (!c->ops->deliver(c, &d, mad, len)) {
		c->dropped++;
		ml->port->cnt.chan_ring_full++;
		return false;
	}
	c->received++;
	return true;
}

bool
mad_deliver(struct hca_mad_layer *ml, const struct mpd_pkt *pk,
	    const uint8_t *mad, uint32_t len)
{
	struct hca_mad_client *c;
	uint32_t id;

	if (!mad_route(ml, mad, true, &c, &id))
		return false;
	mad_deliver_to(ml, c, id, pk, mad, len);
	return true;	/* taken, even by a ring that had no room */
}

void
mad_hand_back(struct hca_mad_client *c, const struct hca_mad_desc *d,
	      const uint8_t *hdr, uint32_t status)
{
	struct hca_mad_desc h = *d;

	if (c->dead)
		return;
	h.status = status;
	h.length = MPD_MAD_HDR_LEN;
	if (!c->ops->deliver(c, &h, hdr, MPD_MAD_HDR_LEN))
		c->dropped++;
}
