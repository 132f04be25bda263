/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory regions: keys, and the checks every access through a key passes
 * (IBA 10.6.3: the key, the range, the protection domain, the access
 * rights). An MR is pages of its client's shared memory that the daemon
 * maps too, so a key resolves to an address the lcore copies to and from.
 * Memory windows (mw.c) take keys from the same table.
 */
#include <errno.h>
#include <string.h>

#include "qp_priv.h"


int
hca_v_mr_add(struct hca_verbs *v, struct hca_v_mr *mr)
{
	uint32_t i, idx;

	for (i = 0; i < HCA_V_MAX_MRS; i++) {
		/* round robin: a key freed is not reused at once, so a stale
		 * key of a peer rarely names a new region */
		idx = (v->next_mr + i) % HCA_V_MAX_MRS;
		if (idx == 0 || v->mr[idx])
			continue;
		v->mr[idx] = mr;
		v->next_mr = idx + 1;
		mr->key = idx << MR_KEY_GEN_BITS | ++v->mr_gen[idx];
		return 0;
	}
	return ENOMEM;
}

int
hca_v_mr_remove(struct hca_verbs *v, struct hca_v_mr *mr)
{
	uint32_t idx = mr->key >> MR_KEY_GEN_BITS;

	if (mr->users)
		return EBUSY;
	mw_unbind(mr);
	if (idx < HCA_V_MAX_MRS && v->mr[idx] == mr)
		v->mr[idx] = NULL;
	return 0;
}

uint8_t *
mr_lookup(struct hca_verbs *v, uint32_t key, uint32_t pd, uint64_t va,
	  uint64_t len, uint32_t access)
{
	struct hca_v_mr *mr = key_slot(v, key);

	if (!mr || mr->key != key || mr->pd != pd || mr->owner->dead)
		return NULL;
	/* a window serves remote access only, while bound (IBA 10.6.7.1) */
	if (mr->mw_type && (!mr->bound || !(access & MR_REMOTE_ACCESS)))
		return NULL;
	if ((mr->access & access) != access)
		return NULL;
	if (va < mr->iova || len > mr->length ||
	    va - mr->iova > mr->length - len)
		return NULL;
	return mr->base + (va - mr->iova);
}

uint8_t *
rkey_lookup(struct hca_verbs *v, const struct hca_v_qp *qp, uint32_t key,
	    uint64_t va, uint64_t len, uint32_t access)
{
	const struct hca_v_mr *mw = key_slot(v, key);

	/* IBA 10.6.7.2.2: a type 2B window, through its QP only */
	if (mw && mw->mw_type == IBV_MW_TYPE_2 && mw->qpn != qp->qpn)
		return NULL;
	return mr_lookup(v, key, qp->pd, va, len, access);
}

bool
sge_copy(struct hca_verbs *v, uint32_t pd, const struct mpd_v_sge *sg,
	 uint32_t nsge, uint32_t off, uint8_t *buf, uint32_t len, bool to_sge)
{
	uint32_t i, n;
	uint8_t *p;

	for (i = 0; i < nsge && len; i++) {
		if (off >= sg[i].length) {
			off -= sg[i].length;
			continue;
		}
		n = sg[i].length - off;
		if (n > len)
			n = len;
		p = mr_lookup(v, sg[i].lkey, pd, sg[i].addr + off, n,
			      to_sge ? IBV_ACCESS_LOCAL_WRITE : 0);
		if (!p)
			return false;
		if (to_sge)
			memcpy(p, buf, n);
		else
			memcpy(buf, p, n);
		buf += n;
		len -= n;
		off = 0;
	}
	return len == 0;
}
