/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A switch node alone (pmd/node/switch*.c): its SMA, its forwarding tables
 * and its forwarding decisions, directed route as IBA 14.2.2.2 walks it,
 * with the switches' functions called hop by hop, and whole frames
 * through hca_switch_rx(). No EAL.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "node/switch.h"
#include "tap.h"

#define SW_GUID		0x6d61640000aa0000ull
#define SW_LID		10
#define SW_PORTS	20	/* two MFT positions: ports 0-15, 16-31 */

static void
sw_init(struct hca_switch *sw, uint64_t guid, uint16_t lid)
{
	unsigned int i;

	if (hca_switch_init(sw, SW_PORTS, guid, "sw", 1000, 100) != 0)
		return;
	sw->port[0].lid = lid;
	for (i = 1; i <= SW_PORTS; i++)
		hca_switch_link(sw, (uint8_t)i, true);
	sw->port_state_change = 0;
}

static void
smp_lid(uint8_t *mad, uint8_t method, uint16_t attr, uint32_t mod,
	const void *data)
{
	struct mpd_mad m;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_LID;
	m.hdr.class_version = MPD_SMP_CLASS_VERSION;
	m.hdr.method = method;
	m.hdr.tid = 0x77;
	m.hdr.attr_id = attr;
	m.hdr.attr_mod = mod;
	mpd_mad_encode(&m, data, data ? MPD_SMP_DATA_LEN : 0, mad, MPD_MAD_LEN);
}

/* A DR Get of attr, hop pointer 0, along path[1..cnt] */
static void
smp_dr(uint8_t *mad, uint16_t attr, uint8_t cnt, const uint8_t *path,
       uint16_t dr_slid, uint16_t dr_dlid)
{
	struct mpd_mad m;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = MPD_BASE_VERSION;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_DR;
	m.hdr.class_version = MPD_SMP_CLASS_VERSION;
	m.hdr.method = MPD_METHOD_GET;
	m.hdr.class_specific = cnt;
	m.hdr.tid = 0x88;
	m.hdr.attr_id = attr;
	m.dr_slid = dr_slid;
	m.dr_dlid = dr_dlid;
	memcpy(m.initial_path, path, (size_t)cnt + 1);
	mpd_mad_encode(&m, NULL, 0, mad, MPD_MAD_LEN);
}

/* The switch's SMA: the reply's status, or -1 without a reply */
static int
sma(struct hca_switch *sw, uint8_t *mad, uint8_t in_port)
{
	if (hca_switch_sma(sw, mad, in_port, 9, 0) != HCA_REPLY)
		return -1;
	return mpd_get_be16(mad + MPD_MAD_OFF_STATUS);
}

static void
test_node_info(void)
{
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_node_info ni;
	struct hca_switch sw;

	sw_init(&sw, SW_GUID, SW_LID);
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_NODE_INFO, 0, NULL);
	is_int(sma(&sw, mad, 3), 0, "Get(NodeInfo): answered");
	is_int(mad[MPD_MAD_OFF_METHOD], MPD_METHOD_GET_RESP, "a GetResp");
	mpd_layout_decode(&mpd_node_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &ni);
	is_int(ni.node_type, MPD_NODE_TYPE_SWITCH, "NodeType 2");
	is_int(ni.num_ports, SW_PORTS, "NumPorts: the external ports");
	ok(ni.node_guid == SW_GUID && ni.port_guid == SW_GUID,
	   "one GUID for the node and all its ports (IBA 14.2.5.3)");
	is_int(ni.local_port_num, 3, "LocalPortNum: the port it came in on");
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_NODE_INFO, 0, NULL);
	is_int(sma(&sw, mad, 3), MPD_STATUS_METHOD_ATTR_UNSUP,
	       "Set(NodeInfo): unsupported");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_NODE_DESC, 0, NULL);
	is_int(sma(&sw, mad, 1), 0, "Get(NodeDescription): answered");
	ok(!strcmp((char *)mad + MPD_SMP_DATA_OFF, "sw"), "the description");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_SM_INFO, 0, NULL);
	is_int(sma(&sw, mad, 1), MPD_STATUS_METHOD_ATTR_UNSUP,
	       "Get(SMInfo) with no SM on port 0: 0x0c");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_RANDOM_FWD_TABLE, 0, NULL);
	is_int(sma(&sw, mad, 1), MPD_STATUS_METHOD_ATTR_UNSUP,
	       "Get(RandomForwardingTable), RandomFDBCap 0: 0x0c");
	smp_lid(mad, MPD_METHOD_GET, 0x7777, 0, NULL);
	is_int(sma(&sw, mad, 1), MPD_STATUS_METHOD_ATTR_UNSUP,
	       "an unknown attribute: 0x0c");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_NODE_INFO, 0, NULL);
	mad[MPD_MAD_OFF_CLASS_VER] = 2;
	is_int(sma(&sw, mad, 1), MPD_STATUS_BAD_VERSION,
	       "class version 2: bad version");
	hca_switch_fini(&sw);
}

static void
test_switch_info(void)
{
	uint8_t mad[MPD_MAD_LEN], data[MPD_SMP_DATA_LEN];
	struct mpd_switch_info si;
	struct hca_switch sw;

	sw_init(&sw, SW_GUID, SW_LID);
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_SWITCH_INFO, 0, NULL);
	is_int(sma(&sw, mad, 1), 0, "Get(SwitchInfo): answered");
	mpd_layout_decode(&mpd_switch_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &si);
	is_int(si.linear_fdb_cap, 1024, "LinearFDBCap: 1000 in whole blocks");
	is_int(si.multicast_fdb_cap, 128, "MulticastFDBCap: 100 in blocks");
	is_int(si.random_fdb_cap, 0, "RandomFDBCap 0");
	is_int(si.partition_enforcement_cap, HCA_PKEY_TABLE_LEN,
	       "PartitionEnforcementCap: a port's P_Key table");
	ok(si.enhanced_port0 && si.inbound_enforcement_cap &&
	   si.outbound_enforcement_cap, "enhanced port 0, P_Key enforcement");
	is_int(si.port_state_change, 0, "no PortStateChange yet");

	hca_switch_link(&sw, 4, false);
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_SWITCH_INFO, 0, NULL);
	sma(&sw, mad, 1);
	mpd_layout_decode(&mpd_switch_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &si);
	is_int(si.port_state_change, 1, "a link went down: PortStateChange");

	memset(&si, 0, sizeof(si));
	si.linear_fdb_cap = 5;		/* read-only */
	si.linear_fdb_top = 300;
	si.default_port = 2;
	si.life_time_value = 9;
	si.multicast_fdb_top = 0xc010;
	si.port_state_change = 0;
	memset(data, 0, sizeof(data));
	mpd_layout_encode(&mpd_switch_info_layout, &si, data, sizeof(data));
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_SWITCH_INFO, 0, data);
	is_int(sma(&sw, mad, 1), 0, "Set(SwitchInfo): taken");
	mpd_layout_decode(&mpd_switch_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &si);
	ok(si.linear_fdb_top == 300 && si.default_port == 2 &&
	   si.life_time_value == 9 && si.multicast_fdb_top == 0xc010,
	   "LinearFDBTop, DefaultPort, LifeTimeValue, MulticastFDBTop set");
	is_int(si.linear_fdb_cap, 1024, "LinearFDBCap is read-only");
	is_int(si.port_state_change, 1, "writing 0 leaves PortStateChange");
	si.port_state_change = 1;
	mpd_layout_encode(&mpd_switch_info_layout, &si, data, sizeof(data));
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_SWITCH_INFO, 0, data);
	sma(&sw, mad, 1);
	mpd_layout_decode(&mpd_switch_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &si);
	is_int(si.port_state_change, 0, "writing 1 clears it (IBA 14.2.5.4)");
	si.linear_fdb_top = 0xc000;
	mpd_layout_encode(&mpd_switch_info_layout, &si, data, sizeof(data));
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_SWITCH_INFO, 0, data);
	is_int(sma(&sw, mad, 1), MPD_STATUS_INVALID_FIELD,
	       "LinearFDBTop in the multicast range: invalid field");
	is_int(sw.lft_top, 300, "and nothing changed");
	hca_switch_fini(&sw);
}

static int
port_info_set(struct hca_switch *sw, uint32_t port, const struct mpd_port_info
	      *pi, struct mpd_port_info *out)
{
	uint8_t mad[MPD_MAD_LEN], data[MPD_SMP_DATA_LEN];
	int st;

	memset(data, 0, sizeof(data));
	mpd_layout_encode(&mpd_port_info_layout, pi, data, sizeof(data));
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_PORT_INFO, port, data);
	st = sma(sw, mad, 1);
	mpd_layout_decode(&mpd_port_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, out);
	return st;
}

