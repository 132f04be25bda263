/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_hca: a DPDK vdev whose ethdev is one InfiniBand/RoCE HCA port.
 * Probe parses the devargs into the port's state and composes the port's
 * layers (node, MAD layer, channel, records); the ethdev ops are the ones
 * real applications call; rx/tx bursts are in hca_rxtx.c.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_interrupts.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "madpmd/clock.h"
#include "madpmd/mad.h"
#include "../rte_pmd_hca.h"
#include "madpmd/records.h"
#include "hca.h"
#include "services.h"

#define ARG_NODE	"node"
#define ARG_DESC	"desc"
#define ARG_NODE_GUID	"node_guid"
#define ARG_PORT_GUID	"port_guid"
#define ARG_SYS_GUID	"sys_guid"
#define ARG_PORT	"port"
#define ARG_NUM_PORTS	"num_ports"
#define ARG_LINK	"link"
#define ARG_MAC		"mac"
#define ARG_IP		"ip"
#define ARG_PKEYS	"pkeys"
#define ARG_MKEY	"mkey"
#define ARG_WIDTH	"width"
#define ARG_SPEED	"speed"
#define ARG_RUN_DIR	"run_dir"
#define ARG_UMAD_MODE	"umad_mode"

static const char *const valid_args[] = {
	ARG_NODE, ARG_DESC, ARG_NODE_GUID, ARG_PORT_GUID, ARG_SYS_GUID,
	ARG_PORT, ARG_NUM_PORTS, ARG_LINK, ARG_MAC, ARG_IP, ARG_PKEYS,
	ARG_MKEY, ARG_WIDTH, ARG_SPEED, ARG_RUN_DIR, ARG_UMAD_MODE, NULL,
};

/* IBA 14.2.5.6 LinkWidth / LinkSpeed encodings */
static const struct {
	const char *name;
	uint8_t code;
} widths[] = { { "1x", 1 }, { "4x", 2 }, { "8x", 4 }, { "12x", 8 } },
  speeds[] = { { "sdr", 1 }, { "ddr", 2 }, { "qdr", 4 } };

/* ---- devargs ------------------------------------------------------------ */

struct parse_ctx {
	struct hca_port *p;
	const char *dev;
	char *run_dir;			/* sizeof: RUN_DIR_LEN */
	unsigned int *umad_mode;
};

#define RUN_DIR_LEN	256

static int
bad_arg(const struct parse_ctx *c, const char *key, const char *val,
	const char *accepted)
{
	HCA_LOG(ERR, "%s: invalid devarg %s=%s: accepted values: %s", c->dev,
		key, val, accepted);
	return -EINVAL;
}

static int
parse_u64(const char *val, uint64_t *out)
{
	char *end;

	if (!*val || *val == '-')
		return -1;
	errno = 0;
	*out = strtoull(val, &end, 0);
	return errno || *end ? -1 : 0;
}

static int
arg_str(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;
	char *dst = strcmp(key, ARG_NODE) == 0 ? c->p->node_name
					       : c->p->node_desc;
	size_t n = strlen(val);

	/* IBA 14.2.5.2: NodeString is 64 bytes of UTF-8, not NUL-terminated */
	if (n == 0 || n > HCA_NODE_DESC_LEN - 1)
		return bad_arg(c, key, val, "1 to 63 characters");
	memcpy(dst, val, n + 1);
	return 0;
}

static int
arg_guid(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;
	uint64_t v;

	if (parse_u64(val, &v) || v == 0)
		return bad_arg(c, key, val, "a non-zero 64-bit GUID, e.g. 0x0002c90300001234");
	if (strcmp(key, ARG_NODE_GUID) == 0)
		c->p->node_guid = v;
	else if (strcmp(key, ARG_PORT_GUID) == 0)
		c->p->port_guid = v;
	else
		c->p->sys_guid = v;
	return 0;
}

static int
arg_port(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;
	uint64_t v;

	if (parse_u64(val, &v) || v < 1 || v > 254)
		return bad_arg(c, key, val, "1 to 254");
	if (strcmp(key, ARG_PORT) == 0)
		c->p->port_num = (uint8_t)v;
	else
		c->p->num_ports = (uint8_t)v;
	return 0;
}

static int
arg_link(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;

	if (strcmp(val, "ib") == 0)
		c->p->link = MPD_LINK_IB;
	else if (strcmp(val, "roce") == 0)
		c->p->link = MPD_LINK_ROCE_V2;
	else
		return bad_arg(c, key, val, "ib, roce");
	return 0;
}

static int
arg_mac(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;

	struct rte_ether_addr mac;

	if (rte_ether_unformat_addr(val, &mac) != 0 ||
	    !rte_is_unicast_ether_addr(&mac))
		return bad_arg(c, key, val, "a unicast MAC, e.g. 02:00:00:00:00:01");
	memcpy(c->p->mac, mac.addr_bytes, sizeof(c->p->mac));
	return 0;
}

static int
arg_ip(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;
	unsigned int a, b, d, e;
	char tail;

	if (sscanf(val, "%u.%u.%u.%u%c", &a, &b, &d, &e, &tail) != 4 ||
	    a > 255 || b > 255 || d > 255 || e > 255)
		return bad_arg(c, key, val, "an IPv4 address, e.g. 192.168.7.1");
	c->p->ip4[0] = (uint8_t)a;
	c->p->ip4[1] = (uint8_t)b;
	c->p->ip4[2] = (uint8_t)d;
	c->p->ip4[3] = (uint8_t)e;
	return 0;
}

static int
arg_pkeys(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;
	char buf[512], *tok, *save = NULL;
	unsigned int n = 0;
	uint64_t v;

	if (strlen(val) >= sizeof(buf))
		return bad_arg(c, key, val, "at most 32 P_Keys");
	memcpy(buf, val, strlen(val) + 1);
	memset(c->p->pkeys, 0, sizeof(c->p->pkeys));
	for (tok = strtok_r(buf, ":", &save); tok;
	     tok = strtok_r(NULL, ":", &save)) {
		if (n == HCA_PKEY_TABLE_LEN || parse_u64(tok, &v) || v > 0xffff ||
		    (v & MPD_PKEY_BASE_MASK) == 0)
			return bad_arg(c, key, val,
				       "1 to 32 P_Keys separated by ':', e.g. 0xffff:0x8001 (0x0000 and 0x8000 are invalid)");
		c->p->pkeys[n++] = (uint16_t)v;
	}
	if (n == 0)
		return bad_arg(c, key, val, "1 to 32 P_Keys separated by ':'");
	return 0;
}

