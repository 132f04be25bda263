/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RMPP transfers (IBA 13.6) the port runs for its clients, from each
 * client's own share: HCA_MAD_CLIENT_XFER_SENDS sends (what the client
 * counts, so that umad_send() refuses the next at once; 2 MiB each at
 * most) and HCA_MAD_CLIENT_XFER_RECVS receives, which reserve their
 * message from HCA_MAD_CLIENT_RMPP_BYTES. A receiver past its client's
 * budget answers STOP (resources exhausted, 13.6.3.4) through the engine;
 * one that delivered and only lingers to re-ACK gives its bytes back, and
 * its slot to the next first segment that needs one.
 *
 * Nothing here allocates: each transfer's engine and message live in a
 * slot of the client's arena (HCA_MAD_XFER_SLOT of address space each,
 * reserved when the client came); pages a big transfer touched are given
 * back later by the control thread (hca_mad_trim_*), outside the lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mad_priv.h"

/* An RMPP sender's wait for each ACK when the client gave no time-out
 * (an SA answering): OpenSM's own default transaction time-out. */
#define RMPP_ACK_DEFAULT_MS	200u

int
mad_xfer_pool_init(struct hca_mad_client *c)
{
	void *a;

	c->xfer = calloc(HCA_MAD_CLIENT_XFERS, sizeof(*c->xfer));
	if (!c->xfer)
		return ENOMEM;
	/* address space only: pages come as transfers touch them */
	a = mmap(NULL, (size_t)HCA_MAD_XFER_SLOTS * HCA_MAD_XFER_SLOT,
		 PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a == MAP_FAILED)
		return ENOMEM;
	c->arena = a;
	return 0;
}

void
mad_xfer_pool_fini(struct hca_mad_client *c)
{
	free(c->xfer);
	c->xfer = NULL;
	if (c->arena)
		munmap(c->arena, (size_t)HCA_MAD_XFER_SLOTS * HCA_MAD_XFER_SLOT);
	c->arena = NULL;
}

static uint8_t *
slot_mem(const struct hca_mad_client *c, unsigned int slot)
{
	return c->arena + (size_t)slot * HCA_MAD_XFER_SLOT;
}

static void
xfer_free(struct hca_xfer *x)
{
	struct hca_mad_client *c = x->c;
	uint32_t bit = 1u << x->slot;
	size_t len;

	/* what ran past the first pages of its slot leaves them dirty: a
	 * send its message (also one delivered on the port itself, which
	 * never had an engine), a receive what it took in (all it reserved
	 * when it did not finish) */
	if (x->sender) {
		if (x->staged > HCA_MAD_TRIM_KEEP)
			c->slot_dirty |= bit;
	} else if (x->rcv) {
		if (!mpd_rmpp_recv_msg(x->rcv, &len) || len > HCA_MAD_TRIM_KEEP)
			c->slot_dirty |= bit;
	}
	if (x->snd)
		mpd_rmpp_send_destroy(x->snd);
	if (x->rcv)
		mpd_rmpp_recv_destroy(x->rcv);
	c->slot_used &= ~bit;
	c->xfer_held--;
	c->xfer_send_held -= x->sender;
	c->rmpp_bytes -= x->bytes;
	memset(x, 0, sizeof(*x));
	c->ops->credit(c);
}

/* A receiver that delivered its message and only lingers to ACK a
 * repeated last window: the first to go when its client needs room (a
 * sender that repeats it after that gets no re-ACK, and times out as it
 * would have at the end of the linger). */
static bool
xfer_reclaim(struct hca_mad_client *c)
{
	unsigned int i;

	for (i = 0; i < HCA_MAD_CLIENT_XFERS; i++)
		if (c->xfer[i].used && c->xfer[i].rcv &&
		    c->xfer[i].delivered) {
			xfer_free(&c->xfer[i]);
			return true;
		}
	return false;
}

