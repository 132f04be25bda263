/* SPDX-License-Identifier: BSD-3-Clause */
/* madpmd capture records (docs/capture-format.md): encoders and writers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/records.h"
#include "madpmd/wire.h"

/* Common header; body_len is what follows it. */
static int
put_hdr(const struct mpd_rec_hdr *h, uint8_t kind, size_t body_len,
	uint8_t *buf, size_t cap)
{
	if (!h || !buf)
		return MPD_EINVAL;
	if (body_len > UINT32_MAX - MPD_REC_HDR_LEN)
		return MPD_ERANGE;
	if (cap < MPD_REC_HDR_LEN + body_len)
		return MPD_ENOSPC;
	mpd_put_be32(buf, MPD_REC_MAGIC);
	buf[4] = MPD_REC_VERSION;
	buf[5] = kind;
	mpd_put_be16(buf + 6, h->flags);
	mpd_put_be16(buf + 8, MPD_REC_HDR_LEN);
	buf[10] = h->port;
	buf[11] = 0;
	mpd_put_be32(buf + 12, h->node_id);
	mpd_put_be32(buf + 16, h->seq);
	mpd_put_be32(buf + 20, (uint32_t)body_len);
	return MPD_REC_HDR_LEN;
}

int
mpd_rec_encode_umad(const struct mpd_rec_hdr *h, const struct mpd_rec_umad *u,
		    const void *mad, size_t mad_len, uint8_t *buf, size_t cap)
{
	size_t body = MPD_REC_UMAD_FIXED + MPD_REC_UMAD_HDR_LEN + mad_len;
	uint8_t *b, *a;
	int rc;

	if (!u || (mad_len && !mad))
		return MPD_EINVAL;
	if (u->direction > MPD_REC_UMAD_RECV)
		return MPD_ERANGE;
	rc = put_hdr(h, MPD_REC_UMAD, body, buf, cap);
	if (rc < 0)
		return rc;
	b = buf + MPD_REC_HDR_LEN;
	memset(b, 0, MPD_REC_UMAD_FIXED + MPD_REC_UMAD_HDR_LEN);
	b[0] = u->direction;
	mpd_put_be32(b + 4, u->pid);
	mpd_put_be32(b + 8, u->portid);
	/* struct ib_user_mad, as a little-endian host lays it out */
	b += MPD_REC_UMAD_FIXED;
	mpd_put_le32(b + 0, u->agent_id);
	mpd_put_le32(b + 4, u->status);
	mpd_put_le32(b + 8, u->timeout_ms);
	mpd_put_le32(b + 12, u->retries);
	mpd_put_le32(b + 16, u->length);
	a = b + 20;		/* struct ib_mad_addr */
	mpd_put_be32(a + 0, u->qpn);
	mpd_put_be32(a + 4, u->qkey);
	mpd_put_be16(a + 8, u->lid);
	a[10] = u->sl;
	a[11] = u->path_bits;
	a[12] = u->grh_present;
	a[13] = u->gid_index;
	a[14] = u->hop_limit;
	a[15] = u->traffic_class;
	memcpy(a + 16, u->gid, 16);
	mpd_put_be32(a + 32, u->flow_label);
	mpd_put_le16(a + 36, u->pkey_index);
	if (mad_len)
		memcpy(b + MPD_REC_UMAD_HDR_LEN, mad, mad_len);
	return (int)(MPD_REC_HDR_LEN + body);
}

int
mpd_rec_encode_wc(const struct mpd_rec_hdr *h, const struct mpd_rec_wc *wc,
		  uint8_t *buf, size_t cap)
{
	uint8_t *b;
	int rc;

	if (!wc)
		return MPD_EINVAL;
	if (wc->qp_num > 0xffffff || wc->src_qp > 0xffffff ||
	    (wc->psn > 0xffffff && wc->psn != MPD_REC_NO_PSN))
		return MPD_ERANGE;
	rc = put_hdr(h, MPD_REC_WC, MPD_REC_WC_LEN, buf, cap);
	if (rc < 0)
		return rc;
	b = buf + MPD_REC_HDR_LEN;
	memset(b, 0, MPD_REC_WC_LEN);
	mpd_put_be32(b + 0, wc->cq_id);
	mpd_put_be32(b + 4, wc->qp_num);
	mpd_put_be64(b + 8, wc->wr_id);
	mpd_put_be32(b + 16, wc->status);
	mpd_put_be32(b + 20, wc->opcode);
	mpd_put_be32(b + 24, wc->vendor_err);
	mpd_put_be32(b + 28, wc->byte_len);
	mpd_put_be32(b + 32, wc->imm_data);
	mpd_put_be32(b + 36, wc->src_qp);
	mpd_put_be32(b + 40, wc->wc_flags);
	mpd_put_be16(b + 44, wc->pkey_index);
	mpd_put_be16(b + 46, wc->slid);
	b[48] = wc->sl;
	b[49] = wc->dlid_path_bits;
	mpd_put_be32(b + 52, wc->psn);
	return MPD_REC_HDR_LEN + MPD_REC_WC_LEN;
}

