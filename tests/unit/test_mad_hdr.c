/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the 256-byte MAD codec: golden bytes of the common header
 * (IBA 13.4.3) and of each class header (SMP LID-routed and directed route
 * 14.2.1, SA with RMPP 15.2.1/13.6.2, vendor range 2, PerfMgt 16.1, CM),
 * round trips and every rejection.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/mad.h"
#include "madpmd/wire.h"
#include "tap.h"

static uint8_t data_in[MPD_MAD_LEN];

/* Bytes [from, to) of buf are all zero. */
static bool
zero_range(const uint8_t *buf, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (buf[i])
			return false;
	return true;
}

static int
decode_exact(const uint8_t *buf, size_t len, struct mpd_mad *m)
{
	uint8_t *d = malloc(len ? len : 1);
	int rc;

	if (!d)
		abort();
	memcpy(d, buf, len);
	rc = mpd_mad_decode(d, len, m);
	free(d);
	return rc;
}

static bool
hdr_equal(const struct mpd_mad_hdr *a, const struct mpd_mad_hdr *b)
{
	return a->base_version == b->base_version &&
	       a->mgmt_class == b->mgmt_class &&
	       a->class_version == b->class_version &&
	       a->method == b->method && a->status == b->status &&
	       a->class_specific == b->class_specific && a->tid == b->tid &&
	       a->attr_id == b->attr_id && a->resv == b->resv &&
	       a->attr_mod == b->attr_mod;
}

static void
test_common_header(void)
{
	/* IBA 13.4.3: BaseVersion, MgmtClass, ClassVersion, R|Method,
	 * Status, ClassSpecific, TransactionID, AttributeID, Reserved,
	 * AttributeModifier */
	static const uint8_t g[MPD_MAD_HDR_LEN] = {
		0x01, 0x07, 0x02, 0x03, 0x12, 0x34, 0xbe, 0xef,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x00, 0x10, 0x00, 0x00, 0xa1, 0xb2, 0xc3, 0xd4,
	};
	struct mpd_mad m, d;
	uint8_t buf[MPD_MAD_LEN + 8];

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_CM;
	m.hdr.class_version = MPD_CM_CLASS_VERSION;
	m.hdr.method = MPD_METHOD_SEND;
	m.hdr.status = 0x1234;
	m.hdr.class_specific = 0xbeef;
	m.hdr.tid = 0x0102030405060708ull;
	m.hdr.attr_id = MPD_ATTR_CM_REQ;
	m.hdr.attr_mod = 0xa1b2c3d4u;
	m.data_off = 7;		/* ignored on encode */
	m.data_len = 9;
	memset(buf, 0xee, sizeof(buf));
	is_int(mpd_mad_encode(&m, data_in, 232, buf, sizeof(buf)),
	       MPD_MAD_LEN, "CM MAD encode returns 256");
	ok(memcmp(buf, g, sizeof(g)) == 0, "common MAD header golden bytes");
	ok(memcmp(buf + 24, data_in, 232) == 0, "CM data at 24, 232 bytes");
	ok(buf[256] == 0xee && buf[263] == 0xee,
	   "nothing written past 256 bytes");
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
	       "decode of a longer buffer returns 256");
	ok(hdr_equal(&m.hdr, &d.hdr), "common header decodes");
	ok(d.data_off == 24 && d.data_len == 232 && !d.has_rmpp,
	   "CM: data_off 24, data_len 232, no RMPP");
	is_int(mpd_layout_decode(&mpd_mad_hdr_layout, g, sizeof(g), &d.hdr),
	       MPD_MAD_HDR_LEN, "mpd_mad_hdr_layout is 24 bytes");

	memset(buf, 0xee, sizeof(buf));
	is_int(mpd_mad_encode(&m, data_in, 5, buf, MPD_MAD_LEN), MPD_MAD_LEN,
	       "CM MAD with 5 data bytes into exactly 256");
	ok(memcmp(buf + 24, data_in, 5) == 0 && zero_range(buf, 29, 256),
	   "short data is followed by zeros");
	is_int(mpd_mad_encode(&m, NULL, 0, buf, MPD_MAD_LEN), MPD_MAD_LEN,
	       "no data at all");
	ok(zero_range(buf, 24, 256), "... leaves the data area zero");
	is_int(mpd_mad_encode(&m, data_in, 233, buf, MPD_MAD_LEN), MPD_EINVAL,
	       "CM data of 233 bytes is MPD_EINVAL");
	is_int(mpd_mad_encode(&m, NULL, 4, buf, MPD_MAD_LEN), MPD_EINVAL,
	       "data length without data is MPD_EINVAL");
	is_int(mpd_mad_encode(&m, data_in, 4, buf, MPD_MAD_LEN - 1),
	       MPD_ENOSPC, "a 255-byte buffer is MPD_ENOSPC");
	is_int(mpd_mad_encode(&m, data_in, 4, buf, 0), MPD_ENOSPC,
	       "a 0-byte buffer is MPD_ENOSPC");
}

