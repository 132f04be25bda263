/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_notify(3) on a fabric that drops every CM RTU, written against
 * rdma-core's own headers only (it runs over whichever librdmacm.so.1
 * and libibverbs.so.1 the loader finds: madpmd's under madpmd-run).
 *
 *   cm_notify server ADDR PORT     cm_notify client ADDR PORT
 *
 * The server listens, accepts (librdmacm moves its QP to RTS and the CM
 * sends the REP), and sees no ESTABLISHED, as the RTU never comes. The
 * client's REP arrives, so it is established and SENDs. The server's QP
 * receives it, which raises IBV_EVENT_COMM_EST; the server then calls
 * rdma_notify(id, IBV_EVENT_COMM_EST): 0, and exactly one
 * RDMA_CM_EVENT_ESTABLISHED. Then the other answers of rdma_notify(3):
 * EISCONN once established, EINVAL for an id with no connection and for
 * any other event. The server disconnects; both see DISCONNECTED.
 *
 * Each check prints "ok - ..." or "not ok - ..."; the exit status is 0
 * only when every check passed. CM_NOTIFY_WAIT_MS (default 1500) is how
 * long the server waits for the ESTABLISHED that does not come: past the
 * REP's time-out (4.3 s) the CM sends the REP again, and the client's CM
 * its RTU, lost again.
 */
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

/* no RPC-over-RDMA look-alike: stock tshark tries RC payloads on it */
#define MSG	"COMM_EST, then rdma_notify"

static int failed;

static void
check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf(cond ? "ok - " : "not ok - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		failed = 1;
}

/* The next CM event within ms, or NULL (nothing came) */
static struct rdma_cm_event *
next_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) <= 0)
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

/* Wait for an event of type want (acked, unless keep): 0 or -1 */
static int
expect_event(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
	     int ms, struct rdma_cm_event **keep)
{
	struct rdma_cm_event *ev = next_event(ch, ms);

	if (!ev) {
		check(0, "%s within %d ms (nothing came)", rdma_event_str(want),
		      ms);
		return -1;
	}
	check(ev->event == want, "%s (got %s, status %d)", rdma_event_str(want),
	      rdma_event_str(ev->event), ev->status);
	if (ev->event != want) {
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (keep)
		*keep = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
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

static int
make_qp(struct rdma_cm_id *id, struct ibv_cq **cq)
{
	struct ibv_qp_init_attr attr;

	*cq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
	if (!*cq)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = *cq;
	attr.recv_cq = *cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 4;
	attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	return rdma_create_qp(id, NULL, &attr);
}

static int
poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	int i, n;

	for (i = 0; i < ms * 10; i++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
		usleep(100);
	}
	return 0;
}

/* The async events that came within ms: how many were COMM_EST */
static int
comm_est_events(struct ibv_context *ctx, int ms)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ae;
	int n = 0;

	while (poll(&pfd, 1, ms) > 0) {
		if (ibv_get_async_event(ctx, &ae))
			break;
		if (ae.event_type == IBV_EVENT_COMM_EST)
			n++;
		ibv_ack_async_event(&ae);
		ms = 300;
	}
	return n;
}

