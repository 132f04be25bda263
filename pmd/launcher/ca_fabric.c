/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CAs served by the daemon alone. DPDK gives a process RTE_MAX_ETHPORTS
 * ethdevs (32 in Debian's build), so a fabric of hundreds of hosts cannot
 * make each a net_hca port. The CAs past --client-ports are nodes of the
 * node layer without an ethdev, a MAD layer or a channel: the polling
 * lcore hands what a cable brings to hca_ca_rx(), and the answer waits on
 * the port's queue until the next round carries it to the peer, as a
 * net_hca port's rx_burst would. No client opens such a port.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "fabric.h"
#include "madpmd/pcapng.h"
#include "madpmd/topo.h"
#include "node/node.h"

/* answers a port holds for the next round: a burst of requests' worth */
#define CA_QUEUE	64

struct fab_ca_port {
	struct hca_port port;
	struct rte_mbuf *queue[CA_QUEUE];
	uint16_t queued;
	bool listed;		/* on the fabric's ready list */
};

struct fab_ca {
	uint8_t num_ports;
	int first;			/* fabric index of port 1 */
	struct fab_ca_port port[];	/* ports 1..num_ports */
};

static struct fab_ca_port *
ca_port(const struct fab_port *b)
{
	return &b->ca->port[b->num - 1];
}

static void
list_ready(struct fabric *f, const struct fab_port *a)
{
	struct fab_ca_port *cp = ca_port(a);

	if (cp->listed)
		return;
	cp->listed = true;
	f->ready[(f->ready_head + f->nready++) % FAB_MAX_PORTS] =
		(int)(a - f->port);
}

static void
port_init(struct hca_port *hp, const struct mpd_topo_node *nd, uint8_t num)
{
	const struct mpd_topo_port *tp = &nd->port[num];

	hca_port_defaults(hp, nd->name);
	snprintf(hp->node_desc, sizeof(hp->node_desc), "%.63s", nd->desc);
	hp->port_num = num;
	hp->num_ports = nd->num_ports;
	if (nd->guid)
		hp->node_guid = nd->guid;
	hp->port_guid = tp->guid ? tp->guid : hp->node_guid + num;
	hp->sys_guid = nd->sys_guid ? nd->sys_guid : hp->node_guid;
	if (tp->ip4_given)
		memcpy(hp->ip4, tp->ip4, sizeof(hp->ip4));
	fab_port_link(hp, tp);
	hca_sma_init(hp);
}

int
fab_add_ca(struct fabric *f, const struct mpd_topo_node *nd)
{
	struct fab_ca *c;
	unsigned int p;

	/* a RoCE port finds its peers in the fabric's address table, which
	 * only ethdevs join */
	if (f->opts.link != MPD_LINK_IB) {
		fprintf(stderr, "madpmd: CA \"%s\" is past --client-ports (%u CA ports with an ethdev), and a CA served by the daemon alone is native IB only: raise --client-ports (at most %u ethdevs) or leave out --link roce\n",
			nd->name, f->opts.client_ports, RTE_MAX_ETHPORTS);
		return -1;
	}
	if (f->nports + nd->num_ports > FAB_MAX_PORTS) {
		fprintf(stderr, "madpmd: too many ports (at most %d)\n",
			FAB_MAX_PORTS);
		return -1;
	}
	c = calloc(1, sizeof(*c) + nd->num_ports * sizeof(c->port[0]));
	if (!c) {
		fprintf(stderr, "madpmd: CA \"%s\": out of memory\n", nd->name);
		return -1;
	}
	c->num_ports = nd->num_ports;
	c->first = (int)f->nports;
	for (p = 1; p <= nd->num_ports; p++) {
		struct fab_port *fp = fab_port_add(f, nd->name, (uint8_t)p);

		port_init(&c->port[p - 1].port, nd, (uint8_t)p);
		fp->ca = c;
		fp->node_port = &c->port[p - 1].port;
	}
	f->ca[f->nca++] = c;
	return c->first;
}

void
fab_cas_start(struct fabric *f)
{
	unsigned int i, p;

	for (i = 0; i < f->nca; i++) {
		struct fab_ca *c = f->ca[i];

		/* a cabled port trains: Init, LinkUp (IBA 7.2) */
		for (p = 1; p <= c->num_ports; p++) {
			struct hca_port *hp = &c->port[p - 1].port;
			struct fab_port *fp = &f->port[c->first + (int)p - 1];
			int q = fp->peer;

			hp->crc_ours = fab_peer_ours(f, c->first + p - 1);
			/* forward() makes its CRCs where they are needed */
			hp->crc_lazy = hp->crc_ours;
			fp->crc_unchecked = hp->crc_ours;
			fp->crc_lazy = hp->crc_lazy;
			/* another daemon's end trains when it is heard */
			if (q < 0 || f->port[q].ew.on)
				continue;
			hp->phys_state = HCA_PHYS_LINKUP;
			hp->port_state = HCA_PORT_INIT;
		}
	}
}

void
fab_ca_input(struct fabric *f, struct fab_port *b, struct rte_mbuf **m,
	     uint16_t n)
{
	struct fab_ca_port *cp = ca_port(b);
	uint64_t now = fab_round_ns(f);
	uint16_t i, len, cap;

	if (fab_capturing(f))
		fab_capture_packets(f, b, MPD_PCAPNG_DIR_IN, m, n,
				    fab_clock_ns(CLOCK_REALTIME));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *x = m[i];

		if (!rte_pktmbuf_is_contiguous(x) &&
		    rte_pktmbuf_linearize(x) != 0) {
			cp->port.cnt.rcv_errors++;
			cp->port.cnt.rcv_buffer_overruns++;
			goto drop;
		}
		len = rte_pktmbuf_data_len(x);
		cap = (uint16_t)RTE_MIN(65535u, (uint32_t)len +
					rte_pktmbuf_tailroom(x));
		if (!hca_ca_rx(&cp->port, rte_pktmbuf_mtod(x, uint8_t *),
			       &len, cap, now))
			goto drop;
		if (cp->queued == CA_QUEUE) {
			hca_port_uncount_xmit(&cp->port, len);
			cp->port.cnt.xmit_discards++;
			goto drop;
		}
		x->data_len = len;
		x->pkt_len = len;
		x->ol_flags = 0;
		cp->queue[cp->queued++] = x;
		list_ready(f, b);
		continue;
drop:
		rte_pktmbuf_free(x);
	}
}

