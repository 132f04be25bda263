/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IB CM connections as conversations in the plugin (madpmd-cm.c): every
 * CM MAD of a connection shows its number (madpmd.cm.conn), its state
 * after the message (madpmd.cm.state) and the frames of the other
 * messages (madpmd.cm.req_in ... drep_in); a message seen again on the
 * same interface is a repeat (madpmd.cm.repeat_of); a SIDR_REP points at
 * its SIDR_REQ; an rdma_cm event record points at the MAD that raised it
 * (madpmd.cmevent.frame). Frames are built with the wire codec; tshark
 * runs with -2, as the links are made in the first pass.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/cm.h"
#include "madpmd/pcapng.h"
#include "madpmd/records.h"
#include "madpmd/wire.h"
#include "dtest.h"
#include "tap.h"

#define SID_TCP(port)	(0x0000000001060000ull | (port))

/* states, as madpmd-cm.c numbers them */
enum {
	ST_REQ = 1, ST_MRA_REQ, ST_REP, ST_MRA_REP, ST_ESTABLISHED,
	ST_REJECTED, ST_DREQ, ST_CLOSED,
};

static struct mpd_pcapng *w;
static uint32_t if_eth, if_up;

static int
add_cm(struct oracle *o, const char *label, uint16_t attr_id,
       const struct mpd_layout *l, const void *msg)
{
	uint8_t data[MPD_CM_DATA_LEN], mad[MPD_MAD_LEN];
	struct mpd_mad m;
	struct mpd_pkt p;
	int rc;

	rc = mpd_layout_encode(l, msg, data, sizeof(data));
	if (!ok(rc == MPD_CM_DATA_LEN, "%s: encodes", label))
		return 0;
	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_CM;
	m.hdr.class_version = MPD_CM_CLASS_VERSION;
	m.hdr.method = MPD_METHOD_SEND;
	m.hdr.tid = 0x1000 + attr_id;
	m.hdr.attr_id = attr_id;
	rc = mpd_mad_encode(&m, data, sizeof(data), mad, sizeof(mad));
	if (!ok(rc == MPD_MAD_LEN, "%s: MAD encodes", label))
		return 0;
	oracle_pkt_init(&p, MPD_LINK_IB, 1, 1);
	return dtest_add_pkt(o, label, &p, mad, sizeof(mad), 0, -1, NULL, NULL);
}

/* The same, as madpmd's captures hold native IB by default: an exported
 * PDU naming the stock "infiniband" dissector (the plugin follows it) */
static int
add_cm_stock(struct oracle *o, const char *label, uint16_t attr_id,
	     const struct mpd_layout *l, const void *msg)
{
	uint8_t data[MPD_CM_DATA_LEN], mad[MPD_MAD_LEN], buf[512];
	struct mpd_mad m;
	struct mpd_pkt p;
	int n;

	if (!ok(mpd_layout_encode(l, msg, data, sizeof(data)) ==
		MPD_CM_DATA_LEN, "%s: encodes", label))
		return 0;
	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_CM;
	m.hdr.class_version = MPD_CM_CLASS_VERSION;
	m.hdr.method = MPD_METHOD_SEND;
	m.hdr.tid = 0x2000 + attr_id;
	m.hdr.attr_id = attr_id;
	if (!ok(mpd_mad_encode(&m, data, sizeof(data), mad, sizeof(mad)) ==
		MPD_MAD_LEN, "%s: MAD encodes", label))
		return 0;
	oracle_pkt_init(&p, MPD_LINK_IB, 1, 1);
	n = mpd_pkt_encode(&p, mad, sizeof(mad), buf, sizeof(buf));
	if (!ok(n > 0, "%s: packet encodes", label) ||
	    !ok(mpd_pcapng_write_exported(w, if_up, dtest_next_ts(0),
					  MPD_PCAPNG_DIR_IN, "infiniband",
					  MPD_EXP_PDU_NO_PORT,
					  MPD_EXP_PDU_NO_PORT, buf,
					  (size_t)n) == 0,
		"%s: written", label))
		return 0;
	return oracle_add_written(o, label);
}

static void
expect_conn(struct oracle *o, int fr, unsigned int conn, unsigned int state)
{
	if (!fr)
		return;
	oracle_expect_uint(o, fr, "madpmd.cm.conn", 0, conn);
	oracle_expect_uint(o, fr, "madpmd.cm.state", 0, state);
}

