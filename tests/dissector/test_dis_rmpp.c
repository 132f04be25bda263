/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RMPP: SA GetTableResp messages of 3+ segments (PathRecords, NodeRecords)
 * over RoCEv2 and native IB are reassembled and EVERY record is shown with
 * its values; the same table as a umad record (the kernel's reassembled
 * form); a missing segment and an incomplete message raise expert info;
 * ABORT and STOP raise expert info; ACKs decode. In a capture of every
 * port each end reassembles its own copies of the segments.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/mad.h"
#include "madpmd/pcapng.h"
#include "madpmd/records.h"
#include "madpmd/sa.h"
#include "dtest.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define SEG_DATA MPD_SA_DATA_LEN
#define MAX_SEGS 16

struct table {
	uint16_t attr_id;
	const struct mpd_layout *l;
	const char *prefix;
	size_t nrec;
	uint16_t ao;			/* AttributeOffset, 8-byte words */
	uint64_t obj[24][32];		/* host records */
	uint8_t data[MAX_SEGS * SEG_DATA];
	size_t len;
	uint64_t tid;
};

static void
make_table(struct table *t, uint16_t attr_id, const struct mpd_layout *l,
	   const char *prefix, size_t nrec)
{
	size_t r;

	memset(t, 0, sizeof(*t));
	t->attr_id = attr_id;
	t->l = l;
	t->prefix = prefix;
	t->nrec = nrec;
	t->ao = mpd_sa_attr_offset(l->wire_len);
	t->tid = rnd64();
	for (r = 0; r < nrec; r++) {
		dtest_fill_layout(l, t->obj[r]);
		mpd_layout_encode(l, t->obj[r], t->data + r * t->ao * 8u,
				  sizeof(t->data) - r * t->ao * 8u);
	}
	t->len = nrec * t->ao * 8u;
}

static void
sa_mad(struct mpd_mad *m, const struct table *t, uint8_t method)
{
	memset(m, 0, sizeof(*m));
	m->hdr.base_version = MPD_BASE_VERSION;
	m->hdr.mgmt_class = MPD_CLASS_SUBN_ADM;
	m->hdr.class_version = MPD_SA_CLASS_VERSION;
	m->hdr.method = method;
	m->hdr.tid = t->tid;
	m->hdr.attr_id = t->attr_id;
	m->rmpp.version = MPD_RMPP_VERSION;
	m->attr_offset = t->ao;
}

static size_t
nsegs(const struct table *t)
{
	return (t->len + SEG_DATA - 1) / SEG_DATA;
}

/* Segment i (1-based) of t's GetTableResp, as a 256-byte MAD. */
static void
segment(const struct table *t, size_t i, uint8_t *mad)
{
	size_t n = nsegs(t), off = (i - 1) * SEG_DATA;
	size_t dl = t->len - off < SEG_DATA ? t->len - off : SEG_DATA;
	struct mpd_mad m;

	sa_mad(&m, t, MPD_METHOD_GET_TABLE_RESP);
	m.rmpp.type = MPD_RMPP_TYPE_DATA;
	m.rmpp.resp_time = 0x1f;
	m.rmpp.flags = MPD_RMPP_FLAG_ACTIVE |
		       (i == 1 ? MPD_RMPP_FLAG_FIRST : 0) |
		       (i == n ? MPD_RMPP_FLAG_LAST : 0);
	m.rmpp.data1 = (uint32_t)i;
	/* PayloadLength: first segment, the whole message (an SA header per
	 * segment); last segment, its own part (IBA 13.6.2.3) */
	if (i == 1)
		m.rmpp.data2 = (uint32_t)(n * MPD_SA_HDR_LEN + t->len);
	else if (i == n)
		m.rmpp.data2 = (uint32_t)(MPD_SA_HDR_LEN + dl);
	mpd_mad_encode(&m, t->data + off, dl, mad, MPD_MAD_LEN);
}

/* native IB: whether this transfer's packets carry a GRH (all or none) */
static bool ib_grh;

