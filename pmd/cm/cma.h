/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_cm ids of one port on top of its IB CM (ibcm.h), as the kernel's
 * cma.c and ucma.c make them: port spaces and ports, the cma header in
 * REQ and SIDR_REQ private data, address and route resolution through
 * the fabric's own tables and the SA, listen/connect/accept/reject/
 * disconnect, the QP attributes of each step, notify.
 *
 * Ids belong to owners (the channel's sessions) that hear of them through
 * struct hca_cma_owner_ops; this layer includes no channel header. No
 * DPDK, no lock, no clock: callers hold the port lock and pass the time.
 * Every call returns 0 or a positive errno, as cma.h's replies carry it.
 */
#ifndef NET_HCA_CMA_H
#define NET_HCA_CMA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "madpmd/cma.h"
#include "madpmd/sa.h"
#include "../node/node.h"
#include "ibcm.h"

#define HCA_CMA_MAX_IDS		16384	/* per port, a power of two */
#define HCA_CMA_MAX_MC		1024	/* multicast joins per port, ditto */

/* librdmacm's values (rdma_cma.h) */
#define HCA_CMA_PS_IPOIB	0x0002
#define HCA_CMA_PS_TCP		0x0106
#define HCA_CMA_PS_UDP		0x0111
#define HCA_CMA_UDP_QKEY	0x01234567u	/* RDMA_UDP_QKEY */
/* an RDMA_PS_IPOIB join's Q_Key: the kernel takes the IPoIB broadcast
 * group's, which OpenSM makes with 0x0B1B (IPOIB_QKEY) */
#define HCA_CMA_IPOIB_QKEY	0x00000b1bu
#define HCA_CMA_MC_FULLMEMBER	0		/* RDMA_MC_JOIN_FLAG_* */
#define HCA_CMA_MC_SENDONLY	1
#define HCA_CMA_OPT_ID		0		/* RDMA_OPTION_ID */
#define HCA_CMA_OPT_ID_TOS	0
#define HCA_CMA_OPT_ID_REUSEADDR 1
#define HCA_CMA_OPT_ID_AFONLY	2
#define HCA_CMA_OPT_ID_ACK_TIMEOUT 3
#define HCA_CMA_OPT_IB		1		/* RDMA_OPTION_IB */
#define HCA_CMA_OPT_IB_PATH	1

/* cma.c's constants */
#define HCA_CMA_RESP_TIMEOUT	20	/* CMA_CM_RESPONSE_TIMEOUT */
#define HCA_CMA_MAX_RETRIES	15	/* CMA_MAX_CM_RETRIES */
#define HCA_CMA_IBOE_LIFETIME	18	/* CMA_IBOE_PACKET_LIFETIME */
#define HCA_CMA_MC_TIMEOUT_MS	3000	/* multicast.c's SA queries */

/* enum rdma_cm_event_type */
enum hca_cma_event {
	HCA_CMA_EV_ADDR_RESOLVED = 0,
	HCA_CMA_EV_ADDR_ERROR = 1,
	HCA_CMA_EV_ROUTE_RESOLVED = 2,
	HCA_CMA_EV_ROUTE_ERROR = 3,
	HCA_CMA_EV_CONNECT_REQUEST = 4,
	HCA_CMA_EV_CONNECT_RESPONSE = 5,
	HCA_CMA_EV_CONNECT_ERROR = 6,
	HCA_CMA_EV_UNREACHABLE = 7,
	HCA_CMA_EV_REJECTED = 8,
	HCA_CMA_EV_ESTABLISHED = 9,
	HCA_CMA_EV_DISCONNECTED = 10,
	HCA_CMA_EV_MULTICAST_JOIN = 12,
	HCA_CMA_EV_MULTICAST_ERROR = 13,
	HCA_CMA_EV_TIMEWAIT_EXIT = 15,
};

/* enum rdma_cm_state */
enum hca_cma_state {
	HCA_CMA_IDLE = 0,
	HCA_CMA_ADDR_QUERY,
	HCA_CMA_ADDR_RESOLVED,
	HCA_CMA_ROUTE_QUERY,
	HCA_CMA_ROUTE_RESOLVED,
	HCA_CMA_CONNECT,
	HCA_CMA_DISCONNECT,
	HCA_CMA_ADDR_BOUND,
	HCA_CMA_LISTEN,
};

struct hca_cma_owner;

struct hca_cma_owner_ops {
	/* An event for the owner: false when it could not take it (the
	 * owner is then cut off and will destroy its ids). */
	bool (*event)(struct hca_cma_owner *o, const struct mpd_cm_event_rec *e);
};

/* What the layer knows of an id's owner; the channel embeds it. */
struct hca_cma_owner {
	const struct hca_cma_owner_ops *ops;
	uint32_t pid;			/* MIGRATE_ID: the same process */
	uint32_t nids;			/* ids it holds */
	uint32_t njoins;		/* multicast joins not left */
	bool dead;
};

struct hca_cma_id {
	TAILQ_ENTRY(hca_cma_id) next;	/* free list */
	bool used;
	bool has_port;			/* bound to this port's address */
	bool bound;			/* holds its port number */
	bool reuseaddr, afonly, tos_set, ack_timeout_set;
	bool in_backlog;		/* a request its listen counts */
	uint8_t tos;
	uint8_t ack_timeout;
	uint8_t num_paths;
	uint32_t handle;
	struct hca_cma_owner *owner;
	uint32_t ps;
	uint32_t qp_type;		/* enum ibv_qp_type */
	enum hca_cma_state state;
	struct mpd_cm_addr src, dst;
	uint8_t sgid[16], dgid[16];
	uint16_t pkey;
	struct mpd_cm_path_rec path;
	struct hca_ibcm_conn *conn;
	uint32_t parent;		/* a request's listen */
	uint32_t backlog, pending;	/* a listen's, and its requests */
	uint32_t events_reported;
	uint32_t qp_num;
	uint32_t qkey;
};

/* What the layer needs of the port's glue: SA queries go out with a
 * time-out (the MAD layer's), their answers come to hca_cma_sa_input. */
struct hca_cma_io {
	void (*sa_send)(void *ctx, const struct hca_mad_desc *d,
			const uint8_t *mad);
	/* every event an owner took, as it took it (a capture record);
	 * NULL: none */
	void (*observe)(void *ctx, const struct hca_cma_id *id,
			const struct mpd_cm_event_rec *e);
};

/* A multicast join of an id (cma.c's struct cma_multicast) */
enum hca_cma_mc_state {
	HCA_CMA_MC_FREE = 0,
	HCA_CMA_MC_JOINING,		/* the SA's answer awaited */
	HCA_CMA_MC_JOINED,
	HCA_CMA_MC_FAILED,		/* MULTICAST_ERROR given */
};

struct hca_cma_mc {
	enum hca_cma_mc_state state;
	uint32_t handle;		/* gen << 10 | slot: its query's TID */
	uint32_t id;			/* the id's handle */
	uint8_t join_state;		/* MPD_MCM_JOIN_* */
	uint8_t mgid[16];		/* the SA's, once joined */
	struct mpd_cm_addr addr;
	uint64_t uid;
	uint32_t events_reported;
};

struct hca_cma {
	struct hca_port *port;
	struct hca_ibcm *ibcm;
	const struct hca_cma_io *io;
	void *io_ctx;
	uint32_t sa_agent;
	uint32_t mc_agent;		/* SA queries of joins: TIDs of their own */
	uint32_t next_gen;
	uint64_t rnd;
	struct hca_cma_id *ids;		/* HCA_CMA_MAX_IDS */
	TAILQ_HEAD(, hca_cma_id) free;
	uint32_t carved;		/* ids handed out at least once */
	uint32_t nused;
	struct hca_cma_mc *mcs;		/* HCA_CMA_MAX_MC */
	uint32_t mc_gen;
	uint32_t mc_del_tid;		/* Deletes: TIDs with bit 31 set */
	uint64_t events, events_lost;
};

int hca_cma_init(struct hca_cma *cma, struct hca_port *port,
		 struct hca_ibcm *ibcm, const struct hca_cma_io *io,
		 void *io_ctx, uint64_t seed);
void hca_cma_fini(struct hca_cma *cma);

/* The IB CM's events for connections the ids own (hca_ibcm_ops.event) */
enum hca_ibcm_verdict hca_cma_cm_event(struct hca_cma *cma, struct hca_ibcm_conn *c,
		     const struct hca_ibcm_event *ev);
/* An SA agent's answer or handed-back query (status set) */
void hca_cma_sa_input(struct hca_cma *cma, const struct hca_mad_desc *d,
		      const uint8_t *mad, uint32_t len);
/* ... of the multicast agent (mc_agent) */
void hca_cma_mc_sa_input(struct hca_cma *cma, const struct hca_mad_desc *d,
			 const uint8_t *mad, uint32_t len);

/* The id a handle names (any owner's), or NULL */
const struct hca_cma_id *hca_cma_id_of(struct hca_cma *cma, uint32_t handle);

int hca_cma_create(struct hca_cma *cma, struct hca_cma_owner *o,
		   uint32_t ps, uint32_t qp_type, uint32_t *handle);
int hca_cma_destroy(struct hca_cma *cma, struct hca_cma_owner *o,
		    uint32_t handle, uint64_t now_ns, uint32_t *events);
/* Every id of o, destroyed as DESTROY_ID does */
void hca_cma_owner_gone(struct hca_cma *cma, struct hca_cma_owner *o,
			uint64_t now_ns);
int hca_cma_bind(struct hca_cma *cma, struct hca_cma_owner *o,
		 uint32_t handle, const struct mpd_cm_addr *a);
int hca_cma_resolve_addr(struct hca_cma *cma, struct hca_cma_owner *o,
			 const struct mpd_cm_resolve_addr_req *r);
int hca_cma_resolve_route(struct hca_cma *cma, struct hca_cma_owner *o,
			  const struct mpd_cm_resolve_route_req *r);
int hca_cma_query(struct hca_cma *cma, struct hca_cma_owner *o,
		  uint32_t handle, struct mpd_cm_id_info *info);
int hca_cma_listen(struct hca_cma *cma, struct hca_cma_owner *o,
		   uint32_t handle, uint32_t backlog);
int hca_cma_connect(struct hca_cma *cma, struct hca_cma_owner *o,
		    uint32_t handle, const struct mpd_cm_conn_param *p,
		    uint64_t now_ns);
int hca_cma_accept(struct hca_cma *cma, struct hca_cma_owner *o,
		   uint32_t handle, const struct mpd_cm_conn_param *p,
		   uint64_t now_ns);
int hca_cma_reject(struct hca_cma *cma, struct hca_cma_owner *o,
		   uint32_t handle, const uint8_t *pdata, uint8_t len,
		   uint64_t now_ns);
int hca_cma_disconnect(struct hca_cma *cma, struct hca_cma_owner *o,
		       uint32_t handle, uint64_t now_ns);
int hca_cma_establish(struct hca_cma *cma, struct hca_cma_owner *o,
		      uint32_t handle);
int hca_cma_init_qp_attr(struct hca_cma *cma, struct hca_cma_owner *o,
			 uint32_t handle, uint32_t qp_state,
			 struct mpd_cm_qp_attr_rep *rep);
int hca_cma_notify(struct hca_cma *cma, struct hca_cma_owner *o,
		   uint32_t handle, uint32_t event);
int hca_cma_set_option(struct hca_cma *cma, struct hca_cma_owner *o,
		       const struct mpd_cm_option_req *r);
/* The id moves to o (same process); *events as DESTROY_ID's */
int hca_cma_migrate(struct hca_cma *cma, struct hca_cma_owner *o,
		    uint32_t handle, uint32_t *events);
/* JOIN_MCAST and LEAVE_MCAST (madpmd/cma.h); *events: the join's */
int hca_cma_join(struct hca_cma *cma, struct hca_cma_owner *o,
		 const struct mpd_cm_join_req *r);
int hca_cma_leave(struct hca_cma *cma, struct hca_cma_owner *o,
		  const struct mpd_cm_join_req *r, uint32_t *events);

/* ---- cma_route.c: addresses and routes, from the fabric's tables ---- */

/* The kernel's cma_any_addr(): the wildcard or loopback, which bind an
 * id to no device (a listener on either listens on every port) */
bool hca_cma_addr_any(const struct mpd_cm_addr *a);
/* A multicast address: IPv4 224/4 (also IPv4-mapped), IPv6 ff00::/8 */
bool hca_cma_addr_mcast(const struct mpd_cm_addr *a);

/* The port's own address (wildcard, loopback, its IPv4 or GIDs) */
bool hca_cma_addr_local(const struct hca_port *p, const struct mpd_cm_addr *a);
/* Where dst is on the fabric: true with *n */
bool hca_cma_addr_resolve(const struct hca_port *p,
			  const struct mpd_cm_addr *dst, struct hca_neigh *n);
/* The GID an id uses: IB GID 0, RoCEv2 the IPv4-mapped GID 1 */
void hca_cma_gid(const struct hca_port *p, const struct hca_neigh *n,
		 uint8_t gid[16]);
/* A SubnAdm Get(PathRecord) from the port to its SM (IBA 15.4), low
 * TID bits tid: into mad, addressed by *d */
void hca_cma_path_query(const struct hca_port *p, const uint8_t sgid[16],
			const uint8_t dgid[16], uint16_t pkey, uint32_t tid,
			uint8_t *mad, struct hca_mad_desc *d);
/* The answer: 0 with *path, or EHOSTUNREACH */
int hca_cma_path_answer(const uint8_t *mad, uint32_t len,
			struct mpd_cm_path_rec *path);
/* A RoCEv2 route: no SA, the port's own view (cma.c's iboe route) */
void hca_cma_roce_path(const struct hca_port *p, const uint8_t sgid[16],
		       const uint8_t dgid[16], uint8_t tos,
		       struct mpd_cm_path_rec *path);

/* ---- cma_mcast.c: joins, their MGIDs and the SA's MCMemberRecords ---- */

int hca_cma_mc_init(struct hca_cma *cma);
void hca_cma_mc_fini(struct hca_cma *cma);
/* A free join of the table (handle set, state JOINING), or NULL */
struct hca_cma_mc *hca_cma_mc_alloc(struct hca_cma *cma);
void hca_cma_mc_free(struct hca_cma *cma, struct hca_cma_mc *mc);
struct hca_cma_mc *hca_cma_mc_by_handle(struct hca_cma *cma, uint32_t h);
/* The first join of id after *from (NULL: from the start) whose
 * address is a (NULL: any), or NULL */
struct hca_cma_mc *hca_cma_mc_next(struct hca_cma *cma, uint32_t id,
				   const struct mpd_cm_addr *a,
				   struct hca_cma_mc *from);
/* The MGID of a group address for a port space and P_Key, as cma.c's
 * cma_set_mgid() (IPoIB's mapping, RFC 4391, with the RDMA CM
 * signature 0x01 for RDMA_PS_UDP) */
void hca_cma_mgid(uint32_t ps, uint16_t pkey, const struct mpd_cm_addr *a,
		  uint8_t mgid[16]);
/* The JoinState bits of mc that no other live join of the port to its
 * MGID holds: what a leave deletes at the SA */
uint8_t hca_cma_mc_leave_bits(const struct hca_cma *cma,
			      const struct hca_cma_mc *mc);
/* A SubnAdm Set (join) or Delete (leave) of the port's MCMemberRecord
 * for mgid (IBA 15.2.5.17), with the component mask cma.c's
 * cma_join_ib_multicast() gives, low TID bits tid, addressed to the SM */
void hca_cma_mc_query(const struct hca_port *p, uint8_t method,
		      const uint8_t mgid[16], uint8_t join_state,
		      uint32_t qkey, uint16_t pkey, uint32_t tid,
		      uint8_t *mad, struct hca_mad_desc *d);
/* The SA's answer to a Set: 0 with *rec, or EINVAL (an error status, a
 * record not ours), as sa_query.c maps a MAD status */
int hca_cma_mc_answer(const struct hca_port *p, const uint8_t *mad,
		      uint32_t len, const uint8_t mgid[16],
		      struct mpd_mcmember_record *rec);
/* The group's address vector (ib_init_ah_from_mcmember()) */
void hca_cma_mc_ah(const struct hca_port *p,
		   const struct mpd_mcmember_record *rec, struct mpd_v_ah *ah);

#endif
