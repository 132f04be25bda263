/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MAD layer's entry points (mad_layer.h): what comes in from the wire
 * or from the port itself, what clients send, and time. Requests go to the
 * port's own agents first, then to the client agent registered for their
 * class/version/method (+OUI); responses to the agent whose outstanding
 * send they answer (TID bits 63..32 name the agent, rewritten on send);
 * a Get or Set nobody takes is answered "unsupported" at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <endian.h>

#include "mad_priv.h"

void
hca_mad_layer_init(struct hca_mad_layer *ml, struct hca_port *p)
{
	memset(ml, 0, sizeof(*ml));
	ml->port = p;
	TAILQ_INIT(&ml->clients);
}

void
hca_mad_layer_init_mgmt(struct hca_mad_layer *ml, struct hca_port *p)
{
	hca_mad_layer_init(ml, p);
	ml->mgmt = true;
}

int
hca_mad_client_init(struct hca_mad_client *c,
		    const struct hca_mad_client_ops *ops, uint32_t pid,
		    uint32_t id)
{
	memset(c, 0, offsetof(struct hca_mad_client, sent));
	c->ops = ops;
	c->pid = pid;
	c->id = id;
	if (mad_out_pool_init(c) != 0 || mad_xfer_pool_init(c) != 0) {
		hca_mad_client_fini(c);
		return ENOMEM;
	}
	return 0;
}

void
hca_mad_client_fini(struct hca_mad_client *c)
{
	free(c->out);
	c->out = NULL;
	mad_xfer_pool_fini(c);
}

void
hca_mad_client_attach(struct hca_mad_layer *ml, struct hca_mad_client *c)
{
	TAILQ_INSERT_TAIL(&ml->clients, c, next);
}

/* End the client's waiting sends (of one agent, or all when agent < 0). */
static void
out_end(struct hca_mad_layer *ml, struct hca_mad_client *c, int64_t agent)
{
	unsigned int i;

	for (i = 0; c->out && i < HCA_MAD_CLIENT_OUT; i++)
		if (c->out[i].used &&
		    (agent < 0 || c->out[i].agent == (uint32_t)agent))
			mad_out_free(ml, &c->out[i]);
}

void
hca_mad_client_detach(struct hca_mad_layer *ml, struct hca_mad_client *c)
{
	c->dead = true;
	out_end(ml, c, -1);
	mad_xfer_end(c, -1);
	TAILQ_REMOVE(&ml->clients, c, next);
}

/* IBA 13.4.5 / the kernel's ib_mad: a (class, version, method) is served
 * by one agent per port; the vendor range-2 classes add the OUI. */
static bool
agents_conflict(const struct hca_mad_agent *a,
		const struct hca_mad_agent_req *r)
{
	if (!a->used || !a->mgmt_class || a->mgmt_class != r->mgmt_class ||
	    a->class_version != r->class_version)
		return false;
	if (r->mgmt_class >= MPD_CLASS_VENDOR_R2_LO &&
	    r->mgmt_class <= MPD_CLASS_VENDOR_R2_HI && a->oui != r->oui)
		return false;
	return (a->method_mask[0] & r->method_mask[0]) ||
	       (a->method_mask[1] & r->method_mask[1]);
}

int
hca_mad_agent_register(struct hca_mad_layer *ml, struct hca_mad_client *c,
		       const struct hca_mad_agent_req *r, uint32_t *pid)
{
	struct hca_mad_client *o;
	struct hca_mad_agent *a;
	unsigned int i, id;

	if (r->rmpp_version > 1 || r->qpn > 1 || r->oui >> 24 ||
	    (r->mgmt_class == 0 && (r->method_mask[0] | r->method_mask[1])))
		return EINVAL;
	/* RMPP only where the class carries an RMPP header (IBA 13.6.1) */
	if (r->rmpp_version && r->mgmt_class &&
	    !mpd_class_has_rmpp(r->mgmt_class))
		return EINVAL;
	TAILQ_FOREACH(o, &ml->clients, next)
		for (i = 0; i < HCA_MAD_AGENTS; i++)
			if (!o->dead && agents_conflict(&o->agent[i], r))
				return EINVAL;
	for (id = 0; id < HCA_MAD_AGENTS; id++)
		if (!c->agent[id].used)
			break;
	if (id == HCA_MAD_AGENTS)
		return ENOMEM;
	a = &c->agent[id];
	a->used = true;
	a->mgmt_class = r->mgmt_class;
	a->class_version = r->class_version;
	a->rmpp_version = r->rmpp_version;
	a->qpn = r->qpn;
	a->method_mask[0] = r->method_mask[0];
	a->method_mask[1] = r->method_mask[1];
	a->oui = r->oui;
	a->hi_tid = ++ml->next_hi_tid;
	*pid = id;
	return 0;
}

