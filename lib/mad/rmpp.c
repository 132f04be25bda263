/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RMPP engine (IBA 13.6): a sender and a receiver per transfer, driven
 * by the caller's clock. Wire layout of a segment (IBA 13.6.2.1):
 *
 *   0   MAD common header (24)
 *   24  RMPPVersion, RMPPType, RRespTime(5) | Flags(3), RMPPStatus
 *   28  SegmentNumber (DATA) / SegmentNumber ACKed (ACK)
 *   32  PayloadLength (DATA) / NewWindowLast (ACK)
 *   36  class header (SA: 20 bytes, vendor range 2: 4 bytes, ...)
 *   hdr_len .. 256: this segment's data
 *
 * The RMPP payload of a segment is everything after the RMPP header (220
 * bytes), so the class header, which every segment repeats, counts in
 * PayloadLength: P = nseg * (hdr_len - 36) + data bytes (as Linux's
 * ib_create_send_mad()/send_next_seg() compute it).
 */
#include <stdlib.h>
#include <string.h>

#include "madpmd/mad.h"
#include "madpmd/rmpp.h"
#include "madpmd/wire.h"

#define RMPP_FLAGS_MASK	0x07
#define RMPP_DATA1_OFF	28
#define RMPP_DATA2_OFF	32

/* The RMPP header of a received MAD, as far as the engine reads it. */
struct rmpp_in {
	uint8_t version;
	uint8_t type;
	uint8_t flags;
	uint8_t status;
	uint32_t seg;		/* SegmentNumber */
	uint32_t d2;		/* PayloadLength or NewWindowLast */
};

struct mpd_rmpp_send {
	struct mpd_rmpp_cfg cfg;
	enum mpd_rmpp_state state;
	uint8_t status;
	bool abort_pending;
	bool rewound;		/* went back once since the last progress */
	uint32_t hdr_len;
	uint32_t seg_data;	/* data bytes per segment */
	uint32_t nseg;
	uint32_t paylen_first;	/* PayloadLength of segment 1: the total */
	uint32_t paylen_last;	/* PayloadLength of the last segment */
	uint32_t last_ack;	/* highest segment ACKed */
	uint32_t next;		/* next segment poll() sends */
	uint32_t hi_sent;	/* highest segment ever sent */
	uint32_t wl;		/* receiver's window: NewWindowLast */
	uint32_t retries_left;
	uint32_t timeouts;	/* ACK time-outs: windows sent again */
	uint64_t deadline;
	bool own;		/* malloc()ed: free()d by destroy */
	size_t len;
	uint8_t msg[];		/* the client's whole message */
};

struct mpd_rmpp_recv {
	struct mpd_rmpp_cfg cfg;
	enum mpd_rmpp_state state;
	uint8_t status;
	uint8_t ctl_type;	/* ABORT or STOP waiting in poll() */
	bool ctl_pending;
	bool ack_pending;
	bool gap_acked;		/* ACKed a gap since last moved */
	bool closed;		/* linger time after DONE over */
	uint32_t hdr_len;
	uint32_t class_len;	/* hdr_len - 36: class header bytes */
	uint32_t seg_data;
	uint32_t nseg;		/* from the first PayloadLength; 0 unknown */
	uint32_t paylen;	/* first PayloadLength; 0 unknown */
	uint32_t last;		/* highest segment received in order */
	uint32_t wl;		/* NewWindowLast we announced */
	uint64_t deadline;
	uint8_t *buf;		/* the message being put together */
	bool own;		/* r and buf malloc()ed (else cfg.mem) */
	size_t room_off;	/* cfg.mem: where buf starts, from r */
	size_t room;		/* cfg.mem: bytes there for buf */
	size_t cap;
	size_t len;
	uint8_t hdr[MPD_MAD_LEN];	/* the first segment's headers */
	/* segments last + 1 .. wl held out of order, bit (k - 1) % window */
	uint64_t map[];
};

static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void
mpd_rmpp_cfg_default(struct mpd_rmpp_cfg *cfg)
{
	cfg->ack_timeout_ns = MPD_RMPP_ACK_TIMEOUT_NS;
	cfg->retries = MPD_RMPP_RETRIES;
	cfg->window = MPD_RMPP_WINDOW;
	cfg->total_timeout_ns = MPD_RMPP_TOTAL_NS;
	cfg->linger_ns = MPD_RMPP_LINGER_NS;
	cfg->max_msg = MPD_RMPP_MAX_MSG;
	cfg->mem = NULL;
	cfg->mem_len = 0;
}

