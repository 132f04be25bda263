/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fields generated from the wire codec's layouts (lib/wire: smp_attr.c,
 * perf_attr.c, sa_rec.c, cm_msg.c): one Wireshark field per layout member,
 * so the plugin shows exactly the fields the codec encodes, at the bit
 * offsets the IBA tables give. Members of an array (guid[0..7]) share one
 * field shown once per element, as packet-infiniband.c does.
 *
 * Field names: <prefix>.<member path without '_' and array indices>, e.g.
 * madpmd.smp.portinfo.linkwidthenabled, madpmd.cm.req.primary.locallid.
 */
#include <stdarg.h>
#include <string.h>

#include <epan/packet.h>

#include "madpmd.h"

struct madpmd_lhf {
	const struct mpd_layout *l;
	const char *title;
	int **hfp;		/* per field: where its field id lives */
	gint ett;
};

static GArray *hf_array;	/* hf_register_info */
static GPtrArray *ett_array;	/* gint * */
static GHashTable *abbrev_ids;	/* abbrev -> int * */
static GPtrArray *layouts;

static const struct {
	const char *word;
	const char *shown;
} acronyms[] = {
	{ "guid", "GUID" }, { "lid", "LID" }, { "gid", "GID" }, { "sl", "SL" },
	{ "vl", "VL" }, { "mtu", "MTU" }, { "qp", "QP" }, { "qpn", "QPN" },
	{ "pkey", "P_Key" }, { "p", "P" }, { "qkey", "Q_Key" },
	{ "mkey", "M_Key" }, { "m", "M" }, { "key", "Key" }, { "id", "ID" },
	{ "psn", "PSN" }, { "sm", "SM" }, { "ca", "CA" }, { "cm", "CM" },
	{ "eecn", "EECN" }, { "rdc", "RDC" }, { "srq", "SRQ" },
	{ "rnr", "RNR" }, { "e2e", "E2E" }, { "fdb", "FDB" }, { "hoq", "HOQ" },
	{ "ari", "ARI" }, { "sap", "SAP" }, { "tclass", "TClass" },
	{ "lmc", "LMC" }, { "mlid", "MLID" }, { "mgid", "MGID" },
	{ "oui", "OUI" }, { "hl", "HL" }, { "fl", "FL" }, { "tc", "TC" },
	{ "qp1", "QP1" }, { "vl15", "VL15" }, { "ap", "AP" }, { "sl2vl", "SL2VL" },
	{ "ext", "Ext" }, { "rid", "RID" }, { "dgid", "DGID" },
	{ "sgid", "SGID" }, { "dlid", "DLID" }, { "slid", "SLID" },
	{ "qos", "QoS" }, { "dr", "DR" }, { "pkt", "Pkt" }, { "mft", "MFT" },
	{ "lft", "LFT" }, { "gids", "GIDs" },
};

/* "primary.local_ca_guid" -> "Primary Local CA GUID" */
static char *
display_name(const char *member)
{
	GString *s = g_string_new(NULL);
	const char *p = member;

	while (*p) {
		size_t n = strcspn(p, "_.[");
		char word[64];
		size_t i;
		gboolean done = FALSE;

		if (n > 0 && n < sizeof(word)) {
			memcpy(word, p, n);
			word[n] = '\0';
			if (s->len)
				g_string_append_c(s, ' ');
			for (i = 0; i < G_N_ELEMENTS(acronyms); i++)
				if (strcmp(word, acronyms[i].word) == 0) {
					g_string_append(s, acronyms[i].shown);
					done = TRUE;
					break;
				}
			if (!done) {
				word[0] = g_ascii_toupper(word[0]);
				g_string_append(s, word);
			}
		}
		p += n;
		if (*p == '[') {
			p = strchr(p, ']');
			if (!p)
				break;
			p++;
		} else if (*p) {
			p++;
		}
	}
	return g_string_free(s, FALSE);
}

/* "entry[3].weight" -> "entry.weight"; "node_guid" -> "nodeguid" */
static char *
abbrev_suffix(const char *member)
{
	GString *s = g_string_new(NULL);
	const char *p;

	for (p = member; *p; p++) {
		if (*p == '[') {
			p = strchr(p, ']');
			if (!p)
				break;
			continue;
		}
		if (*p != '_')
			g_string_append_c(s, g_ascii_tolower(*p));
	}
	return g_string_free(s, FALSE);
}

/* ---- enumerations (IBA 14.2.5.6 PortInfo, 15.2.5.16 PathRecord, ...) -- */

