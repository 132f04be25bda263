/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the QP layer (pmd/qp, no DPDK) against what reaches
 * it from outside: packets off the wire (any opcode, PSN, headers and
 * payload, to any QP), work requests a client writes into its shared
 * send and receive queues (raw bytes, any producer count), what it
 * writes into its CQ (consumer count, arm word), and modify requests with
 * any attributes and mask. Three QPs (RC, UC, UD) on one port with one MR
 * and one CQ; frames the layer emits are encoded (they must encode) and
 * can be fed back in, so a pair talks to itself. Input: byte 0 the link
 * (bit 0 RoCEv2), then operations, an opcode byte and operands:
 *   0 PACKET  qp, opcode, flags, psn[3], 16 header bytes, le16 n, payload
 *   1 SEND WR qp, 96 + 32 bytes (a WQE), a producer step
 *   2 RECV WR qp, 48 bytes (a receive WQE), a producer step
 *   3 POLL    time step in 100 us
 *   4 MODIFY  qp, le32 mask, sizeof(struct mpd_v_qp_attr) bytes
 *   5 CQ      le32 consumer count, le32 arm word
 *   6 ECHO    the frames emitted since the last echo, back in
 *   7 FRAME   le16 n, n bytes: a whole frame of the port's link (IB, or
 *             Ethernet/IP/UDP RoCEv2) as anyone could forge it, decoded
 *             as the port's receive path does (CRCs are the codec's
 *             target: not checked) and, when it is for a data QP, in
 *   8 RESET   qp: RESET, then INIT, RTR, RTS again
 * A QP taken through RESET holds no WR (IBA 10.3.1): until a WR is
 * posted to it again, it completes none (a completion aborts).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>

#include "madpmd/verbs.h"
#include "node/node.h"
#include "qp/qp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NQP		3
#define MR_LEN		(64u << 10)
#define ECHO_MAX	16
#define PAY_MAX		4096

struct frame {
	struct mpd_pkt pk;
	uint8_t payload[PAY_MAX];
	uint32_t len;
};

static struct hca_port port;
static struct hca_verbs v;
static struct hca_v_owner owner;
static struct hca_v_mr mr;
static struct hca_v_cq cq;
static struct hca_v_qp *qp[NQP];
static void *qp_shm[NQP];
static struct mpd_v_qp_shm qp_hdr[NQP];
static uint8_t *mr_buf;
static void *cq_shm;
static struct frame echo[ECHO_MAX];
static unsigned int necho;
static uint8_t wirebuf[PAY_MAX + 256];

static void
on_async(struct hca_v_owner *o, const struct mpd_v_async_rec *r)
{
	(void)o;
	if (r->obj > MPD_V_OBJ_SRQ)
		abort();
}

static const struct hca_v_owner_ops owner_ops = { .async = on_async };

/* QPs through RESET with nothing posted since, by QP number */
static uint32_t quiet_qpn[NQP];
static bool quiet[NQP];

static void
on_cqe(void *ctx, uint32_t cq_handle, const struct mpd_v_cqe *e,
       uint32_t psn)
{
	unsigned int i;

	(void)ctx;
	(void)cq_handle;
	(void)psn;
	for (i = 0; i < NQP; i++)
		if (quiet[i] && e->qp_num == quiet_qpn[i])
			abort();	/* a WR from before the reset */
}

static bool
emit(void *ctx, struct mpd_pkt *pk, const void *payload, uint32_t len)
{
	struct mpd_pkt copy = *pk;
	int n;

	(void)ctx;
	if (len > PAY_MAX)
		abort();
	/* whatever the layer sends must be a frame the codec can write */
	n = mpd_pkt_encode(&copy, payload, len, wirebuf, sizeof(wirebuf));
	if (n < 0 && n != MPD_ENOSPC)
		abort();
	if (necho < ECHO_MAX) {
		echo[necho].pk = *pk;
		if (len)
			memcpy(echo[necho].payload, payload, len);
		echo[necho].len = len;
		necho++;
	}
	return true;
}