static int
cfg_take(struct mpd_rmpp_cfg *out, const struct mpd_rmpp_cfg *in)
{
	if (!in) {
		mpd_rmpp_cfg_default(out);
		return MPD_OK;
	}
	if (!in->ack_timeout_ns || !in->window ||
	    in->window > MPD_RMPP_WINDOW_MAX || !in->total_timeout_ns ||
	    in->max_msg < MPD_MAD_LEN ||
	    ((uintptr_t)in->mem & 7) || (!in->mem && in->mem_len))
		return MPD_EINVAL;
	*out = *in;
	return MPD_OK;
}

unsigned int
mpd_rmpp_hdr_len(uint8_t mgmt_class)
{
	unsigned int off = mpd_class_data_off(mgmt_class);

	return off < MPD_RMPP_END ? MPD_RMPP_END : off;
}

/* 0 = derive from the class; otherwise at least the RMPP header and at
 * least one data byte per segment. Returns the length or 0 if bad. */
static unsigned int
hdr_len_take(unsigned int hdr_len, uint8_t mgmt_class)
{
	if (!hdr_len)
		return mpd_rmpp_hdr_len(mgmt_class);
	if (hdr_len < MPD_RMPP_END || hdr_len >= MPD_MAD_LEN)
		return 0;
	return hdr_len;
}

bool
mpd_rmpp_is_active(const uint8_t *mad, size_t len)
{
	return mad && len >= MPD_MAD_LEN &&
	       (mad[MPD_RMPP_OFF + 2] & MPD_RMPP_FLAG_ACTIVE);
}

static int
rmpp_parse(const uint8_t *mad, size_t len, struct rmpp_in *in)
{
	if (!mad || len < MPD_MAD_LEN)
		return MPD_ETRUNC;
	in->version = mad[MPD_RMPP_OFF];
	in->type = mad[MPD_RMPP_OFF + 1];
	in->flags = mad[MPD_RMPP_OFF + 2] & RMPP_FLAGS_MASK;
	in->status = mad[MPD_RMPP_OFF + 3];
	in->seg = mpd_get_be32(mad + RMPP_DATA1_OFF);
	in->d2 = mpd_get_be32(mad + RMPP_DATA2_OFF);
	/* IBA 13.6.2.1: without Active the header is not RMPP's */
	if (!(in->flags & MPD_RMPP_FLAG_ACTIVE))
		return MPD_EINVAL;
	return MPD_OK;
}

/* Writes the RMPP header over mad[24..36), keeping RRespTime. */
static void
rmpp_put(uint8_t *mad, uint8_t type, uint8_t flags, uint8_t status,
	 uint32_t d1, uint32_t d2)
{
	mad[MPD_RMPP_OFF] = MPD_RMPP_VERSION;
	mad[MPD_RMPP_OFF + 1] = type;
	mad[MPD_RMPP_OFF + 2] = (uint8_t)((mad[MPD_RMPP_OFF + 2] &
					   ~RMPP_FLAGS_MASK) | flags);
	mad[MPD_RMPP_OFF + 3] = status;
	mpd_put_be32(mad + RMPP_DATA1_OFF, d1);
	mpd_put_be32(mad + RMPP_DATA2_OFF, d2);
}

/*
 * An ACK, STOP or ABORT: the headers of hdr, the rest zero. A receiver's
 * flip the R bit of Method so that they travel back to the agent that
 * sent the data (Linux format_ack(), nack_recv()).
 */
static void
ctl_build(uint8_t *buf, const uint8_t *hdr, unsigned int hdr_len, bool flip,
	  uint8_t type, uint8_t status, uint32_t d1, uint32_t d2)
{
	memcpy(buf, hdr, hdr_len);
	memset(buf + hdr_len, 0, MPD_MAD_LEN - hdr_len);
	if (flip)
		buf[3] ^= MPD_METHOD_RESP;
	rmpp_put(buf, type, MPD_RMPP_FLAG_ACTIVE, status, d1, d2);
}

