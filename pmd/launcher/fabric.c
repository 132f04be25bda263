/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "fabric.h"
#include "lcore_place.h"
#include "madpmd/attr.h"
#include "madpmd/clock.h"
#include "madpmd/pcapng.h"
#include "madpmd/run_delay.h"
#include "node/node.h"
#include "replay.h"
#include "rte_pmd_hca.h"

#define BURST		32
#define NB_MBUFS	8191
#define MBUF_DATA	FAB_FRAME_MAX
#define RING_DESC	512

int
fab_add_hca(struct fabric *f, const char *node, uint8_t num,
	    uint8_t num_ports, uint64_t node_guid, unsigned int name_idx,
	    const char *devargs)
{
	struct fab_port *p;
	char args[512];
	uint16_t pid;
	int n;

	if (f->nports == FAB_MAX_PORTS) {
		fprintf(stderr, "madpmd: too many ports (at most %d)\n",
			FAB_MAX_PORTS);
		return -1;
	}
	p = &f->port[f->nports];
	memset(p, 0, sizeof(*p));
	snprintf(p->node, sizeof(p->node), "%s", node);
	p->num = num;
	p->hca = true;
	p->link = f->opts.link;
	p->peer = -1;
	snprintf(p->dev, sizeof(p->dev), "net_hca%u", name_idx);
	n = snprintf(args, sizeof(args),
		     "node=%s,port=%u,num_ports=%u,link=%s%s%s", node, num,
		     num_ports, f->opts.link == MPD_LINK_IB ? "ib" : "roce",
		     devargs && *devargs ? "," : "", devargs ? devargs : "");
	if (node_guid && n > 0 && (size_t)n < sizeof(args))
		n += snprintf(args + n, sizeof(args) - (size_t)n,
			      ",node_guid=0x%016" PRIx64, node_guid);
	if (f->opts.run_dir && n > 0 && (size_t)n < sizeof(args))
		n += snprintf(args + n, sizeof(args) - (size_t)n,
			      ",run_dir=%s,umad_mode=0%o", f->opts.run_dir,
			      f->opts.umad_mode);
	if (rte_vdev_init(p->dev, args) != 0 ||
	    rte_eth_dev_get_port_by_name(p->dev, &pid) != 0) {
		fprintf(stderr, "madpmd: cannot create port %u of node \"%s\" (%s,%s)\n",
			num, node, p->dev, args);
		return -1;
	}
	p->port_id = pid;
	return (int)f->nports++;
}

int
fab_add_far_neigh(struct fabric *f, const uint8_t gid[16],
		  const uint8_t mac[6], const uint8_t ip4[4])
{
	struct rte_pmd_hca_neigh *n;

	n = realloc(f->far, (f->nfar + 1) * sizeof(*n));
	if (!n)
		return -1;
	f->far = n;
	n += f->nfar++;
	memcpy(n->gid, gid, sizeof(n->gid));
	memcpy(n->mac, mac, sizeof(n->mac));
	memcpy(n->ip4, ip4, sizeof(n->ip4));
	return 0;
}

static int
find(const struct fabric *f, const char *spec, bool any_node)
{
	char node[FAB_NAME_LEN];
	const char *colon = strrchr(spec, ':');
	unsigned long num = 1;
	unsigned int i;

	for (i = 0; i < f->nports; i++)
		if (strcmp(f->port[i].dev, spec) == 0)
			return (int)i;
	if (colon) {
		char *end;

		num = strtoul(colon + 1, &end, 10);
		if (*end || colon == spec ||
		    (size_t)(colon - spec) >= sizeof(node))
			return -1;
		memcpy(node, spec, (size_t)(colon - spec));
		node[colon - spec] = '\0';
	} else {
		snprintf(node, sizeof(node), "%s", spec);
	}
	for (i = 0; i < f->nports; i++)
		if ((f->port[i].hca ||
		     (any_node && !fab_port_ethdev(&f->port[i]))) &&
		    f->port[i].num == num &&
		    strcmp(f->port[i].node, node) == 0)
			return (int)i;
	return -1;
}

int
fab_find(const struct fabric *f, const char *spec)
{
	return find(f, spec, false);
}

int
fab_find_node_port(const struct fabric *f, const char *spec)
{
	return find(f, spec, true);
}

/* A probability: "0.05" or "5%". */
static int
parse_prob(const char *v, uint32_t *out)
{
	char *end;
	double p;

	errno = 0;
	p = strtod(v, &end);
	if (end != v && *end == '%') {
		p /= 100;
		end++;
	}
	if (errno || end == v || *end || !(p >= 0 && p <= 1))
		return -1;
	*out = p >= 1 ? UINT32_MAX : (uint32_t)(p * 4294967296.0);
	return 0;
}

