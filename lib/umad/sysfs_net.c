/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd-run --net (sysfs_net.h): the daemon hands over its node's
 * network namespace (MPD_CHAN_NETNS, making it on first use) and this
 * process enters it before madpmd-sysfs makes its mount namespace, so
 * that the command's /sys is that namespace's (its network devices in
 * /sys/class/net).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysfs_net.h"

int
mpd_sysfs_net_join(const struct mpd_chan_node *n, char *msg, size_t size)
{
	struct mpd_chan_session h;
	struct mpd_chan_msg m;
	int fds[2] = { -1, -1 }, nfds = 0, rc;

	rc = mpd_chan_hello(n, n->sw ? 0 : 1, &h);
	if (rc < 0) {
		snprintf(msg, size, "cannot reach the daemon of %s (%s)",
			 n->name, strerror(mpd_chan_hello_errno(rc)));
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_CHAN_NETNS;
	rc = mpd_chan_call(h.sock, &h.seq, &m, fds, 2, &nfds);
	mpd_chan_session_close(&h);
	if (rc < 0 || m.status || nfds < 1) {
		int e = rc < 0 ? EIO : m.status ? m.status : EPROTO;

		if (e == EOPNOTSUPP)
			snprintf(msg, size, "%s's port serves no network device (a switch's port 0?)",
				 n->name);
		else
			snprintf(msg, size, "the daemon could not give %s a network namespace (%s)",
				 n->name, strerror(e));
		goto fail;
	}
	/* a user namespace of the daemon's user: ours when the daemon runs
	 * as we do; root needs none to enter any network namespace */
	if (nfds > 1 && geteuid() != 0 && setns(fds[1], CLONE_NEWUSER) != 0) {
		snprintf(msg, size, "cannot enter %s's user namespace (%s): madpmd-run --net runs as the daemon's user, or as root",
			 n->name, strerror(errno));
		goto fail;
	}
	if (setns(fds[0], CLONE_NEWNET) != 0) {
		snprintf(msg, size, "cannot enter %s's network namespace (%s): the daemon runs as root; run madpmd-run --net as root too",
			 n->name, strerror(errno));
		goto fail;
	}
	close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	return 0;
fail:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	return -1;
}
