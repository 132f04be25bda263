/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MAD layer of one port, with the kernel's ib_mad semantics: agents
 * (IBA 13.4.5), outstanding sends with time-outs and retries (13.5.3),
 * RMPP transfers (13.6), the port's own agents first (13.5.2), and a
 * GetResp "unsupported" for a Get/Set nobody serves (ib_mad.c's
 * generate_unmatched_resp). One path for the wire and for loopback.
 *
 * It knows a client only as a struct hca_mad_client that the channel
 * embeds in its session, with two callbacks; it includes no channel
 * header. It knows the wire only as frames it hands to an emit callback:
 * no mbuf, no lock, no clock (callers pass the time in ns, and hold the
 * port lock for every call but client_init/fini).
 */
#ifndef NET_HCA_MAD_LAYER_H
#define NET_HCA_MAD_LAYER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "../node/node.h"

#define HCA_MAD_AGENTS		32	/* per client, as per umad fd */
#define HCA_MAD_OUT_BUCKETS	4096	/* outstanding sends by TID */
/* Every client's own share of the port (a client that fills its share
 * gets ENOMEM; everyone else keeps theirs) */
#define HCA_MAD_CLIENT_OUT	256	/* sends waiting for a response */
#define HCA_MAD_CLIENT_XFER_SENDS 8	/* RMPP sends (2 MiB each at most) */
#define HCA_MAD_CLIENT_XFER_RECVS 8	/* RMPP receives */
#define HCA_MAD_CLIENT_XFERS	(HCA_MAD_CLIENT_XFER_SENDS + \
				 HCA_MAD_CLIENT_XFER_RECVS)
#define HCA_MAD_CLIENT_RMPP_BYTES (16u << 20)	/* messages it receives */
/* Each transfer runs in a slot of its client's arena, address space
 * reserved when the client comes (never under the lock): a whole message
 * and the engine's state. Two slots more than transfers, so that the
 * control thread can give two idle slots' pages back (hca_mad_trim_*)
 * while the client uses all its transfers. */
#define HCA_MAD_XFER_SLOT	((2u << 20) + (16u << 10))
#define HCA_MAD_XFER_SPARE	2
#define HCA_MAD_XFER_SLOTS	(HCA_MAD_CLIENT_XFERS + HCA_MAD_XFER_SPARE)
#define HCA_MAD_TRIM_KEEP	(64u << 10)	/* of a slot, kept resident */

/*
 * How a MAD is addressed, sent and received: rdma-core's struct
 * ib_user_mad header (64 bytes), field for field, so that the umad
 * channel copies it as it is.
 */
struct hca_mad_desc {
	uint32_t agent_id;
	uint32_t status;
	uint32_t timeout_ms;
	uint32_t retries;
	uint32_t length;
	uint32_t qpn;		/* big endian */
	uint32_t qkey;		/* big endian */
	uint16_t lid;		/* big endian */
	uint8_t sl;
	uint8_t path_bits;
	uint8_t grh_present;
	uint8_t gid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t gid[16];
	uint32_t flow_label;	/* big endian */
	uint16_t pkey_index;
	uint8_t reserved[6];
};
_Static_assert(sizeof(struct hca_mad_desc) == 64, "ib_user_mad is 64 bytes");

struct hca_mad_client;

struct hca_mad_client_ops {
	/* A MAD for the client's agent d->agent_id: a whole message (RMPP
	 * reassembled), or a send handed back (d->status set, the request's
	 * 24-byte MAD header). false when the client could not take it. */
	bool (*deliver)(struct hca_mad_client *c, const struct hca_mad_desc *d,
			const uint8_t *mad, uint32_t len);
	/* A share the client held was given back (a send answered, timed
	 * out or ended; a transfer finished). */
	void (*credit)(struct hca_mad_client *c);
};

/* An agent a client registered (IBA 13.4.5; umad_register2()) */
struct hca_mad_agent {
	bool used;
	uint8_t mgmt_class;		/* 0: send only */
	uint8_t class_version;
	uint8_t rmpp_version;
	uint8_t qpn;
	uint64_t method_mask[2];
	uint32_t oui;
	uint32_t hi_tid;		/* TID bits 63..32 of its requests */
};

struct hca_outstanding;
struct hca_xfer;

/* What the MAD layer keeps of a client; the channel embeds it. */
struct hca_mad_client {
	TAILQ_ENTRY(hca_mad_client) next;
	const struct hca_mad_client_ops *ops;
	uint32_t pid;			/* for logs and records */
	uint32_t id;
	bool dead;			/* cut off: nothing more for it */
	struct hca_mad_agent agent[HCA_MAD_AGENTS];
	/* its share: pools allocated at init, never under the lock */
	struct hca_outstanding *out;	/* HCA_MAD_CLIENT_OUT of them */
	struct hca_outstanding *out_free;
	struct hca_xfer *xfer;		/* HCA_MAD_CLIENT_XFERS of them */
	uint32_t out_held;
	uint32_t xfer_send_held;	/* RMPP sends it started */
	uint32_t xfer_held;		/* sends and receives */
	uint64_t rmpp_bytes;		/* reserved by its receives */
	uint8_t *arena;			/* HCA_MAD_XFER_SLOTS slots */
	uint32_t slot_used;		/* bit n: slot n runs a transfer */
	uint32_t slot_dirty;		/* ... ran one past TRIM_KEEP */
	uint32_t slot_idle;		/* ... dirty and idle at the last trim */
	uint32_t slot_trimming;		/* ... being given back: not to use */
	uint64_t sent, received, dropped;
};

