/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event channels (madpmd/cma.h): each is a session with the daemon on the
 * node's port-1 socket, as a umad port is. Requests travel on its control
 * socket, one at a time; events arrive as MPD_CHAN_REC_CM records in its
 * receive ring; its eventfd is the channel's fd, kept readable exactly
 * while an event waits (madpmd/chan.h, "Wake-ups").
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "rdmacm_priv.h"

static int
map_rx(struct cma_chan *c, int memfd, uint32_t shm_size)
{
	int rc = -mpd_chan_map_rx(memfd, shm_size, &c->shm, &c->rx);

	if (!rc)
		c->shm_size = shm_size;
	return rc;
}

struct cma_chan *
cma_chan_open(void)
{
	struct mpd_chan_node node;
	struct mpd_chan_session h;
	struct cma_chan *c;
	int rc;

	switch (mpd_chan_node_lookup(NULL, &node)) {
	case MPD_CHAN_NODE_FOUND:
		break;
	case MPD_CHAN_NODE_UNKNOWN:
		mpd_chan_once(MPD_CHAN_ONCE_UNKNOWN_NODE,
			  "no node \"%s\" in %s/%s (set MADPMD_NODE to a node of the fabric)",
			  node.name, node.run_dir, MPD_CHAN_NODES);
		errno = ENODEV;
		return NULL;
	default:
		mpd_chan_once(MPD_CHAN_ONCE_NO_FABRIC,
			  "no fabric running: no node listed in %s/%s (start madpmd, or set MADPMD_RUN_DIR)",
			  node.run_dir, MPD_CHAN_NODES);
		errno = ENODEV;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	/* says why on stderr itself */
	rc = mpd_chan_hello(&node, 1, &h);
	if (rc < 0) {
		free(c);
		errno = mpd_chan_hello_errno(rc);
		return NULL;
	}
	rc = map_rx(c, h.memfd, h.rep.shm_size);
	if (rc) {
		if (c->shm)
			munmap(c->shm, c->shm_size);
		mpd_chan_session_close(&h);
		free(c);
		errno = rc;
		return NULL;
	}
	snprintf(c->path, sizeof(c->path), "%s/%s/%s", node.run_dir, node.name,
		 MPD_CHAN_SOCK);
	/*
	 * The application's fd is an epoll fd of its own over the session's
	 * wake-up socket, readable exactly when it is: blocking, as the
	 * kernel's rdma_cm fd, until the application makes it O_NONBLOCK,
	 * which then says nothing of the socket, which we read without
	 * blocking.
	 */
	c->ch.fd = epoll_create1(EPOLL_CLOEXEC);
	if (c->ch.fd < 0 ||
	    epoll_ctl(c->ch.fd, EPOLL_CTL_ADD, h.efd,
		      &(struct epoll_event){ .events = EPOLLIN }) < 0) {
		rc = errno;
		if (c->ch.fd >= 0)
			close(c->ch.fd);
		munmap(c->shm, c->shm_size);
		mpd_chan_session_close(&h);
		free(c);
		errno = rc;
		return NULL;
	}
	c->sock = h.sock;
	c->seq = h.seq;
	c->efd = h.efd;
	c->wake.efd = h.efd;
	c->wake.efd_w = h.efd_w;
	c->wake.shm = c->shm;
	/* ours alone, non-blocking as the daemon made it */
	c->wake.may_block = false;
	c->queued_tail = &c->queued;
	c->refs = 1;
	pthread_mutex_init(&c->ctl_lock, NULL);
	pthread_mutex_init(&c->rx_lock, NULL);
	/* we post nothing on the send ring: no doorbell to ring */
	close(h.memfd);
	if (h.doorbell >= 0)
		close(h.doorbell);
	if (h.doorbell_rd >= 0)
		close(h.doorbell_rd);
	return c;
}

void
cma_chan_close(struct cma_chan *c)
{
	struct cma_rec *q;

	close(c->sock);
	if (c->ch.fd >= 0)
		close(c->ch.fd);
	close(c->efd);
	close(c->wake.efd_w);
	munmap(c->shm, c->shm_size);
	while ((q = c->queued)) {
		c->queued = q->next;
		free(q);
	}
	pthread_mutex_destroy(&c->ctl_lock);
	pthread_mutex_destroy(&c->rx_lock);
	free(c);
}

void
cma_chan_get(struct cma_chan *c)
{
	__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
}

void
cma_chan_put(struct cma_chan *c)
{
	if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0)
		cma_chan_close(c);
}