int
hca_mad_agent_unregister(struct hca_mad_layer *ml, struct hca_mad_client *c,
			 uint32_t id)
{
	if (id >= HCA_MAD_AGENTS || !c->agent[id].used)
		return EINVAL;
	out_end(ml, c, id);
	mad_xfer_end(c, id);
	memset(&c->agent[id], 0, sizeof(c->agent[id]));
	return 0;
}

/* ---- receiving ---------------------------------------------------------- */

/*
 * A Get or Set no agent takes: GetResp with "unsupported method/attribute"
 * (IBA 13.4.7), as the kernel's generate_unmatched_resp(), so that the
 * requester hears at once instead of waiting out its time-out.
 */
static enum hca_reply
mad_input(struct hca_mad_layer *ml, const struct mpd_pkt *pk, uint8_t *mad,
	  uint64_t now_ns)
{
	struct hca_port *p = ml->port;
	uint32_t qp = pk->bth.dest_qp;
	enum hca_reply r;

	/* the port's own agents first (IBA 13.5.2), but SMInfo is for an SM
	 * registered on the port */
	if (!ml->mgmt && !(qp == 0 && hca_mad_smp_for_client(ml, mad))) {
		r = hca_node_agent(p, qp, mad, pk, now_ns);
		if (r != HCA_NOT_MINE)
			return r;
	}
	/* the stack runs RMPP for agents that asked (IBA 13.6) */
	if (mpd_class_has_rmpp(mpd_mad_class(mad)) &&
	    mpd_rmpp_is_active(mad, MPD_MAD_LEN)) {
		if (mad_xfer_input(ml, pk, mad, now_ns))
			return HCA_NO_REPLY;
	} else if (mad_deliver(ml, pk, mad, MPD_MAD_LEN)) {
		return HCA_NO_REPLY;
	}
	if (mpd_mad_is_get_set(mad))
		return hca_node_unmatched(p, mad);
	p->cnt.drop_no_agent++;
	return HCA_NO_REPLY;
}

enum hca_reply
hca_mad_input(struct hca_mad_layer *ml, const struct mpd_pkt *pk,
	      uint8_t *mad, uint64_t now_ns)
{
	bool dr = !ml->mgmt && pk->bth.dest_qp == 0 &&
		  mpd_mad_class(mad) == MPD_CLASS_SUBN_DR;
	enum hca_reply r;

	/* the end port's SMI (IBA 14.2.2.2), before anyone sees it; a
	 * switch's port 0 has had the switch's */
	if (dr && !hca_port_dr_recv(ml->port, mad)) {
		ml->port->cnt.drop_bad_header++;
		return HCA_NO_REPLY;
	}
	r = mad_input(ml, pk, mad, now_ns);
	/* a DR response leaves with the pointer at the count (C14-13:1) */
	if (r == HCA_REPLY && dr)
		hca_port_dr_reply(mad);
	return r;
}

/* ---- sending ------------------------------------------------------------ */

/* Directed-route send-side processing at a CA port (IBA 14.2.2.2, as the
 * kernel's smi_handle_dr_smp_send()): a request starts its path (C14-9:1);
 * a client's response to a DR request it got leaves with the pointer at
 * the count (C14-13:1), or 0 when there was no hop (C14-13:3). An SMP
 * whose first leg is LID-routed (a request with a DrSLID, a response with
 * a DrDLID: IBA 14.2.2.3) leaves as it is: the switch at the end of that
 * leg takes the directed part (the kernel's handle_outgoing_dr_smp()).
 * False when the SMP cannot leave by this port. */
