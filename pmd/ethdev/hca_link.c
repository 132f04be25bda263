/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port's link as ethdev shows it, and the application's link
 * interrupt: RTE_ETH_EVENT_INTR_LSC whenever the link goes up or down or
 * the port is disabled or enabled, whoever moved it (the ops in
 * rte_eth_hca.c, the bursts in hca_rxtx.c when an SM's Set(PortInfo)
 * did). Calls neither of them.
 */
#include <string.h>

#include <ethdev_driver.h>

#include "hca.h"

void
hca_link_fill(const struct hca_port *p, struct rte_eth_link *l)
{
	memset(l, 0, sizeof(*l));
	l->link_status = hca_link_up(p);
	l->link_speed = l->link_status ? hca_port_rate_mbps(p) :
					 RTE_ETH_SPEED_NUM_NONE;
	l->link_duplex = RTE_ETH_LINK_FULL_DUPLEX;
	l->link_autoneg = RTE_ETH_LINK_FIXED;
}

int
hca_link_update(struct rte_eth_dev *dev, int wait __rte_unused)
{
	struct hca_internals *hi = dev->data->dev_private;
	struct rte_eth_link l;

	rte_spinlock_lock(&hi->lock);
	hca_link_fill(&hi->port, &l);
	hi->link_told = l.link_status;
	rte_spinlock_unlock(&hi->lock);
	return rte_eth_linkstatus_set(dev, &l);
}

void
hca_link_event(struct hca_internals *hi)
{
	struct rte_eth_dev *dev = &rte_eth_devices[hi->port_id];
	bool off, moved;

	/* the launcher's look at the cables' ends (node.h) */
	hca_link_changed();
	rte_spinlock_lock(&hi->lock);
	off = hi->port.phys_state == HCA_PHYS_DISABLED;
	moved = off != hi->disabled_told;
	hi->disabled_told = off;
	rte_spinlock_unlock(&hi->lock);
	/* rte_eth_linkstatus_set(): 0 when the status moved */
	if ((hca_link_update(dev, 0) == 0 || moved) &&
	    dev->data->dev_conf.intr_conf.lsc)
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC,
					     NULL);
}
