/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the madpmd Wireshark plugin's entry points, inside
 * libwireshark as tshark runs them. The plugin's sources are linked in
 * (instrumented) and registered as a static plugin before epan_init();
 * each input is one frame, the first byte picking the entry:
 *   0  "madpmd"      a capture record (exported PDU naming it)
 *   1  "madpmd_mad"  a bare MAD
 *   2  "madpmd_ib"   a native IB packet, LRH first
 *   3  an Ethernet frame (RoCEv1 by ethertype, RoCEv2 by UDP port 4791)
 * The session lives across inputs, as in a capture file (RMPP
 * reassembly and request/response matching keep state), and is renewed
 * every SESSION_FRAMES frames, as when another file is opened, so that
 * its file-scope memory stays bounded. Run with
 * ASAN_OPTIONS=detect_leaks=0: libwireshark keeps its registrations to
 * the end.
 *
 * A renewal is not free: in libwireshark 4.0, epan_new() ->
 * init_dissection() -> host_name_lookup_reset() reloads the name
 * resolution tables (manuf, well-known addresses, services) into new
 * maps in wmem_epan_scope(), and addr_resolv_cleanup() only forgets the
 * old ones, with the MAC and IP entries the session added: about 10 MB
 * stay live per renewal until epan_cleanup() (and epan_init() cannot be
 * run again after it). Hence a renewal every 200,000 frames (about 50
 * bytes a frame), not every 20,000 (about 550).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <epan/epan.h>
#include <epan/epan_dissect.h>
#include <epan/frame_data.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/tvbuff.h>
#include <wiretap/wtap.h>
#include <wsutil/exported_pdu_tlvs.h>
#include <wsutil/privileges.h>
#include <wsutil/report_message.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* packet-madpmd.c, linked in */
void plugin_register(void);

#define SESSION_FRAMES	200000

static epan_t *session;
static guint32 frame_num;

static void
vfail(const char *fmt, va_list ap)
{
	(void)fmt;
	(void)ap;
}

static void
open_fail(const char *name, int err, gboolean for_writing)
{
	(void)name;
	(void)err;
	(void)for_writing;
}

static void
rw_fail(const char *name, int err)
{
	(void)name;
	(void)err;
}

static const struct report_message_routines quiet = {
	.vreport_failure = vfail,
	.vreport_warning = vfail,
	.report_open_failure = open_fail,
	.report_read_failure = rw_fail,
	.report_write_failure = rw_fail,
};

static const nstime_t *
frame_ts(struct packet_provider_data *prov, guint32 num)
{
	static const nstime_t zero;

	(void)prov;
	(void)num;
	return &zero;
}

static const struct packet_provider_funcs funcs = {
	.get_frame_ts = frame_ts,
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* allocations ASan can see, nothing kept in pools */
	g_setenv("WIRESHARK_DEBUG_WMEM_OVERRIDE", "simple", 0);
	g_setenv("G_SLICE", "always-malloc", 0);
	/* no user's or system's profile, no other plugins */
	g_setenv("WIRESHARK_CONFIG_DIR", "/nonexistent", 1);
	g_setenv("WIRESHARK_PLUGIN_DIR", "/nonexistent", 1);
	init_process_policies();
	init_report_message("fuzz_dissector", &quiet);
	wtap_init(FALSE);
	plugin_register();
	if (!epan_init(NULL, NULL, FALSE)) {
		fprintf(stderr, "fuzz_dissector: epan_init failed\n");
		abort();
	}
	epan_load_settings();
	prefs_apply_all();
	/* the plugin must be there: a harness without it fuzzes nothing */
	if (!find_dissector("madpmd") || !find_dissector("madpmd_ib") ||
	    !find_dissector("madpmd_mad")) {
		fprintf(stderr, "fuzz_dissector: the madpmd dissectors are not registered\n");
		abort();
	}
	session = epan_new(NULL, &funcs);
	if (!session)
		abort();
	return 0;
}

static void
dissect(int encap, const uint8_t *frame, size_t len)
{
	epan_dissect_t *edt;
	frame_data fd;
	wtap_rec rec;
	tvbuff_t *tvb;

	wtap_rec_init(&rec);
	rec.rec_type = REC_TYPE_PACKET;
	rec.presence_flags = WTAP_HAS_TS | WTAP_HAS_CAP_LEN;
	rec.ts.secs = (time_t)frame_num;
	rec.rec_header.packet_header.caplen = (guint32)len;
	rec.rec_header.packet_header.len = (guint32)len;
	rec.rec_header.packet_header.pkt_encap = encap;
	frame_data_init(&fd, ++frame_num, &rec, 0, 0);
	edt = epan_dissect_new(session, TRUE, TRUE);
	tvb = tvb_new_real_data(frame, (guint)len, (gint)len);
	epan_dissect_run(edt, WTAP_FILE_TYPE_SUBTYPE_UNKNOWN, &rec, tvb, &fd,
			 NULL);
	epan_dissect_free(edt);
	frame_data_destroy(&fd);
	wtap_rec_cleanup(&rec);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"madpmd", "madpmd_mad", "madpmd_ib",
	};
	unsigned int entry;
	uint8_t *f;
	size_t n, hl, len;

	if (size < 1 || size > 65536)
		return 0;
	if (frame_num >= SESSION_FRAMES) {
		epan_free(session);
		session = epan_new(NULL, &funcs);
		frame_num = 0;
	}
	entry = data[0] % 4;
	data++;
	size--;
	if (entry == 3) {
		f = g_malloc(size ? size : 1);
		memcpy(f, data, size);
		dissect(WTAP_ENCAP_ETHERNET, f, size);
		g_free(f);
		return 0;
	}
	/* exported PDU: dissector name TLV (padded to 4), end of options */
	n = strlen(names[entry]);
	hl = 4 + ((n + 3) & ~(size_t)3) + 4;
	len = hl + size;
	f = g_malloc0(len);
	f[0] = 0;
	f[1] = EXP_PDU_TAG_DISSECTOR_NAME;
	f[2] = (uint8_t)(n >> 8);
	f[3] = (uint8_t)n;
	memcpy(f + 4, names[entry], n);
	memcpy(f + hl, data, size);
	dissect(WTAP_ENCAP_WIRESHARK_UPPER_PDU, f, len);
	g_free(f);
	return 0;
}
