/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the nodes without an ethdev (switches, served CAs) share when the
 * topology makes them: their fabric ports, and the link a port line of
 * the file gives.
 */
#include <stdio.h>
#include <string.h>

#include "fabric.h"
#include "madpmd/topo.h"
#include "node/node.h"

struct fab_port *
fab_port_add(struct fabric *f, const char *node, uint8_t num)
{
	struct fab_port *fp = &f->port[f->nports++];

	memset(fp, 0, sizeof(*fp));
	snprintf(fp->node, sizeof(fp->node), "%.63s", node);
	snprintf(fp->dev, sizeof(fp->dev), "%.40s[%u]", node, num);
	fp->num = num;
	fp->link = MPD_LINK_IB;
	fp->peer = -1;
	return fp;
}

void
fab_port_link(struct hca_port *p, const struct mpd_topo_port *tp)
{
	if (!tp->link_given)
		return;
	if (tp->width_enabled)
		p->link_width_enabled = tp->width_enabled;
	if (tp->width_active)
		p->link_width_active = tp->width_active;
	if (tp->speed_enabled)
		p->link_speed_enabled = tp->speed_enabled;
	if (tp->speed_active)
		p->link_speed_active = tp->speed_active;
}
