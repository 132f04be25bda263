/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rdma_cm service of the channel (madpmd/cma.h): one handler per
 * MPD_CM_* request, each on the control thread under the port lock, and
 * the ids' events as MPD_CHAN_REC_CM records in the owning session's
 * receive ring. A session is an event channel; its ids die with it.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_log.h>

#include "chan_priv.h"

static bool
cm_event(struct hca_cma_owner *o, const struct mpd_cm_event_rec *e)
{
	struct hca_session *s = (struct hca_session *)((char *)o -
				offsetof(struct hca_session, co));
	uint32_t rec = mpd_ring_rec_size(sizeof(*e));
	bool wake;
	int rc;

	if (s->mc.dead)
		return false;
	/* events queued and not taken (madpmd/cma.h's limit): the ring's
	 * bytes of records past the consumer's tail; not the padding of a
	 * restart at data[0], which covers most of the ring (counted, it
	 * cut off every session about 3700 events into its life) */
	if (mpd_ring_queued(&s->rx) / rec >= MPD_CM_EVENTS_MAX) {
		chan_session_kill(s, "it leaves too many CM events untaken");
		return false;
	}
	rc = mpd_ring_put_wake(&s->rx, MPD_CHAN_REC_CM, e, sizeof(*e), NULL, 0,
			       &wake);
	if (rc) {
		chan_session_kill(s, rc == -EBADMSG ?
				  "garbage in its receive ring's tail" :
				  "its receive ring is full of CM events");
		return false;
	}
	/* the library never spins on the ring (rx_awake 0): one write per
	 * empty-to-queued edge */
	if (wake)
		chan_wake_mark(s->ch, s);
	return true;
}

static const struct hca_cma_owner_ops cm_owner_ops = {
	.event = cm_event,
};

static struct hca_cma_owner *
owner(struct hca_session *s)
{
	if (!s->co.ops) {
		s->co.ops = &cm_owner_ops;
		s->co.pid = (uint32_t)s->pid;
	}
	return &s->co;
}

static struct hca_cma *
cma_of(struct hca_chan *ch)
{
	return &ch->cfg.cm->cma;
}

static void
lock(struct hca_chan *ch)
{
	rte_spinlock_lock(ch->cfg.lock);
}

/* Unlock; a sleeping lcore is woken for the MADs the request queued. */
static void
unlock(struct hca_chan *ch)
{
	bool kick = ch->armed && hca_cm_busy(ch->cfg.cm);

	rte_spinlock_unlock(ch->cfg.lock);
	if (kick)
		chan_doorbell_ring(&ch->cfg);
}

/* A port without the CM (a switch's port 0) fails every request at once
 * (chan.c asks before the handler runs) */
static int
cm_ready(const struct hca_chan *ch)
{
	return ch->cfg.cm ? 0 : ENODEV;
}

/* One more id within the process's and the user's share of the port's
 * ids (madpmd/cma.h), however many sessions hold them; lock held */
static bool
id_share_ok(struct hca_chan *ch, const struct hca_session *s)
{
	const struct hca_session *o;
	uint32_t proc = 0, user = 0;

	TAILQ_FOREACH(o, &ch->sessions, next) {
		if (o->pid == s->pid)
			proc += o->co.nids;
		if (o->uid == s->uid)
			user += o->co.nids;
	}
	return proc < MPD_CM_PROC_IDS && user < MPD_CM_USER_IDS;
}

static int
cm_create_id(struct hca_chan *ch, struct hca_session *s,
	     struct mpd_chan_msg *m)
{
	const struct mpd_cm_create_id_req *r = &m->u.cm_create_id_req;
	uint32_t h = 0;
	int rc;

	lock(ch);
	if (!id_share_ok(ch, s)) {
		unlock(ch);
		return ENOMEM;
	}
	rc = hca_cma_create(cma_of(ch), owner(s), r->ps, r->qp_type, &h);
	unlock(ch);
	if (rc)
		return rc;
	memset(&m->u, 0, sizeof(m->u.cm_id_rep));
	m->u.cm_id_rep.id = h;
	m->len = sizeof(m->u.cm_id_rep);
	return 0;
}

static int
cm_destroy_id(struct hca_chan *ch, struct hca_session *s,
	      struct mpd_chan_msg *m)
{
	uint32_t h = m->u.cm_id_req.id, n = 0;
	int rc;

