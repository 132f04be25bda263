/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The communication manager of one port: the IB CM (ibcm.h) and the
 * rdma_cm ids on it (cma.h), as one client of the port's MAD layer with
 * three agents, the CM's (class 0x07, method Send) and two send-only ones
 * for SA queries (PathRecords, and multicast joins: TIDs apart). MADs come in through the client's deliver (lcore, port lock
 * held); what the CM sends is queued and handed to the MAD layer by
 * hca_cm_poll(), which the ethdev glue calls on the lcore, under the
 * port lock, beside hca_mad_poll().
 *
 * The CM's timers run on CLOCK_MONOTONIC, read here: the MAD layer's
 * deliver carries no time, and requests come from the channel's thread.
 */
#ifndef NET_HCA_CM_AGENT_H
#define NET_HCA_CM_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "../capture/records.h"
#include "../mad/mad_layer.h"
#include "../node/node.h"
#include "cma.h"
#include "ibcm.h"

#define HCA_CM_SENDQ	4096	/* MADs waiting for the lcore */

struct hca_cm_out;

struct hca_cm {
	struct hca_mad_client mc;	/* what the MAD layer knows of it */
	struct hca_mad_layer *ml;
	struct hca_port *port;
	struct hca_recorder *rec;	/* the port's capture records */
	struct hca_ibcm ibcm;
	struct hca_cma cma;
	uint32_t cm_agent, sa_agent, mc_agent;
	struct hca_cm_out *q;		/* HCA_CM_SENDQ */
	uint32_t qhead, qtail;
	uint64_t q_dropped;
};

/* At probe, before anyone else can reach the port: 0 or ENOMEM. */
int hca_cm_create(struct hca_cm **pcm, struct hca_port *port,
		  struct hca_mad_layer *ml, struct hca_recorder *rec);
/* Port lock held by the caller or nobody else running. */
void hca_cm_destroy(struct hca_cm *cm);

/* The CM's clock (CLOCK_MONOTONIC, ns) */
uint64_t hca_cm_now(void);

/* Lcore, port lock held: timers, then the queued MADs into out. now_ns
 * is the MAD layer's clock (its sends' time-outs). */
void hca_cm_poll(struct hca_cm *cm, uint64_t now_ns, struct hca_mad_out *out);
/* Port lock held: sends queued (the lcore must run now) */
bool hca_cm_busy(const struct hca_cm *cm);
/* Port lock held: ms until the next timer, -1 when none */
int hca_cm_idle_ms(const struct hca_cm *cm);

/* What the port's CM holds and has done (the "cm_*" xstats) */
struct hca_cm_stats {
	uint64_t ids;			/* rdma_cm ids live */
	uint64_t conns;			/* connections live, lingering ones
					 * (DREQ retries, timewait) too */
	uint64_t established;		/* connections established, ever */
};

/* Port lock held; all 0 for NULL (a port without the CM) */
void hca_cm_stats_get(const struct hca_cm *cm, struct hca_cm_stats *st);

#endif
