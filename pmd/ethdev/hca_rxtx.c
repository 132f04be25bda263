/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port's data path, and where the port does its work. The application
 * (the madpmd launcher, testpmd) is the cable: it gives the port what the
 * wire brings with rte_eth_tx_burst() and takes what the port sends with
 * rte_eth_rx_burst().
 *
 * - hca_tx_burst() is the port's receiver: every frame from the wire goes
 *   through the node's checks, then the MAD layer or the QP layer; an
 *   answer is built in the same mbuf and queued for rx_burst.
 * - hca_rx_burst() is the port's transmitter and its main loop, as a
 *   vdev without hardware has one (net_null, net_memif do their work in
 *   their bursts too): what the port sent itself, the answers queued,
 *   then port_poll(): the MAD layer's timers, the CM, the clients' send
 *   rings and the QP layer's send queues, in that order.
 *
 * The port lock is held for that work only: wake-ups owed to clients are
 * written after it is released.
 */
#include <string.h>
#include <unistd.h>

#include <ethdev_driver.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "madpmd/clock.h"
#include "madpmd/mad.h"
#include "hca.h"

#define BURST	32	/* frames handled per lock hold */

/* The wake-ups the channel owes and the completion events the QP layer
 * raised, taken under the lock: written after. */
static void
unlock_and_wake(struct hca_internals *hi)
{
	struct hca_session *w[HCA_CHAN_WAKE_MAX];
	struct hca_v_comp *k[HCA_V_KICKS_MAX];
	unsigned int nw = hi->chan ? hca_chan_wakes(hi->chan, w) : 0;
	unsigned int nk = hca_v_kicks(&hi->verbs, k);

	rte_spinlock_unlock(&hi->lock);
	if (nw)
		hca_chan_wake(w, nw);
	if (nk)
		hca_v_kick(k, nk);
}

/* Frames the QP layer sends: into the rx burst's array when there is
 * one, else straight onto the egress ring */
struct data_ctx {
	struct hca_internals *hi;
	struct rte_mempool *mp;
	struct rte_mbuf **bufs;		/* NULL: the egress ring */
	uint16_t n;
};

static bool
to_self(const struct hca_port *p, const struct mpd_pkt *pk)
{
	if (p->link == MPD_LINK_IB)
		return hca_port_owns_lid(p, pk->lrh.dlid);
	return memcmp(pk->eth.dst, p->mac, sizeof(p->mac)) == 0;
}

/* IBA 10.5.2.3: a multicast packet also reaches the port's own QPs
 * attached to the group (mlx5's default loopback): a copy on the
 * loopback ring, beside the one for the wire. A copy that finds no room
 * is lost, as a multicast packet may be. */
static bool
mcast_loop(struct data_ctx *e, const struct mpd_pkt *pk, struct rte_mbuf *m)
{
	struct rte_mbuf *c;

	if (pk->link == MPD_LINK_IB ? pk->lrh.dlid < MPD_LID_MCAST_LO ||
				      pk->lrh.dlid == MPD_LID_PERMISSIVE :
				      !(pk->eth.dst[0] & 1))
		return false;
	c = rte_pktmbuf_copy(m, e->mp, 0, UINT32_MAX);
	if (c && rte_ring_enqueue(e->hi->loop, c) != 0)
		rte_pktmbuf_free(c);
	return true;
}

static bool
emit_data(void *arg, struct mpd_pkt *pk, const void *payload, uint32_t len)
{
	struct data_ctx *e = arg;
	struct hca_port *p = &e->hi->port;
	struct rte_mbuf *m = e->mp ? rte_pktmbuf_alloc(e->mp) : NULL;
	bool mcast;
	int n;

	if (!m) {
		p->cnt.xmit_discards++;
		return false;
	}
	n = mpd_pkt_encode_flags(pk, payload, len,
				 rte_pktmbuf_mtod(m, uint8_t *),
				 rte_pktmbuf_tailroom(m), hca_port_enc_flags(p));
	if (n < 0) {
		/* an MTU the pool's buffers cannot hold */
		rte_pktmbuf_free(m);
		p->cnt.xmit_discards++;
		return false;
	}
	m->data_len = (uint16_t)n;
	m->pkt_len = (uint32_t)n;
	/* IBA 10.2.4.1 loopback: to the port itself, taken in again by the
	 * next rx burst (never an input inside this one) */
	if (to_self(p, pk)) {
		if (rte_ring_enqueue(e->hi->loop, m) != 0) {
			rte_pktmbuf_free(m);
			p->cnt.xmit_discards++;
			return false;
		}
		hca_port_count_xmit(p, (uint32_t)n);
		return true;
	}
	mcast = mcast_loop(e, pk, m);
	if (!e->bufs) {
		if (rte_ring_enqueue(e->hi->egress, m) != 0) {
			rte_pktmbuf_free(m);
			p->cnt.drop_egress_full++;
			p->cnt.xmit_discards++;
			return false;
		}
	} else {
		e->bufs[e->n++] = m;
	}
	hca_port_count_xmit(p, (uint32_t)n);
	/* IBA 16.1.4: PortMulticastXmitPkts, not unicast */
	if (mcast) {
		p->cnt.unicast_xmit_pkts--;
		p->cnt.multicast_xmit_pkts++;
	}
	return true;
}