/* A slot of c's share: a send, or a receive reserving bytes. */
static struct hca_xfer *
xfer_alloc(struct hca_mad_client *c, bool sender, uint32_t bytes)
{
	unsigned int i;

	if (sender && c->xfer_send_held >= HCA_MAD_CLIENT_XFER_SENDS)
		return NULL;
	if (!sender &&
	    c->xfer_held - c->xfer_send_held >= HCA_MAD_CLIENT_XFER_RECVS &&
	    !xfer_reclaim(c))
		return NULL;
	if (!sender && c->rmpp_bytes + bytes > HCA_MAD_CLIENT_RMPP_BYTES)
		return NULL;
	for (i = 0; i < HCA_MAD_CLIENT_XFERS; i++) {
		struct hca_xfer *x = &c->xfer[i];
		uint32_t busy = c->slot_used | c->slot_trimming;
		unsigned int slot;

		if (x->used)
			continue;
		/* fewer transfers than slots, at most SPARE trimming */
		for (slot = 0; slot < HCA_MAD_XFER_SLOTS; slot++)
			if (!(busy & 1u << slot))
				break;
		if (slot == HCA_MAD_XFER_SLOTS)
			return NULL;
		memset(x, 0, sizeof(*x));
		x->slot = slot;
		c->slot_used |= 1u << slot;
		c->slot_idle &= ~(1u << slot);
		x->used = true;
		x->c = c;
		x->sender = sender;
		x->bytes = sender ? 0 : bytes;
		c->xfer_held++;
		c->xfer_send_held += sender;
		c->rmpp_bytes += x->bytes;
		return x;
	}
	return NULL;
}

void
mad_xfer_end(struct hca_mad_client *c, int64_t agent)
{
	unsigned int i;

	for (i = 0; c->xfer && i < HCA_MAD_CLIENT_XFERS; i++)
		if (c->xfer[i].used &&
		    (agent < 0 || c->xfer[i].agent == (uint32_t)agent))
			xfer_free(&c->xfer[i]);
}

