/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A switch node (IBA 14.2.5.4, 18.2): N external ports and the management
 * port 0 (enhanced port 0: it has a LID, an SMA and PortInfo of its own),
 * the forwarding tables the SM programs, the switch's SMA and its
 * forwarding decisions. Like the CA's port, pure functions of the node's
 * state and the packet's bytes: no DPDK, no clock, no lock.
 *
 * Not wired yet: nothing moves frames between nodes, no SM sits on port 0,
 * and the switch sends no traps (see docs/switch.md).
 */
#ifndef NET_HCA_SWITCH_H
#define NET_HCA_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "node.h"

/* NumPorts is 8 bits and LFT port 255 means "no port" (IBA 14.2.5.10) */
#define HCA_SW_PORTS_MAX	254
/* Unicast LIDs 0..0xBFFF (IBA 14.2.5.4 LinearFDBCap at most 48K) */
#define HCA_SW_LFT_CAP_MAX	0xc000u
/* MLIDs 0xC000..0xFFFE (IBA 14.2.5.4 MulticastFDBCap) */
#define HCA_SW_MFT_CAP_MAX	0x3fffu

struct hca_switch {
	char node_desc[HCA_NODE_DESC_LEN];
	uint64_t node_guid;	/* every port's GUID too (IBA 14.2.5.3) */
	uint64_t sys_guid;
	uint8_t num_ports;	/* external ports 1..num_ports */
	struct hca_port *port;	/* num_ports + 1; [0] the management port:
				 * LID, LMC, SM, M_Key, the switch's P_Keys */
	/* SwitchInfo (IBA 14.2.5.4) */
	uint16_t lft_cap;	/* LinearFDBCap, a multiple of 64 */
	uint16_t mft_cap;	/* MulticastFDBCap, a multiple of 32 */
	uint16_t lft_top;	/* LinearFDBTop: DLIDs above are dropped */
	uint16_t mft_top;	/* MulticastFDBTop; 0: not set, not enforced */
	uint8_t default_port;
	uint8_t default_mcast_primary_port;
	uint8_t default_mcast_not_primary_port;
	uint8_t life_time;	/* LifeTimeValue, 5 bits */
	uint8_t port_state_change;	/* PortStateChange, cleared by Set 1 */
	uint8_t mft_positions;	/* 16-port masks per MLID */
	uint8_t *lft;		/* lft_cap output ports, by LID */
	uint16_t *mft;		/* mft_cap x mft_positions masks, by MLID */
};

/*
 * A switch of nports external ports, every port Down and every table
 * entry "no port" (LFT 255, MFT empty); caps rounded up to whole blocks.
 * Returns 0 or ENOMEM / EINVAL. hca_switch_fini() frees what it took.
 */
int hca_switch_init(struct hca_switch *sw, uint8_t nports, uint64_t node_guid,
		    const char *desc, uint16_t lft_cap, uint16_t mft_cap);
void hca_switch_fini(struct hca_switch *sw);
/* An external port's link trains (Init, LinkUp) or goes (Down, Polling);
 * either sets SwitchInfo:PortStateChange (IBA 14.2.5.4). */
void hca_switch_link(struct hca_switch *sw, uint8_t port, bool up);
/* True when dlid is one of the switch's LIDs (port 0's LID .. + 2^LMC-1) */
bool hca_switch_owns_lid(const struct hca_switch *sw, uint16_t dlid);

/* ---- the switch's SMA (switch_sma.c) ---- */

/*
 * Answer a Get/Set SMP for the switch in place. in_port: the port it came
 * in on (NodeInfo:LocalPortNum, PortInfo:LocalPortNum). A directed-route
 * SMP must have been through hca_switch_dr() (HCA_FWD_LOCAL); the response
 * keeps its hop pointer and goes through hca_switch_dr() again, from
 * port 0, to find its way back (IBA 14.2.2.2 C14-13:1).
 */
enum hca_reply hca_switch_sma(struct hca_switch *sw, uint8_t *mad,
			      uint8_t in_port, uint64_t now_ns);

#endif
