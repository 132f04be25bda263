/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd-addr: the IPv4 address of a node's port 1, as its daemon says in
 * the answer to HELLO (madpmd/chan.h, mpd_chan_port_info.ip4): what
 * rdma_cm resolves to that port. madpmd-run --print-addr runs it with
 * MADPMD_RUN_DIR and MADPMD_NODE set; it prints one dotted quad.
 * Exit status 0, or 1 with a sentence on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "umad_priv.h"

int
main(int argc, char **argv)
{
	struct mpd_chan_port_info pi;
	const char *want = argc > 1 ? argv[1] : NULL;
	struct mpd_chan_node n;
	int rc;

	switch (mpd_chan_node_lookup(want, &n)) {
	case MPD_CHAN_NODE_FOUND:
		break;
	case MPD_CHAN_NODE_UNKNOWN:
		fprintf(stderr, "madpmd-addr: no node \"%s\" in %s/%s\n",
			n.name, n.run_dir, MPD_CHAN_NODES);
		return 1;
	default:
		fprintf(stderr, "madpmd-addr: no fabric running: no node listed in %s/%s (start madpmd, or set MADPMD_RUN_DIR)\n",
			n.run_dir, MPD_CHAN_NODES);
		return 1;
	}
	rc = mpd_chan_port_query(&n, 1, &pi);
	if (rc < 0) {
		fprintf(stderr, "madpmd-addr: the daemon of node \"%s\" (%s) does not answer for port 1: %s\n",
			n.name, n.run_dir,
			rc == -EINVAL ? "it has no port 1" : strerror(-rc));
		return 1;
	}
	if (!pi.ip4[0] && !pi.ip4[1] && !pi.ip4[2] && !pi.ip4[3]) {
		fprintf(stderr, "madpmd-addr: port 1 of node \"%s\" has no IPv4 address\n",
			n.name);
		return 1;
	}
	printf("%u.%u.%u.%u\n", pi.ip4[0], pi.ip4[1], pi.ip4[2], pi.ip4[3]);
	return fflush(stdout) == 0 ? 0 : 1;
}
