/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A switch's management port with clients: port 0's MAD layer and client
 * channel, what rte_eth_hca.c is to a CA port (the services both have
 * are services.c's), for the switch whose port 0 is the topology's SM
 * port (ibsim's default: the first node, when it is a switch). OpenSM and
 * the diags open it as a switch device (madpmd-run --node SWITCH). The
 * switch (node/switch_rx.c) hands this what is for port 0's clients and
 * takes what they send (hca_switch_from_port0()); the launcher's
 * switch_fabric.c carries the frames both ways, and calls nothing here
 * with a frame of its own under the lock.
 *
 * The lock guards the switch (port 0 above all), the MAD layer and the
 * sessions against the channel's control thread; the polling lcore holds
 * it for the switch's work on a frame, never while it forwards one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <rte_interrupts.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "../capture/records.h"
#include "../chan/chan.h"
#include "../mad/mad_layer.h"
#include "../node/switch.h"
#include "hca_mgmt.h"
#include "services.h"

struct hca_mgmt {
	struct hca_switch *sw;
	rte_spinlock_t lock;
	struct hca_mad_layer ml;
	struct hca_chan *chan;
	struct hca_recorder rec;	/* never on: the fabric captures */
	struct hca_switch_port0 p0c;
	struct rte_mempool *pool;
	struct hca_doorbells db;
	struct rte_epoll_event ev;	/* the set, in the lcore's epoll */
	/* the last poll found nothing for the clients and timers to do;
	 * cleared by a frame for port 0 */
	struct hca_chan_quiet quiet;
};

/* SMInfo for an SM registered on port 0 (IBA 14.4.1): port 0's lock is
 * held (the switch runs under it) */
static bool
claims(void *arg, const uint8_t *mad)
{
	struct hca_mgmt *m = arg;

	return hca_mad_smp_for_client(&m->ml, mad);
}

int
hca_mgmt_start(struct hca_mgmt **pm, struct hca_switch *sw,
	       const char *name, const char *run_dir, unsigned int umad_mode,
	       struct rte_mempool *pool, uint16_t id)
{
	struct hca_chan_cfg cfg;
	struct hca_port *p0 = &sw->port[0];
	struct hca_mgmt *m;
	int rc;

	*pm = NULL;
	if (!run_dir || !run_dir[0])
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->sw = sw;
	m->pool = pool;
	rte_spinlock_init(&m->lock);
	/* the channel names the node's directory and socket after port 0 */
	snprintf(p0->node_name, sizeof(p0->node_name), "%s", name);
	memcpy(p0->node_desc, sw->node_desc, sizeof(p0->node_desc));
	p0->node_guid = sw->node_guid;
	p0->port_guid = sw->node_guid;
	p0->sys_guid = sw->sys_guid;
	p0->num_ports = sw->num_ports;
	p0->port_num = 0;
	hca_mad_layer_init_mgmt(&m->ml, p0);
	cfg = (struct hca_chan_cfg){
		.port = p0,
		.node_type = MPD_NODE_TYPE_SWITCH,
		.ml = &m->ml,
		.verbs = NULL,
		.cm = NULL,
		.rec = &m->rec,
		.lock = &m->lock,
		.run_dir = run_dir,
		.mode = umad_mode,
		.port_id = id,
	};
	rc = hca_services_start(&m->db, &m->chan, &cfg);
	if (rc || !m->chan) {
		if (!rc)
			hca_services_stop(&m->db, &m->chan);
		free(m);
		return rc ? -rc : -EIO;
	}
	m->p0c.claims = claims;
	m->p0c.arg = m;
	rte_spinlock_lock(&m->lock);
	sw->p0c = &m->p0c;
	rte_spinlock_unlock(&m->lock);
	*pm = m;
	return 0;
}

void
hca_mgmt_stop(struct hca_mgmt *m)
{
	if (!m)
		return;
	hca_services_stop(&m->db, &m->chan);
	m->sw->p0c = NULL;
	free(m);
}

void
hca_mgmt_lock(struct hca_mgmt *m)
{
	if (m)
		rte_spinlock_lock(&m->lock);
}

/* Release the lock, then write the wake-ups owed to clients */
void
hca_mgmt_unlock(struct hca_mgmt *m)
{
	struct hca_session *w[HCA_CHAN_WAKE_MAX];
	unsigned int n;

	if (!m)
		return;
	n = hca_chan_wakes(m->chan, w);
	rte_spinlock_unlock(&m->lock);
	if (n)
		hca_chan_wake(w, n);
}

struct rte_mbuf *
hca_mgmt_input(struct hca_mgmt *m, struct rte_mbuf *mb, uint64_t now_ns)
{
	uint8_t *buf = rte_pktmbuf_mtod(mb, uint8_t *), *mad;
	uint16_t cap = (uint16_t)RTE_MIN(65535u, (uint32_t)mb->data_len +
					 rte_pktmbuf_tailroom(mb));
	struct hca_port *p0 = &m->sw->port[0];
	enum hca_reply r;
	struct mpd_pkt pk;
	uint16_t n = 0;

	/* the switch checked and rewrote it: its CRCs are ours */
	if (mpd_pkt_decode(MPD_LINK_IB, buf, mb->data_len,
			   MPD_PKT_NO_ICRC_CHECK | MPD_PKT_NO_VCRC_CHECK,
			   &pk) != MPD_OK ||
	    pk.payload_len != MPD_MAD_LEN)
		goto drop;
	mad = buf + (pk.payload - buf);
	hca_mgmt_lock(m);
	hca_chan_quiet_clear(&m->quiet);
	r = hca_mad_input(&m->ml, &pk, mad, now_ns);
	if (r == HCA_REPLY || r == HCA_TRAP)
		n = hca_port_answer(p0, &pk, mad, r, buf, cap);
	hca_mgmt_unlock(m);
	if (!n)
		goto drop;
	mb->data_len = n;
	mb->pkt_len = n;
	return mb;
drop:
	rte_pktmbuf_free(mb);
	return NULL;
}

/* Frames the MAD layer and the clients send, into the poll's array */
struct emit_ctx {
	struct hca_mgmt *m;
	struct rte_mbuf **bufs;
	uint16_t n;
};

static bool
emit(void *arg, const struct mpd_pkt *tmpl, const uint8_t *mad)
{
	struct emit_ctx *e = arg;
	struct rte_mbuf *mb = rte_pktmbuf_alloc(e->m->pool);
	struct mpd_pkt pk = *tmpl;
	int n;

	if (!mb)
		goto fail;
	n = mpd_pkt_encode_flags(&pk, mad, MPD_MAD_LEN,
				 rte_pktmbuf_mtod(mb, uint8_t *),
				 rte_pktmbuf_tailroom(mb),
				 e->m->sw->crc_lazy ? MPD_PKT_CRC_LATER : 0);
	if (n < 0) {
		rte_pktmbuf_free(mb);
		goto fail;
	}
	mb->data_len = (uint16_t)n;
	mb->pkt_len = (uint32_t)n;
	e->bufs[e->n++] = mb;
	return true;
fail:
	e->m->sw->port[0].cnt.xmit_discards++;
	return false;
}

uint16_t
hca_mgmt_poll(struct hca_mgmt *m, uint64_t now_ns, struct rte_mbuf **bufs,
	      uint16_t n)
{
	struct emit_ctx e = { m, bufs, 0 };
	struct hca_mad_out out = { .emit = emit, .ctx = &e, .room = n };
	bool quiet;

	if (hca_chan_still_quiet(&m->quiet, m->chan))
		return 0;
	rte_spinlock_lock(&m->lock);
	quiet = hca_chan_idle(m->chan) && !hca_mad_timers(&m->ml);
	hca_chan_quiet_note(&m->quiet, m->chan, quiet);
	if (!quiet) {
		hca_mad_poll(&m->ml, now_ns, &out);
		hca_chan_send_burst(m->chan, now_ns, &out);
	}
	hca_mgmt_unlock(m);
	return e.n;
}

/* ---- sleeping: the lcore's epoll watches the doorbells ---- */

int
hca_mgmt_sleep_setup(struct hca_mgmt *m)
{
	m->ev.epdata.event = EPOLLIN | EPOLLET;
	m->ev.epdata.data = NULL;
	m->ev.epdata.cb_fun = NULL;
	if (rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_ADD, m->db.set,
			  &m->ev) != 0)
		return -1;
	return 0;
}

/* Before sleeping: clients ring their doorbells from now on. The time
 * the MAD layer's timers allow to sleep (ms, -1: none); 0 when sends
 * are queued already. */
int
hca_mgmt_arm(struct hca_mgmt *m)
{
	int ms;

	if (hca_chan_arm(m->chan, true))
		return 0;
	rte_spinlock_lock(&m->lock);
	ms = hca_mad_timers(&m->ml) ? 1 : -1;
	rte_spinlock_unlock(&m->lock);
	return ms;
}

/* A client of port 0 spins on this CPU (madpmd/chan.h, "Sharing a CPU") */
bool
hca_mgmt_client_spins_on(struct hca_mgmt *m, int cpu)
{
	return hca_chan_spins_on(m->chan, cpu);
}

/* Awake again: the doorbells that rang off the set's ready list */
void
hca_mgmt_disarm(struct hca_mgmt *m)
{
	hca_doorbells_awake(&m->db, hca_chan_arm(m->chan, false));
}