int
fab_set_lossy(struct fabric *f, const char *spec)
{
	static const char *const once[] = { "drop", "dup", "reorder", "seed",
					    "port" };
	struct fab_lossy l = { .port = -1, .seed = 1 };
	char buf[256], *next = buf, *kv;
	unsigned int seen = 0, k;

	if (strcmp(spec, "off") == 0) {
		f->opts.lossy = l;
		return 0;
	}
	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf))
		goto bad;
	/* every item says something: none empty, none but mad= twice */
	while ((kv = strsep(&next, ","))) {
		char *v = strchr(kv, '=');
		int rc = -1;

		if (!v)
			goto bad;
		*v++ = '\0';
		for (k = 0; k < RTE_DIM(once); k++) {
			if (strcmp(kv, once[k]))
				continue;
			if (seen & (1u << k)) {
				fprintf(stderr, "madpmd: --lossy %s: %s= given twice\n",
					spec, kv);
				return -1;
			}
			seen |= 1u << k;
		}
		if (strcmp(kv, "drop") == 0) {
			rc = parse_prob(v, &l.drop);
		} else if (strcmp(kv, "dup") == 0) {
			rc = parse_prob(v, &l.dup);
		} else if (strcmp(kv, "reorder") == 0) {
			rc = parse_prob(v, &l.reorder);
		} else if (strcmp(kv, "seed") == 0) {
			char *end;

			errno = 0;
			l.seed = strtoull(v, &end, 0);
			rc = errno || *end || end == v ? -1 : 0;
		} else if (strcmp(kv, "port") == 0) {
			l.port = fab_find(f, v);
			if (l.port < 0) {
				fprintf(stderr, "madpmd: --lossy: no port \"%s\" in the fabric\n",
					v);
				return -1;
			}
			rc = 0;
		} else if (strcmp(kv, "mad") == 0) {
			rc = fab_lossy_sel_parse(&l, v);
			if (rc == -E2BIG) {
				fprintf(stderr, "madpmd: --lossy: at most %d mad= selectors\n",
					FAB_LOSSY_MAX_SEL);
				return -1;
			}
			if (rc) {
				fprintf(stderr, "madpmd: --lossy: mad=%s: give a management class and optionally an attribute ID, e.g. mad=0x07:0x0014 (CM RTU) or mad=0x04 (PerfMgt), with CLASS at most 0xff and ATTR at most 0xffff\n",
					v);
				return -1;
			}
		}
		if (rc)
			goto bad;
	}
	/* xorshift needs a state other than 0 */
	f->rng = l.seed ? l.seed : 1;
	f->opts.lossy = l;
	return 0;
bad:
	fprintf(stderr, "madpmd: --lossy %s: give drop=P,dup=P,reorder=P[,seed=N][,port=NODE:PORT][,mad=CLASS[:ATTR]]... with probabilities P such as 0.05 or 5%%, or off\n",
		spec);
	return -1;
}

/* Every HCA port learns where every other HCA port of its link type is:
 * its GIDs, MAC and IPv4 address, so that a GRH-addressed send on RoCE
 * never asks the network, and rdma_cm resolves an IP address on IB and
 * RoCE alike without ARP (the fabric's own table, not IPoIB). */
static int
fab_addresses(struct fabric *f)
{
	struct rte_pmd_hca_neigh n;
	unsigned int i, j;
	int rc;

	for (i = 0; i < f->nports; i++) {
		if (!f->port[i].hca)
			continue;
		for (j = 0; j < f->nports; j++) {
			if (j == i || !f->port[j].hca ||
			    f->port[j].link != f->port[i].link ||
			    rte_pmd_hca_neigh_self(f->port[j].port_id, &n) != 0)
				continue;
			rc = rte_pmd_hca_neigh_add(f->port[i].port_id, &n);
			if (rc) {
				fprintf(stderr, "madpmd: %s cannot learn where %s is: %s\n",
					f->port[i].dev, f->port[j].dev,
					rte_strerror(-rc));
				return -1;
			}
		}
		/* and the ports of the other daemons' nodes */
		for (j = 0; j < f->nfar; j++) {
			rc = rte_pmd_hca_neigh_add(f->port[i].port_id,
						   &f->far[j]);
			if (rc) {
				fprintf(stderr, "madpmd: %s cannot learn the ports of other daemons: %s\n",
					f->port[i].dev, rte_strerror(-rc));
				return -1;
			}
		}
	}
	return 0;
}

/* The MTU a frame through outside ethdev port_id may have: the
 * interface's (net_af_packet names its if_index), else the ethdev's own,
 * and never more than the ethdev takes (net_af_packet's framesz=) */
static int
iface_mtu(uint16_t port_id, char *name, size_t cap)
{
	struct rte_eth_dev_info di;
	struct ifreq ifr;
	uint16_t m;
	int fd, mtu = -1;

	snprintf(name, cap, "its ethdev");
	if (rte_eth_dev_info_get(port_id, &di) != 0)
		return -1;
	if (di.if_index && if_indextoname(di.if_index, ifr.ifr_name)) {
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && ioctl(fd, SIOCGIFMTU, &ifr) == 0) {
			snprintf(name, cap, "%s", ifr.ifr_name);
			mtu = ifr.ifr_mtu;
		}
		if (fd >= 0)
			close(fd);
	}
	if (mtu <= 0 && rte_eth_dev_get_mtu(port_id, &m) == 0)
		mtu = m;
	if (mtu > 0 && di.max_rx_pktlen > RTE_ETHER_HDR_LEN &&
	    (uint32_t)mtu > di.max_rx_pktlen - RTE_ETHER_HDR_LEN)
		mtu = (int)(di.max_rx_pktlen - RTE_ETHER_HDR_LEN);
	return mtu;
}

