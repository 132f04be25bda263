/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MAD round trips through libibumad: SMP Get(NodeInfo) to another port,
 * directed route along a path (default 0,1: the HCA at the other end of
 * port 1) or LID-routed (-L: to that port's LID, which needs an SM to
 * have given LIDs out; -l: to a LID given), with 1 and with 32 MADs
 * outstanding. Linked against rdma-core's libibumad, so
 * the same binary runs over madpmd (madpmd-run puts the drop-in first on
 * the library path) and over ibsim (LD_PRELOAD=libumad2sim.so).
 *
 *   bench_umad [-t seconds] [-w window]... [-W warm-up ms] [-C ca] [-P port]
 *              [-D path] [-L | -l lid] [-s]
 *
 * One line per window on standard output:
 *   window=W rate=MADS_PER_S p50_us=X p99_us=Y n=N timeouts=T errors=E
 * Latency is send to matching receive (by TID), whatever else is in flight.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/umad.h>

#include "madpmd/clock.h"
#include "lat_log.h"

#define MAD_LEN		256
#define MAX_WINDOW	256	/* slots are the TID's low byte */
#define MAX_WINDOWS	8
#define MAX_HOPS	63
#define SEND_TIMEOUT_MS	1000
#define RECV_TIMEOUT_MS	1000

#define CLASS_SUBN_LID	0x01
#define CLASS_SUBN_DR	0x81
#define METHOD_GET	0x01
#define METHOD_GET_RESP	0x81
#define ATTR_NODE_INFO	0x0011
#define ATTR_PORT_INFO	0x0015
#define LID_PERMISSIVE	0xffff

struct slot {
	uint32_t tid;		/* low 32 bits: the kernel owns the high ones */
	uint64_t sent_ns;
	int busy;
};

struct bench {
	int fd;
	int agent;		/* directed route */
	int agent_lid;		/* LID-routed */
	int lid;		/* > 0: LID-routed to it; < 0: learn it (-L) */
	uint8_t cls;		/* the class sent */
	uint8_t path[MAX_HOPS + 1];
	int hops;
	void *sbuf;
	void *rbuf;
	struct slot slots[MAX_WINDOW];
	uint32_t gen;
	uint64_t timeouts;
	uint64_t errors;
	int spin;		/* receive by polling with timeout 0 */
};

static void
put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v & 0xffff);
}

static uint16_t
get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get_be32(const uint8_t *p)
{
	return (uint32_t)get_be16(p) << 16 | get_be16(p + 2);
}

/*
 * An SMP Get(attr) as IBA 14.2.1 lays it out: directed route along the
 * path, or LID-routed to b->lid when it is set; only the TID changes per
 * send.
 */
static void
build_smp(struct bench *b, uint16_t attr)
{
	uint8_t *m = umad_get_mad(b->sbuf);

	memset(m, 0, MAD_LEN);
	m[0] = 1;			/* BaseVersion */
	m[2] = 1;			/* ClassVersion */
	m[3] = METHOD_GET;
	put_be16(m + 16, attr);
	if (b->lid > 0) {
		b->cls = CLASS_SUBN_LID;
		m[1] = CLASS_SUBN_LID;
		umad_set_addr(b->sbuf, b->lid, 0, 0, 0);
		return;
	}
	b->cls = CLASS_SUBN_DR;
	m[1] = CLASS_SUBN_DR;
	m[6] = 0;			/* HopPointer */
	m[7] = (uint8_t)b->hops;	/* HopCount */
	put_be16(m + 32, LID_PERMISSIVE);	/* DrSLID */
	put_be16(m + 34, LID_PERMISSIVE);	/* DrDLID */
	memcpy(m + 128, b->path, (size_t)b->hops + 1);	/* InitialPath */
	umad_set_addr(b->sbuf, LID_PERMISSIVE, 0, 0, 0);
}

