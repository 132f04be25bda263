/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bare round trip: the floor under bench_umad's figures. Two processes
 * (fork, no CPU affinity set) ping-pong 64-byte messages through shared
 * memory, both busy-polling, through the client channel's own SPSC rings
 * (madpmd/ring.h, lib/chan/ring.c: the same record layout, fences and
 * copies as a umad record, without the MAD layer, the wire, the lcore's
 * loop or any wake-up). With a window above 1 that many messages are in
 * flight, each answered as it arrives.
 *
 *   bench_shm_rtt [-t seconds] [-w window]... [-W warm-up ms] [-n count]
 *
 * One line per window on standard output, as bench_umad prints them:
 *   window=W rate=RTT_PER_S p50_us=X p99_us=Y n=N timeouts=0 errors=0
 * Latency is from just before the put into the ping ring to just after the
 * matching record is seen in the pong ring (CLOCK_MONOTONIC; reading the
 * clock costs some 20-40 ns of each sample).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "madpmd/ring.h"
#include "lat_log.h"

#define MSG_LEN		64
#define RING_SIZE	(64u << 10)
#define MAX_WINDOW	256
#define MAX_WINDOWS	8
#define KIND_PING	1
#define KIND_STOP	2

struct shm {
	volatile int ready;		/* the echo process is polling */
	uint8_t pad[60];
	struct mpd_chan_ring ping;	/* followed by RING_SIZE bytes */
};

static struct mpd_chan_ring *
pong_ring(struct shm *s)
{
	return (struct mpd_chan_ring *)((uint8_t *)&s->ping +
					sizeof(struct mpd_chan_ring) +
					RING_SIZE);
}

static size_t
shm_size(void)
{
	return sizeof(struct shm) + RING_SIZE +
	       sizeof(struct mpd_chan_ring) + RING_SIZE;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/* The echo side: every ping goes back as it came, until a stop. */
static int
echo(struct shm *s)
{
	struct mpd_ring_view in, out;
	const uint8_t *data;
	uint8_t msg[MSG_LEN];
	uint32_t len, kind;
	int rc;

	if (mpd_ring_attach(&in, &s->ping, RING_SIZE) ||
	    mpd_ring_attach(&out, pong_ring(s), RING_SIZE))
		return 1;
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		rc = mpd_ring_peek(&in, &data, &len, &kind);
		if (rc < 0)
			return 1;
		if (!rc) {
			cpu_relax();
			continue;
		}
		if (kind == KIND_STOP)
			return 0;
		if (len != MSG_LEN)
			return 1;
		memcpy(msg, data, MSG_LEN);
		mpd_ring_consume(&in);
		while ((rc = mpd_ring_put(&out, KIND_PING, msg, MSG_LEN, NULL,
					  0)) == -ENOSPC)
			cpu_relax();
		if (rc)
			return 1;
	}
}

static int
ping(struct mpd_ring_view *out, uint64_t *sent_ns, uint32_t slot, uint32_t seq)
{
	uint8_t msg[MSG_LEN];
	int rc;

	memset(msg, 0, sizeof(msg));
	memcpy(msg, &slot, sizeof(slot));
	memcpy(msg + 4, &seq, sizeof(seq));
	sent_ns[slot] = now_ns();
	while ((rc = mpd_ring_put(out, KIND_PING, msg, MSG_LEN, NULL, 0)) ==
	       -ENOSPC)
		cpu_relax();
	return rc;
}

/*
 * Keep `window` messages in flight for warm_ms, then for secs (or until
 * count round trips) while logging each latency; print the line.
 */
