/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IB CM state machine (pmd/cm/ibcm.c) without DPDK: two CMs wired
 * back to back in memory, time simulated. Connect, accept and RTU with
 * crossed PSNs and QPNs; REJ when nobody listens (reason 8) and a
 * consumer's REJ; a lost REQ resent max_cm_retries times then REQ_ERROR;
 * a duplicate REQ answered with an MRA that extends the active timer; a
 * lost RTU: the REP resent, notify(COMM_EST) establishing once, the late
 * RTU ignored, EISCONN and EINVAL; DREQ/DREP and timewait; a lost DREP
 * answered again for the duplicate DREQ; SIDR REQ/REP and SIDR to nobody;
 * LAP answered by APR "unsupported"; and 10000 cycles leaving nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/mad.h"
#include "cm/ibcm.h"
#include "tap.h"

#define SID	0x0000000001060000ull
#define MS	1000000ull
#define QMAX	256

struct wire_msg {
	int to;
	struct hca_mad_desc d;
	uint8_t mad[MPD_MAD_LEN];
};

static struct hca_ibcm cm[2];
static struct wire_msg q[QMAX];
static unsigned int qn;
static uint64_t now;
static int drop_attr = -1;	/* attribute ID the wire loses */
static int drop_count;		/* ... this many more times */
static unsigned int sent_attr[2][0x20];

struct side_log {
	int n;
	enum hca_ibcm_event_type type[64];
	struct hca_ibcm_event last;
	struct hca_ibcm_conn *conn;	/* the connection of its last event */
	enum hca_ibcm_verdict req_answer;	/* REQ_RECEIVED's */
};
static struct side_log logv[2];
static int owner_tag[2];

static void
wire_send(void *ctx, const struct hca_mad_desc *d, const uint8_t *mad)
{
	int from = (int)(intptr_t)ctx;
	uint16_t attr = mpd_mad_attr_id(mad);

	if (attr < 0x20)
		sent_attr[from][attr]++;
	if (attr == drop_attr && drop_count) {
		drop_count--;
		return;
	}
	if (qn == QMAX)
		return;
	q[qn].to = 1 - from;
	q[qn].d = *d;
	q[qn].d.lid = (uint16_t)(from + 1);
	memcpy(q[qn].mad, mad, MPD_MAD_LEN);
	qn++;
}

static enum hca_ibcm_verdict
on_event(void *ctx, struct hca_ibcm_conn *c, const struct hca_ibcm_event *ev)
{
	int side = (int)(intptr_t)ctx;
	struct side_log *l = &logv[side];

	if (l->n < 64)
		l->type[l->n] = ev->type;
	l->n++;
	l->last = *ev;
	l->conn = c;
	if ((ev->type == HCA_IBCM_EV_REQ_RECEIVED ||
	     ev->type == HCA_IBCM_EV_SIDR_REQ_RECEIVED) && !l->req_answer)
		c->owner = &owner_tag[side];
	return ev->type == HCA_IBCM_EV_REQ_RECEIVED ||
	       ev->type == HCA_IBCM_EV_SIDR_REQ_RECEIVED ? l->req_answer :
	       HCA_IBCM_TAKE;
}

static const struct hca_ibcm_ops ops = {
	.send = wire_send,
	.event = on_event,
};

static void
pump(void)
{
	while (qn) {
		struct wire_msg m = q[0];

		memmove(q, q + 1, (qn - 1) * sizeof(q[0]));
		qn--;
		hca_ibcm_input(&cm[m.to], &m.d, m.mad, now);
	}
}

static void
advance(uint64_t ms)
{
	pump();
	now += ms * MS;
	hca_ibcm_timers(&cm[0], now);
	hca_ibcm_timers(&cm[1], now);
	pump();
}

static void
dump(void)
{
	struct hca_ibcm_conn *c;
	int i;

	for (i = 0; i < 2; i++)
		TAILQ_FOREACH(c, &cm[i].used, next)
			tap_diag("cm %d: 0x%x %s owner %p deadline %llu", i,
				 c->local_id, hca_ibcm_state_name(c->state),
				 c->owner, (unsigned long long)c->deadline_ns);
}