static void
test_port_info(void)
{
	struct mpd_port_info pi, out;
	uint8_t mad[MPD_MAD_LEN];
	struct hca_switch sw;

	sw_init(&sw, SW_GUID, SW_LID);
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_PORT_INFO, 0, NULL);
	is_int(sma(&sw, mad, 5), 0, "Get(PortInfo) of port 0: answered");
	mpd_layout_decode(&mpd_port_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &out);
	is_int(out.lid, SW_LID, "port 0 has the switch's LID");
	is_int(out.local_port_num, 5, "LocalPortNum: the arrival port");
	ok(out.capability_mask & MPD_PORT_CAP_IS_TRAP, "port 0's capabilities");

	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_PORT_INFO, 7, NULL);
	is_int(sma(&sw, mad, 5), 0, "Get(PortInfo) of port 7: answered");
	mpd_layout_decode(&mpd_port_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &out);
	ok(out.lid == 0 && out.capability_mask == 0,
	   "an external port has no LID nor capabilities of its own");
	ok(out.port_state == HCA_PORT_INIT &&
	   out.port_phys_state == HCA_PHYS_LINKUP, "its link is up, in Init");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_PORT_INFO, SW_PORTS + 1, NULL);
	is_int(sma(&sw, mad, 5), MPD_STATUS_INVALID_FIELD,
	       "a port past NumPorts: invalid field");

	/* port 0 takes the LID and the SM's, an external port ignores them */
	memset(&pi, 0, sizeof(pi));
	pi.lid = 33;
	pi.master_sm_lid = 1;
	is_int(port_info_set(&sw, 0, &pi, &out), 0, "Set port 0's LID: taken");
	ok(sw.port[0].lid == 33 && sw.port[0].sm_lid == 1,
	   "port 0 has LID 33, SM LID 1");
	pi.lid = 44;
	is_int(port_info_set(&sw, 3, &pi, &out), 0, "Set on port 3: taken");
	ok(sw.port[0].lid == 33 && sw.port[3].lid == 0,
	   "and its LID ignored (port 0's is the switch's)");
	pi.lid = 0xc001;
	is_int(port_info_set(&sw, 0, &pi, &out), MPD_STATUS_INVALID_FIELD,
	       "a multicast LID on port 0: invalid field");
	is_int(port_info_set(&sw, 3, &pi, &out), 0,
	       "but not looked at on an external port");

	/* the link state machine, the CA port's rules (IBA 14.2.5.6) */
	memset(&pi, 0, sizeof(pi));
	pi.port_state = HCA_PORT_ACTIVE;
	is_int(port_info_set(&sw, 3, &pi, &out), MPD_STATUS_INVALID_FIELD,
	       "Init to Active: invalid field");
	pi.port_state = HCA_PORT_ARMED;
	is_int(port_info_set(&sw, 3, &pi, &out), 0, "Init to Armed: taken");
	is_int(out.port_state, HCA_PORT_ARMED, "port 3 Armed");
	pi.port_state = HCA_PORT_ACTIVE;
	is_int(port_info_set(&sw, 3, &pi, &out), 0, "Armed to Active: taken");
	is_int(sw.port[3].port_state, HCA_PORT_ACTIVE, "port 3 Active");
	is_int(sw.port[4].port_state, HCA_PORT_INIT, "port 4 untouched");
	pi.neighbor_mtu = 6;
	is_int(port_info_set(&sw, 3, &pi, &out), MPD_STATUS_INVALID_FIELD,
	       "NeighborMTU past MTUCap: invalid field");
	is_int(sw.port_state_change, 0, "no PortStateChange so far");
	memset(&pi, 0, sizeof(pi));
	pi.port_state = HCA_PORT_DOWN;
	is_int(port_info_set(&sw, 3, &pi, &out), 0, "Set Down: taken");
	is_int(out.port_state, HCA_PORT_INIT, "the link retrains: Init");
	is_int(sw.port[3].cnt.link_downed, 1, "LinkDownedCounter 1");
	pi.port_state = 0;
	pi.port_phys_state = HCA_PHYS_DISABLED;
	is_int(port_info_set(&sw, 5, &pi, &out), 0, "Set Disabled: taken");
	ok(out.port_state == HCA_PORT_DOWN &&
	   out.port_phys_state == HCA_PHYS_DISABLED, "port 5 Down, Disabled");
	is_int(sw.port_state_change, 0,
	       "no PortStateChange for what a SubnSet did (IBA 14.2.5.4)");
	hca_switch_link(&sw, 5, false);
	is_int(sw.port_state_change, 0, "a link already down: no change");
	hca_switch_link(&sw, 6, false);
	hca_switch_link(&sw, 6, true);
	ok(sw.port_state_change && sw.port[6].port_state == HCA_PORT_INIT,
	   "a link that trains again: Init, PortStateChange");
	is_int(sw.port[6].cnt.link_downed, 1, "LinkDownedCounter 1");
	sw.port_state_change = 0;
	pi.port_phys_state = 0;
	pi.port_state = HCA_PORT_ARMED;
	is_int(port_info_set(&sw, 0, &pi, &out), 0,
	       "port 0 from Init to Armed: taken, the same rules");
	is_int(sw.port[0].port_state, HCA_PORT_ARMED, "port 0 Armed");
	hca_switch_fini(&sw);
}

static void
test_tables(void)
{
	uint8_t mad[MPD_MAD_LEN], data[MPD_SMP_DATA_LEN];
	struct mpd_pkey_table pk;
	struct mpd_lft_block lb;
	struct mpd_mft_block mb;
	struct hca_switch sw;
	unsigned int i;

	sw_init(&sw, SW_GUID, SW_LID);
	/* LFT block 2: LIDs 128..191 */
	for (i = 0; i < MPD_LFT_BLOCK; i++)
		lb.port[i] = (uint8_t)(i % SW_PORTS + 1);
	mpd_layout_encode(&mpd_lft_block_layout, &lb, data, sizeof(data));
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_LINEAR_FWD_TABLE, 2, data);
	is_int(sma(&sw, mad, 1), 0, "Set(LFT) block 2: taken");
	ok(sw.lft[128] == 1 && sw.lft[191] == 64 % SW_PORTS,
	   "LIDs 128 and 191 have ports 1 and %u", 64 % SW_PORTS);
	ok(sw.lft[127] == MPD_LFT_PORT_NONE && sw.lft[192] == MPD_LFT_PORT_NONE,
	   "its neighbours still have none");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_LINEAR_FWD_TABLE, 2, NULL);
	is_int(sma(&sw, mad, 1), 0, "Get(LFT) block 2: answered");
	ok(!memcmp(mad + MPD_SMP_DATA_OFF, data, MPD_SMP_DATA_LEN),
	   "the block as it was set");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_LINEAR_FWD_TABLE, 15, NULL);
	is_int(sma(&sw, mad, 1), 0, "block 15, the last under the cap: ok");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_LINEAR_FWD_TABLE, 16, NULL);
	is_int(sma(&sw, mad, 1), MPD_STATUS_INVALID_FIELD,
	       "block 16, past LinearFDBCap 1024: invalid field");

	/* MFT block 1 (MLIDs 0xC020..0xC03F), positions 0 and 1 */
	memset(&mb, 0, sizeof(mb));
	mb.port_mask[3] = 0x0016;		/* ports 1, 2, 4 */
	mpd_layout_encode(&mpd_mft_block_layout, &mb, data, sizeof(data));
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_MCAST_FWD_TABLE, 1, data);
	is_int(sma(&sw, mad, 1), 0, "Set(MFT) block 1 position 0: taken");
	mb.port_mask[3] = 0x0009;		/* ports 16, 19 */
	mpd_layout_encode(&mpd_mft_block_layout, &mb, data, sizeof(data));
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_MCAST_FWD_TABLE,
		1u << MPD_MFT_MOD_POS_SHIFT | 1, data);
	is_int(sma(&sw, mad, 1), 0, "Set(MFT) block 1 position 1: taken");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_MCAST_FWD_TABLE, 1, NULL);
	sma(&sw, mad, 1);
	mpd_layout_decode(&mpd_mft_block_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &mb);
	ok(mb.port_mask[3] == 0x0016 && mb.port_mask[2] == 0,
	   "Get position 0: ports 1, 2, 4 for MLID 0xC023 alone");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_MCAST_FWD_TABLE,
		2u << MPD_MFT_MOD_POS_SHIFT | 1, NULL);
	is_int(sma(&sw, mad, 1), MPD_STATUS_INVALID_FIELD,
	       "position 2 (ports 32-47) of a 20-port switch: invalid field");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_MCAST_FWD_TABLE, 4, NULL);
	is_int(sma(&sw, mad, 1), MPD_STATUS_INVALID_FIELD,
	       "block 4, past MulticastFDBCap 128: invalid field");

	/* P_KeyTable: a table a port, port in the modifier's high half */
	memset(&pk, 0, sizeof(pk));
	pk.p_key[0] = 0xffff;
	pk.p_key[1] = 0x8005;
	mpd_layout_encode(&mpd_pkey_table_layout, &pk, data, sizeof(data));
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_PKEY_TABLE,
		6u << MPD_PKEY_MOD_PORT_SHIFT, data);
	is_int(sma(&sw, mad, 1), 0, "Set(P_KeyTable) of port 6: taken");
	ok(sw.port[6].pkeys[1] == 0x8005 && sw.port[5].pkeys[1] == 0,
	   "port 6's table, not port 5's");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_PKEY_TABLE,
		6u << MPD_PKEY_MOD_PORT_SHIFT | 1, NULL);
	is_int(sma(&sw, mad, 1), MPD_STATUS_INVALID_FIELD,
	       "block 1, past PartitionEnforcementCap 32: invalid field");

	/* SL2VL by output port, VLArb by block and port: kept per port */
	memset(data, 0, sizeof(data));
	data[0] = 0x00;
	data[7] = 0x0f;				/* SL15 to VL15 */
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_SL2VL_TABLE, 2u << 8 | 9, data);
	is_int(sma(&sw, mad, 1), 0, "Set(SL2VL) in 2 out 9: taken");
	is_int(sw.port[9].sl2vl[15], MPD_VL15, "port 9's table");
	memset(data, 0x11, sizeof(data));
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_VL_ARB_TABLE,
		3u << MPD_VL_ARB_MOD_BLOCK_SHIFT | 9, data);
	is_int(sma(&sw, mad, 1), 0, "Set(VLArb) block 3 of port 9: taken");
	is_int(sw.port[9].vl_arb[2][0], 0x11, "kept as sent");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_VL_ARB_TABLE,
		3u << MPD_VL_ARB_MOD_BLOCK_SHIFT | 0x109, NULL);
	is_int(sma(&sw, mad, 1), MPD_STATUS_INVALID_FIELD,
	       "VLArb of port 0x109 (bits 15:0): invalid field, not port 9");
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_VL_ARB_TABLE,
		5u << MPD_VL_ARB_MOD_BLOCK_SHIFT | 9, NULL);
	is_int(sma(&sw, mad, 1), MPD_STATUS_INVALID_FIELD,
	       "VLArb block 5: invalid field");
	hca_switch_fini(&sw);
}

