/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Our MAD constants and offsets (madpmd/mad.h) against rdma-core's
 * (infiniband/umad_*.h, infiniband/umad.h), which stock OpenSM,
 * infiniband-diags and every libibumad user compile against. Each pair is
 * compared at run time, so a value that differs is a failed check naming
 * both (not a build error that hides the rest); then MADs and umad capture
 * records built by our code are read back through rdma-core's structs.
 */
#include <endian.h>
#include <stddef.h>
#include <string.h>

#include <infiniband/umad_types.h>
#include <infiniband/umad_sm.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_cm.h>
#include <infiniband/umad.h>

#include "madpmd/mad.h"
#include "madpmd/records.h"
#include "madpmd/wire.h"
#include "tap.h"

/* At run time only: the check must be able to fail and say so. */
#define SAME(ours, theirs) is_int(ours, theirs, "%s == %s", #ours, #theirs)

static void
test_classes(void)
{
	SAME(MPD_BASE_VERSION, UMAD_BASE_VERSION);
	SAME(MPD_CLASS_SUBN_LID, UMAD_CLASS_SUBN_LID_ROUTED);
	SAME(MPD_CLASS_SUBN_DR, UMAD_CLASS_SUBN_DIRECTED_ROUTE);
	SAME(MPD_CLASS_SUBN_ADM, UMAD_CLASS_SUBN_ADM);
	SAME(MPD_CLASS_PERF, UMAD_CLASS_PERF_MGMT);
	SAME(MPD_CLASS_BM, UMAD_CLASS_BM);
	SAME(MPD_CLASS_DEV_MGT, UMAD_CLASS_DEVICE_MGMT);
	SAME(MPD_CLASS_CM, UMAD_CLASS_CM);
	SAME(MPD_CLASS_SNMP, UMAD_CLASS_SNMP);
	SAME(MPD_CLASS_VENDOR_R1_LO, UMAD_CLASS_VENDOR_RANGE1_START);
	SAME(MPD_CLASS_VENDOR_R1_HI, UMAD_CLASS_VENDOR_RANGE1_END);
	SAME(MPD_CLASS_VENDOR_R2_LO, UMAD_CLASS_VENDOR_RANGE2_START);
	SAME(MPD_CLASS_VENDOR_R2_HI, UMAD_CLASS_VENDOR_RANGE2_END);
	SAME(MPD_SA_CLASS_VERSION, UMAD_SA_CLASS_VERSION);
}

static void
test_methods_and_status(void)
{
	SAME(MPD_METHOD_GET, UMAD_METHOD_GET);
	SAME(MPD_METHOD_SET, UMAD_METHOD_SET);
	SAME(MPD_METHOD_SEND, UMAD_METHOD_SEND);
	SAME(MPD_METHOD_TRAP, UMAD_METHOD_TRAP);
	SAME(MPD_METHOD_REPORT, UMAD_METHOD_REPORT);
	SAME(MPD_METHOD_TRAP_REPRESS, UMAD_METHOD_TRAP_REPRESS);
	SAME(MPD_METHOD_RESP, UMAD_METHOD_RESP_MASK);
	SAME(MPD_METHOD_GET_RESP, UMAD_METHOD_GET_RESP);
	SAME(MPD_METHOD_REPORT_RESP, UMAD_METHOD_REPORT_RESP);
	SAME(MPD_METHOD_GET_TABLE, UMAD_SA_METHOD_GET_TABLE);
	SAME(MPD_METHOD_GET_TABLE_RESP, UMAD_SA_METHOD_GET_TABLE_RESP);
	SAME(MPD_METHOD_GET_TRACE_TBL, UMAD_SA_METHOD_GET_TRACE_TABLE);
	SAME(MPD_METHOD_GET_MULTI, UMAD_SA_METHOD_GET_MULTI);
	SAME(MPD_METHOD_DELETE, UMAD_SA_METHOD_DELETE);
	SAME(MPD_METHOD_GET_RESP, MPD_METHOD_GET | MPD_METHOD_RESP);
	SAME(MPD_METHOD_GET_TABLE_RESP, MPD_METHOD_GET_TABLE | MPD_METHOD_RESP);

	SAME(MPD_STATUS_BUSY, UMAD_STATUS_BUSY);
	SAME(MPD_STATUS_REDIRECT, UMAD_STATUS_REDIRECT);
	SAME(MPD_STATUS_BAD_VERSION, UMAD_STATUS_BAD_VERSION);
	SAME(MPD_STATUS_METHOD_UNSUP, UMAD_STATUS_METHOD_NOT_SUPPORTED);
	SAME(MPD_STATUS_METHOD_ATTR_UNSUP, UMAD_STATUS_ATTR_NOT_SUPPORTED);
	SAME(MPD_STATUS_INVALID_FIELD, UMAD_STATUS_INVALID_ATTR_VALUE);
	SAME(MPD_STATUS_INVALID_FIELD, UMAD_STATUS_INVALID_FIELD_MASK &
				       UMAD_STATUS_INVALID_ATTR_VALUE);
	SAME(MPD_SMP_STATUS_D, UMAD_SMP_DIRECTION);

	SAME(MPD_RMPP_VERSION, UMAD_RMPP_VERSION);
	SAME(MPD_RMPP_FLAG_ACTIVE, UMAD_RMPP_FLAG_ACTIVE);
}

