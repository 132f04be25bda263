/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the wire codec core: the two link CRCs, the IB transport
 * headers (golden bytes drawn from IBA 7.7, 8.3, 9.2 and 9.3), which
 * headers each opcode carries (9.2 Table 35) and whole packets on the three
 * links: UD in depth, every RC/UC opcode with its extension headers (round
 * trips, golden frames, every rejection path).
 *
 * The references here (bitwise CRCs, ICRC masking, IPv4/UDP checksums) are
 * written from the specifications, not from the codec, so that the codec is
 * checked against something it does not share code with.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/wire.h"
#include "tap.h"

#define FRAME_MAX	(70 * 1024)
#define FLIP_PAYLOAD	13	/* three pad bytes */

static uint8_t frame[FRAME_MAX];
static uint8_t scratch[FRAME_MAX];
static uint8_t big_payload[FRAME_MAX];

/* ---- references --------------------------------------------------------- */

/* CRC-32 by its definition: polynomial 0x04C11DB7 shifted MSB first over
 * bit-reflected input, result reflected and inverted. */
static uint32_t
ref_crc32(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu, r = 0;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < 8; k++) {
			uint32_t in = (p[i] >> k) & 1u;
			uint32_t top = c >> 31;

			c <<= 1;
			if (top ^ in)
				c ^= 0x04c11db7u;
		}
	}
	for (k = 0; k < 32; k++)
		r |= ((c >> k) & 1u) << (31 - k);
	return ~r;
}

/* VCRC by its definition: polynomial 0x100B, MSB-first register fed with
 * bit-reflected input, seed 0xFFFF, result reflected and inverted. */
static uint16_t
ref_vcrc(const uint8_t *p, size_t n)
{
	uint16_t c = 0xffff, r = 0;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < 8; k++) {
			unsigned int in = (p[i] >> k) & 1u;
			unsigned int top = c >> 15;

			c = (uint16_t)(c << 1);
			if (top ^ in)
				c ^= 0x100b;
		}
	}
	for (k = 0; k < 16; k++)
		r = (uint16_t)(r | ((c >> k) & 1u) << (15 - k));
	return (uint16_t)~r;
}

/* RFC 1071 sum of 16-bit big-endian words, folded. */
static uint16_t
ref_inet_sum(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sum += (i & 1) ? p[i] : (uint32_t)p[i] << 8;
	while (sum > 0xffff)
		sum = (sum >> 16) + (sum & 0xffff);
	return (uint16_t)sum;
}

static void
ip4_fix_csum(uint8_t *ip)
{
	uint16_t c;

	ip[10] = 0;
	ip[11] = 0;
	c = (uint16_t)~ref_inet_sum(0, ip, 20);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
}

static uint32_t
le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint16_t
le16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* Offset of the network header of a RoCE frame (after any VLAN tag). */
static size_t
roce_l3(const uint8_t *f)
{
	return mpd_get_be16(f + 12) == MPD_ETHERTYPE_VLAN ? 18 : 14;
}

/*
 * ICRC from IBA 7.8.1 and RoCE annex A16/A17, with the header positions
 * read off the frame itself: CRC-32 from the LRH (RoCE: eight 0xFF bytes)
 * to the end of the payload with the variant fields set to ones.
 */
static uint32_t
ref_icrc(enum mpd_link link, const uint8_t *f, size_t icrc_off)
{
	size_t l3, n, bth;
	uint8_t *g;

	if (link == MPD_LINK_IB) {
		memcpy(scratch, f, icrc_off);
		n = icrc_off;
		scratch[0] |= 0xf0;			/* VL */
		g = scratch + MPD_LRH_LEN;
		bth = MPD_LRH_LEN;
		if ((f[1] & 3) == MPD_LNH_IBA_GLOBAL)
			bth += MPD_GRH_LEN;
		else
			g = NULL;
	} else {
		l3 = roce_l3(f);
		memset(scratch, 0xff, 8);
		memcpy(scratch + 8, f + l3, icrc_off - l3);
		n = 8 + icrc_off - l3;
		g = scratch + 8;
		bth = 8 + MPD_GRH_LEN;
	}
	if (link == MPD_LINK_ROCE_V2 && g[0] >> 4 == 4) {
		size_t ihl = (size_t)(g[0] & 0xf) * 4;

		g[1] = 0xff;				/* TOS */
		g[8] = 0xff;				/* TTL */
		g[10] = g[11] = 0xff;			/* header checksum */
		g[ihl + 6] = g[ihl + 7] = 0xff;		/* UDP checksum */
		bth = 8 + ihl + MPD_UDP_LEN;
	} else if (g) {
		g[0] |= 0x0f;				/* traffic class */
		g[1] = g[2] = g[3] = 0xff;		/* + flow label */
		g[7] = 0xff;				/* hop limit */
		if (link == MPD_LINK_ROCE_V2) {
			g[MPD_IPV6_LEN + 6] = 0xff;	/* UDP checksum */
			g[MPD_IPV6_LEN + 7] = 0xff;
			bth += MPD_UDP_LEN;
		}
	}
	scratch[bth + 4] = 0xff;			/* BTH resv8a */
	return ref_crc32(scratch, n);
}

/* ---- CRCs --------------------------------------------------------------- */

static void
test_crc(void)
{
	static const uint8_t check[] = "123456789";
	uint8_t buf[300], tail[sizeof(buf) + 4];
	uint16_t v;
	uint32_t c;
	size_t len, off;
	int bad = 0, bad_res = 0;

	is_int(mpd_crc32(0, check, 9), 0xcbf43926u,
	       "crc32(\"123456789\") is the catalogue check value");
	is_int(ref_crc32(check, 9), 0xcbf43926u,
	       "reference crc32 agrees with the catalogue");
	is_int(mpd_crc32(mpd_crc32(0, check, 4), check + 4, 5), 0xcbf43926u,
	       "crc32 continues from a previous call's result");
	is_int(mpd_crc32(0, check, 0), 0, "crc32 of nothing is 0");
	is_int(mpd_crc32(0x12345678u, check, 0), 0x12345678u,
	       "crc32 of nothing keeps the seed");

	/* every length and alignment around the slicing-by-8 loop */
	rnd_bytes(buf, sizeof(buf));
	for (off = 0; off < 8; off++)
		for (len = 0; len + off <= sizeof(buf) && len <= 100; len++)
			if (mpd_crc32(0, buf + off, len) !=
			    ref_crc32(buf + off, len))
				bad++;
	is_int(bad, 0, "crc32 matches the bitwise reference, lengths 0..100 "
	       "at 8 alignments");

	/* residue: CRC over data || LE(CRC) is the constant 0x2144DF1C */
	for (len = 0; len <= 64; len++) {
		rnd_bytes(tail, len);
		c = mpd_crc32(0, tail, len);
		tail[len] = (uint8_t)c;
		tail[len + 1] = (uint8_t)(c >> 8);
		tail[len + 2] = (uint8_t)(c >> 16);
		tail[len + 3] = (uint8_t)(c >> 24);
		if (mpd_crc32(0, tail, len + 4) != 0x2144df1cu)
			bad_res++;
	}
	is_int(bad_res, 0, "crc32 residue over data||LE(crc) is 0x2144DF1C");

	/* VCRC: CRC-16/0x100B, reflected, init and xorout 0xFFFF */
	is_int(ref_vcrc(check, 9), 0x0a3d,
	       "reference VCRC check value of \"123456789\" is 0x0A3D");
	is_int(mpd_crc16_vcrc(check, 9), ref_vcrc(check, 9),
	       "VCRC check value matches the bitwise reference");
	is_int(mpd_crc16_vcrc(check, 0), 0, "VCRC of nothing is 0");
	bad = 0;
	for (len = 0; len <= 200; len++)
		if (mpd_crc16_vcrc(buf, len) != ref_vcrc(buf, len))
			bad++;
	is_int(bad, 0, "VCRC matches the bitwise reference, lengths 0..200");
	bad_res = 0;
	for (len = 0; len <= 64; len++) {
		rnd_bytes(tail, len);
		v = mpd_crc16_vcrc(tail, len);
		tail[len] = (uint8_t)v;
		tail[len + 1] = (uint8_t)(v >> 8);
		if (mpd_crc16_vcrc(tail, len + 2) != 0xaa90)
			bad_res++;
	}
	is_int(bad_res, 0, "VCRC residue over data||LE(vcrc) is 0xAA90");
}

/* ---- transport headers -------------------------------------------------- */

static void
test_lrh(void)
{
	/* IBA 7.7: VL|LVer, SL|rsv2|LNH, DLID, rsv5|PktLen, SLID */
	static const uint8_t g1[] = { 0xf0, 0x32, 0x12, 0x34,
				      0x07, 0xff, 0xab, 0xcd };
	static const uint8_t g2[] = { 0x10, 0xf3, 0xff, 0xff,
				      0x01, 0x23, 0x00, 0x01 };
	struct mpd_lrh h = { .vl = 15, .lver = 0, .sl = 3, .lnh = 2,
			     .dlid = 0x1234, .pkt_len = 0x7ff,
			     .slid = 0xabcd };
	struct mpd_lrh d, w;
	uint8_t b[16];
	size_t n;
	int bad = 0;

	memset(b, 0xee, sizeof(b));
	is_int(mpd_lrh_encode(&h, b, sizeof(b)), MPD_LRH_LEN, "LRH encode");
	ok(memcmp(b, g1, sizeof(g1)) == 0 && b[8] == 0xee,
	   "LRH golden bytes (VL 15, SL 3, LNH 2, PktLen 0x7ff)");
	memset(&d, 0x5a, sizeof(d));
	is_int(mpd_lrh_decode(g1, sizeof(g1), &d), MPD_LRH_LEN, "LRH decode");
	ok(d.vl == 15 && d.lver == 0 && d.sl == 3 && d.lnh == 2 &&
	   d.dlid == 0x1234 && d.pkt_len == 0x7ff && d.slid == 0xabcd,
	   "LRH decode fields");

	h = (struct mpd_lrh){ .vl = 1, .sl = 15, .lnh = 3, .dlid = 0xffff,
			      .pkt_len = 0x123, .slid = 1 };
	is_int(mpd_lrh_encode(&h, b, MPD_LRH_LEN), MPD_LRH_LEN,
	       "LRH encode into exactly 8 bytes");
	ok(memcmp(b, g2, sizeof(g2)) == 0,
	   "LRH golden bytes (VL 1, SL 15, LNH 3, permissive DLID)");
	memcpy(b, g2, sizeof(g2));
	b[1] |= 0x0c;	/* reserved bits of byte 1 */
	b[4] |= 0xf8;	/* reserved bits above PktLen */
	is_int(mpd_lrh_decode(b, MPD_LRH_LEN, &d), MPD_LRH_LEN,
	       "LRH decode with reserved bits set");
	ok(d.vl == 1 && d.sl == 15 && d.lnh == 3 && d.dlid == 0xffff &&
	   d.pkt_len == 0x123 && d.slid == 1,
	   "LRH decode ignores the reserved bits");

	/* random round trips */
	for (n = 0; n < 1000; n++) {
		w = (struct mpd_lrh){ .vl = (uint8_t)rnd_bits(4),
				      .sl = (uint8_t)rnd_bits(4),
				      .lnh = (uint8_t)rnd_bits(2),
				      .dlid = (uint16_t)rnd64(),
				      .pkt_len = (uint16_t)rnd_bits(11),
				      .slid = (uint16_t)rnd64() };
		if (mpd_lrh_encode(&w, b, MPD_LRH_LEN) != MPD_LRH_LEN ||
		    mpd_lrh_decode(b, MPD_LRH_LEN, &d) != MPD_LRH_LEN ||
		    d.vl != w.vl || d.lver != 0 || d.sl != w.sl ||
		    d.lnh != w.lnh || d.dlid != w.dlid ||
		    d.pkt_len != w.pkt_len || d.slid != w.slid)
			bad++;
	}
	is_int(bad, 0, "LRH random round trips");

	h = (struct mpd_lrh){ .dlid = 1, .slid = 2 };
	w = h, w.vl = 16;
	is_int(mpd_lrh_encode(&w, b, sizeof(b)), MPD_ERANGE, "LRH VL 16");
	w = h, w.lver = 16;
	is_int(mpd_lrh_encode(&w, b, sizeof(b)), MPD_ERANGE, "LRH LVer 16");
	w = h, w.sl = 16;
	is_int(mpd_lrh_encode(&w, b, sizeof(b)), MPD_ERANGE, "LRH SL 16");
	w = h, w.lnh = 4;
	is_int(mpd_lrh_encode(&w, b, sizeof(b)), MPD_ERANGE, "LRH LNH 4");
	w = h, w.pkt_len = 0x800;
	is_int(mpd_lrh_encode(&w, b, sizeof(b)), MPD_ERANGE,
	       "LRH PktLen 0x800");
	bad = 0;
	for (n = 0; n < MPD_LRH_LEN; n++)
		if (mpd_lrh_encode(&h, b, n) != MPD_ENOSPC)
			bad++;
	is_int(bad, 0, "LRH encode into 0..7 bytes is MPD_ENOSPC");
	bad = 0;
	for (n = 0; n < MPD_LRH_LEN; n++)
		if (mpd_lrh_decode(g1, n, &d) != MPD_ETRUNC)
			bad++;
	is_int(bad, 0, "LRH decode of 0..7 bytes is MPD_ETRUNC");
	w = h, w.lver = 1;
	is_int(mpd_lrh_encode(&w, b, sizeof(b)), MPD_LRH_LEN,
	       "LRH LVer 1 encodes (the field is 4 bits)");
	is_int(mpd_lrh_decode(b, MPD_LRH_LEN, &d), MPD_EVERSION,
	       "LRH LVer 1 decodes as MPD_EVERSION");
}

static void
test_grh(void)
{
	/* IBA 8.3: IPVer|TClass|FlowLabel, PayLen, NxtHdr, HopLmt, SGID, DGID */
	static const uint8_t g[MPD_GRH_LEN] = {
		0x6a, 0x51, 0x23, 0x45, 0x01, 0x23, 0x1b, 0x40,
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xbc, 0xde,
		0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
		0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};
	struct mpd_grh h, d, w;
	uint8_t b[MPD_GRH_LEN + 4];
	size_t n;
	int bad = 0;

	memset(&h, 0, sizeof(h));
	h.ip_ver = 6;
	h.tclass = 0xa5;
	h.flow_label = 0x12345;
	h.pay_len = 0x123;
	h.next_hdr = MPD_GRH_NEXT_HDR_IBA;
	h.hop_limit = 0x40;
	memcpy(h.sgid, g + 8, 16);
	memcpy(h.dgid, g + 24, 16);
	memset(b, 0xee, sizeof(b));
	is_int(mpd_grh_encode(&h, b, sizeof(b)), MPD_GRH_LEN, "GRH encode");
	ok(memcmp(b, g, sizeof(g)) == 0 && b[MPD_GRH_LEN] == 0xee,
	   "GRH golden bytes (TClass 0xA5, FlowLabel 0x12345, PayLen 0x123)");
	memset(&d, 0x5a, sizeof(d));
	is_int(mpd_grh_decode(g, sizeof(g), &d), MPD_GRH_LEN, "GRH decode");
	ok(d.ip_ver == 6 && d.tclass == 0xa5 && d.flow_label == 0x12345 &&
	   d.pay_len == 0x123 && d.next_hdr == 0x1b && d.hop_limit == 0x40 &&
	   memcmp(d.sgid, g + 8, 16) == 0 && memcmp(d.dgid, g + 24, 16) == 0,
	   "GRH decode fields");

	for (n = 0; n < 1000; n++) {
		memset(&w, 0, sizeof(w));
		w.ip_ver = 6;
		w.tclass = (uint8_t)rnd64();
		w.flow_label = (uint32_t)rnd_bits(20);
		w.pay_len = (uint16_t)rnd64();
		w.next_hdr = (uint8_t)rnd64();
		w.hop_limit = (uint8_t)rnd64();
		rnd_bytes(w.sgid, 16);
		rnd_bytes(w.dgid, 16);
		if (mpd_grh_encode(&w, b, MPD_GRH_LEN) != MPD_GRH_LEN ||
		    mpd_grh_decode(b, MPD_GRH_LEN, &d) != MPD_GRH_LEN ||
		    d.ip_ver != 6 || d.tclass != w.tclass ||
		    d.flow_label != w.flow_label || d.pay_len != w.pay_len ||
		    d.next_hdr != w.next_hdr || d.hop_limit != w.hop_limit ||
		    memcmp(d.sgid, w.sgid, 16) != 0 ||
		    memcmp(d.dgid, w.dgid, 16) != 0)
			bad++;
	}
	is_int(bad, 0, "GRH random round trips");

	w = h, w.ip_ver = 16;
	is_int(mpd_grh_encode(&w, b, sizeof(b)), MPD_ERANGE, "GRH IPVer 16");
	w = h, w.flow_label = 0x100000;
	is_int(mpd_grh_encode(&w, b, sizeof(b)), MPD_ERANGE,
	       "GRH FlowLabel 0x100000");
	bad = 0;
	for (n = 0; n < MPD_GRH_LEN; n++)
		if (mpd_grh_encode(&h, b, n) != MPD_ENOSPC)
			bad++;
	is_int(bad, 0, "GRH encode into 0..39 bytes is MPD_ENOSPC");
	bad = 0;
	for (n = 0; n < MPD_GRH_LEN; n++)
		if (mpd_grh_decode(g, n, &d) != MPD_ETRUNC)
			bad++;
	is_int(bad, 0, "GRH decode of 0..39 bytes is MPD_ETRUNC");
	w = h, w.ip_ver = 4;
	is_int(mpd_grh_encode(&w, b, sizeof(b)), MPD_GRH_LEN,
	       "GRH IPVer 4 encodes");
	is_int(mpd_grh_decode(b, MPD_GRH_LEN, &d), MPD_EVERSION,
	       "GRH IPVer 4 decodes as MPD_EVERSION");
	w = h, w.ip_ver = 0;
	mpd_grh_encode(&w, b, sizeof(b));
	is_int(mpd_grh_decode(b, MPD_GRH_LEN, &d), MPD_EVERSION,
	       "GRH IPVer 0 decodes as MPD_EVERSION");
}

