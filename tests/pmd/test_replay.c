/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The launcher's replay source in a real EAL without ports: captures
 * written with our pcapng writer and by hand, replayed into mbufs under
 * each spec; frames, skip counts, timing, loops, errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "madpmd/pcapng.h"
#include "replay.h"
#include "tap.h"

#define MS	1000000ull
#define T0	1700000000000000000ull

static struct rte_mempool *pool;
static char dir[64], path_good[128], path_bad[128], path_cut[128];
static uint8_t eth_a[60], eth_b[80], ib_c[120], big[3000], rec[40];

static void
cleanup(void)
{
	unlink(path_good);
	unlink(path_bad);
	unlink(path_cut);
	rmdir(dir);
}

static void
fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/* eth A out on hca1/1 at T0, IB C in on hca2/1 at +1 ms, a record at
 * +2 ms, a bare MAD at +2 ms, eth B in on hca1/1 at +3 ms, a 3000-byte
 * frame at +4 ms */
static int
write_good(void)
{
	struct mpd_pcapng *w = mpd_pcapng_open(path_good);
	int rc = 0;

	if (!w)
		return -1;
	rc |= mpd_pcapng_add_interface(w, MPD_LINKTYPE_ETHERNET, "hca1/1",
				       NULL);
	rc |= mpd_pcapng_add_interface(w, MPD_LINKTYPE_UPPER_PDU, "hca2/1",
				       NULL);
	rc |= mpd_pcapng_write(w, 0, T0, MPD_PCAPNG_DIR_OUT, eth_a,
			       sizeof(eth_a));
	rc |= mpd_pcapng_write_exported(w, 1, T0 + MS, MPD_PCAPNG_DIR_IN,
					"infiniband", MPD_EXP_PDU_NO_PORT,
					MPD_EXP_PDU_NO_PORT, ib_c,
					sizeof(ib_c));
	rc |= mpd_pcapng_write_exported(w, 1, T0 + 2 * MS, 0, "madpmd",
					MPD_EXP_PDU_NO_PORT,
					MPD_EXP_PDU_NO_PORT, rec, sizeof(rec));
	rc |= mpd_pcapng_write_exported(w, 1, T0 + 2 * MS, 0, "madpmd_mad",
					MPD_EXP_PDU_NO_PORT,
					MPD_EXP_PDU_NO_PORT, rec, sizeof(rec));
	rc |= mpd_pcapng_write(w, 0, T0 + 3 * MS, MPD_PCAPNG_DIR_IN, eth_b,
			       sizeof(eth_b));
	rc |= mpd_pcapng_write(w, 0, T0 + 4 * MS, MPD_PCAPNG_DIR_IN, big,
			       sizeof(big));
	rc |= mpd_pcapng_close(w);
	return rc < 0 ? -1 : 0;
}

/* a good file, then a block whose trailing length is wrong */
static int
write_bad(const char *path, bool cut)
{
	FILE *in = fopen(path_good, "rb"), *out = fopen(path, "wb");
	uint8_t buf[8192];
	size_t n, off = 0;
	uint32_t len;
	int i;

	if (!in || !out)
		return -1;
	n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	/* keep the SHB, both IDBs and the first EPB (our writer's blocks
	 * are in our byte order); spoil the second */
	for (i = 0; i < 4; i++) {
		memcpy(&len, buf + off + 4, 4);
		off += len;
	}
	if (cut) {
		n = off + 30;
	} else {
		memcpy(&len, buf + off + 4, 4);
		len += 4;	/* its trailer is now the next block's type */
		memcpy(buf + off + 4, &len, 4);
	}
	if (fwrite(buf, 1, n, out) != n)
		return -1;
	return fclose(out);
}

static struct rte_mbuf *m[64];

static uint16_t
burst(struct fab_replay *r, uint64_t now, uint16_t n)
{
	return fab_replay_burst(r, now, pool, m, n);
}

static void
free_all(uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		rte_pktmbuf_free(m[i]);
}

static bool
is_frame(uint16_t i, const void *want, size_t len)
{
	return rte_pktmbuf_data_len(m[i]) == len &&
	       !memcmp(rte_pktmbuf_mtod(m[i], const void *), want, len);
}

static void
summary(const struct fab_replay *r, char *out, size_t cap)
{
	FILE *f = fmemopen(out, cap, "w");

	out[0] = 0;
	if (!f)
		return;
	fab_replay_summary(r, f);
	fclose(f);
}

static struct fab_replay *
open_spec(const char *opts, enum mpd_link link)
{
	char spec[256];

	snprintf(spec, sizeof(spec), "%s%s", path_good, opts);
	return fab_replay_open(spec, link);
}