/* An Ethernet frame for the node's network device (net/netif.h): to
 * the host's IP stack, counted as received by the port; lost when the
 * device has no room, as a NIC's would be */
static void
to_host(struct hca_internals *hi, const uint8_t *buf, uint16_t len)
{
	struct hca_netif *n = &hi->netif;

	hca_port_count_rcv(&hi->port, len, buf[0] & 1);
	if (write(n->fd, buf, len) == (ssize_t)len)
		n->to_host++;
	else
		n->dropped++;
}

/* What the node's network device sends, into bufs (at most room): its
 * own Ethernet frames only (its MAC, not RoCE), while the link is up */
static uint16_t
from_host(struct hca_internals *hi, struct rte_mempool *mp,
	  struct rte_mbuf **bufs, uint16_t room)
{
	struct hca_netif *n = &hi->netif;
	struct hca_port *p = &hi->port;
	struct rte_mbuf *m;
	uint16_t got = 0;
	ssize_t len;
	uint8_t *d;

	while (got < room && (m = rte_pktmbuf_alloc(mp)) != NULL) {
		d = rte_pktmbuf_mtod(m, uint8_t *);
		len = read(n->fd, d, rte_pktmbuf_tailroom(m));
		if (len <= 0) {
			rte_pktmbuf_free(m);
			break;
		}
		if (!hi->started || p->phys_state != HCA_PHYS_LINKUP ||
		    memcmp(d + 6, p->mac, 6) ||
		    !hca_netif_host_frame(d, (uint32_t)len)) {
			rte_pktmbuf_free(m);
			n->dropped++;
			continue;
		}
		m->data_len = (uint16_t)len;
		m->pkt_len = (uint32_t)len;
		bufs[got++] = m;
		hca_port_count_xmit(p, (uint32_t)len);
		n->from_host++;
	}
	return got;
}

/* One frame off the wire, answered in place: its new length, or 0. */
static int
port_input(struct hca_internals *hi, struct rte_mbuf *m, uint64_t now)
{
	struct hca_port *p = &hi->port;
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *), *mad;
	uint16_t cap = (uint16_t)RTE_MIN(m->data_len + rte_pktmbuf_tailroom(m),
					 UINT16_MAX);
	enum hca_reply reply;
	struct mpd_pkt pk;

	/* beside RoCE, the host's ARP and IP (net/netif.h) */
	if (hi->netif.fd >= 0 && p->link != MPD_LINK_IB &&
	    hca_netif_for_host(buf, m->data_len, p->mac)) {
		to_host(hi, buf, m->data_len);
		return 0;
	}
	switch (hca_port_rx(p, buf, (uint16_t)m->data_len, hi->promisc, &pk,
			    &mad)) {
	case HCA_RX_MAD:
		break;
	case HCA_RX_DATA: {
		struct data_ctx e = { hi, hi->rxq[0].mp, NULL, 0 };
		struct hca_v_out out = { emit_data, &e, BURST };

		/* IPoIB's (net/ipoib.h); its group's multicast also goes on
		 * to the client QPs attached */
		if (hi->netif.fd >= 0 && p->link == MPD_LINK_IB &&
		    hca_ipoib_input(&hi->ipoib, &pk, now, &out))
			return 0;
		hca_verbs_input(&hi->verbs, &pk, now, &out);
		return 0;
	}
	default:
		return 0;
	}
	reply = hca_mad_input(&hi->ml, &pk, mad, now);
	if (reply != HCA_REPLY && reply != HCA_TRAP)
		return 0;
	return hca_port_answer(p, &pk, mad, reply, buf, cap);
}

