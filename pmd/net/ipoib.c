/* SPDX-License-Identifier: BSD-3-Clause */
/* IPoIB for an IB port's network device (ipoib.h) */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "madpmd/mad.h"
#include "madpmd/wire.h"
#include "../cm/cma.h"
#include "ipoib.h"

#define JOIN_RETRY_NS	1000000000ull	/* after a failed or lost join */
#define ARP_RETRY_NS	1000000000ull
#define PEND_NS		3000000000ull	/* then the packet is dropped */
#define IPOIB_PKEY	0xffff		/* the default partition's group */

/* ff12:401b:<P_Key>::ffff:ffff, the IPv4 broadcast group (RFC 4391 4) */
static void
broadcast_mgid(uint8_t mgid[16])
{
	static const uint8_t g[16] = {
		0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
		0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};

	memcpy(mgid, g, 16);
}

static struct hca_ipoib *
ipoib_of(struct hca_mad_client *c)
{
	return (struct hca_ipoib *)((char *)c - offsetof(struct hca_ipoib, mc));
}

/* The SA's answer to the join, or the join handed back unanswered */
static bool
ipoib_deliver(struct hca_mad_client *c, const struct hca_mad_desc *d,
	      const uint8_t *mad, uint32_t len)
{
	struct hca_ipoib *ip = ipoib_of(c);
	struct mpd_mcmember_record rec;

	if (ip->state != HCA_IPOIB_JOINING ||
	    (uint32_t)mpd_mad_tid(mad) != ip->tid)
		return true;
	if (d->status ||
	    hca_cma_mc_answer(ip->port, mad, len, ip->mgid, &rec)) {
		ip->state = HCA_IPOIB_DOWN;
		ip->join_ns = ip->now_ns + JOIN_RETRY_NS;
		return true;
	}
	ip->mlid = rec.mlid;
	ip->qkey = rec.qkey;
	ip->sl = rec.sl;
	ip->state = HCA_IPOIB_JOINED;
	return true;
}

static void
ipoib_credit(struct hca_mad_client *c)
{
	(void)c;
}

static const struct hca_mad_client_ops ipoib_ops = {
	.deliver = ipoib_deliver,
	.credit = ipoib_credit,
};

int
hca_ipoib_init(struct hca_ipoib *ip)
{
	memset(ip, 0, sizeof(*ip));
	ip->fd = -1;
	broadcast_mgid(ip->mgid);
	return hca_mad_client_init(&ip->mc, &ipoib_ops, 0, 0);
}

int
hca_ipoib_start(struct hca_ipoib *ip, struct hca_port *p,
		struct hca_mad_layer *ml, int fd)
{
	static const struct hca_mad_agent_req sa = { .qpn = 1 };
	int rc;

	ip->port = p;
	ip->ml = ml;
	hca_mad_client_attach(ml, &ip->mc);
	rc = hca_mad_agent_register(ml, &ip->mc, &sa, &ip->agent);
	if (rc) {
		hca_mad_client_detach(ml, &ip->mc);
		return rc;
	}
	ip->attached = true;
	ip->fd = fd;
	ip->state = HCA_IPOIB_DOWN;
	return 0;
}

void
hca_ipoib_stop(struct hca_ipoib *ip)
{
	if (ip->attached)
		hca_mad_client_detach(ip->ml, &ip->mc);
	ip->attached = false;
	ip->fd = -1;
}

void
hca_ipoib_fini(struct hca_ipoib *ip)
{
	hca_mad_client_fini(&ip->mc);
}

/* ---- the join ---- */

void
hca_ipoib_join_poll(struct hca_ipoib *ip, uint64_t now,
		    struct hca_mad_out *mout)
{
	const struct hca_port *p = ip->port;
	struct hca_mad_desc d;
	uint8_t mad[MPD_MAD_LEN];

