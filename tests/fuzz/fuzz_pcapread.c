/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the pcap/pcapng reader (what --replay and the tools
 * open), the input being the whole file; every packet is then classified
 * as a port would take it (mpd_pcap_frame) and its frame or record
 * decoded. A packet handed out must lie inside what the reader says.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "madpmd/pcapread.h"
#include "madpmd/records.h"
#include "madpmd/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
frame(const struct mpd_pcap_pkt *p)
{
	static uint8_t buf[MPD_PCAPREAD_MAX_CAPLEN];
	const uint8_t *f, *body;
	struct mpd_rec_hdr h;
	struct mpd_pkt pk;
	size_t body_len;
	uint32_t len;

	switch (mpd_pcap_frame(p, buf, sizeof(buf), &f, &len)) {
	case MPD_FRAME_ETH:
		(void)mpd_pkt_decode(MPD_LINK_ROCE_V2, f, len, 0, &pk);
		(void)mpd_pkt_decode(MPD_LINK_ROCE_V1, f, len, 0, &pk);
		break;
	case MPD_FRAME_IB:
		(void)mpd_pkt_decode(MPD_LINK_IB, f, len, 0, &pk);
		break;
	case MPD_FRAME_RECORD:
		if (mpd_rec_decode_hdr(f, len, &h, &body, &body_len) == 0 &&
		    (body < f || body + body_len > f + len))
			abort();
		break;
	default:
		return;
	}
	if (!(f >= p->data && f + len <= p->data + p->caplen) &&
	    !(f >= buf && f + len <= buf + sizeof(buf)))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mpd_pcap_reader *r;
	struct mpd_pcap_pkt p;
	char path[64], err[256];
	volatile uint8_t x = 0;
	int fd, n = 0;
	uint32_t i;

	fd = memfd_create("fuzz.pcap", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = mpd_pcapread_open(path, err, sizeof(err));
	if (r) {
		while (n++ < 10000 && mpd_pcapread_next(r, &p) == 1) {
			if (p.caplen > MPD_PCAPREAD_MAX_CAPLEN)
				abort();
			/* every byte handed out is readable */
			for (i = 0; i < p.caplen; i++)
				x ^= p.data[i];
			if (p.if_name)
				(void)strlen(p.if_name);
			frame(&p);
		}
		(void)mpd_pcapread_error(r);
		(void)mpd_pcapread_truncated(r);
		mpd_pcapread_close(r);
	}
	close(fd);
	(void)x;
	return 0;
}
