/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport under a MAD: LRH (IBA 7.7), GRH (8.3), BTH (9.2), DETH
 * (9.3.3), and their CRCs: ICRC (7.8.1; RoCE annex A16/A17) and VCRC
 * (7.8.2), verified with the codec's CRC routines (lib/wire/crc.c) over
 * the same masked bytes lib/wire/packet.c covers.
 *
 * Entry points: madpmd_ib (LRH first: native IB, exported PDU), RoCEv2
 * (udp.port 4791, BTH first) and RoCEv1 (ethertype 0x8915, GRH first).
 * Packets that are not UD MADs (DestQP or SrcQP 0/1) go to the stock
 * InfiniBand dissector, and so does everything when the "take_roce"
 * preference is off or the madpmd protocol is disabled.
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/expert.h>
#include <epan/address.h>
#include <epan/exceptions.h>
#include <epan/show_exception.h>
#include <wiretap/wtap.h>

#include "madpmd/mad.h"
#include "madpmd/wire.h"
#include "madpmd.h"

enum start { START_LRH, START_GRH, START_BTH };

static int hf_lrh = -1, hf_lrh_vl = -1, hf_lrh_lver = -1, hf_lrh_sl = -1;
static int hf_lrh_lnh = -1;
static int hf_lrh_dlid = -1, hf_lrh_pktlen = -1, hf_lrh_slid = -1;
static int hf_grh = -1, hf_grh_ipver = -1, hf_grh_tclass = -1;
static int hf_grh_flowlabel = -1;
static int hf_grh_paylen = -1, hf_grh_nxthdr = -1, hf_grh_hoplmt = -1;
static int hf_grh_sgid = -1;
static int hf_grh_dgid = -1;
static int hf_bth = -1, hf_bth_opcode = -1, hf_bth_se = -1, hf_bth_m = -1;
static int hf_bth_padcnt = -1;
static int hf_bth_tver = -1, hf_bth_pkey = -1, hf_bth_resv8 = -1;
static int hf_bth_destqp = -1;
static int hf_bth_a = -1, hf_bth_psn = -1;
static int hf_deth_qkey = -1, hf_deth_srcqp = -1, hf_imm = -1, hf_pad = -1;
static int hf_icrc = -1, hf_icrc_status = -1, hf_vcrc = -1, hf_vcrc_status = -1;

static gint ett_transport = -1, ett_lrh = -1, ett_grh = -1, ett_bth = -1;
static expert_field ei_icrc_bad, ei_vcrc_bad, ei_len;

static dissector_handle_t stock_ib;	/* "infiniband", LRH first */
static dissector_handle_t stock_rroce;	/* udp.port 4791, BTH first */
static dissector_handle_t stock_roce;	/* ethertype 0x8915, GRH first */
static dissector_handle_t madpmd_rroce_handle, madpmd_roce_handle;
/* ours, of protocol madpmd: called beside the stock dissector */
static dissector_handle_t madpmd_ib_handle, madpmd_rroce_mad_handle;
static dissector_handle_t madpmd_roce_mad_handle;
static dissector_handle_t madpmd_ib_eth_handle;

static const value_string lnh_vals[] = {
	{ 0, "Raw" }, { 1, "IP non-IBA transport" },
	{ 2, "IBA local (BTH follows)" }, { 3, "IBA global (GRH follows)" },
	{ 0, NULL }
};

static const value_string opcode_vals[] = {
	{ 0x64, "UD Send Only" },
	{ 0x65, "UD Send Only with Immediate" },
	{ 0, NULL }
};

static const value_string crc_status_vals[] = {
	{ PROTO_CHECKSUM_E_BAD, "Bad" },
	{ PROTO_CHECKSUM_E_GOOD, "Good" },
	{ PROTO_CHECKSUM_E_UNVERIFIED, "Unverified" },
	{ PROTO_CHECKSUM_E_NOT_PRESENT, "Not present" },
	{ 0, NULL }
};

static gboolean
madpmd_enabled(void)
{
	return proto_is_protocol_enabled(find_protocol_by_id(proto_madpmd));
}

/* Is the BTH at off the start of a UD MAD (QP0/QP1, IBA 13.5)? */
static gboolean
is_ud_mad(tvbuff_t *tvb, int off)
{
	guint8 op;
	guint32 dqp, sqp;

	if (tvb_captured_length_remaining(tvb, off) <
	    MPD_BTH_LEN + MPD_DETH_LEN + MPD_MAD_HDR_LEN + MPD_ICRC_LEN)
		return FALSE;
	op = tvb_get_guint8(tvb, off);
	if (op != MPD_OP_UD_SEND_ONLY && op != MPD_OP_UD_SEND_ONLY_IMM)
		return FALSE;
	dqp = tvb_get_ntoh24(tvb, off + 5);
	sqp = tvb_get_ntoh24(tvb, off + MPD_BTH_LEN + 5);
	return dqp <= 1 || sqp <= 1;
}

