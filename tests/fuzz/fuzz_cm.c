/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the IB CM (pmd/cm/ibcm.c, no DPDK, no clock) against
 * what reaches it from outside: CM MADs off the wire with any attribute,
 * IDs, lengths and fields, from any address, in any order, beside what
 * its owners do (listen, REQ, REP, RTU, REJ, DREQ, DREP, notify, SIDR,
 * destroy) and the passing of time. Two CMs, A and B, wired back to back:
 * what one sends can be delivered to the other (or lost, or duplicated),
 * so real exchanges are reached and then broken by the fuzzed bytes.
 * Every event handler takes ownership of new requests; connections are
 * named by a small index into the ones each CM reported.
 *
 * Input: operations, an opcode byte and operands:
 *   0 MAD     cm (bit 0), 1 byte attribute pick, 232 bytes of message,
 *             le16 sender LID
 *   1 DELIVER up to n queued MADs from the other CM (n = byte & 15),
 *             each dropped when its bit in the next byte is set
 *   2 TIME    le16 milliseconds forward, then the timers
 *   3 OWNER   cm, action, connection index, a byte of argument
 *   4 MUTATE  flip byte k (le16) of the oldest queued MAD
 */
#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/cm.h"
#include "madpmd/mad.h"
#include "cm/ibcm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define QMAX		64
#define CONNS		16
#define SID		0x0000000001060000ull

struct qmad {
	struct hca_mad_desc d;
	uint8_t mad[MPD_MAD_LEN];
};

struct side {
	struct hca_ibcm cm;
	struct qmad q[QMAX];		/* sent, not yet delivered */
	unsigned int nq;
	struct hca_ibcm_conn *conn[CONNS];	/* reported to its owner */
	unsigned int nconn;
	uint8_t listening[256];		/* service IDs SID | n it listened on */
	uint16_t lid;
};

static struct side side[2];
static uint64_t now_ns;
static int owner_tag;
static bool inited;

static void
cm_send(void *ctx, const struct hca_mad_desc *addr, const uint8_t *mad)
{
	struct side *s = ctx;

	if (s->nq == QMAX)
		return;
	s->q[s->nq].d = *addr;
	memcpy(s->q[s->nq].mad, mad, MPD_MAD_LEN);
	s->nq++;
}

static enum hca_ibcm_verdict
cm_event(void *ctx, struct hca_ibcm_conn *c, const struct hca_ibcm_event *ev)
{
	struct side *s = ctx;
	unsigned int i;

	(void)ev;
	for (i = 0; i < s->nconn; i++)
		if (s->conn[i] == c)
			return HCA_IBCM_TAKE;
	if (s->nconn == CONNS)
		return HCA_IBCM_REJECT;
	s->conn[s->nconn++] = c;
	c->owner = &owner_tag;
	return HCA_IBCM_TAKE;
}

static const struct hca_ibcm_ops ops = {
	.send = cm_send,
	.event = cm_event,
};

static const uint16_t attrs[] = {
	MPD_ATTR_CM_REQ, MPD_ATTR_CM_MRA, MPD_ATTR_CM_REJ, MPD_ATTR_CM_REP,
	MPD_ATTR_CM_RTU, MPD_ATTR_CM_DREQ, MPD_ATTR_CM_DREP,
	MPD_ATTR_CM_SIDR_REQ, MPD_ATTR_CM_SIDR_REP, MPD_ATTR_CM_LAP,
	MPD_ATTR_CM_APR, 0x0001, 0x0010,
};

static void
addr_of(struct hca_mad_desc *d, uint16_t lid)
{
	memset(d, 0, sizeof(*d));
	d->lid = htobe16(lid);
	d->qpn = htobe32(1);
	d->qkey = htobe32(MPD_QP1_QKEY);
}

