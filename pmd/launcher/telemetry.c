/* SPDX-License-Identifier: BSD-3-Clause */
/* /madpmd/ports for dpdk-telemetry.py: the prompt's "show ports", the
 * wire's losses, the CM's ids and connections, the QPs live and a
 * process's shares of the port. */
#include <ctype.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "launcher.h"
#include "madpmd/cma.h"
#include "madpmd/verbs.h"
#include "rte_pmd_hca.h"

static struct fabric *tel_fab;

/* a port's QP numbers, and a process's shares of them, its MR keys
 * and its rdma_cm ids (madpmd/verbs.h, madpmd/cma.h) */
static const struct {
	const char *name;
	uint64_t value;
} limits[] = {
	{ "verbs_qps_max", MPD_V_PORT_QPS },
	{ "share_qps", MPD_V_PROC_QPS },
	{ "share_mrs", MPD_V_PROC_MRS },
	{ "share_cm_ids", MPD_CM_PROC_IDS },
};

static int
tel_ports(const char *cmd __rte_unused, const char *params __rte_unused,
	  struct rte_tel_data *d)
{
	unsigned int i, k;

	rte_tel_data_start_dict(d);
	for (i = 0; i < tel_fab->nports; i++) {
		const struct fab_port *p = &tel_fab->port[i];
		struct rte_pmd_hca_port_info pi;
		struct rte_tel_data *pd;
		char key[FAB_NAME_LEN + 8], guid[24], *c;

		if (!p->hca || rte_pmd_hca_port_info_get(p->port_id, &pi))
			continue;
		pd = rte_tel_data_alloc();
		if (!pd)
			return -1;
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_int(pd, "ethdev_port", p->port_id);
		rte_tel_data_add_dict_string(pd, "link",
					     pi.link_roce ? "roce" : "ib");
		rte_tel_data_add_dict_int(pd, "port_state", pi.port_state);
		rte_tel_data_add_dict_int(pd, "phys_state", pi.phys_state);
		rte_tel_data_add_dict_int(pd, "lid", pi.lid);
		rte_tel_data_add_dict_int(pd, "sm_lid", pi.sm_lid);
		snprintf(guid, sizeof(guid), "0x%016llx",
			 (unsigned long long)pi.port_guid);
		rte_tel_data_add_dict_string(pd, "port_guid", guid);
		rte_tel_data_add_dict_int(pd, "peer", p->peer);
		rte_tel_data_add_dict_u64(pd, "wire_lost", p->lost);
		rte_tel_data_add_dict_u64(pd, "wire_duplicated", p->duplicated);
		rte_tel_data_add_dict_u64(pd, "wire_reordered", p->reordered);
		rte_tel_data_add_dict_u64(pd, "cm_ids",
					  launcher_xstat(p->port_id, "cm_ids"));
		rte_tel_data_add_dict_u64(pd, "cm_conns",
					  launcher_xstat(p->port_id, "cm_conns"));
		rte_tel_data_add_dict_u64(pd, "cm_conns_established",
			launcher_xstat(p->port_id, "cm_conns_established"));
		rte_tel_data_add_dict_u64(pd, "verbs_qps",
					  launcher_xstat(p->port_id, "verbs_qps"));
		for (k = 0; k < RTE_DIM(limits); k++)
			rte_tel_data_add_dict_u64(pd, limits[k].name,
						  limits[k].value);
		/* telemetry names take [A-Za-z0-9_/] only: "node/port" */
		snprintf(key, sizeof(key), "%s/%u", p->node, p->num);
		for (c = key; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '/')
				*c = '_';
		if (rte_tel_data_add_dict_container(d, key, pd, 0) != 0) {
			rte_tel_data_free(pd);
			return -1;
		}
	}
	return 0;
}

void
launcher_telemetry_init(struct fabric *f)
{
	tel_fab = f;
	rte_telemetry_register_cmd("/madpmd/ports", tel_ports,
		"Ports of the fabric: state, LIDs, GUID, wire. No parameters.");
}