int
mpd_rec_encode_cm(const struct mpd_rec_hdr *h, const struct mpd_rec_cm *cm,
		  uint8_t *buf, size_t cap)
{
	size_t body;
	uint8_t *b;
	int rc;

	if (!cm)
		return MPD_EINVAL;
	if (cm->local_qpn > 0xffffff || cm->remote_qpn > 0xffffff ||
	    cm->retry_count > 7 || cm->rnr_retry_count > 7)
		return MPD_ERANGE;
	body = MPD_REC_CM_FIXED + cm->private_data_len;
	rc = put_hdr(h, MPD_REC_CM, body, buf, cap);
	if (rc < 0)
		return rc;
	b = buf + MPD_REC_HDR_LEN;
	memset(b, 0, MPD_REC_CM_FIXED);
	mpd_put_be32(b + 0, cm->event);
	mpd_put_be32(b + 4, (uint32_t)cm->status);
	mpd_put_be32(b + 8, cm->id);
	mpd_put_be32(b + 12, cm->listen_id);
	mpd_put_be32(b + 16, cm->local_qpn);
	mpd_put_be32(b + 20, cm->remote_qpn);
	mpd_put_be32(b + 24, cm->local_comm_id);
	mpd_put_be32(b + 28, cm->remote_comm_id);
	mpd_put_be64(b + 32, cm->service_id);
	b[40] = cm->responder_resources;
	b[41] = cm->initiator_depth;
	b[42] = (uint8_t)(cm->retry_count << 4 | cm->rnr_retry_count);
	b[43] = cm->private_data_len;
	memcpy(b + MPD_REC_CM_FIXED, cm->private_data, cm->private_data_len);
	return (int)(MPD_REC_HDR_LEN + body);
}

int
mpd_rec_encode_port(const struct mpd_rec_hdr *h, const struct mpd_rec_port *pe,
		    uint8_t *buf, size_t cap)
{
	uint8_t *b;
	int rc;

	if (!pe)
		return MPD_EINVAL;
	if (pe->old_state > 15 || pe->new_state > 15 || pe->phys_state > 15 ||
	    pe->is_sm > 1 || pe->lmc > 7 || pe->sm_sl > 15)
		return MPD_ERANGE;
	rc = put_hdr(h, MPD_REC_PORT, MPD_REC_PORT_LEN, buf, cap);
	if (rc < 0)
		return rc;
	b = buf + MPD_REC_HDR_LEN;
	memset(b, 0, MPD_REC_PORT_LEN);
	b[0] = pe->changes;
	b[1] = pe->old_state;
	b[2] = pe->new_state;
	b[3] = pe->phys_state;
	mpd_put_be16(b + 4, pe->old_lid);
	mpd_put_be16(b + 6, pe->new_lid);
	mpd_put_be16(b + 8, pe->old_sm_lid);
	mpd_put_be16(b + 10, pe->new_sm_lid);
	b[12] = pe->is_sm;
	b[13] = pe->lmc;
	b[14] = pe->sm_sl;
	mpd_put_be32(b + 16, pe->capability_mask);
	mpd_put_be64(b + 20, pe->port_guid);
	return MPD_REC_HDR_LEN + MPD_REC_PORT_LEN;
}

int
mpd_rec_encode_qp(const struct mpd_rec_hdr *h, const struct mpd_rec_qp *q,
		  uint8_t *buf, size_t cap)
{
	uint8_t *b;
	int rc;

	if (!q)
		return MPD_EINVAL;
	/* widths only: states and causes a reader does not know are shown
	 * as numbers, not lost */
	if (q->qp_num > 0xffffff || q->dest_qp > 0xffffff ||
	    (q->psn > 0xffffff && q->psn != MPD_REC_NO_PSN))
		return MPD_ERANGE;
	rc = put_hdr(h, MPD_REC_QP, MPD_REC_QP_LEN, buf, cap);
	if (rc < 0)
		return rc;
	b = buf + MPD_REC_HDR_LEN;
	mpd_put_be32(b + 0, q->qp_num);
	mpd_put_be32(b + 4, q->handle);
	b[8] = q->qp_type;
	b[9] = q->old_state;
	b[10] = q->new_state;
	b[11] = q->cause;
	mpd_put_be32(b + 12, q->status);
	mpd_put_be32(b + 16, q->psn);
	mpd_put_be32(b + 20, q->dest_qp);
	return MPD_REC_HDR_LEN + MPD_REC_QP_LEN;
}

