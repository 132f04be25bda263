/* SPDX-License-Identifier: BSD-3-Clause */
/* madpmd-sysfs: a directory covered by a tmpfs, its entries bound back */
#ifndef MADPMD_SYSFS_COVER_H
#define MADPMD_SYSFS_COVER_H

#include <stdbool.h>

/*
 * In the caller's private mount namespace: a tmpfs (named fsname,
 * mounted with flags) over dir, and every entry of the old dir bound back
 * at its name but those skip() says (NULL: none): directories with what
 * is mounted in them, other files bound over empty ones, symbolic links
 * copied. 0, or -1 with errno and nothing left mounted.
 */
int mpd_sysfs_cover(const char *dir, const char *fsname, unsigned long flags,
		    bool (*skip)(const char *name));

#endif