static void
setup(bool roce)
{
	static const uint32_t types[NQP] = { IBV_QPT_RC, IBV_QPT_UC,
					     IBV_QPT_UD };
	struct mpd_v_create_qp_req req;
	struct mpd_v_qp_cap cap;
	unsigned int i;
	size_t len;

	memset(&port, 0, sizeof(port));
	port.link = roce ? MPD_LINK_ROCE_V2 : MPD_LINK_IB;
	port.port_num = 1;
	port.lid = 1;
	port.neighbor_mtu = 3;		/* 1024 */
	port.pkeys[0] = 0xffff;
	port.gid_prefix = 0xfe80000000000000ull;
	port.port_guid = 0x1122334455667788ull;
	port.mac[0] = 2;
	port.ip4[0] = 10;
	hca_verbs_init(&v, &port);
	v.on_cqe = on_cqe;
	memset(quiet, 0, sizeof(quiet));
	owner = (struct hca_v_owner){ .ops = &owner_ops, .id = 1 };
	mr_buf = calloc(1, MR_LEN);
	mr = (struct hca_v_mr){
		.owner = &owner, .pd = 1, .access = IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC, .iova = 0x10000, .length = MR_LEN,
		.base = mr_buf,
	};
	hca_v_mr_add(&v, &mr);
	cq_shm = calloc(1, 256 + 64 * sizeof(struct mpd_v_cqe));
	memset(&cq, 0, sizeof(cq));
	hca_v_cq_init(&cq, cq_shm, 256 + 64 * sizeof(struct mpd_v_cqe), 64);
	cq.owner = &owner;
	for (i = 0; i < NQP; i++) {
		memset(&req, 0, sizeof(req));
		req.pd = 1;
		req.qp_type = types[i];
		cap = (struct mpd_v_qp_cap){ 8, 8, 2, 2, 32 };
		len = hca_v_qp_layout(types[i], &cap, false, &qp_hdr[i]);
		qp_shm[i] = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (qp_shm[i] == MAP_FAILED)
			abort();
		memcpy(qp_shm[i], &qp_hdr[i], sizeof(qp_hdr[i]));
		qp[i] = hca_v_qp_new(&owner, i, &req, &cap, qp_shm[i], len);
		if (!qp[i] || hca_v_qp_add(&v, qp[i], &cq, &cq, NULL))
			abort();
	}
}

static void
teardown(void)
{
	unsigned int i;

	for (i = 0; i < NQP; i++) {
		hca_v_qp_remove(&v, qp[i]);
		hca_v_qp_free(qp[i]);	/* unmaps its shared memory */
	}
	hca_v_mr_remove(&v, &mr);
	free(mr_buf);
	free(cq_shm);
	necho = 0;
}

