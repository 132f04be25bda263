/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MADPMD_LAUNCHER_TOPOLOGY_H
#define MADPMD_LAUNCHER_TOPOLOGY_H

#include "fabric.h"

/* Create the fabric's nodes and wires from an ibsim net file (NULL: the
 * embedded default): every node, or those whose names match a pattern of
 * the comma-separated list nodes (fnmatch), the rest being another
 * daemon's (their cables are left to --wire, fab_port.far names their
 * end). 0, or -1 with a message on stderr. */
int topology_load(struct fabric *f, const char *path, const char *nodes);

#endif