TAILQ_HEAD(hca_mad_client_list, hca_mad_client);

/* Where frames go: the caller's room for them and how to make one. */
struct hca_mad_out {
	/* A frame of pk's headers around the 256-byte mad; false when it
	 * could not be made (counted by the caller). */
	bool (*emit)(void *ctx, const struct mpd_pkt *pk, const uint8_t *mad);
	void *ctx;
	unsigned int room;		/* frames the caller still takes */
};

struct hca_mad_layer {
	struct hca_port *port;
	struct hca_mad_client_list clients;
	struct hca_outstanding *bucket[HCA_MAD_OUT_BUCKETS];
	uint32_t out_used;
	uint32_t next_hi_tid;
	uint64_t next_timeout_ns;	/* next scan of the outstanding sends */
	/* a switch's port 0 (hca_mad_layer_init_mgmt()): the switch's SMI,
	 * SMA and PMA are its own (node/switch_rx.c) and see every frame
	 * first; what reaches the layer is for its clients, and all they
	 * send leaves through the switch, also to the switch itself */
	bool mgmt;
};

/* umad_register2()'s request */
struct hca_mad_agent_req {
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t rmpp_version;
	uint8_t qpn;
	uint64_t method_mask[2];
	uint32_t oui;
};

void hca_mad_layer_init(struct hca_mad_layer *ml, struct hca_port *p);
void hca_mad_layer_init_mgmt(struct hca_mad_layer *ml, struct hca_port *p);

/* A client's pools: 0 or ENOMEM. No lock: before it is attached. */
int hca_mad_client_init(struct hca_mad_client *c,
			const struct hca_mad_client_ops *ops, uint32_t pid,
			uint32_t id);
/* Free the pools of a detached client. */
void hca_mad_client_fini(struct hca_mad_client *c);
/* Port lock held: the client starts / stops being seen. Detach frees
 * every send and transfer it held. */
void hca_mad_client_attach(struct hca_mad_layer *ml, struct hca_mad_client *c);
void hca_mad_client_detach(struct hca_mad_layer *ml, struct hca_mad_client *c);

/*
 * Giving back the pages of a client's big transfers once they are over,
 * from a thread that may make system calls (the channel's control thread;
 * the client must stay attached meanwhile), now and then:
 *   lock; while (begin()) { unlock; run(); lock; end(); } mark(); unlock
 * begin takes up to HCA_MAD_XFER_SPARE slots that were dirty and idle at
 * the last mark() and still are, and keeps them from use (the client's
 * transfers always find a slot); run gives their pages back; end lets
 * them be used again; mark notes which slots are idle now.
 */
struct hca_mad_trim {
	unsigned int n;
	uint32_t mask;
	uint8_t *addr[HCA_MAD_XFER_SPARE];
};

unsigned int hca_mad_trim_begin(struct hca_mad_client *c,
				struct hca_mad_trim *t);
void hca_mad_trim_run(const struct hca_mad_trim *t);
void hca_mad_trim_end(struct hca_mad_client *c, const struct hca_mad_trim *t);
void hca_mad_trim_mark(struct hca_mad_client *c);

/* Agents, port lock held: 0 with *id, EINVAL (bad or taken) or ENOMEM
 * (the client's 32 are used). Unregister ends the agent's sends and
 * transfers first, so that the next agent with its id inherits nothing. */
int hca_mad_agent_register(struct hca_mad_layer *ml, struct hca_mad_client *c,
			   const struct hca_mad_agent_req *r, uint32_t *id);
int hca_mad_agent_unregister(struct hca_mad_layer *ml,
			     struct hca_mad_client *c, uint32_t id);

/*
 * A MAD received on the port (off the wire: mad is the frame's 256 bytes
 * at pk's payload). Returns HCA_REPLY or HCA_TRAP with the answer written
 * over mad (the caller turns pk around and sends it), or HCA_NO_REPLY.
 */
enum hca_reply hca_mad_input(struct hca_mad_layer *ml, const struct mpd_pkt *pk,
			     uint8_t *mad, uint64_t now_ns);

/*
 * A client's send of len bytes for its agent d->agent_id (held: the
 * caller checks). Frames go to out; a send to the port itself never
 * leaves it. 0, or an errno after the send was handed back to the client
 * with that status (EINVAL: a duplicate TID or no RMPP on the agent;
 * ENOMEM: the client's share is used up).
 */
int hca_mad_send(struct hca_mad_layer *ml, struct hca_mad_client *c,
		 const struct hca_mad_desc *d, const uint8_t *mad, uint32_t len,
		 uint64_t now_ns, struct hca_mad_out *out);

/* Time-outs, retries and RMPP segments, ACKs and ABORTs, into out. */
void hca_mad_poll(struct hca_mad_layer *ml, uint64_t now_ns,
		  struct hca_mad_out *out);

/* True while a send waits for its response or an RMPP transfer runs: the
 * port has timers (1 ms grained) and must be polled. */
bool hca_mad_timers(const struct hca_mad_layer *ml);

/* True when a client agent takes this SMP (an SM registered on the port
 * answers SMInfo; the SMA everything else). */
bool hca_mad_smp_for_client(const struct hca_mad_layer *ml,
			    const uint8_t *mad);

/* A send needs one of the client's outstanding slots (HCA_MAD_CLIENT_OUT)
 * or one of its RMPP transfers: what both sides of the channel count. */
enum hca_mad_share {
	HCA_MAD_SHARE_NONE = 0,
	HCA_MAD_SHARE_OUT,
	HCA_MAD_SHARE_XFER,
};

#endif
