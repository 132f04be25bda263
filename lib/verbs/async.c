/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Async events: records of kind MPD_CHAN_REC_ASYNC in the device
 * session's receive ring, and each other port's events in the ring of a
 * session of that port, whose eventfds are under the context's async_fd
 * (madpmd/verbs.h). The fd follows the ring as a umad port fd does
 * (lib/chan/wake.c): readable exactly when records are queued.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_priv.h"

/* Which kind of object an event names (as rdma-core's ack sorts them) */
static uint32_t
event_kind(uint32_t type)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		return MPD_V_OBJ_CQ;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return MPD_V_OBJ_QP;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return MPD_V_OBJ_SRQ;
	default:
		return MPD_V_OBJ_PORT;
	}
}

/* A record as an event: false for one to drop (of an object destroyed
 * before it was read, or garbage). obj_lock taken. */
static bool
to_event(struct mpd_verbs_ctx *c, const struct mpd_v_async_rec *r,
	 struct ibv_async_event *ev)
{
	struct mpd_v_skip **sp, *s;
	struct mpd_v_objref *o;
	bool ok = false;

	if (event_kind(r->event_type) != r->obj)
		return false;
	memset(ev, 0, sizeof(*ev));
	ev->event_type = (enum ibv_event_type)r->event_type;
	if (r->obj == MPD_V_OBJ_PORT) {
		if (r->handle < 1 || r->handle > c->vdev->node.num_ports)
			return false;
		ev->element.port_num = (int)r->handle;
		return true;
	}
	pthread_mutex_lock(&c->obj_lock);
	for (sp = &c->skips; (s = *sp); sp = &s->next)
		if (s->kind == r->obj && s->handle == r->handle) {
			if (!--s->left) {
				*sp = s->next;
				free(s);
			}
			goto out;
		}
	for (o = c->objs; o; o = o->next)
		if (o->kind == r->obj && o->handle == r->handle)
			break;
	if (!o)
		goto out;
	o->async_returned++;
	switch (r->obj) {
	case MPD_V_OBJ_QP:
		ev->element.qp = o->obj;
		break;
	case MPD_V_OBJ_CQ:
		ev->element.cq = o->obj;
		break;
	default:
		ev->element.srq = o->obj;
		/* the limit fired: the SRQ is disarmed (IBA 10.2.9.4) */
		if (r->event_type == IBV_EVENT_SRQ_LIMIT_REACHED)
			((struct mpd_v_srq *)o->obj)->srq_limit = 0;
		break;
	}
	ok = true;
out:
	pthread_mutex_unlock(&c->obj_lock);
	return ok;
}

/* The next event of one ring: 1 with one, 0 when none is queued, -1 on
 * a corrupt ring. The device's ring (port 1's session) carries every
 * kind; another port's session only that port's events. rx_lock held. */
static int
take_ring(struct mpd_verbs_ctx *c, struct mpd_ring_view *rx,
	  struct mpd_chan_rx_wake *w, unsigned int port,
	  struct ibv_async_event *ev)
{
	struct mpd_v_async_rec r;
	const uint8_t *data;
	uint32_t len, kind;
	bool got;
	int rc;

	for (;;) {
		rc = mpd_ring_peek(rx, &data, &len, &kind);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			if (mpd_chan_rx_settle(w, rx))
				return 0;
			continue;
		}
		got = false;
		if (kind == MPD_CHAN_REC_ASYNC && len >= sizeof(r)) {
			memcpy(&r, data, sizeof(r));
			got = (port == 1 || (r.obj == MPD_V_OBJ_PORT &&
					     r.handle == port)) &&
			      to_event(c, &r, ev);
		}
		mpd_ring_consume(rx);
		if (!got)
			continue;
		if (mpd_ring_empty(rx))
			mpd_chan_rx_settle(w, rx);
		else
			mpd_chan_rx_left_queued(w);
		return 1;
	}
}

/* The next event of any port. rx_lock held. */
static int
take(struct mpd_verbs_ctx *c, struct ibv_async_event *ev)
{
	unsigned int i;
	int rc = take_ring(c, &c->rx, &c->wake, 1, ev);

	for (i = 0; !rc && c->prx && i + 2 <= c->vdev->node.num_ports; i++)
		rc = take_ring(c, &c->prx[i].rx, &c->prx[i].wake, i + 2, ev);
	return rc;
}

VERBS_EXPORT int
ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct mpd_verbs_ctx *c = mpd_verbs_ctx(context);
	/* the async fd, an epoll fd over every port's wake-ups, is
	 * readable when one of them is, whatever its O_NONBLOCK */
	struct pollfd p[2] = {
		{ .fd = context->async_fd, .events = POLLIN },
		{ .fd = c->ctl_sock[0], .events = POLLRDHUP },
	};
	int rc, fl;

	for (;;) {
		pthread_mutex_lock(&c->rx_lock);
		rc = take(c, event);
		pthread_mutex_unlock(&c->rx_lock);
		if (rc > 0)
			return 0;
		if (rc < 0) {
			errno = EIO;
			return -1;
		}
		/* as the kernel's fd: blocking unless the caller made it not */
		fl = fcntl(context->async_fd, F_GETFL);
		if (fl < 0 || (fl & O_NONBLOCK)) {
			errno = EAGAIN;
			return -1;
		}
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!(p[0].revents & POLLIN) &&
		    (p[1].revents & (POLLHUP | POLLRDHUP | POLLERR))) {
			/* the daemon is gone: no event will ever come */
			errno = EIO;
			return -1;
		}
	}
}

VERBS_EXPORT void
ibv_ack_async_event(struct ibv_async_event *event)
{
	pthread_mutex_t *m;
	pthread_cond_t *cv;
	uint32_t *n;

	switch (event_kind(event->event_type)) {
	case MPD_V_OBJ_CQ:
		m = &event->element.cq->mutex;
		cv = &event->element.cq->cond;
		n = &event->element.cq->async_events_completed;
		break;
	case MPD_V_OBJ_QP:
		m = &event->element.qp->mutex;
		cv = &event->element.qp->cond;
		n = &event->element.qp->events_completed;
		break;
	case MPD_V_OBJ_SRQ:
		m = &event->element.srq->mutex;
		cv = &event->element.srq->cond;
		n = &event->element.srq->events_completed;
		break;
	default:
		return;
	}
	pthread_mutex_lock(m);
	++*n;
	pthread_cond_broadcast(cv);
	pthread_mutex_unlock(m);
}
