/* SPDX-License-Identifier: BSD-3-Clause */
/* pcapng writer (draft-ietf-opsawg-pcapng): SHB, IDB, EPB. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "madpmd/pcapng.h"

#define BT_SHB		0x0a0d0d0au
#define BT_IDB		0x00000001u
#define BT_EPB		0x00000006u
#define BYTE_ORDER_MAGIC 0x1a2b3c4du
#define OPT_END		0
#define OPT_SHB_USERAPPL 4
#define OPT_IF_NAME	2
#define OPT_IF_DESC	3
#define OPT_IF_TSRESOL	9
#define OPT_EPB_FLAGS	2
#define SNAPLEN		262144u
#define MAX_IFACES	4096u

struct mpd_pcapng {
	FILE *f;
	bool autoflush;
	int err;		/* first error, sticky */
	uint32_t nifaces;
};

static size_t
pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static void
put(struct mpd_pcapng *w, const void *p, size_t n)
{
	if (w->err || n == 0)
		return;
	if (fwrite(p, 1, n, w->f) != n)
		w->err = errno ? -errno : -EIO;
}

static void
put32(struct mpd_pcapng *w, uint32_t v)
{
	put(w, &v, 4);
}

static void
put_zero(struct mpd_pcapng *w, size_t n)
{
	static const uint8_t z[4];

	put(w, z, n);
}

/* Option: code, length, value padded to 32 bits. */
static void
put_opt(struct mpd_pcapng *w, uint16_t code, const void *v, uint16_t len)
{
	uint16_t h[2] = { code, len };

	put(w, h, 4);
	put(w, v, len);
	put_zero(w, pad4(len) - len);
}

static size_t
opt_len(size_t vlen)
{
	return 4 + pad4(vlen);
}

static int
finish(struct mpd_pcapng *w)
{
	if (!w->err && w->autoflush && fflush(w->f) != 0)
		w->err = -errno;
	return w->err;
}

static struct mpd_pcapng *
start(FILE *f)
{
	static const char app[] = "madpmd";
	struct mpd_pcapng *w = calloc(1, sizeof(*w));
	uint32_t len = 28 + (uint32_t)opt_len(sizeof(app) - 1) + 4;
	uint16_t ver[2] = { 1, 0 };
	int64_t section_len = -1;

	if (!w) {
		fclose(f);
		return NULL;
	}
	w->f = f;
	put32(w, BT_SHB);
	put32(w, len);
	put32(w, BYTE_ORDER_MAGIC);
	put(w, ver, 4);
	put(w, &section_len, 8);
	put_opt(w, OPT_SHB_USERAPPL, app, sizeof(app) - 1);
	put_opt(w, OPT_END, NULL, 0);
	put32(w, len);
	if (w->err) {
		errno = -w->err;
		fclose(f);
		free(w);
		return NULL;
	}
	return w;
}

struct mpd_pcapng *
mpd_pcapng_open(const char *path)
{
	FILE *f;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	if (strcmp(path, "-") == 0) {
		int fd = dup(STDOUT_FILENO);

		return fd < 0 ? NULL : mpd_pcapng_fdopen(fd);
	}
	f = fopen(path, "wbe");
	return f ? start(f) : NULL;
}

struct mpd_pcapng *
mpd_pcapng_fdopen(int fd)
{
	FILE *f = fdopen(fd, "wb");

	if (!f) {
		close(fd);
		return NULL;
	}
	return start(f);
}

void
mpd_pcapng_set_autoflush(struct mpd_pcapng *w, int on)
{
	w->autoflush = on != 0;
}

int
mpd_pcapng_add_interface(struct mpd_pcapng *w, uint16_t linktype,
			 const char *name, const char *description)
{
	size_t nl = name ? strlen(name) : 0, dl = description ?
		    strlen(description) : 0;
	uint8_t tsresol = 9;	/* nanoseconds */
	uint16_t lt[2] = { linktype, 0 };
	uint32_t len;

	if (nl > 0xffff || dl > 0xffff)
		return -EINVAL;
	if (w->nifaces >= MAX_IFACES)
		return -ENOSPC;
	len = (uint32_t)(20 + (nl ? opt_len(nl) : 0) +
			 (dl ? opt_len(dl) : 0) + opt_len(1) + 4);
	put32(w, BT_IDB);
	put32(w, len);
	put(w, lt, 4);
	put32(w, SNAPLEN);
	if (nl)
		put_opt(w, OPT_IF_NAME, name, (uint16_t)nl);
	if (dl)
		put_opt(w, OPT_IF_DESC, description, (uint16_t)dl);
	put_opt(w, OPT_IF_TSRESOL, &tsresol, 1);
	put_opt(w, OPT_END, NULL, 0);
	put32(w, len);
	if (finish(w))
		return w->err;
	return (int)w->nifaces++;
}

