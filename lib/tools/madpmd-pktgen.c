/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd-pktgen: writes MAD traffic built with the wire codec into a
 * pcapng, for replay into a port (net_pcap rx_pcap=) or a look in
 * Wireshark.
 *
 *   madpmd-pktgen [-o FILE] [--link ib|roce|roce1|all] [--kind KIND]
 *                 [--dst-mac MAC] [--count N]
 *
 * KIND is "demo" (an SM's first words with a port, a PerfMgt query, an SA
 * PathRecord query and a CM handshake) or "perf-get" (N PerfMgt requests,
 * for driving a port's PMA).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "madpmd/attr.h"
#include "madpmd/cm.h"
#include "madpmd/mad.h"
#include "madpmd/pcapng.h"
#include "madpmd/sa.h"
#include "madpmd/wire.h"


struct gen {
	struct mpd_pcapng *w;
	int if_eth;
	int if_ib;
	uint64_t ts;
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	unsigned long frames;
	int err;
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: madpmd-pktgen [-o FILE] [--link ib|roce|roce1|all] "
		"[--kind demo|perf-get] [--dst-mac MAC] [--count N]\n"
		"       madpmd-pktgen --help | --version\n"
		"  -o FILE       output pcapng (default: stdout)\n"
		"  --link L      native IB, RoCEv2, RoCEv1, or all (demo default: all,\n"
		"                perf-get default: roce)\n"
		"  --kind K      demo: SMPs, PerfMgt, SA and CM on every link\n"
		"                perf-get: N PerfMgt Get requests\n"
		"  --dst-mac MAC destination MAC of RoCE frames (default 02:00:00:00:00:01)\n"
		"  --count N     number of requests for perf-get (default 16)\n");
}

static int
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

/* Interfaces are declared on first use, so a single-link file has one
 * link type (libpcap, and so net_pcap, read only those). */
static int
iface(struct gen *g, enum mpd_link link)
{
	if (link == MPD_LINK_IB) {
		if (g->if_ib < 0)
			g->if_ib = mpd_pcapng_add_interface(g->w,
					MPD_LINKTYPE_UPPER_PDU, "ib",
					"native IB (LRH first), exported PDU");
		return g->if_ib;
	}
	if (g->if_eth < 0)
		g->if_eth = mpd_pcapng_add_interface(g->w,
				MPD_LINKTYPE_ETHERNET, "roce", "RoCE wire");
	return g->if_eth;
}

