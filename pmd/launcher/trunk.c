/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A trunk (--trunk ETHDEV): every cable of this daemon's nodes to a node
 * another daemon runs, that --wire left dark, over one ethdev, as a VLAN
 * per cable would carry them on one NIC. A fat tree split between
 * daemons cuts thousands of cables; an ethdev (and a veth) each is not
 * to be had.
 *
 * Each cable end has an address of its own, made from its place in the
 * file (the port's slot, counted over the whole file as the ethdev names
 * are), which every daemon given the file computes alike: a frame goes
 * from our end's address to the other end's, and one that comes in is
 * the cable's whose end its destination names. The envelope and the
 * heartbeats are a --wire's (eth_wire.c, link_peer.c), sent to the other
 * end instead of to broadcast, and slower (FAB_TRUNK_HELLO_MS). What is
 * addressed to no cable of ours is dropped and counted.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "fabric.h"

/* A cable end's address: locally administered, unicast, 02:4d:54 ("MT")
 * then the slot; net_hca ports' are 02:00:... */
static const uint8_t trunk_oui[3] = { 0x02, 0x4d, 0x54 };

void
fab_trunk_mac(uint32_t slot, uint8_t mac[6])
{
	memcpy(mac, trunk_oui, sizeof(trunk_oui));
	mac[3] = (uint8_t)(slot >> 16);
	mac[4] = (uint8_t)(slot >> 8);
	mac[5] = (uint8_t)slot;
}

static int
by_slot(const void *a, const void *b, void *arg)
{
	const struct fabric *f = arg;
	uint32_t x = f->port[*(const int *)a].slot;
	uint32_t y = f->port[*(const int *)b].slot;

	return x < y ? -1 : x > y;
}

int
fab_trunk_open(struct fabric *f, const char *dev)
{
	struct fab_trunk *t;
	unsigned int i, n = 0;
	uint16_t pid;
	int c;

	if (f->opts.link != MPD_LINK_IB) {
		fprintf(stderr, "madpmd: --trunk %s: a RoCE fabric's cables are Ethernet already: give each its --wire\n",
			dev);
		return -1;
	}
	if (rte_eth_dev_get_port_by_name(dev, &pid) != 0) {
		fprintf(stderr, "madpmd: --trunk %s: no ethdev named so: give it to EAL, e.g. --vdev %s,iface=...\n",
			dev, dev);
		return -1;
	}
	for (i = 0; i < f->nports; i++)
		if (!f->port[i].hca && fab_port_ethdev(&f->port[i]) &&
		    f->port[i].port_id == pid) {
			fprintf(stderr, "madpmd: --trunk %s: --wire gave it to %s:%u already\n",
				dev, f->port[f->port[i].peer].node,
				f->port[f->port[i].peer].num);
			return -1;
		}
	for (i = 0; i < f->nports; i++)
		n += f->port[i].far[0] && f->port[i].peer < 0;
	t = calloc(1, sizeof(*t));
	if (!t || (n && !(t->cable = calloc(n, sizeof(*t->cable))))) {
		free(t);
		fprintf(stderr, "madpmd: --trunk %s: out of memory\n", dev);
		return -1;
	}
	t->port_id = pid;
	snprintf(t->dev, sizeof(t->dev), "%s", dev);
	for (i = 0; i < f->nports && t->ncables < n; i++) {
		struct fab_port *p = &f->port[i];

		if (!p->far[0] || p->peer >= 0)
			continue;
		c = fab_add_external(f, dev);
		if (c < 0 || fab_connect(f, (int)i, c) != 0) {
			fprintf(stderr, "madpmd: --trunk %s: cannot cable %s[%u] (at most %u ports)\n",
				dev, p->node, p->num, FAB_MAX_PORTS);
			free(t->cable);
			free(t);
			return -1;
		}
		f->port[c].trunk = true;
		f->port[c].slot = p->slot;
		f->port[c].far_slot = p->far_slot;
		t->cable[t->ncables++] = c;
	}
	qsort_r(t->cable, t->ncables, sizeof(*t->cable), by_slot, f);
	f->trunk = t;
	printf("madpmd: %u cables to other daemons' nodes over %s (trunk)\n",
	       t->ncables, dev);
	fflush(stdout);
	return 0;
}