/* The GRH/IPv6 variant fields replaced by ones for the ICRC. */
static void
mask_grh(guint8 *g)
{
	g[0] |= 0x0f;
	g[1] = g[2] = g[3] = 0xff;
	g[7] = 0xff;
}

/*
 * The IP and UDP headers in front of a RoCEv2 BTH: looked for in the
 * frame's data just before the UDP payload and checked against the
 * addresses the IP layer reported. Returns the IP header length, 0 when
 * they cannot be found (IPv6 extension headers, reassembled IP, ...).
 */
static int
roce2_ip_header(tvbuff_t *tvb, packet_info *pinfo, guint8 *out)
{
	tvbuff_t *ds = tvb_get_ds_tvb(tvb);
	int raw = tvb_raw_offset(tvb), udp = raw - MPD_UDP_LEN, ip, ihl;

	if (!ds || raw < MPD_UDP_LEN)
		return 0;
	if (pinfo->net_src.type == AT_IPv4 && pinfo->net_src.len == 4) {
		for (ihl = 5; ihl <= 15; ihl++) {
			ip = udp - 4 * ihl;
			if (ip < 0)
				break;
			if (tvb_get_guint8(ds, ip) != (0x40 | ihl) ||
			    tvb_get_guint8(ds, ip + 9) != 17 ||
			    tvb_memeql(ds, ip + 12, (const guint8 *)
				       pinfo->net_src.data, 4) != 0)
				continue;
			tvb_memcpy(ds, out, ip, (size_t)(4 * ihl) + MPD_UDP_LEN);
			out[1] = 0xff;			/* TOS */
			out[8] = 0xff;			/* TTL */
			out[10] = out[11] = 0xff;	/* header checksum */
			out[4 * ihl + 6] = out[4 * ihl + 7] = 0xff; /* UDP csum */
			return 4 * ihl;
		}
		return 0;
	}
	if (pinfo->net_src.type == AT_IPv6 && pinfo->net_src.len == 16) {
		ip = udp - MPD_IPV6_LEN;
		if (ip < 0 || tvb_get_guint8(ds, ip) >> 4 != 6 ||
		    tvb_get_guint8(ds, ip + 6) != 17 ||
		    tvb_memeql(ds, ip + 8, (const guint8 *)pinfo->net_src.data,
			       16) != 0)
			return 0;
		tvb_memcpy(ds, out, ip, MPD_IPV6_LEN + MPD_UDP_LEN);
		mask_grh(out);
		out[MPD_IPV6_LEN + 6] = out[MPD_IPV6_LEN + 7] = 0xff;
		return MPD_IPV6_LEN;
	}
	return 0;
}

/*
 * ICRC over the masked headers (LRH or eight 0xFF bytes, GRH or IP+UDP,
 * BTH with byte 4 set to 0xFF) and the rest up to icrc_off. Returns FALSE
 * when the bytes needed are not available.
 */
static gboolean
compute_icrc(tvbuff_t *tvb, packet_info *pinfo, enum start st,
	     gboolean has_grh, int bth_off, int icrc_off, guint32 *crc)
{
	guint8 m[MPD_LRH_LEN + 60 + MPD_UDP_LEN + MPD_BTH_LEN];
	int n = 0, rest = bth_off + MPD_BTH_LEN;

	if (icrc_off < rest ||
	    tvb_captured_length_remaining(tvb, 0) < icrc_off)
		return FALSE;
	if (st == START_LRH) {
		tvb_memcpy(tvb, m, 0, MPD_LRH_LEN);
		m[0] |= 0xf0;			/* VL */
		n = MPD_LRH_LEN;
		if (has_grh) {
			tvb_memcpy(tvb, m + n, MPD_LRH_LEN, MPD_GRH_LEN);
			mask_grh(m + n);
			n += MPD_GRH_LEN;
		}
	} else {
		memset(m, 0xff, MPD_LRH_LEN);
		n = MPD_LRH_LEN;
		if (st == START_GRH) {
			tvb_memcpy(tvb, m + n, 0, MPD_GRH_LEN);
			mask_grh(m + n);
			n += MPD_GRH_LEN;
		} else {
			int hl = roce2_ip_header(tvb, pinfo, m + n);

			if (!hl)
				return FALSE;
			n += hl + MPD_UDP_LEN;
		}
	}
	tvb_memcpy(tvb, m + n, bth_off, MPD_BTH_LEN);
	m[n + 4] = 0xff;
	n += MPD_BTH_LEN;
	*crc = mpd_crc32(0, m, (size_t)n);
	*crc = mpd_crc32(*crc, tvb_get_ptr(tvb, rest, icrc_off - rest),
			 (size_t)(icrc_off - rest));
	return TRUE;
}

