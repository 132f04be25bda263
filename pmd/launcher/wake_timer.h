/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The polling lcore's alarm clock: a timerfd in its per-thread epoll set,
 * beside the ports' rx interrupts, so that a lcore sleeping until a ring
 * also wakes at a port's next timer to the microsecond (an RNR wait is
 * 10 us to 655 ms, IBA 9.7.5.2.8; rte_epoll_wait() counts milliseconds).
 */
#ifndef MADPMD_WAKE_TIMER_H
#define MADPMD_WAKE_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_interrupts.h>

struct wake_timer {
	int fd;				/* -1: none, milliseconds it is */
	bool armed;
	struct rte_epoll_event ev;	/* in the epoll set while open */
};

/* From the lcore: the timer in its epoll set; false when there is none
 * (then the caller sleeps in whole milliseconds). */
bool wake_timer_open(struct wake_timer *t);
/* Ring at at_ns (CLOCK_MONOTONIC); false when the timer cannot. */
bool wake_timer_arm(struct wake_timer *t, uint64_t at_ns);
/* Awake again: stopped and read, whether it rang or not */
void wake_timer_disarm(struct wake_timer *t);
void wake_timer_close(struct wake_timer *t);

#endif
