/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port's data path. tx_burst is the port's receiver: every frame from
 * the wire is parsed, checked (lengths, ICRC/VCRC, P_Key, Q_Key, VL15) and
 * handed to the agent of its QP; a response is built in the same mbuf and
 * queued for rx_burst, the port's transmitter. Nothing is allocated per
 * packet and nothing calls into the kernel.
 */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "hca.h"
#include "madpmd/mad.h"

#define QP1_QKEY	0x80010000u	/* IBA 13.5.1.1.1 */

/* PortRcvErrors and its detail (IBA 16.1.4 PortRcvErrorDetails): a bad
 * ICRC or VCRC is a local physical error, anything else a malformed
 * packet (lengths, versions, headers, VL) */
static void
count_drop(struct hca_port *p, int status)
{
	p->cnt.rcv_errors++;
	switch (status) {
	case MPD_ETRUNC:
	case MPD_ELEN:
		p->cnt.rcv_malformed_errors++;
		p->cnt.drop_truncated++;
		break;
	case MPD_EICRC:
		p->cnt.rcv_local_phys_errors++;
		p->cnt.drop_bad_icrc++;
		break;
	case MPD_EVCRC:
		p->cnt.rcv_local_phys_errors++;
		p->cnt.drop_bad_vcrc++;
		break;
	default:
		p->cnt.rcv_malformed_errors++;
		p->cnt.drop_bad_header++;
		break;
	}
}

/* IBA 10.9.3: P_Keys match when their low 15 bits are equal and at least
 * one of the two is a full member. */
static bool
pkey_ok(const struct hca_port *p, uint16_t pkey)
{
	unsigned int i;

	if ((pkey & 0x7fff) == 0)
		return false;
	for (i = 0; i < HCA_PKEY_TABLE_LEN; i++) {
		uint16_t t = p->pkeys[i];

		if ((t & 0x7fff) == (pkey & 0x7fff) && ((t | pkey) & 0x8000))
			return true;
	}
	return false;
}

/* Turn the request's headers around for the response. */
static void
reverse_headers(const struct hca_port *p, struct mpd_pkt *pk, uint32_t qp)
{
	uint8_t tmp[16];
	uint16_t lid;

	if (pk->link == MPD_LINK_IB) {
		lid = pk->lrh.dlid;
		pk->lrh.dlid = pk->lrh.slid;
		/* a DR SMP to a port without a LID comes back permissive */
		pk->lrh.slid = p->lid && lid != MPD_LID_PERMISSIVE ? p->lid : lid;
		pk->lrh.vl = qp == 0 ? MPD_VL15 : 0;
	} else {
		memcpy(tmp, pk->eth.dst, 6);
		memcpy(pk->eth.dst, pk->eth.src, 6);
		memcpy(pk->eth.src, p->mac.addr_bytes, 6);
		if (pk->ip_ver == 4) {
			memcpy(tmp, pk->ip4.dst, 4);
			memcpy(pk->ip4.dst, pk->ip4.src, 4);
			memcpy(pk->ip4.src, tmp, 4);
			pk->ip4.ttl = 64;
		} else {
			memcpy(tmp, pk->ip6.dst, 16);
			memcpy(pk->ip6.dst, pk->ip6.src, 16);
			memcpy(pk->ip6.src, tmp, 16);
			pk->ip6.hop_limit = 64;
		}
		pk->udp.dport = MPD_ROCE_UDP_PORT;
	}
	if (pk->has_grh) {
		memcpy(tmp, pk->grh.dgid, 16);
		memcpy(pk->grh.dgid, pk->grh.sgid, 16);
		memcpy(pk->grh.sgid, tmp, 16);
	}
	pk->bth.dest_qp = pk->deth.src_qp;
	pk->bth.se = 0;
	pk->bth.ack_req = 0;
	pk->bth.opcode = MPD_OP_UD_SEND_ONLY;
	pk->deth.src_qp = qp;
	pk->deth.qkey = qp == 0 ? 0 : QP1_QKEY;
}

/*
 * IBA 7.11.1: a CA takes the packets addressed to one of its LIDs
 * (LID .. LID + 2^LMC - 1), multicast and the permissive LID. A port the
 * SM has not given a LID yet cannot tell, and takes everything.
 */
