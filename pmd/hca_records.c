/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture records (docs/capture-format.md): what the port's API clients
 * saw, and its port events, for whoever captures the fabric. Producers are
 * the lcore (MAD layer, SMA) and the control thread (IsSM), always with
 * hi->lock held; the application takes the records with
 * rte_pmd_hca_records_dequeue(). Nothing is made while records are off.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_ethdev.h>
#include <rte_ring.h>

#include "hca.h"
#include "madpmd/records.h"
#include "rte_pmd_hca.h"
#include "umad_srv.h"

#define REC_RING_SIZE	8192	/* records waiting for the application */

static uint64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct rte_pmd_hca_record *
rec_alloc(size_t len)
{
	struct rte_pmd_hca_record *r = malloc(sizeof(*r) + len);

	if (r) {
		r->ts_ns = realtime_ns();
		r->len = (uint32_t)len;
	}
	return r;
}

/* Queue r, encoded into n bytes (or an encoder's error: then dropped). */
static void
rec_push(struct hca_internals *hi, struct rte_pmd_hca_record *r,
	 uint32_t kind, int n)
{
	if (n >= 0) {
		r->kind = kind;
		r->len = (uint32_t)n;
		if (rte_ring_enqueue(hi->rec_ring, r) == 0)
			return;
	}
	free(r);
	hi->port.cnt.rec_dropped++;
}

static void
rec_hdr(struct hca_internals *hi, struct mpd_rec_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->port = hi->port.port_num;
	h->node_id = hi->port_id;
	h->seq = hi->rec_seq++;
}

void
hca_rec_umad(struct hca_internals *hi, const struct hca_session *s,
	     uint8_t direction, const void *hdr, const uint8_t *mad,
	     uint32_t len)
{
	struct rte_pmd_hca_record *r;
	struct umad_hdr u;
	struct mpd_rec_umad ru;
	struct mpd_rec_hdr h;
	int n;

	if (!hi->rec_on)
		return;
	memcpy(&u, hdr, sizeof(u));
	memset(&ru, 0, sizeof(ru));
	ru.direction = direction;
	ru.pid = (uint32_t)s->pid;
	ru.portid = s->id;
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
	r = rec_alloc(mpd_rec_umad_len(len));
	if (!r) {
		hi->port.cnt.rec_dropped++;
		return;
	}
	rec_hdr(hi, &h);
	n = mpd_rec_encode_umad(&h, &ru, mad, len, r->data, r->len);
	rec_push(hi, r, MPD_REC_UMAD, n);
}

static void
port_snapshot(const struct hca_port *p, struct hca_rec_port_state *st)
{
	st->state = p->port_state;
	st->lid = p->lid;
	st->lmc = p->lmc;
	st->sm_lid = p->sm_lid;
	st->sm_sl = p->sm_sl;
	st->is_sm = (p->cap_mask >> 1) & 1;	/* CapabilityMask.IsSM */
}

void
hca_rec_port_check(struct hca_internals *hi)
{
	struct hca_rec_port_state now, *old = &hi->rec_last;
	struct rte_pmd_hca_record *r;
	struct mpd_rec_port pe;
	struct mpd_rec_hdr h;
	int n;

	if (!hi->rec_on)
		return;
	port_snapshot(&hi->port, &now);
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
	pe.phys_state = hi->port.phys_state;
	pe.old_lid = old->lid;
	pe.new_lid = now.lid;
	pe.old_sm_lid = old->sm_lid;
	pe.new_sm_lid = now.sm_lid;
	pe.is_sm = now.is_sm;
	pe.lmc = now.lmc;
	pe.sm_sl = now.sm_sl;
	pe.capability_mask = hi->port.cap_mask;
	pe.port_guid = hi->port.port_guid;
	*old = now;
	r = rec_alloc(MPD_REC_HDR_LEN + MPD_REC_PORT_LEN);
	if (!r) {
		hi->port.cnt.rec_dropped++;
		return;
	}
	rec_hdr(hi, &h);
	n = mpd_rec_encode_port(&h, &pe, r->data, r->len);
	rec_push(hi, r, MPD_REC_PORT, n);
}

int
rte_pmd_hca_records_enable(uint16_t port_id, int on)
{
	struct hca_internals *hi = hca_of_port(port_id);
	char name[RTE_RING_NAMESIZE];

	if (!hi)
		return -ENODEV;
	if (on && !hi->rec_ring) {
		snprintf(name, sizeof(name), "hca_rec_%u", port_id);
		/* many producers (lcore, control thread), one consumer */
		hi->rec_ring = rte_ring_create(name, REC_RING_SIZE,
					       SOCKET_ID_ANY, RING_F_SC_DEQ);
		if (!hi->rec_ring)
			return -rte_errno;
	}
	rte_spinlock_lock(&hi->lock);
	if (on && !hi->rec_on)
		port_snapshot(&hi->port, &hi->rec_last);
	hi->rec_on = on != 0;
	rte_spinlock_unlock(&hi->lock);
	return 0;
}

unsigned int
rte_pmd_hca_records_dequeue(uint16_t port_id, struct rte_pmd_hca_record **recs,
			    unsigned int n)
{
	struct hca_internals *hi = hca_of_port(port_id);

	if (!hi || !hi->rec_ring)
		return 0;
	return rte_ring_dequeue_burst(hi->rec_ring, (void **)recs, n, NULL);
}

void
rte_pmd_hca_record_free(struct rte_pmd_hca_record *r)
{
	free(r);
}

void
hca_records_release(struct hca_internals *hi)
{
	struct rte_pmd_hca_record *r;

	if (!hi->rec_ring)
		return;
	hi->rec_on = false;
	while (rte_ring_dequeue(hi->rec_ring, (void **)&r) == 0)
		free(r);
	rte_ring_free(hi->rec_ring);
	hi->rec_ring = NULL;
}
