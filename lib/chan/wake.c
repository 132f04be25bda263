/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A session's wake-up socket as the consumer of its receive ring keeps it
 * (madpmd/chan.h, "Wake-ups"): readable exactly when records are queued.
 * Each write, the daemon's or ours, is one byte. Shared by libibumad's
 * port fds, libibverbs' async fd and librdmacm's channel fd.
 */
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "chan_client.h"

/* Read the socket empty: the writes it held (0 when it held none). */
static uint64_t
efd_clear(int efd, bool may_block)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	uint8_t buf[256];
	uint64_t sum = 0;
	int i;

	/* bounded: the daemon writes at most once a record */
	for (i = 0; i < 64; i++) {
		ssize_t n;

		if (may_block && poll(&p, 1, 0) != 1)
			break;
		n = read(efd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sum += (uint64_t)n;
		if (n < (ssize_t)sizeof(buf))
			break;
	}
	return sum;
}

void
mpd_chan_kick(int fd)
{
	static const uint8_t one = 1;
	ssize_t n;

	do
		n = write(fd, &one, 1);
	while (n < 0 && errno == EINTR);
	/* full: the reader is readable anyway */
}

static void
efd_signal(struct mpd_chan_rx_wake *w)
{
	static const uint8_t one = 1;
	ssize_t n;

	/* the daemon's end: flags of its open file mean nothing to send() */
	n = send(w->efd_w, &one, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n == 1)
		w->efd_mine++;
}

/* Clear the fd if it may be readable (a write of ours, or one the
 * daemon counted and we have not read yet: it counts before it writes,
 * so a write that has not landed is read next time). */
bool
mpd_chan_rx_settle(struct mpd_chan_rx_wake *w, const struct mpd_ring_view *rx)
{
	uint64_t kicks = __atomic_load_n(&w->shm->rx_kicks, __ATOMIC_ACQUIRE);

	if (kicks != w->kicks_seen || w->efd_mine) {
		uint64_t v = efd_clear(w->efd, w->may_block);

		/* what we read less our own writes: the daemon's */
		w->kicks_seen += v > w->efd_mine ? v - w->efd_mine : 0;
		w->efd_mine = 0;
	}
	/* pairs with the daemon's fence in mpd_ring_put_wake() */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (mpd_ring_empty(rx))
		return true;
	efd_signal(w);
	return false;
}

/* Only a write of our own not cleared since says so for sure (a daemon's
 * write we have not read may be counted and not landed yet). */
void
mpd_chan_rx_left_queued(struct mpd_chan_rx_wake *w)
{
	if (!w->efd_mine)
		efd_signal(w);
}
