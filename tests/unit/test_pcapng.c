/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the pcapng writer: a file written through the API is read
 * back here and compared with blocks built in the test from the pcapng
 * specification (SHB, IDB, EPB, options, 32-bit padding) and Wireshark's
 * exported-PDU TLVs; then walked block by block; then every error path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "madpmd/pcapng.h"
#include "tap.h"

#define SNAPLEN		262144u
#define EXP_MAX		(2u << 20)

static char tmp_dir[64];
static char tmp_file[128];
static char tmp_file2[128];

static uint8_t *expect;
static size_t exp_len;

static void
cleanup(void)
{
	if (tmp_file[0])
		unlink(tmp_file);
	if (tmp_file2[0])
		unlink(tmp_file2);
	if (tmp_dir[0])
		rmdir(tmp_dir);
	tmp_dir[0] = 0;
}

/* ---- the expected bytes, from the specification -------------------------- */

static void
e_bytes(const void *p, size_t n)
{
	if (exp_len + n > EXP_MAX) {
		tap_diag("expected file too large");
		exit(tap_done() | 1);
	}
	if (n)
		memcpy(expect + exp_len, p, n);
	exp_len += n;
}

static void
e_pad(size_t n)
{
	static const uint8_t z[4];

	e_bytes(z, (4 - n % 4) % 4);
}

static void
e32(uint32_t v)
{
	e_bytes(&v, 4);		/* the writer's (host) byte order */
}

static void
e16(uint16_t v)
{
	e_bytes(&v, 2);
}

static void
e_opt(uint16_t code, const void *v, uint16_t len)
{
	e16(code);
	e16(len);
	e_bytes(v, len);
	e_pad(len);
}

static void
e_shb(void)
{
	uint64_t section_len = UINT64_MAX;

	e32(0x0a0d0d0a);
	e32(44);
	e32(0x1a2b3c4d);
	e16(1);
	e16(0);
	e_bytes(&section_len, 8);
	e_opt(4, "madpmd", 6);		/* shb_userappl */
	e_opt(0, NULL, 0);
	e32(44);
}

static void
e_idb(uint16_t linktype, const char *name, const char *desc)
{
	uint8_t tsresol = 9;
	size_t nl = name ? strlen(name) : 0, dl = desc ? strlen(desc) : 0;
	uint32_t len = 20 + 8 + 4;

	if (nl)
		len += 4 + (uint32_t)((nl + 3) & ~3u);
	if (dl)
		len += 4 + (uint32_t)((dl + 3) & ~3u);
	e32(1);
	e32(len);
	e16(linktype);
	e16(0);
	e32(SNAPLEN);
	if (nl)
		e_opt(2, name, (uint16_t)nl);	/* if_name */
	if (dl)
		e_opt(3, desc, (uint16_t)dl);	/* if_description */
	e_opt(9, &tsresol, 1);			/* if_tsresol */
	e_opt(0, NULL, 0);
	e32(len);
}

static void
e_epb(uint32_t if_id, uint64_t ts, uint32_t dir, const void *hdr,
      size_t hlen, const void *data, size_t len)
{
	size_t cap = hlen + len;
	uint32_t blen = (uint32_t)(28 + ((cap + 3) & ~(size_t)3) +
				   (dir ? 12 : 0) + 4);

	e32(6);
	e32(blen);
	e32(if_id);
	e32((uint32_t)(ts >> 32));
	e32((uint32_t)ts);
	e32((uint32_t)cap);
	e32((uint32_t)cap);
	e_bytes(hdr, hlen);
	e_bytes(data, len);
	e_pad(cap);
	if (dir) {
		e_opt(2, &dir, 4);		/* epb_flags */
		e_opt(0, NULL, 0);
	}
	e32(blen);
}

/* Exported-PDU TLVs (wsutil/exported_pdu_tlvs.h): big-endian tag and
 * length; the dissector name NUL-terminated and padded to 32 bits. */
