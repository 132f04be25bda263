/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rdma_cm service of the client channel (madpmd/chan.h): what the
 * drop-in librdmacm.so.1 asks the daemon, and the events the daemon
 * sends back. The daemon runs the IB CM (IBA 12) and the rdma_cm ids on
 * top of it, as the kernel's cm.c and cma.c do; the library is what
 * librdmacm is over /dev/infiniband/rdma_cm (ucma.c's commands).
 *
 * An event channel is a session: the library connects to the node's
 * port socket and says HELLO (MPD_CHAN_VERSION), as umad does. Requests
 * below travel on the session's control socket (one in flight per
 * session); events come as MPD_CHAN_REC_CM records (struct
 * mpd_cm_event_rec) in the session's receive ring, and the session's
 * wake-up socket is under the channel's fd (readable while events are queued; the
 * rules of "Wake-ups" in madpmd/chan.h). A session's rx_awake stays 0:
 * the library never spins on it.
 *
 * Ids: the daemon's, one table per port, named by a handle it gives out
 * (never 0). An id belongs to the session that made it (or that
 * MIGRATEd it); a request naming an id of another session, a freed id
 * or a handle never given fails with EINVAL (ENOENT for a freed one is
 * not distinguished). When a session ends, its ids are destroyed as
 * DESTROY_ID does (a connected one sends DREQ; a REQ it received and
 * never answered is rejected): the peer's application gets
 * DISCONNECTED or REJECTED. MIGRATE_ID is sent on the new session and
 * names an id of another session of the same process (SO_PEERCRED) on
 * the same port: the id's later events go to the new session; those
 * already queued stay in the old one's ring.
 *
 * Every integer is host order unless named _be. Status of a reply: 0 or
 * the positive errno the rdma_* call returns (as errno, with -1).
 */
#ifndef MADPMD_CMA_H
#define MADPMD_CMA_H

#include <stdint.h>

#include "madpmd/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

enum mpd_cm_type {
	MPD_CM_CREATE_ID = 64,
	MPD_CM_DESTROY_ID = 65,
	MPD_CM_BIND = 66,
	MPD_CM_RESOLVE_ADDR = 67,	/* event ADDR_RESOLVED / ADDR_ERROR */
	MPD_CM_RESOLVE_ROUTE = 68,	/* event ROUTE_RESOLVED / ROUTE_ERROR */
	MPD_CM_QUERY = 69,		/* reply struct mpd_cm_id_info */
	MPD_CM_LISTEN = 70,
	MPD_CM_CONNECT = 71,
	MPD_CM_ACCEPT = 72,
	MPD_CM_REJECT = 73,
	MPD_CM_DISCONNECT = 74,
	MPD_CM_INIT_QP_ATTR = 75,	/* reply struct mpd_cm_qp_attr_rep */
	MPD_CM_NOTIFY = 76,
	MPD_CM_SET_OPTION = 77,
	MPD_CM_MIGRATE_ID = 78,
	MPD_CM_ESTABLISH = 79,		/* the active side's RTU */
	MPD_CM_JOIN_MCAST = 80,		/* event MULTICAST_JOIN / _ERROR */
	MPD_CM_LEAVE_MCAST = 81,	/* reply struct mpd_cm_events_rep */
	MPD_CM_TYPE_LAST = 81,
};

/* Limits the daemon keeps per session (a request past one: ENOMEM) */
#define MPD_CM_SESSION_IDS	4096
#define MPD_CM_PROC_IDS		4096	/* all sessions of one process */
#define MPD_CM_USER_IDS		12288	/* all processes of one user; the
					 * port has 16384 */
#define MPD_CM_SESSION_JOINS	256	/* multicast joins not left */
#define MPD_CM_BACKLOG_MAX	1024	/* a listen's unaccepted requests */
#define MPD_CM_EVENTS_MAX	4096	/* events queued and not taken */

/* The private data an application may give (rdma_cm's limits: the CM
 * message's, less the 36-byte cma header for TCP and UDP ids) */
#define MPD_CM_PDATA_MAX	196	/* REP's, the largest */
#define MPD_CM_HDR_LEN		36	/* struct cma_hdr, cma.c */

/*
 * An address, as the library's sockaddr: family AF_INET (2) or AF_INET6
 * (10), AF_IB (27) is not served (EAFNOSUPPORT). addr holds the 4 bytes
 * of an IPv4 address in addr[0..3], or the 16 of an IPv6 one. 0.0.0.0 /
 * :: is the wildcard, port 0 "any".
 */
struct mpd_cm_addr {
	uint16_t family;
	uint16_t port;			/* host order */
	uint32_t scope_id;		/* IPv6 */
	uint8_t addr[16];
};