static int
run_window(struct mpd_ring_view *out, struct mpd_ring_view *in, int window,
	   double secs, uint64_t count, int warm_ms)
{
	static uint64_t sent_ns[MAX_WINDOW];
	struct lat_log lat = { 0 };
	uint64_t t_meas, t_end, t, done = 0;
	const uint8_t *data;
	uint32_t len, kind, slot, seq = 0;
	int i, rc = -1, measuring = 0;

	t_meas = now_ns() + (uint64_t)warm_ms * 1000000u;
	t_end = t_meas + (uint64_t)(secs * 1e9);
	for (i = 0; i < window; i++)
		if (ping(out, sent_ns, (uint32_t)i, seq++))
			goto cleanup;
	for (;;) {
		int got = mpd_ring_peek(in, &data, &len, &kind);

		if (got < 0 || (got && len != MSG_LEN))
			goto cleanup;
		if (!got) {
			cpu_relax();
			continue;
		}
		t = now_ns();
		memcpy(&slot, data, sizeof(slot));
		mpd_ring_consume(in);
		if (slot >= (uint32_t)window)
			goto cleanup;
		if (measuring) {
			if (lat_add(&lat, t - sent_ns[slot]) < 0)
				goto cleanup;
			done++;
			if (t >= t_end || (count && done >= count))
				break;
		} else if (t >= t_meas) {
			measuring = 1;
			t_meas = t;
			t_end = t + (uint64_t)(secs * 1e9);
		}
		if (ping(out, sent_ns, slot, seq++))
			goto cleanup;
	}
	/* collect what is in flight so the next window starts clean */
	for (i = 1; i < window;) {
		int got = mpd_ring_peek(in, &data, &len, &kind);

		if (got < 0)
			goto cleanup;
		if (got) {
			mpd_ring_consume(in);
			i++;
		} else {
			cpu_relax();
		}
	}
	lat_sort(&lat);
	printf("window=%d rate=%.0f p50_us=%.3f p99_us=%.3f n=%" PRIu64
	       " timeouts=0 errors=0\n", window,
	       (double)done / ((double)(t - t_meas) / 1e9),
	       lat_pct_us(&lat, 50), lat_pct_us(&lat, 99), done);
	fflush(stdout);
	rc = 0;
cleanup:
	free(lat.ns);
	return rc;
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: bench_shm_rtt [-t seconds] [-w window]... [-W warm-up ms] [-n count]\n"
		"  -t  seconds measured per window (default 5)\n"
		"  -w  messages in flight, 1..%d, repeatable (default: 1 then 32)\n"
		"  -W  warm-up before each window in ms (default 500)\n"
		"  -n  stop a window after this many round trips (default: time only)\n",
		MAX_WINDOW);
}

int
main(int argc, char **argv)
{
	int windows[MAX_WINDOWS], nwin = 0, warm_ms = 500, i, c, rc = 1, st;
	struct mpd_ring_view out, in;
	uint64_t count = 0;
	double secs = 5;
	struct shm *s;
	pid_t pid;

	while ((c = getopt(argc, argv, "t:w:W:n:h")) != -1) {
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
		case 'n':
			count = strtoull(optarg, NULL, 0);
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
		/* a window's messages must fit the ring: 72 bytes each */
		if (windows[i] < 1 || windows[i] > MAX_WINDOW) {
			usage();
			return 2;
		}
	}

	s = mmap(NULL, shm_size(), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED) {
		perror("bench_shm_rtt: mmap");
		return 1;
	}
	if (mpd_ring_init(&s->ping, RING_SIZE) ||
	    mpd_ring_init(pong_ring(s), RING_SIZE) ||
	    mpd_ring_attach(&out, &s->ping, RING_SIZE) ||
	    mpd_ring_attach(&in, pong_ring(s), RING_SIZE)) {
		fprintf(stderr, "bench_shm_rtt: cannot lay the rings out\n");
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("bench_shm_rtt: fork");
		return 1;
	}
	if (pid == 0)
		_exit(echo(s));
	while (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE)) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			fprintf(stderr, "bench_shm_rtt: the echo process failed\n");
			return 1;
		}
		usleep(1000);
	}
	for (i = 0; i < nwin; i++)
		if (run_window(&out, &in, windows[i], secs, count, warm_ms) < 0) {
			fprintf(stderr, "bench_shm_rtt: garbage in the pong ring\n");
			goto out;
		}
	rc = 0;
out:
	if (rc || mpd_ring_put(&out, KIND_STOP, NULL, 0, NULL, 0))
		kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) == pid && rc == 0 &&
	    (!WIFEXITED(st) || WEXITSTATUS(st))) {
		fprintf(stderr, "bench_shm_rtt: the echo process failed\n");
		rc = 1;
	}
	munmap(s, shm_size());
	return rc;
}
