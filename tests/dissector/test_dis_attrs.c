/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every attribute and message the codec has a layout for (SMP, SA records,
 * PerfMgt incl. PortCountersExtended and the attributes past PortCounters,
 * CM REQ..APR, SIDR), with random values, on every link: tshark with our
 * plugin must show each member under its madpmd.* field with the value
 * encoded, and no frame may be malformed.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/cm.h"
#include "madpmd/mad.h"
#include "madpmd/sa.h"
#include "dtest.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct kind {
	uint8_t cls;
	uint8_t method;
	uint16_t attr_id;
	const struct mpd_layout *l;
	const char *prefix;
};

static const struct kind kinds[] = {
	{ MPD_CLASS_SUBN_LID, MPD_METHOD_GET_RESP, MPD_ATTR_NODE_DESC, &mpd_node_desc_layout, "madpmd.smp.nodedesc" },
	{ MPD_CLASS_SUBN_LID, MPD_METHOD_GET_RESP, MPD_ATTR_NODE_INFO, &mpd_node_info_layout, "madpmd.smp.nodeinfo" },
	{ MPD_CLASS_SUBN_DR, MPD_METHOD_GET_RESP, MPD_ATTR_NODE_INFO, &mpd_node_info_layout, "madpmd.smp.nodeinfo" },
	{ MPD_CLASS_SUBN_LID, MPD_METHOD_GET_RESP, MPD_ATTR_SWITCH_INFO, &mpd_switch_info_layout, "madpmd.smp.switchinfo" },
	{ MPD_CLASS_SUBN_LID, MPD_METHOD_GET_RESP, MPD_ATTR_GUID_INFO, &mpd_guid_info_layout, "madpmd.smp.guidinfo" },
	{ MPD_CLASS_SUBN_LID, MPD_METHOD_GET_RESP, MPD_ATTR_PORT_INFO, &mpd_port_info_layout, "madpmd.smp.portinfo" },
	{ MPD_CLASS_SUBN_DR, MPD_METHOD_SET, MPD_ATTR_PORT_INFO, &mpd_port_info_layout, "madpmd.smp.portinfo" },
	{ MPD_CLASS_SUBN_LID, MPD_METHOD_GET_RESP, MPD_ATTR_PKEY_TABLE, &mpd_pkey_table_layout, "madpmd.smp.pkeytable" },
	{ MPD_CLASS_SUBN_LID, MPD_METHOD_GET_RESP, MPD_ATTR_SL2VL_TABLE, &mpd_sl2vl_table_layout, "madpmd.smp.sl2vl" },
	{ MPD_CLASS_SUBN_LID, MPD_METHOD_GET_RESP, MPD_ATTR_VL_ARB_TABLE, &mpd_vl_arb_table_layout, "madpmd.smp.vlarb" },
	{ MPD_CLASS_SUBN_LID, MPD_METHOD_GET_RESP, MPD_ATTR_LINEAR_FWD_TABLE, &mpd_lft_block_layout, "madpmd.smp.lft" },
	{ MPD_CLASS_SUBN_LID, MPD_METHOD_GET_RESP, MPD_ATTR_MCAST_FWD_TABLE, &mpd_mft_block_layout, "madpmd.smp.mft" },
	{ MPD_CLASS_SUBN_LID, MPD_METHOD_GET_RESP, MPD_ATTR_SM_INFO, &mpd_sm_info_layout, "madpmd.smp.sminfo" },
	{ MPD_CLASS_SUBN_ADM, MPD_METHOD_REPORT, MPD_ATTR_NOTICE, &mpd_notice_layout, "madpmd.notice" },
	{ MPD_CLASS_SUBN_ADM, MPD_METHOD_GET_RESP, MPD_ATTR_SA_NODE_RECORD, &mpd_node_record_layout, "madpmd.sa.noderecord" },
	{ MPD_CLASS_SUBN_ADM, MPD_METHOD_GET_RESP, MPD_ATTR_SA_PORT_INFO_RECORD, &mpd_port_info_record_layout, "madpmd.sa.portinforecord" },
	{ MPD_CLASS_SUBN_ADM, MPD_METHOD_GET_RESP, MPD_ATTR_SA_SERVICE_RECORD, &mpd_service_record_layout, "madpmd.sa.servicerecord" },
	{ MPD_CLASS_SUBN_ADM, MPD_METHOD_GET_RESP, MPD_ATTR_SA_PATH_RECORD, &mpd_path_record_layout, "madpmd.sa.pathrecord" },
	{ MPD_CLASS_SUBN_ADM, MPD_METHOD_GET_RESP, MPD_ATTR_SA_MCMEMBER_RECORD, &mpd_mcmember_record_layout, "madpmd.sa.mcmemberrecord" },
	{ MPD_CLASS_SUBN_ADM, MPD_METHOD_GET_RESP, MPD_ATTR_CLASS_PORT_INFO, &mpd_class_port_info_layout, "madpmd.classportinfo" },
	{ MPD_CLASS_PERF, MPD_METHOD_GET_RESP, MPD_ATTR_CLASS_PORT_INFO, &mpd_class_port_info_layout, "madpmd.classportinfo" },
	{ MPD_CLASS_PERF, MPD_METHOD_GET_RESP, MPD_ATTR_PERF_PORT_COUNTERS, &mpd_port_counters_layout, "madpmd.perf.portcounters" },
	{ MPD_CLASS_PERF, MPD_METHOD_GET_RESP, MPD_ATTR_PERF_PORT_COUNTERS_EXT, &mpd_port_counters_ext_layout, "madpmd.perf.portcountersext" },
	{ MPD_CLASS_CM, MPD_METHOD_SEND, MPD_ATTR_CM_REQ, &mpd_cm_req_layout, "madpmd.cm.req" },
	{ MPD_CLASS_CM, MPD_METHOD_SEND, MPD_ATTR_CM_MRA, &mpd_cm_mra_layout, "madpmd.cm.mra" },
	{ MPD_CLASS_CM, MPD_METHOD_SEND, MPD_ATTR_CM_REJ, &mpd_cm_rej_layout, "madpmd.cm.rej" },
	{ MPD_CLASS_CM, MPD_METHOD_SEND, MPD_ATTR_CM_REP, &mpd_cm_rep_layout, "madpmd.cm.rep" },
	{ MPD_CLASS_CM, MPD_METHOD_SEND, MPD_ATTR_CM_RTU, &mpd_cm_rtu_layout, "madpmd.cm.rtu" },
	{ MPD_CLASS_CM, MPD_METHOD_SEND, MPD_ATTR_CM_DREQ, &mpd_cm_dreq_layout, "madpmd.cm.dreq" },
	{ MPD_CLASS_CM, MPD_METHOD_SEND, MPD_ATTR_CM_DREP, &mpd_cm_drep_layout, "madpmd.cm.drep" },
	{ MPD_CLASS_CM, MPD_METHOD_SEND, MPD_ATTR_CM_LAP, &mpd_cm_lap_layout, "madpmd.cm.lap" },
	{ MPD_CLASS_CM, MPD_METHOD_SEND, MPD_ATTR_CM_APR, &mpd_cm_apr_layout, "madpmd.cm.apr" },
	{ MPD_CLASS_CM, MPD_METHOD_SEND, MPD_ATTR_CM_SIDR_REQ, &mpd_cm_sidr_req_layout, "madpmd.cm.sidrreq" },
	{ MPD_CLASS_CM, MPD_METHOD_SEND, MPD_ATTR_CM_SIDR_REP, &mpd_cm_sidr_rep_layout, "madpmd.cm.sidrrep" },
};

