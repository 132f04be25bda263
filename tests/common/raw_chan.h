/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A channel client spoken raw (madpmd/chan.h), for tests that talk to a
 * real daemon without the libraries: HELLO on <run_dir>/<node>/umad, its
 * shared rings mapped, requests and their replies, records off the
 * receive ring.
 */
#ifndef MADPMD_TEST_RAW_CHAN_H
#define MADPMD_TEST_RAW_CHAN_H

#include <stddef.h>
#include <stdint.h>

#include "madpmd/chan.h"
#include "madpmd/ring.h"

struct raw_chan {
	int sock, efd;
	void *shm;
	size_t shm_size;
	struct mpd_ring_view tx, rx;	/* to and from the daemon */
	struct mpd_chan_port_info port;	/* HELLO's */
	uint32_t seq;
};

/* 0, or -1 when the daemon refused or the rings are not what they say */
int raw_chan_open(struct raw_chan *c, const char *run_dir, const char *node);
/* m sent on sock (seq counts the requests), its reply into m; up to
 * nfds fds it carried into fds. The reply's status, -1 when the socket
 * failed (the daemon closed it). */
int raw_chan_call(int sock, uint32_t *seq, struct mpd_chan_msg *m, int *fds,
		  int nfds);
/* m sent, its reply into m; up to nfds fds it carried into fds. The
 * reply's status (0 or an errno), -1 when the socket failed. */
int raw_chan_request(struct raw_chan *c, struct mpd_chan_msg *m, int *fds,
		     int nfds);
/* The next record of kind (others are skipped) within ms: up to cap of
 * its bytes into buf (the rest zeroed); its length, 0 when none came,
 * -1 on a broken ring or eventfd. */
int raw_chan_next(struct raw_chan *c, uint32_t kind, void *buf, size_t cap,
		  int ms);
void raw_chan_close(struct raw_chan *c);

#endif
