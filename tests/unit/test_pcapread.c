/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the pcap/pcapng reader: files from our writer, files built
 * here byte by byte from the specifications (classic pcap in both
 * resolutions and byte orders, big-endian pcapng, several sections, SPB,
 * obsolete PB, unknown blocks, binary time resolutions), files rewritten by
 * Wireshark's editcap and mergecap, every malformation we can think of, and
 * random damage; then the packet-to-frame helper for every link type.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "madpmd/pcapng.h"
#include "madpmd/pcapread.h"
#include "tap.h"

extern char **environ;

#define MAX_FILES	64
#define BLD_MAX		(1u << 16)

static char tmp_dir[64];
static char files[MAX_FILES][128];
static unsigned int nfiles;

static void
cleanup(void)
{
	unsigned int i;

	for (i = 0; i < nfiles; i++)
		unlink(files[i]);
	nfiles = 0;
	if (tmp_dir[0])
		rmdir(tmp_dir);
	tmp_dir[0] = 0;
}

static const char *
tmp_path(const char *name)
{
	if (nfiles == MAX_FILES) {
		tap_diag("too many temporary files");
		exit(tap_done() | 1);
	}
	snprintf(files[nfiles], sizeof(files[0]), "%s/%s", tmp_dir, name);
	return files[nfiles++];
}

/* ---- a byte builder with a chosen byte order ----------------------------- */

struct bld {
	uint8_t b[BLD_MAX];
	size_t n;
	bool be;
	size_t blk;		/* start of the open pcapng block */
};

static struct bld B;

static void
b_reset(bool be)
{
	B.n = 0;
	B.be = be;
}

static void
b_raw(const void *p, size_t n)
{
	if (B.n + n > BLD_MAX) {
		tap_diag("builder overflow");
		exit(tap_done() | 1);
	}
	memcpy(B.b + B.n, p, n);
	B.n += n;
}

static void
b8(uint8_t v)
{
	b_raw(&v, 1);
}

static void
b16(uint16_t v)
{
	uint8_t x[2];

	if (B.be) {
		x[0] = (uint8_t)(v >> 8);
		x[1] = (uint8_t)v;
	} else {
		x[0] = (uint8_t)v;
		x[1] = (uint8_t)(v >> 8);
	}
	b_raw(x, 2);
}

static void
b32(uint32_t v)
{
	if (B.be) {
		b16((uint16_t)(v >> 16));
		b16((uint16_t)v);
	} else {
		b16((uint16_t)v);
		b16((uint16_t)(v >> 16));
	}
}

static void
b64(uint64_t v)
{
	if (B.be) {
		b32((uint32_t)(v >> 32));
		b32((uint32_t)v);
	} else {
		b32((uint32_t)v);
		b32((uint32_t)(v >> 32));
	}
}

static void
b_pad(void)
{
	while (B.n % 4)
		b8(0);
}

static void
put_at32(size_t off, uint32_t v)
{
	size_t n = B.n;

	B.n = off;
	b32(v);
	B.n = n;
}

static void
blk_start(uint32_t type)
{
	B.blk = B.n;
	b32(type);
	b32(0);
}

static void
blk_end(void)
{
	uint32_t len = (uint32_t)(B.n - B.blk + 4);

	b32(len);
	put_at32(B.blk + 4, len);
}

static void
opt(uint16_t code, const void *v, uint16_t len)
{
	b16(code);
	b16(len);
	b_raw(v, len);
	b_pad();
}

static void
opt_end(void)
{
	b16(0);
	b16(0);
}

static void
shb(void)
{
	blk_start(0x0a0d0d0a);
	b32(0x1a2b3c4d);
	b16(1);
	b16(0);
	b64(UINT64_MAX);
	blk_end();
}

static void
idb(uint16_t linktype, uint32_t snaplen, const char *name, int tsresol)
{
	blk_start(1);
	b16(linktype);
	b16(0);
	b32(snaplen);
	if (name)
		opt(2, name, (uint16_t)strlen(name));
	if (tsresol >= 0) {
		uint8_t v = (uint8_t)tsresol;

		opt(9, &v, 1);
	}
	if (name || tsresol >= 0)
		opt_end();
	blk_end();
}

static void
epb(uint32_t if_id, uint64_t ts, const void *d, uint32_t caplen,
    uint32_t origlen, int flags)
{
	blk_start(6);
	b32(if_id);
	b32((uint32_t)(ts >> 32));
	b32((uint32_t)ts);
	b32(caplen);
	b32(origlen);
	b_raw(d, caplen);
	b_pad();
	if (flags >= 0) {
		uint32_t f = (uint32_t)flags;
		uint8_t v[4];

		/* the option value in the section's order */
		if (B.be) {
			v[0] = (uint8_t)(f >> 24);
			v[1] = (uint8_t)(f >> 16);
			v[2] = (uint8_t)(f >> 8);
			v[3] = (uint8_t)f;
		} else {
			memcpy(v, &f, 4);
		}
		opt(2, v, 4);
		opt_end();
	}
	blk_end();
}

static const char *
b_save(const char *name)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(B.b, 1, B.n, f) != B.n || fclose(f) != 0) {
		tap_diag("cannot write %s", path);
		exit(tap_done() | 1);
	}
	return path;
}

static const char *
save_bytes(const char *name, const void *p, size_t n)
{
	B.n = 0;
	b_raw(p, n);
	return b_save(name);
}

/* ---- helpers -------------------------------------------------------------- */

static uint8_t payload[4][300];

static void
fill_payloads(void)
{
	unsigned int i, j;

	for (i = 0; i < 4; i++)
		for (j = 0; j < sizeof(payload[i]); j++)
			payload[i][j] = (uint8_t)(i * 37 + j * 11 + 5);
}