	ip->now_ns = now;
	if (ip->fd < 0)
		return;
	/* a port that went down, or a new SM (whose SA knows no member):
	 * join again, as ib_ipoib does on a port or SM change event */
	if (p->port_state != HCA_PORT_ACTIVE || !p->sm_lid ||
	    (ip->state != HCA_IPOIB_DOWN && p->sm_lid != ip->sm_lid)) {
		if (ip->state == HCA_IPOIB_JOINED)
			ip->join_ns = now;
		if (ip->state != HCA_IPOIB_DOWN)
			ip->state = HCA_IPOIB_DOWN;
		if (p->port_state != HCA_PORT_ACTIVE || !p->sm_lid)
			return;
	}
	if (ip->state != HCA_IPOIB_DOWN || now < ip->join_ns || !mout->room)
		return;
	ip->tid = (ip->tid + 1) & 0x7fffffff;
	hca_cma_mc_query(p, MPD_METHOD_SET, ip->mgid, 1, HCA_CMA_IPOIB_QKEY,
			 IPOIB_PKEY, ip->tid, mad, &d);
	d.agent_id = ip->agent;
	ip->sm_lid = p->sm_lid;
	ip->state = HCA_IPOIB_JOINING;
	ip->join_ns = now + JOIN_RETRY_NS;
	if (hca_mad_send(ip->ml, &ip->mc, &d, mad, MPD_MAD_LEN, now, mout) &&
	    ip->state == HCA_IPOIB_JOINING)
		ip->state = HCA_IPOIB_DOWN;
}

/* ---- sending ---- */

/* A UD SEND of IPoIB's QP: to dlid/dqpn, with a GRH to mgid when given */
static bool
send_ud(struct hca_ipoib *ip, uint16_t dlid, uint32_t dqpn,
	const uint8_t *dgid, const uint8_t *payload, uint32_t len,
	struct hca_v_out *out)
{
	struct mpd_v_ah ah = { .dlid = dlid, .sl = ip->sl };
	struct mpd_pkt pk;

	if (!out->room)
		return false;
	if (dgid) {
		ah.is_global = 1;
		ah.hop_limit = 1;
		memcpy(ah.dgid, dgid, 16);
	}
	if (!hca_path_headers(ip->port, &ah, &pk))
		return false;
	pk.bth.opcode = MPD_OP_UD_SEND_ONLY;
	pk.bth.pkey = IPOIB_PKEY;
	pk.bth.dest_qp = dqpn;
	pk.bth.psn = ip->psn++ & 0xffffff;
	pk.deth.qkey = ip->qkey;
	pk.deth.src_qp = HCA_IPOIB_QPN;
	if (!out->emit(out->ctx, &pk, payload, len))
		return false;
	out->room--;
	return true;
}

static void
own_hw(const struct hca_ipoib *ip, struct hca_ipoib_hw *h)
{
	h->qpn = HCA_IPOIB_QPN;
	mpd_put_be64(h->gid, ip->port->gid_prefix);
	mpd_put_be64(h->gid + 8, ip->port->port_guid);
}

static bool
send_arp(struct hca_ipoib *ip, uint16_t op, const uint8_t tpa[4],
	 const struct hca_ipoib_neigh *to, struct hca_v_out *out)
{
	uint8_t b[HCA_IPOIB_HDR + HCA_IPOIB_ARP_LEN];
	struct hca_ipoib_arp a;

	memset(&a, 0, sizeof(a));
	a.op = op;
	own_hw(ip, &a.sha);
	memcpy(a.spa, ip->port->ip4, 4);
	if (to)
		a.tha = to->hw;
	memcpy(a.tpa, tpa, 4);
	hca_ipoib_put_hdr(b, HCA_IPOIB_ET_ARP);
	hca_ipoib_arp_encode(&a, b + HCA_IPOIB_HDR);
	if (to)
		return send_ud(ip, to->lid, to->hw.qpn, NULL, b, sizeof(b),
			       out);
	return send_ud(ip, ip->mlid, MPD_QPN_MCAST, ip->mgid, b, sizeof(b),
		       out);
}

static struct hca_ipoib_neigh *
neigh_find(struct hca_ipoib *ip, const uint8_t ip4[4])
{
	unsigned int i;

	for (i = 0; i < HCA_IPOIB_NEIGH; i++)
		if (ip->neigh[i].used && !memcmp(ip->neigh[i].ip4, ip4, 4))
			return &ip->neigh[i];
	return NULL;
}

/* A destination the broadcast group takes: the limited broadcast, the
 * node's /16's (netns.c gives that mask), any IPv4 group */
