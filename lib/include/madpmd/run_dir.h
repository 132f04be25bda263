/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a fabric's run directory is (madpmd/chan.h lists what it holds),
 * one rule for the daemon and every client (docs/launcher.md, "The run
 * directory"):
 *   $MADPMD_RUN_DIR when set; else
 *   root: /run/madpmd;
 *   a normal user: $XDG_RUNTIME_DIR/madpmd, else /tmp/madpmd-<uid>.
 * A client takes the first of $MADPMD_RUN_DIR, the user's own directory
 * and /run/madpmd where a fabric runs or starts, so that a normal user
 * reaches their own fabric, else the machine's, with nothing typed.
 * lib/umad/madpmd-run.sh writes the same rule in shell.
 */
#ifndef MADPMD_RUN_DIR_H
#define MADPMD_RUN_DIR_H

#include <stdbool.h>
#include <stddef.h>

#define MPD_RUN_DIR_SYSTEM	"/run/madpmd"
/* made once the daemon serves clients, removed as it stops */
#define MPD_RUN_READY		"ready"

/* The daemon's: the directory it makes (buf, len >= 256). Never NULL.
 * *private (may be NULL): it is a normal user's own, which must be made
 * with mpd_run_dir_private(). */
const char *mpd_run_dir_own(char *buf, size_t len, bool *private);

/* A client's: the directory of the fabric it talks to (as above), or the
 * user's own when no fabric lists nodes anywhere. Never NULL. */
const char *mpd_run_dir_find(char *buf, size_t len);

/* A normal user's own run directory, a directory of that user alone:
 * made 0700 when missing; 0, or -1 with errno (EPERM: it exists and is
 * not the user's private directory, as tmux checks /tmp/tmux-<uid>:
 * /tmp/madpmd-<uid> may have been planted). */
int mpd_run_dir_private(const char *dir);

#endif
