/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run directory's rule (madpmd/run_dir.h): one place for the daemon,
 * the client libraries, madpmd-addr and the extcap.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "madpmd/chan.h"
#include "madpmd/run_dir.h"

static const char *
env_dir(void)
{
	const char *d = getenv("MADPMD_RUN_DIR");

	return d && *d ? d : NULL;
}

/* The user's own: root's is the machine's. */
static const char *
user_dir(char *buf, size_t len)
{
	const char *x = getenv("XDG_RUNTIME_DIR");

	if (geteuid() == 0)
		return MPD_RUN_DIR_SYSTEM;
	if (x && x[0] == '/')
		snprintf(buf, len, "%s/madpmd", x);
	else
		snprintf(buf, len, "/tmp/madpmd-%u", (unsigned int)geteuid());
	return buf;
}

const char *
mpd_run_dir_own(char *buf, size_t len, bool *private)
{
	const char *d = env_dir();

	if (private)
		*private = !d && geteuid() != 0;
	return d ? d : user_dir(buf, len);
}

/* A fabric runs or starts there: it lists nodes, or has its pid file. */
static bool
has_fabric(const char *dir)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, MPD_CHAN_NODES);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		return true;
	snprintf(path, sizeof(path), "%s/madpmd.pid", dir);
	return access(path, F_OK) == 0;
}

const char *
mpd_run_dir_find(char *buf, size_t len)
{
	const char *d = env_dir();

	if (d)
		return d;
	d = user_dir(buf, len);
	if (has_fabric(d) || !has_fabric(MPD_RUN_DIR_SYSTEM))
		return d;
	return MPD_RUN_DIR_SYSTEM;
}

int
mpd_run_dir_private(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -1;
	/* lstat: a link another user planted in /tmp is not ours */
	if (lstat(dir, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}
