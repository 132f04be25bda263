/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_poll_cq(3) and the verbs around it, as an application built on
 * rdma-core's own <infiniband/verbs.h> sees them (linked against Debian's
 * libibverbs, run over madpmd's drop-in through madpmd-run). QPs on one
 * port, connected to each other (loopback), and a child process for what
 * needs a second one: every ibv_wc field the man page promises, num_entries,
 * order, flush errors, CQ overrun, ibv_resize_cq with completions held,
 * completion channels (solicited only), COMM_EST (once per entry into
 * RTR, also in RTS, never on UD), a one-sided WRITE/READ
 * into a process asleep in sleep(), a peer that dies (RETRY_EXC_ERR), and
 * memory windows of both types (bind, access, invalidation, the errors).
 * Usage: test_verbs_api <device>   (an IB port with a LID: OpenSM ran)
 */
#include <arpa/inet.h>
#include <alloca.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "madpmd/clock.h"
#include "tap.h"

#define BUF	65536
#define QKEY	0x11111111u

struct ep {
	struct ibv_qp *qp;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *mr;
	uint8_t *buf;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_port_attr port;
static const char *devname;

static struct ibv_context *
open_dev(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *c = NULL;
	int i;

	for (i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			c = ibv_open_device(l[i]);
	ibv_free_device_list(l);
	return c;
}

static int
make_ep(struct ep *e, enum ibv_qp_type t, struct ibv_cq *scq,
	struct ibv_cq *rcq, int max_recv)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = t,
		.cap = { .max_send_wr = 64, .max_recv_wr = (uint32_t)max_recv,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
		.qkey = QKEY,
	};

	e->scq = scq;
	e->rcq = rcq;
	e->buf = aligned_alloc(4096, BUF);
	if (!e->buf)
		return -1;
	memset(e->buf, 0, BUF);
	e->mr = ibv_reg_mr(pd, e->buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	e->qp = ibv_create_qp(pd, &ia);
	if (!e->mr || !e->qp)
		return -1;
	return ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | (t == IBV_QPT_UD ? IBV_QP_QKEY :
					    IBV_QP_ACCESS_FLAGS));
}

/* RTR (and RTS unless rtr_only) toward dqpn on lid, with the RNR NAK
 * timer it asks of its peer and the RNR retries it makes */
static int
connect_rnr(struct ibv_qp *qp, enum ibv_qp_type t, uint16_t lid,
	    uint32_t dqpn, int rtr_only, uint8_t timeout, uint8_t retry,
	    uint8_t min_rnr_timer, uint8_t rnr_retry)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .rq_psn = 100, .max_dest_rd_atomic = 4,
		.min_rnr_timer = min_rnr_timer,
		.ah_attr = { .dlid = lid, .port_num = 1 },
	};
	int mask = IBV_QP_STATE;

	if (t != IBV_QPT_UD)
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	if (t == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	if (ibv_modify_qp(qp, &a, mask))
		return -1;
	if (rtr_only)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = timeout;
	a.retry_cnt = retry;
	a.rnr_retry = rnr_retry;
	a.max_rd_atomic = 4;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (t == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	return ibv_modify_qp(qp, &a, mask);
}

/* ... asking for 10 us and retrying for ever */
static int
connect_qp(struct ibv_qp *qp, enum ibv_qp_type t, uint16_t lid,
	   uint32_t dqpn, int rtr_only, uint8_t timeout, uint8_t retry)
{
	return connect_rnr(qp, t, lid, dqpn, rtr_only, timeout, retry, 1, 7);
}

static int
post_recv(struct ep *e, uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct ibv_sge sg = { (uintptr_t)(e->buf + off), len, e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sg,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(e->qp, &wr, &bad);
}

static int
post_send(struct ep *e, struct ibv_send_wr *wr, uint32_t off, uint32_t len)
{
	struct ibv_sge sg = { (uintptr_t)(e->buf + off), len, e->mr->lkey };
	struct ibv_send_wr *bad;

	wr->sg_list = &sg;
	wr->num_sge = 1;
	return ibv_post_send(e->qp, wr, &bad);
}

/* Poll until n completions or 5 s; returns how many */
static int
poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	uint64_t end = mpd_mono_ms() + 5000;
	int got = 0, r;

	while (got < n && mpd_mono_ms() < end) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
	}
	return got;
}

static struct ibv_cq *
cq_new(int n, struct ibv_comp_channel *ch)
{
	return ibv_create_cq(ctx, n, NULL, ch, 0);
}

/* ---- on one port: RC pair ---- */

static void
test_rc(void)
{
	struct ibv_cq *scq = cq_new(256, NULL), *rcq = cq_new(256, NULL);
	struct ibv_wc wc[32];
	struct ep a, b;
	int i, n;

	ok(scq && rcq, "two CQs of 256");
	ok(make_ep(&a, IBV_QPT_RC, scq, scq, 32) == 0 &&
	   make_ep(&b, IBV_QPT_RC, rcq, rcq, 32) == 0, "two RC QPs in INIT");
	ok(connect_qp(a.qp, IBV_QPT_RC, port.lid, b.qp->qp_num, 0, 14, 7) == 0 &&
	   connect_qp(b.qp, IBV_QPT_RC, port.lid, a.qp->qp_num, 0, 14, 7) == 0,
	   "connected to each other through the port (RTR, RTS)");
	is_int(ibv_poll_cq(rcq, 4, wc), 0, "an empty CQ polls 0");

	for (i = 0; i < 10; i++)
		post_recv(&b, 1000 + i, (uint32_t)i * 1024, 1024);
	for (i = 0; i < 10; i++) {
		struct ibv_send_wr wr = {
			.wr_id = 2000 + i, .send_flags = IBV_SEND_SIGNALED,
			.opcode = i & 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
			.imm_data = htonl(0xabc00 + i),
		};

		post_send(&a, &wr, 8192, (uint32_t)(100 + i));
	}
	/* all ten in: the first 3 of them, then the other 7, then none */
	usleep(300000);
	n = ibv_poll_cq(rcq, 3, wc);
	ok(n == 3 && wc[0].wr_id == 1000 && wc[2].wr_id == 1002,
	   "num_entries 3 of 10 available: the first 3 (%d)", n);
	n = ibv_poll_cq(rcq, 32, wc + 3);
	ok(n == 7 && wc[3].wr_id == 1003 && wc[9].wr_id == 1009,
	   "then all that are left: 7, in order (%d)", n);
	is_int(ibv_poll_cq(rcq, 32, wc + 10), 0, "then none: removed once polled");
	n += 3;
	is_int(n, 10, "10 receive completions");
	for (i = 0; i < n; i++) {
		int imm = i & 1;

		if (!ok(wc[i].status == IBV_WC_SUCCESS &&
			wc[i].wr_id == (uint64_t)(1000 + i) &&
			wc[i].opcode == IBV_WC_RECV &&
			wc[i].byte_len == (uint32_t)(100 + i) &&
			wc[i].qp_num == b.qp->qp_num &&
			wc[i].src_qp == a.qp->qp_num &&
			!!(wc[i].wc_flags & IBV_WC_WITH_IMM) == imm &&
			(!imm || wc[i].imm_data == htonl(0xabc00 + i)) &&
			wc[i].slid == port.lid && wc[i].pkey_index == 0,
			"recv %d: wr_id, opcode RECV, byte_len %u, qp_num, src_qp, imm, slid",
			i, 100 + i))
			tap_diag("status %d wr_id %llu opcode %d byte_len %u qp %u src %u flags %#x imm %#x slid %u",
				 wc[i].status, (unsigned long long)wc[i].wr_id,
				 wc[i].opcode, wc[i].byte_len, wc[i].qp_num,
				 wc[i].src_qp, wc[i].wc_flags,
				 ntohl(wc[i].imm_data), wc[i].slid);
	}
	n = poll_n(scq, wc, 10);
	ok(n == 10 && wc[0].opcode == IBV_WC_SEND && wc[9].wr_id == 2009 &&
	   wc[9].status == IBV_WC_SUCCESS, "10 send completions, in order");

	/* RDMA WRITE with immediate: data in b's MR, RECV_RDMA_WITH_IMM */
	{
		struct ibv_send_wr wr = {
			.wr_id = 7, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
			.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(77),
			.wr.rdma = { (uintptr_t)(b.buf + 40000), b.mr->rkey },
		};

		for (i = 0; i < 5000; i++)
			a.buf[i] = (uint8_t)(i * 7);
		post_recv(&b, 55, 0, 16);
		post_send(&a, &wr, 0, 5000);
		n = poll_n(rcq, wc, 1);
		ok(n == 1 && wc[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
		   wc[0].byte_len == 5000 && wc[0].wr_id == 55 &&
		   ntohl(wc[0].imm_data) == 77 &&
		   !memcmp(a.buf, b.buf + 40000, 5000),
		   "RDMA WRITE with imm of 5000 bytes (5 packets): data there, RECV_RDMA_WITH_IMM, byte_len 5000");
		n = poll_n(scq, wc, 1);
		ok(n == 1 && wc[0].opcode == IBV_WC_RDMA_WRITE, "its send completion: RDMA_WRITE");
	}
	/* RDMA READ and atomics */
	{
		struct ibv_send_wr rd = {
			.wr_id = 8, .opcode = IBV_WR_RDMA_READ,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)(b.buf + 40000), b.mr->rkey },
		};
		uint64_t *tgt = (uint64_t *)(void *)(b.buf + 60000);
		uint64_t *res = (uint64_t *)(void *)(a.buf + 30000);
		struct ibv_send_wr fa = {
			.wr_id = 9, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.atomic = { (uintptr_t)tgt, 5, 0, b.mr->rkey },
		};
		struct ibv_send_wr cs = {
			.wr_id = 10, .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.atomic = { (uintptr_t)tgt, 105, 999, b.mr->rkey },
		};

		memset(a.buf + 20000, 0, 5000);
		post_send(&a, &rd, 20000, 5000);
		n = poll_n(scq, wc, 1);
		ok(n == 1 && wc[0].status == IBV_WC_SUCCESS &&
		   wc[0].opcode == IBV_WC_RDMA_READ && wc[0].byte_len == 5000 &&
		   !memcmp(a.buf + 20000, b.buf + 40000, 5000),
		   "RDMA READ of 5000 bytes: RDMA_READ, byte_len 5000, the data");
		*tgt = 100;
		post_send(&a, &fa, 30000, 8);
		n = poll_n(scq, wc, 1);
		ok(n == 1 && wc[0].opcode == IBV_WC_FETCH_ADD && *res == 100 &&
		   *tgt == 105, "fetch-and-add 5: returns 100, memory 105");
		post_send(&a, &cs, 30000, 8);
		n = poll_n(scq, wc, 1);
		ok(n == 1 && wc[0].opcode == IBV_WC_COMP_SWAP && *res == 105 &&
		   *tgt == 999, "compare-and-swap 105 -> 999: returns 105, memory 999");
	}
	/* a bad rkey: remote access error, both QPs to error */
	{
		struct ibv_send_wr wr = {
			.wr_id = 11, .opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)b.buf, b.mr->rkey ^ 0x5500 },
		};
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qi;

		post_send(&a, &wr, 0, 64);
		n = poll_n(scq, wc, 1);
		ok(n == 1 && wc[0].status == IBV_WC_REM_ACCESS_ERR &&
		   wc[0].wr_id == 11 && wc[0].qp_num == a.qp->qp_num,
		   "RDMA WRITE with a bad rkey: REM_ACCESS_ERR (status %d)",
		   n == 1 ? (int)wc[0].status : -1);
		ibv_query_qp(a.qp, &qa, IBV_QP_STATE, &qi);
		is_int(qa.qp_state, IBV_QPS_ERR, "the requester's QP is in ERR");
	}
	/* flush: receives posted, QP to ERR */
	{
		struct ibv_qp_attr e = { .qp_state = IBV_QPS_ERR };

		while (ibv_poll_cq(rcq, 32, wc) > 0)
			;
		for (i = 0; i < 5; i++)
			post_recv(&b, 500 + i, 0, 64);
		ibv_modify_qp(b.qp, &e, IBV_QP_STATE);
		n = poll_n(rcq, wc, 5);
		ok(n == 5 && wc[0].status == IBV_WC_WR_FLUSH_ERR &&
		   wc[4].status == IBV_WC_WR_FLUSH_ERR && wc[0].wr_id == 500 &&
		   wc[4].wr_id == 504 && wc[2].qp_num == b.qp->qp_num,
		   "QP to ERR: its 5 receives complete WR_FLUSH_ERR, in order, wr_id and qp_num right");
		post_recv(&b, 600, 0, 64);
		n = poll_n(rcq, wc, 1);
		ok(n == 1 && wc[0].status == IBV_WC_WR_FLUSH_ERR && wc[0].wr_id == 600,
		   "a receive posted in ERR completes WR_FLUSH_ERR");
	}
	ibv_destroy_qp(a.qp);
	ibv_destroy_qp(b.qp);
	ok(ibv_destroy_cq(scq) == 0 && ibv_destroy_cq(rcq) == 0,
	   "QPs and CQs destroyed");
}

