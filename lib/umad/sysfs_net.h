/* SPDX-License-Identifier: BSD-3-Clause */
/* madpmd-run --net: the command in its node's network namespace */
#ifndef MADPMD_SYSFS_NET_H
#define MADPMD_SYSFS_NET_H

#include "../chan/chan_client.h"

/*
 * This process into the node's network namespace (and, where the daemon
 * made it in a user namespace of its own, into that first: the same
 * user, with the capabilities madpmd-sysfs's mounts need). 0, or -1
 * with a sentence in msg.
 */
int mpd_sysfs_net_join(const struct mpd_chan_node *n, char *msg, size_t size);

#endif
