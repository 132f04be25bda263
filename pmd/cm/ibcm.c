/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IB CM state machine (ibcm.h): IBA 12.9's states, with the timers,
 * retries and duplicate handling of the kernel's cm.c. Every message
 * off the wire is decoded with the codec's layouts and checked against
 * the connection it names; anything that fits no state is dropped and
 * counted.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/mad.h"
#include "madpmd/rand.h"
#include "ibcm.h"

#define NS_PER_MS	1000000ull
#define GEN_SHIFT	14	/* local ID: generation << 14 | slot */
_Static_assert((1u << GEN_SHIFT) == HCA_IBCM_MAX_CONNS,
	       "a local ID's slot bits name every connection");

static const char *const state_names[] = {
	[HCA_IBCM_IDLE] = "idle",
	[HCA_IBCM_REQ_SENT] = "REQ sent",
	[HCA_IBCM_REQ_RCVD] = "REQ rcvd",
	[HCA_IBCM_MRA_REQ_SENT] = "MRA(REQ) sent",
	[HCA_IBCM_MRA_REQ_RCVD] = "MRA(REQ) rcvd",
	[HCA_IBCM_REP_SENT] = "REP sent",
	[HCA_IBCM_REP_RCVD] = "REP rcvd",
	[HCA_IBCM_MRA_REP_SENT] = "MRA(REP) sent",
	[HCA_IBCM_MRA_REP_RCVD] = "MRA(REP) rcvd",
	[HCA_IBCM_ESTABLISHED] = "established",
	[HCA_IBCM_DREQ_SENT] = "DREQ sent",
	[HCA_IBCM_DREQ_RCVD] = "DREQ rcvd",
	[HCA_IBCM_TIMEWAIT] = "timewait",
	[HCA_IBCM_SIDR_REQ_SENT] = "SIDR REQ sent",
	[HCA_IBCM_SIDR_REQ_RCVD] = "SIDR REQ rcvd",
};

const char *
hca_ibcm_state_name(enum hca_ibcm_state s)
{
	return (unsigned int)s < sizeof(state_names) / sizeof(state_names[0]) ?
	       state_names[s] : "?";
}

uint32_t
hca_ibcm_psn(struct hca_ibcm *cm)
{
	return (uint32_t)(mpd_xorshift64(&cm->rnd) >> 20) & 0xffffff;
}

int
hca_ibcm_init(struct hca_ibcm *cm, const struct hca_ibcm_ops *ops, void *ctx,
	      uint64_t ca_guid, uint64_t seed)
{
	memset(cm, 0, sizeof(*cm));
	cm->ops = ops;
	cm->ctx = ctx;
	cm->ca_guid = ca_guid;
	cm->rnd = seed | 1;
	cm->next_gen = (uint32_t)mpd_xorshift64(&cm->rnd);
	cm->tid = mpd_xorshift64(&cm->rnd) & 0xffffffffu;
	cm->next_timer_ns = UINT64_MAX;
	TAILQ_INIT(&cm->used);
	TAILQ_INIT(&cm->free);
	/* calloc'd: untouched slots cost no memory, so they are handed
	 * out from the lowest, and only then the ones given back (a free
	 * list written through all 16,384 made every port's 8 MB
	 * resident) */
	cm->conn = calloc(HCA_IBCM_MAX_CONNS, sizeof(*cm->conn));
	cm->listen = calloc(HCA_IBCM_MAX_LISTENS, sizeof(*cm->listen));
	if (!cm->conn || !cm->listen) {
		hca_ibcm_fini(cm);
		return ENOMEM;
	}
	return 0;
}

void
hca_ibcm_fini(struct hca_ibcm *cm)
{
	free(cm->conn);
	free(cm->listen);
	cm->conn = NULL;
	cm->listen = NULL;
}

/* ---- connections -------------------------------------------------------- */

static struct hca_ibcm_conn *
conn_alloc(struct hca_ibcm *cm)
{
	struct hca_ibcm_conn *c;
	uint32_t slot, gen;

	/* a slot never used, then the one given back longest ago */
	if (cm->carved < HCA_IBCM_MAX_CONNS) {
		c = &cm->conn[cm->carved++];
	} else {
		c = TAILQ_FIRST(&cm->free);
		if (!c)
			return NULL;
		TAILQ_REMOVE(&cm->free, c, next);
	}
	slot = (uint32_t)(c - cm->conn);
	memset(c, 0, sizeof(*c));
	/* a new generation each time: a stale message names no one */
	do
		gen = cm->next_gen++ & ((1u << (32 - GEN_SHIFT)) - 1);
	while (gen == 0);
	c->local_id = gen << GEN_SHIFT | slot;
	c->used = true;
	TAILQ_INSERT_TAIL(&cm->used, c, next);
	cm->nused++;
	return c;
}

static void
conn_free(struct hca_ibcm *cm, struct hca_ibcm_conn *c)
{
	TAILQ_REMOVE(&cm->used, c, next);
	c->used = false;
	c->state = HCA_IBCM_IDLE;
	c->deadline_ns = 0;
	TAILQ_INSERT_TAIL(&cm->free, c, next);
	cm->nused--;
}

/* The connection is established: counted once in its life. */
static void
mark_established(struct hca_ibcm *cm, struct hca_ibcm_conn *c)
{
	c->state = HCA_IBCM_ESTABLISHED;
	c->deadline_ns = 0;
	if (!c->established_once)
		cm->st.established++;
	c->established_once = true;
}

/* An ownerless connection that has nothing left to do is gone. */
static void
conn_settle(struct hca_ibcm *cm, struct hca_ibcm_conn *c)
{
	if (c->used && !c->owner && c->state == HCA_IBCM_IDLE)
		conn_free(cm, c);
}

static struct hca_ibcm_conn *
conn_by_local(struct hca_ibcm *cm, uint32_t id)
{
	struct hca_ibcm_conn *c = &cm->conn[id & (HCA_IBCM_MAX_CONNS - 1)];

	return c->used && c->local_id == id ? c : NULL;
}

static struct hca_ibcm_conn *
conn_by_remote(struct hca_ibcm *cm, uint32_t remote_id, uint64_t guid)
{
	struct hca_ibcm_conn *c;

	TAILQ_FOREACH(c, &cm->used, next)
		if (c->remote_id == remote_id && c->remote_guid == guid &&
		    !c->active && c->state != HCA_IBCM_SIDR_REQ_RCVD)
			return c;
	return NULL;
}