/* mpd_mad_decode/encode read and write the common header by hand: the
 * same bytes as mpd_mad_hdr_layout, on random headers of every class */
static void
test_header_by_layout(void)
{
	uint8_t buf[MPD_MAD_LEN], lay[MPD_MAD_HDR_LEN];
	struct mpd_mad m, d;
	unsigned int i, bad_dec = 0, bad_enc = 0;

	for (i = 0; i < 2000; i++) {
		rnd_bytes(buf, sizeof(buf));
		buf[0] = MPD_BASE_VERSION;
		if (buf[1] == MPD_CLASS_SUBN_DR)
			buf[1] = MPD_CLASS_SUBN_LID;
		buf[MPD_MAD_HDR_LEN] = MPD_RMPP_VERSION;	/* if RMPP */
		memset(&d.hdr, 0, sizeof(d.hdr));
		mpd_layout_decode(&mpd_mad_hdr_layout, buf, sizeof(buf),
				  &d.hdr);
		bad_dec += mpd_mad_decode(buf, sizeof(buf), &m) !=
				   MPD_MAD_LEN ||
			   !hdr_equal(&m.hdr, &d.hdr);
		memset(lay, 0, sizeof(lay));
		mpd_layout_encode(&mpd_mad_hdr_layout, &m.hdr, lay,
				  sizeof(lay));
		bad_enc += mpd_mad_encode(&m, NULL, 0, buf, sizeof(buf)) !=
				   MPD_MAD_LEN ||
			   memcmp(buf, lay, sizeof(lay)) != 0;
	}
	is_int(bad_dec, 0, "2000 random headers: mpd_mad_decode reads what "
	       "mpd_mad_hdr_layout reads");
	is_int(bad_enc, 0, "... and mpd_mad_encode writes what it writes");
}

static void
test_lid_smp(void)
{
	static const uint8_t g[32] = {
		0x01, 0x01, 0x01, 0x81, 0x00, 0x00, 0x00, 0x00,
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
		0x00, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,	/* M_Key */
	};
	struct mpd_mad m, d;
	uint8_t buf[MPD_MAD_LEN];

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_LID;
	m.hdr.class_version = MPD_SMP_CLASS_VERSION;
	m.hdr.method = MPD_METHOD_GET_RESP;
	m.hdr.tid = 0xfedcba9876543210ull;
	m.hdr.attr_id = MPD_ATTR_PORT_INFO;
	m.hdr.attr_mod = 1;
	m.mkey = 0x0011223344556677ull;
	m.dr_slid = 0x1111;			/* DR only: not encoded */
	m.dr_dlid = 0x2222;
	memset(m.initial_path, 0x33, sizeof(m.initial_path));
	memset(buf, 0xee, sizeof(buf));
	is_int(mpd_mad_encode(&m, data_in, 64, buf, sizeof(buf)), MPD_MAD_LEN,
	       "LID-routed SMP encode");
	ok(memcmp(buf, g, sizeof(g)) == 0,
	   "LID SMP golden bytes: header, M_Key at 24");
	ok(zero_range(buf, 32, 64), "LID SMP: bytes 32..63 reserved, zero");
	ok(memcmp(buf + 64, data_in, 64) == 0, "LID SMP: data at 64");
	ok(zero_range(buf, 128, 256), "LID SMP: bytes 128..255 reserved, "
	   "zero (no DR fields)");
	memset(&d, 0x5a, sizeof(d));
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
	       "LID SMP decode");
	ok(hdr_equal(&m.hdr, &d.hdr) && d.mkey == m.mkey && d.dr_slid == 0 &&
	   d.dr_dlid == 0 && !d.has_rmpp && d.data_off == 64 &&
	   d.data_len == 64, "LID SMP decode: M_Key, data 64 at 64");
	is_int(mpd_mad_encode(&m, data_in, 65, buf, sizeof(buf)), MPD_EINVAL,
	       "LID SMP data of 65 bytes is MPD_EINVAL");
	/* class-specific means nothing to a LID-routed SMP */
	m.hdr.class_specific = 0xffff;
	mpd_mad_encode(&m, data_in, 64, buf, sizeof(buf));
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
	       "LID SMP with ClassSpecific 0xFFFF decodes (no hop checks)");
}