static int
add_event(struct oracle *o, const char *label, uint32_t event,
	  uint32_t local_id, uint32_t remote_id, int cause)
{
	struct mpd_rec_hdr h = { .port = 1, .node_id = 1 };
	struct mpd_rec_cm cm;
	static uint32_t seq;
	int fr;

	memset(&cm, 0, sizeof(cm));
	h.seq = seq++;
	cm.event = event;
	cm.id = 5;
	cm.local_comm_id = local_id;
	cm.remote_comm_id = remote_id;
	cm.service_id = SID_TCP(7174);
	if (!ok(mpd_rec_write_cm(w, if_up, dtest_next_ts(0), &h, &cm) == 0,
		"%s: written", label))
		return 0;
	fr = oracle_add_written(o, label);
	oracle_expect_uint(o, fr, "madpmd.cmevent.event", 0, event);
	if (cause)
		oracle_expect_uint(o, fr, "madpmd.cmevent.frame", 0,
				   (uint64_t)cause);
	else
		oracle_expect_absent(o, fr, "madpmd.cmevent.frame");
	return fr;
}

int
main(void)
{
	struct mpd_cm_req req;
	struct mpd_cm_rep rep;
	struct mpd_cm_rtu rtu;
	struct mpd_cm_mra mra;
	struct mpd_cm_rej rej;
	struct mpd_cm_dreq dreq;
	struct mpd_cm_drep drep;
	struct mpd_cm_sidr_req sreq;
	struct mpd_cm_sidr_rep srep;
	struct oracle *o;
	int f_req, f_rep, f_rep2, f_rtu, f_dreq, f_drep, f_req2, f_mra, f_rej;
	int f_sreq, f_srep;

	if (!dtest_init("cm"))
		return 0;
	o = dtest_oracle("cm");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	oracle_add_tshark_arg(o, "-2");
	w = oracle_writer(o, &if_eth, &if_up);

	/* connection 1: REQ, REP (and its retransmission), RTU, DREQ, DREP */
	memset(&req, 0, sizeof(req));
	req.local_comm_id = 0x1001;
	req.service_id = SID_TCP(7174);
	req.local_qpn = 0x41;
	f_req = add_cm(o, "conn 1 REQ", MPD_ATTR_CM_REQ, &mpd_cm_req_layout,
		       &req);
	memset(&rep, 0, sizeof(rep));
	rep.local_comm_id = 0x2002;
	rep.remote_comm_id = 0x1001;
	rep.local_qpn = 0x52;
	f_rep = add_cm(o, "conn 1 REP", MPD_ATTR_CM_REP, &mpd_cm_rep_layout,
		       &rep);
	f_rep2 = add_cm(o, "conn 1 REP again", MPD_ATTR_CM_REP,
			&mpd_cm_rep_layout, &rep);
	memset(&rtu, 0, sizeof(rtu));
	rtu.local_comm_id = 0x1001;
	rtu.remote_comm_id = 0x2002;
	f_rtu = add_cm(o, "conn 1 RTU", MPD_ATTR_CM_RTU, &mpd_cm_rtu_layout,
		       &rtu);
	add_event(o, "passive ESTABLISHED", 9, 0x2002, 0x1001, f_rtu);
	add_event(o, "active ESTABLISHED", 9, 0x1001, 0x2002, f_rep);
	add_event(o, "passive CONNECT_REQUEST", 4, 0x2002, 0x1001, f_req);
	memset(&dreq, 0, sizeof(dreq));
	dreq.local_comm_id = 0x2002;
	dreq.remote_comm_id = 0x1001;
	f_dreq = add_cm(o, "conn 1 DREQ from the passive side",
			MPD_ATTR_CM_DREQ, &mpd_cm_dreq_layout, &dreq);
	memset(&drep, 0, sizeof(drep));
	drep.local_comm_id = 0x1001;
	drep.remote_comm_id = 0x2002;
	f_drep = add_cm(o, "conn 1 DREP", MPD_ATTR_CM_DREP, &mpd_cm_drep_layout,
			&drep);
	add_event(o, "active DISCONNECTED (the DREQ's receiver)", 10, 0x1001,
		  0x2002, f_dreq);
	add_event(o, "passive DISCONNECTED (the DREQ's sender)", 10, 0x2002,
		  0x1001, f_drep);

	expect_conn(o, f_req, 1, ST_REQ);
	expect_conn(o, f_rep, 1, ST_REP);
	expect_conn(o, f_rep2, 1, ST_REP);
	expect_conn(o, f_rtu, 1, ST_ESTABLISHED);
	expect_conn(o, f_dreq, 1, ST_DREQ);
	expect_conn(o, f_drep, 1, ST_CLOSED);
	/* each message points at the others, not at itself */
	oracle_expect_uint(o, f_req, "madpmd.cm.rep_in", 0, (uint64_t)f_rep);
	oracle_expect_uint(o, f_req, "madpmd.cm.drep_in", 0, (uint64_t)f_drep);
	oracle_expect_absent(o, f_req, "madpmd.cm.req_in");
	oracle_expect_uint(o, f_drep, "madpmd.cm.req_in", 0, (uint64_t)f_req);
	oracle_expect_uint(o, f_drep, "madpmd.cm.rtu_in", 0, (uint64_t)f_rtu);
	oracle_expect_uint(o, f_drep, "madpmd.cm.dreq_in", 0, (uint64_t)f_dreq);
	oracle_expect_absent(o, f_rep, "madpmd.cm.repeat_of");
	oracle_expect_uint(o, f_rep2, "madpmd.cm.repeat_of", 0,
			   (uint64_t)f_rep);
	oracle_expect_str(o, f_rtu, "_ws.col.Info", 0,
			  "ComMgt Send(RTU) TID 0x0000000000001014 [conn 1: Established]");

	/* connection 2: REQ, MRA, then REJ (no listener: reason 8) */
	req.local_comm_id = 0x1003;
	f_req2 = add_cm(o, "conn 2 REQ", MPD_ATTR_CM_REQ, &mpd_cm_req_layout,
			&req);
	memset(&mra, 0, sizeof(mra));
	mra.local_comm_id = 0x2004;
	mra.remote_comm_id = 0x1003;
	mra.msg_mraed = MPD_CM_MSG_REQ;
	f_mra = add_cm(o, "conn 2 MRA", MPD_ATTR_CM_MRA, &mpd_cm_mra_layout,
		       &mra);
	memset(&rej, 0, sizeof(rej));
	rej.local_comm_id = 0x2004;
	rej.remote_comm_id = 0x1003;
	rej.msg_rejected = MPD_CM_MSG_REQ;
	rej.reason = 8;
	f_rej = add_cm(o, "conn 2 REJ", MPD_ATTR_CM_REJ, &mpd_cm_rej_layout,
		       &rej);
	add_event(o, "active REJECTED", 8, 0x1003, 0x2004, f_rej);
	expect_conn(o, f_req2, 2, ST_REQ);
	expect_conn(o, f_mra, 2, ST_MRA_REQ);
	expect_conn(o, f_rej, 2, ST_REJECTED);
	oracle_expect_uint(o, f_rej, "madpmd.cm.req_in", 0, (uint64_t)f_req2);
	oracle_expect_absent(o, f_rej, "madpmd.cm.rtu_in");

	/* SIDR: the reply points at its request */
	memset(&sreq, 0, sizeof(sreq));
	sreq.request_id = 0x77;
	sreq.service_id = 0x0000000001110000ull | 7174;
	f_sreq = add_cm(o, "SIDR_REQ", MPD_ATTR_CM_SIDR_REQ,
			&mpd_cm_sidr_req_layout, &sreq);
	memset(&srep, 0, sizeof(srep));
	srep.request_id = 0x77;
	srep.qpn = 0x99;
	f_srep = add_cm(o, "SIDR_REP", MPD_ATTR_CM_SIDR_REP,
			&mpd_cm_sidr_rep_layout, &srep);
	oracle_expect_uint(o, f_srep, "madpmd.cm.sidr_req_in", 0,
			   (uint64_t)f_sreq);
	oracle_expect_absent(o, f_sreq, "madpmd.cm.conn");

	/* native IB for the stock dissector: the plugin still follows */
	req.local_comm_id = 0x3001;
	f_req = add_cm_stock(o, "stock-exported REQ", MPD_ATTR_CM_REQ,
			     &mpd_cm_req_layout, &req);
	rep.local_comm_id = 0x4002;
	rep.remote_comm_id = 0x3001;
	f_rep = add_cm_stock(o, "stock-exported REP", MPD_ATTR_CM_REP,
			     &mpd_cm_rep_layout, &rep);
	rtu.local_comm_id = 0x3001;
	rtu.remote_comm_id = 0x4002;
	f_rtu = add_cm_stock(o, "stock-exported RTU", MPD_ATTR_CM_RTU,
			     &mpd_cm_rtu_layout, &rtu);
	add_event(o, "stock: passive ESTABLISHED", 9, 0x4002, 0x3001, f_rtu);
	expect_conn(o, f_req, 3, ST_REQ);
	expect_conn(o, f_rep, 3, ST_REP);
	expect_conn(o, f_rtu, 3, ST_ESTABLISHED);
	oracle_expect_uint(o, f_rtu, "madpmd.cm.req_in", 0, (uint64_t)f_req);
	/* madpmd.decode_ib (the default) decodes the stock-exported MAD
	 * beside the stock dissector: Info is madpmd's, with the state */
	oracle_expect_str(o, f_rtu, "_ws.col.Info", 0,
			  "ComMgt Send(RTU) TID 0x0000000000002014 [conn 3: Established]");

	/* an event no MAD raised */
	add_event(o, "UNREACHABLE, nothing on the wire", 7, 0x5555, 0x6666, 0);

	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