static bool
to_group(const struct hca_ipoib *ip, const uint8_t d[4])
{
	const uint8_t *a = ip->port->ip4;

	return (d[0] & 0xf0) == 0xe0 ||
	       (d[0] == 255 && d[1] == 255 && d[2] == 255 && d[3] == 255) ||
	       (d[0] == a[0] && d[1] == a[1] && d[2] == 255 && d[3] == 255);
}

/* An IPv4 packet at b + HCA_IPOIB_HDR, n bytes: sent, or kept for ARP */
static void
send_ip(struct hca_ipoib *ip, uint8_t *b, uint32_t n, uint64_t now,
	struct hca_v_out *out)
{
	const uint8_t *dst = b + HCA_IPOIB_HDR + 16;
	struct hca_ipoib_neigh *nb;
	struct hca_ipoib_pend *q = NULL;
	unsigned int i;

	if (n < 20 || (b[HCA_IPOIB_HDR] >> 4) != 4) {
		ip->dropped++;		/* IPv6 and the rest: not carried */
		return;
	}
	hca_ipoib_put_hdr(b, HCA_IPOIB_ET_IP4);
	if (to_group(ip, dst)) {
		if (send_ud(ip, ip->mlid, MPD_QPN_MCAST, ip->mgid, b,
			    HCA_IPOIB_HDR + n, out))
			ip->from_host++;
		else
			ip->dropped++;
		return;
	}
	nb = neigh_find(ip, dst);
	if (nb) {
		if (send_ud(ip, nb->lid, nb->hw.qpn, NULL, b, HCA_IPOIB_HDR + n,
			    out))
			ip->from_host++;
		else
			ip->dropped++;
		return;
	}
	/* wait for the address: one ARP per destination a second */
	for (i = 0; i < HCA_IPOIB_PEND && (!q || q->used); i++)
		if (!ip->pend[i].used)
			q = &ip->pend[i];
	if (!q || q->used) {
		ip->dropped++;
		return;
	}
	q->used = true;
	memcpy(q->ip4, dst, 4);
	q->len = (uint16_t)(HCA_IPOIB_HDR + n);
	memcpy(q->buf, b, q->len);
	q->since_ns = now;
	q->arp_ns = 0;
	for (i = 0; i < HCA_IPOIB_PEND; i++)
		if (&ip->pend[i] != q && ip->pend[i].used &&
		    !memcmp(ip->pend[i].ip4, dst, 4))
			q->arp_ns = ip->pend[i].arp_ns;
}

/* Pending packets: sent once their address is known, ARPed for again,
 * dropped after PEND_NS */
static void
pend_poll(struct hca_ipoib *ip, uint64_t now, struct hca_v_out *out)
{
	struct hca_ipoib_pend *q;
	struct hca_ipoib_neigh *nb;
	unsigned int i, j;

	for (i = 0; i < HCA_IPOIB_PEND; i++) {
		q = &ip->pend[i];
		if (!q->used)
			continue;
		nb = neigh_find(ip, q->ip4);
		if (nb) {
			if (!out->room)
				return;
			if (send_ud(ip, nb->lid, nb->hw.qpn, NULL, q->buf,
				    q->len, out))
				ip->from_host++;
			else
				ip->dropped++;
			q->used = false;
			continue;
		}
		if (now - q->since_ns > PEND_NS) {
			q->used = false;
			ip->dropped++;
			continue;
		}
		if (q->arp_ns && now - q->arp_ns < ARP_RETRY_NS)
			continue;
		if (!send_arp(ip, 1, q->ip4, NULL, out))
			return;
		for (j = 0; j < HCA_IPOIB_PEND; j++)
			if (ip->pend[j].used &&
			    !memcmp(ip->pend[j].ip4, q->ip4, 4))
				ip->pend[j].arp_ns = now;
	}
}

