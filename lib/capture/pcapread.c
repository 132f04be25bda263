/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap and pcapng reader (libpcap's savefile format; draft-ietf-opsawg-
 * pcapng). One block in memory at a time; blocks we do not use are
 * skipped without being buffered. Every length is checked before use.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "madpmd/pcapng.h"
#include "madpmd/pcapread.h"

#define PCAP_MAGIC_US	0xa1b2c3d4u
#define PCAP_MAGIC_NS	0xa1b23c4du
#define PCAP_MAGIC_KUZ	0xa1b2cd34u	/* "modified" pcap, other record */
#define PCAP_HDR_LEN	24
#define PCAP_REC_LEN	16

#define BT_SHB		0x0a0d0d0au
#define BT_IDB		0x00000001u
#define BT_PB		0x00000002u	/* obsolete packet block */
#define BT_SPB		0x00000003u
#define BT_EPB		0x00000006u
#define BOM		0x1a2b3c4du
#define OPT_END		0
#define OPT_IF_NAME	2
#define OPT_IF_TSRESOL	9
#define OPT_IF_TSOFFSET	14
#define OPT_EPB_FLAGS	2

/* a packet block's headers and options on top of the largest packet */
#define MAX_BLOCK	(MPD_PCAPREAD_MAX_CAPLEN + 65536u)
#define MAX_IFACES	65536u
#define NS		1000000000ull

struct iface {
	uint16_t linktype;
	uint32_t snaplen;
	char *name;
	bool pow2;		/* if_tsresol: 2^-exp, else 10^-exp seconds */
	uint8_t exp;
	int64_t offset_s;	/* if_tsoffset */
};

struct mpd_pcap_reader {
	FILE *f;
	char *path;		/* for the sentences */
	bool ng;
	bool swap;		/* file order differs from ours */
	/* classic pcap */
	uint32_t sub_ns;	/* ns per sub-second unit: 1000 or 1 */
	uint16_t linktype;
	/* pcapng */
	struct iface *ifs;
	uint32_t nifs, cap_ifs;
	uint32_t section;
	uint64_t last_ts;
	/* the current block, or classic record */
	uint8_t *buf;
	size_t buf_cap;
	uint64_t off;		/* file offset of the next byte */
	uint64_t npkts;
	int status;		/* 0 reading, 1 ended, < 0 failed */
	bool truncated;
	char err[384];
};

static uint16_t
g16(const struct mpd_pcap_reader *r, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return r->swap ? __builtin_bswap16(v) : v;
}

static uint32_t
g32(const struct mpd_pcap_reader *r, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return r->swap ? __builtin_bswap32(v) : v;
}

static uint64_t
g64(const struct mpd_pcap_reader *r, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return r->swap ? __builtin_bswap64(v) : v;
}

static size_t
pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

__attribute__((format(printf, 3, 4)))
static int
fail(struct mpd_pcap_reader *r, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, sizeof(r->err), "%s: ", r->path);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	r->status = code;
	return code;
}

/* A file cut short: a clean end of the packets, with the reason kept. */
static int
cut_short(struct mpd_pcap_reader *r, const char *what, size_t got,
	  size_t want)
{
	fail(r, 1, "the file is cut short inside %s at offset %llu (%zu of %zu bytes)",
	     what, (unsigned long long)r->off - got, got, want);
	r->truncated = true;
	return 0;
}

/* Read up to n bytes; the count read, or -1 on a read error. */
static ssize_t
rd(struct mpd_pcap_reader *r, void *p, size_t n)
{
	size_t got = n ? fread(p, 1, n, r->f) : 0;

	r->off += got;
	if (got < n && ferror(r->f)) {
		fail(r, errno ? -errno : -EIO, "read error at offset %llu: %s",
		     (unsigned long long)r->off,
		     strerror(errno ? errno : EIO));
		return -1;
	}
	return (ssize_t)got;
}

