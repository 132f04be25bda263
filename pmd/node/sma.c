/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port's Subnet Management Agent (IBA 14.2): SMPs on QP0, LID-routed
 * and directed route, with M_Key checking. The MAD is answered in place.
 */
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "node.h"

#define HCA_VENDOR_ID	0x6d6164	/* matches the default GUID prefix */
#define HCA_DEVICE_ID	0x4d50
#define HCA_REVISION	1

/* PortInfo:CapabilityMask bits a CA port offers (IBA 14.2.5.6) */
#define HCA_CAP_MASK	(MPD_PORT_CAP_IS_TRAP |				\
			 MPD_PORT_CAP_IS_SYS_IMAGE_GUID | MPD_PORT_CAP_IS_CM |	\
			 MPD_PORT_CAP_IS_VENDOR_CLASS |				\
			 MPD_PORT_CAP_IS_CLIENT_REREG)

void
hca_sma_port_info_get(const struct hca_port *p, struct mpd_port_info *pi,
		      bool hide_mkey)
{
	memset(pi, 0, sizeof(*pi));
	pi->m_key = hide_mkey ? 0 : p->mkey;
	pi->gid_prefix = p->gid_prefix;
	pi->lid = p->lid;
	pi->master_sm_lid = p->sm_lid;
	pi->capability_mask = hca_sma_cap_mask(p);
	pi->m_key_lease_period = p->mkey_lease;
	pi->local_port_num = p->port_num;
	pi->link_width_enabled = p->link_width_enabled;
	pi->link_width_supported = p->link_width_supported;
	pi->link_width_active = p->link_width_active;
	pi->link_speed_supported = p->link_speed_supported;
	pi->port_state = p->port_state;
	pi->port_phys_state = p->phys_state;
	pi->link_down_default_state = HCA_PHYS_POLLING;
	pi->m_key_protect_bits = p->mkey_protect;
	pi->lmc = p->lmc;
	pi->link_speed_active = p->link_speed_active;
	pi->link_speed_enabled = p->link_speed_enabled;
	pi->neighbor_mtu = p->neighbor_mtu;
	pi->master_sm_sl = p->sm_sl;
	pi->vl_cap = p->vl_cap;
	pi->init_type = 0;
	pi->vl_high_limit = p->vl_high_limit;
	pi->vl_arb_high_cap = 8;
	pi->vl_arb_low_cap = 8;
	pi->mtu_cap = p->mtu_cap;
	pi->vl_stall_count = 7;
	pi->hoq_life = p->hoq_life;
	pi->operational_vls = p->op_vls;
	pi->partition_enforcement_inbound = 1;
	pi->m_key_violations = (uint16_t)hca_sat(p->cnt.mkey_violations, 16);
	pi->p_key_violations = (uint16_t)hca_sat(p->cnt.pkey_violations, 16);
	pi->q_key_violations = (uint16_t)hca_sat(p->cnt.qkey_violations, 16);
	pi->guid_cap = 1;
	pi->subnet_timeout = p->subnet_timeout;
	pi->resp_time_value = p->resp_time;
	pi->local_phy_errors = 15;
	pi->overrun_errors = 15;
}

/*
 * The link part of Set(PortInfo), IBA 14.2.5.6, that every port with a
 * link has (a CA port, a switch's ports): the PortState moves Armed only
 * from Init, Active only from Armed, never to Init; PortPhysicalState
 * takes Polling or Disabled; NeighborMTU and OperationalVLs within the
 * port's caps. Returns 0 or "invalid field".
 */
uint16_t
hca_sma_link_check(const struct hca_port *p, const struct mpd_port_info *pi)
{
	uint8_t st = pi->port_state, cur = p->port_state;

	if (st == HCA_PORT_INIT || st > HCA_PORT_ACTIVE ||
	    (st == HCA_PORT_ARMED && cur != HCA_PORT_INIT &&
	     cur != HCA_PORT_ARMED) ||
	    (st == HCA_PORT_ACTIVE && cur != HCA_PORT_ARMED &&
	     cur != HCA_PORT_ACTIVE))
		return MPD_STATUS_INVALID_FIELD;
	if (pi->port_phys_state != 0 &&
	    pi->port_phys_state != HCA_PHYS_POLLING &&
	    pi->port_phys_state != HCA_PHYS_DISABLED)
		return MPD_STATUS_INVALID_FIELD;
	if (pi->neighbor_mtu > p->mtu_cap || (pi->operational_vls &&
					      pi->operational_vls > p->vl_cap))
		return MPD_STATUS_INVALID_FIELD;
	return 0;
}

