/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPD_CHAN_NETNS: a client (madpmd-run --net) joins its node's network
 * namespace. The first request for a port makes the port's device in it
 * (net/netns.h; the namespace too for a node's first), which the lcore
 * then reads and writes (net/netif.h on RoCE, net/ipoib.h on IB); every
 * request gets the namespace's fds. Control thread.
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
		.mtu = p->link != MPD_LINK_IB ? 1500 : HCA_IPOIB_MTU,
	};
	memcpy(r->mac, p->mac, sizeof(r->mac));
	memcpy(r->ip4, p->ip4, sizeof(r->ip4));
	return 0;
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
	if (!r.roce && (!cfg->ipoib || hca_ipoib_init(cfg->ipoib)))
		return cfg->ipoib ? ENOMEM : EOPNOTSUPP;
	rc = hca_netns_add_port(&r, &fd, ifname);
	if (!rc && cfg->doorbells >= 0 &&
	    epoll_ctl(cfg->doorbells, EPOLL_CTL_ADD, fd, &ev) != 0) {
		rc = errno;
		close(fd);
	}
	if (rc) {
		if (!r.roce)
			hca_ipoib_fini(cfg->ipoib);
		return rc;
	}
	rte_spinlock_lock(cfg->lock);
	/* IPoIB: its SA agent on the port's MAD layer (the join, next poll) */
	if (!r.roce)
		rc = hca_ipoib_start(cfg->ipoib, cfg->port, cfg->ml, fd);
	if (!rc) {
		n->fd = fd;
		memcpy(n->ifname, ifname, sizeof(n->ifname));
	}
	rte_spinlock_unlock(cfg->lock);
	if (rc) {
		epoll_ctl(cfg->doorbells, EPOLL_CTL_DEL, fd, NULL);
		close(fd);
		hca_ipoib_fini(cfg->ipoib);
		return rc;
	}
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
