/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP layer's multicast (pmd/qp/mcast.c, qp.c, no DPDK): UD QPs of one
 * port attached to a group, packets to DestQP 0xFFFFFF handed to the
 * layer as the port's receive path does. Each attached QP in RTS gets a
 * copy (its receive WR, a completion with the GRH area), one not
 * attached none; a packet of another MGID, MLID, Q_Key or P_Key reaches
 * nobody (the port counts Q_Key and P_Key violations); detach and a QP
 * destroyed leave the group; attach's refusals (RC QP, a GID or LID not
 * multicast, a detach of what is not attached, the table full) and a
 * second attach being no error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>

#include "madpmd/verbs.h"
#include "node/node.h"
#include "qp/qp.h"
#include "tap.h"

#define NQP		4	/* three UD, one RC */
#define MR_LEN		(64u << 10)
#define QKEY		0x11111111u
#define MLID		0xc001

static struct hca_port port;
static struct hca_verbs v;
static struct hca_v_owner owner;
static struct hca_v_mr mr;
static struct hca_v_cq cq;
static struct hca_v_qp *qp[NQP];
static struct mpd_v_qp_shm hdr[NQP];
static void *shm[NQP];
static uint8_t *mr_buf;
static void *cq_shm;
static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x01, 0xff, 0xff,
				  [13] = 1, [14] = 2, [15] = 3 };

static void
on_async(struct hca_v_owner *o, const struct mpd_v_async_rec *r)
{
	(void)o, (void)r;
}

static const struct hca_v_owner_ops owner_ops = { .async = on_async };

static void
make_qp(unsigned int i, uint32_t type)
{
	struct mpd_v_create_qp_req req = { .pd = 1, .qp_type = type };
	struct mpd_v_qp_cap cap = { 8, 8, 1, 1, 0 };
	size_t len = hca_v_qp_layout(type, &cap, false, &hdr[i]);

	shm[i] = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (shm[i] == MAP_FAILED)
		abort();
	memcpy(shm[i], &hdr[i], sizeof(hdr[i]));
	qp[i] = hca_v_qp_new(&owner, i, &req, &cap, shm[i], len);
	if (!qp[i] || hca_v_qp_add(&v, qp[i], &cq, &cq, NULL))
		abort();
}

/* RESET -> INIT -> RTR -> RTS: a UD QP with QKEY, P_Key index 0 */
static void
to_rts(unsigned int i)
{
	struct mpd_v_qp_attr a;
	uint32_t m = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		     IBV_QP_QKEY;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = QKEY;
	if (hca_v_qp_modify(&v, qp[i], &a, m, 0))
		abort();
	a.qp_state = IBV_QPS_RTR;
	if (hca_v_qp_modify(&v, qp[i], &a, IBV_QP_STATE, 0))
		abort();
	a.qp_state = IBV_QPS_RTS;
	if (hca_v_qp_modify(&v, qp[i], &a, IBV_QP_STATE | IBV_QP_SQ_PSN, 0))
		abort();
}

/* One receive WR of 256 bytes in the MR at slot i */
static void
post_recv(unsigned int i)
{
	struct mpd_v_qp_shm *s = shm[i];
	uint32_t pi = s->rq_pi;
	struct mpd_v_rwqe *w = (struct mpd_v_rwqe *)((uint8_t *)s +
			hdr[i].rq_off + (pi % hdr[i].rq_wqes) * hdr[i].rq_stride);

	w->wr_id = 100 + i;
	w->num_sge = 1;
	w->sg[0] = (struct mpd_v_sge){ .addr = 0x10000 + i * 1024,
				       .length = 256, .lkey = mr.key };
	__atomic_store_n(&s->rq_pi, pi + 1, __ATOMIC_RELEASE);
}

static void
mc_packet(struct mpd_pkt *pk, const uint8_t *dgid, uint16_t dlid,
	  uint32_t qkey, uint16_t pkey)
{
	static const uint8_t payload[] = "hello, group";

	memset(pk, 0, sizeof(*pk));
	pk->link = MPD_LINK_IB;
	pk->lrh.dlid = dlid;
	pk->lrh.slid = 7;
	if (dgid) {
		pk->has_grh = true;
		pk->grh.ip_ver = 6;
		pk->grh.next_hdr = MPD_GRH_NEXT_HDR_IBA;
		memcpy(pk->grh.dgid, dgid, 16);
	}
	pk->bth.opcode = MPD_OP_UD_SEND_ONLY;
	pk->bth.dest_qp = MPD_QPN_MCAST;
	pk->bth.pkey = pkey;
	pk->deth.qkey = qkey;
	pk->deth.src_qp = 0x77;
	pk->payload = payload;
	pk->payload_len = sizeof(payload);
}