static int
send_slot(struct bench *b, int i, int window)
{
	uint8_t *m = umad_get_mad(b->sbuf);
	struct slot *s = &b->slots[i];

	/* distinct TIDs: the slot in the low byte, a generation above it */
	s->tid = (++b->gen & 0xffffff) << 8 | (uint32_t)i;
	put_be32(m + 8, 0);
	put_be32(m + 12, s->tid);
	s->sent_ns = mpd_mono_ns();
	s->busy = 1;
	if (umad_send(b->fd, b->cls == CLASS_SUBN_LID ? b->agent_lid : b->agent,
		      b->sbuf, MAD_LEN, SEND_TIMEOUT_MS, 0) < 0) {
		fprintf(stderr, "bench_umad: umad_send: %s (window %d)\n",
			strerror(errno), window);
		s->busy = 0;
		return -1;
	}
	return 0;
}

/*
 * Receive one MAD and free its slot. Returns the slot index, -1 on a
 * receive error or silence, -2 for a MAD that matches nothing in flight.
 * *ns is the slot's latency; *ok whether it was a good GetResp.
 */
static int
recv_one(struct bench *b, uint64_t *ns, int *ok)
{
	int len = MAD_LEN, rc, i;
	uint64_t t;
	uint8_t *m;
	uint32_t tid;

	if (b->spin) {
		/* the data path alone, without the fd's wake-up */
		t = mpd_mono_ns() + (uint64_t)RECV_TIMEOUT_MS * 1000000u;
		do {
			len = MAD_LEN;
			rc = umad_recv(b->fd, b->rbuf, &len, 0);
		} while (rc == -EWOULDBLOCK && mpd_mono_ns() < t);
	} else {
		rc = umad_recv(b->fd, b->rbuf, &len, RECV_TIMEOUT_MS);
	}
	t = mpd_mono_ns();
	if (rc < 0) {
		fprintf(stderr, "bench_umad: umad_recv: %s\n", strerror(-rc));
		return -1;
	}
	m = umad_get_mad(b->rbuf);
	tid = get_be32(m + 12);
	i = (int)(tid & 0xff);
	if (!b->slots[i].busy || b->slots[i].tid != tid)
		return -2;
	b->slots[i].busy = 0;
	*ns = t - b->slots[i].sent_ns;
	/* a send that timed out comes back with the status set */
	if (umad_status(b->rbuf)) {
		b->timeouts++;
		*ok = 0;
	} else if (m[1] != b->cls || m[3] != METHOD_GET_RESP ||
		   (get_be16(m + 4) & 0x7fff)) {
		b->errors++;
		*ok = 0;
	} else {
		*ok = 1;
	}
	return i;
}

/* Collect what is still in flight so the next window starts clean. */
static void
drain(struct bench *b, int window)
{
	uint64_t ns;
	int i, ok, busy;

	for (;;) {
		busy = 0;
		for (i = 0; i < window; i++)
			busy += b->slots[i].busy;
		if (!busy)
			return;
		if (recv_one(b, &ns, &ok) == -1) {
			memset(b->slots, 0, sizeof(b->slots));
			return;
		}
	}
}

/*
 * Keep `window` SMPs in flight for warm_ms, then for secs while logging
 * each latency; print the line. Returns 0, or -1 when the fabric fails.
 */
static int
run_window(struct bench *b, int window, double secs, int warm_ms)
{
	struct lat_log lat = { 0 };
	uint64_t t0, t_meas, t_end, ns, done = 0, t_last;
	uint64_t timeouts0, errors0;
	int i, ok, rc = -1, measuring = 0;

	memset(b->slots, 0, sizeof(b->slots));
	t0 = mpd_mono_ns();
	t_meas = t0 + (uint64_t)warm_ms * 1000000u;
	t_end = t_meas + (uint64_t)(secs * 1e9);
	t_last = t_meas;
	timeouts0 = b->timeouts;
	errors0 = b->errors;
	for (i = 0; i < window; i++)
		if (send_slot(b, i, window) < 0)
			goto cleanup;
	for (;;) {
		i = recv_one(b, &ns, &ok);
		if (i == -1)
			goto cleanup;
		if (i == -2)
			continue;
		t_last = mpd_mono_ns();
		if (!measuring && t_last >= t_meas) {
			/* what was sent in the warm-up counts from here on */
			measuring = 1;
			t_meas = t_last;
			t_end = t_meas + (uint64_t)(secs * 1e9);
			timeouts0 = b->timeouts;
			errors0 = b->errors;
		} else if (measuring) {
			if (ok) {
				if (lat_add(&lat, ns) < 0) {
					fprintf(stderr, "bench_umad: out of memory\n");
					goto cleanup;
				}
				done++;
			}
		}
		if (t_last >= t_end && measuring)
			break;
		if (send_slot(b, i, window) < 0)
			goto cleanup;
	}
	drain(b, window);
	lat_sort(&lat);
	printf("window=%d rate=%.0f p50_us=%.2f p99_us=%.2f n=%" PRIu64
	       " timeouts=%" PRIu64 " errors=%" PRIu64 "\n", window,
	       (double)done / ((double)(t_last - t_meas) / 1e9),
	       lat_pct_us(&lat, 50), lat_pct_us(&lat, 99), done,
	       b->timeouts - timeouts0, b->errors - errors0);
	fflush(stdout);
	rc = 0;
cleanup:
	free(lat.ns);
	return rc;
}

