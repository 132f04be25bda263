/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IB CM of one port (IBA 12), as a pure state machine with the
 * kernel's drivers/infiniband/core/cm.c semantics: connections named by
 * local and remote communication IDs, the states of IBA 12.9, listens by
 * service ID, REQ/MRA/REJ/REP/RTU/DREQ/DREP/SIDR_REQ/SIDR_REP (LAP is
 * answered with an APR saying no), time-outs and retries, timewait.
 *
 * No DPDK, no lock, no clock: the caller passes the time in ns and holds
 * whatever lock guards the CM for every call. MADs go out through the
 * send callback as 256-byte buffers with an address (struct
 * hca_mad_desc, the MAD layer's); what happens reaches the connection's
 * owner through the event callback.
 */
#ifndef NET_HCA_IBCM_H
#define NET_HCA_IBCM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "madpmd/cm.h"
#include "../mad/mad_layer.h"

#define HCA_IBCM_MAX_CONNS	16384	/* a power of two */
#define HCA_IBCM_MAX_LISTENS	4096
#define HCA_IBCM_ACK_DELAY	15	/* the CA's (ibv_device_attr) */
#define HCA_IBCM_MRA_TIMEOUT	24	/* cma.c's CMA_CM_MRA_SETTING */

/* REJ reasons (IBA 12.6.7.2) the CM itself gives */
#define HCA_IBCM_REJ_TIMEOUT		1
#define HCA_IBCM_REJ_INVALID_SID	8
#define HCA_IBCM_REJ_STALE_CONN		10
#define HCA_IBCM_REJ_CONSUMER		28
/* APR status (IBA 12.8.2): the QP layer has no alternate path */
#define HCA_IBCM_APR_INVALID_COMM_ID	1
#define HCA_IBCM_APR_UNSUPPORTED	2

/* IBA 12.9.6 */
enum hca_ibcm_state {
	HCA_IBCM_IDLE = 0,
	HCA_IBCM_REQ_SENT,
	HCA_IBCM_REQ_RCVD,
	HCA_IBCM_MRA_REQ_SENT,
	HCA_IBCM_MRA_REQ_RCVD,
	HCA_IBCM_REP_SENT,
	HCA_IBCM_REP_RCVD,
	HCA_IBCM_MRA_REP_SENT,
	HCA_IBCM_MRA_REP_RCVD,
	HCA_IBCM_ESTABLISHED,
	HCA_IBCM_DREQ_SENT,
	HCA_IBCM_DREQ_RCVD,
	HCA_IBCM_TIMEWAIT,
	HCA_IBCM_SIDR_REQ_SENT,
	HCA_IBCM_SIDR_REQ_RCVD,
};

/* What the owner hears (the kernel's enum ib_cm_event_type) */
enum hca_ibcm_event_type {
	HCA_IBCM_EV_REQ_ERROR = 1,	/* the REQ went unanswered */
	HCA_IBCM_EV_REQ_RECEIVED,
	HCA_IBCM_EV_REP_ERROR,		/* the REP went unanswered */
	HCA_IBCM_EV_REP_RECEIVED,
	HCA_IBCM_EV_RTU_RECEIVED,
	HCA_IBCM_EV_USER_ESTABLISHED,	/* notify(COMM_EST) */
	HCA_IBCM_EV_DREQ_ERROR,
	HCA_IBCM_EV_DREQ_RECEIVED,
	HCA_IBCM_EV_DREP_RECEIVED,
	HCA_IBCM_EV_TIMEWAIT_EXIT,
	HCA_IBCM_EV_MRA_RECEIVED,
	HCA_IBCM_EV_REJ_RECEIVED,
	HCA_IBCM_EV_SIDR_REQ_ERROR,
	HCA_IBCM_EV_SIDR_REQ_RECEIVED,
	HCA_IBCM_EV_SIDR_REP_RECEIVED,
};

struct hca_ibcm_conn;

struct hca_ibcm_event {
	enum hca_ibcm_event_type type;
	const struct hca_mad_desc *from;	/* received: the sender */
	void *listen;			/* REQ/SIDR_REQ: the listen's owner */
	union {				/* the message, decoded */
		struct mpd_cm_req req;
		struct mpd_cm_rep rep;
		struct mpd_cm_rej rej;
		struct mpd_cm_rtu rtu;
		struct mpd_cm_dreq dreq;
		struct mpd_cm_drep drep;
		struct mpd_cm_sidr_req sidr_req;
		struct mpd_cm_sidr_rep sidr_rep;
	} m;
};

/* What the owner does with a new connection (REQ, SIDR_REQ) */
enum hca_ibcm_verdict {
	HCA_IBCM_TAKE,		/* it set c->owner */
	HCA_IBCM_REJECT,	/* REJ, consumer defined; SIDR_REP REJECT */
	HCA_IBCM_DROP,		/* unanswered: the peer retries, as the
				 * kernel's full backlog makes it */
};

struct hca_ibcm_ops {
	/* A MAD to send (256 bytes) to addr. */
	void (*send)(void *ctx, const struct hca_mad_desc *addr,
		     const uint8_t *mad);
	/* An event for c's owner. For REQ_RECEIVED and SIDR_REQ_RECEIVED
	 * c is new and ownerless: the handler's verdict says what becomes
	 * of it. Other events go to owned connections only, and return
	 * HCA_IBCM_TAKE. */
	enum hca_ibcm_verdict (*event)(void *ctx, struct hca_ibcm_conn *c,
				       const struct hca_ibcm_event *ev);
};

/* What the owner gives to send a REQ (active side) */
struct hca_ibcm_req_param {
	uint64_t service_id;
	uint32_t qpn;
	uint32_t starting_psn;
	uint8_t transport;		/* MPD_CM_TRANSPORT_RC or _UC */
	uint8_t resp_resources;
	uint8_t initiator_depth;
	uint8_t flow_control;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint8_t srq;
	uint8_t max_cm_retries;
	uint8_t local_cm_resp_timeout;
	uint8_t remote_cm_resp_timeout;
	uint16_t pkey;
	uint8_t path_mtu;
	uint8_t packet_life_time;
	struct mpd_cm_path primary;
	const uint8_t *pdata;
	uint8_t pdata_len;
};

/* REP (passive side) */
struct hca_ibcm_rep_param {
	uint32_t qpn;
	uint8_t resp_resources;
	uint8_t initiator_depth;
	uint8_t flow_control;
	uint8_t rnr_retry_count;
	uint8_t srq;
	const uint8_t *pdata;
	uint8_t pdata_len;
};

/* One connection (or SIDR exchange). The owner reads it; the CM writes. */
struct hca_ibcm_conn {
	TAILQ_ENTRY(hca_ibcm_conn) next;	/* used or free */
	enum hca_ibcm_state state;
	bool used;
	bool active;			/* we sent the REQ / SIDR_REQ */
	bool established_once;		/* ESTABLISHED told the owner */
	void *owner;			/* NULL: nobody hears of it */
	uint32_t local_id;		/* comm ID / SIDR request ID */
	uint32_t remote_id;
	uint64_t remote_guid;		/* the peer's CA GUID */
	uint64_t service_id;
	struct hca_mad_desc addr;	/* where the peer's CM is */
	/* what the QP's attributes come from (cm.c's cm_id_private) */
	uint32_t local_qpn;
	uint32_t remote_qpn;
	uint32_t sq_psn;
	uint32_t rq_psn;
	uint8_t transport;
	uint8_t resp_resources;
	uint8_t initiator_depth;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint8_t path_mtu;
	uint8_t ack_timeout;		/* the QP's Local ACK Timeout */
	uint8_t srq;
	uint16_t pkey;
	uint64_t tid;			/* of the exchange under way */
	struct mpd_cm_path path;	/* primary, seen from this side */
	/* the message the timer resends, and when */
	uint8_t msg[MPD_MAD_LEN];
	uint64_t deadline_ns;		/* 0: no timer */
	uint32_t timeout_ms;		/* of the message waiting */
	uint8_t retries_left;
	uint8_t max_cm_retries;
	uint32_t resp_timeout_ms;	/* the peer's CM response time-out */
	uint32_t timewait_ms;
};

TAILQ_HEAD(hca_ibcm_conn_list, hca_ibcm_conn);

struct hca_ibcm_listen {
	uint64_t service_id;
	void *owner;			/* NULL: the slot is free */
};

struct hca_ibcm_stats {
	uint64_t sent, received, resent, dropped, rej_no_listener, dup_req,
		 dup_rtu, stale, timeouts;
	uint64_t established;		/* connections that got there */
};

struct hca_ibcm {
	const struct hca_ibcm_ops *ops;
	void *ctx;
	uint64_t ca_guid;
	uint32_t agent_id;		/* the CM agent (class 0x07) */
	uint32_t next_gen;
	uint64_t tid;
	uint64_t rnd;			/* xorshift state: PSNs and IDs */
	uint64_t next_timer_ns;		/* no timer before this */
	struct hca_ibcm_conn *conn;	/* HCA_IBCM_MAX_CONNS */
	struct hca_ibcm_conn_list used, free;
	uint32_t carved;		/* slots handed out at least once */
	uint32_t nused;
	struct hca_ibcm_listen *listen;	/* HCA_IBCM_MAX_LISTENS */
	struct hca_ibcm_stats st;
};

/* 0 or ENOMEM; seed makes IDs and PSNs differ between runs. */
int hca_ibcm_init(struct hca_ibcm *cm, const struct hca_ibcm_ops *ops,
		  void *ctx, uint64_t ca_guid, uint64_t seed);
void hca_ibcm_fini(struct hca_ibcm *cm);

/* A random 24-bit PSN (the CM's generator) */
uint32_t hca_ibcm_psn(struct hca_ibcm *cm);

/* Listens: 0, EADDRINUSE (the service ID is taken) or ENOMEM. */
int hca_ibcm_listen(struct hca_ibcm *cm, uint64_t service_id, void *owner);
void hca_ibcm_unlisten(struct hca_ibcm *cm, uint64_t service_id);

/* A MAD of class 0x07 from addr (its 256 bytes). */
void hca_ibcm_input(struct hca_ibcm *cm, const struct hca_mad_desc *addr,
		    const uint8_t *mad, uint64_t now_ns);
/* Time-outs due by now_ns. */
void hca_ibcm_timers(struct hca_ibcm *cm, uint64_t now_ns);
/* The earliest timer, UINT64_MAX when none. */
uint64_t hca_ibcm_next_timer(const struct hca_ibcm *cm);

/* Active side: a new connection sending a REQ to addr (0 with *pc,
 * ENOMEM, EINVAL). */
int hca_ibcm_send_req(struct hca_ibcm *cm, void *owner,
		      const struct hca_mad_desc *addr,
		      const struct hca_ibcm_req_param *p, uint64_t now_ns,
		      struct hca_ibcm_conn **pc);
/* Passive side: REP for a REQ_RCVD connection; 0 or EINVAL. */
int hca_ibcm_send_rep(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		      const struct hca_ibcm_rep_param *p, uint64_t now_ns);
/* Active side: RTU after the REP; 0 or EINVAL. */
int hca_ibcm_send_rtu(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		      const uint8_t *pdata, uint8_t len);
/* REJ of a request or reply not yet answered; 0 or EINVAL. */
int hca_ibcm_send_rej(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		      uint16_t reason, const uint8_t *pdata, uint8_t len,
		      uint64_t now_ns);
/* DREQ of an established connection; 0 or EINVAL. */
int hca_ibcm_send_dreq(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		       const uint8_t *pdata, uint8_t len, uint64_t now_ns);
/* DREP to a DREQ received; 0 or EINVAL. */
int hca_ibcm_send_drep(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		       const uint8_t *pdata, uint8_t len, uint64_t now_ns);
/* notify(COMM_EST) (the kernel's ib_cm_notify): 0 (and one
 * USER_ESTABLISHED event), EISCONN when established, else EINVAL. */
int hca_ibcm_establish(struct hca_ibcm *cm, struct hca_ibcm_conn *c);
/* SIDR: the request (a new exchange) and its answer. */
int hca_ibcm_send_sidr_req(struct hca_ibcm *cm, void *owner,
			   const struct hca_mad_desc *addr, uint64_t service_id,
			   uint16_t pkey, const uint8_t *pdata, uint8_t len,
			   uint32_t timeout_ms, uint8_t retries,
			   uint64_t now_ns, struct hca_ibcm_conn **pc);
int hca_ibcm_send_sidr_rep(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
			   uint8_t status, uint32_t qpn, uint32_t qkey,
			   const uint8_t *pdata, uint8_t len);
/* The owner lets go (the kernel's ib_destroy_cm_id): what the state
 * owes is sent (REJ, DREQ, DREP, SIDR_REP), the connection lingers
 * ownerless through DREQ retries and timewait, then is freed. */
void hca_ibcm_destroy(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		      uint64_t now_ns);

/* IBA 12.7.3 / cm.c's cm_convert_to_ms(): 4.096 us * 2^t, in ms */
static inline uint32_t
hca_ibcm_ms(uint8_t t)
{
	return t > 8 ? 1u << ((t > 31 ? 31 : t) - 8) : 1;
}

const char *hca_ibcm_state_name(enum hca_ibcm_state s);

#endif