/* Completions written since *seen, as a bit per QP index */
static unsigned int
got(uint32_t *seen)
{
	unsigned int bits = 0, i;

	for (; *seen != cq.pi; (*seen)++) {
		const struct mpd_v_cqe *e = &cq.cqe[*seen % cq.ncqe];

		for (i = 0; i < NQP; i++)
			if (qp[i] && e->qp_num == hca_v_qp_num(qp[i]) &&
			    e->status == IBV_WC_SUCCESS &&
			    e->byte_len == 40 + 13)
				bits |= 1u << i;
	}
	return bits;
}

static unsigned int
deliver(const struct mpd_pkt *pk, uint32_t *seen)
{
	struct hca_v_out out = { .room = 0 };
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (qp[i])
			post_recv(i);
	hca_verbs_input(&v, pk, 1000, &out);
	return got(seen);
}

static void
setup(void)
{
	unsigned int i;

	memset(&port, 0, sizeof(port));
	port.link = MPD_LINK_IB;
	port.port_num = 1;
	port.lid = 1;
	port.neighbor_mtu = 3;
	port.pkeys[0] = 0xffff;
	hca_verbs_init(&v, &port);
	owner = (struct hca_v_owner){ .ops = &owner_ops, .id = 1 };
	mr_buf = calloc(1, MR_LEN);
	mr = (struct hca_v_mr){ .owner = &owner, .pd = 1,
				.access = IBV_ACCESS_LOCAL_WRITE,
				.iova = 0x10000, .length = MR_LEN,
				.base = mr_buf };
	if (!mr_buf || hca_v_mr_add(&v, &mr))
		abort();
	cq_shm = calloc(1, 256 + 256 * sizeof(struct mpd_v_cqe));
	hca_v_cq_init(&cq, cq_shm, 256 + 256 * sizeof(struct mpd_v_cqe), 256);
	cq.owner = &owner;
	for (i = 0; i < NQP; i++)
		make_qp(i, i < 3 ? IBV_QPT_UD : IBV_QPT_RC);
	for (i = 0; i < 3; i++)
		to_rts(i);
}

