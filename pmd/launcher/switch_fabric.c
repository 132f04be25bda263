/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switches in the launcher's fabric. A switch is a node of the node layer
 * (pmd/node/switch.h) whose external ports are fabric ports without an
 * ethdev: what a cable brings to one goes through hca_switch_rx() on the
 * polling lcore, and out of the ports it names to their peers (a net_hca
 * port's tx_burst, the next switch, or an outside ethdev). Only the
 * polling lcore touches a switch once the fabric runs, and the control
 * thread of the switch whose port 0 has clients (ethdev/hca_mgmt.c), under
 * that switch's lock: taken for the switch's work on a frame, never
 * while the frame goes on (it may come back through the same switch).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ethdev/hca_mgmt.h"
#include "fabric.h"
#include "madpmd/pcapng.h"
#include "madpmd/topo.h"
#include "node/switch.h"
#include "rte_pmd_hca.h"

/* LinearFDBCap: every unicast LID (48K); MulticastFDBCap 1024, ibsim's */
#define SW_LFT_CAP	0xc000u
#define SW_MFT_CAP	1024u
/* switches a frame may cross before it is taken for a loop: a DR path
 * has at most 63 hops (IBA 14.2.2.1) */
#define SW_HOPS_MAX	64

struct fab_switch {
	struct hca_switch sw;
	int first;		/* fabric index of external port 1 */
	char name[MPD_TOPO_NAME_MAX + 1];
	bool clients;		/* port 0 serves clients (the SM port) */
	struct hca_mgmt *mgmt;	/* port 0's clients; NULL: none */
};

int
fab_add_switch(struct fabric *f, const struct mpd_topo_node *nd, bool clients)
{
	struct fab_switch *s;
	unsigned int p;
	int rc;

	if (f->opts.link != MPD_LINK_IB) {
		fprintf(stderr, "madpmd: switch \"%s\": switches forward native IB frames: leave out --link roce (every port of a fabric with switches is native IB)\n",
			nd->name);
		return -1;
	}
	if (f->nsw == FAB_MAX_SWITCHES ||
	    f->nports + nd->num_ports > FAB_MAX_PORTS) {
		fprintf(stderr, "madpmd: too many switches or ports (at most %d switches, %d ports)\n",
			FAB_MAX_SWITCHES, FAB_MAX_PORTS);
		return -1;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	rc = hca_switch_init(&s->sw, nd->num_ports, nd->guid, nd->desc,
			     SW_LFT_CAP, SW_MFT_CAP);
	if (rc) {
		fprintf(stderr, "madpmd: switch \"%s\": %s\n", nd->name,
			strerror(rc));
		free(s);
		return -1;
	}
	s->sw.sys_guid = nd->sys_guid ? nd->sys_guid : nd->guid;
	snprintf(s->name, sizeof(s->name), "%s", nd->name);
	s->clients = clients;
	for (p = 0; p <= nd->num_ports; p++) {
		s->sw.port[p].sys_guid = s->sw.sys_guid;
		fab_port_link(&s->sw.port[p], &nd->port[p]);
	}
	/* port 0's LID as an ibnetdiscover file gives it (the SM may
	 * keep it) */
	s->sw.port[0].lid = nd->port[0].lid;
	s->sw.port[0].lmc = nd->port[0].lmc;
	s->first = (int)f->nports;
	for (p = 1; p <= nd->num_ports; p++) {
		struct fab_port *fp = fab_port_add(f, nd->name, (uint8_t)p);

		fp->sw = s;
		fp->node_port = &s->sw.port[p];
	}
	f->sw[f->nsw++] = s;
	return s->first;
}

void
fab_switches_start(struct fabric *f)
{
	unsigned int i, p;

	for (i = 0; i < f->nsw; i++) {
		struct fab_switch *s = f->sw[i];

		for (p = 1; p <= s->sw.num_ports; p++) {
			int q = f->port[s->first + (int)p - 1].peer;

			s->sw.port[p].crc_ours =
				fab_peer_ours(f, s->first + p - 1);
			f->port[s->first + p - 1].crc_unchecked =
				s->sw.port[p].crc_ours;
			/* another daemon's end trains when it is heard */
			if (q >= 0 && !f->port[q].ew.on)
				hca_switch_link(&s->sw, (uint8_t)p, true);
		}
		/* sw_out() makes the CRCs of what it rewrote where they
		 * are needed */
		s->sw.crc_lazy = true;
		/* the links trained before any SM looked */
		s->sw.port_state_change = 0;
		if (!s->clients)
			continue;
		if (hca_mgmt_start(&s->mgmt, &s->sw, s->name, f->opts.run_dir,
				   f->opts.umad_mode, f->pool,
				   (uint16_t)(RTE_MAX_ETHPORTS + i)) != 0)
			fprintf(stderr, "madpmd: switch \"%s\": no clients on its port 0: its channel did not start\n",
				s->name);
		else if (s->mgmt)
			f->mgmt[f->nmgmt++] = s;
	}
}

typedef unsigned int (*sw_trap_fn)(struct hca_switch *sw, uint8_t *buf,
				   uint16_t cap, uint16_t *len, uint8_t *out);
static void sw_trap(struct fabric *f, struct fab_switch *s, sw_trap_fn make);

void
fab_switches_links(struct fabric *f, bool moved)
{
	unsigned int i, p;

	for (i = 0; i < f->nsw; i++) {
		struct fab_switch *s = f->sw[i];

		/* an SM on port 0 took or gave back the ISSM (a look
		 * without the lock first: the trap is made under it) */
		if (s->mgmt && __atomic_load_n(&s->sw.port[0].cap_mask,
					       __ATOMIC_RELAXED) !=
			       s->sw.port[0].cap_told)
			sw_trap(f, s, hca_switch_trap_cap);
		if (!moved)
			continue;
		for (p = 1; p <= s->sw.num_ports; p++) {
			struct fab_port *a = &f->port[s->first + (int)p - 1];
			struct hca_port *me = &s->sw.port[p];
			int req = FAB_LINK_NONE;
			bool up;

			/* a locked exchange only for a request (2,000 ports
			 * a look in a fat tree) */
			if (__atomic_load_n(&a->link_req, __ATOMIC_RELAXED) !=
			    FAB_LINK_NONE)
				req = __atomic_exchange_n(&a->link_req,
							  FAB_LINK_NONE,
							  __ATOMIC_ACQ_REL);

			if (req != FAB_LINK_NONE) {
				hca_mgmt_lock(s->mgmt);
				hca_switch_disable(&s->sw, (uint8_t)p,
						   req == FAB_LINK_DOWN);
				hca_mgmt_unlock(s->mgmt);
				sw_trap(f, s, hca_switch_trap_link);
			}
			if (a->peer < 0)
				continue;
			if (me->phys_state == HCA_PHYS_DISABLED) {
				if (!a->cut_peer) {
					fab_port_carrier(&f->port[a->peer],
							 false);
					a->cut_peer = true;
				}
				continue;
			}
			if (a->cut_peer) {
				fab_port_carrier(&f->port[a->peer], true);
				a->cut_peer = false;
			}
			up = fab_port_present(&f->port[a->peer]);
			if (up == (me->port_state != HCA_PORT_DOWN))
				continue;
			hca_mgmt_lock(s->mgmt);
			hca_switch_link(&s->sw, (uint8_t)p, up);
			hca_mgmt_unlock(s->mgmt);
			sw_trap(f, s, hca_switch_trap_link);
		}
	}
}

void
fab_switches_free(struct fabric *f)
{
	unsigned int i;

	f->nmgmt = 0;
	for (i = 0; i < f->nsw; i++) {
		hca_mgmt_stop(f->sw[i]->mgmt);
		hca_switch_fini(&f->sw[i]->sw);
		free(f->sw[i]);
		f->sw[i] = NULL;
	}
	f->nsw = 0;
}

void
fab_switch_mtu_limit(struct fab_port *p, uint8_t m)
{
	hca_port_mtu_limit(&p->sw->sw.port[p->num], m);
}

void
fab_switch_port_state(const struct fab_port *p, uint8_t *state,
		      uint8_t *phys, uint16_t *lid, uint16_t *sm_lid)
{
	const struct hca_switch *sw = &p->sw->sw;

	*state = (uint8_t)sw->port[p->num].port_state;
	*phys = (uint8_t)sw->port[p->num].phys_state;
	*lid = sw->port[0].lid;
	*sm_lid = sw->port[0].sm_lid;
}

static void sw_frame(struct fabric *f, struct fab_port *b, struct rte_mbuf *m,
		     unsigned int hops);
static void sw_out(struct fabric *f, struct fab_switch *s, struct rte_mbuf *m,
		   const uint8_t *out, unsigned int n, unsigned int hops);

/* A frame leaves a switch port for the port at the other end: q */
static void
sw_deliver(struct fabric *f, int q, struct rte_mbuf *m, unsigned int hops)
{
	struct fab_port *p = &f->port[q];

	if (p->sw) {
		sw_frame(f, p, m, hops + 1);
		return;
	}
	if (p->ca) {
		fab_ca_input(f, p, &m, 1);
		return;
	}
	/* the ethdev's side of the cable: what it receives */
	fab_port_tx(f, p, &m, 1, 0);
}

/* A frame port 0's clients sent (or their MAD layer answered): through
 * the switch from port 0 */
static void
sw_from_port0(struct fabric *f, struct fab_switch *s, struct rte_mbuf *m,
	      unsigned int hops)
{
	uint8_t out[HCA_SW_PORTS_MAX + 1];
	uint16_t len = rte_pktmbuf_data_len(m);
	uint16_t cap = (uint16_t)RTE_MIN(65535u, (uint32_t)len +
					 rte_pktmbuf_tailroom(m));
	unsigned int n;

	if (hops > SW_HOPS_MAX) {
		rte_pktmbuf_free(m);
		return;
	}
	hca_mgmt_lock(s->mgmt);
	n = hca_switch_from_port0(&s->sw, rte_pktmbuf_mtod(m, uint8_t *),
				  &len, cap, fab_round_ns(f), out,
				  RTE_DIM(out));
	hca_mgmt_unlock(s->mgmt);
	if (!n) {
		rte_pktmbuf_free(m);
		return;
	}
	m->data_len = len;
	m->pkt_len = len;
	sw_out(f, s, m, out, n, hops);
}

/* m out of the switch's ports out[0..n) (0: to port 0's clients) */
static void
sw_out(struct fabric *f, struct fab_switch *s, struct rte_mbuf *m,
       const uint8_t *out, unsigned int n, unsigned int hops)
{
	struct rte_mbuf *copy[HCA_SW_PORTS_MAX + 1];
	int peer[HCA_SW_PORTS_MAX + 1];
	unsigned int i;

	/* the copies first: a switch the first goes to rewrites it */
	for (i = 0; i < n; i++) {
		peer[i] = out[i] ? f->port[s->first + out[i] - 1].peer : -1;
		copy[i] = i == 0 ? m :
			  rte_pktmbuf_copy(m, f->pool, 0, UINT32_MAX);
	}
	for (i = 0; i < n; i++) {
		if (!copy[i])
			continue;
		if (out[i] == 0) {
			struct rte_mbuf *r = s->mgmt ?
				hca_mgmt_input(s->mgmt, copy[i],
					       fab_round_ns(f)) : NULL;

			if (!s->mgmt)
				rte_pktmbuf_free(copy[i]);
			if (r)
				sw_from_port0(f, s, r, hops + 1);
			continue;
		}
		fab_crc_fill(f, MPD_LINK_IB, peer[i] < 0 ? NULL :
			     &f->port[peer[i]], &copy[i], 1);
		/* captured as it leaves by each port */
		if (fab_capturing(f))
			fab_capture_packets(f,
					    &f->port[s->first + out[i] - 1],
					    MPD_PCAPNG_DIR_OUT, &copy[i], 1,
					    fab_clock_ns(CLOCK_REALTIME));
		if (peer[i] < 0)
			rte_pktmbuf_free(copy[i]);
		else
			sw_deliver(f, peer[i], copy[i], hops);
	}
}

static void
sw_frame(struct fabric *f, struct fab_port *b, struct rte_mbuf *m,
	 unsigned int hops)
{
	struct fab_switch *s = b->sw;
	uint8_t out[HCA_SW_PORTS_MAX + 1];
	unsigned int n;
	uint16_t len, cap;

	if (hops > SW_HOPS_MAX || (!rte_pktmbuf_is_contiguous(m) &&
				   rte_pktmbuf_linearize(m) != 0))
		goto drop;
	/* captured as it came in, before the switch rewrites it */
	if (fab_capturing(f))
		fab_capture_packets(f, b, MPD_PCAPNG_DIR_IN, &m, 1,
				    fab_clock_ns(CLOCK_REALTIME));
	len = rte_pktmbuf_data_len(m);
	cap = (uint16_t)RTE_MIN(65535u, (uint32_t)len +
				rte_pktmbuf_tailroom(m));
	hca_mgmt_lock(s->mgmt);
	n = hca_switch_rx(&s->sw, b->num, rte_pktmbuf_mtod(m, uint8_t *),
			  &len, cap, fab_round_ns(f), out,
			  RTE_DIM(out));
	hca_mgmt_unlock(s->mgmt);
	if (!n)
		goto drop;
	m->data_len = len;
	m->pkt_len = len;
	sw_out(f, s, m, out, n, hops);
	return;
drop:
	rte_pktmbuf_free(m);
}

/* A trap the switch makes, if it has one, to the SM (IBA 14.2.5.1): 128
 * for a link that changed, 144 for port 0's CapabilityMask */
static void
sw_trap(struct fabric *f, struct fab_switch *s, sw_trap_fn make)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(f->pool);
	uint8_t out[1];
	uint16_t len = 0;
	unsigned int n;

	if (!m)
		return;
	hca_mgmt_lock(s->mgmt);
	n = make(&s->sw, rte_pktmbuf_mtod(m, uint8_t *),
		 (uint16_t)RTE_MIN(65535u, rte_pktmbuf_tailroom(m)), &len, out);
	hca_mgmt_unlock(s->mgmt);
	if (n != 1) {
		rte_pktmbuf_free(m);
		return;
	}
	m->data_len = len;
	m->pkt_len = len;
	sw_out(f, s, m, out, 1, 0);
}

unsigned int
fab_switches_mgmt_poll(struct fabric *f)
{
	struct rte_mbuf *m[32];
	unsigned int i, moved = 0;
	uint16_t n, k;

	for (i = 0; i < f->nmgmt; i++) {
		struct fab_switch *s = f->mgmt[i];

		n = hca_mgmt_poll(s->mgmt, fab_round_ns(f), m, RTE_DIM(m));
		for (k = 0; k < n; k++)
			sw_from_port0(f, s, m[k], 0);
		moved += n;
	}
	return moved;
}

bool
fab_switches_sleep_setup(struct fabric *f)
{
	unsigned int i;

	for (i = 0; i < f->nmgmt; i++)
		if (hca_mgmt_sleep_setup(f->mgmt[i]->mgmt) != 0)
			return false;
	return true;
}

int
fab_switches_arm(struct fabric *f)
{
	unsigned int i;
	int ms = -1, t;

	for (i = 0; i < f->nmgmt; i++) {
		t = hca_mgmt_arm(f->mgmt[i]->mgmt);
		if (t >= 0 && (ms < 0 || t < ms))
			ms = t;
	}
	return ms;
}

bool
fab_switches_client_spins_on(struct fabric *f, int cpu)
{
	unsigned int i;

	for (i = 0; i < f->nmgmt; i++)
		if (hca_mgmt_client_spins_on(f->mgmt[i]->mgmt, cpu))
			return true;
	return false;
}

void
fab_switches_disarm(struct fabric *f)
{
	unsigned int i;

	for (i = 0; i < f->nmgmt; i++)
		hca_mgmt_disarm(f->mgmt[i]->mgmt);
}

void
fab_switch_input(struct fabric *f, struct fab_port *b, struct rte_mbuf **m,
		 uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		sw_frame(f, b, m[i], 0);
}
