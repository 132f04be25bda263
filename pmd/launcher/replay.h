/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A capture replayed into a port (docs/replay.md): the frames a pcap or
 * pcapng file holds for the port's framing, as fast as the port takes them
 * or with the capture's own timing.
 */
#ifndef MADPMD_REPLAY_H
#define MADPMD_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>

#include "madpmd/wire.h"

struct fab_replay;

/* spec: "FILE[,speed=fast|timed|<factor>][,from=IFNAME][,dir=in|out|any]
 * [,loop=N][,after=active|SECONDS][,cable=replace|keep]". NULL with a sentence on stderr naming the file and what is
 * wrong. */
struct fab_replay *fab_replay_open(const char *spec, enum mpd_link link);
/* Frames due at now_ns (CLOCK_REALTIME; the first call sets the time
 * base) into m, at most n, mbufs from mp. Returns how many. */
uint16_t fab_replay_burst(struct fab_replay *r, uint64_t now_ns,
			  struct rte_mempool *mp, struct rte_mbuf **m,
			  uint16_t n);
/* after=active: the caller holds the replay until its port is Active. */
bool fab_replay_waits_active(const struct fab_replay *r);
/* cable=keep: the port stays cabled; the capture's frames come beside
 * what its peer sends. */
bool fab_replay_keeps_cable(const struct fab_replay *r);
/* All packets sent (loops done), or the file ended or failed. */
bool fab_replay_done(const struct fab_replay *r);
/* It stopped short: the capture was damaged or cut short there (the
 * summary says where) */
bool fab_replay_failed(const struct fab_replay *r);
/* One line: frames sent, skipped and why, the error if any. */
void fab_replay_summary(const struct fab_replay *r, FILE *out);
/* One line of progress, safe while the polling lcore plays the replay:
 * frames sent, how far into the file and which pass, seconds since the
 * fabric started. */
void fab_replay_progress(const struct fab_replay *r, double seconds,
			 FILE *out);
void fab_replay_close(struct fab_replay *r);

#endif