static void
reset_logs(void)
{
	memset(logv, 0, sizeof(logv));
	memset(sent_attr, 0, sizeof(sent_attr));
	drop_attr = -1;
	drop_count = 0;
}

static bool
saw(int side, enum hca_ibcm_event_type t)
{
	int i;

	for (i = 0; i < logv[side].n && i < 64; i++)
		if (logv[side].type[i] == t)
			return true;
	return false;
}

static int
count(int side, enum hca_ibcm_event_type t)
{
	int i, n = 0;

	for (i = 0; i < logv[side].n && i < 64; i++)
		n += logv[side].type[i] == t;
	return n;
}

static struct hca_ibcm_req_param
req_param(uint64_t sid)
{
	static const uint8_t pdata[4] = { 1, 2, 3, 4 };
	struct hca_ibcm_req_param p;

	memset(&p, 0, sizeof(p));
	p.service_id = sid;
	p.qpn = 0x111;
	p.starting_psn = 0xabcdef;
	p.transport = MPD_CM_TRANSPORT_RC;
	p.resp_resources = 4;
	p.initiator_depth = 2;
	p.retry_count = 7;
	p.rnr_retry_count = 6;
	p.max_cm_retries = 3;
	p.local_cm_resp_timeout = 20;
	p.remote_cm_resp_timeout = 20;
	p.pkey = 0xffff;
	p.path_mtu = 4;
	p.packet_life_time = 12;
	p.primary.local_lid = 1;
	p.primary.remote_lid = 2;
	p.primary.subnet_local = 1;
	p.pdata = pdata;
	p.pdata_len = sizeof(pdata);
	return p;
}

static const struct hca_mad_desc to_b = { .lid = 2 };

/* A connects to B's listen; B's connection in *pb; REQ delivered only */
static struct hca_ibcm_conn *
start(struct hca_ibcm_conn **pb)
{
	struct hca_ibcm_req_param p = req_param(SID | 5000);
	struct hca_ibcm_conn *a = NULL;

	ok(hca_ibcm_send_req(&cm[0], &owner_tag[0], &to_b, &p, now, &a) == 0,
	   "REQ sent");
	pump();
	*pb = logv[1].conn;
	return a;
}

static void
rep(struct hca_ibcm_conn *b)
{
	struct hca_ibcm_rep_param r = {
		.qpn = 0x222, .resp_resources = 2, .initiator_depth = 4,
		.rnr_retry_count = 5,
	};

	ok(hca_ibcm_send_rep(&cm[1], b, &r, now) == 0, "REP sent");
}