struct mpd_cm_create_id_req {
	uint32_t ps;			/* RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IPOIB */
	uint32_t qp_type;		/* IBV_QPT_RC, IBV_QPT_UC or IBV_QPT_UD */
};

struct mpd_cm_id_rep {
	uint32_t id;
};

/* DESTROY_ID, LISTEN's backlog, DISCONNECT, ESTABLISH, QUERY,
 * NOTIFY's event, MIGRATE_ID */
struct mpd_cm_id_req {
	uint32_t id;
	uint32_t arg;			/* LISTEN: backlog (0: the default,
					 * capped at MPD_CM_BACKLOG_MAX);
					 * NOTIFY: enum ibv_event_type */
};

/* DESTROY_ID's and MIGRATE_ID's reply: events queued for the id so far
 * (ever, on its sessions), so the library can wait until it has taken
 * and acked that many, as rdma_destroy_id() does */
struct mpd_cm_events_rep {
	uint32_t events_reported;
};

/* BIND: EADDRINUSE (another id of the port space has the port), and
 * EADDRNOTAVAIL (not an address of this port) */
struct mpd_cm_bind_req {
	uint32_t id;
	uint32_t pad;
	struct mpd_cm_addr addr;
};

/* RESOLVE_ADDR: src family 0 when none was given. The answer is an
 * event: ADDR_RESOLVED, or ADDR_ERROR with status -EHOSTUNREACH (no
 * port of the fabric has dst) or -ENODEV (src is not this port's).
 * Resolution uses the fabric's own address table: no IP packet. */
struct mpd_cm_resolve_addr_req {
	uint32_t id;
	uint32_t timeout_ms;
	struct mpd_cm_addr src;
	struct mpd_cm_addr dst;
};

/* RESOLVE_ROUTE: event ROUTE_RESOLVED, or ROUTE_ERROR with status
 * -ETIMEDOUT (no SM answered a PathRecord query on an IB port) or
 * -EHOSTUNREACH (the SM has no path). EINVAL at once when the address is
 * not resolved. */
struct mpd_cm_resolve_route_req {
	uint32_t id;
	uint32_t timeout_ms;
};

/* A path as rdma-core's struct ibv_sa_path_rec has it, host order except
 * where named _be */
struct mpd_cm_path_rec {
	uint8_t dgid[16];
	uint8_t sgid[16];
	uint16_t dlid;
	uint16_t slid;
	uint16_t pkey;
	uint8_t raw_traffic;
	uint8_t reversible;
	uint32_t flow_label;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t numb_path;
	uint8_t sl;
	uint8_t mtu_selector;
	uint8_t mtu;			/* enum ibv_mtu */
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t packet_life_time_selector;
	uint8_t packet_life_time;
	uint8_t preference;
	uint8_t pad;
};

/* QUERY's reply: what the library copies into rdma_cm_id's route */
struct mpd_cm_id_info {
	struct mpd_cm_addr src;
	struct mpd_cm_addr dst;
	uint8_t sgid[16];
	uint8_t dgid[16];
	uint16_t pkey;
	uint8_t port_num;		/* 0 until bound to a port */
	uint8_t num_paths;		/* 0 or 1 */
	uint32_t qp_num;		/* of the connection, 0: none */
	struct mpd_cm_path_rec path;
};

/*
 * CONNECT and ACCEPT: rdma_conn_param, with the QP's number and the
 * private data copied in. For a UD id, CONNECT sends SIDR_REQ and
 * ACCEPT SIDR_REP (qkey used there); REJECT of a UD id's request sends
 * SIDR_REP with status REJECT. private_data_len above what the message
 * carries (less MPD_CM_HDR_LEN for TCP/UDP ids): EINVAL.
 */
struct mpd_cm_conn_param {
	uint32_t qp_num;		/* 24 bits */
	uint32_t qkey;			/* UD */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t flow_control;
	uint8_t retry_count;		/* 3 bits */
	uint8_t rnr_retry_count;	/* 3 bits */
	uint8_t srq;
	uint8_t private_data_len;
	uint8_t pad;
	uint8_t private_data[MPD_CM_PDATA_MAX];
};

struct mpd_cm_conn_req {
	uint32_t id;
	uint32_t pad;
	struct mpd_cm_conn_param param;
};

/* REJECT: the consumer's private data; REJ reason 28 (consumer defined) */
struct mpd_cm_reject_req {
	uint32_t id;
	uint8_t private_data_len;
	uint8_t pad[3];
	uint8_t private_data[MPD_CM_PDATA_MAX];
};

/* INIT_QP_ATTR: the attributes and mask to move the id's QP to
 * qp_state (IBV_QPS_INIT, RTR or RTS), as rdma_init_qp_attr() gives
 * them; EINVAL when the connection is not far enough for that state */