static void
set_ib_addresses(packet_info *pinfo, tvbuff_t *tvb, enum start st,
		 gboolean has_grh, int grh_off)
{
	if (has_grh && st != START_BTH) {
		set_address_tvb(&pinfo->src, AT_IB, 16, tvb, grh_off + 8);
		set_address_tvb(&pinfo->dst, AT_IB, 16, tvb, grh_off + 24);
	} else if (st == START_LRH) {
		/* AT_IB LIDs are host-order 16-bit numbers */
		guint16 *s = wmem_new(pinfo->pool, guint16);
		guint16 *d = wmem_new(pinfo->pool, guint16);

		*d = tvb_get_ntohs(tvb, 2);
		*s = tvb_get_ntohs(tvb, 6);
		set_address(&pinfo->src, AT_IB, 2, s);
		set_address(&pinfo->dst, AT_IB, 2, d);
	}
}

static int
dissect_transport(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		  enum start st)
{
	int off = 0, grh_off = 0, end, bth_off, mad_off, icrc_off, mad_len;
	gboolean has_grh = st == START_GRH;
	guint8 op, pad;
	guint32 crc;
	const char *label;
	proto_item *ti;
	proto_tree *t, *sub;

	col_set_str(pinfo->cinfo, COL_PROTOCOL, "madpmd");
	col_clear(pinfo->cinfo, COL_INFO);
	ti = proto_tree_add_item(tree, proto_madpmd, tvb, 0, -1, ENC_NA);
	label = madpmd_port_label(pinfo);
	if (label)
		proto_item_append_text(ti, ", %s", label);
	t = proto_item_add_subtree(ti, ett_transport);
	end = (int)tvb_reported_length(tvb);

	if (st == START_LRH) {
		guint8 lnh = tvb_get_guint8(tvb, 1) & 0x3;
		int plen = (tvb_get_ntohs(tvb, 4) & 0x7ff) * 4;

		sub = proto_tree_add_subtree(t, tvb, 0, MPD_LRH_LEN, ett_lrh,
					     NULL, "Local Route Header");
		proto_tree_add_item(sub, hf_lrh_vl, tvb, 0, 1, ENC_NA);
		proto_tree_add_item(sub, hf_lrh_lver, tvb, 0, 1, ENC_NA);
		proto_tree_add_item(sub, hf_lrh_sl, tvb, 1, 1, ENC_NA);
		proto_tree_add_item(sub, hf_lrh_lnh, tvb, 1, 1, ENC_NA);
		proto_tree_add_item(sub, hf_lrh_dlid, tvb, 2, 2, ENC_BIG_ENDIAN);
		proto_tree_add_item(sub, hf_lrh_pktlen, tvb, 4, 2,
				    ENC_BIG_ENDIAN);
		proto_tree_add_item(sub, hf_lrh_slid, tvb, 6, 2, ENC_BIG_ENDIAN);
		has_grh = lnh == MPD_LNH_IBA_GLOBAL;
		off = MPD_LRH_LEN;
		if (plen + MPD_VCRC_LEN > end || plen < off) {
			proto_tree_add_expert_format(t, pinfo, &ei_len, tvb, 4,
				2, "PktLen %d bytes, frame %d", plen, end);
			return end;
		}
		end = plen;	/* where the ICRC ends, the VCRC starts */
	}
	if (has_grh) {
		grh_off = off;
		sub = proto_tree_add_subtree(t, tvb, off, MPD_GRH_LEN, ett_grh,
					     NULL, "Global Route Header");
		proto_tree_add_item(sub, hf_grh_ipver, tvb, off, 1, ENC_NA);
		proto_tree_add_item(sub, hf_grh_tclass, tvb, off, 2,
				    ENC_BIG_ENDIAN);
		proto_tree_add_item(sub, hf_grh_flowlabel, tvb, off, 4,
				    ENC_BIG_ENDIAN);
		proto_tree_add_item(sub, hf_grh_paylen, tvb, off + 4, 2,
				    ENC_BIG_ENDIAN);
		proto_tree_add_item(sub, hf_grh_nxthdr, tvb, off + 6, 1, ENC_NA);
		proto_tree_add_item(sub, hf_grh_hoplmt, tvb, off + 7, 1, ENC_NA);
		proto_tree_add_item(sub, hf_grh_sgid, tvb, off + 8, 16, ENC_NA);
		proto_tree_add_item(sub, hf_grh_dgid, tvb, off + 24, 16, ENC_NA);
		if (st == START_GRH) {
			int pl = tvb_get_ntohs(tvb, off + 4);

			/* RoCEv1: the Ethernet frame may carry a trailer */
			if (off + MPD_GRH_LEN + pl <= end)
				end = off + MPD_GRH_LEN + pl;
		}
		off += MPD_GRH_LEN;
	}
	set_ib_addresses(pinfo, tvb, st, has_grh, grh_off);

	bth_off = off;
	op = tvb_get_guint8(tvb, off);
	pad = (tvb_get_guint8(tvb, off + 1) >> 4) & 0x3;
	sub = proto_tree_add_subtree(t, tvb, off, MPD_BTH_LEN + MPD_DETH_LEN,
				     ett_bth, NULL,
				     "Base and Datagram Extended Transport Headers");
	proto_tree_add_item(sub, hf_bth_opcode, tvb, off, 1, ENC_NA);
	proto_tree_add_item(sub, hf_bth_se, tvb, off + 1, 1, ENC_NA);
	proto_tree_add_item(sub, hf_bth_m, tvb, off + 1, 1, ENC_NA);
	proto_tree_add_item(sub, hf_bth_padcnt, tvb, off + 1, 1, ENC_NA);
	proto_tree_add_item(sub, hf_bth_tver, tvb, off + 1, 1, ENC_NA);
	proto_tree_add_item(sub, hf_bth_pkey, tvb, off + 2, 2, ENC_BIG_ENDIAN);
	proto_tree_add_item(sub, hf_bth_resv8, tvb, off + 4, 1, ENC_NA);
	proto_tree_add_item(sub, hf_bth_destqp, tvb, off + 5, 3,
			    ENC_BIG_ENDIAN);
	proto_tree_add_item(sub, hf_bth_a, tvb, off + 8, 1, ENC_NA);
	proto_tree_add_item(sub, hf_bth_psn, tvb, off + 8, 4, ENC_BIG_ENDIAN);
	off += MPD_BTH_LEN;
	proto_tree_add_item(sub, hf_deth_qkey, tvb, off, 4, ENC_BIG_ENDIAN);
	proto_tree_add_item(sub, hf_deth_srcqp, tvb, off + 5, 3,
			    ENC_BIG_ENDIAN);
	off += MPD_DETH_LEN;
	if (op == MPD_OP_UD_SEND_ONLY_IMM) {
		proto_tree_add_item(sub, hf_imm, tvb, off, 4, ENC_BIG_ENDIAN);
		off += 4;
	}
	mad_off = off;
	icrc_off = end - MPD_ICRC_LEN;
	mad_len = icrc_off - pad - mad_off;
	if (mad_len < 0) {
		proto_tree_add_expert(t, pinfo, &ei_len, tvb, bth_off,
				      end - bth_off);
		return end;
	}

	/* the MAD (and, on native IB, trailing pad) */
	madpmd_dissect_mad(tvb_new_subset_length(tvb, mad_off, mad_len),
			   pinfo, t, MADPMD_LAYER_WIRE, FALSE);
	if (pad)
		proto_tree_add_item(t, hf_pad, tvb, mad_off + mad_len, pad,
				    ENC_NA);

	if (madpmd_pref_check_crc &&
	    compute_icrc(tvb, pinfo, st, has_grh, bth_off, icrc_off, &crc))
		proto_tree_add_checksum(t, tvb, icrc_off, hf_icrc,
					hf_icrc_status, &ei_icrc_bad, pinfo,
					crc, ENC_LITTLE_ENDIAN,
					PROTO_CHECKSUM_VERIFY);
	else
		proto_tree_add_checksum(t, tvb, icrc_off, hf_icrc,
					hf_icrc_status, NULL, pinfo, 0,
					ENC_LITTLE_ENDIAN,
					PROTO_CHECKSUM_NO_FLAGS);
	if (st == START_LRH) {
		guint16 v = 0;
		gboolean have = tvb_captured_length(tvb) >=
				(guint)(end + MPD_VCRC_LEN);

		if (have && madpmd_pref_check_crc)
			v = mpd_crc16_vcrc(tvb_get_ptr(tvb, 0, end),
					   (size_t)end);
		proto_tree_add_checksum(t, tvb, end, hf_vcrc, hf_vcrc_status,
					&ei_vcrc_bad, pinfo, v,
					ENC_LITTLE_ENDIAN,
					have && madpmd_pref_check_crc ?
					PROTO_CHECKSUM_VERIFY :
					PROTO_CHECKSUM_NO_FLAGS);
		end += MPD_VCRC_LEN;
	}
	return end;
}