static void
test_connect(void)
{
	struct hca_ibcm_conn *a, *b;

	reset_logs();
	a = start(&b);
	ok(saw(1, HCA_IBCM_EV_REQ_RECEIVED) && b, "passive side: REQ_RECEIVED");
	is_int(b->state, HCA_IBCM_REQ_RCVD, "passive in REQ rcvd");
	is_int(b->remote_qpn, 0x111, "passive knows the active QPN");
	is_int(b->rq_psn, 0xabcdef, "passive's receive PSN is the REQ's");
	is_int(b->resp_resources, 2, "responder resources = peer's depth");
	is_int(b->initiator_depth, 4, "initiator depth = peer's resources");
	ok(!memcmp(logv[1].last.m.req.private_data, "\1\2\3\4", 4),
	   "REQ private data delivered");
	is_int(b->path.remote_lid, 1, "passive path points back at A");
	rep(b);
	pump();
	ok(saw(0, HCA_IBCM_EV_REP_RECEIVED), "active side: REP_RECEIVED");
	is_int(a->state, HCA_IBCM_REP_RCVD, "active in REP rcvd");
	is_int(a->remote_qpn, 0x222, "active knows the passive QPN");
	is_int(a->rq_psn, b->sq_psn, "active's receive PSN is the passive's send PSN");
	ok(hca_ibcm_send_rtu(&cm[0], a, NULL, 0) == 0, "RTU sent");
	pump();
	is_int(a->state, HCA_IBCM_ESTABLISHED, "active established");
	is_int(b->state, HCA_IBCM_ESTABLISHED, "passive established");
	is_int(count(1, HCA_IBCM_EV_RTU_RECEIVED), 1, "one RTU_RECEIVED");
	is_int(hca_ibcm_establish(&cm[1], b), EISCONN,
	       "notify on an established connection: EISCONN");

	/* disconnect: DREQ, DREP lost once, DREQ resent, DREP again */
	reset_logs();
	drop_attr = MPD_ATTR_CM_DREP;
	drop_count = 1;
	ok(hca_ibcm_send_dreq(&cm[0], a, NULL, 0, now) == 0, "DREQ sent");
	pump();
	ok(saw(1, HCA_IBCM_EV_DREQ_RECEIVED), "passive: DREQ_RECEIVED");
	ok(hca_ibcm_send_drep(&cm[1], b, NULL, 0, now) == 0, "DREP sent (lost)");
	pump();
	is_int(b->state, HCA_IBCM_TIMEWAIT, "passive in timewait");
	is_int(a->state, HCA_IBCM_DREQ_SENT, "active still waits for its DREP");
	/* the DREQ again (its retry), while the passive side is still in
	 * timewait (the active side's time-out is longer than timewait) */
	{
		struct hca_mad_desc d = { .lid = 1 };

		hca_ibcm_input(&cm[1], &d, a->msg, now);
	}
	is_int(sent_attr[1][MPD_ATTR_CM_DREP], 2,
	       "timewait answers the duplicate DREQ with a DREP");
	pump();
	ok(saw(0, HCA_IBCM_EV_DREP_RECEIVED), "active: DREP_RECEIVED");
	is_int(a->state, HCA_IBCM_TIMEWAIT, "active in timewait");
	advance(a->timewait_ms + b->timewait_ms);
	ok(saw(0, HCA_IBCM_EV_TIMEWAIT_EXIT) && saw(1, HCA_IBCM_EV_TIMEWAIT_EXIT),
	   "both sides leave timewait");
	hca_ibcm_destroy(&cm[0], a, now);
	hca_ibcm_destroy(&cm[1], b, now);
	is_int(cm[0].nused + cm[1].nused, 0, "connections freed");
	dump();
}

/* Destroyed while connected: one DREQ, then timewait at once (cm.c's
 * cm_destroy_id()), however long the peer's time-outs; the peer's DREP
 * is still taken */
static void
test_destroy_connected(void)
{
	struct hca_ibcm_conn *a, *b;

	reset_logs();
	a = start(&b);
	rep(b);
	pump();
	hca_ibcm_send_rtu(&cm[0], a, NULL, 0);
	pump();
	is_int(a->state, HCA_IBCM_ESTABLISHED, "connected");
	drop_attr = MPD_ATTR_CM_DREQ;
	drop_count = 100;
	hca_ibcm_destroy(&cm[0], a, now);
	is_int(sent_attr[0][MPD_ATTR_CM_DREQ], 1, "destroy: one DREQ sent");
	is_int(a->state, HCA_IBCM_TIMEWAIT, "and timewait at once, no DREP awaited");
	advance(10 * a->timewait_ms);
	is_int(sent_attr[0][MPD_ATTR_CM_DREQ], 1, "the DREQ is never sent again");
	is_int(cm[0].nused, 0, "the connection is freed after timewait");
	drop_attr = -1;
	hca_ibcm_destroy(&cm[1], b, now);
	advance(10 * b->timewait_ms + 60000);
	is_int(cm[1].nused, 0, "the other side, destroyed too, is freed");
	dump();
}

