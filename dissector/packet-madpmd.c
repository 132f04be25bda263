/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd: a Wireshark 4.0 plugin for InfiniBand/RoCE management traffic
 * and madpmd's capture records (docs/capture-format.md, docs/dissector.md).
 *
 * Handles:
 *   "madpmd"      a capture record (exported PDU, linktype 252)
 *   "madpmd_mad"  a bare MAD, or a whole message longer than 256 bytes
 *   "madpmd_ib"   a native IB packet starting with the LRH
 * and, with the "take_roce" preference (on by default), RoCEv2
 * (udp.port 4791) and RoCEv1 (ethertype 0x8915) MADs.
 */
#define WS_BUILD_DLL
#include <wireshark.h>
#include <epan/packet.h>
#include <epan/expert.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/proto.h>
#include <epan/epan.h>
#include <wiretap/wtap.h>

#include "madpmd/records.h"
#include "madpmd/wire.h"
#include "madpmd.h"

#ifndef VERSION
#define VERSION "0.0.0"
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

int proto_madpmd = -1;
gboolean madpmd_pref_take_roce = TRUE;
gboolean madpmd_pref_check_crc = TRUE;
gboolean madpmd_pref_reassemble = TRUE;
/* on: what the plugin adds to the stock decoding of madpmd's captures is
 * seen without a preference; the stock tree stays whole beside it */
gboolean madpmd_pref_decode_ib = TRUE;

/* ---- record fields ---------------------------------------------------- */

static int hf_rec = -1, hf_rec_magic = -1, hf_rec_version = -1;
static int hf_rec_kind = -1, hf_rec_flags = -1;
static int hf_rec_flag_trunc = -1, hf_rec_hdrlen = -1, hf_rec_port = -1;
static int hf_rec_node = -1;
static int hf_rec_seq = -1, hf_rec_bodylen = -1, hf_rec_body = -1;

static int hf_umad_dir = -1, hf_umad_pid = -1, hf_umad_portid = -1;
static int hf_umad_agent = -1;
static int hf_umad_status = -1, hf_umad_timeout = -1, hf_umad_retries = -1;
static int hf_umad_length = -1;
static int hf_umad_qpn = -1, hf_umad_qkey = -1, hf_umad_lid = -1;
static int hf_umad_sl = -1;
static int hf_umad_pathbits = -1, hf_umad_grh = -1, hf_umad_gidindex = -1;
static int hf_umad_hoplimit = -1;
static int hf_umad_tclass = -1, hf_umad_gid = -1, hf_umad_flowlabel = -1;
static int hf_umad_pkeyindex = -1;

static int hf_wc_cq = -1, hf_wc_qpnum = -1, hf_wc_wrid = -1, hf_wc_status = -1;
static int hf_wc_opcode = -1;
static int hf_wc_vendorerr = -1, hf_wc_bytelen = -1, hf_wc_imm = -1;
static int hf_wc_srcqp = -1;
static int hf_wc_flags = -1, hf_wc_flag_grh = -1, hf_wc_flag_imm = -1;
static int hf_wc_flag_csum = -1;
static int hf_wc_flag_inv = -1, hf_wc_pkeyindex = -1, hf_wc_slid = -1;
static int hf_wc_sl = -1;
static int hf_wc_dlidpathbits = -1, hf_wc_psn = -1, hf_wc_frame = -1;

static int hf_qp_qpnum = -1, hf_qp_handle = -1, hf_qp_type = -1;
static int hf_qp_oldstate = -1, hf_qp_newstate = -1, hf_qp_cause = -1;
static int hf_qp_status = -1, hf_qp_psn = -1, hf_qp_destqp = -1;
static int hf_qp_frame = -1;

static int hf_cm_event = -1, hf_cm_status = -1, hf_cm_id = -1;
static int hf_cm_listenid = -1;
static int hf_cm_localqpn = -1, hf_cm_remoteqpn = -1, hf_cm_localcommid = -1;
static int hf_cm_remotecommid = -1, hf_cm_serviceid = -1, hf_cm_respres = -1;
static int hf_cm_initdepth = -1, hf_cm_retry = -1, hf_cm_rnrretry = -1;
static int hf_cm_pdatalen = -1;
static int hf_cm_pdata = -1;

static int hf_port_changes = -1, hf_port_ch_state = -1, hf_port_ch_lid = -1;
static int hf_port_ch_smlid = -1, hf_port_ch_issmset = -1;
static int hf_port_ch_issmclr = -1;
static int hf_port_ch_smchange = -1, hf_port_ch_rereg = -1;
static int hf_port_oldstate = -1;
static int hf_port_newstate = -1, hf_port_physstate = -1, hf_port_oldlid = -1;
static int hf_port_newlid = -1, hf_port_oldsmlid = -1, hf_port_newsmlid = -1;
static int hf_port_issm = -1;
static int hf_port_lmc = -1, hf_port_smsl = -1, hf_port_capmask = -1;
static int hf_port_guid = -1;

static gint ett_rec = -1, ett_rec_hdr = -1, ett_rec_flags = -1, ett_umad = -1, ett_wc = -1;
static gint ett_wc_flags = -1, ett_cm = -1;
static gint ett_port = -1, ett_port_changes = -1, ett_qp = -1;

static expert_field ei_rec_bad, ei_umad_timeout, ei_umad_status, ei_wc_status;
static expert_field ei_cm_status, ei_qp_error;

static const value_string kind_vals[] = {
	{ MPD_REC_UMAD, "UMAD" },
	{ MPD_REC_WC, "CQ completion" },
	{ MPD_REC_CM, "CM event" },
	{ MPD_REC_PORT, "Port event" },
	{ MPD_REC_QP, "QP state change" },
	{ 0, NULL }
};

static const value_string umad_dir_vals[] = {
	{ MPD_REC_UMAD_SEND, "Send" },
	{ MPD_REC_UMAD_RECV, "Receive" },
	{ 0, NULL }
};

/* enum ibv_wc_status (rdma-core verbs.h) */
static const value_string wc_status_vals[] = {
	{ 0, "SUCCESS" }, { 1, "LOC_LEN_ERR" }, { 2, "LOC_QP_OP_ERR" },
	{ 3, "LOC_EEC_OP_ERR" }, { 4, "LOC_PROT_ERR" }, { 5, "WR_FLUSH_ERR" },
	{ 6, "MW_BIND_ERR" }, { 7, "BAD_RESP_ERR" }, { 8, "LOC_ACCESS_ERR" },
	{ 9, "REM_INV_REQ_ERR" }, { 10, "REM_ACCESS_ERR" },
	{ 11, "REM_OP_ERR" }, { 12, "RETRY_EXC_ERR" },
	{ 13, "RNR_RETRY_EXC_ERR" }, { 14, "LOC_RDD_VIOL_ERR" },
	{ 15, "REM_INV_RD_REQ_ERR" }, { 16, "REM_ABORT_ERR" },
	{ 17, "INV_EECN_ERR" }, { 18, "INV_EEC_STATE_ERR" },
	{ 19, "FATAL_ERR" }, { 20, "RESP_TIMEOUT_ERR" },
	{ 21, "GENERAL_ERR" }, { 22, "TM_ERR" }, { 23, "TM_RNDV_INCOMPLETE" },
	{ 0, NULL }
};