/* A RoCE port cabled to an outside ethdev takes the interface's MTU, as a
 * RoCE NIC's IB MTU follows its netdev's: frames the interface cannot
 * carry would be lost on the way */
static void
roce_mtu(struct fabric *f, struct fab_port *p)
{
	struct fab_port *q = &f->port[p->peer];
	struct rte_pmd_hca_port_info pi;
	char name[IF_NAMESIZE + 16];
	int mtu = iface_mtu(q->port_id, name, sizeof(name));

	if (mtu <= 0)
		return;
	if (rte_eth_dev_set_mtu(p->port_id, (uint16_t)RTE_MIN(mtu, 9216)) != 0) {
		fprintf(stderr, "madpmd: %s:%u: %s's MTU %d cannot carry RoCE: the port keeps IB MTU 1024\n",
			p->node, p->num, name, mtu);
		return;
	}
	if (rte_pmd_hca_port_info_get(p->port_id, &pi) == 0)
		printf("madpmd: %s:%u: RoCE over %s, %d bytes a frame at most: IB MTU %u\n",
		       p->node, p->num, name, mtu, 128u << pi.active_mtu);
	fflush(stdout);
}

/* An IB link over an outside ethdev whose frames hold mtu bytes (name,
 * the interface): port q behind it says (MTUCap) it carries no larger
 * packets, and the SM then sets NeighborMTU and paths across it to fit;
 * said on stdout when say */
static void
ib_link_mtu(struct fab_port *q, const char *name, int mtu, bool say)
{
	uint8_t m = hca_ib_frame_mtu((uint32_t)mtu);

	if (!m) {
		fprintf(stderr, "madpmd: %s[%u]: %s's frames (%d bytes) cannot carry IB packets\n",
			q->node, q->num, name, mtu);
		return;
	}
	if (q->sw)
		fab_switch_mtu_limit(q, m);
	else if (q->ca)
		fab_ca_mtu_limit(q, m);
	else if (!q->hca || rte_pmd_hca_mtu_limit(q->port_id, m) != 0)
		return;
	if (m < 5 && say) {
		printf("madpmd: %s[%u]: IB over %s, %d bytes a frame at most: MTUCap %u\n",
		       q->node, q->num, name, mtu, 128u << m);
		fflush(stdout);
	}
}

/* --wire's ethdev p: the port behind it, as the interface's frames hold */
static void
ib_wire_mtu(struct fabric *f, struct fab_port *p)
{
	char name[IF_NAMESIZE + 16];
	int mtu = iface_mtu(p->port_id, name, sizeof(name));

	if (p->peer >= 0 && mtu > 0)
		ib_link_mtu(&f->port[p->peer], name, mtu, true);
}

/* The trunk's cables: training, and MTUCap as the interface's frames
 * hold (its MTU read once), said once for all of them */
static int
trunk_start(struct fabric *f)
{
	struct fab_trunk *t = f->trunk;
	char name[IF_NAMESIZE + 16];
	int mtu;
	unsigned int i;

	if (fab_trunk_start(f) != 0)
		return -1;
	f->nwires += t->ncables;
	mtu = iface_mtu(t->port_id, name, sizeof(name));
	if (mtu <= 0)
		return 0;
	for (i = 0; i < t->ncables; i++)
		ib_link_mtu(&f->port[f->port[t->cable[i]].peer], name, mtu,
			    false);
	if (hca_ib_frame_mtu((uint32_t)mtu) < 5) {
		printf("madpmd: the trunk's cables: IB over %s, %d bytes a frame at most: MTUCap %u\n",
		       name, mtu, 128u << hca_ib_frame_mtu((uint32_t)mtu));
		fflush(stdout);
	}
	return 0;
}

/* A net_hca port's link went up or down (any thread: the lcore's burst, the
 * prompt's `set link`): the lcore looks at the cables' other ends */
static int
link_event(uint16_t port_id __rte_unused, enum rte_eth_event_type type,
	   void *arg, void *ret_param __rte_unused)
{
	struct fabric *f = arg;

	if (type == RTE_ETH_EVENT_INTR_LSC)
		__atomic_store_n(&f->link_events, true, __ATOMIC_RELEASE);
	return 0;
}