static void
test_bth(void)
{
	/* IBA 9.2: OpCode, SE|M|PadCnt|TVer, P_Key, resv8, DestQP,
	 * A|resv7, PSN */
	static const uint8_t g1[] = { 0x64, 0xb0, 0xff, 0xff, 0x00, 0x00,
				      0x00, 0x01, 0x80, 0xab, 0xcd, 0xef };
	static const uint8_t g2[] = { 0x65, 0x50, 0x80, 0x01, 0xc0, 0xff,
				      0xff, 0xff, 0x00, 0xff, 0xff, 0xff };
	struct mpd_bth h = { .opcode = 0x64, .se = 1, .pad_cnt = 3,
			     .pkey = 0xffff, .dest_qp = 1, .ack_req = 1,
			     .psn = 0xabcdef };
	struct mpd_bth d, w;
	uint8_t b[MPD_BTH_LEN + 4];
	size_t n;
	int bad = 0;

	memset(b, 0xee, sizeof(b));
	is_int(mpd_bth_encode(&h, b, sizeof(b)), MPD_BTH_LEN, "BTH encode");
	ok(memcmp(b, g1, sizeof(g1)) == 0 && b[MPD_BTH_LEN] == 0xee,
	   "BTH golden bytes (SE, PadCnt 3, AckReq, PSN 0xABCDEF)");
	memset(&d, 0x5a, sizeof(d));
	is_int(mpd_bth_decode(g1, sizeof(g1), &d), MPD_BTH_LEN, "BTH decode");
	ok(d.opcode == 0x64 && d.se == 1 && d.mig_req == 0 &&
	   d.pad_cnt == 3 && d.tver == 0 && d.pkey == 0xffff &&
	   d.resv8a == 0 && d.dest_qp == 1 && d.ack_req == 1 &&
	   d.psn == 0xabcdef, "BTH decode fields");

	h = (struct mpd_bth){ .opcode = 0x65, .mig_req = 1, .pad_cnt = 1,
			      .pkey = 0x8001, .resv8a = 0xc0,
			      .dest_qp = 0xffffff, .psn = 0xffffff };
	is_int(mpd_bth_encode(&h, b, MPD_BTH_LEN), MPD_BTH_LEN,
	       "BTH encode into exactly 12 bytes");
	ok(memcmp(b, g2, sizeof(g2)) == 0,
	   "BTH golden bytes (MigReq, PadCnt 1, FECN/BECN, QP 0xFFFFFF)");
	memcpy(b, g2, sizeof(g2));
	b[8] |= 0x7f;	/* reserved bits after AckReq */
	is_int(mpd_bth_decode(b, MPD_BTH_LEN, &d), MPD_BTH_LEN,
	       "BTH decode with reserved bits set");
	ok(d.opcode == 0x65 && d.se == 0 && d.mig_req == 1 &&
	   d.pad_cnt == 1 && d.pkey == 0x8001 && d.resv8a == 0xc0 &&
	   d.dest_qp == 0xffffff && d.ack_req == 0 && d.psn == 0xffffff,
	   "BTH decode ignores the reserved bits");

	for (n = 0; n < 1000; n++) {
		w = (struct mpd_bth){ .opcode = (uint8_t)rnd64(),
				      .se = (uint8_t)rnd_bits(1),
				      .mig_req = (uint8_t)rnd_bits(1),
				      .pad_cnt = (uint8_t)rnd_bits(2),
				      .pkey = (uint16_t)rnd64(),
				      .resv8a = (uint8_t)rnd64(),
				      .dest_qp = (uint32_t)rnd_bits(24),
				      .ack_req = (uint8_t)rnd_bits(1),
				      .psn = (uint32_t)rnd_bits(24) };
		if (mpd_bth_encode(&w, b, MPD_BTH_LEN) != MPD_BTH_LEN ||
		    mpd_bth_decode(b, MPD_BTH_LEN, &d) != MPD_BTH_LEN ||
		    d.opcode != w.opcode || d.se != w.se ||
		    d.mig_req != w.mig_req || d.pad_cnt != w.pad_cnt ||
		    d.tver != 0 || d.pkey != w.pkey || d.resv8a != w.resv8a ||
		    d.dest_qp != w.dest_qp || d.ack_req != w.ack_req ||
		    d.psn != w.psn)
			bad++;
	}
	is_int(bad, 0, "BTH random round trips");

	h = (struct mpd_bth){ .opcode = 0x64 };
	w = h, w.se = 2;
	is_int(mpd_bth_encode(&w, b, sizeof(b)), MPD_ERANGE, "BTH SE 2");
	w = h, w.mig_req = 2;
	is_int(mpd_bth_encode(&w, b, sizeof(b)), MPD_ERANGE, "BTH MigReq 2");
	w = h, w.pad_cnt = 4;
	is_int(mpd_bth_encode(&w, b, sizeof(b)), MPD_ERANGE, "BTH PadCnt 4");
	w = h, w.tver = 16;
	is_int(mpd_bth_encode(&w, b, sizeof(b)), MPD_ERANGE, "BTH TVer 16");
	w = h, w.dest_qp = 0x1000000;
	is_int(mpd_bth_encode(&w, b, sizeof(b)), MPD_ERANGE,
	       "BTH DestQP 0x1000000");
	w = h, w.ack_req = 2;
	is_int(mpd_bth_encode(&w, b, sizeof(b)), MPD_ERANGE, "BTH AckReq 2");
	w = h, w.psn = 0x1000000;
	is_int(mpd_bth_encode(&w, b, sizeof(b)), MPD_ERANGE,
	       "BTH PSN 0x1000000");
	bad = 0;
	for (n = 0; n < MPD_BTH_LEN; n++)
		if (mpd_bth_encode(&h, b, n) != MPD_ENOSPC)
			bad++;
	is_int(bad, 0, "BTH encode into 0..11 bytes is MPD_ENOSPC");
	bad = 0;
	for (n = 0; n < MPD_BTH_LEN; n++)
		if (mpd_bth_decode(g1, n, &d) != MPD_ETRUNC)
			bad++;
	is_int(bad, 0, "BTH decode of 0..11 bytes is MPD_ETRUNC");
	w = h, w.tver = 1;
	is_int(mpd_bth_encode(&w, b, sizeof(b)), MPD_BTH_LEN,
	       "BTH TVer 1 encodes");
	is_int(mpd_bth_decode(b, MPD_BTH_LEN, &d), MPD_EVERSION,
	       "BTH TVer 1 decodes as MPD_EVERSION");
}

static void
test_deth(void)
{
	/* IBA 9.3.3: Q_Key, resv8, SrcQP */
	static const uint8_t g[] = { 0x80, 0x01, 0x00, 0x00,
				     0x00, 0x00, 0x00, 0x01 };
	struct mpd_deth h = { .qkey = 0x80010000u, .src_qp = 1 };
	struct mpd_deth d, w;
	uint8_t b[MPD_DETH_LEN + 4];
	size_t n;
	int bad = 0;

	memset(b, 0xee, sizeof(b));
	is_int(mpd_deth_encode(&h, b, sizeof(b)), MPD_DETH_LEN,
	       "DETH encode");
	ok(memcmp(b, g, sizeof(g)) == 0 && b[MPD_DETH_LEN] == 0xee,
	   "DETH golden bytes (GSI Q_Key, SrcQP 1)");
	memcpy(b, g, sizeof(g));
	b[4] = 0xff;	/* reserved byte */
	memset(&d, 0x5a, sizeof(d));
	is_int(mpd_deth_decode(b, MPD_DETH_LEN, &d), MPD_DETH_LEN,
	       "DETH decode with the reserved byte set");
	ok(d.qkey == 0x80010000u && d.src_qp == 1,
	   "DETH decode fields, reserved byte ignored");
	for (n = 0; n < 1000; n++) {
		w = (struct mpd_deth){ .qkey = (uint32_t)rnd64(),
				       .src_qp = (uint32_t)rnd_bits(24) };
		if (mpd_deth_encode(&w, b, MPD_DETH_LEN) != MPD_DETH_LEN ||
		    b[4] != 0 ||
		    mpd_deth_decode(b, MPD_DETH_LEN, &d) != MPD_DETH_LEN ||
		    d.qkey != w.qkey || d.src_qp != w.src_qp)
			bad++;
	}
	is_int(bad, 0, "DETH random round trips, reserved byte zero");
	w = h, w.src_qp = 0x1000000;
	is_int(mpd_deth_encode(&w, b, sizeof(b)), MPD_ERANGE,
	       "DETH SrcQP 0x1000000");
	bad = 0;
	for (n = 0; n < MPD_DETH_LEN; n++)
		if (mpd_deth_encode(&h, b, n) != MPD_ENOSPC)
			bad++;
	is_int(bad, 0, "DETH encode into 0..7 bytes is MPD_ENOSPC");
	bad = 0;
	for (n = 0; n < MPD_DETH_LEN; n++)
		if (mpd_deth_decode(g, n, &d) != MPD_ETRUNC)
			bad++;
	is_int(bad, 0, "DETH decode of 0..7 bytes is MPD_ETRUNC");
}

/* ---- extension headers after the BTH (IBA 9.3) -------------------------- */

/* Big-endian bytes written out by hand, not with the codec's helpers. */
static void
put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	while (n--) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

/* Encode/decode of one header kind through a common signature. */
struct ext_kind {
	const char *name;
	size_t len;
	int (*enc)(const void *h, uint8_t *buf, size_t cap);
	int (*dec)(const uint8_t *buf, size_t len, void *h);
	void (*rnd)(void *h);
	const void *golden_obj;
	const uint8_t *golden;
};

static int
enc_reth(const void *h, uint8_t *b, size_t c)
{
	return mpd_reth_encode(h, b, c);
}

static int
dec_reth(const uint8_t *b, size_t n, void *h)
{
	return mpd_reth_decode(b, n, h);
}

static void
rnd_reth(void *v)
{
	struct mpd_reth *h = v;

	h->va = rnd64();
	h->rkey = (uint32_t)rnd64();
	h->dma_len = (uint32_t)rnd64();
}

static int
enc_aeth(const void *h, uint8_t *b, size_t c)
{
	return mpd_aeth_encode(h, b, c);
}

static int
dec_aeth(const uint8_t *b, size_t n, void *h)
{
	return mpd_aeth_decode(b, n, h);
}

static void
rnd_aeth(void *v)
{
	struct mpd_aeth *h = v;

	h->syndrome = (uint8_t)rnd64();
	h->msn = (uint32_t)rnd_bits(24);
}

static int
enc_atomic(const void *h, uint8_t *b, size_t c)
{
	return mpd_atomic_eth_encode(h, b, c);
}

static int
dec_atomic(const uint8_t *b, size_t n, void *h)
{
	return mpd_atomic_eth_decode(b, n, h);
}

static void
rnd_atomic(void *v)
{
	struct mpd_atomic_eth *h = v;

	h->va = rnd64();
	h->rkey = (uint32_t)rnd64();
	h->swap_add = rnd64();
	h->compare = rnd64();
}

static int
enc_atomic_ack(const void *h, uint8_t *b, size_t c)
{
	return mpd_atomic_ack_encode(*(const uint64_t *)h, b, c);
}

static int
dec_atomic_ack(const uint8_t *b, size_t n, void *h)
{
	return mpd_atomic_ack_decode(b, n, h);
}

static void
rnd_atomic_ack(void *v)
{
	*(uint64_t *)v = rnd64();
}

/* RETH: VA, R_Key, DMA Length */
static const uint8_t g_reth[MPD_RETH_LEN] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x00, 0x00,
};
static const struct mpd_reth o_reth = {
	.va = 0x0123456789abcdefull, .rkey = 0xdeadbeef, .dma_len = 0x10000,
};
/* AETH: Syndrome (NAK, remote access error), MSN */
static const uint8_t g_aeth[MPD_AETH_LEN] = { 0x62, 0x12, 0x34, 0x56 };
static const struct mpd_aeth o_aeth = {
	.syndrome = MPD_AETH_NAK | MPD_NAK_REM_ACCESS, .msn = 0x123456,
};
/* AtomicETH: VA, R_Key, Swap (Add) Data, Compare Data */
static const uint8_t g_atomic[MPD_ATOMIC_ETH_LEN] = {
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0xf0, 0xe0, 0xd0, 0xc0, 0xb0, 0xa0, 0x90, 0x80,
};
static const struct mpd_atomic_eth o_atomic = {
	.va = 0x1122334455667788ull, .rkey = 0x99aabbcc,
	.swap_add = 0x0102030405060708ull, .compare = 0xf0e0d0c0b0a09080ull,
};
/* AtomicAckETH: Original Remote Data */
static const uint8_t g_atomic_ack[MPD_ATOMIC_ACK_LEN] = {
	0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
};
static const uint64_t o_atomic_ack = 0xfedcba9876543210ull;

static void
test_ext_kind(const struct ext_kind *k)
{
	union {
		struct mpd_reth reth;
		struct mpd_aeth aeth;
		struct mpd_atomic_eth atomic;
		uint64_t orig;
	} d, w;
	uint8_t b[64], b2[64];
	size_t n;
	int bad = 0;

	memset(b, 0xee, sizeof(b));
	is_int(k->enc(k->golden_obj, b, sizeof(b)), k->len, "%s encode",
	       k->name);
	ok(memcmp(b, k->golden, k->len) == 0 && b[k->len] == 0xee,
	   "%s golden bytes, nothing written past them", k->name);
	memset(&d, 0x5a, sizeof(d));
	is_int(k->dec(k->golden, k->len, &d), k->len, "%s decode", k->name);
	memset(b, 0xee, sizeof(b));
	ok(k->enc(&d, b, k->len) == (int)k->len &&
	   memcmp(b, k->golden, k->len) == 0,
	   "%s decoded from the golden bytes encodes them again", k->name);
	for (n = 0; n < 1000; n++) {
		memset(&w, 0, sizeof(w));
		k->rnd(&w);
		if (k->enc(&w, b, k->len) != (int)k->len ||
		    k->dec(b, k->len, &d) != (int)k->len ||
		    k->enc(&d, b2, k->len) != (int)k->len ||
		    memcmp(b, b2, k->len) != 0)
			bad++;
	}
	is_int(bad, 0, "%s random round trips", k->name);
	bad = 0;
	for (n = 0; n < k->len; n++)
		if (k->enc(k->golden_obj, b, n) != MPD_ENOSPC ||
		    k->dec(k->golden, n, &d) != MPD_ETRUNC)
			bad++;
	is_int(bad, 0, "%s: encode into 0..%zu bytes is MPD_ENOSPC, decode "
	       "of them MPD_ETRUNC", k->name, k->len - 1);
}

