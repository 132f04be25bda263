/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture records (docs/capture-format.md), each kind written with the
 * records.c writers with random values: UMAD send and receive (with the
 * MAD decoded under it, and an ETIMEDOUT receive raising expert info), CQ
 * completions (with a PSN and without), CM events with private data, port
 * events, QP state changes. tshark with our plugin must show every field
 * with the value written.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "madpmd/records.h"
#include "dtest.h"
#include "tap.h"

static void
rnd_hdr(struct mpd_rec_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->port = (uint8_t)(1 + rnd_bits(7));
	h->node_id = (uint32_t)rnd64();
	h->seq = (uint32_t)rnd64();
}

static void
expect_hdr(struct oracle *o, int fr, const struct mpd_rec_hdr *h,
	   uint8_t kind, uint32_t body_len)
{
	oracle_expect_uint(o, fr, "madpmd.rec.magic", 0, MPD_REC_MAGIC);
	oracle_expect_uint(o, fr, "madpmd.rec.version", 0, MPD_REC_VERSION);
	oracle_expect_uint(o, fr, "madpmd.rec.kind", 0, kind);
	oracle_expect_uint(o, fr, "madpmd.rec.flags", 0, h->flags);
	oracle_expect_uint(o, fr, "madpmd.rec.hdrlen", 0, MPD_REC_HDR_LEN);
	oracle_expect_uint(o, fr, "madpmd.rec.port", 0, h->port);
	oracle_expect_uint(o, fr, "madpmd.rec.node", 0, h->node_id);
	oracle_expect_uint(o, fr, "madpmd.rec.seq", 0, h->seq);
	oracle_expect_uint(o, fr, "madpmd.rec.bodylen", 0, body_len);
}

static void
rnd_umad(struct mpd_rec_umad *u, uint8_t dir)
{
	memset(u, 0, sizeof(*u));
	u->direction = dir;
	u->pid = (uint32_t)rnd64();
	u->portid = (uint32_t)rnd_bits(16);
	u->agent_id = (uint32_t)rnd_bits(5);
	u->timeout_ms = (uint32_t)rnd_bits(16);
	u->retries = (uint32_t)rnd_bits(4);
	u->qpn = (uint32_t)rnd_bits(24);
	u->qkey = (uint32_t)rnd64();
	u->lid = (uint16_t)rnd64();
	u->sl = (uint8_t)rnd_bits(4);
	u->path_bits = (uint8_t)rnd_bits(7);
	u->grh_present = (uint8_t)rnd_bits(1);
	u->gid_index = (uint8_t)rnd64();
	u->hop_limit = (uint8_t)rnd64();
	u->traffic_class = (uint8_t)rnd64();
	rnd_bytes(u->gid, 16);
	u->gid[0] = 0xfe;
	u->flow_label = (uint32_t)rnd_bits(20);
	u->pkey_index = (uint16_t)rnd_bits(16);
}

