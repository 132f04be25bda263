/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the MAD layer. Its files call downwards only:
 *   mad_layer.c (input dispatch, sends, loopback, time-outs)
 *     -> xfer.c (RMPP transfers)
 *       -> deliver.c (which client a MAD is for, handing it over)
 *         -> agents.c (the agent table), outstanding.c (waiting sends)
 */
#ifndef NET_HCA_MAD_PRIV_H
#define NET_HCA_MAD_PRIV_H

#include "madpmd/mad.h"
#include "madpmd/rmpp.h"
#include "mad_layer.h"

#define MAD_DESC_LEN	((uint32_t)sizeof(struct hca_mad_desc))

/* A request sent with a time-out, waiting for its response (IBA 13.5.3;
 * the kernel's ib_mad send/wait lists). */
struct hca_outstanding {
	bool used;
	struct hca_outstanding *next;	/* in its bucket or the free list */
	struct hca_mad_client *c;
	uint32_t agent;
	uint64_t tid;
	uint8_t mgmt_class;
	uint64_t deadline;		/* ns */
	uint32_t timeout_ms;
	uint32_t retries_left;
	struct hca_mad_desc desc;	/* to resend, or hand back */
	uint8_t mad[MPD_MAD_LEN];
};

/* One RMPP transfer (IBA 13.6) the port runs for a client: a sender
 * segmenting a client's message, or a receiver reassembling one for it. */
struct hca_xfer {
	bool used;
	struct mpd_rmpp_send *snd;
	struct mpd_rmpp_recv *rcv;
	struct hca_mad_client *c;
	uint32_t agent;
	uint64_t tid;
	uint8_t mgmt_class;
	uint16_t peer_lid;
	uint32_t peer_qp;
	bool sender;
	uint32_t bytes;		/* of the client's receive budget */
	struct mpd_pkt tmpl;	/* headers of what we send to the peer */
	struct mpd_pkt first;	/* receiver: how the first segment came */
	bool delivered;
	unsigned int slot;	/* of the client's arena */
	uint32_t staged;	/* sender: bytes of the slot its message took */
	struct hca_mad_desc desc;		/* sender: to hand back */
	uint8_t hdr[MPD_MAD_HDR_LEN];		/* sender: its MAD header */
};

/* One frame into the caller's room (which the caller checked). */
static inline void
mad_emit(struct hca_mad_out *out, const struct mpd_pkt *pk,
	 const uint8_t *mad)
{
	out->emit(out->ctx, pk, mad);
	out->room--;
}

/* ---- agents.c ---- */
/* The agent a request goes to (IBA 13.5.3.2): false when none. */
bool mad_find_agent(const struct hca_mad_layer *ml, const uint8_t *mad,
		    struct hca_mad_client **pc, uint32_t *pid);
/* The agent whose hi_tid a response's TID carries. */
bool mad_find_agent_by_tid(const struct hca_mad_layer *ml, uint64_t tid,
			   struct hca_mad_client **pc, uint32_t *pid);

/* ---- outstanding.c ---- */
int mad_out_pool_init(struct hca_mad_client *c);
struct hca_outstanding *mad_out_find(const struct hca_mad_layer *ml,
				     uint64_t tid, uint8_t cls);
/* A slot of c's share hashed under (tid, cls); NULL when used up. */
struct hca_outstanding *mad_out_alloc(struct hca_mad_layer *ml,
				      struct hca_mad_client *c, uint64_t tid,
				      uint8_t cls);
/* Give a slot back (the client is told through ops->credit). */
void mad_out_free(struct hca_mad_layer *ml, struct hca_outstanding *o);

/* ---- deliver.c ---- */
/* Which client a MAD is for: a response's waiting send (freed when
 * free_wait) or its agent by TID, a request's registered agent. */
bool mad_route(struct hca_mad_layer *ml, const uint8_t *mad, bool free_wait,
	       struct hca_mad_client **pc, uint32_t *pid);
/* Hand a MAD to a client's agent, with pk's address. */
bool mad_deliver_to(struct hca_mad_layer *ml, struct hca_mad_client *c,
		    uint32_t agent, const struct mpd_pkt *pk,
		    const uint8_t *mad, uint32_t len);
/* route() then deliver_to(). */
bool mad_deliver(struct hca_mad_layer *ml, const struct mpd_pkt *pk,
		 const uint8_t *mad, uint32_t len);
/* A send back to its client with status (the request's MAD header,
 * length 24, as the kernel's ib_umad hands back a failed send). */
void mad_hand_back(struct hca_mad_client *c, const struct hca_mad_desc *d,
		   const uint8_t *hdr, uint32_t status);

/* ---- xfer.c ---- */
/* An active RMPP MAD off the wire: true when taken. */
bool mad_xfer_input(struct hca_mad_layer *ml, const struct mpd_pkt *pk,
		    const uint8_t *mad, uint64_t now_ns);
/* A send slot of c's share for a message of len bytes, and where the
 * caller writes the message (*msg); NULL when the share is used up. */
struct hca_xfer *mad_xfer_stage(struct hca_mad_client *c, uint32_t len,
				uint8_t **msg);
/* Start sending the message staged in x; its segments go out with
 * mad_xfer_poll(). 0 or an errno (x is gone; the caller hands the send
 * back). */
int mad_xfer_start(struct hca_mad_layer *ml, struct hca_xfer *x,
		   const struct hca_mad_desc *d, uint32_t len,
		   const struct mpd_pkt *pk);
/* A staged send that did not start (delivered on the port itself). */
void mad_xfer_unstage(struct hca_xfer *x);
void mad_xfer_poll(struct hca_mad_layer *ml, uint64_t now_ns,
		   struct hca_mad_out *out);
/* End the client's transfers (of one agent, or all when agent < 0). */
void mad_xfer_end(struct hca_mad_client *c, int64_t agent);
int mad_xfer_pool_init(struct hca_mad_client *c);
void mad_xfer_pool_fini(struct hca_mad_client *c);

#endif
