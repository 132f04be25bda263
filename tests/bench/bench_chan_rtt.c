/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control channel's round trip: the floor under bench_cm.sh's
 * connection rate. Every rdma_cm call of librdmacm over madpmd is a
 * request and its reply on the session's SOCK_SEQPACKET socket (struct
 * mpd_chan_msg each way, madpmd/chan.h), the caller blocked in recvmsg()
 * meanwhile, as mpd_chan_call() (lib/chan/client.c) does.
 *
 *   bench_chan_rtt pair [-s | -x] [-n count]
 *       two forked processes over a socketpair: one sends a message and
 *       waits for it back, the other echoes it; the kernel's part of a
 *       request alone. No CPU affinity set, or with -s both on CPU 0 (a
 *       wake-up is a switch on the same CPU), with -x one on CPU 0 and
 *       the other on CPU 1 (every wake-up crosses CPUs: on a VM, an
 *       inter-processor interrupt to a vCPU that may be halted)
 *   bench_chan_rtt daemon SOCKET [-n count]
 *       a session with a running madpmd (SOCKET: <run dir>/<node>/umad):
 *       HELLO, then PORT_INFO requests, the daemon's cheapest (its control
 *       thread answers from the port's state under the port lock)
 *
 * One line on standard output:
 *   mode=M n=N rate=ROUND_TRIPS_PER_S p50_us=X p99_us=Y
 * (M: pair, pair-same, pair-split or daemon)
 * Latency is send() to the reply's recvmsg() return (CLOCK_MONOTONIC),
 * after 1000 round trips of warm-up. Exit status 1 when a round trip
 * fails.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "madpmd/clock.h"
#include "madpmd/chan.h"
#include "lat_log.h"

#define WARM	1000

/* A reply into m, the fds it carries closed: 0 or -1 */
static int
recv_msg(int sock, struct mpd_chan_msg *m)
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh;
	struct cmsghdr *c;
	ssize_t n;
	size_t i, k;
	int fd;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.buf;
	mh.msg_controllen = sizeof(cbuf.buf);
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			close(fd);
		}
	}
	return 0;
}

static int
send_msg(int sock, const struct mpd_chan_msg *m)
{
	ssize_t n;

	do
		n = send(sock, m, sizeof(*m), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m) ? 0 : -1;
}

/* One request and its reply (the reply's status checked): 0 or -1 */
static int
call(int sock, struct mpd_chan_msg *m, uint32_t type, uint32_t *seq)
{
	m->type = type;
	m->seq = ++*seq;
	m->status = 0;
	if (send_msg(sock, m) || recv_msg(sock, m))
		return -1;
	return m->type == type && m->seq == *seq && m->status == 0 ? 0 : -1;
}

/* n timed round trips of type after WARM untimed ones, then the line */
static int
measure(const char *mode, int sock, uint32_t type, unsigned long n)
{
	struct lat_log log = { 0 };
	struct mpd_chan_msg m;
	uint64_t t0, t, start;
	unsigned long i;
	uint32_t seq = 1000;

	memset(&m, 0, sizeof(m));
	for (i = 0; i < WARM; i++)
		if (call(sock, &m, type, &seq))
			goto fail;
	start = mpd_mono_ns();
	for (i = 0; i < n; i++) {
		t0 = mpd_mono_ns();
		if (call(sock, &m, type, &seq))
			goto fail;
		t = mpd_mono_ns();
		if (lat_add(&log, t - t0))
			goto fail;
	}
	t = mpd_mono_ns() - start;
	lat_sort(&log);
	printf("mode=%s n=%lu rate=%.0f p50_us=%.2f p99_us=%.2f\n", mode, n,
	       (double)n * 1e9 / (double)t, lat_pct_us(&log, 50),
	       lat_pct_us(&log, 99));
	free(log.ns);
	return 0;
fail:
	fprintf(stderr, "bench_chan_rtt: %s: round trip %lu failed: %s\n",
		mode, i, strerror(errno));
	free(log.ns);
	return -1;
}

/* The other end of the pair: each message back as it came */
static void
echo(int sock)
{
	struct mpd_chan_msg m;

	while (recv_msg(sock, &m) == 0)
		if (send_msg(sock, &m))
			break;
	_exit(0);
}

/* This process on cpu; -1 leaves it free. 0 or -1 (said). */
static int
pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "bench_chan_rtt: CPU %d: %s\n", cpu,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* place: 0 free, 's' both on CPU 0, 'x' CPU 0 and CPU 1 */
static int
run_pair(unsigned long n, int place)
{
	static const char *const modes[] = { "pair", "pair-same", "pair-split" };
	int sv[2], rc, st, mode = place == 's' ? 1 : place == 'x' ? 2 : 0;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		perror("bench_chan_rtt: socketpair");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("bench_chan_rtt: fork");
		return 1;
	}
	if (pid == 0) {
		close(sv[0]);
		if (pin(mode == 2 ? 1 : mode == 1 ? 0 : -1))
			_exit(1);
		echo(sv[1]);
	}
	close(sv[1]);
	rc = pin(mode ? 0 : -1);
	if (!rc)
		rc = measure(modes[mode], sv[0], MPD_CHAN_PORT_INFO, n);
	close(sv[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		rc = -1;
	return rc ? 1 : 0;
}

static int
run_daemon(const char *path, unsigned long n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct mpd_chan_msg m;
	uint32_t seq = 0;
	int sock, rc;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "bench_chan_rtt: %s: path too long\n", path);
		return 1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "bench_chan_rtt: no daemon at %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	memset(&m, 0, sizeof(m));
	m.len = sizeof(m.u.hello_req);
	m.u.hello_req.version = MPD_CHAN_VERSION;
	m.u.hello_req.pid = (uint32_t)getpid();
	if (call(sock, &m, MPD_CHAN_HELLO, &seq)) {
		fprintf(stderr, "bench_chan_rtt: HELLO to %s refused (status %d)\n",
			path, m.status);
		close(sock);
		return 1;
	}
	m.len = 0;
	rc = measure("daemon", sock, MPD_CHAN_PORT_INFO, n);
	close(sock);
	return rc ? 1 : 0;
}

static int
usage(void)
{
	fprintf(stderr, "usage: bench_chan_rtt pair [-s | -x] [-n count]\n"
		"       bench_chan_rtt daemon SOCKET [-n count]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	unsigned long n = 100000;
	int i = 2, place = 0;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "daemon")) {
		if (argc < 3)
			return usage();
		i = 3;
	} else if (strcmp(argv[1], "pair")) {
		return usage();
	}
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = strtoul(argv[++i], NULL, 0);
		else if ((!strcmp(argv[i], "-s") || !strcmp(argv[i], "-x")) &&
			 !strcmp(argv[1], "pair"))
			place = argv[i][1];
		else
			return usage();
	}
	if (!n)
		return usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	return !strcmp(argv[1], "pair") ? run_pair(n, place) :
					   run_daemon(argv[2], n);
}
