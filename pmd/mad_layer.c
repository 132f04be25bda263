/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MAD layer between the port and its clients, with the kernel's
 * ib_mad/ib_umad semantics: requests go to the agent registered for their
 * class/version/method (+OUI), responses to the agent whose outstanding
 * send they answer (TID bits 63..32 name the agent, rewritten on send);
 * sends with a time-out are resent, then handed back with status
 * ETIMEDOUT; MADs to the port itself never touch the wire. It runs on the
 * lcore inside rx_burst/tx_burst, with hi->lock held.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "madpmd/mad.h"
#include "madpmd/records.h"
#include "umad_srv.h"

#define UMAD_HDR	64	/* struct ib_user_mad */
#define QP1_QKEY	0x80010000u
#define SEND_BUDGET	32	/* records per session per burst */

/* struct ib_user_mad and ib_mad_addr, as rdma-core lays them out */


/* An RMPP sender's wait for each ACK when the client gave no time-out
 * (an SA answering): OpenSM's own default transaction time-out. */
#define RMPP_ACK_DEFAULT_MS	200u

/* IBA 13.4.5 and the kernel's ib_response_mad() */
static bool
is_response(const uint8_t *mad)
{
	return (mad[3] & MPD_METHOD_RESP) || mad[3] == MPD_METHOD_TRAP_REPRESS;
}

static uint64_t
mad_tid(const uint8_t *mad)
{
	return mpd_get_be64(mad + 8);
}

static void
notify(struct hca_session *s)
{
	uint64_t one = 1;

	if (write(s->efd, &one, sizeof(one)) < 0) {
		/* the counter is saturated: the client is readable anyway */
	}
}

/* Queue one record for a client; false when its ring is full. */
static bool
to_client(struct hca_session *s, const struct umad_hdr *h, const uint8_t *mad,
	  uint32_t len)
{
	bool wake;
	int rc = mpd_ring_put_wake(&s->rx, MPD_CHAN_REC_UMAD, h, UMAD_HDR, mad, len,
				   &wake);

	if (rc) {
		s->dropped++;
		return false;
	}
	s->received++;
	hca_rec_umad(s->hi, s, MPD_REC_UMAD_RECV, h, mad, len);
	/* a client with records still queued is awake or will see this one
	 * before it sleeps: a system call per MAD saved */
	if (wake)
		notify(s);
	return true;
}

static uint16_t
pkey_index(const struct hca_port *p, uint16_t pkey)
{
	unsigned int i;

	for (i = 0; i < HCA_PKEY_TABLE_LEN; i++)
		if ((p->pkeys[i] & 0x7fff) == (pkey & 0x7fff))
			return (uint16_t)i;
	return 0;
}

static void
addr_from_pkt(const struct hca_port *p, const struct mpd_pkt *pk,
	      struct umad_hdr *h)
{
	h->qpn = rte_cpu_to_be_32(pk->deth.src_qp);
	h->qkey = rte_cpu_to_be_32(pk->deth.qkey);
	h->lid = rte_cpu_to_be_16(pk->lrh.slid);
	h->sl = pk->lrh.sl;
	h->path_bits = (uint8_t)(pk->lrh.dlid & ((1u << p->lmc) - 1));
	h->pkey_index = pkey_index(p, pk->bth.pkey);
	if (pk->has_grh) {
		h->grh_present = 1;
		h->hop_limit = pk->grh.hop_limit;
		h->traffic_class = pk->grh.tclass;
		memcpy(h->gid, pk->grh.sgid, 16);
		h->flow_label = rte_cpu_to_be_32(pk->grh.flow_label);
	}
}

static uint32_t
out_bucket(uint64_t tid, uint8_t cls)
{
	uint64_t h = (tid ^ (tid >> 29) ^ cls) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 40) & (HCA_OUT_BUCKETS - 1);
}

void
hca_out_init(struct hca_umad_srv *srv)
{
	unsigned int i;

	for (i = 0; i < HCA_OUT_BUCKETS; i++)
		srv->out_bucket[i] = -1;
	for (i = 0; i < HCA_MAX_OUTSTANDING; i++) {
		srv->out[i].used = false;
		srv->out[i].next = i + 1 < HCA_MAX_OUTSTANDING ? (int32_t)i + 1
							       : -1;
	}
	srv->out_free = 0;
	srv->out_used = 0;
}

