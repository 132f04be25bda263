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

#include "../chan/chan_client.h"
#include "vring.h"		/* CQ and work queue rings */

#define VERBS_EXPORT	__attribute__((visibility("default")))

/* A device: one node of the fabric (a CA and its ports). */
struct mpd_verbs_device {
	struct ibv_device dev;		/* what the application sees */
	struct mpd_chan_node node;
	/* the list that made it, and each context opened on it: a device
	 * outlives ibv_free_device_list() while a context uses it, as
	 * rdma-core's does (pyverbs frees the list at once) */
	unsigned int refs;
};

void mpd_verbs_device_put(struct mpd_verbs_device *d);

/* What async events name: QPs, CQs and SRQs by their handle */
struct mpd_v_objref {
	struct mpd_v_objref *next;		/* the context's list, obj_lock */
	uint32_t kind;			/* enum mpd_v_obj */
	uint32_t handle;
	void *obj;			/* the ibv_qp, ibv_cq or ibv_srq */
	uint32_t async_returned;	/* by ibv_get_async_event, obj_lock */
};

/* Records of an object destroyed before its events were read: they are
 * dropped, not handed out for an object that took the handle again */
struct mpd_v_skip {
	struct mpd_v_skip *next;
	uint32_t kind;
	uint32_t handle;
	uint32_t left;
};

/* Pages of the application that an MR's memfd backs now (mr.c) */
struct mpd_v_range;

/* An open device. verbs_context embeds ibv_context at its end. Each
 * port it asked about keeps its control session, as a kernel context
 * keeps its command fd: one HELLO, then PORT_INFO requests on it. Port
 * 1's (the device's session, opened with the context) holds every verbs
 * object, and its receive ring carries the async events. */
/* Port i's events (i > 1) come on a session of that port, which the
 * context opens with it as the kernel sends every port's events to
 * every context: its receive ring and wake-ups, under the async_fd too */
struct mpd_v_port_rx {
	void *shm;
	size_t shm_size;
	struct mpd_ring_view rx;
	struct mpd_chan_rx_wake wake;
};

struct mpd_verbs_ctx {
	struct mpd_verbs_device *vdev;
	pthread_mutex_t ctl_lock;	/* the sessions below */
	int *ctl_sock;			/* per port (index port - 1), or -1 */
	uint32_t *ctl_seq;
	uint8_t *port_kind;		/* per port: 1 IB, 2 RoCE, 0 not seen
					 * yet; a port's link never changes */
	/* the device session's shared memory: receive ring, doorbell */
	void *shm;
	size_t shm_size;
	struct mpd_v_doorbell db;
	int db_rd;			/* a reader of it we keep: no SIGPIPE */
	pthread_mutex_t rx_lock;	/* rx and wake */
	struct mpd_ring_view rx;
	struct mpd_chan_rx_wake wake;	/* wake.efd is under the async_fd */
	struct mpd_v_port_rx *prx;	/* ports 2 .. num_ports, at port - 2;
					 * under rx_lock */
	pthread_mutex_t obj_lock;	/* objs, skips, channels' CQ lists */
	struct mpd_v_objref *objs;
	struct mpd_v_skip *skips;
	pthread_mutex_t mr_lock;	/* ranges */
	struct mpd_v_range *ranges;
	struct verbs_context vctx;
};

static inline struct mpd_verbs_ctx *
mpd_verbs_ctx(struct ibv_context *c)
{
	return (struct mpd_verbs_ctx *)((char *)c -
		offsetof(struct mpd_verbs_ctx, vctx.context));
}

static inline struct mpd_verbs_ctx *
mpd_verbs_ctx_of_pd(struct ibv_pd *pd)
{
	return mpd_verbs_ctx(pd->context);
}

/* session.c: the device session */
int mpd_v_sess_open(struct mpd_verbs_ctx *c);
/* Port port's (> 1) session for its events, a context there too: 0 or
 * an errno */
int mpd_v_sess_open_events(struct mpd_verbs_ctx *c, unsigned int port);
void mpd_v_sess_close(struct mpd_verbs_ctx *c);
/* One control request on the device session: 0, the daemon's status (a
 * positive errno) or EIO when the daemon is gone. With fd non-NULL a
 * successful reply must carry exactly one fd (EPROTO otherwise). */
int mpd_v_call(struct mpd_verbs_ctx *c, struct mpd_chan_msg *m, int *fd);
int mpd_v_call_fds(struct mpd_verbs_ctx *c, struct mpd_chan_msg *m, int *fds,
		   int want);