static void
timer_set(struct hca_ibcm *cm, struct hca_ibcm_conn *c, uint64_t now_ns,
	  uint32_t ms)
{
	c->deadline_ns = now_ns + (uint64_t)ms * NS_PER_MS;
	if (c->deadline_ns < cm->next_timer_ns)
		cm->next_timer_ns = c->deadline_ns;
}

static void
enter_timewait(struct hca_ibcm *cm, struct hca_ibcm_conn *c, uint64_t now_ns)
{
	c->state = HCA_IBCM_TIMEWAIT;
	c->retries_left = 0;
	timer_set(cm, c, now_ns, c->timewait_ms);
}

static enum hca_ibcm_verdict
emit(struct hca_ibcm *cm, struct hca_ibcm_conn *c, struct hca_ibcm_event *ev)
{
	if (!c->owner && ev->type != HCA_IBCM_EV_REQ_RECEIVED &&
	    ev->type != HCA_IBCM_EV_SIDR_REQ_RECEIVED)
		return HCA_IBCM_TAKE;
	return cm->ops->event(cm->ctx, c, ev);
}

static void
emit_simple(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
	    enum hca_ibcm_event_type t)
{
	struct hca_ibcm_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = t;
	emit(cm, c, &ev);
}

/* ---- sending ------------------------------------------------------------ */

/* A CM MAD (IBA 12.6: class 0x07 version 2, method Send) into mad. */
static void
build(uint16_t attr, uint64_t tid, const struct mpd_layout *l,
      const void *obj, uint8_t *mad)
{
	struct mpd_mad m;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_CM;
	m.hdr.class_version = MPD_CM_CLASS_VERSION;
	m.hdr.method = MPD_METHOD_SEND;
	m.hdr.tid = tid;
	m.hdr.attr_id = attr;
	mpd_mad_encode(&m, NULL, 0, mad, MPD_MAD_LEN);
	mpd_layout_encode(l, obj, mad + MPD_CM_DATA_OFF,
			  MPD_MAD_LEN - MPD_CM_DATA_OFF);
}

static void
send_to(struct hca_ibcm *cm, const struct hca_mad_desc *addr,
	const uint8_t *mad)
{
	struct hca_mad_desc d = *addr;

	d.agent_id = cm->agent_id;
	d.timeout_ms = 0;	/* the CM keeps its own timers */
	d.retries = 0;
	cm->st.sent++;
	cm->ops->send(cm->ctx, &d, mad);
}

/* Send mad on c; with retries, keep it for the timer. */
static void
send_conn(struct hca_ibcm *cm, struct hca_ibcm_conn *c, const uint8_t *mad,
	  bool timed, uint64_t now_ns)
{
	if (timed) {
		memcpy(c->msg, mad, MPD_MAD_LEN);
		c->retries_left = c->max_cm_retries;
		timer_set(cm, c, now_ns, c->timeout_ms);
	} else {
		c->deadline_ns = 0;
	}
	send_to(cm, &c->addr, mad);
}

static uint8_t
msg_rejected(enum hca_ibcm_state s)
{
	switch (s) {
	case HCA_IBCM_REQ_SENT:
	case HCA_IBCM_MRA_REQ_RCVD:
	case HCA_IBCM_REQ_RCVD:
	case HCA_IBCM_MRA_REQ_SENT:
		return MPD_CM_MSG_REQ;
	case HCA_IBCM_REP_SENT:
	case HCA_IBCM_MRA_REP_RCVD:
	case HCA_IBCM_REP_RCVD:
	case HCA_IBCM_MRA_REP_SENT:
		return MPD_CM_MSG_REP;
	default:
		return MPD_CM_MSG_OTHER;
	}
}

static void
rej_out(struct hca_ibcm *cm, const struct hca_mad_desc *to, uint64_t tid,
	uint32_t local_id, uint32_t remote_id, uint8_t msg, uint16_t reason,
	const void *ari, uint8_t ari_len, const uint8_t *pdata, uint8_t len)
{
	struct mpd_cm_rej r;
	uint8_t mad[MPD_MAD_LEN];

	memset(&r, 0, sizeof(r));
	r.local_comm_id = local_id;
	r.remote_comm_id = remote_id;
	r.msg_rejected = msg;
	r.reason = reason;
	if (ari_len) {
		r.reject_info_len = ari_len;
		memcpy(r.ari, ari, ari_len);
	}
	if (len)
		memcpy(r.private_data, pdata, len);
	build(MPD_ATTR_CM_REJ, tid, &mpd_cm_rej_layout, &r, mad);
	send_to(cm, to, mad);
}

static void
rej_conn(struct hca_ibcm *cm, struct hca_ibcm_conn *c, uint16_t reason,
	 const uint8_t *pdata, uint8_t len)
{
	uint8_t guid[8];
	const void *ari = NULL;
	uint8_t ari_len = 0;

	if (reason == HCA_IBCM_REJ_TIMEOUT) {
		/* IBA 12.6.7.2: the ARI of a time-out is our CA GUID */
		mpd_put_be64(guid, cm->ca_guid);
		ari = guid;
		ari_len = sizeof(guid);
	}
	rej_out(cm, &c->addr, c->tid, c->local_id, c->remote_id,
		msg_rejected(c->state), reason, ari, ari_len, pdata, len);
}

static void
mra_out(struct hca_ibcm *cm, struct hca_ibcm_conn *c, uint8_t msg)
{
	struct mpd_cm_mra m;
	uint8_t mad[MPD_MAD_LEN];

	memset(&m, 0, sizeof(m));
	m.local_comm_id = c->local_id;
	m.remote_comm_id = c->remote_id;
	m.msg_mraed = msg;
	m.service_timeout = HCA_IBCM_MRA_TIMEOUT;
	build(MPD_ATTR_CM_MRA, c->tid, &mpd_cm_mra_layout, &m, mad);
	send_to(cm, &c->addr, mad);
}

/* RTU and DREP carry the same fields: the two IDs and private data
 * (IBA 12.6.9, 12.6.11) */
_Static_assert(sizeof(struct mpd_cm_rtu) == sizeof(struct mpd_cm_drep) &&
	       offsetof(struct mpd_cm_rtu, private_data) ==
	       offsetof(struct mpd_cm_drep, private_data),
	       "RTU and DREP differ");