int
madpmd_dissect_ib(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		  void *data _U_)
{
	int off = MPD_LRH_LEN;
	guint8 lnh;

	if (tvb_captured_length(tvb) < MPD_LRH_LEN)
		return 0;
	lnh = tvb_get_guint8(tvb, 1) & 0x3;
	if (lnh == MPD_LNH_IBA_GLOBAL)
		off += MPD_GRH_LEN;
	else if (lnh != MPD_LNH_IBA_LOCAL)
		return 0;
	if (!is_ud_mad(tvb, off))
		return 0;
	return dissect_transport(tvb, pinfo, tree, START_LRH);
}

static int
dissect_rroce_mad(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		  void *data _U_)
{
	if (!is_ud_mad(tvb, 0))
		return 0;
	return dissect_transport(tvb, pinfo, tree, START_BTH);
}

static int
dissect_roce_mad(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		 void *data _U_)
{
	if (tvb_captured_length(tvb) <= MPD_GRH_LEN ||
	    tvb_get_guint8(tvb, 6) != MPD_GRH_NEXT_HDR_IBA ||
	    !is_ud_mad(tvb, MPD_GRH_LEN))
		return 0;
	return dissect_transport(tvb, pinfo, tree, START_GRH);
}

/*
 * Every BTH the handles see goes to the records' table (first pass), the
 * packets the stock dissector keeps as well as ours. Not inside an ICMP
 * error: the packet quoted there was not received.
 */