/* Apply what hca_sma_link_check() accepted. */
void
hca_sma_link_set(struct hca_port *p, const struct mpd_port_info *pi)
{
	uint8_t st = pi->port_state;

	p->vl_high_limit = pi->vl_high_limit;
	p->hoq_life = pi->hoq_life;
	if (pi->neighbor_mtu)
		p->neighbor_mtu = pi->neighbor_mtu;
	if (pi->operational_vls)
		p->op_vls = pi->operational_vls;
	/* IBA 14.2.5.6: 255 / 15 mean "set to supported", 0 "no change" */
	if (pi->link_width_enabled == 0xff)
		p->link_width_enabled = p->link_width_supported;
	else if (pi->link_width_enabled)
		p->link_width_enabled = pi->link_width_enabled &
					p->link_width_supported;
	if (pi->link_speed_enabled == 15)
		p->link_speed_enabled = p->link_speed_supported;
	else if (pi->link_speed_enabled)
		p->link_speed_enabled = pi->link_speed_enabled &
					p->link_speed_supported;

	if (st == HCA_PORT_DOWN) {
		/* the link goes down and trains again: back in Init */
		p->cnt.link_downed++;
		p->port_state = HCA_PORT_INIT;
	} else if (st) {
		p->port_state = st;
	}
	/* Polling enables a disabled port again: its link trains when it
	 * has a partner (a switch port: the fabric sees to it) */
	if (pi->port_phys_state == HCA_PHYS_DISABLED)
		hca_port_disable(p, true);
	else if (pi->port_phys_state == HCA_PHYS_POLLING)
		hca_port_disable(p, false);
}

/* The management part of Set(PortInfo): a CA port's, a switch's port 0. */
static void
mgmt_set(struct hca_port *p, const struct mpd_port_info *pi)
{
	p->mkey = pi->m_key;
	p->gid_prefix = pi->gid_prefix;
	p->lid = pi->lid;
	p->sm_lid = pi->master_sm_lid;
	p->mkey_lease = pi->m_key_lease_period;
	p->mkey_protect = pi->m_key_protect_bits;
	p->lmc = pi->lmc;
	p->sm_sl = pi->master_sm_sl;
	p->subnet_timeout = pi->subnet_timeout;
}

/*
 * Set(PortInfo), IBA 14.2.5.6: validate everything first, apply nothing
 * on error (the response then carries status "invalid field").
 */
uint16_t
hca_sma_port_info_set(struct hca_port *p, const struct mpd_port_info *pi)
{
	uint16_t st = hca_sma_link_check(p, pi);

	if (st)
		return st;
	/* the LID must be unicast (IBA 7.11.1) */
	if (pi->lid == MPD_LID_PERMISSIVE || pi->lid >= MPD_LID_MCAST_LO)
		return MPD_STATUS_INVALID_FIELD;
	mgmt_set(p, pi);
	hca_sma_link_set(p, pi);
	return 0;
}

/*
 * M_Key check (IBA 14.2.4.1-2): with a non-zero M_Key, Set and
 * TrapRepress need the key; Get needs it from protect level 2 up, and at
 * level 1 is answered with the M_Key hidden. A lapsed lease (14.2.4.3)
 * drops the protection.
 */
bool
hca_sma_mkey_ok(struct hca_port *p, const struct mpd_mad *m, uint64_t now_ns,
		bool *hide)
{
	bool get = m->hdr.method == MPD_METHOD_GET;

	*hide = false;
	if (p->mkey == 0 || m->mkey == p->mkey) {
		p->mkey_lease_running = 0;
		return true;
	}
	if (p->mkey_lease_running && now_ns >= p->mkey_lease_deadline) {
		p->mkey_protect = 0;
		p->mkey_lease_running = 0;
	}
	if (get && p->mkey_protect <= 1) {
		*hide = p->mkey_protect == 1;
		return true;
	}
	p->cnt.mkey_violations++;
	if (p->mkey_lease && !p->mkey_lease_running) {
		p->mkey_lease_running = 1;
		p->mkey_lease_deadline = now_ns + p->mkey_lease *
						   1000000000ull;
	}
	return false;
}

/* How many data VLs an OperationalVLs/VLCap code enables (IBA 14.2.5.6:
 * 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14). */
static unsigned int
data_vls(uint8_t code)
{
	if (code == 0 || code > 5)
		return 0;
	return code == 5 ? 15 : 1u << (code - 1);
}