bool
cma_chan_closing(struct cma_chan *c)
{
	return __atomic_load_n(&c->closing, __ATOMIC_ACQUIRE);
}

/* The session ended under a request: a daemon that still takes
 * connections cut us off for a request it does not serve (one without
 * the rdma_cm service); one that does not is gone. */
static int
why_gone(struct cma_chan *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, rc;

	if (strlen(c->path) >= sizeof(sa.sun_path))
		return EIO;
	memcpy(sa.sun_path, c->path, strlen(c->path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return EIO;
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	if (rc < 0) {
		mpd_chan_once(MPD_CHAN_ONCE_NO_FABRIC,
			  "the daemon at %s is gone (rdma_cm calls fail with EIO)",
			  c->path);
		return EIO;
	}
	mpd_chan_once(MPD_CHAN_ONCE_PROTOCOL,
		  "the daemon at %s does not serve rdma_cm (rdma_cm calls fail with ENOSYS); is it a madpmd with the CM?",
		  c->path);
	return ENOSYS;
}

int
cma_call(struct cma_chan *c, struct mpd_chan_msg *m)
{
	int rc;

	pthread_mutex_lock(&c->ctl_lock);
	if (c->dead) {
		rc = c->dead;
		goto out;
	}
	rc = mpd_chan_call(c->sock, &c->seq, m, NULL, 0, NULL);
	if (rc == -ETIMEDOUT) {
		/* a daemon that does not answer: its late reply is skipped */
		rc = EIO;
		goto out;
	}
	if (rc < 0) {
		c->dead = why_gone(c);
		rc = c->dead;
		goto out;
	}
	rc = m->status;
	if (rc < 0 || rc > 4095)
		rc = EPROTO;
out:
	pthread_mutex_unlock(&c->ctl_lock);
	return rc;
}

int
cma_chan_pull(struct cma_chan *c, struct mpd_cm_event_rec *r)
{
	const uint8_t *data;
	uint32_t len, kind;
	int rc;

	for (;;) {
		rc = mpd_ring_peek(&c->rx, &data, &len, &kind);
		if (rc < 0)
			return -EIO;
		if (rc == 0)
			return 0;
		rc = kind == MPD_CHAN_REC_CM && len == sizeof(*r);
		if (rc)
			memcpy(r, data, sizeof(*r));
		mpd_ring_consume(&c->rx);
		if (rc)
			return 1;
	}
}

void
cma_chan_rearm(struct cma_chan *c)
{
	if (c->queued || !mpd_ring_empty(&c->rx)) {
		mpd_chan_rx_left_queued(&c->wake);
		return;
	}
	mpd_chan_rx_settle(&c->wake, &c->rx);
}

int
cma_chan_wait(struct cma_chan *c, int timeout_ms)
{
	struct pollfd p[2] = {
		{ .fd = c->efd, .events = POLLIN },
		{ .fd = c->sock, .events = POLLRDHUP },
	};
	int n;

	do
		n = poll(p, 2, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	if (n == 0)
		return ETIMEDOUT;
	if (!(p[0].revents & POLLIN) &&
	    (p[1].revents & (POLLHUP | POLLRDHUP | POLLERR)))
		return EIO;		/* no event will ever come */
	return 0;
}

CMA_EXPORT struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct cma_chan *c = cma_chan_open();

	return c ? &c->ch : NULL;
}

CMA_EXPORT void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct cma_chan *c = cma_chan(channel);

	if (!c)
		return;
	__atomic_store_n(&c->closing, true, __ATOMIC_RELEASE);
	/* the application's fd number is free at once, as after close();
	 * a thread waiting on the session's wake-ups wakes to EOF */
	close(c->ch.fd);
	__atomic_store_n(&c->ch.fd, -1, __ATOMIC_RELAXED);
	shutdown(c->efd, SHUT_RD);
	cma_chan_put(c);
}
