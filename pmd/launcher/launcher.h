/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MADPMD_LAUNCHER_H
#define MADPMD_LAUNCHER_H

#include <stdio.h>

#include "fabric.h"

void launcher_show_ports(const struct fabric *f, FILE *out);
/* A hash of what the table shows that can change (each port's state,
 * physical state, LID and SM LID): the table is made again only when it
 * moves. */
uint64_t launcher_ports_signature(const struct fabric *f);
/* What the lossy wires did and the RMPP, QP and CM counters, where not
 * zero (the CM: ids and connections live, connections made). */
void launcher_show_summary(const struct fabric *f, FILE *out);
/* The port's non-zero xstats; how many, -1 when they cannot be read. */
int launcher_show_counters(const struct fabric *f, int idx, FILE *out);
/* An xstat of an ethdev by name, 0 when it has none of that name */
uint64_t launcher_xstat(uint16_t port_id, const char *name);
/* Runs the prompt on stdin until quit, end of input or a signal. */
void launcher_prompt(struct fabric *f);
void launcher_prompt_quit(void);
/* eal_run.c: -1 (each said) when a --vdev of argv[1..argc-1] did not
 * start */
int launcher_vdevs_check(int argc, char *const *argv);
/* An EAL runtime directory and what is in it, gone */
void launcher_remove_runtime_dir(const char *dir);
/* Beside own, the runtime directories madpmd named (madpmd-<pid>) whose
 * primary is gone, removed; how many */
unsigned int launcher_sweep_runtime_dirs(const char *own);
/* Registers /madpmd/ports with DPDK telemetry. */
void launcher_telemetry_init(struct fabric *f);

#endif