int
mpd_rmpp_reply(const uint8_t *mad, size_t len, unsigned int hdr_len,
	       uint8_t type, uint8_t status, uint8_t *buf, size_t cap)
{
	if (!mad || len < MPD_MAD_LEN)
		return MPD_ETRUNC;
	if (!buf || cap < MPD_MAD_LEN)
		return MPD_ENOSPC;
	if (type != MPD_RMPP_TYPE_ABORT && type != MPD_RMPP_TYPE_STOP)
		return MPD_EINVAL;
	hdr_len = hdr_len_take(hdr_len, mpd_mad_class(mad));
	if (!hdr_len)
		return MPD_EINVAL;
	ctl_build(buf, mad, hdr_len, true, type, status, 0, 0);
	return MPD_MAD_LEN;
}

/* ABORT statuses are 118..127, STOP's is RESX (IBA 13.6.2.1). */
static bool
end_status_ok(uint8_t type, uint8_t status)
{
	if (type == MPD_RMPP_TYPE_STOP)
		return status == MPD_RMPP_STATUS_RESX;
	return status >= MPD_RMPP_STATUS_ABORT_MIN &&
	       status <= MPD_RMPP_STATUS_ABORT_MAX;
}

/* ---- Sender ------------------------------------------------------------ */

int
mpd_rmpp_send_create(struct mpd_rmpp_send **sp, const void *msg, size_t len,
		     unsigned int hdr_len, const struct mpd_rmpp_cfg *cfg)
{
	struct mpd_rmpp_cfg c;
	struct mpd_rmpp_send *s;
	uint64_t data, nseg, seg_data, class_len, paylen;
	const uint8_t *m = msg;

	if (!sp)
		return MPD_EINVAL;
	*sp = NULL;
	if (!m || len < MPD_RMPP_END || cfg_take(&c, cfg) < 0)
		return MPD_EINVAL;
	hdr_len = hdr_len_take(hdr_len, m[1]);
	if (!hdr_len || len < hdr_len)
		return MPD_EINVAL;
	if (len > c.max_msg)
		return MPD_ERANGE;

	seg_data = MPD_MAD_LEN - hdr_len;
	class_len = hdr_len - MPD_RMPP_END;
	data = len - hdr_len;
	/* an empty message is one segment holding the class header only */
	nseg = data ? (data + seg_data - 1) / seg_data : 1;
	paylen = nseg * class_len + data;
	if (paylen > UINT32_MAX)
		return MPD_ERANGE;

	if (c.mem) {
		if (c.mem_len < offsetof(struct mpd_rmpp_send, msg) + len)
			return MPD_ERANGE;
		s = c.mem;
		/* the caller may have put the message in place already */
		memmove(s->msg, m, len);
		memset(s, 0, offsetof(struct mpd_rmpp_send, msg));
	} else {
		s = calloc(1, sizeof(*s) + len);
		if (!s)
			return MPD_ENOSPC;
		memcpy(s->msg, m, len);
		s->own = true;
	}
	s->len = len;
	s->cfg = c;
	s->state = MPD_RMPP_ACTIVE;
	s->hdr_len = hdr_len;
	s->seg_data = (uint32_t)seg_data;
	s->nseg = (uint32_t)nseg;
	s->paylen_first = (uint32_t)paylen;
	s->paylen_last = (uint32_t)(paylen - (nseg - 1) * MPD_RMPP_SEG_PAYLOAD);
	s->next = 1;
	s->wl = 1;		/* IBA 13.6.3.2: the first window is 1 */
	s->retries_left = c.retries;
	s->deadline = MPD_RMPP_NEVER;
	*sp = s;
	return MPD_OK;
}

void
mpd_rmpp_send_destroy(struct mpd_rmpp_send *s)
{
	if (s && s->own)
		free(s);
}

size_t
mpd_rmpp_send_msg_off(void)
{
	return offsetof(struct mpd_rmpp_send, msg);
}

static int
send_fail(struct mpd_rmpp_send *s, enum mpd_rmpp_state state, uint8_t status,
	  bool abort)
{
	s->state = state;
	s->status = status;
	s->abort_pending = abort;
	s->deadline = MPD_RMPP_NEVER;
	return MPD_OK;
}