int
fab_start(struct fabric *f)
{
	struct rte_eth_conf conf;
	unsigned int i;

	/* a trunk's cables are polled through it */
	for (i = 0; i < f->nports; i++)
		if (fab_port_ethdev(&f->port[i]) && !f->port[i].trunk)
			f->eth[f->neth++] = (int)i;
	/* the first look at the cables' ends comes at once */
	f->links_seen = __atomic_load_n(&hca_link_changes,
					__ATOMIC_RELAXED) - 1;
	/* a ring's worth each way for every ethdev: switch ports and served
	 * CAs hold what they pass on for a moment only */
	f->pool = rte_pktmbuf_pool_create("madpmd_pool",
					  NB_MBUFS + 1024 * f->neth +
					  (f->trunk ? 2 * FAB_TRUNK_RING : 0),
					  256, 0,
					  MBUF_DATA + RTE_PKTMBUF_HEADROOM,
					  rte_socket_id());
	if (!f->pool) {
		fprintf(stderr, "madpmd: cannot create the mbuf pool: %s (more memory with -m?)\n",
			rte_strerror(rte_errno));
		return -1;
	}
	/* before any port moves a frame */
	if (fab_addresses(f) != 0)
		return -1;
	for (i = 0; i < f->nports; i++) {
		uint16_t pid = f->port[i].port_id;
		/* an HCA port cabled to an outside ethdev: another daemon's
		 * port, a NIC, a replayed capture's */
		bool outside = f->port[i].hca && f->port[i].peer >= 0 &&
			       !fab_peer_ours(f, i);
		int rc;

		/* a switch's or a served CA's; a trunk's cable */
		if (!fab_port_ethdev(&f->port[i]) || f->port[i].trunk)
			continue;
		/* an HCA port wakes a sleeping lcore when a client sends,
		 * and says when its link moves */
		memset(&conf, 0, sizeof(conf));
		conf.intr_conf.rxq = f->port[i].hca;
		conf.intr_conf.lsc = f->port[i].hca;
		rc = rte_eth_dev_configure(pid, 1, 1, &conf);
		if (!rc && f->port[i].hca)
			rc = rte_eth_dev_callback_register(pid,
				RTE_ETH_EVENT_INTR_LSC, link_event, f);
		if (!rc)
			rc = rte_eth_rx_queue_setup(pid, 0, RING_DESC,
						    rte_socket_id(), NULL,
						    f->pool);
		if (!rc)
			rc = rte_eth_tx_queue_setup(pid, 0, RING_DESC,
						    rte_socket_id(), NULL);
		/* an HCA port without a cable has no partner to train with:
		 * Down and Polling, as under ibsim, not LinkUp */
		if (!rc && f->port[i].hca && f->port[i].peer < 0 &&
		    !f->port[i].replay)
			rc = rte_pmd_hca_carrier_set(pid, 0);
		if (!rc && outside && f->opts.link == MPD_LINK_ROCE_V2)
			roce_mtu(f, &f->port[i]);
		/* nor one cabled to another daemon's, until it is heard */
		if (!rc && outside && f->opts.link == MPD_LINK_IB)
			rc = rte_pmd_hca_carrier_set(pid, 0);
		if (!rc)
			rc = rte_eth_dev_start(pid);
		/* frames from a node of ours: their CRCs are not checked
		 * again; a replayed capture's always are */
		if (!rc && f->port[i].hca && !f->port[i].replay &&
		    fab_peer_ours(f, i)) {
			rc = rte_pmd_hca_crc_ours(pid, 1);
			/* and theirs made only where they are needed */
			if (!rc)
				rc = rte_pmd_hca_crc_lazy(pid, 1);
			f->port[i].crc_unchecked = f->port[i].crc_lazy = !rc;
		}
		/* an HCA cabled to an outside ethdev takes every frame: a
		 * replayed capture carries someone else's MACs */
		if (!rc && (!f->port[i].hca || f->port[i].replay || outside))
			rc = rte_eth_promiscuous_enable(pid);
		if (rc) {
			fprintf(stderr, "madpmd: cannot start %s: %s\n",
				f->port[i].dev, rte_strerror(-rc));
			return -1;
		}
		/* another daemon's IB port at the other end */
		if (!f->port[i].hca && f->opts.link == MPD_LINK_IB) {
			fab_eth_wire_start(f, &f->port[i]);
			ib_wire_mtu(f, &f->port[i]);
			f->nwires++;
		}
	}
	if (f->trunk && trunk_start(f) != 0)
		return -1;
	fab_switches_start(f);
	fab_cas_start(f);
	return 0;
}

void
fab_stop(struct fabric *f)
{
	unsigned int i;

	for (i = 0; i < f->nports; i++) {
		if (!fab_port_ethdev(&f->port[i]) || f->port[i].trunk)
			continue;
		rte_eth_dev_stop(f->port[i].port_id);
		if (f->port[i].hca)
			rte_eth_dev_callback_unregister(f->port[i].port_id,
				RTE_ETH_EVENT_INTR_LSC, link_event, f);
		rte_eth_dev_close(f->port[i].port_id);
	}
	fab_trunk_stop(f);
	fab_switches_free(f);
	fab_cas_free(f);
	free(f->far);
	f->far = NULL;
	f->nfar = 0;
}

static void
apply_capture_request(struct fabric *f)
{
	char *req = f->cap_request;
	int rc;

	if (!req)
		return;
	f->cap_request = NULL;
	fab_capture_close(f);
	if (*req) {
		rc = fab_capture_open(f, req);
		if (rc)
			fprintf(stderr, "madpmd: cannot capture to %s: %s\n",
				req, strerror(-rc));
	}
	free(req);
}