/* Frame a 256-byte MAD on QP qp (src: the requester side when !resp). */
static void
emit(struct gen *g, enum mpd_link link, uint32_t qp, bool resp,
     uint16_t pkey, const uint8_t *mad)
{
	uint8_t frame[512];
	struct mpd_pkt p;
	int n, ifid;

	if (g->err)
		return;
	memset(&p, 0, sizeof(p));
	p.link = link;
	p.lrh.vl = qp == 0 ? MPD_VL15 : 0;
	p.lrh.dlid = resp ? 1 : 2;
	p.lrh.slid = resp ? 2 : 1;
	if (qp == 0) {	/* directed route from the SM: permissive LIDs */
		p.lrh.dlid = MPD_LID_PERMISSIVE;
		p.lrh.slid = MPD_LID_PERMISSIVE;
	}
	p.has_grh = link == MPD_LINK_ROCE_V1;
	p.grh.ip_ver = 6;
	p.grh.next_hdr = MPD_GRH_NEXT_HDR_IBA;
	p.grh.hop_limit = 64;
	p.grh.sgid[0] = p.grh.dgid[0] = 0xfe;
	p.grh.sgid[1] = p.grh.dgid[1] = 0x80;
	p.grh.sgid[15] = resp ? 2 : 1;
	p.grh.dgid[15] = resp ? 1 : 2;
	memcpy(p.eth.dst, resp ? g->src_mac : g->dst_mac, 6);
	memcpy(p.eth.src, resp ? g->dst_mac : g->src_mac, 6);
	p.ip_ver = 4;
	p.ip4.ttl = 64;
	p.ip4.frag = 0x4000;
	p.ip4.src[0] = p.ip4.dst[0] = 192;
	p.ip4.src[1] = p.ip4.dst[1] = 168;
	p.ip4.src[2] = p.ip4.dst[2] = 77;
	p.ip4.src[3] = resp ? 2 : 1;
	p.ip4.dst[3] = resp ? 1 : 2;
	p.udp.sport = 0xc000 | (uint16_t)(g->frames & 0x3fff);
	p.udp.dport = MPD_ROCE_UDP_PORT;
	p.bth.opcode = MPD_OP_UD_SEND_ONLY;
	p.bth.pkey = pkey;
	p.bth.dest_qp = qp;
	p.bth.psn = (uint32_t)g->frames;
	p.deth.qkey = qp == 0 ? 0 : MPD_QP1_QKEY;
	p.deth.src_qp = qp;
	n = mpd_pkt_encode(&p, mad, MPD_MAD_LEN, frame, sizeof(frame));
	ifid = iface(g, link);
	if (n < 0 || ifid < 0) {
		fprintf(stderr, "madpmd-pktgen: cannot encode a frame: %s\n",
			n < 0 ? mpd_strerror(n) : strerror(-ifid));
		g->err = 1;
		return;
	}
	g->ts += 1000 * 37;	/* 37 us apart */
	if (link == MPD_LINK_IB)
		n = mpd_pcapng_write_exported(g->w, (uint32_t)ifid, g->ts,
					      MPD_PCAPNG_DIR_UNKNOWN,
					      "infiniband",
					      MPD_EXP_PDU_NO_PORT,
					      MPD_EXP_PDU_NO_PORT, frame,
					      (size_t)n);
	else
		n = mpd_pcapng_write(g->w, (uint32_t)ifid, g->ts,
				     MPD_PCAPNG_DIR_UNKNOWN, frame, (size_t)n);
	if (n) {
		fprintf(stderr, "madpmd-pktgen: write failed: %s\n",
			strerror(-n));
		g->err = 1;
	}
	g->frames++;
}

static void
mad_init(struct mpd_mad *m, uint8_t cls, uint8_t ver, uint8_t method,
	 uint16_t attr, uint64_t tid)
{
	memset(m, 0, sizeof(*m));
	m->hdr.base_version = MPD_BASE_VERSION;
	m->hdr.mgmt_class = cls;
	m->hdr.class_version = ver;
	m->hdr.method = method;
	m->hdr.attr_id = attr;
	m->hdr.tid = tid;
}

/* A request and, when data_resp is given, its response. */
static void
exchange(struct gen *g, enum mpd_link link, struct mpd_mad *m,
	 const void *req_data, size_t req_len, const void *resp_data,
	 size_t resp_len, uint8_t resp_method)
{
	uint32_t qp = m->hdr.mgmt_class == MPD_CLASS_SUBN_LID ||
		      m->hdr.mgmt_class == MPD_CLASS_SUBN_DR ? 0 : 1;
	uint8_t mad[MPD_MAD_LEN];

	if (mpd_mad_encode(m, req_data, req_len, mad, sizeof(mad)) < 0) {
		g->err = 1;
		return;
	}
	emit(g, link, qp, false, 0xffff, mad);
	if (!resp_method)
		return;
	m->hdr.method = resp_method;
	if (mpd_mad_is_dr(&m->hdr)) {
		m->hdr.status |= MPD_SMP_STATUS_D;
		m->return_path[1] = 1;
		m->hdr.class_specific = 0 << 8 | mpd_smp_hop_cnt(&m->hdr);
	}
	if (mpd_mad_encode(m, resp_data, resp_len, mad, sizeof(mad)) < 0) {
		g->err = 1;
		return;
	}
	emit(g, link, qp, true, 0xffff, mad);
}

