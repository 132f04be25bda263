/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MADs: the common header (IBA 13.4.3), the class headers (SMP 14.2.1,
 * RMPP 13.6.2, SA 15.2.1, vendor range 2, PerfMgt 16.1.1), RMPP reassembly
 * of multi-segment messages (reassemble.h, keyed by addresses + TID),
 * expert info on RMPP trouble, request/response matching by TID with the
 * response time, and the class data decoded from the codec's layouts.
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/expert.h>
#include <epan/proto_data.h>
#include <epan/reassemble.h>
#include <epan/tap.h>
#include <epan/to_str.h>
#include <wiretap/wtap.h>
#include <wsutil/nstime.h>

#include "madpmd/attr.h"
#include "madpmd/cm.h"
#include "madpmd/mad.h"
#include "madpmd/sa.h"
#include "madpmd.h"

/* ---- fields ----------------------------------------------------------- */

static int hf_mad = -1;
static int hf_mad_basever = -1, hf_mad_mgmtclass = -1, hf_mad_classver = -1;
static int hf_mad_method = -1;
static int hf_mad_r = -1, hf_mad_status = -1, hf_mad_classspecific = -1;
static int hf_mad_tid = -1;
static int hf_mad_attrid = -1, hf_mad_resv = -1, hf_mad_attrmod = -1;
static int hf_mad_data = -1;
static int hf_smp_mkey = -1, hf_smp_d = -1, hf_smp_status = -1;
static int hf_smp_hopptr = -1, hf_smp_hopcnt = -1;
static int hf_smp_drslid = -1, hf_smp_drdlid = -1, hf_smp_initpath = -1;
static int hf_smp_retpath = -1;
static int hf_rmpp_version = -1, hf_rmpp_type = -1, hf_rmpp_resptime = -1;
static int hf_rmpp_flags = -1;
static int hf_rmpp_flag_active = -1, hf_rmpp_flag_first = -1;
static int hf_rmpp_flag_last = -1;
static int hf_rmpp_status = -1, hf_rmpp_segnum = -1, hf_rmpp_paylen = -1;
static int hf_rmpp_nwl = -1;
static int hf_rmpp_data1 = -1, hf_rmpp_data2 = -1, hf_rmpp_missing = -1;
static int hf_rmpp_segdata = -1;
static int hf_sa_smkey = -1, hf_sa_attroffset = -1, hf_sa_compmask = -1;
static int hf_sa_records = -1;
static int hf_vendor_oui = -1;
static int hf_response_in = -1, hf_response_to = -1, hf_time = -1;
static int hf_frags = -1, hf_frag = -1, hf_frag_overlap = -1;
static int hf_frag_overlap_conflicts = -1;
static int hf_frag_multiple_tails = -1, hf_frag_too_long = -1;
static int hf_frag_error = -1;
static int hf_frag_count = -1, hf_reassembled_in = -1;
static int hf_reassembled_length = -1;
static int hf_reassembled_data = -1;

static gint ett_mad = -1, ett_mad_hdr = -1, ett_rmpp = -1, ett_rmpp_flags = -1;
static gint ett_sa = -1, ett_smp = -1;
static gint ett_frag = -1, ett_frags = -1;

static expert_field ei_rmpp_missing, ei_rmpp_abort, ei_rmpp_stop;
static expert_field ei_rmpp_incomplete, ei_mad_status, ei_short_mad;

static const fragment_items madpmd_frag_items = {
	&ett_frag, &ett_frags,
	&hf_frags, &hf_frag, &hf_frag_overlap, &hf_frag_overlap_conflicts,
	&hf_frag_multiple_tails, &hf_frag_too_long, &hf_frag_error,
	&hf_frag_count, &hf_reassembled_in, &hf_reassembled_length,
	&hf_reassembled_data, "RMPP segments"
};

static reassembly_table madpmd_reassembly;

/* ---- names ------------------------------------------------------------ */

static const value_string class_vals[] = {
	{ 0x01, "SubnMgt (LID routed)" },
	{ 0x03, "SubnAdm" },
	{ 0x04, "PerfMgt" },
	{ 0x05, "BM" },
	{ 0x06, "DevMgt" },
	{ 0x07, "ComMgt" },
	{ 0x08, "SNMP" },
	{ 0x21, "CongestionMgt" },
	{ 0x81, "SubnMgt (directed route)" },
	{ 0, NULL }
};

static const value_string method_vals[] = {
	{ 0x01, "Get" },
	{ 0x02, "Set" },
	{ 0x03, "Send" },
	{ 0x05, "Trap" },
	{ 0x06, "Report" },
	{ 0x07, "TrapRepress" },
	{ 0x12, "GetTable" },
	{ 0x13, "GetTraceTable" },
	{ 0x14, "GetMulti" },
	{ 0x15, "Delete" },
	{ 0x81, "GetResp" },
	{ 0x82, "SetResp" },
	{ 0x86, "ReportResp" },
	{ 0x92, "GetTableResp" },
	{ 0x93, "GetTraceTableResp" },
	{ 0x94, "GetMultiResp" },
	{ 0x95, "DeleteResp" },
	{ 0, NULL }
};

static const value_string smp_attr_vals[] = {
	{ 0x0002, "Notice" }, { 0x0003, "InformInfo" },
	{ 0x0010, "NodeDescription" }, { 0x0011, "NodeInfo" },
	{ 0x0012, "SwitchInfo" }, { 0x0014, "GUIDInfo" },
	{ 0x0015, "PortInfo" }, { 0x0016, "P_KeyTable" },
	{ 0x0017, "SLtoVLMappingTable" }, { 0x0018, "VLArbitrationTable" },
	{ 0x0019, "LinearForwardingTable" },
	{ 0x001a, "RandomForwardingTable" },
	{ 0x001b, "MulticastForwardingTable" }, { 0x0020, "SMInfo" },
	{ 0x0030, "VendorDiag" }, { 0x0031, "LedInfo" },
	{ 0, NULL }
};

static const value_string sa_attr_vals[] = {
	{ 0x0001, "ClassPortInfo" }, { 0x0002, "Notice" },
	{ 0x0003, "InformInfo" }, { 0x0011, "NodeRecord" },
	{ 0x0012, "PortInfoRecord" }, { 0x0013, "SLtoVLMappingTableRecord" },
	{ 0x0014, "SwitchInfoRecord" },
	{ 0x0015, "LinearForwardingTableRecord" },
	{ 0x0016, "RandomForwardingTableRecord" },
	{ 0x0017, "MulticastForwardingTableRecord" },
	{ 0x0018, "SMInfoRecord" }, { 0x0020, "LinkRecord" },
	{ 0x0030, "GuidInfoRecord" }, { 0x0031, "ServiceRecord" },
	{ 0x0033, "P_KeyTableRecord" }, { 0x0035, "PathRecord" },
	{ 0x0036, "VLArbitrationTableRecord" }, { 0x0038, "MCMemberRecord" },
	{ 0x0039, "TraceRecord" }, { 0x003a, "MultiPathRecord" },
	{ 0x003b, "ServiceAssociationRecord" }, { 0x00f3, "InformInfoRecord" },
	{ 0, NULL }
};