static void
test_fast(void)
{
	struct fab_replay *r = open_spec("", MPD_LINK_ROCE_V2);
	char s[512];
	uint16_t n;

	if (!ok(r != NULL, "fast RoCE: opens"))
		return;
	ok(!fab_replay_done(r), "fast RoCE: not done before a burst");
	n = burst(r, 0, 64);
	is_int(n, 2, "fast RoCE: both Ethernet frames at once");
	ok(n == 2 && is_frame(0, eth_a, sizeof(eth_a)) &&
	   is_frame(1, eth_b, sizeof(eth_b)), "fast RoCE: their bytes");
	free_all(n);
	ok(fab_replay_done(r), "fast RoCE: done");
	is_int(burst(r, 0, 64), 0, "fast RoCE: nothing more");
	summary(r, s, sizeof(s));
	ok(strstr(s, "2 frames sent, 4 skipped (1 of the other link kind, 1 records, 1 not a frame, 1 too large for an mbuf)") &&
	   !strstr(s, "stopped"), "fast RoCE: %s", s);
	fab_replay_close(r);

	r = open_spec("", MPD_LINK_IB);
	if (!ok(r != NULL, "fast IB: opens"))
		return;
	n = burst(r, 0, 1);
	ok(n == 1 && is_frame(0, ib_c, sizeof(ib_c)),
	   "fast IB: the IB packet, without its TLVs");
	free_all(n);
	ok(fab_replay_done(r), "fast IB: done with the last frame");
	fab_replay_close(r);
}

static void
test_filters(void)
{
	struct fab_replay *r;
	char s[512];
	uint16_t n;

	r = open_spec(",from=hca1/1", MPD_LINK_ROCE_V2);
	if (ok(r != NULL, "from=hca1/1: opens")) {
		n = burst(r, 0, 64);
		ok(n == 1 && is_frame(0, eth_b, sizeof(eth_b)),
		   "from=hca1/1: only what it received");
		free_all(n);
		summary(r, s, sizeof(s));
		ok(strstr(s, "1 frames sent, 5 skipped (4 filtered out, 1 too large for an mbuf)"),
		   "from=hca1/1: %s", s);
		fab_replay_close(r);
	}
	r = open_spec(",from=hca1/1,dir=out,speed=fast", MPD_LINK_ROCE_V1);
	if (ok(r != NULL, "from=hca1/1,dir=out: opens")) {
		n = burst(r, 0, 64);
		ok(n == 1 && is_frame(0, eth_a, sizeof(eth_a)),
		   "from=hca1/1,dir=out: what it sent");
		free_all(n);
		summary(r, s, sizeof(s));
		ok(strstr(s, "1 frames sent, 5 skipped (5 filtered out)"),
		   "from=hca1/1,dir=out: %s", s);
		fab_replay_close(r);
	}
	r = open_spec(",from=hca3/1", MPD_LINK_ROCE_V2);
	if (ok(r != NULL, "from=hca3/1 (no such interface): opens")) {
		n = burst(r, 0, 64);
		ok(n == 0, "from=hca3/1: nothing sent");
		summary(r, s, sizeof(s));
		ok(strstr(s, "; from=hca3/1 matches no frame: the capture's interfaces are hca1/1, hca2/1") != NULL,
		   "from=hca3/1: the summary lists the capture's interfaces: %s", s);
		ok(fab_replay_failed(r),
		   "from=hca3/1: a failed replay (madpmd's exit status 2)");
		fab_replay_close(r);
	}
	r = open_spec(",dir=in", MPD_LINK_IB);
	if (ok(r != NULL, "dir=in on IB: opens")) {
		n = burst(r, 0, 64);
		ok(n == 1 && is_frame(0, ib_c, sizeof(ib_c)),
		   "dir=in on IB: the IB packet");
		free_all(n);
		fab_replay_close(r);
	}
	r = open_spec(",from=nosuch", MPD_LINK_IB);
	if (ok(r != NULL, "from=nosuch: opens")) {
		is_int(burst(r, 0, 64), 0, "from=nosuch: nothing");
		ok(fab_replay_done(r), "from=nosuch: done");
		fab_replay_close(r);
	}
}