static int
grow(struct mpd_pcap_reader *r, size_t n)
{
	uint8_t *b;

	if (n <= r->buf_cap)
		return 0;
	b = realloc(r->buf, n);
	if (!b)
		return fail(r, -ENOMEM, "out of memory for a block of %zu bytes", n);
	r->buf = b;
	r->buf_cap = n;
	return 0;
}

static void
drop_ifaces(struct mpd_pcap_reader *r)
{
	uint32_t i;

	for (i = 0; i < r->nifs; i++)
		free(r->ifs[i].name);
	r->nifs = 0;
}

/* ---- classic pcap ------------------------------------------------------ */

static int
pcap_header(struct mpd_pcap_reader *r, const uint8_t *magic)
{
	uint8_t h[PCAP_HDR_LEN];
	uint32_t m;
	ssize_t n;

	memcpy(&m, magic, 4);
	if (m == PCAP_MAGIC_US || m == PCAP_MAGIC_NS) {
		r->swap = false;
	} else if (__builtin_bswap32(m) == PCAP_MAGIC_US ||
		   __builtin_bswap32(m) == PCAP_MAGIC_NS) {
		r->swap = true;
		m = __builtin_bswap32(m);
	} else if (m == PCAP_MAGIC_KUZ ||
		   __builtin_bswap32(m) == PCAP_MAGIC_KUZ) {
		return fail(r, -EPROTONOSUPPORT,
			    "a \"modified\" (Kuznetsov) pcap file is not supported; convert it with editcap -F pcap");
	} else {
		return fail(r, -EBADMSG,
			    "not a pcap or pcapng file (it starts with %02x %02x %02x %02x)",
			    magic[0], magic[1], magic[2], magic[3]);
	}
	r->sub_ns = m == PCAP_MAGIC_NS ? 1 : 1000;
	memcpy(h, magic, 4);
	n = rd(r, h + 4, sizeof(h) - 4);
	if (n < 0)
		return r->status;
	if ((size_t)n < sizeof(h) - 4)
		return fail(r, -EBADMSG,
			    "the file ends inside its pcap file header (%zu of %d bytes)",
			    (size_t)n + 4, PCAP_HDR_LEN);
	if (g16(r, h + 4) != 2)
		return fail(r, -EPROTONOSUPPORT,
			    "pcap version %u.%u is not supported (only 2.x)",
			    g16(r, h + 4), g16(r, h + 6));
	/* the upper bits of the link type carry FCS information */
	r->linktype = (uint16_t)g32(r, h + 20);
	return 0;
}

static int
pcap_next(struct mpd_pcap_reader *r, struct mpd_pcap_pkt *pkt)
{
	uint8_t h[PCAP_REC_LEN];
	uint32_t caplen;
	ssize_t n;

	n = rd(r, h, sizeof(h));
	if (n < 0)
		return r->status;
	if (n == 0) {
		r->status = 1;
		return 0;
	}
	if ((size_t)n < sizeof(h))
		return cut_short(r, "a packet record header", (size_t)n,
				 sizeof(h));
	caplen = g32(r, h + 8);
	if (caplen > MPD_PCAPREAD_MAX_CAPLEN)
		return fail(r, -EBADMSG,
			    "packet %llu at offset %llu claims %u captured bytes, more than the %u this reader takes: the file is damaged",
			    (unsigned long long)r->npkts + 1,
			    (unsigned long long)r->off - sizeof(h), caplen,
			    MPD_PCAPREAD_MAX_CAPLEN);
	if (grow(r, caplen ? caplen : 1) < 0)
		return r->status;
	n = rd(r, r->buf, caplen);
	if (n < 0)
		return r->status;
	if ((size_t)n < caplen)
		return cut_short(r, "a packet", (size_t)n, caplen);
	memset(pkt, 0, sizeof(*pkt));
	pkt->ts_ns = (uint64_t)g32(r, h) * NS +
		     (uint64_t)g32(r, h + 4) * r->sub_ns;
	pkt->has_ts = true;
	pkt->linktype = r->linktype;
	pkt->data = r->buf;
	pkt->caplen = caplen;
	pkt->origlen = g32(r, h + 12);
	return 1;
}

/* ---- pcapng ------------------------------------------------------------- */