static int
send_ack(struct mpd_rmpp_send *s, uint64_t now, const struct rmpp_in *in)
{
	/* IBA 13.6.5.1 sender: checks in the order Linux makes them */
	if (in->status)
		return send_fail(s, MPD_RMPP_ABORTED,
				 MPD_RMPP_STATUS_BAD_STATUS, true);
	if (in->d2 < in->seg)
		return send_fail(s, MPD_RMPP_ABORTED, MPD_RMPP_STATUS_W2S,
				 true);
	if (in->seg > s->hi_sent)
		return send_fail(s, MPD_RMPP_ABORTED, MPD_RMPP_STATUS_S2B,
				 true);
	/* an ACK older than one already seen: the window never shrinks */
	if (in->d2 < s->wl || in->seg < s->last_ack)
		return MPD_OK;

	if (in->seg > s->last_ack) {
		s->last_ack = in->seg;
		s->retries_left = s->cfg.retries;
		s->rewound = false;
		s->deadline = add_sat(now, s->cfg.ack_timeout_ns);
		if (s->next <= s->last_ack)
			s->next = s->last_ack + 1;
	} else if (in->d2 == s->wl && !s->rewound &&
		   s->next > s->last_ack + 1) {
		/* The same ACK again: the receiver dropped what followed
		 * (a loss or a reordering). Go back once per progress. */
		s->next = s->last_ack + 1;
		s->rewound = true;
	}
	s->wl = in->d2;
	if (s->last_ack == s->nseg) {
		s->state = MPD_RMPP_DONE;
		s->deadline = MPD_RMPP_NEVER;
	}
	return MPD_OK;
}

int
mpd_rmpp_send_input(struct mpd_rmpp_send *s, uint64_t now, const uint8_t *mad,
		    size_t len)
{
	struct rmpp_in in;
	int rc;

	rc = rmpp_parse(mad, len, &in);
	if (rc < 0)
		return rc;
	if (in.version == MPD_RMPP_VERSION && in.type == MPD_RMPP_TYPE_DATA)
		return MPD_EINVAL;	/* a receiver's business */
	if (s->state != MPD_RMPP_ACTIVE)
		return MPD_OK;		/* late: nothing to do any more */
	if (in.version != MPD_RMPP_VERSION)
		return send_fail(s, MPD_RMPP_ABORTED, MPD_RMPP_STATUS_UNV,
				 true);

	switch (in.type) {
	case MPD_RMPP_TYPE_ACK:
		return send_ack(s, now, &in);
	case MPD_RMPP_TYPE_STOP:
	case MPD_RMPP_TYPE_ABORT:
		/* the receiver ended it; a bad status earns an ABORT back */
		if (!end_status_ok(in.type, in.status))
			return send_fail(s, MPD_RMPP_ABORTED,
					 MPD_RMPP_STATUS_BAD_STATUS, true);
		return send_fail(s, MPD_RMPP_ABORTED, in.status, false);
	default:
		return send_fail(s, MPD_RMPP_ABORTED, MPD_RMPP_STATUS_BADT,
				 true);
	}
}

static void
send_timeout(struct mpd_rmpp_send *s, uint64_t now)
{
	if (!s->retries_left) {
		/* IBA 13.6.5.1: too many retries ends it with an ABORT */
		send_fail(s, MPD_RMPP_TIMEOUT, MPD_RMPP_STATUS_TMR, true);
		return;
	}
	s->retries_left--;
	s->timeouts++;
	/* go back to the first segment not ACKed (Linux ib_retry_rmpp()) */
	s->next = s->last_ack + 1;
	s->deadline = add_sat(now, s->cfg.ack_timeout_ns);
}

static void
send_segment(struct mpd_rmpp_send *s, uint32_t k, uint8_t *buf)
{
	uint8_t flags = MPD_RMPP_FLAG_ACTIVE;
	uint32_t paylen = 0;
	size_t off, n;

	/* IBA 13.6.2.1: PayloadLength is the total in the first segment,
	 * this segment's in the last, 0 (unused) in between */
	if (k == 1) {
		flags |= MPD_RMPP_FLAG_FIRST;
		paylen = s->paylen_first;
	}
	if (k == s->nseg) {
		flags |= MPD_RMPP_FLAG_LAST;
		paylen = s->paylen_last;
	}
	memcpy(buf, s->msg, s->hdr_len);
	rmpp_put(buf, MPD_RMPP_TYPE_DATA, flags, 0, k, paylen);

	off = s->hdr_len + (size_t)(k - 1) * s->seg_data;
	n = s->len - off;
	if (n > s->seg_data)
		n = s->seg_data;
	memcpy(buf + s->hdr_len, s->msg + off, n);
	memset(buf + s->hdr_len + n, 0, MPD_MAD_LEN - s->hdr_len - n);
}