static const value_string mtu_vals[] = {
	{ 1, "256" }, { 2, "512" }, { 3, "1024" }, { 4, "2048" },
	{ 5, "4096" },
	{ 0, NULL }
};

/* IBA 15.2.5.16 Table 205 (Rate), with the later additions */
static const value_string rate_vals[] = {
	{ 2, "2.5 Gb/s" }, { 3, "10 Gb/s" }, { 4, "30 Gb/s" },
	{ 5, "5 Gb/s" }, { 6, "20 Gb/s" }, { 7, "40 Gb/s" },
	{ 8, "60 Gb/s" }, { 9, "80 Gb/s" }, { 10, "120 Gb/s" },
	{ 11, "14 Gb/s" }, { 12, "56 Gb/s" }, { 13, "112 Gb/s" },
	{ 14, "168 Gb/s" }, { 15, "25 Gb/s" }, { 16, "100 Gb/s" },
	{ 17, "200 Gb/s" }, { 18, "300 Gb/s" }, { 19, "28 Gb/s" },
	{ 20, "50 Gb/s" }, { 21, "400 Gb/s" }, { 22, "600 Gb/s" },
	{ 0, NULL }
};

static const value_string selector_vals[] = {
	{ 0, "Greater than" }, { 1, "Less than" }, { 2, "Exactly" },
	{ 3, "Largest available" },
	{ 0, NULL }
};

/* PortInfo's PortState and PortPhysicalState (IBA 14.2.5.6 Table 155),
 * named as the kernel's sysfs names them; packet-madpmd.c's port events
 * show the same */
const value_string madpmd_port_state_vals[] = {
	{ 0, "No state change" }, { 1, "Down" }, { 2, "Initialize" },
	{ 3, "Armed" }, { 4, "Active" },
	{ 0, NULL }
};

const value_string madpmd_phys_state_vals[] = {
	{ 0, "No state change" }, { 1, "Sleep" }, { 2, "Polling" },
	{ 3, "Disabled" }, { 4, "PortConfigurationTraining" },
	{ 5, "LinkUp" }, { 6, "LinkErrorRecovery" }, { 7, "PhyTest" },
	{ 0, NULL }
};

static const value_string link_down_vals[] = {
	{ 0, "No state change" }, { 1, "Sleep" }, { 2, "Polling" },
	{ 0, NULL }
};

static const value_string width_vals[] = {
	{ 1, "1X" }, { 2, "4X" }, { 4, "8X" }, { 8, "12X" }, { 16, "2X" },
	{ 0, NULL }
};

static const value_string speed_vals[] = {
	{ 1, "2.5 Gb/s (SDR)" }, { 2, "5.0 Gb/s (DDR)" },
	{ 4, "10.0 Gb/s (QDR)" },
	{ 0, NULL }
};

static const value_string speed_ext_vals[] = {
	{ 0, "No extended speed" }, { 1, "14.0625 Gb/s (FDR)" },
	{ 2, "25.78125 Gb/s (EDR)" }, { 4, "53.125 Gb/s (HDR)" },
	{ 0, NULL }
};

static const value_string vl_cap_vals[] = {
	{ 1, "VL0" }, { 2, "VL0-VL1" }, { 3, "VL0-VL3" }, { 4, "VL0-VL7" },
	{ 5, "VL0-VL14" },
	{ 0, NULL }
};

/* LinkWidthSupported/Enabled: bit sets (IBA 14.2.5.6) */
static const value_string width_set_vals[] = {
	{ 0, "No state change" }, { 1, "1X" }, { 2, "4X" }, { 3, "1X or 4X" },
	{ 7, "1X, 4X or 8X" }, { 11, "1X, 4X or 12X" },
	{ 15, "1X, 4X, 8X or 12X" }, { 17, "1X or 2X" },
	{ 19, "1X, 2X or 4X" }, { 31, "1X, 2X, 4X, 8X or 12X" },
	{ 255, "Set to LinkWidthSupported" },
	{ 0, NULL }
};

/* LinkSpeedSupported/Enabled */
static const value_string speed_set_vals[] = {
	{ 0, "No state change" }, { 1, "2.5 Gb/s" }, { 3, "2.5 or 5.0 Gb/s" },
	{ 5, "2.5 or 10.0 Gb/s" }, { 7, "2.5, 5.0 or 10.0 Gb/s" },
	{ 15, "Set to LinkSpeedSupported" },
	{ 0, NULL }
};

/* MGID scope (IBA 4.1.1) */
static const value_string scope_vals[] = {
	{ 2, "Link-local" }, { 5, "Site-local" }, { 8, "Organization-local" },
	{ 14, "Global" },
	{ 0, NULL }
};