static struct hca_outstanding *
find_outstanding(struct hca_umad_srv *srv, uint64_t tid, uint8_t cls)
{
	int32_t i = srv->out_bucket[out_bucket(tid, cls)];

	for (; i >= 0; i = srv->out[i].next) {
		struct hca_outstanding *o = &srv->out[i];

		if (o->tid == tid && o->mgmt_class == cls)
			return o;
	}
	return NULL;
}

/* A free entry hashed under (tid, cls), or NULL when the table is full. */
static struct hca_outstanding *
outstanding_alloc(struct hca_umad_srv *srv, uint64_t tid, uint8_t cls)
{
	uint32_t b = out_bucket(tid, cls);
	int32_t i = srv->out_free;
	struct hca_outstanding *o;

	if (i < 0)
		return NULL;
	o = &srv->out[i];
	srv->out_free = o->next;
	memset(o, 0, offsetof(struct hca_outstanding, rec));
	o->used = true;
	o->tid = tid;
	o->mgmt_class = cls;
	o->next = srv->out_bucket[b];
	srv->out_bucket[b] = i;
	srv->out_used++;
	return o;
}

void
hca_out_free(struct hca_umad_srv *srv, struct hca_outstanding *o)
{
	int32_t i = (int32_t)(o - srv->out), *link;

	if (!o->used)
		return;
	link = &srv->out_bucket[out_bucket(o->tid, o->mgmt_class)];
	while (*link >= 0 && *link != i)
		link = &srv->out[*link].next;
	if (*link == i)
		*link = o->next;
	o->used = false;
	o->s = NULL;
	o->next = srv->out_free;
	srv->out_free = i;
	srv->out_used--;
}

/* The agent a request goes to (IBA 13.5.3.2 / ib_mad's find_mad_agent) */
static bool
find_agent(struct hca_umad_srv *srv, const uint8_t *mad,
	   struct hca_session **ps, uint32_t *pid)
{
	uint8_t cls = mad[1], ver = mad[2], method = mad[3] & 0x7f;
	bool vendor2 = cls >= MPD_CLASS_VENDOR_R2_LO &&
		       cls <= MPD_CLASS_VENDOR_R2_HI;
	uint32_t oui = (uint32_t)mad[37] << 16 | (uint32_t)mad[38] << 8 |
		       mad[39];
	struct hca_session *s;
	uint32_t i;

	TAILQ_FOREACH(s, &srv->sessions, next) {
		if (s->dead)
			continue;
		for (i = 0; i < MPD_CHAN_MAX_AGENTS; i++) {
			const struct hca_agent *a = &s->agent[i];

			if (!a->used || a->mgmt_class != cls ||
			    a->class_version != ver ||
			    !(a->method_mask[method / 64] &
			      (1ull << (method % 64))) ||
			    (vendor2 && a->oui != oui))
				continue;
			*ps = s;
			*pid = i;
			return true;
		}
	}
	return false;
}

bool
hca_mad_smp_for_agent(struct hca_internals *hi, const uint8_t *mad)
{
	struct hca_session *s;
	uint32_t id;

	/* the SMA answers every SMP but SMInfo, which is the SM's */
	if (!hi->srv || mpd_get_be16(mad + 16) != MPD_ATTR_SM_INFO)
		return false;
	return find_agent(hi->srv, mad, &s, &id);
}

/* Which client a MAD is for: a response's waiting send (freed) or its
 * agent by TID, a request's registered agent. */
static bool
route(struct hca_umad_srv *srv, const uint8_t *mad, bool free_wait,
      struct hca_session **ps, uint32_t *pid)
{
	struct hca_session *s = NULL;
	uint32_t id = 0;