static void
test_attr_ids(void)
{
	SAME(MPD_ATTR_CLASS_PORT_INFO, UMAD_ATTR_CLASS_PORT_INFO);
	SAME(MPD_ATTR_NOTICE, UMAD_ATTR_NOTICE);
	SAME(MPD_ATTR_INFORM_INFO, UMAD_ATTR_INFORM_INFO);

	SAME(MPD_ATTR_NODE_DESC, UMAD_SM_ATTR_NODE_DESC);
	SAME(MPD_ATTR_NODE_INFO, UMAD_SM_ATTR_NODE_INFO);
	SAME(MPD_ATTR_SWITCH_INFO, UMAD_SM_ATTR_SWITCH_INFO);
	SAME(MPD_ATTR_GUID_INFO, UMAD_SM_ATTR_GUID_INFO);
	SAME(MPD_ATTR_PORT_INFO, UMAD_SM_ATTR_PORT_INFO);
	SAME(MPD_ATTR_PKEY_TABLE, UMAD_SM_ATTR_PKEY_TABLE);
	SAME(MPD_ATTR_SL2VL_TABLE, UMAD_SM_ATTR_SLVL_TABLE);
	SAME(MPD_ATTR_VL_ARB_TABLE, UMAD_SM_ATTR_VL_ARB_TABLE);
	SAME(MPD_ATTR_LINEAR_FWD_TABLE, UMAD_SM_ATTR_LINEAR_FT);
	SAME(MPD_ATTR_RANDOM_FWD_TABLE, UMAD_SM_ATTR_RANDOM_FT);
	SAME(MPD_ATTR_MCAST_FWD_TABLE, UMAD_SM_ATTR_MCAST_FT);
	SAME(MPD_ATTR_SM_INFO, UMAD_SM_ATTR_SM_INFO);
	SAME(MPD_ATTR_VENDOR_DIAG, UMAD_SM_ATTR_VENDOR_DIAG);
	SAME(MPD_ATTR_LED_INFO, UMAD_SM_ATTR_LED_INFO);

	SAME(MPD_ATTR_SA_NODE_RECORD, UMAD_SA_ATTR_NODE_REC);
	SAME(MPD_ATTR_SA_PORT_INFO_RECORD, UMAD_SA_ATTR_PORT_INFO_REC);
	SAME(MPD_ATTR_SA_SERVICE_RECORD, UMAD_SA_ATTR_SERVICE_REC);
	SAME(MPD_ATTR_SA_PATH_RECORD, UMAD_SA_ATTR_PATH_REC);
	SAME(MPD_ATTR_SA_MCMEMBER_RECORD, UMAD_SA_ATTR_MCMEMBER_REC);

	SAME(MPD_ATTR_CM_REQ, UMAD_CM_ATTR_REQ);
	SAME(MPD_ATTR_CM_MRA, UMAD_CM_ATTR_MRA);
	SAME(MPD_ATTR_CM_REJ, UMAD_CM_ATTR_REJ);
	SAME(MPD_ATTR_CM_REP, UMAD_CM_ATTR_REP);
	SAME(MPD_ATTR_CM_RTU, UMAD_CM_ATTR_RTU);
	SAME(MPD_ATTR_CM_DREQ, UMAD_CM_ATTR_DREQ);
	SAME(MPD_ATTR_CM_DREP, UMAD_CM_ATTR_DREP);
	SAME(MPD_ATTR_CM_SIDR_REQ, UMAD_CM_ATTR_SIDR_REQ);
	SAME(MPD_ATTR_CM_SIDR_REP, UMAD_CM_ATTR_SIDR_REP);
	SAME(MPD_ATTR_CM_LAP, UMAD_CM_ATTR_LAP);
	SAME(MPD_ATTR_CM_APR, UMAD_CM_ATTR_APR);
}

