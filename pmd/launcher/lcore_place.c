/* SPDX-License-Identifier: BSD-3-Clause */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "lcore_place.h"

/* together this long before the lcore looks; looks at most this often */
#define TOGETHER_MS		20
#define LOOK_EVERY_MS		100

bool
lcore_place_init(struct lcore_place *lp, uint64_t hz)
{
	lp->hz = hz;
	lp->together = 0;
	lp->next_look = 0;
	lp->moves = 0;
	lp->loadavg = -1;
	if (pthread_getaffinity_np(pthread_self(), sizeof(lp->allowed),
				   &lp->allowed) != 0)
		return false;
	lp->nallowed = (unsigned int)CPU_COUNT(&lp->allowed);
	if (lp->nallowed < 2)
		return false;	/* pinned: not ours to undo */
	lp->loadavg = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	return lp->loadavg >= 0;
}

void
lcore_place_fini(struct lcore_place *lp)
{
	if (lp->loadavg >= 0)
		close(lp->loadavg);
	lp->loadavg = -1;
}

/* Threads ready to run on the whole machine now, this one included (the
 * fourth field of /proc/loadavg, "running/total"); 0 if unknown. */
static unsigned int
ready_threads(int fd)
{
	unsigned int running = 0, total;
	double l1, l5, l15;
	char buf[128];
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%lf %lf %lf %u/%u", &l1, &l5, &l15, &running,
		   &total) != 5)
		return 0;
	return running;
}

bool
lcore_place_note(struct lcore_place *lp, bool together, uint64_t now)
{
	cpu_set_t off;
	unsigned int ready;
	int cpu;

	if (lp->loadavg < 0)
		return false;
	if (!together) {
		lp->together = 0;
		return false;
	}
	if (!lp->together) {
		lp->together = now;
		return false;
	}
	if (now - lp->together < lp->hz / 1000 * TOGETHER_MS ||
	    now < lp->next_look)
		return false;
	lp->next_look = now + lp->hz / 1000 * LOOK_EVERY_MS;
	/* the pair is two of them, both on this CPU: with no more ready
	 * than CPUs we may use, one of the others has nothing to run */
	ready = ready_threads(lp->loadavg);
	cpu = sched_getcpu();
	if (!ready || ready > lp->nallowed || cpu < 0 ||
	    !CPU_ISSET(cpu, &lp->allowed))
		return false;
	/* away from this CPU (the kernel moves us at once), then our whole
	 * set again: the scheduler keeps us where we landed while we run */
	off = lp->allowed;
	CPU_CLR(cpu, &off);
	if (pthread_setaffinity_np(pthread_self(), sizeof(off), &off) != 0)
		return false;
	pthread_setaffinity_np(pthread_self(), sizeof(lp->allowed),
			       &lp->allowed);
	lp->together = 0;
	lp->moves++;
	return true;
}