static struct mpd_pcap_reader *
open_ok(const char *path, const char *what)
{
	char err[256] = "";
	struct mpd_pcap_reader *r = mpd_pcapread_open(path, err, sizeof(err));

	if (!ok(r != NULL, "%s: opens", what))
		tap_diag("%s", err);
	return r;
}

static void
check_pkt(struct mpd_pcap_reader *r, const char *what, uint64_t ts,
	  uint32_t if_id, uint16_t linktype, const char *if_name,
	  uint32_t dir, const void *data, uint32_t caplen, uint32_t origlen)
{
	struct mpd_pcap_pkt p;
	int rc = mpd_pcapread_next(r, &p);

	if (!ok(rc == 1, "%s: a packet", what)) {
		tap_diag("rc %d: %s", rc, mpd_pcapread_error(r));
		return;
	}
	is_int(p.ts_ns, ts, "%s: timestamp", what);
	is_int(p.if_id, if_id, "%s: interface", what);
	is_int(p.linktype, linktype, "%s: link type", what);
	if (if_name)
		ok(p.if_name && !strcmp(p.if_name, if_name),
		   "%s: if_name %s (got %s)", what, if_name,
		   p.if_name ? p.if_name : "NULL");
	else
		ok(p.if_name == NULL, "%s: no if_name", what);
	is_int(p.direction, dir, "%s: direction", what);
	is_int(p.caplen, caplen, "%s: caplen", what);
	is_int(p.origlen, origlen, "%s: origlen", what);
	ok(p.data && !memcmp(p.data, data, caplen), "%s: bytes", what);
}

static void
check_end(struct mpd_pcap_reader *r, const char *what)
{
	struct mpd_pcap_pkt p;
	int rc = mpd_pcapread_next(r, &p);

	if (!ok(rc == 0 && !mpd_pcapread_error(r) &&
		!mpd_pcapread_truncated(r), "%s: clean end", what))
		tap_diag("rc %d: %s", rc, mpd_pcapread_error(r));
	is_int(mpd_pcapread_next(r, &p), 0, "%s: stays at the end", what);
}

/* ---- our own writer --------------------------------------------------------- */

#define T0	1700000000123456789ull

static const char *
write_ours(const char *name, bool eth_only)
{
	const char *path = tmp_path(name);
	struct mpd_pcapng *w = mpd_pcapng_open(path);
	int e, u;

	if (!w) {
		tap_diag("cannot write %s", path);
		exit(tap_done() | 1);
	}
	e = mpd_pcapng_add_interface(w, MPD_LINKTYPE_ETHERNET, "hca1/1",
				     "RoCE");
	mpd_pcapng_write(w, (uint32_t)e, T0, MPD_PCAPNG_DIR_OUT, payload[0],
			 60);
	mpd_pcapng_write(w, (uint32_t)e, T0 + 1000, MPD_PCAPNG_DIR_IN,
			 payload[1], 299);
	if (!eth_only) {
		u = mpd_pcapng_add_interface(w, MPD_LINKTYPE_UPPER_PDU,
					     "hca2/1", NULL);
		mpd_pcapng_write_exported(w, (uint32_t)u, T0 + 2000,
					  MPD_PCAPNG_DIR_IN, "infiniband",
					  MPD_EXP_PDU_NO_PORT,
					  MPD_EXP_PDU_NO_PORT, payload[2],
					  282);
		mpd_pcapng_write_exported(w, (uint32_t)u, T0 + 3000,
					  MPD_PCAPNG_DIR_UNKNOWN, "madpmd",
					  MPD_EXP_PDU_NO_PORT,
					  MPD_EXP_PDU_NO_PORT, payload[3],
					  56);
		mpd_pcapng_write_exported(w, (uint32_t)u, T0 + 4000,
					  MPD_PCAPNG_DIR_OUT, "madpmd_ib", 1,
					  1, payload[2], 100);
		mpd_pcapng_write_exported(w, (uint32_t)u, T0 + 5000,
					  MPD_PCAPNG_DIR_OUT, "madpmd_mad",
					  MPD_EXP_PDU_NO_PORT,
					  MPD_EXP_PDU_NO_PORT, payload[2],
					  256);
	}
	mpd_pcapng_write(w, (uint32_t)e, T0 + 6000, MPD_PCAPNG_DIR_UNKNOWN,
			 payload[3], 14);
	if (mpd_pcapng_close(w) != 0) {
		tap_diag("cannot close %s", path);
		exit(tap_done() | 1);
	}
	return path;
}

static void
expect_frame(const struct mpd_pcap_pkt *p, const char *what,
	     enum mpd_frame_kind kind, const void *data, uint32_t len)
{
	uint8_t buf[2048];
	const uint8_t *f = NULL;
	uint32_t n = 0;
	enum mpd_frame_kind k = mpd_pcap_frame(p, buf, sizeof(buf), &f, &n);

	ok(k == kind, "%s: frame kind %s (got %s)", what,
	   mpd_frame_kind_name(kind), mpd_frame_kind_name(k));
	if (data) {
		is_int(n, len, "%s: frame length", what);
		ok(f && n == len && !memcmp(f, data, len), "%s: frame bytes",
		   what);
	}
}