static void
ids_out(struct hca_ibcm *cm, struct hca_ibcm_conn *c, uint16_t attr,
	const struct mpd_layout *layout, const uint8_t *pdata, uint8_t len)
{
	struct mpd_cm_rtu r;
	uint8_t mad[MPD_MAD_LEN];

	memset(&r, 0, sizeof(r));
	r.local_comm_id = c->local_id;
	r.remote_comm_id = c->remote_id;
	if (len)
		memcpy(r.private_data, pdata, len);
	build(attr, c->tid, layout, &r, mad);
	send_to(cm, &c->addr, mad);
}

static void
rtu_out(struct hca_ibcm *cm, struct hca_ibcm_conn *c, const uint8_t *pdata,
	uint8_t len)
{
	ids_out(cm, c, MPD_ATTR_CM_RTU, &mpd_cm_rtu_layout, pdata, len);
}

static void
drep_out(struct hca_ibcm *cm, struct hca_ibcm_conn *c, const uint8_t *pdata,
	 uint8_t len)
{
	ids_out(cm, c, MPD_ATTR_CM_DREP, &mpd_cm_drep_layout, pdata, len);
}

static void
sidr_rep_out(struct hca_ibcm *cm, const struct hca_mad_desc *to, uint64_t tid,
	     uint32_t request_id, uint64_t service_id, uint8_t status,
	     uint32_t qpn, uint32_t qkey, const uint8_t *pdata, uint8_t len)
{
	struct mpd_cm_sidr_rep r;
	uint8_t mad[MPD_MAD_LEN];

	memset(&r, 0, sizeof(r));
	r.request_id = request_id;
	r.status = status;
	r.qpn = qpn & 0xffffff;
	r.service_id = service_id;
	r.qkey = qkey;
	if (len)
		memcpy(r.private_data, pdata, len);
	build(MPD_ATTR_CM_SIDR_REP, tid, &mpd_cm_sidr_rep_layout, &r, mad);
	send_to(cm, to, mad);
}

/* cm.c's cm_ack_timeout(): the QP's Local ACK Timeout from the packet
 * life time and the CA's ACK delay (IBA 12.7.34) */
static uint8_t
ack_timeout(uint8_t ca_ack_delay, uint8_t packet_life_time)
{
	unsigned int t = packet_life_time + 1u;

	if (t >= ca_ack_delay)
		t += ca_ack_delay >= t - 1;
	else
		t = ca_ack_delay + (t >= ca_ack_delay - 1u);
	return (uint8_t)(t > 31 ? 31 : t);
}

/* ---- the owner's requests ----------------------------------------------- */

int
hca_ibcm_listen(struct hca_ibcm *cm, uint64_t service_id, void *owner)
{
	struct hca_ibcm_listen *free_slot = NULL;
	unsigned int i;

	if (!owner)
		return EINVAL;
	for (i = 0; i < HCA_IBCM_MAX_LISTENS; i++) {
		struct hca_ibcm_listen *l = &cm->listen[i];

		if (l->owner && l->service_id == service_id)
			return EADDRINUSE;
		if (!l->owner && !free_slot)
			free_slot = l;
	}
	if (!free_slot)
		return ENOMEM;
	free_slot->service_id = service_id;
	free_slot->owner = owner;
	return 0;
}

void
hca_ibcm_unlisten(struct hca_ibcm *cm, uint64_t service_id)
{
	unsigned int i;

	for (i = 0; i < HCA_IBCM_MAX_LISTENS; i++)
		if (cm->listen[i].owner &&
		    cm->listen[i].service_id == service_id)
			cm->listen[i].owner = NULL;
}

static void *
listener(const struct hca_ibcm *cm, uint64_t service_id)
{
	unsigned int i;

	for (i = 0; i < HCA_IBCM_MAX_LISTENS; i++)
		if (cm->listen[i].owner &&
		    cm->listen[i].service_id == service_id)
			return cm->listen[i].owner;
	return NULL;
}

int
hca_ibcm_send_req(struct hca_ibcm *cm, void *owner,
		  const struct hca_mad_desc *addr,
		  const struct hca_ibcm_req_param *p, uint64_t now_ns,
		  struct hca_ibcm_conn **pc)
{
	struct hca_ibcm_conn *c;
	struct mpd_cm_req r;
	uint8_t mad[MPD_MAD_LEN];

	if (!owner || p->pdata_len > MPD_CM_REQ_PDATA_LEN ||
	    (p->transport != MPD_CM_TRANSPORT_RC &&
	     p->transport != MPD_CM_TRANSPORT_UC))
		return EINVAL;
	c = conn_alloc(cm);
	if (!c)
		return ENOMEM;
	c->owner = owner;
	c->active = true;
	c->addr = *addr;
	c->service_id = p->service_id;
	c->tid = ++cm->tid;
	c->local_qpn = p->qpn & 0xffffff;
	c->sq_psn = p->starting_psn & 0xffffff;
	c->transport = p->transport;
	c->resp_resources = p->resp_resources;
	c->initiator_depth = p->initiator_depth;
	c->retry_count = p->retry_count & 7;
	c->rnr_retry_count = p->rnr_retry_count & 7;
	c->srq = p->srq;
	c->pkey = p->pkey;
	c->path_mtu = p->path_mtu;
	c->path = p->primary;
	c->ack_timeout = (uint8_t)(p->packet_life_time + 1);
	/* cm.c: twice the packet life time and the peer's CM response
	 * time-out; timewait as long as the QP's ACK time-out */
	c->timeout_ms = 2 * hca_ibcm_ms(p->packet_life_time) +
			hca_ibcm_ms(p->remote_cm_resp_timeout);
	c->max_cm_retries = p->max_cm_retries & 0xf;
	c->timewait_ms = hca_ibcm_ms(c->ack_timeout);

