/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: what a client's bytes reach behind the channel's
 * socket and its send ring, without DPDK: the umad service's requests
 * (REGISTER, UNREGISTER as pmd/chan/chan_umad.c hands them to the MAD
 * layer), sends written into a shared-memory ring and taken out by the
 * daemon's consumer (lib/chan/ring.c) with umad_rec()'s checks, then
 * hca_mad_send(); frames from the wire into hca_port_rx() and
 * hca_mad_input(); the MAD layer's timers; clients cut off mid-transfer.
 * Frames the MAD layer emits are encoded, and the last one can be fed
 * back in as the peer's answer. Input: byte 0 the port (bit 0 RoCEv2),
 * then operations, each an opcode byte and its operands:
 *   0 REGISTER   client, class, version, rmpp, qpn, mask[16], oui[3]
 *   1 UNREGISTER client, agent
 *   2 SEND       client, le16 n, n bytes (ib_user_mad header + MAD)
 *   3 WIRE       le16 n, n bytes (a frame)
 *   4 POLL       time step in 10 ms
 *   5 CUT OFF    client (detached, freed, a new one attached)
 *   6 ECHO       the last emitted frame back in, its LIDs swapped
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/mad.h"
#include "madpmd/ring.h"
#include "mad/mad_layer.h"
#include "node/node.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CLIENTS		2
#define RING_SIZE	(64u << 10)
#define FRAME_MAX	2048
#define UMAD_HDR	64

static struct hca_port port;
static struct hca_mad_layer ml;
static struct hca_mad_client client[CLIENTS];
static struct mpd_chan_ring *ring[CLIENTS];
static uint8_t last[FRAME_MAX];
static size_t last_len;

static bool
deliver(struct hca_mad_client *c, const struct hca_mad_desc *d,
	const uint8_t *mad, uint32_t len)
{
	volatile uint8_t x = 0;
	uint32_t i;

	(void)c;
	if (!d || (len && !mad))
		abort();
	for (i = 0; i < len; i++)
		x ^= mad[i];
	(void)x;
	return true;
}

static void
credit(struct hca_mad_client *c)
{
	(void)c;
}

static const struct hca_mad_client_ops ops = {
	.deliver = deliver,
	.credit = credit,
};

static bool
emit(void *ctx, const struct mpd_pkt *tmpl, const uint8_t *mad)
{
	struct mpd_pkt pk = *tmpl;
	int n;

	(void)ctx;
	n = mpd_pkt_encode(&pk, mad, MPD_MAD_LEN, last, sizeof(last));
	if (n < 0)
		return false;
	last_len = (size_t)n;
	return true;
}

static void
port_init(uint8_t cfg)
{
	static const uint8_t mac[6] = { 0x02, 0x6d, 0x61, 0x64, 0x00, 0x02 };
	static const uint8_t ip4[4] = { 10, 0, 0, 2 };

	memset(&port, 0, sizeof(port));
	snprintf(port.node_name, sizeof(port.node_name), "hca2");
	snprintf(port.node_desc, sizeof(port.node_desc), "hca2 fuzz");
	port.link = (cfg & 1) ? MPD_LINK_ROCE_V2 : MPD_LINK_IB;
	port.node_guid = 0x6d61640000000200ull;
	port.port_guid = port.node_guid + 1;
	port.sys_guid = port.node_guid;
	port.port_num = 1;
	port.num_ports = 1;
	port.lid = 2;		/* hca2 of pcaps/, whose SA is on LID 1 */
	port.sm_lid = 1;
	port.port_state = HCA_PORT_ACTIVE;
	port.phys_state = HCA_PHYS_LINKUP;
	port.link_width_active = 2;
	port.link_speed_active = 4;
	port.mtu_cap = 5;
	port.vl_cap = 4;
	port.op_vls = 1;
	port.pkeys[0] = 0xffff;
	memcpy(port.mac, mac, sizeof(mac));
	memcpy(port.ip4, ip4, sizeof(ip4));
	hca_sma_init(&port);
}

static bool
client_start(unsigned int i)
{
	struct mpd_ring_view v;

	if (hca_mad_client_init(&client[i], &ops, 1000 + i, i) != 0)
		return false;
	hca_mad_client_attach(&ml, &client[i]);
	if (mpd_ring_init(ring[i], RING_SIZE) ||
	    mpd_ring_attach(&v, ring[i], RING_SIZE))
		abort();
	return true;
}

static void
client_stop(unsigned int i)
{
	hca_mad_client_detach(&ml, &client[i]);
	hca_mad_client_fini(&client[i]);
}

/* The client writes the record into its ring; the daemon's consumer takes
 * it out and applies umad_rec()'s checks. */
static void
send_rec(unsigned int i, const uint8_t *rec, uint32_t len, uint64_t now,
	 struct hca_mad_out *out)
{
	struct mpd_ring_view prod, cons;
	const uint8_t *r;
	struct hca_mad_desc d;
	uint32_t rlen, kind;

	if (mpd_ring_attach(&prod, ring[i], RING_SIZE) ||
	    mpd_ring_attach(&cons, ring[i], RING_SIZE))
		abort();
	if (mpd_ring_put(&prod, MPD_CHAN_REC_UMAD, rec, len, NULL, 0) != 0)
		return;
	if (mpd_ring_peek(&cons, &r, &rlen, &kind) != 1 || rlen != len)
		abort();
	if (rlen >= UMAD_HDR + MPD_MAD_HDR_LEN) {
		memcpy(&d, r, UMAD_HDR);
		if (d.agent_id < HCA_MAD_AGENTS &&
		    client[i].agent[d.agent_id].used) {
			(void)mpd_chan_send_share(r + UMAD_HDR, rlen - UMAD_HDR,
				client[i].agent[d.agent_id].rmpp_version != 0,
				d.timeout_ms);
			(void)hca_mad_send(&ml, &client[i], &d, r + UMAD_HDR,
					   rlen - UMAD_HDR, now, out);
		}
	}
	mpd_ring_consume(&cons);
}

