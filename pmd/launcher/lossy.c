/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a lossy wire picks out: frames that carry a MAD of a given
 * management class (and attribute), so that one message of a protocol
 * (a CM RTU, a PerfMgt query) can be lost deterministically while
 * everything else on the wire goes through.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fabric.h"
#include "madpmd/mad.h"

/* One selector, "CLASS" or "CLASS:ATTR", numbers as in C (0x07, 7). */
static int
parse_num(const char *v, unsigned long max, unsigned long *out, char **end)
{
	if (!isdigit((unsigned char)*v))
		return -EINVAL;
	errno = 0;
	*out = strtoul(v, end, 0);
	return errno || *out > max ? -EINVAL : 0;
}

int
fab_lossy_sel_parse(struct fab_lossy *l, const char *v)
{
	struct fab_mad_sel s = { .any_attr = true };
	unsigned long cls, attr;
	char *end;

	if (l->nsel == FAB_LOSSY_MAX_SEL)
		return -E2BIG;
	if (parse_num(v, UINT8_MAX, &cls, &end))
		return -EINVAL;
	s.mgmt_class = (uint8_t)cls;
	if (*end == ':') {
		if (parse_num(end + 1, UINT16_MAX, &attr, &end))
			return -EINVAL;
		s.attr_id = (uint16_t)attr;
		s.any_attr = false;
	}
	if (*end)
		return -EINVAL;
	l->sel[l->nsel++] = s;
	return 0;
}

/*
 * The MAD a frame carries, or NULL: a UD SEND to QP0 or QP1 (IBA 13.5.1;
 * RoCE has only QP1) whose payload holds at least the common MAD header.
 * CRCs are not checked: the receiver does that, and counts what is bad.
 */
static const uint8_t *
frame_mad(enum mpd_link link, const uint8_t *frame, size_t len)
{
	struct mpd_pkt p;

	if (mpd_pkt_decode(link, frame, len,
			   MPD_PKT_NO_ICRC_CHECK | MPD_PKT_NO_VCRC_CHECK,
			   &p) != MPD_OK)
		return NULL;
	if ((p.bth.opcode & MPD_TP_MASK) != MPD_TP_UD ||
	    p.payload_len < MPD_MAD_HDR_LEN)
		return NULL;
	if (p.bth.dest_qp > 1 || (link != MPD_LINK_IB && p.bth.dest_qp != 1))
		return NULL;
	return p.payload;
}

bool
fab_lossy_selects(const struct fab_lossy *l, enum mpd_link link,
		  const struct rte_mbuf *m)
{
	uint8_t copy[FAB_FRAME_MAX];
	const uint8_t *frame, *mad;
	unsigned int i;
	uint8_t cls;
	uint16_t attr;

	if (!l->nsel)
		return true;
	if (m->pkt_len > sizeof(copy))
		return false;
	frame = rte_pktmbuf_read(m, 0, m->pkt_len, copy);
	mad = frame ? frame_mad(link, frame, m->pkt_len) : NULL;
	if (!mad)
		return false;
	cls = mpd_mad_class(mad);
	attr = mpd_mad_attr_id(mad);
	for (i = 0; i < l->nsel; i++)
		if (l->sel[i].mgmt_class == cls &&
		    (l->sel[i].any_attr || l->sel[i].attr_id == attr))
			return true;
	return false;
}
