/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A switch's Subnet Management Agent (IBA 14.2.5): the attributes of a
 * switch and of each of its ports, the forwarding tables the SM programs.
 * The port rules (PortInfo Set, P_Keys, SL2VL, VLArb, M_Key) are the
 * CA's, from sma.c, applied to the port the attribute modifier names.
 */
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "switch.h"

/* PortInfo:CapabilityMask of port 0 (IBA 14.2.5.6); external ports have
 * none */
#define SW_CAP_MASK	(MPD_PORT_CAP_IS_TRAP |				\
			 MPD_PORT_CAP_IS_SYS_IMAGE_GUID)

static void
node_info(const struct hca_switch *sw, uint8_t in_port, uint8_t *data)
{
	struct mpd_node_info ni;

	hca_sma_node_info_init(&ni, MPD_NODE_TYPE_SWITCH);
	ni.num_ports = sw->num_ports;
	ni.sys_image_guid = sw->sys_guid;
	ni.node_guid = sw->node_guid;
	ni.port_guid = sw->node_guid;	/* one GUID for every port */
	ni.local_port_num = in_port;	/* where the SMP came in */
	memset(data, 0, MPD_SMP_DATA_LEN);
	mpd_layout_encode(&mpd_node_info_layout, &ni, data, MPD_SMP_DATA_LEN);
}

static void
switch_info_get(const struct hca_switch *sw, uint8_t *data)
{
	struct mpd_switch_info si = {
		.linear_fdb_cap = sw->lft_cap,
		.random_fdb_cap = 0,
		.multicast_fdb_cap = sw->mft_cap,
		.linear_fdb_top = sw->lft_top,
		.default_port = sw->default_port,
		.default_mcast_primary_port = sw->default_mcast_primary_port,
		.default_mcast_not_primary_port =
			sw->default_mcast_not_primary_port,
		.life_time_value = sw->life_time,
		.port_state_change = sw->port_state_change,
		.optimized_sl2vl_programming = 0,
		.lids_per_port = 0,		/* no random FDB */
		.partition_enforcement_cap = HCA_PKEY_TABLE_LEN,
		.inbound_enforcement_cap = 1,
		.outbound_enforcement_cap = 1,
		.filter_raw_inbound_cap = 0,
		.filter_raw_outbound_cap = 0,
		.enhanced_port0 = 1,
		.multicast_fdb_top = sw->mft_top,
	};

	memset(data, 0, MPD_SMP_DATA_LEN);
	mpd_layout_encode(&mpd_switch_info_layout, &si, data, MPD_SMP_DATA_LEN);
}

/* Set(SwitchInfo), IBA 14.2.5.4: the SM sets the tops, the default ports
 * and LifeTimeValue; PortStateChange is cleared by writing 1 (0 leaves
 * it); the capabilities are read-only. */
static uint16_t
switch_info_set(struct hca_switch *sw, const uint8_t *data)
{
	struct mpd_switch_info si;

	mpd_layout_decode(&mpd_switch_info_layout, data, MPD_SMP_DATA_LEN, &si);
	if (si.linear_fdb_top >= MPD_LID_MCAST_LO ||
	    (si.multicast_fdb_top &&
	     si.multicast_fdb_top < MPD_LID_MCAST_LO - 1))
		return MPD_STATUS_INVALID_FIELD;
	sw->lft_top = si.linear_fdb_top;
	sw->mft_top = si.multicast_fdb_top;
	sw->default_port = si.default_port;
	sw->default_mcast_primary_port = si.default_mcast_primary_port;
	sw->default_mcast_not_primary_port =
		si.default_mcast_not_primary_port;
	sw->life_time = si.life_time_value;
	if (si.port_state_change)
		sw->port_state_change = 0;
	return 0;
}

/*
 * PortInfo of port n (the modifier, IBA 14.2.5.6). Port 0 carries the
 * switch's LID, SM and M_Key; an external port its link, and the
 * management fields read 0 there (reserved on switch external ports).
 * A Set does not touch PortStateChange (IBA 14.2.5.4: changes a SubnSet
 * made do not set it); the neighbour's switch sees its link retrain.
 */
