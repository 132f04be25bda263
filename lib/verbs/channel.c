/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion channels: a socketpair the daemon sends a byte on for each
 * event it raises on a CQ of the channel, after adding 1 to that CQ's
 * comp_events (madpmd/verbs.h). Which CQ it was is found by comparing
 * each CQ's comp_events with the events handed out for it.
 *
 * The daemon hands us both ends: ours, which is channel->fd, readable
 * while events are pending, its O_NONBLOCK the application's to set as
 * on the kernel's channel fd; and a copy of its own, on which we send
 * ourselves a byte when more events remain than the one handed out.
 * Waiting is a blocking recv() on channel->fd: restarted or not after a
 * signal handler exactly as the kernel's read() of its channel fd
 * (SA_RESTART), which a poll() could not be (signal(7)).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "verbs_priv.h"

struct mpd_v_channel_priv {
	struct mpd_v_channel ch;	/* ch.ch.fd: our end of the pair */
	uint32_t handle;
	int efd_w;			/* the daemon's end: wake ourselves */
};

VERBS_EXPORT struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct mpd_v_channel_priv *p;
	struct mpd_chan_msg m;
	int rc, fds[2];

	p = calloc(1, sizeof(*p));
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_CREATE_CHANNEL;
	rc = mpd_v_call_fds(mpd_verbs_ctx(context), &m, fds, 2);
	if (rc) {
		free(p);
		errno = rc;
		return NULL;
	}
	p->handle = m.u.v_handle.handle;
	p->ch.ch.context = context;
	p->ch.ch.fd = fds[0];
	p->efd_w = fds[1];
	/* blocking, as the kernel's; the daemon's end is left as it is:
	 * its flags are the daemon's, and we send with MSG_DONTWAIT */
	if (fcntl(fds[0], F_SETFL, 0) != 0) {
		rc = errno;
		mpd_v_destroy(mpd_verbs_ctx(context), MPD_V_DESTROY_CHANNEL,
			      p->handle, NULL);
		close(fds[0]);
		close(fds[1]);
		free(p);
		errno = rc;
		return NULL;
	}
	return &p->ch.ch;
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
	close(p->efd_w);
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

/* Read the socket empty: whether anything was there. */
static bool
channel_clear(const struct mpd_v_channel_priv *p)
{
	uint8_t buf[256];
	bool any = false;
	ssize_t n;

	for (;;) {
		n = recv(p->ch.ch.fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0)
			any = true;
		if (n < (ssize_t)sizeof(buf))
			return any;
	}
}

/* Until the socket is readable: 0, or -1 with errno EAGAIN (the
 * application made the fd non-blocking), EINTR (a signal whose handler
 * does not restart system calls) or EIO (the daemon is gone). */
static int
channel_wait(const struct mpd_v_channel_priv *p)
{
	uint8_t b;
	ssize_t n = recv(p->ch.ch.fd, &b, 1, MSG_PEEK);

	if (n > 0)
		return 0;
	if (n == 0)
		errno = EIO;
	return -1;
}

/*
 * As the kernel's: blocks unless the fd was made O_NONBLOCK (EAGAIN),
 * and returns EINTR where its read() would. The fd is read first (the
 * daemon counts an event before it sends), and a byte sent back when
 * more remain than the one handed out.
 */
VERBS_EXPORT int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		 void **cq_context)
{
	struct mpd_v_channel *ch = (struct mpd_v_channel *)channel;
	const struct mpd_v_channel_priv *p;
	struct mpd_verbs_ctx *c;
	struct mpd_v_cq *got;
	static const uint8_t one = 1;
	bool more;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	c = mpd_verbs_ctx(channel->context);
	p = (const struct mpd_v_channel_priv *)channel;
	for (;;) {
		if (!channel_clear(p)) {
			if (channel_wait(p))
				return -1;
			continue;
		}
		pthread_mutex_lock(&c->obj_lock);
		got = take_event(ch, &more);
		pthread_mutex_unlock(&c->obj_lock);
		if (more && send(p->efd_w, &one, 1,
				 MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			/* full: readable anyway */
		}
		if (got) {
			*cq = &got->cq;
			*cq_context = got->cq.cq_context;
			return 0;
		}
		/* a byte for a CQ destroyed since: wait for the next */
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
