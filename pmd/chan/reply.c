/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replies to control requests, with the fds they hand over: for chan.c
 * and every service, which must not call chan.c (it calls them).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "chan_priv.h"

int
hca_chan_send_reply(int sock, struct mpd_chan_msg *m, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(CHAN_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds > CHAN_MAX_FDS)
		return -1;
	if (nfds) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m) ? 0 : -1;
}

int
hca_chan_reply(struct hca_session *s, struct mpd_chan_msg *m, int fd)
{
	m->status = 0;
	return hca_chan_send_reply(s->sock, m, &fd, 1);
}