/* enum ibv_wc_opcode */
static const value_string wc_opcode_vals[] = {
	{ 0, "SEND" }, { 1, "RDMA_WRITE" }, { 2, "RDMA_READ" },
	{ 3, "COMP_SWAP" }, { 4, "FETCH_ADD" }, { 5, "BIND_MW" },
	{ 6, "LOCAL_INV" }, { 7, "TSO" }, { 9, "ATOMIC_WRITE" },
	{ 128, "RECV" }, { 129, "RECV_RDMA_WITH_IMM" }, { 130, "TM_ADD" },
	{ 131, "TM_DEL" }, { 132, "TM_SYNC" }, { 133, "TM_RECV" },
	{ 134, "TM_NO_TAG" }, { 135, "DRIVER1" }, { 136, "DRIVER2" },
	{ 0, NULL }
};

/* enum rdma_cm_event_type (rdma-core rdma_cma.h) */
static const value_string cm_event_vals[] = {
	{ 0, "ADDR_RESOLVED" }, { 1, "ADDR_ERROR" }, { 2, "ROUTE_RESOLVED" },
	{ 3, "ROUTE_ERROR" }, { 4, "CONNECT_REQUEST" },
	{ 5, "CONNECT_RESPONSE" }, { 6, "CONNECT_ERROR" },
	{ 7, "UNREACHABLE" }, { 8, "REJECTED" }, { 9, "ESTABLISHED" },
	{ 10, "DISCONNECTED" }, { 11, "DEVICE_REMOVAL" },
	{ 12, "MULTICAST_JOIN" }, { 13, "MULTICAST_ERROR" },
	{ 14, "ADDR_CHANGE" }, { 15, "TIMEWAIT_EXIT" },
	{ 0, NULL }
};

/* enum ibv_qp_type */
static const value_string qp_type_vals[] = {
	{ 2, "RC" }, { 3, "UC" }, { 4, "UD" },
	{ 0, NULL }
};

/* enum ibv_qp_state */
static const value_string qp_state_vals[] = {
	{ 0, "RESET" }, { 1, "INIT" }, { 2, "RTR" }, { 3, "RTS" },
	{ 4, "SQD" }, { 5, "SQE" }, { 6, "ERR" },
	{ 0, NULL }
};

static const value_string qp_cause_vals[] = {
	{ MPD_REC_QP_MODIFY, "modify" },
	{ MPD_REC_QP_ERROR, "error" },
	{ MPD_REC_QP_DESTROY, "destroy" },
	{ 0, NULL }
};

/* ---- the node and port of a frame ----------------------------------- */

/*
 * "hca1 port 1" for a frame captured on madpmd's interface "hca1/1" (the
 * interface names the node and the port); NULL when the interface is not
 * named that way.
 */
static const char *
port_of(packet_info *pinfo, gboolean *records, int *node_len,
	unsigned long *port)
{
	static const char rec_suffix[] = " records";
	const char *ifn, *sl;
	char *end;

	if (!pinfo->rec || !pinfo->epan ||
	    !(pinfo->rec->presence_flags & WTAP_HAS_INTERFACE_ID))
		return NULL;
	ifn = epan_get_interface_name(pinfo->epan,
				      pinfo->rec->rec_header.packet_header.interface_id);
	sl = ifn ? strrchr(ifn, '/') : NULL;
	if (!sl || sl == ifn || !g_ascii_isdigit(sl[1]))
		return NULL;
	*port = strtoul(sl + 1, &end, 10);
	/* the port's records have an interface of their own */
	*records = !strcmp(end, rec_suffix);
	if ((*end && !*records) || *port > 255)
		return NULL;
	*node_len = (int)(sl - ifn);
	return ifn;
}

const char *
madpmd_port_label(packet_info *pinfo)
{
	unsigned long port;
	gboolean records;
	int n;
	const char *ifn = port_of(pinfo, &records, &n, &port);

	return ifn ? wmem_strdup_printf(pinfo->pool, "%.*s port %lu", n, ifn,
					port) : NULL;
}

const char *
madpmd_port_name(packet_info *pinfo, gboolean *records)
{
	unsigned long port;
	gboolean rec = FALSE;
	int n;
	const char *ifn = port_of(pinfo, &rec, &n, &port);

	if (records)
		*records = rec;
	return ifn ? wmem_strdup_printf(pinfo->pool, "%.*s/%lu", n, ifn,
					port) : NULL;
}

/* ---- the wire frames records point at ---------------------------------- */

/*
 * Filled in the first pass from every BTH the plugin's handles see (RoCEv2,
 * RoCEv1, native IB; whether madpmd decodes the packet or not): the latest
 * frame of each (destination QP, PSN), requests and responses apart (the
 * two directions of an RC QP number their packets independently), and the
 * last responses to each QP in order, for the coalesced ACK that covered
 * a PSN. A record looks up in the first pass, so it only sees frames
 * before it, and keeps what it found for the passes after.
 */
#define RESP_HIST	64

struct bth_ref {
	guint32 frame;
};

struct resp_hist {
	guint32 n;		/* responses seen; the last RESP_HIST kept */
	guint32 frame[RESP_HIST];
	guint32 psn[RESP_HIST];
};

static wmem_map_t *bth_map;	/* guint64 (resp, qp, psn) -> bth_ref */
static wmem_map_t *resp_map;	/* qp -> resp_hist */

static guint64
bth_key(gboolean resp, guint32 qp, guint32 psn)
{
	return (guint64)!!resp << 48 | (guint64)(qp & 0xffffff) << 24 |
	       (psn & 0xffffff);
}

/* RC (and RD, XRC) READ responses, ACK, atomic ACK: to the requester */
static gboolean
bth_is_response(guint8 opcode)
{
	guint8 tp = opcode & MPD_TP_MASK, op = opcode & 0x1f;

	return (tp == MPD_TP_RC || tp == 0x40 || tp == 0xa0) &&
	       op >= MPD_OP_READ_RESP_FIRST && op <= MPD_OP_ATOMIC_ACK;
}