static uint16_t
port_info(struct hca_switch *sw, uint32_t n, bool set, uint8_t in_port,
	  uint8_t *data, bool hide_mkey)
{
	struct mpd_port_info pi;
	struct hca_port *p;
	uint16_t st = 0;

	if (n > sw->num_ports)
		return MPD_STATUS_INVALID_FIELD;
	p = &sw->port[n];
	if (set) {
		mpd_layout_decode(&mpd_port_info_layout, data, 64, &pi);
		if (n == 0) {
			st = hca_sma_port_info_set(p, &pi);
		} else if (!(st = hca_sma_link_check(p, &pi))) {
			hca_sma_link_set(p, &pi);
			p->pkey_enforce_in = pi.partition_enforcement_inbound;
			p->pkey_enforce_out =
				pi.partition_enforcement_outbound;
		}
	}
	hca_sma_port_info_get(p, &pi, hide_mkey);
	pi.local_port_num = in_port;
	if (n == 0) {
		pi.capability_mask = SW_CAP_MASK | p->cap_mask;
	} else {
		pi.partition_enforcement_inbound = p->pkey_enforce_in;
		pi.partition_enforcement_outbound = p->pkey_enforce_out;
		pi.m_key = 0;
		pi.gid_prefix = 0;
		pi.lid = 0;
		pi.master_sm_lid = 0;
		pi.capability_mask = 0;
		pi.m_key_lease_period = 0;
		pi.m_key_protect_bits = 0;
		pi.lmc = 0;
		pi.master_sm_sl = 0;
		pi.subnet_timeout = 0;
	}
	mpd_layout_encode(&mpd_port_info_layout, &pi, data, 64);
	return st;
}

/* LinearForwardingTable block (the modifier), IBA 14.2.5.10 */
static uint16_t
lft_block(struct hca_switch *sw, uint32_t blk, bool set, uint8_t *data)
{
	struct mpd_lft_block b;
	uint8_t *ent;

	if (blk >= sw->lft_cap / MPD_LFT_BLOCK)
		return MPD_STATUS_INVALID_FIELD;
	ent = &sw->lft[blk * MPD_LFT_BLOCK];
	if (set) {
		mpd_layout_decode(&mpd_lft_block_layout, data, 64, &b);
		memcpy(ent, b.port, MPD_LFT_BLOCK);
	}
	memcpy(b.port, ent, MPD_LFT_BLOCK);
	mpd_layout_encode(&mpd_lft_block_layout, &b, data, 64);
	return 0;
}

/* MulticastForwardingTable: 32 MLIDs' masks of ports 16*pos .. +15,
 * IBA 14.2.5.12 */
static uint16_t
mft_block(struct hca_switch *sw, uint32_t mod, bool set, uint8_t *data)
{
	uint32_t blk = mod & MPD_MFT_MOD_BLOCK_MASK;
	uint32_t pos = mod >> MPD_MFT_MOD_POS_SHIFT;
	struct mpd_mft_block b;
	unsigned int i;
	uint16_t *m;

	if (blk >= sw->mft_cap / MPD_MFT_BLOCK || pos >= sw->mft_positions)
		return MPD_STATUS_INVALID_FIELD;
	m = &sw->mft[blk * MPD_MFT_BLOCK * sw->mft_positions + pos];
	if (set) {
		mpd_layout_decode(&mpd_mft_block_layout, data, 64, &b);
		for (i = 0; i < MPD_MFT_BLOCK; i++)
			m[i * sw->mft_positions] = b.port_mask[i];
	}
	for (i = 0; i < MPD_MFT_BLOCK; i++)
		b.port_mask[i] = m[i * sw->mft_positions];
	mpd_layout_encode(&mpd_mft_block_layout, &b, data, 64);
	return 0;
}