static void
raw_mad(struct side *s, const uint8_t *p)
{
	struct hca_mad_desc d;
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_mad m;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_CM;
	m.hdr.class_version = MPD_CM_CLASS_VERSION;
	m.hdr.method = MPD_METHOD_SEND;
	m.hdr.tid = (uint64_t)p[1] << 8 | p[2];
	m.hdr.attr_id = attrs[p[0] % (sizeof(attrs) / sizeof(attrs[0]))];
	if (mpd_mad_encode(&m, p + 1, MPD_CM_DATA_LEN, mad, sizeof(mad)) !=
	    MPD_MAD_LEN)
		abort();
	addr_of(&d, (uint16_t)(p[MPD_CM_DATA_LEN + 1] |
			       p[MPD_CM_DATA_LEN + 2] << 8));
	hca_ibcm_input(&s->cm, &d, mad, now_ns);
}

static void
deliver(struct side *from, unsigned int n, uint8_t drop)
{
	struct side *to = from == &side[0] ? &side[1] : &side[0];
	struct qmad m;
	unsigned int i;

	for (i = 0; i < n && from->nq; i++) {
		m = from->q[0];
		memmove(from->q, from->q + 1, --from->nq * sizeof(m));
		if (drop & (1u << (i & 7)))
			continue;
		addr_of(&m.d, from->lid);
		hca_ibcm_input(&to->cm, &m.d, m.mad, now_ns);
	}
}

