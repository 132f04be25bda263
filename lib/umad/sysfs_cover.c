/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A directory covered and its entries bound back (sysfs_cover.h): how
 * madpmd-sysfs puts its own /sys/class/infiniband beside the kernel's
 * classes, and /dev/infiniband beside the machine's /dev. The old
 * directory is reached through an fd opened before the cover.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs_cover.h"

#define PATH_LEN	4096

static int
bind_back(int dirfd, const char *dir, const char *name, unsigned char type)
{
	char src[PATH_LEN], to[PATH_LEN], link[PATH_LEN];
	struct stat st;
	ssize_t n;
	int fd;

	if (type == DT_UNKNOWN) {
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			return -1;
		type = S_ISDIR(st.st_mode) ? DT_DIR :
		       S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
	}
	snprintf(to, sizeof(to), "%s/%s", dir, name);
	if (type == DT_LNK) {
		n = readlinkat(dirfd, name, link, sizeof(link) - 1);
		if (n < 0)
			return -1;
		link[n] = '\0';
		return symlink(link, to);
	}
	if (type == DT_DIR) {
		if (mkdir(to, 0755) != 0)
			return -1;
	} else {
		fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			return -1;
		close(fd);
	}
	snprintf(src, sizeof(src), "/proc/self/fd/%d/%s", dirfd, name);
	return mount(src, to, NULL, MS_BIND | MS_REC, NULL);
}

int
mpd_sysfs_cover(const char *dir, const char *fsname, unsigned long flags,
		bool (*skip)(const char *name))
{
	struct dirent *e;
	int fd, rc = -1, err;
	DIR *d;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (mount(fsname, dir, "tmpfs", flags, "mode=0755") != 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		goto undo;
	}
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    (skip && skip(e->d_name)))
			continue;
		if (bind_back(dirfd(d), dir, e->d_name, e->d_type) != 0)
			goto out;
	}
	rc = 0;
out:
	closedir(d);
	if (rc == 0)
		return 0;
undo:
	err = errno;
	umount2(dir, MNT_DETACH);
	errno = err;
	return -1;
}
