/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A frame a switch port received (link=ib): where it goes. VL15 SMPs for
 * the switch (permissive DLID or one of its LIDs) through the DR rules and
 * its SMA, PerfMgt for the switch through the PMA of the port it names,
 * other unicast through the LFT, multicast through the MFT (IBA 18.2.4).
 * The frame is rewritten in place when it changes (a DR SMP's hop pointer
 * and return path, a LID-routed leg's DLID, a response), CRCs recomputed.
 */
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "madpmd/wire.h"
#include "switch.h"

/* Re-encode the frame after its headers or MAD changed (ICRC, VCRC,
 * zero while sw->crc_lazy) */
static bool
reencode(const struct hca_switch *sw, struct mpd_pkt *pk, const uint8_t *mad,
	 uint8_t *buf, uint16_t cap, uint16_t *len)
{
	uint8_t m[MPD_MAD_LEN];
	int rc;

	memcpy(m, mad, sizeof(m));
	rc = mpd_pkt_encode_flags(pk, m, sizeof(m), buf, cap,
				  sw->crc_lazy ? MPD_PKT_CRC_LATER : 0);
	if (rc < 0)
		return false;
	*len = (uint16_t)rc;
	return true;
}

static unsigned int
one_port(const struct hca_fwd_to *to, uint8_t *out)
{
	out[0] = to->port;
	return 1;
}

/* To the clients on port 0, when there are any */
static unsigned int
to_port0(const struct hca_switch *sw, uint8_t *out)
{
	if (!sw->p0c)
		return 0;
	out[0] = 0;
	return 1;
}

/* A Get/Set SMP the SMA leaves to a client on port 0 */
static bool
port0_claims(const struct hca_switch *sw, const uint8_t *mad)
{
	return sw->p0c && sw->p0c->claims(sw->p0c->arg, mad);
}

/* A LID-routed SMP or a DR leg to dlid: out of the port the LFT names,
 * or to port 0's clients for the switch's own LIDs */
static unsigned int
lid_out(const struct hca_switch *sw, uint16_t dlid, bool vl15, uint8_t *out)
{
	struct hca_fwd_to to = { 0 };

	switch (hca_switch_route_lid(sw, dlid, vl15, &to)) {
	case HCA_FWD_PORT:
		return one_port(&to, out);
	case HCA_FWD_LOCAL:
		return to_port0(sw, out);
	default:
		return 0;
	}
}

/* The directed part of a path travels between permissive LIDs, also
 * after a LID-routed leg that ended here (IBA 14.2.2.3): an end port
 * answers to the permissive LID, back along the path */
static void
directed_leg(struct mpd_pkt *pk)
{
	pk->lrh.dlid = MPD_LID_PERMISSIVE;
	pk->lrh.slid = MPD_LID_PERMISSIVE;
}

/* A LID-routed leg from this switch to dlid (IBA 14.2.2.3): from the
 * switch's LID when the directed part had none */
static void
lid_leg(const struct hca_switch *sw, struct mpd_pkt *pk, uint16_t dlid)
{
	pk->lrh.dlid = dlid;
	if (pk->lrh.slid == MPD_LID_PERMISSIVE && sw->port[0].lid)
		pk->lrh.slid = sw->port[0].lid;
}

/* The switch's SMA answered mad: the response out of the way it came */
static unsigned int
sma_response(struct hca_switch *sw, struct mpd_pkt *pk, uint8_t *mad,
	     uint16_t lrh_dlid, uint8_t *buf, uint16_t cap, uint16_t *len,
	     uint8_t *out)
{
	struct hca_fwd_to to = { 0 };
	enum hca_fwd fwd = HCA_FWD_DROP;

	hca_port_reverse(&sw->port[0], pk, 0);
	if (mpd_mad_class(mad) == MPD_CLASS_SUBN_DR) {
		/* C14-13:1: from port 0, back along the return path */
		fwd = hca_switch_dr(sw, mad, 0, lrh_dlid, &to);
		if (fwd == HCA_FWD_LID)
			lid_leg(sw, pk, to.dlid);
		else if (fwd == HCA_FWD_PORT)
			directed_leg(pk);
		else if (fwd != HCA_FWD_LOCAL || !sw->p0c)
			return 0;
	}
	if (!reencode(sw, pk, mad, buf, cap, len))
		return 0;
	/* C14-13:3: back where the directed part started, port 0 */
	if (fwd == HCA_FWD_LOCAL)
		return to_port0(sw, out);
	if (mpd_mad_class(mad) == MPD_CLASS_SUBN_DR && fwd == HCA_FWD_PORT)
		return one_port(&to, out);
	return lid_out(sw, pk->lrh.dlid, true, out);
}

/* A Trap the switch's SMA made in mad: LID-routed on VL15 from the
 * switch to the master SM (IBA 14.2.5.1); the ports it leaves by in out */
static unsigned int
trap_out(struct hca_switch *sw, uint8_t *mad, uint8_t *buf, uint16_t cap,
	 uint16_t *len, uint8_t *out)
{
	struct hca_port *p0 = &sw->port[0];
	struct mpd_pkt pk;

	hca_sma_trap_pkt(p0, &pk);
	if (!reencode(sw, &pk, mad, buf, cap, len))
		return 0;
	return lid_out(sw, p0->sm_lid, true, out);
}

/* What the SMA made of a request: its response, a trap, or nothing */
static unsigned int
sma_out(struct hca_switch *sw, enum hca_reply r, struct mpd_pkt *pk,
	uint8_t *mad, uint16_t lrh_dlid, uint8_t *buf, uint16_t cap,
	uint16_t *len, uint8_t *out)
{
	uint8_t trap[MPD_MAD_LEN];

	if (r == HCA_REPLY)
		return sma_response(sw, pk, mad, lrh_dlid, buf, cap, len, out);
	if (r != HCA_TRAP)
		return 0;
	/* mad lies inside buf, which the trap's frame overwrites */
	memcpy(trap, mad, sizeof(trap));
	return trap_out(sw, trap, buf, cap, len, out);
}

/* A DR SMP on VL15 for this switch (IBA 14.2.2.2) */
static unsigned int
dr_rx(struct hca_switch *sw, uint8_t in_port, struct mpd_pkt *pk,
      uint8_t *mad, uint8_t *buf, uint16_t cap, uint16_t *len, uint8_t *out,
      uint64_t now_ns)
{
	struct hca_fwd_to to = { 0 };
	uint16_t lrh_dlid = pk->lrh.dlid;

	switch (hca_switch_dr(sw, mad, in_port, lrh_dlid, &to)) {
	case HCA_FWD_LOCAL:
		/* requests to the SMA; responses, traps and SMInfo for an
		 * SM on port 0 */
		if (!mpd_mad_is_get_set(mad) || port0_claims(sw, mad))
			/* with its pointer moved */
			return sw->p0c && reencode(sw, pk, mad, buf, cap, len) ?
			       to_port0(sw, out) : 0;
		return sma_out(sw, hca_switch_sma(sw, mad, in_port,
						  pk->lrh.slid, now_ns),
			       pk, mad, lrh_dlid, buf, cap, len, out);
	case HCA_FWD_PORT:
		directed_leg(pk);
		if (!reencode(sw, pk, mad, buf, cap, len))
			return 0;
		return one_port(&to, out);
	case HCA_FWD_LID:
		/* IBA 14.2.2.3: on LID-routed, from this switch */
		lid_leg(sw, pk, to.dlid);
		if (hca_switch_owns_lid(sw, to.dlid) ||
		    !reencode(sw, pk, mad, buf, cap, len))
			return 0;
		return lid_out(sw, to.dlid, true, out);
	default:
		return 0;
	}
}

/* PerfMgt for the switch: the PMA of the port PortSelect names (IBA
 * 16.1.3.5: a switch answers for each of its ports) */
static unsigned int
pma_rx(struct hca_switch *sw, struct mpd_pkt *pk, uint8_t *mad,
       uint8_t *buf, uint16_t cap, uint16_t *len, uint8_t *out)
{
	uint8_t sel = mad[MPD_PERF_DATA_OFF + 1];
	struct hca_port *p = sel <= sw->num_ports ? &sw->port[sel]
						  : &sw->port[0];

	if (pk->deth.qkey != MPD_QP1_QKEY ||
	    !hca_port_pkey_ok(&sw->port[0], pk->bth.pkey) ||
	    !hca_pma_handle(p, mad))
		return 0;
	hca_port_reverse(&sw->port[0], pk, 1);
	if (!reencode(sw, pk, mad, buf, cap, len))
		return 0;
	return lid_out(sw, pk->lrh.dlid, false, out);
}

/* For the switch itself (port 0): its SMA and its PMA */
static unsigned int
local_rx(struct hca_switch *sw, uint8_t in_port, struct mpd_pkt *pk,
	 uint8_t *mad, uint8_t *buf, uint16_t cap, uint16_t *len,
	 uint8_t *out, uint64_t now_ns)
{
	uint32_t qp = pk->bth.dest_qp;

	if (pk->bth.opcode != MPD_OP_UD_SEND_ONLY ||
	    pk->payload_len != MPD_MAD_LEN)
		return 0;
	/* DR SMPs pass with the permissive DLID both ways */
	if (qp == 0 && mpd_mad_class(mad) == MPD_CLASS_SUBN_DR)
		return dr_rx(sw, in_port, pk, mad, buf, cap, len, out, now_ns);
	/* the switch's agents answer requests; the rest is for port 0's
	 * clients (the SA of an SM there, responses to them), whose MAD
	 * layer answers a Get/Set that nobody takes */
	if (!mpd_mad_is_get_set(mad))
		return to_port0(sw, out);
	if (qp == 0 && mpd_mad_class(mad) == MPD_CLASS_SUBN_LID &&
	    !port0_claims(sw, mad))
		return sma_out(sw, hca_switch_sma(sw, mad, in_port,
						  pk->lrh.slid, now_ns),
			       pk, mad, pk->lrh.dlid, buf, cap, len, out);
	if (qp == 1 && mpd_mad_class(mad) == MPD_CLASS_PERF)
		return pma_rx(sw, pk, mad, buf, cap, len, out);
	return to_port0(sw, out);
}

/*
 * Partition enforcement on the way out (IBA 10.9; PortInfo
 * PartitionEnforcementOutbound, 14.2.5.6): a port that enforces sends
 * only packets whose P_Key its table matches; the others are counted as
 * PortXmitConstraintErrors. Returns how many ports are left in out.
 */
static unsigned int
enforce_out(struct hca_switch *sw, uint16_t pkey, uint8_t *out,
	    unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		struct hca_port *p = &sw->port[out[i]];

		if (out[i] != 0 && p->pkey_enforce_out &&
		    !hca_port_pkey_ok(p, pkey)) {
			p->cnt.xmit_constraint_errors++;
			continue;
		}
		out[k++] = out[i];
	}
	return k;
}