static void
test_ours(void)
{
	const char *path = write_ours("ours.pcapng", false);
	struct mpd_pcap_reader *r = open_ok(path, "our pcapng");
	struct mpd_pcap_pkt p;
	const char *what[] = {
		"ours: IB", "ours: record", "ours: madpmd_ib", "ours: MAD",
	};
	enum mpd_frame_kind kinds[] = {
		MPD_FRAME_IB, MPD_FRAME_RECORD, MPD_FRAME_IB, MPD_FRAME_NONE,
	};
	const void *pdus[] = { payload[2], payload[3], payload[2], NULL };
	uint32_t lens[] = { 282, 56, 100, 0 };
	uint32_t dirs[] = { 1, 0, 2, 2 };
	unsigned int i;

	if (!r)
		return;
	ok(mpd_pcapread_is_pcapng(r), "ours: pcapng");
	check_pkt(r, "ours: 1st", T0, 0, 1, "hca1/1", 2, payload[0], 60, 60);
	check_pkt(r, "ours: 2nd", T0 + 1000, 0, 1, "hca1/1", 1, payload[1],
		  299, 299);
	for (i = 0; i < 4; i++) {
		if (!ok(mpd_pcapread_next(r, &p) == 1, "%s: read", what[i]))
			break;
		is_int(p.ts_ns, T0 + 2000 + 1000 * i, "%s: timestamp",
		       what[i]);
		is_int(p.if_id, 1, "%s: interface", what[i]);
		is_int(p.linktype, 252, "%s: link type", what[i]);
		ok(p.if_name && !strcmp(p.if_name, "hca2/1"), "%s: if_name",
		   what[i]);
		is_int(p.direction, dirs[i], "%s: direction", what[i]);
		ok(p.caplen == p.origlen && p.caplen > lens[i],
		   "%s: lengths cover the TLVs", what[i]);
		expect_frame(&p, what[i], kinds[i], pdus[i], lens[i]);
	}
	check_pkt(r, "ours: last", T0 + 6000, 0, 1, "hca1/1", 0, payload[3],
		  14, 14);
	if (ok(mpd_pcapread_next(r, &p) == 0, "ours: end"))
		ok(!mpd_pcapread_error(r), "ours: no error");
	mpd_pcapread_close(r);
}

/* ---- classic pcap ------------------------------------------------------------ */

static void
pcap_hdr(uint32_t magic, uint16_t linktype, uint32_t snaplen)
{
	b32(magic);
	b16(2);
	b16(4);
	b32(0);
	b32(0);
	b32(snaplen);
	b32(linktype | 0x10000000u);	/* an FCS bit the reader must mask */
}

static void
pcap_rec(uint32_t sec, uint32_t sub, const void *d, uint32_t caplen,
	 uint32_t origlen)
{
	b32(sec);
	b32(sub);
	b32(caplen);
	b32(origlen);
	b_raw(d, caplen);
}

static void
test_classic(void)
{
	static const struct {
		bool be, ns;
	} v[] = { { false, false }, { false, true }, { true, false },
		  { true, true } };
	char what[64], name[32];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		struct mpd_pcap_reader *r;
		struct mpd_pcap_pkt p;
		const char *path;

		snprintf(what, sizeof(what), "pcap %s %s",
			 v[i].be ? "BE" : "LE", v[i].ns ? "ns" : "us");
		snprintf(name, sizeof(name), "classic%u.pcap", i);
		b_reset(v[i].be);
		pcap_hdr(v[i].ns ? 0xa1b23c4d : 0xa1b2c3d4, 113, 96);
		pcap_rec(1700000000, v[i].ns ? 123456789 : 123456, payload[0],
			 40, 40);
		/* cut by the snap length */
		pcap_rec(1700000001, 7, payload[1], 96, 1500);
		/* more than the snap length: taken as it is */
		pcap_rec(1700000002, 0, payload[2], 120, 120);
		pcap_rec(1700000003, 1, payload[3], 0, 0);
		path = b_save(name);
		r = open_ok(path, what);
		if (!r)
			continue;
		ok(!mpd_pcapread_is_pcapng(r), "%s: classic", what);
		check_pkt(r, what, 1700000000123456789ull -
			  (v[i].ns ? 0 : 789), 0, 113, NULL, 0, payload[0],
			  40, 40);
		check_pkt(r, what, 1700000001000000000ull +
			  (v[i].ns ? 7 : 7000), 0, 113, NULL, 0, payload[1],
			  96, 1500);
		check_pkt(r, what, 1700000002000000000ull, 0, 113, NULL, 0,
			  payload[2], 120, 120);
		if (ok(mpd_pcapread_next(r, &p) == 1, "%s: empty packet",
		       what))
			is_int(p.caplen, 0, "%s: empty packet's caplen",
			       what);
		check_end(r, what);
		mpd_pcapread_close(r);
	}
}

/* A file cut anywhere inside its last record ends cleanly, flagged. */
static void
test_truncated_tail(void)
{
	const char *path = NULL;
	size_t full, cut;
	unsigned int fails = 0, ng;

	for (ng = 0; ng < 2; ng++) {
		b_reset(false);
		if (ng) {
			shb();
			idb(1, 0, "x", -1);
			epb(0, 1, payload[0], 50, 50, 1);
			full = B.n;
			epb(0, 2, payload[1], 77, 77, 2);
		} else {
			pcap_hdr(0xa1b2c3d4, 1, 65535);
			pcap_rec(1, 2, payload[0], 50, 50);
			full = B.n;
			pcap_rec(3, 4, payload[1], 77, 77);
		}
		for (cut = full + 1; cut < B.n; cut++) {
			struct mpd_pcap_reader *r;
			struct mpd_pcap_pkt p;
			char err[256];
			size_t n = B.n;
			int rc1, rc2;

			B.n = cut;
			path = b_save(ng ? "cut.pcapng" : "cut.pcap");
			nfiles--;	/* the same name each time */
			B.n = n;
			r = mpd_pcapread_open(path, err, sizeof(err));
			if (!r) {
				fails++;
				continue;
			}
			rc1 = mpd_pcapread_next(r, &p);
			rc2 = mpd_pcapread_next(r, &p);
			if (rc1 != 1 || rc2 != 0 || !mpd_pcapread_truncated(r) ||
			    !mpd_pcapread_error(r) ||
			    !strstr(mpd_pcapread_error(r), "cut short") ||
			    mpd_pcapread_next(r, &p) != 0) {
				if (!fails)
					tap_diag("cut at %zu: %d %d %s", cut,
						 rc1, rc2,
						 mpd_pcapread_error(r));
				fails++;
			}
			mpd_pcapread_close(r);
		}
		if (path)
			unlink(path);
		ok(fails == 0, "%s cut inside its last record: one packet, then a flagged clean end",
		   ng ? "pcapng" : "pcap");
	}
	B.n = 0;
}