static int
arg_mkey(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;
	uint64_t v;

	if (parse_u64(val, &v))
		return bad_arg(c, key, val, "a 64-bit M_Key, e.g. 0x1234");
	c->p->mkey = v;
	return 0;
}

static int
arg_rate(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;
	unsigned int i;

	if (strcmp(key, ARG_WIDTH) == 0) {
		for (i = 0; i < RTE_DIM(widths); i++)
			if (strcmp(val, widths[i].name) == 0) {
				c->p->link_width_active = widths[i].code;
				return 0;
			}
		return bad_arg(c, key, val, "1x, 4x, 8x, 12x");
	}
	for (i = 0; i < RTE_DIM(speeds); i++)
		if (strcmp(val, speeds[i].name) == 0) {
			c->p->link_speed_active = speeds[i].code;
			return 0;
		}
	return bad_arg(c, key, val, "sdr, ddr, qdr");
}

static int
arg_run_dir(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;

	if (val[0] != '/' || strlen(val) >= RUN_DIR_LEN - 80)
		return bad_arg(c, key, val, "an absolute directory path of at most 175 characters");
	memcpy(c->run_dir, val, strlen(val) + 1);
	return 0;
}

static int
arg_umad_mode(const char *key, const char *val, void *opaque)
{
	struct parse_ctx *c = opaque;
	char *end;
	unsigned long v = strtoul(val, &end, 8);

	if (!*val || *end || v > 0777)
		return bad_arg(c, key, val, "octal permissions, e.g. 0600 (root only) or 0666");
	*c->umad_mode = (unsigned int)v;
	return 0;
}

static int
parse_devargs(struct hca_port *p, const char *name, const char *params,
	      char *run_dir, unsigned int *umad_mode)
{
	struct parse_ctx c = { .p = p, .dev = name, .run_dir = run_dir,
			       .umad_mode = umad_mode };
	struct rte_kvargs *kv;
	int rc = 0;

	hca_port_defaults(p, name);
	if (!params || !*params)
		goto derive;
	kv = rte_kvargs_parse(params, valid_args);
	if (!kv) {
		HCA_LOG(ERR, "%s: cannot parse devargs '%s': accepted keys: "
			"node, desc, node_guid, port_guid, sys_guid, port, "
			"num_ports, link, mac, ip, pkeys, mkey, width, speed, "
			"run_dir, umad_mode",
			name, params);
		return -EINVAL;
	}
	rc = rte_kvargs_process(kv, ARG_NODE, arg_str, &c) ||
	     rte_kvargs_process(kv, ARG_DESC, arg_str, &c) ||
	     rte_kvargs_process(kv, ARG_NODE_GUID, arg_guid, &c) ||
	     rte_kvargs_process(kv, ARG_PORT_GUID, arg_guid, &c) ||
	     rte_kvargs_process(kv, ARG_SYS_GUID, arg_guid, &c) ||
	     rte_kvargs_process(kv, ARG_PORT, arg_port, &c) ||
	     rte_kvargs_process(kv, ARG_NUM_PORTS, arg_port, &c) ||
	     rte_kvargs_process(kv, ARG_LINK, arg_link, &c) ||
	     rte_kvargs_process(kv, ARG_MAC, arg_mac, &c) ||
	     rte_kvargs_process(kv, ARG_IP, arg_ip, &c) ||
	     rte_kvargs_process(kv, ARG_PKEYS, arg_pkeys, &c) ||
	     rte_kvargs_process(kv, ARG_MKEY, arg_mkey, &c) ||
	     rte_kvargs_process(kv, ARG_WIDTH, arg_rate, &c) ||
	     rte_kvargs_process(kv, ARG_SPEED, arg_rate, &c) ||
	     rte_kvargs_process(kv, ARG_RUN_DIR, arg_run_dir, &c) ||
	     rte_kvargs_process(kv, ARG_UMAD_MODE, arg_umad_mode, &c) ?
	     -EINVAL : 0;
	rte_kvargs_free(kv);
	if (rc)
		return rc;
	if (p->port_num > p->num_ports) {
		HCA_LOG(ERR, "%s: invalid devarg port=%u: accepted values: 1 to num_ports (%u)",
			name, p->port_num, p->num_ports);
		return -EINVAL;
	}
derive:
	if (!p->node_desc[0])
		memcpy(p->node_desc, p->node_name, sizeof(p->node_desc));
	if (!p->port_guid)
		p->port_guid = p->node_guid + p->port_num;
	if (!p->sys_guid)
		p->sys_guid = p->node_guid;
	return 0;
}

/* ---- ethdev ops --------------------------------------------------------- */

/* The QP layer's completions and state changes into capture records */
static void
record_cqe(void *ctx, uint32_t cq_handle, const struct mpd_v_cqe *e,
	   uint32_t psn)
{
	struct hca_internals *hi = ctx;

	hca_rec_wc(&hi->rec, &hi->port, cq_handle, e, psn);
}

static void
record_qp(void *ctx, const struct hca_v_qp_event *ev)
{
	struct hca_internals *hi = ctx;
	struct mpd_rec_qp q = {
		.qp_num = ev->qpn, .handle = ev->handle,
		.qp_type = (uint8_t)ev->qp_type,
		.old_state = (uint8_t)ev->old_state,
		.new_state = (uint8_t)ev->new_state,
		.cause = (uint8_t)ev->cause, .status = ev->status,
		.psn = ev->psn, .dest_qp = ev->dest_qp,
	};

	hca_rec_qp(&hi->rec, &hi->port, &q);
}


static int
eth_dev_configure(struct rte_eth_dev *dev)
{
	if (dev->data->nb_rx_queues > HCA_MAX_QUEUES ||
	    dev->data->nb_tx_queues > HCA_MAX_QUEUES)
		return -EINVAL;
	return 0;
}