static void
test_dr_smp(void)
{
	static const uint8_t g[36] = {
		0x01, 0x81, 0x01, 0x81, 0x80, 0x00, 0x02, 0x03,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34,
		0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	/* M_Key */
		0xff, 0xff, 0x00, 0x05,		/* DrSLID, DrDLID */
	};
	struct mpd_mad m, d, w;
	uint8_t buf[MPD_MAD_LEN];
	unsigned int i, cnt, ptr;
	size_t bad = 0;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_DR;
	m.hdr.class_version = 1;
	m.hdr.method = MPD_METHOD_GET_RESP;
	m.hdr.status = MPD_SMP_STATUS_D;
	m.hdr.class_specific = 2 << 8 | 3;	/* hop pointer 2, count 3 */
	m.hdr.tid = 0x1234;
	m.hdr.attr_id = MPD_ATTR_NODE_INFO;
	m.mkey = 0x0102030405060708ull;
	m.dr_slid = MPD_LID_PERMISSIVE;
	m.dr_dlid = 5;
	for (i = 0; i < MPD_SMP_PATH_LEN; i++) {
		m.initial_path[i] = (uint8_t)i;
		m.return_path[i] = (uint8_t)(0xff - i);
	}
	memset(buf, 0xee, sizeof(buf));
	is_int(mpd_mad_encode(&m, data_in, 64, buf, sizeof(buf)), MPD_MAD_LEN,
	       "DR SMP encode");
	ok(memcmp(buf, g, sizeof(g)) == 0, "DR SMP golden bytes: D bit, hop "
	   "pointer 2 and count 3 in ClassSpecific, DrSLID 32, DrDLID 34");
	ok(zero_range(buf, 36, 64), "DR SMP: bytes 36..63 reserved, zero");
	ok(memcmp(buf + 64, data_in, 64) == 0, "DR SMP: data at 64");
	ok(memcmp(buf + 128, m.initial_path, 64) == 0,
	   "DR SMP: initial path at 128");
	ok(memcmp(buf + 192, m.return_path, 64) == 0,
	   "DR SMP: return path at 192");
	memset(&d, 0x5a, sizeof(d));
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
	       "DR SMP decode");
	ok(hdr_equal(&m.hdr, &d.hdr) && d.mkey == m.mkey &&
	   d.dr_slid == 0xffff && d.dr_dlid == 5 &&
	   memcmp(d.initial_path, m.initial_path, 64) == 0 &&
	   memcmp(d.return_path, m.return_path, 64) == 0 &&
	   d.data_off == 64 && d.data_len == 64 && !d.has_rmpp,
	   "DR SMP decode: DR fields and paths");
	ok(mpd_mad_is_dr(&d.hdr) && mpd_smp_hop_ptr(&d.hdr) == 2 &&
	   mpd_smp_hop_cnt(&d.hdr) == 3 && (d.hdr.status & MPD_SMP_STATUS_D),
	   "DR SMP helpers: is_dr, hop pointer, hop count, D bit");
	is_int(mpd_mad_encode(&m, data_in, 65, buf, sizeof(buf)), MPD_EINVAL,
	       "DR SMP data of 65 bytes is MPD_EINVAL");

	/* hop count and pointer ranges (IBA 14.2.2) */
	for (cnt = 0; cnt < 256; cnt++) {
		for (ptr = 0; ptr < 256; ptr++) {
			int want = cnt <= 63 && ptr <= cnt + 1 ? MPD_MAD_LEN
							       : MPD_EINVAL;
			int rc;

			w = m;
			w.hdr.class_specific = (uint16_t)(0);
			mpd_mad_encode(&w, data_in, 64, buf, sizeof(buf));
			buf[6] = (uint8_t)ptr;
			buf[7] = (uint8_t)cnt;
			rc = mpd_mad_decode(buf, sizeof(buf), &d);
			if (rc != want && !bad++)
				tap_diag("hop count %u pointer %u: %d", cnt,
					 ptr, rc);
		}
	}
	is_int(bad, 0, "DR SMP decode: hop count <= 63 and hop pointer <= "
	       "count + 1, else MPD_EINVAL (all 65536 pairs)");
	w = m;
	w.hdr.class_specific = 64 + (1 << 8);
	is_int(mpd_mad_encode(&w, data_in, 64, buf, sizeof(buf)), MPD_ERANGE,
	       "DR SMP encode: hop count 64 is MPD_ERANGE");
	w.hdr.class_specific = 63 + (64 << 8);
	is_int(mpd_mad_encode(&w, data_in, 64, buf, sizeof(buf)), MPD_MAD_LEN,
	       "DR SMP encode: hop count 63, pointer 64");
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
	       "... decodes");
}