static void
test_ext_hdrs(void)
{
	static const struct ext_kind kinds[] = {
		{ "RETH", MPD_RETH_LEN, enc_reth, dec_reth, rnd_reth,
		  &o_reth, g_reth },
		{ "AETH", MPD_AETH_LEN, enc_aeth, dec_aeth, rnd_aeth,
		  &o_aeth, g_aeth },
		{ "AtomicETH", MPD_ATOMIC_ETH_LEN, enc_atomic, dec_atomic,
		  rnd_atomic, &o_atomic, g_atomic },
		{ "AtomicAckETH", MPD_ATOMIC_ACK_LEN, enc_atomic_ack,
		  dec_atomic_ack, rnd_atomic_ack, &o_atomic_ack,
		  g_atomic_ack },
	};
	struct mpd_reth r;
	struct mpd_aeth a;
	struct mpd_atomic_eth t;
	uint64_t orig;
	uint8_t b[MPD_ATOMIC_ETH_LEN];
	size_t i;

	is_int(MPD_RETH_LEN, 16, "RETH is 16 bytes");
	is_int(MPD_AETH_LEN, 4, "AETH is 4 bytes");
	is_int(MPD_ATOMIC_ETH_LEN, 28, "AtomicETH is 28 bytes");
	is_int(MPD_ATOMIC_ACK_LEN, 8, "AtomicAckETH is 8 bytes");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		test_ext_kind(&kinds[i]);

	ok(mpd_reth_decode(g_reth, sizeof(g_reth), &r) == MPD_RETH_LEN &&
	   r.va == o_reth.va && r.rkey == o_reth.rkey &&
	   r.dma_len == o_reth.dma_len, "RETH golden fields");
	ok(mpd_aeth_decode(g_aeth, sizeof(g_aeth), &a) == MPD_AETH_LEN &&
	   a.syndrome == 0x62 && a.msn == 0x123456 &&
	   (a.syndrome & MPD_AETH_TYPE_MASK) == MPD_AETH_NAK &&
	   (a.syndrome & 0x1f) == MPD_NAK_REM_ACCESS,
	   "AETH golden fields: NAK, remote access error, MSN 0x123456");
	ok(mpd_atomic_eth_decode(g_atomic, sizeof(g_atomic), &t) ==
	   MPD_ATOMIC_ETH_LEN && t.va == o_atomic.va &&
	   t.rkey == o_atomic.rkey && t.swap_add == o_atomic.swap_add &&
	   t.compare == o_atomic.compare, "AtomicETH golden fields");
	ok(mpd_atomic_ack_decode(g_atomic_ack, sizeof(g_atomic_ack), &orig) ==
	   MPD_ATOMIC_ACK_LEN && orig == o_atomic_ack,
	   "AtomicAckETH golden field");
	a = o_aeth;
	a.msn = 1u << 24;
	is_int(mpd_aeth_encode(&a, b, sizeof(b)), MPD_ERANGE,
	       "AETH MSN of 25 bits is MPD_ERANGE");
	a.msn = 0xffffff;
	a.syndrome = 0xff;
	ok(mpd_aeth_encode(&a, b, sizeof(b)) == MPD_AETH_LEN &&
	   b[0] == 0xff && b[1] == 0xff && b[2] == 0xff && b[3] == 0xff,
	   "AETH all ones");
}

/* IBA 9.2 Table 35, written out again: the headers after the BTH of each
 * opcode this codec carries. */
static const struct {
	uint8_t op;
	uint32_t hdrs;
	const char *name;
} op_table[] = {
#define P MPD_HDR_PAYLOAD
	{ 0x00, P, "RC SEND First" },
	{ 0x01, P, "RC SEND Middle" },
	{ 0x02, P, "RC SEND Last" },
	{ 0x03, MPD_HDR_IMM | P, "RC SEND Last with Immediate" },
	{ 0x04, P, "RC SEND Only" },
	{ 0x05, MPD_HDR_IMM | P, "RC SEND Only with Immediate" },
	{ 0x06, MPD_HDR_RETH | P, "RC RDMA WRITE First" },
	{ 0x07, P, "RC RDMA WRITE Middle" },
	{ 0x08, P, "RC RDMA WRITE Last" },
	{ 0x09, MPD_HDR_IMM | P, "RC RDMA WRITE Last with Immediate" },
	{ 0x0a, MPD_HDR_RETH | P, "RC RDMA WRITE Only" },
	{ 0x0b, MPD_HDR_RETH | MPD_HDR_IMM | P,
	  "RC RDMA WRITE Only with Immediate" },
	{ 0x0c, MPD_HDR_RETH, "RC RDMA READ Request" },
	{ 0x0d, MPD_HDR_AETH | P, "RC RDMA READ response First" },
	{ 0x0e, P, "RC RDMA READ response Middle" },
	{ 0x0f, MPD_HDR_AETH | P, "RC RDMA READ response Last" },
	{ 0x10, MPD_HDR_AETH | P, "RC RDMA READ response Only" },
	{ 0x11, MPD_HDR_AETH, "RC Acknowledge" },
	{ 0x12, MPD_HDR_AETH | MPD_HDR_ATOMIC_ACK, "RC ATOMIC Acknowledge" },
	{ 0x13, MPD_HDR_ATOMIC, "RC CmpSwap" },
	{ 0x14, MPD_HDR_ATOMIC, "RC FetchAdd" },
	{ 0x16, MPD_HDR_IETH | P, "RC SEND Last with Invalidate" },
	{ 0x17, MPD_HDR_IETH | P, "RC SEND Only with Invalidate" },
	{ 0x20, P, "UC SEND First" },
	{ 0x21, P, "UC SEND Middle" },
	{ 0x22, P, "UC SEND Last" },
	{ 0x23, MPD_HDR_IMM | P, "UC SEND Last with Immediate" },
	{ 0x24, P, "UC SEND Only" },
	{ 0x25, MPD_HDR_IMM | P, "UC SEND Only with Immediate" },
	{ 0x26, MPD_HDR_RETH | P, "UC RDMA WRITE First" },
	{ 0x27, P, "UC RDMA WRITE Middle" },
	{ 0x28, P, "UC RDMA WRITE Last" },
	{ 0x29, MPD_HDR_IMM | P, "UC RDMA WRITE Last with Immediate" },
	{ 0x2a, MPD_HDR_RETH | P, "UC RDMA WRITE Only" },
	{ 0x2b, MPD_HDR_RETH | MPD_HDR_IMM | P,
	  "UC RDMA WRITE Only with Immediate" },
	{ 0x64, MPD_HDR_DETH | P, "UD SEND Only" },
	{ 0x65, MPD_HDR_DETH | MPD_HDR_IMM | P,
	  "UD SEND Only with Immediate" },
#undef P
};

#define N_OPS	(sizeof(op_table) / sizeof(op_table[0]))

static void
test_op_hdrs(void)
{
	unsigned int op, bad = 0, zero = 0;
	size_t i;

	for (op = 0; op < 256; op++) {
		uint32_t want = 0;

		for (i = 0; i < N_OPS; i++)
			if (op_table[i].op == op)
				want = op_table[i].hdrs;
		if (mpd_op_hdrs((uint8_t)op) != want && !bad++)
			tap_diag("opcode 0x%02x: 0x%x, want 0x%x", op,
				 mpd_op_hdrs((uint8_t)op), want);
		zero += want == 0;
	}
	is_int(bad, 0, "mpd_op_hdrs: the %zu RC/UC/UD opcodes of IBA 9.2 "
	       "Table 35 and 0 for the %u others", N_OPS, zero);
	is_int(mpd_op_hdrs(0x15), 0, "mpd_op_hdrs: RC 0x15 (reserved) is 0");
	is_int(mpd_op_hdrs(0x40), 0, "mpd_op_hdrs: RD SEND First is 0");
	is_int(mpd_op_hdrs(0x81), 0, "mpd_op_hdrs: CNP is 0");
	is_int(mpd_op_hdrs(0x2c), 0, "mpd_op_hdrs: UC has no READ request");
	is_int(mpd_op_hdrs(0x36), 0, "mpd_op_hdrs: UC has no SEND with "
	       "Invalidate");
	is_int(mpd_op_hdrs(0x60), 0, "mpd_op_hdrs: UD has no SEND First");
	is_int(mpd_op_hdrs(MPD_OP_UD_SEND_ONLY), MPD_HDR_DETH | MPD_HDR_PAYLOAD,
	       "mpd_op_hdrs: UD SEND Only is DETH + payload");
}

/* The class of each opcode, read from its name in IBA 9.2 Table 35 */
static uint32_t
class_of_name(const char *name)
{
	bool single = strstr(name, "Only") || strstr(name, "Request") ||
		      strstr(name, "Acknowledge") || strstr(name, "CmpSwap") ||
		      strstr(name, "FetchAdd");
	uint32_t c;

	if (strstr(name, "ATOMIC Acknowledge"))
		c = MPD_OPC_ATOMIC_ACK;
	else if (strstr(name, "Acknowledge"))
		c = MPD_OPC_ACK;
	else if (strstr(name, "CmpSwap") || strstr(name, "FetchAdd"))
		c = MPD_OPC_ATOMIC;
	else if (strstr(name, "READ Request"))
		c = MPD_OPC_READ;
	else if (strstr(name, "READ response"))
		c = MPD_OPC_READ_RESP;
	else if (strstr(name, "WRITE"))
		c = MPD_OPC_WRITE;
	else
		c = MPD_OPC_SEND;
	if (single || strstr(name, "First"))
		c |= MPD_OPC_FIRST;
	if (single || strstr(name, "Last"))
		c |= MPD_OPC_LAST;
	return c;
}

static void
test_op_mask(void)
{
	unsigned int op, bad = 0;
	size_t i;

	for (op = 0; op < 256; op++) {
		uint32_t want = 0;

		for (i = 0; i < N_OPS; i++)
			if (op_table[i].op == op)
				want = op_table[i].hdrs |
				       class_of_name(op_table[i].name);
		if (mpd_op_mask((uint8_t)op) != want && !bad++)
			tap_diag("opcode 0x%02x: 0x%x, want 0x%x", op,
				 mpd_op_mask((uint8_t)op), want);
	}
	is_int(bad, 0, "mpd_op_mask: each opcode's headers and class (SEND, "
	       "WRITE, READ, atomic, response, ACK; First, Last) as its name "
	       "in IBA 9.2 Table 35 says; 0 for the others");
}

/* ---- whole packets ------------------------------------------------------ */

struct cfg {
	char name[40];
	enum mpd_link link;
	bool grh;	/* IB */
	bool vlan;	/* RoCE */
	uint8_t ip_ver;	/* RoCEv2 */
	bool imm;
};

static struct cfg cfgs[16];
static size_t ncfgs;

static void
cfgs_init(void)
{
	static const char *const imm_s[] = { "", " imm" };
	static const char *const vlan_s[] = { "", " VLAN" };
	unsigned int a, b, v;

	for (b = 0; b < 2; b++)
		for (a = 0; a < 2; a++) {
			struct cfg *c = &cfgs[ncfgs++];

			c->link = MPD_LINK_IB;
			c->grh = a;
			c->imm = b;
			snprintf(c->name, sizeof(c->name), "IB LRH%s%s",
				 a ? "+GRH" : "", imm_s[b]);
		}
	for (b = 0; b < 2; b++)
		for (a = 0; a < 2; a++) {
			struct cfg *c = &cfgs[ncfgs++];

			c->link = MPD_LINK_ROCE_V1;
			c->vlan = a;
			c->imm = b;
			snprintf(c->name, sizeof(c->name), "RoCEv1%s%s",
				 vlan_s[a], imm_s[b]);
		}
	for (v = 4; v <= 6; v += 2)
		for (b = 0; b < 2; b++)
			for (a = 0; a < 2; a++) {
				struct cfg *c = &cfgs[ncfgs++];

				c->link = MPD_LINK_ROCE_V2;
				c->ip_ver = (uint8_t)v;
				c->vlan = a;
				c->imm = b;
				snprintf(c->name, sizeof(c->name),
					 "RoCEv2 IPv%u%s%s", v, vlan_s[a],
					 imm_s[b]);
			}
}

static const struct cfg *
find_cfg(enum mpd_link link, bool grh, bool vlan, uint8_t ip_ver, bool imm)
{
	size_t i;

	for (i = 0; i < ncfgs; i++)
		if (cfgs[i].link == link && cfgs[i].grh == grh &&
		    cfgs[i].vlan == vlan && cfgs[i].ip_ver == ip_ver &&
		    cfgs[i].imm == imm)
			return &cfgs[i];
	abort();
}

/* Bytes before the BTH, from the layouts. */
static size_t
cfg_hdr_len(const struct cfg *c)
{
	switch (c->link) {
	case MPD_LINK_IB:
		return 8 + (c->grh ? 40 : 0);
	case MPD_LINK_ROCE_V1:
		return 14 + (c->vlan ? 4 : 0) + 40;
	default:
		return 14 + (c->vlan ? 4 : 0) + (c->ip_ver == 4 ? 20 : 40) + 8;
	}
}

/* ext: bytes of extension headers between BTH and payload */
static size_t
cfg_frame_len_ext(const struct cfg *c, size_t ext, size_t plen)
{
	return cfg_hdr_len(c) + 12 + ext + ((plen + 3) & ~(size_t)3) + 4 +
	       (c->link == MPD_LINK_IB ? 2 : 0);
}

static size_t
cfg_frame_len(const struct cfg *c, size_t plen)
{
	return cfg_frame_len_ext(c, 8 + (c->imm ? 4 : 0), plen);
}

static size_t
cfg_icrc_off(const struct cfg *c, size_t total)
{
	return total - 4 - (c->link == MPD_LINK_IB ? 2 : 0);
}

static void
fill_pkt(const struct cfg *c, struct mpd_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->link = c->link;
	if (c->link == MPD_LINK_IB) {
		p->lrh.vl = (uint8_t)rnd_bits(4);
		p->lrh.sl = (uint8_t)rnd_bits(4);
		p->lrh.dlid = (uint16_t)rnd64();
		p->lrh.slid = (uint16_t)rnd64();
		p->has_grh = c->grh;
	} else {
		rnd_bytes(p->eth.dst, 6);
		rnd_bytes(p->eth.src, 6);
		p->eth.has_vlan = c->vlan;
		if (c->vlan)
			p->eth.vlan_tci = (uint16_t)rnd64();
	}
	if (c->grh || c->link == MPD_LINK_ROCE_V1) {
		p->grh.ip_ver = 6;
		p->grh.tclass = (uint8_t)rnd64();
		p->grh.flow_label = (uint32_t)rnd_bits(20);
		p->grh.next_hdr = MPD_GRH_NEXT_HDR_IBA;
		p->grh.hop_limit = (uint8_t)rnd64();
		rnd_bytes(p->grh.sgid, 16);
		rnd_bytes(p->grh.dgid, 16);
	}
	if (c->link == MPD_LINK_ROCE_V2) {
		p->ip_ver = c->ip_ver;
		p->ip4.tos = (uint8_t)rnd64();
		p->ip4.id = (uint16_t)rnd64();
		p->ip4.frag = 0x4000;	/* DF */
		p->ip4.ttl = (uint8_t)rnd64();
		rnd_bytes(p->ip4.src, 4);
		rnd_bytes(p->ip4.dst, 4);
		p->ip6.tclass = (uint8_t)rnd64();
		p->ip6.flow_label = (uint32_t)rnd_bits(20);
		p->ip6.hop_limit = (uint8_t)rnd64();
		rnd_bytes(p->ip6.src, 16);
		rnd_bytes(p->ip6.dst, 16);
		if (c->ip_ver == 4)
			memset(&p->ip6, 0, sizeof(p->ip6));
		else
			memset(&p->ip4, 0, sizeof(p->ip4));
		p->udp.sport = (uint16_t)(0xc000 | rnd_bits(14));
		p->udp.dport = MPD_ROCE_UDP_PORT;
	}
	p->bth.opcode = c->imm ? MPD_OP_UD_SEND_ONLY_IMM : MPD_OP_UD_SEND_ONLY;
	p->bth.se = (uint8_t)rnd_bits(1);
	p->bth.mig_req = (uint8_t)rnd_bits(1);
	p->bth.pkey = (uint16_t)rnd64();
	p->bth.resv8a = (uint8_t)rnd64();
	p->bth.dest_qp = (uint32_t)rnd_bits(24);
	p->bth.ack_req = (uint8_t)rnd_bits(1);
	p->bth.psn = (uint32_t)rnd_bits(24);
	p->deth.qkey = (uint32_t)rnd64();
	p->deth.src_qp = (uint32_t)rnd_bits(24);
	if (c->imm)
		p->imm = (uint32_t)rnd64();
}

/* The bytes of an encoded frame against the layouts, with opcode op and
 * ext bytes of extension headers after the BTH; NULL when right. */