static void
wire(uint8_t *f, size_t len, uint64_t now, struct hca_mad_out *out)
{
	struct mpd_pkt pk;
	uint8_t *mad;
	enum hca_reply r;

	if (len > 0xffff || hca_port_rx(&port, f, (uint16_t)len, false, &pk,
					 &mad) != HCA_RX_MAD)
		return;
	if (mad < f || mad + MPD_MAD_LEN > f + len)
		abort();
	r = hca_mad_input(&ml, &pk, mad, now);
	if (r == HCA_REPLY || r == HCA_TRAP) {
		hca_port_reverse(&port, &pk, pk.bth.dest_qp);
		(void)out->emit(out->ctx, &pk, mad);
	}
}

/* The last frame sent, back in as its peer's answer: headers turned
 * around, re-encoded (the CRCs cover the addresses). */
static int
echo(uint64_t now, struct hca_mad_out *out)
{
	uint8_t mad[MPD_MAD_LEN], *buf;
	struct mpd_pkt pk;
	uint16_t lid;
	int n;

	if (mpd_pkt_decode(port.link, last, last_len, 0, &pk) < 0 ||
	    pk.payload_len < MPD_MAD_LEN)
		return 0;
	memcpy(mad, pk.payload, MPD_MAD_LEN);
	lid = pk.lrh.dlid;
	pk.lrh.dlid = pk.lrh.slid;
	pk.lrh.slid = lid;
	if (pk.link != MPD_LINK_IB) {
		uint8_t mac[6];

		memcpy(mac, pk.eth.dst, 6);
		memcpy(pk.eth.dst, pk.eth.src, 6);
		memcpy(pk.eth.src, mac, 6);
	}
	buf = malloc(FRAME_MAX);
	if (!buf)
		return -1;
	n = mpd_pkt_encode(&pk, mad, MPD_MAD_LEN, buf, FRAME_MAX);
	if (n > 0)
		wire(buf, (size_t)n, now, out);
	free(buf);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hca_mad_out out = { .emit = emit, .room = 1u << 30 };
	uint64_t now = 1000000000ull;
	unsigned int i, live[CLIENTS];
	const uint8_t *end = data + size;

	if (size < 1)
		return 0;
	for (i = 0; i < CLIENTS; i++)
		if (!ring[i] && !(ring[i] = malloc(sizeof(*ring[i]) + RING_SIZE)))
			abort();
	port_init(*data++);
	hca_mad_layer_init(&ml, &port);
	last_len = 0;
	for (i = 0; i < CLIENTS; i++)
		live[i] = client_start(i);
	while (data < end) {
		uint8_t op = *data++ % 7;
		size_t left = (size_t)(end - data), n;
		struct hca_mad_agent_req q;
		uint32_t id;
		uint8_t *buf;

		switch (op) {
		case 0:
			if (left < 24)
				goto out;
			i = data[0] % CLIENTS;
			memset(&q, 0, sizeof(q));
			q.mgmt_class = data[1];
			q.class_version = data[2];
			q.rmpp_version = data[3];
			q.qpn = data[4];
			memcpy(q.method_mask, data + 5, 16);
			q.oui = (uint32_t)data[21] << 16 | data[22] << 8 | data[23];
			if (live[i])
				(void)hca_mad_agent_register(&ml, &client[i], &q,
							     &id);
			data += 24;
			break;
		case 1:
			if (left < 2)
				goto out;
			i = data[0] % CLIENTS;
			if (live[i])
				(void)hca_mad_agent_unregister(&ml, &client[i],
							       data[1]);
			data += 2;
			break;
		case 2:
		case 3:
			if (left < (op == 2 ? 3u : 2u))
				goto out;
			i = data[0] % CLIENTS;
			if (op == 2)
				data++;
			n = (size_t)(data[0] | data[1] << 8);
			data += 2;
			left = (size_t)(end - data);
			if (n > left)
				n = left;
			/* exactly n bytes, so that ASan sees overruns */
			buf = malloc(n ? n : 1);
			if (!buf)
				goto out;
			memcpy(buf, data, n);
			data += n;
			if (op == 3)
				wire(buf, n, now, &out);
			else if (live[i] && n <= RING_SIZE / 4)
				send_rec(i, buf, (uint32_t)n, now, &out);
			free(buf);
			break;
		case 4:
			if (left < 1)
				goto out;
			now += (uint64_t)data[0] * 10000000ull;
			data++;
			hca_mad_poll(&ml, now, &out);
			(void)hca_mad_timers(&ml);
			break;
		case 5:
			if (left < 1)
				goto out;
			i = data[0] % CLIENTS;
			data++;
			if (live[i])
				client_stop(i);
			live[i] = client_start(i);
			break;
		case 6:
			if (last_len && echo(now, &out) < 0)
				goto out;
			break;
		}
	}
out:
	now += 3600ull * 1000000000ull;
	hca_mad_poll(&ml, now, &out);
	for (i = 0; i < CLIENTS; i++)
		if (live[i])
			client_stop(i);
	return 0;
}