static struct hca_xfer *
xfer_find(const struct hca_mad_layer *ml, bool sender, uint64_t tid,
	  uint8_t cls, uint16_t lid, uint32_t qp)
{
	struct hca_mad_client *c;
	unsigned int i;

	TAILQ_FOREACH(c, &ml->clients, next)
		for (i = 0; i < HCA_MAD_CLIENT_XFERS; i++) {
			struct hca_xfer *x = &c->xfer[i];

			if (x->used && (x->snd != NULL) == sender &&
			    x->tid == tid && x->mgmt_class == cls &&
			    x->peer_lid == lid && x->peer_qp == qp)
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
	hca_port_reverse(p, t, pk->bth.dest_qp);
}

/* A finished transfer into the port's RMPP counters. */
static void
xfer_count(struct hca_counters *cnt, const struct hca_xfer *x)
{
	if (x->snd) {
		cnt->rmpp_timeouts += mpd_rmpp_send_timeouts(x->snd);
		if (mpd_rmpp_send_state(x->snd) == MPD_RMPP_DONE)
			cnt->rmpp_sent++;
		else
			cnt->rmpp_failed++;
	} else if (mpd_rmpp_recv_state(x->rcv) == MPD_RMPP_DONE) {
		cnt->rmpp_received++;
	} else {
		cnt->rmpp_failed++;
	}
}

static void
xfer_deliver(struct hca_mad_layer *ml, struct hca_xfer *x)
{
	size_t len;
	const uint8_t *msg = mpd_rmpp_recv_msg(x->rcv, &len);
	struct hca_outstanding *o;

	x->delivered = true;
	/* the message is the client's now: what lingers holds no bytes */
	x->c->rmpp_bytes -= x->bytes;
	x->bytes = 0;
	if (!msg)
		return;
	/* a response ends the send that waited for it */
	o = mpd_mad_is_response(msg) ? mad_out_find(ml, x->tid, x->mgmt_class)
				     : NULL;
	if (o)
		mad_out_free(ml, o);
	if (!x->c->dead)
		mad_deliver_to(ml, x->c, x->agent, &x->first, msg,
			       (uint32_t)len);
}

/* A first segment: a receiver from the client's share, or none. */
static struct hca_xfer *
recv_start(struct hca_mad_layer *ml, const struct mpd_pkt *pk,
	   const uint8_t *mad, uint64_t now_ns, bool *taken)
{
	struct hca_mad_client *c;
	struct mpd_rmpp_cfg cfg;
	struct hca_xfer *x;
	uint64_t room;
	uint32_t id;

	*taken = false;
	if (!mad_route(ml, mad, false, &c, &id))
		return NULL;
	*taken = true;
	if (!c->agent[id].rmpp_version) {
		mad_deliver_to(ml, c, id, pk, mad, MPD_MAD_LEN);
		return NULL;
	}
	mpd_rmpp_cfg_default(&cfg);
	if (c->xfer_held - c->xfer_send_held >= HCA_MAD_CLIENT_XFER_RECVS)
		xfer_reclaim(c);
	room = HCA_MAD_CLIENT_RMPP_BYTES - c->rmpp_bytes;
	if (room < cfg.max_msg)
		cfg.max_msg = room < MPD_MAD_LEN ? MPD_MAD_LEN : (uint32_t)room;
	x = xfer_alloc(c, false, cfg.max_msg);
	if (!x) {
		ml->port->cnt.chan_quota++;
		return NULL;
	}
	cfg.mem = slot_mem(c, x->slot);
	cfg.mem_len = HCA_MAD_XFER_SLOT;
	if (mpd_rmpp_recv_create(&x->rcv, now_ns, mad, MPD_MAD_LEN, 0,
				 &cfg) != MPD_OK) {
		xfer_free(x);
		return NULL;
	}
	x->agent = id;
	x->tid = mpd_mad_tid(mad);
	x->mgmt_class = mpd_mad_class(mad);
	x->peer_lid = pk->lrh.slid;
	x->peer_qp = pk->deth.src_qp;
	x->first = *pk;
	reply_tmpl(ml->port, pk, &x->tmpl);
	return x;
}

bool
mad_xfer_input(struct hca_mad_layer *ml, const struct mpd_pkt *pk,
	       const uint8_t *mad, uint64_t now_ns)
{
	uint64_t tid = mpd_mad_tid(mad);
	uint8_t cls = mpd_mad_class(mad);
	struct hca_xfer *x;
	bool taken;

	if (mad[MPD_RMPP_OFF_TYPE] != MPD_RMPP_TYPE_DATA) {
		x = xfer_find(ml, true, tid, cls, pk->lrh.slid, pk->deth.src_qp);
		if (x)
			mpd_rmpp_send_input(x->snd, now_ns, mad, MPD_MAD_LEN);
		return true;
	}
	x = xfer_find(ml, false, tid, cls, pk->lrh.slid, pk->deth.src_qp);
	if (!x) {
		x = recv_start(ml, pk, mad, now_ns, &taken);
		if (!x)
			return taken;
	} else {
		mpd_rmpp_recv_input(x->rcv, now_ns, mad, MPD_MAD_LEN);
	}
	/* IBA 13.6.3: RMPP's own timers govern a response once it flows;
	 * the request's response timer restarts with each segment */
	if (mpd_mad_is_response(mad)) {
		struct hca_outstanding *o = mad_out_find(ml, tid, cls);

		if (o)
			o->deadline = now_ns + o->timeout_ms * 1000000ull;
	}
	if (!x->delivered && mpd_rmpp_recv_state(x->rcv) == MPD_RMPP_DONE)
		xfer_deliver(ml, x);
	return true;
}

struct hca_xfer *
mad_xfer_stage(struct hca_mad_client *c, uint32_t len, uint8_t **msg)
{
	struct hca_xfer *x;

	if (mpd_rmpp_send_msg_off() + len > HCA_MAD_XFER_SLOT)
		return NULL;
	x = xfer_alloc(c, true, 0);
	if (!x)
		return NULL;
	x->staged = (uint32_t)mpd_rmpp_send_msg_off() + len;
	*msg = slot_mem(c, x->slot) + mpd_rmpp_send_msg_off();
	return x;
}

void
mad_xfer_unstage(struct hca_xfer *x)
{
	xfer_free(x);
}

int
mad_xfer_start(struct hca_mad_layer *ml, struct hca_xfer *x,
	       const struct hca_mad_desc *d, uint32_t len,
	       const struct mpd_pkt *pk)
{
	uint8_t *mem = slot_mem(x->c, x->slot);
	const uint8_t *msg = mem + mpd_rmpp_send_msg_off();
	struct mpd_rmpp_cfg cfg;

	(void)ml;
	/* as ib_mad_rmpp: each window waits the client's timeout_ms for its
	 * ACK; a response sent without one waits RMPP_ACK_DEFAULT_MS */
	mpd_rmpp_cfg_default(&cfg);
	cfg.ack_timeout_ns = (uint64_t)(d->timeout_ms ? d->timeout_ms :
					RMPP_ACK_DEFAULT_MS) * 1000000u;
	if (d->timeout_ms && d->retries > cfg.retries)
		cfg.retries = d->retries;
	cfg.mem = mem;
	cfg.mem_len = HCA_MAD_XFER_SLOT;
	/* the message is in place: the engine copies nothing */
	if (mpd_rmpp_send_create(&x->snd, msg, len, 0, &cfg) != MPD_OK) {
		xfer_free(x);
		return ENOMEM;
	}
	x->agent = d->agent_id;
	x->tid = mpd_mad_tid(msg);
	x->mgmt_class = mpd_mad_class(msg);
	x->peer_lid = pk->lrh.dlid;
	x->peer_qp = pk->bth.dest_qp;
	x->tmpl = *pk;
	x->desc = *d;
	memcpy(x->hdr, msg, MPD_MAD_HDR_LEN);
	return 0;
}

/* Segments, ACKs and ABORTs of one transfer; true when it is over. */
static bool
xfer_run(struct hca_mad_layer *ml, struct hca_xfer *x, uint64_t now_ns,
	 struct hca_mad_out *out)
{
	uint8_t mad[MPD_MAD_LEN];

	while (out->room &&
	       (x->snd ? mpd_rmpp_send_poll(x->snd, now_ns, mad, sizeof(mad)) :
			 mpd_rmpp_recv_poll(x->rcv, now_ns, mad, sizeof(mad))) ==
	       MPD_MAD_LEN)
		mad_emit(out, &x->tmpl, mad);
	if (!(x->snd ? mpd_rmpp_send_finished(x->snd) :
		       mpd_rmpp_recv_finished(x->rcv)))
		return false;
	xfer_count(&ml->port->cnt, x);
	/* a send that did not get through comes back, as ib_umad's send
	 * completions with an error do */
	if (x->snd && mpd_rmpp_send_state(x->snd) != MPD_RMPP_DONE)
		mad_hand_back(x->c, &x->desc, x->hdr, ETIMEDOUT);
	return true;
}

void
mad_xfer_poll(struct hca_mad_layer *ml, uint64_t now_ns,
	      struct hca_mad_out *out)
{
	struct hca_mad_client *c;
	unsigned int i;

	TAILQ_FOREACH(c, &ml->clients, next) {
		if (!c->xfer_held)
			continue;
		for (i = 0; i < HCA_MAD_CLIENT_XFERS; i++) {
			struct hca_xfer *x = &c->xfer[i];

			if (x->used && xfer_run(ml, x, now_ns, out))
				xfer_free(x);
		}
	}
}

/* ---- giving idle slots' pages back (the control thread) ---- */

unsigned int
hca_mad_trim_begin(struct hca_mad_client *c, struct hca_mad_trim *t)
{
	uint32_t take = c->slot_idle & c->slot_dirty & ~c->slot_used &
			~c->slot_trimming;
	unsigned int slot;

	t->n = 0;
	t->mask = 0;
	for (slot = 0; slot < HCA_MAD_XFER_SLOTS &&
		       t->n < HCA_MAD_XFER_SPARE; slot++) {
		if (!(take & 1u << slot))
			continue;
		t->mask |= 1u << slot;
		t->addr[t->n++] = slot_mem(c, slot);
	}
	c->slot_trimming |= t->mask;
	c->slot_idle &= ~t->mask;
	return t->n;
}

void
hca_mad_trim_mark(struct hca_mad_client *c)
{
	c->slot_idle = c->slot_dirty & ~c->slot_used & ~c->slot_trimming;
}

void
hca_mad_trim_run(const struct hca_mad_trim *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		madvise(t->addr[i] + HCA_MAD_TRIM_KEEP,
			HCA_MAD_XFER_SLOT - HCA_MAD_TRIM_KEEP, MADV_DONTNEED);
}

void
hca_mad_trim_end(struct hca_mad_client *c, const struct hca_mad_trim *t)
{
	c->slot_trimming &= ~t->mask;
	c->slot_dirty &= ~t->mask;
}
