/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One end of a cable, whatever is behind it: frames into an ethdev port,
 * and whether a port is there to train with. The switches, the served
 * CAs and the polling loop all call here; this file calls none of them
 * (a switch's or a served CA's port state is read through
 * fab_port.node_port), so that the launcher's files call each other in
 * one direction only.
 */
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "fabric.h"
#include "madpmd/pcapng.h"
#include "madpmd/wire.h"
#include "node/node.h"
#include "rte_pmd_hca.h"

int
fab_add_external(struct fabric *f, const char *dev)
{
	struct fab_port *p;
	uint16_t pid;

	if (f->nports == FAB_MAX_PORTS)
		return -1;
	if (rte_eth_dev_get_port_by_name(dev, &pid) != 0) {
		fprintf(stderr, "madpmd: no ethdev named \"%s\": give it to EAL, e.g. --vdev %s,...\n",
			dev, dev);
		return -1;
	}
	p = &f->port[f->nports];
	memset(p, 0, sizeof(*p));
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	snprintf(p->node, sizeof(p->node), "%s", dev);
	p->port_id = pid;
	p->peer = -1;
	return (int)f->nports++;
}

int
fab_connect(struct fabric *f, int a, int b)
{
	if (a < 0 || b < 0 || a == b || f->port[a].peer >= 0 ||
	    f->port[b].peer >= 0)
		return -1;
	f->port[a].peer = b;
	f->port[b].peer = a;
	return 0;
}

void
fab_port_tx(struct fabric *f, struct fab_port *b, struct rte_mbuf **m,
	    uint16_t n, uint64_t ts)
{
	uint16_t sent;

	if (fab_capturing(f))
		fab_capture_packets(f, b, MPD_PCAPNG_DIR_IN, m, n,
				    ts ? ts : fab_clock_ns(CLOCK_REALTIME));
	if (b->ew.on)
		n = fab_eth_wire_tx(b, m, n);
	sent = rte_eth_tx_burst(b->port_id, 0, m, n);
	if (sent < n)
		rte_pktmbuf_free_bulk(m + sent, n - sent);
}

void
fab_crc_fill(struct fabric *f, enum mpd_link link, const struct fab_port *to,
	     struct rte_mbuf **m, uint16_t n)
{
	uint16_t i;

	/* a port that does not check them, no capture, no dpdk-dumpcap
	 * looking at a net_hca port: nobody sees them */
	if (link != MPD_LINK_IB ||
	    (to && to->crc_unchecked && !fab_capturing(f) &&
	     (!to->hca || rte_pmd_hca_crc_watched(to->port_id) == 0)))
		return;
	/* a frame that does not parse stays as it is: whoever checks it
	 * drops it */
	for (i = 0; i < n; i++)
		if (rte_pktmbuf_is_contiguous(m[i]))
			(void)mpd_pkt_crc_fill(link,
					       rte_pktmbuf_mtod(m[i], uint8_t *),
					       rte_pktmbuf_data_len(m[i]));
}

uint8_t
fab_port_phys(const struct fab_port *q)
{
	struct rte_pmd_hca_port_info pi;

	if (q->node_port)
		return q->node_port->phys_state;
	if (q->hca && rte_pmd_hca_port_info_get(q->port_id, &pi) == 0)
		return pi.phys_state;
	return 0;
}

bool
fab_port_present(const struct fab_port *b)
{
	if (b->node_port)
		return fab_port_phys(b) != HCA_PHYS_DISABLED;
	if (b->hca)
		return fab_port_phys(b) == HCA_PHYS_LINKUP;
	/* another daemon's port: while its heartbeats say so */
	return !b->ew.on || b->ew.up;
}

void
fab_port_carrier(struct fab_port *b, bool on)
{
	if (b->ca)
		fab_ca_carrier(b, on);
	else if (b->hca)
		rte_pmd_hca_carrier_set(b->port_id, on);
}

void
fab_ports_disabled(struct fabric *f, bool hcas, bool cas)
{
	unsigned int i;

	for (i = 0; i < f->nports; i++) {
		struct fab_port *p = &f->port[i], *q;
		bool off, there;

		if (p->peer < 0 || !((hcas && p->hca) || (cas && p->ca)))
			continue;
		off = fab_port_phys(p) == HCA_PHYS_DISABLED;
		if (off == p->cut_peer)
			continue;
		p->cut_peer = off;
		q = &f->port[p->peer];
		if (off) {
			fab_port_carrier(q, false);
			continue;
		}
		/* enabled again (Polling): both ends train, unless the other
		 * one is disabled itself (another daemon's: while heard) */
		there = fab_port_ethdev(q) && !q->hca ?
			fab_port_present(q) :
			fab_port_phys(q) != HCA_PHYS_DISABLED;
		if (there) {
			fab_port_carrier(p, true);
			fab_port_carrier(q, true);
		}
	}
}
