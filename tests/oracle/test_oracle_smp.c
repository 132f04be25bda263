/* SPDX-License-Identifier: BSD-3-Clause */
/* SMPs, LID-routed and directed route, checked by tshark. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "layout_check.h"
#include "oracle.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct oracle_map node_info_map[] = {
	{ "base_version", "infiniband.nodeinfo.baseversion" },
	{ "class_version", "infiniband.nodeinfo.classversion" },
	{ "node_type", "infiniband.nodeinfo.nodetype" },
	{ "num_ports", "infiniband.nodeinfo.numports" },
	{ "sys_image_guid", "infiniband.nodeinfo.systemimageguid" },
	{ "node_guid", "infiniband.nodeinfo.nodeguid" },
	{ "port_guid", "infiniband.nodeinfo.portguid" },
	{ "partition_cap", "infiniband.nodeinfo.partitioncap" },
	{ "device_id", "infiniband.nodeinfo.deviceid" },
	{ "revision", "infiniband.nodeinfo.revision" },
	{ "local_port_num", "infiniband.nodeinfo.localportnum" },
	{ "vendor_id", "infiniband.nodeinfo.vendorid" },
};

static const struct oracle_map node_desc_map[] = {
	{ "desc", "infiniband.nodedescription.nodestring", ORACLE_AS_STRING },
};

static const struct oracle_map switch_info_map[] = {
	{ "linear_fdb_cap", "infiniband.switchinfo.linearfdbcap" },
	{ "random_fdb_cap", "infiniband.switchinfo.randomfdbcap" },
	{ "multicast_fdb_cap", "infiniband.switchinfo.multicastfdbcap" },
	{ "linear_fdb_top", "infiniband.switchinfo.linearfdbtop" },
	{ "default_port", "infiniband.switchinfo.defaultport" },
	{ "default_mcast_primary_port",
	  "infiniband.switchinfo.defaultmulticastprimaryport" },
	{ "default_mcast_not_primary_port",
	  "infiniband.switchinfo.defaultmulticastnotprimaryport" },
	{ "life_time_value", "infiniband.switchinfo.lifetimevalue" },
	{ "port_state_change", "infiniband.switchinfo.portstatechange" },
	{ "optimized_sl2vl_programming",
	  "infiniband.switchinfo.optimizedsltovlmappingprogramming" },
	{ "lids_per_port", "infiniband.switchinfo.lidsperport" },
	{ "partition_enforcement_cap",
	  "infiniband.switchinfo.partitionenforcementcap" },
	{ "inbound_enforcement_cap",
	  "infiniband.switchinfo.inboundenforcementcap" },
	{ "outbound_enforcement_cap",
	  "infiniband.switchinfo.outboundenforcementcap" },
	{ "filter_raw_inbound_cap", "infiniband.switchinfo.filterrawinboundcap" },
	{ "filter_raw_outbound_cap",
	  "infiniband.switchinfo.filterrawoutboundcap" },
	{ "enhanced_port0", "infiniband.switchinfo.enhancedportzero" },
	/* Wireshark 4.0 stops after byte 16; MulticastFDBTop is not shown */
	{ "multicast_fdb_top", NULL },
};