	memset(&r, 0, sizeof(r));
	r.local_comm_id = c->local_id;
	r.service_id = p->service_id;
	r.local_ca_guid = cm->ca_guid;
	r.local_qpn = c->local_qpn;
	r.resp_resources = p->resp_resources;
	r.initiator_depth = p->initiator_depth;
	r.remote_cm_resp_timeout = p->remote_cm_resp_timeout & 0x1f;
	r.transport_type = p->transport;
	r.e2e_flow_ctrl = p->flow_control & 1;
	r.starting_psn = c->sq_psn;
	r.local_cm_resp_timeout = p->local_cm_resp_timeout & 0x1f;
	r.retry_count = c->retry_count;
	r.pkey = p->pkey;
	r.path_mtu = p->path_mtu & 0xf;
	r.rnr_retry_count = c->rnr_retry_count;
	r.max_cm_retries = c->max_cm_retries;
	r.srq = p->srq & 1;
	r.primary = p->primary;
	r.primary.local_ack_timeout = ack_timeout(HCA_IBCM_ACK_DELAY,
						  p->packet_life_time);
	if (p->pdata_len)
		memcpy(r.private_data, p->pdata, p->pdata_len);
	build(MPD_ATTR_CM_REQ, c->tid, &mpd_cm_req_layout, &r, mad);
	c->state = HCA_IBCM_REQ_SENT;
	send_conn(cm, c, mad, true, now_ns);
	*pc = c;
	return 0;
}

int
hca_ibcm_send_rep(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		  const struct hca_ibcm_rep_param *p, uint64_t now_ns)
{
	struct mpd_cm_rep r;
	uint8_t mad[MPD_MAD_LEN];

	if ((c->state != HCA_IBCM_REQ_RCVD &&
	     c->state != HCA_IBCM_MRA_REQ_SENT) ||
	    p->pdata_len > MPD_CM_REP_PDATA_LEN)
		return EINVAL;
	c->local_qpn = p->qpn & 0xffffff;
	c->resp_resources = p->resp_resources;
	c->initiator_depth = p->initiator_depth;
	c->rnr_retry_count = p->rnr_retry_count & 7;
	c->srq = p->srq;
	memset(&r, 0, sizeof(r));
	r.local_comm_id = c->local_id;
	r.remote_comm_id = c->remote_id;
	r.local_qpn = c->local_qpn;
	r.starting_psn = c->sq_psn;
	r.resp_resources = p->resp_resources;
	r.initiator_depth = p->initiator_depth;
	r.target_ack_delay = HCA_IBCM_ACK_DELAY;
	r.failover_accepted = 1;	/* IBA 12.6.8: no alternate path */
	r.e2e_flow_ctrl = p->flow_control & 1;
	r.rnr_retry_count = c->rnr_retry_count;
	r.srq = p->srq & 1;
	r.local_ca_guid = cm->ca_guid;
	if (p->pdata_len)
		memcpy(r.private_data, p->pdata, p->pdata_len);
	build(MPD_ATTR_CM_REP, c->tid, &mpd_cm_rep_layout, &r, mad);
	c->state = HCA_IBCM_REP_SENT;
	/* resent until the RTU, or the passive side gives up (REP_ERROR) */
	send_conn(cm, c, mad, true, now_ns);
	return 0;
}

int
hca_ibcm_send_rtu(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		  const uint8_t *pdata, uint8_t len)
{
	if ((c->state != HCA_IBCM_REP_RCVD &&
	     c->state != HCA_IBCM_MRA_REP_SENT) || len > MPD_CM_RTU_PDATA_LEN)
		return EINVAL;
	rtu_out(cm, c, pdata, len);
	mark_established(cm, c);
	return 0;
}

int
hca_ibcm_send_rej(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		  uint16_t reason, const uint8_t *pdata, uint8_t len,
		  uint64_t now_ns)
{
	if (len > MPD_CM_REJ_PDATA_LEN)
		return EINVAL;
	switch (c->state) {
	case HCA_IBCM_REQ_SENT:
	case HCA_IBCM_MRA_REQ_RCVD:
	case HCA_IBCM_REQ_RCVD:
	case HCA_IBCM_MRA_REQ_SENT:
	case HCA_IBCM_REP_RCVD:
	case HCA_IBCM_MRA_REP_SENT:
		rej_conn(cm, c, reason, pdata, len);
		c->state = HCA_IBCM_IDLE;
		c->deadline_ns = 0;
		return 0;
	case HCA_IBCM_REP_SENT:
	case HCA_IBCM_MRA_REP_RCVD:
		/* cm.c: the peer may have the REP; wait out stale packets */
		rej_conn(cm, c, reason, pdata, len);
		enter_timewait(cm, c, now_ns);
		return 0;
	default:
		return EINVAL;
	}
}

int
hca_ibcm_send_dreq(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		   const uint8_t *pdata, uint8_t len, uint64_t now_ns)
{
	struct mpd_cm_dreq r;
	uint8_t mad[MPD_MAD_LEN];

	if (c->state != HCA_IBCM_ESTABLISHED || len > MPD_CM_DREQ_PDATA_LEN)
		return EINVAL;
	memset(&r, 0, sizeof(r));
	r.local_comm_id = c->local_id;
	r.remote_comm_id = c->remote_id;
	r.remote_qpn_eecn = c->remote_qpn;
	if (len)
		memcpy(r.private_data, pdata, len);
	c->tid = ++cm->tid;
	build(MPD_ATTR_CM_DREQ, c->tid, &mpd_cm_dreq_layout, &r, mad);
	c->state = HCA_IBCM_DREQ_SENT;
	send_conn(cm, c, mad, true, now_ns);
	return 0;
}

int
hca_ibcm_send_drep(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		   const uint8_t *pdata, uint8_t len, uint64_t now_ns)
{
	if (c->state != HCA_IBCM_DREQ_RCVD || len > MPD_CM_DREP_PDATA_LEN)
		return EINVAL;
	drep_out(cm, c, pdata, len);
	enter_timewait(cm, c, now_ns);
	return 0;
}

int
hca_ibcm_establish(struct hca_ibcm *cm, struct hca_ibcm_conn *c)
{
	switch (c->state) {
	case HCA_IBCM_REP_SENT:
	case HCA_IBCM_MRA_REP_RCVD:
		/* the RTU that comes later is a duplicate: ignored */
		mark_established(cm, c);
		emit_simple(cm, c, HCA_IBCM_EV_USER_ESTABLISHED);
		return 0;
	case HCA_IBCM_ESTABLISHED:
		return EISCONN;
	default:
		return EINVAL;
	}
}

int
hca_ibcm_send_sidr_req(struct hca_ibcm *cm, void *owner,
		       const struct hca_mad_desc *addr, uint64_t service_id,
		       uint16_t pkey, const uint8_t *pdata, uint8_t len,
		       uint32_t timeout_ms, uint8_t retries, uint64_t now_ns,
		       struct hca_ibcm_conn **pc)
{
	struct hca_ibcm_conn *c;
	struct mpd_cm_sidr_req r;
	uint8_t mad[MPD_MAD_LEN];

