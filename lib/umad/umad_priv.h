/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of libibumad over madpmd (libmadpmd / the drop-in
 * libibumad.so.3). Nothing here is exported: the library is built with
 * -fvisibility=hidden and a version script; only the umad_* entry points
 * marked UMAD_EXPORT leave it.
 */
#ifndef MADPMD_UMAD_PRIV_H
#define MADPMD_UMAD_PRIV_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "madpmd/chan.h"
#include "madpmd/ring.h"
#include "../chan/chan_client.h"

#define UMAD_EXPORT	__attribute__((visibility("default")))
/*
 * Frames that a pthread_cancel() of a thread blocked in umad_recv() or
 * umad_poll() is unwound through (glibc's C cleanups longjmp over them:
 * OpenSM's and ibis's receiver threads end so). Left poisoned, their
 * redzones make AddressSanitizer's own no-return handler report a
 * stack-buffer-overflow in its sigaltstack interceptor; they hold
 * nothing worth checking, so they are not instrumented.
 */
#define UMAD_CANCEL_FRAME	__attribute__((no_sanitize_address))

/* umad_debug()'s messages: lib/chan's, whose level umad_debug() sets */
#define UMAD_DBG	MPD_CHAN_DBG

#define UMAD_HDR_SIZE	((int)sizeof(struct ib_user_mad))	/* 64 */
#define UMAD_SEG_SIZE	256	/* one MAD; the first RMPP segment */
#define UMAD_RMPP_HDR	36	/* MAD + RMPP headers: the kernel's minimum */
#define UMAD_MAX_DATA	((int)MPD_CHAN_MAX_MSG - UMAD_HDR_SIZE)
#define UMAD_PATH_MAX	MPD_CHAN_PATH_MAX
#define UMAD_SEND_WAIT_MS	250	/* a full send ring, before ENOMEM */

/* ---- umad_tid.c: requests in flight, for the duplicate check ---- */
#define UMAD_TIDS_MAX	512	/* twice the outstanding-send share */

struct umad_tids {
	unsigned int n;
	struct {
		uint64_t key;		/* umad_tid_key() */
		uint64_t deadline_ms;	/* gone by then whatever happens */
	} e[UMAD_TIDS_MAX];
};

/* A request's name: agent, class, TID 31..0. */
uint64_t umad_tid_key(const uint8_t *mad, uint32_t agent);
/* Whether key is in flight (entries past their deadline are dropped). */
bool umad_tids_busy(struct umad_tids *t, uint64_t key, uint64_t now_ms);
void umad_tids_add(struct umad_tids *t, uint64_t key, uint64_t deadline_ms);
void umad_tids_del(struct umad_tids *t, uint64_t key);


#endif