static int
server(const char *addr, const char *port)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listen_id = NULL, *id;
	struct rdma_cm_event *ev = NULL;
	struct rdma_addrinfo *res;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	char buf[64] = "";
	int rc, ests, wait_ms;

	if (!ch || resolve(addr, port, 1, &res) ||
	    rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, res->ai_src_addr) ||
	    rdma_listen(listen_id, 4)) {
		check(0, "server listens on %s:%s: %s", addr, port,
		      strerror(errno));
		return 1;
	}
	rdma_freeaddrinfo(res);
	check(1, "server listens on %s:%s", addr, port);

	/* an id with no connection */
	errno = 0;
	rc = rdma_notify(listen_id, IBV_EVENT_COMM_EST);
	check(rc == -1 && errno == EINVAL,
	      "rdma_notify on a listening id: -1 EINVAL (%d, %s)", rc,
	      strerror(errno));

	if (expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, 20000, &ev))
		return 1;
	id = ev->id;
	rdma_ack_cm_event(ev);
	if (make_qp(id, &cq)) {
		check(0, "QP for the request: %s", strerror(errno));
		return 1;
	}
	mr = ibv_reg_mr(id->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr || rdma_post_recv(id, NULL, buf, sizeof(buf), mr)) {
		check(0, "receive posted: %s", strerror(errno));
		return 1;
	}
	/* before the REP: no connection to establish */
	errno = 0;
	rc = rdma_notify(id, IBV_EVENT_COMM_EST);
	check(rc == -1 && errno == EINVAL,
	      "rdma_notify before rdma_accept: -1 EINVAL (%d, %s)", rc,
	      strerror(errno));
	if (rdma_accept(id, NULL)) {
		check(0, "rdma_accept: %s", strerror(errno));
		return 1;
	}
	/* the RTU is dropped: nothing establishes the connection */
	wait_ms = getenv("CM_NOTIFY_WAIT_MS") ? atoi(getenv("CM_NOTIFY_WAIT_MS")) :
						1500;
	ev = next_event(ch, wait_ms);
	check(!ev, "no event while the RTU is lost (%s)",
	      ev ? rdma_event_str(ev->event) : "none");
	if (ev)
		rdma_ack_cm_event(ev);

	/* the client's SEND reaches the QP: COMM_EST, and the message */
	check(poll_one(cq, &wc, 10000) == 1 && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_RECV && !strcmp(buf, MSG),
	      "the client's SEND arrived before ESTABLISHED (\"%s\")", buf);
	ests = comm_est_events(id->verbs, 2000);
	check(ests == 1, "exactly one IBV_EVENT_COMM_EST on the QP (%d)", ests);

	/* another event: EINVAL, and the connection stays as it is */
	errno = 0;
	rc = rdma_notify(id, IBV_EVENT_QP_FATAL);
	check(rc == -1 && errno == EINVAL,
	      "rdma_notify(IBV_EVENT_QP_FATAL): -1 EINVAL (%d, %s)", rc,
	      strerror(errno));

	rc = rdma_notify(id, IBV_EVENT_COMM_EST);
	check(rc == 0, "rdma_notify(IBV_EVENT_COMM_EST): 0 (%d, %s)", rc,
	      rc ? strerror(errno) : "ok");
	if (expect_event(ch, RDMA_CM_EVENT_ESTABLISHED, 2000, NULL) == 0) {
		ev = next_event(ch, 2000);
		check(!ev, "exactly one ESTABLISHED (then %s)",
		      ev ? rdma_event_str(ev->event) : "nothing");
		if (ev)
			rdma_ack_cm_event(ev);
	}
	errno = 0;
	rc = rdma_notify(id, IBV_EVENT_COMM_EST);
	check(rc == -1 && errno == EISCONN,
	      "rdma_notify once established: -1 EISCONN (%d, %s)", rc,
	      strerror(errno));

	rdma_disconnect(id);
	expect_event(ch, RDMA_CM_EVENT_DISCONNECTED, 10000, NULL);
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	rdma_destroy_id(id);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return failed;
}

static int
client(const char *addr, const char *port)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_addrinfo *res;
	struct rdma_cm_id *id = NULL;
	struct rdma_conn_param cp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	char buf[64] = MSG;

	if (!ch || resolve(addr, port, 0, &res) ||
	    rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, NULL, res->ai_dst_addr, 2000)) {
		check(0, "client resolves %s: %s", addr, strerror(errno));
		return 1;
	}
	rdma_freeaddrinfo(res);
	if (expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, 5000, NULL) ||
	    rdma_resolve_route(id, 2000) ||
	    expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 5000, NULL))
		return 1;
	if (id->route.num_paths)
		printf("# route: slid %u dlid %u sl %u mtu %u\n",
		       be16toh(id->route.path_rec->slid),
		       be16toh(id->route.path_rec->dlid),
		       id->route.path_rec->sl, id->route.path_rec->mtu);
	if (make_qp(id, &cq)) {
		check(0, "client QP: %s", strerror(errno));
		return 1;
	}
	mr = ibv_reg_mr(id->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	memset(&cp, 0, sizeof(cp));
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (!mr || rdma_connect(id, &cp)) {
		check(0, "rdma_connect: %s", strerror(errno));
		return 1;
	}
	/* the REP came: established here, whatever became of the RTU */
	if (expect_event(ch, RDMA_CM_EVENT_ESTABLISHED, 20000, NULL))
		return 1;
	{
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qi;

		if (!ibv_query_qp(id->qp, &qa, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_DEST_QPN | IBV_QP_SQ_PSN, &qi))
			printf("# QP 0x%x: state %d dest 0x%x dlid %u sq_psn 0x%x\n",
			       id->qp->qp_num, qa.qp_state, qa.dest_qp_num,
			       qa.ah_attr.dlid, qa.sq_psn);
	}
	if (rdma_post_send(id, NULL, buf, strlen(MSG) + 1, mr,
			   IBV_SEND_SIGNALED)) {
		check(0, "SEND posted: %s", strerror(errno));
		return 1;
	}
	check(poll_one(cq, &wc, 10000) == 1 && wc.status == IBV_WC_SUCCESS,
	      "SEND completed (status %s)", ibv_wc_status_str(wc.status));
	expect_event(ch, RDMA_CM_EVENT_DISCONNECTED, 20000, NULL);
	rdma_disconnect(id);
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return failed;
}

int
main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: cm_notify server|client ADDR PORT\n");
		return 2;
	}
	if (!strcmp(argv[1], "server"))
		return server(argv[2], argv[3]);
	if (!strcmp(argv[1], "client"))
		return client(argv[2], argv[3]);
	fprintf(stderr, "usage: cm_notify server|client ADDR PORT\n");
	return 2;
}