	if (!owner || len > MPD_CM_SIDR_REQ_PDATA_LEN)
		return EINVAL;
	c = conn_alloc(cm);
	if (!c)
		return ENOMEM;
	c->owner = owner;
	c->active = true;
	c->addr = *addr;
	c->service_id = service_id;
	c->pkey = pkey;
	c->tid = ++cm->tid;
	c->timeout_ms = timeout_ms;
	c->max_cm_retries = retries;
	memset(&r, 0, sizeof(r));
	r.request_id = c->local_id;
	r.pkey = pkey;
	r.service_id = service_id;
	if (len)
		memcpy(r.private_data, pdata, len);
	build(MPD_ATTR_CM_SIDR_REQ, c->tid, &mpd_cm_sidr_req_layout, &r, mad);
	c->state = HCA_IBCM_SIDR_REQ_SENT;
	send_conn(cm, c, mad, true, now_ns);
	*pc = c;
	return 0;
}

int
hca_ibcm_send_sidr_rep(struct hca_ibcm *cm, struct hca_ibcm_conn *c,
		       uint8_t status, uint32_t qpn, uint32_t qkey,
		       const uint8_t *pdata, uint8_t len)
{
	if (c->state != HCA_IBCM_SIDR_REQ_RCVD ||
	    len > MPD_CM_SIDR_REP_PDATA_LEN)
		return EINVAL;
	sidr_rep_out(cm, &c->addr, c->tid, c->remote_id, c->service_id,
		     status, qpn, qkey, pdata, len);
	c->state = HCA_IBCM_IDLE;
	return 0;
}

void
hca_ibcm_destroy(struct hca_ibcm *cm, struct hca_ibcm_conn *c, uint64_t now_ns)
{
	c->owner = NULL;
	switch (c->state) {
	case HCA_IBCM_REQ_SENT:
	case HCA_IBCM_MRA_REQ_RCVD:
		hca_ibcm_send_rej(cm, c, HCA_IBCM_REJ_TIMEOUT, NULL, 0, now_ns);
		break;
	case HCA_IBCM_REQ_RCVD:
	case HCA_IBCM_MRA_REQ_SENT:
	case HCA_IBCM_REP_RCVD:
	case HCA_IBCM_MRA_REP_SENT:
	case HCA_IBCM_REP_SENT:
	case HCA_IBCM_MRA_REP_RCVD:
		hca_ibcm_send_rej(cm, c, HCA_IBCM_REJ_CONSUMER, NULL, 0, now_ns);
		break;
	/* cm.c's cm_destroy_id() sends the DREQ once and goes to timewait
	 * without waiting for the DREP, so a peer's long time-outs cannot
	 * keep the slot for days of DREQ retries */
	case HCA_IBCM_ESTABLISHED:
		hca_ibcm_send_dreq(cm, c, NULL, 0, now_ns);
		/* fall through */
	case HCA_IBCM_DREQ_SENT:
		enter_timewait(cm, c, now_ns);
		break;
	case HCA_IBCM_DREQ_RCVD:
		hca_ibcm_send_drep(cm, c, NULL, 0, now_ns);
		break;
	case HCA_IBCM_SIDR_REQ_RCVD:
		hca_ibcm_send_sidr_rep(cm, c, MPD_CM_SIDR_REJECT, 0, 0, NULL,
				       0);
		break;
	case HCA_IBCM_SIDR_REQ_SENT:
		c->state = HCA_IBCM_IDLE;
		break;
	default:
		break;	/* timewait: linger */
	}
	conn_settle(cm, c);
}

/* ---- receiving ---------------------------------------------------------- */

static void
req_in(struct hca_ibcm *cm, const struct hca_mad_desc *from, uint64_t tid,
       const uint8_t *data)
{
	struct hca_ibcm_event ev;
	struct mpd_cm_req *q = &ev.m.req;
	struct hca_ibcm_conn *c;
	void *l;
	enum hca_ibcm_verdict verdict;

	memset(&ev, 0, sizeof(ev));
	mpd_layout_decode(&mpd_cm_req_layout, data, MPD_CM_DATA_LEN, q);
	c = conn_by_remote(cm, q->local_comm_id, q->local_ca_guid);
	if (c) {
		/* cm.c's cm_dup_req_handler() */
		cm->st.dup_req++;
		if (c->state == HCA_IBCM_REQ_RCVD ||
		    c->state == HCA_IBCM_MRA_REQ_SENT) {
			mra_out(cm, c, MPD_CM_MSG_REQ);
			c->state = HCA_IBCM_MRA_REQ_SENT;
		} else if (c->state == HCA_IBCM_TIMEWAIT) {
			cm->st.stale++;
			rej_conn(cm, c, HCA_IBCM_REJ_STALE_CONN, NULL, 0);
		}
		return;
	}
	if (q->transport_type != MPD_CM_TRANSPORT_RC &&
	    q->transport_type != MPD_CM_TRANSPORT_UC) {
		cm->st.dropped++;
		return;
	}
	l = listener(cm, q->service_id);
	if (!l) {
		/* IBA 12.6.7.2: nobody listens on the service ID */
		cm->st.rej_no_listener++;
		rej_out(cm, from, tid, 0, q->local_comm_id, MPD_CM_MSG_REQ,
			HCA_IBCM_REJ_INVALID_SID, NULL, 0, NULL, 0);
		return;
	}
	c = conn_alloc(cm);
	if (!c) {
		cm->st.dropped++;	/* the peer's retry may find room */
		return;
	}
	c->addr = *from;
	c->tid = tid;
	c->remote_id = q->local_comm_id;
	c->remote_guid = q->local_ca_guid;
	c->service_id = q->service_id;
	c->remote_qpn = q->local_qpn;
	c->rq_psn = q->starting_psn;
	/* ours, chosen now: INIT_QP_ATTR(RTS) may come before the REP */
	c->sq_psn = hca_ibcm_psn(cm);
	c->transport = q->transport_type;
	c->resp_resources = q->initiator_depth;
	c->initiator_depth = q->resp_resources;
	c->retry_count = q->retry_count;
	c->rnr_retry_count = q->rnr_retry_count;
	c->srq = q->srq;
	c->pkey = q->pkey;
	c->path_mtu = q->path_mtu;
	/* the primary path seen from here */
	c->path = q->primary;
	c->path.local_lid = q->primary.remote_lid;
	c->path.remote_lid = q->primary.local_lid;
	memcpy(c->path.local_gid, q->primary.remote_gid, 16);
	memcpy(c->path.remote_gid, q->primary.local_gid, 16);
	c->ack_timeout = q->primary.local_ack_timeout ?
			 q->primary.local_ack_timeout : 1;
	c->timeout_ms = hca_ibcm_ms(q->local_cm_resp_timeout);
	c->max_cm_retries = q->max_cm_retries;
	c->timewait_ms = hca_ibcm_ms(c->ack_timeout);
	c->state = HCA_IBCM_REQ_RCVD;
	ev.type = HCA_IBCM_EV_REQ_RECEIVED;
	ev.from = from;
	ev.listen = l;
	verdict = emit(cm, c, &ev);
	if (verdict == HCA_IBCM_TAKE && c->owner)
		return;
	if (verdict != HCA_IBCM_DROP)
		rej_conn(cm, c, HCA_IBCM_REJ_CONSUMER, NULL, 0);
	c->owner = NULL;
	conn_free(cm, c);
}