static bool
dlid_ok(const struct hca_port *p, uint16_t dlid)
{
	if (!p->lid || dlid >= MPD_LID_MCAST_LO)
		return true;
	return dlid >= p->lid && (unsigned int)(dlid - p->lid) < (1u << p->lmc);
}

/* IBA 7.11.1: multicast LIDs are 0xC000..0xFFFE; on RoCE, a group MAC */
static bool
pkt_is_multicast(const struct mpd_pkt *pk)
{
	if (pk->link == MPD_LINK_IB)
		return pk->lrh.dlid >= MPD_LID_MCAST_LO &&
		       pk->lrh.dlid != MPD_LID_PERMISSIVE;
	return pk->eth.dst[0] & 1;
}

/* Get and Set are for the port's own agents (the SMA and PMA); responses,
 * traps and everything else for clients. */
static bool
smp_is_request(const uint8_t *mad)
{
	return mad[3] == MPD_METHOD_GET || mad[3] == MPD_METHOD_SET;
}

int
hca_port_input(struct hca_internals *hi, uint8_t *buf, uint16_t len,
	       uint16_t cap)
{
	struct hca_port *p = &hi->port;
	struct mpd_pkt pk;
	uint8_t *mad;
	uint32_t qp;
	enum hca_reply reply;
	int rc;

	rc = mpd_pkt_decode(p->link, buf, len, 0, &pk);
	if (rc != MPD_OK) {
		count_drop(p, rc);
		return 0;
	}
	p->cnt.rcv_pkts++;
	p->cnt.rcv_data += hca_data_words(p->link, len);
	if (pkt_is_multicast(&pk))
		p->cnt.multicast_rcv_pkts++;
	else
		p->cnt.unicast_rcv_pkts++;
	qp = pk.bth.dest_qp;

	if (p->link == MPD_LINK_IB) {
		/* IBA 7.6.5: VL15 carries QP0 only, and QP0 only VL15; a
		 * packet on the wrong VL is malformed (VL15Dropped is for
		 * VL15 packets the port had no room for) */
		if ((pk.lrh.vl == MPD_VL15) != (qp == 0)) {
			count_drop(p, MPD_EINVAL);	/* a bad header */
			return 0;
		}
		if (!dlid_ok(p, pk.lrh.dlid)) {
			p->cnt.drop_bad_dlid++;
			return 0;
		}
	} else if (!rte_is_same_ether_addr(
			(const struct rte_ether_addr *)pk.eth.dst, &p->mac) &&
		   !hi->promisc) {
		return 0;	/* not for this port */
	}
	if (qp > 1 || (qp == 0 && p->link != MPD_LINK_IB)) {
		p->cnt.drop_no_agent++;	/* no QP0 on RoCE; no QPs yet */
		return 0;
	}
	if (pk.payload_len != MPD_MAD_LEN) {
		count_drop(p, MPD_ELEN);
		return 0;
	}
	if (qp == 1) {
		/* QP0 is exempt from P_Key checks (IBA 10.9.3) */
		if (!pkey_ok(p, pk.bth.pkey)) {
			p->cnt.pkey_violations++;
			return 0;
		}
		if (pk.deth.qkey != QP1_QKEY) {
			p->cnt.qkey_violations++;
			return 0;
		}
	}
	/* the MAD is answered in place, in the frame's own buffer */
	mad = buf + (pk.payload - buf);
	if (qp == 0 && smp_is_request(mad) && !hca_mad_smp_for_agent(hi, mad))
		reply = hca_sma_handle(p, mad, &pk);
	else if (qp == 1 && mad[1] == MPD_CLASS_PERF && smp_is_request(mad))
		reply = hca_pma_handle(p, mad) ? HCA_REPLY : HCA_NO_REPLY;
	else if (hca_mad_deliver(hi, &pk, mad, MPD_MAD_LEN))
		return 0;	/* a client has it */
	else {
		p->cnt.drop_no_agent++;
		return 0;
	}
	if (reply == HCA_NO_REPLY)
		return 0;
	reverse_headers(p, &pk, qp);
	if (reply == HCA_TRAP) {
		pk.lrh.dlid = p->sm_lid;
		pk.lrh.slid = p->lid;
	}
	rc = mpd_pkt_encode(&pk, mad, MPD_MAD_LEN, buf, cap);
	if (rc < 0) {
		p->cnt.xmit_discards++;
		return 0;
	}
	return rc;
}