static void
test_route(void)
{
	struct hca_fwd_to to = { 0 };
	struct hca_switch sw;
	uint8_t out[SW_PORTS + 1];
	uint16_t *m;

	sw_init(&sw, SW_GUID, SW_LID);
	sw.port[0].lmc = 1;			/* LIDs 10, 11 */
	sw.lft_top = 200;
	sw.lft[20] = 3;
	sw.lft[21] = 0;
	sw.lft[201] = 3;
	sw.port[3].port_state = HCA_PORT_ACTIVE;
	is_int(hca_switch_route_lid(&sw, 11, false, &to), HCA_FWD_LOCAL,
	       "the switch's own LID (LMC 1): port 0");
	is_int(hca_switch_route_lid(&sw, MPD_LID_PERMISSIVE, true, &to),
	       HCA_FWD_LOCAL, "the permissive LID: port 0");
	ok(hca_switch_route_lid(&sw, 20, false, &to) == HCA_FWD_PORT &&
	   to.port == 3, "LID 20 by the LFT: port 3");
	is_int(hca_switch_route_lid(&sw, 21, false, &to), HCA_FWD_LOCAL,
	       "an LFT entry 0: port 0");
	is_int(hca_switch_route_lid(&sw, 22, false, &to), HCA_FWD_DROP,
	       "an LFT entry 255: dropped");
	is_int(hca_switch_route_lid(&sw, 201, false, &to), HCA_FWD_DROP,
	       "a LID above LinearFDBTop: dropped");
	is_int(hca_switch_route_lid(&sw, 0, false, &to), HCA_FWD_DROP,
	       "LID 0: dropped");
	sw.port[3].port_state = HCA_PORT_ARMED;
	is_int(hca_switch_route_lid(&sw, 20, false, &to), HCA_FWD_DROP,
	       "data to a port in Armed: dropped");
	is_int(hca_switch_route_lid(&sw, 20, true, &to), HCA_FWD_PORT,
	       "an SMP to a port in Armed: sent");

	/* MLID 0xC005: ports 0, 2, 3, 17; 2 and 17 Active, 3 Armed */
	m = &sw.mft[5 * sw.mft_positions];
	m[0] = 1u << 0 | 1u << 2 | 1u << 3;
	m[1] = 1u << (17 - 16);
	sw.port[2].port_state = HCA_PORT_ACTIVE;
	sw.port[17].port_state = HCA_PORT_ACTIVE;
	is_int(hca_switch_route_mcast(&sw, 0xc005, 2, out, sizeof(out)), 2,
	       "MLID 0xC005 from port 2: two copies");
	ok(out[0] == 0 && out[1] == 17,
	   "to port 0 and port 17: not back to 2, not to Armed 3");
	is_int(hca_switch_route_mcast(&sw, 0xc006, 2, out, sizeof(out)), 0,
	       "an MLID with no members: none");
	sw.mft_top = 0xc004;
	is_int(hca_switch_route_mcast(&sw, 0xc005, 2, out, sizeof(out)), 0,
	       "an MLID above MulticastFDBTop: none");
	hca_switch_fini(&sw);
}

/* The end port of a directed route as IBA 14.2.2.2 has it (C14-9:3, then
 * the response's C14-13:1): note the arrival port, answer with D set and
 * the pointer back at the hop count. */
static void
end_port_answers(uint8_t *mad, uint8_t port)
{
	uint8_t cnt = mad[MPD_SMP_OFF_HOP_CNT];

	mad[MPD_SMP_OFF_RET_PATH + cnt] = port;
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET_RESP;
	mpd_put_be16(mad + MPD_MAD_OFF_STATUS, MPD_SMP_STATUS_D);
	mad[MPD_SMP_OFF_HOP_PTR] = cnt;
}

/*
 * IBA 14.2.2.2's walk: the SM's CA A (port 1) -> S1 (in 1, out 3) -> S2
 * (in 2, out 4) -> CA B (port 1), hop count 3, and back.
 */
