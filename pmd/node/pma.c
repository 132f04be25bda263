/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port's Performance Management Agent (IBA 16.1): ClassPortInfo,
 * PortCounters, PortCountersExtended, PortRcvErrorDetails and
 * PortXmitDiscardDetails on QP1, counters that move with the port's
 * traffic, Set to clear selected counters. Every other attribute is
 * answered with status "unsupported method/attribute combination".
 */
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "node.h"

/* PerfMgt ClassPortInfo:CapabilityMask (IBA 16.1.3.1) */
#define PM_CAP_ALL_PORT_SELECT	(1u << 8)	/* PortSelect 0xFF */
#define PM_CAP_EXT_WIDTH	(1u << 9)	/* PortCountersExtended */
#define PM_CAP_XMIT_WAIT	(1u << 12)	/* PortXmitWait counted */
#define PM_ALL_PORTS		0xff

/*
 * What the PMA does: PortCountersExtended with the unicast and multicast
 * counters, PortXmitWait (hca_rx_burst), and AllPortSelect where all
 * ports are this one. Not: samples (no PortSamplesControl), QP1Dropped
 * (the MAD layer does not count it yet), the additional 64-bit error
 * counters of CapabilityMask2.
 */
static uint16_t
pma_cap_mask(const struct hca_port *p)
{
	uint16_t cap = PM_CAP_EXT_WIDTH | PM_CAP_XMIT_WAIT;

	if (p->num_ports == 1)
		cap |= PM_CAP_ALL_PORT_SELECT;
	return cap;
}

static void
counters_get(const struct hca_port *p, struct mpd_port_counters *pc)
{
	const struct hca_counters *c = &p->cnt;

	memset(pc, 0, sizeof(*pc));
	pc->port_select = p->port_num;
	/* IBA 16.1.3.5: error counters stop at their maximum */
	pc->symbol_error_counter = (uint16_t)hca_sat(c->symbol_errors, 16);
	pc->link_error_recovery_counter =
		(uint8_t)hca_sat(c->link_error_recovery, 8);
	pc->link_downed_counter = (uint8_t)hca_sat(c->link_downed, 8);
	pc->port_rcv_errors = (uint16_t)hca_sat(c->rcv_errors, 16);
	pc->port_rcv_remote_physical_errors =
		(uint16_t)hca_sat(c->rcv_remote_phys_errors, 16);
	pc->port_rcv_switch_relay_errors =
		(uint16_t)hca_sat(c->rcv_switch_relay_errors, 16);
	pc->port_xmit_discards = (uint16_t)hca_sat(c->xmit_discards, 16);
	pc->port_xmit_constraint_errors =
		(uint8_t)hca_sat(c->xmit_constraint_errors, 8);
	pc->port_rcv_constraint_errors =
		(uint8_t)hca_sat(c->rcv_constraint_errors, 8);
	pc->local_link_integrity_errors =
		(uint8_t)hca_sat(c->local_link_integrity_errors, 4);
	pc->excessive_buffer_overrun_errors =
		(uint8_t)hca_sat(c->excessive_buffer_overrun, 4);
	pc->vl15_dropped = (uint16_t)hca_sat(c->vl15_dropped, 16);
	pc->port_xmit_data = (uint32_t)hca_sat(c->xmit_data, 32);
	pc->port_rcv_data = (uint32_t)hca_sat(c->rcv_data, 32);
	pc->port_xmit_pkts = (uint32_t)hca_sat(c->xmit_pkts, 32);
	pc->port_rcv_pkts = (uint32_t)hca_sat(c->rcv_pkts, 32);
	pc->port_xmit_wait = (uint32_t)hca_sat(c->xmit_wait, 32);
}

/* Set(PortCounters): CounterSelect bit n clears counter n (16.1.3.5) */
static void
counters_clear(struct hca_port *p, uint16_t sel, uint8_t sel2)
{
	struct hca_counters *c = &p->cnt;
	uint64_t *const by_bit[16] = {
		&c->symbol_errors, &c->link_error_recovery, &c->link_downed,
		&c->rcv_errors, &c->rcv_remote_phys_errors,
		&c->rcv_switch_relay_errors, &c->xmit_discards,
		&c->xmit_constraint_errors, &c->rcv_constraint_errors,
		&c->local_link_integrity_errors, &c->excessive_buffer_overrun,
		&c->vl15_dropped, &c->xmit_data, &c->rcv_data, &c->xmit_pkts,
		&c->rcv_pkts,
	};
	unsigned int i;

	for (i = 0; i < 16; i++)
		if (sel & (1u << i))
			*by_bit[i] = 0;
	if (sel2 & 1)
		c->xmit_wait = 0;
}

