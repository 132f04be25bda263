/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd RMPP engine (IBA 13.6): segmentation, windows, ACKs, time-outs and
 * retransmission, STOP/ABORT, reassembly. One instance per transfer.
 *
 * Pure: no DPDK, no I/O, no threads, no clock. The caller passes the time
 * (any monotonic nanosecond count) and sends every MAD the engine hands
 * back from a poll call. Each instance allocates once when it is created
 * (plus, for a receiver, one message buffer); nothing per segment. All
 * input MADs are untrusted: a broken peer ends the transfer, never the
 * caller. Not thread safe: one instance belongs to one lcore.
 *
 * The caller keys transfers (peer LID/GID + QP, TID, class, class version)
 * and routes a received active RMPP MAD to the matching sender (ACK, STOP,
 * ABORT of a message it sends) or receiver (DATA of a message it receives).
 *
 * Typical use:
 *   sender:   create; loop { input(ACKs...); while (poll() > 0) send; }
 *             until finished(); state() tells DONE / TIMEOUT / ABORTED.
 *   receiver: create from the first DATA segment; then as above; once
 *             state() is DONE, take() the whole message; keep the instance
 *             until finished() (it re-ACKs duplicates meanwhile).
 */
#ifndef MADPMD_RMPP_H
#define MADPMD_RMPP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* RMPP header offsets in a MAD (IBA 13.6.2.1) */
#define MPD_RMPP_OFF		24	/* RMPPVersion */
#define MPD_RMPP_END		36	/* the class header (if any) follows */
#define MPD_RMPP_SEG_PAYLOAD	220	/* RMPP payload per segment */

/* RMPPStatus (IBA 13.6.2.1) */
#define MPD_RMPP_STATUS_OK		0
#define MPD_RMPP_STATUS_RESX		1	/* STOP: resources exhausted */
#define MPD_RMPP_STATUS_T2L		118	/* total time too long */
#define MPD_RMPP_STATUS_BAD_LEN		119	/* bad Last/PayloadLength */
#define MPD_RMPP_STATUS_BAD_SEG		120	/* bad First/SegmentNumber */
#define MPD_RMPP_STATUS_BADT		121	/* illegal RMPPType */
#define MPD_RMPP_STATUS_W2S		122	/* NewWindowLast too small */
#define MPD_RMPP_STATUS_S2B		123	/* SegmentNumber too big */
#define MPD_RMPP_STATUS_BAD_STATUS	124	/* illegal RMPPStatus */
#define MPD_RMPP_STATUS_UNV		125	/* unsupported RMPPVersion */
#define MPD_RMPP_STATUS_TMR		126	/* too many retries */
#define MPD_RMPP_STATUS_UNSPEC		127	/* unspecified */
#define MPD_RMPP_STATUS_ABORT_MIN	118
#define MPD_RMPP_STATUS_ABORT_MAX	127

#define MPD_RMPP_RESP_TIME_NONE	0x1f	/* RRespTime: no time given */

/* Defaults (docs/rmpp.md says where each comes from) */
#define MPD_RMPP_WINDOW		64	/* receiver window, as Linux */
#define MPD_RMPP_WINDOW_MAX	4096
#define MPD_RMPP_ACK_TIMEOUT_NS	2000000000ull	/* sender: 2 s per ACK */
#define MPD_RMPP_RETRIES	3	/* sender: time-outs without progress */
#define MPD_RMPP_TOTAL_NS	40000000000ull	/* receiver: whole transfer */
#define MPD_RMPP_LINGER_NS	10000000000ull	/* receiver: after done */
/* The largest whole message: one umad record (MPD_CHAN_MAX_MSG, 2 MiB)
 * less its 64-byte struct ib_user_mad header. */
#define MPD_RMPP_MAX_MSG	((2u << 20) - 64)

#define MPD_RMPP_NEVER		UINT64_MAX	/* no deadline */

