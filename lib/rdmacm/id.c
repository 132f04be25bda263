/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ids: the daemon names each by a handle (madpmd/cma.h); the process
 * keeps one table of them, since an id's records may sit in the ring of a
 * channel it left (rdma_migrate_id()). An id counts its records taken out
 * of a ring and those completed (acked by the application, or dropped by
 * us), so that rdma_destroy_id() returns once every event it was given
 * is acked and nothing of it is left to hand out, as rdma-core's
 * ucma_destroy_kern_id() / events_completed do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "madpmd/clock.h"
#include "rdmacm_priv.h"

#define ID_BUCKETS	256

static pthread_mutex_t tbl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cma_id *tbl[ID_BUCKETS];

static struct cma_id **
bucket(uint32_t handle)
{
	return &tbl[(handle ^ (handle >> 8)) % ID_BUCKETS];
}

/* tbl_lock held */
static struct cma_id *
find(uint32_t handle)
{
	struct cma_id *p;

	for (p = *bucket(handle); p; p = p->hnext)
		if (p->handle == handle)
			return p;
	return NULL;
}

/* tbl_lock held */
static void
unlist(struct cma_id *p)
{
	struct cma_id **pp;

	for (pp = bucket(p->handle); *pp; pp = &(*pp)->hnext)
		if (*pp == p) {
			*pp = p->hnext;
			break;
		}
	p->hnext = NULL;
}

struct cma_id *
cma_id_lookup(uint32_t handle)
{
	struct cma_id *p;

	pthread_mutex_lock(&tbl_lock);
	p = find(handle);
	pthread_mutex_unlock(&tbl_lock);
	return p;
}

struct cma_id *
cma_id_alloc(struct rdma_event_channel *channel, void *context,
	     enum rdma_port_space ps, enum ibv_qp_type qp_type)
{
	struct cma_id *p = calloc(1, sizeof(*p));

	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	if (!channel) {
		channel = rdma_create_event_channel();
		if (!channel) {
			free(p);
			return NULL;
		}
		p->sync = true;
	}
	p->id.channel = channel;
	p->id.context = context;
	p->id.ps = ps;
	p->id.qp_type = qp_type;
	pthread_mutex_init(&p->mut, NULL);
	pthread_cond_init(&p->cond, NULL);
	return p;
}

void
cma_id_insert(struct cma_id *p, uint32_t handle)
{
	struct cma_id **b;

	p->handle = handle;
	pthread_mutex_lock(&tbl_lock);
	b = bucket(handle);
	p->hnext = *b;
	*b = p;
	pthread_mutex_unlock(&tbl_lock);
}

void
cma_id_free(struct cma_id *p)
{
	pthread_mutex_lock(&tbl_lock);
	if (p->handle)
		unlist(p);
	pthread_mutex_unlock(&tbl_lock);
	if (p->dev)
		cma_device_put(p->dev);
	free(p->id.route.path_rec);
	if (p->sync)
		rdma_destroy_event_channel(p->id.channel);
	free(p->connect);
	free(p->qp_init_attr);
	/* the daemon left the joins with the id */
	while (p->mc_list) {
		struct cma_mc *mc = p->mc_list;

		p->mc_list = mc->next;
		free(mc);
	}
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->mut);
	free(p);
}

void
cma_id_taken(struct cma_id *p)
{
	pthread_mutex_lock(&p->mut);
	p->out++;
	pthread_mutex_unlock(&p->mut);
}

void
cma_id_complete(struct cma_id *p)
{
	pthread_mutex_lock(&p->mut);
	p->completed++;
	if (p->out)
		p->out--;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->mut);
}

int
cma_id_call(struct cma_id *p, uint32_t type, uint32_t arg)
{
	struct mpd_chan_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.len = sizeof(m.u.cm_id_req);
	m.u.cm_id_req.id = p->handle;
	m.u.cm_id_req.arg = arg;
	return cma_call(cma_chan(p->id.channel), &m);
}

void
cma_destroy_handle(struct cma_chan *c, uint32_t handle)
{
	struct mpd_chan_msg m;

	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_DESTROY_ID;
	m.len = sizeof(m.u.cm_id_req);
	m.u.cm_id_req.id = handle;
	cma_call(c, &m);
}

