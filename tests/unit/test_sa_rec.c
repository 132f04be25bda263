/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SA record layouts (IBA 15.2.5): golden bytes written out by hand from
 * the IBA tables, random round trips, reserved bits, every error path,
 * layout sanity, and the constants rdma-core also defines.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/umad_sa.h>
#include <infiniband/umad_sa_mcm.h>

#include "madpmd/mad.h"
#include "madpmd/sa.h"
#include "madpmd/wire.h"
#include "layout_check.h"
#include "tap.h"

#define ITERS 200

struct rec {
	const struct mpd_layout *l;
	size_t size;		/* sizeof the host struct */
};

static const struct rec recs[] = {
	{ &mpd_node_record_layout, sizeof(struct mpd_node_record) },
	{ &mpd_port_info_record_layout, sizeof(struct mpd_port_info_record) },
	{ &mpd_service_record_layout, sizeof(struct mpd_service_record) },
	{ &mpd_path_record_layout, sizeof(struct mpd_path_record) },
	{ &mpd_mcmember_record_layout, sizeof(struct mpd_mcmember_record) },
};

static void
golden_path_record(void)
{
	struct mpd_path_record pr;
	uint8_t want[64] = { 0 };
	int i;

	memset(&pr, 0, sizeof(pr));
	pr.service_id = 0x0102030405060708ull;
	for (i = 0; i < 16; i++) {
		pr.dgid[i] = (uint8_t)(0x10 + i);
		pr.sgid[i] = (uint8_t)(0x20 + i);
	}
	pr.dlid = 0x1234;
	pr.slid = 0x5678;
	pr.raw_traffic = 1;
	pr.flow_label = 0xabcde;
	pr.hop_limit = 0x40;
	pr.tclass = 0x9a;
	pr.reversible = 1;
	pr.numb_path = 0x7f;
	pr.pkey = 0xffff;
	pr.qos_class = 0xabc;
	pr.sl = 0xd;
	pr.mtu_selector = MPD_SA_SEL_EQ;
	pr.mtu = 4;
	pr.rate_selector = MPD_SA_SEL_LT;
	pr.rate = 0x10;
	pr.pkt_life_selector = MPD_SA_SEL_BEST;
	pr.pkt_life = 0x12;
	pr.preference = 0x55;

	/* IBA 15.2.5.16, byte by byte */
	lc_put_be(want + 0, 0x0102030405060708ull, 8);	/* ServiceID */
	for (i = 0; i < 16; i++) {
		want[8 + i] = (uint8_t)(0x10 + i);	/* DGID */
		want[24 + i] = (uint8_t)(0x20 + i);	/* SGID */
	}
	lc_put_be(want + 40, 0x1234, 2);			/* DLID */
	lc_put_be(want + 42, 0x5678, 2);			/* SLID */
	want[44] = 0x80 | 0x0a;		/* RawTraffic, 3 rsvd, FlowLabel */
	want[45] = 0xbc;
	want[46] = 0xde;
	want[47] = 0x40;				/* HopLimit */
	want[48] = 0x9a;				/* TClass */
	want[49] = 0x80 | 0x7f;			/* Reversible, NumbPath */
	lc_put_be(want + 50, 0xffff, 2);			/* P_Key */
	want[52] = 0xab;				/* QoSClass, SL */
	want[53] = 0xcd;
	want[54] = 2 << 6 | 4;				/* MTU */
	want[55] = 1 << 6 | 0x10;			/* Rate */
	want[56] = 3 << 6 | 0x12;			/* PacketLifeTime */
	want[57] = 0x55;				/* Preference */
	lc_golden("PathRecord", &mpd_path_record_layout, &pr, want,
		  sizeof(want));
	is_int(want[40] << 8 | want[41], pr.dlid, "PathRecord DLID at byte 40");
}

