/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of the drop-in libibverbs.so.1 over madpmd. Built against
 * Debian's own <infiniband/verbs.h>, so that every prototype is checked
 * and every inline helper of an application (which goes through the
 * context's ops and struct verbs_context) lands here. Nothing but the
 * ibv_* entry points of libibverbs.map leaves the library.
 */
#ifndef MADPMD_VERBS_PRIV_H
#define MADPMD_VERBS_PRIV_H

#include <infiniband/verbs.h>

#include "../umad/umad_priv.h"	/* the channel client: nodes, HELLO */

#define VERBS_EXPORT	__attribute__((visibility("default")))

/* A device: one node of the fabric (a CA and its ports). */
struct mpd_verbs_device {
	struct ibv_device dev;		/* what the application sees */
	struct umad_node node;
};

/* An open device. verbs_context embeds ibv_context at its end. Each
 * port it asked about keeps its control session, as a kernel context
 * keeps its command fd: one HELLO, then PORT_INFO requests on it. */
struct mpd_verbs_ctx {
	struct mpd_verbs_device *vdev;
	pthread_mutex_t ctl_lock;	/* the sessions below */
	int *ctl_sock;			/* per port (index port - 1), or -1 */
	uint32_t *ctl_seq;
	struct verbs_context vctx;
};

static inline struct mpd_verbs_ctx *
mpd_verbs_ctx(struct ibv_context *c)
{
	return (struct mpd_verbs_ctx *)((char *)c -
		offsetof(struct mpd_verbs_ctx, vctx.context));
}

/* Not in the installed headers (rdma-core's driver.h), with rdma-core
 * 44's signatures */
#define VERBS_GID_SYSFS_IB_ROCE_V1	0	/* enum ibv_gid_type_sysfs */
#define VERBS_GID_SYSFS_ROCE_V2		1
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
int ibv_get_sysfs_path(char *buf, size_t size);
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/* What a call this library does not carry out yet returns: -1 or NULL
 * with errno EOPNOTSUPP (the caller sees it at once). */
#define VERBS_NOT_YET	EOPNOTSUPP

#endif
