/* SPDX-License-Identifier: BSD-3-Clause */
/* The 256-byte MAD: common header and class headers. */
#include <string.h>

#include "madpmd/mad.h"
#include "madpmd/wire.h"

#define F(m, o, w) MPD_FIELD(struct mpd_mad_hdr, m, o, w)
static const struct mpd_field mad_hdr_fields[] = {	/* IBA 13.4.3 */
	F(base_version, 0, 8),
	F(mgmt_class, 8, 8),
	F(class_version, 16, 8),
	F(method, 24, 8),
	F(status, 32, 16),
	F(class_specific, 48, 16),
	F(tid, 64, 64),
	F(attr_id, 128, 16),
	F(resv, 144, 16),
	F(attr_mod, 160, 32),
};
#undef F
const struct mpd_layout mpd_mad_hdr_layout =
	MPD_LAYOUT("MADHeader", MPD_MAD_HDR_LEN, mad_hdr_fields);

/* mpd_mad_hdr_layout by hand: every MAD in and out goes through here,
 * and its fields are whole bytes (test_mad checks both agree) */
static void
mad_hdr_get(const uint8_t *b, struct mpd_mad_hdr *h)
{
	h->base_version = b[0];
	h->mgmt_class = b[1];
	h->class_version = b[2];
	h->method = b[3];
	h->status = mpd_get_be16(b + 4);
	h->class_specific = mpd_get_be16(b + 6);
	h->tid = mpd_get_be64(b + 8);
	h->attr_id = mpd_get_be16(b + 16);
	h->resv = mpd_get_be16(b + 18);
	h->attr_mod = mpd_get_be32(b + 20);
}

static void
mad_hdr_put(const struct mpd_mad_hdr *h, uint8_t *b)
{
	b[0] = h->base_version;
	b[1] = h->mgmt_class;
	b[2] = h->class_version;
	b[3] = h->method;
	mpd_put_be16(b + 4, h->status);
	mpd_put_be16(b + 6, h->class_specific);
	mpd_put_be64(b + 8, h->tid);
	mpd_put_be16(b + 16, h->attr_id);
	mpd_put_be16(b + 18, h->resv);
	mpd_put_be32(b + 20, h->attr_mod);
}

#define F(m, o, w) MPD_FIELD(struct mpd_rmpp_hdr, m, o, w)
static const struct mpd_field rmpp_hdr_fields[] = {	/* IBA 13.6.2.1 */
	F(version, 0, 8),
	F(type, 8, 8),
	F(resp_time, 16, 5),
	F(flags, 21, 3),
	F(status, 24, 8),
	F(data1, 32, 32),
	F(data2, 64, 32),
};
#undef F
const struct mpd_layout mpd_rmpp_hdr_layout =
	MPD_LAYOUT("RMPPHeader", MPD_RMPP_HDR_LEN, rmpp_hdr_fields);

bool
mpd_class_has_rmpp(uint8_t mgmt_class)
{
	/* Classes whose MADs carry the RMPP header (IBA 13.6.1 and the class
	 * chapters): SA, and the vendor classes of range 2. */
	return mgmt_class == MPD_CLASS_SUBN_ADM ||
	       (mgmt_class >= MPD_CLASS_VENDOR_R2_LO &&
		mgmt_class <= MPD_CLASS_VENDOR_R2_HI);
}

uint16_t
mpd_class_data_off(uint8_t mgmt_class)
{
	switch (mgmt_class) {
	case MPD_CLASS_SUBN_LID:
	case MPD_CLASS_SUBN_DR:
	case MPD_CLASS_PERF:
	case MPD_CLASS_BM:
	case MPD_CLASS_DEV_MGT:
		/* PerfMgt, DevMgt: 40 reserved bytes (IBA 16.1.1, 16.3.1);
		 * BM: B_Key and 32 reserved bytes (IBA 16.2.1) */
		return MPD_SMP_DATA_OFF;
	case MPD_CLASS_SUBN_ADM:
		return MPD_SA_HDR_END;
	default:
		break;
	}
	if (mgmt_class >= MPD_CLASS_VENDOR_R2_LO &&
	    mgmt_class <= MPD_CLASS_VENDOR_R2_HI)
		return MPD_VENDOR_DATA_OFF;
	return MPD_MAD_HDR_LEN;
}

static uint16_t
data_len_of(uint8_t mgmt_class, uint16_t off)
{
	/* SMP data is 64 bytes; the DR paths follow it. */
	if (mgmt_class == MPD_CLASS_SUBN_LID || mgmt_class == MPD_CLASS_SUBN_DR)
		return MPD_SMP_DATA_LEN;
	return (uint16_t)(MPD_MAD_LEN - off);
}