static bool
dr_send(const struct hca_port *p, uint8_t *mad)
{
	uint8_t ptr = mad[MPD_SMP_OFF_HOP_PTR], cnt = mad[MPD_SMP_OFF_HOP_CNT];
	bool d = mad[MPD_MAD_OFF_STATUS] & (MPD_SMP_STATUS_D >> 8);

	if (cnt > MPD_SMP_MAX_HOPS)
		return false;
	if (mpd_get_be16(mad + (d ? MPD_SMP_OFF_DR_DLID
				  : MPD_SMP_OFF_DR_SLID)) != MPD_LID_PERMISSIVE)
		return true;
	if (!d) {
		if (cnt == 0 || ptr != 0)
			return ptr == 0;	/* hop count 0: local */
		mad[MPD_SMP_OFF_HOP_PTR] = 1;
		return mad[MPD_SMP_OFF_INIT_PATH + 1] == p->port_num;
	}
	if (cnt && ptr == cnt + 1) {
		mad[MPD_SMP_OFF_HOP_PTR] = cnt;
		return mad[MPD_SMP_OFF_RET_PATH + cnt] == p->port_num;
	}
	if (ptr == 1) {
		mad[MPD_SMP_OFF_HOP_PTR] = 0;
		return mpd_get_be16(mad + MPD_SMP_OFF_DR_SLID) ==
		       MPD_LID_PERMISSIVE;
	}
	return ptr == 0;
}

/* Where a send goes: true when to the port itself (no wire). */
static bool
is_local(const struct hca_mad_layer *ml, const uint8_t *mad,
	 const struct mpd_pkt *pk)
{
	const struct hca_port *p = ml->port;
	uint16_t dlid = pk->lrh.dlid;

	/* a switch's port 0: the switch routes it, even back here */
	if (ml->mgmt)
		return false;
	if (p->link != MPD_LINK_IB)
		return !memcmp(pk->eth.dst, p->mac, sizeof(p->mac));
	if (mpd_mad_class(mad) == MPD_CLASS_SUBN_DR &&
	    !(mad[MPD_MAD_OFF_STATUS] & (MPD_SMP_STATUS_D >> 8)) &&
	    mad[MPD_SMP_OFF_HOP_CNT] == 0)
		return true;
	return hca_port_owns_lid(p, dlid);
}

/*
 * RoCEv2 carries the GRH's addresses in IP (IBA A17.4): the destination
 * GID is resolved through the fabric's address table, never by asking the
 * network. A send without a GRH cannot be addressed (the kernel's
 * ib_resolve_eth_dmac(): EINVAL), nor one to a GID nobody has.
 */
static int
roce_from_desc(const struct hca_port *p, const struct hca_mad_desc *d,
	       struct mpd_pkt *pk)
{
	struct hca_neigh n;

	if (!d->grh_present)
		return EINVAL;
	if (!hca_port_resolve(p, d->gid, &n))
		return EHOSTUNREACH;
	memcpy(pk->eth.dst, n.mac, 6);
	memcpy(pk->eth.src, p->mac, 6);
	pk->ip_ver = 4;
	pk->ip4.tos = d->traffic_class;
	pk->ip4.ttl = d->hop_limit ? d->hop_limit : 64;
	pk->ip4.frag = 0x4000;		/* don't fragment */
	memcpy(pk->ip4.src, p->ip4, 4);
	memcpy(pk->ip4.dst, n.ip4, 4);
	/* the source port spreads flows (RoCEv2 annex): from the QPs */
	pk->udp.sport = (uint16_t)(0xc000 | ((be32toh(d->qpn) * 31u +
					      d->agent_id) & 0x3fff));
	pk->udp.dport = MPD_ROCE_UDP_PORT;
	return 0;
}

/* A send's headers: 0, or the errno it is handed back with. */
static int
pkt_from_desc(const struct hca_port *p, const struct hca_mad_desc *d,
	      const struct hca_mad_agent *a, const uint8_t *mad,
	      struct mpd_pkt *pk)
{
	uint16_t dlid = be16toh(d->lid);
	bool dr = mpd_mad_class(mad) == MPD_CLASS_SUBN_DR;
	int rc;