static const char *
check_bytes_op(const struct cfg *c, const uint8_t *f, size_t total,
	       uint8_t op, size_t ext, const uint8_t *payload, size_t plen)
{
	size_t pad = (4 - plen % 4) % 4, icrc_off = cfg_icrc_off(c, total);
	size_t bth = cfg_hdr_len(c), l3, data;
	const uint8_t *ip, *udp;
	size_t i;

	if (c->link == MPD_LINK_IB) {
		if ((f[0] & 0x0f) != 0)
			return "LRH LVer";
		if ((f[1] & 3) != (c->grh ? 3 : 2))
			return "LRH LNH";
		if ((mpd_get_be16(f + 4) & 0x7ff) * 4u != total - 2)
			return "LRH PktLen";
		if (c->grh && (f[8] >> 4 != 6 || f[14] != 0x1b ||
			       mpd_get_be16(f + 12) != total - 2 - 48))
			return "GRH IPVer/NxtHdr/PayLen";
		if (le16_at(f + total - 2) != ref_vcrc(f, total - 2))
			return "VCRC";
	} else {
		l3 = roce_l3(f);
		if (l3 != (c->vlan ? 18u : 14u))
			return "VLAN tag";
		ip = f + l3;
		if (c->link == MPD_LINK_ROCE_V1) {
			if (mpd_get_be16(f + l3 - 2) != MPD_ETHERTYPE_ROCE)
				return "RoCEv1 ethertype";
			if (ip[0] >> 4 != 6 || ip[6] != 0x1b ||
			    mpd_get_be16(ip + 4) != total - l3 - 40)
				return "RoCEv1 GRH";
		} else if (c->ip_ver == 4) {
			udp = ip + 20;
			if (mpd_get_be16(f + l3 - 2) != MPD_ETHERTYPE_IPV4)
				return "IPv4 ethertype";
			if (ip[0] != 0x45 || ip[9] != 17 ||
			    mpd_get_be16(ip + 2) != total - l3)
				return "IPv4 version/IHL/proto/total length";
			if (ref_inet_sum(0, ip, 20) != 0xffff)
				return "IPv4 header checksum";
			if (mpd_get_be16(udp + 2) != 4791 ||
			    mpd_get_be16(udp + 4) != total - l3 - 20 ||
			    mpd_get_be16(udp + 6) != 0)
				return "UDP over IPv4";
		} else {
			uint32_t sum = 17;

			udp = ip + 40;
			if (mpd_get_be16(f + l3 - 2) != MPD_ETHERTYPE_IPV6)
				return "IPv6 ethertype";
			if (ip[0] >> 4 != 6 || ip[6] != 17 ||
			    mpd_get_be16(ip + 4) != total - l3 - 40)
				return "IPv6 version/next header/payload length";
			if (mpd_get_be16(udp + 2) != 4791 ||
			    mpd_get_be16(udp + 4) != total - l3 - 40)
				return "UDP over IPv6";
			/* pseudo header: addresses, length, next header */
			sum += ref_inet_sum(0, ip + 8, 32);
			sum += (uint32_t)(total - l3 - 40);
			if (mpd_get_be16(udp + 6) == 0 ||
			    ref_inet_sum(sum, udp, total - l3 - 40) != 0xffff)
				return "UDP checksum over IPv6";
		}
	}
	if (f[bth] != op || ((f[bth + 1] >> 4) & 3) != pad)
		return "BTH opcode/PadCnt";
	data = bth + 12 + ext;
	if (plen && memcmp(f + data, payload, plen) != 0)
		return "payload";
	for (i = 0; i < pad; i++)
		if (f[data + plen + i] != 0)
			return "pad bytes";
	if (data + plen + pad != icrc_off)
		return "ICRC offset";
	if (le32_at(f + icrc_off) != ref_icrc(c->link, f, icrc_off))
		return "ICRC";
	return NULL;
}

static const char *
check_bytes(const struct cfg *c, const uint8_t *f, size_t total,
	    const uint8_t *payload, size_t plen)
{
	return check_bytes_op(c, f, total, c->imm ? 0x65 : 0x64,
			      8 + (c->imm ? 4 : 0), payload, plen);
}

#define DIFF(f) do { if (a->f != b->f) return #f; } while (0)
#define DIFFM(f) do {							\
		if (memcmp(a->f, b->f, sizeof(a->f)) != 0)		\
			return #f;					\
	} while (0)

/* The first field in which a decoded packet differs from the encoded one. */
static const char *
pkt_diff(const struct mpd_pkt *a, const struct mpd_pkt *b)
{
	DIFF(link);
	DIFF(lrh.vl); DIFF(lrh.lver); DIFF(lrh.sl); DIFF(lrh.lnh);
	DIFF(lrh.dlid); DIFF(lrh.pkt_len); DIFF(lrh.slid);
	DIFF(has_grh);
	DIFF(grh.ip_ver); DIFF(grh.tclass); DIFF(grh.flow_label);
	DIFF(grh.pay_len); DIFF(grh.next_hdr); DIFF(grh.hop_limit);
	DIFFM(grh.sgid); DIFFM(grh.dgid);
	DIFFM(eth.dst); DIFFM(eth.src); DIFF(eth.has_vlan);
	DIFF(eth.vlan_tci); DIFF(eth.ethertype);
	DIFF(ip_ver);
	DIFF(ip4.tos); DIFF(ip4.total_len); DIFF(ip4.id); DIFF(ip4.frag);
	DIFF(ip4.ttl); DIFF(ip4.proto); DIFF(ip4.csum);
	DIFFM(ip4.src); DIFFM(ip4.dst);
	DIFF(ip6.tclass); DIFF(ip6.flow_label); DIFF(ip6.pay_len);
	DIFF(ip6.next_hdr); DIFF(ip6.hop_limit);
	DIFFM(ip6.src); DIFFM(ip6.dst);
	DIFF(udp.sport); DIFF(udp.dport); DIFF(udp.len); DIFF(udp.csum);
	DIFF(bth.opcode); DIFF(bth.se); DIFF(bth.mig_req); DIFF(bth.pad_cnt);
	DIFF(bth.tver); DIFF(bth.pkey); DIFF(bth.resv8a); DIFF(bth.dest_qp);
	DIFF(bth.ack_req); DIFF(bth.psn);
	DIFF(deth.qkey); DIFF(deth.src_qp);
	DIFF(reth.va); DIFF(reth.rkey); DIFF(reth.dma_len);
	DIFF(atomic.va); DIFF(atomic.rkey); DIFF(atomic.swap_add);
	DIFF(atomic.compare);
	DIFF(aeth.syndrome); DIFF(aeth.msn);
	DIFF(atomic_orig);
	DIFF(imm); DIFF(ieth);
	DIFF(payload_len); DIFF(bth_off); DIFF(icrc); DIFF(vcrc);
	return NULL;
}

#undef DIFF
#undef DIFFM

/* Encode a packet of config c with plen random payload bytes into frame. */
static size_t
build(const struct cfg *c, size_t plen, struct mpd_pkt *p, uint8_t *payload)
{
	int rc;

	fill_pkt(c, p);
	rnd_bytes(payload, plen);
	rc = mpd_pkt_encode(p, payload, plen, frame, sizeof(frame));
	if (rc <= 0) {
		tap_diag("%s: encode of %zu bytes failed: %d", c->name, plen,
			 rc);
		abort();
	}
	return (size_t)rc;
}

static uint8_t *
dup_exact(const uint8_t *f, size_t len)
{
	uint8_t *d = malloc(len ? len : 1);

	if (!d)
		abort();
	if (len)
		memcpy(d, f, len);
	return d;
}

static int
decode_exact(enum mpd_link link, const uint8_t *f, size_t len,
	     unsigned int flags, struct mpd_pkt *p)
{
	uint8_t *d = dup_exact(f, len);
	int rc = mpd_pkt_decode(link, d, len, flags, p);

	free(d);
	return rc;
}

static void
test_pkt_round_trips(void)
{
	static uint8_t payload[300];
	struct mpd_pkt p, q;
	size_t i, plen, total;

	for (i = 0; i < ncfgs; i++) {
		const struct cfg *c = &cfgs[i];
		const char *why = NULL;
		size_t bad = 0, first_len = 0;
		int rc;

		for (plen = 0; plen <= 260; plen++) {
			uint8_t *d;
			uint32_t icrc = 0;

			total = build(c, plen, &p, payload);
			if (total != cfg_frame_len(c, plen))
				why = "frame length";
			else
				why = check_bytes(c, frame, total, payload,
						  plen);
			d = dup_exact(frame, total);
			rc = mpd_pkt_decode(c->link, d, total, 0, &q);
			if (!why && rc != MPD_OK)
				why = mpd_strerror(rc);
			if (!why)
				why = pkt_diff(&p, &q);
			if (!why && (q.payload != d + p.bth_off + 20 +
				     (c->imm ? 4 : 0) ||
				     memcmp(q.payload, payload, plen) != 0))
				why = "decoded payload";
			if (!why && q.bth.pad_cnt != (4 - plen % 4) % 4)
				why = "pad count";
			if (!why && q.icrc != le32_at(d +
						      cfg_icrc_off(c, total)))
				why = "decoded ICRC is not the stored one";
			if (!why && (mpd_pkt_icrc(c->link, d, total, &icrc) !=
				     MPD_OK || icrc != q.icrc))
				why = "mpd_pkt_icrc disagrees with the frame";
			free(d);
			if (why && !bad++)
				first_len = plen;
			if (why && bad == 1)
				tap_diag("%s, payload %zu: %s", c->name, plen,
					 why);
			why = NULL;
		}
		ok(bad == 0, "%s: encode/decode round trips, payload 0..260 "
		   "(pad 0..3), bytes checked against the layouts",
		   c->name);
		if (bad)
			tap_diag("%zu failures, first at payload %zu", bad,
				 first_len);
	}
}

/*
 * MPD_PKT_CRC_LATER: an IB frame encoded with it is the same frame with
 * its ICRC and VCRC zero, and mpd_pkt_crc_fill() makes it the frame
 * mpd_pkt_encode() makes; a frame with a non-zero ICRC is left alone, a
 * RoCE frame gets its CRCs anyway, and a cut frame is refused untouched.
 */
static void
test_pkt_crc_later(void)
{
	static uint8_t payload[300];
	uint8_t full[FRAME_MAX], *d;
	size_t i, plen, total, bad, bad_fill, bad_roce, bad_cut;
	struct mpd_pkt p, q;
	int rc;

	for (i = 0; i < ncfgs; i++) {
		const struct cfg *c = &cfgs[i];

		bad = bad_fill = bad_roce = bad_cut = 0;
		for (plen = 0; plen <= 260; plen += 13) {
			total = build(c, plen, &p, payload);
			memcpy(full, frame, total);
			/* the same packet again (encode only set its
			 * outputs), CRCs later */
			rc = mpd_pkt_encode_flags(&p, payload, plen, frame,
						  sizeof(frame),
						  MPD_PKT_CRC_LATER);
			if (rc != (int)total) {
				bad++;
				continue;
			}
			if (c->link != MPD_LINK_IB) {
				/* RoCE: its CRCs made at once, the fill
				 * refuses the link */
				bad_roce += memcmp(frame, full, total) != 0 ||
					    mpd_pkt_crc_fill(c->link, frame,
							     total) !=
					    MPD_EINVAL;
				continue;
			}
			/* everything but the last 6 bytes, which are zero */
			bad += memcmp(frame, full, total - 6) != 0 ||
			       memcmp(frame + total - 6, "\0\0\0\0\0\0",
				      6) != 0 ||
			       p.icrc != 0 || p.vcrc != 0;
			/* decodes unchecked, not checked */
			bad += mpd_pkt_decode(c->link, frame, total,
					      MPD_PKT_NO_ICRC_CHECK |
					      MPD_PKT_NO_VCRC_CHECK, &q) !=
				       MPD_OK ||
			       mpd_pkt_decode(c->link, frame, total, 0, &q) ==
				       MPD_OK;
			/* cut short: nothing written (its last bytes are no
			 * ICRC of zero, or it does not parse) */
			d = dup_exact(frame, total - 1);
			bad_cut += mpd_pkt_crc_fill(c->link, d, total - 1) > 0 ||
				   memcmp(d, frame, total - 1) != 0;
			free(d);
			/* an LRH PktLen that is not the frame's: refused */
			d = dup_exact(frame, total);
			d[5] ^= 1;
			bad_cut += mpd_pkt_crc_fill(c->link, d, total) >= 0 ||
				   memcmp(d + 6, frame + 6, total - 6) != 0;
			free(d);
			d = dup_exact(frame, total);
			bad_fill += mpd_pkt_crc_fill(c->link, d, total) != 1 ||
				    memcmp(d, full, total) != 0 ||
				    mpd_pkt_decode(c->link, d, total, 0, &q) !=
					    MPD_OK;
			/* filled: a second fill sees its ICRC, leaves it */
			bad_fill += mpd_pkt_crc_fill(c->link, d, total) != 0 ||
				    memcmp(d, full, total) != 0;
			/* a VCRC that is wrong, ICRC not zero: left wrong */
			d[total - 1] ^= 0x40;
			bad_fill += mpd_pkt_crc_fill(c->link, d, total) != 0 ||
				    d[total - 1] == full[total - 1];
			free(d);
		}
		if (c->link == MPD_LINK_IB) {
			ok(bad == 0, "%s: MPD_PKT_CRC_LATER leaves ICRC and "
			   "VCRC zero, the rest as mpd_pkt_encode", c->name);
			ok(bad_fill == 0, "%s: mpd_pkt_crc_fill makes them "
			   "(the frame mpd_pkt_encode makes), once",
			   c->name);
			ok(bad_cut == 0, "%s: mpd_pkt_crc_fill writes nothing "
			   "into a frame cut short or with a wrong PktLen",
			   c->name);
		} else {
			ok(bad == 0 && bad_roce == 0, "%s: MPD_PKT_CRC_LATER "
			   "changes nothing on RoCE, the fill refuses it",
			   c->name);
		}
	}
}

static void
test_pkt_truncated(void)
{
	static uint8_t payload[64];
	struct mpd_pkt p, q;
	size_t i, n, total;

	for (i = 0; i < ncfgs; i++) {
		const struct cfg *c = &cfgs[i];
		size_t bad = 0, bad_icrc = 0;

		total = build(c, 37, &p, payload);
		for (n = 0; n < total; n++) {
			uint32_t icrc;
			int rc = decode_exact(c->link, frame, n, 0, &q);

			if (rc >= 0 || rc < MPD_EOPCODE) {
				if (!bad++)
					tap_diag("%s cut to %zu bytes: %d",
						 c->name, n, rc);
			}
			rc = mpd_pkt_decode(c->link, frame, n,
					    MPD_PKT_NO_ICRC_CHECK |
					    MPD_PKT_NO_VCRC_CHECK, &q);
			if (rc >= 0)
				bad++;
			{
				uint8_t *d = dup_exact(frame, n);

				if (mpd_pkt_icrc(c->link, d, n, &icrc) >= 0)
					bad_icrc++;
				free(d);
			}
		}
		ok(bad == 0, "%s: every truncation (0..%zu of %zu bytes) is "
		   "an error, with and without CRC checks", c->name,
		   total - 1, total);
		is_int(bad_icrc, 0, "%s: mpd_pkt_icrc rejects every "
		       "truncation", c->name);
	}
}

enum expect {
	X_ICRC,		/* covered by the ICRC: MPD_EICRC */
	X_VARIANT,	/* masked out of the ICRC: IB MPD_EVCRC, RoCE OK */
	X_OUTSIDE,	/* neither ICRC nor checked (Ethernet MACs, UDP csum) */
	X_VCRC,		/* the VCRC itself */
	X_CSUM,		/* the IPv4 header checksum itself */
	X_ANY,		/* structure (versions, lengths, types): some error */
	X_NUM
};

static const char *const expect_name[X_NUM] = {
	"in the invariant part give MPD_EICRC",
	"in variant fields keep the ICRC valid",
	"outside the CRCs decode fine",
	"in the VCRC give MPD_EVCRC",
	"in the IPv4 checksum give MPD_ECSUM",
	"in structural fields give an error",
};

static enum expect
classify_grh(size_t g, unsigned int bit)
{
	if (g == 0)
		return bit >= 4 ? X_ANY : X_VARIANT;	/* IPVer | TClass */
	if (g <= 3 || g == 7)
		return X_VARIANT;	/* TClass, FlowLabel, HopLmt */
	if (g <= 6)
		return X_ANY;		/* PayLen, NxtHdr */
	return X_ICRC;			/* GIDs */
}

/* What flipping bit (0 = LSB) of byte i of a valid frame must do. */
static enum expect
classify(const struct cfg *c, size_t total, size_t i, unsigned int bit)
{
	size_t bth = cfg_hdr_len(c), icrc_off = cfg_icrc_off(c, total);
	size_t l3 = c->vlan ? 18 : 14;

	if (i >= icrc_off + 4)
		return X_VCRC;
	if (i >= bth) {
		size_t b = i - bth;

		if (b == 0)
			return X_ANY;				/* opcode */
		if (b == 1)
			return bit >= 6 ? X_ICRC : X_ANY;	/* SE M | Pad TVer */
		if (b == 4)
			return X_VARIANT;			/* resv8a */
		return X_ICRC;
	}
	if (c->link == MPD_LINK_IB) {
		if (i == 0)
			return bit >= 4 ? X_VARIANT : X_ANY;	/* VL | LVer */
		if (i == 1)
			return bit < 2 ? X_ANY : X_ICRC;	/* LNH | SL */
		if (i == 4)
			return bit < 3 ? X_ANY : X_ICRC;	/* PktLen | rsv */
		if (i == 5)
			return X_ANY;
		if (i < MPD_LRH_LEN)
			return X_ICRC;				/* LIDs */
		return classify_grh(i - MPD_LRH_LEN, bit);
	}
	if (i < 12)
		return X_OUTSIDE;				/* MACs */
	if (c->vlan && (i == 14 || i == 15))
		return X_OUTSIDE;				/* TCI */
	if (i < l3)
		return X_ANY;					/* ethertypes */
	if (c->link == MPD_LINK_ROCE_V1)
		return classify_grh(i - l3, bit);
	if (c->ip_ver == 4 && i < l3 + 20) {
		switch (i - l3) {
		case 1: case 8:
			return X_VARIANT;			/* TOS, TTL */
		case 4: case 5: case 6: case 7:
			return X_ICRC;				/* ID, frag */
		case 10: case 11:
			return X_CSUM;
		default:
			return i - l3 >= 12 ? X_ICRC : X_ANY;	/* addresses */
		}
	}
	if (c->ip_ver == 6 && i < l3 + 40)
		return classify_grh(i - l3, bit);	/* same layout */
	switch (i - (bth - MPD_UDP_LEN)) {
	case 0: case 1:
		return X_ICRC;					/* sport */
	case 6: case 7:
		return X_OUTSIDE;				/* checksum */
	default:
		return X_ANY;					/* dport, len */
	}
}