/* ---- pcapng built by hand ------------------------------------------------------ */

static void
test_pcapng_hand(void)
{
	static const uint8_t unknown[] = "some name resolution";
	struct mpd_pcap_reader *r;
	struct mpd_pcap_pkt p;
	const char *path;
	uint8_t v[8];
	uint64_t t;

	/* section 0, big-endian: default microseconds, two interfaces */
	b_reset(true);
	shb();
	idb(1, 0, "be0", -1);
	idb(247, 64, NULL, 9);
	epb(0, 1700000000000001ull, payload[0], 61, 61, 2);
	/* a name resolution block and a custom block, skipped */
	blk_start(4);
	b_raw(unknown, sizeof(unknown));
	b_pad();
	blk_end();
	blk_start(0x00000bad);
	b32(32473);
	blk_end();
	epb(1, 1700000000000000005ull, payload[1], 64, 200, 1);
	/* section 1, little-endian: new interfaces, binary resolution,
	 * if_tsoffset, an interface statistics block, SPB, obsolete PB */
	B.be = false;
	shb();
	blk_start(1);
	b16(252);
	b16(0);
	b32(32);
	opt(3, "description, not a name", 23);
	v[0] = 0x80 | 20;	/* 2^-20 s */
	opt(9, v, 1);
	memset(v, 0, 8);
	v[0] = 10;		/* +10 s, little-endian int64 */
	opt(14, v, 8);
	opt_end();
	blk_end();
	idb(1, 20, "le1", 3);
	blk_start(5);		/* ISB */
	b32(0);
	b32(0);
	b32(0);
	blk_end();
	/* 3.5 s in 2^-20 s units */
	epb(0, (3ull << 20) | (1u << 19), payload[2], 33, 33, 3);
	blk_start(3);		/* SPB on interface 0, cut to its snap length */
	b32(40);
	b_raw(payload[3], 32);
	blk_end();
	blk_start(2);		/* obsolete PB, interface 1, pack_flags */
	b16(1);
	b16(0);
	b32(0);
	b32(4321);
	b32(18);
	b32(18);
	b_raw(payload[0], 18);
	b_pad();
	v[0] = 2;
	v[1] = v[2] = v[3] = 0;
	opt(2, v, 4);
	opt_end();
	blk_end();
	/* an SPB holding more than the snap length, one holding less */
	blk_start(3);
	b32(36);
	b_raw(payload[1], 36);
	blk_end();
	blk_start(3);
	b32(30);
	b_raw(payload[2], 30);
	b_pad();
	blk_end();
	path = b_save("hand.pcapng");

	r = open_ok(path, "hand pcapng");
	if (!r)
		return;
	check_pkt(r, "BE section: EPB", 1700000000000001000ull, 0, 1, "be0", 2,
		  payload[0], 61, 61);
	if (ok(mpd_pcapread_next(r, &p) == 1, "BE section: 2nd EPB")) {
		is_int(p.section, 0, "BE section: section 0");
		is_int(p.ts_ns, 1700000000000000005ull, "BE: ns resolution");
		is_int(p.if_id, 1, "BE: interface 1");
		is_int(p.linktype, 247, "BE: link type");
		ok(!p.if_name, "BE: no name");
		is_int(p.direction, 1, "BE: inbound");
		is_int(p.caplen, 64, "BE: caplen");
		is_int(p.origlen, 200, "BE: origlen");
		expect_frame(&p, "BE: linktype 247", MPD_FRAME_IB, payload[1],
			     64);
	}
	if (ok(mpd_pcapread_next(r, &p) == 1, "LE section: EPB")) {
		is_int(p.section, 1, "LE section: section 1");
		is_int(p.if_id, 0, "LE: interface ids start again");
		is_int(p.linktype, 252, "LE: link type");
		ok(!p.if_name, "LE: a description is no name");
		is_int(p.ts_ns, 13500000000ull, "LE: 2^-20 resolution + offset");
		is_int(p.direction, 0, "LE: direction 3 is no direction");
		ok(p.has_ts, "LE: EPB has a time");
		t = p.ts_ns;
	} else {
		t = 0;
	}
	if (ok(mpd_pcapread_next(r, &p) == 1, "SPB")) {
		is_int(p.if_id, 0, "SPB: interface 0");
		ok(!p.has_ts, "SPB: no time of its own");
		is_int(p.ts_ns, t, "SPB: the previous time");
		is_int(p.caplen, 32, "SPB: caplen is the snap length");
		is_int(p.origlen, 40, "SPB: origlen");
		ok(!memcmp(p.data, payload[3], 32), "SPB: bytes");
	}
	check_pkt(r, "obsolete PB", 4321000000ull, 1, 1, "le1", 2, payload[0],
		  18, 18);
	check_pkt(r, "SPB over the snap length", 4321000000ull, 0, 252, NULL,
		  0, payload[1], 32, 36);
	check_pkt(r, "SPB under the snap length", 4321000000ull, 0, 252, NULL,
		  0, payload[2], 30, 30);
	check_end(r, "hand pcapng");
	mpd_pcapread_close(r);
}

