/* SPDX-License-Identifier: BSD-3-Clause */
/* From an ibsim net file to net_hca ports and wires. */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "madpmd/topo.h"
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

int
topology_load(struct fabric *f, const char *path)
{
	const char *src = path ? path : "(default fabric)";
	struct mpd_topo *t;
	char err[512];
	int *first;		/* fabric index of each node's port 1 */
	unsigned int n, p, ca_ports = 0, served = 0, cas = 0;
	int rc = -1;

	t = path ? mpd_topo_parse_file(path, err, sizeof(err))
		 : mpd_topo_parse_string(mpd_topo_default(), src, err,
					 sizeof(err));
	if (!t) {
		fprintf(stderr, "madpmd: %s\n", err);
		return -1;
	}
	first = calloc(t->num_nodes, sizeof(*first));
	if (!first)
		goto out;
	for (n = 0; n < t->num_nodes; n++) {
		const struct mpd_topo_node *nd = &t->node[n];

		if (nd->type == MPD_TOPO_SWITCH) {
			first[n] = fab_add_switch(f, nd);
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
					  nd->num_ports, nd->guid, args);
			if (idx < 0)
				goto out;
			if (p == 1)
				first[n] = idx;
		}
	}
	/* each cable once: from the end with the lower (node, port) */
	for (n = 0; n < t->num_nodes; n++) {
		const struct mpd_topo_node *nd = &t->node[n];

		for (p = 1; p <= nd->num_ports; p++) {
			const struct mpd_topo_port *tp = &nd->port[p];

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
	warn_same_addresses(f);
	if (served) {
		printf("madpmd: %u of %u CAs are served by the daemon alone (SMA and PMA, no clients): CA ports with an ethdev are the first %u of the file (--client-ports, at most %u ethdevs)\n",
		       served, cas, ca_ports, RTE_MAX_ETHPORTS);
		fflush(stdout);
	}
	rc = 0;
out:
	free(first);
	mpd_topo_free(t);
	return rc;
}