static int
send_mad(struct oracle *o, const char *label, enum mpd_link link,
	 const uint8_t *mad, bool from_sa)
{
	struct mpd_pkt p;

	oracle_pkt_init(&p, link, 1, 1);
	if (link == MPD_LINK_IB)
		p.has_grh = ib_grh;
	if (link == MPD_LINK_IB && from_sa) {
		p.lrh.slid = 1;
		p.lrh.dlid = 7;
	} else if (link == MPD_LINK_IB) {
		p.lrh.slid = 7;
		p.lrh.dlid = 1;
	}
	/* fixed GIDs (GRH on IB and RoCEv1), so the endpoints stay put */
	p.grh.sgid[15] = from_sa ? 1 : 7;
	p.grh.dgid[15] = from_sa ? 7 : 1;
	memset(p.grh.sgid + 8, 0, 7);
	memset(p.grh.dgid + 8, 0, 7);
	if (link == MPD_LINK_ROCE_V2) {
		/* fixed endpoints, so request and response pair up */
		p.ip_ver = 4;
		memcpy(p.ip4.src, from_sa ? "\x0a\0\0\x01" : "\x0a\0\0\x07", 4);
		memcpy(p.ip4.dst, from_sa ? "\x0a\0\0\x07" : "\x0a\0\0\x01", 4);
	}
	return dtest_add_pkt(o, label, &p, mad, MPD_MAD_LEN, 0, -1, NULL,
			     NULL);
}

static void
expect_records(struct oracle *o, int fr, const struct table *t)
{
	size_t r;

	oracle_expect_uint(o, fr, "madpmd.sa.records", 0, t->nrec);
	for (r = 0; r < t->nrec; r++)
		dtest_expect_layout(o, fr, t->l, t->obj[r], t->prefix,
				    (unsigned int)r);
}

static void
table_over(struct oracle *o, enum mpd_link link, const char *lname,
	   struct table *t)
{
	uint8_t mad[MPD_MAD_LEN];
	int frames[MAX_SEGS + 1] = { 0 }, req;
	struct mpd_mad m;
	char label[96];
	size_t i, n = nsegs(t);

	ok(n >= 3, "%s %s table spans %zu segments", lname, t->l->name, n);
	ib_grh = !ib_grh;
	sa_mad(&m, t, MPD_METHOD_GET_TABLE);
	mpd_mad_encode(&m, NULL, 0, mad, sizeof(mad));
	snprintf(label, sizeof(label), "%s GetTable(%s)", lname, t->l->name);
	req = send_mad(o, label, link, mad, false);
	for (i = 1; i <= n; i++) {
		segment(t, i, mad);
		snprintf(label, sizeof(label), "%s GetTableResp(%s) seg %zu/%zu",
			 lname, t->l->name, i, n);
		frames[i] = send_mad(o, label, link, mad, true);
		oracle_expect_uint(o, frames[i], "madpmd.rmpp.segment", 0, i);
		oracle_expect_uint(o, frames[i], "madpmd.rmpp.type", 0,
				   MPD_RMPP_TYPE_DATA);
		oracle_expect_uint(o, frames[i], "madpmd.response_to", 0,
				   (uint64_t)req);
	}
	oracle_expect_uint(o, req, "madpmd.response_in", 0,
			   (uint64_t)frames[1]);
	for (i = 1; i < n; i++) {
		oracle_expect_uint(o, frames[i], "madpmd.rmpp.reassembled.in",
				   0, (uint64_t)frames[n]);
		oracle_expect_absent(o, frames[i], "madpmd.sa.records");
	}
	oracle_expect_uint(o, frames[n], "madpmd.rmpp.fragment.count", 0, n);
	oracle_expect_uint(o, frames[n], "madpmd.rmpp.reassembled.length", 0,
			   t->len);
	expect_records(o, frames[n], t);
}

/*
 * A capture of every port: each native IB segment shows at the SA's port
 * (outbound) and at the client's (inbound), interleaved as on a cable.
 * Each end reassembles its own copies: both last segments show the whole
 * table, and neither is "incomplete".
 */