	if (is_response(mad)) {
		uint64_t tid = mad_tid(mad);
		struct hca_outstanding *o = find_outstanding(srv, tid, mad[1]);
		uint32_t hi_tid = (uint32_t)(tid >> 32);

		/* a response counts only against a send waiting for it */
		if (o) {
			s = o->s;
			id = o->agent;
			if (free_wait)
				hca_out_free(srv, o);
		} else {
			struct hca_session *t;
			uint32_t i;

			/* sends without a time-out expect nothing, but a
			 * response still finds its agent by TID */
			TAILQ_FOREACH(t, &srv->sessions, next)
				for (i = 0; i < MPD_CHAN_MAX_AGENTS; i++)
					if (t->agent[i].used &&
					    t->agent[i].hi_tid == hi_tid) {
						s = t;
						id = i;
					}
			if (!s)
				return false;
		}
	} else if (!find_agent(srv, mad, &s, &id)) {
		return false;
	}
	if (s->dead)
		return false;
	*ps = s;
	*pid = id;
	return true;
}

static bool
deliver_to(struct hca_internals *hi, struct hca_session *s, uint32_t id,
	   const struct mpd_pkt *pk, const uint8_t *mad, uint32_t len)
{
	struct umad_hdr h;

	memset(&h, 0, sizeof(h));
	h.agent_id = id;
	h.length = UMAD_HDR + len;	/* ib_umad_read(): header included */
	addr_from_pkt(&hi->port, pk, &h);
	return to_client(s, &h, mad, len);
}

/* A whole MAD (RMPP reassembled, or a single one) to its client. */
static bool
deliver_raw(struct hca_internals *hi, const struct mpd_pkt *pk,
	    const uint8_t *mad, uint32_t len)
{
	struct hca_session *s;
	uint32_t id;

	if (!route(hi->srv, mad, true, &s, &id))
		return false;
	return deliver_to(hi, s, id, pk, mad, len);
}

/* ---- RMPP transfers ----------------------------------------------------- */

static uint64_t
now_ns(void)
{
	uint64_t t = rte_get_tsc_cycles(), hz = rte_get_tsc_hz();

	return t / hz * 1000000000ull + t % hz * 1000000000ull / hz;
}

static struct hca_xfer *
xfer_alloc(struct hca_umad_srv *srv)
{
	unsigned int i;

	for (i = 0; i < HCA_MAX_XFERS; i++)
		if (!srv->xfer[i].used) {
			memset(&srv->xfer[i], 0, sizeof(srv->xfer[i]));
			srv->xfer[i].used = true;
			return &srv->xfer[i];
		}
	return NULL;
}

void
hca_xfer_free(struct hca_xfer *x)
{
	if (x->snd)
		mpd_rmpp_send_destroy(x->snd);
	if (x->rcv)
		mpd_rmpp_recv_destroy(x->rcv);
	memset(x, 0, sizeof(*x));
}

static struct hca_xfer *
xfer_find(struct hca_umad_srv *srv, bool sender, uint64_t tid, uint8_t cls,
	  uint16_t lid, uint32_t qp)
{
	unsigned int i;

	for (i = 0; i < HCA_MAX_XFERS; i++) {
		struct hca_xfer *x = &srv->xfer[i];

		if (x->used && (x->snd != NULL) == sender && x->tid == tid &&
		    x->mgmt_class == cls && x->peer_lid == lid &&
		    x->peer_qp == qp)
			return x;
	}
	return NULL;
}

/* Headers to answer the sender of pk with (ACKs, STOPs, ABORTs). */
static void
reply_tmpl(const struct hca_port *p, const struct mpd_pkt *pk,
	   struct mpd_pkt *t)
{
	*t = *pk;
	t->lrh.dlid = pk->lrh.slid;
	t->lrh.slid = p->lid ? p->lid : MPD_LID_PERMISSIVE;
	t->lrh.vl = 0;
	if (pk->has_grh) {
		memcpy(t->grh.dgid, pk->grh.sgid, 16);
		memcpy(t->grh.sgid, pk->grh.dgid, 16);
	}
	t->bth.dest_qp = pk->deth.src_qp;
	t->bth.se = 0;
	t->bth.ack_req = 0;
	t->deth.src_qp = pk->bth.dest_qp;
	t->deth.qkey = QP1_QKEY;
}

/* A finished transfer into the port's RMPP counters. */
static void
xfer_count(struct hca_counters *c, const struct hca_xfer *x)
{
	if (x->snd) {
		c->rmpp_timeouts += mpd_rmpp_send_timeouts(x->snd);
		if (mpd_rmpp_send_state(x->snd) == MPD_RMPP_DONE)
			c->rmpp_sent++;
		else
			c->rmpp_failed++;
	} else if (mpd_rmpp_recv_state(x->rcv) == MPD_RMPP_DONE) {
		c->rmpp_received++;
	} else {
		c->rmpp_failed++;
	}
}

