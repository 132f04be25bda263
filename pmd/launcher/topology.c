/* SPDX-License-Identifier: BSD-3-Clause */
/* From an ibsim net file to net_hca ports and wires. */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "madpmd/topo.h"
#include "name_list.h"
#include "node/node.h"
#include "rte_pmd_hca.h"
#include "topology.h"

/* kvargs splits on ',' and '=': such names cannot travel as devargs */
static bool
devarg_safe(const char *s)
{
	return !strpbrk(s, ",=");
}

/*
 * rdma_cm finds a port by its IPv4 address: two ports with one address
 * (default addresses come from a hash of the ethdev name and can meet)
 * make one of them unreachable by address. Said, not refused: IB tools
 * do not care.
 */
static void
warn_same_addresses(const struct fabric *f)
{
	struct rte_pmd_hca_neigh a, b;
	unsigned int i, j;

	for (i = 0; i < f->nports; i++) {
		if (!f->port[i].hca ||
		    rte_pmd_hca_neigh_self(f->port[i].port_id, &a) != 0)
			continue;
		for (j = 0; j < i; j++) {
			if (!f->port[j].hca ||
			    rte_pmd_hca_neigh_self(f->port[j].port_id, &b) != 0 ||
			    memcmp(a.ip4, b.ip4, sizeof(a.ip4)))
				continue;
			fprintf(stderr, "madpmd: warning: %s:%u and %s:%u both have the IPv4 address %u.%u.%u.%u; rdma_cm reaches only one of them: give one an address with ip=A.B.C.D on its port line in the topology (docs/topology.md)\n",
				f->port[j].node, f->port[j].num,
				f->port[i].node, f->port[i].num,
				a.ip4[0], a.ip4[1], a.ip4[2], a.ip4[3]);
			break;
		}
	}
}

/* Whether node name is in the list (NULL: every node is). */
static bool
selected(const struct name_list *l, const char *name)
{
	return !l || name_list_match(l, name);
}

/* An option's list (--nodes, --switch-clients) into l, every item of it
 * naming a node of t: a typo is an error, not a daemon that silently
 * does less. */
static int
check_patterns(const struct mpd_topo *t, const char *opt, const char *list,
	       const char *src, struct name_list *l)
{
	const char **names = malloc((t->num_nodes ? t->num_nodes : 1) *
				    sizeof(*names));
	const char *miss;
	unsigned int n;

	if (!names || name_list_parse(l, list) != 0) {
		free(names);
		fprintf(stderr, "madpmd: %s: out of memory\n", opt);
		return -1;
	}
	if (l->empty_item) {
		fprintf(stderr, "madpmd: %s %s: give node names or patterns, separated by commas\n",
			opt, list);
		free(names);
		return -1;
	}
	for (n = 0; n < t->num_nodes; n++)
		names[n] = t->node[n].name;
	miss = name_list_unmatched(l, names, t->num_nodes);
	free(names);
	if (miss) {
		fprintf(stderr, "madpmd: %s: no node of %s is named \"%s\"\n",
			opt, src, miss);
		return -1;
	}
	return 0;
}

/*
 * The address table entry of port p of a CA another daemon runs: what its
 * net_hca port there makes of the same file (the PMD's defaults for its
 * ethdev name, which the whole file's numbering makes the same in every
 * daemon, then the file's GUID and ip=), so that a RoCE send or rdma_cm
 * reaches it without asking the network.
 */
static int
far_port(struct fabric *f, const struct mpd_topo_node *nd, unsigned int p,
	 unsigned int name_idx)
{
	const struct mpd_topo_port *tp = &nd->port[p];
	struct hca_port *hp = malloc(sizeof(*hp));
	struct hca_neigh n;
	char name[32];
	int rc;

	if (!hp)
		return -1;
	snprintf(name, sizeof(name), "net_hca%u", name_idx);
	hca_port_defaults(hp, name);
	hp->port_guid = tp->guid;
	if (tp->ip4_given)
		memcpy(hp->ip4, tp->ip4, sizeof(hp->ip4));
	hca_port_neigh(hp, &n);
	free(hp);
	rc = fab_add_far_neigh(f, n.gid, n.mac, n.ip4);
	if (rc)
		fprintf(stderr, "madpmd: out of memory for the addresses of other daemons' ports\n");
	return rc;
}

