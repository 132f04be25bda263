/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A switch's forwarding decisions: LID-routed packets through the linear
 * forwarding table, multicast through the multicast forwarding table, and
 * directed-route SMPs by their paths (IBA 14.2.2).
 */
#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "switch.h"

/* An output port a packet may leave by: an SMP through a port whose link
 * is up, anything else through an Active one (IBA 7.2, 18.2.4.3) */
static bool
port_can_send(const struct hca_switch *sw, uint8_t port, bool vl15)
{
	uint8_t st;

	if (port == 0 || port > sw->num_ports)
		return false;
	st = sw->port[port].port_state;
	return vl15 ? st >= HCA_PORT_INIT : st == HCA_PORT_ACTIVE;
}

enum hca_fwd
hca_switch_route_lid(const struct hca_switch *sw, uint16_t dlid, bool vl15,
		     struct hca_fwd_to *to)
{
	uint8_t port;

	if (dlid == MPD_LID_PERMISSIVE || hca_switch_owns_lid(sw, dlid))
		return HCA_FWD_LOCAL;
	/* LID 0 is reserved; multicast goes by hca_switch_route_mcast() */
	if (dlid == 0 || dlid >= MPD_LID_MCAST_LO)
		return HCA_FWD_DROP;
	/* IBA 14.2.5.4: unicast DLIDs above LinearFDBTop are discarded */
	if (dlid > sw->lft_top || dlid >= sw->lft_cap)
		return HCA_FWD_DROP;
	port = sw->lft[dlid];
	if (port == 0)
		return HCA_FWD_LOCAL;
	if (port == MPD_LFT_PORT_NONE || !port_can_send(sw, port, vl15))
		return HCA_FWD_DROP;
	to->port = port;
	return HCA_FWD_PORT;
}

unsigned int
hca_switch_route_mcast(const struct hca_switch *sw, uint16_t mlid,
		       uint8_t in_port, uint8_t *out, unsigned int cap)
{
	const uint16_t *masks;
	unsigned int i, n = 0;
	uint32_t idx;

	if (mlid < MPD_LID_MCAST_LO || mlid == MPD_LID_PERMISSIVE)
		return 0;
	idx = mlid - MPD_LID_MCAST_LO;
	/* IBA 14.2.5.4: MLIDs above MulticastFDBTop are discarded (an SM
	 * that never set it leaves 0: the whole table is used) */
	if (idx >= sw->mft_cap || (sw->mft_top && mlid > sw->mft_top))
		return 0;
	masks = &sw->mft[idx * sw->mft_positions];
	for (i = 0; i <= sw->num_ports && n < cap; i++) {
		if (!(masks[i / MPD_MFT_POSITION_PORTS] &
		      (1u << (i % MPD_MFT_POSITION_PORTS))))
			continue;
		/* never back where it came from (IBA 18.2.4.3.2) */
		if (i == in_port)
			continue;
		if (i != 0 && !port_can_send(sw, (uint8_t)i, false))
			continue;
		out[n++] = (uint8_t)i;
	}
	return n;
}

/* A port a DR path names: an external port of this switch */
static enum hca_fwd
dr_out(const struct hca_switch *sw, uint8_t port, struct hca_fwd_to *to)
{
	if (!port_can_send(sw, port, true))
		return HCA_FWD_DROP;
	to->port = port;
	return HCA_FWD_PORT;
}