static void
sa_mad(struct mpd_mad *m)
{
	memset(m, 0, sizeof(*m));
	m->hdr.base_version = 1;
	m->hdr.mgmt_class = MPD_CLASS_SUBN_ADM;
	m->hdr.class_version = MPD_SA_CLASS_VERSION;
	m->hdr.method = MPD_METHOD_GET_TABLE_RESP;
	m->hdr.tid = 0x0a0b0c0d;
	m->hdr.attr_id = MPD_ATTR_SA_PATH_RECORD;
	m->rmpp.version = MPD_RMPP_VERSION;
	m->rmpp.type = MPD_RMPP_TYPE_DATA;
	m->rmpp.resp_time = 0x12;
	m->rmpp.flags = MPD_RMPP_FLAG_ACTIVE | MPD_RMPP_FLAG_FIRST |
			MPD_RMPP_FLAG_LAST;
	m->rmpp.status = 0;
	m->rmpp.data1 = 1;
	m->rmpp.data2 = 0x1234;
	m->sm_key = 0x0102030405060708ull;
	m->attr_offset = 8;
	m->comp_mask = 0x8000000000000001ull;
}

static void
test_sa(void)
{
	/* IBA 13.6.2.1 RMPP header, then IBA 15.2.1 SA header */
	static const uint8_t g[32] = {
		0x01, 0x01, 0x97, 0x00,		/* ver, type, time|flags, st */
		0x00, 0x00, 0x00, 0x01,		/* segment number */
		0x00, 0x00, 0x12, 0x34,		/* payload length */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	/* SM_Key */
		0x00, 0x08, 0x00, 0x00,		/* AttributeOffset, rsv */
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,	/* mask */
	};
	static const uint8_t h[8] = { 0x01, 0x03, 0x02, 0x92,
				      0x00, 0x00, 0x00, 0x00 };
	struct mpd_mad m, d, w;
	uint8_t buf[MPD_MAD_LEN];

	sa_mad(&m);
	memset(buf, 0xee, sizeof(buf));
	is_int(mpd_mad_encode(&m, data_in, 200, buf, sizeof(buf)),
	       MPD_MAD_LEN, "SA MAD encode");
	ok(memcmp(buf, h, sizeof(h)) == 0, "SA MAD header bytes");
	ok(memcmp(buf + 24, g, sizeof(g)) == 0, "SA golden bytes: RMPP at 24 "
	   "(RRespTime 0x12 << 3 | flags 7 = 0x97), SM_Key at 36, "
	   "AttributeOffset at 44, ComponentMask at 48");
	ok(memcmp(buf + 56, data_in, 200) == 0, "SA data at 56, 200 bytes");
	memset(&d, 0x5a, sizeof(d));
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
	       "SA MAD decode");
	ok(hdr_equal(&m.hdr, &d.hdr) && d.has_rmpp &&
	   d.rmpp.version == 1 && d.rmpp.type == 1 &&
	   d.rmpp.resp_time == 0x12 && d.rmpp.flags == 7 &&
	   d.rmpp.status == 0 && d.rmpp.data1 == 1 &&
	   d.rmpp.data2 == 0x1234 && d.sm_key == m.sm_key &&
	   d.attr_offset == 8 && d.comp_mask == m.comp_mask &&
	   d.data_off == 56 && d.data_len == 200 && d.mkey == 0,
	   "SA decode: RMPP and SA header fields, data 200 at 56");
	is_int(mpd_mad_encode(&m, data_in, 201, buf, sizeof(buf)), MPD_EINVAL,
	       "SA data of 201 bytes is MPD_EINVAL");

	/* RMPP packing: every response time and flag combination */
	{
		unsigned int t, f;
		size_t bad = 0;

		for (t = 0; t < 32; t++)
			for (f = 0; f < 8; f++) {
				w = m;
				w.rmpp.resp_time = (uint8_t)t;
				w.rmpp.flags = (uint8_t)f;
				if (mpd_mad_encode(&w, NULL, 0, buf,
						   sizeof(buf)) != MPD_MAD_LEN ||
				    buf[26] != (t << 3 | f) ||
				    mpd_mad_decode(buf, sizeof(buf), &d) !=
				    MPD_MAD_LEN || d.rmpp.resp_time != t ||
				    d.rmpp.flags != f)
					bad++;
			}
		is_int(bad, 0, "RMPP RRespTime (5 bits) and flags (3 bits) "
		       "share byte 26 for all 256 values");
	}
	w = m;
	w.rmpp.resp_time = 32;
	is_int(mpd_mad_encode(&w, NULL, 0, buf, sizeof(buf)), MPD_ERANGE,
	       "RMPP RRespTime 32 is MPD_ERANGE");
	w = m;
	w.rmpp.flags = 8;
	is_int(mpd_mad_encode(&w, NULL, 0, buf, sizeof(buf)), MPD_ERANGE,
	       "RMPP flags 8 is MPD_ERANGE");

	/* RMPP version only matters when the header is active */
	w = m;
	w.rmpp.version = 2;
	mpd_mad_encode(&w, NULL, 0, buf, sizeof(buf));
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_EVERSION,
	       "active RMPP with version 2 is MPD_EVERSION");
	w.rmpp.version = 0;
	mpd_mad_encode(&w, NULL, 0, buf, sizeof(buf));
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_EVERSION,
	       "active RMPP with version 0 is MPD_EVERSION");
	w.rmpp.flags = MPD_RMPP_FLAG_FIRST | MPD_RMPP_FLAG_LAST;
	mpd_mad_encode(&w, NULL, 0, buf, sizeof(buf));
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
	       "inactive RMPP header with version 0 decodes");
	w.rmpp.version = 0xff;
	mpd_mad_encode(&w, NULL, 0, buf, sizeof(buf));
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
	       "inactive RMPP header with version 255 decodes");
}

