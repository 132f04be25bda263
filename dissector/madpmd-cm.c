/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IB CM connections as conversations (IBA 12.9): every CM MAD of one
 * connection, REQ to DREP, is tied to the others by the communication
 * IDs of its two ends, and shows the connection's number, its state
 * after the message, the frames of the messages that moved it, and
 * whether it repeats one seen before on the same interface (a
 * retransmission: the CM's time-outs, IBA 12.7.28). SIDR_REP is tied to
 * its SIDR_REQ by the RequestID. rdma_cm event records point at the MAD
 * that raised them.
 *
 * Built in the first pass, in frame order; each frame keeps what it
 * showed (file-scope proto data), so the second pass and later clicks
 * see the same thing.
 */
#include <epan/packet.h>
#include <epan/expert.h>
#include <epan/proto_data.h>
#include <wiretap/wtap.h>

#include "madpmd/cm.h"
#include "madpmd/mad.h"

#include "madpmd.h"

/* enum rdma_cm_event_type (rdma-core rdma_cma.h) */
#define CM_EV_CONNECT_REQUEST	4
#define CM_EV_CONNECT_RESPONSE	5
#define CM_EV_REJECTED		8
#define CM_EV_ESTABLISHED	9
#define CM_EV_DISCONNECTED	10

enum cm_state {
	CS_REQ = 1,
	CS_MRA_REQ,
	CS_REP,
	CS_MRA_REP,
	CS_ESTABLISHED,
	CS_REJECTED,
	CS_DREQ,
	CS_CLOSED,
};

static const value_string state_vals[] = {
	{ CS_REQ, "REQ sent" },
	{ CS_MRA_REQ, "REQ acknowledged (MRA)" },
	{ CS_REP, "REP sent" },
	{ CS_MRA_REP, "REP acknowledged (MRA)" },
	{ CS_ESTABLISHED, "Established" },
	{ CS_REJECTED, "Rejected" },
	{ CS_DREQ, "Disconnecting" },
	{ CS_CLOSED, "Closed" },
	{ 0, NULL }
};

/* The same state as the receiver of the message has it, for a copy
 * captured inbound (IBA 12.9.6: the active side is in REP Rcvd after a
 * REP, the passive side in REQ Rcvd after a REQ) */
static const value_string state_rcvd_vals[] = {
	{ CS_REQ, "REQ received" },
	{ CS_REP, "REP received" },
	{ 0, NULL }
};

/* What the end that captured this copy of the message is in. */
static const char *
state_here(packet_info *pinfo, guint32 state)
{
	const char *s = NULL;

	if (pinfo->p2p_dir == P2P_DIR_RECV)
		s = try_val_to_str(state, state_rcvd_vals);
	return s ? s : val_to_str_const(state, state_vals, "?");
}

/* The frames that moved a connection, by message */
enum cm_msg {
	M_REQ = 0,
	M_MRA,
	M_REJ,
	M_REP,
	M_RTU,
	M_DREQ,
	M_DREP,
	M_COUNT,
};

struct cm_conn {
	guint32 num;			/* 1, 2 ... in the capture */
	guint32 active_id;		/* REQ's LocalCommID */
	guint32 passive_id;		/* REP's (or REJ's) LocalCommID */
	guint64 service_id;
	enum cm_state state;
	guint32 frame[M_COUNT];		/* first frame of each message */
	guint16 rej_reason;
	guint32 dreq_from;		/* the first DREQ's LocalCommID */
};

/* What one frame showed */
struct cm_frame {
	struct cm_conn *conn;
	enum cm_state state;		/* after this message */
	guint32 first;			/* a repeat: the frame it repeats */
	guint32 sidr_req;		/* SIDR_REP: its request's frame */
};

/* A message seen on an interface: repeats are found by these */
struct cm_seen_key {
	guint32 iface;
	guint32 local_id;
	guint32 remote_id;
	guint16 attr_id;
};

static int hf_conn = -1, hf_state = -1, hf_repeat = -1;
static int hf_frame[M_COUNT] = { -1, -1, -1, -1, -1, -1, -1 };
static int hf_sidr_req = -1, hf_event_frame = -1;
static gint ett_conn = -1;
static expert_field ei_repeat;

static wmem_map_t *by_active;	/* active comm ID -> struct cm_conn */
static wmem_map_t *seen;	/* struct cm_seen_key -> first frame */
static wmem_map_t *sidr;	/* RequestID -> SIDR_REQ's frame */
static guint32 next_conn;

static void
cm_reset(void)
{
	next_conn = 0;
}

static guint
seen_hash(gconstpointer k)
{
	const struct cm_seen_key *s = k;

	return g_int_hash(&s->local_id) ^ (s->remote_id * 2654435761u) ^
	       ((guint)s->attr_id << 16) ^ s->iface;
}

static gboolean
seen_equal(gconstpointer a, gconstpointer b)
{
	const struct cm_seen_key *x = a, *y = b;

	return x->iface == y->iface && x->local_id == y->local_id &&
	       x->remote_id == y->remote_id && x->attr_id == y->attr_id;
}

static guint32
frame_iface(packet_info *pinfo)
{
	if (pinfo->rec && (pinfo->rec->presence_flags & WTAP_HAS_INTERFACE_ID))
		return pinfo->rec->rec_header.packet_header.interface_id;
	return 0;
}

/*
 * The connection a message belongs to: one from the active side names
 * it by its own LocalCommID, one from the passive side by its
 * RemoteCommID (REQ's LocalCommID), with its own ID the passive one.
 */
static struct cm_conn *
find_conn(guint32 local_id, guint32 remote_id)
{
	struct cm_conn *c;

	c = wmem_map_lookup(by_active, GUINT_TO_POINTER(local_id));
	if (c && (!c->passive_id || !remote_id || c->passive_id == remote_id))
		return c;
	c = wmem_map_lookup(by_active, GUINT_TO_POINTER(remote_id));
	if (c && (!c->passive_id || c->passive_id == local_id))
		return c;
	return NULL;
}

static void
note(struct cm_conn *c, enum cm_msg m, guint32 frame)
{
	if (!c->frame[m])
		c->frame[m] = frame;
}

/* First pass: the message moves its connection */
static struct cm_frame *
track(tvbuff_t *tvb, packet_info *pinfo, guint16 attr_id, int off)
{
	struct cm_frame *f = wmem_new0(wmem_file_scope(), struct cm_frame);
	guint32 local_id = tvb_get_ntohl(tvb, off);
	guint32 remote_id = attr_id == MPD_ATTR_CM_REQ ? 0 :
			    tvb_get_ntohl(tvb, off + 4);
	struct cm_seen_key key = { frame_iface(pinfo), local_id, remote_id,
				   attr_id };
	struct cm_conn *c;
	gpointer first;

	first = wmem_map_lookup(seen, &key);
	if (first) {
		f->first = GPOINTER_TO_UINT(first);
	} else {
		struct cm_seen_key *k = wmem_new(wmem_file_scope(),
						 struct cm_seen_key);

		*k = key;
		wmem_map_insert(seen, k, GUINT_TO_POINTER(pinfo->num));
	}

	switch (attr_id) {
	case MPD_ATTR_CM_REQ:
		c = wmem_map_lookup(by_active, GUINT_TO_POINTER(local_id));
		if (!c || (c->state >= CS_REJECTED && !f->first)) {
			/* a new connection (an old ID reused after timewait) */
			c = wmem_new0(wmem_file_scope(), struct cm_conn);
			c->num = ++next_conn;
			c->active_id = local_id;
			c->service_id = tvb_get_ntoh64(tvb, off + 8);
			c->state = CS_REQ;
			wmem_map_insert(by_active, GUINT_TO_POINTER(local_id), c);
		}
		note(c, M_REQ, pinfo->num);
		break;
	case MPD_ATTR_CM_SIDR_REQ:
		if (!wmem_map_lookup(sidr, GUINT_TO_POINTER(local_id)))
			wmem_map_insert(sidr, GUINT_TO_POINTER(local_id),
					GUINT_TO_POINTER(pinfo->num));
		return f;
	case MPD_ATTR_CM_SIDR_REP:
		f->sidr_req = GPOINTER_TO_UINT(wmem_map_lookup(sidr,
						GUINT_TO_POINTER(local_id)));
		return f;
	default:
		c = find_conn(local_id, remote_id);
		if (!c)
			return f;
		break;
	}

	switch (attr_id) {
	case MPD_ATTR_CM_MRA: {
		/* MessageMRAed: bits 0-1 of byte 8 (IBA 12.6.6) */
		guint8 what = tvb_get_guint8(tvb, off + 8) >> 6;

		note(c, M_MRA, pinfo->num);
		if (c->state == CS_REQ && what == MPD_CM_MSG_REQ)
			c->state = CS_MRA_REQ;
		else if (c->state == CS_REP && what == MPD_CM_MSG_REP)
			c->state = CS_MRA_REP;
		break;
	}
	case MPD_ATTR_CM_REJ:
		note(c, M_REJ, pinfo->num);
		if (!c->passive_id && c->active_id == remote_id)
			c->passive_id = local_id;
		c->rej_reason = tvb_get_ntohs(tvb, off + 10);
		if (c->state < CS_ESTABLISHED)
			c->state = CS_REJECTED;
		break;
	case MPD_ATTR_CM_REP:
		note(c, M_REP, pinfo->num);
		c->passive_id = local_id;
		if (c->state < CS_REP)
			c->state = CS_REP;
		break;
	case MPD_ATTR_CM_RTU:
		note(c, M_RTU, pinfo->num);
		if (c->state < CS_ESTABLISHED)
			c->state = CS_ESTABLISHED;
		break;
	case MPD_ATTR_CM_DREQ:
		if (!c->frame[M_DREQ])
			c->dreq_from = local_id;
		note(c, M_DREQ, pinfo->num);
		if (c->state < CS_DREQ)
			c->state = CS_DREQ;
		break;
	case MPD_ATTR_CM_DREP:
		note(c, M_DREP, pinfo->num);
		c->state = CS_CLOSED;
		break;
	default:
		break;
	}
	f->conn = c;
	f->state = c->state;
	return f;
}

static void
add_frame(proto_tree *t, int hf, tvbuff_t *tvb, guint32 frame)
{
	proto_item *it;

	if (!frame)
		return;
	it = proto_tree_add_uint(t, hf, tvb, 0, 0, frame);
	proto_item_set_generated(it);
}

void
madpmd_cm_track(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		guint16 attr_id, int off)
{
	struct cm_frame *f;
	proto_tree *t;
	proto_item *it;
	unsigned int i;

	if (tvb_captured_length_remaining(tvb, off) < 16)
		return;
	if (!PINFO_FD_VISITED(pinfo)) {
		f = track(tvb, pinfo, attr_id, off);
		p_add_proto_data(wmem_file_scope(), pinfo, proto_madpmd,
				 MADPMD_KEY_CM, f);
	} else {
		f = p_get_proto_data(wmem_file_scope(), pinfo, proto_madpmd,
				     MADPMD_KEY_CM);
	}
	if (!f)
		return;
	if (f->sidr_req)
		add_frame(tree, hf_sidr_req, tvb, f->sidr_req);
	if (f->first) {
		it = proto_tree_add_uint(tree, hf_repeat, tvb, 0, 0, f->first);
		proto_item_set_generated(it);
		expert_add_info(pinfo, it, &ei_repeat);
		col_append_str(pinfo->cinfo, COL_INFO, " [repeat]");
	}
	if (!f->conn)
		return;
	t = proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_conn, &it,
					  "CM connection %u: %s",
					  f->conn->num,
					  state_here(pinfo, f->state));
	proto_item_set_generated(it);
	it = proto_tree_add_uint(t, hf_conn, tvb, 0, 0, f->conn->num);
	proto_item_set_generated(it);
	it = proto_tree_add_uint(t, hf_state, tvb, 0, 0, f->state);
	proto_item_set_generated(it);
	for (i = 0; i < M_COUNT; i++)
		if (f->conn->frame[i] != pinfo->num)
			add_frame(t, hf_frame[i], tvb, f->conn->frame[i]);
	col_append_fstr(pinfo->cinfo, COL_INFO, " [conn %u: %s]", f->conn->num,
			state_here(pinfo, f->state));
}