static void
test_pkt_bit_flips(void)
{
	static uint8_t payload[FLIP_PAYLOAD];
	struct mpd_pkt p, q;
	size_t i, n, total;

	for (i = 0; i < ncfgs; i++) {
		const struct cfg *c = &cfgs[i];
		bool ib = c->link == MPD_LINK_IB;
		size_t tried[X_NUM] = { 0 }, bad[X_NUM] = { 0 };
		size_t flags_bad = 0, icrc_bad = 0;
		size_t l3 = c->vlan ? 18 : 14;
		uint32_t icrc0;
		uint8_t *d;
		unsigned int bit;
		int e;

		total = build(c, FLIP_PAYLOAD, &p, payload);
		d = dup_exact(frame, total);
		icrc0 = p.icrc;
		for (n = 0; n < total; n++) {
			for (bit = 0; bit < 8; bit++) {
				enum expect x = classify(c, total, n, bit);
				bool ip4 = c->ip_ver == 4 && n >= l3 &&
					   n < l3 + MPD_IPV4_LEN;
				int rc, want;
				uint32_t icrc = 0;

				d[n] ^= (uint8_t)(1u << bit);
				if (ip4 && x != X_CSUM)
					ip4_fix_csum(d + l3);
				rc = mpd_pkt_decode(c->link, d, total, 0, &q);
				switch (x) {
				case X_ICRC:
					want = MPD_EICRC;
					break;
				case X_VARIANT:
					want = ib ? MPD_EVCRC : MPD_OK;
					break;
				case X_VCRC:
					want = MPD_EVCRC;
					break;
				case X_CSUM:
					want = MPD_ECSUM;
					break;
				case X_OUTSIDE:
					want = MPD_OK;
					break;
				default:
					want = rc < 0 && rc >= MPD_EOPCODE ?
					       rc : INT_MIN;
					break;
				}
				tried[x]++;
				if (rc != want && !bad[x]++)
					tap_diag("%s: byte %zu bit %u: got %d, "
						 "want %d", c->name, n, bit,
						 rc, want);
				/* the flags turn each check off alone */
				if (x == X_ICRC) {
					rc = mpd_pkt_decode(c->link, d, total,
						MPD_PKT_NO_ICRC_CHECK, &q);
					flags_bad += rc != (ib ? MPD_EVCRC
							       : MPD_OK);
					rc = mpd_pkt_decode(c->link, d, total,
						MPD_PKT_NO_ICRC_CHECK |
						MPD_PKT_NO_VCRC_CHECK, &q);
					flags_bad += rc != MPD_OK;
				}
				if (x == X_VARIANT || x == X_VCRC) {
					rc = mpd_pkt_decode(c->link, d, total,
						MPD_PKT_NO_VCRC_CHECK, &q);
					flags_bad += rc != MPD_OK;
				}
				if (x == X_VARIANT &&
				    (mpd_pkt_icrc(c->link, d, total, &icrc) !=
				     MPD_OK || icrc != icrc0))
					icrc_bad++;
				d[n] ^= (uint8_t)(1u << bit);
				if (ip4 && x != X_CSUM)
					ip4_fix_csum(d + l3);
			}
		}
		for (e = 0; e < X_NUM; e++)
			if (tried[e])
				ok(bad[e] == 0, "%s: %zu flipped bits %s",
				   c->name, tried[e], expect_name[e]);
		is_int(flags_bad, 0, "%s: MPD_PKT_NO_ICRC_CHECK and "
		       "MPD_PKT_NO_VCRC_CHECK skip exactly their check",
		       c->name);
		is_int(icrc_bad, 0, "%s: mpd_pkt_icrc is unchanged by the "
		       "variant fields", c->name);
		ok(memcmp(d, frame, total) == 0, "%s: frame restored",
		   c->name);
		free(d);
	}
}

static void
ib_fix_vcrc(uint8_t *f, size_t total)
{
	uint16_t v = mpd_crc16_vcrc(f, total - 2);

	f[total - 2] = (uint8_t)v;
	f[total - 1] = (uint8_t)(v >> 8);
}

/* Whole variant fields rewritten (as switches and routers do). */
static void
test_pkt_variant_fields(void)
{
	static uint8_t payload[40];
	const struct cfg *c;
	struct mpd_pkt p, q;
	size_t total, l3;
	unsigned int v;
	int bad = 0;

	c = find_cfg(MPD_LINK_IB, true, false, 0, false);
	total = build(c, 40, &p, payload);
	for (v = 0; v < 16; v++) {
		frame[0] = (uint8_t)(v << 4 | (frame[0] & 0x0f));
		ib_fix_vcrc(frame, total);
		if (mpd_pkt_decode(c->link, frame, total, 0, &q) != MPD_OK ||
		    q.lrh.vl != v || q.icrc != p.icrc)
			bad++;
	}
	is_int(bad, 0, "IB: every LRH VL keeps the ICRC valid (VCRC redone)");
	frame[8] = 0x6f;			/* TClass high nibble */
	frame[9] = 0xff;
	frame[10] = 0x00;
	frame[11] = 0x01;			/* FlowLabel */
	frame[15] = 0x01;			/* HopLmt */
	frame[MPD_LRH_LEN + MPD_GRH_LEN + 4] ^= 0xc0;	/* FECN, BECN */
	ib_fix_vcrc(frame, total);
	is_int(mpd_pkt_decode(c->link, frame, total, 0, &q), MPD_OK,
	       "IB: new GRH TClass/FlowLabel/HopLmt and BTH FECN/BECN keep "
	       "the ICRC valid");
	ok(q.grh.tclass == 0xff && q.grh.flow_label == 0xf0001 &&
	   q.grh.hop_limit == 1 && q.icrc == p.icrc,
	   "IB: the new variant values are decoded");
	frame[total - 1] ^= 1;
	is_int(mpd_pkt_decode(c->link, frame, total, 0, &q), MPD_EVCRC,
	       "IB: a VCRC bit flipped is MPD_EVCRC");
	is_int(mpd_pkt_decode(c->link, frame, total, MPD_PKT_NO_VCRC_CHECK,
			      &q), MPD_OK, "IB: ... and accepted with "
	       "MPD_PKT_NO_VCRC_CHECK");

	c = find_cfg(MPD_LINK_ROCE_V1, false, false, 0, false);
	total = build(c, 40, &p, payload);
	frame[14] = 0x60;
	memset(frame + 15, 0xab, 3);
	frame[21] = 0;
	is_int(mpd_pkt_decode(c->link, frame, total, 0, &q), MPD_OK,
	       "RoCEv1: new GRH TClass/FlowLabel/HopLmt keep the ICRC valid");

	c = find_cfg(MPD_LINK_ROCE_V2, false, true, 4, true);
	total = build(c, 40, &p, payload);
	l3 = 18;
	frame[l3 + 1] = (uint8_t)~frame[l3 + 1];	/* TOS */
	frame[l3 + 8] = (uint8_t)(frame[l3 + 8] - 1);	/* TTL */
	ip4_fix_csum(frame + l3);
	frame[l3 + 20 + 6] = 0x12;			/* UDP checksum */
	frame[l3 + 20 + 7] = 0x34;
	is_int(mpd_pkt_decode(c->link, frame, total, 0, &q), MPD_OK,
	       "RoCEv2/IPv4: new TOS, TTL (checksum fixed) and UDP checksum "
	       "keep the ICRC valid");
	ok((q.ip4.tos ^ p.ip4.tos) == 0xff &&
	   q.ip4.ttl == (uint8_t)(p.ip4.ttl - 1) && q.icrc == p.icrc,
	   "RoCEv2/IPv4: the new TOS and TTL are decoded");
	frame[l3 + 8] ^= 0x10;
	is_int(mpd_pkt_decode(c->link, frame, total, 0, &q), MPD_ECSUM,
	       "RoCEv2/IPv4: TTL changed without fixing the checksum is "
	       "MPD_ECSUM");
	is_int(mpd_pkt_decode(c->link, frame, total, MPD_PKT_NO_ICRC_CHECK,
			      &q), MPD_ECSUM,
	       "RoCEv2/IPv4: ... even with MPD_PKT_NO_ICRC_CHECK");

	c = find_cfg(MPD_LINK_ROCE_V2, false, false, 6, false);
	total = build(c, 40, &p, payload);
	l3 = 14;
	frame[l3] = 0x6f;
	memset(frame + l3 + 1, 0, 3);
	frame[l3 + 7] = 255;
	is_int(mpd_pkt_decode(c->link, frame, total, 0, &q), MPD_OK,
	       "RoCEv2/IPv6: new TClass/FlowLabel/HopLimit keep the ICRC "
	       "valid");
}