static void
test_vendor(void)
{
	static const uint8_t g[16] = {
		0x01, 0x02, 0x09, 0x00,		/* RMPP: ACK, time 1, active */
		0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x05,
		0x00, 0x00, 0x14, 0x05,		/* reserved, OUI */
	};
	static const uint8_t classes[] = { MPD_CLASS_VENDOR_R2_LO, 0x32,
					   MPD_CLASS_VENDOR_R2_HI };
	struct mpd_mad m, d, w;
	uint8_t buf[MPD_MAD_LEN];
	size_t i;

	for (i = 0; i < sizeof(classes); i++) {
		memset(&m, 0, sizeof(m));
		m.hdr.base_version = 1;
		m.hdr.mgmt_class = classes[i];
		m.hdr.class_version = 1;
		m.hdr.method = MPD_METHOD_GET;
		m.rmpp.version = 1;
		m.rmpp.type = MPD_RMPP_TYPE_ACK;
		m.rmpp.resp_time = 1;
		m.rmpp.flags = MPD_RMPP_FLAG_ACTIVE;
		m.rmpp.data1 = 3;
		m.rmpp.data2 = 5;
		m.oui = 0x001405;
		m.sm_key = 0x1111;		/* SA only: not encoded */
		memset(buf, 0xee, sizeof(buf));
		is_int(mpd_mad_encode(&m, data_in, 216, buf, sizeof(buf)),
		       MPD_MAD_LEN, "vendor class 0x%02x encode",
		       classes[i]);
		ok(memcmp(buf + 24, g, sizeof(g)) == 0,
		   "vendor class 0x%02x golden bytes: RMPP at 24, byte 36 "
		   "reserved, OUI at 37..39", classes[i]);
		ok(memcmp(buf + 40, data_in, 216) == 0,
		   "vendor class 0x%02x: data at 40, 216 bytes", classes[i]);
		memset(&d, 0x5a, sizeof(d));
		is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
		       "vendor class 0x%02x decode", classes[i]);
		ok(d.has_rmpp && d.rmpp.type == 2 && d.rmpp.data1 == 3 &&
		   d.rmpp.data2 == 5 && d.oui == 0x001405 && d.sm_key == 0 &&
		   d.data_off == 40 && d.data_len == 216,
		   "vendor class 0x%02x decode: RMPP, OUI, data 216 at 40",
		   classes[i]);
		is_int(mpd_mad_encode(&m, data_in, 217, buf, sizeof(buf)),
		       MPD_EINVAL, "vendor class 0x%02x data of 217 bytes is "
		       "MPD_EINVAL", classes[i]);
	}
	w = m;
	w.oui = 0xffffff;
	is_int(mpd_mad_encode(&w, NULL, 0, buf, sizeof(buf)), MPD_MAD_LEN,
	       "OUI 0xFFFFFF fits");
	ok(buf[36] == 0 && buf[37] == 0xff && buf[38] == 0xff &&
	   buf[39] == 0xff, "... in bytes 37..39");
	w.oui = 0x1000000;
	is_int(mpd_mad_encode(&w, NULL, 0, buf, sizeof(buf)), MPD_ERANGE,
	       "OUI of 25 bits is MPD_ERANGE");
	w = m;
	w.rmpp.version = 2;
	mpd_mad_encode(&w, NULL, 0, buf, sizeof(buf));
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_EVERSION,
	       "vendor: active RMPP with version 2 is MPD_EVERSION");
	buf[36] = 0xaa;
	buf[26] = 0;	/* inactive */
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
	       "vendor: inactive RMPP decodes");
	is_int(d.oui, m.oui, "vendor: the reserved byte 36 is not "
	       "part of the OUI");

	/* vendor range 1: no RMPP, no OUI */
	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_VENDOR_R1_LO;
	m.oui = 0x123456;
	memset(buf, 0xee, sizeof(buf));
	is_int(mpd_mad_encode(&m, data_in, 232, buf, sizeof(buf)),
	       MPD_MAD_LEN, "vendor range 1 encode");
	ok(memcmp(buf + 24, data_in, 232) == 0,
	   "vendor range 1: data at 24, 232 bytes (no OUI)");
	is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
	       "vendor range 1 decode");
	ok(!d.has_rmpp && d.oui == 0 && d.data_off == 24 && d.data_len == 232,
	   "vendor range 1 decode: no RMPP, data 232 at 24");
}