static void
golden_mcmember_record(void)
{
	struct mpd_mcmember_record mc;
	struct umad_sa_mcmember_record u;
	uint8_t want[52] = { 0 }, w[64];
	uint32_t flow;
	uint8_t sl, hop;
	int i;

	memset(&mc, 0, sizeof(mc));
	for (i = 0; i < 16; i++) {
		mc.mgid[i] = (uint8_t)(0x30 + i);
		mc.port_gid[i] = (uint8_t)(0x40 + i);
	}
	mc.qkey = 0x80010000u;
	mc.mlid = 0xc001;
	mc.mtu_selector = 2;
	mc.mtu = 4;
	mc.tclass = 0x11;
	mc.pkey = 0x7fff;
	mc.rate_selector = 2;
	mc.rate = 6;
	mc.pkt_life_selector = 1;
	mc.pkt_life = 0x3f;
	mc.sl = 0xe;
	mc.flow_label = 0x12345;
	mc.hop_limit = 0xff;
	mc.scope = 2;
	mc.join_state = MPD_MCM_JOIN_FULL;
	mc.proxy_join = 1;

	/* IBA 15.2.5.17 */
	for (i = 0; i < 16; i++) {
		want[i] = (uint8_t)(0x30 + i);		/* MGID */
		want[16 + i] = (uint8_t)(0x40 + i);	/* PortGID */
	}
	lc_put_be(want + 32, 0x80010000u, 4);			/* Q_Key */
	lc_put_be(want + 36, 0xc001, 2);			/* MLID */
	want[38] = 0x84;				/* MTUSelector, MTU */
	want[39] = 0x11;				/* TClass */
	lc_put_be(want + 40, 0x7fff, 2);			/* P_Key */
	want[42] = 0x86;				/* RateSelector, Rate */
	want[43] = 0x7f;			/* PacketLifeTime{Selector} */
	want[44] = 0xe1;			/* SL, FlowLabel, HopLimit */
	want[45] = 0x23;
	want[46] = 0x45;
	want[47] = 0xff;
	want[48] = 0x21;				/* Scope, JoinState */
	want[49] = 0x80;				/* ProxyJoin */
	lc_golden("MCMemberRecord", &mpd_mcmember_record_layout, &mc, want,
		  sizeof(want));

	/* rdma-core reads the same bytes through its own struct */
	memset(w, 0, sizeof(w));
	mpd_layout_encode(&mpd_mcmember_record_layout, &mc, w, sizeof(w));
	memcpy(&u, w, sizeof(u));
	umad_sa_mcm_get_sl_flow_hop(u.sl_flow_hop, &sl, &flow, &hop);
	ok(ntohl(u.qkey) == mc.qkey && ntohs(u.mlid) == mc.mlid &&
	   ntohs(u.pkey) == mc.pkey && u.tclass == mc.tclass &&
	   umad_sa_get_rate_mtu_or_life(u.mtu) == mc.mtu &&
	   u.mtu >> UMAD_SA_SELECTOR_SHIFT == mc.mtu_selector &&
	   umad_sa_get_rate_mtu_or_life(u.rate) == mc.rate &&
	   umad_sa_get_rate_mtu_or_life(u.pkt_life) == mc.pkt_life &&
	   sl == mc.sl && flow == mc.flow_label && hop == mc.hop_limit &&
	   u.scope_state == (mc.scope << 4 | mc.join_state) &&
	   memcmp(u.mgid, mc.mgid, 16) == 0 &&
	   memcmp(u.portgid, mc.port_gid, 16) == 0,
	   "MCMemberRecord agrees with rdma-core's umad_sa_mcmember_record");
}

