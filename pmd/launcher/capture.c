/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Captures of the fabric: any number of pcapng sinks (the --capture file,
 * live clients of the capture socket), each with the ports and kinds it
 * wants. The polling lcore owns the sinks: it writes the wire packets it
 * moves and the records the ports queue (docs/capture-format.md), and cuts
 * off a live sink that cannot keep up rather than wait for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "fabric.h"
#include "madpmd/pcapng.h"
#include "madpmd/records.h"
#include "rte_pmd_hca.h"

#define REC_BURST	64u
#define REC_BATCH	256u	/* records of every port, sorted by time */

static const char *const kind_names[] = { "wire", "umad", "port", "wc", "cm" };

int
fab_cap_kinds_parse(const char *list, uint32_t *kinds)
{
	char buf[128], *save = NULL, *k;
	unsigned int i;

	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return -1;
	*kinds = 0;
	for (k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < RTE_DIM(kind_names); i++)
			if (strcmp(k, kind_names[i]) == 0)
				break;
		if (i == RTE_DIM(kind_names))
			return -1;
		*kinds |= 1u << i;
	}
	return *kinds ? 0 : -1;
}

struct fab_sink *
fab_sink_new(const struct fabric *f, struct mpd_pcapng *w, uint32_t kinds,
	     const bool *ports, const char *what)
{
	struct fab_sink *s = calloc(1, sizeof(*s));
	unsigned int i;

	if (!s)
		return NULL;
	s->w = w;
	s->kinds = kinds;
	s->ib_dissector = f->opts.ib_dissector ? f->opts.ib_dissector
					       : "infiniband";
	snprintf(s->what, sizeof(s->what), "%s", what);
	for (i = 0; i < FAB_MAX_PORTS; i++)
		s->wire_if[i] = s->rec_if[i] = -1;
	for (i = 0; i < f->nports; i++) {
		const struct fab_port *p = &f->port[i];
		char name[2 * FAB_NAME_LEN + 16], desc[192];
		bool ib = p->link == MPD_LINK_IB;

		/* net_hca ports, switch ports and served CAs' (their frames
		 * in and out) */
		if ((!p->hca && fab_port_ethdev(p)) || (ports && !ports[i]))
			continue;
		snprintf(name, sizeof(name), "%s/%u", p->node, p->num);
		/* the plugin tells a switch's ports, which forward others'
		 * frames, by "(switch," (docs/capture-format.md) */
		snprintf(desc, sizeof(desc), "%s port %u (%s, link=%s)",
			 p->node, p->num, p->sw ? "switch" : p->dev,
			 ib ? "ib" : "roce");
		s->wire_if[i] = mpd_pcapng_add_interface(w,
			ib ? MPD_LINKTYPE_UPPER_PDU : MPD_LINKTYPE_ETHERNET,
			name, desc);
		if (s->wire_if[i] < 0)
			goto fail;
		/* records are exported PDUs: on an IB port's own interface,
		 * beside an Ethernet one on RoCE */
		if (ib || !(kinds & ~FAB_CAP_WIRE)) {
			s->rec_if[i] = s->wire_if[i];
			continue;
		}
		snprintf(name, sizeof(name), "%s/%u records", p->node, p->num);
		snprintf(desc, sizeof(desc), "%s port %u: what its API saw",
			 p->node, p->num);
		s->rec_if[i] = mpd_pcapng_add_interface(w,
			MPD_LINKTYPE_UPPER_PDU, name, desc);
		if (s->rec_if[i] < 0)
			goto fail;
	}
	return s;
fail:
	free(s);
	return NULL;
}

void
fab_sink_free(struct fab_sink *s)
{
	if (!s)
		return;
	mpd_pcapng_close(s->w);
	free(s);
}

int
fab_sink_attach(struct fabric *f, struct fab_sink *s)
{
	unsigned int i;
	int rc = -EBUSY;

	rte_spinlock_lock(&f->sink_lock);
	for (i = 0; i < FAB_MAX_SINKS; i++)
		if (!f->pending[i]) {
			f->pending[i] = s;
			__atomic_store_n(&f->sinks_pending, true,
					 __ATOMIC_RELEASE);
			rc = 0;
			break;
		}
	rte_spinlock_unlock(&f->sink_lock);
	return rc;
}