bool
hca_crc_watched(const struct hca_internals *hi)
{
	const struct rte_eth_dev *dev = &rte_eth_devices[hi->port_id];
	uint16_t q;

	/* installed by pdump's thread: a plain look is enough, the next
	 * burst sees it */
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		if (__atomic_load_n(&dev->post_rx_burst_cbs[q],
				    __ATOMIC_RELAXED))
			return true;
	for (q = 0; q < dev->data->nb_tx_queues; q++)
		if (__atomic_load_n(&dev->pre_tx_burst_cbs[q],
				    __ATOMIC_RELAXED))
			return true;
	return false;
}

void
hca_crc_lazy_update(struct hca_internals *hi)
{
	hi->port.crc_lazy = hi->crc_lazy && !hca_crc_watched(hi);
}

/* Up to BURST frames from the wire, under the lock. */
static void
tx_chunk(struct hca_internals *hi, struct rte_mbuf **bufs, uint16_t n)
{
	struct rte_mbuf *out[BURST], *drop[BURST];
	uint16_t i, nout = 0, ndrop = 0, sent;
	uint64_t now = mpd_mono_ns();
	bool lsc;

	rte_spinlock_lock(&hi->lock);
	hca_crc_lazy_update(hi);
	/* what came in may start the CM's or the MAD layer's timers */
	hca_chan_quiet_clear(&hi->quiet);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = bufs[i];
		int rlen;

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
		rlen = port_input(hi, m, now);
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
		hca_port_count_xmit(&hi->port, (uint32_t)rlen);
	}
	sent = (uint16_t)rte_ring_enqueue_burst(hi->egress, (void **)out,
						nout, NULL);
	/* what the transmit queue could not take was not sent after all */
	for (i = sent; i < nout; i++) {
		hca_port_uncount_xmit(&hi->port, out[i]->pkt_len);
		hi->port.cnt.drop_egress_full++;
		hi->port.cnt.xmit_discards++;
		drop[ndrop++] = out[i];
	}
	/* an SM's Set may have moved the port on */
	hca_rec_port_check(&hi->rec, &hi->port);
	if (hi->chan)
		hca_chan_port_events(hi->chan);
	lsc = hca_link_moved(hi);
	unlock_and_wake(hi);
	if (lsc)
		hca_link_event(hi);
	if (ndrop)
		rte_pktmbuf_free_bulk(drop, ndrop);
}

uint16_t
hca_tx_burst(void *q, struct rte_mbuf **bufs, uint16_t n)
{
	struct hca_queue *txq = q;
	uint64_t bytes = 0;
	uint16_t i, k;

	for (i = 0; i < n; i++)
		bytes += bufs[i]->pkt_len;
	for (i = 0; i < n; i += k) {
		k = (uint16_t)RTE_MIN(n - i, BURST);
		tx_chunk(txq->hi, bufs + i, k);
	}
	txq->pkts += n;
	txq->bytes += bytes;
	return n;
}

/* Frames the MAD layer and the channel emit, into the rx burst: the
 * same path as the QP layer's */
static bool
emit_frame(void *arg, const struct mpd_pkt *tmpl, const uint8_t *mad)
{
	struct mpd_pkt pk = *tmpl;

	return emit_data(arg, &pk, mad, MPD_MAD_LEN);
}

/* Port lock held: nothing for a poll of the clients and timers to find
 * (no session, no MAD-layer or QP timer, nothing the CM owes). A fabric
 * of many ports has most of them so, and this is cheaper than the poll. */
static bool
port_quiet(struct hca_internals *hi)
{
	bool quiet = hi->netif.fd < 0 &&
		     hca_chan_idle(hi->chan) && !hca_mad_timers(&hi->ml) &&
		     !hca_verbs_busy(&hi->verbs) &&
		     hi->port.cap_mask == hi->port.cap_told &&
		     (!hi->cm || (!hca_cm_busy(hi->cm) &&
				  hca_cm_idle_ms(hi->cm) < 0));

	hca_chan_quiet_note(&hi->quiet, hi->chan, quiet);
	return quiet;
}