uint16_t hca_rx_burst(void *q, struct rte_mbuf **bufs, uint16_t n);
uint16_t hca_tx_burst(void *q, struct rte_mbuf **bufs, uint16_t n);

uint16_t
hca_tx_burst(void *q, struct rte_mbuf **bufs, uint16_t n)
{
	struct hca_queue *txq = q;
	struct hca_internals *hi = txq->hi;
	struct rte_mbuf *out[n ? n : 1], *drop[n ? n : 1];
	uint16_t i, nout = 0, ndrop = 0, sent;
	uint64_t bytes = 0;

	rte_spinlock_lock(&hi->lock);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = bufs[i];
		int rlen;

		bytes += m->pkt_len;
		if (!hi->started || hi->port.phys_state != HCA_PHYS_LINKUP) {
			/* to a receiver whose link is not up a packet is
			 * noise: a local physical error */
			hi->port.cnt.rcv_errors += hi->started;
			hi->port.cnt.rcv_local_phys_errors += hi->started;
			drop[ndrop++] = m;
			continue;
		}
		if (m->nb_segs > 1 && rte_pktmbuf_linearize(m) != 0) {
			/* no receive buffer holds it whole: an overrun */
			hi->port.cnt.rcv_errors++;
			hi->port.cnt.rcv_buffer_overruns++;
			drop[ndrop++] = m;
			continue;
		}
		rlen = hca_port_input(hi, rte_pktmbuf_mtod(m, uint8_t *),
				      (uint16_t)m->data_len,
				      (uint16_t)RTE_MIN(m->data_len +
						rte_pktmbuf_tailroom(m),
						UINT16_MAX));
		if (rlen <= 0) {
			drop[ndrop++] = m;
			continue;
		}
		m->data_len = (uint16_t)rlen;
		m->pkt_len = (uint32_t)rlen;
		m->ol_flags = 0;
		out[nout++] = m;
		/* counted as sent now, so that a PortCounters answer later in
		 * this burst sees the answers before it */
		hi->port.cnt.xmit_pkts++;
		hi->port.cnt.unicast_xmit_pkts++;
		hi->port.cnt.xmit_data += hca_data_words(hi->port.link,
							 (uint32_t)rlen);
	}
	sent = (uint16_t)rte_ring_enqueue_burst(hi->egress, (void **)out,
						nout, NULL);
	/* what the transmit queue could not take was not sent after all */
	for (i = sent; i < nout; i++) {
		hi->port.cnt.xmit_pkts--;
		hi->port.cnt.unicast_xmit_pkts--;
		hi->port.cnt.xmit_data -= hca_data_words(hi->port.link,
							 out[i]->pkt_len);
		hi->port.cnt.drop_egress_full++;
		hi->port.cnt.xmit_discards++;
		drop[ndrop++] = out[i];
	}
	/* an SM's Set may have moved the port on */
	hca_rec_port_check(hi);
	rte_spinlock_unlock(&hi->lock);
	txq->pkts += n;
	txq->bytes += bytes;
	if (ndrop)
		rte_pktmbuf_free_bulk(drop, ndrop);
	return n;
}

uint16_t
hca_rx_burst(void *q, struct rte_mbuf **bufs, uint16_t n)
{
	struct hca_queue *rxq = q;
	struct hca_internals *hi = rxq->hi;
	uint64_t bytes = 0;
	uint16_t i, got;

	got = (uint16_t)rte_ring_dequeue_burst(hi->egress, (void **)bufs, n,
					       NULL);
	/*
	 * IBA 16.1.3.5 PortXmitWait: ticks in which the port had data to
	 * send and sent none. The wire takes at most n packets a poll (its
	 * credit); when it took them all and answers are still queued, they
	 * wait the tick until the next poll.
	 */
	if (got == n && !rte_ring_empty(hi->egress)) {
		rte_spinlock_lock(&hi->lock);
		hi->port.cnt.xmit_wait++;
		rte_spinlock_unlock(&hi->lock);
	}
	/* then what the port's clients send */
	if (got < n && hi->srv) {
		rte_spinlock_lock(&hi->lock);
		got += hca_mad_send_burst(hi, rxq->mp, bufs + got,
					  (uint16_t)(n - got));
		rte_spinlock_unlock(&hi->lock);
	}
	if (!got)
		return 0;
	for (i = 0; i < got; i++)
		bytes += bufs[i]->pkt_len;
	rxq->pkts += got;
	rxq->bytes += bytes;
	return got;
}
