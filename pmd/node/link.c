/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's link as it trains and goes: the PortPhysicalState rules that a
 * CA port, a served CA's and a switch's external ports share (IBA 7.2,
 * PortInfo 14.2.5.6), and the MTU its cable carries. Calls nothing: the
 * SMA and the fabric call it.
 */
#include "node.h"

uint32_t hca_link_changes;

bool
hca_port_disable(struct hca_port *p, bool off)
{
	if (off == (p->phys_state == HCA_PHYS_DISABLED))
		return false;
	hca_link_changed();
	if (off) {
		if (p->phys_state == HCA_PHYS_LINKUP)
			p->cnt.link_downed++;
		p->phys_state = HCA_PHYS_DISABLED;
		p->port_state = HCA_PORT_DOWN;
	} else {
		p->phys_state = HCA_PHYS_POLLING;
	}
	return true;
}

/* IB_GRH_BYTES + IB_UDP_BYTES + IB_BTH_BYTES + IB_EXT_XRC_BYTES +
 * IB_EXT_ATOMICETH_BYTES + IB_ICRC_BYTES, as ib_addr.h counts them */
#define ROCE_OVERHEAD	(40 + 8 + 12 + 4 + 28 + 4)
/* LRH, GRH, BTH, AtomicETH (the largest extended header), ICRC, VCRC */
#define IB_OVERHEAD	(8 + 40 + 12 + 28 + 4 + 2)

/* The largest IB MTU (enum) whose payload fits in bytes after hdrs */
static uint8_t
mtu_fitting(uint32_t bytes, uint32_t hdrs)
{
	uint8_t m = 5;			/* 4096 */

	if (bytes < hdrs + 256)
		return 0;
	while (m > 1 && bytes - hdrs < (128u << m))
		m--;
	return m;
}

uint8_t
hca_roce_mtu(uint32_t eth_mtu)
{
	return mtu_fitting(eth_mtu, ROCE_OVERHEAD);
}

uint8_t
hca_ib_frame_mtu(uint32_t frame)
{
	return mtu_fitting(frame, IB_OVERHEAD);
}

void
hca_port_mtu_limit(struct hca_port *p, uint8_t m)
{
	if (p->mtu_cap > m)
		p->mtu_cap = m;
	if (p->neighbor_mtu > m)
		p->neighbor_mtu = m;
}

void
hca_port_carrier(struct hca_port *p, bool on, uint8_t up_state)
{
	if (!on && p->phys_state == HCA_PHYS_LINKUP) {
		p->cnt.link_downed++;
		p->phys_state = HCA_PHYS_POLLING;
		p->port_state = HCA_PORT_DOWN;
		hca_link_changed();
	} else if (on && p->phys_state == HCA_PHYS_POLLING) {
		p->phys_state = HCA_PHYS_LINKUP;
		p->port_state = up_state;
		hca_link_changed();
	}
}