static void
demo_smps(struct gen *g, uint64_t *tid)
{
	struct mpd_node_info ni = {
		.base_version = 1, .class_version = 1,
		.node_type = MPD_NODE_TYPE_CA, .num_ports = 1,
		.sys_image_guid = 0x0002c90300001000ull,
		.node_guid = 0x0002c90300001000ull,
		.port_guid = 0x0002c90300001001ull,
		.partition_cap = 32, .device_id = 0x1003, .revision = 1,
		.local_port_num = 1, .vendor_id = 0x0002c9,
	};
	struct mpd_node_desc nd = { .desc = "madpmd demo HCA-1" };
	struct mpd_port_info pi;
	uint8_t data[MPD_SMP_DATA_LEN], rdata[MPD_SMP_DATA_LEN];
	struct mpd_mad m;

	/* the SM's first sweep: one hop by directed route */
	mad_init(&m, MPD_CLASS_SUBN_DR, 1, MPD_METHOD_GET,
		 MPD_ATTR_NODE_INFO, ++*tid);
	m.hdr.class_specific = 1 << 8 | 1;
	m.dr_slid = m.dr_dlid = MPD_LID_PERMISSIVE;
	m.initial_path[1] = 1;
	mpd_layout_encode(&mpd_node_info_layout, &ni, rdata, sizeof(rdata));
	exchange(g, MPD_LINK_IB, &m, NULL, 0, rdata, sizeof(rdata),
		 MPD_METHOD_GET_RESP);

	memset(&pi, 0, sizeof(pi));
	pi.gid_prefix = 0xfe80000000000000ull;
	pi.capability_mask = 0x02010048;
	pi.local_port_num = 1;
	pi.link_width_enabled = 3;
	pi.link_width_supported = 3;
	pi.link_width_active = 2;
	pi.link_speed_supported = 7;
	pi.port_state = MPD_PORT_STATE_INIT;
	pi.port_phys_state = MPD_PHYS_STATE_LINKUP;
	pi.link_down_default_state = MPD_PHYS_STATE_POLLING;
	pi.link_speed_active = 4;
	pi.link_speed_enabled = 7;
	pi.neighbor_mtu = 5;
	pi.vl_cap = 1;
	pi.mtu_cap = 5;
	pi.operational_vls = 1;
	pi.guid_cap = 1;
	pi.subnet_timeout = 18;
	pi.resp_time_value = 16;
	mad_init(&m, MPD_CLASS_SUBN_DR, 1, MPD_METHOD_GET,
		 MPD_ATTR_PORT_INFO, ++*tid);
	m.hdr.class_specific = 1 << 8 | 1;
	m.dr_slid = m.dr_dlid = MPD_LID_PERMISSIVE;
	m.initial_path[1] = 1;
	mpd_layout_encode(&mpd_port_info_layout, &pi, rdata, sizeof(rdata));
	exchange(g, MPD_LINK_IB, &m, NULL, 0, rdata, sizeof(rdata),
		 MPD_METHOD_GET_RESP);

	/* LID 2, SM at LID 1, Armed */
	pi.lid = 2;
	pi.master_sm_lid = 1;
	pi.port_state = MPD_PORT_STATE_ARMED;
	pi.port_phys_state = 0;
	mad_init(&m, MPD_CLASS_SUBN_DR, 1, MPD_METHOD_SET,
		 MPD_ATTR_PORT_INFO, ++*tid);
	m.hdr.class_specific = 1 << 8 | 1;
	m.dr_slid = m.dr_dlid = MPD_LID_PERMISSIVE;
	m.initial_path[1] = 1;
	mpd_layout_encode(&mpd_port_info_layout, &pi, data, sizeof(data));
	pi.port_phys_state = MPD_PHYS_STATE_LINKUP;
	mpd_layout_encode(&mpd_port_info_layout, &pi, rdata, sizeof(rdata));
	exchange(g, MPD_LINK_IB, &m, data, sizeof(data), rdata, sizeof(rdata),
		 MPD_METHOD_GET_RESP);

	mad_init(&m, MPD_CLASS_SUBN_LID, 1, MPD_METHOD_GET,
		 MPD_ATTR_NODE_DESC, ++*tid);
	mpd_layout_encode(&mpd_node_desc_layout, &nd, rdata, sizeof(rdata));
	exchange(g, MPD_LINK_IB, &m, NULL, 0, rdata, sizeof(rdata),
		 MPD_METHOD_GET_RESP);
}