int
mpd_rec_decode_hdr(const uint8_t *buf, size_t len, struct mpd_rec_hdr *h,
		   const uint8_t **body, size_t *body_len)
{
	uint16_t hl;
	uint32_t bl;

	if (!buf || !h)
		return MPD_EINVAL;
	if (len < MPD_REC_HDR_LEN)
		return MPD_ETRUNC;
	if (mpd_get_be32(buf) != MPD_REC_MAGIC)
		return MPD_EINVAL;
	if (buf[4] < 1)
		return MPD_EVERSION;
	hl = mpd_get_be16(buf + 8);
	if (hl < MPD_REC_HDR_LEN || (buf[4] == MPD_REC_VERSION &&
				     hl != MPD_REC_HDR_LEN))
		return MPD_ELEN;
	bl = mpd_get_be32(buf + 20);
	if (len < hl || len - hl < bl)
		return MPD_ETRUNC;
	h->kind = buf[5];
	h->flags = mpd_get_be16(buf + 6);
	h->port = buf[10];
	h->node_id = mpd_get_be32(buf + 12);
	h->seq = mpd_get_be32(buf + 16);
	if (body)
		*body = buf + hl;
	if (body_len)
		*body_len = bl;
	return MPD_OK;
}

int
mpd_rec_write(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
	      uint32_t direction, const uint8_t *rec, size_t len)
{
	return mpd_pcapng_write_exported(w, if_id, ts_ns, direction,
					 MPD_REC_DISSECTOR,
					 MPD_EXP_PDU_NO_PORT,
					 MPD_EXP_PDU_NO_PORT, rec, len);
}

int
mpd_rec_write_umad(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		   const struct mpd_rec_hdr *h, const struct mpd_rec_umad *u,
		   const void *mad, size_t mad_len)
{
	size_t len = mpd_rec_umad_len(mad_len);
	uint8_t stack[MPD_REC_HDR_LEN + MPD_REC_UMAD_FIXED +
		      MPD_REC_UMAD_HDR_LEN + 256];
	uint8_t *buf = len <= sizeof(stack) ? stack : malloc(len);
	int rc;

	if (!buf)
		return -ENOMEM;
	rc = mpd_rec_encode_umad(h, u, mad, mad_len, buf, len);
	if (rc >= 0)
		rc = mpd_rec_write(w, if_id, ts_ns,
				   u->direction == MPD_REC_UMAD_SEND ?
				   MPD_PCAPNG_DIR_OUT : MPD_PCAPNG_DIR_IN,
				   buf, (size_t)rc);
	if (buf != stack)
		free(buf);
	return rc;
}

int
mpd_rec_write_wc(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		 const struct mpd_rec_hdr *h, const struct mpd_rec_wc *wc)
{
	uint8_t buf[MPD_REC_HDR_LEN + MPD_REC_WC_LEN];
	int rc = mpd_rec_encode_wc(h, wc, buf, sizeof(buf));

	return rc < 0 ? rc : mpd_rec_write(w, if_id, ts_ns,
					   MPD_PCAPNG_DIR_UNKNOWN, buf,
					   (size_t)rc);
}

int
mpd_rec_write_cm(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		 const struct mpd_rec_hdr *h, const struct mpd_rec_cm *cm)
{
	uint8_t buf[MPD_REC_HDR_LEN + MPD_REC_CM_FIXED + MPD_REC_CM_PDATA_MAX];
	int rc = mpd_rec_encode_cm(h, cm, buf, sizeof(buf));

	return rc < 0 ? rc : mpd_rec_write(w, if_id, ts_ns,
					   MPD_PCAPNG_DIR_UNKNOWN, buf,
					   (size_t)rc);
}

int
mpd_rec_write_port(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		   const struct mpd_rec_hdr *h, const struct mpd_rec_port *pe)
{
	uint8_t buf[MPD_REC_HDR_LEN + MPD_REC_PORT_LEN];
	int rc = mpd_rec_encode_port(h, pe, buf, sizeof(buf));

	return rc < 0 ? rc : mpd_rec_write(w, if_id, ts_ns,
					   MPD_PCAPNG_DIR_UNKNOWN, buf,
					   (size_t)rc);
}

int
mpd_rec_write_qp(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		 const struct mpd_rec_hdr *h, const struct mpd_rec_qp *q)
{
	uint8_t buf[MPD_REC_HDR_LEN + MPD_REC_QP_LEN];
	int rc = mpd_rec_encode_qp(h, q, buf, sizeof(buf));

	return rc < 0 ? rc : mpd_rec_write(w, if_id, ts_ns,
					   MPD_PCAPNG_DIR_UNKNOWN, buf,
					   (size_t)rc);
}