static const value_string node_type_vals[] = {
	{ 1, "Channel Adapter" }, { 2, "Switch" }, { 3, "Router" },
	{ 0, NULL }
};

static const value_string sm_state_vals[] = {
	{ 0, "Not Active" }, { 1, "Discovering" }, { 2, "Standby" },
	{ 3, "Master" },
	{ 0, NULL }
};

static const value_string notice_type_vals[] = {
	{ 0, "Fatal" }, { 1, "Urgent" }, { 2, "Security" },
	{ 3, "Subnet Management" }, { 4, "Informational" },
	{ 0x7f, "Empty" },
	{ 0, NULL }
};

static const value_string producer_type_vals[] = {
	{ 1, "Channel Adapter" }, { 2, "Switch" }, { 3, "Router" },
	{ 4, "Class Manager" },
	{ 0, NULL }
};

/* By the end of the field's abbreviation, whatever the attribute. */
static const struct {
	const char *suffix;
	const value_string *vals;
} enum_fields[] = {
	{ ".mtu", mtu_vals }, { ".neighbormtu", mtu_vals },
	{ ".mtucap", mtu_vals }, { ".rate", rate_vals },
	{ ".mtuselector", selector_vals }, { ".rateselector", selector_vals },
	{ ".pktlifeselector", selector_vals },
	{ ".portstate", madpmd_port_state_vals },
	{ ".portphysstate", madpmd_phys_state_vals },
	{ ".linkdowndefaultstate", link_down_vals },
	{ ".linkwidthactive", width_vals },
	{ ".linkspeedactive", speed_vals },
	{ ".linkspeedextactive", speed_ext_vals },
	{ ".linkwidthsupported", width_set_vals },
	{ ".linkwidthenabled", width_set_vals },
	{ ".linkspeedsupported", speed_set_vals },
	{ ".linkspeedenabled", speed_set_vals },
	{ ".mcmemberrecord.scope", scope_vals },
	{ ".vlcap", vl_cap_vals }, { ".operationalvls", vl_cap_vals },
	{ ".nodetype", node_type_vals }, { ".smstate", sm_state_vals },
	{ ".notice.type", notice_type_vals },
	{ ".producertype", producer_type_vals },
};

static const value_string *
enum_of(const char *abbrev)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(enum_fields); i++)
		if (g_str_has_suffix(abbrev, enum_fields[i].suffix))
			return enum_fields[i].vals;
	return NULL;
}

/* Counts (violations, dropped packets, a lease period, a capacity) are
 * decimal even when their name says key or GUID. */
static gboolean
is_count(const char *m)
{
	return strstr(m, "violations") || strstr(m, "dropped") ||
	       strstr(m, "lease_period") || g_str_has_suffix(m, "_cap") ||
	       strstr(m, "protect_bits");
}

static gboolean
wants_hex(const char *m)
{
	if (is_count(m))
		return FALSE;
	return strstr(m, "guid") || strstr(m, "key") || strstr(m, "mask") ||
	       strstr(m, "qpn") || strstr(m, "_qp") || g_str_has_prefix(m, "qp") ||
	       g_str_has_suffix(m, "_id") || strcmp(m, "id") == 0 ||
	       strstr(m, "comm_id") || strstr(m, "capability") ||
	       strstr(m, "vendor") || strstr(m, "psn") || strstr(m, "eecn");
}

static gboolean
is_text(const char *m)
{
	return strcmp(m, "desc") == 0 || g_str_has_suffix(m, "node_desc") ||
	       g_str_has_suffix(m, "service_name");
}