/* xorshift64*: 32 random bits */
static uint32_t
rand32(struct fabric *f)
{
	uint64_t x = f->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	f->rng = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

/* True with probability p / 2^32; always for 100%. */
static bool
chance(struct fabric *f, uint32_t p)
{
	return rand32(f) < p || p == UINT32_MAX;
}

static bool
lossy_wire(const struct fabric *f, const struct fab_port *a)
{
	const struct fab_lossy *l = &f->opts.lossy;

	if (!l->drop && !l->dup && !l->reorder)
		return false;
	return l->port < 0 || &f->port[l->port] == a ||
	       l->port == a->peer;
}

/*
 * What a lossy wire delivers of the n frames a sent, into out (room for
 * 2n + 1): some dropped, some twice, some behind the next frame. A frame
 * held back with nothing after it leaves on the next empty poll.
 */
static uint16_t
impair(struct fabric *f, struct fab_port *a, struct rte_mbuf **m, uint16_t n,
       struct rte_mbuf **out)
{
	const struct fab_lossy *l = &f->opts.lossy;
	enum mpd_link link = a->hca ? a->link : f->opts.link;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *copy;

		if (!fab_lossy_selects(l, link, m[i])) {
			out[k++] = m[i];
			goto next;
		}
		if (chance(f, l->drop)) {
			rte_pktmbuf_free(m[i]);
			a->lost++;
			continue;
		}
		if (!a->held && chance(f, l->reorder)) {
			a->held = m[i];
			a->reordered++;
			continue;
		}
		out[k++] = m[i];
		if (chance(f, l->dup)) {
			copy = rte_pktmbuf_copy(m[i], f->pool, 0, UINT32_MAX);
			if (copy) {
				out[k++] = copy;
				a->duplicated++;
			}
		}
next:
		if (a->held) {
			out[k++] = a->held;
			a->held = NULL;
		}
	}
	return k;
}

/* Frames port a sent (n of them, or none with one held back) to its
 * peer; returns packets moved. */
static uint16_t
pass_on(struct fabric *f, struct fab_port *a, struct rte_mbuf **m,
	uint16_t n)
{
	struct fab_port *b = &f->port[a->peer];
	struct rte_mbuf *out[2 * BURST + 1], **tx = m;
	uint16_t k;
	uint64_t ts = 0;

	if (a->crc_lazy)
		fab_crc_fill(f, a->link, b, m, n);
	if (fab_capturing(f)) {
		/* the records made before these packets left (a umad send
		 * made into one of them) go first, then their time */
		fab_capture_poll(f);
		ts = fab_clock_ns(CLOCK_REALTIME);
		fab_capture_packets(f, a, MPD_PCAPNG_DIR_OUT, m, n, ts);
	}
	k = n;
	if (a->held || lossy_wire(f, a)) {
		k = impair(f, a, m, n, out);
		if (!n && a->held) {
			out[k++] = a->held;
			a->held = NULL;
		}
		tx = out;
	}
	if (b->sw) {
		fab_switch_input(f, b, tx, k);
		return RTE_MAX(n, k);
	}
	if (b->ca) {
		fab_ca_input(f, b, tx, k);
		return RTE_MAX(n, k);
	}
	fab_port_tx(f, b, tx, k, ts);
	return RTE_MAX(n, k);
}

/* Move one burst from port a to its peer; returns packets moved. */
static uint16_t
forward(struct fabric *f, struct fab_port *a)
{
	struct rte_mbuf *m[BURST];
	uint16_t n;

	n = a->ca ? fab_ca_output(a, m, BURST) :
		    rte_eth_rx_burst(a->port_id, 0, m, BURST);
	if (n && a->ew.on)
		n = fab_eth_wire_rx(f, a, m, n);
	if (!n && !a->held)
		return 0;
	return pass_on(f, a, m, n);
}

/* A burst off the trunk, each frame to the peer of the cable it came on
 * (a run of one cable's frames together); returns packets moved. */
static uint64_t
trunk_step(struct fabric *f)
{
	struct rte_mbuf *m[BURST];
	int to[BURST];
	uint16_t n = fab_trunk_rx(f, m, to, BURST), i, j;
	uint64_t moved = 0;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && to[j] == to[i]; j++)
			;
		moved += pass_on(f, &f->port[to[i]], m + i,
				 (uint16_t)(j - i));
	}
	return moved;
}

/* after=active holds a replay until an SM has brought its port up. */
static bool
replay_may_send(struct fab_port *p, uint64_t now)
{
	struct rte_pmd_hca_port_info pi;

	if (p->replay_active || !fab_replay_waits_active(p->replay))
		return true;
	if (now - p->replay_checked > 10000000ull) {	/* 10 ms */
		p->replay_checked = now;
		p->replay_active =
			rte_pmd_hca_port_info_get(p->port_id, &pi) == 0 &&
			pi.port_state == MPD_PORT_STATE_ACTIVE;
	}
	return p->replay_active;
}

/*
 * A port fed from a capture instead of a cable: the frames that are due go
 * in, and what the port sends goes nowhere but into the captures (or, with
 * cable=keep, to its peer as usual).
 */