static const value_string perf_attr_vals[] = {
	{ 0x0001, "ClassPortInfo" }, { 0x0010, "PortSamplesControl" },
	{ 0x0011, "PortSamplesResult" }, { 0x0012, "PortCounters" },
	{ 0x0015, "PortRcvErrorDetails" }, { 0x0016, "PortXmitDiscardDetails" },
	{ 0x0017, "PortOpRcvCounters" }, { 0x0018, "PortFlowCtlCounters" },
	{ 0x0019, "PortVLOpPackets" }, { 0x001a, "PortVLOpData" },
	{ 0x001b, "PortVLXmitFlowCtlUpdateErrors" },
	{ 0x001c, "PortVLXmitWaitCounters" },
	{ 0x001d, "PortCountersExtended" },
	{ 0x001e, "PortSamplesResultExtended" },
	{ 0x0036, "PortXmitDataSL" }, { 0x0037, "PortRcvDataSL" },
	{ 0, NULL }
};

static const value_string cm_attr_vals[] = {
	{ 0x0001, "ClassPortInfo" }, { 0x0010, "REQ" }, { 0x0011, "MRA" },
	{ 0x0012, "REJ" }, { 0x0013, "REP" }, { 0x0014, "RTU" },
	{ 0x0015, "DREQ" }, { 0x0016, "DREP" }, { 0x0017, "SIDR_REQ" },
	{ 0x0018, "SIDR_REP" }, { 0x0019, "LAP" }, { 0x001a, "APR" },
	{ 0, NULL }
};

static const value_string rmpp_type_vals[] = {
	{ 1, "DATA" }, { 2, "ACK" }, { 3, "STOP" }, { 4, "ABORT" },
	{ 0, NULL }
};

static const value_string rmpp_status_vals[] = {
	{ 0, "Normal" },
	{ 1, "Resources exhausted" },
	{ 118, "Total time too long" },
	{ 119, "Inconsistent last and payload length" },
	{ 120, "Inconsistent first and segment number" },
	{ 121, "Bad RMPP type" },
	{ 122, "NewWindowLast too small" },
	{ 123, "Segment number too big" },
	{ 124, "Illegal status" },
	{ 125, "Unsupported version" },
	{ 126, "Too many retries" },
	{ 127, "Unspecified" },
	{ 0, NULL }
};

const char *
madpmd_class_name(guint8 mgmt_class)
{
	if (mgmt_class >= 0x09 && mgmt_class <= 0x0f)
		return "Vendor (range 1)";
	if (mgmt_class >= 0x30 && mgmt_class <= 0x4f)
		return "Vendor (range 2)";
	return val_to_str_const(mgmt_class, class_vals, "Unknown class");
}

const char *
madpmd_method_name(guint8 method)
{
	return val_to_str_const(method, method_vals, "Unknown method");
}

static const value_string *
attr_vals_of(guint8 mgmt_class)
{
	switch (mgmt_class) {
	case MPD_CLASS_SUBN_LID:
	case MPD_CLASS_SUBN_DR:
		return smp_attr_vals;
	case MPD_CLASS_SUBN_ADM:
		return sa_attr_vals;
	case MPD_CLASS_PERF:
		return perf_attr_vals;
	case MPD_CLASS_CM:
		return cm_attr_vals;
	default:
		return NULL;
	}
}

/* ---- layouts ------------------------------------------------------------ */

/* PerfMgt attributes the codec does not carry (IBA 16.1.4), for display. */
#define PF(n, off, w) { .name = (n), .bit_off = (off), .bits = (w),	\
	.mem_off = 0, .mem_size = 8, .kind = MPD_FK_UINT }
#define PERF_HEAD PF("port_select", 8, 8), PF("counter_select", 16, 16)

static const struct mpd_field rcv_err_fields[] = {
	PERF_HEAD,
	PF("port_local_physical_errors", 32, 16),
	PF("port_malformed_packet_errors", 48, 16),
	PF("port_buffer_overrun_errors", 64, 16),
	PF("port_dlid_mapping_errors", 80, 16),
	PF("port_vl_mapping_errors", 96, 16),
	PF("port_looping_errors", 112, 16),
};
static const struct mpd_layout rcv_err_layout =
	MPD_LAYOUT("PortRcvErrorDetails", 16, rcv_err_fields);

static const struct mpd_field xmit_disc_fields[] = {
	PERF_HEAD,
	PF("port_inactive_discards", 32, 16),
	PF("port_neighbor_mtu_discards", 48, 16),
	PF("port_sw_lifetime_limit_discards", 64, 16),
	PF("port_sw_hoq_lifetime_limit_discards", 80, 16),
};
static const struct mpd_layout xmit_disc_layout =
	MPD_LAYOUT("PortXmitDiscardDetails", 12, xmit_disc_fields);

static const struct mpd_field flow_ctl_fields[] = {
	PERF_HEAD,
	PF("port_xmit_flow_pkts", 32, 32),
	PF("port_rcv_flow_pkts", 64, 32),
};
static const struct mpd_layout flow_ctl_layout =
	MPD_LAYOUT("PortFlowCtlCounters", 12, flow_ctl_fields);

#define SL16(n) PF(n "[0]", 32, 32), PF(n "[1]", 64, 32), PF(n "[2]", 96, 32), \
	PF(n "[3]", 128, 32), PF(n "[4]", 160, 32), PF(n "[5]", 192, 32),  \
	PF(n "[6]", 224, 32), PF(n "[7]", 256, 32), PF(n "[8]", 288, 32),  \
	PF(n "[9]", 320, 32), PF(n "[10]", 352, 32), PF(n "[11]", 384, 32), \
	PF(n "[12]", 416, 32), PF(n "[13]", 448, 32), PF(n "[14]", 480, 32), \
	PF(n "[15]", 512, 32)
static const struct mpd_field xmit_data_sl_fields[] = {
	PERF_HEAD, SL16("port_xmit_data_sl"),
};
static const struct mpd_layout xmit_data_sl_layout =
	MPD_LAYOUT("PortXmitDataSL", 68, xmit_data_sl_fields);
static const struct mpd_field rcv_data_sl_fields[] = {
	PERF_HEAD, SL16("port_rcv_data_sl"),
};
static const struct mpd_layout rcv_data_sl_layout =
	MPD_LAYOUT("PortRcvDataSL", 68, rcv_data_sl_fields);

struct attr_entry {
	guint8 cls;		/* 0: any GSI class */
	guint16 attr_id;
	const struct mpd_layout *l;
	const char *prefix;
	const char *title;
	struct madpmd_lhf *lh;
};