static void
xfer_deliver(struct hca_internals *hi, struct hca_xfer *x)
{
	size_t len;
	uint8_t *msg = mpd_rmpp_recv_take(x->rcv, &len);
	struct hca_outstanding *o;

	x->delivered = true;
	if (!msg)
		return;
	/* a response ends the send that waited for it */
	o = is_response(msg) ? find_outstanding(hi->srv, x->tid, x->mgmt_class)
			     : NULL;
	if (o)
		hca_out_free(hi->srv, o);
	if (!x->s->dead)
		deliver_to(hi, x->s, x->agent, &x->first, msg, (uint32_t)len);
	free(msg);
}

/* An active RMPP MAD off the wire: a segment for a receiver, or an
 * ACK/STOP/ABORT for a sender. True when taken. */
static bool
rmpp_input(struct hca_internals *hi, const struct mpd_pkt *pk,
	   const uint8_t *mad, uint32_t len)
{
	struct hca_umad_srv *srv = hi->srv;
	uint64_t tid = mad_tid(mad), now = now_ns();
	struct hca_session *s;
	struct hca_xfer *x;
	uint32_t id;

	if (mad[25] != MPD_RMPP_TYPE_DATA) {
		x = xfer_find(srv, true, tid, mad[1], pk->lrh.slid,
			      pk->deth.src_qp);
		if (x)
			mpd_rmpp_send_input(x->snd, now, mad, len);
		return true;
	}
	x = xfer_find(srv, false, tid, mad[1], pk->lrh.slid, pk->deth.src_qp);
	if (!x) {
		if (!route(srv, mad, false, &s, &id))
			return false;
		if (!s->agent[id].rmpp_version)
			return deliver_to(hi, s, id, pk, mad, len);
		x = xfer_alloc(srv);
		if (!x)
			return false;
		if (mpd_rmpp_recv_create(&x->rcv, now, mad, len, 0, NULL) !=
		    MPD_OK) {
			hca_xfer_free(x);
			return false;
		}
		x->s = s;
		x->agent = id;
		x->tid = tid;
		x->mgmt_class = mad[1];
		x->peer_lid = pk->lrh.slid;
		x->peer_qp = pk->deth.src_qp;
		x->first = *pk;
		reply_tmpl(&hi->port, pk, &x->tmpl);
	} else {
		mpd_rmpp_recv_input(x->rcv, now, mad, len);
	}
	/* IBA 13.6.3: RMPP's own timers govern a response once it flows;
	 * the request's response timer restarts with each segment */
	if (is_response(mad)) {
		struct hca_outstanding *o = find_outstanding(srv, tid, mad[1]);

		if (o)
			o->deadline = rte_get_tsc_cycles() +
				      o->timeout_ms * rte_get_tsc_hz() / 1000;
	}
	if (!x->delivered && mpd_rmpp_recv_state(x->rcv) == MPD_RMPP_DONE)
		xfer_deliver(hi, x);
	return true;
}

bool
hca_mad_deliver(struct hca_internals *hi, const struct mpd_pkt *pk,
		const uint8_t *mad, uint32_t len)
{
	if (!hi->srv || len < MPD_MAD_HDR_LEN)
		return false;
	/* the stack runs RMPP for agents that asked (IBA 13.6) */
	if (len >= MPD_MAD_LEN && mpd_class_has_rmpp(mad[1]) &&
	    mpd_rmpp_is_active(mad, len))
		return rmpp_input(hi, pk, mad, len);
	return deliver_raw(hi, pk, mad, len);
}

/* ---- sending ------------------------------------------------------------ */

/* Directed-route send-side processing at the source (IBA 14.2.2.2-3,
 * C14-9:1 and C14-13): false when the SMP cannot leave by this port. */