/* mw.c: the context's memory window ops */
struct ibv_mw *mpd_v_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int mpd_v_dealloc_mw(struct ibv_mw *mw);
int mpd_v_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind);
/* DESTROY_* / DEALLOC_PD / DEREG_MR of a handle; rep may be NULL */
int mpd_v_destroy(struct mpd_verbs_ctx *c, uint32_t type, uint32_t handle,
		  struct mpd_v_destroy_rep *rep);
/* Map a memfd the daemon made, of at least size bytes; closes fd */
void *mpd_v_map(int fd, size_t size);
void mpd_v_obj_add(struct mpd_verbs_ctx *c, struct mpd_v_objref *o,
		   uint32_t kind, uint32_t handle, void *obj);
/* Unlist o after its DESTROY: records still queued for it
 * (raised - returned) are skipped */
void mpd_v_obj_del(struct mpd_verbs_ctx *c, struct mpd_v_objref *o,
		   uint32_t raised);
/* Wait until *acked (under m) reaches *returned (under obj_lock): the
 * events handed out for an object being destroyed are all acknowledged */
void mpd_v_wait_count(struct mpd_verbs_ctx *c, const uint32_t *returned,
		      pthread_mutex_t *m, pthread_cond_t *cv,
		      const uint32_t *acked);
/* device.c: the port as the daemon describes it now */
int mpd_v_port_info(struct ibv_context *c, uint8_t port_num,
		    struct mpd_chan_port_info *pi);
/* What the context saw of a port, kept: its kind (port_kind); inline,
 * for session.c as for device.c */
static inline void
mpd_v_port_seen(struct mpd_verbs_ctx *c, unsigned int port_num,
		const struct mpd_chan_port_info *pi)
{
	__atomic_store_n(&c->port_kind[port_num - 1], pi->link_layer ? 2 : 1,
			 __ATOMIC_RELAXED);
}
/* A port's GID table length (1 on IB, 2 on RoCE: device.c's gid_of()),
 * *roce set; asked of the daemon only the first time. 0: no such port,
 * or no answer. */
int mpd_v_port_gids(struct ibv_context *c, uint8_t port_num, bool *roce);

/* Objects */
struct mpd_v_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
	pthread_spinlock_t lock;	/* ring */
	struct mpd_v_cq_ring ring;
	size_t map_size;
	bool ex_polling;		/* between start_poll and end_poll */
	uint32_t comp_returned;		/* by ibv_get_cq_event, obj_lock */
	uint64_t wc_flags;		/* cq_ex: what it was made with */
	struct mpd_v_cq *ch_next;	/* its channel's list, obj_lock */
	struct mpd_v_objref obj;
};

struct mpd_v_channel {
	struct ibv_comp_channel ch;
	struct mpd_v_cq *cqs;		/* obj_lock */
};

/* b first: laid out as rdma-core's verbs_qp (vring.h) */
struct mpd_v_qp {
	struct mpd_v_qp_base b;
	pthread_spinlock_t rq_lock;
	size_t map_size;
	struct ibv_qp_cap cap;		/* as granted */
	int sq_sig_all;
	struct mpd_v_objref obj;
};

struct mpd_v_srq {
	struct ibv_srq srq;
	pthread_spinlock_t lock;
	struct mpd_v_qp_ring ring;	/* its rq */
	size_t map_size;
	uint32_t max_wr, max_sge, srq_limit;
	struct mpd_v_objref obj;
};

static inline struct mpd_v_cq *
mpd_v_cq(struct ibv_cq *cq)
{
	return (struct mpd_v_cq *)cq;
}

static inline struct mpd_v_qp *
mpd_v_qp(struct ibv_qp *qp)
{
	return (struct mpd_v_qp *)qp;
}

uint32_t mpd_v_channel_handle(struct ibv_comp_channel *ch);

/* cq.c, qp.c, srq.c: the context's ops */
int mpd_v_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int mpd_v_req_notify_cq(struct ibv_cq *cq, int solicited_only);
struct ibv_cq_ex *mpd_v_create_cq_ex(struct ibv_context *context,
				     struct ibv_cq_init_attr_ex *attr);
int mpd_v_post_send_op(struct ibv_qp *qp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad_wr);
int mpd_v_post_recv_op(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
int mpd_v_post_srq_recv_op(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad_wr);
struct ibv_qp *mpd_v_create_qp_ex(struct ibv_context *context,
				  struct ibv_qp_init_attr_ex *attr);
/* mr.c */
void mpd_v_ranges_free(struct mpd_verbs_ctx *c);

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