static void
test_dr_three_hops(void)
{
	static const uint8_t path[] = { 0, 1, 3, 4 };
	struct hca_switch s1, s2;
	struct hca_fwd_to to = { 0 };
	uint8_t mad[MPD_MAD_LEN];

	sw_init(&s1, SW_GUID, 0);
	sw_init(&s2, SW_GUID + 0x100, 0);
	smp_dr(mad, MPD_ATTR_NODE_INFO, 3, path, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;		/* A sent it (C14-9:1) */
	ok(hca_switch_dr(&s1, mad, 1, MPD_LID_PERMISSIVE, &to) ==
	   HCA_FWD_PORT && to.port == 3, "S1 forwards it out port 3");
	ok(mad[MPD_SMP_OFF_HOP_PTR] == 2 && mad[MPD_SMP_OFF_RET_PATH + 1] == 1,
	   "hop pointer 2, ReturnPath[1] = S1's arrival port 1");
	ok(hca_switch_dr(&s2, mad, 2, MPD_LID_PERMISSIVE, &to) ==
	   HCA_FWD_PORT && to.port == 4, "S2 forwards it out port 4");
	ok(mad[MPD_SMP_OFF_HOP_PTR] == 3 && mad[MPD_SMP_OFF_RET_PATH + 2] == 2,
	   "hop pointer 3, ReturnPath[2] = S2's arrival port 2");

	end_port_answers(mad, 1);
	ok(hca_switch_dr(&s2, mad, 4, MPD_LID_PERMISSIVE, &to) ==
	   HCA_FWD_PORT && to.port == 2,
	   "the response: S2 sends it back out port 2");
	is_int(mad[MPD_SMP_OFF_HOP_PTR], 2, "hop pointer 2");
	ok(hca_switch_dr(&s1, mad, 3, MPD_LID_PERMISSIVE, &to) ==
	   HCA_FWD_PORT && to.port == 1, "S1 sends it back out port 1");
	is_int(mad[MPD_SMP_OFF_HOP_PTR], 1,
	       "hop pointer 1: A's SMI takes it to 0 for the SM (C14-13:3)");
	hca_switch_fini(&s1);
	hca_switch_fini(&s2);
}

/* A -> S1 (in 1, out 3) -> S2 (in 2): S2's own SMA answers, and the
 * response finds its way from S2's port 0. */
static void
test_dr_to_switch(void)
{
	static const uint8_t path[] = { 0, 1, 3 };
	struct hca_switch s1, s2;
	struct hca_fwd_to to = { 0 };
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_node_info ni;

	sw_init(&s1, SW_GUID, 0);
	sw_init(&s2, SW_GUID + 0x100, 0);
	smp_dr(mad, MPD_ATTR_NODE_INFO, 2, path, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	is_int(hca_switch_dr(&s1, mad, 1, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_PORT, "S1 forwards");
	is_int(sma(&s2, mad, 2), -1,
	       "S2's SMA does not take it before its SMI has (C14-9:3)");
	is_int(hca_switch_dr(&s2, mad, 2, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_LOCAL, "at the end of the path: S2's own");
	is_int(mad[MPD_SMP_OFF_HOP_PTR], 3, "hop pointer past the count");
	is_int(sma(&s2, mad, 2), MPD_SMP_STATUS_D,
	       "S2's SMA answers, D set, status 0");
	mpd_layout_decode(&mpd_node_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &ni);
	ok(ni.node_guid == SW_GUID + 0x100 && ni.local_port_num == 2,
	   "S2's NodeInfo, LocalPortNum 2");
	ok(hca_switch_dr(&s2, mad, 0, MPD_LID_PERMISSIVE, &to) ==
	   HCA_FWD_PORT && to.port == 2,
	   "the response leaves S2 by its arrival port (C14-13:1)");
	ok(hca_switch_dr(&s1, mad, 3, MPD_LID_PERMISSIVE, &to) ==
	   HCA_FWD_PORT && to.port == 1 && mad[MPD_SMP_OFF_HOP_PTR] == 1,
	   "S1 sends it on to A, hop pointer 1");

	/* hop count 0: an SM on S2's port 0 asks S2 itself */
	smp_dr(mad, MPD_ATTR_NODE_INFO, 0, path, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	is_int(hca_switch_dr(&s2, mad, 0, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_LOCAL, "hop count 0 from port 0: S2's own");
	is_int(sma(&s2, mad, 0), MPD_SMP_STATUS_D, "answered");
	is_int(hca_switch_dr(&s2, mad, 0, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_LOCAL, "and the response is port 0's SM's");
	hca_switch_fini(&s1);
	hca_switch_fini(&s2);
}

/*
 * A mixed route (IBA 14.2.2.3), which ibsim refuses: the SM at LID 1
 * LID-routes the SMP to S1 (LID 10, DrSLID 1), directed from there to S2
 * (S1 port 4 to S2 port 2); and one directed to S1 and LID-routed on to
 * DrDLID 30.
 */
static void
test_dr_mixed(void)
{
	static const uint8_t path[] = { 0, 4 };
	struct hca_switch s1, s2;
	struct hca_fwd_to to = { 0 };
	uint8_t mad[MPD_MAD_LEN];

	sw_init(&s1, SW_GUID, SW_LID);
	sw_init(&s2, SW_GUID + 0x100, 20);
	s1.lft_top = 63;
	s1.lft[1] = 1;
	s1.port[1].port_state = HCA_PORT_ACTIVE;
	smp_dr(mad, MPD_ATTR_NODE_INFO, 1, path, 1, MPD_LID_PERMISSIVE);
	is_int(hca_switch_route_lid(&s1, SW_LID, true, &to), HCA_FWD_LOCAL,
	       "LID-routed to S1's LID: S1's");
	is_int(hca_switch_dr(&s1, mad, 1, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_DROP, "hop pointer 0 directed over a link: dropped");
	ok(hca_switch_dr(&s1, mad, 1, SW_LID, &to) == HCA_FWD_PORT &&
	   to.port == 4 && mad[MPD_SMP_OFF_HOP_PTR] == 1,
	   "LID-routed there: the directed part starts, out port 4 (C14-9:1)");
	is_int(hca_switch_dr(&s2, mad, 2, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_LOCAL, "S2 at the end of the path");
	is_int(sma(&s2, mad, 2), MPD_SMP_STATUS_D, "S2 answers");
	ok(hca_switch_dr(&s2, mad, 0, MPD_LID_PERMISSIVE, &to) ==
	   HCA_FWD_PORT && to.port == 2, "back out S2's port 2");
	ok(hca_switch_dr(&s1, mad, 4, MPD_LID_PERMISSIVE, &to) ==
	   HCA_FWD_LID && to.dlid == 1 && mad[MPD_SMP_OFF_HOP_PTR] == 0,
	   "S1: the directed part is over, LID-routed on to DrSLID 1");
	ok(hca_switch_route_lid(&s1, to.dlid, true, &to) == HCA_FWD_PORT &&
	   to.port == 1, "through S1's LFT: port 1");

	/* directed to S1 (hop count 1), then LID-routed to LID 30 */
	smp_dr(mad, MPD_ATTR_NODE_INFO, 1, path, MPD_LID_PERMISSIVE, 30);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	ok(hca_switch_dr(&s1, mad, 2, MPD_LID_PERMISSIVE, &to) ==
	   HCA_FWD_LID && to.dlid == 30,
	   "the end of the directed part: LID-routed on to DrDLID 30");
	ok(mad[MPD_SMP_OFF_HOP_PTR] == 2 && mad[MPD_SMP_OFF_RET_PATH + 1] == 2,
	   "hop pointer 2, ReturnPath[1] = 2");
	/* LID 30 answers, LID-routed back to S1 with the pointer at 2 */
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET_RESP;
	mpd_put_be16(mad + MPD_MAD_OFF_STATUS, MPD_SMP_STATUS_D);
	ok(hca_switch_dr(&s1, mad, 7, SW_LID, &to) == HCA_FWD_PORT &&
	   to.port == 2 && mad[MPD_SMP_OFF_HOP_PTR] == 1,
	   "S1 sends the response out ReturnPath[1] = 2");
	hca_switch_fini(&s1);
	hca_switch_fini(&s2);
}

static void
test_dr_bad(void)
{
	static const uint8_t path[] = { 0, 1, 3, 4 };
	static const uint8_t bad_port[] = { 0, 1, 0, 4 };
	static const uint8_t past[] = { 0, 1, SW_PORTS + 1, 4 };
	struct hca_fwd_to to = { 0 };
	uint8_t mad[MPD_MAD_LEN];
	struct hca_switch sw;

	sw_init(&sw, SW_GUID, SW_LID);
	smp_dr(mad, MPD_ATTR_NODE_INFO, 3, path, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 5;
	is_int(hca_switch_dr(&sw, mad, 1, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_DROP, "hop pointer 5 past count 3 + 1: dropped");
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	mad[MPD_SMP_OFF_HOP_CNT] = 64;
	is_int(hca_switch_dr(&sw, mad, 1, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_DROP, "hop count 64: dropped (C14-6)");
	smp_dr(mad, MPD_ATTR_NODE_INFO, 3, bad_port, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	is_int(hca_switch_dr(&sw, mad, 1, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_DROP, "a path naming port 0: dropped");
	smp_dr(mad, MPD_ATTR_NODE_INFO, 3, past, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	is_int(hca_switch_dr(&sw, mad, 1, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_DROP, "a path naming port 21 of 20: dropped");
	smp_dr(mad, MPD_ATTR_NODE_INFO, 3, path, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	hca_switch_link(&sw, 3, false);
	is_int(hca_switch_dr(&sw, mad, 1, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_DROP, "out a port whose link is down: dropped");
	mpd_put_be16(mad + MPD_MAD_OFF_STATUS, MPD_SMP_STATUS_D);
	mad[MPD_SMP_OFF_HOP_PTR] = 0;
	mad[MPD_SMP_OFF_HOP_CNT] = 3;
	is_int(hca_switch_dr(&sw, mad, 1, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_LOCAL, "a response with pointer 0: the SM's on port 0");
	mad[MPD_MAD_OFF_CLASS] = MPD_CLASS_SUBN_LID;
	is_int(hca_switch_dr(&sw, mad, 1, MPD_LID_PERMISSIVE, &to),
	       HCA_FWD_DROP, "a LID-routed SMP is not the DR path's");
	hca_switch_fini(&sw);
}

/* The switch's M_Key is port 0's (IBA 14.2.4) */
static void
test_mkey(void)
{
	uint8_t mad[MPD_MAD_LEN];
	struct hca_switch sw;

	sw_init(&sw, SW_GUID, SW_LID);
	sw.port[0].mkey = 0x1234;
	sw.port[0].mkey_protect = 2;
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_LINEAR_FWD_TABLE, 0, NULL);
	is_int(sma(&sw, mad, 1), -1, "Set(LFT) without the M_Key: no answer");
	is_int(sw.port[0].cnt.mkey_violations, 1, "an M_Key violation");
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_LINEAR_FWD_TABLE, 0, NULL);
	mpd_put_be64(mad + MPD_SMP_OFF_MKEY, 0x1234);
	is_int(sma(&sw, mad, 1), 0, "with it: answered");
	is_int(sw.lft[5], 0, "and the block set (zeros)");
	hca_switch_fini(&sw);
}

/* ---- frames through hca_switch_rx() ---- */

#define FRAME_CAP	512

static uint16_t frame(uint8_t *buf, const uint8_t *mad, uint32_t qp,
		      uint16_t slid, uint16_t dlid);
static bool unframe(const uint8_t *buf, uint16_t len, struct mpd_pkt *pk,
		    uint8_t *mad);

/* Bad M_Key (IBA 14.2.4.2): no answer, Trap 256 to the master SM from a
 * switch that has a LID and an SM; before that, nothing */
static void
test_mkey_trap(void)
{
	uint8_t buf[FRAME_CAP], mad[MPD_MAD_LEN], out[SW_PORTS + 1];
	uint8_t notice[MPD_NOTICE_LEN];
	struct mpd_notice n;
	struct hca_switch sw;
	struct mpd_pkt pk;
	uint16_t len;

	sw_init(&sw, SW_GUID, SW_LID);
	sw.port[0].mkey = 0x1234;
	sw.port[0].mkey_protect = 2;
	sw.port[2].port_state = HCA_PORT_ACTIVE;
	sw.lft_top = 100;
	sw.lft[1] = 2;			/* the SM's LID, behind port 2 */
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_LINEAR_FWD_TABLE, 0, NULL);
	len = frame(buf, mad, 0, 7, SW_LID);
	ok(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 0,
	   "wrong M_Key before any SM: no answer, no trap");
	sw.port[0].sm_lid = 1;
	smp_lid(mad, MPD_METHOD_SET, MPD_ATTR_LINEAR_FWD_TABLE, 0, NULL);
	mpd_put_be64(mad + MPD_SMP_OFF_MKEY, 0x9999);
	len = frame(buf, mad, 0, 7, SW_LID);
	ok(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 2,
	   "wrong M_Key with an SM at LID 1: one frame, out of port 2 (the LFT's way to the SM)");
	ok(unframe(buf, len, &pk, mad) && pk.lrh.dlid == 1 &&
	   pk.lrh.slid == SW_LID && pk.lrh.vl == MPD_VL15 &&
	   mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_TRAP &&
	   mpd_get_be16(mad + MPD_MAD_OFF_ATTR_ID) == MPD_ATTR_NOTICE,
	   "a Trap(Notice) on VL15 from the switch's LID to the SM's");
	/* an SMP carries the Notice up to IssuerGID */
	memset(notice, 0, sizeof(notice));
	memcpy(notice, mad + MPD_SMP_DATA_OFF, MPD_NOTICE_SMP_LEN);
	memset(&n, 0, sizeof(n));
	mpd_layout_decode(&mpd_notice_layout, notice, sizeof(notice), &n);
	ok(n.is_generic && n.trap_number == 256 &&
	   n.producer_type == MPD_NODE_TYPE_SWITCH &&
	   n.issuer_lid == SW_LID &&
	   mpd_get_be16(n.data_details + 2) == 7 &&
	   n.data_details[6] == MPD_METHOD_SET &&
	   mpd_get_be16(n.data_details + 8) == MPD_ATTR_LINEAR_FWD_TABLE &&
	   mpd_get_be64(n.data_details + 14) == 0x9999,
	   "Notice 256 from a switch: requester LID 7, Set(LinearForwardingTable), the M_Key it tried");
	is_int(sw.port[0].cnt.mkey_violations, 2, "both counted as M_Key violations");
	hca_switch_fini(&sw);
}

static uint16_t frame_pkey = 0xffff;	/* BTH P_Key of frame()'s frames */

/* A UD frame of mad on link=ib: QP qp (VL15 for QP0) from slid to dlid */
static uint16_t
frame(uint8_t *buf, const uint8_t *mad, uint32_t qp, uint16_t slid,
      uint16_t dlid)
{
	struct mpd_pkt pk;
	int n;

	memset(&pk, 0, sizeof(pk));
	pk.link = MPD_LINK_IB;
	pk.lrh.vl = qp == 0 ? MPD_VL15 : 0;
	pk.lrh.dlid = dlid;
	pk.lrh.slid = slid;
	pk.bth.opcode = MPD_OP_UD_SEND_ONLY;
	pk.bth.pkey = frame_pkey;
	pk.bth.dest_qp = qp;
	pk.deth.qkey = qp == 1 ? MPD_QP1_QKEY : qp == 0 ? 0 : 0x1234;
	pk.deth.src_qp = qp;
	n = mpd_pkt_encode(&pk, mad, MPD_MAD_LEN, buf, FRAME_CAP);
	return n > 0 ? (uint16_t)n : 0;
}

/* The frame decodes (its ICRC and VCRC right): its MAD in mad */
static bool
unframe(const uint8_t *buf, uint16_t len, struct mpd_pkt *pk, uint8_t *mad)
{
	if (mpd_pkt_decode(MPD_LINK_IB, buf, len, 0, pk) != MPD_OK ||
	    pk->payload_len != MPD_MAD_LEN)
		return false;
	memcpy(mad, pk->payload, MPD_MAD_LEN);
	return true;
}

static void
test_rx(void)
{
	static const uint8_t path1[] = { 0, 1 }, path2[] = { 0, 1, 5 };
	uint8_t buf[FRAME_CAP], mad[MPD_MAD_LEN], out[SW_PORTS + 1];
	struct mpd_node_info ni;
	struct hca_switch sw;
	struct mpd_pkt pk;
	uint16_t len, *m;
	uint64_t errs;
	unsigned int i;

	sw_init(&sw, SW_GUID, SW_LID);
	/* a DR Get(NodeInfo) of one hop, as a CA sent it (pointer 1) */
	smp_dr(mad, MPD_ATTR_NODE_INFO, 1, path1, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(hca_switch_rx(&sw, 3, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 3,
	   "DR Get(NodeInfo) on port 3: answered back out of port 3");
	ok(unframe(buf, len, &pk, mad), "the response's ICRC and VCRC hold");
	ok(mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_GET_RESP &&
	   (mpd_get_be16(mad + MPD_MAD_OFF_STATUS) & MPD_SMP_STATUS_D) &&
	   mad[MPD_SMP_OFF_HOP_PTR] == 1 && pk.lrh.vl == MPD_VL15 &&
	   pk.lrh.dlid == MPD_LID_PERMISSIVE,
	   "GetResp, D set, pointer at the count (C14-13:1), VL15, DLID permissive");
	mpd_layout_decode(&mpd_node_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &ni);
	ok(ni.node_type == MPD_NODE_TYPE_SWITCH && ni.local_port_num == 3,
	   "NodeInfo: a switch, LocalPortNum 3");
	ok(sw.port[3].cnt.rcv_pkts == 1 && sw.port[3].cnt.xmit_pkts == 1 &&
	   sw.port[3].cnt.rcv_data == sw.port[3].cnt.xmit_data &&
	   sw.port[3].cnt.xmit_data > 0,
	   "port 3 counts one packet in and one out, and their words");

	/* on through the switch: the pointer moved, the return path noted */
	smp_dr(mad, MPD_ATTR_NODE_INFO, 2, path2, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 5,
	   "DR SMP of two hops on port 2: on out of port 5 (C14-9:2)");
	ok(unframe(buf, len, &pk, mad) && mad[MPD_SMP_OFF_HOP_PTR] == 2 &&
	   mad[MPD_SMP_OFF_RET_PATH + 1] == 2 &&
	   mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_GET,
	   "pointer 2, ReturnPath[1] 2, CRCs made again");

	/* IBA 14.2.2.3: LID-routed to the switch, directed from there */
	smp_dr(mad, MPD_ATTR_NODE_INFO, 1, path2, 9, MPD_LID_PERMISSIVE);
	len = frame(buf, mad, 0, 9, SW_LID);
	ok(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 1,
	   "DR SMP LID-routed to the switch (DrSLID 9): the directed part starts here, out of port 1");
	ok(unframe(buf, len, &pk, mad) && mad[MPD_SMP_OFF_HOP_PTR] == 1 &&
	   pk.lrh.dlid == MPD_LID_PERMISSIVE &&
	   pk.lrh.slid == MPD_LID_PERMISSIVE,
	   "pointer 1, and the directed part between permissive LIDs");
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET_RESP;
	mpd_put_be16(mad + MPD_MAD_OFF_STATUS, MPD_SMP_STATUS_D);
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	sw.lft_top = 100;
	sw.lft[9] = 2;
	ok(hca_switch_rx(&sw, 1, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 2 &&
	   unframe(buf, len, &pk, mad) && pk.lrh.dlid == 9 &&
	   pk.lrh.slid == SW_LID && mad[MPD_SMP_OFF_HOP_PTR] == 0,
	   "its response (C14-13:3): LID-routed back to DrSLID 9 from the switch's LID");

	/* data through the LFT: only between Active ports */
	sw.lft[20] = 7;
	memset(mad, 0xab, sizeof(mad));
	len = frame(buf, mad, 5, 9, 20);
	is_int(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			     sizeof(out)), 0,
	       "data in on a port not Active: dropped (IBA 7.2)");
	for (i = 1; i <= SW_PORTS; i++)
		sw.port[i].port_state = HCA_PORT_ACTIVE;
	ok(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 7,
	   "data for LID 20: out of port 7, as the LFT says");
	ok(unframe(buf, len, &pk, mad) && mad[0] == 0xab,
	   "the frame is left as it came");
	len = frame(buf, mad, 5, 9, 21);
	ok(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 0 &&
	   sw.port[2].cnt.rcv_switch_relay_errors == 1,
	   "no route for LID 21: dropped, PortRcvSwitchRelayErrors");
	len = frame(buf, mad, 5, 9, 20);
	buf[len / 2] ^= 1;
	errs = sw.port[2].cnt.rcv_errors;
	ok(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 0 && sw.port[2].cnt.rcv_errors == errs + 1,
	   "a bad CRC: dropped, PortRcvErrors");
	/* a cable inside the process: its frames' CRCs are not checked
	 * again (the launcher's switches and served CAs, crc_ours) */
	len = frame(buf, mad, 5, 9, 20);
	buf[len - 1] ^= 1;			/* the VCRC */
	sw.port[2].crc_ours = true;
	ok(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 7 &&
	   sw.port[2].cnt.rcv_errors == errs + 1,
	   "crc_ours: the CRCs are not checked again, the frame goes on");
	sw.port[2].crc_ours = false;

	/* multicast: MLID 0xC001 on ports 0, 2, 7, 17 */
	m = &sw.mft[1 * sw.mft_positions];
	m[0] = 1u << 0 | 1u << 2 | 1u << 7;
	m[1] = 1u << (17 - 16);
	len = frame(buf, mad, 0xffffff, 9, 0xc001);
	ok(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 2 && out[0] == 7 && out[1] == 17 &&
	   sw.port[7].cnt.multicast_xmit_pkts == 1,
	   "MLID 0xC001 from port 2: to ports 7 and 17, none to port 0");

	/* the PMA of the port PortSelect names, LID-routed back */
	memset(mad, 0, sizeof(mad));
	mad[MPD_MAD_OFF_BASE_VER] = MPD_BASE_VERSION;
	mad[MPD_MAD_OFF_CLASS] = MPD_CLASS_PERF;
	mad[MPD_MAD_OFF_CLASS_VER] = MPD_PERF_CLASS_VERSION;
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET;
	mpd_put_be16(mad + MPD_MAD_OFF_ATTR_ID, MPD_ATTR_PERF_PORT_COUNTERS);
	mad[MPD_PERF_DATA_OFF + 1] = 7;
	len = frame(buf, mad, 1, 9, SW_LID);
	ok(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 2,
	   "PortCounters for port 7 to the switch's LID: answered, out of port 2 to LID 9");
	ok(unframe(buf, len, &pk, mad) && pk.lrh.dlid == 9 &&
	   pk.lrh.slid == SW_LID && mad[MPD_MAD_OFF_METHOD] ==
	   MPD_METHOD_GET_RESP && mad[MPD_PERF_DATA_OFF + 1] == 7,
	   "GetResp from the switch's LID, PortSelect 7");

	/* trap 128 to the SM at LID 9 once port 0 is Active */
	is_int(hca_switch_trap_link(&sw, buf, sizeof(buf), &len, out), 0,
	       "no trap while port 0 is not Active (no SM has set it up)");
	sw.port[0].sm_lid = 9;
	sw.port[0].port_state = HCA_PORT_ACTIVE;
	ok(hca_switch_trap_link(&sw, buf, sizeof(buf), &len, out) == 1 &&
	   out[0] == 2, "trap 128: out of port 2, toward the SM's LID 9");
	if (unframe(buf, len, &pk, mad)) {
		uint8_t notice[MPD_NOTICE_LEN] = { 0 };
		struct mpd_notice n;

		/* the SMP carries the Notice up to IssuerGID */
		memcpy(notice, mad + MPD_SMP_DATA_OFF, MPD_NOTICE_SMP_LEN);
		mpd_layout_decode(&mpd_notice_layout, notice, sizeof(notice),
				  &n);
		ok(pk.lrh.dlid == 9 && pk.lrh.slid == SW_LID &&
		   pk.lrh.vl == MPD_VL15 &&
		   mad[MPD_MAD_OFF_CLASS] == MPD_CLASS_SUBN_LID &&
		   mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_TRAP &&
		   mpd_get_be16(mad + MPD_MAD_OFF_ATTR_ID) == MPD_ATTR_NOTICE,
		   "a LID-routed Trap(Notice) on VL15 from the switch's LID");
		ok(n.is_generic && n.type == 1 &&
		   n.producer_type == MPD_NODE_TYPE_SWITCH &&
		   n.trap_number == 128 && n.issuer_lid == SW_LID &&
		   mpd_get_be16(n.data_details) == SW_LID,
		   "generic, urgent, from a switch, number 128, the switch's LID in its details");
	} else {
		ok(false, "the trap's frame decodes");
	}
	hca_switch_fini(&sw);
}

/*
 * A CA that no client opens (hca_ca_rx()), one hop behind a switch: a DR
 * SMP the switch passes on is answered, the answer finds its way back
 * through the switch; a Get that no agent serves gets 0x000C at once;
 * anything reaching a port whose link is not up is noise.
 */
static void
test_served_ca(void)
{
	static const uint8_t path[] = { 0, 1, 7 };
	uint8_t buf[FRAME_CAP], mad[MPD_MAD_LEN], out[SW_PORTS + 1];
	struct mpd_node_info ni;
	struct hca_switch sw;
	struct hca_port ca;
	struct mpd_pkt pk;
	uint16_t len;

	sw_init(&sw, SW_GUID, SW_LID);
	hca_port_defaults(&ca, "served");
	ca.node_guid = 0x6d616400000bb000ull;
	ca.port_guid = ca.node_guid + 1;
	ca.sys_guid = ca.node_guid;
	hca_sma_init(&ca);
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(!hca_ca_rx(&ca, buf, &len, sizeof(buf), 0) &&
	   ca.cnt.rcv_local_phys_errors == 1,
	   "served CA, link not up: the frame is noise, counted");
	ca.phys_state = HCA_PHYS_LINKUP;
	ca.port_state = HCA_PORT_INIT;

	/* the SM's CA on switch port 2, the served CA on port 7 */
	smp_dr(mad, MPD_ATTR_NODE_INFO, 2, path, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(hca_switch_rx(&sw, 2, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 7,
	   "DR Get(NodeInfo) 0,1,7: the switch sends it out of port 7");
	ok(hca_ca_rx(&ca, buf, &len, sizeof(buf), 0),
	   "the served CA answers it");
	ok(unframe(buf, len, &pk, mad) &&
	   mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_GET_RESP &&
	   mad[MPD_SMP_OFF_HOP_PTR] == 2 && pk.lrh.vl == MPD_VL15,
	   "GetResp with good CRCs, pointer at the count (C14-13:1), VL15");
	mpd_layout_decode(&mpd_node_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &ni);
	ok(ni.node_type == MPD_NODE_TYPE_CA && ni.node_guid == ca.node_guid &&
	   ni.local_port_num == 1,
	   "NodeInfo: a CA, its own NodeGUID, LocalPortNum 1");
	ok(hca_switch_rx(&sw, 7, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 2,
	   "the switch takes the answer back out of port 2 (C14-13:2)");
	ok(ca.cnt.rcv_pkts == 1 && ca.cnt.xmit_pkts == 1,
	   "the served CA counts one packet in, one out");

	/* a Get of a class nobody serves here (Baseboard Management) */
	memset(mad, 0, sizeof(mad));
	mad[MPD_MAD_OFF_BASE_VER] = MPD_BASE_VERSION;
	mad[MPD_MAD_OFF_CLASS] = MPD_CLASS_BM;
	mad[MPD_MAD_OFF_CLASS_VER] = 1;
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET;
	len = frame(buf, mad, 1, 3, MPD_LID_PERMISSIVE);
	ok(hca_ca_rx(&ca, buf, &len, sizeof(buf), 0) &&
	   unframe(buf, len, &pk, mad) &&
	   mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_GET_RESP &&
	   mpd_get_be16(mad + MPD_MAD_OFF_STATUS) ==
	   MPD_STATUS_METHOD_ATTR_UNSUP && pk.bth.dest_qp == 1 &&
	   pk.lrh.dlid == 3 && ca.cnt.mad_unmatched == 1,
	   "a Get nobody serves: GetResp status 0x000C at once, to its sender");
	/* a response nobody waits for: dropped, counted */
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET_RESP;
	len = frame(buf, mad, 1, 3, MPD_LID_PERMISSIVE);
	ok(!hca_ca_rx(&ca, buf, &len, sizeof(buf), 0) &&
	   ca.cnt.drop_no_agent == 1,
	   "a response nobody waits for: dropped and counted");
	/* data for a QP above 1: no QP lives on a served CA */
	len = frame(buf, mad, 0x12, 3, MPD_LID_PERMISSIVE);
	ok(!hca_ca_rx(&ca, buf, &len, sizeof(buf), 0) &&
	   ca.cnt.qp_no_qp + ca.cnt.drop_bad_dlid + ca.cnt.qkey_violations > 0,
	   "data for QP 0x12: dropped and counted");
	/* garbage */
	memset(buf, 0xa5, 64);
	len = 64;
	ok(!hca_ca_rx(&ca, buf, &len, sizeof(buf), 0) && ca.cnt.rcv_errors > 1,
	   "64 bytes of garbage: dropped, a receive error");
	hca_switch_fini(&sw);
}

/* Partition enforcement on external ports, as the SM sets it in
 * PortInfo: P_Keys the port's table lacks are dropped on the way in or
 * out and counted as constraint errors; SMPs pass whatever their P_Key. */
static void
test_pkey_enforce(void)
{
	static const uint8_t path1[] = { 0, 1 };
	uint8_t buf[FRAME_CAP], mad[MPD_MAD_LEN], out[SW_PORTS + 1];
	struct mpd_port_info pi, got;
	struct hca_switch sw;
	uint16_t len;

	sw_init(&sw, SW_GUID, SW_LID);
	sw.port[3].port_state = HCA_PORT_ACTIVE;
	sw.port[5].port_state = HCA_PORT_ACTIVE;
	sw.lft_top = 100;
	sw.lft[20] = 5;
	memset(mad, 0, sizeof(mad));
	frame_pkey = 0x8001;
	len = frame(buf, mad, 2, 9, 20);
	ok(hca_switch_rx(&sw, 3, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 5,
	   "no enforcement: P_Key 0x8001 goes from port 3 out of port 5");

	memset(&pi, 0, sizeof(pi));
	pi.partition_enforcement_inbound = 1;
	is_int(port_info_set(&sw, 3, &pi, &got), 0,
	       "Set(PortInfo) of port 3: PartitionEnforcementInbound");
	ok(got.partition_enforcement_inbound == 1 &&
	   got.partition_enforcement_outbound == 0,
	   "the answer shows inbound enforcement on, outbound off");
	len = frame(buf, mad, 2, 9, 20);
	ok(hca_switch_rx(&sw, 3, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 0 &&
	   sw.port[3].cnt.rcv_constraint_errors == 1 &&
	   sw.port[3].cnt.rcv_switch_relay_errors == 0,
	   "P_Key 0x8001, not in port 3's table (0xffff): dropped, PortRcvConstraintErrors 1, no relay error");
	frame_pkey = 0xffff;
	len = frame(buf, mad, 2, 9, 20);
	ok(hca_switch_rx(&sw, 3, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 5,
	   "P_Key 0xffff, in the table: forwarded");
	/* IBA 10.9: SMPs are not subject to partition enforcement */
	frame_pkey = 0x8001;
	smp_dr(mad, MPD_ATTR_NODE_INFO, 1, path1, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(hca_switch_rx(&sw, 3, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 3,
	   "a DR SMP with P_Key 0x8001 on the enforcing port: answered");

	memset(&pi, 0, sizeof(pi));
	pi.partition_enforcement_outbound = 1;
	is_int(port_info_set(&sw, 5, &pi, &got), 0,
	       "Set(PortInfo) of port 5: PartitionEnforcementOutbound");
	port_info_set(&sw, 3, &(struct mpd_port_info){ 0 }, &got);
	sw.port[5].pkeys[0] = 0x8001;
	memset(mad, 0, sizeof(mad));
	frame_pkey = 0xffff;
	len = frame(buf, mad, 2, 9, 20);
	ok(hca_switch_rx(&sw, 3, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 0 &&
	   sw.port[5].cnt.xmit_constraint_errors == 1 &&
	   sw.port[3].cnt.rcv_switch_relay_errors == 0,
	   "P_Key 0xffff out of port 5 (table 0x8001): dropped, PortXmitConstraintErrors 1");
	frame_pkey = 0x0001;
	len = frame(buf, mad, 2, 9, 20);
	ok(hca_switch_rx(&sw, 3, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 5,
	   "P_Key 0x0001 (limited) out of port 5 (0x8001, full): the partition matches, forwarded");
	frame_pkey = 0x0002;
	len = frame(buf, mad, 2, 9, 20);
	ok(hca_switch_rx(&sw, 3, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 0 &&
	   sw.port[5].cnt.xmit_constraint_errors == 2,
	   "P_Key 0x0002, another partition: dropped, counted");
	frame_pkey = 0xffff;
	hca_switch_fini(&sw);
}

/* A port disabled (by Set(PortInfo) or the fabric) stays down until
 * enabled (PortPhysicalState Polling), then trains again */
static void
test_disable(void)
{
	struct mpd_port_info pi, got;
	struct hca_switch sw;
	uint64_t downed;

	sw_init(&sw, SW_GUID, SW_LID);
	downed = sw.port[7].cnt.link_downed;
	memset(&pi, 0, sizeof(pi));
	pi.port_phys_state = HCA_PHYS_DISABLED;
	is_int(port_info_set(&sw, 7, &pi, &got), 0,
	       "Set(PortInfo) of port 7: PortPhysicalState Disabled");
	ok(got.port_phys_state == HCA_PHYS_DISABLED &&
	   got.port_state == HCA_PORT_DOWN &&
	   sw.port[7].cnt.link_downed == downed + 1,
	   "port 7: Disabled, Down, LinkDownedCounter + 1");
	hca_switch_link(&sw, 7, true);
	ok(sw.port[7].port_state == HCA_PORT_DOWN &&
	   sw.port[7].phys_state == HCA_PHYS_DISABLED,
	   "a disabled port does not train when its peer is there");
	pi.port_phys_state = HCA_PHYS_DISABLED;
	port_info_set(&sw, 7, &pi, &got);
	ok(sw.port[7].cnt.link_downed == downed + 1,
	   "disabled twice: counted once");
	pi.port_phys_state = HCA_PHYS_POLLING;
	is_int(port_info_set(&sw, 7, &pi, &got), 0,
	       "Set(PortInfo) of port 7: PortPhysicalState Polling (enable)");
	ok(got.port_phys_state == HCA_PHYS_POLLING &&
	   got.port_state == HCA_PORT_DOWN, "port 7: Polling, still Down");
	hca_switch_link(&sw, 7, true);
	ok(sw.port[7].port_state == HCA_PORT_INIT &&
	   sw.port[7].phys_state == HCA_PHYS_LINKUP,
	   "then it trains: Init, LinkUp");
	sw.port_state_change = 0;
	hca_switch_disable(&sw, 7, true);
	ok(sw.port[7].phys_state == HCA_PHYS_DISABLED &&
	   sw.port[7].port_state == HCA_PORT_DOWN && sw.port_state_change,
	   "hca_switch_disable(): Disabled, Down, PortStateChange set");
	hca_switch_disable(&sw, 7, false);
	ok(sw.port[7].phys_state == HCA_PHYS_POLLING &&
	   sw.port[7].port_state == HCA_PORT_DOWN,
	   "and enabled: Polling until its link trains");
	hca_switch_fini(&sw);
}

/* Clients on port 0 (an SM there): what they send, what comes for them */
static bool
claims_sminfo(void *arg, const uint8_t *mad)
{
	(void)arg;
	return mpd_mad_attr_id(mad) == MPD_ATTR_SM_INFO;
}

static void
test_port0(void)
{
	static const uint8_t path0[] = { 0 }, path5[] = { 0, 5 },
			     path3[] = { 0, 3 };
	static const struct hca_switch_port0 p0c = { claims_sminfo, NULL };
	uint8_t buf[FRAME_CAP], mad[MPD_MAD_LEN], out[SW_PORTS + 1];
	struct mpd_node_info ni;
	struct hca_switch sw;
	struct mpd_pkt pk;
	uint16_t len;

	sw_init(&sw, SW_GUID, SW_LID);
	sw.port[4].port_state = HCA_PORT_ACTIVE;
	sw.port[7].port_state = HCA_PORT_ACTIVE;
	sw.lft[20] = 7;
	sw.lft[SW_LID] = 0;
	sw.lft_top = 100;

	/* nobody on port 0: a response for it is dropped, and nothing
	 * comes from it */
	smp_dr(mad, MPD_ATTR_NODE_INFO, 1, path5, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET_RESP;
	mpd_put_be16(mad + MPD_MAD_OFF_STATUS, MPD_SMP_STATUS_D);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(hca_switch_rx(&sw, 5, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 0,
	   "no client on port 0: a DR response back at the start is dropped");
	smp_dr(mad, MPD_ATTR_NODE_INFO, 0, path0, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(hca_switch_from_port0(&sw, buf, &len, sizeof(buf), 0, out,
				 sizeof(out)) == 0,
	   "no client on port 0: nothing is taken from it");

	sw.p0c = &p0c;
	/* hop count 0 from port 0: the switch's own SMA, back to port 0 */
	ok(hca_switch_from_port0(&sw, buf, &len, sizeof(buf), 0, out,
				 sizeof(out)) == 1 && out[0] == 0,
	   "DR Get(NodeInfo), hop count 0, from port 0: answered to port 0");
	ok(unframe(buf, len, &pk, mad) &&
	   mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_GET_RESP &&
	   (mpd_get_be16(mad + MPD_MAD_OFF_STATUS) & MPD_SMP_STATUS_D) &&
	   mad[MPD_SMP_OFF_HOP_PTR] == 0,
	   "the GetResp: D set, the pointer back at 0 (C14-13:3)");
	mpd_layout_decode(&mpd_node_info_layout, mad + MPD_SMP_DATA_OFF,
			  MPD_SMP_DATA_LEN, &ni);
	ok(ni.node_type == MPD_NODE_TYPE_SWITCH && ni.local_port_num == 0,
	   "NodeInfo: a switch, LocalPortNum 0");

	/* a path from port 0: out of its first hop (C14-9:1) */
	smp_dr(mad, MPD_ATTR_NODE_INFO, 1, path5, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(hca_switch_from_port0(&sw, buf, &len, sizeof(buf), 0, out,
				 sizeof(out)) == 1 && out[0] == 5 &&
	   unframe(buf, len, &pk, mad) && mad[MPD_SMP_OFF_HOP_PTR] == 1,
	   "DR Get along 0,5 from port 0: out of port 5, pointer 1 (C14-9:1)");
	/* its response, as the end port sends it back (pointer at the
	 * count): to port 0 (C14-13:3) */
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET_RESP;
	mpd_put_be16(mad + MPD_MAD_OFF_STATUS, MPD_SMP_STATUS_D);
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(hca_switch_rx(&sw, 5, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 0 &&
	   unframe(buf, len, &pk, mad) && mad[MPD_SMP_OFF_HOP_PTR] == 0,
	   "its response on port 5: to port 0's client, pointer 0");

	/* SMInfo is the SM's; NodeInfo the SMA's */
	smp_dr(mad, MPD_ATTR_SM_INFO, 1, path3, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(hca_switch_rx(&sw, 3, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 0 &&
	   unframe(buf, len, &pk, mad) &&
	   mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_GET,
	   "DR Get(SMInfo) from port 3: to the SM on port 0, unanswered");
	/* the SM's response from port 0 goes back the way it came
	 * (C14-13:1): pointer at count + 1 as delivered */
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET_RESP;
	mpd_put_be16(mad + MPD_MAD_OFF_STATUS, MPD_SMP_STATUS_D);
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(hca_switch_from_port0(&sw, buf, &len, sizeof(buf), 0, out,
				 sizeof(out)) == 1 && out[0] == 3,
	   "the SM's DR GetResp from port 0: out of port 3 (C14-13:1)");
	smp_dr(mad, MPD_ATTR_NODE_INFO, 1, path3, MPD_LID_PERMISSIVE,
	       MPD_LID_PERMISSIVE);
	mad[MPD_SMP_OFF_HOP_PTR] = 1;
	len = frame(buf, mad, 0, MPD_LID_PERMISSIVE, MPD_LID_PERMISSIVE);
	ok(hca_switch_rx(&sw, 3, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 3,
	   "DR Get(NodeInfo) from port 3: still the SMA's, back out of 3");

	/* the SA's class to the switch's LID: port 0's */
	smp_lid(mad, MPD_METHOD_GET, 0x0011, 0, NULL);
	mad[MPD_MAD_OFF_CLASS] = MPD_CLASS_SUBN_ADM;
	mad[MPD_MAD_OFF_CLASS_VER] = 2;
	len = frame(buf, mad, 1, 20, SW_LID);
	ok(hca_switch_rx(&sw, 4, buf, &len, sizeof(buf), 0, out,
			 sizeof(out)) == 1 && out[0] == 0,
	   "an SA Get on QP1 to the switch's LID: to port 0's client");
	/* a GMP from port 0 to LID 20: the LFT's port */
	len = frame(buf, mad, 1, SW_LID, 20);
	ok(hca_switch_from_port0(&sw, buf, &len, sizeof(buf), 0, out,
				 sizeof(out)) == 1 && out[0] == 7,
	   "a GMP from port 0 to LID 20: out of port 7, as the LFT says");
	/* a LID-routed Get(NodeInfo) from port 0 to its own LID: the SMA,
	 * whose answer comes back to port 0 */
	smp_lid(mad, MPD_METHOD_GET, MPD_ATTR_NODE_INFO, 0, NULL);
	len = frame(buf, mad, 0, SW_LID, SW_LID);
	ok(hca_switch_from_port0(&sw, buf, &len, sizeof(buf), 0, out,
				 sizeof(out)) == 1 && out[0] == 0 &&
	   unframe(buf, len, &pk, mad) &&
	   mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_GET_RESP,
	   "LID-routed Get(NodeInfo) from port 0 to its own LID: the SMA answers to port 0");
	/* the switch's trap to an SM on itself */
	sw.port[0].sm_lid = SW_LID;
	sw.port[0].port_state = HCA_PORT_ACTIVE;
	ok(hca_switch_trap_link(&sw, buf, sizeof(buf), &len, out) == 1 &&
	   out[0] == 0,
	   "trap 128 to an SM on the switch itself: to port 0");
	/* trap 144 when port 0's CapabilityMask moves (a standby SM there
	 * took the ISSM), to a master elsewhere, once */
	sw.port[0].sm_lid = 20;
	sw.port[0].cap_told = sw.port[0].cap_mask;
	ok(hca_switch_trap_cap(&sw, buf, sizeof(buf), &len, out) == 0,
	   "CapabilityMask unchanged: no trap 144");
	sw.port[0].cap_mask |= MPD_PORT_CAP_IS_SM;
	ok(hca_switch_trap_cap(&sw, buf, sizeof(buf), &len, out) == 1 &&
	   out[0] == 7 && unframe(buf, len, &pk, mad) &&
	   mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_TRAP &&
	   pk.lrh.dlid == 20 && pk.lrh.slid == SW_LID &&
	   mad[MPD_SMP_DATA_OFF + 3] == MPD_NODE_TYPE_SWITCH &&
	   mpd_get_be16(mad + MPD_SMP_DATA_OFF + 4) == 144,
	   "IsSM set on port 0: trap 144 from a switch, to the SM's LID by the LFT");
	ok(hca_switch_trap_cap(&sw, buf, sizeof(buf), &len, out) == 0,
	   "told once: no second trap 144");
	hca_switch_fini(&sw);
}

int
main(void)
{
	struct hca_switch sw;

	tap_seed();
	is_int(hca_switch_init(&sw, 0, SW_GUID, "sw", 64, 32), EINVAL,
	       "a switch of 0 ports: EINVAL");
	is_int(hca_switch_init(&sw, 255, SW_GUID, "sw", 64, 32), EINVAL,
	       "255 ports (255 is the LFT's \"none\"): EINVAL");
	test_node_info();
	test_switch_info();
	test_port_info();
	test_tables();
	test_route();
	test_dr_three_hops();
	test_dr_to_switch();
	test_dr_mixed();
	test_dr_bad();
	test_mkey();
	test_rx();
	test_pkey_enforce();
	test_disable();
	test_mkey_trap();
	test_served_ca();
	test_port0();
	return tap_done();
}
