/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sends waiting for their response (IBA 13.5.3), hashed by (TID, class)
 * port-wide; each slot comes from its client's own share, so a client
 * that sends without waiting for answers runs out alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad_priv.h"

static uint32_t
bucket_of(uint64_t tid, uint8_t cls)
{
	uint64_t h = (tid ^ (tid >> 29) ^ cls) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 40) & (HCA_MAD_OUT_BUCKETS - 1);
}

int
mad_out_pool_init(struct hca_mad_client *c)
{
	unsigned int i;

	c->out = calloc(HCA_MAD_CLIENT_OUT, sizeof(*c->out));
	if (!c->out)
		return ENOMEM;
	for (i = 0; i + 1 < HCA_MAD_CLIENT_OUT; i++)
		c->out[i].next = &c->out[i + 1];
	c->out_free = &c->out[0];
	c->out_held = 0;
	return 0;
}

struct hca_outstanding *
mad_out_find(const struct hca_mad_layer *ml, uint64_t tid, uint8_t cls)
{
	struct hca_outstanding *o = ml->bucket[bucket_of(tid, cls)];

	for (; o; o = o->next)
		if (o->tid == tid && o->mgmt_class == cls)
			return o;
	return NULL;
}

struct hca_outstanding *
mad_out_alloc(struct hca_mad_layer *ml, struct hca_mad_client *c,
	      uint64_t tid, uint8_t cls)
{
	uint32_t b = bucket_of(tid, cls);
	struct hca_outstanding *o = c->out_free;

	if (!o)
		return NULL;
	c->out_free = o->next;
	memset(o, 0, offsetof(struct hca_outstanding, desc));
	o->used = true;
	o->c = c;
	o->tid = tid;
	o->mgmt_class = cls;
	o->next = ml->bucket[b];
	ml->bucket[b] = o;
	ml->out_used++;
	c->out_held++;
	return o;
}

void
mad_out_free(struct hca_mad_layer *ml, struct hca_outstanding *o)
{
	struct hca_outstanding **link;
	struct hca_mad_client *c = o->c;

	if (!o->used)
		return;
	link = &ml->bucket[bucket_of(o->tid, o->mgmt_class)];
	while (*link && *link != o)
		link = &(*link)->next;
	if (*link == o)
		*link = o->next;
	o->used = false;
	o->next = c->out_free;
	c->out_free = o;
	c->out_held--;
	ml->out_used--;
	c->ops->credit(c);
}