/*
 * Rx interrupts (the l3fwd-power model): every queue's vector is the
 * port's doorbells, an epoll set of the daemon's own (counter size 0: the
 * EAL reads nothing from it). It holds our eventfd, which the daemon's own
 * threads ring, and the read end of each session's doorbell pipe (wake.c),
 * which that session's client rings after queueing a send while the
 * interrupt is enabled. No client holds an open file the lcore reads, so
 * none can make that read block or spin. A frame from the wire needs no
 * ring, since the application that sleeps is the one that would have
 * brought it.
 */
static int
intr_vec_install(struct rte_eth_dev *dev)
{
	struct hca_internals *hi = dev->data->dev_private;
	uint16_t q, n = dev->data->nb_rx_queues;

	rte_intr_vec_list_free(hi->intr);
	if (rte_intr_vec_list_alloc(hi->intr, "hca_intr_vec", n) != 0)
		return -1;
	for (q = 0; q < n; q++)
		if (rte_intr_vec_list_index_set(hi->intr, q,
						RTE_INTR_VEC_RXTX_OFFSET) != 0)
			return -1;
	return 0;
}


static int
eth_rx_intr_enable(struct rte_eth_dev *dev, uint16_t qid __rte_unused)
{
	struct hca_internals *hi = dev->data->dev_private;

	/* frames looped back to the port are work too */
	if ((hi->chan && hca_chan_arm(hi->chan, true)) ||
	    !rte_ring_empty(hi->loop))
		hca_doorbell_ring(hi->db.fd, &hi->db.rung);
	return 0;
}

/* Awake again (chan/wake.c: hca_doorbells_awake()) */
static int
eth_rx_intr_disable(struct rte_eth_dev *dev, uint16_t qid __rte_unused)
{
	struct hca_internals *hi = dev->data->dev_private;

	bool sessions = hi->chan && hca_chan_arm(hi->chan, false);

	/* the network device's frames are edges on the set too */
	hca_doorbells_awake(&hi->db, sessions || hi->netif.fd >= 0);
	return 0;
}

/* A port whose link came up: Init until an SM moves it on (IBA 7.2); a
 * RoCE port has no SM and is Active with its Ethernet link (IBA A16.1,
 * as the kernel's RoCE ports report it), which verbs applications check */
static uint8_t
link_up_state(const struct hca_port *p)
{
	return p->link == MPD_LINK_IB ? HCA_PORT_INIT : HCA_PORT_ACTIVE;
}

static int
eth_dev_start(struct rte_eth_dev *dev)
{
	struct hca_internals *hi = dev->data->dev_private;
	struct hca_port *p = &hi->port;

	rte_spinlock_lock(&hi->lock);
	/* the cable is there: physical link up, logical Init (IBA 7.2) */
	if (p->admin_up && !hi->no_carrier) {
		p->phys_state = HCA_PHYS_LINKUP;
		if (p->port_state < HCA_PORT_INIT)
			p->port_state = link_up_state(p);
	}
	hi->started = true;
	hca_rec_port_check(&hi->rec, p);
	if (hi->chan)
		hca_chan_port_events(hi->chan);
	rte_spinlock_unlock(&hi->lock);
	if (dev->data->dev_conf.intr_conf.rxq && intr_vec_install(dev) != 0)
		return -ENOMEM;
	dev->data->dev_started = 1;
	/* "unchanged" (a port without a cable stays down) is no failure */
	hca_link_event(hi);
	return 0;
}

static int
eth_dev_stop(struct rte_eth_dev *dev)
{
	struct hca_internals *hi = dev->data->dev_private;
	struct hca_port *p = &hi->port;

	rte_spinlock_lock(&hi->lock);
	if (p->phys_state == HCA_PHYS_LINKUP)
		p->cnt.link_downed++;
	p->phys_state = HCA_PHYS_POLLING;
	p->port_state = HCA_PORT_DOWN;
	p->lid = 0;
	p->sm_lid = 0;
	hi->started = false;
	hca_rec_port_check(&hi->rec, p);
	if (hi->chan)
		hca_chan_port_events(hi->chan);
	rte_spinlock_unlock(&hi->lock);
	rte_intr_vec_list_free(hi->intr);
	dev->data->dev_started = 0;
	hca_link_event(hi);
	return 0;
}

/* The interrupt handle that carries the port's doorbells: 0 or -1. */
static int
intr_alloc(struct rte_eth_dev *dev)
{
	struct hca_internals *hi = dev->data->dev_private;

	hi->intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (!hi->intr ||
	    rte_intr_type_set(hi->intr, RTE_INTR_HANDLE_VDEV) != 0 ||
	    rte_intr_efd_counter_size_set(hi->intr, 0) != 0 ||
	    rte_intr_efds_index_set(hi->intr, 0, hi->db.set) != 0 ||
	    rte_intr_nb_efd_set(hi->intr, 1) != 0 ||
	    rte_intr_max_intr_set(hi->intr, 2) != 0)
		return -1;
	dev->intr_handle = hi->intr;
	return 0;
}

static void
intr_free(struct rte_eth_dev *dev)
{
	struct hca_internals *hi = dev->data->dev_private;

	if (hi->intr) {
		rte_intr_vec_list_free(hi->intr);
		rte_intr_instance_free(hi->intr);
	}
	hi->intr = NULL;
	dev->intr_handle = NULL;
}