static bool
dr_send(const struct hca_port *p, uint8_t *mad)
{
	uint8_t ptr = mad[6], cnt = mad[7];
	bool d = mad[4] & 0x80;

	if (cnt > 63)
		return false;
	if (!d) {
		if (cnt == 0 || ptr != 0)
			return ptr == 0;	/* hop count 0: local */
		mad[6] = 1;
		return mad[128 + 1] == p->port_num;
	}
	if (ptr == 0)
		return false;
	mad[6] = (uint8_t)(ptr - 1);
	return true;
}

/* Where a send goes: true when to the port itself (no wire). */
static bool
is_local(const struct hca_port *p, const uint8_t *mad, uint16_t dlid)
{
	if (mad[1] == MPD_CLASS_SUBN_DR && !(mad[4] & 0x80) && mad[7] == 0)
		return true;
	return p->lid && dlid >= p->lid &&
	       dlid < p->lid + (1u << p->lmc) && dlid != MPD_LID_PERMISSIVE;
}

static void
pkt_from_umad(const struct hca_port *p, const struct umad_hdr *h,
	      const struct hca_agent *a, const uint8_t *mad, struct mpd_pkt *pk)
{
	uint16_t dlid = rte_be_to_cpu_16(h->lid);
	bool dr = mad[1] == MPD_CLASS_SUBN_DR;

	memset(pk, 0, sizeof(*pk));
	pk->link = p->link;
	pk->lrh.vl = a->qpn == 0 ? MPD_VL15 : 0;
	pk->lrh.sl = h->sl & 0xf;
	pk->lrh.dlid = dlid;
	/* an SMP whose directed part starts at us leaves permissive */
	if ((dr && mpd_get_be16(mad + 32) == MPD_LID_PERMISSIVE) || !p->lid)
		pk->lrh.slid = MPD_LID_PERMISSIVE;
	else
		pk->lrh.slid = (uint16_t)(p->lid | (h->path_bits &
					  ((1u << p->lmc) - 1)));
	if (h->grh_present && a->qpn) {
		pk->has_grh = true;
		pk->grh.ip_ver = 6;
		pk->grh.tclass = h->traffic_class;
		pk->grh.flow_label = rte_be_to_cpu_32(h->flow_label) & 0xfffff;
		pk->grh.next_hdr = MPD_GRH_NEXT_HDR_IBA;
		pk->grh.hop_limit = h->hop_limit;
		mpd_put_be64(pk->grh.sgid, p->gid_prefix);
		mpd_put_be64(pk->grh.sgid + 8, p->port_guid);
		memcpy(pk->grh.dgid, h->gid, 16);
	}
	pk->bth.opcode = MPD_OP_UD_SEND_ONLY;
	pk->bth.pkey = a->qpn == 0 ? 0xffff :
		       p->pkeys[h->pkey_index % HCA_PKEY_TABLE_LEN];
	pk->bth.dest_qp = rte_be_to_cpu_32(h->qpn) & 0xffffff;
	pk->deth.qkey = a->qpn == 0 ? 0 : rte_be_to_cpu_32(h->qkey);
	pk->deth.src_qp = a->qpn;
}

/* A MAD to the port itself: its agents, or another client (IBA 13.5.2:
 * the local SMA and PMA answer as if it came off the wire). */
static void
local_send(struct hca_internals *hi, struct mpd_pkt *pk, uint8_t *mad,
	   uint32_t len)
{
	struct hca_port *p = &hi->port;
	enum hca_reply reply = HCA_NO_REPLY;
	struct mpd_pkt rp;

	/* as received: from our own LID, on our QP */
	pk->lrh.slid = p->lid ? p->lid : MPD_LID_PERMISSIVE;
	if (pk->bth.dest_qp == 0 && len >= MPD_MAD_LEN &&
	    !is_response(mad) && !hca_mad_smp_for_agent(hi, mad))
		reply = hca_sma_handle(p, mad, pk);
	else if (pk->bth.dest_qp == 1 && len >= MPD_MAD_LEN &&
		 mad[1] == MPD_CLASS_PERF && !is_response(mad))
		reply = hca_pma_handle(p, mad) ? HCA_REPLY : HCA_NO_REPLY;
	else if (!hca_mad_deliver(hi, pk, mad, len))
		p->cnt.drop_no_agent++;
	if (reply != HCA_REPLY)
		return;
	rp = *pk;
	rp.deth.src_qp = pk->bth.dest_qp;
	rp.bth.dest_qp = pk->deth.src_qp;
	hca_mad_deliver(hi, &rp, mad, MPD_MAD_LEN);
}