struct mpd_rmpp_cfg {
	uint64_t ack_timeout_ns;	/* sender: wait for an ACK, > 0 */
	uint32_t retries;		/* sender: time-outs in a row allowed */
	uint32_t window;		/* receiver: segments, 1..4096 */
	uint64_t total_timeout_ns;	/* receiver: whole transfer, > 0 */
	uint64_t linger_ns;		/* receiver: re-ACK after done */
	uint32_t max_msg;		/* both: largest message, >= 256 */
	/* both: memory the caller gives the instance (8-aligned), which
	 * then allocates nothing and frees nothing; NULL: malloc() */
	void *mem;
	size_t mem_len;
};

/* Fills cfg with the defaults above. A NULL cfg means the same. */
void mpd_rmpp_cfg_default(struct mpd_rmpp_cfg *cfg);

enum mpd_rmpp_state {
	MPD_RMPP_ACTIVE = 0,
	MPD_RMPP_DONE,		/* sender: all ACKed; receiver: whole */
	MPD_RMPP_TIMEOUT,	/* retries or total time used up (ETIMEDOUT) */
	MPD_RMPP_ABORTED,	/* ABORT/STOP sent or received; see status() */
};

/* True when the 256-byte MAD has an RMPP header with the Active flag set
 * (the stack handles it; IBA 13.6.2.1). Says nothing about the class. */
bool mpd_rmpp_is_active(const uint8_t *mad, size_t len);

/* The class header length for RMPP: mpd_class_data_off(), at least 36. */
unsigned int mpd_rmpp_hdr_len(uint8_t mgmt_class);

/*
 * Builds in buf the ABORT (type MPD_RMPP_TYPE_ABORT) or STOP reply, with
 * the given RMPPStatus, to the RMPP MAD mad that has no transfer to go to
 * (Linux nack_recv()): its first hdr_len bytes with the R bit of Method
 * flipped, SegmentNumber and NewWindowLast 0. Returns 256 or a status.
 */
int mpd_rmpp_reply(const uint8_t *mad, size_t len, unsigned int hdr_len,
		   uint8_t type, uint8_t status, uint8_t *buf, size_t cap);

/* ---- Sender ------------------------------------------------------------ */

struct mpd_rmpp_send;

/*
 * A sender for one whole message as a client writes it: MAD header, RMPP
 * header, class header (hdr_len bytes in all; 0 = derive it from the
 * MgmtClass with mpd_rmpp_hdr_len()), then the data. The message is
 * copied. Its RRespTime is kept; the other RMPP fields are the engine's.
 * Returns MPD_OK, MPD_EINVAL (bad arguments or configuration), MPD_ERANGE
 * (message larger than max_msg) or MPD_ENOSPC (out of memory).
 */
int mpd_rmpp_send_create(struct mpd_rmpp_send **sp, const void *msg,
			 size_t len, unsigned int hdr_len,
			 const struct mpd_rmpp_cfg *cfg);
/* In caller memory (cfg->mem) the sender's copy of the message starts
 * this many bytes in, and needs as many more as the message has: a caller
 * that puts the message there itself saves the copy (create then moves
 * nothing). cfg->mem_len below offset + len is MPD_ERANGE. */
size_t mpd_rmpp_send_msg_off(void);
void mpd_rmpp_send_destroy(struct mpd_rmpp_send *s);
/*
 * Hands the sender an RMPP MAD from the receiver (ACK, STOP, ABORT).
 * Returns MPD_OK when it was taken into account, MPD_ETRUNC when shorter
 * than 256, MPD_EINVAL when it is not an active RMPP MAD for a sender (it
 * is then ignored).
 */
int mpd_rmpp_send_input(struct mpd_rmpp_send *s, uint64_t now,
			const uint8_t *mad, size_t len);
