/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the polling lcore runs. A client thread and the lcore that hand
 * over by yielding on one CPU (madpmd/chan.h, "Sharing a CPU") are never
 * woken, and a wake-up is where the scheduler places a thread on an idle
 * CPU; its balancer leaves two threads that have just run where they are.
 * So a pair the scheduler put together while the machine was busy stays
 * together after it is quiet again, on one CPU, with another idle. The
 * lcore moves itself off once it sees a CPU to spare.
 */
#ifndef MADPMD_LCORE_PLACE_H
#define MADPMD_LCORE_PLACE_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

struct lcore_place {
	cpu_set_t allowed;	/* the lcore's own affinity */
	unsigned int nallowed;
	int loadavg;		/* /proc/loadavg, or -1 */
	uint64_t hz;		/* of the times given, per second */
	uint64_t together;	/* yielding to a client since, or 0 */
	uint64_t next_look;
	uint64_t moves;
};

/* From the calling thread (the lcore), with the rate of the clock it will
 * give (the TSC's); false when it cannot move. */
bool lcore_place_init(struct lcore_place *lp, uint64_t hz);
void lcore_place_fini(struct lcore_place *lp);

/*
 * The lcore has yielded to a client spinning on its CPU (together) or
 * found none there (!together), at now. Moves it to another allowed CPU
 * once it has been together for a while and the machine has no more
 * threads ready to run than CPUs it may use. True when it moved.
 */
bool lcore_place_note(struct lcore_place *lp, bool together, uint64_t now);

#endif