static const enum mpd_link links[] = {
	MPD_LINK_IB, MPD_LINK_ROCE_V1, MPD_LINK_ROCE_V2,
};
static const char *const link_names[] = { "IB", "RoCEv1", "RoCEv2" };

static uint8_t
class_version(uint8_t cls)
{
	return cls == MPD_CLASS_SUBN_ADM || cls == MPD_CLASS_CM ? 2 : 1;
}

static void
init_mad(struct mpd_mad *m, uint8_t cls, uint8_t method, uint16_t attr_id)
{
	memset(m, 0, sizeof(*m));
	m->hdr.base_version = MPD_BASE_VERSION;
	m->hdr.mgmt_class = cls;
	m->hdr.class_version = class_version(cls);
	m->hdr.method = method;
	m->hdr.tid = rnd64();
	m->hdr.attr_id = attr_id;
	m->hdr.attr_mod = (uint32_t)rnd64();
	if (cls == MPD_CLASS_SUBN_LID || cls == MPD_CLASS_SUBN_DR)
		m->mkey = rnd64();
	if (cls == MPD_CLASS_SUBN_DR) {
		m->hdr.class_specific = 0x0101;	/* hop pointer 1, count 1 */
		m->dr_slid = MPD_LID_PERMISSIVE;
		m->dr_dlid = MPD_LID_PERMISSIVE;
		m->initial_path[1] = 1;
	}
	if (cls == MPD_CLASS_SUBN_ADM) {
		m->rmpp.version = MPD_RMPP_VERSION;
		m->sm_key = rnd64();
		m->comp_mask = rnd64();
	}
}

static int
add_mad(struct oracle *o, const char *label, enum mpd_link link,
	const struct mpd_mad *m, const void *data, size_t len)
{
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_pkt p;
	int rc = mpd_mad_encode(m, data, len, mad, sizeof(mad)), fr;
	bool smp = m->hdr.mgmt_class == MPD_CLASS_SUBN_LID ||
		   m->hdr.mgmt_class == MPD_CLASS_SUBN_DR;

	if (!ok(rc == MPD_MAD_LEN, "%s: MAD encodes (%s)", label,
		rc < 0 ? mpd_strerror(rc) : "ok"))
		return 0;
	oracle_pkt_init(&p, link, smp ? 0 : 1, smp ? 0 : 1);
	fr = dtest_add_pkt(o, label, &p, mad, sizeof(mad), 0, -1, NULL, NULL);
	if (fr)
		dtest_expect_mad_hdr(o, fr, &m->hdr);
	return fr;
}