static void
counters_ext_get(const struct hca_port *p, struct mpd_port_counters_ext *pe)
{
	const struct hca_counters *c = &p->cnt;

	memset(pe, 0, sizeof(*pe));
	pe->port_select = p->port_num;
	pe->port_xmit_data = c->xmit_data;
	pe->port_rcv_data = c->rcv_data;
	pe->port_xmit_pkts = c->xmit_pkts;
	pe->port_rcv_pkts = c->rcv_pkts;
	pe->port_unicast_xmit_pkts = c->unicast_xmit_pkts;
	pe->port_unicast_rcv_pkts = c->unicast_rcv_pkts;
	pe->port_multicast_xmit_pkts = c->multicast_xmit_pkts;
	pe->port_multicast_rcv_pkts = c->multicast_rcv_pkts;
}

static void
counters_ext_clear(struct hca_port *p, uint16_t sel)
{
	struct hca_counters *c = &p->cnt;
	uint64_t *const by_bit[8] = {
		&c->xmit_data, &c->rcv_data, &c->xmit_pkts, &c->rcv_pkts,
		&c->unicast_xmit_pkts, &c->unicast_rcv_pkts,
		&c->multicast_xmit_pkts, &c->multicast_rcv_pkts,
	};
	unsigned int i;

	for (i = 0; i < 8; i++)
		if (sel & (1u << i))
			*by_bit[i] = 0;
}

/* PortRcvErrorDetails (IBA 16.1.4). A CA relays nothing, so the DLID
 * mapping, VL mapping and looping errors of a switch stay 0. */
static void
rcv_err_get(const struct hca_port *p, struct mpd_port_rcv_error_details *d)
{
	const struct hca_counters *c = &p->cnt;

	memset(d, 0, sizeof(*d));
	d->port_select = p->port_num;
	d->port_local_physical_errors =
		(uint16_t)hca_sat(c->rcv_local_phys_errors, 16);
	d->port_malformed_packet_errors =
		(uint16_t)hca_sat(c->rcv_malformed_errors, 16);
	d->port_buffer_overrun_errors =
		(uint16_t)hca_sat(c->rcv_buffer_overruns, 16);
}

static void
rcv_err_clear(struct hca_port *p, uint16_t sel)
{
	struct hca_counters *c = &p->cnt;

	if (sel & 1u << 0)
		c->rcv_local_phys_errors = 0;
	if (sel & 1u << 1)
		c->rcv_malformed_errors = 0;
	if (sel & 1u << 2)
		c->rcv_buffer_overruns = 0;
}

/*
 * PortXmitDiscardDetails (IBA 16.1.4): the port discards nothing for not
 * being Active (it sends in every state), a MAD fits every MTU and the
 * lifetime limits are a switch's, so all four are 0. What PortXmitDiscards
 * counts (answers the wire did not take, no mbuf) has no detail counter.
 */
static void
xmit_disc_get(const struct hca_port *p,
	      struct mpd_port_xmit_discard_details *d)
{
	memset(d, 0, sizeof(*d));
	d->port_select = p->port_num;
}

/* A CA's PMA answers for its port; PortSelect 0 (what perfquery sends
 * when no port is named) means it too, and so does 0xFF (all ports) when
 * the node has no other port. */
static bool
port_selected(const struct hca_port *p, uint8_t sel)
{
	return sel == p->port_num || sel == 0 ||
	       (sel == PM_ALL_PORTS && p->num_ports == 1);
}