static void
to_rts(unsigned int i)
{
	struct mpd_v_qp_attr a;
	uint32_t dest = hca_v_qp_num(qp[i]);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x1234;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	hca_v_qp_modify(&v, qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			IBV_QP_PORT | (i == 2 ? IBV_QP_QKEY :
				       IBV_QP_ACCESS_FLAGS), 0);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;		/* to itself, through the port */
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah.dlid = 1;
	a.ah.is_global = port.link != MPD_LINK_IB;
	memcpy(a.ah.dgid, "\xfe\x80\0\0\0\0\0\0\x11\x22\x33\x44\x55\x66\x77\x88",
	       16);
	hca_v_qp_modify(&v, qp[i], &a, IBV_QP_STATE | (i == 2 ? 0 :
			IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | (i == 0 ? IBV_QP_MAX_DEST_RD_ATOMIC |
					 IBV_QP_MIN_RNR_TIMER : 0)), 0);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 1;
	a.retry_cnt = 3;
	a.rnr_retry = 3;
	a.max_rd_atomic = 2;
	hca_v_qp_modify(&v, qp[i], &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			(i == 0 ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC : 0), 0);
}

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hca_v_out out = { .emit = emit, .room = 64 };
	struct hca_v_comp *k[HCA_V_KICKS_MAX];
	uint64_t now = 1000000;
	size_t i = 1;
	unsigned int q;

	if (size < 1)
		return 0;
	setup(data[0] & 1);
	for (q = 0; q < NQP; q++)
		to_rts(q);
	while (i < size) {
		uint8_t op = data[i++] % 9;

		switch (op) {
		case 0: {
			struct mpd_pkt pk;
			const uint8_t *h;
			uint32_t n;

			if (size - i < 24)
				goto out;
			memset(&pk, 0, sizeof(pk));
			pk.link = port.link;
			q = data[i] % NQP;
			pk.bth.dest_qp = data[i] & 0x80 ? le32(data + i) & 0xffffff
						       : hca_v_qp_num(qp[q]);
			pk.bth.opcode = data[i + 1];
			pk.bth.se = data[i + 2] & 1;
			pk.bth.ack_req = (data[i + 2] >> 1) & 1;
			pk.bth.pkey = data[i + 2] & 4 ? 0x1234 : 0xffff;
			pk.bth.psn = (uint32_t)data[i + 3] << 16 |
				     (uint32_t)data[i + 4] << 8 | data[i + 5];
			h = data + i + 6;
			pk.reth.va = 0x10000 + (uint64_t)(h[0] | h[1] << 8) * 4;
			pk.reth.rkey = h[2] & 1 ? mr.key : le32(h + 2);
			pk.reth.dma_len = (uint32_t)(h[6] | h[7] << 8);
			pk.atomic.va = pk.reth.va;
			pk.atomic.rkey = pk.reth.rkey;
			pk.atomic.swap_add = le32(h + 8);
			pk.atomic.compare = le32(h + 12);
			pk.aeth.syndrome = h[8];
			pk.aeth.msn = le32(h + 9) & 0xffffff;
			pk.atomic_orig = le32(h + 4);
			pk.deth.qkey = h[13] & 1 ? 0x1234 : le32(h + 12);
			pk.deth.src_qp = hca_v_qp_num(qp[h[14] % NQP]);
			pk.imm = le32(h + 10);
			pk.lrh.slid = 1;
			pk.lrh.dlid = 1;
			i += 22;
			n = (uint32_t)(data[i] | data[i + 1] << 8) % 2049;
			i += 2;
			if (n > size - i)
				n = (uint32_t)(size - i);
			pk.payload = data + i;
			pk.payload_len = n;
			i += n;
			hca_verbs_input(&v, &pk, now, &out);
			break;
		}
		case 1:
		case 2: {
			struct mpd_v_qp_shm *s;
			uint32_t stride, wqes, len;
			uint8_t *base;

			if (size - i < 2)
				goto out;
			q = data[i] % NQP;
			quiet[q] = false;
			s = qp_shm[q];
			stride = op == 1 ? qp_hdr[q].sq_stride : qp_hdr[q].rq_stride;
			wqes = op == 1 ? qp_hdr[q].sq_wqes : qp_hdr[q].rq_wqes;
			base = (uint8_t *)s + (op == 1 ? qp_hdr[q].sq_off
						      : qp_hdr[q].rq_off);
			len = (uint32_t)(size - i - 2);
			if (len > stride)
				len = stride;
			if (op == 1) {
				memcpy(base + (s->sq_pi % wqes) * stride,
				       data + i + 2, len);
				s->sq_pi += data[i + 1] % 3 == 2 ? 1000 : 1;
			} else {
				memcpy(base + (s->rq_pi % wqes) * stride,
				       data + i + 2, len);
				s->rq_pi += data[i + 1] % 3 == 2 ? 1000 : 1;
			}
			i += 2 + len;
			break;
		}
		case 3:
			if (size - i < 1)
				goto out;
			now += (uint64_t)data[i++] * 100000;
			out.room = 64;
			hca_verbs_poll(&v, now, &out);
			break;
		case 4: {
			struct mpd_v_qp_attr a;

			if (size - i < 5 + sizeof(a))
				goto out;
			q = data[i] % NQP;
			memcpy(&a, data + i + 5, sizeof(a));
			hca_v_qp_modify(&v, qp[q], &a, le32(data + i + 1), now);
			i += 5 + sizeof(a);
			break;
		}
		case 5:
			if (size - i < 8)
				goto out;
			cq.shm->ci = le32(data + i);
			cq.shm->comp_arm = le32(data + i + 4);
			i += 8;
			break;
		case 6: {
			struct frame f[ECHO_MAX];
			unsigned int n = necho, j;

			memcpy(f, echo, n * sizeof(f[0]));
			necho = 0;
			for (j = 0; j < n; j++) {
				f[j].pk.payload = f[j].payload;
				f[j].pk.payload_len = f[j].len;
				hca_verbs_input(&v, &f[j].pk, now, &out);
			}
			break;
		}
		case 7: {
			struct mpd_pkt pk;
			uint32_t n;

			if (size - i < 2)
				goto out;
			n = (uint32_t)(data[i] | data[i + 1] << 8);
			i += 2;
			if (n > size - i)
				n = (uint32_t)(size - i);
			if (mpd_pkt_decode(port.link, data + i, n,
					   MPD_PKT_NO_ICRC_CHECK |
					   MPD_PKT_NO_VCRC_CHECK, &pk) >= 0 &&
			    pk.bth.dest_qp > 1)
				hca_verbs_input(&v, &pk, now, &out);
			i += n;
			break;
		}
		case 8: {
			struct mpd_v_qp_attr a;

			if (size - i < 1)
				goto out;
			q = data[i++] % NQP;
			memset(&a, 0, sizeof(a));
			a.qp_state = IBV_QPS_RESET;
			hca_v_qp_modify(&v, qp[q], &a, IBV_QP_STATE, now);
			to_rts(q);
			quiet_qpn[q] = hca_v_qp_num(qp[q]);
			quiet[q] = true;
			break;
		}
		}
		/* a client reading its CQ as it goes */
		if (data[i - 1] & 0x40)
			cq.shm->ci = cq.pi;
	}
out:
	(void)hca_v_kicks(&v, k);
	teardown();
	return 0;
}