/*
 * Walk options in [*p, end): 1 with one option, 0 at opt_endofopt or the
 * end, < 0 when an option runs past the block.
 */
static int
next_opt(struct mpd_pcap_reader *r, const uint8_t **p, const uint8_t *end,
	 uint64_t blk_off, uint16_t *code, const uint8_t **val,
	 uint16_t *vlen)
{
	size_t left = (size_t)(end - *p);

	if (left == 0)
		return 0;
	if (left < 4)
		return fail(r, -EBADMSG,
			    "block at offset %llu: %zu stray bytes where an option should start",
			    (unsigned long long)blk_off, left);
	*code = g16(r, *p);
	*vlen = g16(r, *p + 2);
	if (*code == OPT_END)
		return 0;
	if (pad4(*vlen) > left - 4)
		return fail(r, -EBADMSG,
			    "block at offset %llu: option %u of %u bytes runs past the block",
			    (unsigned long long)blk_off, *code, *vlen);
	*val = *p + 4;
	*p += 4 + pad4(*vlen);
	return 1;
}

/* No option of the section header matters here. */
static int
parse_shb(struct mpd_pcap_reader *r, uint64_t blk_off)
{
	uint16_t major = g16(r, r->buf + 12), minor = g16(r, r->buf + 14);

	if (major != 1)
		return fail(r, -EPROTONOSUPPORT,
			    "section at offset %llu is pcapng version %u.%u; only 1.x is supported",
			    (unsigned long long)blk_off, major, minor);
	if (blk_off != 0)
		r->section++;
	drop_ifaces(r);
	return 0;
}

static int
parse_idb(struct mpd_pcap_reader *r, uint64_t blk_off, uint32_t len)
{
	const uint8_t *p = r->buf + 16, *end = r->buf + len - 4, *v = NULL;
	struct iface ifc = { .exp = 6 };
	uint16_t code = 0, vlen = 0;
	int rc;

	if (len < 20)
		return fail(r, -EBADMSG,
			    "interface block at offset %llu is %u bytes, shorter than 20",
			    (unsigned long long)blk_off, len);
	if (r->nifs >= MAX_IFACES)
		return fail(r, -EBADMSG, "more than %u interfaces in a section",
			    MAX_IFACES);
	ifc.linktype = g16(r, r->buf + 8);
	ifc.snaplen = g32(r, r->buf + 12);
	while ((rc = next_opt(r, &p, end, blk_off, &code, &v, &vlen)) > 0) {
		if (code == OPT_IF_NAME && vlen > 0 && !ifc.name) {
			ifc.name = strndup((const char *)v, vlen);
			if (!ifc.name)
				return fail(r, -ENOMEM, "out of memory");
		} else if (code == OPT_IF_TSRESOL && vlen >= 1) {
			ifc.pow2 = v[0] & 0x80;
			ifc.exp = v[0] & 0x7f;
			if ((ifc.pow2 && ifc.exp > 63) ||
			    (!ifc.pow2 && ifc.exp > 19)) {
				rc = fail(r, -EBADMSG,
					  "interface block at offset %llu: if_tsresol 0x%02x is beyond what 64-bit timestamps can hold",
					  (unsigned long long)blk_off, v[0]);
				break;
			}
		} else if (code == OPT_IF_TSOFFSET && vlen == 8) {
			ifc.offset_s = (int64_t)g64(r, v);
		}
	}
	if (rc < 0) {
		free(ifc.name);
		return rc;
	}
	if (r->nifs == r->cap_ifs) {
		uint32_t nc = r->cap_ifs ? r->cap_ifs * 2 : 8;
		struct iface *n = realloc(r->ifs, nc * sizeof(*n));

		if (!n) {
			free(ifc.name);
			return fail(r, -ENOMEM, "out of memory");
		}
		r->ifs = n;
		r->cap_ifs = nc;
	}
	r->ifs[r->nifs++] = ifc;
	return 0;
}