static size_t
tlvs(uint8_t *b, const char *name, bool ports, uint32_t src, uint32_t dst)
{
	size_t nl = strlen(name), padded = (nl + 1 + 3) & ~(size_t)3, n = 0;

	b[n++] = 0;
	b[n++] = 12;
	b[n++] = (uint8_t)(padded >> 8);
	b[n++] = (uint8_t)padded;
	memset(b + n, 0, padded);
	memcpy(b + n, name, nl);
	n += padded;
	if (ports) {
		const uint32_t v[3] = { 14, src, dst };
		unsigned int i;

		for (i = 0; i < 3; i++) {
			b[n++] = 0;
			b[n++] = (uint8_t)(24 + i);
			b[n++] = 0;
			b[n++] = 4;
			b[n++] = (uint8_t)(v[i] >> 24);
			b[n++] = (uint8_t)(v[i] >> 16);
			b[n++] = (uint8_t)(v[i] >> 8);
			b[n++] = (uint8_t)v[i];
		}
	}
	memset(b + n, 0, 4);	/* end of options */
	return n + 4;
}

/* ---- reading the file back ---------------------------------------------- */

static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = malloc(EXP_MAX);
	size_t n = 0, r;

	if (!f || !b) {
		if (f)
			fclose(f);
		free(b);
		return NULL;
	}
	while ((r = fread(b + n, 1, EXP_MAX - n, f)) > 0)
		n += r;
	fclose(f);
	*len = n;
	return b;
}

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t
rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

struct walk {
	size_t blocks, idbs, epbs, bad;
	uint16_t linktype[8];
	uint32_t dirs[16];
	uint64_t ts[16];
	uint32_t ifid[16];
	uint32_t caplen[16];
	size_t data_off[16];
};

/* Walks the options of a block body; checks their 32-bit padding and
 * that they end with opt_endofopt at exactly the block's end. Returns the
 * value of option code want (a 4-byte one), or UINT32_MAX. */
static uint32_t
walk_opts(const uint8_t *p, size_t len, uint16_t want, size_t *bad,
	  uint8_t *tsresol)
{
	size_t off = 0, i;
	uint32_t v = UINT32_MAX;

	while (off + 4 <= len) {
		uint16_t code = rd16(p + off), olen = rd16(p + off + 2);

		if (code == 0) {
			if (olen != 0 || off + 4 != len)
				(*bad)++;
			return v;
		}
		if (off + 4 + ((olen + 3u) & ~3u) > len) {
			(*bad)++;
			return v;
		}
		if (code == want && olen == 4)
			v = rd32(p + off + 4);
		if (tsresol && code == 9 && olen == 1)
			*tsresol = p[off + 4];
		for (i = olen; i < ((olen + 3u) & ~3u); i++)
			if (p[off + 4 + i] != 0)
				(*bad)++;	/* padding is zero */
		off += 4 + ((olen + 3u) & ~3u);
	}
	(*bad)++;	/* no opt_endofopt */
	return v;
}

static void
walk_file(const uint8_t *f, size_t len, struct walk *w)
{
	size_t off = 0;

	memset(w, 0, sizeof(*w));
	while (off < len) {
		uint32_t type, blen;

		if (len - off < 12) {
			w->bad++;
			return;
		}
		type = rd32(f + off);
		blen = rd32(f + off + 4);
		if (blen < 12 || blen % 4 || blen > len - off ||
		    rd32(f + off + blen - 4) != blen) {
			tap_diag("block at %zu: bad length %u", off, blen);
			w->bad++;
			return;
		}
		w->blocks++;
		if (type == 0x0a0d0d0a) {
			if (off != 0 || rd32(f + 8) != 0x1a2b3c4d ||
			    rd16(f + 12) != 1 || rd16(f + 14) != 0)
				w->bad++;
			walk_opts(f + off + 24, blen - 28, 0, &w->bad, NULL);
		} else if (type == 1) {
			uint8_t tsresol = 0;

			if (w->idbs < 8)
				w->linktype[w->idbs] = rd16(f + off + 8);
			if (rd16(f + off + 10) != 0 ||
			    rd32(f + off + 12) != SNAPLEN)
				w->bad++;
			walk_opts(f + off + 16, blen - 20, 0, &w->bad,
				  &tsresol);
			if (tsresol != 9)
				w->bad++;
			w->idbs++;
		} else if (type == 6) {
			size_t k = w->epbs++, cap = rd32(f + off + 20);
			size_t body = 28 + ((cap + 3) & ~(size_t)3), i;

			if (k >= 16 || body > blen - 4 ||
			    rd32(f + off + 24) != cap) {
				w->bad++;
				return;
			}
			w->ifid[k] = rd32(f + off + 8);
			w->ts[k] = (uint64_t)rd32(f + off + 12) << 32 |
				   rd32(f + off + 16);
			w->caplen[k] = (uint32_t)cap;
			w->data_off[k] = off + 28;
			if (w->ifid[k] >= w->idbs)
				w->bad++;
			/* padding after the data is zero */
			for (i = cap; i < body - 28; i++)
				if (f[off + 28 + i] != 0)
					w->bad++;
			w->dirs[k] = body == blen - 4 ? 0 :
				     walk_opts(f + off + body, blen - 4 - body,
					       2, &w->bad, NULL);
		} else {
			w->bad++;
		}
		off += blen;
	}
}

