/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "raw_chan.h"

int
raw_chan_call(int sock, uint32_t *seq, struct mpd_chan_msg *m, int *fds,
	      int nfds)
{
	union {
		char buf[CMSG_SPACE(5 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;

	m->seq = ++*seq;
	if (send(sock, m, sizeof(*m), MSG_NOSIGNAL) != (ssize_t)sizeof(*m))
		return -1;
	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(*m))
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (nfds && cm && cm->cmsg_type == SCM_RIGHTS) {
		size_t got = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		memcpy(fds, CMSG_DATA(cm),
		       (got < (size_t)nfds ? got : (size_t)nfds) * sizeof(int));
	}
	return m->status;
}

int
raw_chan_request(struct raw_chan *c, struct mpd_chan_msg *m, int *fds,
		 int nfds)
{
	return raw_chan_call(c->sock, &c->seq, m, fds, nfds);
}

int
raw_chan_open(struct raw_chan *c, const char *run_dir, const char *node)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct mpd_chan_msg m;
	struct mpd_chan_shm *h;
	int fds[5] = { -1, -1, -1, -1, -1 }, i;

	memset(c, 0, sizeof(*c));
	c->efd = -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s/%s", run_dir, node,
		 MPD_CHAN_SOCK);
	c->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (connect(c->sock, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.type = MPD_CHAN_HELLO;
	m.u.hello_req.version = MPD_CHAN_VERSION;
	m.u.hello_req.pid = (uint32_t)getpid();
	/* the memfd, the port's eventfd; the rest (madpmd/chan.h) unused */
	if (raw_chan_request(c, &m, fds, 5) != 0 || fds[0] < 0)
		return -1;
	for (i = 2; i < 5; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	c->port = m.u.hello_rep.port;
	c->shm_size = m.u.hello_rep.shm_size;
	c->shm = mmap(NULL, c->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fds[0], 0);
	close(fds[0]);
	c->efd = fds[1];
	if (c->shm == MAP_FAILED) {
		c->shm = NULL;
		return -1;
	}
	h = c->shm;
	if (h->magic != MPD_CHAN_MAGIC ||
	    mpd_ring_attach(&c->tx, (void *)((uint8_t *)c->shm + h->tx_off),
			    MPD_CHAN_RING_SIZE) != 0 ||
	    mpd_ring_attach(&c->rx, (void *)((uint8_t *)c->shm + h->rx_off),
			    MPD_CHAN_RING_SIZE) != 0)
		return -1;
	return 0;
}

int
raw_chan_next(struct raw_chan *c, uint32_t kind, void *buf, size_t cap,
	      int ms)
{
	struct pollfd p = { .fd = c->efd, .events = POLLIN };
	const uint8_t *d;
	uint32_t len, k;
	uint64_t v;
	int rc;

	for (;;) {
		rc = mpd_ring_peek(&c->rx, &d, &len, &k);
		if (rc > 0) {
			memset(buf, 0, cap);
			memcpy(buf, d, len < cap ? len : cap);
			mpd_ring_consume(&c->rx);
			if (k != kind)
				continue;
			return (int)len;
		}
		if (rc < 0)
			return -1;
		if (read(c->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -1;
		if (!mpd_ring_empty(&c->rx))
			continue;
		if (poll(&p, 1, ms) <= 0)
			return 0;
	}
}

void
raw_chan_close(struct raw_chan *c)
{
	if (c->shm)
		munmap(c->shm, c->shm_size);
	if (c->efd >= 0)
		close(c->efd);
	if (c->sock >= 0)
		close(c->sock);
}