/* An EPB whose data is the concatenation of two pieces. */
static int
write_epb(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
	  uint32_t direction, const void *a, size_t alen, const void *b,
	  size_t blen)
{
	size_t caplen = alen + blen;
	uint32_t len;

	if (if_id >= w->nifaces || direction > MPD_PCAPNG_DIR_OUT)
		return -EINVAL;
	if (caplen > SNAPLEN)
		return -EMSGSIZE;
	len = (uint32_t)(28 + pad4(caplen) +
			 (direction ? opt_len(4) + 4 : 0) + 4);
	put32(w, BT_EPB);
	put32(w, len);
	put32(w, if_id);
	put32(w, (uint32_t)(ts_ns >> 32));
	put32(w, (uint32_t)ts_ns);
	put32(w, (uint32_t)caplen);
	put32(w, (uint32_t)caplen);
	put(w, a, alen);
	put(w, b, blen);
	put_zero(w, pad4(caplen) - caplen);
	if (direction) {
		put_opt(w, OPT_EPB_FLAGS, &direction, 4);
		put_opt(w, OPT_END, NULL, 0);
	}
	put32(w, len);
	return finish(w);
}

int
mpd_pcapng_write(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		 uint32_t direction, const void *data, size_t len)
{
	return write_epb(w, if_id, ts_ns, direction, data, len, NULL, 0);
}

static size_t
put_tlv(uint8_t *p, uint16_t tag, const void *v, size_t vlen, size_t padded)
{
	p[0] = (uint8_t)(tag >> 8);
	p[1] = (uint8_t)tag;
	p[2] = (uint8_t)(padded >> 8);
	p[3] = (uint8_t)padded;
	if (vlen)
		memcpy(p + 4, v, vlen);
	memset(p + 4 + vlen, 0, padded - vlen);
	return 4 + padded;
}

static size_t
put_tlv_u32(uint8_t *p, uint16_t tag, uint32_t v)
{
	uint8_t be[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16),
			  (uint8_t)(v >> 8), (uint8_t)v };

	return put_tlv(p, tag, be, 4, 4);
}

int
mpd_exported_pdu_header(uint8_t *buf, size_t cap, const char *dissector,
			uint32_t src_qp, uint32_t dst_qp)
{
	size_t nl, need, off = 0;
	bool ports = src_qp != MPD_EXP_PDU_NO_PORT ||
		     dst_qp != MPD_EXP_PDU_NO_PORT;

	if (!dissector || !*dissector)
		return -EINVAL;
	nl = strlen(dissector);
	if (nl > 255)
		return -EINVAL;
	/* the name is NUL-padded to 32 bits, padding counted in the length */
	need = 4 + pad4(nl + 1) + (ports ? 3 * 8 : 0) + 4;
	if (cap < need)
		return -ENOSPC;
	off += put_tlv(buf, MPD_EXP_PDU_TAG_DISSECTOR, dissector, nl,
		       pad4(nl + 1));
	if (ports) {
		off += put_tlv_u32(buf + off, MPD_EXP_PDU_TAG_PORT_TYPE,
				   MPD_EXP_PDU_PT_IBQP);
		off += put_tlv_u32(buf + off, MPD_EXP_PDU_TAG_SRC_PORT,
				   src_qp == MPD_EXP_PDU_NO_PORT ? 0 : src_qp);
		off += put_tlv_u32(buf + off, MPD_EXP_PDU_TAG_DST_PORT,
				   dst_qp == MPD_EXP_PDU_NO_PORT ? 0 : dst_qp);
	}
	off += put_tlv(buf + off, MPD_EXP_PDU_TAG_END, NULL, 0, 0);
	return (int)off;
}

int
mpd_pcapng_write_exported(struct mpd_pcapng *w, uint32_t if_id,
			  uint64_t ts_ns, uint32_t direction,
			  const char *dissector, uint32_t src_qp,
			  uint32_t dst_qp, const void *pdu, size_t len)
{
	uint8_t hdr[300];
	int n = mpd_exported_pdu_header(hdr, sizeof(hdr), dissector, src_qp,
					dst_qp);

	if (n < 0)
		return n;
	return write_epb(w, if_id, ts_ns, direction, hdr, (size_t)n, pdu, len);
}

int
mpd_pcapng_flush(struct mpd_pcapng *w)
{
	if (!w->err && fflush(w->f) != 0)
		w->err = -errno;
	return w->err;
}

int
mpd_pcapng_close(struct mpd_pcapng *w)
{
	int err;

	if (!w)
		return -EINVAL;
	mpd_pcapng_flush(w);
	err = w->err;
	if (fclose(w->f) != 0 && !err)
		err = -errno;
	free(w);
	return err;
}