static void
test_rejects(void)
{
	struct hca_ibcm_req_param p = req_param(SID | 6000);
	struct hca_ibcm_conn *a = NULL, *b;

	reset_logs();
	ok(hca_ibcm_send_req(&cm[0], &owner_tag[0], &to_b, &p, now, &a) == 0,
	   "REQ to a service nobody listens on");
	pump();
	ok(saw(0, HCA_IBCM_EV_REJ_RECEIVED), "active: REJ_RECEIVED");
	is_int(logv[0].last.m.rej.reason, HCA_IBCM_REJ_INVALID_SID,
	       "reason 8, invalid service ID");
	is_int(a->state, HCA_IBCM_IDLE, "active idle");
	is_int(cm[1].st.rej_no_listener, 1, "passive counted it");
	is_int(cm[1].nused, 0, "no connection made for it");
	hca_ibcm_destroy(&cm[0], a, now);

	/* the consumer refuses in its handler */
	reset_logs();
	logv[1].req_answer = HCA_IBCM_REJECT;
	a = start(&b);
	is_int(logv[0].last.m.rej.reason, HCA_IBCM_REJ_CONSUMER,
	       "a handler's refusal: REJ consumer defined (28)");
	hca_ibcm_destroy(&cm[0], a, now);

	/* the consumer rejects later, with private data */
	reset_logs();
	a = start(&b);
	ok(hca_ibcm_send_rej(&cm[1], b, HCA_IBCM_REJ_CONSUMER,
			     (const uint8_t *)"no", 2, now) == 0,
	   "consumer REJ sent");
	pump();
	is_int(logv[0].last.type, HCA_IBCM_EV_REJ_RECEIVED, "active: REJECTED");
	ok(!memcmp(logv[0].last.m.rej.private_data, "no", 2),
	   "REJ private data delivered");
	hca_ibcm_destroy(&cm[0], a, now);
	hca_ibcm_destroy(&cm[1], b, now);

	/* a backlog that is full drops the REQ: the peer's retry comes */
	reset_logs();
	logv[1].req_answer = HCA_IBCM_DROP;
	a = start(&b);
	is_int(sent_attr[1][MPD_ATTR_CM_REJ], 0, "DROP: no REJ");
	is_int(cm[1].nused, 0, "... and no connection kept");
	logv[1].req_answer = HCA_IBCM_TAKE;
	advance(a->timeout_ms);
	ok(saw(1, HCA_IBCM_EV_REQ_RECEIVED), "the retried REQ is taken");
	hca_ibcm_destroy(&cm[0], a, now);
	pump();
	ok(saw(1, HCA_IBCM_EV_REJ_RECEIVED), "destroying a REQ sent: REJ");
	hca_ibcm_destroy(&cm[1], logv[1].conn, now);
	advance(100000);
	is_int(cm[0].nused + cm[1].nused, 0,
	       "connections freed (the REJected one after timewait)");
	dump();
}

static void
test_lost_req(void)
{
	struct hca_ibcm_req_param p = req_param(SID | 5000);
	struct hca_ibcm_conn *a = NULL;
	unsigned int i;

	reset_logs();
	drop_attr = MPD_ATTR_CM_REQ;
	drop_count = 100;
	ok(hca_ibcm_send_req(&cm[0], &owner_tag[0], &to_b, &p, now, &a) == 0,
	   "REQ sent into the void");
	/* cm.c: 2 * 2^(12-8) + 2^(20-8) ms */
	is_int(a->timeout_ms, 2 * 16 + 4096, "REQ time-out from life time and response time-out");
	for (i = 0; i < 3; i++) {
		advance(a->timeout_ms - 1);
		is_int(sent_attr[0][MPD_ATTR_CM_REQ], 1 + i,
		       "no resend before the time-out (%u)", i);
		advance(1);
	}
	is_int(sent_attr[0][MPD_ATTR_CM_REQ], 4, "sent 1 + max_cm_retries (3) times");
	ok(!saw(0, HCA_IBCM_EV_REQ_ERROR), "no error before the last time-out");
	advance(a->timeout_ms);
	ok(saw(0, HCA_IBCM_EV_REQ_ERROR), "then REQ_ERROR (UNREACHABLE)");
	is_int(a->state, HCA_IBCM_IDLE, "active idle");
	hca_ibcm_destroy(&cm[0], a, now);
	is_int(cm[0].nused, 0, "connection freed");
}