static void
table_both_ends(struct oracle *o, struct table *t)
{
	struct mpd_pcapng *w = oracle_writer(o, NULL, NULL);
	int if_sa = mpd_pcapng_add_interface(w, MPD_LINKTYPE_UPPER_PDU,
					     "sa/1", NULL);
	int if_cl = mpd_pcapng_add_interface(w, MPD_LINKTYPE_UPPER_PDU,
					     "client/1", NULL);
	uint8_t mad[MPD_MAD_LEN], frame[512];
	size_t i, n = nsegs(t);
	char label[96];
	int end;

	if (!ok(if_sa >= 0 && if_cl >= 0, "two more interfaces: sa/1, client/1"))
		return;
	for (i = 1; i <= n; i++) {
		struct mpd_pkt p;
		int len, fr[2];

		segment(t, i, mad);
		oracle_pkt_init(&p, MPD_LINK_IB, 1, 1);
		p.has_grh = false;	/* LIDs: the same endpoints throughout */
		p.lrh.slid = 1;
		p.lrh.dlid = 7;
		len = mpd_pkt_encode(&p, mad, sizeof(mad), frame, sizeof(frame));
		for (end = 0; end < 2; end++) {
			mpd_pcapng_write_exported(w, (uint32_t)(end ? if_cl : if_sa),
				dtest_next_ts(1000), end ? MPD_PCAPNG_DIR_IN :
				MPD_PCAPNG_DIR_OUT, "madpmd_ib", MPD_EXP_PDU_NO_PORT,
				MPD_EXP_PDU_NO_PORT, frame, (size_t)len);
			snprintf(label, sizeof(label),
				 "both ends: seg %zu/%zu at the %s", i, n,
				 end ? "client (inbound)" : "SA (outbound)");
			fr[end] = oracle_add_written(o, label);
			oracle_expect_uint(o, fr[end], "madpmd.rmpp.segment", 0,
					   i);
			oracle_expect_absent(o, fr[end],
					     "madpmd.rmpp.incomplete");
			if (i == n)
				expect_records(o, fr[end], t);
			else
				oracle_expect_absent(o, fr[end],
						     "madpmd.sa.records");
		}
	}
}

/* The same table as umad_recv() returned it: one record. */
static void
table_as_umad(struct oracle *o, struct table *t)
{
	uint8_t msg[MPD_SA_HDR_END + sizeof(t->data)], mad[MPD_MAD_LEN];
	struct mpd_rec_hdr h = { .port = 1 };
	struct mpd_rec_umad u;
	uint32_t if_up;
	struct mpd_pcapng *w = oracle_writer(o, NULL, &if_up);
	int fr;

	segment(t, 1, mad);
	memcpy(msg, mad, MPD_SA_HDR_END);
	memcpy(msg + MPD_SA_HDR_END, t->data, t->len);
	memset(&u, 0, sizeof(u));
	u.direction = MPD_REC_UMAD_RECV;
	u.length = (uint32_t)(MPD_SA_HDR_END + t->len);
	u.qpn = 1;
	u.qkey = 0x80010000u;
	ok(mpd_rec_write_umad(w, if_up, dtest_next_ts(0), &h, &u, msg,
			      MPD_SA_HDR_END + t->len) == 0,
	   "umad record of the %s table written", t->l->name);
	fr = oracle_add_written(o, "umad GetTableResp message");
	expect_records(o, fr, t);
}

static void
missing_segment(struct oracle *o, enum mpd_link link)
{
	static struct table t;
	uint8_t mad[MPD_MAD_LEN];
	int f3, f4;

	make_table(&t, MPD_ATTR_SA_PATH_RECORD, &mpd_path_record_layout,
		   "madpmd.sa.pathrecord", 12);	/* 768 bytes: 4 segments */
	segment(&t, 1, mad);
	send_mad(o, "missing: seg 1", link, mad, true);
	segment(&t, 3, mad);
	f3 = send_mad(o, "missing: seg 3 (2 lost)", link, mad, true);
	segment(&t, 4, mad);
	f4 = send_mad(o, "missing: seg 4 (last)", link, mad, true);
	oracle_expect_uint(o, f3, "madpmd.rmpp.missing", 0, 1);
	oracle_expect_str(o, f3, "_ws.expert.message", 0,
			  "RMPP segment 2 missing (got 3)");
	oracle_expect_str(o, f4, "_ws.expert.message", 0,
			  "Last RMPP segment seen, message incomplete");
	oracle_expect_absent(o, f4, "madpmd.sa.records");
}

