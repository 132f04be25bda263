/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port's CM as a client of its MAD layer (cm.h): agents, the queue of
 * MADs to send, and the wiring of the IB CM to the rdma_cm ids.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_cma.h>

#include "madpmd/clock.h"
#include "madpmd/mad.h"
#include "madpmd/records.h"
#include "cm_agent.h"

struct hca_cm_out {
	struct hca_mad_desc d;
	uint8_t mad[MPD_MAD_LEN];
};

uint64_t
hca_cm_now(void)
{
	return mpd_mono_ns();
}

static struct hca_cm *
cm_of(struct hca_mad_client *c)
{
	return (struct hca_cm *)((char *)c - offsetof(struct hca_cm, mc));
}

/* Queued, not sent: deliver may run inside hca_mad_send() (a MAD to the
 * port itself), and the channel's thread must not emit frames. A full
 * queue drops: the CM's retries cover it. */
static void
queue(struct hca_cm *cm, const struct hca_mad_desc *d, const uint8_t *mad)
{
	struct hca_cm_out *o;

	if (cm->qtail - cm->qhead >= HCA_CM_SENDQ) {
		cm->q_dropped++;
		return;
	}
	o = &cm->q[cm->qtail++ % HCA_CM_SENDQ];
	o->d = *d;
	memcpy(o->mad, mad, MPD_MAD_LEN);
}

static void
ibcm_send(void *ctx, const struct hca_mad_desc *d, const uint8_t *mad)
{
	queue(ctx, d, mad);
}

static enum hca_ibcm_verdict
ibcm_event(void *ctx, struct hca_ibcm_conn *c, const struct hca_ibcm_event *ev)
{
	struct hca_cm *cm = ctx;

	return hca_cma_cm_event(&cm->cma, c, ev);
}

static const struct hca_ibcm_ops ibcm_ops = {
	.send = ibcm_send,
	.event = ibcm_event,
};

/* An event as a capture record (MPD_REC_CM): the id it names (the new
 * one for a CONNECT_REQUEST, with its listen), its connection's comm IDs
 * and QPs, and the parameters and private data the client reads. */
static void
cma_observe(void *ctx, const struct hca_cma_id *id,
	    const struct mpd_cm_event_rec *e)
{
	struct hca_cm *cm = ctx;
	const struct hca_cma_id *cid = id;
	struct mpd_rec_cm r;

	if (!cm->rec || !cm->rec->on)
		return;
	memset(&r, 0, sizeof(r));
	r.event = e->event;
	r.status = e->status;
	r.id = e->id;
	if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST && e->child) {
		r.id = e->child;
		r.listen_id = e->id;
		cid = hca_cma_id_of(&cm->cma, e->child);
	}
	if (cid && cid->conn) {
		r.local_comm_id = cid->conn->local_id;
		r.remote_comm_id = cid->conn->remote_id;
		r.local_qpn = cid->conn->local_qpn;
		r.remote_qpn = cid->conn->remote_qpn;
		r.service_id = cid->conn->service_id;
	}
	r.responder_resources = e->conn.responder_resources;
	r.initiator_depth = e->conn.initiator_depth;
	r.retry_count = e->conn.retry_count;
	r.rnr_retry_count = e->conn.rnr_retry_count;
	r.private_data_len = e->conn.private_data_len;
	_Static_assert(sizeof(r.private_data) >= sizeof(e->conn.private_data),
		       "a record holds an event's private data");
	memcpy(r.private_data, e->conn.private_data,
	       sizeof(e->conn.private_data));
	hca_rec_cm(cm->rec, cm->port, &r);
}

static const struct hca_cma_io cma_io = {
	.sa_send = ibcm_send,
	.observe = cma_observe,
};

static bool
cm_deliver(struct hca_mad_client *c, const struct hca_mad_desc *d,
	   const uint8_t *mad, uint32_t len)
{
	struct hca_cm *cm = cm_of(c);

	if (d->agent_id == cm->sa_agent) {
		hca_cma_sa_input(&cm->cma, d, mad, len);
		return true;
	}
	if (d->agent_id == cm->mc_agent) {
		hca_cma_mc_sa_input(&cm->cma, d, mad, len);
		return true;
	}
	/* a send of ours handed back carries only a header */
	if (d->agent_id == cm->cm_agent && !d->status && len >= MPD_MAD_LEN)
		hca_ibcm_input(&cm->ibcm, d, mad, hca_cm_now());
	return true;
}