static void
mra_in(struct hca_ibcm *cm, const uint8_t *data, uint64_t now_ns)
{
	struct mpd_cm_mra m;
	struct hca_ibcm_conn *c;
	uint32_t ms;

	mpd_layout_decode(&mpd_cm_mra_layout, data, MPD_CM_DATA_LEN, &m);
	c = conn_by_local(cm, m.remote_comm_id);
	if (!c) {
		cm->st.dropped++;
		return;
	}
	/* cm.c: the peer's service time-out and the packet life time */
	ms = hca_ibcm_ms(m.service_timeout) + hca_ibcm_ms(c->ack_timeout);
	if (m.msg_mraed == MPD_CM_MSG_REQ && c->state == HCA_IBCM_REQ_SENT) {
		c->state = HCA_IBCM_MRA_REQ_RCVD;
	} else if (m.msg_mraed == MPD_CM_MSG_REP &&
		   c->state == HCA_IBCM_REP_SENT) {
		c->state = HCA_IBCM_MRA_REP_RCVD;
	} else {
		cm->st.dropped++;
		return;
	}
	c->timeout_ms = ms;
	timer_set(cm, c, now_ns, ms);
	emit_simple(cm, c, HCA_IBCM_EV_MRA_RECEIVED);
}

static void
rej_in(struct hca_ibcm *cm, const uint8_t *data, uint64_t now_ns)
{
	struct hca_ibcm_event ev;
	struct hca_ibcm_conn *c;

	memset(&ev, 0, sizeof(ev));
	mpd_layout_decode(&mpd_cm_rej_layout, data, MPD_CM_DATA_LEN, &ev.m.rej);
	/* cm.c's cm_acquire_rejected_id(): the REJ of a REQ that timed out
	 * names us by its sender's ID and CA GUID (in the ARI) only */
	if (ev.m.rej.reason == HCA_IBCM_REJ_TIMEOUT &&
	    ev.m.rej.reject_info_len >= 8)
		c = conn_by_remote(cm, ev.m.rej.local_comm_id,
				   mpd_get_be64(ev.m.rej.ari));
	else
		c = conn_by_local(cm, ev.m.rej.remote_comm_id);
	if (!c || (c->remote_id && ev.m.rej.local_comm_id &&
		   c->remote_id != ev.m.rej.local_comm_id)) {
		cm->st.dropped++;
		return;
	}
	switch (c->state) {	/* cm.c's cm_rej_handler() */
	case HCA_IBCM_REQ_SENT:
	case HCA_IBCM_MRA_REQ_RCVD:
	case HCA_IBCM_REP_SENT:
	case HCA_IBCM_MRA_REP_RCVD:
	case HCA_IBCM_REP_RCVD:
	case HCA_IBCM_MRA_REP_SENT:
		c->deadline_ns = 0;
		if (ev.m.rej.reason == HCA_IBCM_REJ_STALE_CONN)
			enter_timewait(cm, c, now_ns);
		else
			c->state = HCA_IBCM_IDLE;
		break;
	case HCA_IBCM_DREQ_SENT:
	case HCA_IBCM_REQ_RCVD:
	case HCA_IBCM_MRA_REQ_SENT:
	case HCA_IBCM_ESTABLISHED:
		enter_timewait(cm, c, now_ns);
		break;
	default:
		cm->st.dropped++;
		return;
	}
	ev.type = HCA_IBCM_EV_REJ_RECEIVED;
	emit(cm, c, &ev);
	conn_settle(cm, c);
}

static void
rep_in(struct hca_ibcm *cm, const uint8_t *data)
{
	struct hca_ibcm_event ev;
	struct mpd_cm_rep *r = &ev.m.rep;
	struct hca_ibcm_conn *c;

	memset(&ev, 0, sizeof(ev));
	mpd_layout_decode(&mpd_cm_rep_layout, data, MPD_CM_DATA_LEN, r);
	c = conn_by_local(cm, r->remote_comm_id);
	if (!c || !c->active) {
		cm->st.dropped++;
		return;
	}
	switch (c->state) {
	case HCA_IBCM_REQ_SENT:
	case HCA_IBCM_MRA_REQ_RCVD:
		break;
	case HCA_IBCM_ESTABLISHED:
		/* cm_dup_rep_handler(): our RTU was lost */
		if (c->remote_id == r->local_comm_id)
			rtu_out(cm, c, NULL, 0);
		return;
	case HCA_IBCM_MRA_REP_SENT:
		if (c->remote_id == r->local_comm_id)
			mra_out(cm, c, MPD_CM_MSG_REP);
		return;
	default:
		cm->st.dropped++;
		return;
	}
	c->deadline_ns = 0;
	c->remote_id = r->local_comm_id;
	c->remote_guid = r->local_ca_guid;
	c->remote_qpn = r->local_qpn;
	c->rq_psn = r->starting_psn;
	c->initiator_depth = r->resp_resources;
	c->resp_resources = r->initiator_depth;
	c->rnr_retry_count = r->rnr_retry_count;
	c->srq = r->srq;
	c->ack_timeout = ack_timeout(r->target_ack_delay,
				     (uint8_t)(c->ack_timeout - 1));
	c->state = HCA_IBCM_REP_RCVD;
	ev.type = HCA_IBCM_EV_REP_RECEIVED;
	emit(cm, c, &ev);
}