static uint64_t
ts_ns(const struct iface *ifc, uint64_t t)
{
	static const uint64_t p10[] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
	};
	uint64_t ns, frac;
	unsigned int k = ifc->exp;

	if (!ifc->pow2) {
		if (k <= 9)
			ns = t * p10[9 - k];
		else
			ns = t / p10[k - 9];	/* k <= 19, checked */
	} else {
		/* whole seconds, then the fraction with 34 bits at most so
		 * that fraction * 10^9 stays within 64 bits */
		frac = t & ((1ull << k) - 1);
		ns = (t >> k) * NS;
		if (k > 34) {
			frac >>= k - 34;
			k = 34;
		}
		ns += (frac * NS) >> k;
	}
	return ns + (uint64_t)ifc->offset_s * NS;
}

/* EPB, SPB and the obsolete PB. */
static int
parse_packet(struct mpd_pcap_reader *r, uint32_t type, uint64_t blk_off,
	     uint32_t len, struct mpd_pcap_pkt *pkt)
{
	const uint8_t *p, *v = NULL, *end = r->buf + len - 4;
	uint16_t code = 0, vlen = 0;
	uint32_t if_id, caplen, origlen, hdr;
	const struct iface *ifc;
	uint64_t t = 0;
	int rc;

	hdr = type == BT_SPB ? 16 : 32;
	if (len < hdr)
		return fail(r, -EBADMSG,
			    "packet block at offset %llu is %u bytes, shorter than %u",
			    (unsigned long long)blk_off, len, hdr);
	if (type == BT_SPB) {
		if_id = 0;
		origlen = g32(r, r->buf + 8);
		caplen = origlen;
	} else {
		if_id = type == BT_EPB ? g32(r, r->buf + 8) :
			g16(r, r->buf + 8);
		t = (uint64_t)g32(r, r->buf + 12) << 32 | g32(r, r->buf + 16);
		caplen = g32(r, r->buf + 20);
		origlen = g32(r, r->buf + 24);
	}
	if (if_id >= r->nifs)
		return fail(r, -EBADMSG,
			    "packet block at offset %llu is on interface %u, but its section declares %u",
			    (unsigned long long)blk_off, if_id, r->nifs);
	ifc = &r->ifs[if_id];
	if (type == BT_SPB) {
		/* its length is the original one: what is there is the rest
		 * of the block, at most the snap length */
		if (caplen > len - hdr)
			caplen = len - hdr;
		if (ifc->snaplen && caplen > ifc->snaplen)
			caplen = ifc->snaplen;
	} else if (caplen > len - hdr) {
		return fail(r, -EBADMSG,
			    "packet block at offset %llu claims %u captured bytes, more than its %u-byte block holds",
			    (unsigned long long)blk_off, caplen, len);
	}
	memset(pkt, 0, sizeof(*pkt));
	if (type != BT_SPB) {
		p = r->buf + 28 + pad4(caplen);
		while ((rc = next_opt(r, &p, end, blk_off, &code, &v,
				      &vlen)) > 0) {
			if (code == OPT_EPB_FLAGS && vlen == 4) {
				pkt->direction = g32(r, v) & 3;
				if (pkt->direction == 3)
					pkt->direction = MPD_PCAPNG_DIR_UNKNOWN;
			}
		}
		if (rc < 0)
			return rc;
		r->last_ts = ts_ns(ifc, t);
		pkt->has_ts = true;
	}
	pkt->ts_ns = r->last_ts;
	pkt->if_id = if_id;
	pkt->section = r->section;
	pkt->linktype = ifc->linktype;
	pkt->if_name = ifc->name;
	pkt->data = r->buf + (type == BT_SPB ? 12 : 28);
	pkt->caplen = caplen;
	pkt->origlen = origlen;
	return 1;
}

