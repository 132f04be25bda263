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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad_priv.h"

/* An RMPP sender's wait for each ACK when the client gave no time-out
 * (an SA answering): OpenSM's own default transaction time-out. */
#define RMPP_ACK_DEFAULT_MS	200u

int
mad_xfer_pool_init(struct hca_mad_client *c)
{
	c->xfer = calloc(HCA_MAD_CLIENT_XFERS, sizeof(*c->xfer));
	return c->xfer ? 0 : -ENOMEM;
}

static void
xfer_free(struct hca_xfer *x)
{
	struct hca_mad_client *c = x->c;

	if (x->snd)
		mpd_rmpp_send_destroy(x->snd);
	if (x->rcv)
		mpd_rmpp_recv_destroy(x->rcv);
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

		if (x->used)
			continue;
		memset(x, 0, sizeof(*x));
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
	uint8_t *msg = mpd_rmpp_recv_take(x->rcv, &len);
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
	free(msg);
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

int
mad_xfer_send(struct hca_mad_layer *ml, struct hca_mad_client *c,
	      const struct hca_mad_desc *d, const uint8_t *msg, uint32_t len,
	      const struct mpd_pkt *pk, uint64_t now_ns)
{
	struct mpd_rmpp_cfg cfg;
	struct hca_xfer *x;

	(void)now_ns;
	x = xfer_alloc(c, true, 0);
	if (!x) {
		ml->port->cnt.chan_quota++;
		return ENOMEM;
	}
	/* as ib_mad_rmpp: each window waits the client's timeout_ms for its
	 * ACK; a response sent without one waits RMPP_ACK_DEFAULT_MS */
	mpd_rmpp_cfg_default(&cfg);
	cfg.ack_timeout_ns = (uint64_t)(d->timeout_ms ? d->timeout_ms :
					RMPP_ACK_DEFAULT_MS) * 1000000u;
	if (d->timeout_ms && d->retries > cfg.retries)
		cfg.retries = d->retries;
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