/* One block of 32 P_Keys (IBA 14.2.5.7): the port's whole table. */
void
hca_sma_pkey_block(struct hca_port *p, bool set, uint8_t *data)
{
	struct mpd_pkey_table t;

	if (set) {
		mpd_layout_decode(&mpd_pkey_table_layout, data, 64, &t);
		memcpy(p->pkeys, t.p_key, sizeof(p->pkeys));
	}
	memcpy(t.p_key, p->pkeys, sizeof(t.p_key));
	mpd_layout_encode(&mpd_pkey_table_layout, &t, data, 64);
}

/* IBA 14.2.5.8: SL2VL entries name data VLs below OperationalVLs' count,
 * or VL15; a Set with any other is "invalid field" and changes nothing. */
uint16_t
hca_sma_sl2vl(struct hca_port *p, bool set, uint8_t *data)
{
	struct mpd_sl2vl_table t;
	unsigned int i;

	if (set) {
		mpd_layout_decode(&mpd_sl2vl_table_layout, data, 64, &t);
		for (i = 0; i < 16; i++)
			if (t.vl[i] >= data_vls(p->op_vls) &&
			    t.vl[i] != MPD_VL15)
				return MPD_STATUS_INVALID_FIELD;
		memcpy(p->sl2vl, t.vl, sizeof(p->sl2vl));
	}
	memset(data, 0, 64);
	memcpy(t.vl, p->sl2vl, sizeof(t.vl));
	mpd_layout_encode(&mpd_sl2vl_table_layout, &t, data, 64);
	return 0;
}

/* VLArbitrationTable block blk (IBA 14.2.5.9: 1, 2 low; 3, 4 high),
 * kept as the wire has it. */
uint16_t
hca_sma_vl_arb(struct hca_port *p, uint32_t blk, bool set, uint8_t *data)
{
	if (blk < 1 || blk > 4)
		return MPD_STATUS_INVALID_FIELD;
	if (set)
		memcpy(p->vl_arb[blk - 1], data, 64);
	memcpy(data, p->vl_arb[blk - 1], 64);
	return 0;
}

/* Returns the MAD status for the attribute; fills data (64 bytes). */
static uint16_t
sma_attr(struct hca_port *p, const struct mpd_mad *m, uint8_t *data,
	 bool hide_mkey)
{
	bool set = m->hdr.method == MPD_METHOD_SET;
	uint32_t mod = m->hdr.attr_mod;
	uint16_t st = 0;

	switch (m->hdr.attr_id) {
	case MPD_ATTR_NODE_INFO:
		if (set)
			return MPD_STATUS_METHOD_ATTR_UNSUP;
		memcpy(data, p->node_info, sizeof(p->node_info));
		memset(data + sizeof(p->node_info), 0,
		       MPD_SMP_DATA_LEN - sizeof(p->node_info));
		return 0;
	case MPD_ATTR_NODE_DESC:
		if (set)
			return MPD_STATUS_METHOD_ATTR_UNSUP;
		memcpy(data, p->node_desc, HCA_NODE_DESC_LEN);
		return 0;
	case MPD_ATTR_PORT_INFO: {
		struct mpd_port_info pi;

		/* a CA answers for the port the SMP came in on (14.2.5.6) */
		if (mod != 0 && mod != p->port_num)
			return MPD_STATUS_INVALID_FIELD;
		if (set) {
			mpd_layout_decode(&mpd_port_info_layout, data, 64, &pi);
			st = hca_sma_port_info_set(p, &pi);
		}
		hca_sma_port_info_get(p, &pi, hide_mkey);
		mpd_layout_encode(&mpd_port_info_layout, &pi, data, 64);
		return st;
	}
	case MPD_ATTR_PKEY_TABLE:
		if ((mod & 0xffff) != 0)	/* one block of 32 */
			return MPD_STATUS_INVALID_FIELD;
		hca_sma_pkey_block(p, set, data);
		return 0;
	case MPD_ATTR_GUID_INFO: {
		struct mpd_guid_info g;

		if (mod != 0)
			return MPD_STATUS_INVALID_FIELD;
		memset(&g, 0, sizeof(g));
		g.guid[0] = p->port_guid;	/* GUIDCap 1: Set changes nothing */
		mpd_layout_encode(&mpd_guid_info_layout, &g, data, 64);
		return 0;
	}
	case MPD_ATTR_SL2VL_TABLE:
		return hca_sma_sl2vl(p, set, data);
	case MPD_ATTR_VL_ARB_TABLE:
		return hca_sma_vl_arb(p, mod >> 16, set, data);
	default:
		/* SMInfo reaches an SM once one registers on this port */
		return MPD_STATUS_METHOD_ATTR_UNSUP;
	}
}

uint32_t
hca_sma_cap_mask(const struct hca_port *p)
{
	return HCA_CAP_MASK | p->cap_mask;
}

