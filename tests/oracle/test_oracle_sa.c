/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SA MADs (class 0x03 version 2 on QP1) carrying each record kind, on
 * every link, checked by tshark: common MAD header, RMPP header, SA header
 * and every record member. Wireshark 4.0 decodes one record per MAD (the
 * first), whatever the method, so each MAD carries one.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/mad.h"
#include "madpmd/sa.h"
#include "layout_check.h"
#include "oracle.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct oracle_map node_record_map[] = {
	{ "lid", "infiniband.sa.lid" },
	{ "node_info.base_version", "infiniband.nodeinfo.baseversion" },
	{ "node_info.class_version", "infiniband.nodeinfo.classversion" },
	{ "node_info.node_type", "infiniband.nodeinfo.nodetype" },
	{ "node_info.num_ports", "infiniband.nodeinfo.numports" },
	{ "node_info.sys_image_guid", "infiniband.nodeinfo.systemimageguid" },
	{ "node_info.node_guid", "infiniband.nodeinfo.nodeguid" },
	{ "node_info.port_guid", "infiniband.nodeinfo.portguid" },
	{ "node_info.partition_cap", "infiniband.nodeinfo.partitioncap" },
	{ "node_info.device_id", "infiniband.nodeinfo.deviceid" },
	{ "node_info.revision", "infiniband.nodeinfo.revision" },
	{ "node_info.local_port_num", "infiniband.nodeinfo.localportnum" },
	{ "node_info.vendor_id", "infiniband.nodeinfo.vendorid" },
	{ "node_desc", "infiniband.nodedescription.nodestring",
	  ORACLE_AS_STRING },
};

static const struct oracle_map port_info_record_map[] = {
	{ "endport_lid", "infiniband.sa.endportlid" },
	{ "port_num", "infiniband.sa.portnum" },
	/* Wireshark 4.0 shows the Options byte as reserved */
	{ "options", NULL },
	/* PortInfo is carried as bytes; its head is checked field by field
	 * in expect_port_info() */
	{ "port_info", NULL },
};

/* Wireshark 4.0 registers the ServiceRecord fields as linkrecord.* */
static const struct oracle_map service_record_map[] = {
	{ "service_id", "infiniband.linkrecord.serviceid" },
	{ "service_gid", "infiniband.linkrecord.servicegid", ORACLE_AS_GID },
	{ "service_pkey", "infiniband.linkrecord.servicep_key" },
	{ "service_lease", "infiniband.linkrecord.servicelease" },
	{ "service_key", "infiniband.linkrecord.servicekey" },
	{ "service_name", "infiniband.linkrecord.servicename" },
	/* ServiceData elements: one 16-byte item per array in tshark,
	 * checked as bytes in expect_service_data() */
	{ "service_data8[0]", NULL }, { "service_data8[1]", NULL },
	{ "service_data8[2]", NULL }, { "service_data8[3]", NULL },
	{ "service_data8[4]", NULL }, { "service_data8[5]", NULL },
	{ "service_data8[6]", NULL }, { "service_data8[7]", NULL },
	{ "service_data8[8]", NULL }, { "service_data8[9]", NULL },
	{ "service_data8[10]", NULL }, { "service_data8[11]", NULL },
	{ "service_data8[12]", NULL }, { "service_data8[13]", NULL },
	{ "service_data8[14]", NULL }, { "service_data8[15]", NULL },
	{ "service_data16[0]", NULL }, { "service_data16[1]", NULL },
	{ "service_data16[2]", NULL }, { "service_data16[3]", NULL },
	{ "service_data16[4]", NULL }, { "service_data16[5]", NULL },
	{ "service_data16[6]", NULL }, { "service_data16[7]", NULL },
	{ "service_data32[0]", NULL }, { "service_data32[1]", NULL },
	{ "service_data32[2]", NULL }, { "service_data32[3]", NULL },
	{ "service_data64[0]", NULL }, { "service_data64[1]", NULL },
};