static void
note_bth(tvbuff_t *tvb, packet_info *pinfo, enum start st)
{
	int off = 0;

	if (PINFO_FD_VISITED(pinfo) || pinfo->flags.in_error_pkt)
		return;
	if (st == START_LRH) {
		guint8 lnh;

		if (tvb_captured_length(tvb) < MPD_LRH_LEN)
			return;
		lnh = tvb_get_guint8(tvb, 1) & 0x3;
		if (lnh == MPD_LNH_IBA_GLOBAL)
			off = MPD_LRH_LEN + MPD_GRH_LEN;
		else if (lnh == MPD_LNH_IBA_LOCAL)
			off = MPD_LRH_LEN;
		else
			return;
	} else if (st == START_GRH) {
		if (tvb_captured_length(tvb) < MPD_GRH_LEN ||
		    tvb_get_guint8(tvb, 6) != MPD_GRH_NEXT_HDR_IBA)
			return;
		off = MPD_GRH_LEN;
	}
	if (tvb_captured_length_remaining(tvb, off) < MPD_BTH_LEN)
		return;
	madpmd_note_bth(pinfo, tvb_get_guint8(tvb, off),
			tvb_get_ntoh24(tvb, off + 5),
			tvb_get_ntoh24(tvb, off + 9));
}

/*
 * A CM MAD in a native IB packet the stock dissector decodes (LRH first):
 * its connection, as madpmd_dissect_mad() would show it, so that CM
 * conversations and the event records' links need no preference.
 */
static void
note_cm(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree)
{
	int off;
	guint8 lnh;

	if (pinfo->flags.in_error_pkt ||
	    tvb_captured_length(tvb) < MPD_LRH_LEN)
		return;
	lnh = tvb_get_guint8(tvb, 1) & 0x3;
	if (lnh == MPD_LNH_IBA_GLOBAL)
		off = MPD_LRH_LEN + MPD_GRH_LEN;
	else if (lnh == MPD_LNH_IBA_LOCAL)
		off = MPD_LRH_LEN;
	else
		return;
	/* a UD SEND Only to QP1 (the GSI) */
	if (tvb_captured_length_remaining(tvb, off) <
	    MPD_BTH_LEN + MPD_DETH_LEN + MPD_MAD_HDR_LEN ||
	    tvb_get_guint8(tvb, off) != MPD_OP_UD_SEND_ONLY ||
	    tvb_get_ntoh24(tvb, off + 5) != 1)
		return;
	off += MPD_BTH_LEN + MPD_DETH_LEN;
	if (tvb_get_guint8(tvb, off + 1) != MPD_CLASS_CM)
		return;
	madpmd_cm_track(tvb_new_subset_remaining(tvb, off), pinfo, tree,
			tvb_get_ntohs(tvb, off + 16), MPD_CM_DATA_OFF);
}