static void
golden_node_record(void)
{
	static const char desc[] = "madpmd HCA-1";
	struct mpd_node_record nr;
	uint8_t want[108] = { 0 };
	uint16_t i;
	int bad = 0;

	memset(&nr, 0, sizeof(nr));
	nr.lid = 0xbeef;
	nr.node_info.base_version = 1;
	nr.node_info.class_version = 1;
	nr.node_info.node_type = MPD_NODE_TYPE_SWITCH;
	nr.node_info.num_ports = 36;
	nr.node_info.sys_image_guid = 0x0002c90300000001ull;
	nr.node_info.node_guid = 0x0002c90300000002ull;
	nr.node_info.port_guid = 0x0002c90300000003ull;
	nr.node_info.partition_cap = 0x0080;
	nr.node_info.device_id = 0xcafe;
	nr.node_info.revision = 0xa0;
	nr.node_info.local_port_num = 7;
	nr.node_info.vendor_id = 0x0002c9;
	memcpy(nr.node_desc, desc, sizeof(desc) - 1);

	/* IBA 15.2.5.2: LID, reserved, NodeInfo, NodeDescription */
	lc_put_be(want + 0, 0xbeef, 2);
	want[4] = 1;
	want[5] = 1;
	want[6] = 2;
	want[7] = 36;
	lc_put_be(want + 8, 0x0002c90300000001ull, 8);
	lc_put_be(want + 16, 0x0002c90300000002ull, 8);
	lc_put_be(want + 24, 0x0002c90300000003ull, 8);
	lc_put_be(want + 32, 0x0080, 2);
	lc_put_be(want + 34, 0xcafe, 2);
	lc_put_be(want + 36, 0xa0, 4);
	want[40] = 7;
	lc_put_be(want + 41, 0x0002c9, 3);
	memcpy(want + 44, desc, sizeof(desc) - 1);
	lc_golden("NodeRecord", &mpd_node_record_layout, &nr, want,
		  sizeof(want));

	/* the embedded NodeInfo is the SMP attribute moved by 4 bytes */
	for (i = 0; i < mpd_node_info_layout.nfields; i++) {
		const struct mpd_field *ni = &mpd_node_info_layout.fields[i];
		const struct mpd_field *f;
		char name[64];

		snprintf(name, sizeof(name), "node_info.%s", ni->name);
		f = mpd_layout_find(&mpd_node_record_layout, name);
		if (!f || f->bit_off != ni->bit_off + 32 ||
		    f->bits != ni->bits ||
		    f->mem_off != offsetof(struct mpd_node_record, node_info) +
				  ni->mem_off) {
			tap_diag("NodeRecord %s differs from NodeInfo", name);
			bad++;
		}
	}
	ok(bad == 0 && mpd_node_record_layout.nfields ==
			       mpd_node_info_layout.nfields + 2,
	   "NodeRecord embeds every NodeInfo field at +32 bits");
}

static void
golden_port_info_record(void)
{
	struct mpd_port_info_record pir;
	uint8_t want[68] = { 0 };
	int i;

	memset(&pir, 0, sizeof(pir));
	pir.endport_lid = 0x0001;
	pir.port_num = 3;
	pir.options = 0x80;
	for (i = 0; i < MPD_PORT_INFO_LEN; i++)
		pir.port_info[i] = (uint8_t)(i ^ 0x5a);

	/* IBA 15.2.5.3: EndportLID, PortNum, Options, PortInfo */
	lc_put_be(want + 0, 0x0001, 2);
	want[2] = 3;
	want[3] = 0x80;
	for (i = 0; i < MPD_PORT_INFO_LEN; i++)
		want[4 + i] = (uint8_t)(i ^ 0x5a);
	lc_golden("PortInfoRecord", &mpd_port_info_record_layout, &pir, want,
		  sizeof(want));
}