static void
test_layouts(void)
{
	/* the common header and RMPP header */
	SAME(MPD_MAD_HDR_LEN, sizeof(struct umad_hdr));
	SAME(MPD_RMPP_HDR_LEN, sizeof(struct umad_rmpp_hdr));
	SAME(MPD_MAD_LEN, sizeof(struct umad_packet));
	SAME(MPD_CM_DATA_OFF, offsetof(struct umad_packet, data));
	SAME(MPD_MAD_LEN - MPD_CM_DATA_OFF, UMAD_LEN_DATA);
	SAME(MPD_MAD_LEN, sizeof(struct umad_rmpp_packet));
	SAME(MPD_MAD_LEN - MPD_MAD_HDR_LEN - MPD_RMPP_HDR_LEN,
	     UMAD_LEN_RMPP_DATA);

	/* SMP, LID-routed and directed route */
	SAME(MPD_MAD_LEN, sizeof(struct umad_smp));
	SAME(24, offsetof(struct umad_smp, mkey));
	SAME(32, offsetof(struct umad_smp, dr_slid));
	SAME(34, offsetof(struct umad_smp, dr_dlid));
	SAME(MPD_SMP_DATA_OFF, offsetof(struct umad_smp, data));
	SAME(MPD_SMP_DATA_LEN, UMAD_LEN_SMP_DATA);
	SAME(MPD_SMP_PATH_LEN, UMAD_SMP_MAX_HOPS);
	SAME(128, offsetof(struct umad_smp, initial_path));
	SAME(192, offsetof(struct umad_smp, return_path));

	/* SA */
	SAME(MPD_MAD_LEN, sizeof(struct umad_sa_packet));
	SAME(MPD_MAD_HDR_LEN, offsetof(struct umad_sa_packet, rmpp_hdr));
	SAME(36, offsetof(struct umad_sa_packet, sm_key));
	SAME(44, offsetof(struct umad_sa_packet, attr_offset));
	SAME(48, offsetof(struct umad_sa_packet, comp_mask));
	SAME(MPD_SA_HDR_END, offsetof(struct umad_sa_packet, data));
	SAME(MPD_SA_DATA_LEN, UMAD_LEN_SA_DATA);
	SAME(MPD_SA_HDR_END + MPD_SA_DATA_LEN, MPD_MAD_LEN);

	/* vendor range 2 and the DM/PerfMgt format */
	SAME(MPD_MAD_LEN, sizeof(struct umad_vendor_packet));
	SAME(37, offsetof(struct umad_vendor_packet, oui));
	SAME(MPD_VENDOR_DATA_OFF, offsetof(struct umad_vendor_packet, data));
	SAME(MPD_MAD_LEN - MPD_VENDOR_DATA_OFF, UMAD_LEN_VENDOR_DATA);
	SAME(MPD_MAD_LEN, sizeof(struct umad_dm_packet));
	SAME(MPD_PERF_DATA_OFF, offsetof(struct umad_dm_packet, data));
	SAME(MPD_MAD_LEN - MPD_PERF_DATA_OFF, UMAD_LEN_DM_DATA);

	/* the codec's per-class answers, at run time */
	is_int(mpd_class_data_off(UMAD_CLASS_SUBN_LID_ROUTED),
	       offsetof(struct umad_smp, data), "LID SMP data offset");
	is_int(mpd_class_data_off(UMAD_CLASS_SUBN_DIRECTED_ROUTE),
	       offsetof(struct umad_smp, data), "DR SMP data offset");
	is_int(mpd_class_data_off(UMAD_CLASS_SUBN_ADM),
	       offsetof(struct umad_sa_packet, data), "SA data offset");
	is_int(mpd_class_data_off(UMAD_CLASS_PERF_MGMT),
	       offsetof(struct umad_dm_packet, data), "PerfMgt data offset");
	is_int(mpd_class_data_off(UMAD_CLASS_DEVICE_MGMT),
	       offsetof(struct umad_dm_packet, data), "DevMgt data offset");
	is_int(mpd_class_data_off(UMAD_CLASS_CM),
	       offsetof(struct umad_packet, data), "CM data offset");
	is_int(mpd_class_data_off(UMAD_CLASS_VENDOR_RANGE1_START),
	       offsetof(struct umad_packet, data), "vendor range 1 data offset");
	is_int(mpd_class_data_off(UMAD_CLASS_VENDOR_RANGE2_START),
	       offsetof(struct umad_vendor_packet, data),
	       "vendor range 2 data offset");
	is_int(mpd_class_has_rmpp(UMAD_CLASS_SUBN_ADM), 1, "SA has RMPP");
	is_int(mpd_class_has_rmpp(UMAD_CLASS_VENDOR_RANGE2_END), 1,
	       "vendor range 2 has RMPP");
	is_int(mpd_class_has_rmpp(UMAD_CLASS_CM), 0, "CM has no RMPP");
}

