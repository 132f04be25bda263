/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture records (docs/capture-format.md) a port makes while an
 * application asks for them: umad messages as the API saw them, and port
 * events. A sink: the channel and the ethdev glue call it, it calls none
 * of them. Callers hold the port lock; nothing is made while off.
 */
#ifndef NET_HCA_RECORDS_H
#define NET_HCA_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "madpmd/verbs.h"	/* struct mpd_v_cqe */
#include "../mad/mad_layer.h"	/* struct hca_mad_desc */
#include "../node/node.h"

struct rte_ring;
struct rte_pmd_hca_record;
struct hca_rec_pool;

/* What the last port event record said */
struct hca_rec_port_state {
	uint8_t state;
	uint8_t lmc;
	uint8_t sm_sl;
	uint8_t is_sm;
	uint16_t lid;
	uint16_t sm_lid;
};

struct hca_recorder {
	volatile bool on;
	struct rte_ring *ring;		/* records waiting for the application */
	struct hca_rec_pool *pool;	/* their memory */
	uint32_t seq;
	uint16_t node_id;		/* the ethdev port id */
	struct hca_rec_port_state last;
};

/* A umad message a client sent (MPD_REC_UMAD_SEND) or will read
 * (MPD_REC_UMAD_RECV): its 64-byte ib_user_mad header (struct
 * hca_mad_desc) and the MAD. */
void hca_rec_umad(struct hca_recorder *r, struct hca_port *p, uint32_t pid,
		  uint32_t session, uint8_t direction, const void *hdr,
		  const uint8_t *mad, uint32_t len);
/* A CQ completion as the client will poll it (MPD_REC_WC), psn the
 * packet that completed it (MPD_REC_NO_PSN) */
void hca_rec_wc(struct hca_recorder *r, struct hca_port *p, uint32_t cq_id,
		const struct mpd_v_cqe *e, uint32_t psn);
/* A QP state change (MPD_REC_QP) */
struct mpd_rec_qp;
void hca_rec_qp(struct hca_recorder *r, struct hca_port *p,
		const struct mpd_rec_qp *q);
/* An rdma_cm event as the client will read it (MPD_REC_CM) */
struct mpd_rec_cm;
void hca_rec_cm(struct hca_recorder *r, struct hca_port *p,
		const struct mpd_rec_cm *cm);
/* A port event record when state, LIDs, SM or IsSM changed since the last
 * one. Call after anything that may change them. */
void hca_rec_port_check(struct hca_recorder *r, struct hca_port *p);
/* Make the ring records wait in (once, before the first enable, without
 * the port lock: it allocates). 0 or ENOMEM. */
int hca_rec_prepare(struct hca_recorder *r);
/* Start or stop making records; port lock held. */
void hca_rec_enable(struct hca_recorder *r, const struct hca_port *p, bool on);
unsigned int hca_rec_dequeue(struct hca_recorder *r,
			     struct rte_pmd_hca_record **recs, unsigned int n);
/* Drop what is queued and the ring (port close). */
void hca_rec_release(struct hca_recorder *r);

#endif
