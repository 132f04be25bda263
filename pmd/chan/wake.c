/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a session's client shares with the daemon besides its memory
 * (madpmd/chan.h, "HELLO's reply"). O_NONBLOCK belongs to an open file,
 * not to a descriptor: a client handed an eventfd the daemon writes could
 * clear it and fill the counter, and the daemon's next write would block
 * the lcore that serves every client. So:
 *  - the wake-ups travel on a stream socketpair: we send on our end with
 *    MSG_DONTWAIT | MSG_NOSIGNAL, which no flag of the open file changes
 *    (the client holds our end too, to make its own end readable);
 *  - the doorbell is a pipe the client writes, whose read end we use is
 *    an open file of ours alone (opened again through /proc, as a FIFO
 *    is), in the epoll set the port's rx interrupt is; the client keeps
 *    the pipe's first read end, so that its writes never raise SIGPIPE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "chan_priv.h"

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int
chan_sock_pair(int *ours, int *theirs)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       sv) != 0)
		return errno;
	*ours = sv[0];
	*theirs = sv[1];
	return 0;
}

void
chan_sock_kick(int fd)
{
	static const uint8_t one = 1;

	if (send(fd, &one, 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* full: the client is readable anyway; gone: nobody to wake */
	}
}

/* The doorbell: its write end and a read end for the client, a read end
 * of our own in doorbells. 0 or an errno. */
static int
doorbell_open(struct hca_session *s, int doorbells, int *w, int *r)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	char path[32];
	int p[2];

	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0)
		return errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	s->db_r = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->db_r < 0 ||
	    epoll_ctl(doorbells, EPOLL_CTL_ADD, s->db_r, &ev) != 0) {
		int rc = errno;

		close(p[0]);
		close(p[1]);
		close_fd(&s->db_r);
		return rc;
	}
	*w = p[1];
	*r = p[0];
	return 0;
}

int
chan_wake_open(struct hca_session *s, int doorbells, int *fds, int *nfds)
{
	int rc;

	s->wake_fd = s->db_r = -1;
	rc = chan_sock_pair(&s->wake_fd, &fds[0]);
	if (rc)
		return rc;
	fds[1] = s->wake_fd;
	*nfds = 2;
	if (doorbells >= 0) {
		rc = doorbell_open(s, doorbells, &fds[2], &fds[3]);
		if (rc) {
			close(fds[0]);
			chan_wake_close(s);
			return rc;
		}
		*nfds = 4;
	}
	return 0;
}

void
chan_wake_sent(int *fds, int nfds)
{
	int i;

	/* what the client alone keeps; fds[1] is our end */
	for (i = 0; i < nfds; i++)
		if (i != 1)
			close_fd(&fds[i]);
}

void
chan_wake_close(struct hca_session *s)
{
	/* no other process holds the open file of our doorbell reader:
	 * closing it takes it out of the interrupt's epoll set */
	close_fd(&s->db_r);
	close_fd(&s->wake_fd);
}

void
chan_doorbell_drain(const struct hca_session *s)
{
	uint8_t buf[512];
	int i;

	if (s->db_r < 0)
		return;
	/* bounded: a client may write as fast as we read */
	for (i = 0; i < 16; i++)
		if (read(s->db_r, buf, sizeof(buf)) < (ssize_t)sizeof(buf))
			break;
}

/* ---- a port's doorbells (chan.h) ---- */

int
hca_doorbells_open(struct hca_doorbells *d)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLET,
		.data.u64 = HCA_DOORBELL_OURS,
	};
	int rc;

	d->rung = d->rung_seen = 0;
	d->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	d->set = epoll_create1(EPOLL_CLOEXEC);
	if (d->fd >= 0 && d->set >= 0 &&
	    epoll_ctl(d->set, EPOLL_CTL_ADD, d->fd, &ev) == 0)
		return 0;
	rc = errno;
	hca_doorbells_close(d);
	return rc;
}

void
hca_doorbells_close(struct hca_doorbells *d)
{
	close_fd(&d->fd);
	close_fd(&d->set);
}

/*
 * Awake again. The lcore wakes once for every port it serves, and a
 * port that no client holds and nobody rang (most of them, in a fabric)
 * costs no system call: only a session's pipe or a counted write of the
 * eventfd can have put anything on the set's ready list. A write counted
 * after this look is drained the next time; its edge woke the lcore
 * already (the set is watched edge-triggered).
 */
void
hca_doorbells_awake(struct hca_doorbells *d, bool sessions)
{
	uint64_t rung = __atomic_load_n(&d->rung, __ATOMIC_ACQUIRE);

	if (!sessions && rung == d->rung_seen)
		return;
	d->rung_seen = rung;
	hca_doorbells_drain(d->set, d->fd);
}