guint32
madpmd_cm_event_cause(packet_info *pinfo, guint32 event, guint32 local_id,
		      guint32 remote_id)
{
	struct cm_conn *c;
	enum cm_msg m;

	if (PINFO_FD_VISITED(pinfo))
		return GPOINTER_TO_UINT(p_get_proto_data(wmem_file_scope(),
				pinfo, proto_madpmd, MADPMD_KEY_CAUSE));
	/* the record names the connection from its own end */
	c = find_conn(local_id, remote_id);
	if (!c)
		c = find_conn(remote_id, local_id);
	if (!c)
		return 0;
	switch (event) {
	case CM_EV_CONNECT_REQUEST:
		m = M_REQ;
		break;
	case CM_EV_CONNECT_RESPONSE:
		m = M_REP;
		break;
	case CM_EV_REJECTED:
		m = M_REJ;
		break;
	case CM_EV_ESTABLISHED:
		/* the passive side's RTU, the active side's REP */
		m = c->active_id == local_id ? M_REP : M_RTU;
		break;
	case CM_EV_DISCONNECTED:
		/* the DREQ's receiver learns it from the DREQ, its sender
		 * from the DREP */
		m = c->frame[M_DREQ] && c->dreq_from != local_id ? M_DREQ :
								     M_DREP;
		break;
	default:
		return 0;
	}
	if (c->frame[m])
		p_add_proto_data(wmem_file_scope(), pinfo, proto_madpmd,
				 MADPMD_KEY_CAUSE, GUINT_TO_POINTER(c->frame[m]));
	return c->frame[m];
}