/* Parses the exported-PDU TLVs at p; returns their length or 0. */
static size_t
parse_tlvs(const uint8_t *p, size_t len, char *name, size_t name_cap,
	   uint32_t *src, uint32_t *dst, int *ptype)
{
	size_t off = 0, i;

	*src = *dst = UINT32_MAX;
	*ptype = -1;
	name[0] = 0;
	while (off + 4 <= len) {
		uint16_t tag = (uint16_t)(p[off] << 8 | p[off + 1]);
		uint16_t tl = (uint16_t)(p[off + 2] << 8 | p[off + 3]);
		const uint8_t *v = p + off + 4;

		if (tag == 0)
			return tl == 0 ? off + 4 : 0;
		if (off + 4 + tl > len)
			return 0;
		if (tag == 12) {
			if (tl % 4 || tl == 0 || v[tl - 1] != 0 ||
			    tl >= name_cap)
				return 0;
			memcpy(name, v, tl);
			/* NUL-padded: nothing but NULs after the name */
			for (i = strlen(name); i < tl; i++)
				if (v[i])
					return 0;
		} else if (tag >= 24 && tag <= 26) {
			uint32_t x = (uint32_t)v[0] << 24 |
				     (uint32_t)v[1] << 16 |
				     (uint32_t)v[2] << 8 | v[3];

			if (tl != 4)
				return 0;
			if (tag == 24)
				*ptype = (int)x;
			else if (tag == 25)
				*src = x;
			else
				*dst = x;
		}
		off += 4 + tl;
	}
	return 0;
}

/* ---- the tests ---------------------------------------------------------- */

static uint8_t pkt[SNAPLEN + 1];