	lock(ch);
	rc = hca_cma_destroy(cma_of(ch), owner(s), h, hca_cm_now(), &n);
	unlock(ch);
	if (rc)
		return rc;
	m->u.cm_events_rep.events_reported = n;
	m->len = sizeof(m->u.cm_events_rep);
	return 0;
}

static int
cm_bind(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	const struct mpd_cm_bind_req *r = &m->u.cm_bind_req;
	int rc;

	lock(ch);
	rc = hca_cma_bind(cma_of(ch), owner(s), r->id, &r->addr);
	unlock(ch);
	m->len = 0;
	return rc;
}

static int
cm_resolve_addr(struct hca_chan *ch, struct hca_session *s,
		struct mpd_chan_msg *m)
{
	int rc;

	lock(ch);
	rc = hca_cma_resolve_addr(cma_of(ch), owner(s),
				  &m->u.cm_resolve_addr_req);
	unlock(ch);
	m->len = 0;
	return rc;
}

static int
cm_resolve_route(struct hca_chan *ch, struct hca_session *s,
		 struct mpd_chan_msg *m)
{
	int rc;

	lock(ch);
	rc = hca_cma_resolve_route(cma_of(ch), owner(s),
				   &m->u.cm_resolve_route_req);
	unlock(ch);
	if (rc == ENETUNREACH && chan_warn_ok(ch))
		CHAN_LOG(WARNING, "%s: pid %d: rdma_resolve_route: the port has no SM (start one, e.g. opensm)",
			 ch->node, (int)s->pid);
	m->len = 0;
	return rc;
}

static int
cm_query(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	struct mpd_cm_id_info info;
	uint32_t h = m->u.cm_id_req.id;
	int rc;

	lock(ch);
	rc = hca_cma_query(cma_of(ch), owner(s), h, &info);
	unlock(ch);
	if (rc)
		return rc;
	m->u.cm_id_info = info;
	m->len = sizeof(info);
	return 0;
}

/* A request naming an id and a number: LISTEN's backlog, NOTIFY's event */
static int
id_arg_op(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m,
	  int (*op)(struct hca_cma *, struct hca_cma_owner *, uint32_t,
		    uint32_t))
{
	const struct mpd_cm_id_req *r = &m->u.cm_id_req;
	int rc;

	lock(ch);
	rc = op(cma_of(ch), owner(s), r->id, r->arg);
	unlock(ch);
	m->len = 0;
	return rc;
}

static int
cm_listen(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	return id_arg_op(ch, s, m, hca_cma_listen);
}

static int
conn_param_ok(const struct mpd_cm_conn_param *p)
{
	return p->private_data_len <= MPD_CM_PDATA_MAX &&
	       p->qp_num <= 0xffffff ? 0 : EINVAL;
}

/* CONNECT and ACCEPT: an id and its connection's parameters */
static int
conn_op(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m,
	int (*op)(struct hca_cma *, struct hca_cma_owner *, uint32_t,
		  const struct mpd_cm_conn_param *, uint64_t))
{
	const struct mpd_cm_conn_req *r = &m->u.cm_conn_req;
	int rc = conn_param_ok(&r->param);

	if (rc)
		return rc;
	lock(ch);
	rc = op(cma_of(ch), owner(s), r->id, &r->param, hca_cm_now());
	unlock(ch);
	m->len = 0;
	return rc;
}

static int
cm_connect(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	return conn_op(ch, s, m, hca_cma_connect);
}

static int
cm_accept(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	return conn_op(ch, s, m, hca_cma_accept);
}

static int
cm_reject(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	const struct mpd_cm_reject_req *r = &m->u.cm_reject_req;
	int rc;

	if (r->private_data_len > MPD_CM_REJ_PDATA_LEN)
		return EINVAL;
	lock(ch);
	rc = hca_cma_reject(cma_of(ch), owner(s), r->id, r->private_data,
			    r->private_data_len, hca_cm_now());
	unlock(ch);
	m->len = 0;
	return rc;
}

static int
cm_disconnect(struct hca_chan *ch, struct hca_session *s,
	      struct mpd_chan_msg *m)
{
	int rc;

	lock(ch);
	rc = hca_cma_disconnect(cma_of(ch), owner(s), m->u.cm_id_req.id,
				hca_cm_now());
	unlock(ch);
	m->len = 0;
	return rc;
}

