/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connections made and torn down, one after the other, many times,
 * written against rdma-core's own headers only (it runs over whichever
 * librdmacm.so.1 and libibverbs.so.1 the loader finds: madpmd's under
 * madpmd-run).
 *
 *   cm_endurance server ADDR PORT COUNT
 *   cm_endurance client ADDR PORT COUNT [PAUSE...]
 *
 * The server listens (RDMA_PS_TCP) and serves COUNT connections: each
 * CONNECT_REQUEST gets a QP of its own (rdma_create_qp() with no CQs:
 * the library makes them) and is accepted; at ESTABLISHED it is
 * counted, at DISCONNECTED disconnected (the DREP), its QP and id
 * destroyed. The listener stays until the end: after the last connection
 * the server prints "served COUNT" and waits for a line on its standard
 * input (or its end) before it lets go of it.
 *
 * The client, COUNT times: an id, ADDR_RESOLVED, ROUTE_RESOLVED (on IB
 * the SA's PathRecord), a QP, rdma_connect(), ESTABLISHED,
 * rdma_disconnect(), DISCONNECTED (the server's DREP), QP and id
 * destroyed. After each PAUSE-th cycle it prints "paused N" and waits for
 * a line on its standard input: there the test looks at the daemon with
 * the client still alive and nothing in flight.
 *
 * Every wait is bounded (CM_ENDURANCE_WAIT_MS, default 10000): a CM that
 * stops answering fails the cycle it stopped in, by number. One "ok - "
 * or "not ok - " line per side at the end, with the rate; exit status 0
 * only when every cycle passed.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

static int wait_ms = 10000;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The next CM event within wait_ms, TIMEWAIT_EXIT skipped, or NULL
 * (nothing came, or the channel failed; said on stdout) */
static struct rdma_cm_event *
next_event(struct rdma_event_channel *ch, unsigned long cycle)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	for (;;) {
		if (poll(&pfd, 1, wait_ms) <= 0) {
			printf("# cycle %lu: no CM event within %d ms\n", cycle,
			       wait_ms);
			return NULL;
		}
		if (rdma_get_cm_event(ch, &ev)) {
			printf("# cycle %lu: rdma_get_cm_event: %s\n", cycle,
			       strerror(errno));
			return NULL;
		}
		if (ev->event != RDMA_CM_EVENT_TIMEWAIT_EXIT)
			return ev;
		rdma_ack_cm_event(ev);
	}
}

/* Wait for an event of type want, acked: 0 or -1 (said) */
static int
expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
       unsigned long cycle)
{
	struct rdma_cm_event *ev = next_event(ch, cycle);
	int rc;

	if (!ev)
		return -1;
	rc = ev->event == want ? 0 : -1;
	if (rc)
		printf("# cycle %lu: %s instead of %s (status %d)\n", cycle,
		       rdma_event_str(ev->event), rdma_event_str(want),
		       ev->status);
	rdma_ack_cm_event(ev);
	return rc;
}

static int
resolve(const char *addr, const char *port, int passive,
	struct rdma_addrinfo **res)
{
	struct rdma_addrinfo hints;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	return rdma_getaddrinfo(addr, port, &hints, res);
}

/* An RC QP with CQs the library makes (and destroys with it) */
static int
make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 4;
	attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	return rdma_create_qp(id, NULL, &attr);
}

static void
report(const char *side, int ok, unsigned long done, unsigned long count,
       double t0)
{
	double s = now_s() - t0;

	printf("%s - %s: %lu of %lu connections in %.2f s (%.0f/s)\n",
	       ok && done == count ? "ok" : "not ok", side, done, count, s,
	       s > 0 ? (double)done / s : 0.0);
}

/* Say what, then wait until told to go on: a line on stdin (or its end) */
static void
pause_at(const char *what, unsigned long n)
{
	char line[16];

	printf("%s %lu\n", what, n);
	fflush(stdout);
	/* a line or the end of the input: either way on */
	if (!fgets(line, sizeof(line), stdin))
		clearerr(stdin);
}

/* One request: a QP, accepted; -1 (said) when either fails */
static int
serve_request(struct rdma_cm_id *id, unsigned long n)
{
	if (make_qp(id)) {
		printf("# request %lu: rdma_create_qp: %s\n", n,
		       strerror(errno));
		return -1;
	}
	if (rdma_accept(id, NULL)) {
		printf("# request %lu: rdma_accept: %s\n", n, strerror(errno));
		return -1;
	}
	return 0;
}