#define C_SMP 0x01
static struct attr_entry attrs[] = {
	{ C_SMP, MPD_ATTR_NODE_DESC, &mpd_node_desc_layout, "madpmd.smp.nodedesc", "NodeDescription", NULL },
	{ C_SMP, MPD_ATTR_NODE_INFO, &mpd_node_info_layout, "madpmd.smp.nodeinfo", "NodeInfo", NULL },
	{ C_SMP, MPD_ATTR_SWITCH_INFO, &mpd_switch_info_layout, "madpmd.smp.switchinfo", "SwitchInfo", NULL },
	{ C_SMP, MPD_ATTR_GUID_INFO, &mpd_guid_info_layout, "madpmd.smp.guidinfo", "GUIDInfo", NULL },
	{ C_SMP, MPD_ATTR_PORT_INFO, &mpd_port_info_layout, "madpmd.smp.portinfo", "PortInfo", NULL },
	{ C_SMP, MPD_ATTR_PKEY_TABLE, &mpd_pkey_table_layout, "madpmd.smp.pkeytable", "P_KeyTable", NULL },
	{ C_SMP, MPD_ATTR_SL2VL_TABLE, &mpd_sl2vl_table_layout, "madpmd.smp.sl2vl", "SLtoVLMappingTable", NULL },
	{ C_SMP, MPD_ATTR_VL_ARB_TABLE, &mpd_vl_arb_table_layout, "madpmd.smp.vlarb", "VLArbitrationTable", NULL },
	{ C_SMP, MPD_ATTR_LINEAR_FWD_TABLE, &mpd_lft_block_layout, "madpmd.smp.lft", "LinearForwardingTable", NULL },
	{ C_SMP, MPD_ATTR_MCAST_FWD_TABLE, &mpd_mft_block_layout, "madpmd.smp.mft", "MulticastForwardingTable", NULL },
	{ C_SMP, MPD_ATTR_SM_INFO, &mpd_sm_info_layout, "madpmd.smp.sminfo", "SMInfo", NULL },
	{ C_SMP, MPD_ATTR_NOTICE, &mpd_notice_layout, "madpmd.notice", "Notice", NULL },
	{ MPD_CLASS_SUBN_ADM, MPD_ATTR_NOTICE, &mpd_notice_layout, "madpmd.notice", "Notice", NULL },
	{ MPD_CLASS_SUBN_ADM, MPD_ATTR_SA_NODE_RECORD, &mpd_node_record_layout, "madpmd.sa.noderecord", "NodeRecord", NULL },
	{ MPD_CLASS_SUBN_ADM, MPD_ATTR_SA_PORT_INFO_RECORD, &mpd_port_info_record_layout, "madpmd.sa.portinforecord", "PortInfoRecord", NULL },
	{ MPD_CLASS_SUBN_ADM, MPD_ATTR_SA_SERVICE_RECORD, &mpd_service_record_layout, "madpmd.sa.servicerecord", "ServiceRecord", NULL },
	{ MPD_CLASS_SUBN_ADM, MPD_ATTR_SA_PATH_RECORD, &mpd_path_record_layout, "madpmd.sa.pathrecord", "PathRecord", NULL },
	{ MPD_CLASS_SUBN_ADM, MPD_ATTR_SA_MCMEMBER_RECORD, &mpd_mcmember_record_layout, "madpmd.sa.mcmemberrecord", "MCMemberRecord", NULL },
	{ MPD_CLASS_PERF, MPD_ATTR_PERF_PORT_COUNTERS, &mpd_port_counters_layout, "madpmd.perf.portcounters", "PortCounters", NULL },
	{ MPD_CLASS_PERF, MPD_ATTR_PERF_PORT_COUNTERS_EXT, &mpd_port_counters_ext_layout, "madpmd.perf.portcountersext", "PortCountersExtended", NULL },
	{ MPD_CLASS_PERF, 0x0015, &rcv_err_layout, "madpmd.perf.portrcverrordetails", "PortRcvErrorDetails", NULL },
	{ MPD_CLASS_PERF, 0x0016, &xmit_disc_layout, "madpmd.perf.portxmitdiscarddetails", "PortXmitDiscardDetails", NULL },
	{ MPD_CLASS_PERF, 0x0018, &flow_ctl_layout, "madpmd.perf.portflowctlcounters", "PortFlowCtlCounters", NULL },
	{ MPD_CLASS_PERF, 0x0036, &xmit_data_sl_layout, "madpmd.perf.portxmitdatasl", "PortXmitDataSL", NULL },
	{ MPD_CLASS_PERF, 0x0037, &rcv_data_sl_layout, "madpmd.perf.portrcvdatasl", "PortRcvDataSL", NULL },
	{ MPD_CLASS_CM, MPD_ATTR_CM_REQ, &mpd_cm_req_layout, "madpmd.cm.req", "ConnectRequest (REQ)", NULL },
	{ MPD_CLASS_CM, MPD_ATTR_CM_MRA, &mpd_cm_mra_layout, "madpmd.cm.mra", "MsgRcptAck (MRA)", NULL },
	{ MPD_CLASS_CM, MPD_ATTR_CM_REJ, &mpd_cm_rej_layout, "madpmd.cm.rej", "ConnectReject (REJ)", NULL },
	{ MPD_CLASS_CM, MPD_ATTR_CM_REP, &mpd_cm_rep_layout, "madpmd.cm.rep", "ConnectReply (REP)", NULL },
	{ MPD_CLASS_CM, MPD_ATTR_CM_RTU, &mpd_cm_rtu_layout, "madpmd.cm.rtu", "ReadyToUse (RTU)", NULL },
	{ MPD_CLASS_CM, MPD_ATTR_CM_DREQ, &mpd_cm_dreq_layout, "madpmd.cm.dreq", "DisconnectRequest (DREQ)", NULL },
	{ MPD_CLASS_CM, MPD_ATTR_CM_DREP, &mpd_cm_drep_layout, "madpmd.cm.drep", "DisconnectReply (DREP)", NULL },
	{ MPD_CLASS_CM, MPD_ATTR_CM_LAP, &mpd_cm_lap_layout, "madpmd.cm.lap", "LoadAlternatePath (LAP)", NULL },
	{ MPD_CLASS_CM, MPD_ATTR_CM_APR, &mpd_cm_apr_layout, "madpmd.cm.apr", "AlternatePathResponse (APR)", NULL },
	{ MPD_CLASS_CM, MPD_ATTR_CM_SIDR_REQ, &mpd_cm_sidr_req_layout, "madpmd.cm.sidrreq", "ServiceIDResReq (SIDR_REQ)", NULL },
	{ MPD_CLASS_CM, MPD_ATTR_CM_SIDR_REP, &mpd_cm_sidr_rep_layout, "madpmd.cm.sidrrep", "ServiceIDResReqResp (SIDR_REP)", NULL },
	{ 0, MPD_ATTR_CLASS_PORT_INFO, &mpd_class_port_info_layout, "madpmd.classportinfo", "ClassPortInfo", NULL },
};

static struct madpmd_lhf *portinfo_lh;

static const struct attr_entry *
find_attr(guint8 cls, guint16 attr_id)
{
	size_t i;

	if (cls == MPD_CLASS_SUBN_DR)
		cls = C_SMP;
	for (i = 0; i < G_N_ELEMENTS(attrs); i++)
		if ((attrs[i].cls == cls ||
		     (attrs[i].cls == 0 && cls != C_SMP)) &&
		    attrs[i].attr_id == attr_id)
			return &attrs[i];
	return NULL;
}

/* ---- matching and RMPP state ------------------------------------------- */