/* A block of other contents may be bigger than any packet: skipped by
 * streaming, never buffered whole. */
static void
test_big_unknown(void)
{
	const char *path = tmp_path("big.pcapng");
	struct mpd_pcap_reader *r;
	FILE *f;
	uint32_t len = 3u << 20, i;
	uint8_t z[4096] = { 0 };

	b_reset(false);
	shb();
	idb(1, 0, NULL, -1);
	blk_start(0x40000bad);
	put_at32(B.blk + 4, len);
	f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(B.b, 1, B.n, f);
	for (i = 0; i < (len - 12) / sizeof(z); i++)
		fwrite(z, 1, sizeof(z), f);
	fwrite(z, 1, (len - 12) % sizeof(z), f);
	fwrite(&len, 1, 4, f);
	b_reset(false);
	epb(0, 5, payload[0], 20, 20, -1);
	fwrite(B.b, 1, B.n, f);
	fclose(f);
	r = open_ok(path, "3 MiB unknown block");
	if (!r)
		return;
	check_pkt(r, "after a 3 MiB unknown block", 5000, 0, 1, NULL, 0,
		  payload[0], 20, 20);
	check_end(r, "3 MiB unknown block");
	mpd_pcapread_close(r);
}

/* ---- malformed files ---------------------------------------------------------- */

struct bad {
	const char *what;
	bool at_open;		/* refused by open, else by next */
	const char *words;	/* in the sentence */
};

static void
expect_bad(const char *path, const struct bad *b)
{
	char err[384] = "";
	struct mpd_pcap_reader *r = mpd_pcapread_open(path, err, sizeof(err));
	struct mpd_pcap_pkt p;
	int rc = 0, n = 0;

	if (b->at_open) {
		ok(r == NULL, "%s: refused by open", b->what);
		ok(strstr(err, path) && strstr(err, b->words),
		   "%s: says \"%s\" (%s)", b->what, b->words, err);
		mpd_pcapread_close(r);
		return;
	}
	if (!ok(r != NULL, "%s: opens", b->what)) {
		tap_diag("%s", err);
		return;
	}
	while (n < 100 && (rc = mpd_pcapread_next(r, &p)) == 1)
		n++;
	ok(rc == -EBADMSG || rc == -EPROTONOSUPPORT, "%s: fails (%d)",
	   b->what, rc);
	ok(mpd_pcapread_error(r) && strstr(mpd_pcapread_error(r), path) &&
	   strstr(mpd_pcapread_error(r), b->words), "%s: says \"%s\" (%s)",
	   b->what, b->words, mpd_pcapread_error(r));
	is_int(mpd_pcapread_next(r, &p), rc, "%s: keeps failing", b->what);
	mpd_pcapread_close(r);
}