static void
test_perf_and_gs(void)
{
	static const struct {
		uint8_t cls;
		const char *name;
		uint16_t off;
	} gs[] = {
		{ MPD_CLASS_PERF, "PerfMgt", 64 },
		{ MPD_CLASS_BM, "BM", 64 },
		{ MPD_CLASS_DEV_MGT, "DevMgt", 64 },
		{ MPD_CLASS_CM, "CM", 24 },
	};
	struct mpd_mad m, d;
	uint8_t buf[MPD_MAD_LEN];
	size_t i;

	for (i = 0; i < sizeof(gs) / sizeof(gs[0]); i++) {
		uint16_t room = (uint16_t)(MPD_MAD_LEN - gs[i].off);

		memset(&m, 0, sizeof(m));
		m.hdr.base_version = 1;
		m.hdr.mgmt_class = gs[i].cls;
		m.hdr.class_version = 1;
		m.hdr.method = MPD_METHOD_GET;
		m.hdr.attr_id = MPD_ATTR_PERF_PORT_COUNTERS;
		m.mkey = 0x77;			/* SMP only: not encoded */
		memset(buf, 0xee, sizeof(buf));
		is_int(mpd_mad_encode(&m, data_in, room, buf, sizeof(buf)),
		       MPD_MAD_LEN, "%s encode with %u data bytes",
		       gs[i].name, room);
		ok(zero_range(buf, 24, gs[i].off) &&
		   memcmp(buf + gs[i].off, data_in, room) == 0,
		   "%s: bytes 24..%u reserved, data at %u", gs[i].name,
		   gs[i].off - 1u, gs[i].off);
		is_int(mpd_mad_decode(buf, sizeof(buf), &d), MPD_MAD_LEN,
		       "%s decode", gs[i].name);
		ok(d.data_off == gs[i].off && d.data_len == room &&
		   !d.has_rmpp && d.mkey == 0,
		   "%s decode: data %u at %u", gs[i].name, room, gs[i].off);
		is_int(mpd_mad_encode(&m, data_in, room + 1u, buf,
				      sizeof(buf)), MPD_EINVAL,
		       "%s data of %u bytes is MPD_EINVAL", gs[i].name,
		       room + 1u);
	}
}