static void
drain_egress(struct hca_internals *hi)
{
	struct rte_mbuf *m;

	while (hi->egress && rte_ring_dequeue(hi->egress, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	while (hi->loop && rte_ring_dequeue(hi->loop, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

static int
eth_dev_close(struct rte_eth_dev *dev)
{
	struct hca_internals *hi = dev->data->dev_private;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	if (dev->data->dev_started)
		eth_dev_stop(dev);
	hca_services_stop(&hi->db, &hi->chan);
	if (hi->netif.fd >= 0) {
		bool ipoib = hi->port.link == MPD_LINK_IB;

		rte_spinlock_lock(&hi->lock);
		if (ipoib)
			hca_ipoib_stop(&hi->ipoib);
		rte_spinlock_unlock(&hi->lock);
		if (ipoib)
			hca_ipoib_fini(&hi->ipoib);
		close(hi->netif.fd);
		hi->netif.fd = -1;
	}
	rte_spinlock_lock(&hi->lock);
	hca_cm_destroy(hi->cm);
	hi->cm = NULL;
	rte_spinlock_unlock(&hi->lock);
	drain_egress(hi);
	rte_ring_free(hi->egress);
	rte_ring_free(hi->loop);
	hi->loop = NULL;
	hca_rec_release(&hi->rec);
	rte_free(hi->port.neigh);
	hi->port.neigh = NULL;
	hi->port.nneigh = 0;
	hi->port.neigh_cap = 0;
	intr_free(dev);
	hi->egress = NULL;
	/* mac_addrs lives in dev_private: not for rte_free */
	dev->data->mac_addrs = NULL;
	return 0;
}

static int
eth_dev_info(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	info->max_mac_addrs = 1;
	info->max_rx_pktlen = 4096 + 128;
	/* RoCE: an Ethernet MTU up to jumbo frames (the IB MTU stays 4096
	 * at most, so frames stay within max_rx_pktlen) */
	if (((struct hca_internals *)dev->data->dev_private)->port.link ==
	    MPD_LINK_ROCE_V2) {
		info->min_mtu = 96 + 256;
		info->max_mtu = 9216;
		info->max_rx_pktlen = 9216 + RTE_ETHER_HDR_LEN +
				      RTE_ETHER_CRC_LEN;
	}
	info->min_rx_bufsize = 0;
	info->max_rx_queues = HCA_MAX_QUEUES;
	info->max_tx_queues = HCA_MAX_QUEUES;
	info->speed_capa = RTE_ETH_LINK_SPEED_10G | RTE_ETH_LINK_SPEED_20G |
			   RTE_ETH_LINK_SPEED_40G;
	info->dev_capa = 0;
	info->rx_offload_capa = 0;
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	return 0;
}

static int
eth_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid,
		   uint16_t nb_desc __rte_unused,
		   unsigned int socket __rte_unused,
		   const struct rte_eth_rxconf *conf __rte_unused,
		   struct rte_mempool *mp)
{
	struct hca_internals *hi = dev->data->dev_private;

	if (qid >= HCA_MAX_QUEUES || !mp)
		return -EINVAL;
	hi->rxq[qid].hi = hi;
	hi->rxq[qid].mp = mp;
	dev->data->rx_queues[qid] = &hi->rxq[qid];
	return 0;
}

static int
eth_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid,
		   uint16_t nb_desc __rte_unused,
		   unsigned int socket __rte_unused,
		   const struct rte_eth_txconf *conf __rte_unused)
{
	struct hca_internals *hi = dev->data->dev_private;

	if (qid >= HCA_MAX_QUEUES)
		return -EINVAL;
	hi->txq[qid].hi = hi;
	dev->data->tx_queues[qid] = &hi->txq[qid];
	return 0;
}

static void
eth_queue_release(struct rte_eth_dev *dev __rte_unused,
		  uint16_t qid __rte_unused)
{
}

static int
eth_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	struct hca_internals *hi = dev->data->dev_private;
	const struct hca_counters *c = &hi->port.cnt;
	unsigned int q;

	/* ethdev rx = what the port transmitted onto the wire (emitted by
	 * rx_burst); ethdev tx = what it received from the wire */
	for (q = 0; q < HCA_MAX_QUEUES; q++) {
		st->ipackets += hi->rxq[q].pkts;
		st->ibytes += hi->rxq[q].bytes;
		st->opackets += hi->txq[q].pkts;
		st->obytes += hi->txq[q].bytes;
		if (q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			st->q_ipackets[q] = hi->rxq[q].pkts;
			st->q_ibytes[q] = hi->rxq[q].bytes;
			st->q_opackets[q] = hi->txq[q].pkts;
			st->q_obytes[q] = hi->txq[q].bytes;
		}
	}
	st->oerrors = c->rcv_errors;
	st->imissed = c->drop_egress_full;
	return 0;
}

static int
eth_stats_reset(struct rte_eth_dev *dev)
{
	struct hca_internals *hi = dev->data->dev_private;
	unsigned int q;

	for (q = 0; q < HCA_MAX_QUEUES; q++) {
		hi->rxq[q].pkts = hi->rxq[q].bytes = 0;
		hi->txq[q].pkts = hi->txq[q].bytes = 0;
	}
	return 0;
}

/* xstats: the IB port counters by their IBA names */
#define XS(name, field) { name, offsetof(struct hca_counters, field) }
static const struct {
	const char *name;
	size_t off;
} xstats_tbl[] = {
	XS("ib_symbol_error_counter", symbol_errors),
	XS("ib_link_error_recovery_counter", link_error_recovery),
	XS("ib_link_downed_counter", link_downed),
	XS("ib_port_rcv_errors", rcv_errors),
	XS("ib_port_rcv_remote_physical_errors", rcv_remote_phys_errors),
	XS("ib_port_rcv_switch_relay_errors", rcv_switch_relay_errors),
	XS("ib_port_xmit_discards", xmit_discards),
	XS("ib_port_xmit_constraint_errors", xmit_constraint_errors),
	XS("ib_port_rcv_constraint_errors", rcv_constraint_errors),
	XS("ib_local_link_integrity_errors", local_link_integrity_errors),
	XS("ib_excessive_buffer_overrun_errors", excessive_buffer_overrun),
	XS("ib_vl15_dropped", vl15_dropped),
	XS("ib_port_xmit_wait", xmit_wait),
	XS("ib_port_xmit_data", xmit_data),
	XS("ib_port_rcv_data", rcv_data),
	XS("ib_port_xmit_pkts", xmit_pkts),
	XS("ib_port_rcv_pkts", rcv_pkts),
	XS("ib_port_unicast_xmit_pkts", unicast_xmit_pkts),
	XS("ib_port_unicast_rcv_pkts", unicast_rcv_pkts),
	XS("ib_port_multicast_xmit_pkts", multicast_xmit_pkts),
	XS("ib_port_multicast_rcv_pkts", multicast_rcv_pkts),
	XS("ib_port_local_physical_errors", rcv_local_phys_errors),
	XS("ib_port_malformed_pkt_errors", rcv_malformed_errors),
	XS("ib_port_buffer_overrun_errors", rcv_buffer_overruns),
	XS("ib_m_key_violations", mkey_violations),
	XS("ib_p_key_violations", pkey_violations),
	XS("ib_q_key_violations", qkey_violations),
	XS("drop_truncated", drop_truncated),
	XS("drop_bad_icrc", drop_bad_icrc),
	XS("drop_bad_vcrc", drop_bad_vcrc),
	XS("drop_bad_header", drop_bad_header),
	XS("drop_no_agent", drop_no_agent),
	XS("drop_egress_full", drop_egress_full),
	XS("drop_bad_dlid", drop_bad_dlid),
	XS("rmpp_sent", rmpp_sent),
	XS("rmpp_received", rmpp_received),
	XS("rmpp_timeouts", rmpp_timeouts),
	XS("rmpp_failed", rmpp_failed),
	XS("rec_dropped", rec_dropped),
	XS("mad_unmatched", mad_unmatched),
	XS("chan_ring_full", chan_ring_full),
	XS("chan_quota", chan_quota),
	XS("chan_requests", chan_requests),
	XS("qp_pkts_in", qp_pkts_in),
	XS("qp_pkts_out", qp_pkts_out),
	XS("qp_duplicates", qp_duplicates),
	XS("qp_seq_naks", qp_seq_naks),
	XS("qp_rnr_naks_sent", qp_rnr_naks_sent),
	XS("qp_rnr_naks_rcvd", qp_rnr_naks_rcvd),
	XS("qp_rnr_retry_exc", qp_rnr_retry_exc),
	XS("qp_retransmits", qp_retransmits),
	XS("qp_no_qp", qp_no_qp),
	XS("qp_bad_wqes", qp_bad_wqes),
	XS("cq_overruns", cq_overruns),
};
#undef XS

/* then the CM's (hca_cm_stats_get(), under the port lock): ids and
 * connections live, and connections established since the start (a
 * reset leaves them: they are the CM's, not the port's counters); the
 * port's QPs live; and the frames of its device in the node's network
 * namespace (net/netif.h), to the host, from it, dropped */
static const char *const cm_xstats[] = {
	"cm_ids", "cm_conns", "cm_conns_established", "verbs_qps",
	"netif_to_host", "netif_from_host", "netif_dropped",
};
#define NB_XSTATS	(RTE_DIM(xstats_tbl) + RTE_DIM(cm_xstats))

static int
eth_xstats_get_names(struct rte_eth_dev *dev __rte_unused,
		     struct rte_eth_xstat_name *names, unsigned int n)
{
	unsigned int i;

	if (!names || n < NB_XSTATS)
		return NB_XSTATS;
	for (i = 0; i < RTE_DIM(xstats_tbl); i++)
		strlcpy(names[i].name, xstats_tbl[i].name,
			sizeof(names[i].name));
	for (i = 0; i < RTE_DIM(cm_xstats); i++)
		strlcpy(names[RTE_DIM(xstats_tbl) + i].name, cm_xstats[i],
			sizeof(names[0].name));
	return NB_XSTATS;
}

static int
eth_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
	       unsigned int n)
{
	struct hca_internals *hi = dev->data->dev_private;
	const uint8_t *c = (const uint8_t *)&hi->port.cnt;
	struct rte_eth_xstat *x = xs + RTE_DIM(xstats_tbl);
	struct hca_cm_stats st;
	unsigned int i;

	if (!xs || n < NB_XSTATS)
		return NB_XSTATS;
	for (i = 0; i < RTE_DIM(xstats_tbl); i++) {
		xs[i].id = i;
		memcpy(&xs[i].value, c + xstats_tbl[i].off, sizeof(uint64_t));
	}
	rte_spinlock_lock(&hi->lock);
	hca_cm_stats_get(hi->cm, &st);
	for (i = 0; i < RTE_DIM(cm_xstats); i++)
		x[i].id = RTE_DIM(xstats_tbl) + i;
	x[3].value = hi->verbs.nqps;
	x[4].value = hi->netif.to_host + hi->ipoib.to_host;
	x[5].value = hi->netif.from_host + hi->ipoib.from_host;
	x[6].value = hi->netif.dropped + hi->ipoib.dropped;
	rte_spinlock_unlock(&hi->lock);
	x[0].value = st.ids;
	x[1].value = st.conns;
	x[2].value = st.established;
	return NB_XSTATS;
}

static int
eth_xstats_reset(struct rte_eth_dev *dev)
{
	struct hca_internals *hi = dev->data->dev_private;

	rte_spinlock_lock(&hi->lock);
	memset(&hi->port.cnt, 0, sizeof(hi->port.cnt));
	rte_spinlock_unlock(&hi->lock);
	return 0;
}

/* ethdev records the new mode only after the op returns */
static int
eth_promisc_enable(struct rte_eth_dev *dev)
{
	struct hca_internals *hi = dev->data->dev_private;

	hi->promisc = true;
	return 0;
}

static int
eth_promisc_disable(struct rte_eth_dev *dev)
{
	struct hca_internals *hi = dev->data->dev_private;

	hi->promisc = false;
	return 0;
}

static int
eth_set_link(struct rte_eth_dev *dev, bool up)
{
	struct hca_internals *hi = dev->data->dev_private;
	struct hca_port *p = &hi->port;

	rte_spinlock_lock(&hi->lock);
	p->admin_up = up;
	if (!up) {
		if (p->phys_state == HCA_PHYS_LINKUP)
			p->cnt.link_downed++;
		p->phys_state = HCA_PHYS_DISABLED;
		p->port_state = HCA_PORT_DOWN;
	} else if (hi->started && !hi->no_carrier) {
		p->phys_state = HCA_PHYS_LINKUP;
		p->port_state = link_up_state(p);
	} else {
		p->phys_state = HCA_PHYS_POLLING;
	}
	hca_rec_port_check(&hi->rec, p);
	if (hi->chan)
		hca_chan_port_events(hi->chan);
	rte_spinlock_unlock(&hi->lock);
	hca_link_event(hi);
	return 0;
}

static int
eth_set_link_up(struct rte_eth_dev *dev)
{
	return eth_set_link(dev, true);
}

static int
eth_set_link_down(struct rte_eth_dev *dev)
{
	return eth_set_link(dev, false);
}

/*
 * On RoCE the port's active IB MTU follows its Ethernet MTU, as a RoCE
 * NIC's follows its netdev's: 1500 carries 1024 (the default), 9000
 * carries 4096. An IB port's MTU is the SM's business (NeighborMTU).
 */
static int
eth_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct hca_internals *hi = dev->data->dev_private;
	struct hca_port *p = &hi->port;
	uint8_t m;

	if (p->link != MPD_LINK_ROCE_V2)
		return mtu <= 4096 ? 0 : -EINVAL;
	m = hca_roce_mtu(mtu);
	if (!m)
		return -EINVAL;
	rte_spinlock_lock(&hi->lock);
	p->neighbor_mtu = m;
	hca_rec_port_check(&hi->rec, p);
	rte_spinlock_unlock(&hi->lock);
	return 0;
}

