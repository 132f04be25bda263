/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An IB link over Ethernet: a switch, CA or net_hca port of a native IB
 * fabric cabled (--wire) to an ethdev such as net_af_packet on a veth or
 * a NIC, whose other end is a port of another daemon. Each IB frame
 * (LRH..VCRC, unchanged) travels behind an Ethernet header of EtherType
 * MPD_ETHERTYPE_IB, addressed to the MAC the other end was heard from
 * (broadcast until then). What else the interface hears (the kernel's
 * IPv6, other hosts) is dropped and counted, never taken for IB.
 */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "fabric.h"
#include "madpmd/wire.h"

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

void
fab_eth_wire_start(struct fab_port *p)
{
	struct rte_ether_addr a;

	p->ew.on = true;
	if (rte_eth_macaddr_get(p->port_id, &a) == 0)
		memcpy(p->ew.mac, a.addr_bytes, sizeof(p->ew.mac));
}

/* The IB frame inside m, alone in it; false when m is not one for us. */
static bool
unwrap(struct fab_port *p, struct rte_mbuf *m)
{
	struct mpd_eth eth;
	size_t ib_len;
	int off;

	if (!rte_pktmbuf_is_contiguous(m) && rte_pktmbuf_linearize(m) != 0) {
		p->ew.bad++;
		return false;
	}
	off = mpd_ib_eth_decap(rte_pktmbuf_mtod(m, const uint8_t *),
			       rte_pktmbuf_data_len(m), &eth, &ib_len);
	if (off == MPD_ENEXTHDR ||
	    (off >= 0 && ((memcmp(eth.dst, p->ew.mac, 6) &&
			   memcmp(eth.dst, bcast, 6)) ||
			  !memcmp(eth.src, p->ew.mac, 6)))) {
		p->ew.not_ib++;
		return false;
	}
	if (off < 0) {
		p->ew.bad++;
		return false;
	}
	if (!p->ew.peer_known || memcmp(p->ew.peer, eth.src, 6)) {
		memcpy(p->ew.peer, eth.src, 6);
		p->ew.peer_known = true;
	}
	rte_pktmbuf_adj(m, (uint16_t)off);
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) - ib_len));
	p->ew.rx++;
	return true;
}

uint16_t
fab_eth_wire_rx(struct fab_port *p, struct rte_mbuf **m, uint16_t n)
{
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (unwrap(p, m[i]))
			m[k++] = m[i];
		else
			rte_pktmbuf_free(m[i]);
	}
	return k;
}

uint16_t
fab_eth_wire_tx(struct fab_port *p, struct rte_mbuf **m, uint16_t n)
{
	const uint8_t *dst = p->ew.peer_known ? p->ew.peer : bcast;
	uint16_t i, k = 0;
	uint8_t *h;

	for (i = 0; i < n; i++) {
		h = (uint8_t *)rte_pktmbuf_prepend(m[i], MPD_ETH_LEN);
		if (!h) {
			p->ew.no_room++;
			rte_pktmbuf_free(m[i]);
			continue;
		}
		mpd_ib_eth_header(dst, p->ew.mac, h, MPD_ETH_LEN);
		m[k++] = m[i];
	}
	p->ew.tx += k;
	return k;
}
