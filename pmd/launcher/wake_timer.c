/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "wake_timer.h"

bool
wake_timer_open(struct wake_timer *t)
{
	memset(t, 0, sizeof(*t));
	t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (t->fd < 0)
		return false;
	/* level-triggered: read back in wake_timer_disarm() */
	t->ev.epdata.event = EPOLLIN;
	if (rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_ADD, t->fd,
			  &t->ev) != 0) {
		close(t->fd);
		t->fd = -1;
		return false;
	}
	return true;
}

bool
wake_timer_arm(struct wake_timer *t, uint64_t at_ns)
{
	struct itimerspec its = {
		.it_value = {
			.tv_sec = (time_t)(at_ns / 1000000000u),
			.tv_nsec = (long)(at_ns % 1000000000u),
		},
	};

	if (t->fd < 0)
		return false;
	/* a zero it_value would disarm it: a time already past rings */
	if (!at_ns)
		its.it_value.tv_nsec = 1;
	if (timerfd_settime(t->fd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
		return false;
	t->armed = true;
	return true;
}

void
wake_timer_disarm(struct wake_timer *t)
{
	static const struct itimerspec off;
	uint64_t n;

	if (t->fd < 0 || !t->armed)
		return;
	timerfd_settime(t->fd, 0, &off, NULL);
	if (read(t->fd, &n, sizeof(n)) < 0) {
		/* did not ring */
	}
	t->armed = false;
}

void
wake_timer_close(struct wake_timer *t)
{
	if (t->fd < 0)
		return;
	rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_DEL, t->fd, &t->ev);
	close(t->fd);
	t->fd = -1;
}