static void
golden_service_record(void)
{
	static const char name[] = "madpmd.test";
	struct mpd_service_record sr;
	uint8_t want[176] = { 0 };
	int i;

	memset(&sr, 0, sizeof(sr));
	sr.service_id = 0x1000000000000001ull;
	for (i = 0; i < 16; i++) {
		sr.service_gid[i] = (uint8_t)(0x60 + i);
		sr.service_key[i] = (uint8_t)(0x70 + i);
		sr.service_data8[i] = (uint8_t)(i + 1);
	}
	sr.service_pkey = 0xffff;
	sr.service_lease = 0xffffffffu;
	memcpy(sr.service_name, name, sizeof(name) - 1);
	for (i = 0; i < 8; i++)
		sr.service_data16[i] = (uint16_t)(0x1000 + i);
	for (i = 0; i < 4; i++)
		sr.service_data32[i] = 0x20000000u + (uint32_t)i;
	for (i = 0; i < 2; i++)
		sr.service_data64[i] = 0x3000000000000000ull + (uint64_t)i;

	/* IBA 15.2.5.14 */
	lc_put_be(want + 0, 0x1000000000000001ull, 8);
	for (i = 0; i < 16; i++) {
		want[8 + i] = (uint8_t)(0x60 + i);
		want[32 + i] = (uint8_t)(0x70 + i);
		want[112 + i] = (uint8_t)(i + 1);
	}
	lc_put_be(want + 24, 0xffff, 2);
	lc_put_be(want + 28, 0xffffffffu, 4);
	memcpy(want + 48, name, sizeof(name) - 1);
	for (i = 0; i < 8; i++)
		lc_put_be(want + 128 + 2 * i, 0x1000u + (unsigned int)i, 2);
	for (i = 0; i < 4; i++)
		lc_put_be(want + 144 + 4 * i, 0x20000000u + (unsigned int)i, 4);
	for (i = 0; i < 2; i++)
		lc_put_be(want + 160 + 8 * i, 0x3000000000000000ull + (unsigned)i,
		    8);
	lc_golden("ServiceRecord", &mpd_service_record_layout, &sr, want,
		  sizeof(want));
}

