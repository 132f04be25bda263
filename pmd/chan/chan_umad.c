/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The umad service of the channel: agent registration, the port's
 * attributes, and the MADs in the two rings, each record a struct
 * ib_user_mad (64 bytes) and its data, as the kernel's ib_umad reads and
 * writes them. It is the MAD layer's client: deliveries land in the
 * session's receive ring, and the session's shares are published to it.
 */
#include <errno.h>
#include <string.h>

#include <rte_log.h>

#include "madpmd/mad.h"
#include "madpmd/records.h"
#include "chan_priv.h"

_Static_assert(MPD_CHAN_MAX_AGENTS == HCA_MAD_AGENTS,
	       "a umad fd's agents are the MAD layer client's");

#define UMAD_HDR	((uint32_t)sizeof(struct hca_mad_desc))

/* What the session's client may count on (madpmd/chan.h): sends taken
 * that hold no share any more. Written only, never read back. */
static void
publish_shares(struct hca_session *s)
{
	struct mpd_chan_shm *h = s->shm;

	__atomic_store_n(&h->share_done[MPD_CHAN_SHARE_OUT],
			 s->posted[MPD_CHAN_SHARE_OUT] - s->mc.out_held,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&h->share_done[MPD_CHAN_SHARE_XFER],
			 s->posted[MPD_CHAN_SHARE_XFER] - s->mc.xfer_send_held,
			 __ATOMIC_RELEASE);
}

static bool
umad_deliver(struct hca_mad_client *c, const struct hca_mad_desc *d,
	     const uint8_t *mad, uint32_t len)
{
	struct hca_session *s = chan_session_of(c);
	struct hca_chan *ch = s->ch;
	bool wake;
	int rc;

	if (c->dead)
		return false;
	rc = mpd_ring_put_wake(&s->rx, MPD_CHAN_REC_UMAD, d, UMAD_HDR, mad, len,
			       &wake);
	if (rc == -EBADMSG)
		chan_session_kill(s, "garbage in its receive ring's tail");
	if (rc)
		return false;
	hca_rec_umad(ch->cfg.rec, ch->cfg.port, (uint32_t)s->pid, s->mc.id,
		     MPD_REC_UMAD_RECV, d, mad, len);
	/* a client with records still queued is awake or will see this one
	 * before it sleeps; so is one spinning on the ring (loaded after the
	 * fence in mpd_ring_put_wake(), madpmd/chan.h): a system call per
	 * MAD saved */
	if (wake && !__atomic_load_n(&((struct mpd_chan_shm *)s->shm)->rx_awake,
				     __ATOMIC_ACQUIRE))
		chan_wake_mark(ch, s);
	return true;
}

static void
umad_credit(struct hca_mad_client *c)
{
	struct hca_session *s = chan_session_of(c);

	if (s->shm)
		publish_shares(s);
}

static const struct hca_mad_client_ops umad_client_ops = {
	.deliver = umad_deliver,
	.credit = umad_credit,
};

/* One send from the ring: false cuts the client off. */
static bool
umad_rec(struct hca_chan *ch, struct hca_session *s, const uint8_t *rec,
	 uint32_t len, uint64_t now_ns, struct hca_mad_out *out)
{
	struct hca_mad_desc d;
	enum mpd_chan_share share;
	uint32_t mlen;

	if (len < UMAD_HDR + MPD_MAD_HDR_LEN) {
		chan_session_kill(s, "a send shorter than a MAD header");
		return false;
	}
	memcpy(&d, rec, UMAD_HDR);
	if (d.agent_id >= HCA_MAD_AGENTS || !s->mc.agent[d.agent_id].used) {
		chan_session_kill(s, "a send for an agent it does not hold");
		return false;
	}
	/* as the kernel's write(): the record's size, not hdr.length */
	mlen = len - UMAD_HDR;
	hca_rec_umad(ch->cfg.rec, ch->cfg.port, (uint32_t)s->pid, s->mc.id,
		     MPD_REC_UMAD_SEND, rec, rec + UMAD_HDR, mlen);
	share = mpd_chan_send_share(rec + UMAD_HDR, mlen,
				    s->mc.agent[d.agent_id].rmpp_version != 0,
				    d.timeout_ms);
	s->posted[share]++;
	hca_mad_send(ch->cfg.ml, &s->mc, &d, rec + UMAD_HDR, mlen, now_ns, out);
	if (share != MPD_CHAN_SHARE_NONE)
		publish_shares(s);
	return true;
}