static const struct oracle_map path_record_map[] = {
	/* Wireshark 4.0 shows bytes 0-7 as reserved (pre-1.2.1 layout) */
	{ "service_id", NULL },
	{ "dgid", "infiniband.pathrecord.dgid", ORACLE_AS_GID },
	{ "sgid", "infiniband.pathrecord.sgid", ORACLE_AS_GID },
	{ "dlid", "infiniband.pathrecord.dlid" },
	{ "slid", "infiniband.pathrecord.slid" },
	{ "raw_traffic", "infiniband.pathrecord.rawtraffic" },
	{ "flow_label", "infiniband.pathrecord.flowlabel" },
	{ "hop_limit", "infiniband.pathrecord.hoplimit" },
	{ "tclass", "infiniband.pathrecord.tclass" },
	{ "reversible", "infiniband.pathrecord.reversible" },
	{ "numb_path", "infiniband.pathrecord.numbpath" },
	{ "pkey", "infiniband.pathrecord.p_key" },
	/* Wireshark 4.0 has no QoSClass field (it reads SL from the word) */
	{ "qos_class", NULL },
	{ "sl", "infiniband.pathrecord.sl" },
	{ "mtu_selector", "infiniband.pathrecord.mtuselector" },
	{ "mtu", "infiniband.pathrecord.mtu" },
	{ "rate_selector", "infiniband.pathrecord.rateselector" },
	{ "rate", "infiniband.pathrecord.rate" },
	{ "pkt_life_selector", "infiniband.pathrecord.packetlifetimeselector" },
	{ "pkt_life", "infiniband.pathrecord.packetlifetime" },
	{ "preference", "infiniband.pathrecord.preference" },
};

static const struct oracle_map mcmember_record_map[] = {
	{ "mgid", "infiniband.mcmemberrecord.mgid", ORACLE_AS_GID },
	{ "port_gid", "infiniband.mcmemberrecord.portgid", ORACLE_AS_GID },
	{ "qkey", "infiniband.mcmemberrecord.q_key" },
	{ "mlid", "infiniband.mcmemberrecord.mlid" },
	{ "mtu_selector", "infiniband.mcmemberrecord.mtuselector" },
	{ "mtu", "infiniband.mcmemberrecord.mtu" },
	{ "tclass", "infiniband.mcmemberrecord.tclass" },
	{ "pkey", "infiniband.mcmemberrecord.p_key" },
	{ "rate_selector", "infiniband.mcmemberrecord.rateselector" },
	{ "rate", "infiniband.mcmemberrecord.rate" },
	{ "pkt_life_selector",
	  "infiniband.mcmemberrecord.packetlifetimeselector" },
	{ "pkt_life", "infiniband.mcmemberrecord.packetlifetime" },
	{ "sl", "infiniband.mcmemberrecord.sl" },
	{ "flow_label", "infiniband.mcmemberrecord.flowlabel" },
	{ "hop_limit", "infiniband.mcmemberrecord.hoplimit" },
	{ "scope", "infiniband.mcmemberrecord.scope" },
	{ "join_state", "infiniband.mcmemberrecord.joinstate" },
	{ "proxy_join", "infiniband.mcmemberrecord.proxyjoin" },
};

struct kind {
	const char *name;
	uint16_t attr_id;
	const struct mpd_layout *l;
	const struct oracle_map *map;
	size_t nmap;
	/*
	 * Wireshark 4.0 steps over the RID (and for NodeRecord NodeInfo once
	 * more) before adding the 200 data bytes, so it looks for the CRCs
	 * this many bytes past where they are.
	 */
	unsigned int ws_overrun;
};

static const struct kind kinds[] = {
	{ "NodeRecord", MPD_ATTR_SA_NODE_RECORD, &mpd_node_record_layout,
	  node_record_map, N(node_record_map), 4 + 40 },
	{ "PortInfoRecord", MPD_ATTR_SA_PORT_INFO_RECORD,
	  &mpd_port_info_record_layout, port_info_record_map,
	  N(port_info_record_map), 4 },
	{ "ServiceRecord", MPD_ATTR_SA_SERVICE_RECORD,
	  &mpd_service_record_layout, service_record_map,
	  N(service_record_map), 28 },
	{ "PathRecord", MPD_ATTR_SA_PATH_RECORD, &mpd_path_record_layout,
	  path_record_map, N(path_record_map), 0 },
	{ "MCMemberRecord", MPD_ATTR_SA_MCMEMBER_RECORD,
	  &mpd_mcmember_record_layout, mcmember_record_map,
	  N(mcmember_record_map), 32 },
};

