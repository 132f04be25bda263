/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the launcher asks of EAL beyond rte_eal_init(): that every --vdev
 * the user gave came up (EAL only warns when a device's probe fails, and
 * a daemon without the cable the user asked for is not what was asked),
 * and that no runtime directory is left behind: EAL leaves a primary's
 * at exit (madpmd.c removes it), and the madpmd-<pid> ones of runs that
 * were killed are removed by the next.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_eal.h>

#include "launcher.h"

#define OWN_PREFIX	"madpmd-"

/* The device name of a --vdev argument: up to its first ',' */
static void
vdev_name(const char *spec, char *name, size_t cap)
{
	size_t n = strcspn(spec, ",");

	if (n >= cap)
		n = cap - 1;
	memcpy(name, spec, n);
	name[n] = '\0';
}

static bool
vdev_probed(const char *name)
{
	struct rte_dev_iterator it;
	struct rte_device *dev;
	bool found = false;

	RTE_DEV_FOREACH(dev, "bus=vdev", &it)
		if (!strcmp(rte_dev_name(dev), name) && rte_dev_is_probed(dev))
			found = true;
	return found;
}

int
launcher_vdevs_check(int argc, char *const *argv)
{
	char name[RTE_DEV_NAME_MAX_LEN];
	int i, bad = 0;

	for (i = 1; i < argc; i++) {
		const char *spec = NULL;

		if (!strcmp(argv[i], "--vdev") && i + 1 < argc)
			spec = argv[++i];
		else if (!strncmp(argv[i], "--vdev=", 7))
			spec = argv[i] + 7;
		if (!spec)
			continue;
		vdev_name(spec, name, sizeof(name));
		if (vdev_probed(name))
			continue;
		fprintf(stderr, "madpmd: --vdev %s: %s did not start (its driver said why above); fix its arguments\n",
			spec, name);
		bad++;
	}
	return bad ? -1 : 0;
}

void
launcher_remove_runtime_dir(const char *dir)
{
	char path[4096 + 256];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) <
		    (int)sizeof(path))
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* A primary process holds a write lock on its runtime directory's
 * config file while it runs (rte_eal_config_create()): none, and the
 * directory is a dead one's. One made in the last seconds may be a
 * starting process's that has not locked it yet. */
static bool
runtime_dir_dead(const char *dir)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[4096 + 16];
	struct stat st;
	int fd, rc;

	if (snprintf(path, sizeof(path), "%s/config", dir) >= (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	rc = fstat(fd, &st);
	if (rc == 0 && time(NULL) - st.st_mtime < 10)
		rc = -1;
	if (rc == 0)
		rc = fcntl(fd, F_GETLK, &l);
	close(fd);
	return rc == 0 && l.l_type == F_UNLCK;
}

unsigned int
launcher_sweep_runtime_dirs(const char *own)
{
	char base[4096], path[4096 + 256];
	const char *slash = strrchr(own, '/');
	unsigned int n = 0;
	struct dirent *e;
	DIR *d;

	if (!slash || (size_t)(slash - own) >= sizeof(base))
		return 0;
	memcpy(base, own, (size_t)(slash - own));
	base[slash - own] = '\0';
	d = opendir(base);
	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		const char *pid = e->d_name + strlen(OWN_PREFIX);

		/* madpmd-<pid> exactly: what eal_init() names, nothing else */
		if (strncmp(e->d_name, OWN_PREFIX, strlen(OWN_PREFIX)) ||
		    !*pid || strspn(pid, "0123456789") != strlen(pid))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", base, e->d_name) >=
		    (int)sizeof(path) || !strcmp(path, own) ||
		    !runtime_dir_dead(path))
			continue;
		launcher_remove_runtime_dir(path);
		n++;
	}
	closedir(d);
	return n;
}
