/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's opcode-sequence step (pmd/qp/resp.c, no DPDK) when a
 * peer breaks a message: an RDMA WRITE Only arriving, in PSN order,
 * inside a WRITE First..Last in progress.
 *  - UC (IBA 9.8.4): the broken message is dropped and the next message
 *    is taken whole: the packet that broke it does not move the PSN
 *    expected, so the next one resynchronises the responder, its WRITE
 *    cursor cleared.
 *  - RC (IBA 9.7.5.1.3): a NAK Invalid Request and the QP in Error.
 * And what the review of the reshape found in code older than it:
 *  - a UC QP a bad receive WQE puts in Error queues no NAK (UC has none
 *    to send): before, the queued NAK was never sent and kept the port
 *    busy (hca_verbs_busy()) until the QP went away;
 *  - READs counted across the wrap of the WR counts, which start where
 *    the client's ring stands: before, a READ completed just past the
 *    wrap was not uncounted and every later READ waited for ever.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>

#include "madpmd/verbs.h"
#include "node/node.h"
#include "qp/qp.h"
#include "tap.h"

#define MR_LEN		(64u << 10)
#define MR_VA		0x10000ull
#define MTU		256u

static struct hca_port port;
static struct hca_verbs v;
static struct hca_v_owner owner;
static struct hca_v_mr mr;
static struct hca_v_cq cq;
static uint8_t *mr_buf;
static void *cq_shm;
static unsigned int naks;
static struct mpd_pkt last_read;	/* the last READ request sent */

static void
on_async(struct hca_v_owner *o, const struct mpd_v_async_rec *r)
{
	(void)o, (void)r;
}

static const struct hca_v_owner_ops owner_ops = { .async = on_async };

static bool
emit(void *ctx, struct mpd_pkt *pk, const void *payload, uint32_t len)
{
	(void)ctx, (void)payload, (void)len;
	if (pk->bth.opcode == MPD_OP_READ_REQ)
		last_read = *pk;
	if ((pk->bth.opcode & ~MPD_TP_MASK) == MPD_OP_ACK &&
	    pk->aeth.syndrome == (MPD_AETH_NAK | MPD_NAK_INV_REQ))
		naks++;
	return true;
}

static struct hca_v_qp *
make_qp(uint32_t type, void **shm, uint32_t sq_pi)
{
	struct mpd_v_create_qp_req req = { .pd = 1, .qp_type = type };
	struct mpd_v_qp_cap cap = { 8, 8, 1, 1, 0 };
	struct mpd_v_qp_shm hdr;
	size_t len = hca_v_qp_layout(type, &cap, false, &hdr);
	struct hca_v_qp *qp;
	struct mpd_v_qp_attr a;

	*shm = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*shm == MAP_FAILED)
		abort();
	hdr.sq_pi = sq_pi;		/* the counts start where it stands */
	memcpy(*shm, &hdr, sizeof(hdr));
	qp = hca_v_qp_new(&owner, 1, &req, &cap, *shm, len);
	if (!qp || hca_v_qp_add(&v, qp, &cq, &cq, NULL))
		abort();
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (hca_v_qp_modify(&v, qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0))
		abort();
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_256;
	a.dest_qp_num = 0x99;
	a.ah.dlid = 2;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	if (hca_v_qp_modify(&v, qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN |
			    (type == IBV_QPT_RC ? IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER : 0), 0))
		abort();
	return qp;
}

/* A WRITE packet of op (First, Only, ...) at psn: MTU bytes of fill at
 * offset off of the MR (dma_len the message's, for First and Only) */
static void
write_pkt(struct hca_v_qp *qp, uint8_t tp, uint8_t op, uint32_t psn,
	  uint64_t off, uint32_t dma_len, uint8_t fill)
{
	static uint8_t payload[MTU];
	struct hca_v_out out = { .emit = emit, .room = 0 };
	struct mpd_pkt pk;

	memset(payload, fill, sizeof(payload));
	memset(&pk, 0, sizeof(pk));
	pk.link = MPD_LINK_IB;
	pk.lrh.slid = 2;
	pk.lrh.dlid = 1;
	pk.bth.opcode = tp | op;
	pk.bth.dest_qp = hca_v_qp_num(qp);
	pk.bth.pkey = 0xffff;
	pk.bth.psn = psn;
	pk.reth.va = MR_VA + off;
	pk.reth.rkey = mr.key;
	pk.reth.dma_len = dma_len;
	pk.payload = payload;
	pk.payload_len = MTU;
	hca_verbs_input(&v, &pk, 1000, &out);
}