/* A NodeDescription tshark prints as is: printable, NUL padded. */
static void
random_desc(uint8_t *d, size_t cap)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789-_.";
	size_t n = 1 + (size_t)(rnd64() % (cap - 1)), i;

	memset(d, 0, cap);
	for (i = 0; i < n; i++)
		d[i] = (uint8_t)set[rnd64() % (sizeof(set) - 1)];
}

static void
expect_rmpp(struct oracle *o, int fr, const struct mpd_rmpp_hdr *r)
{
	uint8_t b2 = (uint8_t)(r->resp_time << 3 | r->flags);

	oracle_expect_uint(o, fr, "infiniband.rmpp.rmppversion", 0,
			   r->version);
	oracle_expect_uint(o, fr, "infiniband.rmpp.rmpptype", 0, r->type);
	/* Wireshark 4.0 splits byte 2 as 4+4 bits, IBA 13.6.2.1 as 5+3 */
	oracle_expect_uint(o, fr, "infiniband.rmpp.rresptime", 0, b2 >> 4);
	oracle_expect_uint(o, fr, "infiniband.rmpp.rmppflags", 0, b2 & 0xf);
	oracle_expect_uint(o, fr, "infiniband.rmpp.rmppstatus", 0, r->status);
	if (r->type == MPD_RMPP_TYPE_DATA) {
		oracle_expect_uint(o, fr, "infiniband.rmpp.segmentnumber", 0,
				   r->data1);
		oracle_expect_uint(o, fr, "infiniband.rmpp.payloadlength", 0,
				   r->data2);
		oracle_expect_absent(o, fr, "infiniband.rmpp.data1");
	} else {
		oracle_expect_uint(o, fr, "infiniband.rmpp.data1", 0, r->data1);
		oracle_expect_uint(o, fr, "infiniband.rmpp.data2", 0, r->data2);
		oracle_expect_absent(o, fr, "infiniband.rmpp.segmentnumber");
	}
}

/* PortInfo (IBA 14.2.5.6) at byte 4 of the record: its first fields */
static void
expect_port_info(struct oracle *o, int fr,
		 const struct mpd_port_info_record *r)
{
	const uint8_t *pi = r->port_info;

	oracle_expect_uint(o, fr, "infiniband.portinfo.m_key", 0,
			   mpd_get_be64(pi));
	oracle_expect_uint(o, fr, "infiniband.portinfo.guid", 0,
			   mpd_get_be64(pi + 8));
	oracle_expect_uint(o, fr, "infiniband.portinfo.lid", 0,
			   mpd_get_be16(pi + 16));
	oracle_expect_uint(o, fr, "infiniband.portinfo.mastersmlid", 0,
			   mpd_get_be16(pi + 18));
	oracle_expect_uint(o, fr, "infiniband.portinfo.capabilitymask", 0,
			   mpd_get_be32(pi + 20));
	oracle_expect_uint(o, fr, "infiniband.portinfo.diagcode", 0,
			   mpd_get_be16(pi + 24));
	oracle_expect_uint(o, fr, "infiniband.portinfo.m_keyleaseperiod", 0,
			   mpd_get_be16(pi + 26));
	oracle_expect_uint(o, fr, "infiniband.portinfo.localportnum", 0,
			   pi[28]);
}

/* The four ServiceData arrays, packed big-endian by hand (IBA 15.2.5.14) */
static void
expect_service_data(struct oracle *o, int fr,
		    const struct mpd_service_record *r)
{
	uint8_t d[4][16];
	int i;

	memcpy(d[0], r->service_data8, 16);
	for (i = 0; i < 8; i++)
		mpd_put_be16(d[1] + 2 * i, r->service_data16[i]);
	for (i = 0; i < 4; i++)
		mpd_put_be32(d[2] + 4 * i, r->service_data32[i]);
	for (i = 0; i < 2; i++)
		mpd_put_be64(d[3] + 8 * i, r->service_data64[i]);
	for (i = 0; i < 4; i++)
		oracle_expect_bytes(o, fr, "infiniband.linkrecord.servicedata",
				    (unsigned int)i, d[i], 16);
}