static void
test_write_and_read_back(void)
{
	static const uint64_t ts1 = 1700000000123456789ull;
	char name255[256], name256[257];
	uint8_t hdr[300];
	struct mpd_pcapng *w;
	struct walk wk;
	struct stat st;
	uint8_t *file;
	size_t flen, n;
	int rc, if0, if1, if2;

	memset(name255, 'x', 255);
	name255[255] = 0;
	memset(name256, 'y', 256);
	name256[256] = 0;

	w = mpd_pcapng_open(tmp_file);
	ok(w != NULL, "mpd_pcapng_open creates %s", tmp_file);
	if (!w)
		return;
	e_shb();
	if0 = mpd_pcapng_add_interface(w, MPD_LINKTYPE_ETHERNET, "hca0/1",
				       "wire of port 1");
	e_idb(1, "hca0/1", "wire of port 1");
	if1 = mpd_pcapng_add_interface(w, MPD_LINKTYPE_UPPER_PDU, "records",
				       NULL);
	e_idb(252, "records", NULL);
	if2 = mpd_pcapng_add_interface(w, MPD_LINKTYPE_ETHERNET, NULL, "");
	e_idb(1, NULL, NULL);
	ok(if0 == 0 && if1 == 1 && if2 == 2,
	   "interfaces get ids 0, 1, 2 in order");

	/* packets */
	is_int(mpd_pcapng_write(w, 0, ts1, MPD_PCAPNG_DIR_IN, pkt, 60), 0,
	       "60-byte packet, inbound");
	e_epb(0, ts1, 1, NULL, 0, pkt, 60);
	is_int(mpd_pcapng_write(w, 0, 0, MPD_PCAPNG_DIR_UNKNOWN, pkt + 1, 61),
	       0, "61-byte packet, direction unknown (no options)");
	e_epb(0, 0, 0, NULL, 0, pkt + 1, 61);
	is_int(mpd_pcapng_write(w, 2, UINT64_MAX, MPD_PCAPNG_DIR_OUT, NULL, 0),
	       0, "empty packet, outbound, on the third interface");
	e_epb(2, UINT64_MAX, 2, NULL, 0, NULL, 0);

	/* exported PDUs */
	rc = mpd_pcapng_write_exported(w, 1, ts1 + 1, MPD_PCAPNG_DIR_OUT,
				       "infiniband", 1, 0, pkt + 2, 30);
	is_int(rc, 0, "exported PDU for \"infiniband\" with QPs 1 -> 0");
	n = tlvs(hdr, "infiniband", true, 1, 0);
	e_epb(1, ts1 + 1, 2, hdr, n, pkt + 2, 30);
	rc = mpd_pcapng_write_exported(w, 1, ts1 + 2, MPD_PCAPNG_DIR_IN,
				       "madpmd.umad", MPD_EXP_PDU_NO_PORT,
				       MPD_EXP_PDU_NO_PORT, pkt + 3, 257);
	is_int(rc, 0, "exported PDU for \"madpmd.umad\" without ports");
	n = tlvs(hdr, "madpmd.umad", false, 0, 0);
	e_epb(1, ts1 + 2, 1, hdr, n, pkt + 3, 257);
	rc = mpd_pcapng_write_exported(w, 1, ts1 + 3, MPD_PCAPNG_DIR_UNKNOWN,
				       "abc", MPD_EXP_PDU_NO_PORT, 0xffffff,
				       pkt, 1);
	is_int(rc, 0, "exported PDU for \"abc\" with only a destination QP");
	n = tlvs(hdr, "abc", true, 0, 0xffffff);
	e_epb(1, ts1 + 3, 0, hdr, n, pkt, 1);
	rc = mpd_pcapng_write_exported(w, 1, 5, MPD_PCAPNG_DIR_IN, name255,
				       7, MPD_EXP_PDU_NO_PORT, NULL, 0);
	is_int(rc, 0, "exported PDU with a 255-character dissector name and "
	       "no PDU bytes");
	n = tlvs(hdr, name255, true, 7, 0);
	e_epb(1, 5, 1, hdr, n, NULL, 0);

	/* the largest packet the snap length allows */
	is_int(mpd_pcapng_write(w, 0, 6, MPD_PCAPNG_DIR_OUT, pkt, SNAPLEN), 0,
	       "a packet of exactly the snap length (262144)");
	e_epb(0, 6, 2, NULL, 0, pkt, SNAPLEN);

	/* errors write nothing */
	is_int(mpd_pcapng_write(w, 3, 0, 0, pkt, 4), -EINVAL,
	       "write on unknown interface 3 is -EINVAL");
	is_int(mpd_pcapng_write(w, UINT32_MAX, 0, 0, pkt, 4), -EINVAL,
	       "write on interface 0xffffffff is -EINVAL");
	is_int(mpd_pcapng_write(w, 0, 0, 3, pkt, 4), -EINVAL,
	       "direction 3 is -EINVAL");
	is_int(mpd_pcapng_write(w, 0, 0, 0, pkt, SNAPLEN + 1), -EMSGSIZE,
	       "a packet one byte over the snap length is -EMSGSIZE");
	is_int(mpd_pcapng_write_exported(w, 9, 0, 0, "infiniband", 1, 1,
					 pkt, 4), -EINVAL,
	       "exported PDU on unknown interface 9 is -EINVAL");
	is_int(mpd_pcapng_write_exported(w, 1, 0, 0, "", 1, 1, pkt, 4),
	       -EINVAL, "exported PDU with an empty dissector name is -EINVAL");
	is_int(mpd_pcapng_write_exported(w, 1, 0, 0, NULL, 1, 1, pkt, 4),
	       -EINVAL, "exported PDU without a dissector name is -EINVAL");
	is_int(mpd_pcapng_write_exported(w, 1, 0, 0, name256, 1, 1, pkt, 4),
	       -EINVAL, "exported PDU with a 256-character name is -EINVAL");
	is_int(mpd_pcapng_write_exported(w, 1, 0, 0, "infiniband", 1, 1, pkt,
					 SNAPLEN), -EMSGSIZE,
	       "exported PDU whose TLVs push it over the snap length is "
	       "-EMSGSIZE");
	is_int(mpd_pcapng_write_exported(w, 1, 0, 4, "infiniband", 1, 1, pkt,
					 4), -EINVAL,
	       "exported PDU with direction 4 is -EINVAL");

	/* autoflush: a block is on disk before close */
	mpd_pcapng_set_autoflush(w, 1);
	is_int(mpd_pcapng_write(w, 2, 7, MPD_PCAPNG_DIR_IN, pkt, 3), 0,
	       "packet with autoflush on");
	e_epb(2, 7, 1, NULL, 0, pkt, 3);
	ok(stat(tmp_file, &st) == 0 && (size_t)st.st_size == exp_len,
	   "with autoflush the file holds every block before close "
	   "(%zu bytes)", exp_len);
	mpd_pcapng_set_autoflush(w, 0);
	is_int(mpd_pcapng_flush(w), 0, "mpd_pcapng_flush");
	is_int(mpd_pcapng_close(w), 0, "mpd_pcapng_close");

	file = slurp(tmp_file, &flen);
	ok(file != NULL, "read the file back");
	if (!file)
		return;
	is_int(flen, exp_len, "file length is the sum of the expected blocks");
	if (flen == exp_len && memcmp(file, expect, flen) == 0) {
		ok(1, "every byte as built from the pcapng spec");
	} else {
		for (n = 0; n < flen && n < exp_len; n++)
			if (file[n] != expect[n])
				break;
		ok(0, "every byte as built from the pcapng spec");
		tap_diag("first difference at byte %zu", n);
	}

	/* the same file, walked as a reader would */
	walk_file(file, flen, &wk);
	is_int(wk.bad, 0, "walk: lengths, trailing lengths, 32-bit padding, "
	       "options end where blocks do");
	is_int(wk.blocks, 1 + 3 + 9, "walk: 1 SHB, 3 IDBs, 9 EPBs");
	ok(wk.idbs == 3 && wk.linktype[0] == 1 && wk.linktype[1] == 252 &&
	   wk.linktype[2] == 1, "walk: link types 1, 252, 1, each with "
	   "if_tsresol 9");
	ok(wk.epbs == 9 && wk.ifid[0] == 0 && wk.ifid[1] == 0 &&
	   wk.ifid[2] == 2 && wk.ifid[3] == 1 && wk.ifid[4] == 1 &&
	   wk.ifid[5] == 1 && wk.ifid[6] == 1 && wk.ifid[7] == 0 &&
	   wk.ifid[8] == 2, "walk: interface ids of the packets");
	ok(wk.ts[0] == ts1 && wk.ts[1] == 0 && wk.ts[2] == UINT64_MAX &&
	   wk.ts[3] == ts1 + 1 && wk.ts[6] == 5 && wk.ts[8] == 7,
	   "walk: 64-bit nanosecond timestamps split high/low");
	ok(wk.dirs[0] == 1 && wk.dirs[1] == 0 && wk.dirs[2] == 2 &&
	   wk.dirs[3] == 2 && wk.dirs[4] == 1 && wk.dirs[5] == 0 &&
	   wk.dirs[6] == 1 && wk.dirs[7] == 2 && wk.dirs[8] == 1,
	   "walk: epb_flags carry the direction (absent when unknown)");
	ok(wk.caplen[0] == 60 && wk.caplen[1] == 61 && wk.caplen[2] == 0 &&
	   wk.caplen[7] == SNAPLEN && wk.caplen[8] == 3,
	   "walk: captured lengths");
	ok(memcmp(file + wk.data_off[1], pkt + 1, 61) == 0 &&
	   memcmp(file + wk.data_off[7], pkt, SNAPLEN) == 0,
	   "walk: packet bytes");

	/* exported-PDU TLVs, parsed */
	{
		char name[300];
		uint32_t src, dst;
		int ptype;
		size_t k, t;

		k = 3;
		t = parse_tlvs(file + wk.data_off[k], wk.caplen[k], name,
			       sizeof(name), &src, &dst, &ptype);
		ok(t == 4 + 12 + 24 + 4 && strcmp(name, "infiniband") == 0 &&
		   ptype == 14 && src == 1 && dst == 0,
		   "TLVs: dissector \"infiniband\" in 12 bytes, port type "
		   "IBQP (14), ports 1 -> 0, end tag");
		ok(t && memcmp(file + wk.data_off[k] + t, pkt + 2, 30) == 0 &&
		   wk.caplen[k] == t + 30, "TLVs: the PDU follows the end tag");
		k = 4;
		t = parse_tlvs(file + wk.data_off[k], wk.caplen[k], name,
			       sizeof(name), &src, &dst, &ptype);
		ok(t == 4 + 12 + 4 && strcmp(name, "madpmd.umad") == 0 &&
		   ptype == -1 && src == UINT32_MAX && dst == UINT32_MAX,
		   "TLVs: 11-character name padded to 12 (NUL included), no "
		   "port tags");
		k = 5;
		t = parse_tlvs(file + wk.data_off[k], wk.caplen[k], name,
			       sizeof(name), &src, &dst, &ptype);
		ok(t == 4 + 4 + 24 + 4 && strcmp(name, "abc") == 0 &&
		   ptype == 14 && src == 0 && dst == 0xffffff,
		   "TLVs: 3-character name in 4 bytes; a missing source "
		   "QP is written as 0");
		k = 6;
		t = parse_tlvs(file + wk.data_off[k], wk.caplen[k], name,
			       sizeof(name), &src, &dst, &ptype);
		ok(t == 4 + 256 + 24 + 4 && strcmp(name, name255) == 0 &&
		   src == 7 && dst == 0 && wk.caplen[k] == t,
		   "TLVs: 255-character name in 256 bytes");
	}
	free(file);
}

