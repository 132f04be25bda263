/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ISSM (the kernel's umad "issm" device): IsSM while someone holds the
 * FIFO open; inotify sees every open and close. The kernel lets one
 * process hold it (ib_umad_sm_open(): -EAGAIN or a wait for the next); a
 * FIFO cannot refuse an open, so while it is held its name is taken by a
 * socket file, which open() refuses with ENXIO, and given back to a fresh
 * FIFO on the last close. A FIFO that cannot be made (no descriptors
 * left, say) is tried again every second until it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_log.h>

#include "madpmd/mad.h"
#include "chan_priv.h"

#define ISSM_RETRY_MS	1000

static int
issm_fifo(struct hca_chan *ch)
{
	char tmp[sizeof(ch->issm_path) + 8];
	int fd, wd;

	snprintf(tmp, sizeof(tmp), "%s.new", ch->issm_path);
	unlink(tmp);
	/* we hold it read-write so that blocking opens return */
	if (mkfifo(tmp, ch->cfg.mode) != 0 || chmod(tmp, ch->cfg.mode) != 0)
		return -1;
	fd = open(tmp, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	wd = inotify_add_watch(ch->inotify_fd, tmp,
			       IN_OPEN | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE);
	if (wd < 0 || rename(tmp, ch->issm_path) != 0)
		goto fail_fd;
	if (ch->issm_wd >= 0 && ch->issm_wd != wd)
		inotify_rm_watch(ch->inotify_fd, ch->issm_wd);
	if (ch->issm_fd >= 0)
		close(ch->issm_fd);
	ch->issm_fd = fd;
	ch->issm_wd = wd;
	return 0;
fail_fd:
	close(fd);
fail:
	unlink(tmp);
	return -1;
}

/* The FIFO is held: its name goes to a socket file nobody can open. */
static void
issm_busy(struct hca_chan *ch)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmp[sizeof(ch->issm_path) + 8];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.busy", ch->issm_path);
	if (strlen(tmp) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, tmp, strlen(tmp) + 1);
	unlink(tmp);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    rename(tmp, ch->issm_path) != 0)
		unlink(tmp);
	close(fd);
}

int
hca_issm_start(struct hca_chan *ch)
{
	unlink(ch->issm_path);
	ch->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ch->inotify_fd < 0 || issm_fifo(ch) != 0) {
		CHAN_LOG(ERR, "%s: cannot set up %s: %s", ch->node,
			 ch->issm_path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The port's IsSM follows whether anyone holds the device. */
static void
issm_set(struct hca_chan *ch, bool held)
{
	struct hca_port *p = ch->cfg.port;

	rte_spinlock_lock(ch->cfg.lock);
	if (held)
		p->cap_mask |= MPD_PORT_CAP_IS_SM;
	else
		p->cap_mask &= ~MPD_PORT_CAP_IS_SM;
	hca_rec_port_check(ch->cfg.rec, p);
	__atomic_add_fetch(&ch->gen, 1, __ATOMIC_RELEASE);
	rte_spinlock_unlock(ch->cfg.lock);
	/* the lcore sends the SM trap 144 (hca_sma_cap_trap()): wake it */
	chan_doorbell_ring(&ch->cfg);
	CHAN_LOG(INFO, "%s: IsSM %s", ch->node, held ? "set" : "cleared");
}

void
hca_issm_events(struct hca_chan *ch, uint64_t now_ms)
{
	char buf[4096] __attribute__((aligned(8)));
	ssize_t n = read(ch->inotify_fd, buf, sizeof(buf));
	ssize_t off = 0;
	int before = ch->issm_opens;

	while (n > 0 && off + (ssize_t)sizeof(struct inotify_event) <= n) {
		const struct inotify_event *e = (const void *)(buf + off);

		off += (ssize_t)sizeof(*e) + e->len;
		if (e->wd != ch->issm_wd)
			continue;	/* a FIFO we no longer hold */
		if (e->mask & IN_OPEN)
			ch->issm_opens++;
		if (e->mask & (IN_CLOSE_WRITE | IN_CLOSE_NOWRITE))
			ch->issm_opens--;
	}
	if (ch->issm_opens < 0)
		ch->issm_opens = 0;
	if ((before > 0) != (ch->issm_opens > 0)) {
		if (ch->issm_opens > 0) {
			issm_busy(ch);
		} else {
			ch->issm_retry_ms = now_ms;	/* a fresh FIFO, now */
		}
		issm_set(ch, ch->issm_opens > 0);
		if (ch->issm_opens > 1)
			CHAN_LOG(WARNING, "%s: %d processes opened the ISSM device at once; one SM per port",
				 ch->node, ch->issm_opens);
	}
	if (ch->issm_retry_ms && now_ms >= ch->issm_retry_ms &&
	    !ch->issm_opens) {
		if (issm_fifo(ch) == 0) {
			ch->issm_retry_ms = 0;
		} else {
			CHAN_LOG(ERR, "%s: cannot make %s again (%s); trying again in %u ms",
				 ch->node, ch->issm_path, strerror(errno),
				 ISSM_RETRY_MS);
			ch->issm_retry_ms = now_ms + ISSM_RETRY_MS;
		}
	}
}

void
hca_issm_stop(struct hca_chan *ch)
{
	if (ch->inotify_fd >= 0)
		close(ch->inotify_fd);
	if (ch->issm_fd >= 0)
		close(ch->issm_fd);
	if (ch->issm_path[0])
		unlink(ch->issm_path);
	ch->inotify_fd = ch->issm_fd = -1;
	ch->issm_path[0] = '\0';
}
