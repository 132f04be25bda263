/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Request/response matching by TID: madpmd.response_in on the request,
 * madpmd.response_to and madpmd.time (the delay written into the capture)
 * on the response, for wire MADs on RoCEv2 and IB and for umad records;
 * an unanswered request has no response_in. Then "tshark -z madpmd,rtt"
 * prints the per class/method table with the counts and times written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "madpmd/mad.h"
#include "madpmd/pcapng.h"
#include "madpmd/records.h"
#include "dtest.h"
#include "tap.h"

static void
mk_mad(uint8_t *mad, uint8_t cls, uint8_t method, uint16_t attr, uint64_t tid)
{
	struct mpd_mad m;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = cls;
	m.hdr.class_version = cls == MPD_CLASS_SUBN_ADM ? 2 : 1;
	m.hdr.method = method;
	m.hdr.tid = tid;
	m.hdr.attr_id = attr;
	if (cls == MPD_CLASS_SUBN_ADM)
		m.rmpp.version = 1;
	mpd_mad_encode(&m, NULL, 0, mad, MPD_MAD_LEN);
}

static int
send_mad(struct oracle *o, const char *label, enum mpd_link link,
	 const uint8_t *mad, bool back, uint64_t ts)
{
	struct mpd_pkt p;
	bool smp = mad[1] == MPD_CLASS_SUBN_LID;

	oracle_pkt_init(&p, link, smp ? 0 : 1, smp ? 0 : 1);
	p.has_grh = link == MPD_LINK_ROCE_V1;
	memset(p.grh.sgid + 8, 0, 8);
	memset(p.grh.dgid + 8, 0, 8);
	p.grh.sgid[15] = back ? 2 : 9;
	p.grh.dgid[15] = back ? 9 : 2;
	p.lrh.slid = back ? 2 : 9;
	p.lrh.dlid = back ? 9 : 2;
	p.ip_ver = 4;
	memcpy(p.ip4.src, back ? "\x0a\0\0\x02" : "\x0a\0\0\x09", 4);
	memcpy(p.ip4.dst, back ? "\x0a\0\0\x09" : "\x0a\0\0\x02", 4);
	return dtest_add_pkt(o, label, &p, mad, MPD_MAD_LEN, ts, -1, NULL,
			     NULL);
}

static void
expect_time(struct oracle *o, int fr, uint64_t ns)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu.%09llu",
		 (unsigned long long)(ns / 1000000000u),
		 (unsigned long long)(ns % 1000000000u));
	oracle_expect_str(o, fr, "madpmd.time", 0, s);
}

static void
pair(struct oracle *o, enum mpd_link link, uint8_t cls, uint8_t method,
     uint16_t attr, const char *label)
{
	uint8_t mad[MPD_MAD_LEN];
	uint64_t tid = rnd64(), d = 1000 + rnd64() % 5000000;
	uint64_t t0 = dtest_next_ts(1000000);
	char l[96];
	int rq, rs;

	mk_mad(mad, cls, method, attr, tid);
	snprintf(l, sizeof(l), "%s request", label);
	rq = send_mad(o, l, link, mad, false, t0);
	mk_mad(mad, cls, MPD_METHOD_GET_RESP, attr, tid);
	snprintf(l, sizeof(l), "%s response after %llu ns", label,
		 (unsigned long long)d);
	rs = send_mad(o, l, link, mad, true, dtest_next_ts(d));
	oracle_expect_uint(o, rq, "madpmd.response_in", 0, (uint64_t)rs);
	oracle_expect_absent(o, rq, "madpmd.response_to");
	oracle_expect_uint(o, rs, "madpmd.response_to", 0, (uint64_t)rq);
	oracle_expect_absent(o, rs, "madpmd.response_in");
	expect_time(o, rs, d);
}

/*
 * A client's umad send and its receive. agent_bits: the upper 32 TID bits
 * of the receive (the MAD layer's agent bits, as the wire has them) where
 * the send had the client's own.
 */
static void
umad_pair(struct oracle *o, uint32_t agent_bits)
{
	struct mpd_rec_hdr h = { .port = 1 };
	struct mpd_rec_umad u;
	uint8_t mad[MPD_MAD_LEN];
	uint64_t tid = rnd64() & 0xffffffffu, d = 1000 + rnd64() % 1000000;
	uint32_t if_up;
	struct mpd_pcapng *w = oracle_writer(o, NULL, &if_up);
	int rq, rs;

	memset(&u, 0, sizeof(u));
	u.direction = MPD_REC_UMAD_SEND;
	u.length = MPD_MAD_LEN;
	mk_mad(mad, MPD_CLASS_PERF, MPD_METHOD_GET, 0x12, tid);
	mpd_rec_write_umad(w, if_up, dtest_next_ts(1000000), &h, &u, mad,
			   sizeof(mad));
	rq = oracle_add_written(o, "umad send Get");
	u.direction = MPD_REC_UMAD_RECV;
	mk_mad(mad, MPD_CLASS_PERF, MPD_METHOD_GET_RESP, 0x12,
	       tid | (uint64_t)agent_bits << 32);
	mpd_rec_write_umad(w, if_up, dtest_next_ts(d), &h, &u, mad,
			   sizeof(mad));
	rs = oracle_add_written(o, "umad recv GetResp");
	oracle_expect_uint(o, rq, "madpmd.response_in", 0, (uint64_t)rs);
	oracle_expect_uint(o, rs, "madpmd.response_to", 0, (uint64_t)rq);
	expect_time(o, rs, d);
}