	memset(pk, 0, sizeof(*pk));
	pk->link = p->link;
	if (p->link == MPD_LINK_ROCE_V2 && (rc = roce_from_desc(p, d, pk)))
		return rc;
	pk->lrh.vl = a->qpn == 0 ? MPD_VL15 : 0;
	pk->lrh.sl = d->sl & 0xf;
	pk->lrh.dlid = dlid;
	/* an SMP whose directed part starts at us leaves permissive */
	if ((dr && mpd_get_be16(mad + MPD_SMP_OFF_DR_SLID) ==
		   MPD_LID_PERMISSIVE) || !p->lid)
		pk->lrh.slid = MPD_LID_PERMISSIVE;
	else
		pk->lrh.slid = (uint16_t)(p->lid | (d->path_bits &
					  ((1u << p->lmc) - 1)));
	if (d->grh_present && a->qpn && p->link == MPD_LINK_IB) {
		pk->has_grh = true;
		pk->grh.ip_ver = 6;
		pk->grh.tclass = d->traffic_class;
		pk->grh.flow_label = be32toh(d->flow_label) & 0xfffff;
		pk->grh.next_hdr = MPD_GRH_NEXT_HDR_IBA;
		pk->grh.hop_limit = d->hop_limit;
		mpd_put_be64(pk->grh.sgid, p->gid_prefix);
		mpd_put_be64(pk->grh.sgid + 8, p->port_guid);
		memcpy(pk->grh.dgid, d->gid, 16);
	}
	pk->bth.opcode = MPD_OP_UD_SEND_ONLY;
	pk->bth.pkey = a->qpn == 0 ? 0xffff :
		       p->pkeys[d->pkey_index % HCA_PKEY_TABLE_LEN];
	pk->bth.dest_qp = be32toh(d->qpn) & 0xffffff;
	pk->deth.qkey = a->qpn == 0 ? 0 : be32toh(d->qkey);
	pk->deth.src_qp = a->qpn;
	return 0;
}

/*
 * A MAD to the port itself goes the way a received one does (IBA 13.5.2:
 * the local SMA and PMA answer as if it came off the wire), and so does
 * the answer, back to the sender.
 */
static void
local_send(struct hca_mad_layer *ml, struct mpd_pkt *pk, uint8_t *mad,
	   uint64_t now_ns)
{
	struct hca_port *p = ml->port;

	/* as received: from our own LID, on our QP */
	pk->lrh.slid = p->lid ? p->lid : MPD_LID_PERMISSIVE;
	if (hca_mad_input(ml, pk, mad, now_ns) != HCA_REPLY)
		return;
	hca_port_reverse(p, pk, pk->bth.dest_qp);
	hca_mad_input(ml, pk, mad, now_ns);
}

/* A whole message for an RMPP agent (IBA 13.6): segmented by a transfer,
 * or handed over whole when it stays on this port. */
/* A whole message for an RMPP agent (IBA 13.6): segmented by a transfer,
 * or handed over whole when it stays on this port. Either way it is
 * copied once, into the transfer's slot (the ring is the client's to
 * scribble on), and the TID rewritten there. */
static int
send_rmpp(struct hca_mad_layer *ml, struct hca_mad_client *c,
	  const struct hca_mad_desc *d, const struct hca_mad_agent *a,
	  const uint8_t *mad, uint32_t len)
{
	struct hca_xfer *x;
	struct mpd_pkt pk;
	uint8_t *msg;
	int rc;

	if (!a->rmpp_version || !mpd_class_has_rmpp(mpd_mad_class(mad)) ||
	    len > MPD_RMPP_MAX_MSG)
		return EINVAL;	/* as the kernel's write() */
	x = mad_xfer_stage(c, len, &msg);
	if (!x) {
		ml->port->cnt.chan_quota++;
		return ENOMEM;
	}
	memcpy(msg, mad, len);
	if (!mpd_mad_is_response(msg))
		mpd_put_be64(msg + MPD_MAD_OFF_TID, (uint64_t)a->hi_tid << 32 |
			     (mpd_mad_tid(msg) & 0xffffffffu));
	rc = pkt_from_desc(ml->port, d, a, msg, &pk);
	if (rc) {
		mad_xfer_unstage(x);
		return rc;
	}
	c->sent++;
	if (is_local(ml, msg, &pk)) {
		pk.lrh.slid = ml->port->lid;
		if (!mad_deliver(ml, &pk, msg, len))
			ml->port->cnt.drop_no_agent++;
		mad_xfer_unstage(x);
		return 0;
	}
	return mad_xfer_start(ml, x, d, len, &pk);
}

/* A request with a time-out waits for its response in c's share. */
static int
send_wait(struct hca_mad_layer *ml, struct hca_mad_client *c,
	  const struct hca_mad_desc *d, const uint8_t *mad, uint64_t now_ns)
{
	struct hca_outstanding *o;

	/* the kernel's is_duplicate(): one send per TID in flight */
	if (mad_out_find(ml, mpd_mad_tid(mad), mpd_mad_class(mad)))
		return EINVAL;
	o = mad_out_alloc(ml, c, mpd_mad_tid(mad), mpd_mad_class(mad));
	if (!o) {
		ml->port->cnt.chan_quota++;
		return ENOMEM;
	}
	o->agent = d->agent_id;
	o->timeout_ms = d->timeout_ms;
	o->retries_left = d->retries;
	o->deadline = now_ns + d->timeout_ms * 1000000ull;
	o->desc = *d;
	memcpy(o->mad, mad, MPD_MAD_LEN);
	return 0;
}

