/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the wire codec on a frame off the wire. The first byte
 * picks the link (IB, RoCEv1, RoCEv2) and whether the CRCs are checked;
 * the rest is the frame. A frame that decodes has its MAD decoded, and
 * the MAD's data decoded through every attribute, record and CM layout,
 * and the frame is taken apart as native IB in an Ethernet envelope.
 * A decoded frame must describe bytes inside the input, and encode again
 * (whatever its opcode's extension headers) into a frame that decodes,
 * CRCs checked, to the same transport headers and payload. A frame whose
 * ICRC is zero gets its CRCs made (mpd_pkt_crc_fill), and then decodes
 * with them checked when it decoded without.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/cm.h"
#include "madpmd/mad.h"
#include "madpmd/rmpp.h"
#include "madpmd/sa.h"
#include "madpmd/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct mpd_layout *const layouts[] = {
	&mpd_node_info_layout, &mpd_node_desc_layout, &mpd_switch_info_layout,
	&mpd_guid_info_layout, &mpd_port_info_layout, &mpd_pkey_table_layout,
	&mpd_sl2vl_table_layout, &mpd_vl_arb_table_layout,
	&mpd_lft_block_layout, &mpd_mft_block_layout, &mpd_sm_info_layout,
	&mpd_notice_layout, &mpd_class_port_info_layout,
	&mpd_port_counters_layout, &mpd_port_counters_ext_layout,
	&mpd_port_rcv_error_details_layout,
	&mpd_port_xmit_discard_details_layout,
	&mpd_cm_req_layout, &mpd_cm_mra_layout, &mpd_cm_rej_layout,
	&mpd_cm_rep_layout, &mpd_cm_rtu_layout, &mpd_cm_dreq_layout,
	&mpd_cm_drep_layout, &mpd_cm_lap_layout, &mpd_cm_apr_layout,
	&mpd_cm_sidr_req_layout, &mpd_cm_sidr_rep_layout,
	&mpd_mad_hdr_layout, &mpd_rmpp_hdr_layout,
	&mpd_node_record_layout, &mpd_port_info_record_layout,
	&mpd_service_record_layout, &mpd_path_record_layout,
	&mpd_mcmember_record_layout,
};

/* big enough and aligned for any decoded structure */
static union {
	uint64_t u64[1024];
	long double ld;
} obj;

static void
mad(const uint8_t *m, size_t len)
{
	struct mpd_mad d;
	uint16_t off;
	unsigned int i;

	if (mpd_mad_decode(m, len, &d) < 0)
		return;
	(void)mpd_rmpp_is_active(m, len);
	(void)mpd_rmpp_hdr_len(d.hdr.mgmt_class);
	off = mpd_class_data_off(d.hdr.mgmt_class);
	if (off > len)
		abort();
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		(void)mpd_layout_decode(layouts[i], m + off, len - off, &obj);
}

#define SAME(f)	(a->f == b->f)

/* Everything the encoder takes from the caller after the BTH */
static int
same_transport(const struct mpd_pkt *a, const struct mpd_pkt *b)
{
	return SAME(bth.opcode) && SAME(bth.se) && SAME(bth.mig_req) &&
	       SAME(bth.pkey) && SAME(bth.resv8a) && SAME(bth.dest_qp) &&
	       SAME(bth.ack_req) && SAME(bth.psn) &&
	       SAME(deth.qkey) && SAME(deth.src_qp) &&
	       SAME(reth.va) && SAME(reth.rkey) && SAME(reth.dma_len) &&
	       SAME(atomic.va) && SAME(atomic.rkey) &&
	       SAME(atomic.swap_add) && SAME(atomic.compare) &&
	       SAME(aeth.syndrome) && SAME(aeth.msn) &&
	       SAME(atomic_orig) && SAME(imm) && SAME(ieth) &&
	       SAME(payload_len) &&
	       memcmp(a->payload, b->payload, a->payload_len) == 0;
}

#undef SAME

/* A decoded packet encodes again, back to itself. The frame may shrink
 * (IPv4 options and Ethernet padding are not kept) or grow by the pad a
 * RoCE sender left out (PadCnt 0 on a length not a multiple of 4). */
static void
reencode(const struct mpd_pkt *p, size_t size)
{
	struct mpd_pkt e = *p, q;
	uint8_t *g = malloc(size + 64);
	int n;

	if (!g)
		return;
	n = mpd_pkt_encode(&e, p->payload, p->payload_len, g, size + 64);
	if (n == MPD_ERANGE && (p->payload_len + p->bth.pad_cnt) % 4) {
		free(g);	/* that pad took a 16-bit length over */
		return;
	}
	if (n < 0 || (size_t)n > size + 3)
		abort();
	if (mpd_pkt_decode(p->link, g, (size_t)n, 0, &q) != MPD_OK ||
	    !same_transport(p, &q))
		abort();
	free(g);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mpd_pkt p;
	enum mpd_link link;
	unsigned int flags;
	uint32_t icrc;
	size_t ib_len;
	struct mpd_link_hello hello;
	uint8_t *f;
	int rc;

	if (size < 1)
		return 0;
	link = (enum mpd_link)(data[0] % 3);
	flags = (data[0] >> 2) & (MPD_PKT_NO_ICRC_CHECK | MPD_PKT_NO_VCRC_CHECK);
	size--;
	/* a copy of exactly the frame's size, so ASan sees any overrun */
	f = malloc(size ? size : 1);
	if (!f)
		return 0;
	memcpy(f, data + 1, size);
	(void)mpd_pkt_icrc(link, f, size, &icrc);
	(void)mpd_lrh_decode(f, size, &p.lrh);
	(void)mpd_grh_decode(f, size, &p.grh);
	(void)mpd_bth_decode(f, size, &p.bth);
	(void)mpd_deth_decode(f, size, &p.deth);
	memset(&p, 0, sizeof(p));
	rc = mpd_pkt_decode(link, f, size, flags, &p);
	if (rc >= 0) {
		if (p.payload < f || p.payload_len > size ||
		    p.payload + p.payload_len > f + size || p.bth_off >= size)
			abort();
		reencode(&p, size);
		mad(p.payload, p.payload_len);
	}
	/* the same bytes as an IB frame in Ethernet, from another daemon */
	rc = mpd_ib_eth_decap(f, size, &p.eth, &ib_len);
	if (rc >= 0 && ((size_t)rc + ib_len > size || ib_len < MPD_LRH_LEN))
		abort();
	/* ... or as the link's heartbeat */
	if (mpd_link_hello_decode(f, size, &p.eth, &hello) == MPD_OK &&
	    !hello.interval_ms)
		abort();
	/* the same bytes as a bare MAD, as a umad client hands one over */
	mad(f, size);
	/* the launcher making the CRCs of a frame left without them: one it
	 * filled decodes with them checked (a frame that decodes unchecked,
	 * else it would not have parsed) */
	rc = mpd_pkt_crc_fill(link, f, size);
	if (rc > 0 && (link != MPD_LINK_IB ||
		       (mpd_pkt_decode(link, f, size,
				       MPD_PKT_NO_ICRC_CHECK |
				       MPD_PKT_NO_VCRC_CHECK, &p) == MPD_OK &&
			mpd_pkt_decode(link, f, size, 0, &p) != MPD_OK)))
		abort();
	free(f);
	return 0;
}