/* MADs built by our codec, read through rdma-core's structs. */
static void
test_through_rdma_core_structs(void)
{
	struct umad_sa_packet sa;
	struct umad_vendor_packet vp;
	struct umad_smp smp;
	struct mpd_mad m;
	uint8_t buf[MPD_MAD_LEN], data[MPD_SA_DATA_LEN];
	uint64_t v;
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_ADM;
	m.hdr.class_version = MPD_SA_CLASS_VERSION;
	m.hdr.method = MPD_METHOD_GET_TABLE_RESP;
	m.hdr.status = 0x0300;
	m.hdr.tid = 0x1122334455667788ull;
	m.hdr.attr_id = MPD_ATTR_SA_PATH_RECORD;
	m.hdr.attr_mod = 0xdeadbeef;
	m.rmpp.version = MPD_RMPP_VERSION;
	m.rmpp.type = MPD_RMPP_TYPE_DATA;
	m.rmpp.resp_time = 0x13;
	m.rmpp.flags = MPD_RMPP_FLAG_ACTIVE | MPD_RMPP_FLAG_LAST;
	m.rmpp.data1 = 7;
	m.rmpp.data2 = 0x1c8;
	m.sm_key = 0x0123456789abcdefull;
	m.attr_offset = 8;
	m.comp_mask = 0x30;
	is_int(mpd_mad_encode(&m, data, sizeof(data), buf, sizeof(buf)),
	       MPD_MAD_LEN, "SA MAD encoded by madpmd");
	memcpy(&sa, buf, sizeof(sa));
	is_int(sa.mad_hdr.base_version, 1, "umad_hdr.base_version");
	is_int(sa.mad_hdr.mgmt_class, UMAD_CLASS_SUBN_ADM,
	       "umad_hdr.mgmt_class");
	is_int(sa.mad_hdr.class_version, UMAD_SA_CLASS_VERSION,
	       "umad_hdr.class_version");
	is_int(sa.mad_hdr.method, UMAD_SA_METHOD_GET_TABLE_RESP,
	       "umad_hdr.method");
	is_int(be16toh(sa.mad_hdr.status), 0x0300, "umad_hdr.status");
	ok(be64toh(sa.mad_hdr.tid) == 0x1122334455667788ull,
	   "umad_hdr.tid");
	is_int(be16toh(sa.mad_hdr.attr_id), UMAD_SA_ATTR_PATH_REC,
	       "umad_hdr.attr_id");
	is_int(be32toh(sa.mad_hdr.attr_mod), 0xdeadbeef, "umad_hdr.attr_mod");
	is_int(sa.rmpp_hdr.rmpp_version, UMAD_RMPP_VERSION,
	       "umad_rmpp_hdr.rmpp_version");
	is_int(sa.rmpp_hdr.rmpp_type, 1, "umad_rmpp_hdr.rmpp_type");
	is_int(sa.rmpp_hdr.rmpp_rtime_flags >> 3, 0x13,
	       "umad_rmpp_hdr.rmpp_rtime_flags: response time in the top "
	       "5 bits");
	is_int(sa.rmpp_hdr.rmpp_rtime_flags & 7,
	       UMAD_RMPP_FLAG_ACTIVE | MPD_RMPP_FLAG_LAST,
	       "umad_rmpp_hdr.rmpp_rtime_flags: flags in the low 3 bits");
	is_int(be32toh(sa.rmpp_hdr.seg_num), 7, "umad_rmpp_hdr.seg_num");
	is_int(be32toh(sa.rmpp_hdr.paylen_newwin), 0x1c8,
	       "umad_rmpp_hdr.paylen_newwin");
	memcpy(&v, sa.sm_key, 8);
	ok(be64toh(v) == 0x0123456789abcdefull, "umad_sa_packet.sm_key");
	is_int(be16toh(sa.attr_offset), 8, "umad_sa_packet.attr_offset");
	ok(be64toh(sa.comp_mask) == 0x30, "umad_sa_packet.comp_mask");
	ok(memcmp(sa.data, data, UMAD_LEN_SA_DATA) == 0,
	   "umad_sa_packet.data");

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_DR;
	m.hdr.class_version = MPD_SMP_CLASS_VERSION;
	m.hdr.method = MPD_METHOD_GET;
	m.hdr.status = MPD_SMP_STATUS_D;
	m.hdr.class_specific = 3 << 8 | 2;
	m.hdr.attr_id = MPD_ATTR_NODE_INFO;
	m.mkey = 0xa5a5a5a5a5a5a5a5ull;
	m.dr_slid = MPD_LID_PERMISSIVE;
	m.dr_dlid = 0x0042;
	for (i = 0; i < MPD_SMP_PATH_LEN; i++) {
		m.initial_path[i] = (uint8_t)(i + 1);
		m.return_path[i] = (uint8_t)(i + 2);
	}
	is_int(mpd_mad_encode(&m, data, MPD_SMP_DATA_LEN, buf, sizeof(buf)),
	       MPD_MAD_LEN, "DR SMP encoded by madpmd");
	memcpy(&smp, buf, sizeof(smp));
	is_int(be16toh(smp.status) & UMAD_SMP_DIRECTION, UMAD_SMP_DIRECTION,
	       "umad_smp.status: direction bit");
	is_int(smp.hop_ptr, 3, "umad_smp.hop_ptr");
	is_int(smp.hop_cnt, 2, "umad_smp.hop_cnt");
	ok(be64toh(smp.mkey) == 0xa5a5a5a5a5a5a5a5ull, "umad_smp.mkey");
	is_int(be16toh(smp.dr_slid), 0xffff, "umad_smp.dr_slid");
	is_int(be16toh(smp.dr_dlid), 0x0042, "umad_smp.dr_dlid");
	ok(memcmp(smp.data, data, UMAD_LEN_SMP_DATA) == 0, "umad_smp.data");
	ok(memcmp(smp.initial_path, m.initial_path, UMAD_SMP_MAX_HOPS) == 0,
	   "umad_smp.initial_path");
	ok(memcmp(smp.return_path, m.return_path, UMAD_SMP_MAX_HOPS) == 0,
	   "umad_smp.return_path");

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = UMAD_CLASS_VENDOR_RANGE2_START + 2;
	m.hdr.method = MPD_METHOD_GET;
	m.oui = UMAD_OPENIB_OUI;
	is_int(mpd_mad_encode(&m, data, UMAD_LEN_VENDOR_DATA - 16, buf,
			      sizeof(buf)), MPD_MAD_LEN,
	       "vendor range 2 MAD encoded by madpmd");
	memcpy(&vp, buf, sizeof(vp));
	is_int((uint32_t)vp.oui[0] << 16 | (uint32_t)vp.oui[1] << 8 | vp.oui[2],
	       UMAD_OPENIB_OUI, "umad_vendor_packet.oui");
	is_int(vp.reserved, 0, "umad_vendor_packet.reserved");
	ok(memcmp(vp.data, data, UMAD_LEN_VENDOR_DATA - 16) == 0,
	   "umad_vendor_packet.data");
}

