/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small pcapng writer: one section, any number of interfaces of any link
 * type, enhanced packet blocks with nanosecond timestamps and direction.
 * Exported-PDU records (LINKTYPE_WIRESHARK_UPPER_PDU) carry PDUs that a
 * named Wireshark dissector decodes: LRH-first IB packets ("infiniband"),
 * and madpmd's own records.
 */
#ifndef MADPMD_PCAPNG_H
#define MADPMD_PCAPNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPD_LINKTYPE_ETHERNET		1
#define MPD_LINKTYPE_UPPER_PDU		252

/* epb_flags direction (pcapng spec, section 4.3.1) */
#define MPD_PCAPNG_DIR_UNKNOWN	0
#define MPD_PCAPNG_DIR_IN	1
#define MPD_PCAPNG_DIR_OUT	2

/* exported PDU tags used here (wsutil/exported_pdu_tlvs.h) */
#define MPD_EXP_PDU_TAG_END		0
#define MPD_EXP_PDU_TAG_DISSECTOR	12
#define MPD_EXP_PDU_TAG_PORT_TYPE	24
#define MPD_EXP_PDU_TAG_SRC_PORT	25
#define MPD_EXP_PDU_TAG_DST_PORT	26
#define MPD_EXP_PDU_PT_IBQP		14
#define MPD_EXP_PDU_NO_PORT		UINT32_MAX

struct mpd_pcapng;

/* Create path ("-" is standard output) and write the section header.
 * NULL with errno set on failure. */
struct mpd_pcapng *mpd_pcapng_open(const char *path);
/* Same on an open descriptor, which the writer then owns. */
struct mpd_pcapng *mpd_pcapng_fdopen(int fd);
/* Flush after every block (live streaming to a pipe); off by default. */
void mpd_pcapng_set_autoflush(struct mpd_pcapng *w, int on);
/* Declare an interface; returns its id (>= 0) or -errno. */
int mpd_pcapng_add_interface(struct mpd_pcapng *w, uint16_t linktype,
			     const char *name, const char *description);
/* One packet on interface if_id at ts_ns (ns since the epoch).
 * Returns 0 or -errno. */
int mpd_pcapng_write(struct mpd_pcapng *w, uint32_t if_id, uint64_t ts_ns,
		     uint32_t direction, const void *data, size_t len);
/*
 * One exported PDU on an UPPER_PDU interface: the TLVs name the dissector
 * and, unless MPD_EXP_PDU_NO_PORT, the IB QPs as source/destination ports.
 */
int mpd_pcapng_write_exported(struct mpd_pcapng *w, uint32_t if_id,
			      uint64_t ts_ns, uint32_t direction,
			      const char *dissector, uint32_t src_qp,
			      uint32_t dst_qp, const void *pdu, size_t len);
/* Build the exported-PDU TLV header into buf; returns its length, or
 * -ENOSPC/-EINVAL. Used by writers that frame records themselves. */
int mpd_exported_pdu_header(uint8_t *buf, size_t cap, const char *dissector,
			    uint32_t src_qp, uint32_t dst_qp);
int mpd_pcapng_flush(struct mpd_pcapng *w);
/* Flush, close and free. Returns 0 or -errno of the first failure. */
int mpd_pcapng_close(struct mpd_pcapng *w);

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_PCAPNG_H */
