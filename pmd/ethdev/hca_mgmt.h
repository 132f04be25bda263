/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A switch's management port with clients (hca_mgmt.c): port 0's MAD
 * layer and client channel, assembled here beside a CA port's
 * (rte_eth_hca.c), with the same services (services.c). The madpmd
 * launcher runs switches itself (node/switch.h) and asks for this when
 * a switch's port 0 serves OpenSM or the diags.
 */
#ifndef NET_HCA_MGMT_H
#define NET_HCA_MGMT_H

#include <stdbool.h>
#include <stdint.h>

struct hca_mgmt;
struct hca_switch;
struct rte_mbuf;
struct rte_mempool;

/* Port 0's MAD layer and client channel under run_dir (0 and *pm NULL
 * without one), frames from pool; 0 or a negative errno. Stop after the
 * polling lcore. */
int hca_mgmt_start(struct hca_mgmt **pm, struct hca_switch *sw,
		   const char *name, const char *run_dir,
		   unsigned int umad_mode, struct rte_mempool *pool,
		   uint16_t id);
void hca_mgmt_stop(struct hca_mgmt *m);
/* The switch's lock (NULL: none); unlock writes the clients' wake-ups */
void hca_mgmt_lock(struct hca_mgmt *m);
void hca_mgmt_unlock(struct hca_mgmt *m);
/* A frame the switch sent port 0 (out 0), for the clients: NULL, or the
 * MAD layer's answer in mb, to go into the switch from port 0. No lock
 * held. */
struct rte_mbuf *hca_mgmt_input(struct hca_mgmt *m, struct rte_mbuf *mb,
				uint64_t now_ns);
/* The clients' sends and the MAD layer's timers: up to n frames for
 * hca_switch_from_port0(). No lock held. */
uint16_t hca_mgmt_poll(struct hca_mgmt *m, uint64_t now_ns,
		       struct rte_mbuf **bufs, uint16_t n);
/* Sleeping: the lcore's epoll watches the port's doorbells */
int hca_mgmt_sleep_setup(struct hca_mgmt *m);
/* Before sleeping: clients ring their doorbells from now on. The time
 * the MAD layer's timers allow to sleep (ms, -1: none); 0 when sends
 * are queued already. */
int hca_mgmt_arm(struct hca_mgmt *m);
void hca_mgmt_disarm(struct hca_mgmt *m);
/* A client of port 0 spins on this CPU (madpmd/chan.h, "Sharing a CPU") */
bool hca_mgmt_client_spins_on(struct hca_mgmt *m, int cpu);

#endif