struct mad_key {
	guint64 tid;
	guint32 addr_hash;
	guint32 iface;		/* capture interface + 1 (0: none) */
	guint8 mgmt_class;
	guint8 layer;
};

struct mad_trans {
	guint32 req_frame;
	guint32 rsp_frame;
	nstime_t req_time;
	guint8 req_method;
	guint16 attr_id;
};

struct rmpp_state {
	guint32 last_seg;	/* last DATA segment seen (first pass) */
	gboolean done;		/* reassembled */
};

/* per frame, so the second pass and random access show the same */
struct mad_frame {
	struct mad_trans *trans;
	gboolean is_response;
	gboolean first_response;
	guint32 missing_from;	/* 0: nothing missing */
	guint32 missing_to;
	gboolean incomplete;
};

#define FRAME_KEY_MAD	1

static wmem_map_t *trans_map;
static wmem_map_t *rmpp_map;

static guint
mad_key_hash(gconstpointer k)
{
	const struct mad_key *key = k;

	return g_int64_hash(&key->tid) ^ key->addr_hash ^
	       (key->iface * 0x9e3779b1u) ^
	       ((guint)key->mgmt_class << 8 | key->layer);
}

static gboolean
mad_key_equal(gconstpointer a, gconstpointer b)
{
	const struct mad_key *x = a, *y = b;

	return x->tid == y->tid && x->addr_hash == y->addr_hash &&
	       x->iface == y->iface && x->mgmt_class == y->mgmt_class &&
	       x->layer == y->layer;
}

static guint32
addr_pair_hash(const packet_info *pinfo)
{
	/* symmetric, so a request and its response share it */
	return add_address_to_hash(0, &pinfo->src) ^
	       add_address_to_hash(0, &pinfo->dst);
}

/*
 * The capture interface of the frame, plus one (0: the file has none).
 * A packet on a cable shows once at each end (hca1/1 outbound, hca2/1
 * inbound): each end matches and reassembles its own copies.
 */
static guint32
frame_iface(const packet_info *pinfo)
{
	if (!pinfo->rec || !(pinfo->rec->presence_flags & WTAP_HAS_INTERFACE_ID))
		return 0;
	return pinfo->rec->rec_header.packet_header.interface_id + 1;
}

/*
 * The key a MAD is matched under. In umad records a client's send carries
 * the TID it chose and its receive the TID as the wire had it, with the
 * MAD layer's agent bits in the upper 32 (as the kernel's ib_mad puts
 * them): there, as the MAD layer does, only the lower 32 bits tell
 * transactions apart, within the client's session on the port.
 */
static void
mad_key_init(struct mad_key *key, packet_info *pinfo, guint64 tid,
	     guint8 cls, enum madpmd_layer layer)
{
	memset(key, 0, sizeof(*key));
	key->tid = layer == MADPMD_LAYER_UMAD ? (tid & 0xffffffffu) : tid;
	key->addr_hash = addr_pair_hash(pinfo);
	if (layer == MADPMD_LAYER_UMAD)
		key->addr_hash ^= GPOINTER_TO_UINT(p_get_proto_data(
			pinfo->pool, pinfo, proto_madpmd,
			MADPMD_KEY_UMAD_SESSION));
	key->iface = frame_iface(pinfo);
	key->mgmt_class = cls;
	key->layer = (guint8)layer;
}

/*
 * The RMPP reassembly id: the TID, the interface and the direction, so
 * that the sender's and the receiver's copies of a segment are two
 * transfers (the addresses are the table's key besides).
 */
static guint32
rmpp_reassembly_id(const packet_info *pinfo, guint64 tid)
{
	guint32 id = (guint32)tid ^ (guint32)(tid >> 32);

	id ^= frame_iface(pinfo) * 0x9e3779b1u;
	if (pinfo->p2p_dir == P2P_DIR_RECV)
		id ^= 0x80000000u;
	return id;
}

static gboolean
method_is_request(guint8 m)
{
	return !(m & MPD_METHOD_RESP) && m != MPD_METHOD_SEND &&
	       m != MPD_METHOD_TRAP_REPRESS;
}

static gboolean
method_is_response(guint8 m)
{
	return (m & MPD_METHOD_RESP) || m == MPD_METHOD_TRAP_REPRESS;
}

/* Was the RMPP transfer under key reassembled (first pass)? set: it is. */
static gboolean
rmpp_whole(const struct mad_key *key, gboolean set)
{
	struct rmpp_state *rs = wmem_map_lookup(rmpp_map, key);

	if (rs && set)
		rs->done = TRUE;
	return rs && rs->done;
}

static void
match_tid(packet_info *pinfo, struct mad_frame *mf, const struct mad_key *key,
	  guint8 method, guint16 attr_id, gboolean counts_as_response)
{
	struct mad_trans *t;

	if (method_is_request(method)) {
		struct mad_key *k = wmem_new(wmem_file_scope(), struct mad_key);

		*k = *key;
		t = wmem_new0(wmem_file_scope(), struct mad_trans);
		t->req_frame = pinfo->num;
		t->req_time = pinfo->abs_ts;
		t->req_method = method;
		t->attr_id = attr_id;
		/* a retry with the same TID starts the clock again */
		wmem_map_insert(trans_map, k, t);
		mf->trans = t;
	} else if (method_is_response(method)) {
		t = wmem_map_lookup(trans_map, key);
		if (!t)
			return;
		mf->trans = t;
		mf->is_response = TRUE;
		if (counts_as_response && t->rsp_frame == 0) {
			t->rsp_frame = pinfo->num;
			mf->first_response = TRUE;
		}
	}
}

static void
show_match(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
	   const struct mad_frame *mf, guint8 mgmt_class)
{
	const struct mad_trans *t = mf->trans;
	proto_item *it;

	if (!t)
		return;
	if (!mf->is_response) {
		if (t->req_frame == pinfo->num && t->rsp_frame) {
			it = proto_tree_add_uint(tree, hf_response_in, tvb, 0, 0,
						 t->rsp_frame);
			proto_item_set_generated(it);
		}
		return;
	}
	it = proto_tree_add_uint(tree, hf_response_to, tvb, 0, 0, t->req_frame);
	proto_item_set_generated(it);
	if (mf->first_response) {
		nstime_t rtt;
		struct madpmd_rtt_tap *tap;

		nstime_delta(&rtt, &pinfo->abs_ts, &t->req_time);
		it = proto_tree_add_time(tree, hf_time, tvb, 0, 0, &rtt);
		proto_item_set_generated(it);
		tap = wmem_new(wmem_packet_scope(), struct madpmd_rtt_tap);
		tap->mgmt_class = mgmt_class;
		tap->method = t->req_method;
		tap->attr_id = t->attr_id;
		tap->req_time = t->req_time;
		tap->rtt = rtt;
		tap_queue_packet(madpmd_tap, pinfo, tap);
	}
}

/* ---- class data ----------------------------------------------------------- */

