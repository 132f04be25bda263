/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CM message layouts (IBA 12.6, 12.8, 12.11): golden bytes written out by
 * hand from the IBA tables (offsets from the first byte of the CM data,
 * MAD byte 24), random round trips, reserved bits, every error path,
 * layout sanity, private data sizes, and the MAD framing.
 */
#include <stdio.h>
#include <string.h>

#include <infiniband/umad_cm.h>
#include <infiniband/umad_types.h>

#include "madpmd/cm.h"
#include "madpmd/mad.h"
#include "madpmd/wire.h"
#include "layout_check.h"
#include "tap.h"

#define ITERS 200

struct msg {
	const struct mpd_layout *l;
	size_t size;		/* sizeof the host struct */
	uint16_t attr_id;
	uint16_t pdata_len;	/* IBA private data bytes */
	uint16_t rdma_core_id;
};

static const struct msg msgs[] = {
	{ &mpd_cm_req_layout, sizeof(struct mpd_cm_req), MPD_ATTR_CM_REQ,
	  92, UMAD_CM_ATTR_REQ },
	{ &mpd_cm_mra_layout, sizeof(struct mpd_cm_mra), MPD_ATTR_CM_MRA,
	  222, UMAD_CM_ATTR_MRA },
	{ &mpd_cm_rej_layout, sizeof(struct mpd_cm_rej), MPD_ATTR_CM_REJ,
	  148, UMAD_CM_ATTR_REJ },
	{ &mpd_cm_rep_layout, sizeof(struct mpd_cm_rep), MPD_ATTR_CM_REP,
	  196, UMAD_CM_ATTR_REP },
	{ &mpd_cm_rtu_layout, sizeof(struct mpd_cm_rtu), MPD_ATTR_CM_RTU,
	  224, UMAD_CM_ATTR_RTU },
	{ &mpd_cm_dreq_layout, sizeof(struct mpd_cm_dreq), MPD_ATTR_CM_DREQ,
	  220, UMAD_CM_ATTR_DREQ },
	{ &mpd_cm_drep_layout, sizeof(struct mpd_cm_drep), MPD_ATTR_CM_DREP,
	  224, UMAD_CM_ATTR_DREP },
	{ &mpd_cm_sidr_req_layout, sizeof(struct mpd_cm_sidr_req),
	  MPD_ATTR_CM_SIDR_REQ, 216, UMAD_CM_ATTR_SIDR_REQ },
	{ &mpd_cm_sidr_rep_layout, sizeof(struct mpd_cm_sidr_rep),
	  MPD_ATTR_CM_SIDR_REP, 136, UMAD_CM_ATTR_SIDR_REP },
	{ &mpd_cm_lap_layout, sizeof(struct mpd_cm_lap), MPD_ATTR_CM_LAP,
	  168, UMAD_CM_ATTR_LAP },
	{ &mpd_cm_apr_layout, sizeof(struct mpd_cm_apr), MPD_ATTR_CM_APR,
	  148, UMAD_CM_ATTR_APR },
};

/* Private data is the last thing in every message, of the IBA size. */
static void
check_private_data(const struct msg *m)
{
	const struct mpd_field *f = mpd_layout_find(m->l, "private_data");

	ok(f && f->kind == MPD_FK_BYTES && f->bits / 8 == m->pdata_len &&
	   f->bit_off / 8 + m->pdata_len == MPD_CM_DATA_LEN,
	   "%s: %u bytes of private data at byte %u", m->l->name,
	   m->pdata_len, f ? f->bit_off / 8 : 0);
}

/* The message inside a CM MAD: class 0x07 version 2, data at byte 24. */
static void
check_mad(const struct msg *m)
{
	uint8_t obj[1024] = { 0 }, data[MPD_CM_DATA_LEN], mad[MPD_MAD_LEN];
	uint8_t back[1024] = { 0 };
	struct mpd_mad h, d;
	int rc;

	lc_random_fill(m->l, obj);
	mpd_layout_encode(m->l, obj, data, sizeof(data));
	memset(&h, 0, sizeof(h));
	h.hdr.base_version = MPD_BASE_VERSION;
	h.hdr.mgmt_class = MPD_CLASS_CM;
	h.hdr.class_version = MPD_CM_CLASS_VERSION;
	h.hdr.method = MPD_METHOD_SEND;
	h.hdr.tid = rnd64();
	h.hdr.attr_id = m->attr_id;
	rc = mpd_mad_encode(&h, data, sizeof(data), mad, sizeof(mad));
	ok(rc == MPD_MAD_LEN && mad[1] == 0x07 && mad[2] == 2 &&
	   memcmp(mad + 24, data, sizeof(data)) == 0 &&
	   mpd_mad_decode(mad, sizeof(mad), &d) == MPD_MAD_LEN &&
	   d.data_off == MPD_CM_DATA_OFF && d.data_len == MPD_CM_DATA_LEN &&
	   !d.has_rmpp && d.hdr.attr_id == m->attr_id &&
	   mpd_layout_decode(m->l, mad + d.data_off, d.data_len, back) ==
		   MPD_CM_DATA_LEN &&
	   memcmp(obj, back, m->size) == 0,
	   "%s: carried in a CM MAD at byte %u and back", m->l->name,
	   MPD_CM_DATA_OFF);
	is_int(m->attr_id, m->rdma_core_id,
	       "%s: attribute ID 0x%04x as in umad_cm.h", m->l->name,
	       m->attr_id);
}

