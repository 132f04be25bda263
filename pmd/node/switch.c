/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A switch node's state: its ports (each a struct hca_port, port 0 the
 * management port) and its forwarding tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/attr.h"
#include "switch.h"

#define SW_MTU_CAP	5	/* 4096 */
#define SW_VL_CAP	4	/* VL0-7 */
#define SW_WIDTH_SUP	3	/* 1x, 4x */
#define SW_WIDTH_ACT	2	/* 4x */
#define SW_SPEED_SUP	7	/* 2.5, 5, 10 Gb/s a lane */
#define SW_SPEED_ACT	4	/* 10 Gb/s a lane */

static uint16_t
round_up(uint32_t v, uint32_t unit, uint32_t max)
{
	v = (v + unit - 1) / unit * unit;
	return (uint16_t)(v > max ? max / unit * unit : v);
}

static void
port_init(const struct hca_switch *sw, struct hca_port *p, uint8_t num)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->node_desc, sizeof(p->node_desc), "%s", sw->node_desc);
	p->link = MPD_LINK_IB;
	p->node_guid = sw->node_guid;
	p->port_guid = sw->node_guid;	/* one for all (IBA 14.2.5.3) */
	p->sys_guid = sw->sys_guid;
	p->port_num = num;
	p->num_ports = sw->num_ports;
	p->link_width_supported = SW_WIDTH_SUP;
	p->link_width_enabled = SW_WIDTH_SUP;
	p->link_width_active = SW_WIDTH_ACT;
	p->link_speed_supported = SW_SPEED_SUP;
	p->link_speed_enabled = SW_SPEED_SUP;
	p->link_speed_active = SW_SPEED_ACT;
	p->mtu_cap = SW_MTU_CAP;
	p->neighbor_mtu = SW_MTU_CAP;
	p->vl_cap = SW_VL_CAP;
	p->op_vls = 1;
	p->pkeys[0] = 0xffff;		/* the default partition */
	/* port 0 has no physical link: it is up once the switch is */
	p->port_state = num ? HCA_PORT_DOWN : HCA_PORT_INIT;
	p->phys_state = num ? HCA_PHYS_POLLING : HCA_PHYS_LINKUP;
	p->admin_up = 1;
}

int
hca_switch_init(struct hca_switch *sw, uint8_t nports, uint64_t node_guid,
		const char *desc, uint16_t lft_cap, uint16_t mft_cap)
{
	unsigned int i;

	memset(sw, 0, sizeof(*sw));
	if (nports == 0 || nports > HCA_SW_PORTS_MAX)
		return EINVAL;
	snprintf(sw->node_desc, sizeof(sw->node_desc), "%s", desc);
	sw->node_guid = node_guid;
	sw->sys_guid = node_guid;
	sw->num_ports = nports;
	sw->lft_cap = round_up(lft_cap, MPD_LFT_BLOCK, HCA_SW_LFT_CAP_MAX);
	sw->mft_cap = round_up(mft_cap, MPD_MFT_BLOCK, HCA_SW_MFT_CAP_MAX);
	sw->mft_positions = (uint8_t)((nports + MPD_MFT_POSITION_PORTS) /
				      MPD_MFT_POSITION_PORTS);
	sw->life_time = 18;	/* 4.096 us x 2^18, about 1 s (14.2.5.4) */

	sw->port = calloc((size_t)nports + 1, sizeof(*sw->port));
	if (!sw->port)
		goto fail;
	sw->lft = malloc(sw->lft_cap ? sw->lft_cap : 1);
	if (!sw->lft)
		goto fail_port;
	sw->mft = calloc((size_t)sw->mft_cap * sw->mft_positions + 1,
			 sizeof(*sw->mft));
	if (!sw->mft)
		goto fail_lft;
	memset(sw->lft, MPD_LFT_PORT_NONE, sw->lft_cap);
	for (i = 0; i <= nports; i++)
		port_init(sw, &sw->port[i], (uint8_t)i);
	return 0;

fail_lft:
	free(sw->lft);
fail_port:
	free(sw->port);
fail:
	memset(sw, 0, sizeof(*sw));
	return ENOMEM;
}

void
hca_switch_fini(struct hca_switch *sw)
{
	free(sw->mft);
	free(sw->lft);
	free(sw->port);
	memset(sw, 0, sizeof(*sw));
}

void
hca_switch_link(struct hca_switch *sw, uint8_t port, bool up)
{
	struct hca_port *p;

	if (port == 0 || port > sw->num_ports)
		return;
	p = &sw->port[port];
	/* a disabled port does not train, and is down already */
	if (p->phys_state == HCA_PHYS_DISABLED ||
	    up == (p->port_state != HCA_PORT_DOWN))
		return;
	if (up) {
		p->port_state = HCA_PORT_INIT;
		p->phys_state = HCA_PHYS_LINKUP;
	} else {
		p->cnt.link_downed++;
		p->port_state = HCA_PORT_DOWN;
		p->phys_state = HCA_PHYS_POLLING;
	}
	hca_link_changed();
	sw->port_state_change = 1;
}

void
hca_switch_disable(struct hca_switch *sw, uint8_t port, bool off)
{
	if (port == 0 || port > sw->num_ports)
		return;
	if (hca_port_disable(&sw->port[port], off))
		sw->port_state_change = 1;
}

bool
hca_switch_owns_lid(const struct hca_switch *sw, uint16_t dlid)
{
	return hca_port_owns_lid(&sw->port[0], dlid);
}