static void
count_xmit(struct hca_switch *sw, const uint8_t *out, unsigned int n,
	   uint16_t len, bool mcast)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct hca_port *p = &sw->port[out[i]];

		p->cnt.xmit_pkts++;
		p->cnt.xmit_data += hca_data_words(MPD_LINK_IB, len);
		if (mcast)
			p->cnt.multicast_xmit_pkts++;
		else
			p->cnt.unicast_xmit_pkts++;
	}
}

/* Unicast by the LFT, whose entry 0 is the switch (so are its own LIDs
 * and the permissive one) */
static unsigned int
by_lft(struct hca_switch *sw, uint8_t in_port, struct mpd_pkt *pk,
       uint8_t *mad, uint8_t *buf, uint16_t cap, uint16_t *len, uint8_t *out,
       uint64_t now_ns)
{
	struct hca_fwd_to to = { 0 };

	switch (hca_switch_route_lid(sw, pk->lrh.dlid,
				     pk->lrh.vl == MPD_VL15, &to)) {
	case HCA_FWD_PORT:
		return one_port(&to, out);
	case HCA_FWD_LOCAL:	/* the LFT names port 0 */
		return local_rx(sw, in_port, pk, mad, buf, cap, len, out,
				now_ns);
	default:
		return 0;
	}
}