/* Hand a send back to its client with status ETIMEDOUT (the kernel's
 * ib_umad: the request's MAD header, length 24). */
static void
send_failed(struct hca_session *s, const uint8_t *rec, uint32_t status)
{
	struct umad_hdr h;

	memcpy(&h, rec, UMAD_HDR);
	h.status = status;
	h.length = MPD_MAD_HDR_LEN;
	to_client(s, &h, rec + UMAD_HDR, MPD_MAD_HDR_LEN);
}

/* One frame for a record (the request's MAD), into an mbuf; NULL when
 * it cannot go (counted). */
static struct rte_mbuf *
frame(struct hca_internals *hi, struct rte_mempool *mp,
      const struct mpd_pkt *tmpl, const uint8_t *mad)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct mpd_pkt pk = *tmpl;
	int n;

	if (!m) {
		hi->port.cnt.xmit_discards++;
		return NULL;
	}
	n = mpd_pkt_encode(&pk, mad, MPD_MAD_LEN, rte_pktmbuf_mtod(m, uint8_t *),
			   rte_pktmbuf_tailroom(m));
	if (n < 0) {
		rte_pktmbuf_free(m);
		hi->port.cnt.xmit_discards++;
		return NULL;
	}
	m->data_len = (uint16_t)n;
	m->pkt_len = (uint32_t)n;
	hi->port.cnt.xmit_pkts++;
	hi->port.cnt.unicast_xmit_pkts++;
	hi->port.cnt.xmit_data += ((uint32_t)n + 3u) / 4;
	return m;
}

/* A whole message for an RMPP agent (IBA 13.6): segmented by a sender
 * that hca_mad_send_burst() runs, or handed over whole when it stays on
 * this port. */
static struct rte_mbuf *
send_rmpp(struct hca_internals *hi, struct hca_session *s,
	  const struct umad_hdr *h, const struct hca_agent *a,
	  const uint8_t *rec, uint32_t len)
{
	struct hca_umad_srv *srv = hi->srv;
	struct mpd_rmpp_cfg cfg;
	struct mpd_pkt pk;
	struct hca_xfer *x;
	uint8_t *msg;

	if (!a->rmpp_version || !mpd_class_has_rmpp(rec[UMAD_HDR + 1]) ||
	    len > MPD_RMPP_MAX_MSG) {
		send_failed(s, rec, EINVAL);	/* as the kernel's write() */
		return NULL;
	}
	msg = malloc(len);
	if (!msg) {
		send_failed(s, rec, ENOMEM);
		return NULL;
	}
	memcpy(msg, rec + UMAD_HDR, len);
	if (!is_response(msg))
		mpd_put_be64(msg + 8, (uint64_t)a->hi_tid << 32 |
				      (mad_tid(msg) & 0xffffffffu));
	pkt_from_umad(&hi->port, h, a, msg, &pk);
	s->sent++;
	if (is_local(&hi->port, msg, pk.lrh.dlid)) {
		pk.lrh.slid = hi->port.lid;
		if (!deliver_raw(hi, &pk, msg, len))
			hi->port.cnt.drop_no_agent++;
		free(msg);
		return NULL;
	}
	/* as ib_mad_rmpp: each window waits the client's timeout_ms for its
	 * ACK; a response sent without one waits RMPP_ACK_DEFAULT_MS */
	mpd_rmpp_cfg_default(&cfg);
	cfg.ack_timeout_ns = (uint64_t)(h->timeout_ms ? h->timeout_ms :
					RMPP_ACK_DEFAULT_MS) * 1000000u;
	if (h->timeout_ms && h->retries > cfg.retries)
		cfg.retries = h->retries;
	x = xfer_alloc(srv);
	if (!x || mpd_rmpp_send_create(&x->snd, msg, len, 0, &cfg) != MPD_OK) {
		if (x)
			hca_xfer_free(x);
		free(msg);
		send_failed(s, rec, ENOMEM);
		return NULL;
	}
	x->s = s;
	x->agent = h->agent_id;
	x->tid = mad_tid(msg);
	x->mgmt_class = msg[1];
	x->peer_lid = pk.lrh.dlid;
	x->peer_qp = pk.bth.dest_qp;
	x->tmpl = pk;
	memcpy(x->hdr, h, UMAD_HDR);
	memcpy(x->hdr + UMAD_HDR, msg, MPD_MAD_HDR_LEN);
	free(msg);
	return NULL;	/* its segments go out with the transfers */
}