int
mpd_rmpp_send_poll(struct mpd_rmpp_send *s, uint64_t now, uint8_t *buf,
		   size_t cap)
{
	uint32_t lim;

	if (!buf || cap < MPD_MAD_LEN)
		return MPD_ENOSPC;
	if (s->state == MPD_RMPP_ACTIVE && now >= s->deadline)
		send_timeout(s, now);
	if (s->abort_pending) {
		s->abort_pending = false;
		ctl_build(buf, s->msg, s->hdr_len, false, MPD_RMPP_TYPE_ABORT,
			  s->status, 0, 0);
		return MPD_MAD_LEN;
	}
	if (s->state != MPD_RMPP_ACTIVE)
		return 0;
	lim = s->wl < s->nseg ? s->wl : s->nseg;
	if (s->next > lim)
		return 0;
	send_segment(s, s->next, buf);
	if (s->next > s->hi_sent)
		s->hi_sent = s->next;
	s->next++;
	s->deadline = add_sat(now, s->cfg.ack_timeout_ns);
	return MPD_MAD_LEN;
}

uint64_t
mpd_rmpp_send_deadline(const struct mpd_rmpp_send *s)
{
	return s->state == MPD_RMPP_ACTIVE ? s->deadline : MPD_RMPP_NEVER;
}

enum mpd_rmpp_state
mpd_rmpp_send_state(const struct mpd_rmpp_send *s)
{
	return s->state;
}

uint8_t
mpd_rmpp_send_status(const struct mpd_rmpp_send *s)
{
	return s->status;
}

bool
mpd_rmpp_send_finished(const struct mpd_rmpp_send *s)
{
	return s->state != MPD_RMPP_ACTIVE && !s->abort_pending;
}

uint32_t
mpd_rmpp_send_segments(const struct mpd_rmpp_send *s)
{
	return s->nseg;
}

uint32_t
mpd_rmpp_send_timeouts(const struct mpd_rmpp_send *s)
{
	return s->timeouts;
}

/* ---- Receiver ---------------------------------------------------------- */

static int
recv_fail(struct mpd_rmpp_recv *r, enum mpd_rmpp_state state, uint8_t type,
	  uint8_t status, bool reply)
{
	r->state = state;
	r->status = status;
	r->ctl_type = type;
	r->ctl_pending = reply;
	r->ack_pending = false;
	r->deadline = MPD_RMPP_NEVER;
	return MPD_OK;
}

static int
recv_abort(struct mpd_rmpp_recv *r, uint8_t status)
{
	return recv_fail(r, MPD_RMPP_ABORTED, MPD_RMPP_TYPE_ABORT, status,
			 true);
}

/* Header checks of a DATA segment (IBA 13.6.5.2; Linux
 * process_rmpp_data()): 0 or the RMPPStatus to abort with. */
static uint8_t
data_check(const struct rmpp_in *in)
{
	bool first = in->flags & MPD_RMPP_FLAG_FIRST;

	if (in->status)
		return MPD_RMPP_STATUS_BAD_STATUS;
	/* the First flag is set on segment 1 and on no other */
	if ((in->seg == 1) != first)
		return MPD_RMPP_STATUS_BAD_SEG;
	return 0;
}

static bool
map_test(const struct mpd_rmpp_recv *r, uint32_t k)
{
	uint32_t i = (k - 1) % r->cfg.window;

	return r->map[i / 64] >> (i % 64) & 1;
}

static void
map_set(struct mpd_rmpp_recv *r, uint32_t k, bool on)
{
	uint32_t i = (k - 1) % r->cfg.window;
	uint64_t bit = 1ull << (i % 64);

	if (on)
		r->map[i / 64] |= bit;
	else
		r->map[i / 64] &= ~bit;
}

/*
 * Checks segment k (last < k <= wl) against the PayloadLength of the
 * first and copies its data to where it goes. Returns false when that
 * ended the transfer. *end is the message length if k is the last.
 */