/* What leaves: partition enforcement out (not for SMPs), and counted */
static unsigned int
leave(struct hca_switch *sw, const struct mpd_pkt *pk, uint8_t *out,
      unsigned int n, uint16_t len, bool mcast)
{
	if (pk->lrh.vl != MPD_VL15)
		n = enforce_out(sw, pk->bth.pkey, out, n);
	count_xmit(sw, out, n, len, mcast);
	return n;
}

unsigned int
hca_switch_rx(struct hca_switch *sw, uint8_t in_port, uint8_t *buf,
	      uint16_t *len, uint16_t cap, uint64_t now_ns, uint8_t *out,
	      unsigned int out_cap)
{
	struct hca_port *ip;
	struct mpd_pkt pk;
	uint8_t *mad;
	unsigned int n;
	bool vl15, mcast;
	int rc;

	if (in_port == 0 || in_port > sw->num_ports || out_cap == 0)
		return 0;
	ip = &sw->port[in_port];
	rc = mpd_pkt_decode(MPD_LINK_IB, buf, *len, hca_port_crc_flags(ip),
			    &pk);
	if (rc != MPD_OK) {
		ip->cnt.rcv_errors++;
		return 0;
	}
	vl15 = pk.lrh.vl == MPD_VL15;
	mcast = pk.lrh.dlid >= MPD_LID_MCAST_LO &&
		pk.lrh.dlid != MPD_LID_PERMISSIVE;
	/* a link not up takes nothing; one not Active only SMPs (IBA 7.2) */
	if (ip->port_state == HCA_PORT_DOWN ||
	    (!vl15 && ip->port_state != HCA_PORT_ACTIVE)) {
		ip->cnt.rcv_errors++;
		return 0;
	}
	ip->cnt.rcv_pkts++;
	ip->cnt.rcv_data += hca_data_words(MPD_LINK_IB, *len);
	if (mcast)
		ip->cnt.multicast_rcv_pkts++;
	else
		ip->cnt.unicast_rcv_pkts++;
	/* IBA 7.6.5: VL15 carries QP0 only */
	if (vl15 != (pk.bth.dest_qp == 0)) {
		ip->cnt.rcv_errors++;
		return 0;
	}
	/* partition enforcement on the way in (PortInfo
	 * PartitionEnforcementInbound); never for SMPs, which every port
	 * takes whatever its partitions */
	if (!vl15 && ip->pkey_enforce_in &&
	    !hca_port_pkey_ok(ip, pk.bth.pkey)) {
		ip->cnt.rcv_constraint_errors++;
		return 0;
	}
	mad = buf + (pk.payload - buf);

	if (mcast) {
		n = hca_switch_route_mcast(sw, pk.lrh.dlid, in_port, out,
					   out_cap);
		/* port 0 is a member only for an SM or a client there */
		if (n && out[0] == 0 && !sw->p0c)
			memmove(out, out + 1, --n);
	} else if (pk.lrh.dlid == MPD_LID_PERMISSIVE ||
		   hca_switch_owns_lid(sw, pk.lrh.dlid)) {
		n = local_rx(sw, in_port, &pk, mad, buf, cap, len, out,
			     now_ns);
		/* the SM's TrapRepress for the switch's trap: taken */
		if (!n && pk.bth.dest_qp == 0 &&
		    mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_TRAP_REPRESS)
			return 0;
	} else {
		n = by_lft(sw, in_port, &pk, mad, buf, cap, len, out, now_ns);
	}
	/* PortRcvSwitchRelayErrors (IBA 16.1.3.5): could not be
	 * forwarded; what the switch itself took counts as well */
	if (!n) {
		ip->cnt.rcv_switch_relay_errors++;
		return 0;
	}
	return leave(sw, &pk, out, n, *len, mcast);
}

