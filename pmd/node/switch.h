/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A switch node (IBA 14.2.5.4, 18.2): N external ports and the management
 * port 0 (enhanced port 0: it has a LID, an SMA and PortInfo of its own),
 * the forwarding tables the SM programs, the switch's SMA and its
 * forwarding decisions. Like the CA's port, pure functions of the node's
 * state and the packet's bytes: no DPDK, no clock, no lock.
 *
 * The launcher's fabric hands it what its ports receive (hca_switch_rx())
 * and what clients on port 0 send (hca_switch_from_port0()).
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

/*
 * Clients on port 0 (an SM, a tool: ethdev/hca_mgmt.c, which the
 * launcher runs). With them, what reaches the switch and is not its
 * SMA's or PMA's (responses, traps, SA and other classes, Get/Set nobody
 * else takes) leaves by "port 0": 0 in the out list of hca_switch_rx().
 * claims: the Get/Set SMPs the SMA leaves to them (SMInfo for a
 * registered SM, IBA 14.4.1).
 */
struct hca_switch_port0 {
	bool (*claims)(void *arg, const uint8_t *mad);
	void *arg;
};

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
	uint8_t port_state_change;	/* PortStateChange; Set 1 clears */
	uint8_t mft_positions;	/* 16-port masks per MLID */
	uint8_t *lft;		/* lft_cap output ports, by LID */
	uint16_t *mft;		/* mft_cap x mft_positions masks */
	const struct hca_switch_port0 *p0c;	/* NULL: nobody on port 0 */
	/* frames it rewrites leave with their CRCs zero: whoever takes
	 * them from it (the launcher) makes them before a capture, another
	 * process or a port that checks sees them (mpd_pkt_crc_fill()) */
	bool crc_lazy;
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
 * either sets SwitchInfo:PortStateChange (IBA 14.2.5.4). Not a disabled
 * port's. */
void hca_switch_link(struct hca_switch *sw, uint8_t port, bool up);
/* Disable the external port (its PortPhysicalState Disabled, Down, as a
 * Set(PortInfo) does), or let a disabled one train again (Polling, until
 * hca_switch_link() brings it up); PortStateChange set. */
void hca_switch_disable(struct hca_switch *sw, uint8_t port, bool off);
/* True when dlid is one of the switch's LIDs (port 0's LID .. + 2^LMC-1) */
bool hca_switch_owns_lid(const struct hca_switch *sw, uint16_t dlid);

/* ---- the switch's SMA (switch_sma.c) ---- */

/*
 * Answer a Get/Set SMP for the switch in place. in_port: the port it came
 * in on (NodeInfo:LocalPortNum, PortInfo:LocalPortNum). A directed-route
 * SMP must have been through hca_switch_dr() (HCA_FWD_LOCAL); the response
 * keeps its hop pointer and goes through hca_switch_dr() again, from
 * port 0, to find its way back (IBA 14.2.2.2 C14-13:1). A wrong M_Key
 * gets no answer (IBA 14.2.4.2) but, once the switch has a LID and an SM,
 * mad becomes Trap 256 for it (HCA_TRAP); slid: the requester's LID.
 */
enum hca_reply hca_switch_sma(struct hca_switch *sw, uint8_t *mad,
			      uint8_t in_port, uint16_t slid,
			      uint64_t now_ns);

/* ---- forwarding (switch_fwd.c) ---- */

/* What the switch does with a packet */
enum hca_fwd {
	HCA_FWD_DROP = 0,	/* discard: bad, no route, port not up */
	HCA_FWD_LOCAL = 1,	/* for port 0: the SMA, or an SM there */
	HCA_FWD_PORT = 2,	/* out one external port */
	HCA_FWD_LID = 3,	/* a DR SMP continues LID-routed to a LID */
};

struct hca_fwd_to {
	uint8_t port;		/* HCA_FWD_PORT */
	uint16_t dlid;		/* HCA_FWD_LID: the LRH's new DLID */
};