struct madpmd_lhf *
madpmd_layout_hf(const struct mpd_layout *l, const char *prefix,
		 const char *title)
{
	struct madpmd_lhf *lh = g_new0(struct madpmd_lhf, 1);
	guint16 i;

	if (!hf_array) {
		hf_array = g_array_new(FALSE, TRUE, sizeof(hf_register_info));
		ett_array = g_ptr_array_new();
		abbrev_ids = g_hash_table_new(g_str_hash, g_str_equal);
		layouts = g_ptr_array_new();
	}
	lh->l = l;
	lh->title = title;
	lh->ett = -1;
	lh->hfp = g_new0(int *, l->nfields);
	g_ptr_array_add(ett_array, &lh->ett);
	g_ptr_array_add(layouts, lh);
	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];
		char *suffix = abbrev_suffix(f->name);
		char *abbrev = g_strdup_printf("%s.%s", prefix, suffix);
		int *id = g_hash_table_lookup(abbrev_ids, abbrev);
		hf_register_info hri;

		g_free(suffix);
		if (id) {
			lh->hfp[i] = id;
			g_free(abbrev);
			continue;
		}
		id = g_new(int, 1);
		*id = -1;
		g_hash_table_insert(abbrev_ids, abbrev, id);
		lh->hfp[i] = id;
		memset(&hri, 0, sizeof(hri));
		hri.p_id = id;
		hri.hfinfo.name = display_name(f->name);
		hri.hfinfo.abbrev = abbrev;
		hri.hfinfo.strings = NULL;
		hri.hfinfo.bitmask = 0;
		hri.hfinfo.blurb = NULL;
		if (f->kind == MPD_FK_BYTES) {
			if (f->bits == 128 && strstr(f->name, "gid")) {
				hri.hfinfo.type = FT_IPv6;
				hri.hfinfo.display = BASE_NONE;
			} else if (is_text(f->name)) {
				hri.hfinfo.type = FT_STRINGZPAD;
				hri.hfinfo.display = BASE_NONE;
			} else {
				hri.hfinfo.type = FT_BYTES;
				hri.hfinfo.display = BASE_NONE;
			}
		} else {
			hri.hfinfo.type = f->bits <= 8 ? FT_UINT8 :
					  f->bits <= 16 ? FT_UINT16 :
					  f->bits <= 24 ? FT_UINT24 :
					  f->bits <= 32 ? FT_UINT32 : FT_UINT64;
			hri.hfinfo.display = wants_hex(f->name) ? BASE_HEX
								: BASE_DEC;
			if (f->bits <= 32 && enum_of(abbrev)) {
				hri.hfinfo.strings = VALS(enum_of(abbrev));
				hri.hfinfo.display = BASE_DEC;
			}
		}
		/* HFILL */
		hri.hfinfo.id = -1;
		hri.hfinfo.parent = 0;
		hri.hfinfo.ref_type = HF_REF_TYPE_NONE;
		hri.hfinfo.same_name_prev_id = -1;
		hri.hfinfo.same_name_next = NULL;
		g_array_append_val(hf_array, hri);
	}
	return lh;
}

void
madpmd_layout_register_all(int proto)
{
	if (!hf_array)
		return;
	proto_register_field_array(proto, (hf_register_info *)hf_array->data,
				   (int)hf_array->len);
	proto_register_subtree_array((gint *const *)ett_array->pdata,
				     (int)ett_array->len);
}

const char *
madpmd_layout_title(const struct madpmd_lhf *lh)
{
	return lh->title;
}

int
madpmd_layout_len(const struct madpmd_lhf *lh)
{
	return lh->l->wire_len;
}

proto_item *
madpmd_layout_dissect(const struct madpmd_lhf *lh, tvbuff_t *tvb, int offset,
		      int max, proto_tree *tree, const char *label_fmt, ...)
{
	const struct mpd_layout *l = lh->l;
	int len = l->wire_len, avail = tvb_captured_length_remaining(tvb, offset);
	const guint8 *p;
	proto_tree *sub;
	proto_item *ti;
	va_list ap;
	char *label;
	guint16 i;

	if (max >= 0 && max < len)
		len = max;
	if (avail < len)
		len = avail;
	if (len <= 0 || !tree)
		return NULL;
	va_start(ap, label_fmt);
	label = wmem_strdup_vprintf(wmem_packet_scope(), label_fmt, ap);
	va_end(ap);
	sub = proto_tree_add_subtree(tree, tvb, offset, len, lh->ett, &ti,
				     label);
	p = tvb_get_ptr(tvb, offset, len);
	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];
		int first = f->bit_off / 8;
		int nbytes = (f->bit_off + f->bits + 7) / 8 - first;
		int hf = *lh->hfp[i];

		if (first + nbytes > len)
			continue;
		if (f->kind == MPD_FK_BYTES) {
			header_field_info *hfi = proto_registrar_get_nth(hf);

			proto_tree_add_item(sub, hf, tvb, offset + first,
					    nbytes, hfi->type == FT_STRINGZPAD ?
					    ENC_UTF_8 | ENC_NA : ENC_NA);
		} else if (f->bits > 32) {
			proto_tree_add_uint64(sub, hf, tvb, offset + first,
					      nbytes,
					      mpd_bits_get(p, f->bit_off,
							   f->bits));
		} else {
			proto_tree_add_uint(sub, hf, tvb, offset + first,
					    nbytes,
					    (guint32)mpd_bits_get(p, f->bit_off,
								  f->bits));
		}
	}
	return ti;
}
