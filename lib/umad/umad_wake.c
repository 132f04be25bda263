/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A session's eventfd as the consumer of its receive ring keeps it
 * (madpmd/chan.h, "Wake-ups"): readable exactly when records are queued.
 * Shared by libibumad's port fds and libibverbs' async fd.
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "umad_priv.h"

/* Read the eventfd empty: the writes it held (0 when it held none). */
static uint64_t
efd_clear(int efd, bool may_block)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	uint64_t v, sum = 0;
	int i;

	/* one read clears a counter; a semaphore-mode eventfd gives 1 per
	 * read, so read while reads give 1 */
	for (i = 0; i < 64; i++) {
		ssize_t n;

		if (may_block && poll(&p, 1, 0) != 1)
			break;
		n = read(efd, &v, sizeof(v));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(v))
			break;
		sum += v;
		if (v != 1)
			break;
	}
	return sum;
}

static void
efd_signal(struct umad_rx_wake *w)
{
	uint64_t one = 1;
	ssize_t n;

	do
		n = write(w->efd, &one, sizeof(one));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(one))
		w->efd_mine++;
}

/* Clear the eventfd if it may be readable (a write of ours, or one the
 * daemon counted and we have not read yet: it counts before it writes,
 * so a write that has not landed is read next time). */
bool
umad_rx_settle(struct umad_rx_wake *w, const struct mpd_ring_view *rx)
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
umad_rx_left_queued(struct umad_rx_wake *w)
{
	if (!w->efd_mine)
		efd_signal(w);
}