static void
cm_credit(struct hca_mad_client *c)
{
	(void)c;
}

static const struct hca_mad_client_ops cm_client_ops = {
	.deliver = cm_deliver,
	.credit = cm_credit,
};

int
hca_cm_create(struct hca_cm **pcm, struct hca_port *port,
	      struct hca_mad_layer *ml, struct hca_recorder *rec)
{
	/* the CM's agent takes Send of class 0x07 (IBA 12.6.1) */
	struct hca_mad_agent_req cm_req = {
		.mgmt_class = MPD_CLASS_CM,
		.class_version = MPD_CM_CLASS_VERSION,
		.qpn = 1,
		.method_mask = { 1ull << MPD_METHOD_SEND, 0 },
	};
	struct hca_mad_agent_req sa_req = { .qpn = 1 };
	uint64_t seed = hca_cm_now() ^ port->port_guid;
	struct hca_cm *cm;

	*pcm = NULL;
	cm = calloc(1, sizeof(*cm));
	if (!cm)
		return ENOMEM;
	cm->q = calloc(HCA_CM_SENDQ, sizeof(*cm->q));
	cm->port = port;
	cm->ml = ml;
	cm->rec = rec;
	if (!cm->q || hca_mad_client_init(&cm->mc, &cm_client_ops, 0, 0) != 0)
		goto fail;
	if (hca_ibcm_init(&cm->ibcm, &ibcm_ops, cm, port->node_guid,
			  seed) != 0 ||
	    hca_cma_init(&cm->cma, port, &cm->ibcm, &cma_io, cm,
			 seed * 0x9e3779b97f4a7c15ull) != 0)
		goto fail;
	hca_mad_client_attach(ml, &cm->mc);
	if (hca_mad_agent_register(ml, &cm->mc, &cm_req, &cm->cm_agent) ||
	    hca_mad_agent_register(ml, &cm->mc, &sa_req, &cm->sa_agent) ||
	    hca_mad_agent_register(ml, &cm->mc, &sa_req, &cm->mc_agent)) {
		hca_mad_client_detach(ml, &cm->mc);
		goto fail;
	}
	cm->ibcm.agent_id = cm->cm_agent;
	cm->cma.sa_agent = cm->sa_agent;
	cm->cma.mc_agent = cm->mc_agent;
	*pcm = cm;
	return 0;
fail:
	hca_cma_fini(&cm->cma);
	hca_ibcm_fini(&cm->ibcm);
	hca_mad_client_fini(&cm->mc);
	free(cm->q);
	free(cm);
	return ENOMEM;
}

void
hca_cm_destroy(struct hca_cm *cm)
{
	if (!cm)
		return;
	hca_mad_client_detach(cm->ml, &cm->mc);
	hca_cma_fini(&cm->cma);
	hca_ibcm_fini(&cm->ibcm);
	hca_mad_client_fini(&cm->mc);
	free(cm->q);
	free(cm);
}

void
hca_cm_poll(struct hca_cm *cm, uint64_t now_ns, struct hca_mad_out *out)
{
	/* the clock only when a timer is armed: this runs at every poll of
	 * a port with clients */
	if (hca_ibcm_next_timer(&cm->ibcm) != UINT64_MAX)
		hca_ibcm_timers(&cm->ibcm, hca_cm_now());
	while (cm->qhead != cm->qtail && out->room) {
		struct hca_cm_out o = cm->q[cm->qhead++ % HCA_CM_SENDQ];

		/* taken off first: a send to the port itself comes back
		 * in here and may queue more */
		hca_mad_send(cm->ml, &cm->mc, &o.d, o.mad, MPD_MAD_LEN, now_ns,
			     out);
	}
}

void
hca_cm_stats_get(const struct hca_cm *cm, struct hca_cm_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!cm)
		return;
	st->ids = cm->cma.nused;
	st->conns = cm->ibcm.nused;
	st->established = cm->ibcm.st.established;
}

bool
hca_cm_busy(const struct hca_cm *cm)
{
	return cm && cm->qhead != cm->qtail;
}

int
hca_cm_idle_ms(const struct hca_cm *cm)
{
	uint64_t next, now;

	if (!cm)
		return -1;
	if (cm->qhead != cm->qtail)
		return 0;
	next = hca_ibcm_next_timer(&cm->ibcm);
	if (next == UINT64_MAX)
		return -1;
	now = hca_cm_now();
	if (next <= now)
		return 0;
	next = (next - now) / 1000000u + 1;
	return next > 1000 ? 1000 : (int)next;
}