/* n bytes of v + i at both obj and wire */
static void
pattern(uint8_t *obj, uint8_t *wire, uint8_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		obj[i] = (uint8_t)(v + i);
		wire[i] = (uint8_t)(v + i);
	}
}

static void
golden_req(void)
{
	struct mpd_cm_req r;
	uint8_t want[MPD_CM_DATA_LEN] = { 0 };

	memset(&r, 0, sizeof(r));
	r.local_comm_id = 0x11223344u;
	r.vendor_id = 0x0002c9;
	r.service_id = 0x1122334455667788ull;
	r.local_ca_guid = 0x0002c90300abcdefull;
	r.local_qkey = 0x80010000u;
	r.local_qpn = 0x123456;
	r.resp_resources = 4;
	r.local_eecn = 0xabcdef;
	r.initiator_depth = 8;
	r.remote_eecn = 1;
	r.remote_cm_resp_timeout = 20;
	r.transport_type = MPD_CM_TRANSPORT_UC;
	r.e2e_flow_ctrl = 1;
	r.starting_psn = 0xfedcba;
	r.local_cm_resp_timeout = 17;
	r.retry_count = 7;
	r.pkey = 0xffff;
	r.path_mtu = 5;
	r.rdc_exists = 1;
	r.rnr_retry_count = 6;
	r.max_cm_retries = 15;
	r.srq = 1;
	r.primary.local_lid = 0x0101;
	r.primary.remote_lid = 0x0202;
	r.primary.flow_label = 0x54321;
	r.primary.packet_rate = 0x0a;
	r.primary.tclass = 0x33;
	r.primary.hop_limit = 0x44;
	r.primary.sl = 9;
	r.primary.subnet_local = 1;
	r.primary.local_ack_timeout = 0x1f;
	r.alternate.local_lid = 0x0303;
	r.alternate.remote_lid = 0x0404;
	r.alternate.flow_label = 0xfffff;
	r.alternate.packet_rate = 0x3f;
	r.alternate.tclass = 0x55;
	r.alternate.hop_limit = 0x66;
	r.alternate.sl = 3;
	r.alternate.local_ack_timeout = 1;
	r.sap_supported = 1;

	/* IBA 12.6.5, byte offsets from the start of the CM data */
	lc_put_be(want + 0, 0x11223344u, 4);		/* Local Communication ID */
	lc_put_be(want + 5, 0x0002c9, 3);		/* Vendor ID */
	lc_put_be(want + 8, 0x1122334455667788ull, 8);	/* ServiceID */
	lc_put_be(want + 16, 0x0002c90300abcdefull, 8);	/* Local CA GUID */
	lc_put_be(want + 28, 0x80010000u, 4);		/* Local Q_Key */
	lc_put_be(want + 32, 0x12345604u, 4);		/* QPN, Resp. Resources */
	lc_put_be(want + 36, 0xabcdef08u, 4);		/* EECN, Initiator Depth */
	lc_put_be(want + 40, 0x000001u, 3);		/* Remote EECN */
	want[43] = 20 << 3 | 1 << 1 | 1;	/* timeout, UC, E2E */
	lc_put_be(want + 44, 0xfedcba, 3);		/* Starting PSN */
	want[47] = 17 << 3 | 7;			/* timeout, Retry Count */
	lc_put_be(want + 48, 0xffff, 2);		/* P_Key */
	want[50] = 5 << 4 | 1 << 3 | 6;		/* MTU, RDC, RNR retry */
	want[51] = 15 << 4 | 1 << 3;		/* Max CM Retries, SRQ */
	lc_put_be(want + 52, 0x0101, 2);		/* Primary Local LID */
	lc_put_be(want + 54, 0x0202, 2);		/* Primary Remote LID */
	pattern(r.primary.local_gid, want + 56, 0xa0, 16);
	pattern(r.primary.remote_gid, want + 72, 0xb0, 16);
	lc_put_be(want + 88, 0x54321u << 12 | 0x0a, 4);	/* Flow Label, Rate */
	want[92] = 0x33;			/* Traffic Class */
	want[93] = 0x44;			/* Hop Limit */
	want[94] = 9 << 4 | 1 << 3;		/* SL, Subnet Local */
	want[95] = 0x1f << 3;			/* Local ACK Timeout */
	lc_put_be(want + 96, 0x0303, 2);		/* Alternate Local LID */
	lc_put_be(want + 98, 0x0404, 2);
	pattern(r.alternate.local_gid, want + 100, 0xc0, 16);
	pattern(r.alternate.remote_gid, want + 116, 0xd0, 16);
	lc_put_be(want + 132, 0xfffffu << 12 | 0x3f, 4);
	want[136] = 0x55;
	want[137] = 0x66;
	want[138] = 3 << 4;
	want[139] = 1 << 3 | 1 << 2;		/* ACK Timeout, SAP */
	pattern(r.private_data, want + 140, 0x01, MPD_CM_REQ_PDATA_LEN);
	lc_golden("REQ", &mpd_cm_req_layout, &r, want, sizeof(want));
	is_int(mpd_get_be32(want), r.local_comm_id,
	       "REQ Local Communication ID at byte 0 of the CM data");
}