static const struct oracle_map port_info_map[] = {
	{ "m_key", "infiniband.portinfo.m_key" },
	/* Wireshark 4.0 files GidPrefix under the name portinfo.guid */
	{ "gid_prefix", "infiniband.portinfo.guid" },
	{ "lid", "infiniband.portinfo.lid" },
	{ "master_sm_lid", "infiniband.portinfo.mastersmlid" },
	{ "capability_mask", "infiniband.portinfo.capabilitymask" },
	{ "diag_code", "infiniband.portinfo.diagcode" },
	{ "m_key_lease_period", "infiniband.portinfo.m_keyleaseperiod" },
	{ "local_port_num", "infiniband.portinfo.localportnum" },
	{ "link_width_enabled", "infiniband.portinfo.linkwidthenabled" },
	{ "link_width_supported", "infiniband.portinfo.linkwidthsupported" },
	{ "link_width_active", "infiniband.portinfo.linkwidthactive" },
	{ "link_speed_supported", "infiniband.portinfo.linkspeedsupported" },
	{ "port_state", "infiniband.portinfo.portstate" },
	{ "port_phys_state", "infiniband.portinfo.portphysicalstate" },
	{ "link_down_default_state",
	  "infiniband.portinfo.linkdowndefaultstate" },
	{ "m_key_protect_bits", "infiniband.portinfo.m_keyprotectbits" },
	{ "lmc", "infiniband.portinfo.lmc" },
	{ "link_speed_active", "infiniband.portinfo.linkspeedactive" },
	{ "link_speed_enabled", "infiniband.portinfo.linkspeedenabled" },
	{ "neighbor_mtu", "infiniband.portinfo.neighbormtu" },
	{ "master_sm_sl", "infiniband.portinfo.mastersmsl" },
	{ "vl_cap", "infiniband.portinfo.vlcap" },
	{ "init_type", "infiniband.portinfo.inittype" },
	{ "vl_high_limit", "infiniband.portinfo.vlhighlimit" },
	{ "vl_arb_high_cap", "infiniband.portinfo.vlarbitrationhighcap" },
	{ "vl_arb_low_cap", "infiniband.portinfo.vlarbitrationlowcap" },
	{ "init_type_reply", "infiniband.portinfo.inittypereply" },
	{ "mtu_cap", "infiniband.portinfo.mtucap" },
	{ "vl_stall_count", "infiniband.portinfo.vlstallcount" },
	{ "hoq_life", "infiniband.portinfo.hoqlife" },
	{ "operational_vls", "infiniband.portinfo.operationalvls" },
	{ "partition_enforcement_inbound",
	  "infiniband.portinfo.partitionenforcementinbound" },
	{ "partition_enforcement_outbound",
	  "infiniband.portinfo.partitionenforcementoutbound" },
	{ "filter_raw_inbound", "infiniband.portinfo.filterrawinbound" },
	{ "filter_raw_outbound", "infiniband.portinfo.filterrawoutbound" },
	{ "m_key_violations", "infiniband.portinfo.m_keyviolations" },
	{ "p_key_violations", "infiniband.portinfo.p_keyviolations" },
	{ "q_key_violations", "infiniband.portinfo.q_keyviolations" },
	{ "guid_cap", "infiniband.portinfo.guidcap" },
	{ "client_reregister", "infiniband.portinfo.clientreregister" },
	/* Wireshark 4.0 has no field for MulticastPKeyTrapSuppressionEnabled */
	{ "mcast_pkey_trap_suppression", NULL },
	{ "subnet_timeout", "infiniband.portinfo.subnettimeout" },
	{ "resp_time_value", "infiniband.portinfo.resptimevalue" },
	{ "local_phy_errors", "infiniband.portinfo.localphyerrors" },
	{ "overrun_errors", "infiniband.portinfo.overrunerrors" },
	{ "max_credit_hint", "infiniband.portinfo.maxcredithint" },
	{ "link_round_trip_latency",
	  "infiniband.portinfo.linkroundtriplatency" },
	/* Wireshark 4.0 stops after LinkRoundTripLatency (byte 59) */
	{ "capability_mask2", NULL },
	{ "link_speed_ext_active", NULL },
	{ "link_speed_ext_supported", NULL },
	{ "link_speed_ext_enabled", NULL },
};

static const struct oracle_map sm_info_map[] = {
	{ "guid", "infiniband.sminfo.guid" },
	{ "sm_key", "infiniband.sminfo.sm_key" },
	{ "act_count", "infiniband.sminfo.actcount" },
	{ "priority", "infiniband.sminfo.priority" },
	{ "sm_state", "infiniband.sminfo.smstate" },
};