static const struct eth_dev_ops hca_ops = {
	.dev_configure = eth_dev_configure,
	.dev_start = eth_dev_start,
	.dev_stop = eth_dev_stop,
	.dev_close = eth_dev_close,
	.dev_set_link_up = eth_set_link_up,
	.dev_set_link_down = eth_set_link_down,
	.dev_infos_get = eth_dev_info,
	.rx_queue_setup = eth_rx_queue_setup,
	.tx_queue_setup = eth_tx_queue_setup,
	.rx_queue_release = eth_queue_release,
	.tx_queue_release = eth_queue_release,
	.link_update = hca_link_update,
	.stats_get = eth_stats_get,
	.stats_reset = eth_stats_reset,
	.xstats_get = eth_xstats_get,
	.xstats_get_names = eth_xstats_get_names,
	.xstats_reset = eth_xstats_reset,
	.promiscuous_enable = eth_promisc_enable,
	.promiscuous_disable = eth_promisc_disable,
	.mtu_set = eth_mtu_set,
	.rx_queue_intr_enable = eth_rx_intr_enable,
	.rx_queue_intr_disable = eth_rx_intr_disable,
};

/* ---- probe / remove ----------------------------------------------------- */

static int
hca_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *dev;
	struct hca_internals *hi;
	char ring_name[RTE_RING_NAMESIZE];
	struct hca_chan_cfg chan_cfg;
	struct hca_port port;
	char run_dir[RUN_DIR_LEN] = "";
	unsigned int umad_mode = 0600;
	int rc;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		dev = rte_eth_dev_attach_secondary(name);
		if (!dev)
			return -ENODEV;
		dev->dev_ops = &hca_ops;
		dev->device = &vdev->device;
		/* the port's state is in the primary's heap */
		dev->rx_pkt_burst = hca_burst_none;
		dev->tx_pkt_burst = hca_burst_none;
		rte_eth_dev_probing_finish(dev);
		return 0;
	}
	rc = parse_devargs(&port, name, rte_vdev_device_args(vdev), run_dir,
			   &umad_mode);
	if (rc)
		return rc;
	dev = rte_eth_vdev_allocate(vdev, sizeof(*hi));
	if (!dev)
		return -ENOMEM;
	hi = dev->data->dev_private;
	hi->port = port;
	hca_sma_init(&hi->port);
	/* the Ethernet MTU ethdev starts with (RTE_ETHER_MTU) */
	if (hi->port.link == MPD_LINK_ROCE_V2)
		hi->port.neighbor_mtu = hca_roce_mtu(RTE_ETHER_MTU);
	hi->port_id = dev->data->port_id;
	hi->netif.fd = -1;
	hi->rec.node_id = hi->port_id;
	memcpy(hi->mac.addr_bytes, port.mac, sizeof(port.mac));
	hca_mad_layer_init(&hi->ml, &hi->port);
	hca_verbs_init(&hi->verbs, &hi->port);
	hi->verbs.on_cqe = record_cqe;
	hi->verbs.on_qp = record_qp;
	hi->verbs.rec_ctx = hi;
	rte_spinlock_init(&hi->lock);
	snprintf(ring_name, sizeof(ring_name), "hca_eg_%u", hi->port_id);
	/* every tx queue produces, every rx queue consumes */
	hi->egress = rte_ring_create(ring_name, HCA_EGRESS_RING,
				     rte_socket_id(), 0);
	/* frames a QP sends to its own port, taken in again by rx_burst */
	snprintf(ring_name, sizeof(ring_name), "hca_lp_%u", hi->port_id);
	hi->loop = rte_ring_create(ring_name, HCA_EGRESS_RING, rte_socket_id(),
				   RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (!hi->egress || !hi->loop) {
		HCA_LOG(ERR, "%s: cannot create the egress rings: %s", name,
			rte_strerror(rte_errno));
		rc = -ENOMEM;
		goto free_rings;
	}
	dev->data->mac_addrs = &hi->mac;
	/* the link's changes raise RTE_ETH_EVENT_INTR_LSC (hca_link_event()) */
	dev->data->dev_flags |= RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS |
				RTE_ETH_DEV_INTR_LSC;
	dev->dev_ops = &hca_ops;
	dev->rx_pkt_burst = hca_rx_burst;
	dev->tx_pkt_burst = hca_tx_burst;
	hca_link_fill(&hi->port, &dev->data->dev_link);
	memcpy(hi->run_dir, run_dir, sizeof(hi->run_dir));
	hi->umad_mode = umad_mode;
	/* the port's CM: a client of its MAD layer like any other */
	if (run_dir[0] && hca_cm_create(&hi->cm, &hi->port, &hi->ml, &hi->rec) != 0)
		HCA_LOG(WARNING, "%s: no memory for the CM: rdma_cm is not served",
			name);
	chan_cfg = (struct hca_chan_cfg){
		.port = &hi->port,
		.ml = &hi->ml,
		.verbs = &hi->verbs,
		.cm = hi->cm,
		.rec = &hi->rec,
		.lock = &hi->lock,
		.run_dir = hi->run_dir,
		.mode = umad_mode,
		.port_id = hi->port_id,
		.netif = &hi->netif,
		.ipoib = &hi->ipoib,
	};
	rc = hca_services_start(&hi->db, &hi->chan, &chan_cfg);
	if (rc) {
		rc = -rc;
		goto free_cm;
	}
	if (intr_alloc(dev) != 0) {
		HCA_LOG(ERR, "%s: cannot make the rx interrupt: %s", name,
			strerror(errno));
		rc = -ENOMEM;
		goto free_intr;
	}
	rte_eth_dev_probing_finish(dev);
	HCA_LOG(INFO, "%s: port %u node '%s' link=%s node_guid 0x%016" PRIx64
		" port_guid 0x%016" PRIx64, name, hi->port_id,
		hi->port.node_desc, hi->port.link == MPD_LINK_IB ? "ib" : "roce",
		hi->port.node_guid, hi->port.port_guid);
	return 0;

free_intr:
	intr_free(dev);
	hca_services_stop(&hi->db, &hi->chan);
free_cm:
	hca_cm_destroy(hi->cm);
	hi->cm = NULL;
free_rings:
	rte_ring_free(hi->egress);
	rte_ring_free(hi->loop);
	/* mac_addrs lives in dev_private: not for rte_free */
	dev->data->mac_addrs = NULL;
	rte_eth_dev_release_port(dev);
	return rc;
}