/* A umad capture record's ib_user_mad part, read through rdma-core's. */
static void
test_umad_record(void)
{
	struct mpd_rec_hdr h = { .port = 1 };
	struct mpd_rec_umad u;
	struct ib_user_mad um;
	uint8_t buf[512], mad[MPD_MAD_LEN];
	unsigned int i;
	int n;

	SAME(MPD_REC_UMAD_HDR_LEN, sizeof(struct ib_user_mad));
	SAME(MPD_REC_UMAD_HDR_LEN, offsetof(struct ib_user_mad, data));
	memset(&u, 0, sizeof(u));
	u.direction = MPD_REC_UMAD_RECV;
	u.agent_id = 0x01020304;
	u.status = 110;
	u.timeout_ms = 0x0a0b0c0d;
	u.retries = 0x11121314;
	u.length = 0x21222324;
	u.qpn = 0x00313233;
	u.qkey = 0x80010000;
	u.lid = 0x4142;
	u.sl = 5;
	u.path_bits = 6;
	u.grh_present = 1;
	u.gid_index = 7;
	u.hop_limit = 0x40;
	u.traffic_class = 0x51;
	for (i = 0; i < 16; i++)
		u.gid[i] = (uint8_t)(0xe0 + i);
	u.flow_label = 0x00061234;
	u.pkey_index = 0x0203;
	memset(mad, 0x5a, sizeof(mad));
	n = mpd_rec_encode_umad(&h, &u, mad, sizeof(mad), buf, sizeof(buf));
	if (!ok(n == (int)mpd_rec_umad_len(sizeof(mad)),
		"umad record encoded (%d bytes)", n))
		return;
	memcpy(&um, buf + MPD_REC_HDR_LEN + MPD_REC_UMAD_FIXED, sizeof(um));
	/* host-order members as on a little-endian host */
	is_int(le32toh(um.agent_id), u.agent_id, "ib_user_mad.agent_id");
	is_int(le32toh(um.status), u.status, "ib_user_mad.status");
	is_int(le32toh(um.timeout_ms), u.timeout_ms, "ib_user_mad.timeout_ms");
	is_int(le32toh(um.retries), u.retries, "ib_user_mad.retries");
	is_int(le32toh(um.length), u.length, "ib_user_mad.length");
	is_int(be32toh(um.addr.qpn), u.qpn, "ib_mad_addr.qpn");
	is_int(be32toh(um.addr.qkey), u.qkey, "ib_mad_addr.qkey");
	is_int(be16toh(um.addr.lid), u.lid, "ib_mad_addr.lid");
	is_int(um.addr.sl, u.sl, "ib_mad_addr.sl");
	is_int(um.addr.path_bits, u.path_bits, "ib_mad_addr.path_bits");
	is_int(um.addr.grh_present, 1, "ib_mad_addr.grh_present");
	is_int(um.addr.gid_index, u.gid_index, "ib_mad_addr.gid_index");
	is_int(um.addr.hop_limit, u.hop_limit, "ib_mad_addr.hop_limit");
	is_int(um.addr.traffic_class, u.traffic_class,
	       "ib_mad_addr.traffic_class");
	ok(memcmp(um.addr.gid, u.gid, 16) == 0, "ib_mad_addr.gid");
	is_int(be32toh(um.addr.flow_label), u.flow_label,
	       "ib_mad_addr.flow_label");
	is_int(le16toh(um.addr.pkey_index), u.pkey_index,
	       "ib_mad_addr.pkey_index");
	ok(memcmp(buf + MPD_REC_HDR_LEN + MPD_REC_UMAD_FIXED +
		  offsetof(struct ib_user_mad, data), mad, sizeof(mad)) == 0,
	   "the MAD at ib_user_mad.data");
}

int
main(void)
{
	tap_seed();
	test_classes();
	test_methods_and_status();
	test_attr_ids();
	test_layouts();
	test_through_rdma_core_structs();
	test_umad_record();
	return tap_done();
}