/*
 * The port's work, lock held (its frames into bufs, at most room): a
 * SetPortInfo's trap, the MAD layer's time-outs and RMPP, the CM's MADs,
 * the clients' send rings, the QP layer's send queues and timers, then
 * the port events a client's Set made. Returns the frames made.
 */
static uint16_t
port_poll(struct hca_internals *hi, struct rte_mempool *mp,
	  struct rte_mbuf **bufs, uint16_t room)
{
	struct data_ctx e = { hi, mp, bufs, 0 };
	struct hca_mad_out out = { .emit = emit_frame, .ctx = &e, .room = room };
	struct mpd_pkt tpk;
	uint8_t tmad[MPD_MAD_LEN];
	uint64_t now;
	bool lsc;

	rte_spinlock_lock(&hi->lock);
	hca_crc_lazy_update(hi);
	if (hi->port.cap_mask != hi->port.cap_told &&
	    hca_sma_cap_trap(&hi->port, &tpk, tmad) &&
	    out.emit(out.ctx, &tpk, tmad))
		out.room--;
	/* most ports of a fabric have no client: read no clock */
	if (port_quiet(hi)) {
		rte_spinlock_unlock(&hi->lock);
		return e.n;
	}
	now = mpd_mono_ns();
	hca_mad_poll(&hi->ml, now, &out);
	if (hi->cm && out.room)
		hca_cm_poll(hi->cm, now, &out);
	hca_chan_send_burst(hi->chan, now, &out);
	if (out.room) {
		struct data_ctx d = { hi, mp, bufs + e.n, 0 };
		struct hca_v_out vout = { emit_data, &d, out.room };

		hca_verbs_poll(&hi->verbs, now, &vout);
		e.n = (uint16_t)(e.n + d.n);
	}
	if (hi->netif.fd >= 0 && hi->port.link == MPD_LINK_IB && e.n < room) {
		/* both into e, one after the other, each told what is left */
		struct hca_v_out vout = { emit_data, &e, 0 };

		out.room = (unsigned int)(room - e.n);
		hca_ipoib_join_poll(&hi->ipoib, now, &out);
		vout.room = (uint32_t)(room - e.n);
		hca_ipoib_poll(&hi->ipoib, now, &vout);
	} else if (hi->netif.fd >= 0 && e.n < room) {
		e.n = (uint16_t)(e.n + from_host(hi, mp, bufs + e.n,
						 (uint16_t)(room - e.n)));
	}
	/* a client's Set(PortInfo) to its own port moves it too */
	hca_rec_port_check(&hi->rec, &hi->port);
	if (hi->chan)
		hca_chan_port_events(hi->chan);
	lsc = hca_link_moved(hi);
	unlock_and_wake(hi);
	if (lsc)
		hca_link_event(hi);
	return e.n;
}

uint16_t
hca_rx_burst(void *q, struct rte_mbuf **bufs, uint16_t n)
{
	struct hca_queue *rxq = q;
	struct hca_internals *hi = rxq->hi;
	uint64_t bytes = 0;
	uint16_t i, got;

	/* what the port sent itself first: in as from the wire */
	if (!rte_ring_empty(hi->loop)) {
		struct rte_mbuf *lb[BURST];
		uint16_t nl = (uint16_t)rte_ring_dequeue_burst(hi->loop,
				(void **)lb, BURST, NULL);

		if (nl)
			tx_chunk(hi, lb, nl);
	}
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
	/* then what the port's clients send, and the MAD layer's timers */
	if (got < n && hi->chan && rxq->mp && !hca_still_quiet(hi))
		got += port_poll(hi, rxq->mp, bufs + got, n - got);
	if (!got)
		return 0;
	/* made before a dpdk-dumpcap came to look: whole for it */
	if (hi->crc_lazy && hi->port.link == MPD_LINK_IB &&
	    hca_crc_watched(hi))
		for (i = 0; i < got; i++)
			(void)mpd_pkt_crc_fill(MPD_LINK_IB,
					       rte_pktmbuf_mtod(bufs[i],
								uint8_t *),
					       rte_pktmbuf_data_len(bufs[i]));
	for (i = 0; i < got; i++)
		bytes += bufs[i]->pkt_len;
	rxq->pkts += got;
	rxq->bytes += bytes;
	return got;
}

uint16_t
hca_burst_none(void *q __rte_unused, struct rte_mbuf **bufs __rte_unused,
	       uint16_t n __rte_unused)
{
	return 0;
}