/* Length-field and header-type rejections, each on its own. */
static void
test_pkt_rejects(void)
{
	static uint8_t payload[64];
	const struct cfg *c;
	struct mpd_pkt p, q;
	uint8_t *ip, *udp;
	size_t total, l3, bth;
	unsigned int op;
	int bad = 0;

	/* IB, LRH only */
	c = find_cfg(MPD_LINK_IB, false, false, 0, false);
	total = build(c, 20, &p, payload);
	memcpy(scratch, frame, total);
	mpd_put_be16(frame + 4, (uint16_t)(p.lrh.pkt_len + 1));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ETRUNC,
	       "IB: LRH PktLen one word too big is MPD_ETRUNC");
	mpd_put_be16(frame + 4, (uint16_t)(p.lrh.pkt_len - 1));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "IB: LRH PktLen one word too small is MPD_ELEN");
	mpd_put_be16(frame + 4, 0);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "IB: LRH PktLen 0 is MPD_ELEN");
	memcpy(frame, scratch, total);
	frame[total] = 0;
	frame[total + 1] = 0;
	frame[total + 2] = 0;
	frame[total + 3] = 0;
	is_int(decode_exact(c->link, frame, total + 4, 0, &q), MPD_ELEN,
	       "IB: bytes after the VCRC are MPD_ELEN");
	frame[1] = (uint8_t)((frame[1] & ~3) | MPD_LNH_RAW);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "IB: LNH 0 (raw) is MPD_ENEXTHDR");
	frame[1] = (uint8_t)((frame[1] & ~3) | MPD_LNH_IP);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "IB: LNH 1 (IPv6) is MPD_ENEXTHDR");
	memcpy(frame, scratch, total);
	frame[0] |= 0x01;
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EVERSION,
	       "IB: LVer 1 is MPD_EVERSION");
	memcpy(frame, scratch, total);
	bth = MPD_LRH_LEN;
	frame[bth + 1] |= 0x01;
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EVERSION,
	       "IB: BTH TVer 1 is MPD_EVERSION");
	memcpy(frame, scratch, total);
	{
		unsigned int n = 0;

		for (op = 0; op < 256; op++) {
			int rc;

			if (mpd_op_hdrs((uint8_t)op))
				continue;
			frame[bth] = (uint8_t)op;
			rc = decode_exact(c->link, frame, total, 0, &q);
			if (rc != MPD_EOPCODE && !bad++)
				tap_diag("opcode 0x%02x: %d", op, rc);
			n++;
		}
		is_int(bad, 0, "IB: each of the %u BTH opcodes the codec does "
		       "not carry is MPD_EOPCODE", n);
	}
	memcpy(frame, scratch, total);
	frame[bth] = 0x44;	/* RD SEND Only */
	is_int(decode_exact(c->link, frame, total,
			    MPD_PKT_NO_ICRC_CHECK | MPD_PKT_NO_VCRC_CHECK, &q),
	       MPD_EOPCODE, "IB: RD SEND Only is MPD_EOPCODE even without "
	       "CRC checks");

	/* pad count larger than the payload */
	total = build(c, 0, &p, payload);
	frame[bth + 1] |= 0x30;
	ib_fix_vcrc(frame, total);
	is_int(decode_exact(c->link, frame, total, MPD_PKT_NO_ICRC_CHECK, &q),
	       MPD_ELEN, "IB: PadCnt 3 with no payload is MPD_ELEN");
	total = build(c, 2, &p, payload);
	frame[bth + 1] |= 0x30;
	ib_fix_vcrc(frame, total);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EICRC,
	       "IB: PadCnt changed 2 -> 3 is MPD_EICRC (PadCnt is invariant)");
	is_int(decode_exact(c->link, frame, total, MPD_PKT_NO_ICRC_CHECK, &q),
	       MPD_OK, "IB: ... and decodes without the ICRC check");
	is_int(q.payload_len, 1, "IB: ... leaving one payload byte");

	/* IB with GRH */
	c = find_cfg(MPD_LINK_IB, true, false, 0, false);
	total = build(c, 20, &p, payload);
	memcpy(scratch, frame, total);
	frame[8] = (uint8_t)(0x40 | (frame[8] & 0x0f));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EVERSION,
	       "IB: GRH IPVer 4 is MPD_EVERSION");
	memcpy(frame, scratch, total);
	frame[14] = 0x11;
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "IB: GRH NxtHdr 0x11 is MPD_ENEXTHDR");
	memcpy(frame, scratch, total);
	mpd_put_be16(frame + 12, (uint16_t)(p.grh.pay_len + 4));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "IB: GRH PayLen 4 too big is MPD_ELEN");
	mpd_put_be16(frame + 12, (uint16_t)(p.grh.pay_len - 4));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "IB: GRH PayLen 4 too small is MPD_ELEN");
	memcpy(frame, scratch, total);
	frame[1] = (uint8_t)((frame[1] & ~3) | MPD_LNH_IBA_LOCAL);
	frame[8] = 0x60;	/* read as opcode 0x60 ... */
	frame[9] = 0x00;	/* ... and TVer 0 */
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EOPCODE,
	       "IB: a GRH where LNH says BTH is read as a BTH (MPD_EOPCODE)");

	/* IB frames too short for what they declare, hand-built */
	{
		struct mpd_lrh lrh = { .lnh = MPD_LNH_IBA_LOCAL, .dlid = 1,
				       .slid = 2 };
		struct mpd_bth b = { .opcode = MPD_OP_UD_SEND_ONLY };
		size_t len;

		memset(frame, 0, 64);
		/* LRH, BTH, 4 bytes, ICRC, VCRC: no room for the DETH */
		len = MPD_LRH_LEN + MPD_BTH_LEN + 4 + 4;
		lrh.pkt_len = (uint16_t)(len / 4);
		mpd_lrh_encode(&lrh, frame, 64);
		mpd_bth_encode(&b, frame + 8, 64);
		ib_fix_vcrc(frame, len + 2);
		is_int(decode_exact(MPD_LINK_IB, frame, len + 2, 0, &q),
		       MPD_ETRUNC, "IB: no room for the DETH is MPD_ETRUNC");
		/* immediate opcode with no room for the immediate */
		len = MPD_LRH_LEN + MPD_BTH_LEN + MPD_DETH_LEN + 4;
		lrh.pkt_len = (uint16_t)(len / 4);
		b.opcode = MPD_OP_UD_SEND_ONLY_IMM;
		memset(frame, 0, 64);
		mpd_lrh_encode(&lrh, frame, 64);
		mpd_bth_encode(&b, frame + 8, 64);
		ib_fix_vcrc(frame, len + 2);
		is_int(decode_exact(MPD_LINK_IB, frame, len + 2, 0, &q),
		       MPD_ETRUNC, "IB: immediate opcode with no room for "
		       "the immediate is MPD_ETRUNC");
		/* LRH and 8 bytes: no room for BTH and ICRC */
		len = MPD_LRH_LEN + 8;
		lrh.pkt_len = (uint16_t)(len / 4);
		memset(frame, 0, 64);
		mpd_lrh_encode(&lrh, frame, 64);
		is_int(decode_exact(MPD_LINK_IB, frame, len + 2, 0, &q),
		       MPD_ETRUNC, "IB: no room for BTH and ICRC is "
		       "MPD_ETRUNC");
		len = MPD_LRH_LEN + 8;
		lrh.lnh = MPD_LNH_IBA_GLOBAL;
		lrh.pkt_len = (uint16_t)(len / 4);
		mpd_lrh_encode(&lrh, frame, 64);
		is_int(decode_exact(MPD_LINK_IB, frame, len + 2, 0, &q),
		       MPD_ETRUNC, "IB: LNH says GRH, PktLen has no room for "
		       "it: MPD_ETRUNC");
	}

	/* RoCEv1 */
	c = find_cfg(MPD_LINK_ROCE_V1, false, false, 0, false);
	total = build(c, 20, &p, payload);
	memcpy(scratch, frame, total);
	l3 = 14;
	mpd_put_be16(frame + 12, MPD_ETHERTYPE_IPV4);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "RoCEv1: ethertype 0x0800 is MPD_ENEXTHDR");
	memcpy(frame, scratch, total);
	frame[l3] = (uint8_t)(0x40 | (frame[l3] & 0x0f));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EVERSION,
	       "RoCEv1: GRH IPVer 4 is MPD_EVERSION");
	memcpy(frame, scratch, total);
	frame[l3 + 6] = 17;
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "RoCEv1: GRH NxtHdr 17 is MPD_ENEXTHDR");
	memcpy(frame, scratch, total);
	mpd_put_be16(frame + l3 + 4, (uint16_t)(p.grh.pay_len + 1));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ETRUNC,
	       "RoCEv1: GRH PayLen past the frame is MPD_ETRUNC");
	mpd_put_be16(frame + l3 + 4, (uint16_t)(p.grh.pay_len - 4));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EICRC,
	       "RoCEv1: GRH PayLen short by a word moves the ICRC: "
	       "MPD_EICRC");
	mpd_put_be16(frame + l3 + 4, 12);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ETRUNC,
	       "RoCEv1: GRH PayLen without room for BTH and ICRC is "
	       "MPD_ETRUNC");
	memcpy(frame, scratch, total);
	memset(frame + total, 0, 8);
	is_int(decode_exact(c->link, frame, total + 8, 0, &q), MPD_OK,
	       "RoCEv1: Ethernet padding after the ICRC is accepted");
	is_int(q.payload_len, 20, "RoCEv1: ... and not taken as payload");
	is_int(decode_exact(MPD_LINK_ROCE_V2, frame, total, 0, &q),
	       MPD_ENEXTHDR, "RoCEv1 frame decoded as RoCEv2 is MPD_ENEXTHDR");
	is_int(decode_exact((enum mpd_link)3, frame, total, 0, &q),
	       MPD_EINVAL, "an unknown link type is MPD_EINVAL");
	{
		uint32_t icrc;

		is_int(mpd_pkt_icrc((enum mpd_link)3, frame, total, &icrc),
		       MPD_EINVAL, "mpd_pkt_icrc: unknown link is MPD_EINVAL");
	}

	/* RoCEv2 over IPv4 */
	c = find_cfg(MPD_LINK_ROCE_V2, false, false, 4, false);
	total = build(c, 0, &p, payload);
	memcpy(scratch, frame, total);
	l3 = 14;
	ip = frame + l3;
	udp = ip + 20;
	is_int(decode_exact(MPD_LINK_ROCE_V1, frame, total, 0, &q),
	       MPD_ENEXTHDR, "RoCEv2 frame decoded as RoCEv1 is MPD_ENEXTHDR");
	mpd_put_be16(frame + 12, MPD_ETHERTYPE_ROCE);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "RoCEv2: ethertype 0x8915 is MPD_ENEXTHDR");
	mpd_put_be16(frame + 12, 0x0806);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "RoCEv2: ethertype 0x0806 is MPD_ENEXTHDR");
	mpd_put_be16(frame + 12, MPD_ETHERTYPE_IPV6);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EVERSION,
	       "RoCEv2: IPv4 header under ethertype 0x86dd is MPD_EVERSION");
	memcpy(frame, scratch, total);
	ip[0] = 0x65;
	ip4_fix_csum(ip);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EVERSION,
	       "RoCEv2: IPv4 version 6 is MPD_EVERSION");
	ip[0] = 0x44;
	ip4_fix_csum(ip);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "RoCEv2: IPv4 IHL 4 is MPD_ELEN");
	ip[0] = 0x4f;
	ip4_fix_csum(ip);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ETRUNC,
	       "RoCEv2: IPv4 IHL 15 past the frame is MPD_ETRUNC");
	memcpy(frame, scratch, total);
	mpd_put_be16(ip + 2, (uint16_t)(p.ip4.total_len + 1));
	ip4_fix_csum(ip);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ETRUNC,
	       "RoCEv2: IPv4 total length past the frame is MPD_ETRUNC");
	mpd_put_be16(ip + 2, (uint16_t)(p.ip4.total_len - 4));
	ip4_fix_csum(ip);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "RoCEv2: IPv4 total length short of the UDP length is "
	       "MPD_ELEN");
	mpd_put_be16(ip + 2, 19);
	ip4_fix_csum(ip);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "RoCEv2: IPv4 total length below the header is MPD_ELEN");
	mpd_put_be16(ip + 2, 24);
	ip4_fix_csum(ip);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ETRUNC,
	       "RoCEv2: IPv4 total length cutting the UDP header is "
	       "MPD_ETRUNC");
	memcpy(frame, scratch, total);
	ip[10] ^= 0x01;
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ECSUM,
	       "RoCEv2: IPv4 checksum off by one bit is MPD_ECSUM");
	memcpy(frame, scratch, total);
	ip[12] ^= 0x80;
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ECSUM,
	       "RoCEv2: IPv4 source changed, checksum not: MPD_ECSUM");
	memcpy(frame, scratch, total);
	ip[9] = 6;
	ip4_fix_csum(ip);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "RoCEv2: IP protocol 6 is MPD_ENEXTHDR");
	memcpy(frame, scratch, total);
	mpd_put_be16(udp + 2, 4790);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "RoCEv2: UDP destination port 4790 is MPD_ENEXTHDR");
	memcpy(frame, scratch, total);
	mpd_put_be16(udp + 4, (uint16_t)(p.udp.len + 4));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "RoCEv2: UDP length 4 too big is MPD_ELEN");
	mpd_put_be16(udp + 4, (uint16_t)(p.udp.len - 4));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "RoCEv2: UDP length 4 too small is MPD_ELEN");
	mpd_put_be16(udp + 4, 7);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "RoCEv2: UDP length 7 is MPD_ELEN");
	memcpy(frame, scratch, total);
	bth = l3 + 28;
	frame[bth + 1] |= 0x30;
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "RoCEv2: PadCnt 3 with no payload is MPD_ELEN");
	memcpy(frame, scratch, total);
	frame[bth] = 0x81;	/* CNP */
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EOPCODE,
	       "RoCEv2: CNP (0x81) is MPD_EOPCODE");
	memcpy(frame, scratch, total);
	memset(frame + total, 0, 10);
	is_int(decode_exact(c->link, frame, total + 10, 0, &q), MPD_OK,
	       "RoCEv2: Ethernet padding after the ICRC is accepted");
	is_int(q.payload_len, 0, "RoCEv2: ... and not taken as payload");

	/* RoCEv2 over IPv4 with IP options (IHL 6): still decodes */
	{
		size_t opt_total = total + 4;
		uint32_t icrc;

		memcpy(frame, scratch, l3 + 20);
		memset(frame + l3 + 20, 0x01, 4);	/* four NOPs */
		memcpy(frame + l3 + 24, scratch + l3 + 20, total - l3 - 20);
		ip[0] = 0x46;
		mpd_put_be16(ip + 2, (uint16_t)(p.ip4.total_len + 4));
		ip[10] = ip[11] = 0;
		{
			uint16_t s = (uint16_t)~ref_inet_sum(0, ip, 24);

			ip[10] = (uint8_t)(s >> 8);
			ip[11] = (uint8_t)s;
		}
		icrc = ref_icrc(c->link, frame, opt_total - 4);
		frame[opt_total - 4] = (uint8_t)icrc;
		frame[opt_total - 3] = (uint8_t)(icrc >> 8);
		frame[opt_total - 2] = (uint8_t)(icrc >> 16);
		frame[opt_total - 1] = (uint8_t)(icrc >> 24);
		is_int(decode_exact(c->link, frame, opt_total, 0, &q), MPD_OK,
		       "RoCEv2: IPv4 with 4 bytes of options decodes, ICRC "
		       "over the options");
		is_int(q.bth_off, l3 + 24 + 8, "RoCEv2: ... BTH found after "
		       "the options");
		is_int(mpd_pkt_icrc(c->link, frame, opt_total, &icrc), MPD_OK,
		       "RoCEv2: mpd_pkt_icrc with IPv4 options");
		is_int(icrc, q.icrc, "RoCEv2: ... agrees with the frame");
	}

	/* RoCEv2 over IPv6 */
	c = find_cfg(MPD_LINK_ROCE_V2, false, true, 6, false);
	total = build(c, 20, &p, payload);
	memcpy(scratch, frame, total);
	l3 = 18;
	ip = frame + l3;
	mpd_put_be16(frame + 16, MPD_ETHERTYPE_ROCE);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "RoCEv2: ethertype 0x8915 after a VLAN tag is MPD_ENEXTHDR");
	mpd_put_be16(frame + 16, MPD_ETHERTYPE_IPV4);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EVERSION,
	       "RoCEv2: IPv6 header under ethertype 0x0800 is MPD_EVERSION");
	memcpy(frame, scratch, total);
	ip[0] = (uint8_t)(0x40 | (ip[0] & 0x0f));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_EVERSION,
	       "RoCEv2: IPv6 version 4 is MPD_EVERSION");
	memcpy(frame, scratch, total);
	ip[6] = 6;
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "RoCEv2: IPv6 next header 6 is MPD_ENEXTHDR");
	memcpy(frame, scratch, total);
	mpd_put_be16(ip + 4, (uint16_t)(p.ip6.pay_len + 4));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ETRUNC,
	       "RoCEv2: IPv6 payload length past the frame is MPD_ETRUNC");
	mpd_put_be16(ip + 4, (uint16_t)(p.ip6.pay_len - 4));
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ELEN,
	       "RoCEv2: IPv6 payload length short of the UDP length is "
	       "MPD_ELEN");
	mpd_put_be16(ip + 4, 4);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ETRUNC,
	       "RoCEv2: IPv6 payload length cutting the UDP header is "
	       "MPD_ETRUNC");
	memcpy(frame, scratch, total);
	mpd_put_be16(ip + 40 + 2, 1);
	is_int(decode_exact(c->link, frame, total, 0, &q), MPD_ENEXTHDR,
	       "RoCEv2: UDP port 1 over IPv6 is MPD_ENEXTHDR");
}