static void
golden_rep(void)
{
	struct mpd_cm_rep r;
	uint8_t want[MPD_CM_DATA_LEN] = { 0 };

	memset(&r, 0, sizeof(r));
	r.local_comm_id = 0x01020304u;
	r.remote_comm_id = 0x05060708u;
	r.local_qkey = 0x11111111u;
	r.local_qpn = 0x000abc;
	r.vendor_id_hi = 0x00;
	r.local_eecn = 0x000def;
	r.vendor_id_mid = 0x02;
	r.starting_psn = 0x123456;
	r.vendor_id_lo = 0xc9;
	r.resp_resources = 0x10;
	r.initiator_depth = 0x20;
	r.target_ack_delay = 0x1f;
	r.failover_accepted = 2;
	r.e2e_flow_ctrl = 1;
	r.rnr_retry_count = 5;
	r.srq = 1;
	r.local_ca_guid = 0x0002c903000000ffull;

	/* IBA 12.6.8 */
	lc_put_be(want + 0, 0x01020304u, 4);
	lc_put_be(want + 4, 0x05060708u, 4);
	lc_put_be(want + 8, 0x11111111u, 4);
	lc_put_be(want + 12, 0x000abc00u, 4);		/* QPN, VendorID[23:16] */
	lc_put_be(want + 16, 0x000def02u, 4);		/* EECN, VendorID[15:8] */
	lc_put_be(want + 20, 0x123456c9u, 4);		/* PSN, VendorID[7:0] */
	want[24] = 0x10;
	want[25] = 0x20;
	want[26] = 0x1f << 3 | 2 << 1 | 1;	/* ACK delay, failover, E2E */
	want[27] = 5 << 5 | 1 << 4;		/* RNR retry, SRQ */
	lc_put_be(want + 28, 0x0002c903000000ffull, 8);
	pattern(r.private_data, want + 36, 0x40, MPD_CM_REP_PDATA_LEN);
	lc_golden("REP", &mpd_cm_rep_layout, &r, want, sizeof(want));
}