static void
perf_get(struct gen *g, enum mpd_link link, uint64_t *tid, bool with_resp)
{
	struct mpd_port_counters pc = { .port_select = 1 };
	struct mpd_class_port_info ci = {
		.base_version = 1, .class_version = 1,
		.capability_mask = 1u << 9, .resp_time_value = 16,
	};
	uint8_t data[192], rdata[192];
	struct mpd_mad m;

	mad_init(&m, MPD_CLASS_PERF, 1, MPD_METHOD_GET,
		 MPD_ATTR_CLASS_PORT_INFO, ++*tid);
	mpd_layout_encode(&mpd_class_port_info_layout, &ci, rdata,
			  sizeof(rdata));
	exchange(g, link, &m, NULL, 0, rdata, sizeof(rdata),
		 with_resp ? MPD_METHOD_GET_RESP : 0);

	mad_init(&m, MPD_CLASS_PERF, 1, MPD_METHOD_GET,
		 MPD_ATTR_PERF_PORT_COUNTERS, ++*tid);
	mpd_layout_encode(&mpd_port_counters_layout, &pc, data, sizeof(data));
	pc.port_xmit_data = 123456;
	pc.port_rcv_data = 654321;
	pc.port_xmit_pkts = 1234;
	pc.port_rcv_pkts = 4321;
	pc.link_downed_counter = 1;
	mpd_layout_encode(&mpd_port_counters_layout, &pc, rdata,
			  sizeof(rdata));
	exchange(g, link, &m, data, sizeof(data), rdata, sizeof(rdata),
		 with_resp ? MPD_METHOD_GET_RESP : 0);
}

static void
path_record(struct mpd_path_record *pr, uint8_t to)
{
	memset(pr, 0, sizeof(*pr));
	pr->dgid[0] = pr->sgid[0] = 0xfe;
	pr->dgid[1] = pr->sgid[1] = 0x80;
	pr->sgid[15] = 1;
	pr->dgid[15] = to;
	pr->dlid = to;
	pr->slid = 1;
	pr->reversible = 1;
	pr->numb_path = 1;
	pr->pkey = 0xffff;
	pr->mtu_selector = 2;
	pr->mtu = 5;
	pr->rate_selector = 2;
	pr->rate = 7;
	pr->pkt_life_selector = 2;
	pr->pkt_life = 18;
	pr->hop_limit = 0;
}

static void
demo_sa(struct gen *g, enum mpd_link link, uint64_t *tid)
{
	struct mpd_path_record pr;
	uint8_t data[MPD_SA_DATA_LEN], rdata[MPD_SA_DATA_LEN];
	struct mpd_mad m;
	unsigned int i;

	mad_init(&m, MPD_CLASS_SUBN_ADM, MPD_SA_CLASS_VERSION,
		 MPD_METHOD_GET_TABLE, MPD_ATTR_SA_PATH_RECORD, ++*tid);
	path_record(&pr, 0);
	memset(pr.dgid, 0, sizeof(pr.dgid));
	pr.dlid = 0;
	pr.numb_path = 1;
	m.comp_mask = MPD_SA_PR_COMP_SGID | MPD_SA_PR_COMP_NUMB_PATH;
	m.rmpp.version = MPD_RMPP_VERSION;
	mpd_layout_encode(&mpd_path_record_layout, &pr, data, sizeof(data));
	memset(rdata, 0, sizeof(rdata));
	for (i = 0; i < 3; i++) {	/* three records in one segment */
		path_record(&pr, (uint8_t)(2 + i));
		mpd_layout_encode(&mpd_path_record_layout, &pr, rdata + 64 * i,
				  sizeof(rdata) - 64 * i);
	}
	/* the request, then a single-segment RMPP response */
	{
		uint8_t mad[MPD_MAD_LEN];

		if (mpd_mad_encode(&m, data, 64, mad, sizeof(mad)) < 0)
			g->err = 1;
		else
			emit(g, link, 1, false, 0xffff, mad);
		m.hdr.method = MPD_METHOD_GET_TABLE_RESP;
		m.attr_offset = 64 / 8;
		m.rmpp.type = MPD_RMPP_TYPE_DATA;
		m.rmpp.flags = MPD_RMPP_FLAG_ACTIVE | MPD_RMPP_FLAG_FIRST |
			       MPD_RMPP_FLAG_LAST;
		m.rmpp.resp_time = 0x1f;
		m.rmpp.data1 = 1;
		m.rmpp.data2 = MPD_SA_HDR_END - 36 + 3 * 64;
		if (mpd_mad_encode(&m, rdata, sizeof(rdata), mad,
				   sizeof(mad)) < 0)
			g->err = 1;
		else
			emit(g, link, 1, true, 0xffff, mad);
	}
}