static void
dissect_attr(tvbuff_t *tvb, int off, int max, proto_tree *tree, guint8 cls,
	     guint16 attr_id, guint32 attr_mod)
{
	const struct attr_entry *a = find_attr(cls, attr_id);

	if (!a || !tree || max <= 0)
		return;
	if (attr_id == MPD_ATTR_NOTICE && (cls == C_SMP ||
					   cls == MPD_CLASS_SUBN_DR))
		max = MIN(max, MPD_NOTICE_SMP_LEN);
	madpmd_layout_dissect(a->lh, tvb, off, max, tree,
			      "%s (AttributeModifier 0x%08x)", a->title,
			      attr_mod);
}

/* The records of an SA table: data holds them back to back, each
 * AttributeOffset 8-byte words long. */
static void
dissect_sa_table(tvbuff_t *data, packet_info *pinfo, proto_tree *tree,
		 guint16 attr_id, guint16 attr_offset, gboolean table)
{
	const struct attr_entry *a = find_attr(MPD_CLASS_SUBN_ADM, attr_id);
	int len = (int)tvb_captured_length(data);
	int step = attr_offset * 8, n, i;
	proto_item *it;

	if (!table) {
		/* one record (a request's template or a Get response) */
		n = len > 0 ? 1 : 0;
		step = a ? MIN(len, madpmd_layout_len(a->lh)) : len;
	} else {
		n = step > 0 ? len / step : 0;
	}
	it = proto_tree_add_uint(tree, hf_sa_records, data, 0, 0, (guint32)n);
	proto_item_set_generated(it);
	if (table)
		col_append_fstr(pinfo->cinfo, COL_INFO, " [%d record%s]", n,
				n == 1 ? "" : "s");
	if (!a || !tree)
		return;
	for (i = 0; i < n; i++) {
		proto_item *rti = madpmd_layout_dissect(a->lh, data, i * step,
							step, tree, "%s %d",
							a->title, i + 1);

		/* PortInfoRecord carries PortInfo at byte 4: show it too */
		if (rti && attr_id == MPD_ATTR_SA_PORT_INFO_RECORD &&
		    step >= 68)
			madpmd_layout_dissect(portinfo_lh, data, i * step + 4, 64,
					      proto_item_add_subtree(rti,
						ett_sa), "PortInfo");
	}
}

/* ---- the MAD --------------------------------------------------------------- */

static int *const rmpp_flag_bits[] = {
	&hf_rmpp_flag_last, &hf_rmpp_flag_first, &hf_rmpp_flag_active, NULL
};