static void
test_dup_req(void)
{
	struct hca_ibcm_conn *a, *b;
	struct wire_msg m;
	uint32_t before;

	reset_logs();
	drop_attr = MPD_ATTR_CM_REQ;
	drop_count = 0;
	a = start(&b);
	/* the same REQ again (the active side's retry) */
	memset(&m, 0, sizeof(m));
	m.d.lid = 1;
	memcpy(m.mad, a->msg, MPD_MAD_LEN);
	before = a->timeout_ms;
	hca_ibcm_input(&cm[1], &m.d, m.mad, now);
	is_int(count(1, HCA_IBCM_EV_REQ_RECEIVED), 1, "a duplicate REQ is no new request");
	is_int(sent_attr[1][MPD_ATTR_CM_MRA], 1, "it is answered with an MRA");
	is_int(b->state, HCA_IBCM_MRA_REQ_SENT, "passive in MRA(REQ) sent");
	pump();
	is_int(a->state, HCA_IBCM_MRA_REQ_RCVD, "active in MRA(REQ) rcvd");
	ok(a->timeout_ms > before, "the MRA extends the active side's timer (%u ms)",
	   a->timeout_ms);
	advance(before + 1);
	is_int(sent_attr[0][MPD_ATTR_CM_REQ], 1, "no REQ resent within the old time-out");
	rep(b);
	pump();
	is_int(a->state, HCA_IBCM_REP_RCVD, "the REP still comes through");
	hca_ibcm_destroy(&cm[0], a, now);
	pump();
	hca_ibcm_destroy(&cm[1], b, now);
	advance(100000);
	is_int(cm[0].nused + cm[1].nused, 0, "connections freed");
	dump();
}

static void
test_lost_rtu_notify(void)
{
	struct hca_ibcm_conn *a, *b, *c2;

	reset_logs();
	a = start(&b);
	is_int(hca_ibcm_establish(&cm[1], b), EINVAL,
	       "notify before the REP is sent: EINVAL");
	rep(b);
	pump();
	drop_attr = MPD_ATTR_CM_RTU;
	drop_count = 1;
	ok(hca_ibcm_send_rtu(&cm[0], a, NULL, 0) == 0, "RTU sent (lost)");
	pump();
	is_int(b->state, HCA_IBCM_REP_SENT, "passive still in REP sent");
	advance(b->timeout_ms);
	is_int(sent_attr[1][MPD_ATTR_CM_REP], 2, "the REP is resent");
	is_int(sent_attr[0][MPD_ATTR_CM_RTU], 2, "a duplicate REP is answered with an RTU");
	is_int(b->state, HCA_IBCM_ESTABLISHED, "passive established by the RTU");
	is_int(count(1, HCA_IBCM_EV_RTU_RECEIVED), 1, "one RTU_RECEIVED");
	hca_ibcm_destroy(&cm[0], a, now);
	pump();
	hca_ibcm_send_drep(&cm[1], b, NULL, 0, now);
	hca_ibcm_destroy(&cm[1], b, now);
	advance(100000);

	/* notify(COMM_EST) first, the RTU late */
	reset_logs();
	a = start(&b);
	rep(b);
	pump();
	drop_attr = MPD_ATTR_CM_RTU;
	drop_count = 1;
	hca_ibcm_send_rtu(&cm[0], a, NULL, 0);
	pump();
	is_int(hca_ibcm_establish(&cm[1], b), 0, "notify(COMM_EST) in REP sent");
	is_int(b->state, HCA_IBCM_ESTABLISHED, "passive established");
	is_int(count(1, HCA_IBCM_EV_USER_ESTABLISHED), 1, "one USER_ESTABLISHED");
	is_int(hca_ibcm_establish(&cm[1], b), EISCONN, "again: EISCONN");
	/* the RTU that was late */
	{
		struct mpd_cm_rtu r = { .local_comm_id = a->local_id,
					.remote_comm_id = b->local_id };
		uint8_t mad[MPD_MAD_LEN] = { MPD_BASE_VERSION, MPD_CLASS_CM,
					     MPD_CM_CLASS_VERSION,
					     MPD_METHOD_SEND };
		struct hca_mad_desc d = { .lid = 1 };

		mpd_put_be16(mad + MPD_MAD_OFF_ATTR_ID, MPD_ATTR_CM_RTU);
		mpd_layout_encode(&mpd_cm_rtu_layout, &r, mad + MPD_CM_DATA_OFF,
				  MPD_CM_DATA_LEN);
		hca_ibcm_input(&cm[1], &d, mad, now);
	}
	is_int(count(1, HCA_IBCM_EV_RTU_RECEIVED) +
	       count(1, HCA_IBCM_EV_USER_ESTABLISHED), 1,
	       "the late RTU is ignored: established once");
	ok(cm[1].st.dup_rtu >= 1, "counted as a duplicate");
	advance(b->timeout_ms * 2);
	is_int(sent_attr[1][MPD_ATTR_CM_REP], 1, "no REP resent after notify");

	/* a connection with no REP yet: notify is EINVAL */
	{
		struct hca_ibcm_req_param p = req_param(SID | 5000);

		hca_ibcm_send_req(&cm[0], &owner_tag[0], &to_b, &p, now, &c2);
		pump();
		is_int(hca_ibcm_establish(&cm[1], logv[1].conn), EINVAL,
		       "notify in REQ rcvd: EINVAL");
		is_int(hca_ibcm_establish(&cm[0], c2), EINVAL,
		       "notify on the active side before REP: EINVAL");
		hca_ibcm_destroy(&cm[1], logv[1].conn, now);
		pump();
		hca_ibcm_destroy(&cm[0], c2, now);
	}
	hca_ibcm_destroy(&cm[0], a, now);
	pump();
	hca_ibcm_destroy(&cm[1], b, now);
	advance(100000);
	is_int(cm[0].nused + cm[1].nused, 0, "connections freed");
	dump();
}