/* Returns the MAD status for the attribute; fills data (64 bytes). */
static uint16_t
sw_attr(struct hca_switch *sw, const struct mpd_mad *m, uint8_t in_port,
	uint8_t *data, bool hide_mkey)
{
	bool set = m->hdr.method == MPD_METHOD_SET;
	uint32_t mod = m->hdr.attr_mod, port;

	switch (m->hdr.attr_id) {
	case MPD_ATTR_NODE_INFO:
		if (set)
			return MPD_STATUS_METHOD_ATTR_UNSUP;
		node_info(sw, in_port, data);
		return 0;
	case MPD_ATTR_NODE_DESC:
		if (set)
			return MPD_STATUS_METHOD_ATTR_UNSUP;
		memcpy(data, sw->node_desc, HCA_NODE_DESC_LEN);
		return 0;
	case MPD_ATTR_SWITCH_INFO:
		if (set) {
			uint16_t st = switch_info_set(sw, data);

			if (st)
				return st;
		}
		switch_info_get(sw, data);
		return 0;
	case MPD_ATTR_PORT_INFO:
		return port_info(sw, mod, set, in_port, data, hide_mkey);
	case MPD_ATTR_PKEY_TABLE:
		/* PartitionEnforcementCap 32: one block a port */
		port = mod >> MPD_PKEY_MOD_PORT_SHIFT;
		if (port > sw->num_ports || (mod & MPD_PKEY_MOD_BLOCK_MASK))
			return MPD_STATUS_INVALID_FIELD;
		hca_sma_pkey_block(&sw->port[port], set, data);
		return 0;
	case MPD_ATTR_SL2VL_TABLE:
		/* one table an output port, whatever the input port */
		port = mod & MPD_SL2VL_MOD_PORT_MASK;
		if (port > sw->num_ports)
			return MPD_STATUS_INVALID_FIELD;
		return hca_sma_sl2vl(&sw->port[port], set, data);
	case MPD_ATTR_VL_ARB_TABLE:
		port = mod & MPD_VL_ARB_MOD_PORT_MASK;
		if (port > sw->num_ports)
			return MPD_STATUS_INVALID_FIELD;
		return hca_sma_vl_arb(&sw->port[port],
				      mod >> MPD_VL_ARB_MOD_BLOCK_SHIFT, set,
				      data);
	case MPD_ATTR_LINEAR_FWD_TABLE:
		return lft_block(sw, mod, set, data);
	case MPD_ATTR_MCAST_FWD_TABLE:
		return mft_block(sw, mod, set, data);
	default:
		/* RandomFDBCap 0; SMInfo once an SM sits on port 0 */
		return MPD_STATUS_METHOD_ATTR_UNSUP;
	}
}

enum hca_reply
hca_switch_sma(struct hca_switch *sw, uint8_t *mad, uint8_t in_port,
	       uint16_t slid, uint64_t now_ns)
{
	struct hca_port *p0 = &sw->port[0];
	bool dr, hide = false;
	struct mpd_mad m;
	uint16_t status;

	if (in_port > sw->num_ports)
		return HCA_NO_REPLY;
	if (!hca_sma_decode(p0, mad, &m))
		return HCA_NO_REPLY;
	dr = mpd_mad_is_dr(&m.hdr);
	/* a DR request is the switch's once hca_switch_dr() moved its
	 * pointer past the path (C14-9:3-4) */
	if (dr && ((m.hdr.status & MPD_SMP_STATUS_D) ||
		   mpd_smp_hop_ptr(&m.hdr) != mpd_smp_hop_cnt(&m.hdr) + 1))
		return HCA_NO_REPLY;
	/* the switch's M_Key is port 0's (IBA 14.2.4) */
	if (!hca_sma_mkey_ok(p0, &m, now_ns, &hide)) {
		if (!p0->sm_lid || !p0->lid)
			return HCA_NO_REPLY;
		hca_sma_bad_mkey_trap(p0, mad, &m, slid,
				      MPD_NODE_TYPE_SWITCH);
		return HCA_TRAP;
	}

	if (m.hdr.class_version != MPD_SMP_CLASS_VERSION)
		status = MPD_STATUS_BAD_VERSION;
	else
		status = sw_attr(sw, &m, in_port, mad + MPD_SMP_DATA_OFF, hide);
	hca_sma_reply(mad, status, dr);
	return HCA_REPLY;
}