int
cma_drain(struct cma_chan *c)
{
	struct mpd_cm_event_rec r;
	struct cma_rec *q;
	struct cma_id *p;
	bool keep;
	int rc;

	while ((rc = cma_chan_pull(c, &r)) > 0) {
		q = NULL;
		pthread_mutex_lock(&tbl_lock);
		p = find(r.id);
		keep = p && !p->dying;
		if (keep)
			q = malloc(sizeof(*q));
		if (p) {
			pthread_mutex_lock(&p->mut);
			p->seen++;
			if (!q)
				p->completed++;
			pthread_cond_broadcast(&p->cond);
			pthread_mutex_unlock(&p->mut);
		}
		pthread_mutex_unlock(&tbl_lock);
		if (!q) {
			/* a request nobody will take: the daemon made an id
			 * for it, which rejects it when destroyed */
			if (r.event == RDMA_CM_EVENT_CONNECT_REQUEST && r.child)
				cma_destroy_handle(c, r.child);
			continue;
		}
		q->r = r;
		q->next = NULL;
		*c->queued_tail = q;
		c->queued_tail = &q->next;
	}
	cma_chan_rearm(c);
	return rc < 0 ? EIO : 0;
}

/* Take the id's records out of c's list: completed (dropped) when to is
 * NULL, else moved into to's list before any of its own. Both rx_locks
 * held. How many. */
static uint32_t
take_out(struct cma_chan *c, struct cma_id *p, struct cma_chan *to)
{
	struct cma_rec **pp, *q, *moved = NULL, **mt = &moved, **at;
	uint32_t n = 0;

	for (pp = &c->queued; (q = *pp);) {
		if (q->r.id != p->handle) {
			pp = &q->next;
			continue;
		}
		*pp = q->next;
		q->next = NULL;
		n++;
		if (to) {
			*mt = q;
			mt = &q->next;
		} else {
			free(q);
		}
	}
	c->queued_tail = &c->queued;
	while (*c->queued_tail)
		c->queued_tail = &(*c->queued_tail)->next;
	if (!to || !moved)
		return n;
	/* the ring is in order: the records there are newer than these */
	for (at = &to->queued; *at && (*at)->r.id != p->handle;
	     at = &(*at)->next)
		;
	*mt = *at;
	*at = moved;
	to->queued_tail = &to->queued;
	while (*to->queued_tail)
		to->queued_tail = &(*to->queued_tail)->next;
	return n;
}

static void
wait_a_little(struct cma_id *p)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 10 * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&p->cond, &p->mut, &ts);
}

int
cma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
	      void *context, enum rdma_port_space ps, enum ibv_qp_type qp_type)
{
	struct mpd_chan_msg m;
	struct cma_id *p;
	int rc;

	if (!id)
		return cma_err(EINVAL);
	p = cma_id_alloc(channel, context, ps, qp_type);
	if (!p)
		return -1;
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_CREATE_ID;
	m.len = sizeof(m.u.cm_create_id_req);
	m.u.cm_create_id_req.ps = (uint32_t)ps;
	m.u.cm_create_id_req.qp_type = (uint32_t)qp_type;
	rc = cma_call(cma_chan(p->id.channel), &m);
	if (!rc && !m.u.cm_id_rep.id)
		rc = EPROTO;
	if (rc) {
		cma_id_free(p);
		return cma_err(rc);
	}
	cma_id_insert(p, m.u.cm_id_rep.id);
	*id = &p->id;
	return 0;
}

CMA_EXPORT int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
	       void *context, enum rdma_port_space ps)
{
	enum ibv_qp_type qp_type;

	qp_type = (ps == RDMA_PS_IPOIB || ps == RDMA_PS_UDP) ?
		  IBV_QPT_UD : IBV_QPT_RC;
	return cma_create_id(channel, id, context, ps, qp_type);
}

