/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory for a recorder's capture records. Records are made under the
 * port lock, which is never held across malloc() or a system call, so the
 * buffers are made once, when capture is prepared: REC_SMALL_N of up to
 * REC_SMALL_DATA bytes (a MAD and its headers) and REC_BIG_N of a whole
 * 2 MiB RMPP message, address space whose pages come as records touch
 * them (a free list in LIFO order keeps reusing the same ones). When none
 * is free the record is dropped and counted, as a full ring drops it.
 *
 * rte_pmd_hca_record_free() gives a buffer back from any thread; the
 * pool lives until the recorder let it go and the application gave the
 * last record back, so records outlive the port that made them.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include <rte_common.h>
#include <rte_spinlock.h>

#include "madpmd/records.h"
#include "../rte_pmd_hca.h"
#include "pool.h"

#define REC_SMALL_DATA	512u
#define REC_SMALL_N	8192u	/* the ring's size: a full ring never waits on us */
#define REC_BIG_DATA	((uint32_t)mpd_rec_umad_len(2u << 20))
#define REC_BIG_N	4u

struct rec_buf {
	struct hca_rec_pool *pool;
	struct rec_buf *next;		/* in its free list */
	uint32_t cls;
	uint32_t pad;
	struct rte_pmd_hca_record rec;	/* what the application sees */
};

struct rec_class {
	uint8_t *mem;
	size_t mem_len;
	size_t stride;
	uint32_t data;			/* bytes of rec.data each holds */
	uint32_t n;			/* buffers the memory holds */
	uint32_t carved;		/* of them, handed out at least once */
	struct rec_buf *free;		/* given back */
};

struct hca_rec_pool {
	rte_spinlock_t lock;		/* the free lists */
	uint32_t refs;			/* the recorder's + one per record out */
	struct rec_class cls[2];
};

static int
class_make(struct rec_class *c, uint32_t data, uint32_t n)
{
	c->data = data;
	c->n = n;
	c->stride = RTE_ALIGN_CEIL(sizeof(struct rec_buf) + data, 64);
	c->mem_len = c->stride * n;
	/* address space only: a buffer's pages come when it is first
	 * handed out (a free list written through all of them made every
	 * port's 11 MB resident, captured or not) */
	c->mem = mmap(NULL, c->mem_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (c->mem == MAP_FAILED) {
		c->mem = NULL;
		return -1;
	}
	return 0;
}

/* Lock held: a buffer given back, else one never used, from the lowest */
static struct rec_buf *
class_take(struct rec_class *c)
{
	struct rec_buf *b = c->free;

	if (b) {
		c->free = b->next;
		return b;
	}
	if (c->carved == c->n)
		return NULL;
	return (struct rec_buf *)(c->mem + (size_t)c->carved++ * c->stride);
}

static void
pool_free(struct hca_rec_pool *p)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(p->cls); i++)
		if (p->cls[i].mem)
			munmap(p->cls[i].mem, p->cls[i].mem_len);
	free(p);
}

struct hca_rec_pool *
hca_rec_pool_create(void)
{
	struct hca_rec_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	rte_spinlock_init(&p->lock);
	p->refs = 1;
	if (class_make(&p->cls[0], REC_SMALL_DATA, REC_SMALL_N) ||
	    class_make(&p->cls[1], REC_BIG_DATA, REC_BIG_N)) {
		pool_free(p);
		return NULL;
	}
	return p;
}

static void
pool_put_ref(struct hca_rec_pool *p)
{
	if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0)
		pool_free(p);
}

struct rte_pmd_hca_record *
hca_rec_pool_get(struct hca_rec_pool *p, size_t len)
{
	uint32_t cls = len <= p->cls[0].data ? 0 : 1;
	struct rec_buf *b;

	if (len > p->cls[1].data)
		return NULL;
	rte_spinlock_lock(&p->lock);
	b = class_take(&p->cls[cls]);
	rte_spinlock_unlock(&p->lock);
	if (!b)
		return NULL;
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	b->pool = p;
	b->cls = cls;
	b->rec.len = (uint32_t)len;
	return &b->rec;
}

void
hca_rec_pool_put(struct rte_pmd_hca_record *r)
{
	struct rec_buf *b = container_of(r, struct rec_buf, rec);
	struct hca_rec_pool *p = b->pool;

	rte_spinlock_lock(&p->lock);
	b->next = p->cls[b->cls].free;
	p->cls[b->cls].free = b;
	rte_spinlock_unlock(&p->lock);
	pool_put_ref(p);
}

void
hca_rec_pool_release(struct hca_rec_pool *p)
{
	if (p)
		pool_put_ref(p);
}