int
madpmd_dissect_mad(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		   enum madpmd_layer layer, gboolean message)
{
	int len = (int)tvb_captured_length(tvb);
	guint8 cls, method, rtype = 0, rflags = 0;
	guint16 status, attr_id, class_spec, data_off;
	guint32 attr_mod, seg = 0, data2 = 0;
	guint64 tid;
	gboolean has_rmpp, active = FALSE;
	proto_item *ti, *it;
	proto_tree *mt, *ht;
	struct mad_frame *mf;
	struct mad_key key;
	const value_string *avals;
	const char *aname;

	if (len < MPD_MAD_HDR_LEN) {
		proto_tree_add_expert(tree, pinfo, &ei_short_mad, tvb, 0, len);
		return len;
	}
	cls = tvb_get_guint8(tvb, 1);
	method = tvb_get_guint8(tvb, 3);
	status = tvb_get_ntohs(tvb, 4);
	class_spec = tvb_get_ntohs(tvb, 6);
	tid = tvb_get_ntoh64(tvb, 8);
	attr_id = tvb_get_ntohs(tvb, 16);
	attr_mod = tvb_get_ntohl(tvb, 20);
	has_rmpp = mpd_class_has_rmpp(cls);
	data_off = mpd_class_data_off(cls);
	avals = attr_vals_of(cls);
	aname = avals ? val_to_str_const(attr_id, avals, "Unknown") :
			"Attribute";

	col_add_fstr(pinfo->cinfo, COL_INFO, "%s %s(%s) TID 0x%016" G_GINT64_MODIFIER "x",
		     madpmd_class_name(cls), madpmd_method_name(method), aname,
		     tid);

	ti = proto_tree_add_item(tree, hf_mad, tvb, 0, -1, ENC_NA);
	proto_item_append_text(ti, ": %s %s(%s)", madpmd_class_name(cls),
			       madpmd_method_name(method), aname);
	mt = proto_item_add_subtree(ti, ett_mad);
	ht = proto_tree_add_subtree(mt, tvb, 0, MPD_MAD_HDR_LEN, ett_mad_hdr,
				    NULL, "MAD header");
	proto_tree_add_item(ht, hf_mad_basever, tvb, 0, 1, ENC_NA);
	proto_tree_add_item(ht, hf_mad_mgmtclass, tvb, 1, 1, ENC_NA);
	proto_tree_add_item(ht, hf_mad_classver, tvb, 2, 1, ENC_NA);
	proto_tree_add_item(ht, hf_mad_method, tvb, 3, 1, ENC_NA);
	proto_tree_add_item(ht, hf_mad_r, tvb, 3, 1, ENC_NA);
	if (cls == MPD_CLASS_SUBN_DR) {
		proto_tree_add_item(ht, hf_smp_d, tvb, 4, 2, ENC_BIG_ENDIAN);
		proto_tree_add_item(ht, hf_smp_status, tvb, 4, 2,
				    ENC_BIG_ENDIAN);
		proto_tree_add_item(ht, hf_smp_hopptr, tvb, 6, 1, ENC_NA);
		proto_tree_add_item(ht, hf_smp_hopcnt, tvb, 7, 1, ENC_NA);
	} else {
		it = proto_tree_add_item(ht, hf_mad_status, tvb, 4, 2,
					 ENC_BIG_ENDIAN);
		if (status && (method & MPD_METHOD_RESP))
			expert_add_info_format(pinfo, it, &ei_mad_status,
					       "MAD status 0x%04x", status);
		proto_tree_add_item(ht, hf_mad_classspecific, tvb, 6, 2,
				    ENC_BIG_ENDIAN);
	}
	proto_tree_add_item(ht, hf_mad_tid, tvb, 8, 8, ENC_BIG_ENDIAN);
	it = proto_tree_add_item(ht, hf_mad_attrid, tvb, 16, 2, ENC_BIG_ENDIAN);
	proto_item_append_text(it, " (%s)", aname);
	proto_tree_add_item(ht, hf_mad_resv, tvb, 18, 2, ENC_BIG_ENDIAN);
	proto_tree_add_item(ht, hf_mad_attrmod, tvb, 20, 4, ENC_BIG_ENDIAN);
	(void)class_spec;

	/* RMPP header */
	if (has_rmpp && len >= MPD_MAD_HDR_LEN + MPD_RMPP_HDR_LEN) {
		proto_tree *rt = proto_tree_add_subtree(mt, tvb, 24,
						       MPD_RMPP_HDR_LEN,
						       ett_rmpp, NULL,
						       "RMPP header");

		rtype = tvb_get_guint8(tvb, 25);
		rflags = tvb_get_guint8(tvb, 26) & 0x7;
		active = (rflags & MPD_RMPP_FLAG_ACTIVE) != 0;
		seg = tvb_get_ntohl(tvb, 28);
		data2 = tvb_get_ntohl(tvb, 32);
		proto_tree_add_item(rt, hf_rmpp_version, tvb, 24, 1, ENC_NA);
		proto_tree_add_item(rt, hf_rmpp_type, tvb, 25, 1, ENC_NA);
		proto_tree_add_item(rt, hf_rmpp_resptime, tvb, 26, 1, ENC_NA);
		proto_tree_add_bitmask(rt, tvb, 26, hf_rmpp_flags,
				       ett_rmpp_flags, rmpp_flag_bits, ENC_NA);
		it = proto_tree_add_item(rt, hf_rmpp_status, tvb, 27, 1,
					 ENC_NA);
		if (rtype == MPD_RMPP_TYPE_ABORT)
			expert_add_info_format(pinfo, it, &ei_rmpp_abort,
				"RMPP transfer aborted: %s",
				val_to_str_const(tvb_get_guint8(tvb, 27),
						 rmpp_status_vals, "unknown"));
		else if (rtype == MPD_RMPP_TYPE_STOP)
			expert_add_info_format(pinfo, it, &ei_rmpp_stop,
				"RMPP transfer stopped by the receiver: %s",
				val_to_str_const(tvb_get_guint8(tvb, 27),
						 rmpp_status_vals, "unknown"));
		if (rtype == MPD_RMPP_TYPE_DATA) {
			proto_tree_add_item(rt, hf_rmpp_segnum, tvb, 28, 4,
					    ENC_BIG_ENDIAN);
			proto_tree_add_item(rt, hf_rmpp_paylen, tvb, 32, 4,
					    ENC_BIG_ENDIAN);
		} else if (rtype == MPD_RMPP_TYPE_ACK) {
			proto_tree_add_item(rt, hf_rmpp_segnum, tvb, 28, 4,
					    ENC_BIG_ENDIAN);
			proto_tree_add_item(rt, hf_rmpp_nwl, tvb, 32, 4,
					    ENC_BIG_ENDIAN);
		} else {
			proto_tree_add_item(rt, hf_rmpp_data1, tvb, 28, 4,
					    ENC_BIG_ENDIAN);
			proto_tree_add_item(rt, hf_rmpp_data2, tvb, 32, 4,
					    ENC_BIG_ENDIAN);
		}
		if (active && !message)
			col_append_fstr(pinfo->cinfo, COL_INFO,
					" RMPP %s seg %u",
					val_to_str_const(rtype, rmpp_type_vals,
							 "?"), seg);
	}

	/* matching state, decided on the first pass */
	mad_key_init(&key, pinfo, tid, cls, layer);
	mf = p_get_proto_data(wmem_file_scope(), pinfo, proto_madpmd,
			      FRAME_KEY_MAD);
	if (!mf) {
		gboolean data_seg = !active || message ||
				    rtype == MPD_RMPP_TYPE_DATA;

		mf = wmem_new0(wmem_file_scope(), struct mad_frame);
		if (data_seg && (!active || seg <= 1 || message))
			match_tid(pinfo, mf, &key, method, attr_id, TRUE);
		else if (data_seg)
			match_tid(pinfo, mf, &key, method, attr_id, FALSE);
		/* RMPP: segments missing before this one */
		if (active && rtype == MPD_RMPP_TYPE_DATA && !message) {
			struct rmpp_state *rs = wmem_map_lookup(rmpp_map, &key);

			if (!rs || (rflags & MPD_RMPP_FLAG_FIRST)) {
				struct mad_key *k = wmem_new(wmem_file_scope(),
							     struct mad_key);

				*k = key;
				rs = wmem_new0(wmem_file_scope(),
					       struct rmpp_state);
				wmem_map_insert(rmpp_map, k, rs);
			}
			if (seg > rs->last_seg + 1) {
				mf->missing_from = rs->last_seg + 1;
				mf->missing_to = seg - 1;
			}
			if (seg > rs->last_seg)
				rs->last_seg = seg;
		}
		p_add_proto_data(wmem_file_scope(), pinfo, proto_madpmd,
				 FRAME_KEY_MAD, mf);
	}
	show_match(tvb, pinfo, mt, mf, cls);
	if (mf->missing_from) {
		it = proto_tree_add_uint(mt, hf_rmpp_missing, tvb, 28, 4,
					 mf->missing_to - mf->missing_from + 1);
		proto_item_set_generated(it);
		if (mf->missing_from == mf->missing_to)
			expert_add_info_format(pinfo, it, &ei_rmpp_missing,
				"RMPP segment %u missing (got %u)",
				mf->missing_from, seg);
		else
			expert_add_info_format(pinfo, it, &ei_rmpp_missing,
				"RMPP segments %u-%u missing (got %u)",
				mf->missing_from, mf->missing_to, seg);
	}

	/* class headers and data */
	if (cls == MPD_CLASS_SUBN_LID || cls == MPD_CLASS_SUBN_DR) {
		proto_tree *st = proto_tree_add_subtree(mt, tvb, 24,
						       MIN(len, 256) - 24,
						       ett_smp, NULL, "SMP");

		if (len >= 32)
			proto_tree_add_item(st, hf_smp_mkey, tvb, 24, 8,
					    ENC_BIG_ENDIAN);
		if (cls == MPD_CLASS_SUBN_DR && len >= 36) {
			proto_tree_add_item(st, hf_smp_drslid, tvb, 32, 2,
					    ENC_BIG_ENDIAN);
			proto_tree_add_item(st, hf_smp_drdlid, tvb, 34, 2,
					    ENC_BIG_ENDIAN);
		}
		dissect_attr(tvb, MPD_SMP_DATA_OFF, MIN(len - MPD_SMP_DATA_OFF,
							MPD_SMP_DATA_LEN),
			     st, cls, attr_id, attr_mod);
		if (cls == MPD_CLASS_SUBN_DR && len >= 256) {
			proto_tree_add_item(st, hf_smp_initpath, tvb, 128, 64,
					    ENC_NA);
			proto_tree_add_item(st, hf_smp_retpath, tvb, 192, 64,
					    ENC_NA);
		}
		return len;
	}

	if (cls >= MPD_CLASS_VENDOR_R2_LO && cls <= MPD_CLASS_VENDOR_R2_HI &&
	    len >= 40)
		proto_tree_add_item(mt, hf_vendor_oui, tvb, 37, 3,
				    ENC_BIG_ENDIAN);

	if (cls == MPD_CLASS_SUBN_ADM && len >= MPD_SA_HDR_END) {
		guint16 ao = tvb_get_ntohs(tvb, 44);
		proto_tree *st = proto_tree_add_subtree(mt, tvb, 36, len - 36,
						       ett_sa, NULL, "SA");
		gboolean table = method == MPD_METHOD_GET_TABLE_RESP ||
				 method == 0x94 ||
				 method == 0x93;
		tvbuff_t *data = NULL;

		proto_tree_add_item(st, hf_sa_smkey, tvb, 36, 8,
				    ENC_BIG_ENDIAN);
		proto_tree_add_item(st, hf_sa_attroffset, tvb, 44, 2,
				    ENC_BIG_ENDIAN);
		proto_tree_add_item(st, hf_sa_compmask, tvb, 48, 8,
				    ENC_BIG_ENDIAN);
		if (attr_id == MPD_ATTR_CLASS_PORT_INFO ||
		    attr_id == MPD_ATTR_NOTICE) {
			dissect_attr(tvb, MPD_SA_HDR_END, len - MPD_SA_HDR_END,
				     st, cls, attr_id, attr_mod);
			return len;
		}
		if (message || !active) {
			data = tvb_new_subset_remaining(tvb, MPD_SA_HDR_END);
		} else if (rtype == MPD_RMPP_TYPE_DATA) {
			gboolean first = (rflags & MPD_RMPP_FLAG_FIRST) != 0;
			gboolean last = (rflags & MPD_RMPP_FLAG_LAST) != 0;
			int seg_len = len - MPD_SA_HDR_END;

			if (last) {
				/* PayloadLength of the last segment: its
				 * SA header and its data */
				gint64 pl = (gint64)data2 - MPD_SA_HDR_LEN;

				if (pl >= 0 && pl < seg_len)
					seg_len = (int)pl;
			}
			if (first && last) {
				data = tvb_new_subset_length(tvb,
							     MPD_SA_HDR_END,
							     seg_len);
			} else if (madpmd_pref_reassemble && seg >= 1) {
				gboolean save = pinfo->fragmented;
				fragment_head *fh;
				guint32 id = rmpp_reassembly_id(pinfo, tid);

				pinfo->fragmented = TRUE;
				fh = fragment_add_seq_check(&madpmd_reassembly,
					tvb, MPD_SA_HDR_END, pinfo, id, NULL,
					seg - 1, (guint32)seg_len, !last);
				data = process_reassembled_data(tvb,
					MPD_SA_HDR_END, pinfo,
					"Reassembled RMPP message", fh,
					&madpmd_frag_items, NULL, st);
				pinfo->fragmented = save;
				if (!data) {
					proto_tree_add_item(st, hf_rmpp_segdata,
						tvb, MPD_SA_HDR_END, seg_len,
						ENC_NA);
					/* not when it only repeats the last
					 * segment of a message that is whole */
					if (last && !PINFO_FD_VISITED(pinfo) &&
					    !rmpp_whole(&key, FALSE))
						mf->incomplete = TRUE;
				} else if (!PINFO_FD_VISITED(pinfo)) {
					rmpp_whole(&key, TRUE);
				}
			} else {
				proto_tree_add_item(st, hf_rmpp_segdata, tvb,
						    MPD_SA_HDR_END, seg_len,
						    ENC_NA);
			}
		}
		if (mf->incomplete)
			proto_tree_add_expert(st, pinfo, &ei_rmpp_incomplete,
					      tvb, 24, 12);
		if (data)
			dissect_sa_table(data, pinfo, st, attr_id, ao,
					 table && (active || message));
		return len;
	}

	if (data_off < len) {
		if (find_attr(cls, attr_id))
			dissect_attr(tvb, data_off, len - data_off, mt, cls,
				     attr_id, attr_mod);
		else
			proto_tree_add_item(mt, hf_mad_data, tvb, data_off,
					    len - data_off, ENC_NA);
	}
	if (cls == MPD_CLASS_CM && layer == MADPMD_LAYER_WIRE)
		madpmd_cm_track(tvb, pinfo, mt, attr_id, data_off);
	return len;
}