/*
 * -z madpmd,srt: the service response time tables (one per class, one row
 * per request method), times in seconds.
 */
static void
srt_table(const char *path)
{
	static const struct {
		const char *table, *method;
		unsigned int count;
		double min, max, avg;
	} want[] = {
		{ "madpmd.mad.mgmtclass == 0x03", "Get (0x01)", 2, 50e-6, 150e-6, 100e-6 },
		{ "madpmd.mad.mgmtclass == 0x04", "Get (0x01)", 3, 100e-6, 300e-6, 200e-6 },
		{ "madpmd.mad.mgmtclass == 0x04", "Set (0x02)", 1, 70e-6, 70e-6, 70e-6 },
	};
	const char *args[] = { "-q", "-z", "madpmd,srt", NULL };
	char *out = dtest_tshark(path, args);
	size_t i;

	if (!ok(out && strstr(out, "madpmd SRT Statistics"),
		"-z madpmd,srt prints the service response time tables")) {
		if (out)
			tap_diag("%s", out);
		free(out);
		return;
	}
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *t = strstr(out, want[i].table), *end, *row;
		unsigned int idx = 0, count = 0;
		double mn = -1, mx = -1, avg = -1;

		end = t ? strstr(t + 1, "Filter:") : NULL;
		row = t ? strstr(t, want[i].method) : NULL;
		if (row && (!end || row < end)) {
			/* back to the line's start: "Index  Method  Calls ..." */
			while (row > t && row[-1] != '\n')
				row--;
			if (sscanf(row, "%u", &idx) != 1)
				row = NULL;
			else
				row = strstr(row, want[i].method) +
				      strlen(want[i].method);
		} else {
			row = NULL;
		}
		if (row)
			sscanf(row, "%u %lf %lf %lf", &count, &mn, &mx, &avg);
		ok(row && count == want[i].count &&
		   mn > want[i].min - 1e-6 && mn < want[i].min + 1e-6 &&
		   mx > want[i].max - 1e-6 && mx < want[i].max + 1e-6 &&
		   avg > want[i].avg - 1e-6 && avg < want[i].avg + 1e-6,
		   "srt %s, row %u %s: calls %u min %.6f max %.6f avg %.6f s",
		   want[i].table, idx, want[i].method, count, mn, mx, avg);
	}
	free(out);
}