static uint16_t
replay_step(struct fabric *f, struct fab_port *p)
{
	struct rte_mbuf *m[BURST];
	uint64_t now = fab_clock_ns(CLOCK_REALTIME);
	uint16_t n = 0, got;

	if (replay_may_send(p, now))
		n = fab_replay_burst(p->replay, now, f->pool, m, BURST);
	if (n)
		fab_port_tx(f, p, m, n, now);
	if (p->peer >= 0) {
		got = forward(f, p);
	} else {
		got = rte_eth_rx_burst(p->port_id, 0, m, BURST);
		/* the answers left after the requests went in */
		if (got && fab_capturing(f)) {
			fab_capture_poll(f);
			fab_capture_packets(f, p, MPD_PCAPNG_DIR_OUT, m, got,
					    fab_clock_ns(CLOCK_REALTIME));
		}
		if (got)
			rte_pktmbuf_free_bulk(m, got);
	}
	if (!p->replay_done && fab_replay_done(p->replay)) {
		p->replay_done = true;
		f->replays_left--;
	}
	return (uint16_t)(n + got);
}

#define SW_LINKS_MS	10	/* how often switch ports look at their peers */

/* `set link` on served CA ports, from the prompt, applied on the lcore
 * that owns them: Disabled (the other end's link goes with it), or
 * Polling and trained again when the other end is there */
static void
ca_link_requests(struct fabric *f)
{
	unsigned int i;

	if (!__atomic_exchange_n(&f->ca_link_reqs, false, __ATOMIC_ACQ_REL))
		return;
	for (i = 0; i < f->nports; i++) {
		struct fab_port *p = &f->port[i];
		int req;
		bool up;

		if (!p->ca)
			continue;
		req = __atomic_exchange_n(&p->link_req, FAB_LINK_NONE,
					  __ATOMIC_ACQ_REL);
		if (req == FAB_LINK_NONE)
			continue;
		up = req == FAB_LINK_UP;
		/* the other end follows in fab_ports_disabled() */
		if (fab_ca_disable(p, !up) && up && p->peer >= 0 &&
		    fab_port_present(&f->port[p->peer]))
			fab_ca_carrier(p, true);
	}
}

/* Whether port q sends on its cable: not when disabled (by an SMP or
 * `set link down`), as a disabled port stops training */
static bool
port_enabled(const struct fab_port *q)
{
	uint8_t phys = fab_port_phys(q);

	return phys && phys != HCA_PHYS_DISABLED;
}

/* The heartbeats of the IB links to other daemons: a link whose other end
 * falls silent takes the CA port behind it down, and brings it back when
 * it answers again (a switch port looks at the wire itself, in
 * fab_switches_links()) */
static int
wire_tick(struct fabric *f, struct fab_port *p, uint64_t now, bool links)
{
	struct fab_port *q;
	int ch;

	if (!p->ew.on || p->peer < 0)
		return 0;
	q = &f->port[p->peer];
	/* a trunk's cable reads its port's state only when a port's link
	 * moved (hca_link_changes): thousands of them every round */
	if (!p->trunk || links || !p->enabled_known) {
		p->enabled = port_enabled(q);
		p->enabled_known = true;
	}
	ch = fab_eth_wire_tick(f, p, p->enabled, now);
	if (!ch)
		return 0;
	/* a trunk's thousands of cables go up and down together: said in
	 * one line for all */
	if (!p->trunk)
		printf("madpmd: %s[%u]: link over %s %s\n", q->node, q->num,
		       p->dev, ch > 0 ? "up: the other end answers" :
		       "down: nothing heard from the other end");
	/* the switch port behind it sees its other end anew */
	hca_link_changed();
	fflush(stdout);
	fab_port_carrier(q, ch > 0);
	return ch;
}

static void
wires_tick(struct fabric *f, bool links)
{
	struct fab_trunk *t = f->trunk;
	uint64_t now = fab_clock_ns(CLOCK_MONOTONIC);
	unsigned int i, up;
	int ch = 0;

	for (i = 0; i < f->neth; i++)
		wire_tick(f, &f->port[f->eth[i]], now, links);
	if (!t)
		return;
	for (i = 0; i < t->ncables; i++)
		ch |= wire_tick(f, &f->port[t->cable[i]], now, links);
	if (!ch)
		return;
	for (i = up = 0; i < t->ncables; i++)
		up += f->port[t->cable[i]].ew.up;
	/* while they train or fail: once a second at most */
	if (up == t->said_up || (up && up != t->ncables &&
				 now - t->said_ns < 1000000000ull))
		return;
	t->said_up = up;
	t->said_ns = now;
	printf("madpmd: %s (trunk): %u of its %u cables up\n", t->dev, up,
	       t->ncables);
	fflush(stdout);
}

