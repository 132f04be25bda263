/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the RMPP engine (IBA 13.6): golden segment headers of an SA
 * GetTableResp (as Linux's mad_rmpp.c builds them), windows, ACK handling,
 * time-outs and retries, every ABORT/STOP path, a lossy wire between a
 * sender and a receiver (seeded), and a fuzz loop against both sides.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/mad.h"
#include "madpmd/rmpp.h"
#include "madpmd/wire.h"
#include "tap.h"

#define SEC	1000000000ull
#define MS	1000000ull
#define TID	0x0000000112345678ull

static uint8_t out[MPD_MAD_LEN];

/* An SA GetTableResp as a client writes it: MAD header, RMPP header (only
 * Active and RRespTime 14 set), SA header, then data_len bytes of data. */
static size_t
sa_msg(uint8_t *m, size_t data_len, uint64_t tid)
{
	size_t i;

	memset(m, 0, MPD_SA_HDR_END);
	m[0] = MPD_BASE_VERSION;
	m[1] = MPD_CLASS_SUBN_ADM;
	m[2] = MPD_SA_CLASS_VERSION;
	m[3] = MPD_METHOD_GET_TABLE_RESP;
	mpd_put_be64(m + 8, tid);
	mpd_put_be16(m + 16, MPD_ATTR_SA_NODE_RECORD);
	m[24] = 1;
	m[26] = (14 << 3) | MPD_RMPP_FLAG_ACTIVE;
	mpd_put_be64(m + 36, 0x1122334455667788ull);	/* SM_Key */
	mpd_put_be16(m + 44, 8);			/* AttributeOffset */
	mpd_put_be64(m + 48, 0xa5a5a5a5a5a5a5a5ull);	/* ComponentMask */
	for (i = 0; i < data_len; i++)
		m[MPD_SA_HDR_END + i] = (uint8_t)(i * 7 + (i >> 8) + 1);
	return MPD_SA_HDR_END + data_len;
}

/* An RMPP MAD from the peer: hdr copied from msg, the RMPP header given. */
static void
rmpp_mad(uint8_t *mad, const uint8_t *hdr, uint8_t method, uint8_t type,
	 uint8_t flags, uint8_t status, uint32_t d1, uint32_t d2)
{
	memset(mad, 0, MPD_MAD_LEN);
	memcpy(mad, hdr, MPD_SA_HDR_END);
	mad[3] = method;
	mad[24] = MPD_RMPP_VERSION;
	mad[25] = type;
	mad[26] = (uint8_t)((0x1f << 3) | flags);
	mad[27] = status;
	mpd_put_be32(mad + 28, d1);
	mpd_put_be32(mad + 32, d2);
}

static void
ack_mad(uint8_t *mad, const uint8_t *hdr, uint32_t seg, uint32_t nwl)
{
	rmpp_mad(mad, hdr, hdr[3] ^ MPD_METHOD_RESP, MPD_RMPP_TYPE_ACK,
		 MPD_RMPP_FLAG_ACTIVE, 0, seg, nwl);
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* Drains a sender: the number of MADs, the last one in out. */
static int
drain_send(struct mpd_rmpp_send *s, uint64_t now, uint8_t (*segs)[MPD_MAD_LEN],
	   int max)
{
	int n = 0;

	while (mpd_rmpp_send_poll(s, now, out, sizeof(out)) == MPD_MAD_LEN) {
		if (segs && n < max)
			memcpy(segs[n], out, MPD_MAD_LEN);
		n++;
		if (n > 100000)
			break;
	}
	return n;
}

static int
drain_recv(struct mpd_rmpp_recv *r, uint64_t now, uint8_t *last)
{
	int n = 0;

	while (mpd_rmpp_recv_poll(r, now, out, sizeof(out)) == MPD_MAD_LEN) {
		if (last)
			memcpy(last, out, MPD_MAD_LEN);
		n++;
	}
	return n;
}

/* Checks the RMPP header of mad: bytes 24..36. */
static bool
rmpp_is(const uint8_t *mad, uint8_t type, uint8_t rt, uint8_t flags,
	uint8_t status, uint32_t d1, uint32_t d2)
{
	return mad[24] == 1 && mad[25] == type &&
	       mad[26] == (uint8_t)(rt << 3 | flags) && mad[27] == status &&
	       mpd_get_be32(mad + 28) == d1 && mpd_get_be32(mad + 32) == d2;
}

static void
test_sa_golden(void)
{
	static uint8_t msg[MPD_SA_HDR_END + 450];
	static uint8_t segs[4][MPD_MAD_LEN];
	static const uint8_t g1[12] = {	/* Active|First, seg 1, P = 510 */
		0x01, 0x01, 0x73, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x01, 0xfe,
	};
	static const uint8_t g2[12] = {	/* Active, seg 2, 0 */
		0x01, 0x01, 0x71, 0x00, 0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t g3[12] = {	/* Active|Last, seg 3, 20 + 50 */
		0x01, 0x01, 0x75, 0x00, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x46,
	};
	struct mpd_rmpp_send *s;
	struct mpd_rmpp_recv *r;
	uint8_t ack[MPD_MAD_LEN], a[MPD_MAD_LEN];
	struct mpd_mad d;
	const uint8_t *got;
	size_t len = sa_msg(msg, 450, TID), glen;
	int k;

	is_int(mpd_rmpp_send_create(&s, msg, len, 0, NULL), MPD_OK,
	       "SA sender: 56-byte header derived from the class");
	is_int(mpd_rmpp_send_segments(s), 3, "450 data bytes: 3 segments");
	is_int(mpd_rmpp_send_deadline(s), MPD_RMPP_NEVER,
	       "no deadline before the first segment");
	is_int(drain_send(s, 0, segs, 4), 1,
	       "first window is 1 segment (IBA 13.6.3.2)");
	is_int(mpd_rmpp_send_deadline(s), 2 * SEC, "ACK wait 2 s (Linux)");
	ack_mad(ack, msg, 1, 65);
	is_int(mpd_rmpp_send_input(s, MS, ack, sizeof(ack)), MPD_OK,
	       "ACK(1, 65) taken");
	is_int(drain_send(s, MS, segs + 1, 3), 2, "then segments 2 and 3");

	ok(memcmp(segs[0] + 24, g1, 12) == 0,
	   "segment 1 RMPP header: Active|First, RRespTime kept, P = 510");
	ok(memcmp(segs[1] + 24, g2, 12) == 0,
	   "segment 2 RMPP header: Active, PayloadLength 0");
	ok(memcmp(segs[2] + 24, g3, 12) == 0,
	   "segment 3 RMPP header: Active|Last, PayloadLength 70");
	for (k = 0; k < 3; k++) {
		ok(memcmp(segs[k], msg, 24) == 0 &&
		   memcmp(segs[k] + 36, msg + 36, 20) == 0,
		   "segment %d repeats the MAD and SA headers", k + 1);
	}
	ok(memcmp(segs[0] + 56, msg + 56, 200) == 0 &&
	   memcmp(segs[1] + 56, msg + 256, 200) == 0 &&
	   memcmp(segs[2] + 56, msg + 456, 50) == 0 &&
	   all_zero(segs[2] + 106, 150),
	   "data at 56: 200, 200, 50 bytes, then zero padding");
	is_int(mpd_mad_decode(segs[2], MPD_MAD_LEN, &d), MPD_MAD_LEN,
	       "segment 3 decodes with the MAD codec");
	ok(d.has_rmpp && d.rmpp.flags == (MPD_RMPP_FLAG_ACTIVE |
					 MPD_RMPP_FLAG_LAST) &&
	   d.rmpp.resp_time == 14 && d.rmpp.data1 == 3 && d.rmpp.data2 == 70,
	   "codec agrees: flags, RRespTime, SegmentNumber, PayloadLength");
	ok(mpd_rmpp_is_active(segs[1], MPD_MAD_LEN) &&
	   !mpd_rmpp_is_active(segs[1], 255), "mpd_rmpp_is_active");

	/* the receiver side of the same transfer */
	is_int(mpd_rmpp_recv_create(&r, 0, segs[0], MPD_MAD_LEN, 0, NULL),
	       MPD_OK, "receiver from segment 1");
	is_int(drain_recv(r, 0, a), 1, "segment 1 is ACKed at once");
	ok(memcmp(a, msg, 3) == 0 && a[3] == MPD_METHOD_GET_TABLE &&
	   memcmp(a + 4, msg + 4, 20) == 0,
	   "ACK: MAD header of the data, R bit flipped (0x92 -> 0x12)");
	ok(rmpp_is(a, MPD_RMPP_TYPE_ACK, 14, MPD_RMPP_FLAG_ACTIVE, 0, 1, 65),
	   "ACK(1, NewWindowLast 65): Linux's window of 64");
	ok(memcmp(a + 36, msg + 36, 20) == 0 && all_zero(a + 56, 200),
	   "ACK carries the SA header, zero data");
	is_int(mpd_rmpp_recv_input(r, 1, segs[1], MPD_MAD_LEN), MPD_OK,
	       "segment 2 taken");
	is_int(drain_recv(r, 1, NULL), 0, "no ACK in mid-window");
	ok(mpd_rmpp_recv_msg(r, &glen) == NULL, "no message before the end");
	is_int(mpd_rmpp_recv_input(r, 2, segs[2], MPD_MAD_LEN), MPD_OK,
	       "segment 3 taken");
	is_int(drain_recv(r, 2, a), 1, "the last segment is ACKed");
	ok(rmpp_is(a, MPD_RMPP_TYPE_ACK, 14, MPD_RMPP_FLAG_ACTIVE, 0, 3, 65),
	   "ACK(3, 65)");
	is_int(mpd_rmpp_recv_state(r), MPD_RMPP_DONE, "receiver done");
	got = mpd_rmpp_recv_msg(r, &glen);
	ok(got && glen == len, "whole message: 56 + 450 bytes");
	ok(got && memcmp(got, msg, 24) == 0 &&
	   memcmp(got + 24, segs[0] + 24, 12) == 0 &&
	   memcmp(got + 36, msg + 36, len - 36) == 0,
	   "first segment's headers, then all data in order");

	is_int(mpd_rmpp_send_input(s, 3, a, sizeof(a)), MPD_OK,
	       "sender takes the last ACK");
	is_int(mpd_rmpp_send_state(s), MPD_RMPP_DONE, "sender done");
	ok(mpd_rmpp_send_finished(s) && drain_send(s, 3, NULL, 0) == 0,
	   "sender finished, nothing more to send");
	is_int(mpd_rmpp_send_input(s, 4, a, sizeof(a)), MPD_OK,
	       "a repeated last ACK is harmless");
	ok(!mpd_rmpp_recv_finished(r), "receiver lingers after done");
	is_int(mpd_rmpp_recv_input(r, 5, segs[2], MPD_MAD_LEN), MPD_OK,
	       "a repeated last segment ...");
	is_int(drain_recv(r, 5, a), 1, "... is ACKed again");
	ok(rmpp_is(a, MPD_RMPP_TYPE_ACK, 14, MPD_RMPP_FLAG_ACTIVE, 0, 3, 65),
	   "... with ACK(3, 65)");
	is_int(mpd_rmpp_recv_deadline(r), 2 + 10 * SEC,
	       "linger 10 s after done (Linux)");
	is_int(drain_recv(r, 2 + 10 * SEC, NULL), 0, "linger over");
	ok(mpd_rmpp_recv_finished(r), "receiver finished");
	mpd_rmpp_recv_destroy(r);
	mpd_rmpp_send_destroy(s);
}

static void
test_layouts(void)
{
	static uint8_t msg[512];
	static uint8_t segs[3][MPD_MAD_LEN];
	struct mpd_rmpp_send *s;
	struct mpd_rmpp_recv *r;
	uint8_t ack[MPD_MAD_LEN];
	const uint8_t *got;
	size_t glen;

	/* a class with no class header: 220 data bytes per segment */
	memset(msg, 0, sizeof(msg));
	sa_msg(msg, 0, TID);
	msg[1] = 0x06;
	memset(msg + 36, 0x5c, 300);
	is_int(mpd_rmpp_send_create(&s, msg, 336, 36, NULL), MPD_OK,
	       "hdr_len 36: 300 data bytes");
	is_int(mpd_rmpp_send_segments(s), 2, "... in 2 segments");
	drain_send(s, 0, segs, 1);
	ack_mad(ack, msg, 1, 65);
	mpd_rmpp_send_input(s, 0, ack, sizeof(ack));
	drain_send(s, 0, segs + 1, 1);
	ok(rmpp_is(segs[0], 1, 14, 3, 0, 1, 300) &&
	   rmpp_is(segs[1], 1, 14, 5, 0, 2, 80),
	   "P = 300 in First, 80 in Last");
	ok(memcmp(segs[1] + 36, msg + 256, 80) == 0 &&
	   all_zero(segs[1] + 116, 140), "220 + 80 data bytes from 36");
	mpd_rmpp_send_destroy(s);

	/* vendor range 2: 40-byte header, 216 data bytes */
	sa_msg(msg, 216, TID);
	msg[1] = 0x30;
	is_int(mpd_rmpp_send_create(&s, msg, MPD_SA_HDR_END + 216, 0, NULL),
	       MPD_OK, "vendor class 0x30: header 40 from the class");
	is_int(mpd_rmpp_send_segments(s), 2, "... 232 data bytes: 2 segments");
	drain_send(s, 0, segs, 1);
	ok(rmpp_is(segs[0], 1, 14, 3, 0, 1, 2 * 4 + 232),
	   "P counts the 4-byte OUI part in each segment");
	mpd_rmpp_send_destroy(s);

	/* an empty SA message: one segment with the class header only */
	sa_msg(msg, 0, TID);
	is_int(mpd_rmpp_send_create(&s, msg, MPD_SA_HDR_END, 0, NULL), MPD_OK,
	       "empty SA message");
	is_int(drain_send(s, 0, segs, 1), 1, "one segment");
	ok(rmpp_is(segs[0], 1, 14, 7, 0, 1, 20),
	   "Active|First|Last, PayloadLength 20 (Linux)");
	is_int(mpd_rmpp_recv_create(&r, 0, segs[0], MPD_MAD_LEN, 0, NULL),
	       MPD_OK, "received");
	got = mpd_rmpp_recv_msg(r, &glen);
	ok(got && glen == MPD_SA_HDR_END, "a 56-byte message");
	drain_recv(r, 0, ack);
	ok(rmpp_is(ack, 2, 14, 1, 0, 1, 1), "ACK(1, 1)");
	mpd_rmpp_send_input(s, 0, ack, sizeof(ack));
	is_int(mpd_rmpp_send_state(s), MPD_RMPP_DONE, "sender done");
	mpd_rmpp_recv_destroy(r);
	mpd_rmpp_send_destroy(s);

	/* argument checks */
	is_int(mpd_rmpp_send_create(&s, msg, 35, 0, NULL), MPD_EINVAL,
	       "a message shorter than the RMPP header");
	ok(s == NULL, "... leaves *sp NULL");
	is_int(mpd_rmpp_send_create(&s, msg, 50, 0, NULL), MPD_EINVAL,
	       "an SA message shorter than its header");
	is_int(mpd_rmpp_send_create(&s, msg, 300, 35, NULL), MPD_EINVAL,
	       "hdr_len 35");
	is_int(mpd_rmpp_send_create(&s, msg, 300, 256, NULL), MPD_EINVAL,
	       "hdr_len 256");
	is_int(mpd_rmpp_send_create(NULL, msg, 300, 0, NULL), MPD_EINVAL,
	       "no sp");
	is_int(mpd_rmpp_hdr_len(MPD_CLASS_SUBN_ADM), 56, "SA header 56");
	is_int(mpd_rmpp_hdr_len(MPD_CLASS_CM), 36, "at least 36");
	{
		struct mpd_rmpp_cfg c;

		mpd_rmpp_cfg_default(&c);
		c.max_msg = 300;
		is_int(mpd_rmpp_send_create(&s, msg, 301, 0, &c), MPD_ERANGE,
		       "a message over max_msg is MPD_ERANGE");
		c.window = 0;
		is_int(mpd_rmpp_send_create(&s, msg, 200, 0, &c), MPD_EINVAL,
		       "window 0 is MPD_EINVAL");
		mpd_rmpp_cfg_default(&c);
		c.ack_timeout_ns = 0;
		is_int(mpd_rmpp_send_create(&s, msg, 200, 0, &c), MPD_EINVAL,
		       "time-out 0 is MPD_EINVAL");
	}
	is_int(mpd_rmpp_send_poll(NULL, 0, out, 0), MPD_ENOSPC,
	       "poll into 0 bytes is MPD_ENOSPC");
}

/* A 200-segment transfer in lock step: ACKs at 1, 65, 129, 193, 200. */
static void
test_windows(void)
{
	static uint8_t msg[MPD_SA_HDR_END + 200 * 200];
	static uint8_t seg[MPD_MAD_LEN], a[MPD_MAD_LEN];
	static const uint32_t acks[] = { 1, 65, 129, 193, 200 };
	static const uint32_t wins[] = { 65, 129, 193, 257, 257 };
	struct mpd_rmpp_send *s;
	struct mpd_rmpp_recv *r = NULL;
	size_t len = sa_msg(msg, 200 * 200, TID), glen;
	unsigned int nack = 0, sent = 0, burst[5] = { 0 }, round = 0;
	bool good = true;
	const uint8_t *got;

	mpd_rmpp_send_create(&s, msg, len, 0, NULL);
	while (round < 5) {
		unsigned int n = 0;

		while (mpd_rmpp_send_poll(s, 0, seg, sizeof(seg)) > 0) {
			n++;
			sent++;
			if (!r)
				mpd_rmpp_recv_create(&r, 0, seg, sizeof(seg),
						     0, NULL);
			else
				mpd_rmpp_recv_input(r, 0, seg, sizeof(seg));
		}
		burst[round] = n;
		if (!r || drain_recv(r, 0, a) != 1)
			break;
		if (!rmpp_is(a, 2, 14, 1, 0, acks[nack], wins[nack]))
			good = false;
		nack++;
		mpd_rmpp_send_input(s, 0, a, sizeof(a));
		round++;
	}
	is_int(nack, 5, "5 ACKs for 200 segments");
	ok(good, "ACK(1,65) ACK(65,129) ACK(129,193) ACK(193,257) "
	   "ACK(200,257)");
	ok(burst[0] == 1 && burst[1] == 64 && burst[2] == 64 &&
	   burst[3] == 64 && burst[4] == 7,
	   "bursts of 1, 64, 64, 64, 7 segments");
	is_int(sent, 200, "no segment sent twice");
	is_int(mpd_rmpp_send_state(s), MPD_RMPP_DONE, "sender done");
	got = r ? mpd_rmpp_recv_msg(r, &glen) : NULL;
	ok(got && glen == len && memcmp(got + 36, msg + 36, len - 36) == 0,
	   "40000 data bytes arrive whole");
	mpd_rmpp_recv_destroy(r);
	mpd_rmpp_send_destroy(s);
}

/* Fresh sender of an n-segment SA message, past its first ACK(1, 65). */
static struct mpd_rmpp_send *
sender_at_window(uint8_t *msg, uint32_t nseg, const struct mpd_rmpp_cfg *c)
{
	struct mpd_rmpp_send *s;
	uint8_t ack[MPD_MAD_LEN];
	size_t len = sa_msg(msg, nseg * 200, TID);

	if (mpd_rmpp_send_create(&s, msg, len, 0, c) < 0)
		abort();
	drain_send(s, 0, NULL, 0);
	ack_mad(ack, msg, 1, 65);
	mpd_rmpp_send_input(s, 0, ack, sizeof(ack));
	return s;
}

static void
expect_abort(struct mpd_rmpp_send *s, uint64_t now, uint8_t status,
	     const char *what)
{
	uint8_t a[MPD_MAD_LEN];
	int n = drain_send(s, now, NULL, 0);

	memcpy(a, out, sizeof(a));
	ok(n == 1 && a[3] == MPD_METHOD_GET_TABLE_RESP &&
	   rmpp_is(a, MPD_RMPP_TYPE_ABORT, 14, MPD_RMPP_FLAG_ACTIVE, status,
		   0, 0) && all_zero(a + 56, 200),
	   "%s: one ABORT, status %u, the data's method", what, status);
	is_int(mpd_rmpp_send_state(s), MPD_RMPP_ABORTED, "%s: aborted", what);
	is_int(mpd_rmpp_send_status(s), status, "%s: status kept", what);
	ok(mpd_rmpp_send_finished(s), "%s: finished", what);
}

static void
test_acks(void)
{
	static uint8_t msg[MPD_SA_HDR_END + 100 * 200];
	static uint8_t segs[70][MPD_MAD_LEN];
	uint8_t m[MPD_MAD_LEN];
	struct mpd_rmpp_send *s;
	int n;

	s = sender_at_window(msg, 100, NULL);
	is_int(drain_send(s, 0, segs, 70), 64, "ACK(1,65): segments 2..65");
	ok(mpd_get_be32(segs[0] + 28) == 2 && mpd_get_be32(segs[63] + 28) == 65,
	   "numbered 2..65");
	ack_mad(m, msg, 30, 65);
	mpd_rmpp_send_input(s, 1, m, sizeof(m));
	is_int(drain_send(s, 1, NULL, 0), 0, "ACK(30,65): window unchanged");
	ack_mad(m, msg, 20, 70);
	mpd_rmpp_send_input(s, 1, m, sizeof(m));
	is_int(drain_send(s, 1, NULL, 0), 0, "an older ACK(20,70) is ignored");
	ack_mad(m, msg, 31, 64);
	mpd_rmpp_send_input(s, 1, m, sizeof(m));
	is_int(drain_send(s, 1, NULL, 0), 0,
	       "a shrinking window ACK(31,64) is ignored");
	ack_mad(m, msg, 30, 65);
	mpd_rmpp_send_input(s, 2, m, sizeof(m));
	n = drain_send(s, 2, segs, 70);
	ok(n == 35 && mpd_get_be32(segs[0] + 28) == 31,
	   "the same ACK(30,65) again: back to 31 (got %d)", n);
	mpd_rmpp_send_input(s, 3, m, sizeof(m));
	is_int(drain_send(s, 3, NULL, 0), 0, "... only once per progress");
	ack_mad(m, msg, 40, 100);
	mpd_rmpp_send_input(s, 4, m, sizeof(m));
	n = drain_send(s, 4, segs, 70);
	ok(n == 35 && mpd_get_be32(segs[0] + 28) == 66 &&
	   mpd_get_be32(segs[34] + 28) == 100 &&
	   (segs[34][26] & 7) == (MPD_RMPP_FLAG_ACTIVE | MPD_RMPP_FLAG_LAST),
	   "ACK(40,100): 66..100, the last with Last");
	ack_mad(m, msg, 100, 100);
	mpd_rmpp_send_input(s, 5, m, sizeof(m));
	is_int(mpd_rmpp_send_state(s), MPD_RMPP_DONE, "ACK(100) ends it");
	mpd_rmpp_send_destroy(s);

	s = sender_at_window(msg, 3, NULL);
	is_int(drain_send(s, 0, NULL, 0), 2,
	       "3 segments, window 65: segments 2 and 3");
	mpd_rmpp_send_destroy(s);

	s = sender_at_window(msg, 100, NULL);
	drain_send(s, 0, NULL, 0);
	ack_mad(m, msg, 10, 9);
	is_int(mpd_rmpp_send_input(s, 1, m, sizeof(m)), MPD_OK, "ACK(10,9)");
	expect_abort(s, 1, MPD_RMPP_STATUS_W2S, "NewWindowLast < seg");
	is_int(mpd_rmpp_send_input(s, 1, m, sizeof(m)), MPD_OK,
	       "input after the end is ignored");
	is_int(drain_send(s, 1, NULL, 0), 0, "... and sends nothing");
	mpd_rmpp_send_destroy(s);

	s = sender_at_window(msg, 100, NULL);
	drain_send(s, 0, NULL, 0);
	ack_mad(m, msg, 66, 129);
	mpd_rmpp_send_input(s, 1, m, sizeof(m));
	expect_abort(s, 1, MPD_RMPP_STATUS_S2B, "ACK of a segment not sent");
	mpd_rmpp_send_destroy(s);

	s = sender_at_window(msg, 100, NULL);
	ack_mad(m, msg, 2, 65);
	m[27] = 5;
	mpd_rmpp_send_input(s, 1, m, sizeof(m));
	expect_abort(s, 1, MPD_RMPP_STATUS_BAD_STATUS, "ACK with a status");
	mpd_rmpp_send_destroy(s);

	s = sender_at_window(msg, 100, NULL);
	ack_mad(m, msg, 2, 65);
	m[25] = 9;
	mpd_rmpp_send_input(s, 1, m, sizeof(m));
	expect_abort(s, 1, MPD_RMPP_STATUS_BADT, "RMPPType 9");
	mpd_rmpp_send_destroy(s);

	s = sender_at_window(msg, 100, NULL);
	ack_mad(m, msg, 2, 65);
	m[24] = 2;
	mpd_rmpp_send_input(s, 1, m, sizeof(m));
	expect_abort(s, 1, MPD_RMPP_STATUS_UNV, "RMPPVersion 2");
	mpd_rmpp_send_destroy(s);

	s = sender_at_window(msg, 100, NULL);
	rmpp_mad(m, msg, 0x12, MPD_RMPP_TYPE_STOP, 1, MPD_RMPP_STATUS_RESX,
		 0, 0);
	mpd_rmpp_send_input(s, 1, m, sizeof(m));
	ok(mpd_rmpp_send_state(s) == MPD_RMPP_ABORTED &&
	   mpd_rmpp_send_status(s) == MPD_RMPP_STATUS_RESX &&
	   drain_send(s, 1, NULL, 0) == 0 && mpd_rmpp_send_finished(s),
	   "STOP RESX: aborted with status 1, nothing sent back");
	mpd_rmpp_send_destroy(s);

	s = sender_at_window(msg, 100, NULL);
	rmpp_mad(m, msg, 0x12, MPD_RMPP_TYPE_STOP, 1, 7, 0, 0);
	mpd_rmpp_send_input(s, 1, m, sizeof(m));
	expect_abort(s, 1, MPD_RMPP_STATUS_BAD_STATUS, "STOP with status 7");
	mpd_rmpp_send_destroy(s);

	s = sender_at_window(msg, 100, NULL);
	rmpp_mad(m, msg, 0x12, MPD_RMPP_TYPE_ABORT, 1, MPD_RMPP_STATUS_T2L,
		 0, 0);
	mpd_rmpp_send_input(s, 1, m, sizeof(m));
	ok(mpd_rmpp_send_state(s) == MPD_RMPP_ABORTED &&
	   mpd_rmpp_send_status(s) == MPD_RMPP_STATUS_T2L &&
	   drain_send(s, 1, NULL, 0) == 0,
	   "the receiver's ABORT T2L ends the sender, no reply");
	mpd_rmpp_send_destroy(s);

	s = sender_at_window(msg, 100, NULL);
	rmpp_mad(m, msg, 0x12, MPD_RMPP_TYPE_ABORT, 1, 117, 0, 0);
	mpd_rmpp_send_input(s, 1, m, sizeof(m));
	expect_abort(s, 1, MPD_RMPP_STATUS_BAD_STATUS, "ABORT with status 117");
	mpd_rmpp_send_destroy(s);

	s = sender_at_window(msg, 100, NULL);
	rmpp_mad(m, msg, 0x92, MPD_RMPP_TYPE_DATA, 3, 0, 1, 500);
	is_int(mpd_rmpp_send_input(s, 1, m, sizeof(m)), MPD_EINVAL,
	       "DATA is not a sender's input");
	ack_mad(m, msg, 2, 65);
	m[26] &= ~MPD_RMPP_FLAG_ACTIVE;
	is_int(mpd_rmpp_send_input(s, 1, m, sizeof(m)), MPD_EINVAL,
	       "a MAD without Active is not RMPP's");
	is_int(mpd_rmpp_send_input(s, 1, m, 255), MPD_ETRUNC,
	       "255 bytes are MPD_ETRUNC");
	is_int(mpd_rmpp_send_input(s, 1, NULL, 256), MPD_ETRUNC,
	       "NULL is MPD_ETRUNC");
	is_int(mpd_rmpp_send_state(s), MPD_RMPP_ACTIVE, "still active");
	mpd_rmpp_send_destroy(s);
}

static void
test_timeouts(void)
{
	static uint8_t msg[MPD_SA_HDR_END + 100 * 200];
	static uint8_t segs[70][MPD_MAD_LEN];
	uint8_t m[MPD_MAD_LEN];
	struct mpd_rmpp_send *s;
	size_t len = sa_msg(msg, 100 * 200, TID);
	uint64_t t;
	int n, i;
	bool good;

	mpd_rmpp_send_create(&s, msg, len, 0, NULL);
	is_int(drain_send(s, 0, NULL, 0), 1, "segment 1 at 0");
	is_int(drain_send(s, 2 * SEC - 1, NULL, 0), 0, "nothing before 2 s");
	good = true;
	for (i = 1, t = 2 * SEC; i <= 3; i++, t += 2 * SEC) {
		n = drain_send(s, t, segs, 1);
		if (n != 1 || mpd_get_be32(segs[0] + 28) != 1 ||
		    mpd_rmpp_send_deadline(s) != t + 2 * SEC)
			good = false;
	}
	ok(good, "3 retries at 2, 4, 6 s resend segment 1");
	n = drain_send(s, 8 * SEC, segs, 1);
	ok(n == 1 && rmpp_is(segs[0], MPD_RMPP_TYPE_ABORT, 14, 1,
			     MPD_RMPP_STATUS_TMR, 0, 0),
	   "the 4th time-out sends ABORT TMR (126)");
	is_int(mpd_rmpp_send_state(s), MPD_RMPP_TIMEOUT,
	       "state TIMEOUT (ETIMEDOUT for the client)");
	ok(mpd_rmpp_send_finished(s) &&
	   mpd_rmpp_send_deadline(s) == MPD_RMPP_NEVER, "finished");
	mpd_rmpp_send_destroy(s);

	/* progress resets the retries; a time-out resends from last ACK + 1 */
	s = sender_at_window(msg, 100, NULL);
	is_int(drain_send(s, 0, NULL, 0), 64, "segments 2..65 at 0");
	n = drain_send(s, 2 * SEC, segs, 70);
	ok(n == 64 && mpd_get_be32(segs[0] + 28) == 2,
	   "time-out: the window again from 2");
	ack_mad(m, msg, 30, 65);
	mpd_rmpp_send_input(s, 3 * SEC, m, sizeof(m));
	is_int(mpd_rmpp_send_deadline(s), 5 * SEC,
	       "progress restarts the ACK timer");
	good = true;
	for (t = 5 * SEC; t <= 9 * SEC; t += 2 * SEC) {
		n = drain_send(s, t, segs, 70);
		if (n != 35 || mpd_get_be32(segs[0] + 28) != 31)
			good = false;
	}
	ok(good, "3 more retries after progress (5, 7, 9 s), from 31");
	is_int(mpd_rmpp_send_state(s), MPD_RMPP_ACTIVE, "still active at 9 s");
	drain_send(s, 11 * SEC, segs, 1);
	is_int(mpd_rmpp_send_state(s), MPD_RMPP_TIMEOUT,
	       "4th time-out without progress (11 s): TIMEOUT");
	mpd_rmpp_send_destroy(s);

	/* retries 0: the first time-out ends it */
	{
		struct mpd_rmpp_cfg c;

		mpd_rmpp_cfg_default(&c);
		c.retries = 0;
		c.ack_timeout_ns = 5 * MS;
		s = sender_at_window(msg, 2, &c);
		drain_send(s, 0, NULL, 0);
		drain_send(s, 5 * MS, segs, 1);
		ok(mpd_rmpp_send_state(s) == MPD_RMPP_TIMEOUT &&
		   rmpp_is(segs[0], 4, 14, 1, MPD_RMPP_STATUS_TMR, 0, 0),
		   "retries 0, 5 ms: ABORT TMR at 5 ms");
		mpd_rmpp_send_destroy(s);
	}
}

/* The segments of an n-data-byte SA message, all at once. */
static int
all_segments(uint8_t *msg, size_t data, uint8_t (*segs)[MPD_MAD_LEN],
	     int max)
{
	struct mpd_rmpp_send *s;
	uint8_t ack[MPD_MAD_LEN];
	size_t len = sa_msg(msg, data, TID);
	int n;

	if (mpd_rmpp_send_create(&s, msg, len, 0, NULL) < 0)
		abort();
	n = drain_send(s, 0, segs, max);
	ack_mad(ack, msg, 0, 1u << 20);
	mpd_rmpp_send_input(s, 0, ack, sizeof(ack));
	n += drain_send(s, 0, segs + n, max - n);
	mpd_rmpp_send_destroy(s);
	return n;
}

static void
expect_recv_end(struct mpd_rmpp_recv *r, uint64_t now, uint8_t type,
		uint8_t status, enum mpd_rmpp_state state, const char *what)
{
	uint8_t a[MPD_MAD_LEN];
	int n = drain_recv(r, now, a);

	ok(n == 1 && a[3] == MPD_METHOD_GET_TABLE &&
	   rmpp_is(a, type, 0x1f, MPD_RMPP_FLAG_ACTIVE, status, 0, 0),
	   "%s: one %s, status %u, R bit flipped", what,
	   type == MPD_RMPP_TYPE_STOP ? "STOP" : "ABORT", status);
	is_int(mpd_rmpp_recv_state(r), state, "%s: state", what);
	ok(mpd_rmpp_recv_finished(r) && !mpd_rmpp_recv_msg(r, NULL),
	   "%s: finished, no message", what);
}

static struct mpd_rmpp_recv *
recv_with(const uint8_t *seg, const struct mpd_rmpp_cfg *c)
{
	struct mpd_rmpp_recv *r = NULL;

	if (mpd_rmpp_recv_create(&r, 0, seg, MPD_MAD_LEN, 0, c) < 0)
		return NULL;
	return r;
}

static void
test_receiver(void)
{
	static uint8_t msg[MPD_SA_HDR_END + 10 * 200];
	static uint8_t segs[12][MPD_MAD_LEN];
	uint8_t m[MPD_MAD_LEN], a[MPD_MAD_LEN];
	struct mpd_rmpp_recv *r;
	struct mpd_rmpp_cfg c;
	const uint8_t *got;
	uint8_t *taken;
	size_t glen;
	int i;

	/* segments of a 10-segment message, 1950 data bytes, SA header
	 * written with RRespTime 0x1f here */
	is_int(all_segments(msg, 1950, segs, 12), 10, "10 segments");
	for (i = 0; i < 10; i++)
		segs[i][26] = (uint8_t)((0x1f << 3) | (segs[i][26] & 7));

	r = recv_with(segs[0], NULL);
	ok(r != NULL, "receiver");
	drain_recv(r, 0, NULL);
	mpd_rmpp_recv_input(r, 1, segs[1], MPD_MAD_LEN);
	mpd_rmpp_recv_input(r, 1, segs[3], MPD_MAD_LEN);
	is_int(drain_recv(r, 1, a), 1, "out of order segment 4: an ACK");
	ok(rmpp_is(a, 2, 0x1f, 1, 0, 2, 65), "... of the last in order, 2");
	mpd_rmpp_recv_input(r, 1, segs[5], MPD_MAD_LEN);
	mpd_rmpp_recv_input(r, 1, segs[3], MPD_MAD_LEN);
	is_int(drain_recv(r, 1, NULL), 0,
	       "more out of order (6, 4 again): one ACK per gap");
	mpd_rmpp_recv_input(r, 1, segs[1], MPD_MAD_LEN);
	is_int(drain_recv(r, 1, a), 1, "duplicate segment 2: an ACK");
	ok(rmpp_is(a, 2, 0x1f, 1, 0, 2, 65), "... ACK(2, 65)");
	mpd_rmpp_recv_input(r, 1, segs[0], MPD_MAD_LEN);
	is_int(drain_recv(r, 1, NULL), 1, "duplicate segment 1: an ACK");
	mpd_rmpp_recv_input(r, 2, segs[2], MPD_MAD_LEN);
	is_int(drain_recv(r, 2, NULL), 0, "segment 3 fills the gap: no ACK");
	mpd_rmpp_recv_input(r, 2, segs[4], MPD_MAD_LEN);
	mpd_rmpp_recv_input(r, 2, segs[3], MPD_MAD_LEN);
	is_int(drain_recv(r, 2, a), 1,
	       "segment 5 in order; then 4 is a duplicate: ACK ...");
	ok(rmpp_is(a, 2, 0x1f, 1, 0, 6, 65),
	   "... ACK(6, 65): 4 and 6 were kept (Linux keeps them too)");
	for (i = 6; i < 9; i++)
		mpd_rmpp_recv_input(r, 2, segs[i], MPD_MAD_LEN);
	is_int(drain_recv(r, 2, NULL), 0, "7..9 in order: no ACK");
	mpd_rmpp_recv_input(r, 2, segs[9], MPD_MAD_LEN);
	is_int(drain_recv(r, 2, a), 1, "segment 10 (Last): ACK");
	ok(rmpp_is(a, 2, 0x1f, 1, 0, 10, 65), "ACK(10, 65)");
	got = mpd_rmpp_recv_msg(r, &glen);
	ok(got && glen == MPD_SA_HDR_END + 1950 &&
	   memcmp(got + 36, msg + 36, glen - 36) == 0, "message whole");
	taken = mpd_rmpp_recv_take(r, &glen);
	ok(taken == got && !mpd_rmpp_recv_msg(r, NULL) &&
	   !mpd_rmpp_recv_take(r, NULL), "take() hands the buffer over once");
	free(taken);
	mpd_rmpp_recv_input(r, 3, segs[4], MPD_MAD_LEN);
	is_int(drain_recv(r, 3, a), 1, "after take(): still re-ACKs");
	ok(rmpp_is(a, 2, 0x1f, 1, 0, 10, 65), "... ACK(10, 65)");
	mpd_rmpp_recv_destroy(r);

	/* segments beyond the window are dropped silently */
	r = recv_with(segs[0], NULL);
	drain_recv(r, 0, NULL);
	memcpy(m, segs[5], sizeof(m));
	mpd_put_be32(m + 28, 66);
	mpd_rmpp_recv_input(r, 1, m, sizeof(m));
	is_int(drain_recv(r, 1, NULL), 0, "segment 66 > window 65: dropped");
	is_int(mpd_rmpp_recv_state(r), MPD_RMPP_ACTIVE, "... still active");
	is_int(mpd_rmpp_recv_input(r, 1, segs[0], 100), MPD_ETRUNC,
	       "short input is MPD_ETRUNC");
	ack_mad(m, msg, 1, 65);
	is_int(mpd_rmpp_recv_input(r, 1, m, sizeof(m)), MPD_EINVAL,
	       "an ACK is not a receiver's input");
	memcpy(m, segs[1], sizeof(m));
	m[26] |= MPD_RMPP_FLAG_FIRST;
	mpd_rmpp_recv_input(r, 1, m, sizeof(m));
	expect_recv_end(r, 1, 4, MPD_RMPP_STATUS_BAD_SEG, MPD_RMPP_ABORTED,
			"First on segment 2");
	mpd_rmpp_recv_destroy(r);

	/* the First segment's own errors */
	memcpy(m, segs[0], sizeof(m));
	m[26] &= ~MPD_RMPP_FLAG_FIRST;
	r = recv_with(m, NULL);
	ok(r != NULL, "segment 1 without First makes a receiver ...");
	if (r)
		expect_recv_end(r, 0, 4, MPD_RMPP_STATUS_BAD_SEG,
				MPD_RMPP_ABORTED, "segment 1 without First");
	mpd_rmpp_recv_destroy(r);
	memcpy(m, segs[0], sizeof(m));
	mpd_put_be32(m + 28, 2);
	r = recv_with(m, NULL);
	if (r)
		expect_recv_end(r, 0, 4, MPD_RMPP_STATUS_BAD_SEG,
				MPD_RMPP_ABORTED, "First on segment 2");
	mpd_rmpp_recv_destroy(r);
	memcpy(m, segs[0], sizeof(m));
	m[27] = 3;
	r = recv_with(m, NULL);
	if (r)
		expect_recv_end(r, 0, 4, MPD_RMPP_STATUS_BAD_STATUS,
				MPD_RMPP_ABORTED, "DATA with a status");
	mpd_rmpp_recv_destroy(r);
	memcpy(m, segs[0], sizeof(m));
	m[24] = 3;
	r = recv_with(m, NULL);
	if (r)
		expect_recv_end(r, 0, 4, MPD_RMPP_STATUS_UNV, MPD_RMPP_ABORTED,
				"RMPPVersion 3");
	mpd_rmpp_recv_destroy(r);
	memcpy(m, segs[0], sizeof(m));
	mpd_put_be32(m + 32, 220);
	r = recv_with(m, NULL);
	if (r)
		expect_recv_end(r, 0, 4, MPD_RMPP_STATUS_BAD_LEN,
				MPD_RMPP_ABORTED, "First, not Last, P 220");
	mpd_rmpp_recv_destroy(r);
	memcpy(m, segs[0], sizeof(m));
	mpd_put_be32(m + 32, 220 + 19);	/* 2 segments, the last < 20 */
	r = recv_with(m, NULL);
	if (r)
		expect_recv_end(r, 0, 4, MPD_RMPP_STATUS_BAD_LEN,
				MPD_RMPP_ABORTED, "P 239: the last 19 < 20");
	mpd_rmpp_recv_destroy(r);
	memcpy(m, segs[0], sizeof(m));
	m[26] |= MPD_RMPP_FLAG_LAST;
	mpd_put_be32(m + 32, 19);
	r = recv_with(m, NULL);
	if (r)
		expect_recv_end(r, 0, 4, MPD_RMPP_STATUS_BAD_LEN,
				MPD_RMPP_ABORTED, "First|Last with P 19 < 20");
	mpd_rmpp_recv_destroy(r);
	memcpy(m, segs[0], sizeof(m));
	mpd_put_be32(m + 32, 0xffffffffu);
	r = recv_with(m, NULL);
	if (r)
		expect_recv_end(r, 0, 3, MPD_RMPP_STATUS_RESX,
				MPD_RMPP_ABORTED, "P 4 GiB: STOP RESX");
	mpd_rmpp_recv_destroy(r);
	mpd_rmpp_cfg_default(&c);
	c.max_msg = MPD_SA_HDR_END + 1949;
	r = recv_with(segs[0], &c);
	if (r)
		expect_recv_end(r, 0, 3, MPD_RMPP_STATUS_RESX,
				MPD_RMPP_ABORTED, "one byte over max_msg");
	mpd_rmpp_recv_destroy(r);
	c.max_msg = MPD_SA_HDR_END + 1950;
	r = recv_with(segs[0], &c);
	is_int(drain_recv(r, 0, a), 1, "exactly max_msg is fine");
	ok(rmpp_is(a, 2, 0x1f, 1, 0, 1, 65), "... ACK(1, 65)");
	mpd_rmpp_recv_destroy(r);

	/* what does not start a transfer makes no receiver */
	r = (struct mpd_rmpp_recv *)1;
	is_int(mpd_rmpp_recv_create(&r, 0, segs[1], MPD_MAD_LEN, 0, NULL),
	       MPD_EINVAL, "segment 2 starts nothing");
	ok(r == NULL, "... *rp NULL");
	ack_mad(m, msg, 1, 65);
	is_int(mpd_rmpp_recv_create(&r, 0, m, MPD_MAD_LEN, 0, NULL),
	       MPD_EINVAL, "an ACK starts nothing");
	memcpy(m, segs[0], sizeof(m));
	m[26] &= ~MPD_RMPP_FLAG_ACTIVE;
	is_int(mpd_rmpp_recv_create(&r, 0, m, MPD_MAD_LEN, 0, NULL),
	       MPD_EINVAL, "no Active: not RMPP");
	is_int(mpd_rmpp_recv_create(&r, 0, segs[0], 255, 0, NULL),
	       MPD_ETRUNC, "255 bytes: MPD_ETRUNC");

	/* inconsistent Last */
	r = recv_with(segs[0], NULL);
	memcpy(m, segs[1], sizeof(m));
	m[26] |= MPD_RMPP_FLAG_LAST;
	mpd_put_be32(m + 32, 220);
	mpd_rmpp_recv_input(r, 1, m, sizeof(m));
	drain_recv(r, 1, a);
	ok(rmpp_is(a, 4, 0x1f, 1, MPD_RMPP_STATUS_BAD_LEN, 0, 0),
	   "Last on segment 2 of 10: ABORT 119");
	mpd_rmpp_recv_destroy(r);
	r = recv_with(segs[0], NULL);
	for (i = 1; i < 9; i++)
		mpd_rmpp_recv_input(r, 1, segs[i], MPD_MAD_LEN);
	memcpy(m, segs[9], sizeof(m));
	mpd_put_be32(m + 32, 171);
	mpd_rmpp_recv_input(r, 1, m, sizeof(m));
	drain_recv(r, 1, a);
	ok(rmpp_is(a, 4, 0x1f, 1, MPD_RMPP_STATUS_BAD_LEN, 0, 0),
	   "Last with PayloadLength 171, not 170: ABORT 119");
	mpd_rmpp_recv_destroy(r);
	r = recv_with(segs[0], NULL);
	for (i = 1; i < 9; i++)
		mpd_rmpp_recv_input(r, 1, segs[i], MPD_MAD_LEN);
	memcpy(m, segs[9], sizeof(m));
	m[26] &= ~MPD_RMPP_FLAG_LAST;
	mpd_rmpp_recv_input(r, 1, m, sizeof(m));
	drain_recv(r, 1, a);
	ok(rmpp_is(a, 4, 0x1f, 1, MPD_RMPP_STATUS_BAD_LEN, 0, 0),
	   "segment 10 of 10 without Last: ABORT 119");
	mpd_rmpp_recv_destroy(r);

	r = recv_with(segs[0], NULL);
	memcpy(m, segs[5], sizeof(m));
	mpd_put_be32(m + 28, 11);
	mpd_rmpp_recv_input(r, 1, m, sizeof(m));
	drain_recv(r, 1, a);
	ok(rmpp_is(a, 4, 0x1f, 1, MPD_RMPP_STATUS_BAD_LEN, 0, 0),
	   "segment 11 of 10 (in the window): ABORT 119");
	mpd_rmpp_recv_destroy(r);

	/* bad types, the sender's ABORT */
	r = recv_with(segs[0], NULL);
	rmpp_mad(m, msg, 0x92, 0, 1, 0, 0, 0);
	mpd_rmpp_recv_input(r, 1, m, sizeof(m));
	drain_recv(r, 1, a);
	ok(rmpp_is(a, 4, 0x1f, 1, MPD_RMPP_STATUS_BADT, 0, 0),
	   "RMPPType 0: ABORT 121");
	mpd_rmpp_recv_destroy(r);
	r = recv_with(segs[0], NULL);
	drain_recv(r, 0, NULL);
	rmpp_mad(m, msg, 0x92, 4, 1, MPD_RMPP_STATUS_TMR, 0, 0);
	mpd_rmpp_recv_input(r, 1, m, sizeof(m));
	ok(mpd_rmpp_recv_state(r) == MPD_RMPP_ABORTED &&
	   mpd_rmpp_recv_status(r) == MPD_RMPP_STATUS_TMR &&
	   drain_recv(r, 1, NULL) == 0 && mpd_rmpp_recv_finished(r),
	   "the sender's ABORT TMR ends the receiver, no reply");
	mpd_rmpp_recv_input(r, 1, segs[1], MPD_MAD_LEN);
	is_int(drain_recv(r, 1, NULL), 0, "segments after that: ignored");
	mpd_rmpp_recv_destroy(r);
	r = recv_with(segs[0], NULL);
	rmpp_mad(m, msg, 0x92, 4, 1, 2, 0, 0);
	mpd_rmpp_recv_input(r, 1, m, sizeof(m));
	drain_recv(r, 1, a);
	ok(rmpp_is(a, 4, 0x1f, 1, MPD_RMPP_STATUS_BAD_STATUS, 0, 0),
	   "ABORT with status 2: ABORT 124");
	mpd_rmpp_recv_destroy(r);

	/* total time */
	r = recv_with(segs[0], NULL);
	is_int(mpd_rmpp_recv_deadline(r), 40 * SEC, "40 s for the transfer");
	drain_recv(r, 0, NULL);
	mpd_rmpp_recv_input(r, 39 * SEC, segs[1], MPD_MAD_LEN);
	is_int(drain_recv(r, 40 * SEC - 1, NULL), 0, "not before 40 s");
	expect_recv_end(r, 40 * SEC, 4, MPD_RMPP_STATUS_T2L, MPD_RMPP_TIMEOUT,
			"40 s: T2L");
	mpd_rmpp_recv_destroy(r);

	/* an unknown total (PayloadLength 0 in First) */
	memcpy(m, segs[0], sizeof(m));
	mpd_put_be32(m + 32, 0);
	r = recv_with(m, NULL);
	for (i = 1; i < 10; i++)
		mpd_rmpp_recv_input(r, 1, segs[i], MPD_MAD_LEN);
	got = mpd_rmpp_recv_msg(r, &glen);
	ok(got && glen == MPD_SA_HDR_END + 1950 &&
	   memcmp(got + 36, msg + 36, glen - 36) == 0,
	   "P 0 in First (unknown): the Last sets the length");
	mpd_rmpp_recv_destroy(r);
	mpd_rmpp_cfg_default(&c);
	c.max_msg = MPD_SA_HDR_END + 1000;
	r = recv_with(m, &c);
	for (i = 1; i < 10; i++)
		mpd_rmpp_recv_input(r, 1, segs[i], MPD_MAD_LEN);
	drain_recv(r, 1, a);
	ok(mpd_rmpp_recv_state(r) == MPD_RMPP_ABORTED &&
	   rmpp_is(a, 3, 0x1f, 1, MPD_RMPP_STATUS_RESX, 0, 0),
	   "unknown total growing over max_msg: STOP RESX");
	mpd_rmpp_recv_destroy(r);

	/* the stateless reply */
	is_int(mpd_rmpp_reply(segs[3], MPD_MAD_LEN, 0, MPD_RMPP_TYPE_ABORT,
			      MPD_RMPP_STATUS_UNSPEC, a, sizeof(a)),
	       MPD_MAD_LEN, "mpd_rmpp_reply");
	ok(a[3] == 0x12 && rmpp_is(a, 4, 0x1f, 1, 127, 0, 0) &&
	   memcmp(a + 36, segs[3] + 36, 20) == 0 && all_zero(a + 56, 200),
	   "ABORT 127, R bit flipped, SA header, zero data");
	is_int(mpd_rmpp_reply(segs[3], MPD_MAD_LEN, 0, MPD_RMPP_TYPE_ACK, 0,
			      a, sizeof(a)), MPD_EINVAL, "not for ACKs");
	is_int(mpd_rmpp_reply(segs[3], MPD_MAD_LEN, 0, MPD_RMPP_TYPE_STOP, 1,
			      a, 255), MPD_ENOSPC, "255-byte buffer");
}

/* ---- A lossy wire ------------------------------------------------------- */

#define WIRE_CAP	4096

struct pkt {
	uint64_t t;
	uint64_t seq;		/* equal times go in sending order */
	bool to_recv;
	uint8_t mad[MPD_MAD_LEN];
};

struct wire {
	struct pkt q[WIRE_CAP];
	unsigned int n;
	unsigned int drop, dup;		/* per mille */
	uint64_t delay, jitter;		/* ns */
	uint64_t cut;			/* everything sent from then is lost */
	unsigned long sent, dropped;
	uint64_t seq;
};

static struct wire wire;

static void
wire_put(uint64_t now, bool to_recv, const uint8_t *mad)
{
	int copies = 1, i;

	wire.sent++;
	if (now >= wire.cut || rnd64() % 1000 < wire.drop) {
		wire.dropped++;
		return;
	}
	if (rnd64() % 1000 < wire.dup)
		copies = 2;
	for (i = 0; i < copies && wire.n < WIRE_CAP; i++) {
		struct pkt *p = &wire.q[wire.n++];

		p->t = now + wire.delay +
		       (wire.jitter ? rnd64() % wire.jitter : 0);
		p->seq = wire.seq++;
		p->to_recv = to_recv;
		memcpy(p->mad, mad, MPD_MAD_LEN);
	}
}

/* The index of the earliest packet, or -1. */
static int
wire_first(void)
{
	unsigned int i;
	int best = -1;

	for (i = 0; i < wire.n; i++)
		if (best < 0 || wire.q[i].t < wire.q[best].t ||
		    (wire.q[i].t == wire.q[best].t &&
		     wire.q[i].seq < wire.q[best].seq))
			best = (int)i;
	return best;
}

struct sim_result {
	bool delivered;		/* the receiver handed up a message */
	bool exact;		/* ... with exactly the bytes sent */
	bool hung;
	enum mpd_rmpp_state sstate;
	uint8_t sstatus;
	uint64_t send_end;	/* when the sender finished */
	uint64_t end;
	unsigned long steps;
};

static uint64_t
min3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a < b ? a : b;

	return m < c ? m : c;
}

static void
sim_transfer(const uint8_t *msg, size_t len, unsigned int hdr_len,
	     struct sim_result *res)
{
	struct mpd_rmpp_send *s;
	struct mpd_rmpp_recv *r = NULL;
	bool tried = false, to_recv;
	uint8_t buf[MPD_MAD_LEN];
	uint64_t now = 0, next;
	unsigned long steps = 0;
	int i;

	memset(res, 0, sizeof(*res));
	wire.n = 0;
	if (mpd_rmpp_send_create(&s, msg, len, hdr_len, NULL) < 0)
		abort();
	for (;;) {
		while (mpd_rmpp_send_poll(s, now, buf, sizeof(buf)) > 0)
			wire_put(now, true, buf);
		while (r && mpd_rmpp_recv_poll(r, now, buf, sizeof(buf)) > 0)
			wire_put(now, false, buf);
		if (r && !res->delivered &&
		    mpd_rmpp_recv_state(r) == MPD_RMPP_DONE) {
			size_t glen;
			uint8_t *got = mpd_rmpp_recv_take(r, &glen);

			res->delivered = true;
			res->exact = got && glen == len &&
				     memcmp(got, msg, 24) == 0 &&
				     memcmp(got + 36, msg + 36, len - 36) == 0;
			free(got);
		}
		if (!res->send_end && mpd_rmpp_send_finished(s))
			res->send_end = now;
		if (mpd_rmpp_send_finished(s) &&
		    (!r || mpd_rmpp_recv_finished(r)))
			break;
		if (++steps > 2000000) {
			res->hung = true;
			break;
		}
		i = wire_first();
		next = min3(i >= 0 ? wire.q[i].t : MPD_RMPP_NEVER,
			    mpd_rmpp_send_deadline(s),
			    r ? mpd_rmpp_recv_deadline(r) : MPD_RMPP_NEVER);
		if (next == MPD_RMPP_NEVER) {
			/* nothing will ever happen again */
			res->hung = true;
			break;
		}
		if (next > now)
			now = next;
		if (i < 0 || wire.q[i].t > now)
			continue;
		memcpy(buf, wire.q[i].mad, sizeof(buf));
		to_recv = wire.q[i].to_recv;
		wire.q[i] = wire.q[--wire.n];
		if (!to_recv) {
			mpd_rmpp_send_input(s, now, buf, sizeof(buf));
		} else if (r) {
			mpd_rmpp_recv_input(r, now, buf, sizeof(buf));
		} else if (!tried) {
			/* the caller makes a receiver from the start of a
			 * transfer (here: once per transfer) */
			if (mpd_rmpp_recv_create(&r, now, buf, sizeof(buf),
						 hdr_len, NULL) == MPD_OK)
				tried = true;
		}
	}
	res->sstate = mpd_rmpp_send_state(s);
	res->sstatus = mpd_rmpp_send_status(s);
	res->end = now;
	res->steps = steps;
	mpd_rmpp_recv_destroy(r);
	mpd_rmpp_send_destroy(s);
}

static void
test_lossy_wire(void)
{
	static const struct {
		unsigned int drop, dup;
		uint64_t delay, jitter;
	} prof[] = {
		{ 0, 0, 2000, 0 },		/* perfect */
		{ 0, 0, 2000, 50000 },		/* reordering */
		{ 10, 10, 2000, 5000 },		/* 1 % loss, 1 % dup */
		{ 50, 50, 2000, 20000 },	/* 5 % */
		{ 200, 100, 1000, 100000 },	/* 20 % loss */
		{ 0, 300, 1000, 10000 },	/* duplicates only */
		{ 10, 10, 2000, 5000 },		/* then the wire goes dead */
	};
#define NPROF (sizeof(prof) / sizeof(prof[0]))
	static uint8_t msg[64 + 200 * 1024];	/* headers up to 64 */
	static const unsigned int hdrs[] = { 56, 36, 40, 64 };
	/* bound: receiver total time, a sender's retry budget, linger */
	const uint64_t bound = MPD_RMPP_TOTAL_NS + MPD_RMPP_LINGER_NS +
			       (MPD_RMPP_RETRIES + 2) * MPD_RMPP_ACK_TIMEOUT_NS;
	const uint64_t budget = (MPD_RMPP_RETRIES + 1) *
				MPD_RMPP_ACK_TIMEOUT_NS;
	unsigned long done[NPROF] = { 0 }, failed[NPROF] = { 0 };
	unsigned long runs[NPROF] = { 0 };
	unsigned int bad_bytes = 0, hung = 0, over = 0, lied = 0, i;
	unsigned int perfect_fail = 0, bad_status = 0, late = 0;
	uint64_t worst = 0;

	for (i = 0; i < 60 * NPROF; i++) {
		unsigned int p = i % NPROF;
		unsigned int hdr_len = hdrs[rnd64() % 4];
		size_t data, len;
		struct sim_result res;

		/* sizes 1 byte .. 200 KB, most of them small */
		switch (rnd64() % 4) {
		case 0:
			data = 1 + rnd64() % 256;
			break;
		case 1:
			data = 1 + rnd64() % 4096;
			break;
		case 2:
			data = 1 + rnd64() % 40000;
			break;
		default:
			data = 1 + rnd64() % (200 * 1024);
			break;
		}
		len = sa_msg(msg, data, TID + i);
		if (hdr_len != 56)
			len = hdr_len + data;
		wire.drop = prof[p].drop;
		wire.dup = prof[p].dup;
		wire.delay = prof[p].delay;
		wire.jitter = prof[p].jitter;
		wire.cut = p == 6 ? rnd64() % 60000 : MPD_RMPP_NEVER;
		sim_transfer(msg, len, hdr_len, &res);
		runs[p]++;
		if (res.sstate == MPD_RMPP_DONE)
			done[p]++;
		else
			failed[p]++;
		if (res.delivered && !res.exact)
			bad_bytes++;
		if (res.sstate == MPD_RMPP_DONE && !res.delivered)
			lied++;
		if (res.hung)
			hung++;
		if (res.end > bound)
			over++;
		if (res.end > worst)
			worst = res.end;
		if (p == 0 && res.sstate != MPD_RMPP_DONE)
			perfect_fail++;
		/* a failed sender ran out of retries, or the receiver ran
		 * out of time and said so */
		if (res.sstate != MPD_RMPP_DONE &&
		    res.sstatus != MPD_RMPP_STATUS_TMR &&
		    res.sstatus != MPD_RMPP_STATUS_T2L)
			bad_status++;
		/* a dead wire: the sender gives up one retry budget after
		 * the last ACK could have come */
		if (p == 6 && res.sstate != MPD_RMPP_DONE &&
		    res.send_end > wire.cut + budget + 10 * MS)
			late++;
	}
	for (i = 0; i < NPROF; i++)
		tap_diag("profile %u (drop %u, dup %u per mille): %lu of %lu "
			 "done, %lu failed cleanly", i, prof[i].drop,
			 prof[i].dup, done[i], runs[i], failed[i]);
	tap_diag("wire: %lu MADs, %lu dropped; latest end %.3f s",
		 wire.sent, wire.dropped, (double)worst / SEC);
	is_int(bad_bytes, 0, "%u transfers: every message handed up is exact",
	       (unsigned int)(60 * NPROF));
	is_int(lied, 0, "a sender is never DONE without the receiver's "
	       "message");
	is_int(hung, 0, "no transfer hangs (always a deadline or a packet)");
	is_int(over, 0, "every transfer ends within %.0f s",
	       (double)bound / SEC);
	is_int(perfect_fail, 0, "on a perfect wire every transfer completes");
	is_int(bad_status, 0, "failures are TMR (ETIMEDOUT) or the receiver's "
	       "T2L");
	is_int(late, 0, "on a dead wire the sender fails within its retry "
	       "budget (%.0f s)", (double)budget / SEC);
	ok(done[1] == runs[1] && done[5] == runs[5],
	   "reordering or duplicates alone never fail a transfer");
	ok(done[2] + done[3] > (runs[2] + runs[3]) * 9 / 10,
	   "with 1-5 %% loss at least 90 %% complete");
	ok(failed[6] > 0, "the dead wire does fail transfers (%lu)",
	   failed[6]);
}

/* ---- Fuzz --------------------------------------------------------------- */

static bool
ctl_sane(const uint8_t *m)
{
	uint8_t t = m[25];

	if (m[24] != 1 || !(m[26] & MPD_RMPP_FLAG_ACTIVE))
		return false;
	if (t == MPD_RMPP_TYPE_ACK)
		return m[27] == 0 &&
		       mpd_get_be32(m + 32) >= mpd_get_be32(m + 28);
	if (t == MPD_RMPP_TYPE_STOP)
		return m[27] == MPD_RMPP_STATUS_RESX;
	if (t == MPD_RMPP_TYPE_ABORT)
		return m[27] >= 118 && m[27] <= 127;
	return false;
}

static void
mutate(uint8_t *m)
{
	switch (rnd64() % 10) {
	case 0:
		m[24] = (uint8_t)rnd64();
		break;
	case 1:
		m[25] = (uint8_t)(rnd64() % 6);
		break;
	case 2:
		m[26] = (uint8_t)(rnd64() | 1);
		break;
	case 3:
		m[27] = (uint8_t)rnd64();
		break;
	case 4:
		mpd_put_be32(m + 28, (uint32_t)rnd64());
		break;
	case 5:
		mpd_put_be32(m + 28, (uint32_t)(rnd64() % 16));
		break;
	case 6:
		mpd_put_be32(m + 32, (uint32_t)rnd64());
		break;
	case 7:
		mpd_put_be32(m + 32, (uint32_t)(rnd64() % 800));
		break;
	case 8:
		rnd_bytes(m + 24, 12);
		m[26] |= 1;
		break;
	default:
		break;		/* unchanged: a duplicate */
	}
}

static void
test_fuzz(void)
{
	static uint8_t msg[MPD_SA_HDR_END + 20 * 200];
	static uint8_t segs[24][MPD_MAD_LEN];
	static const unsigned int hdrs[] = { 0, 36, 40, 64, 200, 255 };
	uint8_t m[MPD_MAD_LEN], o[MPD_MAD_LEN];
	unsigned int it, insane = 0, over = 0, made = 0, whole = 0;
	unsigned int s_insane = 0;
	struct mpd_rmpp_cfg c;

	for (it = 0; it < 3000; it++) {
		struct mpd_rmpp_recv *r = NULL;
		int nseg = all_segments(msg, 1 + rnd64() % (20 * 200), segs,
					24);
		unsigned int hdr_len = hdrs[rnd64() % 6];
		uint64_t now = 0;
		int j;

		mpd_rmpp_cfg_default(&c);
		c.max_msg = rnd64() % 2 ? MPD_RMPP_MAX_MSG :
			    (uint32_t)(256 + rnd64() % 4000);
		c.window = 1 + (uint32_t)(rnd64() % 8);
		memcpy(m, segs[0], sizeof(m));
		if (rnd64() % 2)
			mutate(m);
		if (rnd64() % 8 == 0)
			rnd_bytes(m, sizeof(m));
		if (mpd_rmpp_recv_create(&r, now, m, sizeof(m), hdr_len,
					 &c) < 0)
			continue;
		made++;
		for (j = 0; j < 60; j++) {
			size_t glen;
			const uint8_t *got;

			memcpy(m, segs[rnd64() % (uint64_t)nseg], sizeof(m));
			if (rnd64() % 3 == 0)
				mutate(m);
			if (rnd64() % 4 == 0)
				mutate(m);
			mpd_rmpp_recv_input(r, now, m,
					    rnd64() % 50 ? sizeof(m) :
					    rnd64() % 256);
			now += rnd64() % (2 * SEC);
			while (mpd_rmpp_recv_poll(r, now, o, sizeof(o)) > 0)
				if (!ctl_sane(o))
					insane++;
			got = mpd_rmpp_recv_msg(r, &glen);
			if (got) {
				whole++;
				if (glen > c.max_msg || glen < 36)
					over++;
			}
		}
		mpd_rmpp_recv_destroy(r);
	}
	tap_diag("receiver fuzz: %u receivers, %u message checks", made,
		 whole);
	is_int(insane, 0, "fuzzed receivers only send sane ACK/STOP/ABORT");
	is_int(over, 0, "and never hand up more than max_msg");
	ok(made > 1000, "most fuzz rounds made a receiver");

	for (it = 0; it < 3000; it++) {
		struct mpd_rmpp_send *s;
		size_t len = sa_msg(msg, rnd64() % (20 * 200), TID);
		uint64_t now = 0;
		uint32_t nseg, k;
		int j;

		if (mpd_rmpp_send_create(&s, msg, len, hdrs[rnd64() % 4],
					 NULL) < 0)
			continue;
		nseg = mpd_rmpp_send_segments(s);
		for (j = 0; j < 40; j++) {
			while (mpd_rmpp_send_poll(s, now, o, sizeof(o)) > 0) {
				k = mpd_get_be32(o + 28);
				if (o[24] != 1 || !(o[26] & 1) ||
				    (o[25] == 1 && (k < 1 || k > nseg)) ||
				    (o[25] != 1 && o[25] != 4))
					s_insane++;
			}
			ack_mad(m, msg, (uint32_t)(rnd64() % (nseg + 2)),
				(uint32_t)(rnd64() % (nseg + 70)));
			if (rnd64() % 3 == 0)
				mutate(m);
			mpd_rmpp_send_input(s, now, m, sizeof(m));
			now += rnd64() % SEC;
		}
		mpd_rmpp_send_destroy(s);
	}
	is_int(s_insane, 0, "fuzzed senders only send segments 1..n and "
	       "ABORTs");
}

/* Both ends in memory the caller gives (the daemon's per-client arena):
 * the same segments as with malloc(), the message behind the receiver,
 * a first segment announcing more than that memory is a STOP, nothing
 * is freed (ASan would see a free() of the static arena). */
static void
test_caller_mem(void)
{
	static uint8_t msg[MPD_SA_HDR_END + 10 * 200];
	static uint8_t segs[12][MPD_MAD_LEN], segs2[12][MPD_MAD_LEN];
	static uint64_t arena[2][(8192 + sizeof(msg)) / 8 + 1];
	uint8_t ack[MPD_MAD_LEN];
	struct mpd_rmpp_send *s;
	struct mpd_rmpp_recv *r;
	struct mpd_rmpp_cfg c;
	const uint8_t *got;
	size_t len, glen, off = mpd_rmpp_send_msg_off();
	int n, i, same = 1;

	n = all_segments(msg, 1950, segs, 12);
	len = MPD_SA_HDR_END + 1950;
	mpd_rmpp_cfg_default(&c);
	c.mem = arena[0];
	c.mem_len = off + len - 1;
	is_int(mpd_rmpp_send_create(&s, msg, len, 0, &c), MPD_ERANGE,
	       "sender: memory one byte short: MPD_ERANGE");
	c.mem_len = sizeof(arena[0]);
	memcpy((uint8_t *)arena[0] + off, msg, len);	/* put in place */
	is_int(mpd_rmpp_send_create(&s, (uint8_t *)arena[0] + off, len, 0, &c),
	       MPD_OK, "sender over a message already in its memory");
	ok((void *)s == (void *)arena[0], "the sender is the caller's memory");
	i = drain_send(s, 0, segs2, 12);
	ack_mad(ack, msg, 0, 1u << 20);
	mpd_rmpp_send_input(s, 0, ack, sizeof(ack));
	i += drain_send(s, 0, segs2 + i, 12 - i);
	for (int k = 0; k < n && k < i; k++)
		same &= !memcmp(segs[k], segs2[k], MPD_MAD_LEN);
	ok(i == n && same, "the same %d segments as a malloc()ed sender", n);
	mpd_rmpp_send_destroy(s);

	for (i = 0; i < 10; i++)
		segs[i][26] = (uint8_t)((0x1f << 3) | (segs[i][26] & 7));
	c.mem = arena[1];
	c.mem_len = sizeof(arena[1]);
	r = recv_with(segs[0], &c);
	ok((void *)r == (void *)arena[1], "receiver in the caller's memory");
	for (i = 1; r && i < 10; i++)
		mpd_rmpp_recv_input(r, 1, segs[i], MPD_MAD_LEN);
	got = r ? mpd_rmpp_recv_msg(r, &glen) : NULL;
	ok(got && glen == len && !memcmp(got + 36, msg + 36, len - 36) &&
	   got > (const uint8_t *)arena[1] &&
	   got + glen <= (const uint8_t *)arena[1] + sizeof(arena[1]),
	   "the message whole, inside that memory");
	ok(r && !mpd_rmpp_recv_take(r, NULL), "take(): NULL, nothing to free()");
	mpd_rmpp_recv_destroy(r);
	c.mem_len = 1024;
	r = recv_with(segs[0], &c);
	ok(r != NULL, "a receiver with room for 1024 bytes of a 2 KiB message");
	if (r)
		expect_recv_end(r, 0, MPD_RMPP_TYPE_STOP, MPD_RMPP_STATUS_RESX,
				MPD_RMPP_ABORTED, "no room for the message");
	mpd_rmpp_recv_destroy(r);
	c.mem = (uint8_t *)arena[1] + 4;
	is_int(mpd_rmpp_recv_create(&r, 0, segs[0], MPD_MAD_LEN, 0, &c),
	       MPD_EINVAL, "memory not 8-aligned: MPD_EINVAL");
}

int
main(void)
{
	tap_seed();
	test_sa_golden();
	test_layouts();
	test_windows();
	test_acks();
	test_timeouts();
	test_receiver();
	test_caller_mem();
	test_lossy_wire();
	test_fuzz();
	return tap_done();
}
