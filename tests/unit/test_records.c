/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the capture record encoders (docs/capture-format.md): the
 * CQ completion (56 bytes, with the PSN) and the QP state change, against
 * golden bytes written out from the format's tables; their range checks;
 * and the readers' side: the common header parser and the pcap reader
 * take a record of either WC length (52 in older captures, 56).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "madpmd/pcapng.h"
#include "madpmd/pcapread.h"
#include "madpmd/records.h"
#include "madpmd/wire.h"
#include "tap.h"

static const struct mpd_rec_hdr hdr = {
	.flags = 0, .port = 2, .node_id = 0x01020304, .seq = 0x0a0b0c0d,
};

/* the common header of hdr with the kind and body length given */
#define GOLDEN_HDR(kind, blen)						\
	0x4d, 0x50, 0x44, 0x52, 0x01, (kind), 0x00, 0x00,		\
	0x00, 0x18, 0x02, 0x00, 0x01, 0x02, 0x03, 0x04,			\
	0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, (blen)

static const uint8_t golden_wc[] = {
	GOLDEN_HDR(2, 56),
	0x00, 0x00, 0x00, 0x07,				/* cq_id */
	0x00, 0x00, 0x00, 0x41,				/* qp_num */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* wr_id */
	0x00, 0x00, 0x00, 0x00,				/* status */
	0x00, 0x00, 0x00, 0x80,				/* opcode RECV */
	0x00, 0x00, 0x00, 0x00,				/* vendor_err */
	0x00, 0x00, 0x10, 0x00,				/* byte_len */
	0xde, 0xad, 0xbe, 0xef,				/* imm_data */
	0x00, 0x00, 0x00, 0x52,				/* src_qp */
	0x00, 0x00, 0x00, 0x02,				/* wc_flags */
	0x00, 0x01, 0x00, 0x05,				/* pkey_index, slid */
	0x03, 0x01, 0x00, 0x00,				/* sl, path bits */
	0x00, 0x00, 0x01, 0x23,				/* psn */
};

static const uint8_t golden_qp[] = {
	GOLDEN_HDR(5, 24),
	0x00, 0x00, 0x00, 0x41,				/* qp_num */
	0x00, 0x00, 0x00, 0x09,				/* handle */
	0x02, 0x03, 0x06, 0x01,		/* RC, RTS -> ERR, cause ERROR */
	0x00, 0x00, 0x00, 0x0c,				/* RETRY_EXC_ERR */
	0x00, 0x00, 0x02, 0x00,				/* psn */
	0x00, 0x00, 0x00, 0x52,				/* dest_qp */
};

static void
dump_diff(const uint8_t *got, const uint8_t *want, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (got[i] != want[i])
			tap_diag("byte %zu: got 0x%02x, want 0x%02x", i, got[i],
				 want[i]);
}

static void
test_wc(void)
{
	struct mpd_rec_wc wc = {
		.cq_id = 7, .qp_num = 0x41, .wr_id = 0x1122334455667788ull,
		.status = 0, .opcode = 128, .byte_len = 4096,
		.imm_data = 0xdeadbeef, .src_qp = 0x52, .wc_flags = 2,
		.pkey_index = 1, .slid = 5, .sl = 3, .dlid_path_bits = 1,
		.psn = 0x123,
	};
	uint8_t buf[128];
	int rc;

	memset(buf, 0xa5, sizeof(buf));
	rc = mpd_rec_encode_wc(&hdr, &wc, buf, sizeof(buf));
	is_int(rc, sizeof(golden_wc), "WC: 24 + 56 bytes");
	if (!ok(rc == (int)sizeof(golden_wc) &&
		memcmp(buf, golden_wc, sizeof(golden_wc)) == 0,
		"WC: golden bytes"))
		dump_diff(buf, golden_wc, sizeof(golden_wc));

	wc.psn = MPD_REC_NO_PSN;
	rc = mpd_rec_encode_wc(&hdr, &wc, buf, sizeof(buf));
	ok(rc == (int)sizeof(golden_wc) &&
	   mpd_get_be32(buf + MPD_REC_HDR_LEN + 52) == MPD_REC_NO_PSN,
	   "WC: no PSN is ff ff ff ff");
	wc.psn = 0x1000000;
	is_int(mpd_rec_encode_wc(&hdr, &wc, buf, sizeof(buf)), MPD_ERANGE,
	       "WC: a PSN of 25 bits rejected");
	wc.psn = 0xffffff;
	is_int(mpd_rec_encode_wc(&hdr, &wc, buf, sizeof(buf)),
	       sizeof(golden_wc), "WC: PSN 0xffffff taken");
	is_int(mpd_rec_encode_wc(&hdr, &wc, buf, sizeof(golden_wc) - 1),
	       MPD_ENOSPC, "WC: a buffer one short rejected");
}