int
madpmd_dissect_bare_mad(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			void *data _U_)
{
	proto_item *ti;
	proto_tree *t;

	col_set_str(pinfo->cinfo, COL_PROTOCOL, "madpmd");
	col_clear(pinfo->cinfo, COL_INFO);
	ti = proto_tree_add_item(tree, proto_madpmd, tvb, 0, -1, ENC_NA);
	t = proto_item_add_subtree(ti, ett_mad);
	/* longer than one MAD: a whole message in the kernel's form */
	return madpmd_dissect_mad(tvb, pinfo, t, MADPMD_LAYER_BARE,
				  tvb_captured_length(tvb) > MPD_MAD_LEN);
}

/* ---- registration ------------------------------------------------------------ */

static const true_false_string tfs_resp = { "Response", "Request" };

void
madpmd_mad_register(void)
{
	static hf_register_info hf[] = {
		{ &hf_mad, { "MAD", "madpmd.mad", FT_NONE, BASE_NONE, NULL, 0,
		  NULL, HFILL } },
		{ &hf_mad_basever, { "Base Version", "madpmd.mad.basever",
		  FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mad_mgmtclass, { "Management Class",
		  "madpmd.mad.mgmtclass", FT_UINT8, BASE_HEX,
		  VALS(class_vals), 0, NULL, HFILL } },
		{ &hf_mad_classver, { "Class Version", "madpmd.mad.classver",
		  FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mad_method, { "Method", "madpmd.mad.method", FT_UINT8,
		  BASE_HEX, VALS(method_vals), 0, NULL, HFILL } },
		{ &hf_mad_r, { "R", "madpmd.mad.method.r", FT_BOOLEAN, 8,
		  TFS(&tfs_resp), 0x80, "Response bit", HFILL } },
		{ &hf_mad_status, { "Status", "madpmd.mad.status", FT_UINT16,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_mad_classspecific, { "Class Specific",
		  "madpmd.mad.classspecific", FT_UINT16, BASE_HEX, NULL, 0,
		  NULL, HFILL } },
		{ &hf_mad_tid, { "Transaction ID", "madpmd.mad.tid", FT_UINT64,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_mad_attrid, { "Attribute ID", "madpmd.mad.attributeid",
		  FT_UINT16, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_mad_resv, { "Reserved", "madpmd.mad.reserved",
		  FT_UINT16, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_mad_attrmod, { "Attribute Modifier",
		  "madpmd.mad.attributemodifier", FT_UINT32, BASE_HEX, NULL,
		  0, NULL, HFILL } },
		{ &hf_mad_data, { "Data", "madpmd.mad.data", FT_BYTES,
		  BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_smp_mkey, { "M_Key", "madpmd.smp.mkey", FT_UINT64,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_smp_d, { "D (direction)", "madpmd.smp.d", FT_BOOLEAN, 16,
		  NULL, 0x8000, NULL, HFILL } },
		{ &hf_smp_status, { "Status", "madpmd.smp.status", FT_UINT16,
		  BASE_HEX, NULL, 0x7fff, NULL, HFILL } },
		{ &hf_smp_hopptr, { "Hop Pointer", "madpmd.smp.hopptr",
		  FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_smp_hopcnt, { "Hop Count", "madpmd.smp.hopcnt",
		  FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_smp_drslid, { "DrSLID", "madpmd.smp.drslid", FT_UINT16,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_smp_drdlid, { "DrDLID", "madpmd.smp.drdlid", FT_UINT16,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_smp_initpath, { "Initial Path", "madpmd.smp.initpath",
		  FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_smp_retpath, { "Return Path", "madpmd.smp.retpath",
		  FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_rmpp_version, { "RMPP Version", "madpmd.rmpp.version",
		  FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rmpp_type, { "RMPP Type", "madpmd.rmpp.type", FT_UINT8,
		  BASE_DEC, VALS(rmpp_type_vals), 0, NULL, HFILL } },
		{ &hf_rmpp_resptime, { "RRespTime", "madpmd.rmpp.resptime",
		  FT_UINT8, BASE_DEC, NULL, 0xf8, NULL, HFILL } },
		{ &hf_rmpp_flags, { "RMPPFlags", "madpmd.rmpp.flags", FT_UINT8,
		  BASE_HEX, NULL, 0x07, NULL, HFILL } },
		{ &hf_rmpp_flag_active, { "Active", "madpmd.rmpp.flags.active",
		  FT_BOOLEAN, 8, NULL, 0x01, NULL, HFILL } },
		{ &hf_rmpp_flag_first, { "First", "madpmd.rmpp.flags.first",
		  FT_BOOLEAN, 8, NULL, 0x02, NULL, HFILL } },
		{ &hf_rmpp_flag_last, { "Last", "madpmd.rmpp.flags.last",
		  FT_BOOLEAN, 8, NULL, 0x04, NULL, HFILL } },
		{ &hf_rmpp_status, { "RMPP Status", "madpmd.rmpp.status",
		  FT_UINT8, BASE_DEC, VALS(rmpp_status_vals), 0, NULL,
		  HFILL } },
		{ &hf_rmpp_segnum, { "Segment Number", "madpmd.rmpp.segment",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rmpp_paylen, { "Payload Length", "madpmd.rmpp.paylen",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rmpp_nwl, { "New Window Last", "madpmd.rmpp.newwindowlast",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rmpp_data1, { "Data1", "madpmd.rmpp.data1", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_rmpp_data2, { "Data2", "madpmd.rmpp.data2", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_rmpp_missing, { "Missing segments", "madpmd.rmpp.missing",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rmpp_segdata, { "Segment data", "madpmd.rmpp.segdata",
		  FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_sa_smkey, { "SM_Key", "madpmd.sa.smkey", FT_UINT64,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_sa_attroffset, { "Attribute Offset",
		  "madpmd.sa.attributeoffset", FT_UINT16, BASE_DEC, NULL, 0,
		  "Record size in 8-byte words", HFILL } },
		{ &hf_sa_compmask, { "Component Mask", "madpmd.sa.compmask",
		  FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_sa_records, { "Records", "madpmd.sa.records", FT_UINT32,
		  BASE_DEC, NULL, 0, "Records in this message", HFILL } },
		{ &hf_vendor_oui, { "OUI", "madpmd.vendor.oui", FT_UINT24,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_response_in, { "Response In", "madpmd.response_in",
		  FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE),
		  0, "The response to this request is in this frame", HFILL } },
		{ &hf_response_to, { "Request In", "madpmd.response_to",
		  FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST),
		  0, "This is a response to the request in this frame",
		  HFILL } },
		{ &hf_time, { "Response Time", "madpmd.time",
		  FT_RELATIVE_TIME, BASE_NONE, NULL, 0,
		  "Time between the request and this response", HFILL } },
		{ &hf_frags, { "RMPP segments", "madpmd.rmpp.fragments",
		  FT_NONE, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_frag, { "RMPP segment", "madpmd.rmpp.fragment",
		  FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_frag_overlap, { "Segment overlap",
		  "madpmd.rmpp.fragment.overlap", FT_BOOLEAN, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
		{ &hf_frag_overlap_conflicts, { "Conflicting data in overlap",
		  "madpmd.rmpp.fragment.overlap.conflicts", FT_BOOLEAN,
		  BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_frag_multiple_tails, { "Multiple last segments",
		  "madpmd.rmpp.fragment.multipletails", FT_BOOLEAN, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
		{ &hf_frag_too_long, { "Segment too long",
		  "madpmd.rmpp.fragment.toolongfragment", FT_BOOLEAN,
		  BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_frag_error, { "Reassembly error",
		  "madpmd.rmpp.fragment.error", FT_FRAMENUM, BASE_NONE, NULL,
		  0, NULL, HFILL } },
		{ &hf_frag_count, { "Segment count",
		  "madpmd.rmpp.fragment.count", FT_UINT32, BASE_DEC, NULL, 0,
		  NULL, HFILL } },
		{ &hf_reassembled_in, { "Reassembled in",
		  "madpmd.rmpp.reassembled.in", FT_FRAMENUM, BASE_NONE, NULL,
		  0, NULL, HFILL } },
		{ &hf_reassembled_length, { "Reassembled length",
		  "madpmd.rmpp.reassembled.length", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_reassembled_data, { "Reassembled data",
		  "madpmd.rmpp.reassembled.data", FT_BYTES, BASE_NONE, NULL,
		  0, NULL, HFILL } },
	};
	static gint *ett[] = {
		&ett_mad, &ett_mad_hdr, &ett_rmpp, &ett_rmpp_flags, &ett_sa,
		&ett_smp, &ett_frag, &ett_frags,
	};
	static ei_register_info ei[] = {
		{ &ei_rmpp_missing, { "madpmd.rmpp.missing.expert",
		  PI_SEQUENCE, PI_WARN, "RMPP segment missing", EXPFILL } },
		{ &ei_rmpp_abort, { "madpmd.rmpp.abort", PI_SEQUENCE, PI_WARN,
		  "RMPP transfer aborted", EXPFILL } },
		{ &ei_rmpp_stop, { "madpmd.rmpp.stop", PI_SEQUENCE, PI_WARN,
		  "RMPP transfer stopped", EXPFILL } },
		{ &ei_rmpp_incomplete, { "madpmd.rmpp.incomplete", PI_SEQUENCE,
		  PI_WARN, "Last RMPP segment seen, message incomplete",
		  EXPFILL } },
		{ &ei_mad_status, { "madpmd.mad.status.nonzero",
		  PI_RESPONSE_CODE, PI_NOTE, "MAD status not zero",
		  EXPFILL } },
		{ &ei_short_mad, { "madpmd.mad.short", PI_MALFORMED, PI_ERROR,
		  "Shorter than a MAD header", EXPFILL } },
	};
	expert_module_t *em;
	size_t i;

	proto_register_field_array(proto_madpmd, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto_madpmd);
	expert_register_field_array(em, ei, array_length(ei));

	for (i = 0; i < G_N_ELEMENTS(attrs); i++) {
		size_t j;

		/* entries sharing a prefix share the fields */
		for (j = 0; j < i; j++)
			if (strcmp(attrs[j].prefix, attrs[i].prefix) == 0)
				break;
		attrs[i].lh = j < i ? attrs[j].lh :
			      madpmd_layout_hf(attrs[i].l, attrs[i].prefix,
					       attrs[i].title);
		if (attrs[i].l == &mpd_port_info_layout)
			portinfo_lh = attrs[i].lh;
	}

	reassembly_table_register(&madpmd_reassembly,
				  &addresses_reassembly_table_functions);
	trans_map = wmem_map_new_autoreset(wmem_epan_scope(),
					   wmem_file_scope(), mad_key_hash,
					   mad_key_equal);
	rmpp_map = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					  mad_key_hash, mad_key_equal);
}