static void
test_malformed(void)
{
	static const uint8_t garbage[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	static const uint8_t three[] = { 0xd4, 0xc3, 0xb2 };
	static const uint8_t kuz[] = { 0x34, 0xcd, 0xb2, 0xa1, 2, 0, 4, 0 };
	char err[256] = "";
	struct bad b;
	uint8_t v;

	ok(!mpd_pcapread_open(tmp_path("missing.pcap"), err, sizeof(err)) &&
	   strstr(err, "missing.pcap") && strstr(err, "No such file"),
	   "a missing file: %s", err);
	nfiles--;
	ok(!mpd_pcapread_open("", err, sizeof(err)), "no name: %s", err);

	b = (struct bad){ "empty file", true, "empty" };
	expect_bad(save_bytes("empty", "", 0), &b);
	b = (struct bad){ "3-byte file", true, "3 bytes" };
	expect_bad(save_bytes("three", three, sizeof(three)), &b);
	b = (struct bad){ "garbage", true, "not a pcap or pcapng file" };
	expect_bad(save_bytes("garbage", garbage, sizeof(garbage)), &b);
	b = (struct bad){ "Kuznetsov pcap", true, "not supported" };
	expect_bad(save_bytes("kuz", kuz, sizeof(kuz)), &b);

	b_reset(false);
	pcap_hdr(0xa1b2c3d4, 1, 65535);
	B.n = 10;
	b = (struct bad){ "truncated pcap header", true, "pcap file header" };
	expect_bad(b_save("trunc-hdr.pcap"), &b);

	b_reset(true);
	pcap_hdr(0xa1b2c3d4, 1, 65535);
	put_at32(4, 1u << 16);	/* version 1.0 */
	b = (struct bad){ "pcap version 1", true, "version 1.0" };
	expect_bad(b_save("v1.pcap"), &b);

	b_reset(false);
	pcap_hdr(0xa1b2c3d4, 1, 65535);
	pcap_rec(1, 2, payload[0], 10, 10);
	pcap_rec(1, 2, payload[0], 10, 10);
	put_at32(B.n - 10 - 8, 0x7fffffff);
	b = (struct bad){ "pcap caplen 2^31", false, "damaged" };
	expect_bad(b_save("huge.pcap"), &b);

	b_reset(false);
	shb();
	B.n = 20;
	b = (struct bad){ "truncated SHB", true, "cut short" };
	expect_bad(b_save("trunc-shb.pcapng"), &b);

	b_reset(false);
	shb();
	put_at32(8, 0x11223344);
	b = (struct bad){ "no byte-order magic", true, "byte-order magic" };
	expect_bad(b_save("bom.pcapng"), &b);

	b_reset(false);
	shb();
	put_at32(4, 30);
	b = (struct bad){ "SHB length 30", true, "multiple of 4" };
	expect_bad(b_save("shb30.pcapng"), &b);

	b_reset(false);
	shb();
	B.b[12] = 2;
	b = (struct bad){ "pcapng 2.0", true, "version 2.0" };
	expect_bad(b_save("v2.pcapng"), &b);

	b_reset(false);
	shb();
	idb(1, 0, NULL, -1);
	blk_start(6);
	blk_end();
	put_at32(B.blk + 4, 8);
	b = (struct bad){ "block length 8", false, "shorter than" };
	expect_bad(b_save("len8.pcapng"), &b);

	b_reset(false);
	shb();
	idb(1, 0, NULL, -1);
	epb(0, 1, payload[0], 20, 20, -1);
	put_at32(B.blk + 4, 58);
	b = (struct bad){ "block length 58", false, "multiple of 4" };
	expect_bad(b_save("len58.pcapng"), &b);

	b_reset(false);
	shb();
	idb(1, 0, NULL, -1);
	epb(0, 1, payload[0], 20, 20, -1);
	put_at32(B.n - 4, 1000);
	b = (struct bad){ "trailing length differs", false, "trailing length" };
	expect_bad(b_save("trail.pcapng"), &b);

	b_reset(false);
	shb();
	idb(1, 0, NULL, -1);
	blk_start(0x0bad);
	b32(0);
	blk_end();
	put_at32(B.n - 4, 4);
	b = (struct bad){ "unknown block's trailing length", false,
			  "trailing length" };
	expect_bad(b_save("trail-skip.pcapng"), &b);

	b_reset(false);
	shb();
	idb(1, 0, NULL, -1);
	epb(0, 1, payload[0], 20, 20, -1);
	put_at32(B.blk + 20, 21);	/* caplen past the block */
	b = (struct bad){ "caplen > block", false, "more than its" };
	expect_bad(b_save("caplen.pcapng"), &b);

	b_reset(false);
	shb();
	idb(1, 0, NULL, -1);
	epb(3, 1, payload[0], 20, 20, -1);
	b = (struct bad){ "undeclared interface", false, "interface 3" };
	expect_bad(b_save("ifid.pcapng"), &b);

	b_reset(false);
	shb();
	epb(0, 1, payload[0], 20, 20, -1);
	b = (struct bad){ "EPB before any IDB", false, "declares 0" };
	expect_bad(b_save("noidb.pcapng"), &b);

	b_reset(false);
	shb();
	blk_start(3);
	b32(4);
	b32(0);
	blk_end();
	b = (struct bad){ "SPB before any IDB", false, "declares 0" };
	expect_bad(b_save("spb-noidb.pcapng"), &b);

	b_reset(false);
	shb();
	idb(1, 0, NULL, -1);
	epb(0, 1, payload[0], 20, 20, 1);
	put_at32(B.n - 16, 40u << 16 | 2);	/* epb_flags length 40 */
	b = (struct bad){ "option past its block", false, "runs past" };
	expect_bad(b_save("opt.pcapng"), &b);

	b_reset(false);
	shb();
	blk_start(1);
	b16(1);
	b16(0);
	b32(0);
	v = 30;			/* 10^-30 */
	opt(9, &v, 1);
	blk_end();
	b = (struct bad){ "if_tsresol 10^-30", false, "if_tsresol" };
	expect_bad(b_save("tsresol.pcapng"), &b);

	b_reset(false);
	shb();
	blk_start(1);
	b16(1);
	b16(0);
	b32(0);
	b16(2);
	b16(0);			/* an empty if_name, opt_endofopt, */
	b16(0);
	b16(0);
	b32(0);			/* then bytes after it: fine */
	blk_end();
	blk_start(1);
	b16(1);
	b16(0);
	b32(0);
	b16(2);
	b16(5);			/* an if_name whose padding is missing */
	b32(0x41414141);
	blk_end();
	b = (struct bad){ "option padding past its block", false,
			  "runs past" };
	expect_bad(b_save("pad.pcapng"), &b);

	b_reset(false);
	shb();
	idb(1, 0, NULL, -1);
	blk_start(6);
	put_at32(B.blk + 4, 0x7ffffff0);
	b = (struct bad){ "2 GiB packet block", false, "damaged" };
	expect_bad(b_save("huge.pcapng"), &b);
}

/* Random damage: whatever it does, the reader ends, and says why. */
static void
test_damage(void)
{
	const char *src = write_ours("damage-src.pcapng", false);
	const char *dst = tmp_path("damaged.pcapng");
	static uint8_t orig[4096];
	size_t len;
	unsigned int i, j, bad_end = 0, runs = 600;
	FILE *f = fopen(src, "rb");

	if (!f)
		return;
	len = fread(orig, 1, sizeof(orig), f);
	fclose(f);
	for (i = 0; i < runs; i++) {
		struct mpd_pcap_reader *r;
		struct mpd_pcap_pkt p;
		char err[384];
		size_t n = len;
		int rc = 0, k = 0;

		b_reset(false);
		b_raw(orig, len);
		for (j = 0; j < 1 + rnd64() % 4; j++)
			B.b[rnd64() % len] ^= (uint8_t)(1u << (rnd64() % 8));
		if (rnd64() % 3 == 0)
			n = rnd64() % len;
		B.n = n;
		f = fopen(dst, "wb");
		if (!f || fwrite(B.b, 1, B.n, f) != B.n || fclose(f) != 0)
			return;
		r = mpd_pcapread_open(dst, err, sizeof(err));
		if (!r) {
			bad_end += !err[0];
			continue;
		}
		while (k < 1000 && (rc = mpd_pcapread_next(r, &p)) == 1) {
			/* touch every byte the reader hands out */
			volatile uint8_t x = 0;
			uint32_t m;

			for (m = 0; m < p.caplen; m++)
				x ^= p.data[m];
			(void)x;
			k++;
		}
		if (k >= 1000 || (rc < 0 && !mpd_pcapread_error(r)))
			bad_end++;
		mpd_pcapread_close(r);
	}
	ok(bad_end == 0, "%u damaged files: each ends, errors said", runs);
}

/* ---- files from Wireshark's writers ----------------------------------------- */

static int
run(const char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st = -1;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv,
			 environ) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool
have(const char *tool)
{
	const char *argv[] = { tool, "-v", NULL };

	return run(argv) == 0;
}

static void
test_wireshark(void)
{
	const char *ours = write_ours("eth.pcapng", true);
	const char *all = write_ours("all.pcapng", false);
	const char *out_us = tmp_path("editcap.pcap");
	const char *out_ns = tmp_path("editcap-ns.pcap");
	const char *out_ng = tmp_path("editcap.pcapng");
	const char *merged = tmp_path("merged.pcapng");
	const char *ecap_us[] = { "editcap", "-F", "pcap", ours, out_us, NULL };
	const char *ecap_ns[] = { "editcap", "-F", "nsecpcap", ours, out_ns,
				  NULL };
	const char *ecap_ng[] = { "editcap", "-F", "pcapng", all, out_ng, NULL };
	const char *merge[] = { "mergecap", "-w", merged, ours, all, NULL };
	struct mpd_pcap_reader *r;
	struct mpd_pcap_pkt p;
	unsigned int n, types;

	/* wireshark-common, which scripts/setup installs with tshark */
	if (!ok(have("editcap") && have("mergecap"),
		"editcap and mergecap are installed"))
		return;
	if (ok(run(ecap_us) == 0, "editcap -F pcap") &&
	    (r = open_ok(out_us, "editcap's pcap"))) {
		ok(!mpd_pcapread_is_pcapng(r), "editcap's pcap: classic");
		check_pkt(r, "editcap's pcap", T0 - 789, 0, 1, NULL, 0,
			  payload[0], 60, 60);
		check_pkt(r, "editcap's pcap", T0 + 1000 - 789, 0, 1, NULL, 0,
			  payload[1], 299, 299);
		check_pkt(r, "editcap's pcap", T0 + 6000 - 789, 0, 1, NULL, 0,
			  payload[3], 14, 14);
		check_end(r, "editcap's pcap");
		mpd_pcapread_close(r);
	}
	if (ok(run(ecap_ns) == 0, "editcap -F nsecpcap") &&
	    (r = open_ok(out_ns, "editcap's ns pcap"))) {
		check_pkt(r, "editcap's ns pcap", T0, 0, 1, NULL, 0,
			  payload[0], 60, 60);
		check_pkt(r, "editcap's ns pcap", T0 + 1000, 0, 1, NULL, 0,
			  payload[1], 299, 299);
		check_pkt(r, "editcap's ns pcap", T0 + 6000, 0, 1, NULL, 0,
			  payload[3], 14, 14);
		check_end(r, "editcap's ns pcap");
		mpd_pcapread_close(r);
	}
	if (ok(run(ecap_ng) == 0, "editcap -F pcapng") &&
	    (r = open_ok(out_ng, "editcap's pcapng"))) {
		check_pkt(r, "editcap's pcapng", T0, 0, 1, "hca1/1", 2,
			  payload[0], 60, 60);
		check_pkt(r, "editcap's pcapng", T0 + 1000, 0, 1, "hca1/1", 1,
			  payload[1], 299, 299);
		if (ok(mpd_pcapread_next(r, &p) == 1, "editcap's pcapng: PDU"))
			expect_frame(&p, "editcap's pcapng", MPD_FRAME_IB,
				     payload[2], 282);
		mpd_pcapread_close(r);
	}
	/* mergecap: interfaces of both files in one section, time order */
	if (ok(run(merge) == 0, "mergecap") &&
	    (r = open_ok(merged, "mergecap's pcapng"))) {
		n = types = 0;
		while (mpd_pcapread_next(r, &p) == 1) {
			n++;
			types |= 1u << (p.linktype == 252);
			if (p.linktype == 252 && p.if_name)
				types |= strcmp(p.if_name, "hca2/1") ? 8 : 4;
		}
		is_int(n, 3 + 7, "mergecap's pcapng: every packet");
		is_int(types, 7, "mergecap's pcapng: both link types, names");
		ok(!mpd_pcapread_error(r), "mergecap's pcapng: clean end");
		mpd_pcapread_close(r);
	}
}

/* text2pcap writes a Linux cooked capture: it replays as Ethernet */
static void
test_text2pcap(void)
{
	static const char hex[] =
		"0000  00 00 00 01 00 06 52 54 00 12 34 56 00 00 08 00\n"
		"0010  45 00 00 14 00 00 00 00 40 11 00 00 7f 00 00 01\n"
		"0020  7f 00 00 01\n";
	static const uint8_t want[] = {
		0x02, 0, 0, 0, 0, 0x01, 0x52, 0x54, 0, 0x12, 0x34, 0x56,
		0x08, 0x00, 0x45, 0, 0, 0x14, 0, 0, 0, 0, 0x40, 0x11, 0, 0,
		0x7f, 0, 0, 1, 0x7f, 0, 0, 1,
	};
	const char *txt = save_bytes("sll.txt", hex, sizeof(hex) - 1);
	const char *out = tmp_path("sll.pcap");
	const char *argv[] = { "text2pcap", "-q", "-F", "pcap", "-l", "113",
			       txt, out, NULL };
	struct mpd_pcap_reader *r;
	struct mpd_pcap_pkt p;

	if (!ok(have("text2pcap"), "text2pcap is installed"))
		return;
	if (!ok(run(argv) == 0, "text2pcap -l 113") ||
	    !(r = open_ok(out, "text2pcap's SLL pcap")))
		return;
	if (ok(mpd_pcapread_next(r, &p) == 1, "text2pcap's SLL: a packet")) {
		is_int(p.linktype, 113, "text2pcap's SLL: link type");
		is_int(p.caplen, 36, "text2pcap's SLL: caplen");
		expect_frame(&p, "text2pcap's SLL", MPD_FRAME_ETH, want,
			     sizeof(want));
	}
	check_end(r, "text2pcap's SLL");
	mpd_pcapread_close(r);
}

/* ---- packets to frames -------------------------------------------------------- */

static void
test_frames(void)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };
	uint8_t d[400], want[400], buf[64];
	struct mpd_pcap_pkt p = { .data = d };
	const uint8_t *f;
	uint32_t n;

	/* SLL: IPv4 from an Ethernet sender */
	memset(d, 0, sizeof(d));
	d[1] = 0;		/* PACKET_HOST */
	d[3] = 1;		/* ARPHRD_ETHER */
	d[5] = 6;
	memcpy(d + 6, mac, 6);
	d[14] = 0x08;
	d[15] = 0x00;
	memcpy(d + 16, payload[0], 100);
	p.linktype = 113;
	p.caplen = p.origlen = 116;
	memset(want, 0, 6);
	want[0] = 0x02;
	want[5] = 0x01;
	memcpy(want + 6, mac, 6);
	want[12] = 0x08;
	want[13] = 0x00;
	memcpy(want + 14, payload[0], 100);
	expect_frame(&p, "SLL IPv4", MPD_FRAME_ETH, want, 114);
	/* IPv6 from a sender without a MAC: a made-up one */
	d[3] = 0xff;
	d[14] = 0x86;
	d[15] = 0xdd;
	want[11] = 0x02;
	memset(want + 6, 0, 5);
	want[6] = 0x02;
	want[12] = 0x86;
	want[13] = 0xdd;
	expect_frame(&p, "SLL IPv6", MPD_FRAME_ETH, want, 114);
	ok(mpd_pcap_frame(&p, buf, sizeof(buf), &f, &n) ==
	   MPD_FRAME_MALFORMED, "SLL: a frame bigger than buf");
	d[14] = 0x08;
	d[15] = 0x06;
	expect_frame(&p, "SLL ARP", MPD_FRAME_NONE, NULL, 0);
	p.caplen = 15;
	expect_frame(&p, "SLL too short", MPD_FRAME_MALFORMED, NULL, 0);

	/* SLL2: RoCEv1 */
	memset(d, 0, sizeof(d));
	d[0] = 0x89;
	d[1] = 0x15;
	d[9] = 1;
	d[11] = 6;
	memcpy(d + 12, mac, 6);
	memcpy(d + 20, payload[1], 80);
	p.linktype = 276;
	p.caplen = 100;
	memcpy(want + 6, mac, 6);
	want[12] = 0x89;
	want[13] = 0x15;
	memcpy(want + 14, payload[1], 80);
	expect_frame(&p, "SLL2 RoCEv1", MPD_FRAME_ETH, want, 94);

	/* Ethernet and IB link types */
	p.linktype = 1;
	p.caplen = 13;
	expect_frame(&p, "Ethernet of 13 bytes", MPD_FRAME_MALFORMED, NULL,
		     0);
	p.caplen = 60;
	expect_frame(&p, "Ethernet", MPD_FRAME_ETH, d, 60);
	p.linktype = 247;
	expect_frame(&p, "INFINIBAND", MPD_FRAME_IB, d, 60);
	p.linktype = 105;
	expect_frame(&p, "802.11", MPD_FRAME_NONE, NULL, 0);

	/* exported PDUs: hand-made TLVs, no padding, unknown tags first */
	p.linktype = 252;
	memset(d, 0, sizeof(d));
	memcpy(d, "\x00\x0b\x00\x03ip\x00", 7);		/* heuristic name */
	memcpy(d + 7, "\x00\x0c\x00\x0e" "eth_withoutfcs", 18);
	memcpy(d + 25, "\x00\x00\x00\x00", 4);
	memcpy(d + 29, payload[2], 64);
	p.caplen = 93;
	expect_frame(&p, "exported eth_withoutfcs", MPD_FRAME_ETH, payload[2],
		     64);
	p.caplen = 27;
	expect_frame(&p, "exported PDU without the end tag",
		     MPD_FRAME_MALFORMED, NULL, 0);
	p.caplen = 93;
	d[2] = 0x01;
	expect_frame(&p, "exported PDU TLV past the packet",
		     MPD_FRAME_MALFORMED, NULL, 0);
	memcpy(d, "\x00\x00\x00\x00", 4);
	p.caplen = 20;
	expect_frame(&p, "exported PDU without a name", MPD_FRAME_NONE,
		     d + 4, 16);
	p.caplen = 3;
	expect_frame(&p, "exported PDU of 3 bytes", MPD_FRAME_MALFORMED, NULL,
		     0);
}

int
main(void)
{
	tap_seed();
	fill_payloads();
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/madpmd-test-pcapread-XXXXXX");
	if (!mkdtemp(tmp_dir)) {
		tmp_dir[0] = 0;
		tap_diag("mkdtemp: %s", strerror(errno));
		return 1;
	}
	atexit(cleanup);
	test_ours();
	test_classic();
	test_truncated_tail();
	test_pcapng_hand();
	test_big_unknown();
	test_malformed();
	test_damage();
	test_wireshark();
	test_text2pcap();
	test_frames();
	return tap_done();
}