static bool
recv_store(struct mpd_rmpp_recv *r, const struct rmpp_in *in,
	   const uint8_t *mad, uint64_t *end)
{
	bool last = in->flags & MPD_RMPP_FLAG_LAST;
	uint32_t k = in->seg;
	uint64_t off, n;

	if (r->nseg) {
		/* the segment count the first PayloadLength announced */
		if (k > r->nseg || last != (k == r->nseg) ||
		    (last && k > 1 &&
		     in->d2 != r->paylen - (uint64_t)(k - 1) *
				       MPD_RMPP_SEG_PAYLOAD)) {
			recv_abort(r, MPD_RMPP_STATUS_BAD_LEN);
			return false;
		}
	}
	n = r->seg_data;
	if (last) {
		if (in->d2 < r->class_len || in->d2 > MPD_RMPP_SEG_PAYLOAD) {
			recv_abort(r, MPD_RMPP_STATUS_BAD_LEN);
			return false;
		}
		n = in->d2 - r->class_len;
	}
	off = r->hdr_len + (uint64_t)(k - 1) * r->seg_data;
	if (off + n > r->cap) {
		/* only with an unknown total: more than max_msg */
		recv_fail(r, MPD_RMPP_ABORTED, MPD_RMPP_TYPE_STOP,
			  MPD_RMPP_STATUS_RESX, true);
		return false;
	}
	memcpy(r->buf + off, mad + r->hdr_len, n);
	*end = off + n;
	return true;
}

/* Takes DATA segment k, last < k <= wl, into the message. */
static int
recv_segment(struct mpd_rmpp_recv *r, uint64_t now, const struct rmpp_in *in,
	     const uint8_t *mad)
{
	uint32_t k = in->seg;
	uint64_t end, wl;

	if (k != r->last + 1) {
		/*
		 * Out of order: kept when the total is known (Linux keeps
		 * them too), dropped otherwise. The first one after a move
		 * of last is ACKed with the last in order, so the sender
		 * can go back to the gap without waiting for its time-out.
		 */
		if (r->nseg && !map_test(r, k)) {
			if (!recv_store(r, in, mad, &end))
				return MPD_OK;
			map_set(r, k, true);
		}
		if (!r->gap_acked)
			r->ack_pending = true;
		r->gap_acked = true;
		return MPD_OK;
	}
	if (!recv_store(r, in, mad, &end))
		return MPD_OK;
	r->last = k;
	r->gap_acked = false;
	while (r->nseg && r->last < r->nseg && r->last < r->wl &&
	       map_test(r, r->last + 1)) {
		map_set(r, r->last + 1, false);
		r->last++;
	}
	if ((r->nseg && r->last == r->nseg) ||
	    (!r->nseg && (in->flags & MPD_RMPP_FLAG_LAST))) {
		/* IBA 13.6.5.2: the last segment is ACKed too */
		r->len = r->nseg ? r->cap : end;
		r->state = MPD_RMPP_DONE;
		r->deadline = add_sat(now, r->cfg.linger_ns);
		r->ack_pending = true;
		return MPD_OK;
	}
	if (r->last >= r->wl) {
		/* the window is full: ACK it, open the next (Linux: +64) */
		wl = (uint64_t)r->last + r->cfg.window;
		r->wl = wl > UINT32_MAX ? UINT32_MAX : (uint32_t)wl;
		r->ack_pending = true;
	}
	return MPD_OK;
}