/* Segments, ACKs and ABORTs of every transfer; finished ones freed. */
static uint16_t
run_xfers(struct hca_internals *hi, struct rte_mempool *mp,
	  struct rte_mbuf **bufs, uint16_t n)
{
	struct hca_umad_srv *srv = hi->srv;
	uint8_t mad[MPD_MAD_LEN];
	uint64_t now = now_ns();
	uint16_t out = 0;
	unsigned int i;

	for (i = 0; i < HCA_MAX_XFERS; i++) {
		struct hca_xfer *x = &srv->xfer[i];
		bool done;

		if (!x->used)
			continue;
		while (out < n && (x->snd ? mpd_rmpp_send_poll(x->snd, now, mad,
							      sizeof(mad)) :
					    mpd_rmpp_recv_poll(x->rcv, now, mad,
							      sizeof(mad))) ==
				  MPD_MAD_LEN) {
			bufs[out] = frame(hi, mp, &x->tmpl, mad);
			out += bufs[out] != NULL;
		}
		done = x->snd ? mpd_rmpp_send_finished(x->snd) :
				mpd_rmpp_recv_finished(x->rcv);
		if (!done)
			continue;
		xfer_count(&hi->port.cnt, x);
		/* a send that did not get through comes back, as ib_umad's
		 * send completions with an error do */
		if (x->snd && mpd_rmpp_send_state(x->snd) != MPD_RMPP_DONE &&
		    !x->s->dead)
			send_failed(x->s, x->hdr, ETIMEDOUT);
		hca_xfer_free(x);
	}
	return out;
}

/* One record from a client. Returns the frame to send, or NULL. */
static struct rte_mbuf *
send_one(struct hca_internals *hi, struct rte_mempool *mp,
	 struct hca_session *s, const uint8_t *rec, uint32_t rlen)
{
	struct hca_umad_srv *srv = hi->srv;
	struct hca_port *p = &hi->port;
	uint8_t mad[MPD_MAD_LEN];
	struct umad_hdr h;
	const struct hca_agent *a;
	struct mpd_pkt pk;
	uint32_t len;

	if (rlen < UMAD_HDR + MPD_MAD_HDR_LEN) {
		hca_session_kill(s, "a send shorter than a MAD header");
		return NULL;
	}
	memcpy(&h, rec, UMAD_HDR);
	/* as the kernel's write(): the record's size, not hdr.length */
	len = rlen - UMAD_HDR;
	if (h.agent_id >= MPD_CHAN_MAX_AGENTS || !s->agent[h.agent_id].used) {
		hca_session_kill(s, "a send for an agent it does not hold");
		return NULL;
	}
	a = &s->agent[h.agent_id];
	/* ib_umad_write(): RMPP when the agent and class have it and the
	 * client set Active, whatever the length (an empty SA table is just
	 * its headers) */
	if (len > MPD_MAD_LEN ||
	    (a->rmpp_version && len >= MPD_SA_HDR_END - 20 &&
	     mpd_class_has_rmpp(rec[UMAD_HDR + 1]) &&
	     (rec[UMAD_HDR + 26] & MPD_RMPP_FLAG_ACTIVE)))
		return send_rmpp(hi, s, &h, a, rec, len);
	memset(mad, 0, sizeof(mad));
	memcpy(mad, rec + UMAD_HDR, len);
	/* ib_umad: requests carry the agent's hi_tid in TID bits 63..32 */
	if (!is_response(mad))
		mpd_put_be64(mad + 8, (uint64_t)a->hi_tid << 32 |
				      (mad_tid(mad) & 0xffffffffu));
	if (mad[1] == MPD_CLASS_SUBN_DR && !dr_send(p, mad)) {
		s->dropped++;
		return NULL;
	}
	pkt_from_umad(p, &h, a, mad, &pk);
	if (h.timeout_ms && !is_response(mad)) {
		struct hca_outstanding *o;

		if (find_outstanding(srv, mad_tid(mad), mad[1])) {
			send_failed(s, rec, EINVAL);	/* duplicate TID */
			return NULL;
		}
		o = outstanding_alloc(srv, mad_tid(mad), mad[1]);
		if (!o) {
			send_failed(s, rec, ENOMEM);
			return NULL;
		}
		o->s = s;
		o->agent = h.agent_id;
		o->dlid = pk.lrh.dlid;
		o->timeout_ms = h.timeout_ms;
		o->retries_left = h.retries;
		o->deadline = rte_get_tsc_cycles() +
			      h.timeout_ms * rte_get_tsc_hz() / 1000;
		memcpy(o->rec, &h, UMAD_HDR);
		memcpy(o->rec + UMAD_HDR, mad, MPD_MAD_LEN);
		o->len = UMAD_HDR + MPD_MAD_LEN;
	}
	s->sent++;
	if (is_local(p, mad, pk.lrh.dlid)) {
		local_send(hi, &pk, mad, len);
		return NULL;
	}
	return frame(hi, mp, &pk, mad);
}