void
madpmd_note_bth(packet_info *pinfo, guint8 opcode, guint32 dest_qp,
		guint32 psn)
{
	gboolean resp = bth_is_response(opcode);
	guint64 key = bth_key(resp, dest_qp, psn);
	struct bth_ref *ref;

	/* CNP carries no PSN of a message */
	if (PINFO_FD_VISITED(pinfo) || opcode == 0x81)
		return;
	ref = wmem_map_lookup(bth_map, &key);
	if (!ref) {
		guint64 *k = wmem_new(wmem_file_scope(), guint64);

		*k = key;
		ref = wmem_new(wmem_file_scope(), struct bth_ref);
		wmem_map_insert(bth_map, k, ref);
	}
	ref->frame = pinfo->num;
	if (resp) {
		struct resp_hist *h = wmem_map_lookup(resp_map,
						      GUINT_TO_POINTER(dest_qp));

		if (!h) {
			h = wmem_new0(wmem_file_scope(), struct resp_hist);
			wmem_map_insert(resp_map, GUINT_TO_POINTER(dest_qp), h);
		}
		h->frame[h->n % RESP_HIST] = pinfo->num;
		h->psn[h->n % RESP_HIST] = psn & 0xffffff;
		h->n++;
	}
}

static guint32
bth_frame(gboolean resp, guint32 qp, guint32 psn)
{
	guint64 key = bth_key(resp, qp, psn);
	const struct bth_ref *ref = wmem_map_lookup(bth_map, &key);

	return ref ? ref->frame : 0;
}

/*
 * The response that completed a send WR whose last PSN is psn: an ACK
 * completes every WR up to its PSN (IBA 9.7.5.1.2), so it is the first
 * response at or after psn (within half the PSN space) of the run of
 * such responses that ends with the latest.
 */
static guint32
covering_response(guint32 qp, guint32 psn)
{
	const struct resp_hist *h = wmem_map_lookup(resp_map,
						    GUINT_TO_POINTER(qp));
	guint32 i, found = 0;

	if (!h)
		return 0;
	for (i = 0; i < MIN(h->n, (guint32)RESP_HIST); i++) {
		guint32 at = (h->n - 1 - i) % RESP_HIST;

		if (((h->psn[at] - psn) & 0xffffff) >= 0x800000)
			break;
		found = h->frame[at];
	}
	return found;
}

/* The WC's packet: for a receive the last packet of the message, else
 * the response that acknowledged the WR's last PSN. */
static guint32
wc_cause(guint32 opcode, guint32 qp, guint32 psn)
{
	guint32 f;

	if (opcode >= 128)
		return bth_frame(FALSE, qp, psn);
	f = bth_frame(TRUE, qp, psn);
	return f ? f : covering_response(qp, psn);
}

/*
 * The QP record's packet: one to the QP with that PSN (a NAK, or the
 * request that failed at the responder), the latest of either; else
 * the QP's own request to its peer (the one that timed out).
 */
static guint32
qp_cause(guint32 qp, guint32 dest_qp, guint32 psn)
{
	guint32 f = MAX(bth_frame(TRUE, qp, psn), bth_frame(FALSE, qp, psn));

	if (!f && dest_qp)
		f = bth_frame(FALSE, dest_qp, psn);
	return f;
}

/* The frame found in the first pass, 0 if none (the same after it). */
static guint32
record_cause(packet_info *pinfo, guint32 found)
{
	if (PINFO_FD_VISITED(pinfo))
		return GPOINTER_TO_UINT(p_get_proto_data(wmem_file_scope(),
				pinfo, proto_madpmd, MADPMD_KEY_CAUSE));
	if (found)
		p_add_proto_data(wmem_file_scope(), pinfo, proto_madpmd,
				 MADPMD_KEY_CAUSE, GUINT_TO_POINTER(found));
	return found;
}

static void
add_cause(proto_tree *t, int hf, tvbuff_t *tvb, guint32 frame)
{
	proto_item *it;

	if (!frame)
		return;
	it = proto_tree_add_uint(t, hf, tvb, 0, 0, frame);
	proto_item_set_generated(it);
}

/* ---- records ---------------------------------------------------------- */

