/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd Wireshark plugin: what the files of the plugin share.
 *
 *   packet-madpmd.c     protocol, preferences, records, handles, handoff
 *   madpmd-transport.c  LRH/GRH/BTH/DETH, RoCEv1/v2, ICRC and VCRC checks
 *   madpmd-mad.c        MAD and class headers, RMPP reassembly, TID matching
 *   madpmd-layout.c     attribute/record fields generated from the codec's
 *                       layouts (SMP, SA, PerfMgt, CM)
 *   madpmd-stats.c      the response-time tap, "-z madpmd,rtt" and the
 *                       service response time tables ("-z madpmd,srt")
 *   madpmd-link.c       the heartbeats of IB links between daemons
 *   madpmd-columns.c    the packet list: which port captured a frame
 */
#ifndef MADPMD_PLUGIN_H
#define MADPMD_PLUGIN_H

#include <epan/packet.h>
#include <epan/expert.h>

#include "madpmd/field.h"

extern int proto_madpmd;

/* Preferences */
extern gboolean madpmd_pref_take_roce;
extern gboolean madpmd_pref_check_crc;
extern gboolean madpmd_pref_reassemble;
extern gboolean madpmd_pref_decode_ib;

/* Where a MAD came from: matching and reassembly never mix the layers. */
enum madpmd_layer {
	MADPMD_LAYER_WIRE = 0,
	MADPMD_LAYER_UMAD = 1,
	MADPMD_LAYER_BARE = 2,
};

/* "hca1 port 1" from the frame's interface ("hca1/1", or its records'
 * "hca1/1 records"), or NULL. */
const char *madpmd_port_label(packet_info *pinfo);
/* The same as "hca1/1"; *records (may be NULL): the records' interface. */
const char *madpmd_port_name(packet_info *pinfo, gboolean *records);

/* ---- madpmd-columns.c ---------------------------------------------- */
void madpmd_columns_register(void);

/* Packet-scope proto data: the umad record's session (port id) + 1, for
 * matching its MAD. */
#define MADPMD_KEY_UMAD_SESSION	2
/* File-scope proto data of a WC or QP record: the frame that caused it,
 * found in the first pass. */
#define MADPMD_KEY_CAUSE	3
/* File-scope proto data of a CM MAD: what madpmd-cm.c showed for it. */
#define MADPMD_KEY_CM		4
/* Packet-scope proto data: the frame is a madpmd record (its port is its
 * Source, madpmd-columns.c leaves its Info alone). */
#define MADPMD_KEY_RECORD	5
/* Packet-scope proto data of a port event record: the port's LID in
 * effect from that frame on, (LMC << 16 | LID) + 1 (madpmd-columns.c names
 * the LIDs after the port). */
#define MADPMD_KEY_PORT_LID	6

/* First pass: frame pinfo->num carries a BTH (any transport), for the
 * records that point at the packet that caused them. */
void madpmd_note_bth(packet_info *pinfo, guint8 opcode, guint32 dest_qp,
		     guint32 psn);

/* ---- madpmd-transport.c -------------------------------------------- */
void madpmd_transport_register(void);
void madpmd_transport_handoff(void);
/* madpmd_ib: a packet starting with the LRH. */
int madpmd_dissect_ib(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		      void *data);

/* ---- madpmd-link.c ----------------------------------------------------- */
void madpmd_link_register(void);
void madpmd_link_handoff(void);

/* ---- madpmd-mad.c ---------------------------------------------------- */
void madpmd_mad_register(void);
/*
 * Dissect a MAD or a whole (RMPP-reassembled) message at the start of
 * tvb. On the wire, tvb is the 256-byte MAD of one packet and message is
 * FALSE; a umad record's message is the kernel's form (header, first
 * segment, the data of the others) with message TRUE.
 */
int madpmd_dissect_mad(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		       enum madpmd_layer layer, gboolean message);
/* madpmd_mad: a bare MAD handle. */
int madpmd_dissect_bare_mad(tvbuff_t *tvb, packet_info *pinfo,
			    proto_tree *tree, void *data);
const char *madpmd_class_name(guint8 mgmt_class);
const char *madpmd_method_name(guint8 method);

/* ---- madpmd-cm.c ----------------------------------------------------- */
void madpmd_cm_register(void);
/* A CM MAD on the wire (its message at off): its connection, state and
 * the frames of the messages that moved it. */
void madpmd_cm_track(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		     guint16 attr_id, int off);
/* An rdma_cm event record's communication IDs (its own end's first): the
 * frame of the CM MAD that raised the event, or 0. */
guint32 madpmd_cm_event_cause(packet_info *pinfo, guint32 event,
			      guint32 local_id, guint32 remote_id);
void madpmd_cm_add_cause(proto_tree *t, tvbuff_t *tvb, guint32 frame);

/* ---- madpmd-layout.c ------------------------------------------------- */
struct madpmd_lhf;		/* a layout with its registered fields */

/* Register fields for layout l under prefix ("madpmd.smp.nodeinfo"). */
struct madpmd_lhf *madpmd_layout_hf(const struct mpd_layout *l,
				    const char *prefix, const char *title);
void madpmd_layout_register_all(int proto);
/* Add a subtree for the structure at offset (at most max bytes of it are
 * present: fields beyond are not shown). Returns the bytes covered. */
proto_item *madpmd_layout_dissect(const struct madpmd_lhf *lh, tvbuff_t *tvb,
				  int offset, int max, proto_tree *tree,
				  const char *label_fmt, ...)
	G_GNUC_PRINTF(6, 7);
const char *madpmd_layout_title(const struct madpmd_lhf *lh);
int madpmd_layout_len(const struct madpmd_lhf *lh);
/* PortState and PortPhysicalState names, for every field showing them */
extern const value_string madpmd_port_state_vals[];
extern const value_string madpmd_phys_state_vals[];

/* ---- madpmd-stats.c -------------------------------------------------- */
struct madpmd_rtt_tap {
	guint8 mgmt_class;
	guint8 method;		/* of the request */
	guint16 attr_id;
	nstime_t req_time;	/* when the request was seen */
	nstime_t rtt;
};
extern int madpmd_tap;
void madpmd_stats_register(void);

#endif
