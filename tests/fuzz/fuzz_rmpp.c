/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the RMPP engine fed MADs from the wire. Input:
 *   byte 0: bit 0 receiver (0) or sender (1); bits 1-3 a window of
 *           1 << n; bits 4-7 a max_msg of 256 << n
 *   byte 1: (sender) the message's length in segments, 1..64
 *   then records of 1 byte (time step, in 100 ms units) + 256 bytes (a MAD)
 * The receiver is created from the first MAD and given the rest; the
 * sender gets them all as ACKs, STOPs or ABORTs. After each step the
 * engine's timers run and what it would send is written out; a finished
 * receiver's message must be as long as it says.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/mad.h"
#include "madpmd/rmpp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REC	(1 + MPD_MAD_LEN)
#define STEP_NS	100000000ull

static void
drain_recv(struct mpd_rmpp_recv *r, uint64_t now)
{
	uint8_t out[MPD_MAD_LEN];
	int i;

	for (i = 0; i < 8; i++)
		if (mpd_rmpp_recv_poll(r, now, out, sizeof(out)) <= 0)
			break;
}

static void
drain_send(struct mpd_rmpp_send *s, uint64_t now)
{
	uint8_t out[MPD_MAD_LEN];
	int i;

	for (i = 0; i < 80; i++)
		if (mpd_rmpp_send_poll(s, now, out, sizeof(out)) <= 0)
			break;
}

static void
receiver(const uint8_t *data, size_t size, const struct mpd_rmpp_cfg *cfg)
{
	struct mpd_rmpp_recv *r = NULL;
	uint64_t now = 1000000000ull;
	const uint8_t *msg;
	uint8_t *m;
	size_t len;

	if (size < REC)
		return;
	m = malloc(MPD_MAD_LEN);
	if (!m)
		return;
	memcpy(m, data + 1, MPD_MAD_LEN);
	if (mpd_rmpp_recv_create(&r, now, m, MPD_MAD_LEN,
				 mpd_rmpp_hdr_len(m[1]), cfg) != MPD_OK || !r) {
		free(m);
		return;
	}
	drain_recv(r, now);
	for (data += REC, size -= REC; size >= REC;
	     data += REC, size -= REC) {
		now += data[0] * STEP_NS;
		memcpy(m, data + 1, MPD_MAD_LEN);
		(void)mpd_rmpp_recv_input(r, now, m, MPD_MAD_LEN);
		drain_recv(r, now);
		(void)mpd_rmpp_recv_deadline(r);
		(void)mpd_rmpp_recv_finished(r);
	}
	msg = mpd_rmpp_recv_msg(r, &len);
	if (msg) {
		/* every byte of it must be readable */
		volatile uint8_t x = 0;
		size_t i;

		if (mpd_rmpp_recv_state(r) != MPD_RMPP_DONE || len > cfg->max_msg)
			abort();
		for (i = 0; i < len; i++)
			x ^= msg[i];
		(void)x;
	}
	now += MPD_RMPP_LINGER_NS + MPD_RMPP_TOTAL_NS;
	drain_recv(r, now);
	mpd_rmpp_recv_destroy(r);
	free(m);
}

static void
sender(const uint8_t *data, size_t size, const struct mpd_rmpp_cfg *cfg)
{
	struct mpd_rmpp_send *s = NULL;
	struct mpd_mad h;
	uint64_t now = 1000000000ull;
	uint8_t *msg, m[MPD_MAD_LEN];
	unsigned int segs;
	size_t len;

	if (size < 1)
		return;
	segs = data[0] % 64 + 1;
	data++;
	size--;
	len = MPD_SA_HDR_END + (size_t)segs * MPD_SA_DATA_LEN - (segs > 1 ? 7 : 0);
	msg = calloc(1, len);
	if (!msg)
		return;
	memset(&h, 0, sizeof(h));
	h.hdr.base_version = MPD_BASE_VERSION;
	h.hdr.mgmt_class = MPD_CLASS_SUBN_ADM;
	h.hdr.class_version = MPD_SA_CLASS_VERSION;
	h.hdr.method = MPD_METHOD_GET_TABLE_RESP;
	h.hdr.tid = 0x1234;
	h.hdr.attr_id = MPD_ATTR_SA_PATH_RECORD;
	h.rmpp.version = MPD_RMPP_VERSION;
	h.rmpp.resp_time = MPD_RMPP_RESP_TIME_NONE;
	(void)mpd_mad_encode(&h, NULL, 0, m, sizeof(m));
	memcpy(msg, m, MPD_SA_HDR_END);
	if (mpd_rmpp_send_create(&s, msg, len, 0, cfg) != MPD_OK || !s) {
		free(msg);
		return;
	}
	drain_send(s, now);
	for (; size >= REC; data += REC, size -= REC) {
		now += data[0] * STEP_NS;
		memcpy(m, data + 1, MPD_MAD_LEN);
		(void)mpd_rmpp_send_input(s, now, m, MPD_MAD_LEN);
		drain_send(s, now);
		(void)mpd_rmpp_send_deadline(s);
		(void)mpd_rmpp_send_status(s);
		(void)mpd_rmpp_send_finished(s);
	}
	now += 100 * MPD_RMPP_ACK_TIMEOUT_NS;
	drain_send(s, now);
	mpd_rmpp_send_destroy(s);
	free(msg);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mpd_rmpp_cfg cfg;

	if (size < 1)
		return 0;
	mpd_rmpp_cfg_default(&cfg);
	cfg.window = 1u << ((data[0] >> 1) & 7);
	cfg.max_msg = 256u << (data[0] >> 4);
	if (cfg.max_msg > MPD_RMPP_MAX_MSG)
		cfg.max_msg = MPD_RMPP_MAX_MSG;
	if (data[0] & 1)
		sender(data + 1, size - 1, &cfg);
	else
		receiver(data + 1, size - 1, &cfg);
	return 0;
}