static void
add_kind(struct oracle *o, const struct kind *k, enum mpd_link link,
	 const char *lname)
{
	static uint64_t obj[512];
	uint8_t data[256];
	struct mpd_mad m;
	char label[128];
	int rc, fr;

	memset(obj, 0, sizeof(obj));
	dtest_fill_layout(k->l, obj);
	rc = mpd_layout_encode(k->l, obj, data, sizeof(data));
	snprintf(label, sizeof(label), "%s %s class 0x%02x", lname, k->l->name,
		 k->cls);
	if (!ok(rc == k->l->wire_len, "%s: layout encodes", label))
		return;
	init_mad(&m, k->cls, k->method, k->attr_id);
	fr = add_mad(o, label, link, &m, data, (size_t)rc);
	if (!fr)
		return;
	dtest_expect_layout(o, fr, k->l, obj, k->prefix, 0);
	if (k->cls == MPD_CLASS_SUBN_LID || k->cls == MPD_CLASS_SUBN_DR)
		oracle_expect_uint(o, fr, "madpmd.smp.mkey", 0, m.mkey);
	if (k->cls == MPD_CLASS_SUBN_ADM) {
		oracle_expect_uint(o, fr, "madpmd.sa.smkey", 0, m.sm_key);
		oracle_expect_uint(o, fr, "madpmd.sa.compmask", 0, m.comp_mask);
	}
}

/* PerfMgt attributes past PortCounters the codec has no struct for:
 * PortXmitDataSL / PortRcvDataSL (16 counters) and the error details. */
static void
add_perf_extra(struct oracle *o, enum mpd_link link, const char *lname)
{
	static const struct {
		uint16_t attr;
		const char *field;
		int n, width;
	} ex[] = {
		{ 0x0036, "madpmd.perf.portxmitdatasl.portxmitdatasl", 16, 4 },
		{ 0x0037, "madpmd.perf.portrcvdatasl.portrcvdatasl", 16, 4 },
	};
	static const char *const rcv_err[] = {
		"madpmd.perf.portrcverrordetails.portlocalphysicalerrors",
		"madpmd.perf.portrcverrordetails.portmalformedpacketerrors",
		"madpmd.perf.portrcverrordetails.portbufferoverrunerrors",
		"madpmd.perf.portrcverrordetails.portdlidmappingerrors",
		"madpmd.perf.portrcverrordetails.portvlmappingerrors",
		"madpmd.perf.portrcverrordetails.portloopingerrors",
	};
	uint8_t data[192];
	struct mpd_mad m;
	char label[96];
	size_t e;
	int i, fr;

	for (e = 0; e < N(ex); e++) {
		uint32_t v[16];

		memset(data, 0, sizeof(data));
		data[1] = (uint8_t)rnd64();
		for (i = 0; i < ex[e].n; i++) {
			v[i] = (uint32_t)rnd64();
			mpd_put_be32(data + 4 + 4 * i, v[i]);
		}
		init_mad(&m, MPD_CLASS_PERF, MPD_METHOD_GET_RESP, ex[e].attr);
		snprintf(label, sizeof(label), "%s PerfMgt attribute 0x%04x",
			 lname, ex[e].attr);
		fr = add_mad(o, label, link, &m, data, 68);
		for (i = 0; fr && i < ex[e].n; i++)
			oracle_expect_uint(o, fr, ex[e].field, (unsigned)i, v[i]);
	}
	memset(data, 0, sizeof(data));
	data[1] = (uint8_t)rnd64();
	init_mad(&m, MPD_CLASS_PERF, MPD_METHOD_GET_RESP, 0x0015);
	snprintf(label, sizeof(label), "%s PortRcvErrorDetails", lname);
	{
		uint16_t v[6];

		for (i = 0; i < 6; i++) {
			v[i] = (uint16_t)rnd64();
			mpd_put_be16(data + 4 + 2 * i, v[i]);
		}
		fr = add_mad(o, label, link, &m, data, 16);
		for (i = 0; fr && i < 6; i++)
			oracle_expect_uint(o, fr, rcv_err[i], 0, v[i]);
		if (fr)
			oracle_expect_uint(o, fr,
				"madpmd.perf.portrcverrordetails.portselect", 0,
				data[1]);
	}
}

int
main(void)
{
	struct oracle *o;
	size_t l, k;

	if (!dtest_init("attrs"))
		return 0;
	o = dtest_oracle("attrs");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	for (l = 0; l < N(links); l++) {
		for (k = 0; k < N(kinds); k++) {
			bool smp = kinds[k].cls == MPD_CLASS_SUBN_LID ||
				   kinds[k].cls == MPD_CLASS_SUBN_DR;

			/* QP0 exists on native IB only */
			if (smp && links[l] != MPD_LINK_IB)
				continue;
			add_kind(o, &kinds[k], links[l], link_names[l]);
		}
		add_perf_extra(o, links[l], link_names[l]);
	}
	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