/* The first segment: its PayloadLength sizes the message. */
static int
recv_first(struct mpd_rmpp_recv *r, uint64_t now, const struct rmpp_in *in,
	   const uint8_t *mad)
{
	uint64_t total, n;
	uint8_t st;

	if (in->version != MPD_RMPP_VERSION)
		return recv_abort(r, MPD_RMPP_STATUS_UNV);
	st = data_check(in);
	if (st)
		return recv_abort(r, st);

	total = r->cfg.max_msg;		/* unknown total: up to the cap */
	if (in->flags & MPD_RMPP_FLAG_LAST) {
		if (in->d2 < r->class_len || in->d2 > MPD_RMPP_SEG_PAYLOAD)
			return recv_abort(r, MPD_RMPP_STATUS_BAD_LEN);
		r->nseg = 1;
		r->paylen = in->d2;
		total = (uint64_t)r->hdr_len + in->d2 - r->class_len;
	} else if (in->d2) {
		n = ((uint64_t)in->d2 + MPD_RMPP_SEG_PAYLOAD - 1) /
		    MPD_RMPP_SEG_PAYLOAD;
		/* more than one segment, each with its class header */
		if (n < 2 || in->d2 - (n - 1) * MPD_RMPP_SEG_PAYLOAD <
			     r->class_len)
			return recv_abort(r, MPD_RMPP_STATUS_BAD_LEN);
		r->nseg = (uint32_t)n;
		r->paylen = in->d2;
		/* in 64 bits: a PayloadLength near 2^32 must not wrap the sum
		 * below the header (found by fuzz_rmpp) */
		total = (uint64_t)r->hdr_len + in->d2 - n * r->class_len;
	}
	if (total < r->hdr_len)
		return recv_abort(r, MPD_RMPP_STATUS_BAD_LEN);
	if (total > r->cfg.max_msg || (!r->own && total > r->room))
		return recv_fail(r, MPD_RMPP_ABORTED, MPD_RMPP_TYPE_STOP,
				 MPD_RMPP_STATUS_RESX, true);
	if (r->own) {
		r->buf = malloc(total);
		if (!r->buf)
			return MPD_ENOSPC;
	} else {
		r->buf = (uint8_t *)r + r->room_off;
	}
	r->cap = total;
	memcpy(r->buf, mad, r->hdr_len);
	return recv_segment(r, now, in, mad);
}

int
mpd_rmpp_recv_create(struct mpd_rmpp_recv **rp, uint64_t now,
		     const uint8_t *mad, size_t len, unsigned int hdr_len,
		     const struct mpd_rmpp_cfg *cfg)
{
	struct mpd_rmpp_cfg c;
	struct mpd_rmpp_recv *r;
	struct rmpp_in in;
	size_t size;
	int rc;

	if (!rp)
		return MPD_EINVAL;
	*rp = NULL;
	rc = rmpp_parse(mad, len, &in);
	if (rc < 0)
		return rc;
	/* only the start of a transfer makes a receiver */
	if (in.version == MPD_RMPP_VERSION &&
	    (in.type != MPD_RMPP_TYPE_DATA ||
	     (in.seg != 1 && !(in.flags & MPD_RMPP_FLAG_FIRST))))
		return MPD_EINVAL;
	if (cfg_take(&c, cfg) < 0)
		return MPD_EINVAL;
	hdr_len = hdr_len_take(hdr_len, mpd_mad_class(mad));
	if (!hdr_len)
		return MPD_EINVAL;

	size = sizeof(*r) + (c.window + 63) / 64 * sizeof(r->map[0]);
	size = (size + 7) & ~(size_t)7;
	if (c.mem) {
		if (c.mem_len < size)
			return MPD_ERANGE;
		r = c.mem;
		memset(r, 0, size);
		r->room_off = size;
		r->room = c.mem_len - size;
	} else {
		r = calloc(1, size);
		if (!r)
			return MPD_ENOSPC;
		r->own = true;
	}
	r->cfg = c;
	r->state = MPD_RMPP_ACTIVE;
	r->hdr_len = hdr_len;
	r->class_len = hdr_len - MPD_RMPP_END;
	r->seg_data = MPD_MAD_LEN - hdr_len;
	r->wl = 1;
	/* Linux: 40 s for the whole transfer, then ABORT T2L */
	r->deadline = add_sat(now, c.total_timeout_ns);
	memcpy(r->hdr, mad, hdr_len);

	rc = recv_first(r, now, &in, mad);
	if (rc < 0) {
		if (r->own)
			free(r);
		return rc;
	}
	*rp = r;
	return MPD_OK;
}

void
mpd_rmpp_recv_destroy(struct mpd_rmpp_recv *r)
{
	if (!r || !r->own)
		return;
	free(r->buf);
	free(r);
}

static int
recv_data(struct mpd_rmpp_recv *r, uint64_t now, const struct rmpp_in *in,
	  const uint8_t *mad)
{
	uint8_t st = data_check(in);

	if (r->state == MPD_RMPP_DONE) {
		/* the last ACK may have been lost: say it again */
		if (!st)
			r->ack_pending = true;
		return MPD_OK;
	}
	if (st)
		return recv_abort(r, st);
	if (in->seg <= r->last) {
		r->ack_pending = true;		/* a duplicate */
		return MPD_OK;
	}
	if (in->seg > r->wl)
		return MPD_OK;	/* past the window: dropped (Linux) */
	return recv_segment(r, now, in, mad);
}