/*
 * A LID-routed packet for dlid (IBA 18.2.4.3): the switch's own LIDs and
 * the permissive LID go to port 0; other unicast DLIDs through the LFT
 * (LID above LinearFDBTop or past the cap, port 255 or a port that is not
 * up: drop). vl15: an SMP, which may leave by a port in Init or Armed;
 * anything else needs Active (IBA 7.2).
 */
enum hca_fwd hca_switch_route_lid(const struct hca_switch *sw, uint16_t dlid,
				  bool vl15, struct hca_fwd_to *to);
/*
 * A multicast packet for mlid that came in on in_port (IBA 18.2.4.3.2):
 * the ports of its MFT entry, less in_port and ports not Active, in *out
 * (port 0 among them when the switch is a member). Returns how many.
 */
unsigned int hca_switch_route_mcast(const struct hca_switch *sw,
				    uint16_t mlid, uint8_t in_port,
				    uint8_t *out, unsigned int cap);
/*
 * A directed-route SMP (class 0x81) the switch received on in_port (0:
 * from port 0 itself, its SMA's response or an SM there), whose LRH DLID
 * was lrh_dlid (permissive, or the switch's own LID at the end of a
 * LID-routed leg). Applies IBA 14.2.2.2 C14-9 (outgoing, D=0) and C14-13
 * (returning, D=1) to the MAD in place: the hop pointer, the return path.
 */
enum hca_fwd hca_switch_dr(const struct hca_switch *sw, uint8_t *mad,
			   uint8_t in_port, uint16_t lrh_dlid,
			   struct hca_fwd_to *to);

/* ---- a frame a switch port received (switch_rx.c) ---- */

/*
 * The frame buf (len bytes, link=ib, cap bytes of room) came in on
 * external port in_port: the ports it leaves by, in out (room for
 * out_cap; 0 is port 0's clients, only with sw->p0c), and how many; 0
 * when it was dropped or taken. Checked and
 * counted on the ports (PortRcv*, PortXmit*, PortRcvSwitchRelayErrors);
 * SMPs and PerfMgt MADs for the switch are answered: the frame becomes
 * the response. Rewritten in place (*len updated) when it changes: a DR
 * SMP's pointer and return path, a LID-routed leg's DLID, a response.
 */
unsigned int hca_switch_rx(struct hca_switch *sw, uint8_t in_port,
			   uint8_t *buf, uint16_t *len, uint16_t cap,
			   uint64_t now_ns, uint8_t *out, unsigned int out_cap);
/*
 * A frame a client on port 0 sent (sw->p0c set): the same, from port 0.
 * A directed-route SMP starts its path here (IBA 14.2.2.2 C14-9:1, C14-13
 * from the responder's end), as the kernel's smi_handle_dr_smp_send() on
 * a switch; one whose first leg is LID-routed goes by the LFT as it is.
 * What is for the switch itself goes to its SMA or PMA, whose answers may
 * come back to port 0 (out 0).
 */
unsigned int hca_switch_from_port0(struct hca_switch *sw, uint8_t *buf,
				   uint16_t *len, uint16_t cap,
				   uint64_t now_ns, uint8_t *out,
				   unsigned int out_cap);
/*
 * Trap 128 (a port's link state changed) to the master SM, into buf (cap
 * bytes), LID-routed from the switch's LID: the port it leaves by in
 * out[0], 1; 0 when the switch has no LID, no SM or no route to it yet.
 */
unsigned int hca_switch_trap_link(struct hca_switch *sw, uint8_t *buf,
				  uint16_t cap, uint16_t *len, uint8_t *out);
/*
 * Trap 144 (IBA 14.2.5.1, as hca_sma_cap_trap()) from the switch when port
 * 0's CapabilityMask moved since the SM heard it (an SM on port 0 took or
 * gave back the ISSM), the same way: into buf, out[0], 1; or 0.
 */
unsigned int hca_switch_trap_cap(struct hca_switch *sw, uint8_t *buf,
				 uint16_t cap, uint16_t *len, uint8_t *out);

#endif