/* ---- UD: GRH area and fields ---- */

static void
test_ud(void)
{
	struct ibv_cq *cq = cq_new(64, NULL);
	struct ibv_ah_attr aa = { .dlid = port.lid, .port_num = 1 };
	struct ibv_ah *ah;
	struct ibv_wc wc[4];
	struct ep a, b;
	int n;

	ok(make_ep(&a, IBV_QPT_UD, cq, cq, 8) == 0 &&
	   make_ep(&b, IBV_QPT_UD, cq, cq, 8) == 0 &&
	   connect_qp(a.qp, IBV_QPT_UD, 0, 0, 0, 0, 0) == 0 &&
	   connect_qp(b.qp, IBV_QPT_UD, 0, 0, 0, 0, 0) == 0, "two UD QPs in RTS");
	ah = ibv_create_ah(pd, &aa);
	post_recv(&b, 42, 0, 40 + 512);
	{
		struct ibv_send_wr wr = {
			.wr_id = 43, .opcode = IBV_WR_SEND_WITH_IMM,
			.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(9),
			.wr.ud = { ah, b.qp->qp_num, QKEY },
		};

		memset(a.buf + 1000, 0x5a, 300);
		post_send(&a, &wr, 1000, 300);
	}
	n = poll_n(cq, wc, 2);
	if (n == 2 && wc[0].opcode != IBV_WC_RECV) {
		struct ibv_wc t = wc[0];

		wc[0] = wc[1];
		wc[1] = t;
	}
	ok(n == 2 && wc[0].opcode == IBV_WC_RECV && wc[0].byte_len == 340 &&
	   wc[0].src_qp == a.qp->qp_num && wc[0].slid == port.lid &&
	   !(wc[0].wc_flags & IBV_WC_GRH) && (wc[0].wc_flags & IBV_WC_WITH_IMM) &&
	   ntohl(wc[0].imm_data) == 9 && b.buf[40] == 0x5a && b.buf[339] == 0x5a,
	   "UD receive: byte_len 300 + 40 (GRH area), src_qp, slid, imm, no GRH flag without GRH, data after 40 bytes");
	ok(n == 2 && wc[1].opcode == IBV_WC_SEND && wc[1].wr_id == 43,
	   "UD send completion");
	/* a wrong Q_Key is dropped and counted, never delivered */
	post_recv(&b, 44, 0, 40 + 512);
	{
		struct ibv_send_wr wr = {
			.wr_id = 45, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { ah, b.qp->qp_num, QKEY + 1 },
		};

		post_send(&a, &wr, 1000, 10);
	}
	n = poll_n(cq, wc, 2);
	ok(n == 1 && wc[0].wr_id == 45, "a send with the wrong Q_Key completes, and nothing arrives");
	ibv_destroy_ah(ah);
	ibv_destroy_qp(a.qp);
	ibv_destroy_qp(b.qp);
	ibv_destroy_cq(cq);
}

/* ---- multicast: ibv_attach_mcast and the port's loopback ---- */

/* A send to group (mgid, mlid) from a to QP 0xFFFFFF; the completions
 * of the receives it gave (the send's own taken out) */
static int
mcast_send(struct ep *a, struct ibv_cq *cq, struct ibv_ah *ah,
	   struct ibv_wc *wc)
{
	struct ibv_send_wr wr = {
		.wr_id = 7, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { ah, 0xffffff, QKEY },
	};
	struct ibv_wc all[8];
	int n, i, r = 0;

	memset(a->buf + 2000, 0x3c, 64);
	post_send(a, &wr, 2000, 64);
	usleep(200000);
	n = ibv_poll_cq(cq, 8, all);
	for (i = 0; i < n; i++)
		if (all[i].opcode == IBV_WC_RECV)
			wc[r++] = all[i];
	return r;
}

static void
test_mcast(void)
{
	union ibv_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x01, 0xff, 0xff,
					[15] = 0x42 } };
	struct ibv_ah_attr aa = { .dlid = 0xc123, .port_num = 1,
				  .is_global = 1,
				  .grh = { .dgid = mgid, .hop_limit = 1 } };
	struct ibv_cq *cq = cq_new(64, NULL);
	struct ibv_device_attr da;
	struct ibv_wc wc[8];
	struct ibv_ah *ah;
	struct ep a, b, r;
	int n;

	ok(ibv_query_device(ctx, &da) == 0 && da.max_mcast_grp == 64 &&
	   da.max_mcast_qp_attach == 16 &&
	   da.max_total_mcast_qp_attach == 64 * 16,
	   "ibv_query_device: 64 groups, 16 QPs each");
	ok(make_ep(&a, IBV_QPT_UD, cq, cq, 8) == 0 &&
	   make_ep(&b, IBV_QPT_UD, cq, cq, 8) == 0 &&
	   make_ep(&r, IBV_QPT_RC, cq, cq, 8) == 0 &&
	   connect_qp(a.qp, IBV_QPT_UD, 0, 0, 0, 0, 0) == 0 &&
	   connect_qp(b.qp, IBV_QPT_UD, 0, 0, 0, 0, 0) == 0,
	   "two UD QPs in RTS, an RC QP");
	is_int(ibv_attach_mcast(r.qp, &mgid, 0xc123), EINVAL,
	       "ibv_attach_mcast of an RC QP: EINVAL");
	is_int(ibv_attach_mcast(b.qp, &mgid, 0x0123), EINVAL,
	       "ibv_attach_mcast to a unicast LID: EINVAL");
	is_int(ibv_detach_mcast(b.qp, &mgid, 0xc123), EINVAL,
	       "ibv_detach_mcast of what is not attached: EINVAL");
	is_int(ibv_attach_mcast(b.qp, &mgid, 0xc123), 0, "ibv_attach_mcast b: 0");
	is_int(ibv_attach_mcast(a.qp, &mgid, 0xc123), 0,
	       "ibv_attach_mcast a, the sender: 0");
	ah = ibv_create_ah(pd, &aa);
	post_recv(&a, 50, 0, 40 + 512);
	post_recv(&b, 51, 0, 40 + 512);
	n = mcast_send(&a, cq, ah, wc);
	ok(n == 2 && wc[0].byte_len == 40 + 64 && wc[1].byte_len == 40 + 64 &&
	   (wc[0].wc_flags & IBV_WC_GRH) && wc[0].src_qp == a.qp->qp_num &&
	   b.buf[40] == 0x3c && !memcmp(b.buf + 24, mgid.raw, 16) &&
	   (wc[0].qp_num == b.qp->qp_num || wc[1].qp_num == b.qp->qp_num) &&
	   (wc[0].qp_num == a.qp->qp_num || wc[1].qp_num == a.qp->qp_num),
	   "a send to the group: b and the sender a each get a copy (loopback on, as mlx5), the GRH with the MGID (%d)",
	   n);
	is_int(ibv_detach_mcast(a.qp, &mgid, 0xc123), 0, "ibv_detach_mcast a: 0");
	post_recv(&a, 52, 0, 40 + 512);
	post_recv(&b, 53, 0, 40 + 512);
	n = mcast_send(&a, cq, ah, wc);
	ok(n == 1 && wc[0].qp_num == b.qp->qp_num && wc[0].wr_id == 53,
	   "after a's detach: b only (%d)", n);
	is_int(ibv_detach_mcast(b.qp, &mgid, 0xc123), 0, "ibv_detach_mcast b: 0");
	n = mcast_send(&a, cq, ah, wc);
	is_int(n, 0, "nobody attached: nothing arrives");
	ibv_destroy_ah(ah);
	ibv_destroy_qp(r.qp);
	ibv_destroy_qp(a.qp);
	ibv_destroy_qp(b.qp);
	ibv_destroy_cq(cq);
}

/* ---- sends posted before a destroy ---- */

/*
 * What was posted before ibv_destroy_qp() goes on the wire: a HCA sends
 * it long before the call comes, and stock mckey counts on that (ten
 * unsignaled UD sends, then leave and destroy). Each round a new sender
 * posts 8 to b and is destroyed at once, after a pause that lets the
 * lcore fall asleep: its wake-up races the destroy.
 */
static void
test_destroy_sends(void)
{
	struct ibv_ah_attr aa = { .dlid = port.lid, .port_num = 1 };
	struct ibv_cq *cq = cq_new(64, NULL), *rcq = cq_new(64, NULL);
	struct ibv_wc wc[8];
	struct ibv_ah *ah = NULL;
	struct ep a, b;
	int r, i, whole = 0, got = 0;
	const int rounds = 20;

	ok(cq && rcq && make_ep(&b, IBV_QPT_UD, cq, rcq, 64) == 0 &&
	   connect_qp(b.qp, IBV_QPT_UD, 0, 0, 0, 0, 0) == 0 &&
	   (ah = ibv_create_ah(pd, &aa)) != NULL, "a UD receiver");
	for (r = 0; r < rounds && ah; r++) {
		int n;

		for (i = 0; i < 8; i++)
			post_recv(&b, (uint64_t)i, 40 + (uint32_t)i * 64, 64);
		if (make_ep(&a, IBV_QPT_UD, cq, cq, 1) ||
		    connect_qp(a.qp, IBV_QPT_UD, 0, 0, 0, 0, 0))
			break;
		usleep(20000);
		for (i = 0; i < 8; i++) {
			struct ibv_send_wr wr = {
				.wr_id = (uint64_t)i, .opcode = IBV_WR_SEND,
				.wr.ud = { ah, b.qp->qp_num, QKEY },
			};

			post_send(&a, &wr, 0, 16);
		}
		ibv_destroy_qp(a.qp);
		ibv_dereg_mr(a.mr);
		free(a.buf);
		n = poll_n(rcq, wc, 8);
		got += n > 0 ? n : 0;
		whole += n == 8;
		if (n != 8)
			/* what did not come is not waited for twice */
			while (ibv_poll_cq(rcq, 8, wc) > 0)
				;
	}
	ok(whole == rounds,
	   "8 UD sends posted just before ibv_destroy_qp reach the peer, %d rounds of %d (%d of %d)",
	   whole, rounds, got, rounds * 8);
	if (ah)
		ibv_destroy_ah(ah);
	ibv_destroy_qp(b.qp);
	ibv_dereg_mr(b.mr);
	free(b.buf);
	ibv_destroy_cq(rcq);
	ibv_destroy_cq(cq);
}

