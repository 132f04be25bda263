/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's link as it trains and goes: the PortPhysicalState rules that a
 * CA port, a served CA's and a switch's external ports share (IBA 7.2,
 * PortInfo 14.2.5.6). Calls nothing: the SMA and the fabric call it.
 */
#include "node.h"

bool
hca_port_disable(struct hca_port *p, bool off)
{
	if (off == (p->phys_state == HCA_PHYS_DISABLED))
		return false;
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

void
hca_port_carrier(struct hca_port *p, bool on, uint8_t up_state)
{
	if (!on && p->phys_state == HCA_PHYS_LINKUP) {
		p->cnt.link_downed++;
		p->phys_state = HCA_PHYS_POLLING;
		p->port_state = HCA_PORT_DOWN;
	} else if (on && p->phys_state == HCA_PHYS_POLLING) {
		p->phys_state = HCA_PHYS_LINKUP;
		p->port_state = up_state;
	}
}
