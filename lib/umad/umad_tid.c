/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requests a session has in flight, for the kernel's duplicate check
 * (ib_umad_write() -> is_duplicate(): a second request with the TID and
 * class of one still waiting for its response is refused with EINVAL).
 * The daemon puts the agent's bits in TID 63..32 on the wire, as the
 * kernel does, so a request is named by agent, class and TID 31..0.
 *
 * A request leaves the table when its response or its hand-back (a time-
 * out, an error) is read, or at its deadline: a response the client never
 * reads must not make the TID unusable for good.
 */
#include <string.h>

#include "madpmd/mad.h"
#include "umad_priv.h"

uint64_t
umad_tid_key(const uint8_t *mad, uint32_t agent)
{
	return (uint64_t)(agent & 0xffu) << 40 |
	       (uint64_t)mpd_mad_class(mad) << 32 |
	       (mpd_mad_tid(mad) & 0xffffffffu);
}

static void
tids_drop(struct umad_tids *t, unsigned int i)
{
	t->e[i] = t->e[--t->n];
}

bool
umad_tids_busy(struct umad_tids *t, uint64_t key, uint64_t now_ms)
{
	unsigned int i = 0;

	while (i < t->n) {
		if (t->e[i].deadline_ms <= now_ms) {
			tids_drop(t, i);
			continue;
		}
		if (t->e[i].key == key)
			return true;
		i++;
	}
	return false;
}

void
umad_tids_add(struct umad_tids *t, uint64_t key, uint64_t deadline_ms)
{
	unsigned int i, first = 0;

	if (t->n == UMAD_TIDS_MAX) {
		/* more in flight than the share: only stale entries can
		 * fill it; the one that ends first goes */
		for (i = 1; i < t->n; i++)
			if (t->e[i].deadline_ms < t->e[first].deadline_ms)
				first = i;
		tids_drop(t, first);
	}
	t->e[t->n].key = key;
	t->e[t->n].deadline_ms = deadline_ms;
	t->n++;
}

void
umad_tids_del(struct umad_tids *t, uint64_t key)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].key == key) {
			tids_drop(t, i);
			return;
		}
}