/* Skip a block we have no use for, buffering at most a chunk of it. */
static int
skip_block(struct mpd_pcap_reader *r, uint64_t blk_off, uint32_t len)
{
	size_t left = len - 12, chunk;
	ssize_t n;
	uint8_t t[4];

	if (grow(r, 65536) < 0)
		return r->status;
	while (left) {
		chunk = left < r->buf_cap ? left : r->buf_cap;
		n = rd(r, r->buf, chunk);
		if (n < 0)
			return r->status;
		if ((size_t)n < chunk)
			return cut_short(r, "a block", len - 4 - left + (size_t)n,
					 len);
		left -= chunk;
	}
	n = rd(r, t, 4);
	if (n < 0)
		return r->status;
	if (n < 4)
		return cut_short(r, "a block", len - 4 + (size_t)n, len);
	if (g32(r, t) != len)
		return fail(r, -EBADMSG,
			    "block at offset %llu: its trailing length %u differs from its leading %u",
			    (unsigned long long)blk_off, g32(r, t), len);
	return 1;
}

/*
 * One block whose first 8 bytes are in h: 1 with a packet, 2 with any
 * other block done, 0 at a truncated end, < 0 on error.
 */
static int
ng_block(struct mpd_pcap_reader *r, const uint8_t *h,
	 struct mpd_pcap_pkt *pkt)
{
	uint64_t blk_off = r->off - 8;
	uint32_t type, len, bom, min = 12;
	ssize_t n;
	size_t have = 8;
	int rc;

	memcpy(&type, h, 4);
	if (type == BT_SHB) {
		/* the section's byte order comes with it */
		uint8_t b[4];

		n = rd(r, b, 4);
		if (n < 0)
			return r->status;
		if (n < 4)
			return cut_short(r, "a section header", 8 + (size_t)n,
					 28);
		memcpy(&bom, b, 4);
		if (bom == BOM)
			r->swap = false;
		else if (__builtin_bswap32(bom) == BOM)
			r->swap = true;
		else
			return fail(r, -EBADMSG,
				    "section header at offset %llu has no byte-order magic (%02x %02x %02x %02x)",
				    (unsigned long long)blk_off, b[0], b[1],
				    b[2], b[3]);
		if (grow(r, 12) < 0)
			return r->status;
		memcpy(r->buf + 8, b, 4);
		have = 12;
		min = 28;
	}
	type = g32(r, h);
	len = g32(r, h + 4);
	if (len < min || len % 4)
		return fail(r, -EBADMSG,
			    "block at offset %llu (type 0x%08x) has a total length of %u: %s",
			    (unsigned long long)blk_off, type, len,
			    len % 4 ? "not a multiple of 4" :
			    "shorter than its fixed part");
	if (type != BT_SHB && type != BT_IDB && type != BT_EPB &&
	    type != BT_SPB && type != BT_PB) {
		rc = skip_block(r, blk_off, len);
		return rc == 1 ? 2 : rc;
	}
	if (len > MAX_BLOCK)
		return fail(r, -EBADMSG,
			    "block at offset %llu (type 0x%08x) is %u bytes, more than the %u this reader takes: the file is damaged",
			    (unsigned long long)blk_off, type, len, MAX_BLOCK);
	if (grow(r, len) < 0)
		return r->status;
	memcpy(r->buf, h, 8);
	n = rd(r, r->buf + have, len - have);
	if (n < 0)
		return r->status;
	if ((size_t)n < len - have)
		return cut_short(r, "a block", have + (size_t)n, len);
	if (g32(r, r->buf + len - 4) != len)
		return fail(r, -EBADMSG,
			    "block at offset %llu (type 0x%08x): its trailing length %u differs from its leading %u",
			    (unsigned long long)blk_off, type,
			    g32(r, r->buf + len - 4), len);
	switch (type) {
	case BT_SHB:
		rc = parse_shb(r, blk_off);
		break;
	case BT_IDB:
		rc = parse_idb(r, blk_off, len);
		break;
	default:
		return parse_packet(r, type, blk_off, len, pkt);
	}
	return rc < 0 ? rc : 2;
}

static int
ng_next(struct mpd_pcap_reader *r, struct mpd_pcap_pkt *pkt)
{
	uint8_t h[8];
	ssize_t n;
	int rc;

	for (;;) {
		n = rd(r, h, sizeof(h));
		if (n < 0)
			return r->status;
		if (n == 0) {
			r->status = 1;
			return 0;
		}
		if ((size_t)n < sizeof(h))
			return cut_short(r, "a block header", (size_t)n,
					 sizeof(h));
		rc = ng_block(r, h, pkt);
		if (rc != 2)
			return rc;
	}
}