int
fab_trunk_start(struct fabric *f)
{
	struct fab_trunk *t = f->trunk;
	struct rte_eth_conf conf;
	uint64_t now = fab_clock_ns(CLOCK_MONOTONIC);
	uint8_t mac[6], far[6];
	unsigned int i;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(t->port_id, 1, 1, &conf);
	if (!rc)
		rc = rte_eth_rx_queue_setup(t->port_id, 0, FAB_TRUNK_RING,
					    rte_socket_id(), NULL, f->pool);
	if (!rc)
		rc = rte_eth_tx_queue_setup(t->port_id, 0, FAB_TRUNK_RING,
					    rte_socket_id(), NULL);
	if (!rc)
		rc = rte_eth_dev_start(t->port_id);
	/* the cables' ends have addresses of their own */
	if (!rc)
		rc = rte_eth_promiscuous_enable(t->port_id);
	if (rc) {
		fprintf(stderr, "madpmd: cannot start %s: %s\n", t->dev,
			rte_strerror(-rc));
		return -1;
	}
	t->started = true;
	for (i = 0; i < t->ncables; i++) {
		struct fab_port *c = &f->port[t->cable[i]];
		const struct fab_port *q = &f->port[c->peer];

		fab_trunk_mac(c->slot, mac);
		fab_trunk_mac(c->far_slot, far);
		link_peer_start(&c->ew, mac, q->guid, q->num);
		/* the first heartbeats spread over an interval: a ring's
		 * worth at once would be lost */
		link_peer_trunk(&c->ew, far, now + (uint64_t)i *
				FAB_TRUNK_HELLO_MS * 1000000ull / t->ncables);
	}
	return 0;
}

/* The cable whose end the frame's destination names; -1: none of ours */
static int
cable_of(const struct fabric *f, const struct fab_trunk *t,
	 const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t slot;
	unsigned int lo = 0, hi = t->ncables;

	if (rte_pktmbuf_data_len(m) < 6 ||
	    memcmp(d, trunk_oui, sizeof(trunk_oui)))
		return -1;
	slot = (uint32_t)d[3] << 16 | (uint32_t)d[4] << 8 | d[5];
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;
		uint32_t s = f->port[t->cable[mid]].slot;

		if (s == slot)
			return t->cable[mid];
		if (s < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

uint16_t
fab_trunk_rx(struct fabric *f, struct rte_mbuf **m, int *to, uint16_t n)
{
	struct fab_trunk *t = f->trunk;
	uint16_t i, k = 0;
	int c;

	n = rte_eth_rx_burst(t->port_id, 0, m, n);
	t->rx += n;
	for (i = 0; i < n; i++) {
		c = cable_of(f, t, m[i]);
		if (c < 0) {
			t->not_ours++;
			rte_pktmbuf_free(m[i]);
			continue;
		}
		/* the envelope off, the heartbeats taken */
		if (fab_eth_wire_rx(f, &f->port[c], &m[i], 1) != 1)
			continue;
		m[k] = m[i];
		to[k++] = c;
	}
	return k;
}

void
fab_trunk_stop(struct fabric *f)
{
	struct fab_trunk *t = f->trunk;

	if (!t)
		return;
	if (t->started) {
		rte_eth_dev_stop(t->port_id);
		rte_eth_dev_close(t->port_id);
	}
	free(t->cable);
	free(t);
	f->trunk = NULL;
}

void
fab_trunk_stats(const struct fabric *f, FILE *out)
{
	const struct fab_trunk *t = f->trunk;
	struct rte_eth_stats st;
	struct link_peer sum;
	unsigned int i, up = 0;

	if (!t)
		return;
	memset(&sum, 0, sizeof(sum));
	memset(&st, 0, sizeof(st));
	if (t->started)
		(void)rte_eth_stats_get(t->port_id, &st);
	for (i = 0; i < t->ncables; i++) {
		const struct link_peer *l = &f->port[t->cable[i]].ew;

		up += l->up;
		sum.rx += l->rx;
		sum.tx += l->tx;
		sum.hellos_rx += l->hellos_rx;
		sum.hellos_tx += l->hellos_tx;
		sum.downs += l->downs;
		sum.not_ib += l->not_ib;
		sum.bad += l->bad;
		sum.no_room += l->no_room;
		sum.strangers += l->strangers;
	}
	fprintf(out, "madpmd: %s, trunk of %u cables: %u up, %" PRIu64 " IB frames in, %" PRIu64 " out, heartbeats %" PRIu64 " in, %" PRIu64 " out, %" PRIu64 " times lost; dropped: %" PRIu64 " for no cable of ours, %" PRIu64 " not IB, %" PRIu64 " shorter than their LRH or bad heartbeats, %" PRIu64 " without headroom, %" PRIu64 " from strangers (not the trained peer)\n",
		t->dev, t->ncables, up, sum.rx, sum.tx, sum.hellos_rx,
		sum.hellos_tx, sum.downs, t->not_ours, sum.not_ib, sum.bad,
		sum.no_room, sum.strangers);
	/* what the interface lost: a receive ring that overflowed while the
	 * lcore slept, a transmit ring full */
	if (st.imissed || st.ierrors || st.oerrors || st.rx_nombuf)
		fprintf(out, "madpmd: %s, trunk: the ethdev missed %" PRIu64 " frames (its receive ring full), %" PRIu64 " receive errors, %" PRIu64 " not sent (its transmit ring full), %" PRIu64 " without an mbuf\n",
			t->dev, st.imissed, st.ierrors, st.oerrors,
			st.rx_nombuf);
}