static const struct oracle_map notice_map[] = {
	{ "is_generic", "infiniband.notice.isgeneric" },
	{ "type", "infiniband.notice.type" },
	{ "producer_type", "infiniband.notice.producertypevendorid" },
	{ "trap_number", "infiniband.notice.trapnumberdeviceid" },
	{ "issuer_lid", "infiniband.notice.issuerlid" },
	{ "notice_toggle", "infiniband.notice.noticetoggle" },
	{ "notice_count", "infiniband.notice.noticecount" },
	{ "data_details", "infiniband.notice.datadetails" },
	/* not carried by an SMP: its data area ends at byte 64 */
	{ "issuer_gid", NULL },
};

/*
 * Table members (guid[3], entry[7].vl, ...): element i is the n-th
 * occurrence of one tshark field. oracle_expect_layout() takes one
 * occurrence per call, so the table is expanded into a full member list
 * and checked one occurrence at a time.
 */
struct elem_map {
	char member[32];
	const char *tshark;	/* NULL: not shown */
	unsigned int occ;
	enum oracle_as as;
};

struct elem_list {
	struct elem_map e[160];
	size_t n;
};

static void
elem_add(struct elem_list *el, const char *member, const char *tshark,
	 unsigned int occ, enum oracle_as as)
{
	struct elem_map *e;

	if (el->n == sizeof(el->e) / sizeof(el->e[0])) {
		ok(0, "element map has room for %s", member);
		return;
	}
	e = &el->e[el->n++];
	snprintf(e->member, sizeof(e->member), "%s", member);
	e->tshark = tshark;
	e->occ = occ;
	e->as = as;
}

static void
elem_add_map(struct elem_list *el, const struct oracle_map *map, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		elem_add(el, map[i].member, map[i].tshark, 0, map[i].as);
}

/* Members array[first..first+count) (".sub" of each when sub is set) are
 * occurrences occ0.. of tshark. */
static void
elem_add_table(struct elem_list *el, const char *array, const char *sub,
	       unsigned int first, unsigned int count, const char *tshark,
	       unsigned int occ0)
{
	char name[32];
	unsigned int i;

	for (i = first; i < first + count; i++) {
		snprintf(name, sizeof(name), "%s[%u]%s", array, i,
			 sub ? sub : "");
		elem_add(el, name, tshark, tshark ? occ0 + i - first : 0,
			 ORACLE_AS_FIELD);
	}
}

static void
expect_elems(struct oracle *o, int fr, const struct mpd_layout *l,
	     const void *obj, const struct elem_list *el)
{
	struct oracle_map map[256];
	unsigned int occ, max_occ = 0;
	uint16_t i;
	size_t j;

	if (!ok(l->nfields <= 256, "%s fits the map", l->name))
		return;
	for (j = 0; j < el->n; j++) {
		if (!mpd_layout_find(l, el->e[j].member))
			ok(0, "%s.%s mapped to tshark is a layout member",
			   l->name, el->e[j].member);
		if (el->e[j].tshark && el->e[j].occ > max_occ)
			max_occ = el->e[j].occ;
	}
	for (occ = 0; occ <= max_occ; occ++) {
		for (i = 0; i < l->nfields; i++) {
			const struct elem_map *e = NULL;

			for (j = 0; j < el->n; j++)
				if (strcmp(el->e[j].member,
					   l->fields[i].name) == 0)
					e = &el->e[j];
			if (!e) {
				if (occ == 0)
					ok(0, "%s.%s has an oracle mapping",
					   l->name, l->fields[i].name);
				map[i].member = l->fields[i].name;
				map[i].tshark = NULL;
				map[i].as = ORACLE_AS_FIELD;
				continue;
			}
			map[i].member = e->member;
			map[i].tshark = e->occ == occ ? e->tshark : NULL;
			map[i].as = e->as;
		}
		oracle_expect_layout(o, fr, l, obj, map, l->nfields, occ);
	}
}