static void
test_sidr(void)
{
	struct hca_ibcm_conn *a = NULL, *b;
	const uint64_t usid = 0x0000000001110000ull | 7000;

	reset_logs();
	ok(hca_ibcm_listen(&cm[1], usid, &owner_tag[1]) == 0, "UDP listen");
	ok(hca_ibcm_send_sidr_req(&cm[0], &owner_tag[0], &to_b, usid, 0xffff,
				  (const uint8_t *)"hi", 2, 4096, 3, now,
				  &a) == 0, "SIDR_REQ sent");
	pump();
	ok(saw(1, HCA_IBCM_EV_SIDR_REQ_RECEIVED), "passive: SIDR_REQ_RECEIVED");
	b = logv[1].conn;
	ok(!memcmp(logv[1].last.m.sidr_req.private_data, "hi", 2),
	   "SIDR_REQ private data");
	ok(hca_ibcm_send_sidr_rep(&cm[1], b, MPD_CM_SIDR_OK, 0x333,
				  0x01234567, NULL, 0) == 0, "SIDR_REP sent");
	hca_ibcm_destroy(&cm[1], b, now);
	pump();
	ok(saw(0, HCA_IBCM_EV_SIDR_REP_RECEIVED), "active: SIDR_REP_RECEIVED");
	is_int(logv[0].last.m.sidr_rep.status, MPD_CM_SIDR_OK, "status OK");
	is_int(logv[0].last.m.sidr_rep.qpn, 0x333, "the QPN");
	is_int(logv[0].last.m.sidr_rep.qkey, 0x01234567, "the Q_Key");
	hca_ibcm_destroy(&cm[0], a, now);

	reset_logs();
	hca_ibcm_send_sidr_req(&cm[0], &owner_tag[0], &to_b, usid + 1, 0xffff,
			       NULL, 0, 4096, 3, now, &a);
	pump();
	is_int(logv[0].last.m.sidr_rep.status, MPD_CM_SIDR_NO_SERVICE,
	       "SIDR to nobody: status 1 (no service)");
	hca_ibcm_destroy(&cm[0], a, now);

	reset_logs();
	drop_attr = MPD_ATTR_CM_SIDR_REQ;
	drop_count = 100;
	hca_ibcm_send_sidr_req(&cm[0], &owner_tag[0], &to_b, usid, 0xffff,
			       NULL, 0, 100, 2, now, &a);
	advance(100);
	advance(100);
	advance(100);
	is_int(sent_attr[0][MPD_ATTR_CM_SIDR_REQ], 3, "SIDR_REQ sent 1 + 2 times");
	ok(saw(0, HCA_IBCM_EV_SIDR_REQ_ERROR), "then SIDR_REQ_ERROR");
	hca_ibcm_destroy(&cm[0], a, now);
	hca_ibcm_unlisten(&cm[1], usid);
	is_int(cm[0].nused + cm[1].nused, 0, "exchanges freed");
}

