/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node's character devices in /dev/infiniband, for madpmd-sysfs's
 * private mount namespace: programs that look for their HCA there before
 * they use it (UCX stats and opens /dev/infiniband/<ibv_device dev_name>)
 * find it as on a host. The drop-in libraries never open them; each is
 * /dev/null bound over an empty file (a user namespace may not mknod,
 * and a bind keeps the source mount's right to open a device).
 *
 * Where the machine has no /dev/infiniband (no RDMA device, the usual
 * case) there is nothing to mount over: a tmpfs goes over /dev, with
 * every entry of the old one bound back (directories with what is
 * mounted under them, /dev/shm and /dev/pts alike; symbolic links
 * copied), and /dev/infiniband made in it. Where it has one, a tmpfs
 * over it hides the machine's devices: the command has one HCA, the
 * node's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs_cover.h"
#include "sysfs_dev.h"

#define DEV		"/dev"
#define IBDEV		DEV "/infiniband"
#define PATH_LEN	4096

/* A tmpfs over /dev with the old entries bound back; /dev/infiniband */
static int
cover_dev(void)
{
	if (mpd_sysfs_cover(DEV, "madpmd-dev", MS_NOSUID, NULL) != 0)
		return -1;
	if (mkdir(IBDEV, 0755) == 0)
		return 0;
	umount2(DEV, MNT_DETACH);
	return -1;
}

static int
add_node(const char *name, dev_t *rdev)
{
	char to[PATH_LEN];
	struct stat st;
	int fd;

	snprintf(to, sizeof(to), IBDEV "/%s", name);
	fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	if (mount(DEV "/null", to, NULL, MS_BIND, NULL) != 0 ||
	    stat(to, &st) != 0 || !S_ISCHR(st.st_mode))
		return -1;
	*rdev = st.st_rdev;
	return 0;
}

int
mpd_sysfs_dev(unsigned int nports, struct mpd_sysfs_dev_nums *nums)
{
	struct stat st;
	char name[32];
	unsigned int u;

	if (stat(IBDEV, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (mount("madpmd-infiniband", IBDEV, "tmpfs", MS_NOSUID,
			  "mode=0755") != 0)
			return -1;
	} else if (cover_dev() != 0) {
		return -1;
	}
	if (add_node("uverbs0", &nums->uverbs) ||
	    add_node("rdma_cm", &nums->rdma_cm))
		return -1;
	/* ib_umad numbers umadN/issmN from 0, a port each */
	for (u = 0; u < nports && u < MPD_SYSFS_DEV_PORTS; u++) {
		snprintf(name, sizeof(name), "umad%u", u);
		if (add_node(name, &nums->umad[u]))
			return -1;
		snprintf(name, sizeof(name), "issm%u", u);
		if (add_node(name, &nums->issm[u]))
			return -1;
	}
	return 0;
}