static void
abort_stop_ack(struct oracle *o, enum mpd_link link)
{
	static struct table t;
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_mad m;
	int fr;

	make_table(&t, MPD_ATTR_SA_PATH_RECORD, &mpd_path_record_layout,
		   "madpmd.sa.pathrecord", 1);
	sa_mad(&m, &t, MPD_METHOD_GET_TABLE_RESP);
	m.rmpp.type = MPD_RMPP_TYPE_ACK;
	m.rmpp.flags = MPD_RMPP_FLAG_ACTIVE;
	m.rmpp.data1 = 2;
	m.rmpp.data2 = 6;
	mpd_mad_encode(&m, NULL, 0, mad, sizeof(mad));
	fr = send_mad(o, "RMPP ACK", link, mad, false);
	oracle_expect_uint(o, fr, "madpmd.rmpp.type", 0, MPD_RMPP_TYPE_ACK);
	oracle_expect_uint(o, fr, "madpmd.rmpp.segment", 0, 2);
	oracle_expect_uint(o, fr, "madpmd.rmpp.newwindowlast", 0, 6);
	oracle_expect_absent(o, fr, "_ws.expert.message");

	m.rmpp.type = MPD_RMPP_TYPE_ABORT;
	m.rmpp.status = 126;
	m.rmpp.data1 = 0;
	m.rmpp.data2 = 0;
	mpd_mad_encode(&m, NULL, 0, mad, sizeof(mad));
	fr = send_mad(o, "RMPP ABORT", link, mad, false);
	oracle_expect_uint(o, fr, "madpmd.rmpp.type", 0, MPD_RMPP_TYPE_ABORT);
	oracle_expect_uint(o, fr, "madpmd.rmpp.status", 0, 126);
	oracle_expect_str(o, fr, "_ws.expert.message", 0,
			  "RMPP transfer aborted: Too many retries");

	m.rmpp.type = MPD_RMPP_TYPE_STOP;
	m.rmpp.status = 1;
	mpd_mad_encode(&m, NULL, 0, mad, sizeof(mad));
	fr = send_mad(o, "RMPP STOP", link, mad, false);
	oracle_expect_str(o, fr, "_ws.expert.message", 0,
			  "RMPP transfer stopped by the receiver: "
			  "Resources exhausted");
}

int
main(void)
{
	static const enum mpd_link links[] = {
		MPD_LINK_ROCE_V2, MPD_LINK_IB, MPD_LINK_ROCE_V1,
	};
	static const char *const names[] = { "RoCEv2", "IB", "RoCEv1" };
	static struct table paths, nodes;
	struct oracle *o;
	size_t l;

	if (!dtest_init("rmpp"))
		return 0;
	o = dtest_oracle("rmpp");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	/* two passes: "reassembled in" and "response in" point forward */
	oracle_add_tshark_arg(o, "-2");
	for (l = 0; l < N(links); l++) {
		/* 9..20 PathRecords (64 bytes): 3..7 segments */
		make_table(&paths, MPD_ATTR_SA_PATH_RECORD,
			   &mpd_path_record_layout, "madpmd.sa.pathrecord",
			   9 + rnd64() % 12);
		table_over(o, links[l], names[l], &paths);
		/* 6..14 NodeRecords (108 bytes, 112 apart): 4..8 segments */
		make_table(&nodes, MPD_ATTR_SA_NODE_RECORD,
			   &mpd_node_record_layout, "madpmd.sa.noderecord",
			   6 + rnd64() % 9);
		table_over(o, links[l], names[l], &nodes);
		missing_segment(o, links[l]);
		abort_stop_ack(o, links[l]);
	}
	make_table(&paths, MPD_ATTR_SA_PATH_RECORD, &mpd_path_record_layout,
		   "madpmd.sa.pathrecord", 9 + rnd64() % 12);
	table_both_ends(o, &paths);
	table_as_umad(o, &paths);
	table_as_umad(o, &nodes);
	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