int
topology_load(struct fabric *f, const char *path, const char *nodes)
{
	const char *src = path ? path : "(default fabric)";
	struct mpd_topo *t;
	char err[512];
	int *first = NULL;	/* fabric index of each node's port 1 */
	uint32_t *slot0 = NULL;	/* each node's port 1, counted over the
				 * whole file */
	unsigned int n, p, ca_ports = 0, served = 0, cas = 0, here = 0;
	unsigned int slot = 0;	/* the node's first port, counted over the
				 * whole file: ethdev names every daemon of
				 * a split fabric agrees on */
	struct name_list here_l = { 0 }, sc_l = { 0 };
	int rc = -1;

	t = path ? mpd_topo_parse_file(path, err, sizeof(err))
		 : mpd_topo_parse_string(mpd_topo_default(), src, err,
					 sizeof(err));
	if (!t) {
		fprintf(stderr, "madpmd: %s\n", err);
		return -1;
	}
	if (nodes && check_patterns(t, "--nodes", nodes, src, &here_l) != 0)
		goto out;
	if (f->opts.switch_clients &&
	    check_patterns(t, "--switch-clients", f->opts.switch_clients,
			   src, &sc_l) != 0)
		goto out;
	first = calloc(t->num_nodes, sizeof(*first));
	slot0 = calloc(t->num_nodes, sizeof(*slot0));
	if (!first || !slot0)
		goto out;
	for (n = 0; n < t->num_nodes; n++) {
		const struct mpd_topo_node *nd = &t->node[n];

		first[n] = -1;
		slot0[n] = slot;
		slot += nd->num_ports;
		if (!selected(nodes ? &here_l : NULL, nd->name)) {
			/* another daemon's */
			for (p = 1; nd->type == MPD_TOPO_CA &&
				    p <= nd->num_ports; p++)
				if (far_port(f, nd, p, slot - nd->num_ports +
					     p - 1) != 0)
					goto out;
			continue;
		}
		here++;
		if (nd->type == MPD_TOPO_SWITCH) {
			/* ibsim's SM port (port 0 of the first node) and
			 * --switch-clients serve clients on port 0 */
			first[n] = fab_add_switch(f, nd, n == 0 ||
				(f->opts.switch_clients &&
				 selected(&sc_l, nd->name)));
			if (first[n] < 0) {
				fprintf(stderr, "madpmd: %s:%u: cannot start switch \"%s\"\n",
					src, nd->line, nd->name);
				goto out;
			}
			continue;
		}
		if (nd->type != MPD_TOPO_CA) {
			fprintf(stderr, "madpmd: %s:%u: %s \"%s\": only Hca and Switch nodes can be started yet (routers come with a later release)\n",
				src, nd->line, mpd_topo_type_name(nd->type),
				nd->name);
			goto out;
		}
		cas++;
		/* the first CAs of the file get ethdevs, whole, while there
		 * are ethdevs to give; every CA after a served one is served */
		if (served || ca_ports + nd->num_ports > f->opts.client_ports ||
		    rte_eth_dev_count_total() + nd->num_ports >
		    RTE_MAX_ETHPORTS) {
			first[n] = fab_add_ca(f, nd);
			if (first[n] < 0)
				goto out;
			served++;
			continue;
		}
		ca_ports += nd->num_ports;
		if (!devarg_safe(nd->name) || !devarg_safe(nd->desc)) {
			fprintf(stderr, "madpmd: %s:%u: node \"%s\": names and descriptions cannot contain ',' or '='\n",
				src, nd->line, nd->name);
			goto out;
		}
		for (p = 1; p <= nd->num_ports; p++) {
			const struct mpd_topo_port *tp = &nd->port[p];
			char args[256];
			int idx, k;

			k = snprintf(args, sizeof(args),
				     "desc=%s,port_guid=0x%016" PRIx64
				     ",sys_guid=0x%016" PRIx64, nd->desc,
				     tp->guid, nd->sys_guid);
			if (tp->ip4_given && k > 0 && (size_t)k < sizeof(args))
				snprintf(args + k, sizeof(args) - (size_t)k,
					 ",ip=%u.%u.%u.%u", tp->ip4[0],
					 tp->ip4[1], tp->ip4[2], tp->ip4[3]);
			idx = fab_add_hca(f, nd->name, (uint8_t)p,
					  nd->num_ports, nd->guid,
					  slot - nd->num_ports + p - 1, args);
			if (idx < 0)
				goto out;
			f->port[idx].guid = tp->guid;
			if (p == 1)
				first[n] = idx;
		}
	}
	/* each cable once: from the end with the lower (node, port); one to
	 * another daemon's node is named on the port for --wire */
	for (n = 0; n < t->num_nodes; n++) {
		const struct mpd_topo_node *nd = &t->node[n];

		for (p = 1; first[n] >= 0 && p <= nd->num_ports; p++) {
			const struct mpd_topo_port *tp = &nd->port[p];

			struct fab_port *fp = &f->port[first[n] + (int)p - 1];

			/* the switches' and served CAs' (the ethdevs' above) */
			fp->guid = tp->guid;
			fp->slot = slot0[n] + p - 1;
			if (tp->peer_node >= 0 && first[tp->peer_node] < 0) {
				const struct mpd_topo_node *far =
					&t->node[tp->peer_node];

				snprintf(fp->far, sizeof(fp->far), "%.63s[%u]",
					 far->name, tp->peer_port);
				fp->far_guid = far->port[tp->peer_port].guid;
				fp->far_port = (uint8_t)tp->peer_port;
				fp->far_slot = slot0[tp->peer_node] +
					       tp->peer_port - 1;
				continue;
			}
			if (tp->peer_node < 0 || (unsigned int)tp->peer_node < n ||
			    ((unsigned int)tp->peer_node == n &&
			     tp->peer_port <= p))
				continue;
			if (fab_connect(f, first[n] + (int)p - 1,
					first[tp->peer_node] + tp->peer_port - 1)) {
				fprintf(stderr, "madpmd: %s:%u: cannot cable \"%s\"[%u]\n",
					src, tp->line, nd->name, p);
				goto out;
			}
		}
	}
	if (nodes) {
		printf("madpmd: runs %u of the %u nodes of %s (--nodes %s)\n",
		       here, t->num_nodes, src, nodes);
		fflush(stdout);
	}
	warn_same_addresses(f);
	if (served) {
		printf("madpmd: %u of %u CAs are served by the daemon alone (SMA and PMA, no clients): CA ports with an ethdev are the first %u of the file (--client-ports, at most %u ethdevs)\n",
		       served, cas, ca_ports, RTE_MAX_ETHPORTS);
		fflush(stdout);
	}
	rc = 0;
out:
	free(first);
	free(slot0);
	name_list_free(&here_l);
	name_list_free(&sc_l);
	mpd_topo_free(t);
	return rc;
}