/* One SMP and its answer, in b->rbuf; 0, or -1 said on stderr. */
static int
one_smp(struct bench *b, const char *what, uint64_t *ns)
{
	int i, ok;

	memset(b->slots, 0, sizeof(b->slots));
	if (send_slot(b, 0, 1) < 0)
		return -1;
	do
		i = recv_one(b, ns, &ok);
	while (i == -2);
	if (i < 0 || !ok) {
		fprintf(stderr, "bench_umad: no answer to %s (%s)\n", what,
			i < 0 ? "receive failed" :
			b->timeouts ? "timed out" : "error status");
		return -1;
	}
	return 0;
}

/*
 * -L: the LID of the port at the end of the path, from a directed-route
 * Get(PortInfo) (LID at byte 16 of the attribute); 0 before an SM ran.
 */
static int
learn_lid(struct bench *b)
{
	uint64_t ns;
	int lid;

	b->lid = 0;
	build_smp(b, ATTR_PORT_INFO);
	if (one_smp(b, "Get(PortInfo) along the path", &ns) < 0)
		return -1;
	lid = get_be16((uint8_t *)umad_get_mad(b->rbuf) + 64 + 16);
	if (!lid || lid >= 0xc000) {
		fprintf(stderr, "bench_umad: the port at the end of the path has no unicast LID (%d): run an SM first (opensm -o)\n",
			lid);
		return -1;
	}
	b->lid = lid;
	return 0;
}

/* One SMP before the clock starts: says on stderr who answers, or why not. */
static int
probe(struct bench *b)
{
	uint64_t ns;
	uint8_t *m;

	if (one_smp(b, b->lid > 0 ? "a LID-routed Get(NodeInfo)" :
				    "Get(NodeInfo) along the path", &ns) < 0)
		return -1;
	m = umad_get_mad(b->rbuf);
	fprintf(stderr, "bench_umad: %s Get(NodeInfo) answered by node GUID 0x%08" PRIx32
		"%08" PRIx32 " in %.1f us\n",
		b->lid > 0 ? "LID-routed" : "directed-route",
		get_be32(m + 64 + 12), get_be32(m + 64 + 16),
		(double)ns / 1000.0);
	return 0;
}

static int
parse_path(struct bench *b, const char *s)
{
	char *end;
	long v;

	b->hops = -1;
	for (;;) {
		v = strtol(s, &end, 10);
		if (end == s || v < 0 || v > 255 || b->hops >= MAX_HOPS)
			return -1;
		b->path[++b->hops] = (uint8_t)v;
		if (!*end)
			break;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
	/* the path starts with 0 (this port), as smpquery -D writes it */
	return b->hops >= 1 && b->path[0] == 0 ? 0 : -1;
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: bench_umad [-t seconds] [-w window]... [-W warm-up ms] [-C ca] [-P port] [-D path] [-L | -l lid] [-s]\n"
		"  -t  seconds measured per window (default 5)\n"
		"  -w  MADs outstanding, 1..%d, repeatable (default: 1 then 32)\n"
		"  -W  warm-up before each window in ms (default 500)\n"
		"  -C  CA name, -P port (default: the first CA, port 0)\n"
		"  -D  directed route, comma separated (default 0,1)\n"
		"  -L  LID-routed SMPs to the LID of the port at the end of the path\n"
		"  -l  LID-routed SMPs to this LID\n"
		"  -s  spin on umad_recv(timeout 0) instead of sleeping in it\n",
		MAX_WINDOW);
}