/* One round over every port: what moved. */
static uint64_t
poll_once(struct fabric *f)
{
	uint64_t moved = 0, now;
	unsigned int i, n;
	int k;

	apply_capture_request(f);
	f->round_ns = 0;
	if (__atomic_load_n(&f->link_events, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(&f->link_events, false, __ATOMIC_ACQ_REL))
		fab_ports_disabled(f, true, false);
	if (f->nsw || f->nwires || f->nca) {
		now = rte_get_tsc_cycles();
		if (now >= f->sw_links_next) {
			/* the ports' ends only when a port's link moved (or
			 * `set link` asked), by the count node.h keeps */
			uint32_t gen = __atomic_load_n(&hca_link_changes,
						       __ATOMIC_ACQUIRE);
			bool links = gen != f->links_seen;

			ca_link_requests(f);
			if (f->nwires)
				wires_tick(f, links);
			if (links) {
				/* what the looks change counts again: looked
				 * at once more, until nothing moves */
				f->links_seen = gen;
				if (f->nca)
					fab_ports_disabled(f, false, true);
			}
			if (f->nsw)
				fab_switches_links(f, links);
			f->sw_links_next = now + rte_get_tsc_hz() *
					   SW_LINKS_MS / 1000;
		}
	}
	for (i = 0; i < f->neth; i++) {
		struct fab_port *p = &f->port[f->eth[i]];

		if (p->replay)
			moved += replay_step(f, p);
		else if (p->peer >= 0)
			moved += forward(f, p);
	}
	if (f->trunk)
		moved += trunk_step(f);
	/* served CAs' answers: those queued before this pass (an answer
	 * that takes a CA's request to another CA waits for the next) */
	for (n = f->nready; n && (k = fab_ca_next_ready(f)) >= 0; n--) {
		moved += forward(f, &f->port[k]);
		fab_ca_relist(f, &f->port[k]);
	}
	/* what clients on a switch's port 0 send */
	if (f->nmgmt)
		moved += fab_switches_mgmt_poll(f);
	f->forwarded += moved;
	return moved + fab_capture_poll(f);
}

/*
 * A fabric of HCA ports only gets work from its clients (a send rings the
 * port's rx interrupt) and its timers: the lcore can sleep on the
 * interrupts instead of waking to look, and so costs nothing while idle
 * and gets the CPU back at once when it shares its core with a busy
 * process (a sleeper that wakes preempts it; a poller that used its share
 * waits for the scheduler's next turn).
 */
static bool
intr_sleep_setup(struct fabric *f)
{
	unsigned int i;

	/* a lossy wire holds frames back until the next empty poll */
	if (f->opts.no_intr || f->opts.lossy.reorder)
		return false;
	for (i = 0; i < f->nports; i++)
		if ((!f->port[i].hca && fab_port_ethdev(&f->port[i])) ||
		    f->port[i].replay)
			return false;
	for (i = 0; i < f->nports; i++)
		if (f->port[i].hca &&
		    rte_eth_dev_rx_intr_ctl_q(f->port[i].port_id, 0,
					      RTE_EPOLL_PER_THREAD,
					      RTE_INTR_EVENT_ADD, NULL) != 0)
			return false;
	/* and the doorbells of a switch's port 0 clients */
	return fab_switches_sleep_setup(f);
}

#define INTR_SLEEP_MAX_MS	100	/* for capture requests and stop */

/* Until when: the ports' next timers, to the nanosecond (UINT64_MAX: a
 * ring or INTR_SLEEP_MAX_MS) */
static uint64_t
intr_wake_at(struct fabric *f)
{
	uint64_t at = UINT64_MAX, a;
	unsigned int i;

	for (i = 0; i < f->neth; i++)
		if (rte_pmd_hca_wake_at(f->port[f->eth[i]].port_id, &a) == 0 &&
		    a < at)
			at = a;
	if (f->nmgmt) {
		int ms = fab_switches_arm(f);

		if (ms >= 0)
			at = RTE_MIN(at, mpd_mono_ns() + (uint64_t)ms * 1000000);
	}
	return at;
}

static void
intr_sleep(struct fabric *f)
{
	struct rte_epoll_event ev[8];
	int timeout = INTR_SLEEP_MAX_MS;
	unsigned int i;
	uint64_t at, now;

	for (i = 0; i < f->neth; i++)
		rte_eth_dev_rx_intr_enable(f->port[f->eth[i]].port_id, 0);
	at = intr_wake_at(f);
	now = mpd_mono_ns();
	if (at <= now) {
		/* due: the look below takes it; one that moves nothing
		 * waits on something else, a millisecond as a tick would */
		timeout = 1;
	} else if (at - now < INTR_SLEEP_MAX_MS * 1000000ull &&
		   !wake_timer_arm(&f->wake, at)) {
		/* no timerfd: whole milliseconds, rounded up */
		timeout = (int)((at - now + 999999) / 1000000);
	}
	/* a client that queued a send before it saw the interrupt armed
	 * did not ring: one more look (madpmd/chan.h) */
	if (!poll_once(f) && !f->stop && !f->cap_request) {
		rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, RTE_DIM(ev), timeout);
		f->idle_sleeps++;
	}
	wake_timer_disarm(&f->wake);
	for (i = 0; i < f->neth; i++)
		rte_eth_dev_rx_intr_disable(f->port[f->eth[i]].port_id, 0);
	if (f->nmgmt)
		fab_switches_disarm(f);
}

/* A client thread spins on this CPU for an answer of one of our ports
 * (madpmd/chan.h, "Sharing a CPU") */