/* Resend what timed out; hand back what has no retries left. */
static uint16_t
run_timeouts(struct hca_internals *hi, struct rte_mempool *mp,
	     struct rte_mbuf **bufs, uint16_t n)
{
	struct hca_umad_srv *srv = hi->srv;
	uint64_t now = rte_get_tsc_cycles();
	uint16_t out = 0;
	unsigned int i;

	if (now < srv->next_timeout_check || !srv->out_used)
		return 0;
	srv->next_timeout_check = now + rte_get_tsc_hz() / 1000;
	for (i = 0; i < HCA_MAX_OUTSTANDING && out < n; i++) {
		struct hca_outstanding *o = &srv->out[i];
		struct umad_hdr h;
		struct mpd_pkt pk;
		uint8_t *mad;

		if (!o->used || now < o->deadline)
			continue;
		if (!o->retries_left) {
			send_failed(o->s, o->rec, ETIMEDOUT);
			hca_out_free(srv, o);
			continue;
		}
		o->retries_left--;
		o->deadline = now + o->timeout_ms * rte_get_tsc_hz() / 1000;
		memcpy(&h, o->rec, UMAD_HDR);
		mad = o->rec + UMAD_HDR;
		pkt_from_umad(&hi->port, &h, &o->s->agent[o->agent], mad, &pk);
		if (is_local(&hi->port, mad, pk.lrh.dlid)) {
			uint8_t copy[MPD_MAD_LEN];

			memcpy(copy, mad, sizeof(copy));
			local_send(hi, &pk, copy, MPD_MAD_LEN);
			continue;
		}
		bufs[out] = frame(hi, mp, &pk, mad);
		out += bufs[out] != NULL;
	}
	return out;
}

uint16_t
hca_mad_send_burst(struct hca_internals *hi, struct rte_mempool *mp,
		   struct rte_mbuf **bufs, uint16_t n)
{
	struct hca_umad_srv *srv = hi->srv;
	struct hca_session *s;
	uint16_t out;

	if (!srv || !mp)
		return 0;
	out = run_timeouts(hi, mp, bufs, n);
	out += run_xfers(hi, mp, bufs + out, (uint16_t)(n - out));
	TAILQ_FOREACH(s, &srv->sessions, next) {
		unsigned int budget = SEND_BUDGET;

		while (!s->dead && out < n && budget--) {
			const uint8_t *rec;
			uint32_t len, kind;
			struct rte_mbuf *m;
			int rc = mpd_ring_peek(&s->tx, &rec, &len, &kind);

			if (rc == 0)
				break;
			if (rc < 0 || kind != MPD_CHAN_REC_UMAD) {
				hca_session_kill(s, "garbage in its send ring");
				break;
			}
			if (hi->rec_on && len >= UMAD_HDR)
				hca_rec_umad(hi, s, MPD_REC_UMAD_SEND, rec,
					     rec + UMAD_HDR, len - UMAD_HDR);
			m = send_one(hi, mp, s, rec, len);
			mpd_ring_consume(&s->tx);
			if (m)
				bufs[out++] = m;
		}
	}
	return out;
}
