/* SPDX-License-Identifier: BSD-3-Clause */
/* The capture socket: live pcapng streams for clients such as
 * madpmd-extcap (docs/extcap.md). */
#ifndef MADPMD_CAPSOCK_H
#define MADPMD_CAPSOCK_H

#include "fabric.h"

/* Listen at <run_dir>/capture with the given permissions; 0, or -1 with a
 * message on stderr. */
int capsock_start(struct fabric *f, const char *run_dir, unsigned int mode);
void capsock_stop(void);

#endif