struct mpd_cm_qp_attr_req {
	uint32_t id;
	uint32_t qp_state;
};

struct mpd_cm_qp_attr_rep {
	uint32_t attr_mask;		/* enum ibv_qp_attr_mask */
	uint32_t pad;
	struct mpd_v_qp_attr attr;
};

/* SET_OPTION: RDMA_OPTION_ID (TOS, REUSEADDR, AFONLY, ACK_TIMEOUT) take
 * value; RDMA_OPTION_IB_PATH is ENOSYS for now; others EINVAL */
struct mpd_cm_option_req {
	uint32_t id;
	uint32_t level;
	uint32_t optname;
	uint32_t pad;
	uint64_t value;
};

/*
 * JOIN_MCAST: the id (UD, bound to the port or its address resolved:
 * EINVAL otherwise) joins the group of addr through the port's SA, as
 * the kernel's cma.c does (IBA 15.2.5.17 Set(MCMemberRecord)): MGID
 * ff12:4001:<P_Key>::<low 28 bits of an IPv4 group> for RDMA_PS_UDP,
 * ff12:401b:... for RDMA_PS_IPOIB (IPoIB's mapping, RFC 4391), an IPv6
 * group's low 80 bits likewise, an IPv6 address of the SA's own
 * ff1x:a01b: prefix as it is. flags: RDMA_MC_JOIN_FLAG_FULLMEMBER (0,
 * JoinState FullMember) or RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER (1,
 * SendOnlyFullMember, as the kernel's ucma maps it); others EINVAL. uid
 * is the library's, echoed in the events of the join. The answer is an
 * event: MULTICAST_JOIN with ud (ah: MLID, SL, rate, GRH to the MGID
 * with the group's flow label, hop limit and traffic class; qp_num
 * 0xFFFFFF; the id's Q_Key), or MULTICAST_ERROR with status -ETIMEDOUT
 * (no SA answered in 3 s), -EINVAL (the SA refused: any MAD status, as
 * sa_query.c maps it) or -ENETUNREACH (the port has no SM or is not
 * Active). A RoCE port: EOPNOTSUPP at once (no IBoE joins yet). Past
 * MPD_CM_SESSION_JOINS: ENOMEM. The join is the id's: DESTROY_ID and
 * the end of the session leave it.
 *
 * LEAVE_MCAST: the join of the id with that address and uid (flags
 * ignored) is left: EADDRNOTAVAIL when there is none. The daemon
 * sends the SA a Delete(MCMemberRecord) for the JoinState bits no other
 * join of the port to that MGID still holds (none when one does, as the
 * kernel's multicast.c). Reply: the events reported for the join.
 */
struct mpd_cm_join_req {
	uint32_t id;
	uint32_t flags;
	uint64_t uid;
	struct mpd_cm_addr addr;
};

/*
 * An event: the record MPD_CHAN_REC_CM. event is enum rdma_cm_event_type
 * and status what the kernel's ucma gives (0; a negative errno for
 * ADDR_ERROR, ROUTE_ERROR, UNREACHABLE (-ETIMEDOUT), CONNECT_ERROR; the
 * REJ reason for REJECTED, e.g. 8 when nobody listens on the service
 * ID, 28 when the peer's application rejected).
 *
 * CONNECT_REQUEST names the listening id in id and the new one the
 * daemon made for the request in child (the library QUERYs it); conn
 * carries the request's parameters seen from this side (responder
 * resources = the peer's initiator depth ...), and its private data
 * without the cma header (private_data_len the whole room, 56 for a
 * TCP id's REQ, as the kernel reports). CONNECT_RESPONSE (the REP: the
 * library moves its QP to RTR and RTS, then ESTABLISHes), ESTABLISHED,
 * REJECTED and DISCONNECTED carry the peer's private data likewise. A UD
 * id's CONNECT_REQUEST (SIDR_REQ) and ESTABLISHED (SIDR_REP) fill ud, and
 * so do MULTICAST_JOIN and MULTICAST_ERROR (status only), with uid.
 */
struct mpd_cm_ud_param {
	struct mpd_v_ah ah;
	uint32_t qp_num;
	uint32_t qkey;
};

struct mpd_cm_event_rec {
	uint32_t id;
	uint32_t event;			/* enum rdma_cm_event_type */
	int32_t status;
	uint32_t child;			/* CONNECT_REQUEST: the new id */
	struct mpd_cm_conn_param conn;	/* and its private data */
	struct mpd_cm_ud_param ud;
	uint32_t pad;
	uint64_t uid;			/* MULTICAST_*: the join's */
};

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_CMA_H */