/* One SMP carrying attr (already encoded) on QP0 of a native IB link. */
static int
add_smp(struct oracle *o, const char *label, bool dr, uint8_t method,
	uint16_t attr_id, uint32_t attr_mod, const uint8_t *data, size_t len)
{
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_mad m;
	struct mpd_pkt p;
	int fr, rc;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = dr ? MPD_CLASS_SUBN_DR : MPD_CLASS_SUBN_LID;
	m.hdr.class_version = 1;
	m.hdr.method = method;
	m.hdr.tid = rnd64();
	m.hdr.attr_id = attr_id;
	m.hdr.attr_mod = attr_mod;
	m.mkey = rnd64();
	if (dr) {
		uint8_t cnt = (uint8_t)(1 + rnd_bits(5));
		unsigned int i;

		m.hdr.status = MPD_SMP_STATUS_D;
		m.hdr.class_specific = (uint16_t)((cnt + 1) << 8 | cnt);
		m.dr_slid = MPD_LID_PERMISSIVE;
		m.dr_dlid = MPD_LID_PERMISSIVE;
		for (i = 1; i <= cnt; i++) {
			m.initial_path[i] = (uint8_t)(1 + rnd_bits(5));
			m.return_path[i] = (uint8_t)(1 + rnd_bits(5));
		}
	}
	rc = mpd_mad_encode(&m, data, len, mad, sizeof(mad));
	if (!ok(rc == MPD_MAD_LEN, "%s: MAD encodes", label))
		return 0;
	oracle_pkt_init(&p, MPD_LINK_IB, 0, 0);
	fr = oracle_add_pkt(o, label, &p, mad, sizeof(mad));
	if (!fr)
		return 0;
	oracle_expect_mad_hdr(o, fr, &m, false);
	if (dr) {
		/* Wireshark 4.0 reads its .d field from the wrong bytes (a
		 * 64-bit item masked 0x8000); the status word carries D. */
		oracle_expect_uint(o, fr, "infiniband.smpdirected.smpstatus",
				   0, m.hdr.status);
		oracle_expect_uint(o, fr, "infiniband.smpdirected.hoppointer", 0,
				   mpd_smp_hop_ptr(&m.hdr));
		oracle_expect_uint(o, fr, "infiniband.smpdirected.hopcount", 0,
				   mpd_smp_hop_cnt(&m.hdr));
		oracle_expect_uint(o, fr, "infiniband.smpdirected.drslid", 0,
				   m.dr_slid);
		oracle_expect_uint(o, fr, "infiniband.smpdirected.drdlid", 0,
				   m.dr_dlid);
		oracle_expect_bytes(o, fr, "infiniband.smpdirected.initialpath",
				    0, m.initial_path, sizeof(m.initial_path));
		oracle_expect_bytes(o, fr, "infiniband.smpdirected.returnpath",
				    0, m.return_path, sizeof(m.return_path));
	} else {
		oracle_expect_uint(o, fr, "infiniband.smplid.mkey", 0, m.mkey);
	}
	return fr;
}


/* ---- every other SMP attribute --------------------------------------- */

static void
guid_info_tables(struct elem_list *el)
{
	/* Wireshark 4.0 registers the GUIDInfo GUIDs as switchinfo.guid */
	elem_add_table(el, "guid", NULL, 0, MPD_GUID_INFO_BLOCK,
		       "infiniband.switchinfo.guid", 0);
}

static void
pkey_tables(struct elem_list *el)
{
	/* tshark splits each P_Key in two fields: see pkey_extra() */
	elem_add_table(el, "p_key", NULL, 0, MPD_PKEY_BLOCK, NULL, 0);
}

static void
pkey_extra(struct oracle *o, int fr, const void *obj)
{
	const struct mpd_pkey_table *t = obj;
	unsigned int i;

	for (i = 0; i < MPD_PKEY_BLOCK; i++) {
		oracle_expect_uint(o, fr, "infiniband.p_keytable.membershiptype",
				   i, t->p_key[i] >> 15);
		oracle_expect_uint(o, fr, "infiniband.p_keytable.p_keybase", i,
				   t->p_key[i] & 0x7fff);
	}
}

static void
sl2vl_tables(struct elem_list *el)
{
	char name[32];
	unsigned int i;

	/* even SLs in the high nibble of each byte, odd ones in the low */
	for (i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "vl[%u]", i);
		elem_add(el, name, i & 1 ?
			 "infiniband.sltovlmappingtable.sltovllowbits" :
			 "infiniband.sltovlmappingtable.sltovlhighbits",
			 i / 2, ORACLE_AS_FIELD);
	}
}

