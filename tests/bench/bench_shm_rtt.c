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
 * With -r a third process relays between the two, as the daemon's lcore
 * does between two verbs clients: A -> relay -> B -> relay -> A, all three
 * busy-polling (on a 2-core machine they share the cores, as ib_send_lat's
 * two processes and the lcore do); one-way latency is RTT / 2. With -s N
 * the relay sleeps on a doorbell (a futex in the shared memory) after N
 * empty polls, and A and B ring it after each put when it sleeps: what
 * the lcore does once it sees it shares its core (madpmd/chan.h).
 *
 *   bench_shm_rtt [-r [-s N]] [-t seconds] [-w window]... [-W warm-up ms]
 *                 [-n count]
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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "madpmd/clock.h"
#include "madpmd/ring.h"
#include "lat_log.h"

#define MSG_LEN		64
#define RING_SIZE	(64u << 10)
#define MAX_WINDOW	256
#define MAX_WINDOWS	8
#define KIND_PING	1
#define KIND_STOP	2

/*
 * Rings: 0 from A, 3 back to A; with a relay, 1 relay -> B and 2 B ->
 * relay. Without one, B echoes ring 0 into ring 3.
 */
#define NRINGS		4
#define RING_A_OUT	0
#define RING_B_IN	1
#define RING_B_OUT	2
#define RING_A_IN	3

struct shm {
	int ready;			/* processes polling */
	int relay_asleep;		/* the doorbell: a futex word */
	uint8_t pad[56];
	struct mpd_chan_ring ring;	/* NRINGS, each followed by RING_SIZE */
};

static struct mpd_chan_ring *
ring_at(struct shm *s, unsigned int i)
{
	return (struct mpd_chan_ring *)((uint8_t *)&s->ring +
					i * (sizeof(struct mpd_chan_ring) +
					     RING_SIZE));
}