/* ---- memory deregistered: the process's own again ---- */

/*
 * A registered buffer's pages are not the child's (MADV_DONTFORK, as
 * with ibv_fork_init()); once deregistered they are ordinary memory
 * again (rdma-core's ibv_dofork_range()): a child of fork() inherits a
 * private copy, and what it writes stays its own. Heap memory freed after
 * ibv_dereg_mr() and handed out again is the case that matters.
 */
static void
test_dereg_fork(void)
{
	const size_t len = 4 * 4096;
	uint8_t *buf = aligned_alloc(4096, len);
	struct ibv_mr *mr;
	size_t i;
	int st = -1, same = 1;
	pid_t pid;

	if (!buf) {
		ok(0, "a buffer for the fork check");
		return;
	}
	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7);
	mr = ibv_reg_mr(pd, buf + 100, len - 200, IBV_ACCESS_LOCAL_WRITE);
	ok(mr && ibv_dereg_mr(mr) == 0, "a heap buffer registered and deregistered");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		for (i = 0; i < len; i++)
			bad += buf[i] != (uint8_t)(i * 7);
		memset(buf, 0xee, len);
		_exit(bad ? 1 : 0);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	for (i = 0; i < len; i++)
		same &= buf[i] == (uint8_t)(i * 7);
	ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && same,
	   "after ibv_dereg_mr() a child of fork() has the buffer's bytes, and its writes stay its own (child status 0x%x, parent's bytes intact: %d)",
	   st, same);
	free(buf);
}

/* ---- ibv_resize_cq: completions kept across a move ---- */

/* n signaled UD sends from a to b (nothing received: b posts none) */
static void
ud_sends(struct ep *a, struct ep *b, struct ibv_ah *ah, uint64_t wr_id,
	 int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ibv_send_wr wr = {
			.wr_id = wr_id + (uint64_t)i, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { ah, b->qp->qp_num, QKEY },
		};

		post_send(a, &wr, 0, 16);
	}
	usleep(200000);
}

static void
test_resize(void)
{
	struct ibv_cq *cq = cq_new(4, NULL), *other = cq_new(64, NULL);
	struct ibv_ah_attr aa = { .dlid = port.lid, .port_num = 1 };
	struct ibv_wc wc[16];
	struct ibv_ah *ah = NULL;
	struct ep a, b;
	int i, n, bad = 0;

	ok(cq && other && make_ep(&a, IBV_QPT_UD, cq, other, 8) == 0 &&
	   make_ep(&b, IBV_QPT_UD, other, other, 8) == 0 &&
	   connect_qp(a.qp, IBV_QPT_UD, 0, 0, 0, 0, 0) == 0 &&
	   connect_qp(b.qp, IBV_QPT_UD, 0, 0, 0, 0, 0) == 0 &&
	   (ah = ibv_create_ah(pd, &aa)) != NULL,
	   "a CQ of %d for a UD QP's sends", cq ? cq->cqe : -1);
	/* 5 written, 3 polled, 4 more: counts 3..8 across the ring's wrap */
	ud_sends(&a, &b, ah, 0, 5);
	n = ibv_poll_cq(cq, 3, wc);
	ud_sends(&a, &b, ah, 5, 4);
	is_int(ibv_resize_cq(cq, 5), EINVAL,
	       "6 completions held: resize to 5 is EINVAL");
	is_int(ibv_resize_cq(cq, 100), 0, "grow to 100 with 6 held");
	ok(cq->cqe >= 100, "cqe %d, at least 100", cq->cqe);
	/* more than the old ring held, none polled */
	ud_sends(&a, &b, ah, 9, 5);
	is_int(ibv_resize_cq(cq, 10), EINVAL,
	       "11 completions held: resize to 10 is EINVAL");
	n += poll_n(cq, wc + 3, 11);
	for (i = 0; i < n; i++)
		if (wc[i].wr_id != (uint64_t)i || wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].opcode != IBV_WC_SEND)
			bad++;
	ok(n == 14 && !bad && ibv_poll_cq(cq, 16, wc) == 0,
	   "all 14 polled in order across the move, then none (%d, %d bad)",
	   n, bad);
	is_int(ibv_resize_cq(cq, 2), 0, "shrink to 2 once empty");
	ok(cq->cqe >= 2 && cq->cqe < 100, "cqe %d", cq->cqe);
	ud_sends(&a, &b, ah, 100, 2);
	n = poll_n(cq, wc, 2);
	ok(n == 2 && wc[0].wr_id == 100 && wc[1].wr_id == 101,
	   "the shrunk CQ completes (%d)", n);
	ibv_destroy_ah(ah);
	ibv_destroy_qp(a.qp);
	ibv_destroy_qp(b.qp);
	ok(ibv_destroy_cq(cq) == 0 && ibv_destroy_cq(other) == 0,
	   "CQs destroyed after resizing");
}

/* ---- completion channel, solicited only; COMM_EST; overrun ---- */

static int
async_wait(enum ibv_event_type want, int ms)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	uint64_t end = mpd_mono_ms() + (uint64_t)ms;

	while (mpd_mono_ms() < end) {
		if (poll(&p, 1, 50) <= 0)
			continue;
		/* readable for events of QPs destroyed since, which are
		 * dropped: nothing yet (the fd is non-blocking) */
		if (ibv_get_async_event(ctx, &ev)) {
			if (errno == EAGAIN)
				continue;
			return -1;
		}
		ibv_ack_async_event(&ev);
		if (ev.event_type == want)
			return 0;
	}
	return -1;
}

static volatile sig_atomic_t alarms;

static void
on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* a solicited SEND from a, 400 ms from now */
static void *
send_later(void *arg)
{
	struct ibv_send_wr wr = { .wr_id = 3, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SOLICITED };

	usleep(400000);
	post_send(arg, &wr, 0, 8);
	return NULL;
}

/*
 * A signal while ibv_get_cq_event() blocks: EINTR if its handler was
 * installed without SA_RESTART, as the kernel's read() of the channel
 * fd (qperf ends a test so), and the call goes on waiting with it
 * (perftest's signal()).
 */
static void
test_event_signal(struct ibv_comp_channel *ch, struct ibv_cq *rcq,
		  struct ep *a)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval t = { .it_value = { .tv_usec = 100000 } };
	struct ibv_wc wc[2];
	struct ibv_cq *got = NULL;
	pthread_t th;
	void *cctx;
	int rc, err;

	sigemptyset(&sa.sa_mask);
	ibv_req_notify_cq(rcq, 0);
	sigaction(SIGALRM, &sa, &old);
	alarms = 0;
	setitimer(ITIMER_REAL, &t, NULL);
	errno = 0;
	rc = ibv_get_cq_event(ch, &got, &cctx);
	err = errno;
	ok(rc == -1 && err == EINTR && alarms == 1,
	   "a SIGALRM handler without SA_RESTART: ibv_get_cq_event fails EINTR (%d, %s)",
	   rc, strerror(err));
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	alarms = 0;
	setitimer(ITIMER_REAL, &t, NULL);
	if (pthread_create(&th, NULL, send_later, a)) {
		ok(0, "a thread to send later");
		goto out;
	}
	rc = ibv_get_cq_event(ch, &got, &cctx);
	pthread_join(th, NULL);
	ok(rc == 0 && got == rcq && alarms == 1,
	   "with SA_RESTART: the call goes on and returns the event 300 ms later (%d, %d alarm)",
	   rc, (int)alarms);
	if (rc == 0)
		ibv_ack_cq_events(rcq, 1);
	poll_n(rcq, wc, 1);
out:
	sigaction(SIGALRM, &old, NULL);
}

static void
test_events(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *scq = cq_new(64, NULL), *rcq = cq_new(64, ch), *got;
	struct pollfd p;
	struct ibv_wc wc[64];
	struct ep a, b;
	void *cctx;
	int n, i;

	ok(ch && make_ep(&a, IBV_QPT_RC, scq, scq, 8) == 0 &&
	   make_ep(&b, IBV_QPT_RC, rcq, rcq, 64) == 0, "a channel, two RC QPs");
	/* b in RTR only: the first packet raises COMM_EST */
	connect_qp(a.qp, IBV_QPT_RC, port.lid, b.qp->qp_num, 0, 14, 7);
	connect_qp(b.qp, IBV_QPT_RC, port.lid, a.qp->qp_num, 1, 14, 7);
	for (i = 0; i < 4; i++)
		post_recv(&b, (uint64_t)i, 0, 64);
	ok(ibv_req_notify_cq(rcq, 1) == 0, "armed for solicited completions only");
	{
		struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND };

		post_send(&a, &wr, 0, 8);
	}
	ok(async_wait(IBV_EVENT_COMM_EST, 3000) == 0,
	   "COMM_EST on the async fd when the first packet reaches a QP in RTR");
	n = poll_n(rcq, wc, 1);
	p = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	ok(n == 1 && poll(&p, 1, 200) == 0,
	   "an unsolicited completion raises no event");
	{
		struct ibv_send_wr wr = { .wr_id = 2, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SOLICITED };

		post_send(&a, &wr, 0, 8);
	}
	ok(poll(&p, 1, 3000) == 1 && ibv_get_cq_event(ch, &got, &cctx) == 0 &&
	   got == rcq, "a solicited one does: get_cq_event returns the CQ");
	ibv_ack_cq_events(rcq, 1);
	n = poll_n(rcq, wc, 1);
	ok(n == 1 && (p.revents = 0, poll(&p, 1, 100) == 0),
	   "one event per arming: none more without ibv_req_notify_cq");
	test_event_signal(ch, rcq, &a);

	/* overrun: 64 receive WRs flushed into a CQ of 64 less what fits */
	{
		struct ibv_cq *small = cq_new(4, NULL);
		struct ep c;
		struct ibv_qp_attr e = { .qp_state = IBV_QPS_ERR };
		int r = 0;

		make_ep(&c, IBV_QPT_RC, small, small, 64);
		for (i = 0; i < 40; i++)
			post_recv(&c, (uint64_t)i, 0, 64);
		ibv_modify_qp(c.qp, &e, IBV_QP_STATE);
		ok(async_wait(IBV_EVENT_CQ_ERR, 3000) == 0,
		   "40 flushes into a CQ of %d: IBV_EVENT_CQ_ERR", small->cqe);
		for (i = 0; i < 100 && r >= 0; i++)
			r = ibv_poll_cq(small, 64, wc);
		ok(r < 0, "the CQ stops: ibv_poll_cq fails (%d) once what it held is polled", r);
		ibv_destroy_qp(c.qp);
		ibv_destroy_cq(small);
	}
	ibv_destroy_qp(a.qp);
	ibv_destroy_qp(b.qp);
	ibv_destroy_cq(scq);
	ok(ibv_destroy_cq(rcq) == 0 && ibv_destroy_comp_channel(ch) == 0,
	   "CQ destroyed once its events are acknowledged, then the channel");
}

