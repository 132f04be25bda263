/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The launcher's fabric: net_hca ports created from a topology, wires
 * between them (or to other ethdevs), and the busy-poll lcore that moves
 * packets along the wires, backing off to sleep when idle.
 */
#ifndef MADPMD_FABRIC_H
#define MADPMD_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "madpmd/wire.h"

#define FAB_MAX_PORTS	256
#define FAB_NAME_LEN	64

struct fab_port {
	char node[FAB_NAME_LEN];	/* node name */
	uint8_t num;			/* port number on the node */
	uint16_t port_id;		/* ethdev */
	char dev[FAB_NAME_LEN];		/* ethdev name, e.g. net_hca0 */
	bool hca;			/* a net_hca port (else external) */
	enum mpd_link link;
	int peer;			/* index of the port at the other end */
	int cap_if;			/* capture interface, -1: none */
	/* what the lossy wire did to frames this port sent */
	uint64_t lost;
	uint64_t duplicated;
	uint64_t reordered;
	struct rte_mbuf *held;		/* a frame held back to reorder */
};

/* A lossy wire: each frame is dropped, duplicated or held back behind the
 * next one with these probabilities (scaled to 2^32). */
struct fab_lossy {
	uint32_t drop;
	uint32_t dup;
	uint32_t reorder;
	int port;			/* only this port's wire; -1: all */
	uint64_t seed;
};

struct fab_opts {
	enum mpd_link link;		/* for every HCA port */
	unsigned int idle_polls;	/* empty polls before sleeping */
	unsigned int idle_sleep_us;	/* longest sleep when idle */
	const char *run_dir;		/* where the HCAs serve clients */
	struct fab_lossy lossy;
};

struct fabric {
	struct fab_port port[FAB_MAX_PORTS];
	unsigned int nports;
	struct fab_opts opts;
	struct rte_mempool *pool;
	struct mpd_pcapng *cap;		/* owned by the polling lcore */
	volatile bool stop;
	/* capture requests from the prompt, applied by the polling lcore */
	char *volatile cap_request;	/* path to start, or "" to stop */
	unsigned int poll_lcore;
	uint64_t forwarded;
	uint64_t idle_sleeps;
	uint64_t rng;			/* lossy wires' state, lcore-owned */
};

/* Add a net_hca port for node/port number (devargs may add keys);
 * returns its index or -1 with a message on stderr. */
int fab_add_hca(struct fabric *f, const char *node, uint8_t num,
		uint8_t num_ports, uint64_t node_guid, const char *devargs);
/* Add an external ethdev by name (created by EAL --vdev or a PCI port). */
int fab_add_external(struct fabric *f, const char *dev);
/* Connect two ports with a wire; -1 when either end is taken. */
int fab_connect(struct fabric *f, int a, int b);
/* Configure and start every port. */
int fab_start(struct fabric *f);
/* The polling loop (run on an lcore): until f->stop. */
int fab_poll_loop(void *arg);
void fab_stop(struct fabric *f);
/* Index of a port by "node:port", "node" (port 1) or ethdev name. */
int fab_find(const struct fabric *f, const char *spec);
/* Make the wires lossy: "drop=P,dup=P,reorder=P[,seed=N][,port=NODE:PORT]"
 * with P a probability (0.05 or 5%), or "off". 0, or -1 with a message on
 * stderr. Before fab_poll_loop() starts. */
int fab_set_lossy(struct fabric *f, const char *spec);

/* Capture: open path ("-" for stdout) with one interface per HCA port;
 * 0 or -errno. Only the polling lcore may call these while it runs. */
int fab_capture_open(struct fabric *f, const char *path);
void fab_capture_close(struct fabric *f);

#endif