static size_t
shm_size(void)
{
	return offsetof(struct shm, ring) +
	       NRINGS * (sizeof(struct mpd_chan_ring) + RING_SIZE);
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

/* The relay's doorbell (-s), NULL without: A and B ring it after a put.
 * Set before the fork. */
static int *doorbell;

static void
ring_doorbell(void)
{
	if (!doorbell)
		return;
	/* the put before is seen by a relay that saw the bell set */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(doorbell, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(doorbell, 0, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, doorbell, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* The relay, nothing to move: sleep until rung, unless a record came in
 * after the bell was set (either ring not empty). */
static void
relay_sleep(struct mpd_ring_view *a, struct mpd_ring_view *b)
{
	__atomic_store_n(doorbell, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (mpd_ring_empty(a) && mpd_ring_empty(b))
		syscall(SYS_futex, doorbell, FUTEX_WAIT, 1, NULL, NULL, 0);
	__atomic_store_n(doorbell, 0, __ATOMIC_RELAXED);
}

/*
 * One record from in to out as it came (a stop too): 1 moved, 0 nothing
 * there, -1 garbage. The copy is the one a umad record takes.
 */
static int
move_one(struct mpd_ring_view *in, struct mpd_ring_view *out, uint32_t *kind)
{
	const uint8_t *data;
	uint8_t msg[MSG_LEN];
	uint32_t len;
	int rc;

	rc = mpd_ring_peek(in, &data, &len, kind);
	if (rc <= 0)
		return rc;
	if (len > MSG_LEN || (*kind == KIND_PING && len != MSG_LEN))
		return -1;
	memcpy(msg, data, len);
	mpd_ring_consume(in);
	while ((rc = mpd_ring_put(out, *kind, msg, len, NULL, 0)) == -ENOSPC)
		cpu_relax();
	return rc ? -1 : 1;
}

static int
attach(struct shm *s, struct mpd_ring_view *v, unsigned int i)
{
	return mpd_ring_attach(v, ring_at(s, i), RING_SIZE);
}

/* B: every ping goes back as it came, until a stop. */
static int
echo(struct shm *s, unsigned int from, unsigned int to)
{
	struct mpd_ring_view in, out;
	uint32_t kind;
	int rc;

	if (attach(s, &in, from) || attach(s, &out, to))
		return 1;
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		rc = move_one(&in, &out, &kind);
		if (rc < 0)
			return 1;
		if (!rc)
			cpu_relax();
		else if (kind == KIND_STOP)
			return 0;
		else
			ring_doorbell();
	}
}

/* The relay: A's records on to B, B's back to A, polled in turn as the
 * lcore polls its ports; A's stop goes on to B, then the relay stops. */
static int
relay(struct shm *s, unsigned int sleep_after)
{
	struct mpd_ring_view a_in, b_out, b_in, a_out;
	unsigned int idle = 0;
	uint32_t kind;
	int r1, r2;

	if (attach(s, &a_in, RING_A_OUT) || attach(s, &b_out, RING_B_IN) ||
	    attach(s, &b_in, RING_B_OUT) || attach(s, &a_out, RING_A_IN))
		return 1;
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		r1 = move_one(&a_in, &b_out, &kind);
		if (r1 < 0)
			return 1;
		if (r1 && kind == KIND_STOP)
			return 0;
		r2 = move_one(&b_in, &a_out, &kind);
		if (r2 < 0)
			return 1;
		if (r1 || r2) {
			idle = 0;
		} else if (doorbell && ++idle >= sleep_after) {
			relay_sleep(&a_in, &b_in);
			idle = 0;
		} else {
			cpu_relax();
		}
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
	sent_ns[slot] = mpd_mono_ns();
	while ((rc = mpd_ring_put(out, KIND_PING, msg, MSG_LEN, NULL, 0)) ==
	       -ENOSPC)
		cpu_relax();
	if (!rc)
		ring_doorbell();
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

	t_meas = mpd_mono_ns() + (uint64_t)warm_ms * 1000000u;
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
		t = mpd_mono_ns();
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
		"usage: bench_shm_rtt [-r [-s N]] [-t seconds] [-w window]... [-W warm-up ms] [-n count]\n"
		"  -r  through a third process relaying both ways (all three poll)\n"
		"  -s  with -r: the relay sleeps on a doorbell after N empty polls\n"
		"  -t  seconds measured per window (default 5)\n"
		"  -w  messages in flight, 1..%d, repeatable (default: 1 then 32)\n"
		"  -W  warm-up before each window in ms (default 500)\n"
		"  -n  stop a window after this many round trips (default: time only)\n",
		MAX_WINDOW);
}

/* Start the relay, or an echo from ring from to ring to: its pid or -1. */
static pid_t
spawn(struct shm *s, bool is_relay, unsigned int from, unsigned int to,
      unsigned int sleep_after)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(is_relay ? relay(s, sleep_after) : echo(s, from, to));
	if (pid < 0)
		perror("bench_shm_rtt: fork");
	return pid;
}

/* Stop the children: a stop record down the line, else SIGKILL; 0 when
 * both exited 0. */
static int
stop_children(struct mpd_ring_view *out, const pid_t *pid, int n, int force)
{
	int i, st, rc = 0;

	if (force || mpd_ring_put(out, KIND_STOP, NULL, 0, NULL, 0))
		for (i = 0; i < n; i++)
			kill(pid[i], SIGKILL);
	else
		ring_doorbell();
	for (i = 0; i < n; i++)
		if (waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			rc = -1;
	return rc;
}

int
main(int argc, char **argv)
{
	int windows[MAX_WINDOWS], nwin = 0, warm_ms = 500, i, c, rc = 1;
	int with_relay = 0, nkids = 0, want;
	unsigned int sleep_after = 0;
	struct mpd_ring_view out, in;
	uint64_t count = 0;
	double secs = 5;
	struct shm *s;
	pid_t kid[2];

	while ((c = getopt(argc, argv, "rs:t:w:W:n:h")) != -1) {
		switch (c) {
		case 'r':
			with_relay = 1;
			break;
		case 's':
			sleep_after = (unsigned int)atoi(optarg);
			if (!sleep_after) {
				usage();
				return 2;
			}
			break;
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
	if (secs <= 0 || warm_ms < 0 || optind != argc ||
	    (sleep_after && !with_relay)) {
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
	for (i = 0; i < NRINGS; i++)
		if (mpd_ring_init(ring_at(s, (unsigned int)i), RING_SIZE))
			goto bad_layout;
	if (attach(s, &out, RING_A_OUT) || attach(s, &in, RING_A_IN))
		goto bad_layout;
	if (sleep_after)
		doorbell = &s->relay_asleep;
	if (with_relay) {
		kid[nkids] = spawn(s, false, RING_B_IN, RING_B_OUT, 0);
		if (kid[nkids] > 0)
			kid[++nkids] = spawn(s, true, 0, 0, sleep_after);
	} else {
		kid[nkids] = spawn(s, false, RING_A_OUT, RING_A_IN, 0);
	}
	if (kid[nkids] < 0) {
		if (nkids)
			stop_children(&out, kid, nkids, 1);
		goto out_unmap;
	}
	nkids++;
	want = nkids;
	while (__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) < want) {
		for (i = 0; i < nkids; i++)
			if (waitpid(kid[i], NULL, WNOHANG) == kid[i]) {
				fprintf(stderr, "bench_shm_rtt: a polling process failed\n");
				stop_children(&out, kid, nkids, 1);
				goto out_unmap;
			}
		usleep(1000);
	}
	for (i = 0; i < nwin; i++)
		if (run_window(&out, &in, windows[i], secs, count, warm_ms) < 0) {
			fprintf(stderr, "bench_shm_rtt: garbage in the pong ring\n");
			stop_children(&out, kid, nkids, 1);
			goto out_unmap;
		}
	rc = 0;
	if (stop_children(&out, kid, nkids, 0)) {
		fprintf(stderr, "bench_shm_rtt: a polling process failed\n");
		rc = 1;
	}
out_unmap:
	munmap(s, shm_size());
	return rc;
bad_layout:
	fprintf(stderr, "bench_shm_rtt: cannot lay the rings out\n");
	munmap(s, shm_size());
	return 1;
}