void
hca_sma_node_info_init(struct mpd_node_info *ni, uint8_t node_type)
{
	memset(ni, 0, sizeof(*ni));
	ni->base_version = MPD_BASE_VERSION;
	ni->class_version = MPD_SMP_CLASS_VERSION;
	ni->node_type = node_type;
	ni->partition_cap = HCA_PKEY_TABLE_LEN;
	ni->vendor_id = HCA_VENDOR_ID;
	ni->device_id = HCA_DEVICE_ID;
	ni->revision = HCA_REVISION;
}

void
hca_sma_init(struct hca_port *p)
{
	struct mpd_node_info ni;

	hca_sma_node_info_init(&ni, MPD_NODE_TYPE_CA);
	ni.num_ports = p->num_ports;
	ni.sys_image_guid = p->sys_guid;
	ni.node_guid = p->node_guid;
	ni.port_guid = p->port_guid;
	ni.local_port_num = p->port_num;
	mpd_layout_encode(&mpd_node_info_layout, &ni, p->node_info,
			  sizeof(p->node_info));
}

/*
 * Directed route at an end port (IBA 14.2.2.2-3): the request is the
 * SMA's once the port's SMI moved its pointer past the path (C14-9:3-4,
 * hca_port_dr_recv(), which a direct caller may leave to the SMA); the
 * response keeps the pointer, which hca_port_dr_reply() moves as it
 * leaves (C14-13:1).
 */
static bool
dr_request_ok(const struct hca_port *p, struct mpd_mad *m, uint8_t *mad)
{
	if (m->hdr.status & MPD_SMP_STATUS_D)
		return false;		/* a response travelling the wrong way */
	if (mad[MPD_SMP_OFF_HOP_PTR] != mad[MPD_SMP_OFF_HOP_CNT] + 1 &&
	    !hca_port_dr_recv(p, mad))
		return false;
	m->hdr.class_specific = (uint16_t)(mad[MPD_SMP_OFF_HOP_PTR] << 8 |
					   mad[MPD_SMP_OFF_HOP_CNT]);
	memcpy(m->return_path, mad + MPD_SMP_OFF_RET_PATH,
	       sizeof(m->return_path));
	return true;
}

void
hca_sma_notice(struct mpd_notice *n, uint8_t type, uint8_t producer,
	       uint16_t number, uint16_t issuer_lid)
{
	memset(n, 0, sizeof(*n));
	n->is_generic = 1;
	n->type = type;
	n->producer_type = producer;
	n->trap_number = number;
	n->issuer_lid = issuer_lid;
}

void
hca_sma_trap_pkt(const struct hca_port *p, struct mpd_pkt *pk)
{
	memset(pk, 0, sizeof(*pk));
	pk->link = MPD_LINK_IB;
	pk->lrh.vl = MPD_VL15;
	pk->lrh.dlid = p->sm_lid;
	pk->lrh.slid = p->lid;
	pk->bth.opcode = MPD_OP_UD_SEND_ONLY;
	pk->bth.pkey = 0xffff;
}

int
hca_sma_trap(struct hca_port *p, const struct mpd_notice *n, uint8_t *mad)
{
	uint8_t notice[MPD_NOTICE_LEN];
	struct mpd_mad t;

	mpd_layout_encode(&mpd_notice_layout, n, notice, sizeof(notice));
	memset(&t, 0, sizeof(t));
	t.hdr.base_version = MPD_BASE_VERSION;
	t.hdr.mgmt_class = MPD_CLASS_SUBN_LID;
	t.hdr.class_version = MPD_SMP_CLASS_VERSION;
	t.hdr.method = MPD_METHOD_TRAP;
	t.hdr.tid = ++p->trap_tid;
	t.hdr.attr_id = MPD_ATTR_NOTICE;
	t.mkey = p->mkey;
	/* an SMP has room for the Notice up to, not including, IssuerGID */
	return mpd_mad_encode(&t, notice, MPD_NOTICE_SMP_LEN, mad,
			      MPD_MAD_LEN) < 0 ? -1 : 0;
}

bool
hca_sma_cap_trap(struct hca_port *p, struct mpd_pkt *pk, uint8_t *mad)
{
	return hca_sma_cap_trap_by(p, MPD_NODE_TYPE_CA, pk, mad);
}

