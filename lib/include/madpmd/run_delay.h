/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A thread's run delay: how long it has waited for a CPU while it could
 * run (/proc/thread-self/schedstat, second field). On a virtual CPU a gap
 * in time says nothing; a growing run delay says the CPU is shared with a
 * busy process. The client library's spin and the launcher's poll loop
 * both back off on it.
 */
#ifndef MADPMD_RUN_DELAY_H
#define MADPMD_RUN_DELAY_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* The calling thread's run delay in ns, 0 when it cannot be read. No
 * stdio stream: two system calls and a parse. */
static inline uint64_t
mpd_run_delay_ns(void)
{
	unsigned long long on_cpu, delay = 0;
	char buf[96];
	ssize_t n;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &on_cpu, &delay) != 2)
		return 0;
	return delay;
}

#endif