static void
test_timed(void)
{
	struct fab_replay *r = open_spec(",speed=2", MPD_LINK_ROCE_V2);
	uint64_t t = 5000;
	uint16_t n;

	if (!ok(r != NULL, "speed=2: opens"))
		return;
	n = burst(r, t, 64);
	ok(n == 1 && is_frame(0, eth_a, sizeof(eth_a)),
	   "speed=2: the first frame at once");
	free_all(n);
	/* eth B is 3 ms later in the capture: 1.5 ms at twice the speed */
	n = burst(r, t + 1499999, 64);
	is_int(n, 0, "speed=2: not yet at 1.499999 ms");
	free_all(n);
	n = burst(r, t + 1500000, 64);
	ok(n == 1 && is_frame(0, eth_b, sizeof(eth_b)),
	   "speed=2: the second at 1.5 ms");
	free_all(n);
	ok(fab_replay_done(r), "speed=2: done");
	fab_replay_close(r);

	r = open_spec(",speed=timed,loop=2", MPD_LINK_ROCE_V2);
	if (!ok(r != NULL, "timed, loop=2: opens"))
		return;
	n = burst(r, t, 64);
	is_int(n, 1, "timed: one frame at first");
	free_all(n);
	n = burst(r, t + 2999999, 64);
	is_int(n, 0, "timed: nothing before 3 ms");
	n = burst(r, t + 3 * MS, 64);
	/* the second pass starts at once after the first */
	is_int(n, 2, "timed: the second frame, then the next pass's first");
	free_all(n);
	n = burst(r, t + 4 * MS, 64);
	is_int(n, 0, "timed: second pass keeps its own gaps");
	n = burst(r, t + 6 * MS, 64);
	is_int(n, 1, "timed: second pass's second frame");
	free_all(n);
	ok(fab_replay_done(r), "timed, loop=2: done");
	fab_replay_close(r);
}

static void
test_loops(void)
{
	struct fab_replay *r = open_spec(",loop=3", MPD_LINK_ROCE_V2);
	char s[512];
	uint16_t n, total = 0;

	if (!ok(r != NULL, "loop=3: opens"))
		return;
	while (!fab_replay_done(r) && (n = burst(r, 0, 4)) > 0) {
		total += n;
		free_all(n);
	}
	is_int(total, 6, "loop=3: three passes of two frames");
	summary(r, s, sizeof(s));
	ok(strstr(s, "6 frames sent") && strstr(s, "3 of 3 passes"), "loop=3: %s",
	   s);
	fab_replay_close(r);

	r = open_spec(",loop=0,from=nosuch", MPD_LINK_ROCE_V2);
	if (ok(r != NULL, "loop=0 with nothing to send: opens")) {
		is_int(burst(r, 0, 4), 0, "loop=0 with nothing: no frames");
		ok(fab_replay_done(r), "loop=0 with nothing: does not spin");
		fab_replay_close(r);
	}
	r = open_spec(",loop=0", MPD_LINK_ROCE_V2);
	if (ok(r != NULL, "loop=0: opens")) {
		for (total = 0; total < 1000; total += n) {
			n = burst(r, 0, 64);
			free_all(n);
			if (!n)
				break;
		}
		ok(total >= 1000 && !fab_replay_done(r),
		   "loop=0: goes on (%u frames)", total);
		fab_replay_close(r);
	}
}

static void
progress(const struct fab_replay *r, double seconds, char *out, size_t cap)
{
	FILE *f = fmemopen(out, cap, "w");

	out[0] = 0;
	if (!f)
		return;
	fab_replay_progress(r, seconds, f);
	fclose(f);
}

/* The launcher's progress line on long runs, as the main thread prints it */
static void
test_progress(void)
{
	struct fab_replay *r = open_spec(",loop=3", MPD_LINK_ROCE_V2);
	char s[512];
	unsigned int pct = 0;
	const char *at;
	uint16_t n;

	if (!ok(r != NULL, "progress: opens"))
		return;
	progress(r, 0, s, sizeof(s));
	ok(strstr(s, "0 frames sent, not started after 0 s") != NULL,
	   "progress before the first frame: %s", s);
	n = burst(r, 0, 1);
	free_all(n);
	progress(r, 5, s, sizeof(s));
	at = strstr(s, "% of the file");
	if (at)
		while (at > s && at[-1] >= '0' && at[-1] <= '9')
			at--;
	if (at)
		pct = (unsigned int)atoi(at);
	ok(n == 1 && strstr(s, "1 frames sent, ") && at && pct > 0 &&
	   pct < 100 && strstr(s, ", pass 1 of 3, 5 s\n"),
	   "progress after one frame: %s", s);
	do {
		n = burst(r, 0, 64);
		free_all(n);
	} while (n);
	progress(r, 10, s, sizeof(s));
	ok(strstr(s, "6 frames sent, 100% of the file, pass 3 of 3, 10 s") != NULL,
	   "progress at the end: %s", s);
	fab_replay_close(r);

	r = open_spec(",after=active", MPD_LINK_ROCE_V2);
	if (ok(r != NULL, "progress, after=active: opens")) {
		progress(r, 15, s, sizeof(s));
		ok(strstr(s, "waiting for the port to be Active after 15 s") != NULL,
		   "progress of a replay held until Active: %s", s);
		fab_replay_close(r);
	}
}

