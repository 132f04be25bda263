/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffers for capture records, made before capture starts and taken
 * under the port lock without allocating (pool.c).
 */
#ifndef NET_HCA_REC_POOL_H
#define NET_HCA_REC_POOL_H

#include <stddef.h>

struct rte_pmd_hca_record;
struct hca_rec_pool;

/* Outside any lock: NULL when out of memory. */
struct hca_rec_pool *hca_rec_pool_create(void);
/* A record with room for len data bytes (len set, the rest the caller's);
 * NULL when none is free. */
struct rte_pmd_hca_record *hca_rec_pool_get(struct hca_rec_pool *p,
					    size_t len);
/* A record back, from any thread. */
void hca_rec_pool_put(struct rte_pmd_hca_record *r);
/* The recorder lets go; the pool goes with the last record. */
void hca_rec_pool_release(struct hca_rec_pool *p);

#endif