/* off..off+MTU of the MR all fill */
static bool
holds(uint64_t off, uint8_t fill)
{
	uint32_t i;

	for (i = 0; i < MTU; i++)
		if (mr_buf[off + i] != fill)
			return false;
	return true;
}

static void
setup(void)
{
	memset(&port, 0, sizeof(port));
	port.link = MPD_LINK_IB;
	port.port_num = 1;
	port.lid = 1;
	port.neighbor_mtu = 1;
	port.pkeys[0] = 0xffff;
	hca_verbs_init(&v, &port);
	owner = (struct hca_v_owner){ .ops = &owner_ops, .id = 1 };
	mr_buf = calloc(1, MR_LEN);
	mr = (struct hca_v_mr){ .owner = &owner, .pd = 1,
				.access = IBV_ACCESS_LOCAL_WRITE |
					  IBV_ACCESS_REMOTE_WRITE,
				.iova = MR_VA, .length = MR_LEN,
				.base = mr_buf };
	if (!mr_buf || hca_v_mr_add(&v, &mr))
		abort();
	cq_shm = calloc(1, 256 + 64 * sizeof(struct mpd_v_cqe));
	hca_v_cq_init(&cq, cq_shm, 256 + 64 * sizeof(struct mpd_v_cqe), 64);
	cq.owner = &owner;
}

static void
test_uc(void)
{
	void *shm;
	struct hca_v_qp *qp = make_qp(IBV_QPT_UC, &shm, 0);

	write_pkt(qp, MPD_TP_UC, MPD_OP_WRITE_FIRST, 0, 0, 2 * MTU, 'a');
	ok(holds(0, 'a'), "UC: a WRITE First lands");
	/* the peer starts a new message before the Last */
	write_pkt(qp, MPD_TP_UC, MPD_OP_WRITE_ONLY, 1, 0x1000, MTU, 'b');
	ok(holds(0x1000, 0), "UC: a WRITE Only inside that WRITE breaks it: "
	   "dropped");
	write_pkt(qp, MPD_TP_UC, MPD_OP_WRITE_ONLY, 2, 0x2000, MTU, 'c');
	ok(holds(0x2000, 'c'), "UC: the next message is taken whole (IBA "
	   "9.8.4)");
	write_pkt(qp, MPD_TP_UC, MPD_OP_WRITE_FIRST, 3, 0x3000, 2 * MTU, 'd');
	write_pkt(qp, MPD_TP_UC, MPD_OP_WRITE_LAST, 4, 0, 0, 'e');
	ok(holds(0x3000, 'd') && holds(0x3000 + MTU, 'e'),
	   "UC: and a First..Last after it");
	hca_v_qp_remove(&v, qp);
	hca_v_qp_free(qp);
}

static void
test_rc(void)
{
	struct hca_v_out out = { .emit = emit, .room = 16 };
	struct mpd_v_query_qp_rep r;
	void *shm;
	struct hca_v_qp *qp = make_qp(IBV_QPT_RC, &shm, 0);

	write_pkt(qp, MPD_TP_RC, MPD_OP_WRITE_FIRST, 0, 0x4000, 2 * MTU, 'f');
	write_pkt(qp, MPD_TP_RC, MPD_OP_WRITE_ONLY, 1, 0x5000, MTU, 'g');
	hca_verbs_poll(&v, 2000, &out);
	hca_v_qp_query(qp, &r);
	ok(holds(0x4000, 'f') && holds(0x5000, 0) && naks == 1 &&
	   r.attr.qp_state == IBV_QPS_ERR,
	   "RC: the same sequence is NAKed Invalid Request (%u NAK) and the "
	   "QP goes to Error (state %u) (IBA 9.7.5.1.3)", naks,
	   r.attr.qp_state);
	hca_v_qp_remove(&v, qp);
	hca_v_qp_free(qp);
}

/* A receive WQE the client wrote wrong (more SGEs than the QP has) */
static void
post_bad_recv(void *shm)
{
	struct mpd_v_qp_shm *h = shm;
	struct mpd_v_rwqe *w = (struct mpd_v_rwqe *)((uint8_t *)shm +
			h->rq_off + (h->rq_pi % h->rq_wqes) * h->rq_stride);

	w->wr_id = 7;
	w->num_sge = 200;
	__atomic_store_n(&h->rq_pi, h->rq_pi + 1, __ATOMIC_RELEASE);
}