static void
test_qp(void)
{
	struct mpd_rec_qp q = {
		.qp_num = 0x41, .handle = 9, .qp_type = 2, .old_state = 3,
		.new_state = 6, .cause = MPD_REC_QP_ERROR, .status = 12,
		.psn = 0x200, .dest_qp = 0x52,
	};
	struct mpd_rec_hdr d;
	const uint8_t *body;
	size_t blen;
	uint8_t buf[64];
	int rc;

	memset(buf, 0xa5, sizeof(buf));
	rc = mpd_rec_encode_qp(&hdr, &q, buf, sizeof(buf));
	is_int(rc, sizeof(golden_qp), "QP: 24 + 24 bytes");
	if (!ok(rc == (int)sizeof(golden_qp) &&
		memcmp(buf, golden_qp, sizeof(golden_qp)) == 0,
		"QP: golden bytes"))
		dump_diff(buf, golden_qp, sizeof(golden_qp));
	ok(mpd_rec_decode_hdr(buf, (size_t)rc, &d, &body, &blen) == 0 &&
	   d.kind == MPD_REC_QP && blen == MPD_REC_QP_LEN &&
	   body == buf + MPD_REC_HDR_LEN, "QP: header decodes");

	q.psn = MPD_REC_NO_PSN;
	q.cause = MPD_REC_QP_MODIFY;
	rc = mpd_rec_encode_qp(&hdr, &q, buf, sizeof(buf));
	ok(rc == (int)sizeof(golden_qp) &&
	   mpd_get_be32(buf + MPD_REC_HDR_LEN + 16) == MPD_REC_NO_PSN &&
	   buf[MPD_REC_HDR_LEN + 11] == MPD_REC_QP_MODIFY,
	   "QP: a modify without PSN");
	q.psn = 0x1000000;
	is_int(mpd_rec_encode_qp(&hdr, &q, buf, sizeof(buf)), MPD_ERANGE,
	       "QP: a PSN of 25 bits rejected");
	q.psn = 0;
	q.qp_num = 0x1000000;
	is_int(mpd_rec_encode_qp(&hdr, &q, buf, sizeof(buf)), MPD_ERANGE,
	       "QP: a QPN of 25 bits rejected");
	q.qp_num = 0x41;
	q.dest_qp = 0x1000000;
	is_int(mpd_rec_encode_qp(&hdr, &q, buf, sizeof(buf)), MPD_ERANGE,
	       "QP: a destination QPN of 25 bits rejected");
	q.dest_qp = 0;
	is_int(mpd_rec_encode_qp(&hdr, &q, buf, sizeof(golden_qp) - 1),
	       MPD_ENOSPC, "QP: a buffer one short rejected");
	is_int(mpd_rec_encode_qp(&hdr, NULL, buf, sizeof(buf)), MPD_EINVAL,
	       "QP: no record rejected");
	is_int(mpd_rec_encode_qp(NULL, &q, buf, sizeof(buf)), MPD_EINVAL,
	       "QP: no header rejected");
}

/* A 52-byte WC body (a capture from before the PSN) and a 56-byte one,
 * through the header parser and through a pcapng and the pcap reader. */
static void
test_read_both(void)
{
	char dir[] = "/tmp/madpmd-records.XXXXXX", path[64];
	uint8_t old[MPD_REC_HDR_LEN + MPD_REC_WC_LEN_V1];
	const size_t lens[] = { sizeof(old), sizeof(golden_wc),
				sizeof(golden_qp) };
	const uint8_t *recs[] = { old, golden_wc, golden_qp };
	struct mpd_pcap_reader *r;
	struct mpd_pcap_pkt pkt;
	struct mpd_pcapng *w;
	struct mpd_rec_hdr d;
	const uint8_t *body, *frame;
	uint32_t flen;
	size_t blen, i;
	char err[256];
	int ifid;

	memcpy(old, golden_wc, sizeof(old));
	old[23] = MPD_REC_WC_LEN_V1;
	for (i = 0; i < 2; i++)
		ok(mpd_rec_decode_hdr(recs[i], lens[i], &d, &body, &blen) == 0 &&
		   d.kind == MPD_REC_WC &&
		   blen == lens[i] - MPD_REC_HDR_LEN &&
		   mpd_get_be32(body + 4) == 0x41,
		   "WC of %zu bytes: header decodes",
		   lens[i] - MPD_REC_HDR_LEN);

	if (!ok(mkdtemp(dir) != NULL, "temporary directory"))
		return;
	snprintf(path, sizeof(path), "%s/r.pcapng", dir);
	w = mpd_pcapng_open(path);
	ifid = w ? mpd_pcapng_add_interface(w, MPD_LINKTYPE_UPPER_PDU,
					    "hca0/1 records", NULL) : -1;
	ok(ifid >= 0, "pcapng with a records interface");
	for (i = 0; ifid >= 0 && i < 3; i++)
		ok(mpd_rec_write(w, (uint32_t)ifid, 1000 + i,
				 MPD_PCAPNG_DIR_UNKNOWN, recs[i], lens[i]) == 0,
		   "record %zu written", i);
	ok(w && mpd_pcapng_close(w) == 0, "pcapng closed");
	r = mpd_pcapread_open(path, err, sizeof(err));
	ok(r != NULL, "pcapng opened for reading");
	for (i = 0; r && i < 3; i++) {
		int n = mpd_pcapread_next(r, &pkt);

		ok(n == 1 && mpd_pcap_frame(&pkt, NULL, 0, &frame, &flen) ==
		   MPD_FRAME_RECORD && flen == lens[i] &&
		   memcmp(frame, recs[i], lens[i]) == 0 &&
		   mpd_rec_decode_hdr(frame, flen, &d, NULL, &blen) == 0 &&
		   blen == lens[i] - MPD_REC_HDR_LEN,
		   "record %zu (body %zu bytes) read back as a record", i,
		   lens[i] - MPD_REC_HDR_LEN);
	}
	ok(r && mpd_pcapread_next(r, &pkt) == 0, "then the end");
	if (r)
		mpd_pcapread_close(r);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	test_wc();
	test_qp();
	test_read_both();
	return tap_done();
}