static void
add_record(struct oracle *o, enum mpd_link link, const char *lname,
	   const struct kind *k, bool table)
{
	union {
		struct mpd_node_record nr;
		struct mpd_port_info_record pir;
		struct mpd_service_record sr;
		struct mpd_path_record pr;
		struct mpd_mcmember_record mc;
	} rec;
	uint8_t data[MPD_SA_DATA_LEN], mad[MPD_MAD_LEN];
	struct mpd_mad m;
	struct mpd_pkt p;
	char label[96];
	int fr, n;

	memset(&rec, 0, sizeof(rec));
	lc_random_fill(k->l, &rec);
	if (k->l == &mpd_node_record_layout)
		random_desc(rec.nr.node_desc, sizeof(rec.nr.node_desc));
	n = mpd_layout_encode(k->l, &rec, data, sizeof(data));
	snprintf(label, sizeof(label), "%s %s %s", lname,
		 table ? "GetTableResp" : "GetResp", k->name);
	if (!ok(n == k->l->wire_len, "%s: record encodes", label))
		return;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_ADM;
	m.hdr.class_version = MPD_SA_CLASS_VERSION;
	m.hdr.method = table ? MPD_METHOD_GET_TABLE_RESP : MPD_METHOD_GET_RESP;
	m.hdr.tid = rnd64();
	m.hdr.attr_id = k->attr_id;
	m.hdr.attr_mod = table ? 0 : (uint32_t)rnd64();
	m.rmpp.resp_time = (uint8_t)rnd_bits(5);
	if (table) {
		/* one DATA segment holding the whole table (IBA 13.6.2.3) */
		m.rmpp.version = MPD_RMPP_VERSION;
		m.rmpp.type = MPD_RMPP_TYPE_DATA;
		m.rmpp.flags = MPD_RMPP_FLAG_ACTIVE | MPD_RMPP_FLAG_FIRST |
			       MPD_RMPP_FLAG_LAST;
		m.rmpp.data1 = 1;
		m.rmpp.data2 = MPD_SA_HDR_LEN +
			       8u * mpd_sa_attr_offset(k->l->wire_len);
	} else {
		/* RMPP inactive: data words are reserved but shown */
		m.rmpp.version = (uint8_t)rnd_bits(1);
		m.rmpp.data1 = (uint32_t)rnd64();
		m.rmpp.data2 = (uint32_t)rnd64();
	}
	m.sm_key = rnd64();
	m.attr_offset = mpd_sa_attr_offset(k->l->wire_len);
	m.comp_mask = rnd64();
	if (!ok(mpd_mad_encode(&m, data, (size_t)n, mad, sizeof(mad)) ==
		MPD_MAD_LEN, "%s: MAD encodes", label))
		return;

	oracle_pkt_init(&p, link, 1, 1);
	fr = oracle_add_pkt(o, label, &p, mad, sizeof(mad));
	if (!fr)
		return;
	if (k->ws_overrun) {
		/* the ICRC is never found; on IB, the VCRC only when the
		 * overrun is exactly the ICRC's 4 bytes */
		oracle_forget(o, fr, "infiniband.invariant.crc");
		oracle_expect_absent(o, fr, "infiniband.invariant.crc");
		if (link == MPD_LINK_IB && k->ws_overrun != 4) {
			oracle_forget(o, fr, "infiniband.variant.crc");
			oracle_expect_absent(o, fr, "infiniband.variant.crc");
		}
	}
	oracle_expect_mad_hdr(o, fr, &m, true);
	expect_rmpp(o, fr, &m.rmpp);
	oracle_expect_uint(o, fr, "infiniband.sa.smkey", 0, m.sm_key);
	oracle_expect_uint(o, fr, "infiniband.sa.attributeoffset", 0,
			   m.attr_offset);
	oracle_expect_uint(o, fr, "infiniband.sa.componentmask", 0,
			   m.comp_mask);
	oracle_expect_layout(o, fr, k->l, &rec, k->map, k->nmap, 0);
	if (k->l == &mpd_port_info_record_layout)
		expect_port_info(o, fr, &rec.pir);
	if (k->l == &mpd_service_record_layout)
		expect_service_data(o, fr, &rec.sr);
}

int
main(void)
{
	static const enum mpd_link links[] = {
		MPD_LINK_IB, MPD_LINK_ROCE_V1, MPD_LINK_ROCE_V2,
	};
	static const char *const names[] = { "IB", "RoCEv1", "RoCEv2" };
	struct oracle *o;
	size_t l, k;

	tap_seed();
	o = oracle_new("sa");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	for (l = 0; l < N(links); l++)
		for (k = 0; k < N(kinds); k++) {
			add_record(o, links[l], names[l], &kinds[k], false);
			add_record(o, links[l], names[l], &kinds[k], true);
		}
	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