static void
test_uc_bad_rwqe(void)
{
	struct hca_v_out out = { .emit = emit, .room = 16 };
	struct mpd_v_query_qp_rep r;
	void *shm;
	struct hca_v_qp *qp = make_qp(IBV_QPT_UC, &shm, 0);
	static uint8_t payload[64];
	struct mpd_pkt pk;

	post_bad_recv(shm);
	memset(&pk, 0, sizeof(pk));
	pk.link = MPD_LINK_IB;
	pk.bth.opcode = MPD_TP_UC | MPD_OP_SEND_ONLY;
	pk.bth.dest_qp = hca_v_qp_num(qp);
	pk.bth.pkey = 0xffff;
	pk.payload = payload;
	pk.payload_len = sizeof(payload);
	hca_verbs_input(&v, &pk, 1000, &out);
	hca_verbs_poll(&v, 2000, &out);
	hca_v_qp_query(qp, &r);
	ok(r.attr.qp_state == IBV_QPS_ERR && !hca_verbs_busy(&v),
	   "UC: a bad receive WQE puts the QP in Error (state %u) and leaves "
	   "the port idle (busy %d): no NAK queued that UC cannot send",
	   r.attr.qp_state, hca_verbs_busy(&v));
	hca_v_qp_remove(&v, qp);
	hca_v_qp_free(qp);
}

/* One READ of 8 bytes into the MR, signaled */
static void
post_read(void *shm, uint64_t wr_id)
{
	struct mpd_v_qp_shm *h = shm;
	uint8_t *slot = (uint8_t *)shm + h->sq_off +
			(h->sq_pi % h->sq_wqes) * h->sq_stride;
	struct mpd_v_swqe *w = (struct mpd_v_swqe *)slot;
	struct mpd_v_sge *sg = (struct mpd_v_sge *)(slot + MPD_V_SWQE_HDR);

	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->opcode = IBV_WR_RDMA_READ;
	w->flags = IBV_SEND_SIGNALED;
	w->num_sge = 1;
	w->rkey = 0x1234;
	w->remote_addr = 0x9000;
	sg->addr = MR_VA + 0x6000;
	sg->length = 8;
	sg->lkey = mr.key;
	__atomic_store_n(&h->sq_pi, h->sq_pi + 1, __ATOMIC_RELEASE);
}

static void
test_read_wrap(void)
{
	struct hca_v_out out = { .emit = emit, .room = 16 };
	static const uint8_t data[8] = "answer!";
	struct mpd_v_qp_attr a;
	uint32_t done = 0, i, seen = cq.pi;
	void *shm;
	/* two WRs before the counts wrap */
	struct hca_v_qp *qp = make_qp(IBV_QPT_RC, &shm, 0xfffffffeu);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (hca_v_qp_modify(&v, qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC, 0))
		abort();
	for (i = 0; i < 4; i++) {
		struct mpd_pkt pk;

		memset(&last_read, 0, sizeof(last_read));
		post_read(shm, 100 + i);
		hca_verbs_poll(&v, 3000 + i, &out);
		if (last_read.bth.opcode != MPD_OP_READ_REQ)
			break;		/* it waits: not sent */
		memset(&pk, 0, sizeof(pk));
		pk.link = MPD_LINK_IB;
		pk.bth.opcode = MPD_TP_RC | MPD_OP_READ_RESP_ONLY;
		pk.bth.dest_qp = hca_v_qp_num(qp);
		pk.bth.pkey = 0xffff;
		pk.bth.psn = last_read.bth.psn;
		pk.aeth.syndrome = MPD_AETH_ACK | MPD_AETH_CREDITS_INVALID;
		pk.payload = data;
		pk.payload_len = sizeof(data);
		hca_verbs_input(&v, &pk, 3000 + i, &out);
	}
	for (; seen != cq.pi; seen++) {
		const struct mpd_v_cqe *e = &cq.cqe[seen % cq.ncqe];

		done += e->status == IBV_WC_SUCCESS &&
			e->opcode == IBV_WC_RDMA_READ;
	}
	ok(i == 4 && done == 4 && !memcmp(mr_buf + 0x6000, data, 8),
	   "RC: 4 READs one at a time across the wrap of the WR counts: %u "
	   "sent, %u completed (max_rd_atomic 1)", i, done);
	hca_v_qp_remove(&v, qp);
	hca_v_qp_free(qp);
}

int
main(void)
{
	setup();
	test_uc();
	test_rc();
	test_uc_bad_rwqe();
	test_read_wrap();
	hca_v_mr_remove(&v, &mr);
	free(mr_buf);
	free(cq_shm);
	return tap_done();
}
