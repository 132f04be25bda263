/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CM MADs (class 0x07 version 2 on QP1), every message on every link,
 * checked by tshark field by field. Wireshark 4.0 decodes REQ, REP, REJ,
 * RTU, DREQ and DREP; for MRA, LAP, APR and the SIDR pair it shows the
 * MAD header and the 232 data bytes only.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "madpmd/cm.h"
#include "madpmd/mad.h"
#include "layout_check.h"
#include "oracle.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Wireshark 4.0 reads the REQ flow label as 3 bytes under a 32-bit mask
 * and the packet rate from the flow label's first byte; both are checked
 * in expect_req_quirks(), so the members map to NULL here.
 */
#define REQ_PATH_MAP(p, ws, gid_as)					\
	{ #p ".local_lid", "infiniband.cm.req." ws "_locallid" },	\
	{ #p ".remote_lid", "infiniband.cm.req." ws "_remotelid" },	\
	{ #p ".local_gid", "infiniband.cm.req." ws "_localgid", gid_as }, \
	{ #p ".remote_gid", "infiniband.cm.req." ws "_remotegid", gid_as }, \
	{ #p ".flow_label", NULL },					\
	{ #p ".packet_rate", NULL },					\
	{ #p ".tclass", "infiniband.cm.req." ws "_tfcclass" },		\
	{ #p ".hop_limit", "infiniband.cm.req." ws "_hoplim" },		\
	{ #p ".sl", "infiniband.cm.req." ws "_sl" },			\
	{ #p ".subnet_local", "infiniband.cm.req." ws "_subnetlocal" },	\
	{ #p ".local_ack_timeout", "infiniband.cm.req." ws "_localacktout" }

static const struct oracle_map req_map[] = {
	{ "local_comm_id", "infiniband.cm.req" },
	/* Wireshark 4.0 shows bytes 4-7 as reserved */
	{ "vendor_id", NULL },
	{ "service_id", "infiniband.cm.req.serviceid" },
	{ "local_ca_guid", "infiniband.cm.req.localcaguid" },
	{ "local_qkey", "infiniband.cm.req.localqkey" },
	{ "local_qpn", "infiniband.cm.req.localqpn" },
	{ "resp_resources", "infiniband.cm.req.responderres" },
	{ "local_eecn", "infiniband.cm.req.localeecn" },
	{ "initiator_depth", "infiniband.cm.req.initdepth" },
	{ "remote_eecn", "infiniband.cm.req.remoteeecn" },
	{ "remote_cm_resp_timeout", "infiniband.cm.req.remoteresptout" },
	{ "transport_type", "infiniband.cm.req.transpsvctype" },
	{ "e2e_flow_ctrl", "infiniband.cm.req.e2eflowctrl" },
	{ "starting_psn", "infiniband.cm.req.startpsn" },
	{ "local_cm_resp_timeout", "infiniband.cm.req.localresptout" },
	{ "retry_count", "infiniband.cm.req.retrcount" },
	{ "pkey", "infiniband.cm.req.pkey" },
	{ "path_mtu", "infiniband.cm.req.pppmtu" },
	{ "rdc_exists", "infiniband.cm.req.rdcexist" },
	{ "rnr_retry_count", "infiniband.cm.req.rnrretrcount" },
	{ "max_cm_retries", "infiniband.cm.req.maxcmretr" },
	{ "srq", "infiniband.cm.req.srq" },
	{ "ext_transport_type", "infiniband.cm.req.ext_transport" },
	REQ_PATH_MAP(primary, "prim", ORACLE_AS_GID),
	/* the alternate GIDs are FT_BYTES in Wireshark 4.0 */
	REQ_PATH_MAP(alternate, "alt", ORACLE_AS_FIELD),
	/* Wireshark 4.0 shows the SAP bit among reserved bits */
	{ "sap_supported", NULL },
	{ "private_data", "infiniband.cm.req.private" },
};

static const struct oracle_map rep_map[] = {
	{ "local_comm_id", "infiniband.cm.rep" },
	{ "remote_comm_id", "infiniband.cm.rep.remotecommid" },
	{ "local_qkey", "infiniband.cm.rep.localqkey" },
	{ "local_qpn", "infiniband.cm.rep.localqpn" },
	/* Wireshark 4.0 shows the VendorID bytes as reserved */
	{ "vendor_id_hi", NULL },
	{ "local_eecn", "infiniband.cm.rep.localeecn" },
	{ "vendor_id_mid", NULL },
	{ "starting_psn", "infiniband.cm.rep.startpsn" },
	{ "vendor_id_lo", NULL },
	{ "resp_resources", "infiniband.cm.rep.respres" },
	{ "initiator_depth", "infiniband.cm.rep.initdepth" },
	{ "target_ack_delay", "infiniband.cm.rep.tgtackdelay" },
	{ "failover_accepted", "infiniband.cm.rep.failoveracc" },
	{ "e2e_flow_ctrl", "infiniband.cm.rep.e2eflowctrl" },
	{ "rnr_retry_count", "infiniband.cm.rep.rnrretrcount" },
	{ "srq", "infiniband.cm.rep.srq" },
	{ "local_ca_guid", "infiniband.cm.rep.localcaguid" },
	{ "private_data", "infiniband.cm.rep.private" },
};

static const struct oracle_map rej_map[] = {
	{ "local_comm_id", "infiniband.cm.rej.localcommid" },
	{ "remote_comm_id", "infiniband.cm.rej.remotecommid" },
	{ "msg_rejected", "infiniband.cm.rej.msgrej" },
	{ "reject_info_len", "infiniband.cm.rej.rejinfolen" },
	{ "reason", "infiniband.cm.rej.reason" },
	{ "ari", "infiniband.cm.rej.ari" },
	{ "private_data", "infiniband.cm.rej.private" },
};

static const struct oracle_map rtu_map[] = {
	{ "local_comm_id", "infiniband.cm.rtu.localcommid" },
	{ "remote_comm_id", "infiniband.cm.rtu.remotecommid" },
	{ "private_data", "infiniband.cm.rtu.private" },
};

static const struct oracle_map dreq_map[] = {
	{ "local_comm_id", "infiniband.cm.dreq.localcommid" },
	{ "remote_comm_id", "infiniband.cm.dreq.remotecommid" },
	/* Wireshark 4.0 registers this DREQ field under cm.req */
	{ "remote_qpn_eecn", "infiniband.cm.req.remoteqpneecn" },
	{ "private_data", "infiniband.cm.dreq.private" },
};

static const struct oracle_map drep_map[] = {
	{ "local_comm_id", "infiniband.cm.drsp.localcommid" },
	{ "remote_comm_id", "infiniband.cm.drsp.remotecommid" },
	{ "private_data", "infiniband.cm.drsp.private" },
};

/* Messages Wireshark 4.0 labels but does not decode */
static const struct oracle_map mra_map[] = {
	{ "local_comm_id", NULL }, { "remote_comm_id", NULL },
	{ "msg_mraed", NULL }, { "service_timeout", NULL },
	{ "private_data", NULL },
};

static const struct oracle_map lap_map[] = {
	{ "local_comm_id", NULL }, { "remote_comm_id", NULL },
	{ "remote_qpn_eecn", NULL }, { "remote_cm_resp_timeout", NULL },
	{ "alternate.local_lid", NULL }, { "alternate.remote_lid", NULL },
	{ "alternate.local_gid", NULL }, { "alternate.remote_gid", NULL },
	{ "alternate.flow_label", NULL }, { "alternate.tclass", NULL },
	{ "alternate.hop_limit", NULL }, { "alternate.packet_rate", NULL },
	{ "alternate.sl", NULL }, { "alternate.subnet_local", NULL },
	{ "alternate.local_ack_timeout", NULL }, { "private_data", NULL },
};

static const struct oracle_map apr_map[] = {
	{ "local_comm_id", NULL }, { "remote_comm_id", NULL },
	{ "add_info_len", NULL }, { "ap_status", NULL },
	{ "add_info", NULL }, { "private_data", NULL },
};

static const struct oracle_map sidr_req_map[] = {
	{ "request_id", NULL }, { "pkey", NULL }, { "service_id", NULL },
	{ "private_data", NULL },
};

static const struct oracle_map sidr_rep_map[] = {
	{ "request_id", NULL }, { "status", NULL }, { "add_info_len", NULL },
	{ "vendor_id_hi", NULL }, { "qpn", NULL }, { "vendor_id_lo", NULL },
	{ "service_id", NULL }, { "qkey", NULL }, { "class_port_info", NULL },
	{ "private_data", NULL },
};

struct kind {
	const char *name;
	uint16_t attr_id;
	const struct mpd_layout *l;
	const struct oracle_map *map;
	size_t nmap;
};

static const struct kind kinds[] = {
	{ "REQ", MPD_ATTR_CM_REQ, &mpd_cm_req_layout, req_map, N(req_map) },
	{ "MRA", MPD_ATTR_CM_MRA, &mpd_cm_mra_layout, mra_map, N(mra_map) },
	{ "REJ", MPD_ATTR_CM_REJ, &mpd_cm_rej_layout, rej_map, N(rej_map) },
	{ "REP", MPD_ATTR_CM_REP, &mpd_cm_rep_layout, rep_map, N(rep_map) },
	{ "RTU", MPD_ATTR_CM_RTU, &mpd_cm_rtu_layout, rtu_map, N(rtu_map) },
	{ "DREQ", MPD_ATTR_CM_DREQ, &mpd_cm_dreq_layout, dreq_map,
	  N(dreq_map) },
	{ "DREP", MPD_ATTR_CM_DREP, &mpd_cm_drep_layout, drep_map,
	  N(drep_map) },
	{ "SIDR_REQ", MPD_ATTR_CM_SIDR_REQ, &mpd_cm_sidr_req_layout,
	  sidr_req_map, N(sidr_req_map) },
	{ "SIDR_REP", MPD_ATTR_CM_SIDR_REP, &mpd_cm_sidr_rep_layout,
	  sidr_rep_map, N(sidr_rep_map) },
	{ "LAP", MPD_ATTR_CM_LAP, &mpd_cm_lap_layout, lap_map, N(lap_map) },
	{ "APR", MPD_ATTR_CM_APR, &mpd_cm_apr_layout, apr_map, N(apr_map) },
};

/* An IPv4-mapped GID (RoCEv2 over IPv4, IBA A17.4.5.1) */
static void
v4_gid(uint8_t gid[16])
{
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = 10;
	rnd_bytes(gid + 13, 3);
}

/* What Wireshark 4.0 shows for a REQ path's flow label and packet rate:
 * bytes 0-2 of the word under mask 0xfffff000 (the label's top 12 bits)
 * and byte 0 under mask 0x3f. */
static void
expect_req_quirks(struct oracle *o, int fr, const struct mpd_cm_path *p,
		  const char *ws)
{
	uint32_t word = p->flow_label << 12 | p->packet_rate;
	char field[64];

	snprintf(field, sizeof(field), "infiniband.cm.req.%s_flowlabel", ws);
	oracle_expect_uint(o, fr, field, 0, (word >> 8) >> 12);
	snprintf(field, sizeof(field), "infiniband.cm.req.%s_pktrate", ws);
	oracle_expect_uint(o, fr, field, 0, (word >> 24) & 0x3f);
}

static void
add_msg(struct oracle *o, enum mpd_link link, int ip_ver, const char *lname,
	const struct kind *k)
{
	union {
		struct mpd_cm_req req;
		struct mpd_cm_mra mra;
		struct mpd_cm_rej rej;
		struct mpd_cm_rep rep;
		struct mpd_cm_rtu rtu;
		struct mpd_cm_dreq dreq;
		struct mpd_cm_drep drep;
		struct mpd_cm_sidr_req sidr_req;
		struct mpd_cm_sidr_rep sidr_rep;
		struct mpd_cm_lap lap;
		struct mpd_cm_apr apr;
	} msg;
	uint8_t data[MPD_CM_DATA_LEN], mad[MPD_MAD_LEN];
	struct oracle_map map[64];
	bool v4 = false;
	struct mpd_mad m;
	struct mpd_pkt p;
	char label[96];
	size_t i;
	int fr, n;

	oracle_pkt_init(&p, link, 1, 1);
	if (ip_ver)
		p.ip_ver = (uint8_t)ip_ver;
	memset(&msg, 0, sizeof(msg));
	lc_random_fill(k->l, &msg);
	memcpy(map, k->map, k->nmap * sizeof(map[0]));
	if (k->l == &mpd_cm_req_layout) {
		/* keep clear of the RDMA IP CM ServiceID prefix (IBA A11.2),
		 * which Wireshark decodes as a different layout */
		if ((msg.req.service_id >> 24) == 1)
			msg.req.service_id |= 1ull << 63;
		/* over IPv4 Wireshark shows the primary GIDs as addresses */
		v4 = link == MPD_LINK_ROCE_V2 && p.ip_ver == 4;
		if (v4) {
			v4_gid(msg.req.primary.local_gid);
			v4_gid(msg.req.primary.remote_gid);
			for (i = 0; i < k->nmap; i++)
				if (strstr(map[i].member, "primary.") &&
				    strstr(map[i].member, "_gid"))
					map[i].tshark = NULL;
		}
	}
	n = mpd_layout_encode(k->l, &msg, data, sizeof(data));
	snprintf(label, sizeof(label), "%s%s CM %s", lname,
		 link == MPD_LINK_ROCE_V2 ? (p.ip_ver == 4 ? " IPv4" : " IPv6")
					  : "", k->name);
	if (!ok(n == MPD_CM_DATA_LEN, "%s: message encodes", label))
		return;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_CM;
	m.hdr.class_version = MPD_CM_CLASS_VERSION;
	m.hdr.method = MPD_METHOD_SEND;
	m.hdr.tid = rnd64();
	m.hdr.attr_id = k->attr_id;
	if (!ok(mpd_mad_encode(&m, data, sizeof(data), mad, sizeof(mad)) ==
		MPD_MAD_LEN, "%s: MAD encodes", label))
		return;

	fr = oracle_add_pkt(o, label, &p, mad, sizeof(mad));
	if (!fr)
		return;
	oracle_expect_mad_hdr(o, fr, &m, true);
	/* every CM message: the 232 data bytes right after the MAD header */
	oracle_expect_bytes(o, fr, "infiniband.smplid.smpdata", 0, data,
			    sizeof(data));
	oracle_expect_layout(o, fr, k->l, &msg, map, k->nmap, 0);
	if (k->l != &mpd_cm_req_layout)
		return;
	expect_req_quirks(o, fr, &msg.req.primary, "prim");
	expect_req_quirks(o, fr, &msg.req.alternate, "alt");
	/* SAP sits in byte 139's low bits, which Wireshark 4.0 shows as a
	 * second alt_reserved1 (mask 0x07) */
	oracle_expect_uint(o, fr, "infiniband.cm.req.alt_reserved1", 1,
			   (unsigned int)msg.req.sap_supported << 2);
	if (v4) {
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, msg.req.primary.local_gid + 12, a,
			  sizeof(a));
		oracle_expect_str(o, fr, "infiniband.cm.req.prim_localgid_ipv4",
				  0, a);
		inet_ntop(AF_INET, msg.req.primary.remote_gid + 12, a,
			  sizeof(a));
		oracle_expect_str(o, fr,
				  "infiniband.cm.req.prim_remotegid_ipv4", 0,
				  a);
		oracle_expect_absent(o, fr, "infiniband.cm.req.prim_localgid");
	} else {
		oracle_expect_absent(o, fr,
				     "infiniband.cm.req.prim_localgid_ipv4");
	}
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
	int rep;

	tap_seed();
	o = oracle_new("cm");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	/* RoCEv2 twice: over IPv6, then over IPv4 */
	for (rep = 0; rep < 2; rep++)
		for (l = 0; l < N(links); l++) {
			if (rep && links[l] != MPD_LINK_ROCE_V2)
				continue;
			for (k = 0; k < N(kinds); k++)
				add_msg(o, links[l],
					links[l] == MPD_LINK_ROCE_V2 ?
					(rep ? 4 : 6) : 0,
					names[l], &kinds[k]);
		}
	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