static void
rtu_in(struct hca_ibcm *cm, const uint8_t *data)
{
	struct hca_ibcm_event ev;
	struct hca_ibcm_conn *c;
	bool told;

	memset(&ev, 0, sizeof(ev));
	mpd_layout_decode(&mpd_cm_rtu_layout, data, MPD_CM_DATA_LEN, &ev.m.rtu);
	c = conn_by_local(cm, ev.m.rtu.remote_comm_id);
	if (!c || c->remote_id != ev.m.rtu.local_comm_id) {
		cm->st.dropped++;
		return;
	}
	if (c->state != HCA_IBCM_REP_SENT &&
	    c->state != HCA_IBCM_MRA_REP_RCVD) {
		cm->st.dup_rtu++;	/* late, or notify() came first */
		return;
	}
	told = c->established_once;
	mark_established(cm, c);
	if (told)
		return;
	ev.type = HCA_IBCM_EV_RTU_RECEIVED;
	emit(cm, c, &ev);
}

static void
dreq_in(struct hca_ibcm *cm, const uint8_t *data, uint64_t now_ns)
{
	struct hca_ibcm_event ev;
	struct hca_ibcm_conn *c;

	memset(&ev, 0, sizeof(ev));
	mpd_layout_decode(&mpd_cm_dreq_layout, data, MPD_CM_DATA_LEN,
			  &ev.m.dreq);
	c = conn_by_local(cm, ev.m.dreq.remote_comm_id);
	if (!c || c->remote_id != ev.m.dreq.local_comm_id ||
	    c->local_qpn != ev.m.dreq.remote_qpn_eecn) {
		cm->st.dropped++;
		return;
	}
	/* the DREQ's TID is what the DREP echoes */
	switch (c->state) {	/* cm.c's cm_dreq_handler() */
	case HCA_IBCM_REP_SENT:
	case HCA_IBCM_MRA_REP_RCVD:
	case HCA_IBCM_ESTABLISHED:
		c->deadline_ns = 0;
		c->state = HCA_IBCM_DREQ_RCVD;
		break;
	case HCA_IBCM_DREQ_SENT:
		/* both ends disconnect: answer, and wait out the rest */
		c->deadline_ns = 0;
		drep_out(cm, c, NULL, 0);
		enter_timewait(cm, c, now_ns);
		break;
	case HCA_IBCM_TIMEWAIT:
		drep_out(cm, c, NULL, 0);	/* our DREP was lost */
		return;
	default:
		cm->st.dropped++;
		return;
	}
	ev.type = HCA_IBCM_EV_DREQ_RECEIVED;
	emit(cm, c, &ev);
}

static void
drep_in(struct hca_ibcm *cm, const uint8_t *data, uint64_t now_ns)
{
	struct hca_ibcm_event ev;
	struct hca_ibcm_conn *c;

	memset(&ev, 0, sizeof(ev));
	mpd_layout_decode(&mpd_cm_drep_layout, data, MPD_CM_DATA_LEN,
			  &ev.m.drep);
	c = conn_by_local(cm, ev.m.drep.remote_comm_id);
	if (!c || c->state != HCA_IBCM_DREQ_SENT ||
	    c->remote_id != ev.m.drep.local_comm_id) {
		cm->st.dropped++;
		return;
	}
	enter_timewait(cm, c, now_ns);
	ev.type = HCA_IBCM_EV_DREP_RECEIVED;
	emit(cm, c, &ev);
}

static bool
same_sender(const struct hca_mad_desc *a, const struct hca_mad_desc *b)
{
	return a->lid == b->lid && a->grh_present == b->grh_present &&
	       (!a->grh_present || !memcmp(a->gid, b->gid, 16));
}

static void
sidr_req_in(struct hca_ibcm *cm, const struct hca_mad_desc *from,
	    uint64_t tid, const uint8_t *data)
{
	struct hca_ibcm_event ev;
	struct mpd_cm_sidr_req *q = &ev.m.sidr_req;
	struct hca_ibcm_conn *c;
	void *l;
	enum hca_ibcm_verdict verdict;

	memset(&ev, 0, sizeof(ev));
	mpd_layout_decode(&mpd_cm_sidr_req_layout, data, MPD_CM_DATA_LEN, q);
	TAILQ_FOREACH(c, &cm->used, next)
		if (c->state == HCA_IBCM_SIDR_REQ_RCVD &&
		    c->remote_id == q->request_id &&
		    same_sender(&c->addr, from)) {
			cm->st.dup_req++;	/* still being answered */
			return;
		}
	l = listener(cm, q->service_id);
	if (!l) {
		cm->st.rej_no_listener++;
		sidr_rep_out(cm, from, tid, q->request_id, q->service_id,
			     MPD_CM_SIDR_NO_SERVICE, 0, 0, NULL, 0);
		return;
	}
	c = conn_alloc(cm);
	if (!c) {
		cm->st.dropped++;
		return;
	}
	c->addr = *from;
	c->tid = tid;
	c->remote_id = q->request_id;
	c->service_id = q->service_id;
	c->pkey = q->pkey;
	c->state = HCA_IBCM_SIDR_REQ_RCVD;
	ev.type = HCA_IBCM_EV_SIDR_REQ_RECEIVED;
	ev.from = from;
	ev.listen = l;
	verdict = emit(cm, c, &ev);
	if (verdict == HCA_IBCM_TAKE && c->owner)
		return;
	if (verdict != HCA_IBCM_DROP)
		hca_ibcm_send_sidr_rep(cm, c, MPD_CM_SIDR_REJECT, 0, 0, NULL,
				       0);
	c->owner = NULL;
	conn_free(cm, c);
}

static void
sidr_rep_in(struct hca_ibcm *cm, const uint8_t *data)
{
	struct hca_ibcm_event ev;
	struct hca_ibcm_conn *c;

	memset(&ev, 0, sizeof(ev));
	mpd_layout_decode(&mpd_cm_sidr_rep_layout, data, MPD_CM_DATA_LEN,
			  &ev.m.sidr_rep);
	c = conn_by_local(cm, ev.m.sidr_rep.request_id);
	if (!c || c->state != HCA_IBCM_SIDR_REQ_SENT) {
		cm->st.dropped++;
		return;
	}
	c->state = HCA_IBCM_IDLE;
	c->deadline_ns = 0;
	ev.type = HCA_IBCM_EV_SIDR_REP_RECEIVED;
	emit(cm, c, &ev);
	conn_settle(cm, c);
}