/* ---- the API -------------------------------------------------------------- */

struct mpd_pcap_reader *
mpd_pcapread_open(const char *path, char *err, size_t errlen)
{
	struct mpd_pcap_reader *r;
	uint8_t h[8];
	ssize_t n;
	int rc;

	if (!path || !*path) {
		if (err && errlen)
			snprintf(err, errlen, "no capture file named");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(strcmp(path, "-") ? path :
					  "standard input"))) {
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", path);
		free(r);
		return NULL;
	}
	r->f = strcmp(path, "-") ? fopen(path, "rbe") : stdin;
	if (!r->f) {
		fail(r, -errno, "cannot open it: %s", strerror(errno));
		goto out_fail;
	}
	n = rd(r, h, 4);
	if (n < 0)
		goto out_fail;
	if (n < 4) {
		if (n == 0)
			fail(r, -EBADMSG, "the file is empty: not a pcap or pcapng file");
		else
			fail(r, -EBADMSG, "the file is only %zd bytes long: not a pcap or pcapng file",
			     n);
		goto out_fail;
	}
	if (h[0] == 0x0a && h[1] == 0x0d && h[2] == 0x0d && h[3] == 0x0a) {
		r->ng = true;
		n = rd(r, h + 4, 4);
		if (n < 0)
			goto out_fail;
		if (n < 4) {
			fail(r, -EBADMSG, "the file ends inside its first section header");
			goto out_fail;
		}
		rc = ng_block(r, h, NULL);
		if (rc != 2) {
			if (rc == 0)	/* cut short: the header itself */
				r->status = -EBADMSG;
			goto out_fail;
		}
	} else if (pcap_header(r, h) < 0) {
		goto out_fail;
	}
	r->status = 0;
	return r;

out_fail:
	if (err && errlen)
		snprintf(err, errlen, "%s", r->err);
	mpd_pcapread_close(r);
	return NULL;
}

int
mpd_pcapread_next(struct mpd_pcap_reader *r, struct mpd_pcap_pkt *pkt)
{
	int rc;

	if (r->status)
		return r->status > 0 ? 0 : r->status;
	rc = r->ng ? ng_next(r, pkt) : pcap_next(r, pkt);
	if (rc == 1)
		r->npkts++;
	return rc;
}

const char *
mpd_pcapread_error(const struct mpd_pcap_reader *r)
{
	return r->err[0] ? r->err : NULL;
}

bool
mpd_pcapread_truncated(const struct mpd_pcap_reader *r)
{
	return r->truncated;
}

bool
mpd_pcapread_is_pcapng(const struct mpd_pcap_reader *r)
{
	return r->ng;
}

uint64_t
mpd_pcapread_offset(const struct mpd_pcap_reader *r)
{
	return r->off;
}

void
mpd_pcapread_close(struct mpd_pcap_reader *r)
{
	if (!r)
		return;
	if (r->f && r->f != stdin)
		fclose(r->f);
	drop_ifaces(r);
	free(r->ifs);
	free(r->buf);
	free(r->path);
	free(r);
}

/* ---- packets to frames ------------------------------------------------------ */

#define SLL_LEN		16
#define SLL2_LEN	20
#define ARPHRD_ETHER_	1