static bool
client_spins_here(struct fabric *f)
{
	int cpu = sched_getcpu();
	unsigned int i;

	if (cpu < 0)
		return false;
	for (i = 0; i < f->neth; i++)
		if (rte_pmd_hca_client_spins_on(f->port[f->eth[i]].port_id,
						cpu) == 1)
			return true;
	return fab_switches_client_spins_on(f, cpu);
}

/*
 * A lcore that waited for its CPU while it could run (its run delay, from
 * /proc/thread-self/schedstat; a gap in time alone says nothing on a
 * virtual CPU) is not alone on it. For a while after, it sleeps on the
 * interrupts once it has had nothing to do for SHARED_POLL_US, instead of
 * busy-polling what it no longer owns for its idle polls. Not at the
 * first empty round: a client looping on the other CPU sends its next
 * request a microsecond or two after its answer, and a lcore that slept
 * waits for the busy process's slice to end before it runs again (on
 * EEVDF a woken sleeper does not preempt at once): 25k MADs/s with one
 * in flight against 300-500k (docs/benchmarks.md). Looked at every
 * 10 ms; shared when it waited a tenth of that time.
 */
#define SHARED_CHECK_MS		10
#define SHARED_FOR_MS		100
#define SHARED_POLL_US		10
/* A client thread spinning on the lcore's own CPU shares it whether or
 * not the run delay shows it (it yields to us at once); for this long
 * after its last work the lcore yields to it rather than polling or
 * sleeping: a client's spin lasts 50 us (lib/umad). A look costs a lock
 * per port and reads the line a spinning client writes as it starts and
 * stops: every SPIN_LOOK_POLLS empty rounds while a look found a client
 * here in the last SPIN_HERE_MS, else once every SPIN_LOOK_MS (a look in
 * each round trip of a client on the other CPU took a line from it each
 * time, and the round trip went from 0.83 to 2 us). */
#define SHARED_YIELD_US		50
#define SPIN_LOOK_POLLS		4
#define SPIN_LOOK_MS		1
#define SPIN_HERE_MS		10

int
fab_poll_loop(void *arg)
{
	struct fabric *f = arg;
	unsigned int idle = 0, sleep_us = 1, i;
	bool intr = intr_sleep_setup(f);
	bool timer = intr && wake_timer_open(&f->wake);
	uint64_t hz = rte_get_tsc_hz(), next_check = 0, now, shared_until = 0;
	uint64_t delay = 0, d, worked = 0, next_look = 0, here_until = 0;
	/* the rules' times in TSC ticks, once: the loop compares them in
	 * every empty round */
	const uint64_t yield_ticks = hz / 1000000 * SHARED_YIELD_US;
	const uint64_t poll_ticks = hz / 1000000 * SHARED_POLL_US;
	const uint64_t look_ticks = hz / 1000 * SPIN_LOOK_MS;
	const uint64_t here_ticks = hz / 1000 * SPIN_HERE_MS;
	struct lcore_place place;
	bool placing = lcore_place_init(&place, hz);

	/* a 1 us back-off sleep would last the default 50 us timer slack */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	while (!f->stop) {
		uint64_t moved = poll_once(f);

		now = rte_get_tsc_cycles();
		if (intr && now >= next_check) {
			d = mpd_run_delay_ns();
			if (next_check && d - delay > SHARED_CHECK_MS * 100000ull)
				shared_until = now + hz * SHARED_FOR_MS / 1000;
			delay = d;
			next_check = now + hz * SHARED_CHECK_MS / 1000;
		}
		if (moved) {
			idle = 0;
			sleep_us = 1;
			worked = now;
			continue;
		}
		if (intr && idle % SPIN_LOOK_POLLS == 0 &&
		    (now < here_until || now >= next_look)) {
			bool together = now - worked < yield_ticks &&
					client_spins_here(f);

			next_look = now + look_ticks;
			if (together)
				here_until = now + here_ticks;

			if (placing && lcore_place_note(&place, together, now))
				continue;
			if (together) {
				sched_yield();
				f->shared_yields++;
				continue;
			}
		}
		/* busy-poll, then sleep so a 2-core machine stays usable */
		if (intr && now < shared_until) {
			if (++idle < f->opts.idle_polls &&
			    now - worked < poll_ticks)
				continue;
		} else if (++idle < f->opts.idle_polls) {
			continue;
		}
		fab_capture_flush(f);
		if (intr) {
			intr_sleep(f);
			idle = 0;
			continue;
		}
		rte_delay_us_sleep(sleep_us);
		f->idle_sleeps++;
		if (sleep_us < f->opts.idle_sleep_us)
			sleep_us = RTE_MIN(2 * sleep_us, f->opts.idle_sleep_us);
	}
	f->lcore_moves = place.moves;
	lcore_place_fini(&place);
	if (timer)
		wake_timer_close(&f->wake);
	apply_capture_request(f);
	fab_capture_close_all(f);
	for (i = 0; i < f->nports; i++) {
		rte_pktmbuf_free(f->port[i].held);
		f->port[i].held = NULL;
	}
	return 0;
}
