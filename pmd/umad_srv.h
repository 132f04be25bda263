/* SPDX-License-Identifier: BSD-3-Clause */
/* The client channel's sessions and agents, shared by umad_srv.c (control
 * plane, its own thread) and mad_layer.c (data plane, the lcore). Both
 * touch them only with hi->lock held. */
#ifndef NET_HCA_UMAD_SRV_H
#define NET_HCA_UMAD_SRV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include "hca.h"
#include "madpmd/chan.h"
#include "madpmd/ring.h"
#include "madpmd/rmpp.h"

#define HCA_MAX_SESSIONS	64
#define HCA_MAX_OUTSTANDING	1024	/* sends awaiting a response, per port */
#define HCA_OUT_BUCKETS		2048	/* their hash by TID, a power of two */
#define HCA_MAX_XFERS		256	/* RMPP transfers in flight, per port */

/* struct ib_user_mad without data (rdma-core umad.h): the head of every
 * record in the client rings */
struct umad_hdr {
	uint32_t agent_id;
	uint32_t status;
	uint32_t timeout_ms;
	uint32_t retries;
	uint32_t length;
	uint32_t qpn;		/* big endian */
	uint32_t qkey;		/* big endian */
	uint16_t lid;		/* big endian */
	uint8_t sl;
	uint8_t path_bits;
	uint8_t grh_present;
	uint8_t gid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t gid[16];
	uint32_t flow_label;	/* big endian */
	uint16_t pkey_index;
	uint8_t reserved[6];
};
_Static_assert(sizeof(struct umad_hdr) == 64, "ib_user_mad is 64 bytes");

struct hca_agent {
	bool used;
	uint8_t mgmt_class;		/* 0: send only */
	uint8_t class_version;
	uint8_t rmpp_version;
	uint8_t qpn;
	uint64_t method_mask[2];
	uint32_t oui;
	uint32_t hi_tid;		/* TID bits 63..32 of its requests */
};

struct hca_session {
	TAILQ_ENTRY(hca_session) next;
	struct hca_internals *hi;
	int sock;
	int efd;			/* the client's port fd */
	void *shm;
	size_t shm_size;
	struct mpd_ring_view tx;	/* client -> daemon */
	struct mpd_ring_view rx;	/* daemon -> client */
	pid_t pid;
	uint32_t id;			/* the port's session number, from 1 */
	bool dead;			/* cut off; freed by the control thread */
	struct hca_agent agent[MPD_CHAN_MAX_AGENTS];
	uint64_t sent, received, dropped;
};

/* A request sent with a time-out, waiting for its response (IBA 13.5.3;
 * the kernel's ib_mad send/wait lists). */
struct hca_outstanding {
	bool used;
	int32_t next;			/* in its bucket or the free list; -1 */
	struct hca_session *s;
	uint32_t agent;
	uint64_t tid;
	uint8_t mgmt_class;
	uint16_t dlid;
	uint64_t deadline;		/* TSC */
	uint32_t timeout_ms;
	uint32_t retries_left;
	uint32_t len;			/* of rec */
	uint8_t rec[64 + 256];		/* the umad record, to resend */
};

/* One RMPP transfer (IBA 13.6) the port runs for a client: a sender
 * segmenting a client's message, or a receiver reassembling one for it. */
struct hca_xfer {
	bool used;
	struct mpd_rmpp_send *snd;
	struct mpd_rmpp_recv *rcv;
	struct hca_session *s;
	uint32_t agent;
	uint64_t tid;
	uint8_t mgmt_class;
	uint16_t peer_lid;
	uint32_t peer_qp;
	struct mpd_pkt tmpl;	/* headers of what we send to the peer */
	struct mpd_pkt first;	/* receiver: how the first segment came */
	bool delivered;
	uint8_t hdr[64 + 24];	/* sender: umad header + MAD header, to
				 * hand back on failure */
};

TAILQ_HEAD(hca_session_list, hca_session);

struct hca_umad_srv {
	struct hca_internals *hi;
	char dir[512];			/* run_dir/node */
	char sock_path[600];
	char issm_path[600];
	int listen_fd;
	int epfd;
	int inotify_fd;
	int issm_fd;			/* our own hold on the FIFO */
	int issm_opens;			/* opens by others (IsSM while > 0) */
	int issm_wd;			/* inotify watch on the FIFO held */
	pthread_t thread;
	volatile bool stop;
	uint32_t next_hi_tid;
	uint32_t next_session_id;
	struct hca_session_list sessions;
	unsigned int nsessions;
	struct hca_outstanding out[HCA_MAX_OUTSTANDING];
	int32_t out_bucket[HCA_OUT_BUCKETS];	/* first of each chain */
	int32_t out_free;			/* first free, -1: none */
	uint32_t out_used;
	struct hca_xfer xfer[HCA_MAX_XFERS];
	uint64_t next_timeout_check;
};

/* The outstanding sends: empty table, and freeing one (mad_layer.c).
 * hi->lock held. */
void hca_out_init(struct hca_umad_srv *srv);
void hca_out_free(struct hca_umad_srv *srv, struct hca_outstanding *o);
/* Free a transfer and its engine. hi->lock held. */
void hca_xfer_free(struct hca_xfer *x);
/* Mark a session dead from the data plane (garbage in its ring). */
void hca_session_kill(struct hca_session *s, const char *why);

#endif