int
main(int argc, char **argv)
{
	static struct bench b;
	int windows[MAX_WINDOWS], nwin = 0, warm_ms = 500, port = 0;
	int i, c, rc = 1;
	char *ca = NULL;
	double secs = 5;

	parse_path(&b, "0,1");
	while ((c = getopt(argc, argv, "t:w:W:C:P:D:Ll:sh")) != -1) {
		switch (c) {
		case 't':
			secs = atof(optarg);
			break;
		case 'w':
			if (nwin == MAX_WINDOWS) {
				usage();
				return 2;
			}
			windows[nwin++] = atoi(optarg);
			break;
		case 'W':
			warm_ms = atoi(optarg);
			break;
		case 'C':
			ca = optarg;
			break;
		case 'P':
			port = atoi(optarg);
			break;
		case 's':
			b.spin = 1;
			break;
		case 'L':
			b.lid = -1;
			break;
		case 'l':
			b.lid = atoi(optarg);
			if (b.lid <= 0 || b.lid >= 0xc000) {
				fprintf(stderr, "bench_umad: bad LID '%s': give a unicast LID, 1 to 49151\n",
					optarg);
				return 2;
			}
			break;
		case 'D':
			if (parse_path(&b, optarg) < 0) {
				fprintf(stderr, "bench_umad: bad path '%s': give ports from 0, e.g. 0,1\n",
					optarg);
				return 2;
			}
			break;
		default:
			usage();
			return 2;
		}
	}
	if (secs <= 0 || warm_ms < 0 || optind != argc) {
		usage();
		return 2;
	}
	if (!nwin) {
		windows[nwin++] = 1;
		windows[nwin++] = 32;
	}
	for (i = 0; i < nwin; i++) {
		if (windows[i] < 1 || windows[i] > MAX_WINDOW) {
			usage();
			return 2;
		}
	}

	if (umad_init() < 0) {
		fprintf(stderr, "bench_umad: umad_init failed\n");
		return 1;
	}
	b.fd = umad_open_port(ca, port);
	if (b.fd < 0) {
		fprintf(stderr, "bench_umad: cannot open port %d of %s: %s\n",
			port, ca ? ca : "the first CA", strerror(-b.fd));
		goto out_done;
	}
	b.agent = umad_register(b.fd, CLASS_SUBN_DR, 1, 0, NULL);
	if (b.agent < 0) {
		fprintf(stderr, "bench_umad: cannot register for the SMI (directed route) class: %s\n",
			strerror(errno));
		goto out_close;
	}
	b.agent_lid = umad_register(b.fd, CLASS_SUBN_LID, 1, 0, NULL);
	if (b.agent_lid < 0) {
		fprintf(stderr, "bench_umad: cannot register for the SMI (LID-routed) class: %s\n",
			strerror(errno));
		goto out_unreg;
	}
	b.sbuf = umad_alloc(1, umad_size() + MAD_LEN);
	b.rbuf = umad_alloc(1, umad_size() + MAD_LEN);
	if (!b.sbuf || !b.rbuf) {
		fprintf(stderr, "bench_umad: out of memory\n");
		goto out_free;
	}
	if (b.lid < 0 && learn_lid(&b) < 0)
		goto out_free;
	build_smp(&b, ATTR_NODE_INFO);
	if (probe(&b) < 0)
		goto out_free;
	for (i = 0; i < nwin; i++)
		if (run_window(&b, windows[i], secs, warm_ms) < 0)
			goto out_free;
	rc = 0;
out_free:
	umad_free(b.sbuf);
	umad_free(b.rbuf);
	umad_unregister(b.fd, b.agent_lid);
out_unreg:
	umad_unregister(b.fd, b.agent);
out_close:
	umad_close_port(b.fd);
out_done:
	umad_done();
	return rc;
}