/* ---- COMM_EST: once per entry into RTR, in RTS too ---- */

/* Every async event that comes within ms, acknowledged; how many were
 * want on qp. */
static int
async_count(enum ibv_event_type want, struct ibv_qp *qp, int ms)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	uint64_t end = mpd_mono_ms() + (uint64_t)ms;
	int n = 0;

	while (mpd_mono_ms() < end) {
		if (poll(&p, 1, 20) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev)) {
			if (errno == EAGAIN)
				continue;
			return -1;
		}
		if (ev.event_type == want && ev.element.qp == qp)
			n++;
		ibv_ack_async_event(&ev);
	}
	return n;
}

/* One signaled SEND of 8 bytes from a to b, and both completions. */
static int
send_one(struct ep *a, struct ep *b, uint64_t wr_id, struct ibv_ah *ah)
{
	struct ibv_send_wr wr = { .wr_id = wr_id, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc[2];

	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = b->qp->qp_num;
		wr.wr.ud.remote_qkey = QKEY;
	}
	if (post_recv(b, wr_id, 0, 64 + 40) || post_send(a, &wr, 0, 8))
		return -1;
	if (poll_n(b->rcq, wc, 1) != 1 || wc[0].status != IBV_WC_SUCCESS ||
	    poll_n(a->scq, wc, 1) != 1 || wc[0].status != IBV_WC_SUCCESS)
		return -1;
	return 0;
}

/* RESET, INIT, RTR, RTS again toward dqpn */
static int
reconnect(struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };

	if (ibv_modify_qp(qp, &r, IBV_QP_STATE) ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	return connect_qp(qp, IBV_QPT_RC, port.lid, dqpn, 0, 14, 7);
}

static void
test_comm_est(void)
{
	struct ibv_cq *cq = cq_new(64, NULL), *rcq = cq_new(64, NULL);
	struct ibv_ah_attr aa = { .dlid = port.lid, .port_num = 1 };
	struct ibv_ah *ah = NULL;
	struct ep a, b, u, w;
	int n;

	/* what earlier checks left queued */
	async_count(IBV_EVENT_COMM_EST, NULL, 200);
	ok(cq && rcq && make_ep(&a, IBV_QPT_RC, cq, cq, 8) == 0 &&
	   make_ep(&b, IBV_QPT_RC, rcq, rcq, 8) == 0 &&
	   connect_qp(a.qp, IBV_QPT_RC, port.lid, b.qp->qp_num, 0, 14, 7) == 0 &&
	   connect_qp(b.qp, IBV_QPT_RC, port.lid, a.qp->qp_num, 0, 14, 7) == 0,
	   "COMM_EST: two RC QPs connected by hand, both in RTS");
	n = async_count(IBV_EVENT_COMM_EST, b.qp, 200);
	ok(n == 0, "no COMM_EST before anything arrives (%d)", n);
	ok(send_one(&a, &b, 1, NULL) == 0, "the first SEND arrives");
	n = async_count(IBV_EVENT_COMM_EST, b.qp, 300);
	ok(n == 1, "exactly one COMM_EST on the receiver, in RTS with nothing received since RTR (%d)",
	   n);
	ok(send_one(&a, &b, 2, NULL) == 0, "the second SEND arrives");
	n = async_count(IBV_EVENT_COMM_EST, b.qp, 300);
	ok(n == 0, "no COMM_EST for the second SEND (%d)", n);

	/* each entry into RTR gets its own */
	ok(reconnect(a.qp, b.qp->qp_num) == 0 &&
	   reconnect(b.qp, a.qp->qp_num) == 0,
	   "both QPs through RESET, INIT, RTR and RTS again");
	ok(send_one(&a, &b, 3, NULL) == 0 && send_one(&a, &b, 4, NULL) == 0,
	   "two SENDs arrive");
	n = async_count(IBV_EVENT_COMM_EST, b.qp, 300);
	ok(n == 1, "one COMM_EST for the new entry into RTR (%d)", n);

	/* never on UD */
	ok(make_ep(&u, IBV_QPT_UD, cq, cq, 8) == 0 &&
	   make_ep(&w, IBV_QPT_UD, rcq, rcq, 8) == 0 &&
	   connect_qp(u.qp, IBV_QPT_UD, 0, 0, 0, 0, 0) == 0 &&
	   connect_qp(w.qp, IBV_QPT_UD, 0, 0, 1, 0, 0) == 0 &&
	   (ah = ibv_create_ah(pd, &aa)) != NULL &&
	   send_one(&u, &w, 5, ah) == 0,
	   "a UD SEND reaches a UD QP in RTR");
	n = async_count(IBV_EVENT_COMM_EST, w.qp, 300);
	ok(n == 0, "no COMM_EST on UD (%d)", n);
	if (ah)
		ibv_destroy_ah(ah);
	ibv_destroy_qp(u.qp);
	ibv_destroy_qp(w.qp);
	ibv_destroy_qp(a.qp);
	ibv_destroy_qp(b.qp);
	ibv_destroy_cq(cq);
	ibv_destroy_cq(rcq);
}

/* ---- a second process: asleep target, then a dead peer ---- */

struct xchg {
	uint32_t qpn;
	uint64_t addr;
	uint32_t rkey;
};