static void
test_exported_header(void)
{
	uint8_t b[400];
	size_t need;
	int n;

	need = 4 + 12 + 24 + 4;
	memset(b, 0xee, sizeof(b));
	n = mpd_exported_pdu_header(b, need, "infiniband", 1, 1);
	is_int(n, (int)need, "mpd_exported_pdu_header into exactly %zu bytes",
	       need);
	ok(b[need] == 0xee, "... nothing written past them");
	is_int(mpd_exported_pdu_header(b, need - 1, "infiniband", 1, 1),
	       -ENOSPC, "one byte short is -ENOSPC");
	is_int(mpd_exported_pdu_header(b, 0, "infiniband", 1, 1), -ENOSPC,
	       "no room at all is -ENOSPC");
	is_int(mpd_exported_pdu_header(b, 4 + 12 + 4, "infiniband",
				       MPD_EXP_PDU_NO_PORT,
				       MPD_EXP_PDU_NO_PORT), 4 + 12 + 4,
	       "without ports the header is 20 bytes");
	is_int(mpd_exported_pdu_header(b, 4 + 12 + 3, "infiniband",
				       MPD_EXP_PDU_NO_PORT,
				       MPD_EXP_PDU_NO_PORT), -ENOSPC,
	       "... and 19 bytes is -ENOSPC");
	is_int(mpd_exported_pdu_header(b, sizeof(b), "", 1, 1), -EINVAL,
	       "empty dissector name is -EINVAL");
	is_int(mpd_exported_pdu_header(b, sizeof(b), NULL, 1, 1), -EINVAL,
	       "NULL dissector name is -EINVAL");
	is_int(mpd_exported_pdu_header(b, 0, "", 1, 1), -EINVAL,
	       "empty name with no room is -EINVAL, not -ENOSPC");
	/* name lengths 1..8: padded to hold the NUL */
	{
		static const char nm[] = "abcdefgh";
		size_t l, bad = 0;

		for (l = 1; l <= 8; l++) {
			char s[9];
			size_t pad = (l + 1 + 3) & ~(size_t)3;

			memcpy(s, nm, l);
			s[l] = 0;
			memset(b, 0xee, sizeof(b));
			n = mpd_exported_pdu_header(b, sizeof(b), s,
						    MPD_EXP_PDU_NO_PORT,
						    MPD_EXP_PDU_NO_PORT);
			if (n != (int)(4 + pad + 4) || b[2] != 0 ||
			    b[3] != pad || memcmp(b + 4, s, l) != 0 ||
			    b[4 + pad - 1] != 0 || b[4 + l] != 0)
				bad++;
		}
		is_int(bad, 0, "names of 1..8 characters: length field counts "
		       "the NUL padding to 32 bits");
	}
}