static void
golden_small(void)
{
	uint8_t want[MPD_CM_DATA_LEN];
	struct mpd_cm_mra mra;
	struct mpd_cm_rej rej;
	struct mpd_cm_rtu rtu;
	struct mpd_cm_dreq dreq;
	struct mpd_cm_drep drep;

	/* IBA 12.6.6 MRA */
	memset(&mra, 0, sizeof(mra));
	memset(want, 0, sizeof(want));
	mra.local_comm_id = 0xa1a2a3a4u;
	mra.remote_comm_id = 0xb1b2b3b4u;
	mra.msg_mraed = MPD_CM_MSG_REP;
	mra.service_timeout = 0x13;
	lc_put_be(want + 0, 0xa1a2a3a4u, 4);
	lc_put_be(want + 4, 0xb1b2b3b4u, 4);
	want[8] = 1 << 6;
	want[9] = 0x13 << 3;
	pattern(mra.private_data, want + 10, 0x80, MPD_CM_MRA_PDATA_LEN);
	lc_golden("MRA", &mpd_cm_mra_layout, &mra, want, sizeof(want));

	/* IBA 12.6.7 REJ */
	memset(&rej, 0, sizeof(rej));
	memset(want, 0, sizeof(want));
	rej.local_comm_id = 1;
	rej.remote_comm_id = 2;
	rej.msg_rejected = MPD_CM_MSG_LAP;
	rej.reject_info_len = 72;
	rej.reason = 28;
	lc_put_be(want + 0, 1, 4);
	lc_put_be(want + 4, 2, 4);
	want[8] = 2 << 6;
	want[9] = 72 << 1;
	lc_put_be(want + 10, 28, 2);
	pattern(rej.ari, want + 12, 0x20, MPD_CM_ARI_LEN);
	pattern(rej.private_data, want + 84, 0x90, MPD_CM_REJ_PDATA_LEN);
	lc_golden("REJ", &mpd_cm_rej_layout, &rej, want, sizeof(want));

	/* IBA 12.6.9 RTU */
	memset(&rtu, 0, sizeof(rtu));
	memset(want, 0, sizeof(want));
	rtu.local_comm_id = 0xdeadbeefu;
	rtu.remote_comm_id = 0xfeedfaceu;
	lc_put_be(want + 0, 0xdeadbeefu, 4);
	lc_put_be(want + 4, 0xfeedfaceu, 4);
	pattern(rtu.private_data, want + 8, 0x11, MPD_CM_RTU_PDATA_LEN);
	lc_golden("RTU", &mpd_cm_rtu_layout, &rtu, want, sizeof(want));

	/* IBA 12.6.10 DREQ */
	memset(&dreq, 0, sizeof(dreq));
	memset(want, 0, sizeof(want));
	dreq.local_comm_id = 3;
	dreq.remote_comm_id = 4;
	dreq.remote_qpn_eecn = 0x00abcd;
	lc_put_be(want + 0, 3, 4);
	lc_put_be(want + 4, 4, 4);
	lc_put_be(want + 8, 0x00abcd, 3);
	pattern(dreq.private_data, want + 12, 0x22, MPD_CM_DREQ_PDATA_LEN);
	lc_golden("DREQ", &mpd_cm_dreq_layout, &dreq, want, sizeof(want));

	/* IBA 12.6.11 DREP */
	memset(&drep, 0, sizeof(drep));
	memset(want, 0, sizeof(want));
	drep.local_comm_id = 5;
	drep.remote_comm_id = 6;
	lc_put_be(want + 0, 5, 4);
	lc_put_be(want + 4, 6, 4);
	pattern(drep.private_data, want + 8, 0x33, MPD_CM_DREP_PDATA_LEN);
	lc_golden("DREP", &mpd_cm_drep_layout, &drep, want, sizeof(want));
}

static void
golden_lap_apr(void)
{
	uint8_t want[MPD_CM_DATA_LEN];
	struct mpd_cm_lap lap;
	struct mpd_cm_apr apr;

	/* IBA 12.8.1 LAP */
	memset(&lap, 0, sizeof(lap));
	memset(want, 0, sizeof(want));
	lap.local_comm_id = 0x10101010u;
	lap.remote_comm_id = 0x20202020u;
	lap.remote_qpn_eecn = 0x123456;
	lap.remote_cm_resp_timeout = 0x17;
	lap.alternate.local_lid = 0x0505;
	lap.alternate.remote_lid = 0x0606;
	lap.alternate.flow_label = 0xabcde;
	lap.alternate.tclass = 0x77;
	lap.alternate.hop_limit = 0x88;
	lap.alternate.packet_rate = 0x2a;
	lap.alternate.sl = 0xc;
	lap.alternate.subnet_local = 1;
	lap.alternate.local_ack_timeout = 0x0b;
	lc_put_be(want + 0, 0x10101010u, 4);
	lc_put_be(want + 4, 0x20202020u, 4);
	lc_put_be(want + 12, 0x123456, 3);		/* Remote QPN/EECN */
	want[15] = 0x17 << 3;			/* Remote CM Resp. Timeout */
	lc_put_be(want + 20, 0x0505, 2);
	lc_put_be(want + 22, 0x0606, 2);
	pattern(lap.alternate.local_gid, want + 24, 0x50, 16);
	pattern(lap.alternate.remote_gid, want + 40, 0x60, 16);
	lc_put_be(want + 56, 0xabcde0, 3);		/* Flow Label, 4 reserved */
	want[59] = 0x77;			/* Traffic Class */
	want[60] = 0x88;			/* Hop Limit */
	want[61] = 0x2a;			/* 2 reserved, Packet Rate */
	want[62] = 0xc << 4 | 1 << 3;		/* SL, Subnet Local */
	want[63] = 0x0b << 3;			/* Local ACK Timeout */
	pattern(lap.private_data, want + 64, 0x70, MPD_CM_LAP_PDATA_LEN);
	lc_golden("LAP", &mpd_cm_lap_layout, &lap, want, sizeof(want));

	/* IBA 12.8.2 APR */
	memset(&apr, 0, sizeof(apr));
	memset(want, 0, sizeof(want));
	apr.local_comm_id = 7;
	apr.remote_comm_id = 8;
	apr.add_info_len = 72;
	apr.ap_status = 3;
	lc_put_be(want + 0, 7, 4);
	lc_put_be(want + 4, 8, 4);
	want[8] = 72;
	want[9] = 3;
	pattern(apr.add_info, want + 12, 0x44, MPD_CM_ARI_LEN);
	pattern(apr.private_data, want + 84, 0x55, MPD_CM_APR_PDATA_LEN);
	lc_golden("APR", &mpd_cm_apr_layout, &apr, want, sizeof(want));
}

