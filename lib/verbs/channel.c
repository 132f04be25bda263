/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion channels: a socket the daemon sends a byte to for each event
 * it raises on a CQ of the channel, after adding 1 to that CQ's
 * comp_events (madpmd/verbs.h). Which CQ it was is found by comparing
 * each CQ's comp_events with the events handed out for it.
 *
 * We hold our end of the daemon's socketpair only, and an eventfd of our
 * own that says "more events remain than were handed out".
 * channel->fd is an epoll fd over both: readable when either is, and its
 * O_NONBLOCK is the application's to set, as on the kernel's channel fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "verbs_priv.h"

struct mpd_v_channel_priv {
	struct mpd_v_channel ch;
	uint32_t handle;
	int efd;			/* our end of the daemon's socketpair */
	int more;			/* our eventfd: events remain */
};

VERBS_EXPORT struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct mpd_v_channel_priv *p;
	struct mpd_chan_msg m;
	int rc, fd = -1;

	p = calloc(1, sizeof(*p));
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_CREATE_CHANNEL;
	rc = mpd_v_call(mpd_verbs_ctx(context), &m, &fd);
	if (rc) {
		free(p);
		errno = rc;
		return NULL;
	}
	p->handle = m.u.v_handle.handle;
	p->efd = fd;
	p->ch.ch.context = context;
	p->more = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	p->ch.ch.fd = epoll_create1(EPOLL_CLOEXEC);
	if (p->more < 0 || p->ch.ch.fd < 0 ||
	    fcntl(fd, F_SETFL, O_NONBLOCK) != 0 ||
	    epoll_ctl(p->ch.ch.fd, EPOLL_CTL_ADD, fd,
		      &(struct epoll_event){ .events = EPOLLIN }) != 0 ||
	    epoll_ctl(p->ch.ch.fd, EPOLL_CTL_ADD, p->more,
		      &(struct epoll_event){ .events = EPOLLIN }) != 0)
		goto fail;
	return &p->ch.ch;
fail:
	rc = errno;
	if (p->ch.ch.fd >= 0)
		close(p->ch.ch.fd);
	if (p->more >= 0)
		close(p->more);
	mpd_v_destroy(mpd_verbs_ctx(context), MPD_V_DESTROY_CHANNEL, p->handle,
		      NULL);
	close(fd);
	free(p);
	errno = rc;
	return NULL;
}

uint32_t
mpd_v_channel_handle(struct ibv_comp_channel *ch)
{
	return ((struct mpd_v_channel_priv *)ch)->handle;
}

VERBS_EXPORT int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct mpd_v_channel_priv *p = (struct mpd_v_channel_priv *)channel;
	struct mpd_verbs_ctx *c;
	bool busy;
	int rc;

	/* the value of errno on failure, as rdma-core returns it */
	if (!channel)
		return EINVAL;
	c = mpd_verbs_ctx(channel->context);
	pthread_mutex_lock(&c->obj_lock);
	busy = p->ch.cqs != NULL;
	pthread_mutex_unlock(&c->obj_lock);
	if (busy) {
		errno = EBUSY;
		return EBUSY;
	}
	rc = mpd_v_destroy(c, MPD_V_DESTROY_CHANNEL, p->handle, NULL);
	if (rc) {
		errno = rc;
		return rc;
	}
	close(channel->fd);
	close(p->efd);
	close(p->more);
	free(p);
	return 0;
}

/* Hand out one event of a CQ of ch whose comp_events is past what was
 * handed out; *more when others remain. obj_lock held. */
static struct mpd_v_cq *
take_event(struct mpd_v_channel *ch, bool *more)
{
	struct mpd_v_cq *cq, *found = NULL;
	uint32_t raised;

	*more = false;
	for (cq = ch->cqs; cq; cq = cq->ch_next) {
		raised = __atomic_load_n(&cq->ring.shm->comp_events,
					 __ATOMIC_ACQUIRE);
		if (raised == cq->comp_returned)
			continue;
		if (!found) {
			found = cq;
			cq->comp_returned++;
			if (raised == cq->comp_returned)
				continue;
		}
		*more = true;
		break;
	}
	return found;
}

/* Read the socket and our eventfd empty: whether anything was there. */
static bool
channel_clear(const struct mpd_v_channel_priv *p)
{
	uint8_t buf[256];
	bool any = false;
	uint64_t v;
	ssize_t n;

	for (;;) {
		n = read(p->efd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0)
			any = true;
		if (n < (ssize_t)sizeof(buf))
			break;
	}
	if (read(p->more, &v, sizeof(v)) == (ssize_t)sizeof(v))
		any = true;
	return any;
}

/*
 * As the kernel's: blocks unless the fd was made O_NONBLOCK (EAGAIN).
 * The fd is readable while events are pending: it is read first (the
 * daemon counts an event before it writes the pipe), and "more" written
 * when more remain than the one handed out.
 */
VERBS_EXPORT int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		 void **cq_context)
{
	struct mpd_v_channel *ch = (struct mpd_v_channel *)channel;
	const struct mpd_v_channel_priv *p;
	struct mpd_verbs_ctx *c;
	struct mpd_v_cq *got;
	uint64_t one = 1;
	bool more;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	c = mpd_verbs_ctx(channel->context);
	p = (const struct mpd_v_channel_priv *)channel;
	for (;;) {
		if (!channel_clear(p)) {
			struct epoll_event ev;
			int fl = fcntl(channel->fd, F_GETFL);

			if (fl < 0)
				return -1;
			if (fl & O_NONBLOCK) {
				errno = EAGAIN;
				return -1;
			}
			if (epoll_wait(channel->fd, &ev, 1, -1) < 0 &&
			    errno != EINTR)
				return -1;
			continue;
		}
		pthread_mutex_lock(&c->obj_lock);
		got = take_event(ch, &more);
		pthread_mutex_unlock(&c->obj_lock);
		if (more && write(p->more, &one, sizeof(one)) < 0) {
			/* saturated: readable anyway */
		}
		if (got) {
			*cq = &got->cq;
			*cq_context = got->cq.cq_context;
			return 0;
		}
		/* a write for a CQ destroyed since: wait for the next */
	}
}

VERBS_EXPORT void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_broadcast(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}
