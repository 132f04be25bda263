/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A CA port that no client opens: a node of a large fabric (a fat tree's
 * hosts) that the daemon serves alone, without an ethdev, a MAD layer or
 * a channel. What reaches it is the SM's and the tools' business with its
 * SMA and PMA; the answer goes back out of the port it came in on.
 */
#include "madpmd/mad.h"
#include "node.h"

static enum hca_reply
agents(struct hca_port *p, const struct mpd_pkt *pk, uint8_t *mad,
       uint64_t now_ns)
{
	uint32_t qp = pk->bth.dest_qp;
	bool dr = qp == 0 && mpd_mad_class(mad) == MPD_CLASS_SUBN_DR;
	enum hca_reply r;

	/* the end port's SMI (IBA 14.2.2.2), before the SMA sees it */
	if (dr && !hca_port_dr_recv(p, mad)) {
		p->cnt.drop_bad_header++;
		return HCA_NO_REPLY;
	}
	r = hca_node_agent(p, qp, mad, pk, now_ns);
	if (r == HCA_NOT_MINE) {
		if (!mpd_mad_is_get_set(mad)) {
			/* responses, traps, reports: nobody here waits */
			p->cnt.drop_no_agent++;
			return HCA_NO_REPLY;
		}
		r = hca_node_unmatched(p, mad);
	}
	/* a DR response leaves with the pointer at the count (C14-13:1) */
	if (r == HCA_REPLY && dr)
		hca_port_dr_reply(mad);
	return r;
}

bool
hca_ca_rx(struct hca_port *p, uint8_t *buf, uint16_t *len, uint16_t cap,
	  uint64_t now_ns)
{
	struct mpd_pkt pk;
	enum hca_reply r;
	uint8_t *mad;
	uint16_t n;

	if (p->phys_state != HCA_PHYS_LINKUP) {
		/* noise to a receiver whose link is not up */
		p->cnt.rcv_errors++;
		p->cnt.rcv_local_phys_errors++;
		return false;
	}
	switch (hca_port_rx(p, buf, *len, false, &pk, &mad)) {
	case HCA_RX_MAD:
		break;
	case HCA_RX_DATA:
		p->cnt.qp_no_qp++;	/* no QP above 1 lives here */
		return false;
	default:
		return false;
	}
	r = agents(p, &pk, mad, now_ns);
	if (r != HCA_REPLY && r != HCA_TRAP)
		return false;
	n = hca_port_answer(p, &pk, mad, r, buf, cap);
	if (!n)
		return false;
	*len = n;
	hca_port_count_xmit(p, n);
	return true;
}