static void
expect_umad(struct oracle *o, int fr, const struct mpd_rec_umad *u)
{
	oracle_expect_uint(o, fr, "madpmd.umad.direction", 0, u->direction);
	oracle_expect_uint(o, fr, "madpmd.umad.pid", 0, u->pid);
	oracle_expect_uint(o, fr, "madpmd.umad.portid", 0, u->portid);
	oracle_expect_uint(o, fr, "madpmd.umad.agentid", 0, u->agent_id);
	oracle_expect_uint(o, fr, "madpmd.umad.status", 0, u->status);
	oracle_expect_uint(o, fr, "madpmd.umad.timeout", 0, u->timeout_ms);
	oracle_expect_uint(o, fr, "madpmd.umad.retries", 0, u->retries);
	oracle_expect_uint(o, fr, "madpmd.umad.length", 0, u->length);
	oracle_expect_uint(o, fr, "madpmd.umad.qpn", 0, u->qpn);
	oracle_expect_uint(o, fr, "madpmd.umad.qkey", 0, u->qkey);
	oracle_expect_uint(o, fr, "madpmd.umad.lid", 0, u->lid);
	oracle_expect_uint(o, fr, "madpmd.umad.sl", 0, u->sl);
	oracle_expect_uint(o, fr, "madpmd.umad.pathbits", 0, u->path_bits);
	oracle_expect_uint(o, fr, "madpmd.umad.grh", 0, u->grh_present);
	oracle_expect_uint(o, fr, "madpmd.umad.gidindex", 0, u->gid_index);
	oracle_expect_uint(o, fr, "madpmd.umad.hoplimit", 0, u->hop_limit);
	oracle_expect_uint(o, fr, "madpmd.umad.tclass", 0, u->traffic_class);
	oracle_expect_gid(o, fr, "madpmd.umad.gid", 0, u->gid);
	oracle_expect_uint(o, fr, "madpmd.umad.flowlabel", 0, u->flow_label);
	oracle_expect_uint(o, fr, "madpmd.umad.pkeyindex", 0, u->pkey_index);
}