static void
demo_cm(struct gen *g, enum mpd_link link, uint64_t *tid)
{
	struct mpd_cm_req req;
	struct mpd_cm_rep rep;
	struct mpd_cm_rtu rtu;
	uint8_t data[MPD_CM_DATA_LEN], mad[MPD_MAD_LEN];
	struct mpd_mad m;

	memset(&req, 0, sizeof(req));
	req.local_comm_id = 0x11223344;
	req.service_id = 0x0000000001064000ull | 4791;	/* RDMA_PS_TCP */
	req.local_ca_guid = 0x0002c90300001000ull;
	req.local_qpn = 0x000123;
	req.resp_resources = 4;
	req.initiator_depth = 4;
	req.remote_cm_resp_timeout = 20;
	req.transport_type = MPD_CM_TRANSPORT_RC;
	req.starting_psn = 0x00abcd;
	req.local_cm_resp_timeout = 20;
	req.retry_count = 7;
	req.pkey = 0xffff;
	req.path_mtu = 5;
	req.rnr_retry_count = 7;
	req.max_cm_retries = 15;
	req.primary.local_lid = 1;
	req.primary.remote_lid = 2;
	req.primary.local_gid[0] = req.primary.remote_gid[0] = 0xfe;
	req.primary.local_gid[1] = req.primary.remote_gid[1] = 0x80;
	req.primary.local_gid[15] = 1;
	req.primary.remote_gid[15] = 2;
	req.primary.packet_rate = 7;
	req.primary.subnet_local = 1;
	req.primary.local_ack_timeout = 18;

	memset(&rep, 0, sizeof(rep));
	rep.local_comm_id = 0x55667788;
	rep.remote_comm_id = req.local_comm_id;
	rep.local_qpn = 0x000456;
	rep.starting_psn = 0x00dcba;
	rep.resp_resources = 4;
	rep.initiator_depth = 4;
	rep.target_ack_delay = 15;
	rep.rnr_retry_count = 7;
	rep.local_ca_guid = 0x0002c90300002000ull;

	memset(&rtu, 0, sizeof(rtu));
	rtu.local_comm_id = req.local_comm_id;
	rtu.remote_comm_id = rep.local_comm_id;

	mad_init(&m, MPD_CLASS_CM, MPD_CM_CLASS_VERSION, MPD_METHOD_SEND,
		 MPD_ATTR_CM_REQ, ++*tid);
	if (mpd_layout_encode(&mpd_cm_req_layout, &req, data, sizeof(data)) < 0 ||
	    mpd_mad_encode(&m, data, sizeof(data), mad, sizeof(mad)) < 0) {
		g->err = 1;
		return;
	}
	emit(g, link, 1, false, 0xffff, mad);
	mad_init(&m, MPD_CLASS_CM, MPD_CM_CLASS_VERSION, MPD_METHOD_SEND,
		 MPD_ATTR_CM_REP, *tid);
	if (mpd_layout_encode(&mpd_cm_rep_layout, &rep, data, sizeof(data)) < 0 ||
	    mpd_mad_encode(&m, data, sizeof(data), mad, sizeof(mad)) < 0) {
		g->err = 1;
		return;
	}
	emit(g, link, 1, true, 0xffff, mad);
	mad_init(&m, MPD_CLASS_CM, MPD_CM_CLASS_VERSION, MPD_METHOD_SEND,
		 MPD_ATTR_CM_RTU, *tid);
	if (mpd_layout_encode(&mpd_cm_rtu_layout, &rtu, data, sizeof(data)) < 0 ||
	    mpd_mad_encode(&m, data, sizeof(data), mad, sizeof(mad)) < 0) {
		g->err = 1;
		return;
	}
	emit(g, link, 1, false, 0xffff, mad);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "link", required_argument, NULL, 'l' },
		{ "kind", required_argument, NULL, 'k' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "count", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const enum mpd_link all[] = {
		MPD_LINK_IB, MPD_LINK_ROCE_V2, MPD_LINK_ROCE_V1,
	};
	const char *out = "-", *link = NULL, *kind = "demo";
	struct gen g = { .if_eth = -1, .if_ib = -1 };
	unsigned long count = 16, i;
	uint64_t tid = 0x5eed0000;
	unsigned int l;
	char *end;
	int c, rc;

	parse_mac("02:00:00:00:00:01", g.dst_mac);
	parse_mac("02:00:00:00:00:fe", g.src_mac);
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'l':
			link = optarg;
			break;
		case 'k':
			kind = optarg;
			break;
		case 'm':
			if (parse_mac(optarg, g.dst_mac)) {
				fprintf(stderr, "madpmd-pktgen: --dst-mac %s is not a MAC address (e.g. 02:00:00:00:00:01)\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			count = strtoul(optarg, &end, 0);
			if (*end || count == 0 || count > 1000000) {
				fprintf(stderr, "madpmd-pktgen: --count %s: give 1 to 1000000\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("madpmd-pktgen " MADPMD_VERSION "\n");
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (strcmp(kind, "demo") != 0 && strcmp(kind, "perf-get") != 0) {
		fprintf(stderr, "madpmd-pktgen: unknown --kind %s: demo or perf-get\n",
			kind);
		return 2;
	}
	if (!link)
		link = strcmp(kind, "demo") == 0 ? "all" : "roce";
	if (strcmp(link, "all") != 0 && strcmp(link, "ib") != 0 &&
	    strcmp(link, "roce") != 0 && strcmp(link, "roce1") != 0) {
		fprintf(stderr, "madpmd-pktgen: unknown --link %s: ib, roce, roce1 or all\n",
			link);
		return 2;
	}
	g.w = mpd_pcapng_open(out);
	if (!g.w) {
		fprintf(stderr, "madpmd-pktgen: cannot write %s: %s\n", out,
			strerror(errno));
		return 1;
	}
	g.ts = (uint64_t)time(NULL) * 1000000000ull;
	for (l = 0; l < 3; l++) {
		static const char *const names[] = { "ib", "roce", "roce1" };

		if (strcmp(link, "all") != 0 && strcmp(link, names[l]) != 0)
			continue;
		if (strcmp(kind, "perf-get") == 0) {
			for (i = 0; i < count; i++)
				perf_get(&g, all[l], &tid, false);
			continue;
		}
		if (all[l] == MPD_LINK_IB)
			demo_smps(&g, &tid);
		perf_get(&g, all[l], &tid, true);
		demo_sa(&g, all[l], &tid);
		demo_cm(&g, all[l], &tid);
	}
	rc = mpd_pcapng_close(g.w);
	if (rc || g.err) {
		fprintf(stderr, "madpmd-pktgen: writing %s failed%s%s\n", out,
			rc ? ": " : "", rc ? strerror(-rc) : "");
		return 1;
	}
	if (strcmp(out, "-") != 0)
		fprintf(stderr, "madpmd-pktgen: %lu frames written to %s\n",
			g.frames, out);
	return 0;
}