/* Does the directed part of this SMP start here (its first leg is not
 * LID-routed; IBA 14.2.2.3)? The kernel's handle_outgoing_dr_smp() test. */
static bool
dr_starts_here(const uint8_t *mad)
{
	bool d = mpd_get_be16(mad + MPD_MAD_OFF_STATUS) & MPD_SMP_STATUS_D;

	return mpd_get_be16(mad + (d ? MPD_SMP_OFF_DR_DLID :
				   MPD_SMP_OFF_DR_SLID)) == MPD_LID_PERMISSIVE;
}

unsigned int
hca_switch_from_port0(struct hca_switch *sw, uint8_t *buf, uint16_t *len,
		      uint16_t cap, uint64_t now_ns, uint8_t *out,
		      unsigned int out_cap)
{
	struct mpd_pkt pk;
	uint8_t *mad;
	unsigned int n;
	bool vl15, mcast;

	if (!sw->p0c || out_cap == 0)
		return 0;
	/* made by our own encoder a moment ago */
	if (mpd_pkt_decode(MPD_LINK_IB, buf, *len, MPD_PKT_NO_ICRC_CHECK |
			   MPD_PKT_NO_VCRC_CHECK, &pk) != MPD_OK)
		return 0;
	vl15 = pk.lrh.vl == MPD_VL15;
	if (vl15 != (pk.bth.dest_qp == 0))
		return 0;
	mad = buf + (pk.payload - buf);
	mcast = pk.lrh.dlid >= MPD_LID_MCAST_LO &&
		pk.lrh.dlid != MPD_LID_PERMISSIVE;
	if (mcast) {
		n = hca_switch_route_mcast(sw, pk.lrh.dlid, 0, out, out_cap);
	} else if (vl15 && pk.payload_len == MPD_MAD_LEN &&
		   mpd_mad_class(mad) == MPD_CLASS_SUBN_DR &&
		   dr_starts_here(mad)) {
		/* C14-9:1 / C14-13:1 from port 0, or a hop count of 0:
		 * this switch's own SMA */
		n = dr_rx(sw, 0, &pk, mad, buf, cap, len, out, now_ns);
	} else {
		/* the switch's own LIDs and the permissive one are "local"
		 * to hca_switch_route_lid() as well */
		n = by_lft(sw, 0, &pk, mad, buf, cap, len, out, now_ns);
	}
	return n ? leave(sw, &pk, out, n, *len, mcast) : 0;
}