/* IBA 14.2.2.2 C14-9: the outgoing SMP (D=0) at a switch */
static enum hca_fwd
dr_outgoing(const struct hca_switch *sw, uint8_t *mad, uint8_t in_port,
	    uint16_t lrh_dlid, struct hca_fwd_to *to)
{
	uint8_t ptr = mad[MPD_SMP_OFF_HOP_PTR], cnt = mad[MPD_SMP_OFF_HOP_CNT];
	uint16_t dr_dlid = mpd_get_be16(mad + MPD_SMP_OFF_DR_DLID);

	/* C14-9:1: the start of the directed part, on the node the SMP was
	 * sent from or LID-routed to (DrSLID not permissive); one that came
	 * over a link directed should have had its pointer moved */
	if (cnt && ptr == 0) {
		if (in_port != 0 && lrh_dlid == MPD_LID_PERMISSIVE)
			return HCA_FWD_DROP;
		mad[MPD_SMP_OFF_HOP_PTR] = 1;
		return dr_out(sw, mad[MPD_SMP_OFF_INIT_PATH + 1], to);
	}
	/* C14-9:2: a hop on the way: note where it came in, go on */
	if (ptr && ptr < cnt) {
		mad[MPD_SMP_OFF_RET_PATH + ptr] = in_port;
		mad[MPD_SMP_OFF_HOP_PTR] = (uint8_t)(ptr + 1);
		return dr_out(sw, mad[MPD_SMP_OFF_INIT_PATH + ptr + 1], to);
	}
	/* C14-9:3: the end of the directed part: for this switch, or on
	 * LID-routed to DrDLID (a switch may do that, an end port not) */
	if (ptr == cnt) {
		if (cnt)
			mad[MPD_SMP_OFF_RET_PATH + ptr] = in_port;
		mad[MPD_SMP_OFF_HOP_PTR] = (uint8_t)(ptr + 1);
		if (dr_dlid == MPD_LID_PERMISSIVE)
			return HCA_FWD_LOCAL;
		to->dlid = dr_dlid;
		return HCA_FWD_LID;
	}
	/* C14-9:4: the LID-routed last leg ended here; C14-9:5 otherwise */
	return ptr == cnt + 1 ? HCA_FWD_LOCAL : HCA_FWD_DROP;
}

/* IBA 14.2.2.2 C14-13: the returning SMP (D=1) at a switch */
static enum hca_fwd
dr_returning(const struct hca_switch *sw, uint8_t *mad,
	     struct hca_fwd_to *to)
{
	uint8_t ptr = mad[MPD_SMP_OFF_HOP_PTR], cnt = mad[MPD_SMP_OFF_HOP_CNT];
	uint16_t dr_slid = mpd_get_be16(mad + MPD_SMP_OFF_DR_SLID);

	/* C14-13:1: the responder's end (this switch's SMA answered, or the
	 * responder LID-routed it back): out the way the request came in */
	if (cnt && ptr == cnt + 1) {
		mad[MPD_SMP_OFF_HOP_PTR] = cnt;
		return dr_out(sw, mad[MPD_SMP_OFF_RET_PATH + cnt], to);
	}
	/* C14-13:2: a hop on the way back */
	if (ptr >= 2 && ptr <= cnt) {
		mad[MPD_SMP_OFF_HOP_PTR] = (uint8_t)(ptr - 1);
		return dr_out(sw, mad[MPD_SMP_OFF_RET_PATH + ptr - 1], to);
	}
	/* C14-13:3: back at the start of the directed part: the requester
	 * is on port 0, or LID-routed at DrSLID */
	if (ptr == 1) {
		mad[MPD_SMP_OFF_HOP_PTR] = 0;
		if (dr_slid == MPD_LID_PERMISSIVE)
			return HCA_FWD_LOCAL;
		to->dlid = dr_slid;
		return HCA_FWD_LID;
	}
	/* C14-13:4: LID-routed back to the requester on port 0 */
	return ptr == 0 ? HCA_FWD_LOCAL : HCA_FWD_DROP;
}

enum hca_fwd
hca_switch_dr(const struct hca_switch *sw, uint8_t *mad, uint8_t in_port,
	      uint16_t lrh_dlid, struct hca_fwd_to *to)
{
	uint8_t ptr = mad[MPD_SMP_OFF_HOP_PTR], cnt = mad[MPD_SMP_OFF_HOP_CNT];

	if (mad[MPD_MAD_OFF_CLASS] != MPD_CLASS_SUBN_DR || in_port >
	    sw->num_ports)
		return HCA_FWD_DROP;
	/* C14-6: HopCount 0..63; C14-9:5, C14-13:5: the pointer never
	 * passes count + 1 */
	if (cnt > MPD_SMP_MAX_HOPS || ptr > cnt + 1)
		return HCA_FWD_DROP;
	if (mpd_get_be16(mad + MPD_MAD_OFF_STATUS) & MPD_SMP_STATUS_D)
		return dr_returning(sw, mad, to);
	return dr_outgoing(sw, mad, in_port, lrh_dlid, to);
}
