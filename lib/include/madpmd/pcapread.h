/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pcap and pcapng reader for offline replay: classic pcap (microsecond and
 * nanosecond magics, either byte order) and pcapng (any number of sections
 * of either byte order; IDB, EPB, SPB, obsolete PB; every other block
 * skipped). Files are read one block at a time, every length is checked,
 * and a malformed file gives a sentence, never a crash.
 */
#ifndef MADPMD_PCAPREAD_H
#define MADPMD_PCAPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPD_LINKTYPE_LINUX_SLL		113
#define MPD_LINKTYPE_INFINIBAND		247
#define MPD_LINKTYPE_LINUX_SLL2		276

/* Largest packet or block accepted; anything bigger is a malformed file. */
#define MPD_PCAPREAD_MAX_CAPLEN		(1u << 20)

struct mpd_pcap_reader;

struct mpd_pcap_pkt {
	uint64_t ts_ns;		/* ns since the epoch (if_tsoffset applied) */
	uint32_t if_id;		/* pcapng interface in its section; pcap: 0 */
	uint32_t section;	/* pcapng section, from 0; pcap: 0 */
	uint16_t linktype;
	bool has_ts;		/* false for SPB: ts_ns is the previous one */
	const char *if_name;	/* if_name option, or NULL */
	uint32_t direction;	/* MPD_PCAPNG_DIR_*: 0 unknown, 1 in, 2 out */
	const uint8_t *data;	/* valid until the next call */
	uint32_t caplen;
	uint32_t origlen;
};

/* Open path ("-" is standard input) and read its file header or first
 * section header. NULL with a sentence naming the file in err. */
struct mpd_pcap_reader *mpd_pcapread_open(const char *path, char *err,
					  size_t errlen);
/*
 * The next packet: 1 and *pkt filled, 0 at the end of the file, or a
 * negative errno for a malformed file (-EBADMSG) or a read error, after
 * which it keeps failing. A file cut short inside its last block ends
 * with 0 too, with mpd_pcapread_truncated() true and the error set.
 */
int mpd_pcapread_next(struct mpd_pcap_reader *r, struct mpd_pcap_pkt *pkt);
/* The sentence for the failure or truncation, or NULL. */
const char *mpd_pcapread_error(const struct mpd_pcap_reader *r);
bool mpd_pcapread_truncated(const struct mpd_pcap_reader *r);
/* true for pcapng, false for classic pcap */
bool mpd_pcapread_is_pcapng(const struct mpd_pcap_reader *r);
/* Bytes of the file read so far (how far a replay is into it). */
uint64_t mpd_pcapread_offset(const struct mpd_pcap_reader *r);
void mpd_pcapread_close(struct mpd_pcap_reader *r);

/*
 * What a packet is to a port. ETH: an Ethernet frame (RoCE); IB: a native
 * IB packet, LRH first; RECORD: a madpmd record (exported PDU "madpmd");
 * NONE: anything else (other link types, other exported PDUs, Linux
 * cooked frames of other protocols); MALFORMED: the link-layer header or
 * the exported-PDU TLVs do not fit the packet.
 */
enum mpd_frame_kind {
	MPD_FRAME_NONE,
	MPD_FRAME_ETH,
	MPD_FRAME_IB,
	MPD_FRAME_RECORD,
	MPD_FRAME_MALFORMED,
};

/*
 * The frame in p that a port takes: *frame and *len point into p->data, or
 * into buf (cap bytes) when the frame has to be rebuilt (a Linux cooked
 * capture becomes an Ethernet frame with made-up MACs; buf needs
 * caplen - 2 bytes). A frame that does not fit buf is MALFORMED.
 * Exported PDUs: "infiniband" and "madpmd_ib" are IB, "eth_withoutfcs"
 * ETH, "madpmd" RECORD (*frame is then the record).
 */
enum mpd_frame_kind mpd_pcap_frame(const struct mpd_pcap_pkt *p, uint8_t *buf,
				   size_t cap, const uint8_t **frame,
				   uint32_t *len);
const char *mpd_frame_kind_name(enum mpd_frame_kind k);

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_PCAPREAD_H */
