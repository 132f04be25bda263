/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs part of the client channel (madpmd/chan.h): control requests
 * that make and unmake PDs, MRs, completion channels, CQs and QPs on a
 * port's session, and the layouts of the shared memory the client posts
 * work requests into and polls completions out of.
 *
 * Every object lives on one session: the session of port 1 of the node
 * (the device's session). It goes when the session goes (the client
 * closed it or died). Every object is named by a handle the daemon hands
 * out (never a pointer); a handle of another session, freed or made up,
 * is EINVAL.
 *
 * Memory: the daemon makes every shared mapping (memfds sealed at their
 * size) and hands the client its fd in the reply; the client never gives
 * the daemon memory whose size it could change.
 *  - A CQ: struct mpd_v_cq_shm, then ncqe entries of 64 bytes.
 *  - A QP: struct mpd_v_qp_shm, then the send queue, then the receive
 *    queue (none when the QP has an SRQ), at the offsets it states.
 *  - An MR: REG_MR's reply carries a memfd of map_len bytes that will
 *    back the pages [addr & ~(P - 1), round_up(addr + length, P)) of the
 *    client: it copies their contents in and maps it MAP_SHARED|MAP_FIXED
 *    over them, so that the daemon reads and writes the application's
 *    buffers itself (one-sided operations reach a client that does not
 *    run). The pages at offset 0 of the memfd start at
 *    (addr & ~(P - 1)). P is the system page (madpmd/page.h).
 *
 * Indexes: the client's producer counts (sq_pi, rq_pi) and consumer
 * count (cq ci) in the shared memory are advice to the daemon, which
 * keeps its own and checks what it reads against them; the daemon's
 * counts there (sq_ci, rq_ci) are advice to the client.
 *
 * Doorbell: after publishing sq_pi or rq_pi (release) the client fences
 * and, when the session's doorbell_armed is set, writes 1 to the doorbell
 * (HELLO's third fd), as for a umad send.
 */
#ifndef MADPMD_VERBS_H
#define MADPMD_VERBS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Control request types, beside enum mpd_chan_type */
enum mpd_v_type {
	MPD_V_ALLOC_PD = 32,
	MPD_V_DEALLOC_PD = 33,
	MPD_V_REG_MR = 34,		/* reply: one fd, the MR's memfd */
	MPD_V_DEREG_MR = 35,
	MPD_V_CREATE_CHANNEL = 36,	/* reply: the socketpair's ends */
	MPD_V_DESTROY_CHANNEL = 37,
	MPD_V_CREATE_CQ = 38,		/* reply: one fd, the CQ's memfd */
	MPD_V_DESTROY_CQ = 39,
	MPD_V_CREATE_QP = 40,		/* reply: one fd, the QP's memfd */
	MPD_V_MODIFY_QP = 41,
	MPD_V_QUERY_QP = 42,
	MPD_V_DESTROY_QP = 43,
	MPD_V_CREATE_SRQ = 44,		/* reply: one fd, the SRQ's memfd */
	MPD_V_MODIFY_SRQ = 45,
	MPD_V_DESTROY_SRQ = 46,
	MPD_V_RESIZE_CQ = 47,		/* reply: one fd, the CQ's new memfd */
	MPD_V_ATTACH_MCAST = 48,
	MPD_V_DETACH_MCAST = 49,
	/* the session is a device context (ibv_open_device()): it hears the
	 * port's events from now, as the kernel sends them to every open
	 * context, whether or not it has made an object */
	MPD_V_OPEN_CONTEXT = 50,
	/* memory windows (IBA 10.6.7), bound and invalidated by WRs */
	MPD_V_ALLOC_MW = 51,
	MPD_V_DEALLOC_MW = 52,
};

#define MPD_V_NO_HANDLE		0xffffffffu

/* Limits the daemon enforces (ibv_query_device reports them) */
#define MPD_V_MAX_QP_WR		16384
#define MPD_V_MAX_SGE		16
#define MPD_V_MAX_INLINE	256
#define MPD_V_MAX_CQE		(1u << 20)	/* per CQ, a power of two */
#define MPD_V_MAX_MR_SIZE	(1ull << 32)
#define MPD_V_MAX_RD_ATOMIC	16
#define MPD_V_MAX_OBJECTS	4096	/* of each kind, per session */

/*
 * A process's share of a port: every context it opens on the node
 * together (ibv_query_device() reports these as max_pd, max_mr, max_cq,
 * max_srq and max_qp); past one a create fails ENOMEM. One user's
 * processes together hold at most MPD_V_USER_SHARES shares, and the port
 * has room for one more (4096 QP numbers, 16384 MR keys): another user
 * can always create what a pingpong needs.
 */
#define MPD_V_PROC_PDS		1024
#define MPD_V_PROC_MRS		4096
#define MPD_V_PROC_CQS		1024
#define MPD_V_PROC_SRQS		1024
#define MPD_V_PROC_QPS		1024
#define MPD_V_PROC_WQES		(1u << 20)	/* send + receive, all QPs/SRQs */
#define MPD_V_PROC_CQES		(1u << 22)	/* all CQs */
#define MPD_V_USER_SHARES	3
#define MPD_V_PORT_QPS		4096	/* QP numbers of a port */
#define MPD_V_PORT_MRS		16384	/* MR keys of a port */
#define MPD_V_MAX_MCAST_GRP	64	/* groups attached to, per port */
#define MPD_V_MAX_MCAST_QP_ATTACH 16	/* QPs per group */

/* A handle reply: CREATE_CHANNEL, ALLOC_PD */
struct mpd_v_handle {
	uint32_t handle;
};

/*
 * alias: MPD_V_NO_HANDLE, or the map_id of a live MR's memfd that backs
 * every page of the new MR already (the client mapped it over them, and
 * mapping a second memfd there would detach the first MR). It may be an
 * MR of another session of the same process (a second context). The
 * daemon then makes no memfd: the new MR shares that one (kept while any
 * MR using it lives; the new MR's pages sit at offset (addr & ~(P - 1))
 * minus the mapping's page start), and the reply carries no fd and
 * map_len 0.
 */
/*
 * merge_lo, merge_hi: 0, or (no alias) pages [merge_lo, merge_hi) that
 * hold the new MR's and wholly cover every live MR mapping of the
 * session they touch: the MR's pages overlap those in part. The daemon
 * then makes one memfd for all of them, moves those MRs onto it (their
 * keys stay), and the client copies the whole range in and maps it over
 * the range.
 */
struct mpd_v_reg_mr_req {
	uint32_t pd;
	uint32_t access;		/* enum ibv_access_flags */
	uint64_t addr;			/* the client's address: the MR's iova */
	uint64_t length;
	uint32_t alias;			/* MPD_V_NO_HANDLE, or a map_id */
	uint32_t pad;
	uint64_t merge_lo;
	uint64_t merge_hi;
};

struct mpd_v_reg_mr_rep {
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t map_id;		/* the memfd it is on, for aliases */
	uint64_t map_len;		/* bytes of the memfd */
};

/* ALLOC_MW: a window of type 1 or 2 (enum ibv_mw_type) in pd; the reply's
 * rkey names it, unbound, until a bind gives it another key byte */
struct mpd_v_alloc_mw_req {
	uint32_t pd;
	uint32_t type;
};

struct mpd_v_alloc_mw_rep {
	uint32_t handle;
	uint32_t rkey;
};

struct mpd_v_create_cq_req {
	uint32_t cqe;			/* at least this many entries */
	uint32_t channel;		/* MPD_V_NO_HANDLE: none */
};

struct mpd_v_create_cq_rep {
	uint32_t handle;
	uint32_t ncqe;			/* a power of two, > cqe */
	uint32_t shm_size;
};

/*
 * RESIZE_CQ: the CQ moves to a new memfd of ncqe entries (a power of two,
 * > cqe), the completions not yet polled copied at the same counts
 * (slot count % ncqe, owner as the new size has it), comp_arm,
 * comp_events and error carried over. ci is the client's consumer count:
 * one it can have (between the last the daemon took and its producer
 * count), else EINVAL. EINVAL too when the completions pending after ci,
 * with those the signaled sends its QPs posted already will add, are
 * more than cqe. The client sends it with its polling stopped, and once
 * it has the reply writes nothing more into the old mapping: the daemon
 * writes only the new one.
 */
struct mpd_v_resize_cq_req {
	uint32_t handle;
	uint32_t cqe;			/* at least this many entries */
	uint32_t ci;
};

struct mpd_v_resize_cq_rep {
	uint32_t ncqe;			/* a power of two, > cqe */
	uint32_t shm_size;
};

/* ibv_qp_cap as the daemon grants it */
struct mpd_v_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

struct mpd_v_create_qp_req {
	uint32_t pd;
	uint32_t send_cq;
	uint32_t recv_cq;
	uint32_t srq;			/* MPD_V_NO_HANDLE: none */
	uint32_t qp_type;		/* IBV_QPT_RC 2, UC 3, UD 4 */
	uint32_t sq_sig_all;
	struct mpd_v_qp_cap cap;
};

struct mpd_v_create_qp_rep {
	uint32_t handle;
	uint32_t qpn;
	uint32_t shm_size;
	uint32_t pad;
	struct mpd_v_qp_cap cap;	/* what it has, at least what was asked */
};

/* An address vector (ibv_ah_attr), host order */
struct mpd_v_ah {
	uint16_t dlid;
	uint8_t sl;
	uint8_t src_path_bits;
	uint8_t static_rate;
	uint8_t is_global;
	uint8_t port_num;
	uint8_t sgid_index;
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t pad[2];
};

/* ibv_qp_attr, host order; which fields count is the attr_mask
 * (enum ibv_qp_attr_mask values) */
struct mpd_v_qp_attr {
	uint32_t qp_state;		/* enum ibv_qp_state */
	uint32_t cur_qp_state;
	uint32_t path_mtu;		/* enum ibv_mtu: 1 256 .. 5 4096 */
	uint32_t path_mig_state;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t qp_access_flags;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t en_sqd_async_notify;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t alt_port_num;
	uint8_t alt_timeout;
	uint8_t pad;
	struct mpd_v_ah ah;
	struct mpd_v_ah alt_ah;
	struct mpd_v_qp_cap cap;
};

struct mpd_v_modify_qp_req {
	uint32_t handle;
	uint32_t attr_mask;
	struct mpd_v_qp_attr attr;
};

/* QUERY_QP's reply: every field, whatever was asked */
struct mpd_v_query_qp_rep {
	struct mpd_v_qp_attr attr;
	uint32_t sq_sig_all;
	uint32_t qp_type;
};

struct mpd_v_create_srq_req {
	uint32_t pd;
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
};

struct mpd_v_create_srq_rep {
	uint32_t handle;
	uint32_t shm_size;
	uint32_t max_wr;
	uint32_t max_sge;
};

struct mpd_v_modify_srq_req {
	uint32_t handle;
	uint32_t attr_mask;		/* IBV_SRQ_MAX_WR 1, IBV_SRQ_LIMIT 2 */
	uint32_t max_wr;
	uint32_t srq_limit;
};

/*
 * ATTACH_MCAST, DETACH_MCAST (ibv_attach_mcast): a UD QP takes, or no
 * longer takes, the packets of the group (gid, lid): those whose DLID is
 * lid and, when they carry a GRH, whose DGID is gid. EINVAL: not a UD
 * QP, gid not multicast (first byte 0xff), lid not a multicast LID
 * (0xC000 .. 0xFFFE) on an IB port; attaching twice is no error
 * (ib_uverbs' rule), detaching what is not attached is EINVAL; ENOMEM
 * past MPD_V_MAX_MCAST_GRP groups of the port or
 * MPD_V_MAX_MCAST_QP_ATTACH QPs of one group.
 */
struct mpd_v_mcast_req {
	uint32_t qp;
	uint16_t lid;
	uint16_t pad;
	uint8_t gid[16];
};

/* DESTROY_*, DEALLOC_PD, DEREG_MR: the handle; EBUSY while something
 * uses the object (a QP its CQ, an MR... as the verbs say) */
struct mpd_v_destroy_req {
	uint32_t handle;
};

/* DESTROY_CQ and DESTROY_QP's reply: the events it raised, for the
 * library's wait on acknowledgements */
struct mpd_v_destroy_rep {
	uint32_t comp_events;
	uint32_t async_events;
};

/*
 * Async events (ibv_get_async_event) travel in the session's receive
 * ring as records of kind MPD_CHAN_REC_ASYNC; the session's port fd is
 * under the context's async_fd.
 */
enum mpd_v_obj {
	MPD_V_OBJ_PORT = 0,
	MPD_V_OBJ_QP = 1,
	MPD_V_OBJ_CQ = 2,
	MPD_V_OBJ_SRQ = 3,
};

struct mpd_v_async_rec {
	uint32_t event_type;		/* enum ibv_event_type */
	uint32_t obj;			/* enum mpd_v_obj */
	uint32_t handle;		/* the object's; the port number */
	uint32_t pad;
};

/*
 * Which send operations a transport carries (IBA 10.7.3): for the
 * library's checks at post time and the daemon's when it takes a WR.
 * Binding and invalidating memory windows are local operations of RC and
 * UC send queues (IBA 10.6.7.2, 10.8.2.4); a remote invalidation rides on
 * an RC SEND.
 * QP types and opcodes as rdma-core numbers them (enum ibv_qp_type,
 * enum ibv_wr_opcode; unit_verbs_ring holds them to its header).
 */
#define MPD_V_QPT_RC		2
#define MPD_V_QPT_UC		3
#define MPD_V_QPT_UD		4
#define MPD_V_WR_RDMA_WRITE	0
#define MPD_V_WR_RDMA_WRITE_IMM	1
#define MPD_V_WR_SEND		2
#define MPD_V_WR_SEND_IMM	3
#define MPD_V_WR_RDMA_READ	4
#define MPD_V_WR_CMP_SWAP	5
#define MPD_V_WR_FETCH_ADD	6
#define MPD_V_WR_LOCAL_INV	7
#define MPD_V_WR_BIND_MW	8
#define MPD_V_WR_SEND_INV	9

static inline int
mpd_v_op_allowed(uint32_t qp_type, uint32_t op)
{
	switch (op) {
	case MPD_V_WR_SEND:
	case MPD_V_WR_SEND_IMM:
		return qp_type == MPD_V_QPT_RC || qp_type == MPD_V_QPT_UC ||
		       qp_type == MPD_V_QPT_UD;
	case MPD_V_WR_RDMA_WRITE:
	case MPD_V_WR_RDMA_WRITE_IMM:
	case MPD_V_WR_LOCAL_INV:
	case MPD_V_WR_BIND_MW:
		return qp_type == MPD_V_QPT_RC || qp_type == MPD_V_QPT_UC;
	case MPD_V_WR_RDMA_READ:
	case MPD_V_WR_CMP_SWAP:
	case MPD_V_WR_FETCH_ADD:
	case MPD_V_WR_SEND_INV:
		return qp_type == MPD_V_QPT_RC;
	default:
		return 0;
	}
}

/* ---- shared memory ---- */

#define MPD_V_CQ_MAGIC		0x6d706371	/* "mpcq" */
#define MPD_V_QP_MAGIC		0x6d707170	/* "mpqp" */

/*
 * A completion (64 bytes): struct ibv_wc's fields, and owner. An entry is
 * valid for the consumer at count ci when owner == 1 + ((ci / ncqe) & 1):
 * the daemon writes every other field, then owner (release); zero is an
 * entry never written.
 */
struct mpd_v_cqe {
	uint64_t wr_id;
	uint32_t status;		/* enum ibv_wc_status */
	uint32_t opcode;		/* enum ibv_wc_opcode */
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;		/* network order, as ibv_wc has it */
	uint32_t qp_num;
	uint32_t src_qp;
	uint32_t wc_flags;		/* enum ibv_wc_flags */
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
	uint8_t pad[17];
	uint8_t owner;
};

/*
 * A CQ's shared memory. The daemon writes entries and events, comp_arm is
 * the client's. Arming (ibv_req_notify_cq): the client adds 2 to the arm
 * count in bits 31..1 and sets bit 0 for solicited-only, in one store
 * (release). The daemon raises one event for an armed count: when it
 * writes a completion that counts (any, or a solicited or error one when
 * bit 0 is set) and the count differs from the last it raised for, it
 * adds 1 to comp_events and sends a byte on the channel's socketpair (the
 * client holds the other end).
 * An overrun (the daemon finds no room) sets error and stops the CQ.
 */
struct mpd_v_cq_shm {
	uint32_t magic;
	uint32_t ncqe;
	uint32_t cqe_off;		/* from the start of the mapping */
	uint32_t pad0[13];
	uint32_t ci __attribute__((aligned(64)));	/* client */
	uint32_t comp_arm;				/* client */
	uint32_t comp_events __attribute__((aligned(64)));	/* daemon */
	uint32_t error;					/* daemon */
};

/* A scatter/gather element */
struct mpd_v_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/*
 * A send work request in the send queue (stride sq_stride): the header,
 * then num_sge elements, or inline_len bytes of data when flags has
 * IBV_SEND_INLINE.
 * IBV_WR_BIND_MW (ibv_bind_mw() for a type 1 window, the WR for type 2)
 * has no elements: rkey is the window's new R_Key (its index part the
 * window's, the key byte new), remote_addr and compare_add the address
 * and length bound, swap the access flags, remote_qkey the MR's L_Key.
 * IBV_WR_LOCAL_INV and IBV_WR_SEND_WITH_INV: imm_data is the R_Key to
 * invalidate (host order).
 */
struct mpd_v_swqe {
	uint64_t wr_id;
	uint8_t opcode;			/* enum ibv_wr_opcode */
	uint8_t flags;			/* enum ibv_send_flags, low 8 bits */
	uint8_t num_sge;
	uint8_t pad0;
	uint32_t imm_data;		/* network order; or invalidate_rkey */
	uint32_t inline_len;
	uint32_t rkey;
	uint64_t remote_addr;
	uint64_t compare_add;
	uint64_t swap;
	uint32_t remote_qpn;		/* UD */
	uint32_t remote_qkey;		/* UD */
	struct mpd_v_ah ah;		/* UD: the AH's address */
	uint8_t pad1[8];
};

#define MPD_V_SWQE_HDR		sizeof(struct mpd_v_swqe)	/* 96 */

/* A receive work request (stride rq_stride) */
struct mpd_v_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t pad;
	struct mpd_v_sge sg[];
};

/*
 * A QP's shared memory (an SRQ's has the same header, its queue the
 * receive queue). Counts are free running; slot = count % wqes. A send
 * slot is the client's again once the daemon's sq_ci has passed it (the
 * daemon keeps its own copy of what it still needs); a receive slot once
 * rq_ci has.
 */
struct mpd_v_qp_shm {
	uint32_t magic;
	uint32_t sq_wqes;		/* a power of two; 0 when none */
	uint32_t rq_wqes;
	uint32_t sq_stride;
	uint32_t rq_stride;
	uint32_t sq_off;
	uint32_t rq_off;
	uint32_t pad0[9];
	uint32_t sq_pi __attribute__((aligned(64)));	/* client */
	uint32_t rq_pi __attribute__((aligned(64)));	/* client */
	uint32_t sq_ci __attribute__((aligned(64)));	/* daemon */
	uint32_t rq_ci;					/* daemon */
	uint32_t state;			/* daemon: enum ibv_qp_state now */
};

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_VERBS_H */
