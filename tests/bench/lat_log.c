/* SPDX-License-Identifier: BSD-3-Clause */
/* Round-trip latencies of a benchmark window (lat_log.h). */
#include <stdlib.h>

#include "lat_log.h"

int
lat_add(struct lat_log *l, uint64_t ns)
{
	uint32_t *n;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1 << 16;
		n = realloc(l->ns, l->cap * sizeof(*n));
		if (!n)
			return -1;
		l->ns = n;
	}
	l->ns[l->n++] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
	return 0;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

void
lat_sort(struct lat_log *l)
{
	qsort(l->ns, l->n, sizeof(*l->ns), cmp_u32);
}

double
lat_pct_us(const struct lat_log *l, double pct)
{
	size_t i;

	if (!l->n)
		return 0;
	i = (size_t)(pct / 100.0 * (double)(l->n - 1) + 0.5);
	return l->ns[i] / 1000.0;
}