static void
test_other_process(void)
{
	int to_child[2], to_parent[2], st;
	struct ibv_cq *cq = cq_new(64, NULL);
	struct ibv_wc wc[4];
	struct xchg mine, theirs;
	struct ep a;
	pid_t pid;
	int n;

	if (pipe(to_child) || pipe(to_parent) || !cq ||
	    make_ep(&a, IBV_QPT_RC, cq, cq, 8)) {
		ok(0, "setup for the two-process checks");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* the child: its own context, QP and MR; it sleeps while the
		 * parent writes and reads its memory, checks, then dies
		 * without destroying anything */
		struct ibv_cq *ccq;
		struct ep b;
		uint8_t *p;
		int i, bad = 0;

		close(to_child[1]);
		close(to_parent[0]);
		ctx = open_dev(devname);
		pd = ctx ? ibv_alloc_pd(ctx) : NULL;
		ccq = pd ? cq_new(8, NULL) : NULL;
		if (!ccq || make_ep(&b, IBV_QPT_RC, ccq, ccq, 8))
			_exit(2);
		if (read(to_child[0], &theirs, sizeof(theirs)) != sizeof(theirs))
			_exit(2);
		connect_qp(b.qp, IBV_QPT_RC, port.lid, theirs.qpn, 0, 14, 7);
		for (i = 0; i < 4096; i++)
			b.buf[8192 + i] = (uint8_t)(i ^ 0x33);
		mine = (struct xchg){ b.qp->qp_num, (uintptr_t)b.buf,
				      b.mr->rkey };
		if (write(to_parent[1], &mine, sizeof(mine)) != sizeof(mine))
			_exit(2);
		sleep(2);	/* asleep: the daemon reaches the MR itself */
		p = b.buf;
		for (i = 0; i < 4096; i++)
			bad += p[i] != (uint8_t)(i * 3);
		_exit(bad ? 1 : 0);
	}
	/* a child that dies early is an end of file here, not a hang */
	close(to_child[0]);
	close(to_parent[1]);
	mine = (struct xchg){ a.qp->qp_num, 0, 0 };
	if (write(to_child[1], &mine, sizeof(mine)) != sizeof(mine) ||
	    read(to_parent[0], &theirs, sizeof(theirs)) != sizeof(theirs)) {
		ok(0, "exchange with the child");
		return;
	}
	/* short time-outs: 4.096 us * 2^12 = 16 ms, 3 retries */
	connect_qp(a.qp, IBV_QPT_RC, port.lid, theirs.qpn, 0, 12, 3);
	{
		struct ibv_send_wr wr = {
			.wr_id = 1, .opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { theirs.addr, theirs.rkey },
		};
		struct ibv_send_wr rd = {
			.wr_id = 2, .opcode = IBV_WR_RDMA_READ,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { theirs.addr + 8192, theirs.rkey },
		};
		int i, same = 1;

		for (i = 0; i < 4096; i++)
			a.buf[i] = (uint8_t)(i * 3);
		post_send(&a, &wr, 0, 4096);
		post_send(&a, &rd, 16384, 4096);
		n = poll_n(cq, wc, 2);
		for (i = 0; i < 4096; i++)
			same &= a.buf[16384 + i] == (uint8_t)(i ^ 0x33);
		ok(n == 2 && wc[0].status == IBV_WC_SUCCESS &&
		   wc[1].status == IBV_WC_SUCCESS && same,
		   "RDMA WRITE and READ of 4 KiB into a process asleep in sleep()");
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "the child found the parent's bytes in its buffer when it woke");
	/* the child is gone: its QP with it; sends to it are retried and
	 * fail RETRY_EXC_ERR, as to a dead HCA's */
	{
		struct ibv_send_wr wr = { .wr_id = 3, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		uint64_t t0 = mpd_mono_ms();

		usleep(200000);
		post_send(&a, &wr, 0, 16);
		n = poll_n(cq, wc, 1);
		ok(n == 1 && wc[0].status == IBV_WC_RETRY_EXC_ERR &&
		   wc[0].wr_id == 3,
		   "a send to the dead peer's QP: RETRY_EXC_ERR after %llu ms (status %d)",
		   (unsigned long long)(mpd_mono_ms() - t0), n == 1 ? (int)wc[0].status : -1);
	}
	ibv_destroy_qp(a.qp);
	ibv_destroy_cq(cq);
}

/* ---- a QP taken through RESET runs nothing twice ---- */

/* Two endpoints made by make_ep() with a CQ each, and those CQs, gone */
static void
pair_free(struct ep *a, struct ep *b)
{
	ibv_destroy_qp(a->qp);
	ibv_destroy_qp(b->qp);
	ibv_dereg_mr(a->mr);
	ibv_dereg_mr(b->mr);
	free(a->buf);
	free(b->buf);
	ibv_destroy_cq(a->scq);
	ibv_destroy_cq(b->scq);
}

/* RESET, then INIT, RTR and RTS toward dqpn again, as an application
 * recovering a connection does */
static int
recycle(struct ep *e, uint32_t dqpn)
{
	struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(e->qp, &r, IBV_QP_STATE) ||
	    ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	return connect_qp(e->qp, IBV_QPT_RC, port.lid, dqpn, 0, 14, 7);
}

/* n signaled RDMA WRITEs of 64 bytes from a's offset 0 into b's slot i,
 * wr_id base + i, then their n completions; returns how many succeeded
 * in order */
static int
write_round(struct ep *a, struct ep *b, int n, uint64_t base)
{
	struct ibv_wc wc[64];
	int i, done = 0, good = 0;

	while (done < n) {
		int k = n - done > 50 ? 50 : n - done, got;

		for (i = 0; i < k; i++) {
			struct ibv_send_wr wr = {
				.wr_id = base + (uint64_t)(done + i),
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = { (uintptr_t)(b->buf +
					(uint32_t)(done + i) * 64), b->mr->rkey },
			};

			if (post_send(a, &wr, 0, 64))
				return -1;
		}
		got = poll_n(a->scq, wc, k);
		for (i = 0; i < got; i++)
			good += wc[i].status == IBV_WC_SUCCESS &&
				wc[i].wr_id == base + (uint64_t)(done + i);
		done += k;
	}
	return good;
}

/* Completions that came with nothing posted, within 300 ms */
static int
stray(struct ibv_cq *cq, struct ibv_wc *first)
{
	struct ibv_wc wc[16];
	int n = 0, r;

	usleep(300000);
	while ((r = ibv_poll_cq(cq, 16, wc)) > 0) {
		if (!n)
			*first = wc[0];
		n += r;
	}
	return n;
}

/*
 * IBA 10.3.1: a QP in Reset holds no WR. After RESET -> INIT -> RTR ->
 * RTS nothing completed before runs again: a WRITE of 1 and of 100 WRs
 * earlier, a SEND, a fetch-and-add, and a QP reset after REM_ACCESS_ERR.
 */
static void
test_reset_replay(void)
{
	struct ibv_cq *acq = cq_new(256, NULL), *bcq = cq_new(256, NULL);
	uint64_t *tgt, *res;
	struct ibv_wc wc[4], w0;
	struct ep a, b;
	int n, i;

	ok(acq && bcq && make_ep(&a, IBV_QPT_RC, acq, acq, 8) == 0 &&
	   make_ep(&b, IBV_QPT_RC, bcq, bcq, 8) == 0 &&
	   connect_qp(a.qp, IBV_QPT_RC, port.lid, b.qp->qp_num, 0, 14, 7) == 0 &&
	   connect_qp(b.qp, IBV_QPT_RC, port.lid, a.qp->qp_num, 0, 14, 7) == 0,
	   "reset: an RC pair");
	tgt = (uint64_t *)(void *)(b.buf + 60000);
	res = (uint64_t *)(void *)(a.buf + 30000);

	/* one WRITE, one SEND, one fetch-and-add; then the buffer changes */
	memset(a.buf, 0x11, 64);
	is_int(write_round(&a, &b, 1, 100), 1, "reset: one RDMA WRITE completes");
	post_recv(&b, 900, 8192, 64);
	{
		struct ibv_send_wr snd = { .wr_id = 101, .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED };
		struct ibv_send_wr fa = {
			.wr_id = 102, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.atomic = { (uintptr_t)tgt, 1, 0, b.mr->rkey },
		};

		*tgt = 0;
		post_send(&a, &snd, 0, 32);
		post_send(&a, &fa, 30000, 8);
		n = poll_n(acq, wc, 2);
		ok(n == 2 && wc[0].wr_id == 101 && wc[1].wr_id == 102 &&
		   *tgt == 1 && *res == 0 && poll_n(bcq, wc + 2, 1) == 1,
		   "reset: a SEND and a fetch-and-add complete (memory %llu)",
		   (unsigned long long)*tgt);
	}
	memset(a.buf, 0x22, 64);
	post_recv(&b, 901, 8192, 64);
	ok(recycle(&a, b.qp->qp_num) == 0 && recycle(&b, a.qp->qp_num) == 0,
	   "reset: both QPs RESET -> INIT -> RTR -> RTS");
	post_recv(&b, 902, 8192, 64);
	n = stray(acq, &w0);
	if (!ok(n == 0, "reset after 3 WRs: no completion without a new post (%d)", n))
		tap_diag("first: wr_id %llu status %d",
			 (unsigned long long)w0.wr_id, w0.status);
	ok(b.buf[0] == 0x11 && *tgt == 1 && stray(bcq, &w0) == 0,
	   "reset: the WRITE did not run again (0x%02x), the atomic not (%llu), no SEND delivered again",
	   b.buf[0], (unsigned long long)*tgt);

	/* a hundred, then one: exactly one completion, its own */
	is_int(write_round(&a, &b, 100, 1000), 100, "reset: 100 RDMA WRITEs complete");
	memset(a.buf, 0x33, 64);
	ok(recycle(&a, b.qp->qp_num) == 0 && recycle(&b, a.qp->qp_num) == 0,
	   "reset: both QPs through RESET again");
	is_int(write_round(&a, &b, 1, 5000), 1, "reset: then one WRITE completes, with its own wr_id");
	n = stray(acq, &w0);
	if (!ok(n == 0 && b.buf[64] == 0x22 && b.buf[99 * 64] == 0x22,
		"reset after 100 WRs: the next round has 1 completion, not 101 (%d more), the 100 not written again",
		n))
		tap_diag("first stray: wr_id %llu", (unsigned long long)w0.wr_id);

	/* an error, then a reset: the QP works again */
	{
		struct ibv_send_wr bad = {
			.wr_id = 66, .opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)b.buf, b.mr->rkey ^ 0x5500 },
		};

		post_send(&a, &bad, 0, 64);
		n = poll_n(acq, wc, 1);
		ok(n == 1 && wc[0].status == IBV_WC_REM_ACCESS_ERR,
		   "reset: a WRITE with a bad rkey fails REM_ACCESS_ERR");
	}
	while (ibv_poll_cq(bcq, 4, wc) > 0)
		;
	ok(recycle(&a, b.qp->qp_num) == 0 && recycle(&b, a.qp->qp_num) == 0,
	   "reset: both QPs from ERR through RESET to RTS");
	for (i = 0; i < 3; i++)
		if (write_round(&a, &b, 1, 7000 + (uint64_t)i) != 1)
			break;
	n = stray(acq, &w0);
	ok(i == 3 && n == 0,
	   "reset after REM_ACCESS_ERR: 3 WRITEs complete with their own wr_id, nothing stale (%d of 3, %d more)",
	   i, n);
	pair_free(&a, &b);
}

/* ---- access violations: the responder's QP to ERR too ---- */

/*
 * IBA 9.9.3.1.1 (class C): a READ or atomic with a bad rkey gets a NAK
 * and takes the responder's QP to ERR, as a WRITE does (rxe and HCAs
 * alike); the requester sees REM_ACCESS_ERR.
 */
static void
test_resp_errors(void)
{
	static const char *const what[] = { "RDMA READ", "fetch-and-add",
					    "RDMA WRITE" };
	int k;

	for (k = 0; k < 3; k++) {
		struct ibv_cq *acq = cq_new(16, NULL), *bcq = cq_new(16, NULL);
		struct ibv_send_wr wr = {
			.wr_id = 5, .send_flags = IBV_SEND_SIGNALED,
		};
		struct ibv_qp_init_attr qi;
		struct ibv_qp_attr qa;
		struct ibv_wc wc;
		struct ep a, b;
		int n;

		if (!acq || !bcq || make_ep(&a, IBV_QPT_RC, acq, acq, 4) ||
		    make_ep(&b, IBV_QPT_RC, bcq, bcq, 4) ||
		    connect_qp(a.qp, IBV_QPT_RC, port.lid, b.qp->qp_num, 0, 14, 7) ||
		    connect_qp(b.qp, IBV_QPT_RC, port.lid, a.qp->qp_num, 0, 14, 7)) {
			ok(0, "%s: an RC pair", what[k]);
			continue;
		}
		if (k == 1) {
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.remote_addr = (uintptr_t)b.buf;
			wr.wr.atomic.compare_add = 1;
			wr.wr.atomic.rkey = b.mr->rkey ^ 0x5500;
		} else {
			wr.opcode = k ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
			wr.wr.rdma.remote_addr = (uintptr_t)b.buf;
			wr.wr.rdma.rkey = b.mr->rkey ^ 0x5500;
		}
		post_send(&a, &wr, 0, k == 1 ? 8 : 64);
		n = poll_n(acq, &wc, 1);
		usleep(50000);
		memset(&qa, 0, sizeof(qa));
		ibv_query_qp(b.qp, &qa, IBV_QP_STATE, &qi);
		ok(n == 1 && wc.status == IBV_WC_REM_ACCESS_ERR &&
		   qa.qp_state == IBV_QPS_ERR,
		   "%s with a bad rkey: REM_ACCESS_ERR, and the responder's QP in ERR (status %d, state %d)",
		   what[k], n == 1 ? (int)wc.status : -1, qa.qp_state);
		pair_free(&a, &b);
	}
}

/* ---- RNR NAK: the wait the responder asked for ---- */

/* CPU time the daemon's threads have used (ns, their schedstat), from
 * MADPMD_TEST_DAEMON_PID; 0 when unknown */
static uint64_t
daemon_cpu_ns(void)
{
	const char *pid = getenv("MADPMD_TEST_DAEMON_PID");
	unsigned long long ns, sum = 0;
	char path[96];
	struct dirent *d;
	DIR *dir;
	FILE *f;

	if (!pid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%.16s/schedstat",
			 pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		fclose(f);
	}
	closedir(dir);
	return sum;
}

/*
 * rnr_retry 7 retries for ever (IBA 9.7.5.2.8), and an RNR wait is not a
 * transport time-out: waits of 10.24 ms, longer than the 1 ms time-out of
 * a requester with retry_cnt 1, until the responder posts a receive 60 ms
 * on. The SEND completes; counted as time-outs, the second wait failed it
 * with RETRY_EXC_ERR.
 */