int
mpd_mad_encode(const struct mpd_mad *m, const void *data, size_t data_len,
	       uint8_t *buf, size_t cap)
{
	uint8_t cls = m->hdr.mgmt_class;
	uint16_t off = mpd_class_data_off(cls);
	int rc;

	if (cap < MPD_MAD_LEN)
		return MPD_ENOSPC;
	if (data_len > data_len_of(cls, off) || (data_len && !data))
		return MPD_EINVAL;
	memset(buf, 0, MPD_MAD_LEN);
	mad_hdr_put(&m->hdr, buf);

	if (cls == MPD_CLASS_SUBN_LID || cls == MPD_CLASS_SUBN_DR) {
		mpd_put_be64(buf + 24, m->mkey);
		if (cls == MPD_CLASS_SUBN_DR) {
			/* IBA 14.2.1.2: hop count at most 63; the hop pointer
			 * never passes count + 1 (14.2.2) */
			if (mpd_smp_hop_cnt(&m->hdr) > 63)
				return MPD_ERANGE;
			if (mpd_smp_hop_ptr(&m->hdr) >
			    mpd_smp_hop_cnt(&m->hdr) + 1)
				return MPD_EINVAL;
			mpd_put_be16(buf + 32, m->dr_slid);
			mpd_put_be16(buf + 34, m->dr_dlid);
			memcpy(buf + 128, m->initial_path, MPD_SMP_PATH_LEN);
			memcpy(buf + 192, m->return_path, MPD_SMP_PATH_LEN);
		}
	} else if (mpd_class_has_rmpp(cls)) {
		rc = mpd_layout_encode(&mpd_rmpp_hdr_layout, &m->rmpp,
				       buf + MPD_MAD_HDR_LEN,
				       cap - MPD_MAD_HDR_LEN);
		if (rc < 0)
			return rc;
		if (cls == MPD_CLASS_SUBN_ADM) {
			mpd_put_be64(buf + 36, m->sm_key);
			mpd_put_be16(buf + 44, m->attr_offset);
			mpd_put_be64(buf + 48, m->comp_mask);
		} else {
			if (m->oui >> 24)
				return MPD_ERANGE;
			buf[37] = (uint8_t)(m->oui >> 16);
			buf[38] = (uint8_t)(m->oui >> 8);
			buf[39] = (uint8_t)m->oui;
		}
	}
	if (data_len)
		memcpy(buf + off, data, data_len);
	return MPD_MAD_LEN;
}

int
mpd_mad_decode(const uint8_t *buf, size_t len, struct mpd_mad *m)
{
	uint8_t cls;

	if (len < MPD_MAD_LEN)
		return MPD_ETRUNC;
	memset(m, 0, sizeof(*m));
	mad_hdr_get(buf, &m->hdr);
	if (m->hdr.base_version != MPD_BASE_VERSION)
		return MPD_EVERSION;
	cls = m->hdr.mgmt_class;
	m->data_off = mpd_class_data_off(cls);
	m->data_len = data_len_of(cls, m->data_off);

	if (cls == MPD_CLASS_SUBN_LID || cls == MPD_CLASS_SUBN_DR) {
		m->mkey = mpd_get_be64(buf + 24);
		if (cls == MPD_CLASS_SUBN_DR) {
			uint8_t cnt = mpd_smp_hop_cnt(&m->hdr);

			m->dr_slid = mpd_get_be16(buf + 32);
			m->dr_dlid = mpd_get_be16(buf + 34);
			memcpy(m->initial_path, buf + 128, MPD_SMP_PATH_LEN);
			memcpy(m->return_path, buf + 192, MPD_SMP_PATH_LEN);
			/* IBA 14.2.2: hop count <= 63, hop pointer <= count + 1 */
			if (cnt > 63 || mpd_smp_hop_ptr(&m->hdr) > cnt + 1)
				return MPD_EINVAL;
		}
	} else if (mpd_class_has_rmpp(cls)) {
		m->has_rmpp = true;
		mpd_layout_decode(&mpd_rmpp_hdr_layout, buf + MPD_MAD_HDR_LEN,
				  len - MPD_MAD_HDR_LEN, &m->rmpp);
		if (cls == MPD_CLASS_SUBN_ADM) {
			m->sm_key = mpd_get_be64(buf + 36);
			m->attr_offset = mpd_get_be16(buf + 44);
			m->comp_mask = mpd_get_be64(buf + 48);
		} else {
			m->oui = (uint32_t)buf[37] << 16 |
				 (uint32_t)buf[38] << 8 | buf[39];
		}
		/* IBA 13.6.2.1: an active RMPP header must be version 1 */
		if ((m->rmpp.flags & MPD_RMPP_FLAG_ACTIVE) &&
		    m->rmpp.version != MPD_RMPP_VERSION)
			return MPD_EVERSION;
	}
	return MPD_MAD_LEN;
}