/* A trap the switch itself makes: out, and counted there */
static unsigned int
trap_sent(struct hca_switch *sw, uint8_t *mad, uint8_t *buf, uint16_t cap,
	  uint16_t *len, uint8_t *out)
{
	unsigned int k = trap_out(sw, mad, buf, cap, len, out);

	if (k)
		count_xmit(sw, out, k, *len, false);
	return k;
}

unsigned int
hca_switch_trap_cap(struct hca_switch *sw, uint8_t *buf, uint16_t cap,
		    uint16_t *len, uint8_t *out)
{
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_pkt pk;

	if (!hca_sma_cap_trap_by(&sw->port[0], MPD_NODE_TYPE_SWITCH, &pk,
				 mad))
		return 0;
	return trap_sent(sw, mad, buf, cap, len, out);
}

/*
 * Trap 128 (IBA 14.2.5.1): "the link state of at least one port of the
 * switch changed", LID-routed to the master SM from the switch's LID;
 * DataDetails: the switch's LID (OpenSM's ntc_128). Once per change: no
 * repeat until TrapRepress yet.
 */
unsigned int
hca_switch_trap_link(struct hca_switch *sw, uint8_t *buf, uint16_t cap,
		     uint16_t *len, uint8_t *out)
{
	struct hca_port *p0 = &sw->port[0];
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_notice n;

	if (!p0->lid || !p0->sm_lid || p0->port_state != HCA_PORT_ACTIVE)
		return 0;
	hca_sma_notice(&n, 1, MPD_NODE_TYPE_SWITCH, 128, p0->lid);
	mpd_put_be16(n.data_details, p0->lid);
	if (hca_sma_trap(p0, &n, mad) != 0)
		return 0;
	return trap_sent(sw, mad, buf, cap, len, out);
}