/*
 * The stock dissector first, as if the plugin were not there: an exception
 * it throws is shown where it would be, and does not stop what follows.
 */
static int
call_stock(dissector_handle_t h, tvbuff_t *tvb, packet_info *pinfo,
	   proto_tree *tree, void *data)
{
	volatile int n = 0;

	if (!h)
		return 0;
	TRY {
		n = call_dissector_with_data(h, tvb, pinfo, tree, data);
	}
	CATCH_NONFATAL_ERRORS {
		show_exception(tvb, pinfo, tree, EXCEPT_CODE, GET_MESSAGE);
		n = (int)tvb_captured_length(tvb);
	}
	ENDTRY;
	return n;
}

/*
 * The stock dissector's decoding, then ours beside it through a handle of
 * protocol madpmd (so "madpmd" joins frame.protocols after "infiniband"),
 * when madpmd is enabled and wants the packet.
 */
static int
stock_then_ours(dissector_handle_t stock, dissector_handle_t ours,
		gboolean want, tvbuff_t *tvb, packet_info *pinfo,
		proto_tree *tree, void *data)
{
	int n = call_stock(stock, tvb, pinfo, tree, data), m = 0;

	if (want && madpmd_enabled())
		m = call_dissector_only(ours, tvb, pinfo, tree, NULL);
	return MAX(n, m);
}

/* madpmd_ib as registered: LRH first (exported PDUs naming it). */
static int
dispatch_ib(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	note_bth(tvb, pinfo, START_LRH);
	return stock_then_ours(stock_ib, madpmd_ib_handle, TRUE, tvb, pinfo,
			       tree, data);
}

static int
dispatch_rroce(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
	       void *data)
{
	note_bth(tvb, pinfo, START_BTH);
	return stock_then_ours(stock_rroce, madpmd_rroce_mad_handle,
			       madpmd_pref_take_roce, tvb, pinfo, tree, data);
}

static int
dispatch_roce(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	note_bth(tvb, pinfo, START_GRH);
	return stock_then_ours(stock_roce, madpmd_roce_mad_handle,
			       madpmd_pref_take_roce, tvb, pinfo, tree, data);
}

/*
 * Native IB packets exported as PDUs naming the stock "infiniband"
 * dissector (what madpmd's captures hold by default): their BTH noted for
 * the records, and with the "decode_ib" preference, decoded by madpmd
 * too, beside the stock dissector's decoding. The packet follows the
 * exported PDU's tags.
 */
static int
postdissect_ib(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
	       void *data _U_)
{
	static const char stock_name[] = "infiniband";
	int off = 0, len = (int)tvb_captured_length(tvb);
	gboolean stock = FALSE;

	if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET ||
	    pinfo->rec->rec_header.packet_header.pkt_encap !=
	    WTAP_ENCAP_WIRESHARK_UPPER_PDU)
		return 0;
	for (;;) {
		guint16 tag, tl;

		if (off + 4 > len)
			return 0;
		tag = tvb_get_ntohs(tvb, off);
		tl = tvb_get_ntohs(tvb, off + 2);
		off += 4;
		if (tag == 0)	/* EXP_PDU_TAG_END_OF_OPT */
			break;
		if (off + tl > len)
			return 0;
		/* EXP_PDU_TAG_DISSECTOR_NAME, NUL padded */
		if (tag == 12 && tl >= sizeof(stock_name) - 1 &&
		    tvb_memeql(tvb, off, (const guint8 *)stock_name,
			       sizeof(stock_name) - 1) == 0 &&
		    (tl == sizeof(stock_name) - 1 ||
		     tvb_get_guint8(tvb, off + sizeof(stock_name) - 1) == 0))
			stock = TRUE;
		off += tl;
	}
	if (!stock || off >= len)
		return 0;
	note_bth(tvb_new_subset_remaining(tvb, off), pinfo, START_LRH);
	if (!madpmd_pref_decode_ib) {
		note_cm(tvb_new_subset_remaining(tvb, off), pinfo, tree);
		return 0;
	}
	return madpmd_dissect_ib(tvb_new_subset_remaining(tvb, off), pinfo,
				 tree, NULL);
}