void
hca_chan_port_info(const struct hca_chan *ch, struct mpd_chan_port_info *pi)
{
	const struct hca_port *p = ch->cfg.port;

	memset(pi, 0, sizeof(*pi));
	snprintf(pi->ca_name, sizeof(pi->ca_name), "%.*s",
		 (int)sizeof(pi->ca_name) - 1, p->node_name);
	memcpy(pi->node_desc, p->node_desc, sizeof(pi->node_desc));
	pi->node_guid = p->node_guid;
	pi->sys_guid = p->sys_guid;
	pi->port_guid = p->port_guid;
	pi->gid_prefix = p->gid_prefix;
	pi->node_type = ch->cfg.node_type;
	pi->num_ports = p->num_ports;
	pi->port_num = p->port_num;
	pi->lid = p->lid;
	pi->lmc = p->lmc;
	pi->sm_lid = p->sm_lid;
	pi->sm_sl = p->sm_sl;
	pi->state = p->port_state;
	pi->phys_state = p->phys_state;
	pi->rate = hca_port_rate_mbps(p) / 1000;	/* Gb/s, as sysfs */
	pi->capmask = hca_sma_cap_mask(p);
	pi->link_layer = p->link == MPD_LINK_IB ? 0 : 1;
	pi->fw_ver = 1;
	pi->num_pkeys = HCA_PKEY_TABLE_LEN;
	memcpy(pi->pkeys, p->pkeys, sizeof(pi->pkeys));
	pi->width_active = p->link_width_active;
	pi->speed_active = p->link_speed_active;
	pi->mtu_cap = p->mtu_cap;
	pi->neighbor_mtu = p->neighbor_mtu;
	pi->vl_cap = p->vl_cap;
	pi->subnet_timeout = p->subnet_timeout;
	memcpy(pi->ip4, p->ip4, sizeof(pi->ip4));
}

static int
umad_register(struct hca_chan *ch, struct hca_session *s,
	      struct mpd_chan_msg *m)
{
	const struct mpd_chan_register_req *q = &m->u.reg_req;
	struct hca_mad_agent_req r = {
		.mgmt_class = q->mgmt_class,
		.class_version = q->class_version,
		.rmpp_version = q->rmpp_version,
		.qpn = q->qpn,
		.method_mask = { q->method_mask[0], q->method_mask[1] },
		.oui = q->oui,
	};
	uint32_t id;
	int rc;

	rte_spinlock_lock(ch->cfg.lock);
	rc = hca_mad_agent_register(ch->cfg.ml, &s->mc, &r, &id);
	rte_spinlock_unlock(ch->cfg.lock);
	if (rc)
		return rc;
	m->u.reg_rep.agent_id = id;
	m->len = sizeof(m->u.reg_rep);
	return 0;
}

static int
umad_unregister(struct hca_chan *ch, struct hca_session *s,
		struct mpd_chan_msg *m)
{
	int rc;

	rte_spinlock_lock(ch->cfg.lock);
	rc = hca_mad_agent_unregister(ch->cfg.ml, &s->mc,
				      m->u.unreg_req.agent_id);
	rte_spinlock_unlock(ch->cfg.lock);
	m->len = 0;
	return rc;
}

static int
umad_port_info(struct hca_chan *ch, struct hca_session *s,
	       struct mpd_chan_msg *m)
{
	(void)s;
	rte_spinlock_lock(ch->cfg.lock);
	hca_chan_port_info(ch, &m->u.port);
	rte_spinlock_unlock(ch->cfg.lock);
	m->len = sizeof(m->u.port);
	return 0;
}

static int
umad_resolve(struct hca_chan *ch, struct hca_session *s,
	     struct mpd_chan_msg *m)
{
	struct hca_neigh n;
	int rc = 0;

	(void)s;
	rte_spinlock_lock(ch->cfg.lock);
	if (ch->cfg.port->link == MPD_LINK_IB)
		rc = EINVAL;
	else if (!hca_port_resolve(ch->cfg.port, m->u.resolve_req.gid, &n))
		rc = EHOSTUNREACH;
	rte_spinlock_unlock(ch->cfg.lock);
	m->len = 0;
	return rc;
}

static const struct hca_chan_handler umad_handlers[] = {
	{ MPD_CHAN_REGISTER, umad_register },
	{ MPD_CHAN_UNREGISTER, umad_unregister },
	{ MPD_CHAN_PORT_INFO, umad_port_info },
	{ MPD_CHAN_RESOLVE, umad_resolve },
	{ 0, NULL },
};

const struct hca_chan_service hca_chan_umad = {
	.rec_kind = MPD_CHAN_REC_UMAD,
	.handlers = umad_handlers,
	.client_ops = &umad_client_ops,
	.rec = umad_rec,
};