int
fab_ca_next_ready(struct fabric *f)
{
	int i;

	if (!f->nready)
		return -1;
	i = f->ready[f->ready_head];
	f->ready_head = (f->ready_head + 1) % FAB_MAX_PORTS;
	f->nready--;
	ca_port(&f->port[i])->listed = false;
	return i;
}

void
fab_ca_relist(struct fabric *f, struct fab_port *a)
{
	if (a->held || ca_port(a)->queued)
		list_ready(f, a);
}

uint16_t
fab_ca_output(struct fab_port *a, struct rte_mbuf **m, uint16_t n)
{
	struct fab_ca_port *cp = ca_port(a);
	uint16_t k = RTE_MIN(n, cp->queued);

	memcpy(m, cp->queue, k * sizeof(m[0]));
	memmove(cp->queue, cp->queue + k, (cp->queued - k) * sizeof(m[0]));
	cp->queued = (uint16_t)(cp->queued - k);
	return k;
}

void
fab_ca_port_state(const struct fab_port *p, uint8_t *state, uint8_t *phys,
		  uint16_t *lid, uint16_t *sm_lid)
{
	const struct hca_port *hp = &ca_port(p)->port;

	*state = hp->port_state;
	*phys = hp->phys_state;
	*lid = hp->lid;
	*sm_lid = hp->sm_lid;
}

void
fab_ca_carrier(struct fab_port *p, bool on)
{
	hca_port_carrier(&ca_port(p)->port, on, HCA_PORT_INIT);
}

void
fab_ca_mtu_limit(struct fab_port *p, uint8_t m)
{
	hca_port_mtu_limit(&ca_port(p)->port, m);
}

bool
fab_ca_disable(struct fab_port *p, bool off)
{
	return hca_port_disable(&ca_port(p)->port, off);
}

void
fab_cas_free(struct fabric *f)
{
	unsigned int i, p;

	for (i = 0; i < f->nca; i++) {
		struct fab_ca *c = f->ca[i];

		for (p = 0; p < c->num_ports; p++)
			rte_pktmbuf_free_bulk(c->port[p].queue,
					      c->port[p].queued);
		free(c);
		f->ca[i] = NULL;
	}
	f->nca = 0;
}