static void
test_open_errors(void)
{
	struct mpd_pcapng *w;
	char path[160];

	snprintf(path, sizeof(path), "%s/missing/dir/x.pcapng", tmp_dir);
	errno = 0;
	w = mpd_pcapng_open(path);
	ok(w == NULL, "mpd_pcapng_open in a missing directory is NULL");
	is_int(errno, ENOENT, "... with errno ENOENT");
	if (w)
		mpd_pcapng_close(w);
	errno = 0;
	w = mpd_pcapng_open(NULL);
	ok(w == NULL && errno == EINVAL, "mpd_pcapng_open(NULL) is NULL, "
	   "errno EINVAL");
	is_int(mpd_pcapng_close(NULL), -EINVAL, "mpd_pcapng_close(NULL) is "
	       "-EINVAL");
	errno = 0;
	w = mpd_pcapng_open(tmp_dir);
	ok(w == NULL && errno == EISDIR, "mpd_pcapng_open on a directory is "
	   "NULL, errno EISDIR");
	if (w)
		mpd_pcapng_close(w);
}

static void
test_fdopen_and_full(void)
{
	struct mpd_pcapng *w;
	uint8_t *file;
	size_t flen;
	int fd;

	fd = open(tmp_file2, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ok(fd >= 0, "open a second file");
	if (fd < 0)
		return;
	w = mpd_pcapng_fdopen(fd);
	ok(w != NULL, "mpd_pcapng_fdopen");
	if (!w)
		return;
	is_int(mpd_pcapng_add_interface(w, 1, "x", NULL), 0, "interface 0");
	is_int(mpd_pcapng_write(w, 0, 1, 0, pkt, 4), 0, "one packet");
	is_int(mpd_pcapng_close(w), 0, "close (the descriptor with it)");
	ok(fcntl(fd, F_GETFD) == -1 && errno == EBADF,
	   "the writer closed the descriptor it owned");
	file = slurp(tmp_file2, &flen);
	ok(file && flen == 44 + 40 + 36 && rd32(file) == 0x0a0d0d0a &&
	   rd32(file + 44) == 1 && rd32(file + 48) == 40 &&
	   rd32(file + 84) == 6 && rd32(file + 88) == 36,
	   "fdopen file: SHB (44), IDB (40), EPB (36)");
	free(file);

	/* a device that is always full: the error surfaces, sticky */
	if (access("/dev/full", W_OK) != 0) {
		ok(1, "# SKIP no /dev/full");
		return;
	}
	w = mpd_pcapng_open("/dev/full");
	ok(w != NULL, "open /dev/full (buffered: nothing fails yet)");
	if (!w)
		return;
	mpd_pcapng_set_autoflush(w, 1);
	is_int(mpd_pcapng_add_interface(w, 1, NULL, NULL), -ENOSPC,
	       "with autoflush the first block reports -ENOSPC");
	is_int(mpd_pcapng_write(w, 0, 0, 0, pkt, 4), -EINVAL,
	       "the failed interface was not added");
	is_int(mpd_pcapng_flush(w), -ENOSPC, "flush keeps reporting -ENOSPC");
	is_int(mpd_pcapng_close(w), -ENOSPC, "close reports -ENOSPC");
}

int
main(void)
{
	size_t i;

	tap_seed();
	for (i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)rnd64();
	expect = malloc(EXP_MAX);
	if (!expect) {
		ok(0, "allocate %u bytes", EXP_MAX);
		return tap_done();
	}
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/madpmd-test-pcapng-XXXXXX");
	if (!mkdtemp(tmp_dir)) {
		tmp_dir[0] = 0;
		ok(0, "mkdtemp: %s", strerror(errno));
		free(expect);
		return tap_done();
	}
	atexit(cleanup);
	snprintf(tmp_file, sizeof(tmp_file), "%s/a.pcapng", tmp_dir);
	snprintf(tmp_file2, sizeof(tmp_file2), "%s/b.pcapng", tmp_dir);

	test_write_and_read_back();
	test_exported_header();
	test_open_errors();
	test_fdopen_and_full();

	free(expect);
	{
		char dir[sizeof(tmp_dir)];
		struct stat st;

		memcpy(dir, tmp_dir, sizeof(dir));
		cleanup();
		ok(stat(dir, &st) != 0 && errno == ENOENT,
		   "temporary directory %s removed", dir);
	}
	return tap_done();
}