static void
test_class_tables(void)
{
	unsigned int c;
	size_t bad_rmpp = 0, bad_off = 0;

	for (c = 0; c < 256; c++) {
		bool rmpp = c == MPD_CLASS_SUBN_ADM ||
			    (c >= MPD_CLASS_VENDOR_R2_LO &&
			     c <= MPD_CLASS_VENDOR_R2_HI);
		uint16_t off;

		switch (c) {
		case MPD_CLASS_SUBN_LID:
		case MPD_CLASS_SUBN_DR:
		case MPD_CLASS_PERF:
		case MPD_CLASS_BM:
		case MPD_CLASS_DEV_MGT:
			off = 64;
			break;
		case MPD_CLASS_SUBN_ADM:
			off = 56;
			break;
		case MPD_CLASS_SNMP:
			continue;	/* not drawn here */
		default:
			off = rmpp ? 40 : 24;
			break;
		}
		if (mpd_class_has_rmpp((uint8_t)c) != rmpp && !bad_rmpp++)
			tap_diag("class 0x%02x: has_rmpp %d", c, !rmpp);
		if (mpd_class_data_off((uint8_t)c) != off && !bad_off++)
			tap_diag("class 0x%02x: data at %u, want %u", c,
				 mpd_class_data_off((uint8_t)c), off);
	}
	is_int(bad_rmpp, 0, "mpd_class_has_rmpp: SA and vendor range 2 only, "
	       "all 256 classes");
	is_int(bad_off, 0, "mpd_class_data_off for every class");
}

static void
test_rejects(void)
{
	struct mpd_mad m, d;
	uint8_t buf[MPD_MAD_LEN];
	size_t n, bad = 0;
	unsigned int v;

	sa_mad(&m);
	mpd_mad_encode(&m, data_in, 200, buf, sizeof(buf));
	for (n = 0; n < MPD_MAD_LEN; n++)
		if (decode_exact(buf, n, &d) != MPD_ETRUNC)
			bad++;
	is_int(bad, 0, "decode of 0..255 bytes is MPD_ETRUNC");
	is_int(decode_exact(buf, MPD_MAD_LEN, &d), MPD_MAD_LEN,
	       "decode of exactly 256 bytes");
	bad = 0;
	for (v = 0; v < 256; v++) {
		if (v == MPD_BASE_VERSION)
			continue;
		buf[0] = (uint8_t)v;
		if (mpd_mad_decode(buf, sizeof(buf), &d) != MPD_EVERSION)
			bad++;
	}
	is_int(bad, 0, "every base version but 1 is MPD_EVERSION");
	m.hdr.base_version = 2;
	is_int(mpd_mad_encode(&m, NULL, 0, buf, sizeof(buf)), MPD_MAD_LEN,
	       "encode takes base version 2 as given");
	is_int(buf[0], 2, "... and writes it");
}