/*
 * Runs the timer and writes the next MAD to send (a DATA segment within
 * the receiver's window, or an ABORT) into buf. Call it until it returns
 * 0. Returns 256 when buf holds a MAD, 0 when there is nothing to send
 * now, MPD_ENOSPC when cap < 256.
 */
int mpd_rmpp_send_poll(struct mpd_rmpp_send *s, uint64_t now, uint8_t *buf,
		       size_t cap);
/* When poll() next has work to do on its own; MPD_RMPP_NEVER if never. */
uint64_t mpd_rmpp_send_deadline(const struct mpd_rmpp_send *s);
enum mpd_rmpp_state mpd_rmpp_send_state(const struct mpd_rmpp_send *s);
/* The RMPPStatus that ended the transfer (sent or received), else 0. */
uint8_t mpd_rmpp_send_status(const struct mpd_rmpp_send *s);
/* Not active and nothing left to send: the caller may destroy it. */
bool mpd_rmpp_send_finished(const struct mpd_rmpp_send *s);
/* The number of segments of the message. */
uint32_t mpd_rmpp_send_segments(const struct mpd_rmpp_send *s);
/* ACK time-outs so far, each one sending the window again (IBA 13.6.5.1). */
uint32_t mpd_rmpp_send_timeouts(const struct mpd_rmpp_send *s);

/* ---- Receiver ---------------------------------------------------------- */

struct mpd_rmpp_recv;

/*
 * A receiver for the transfer that mad starts: an active RMPP MAD of type
 * DATA with SegmentNumber 1 or the First flag (anything else is
 * MPD_EINVAL and creates nothing; MPD_ETRUNC when shorter than 256).
 * hdr_len as for the sender. A first segment that breaks the rules still
 * makes a receiver, in state ABORTED with the ABORT (or STOP for a message
 * over max_msg) waiting in poll(). Returns MPD_OK or MPD_ENOSPC (out of
 * memory).
 */
int mpd_rmpp_recv_create(struct mpd_rmpp_recv **rp, uint64_t now,
			 const uint8_t *mad, size_t len, unsigned int hdr_len,
			 const struct mpd_rmpp_cfg *cfg);
void mpd_rmpp_recv_destroy(struct mpd_rmpp_recv *r);
/* Hands the receiver a later MAD of its transfer. Returns as
 * mpd_rmpp_send_input(). */
int mpd_rmpp_recv_input(struct mpd_rmpp_recv *r, uint64_t now,
			const uint8_t *mad, size_t len);
/* Runs the timers and writes the next ACK, STOP or ABORT into buf.
 * Returns as mpd_rmpp_send_poll(). */
int mpd_rmpp_recv_poll(struct mpd_rmpp_recv *r, uint64_t now, uint8_t *buf,
		       size_t cap);
uint64_t mpd_rmpp_recv_deadline(const struct mpd_rmpp_recv *r);
enum mpd_rmpp_state mpd_rmpp_recv_state(const struct mpd_rmpp_recv *r);
uint8_t mpd_rmpp_recv_status(const struct mpd_rmpp_recv *r);
/* Not active, nothing left to send and the linger time after DONE over. */
bool mpd_rmpp_recv_finished(const struct mpd_rmpp_recv *r);
/*
 * The whole message once DONE, as a umad client reads it: the first
 * segment's MAD, RMPP and class headers (hdr_len bytes), then the data of
 * every segment in order. NULL before DONE or after take().
 */
const uint8_t *mpd_rmpp_recv_msg(const struct mpd_rmpp_recv *r, size_t *len);
/* The same, handed over: the caller free()s it. The receiver goes on
 * re-ACKing without it. NULL for a receiver in caller memory (cfg->mem:
 * the message is there, behind the receiver, until it is destroyed; a
 * first segment announcing more than that memory holds is refused with a
 * STOP, as one over max_msg). */
uint8_t *mpd_rmpp_recv_take(struct mpd_rmpp_recv *r, size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_RMPP_H */