static void
owner_op(struct side *s, uint8_t action, uint8_t idx, uint8_t arg)
{
	struct side *peer = s == &side[0] ? &side[1] : &side[0];
	struct hca_ibcm_conn *c = s->nconn ? s->conn[idx % s->nconn] : NULL;
	struct hca_ibcm_req_param rq;
	struct hca_ibcm_rep_param rp;
	struct hca_mad_desc d;
	uint8_t pdata[256];	/* any length an owner may ask for */

	memset(pdata, arg, sizeof(pdata));
	switch (action % 12) {
	case 0:
		if (hca_ibcm_listen(&s->cm, SID | arg, &owner_tag) == 0)
			s->listening[arg] = 1;
		break;
	case 1:
		if (s->nconn == CONNS)
			break;
		memset(&rq, 0, sizeof(rq));
		rq.service_id = SID | arg;
		rq.qpn = 0x40 + arg;
		rq.starting_psn = hca_ibcm_psn(&s->cm);
		rq.max_cm_retries = arg & 15;
		rq.local_cm_resp_timeout = arg & 31;
		rq.remote_cm_resp_timeout = (arg >> 3) & 31;
		rq.packet_life_time = arg & 31;
		rq.pkey = 0xffff;
		rq.path_mtu = 5;
		rq.pdata = pdata;
		rq.pdata_len = (uint8_t)(arg % (MPD_CM_REQ_PDATA_LEN + 8));
		addr_of(&d, peer->lid);
		if (hca_ibcm_send_req(&s->cm, &owner_tag, &d, &rq, now_ns,
				      &c) == 0)
			s->conn[s->nconn++] = c;
		break;
	case 2:
		if (!c)
			break;
		memset(&rp, 0, sizeof(rp));
		rp.qpn = 0x50 + arg;
		rp.pdata = pdata;
		rp.pdata_len = (uint8_t)(arg % (MPD_CM_REP_PDATA_LEN + 8));
		hca_ibcm_send_rep(&s->cm, c, &rp, now_ns);
		break;
	case 3:
		if (c)
			hca_ibcm_send_rtu(&s->cm, c, pdata, arg);
		break;
	case 4:
		if (c)
			hca_ibcm_send_rej(&s->cm, c, arg, pdata, arg, now_ns);
		break;
	case 5:
		if (c)
			hca_ibcm_send_dreq(&s->cm, c, pdata, arg, now_ns);
		break;
	case 6:
		if (c)
			hca_ibcm_send_drep(&s->cm, c, pdata, arg, now_ns);
		break;
	case 7:
		if (c)
			hca_ibcm_establish(&s->cm, c);
		break;
	case 8:
		if (s->nconn == CONNS)
			break;
		addr_of(&d, peer->lid);
		if (hca_ibcm_send_sidr_req(&s->cm, &owner_tag, &d, SID | arg,
					   0xffff, pdata, arg, 1 + arg,
					   arg & 3, now_ns, &c) == 0)
			s->conn[s->nconn++] = c;
		break;
	case 9:
		if (c)
			hca_ibcm_send_sidr_rep(&s->cm, c, arg & 7, 0x60, 0x1234,
					       pdata, arg);
		break;
	case 10:
		if (!c)
			break;
		/* the owner lets go: it names the connection no more */
		hca_ibcm_destroy(&s->cm, c, now_ns);
		s->nconn--;
		s->conn[idx % (s->nconn + 1)] = s->conn[s->nconn];
		break;
	default:
		hca_ibcm_unlisten(&s->cm, SID | arg);
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i = 0;
	uint32_t steps;
	int k;

	/* the CMs are made once (16384 connection slots each) and must be
	 * empty again after every input: what one leaks shows */
	if (!inited) {
		for (k = 0; k < 2; k++) {
			side[k].lid = (uint16_t)(k + 1);
			if (hca_ibcm_init(&side[k].cm, &ops, &side[k],
					  0x1000 + (uint64_t)k,
					  7 + (uint64_t)k) != 0)
				abort();
		}
		inited = true;
	}
	for (k = 0; k < 2; k++) {
		side[k].nq = 0;
		side[k].nconn = 0;
	}
	while (i < size) {
		uint8_t op = data[i++];

		switch (op % 5) {
		case 0:
			if (size - i < MPD_CM_DATA_LEN + 4)
				goto out;
			raw_mad(&side[data[i] & 1], data + i + 1);
			i += MPD_CM_DATA_LEN + 4;
			break;
		case 1:
			if (size - i < 3)
				goto out;
			deliver(&side[data[i] & 1], data[i + 1] & 15,
				data[i + 2]);
			i += 3;
			break;
		case 2:
			if (size - i < 2)
				goto out;
			now_ns += (uint64_t)(data[i] | data[i + 1] << 8) *
				  1000000ull;
			hca_ibcm_timers(&side[0].cm, now_ns);
			hca_ibcm_timers(&side[1].cm, now_ns);
			i += 2;
			break;
		case 3:
			if (size - i < 4)
				goto out;
			owner_op(&side[data[i] & 1], data[i + 1], data[i + 2],
				 data[i + 3]);
			i += 4;
			break;
		default:
			if (size - i < 3)
				goto out;
			if (side[data[i] & 1].nq) {
				unsigned int b = (unsigned int)(data[i + 1] |
						 data[i + 2] << 8) % MPD_MAD_LEN;

				side[data[i] & 1].q[0].mad[b] ^= 0xff;
			}
			i += 3;
			break;
		}
	}
out:
	for (k = 0; k < 2; k++) {
		unsigned int sid;

		while (side[k].nconn)
			hca_ibcm_destroy(&side[k].cm,
					 side[k].conn[--side[k].nconn], now_ns);
		for (sid = 0; sid < 256; sid++)
			if (side[k].listening[sid])
				hca_ibcm_unlisten(&side[k].cm, SID | sid);
		memset(side[k].listening, 0, sizeof(side[k].listening));
	}
	/* DREQ retries, then timewait: every connection is freed. Time
	 * jumps to the next timer: a peer's CM response time-out and packet
	 * life time of 31 make a DREQ wait 3 * 2^23 ms, 16 times (cm.c's
	 * rules), days in all */
	/* each step fires a timer at least: 16 sends and a timewait at most
	 * for each connection */
	steps = 32 * (side[0].cm.nused + side[1].cm.nused);
	for (k = 0; (uint32_t)k < steps &&
		    (side[0].cm.nused || side[1].cm.nused); k++) {
		uint64_t t = UINT64_MAX;
		unsigned int j;

		for (j = 0; j < 2; j++)
			if (side[j].cm.next_timer_ns > now_ns &&
			    side[j].cm.next_timer_ns < t)
				t = side[j].cm.next_timer_ns;
		now_ns = t == UINT64_MAX ? now_ns + 1000000000ull : t;
		hca_ibcm_timers(&side[0].cm, now_ns);
		hca_ibcm_timers(&side[1].cm, now_ns);
		side[0].nq = side[1].nq = 0;
	}
	if (side[0].cm.nused || side[1].cm.nused)
		abort();
	return 0;
}