static void
constants(void)
{
	static const struct {
		uint64_t ours, theirs;
		const char *name;
	} mcm[] = {
#define C(o, t) { MPD_SA_MCM_COMP_##o, UMAD_SA_MCM_COMP_MASK_##t, #o }
		C(MGID, MGID), C(PORT_GID, PORT_GID), C(QKEY, QKEY),
		C(MLID, MLID), C(MTU_SELECTOR, MTU_SEL), C(MTU, MTU),
		C(TCLASS, TCLASS), C(PKEY, PKEY), C(RATE_SELECTOR, RATE_SEL),
		C(RATE, RATE), C(PKT_LIFE_SELECTOR, LIFE_TIME_SEL),
		C(PKT_LIFE, LIFE_TIME), C(SL, SL), C(FLOW_LABEL, FLOW_LABEL),
		C(HOP_LIMIT, HOP_LIMIT), C(SCOPE, SCOPE),
		C(JOIN_STATE, JOIN_STATE), C(PROXY_JOIN, PROXY_JOIN),
#undef C
	};
	static const uint64_t pr[] = {
		MPD_SA_PR_COMP_DGID, MPD_SA_PR_COMP_SGID, MPD_SA_PR_COMP_DLID,
		MPD_SA_PR_COMP_SLID, MPD_SA_PR_COMP_RAW_TRAFFIC, 0,
		MPD_SA_PR_COMP_FLOW_LABEL, MPD_SA_PR_COMP_HOP_LIMIT,
		MPD_SA_PR_COMP_TCLASS, MPD_SA_PR_COMP_REVERSIBLE,
		MPD_SA_PR_COMP_NUMB_PATH, MPD_SA_PR_COMP_PKEY,
		MPD_SA_PR_COMP_QOS_CLASS, MPD_SA_PR_COMP_SL,
		MPD_SA_PR_COMP_MTU_SELECTOR, MPD_SA_PR_COMP_MTU,
		MPD_SA_PR_COMP_RATE_SELECTOR, MPD_SA_PR_COMP_RATE,
		MPD_SA_PR_COMP_PKT_LIFE_SELECTOR, MPD_SA_PR_COMP_PKT_LIFE,
		MPD_SA_PR_COMP_PREFERENCE,
	};
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(mcm) / sizeof(mcm[0]); i++)
		if (mcm[i].ours != mcm[i].theirs) {
			tap_diag("MCM component %s differs", mcm[i].name);
			bad++;
		}
	ok(bad == 0, "MCMemberRecord component mask bits match umad_sa_mcm.h");
	/* PathRecord: fields in table order from bit 2; bit 7 reserved */
	bad = MPD_SA_PR_COMP_SERVICE_ID != 3;
	for (i = 0; i < sizeof(pr) / sizeof(pr[0]); i++)
		if (pr[i] && pr[i] != MPD_SA_COMP(i + 2))
			bad++;
	ok(bad == 0, "PathRecord component mask bits in IBA table order");
	ok(MPD_SA_SEL_GT == UMAD_SA_SELECTOR_GREATER_THAN &&
	   MPD_SA_SEL_LT == UMAD_SA_SELECTOR_LESS_THAN &&
	   MPD_SA_SEL_EQ == UMAD_SA_SELECTOR_EXACTLY &&
	   MPD_SA_SEL_BEST == UMAD_SA_SELECTOR_LARGEST_AVAIL,
	   "selectors match umad_sa.h");
	ok(MPD_MCM_JOIN_FULL == UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER &&
	   MPD_MCM_JOIN_NON == UMAD_SA_MCM_JOIN_STATE_NON_MEMBER &&
	   MPD_MCM_JOIN_SEND_ONLY_NON ==
		   UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_NON_MEMBER &&
	   MPD_MCM_JOIN_SEND_ONLY_FULL ==
		   UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_FULL_MEMBER,
	   "JoinState bits match umad_sa_mcm.h");
	ok(MPD_ATTR_SA_NODE_RECORD == UMAD_SA_ATTR_NODE_REC &&
	   MPD_ATTR_SA_PORT_INFO_RECORD == UMAD_SA_ATTR_PORT_INFO_REC &&
	   MPD_ATTR_SA_SERVICE_RECORD == UMAD_SA_ATTR_SERVICE_REC &&
	   MPD_ATTR_SA_PATH_RECORD == UMAD_SA_ATTR_PATH_REC &&
	   MPD_ATTR_SA_MCMEMBER_RECORD == UMAD_SA_ATTR_MCMEMBER_REC,
	   "SA attribute IDs match umad_sa.h");
	/* AttributeOffset: 8-byte words, rounded up (IBA 15.2.1.1) */
	ok(mpd_sa_attr_offset(64) == 8 && mpd_sa_attr_offset(52) == 7 &&
	   mpd_sa_attr_offset(68) == 9 && mpd_sa_attr_offset(108) == 14 &&
	   mpd_sa_attr_offset(176) == 22 &&
	   sizeof(struct umad_sa_mcmember_record) ==
		   8u * mpd_sa_attr_offset(mpd_mcmember_record_layout.wire_len),
	   "AttributeOffset rounds record sizes up to 8-byte words");
}

int
main(void)
{
	size_t i;

	tap_seed();
	for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		lc_check_layout(recs[i].l, recs[i].size);
		ok(recs[i].l->wire_len <= MPD_SA_DATA_LEN,
		   "%s: fits the %u bytes of SA data", recs[i].l->name,
		   MPD_SA_DATA_LEN);
		lc_check_codec(recs[i].l, recs[i].size, ITERS);
	}
	is_int(mpd_node_record_layout.wire_len, 108, "NodeRecord is 108 bytes");
	is_int(mpd_port_info_record_layout.wire_len, 68,
	       "PortInfoRecord is 68 bytes");
	is_int(mpd_service_record_layout.wire_len, 176,
	       "ServiceRecord is 176 bytes");
	is_int(mpd_path_record_layout.wire_len, 64, "PathRecord is 64 bytes");
	is_int(mpd_mcmember_record_layout.wire_len, 52,
	       "MCMemberRecord is 52 bytes");
	golden_path_record();
	golden_mcmember_record();
	golden_node_record();
	golden_port_info_record();
	golden_service_record();
	constants();
	return tap_done();
}
