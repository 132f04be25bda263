/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICRC and VCRC verification: good frames show status Good on every link
 * (RoCEv2 over IPv4 and IPv6, with and without VLAN, RoCEv1, IB with and
 * without GRH); a flipped ICRC, VCRC or payload bit shows status Bad with
 * "Bad ICRC" / "Bad VCRC" expert info. The CRCs a frame should carry come
 * from crc_ref (zlib's crc32 over the masked bytes, a bitwise CRC-16), not
 * from the codec that made the frame.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/mad.h"
#include "crc_ref.h"
#include "dtest.h"
#include "tap.h"

static void
perf_mad(uint8_t *mad)
{
	struct mpd_mad m;
	uint8_t data[64];

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_PERF;
	m.hdr.class_version = 1;
	m.hdr.method = MPD_METHOD_GET;
	m.hdr.tid = rnd64();
	m.hdr.attr_id = MPD_ATTR_PERF_PORT_COUNTERS;
	rnd_bytes(data, sizeof(data));
	mpd_mad_encode(&m, data, 44, mad, MPD_MAD_LEN);
}

enum bad { GOOD, BAD_ICRC, BAD_VCRC, BAD_PAYLOAD };

static void
add(struct oracle *o, enum mpd_link link, enum bad bad, int variant)
{
	static const char *const what[] = {
		"good", "ICRC flipped", "VCRC flipped", "MAD byte flipped",
	};
	static const char *const ln[] = { "IB", "RoCEv1", "RoCEv2" };
	uint8_t mad[MPD_MAD_LEN], frame[1024];
	struct mpd_pkt p, q;
	char label[96], want_icrc[64] = "", want_vcrc[64] = "";
	size_t flen = 0;
	int fr, at = -1;

	perf_mad(mad);
	oracle_pkt_init(&p, link, 1, 1);
	if (link == MPD_LINK_ROCE_V2) {
		p.ip_ver = (variant & 1) ? 6 : 4;
		p.eth.has_vlan = (variant & 2) != 0;
	} else if (link == MPD_LINK_IB) {
		p.has_grh = (variant & 1) != 0;
	}
	/* find where the CRCs land: encode once untouched */
	q = p;
	if (mpd_pkt_encode(&q, mad, sizeof(mad), frame, sizeof(frame)) <= 0)
		return;
	flen = (size_t)mpd_pkt_encode(&q, mad, sizeof(mad), frame,
				      sizeof(frame));
	if (bad == BAD_ICRC)
		at = (int)flen - (link == MPD_LINK_IB ? 6 : 4);
	else if (bad == BAD_VCRC)
		at = (int)flen - 1;
	else if (bad == BAD_PAYLOAD)
		at = (int)(q.bth_off + 12 + 8 + 100);
	snprintf(label, sizeof(label), "%s%s%s: %s", ln[link],
		 link == MPD_LINK_ROCE_V2 ? (variant & 1 ? " IPv6" : " IPv4") :
		 link == MPD_LINK_IB ? (variant & 1 ? " GRH" : " LRH only") : "",
		 link == MPD_LINK_ROCE_V2 && (variant & 2) ? " VLAN" : "",
		 what[bad]);
	fr = dtest_add_pkt(o, label, &p, mad, sizeof(mad), 0, at, frame, &flen);
	if (!fr)
		return;
	/* what the plugin must say the CRCs should be, from the bytes sent
	 * and an independent computation */
	{
		uint32_t icrc = 0;
		uint16_t vcrc = crc_ref_vcrc(frame, flen);
		size_t at_icrc = flen - (link == MPD_LINK_IB ? 6 : 4);
		uint32_t stored = (uint32_t)frame[at_icrc] |
				  (uint32_t)frame[at_icrc + 1] << 8 |
				  (uint32_t)frame[at_icrc + 2] << 16 |
				  (uint32_t)frame[at_icrc + 3] << 24;

		if (!ok(crc_ref_icrc(link, frame, flen, &icrc) == 0,
			"%s: reference ICRC computed", label))
			return;
		if (bad == GOOD) {
			is_int(stored, icrc, "%s: the encoder's ICRC is the "
			       "reference's (zlib crc32, IBA 7.8.1 mask)",
			       label);
			if (link == MPD_LINK_IB)
				is_int(frame[flen - 2] | frame[flen - 1] << 8,
				       vcrc, "%s: the encoder's VCRC is the "
				       "reference's (IBA 7.8.2)", label);
		}
		snprintf(want_icrc, sizeof(want_icrc),
			 "Bad ICRC [should be 0x%08x]", icrc);
		snprintf(want_vcrc, sizeof(want_vcrc),
			 "Bad VCRC [should be 0x%04x]", vcrc);
	}
	switch (bad) {
	case GOOD:
		oracle_expect_absent(o, fr, "_ws.expert.message");
		break;
	case BAD_ICRC:
		/* on IB the VCRC covers the ICRC: both are bad */
		oracle_allow_errors(o, fr);
		oracle_forget(o, fr, "madpmd.icrc");
		oracle_expect_uint(o, fr, "madpmd.icrc.status", 0, 0);
		oracle_expect_str(o, fr, "_ws.expert.message", 0, want_icrc);
		if (link == MPD_LINK_IB) {
			oracle_expect_uint(o, fr, "madpmd.vcrc.status", 0, 0);
			oracle_expect_str(o, fr, "_ws.expert.message", 1,
					  want_vcrc);
		}
		break;
	case BAD_VCRC:
		oracle_allow_errors(o, fr);
		oracle_forget(o, fr, "madpmd.vcrc");
		oracle_expect_uint(o, fr, "madpmd.icrc.status", 0, 1);
		oracle_expect_uint(o, fr, "madpmd.vcrc.status", 0, 0);
		oracle_expect_str(o, fr, "_ws.expert.message", 0, want_vcrc);
		break;
	case BAD_PAYLOAD:
		oracle_allow_errors(o, fr);
		oracle_expect_uint(o, fr, "madpmd.icrc.status", 0, 0);
		oracle_expect_str(o, fr, "_ws.expert.message", 0, want_icrc);
		if (link == MPD_LINK_IB)
			oracle_expect_uint(o, fr, "madpmd.vcrc.status", 0, 0);
		break;
	}
}

int
main(void)
{
	struct oracle *o;
	int v;

	if (!dtest_init("crc"))
		return 0;
	o = dtest_oracle("crc");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	/* a flipped bit breaks the IPv6 UDP checksum too; that is not ours */
	oracle_add_tshark_arg(o, "-o");
	oracle_add_tshark_arg(o, "udp.check_checksum:FALSE");
	for (v = 0; v < 4; v++) {
		add(o, MPD_LINK_ROCE_V2, GOOD, v);
		add(o, MPD_LINK_ROCE_V2, BAD_ICRC, v);
		add(o, MPD_LINK_ROCE_V2, BAD_PAYLOAD, v);
	}
	add(o, MPD_LINK_ROCE_V1, GOOD, 0);
	add(o, MPD_LINK_ROCE_V1, BAD_ICRC, 0);
	add(o, MPD_LINK_ROCE_V1, BAD_PAYLOAD, 0);
	for (v = 0; v < 2; v++) {
		add(o, MPD_LINK_IB, GOOD, v);
		add(o, MPD_LINK_IB, BAD_ICRC, v);
		add(o, MPD_LINK_IB, BAD_VCRC, v);
		add(o, MPD_LINK_IB, BAD_PAYLOAD, v);
	}
	oracle_run(o);
	oracle_free(o);
	return tap_done();
}