void
madpmd_cm_add_cause(proto_tree *t, tvbuff_t *tvb, guint32 frame)
{
	add_frame(t, hf_event_frame, tvb, frame);
}

void
madpmd_cm_register(void)
{
	static hf_register_info hf[] = {
		{ &hf_conn, { "Connection", "madpmd.cm.conn", FT_UINT32,
		  BASE_DEC, NULL, 0, "The connection's number in the capture",
		  HFILL } },
		{ &hf_state, { "State", "madpmd.cm.state", FT_UINT8, BASE_DEC,
		  VALS(state_vals), 0, "The connection's state after this message",
		  HFILL } },
		{ &hf_frame[M_REQ], { "REQ in", "madpmd.cm.req_in",
		  FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0,
		  NULL, HFILL } },
		{ &hf_frame[M_MRA], { "MRA in", "madpmd.cm.mra_in",
		  FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_frame[M_REJ], { "REJ in", "madpmd.cm.rej_in",
		  FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_frame[M_REP], { "REP in", "madpmd.cm.rep_in",
		  FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0,
		  NULL, HFILL } },
		{ &hf_frame[M_RTU], { "RTU in", "madpmd.cm.rtu_in",
		  FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_frame[M_DREQ], { "DREQ in", "madpmd.cm.dreq_in",
		  FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_frame[M_DREP], { "DREP in", "madpmd.cm.drep_in",
		  FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_repeat, { "Repeats the message in", "madpmd.cm.repeat_of",
		  FT_FRAMENUM, BASE_NONE, NULL, 0,
		  "The same message seen before on this interface (a retransmission)",
		  HFILL } },
		{ &hf_sidr_req, { "SIDR_REQ in", "madpmd.cm.sidr_req_in",
		  FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0,
		  NULL, HFILL } },
		{ &hf_event_frame, { "Raised by the CM MAD in",
		  "madpmd.cmevent.frame", FT_FRAMENUM, BASE_NONE, NULL, 0,
		  "The wire frame whose CM message raised this event", HFILL } },
	};
	static gint *ett[] = { &ett_conn };
	static ei_register_info ei[] = {
		{ &ei_repeat, { "madpmd.cm.repeat.expert", PI_SEQUENCE, PI_NOTE,
		  "CM message repeated (retransmission or duplicate)",
		  EXPFILL } },
	};
	expert_module_t *em;

	proto_register_field_array(proto_madpmd, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto_madpmd);
	expert_register_field_array(em, ei, array_length(ei));
	by_active = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					   g_direct_hash, g_direct_equal);
	sidr = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
				      g_direct_hash, g_direct_equal);
	seen = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
				      seen_hash, seen_equal);
	register_init_routine(cm_reset);
}