bool
hca_sma_cap_trap_by(struct hca_port *p, uint8_t producer, struct mpd_pkt *pk,
		    uint8_t *mad)
{
	struct mpd_notice n;
	uint8_t *d;

	if (p->cap_mask == p->cap_told)
		return false;
	p->cap_told = p->cap_mask;
	/* an SM's own port tells nobody: its SM knows */
	if (p->link != MPD_LINK_IB || !p->lid || !p->sm_lid ||
	    p->sm_lid == p->lid || p->port_state != HCA_PORT_ACTIVE)
		return false;
	hca_sma_notice(&n, 4, producer, 144, p->lid);
	/* DataDetails as OpenSM reads them (ntc_144): LID, LocalChanges 0
	 * (only the mask moved), the new CapabilityMask, ChangeFlags 0 */
	d = n.data_details;
	mpd_put_be16(d + 2, p->lid);
	mpd_put_be32(d + 6, hca_sma_cap_mask(p));
	if (hca_sma_trap(p, &n, mad) != 0)
		return false;
	hca_sma_trap_pkt(p, pk);
	return true;
}

/*
 * Trap 256, Bad M_Key (IBA 14.2.4.2, 14.2.5.1): the SMP with the wrong key
 * is not answered; the master SM hears of it instead. DataDetails as
 * OpenSM reads them (ib_mad_notice_attr_t, ntc_256): requester LID, DR
 * SLID, method, attribute, modifier, the offending M_Key, and for DR
 * SMPs the hop count and the return path.
 */
void
hca_sma_bad_mkey_trap(struct hca_port *p, uint8_t *mad,
		      const struct mpd_mad *m, uint16_t requester_lid,
		      uint8_t producer_type)
{
	struct mpd_notice n;
	uint8_t *d;

	hca_sma_notice(&n, 2, producer_type, 256, p->lid);
	d = n.data_details;
	mpd_put_be16(d + 2, requester_lid);
	mpd_put_be16(d + 4, m->dr_slid);
	d[6] = m->hdr.method;
	mpd_put_be16(d + 8, m->hdr.attr_id);
	mpd_put_be32(d + 10, m->hdr.attr_mod);
	mpd_put_be64(d + 14, m->mkey);
	if (mpd_mad_is_dr(&m->hdr)) {
		uint8_t cnt = mpd_smp_hop_cnt(&m->hdr);

		/* DRNotice, DRPathTruncated, DRHopCount */
		d[22] = (uint8_t)(0x80 | (cnt > 30 ? 0x40 : 0) | (cnt & 0x3f));
		memcpy(d + 23, m->return_path, 30);
	}
	hca_sma_trap(p, &n, mad);
}

bool
hca_sma_decode(struct hca_port *p, const uint8_t *mad, struct mpd_mad *m)
{
	if (mpd_mad_decode(mad, MPD_MAD_LEN, m) < 0) {
		p->cnt.rcv_errors++;
		p->cnt.rcv_malformed_errors++;
		return false;
	}
	if (!mpd_mad_is_dr(&m->hdr) && m->hdr.mgmt_class != MPD_CLASS_SUBN_LID)
		return false;		/* QP0 carries SMPs only */
	/* responses, traps to us and unknown methods: nothing to answer */
	return m->hdr.method == MPD_METHOD_GET ||
	       m->hdr.method == MPD_METHOD_SET;
}

void
hca_sma_reply(uint8_t *mad, uint16_t status, bool dr)
{
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET_RESP;
	if (dr)
		status |= MPD_SMP_STATUS_D;
	mpd_put_be16(mad + MPD_MAD_OFF_STATUS, status);
}

enum hca_reply
hca_sma_handle(struct hca_port *p, uint8_t *mad, const struct mpd_pkt *pk,
	       uint64_t now_ns)
{
	struct mpd_mad m;
	bool dr, hide = false;
	uint16_t status;
	uint8_t *data = mad + MPD_SMP_DATA_OFF;

	if (!hca_sma_decode(p, mad, &m))
		return HCA_NO_REPLY;
	dr = mpd_mad_is_dr(&m.hdr);
	if (dr && !dr_request_ok(p, &m, mad))
		return HCA_NO_REPLY;
	if (!hca_sma_mkey_ok(p, &m, now_ns, &hide)) {
		/* no answer (IBA 14.2.4.2); a trap when there is an SM */
		if (!p->sm_lid || !p->lid)
			return HCA_NO_REPLY;
		hca_sma_bad_mkey_trap(p, mad, &m, pk->lrh.slid,
				      MPD_NODE_TYPE_CA);
		return HCA_TRAP;
	}

	if (m.hdr.class_version != MPD_SMP_CLASS_VERSION)
		status = MPD_STATUS_BAD_VERSION;
	else
		status = sma_attr(p, &m, data, hide);

	hca_sma_reply(mad, status, dr);
	return HCA_REPLY;
}
