/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture records (docs/capture-format.md): what the port's API clients
 * saw, and its port events, for whoever captures the fabric. Producers are
 * the lcore (channel, SMA via the glue) and the control thread (IsSM),
 * always with the port lock held; the application takes the records with
 * rte_pmd_hca_records_dequeue(). Nothing is made while records are off,
 * and nothing is allocated while they are on (pool.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ring.h>

#include "madpmd/mad.h"
#include "madpmd/records.h"
#include "../rte_pmd_hca.h"
#include "pool.h"
#include "records.h"

#define REC_RING_SIZE	8192	/* records waiting for the application */

static uint64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct rte_pmd_hca_record *
rec_alloc(struct hca_recorder *rc, size_t len)
{
	struct rte_pmd_hca_record *r = hca_rec_pool_get(rc->pool, len);

	if (r)
		r->ts_ns = realtime_ns();
	return r;
}

/* Queue r, encoded into n bytes (or an encoder's error: then dropped). */
static void
rec_push(struct hca_recorder *rc, struct hca_port *p,
	 struct rte_pmd_hca_record *r, uint32_t kind, int n)
{
	if (n >= 0) {
		r->kind = kind;
		r->len = (uint32_t)n;
		if (rte_ring_enqueue(rc->ring, r) == 0)
			return;
	}
	hca_rec_pool_put(r);
	p->cnt.rec_dropped++;
}

static void
rec_hdr(struct hca_recorder *rc, const struct hca_port *p,
	struct mpd_rec_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->port = p->port_num;
	h->node_id = rc->node_id;
	h->seq = rc->seq++;
}

void
hca_rec_umad(struct hca_recorder *rc, struct hca_port *p, uint32_t pid,
	     uint32_t session, uint8_t direction, const void *hdr,
	     const uint8_t *mad, uint32_t len)
{
	struct rte_pmd_hca_record *r;
	struct hca_mad_desc u;
	struct mpd_rec_umad ru;
	struct mpd_rec_hdr h;
	int n;

	if (!rc->on)
		return;
	memcpy(&u, hdr, sizeof(u));
	memset(&ru, 0, sizeof(ru));
	ru.direction = direction;
	ru.pid = pid;
	ru.portid = session;
	ru.agent_id = u.agent_id;
	ru.status = u.status;
	ru.timeout_ms = u.timeout_ms;
	ru.retries = u.retries;
	ru.length = u.length;
	ru.qpn = rte_be_to_cpu_32(u.qpn);
	ru.qkey = rte_be_to_cpu_32(u.qkey);
	ru.lid = rte_be_to_cpu_16(u.lid);
	ru.sl = u.sl;
	ru.path_bits = u.path_bits;
	ru.grh_present = u.grh_present;
	ru.gid_index = u.gid_index;
	ru.hop_limit = u.hop_limit;
	ru.traffic_class = u.traffic_class;
	memcpy(ru.gid, u.gid, sizeof(ru.gid));
	ru.flow_label = rte_be_to_cpu_32(u.flow_label);
	ru.pkey_index = u.pkey_index;
	r = rec_alloc(rc, mpd_rec_umad_len(len));
	if (!r) {
		p->cnt.rec_dropped++;
		return;
	}
	rec_hdr(rc, p, &h);
	n = mpd_rec_encode_umad(&h, &ru, mad, len, r->data, r->len);
	rec_push(rc, p, r, MPD_REC_UMAD, n);
}

void
hca_rec_wc(struct hca_recorder *rc, struct hca_port *p, uint32_t cq_id,
	   const struct mpd_v_cqe *e, uint32_t psn)
{
	struct rte_pmd_hca_record *r;
	struct mpd_rec_wc w;
	struct mpd_rec_hdr h;
	int n;

	if (!rc->on)
		return;
	memset(&w, 0, sizeof(w));
	w.cq_id = cq_id;
	w.qp_num = e->qp_num;
	w.wr_id = e->wr_id;
	w.status = e->status;
	w.opcode = e->opcode;
	w.vendor_err = e->vendor_err;
	w.byte_len = e->byte_len;
	w.imm_data = rte_be_to_cpu_32(e->imm_data);
	w.src_qp = e->src_qp;
	w.wc_flags = e->wc_flags;
	w.pkey_index = e->pkey_index;
	w.slid = e->slid;
	w.sl = e->sl;
	w.dlid_path_bits = e->dlid_path_bits;
	w.psn = psn;
	r = rec_alloc(rc, MPD_REC_HDR_LEN + MPD_REC_WC_LEN);
	if (!r) {
		p->cnt.rec_dropped++;
		return;
	}
	rec_hdr(rc, p, &h);
	n = mpd_rec_encode_wc(&h, &w, r->data, r->len);
	rec_push(rc, p, r, MPD_REC_WC, n);
}

void
hca_rec_qp(struct hca_recorder *rc, struct hca_port *p,
	   const struct mpd_rec_qp *q)
{
	struct rte_pmd_hca_record *r;
	struct mpd_rec_hdr h;
	int n;

	if (!rc->on)
		return;
	r = rec_alloc(rc, MPD_REC_HDR_LEN + MPD_REC_QP_LEN);
	if (!r) {
		p->cnt.rec_dropped++;
		return;
	}
	rec_hdr(rc, p, &h);
	n = mpd_rec_encode_qp(&h, q, r->data, r->len);
	rec_push(rc, p, r, MPD_REC_QP, n);
}

void
hca_rec_cm(struct hca_recorder *rc, struct hca_port *p,
	   const struct mpd_rec_cm *cm)
{
	struct rte_pmd_hca_record *r;
	struct mpd_rec_hdr h;
	uint32_t pdl = cm->private_data_len;
	int n;

	if (!rc->on)
		return;
	if (pdl > MPD_REC_CM_PDATA_MAX)
		pdl = MPD_REC_CM_PDATA_MAX;
	r = rec_alloc(rc, MPD_REC_HDR_LEN + MPD_REC_CM_FIXED + pdl);
	if (!r) {
		p->cnt.rec_dropped++;
		return;
	}
	rec_hdr(rc, p, &h);
	n = mpd_rec_encode_cm(&h, cm, r->data, r->len);
	rec_push(rc, p, r, MPD_REC_CM, n);
}

static void
port_snapshot(const struct hca_port *p, struct hca_rec_port_state *st)
{
	st->state = p->port_state;
	st->lid = p->lid;
	st->lmc = p->lmc;
	st->sm_lid = p->sm_lid;
	st->sm_sl = p->sm_sl;
	st->is_sm = (p->cap_mask & MPD_PORT_CAP_IS_SM) != 0;
}

void
hca_rec_port_check(struct hca_recorder *rc, struct hca_port *p)
{
	struct hca_rec_port_state now, *old = &rc->last;
	struct rte_pmd_hca_record *r;
	struct mpd_rec_port pe;
	struct mpd_rec_hdr h;
	int n;

	if (!rc->on)
		return;
	port_snapshot(p, &now);
	if (!memcmp(&now, old, sizeof(now)))
		return;
	memset(&pe, 0, sizeof(pe));
	if (now.state != old->state)
		pe.changes |= MPD_REC_PORT_STATE;
	if (now.lid != old->lid || now.lmc != old->lmc)
		pe.changes |= MPD_REC_PORT_LID;
	if (now.sm_lid != old->sm_lid || now.sm_sl != old->sm_sl)
		pe.changes |= MPD_REC_PORT_SM_LID;
	/* a master SM that was there and is now another one */
	if (now.sm_lid != old->sm_lid && old->sm_lid && now.sm_lid)
		pe.changes |= MPD_REC_PORT_SM_CHANGE;
	if (now.is_sm != old->is_sm)
		pe.changes |= now.is_sm ? MPD_REC_PORT_ISSM_SET
					: MPD_REC_PORT_ISSM_CLR;
	pe.old_state = old->state;
	pe.new_state = now.state;
	pe.phys_state = p->phys_state;
	pe.old_lid = old->lid;
	pe.new_lid = now.lid;
	pe.old_sm_lid = old->sm_lid;
	pe.new_sm_lid = now.sm_lid;
	pe.is_sm = now.is_sm;
	pe.lmc = now.lmc;
	pe.sm_sl = now.sm_sl;
	pe.capability_mask = p->cap_mask;
	pe.port_guid = p->port_guid;
	*old = now;
	r = rec_alloc(rc, MPD_REC_HDR_LEN + MPD_REC_PORT_LEN);
	if (!r) {
		p->cnt.rec_dropped++;
		return;
	}
	rec_hdr(rc, p, &h);
	n = mpd_rec_encode_port(&h, &pe, r->data, r->len);
	rec_push(rc, p, r, MPD_REC_PORT, n);
}

int
hca_rec_prepare(struct hca_recorder *rc)
{
	char name[RTE_RING_NAMESIZE];

	if (rc->ring)
		return 0;
	rc->pool = hca_rec_pool_create();
	if (!rc->pool)
		return ENOMEM;
	snprintf(name, sizeof(name), "hca_rec_%u", rc->node_id);
	/* many producers (lcore, control thread), one consumer */
	rc->ring = rte_ring_create(name, REC_RING_SIZE, SOCKET_ID_ANY,
				   RING_F_SC_DEQ);
	if (!rc->ring) {
		hca_rec_pool_release(rc->pool);
		rc->pool = NULL;
		return -rte_errno;
	}
	return 0;
}

void
hca_rec_enable(struct hca_recorder *rc, const struct hca_port *p, bool on)
{
	if (on && !rc->on)
		port_snapshot(p, &rc->last);
	rc->on = on && rc->ring;
}

unsigned int
hca_rec_dequeue(struct hca_recorder *rc, struct rte_pmd_hca_record **recs,
		unsigned int n)
{
	if (!rc->ring)
		return 0;
	return rte_ring_dequeue_burst(rc->ring, (void **)recs, n, NULL);
}

void
rte_pmd_hca_record_free(struct rte_pmd_hca_record *r)
{
	if (r)
		hca_rec_pool_put(r);
}

void
hca_rec_release(struct hca_recorder *rc)
{
	struct rte_pmd_hca_record *r;

	if (!rc->ring)
		return;
	rc->on = false;
	while (rte_ring_dequeue(rc->ring, (void **)&r) == 0)
		hca_rec_pool_put(r);
	rte_ring_free(rc->ring);
	rc->ring = NULL;
	hca_rec_pool_release(rc->pool);
	rc->pool = NULL;
}