static void
test_round_trips(void)
{
	static const uint8_t classes[] = {
		MPD_CLASS_SUBN_LID, MPD_CLASS_SUBN_DR, MPD_CLASS_SUBN_ADM,
		MPD_CLASS_PERF, MPD_CLASS_CM, MPD_CLASS_VENDOR_R1_HI,
		MPD_CLASS_VENDOR_R2_LO, 0x21,
	};
	struct mpd_mad m, d;
	uint8_t buf[MPD_MAD_LEN], again[MPD_MAD_LEN];
	size_t i, bad = 0;

	for (i = 0; i < 4000; i++) {
		uint8_t cls = classes[i % sizeof(classes)];
		uint16_t room;

		memset(&m, 0, sizeof(m));
		m.hdr.base_version = 1;
		m.hdr.mgmt_class = cls;
		m.hdr.class_version = (uint8_t)rnd64();
		m.hdr.method = (uint8_t)rnd64();
		m.hdr.status = (uint16_t)rnd64();
		m.hdr.class_specific = (uint16_t)rnd64();
		if (cls == MPD_CLASS_SUBN_DR) {
			uint8_t cnt = (uint8_t)(rnd64() % 64);

			m.hdr.class_specific = (uint16_t)(
				(rnd64() % (cnt + 2u)) << 8 | cnt);
			m.dr_slid = (uint16_t)rnd64();
			m.dr_dlid = (uint16_t)rnd64();
			rnd_bytes(m.initial_path, 64);
			rnd_bytes(m.return_path, 64);
		}
		m.hdr.tid = rnd64();
		m.hdr.attr_id = (uint16_t)rnd64();
		m.hdr.resv = (uint16_t)rnd64();
		m.hdr.attr_mod = (uint32_t)rnd64();
		if (cls == MPD_CLASS_SUBN_LID || cls == MPD_CLASS_SUBN_DR)
			m.mkey = rnd64();
		if (mpd_class_has_rmpp(cls)) {
			m.rmpp.version = 1;
			m.rmpp.type = (uint8_t)rnd64();
			m.rmpp.resp_time = (uint8_t)rnd_bits(5);
			m.rmpp.flags = (uint8_t)rnd_bits(3);
			m.rmpp.status = (uint8_t)rnd64();
			m.rmpp.data1 = (uint32_t)rnd64();
			m.rmpp.data2 = (uint32_t)rnd64();
		}
		if (cls == MPD_CLASS_SUBN_ADM) {
			m.sm_key = rnd64();
			m.attr_offset = (uint16_t)rnd64();
			m.comp_mask = rnd64();
		} else if (mpd_class_has_rmpp(cls)) {
			m.oui = (uint32_t)rnd_bits(24);
		}
		room = (uint16_t)(cls == MPD_CLASS_SUBN_LID ||
				  cls == MPD_CLASS_SUBN_DR ? 64 :
				  MPD_MAD_LEN - mpd_class_data_off(cls));
		rnd_bytes(data_in, room);
		if (mpd_mad_encode(&m, data_in, room, buf, sizeof(buf)) !=
		    MPD_MAD_LEN ||
		    mpd_mad_decode(buf, sizeof(buf), &d) != MPD_MAD_LEN ||
		    !hdr_equal(&m.hdr, &d.hdr) || d.mkey != m.mkey ||
		    d.dr_slid != m.dr_slid || d.dr_dlid != m.dr_dlid ||
		    memcmp(d.initial_path, m.initial_path, 64) != 0 ||
		    memcmp(d.return_path, m.return_path, 64) != 0 ||
		    d.has_rmpp != mpd_class_has_rmpp(cls) ||
		    d.rmpp.version != m.rmpp.version ||
		    d.rmpp.type != m.rmpp.type ||
		    d.rmpp.resp_time != m.rmpp.resp_time ||
		    d.rmpp.flags != m.rmpp.flags ||
		    d.rmpp.status != m.rmpp.status ||
		    d.rmpp.data1 != m.rmpp.data1 ||
		    d.rmpp.data2 != m.rmpp.data2 || d.sm_key != m.sm_key ||
		    d.attr_offset != m.attr_offset ||
		    d.comp_mask != m.comp_mask || d.oui != m.oui ||
		    d.data_len != room ||
		    memcmp(buf + d.data_off, data_in, room) != 0) {
			if (!bad++)
				tap_diag("class 0x%02x differs", cls);
			continue;
		}
		/* and back to the same bytes */
		if (mpd_mad_encode(&d, buf + d.data_off, d.data_len, again,
				   sizeof(again)) != MPD_MAD_LEN ||
		    memcmp(buf, again, MPD_MAD_LEN) != 0) {
			if (!bad++)
				tap_diag("class 0x%02x re-encodes differently",
					 cls);
		}
	}
	is_int(bad, 0, "4000 random MADs over 8 classes: encode, decode, "
	       "re-encode to the same bytes");
}

int
main(void)
{
	tap_seed();
	rnd_bytes(data_in, sizeof(data_in));
	test_common_header();
	test_header_by_layout();
	test_lid_smp();
	test_dr_smp();
	test_sa();
	test_vendor();
	test_perf_and_gs();
	test_class_tables();
	test_rejects();
	test_round_trips();
	return tap_done();
}