static void
vl_arb_tables(struct elem_list *el)
{
	elem_add_table(el, "entry", ".vl", 0, MPD_VL_ARB_BLOCK,
		       "infiniband.vlarbitrationtable.vl", 0);
	elem_add_table(el, "entry", ".weight", 0, MPD_VL_ARB_BLOCK,
		       "infiniband.vlarbitrationtable.weight", 0);
}

static void
lft_tables(struct elem_list *el)
{
	elem_add_table(el, "port", NULL, 0, MPD_LFT_BLOCK,
		       "infiniband.linearforwardingtable.port", 0);
}

static void
mft_tables(struct elem_list *el)
{
	elem_add_table(el, "port_mask", NULL, 0, 16,
		       "infiniband.multicastforwardingtable.portmask", 0);
	/* Wireshark 4.0 shows only the first 16 of the block's 32 masks */
	elem_add_table(el, "port_mask", NULL, 16, MPD_MFT_BLOCK - 16, NULL, 0);
}

static void
node_desc_fix(void *obj)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.:";
	struct mpd_node_desc *nd = obj;
	size_t n = 1 + (size_t)(rnd64() % MPD_NODE_DESC_LEN), i;

	/* printable text, NUL padded (or all 64 bytes used) */
	memset(nd->desc, 0, sizeof(nd->desc));
	for (i = 0; i < n; i++)
		nd->desc[i] = set[rnd64() % (sizeof(set) - 1)];
	/* no blanks at the ends, where a display could trim them */
	if (nd->desc[n - 1] == ' ')
		nd->desc[n - 1] = 'x';
	if (nd->desc[0] == ' ')
		nd->desc[0] = 'x';
}

struct attr_case {
	const char *name;
	uint16_t attr_id;
	uint8_t method;
	const struct mpd_layout *layout;
	size_t obj_size;
	const struct oracle_map *map;	/* scalar members */
	size_t nmap;
	void (*tables)(struct elem_list *el);
	void (*fix)(void *obj);		/* make random values realistic */
	void (*extra)(struct oracle *o, int fr, const void *obj);
	size_t send_len;		/* 0: the layout's wire_len */
};

static const struct attr_case attr_cases[] = {
	{ "NodeDescription", MPD_ATTR_NODE_DESC, MPD_METHOD_GET_RESP,
	  &mpd_node_desc_layout, sizeof(struct mpd_node_desc),
	  node_desc_map, N(node_desc_map), NULL, node_desc_fix, NULL, 0 },
	{ "SwitchInfo", MPD_ATTR_SWITCH_INFO, MPD_METHOD_GET_RESP,
	  &mpd_switch_info_layout, sizeof(struct mpd_switch_info),
	  switch_info_map, N(switch_info_map), NULL, NULL, NULL, 0 },
	{ "GUIDInfo", MPD_ATTR_GUID_INFO, MPD_METHOD_GET_RESP,
	  &mpd_guid_info_layout, sizeof(struct mpd_guid_info),
	  NULL, 0, guid_info_tables, NULL, NULL, 0 },
	{ "PortInfo", MPD_ATTR_PORT_INFO, MPD_METHOD_GET_RESP,
	  &mpd_port_info_layout, sizeof(struct mpd_port_info),
	  port_info_map, N(port_info_map), NULL, NULL, NULL, 0 },
	{ "P_KeyTable", MPD_ATTR_PKEY_TABLE, MPD_METHOD_GET_RESP,
	  &mpd_pkey_table_layout, sizeof(struct mpd_pkey_table),
	  NULL, 0, pkey_tables, NULL, pkey_extra, 0 },
	{ "SLtoVLMappingTable", MPD_ATTR_SL2VL_TABLE, MPD_METHOD_GET_RESP,
	  &mpd_sl2vl_table_layout, sizeof(struct mpd_sl2vl_table),
	  NULL, 0, sl2vl_tables, NULL, NULL, 0 },
	{ "VLArbitrationTable", MPD_ATTR_VL_ARB_TABLE, MPD_METHOD_GET_RESP,
	  &mpd_vl_arb_table_layout, sizeof(struct mpd_vl_arb_table),
	  NULL, 0, vl_arb_tables, NULL, NULL, 0 },
	{ "LinearForwardingTable", MPD_ATTR_LINEAR_FWD_TABLE,
	  MPD_METHOD_GET_RESP, &mpd_lft_block_layout,
	  sizeof(struct mpd_lft_block), NULL, 0, lft_tables, NULL, NULL, 0 },
	{ "MulticastForwardingTable", MPD_ATTR_MCAST_FWD_TABLE,
	  MPD_METHOD_GET_RESP, &mpd_mft_block_layout,
	  sizeof(struct mpd_mft_block), NULL, 0, mft_tables, NULL, NULL, 0 },
	{ "SMInfo", MPD_ATTR_SM_INFO, MPD_METHOD_GET_RESP,
	  &mpd_sm_info_layout, sizeof(struct mpd_sm_info),
	  sm_info_map, N(sm_info_map), NULL, NULL, NULL, 0 },
	{ "Notice", MPD_ATTR_NOTICE, MPD_METHOD_TRAP,
	  &mpd_notice_layout, sizeof(struct mpd_notice),
	  notice_map, N(notice_map), NULL, NULL, NULL, MPD_NOTICE_SMP_LEN },
};