static void
dissect_umad(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
	     proto_tree *top, int off, int len)
{
	proto_tree *t;
	proto_item *it;
	guint32 dir, status, agent, session;
	int h = off + MPD_REC_UMAD_FIXED, a = h + 20;

	if (len < MPD_REC_UMAD_FIXED + MPD_REC_UMAD_HDR_LEN) {
		proto_tree_add_expert_format(tree, pinfo, &ei_rec_bad, tvb, off,
			len, "UMAD record body of %d bytes, at least %d needed",
			len, MPD_REC_UMAD_FIXED + MPD_REC_UMAD_HDR_LEN);
		return;
	}
	t = proto_tree_add_subtree(tree, tvb, off,
				   MPD_REC_UMAD_FIXED + MPD_REC_UMAD_HDR_LEN,
				   ett_umad, NULL, "ib_user_mad");
	proto_tree_add_item_ret_uint(t, hf_umad_dir, tvb, off, 1, ENC_NA, &dir);
	proto_tree_add_item(t, hf_umad_pid, tvb, off + 4, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item_ret_uint(t, hf_umad_portid, tvb, off + 8, 4,
				     ENC_BIG_ENDIAN, &session);
	p_add_proto_data(pinfo->pool, pinfo, proto_madpmd,
			 MADPMD_KEY_UMAD_SESSION, GUINT_TO_POINTER(session + 1));
	proto_tree_add_item_ret_uint(t, hf_umad_agent, tvb, h, 4,
				     ENC_LITTLE_ENDIAN, &agent);
	it = proto_tree_add_item_ret_uint(t, hf_umad_status, tvb, h + 4, 4,
					  ENC_LITTLE_ENDIAN, &status);
	if (status == 110)
		expert_add_info(pinfo, it, &ei_umad_timeout);
	else if (status)
		expert_add_info_format(pinfo, it, &ei_umad_status,
				       "umad status %u", status);
	proto_tree_add_item(t, hf_umad_timeout, tvb, h + 8, 4,
			    ENC_LITTLE_ENDIAN);
	proto_tree_add_item(t, hf_umad_retries, tvb, h + 12, 4,
			    ENC_LITTLE_ENDIAN);
	proto_tree_add_item(t, hf_umad_length, tvb, h + 16, 4,
			    ENC_LITTLE_ENDIAN);
	proto_tree_add_item(t, hf_umad_qpn, tvb, a, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_umad_qkey, tvb, a + 4, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_umad_lid, tvb, a + 8, 2, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_umad_sl, tvb, a + 10, 1, ENC_NA);
	proto_tree_add_item(t, hf_umad_pathbits, tvb, a + 11, 1, ENC_NA);
	proto_tree_add_item(t, hf_umad_grh, tvb, a + 12, 1, ENC_NA);
	proto_tree_add_item(t, hf_umad_gidindex, tvb, a + 13, 1, ENC_NA);
	proto_tree_add_item(t, hf_umad_hoplimit, tvb, a + 14, 1, ENC_NA);
	proto_tree_add_item(t, hf_umad_tclass, tvb, a + 15, 1, ENC_NA);
	proto_tree_add_item(t, hf_umad_gid, tvb, a + 16, 16, ENC_NA);
	proto_tree_add_item(t, hf_umad_flowlabel, tvb, a + 32, 4,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_umad_pkeyindex, tvb, a + 36, 2,
			    ENC_LITTLE_ENDIAN);

	off += MPD_REC_UMAD_FIXED + MPD_REC_UMAD_HDR_LEN;
	len -= MPD_REC_UMAD_FIXED + MPD_REC_UMAD_HDR_LEN;
	if (len > 0)
		madpmd_dissect_mad(tvb_new_subset_length(tvb, off, len), pinfo,
				   top, MADPMD_LAYER_UMAD, TRUE);
	col_prepend_fstr(pinfo->cinfo, COL_INFO, "UMAD %s agent %u%s: ",
			 val_to_str_const(dir, umad_dir_vals, "?"), agent,
			 status == 110 ? " ETIMEDOUT" : "");
}

static int *const wc_flag_bits[] = {
	&hf_wc_flag_grh, &hf_wc_flag_imm, &hf_wc_flag_csum, &hf_wc_flag_inv,
	NULL
};

static void
dissect_wc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int off,
	   int len)
{
	proto_tree *t;
	proto_item *it;
	guint32 status, opcode, qpn, psn = MPD_REC_NO_PSN, cause = 0;

	/* 52 bytes: a capture from before the PSN */
	if (len < MPD_REC_WC_LEN_V1) {
		proto_tree_add_expert(tree, pinfo, &ei_rec_bad, tvb, off, len);
		return;
	}
	t = proto_tree_add_subtree(tree, tvb, off,
				   MIN(len, MPD_REC_WC_LEN), ett_wc, NULL,
				   "Work completion (ibv_wc)");
	proto_tree_add_item(t, hf_wc_cq, tvb, off, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item_ret_uint(t, hf_wc_qpnum, tvb, off + 4, 4,
				     ENC_BIG_ENDIAN, &qpn);
	proto_tree_add_item(t, hf_wc_wrid, tvb, off + 8, 8, ENC_BIG_ENDIAN);
	it = proto_tree_add_item_ret_uint(t, hf_wc_status, tvb, off + 16, 4,
					  ENC_BIG_ENDIAN, &status);
	if (status)
		expert_add_info_format(pinfo, it, &ei_wc_status,
				       "Completion with error %s",
				       val_to_str_const(status, wc_status_vals,
							"unknown"));
	proto_tree_add_item_ret_uint(t, hf_wc_opcode, tvb, off + 20, 4,
				     ENC_BIG_ENDIAN, &opcode);
	proto_tree_add_item(t, hf_wc_vendorerr, tvb, off + 24, 4,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_wc_bytelen, tvb, off + 28, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_wc_imm, tvb, off + 32, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_wc_srcqp, tvb, off + 36, 4, ENC_BIG_ENDIAN);
	proto_tree_add_bitmask(t, tvb, off + 40, hf_wc_flags, ett_wc_flags,
			       wc_flag_bits, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_wc_pkeyindex, tvb, off + 44, 2,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_wc_slid, tvb, off + 46, 2, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_wc_sl, tvb, off + 48, 1, ENC_NA);
	proto_tree_add_item(t, hf_wc_dlidpathbits, tvb, off + 49, 1, ENC_NA);
	if (len >= MPD_REC_WC_LEN)
		psn = tvb_get_ntohl(tvb, off + 52);
	if (psn != MPD_REC_NO_PSN) {
		proto_tree_add_item(t, hf_wc_psn, tvb, off + 52, 4,
				    ENC_BIG_ENDIAN);
		cause = wc_cause(opcode, qpn, psn);
	}
	add_cause(t, hf_wc_frame, tvb, record_cause(pinfo, cause));
	col_add_fstr(pinfo->cinfo, COL_INFO, "CQ completion QP 0x%06x %s %s",
		     qpn, val_to_str_const(opcode, wc_opcode_vals, "?"),
		     val_to_str_const(status, wc_status_vals, "?"));
}

static void
dissect_cm_event(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int off,
		 int len)
{
	proto_tree *t;
	proto_item *it;
	guint32 ev, pdl;
	gint32 status;

	if (len < MPD_REC_CM_FIXED) {
		proto_tree_add_expert(tree, pinfo, &ei_rec_bad, tvb, off, len);
		return;
	}
	pdl = tvb_get_guint8(tvb, off + 43);
	t = proto_tree_add_subtree(tree, tvb, off, len, ett_cm, NULL,
				   "rdma_cm event");
	proto_tree_add_item_ret_uint(t, hf_cm_event, tvb, off, 4,
				     ENC_BIG_ENDIAN, &ev);
	it = proto_tree_add_item_ret_int(t, hf_cm_status, tvb, off + 4, 4,
					 ENC_BIG_ENDIAN, &status);
	if (status)
		expert_add_info_format(pinfo, it, &ei_cm_status,
				       "CM event status %d", status);
	proto_tree_add_item(t, hf_cm_id, tvb, off + 8, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_cm_listenid, tvb, off + 12, 4,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_cm_localqpn, tvb, off + 16, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_cm_remoteqpn, tvb, off + 20, 4,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_cm_localcommid, tvb, off + 24, 4,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_cm_remotecommid, tvb, off + 28, 4,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_cm_serviceid, tvb, off + 32, 8,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_cm_respres, tvb, off + 40, 1, ENC_NA);
	proto_tree_add_item(t, hf_cm_initdepth, tvb, off + 41, 1, ENC_NA);
	proto_tree_add_item(t, hf_cm_retry, tvb, off + 42, 1, ENC_NA);
	proto_tree_add_item(t, hf_cm_rnrretry, tvb, off + 42, 1, ENC_NA);
	proto_tree_add_item(t, hf_cm_pdatalen, tvb, off + 43, 1, ENC_NA);
	if (pdl)
		proto_tree_add_item(t, hf_cm_pdata, tvb, off + MPD_REC_CM_FIXED,
				    (gint)MIN(pdl, (guint32)(len -
							     MPD_REC_CM_FIXED)),
				    ENC_NA);
	madpmd_cm_add_cause(t, tvb, madpmd_cm_event_cause(pinfo, ev,
				tvb_get_ntohl(tvb, off + 24),
				tvb_get_ntohl(tvb, off + 28)));
	col_add_fstr(pinfo->cinfo, COL_INFO, "CM event %s status %d",
		     val_to_str_const(ev, cm_event_vals, "?"), status);
}

static int *const port_change_bits[] = {
	&hf_port_ch_state, &hf_port_ch_lid, &hf_port_ch_smlid,
	&hf_port_ch_issmset, &hf_port_ch_issmclr, &hf_port_ch_smchange,
	&hf_port_ch_rereg, NULL
};

static void
dissect_port_event(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		   int off, int len)
{
	proto_tree *t;
	guint32 ch, ns, lid;

	if (len < MPD_REC_PORT_LEN) {
		proto_tree_add_expert(tree, pinfo, &ei_rec_bad, tvb, off, len);
		return;
	}
	t = proto_tree_add_subtree(tree, tvb, off, MPD_REC_PORT_LEN, ett_port,
				   NULL, "Port event");
	ch = tvb_get_guint8(tvb, off);
	proto_tree_add_bitmask(t, tvb, off, hf_port_changes, ett_port_changes,
			       port_change_bits, ENC_NA);
	proto_tree_add_item(t, hf_port_oldstate, tvb, off + 1, 1, ENC_NA);
	proto_tree_add_item_ret_uint(t, hf_port_newstate, tvb, off + 2, 1,
				     ENC_NA, &ns);
	proto_tree_add_item(t, hf_port_physstate, tvb, off + 3, 1, ENC_NA);
	proto_tree_add_item(t, hf_port_oldlid, tvb, off + 4, 2, ENC_BIG_ENDIAN);
	proto_tree_add_item_ret_uint(t, hf_port_newlid, tvb, off + 6, 2,
				     ENC_BIG_ENDIAN, &lid);
	proto_tree_add_item(t, hf_port_oldsmlid, tvb, off + 8, 2,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_port_newsmlid, tvb, off + 10, 2,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_port_issm, tvb, off + 12, 1, ENC_NA);
	proto_tree_add_item(t, hf_port_lmc, tvb, off + 13, 1, ENC_NA);
	proto_tree_add_item(t, hf_port_smsl, tvb, off + 14, 1, ENC_NA);
	proto_tree_add_item(t, hf_port_capmask, tvb, off + 16, 4,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_port_guid, tvb, off + 20, 8, ENC_BIG_ENDIAN);
	p_add_proto_data(pinfo->pool, pinfo, proto_madpmd, MADPMD_KEY_PORT_LID,
			 GUINT_TO_POINTER(((tvb_get_guint8(tvb, off + 13) & 7u)
					   << 16 | lid) + 1));
	col_add_fstr(pinfo->cinfo, COL_INFO,
		     "Port event: %s, LID %u%s%s%s%s", val_to_str_const(ns,
		     madpmd_port_state_vals, "?"), lid,
		     ch & MPD_REC_PORT_ISSM_SET ? ", IsSM set" : "",
		     ch & MPD_REC_PORT_ISSM_CLR ? ", IsSM cleared" : "",
		     ch & MPD_REC_PORT_SM_CHANGE ? ", SM changed" : "",
		     ch & MPD_REC_PORT_SM_LID ? ", SM LID changed" : "");
}

static void
dissect_qp_event(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int off,
		 int len)
{
	proto_tree *t;
	proto_item *it;
	guint32 qpn, os, ns, cause, status, psn, dqp, found = 0;

	if (len < MPD_REC_QP_LEN) {
		proto_tree_add_expert(tree, pinfo, &ei_rec_bad, tvb, off, len);
		return;
	}
	t = proto_tree_add_subtree(tree, tvb, off, MPD_REC_QP_LEN, ett_qp, NULL,
				   "QP state change");
	proto_tree_add_item_ret_uint(t, hf_qp_qpnum, tvb, off, 4,
				     ENC_BIG_ENDIAN, &qpn);
	proto_tree_add_item(t, hf_qp_handle, tvb, off + 4, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_qp_type, tvb, off + 8, 1, ENC_NA);
	proto_tree_add_item_ret_uint(t, hf_qp_oldstate, tvb, off + 9, 1, ENC_NA,
				     &os);
	proto_tree_add_item_ret_uint(t, hf_qp_newstate, tvb, off + 10, 1,
				     ENC_NA, &ns);
	proto_tree_add_item_ret_uint(t, hf_qp_cause, tvb, off + 11, 1, ENC_NA,
				     &cause);
	it = proto_tree_add_item_ret_uint(t, hf_qp_status, tvb, off + 12, 4,
					  ENC_BIG_ENDIAN, &status);
	if (cause == MPD_REC_QP_ERROR)
		expert_add_info_format(pinfo, it, &ei_qp_error,
				       "QP to %s by an error: %s",
				       val_to_str_const(ns, qp_state_vals, "?"),
				       val_to_str_const(status, wc_status_vals,
							"unknown"));
	psn = tvb_get_ntohl(tvb, off + 16);
	if (psn != MPD_REC_NO_PSN)
		proto_tree_add_item(t, hf_qp_psn, tvb, off + 16, 4,
				    ENC_BIG_ENDIAN);
	proto_tree_add_item_ret_uint(t, hf_qp_destqp, tvb, off + 20, 4,
				     ENC_BIG_ENDIAN, &dqp);
	if (psn != MPD_REC_NO_PSN)
		found = qp_cause(qpn, dqp, psn);
	add_cause(t, hf_qp_frame, tvb, record_cause(pinfo, found));
	if (cause == MPD_REC_QP_ERROR)
		col_add_fstr(pinfo->cinfo, COL_INFO,
			     "QP 0x%06x %s -> %s (error %s)", qpn,
			     val_to_str_const(os, qp_state_vals, "?"),
			     val_to_str_const(ns, qp_state_vals, "?"),
			     val_to_str_const(status, wc_status_vals, "?"));
	else
		col_add_fstr(pinfo->cinfo, COL_INFO, "QP 0x%06x %s -> %s (%s)",
			     qpn, val_to_str_const(os, qp_state_vals, "?"),
			     val_to_str_const(ns, qp_state_vals, "?"),
			     val_to_str_const(cause, qp_cause_vals, "?"));
}

/* The record header's fields, a subtree of t; its header-length item. */
static proto_item *
add_record_header(tvbuff_t *tvb, proto_tree *t, int hl, int len)
{
	static int *const flag_bits[] = { &hf_rec_flag_trunc, NULL };
	proto_tree *ht;
	proto_item *it;

	ht = proto_tree_add_subtree(t, tvb, 0, MIN(hl, len), ett_rec_hdr,
				    NULL, "Record header");
	proto_tree_add_item(ht, hf_rec_magic, tvb, 0, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item(ht, hf_rec_version, tvb, 4, 1, ENC_NA);
	proto_tree_add_item(ht, hf_rec_kind, tvb, 5, 1, ENC_NA);
	proto_tree_add_bitmask(ht, tvb, 6, hf_rec_flags, ett_rec_flags,
			       flag_bits, ENC_BIG_ENDIAN);
	it = proto_tree_add_item(ht, hf_rec_hdrlen, tvb, 8, 2, ENC_BIG_ENDIAN);
	proto_tree_add_item(ht, hf_rec_port, tvb, 10, 1, ENC_NA);
	proto_tree_add_item(ht, hf_rec_node, tvb, 12, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item(ht, hf_rec_seq, tvb, 16, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item(ht, hf_rec_bodylen, tvb, 20, 4, ENC_BIG_ENDIAN);
	return it;
}

static int
dissect_madpmd_record(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
	       void *data _U_)
{
	int len = (int)tvb_captured_length(tvb), hl, body;
	guint32 kind, node, port;
	proto_item *ti, *it;
	proto_tree *t;
	const char *label;

	col_set_str(pinfo->cinfo, COL_PROTOCOL, "madpmd");
	col_clear(pinfo->cinfo, COL_INFO);
	p_add_proto_data(pinfo->pool, pinfo, proto_madpmd, MADPMD_KEY_RECORD,
			 GUINT_TO_POINTER(1));
	ti = proto_tree_add_item(tree, proto_madpmd, tvb, 0, -1, ENC_NA);
	t = proto_item_add_subtree(ti, ett_rec);
	if (len < MPD_REC_HDR_LEN ||
	    tvb_get_ntohl(tvb, 0) != MPD_REC_MAGIC) {
		proto_tree_add_expert_format(t, pinfo, &ei_rec_bad, tvb, 0, len,
					     "Not a madpmd record (no MPDR magic)");
		return len;
	}
	hl = tvb_get_ntohs(tvb, 8);
	body = (int)tvb_get_ntohl(tvb, 20);
	kind = tvb_get_guint8(tvb, 5);
	port = tvb_get_guint8(tvb, 10);
	node = tvb_get_ntohl(tvb, 12);
	label = madpmd_port_label(pinfo);
	if (label) {
		const char *name = madpmd_port_name(pinfo, NULL);

		proto_item_append_text(ti, ", %s, %s (node %u)",
				       val_to_str_const(kind, kind_vals,
							"unknown"),
				       label, node);
		/* the packet list's Source: the port whose API saw it */
		set_address(&pinfo->src, AT_STRINGZ, (int)strlen(name) + 1,
			    name);
	} else {
		proto_item_append_text(ti, ", %s, node %u port %u",
				       val_to_str_const(kind, kind_vals,
							"unknown"),
				       node, port);
	}
	if (hl < MPD_REC_HDR_LEN || hl > len || body < 0 || body > len - hl) {
		it = add_record_header(tvb, t, hl, len);
		expert_add_info_format(pinfo, it, &ei_rec_bad,
				       "Header length %d / body length %d do not fit a record of %d bytes",
				       hl, body, len);
		return len;
	}
	switch (kind) {
	case MPD_REC_UMAD:
		dissect_umad(tvb, pinfo, t, t, hl, body);
		break;
	case MPD_REC_WC:
		dissect_wc(tvb, pinfo, t, hl, body);
		break;
	case MPD_REC_CM:
		dissect_cm_event(tvb, pinfo, t, hl, body);
		break;
	case MPD_REC_PORT:
		dissect_port_event(tvb, pinfo, t, hl, body);
		break;
	case MPD_REC_QP:
		dissect_qp_event(tvb, pinfo, t, hl, body);
		break;
	default:
		col_add_fstr(pinfo->cinfo, COL_INFO, "Record of kind %u", kind);
		if (body)
			proto_tree_add_item(t, hf_rec_body, tvb, hl, body,
					    ENC_NA);
		break;
	}
	/* what the API saw first; the header, collapsed, below it */
	add_record_header(tvb, t, hl, len);
	return len;
}

/* ---- registration -------------------------------------------------------- */

static void
register_record_fields(void)
{
	static hf_register_info hf[] = {
		{ &hf_rec, { "Record", "madpmd.rec", FT_NONE, BASE_NONE, NULL,
		  0, NULL, HFILL } },
		{ &hf_rec_magic, { "Magic", "madpmd.rec.magic", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_rec_version, { "Format Version", "madpmd.rec.version",
		  FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rec_kind, { "Kind", "madpmd.rec.kind", FT_UINT8,
		  BASE_DEC, VALS(kind_vals), 0, NULL, HFILL } },
		{ &hf_rec_flags, { "Flags", "madpmd.rec.flags", FT_UINT16,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_rec_flag_trunc, { "Truncated", "madpmd.rec.flags.truncated",
		  FT_BOOLEAN, 16, NULL, MPD_REC_F_TRUNCATED, NULL, HFILL } },
		{ &hf_rec_hdrlen, { "Header Length", "madpmd.rec.hdrlen",
		  FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rec_port, { "Port", "madpmd.rec.port", FT_UINT8,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rec_node, { "Node", "madpmd.rec.node", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rec_seq, { "Sequence Number", "madpmd.rec.seq",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rec_bodylen, { "Body Length", "madpmd.rec.bodylen",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rec_body, { "Body", "madpmd.rec.body", FT_BYTES,
		  BASE_NONE, NULL, 0, NULL, HFILL } },

		{ &hf_umad_dir, { "Direction", "madpmd.umad.direction",
		  FT_UINT8, BASE_DEC, VALS(umad_dir_vals), 0, NULL, HFILL } },
		{ &hf_umad_pid, { "Process ID", "madpmd.umad.pid", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_portid, { "Port ID", "madpmd.umad.portid",
		  FT_UINT32, BASE_DEC, NULL, 0, "umad_open_port() handle",
		  HFILL } },
		{ &hf_umad_agent, { "Agent ID", "madpmd.umad.agentid",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_status, { "Status", "madpmd.umad.status",
		  FT_UINT32, BASE_DEC, NULL, 0, "0 or an errno", HFILL } },
		{ &hf_umad_timeout, { "Timeout (ms)", "madpmd.umad.timeout",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_retries, { "Retries", "madpmd.umad.retries",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_length, { "Length", "madpmd.umad.length", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_qpn, { "QPN", "madpmd.umad.qpn", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_umad_qkey, { "Q_Key", "madpmd.umad.qkey", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_umad_lid, { "LID", "madpmd.umad.lid", FT_UINT16,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_sl, { "SL", "madpmd.umad.sl", FT_UINT8, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_umad_pathbits, { "Path Bits", "madpmd.umad.pathbits",
		  FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_grh, { "GRH Present", "madpmd.umad.grh", FT_UINT8,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_gidindex, { "GID Index", "madpmd.umad.gidindex",
		  FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_hoplimit, { "Hop Limit", "madpmd.umad.hoplimit",
		  FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_tclass, { "Traffic Class", "madpmd.umad.tclass",
		  FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_gid, { "GID", "madpmd.umad.gid", FT_IPv6, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
		{ &hf_umad_flowlabel, { "Flow Label", "madpmd.umad.flowlabel",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_umad_pkeyindex, { "P_Key Index", "madpmd.umad.pkeyindex",
		  FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },

		{ &hf_wc_cq, { "CQ", "madpmd.wc.cq", FT_UINT32, BASE_DEC, NULL,
		  0, NULL, HFILL } },
		{ &hf_wc_qpnum, { "QP Number", "madpmd.wc.qpnum", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_wc_wrid, { "WR ID", "madpmd.wc.wrid", FT_UINT64,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_wc_status, { "Status", "madpmd.wc.status", FT_UINT32,
		  BASE_DEC, VALS(wc_status_vals), 0, NULL, HFILL } },
		{ &hf_wc_opcode, { "Opcode", "madpmd.wc.opcode", FT_UINT32,
		  BASE_DEC, VALS(wc_opcode_vals), 0, NULL, HFILL } },
		{ &hf_wc_vendorerr, { "Vendor Error", "madpmd.wc.vendorerr",
		  FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_wc_bytelen, { "Byte Length", "madpmd.wc.bytelen",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_wc_imm, { "Immediate Data", "madpmd.wc.imm", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_wc_srcqp, { "Source QP", "madpmd.wc.srcqp", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_wc_flags, { "WC Flags", "madpmd.wc.flags", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_wc_flag_grh, { "GRH", "madpmd.wc.flags.grh", FT_BOOLEAN,
		  32, NULL, 0x1, NULL, HFILL } },
		{ &hf_wc_flag_imm, { "With Immediate", "madpmd.wc.flags.imm",
		  FT_BOOLEAN, 32, NULL, 0x2, NULL, HFILL } },
		{ &hf_wc_flag_csum, { "IP Checksum OK",
		  "madpmd.wc.flags.ipcsumok", FT_BOOLEAN, 32, NULL, 0x4, NULL,
		  HFILL } },
		{ &hf_wc_flag_inv, { "With Invalidate", "madpmd.wc.flags.inv",
		  FT_BOOLEAN, 32, NULL, 0x8, NULL, HFILL } },
		{ &hf_wc_pkeyindex, { "P_Key Index", "madpmd.wc.pkeyindex",
		  FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_wc_slid, { "SLID", "madpmd.wc.slid", FT_UINT16, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_wc_sl, { "SL", "madpmd.wc.sl", FT_UINT8, BASE_DEC, NULL,
		  0, NULL, HFILL } },
		{ &hf_wc_dlidpathbits, { "DLID Path Bits",
		  "madpmd.wc.dlidpathbits", FT_UINT8, BASE_DEC, NULL, 0, NULL,
		  HFILL } },
		{ &hf_wc_psn, { "PSN", "madpmd.wc.psn", FT_UINT32, BASE_DEC,
		  NULL, 0, "PSN of the packet that completed the WR", HFILL } },
		{ &hf_wc_frame, { "Caused by frame", "madpmd.wc.frame",
		  FT_FRAMENUM, BASE_NONE, NULL, 0,
		  "The wire packet that completed the WR", HFILL } },

		{ &hf_qp_qpnum, { "QP Number", "madpmd.qp.qpnum", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_qp_handle, { "Handle", "madpmd.qp.handle", FT_UINT32,
		  BASE_DEC, NULL, 0, "The QP's handle in its client's session",
		  HFILL } },
		{ &hf_qp_type, { "QP Type", "madpmd.qp.type", FT_UINT8,
		  BASE_DEC, VALS(qp_type_vals), 0, NULL, HFILL } },
		{ &hf_qp_oldstate, { "Old State", "madpmd.qp.oldstate",
		  FT_UINT8, BASE_DEC, VALS(qp_state_vals), 0, NULL, HFILL } },
		{ &hf_qp_newstate, { "New State", "madpmd.qp.newstate",
		  FT_UINT8, BASE_DEC, VALS(qp_state_vals), 0, NULL, HFILL } },
		{ &hf_qp_cause, { "Cause", "madpmd.qp.cause", FT_UINT8,
		  BASE_DEC, VALS(qp_cause_vals), 0, NULL, HFILL } },
		{ &hf_qp_status, { "Status", "madpmd.qp.status", FT_UINT32,
		  BASE_DEC, VALS(wc_status_vals), 0,
		  "Cause error: the status of the WR that failed", HFILL } },
		{ &hf_qp_psn, { "PSN", "madpmd.qp.psn", FT_UINT32, BASE_DEC,
		  NULL, 0, "PSN of the packet that caused it", HFILL } },
		{ &hf_qp_destqp, { "Destination QP", "madpmd.qp.destqp",
		  FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_qp_frame, { "Caused by frame", "madpmd.qp.frame",
		  FT_FRAMENUM, BASE_NONE, NULL, 0,
		  "The wire packet that caused the change", HFILL } },

		{ &hf_cm_event, { "Event", "madpmd.cmevent.event", FT_UINT32,
		  BASE_DEC, VALS(cm_event_vals), 0, NULL, HFILL } },
		{ &hf_cm_status, { "Status", "madpmd.cmevent.status", FT_INT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_cm_id, { "CM ID", "madpmd.cmevent.id", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_cm_listenid, { "Listen ID", "madpmd.cmevent.listenid",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_cm_localqpn, { "Local QPN", "madpmd.cmevent.localqpn",
		  FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_cm_remoteqpn, { "Remote QPN", "madpmd.cmevent.remoteqpn",
		  FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_cm_localcommid, { "Local Comm ID",
		  "madpmd.cmevent.localcommid", FT_UINT32, BASE_HEX, NULL, 0,
		  NULL, HFILL } },
		{ &hf_cm_remotecommid, { "Remote Comm ID",
		  "madpmd.cmevent.remotecommid", FT_UINT32, BASE_HEX, NULL, 0,
		  NULL, HFILL } },
		{ &hf_cm_serviceid, { "Service ID", "madpmd.cmevent.serviceid",
		  FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_cm_respres, { "Responder Resources",
		  "madpmd.cmevent.respres", FT_UINT8, BASE_DEC, NULL, 0, NULL,
		  HFILL } },
		{ &hf_cm_initdepth, { "Initiator Depth",
		  "madpmd.cmevent.initdepth", FT_UINT8, BASE_DEC, NULL, 0,
		  NULL, HFILL } },
		{ &hf_cm_retry, { "Retry Count", "madpmd.cmevent.retrycount",
		  FT_UINT8, BASE_DEC, NULL, 0xf0, NULL, HFILL } },
		{ &hf_cm_rnrretry, { "RNR Retry Count",
		  "madpmd.cmevent.rnrretrycount", FT_UINT8, BASE_DEC, NULL,
		  0x0f, NULL, HFILL } },
		{ &hf_cm_pdatalen, { "Private Data Length",
		  "madpmd.cmevent.pdatalen", FT_UINT8, BASE_DEC, NULL, 0, NULL,
		  HFILL } },
		{ &hf_cm_pdata, { "Private Data", "madpmd.cmevent.pdata",
		  FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL } },

		{ &hf_port_changes, { "Changes", "madpmd.port.changes",
		  FT_UINT8, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_port_ch_state, { "PortState", "madpmd.port.changes.state",
		  FT_BOOLEAN, 8, NULL, MPD_REC_PORT_STATE, NULL, HFILL } },
		{ &hf_port_ch_lid, { "LID", "madpmd.port.changes.lid",
		  FT_BOOLEAN, 8, NULL, MPD_REC_PORT_LID, NULL, HFILL } },
		{ &hf_port_ch_smlid, { "SM LID", "madpmd.port.changes.smlid",
		  FT_BOOLEAN, 8, NULL, MPD_REC_PORT_SM_LID, NULL, HFILL } },
		{ &hf_port_ch_issmset, { "IsSM set",
		  "madpmd.port.changes.issmset", FT_BOOLEAN, 8, NULL,
		  MPD_REC_PORT_ISSM_SET, NULL, HFILL } },
		{ &hf_port_ch_issmclr, { "IsSM cleared",
		  "madpmd.port.changes.issmcleared", FT_BOOLEAN, 8, NULL,
		  MPD_REC_PORT_ISSM_CLR, NULL, HFILL } },
		{ &hf_port_ch_smchange, { "SM change",
		  "madpmd.port.changes.smchange", FT_BOOLEAN, 8, NULL,
		  MPD_REC_PORT_SM_CHANGE, NULL, HFILL } },
		{ &hf_port_ch_rereg, { "Client reregister",
		  "madpmd.port.changes.rereg", FT_BOOLEAN, 8, NULL,
		  MPD_REC_PORT_REREG, NULL, HFILL } },
		{ &hf_port_oldstate, { "Old PortState", "madpmd.port.oldstate",
		  FT_UINT8, BASE_DEC, VALS(madpmd_port_state_vals), 0, NULL, HFILL } },
		{ &hf_port_newstate, { "New PortState", "madpmd.port.newstate",
		  FT_UINT8, BASE_DEC, VALS(madpmd_port_state_vals), 0, NULL, HFILL } },
		{ &hf_port_physstate, { "PortPhysicalState",
		  "madpmd.port.physstate", FT_UINT8, BASE_DEC,
		  VALS(madpmd_phys_state_vals), 0, NULL, HFILL } },
		{ &hf_port_oldlid, { "Old LID", "madpmd.port.oldlid", FT_UINT16,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_port_newlid, { "New LID", "madpmd.port.newlid", FT_UINT16,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_port_oldsmlid, { "Old SM LID", "madpmd.port.oldsmlid",
		  FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_port_newsmlid, { "New SM LID", "madpmd.port.newsmlid",
		  FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_port_issm, { "IsSM", "madpmd.port.issm", FT_UINT8,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_port_lmc, { "LMC", "madpmd.port.lmc", FT_UINT8, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_port_smsl, { "SM SL", "madpmd.port.smsl", FT_UINT8,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_port_capmask, { "CapabilityMask", "madpmd.port.capmask",
		  FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_port_guid, { "Port GUID", "madpmd.port.guid", FT_UINT64,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
	};
	static gint *ett[] = {
		&ett_rec, &ett_rec_hdr, &ett_rec_flags, &ett_umad, &ett_wc, &ett_wc_flags,
		&ett_cm, &ett_port, &ett_port_changes, &ett_qp,
	};
	static ei_register_info ei[] = {
		{ &ei_rec_bad, { "madpmd.rec.bad", PI_MALFORMED, PI_ERROR,
		  "Record does not follow the format", EXPFILL } },
		{ &ei_umad_timeout, { "madpmd.umad.timeout.expired",
		  PI_RESPONSE_CODE, PI_WARN,
		  "umad send timed out (ETIMEDOUT): no response", EXPFILL } },
		{ &ei_umad_status, { "madpmd.umad.status.error",
		  PI_RESPONSE_CODE, PI_WARN, "umad status not zero",
		  EXPFILL } },
		{ &ei_wc_status, { "madpmd.wc.status.error", PI_RESPONSE_CODE,
		  PI_WARN, "Completion with error", EXPFILL } },
		{ &ei_cm_status, { "madpmd.cmevent.status.error",
		  PI_RESPONSE_CODE, PI_WARN, "CM event status not zero",
		  EXPFILL } },
		{ &ei_qp_error, { "madpmd.qp.status.error", PI_RESPONSE_CODE,
		  PI_WARN, "QP moved by an error", EXPFILL } },
	};
	expert_module_t *em;

	proto_register_field_array(proto_madpmd, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto_madpmd);
	expert_register_field_array(em, ei, array_length(ei));

	bth_map = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					 g_int64_hash, g_int64_equal);
	resp_map = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					  g_direct_hash, g_direct_equal);
}

static void
proto_register_madpmd(void)
{
	module_t *m;

	proto_madpmd = proto_register_protocol(
		"madpmd InfiniBand/RoCE management", "madpmd", "madpmd");
	register_record_fields();
	madpmd_transport_register();
	madpmd_mad_register();
	madpmd_cm_register();
	madpmd_layout_register_all(proto_madpmd);
	madpmd_stats_register();
	madpmd_link_register();
	madpmd_columns_register();

	register_dissector(MPD_REC_DISSECTOR, dissect_madpmd_record, proto_madpmd);
	register_dissector(MPD_REC_DISSECTOR_MAD, madpmd_dissect_bare_mad,
			   proto_madpmd);

	m = prefs_register_protocol(proto_madpmd, NULL);
	prefs_register_bool_preference(m, "take_roce",
		"Decode RoCE MADs with madpmd",
		"Take RoCEv2 (UDP port 4791) and RoCEv1 (ethertype 0x8915) "
		"MADs from the stock InfiniBand dissector. Off: every RoCE "
		"packet goes to the stock dissector. Other RoCE traffic "
		"always does.", &madpmd_pref_take_roce);
	prefs_register_bool_preference(m, "check_crc",
		"Verify ICRC and VCRC",
		"Compute the invariant and variant CRCs and flag mismatches",
		&madpmd_pref_check_crc);
	prefs_register_bool_preference(m, "reassemble",
		"Reassemble RMPP messages",
		"Reassemble multi-segment RMPP messages (SA tables)",
		&madpmd_pref_reassemble);
	prefs_register_bool_preference(m, "decode_ib",
		"Decode native IB MADs exported for the stock dissector",
		"Native InfiniBand packets that a capture hands to the stock "
		"\"infiniband\" dissector (exported PDUs, madpmd's default) "
		"are decoded by madpmd as well, beside it: RMPP reassembly, "
		"ICRC/VCRC checks, response times on the IB wire (on by "
		"default; the stock dissector's fields stay as they are)",
		&madpmd_pref_decode_ib);
}

static void
proto_reg_handoff_madpmd(void)
{
	madpmd_transport_handoff();
	madpmd_link_handoff();
}

void
plugin_register(void)
{
	static proto_plugin plug;

	plug.register_protoinfo = proto_register_madpmd;
	plug.register_handoff = proto_reg_handoff_madpmd;
	proto_register_plugin(&plug);
}