static enum mpd_frame_kind
exported_pdu(const struct mpd_pcap_pkt *p, const uint8_t **frame,
	     uint32_t *len)
{
	const uint8_t *d = p->data;
	char name[64] = "";
	uint32_t off = 0;
	uint16_t tag, tl;

	for (;;) {
		if (p->caplen - off < 4)
			return MPD_FRAME_MALFORMED;
		tag = (uint16_t)(d[off] << 8 | d[off + 1]);
		tl = (uint16_t)(d[off + 2] << 8 | d[off + 3]);
		off += 4;
		if (tl > p->caplen - off)
			return MPD_FRAME_MALFORMED;
		if (tag == MPD_EXP_PDU_TAG_END) {
			off += tl;
			break;
		}
		if (tag == MPD_EXP_PDU_TAG_DISSECTOR) {
			size_t n = strnlen((const char *)d + off, tl);

			if (n >= sizeof(name))
				n = sizeof(name) - 1;
			memcpy(name, d + off, n);
			name[n] = 0;
		}
		off += tl;
	}
	*frame = d + off;
	*len = p->caplen - off;
	if (!strcmp(name, "infiniband") || !strcmp(name, "madpmd_ib"))
		return MPD_FRAME_IB;
	if (!strcmp(name, "eth_withoutfcs"))
		return MPD_FRAME_ETH;
	if (!strcmp(name, "madpmd"))
		return MPD_FRAME_RECORD;
	return MPD_FRAME_NONE;
}

/* A Linux cooked frame of IPv4, IPv6 or RoCEv1 as an Ethernet frame. */
static enum mpd_frame_kind
cooked(const struct mpd_pcap_pkt *p, uint8_t *buf, size_t cap,
       const uint8_t **frame, uint32_t *len)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	const uint8_t *d = p->data, *addr;
	uint16_t proto, hatype, halen;
	uint32_t hl;

	if (p->linktype == MPD_LINKTYPE_LINUX_SLL) {
		hl = SLL_LEN;
		if (p->caplen < hl)
			return MPD_FRAME_MALFORMED;
		hatype = (uint16_t)(d[2] << 8 | d[3]);
		halen = (uint16_t)(d[4] << 8 | d[5]);
		addr = d + 6;
		proto = (uint16_t)(d[14] << 8 | d[15]);
	} else {
		hl = SLL2_LEN;
		if (p->caplen < hl)
			return MPD_FRAME_MALFORMED;
		proto = (uint16_t)(d[0] << 8 | d[1]);
		hatype = (uint16_t)(d[8] << 8 | d[9]);
		halen = d[11];
		addr = d + 12;
	}
	if (proto != 0x0800 && proto != 0x86dd && proto != 0x8915)
		return MPD_FRAME_NONE;
	if (p->caplen - hl + 14 > cap)
		return MPD_FRAME_MALFORMED;
	memcpy(buf, dst, 6);
	/* the link-layer address is the sender's, in and out */
	memcpy(buf + 6, hatype == ARPHRD_ETHER_ && halen == 6 ? addr : src, 6);
	buf[12] = (uint8_t)(proto >> 8);
	buf[13] = (uint8_t)proto;
	memcpy(buf + 14, d + hl, p->caplen - hl);
	*frame = buf;
	*len = p->caplen - hl + 14;
	return MPD_FRAME_ETH;
}

enum mpd_frame_kind
mpd_pcap_frame(const struct mpd_pcap_pkt *p, uint8_t *buf, size_t cap,
	       const uint8_t **frame, uint32_t *len)
{
	*frame = p->data;
	*len = p->caplen;
	switch (p->linktype) {
	case MPD_LINKTYPE_ETHERNET:
		return p->caplen >= 14 ? MPD_FRAME_ETH : MPD_FRAME_MALFORMED;
	case MPD_LINKTYPE_INFINIBAND:
		return p->caplen >= 8 ? MPD_FRAME_IB : MPD_FRAME_MALFORMED;
	case MPD_LINKTYPE_UPPER_PDU:
		return exported_pdu(p, frame, len);
	case MPD_LINKTYPE_LINUX_SLL:
	case MPD_LINKTYPE_LINUX_SLL2:
		return cooked(p, buf, cap, frame, len);
	default:
		return MPD_FRAME_NONE;
	}
}

const char *
mpd_frame_kind_name(enum mpd_frame_kind k)
{
	switch (k) {
	case MPD_FRAME_ETH:
		return "Ethernet";
	case MPD_FRAME_IB:
		return "native IB";
	case MPD_FRAME_RECORD:
		return "record";
	case MPD_FRAME_MALFORMED:
		return "malformed";
	case MPD_FRAME_NONE:
		break;
	}
	return "other";
}