/* Ports make records while some sink wants them. */
static void
records_update(struct fabric *f)
{
	unsigned int i, j;

	for (i = 0; i < f->nports; i++) {
		bool want = false;

		if (!f->port[i].hca)
			continue;
		for (j = 0; j < FAB_MAX_SINKS; j++)
			if (f->sink[j] && f->sink[j]->rec_if[i] >= 0 &&
			    (f->sink[j]->kinds & ~FAB_CAP_WIRE))
				want = true;
		if (want != f->port[i].recording &&
		    rte_pmd_hca_records_enable(f->port[i].port_id, want) == 0)
			f->port[i].recording = want;
	}
}

static void
sink_drop(struct fabric *f, unsigned int i, const char *why)
{
	struct fab_sink *s = f->sink[i];

	f->sink[i] = NULL;
	if (why)
		fprintf(stderr, "madpmd: capture to %s ended: %s\n", s->what,
			why);
	fab_sink_free(s);
	records_update(f);
}

/* A write failed: a file capture reports it, a live one is cut off. */
static void
sink_failed(struct fabric *f, unsigned int i, int rc)
{
	struct fab_sink *s = f->sink[i];

	if (rc == -EAGAIN || rc == -EWOULDBLOCK)
		sink_drop(f, i, "the reader did not keep up");
	else if (rc == -EPIPE || rc == -ECONNRESET)
		sink_drop(f, i, s->live ? NULL : strerror(-rc));
	else
		sink_drop(f, i, strerror(-rc));
}

static void
adopt_pending(struct fabric *f)
{
	unsigned int i, j;

	rte_spinlock_lock(&f->sink_lock);
	for (i = 0; i < FAB_MAX_SINKS; i++) {
		if (!f->pending[i])
			continue;
		for (j = 1; j < FAB_MAX_SINKS; j++)	/* 0: the file */
			if (!f->sink[j])
				break;
		if (j == FAB_MAX_SINKS)
			break;
		f->sink[j] = f->pending[i];
		f->pending[i] = NULL;
	}
	f->sinks_pending = false;
	for (i = 0; i < FAB_MAX_SINKS; i++)
		if (f->pending[i])
			f->sinks_pending = true;
	rte_spinlock_unlock(&f->sink_lock);
	records_update(f);
}

void
fab_capture_packets(struct fabric *f, const struct fab_port *p, uint32_t dir,
		    struct rte_mbuf **m, uint16_t n, uint64_t ts)
{
	unsigned int idx = (unsigned int)(p - f->port), i;
	uint16_t k;

	for (i = 0; i < FAB_MAX_SINKS; i++) {
		struct fab_sink *s = f->sink[i];
		int rc = 0;

		if (!s || s->wire_if[idx] < 0 || !(s->kinds & FAB_CAP_WIRE))
			continue;
		for (k = 0; k < n && !rc; k++) {
			const void *d = rte_pktmbuf_mtod(m[k], const void *);
			uint32_t len = rte_pktmbuf_data_len(m[k]);

			if (p->link == MPD_LINK_IB)
				rc = mpd_pcapng_write_exported(s->w,
					(uint32_t)s->wire_if[idx], ts, dir,
					s->ib_dissector, MPD_EXP_PDU_NO_PORT,
					MPD_EXP_PDU_NO_PORT, d, len);
			else
				rc = mpd_pcapng_write(s->w,
					(uint32_t)s->wire_if[idx], ts, dir, d,
					len);
		}
		if (rc)
			sink_failed(f, i, rc);
	}
}

static uint32_t
rec_kind_bit(uint32_t kind)
{
	switch (kind) {
	case MPD_REC_UMAD:
		return FAB_CAP_UMAD;
	case MPD_REC_PORT:
		return FAB_CAP_PORT;
	case MPD_REC_WC:
	case MPD_REC_QP:	/* the verbs' records go together */
		return FAB_CAP_WC;
	case MPD_REC_CM:
		return FAB_CAP_CM;
	default:
		return 0;
	}
}

