/* SPDX-License-Identifier: BSD-3-Clause */
/* SMPs, LID-routed and directed route, checked by tshark. */
#include <stdio.h>
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
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

static void
random_layout(const struct mpd_layout *l, void *obj)
{
	uint16_t i;

	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];

		if (f->kind == MPD_FK_UINT)
			mpd_field_store(f, obj, rnd_bits(f->bits));
		else
			rnd_bytes((uint8_t *)obj + f->mem_off, f->mem_size);
	}
}

static void
expect_mad_hdr(struct oracle *o, int fr, const struct mpd_mad *m)
{
	oracle_expect_uint(o, fr, "infiniband.mad.baseversion", 0,
			   m->hdr.base_version);
	oracle_expect_uint(o, fr, "infiniband.mad.mgmtclass", 0,
			   m->hdr.mgmt_class);
	oracle_expect_uint(o, fr, "infiniband.mad.classversion", 0,
			   m->hdr.class_version);
	oracle_expect_uint(o, fr, "infiniband.mad.method", 0, m->hdr.method);
	oracle_expect_uint(o, fr, "infiniband.mad.transactionid", 0,
			   m->hdr.tid);
	oracle_expect_uint(o, fr, "infiniband.mad.attributeid", 0,
			   m->hdr.attr_id);
	oracle_expect_uint(o, fr, "infiniband.mad.attributemodifier", 0,
			   m->hdr.attr_mod);
}

/* One SMP carrying attr (already encoded) on QP0 of a native IB link. */
static int
add_smp(struct oracle *o, const char *label, bool dr, uint16_t attr_id,
	uint32_t attr_mod, const uint8_t *data, size_t len)
{
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_mad m;
	struct mpd_pkt p;
	int fr, rc;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = dr ? MPD_CLASS_SUBN_DR : MPD_CLASS_SUBN_LID;
	m.hdr.class_version = 1;
	m.hdr.method = MPD_METHOD_GET_RESP;
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
	expect_mad_hdr(o, fr, &m);
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
		random_layout(&mpd_node_info_layout, &ni);
		n = mpd_layout_encode(&mpd_node_info_layout, &ni, data,
				      sizeof(data));
		if (!ok(n == 40, "NodeInfo encodes to 40 bytes"))
			continue;
		fr = add_smp(o, i & 1 ? "DR NodeInfo" : "LID NodeInfo", i & 1,
			     MPD_ATTR_NODE_INFO, 0, data, (size_t)n);
		if (fr)
			oracle_expect_layout(o, fr, &mpd_node_info_layout, &ni,
					     node_info_map, N(node_info_map),
					     0);
	}
	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