static int
hca_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev;

	dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));
	if (!dev)
		return 0;
	eth_dev_close(dev);
	rte_eth_dev_release_port(dev);
	return 0;
}

static struct rte_vdev_driver hca_vdev_drv = {
	.probe = hca_probe,
	.remove = hca_remove,
};

RTE_PMD_REGISTER_VDEV(net_hca, hca_vdev_drv);
RTE_PMD_REGISTER_PARAM_STRING(net_hca,
	"node=<name> desc=<node description> "
	"node_guid=<u64> port_guid=<u64> sys_guid=<u64> "
	"port=<1..254> num_ports=<1..254> link=ib|roce "
	"mac=<xx:xx:xx:xx:xx:xx> ip=<a.b.c.d> pkeys=<pkey>[:<pkey>...] "
	"mkey=<u64> width=1x|4x|8x|12x speed=sdr|ddr|qdr "
	"run_dir=<dir> umad_mode=<octal>");

struct hca_internals *
hca_of_port(uint16_t port_id)
{
	struct rte_eth_dev *dev;

	if (!rte_eth_dev_is_valid_port(port_id))
		return NULL;
	dev = &rte_eth_devices[port_id];
	return dev->dev_ops == &hca_ops ? dev->data->dev_private : NULL;
}

static struct hca_internals *
hca_of_port_checked(uint16_t port_id, int *rc)
{
	struct hca_internals *hi;

	*rc = 0;
	if (!rte_eth_dev_is_valid_port(port_id)) {
		*rc = -ENODEV;
		return NULL;
	}
	hi = hca_of_port(port_id);
	if (!hi)
		*rc = -ENOTSUP;
	return hi;
}