int
mpd_rmpp_recv_input(struct mpd_rmpp_recv *r, uint64_t now, const uint8_t *mad,
		    size_t len)
{
	struct rmpp_in in;
	int rc;

	rc = rmpp_parse(mad, len, &in);
	if (rc < 0)
		return rc;
	if (r->state != MPD_RMPP_ACTIVE && r->state != MPD_RMPP_DONE)
		return MPD_OK;		/* ended: ignored */
	if (in.version != MPD_RMPP_VERSION) {
		if (r->state == MPD_RMPP_ACTIVE)
			return recv_abort(r, MPD_RMPP_STATUS_UNV);
		return MPD_OK;
	}

	switch (in.type) {
	case MPD_RMPP_TYPE_DATA:
		return recv_data(r, now, &in, mad);
	case MPD_RMPP_TYPE_ACK:
		/* a double-sided transfer's ACK of our ACK: not for us */
		return MPD_EINVAL;
	case MPD_RMPP_TYPE_STOP:
	case MPD_RMPP_TYPE_ABORT:
		if (r->state == MPD_RMPP_DONE)
			return MPD_OK;
		if (!end_status_ok(in.type, in.status))
			return recv_abort(r, MPD_RMPP_STATUS_BAD_STATUS);
		return recv_fail(r, MPD_RMPP_ABORTED, in.type, in.status,
				 false);
	default:
		if (r->state == MPD_RMPP_ACTIVE)
			return recv_abort(r, MPD_RMPP_STATUS_BADT);
		return MPD_OK;
	}
}

int
mpd_rmpp_recv_poll(struct mpd_rmpp_recv *r, uint64_t now, uint8_t *buf,
		   size_t cap)
{
	if (!buf || cap < MPD_MAD_LEN)
		return MPD_ENOSPC;
	if (r->state == MPD_RMPP_ACTIVE && now >= r->deadline)
		recv_fail(r, MPD_RMPP_TIMEOUT, MPD_RMPP_TYPE_ABORT,
			  MPD_RMPP_STATUS_T2L, true);
	if (r->state == MPD_RMPP_DONE && !r->closed && now >= r->deadline) {
		r->closed = true;
		r->deadline = MPD_RMPP_NEVER;
	}
	if (r->ctl_pending) {
		r->ctl_pending = false;
		ctl_build(buf, r->hdr, r->hdr_len, true, r->ctl_type,
			  r->status, 0, 0);
		return MPD_MAD_LEN;
	}
	if (r->ack_pending) {
		r->ack_pending = false;
		ctl_build(buf, r->hdr, r->hdr_len, true, MPD_RMPP_TYPE_ACK, 0,
			  r->last, r->wl);
		return MPD_MAD_LEN;
	}
	return 0;
}

uint64_t
mpd_rmpp_recv_deadline(const struct mpd_rmpp_recv *r)
{
	return r->deadline;
}

enum mpd_rmpp_state
mpd_rmpp_recv_state(const struct mpd_rmpp_recv *r)
{
	return r->state;
}

uint8_t
mpd_rmpp_recv_status(const struct mpd_rmpp_recv *r)
{
	return r->status;
}

bool
mpd_rmpp_recv_finished(const struct mpd_rmpp_recv *r)
{
	if (r->state == MPD_RMPP_ACTIVE || r->ctl_pending || r->ack_pending)
		return false;
	return r->state != MPD_RMPP_DONE || r->closed;
}

const uint8_t *
mpd_rmpp_recv_msg(const struct mpd_rmpp_recv *r, size_t *len)
{
	if (r->state != MPD_RMPP_DONE || !r->buf)
		return NULL;
	if (len)
		*len = r->len;
	return r->buf;
}

uint8_t *
mpd_rmpp_recv_take(struct mpd_rmpp_recv *r, size_t *len)
{
	uint8_t *buf;

	if (r->state != MPD_RMPP_DONE || !r->buf || !r->own)
		return NULL;
	buf = r->buf;
	if (len)
		*len = r->len;
	r->buf = NULL;
	r->cap = 0;
	return buf;
}