CMA_EXPORT int
rdma_destroy_id(struct rdma_cm_id *id)
{
	struct cma_id *p = cma_id(id);
	struct cma_chan *c;
	struct mpd_chan_msg m;
	uint64_t deadline;
	uint32_t reported;
	bool done;
	int rc;

	if (!id)
		return cma_err(EINVAL);
	c = cma_chan(id->channel);
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_DESTROY_ID;
	m.len = sizeof(m.u.cm_id_req);
	m.u.cm_id_req.id = p->handle;
	rc = cma_call(c, &m);
	/* a session that is gone took its ids with it: nothing to wait for */
	if (rc == EIO || rc == ENOSYS) {
		if (id->event)
			rdma_ack_cm_event(id->event);
		cma_id_free(p);
		return 0;
	}
	if (rc)
		return cma_err(rc);
	reported = m.u.cm_events_rep.events_reported;
	if (id->event) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}
	pthread_mutex_lock(&tbl_lock);
	p->dying = true;
	pthread_mutex_unlock(&tbl_lock);
	/* what waits in the list is never handed out now */
	pthread_mutex_lock(&c->rx_lock);
	cma_drain(c);
	rc = (int)take_out(c, p, NULL);
	cma_chan_rearm(c);
	pthread_mutex_unlock(&c->rx_lock);
	pthread_mutex_lock(&p->mut);
	p->completed += (uint32_t)rc;
	pthread_mutex_unlock(&p->mut);
	/* the events the daemon counted and we have not seen are dropped as
	 * they come; those handed out must be acked */
	deadline = mpd_mono_ms() + CMA_DRAIN_WAIT_MS;
	for (;;) {
		bool all_seen;

		pthread_mutex_lock(&tbl_lock);
		pthread_mutex_lock(&p->mut);
		all_seen = (int32_t)(p->seen - reported) >= 0 ||
			   mpd_mono_ms() >= deadline;
		done = all_seen && (int32_t)(p->completed - p->seen) >= 0;
		if (done)
			unlist(p);
		pthread_mutex_unlock(&tbl_lock);
		if (done) {
			pthread_mutex_unlock(&p->mut);
			break;
		}
		if (all_seen) {
			pthread_cond_wait(&p->cond, &p->mut);
			pthread_mutex_unlock(&p->mut);
			continue;
		}
		wait_a_little(p);
		pthread_mutex_unlock(&p->mut);
		pthread_mutex_lock(&c->rx_lock);
		cma_drain(c);
		pthread_mutex_unlock(&c->rx_lock);
	}
	cma_id_free(p);
	return 0;
}

CMA_EXPORT int
rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	struct cma_chan *from, *to, *a, *b;
	struct cma_id *p = cma_id(id);
	struct mpd_chan_msg m;
	bool sync;
	int rc;

	if (!id || (p->sync && !channel))
		return cma_err(EINVAL);
	sync = !channel;
	if (sync) {
		channel = rdma_create_event_channel();
		if (!channel)
			return -1;
	}
	from = cma_chan(id->channel);
	to = cma_chan(channel);
	if (from == to) {
		if (sync)
			rdma_destroy_event_channel(channel);
		return 0;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_MIGRATE_ID;
	m.len = sizeof(m.u.cm_id_req);
	m.u.cm_id_req.id = p->handle;
	rc = cma_call(to, &m);
	if (rc) {
		if (sync)
			rdma_destroy_event_channel(channel);
		return cma_err(rc);
	}
	/* the records queued before stay in the old ring: they follow the
	 * id, as the kernel moves its queued events to the new file */
	a = from < to ? from : to;
	b = from < to ? to : from;
	pthread_mutex_lock(&a->rx_lock);
	pthread_mutex_lock(&b->rx_lock);
	cma_drain(from);
	take_out(from, p, to);
	cma_chan_rearm(from);
	cma_chan_rearm(to);
	pthread_mutex_unlock(&b->rx_lock);
	pthread_mutex_unlock(&a->rx_lock);
	if (p->sync) {
		if (id->event) {
			rdma_ack_cm_event(id->event);
			id->event = NULL;
		}
		rdma_destroy_event_channel(id->channel);
	}
	/* the events handed out on the old channel are acked before the
	 * application goes on with the new one (ucma's migrate waits so) */
	pthread_mutex_lock(&p->mut);
	p->sync = sync;
	id->channel = channel;
	while (p->out)
		pthread_cond_wait(&p->cond, &p->mut);
	pthread_mutex_unlock(&p->mut);
	return 0;
}

CMA_EXPORT int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct cma_event *e = (struct cma_event *)event;

	if (!event)
		return cma_err(EINVAL);
	if (e->mc) {
		/* rdma_leave_multicast() waits for this */
		pthread_mutex_lock(&e->owner->mut);
		e->mc->out--;
		pthread_mutex_unlock(&e->owner->mut);
	}
	cma_id_complete(e->owner);
	free(e);
	return 0;
}