/* -z madpmd,rtt on a capture with known delays */
static void
rtt_table(void)
{
	static const struct {
		uint8_t cls, method;
		uint16_t attr;
		uint64_t d_ns;
	} x[] = {
		{ MPD_CLASS_PERF, MPD_METHOD_GET, 0x12, 100000 },
		{ MPD_CLASS_PERF, MPD_METHOD_GET, 0x12, 300000 },
		{ MPD_CLASS_PERF, MPD_METHOD_GET, 0x1d, 200000 },
		{ MPD_CLASS_SUBN_ADM, MPD_METHOD_GET, 0x35, 50000 },
		{ MPD_CLASS_SUBN_ADM, MPD_METHOD_GET, 0x11, 150000 },
		{ MPD_CLASS_PERF, MPD_METHOD_SET, 0x12, 70000 },
	};
	static const struct {
		const char *cls, *method;
		unsigned int count;
		double min, max, avg;
	} want[] = {
		{ "SubnAdm (0x03)", "Get (0x01)", 2, 0.05, 0.15, 0.1 },
		{ "PerfMgt (0x04)", "Get (0x01)", 3, 0.1, 0.3, 0.2 },
		{ "PerfMgt (0x04)", "Set (0x02)", 1, 0.07, 0.07, 0.07 },
	};
	char dir[] = "/tmp/madpmd-rtt-XXXXXX", path[64];
	const char *args[] = { "-q", "-z", "madpmd,rtt", NULL };
	struct mpd_pcapng *w;
	uint8_t mad[MPD_MAD_LEN], frame[512];
	uint64_t ts = 1700000000000000000ull;
	char *out;
	size_t i;
	int eth;

	if (!ok(mkdtemp(dir) != NULL, "rtt capture directory"))
		return;
	chmod(dir, 0755);
	snprintf(path, sizeof(path), "%s/rtt.pcapng", dir);
	w = mpd_pcapng_open(path);
	eth = mpd_pcapng_add_interface(w, MPD_LINKTYPE_ETHERNET, "roce", NULL);
	for (i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
		uint64_t tid = 0x1000 + i;
		int k;

		for (k = 0; k < 2; k++) {
			struct mpd_pkt p;
			int n;

			mk_mad(mad, x[i].cls, k ? MPD_METHOD_GET_RESP :
			       x[i].method, x[i].attr, tid);
			oracle_pkt_init(&p, MPD_LINK_ROCE_V2, 1, 1);
			p.ip_ver = 4;
			memcpy(p.ip4.src, k ? "\x0a\0\0\x02" : "\x0a\0\0\x09", 4);
			memcpy(p.ip4.dst, k ? "\x0a\0\0\x09" : "\x0a\0\0\x02", 4);
			n = mpd_pkt_encode(&p, mad, sizeof(mad), frame,
					   sizeof(frame));
			ts += k ? x[i].d_ns : 1000000;
			mpd_pcapng_write(w, (uint32_t)eth, ts,
					 MPD_PCAPNG_DIR_OUT, frame, (size_t)n);
		}
	}
	ok(mpd_pcapng_close(w) == 0, "rtt capture written");
	chmod(path, 0644);
	out = dtest_tshark(path, args);
	if (ok(out && strstr(out, "MAD response times (madpmd)"),
	       "-z madpmd,rtt prints its table")) {
		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			char prefix[64];
			const char *line;
			unsigned int count = 0;
			double mn = -1, mx = -1, avg = -1;

			snprintf(prefix, sizeof(prefix), "%s", want[i].cls);
			line = out;
			while ((line = strstr(line, prefix)) != NULL) {
				const char *m = line + strlen(prefix);

				while (*m == ' ')
					m++;
				if (!strncmp(m, want[i].method,
					     strlen(want[i].method))) {
					m += strlen(want[i].method);
					if (sscanf(m, "%u %lf %lf %lf", &count,
						   &mn, &mx, &avg) == 4)
						break;
				}
				line++;
			}
			ok(line && count == want[i].count &&
			   mn > want[i].min - 1e-6 && mn < want[i].min + 1e-6 &&
			   mx > want[i].max - 1e-6 && mx < want[i].max + 1e-6 &&
			   avg > want[i].avg - 1e-6 && avg < want[i].avg + 1e-6,
			   "rtt row %s %s: count %u min %.6f max %.6f avg %.6f",
			   want[i].cls, want[i].method, count, mn, mx, avg);
		}
	} else if (out) {
		tap_diag("%s", out);
	}
	free(out);
	srt_table(path);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	uint8_t mad[MPD_MAD_LEN];
	struct oracle *o;
	int fr;

	if (!dtest_init("match"))
		return 0;
	o = dtest_oracle("match");
	if (!ok(o != NULL, "oracle capture created"))
		return tap_done();
	oracle_add_tshark_arg(o, "-2");
	pair(o, MPD_LINK_ROCE_V2, MPD_CLASS_PERF, MPD_METHOD_GET, 0x12,
	     "RoCEv2 PerfMgt Get");
	pair(o, MPD_LINK_ROCE_V2, MPD_CLASS_SUBN_ADM, MPD_METHOD_GET, 0x35,
	     "RoCEv2 SA Get");
	pair(o, MPD_LINK_ROCE_V1, MPD_CLASS_PERF, MPD_METHOD_SET, 0x12,
	     "RoCEv1 PerfMgt Set");
	pair(o, MPD_LINK_IB, MPD_CLASS_SUBN_LID, MPD_METHOD_GET, 0x11,
	     "IB SubnGet(NodeInfo)");
	pair(o, MPD_LINK_IB, MPD_CLASS_PERF, MPD_METHOD_GET, 0x1d,
	     "IB PerfMgt Get");
	/* unanswered */
	mk_mad(mad, MPD_CLASS_PERF, MPD_METHOD_GET, 0x12, rnd64());
	fr = send_mad(o, "unanswered Get", MPD_LINK_ROCE_V2, mad, false,
		      dtest_next_ts(0));
	oracle_expect_absent(o, fr, "madpmd.response_in");
	umad_pair(o, 0);
	umad_pair(o, 0x0e | (uint32_t)(rnd64() & 0xffff) << 8);
	/* the same lower 32 bits on the wire: not matched with the umad */
	mk_mad(mad, MPD_CLASS_PERF, MPD_METHOD_GET, 0x12, 0x2200000077ull);
	fr = send_mad(o, "RoCEv2 Get, TID low 0x77", MPD_LINK_ROCE_V2, mad,
		      false, dtest_next_ts(1000));
	mk_mad(mad, MPD_CLASS_PERF, MPD_METHOD_GET_RESP, 0x12, 0x3300000077ull);
	fr = send_mad(o, "RoCEv2 GetResp, other upper TID bits",
		      MPD_LINK_ROCE_V2, mad, true, dtest_next_ts(1000));
	oracle_expect_absent(o, fr, "madpmd.response_to");
	oracle_run(o);
	oracle_free(o);
	rtt_table();
	return tap_done();
}