static int
server(const char *addr, const char *port, unsigned long count)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listen_id = NULL, *id;
	unsigned long reqs = 0, ests = 0, done = 0;
	struct rdma_addrinfo *res = NULL;
	struct rdma_cm_event *ev;
	double t0 = 0;
	int rc = 0;

	if (!ch || resolve(addr, port, 1, &res) ||
	    rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, res->ai_src_addr) ||
	    rdma_listen(listen_id, 16)) {
		printf("not ok - server listens on %s:%s: %s\n", addr, port,
		       strerror(errno));
		return 1;
	}
	rdma_freeaddrinfo(res);
	printf("# server listens on %s:%s\n", addr, port);
	fflush(stdout);
	while (done < count) {
		struct rdma_cm_id *gone = NULL;

		ev = next_event(ch, done + 1);
		if (!ev) {
			rc = -1;
			break;
		}
		id = ev->id;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (!reqs++)
				t0 = now_s();
			rc = serve_request(id, reqs);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			ests++;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			rdma_disconnect(id);
			rdma_destroy_qp(id);
			gone = id;
			done++;
			break;
		default:
			printf("# connection %lu: unexpected %s (status %d)\n",
			       done + 1, rdma_event_str(ev->event), ev->status);
			rc = -1;
			break;
		}
		rdma_ack_cm_event(ev);
		/* after the ack: destroying waits for the id's events */
		if (!rc && gone && rdma_destroy_id(gone)) {
			printf("# connection %lu: rdma_destroy_id: %s\n", done,
			       strerror(errno));
			rc = -1;
		}
		if (rc)
			break;
	}
	report("server", !rc && ests == done, done, count, t0);
	if (!rc)
		pause_at("served", done);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return rc || ests != done;
}

/* One connection made and torn down: 0 or -1 (said) */
static int
cycle_once(struct rdma_event_channel *ch, struct rdma_addrinfo *res,
	   unsigned long n)
{
	struct rdma_conn_param cp;
	struct rdma_cm_id *id = NULL;
	int rc = -1;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		printf("# cycle %lu: rdma_create_id: %s\n", n, strerror(errno));
		return -1;
	}
	if (rdma_resolve_addr(id, NULL, res->ai_dst_addr, 2000)) {
		printf("# cycle %lu: rdma_resolve_addr: %s\n", n,
		       strerror(errno));
		goto out_id;
	}
	if (expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, n))
		goto out_id;
	if (rdma_resolve_route(id, 2000)) {
		printf("# cycle %lu: rdma_resolve_route: %s\n", n,
		       strerror(errno));
		goto out_id;
	}
	if (expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, n))
		goto out_id;
	if (make_qp(id)) {
		printf("# cycle %lu: rdma_create_qp: %s\n", n, strerror(errno));
		goto out_id;
	}
	memset(&cp, 0, sizeof(cp));
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(id, &cp)) {
		printf("# cycle %lu: rdma_connect: %s\n", n, strerror(errno));
		goto out_qp;
	}
	if (expect(ch, RDMA_CM_EVENT_ESTABLISHED, n))
		goto out_qp;
	if (rdma_disconnect(id)) {
		printf("# cycle %lu: rdma_disconnect: %s\n", n,
		       strerror(errno));
		goto out_qp;
	}
	if (expect(ch, RDMA_CM_EVENT_DISCONNECTED, n))
		goto out_qp;
	rc = 0;
out_qp:
	rdma_destroy_qp(id);
out_id:
	if (rdma_destroy_id(id)) {
		printf("# cycle %lu: rdma_destroy_id: %s\n", n, strerror(errno));
		rc = -1;
	}
	return rc;
}

static int
client(const char *addr, const char *port, unsigned long count,
       char **pauses, int npauses)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_addrinfo *res = NULL;
	unsigned long n;
	double t0;
	int i;

	if (!ch || resolve(addr, port, 0, &res)) {
		printf("not ok - client resolves %s:%s: %s\n", addr, port,
		       strerror(errno));
		return 1;
	}
	t0 = now_s();
	for (n = 1; n <= count; n++) {
		if (cycle_once(ch, res, n))
			break;
		for (i = 0; i < npauses; i++)
			if (strtoul(pauses[i], NULL, 0) == n)
				pause_at("paused", n);
	}
	report("client", 1, n - 1, count, t0);
	rdma_freeaddrinfo(res);
	rdma_destroy_event_channel(ch);
	return n <= count;
}

static int
usage(void)
{
	fprintf(stderr, "usage: cm_endurance server ADDR PORT COUNT\n"
		"       cm_endurance client ADDR PORT COUNT [PAUSE...]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	unsigned long count;
	const char *w = getenv("CM_ENDURANCE_WAIT_MS");

	if (argc < 5)
		return usage();
	if (w && atoi(w) > 0)
		wait_ms = atoi(w);
	setvbuf(stdout, NULL, _IOLBF, 0);
	count = strtoul(argv[4], NULL, 0);
	if (!strcmp(argv[1], "server") && argc == 5)
		return server(argv[2], argv[3], count);
	if (!strcmp(argv[1], "client"))
		return client(argv[2], argv[3], count, argv + 5, argc - 5);
	return usage();
}