int
main(void)
{
	uint8_t ugid[16] = { 0xfe, 0x80 }, g2[16];
	struct mpd_pkt pk;
	uint32_t seen = 0;
	unsigned int i, n;

	setup();
	/* what ib_attach_mcast() refuses */
	is_int(hca_v_mcast_attach(&v, qp[3], mgid, MLID), EINVAL,
	       "attach an RC QP: EINVAL");
	is_int(hca_v_mcast_attach(&v, qp[0], ugid, MLID), EINVAL,
	       "attach to a unicast GID: EINVAL");
	is_int(hca_v_mcast_attach(&v, qp[0], mgid, 0x0005), EINVAL,
	       "attach to a unicast LID: EINVAL");
	is_int(hca_v_mcast_attach(&v, qp[0], mgid, 0xffff), EINVAL,
	       "attach to the permissive LID: EINVAL");
	is_int(hca_v_mcast_detach(&v, qp[0], mgid, MLID), EINVAL,
	       "detach what is not attached: EINVAL");
	is_int(hca_v_mcast_attach(&v, qp[0], mgid, MLID), 0, "attach QP 0: 0");
	is_int(hca_v_mcast_attach(&v, qp[0], mgid, MLID), 0,
	       "attach QP 0 again: 0 (ib_uverbs' rule)");
	is_int(hca_v_mcast_attach(&v, qp[1], mgid, MLID), 0, "attach QP 1: 0");

	/* a copy to each attached QP, none to QP 2 */
	mc_packet(&pk, mgid, MLID, QKEY, 0xffff);
	is_int(deliver(&pk, &seen), 0x3,
	       "a packet to the group (GRH): QPs 0 and 1 complete, not 2");
	ok(cq.cqe[(seen - 1) % cq.ncqe].src_qp == 0x77 &&
	   cq.cqe[(seen - 1) % cq.ncqe].wc_flags & IBV_WC_GRH &&
	   !memcmp(mr_buf + 1024 + 24, mgid, 16) &&
	   !memcmp(mr_buf + 1024 + 40, "hello, group", 13),
	   "the copy: source QP, the GRH with the MGID, then the payload");
	mc_packet(&pk, NULL, MLID, QKEY, 0xffff);
	is_int(deliver(&pk, &seen), 0x3,
	       "without a GRH, by the MLID alone: QPs 0 and 1");
	memcpy(g2, mgid, 16);
	g2[15] ^= 1;
	mc_packet(&pk, g2, MLID, QKEY, 0xffff);
	n = port.cnt.qp_no_qp;
	is_int(deliver(&pk, &seen), 0, "another MGID on the MLID: nobody");
	is_int(port.cnt.qp_no_qp, n + 1, "... counted as for no QP");
	mc_packet(&pk, mgid, MLID + 1, QKEY, 0xffff);
	is_int(deliver(&pk, &seen), 0, "another MLID: nobody");
	n = port.cnt.qkey_violations;
	mc_packet(&pk, mgid, MLID, QKEY + 1, 0xffff);
	is_int(deliver(&pk, &seen), 0, "a wrong Q_Key: nobody");
	is_int(port.cnt.qkey_violations, n + 2,
	       "... a Q_Key violation per attached QP");
	n = port.cnt.pkey_violations;
	mc_packet(&pk, mgid, MLID, QKEY, 0x0001);
	is_int(deliver(&pk, &seen), 0, "another partition's P_Key: nobody");
	is_int(port.cnt.pkey_violations, n + 2,
	       "... a P_Key violation per attached QP");

	/* unicast to QP 2: its partition's P_Key only (IBA 10.9.3) */
	mc_packet(&pk, NULL, 1, QKEY, 0xffff);
	pk.bth.dest_qp = hca_v_qp_num(qp[2]);
	is_int(deliver(&pk, &seen), 0x4, "unicast UD to QP 2 with its P_Key: QP 2");
	n = port.cnt.pkey_violations;
	pk.bth.pkey = 0x0001;
	is_int(deliver(&pk, &seen), 0, "unicast UD with another partition's P_Key: nobody");
	is_int(port.cnt.pkey_violations, n + 1, "... a P_Key violation");
	pk.bth.pkey = 0x7fff;
	is_int(deliver(&pk, &seen), 0x4,
	       "a limited member's P_Key (0x7fff) to the full member's QP: taken");

	is_int(hca_v_mcast_detach(&v, qp[1], mgid, MLID), 0, "detach QP 1: 0");
	mc_packet(&pk, mgid, MLID, QKEY, 0xffff);
	is_int(deliver(&pk, &seen), 0x1, "after the detach: QP 0 only");
	hca_v_qp_remove(&v, qp[0]);
	hca_v_qp_free(qp[0]);
	qp[0] = NULL;
	n = port.cnt.qp_no_qp;
	is_int(deliver(&pk, &seen), 0, "QP 0 destroyed: the group is gone");
	is_int(port.cnt.qp_no_qp, n + 1, "... counted as for no QP");

	/* the port's table: MPD_V_MAX_MCAST_GRP groups */
	for (i = 0, n = 0; i < MPD_V_MAX_MCAST_GRP; i++) {
		g2[15] = (uint8_t)i;
		n += hca_v_mcast_attach(&v, qp[1], g2, MLID) == 0;
	}
	is_int(n, MPD_V_MAX_MCAST_GRP, "%d groups attached", n);
	g2[14] ^= 0xff;
	is_int(hca_v_mcast_attach(&v, qp[1], g2, MLID), ENOMEM,
	       "one group more: ENOMEM");
	for (i = 1; i < NQP; i++) {
		hca_v_qp_remove(&v, qp[i]);
		hca_v_qp_free(qp[i]);
	}
	for (i = 0, n = 0; i < MPD_V_MAX_MCAST_GRP; i++)
		n += v.mcg[i].nqps;
	is_int(n, 0, "every QP destroyed: no group left");
	hca_v_mr_remove(&v, &mr);
	free(mr_buf);
	free(cq_shm);
	return tap_done();
}