/* LAP: the QP layer has no alternate path (no APM): APR says so. */
static void
lap_in(struct hca_ibcm *cm, const struct hca_mad_desc *from, uint64_t tid,
       const uint8_t *data)
{
	struct mpd_cm_lap l;
	struct mpd_cm_apr a;
	struct hca_ibcm_conn *c;
	uint8_t mad[MPD_MAD_LEN];

	mpd_layout_decode(&mpd_cm_lap_layout, data, MPD_CM_DATA_LEN, &l);
	c = conn_by_local(cm, l.remote_comm_id);
	memset(&a, 0, sizeof(a));
	a.remote_comm_id = l.local_comm_id;
	if (c && c->state == HCA_IBCM_ESTABLISHED &&
	    c->remote_id == l.local_comm_id) {
		a.local_comm_id = c->local_id;
		a.ap_status = HCA_IBCM_APR_UNSUPPORTED;
	} else {
		a.ap_status = HCA_IBCM_APR_INVALID_COMM_ID;
	}
	build(MPD_ATTR_CM_APR, tid, &mpd_cm_apr_layout, &a, mad);
	send_to(cm, c ? &c->addr : from, mad);
}

void
hca_ibcm_input(struct hca_ibcm *cm, const struct hca_mad_desc *from,
	       const uint8_t *mad, uint64_t now_ns)
{
	const uint8_t *data = mad + MPD_CM_DATA_OFF;
	struct hca_mad_desc addr = *from;
	uint64_t tid = mpd_mad_tid(mad);

	if (mpd_mad_class(mad) != MPD_CLASS_CM ||
	    mad[MPD_MAD_OFF_CLASS_VER] != MPD_CM_CLASS_VERSION ||
	    mpd_mad_method(mad) != MPD_METHOD_SEND) {
		cm->st.dropped++;
		return;
	}
	cm->st.received++;
	/* the peer's CM is on QP1, with the GSI Q_Key (IBA 13.5.1) */
	addr.qpn = htobe32(1);
	addr.qkey = htobe32(MPD_QP1_QKEY);
	addr.status = 0;
	switch (mpd_mad_attr_id(mad)) {
	case MPD_ATTR_CM_REQ:
		req_in(cm, &addr, tid, data);
		break;
	case MPD_ATTR_CM_MRA:
		mra_in(cm, data, now_ns);
		break;
	case MPD_ATTR_CM_REJ:
		rej_in(cm, data, now_ns);
		break;
	case MPD_ATTR_CM_REP:
		rep_in(cm, data);
		break;
	case MPD_ATTR_CM_RTU:
		rtu_in(cm, data);
		break;
	case MPD_ATTR_CM_DREQ:
		dreq_in(cm, data, now_ns);
		break;
	case MPD_ATTR_CM_DREP:
		drep_in(cm, data, now_ns);
		break;
	case MPD_ATTR_CM_SIDR_REQ:
		sidr_req_in(cm, &addr, tid, data);
		break;
	case MPD_ATTR_CM_SIDR_REP:
		sidr_rep_in(cm, data);
		break;
	case MPD_ATTR_CM_LAP:
		lap_in(cm, &addr, tid, data);
		break;
	default:
		cm->st.dropped++;	/* APR: we never send a LAP */
		break;
	}
}

/* ---- time --------------------------------------------------------------- */

/* A message that ran out of retries (cm.c's cm_process_send_error()). */
static void
expire(struct hca_ibcm *cm, struct hca_ibcm_conn *c, uint64_t now_ns)
{
	enum hca_ibcm_event_type t;

	c->deadline_ns = 0;
	switch (c->state) {
	case HCA_IBCM_REQ_SENT:
	case HCA_IBCM_MRA_REQ_RCVD:
		c->state = HCA_IBCM_IDLE;
		t = HCA_IBCM_EV_REQ_ERROR;
		break;
	case HCA_IBCM_REP_SENT:
	case HCA_IBCM_MRA_REP_RCVD:
		c->state = HCA_IBCM_IDLE;
		t = HCA_IBCM_EV_REP_ERROR;
		break;
	case HCA_IBCM_DREQ_SENT:
		enter_timewait(cm, c, now_ns);
		t = HCA_IBCM_EV_DREQ_ERROR;
		break;
	case HCA_IBCM_SIDR_REQ_SENT:
		c->state = HCA_IBCM_IDLE;
		t = HCA_IBCM_EV_SIDR_REQ_ERROR;
		break;
	case HCA_IBCM_TIMEWAIT:
		c->state = HCA_IBCM_IDLE;
		t = HCA_IBCM_EV_TIMEWAIT_EXIT;
		break;
	default:
		return;
	}
	cm->st.timeouts += t != HCA_IBCM_EV_TIMEWAIT_EXIT;
	emit_simple(cm, c, t);
	conn_settle(cm, c);
}

void
hca_ibcm_timers(struct hca_ibcm *cm, uint64_t now_ns)
{
	struct hca_ibcm_conn *c, *tmp;
	uint64_t next = UINT64_MAX;

	if (now_ns < cm->next_timer_ns)
		return;
	for (c = TAILQ_FIRST(&cm->used); c; c = tmp) {
		tmp = TAILQ_NEXT(c, next);
		if (c->deadline_ns && c->deadline_ns <= now_ns) {
			if (c->state != HCA_IBCM_TIMEWAIT && c->retries_left) {
				c->retries_left--;
				cm->st.resent++;
				c->deadline_ns = now_ns +
					(uint64_t)c->timeout_ms * NS_PER_MS;
				send_to(cm, &c->addr, c->msg);
			} else {
				expire(cm, c, now_ns);
			}
		}
		/* the owner's handlers may have freed what follows: tmp
		 * is re-read from c, which stays on one of the lists */
		if (c->used && c->deadline_ns && c->deadline_ns < next)
			next = c->deadline_ns;
		tmp = c->used ? TAILQ_NEXT(c, next) : tmp;
	}
	cm->next_timer_ns = next;
}

uint64_t
hca_ibcm_next_timer(const struct hca_ibcm *cm)
{
	return cm->next_timer_ns;
}