void
hca_ipoib_poll(struct hca_ipoib *ip, uint64_t now, struct hca_v_out *out)
{
	uint8_t b[HCA_IPOIB_HDR + HCA_IPOIB_MTU];
	ssize_t n;

	ip->now_ns = now;
	if (ip->fd < 0)
		return;
	if (ip->state == HCA_IPOIB_JOINED)
		pend_poll(ip, now, out);
	while (out->room) {
		n = read(ip->fd, b + HCA_IPOIB_HDR, HCA_IPOIB_MTU);
		if (n <= 0)
			break;
		/* no group yet, no link: the packet is lost, as on a host
		 * whose IPoIB interface has no carrier */
		if (ip->state != HCA_IPOIB_JOINED) {
			ip->dropped++;
			continue;
		}
		send_ip(ip, b, (uint32_t)n, now, out);
	}
}

/* ---- receiving ---- */

static void
learn(struct hca_ipoib *ip, const struct hca_ipoib_arp *a, uint16_t slid,
      uint64_t now)
{
	struct hca_ipoib_neigh *nb = neigh_find(ip, a->spa), *old = NULL;
	unsigned int i;

	for (i = 0; !nb && i < HCA_IPOIB_NEIGH; i++) {
		if (!ip->neigh[i].used) {
			nb = &ip->neigh[i];
			break;
		}
		if (!old || ip->neigh[i].seen_ns < old->seen_ns)
			old = &ip->neigh[i];
	}
	if (!nb)
		nb = old;
	nb->used = true;
	memcpy(nb->ip4, a->spa, 4);
	nb->hw = a->sha;
	nb->lid = slid;
	nb->seen_ns = now;
}

static void
arp_input(struct hca_ipoib *ip, const uint8_t *p, uint32_t len, uint16_t slid,
	  uint64_t now, struct hca_v_out *out)
{
	const uint8_t *me = ip->port->ip4;
	struct hca_ipoib_arp a;
	struct hca_ipoib_neigh *nb;

	if (!hca_ipoib_arp_decode(p, len, &a) || !memcmp(a.spa, me, 4) ||
	    !slid || slid >= MPD_LID_MCAST_LO) {
		ip->dropped++;
		return;
	}
	/* RFC 826: an entry is refreshed by any ARP, made by one for us */
	if (neigh_find(ip, a.spa) || !memcmp(a.tpa, me, 4))
		learn(ip, &a, slid, now);
	if (a.op != 1 || memcmp(a.tpa, me, 4))
		return;
	nb = neigh_find(ip, a.spa);
	if (nb)
		send_arp(ip, 2, a.spa, nb, out);
}

bool
hca_ipoib_input(struct hca_ipoib *ip, const struct mpd_pkt *pk, uint64_t now,
		struct hca_v_out *out)
{
	bool mcast = pk->bth.dest_qp == MPD_QPN_MCAST;
	const uint8_t *pl = pk->payload;
	uint32_t len = (uint32_t)pk->payload_len;

	if (ip->fd < 0 || (!mcast && pk->bth.dest_qp != HCA_IPOIB_QPN))
		return false;
	if (mcast && (ip->state != HCA_IPOIB_JOINED ||
		      pk->lrh.dlid != ip->mlid || !pk->has_grh ||
		      memcmp(pk->grh.dgid, ip->mgid, 16)))
		return false;
	ip->now_ns = now;
	if (ip->state != HCA_IPOIB_JOINED ||
	    pk->bth.opcode != MPD_OP_UD_SEND_ONLY ||
	    pk->deth.qkey != ip->qkey || (pk->bth.pkey & 0x7fff) != 0x7fff) {
		ip->dropped += !mcast;
		return !mcast;
	}
	/* our own broadcast, looped back to the port */
	if (mcast && pk->lrh.slid == ip->port->lid &&
	    pk->deth.src_qp == HCA_IPOIB_QPN)
		return false;
	switch (hca_ipoib_type(pl, len)) {
	case HCA_IPOIB_ET_IP4:
		if (len > HCA_IPOIB_HDR &&
		    write(ip->fd, pl + HCA_IPOIB_HDR, len - HCA_IPOIB_HDR) ==
		    (ssize_t)(len - HCA_IPOIB_HDR))
			ip->to_host++;
		else
			ip->dropped++;
		break;
	case HCA_IPOIB_ET_ARP:
		arp_input(ip, pl + HCA_IPOIB_HDR, len - HCA_IPOIB_HDR,
			  pk->lrh.slid, now, out);
		break;
	default:
		ip->dropped++;
	}
	return !mcast;
}