static void
rnr_forever(void)
{
	struct ibv_cq *acq = cq_new(16, NULL), *bcq = cq_new(16, NULL);
	struct ibv_send_wr wr = {
		.wr_id = 11, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	struct ep a, b;
	int n;

	if (!acq || !bcq || make_ep(&a, IBV_QPT_RC, acq, acq, 4) ||
	    make_ep(&b, IBV_QPT_RC, bcq, bcq, 4) ||
	    connect_rnr(a.qp, IBV_QPT_RC, port.lid, b.qp->qp_num, 0, 8, 1, 1,
			7) ||
	    connect_rnr(b.qp, IBV_QPT_RC, port.lid, a.qp->qp_num, 0, 8, 1, 20,
			7)) {
		ok(0, "RNR for ever: an RC pair");
		return;
	}
	post_send(&a, &wr, 0, 64);
	usleep(60000);
	n = ibv_poll_cq(acq, 1, &wc);
	ok(n == 0, "RNR for ever: nothing completes while the responder has no receive (%d)",
	   n == 1 ? (int)wc.status : n);
	post_recv(&b, 1, 4096, 64);
	n = poll_n(acq, &wc, 1);
	ok(n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 11,
	   "RNR for ever past a 1 ms time-out with retry_cnt 1: the SEND completes once a receive is there (status %d)",
	   n == 1 ? (int)wc.status : -1);
	n = poll_n(bcq, &wc, 1);
	ok(n == 1 && wc.status == IBV_WC_SUCCESS && wc.byte_len == 64,
	   "and the responder receives it (status %d, %u bytes)",
	   n == 1 ? (int)wc.status : -1, n == 1 ? wc.byte_len : 0);
	pair_free(&a, &b);
}

/*
 * IBA 9.7.5.2.8: a SEND that finds no receive WR gets an RNR NAK with the
 * responder's timer (Table 45), and the requester sends again no earlier
 * than that, rnr_retry times, then completes with RNR_RETRY_EXC_ERR. The
 * daemon's lcore sleeps through the wait (it polled all of it before):
 * a wait of 3 x 61.44 ms costs it a few milliseconds of CPU.
 */
static void
test_rnr(bool spin)
{
	static const struct { uint8_t code; uint32_t us; } t[] = {
		{ 1, 10 }, { 12, 640 }, { 16, 2560 }, { 25, 61440 },
	};
	unsigned int k;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		struct ibv_cq *acq = cq_new(16, NULL), *bcq = cq_new(16, NULL);
		struct ibv_send_wr wr = {
			.wr_id = 9, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		};
		uint64_t t0, dt, cpu0, cpu;
		struct ibv_wc wc;
		struct ep a, b;
		int n;

		/* the responder asks for the timer; the requester retries
		 * 3 times */
		if (!acq || !bcq || make_ep(&a, IBV_QPT_RC, acq, acq, 4) ||
		    make_ep(&b, IBV_QPT_RC, bcq, bcq, 4) ||
		    connect_rnr(a.qp, IBV_QPT_RC, port.lid, b.qp->qp_num, 0, 14,
				7, 1, 3) ||
		    connect_rnr(b.qp, IBV_QPT_RC, port.lid, a.qp->qp_num, 0, 14,
				7, t[k].code, 7)) {
			ok(0, "RNR timer %u: an RC pair", t[k].code);
			continue;
		}
		cpu0 = daemon_cpu_ns();
		t0 = mpd_mono_ns();
		post_send(&a, &wr, 0, 64);
		/* asleep, not polling: the daemon's CPU is its own (spin: the
		 * benchmark's, for the time to the microsecond) */
		do {
			if (!spin)
				usleep(t[k].us > 5000 ? 5000 : 100);
			n = ibv_poll_cq(acq, 1, &wc);
		} while (n == 0 && mpd_mono_ns() - t0 < 5000000000ull);
		dt = mpd_mono_ns() - t0;
		cpu = daemon_cpu_ns() - cpu0;
		ok(n == 1 && wc.status == IBV_WC_RNR_RETRY_EXC_ERR &&
		   dt >= 3ull * t[k].us * 1000,
		   "RNR timer %u (%u us), 3 retries: RNR_RETRY_EXC_ERR after %.3f ms, never before 3 waits (%.3f ms; status %d)",
		   t[k].code, t[k].us, dt / 1e6, 3 * t[k].us / 1e3,
		   n == 1 ? (int)wc.status : -1);
		if (t[k].us >= 10000 && cpu0 && !spin)
			ok(cpu < dt / 10,
			   "the daemon slept through it: %.1f ms of CPU in %.1f ms",
			   cpu / 1e6, dt / 1e6);
		pair_free(&a, &b);
	}
	rnr_forever();
}

/* ---- read-only memory is never registered for writing ---- */

static const uint8_t rodata[8192] = { 1, 2, 3 };

/*
 * The kernel pins an MR's pages for writing when its access lets the HCA
 * write them (ib_umem_get(), FOLL_WRITE): a mapping without write
 * permission fails with EFAULT, so no peer's WRITE reaches it.
 */
static void
test_readonly_mr(void)
{
	const int wr_acc[] = { IBV_ACCESS_LOCAL_WRITE,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC };
	uint8_t *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *mr;
	int i, refused = 0;

	if (!ok(p != MAP_FAILED, "read-only: a mapping"))
		return;
	memset(p, 0x5a, 8192);
	mprotect(p + 4096, 4096, PROT_READ);
	for (i = 0; i < 3; i++) {
		errno = 0;
		mr = ibv_reg_mr(pd, p + 4096, 4096, wr_acc[i]);
		refused += !mr && errno == EFAULT;
		if (mr)
			ibv_dereg_mr(mr);
		errno = 0;
		mr = ibv_reg_mr(pd, p + 2048, 4096, wr_acc[i]);
		refused += !mr && errno == EFAULT;
		if (mr)
			ibv_dereg_mr(mr);
		errno = 0;
		mr = ibv_reg_mr(pd, (void *)(uintptr_t)rodata, sizeof(rodata),
				wr_acc[i]);
		refused += !mr && errno == EFAULT;
		if (mr)
			ibv_dereg_mr(mr);
	}
	is_int(refused, 9, "read-only: an mprotect(PROT_READ) page, one straddling it, and .rodata, each with LOCAL_WRITE, REMOTE_WRITE and REMOTE_ATOMIC: EFAULT");
	mr = ibv_reg_mr(pd, p + 4096, 4096, IBV_ACCESS_REMOTE_READ);
	ok(mr != NULL, "read-only: the page with REMOTE_READ only registers");
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(pd, (void *)(uintptr_t)rodata, sizeof(rodata), 0);
	ok(mr != NULL && rodata[1] == 2, "read-only: .rodata for a local read registers");
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(pd, p, 4096, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	ok(mr != NULL, "read-only: the writable page beside registers for REMOTE_WRITE");
	if (mr)
		ibv_dereg_mr(mr);
	munmap(p, 8192);
}

/* Before the SM: a context that waits for its port to come up */
static int
port_events(void)
{
	struct ibv_port_attr pa;
	int r;

	struct stat st;
	struct ibv_context *imp;
	int fd;

	/* a context that has made nothing: the kernel sends port events to
	 * every open context (ibv_asyncwatch makes none) */
	memset(&pa, 0, sizeof(pa));
	r = ibv_query_port(ctx, 1, &pa);
	ok(r == 0 && pa.state != IBV_PORT_ACTIVE,
	   "before the SM: port 1 not active (state %d)", pa.state);
	printf("# ready\n");
	fflush(stdout);
	ok(async_wait(IBV_EVENT_PORT_ACTIVE, 30000) == 0,
	   "IBV_EVENT_PORT_ACTIVE on the async fd of a context with no object when the SM brings the port up");
	r = ibv_query_port(ctx, 1, &pa);
	ok(r == 0 && pa.state == IBV_PORT_ACTIVE && pa.lid,
	   "then port 1 is active with LID %u", pa.lid);
	/* the command fd: one of the context's own, which a copy of does
	 * not import (pyverbs' test_shared_pd skips on EOPNOTSUPP) */
	fd = ctx->cmd_fd >= 0 ? dup(ctx->cmd_fd) : -1;
	ok(fd >= 0 && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode),
	   "cmd_fd %d is an open socket, and dup() copies it", ctx->cmd_fd);
	errno = 0;
	imp = fd >= 0 ? ibv_import_device(fd) : NULL;
	ok(!imp && errno == EOPNOTSUPP,
	   "ibv_import_device() on the copy: EOPNOTSUPP (%s)", strerror(errno));
	if (fd >= 0)
		close(fd);
	ibv_close_device(ctx);
	return tap_done();
}

/*
 * An MR on the caller's own stack, in the page where ibv_reg_mr()'s own
 * frames run: the library moves the pages into a memfd, and a write to
 * them between its copy and its remap (a return address) would be lost.
 * Padding moves the buffer across the page, so some registrations share
 * the page with the library's frames; each must return here with the
 * stack and the environment as they were, and the buffer's contents kept.
 */
static __attribute__((noinline)) int
reg_on_stack(size_t pad)
{
	volatile uint64_t canary = 0x5ca1ab1e0ddba11ull ^ pad;
	char *padding = alloca(pad + 1);
	char buf[256];
	struct ibv_mr *mr;
	int good;

	padding[0] = 1;
	memset(buf, 0x5a, sizeof(buf));
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	good = mr && canary == (0x5ca1ab1e0ddba11ull ^ pad) &&
	       buf[0] == 0x5a && buf[sizeof(buf) - 1] == 0x5a &&
	       padding[0] == 1 && getenv("PATH");
	if (mr)
		good &= ibv_dereg_mr(mr) == 0;
	return good;
}

static void
test_stack_mr(void)
{
	size_t pad;
	int good = 0, n = 0;

	for (pad = 0; pad < 4096; pad += 128, n++)
		good += reg_on_stack(pad);
	ok(good == n, "an MR on the caller's stack, at %d offsets in its page: each returns with stack, buffer and environment intact (%d)",
	   n, good);
}

/*
 * A process that takes its whole share of the port: RC QPs from five
 * contexts until creation fails, a CQ and an MR each, then holds them
 * until its standard input closes. The share is the process's, however
 * many contexts it opens: max_qp of ibv_query_device(), then ENOMEM.
 */
static int
hold_share(void)
{
	struct ibv_context *c[5];
	struct ibv_device_attr da;
	int i, n = 0, err = 0, mrs = 0;
	char b;

	for (i = 0; i < 5; i++) {
		struct ibv_pd *p;
		struct ibv_cq *cq;
		struct ibv_mr *mr;
		void *buf = aligned_alloc(4096, 4096);

		c[i] = open_dev(devname);
		p = c[i] ? ibv_alloc_pd(c[i]) : NULL;
		cq = c[i] ? ibv_create_cq(c[i], 4, NULL, NULL, 0) : NULL;
		mr = p && buf ? ibv_reg_mr(p, buf, 4096, IBV_ACCESS_LOCAL_WRITE) :
			NULL;
		mrs += mr != NULL;
		if (!ok(p && cq, "hold: context %d, a PD and a CQ", i))
			return tap_done();
		for (;;) {
			struct ibv_qp_init_attr ia = {
				.send_cq = cq, .recv_cq = cq,
				.qp_type = IBV_QPT_RC,
				.cap = { .max_send_wr = 1, .max_recv_wr = 1,
					 .max_send_sge = 1, .max_recv_sge = 1 },
			};

			errno = 0;
			if (!ibv_create_qp(p, &ia)) {
				err = errno;
				break;
			}
			n++;
		}
	}
	memset(&da, 0, sizeof(da));
	i = ibv_query_device(c[0], &da);
	ok(i == 0 && n == da.max_qp && err == ENOMEM,
	   "hold: 5 contexts of one process create %d QPs in all, its share (max_qp %d), then ENOMEM (errno %d)",
	   n, da.max_qp, err);
	is_int(mrs, 5, "hold: an MR in each context too");
	printf("# holding %d QPs\n", n);
	fflush(stdout);
	while (read(0, &b, 1) > 0)
		;
	for (i = 0; i < 5; i++)
		ibv_close_device(c[i]);
	return tap_done();
}

/*
 * A client that takes the largest share it can and leaves: QPs of 16384
 * send and receive WRs, CQs of 2^19 entries, each until ENOMEM, and 512
 * MRs of a page each. The daemon's memory after it is what it was
 * before.
 */
static int
hog_share(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	int nq = 0, nc = 0, nm = 0, err;
	uint8_t *buf = aligned_alloc(4096, 4096 * 512);

	if (!ok(cq && buf, "hog: a CQ and a buffer"))
		return tap_done();
	for (;;) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 16384, .max_recv_wr = 16384,
				 .max_send_sge = 16, .max_recv_sge = 16,
				 .max_inline_data = 256 },
		};

		if (!ibv_create_qp(pd, &ia))
			break;
		nq++;
	}
	while (ibv_create_cq(ctx, 1 << 19, NULL, NULL, 0))
		nc++;
	err = errno;
	/* a page each: a memfd each, in the daemon too */
	while (nm < 512 && ibv_reg_mr(pd, buf + (size_t)nm * 4096, 4096,
				       IBV_ACCESS_LOCAL_WRITE))
		nm++;
	ok(nq > 0 && nc > 0 && nm == 512 && err == ENOMEM,
	   "hog: %d QPs of 16384 WRs and %d CQs of 2^19 until ENOMEM (errno %d), %d MRs",
	   nq, nc, err, nm);
	printf("# hogged %d QPs, %d CQs, %d MRs\n", nq, nc, nm);
	return tap_done();
}

