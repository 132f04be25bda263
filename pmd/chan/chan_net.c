/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPD_CHAN_NETNS: a client (madpmd-run --net) joins its node's network
 * namespace. The first request for a port makes the port's device in it
 * (net/netns.h; the namespace too for a node's first), which the lcore
 * then reads and writes (net/netif.h); every request gets the
 * namespace's fds. Control thread.
 */
#include <errno.h>
#include <unistd.h>

#include "chan_priv.h"

static int
netns_req(const struct hca_port *p, struct hca_netns_req *r)
{
	*r = (struct hca_netns_req){
		.node = p->node_name,
		.port_num = p->port_num,
		.roce = p->link != MPD_LINK_IB,
		.mtu = 1500,
	};
	memcpy(r->mac, p->mac, sizeof(r->mac));
	memcpy(r->ip4, p->ip4, sizeof(r->ip4));
	return r->roce ? 0 : EOPNOTSUPP;
}

/* The port's device, made if it has none; 0 or an errno */
static int
port_device(struct hca_chan *ch)
{
	const struct hca_chan_cfg *cfg = &ch->cfg;
	struct hca_netif *n = cfg->netif;
	char ifname[HCA_NETNS_IFNAMSIZ];
	struct hca_netns_req r;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET,
				  .data.u64 = HCA_DOORBELL_NETIF };
	int rc, fd, have;

	rte_spinlock_lock(cfg->lock);
	have = n->fd >= 0;
	rc = netns_req(cfg->port, &r);
	rte_spinlock_unlock(cfg->lock);
	if (have || rc)
		return rc;
	/* one control thread per port: nobody else makes this one */
	rc = hca_netns_add_port(&r, &fd, ifname);
	if (rc)
		return rc;
	if (cfg->doorbells >= 0 &&
	    epoll_ctl(cfg->doorbells, EPOLL_CTL_ADD, fd, &ev) != 0) {
		rc = errno;
		close(fd);
		return rc;
	}
	rte_spinlock_lock(cfg->lock);
	n->fd = fd;
	memcpy(n->ifname, ifname, sizeof(n->ifname));
	rte_spinlock_unlock(cfg->lock);
	CHAN_LOG(INFO, "%s: %s in the node's network namespace", ch->node,
		 ifname);
	/* the lcore polls it from now on: wake it */
	hca_doorbell_ring(cfg->doorbell, cfg->rung);
	return 0;
}

static int
net_open(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	int fds[2], rc;

	if (!ch->cfg.netif)
		return EOPNOTSUPP;
	rc = port_device(ch);
	if (rc)
		return rc;
	rc = hca_netns_fds(ch->cfg.port->node_name, &fds[0], &fds[1]);
	if (rc)
		return rc;
	m->status = 0;
	m->len = 0;
	rc = hca_chan_send_reply(s->sock, m, fds, fds[1] >= 0 ? 2 : 1);
	close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	return rc ? CHAN_GONE : CHAN_REPLIED;
}

static const struct hca_chan_handler net_handlers[] = {
	{ MPD_CHAN_NETNS, net_open },
	{ 0, NULL },
};

const struct hca_chan_service hca_chan_net = {
	.handlers = net_handlers,
};
