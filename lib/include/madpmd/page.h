/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The system's page: what the channel's shared memory, the QP and CQ
 * rings and memory regions are mapped in (4 KiB on x86_64, 4-64 KiB on
 * arm64 and ppc64). The daemon and its clients run on one kernel, so
 * they agree on it.
 */
#ifndef MADPMD_PAGE_H
#define MADPMD_PAGE_H

#include <stddef.h>
#include <unistd.h>

static inline size_t
mpd_page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* n rounded up to whole pages */
static inline size_t
mpd_page_round(size_t n)
{
	size_t page = mpd_page_size();

	return (n + page - 1) & ~(page - 1);
}

#endif
