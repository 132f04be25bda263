/* SPDX-License-Identifier: BSD-3-Clause */
/* Round-trip latencies of a benchmark window, and their percentiles. */
#ifndef MADPMD_BENCH_LAT_LOG_H
#define MADPMD_BENCH_LAT_LOG_H

#include <stddef.h>
#include <stdint.h>

struct lat_log {
	uint32_t *ns;
	size_t n, cap;
};

/* One latency (ns, saturated at 32 bits): 0, or -1 out of memory. */
int lat_add(struct lat_log *l, uint64_t ns);
/* Sort what was logged; then lat_pct_us() reads percentiles. */
void lat_sort(struct lat_log *l);
/* The pct-th percentile in us of a sorted log, 0 when empty. */
double lat_pct_us(const struct lat_log *l, double pct);

#endif