int
rte_pmd_hca_port_info_get(uint16_t port_id, struct rte_pmd_hca_port_info *info)
{
	struct hca_internals *hi;
	struct hca_port *p;
	int rc;

	if (!info)
		return -ENODEV;
	hi = hca_of_port_checked(port_id, &rc);
	if (!hi)
		return rc;
	p = &hi->port;
	rte_spinlock_lock(&hi->lock);
	memcpy(info->node_desc, p->node_desc, sizeof(info->node_desc));
	info->node_guid = p->node_guid;
	info->port_guid = p->port_guid;
	info->lid = p->lid;
	info->sm_lid = p->sm_lid;
	info->port_num = p->port_num;
	info->port_state = p->port_state;
	info->phys_state = p->phys_state;
	info->link_roce = p->link != MPD_LINK_IB;
	info->cap_mask = p->cap_mask;
	info->active_mtu = p->neighbor_mtu;
	rte_spinlock_unlock(&hi->lock);
	return 0;
}

int
rte_pmd_hca_carrier_set(uint16_t port_id, int on)
{
	struct hca_internals *hi;
	struct hca_port *p;
	int rc;

	hi = hca_of_port_checked(port_id, &rc);
	if (!hi)
		return rc;
	p = &hi->port;
	rte_spinlock_lock(&hi->lock);
	hi->no_carrier = !on;
	/* before dev_start the link trains there */
	if (!on || hi->started)
		hca_port_carrier(p, on != 0, link_up_state(p));
	hca_rec_port_check(&hi->rec, p);
	if (hi->chan)
		hca_chan_port_events(hi->chan);
	rte_spinlock_unlock(&hi->lock);
	/* what ethdev's link status shows (its "unchanged" is no error) */
	hca_link_event(hi);
	return 0;
}

int
rte_pmd_hca_mtu_limit(uint16_t port_id, uint8_t mtu)
{
	struct hca_internals *hi;
	int rc;

	if (mtu < 1 || mtu > 5)
		return -EINVAL;
	hi = hca_of_port_checked(port_id, &rc);
	if (!hi)
		return rc;
	rte_spinlock_lock(&hi->lock);
	hca_port_mtu_limit(&hi->port, mtu);
	hca_rec_port_check(&hi->rec, &hi->port);
	rte_spinlock_unlock(&hi->lock);
	return 0;
}

/* rte_pmd_hca_crc_ours() and rte_pmd_hca_crc_lazy() */
static int
crc_set(uint16_t port_id, int on, bool lazy)
{
	struct hca_internals *hi;
	int rc;

	hi = hca_of_port_checked(port_id, &rc);
	if (!hi)
		return rc;
	rte_spinlock_lock(&hi->lock);
	if (lazy) {
		hi->crc_lazy = on != 0;
		hca_crc_lazy_update(hi);
	} else {
		hi->port.crc_ours = on != 0;
	}
	rte_spinlock_unlock(&hi->lock);
	return 0;
}

int
rte_pmd_hca_crc_ours(uint16_t port_id, int on)
{
	return crc_set(port_id, on, false);
}

int
rte_pmd_hca_crc_lazy(uint16_t port_id, int on)
{
	return crc_set(port_id, on, true);
}