int
main(void)
{
	struct mpd_rec_hdr h;
	struct mpd_rec_umad u;
	struct mpd_rec_wc wc;
	struct mpd_rec_cm cm;
	struct mpd_rec_port pe;
	struct mpd_rec_qp q;
	struct mpd_port_counters pc;
	struct mpd_mad m;
	struct mpd_pcapng *w;
	struct oracle *o;
	uint8_t mad[MPD_MAD_LEN], data[64], buf[512];
	uint32_t if_up;
	int fr, rc, i;

	if (!dtest_init("records"))
		return 0;
	o = dtest_oracle("records");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	w = oracle_writer(o, NULL, &if_up);

	/* UMAD send: a PerfMgt Get(PortCounters) */
	memset(&pc, 0, sizeof(pc));
	dtest_fill_layout(&mpd_port_counters_layout, &pc);
	rc = mpd_layout_encode(&mpd_port_counters_layout, &pc, data,
			       sizeof(data));
	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_PERF;
	m.hdr.class_version = 1;
	m.hdr.method = MPD_METHOD_GET;
	m.hdr.tid = rnd64();
	m.hdr.attr_id = MPD_ATTR_PERF_PORT_COUNTERS;
	ok(rc > 0 && mpd_mad_encode(&m, data, (size_t)rc, mad, sizeof(mad)) ==
	   MPD_MAD_LEN, "PortCounters MAD encodes");
	for (i = 0; i < 2; i++) {
		rnd_hdr(&h);
		rnd_umad(&u, (uint8_t)i);
		u.length = MPD_MAD_LEN;
		rc = mpd_rec_write_umad(w, if_up, dtest_next_ts(0), &h, &u,
					mad, sizeof(mad));
		ok(rc == 0, "UMAD %s record written",
		   i ? "receive" : "send");
		fr = oracle_add_written(o, i ? "UMAD recv" : "UMAD send");
		expect_hdr(o, fr, &h, MPD_REC_UMAD,
			   MPD_REC_UMAD_FIXED + MPD_REC_UMAD_HDR_LEN +
			   MPD_MAD_LEN);
		expect_umad(o, fr, &u);
		dtest_expect_mad_hdr(o, fr, &m.hdr);
		dtest_expect_layout(o, fr, &mpd_port_counters_layout, &pc,
				    "madpmd.perf.portcounters", 0);
		if (i)
			m.hdr.method = MPD_METHOD_GET_RESP;
	}

	/* UMAD receive of a timed-out send: status ETIMEDOUT, length 24,
	 * the request's MAD header only */
	rnd_hdr(&h);
	rnd_umad(&u, MPD_REC_UMAD_RECV);
	u.status = ETIMEDOUT;
	u.length = MPD_MAD_HDR_LEN;
	m.hdr.method = MPD_METHOD_GET;
	m.hdr.tid = rnd64();
	mpd_mad_encode(&m, NULL, 0, mad, sizeof(mad));
	rc = mpd_rec_write_umad(w, if_up, dtest_next_ts(0), &h, &u, mad,
				MPD_MAD_HDR_LEN);
	ok(rc == 0, "UMAD ETIMEDOUT record written");
	fr = oracle_add_written(o, "UMAD recv ETIMEDOUT");
	expect_umad(o, fr, &u);
	dtest_expect_mad_hdr(o, fr, &m.hdr);
	oracle_expect_str(o, fr, "_ws.expert.message", 0,
			  "umad send timed out (ETIMEDOUT): no response");

	/* CQ completion */
	rnd_hdr(&h);
	memset(&wc, 0, sizeof(wc));
	wc.cq_id = (uint32_t)rnd64();
	wc.qp_num = (uint32_t)rnd_bits(24);
	wc.wr_id = rnd64();
	wc.status = (uint32_t)(rnd64() % 24);
	wc.opcode = (rnd64() & 1) ? 128 : (uint32_t)rnd_bits(2);
	wc.vendor_err = (uint32_t)rnd64();
	wc.byte_len = (uint32_t)rnd64();
	wc.imm_data = (uint32_t)rnd64();
	wc.src_qp = (uint32_t)rnd_bits(24);
	wc.wc_flags = (uint32_t)rnd_bits(4);
	wc.pkey_index = (uint16_t)rnd64();
	wc.slid = (uint16_t)rnd64();
	wc.sl = (uint8_t)rnd_bits(4);
	wc.dlid_path_bits = (uint8_t)rnd_bits(7);
	wc.psn = (uint32_t)rnd_bits(24);
	ok(mpd_rec_write_wc(w, if_up, dtest_next_ts(0), &h, &wc) == 0,
	   "WC record written");
	fr = oracle_add_written(o, "CQ completion");
	oracle_expect_uint(o, fr, "madpmd.wc.psn", 0, wc.psn);
	/* no wire frames here: nothing to point at */
	oracle_expect_absent(o, fr, "madpmd.wc.frame");
	expect_hdr(o, fr, &h, MPD_REC_WC, MPD_REC_WC_LEN);
	oracle_expect_uint(o, fr, "madpmd.wc.cq", 0, wc.cq_id);
	oracle_expect_uint(o, fr, "madpmd.wc.qpnum", 0, wc.qp_num);
	oracle_expect_uint(o, fr, "madpmd.wc.wrid", 0, wc.wr_id);
	oracle_expect_uint(o, fr, "madpmd.wc.status", 0, wc.status);
	oracle_expect_uint(o, fr, "madpmd.wc.opcode", 0, wc.opcode);
	oracle_expect_uint(o, fr, "madpmd.wc.vendorerr", 0, wc.vendor_err);
	oracle_expect_uint(o, fr, "madpmd.wc.bytelen", 0, wc.byte_len);
	oracle_expect_uint(o, fr, "madpmd.wc.imm", 0, wc.imm_data);
	oracle_expect_uint(o, fr, "madpmd.wc.srcqp", 0, wc.src_qp);
	oracle_expect_uint(o, fr, "madpmd.wc.flags", 0, wc.wc_flags);
	oracle_expect_uint(o, fr, "madpmd.wc.flags.grh", 0, wc.wc_flags & 1);
	oracle_expect_uint(o, fr, "madpmd.wc.pkeyindex", 0, wc.pkey_index);
	oracle_expect_uint(o, fr, "madpmd.wc.slid", 0, wc.slid);
	oracle_expect_uint(o, fr, "madpmd.wc.sl", 0, wc.sl);
	oracle_expect_uint(o, fr, "madpmd.wc.dlidpathbits", 0,
			   wc.dlid_path_bits);

	/* CM event with private data */
	rnd_hdr(&h);
	memset(&cm, 0, sizeof(cm));
	cm.event = (uint32_t)(rnd64() % 16);
	cm.status = -(int32_t)rnd_bits(7);
	cm.id = (uint32_t)rnd64();
	cm.listen_id = (uint32_t)rnd64();
	cm.local_qpn = (uint32_t)rnd_bits(24);
	cm.remote_qpn = (uint32_t)rnd_bits(24);
	cm.local_comm_id = (uint32_t)rnd64();
	cm.remote_comm_id = (uint32_t)rnd64();
	cm.service_id = rnd64();
	cm.responder_resources = (uint8_t)rnd64();
	cm.initiator_depth = (uint8_t)rnd64();
	cm.retry_count = (uint8_t)rnd_bits(3);
	cm.rnr_retry_count = (uint8_t)rnd_bits(3);
	cm.private_data_len = (uint8_t)(1 + rnd64() % 200);
	rnd_bytes(cm.private_data, cm.private_data_len);
	ok(mpd_rec_write_cm(w, if_up, dtest_next_ts(0), &h, &cm) == 0,
	   "CM record written");
	fr = oracle_add_written(o, "CM event");
	expect_hdr(o, fr, &h, MPD_REC_CM,
		   MPD_REC_CM_FIXED + cm.private_data_len);
	oracle_expect_uint(o, fr, "madpmd.cmevent.event", 0, cm.event);
	oracle_expect_str(o, fr, "madpmd.cmevent.status", 0,
			  (snprintf((char *)buf, sizeof(buf), "%d", cm.status),
			   (char *)buf));
	oracle_expect_uint(o, fr, "madpmd.cmevent.id", 0, cm.id);
	oracle_expect_uint(o, fr, "madpmd.cmevent.listenid", 0, cm.listen_id);
	oracle_expect_uint(o, fr, "madpmd.cmevent.localqpn", 0, cm.local_qpn);
	oracle_expect_uint(o, fr, "madpmd.cmevent.remoteqpn", 0, cm.remote_qpn);
	oracle_expect_uint(o, fr, "madpmd.cmevent.localcommid", 0,
			   cm.local_comm_id);
	oracle_expect_uint(o, fr, "madpmd.cmevent.remotecommid", 0,
			   cm.remote_comm_id);
	oracle_expect_uint(o, fr, "madpmd.cmevent.serviceid", 0, cm.service_id);
	oracle_expect_uint(o, fr, "madpmd.cmevent.respres", 0,
			   cm.responder_resources);
	oracle_expect_uint(o, fr, "madpmd.cmevent.initdepth", 0,
			   cm.initiator_depth);
	oracle_expect_uint(o, fr, "madpmd.cmevent.retrycount", 0,
			   cm.retry_count);
	oracle_expect_uint(o, fr, "madpmd.cmevent.rnrretrycount", 0,
			   cm.rnr_retry_count);
	oracle_expect_uint(o, fr, "madpmd.cmevent.pdatalen", 0,
			   cm.private_data_len);
	oracle_expect_bytes(o, fr, "madpmd.cmevent.pdata", 0, cm.private_data,
			    cm.private_data_len);

	/* port events: a state change with LID and SM LID, IsSM set, an SM
	 * change, IsSM cleared */
	for (i = 0; i < 4; i++) {
		static const uint8_t changes[] = {
			MPD_REC_PORT_STATE | MPD_REC_PORT_LID |
				MPD_REC_PORT_SM_LID,
			MPD_REC_PORT_ISSM_SET,
			MPD_REC_PORT_SM_CHANGE | MPD_REC_PORT_SM_LID |
				MPD_REC_PORT_REREG,
			MPD_REC_PORT_ISSM_CLR,
		};
		char label[32];

		rnd_hdr(&h);
		memset(&pe, 0, sizeof(pe));
		pe.changes = changes[i];
		pe.old_state = (uint8_t)(1 + rnd64() % 4);
		pe.new_state = (uint8_t)(1 + rnd64() % 4);
		pe.phys_state = (uint8_t)(1 + rnd64() % 6);
		pe.old_lid = (uint16_t)rnd64();
		pe.new_lid = (uint16_t)rnd64();
		pe.old_sm_lid = (uint16_t)rnd64();
		pe.new_sm_lid = (uint16_t)rnd64();
		pe.is_sm = changes[i] == MPD_REC_PORT_ISSM_SET;
		pe.lmc = (uint8_t)rnd_bits(3);
		pe.sm_sl = (uint8_t)rnd_bits(4);
		pe.capability_mask = (uint32_t)rnd64();
		pe.port_guid = rnd64();
		ok(mpd_rec_write_port(w, if_up, dtest_next_ts(0), &h, &pe) == 0,
		   "port record %d written", i);
		snprintf(label, sizeof(label), "port event %d", i);
		fr = oracle_add_written(o, label);
		expect_hdr(o, fr, &h, MPD_REC_PORT, MPD_REC_PORT_LEN);
		oracle_expect_uint(o, fr, "madpmd.port.changes", 0, pe.changes);
		oracle_expect_uint(o, fr, "madpmd.port.changes.issmset", 0,
				   !!(pe.changes & MPD_REC_PORT_ISSM_SET));
		oracle_expect_uint(o, fr, "madpmd.port.changes.issmcleared", 0,
				   !!(pe.changes & MPD_REC_PORT_ISSM_CLR));
		oracle_expect_uint(o, fr, "madpmd.port.changes.smchange", 0,
				   !!(pe.changes & MPD_REC_PORT_SM_CHANGE));
		oracle_expect_uint(o, fr, "madpmd.port.oldstate", 0,
				   pe.old_state);
		oracle_expect_uint(o, fr, "madpmd.port.newstate", 0,
				   pe.new_state);
		oracle_expect_uint(o, fr, "madpmd.port.physstate", 0,
				   pe.phys_state);
		oracle_expect_uint(o, fr, "madpmd.port.oldlid", 0, pe.old_lid);
		oracle_expect_uint(o, fr, "madpmd.port.newlid", 0, pe.new_lid);
		oracle_expect_uint(o, fr, "madpmd.port.oldsmlid", 0,
				   pe.old_sm_lid);
		oracle_expect_uint(o, fr, "madpmd.port.newsmlid", 0,
				   pe.new_sm_lid);
		oracle_expect_uint(o, fr, "madpmd.port.issm", 0, pe.is_sm);
		oracle_expect_uint(o, fr, "madpmd.port.lmc", 0, pe.lmc);
		oracle_expect_uint(o, fr, "madpmd.port.smsl", 0, pe.sm_sl);
		oracle_expect_uint(o, fr, "madpmd.port.capmask", 0,
				   pe.capability_mask);
		oracle_expect_uint(o, fr, "madpmd.port.guid", 0, pe.port_guid);
	}

	/* a CQ completion no packet made (a flush): no PSN shown */
	rnd_hdr(&h);
	wc.status = 5;
	wc.psn = MPD_REC_NO_PSN;
	ok(mpd_rec_write_wc(w, if_up, dtest_next_ts(0), &h, &wc) == 0,
	   "WC record without PSN written");
	fr = oracle_add_written(o, "CQ completion, flushed");
	expect_hdr(o, fr, &h, MPD_REC_WC, MPD_REC_WC_LEN);
	oracle_expect_uint(o, fr, "madpmd.wc.status", 0, wc.status);
	oracle_expect_absent(o, fr, "madpmd.wc.psn");
	oracle_expect_absent(o, fr, "madpmd.wc.frame");

	/* QP state changes: each cause, random values */
	for (i = 0; i < 3; i++) {
		char label[32];

		rnd_hdr(&h);
		memset(&q, 0, sizeof(q));
		q.qp_num = (uint32_t)rnd_bits(24);
		q.handle = (uint32_t)rnd64();
		q.qp_type = (uint8_t)(2 + rnd64() % 3);
		q.old_state = (uint8_t)(rnd64() % 7);
		q.new_state = i == MPD_REC_QP_ERROR ? 6 :
			      i == MPD_REC_QP_DESTROY ? 0 :
			      (uint8_t)(rnd64() % 7);
		q.cause = (uint8_t)i;
		q.status = i == MPD_REC_QP_ERROR ? (uint32_t)(rnd64() % 24) : 0;
		q.psn = i == MPD_REC_QP_ERROR ? (uint32_t)rnd_bits(24) :
			MPD_REC_NO_PSN;
		q.dest_qp = (uint32_t)rnd_bits(24);
		ok(mpd_rec_write_qp(w, if_up, dtest_next_ts(0), &h, &q) == 0,
		   "QP record %d written", i);
		snprintf(label, sizeof(label), "QP state change %d", i);
		fr = oracle_add_written(o, label);
		expect_hdr(o, fr, &h, MPD_REC_QP, MPD_REC_QP_LEN);
		oracle_expect_uint(o, fr, "madpmd.qp.qpnum", 0, q.qp_num);
		oracle_expect_uint(o, fr, "madpmd.qp.handle", 0, q.handle);
		oracle_expect_uint(o, fr, "madpmd.qp.type", 0, q.qp_type);
		oracle_expect_uint(o, fr, "madpmd.qp.oldstate", 0,
				   q.old_state);
		oracle_expect_uint(o, fr, "madpmd.qp.newstate", 0,
				   q.new_state);
		oracle_expect_uint(o, fr, "madpmd.qp.cause", 0, q.cause);
		oracle_expect_uint(o, fr, "madpmd.qp.status", 0, q.status);
		oracle_expect_uint(o, fr, "madpmd.qp.destqp", 0, q.dest_qp);
		oracle_expect_absent(o, fr, "madpmd.qp.frame");
		if (q.psn == MPD_REC_NO_PSN) {
			oracle_expect_absent(o, fr, "madpmd.qp.psn");
			oracle_expect_absent(o, fr, "_ws.expert.message");
		} else {
			oracle_expect_uint(o, fr, "madpmd.qp.psn", 0, q.psn);
			oracle_expect_uint(o, fr, "_ws.expert.severity", 0,
					   0x00600000);	/* PI_WARN */
		}
	}

	/* the encoders' own checks */
	pe.lmc = 8;
	is_int(mpd_rec_encode_port(&h, &pe, buf, sizeof(buf)), MPD_ERANGE,
	       "port record: LMC 8 rejected");
	is_int(mpd_rec_encode_wc(&h, &wc, buf, 10), MPD_ENOSPC,
	       "WC record: short buffer rejected");
	{
		struct mpd_rec_hdr d;
		const uint8_t *body;
		size_t blen;

		rc = mpd_rec_encode_wc(&h, &wc, buf, sizeof(buf));
		ok(rc == MPD_REC_HDR_LEN + MPD_REC_WC_LEN &&
		   mpd_rec_decode_hdr(buf, (size_t)rc, &d, &body, &blen) == 0 &&
		   d.kind == MPD_REC_WC && d.seq == h.seq &&
		   d.node_id == h.node_id && blen == MPD_REC_WC_LEN &&
		   body == buf + MPD_REC_HDR_LEN, "record header decodes");
		buf[0] ^= 1;
		is_int(mpd_rec_decode_hdr(buf, (size_t)rc, &d, NULL, NULL),
		       MPD_EINVAL, "bad magic rejected");
		buf[0] ^= 1;
		is_int(mpd_rec_decode_hdr(buf, (size_t)rc - 1, &d, NULL, NULL),
		       MPD_ETRUNC, "short record rejected");
	}

	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
