/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MADPMD_LAUNCHER_TOPOLOGY_H
#define MADPMD_LAUNCHER_TOPOLOGY_H

#include "fabric.h"

/* Create the fabric's HCA ports and wires from an ibsim net file (NULL:
 * the embedded default). 0, or -1 with a message on stderr. */
int topology_load(struct fabric *f, const char *path);

#endif