static int
cm_init_qp_attr(struct hca_chan *ch, struct hca_session *s,
		struct mpd_chan_msg *m)
{
	const struct mpd_cm_qp_attr_req r = m->u.cm_qp_attr_req;
	struct mpd_cm_qp_attr_rep rep;
	int rc;

	lock(ch);
	rc = hca_cma_init_qp_attr(cma_of(ch), owner(s), r.id, r.qp_state,
				  &rep);
	unlock(ch);
	if (rc)
		return rc;
	m->u.cm_qp_attr_rep = rep;
	m->len = sizeof(rep);
	return 0;
}

static int
cm_notify(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	return id_arg_op(ch, s, m, hca_cma_notify);
}

static int
cm_set_option(struct hca_chan *ch, struct hca_session *s,
	      struct mpd_chan_msg *m)
{
	int rc;

	lock(ch);
	rc = hca_cma_set_option(cma_of(ch), owner(s), &m->u.cm_option_req);
	unlock(ch);
	m->len = 0;
	return rc;
}

static int
cm_migrate_id(struct hca_chan *ch, struct hca_session *s,
	      struct mpd_chan_msg *m)
{
	uint32_t h = m->u.cm_id_req.id, n = 0;
	int rc;

	lock(ch);
	rc = hca_cma_migrate(cma_of(ch), owner(s), h, &n);
	unlock(ch);
	if (rc)
		return rc;
	m->u.cm_events_rep.events_reported = n;
	m->len = sizeof(m->u.cm_events_rep);
	return 0;
}

static int
cm_establish(struct hca_chan *ch, struct hca_session *s,
	     struct mpd_chan_msg *m)
{
	int rc;

	lock(ch);
	rc = hca_cma_establish(cma_of(ch), owner(s), m->u.cm_id_req.id);
	unlock(ch);
	m->len = 0;
	return rc;
}

static int
cm_join_mcast(struct hca_chan *ch, struct hca_session *s,
	      struct mpd_chan_msg *m)
{
	int rc;

	lock(ch);
	rc = hca_cma_join(cma_of(ch), owner(s), &m->u.cm_join_req);
	unlock(ch);
	m->len = 0;
	return rc;
}

static int
cm_leave_mcast(struct hca_chan *ch, struct hca_session *s,
	       struct mpd_chan_msg *m)
{
	const struct mpd_cm_join_req r = m->u.cm_join_req;
	uint32_t n = 0;
	int rc;

	lock(ch);
	rc = hca_cma_leave(cma_of(ch), owner(s), &r, &n);
	unlock(ch);
	if (rc)
		return rc;
	m->u.cm_events_rep.events_reported = n;
	m->len = sizeof(m->u.cm_events_rep);
	return 0;
}

void
hca_chan_cm_end(struct hca_chan *ch, struct hca_session *s)
{
	if (!ch->cfg.cm || !s->co.ops)
		return;
	lock(ch);
	/* DREQ for its connections, REJ for requests it never answered */
	hca_cma_owner_gone(cma_of(ch), &s->co, hca_cm_now());
	unlock(ch);
}

static const struct hca_chan_handler cm_handlers[] = {
	{ MPD_CM_CREATE_ID, cm_create_id },
	{ MPD_CM_DESTROY_ID, cm_destroy_id },
	{ MPD_CM_BIND, cm_bind },
	{ MPD_CM_RESOLVE_ADDR, cm_resolve_addr },
	{ MPD_CM_RESOLVE_ROUTE, cm_resolve_route },
	{ MPD_CM_QUERY, cm_query },
	{ MPD_CM_LISTEN, cm_listen },
	{ MPD_CM_CONNECT, cm_connect },
	{ MPD_CM_ACCEPT, cm_accept },
	{ MPD_CM_REJECT, cm_reject },
	{ MPD_CM_DISCONNECT, cm_disconnect },
	{ MPD_CM_INIT_QP_ATTR, cm_init_qp_attr },
	{ MPD_CM_NOTIFY, cm_notify },
	{ MPD_CM_SET_OPTION, cm_set_option },
	{ MPD_CM_MIGRATE_ID, cm_migrate_id },
	{ MPD_CM_ESTABLISH, cm_establish },
	{ MPD_CM_JOIN_MCAST, cm_join_mcast },
	{ MPD_CM_LEAVE_MCAST, cm_leave_mcast },
	{ 0, NULL },
};

const struct hca_chan_service hca_chan_cm = {
	.rec_kind = MPD_CHAN_REC_CM,
	.handlers = cm_handlers,
	.ready = cm_ready,
};