static void
add_attr(struct oracle *o, const struct attr_case *c, bool dr)
{
	uint8_t obj[512] __attribute__((aligned(8)));
	uint8_t data[MPD_NOTICE_LEN];
	struct elem_list *el;
	size_t len = c->send_len ? c->send_len : c->layout->wire_len;
	char label[64];
	int fr, n;

	if (!ok(c->obj_size <= sizeof(obj) &&
		c->layout->wire_len <= sizeof(data),
		"%s fits the test buffers", c->name))
		return;
	memset(obj, 0, sizeof(obj));
	lc_random_fill(c->layout, obj);
	if (c->fix)
		c->fix(obj);
	n = mpd_layout_encode(c->layout, obj, data, sizeof(data));
	if (!ok(n == c->layout->wire_len, "%s encodes to %u bytes", c->name,
		c->layout->wire_len))
		return;
	snprintf(label, sizeof(label), "%s %s", dr ? "DR" : "LID", c->name);
	fr = add_smp(o, label, dr, c->method, c->attr_id,
		     (uint32_t)rnd_bits(16), data, len);
	if (!fr)
		return;
	el = calloc(1, sizeof(*el));
	if (!el)
		return;
	elem_add_map(el, c->map, c->nmap);
	if (c->tables)
		c->tables(el);
	expect_elems(o, fr, c->layout, obj, el);
	if (c->extra)
		c->extra(o, fr, obj);
	free(el);
}

int
main(void)
{
	struct oracle *o;
	int i;

	tap_seed();
	o = oracle_new("smp");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	for (i = 0; i < 8; i++) {
		struct mpd_node_info ni;
		uint8_t data[MPD_SMP_DATA_LEN];
		int fr, n;

		memset(&ni, 0, sizeof(ni));
		lc_random_fill(&mpd_node_info_layout, &ni);
		n = mpd_layout_encode(&mpd_node_info_layout, &ni, data,
				      sizeof(data));
		if (!ok(n == 40, "NodeInfo encodes to 40 bytes"))
			continue;
		fr = add_smp(o, i & 1 ? "DR NodeInfo" : "LID NodeInfo", i & 1,
			     MPD_METHOD_GET_RESP, MPD_ATTR_NODE_INFO, 0, data,
			     (size_t)n);
		if (fr)
			oracle_expect_layout(o, fr, &mpd_node_info_layout, &ni,
					     node_info_map, N(node_info_map),
					     0);
	}
	for (i = 0; i < (int)N(attr_cases); i++) {
		int k;

		for (k = 0; k < 4; k++)
			add_attr(o, &attr_cases[i], k & 1);
	}
	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