int
hca_mad_send(struct hca_mad_layer *ml, struct hca_mad_client *c,
	     const struct hca_mad_desc *d, const uint8_t *msg, uint32_t len,
	     uint64_t now_ns, struct hca_mad_out *out)
{
	const struct hca_mad_agent *a = &c->agent[d->agent_id];
	struct hca_port *p = ml->port;
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_pkt pk;
	int rc;

	/* ib_umad_write(): RMPP when the agent and class have it and the
	 * client set Active, whatever the length (an empty SA table is just
	 * its headers) */
	if (len > MPD_MAD_LEN ||
	    (a->rmpp_version && len >= MPD_RMPP_END &&
	     mpd_class_has_rmpp(mpd_mad_class(msg)) &&
	     (msg[MPD_RMPP_OFF_FLAGS] & MPD_RMPP_FLAG_ACTIVE))) {
		rc = send_rmpp(ml, c, d, a, msg, len);
		goto out;
	}
	memset(mad, 0, sizeof(mad));
	memcpy(mad, msg, len);
	/* ib_umad: requests carry the agent's hi_tid in TID bits 63..32 */
	if (!mpd_mad_is_response(mad))
		mpd_put_be64(mad + MPD_MAD_OFF_TID, (uint64_t)a->hi_tid << 32 |
			     (mpd_mad_tid(mad) & 0xffffffffu));
	if (mpd_mad_class(mad) == MPD_CLASS_SUBN_DR &&
	    (ml->mgmt ? mad[MPD_SMP_OFF_HOP_CNT] > MPD_SMP_MAX_HOPS :
			!dr_send(p, mad))) {
		c->dropped++;
		return 0;
	}
	rc = pkt_from_desc(p, d, a, mad, &pk);
	if (rc)
		goto out;
	if (d->timeout_ms && !mpd_mad_is_response(mad)) {
		rc = send_wait(ml, c, d, mad, now_ns);
		if (rc)
			goto out;
	}
	c->sent++;
	if (is_local(ml, mad, &pk))
		local_send(ml, &pk, mad, now_ns);
	else
		mad_emit(out, &pk, mad);
	return 0;
out:
	if (rc)
		mad_hand_back(c, d, msg, (uint32_t)rc);
	return rc;
}

/* Resend what timed out; hand back what has no retries left. */
static void
run_timeouts(struct hca_mad_layer *ml, uint64_t now_ns,
	     struct hca_mad_out *out)
{
	struct hca_mad_client *c, *tmp;
	unsigned int i;

	if (now_ns < ml->next_timeout_ns || !ml->out_used)
		return;
	ml->next_timeout_ns = now_ns + 1000000u;
	/* a local answer may end its client's sends: walk safely */
	for (c = TAILQ_FIRST(&ml->clients); c && out->room; c = tmp) {
		tmp = TAILQ_NEXT(c, next);
		for (i = 0; c->out_held && i < HCA_MAD_CLIENT_OUT &&
			    out->room; i++) {
			struct hca_outstanding *o = &c->out[i];
			uint8_t mad[MPD_MAD_LEN];
			struct mpd_pkt pk;

			if (!o->used || now_ns < o->deadline)
				continue;
			if (!o->retries_left) {
				mad_hand_back(c, &o->desc, o->mad, ETIMEDOUT);
				mad_out_free(ml, o);
				continue;
			}
			o->retries_left--;
			o->deadline = now_ns + o->timeout_ms * 1000000ull;
			memcpy(mad, o->mad, sizeof(mad));
			if (pkt_from_desc(ml->port, &o->desc,
					  &c->agent[o->agent], mad, &pk))
				continue;	/* not addressable now */
			if (is_local(ml, mad, &pk))
				local_send(ml, &pk, mad, now_ns);
			else
				mad_emit(out, &pk, mad);
		}
	}
}

bool
hca_mad_timers(const struct hca_mad_layer *ml)
{
	const struct hca_mad_client *c;

	if (ml->out_used)
		return true;
	TAILQ_FOREACH(c, &ml->clients, next)
		if (c->xfer_held)
			return true;
	return false;
}

void
hca_mad_poll(struct hca_mad_layer *ml, uint64_t now_ns,
	     struct hca_mad_out *out)
{
	run_timeouts(ml, now_ns, out);
	if (out->room)
		mad_xfer_poll(ml, now_ns, out);
}