static uint16_t
pma_attr(struct hca_port *p, const struct mpd_mad *m, uint8_t *data)
{
	bool set = m->hdr.method == MPD_METHOD_SET;

	switch (m->hdr.attr_id) {
	case MPD_ATTR_CLASS_PORT_INFO: {
		struct mpd_class_port_info ci = {
			.base_version = MPD_BASE_VERSION,
			.class_version = MPD_PERF_CLASS_VERSION,
			.capability_mask = pma_cap_mask(p),
			.resp_time_value = p->resp_time,
		};

		if (set)
			return MPD_STATUS_METHOD_ATTR_UNSUP;
		mpd_layout_encode(&mpd_class_port_info_layout, &ci, data,
				  MPD_MAD_LEN - MPD_PERF_DATA_OFF);
		return 0;
	}
	case MPD_ATTR_PERF_PORT_COUNTERS: {
		struct mpd_port_counters pc;

		mpd_layout_decode(&mpd_port_counters_layout, data,
				  MPD_MAD_LEN - MPD_PERF_DATA_OFF, &pc);
		if (!port_selected(p, pc.port_select))
			return MPD_STATUS_INVALID_FIELD;
		if (set)
			counters_clear(p, pc.counter_select, pc.counter_select2);
		counters_get(p, &pc);
		mpd_layout_encode(&mpd_port_counters_layout, &pc, data,
				  MPD_MAD_LEN - MPD_PERF_DATA_OFF);
		return 0;
	}
	case MPD_ATTR_PERF_PORT_COUNTERS_EXT: {
		struct mpd_port_counters_ext pe;

		mpd_layout_decode(&mpd_port_counters_ext_layout, data,
				  MPD_MAD_LEN - MPD_PERF_DATA_OFF, &pe);
		if (!port_selected(p, pe.port_select))
			return MPD_STATUS_INVALID_FIELD;
		if (set)
			counters_ext_clear(p, pe.counter_select);
		counters_ext_get(p, &pe);
		mpd_layout_encode(&mpd_port_counters_ext_layout, &pe, data,
				  MPD_MAD_LEN - MPD_PERF_DATA_OFF);
		return 0;
	}
	case MPD_ATTR_PERF_PORT_RCV_ERROR_DETAILS: {
		struct mpd_port_rcv_error_details d;

		mpd_layout_decode(&mpd_port_rcv_error_details_layout, data,
				  MPD_MAD_LEN - MPD_PERF_DATA_OFF, &d);
		if (!port_selected(p, d.port_select))
			return MPD_STATUS_INVALID_FIELD;
		if (set)
			rcv_err_clear(p, d.counter_select);
		rcv_err_get(p, &d);
		mpd_layout_encode(&mpd_port_rcv_error_details_layout, &d, data,
				  MPD_MAD_LEN - MPD_PERF_DATA_OFF);
		return 0;
	}
	case MPD_ATTR_PERF_PORT_XMIT_DISCARD_DETAILS: {
		struct mpd_port_xmit_discard_details d;

		mpd_layout_decode(&mpd_port_xmit_discard_details_layout, data,
				  MPD_MAD_LEN - MPD_PERF_DATA_OFF, &d);
		if (!port_selected(p, d.port_select))
			return MPD_STATUS_INVALID_FIELD;
		/* Set: nothing to clear, all four are 0 */
		xmit_disc_get(p, &d);
		mpd_layout_encode(&mpd_port_xmit_discard_details_layout, &d,
				  data, MPD_MAD_LEN - MPD_PERF_DATA_OFF);
		return 0;
	}
	default:
		/* IBA 13.4.7 Table 116 has no code of its own for an unknown
		 * attribute: "method/attribute combination not supported" */
		return MPD_STATUS_METHOD_ATTR_UNSUP;
	}
}

bool
hca_pma_handle(struct hca_port *p, uint8_t *mad)
{
	struct mpd_mad m;
	uint16_t status;

	if (mpd_mad_decode(mad, MPD_MAD_LEN, &m) < 0) {
		p->cnt.rcv_errors++;
		p->cnt.rcv_malformed_errors++;
		return false;
	}
	if (m.hdr.method != MPD_METHOD_GET && m.hdr.method != MPD_METHOD_SET)
		return false;
	if (m.hdr.class_version != MPD_PERF_CLASS_VERSION)
		status = MPD_STATUS_BAD_VERSION;
	else
		status = pma_attr(p, &m, mad + MPD_PERF_DATA_OFF);
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET_RESP;
	mpd_put_be16(mad + MPD_MAD_OFF_STATUS, status);
	return true;
}
