/* SPDX-License-Identifier: BSD-3-Clause */
/* net_hca's private API, for applications that know they drive one. */
#ifndef RTE_PMD_HCA_H
#define RTE_PMD_HCA_H

#include <stdint.h>

struct rte_pmd_hca_port_info {
	char node_desc[64];
	uint64_t node_guid;
	uint64_t port_guid;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t port_num;
	uint8_t port_state;	/* IBA PortState: 1 Down .. 4 Active */
	uint8_t phys_state;	/* IBA PortPhysicalState: 5 LinkUp */
	uint8_t link_roce;	/* 0: native IB, 1: RoCEv2 */
	uint32_t cap_mask;
};

/* 0, -ENODEV (no such port) or -ENOTSUP (not a net_hca port). */
int rte_pmd_hca_port_info_get(uint16_t port_id,
			      struct rte_pmd_hca_port_info *info);

#endif