static void
test_lap(void)
{
	struct hca_ibcm_conn *a, *b;
	struct mpd_cm_lap l;
	struct mpd_cm_apr apr;
	uint8_t mad[MPD_MAD_LEN] = { MPD_BASE_VERSION, MPD_CLASS_CM,
				     MPD_CM_CLASS_VERSION, MPD_METHOD_SEND };
	struct hca_mad_desc d = { .lid = 1 };

	reset_logs();
	a = start(&b);
	rep(b);
	pump();
	hca_ibcm_send_rtu(&cm[0], a, NULL, 0);
	pump();
	memset(&l, 0, sizeof(l));
	l.local_comm_id = a->local_id;
	l.remote_comm_id = b->local_id;
	mpd_put_be16(mad + MPD_MAD_OFF_ATTR_ID, MPD_ATTR_CM_LAP);
	mpd_layout_encode(&mpd_cm_lap_layout, &l, mad + MPD_CM_DATA_OFF,
			  MPD_CM_DATA_LEN);
	hca_ibcm_input(&cm[1], &d, mad, now);
	is_int(qn, 1, "a LAP is answered");
	memset(&apr, 0, sizeof(apr));
	mpd_layout_decode(&mpd_cm_apr_layout, q[0].mad + MPD_CM_DATA_OFF,
			  MPD_CM_DATA_LEN, &apr);
	is_int(mpd_mad_attr_id(q[0].mad), MPD_ATTR_CM_APR, "with an APR");
	is_int(apr.ap_status, HCA_IBCM_APR_UNSUPPORTED,
	       "saying alternate paths are not supported");
	qn = 0;
	hca_ibcm_destroy(&cm[0], a, now);
	pump();
	hca_ibcm_destroy(&cm[1], b, now);
	advance(100000);
	is_int(cm[0].nused + cm[1].nused, 0, "connections freed");
	dump();
}

static void
test_cycles(void)
{
	struct hca_ibcm_conn *a, *b;
	unsigned int i, bad = 0, peak = 0;

	for (i = 0; i < 10000; i++) {
		struct hca_ibcm_req_param p = req_param(SID | 5000);
		struct hca_ibcm_rep_param r = { .qpn = 0x222 };

		reset_logs();
		if (hca_ibcm_send_req(&cm[0], &owner_tag[0], &to_b, &p, now,
				      &a) != 0) {
			bad++;
			break;
		}
		pump();
		b = logv[1].conn;
		if (!b || hca_ibcm_send_rep(&cm[1], b, &r, now) != 0) {
			bad++;
			break;
		}
		pump();
		hca_ibcm_send_rtu(&cm[0], a, NULL, 0);
		pump();
		bad += a->state != HCA_IBCM_ESTABLISHED ||
		       b->state != HCA_IBCM_ESTABLISHED;
		/* the application goes away: DREQ, the peer answers */
		hca_ibcm_destroy(&cm[0], a, now);
		pump();
		hca_ibcm_destroy(&cm[1], b, now);
		pump();
		if (cm[0].nused + cm[1].nused > peak)
			peak = cm[0].nused + cm[1].nused;
		advance(50);
	}
	advance(100000);
	is_int(bad, 0, "10000 connect/disconnect cycles");
	is_int(cm[0].nused + cm[1].nused, 0, "nothing left after timewait");
	ok(peak < 200, "at most the connections in timewait at once (%u)",
	   peak);
}

int
main(void)
{
	tap_seed();
	ok(hca_ibcm_init(&cm[0], &ops, (void *)(intptr_t)0, 0xa0, 1) == 0 &&
	   hca_ibcm_init(&cm[1], &ops, (void *)(intptr_t)1, 0xb0, 2) == 0,
	   "two CMs");
	ok(hca_ibcm_listen(&cm[1], SID | 5000, &owner_tag[1]) == 0, "listen");
	is_int(hca_ibcm_listen(&cm[1], SID | 5000, &owner_tag[1]), EADDRINUSE,
	       "a second listen on the service ID: EADDRINUSE");
	now = 1000 * MS;
	test_connect();
	test_destroy_connected();
	test_rejects();
	test_lost_req();
	test_dup_req();
	test_lost_rtu_notify();
	test_sidr();
	test_lap();
	test_cycles();
	hca_ibcm_fini(&cm[0]);
	hca_ibcm_fini(&cm[1]);
	return tap_done();
}