static void
test_bad_file(void)
{
	struct fab_replay *r;
	char spec[256], s[768];
	uint16_t n;

	r = fab_replay_open(path_bad, MPD_LINK_ROCE_V2);
	if (ok(r != NULL, "damaged file: opens")) {
		n = burst(r, 0, 64);
		ok(n == 1 && is_frame(0, eth_a, sizeof(eth_a)),
		   "damaged file: the frame before the damage");
		free_all(n);
		ok(fab_replay_done(r), "damaged file: done");
		summary(r, s, sizeof(s));
		ok(strstr(s, "1 frames sent") && strstr(s, "stopped: ") &&
		   strstr(s, "trailing length"), "damaged file: %s", s);
		fab_replay_close(r);
	}
	snprintf(spec, sizeof(spec), "%s,loop=5", path_cut);
	r = fab_replay_open(spec, MPD_LINK_ROCE_V2);
	if (ok(r != NULL, "cut file: opens")) {
		n = burst(r, 0, 64);
		is_int(n, 1, "cut file: one frame, one pass");
		free_all(n);
		summary(r, s, sizeof(s));
		ok(fab_replay_done(r) && strstr(s, "cut short"),
		   "cut file: %s", s);
		fab_replay_close(r);
	}
}

static void
test_bad_specs(void)
{
	static const char *const opts[] = {
		",speed=0", ",speed=-1", ",speed=slow", ",speed=", ",dir=up",
		",loop=-1", ",loop=x", ",from=", ",frm=hca1/1",
		",speed=fast,bogus=1",
	};
	char spec[256];
	unsigned int i;

	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		snprintf(spec, sizeof(spec), "%s%s", path_good, opts[i]);
		ok(fab_replay_open(spec, MPD_LINK_IB) == NULL,
		   "refused: %s", opts[i]);
	}
	ok(fab_replay_open("/nonexistent/x.pcap", MPD_LINK_IB) == NULL,
	   "refused: a missing file");
	ok(fab_replay_open("", MPD_LINK_IB) == NULL, "refused: no file");
	ok(fab_replay_open(",speed=fast", MPD_LINK_IB) == NULL,
	   "refused: options without a file");
	ok(fab_replay_open("-,loop=2", MPD_LINK_IB) == NULL,
	   "refused: standard input twice");
}

int
main(int argc, char **argv)
{
	char prefix[64], run_dir[256];
	char *eal[] = {
		argv[0], (char *)"--no-huge", (char *)"--no-pci",
		(char *)"-m", (char *)"128", (char *)"--no-telemetry",
		(char *)"--no-shconf", (char *)"-l", (char *)"0",
		(char *)"--log-level=*:error", prefix, NULL,
	};

	(void)argc;
	snprintf(prefix, sizeof(prefix), "--file-prefix=madpmd-replay-%d",
		 (int)getpid());
	snprintf(dir, sizeof(dir), "/tmp/madpmd-test-replay-XXXXXX");
	if (!mkdtemp(dir)) {
		tap_diag("mkdtemp: %s", strerror(errno));
		return 1;
	}
	snprintf(path_good, sizeof(path_good), "%s/good.pcapng", dir);
	snprintf(path_bad, sizeof(path_bad), "%s/bad.pcapng", dir);
	snprintf(path_cut, sizeof(path_cut), "%s/cut.pcapng", dir);
	atexit(cleanup);
	fill(eth_a, sizeof(eth_a), 1);
	fill(eth_b, sizeof(eth_b), 2);
	fill(ib_c, sizeof(ib_c), 3);
	fill(big, sizeof(big), 4);
	fill(rec, sizeof(rec), 5);
	if (write_good() < 0 || write_bad(path_bad, false) < 0 ||
	    write_bad(path_cut, true) < 0) {
		tap_diag("cannot write the captures");
		return 1;
	}
	if (rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])) - 1, eal) < 0) {
		tap_diag("rte_eal_init failed");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("replay_test", 255, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       rte_socket_id());
	if (!ok(pool != NULL, "mempool"))
		return tap_done();
	test_fast();
	test_filters();
	test_timed();
	test_loops();
	test_progress();
	test_bad_file();
	test_bad_specs();
	is_int(rte_mempool_avail_count(pool), 255, "every mbuf back");
	rte_mempool_free(pool);
	/* EAL leaves its (empty, with --no-shconf) runtime directory */
	snprintf(run_dir, sizeof(run_dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	rmdir(run_dir);
	return tap_done();
}