static void
test_pkt_encode_errors(void)
{
	static uint8_t payload[64];
	const struct cfg *c;
	struct mpd_pkt p, w;
	size_t i, n, total;
	int rc;

	for (i = 0; i < ncfgs; i++) {
		size_t bad = 0;

		c = &cfgs[i];
		fill_pkt(c, &p);
		rnd_bytes(payload, sizeof(payload));
		w = p;
		total = cfg_frame_len(c, 33);
		for (n = 0; n < total; n++) {
			uint8_t *d = malloc(n ? n : 1);

			if (!d)
				abort();
			w = p;
			rc = mpd_pkt_encode(&w, payload, 33, d, n);
			if (rc != MPD_ENOSPC && !bad++)
				tap_diag("%s: cap %zu: %d", c->name, n, rc);
			free(d);
		}
		ok(bad == 0, "%s: every buffer shorter than the %zu-byte "
		   "frame is MPD_ENOSPC, nothing written past it", c->name,
		   total);
		w = p;
		is_int(mpd_pkt_encode(&w, payload, 33, frame, total),
		       (int)total, "%s: a buffer of exactly the frame length "
		       "is enough", c->name);
	}

	c = find_cfg(MPD_LINK_IB, false, false, 0, false);
	fill_pkt(c, &p);
	w = p, w.bth.opcode = 0x44;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_EOPCODE, "encode: RD SEND Only is MPD_EOPCODE");
	w = p, w.bth.opcode = 0x15;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_EOPCODE, "encode: reserved RC opcode 0x15 is MPD_EOPCODE");
	w = p;
	is_int(mpd_pkt_encode(&w, NULL, 4, frame, sizeof(frame)), MPD_EINVAL,
	       "encode: payload length without payload is MPD_EINVAL");
	w = p;
	is_int(mpd_pkt_encode(&w, NULL, 0, frame, sizeof(frame)),
	       (int)cfg_frame_len(c, 0), "encode: empty payload may be NULL");
	w = p, w.link = (enum mpd_link)3;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_EINVAL, "encode: unknown link is MPD_EINVAL");
	w = p, w.lrh.vl = 16;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: LRH VL 16 is MPD_ERANGE");
	w = p, w.lrh.sl = 16;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: LRH SL 16 is MPD_ERANGE");
	w = p, w.bth.dest_qp = 1u << 24;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: BTH DestQP of 25 bits is MPD_ERANGE");
	w = p, w.bth.psn = 1u << 24;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: BTH PSN of 25 bits is MPD_ERANGE");
	w = p, w.bth.tver = 16;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: BTH TVer 16 is MPD_ERANGE");
	w = p, w.deth.src_qp = 1u << 24;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: DETH SrcQP of 25 bits is MPD_ERANGE");
	/* IB PktLen is 11 bits of words: 8188 bytes LRH..ICRC at most */
	w = p;
	is_int(mpd_pkt_encode(&w, big_payload, 8156, frame, sizeof(frame)),
	       8188 + 2, "encode: IB frame of PktLen 0x7ff (payload 8156)");
	is_int(w.lrh.pkt_len, 0x7ff, "encode: ... PktLen 0x7ff");
	w = p;
	is_int(mpd_pkt_encode(&w, big_payload, 8157, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: IB payload 8157 overflows PktLen: "
	       "MPD_ERANGE");

	c = find_cfg(MPD_LINK_IB, true, false, 0, true);
	fill_pkt(c, &p);
	w = p, w.grh.flow_label = 1u << 20;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: GRH FlowLabel of 21 bits is MPD_ERANGE");
	w = p;
	is_int(mpd_pkt_encode(&w, big_payload, 8112, frame, sizeof(frame)),
	       8188 + 2, "encode: IB+GRH+imm frame of PktLen 0x7ff");
	w = p;
	is_int(mpd_pkt_encode(&w, big_payload, 8113, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: IB+GRH+imm payload one byte too long is "
	       "MPD_ERANGE");

	c = find_cfg(MPD_LINK_ROCE_V1, false, false, 0, false);
	fill_pkt(c, &p);
	w = p, w.grh.ip_ver = 16;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: RoCEv1 GRH IPVer 16 is MPD_ERANGE");
	/* GRH PayLen (BTH..ICRC) is 16 bits */
	w = p;
	is_int(mpd_pkt_encode(&w, big_payload, 65508, frame, sizeof(frame)),
	       14 + 40 + 65532, "encode: RoCEv1 with GRH PayLen 65532");
	w = p;
	is_int(mpd_pkt_encode(&w, big_payload, 65509, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: RoCEv1 GRH PayLen over 65535 is "
	       "MPD_ERANGE");

	c = find_cfg(MPD_LINK_ROCE_V2, false, false, 4, false);
	fill_pkt(c, &p);
	w = p, w.ip_ver = 5;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_EINVAL, "encode: RoCEv2 IP version 5 is MPD_EINVAL");
	w = p, w.ip_ver = 0;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_EINVAL, "encode: RoCEv2 IP version 0 is MPD_EINVAL");
	/* IPv4 total length is 16 bits: 20 + 8 + BTH..ICRC */
	w = p;
	rc = mpd_pkt_encode(&w, big_payload, 65480, frame, sizeof(frame));
	is_int(rc, 14 + 20 + 8 + 65504, "encode: RoCEv2/IPv4 with total length "
	       "65532");
	if (rc > 0) {
		struct mpd_pkt q;

		is_int(decode_exact(c->link, frame, (size_t)rc, 0, &q), MPD_OK,
		       "decode: RoCEv2/IPv4 of 65532 bytes");
	}
	w = p;
	is_int(mpd_pkt_encode(&w, big_payload, 65481, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: RoCEv2/IPv4 total length over 65535 is "
	       "MPD_ERANGE");

	c = find_cfg(MPD_LINK_ROCE_V2, false, false, 6, false);
	fill_pkt(c, &p);
	w = p, w.ip6.flow_label = 1u << 20;
	is_int(mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: IPv6 FlowLabel of 21 bits is MPD_ERANGE");
	/* IPv6 payload length is 16 bits: 8 + BTH..ICRC; the fixed
	 * header is not counted */
	w = p;
	rc = mpd_pkt_encode(&w, big_payload, 65500, frame, sizeof(frame));
	is_int(rc, 14 + 40 + 8 + 65524, "encode: RoCEv2/IPv6 with payload "
	       "length 65532");
	if (rc > 0) {
		struct mpd_pkt q;

		is_int(decode_exact(c->link, frame, (size_t)rc, 0, &q), MPD_OK,
		       "decode: RoCEv2/IPv6 with payload length 65532");
	}
	w = p;
	is_int(mpd_pkt_encode(&w, big_payload, 65501, frame, sizeof(frame)),
	       MPD_ERANGE, "encode: RoCEv2/IPv6 payload length over 65535 is "
	       "MPD_ERANGE");
}

/* ---- whole packets of every opcode -------------------------------------- */

static size_t
ref_ext_len(uint32_t h)
{
	size_t n = 0;

	n += h & MPD_HDR_DETH ? 8 : 0;
	n += h & MPD_HDR_RETH ? 16 : 0;
	n += h & MPD_HDR_ATOMIC ? 28 : 0;
	n += h & MPD_HDR_AETH ? 4 : 0;
	n += h & MPD_HDR_ATOMIC_ACK ? 8 : 0;
	n += h & MPD_HDR_IMM ? 4 : 0;
	n += h & MPD_HDR_IETH ? 4 : 0;
	return n;
}

/* The extension headers h of p as the IBA 9.3 layouts put them, in the
 * order of 9.2 Table 35. Returns their length. */
static size_t
ref_ext(const struct mpd_pkt *p, uint32_t h, uint8_t *b)
{
	size_t n = 0;

	if (h & MPD_HDR_DETH) {
		put_be(b, p->deth.qkey, 4);
		b[4] = 0;
		put_be(b + 5, p->deth.src_qp, 3);
		n += 8;
	}
	if (h & MPD_HDR_RETH) {
		put_be(b + n, p->reth.va, 8);
		put_be(b + n + 8, p->reth.rkey, 4);
		put_be(b + n + 12, p->reth.dma_len, 4);
		n += 16;
	}
	if (h & MPD_HDR_ATOMIC) {
		put_be(b + n, p->atomic.va, 8);
		put_be(b + n + 8, p->atomic.rkey, 4);
		put_be(b + n + 12, p->atomic.swap_add, 8);
		put_be(b + n + 20, p->atomic.compare, 8);
		n += 28;
	}
	if (h & MPD_HDR_AETH) {
		b[n] = p->aeth.syndrome;
		put_be(b + n + 1, p->aeth.msn, 3);
		n += 4;
	}
	if (h & MPD_HDR_ATOMIC_ACK) {
		put_be(b + n, p->atomic_orig, 8);
		n += 8;
	}
	if (h & MPD_HDR_IMM) {
		put_be(b + n, p->imm, 4);
		n += 4;
	}
	if (h & MPD_HDR_IETH) {
		put_be(b + n, p->ieth, 4);
		n += 4;
	}
	return n;
}

/* Random extension header fields where the opcode has them, zero where it
 * has not (as a decode leaves them). */
static void
fill_ext(struct mpd_pkt *p, uint32_t h)
{
	memset(&p->deth, 0, sizeof(p->deth));
	memset(&p->reth, 0, sizeof(p->reth));
	memset(&p->aeth, 0, sizeof(p->aeth));
	memset(&p->atomic, 0, sizeof(p->atomic));
	p->atomic_orig = 0;
	p->imm = 0;
	p->ieth = 0;
	if (h & MPD_HDR_DETH) {
		p->deth.qkey = (uint32_t)rnd64();
		p->deth.src_qp = (uint32_t)rnd_bits(24);
	}
	if (h & MPD_HDR_RETH)
		rnd_reth(&p->reth);
	if (h & MPD_HDR_ATOMIC)
		rnd_atomic(&p->atomic);
	if (h & MPD_HDR_AETH)
		rnd_aeth(&p->aeth);
	if (h & MPD_HDR_ATOMIC_ACK)
		p->atomic_orig = rnd64();
	if (h & MPD_HDR_IMM)
		p->imm = (uint32_t)rnd64();
	if (h & MPD_HDR_IETH)
		p->ieth = (uint32_t)rnd64();
}

static void
test_pkt_all_opcodes(void)
{
	static const size_t plens[] = { 0, 1, 2, 3, 4, 5, 61, 256 };
	static uint8_t payload[256];
	uint8_t ext[64];
	struct mpd_pkt p, q;
	size_t i, j, k;

	for (i = 0; i < ncfgs; i++) {
		const struct cfg *c = &cfgs[i];
		size_t bad = 0, tried = 0;

		if (c->imm)	/* the opcode is set below */
			continue;
		for (j = 0; j < N_OPS; j++) {
			uint32_t h = op_table[j].hdrs;

			for (k = 0; k < sizeof(plens) / sizeof(plens[0]); k++) {
				size_t plen = plens[k], elen, total = 0;
				const char *why = NULL;
				int rc;

				if (plen && !(h & MPD_HDR_PAYLOAD))
					continue;
				tried++;
				fill_pkt(c, &p);
				p.bth.opcode = op_table[j].op;
				fill_ext(&p, h);
				rnd_bytes(payload, plen);
				elen = ref_ext(&p, h, ext);
				rc = mpd_pkt_encode(&p, payload, plen, frame,
						    sizeof(frame));
				if (rc < 0)
					why = mpd_strerror(rc);
				else if ((size_t)rc !=
					 cfg_frame_len_ext(c, elen, plen))
					why = "frame length";
				else
					why = check_bytes_op(c, frame,
						total = (size_t)rc,
						op_table[j].op, elen, payload,
						plen);
				if (!why && memcmp(frame + cfg_hdr_len(c) + 12,
						   ext, elen) != 0)
					why = "extension header bytes";
				if (!why) {
					uint8_t *d = dup_exact(frame, total);

					rc = mpd_pkt_decode(c->link, d, total,
							    0, &q);
					if (rc != MPD_OK)
						why = mpd_strerror(rc);
					else
						why = pkt_diff(&p, &q);
					if (!why &&
					    (q.payload != d + cfg_hdr_len(c) +
					     12 + elen ||
					     q.payload_len != plen))
						why = "decoded payload";
					free(d);
				}
				if (why && !bad++)
					tap_diag("%s, %s, payload %zu: %s",
						 c->name, op_table[j].name,
						 plen, why);
			}
		}
		ok(bad == 0, "%s: each of the %zu RC/UC/UD opcodes encodes to "
		   "the IBA layouts and decodes back (%zu packets)", c->name,
		   N_OPS, tried);
	}
}

/*
 * A frame put together by hand from the layouts, sharing nothing with the
 * codec: LRH (VL 2, SL 0, DLID 5, SLID 3) on IB, Ethernet / IPv4 (DF, TTL
 * 64, 10.0.0.1 -> 10.0.0.2) / UDP (0xc000 -> 4791) on RoCEv2; a BTH with
 * the given opcode and PadCnt, P_Key 0xffff, DestQP 0x11, AckReq, PSN
 * 0x22; then body, ICRC and on IB the VCRC. On IB body_len is a multiple
 * of 4.
 */
static size_t
raw_frame(enum mpd_link link, uint8_t op, unsigned int pad,
	  const uint8_t *body, size_t body_len, uint8_t *f)
{
	static const uint8_t eth[14] = {
		0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x08, 0x00,
	};
	size_t bth, icrc_off, total;

	if (link == MPD_LINK_IB) {
		size_t words = (8 + 12 + body_len + 4) / 4;

		f[0] = 0x20;
		f[1] = 0x02;
		put_be(f + 2, 5, 2);
		put_be(f + 4, words, 2);
		put_be(f + 6, 3, 2);
		bth = 8;
	} else {
		uint8_t *ip = f + 14, *udp = ip + 20;
		size_t ip_len = 20 + 8 + 12 + body_len + 4;

		memcpy(f, eth, sizeof(eth));
		memset(ip, 0, 20);
		ip[0] = 0x45;
		put_be(ip + 2, ip_len, 2);
		ip[6] = 0x40;
		ip[8] = 64;
		ip[9] = 17;
		put_be(ip + 12, 0x0a000001, 4);
		put_be(ip + 16, 0x0a000002, 4);
		ip4_fix_csum(ip);
		put_be(udp, 0xc000, 2);
		put_be(udp + 2, 4791, 2);
		put_be(udp + 4, ip_len - 20, 2);
		put_be(udp + 6, 0, 2);
		bth = 14 + 20 + 8;
	}
	f[bth] = op;
	f[bth + 1] = (uint8_t)(pad << 4);
	put_be(f + bth + 2, 0xffff, 2);
	put_be(f + bth + 4, 0x11, 4);
	put_be(f + bth + 8, 0x80000022u, 4);
	memcpy(f + bth + 12, body, body_len);
	icrc_off = bth + 12 + body_len;
	put_be(f + icrc_off, 0, 4);
	{
		uint32_t icrc = ref_icrc(link, f, icrc_off);

		f[icrc_off] = (uint8_t)icrc;
		f[icrc_off + 1] = (uint8_t)(icrc >> 8);
		f[icrc_off + 2] = (uint8_t)(icrc >> 16);
		f[icrc_off + 3] = (uint8_t)(icrc >> 24);
	}
	total = icrc_off + 4;
	if (link == MPD_LINK_IB) {
		uint16_t v = ref_vcrc(f, total);

		f[total] = (uint8_t)v;
		f[total + 1] = (uint8_t)(v >> 8);
		total += 2;
	}
	return total;
}

/* The headers raw_frame() writes, for the encoder. */
static void
raw_pkt(enum mpd_link link, uint8_t op, struct mpd_pkt *p)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x02 };

	memset(p, 0, sizeof(*p));
	p->link = link;
	p->bth.opcode = op;
	p->bth.pkey = 0xffff;
	p->bth.dest_qp = 0x11;
	p->bth.ack_req = 1;
	p->bth.psn = 0x22;
	if (link == MPD_LINK_IB) {
		p->lrh.vl = 2;
		p->lrh.dlid = 5;
		p->lrh.slid = 3;
		return;
	}
	memcpy(p->eth.dst, dst, 6);
	memcpy(p->eth.src, src, 6);
	p->ip_ver = 4;
	p->ip4.frag = 0x4000;
	p->ip4.ttl = 64;
	p->ip4.src[0] = 10;
	p->ip4.src[3] = 1;
	p->ip4.dst[0] = 10;
	p->ip4.dst[3] = 2;
	p->udp.sport = 0xc000;
	p->udp.dport = MPD_ROCE_UDP_PORT;
}

/* p encodes to the hand-built frame of ext || payload, and that frame
 * decodes to p. */
static void
check_golden(const char *name, struct mpd_pkt *p, const uint8_t *ext,
	     size_t elen, const uint8_t *payload, size_t plen)
{
	static uint8_t want[512];
	uint8_t body[256];
	size_t pad = (4 - plen % 4) % 4, n;
	const char *ln = p->link == MPD_LINK_IB ? "IB" : "RoCEv2";
	struct mpd_pkt q;
	const char *why;
	int rc;

	memcpy(body, ext, elen);
	if (plen)
		memcpy(body + elen, payload, plen);
	memset(body + elen + plen, 0, pad);
	n = raw_frame(p->link, p->bth.opcode, (unsigned int)pad, body,
		      elen + plen + pad, want);
	rc = mpd_pkt_encode(p, payload, plen, frame, sizeof(frame));
	is_int(rc, (int)n, "%s %s: encode", ln, name);
	ok(rc == (int)n && memcmp(frame, want, n) == 0,
	   "%s %s: golden bytes", ln, name);
	rc = decode_exact(p->link, want, n, 0, &q);
	why = rc == MPD_OK ? pkt_diff(p, &q) : mpd_strerror(rc);
	if (!why && q.payload_len != plen)
		why = "payload length";
	ok(!why, "%s %s: the golden frame decodes to the encoded fields%s%s",
	   ln, name, why ? ": " : "", why ? why : "");
}