/* What the device refuses whatever the port: the QP types it does not
 * carry (EOPNOTSUPP, as rxe), an AH's GID index past the port's GIDs */
static void
test_refusals(bool roce)
{
	static const struct {
		enum ibv_qp_type type;
		const char *name;
	} types[] = {
		{ IBV_QPT_RAW_PACKET, "raw packet" },
		{ IBV_QPT_XRC_SEND, "XRC send" },
		{ IBV_QPT_XRC_RECV, "XRC receive" },
		{ IBV_QPT_DRIVER, "driver" },
	};
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_ah_attr aa;
	struct ibv_ah *ah;
	unsigned int i, refused = 0;

	for (i = 0; cq && i < sizeof(types) / sizeof(types[0]); i++) {
		struct ibv_qp_init_attr qa = {
			.send_cq = cq, .recv_cq = cq, .qp_type = types[i].type,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};
		struct ibv_qp *qp;

		errno = 0;
		qp = ibv_create_qp(pd, &qa);
		if (!qp && errno == EOPNOTSUPP)
			refused++;
		else
			tap_diag("%s QP: %p, errno %d", types[i].name,
				 (void *)qp, errno);
		if (qp)
			ibv_destroy_qp(qp);
	}
	is_int(refused, 4, "raw packet, XRC and driver QPs: EOPNOTSUPP, as "
	       "rxe (the transports carried are RC, UC, UD)");
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.is_global = 1;
	aa.grh.sgid_index = roce ? 2 : 1;
	aa.grh.hop_limit = 64;
	errno = 0;
	ah = ibv_create_ah(pd, &aa);
	ok(!ah && errno == EINVAL, "an AH with source GID index %u, past the "
	   "port's GIDs: EINVAL (errno %d)", aa.grh.sgid_index, errno);
	if (ah)
		ibv_destroy_ah(ah);
	if (cq)
		ibv_destroy_cq(cq);
}

/*
 * A UD receive on RoCE v2 over IPv4, to the port's own address: the GRH
 * area holds the IPv4 header in its last 20 bytes (rdma-core's layout),
 * and the completion's sl says "UDP, IPv4" (0xa) as mlx5's does, which
 * UCX's ud_verbs reads to know where the destination GID is.
 */
static void
roce_ud_completion(void)
{
	struct ibv_cq *cq = cq_new(16, NULL);
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	union ibv_gid own;
	struct ibv_wc wc[2];
	struct ibv_ah *ah;
	struct ep a, b;
	int n;

	if (!ok(cq && ibv_query_gid(ctx, 1, 1, &own) == 0 &&
		make_ep(&a, IBV_QPT_UD, cq, cq, 8) == 0 &&
		make_ep(&b, IBV_QPT_UD, cq, cq, 8) == 0 &&
		connect_qp(a.qp, IBV_QPT_UD, 0, 0, 0, 0, 0) == 0 &&
		connect_qp(b.qp, IBV_QPT_UD, 0, 0, 0, 0, 0) == 0,
		"RoCE: two UD QPs in RTS, GID 1"))
		return;
	aa.grh.dgid = own;
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &aa);
	post_recv(&b, 60, 0, 40 + 512);
	{
		struct ibv_send_wr wr = {
			.wr_id = 61, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { ah, b.qp->qp_num, QKEY },
		};

		post_send(&a, &wr, 0, 16);
	}
	n = poll_n(cq, wc, 2);
	if (n == 2 && wc[0].opcode != IBV_WC_RECV) {
		struct ibv_wc t = wc[0];

		wc[0] = wc[1];
		wc[1] = t;
	}
	ok(n == 2 && wc[0].opcode == IBV_WC_RECV &&
	   wc[0].status == IBV_WC_SUCCESS &&
	   (wc[0].wc_flags & IBV_WC_GRH) && wc[0].sl == 0xa &&
	   b.buf[20] == 0x45 && !memcmp(b.buf + 36, own.raw + 12, 4),
	   "RoCE UD receive: GRH flag, sl 0xa (UDP, IPv4: mlx5's), the IPv4 header in the GRH area's last 20 bytes, to our address (sl 0x%x)",
	   n > 0 ? wc[0].sl : 0);
	if (ah)
		ibv_destroy_ah(ah);
	ibv_destroy_qp(a.qp);
	ibv_destroy_qp(b.qp);
	ibv_destroy_cq(cq);
}

/* A RoCE port (IBA A16.1, the kernel's rdma_check_ah_attr()): an AH
 * addresses by GID, so one without a GRH is refused */
static int
roce_rules(void)
{
	struct ibv_ah_attr aa;
	struct ibv_ah *ah;

	pd = ibv_alloc_pd(ctx);
	ok(pd != NULL && ibv_query_port(ctx, 1, &port) == 0 &&
	   port.link_layer == IBV_LINK_LAYER_ETHERNET,
	   "RoCE: PD; port 1's link layer is Ethernet");
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.dlid = 1;
	errno = 0;
	ah = ibv_create_ah(pd, &aa);
	ok(!ah && errno == EINVAL, "RoCE: an AH without a GRH (is_global 0): "
	   "EINVAL, as the kernel (errno %d)", errno);
	if (ah)
		ibv_destroy_ah(ah);
	aa.is_global = 1;
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	aa.grh.dgid.raw[10] = 0xff;
	aa.grh.dgid.raw[11] = 0xff;
	aa.grh.dgid.raw[12] = 10;
	aa.grh.dgid.raw[15] = 2;
	ah = ibv_create_ah(pd, &aa);
	ok(ah != NULL, "RoCE: with a GRH (GID index 1, an IPv4-mapped DGID) "
	   "it is made");
	if (ah)
		ibv_destroy_ah(ah);
	test_refusals(true);
	roce_ud_completion();
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}

/* ---- memory windows (IBA 10.6.7) ---- */

/* An RC pair on the port, b's buffer registered a second time for
 * windows only (no remote access of its own) */
struct mw_pair {
	struct ep a, b;
	struct ibv_mr *mr;		/* b.buf, LOCAL_WRITE | MW_BIND */
};

static bool
mw_pair_new(struct mw_pair *p, unsigned int access)
{
	struct ibv_cq *acq = cq_new(16, NULL), *bcq = cq_new(16, NULL);

	memset(p, 0, sizeof(*p));
	if (!acq || !bcq || make_ep(&p->a, IBV_QPT_RC, acq, acq, 4) ||
	    make_ep(&p->b, IBV_QPT_RC, bcq, bcq, 4) ||
	    connect_qp(p->a.qp, IBV_QPT_RC, port.lid, p->b.qp->qp_num, 0, 14, 7) ||
	    connect_qp(p->b.qp, IBV_QPT_RC, port.lid, p->a.qp->qp_num, 0, 14, 7))
		return false;
	p->mr = ibv_reg_mr(pd, p->b.buf, BUF, access);
	return p->mr != NULL;
}

static void
mw_pair_free(struct mw_pair *p)
{
	if (p->mr)
		ibv_dereg_mr(p->mr);
	pair_free(&p->a, &p->b);
}

/* One signaled WR on e, its completion's status (-1: none) */
static int
one_wr(struct ep *e, struct ibv_send_wr *wr, uint32_t len, struct ibv_wc *wc)
{
	wr->send_flags |= IBV_SEND_SIGNALED;
	if (len ? post_send(e, wr, 0, len) : ibv_post_send(e->qp, wr, &wr))
		return -1;
	return poll_n(e->scq, wc, 1) == 1 ? (int)wc->status : -1;
}

/* RDMA WRITE (or READ) of len bytes from a to va under rkey: the status */
static int
mw_rdma(struct mw_pair *p, enum ibv_wr_opcode op, uint64_t va, uint32_t rkey,
	uint32_t len)
{
	struct ibv_send_wr wr = { .wr_id = 7, .opcode = op };
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = va;
	wr.wr.rdma.rkey = rkey;
	return one_wr(&p->a, &wr, len, &wc);
}

/* A type 2 bind WR on e: the status; *rkey the key bound */
static int
mw_bind2(struct ep *e, struct ibv_mw *mw, struct ibv_mr *mr, uint64_t addr,
	 uint64_t len, unsigned int access, uint32_t *rkey)
{
	struct ibv_send_wr wr = { .wr_id = 8, .opcode = IBV_WR_BIND_MW };
	struct ibv_wc wc;
	int st;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = mr, .addr = addr, .length = len,
		.mw_access_flags = access };
	st = one_wr(e, &wr, 0, &wc);
	*rkey = wr.bind_mw.rkey;
	return st == IBV_WC_SUCCESS && wc.opcode != IBV_WC_BIND_MW ? -2 : st;
}

static void
test_mw_type1(void)
{
	struct ibv_mw_bind bind = { .wr_id = 3, .send_flags = IBV_SEND_SIGNALED };
	struct mw_pair p;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t old;
	uint64_t win;
	int n, st;

	if (!ok(mw_pair_new(&p, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND),
		"windows: an RC pair, the responder's buffer registered for windows"))
		return;
	win = (uintptr_t)p.b.buf + 4096;
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	if (!ok(mw && mw->type == IBV_MW_TYPE_1, "ibv_alloc_mw(TYPE_1)"))
		return;
	old = mw->rkey;
	bind.bind_info = (struct ibv_mw_bind_info){ .mr = p.mr, .addr = win,
		.length = 4096,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ };
	st = ibv_bind_mw(p.b.qp, mw, &bind);
	n = poll_n(p.b.scq, &wc, 1);
	ok(st == 0 && n == 1 && wc.status == IBV_WC_SUCCESS &&
	   wc.opcode == IBV_WC_BIND_MW && wc.wr_id == 3 &&
	   mw->rkey == ibv_inc_rkey(old),
	   "ibv_bind_mw: IBV_WC_BIND_MW, the window's key byte moved (0x%x -> 0x%x)",
	   old, mw->rkey);
	memset(p.a.buf, 0x5a, 64);
	is_int(mw_rdma(&p, IBV_WR_RDMA_WRITE, win + 100, mw->rkey, 64),
	       IBV_WC_SUCCESS, "RDMA WRITE through the window");
	ok(p.b.buf[4096 + 100] == 0x5a && p.b.buf[4096 + 163] == 0x5a &&
	   p.b.buf[4096 + 164] == 0, "the bytes landed where the window shows");
	is_int(mw_rdma(&p, IBV_WR_RDMA_READ, win, mw->rkey, 128),
	       IBV_WC_SUCCESS, "RDMA READ through the window");
	is_int(ibv_dereg_mr(p.mr), EBUSY,
	       "ibv_dereg_mr() of the region a window is bound to: EBUSY");
	is_int(mw_rdma(&p, IBV_WR_RDMA_WRITE, win + 4096 - 32, mw->rkey, 64),
	       IBV_WC_REM_ACCESS_ERR,
	       "a WRITE past the window's end: REM_ACCESS_ERR");
	/* freed, it lets go of the region */
	ibv_dealloc_mw(mw);
	mw_pair_free(&p);

	/* unbound by a bind of length 0 */
	if (!mw_pair_new(&p, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND))
		return;
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	win = (uintptr_t)p.b.buf;
	bind.bind_info = (struct ibv_mw_bind_info){ .mr = p.mr, .addr = win,
		.length = 4096, .mw_access_flags = IBV_ACCESS_REMOTE_WRITE };
	st = mw ? ibv_bind_mw(p.b.qp, mw, &bind) : -1;
	n = st ? 0 : poll_n(p.b.scq, &wc, 1);
	bind.bind_info.length = 0;
	bind.bind_info.mw_access_flags = 0;
	st = n == 1 ? ibv_bind_mw(p.b.qp, mw, &bind) : -1;
	n = st ? 0 : poll_n(p.b.scq, &wc, 1);
	ok(n == 1 && wc.status == IBV_WC_SUCCESS,
	   "ibv_bind_mw() with length 0 unbinds (status %d)",
	   n == 1 ? (int)wc.status : -1);
	is_int(mw_rdma(&p, IBV_WR_RDMA_WRITE, win, mw->rkey, 64),
	       IBV_WC_REM_ACCESS_ERR,
	       "a WRITE through the unbound window: REM_ACCESS_ERR");
	mw_pair_free(&p);
	if (mw)
		ibv_dealloc_mw(mw);
}