void
madpmd_transport_register(void)
{
	static hf_register_info hf[] = {
		{ &hf_lrh, { "LRH", "madpmd.lrh", FT_NONE, BASE_NONE, NULL, 0,
		  NULL, HFILL } },
		{ &hf_lrh_vl, { "Virtual Lane", "madpmd.lrh.vl", FT_UINT8,
		  BASE_DEC, NULL, 0xf0, NULL, HFILL } },
		{ &hf_lrh_lver, { "Link Version", "madpmd.lrh.lver", FT_UINT8,
		  BASE_DEC, NULL, 0x0f, NULL, HFILL } },
		{ &hf_lrh_sl, { "Service Level", "madpmd.lrh.sl", FT_UINT8,
		  BASE_DEC, NULL, 0xf0, NULL, HFILL } },
		{ &hf_lrh_lnh, { "Link Next Header", "madpmd.lrh.lnh",
		  FT_UINT8, BASE_DEC, VALS(lnh_vals), 0x03, NULL, HFILL } },
		{ &hf_lrh_dlid, { "Destination LID", "madpmd.lrh.dlid",
		  FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_lrh_pktlen, { "Packet Length", "madpmd.lrh.pktlen",
		  FT_UINT16, BASE_DEC, NULL, 0x07ff, "In 4-byte words",
		  HFILL } },
		{ &hf_lrh_slid, { "Source LID", "madpmd.lrh.slid", FT_UINT16,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_grh, { "GRH", "madpmd.grh", FT_NONE, BASE_NONE, NULL, 0,
		  NULL, HFILL } },
		{ &hf_grh_ipver, { "IP Version", "madpmd.grh.ipver", FT_UINT8,
		  BASE_DEC, NULL, 0xf0, NULL, HFILL } },
		{ &hf_grh_tclass, { "Traffic Class", "madpmd.grh.tclass",
		  FT_UINT16, BASE_DEC, NULL, 0x0ff0, NULL, HFILL } },
		{ &hf_grh_flowlabel, { "Flow Label", "madpmd.grh.flowlabel",
		  FT_UINT32, BASE_DEC, NULL, 0x000fffff, NULL, HFILL } },
		{ &hf_grh_paylen, { "Payload Length", "madpmd.grh.paylen",
		  FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_grh_nxthdr, { "Next Header", "madpmd.grh.nxthdr",
		  FT_UINT8, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_grh_hoplmt, { "Hop Limit", "madpmd.grh.hoplmt", FT_UINT8,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_grh_sgid, { "Source GID", "madpmd.grh.sgid", FT_IPv6,
		  BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_grh_dgid, { "Destination GID", "madpmd.grh.dgid",
		  FT_IPv6, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_bth, { "BTH", "madpmd.bth", FT_NONE, BASE_NONE, NULL, 0,
		  NULL, HFILL } },
		{ &hf_bth_opcode, { "Opcode", "madpmd.bth.opcode", FT_UINT8,
		  BASE_HEX, VALS(opcode_vals), 0, NULL, HFILL } },
		{ &hf_bth_se, { "Solicited Event", "madpmd.bth.se", FT_UINT8,
		  BASE_DEC, NULL, 0x80, NULL, HFILL } },
		{ &hf_bth_m, { "MigReq", "madpmd.bth.m", FT_UINT8, BASE_DEC,
		  NULL, 0x40, NULL, HFILL } },
		{ &hf_bth_padcnt, { "Pad Count", "madpmd.bth.padcnt", FT_UINT8,
		  BASE_DEC, NULL, 0x30, NULL, HFILL } },
		{ &hf_bth_tver, { "Transport Header Version",
		  "madpmd.bth.tver", FT_UINT8, BASE_DEC, NULL, 0x0f, NULL,
		  HFILL } },
		{ &hf_bth_pkey, { "Partition Key", "madpmd.bth.pkey",
		  FT_UINT16, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_bth_resv8, { "Reserved (FECN/BECN)", "madpmd.bth.resv8",
		  FT_UINT8, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_bth_destqp, { "Destination QP", "madpmd.bth.destqp",
		  FT_UINT24, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_bth_a, { "Acknowledge Request", "madpmd.bth.a",
		  FT_UINT8, BASE_DEC, NULL, 0x80, NULL, HFILL } },
		{ &hf_bth_psn, { "Packet Sequence Number", "madpmd.bth.psn",
		  FT_UINT32, BASE_DEC, NULL, 0x00ffffff, NULL, HFILL } },
		{ &hf_deth_qkey, { "Queue Key", "madpmd.deth.qkey", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_deth_srcqp, { "Source QP", "madpmd.deth.srcqp",
		  FT_UINT24, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_imm, { "Immediate Data", "madpmd.imm", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_pad, { "Pad", "madpmd.pad", FT_BYTES, BASE_NONE, NULL, 0,
		  NULL, HFILL } },
		{ &hf_icrc, { "Invariant CRC", "madpmd.icrc", FT_UINT32,
		  BASE_HEX, NULL, 0, "Read least significant byte first",
		  HFILL } },
		{ &hf_icrc_status, { "Invariant CRC Status",
		  "madpmd.icrc.status", FT_UINT8, BASE_NONE,
		  VALS(crc_status_vals), 0, NULL, HFILL } },
		{ &hf_vcrc, { "Variant CRC", "madpmd.vcrc", FT_UINT16,
		  BASE_HEX, NULL, 0, "Read least significant byte first",
		  HFILL } },
		{ &hf_vcrc_status, { "Variant CRC Status",
		  "madpmd.vcrc.status", FT_UINT8, BASE_NONE,
		  VALS(crc_status_vals), 0, NULL, HFILL } },
	};
	static gint *ett[] = { &ett_transport, &ett_lrh, &ett_grh, &ett_bth };
	static ei_register_info ei[] = {
		{ &ei_icrc_bad, { "madpmd.icrc.bad", PI_CHECKSUM, PI_ERROR,
		  "Bad ICRC", EXPFILL } },
		{ &ei_vcrc_bad, { "madpmd.vcrc.bad", PI_CHECKSUM, PI_ERROR,
		  "Bad VCRC", EXPFILL } },
		{ &ei_len, { "madpmd.length.bad", PI_MALFORMED, PI_ERROR,
		  "Length fields disagree with the packet", EXPFILL } },
	};
	expert_module_t *em;

	proto_register_field_array(proto_madpmd, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto_madpmd);
	expert_register_field_array(em, ei, array_length(ei));

	/* madpmd_ib and the RoCE handles: no protocol of their own, so that
	 * the stock dissector still gets every packet when madpmd is
	 * disabled; madpmd's part goes through handles of protocol madpmd */
	register_dissector("madpmd_ib", dispatch_ib, -1);
	madpmd_ib_handle = create_dissector_handle(madpmd_dissect_ib,
						   proto_madpmd);
	madpmd_rroce_mad_handle = create_dissector_handle(dissect_rroce_mad,
							  proto_madpmd);
	madpmd_roce_mad_handle = create_dissector_handle(dissect_roce_mad,
							 proto_madpmd);
	register_postdissector(create_dissector_handle(postdissect_ib,
						       proto_madpmd));
	madpmd_rroce_handle = create_dissector_handle_with_name_and_description(
		dispatch_rroce, -1, "madpmd_rroce",
		"madpmd RoCEv2 MADs (others: InfiniBand)");
	madpmd_roce_handle = create_dissector_handle_with_name_and_description(
		dispatch_roce, -1, "madpmd_roce",
		"madpmd RoCEv1 MADs (others: InfiniBand)");
	/* a table's handles need a description (Decode As sorts by it) */
	madpmd_ib_eth_handle = create_dissector_handle_with_name_and_description(
		dispatch_ib, -1, "madpmd_ib_eth",
		"madpmd IB frames on Ethernet (LRH first)");
}

void
madpmd_transport_handoff(void)
{
	/* plugins hand off after the built-in dissectors, so the stock
	 * handles are in the tables already */
	stock_ib = find_dissector("infiniband");
	stock_rroce = dissector_get_uint_handle(find_dissector_table("udp.port"),
						MPD_ROCE_UDP_PORT);
	stock_roce = dissector_get_uint_handle(find_dissector_table("ethertype"),
					       MPD_ETHERTYPE_ROCE);
	if (stock_rroce == madpmd_rroce_handle)
		stock_rroce = NULL;
	if (stock_roce == madpmd_roce_handle)
		stock_roce = NULL;
	dissector_add_uint("udp.port", MPD_ROCE_UDP_PORT, madpmd_rroce_handle);
	dissector_add_uint("ethertype", MPD_ETHERTYPE_ROCE, madpmd_roce_handle);
	/* native IB frames between two daemons (madpmd --wire on an IB
	 * fabric): the IB packet, LRH first, follows the Ethernet header */
	dissector_add_uint("ethertype", MPD_ETHERTYPE_IB, madpmd_ib_eth_handle);
}