static void
test_pkt_golden_ext(void)
{
	static const enum mpd_link links[] = { MPD_LINK_IB, MPD_LINK_ROCE_V2 };
	static const uint8_t hello[] = "hello";
	static const uint8_t data8[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t e[64];
	struct mpd_pkt p;
	size_t l;

	for (l = 0; l < 2; l++) {
		enum mpd_link k = links[l];

		/* RETH, ImmDt, payload with 3 bytes of pad */
		raw_pkt(k, MPD_OP_WRITE_ONLY_IMM, &p);
		p.reth = o_reth;
		p.imm = 0x0a0b0c0d;
		memcpy(e, g_reth, 16);
		memcpy(e + 16, "\x0a\x0b\x0c\x0d", 4);
		check_golden("RC RDMA WRITE Only with Immediate", &p, e, 20,
			     hello, 5);

		raw_pkt(k, MPD_TP_UC | MPD_OP_WRITE_FIRST, &p);
		p.reth = o_reth;
		check_golden("UC RDMA WRITE First", &p, g_reth, 16, hello, 3);

		raw_pkt(k, MPD_OP_READ_REQ, &p);
		p.reth = o_reth;
		check_golden("RC RDMA READ Request", &p, g_reth, 16, NULL, 0);

		/* AETH: an ACK without credits, a NAK, a READ response */
		raw_pkt(k, MPD_OP_ACK, &p);
		p.aeth.syndrome = MPD_AETH_ACK | MPD_AETH_CREDITS_INVALID;
		p.aeth.msn = 0x000102;
		check_golden("RC Acknowledge", &p,
			     (const uint8_t *)"\x1f\x00\x01\x02", 4, NULL, 0);
		raw_pkt(k, MPD_OP_ACK, &p);
		p.aeth = o_aeth;
		check_golden("RC NAK (remote access error)", &p, g_aeth, 4,
			     NULL, 0);
		raw_pkt(k, MPD_OP_READ_RESP_FIRST, &p);
		p.aeth.msn = 7;
		check_golden("RC RDMA READ response First", &p,
			     (const uint8_t *)"\x00\x00\x00\x07", 4, data8, 8);

		/* AtomicETH */
		raw_pkt(k, MPD_OP_CMP_SWAP, &p);
		p.atomic = o_atomic;
		check_golden("RC CmpSwap", &p, g_atomic, 28, NULL, 0);
		raw_pkt(k, MPD_OP_FETCH_ADD, &p);
		p.atomic = o_atomic;
		check_golden("RC FetchAdd", &p, g_atomic, 28, NULL, 0);

		/* AETH, AtomicAckETH */
		raw_pkt(k, MPD_OP_ATOMIC_ACK, &p);
		p.aeth.msn = 9;
		p.atomic_orig = o_atomic_ack;
		memcpy(e, "\x00\x00\x00\x09", 4);
		memcpy(e + 4, g_atomic_ack, 8);
		check_golden("RC ATOMIC Acknowledge", &p, e, 12, NULL, 0);

		/* IETH */
		raw_pkt(k, MPD_OP_SEND_ONLY_INV, &p);
		p.ieth = 0x12345678;
		check_golden("RC SEND Only with Invalidate", &p,
			     (const uint8_t *)"\x12\x34\x56\x78", 4, data8, 4);

		/* DETH, ImmDt */
		raw_pkt(k, MPD_OP_UD_SEND_ONLY_IMM, &p);
		p.deth.qkey = 0x80010000u;
		p.deth.src_qp = 1;
		p.imm = 0xcafef00d;
		check_golden("UD SEND Only with Immediate", &p,
			     (const uint8_t *)"\x80\x01\x00\x00\x00\x00\x00\x01"
			     "\xca\xfe\xf0\x0d", 12, data8, 1);
	}
}

static void
test_pkt_ext_rejects(void)
{
	static const enum mpd_link links[] = { MPD_LINK_IB, MPD_LINK_ROCE_V2 };
	static uint8_t payload[64];
	uint8_t body[128];
	const struct cfg *c;
	struct mpd_pkt p, q, w;
	size_t l, j, n, total;
	unsigned int op;
	int rc;

	rnd_bytes(body, sizeof(body));
	for (l = 0; l < 2; l++) {
		enum mpd_link k = links[l];
		bool ib = k == MPD_LINK_IB;
		const char *ln = ib ? "IB" : "RoCEv2";
		size_t bad = 0, tried = 0, bad_ok = 0, bad_len = 0;
		size_t bad_op = 0, n_op = 0;

		for (j = 0; j < N_OPS; j++) {
			uint8_t o = op_table[j].op;
			uint32_t h = op_table[j].hdrs;
			size_t elen = ref_ext_len(h);
			unsigned int pad;

			for (n = 0; n < elen; n += ib ? 4 : 1) {
				total = raw_frame(k, o, 0, body, n, frame);
				tried++;
				rc = decode_exact(k, frame, total, 0, &q);
				if (rc != MPD_ETRUNC && !bad++)
					tap_diag("%s %s, %zu of %zu header "
						 "bytes: %d", ln,
						 op_table[j].name, n, elen,
						 rc);
			}
			total = raw_frame(k, o, 0, body, elen, frame);
			rc = decode_exact(k, frame, total, 0, &q);
			if ((rc != MPD_OK || q.payload_len != 0) && !bad_ok++)
				tap_diag("%s %s with its headers only: %d",
					 ln, op_table[j].name, rc);
			if (h & MPD_HDR_PAYLOAD)
				continue;
			/* data, or pad alone, where the opcode has none */
			total = raw_frame(k, o, 0, body, elen + 4, frame);
			rc = decode_exact(k, frame, total, 0, &q);
			if (rc != MPD_ELEN && !bad_len++)
				tap_diag("%s %s with 4 bytes of data: %d", ln,
					 op_table[j].name, rc);
			for (pad = 1; pad < 4; pad++) {
				total = raw_frame(k, o, pad, body, elen + 4,
						  frame);
				rc = decode_exact(k, frame, total, 0, &q);
				if (rc != MPD_ELEN && !bad_len++)
					tap_diag("%s %s, PadCnt %u and 4 "
						 "bytes: %d", ln,
						 op_table[j].name, pad, rc);
				total = raw_frame(k, o, pad, body, elen,
						  frame);
				rc = decode_exact(k, frame, total, 0, &q);
				if (rc != MPD_ELEN && !bad_len++)
					tap_diag("%s %s, PadCnt %u: %d", ln,
						 op_table[j].name, pad, rc);
			}
		}
		ok(bad == 0, "%s: every extension header cut short (%zu "
		   "frames, every %s) is MPD_ETRUNC", ln, tried,
		   ib ? "word" : "byte");
		ok(bad_ok == 0, "%s: every opcode with exactly its headers "
		   "decodes, no payload", ln);
		ok(bad_len == 0, "%s: READ request, ACK, Atomic ACK, CmpSwap, "
		   "FetchAdd with data or pad are MPD_ELEN", ln);

		for (op = 0; op < 256; op++) {
			if (mpd_op_hdrs((uint8_t)op))
				continue;
			n_op++;
			total = raw_frame(k, (uint8_t)op, 0, body, 32, frame);
			if ((decode_exact(k, frame, total, 0, &q) !=
			     MPD_EOPCODE ||
			     decode_exact(k, frame, total,
					  MPD_PKT_NO_ICRC_CHECK |
					  MPD_PKT_NO_VCRC_CHECK, &q) !=
			     MPD_EOPCODE) && !bad_op++)
				tap_diag("%s opcode 0x%02x decodes", ln, op);
		}
		ok(bad_op == 0, "%s: each of the %zu opcodes without "
		   "mpd_op_hdrs() is MPD_EOPCODE, valid ICRC or not", ln, n_op);
		total = raw_frame(k, 0x40, 0, body, 32, frame);
		is_int(decode_exact(k, frame, total, 0, &q), MPD_EOPCODE,
		       "%s: RD SEND First (0x40) is MPD_EOPCODE", ln);
		total = raw_frame(k, 0x81, 0, body, 16, frame);
		is_int(decode_exact(k, frame, total, 0, &q), MPD_EOPCODE,
		       "%s: CNP (0x81) is MPD_EOPCODE", ln);
		total = raw_frame(k, 0x15, 0, body, 32, frame);
		is_int(decode_exact(k, frame, total, 0, &q), MPD_EOPCODE,
		       "%s: RC 0x15 (reserved) is MPD_EOPCODE", ln);
	}

	/* encode */
	c = find_cfg(MPD_LINK_ROCE_V2, false, false, 4, false);
	fill_pkt(c, &p);
	{
		size_t bad = 0, bad_op = 0, bad_nospc = 0, n_op = 0;

		for (j = 0; j < N_OPS; j++) {
			uint32_t h = op_table[j].hdrs;
			size_t plen = h & MPD_HDR_PAYLOAD ? 33 : 0;

			w = p;
			w.bth.opcode = op_table[j].op;
			fill_ext(&w, h);
			total = cfg_frame_len_ext(c, ref_ext_len(h), plen);
			for (n = 0; n < total; n++) {
				uint8_t *d = malloc(n ? n : 1);
				struct mpd_pkt x = w;

				if (!d)
					abort();
				rc = mpd_pkt_encode(&x, payload, plen, d, n);
				if (rc != MPD_ENOSPC && !bad_nospc++)
					tap_diag("%s into %zu bytes: %d",
						 op_table[j].name, n, rc);
				free(d);
			}
			if (h & MPD_HDR_PAYLOAD)
				continue;
			rc = mpd_pkt_encode(&w, payload, 1, frame,
					    sizeof(frame));
			if (rc != MPD_EINVAL && !bad++)
				tap_diag("%s with 1 byte: %d",
					 op_table[j].name, rc);
			rc = mpd_pkt_encode(&w, payload, 4, frame,
					    sizeof(frame));
			if (rc != MPD_EINVAL && !bad++)
				tap_diag("%s with 4 bytes: %d",
					 op_table[j].name, rc);
			rc = mpd_pkt_encode(&w, NULL, 0, frame, sizeof(frame));
			if (rc != (int)total && !bad++)
				tap_diag("%s without payload: %d",
					 op_table[j].name, rc);
		}
		ok(bad_nospc == 0, "encode: every opcode into every buffer "
		   "shorter than its frame is MPD_ENOSPC");
		ok(bad == 0, "encode: data on READ request, ACK, Atomic ACK, "
		   "CmpSwap, FetchAdd is MPD_EINVAL, none is fine");
		for (op = 0; op < 256; op++) {
			if (mpd_op_hdrs((uint8_t)op))
				continue;
			n_op++;
			w = p;
			w.bth.opcode = (uint8_t)op;
			if (mpd_pkt_encode(&w, NULL, 0, frame, sizeof(frame)) !=
			    MPD_EOPCODE && !bad_op++)
				tap_diag("encode of opcode 0x%02x", op);
		}
		ok(bad_op == 0, "encode: each of the %zu opcodes without "
		   "mpd_op_hdrs() is MPD_EOPCODE", n_op);
	}
	w = p;
	w.bth.opcode = MPD_OP_ACK;
	w.aeth.msn = 1u << 24;
	is_int(mpd_pkt_encode(&w, NULL, 0, frame, sizeof(frame)), MPD_ERANGE,
	       "encode: AETH MSN of 25 bits is MPD_ERANGE");
	/* what the opcode does not carry is not looked at */
	w = p;
	w.bth.opcode = MPD_OP_READ_REQ;
	w.deth.src_qp = 1u << 24;
	w.aeth.msn = 1u << 24;
	is_int(mpd_pkt_encode(&w, NULL, 0, frame, sizeof(frame)),
	       (int)cfg_frame_len_ext(c, 16, 0),
	       "encode: RC READ request ignores DETH and AETH fields");
	w = p;
	w.bth.opcode = MPD_OP_SEND_ONLY;
	rc = mpd_pkt_encode(&w, payload, 4, frame, sizeof(frame));
	is_int(rc, (int)cfg_frame_len_ext(c, 0, 4),
	       "encode: RC SEND Only carries nothing but the BTH");
	/* the payload may lie in place behind the extension headers */
	w = p;
	w.bth.opcode = MPD_OP_WRITE_ONLY_IMM;
	fill_ext(&w, MPD_HDR_RETH | MPD_HDR_IMM);
	rnd_bytes(payload, 40);
	memcpy(frame + cfg_hdr_len(c) + 12 + 20, payload, 40);
	rc = mpd_pkt_encode(&w, frame + cfg_hdr_len(c) + 12 + 20, 40, frame,
			    sizeof(frame));
	ok(rc > 0 && decode_exact(c->link, frame, (size_t)rc, 0, &q) ==
	   MPD_OK && q.payload_len == 40 &&
	   memcmp(frame + cfg_hdr_len(c) + 32, payload, 40) == 0 &&
	   q.reth.va == w.reth.va && q.imm == w.imm,
	   "encode: RDMA WRITE payload already in place behind RETH+ImmDt");
}

/* Native IB frames in Ethernet (a fabric across daemons): the envelope,
 * padding cut by the LRH's PktLen, every other frame refused. */
static void
test_ib_eth(void)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x0b };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x0a };
	uint8_t f[64 + 4], *d;
	struct mpd_eth eth;
	size_t ib_len = 0, len, bad = 0;
	int rc;

	memset(f, 0xee, sizeof(f));
	is_int(mpd_ib_eth_header(dst, src, f, 13), MPD_ENOSPC,
	       "ib_eth header: 13 bytes of room are too few");
	is_int(mpd_ib_eth_header(dst, src, f, sizeof(f)), MPD_ETH_LEN,
	       "ib_eth header: 14 bytes");
	ok(!memcmp(f, dst, 6) && !memcmp(f + 6, src, 6) && f[12] == 0x88 &&
	   f[13] == 0xb5, "ib_eth header: destination, source, EtherType 0x88b5");
	/* LRH: VL15, LNH IBA local, DLID 1, PktLen 8 words (LRH BTH DETH
	 * ICRC), SLID 2; then 24 bytes and a VCRC; padded to 60 */
	memcpy(f + 14, (const uint8_t[]){ 0xf0, 0x02, 0x00, 0x01, 0x00, 0x08,
					   0x00, 0x02 }, 8);
	rc = mpd_ib_eth_decap(f, 60, &eth, &ib_len);
	ok(rc == MPD_ETH_LEN && ib_len == 34 && eth.ethertype == 0x88b5 &&
	   !memcmp(eth.src, src, 6) && !memcmp(eth.dst, dst, 6),
	   "ib_eth decap: offset 14, the 34 bytes the LRH says, the padding after them cut (rc %d, %zu)",
	   rc, ib_len);
	/* exactly the packet: no padding */
	is_int(mpd_ib_eth_decap(f, 14 + 34, &eth, &ib_len), MPD_ETH_LEN,
	       "ib_eth decap: a frame that ends with the VCRC");
	/* every shorter frame is refused, read from a copy of its size */
	for (len = 0; len < 14 + 34; len++) {
		d = malloc(len ? len : 1);
		if (!d)
			abort();
		memcpy(d, f, len);
		if (mpd_ib_eth_decap(d, len, &eth, &ib_len) != MPD_ETRUNC)
			bad++;
		free(d);
	}
	ok(bad == 0, "ib_eth decap: each of the 48 shorter frames is truncated (%zu not)",
	   bad);
	f[14 + 5] = 1;		/* PktLen 1: less than an LRH */
	is_int(mpd_ib_eth_decap(f, 60, &eth, &ib_len), MPD_ELEN,
	       "ib_eth decap: PktLen below the LRH's own 2 words");
	f[14 + 5] = 8;
	f[12] = 0x08;
	f[13] = 0x00;
	is_int(mpd_ib_eth_decap(f, 60, &eth, &ib_len), MPD_ENEXTHDR,
	       "ib_eth decap: an IPv4 frame is not ours");
	f[12] = 0x89;
	f[13] = 0x15;
	is_int(mpd_ib_eth_decap(f, 60, &eth, &ib_len), MPD_ENEXTHDR,
	       "ib_eth decap: RoCEv1 (0x8915) is not native IB");
	/* behind an 802.1Q tag */
	memmove(f + 18, f + 14, 48);
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = 0x00;
	f[15] = 0x65;
	f[16] = 0x88;
	f[17] = 0xb5;
	rc = mpd_ib_eth_decap(f, 64, &eth, &ib_len);
	ok(rc == 18 && ib_len == 34 && eth.has_vlan && eth.vlan_tci == 101,
	   "ib_eth decap: behind VLAN 101 the packet starts at 18 (rc %d)", rc);
}

/* The heartbeat of such a link: bytes as documented in wire.h, a round
 * trip, and every damaged or foreign frame refused. */
static void
test_link_hello(void)
{
	static const uint8_t dst[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x0a };
	static const uint8_t want[32] = {
		'M', 'P', 'D', 'L', 1, 0x01, 0x00, 0x64,
		0x00, 0x02, 0xc9, 0x00, 0x00, 0x00, 0x00, 0x11, 3, 0, 0, 0,
		0x00, 0x02, 0xc9, 0x00, 0x00, 0x00, 0x00, 0x22, 5, 0, 0, 0,
	};
	struct mpd_link_hello h = {
		.flags = MPD_LINK_HEARD, .interval_ms = 100,
		.guid = 0x0002c90000000011ull, .port = 3,
		.heard_guid = 0x0002c90000000022ull, .heard_port = 5,
	}, g;
	uint8_t f[64];
	struct mpd_eth eth;
	size_t len, bad = 0;

	is_int(mpd_link_hello_encode(dst, src, &h, f, 59), MPD_ENOSPC,
	       "link hello: 59 bytes of room are too few");
	is_int(mpd_link_hello_encode(dst, src, &h, f, sizeof(f)),
	       MPD_LINK_HELLO_FRAME, "link hello: a 60-byte frame");
	ok(!memcmp(f, dst, 6) && !memcmp(f + 6, src, 6) && f[12] == 0x88 &&
	   f[13] == 0xb6 && !memcmp(f + 14, want, sizeof(want)) &&
	   f[59] == 0, "link hello: EtherType 0x88b6, the payload byte for byte, zero padding");
	memset(&g, 0, sizeof(g));
	ok(mpd_link_hello_decode(f, 60, &eth, &g) == MPD_OK &&
	   !memcmp(&eth.src, src, 6) && g.flags == h.flags &&
	   g.interval_ms == 100 && g.guid == h.guid && g.port == 3 &&
	   g.heard_guid == h.heard_guid && g.heard_port == 5,
	   "link hello: decoded as encoded");
	for (len = 0; len < 14 + 32; len++)
		if (mpd_link_hello_decode(f, len, &eth, &g) != MPD_ETRUNC)
			bad++;
	ok(bad == 0, "link hello: each of the 46 shorter frames is truncated (%zu not)",
	   bad);
	f[14 + 4] = 2;
	is_int(mpd_link_hello_decode(f, 60, &eth, &g), MPD_EVERSION,
	       "link hello: version 2 is refused");
	f[14 + 4] = 1;
	f[14] = 'X';
	is_int(mpd_link_hello_decode(f, 60, &eth, &g), MPD_EINVAL,
	       "link hello: without the magic");
	f[14] = 'M';
	f[14 + 6] = f[14 + 7] = 0;
	is_int(mpd_link_hello_decode(f, 60, &eth, &g), MPD_EINVAL,
	       "link hello: an interval of 0 is refused (it would never time out)");
	h.interval_ms = 0;
	is_int(mpd_link_hello_encode(dst, src, &h, f, sizeof(f)), MPD_EINVAL,
	       "link hello: nor sent");
	f[13] = 0xb5;
	is_int(mpd_link_hello_decode(f, 60, &eth, &g), MPD_ENEXTHDR,
	       "link hello: an IB frame (0x88b5) is not a heartbeat");
}

static void
test_strerror(void)
{
	const char *s[12];
	int i, j, bad = 0;

	for (i = 0; i < 12; i++) {
		s[i] = mpd_strerror(-i);
		if (!s[i] || !*s[i] || strcmp(s[i], "unknown status") == 0) {
			bad++;
			continue;
		}
		for (j = 0; j < i; j++)
			if (s[j] && strcmp(s[i], s[j]) == 0)
				bad++;
	}
	is_int(bad, 0, "mpd_strerror: a distinct non-empty sentence for each "
	       "of MPD_OK..MPD_EOPCODE");
	ok(strcmp(mpd_strerror(MPD_ETRUNC), mpd_strerror(MPD_ELEN)) != 0,
	   "mpd_strerror: MPD_ETRUNC and MPD_ELEN differ");
	ok(strcmp(mpd_strerror(MPD_EOPCODE - 1), "unknown status") == 0,
	   "mpd_strerror(-12) is \"unknown status\"");
	ok(strcmp(mpd_strerror(1), "unknown status") == 0,
	   "mpd_strerror(1) is \"unknown status\"");
	ok(strcmp(mpd_strerror(INT_MIN), "unknown status") == 0 &&
	   strcmp(mpd_strerror(INT_MAX), "unknown status") == 0,
	   "mpd_strerror(INT_MIN/INT_MAX) is \"unknown status\"");
}

int
main(void)
{
	tap_seed();
	rnd_bytes(big_payload, sizeof(big_payload));
	cfgs_init();
	test_crc();
	test_lrh();
	test_grh();
	test_bth();
	test_deth();
	test_ext_hdrs();
	test_op_hdrs();
	test_op_mask();
	test_pkt_round_trips();
	test_pkt_crc_later();
	test_pkt_truncated();
	test_pkt_bit_flips();
	test_pkt_variant_fields();
	test_pkt_rejects();
	test_pkt_encode_errors();
	test_pkt_all_opcodes();
	test_pkt_golden_ext();
	test_pkt_ext_rejects();
	test_ib_eth();
	test_link_hello();
	test_strerror();
	return tap_done();
}