static void
golden_sidr(void)
{
	uint8_t want[MPD_CM_DATA_LEN];
	struct mpd_cm_sidr_req req;
	struct mpd_cm_sidr_rep rep;

	/* IBA 12.11.1 SIDR_REQ */
	memset(&req, 0, sizeof(req));
	memset(want, 0, sizeof(want));
	req.request_id = 0xcafef00du;
	req.pkey = 0x8001;
	req.service_id = 0x0000000001060012ull;
	lc_put_be(want + 0, 0xcafef00du, 4);
	lc_put_be(want + 4, 0x8001, 2);
	lc_put_be(want + 8, 0x0000000001060012ull, 8);
	pattern(req.private_data, want + 16, 0x66, MPD_CM_SIDR_REQ_PDATA_LEN);
	lc_golden("SIDR_REQ", &mpd_cm_sidr_req_layout, &req, want,
		  sizeof(want));

	/* IBA 12.11.2 SIDR_REP */
	memset(&rep, 0, sizeof(rep));
	memset(want, 0, sizeof(want));
	rep.request_id = 0xcafef00du;
	rep.status = MPD_CM_SIDR_REDIRECT;
	rep.add_info_len = 72;
	rep.vendor_id_hi = 0x0002;
	rep.qpn = 0x000123;
	rep.vendor_id_lo = 0xc9;
	rep.service_id = 0x0000000001060012ull;
	rep.qkey = 0x80010000u;
	lc_put_be(want + 0, 0xcafef00du, 4);
	want[4] = 4;
	want[5] = 72;
	lc_put_be(want + 6, 0x0002, 2);		/* VendorID[23:8] */
	lc_put_be(want + 8, 0x000123c9u, 4);		/* QPN, VendorID[7:0] */
	lc_put_be(want + 12, 0x0000000001060012ull, 8);
	lc_put_be(want + 20, 0x80010000u, 4);
	pattern(rep.class_port_info, want + 24, 0x77, MPD_CM_ARI_LEN);
	pattern(rep.private_data, want + 96, 0x88, MPD_CM_SIDR_REP_PDATA_LEN);
	lc_golden("SIDR_REP", &mpd_cm_sidr_rep_layout, &rep, want,
		  sizeof(want));
}

int
main(void)
{
	size_t i;

	tap_seed();
	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
		lc_check_layout(msgs[i].l, msgs[i].size);
		ok(msgs[i].l->wire_len == MPD_CM_DATA_LEN &&
		   MPD_CM_DATA_OFF + MPD_CM_DATA_LEN == MPD_MAD_LEN,
		   "%s: the %u bytes of CM data", msgs[i].l->name,
		   msgs[i].l->wire_len);
		check_private_data(&msgs[i]);
		lc_check_codec(msgs[i].l, msgs[i].size, ITERS);
		check_mad(&msgs[i]);
	}
	ok(MPD_CLASS_CM == UMAD_CLASS_CM, "CM class 0x07 as in umad_types.h");
	golden_req();
	golden_rep();
	golden_small();
	golden_lap_apr();
	golden_sidr();
	return tap_done();
}
