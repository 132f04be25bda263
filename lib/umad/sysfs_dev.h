/* SPDX-License-Identifier: BSD-3-Clause */
/* madpmd-sysfs's /dev/infiniband for the node (sysfs_dev.c) */
#ifndef MADPMD_SYSFS_DEV_H
#define MADPMD_SYSFS_DEV_H

#include <sys/types.h>

#define MPD_SYSFS_DEV_PORTS	32

/* What each device node is, for the sysfs files that name them ("dev") */
struct mpd_sysfs_dev_nums {
	dev_t uverbs;
	dev_t rdma_cm;
	dev_t umad[MPD_SYSFS_DEV_PORTS];
	dev_t issm[MPD_SYSFS_DEV_PORTS];
};

/*
 * In the caller's private mount namespace: /dev/infiniband with uverbs0,
 * rdma_cm, and umadN and issmN for the first nports ports. 0, or -1 with
 * errno (nothing of it may be left mounted: the namespace is the
 * caller's, and it says so and goes on without).
 */
int mpd_sysfs_dev(unsigned int nports, struct mpd_sysfs_dev_nums *nums);

#endif