static void
write_record(struct fabric *f, unsigned int idx,
	     const struct rte_pmd_hca_record *r)
{
	uint32_t bit = rec_kind_bit(r->kind), dir = MPD_PCAPNG_DIR_UNKNOWN;
	unsigned int i;

	/* UMAD: sends outbound, receives inbound (the body's first byte) */
	if (r->kind == MPD_REC_UMAD && r->len > MPD_REC_HDR_LEN)
		dir = r->data[MPD_REC_HDR_LEN] == MPD_REC_UMAD_SEND ?
		      MPD_PCAPNG_DIR_OUT : MPD_PCAPNG_DIR_IN;
	for (i = 0; i < FAB_MAX_SINKS; i++) {
		struct fab_sink *s = f->sink[i];
		int rc;

		if (!s || s->rec_if[idx] < 0 || !(s->kinds & bit))
			continue;
		rc = mpd_rec_write(s->w, (uint32_t)s->rec_if[idx], r->ts_ns,
				   dir, r->data, r->len);
		if (rc)
			sink_failed(f, i, rc);
	}
}

/* Sort a batch of records (and the ports they came from) by time. */
static void
sort_records(struct rte_pmd_hca_record **r, unsigned int *port, unsigned int n)
{
	unsigned int i, j;

	/* insertion sort: a batch is short and nearly in order already */
	for (i = 1; i < n; i++) {
		struct rte_pmd_hca_record *x = r[i];
		unsigned int px = port[i];

		for (j = i; j > 0 && r[j - 1]->ts_ns > x->ts_ns; j--) {
			r[j] = r[j - 1];
			port[j] = port[j - 1];
		}
		r[j] = x;
		port[j] = px;
	}
}

/*
 * The records every port made since the last call, written in the order
 * they happened: each port's ring is in order, the ports are merged here.
 */
unsigned int
fab_capture_poll(struct fabric *f)
{
	struct rte_pmd_hca_record *r[REC_BATCH];
	unsigned int port[REC_BATCH];
	unsigned int e, i, k, n = 0, got;

	if (__atomic_load_n(&f->sinks_pending, __ATOMIC_ACQUIRE))
		adopt_pending(f);
	/* only net_hca ports record: the ethdevs, not every port */
	for (e = 0; e < f->neth && n < REC_BATCH; e++) {
		i = (unsigned int)f->eth[e];
		if (!f->port[i].recording)
			continue;
		got = rte_pmd_hca_records_dequeue(f->port[i].port_id, r + n,
						  RTE_MIN(REC_BURST,
							  REC_BATCH - n));
		for (k = n; k < n + got; k++)
			port[k] = i;
		n += got;
	}
	sort_records(r, port, n);
	for (k = 0; k < n; k++) {
		write_record(f, port[k], r[k]);
		rte_pmd_hca_record_free(r[k]);
	}
	return n;
}

bool
fab_capturing(const struct fabric *f)
{
	unsigned int i;

	for (i = 0; i < FAB_MAX_SINKS; i++)
		if (f->sink[i])
			return true;
	return false;
}

void
fab_capture_flush(struct fabric *f)
{
	unsigned int i;
	int rc;

	for (i = 0; i < FAB_MAX_SINKS; i++) {
		if (!f->sink[i])
			continue;
		rc = mpd_pcapng_flush(f->sink[i]->w);
		if (rc)
			sink_failed(f, i, rc);
	}
}

int
fab_capture_open(struct fabric *f, const char *path)
{
	struct mpd_pcapng *w;
	struct fab_sink *s;

	w = mpd_pcapng_open(path);
	if (!w)
		return -errno;
	if (strcmp(path, "-") == 0)
		mpd_pcapng_set_autoflush(w, 1);
	s = fab_sink_new(f, w, FAB_CAP_ALL, NULL,
			 strcmp(path, "-") ? path : "standard output");
	if (!s) {
		mpd_pcapng_close(w);
		return -ENOMEM;
	}
	fab_capture_close(f);
	f->sink[0] = s;
	records_update(f);
	return 0;
}

void
fab_capture_close(struct fabric *f)
{
	if (!f->sink[0])
		return;
	fab_sink_free(f->sink[0]);
	f->sink[0] = NULL;
	records_update(f);
}

void
fab_capture_close_all(struct fabric *f)
{
	unsigned int i;

	rte_spinlock_lock(&f->sink_lock);
	for (i = 0; i < FAB_MAX_SINKS; i++) {
		fab_sink_free(f->pending[i]);
		f->pending[i] = NULL;
	}
	rte_spinlock_unlock(&f->sink_lock);
	/* what the ports still hold goes in first */
	fab_capture_poll(f);
	for (i = 0; i < FAB_MAX_SINKS; i++) {
		fab_sink_free(f->sink[i]);
		f->sink[i] = NULL;
	}
	records_update(f);
}