int
rte_pmd_hca_crc_watched(uint16_t port_id)
{
	struct hca_internals *hi;
	int rc;

	hi = hca_of_port_checked(port_id, &rc);
	if (!hi)
		return rc;
	return hca_crc_watched(hi);
}

int
rte_pmd_hca_records_enable(uint16_t port_id, int on)
{
	struct hca_internals *hi = hca_of_port(port_id);
	int rc;

	if (!hi)
		return -ENODEV;
	/* the ring is made without the lock: it allocates */
	rc = on ? hca_rec_prepare(&hi->rec) : 0;
	if (rc)
		return -rc;
	rte_spinlock_lock(&hi->lock);
	hca_rec_enable(&hi->rec, &hi->port, on != 0);
	rte_spinlock_unlock(&hi->lock);
	return 0;
}

unsigned int
rte_pmd_hca_records_dequeue(uint16_t port_id, struct rte_pmd_hca_record **recs,
			    unsigned int n)
{
	struct hca_internals *hi = hca_of_port(port_id);

	return hi ? hca_rec_dequeue(&hi->rec, recs, n) : 0;
}

int
rte_pmd_hca_neigh_self(uint16_t port_id, struct rte_pmd_hca_neigh *n)
{
	struct hca_internals *hi;
	struct hca_neigh self;
	int rc;

	hi = hca_of_port_checked(port_id, &rc);
	if (!hi)
		return rc;
	rte_spinlock_lock(&hi->lock);
	hca_port_neigh(&hi->port, &self);
	rte_spinlock_unlock(&hi->lock);
	memcpy(n->gid, self.gid, sizeof(n->gid));
	memcpy(n->mac, self.mac, sizeof(n->mac));
	memcpy(n->ip4, self.ip4, sizeof(n->ip4));
	return 0;
}

int
rte_pmd_hca_neigh_add(uint16_t port_id, const struct rte_pmd_hca_neigh *n)
{
	struct hca_internals *hi;
	struct hca_neigh *tbl = NULL, *old = NULL, e;
	uint32_t i, cap = 0;
	int rc;

	hi = hca_of_port_checked(port_id, &rc);
	if (!hi)
		return rc;
	memcpy(e.gid, n->gid, sizeof(e.gid));
	memcpy(e.mac, n->mac, sizeof(e.mac));
	memcpy(e.ip4, n->ip4, sizeof(e.ip4));
	rc = 0;
	for (;;) {
		rte_spinlock_lock(&hi->lock);
		for (i = 0; i < hi->port.nneigh; i++)
			if (!memcmp(hi->port.neigh[i].gid, e.gid, sizeof(e.gid)))
				break;
		if (i < hi->port.nneigh) {
			hi->port.neigh[i] = e;
			break;
		}
		/* room made before, while the lock was not held: in it */
		if (tbl && cap > hi->port.neigh_cap) {
			if (hi->port.nneigh)
				memcpy(tbl, hi->port.neigh,
				       hi->port.nneigh * sizeof(*tbl));
			old = hi->port.neigh;
			hi->port.neigh = tbl;
			hi->port.neigh_cap = cap;
			tbl = NULL;
		}
		if (hi->port.nneigh < hi->port.neigh_cap) {
			hi->port.neigh[hi->port.nneigh++] = e;
			break;
		}
		if (hi->port.neigh_cap >= HCA_NEIGH_MAX) {
			rc = -ENOSPC;
			break;
		}
		/* grown twice as large, allocated without the lock */
		cap = hi->port.neigh_cap ? 2 * hi->port.neigh_cap : 64;
		rte_spinlock_unlock(&hi->lock);
		rte_free(tbl);
		tbl = rte_zmalloc("hca_neigh", cap * sizeof(*tbl), 0);
		if (!tbl)
			return -ENOMEM;
	}
	rte_spinlock_unlock(&hi->lock);
	rte_free(tbl);
	rte_free(old);
	return rc;
}

int
rte_pmd_hca_client_spins_on(uint16_t port_id, int cpu)
{
	struct hca_internals *hi;
	int rc;

	hi = hca_of_port_checked(port_id, &rc);
	if (!hi)
		return rc;
	return cpu >= 0 && hi->chan && hca_chan_spins_on(hi->chan, cpu);
}

int
rte_pmd_hca_wake_at(uint16_t port_id, uint64_t *at_ns)
{
	struct hca_internals *hi;
	uint64_t at, now;
	int rc, cm_ms;

	hi = hca_of_port_checked(port_id, &rc);
	if (!hi)
		return rc;
	if (!at_ns)
		return -EINVAL;
	*at_ns = UINT64_MAX;
	/* no timer, no CM: nothing to wake for (as rx_burst found it) */
	if (hca_still_quiet(hi) && rte_ring_empty(hi->loop))
		return 0;
	now = mpd_mono_ns();
	rte_spinlock_lock(&hi->lock);
	/* the QP layer's timers to the microsecond (an RNR wait is 10 us
	 * to 655 ms: IBA 9.7.5.2.8) */
	at = hca_verbs_wake_at(&hi->verbs);
	/* the MAD layer's are 1 ms grained */
	if (hca_mad_timers(&hi->ml) || !rte_ring_empty(hi->loop))
		at = RTE_MIN(at, now + 1000000);
	/* the CM's are seconds long: until the next one */
	cm_ms = hca_cm_idle_ms(hi->cm);
	rte_spinlock_unlock(&hi->lock);
	if (cm_ms >= 0)
		at = RTE_MIN(at, now + (uint64_t)RTE_MAX(cm_ms, 1) * 1000000);
	*at_ns = at;
	return 0;
}

int
rte_pmd_hca_idle_ms(uint16_t port_id)
{
	uint64_t at, now;
	int rc;

	rc = rte_pmd_hca_wake_at(port_id, &at);
	if (rc)
		return rc;
	if (at == UINT64_MAX)
		return -1;
	now = mpd_mono_ns();
	/* at least 1: the caller's epoll cannot sleep less, and polls
	 * first anyway */
	if (at <= now + 1000000)
		return 1;
	return (int)RTE_MIN((at - now + 999999) / 1000000, (uint64_t)INT_MAX);
}