static void
test_mw_type2(void)
{
	struct ibv_send_wr wr = { .wr_id = 9 };
	struct ibv_cq *cq;
	struct ibv_sge sg;
	struct mw_pair p, q;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t rkey;
	uint64_t win;
	int n;

	if (!mw_pair_new(&p, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND))
		return;
	win = (uintptr_t)p.b.buf;
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	if (!ok(mw && mw->type == IBV_MW_TYPE_2, "ibv_alloc_mw(TYPE_2)"))
		return;
	is_int(mw_bind2(&p.b, mw, p.mr, win, 8192, IBV_ACCESS_REMOTE_WRITE,
			&rkey), IBV_WC_SUCCESS,
	       "IBV_WR_BIND_MW of a type 2 window: IBV_WC_BIND_MW");
	is_int(mw_rdma(&p, IBV_WR_RDMA_WRITE, win, rkey, 64), IBV_WC_SUCCESS,
	       "RDMA WRITE through it from the QP it was bound with");
	/* SEND with Invalidate: the receiver's completion names the key */
	post_recv(&p.b, 21, 0, 1024);
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.invalidate_rkey = rkey;
	n = one_wr(&p.a, &wr, 16, &wc) == IBV_WC_SUCCESS ?
	    poll_n(p.b.rcq, &wc, 1) : 0;
	ok(n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 21 &&
	   (wc.wc_flags & IBV_WC_WITH_INV) && wc.invalidated_rkey == rkey,
	   "SEND with Invalidate: the receive says IBV_WC_WITH_INV, invalidated_rkey 0x%x",
	   n == 1 ? wc.invalidated_rkey : 0);
	is_int(mw_rdma(&p, IBV_WR_RDMA_WRITE, win, rkey, 64),
	       IBV_WC_REM_ACCESS_ERR,
	       "a WRITE through the invalidated window: REM_ACCESS_ERR");
	mw_pair_free(&p);

	/* bound, invalidated locally, bound again; a second bind of a
	 * bound window fails */
	if (!mw_pair_new(&p, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND))
		return;
	win = (uintptr_t)p.b.buf;
	mw_bind2(&p.b, mw, p.mr, win, 4096, IBV_ACCESS_REMOTE_WRITE, &rkey);
	mw->rkey = rkey;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.invalidate_rkey = rkey;
	n = one_wr(&p.b, &wr, 0, &wc);
	ok(n == IBV_WC_SUCCESS && wc.opcode == IBV_WC_LOCAL_INV,
	   "IBV_WR_LOCAL_INV: IBV_WC_LOCAL_INV (status %d)", n);
	is_int(mw_rdma(&p, IBV_WR_RDMA_WRITE, win, rkey, 64),
	       IBV_WC_REM_ACCESS_ERR,
	       "a WRITE through the window invalidated locally: REM_ACCESS_ERR");
	mw_pair_free(&p);
	if (!mw_pair_new(&p, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND) ||
	    !mw_pair_new(&q, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND))
		return;
	win = (uintptr_t)p.b.buf;
	is_int(mw_bind2(&p.b, mw, p.mr, win, 4096,
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, &rkey),
	       IBV_WC_SUCCESS, "bound again after the invalidation");
	mw->rkey = rkey;
	/* type 2B: another QP of the same PD does not reach it */
	is_int(mw_rdma(&q, IBV_WR_RDMA_WRITE, win, rkey, 64),
	       IBV_WC_REM_ACCESS_ERR,
	       "a WRITE through it to another QP than the one that bound it: REM_ACCESS_ERR");
	/* the window's key as an L_Key: windows are for remote access */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	sg = (struct ibv_sge){ (uintptr_t)p.b.buf, 16, rkey };
	wr.sg_list = &sg;
	wr.num_sge = 1;
	post_recv(&p.a, 22, 0, 64);
	n = one_wr(&p.b, &wr, 0, &wc);
	is_int(n, IBV_WC_LOC_PROT_ERR,
	       "a SEND whose SGE names the window's key: LOC_PROT_ERR");
	/* a new window: this one lets go of p's region as it goes */
	ibv_dealloc_mw(mw);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	mw_pair_free(&q);
	mw_pair_free(&p);
	if (!mw)
		return;
	if (!mw_pair_new(&p, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND))
		return;
	win = (uintptr_t)p.b.buf;
	mw_bind2(&p.b, mw, p.mr, win, 4096, IBV_ACCESS_REMOTE_WRITE, &rkey);
	is_int(mw_bind2(&p.b, mw, p.mr, win, 4096, IBV_ACCESS_REMOTE_WRITE,
			&rkey), IBV_WC_MW_BIND_ERR,
	       "binding a bound type 2 window again: MW_BIND_ERR");
	is_int(ibv_dealloc_mw(mw), 0, "ibv_dealloc_mw() of a bound window");
	mw_pair_free(&p);

	/* a region without IBV_ACCESS_MW_BIND takes no window; a freed
	 * window's key reaches nothing */
	if (!mw_pair_new(&p, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))
		return;
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	is_int(mw ? mw_bind2(&p.b, mw, p.mr, (uintptr_t)p.b.buf, 4096,
			     IBV_ACCESS_REMOTE_WRITE, &rkey) : -1,
	       IBV_WC_MW_BIND_ERR,
	       "binding to a region registered without IBV_ACCESS_MW_BIND: MW_BIND_ERR");
	mw_pair_free(&p);
	if (mw)
		ibv_dealloc_mw(mw);
	if (!mw_pair_new(&p, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND))
		return;
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	win = (uintptr_t)p.b.buf;
	n = mw ? mw_bind2(&p.b, mw, p.mr, win, 4096, IBV_ACCESS_REMOTE_WRITE,
			  &rkey) : -1;
	if (mw)
		ibv_dealloc_mw(mw);
	is_int(n == IBV_WC_SUCCESS ?
	       mw_rdma(&p, IBV_WR_RDMA_WRITE, win, rkey, 64) : -1,
	       IBV_WC_REM_ACCESS_ERR,
	       "a WRITE through a window ibv_dealloc_mw() freed: REM_ACCESS_ERR");
	mw_pair_free(&p);

	/* a type 2 window is free again once the QP that bound it goes */
	if (!mw_pair_new(&p, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND))
		return;
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	cq = cq_new(16, NULL);
	if (!mw || !cq || make_ep(&q.a, IBV_QPT_RC, cq, cq, 4) ||
	    connect_qp(q.a.qp, IBV_QPT_RC, port.lid, p.a.qp->qp_num, 0, 14, 7)) {
		ok(0, "a third QP");
		return;
	}
	n = mw_bind2(&q.a, mw, p.mr, (uintptr_t)p.b.buf, 4096,
		     IBV_ACCESS_REMOTE_WRITE, &rkey);
	mw->rkey = rkey;
	ibv_destroy_qp(q.a.qp);
	ibv_dereg_mr(q.a.mr);
	free(q.a.buf);
	ibv_destroy_cq(q.a.scq);
	is_int(n == IBV_WC_SUCCESS ?
	       mw_bind2(&p.b, mw, p.mr, (uintptr_t)p.b.buf, 4096,
			IBV_ACCESS_REMOTE_WRITE, &rkey) : -1,
	       IBV_WC_SUCCESS,
	       "a type 2 window bound by a QP since destroyed binds again");
	ibv_dealloc_mw(mw);
	mw_pair_free(&p);
}

static void
test_mw(void)
{
	struct ibv_device_attr da;
	struct ibv_mw *mw;
	int rc;

	memset(&da, 0, sizeof(da));
	rc = ibv_query_device(ctx, &da);
	ok(rc == 0 &&
	   (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
	   (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) &&
	   da.max_mw > 0,
	   "ibv_query_device: memory windows, type 2B, max_mw %d", da.max_mw);
	errno = 0;
	mw = ibv_alloc_mw(pd, (enum ibv_mw_type)3);
	ok(!mw && errno == EINVAL, "ibv_alloc_mw() of type 3: EINVAL (errno %d)",
	   errno);
	test_mw_type1();
	test_mw_type2();
}

int
main(int argc, char **argv)
{
	int i;

	devname = argc > 1 ? argv[1] : "hca1";
	if (argc > 2 && !strcmp(argv[2], "port-events")) {
		ctx = open_dev(devname);
		if (!ok(ctx != NULL, "open %s", devname))
			return tap_done();
		return port_events();
	}
	ctx = open_dev(devname);
	if (!ok(ctx != NULL, "open %s", devname))
		return tap_done();
	if (argc > 2 && !strcmp(argv[2], "roce"))
		return roce_rules();
	pd = ibv_alloc_pd(ctx);
	i = ibv_query_port(ctx, 1, &port);
	ok(pd && i == 0 && port.state == IBV_PORT_ACTIVE && port.lid,
	   "PD; port 1 active with LID %u", port.lid);
	if (argc > 2 && !strcmp(argv[2], "hold"))
		return hold_share();
	if (argc > 2 && !strcmp(argv[2], "hog"))
		return hog_share();
	/* the RNR cases alone, asleep or spinning (tests/bench) */
	if (argc > 2 && !strncmp(argv[2], "rnr", 3)) {
		test_rnr(!strcmp(argv[2], "rnr-spin"));
		return tap_done();
	}
	/* the kernel's async fd is blocking until the application says
	 * otherwise (ibv_get_async_event() then waits) */
	i = fcntl(ctx->async_fd, F_GETFL);
	ok(i >= 0 && !(i & O_NONBLOCK),
	   "the async fd is blocking, as the kernel's (flags 0x%x)", i);
	signal(SIGPIPE, SIG_IGN);
	test_rc();
	test_ud();
	test_mcast();
	test_resize();
	test_destroy_sends();
	test_dereg_fork();
	test_events();
	test_comm_est();
	test_other_process();
	test_stack_mr();
	test_reset_replay();
	test_resp_errors();
	test_mw();
	test_rnr(false);
	test_readonly_mr();
	test_refusals(false);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
