/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's rdma_cm service against a real madpmd (RoCE, so that no
 * SM is needed), spoken raw (madpmd/cma.h) by a plain process: a listen
 * on hca2, a connection from hca1 through address and route resolution,
 * CONNECT_REQUEST with the private data, the QP attributes of both sides
 * (crossed QPNs and PSNs), accept, CONNECT_RESPONSE, ESTABLISH and
 * ESTABLISHED, notify's EISCONN, disconnect both ways; REJECTED 8 for a
 * port nobody listens on; a session that dies takes its connection down
 * (the peer gets DISCONNECTED) and its ids with it.
 *   test_cm_chan <madpmd>
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "madpmd/chan.h"
#include "madpmd/cma.h"
#include "madpmd/ring.h"
#include "raw_chan.h"
#include "tap.h"

#define PS_TCP		0x0106
#define EV_ADDR_RESOLVED	0
#define EV_ROUTE_RESOLVED	2
#define EV_CONNECT_REQUEST	4
#define EV_CONNECT_RESPONSE	5
#define EV_REJECTED		8
#define EV_ESTABLISHED		9
#define EV_DISCONNECTED		10

static char run_dir[64];

/* The next CM event within ms: 1 with *e, 0 when none came */
static int
event(struct raw_chan *c, struct mpd_cm_event_rec *e, int ms)
{
	int n = raw_chan_next(c, MPD_CHAN_REC_CM, e, sizeof(*e), ms);

	return n > 0 ? 1 : n;
}

static int
create_id(struct raw_chan *c, uint32_t *id)
{
	struct mpd_chan_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_CREATE_ID;
	m.u.cm_create_id_req.ps = PS_TCP;
	m.u.cm_create_id_req.qp_type = IBV_QPT_RC;
	rc = raw_chan_request(c, &m, NULL, 0);
	*id = m.u.cm_id_rep.id;
	return rc;
}

static int
id_req(struct raw_chan *c, uint32_t type, uint32_t id, uint32_t arg,
       struct mpd_chan_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->u.cm_id_req.id = id;
	m->u.cm_id_req.arg = arg;
	return raw_chan_request(c, m, NULL, 0);
}

static struct mpd_cm_addr
ip4(const uint8_t a[4], uint16_t port)
{
	struct mpd_cm_addr s = { .family = 2, .port = port };

	memcpy(s.addr, a, 4);
	return s;
}

static int
qp_attr(struct raw_chan *c, uint32_t id, uint32_t state,
	struct mpd_cm_qp_attr_rep *rep)
{
	struct mpd_chan_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_INIT_QP_ATTR;
	m.u.cm_qp_attr_req.id = id;
	m.u.cm_qp_attr_req.qp_state = state;
	rc = raw_chan_request(c, &m, NULL, 0);
	*rep = m.u.cm_qp_attr_rep;
	return rc;
}

/* The active side up to CONNECT: 0 with *id */
static int
dial(struct raw_chan *c, const uint8_t dst[4], uint16_t port, uint32_t qpn,
     uint32_t *id)
{
	struct mpd_chan_msg m;
	struct mpd_cm_event_rec e;

	if (create_id(c, id) != 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_RESOLVE_ADDR;
	m.u.cm_resolve_addr_req.id = *id;
	m.u.cm_resolve_addr_req.timeout_ms = 2000;
	m.u.cm_resolve_addr_req.dst = ip4(dst, port);
	if (raw_chan_request(c, &m, NULL, 0) != 0 || event(c, &e, 2000) != 1 ||
	    e.event != EV_ADDR_RESOLVED)
		return -2;
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_RESOLVE_ROUTE;
	m.u.cm_resolve_route_req.id = *id;
	m.u.cm_resolve_route_req.timeout_ms = 2000;
	if (raw_chan_request(c, &m, NULL, 0) != 0 || event(c, &e, 2000) != 1 ||
	    e.event != EV_ROUTE_RESOLVED)
		return -3;
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_CONNECT;
	m.u.cm_conn_req.id = *id;
	m.u.cm_conn_req.param.qp_num = qpn;
	m.u.cm_conn_req.param.responder_resources = 1;
	m.u.cm_conn_req.param.initiator_depth = 1;
	m.u.cm_conn_req.param.retry_count = 7;
	m.u.cm_conn_req.param.rnr_retry_count = 7;
	m.u.cm_conn_req.param.private_data_len = 6;
	memcpy(m.u.cm_conn_req.param.private_data, "hello", 6);
	return raw_chan_request(c, &m, NULL, 0) == 0 ? 0 : -4;
}

int
main(int argc, char **argv)
{
	struct raw_chan s, c, k;
	struct mpd_chan_msg m;
	struct mpd_cm_event_rec e;
	struct mpd_cm_qp_attr_rep sa, ca;
	uint32_t lid, cid, child, kid, ids[16];
	char path[256];
	pid_t daemon;
	int i, n, rc;

	if (argc < 2) {
		fprintf(stderr, "usage: test_cm_chan <madpmd>\n");
		return 2;
	}
	tap_seed();
	snprintf(run_dir, sizeof(run_dir), "/tmp/madpmd-cm-%d", (int)getpid());
	daemon = fork();
	if (daemon == 0) {
		execl(argv[1], argv[1], "--", "--run-dir", run_dir, "--link",
		      "roce", (char *)NULL);
		_exit(127);
	}
	snprintf(path, sizeof(path), "%s/ports", run_dir);
	for (i = 0; i < 100 && access(path, F_OK) != 0; i++)
		usleep(100000);
	if (!ok(raw_chan_open(&s, run_dir, "hca2") == 0 && raw_chan_open(&c, run_dir, "hca1") == 0,
		"sessions on hca2 (server) and hca1 (client)"))
		goto out;

	/* the server listens on port 7471 */
	ok(create_id(&s, &lid) == 0 && lid, "CREATE_ID: a handle");
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_BIND;
	m.u.cm_bind_req.id = lid;
	m.u.cm_bind_req.addr = ip4((const uint8_t[4]){ 0 }, 7471);
	is_int(raw_chan_request(&s, &m, NULL, 0), 0, "BIND 0.0.0.0:7471");
	is_int(id_req(&s, MPD_CM_LISTEN, lid, 0, &m), 0, "LISTEN");
	is_int(id_req(&c, MPD_CM_LISTEN, lid, 0, &m), EINVAL,
	       "another session's id: EINVAL");

	rc = dial(&c, s.port.ip4, 7471, 0x42, &cid);
	is_int(rc, 0, "client: address, route, CONNECT");
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_QUERY;
	m.u.cm_id_req.id = cid;
	ok(raw_chan_request(&c, &m, NULL, 0) == 0 && m.u.cm_id_info.port_num == 1 &&
	   m.u.cm_id_info.num_paths == 1 &&
	   !memcmp(m.u.cm_id_info.dgid + 12, s.port.ip4, 4),
	   "QUERY: port 1, one path to the server's IPv4-mapped GID");

	ok(event(&s, &e, 3000) == 1 && e.event == EV_CONNECT_REQUEST &&
	   e.id == lid && e.child, "server: CONNECT_REQUEST on the listen");
	child = e.child;
	is_int(e.conn.qp_num, 0x42, "with the client's QPN");
	ok(!strcmp((char *)e.conn.private_data, "hello") &&
	   e.conn.private_data_len == 56,
	   "and its private data, the cma header taken off (56 bytes)");
	is_int(qp_attr(&s, child, IBV_QPS_RTR, &sa), 0, "server: RTR attributes");
	ok(sa.attr.dest_qp_num == 0x42 && sa.attr.ah.is_global &&
	   (sa.attr_mask & IBV_QP_RQ_PSN), "RTR: dest QPN, a GRH, rq_psn");
	is_int(qp_attr(&s, child, IBV_QPS_RTS, &sa), 0, "server: RTS attributes");
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_ACCEPT;
	m.u.cm_conn_req.id = child;
	m.u.cm_conn_req.param.qp_num = 0x43;
	m.u.cm_conn_req.param.responder_resources = 1;
	m.u.cm_conn_req.param.initiator_depth = 1;
	m.u.cm_conn_req.param.rnr_retry_count = 7;
	is_int(raw_chan_request(&s, &m, NULL, 0), 0, "server: ACCEPT");

	ok(event(&c, &e, 3000) == 1 && e.event == EV_CONNECT_RESPONSE &&
	   e.id == cid && e.conn.qp_num == 0x43,
	   "client: CONNECT_RESPONSE with the server's QPN");
	is_int(qp_attr(&c, cid, IBV_QPS_RTR, &ca), 0, "client: RTR attributes");
	is_int(ca.attr.rq_psn, sa.attr.sq_psn,
	       "client's receive PSN is the server's send PSN");
	is_int(qp_attr(&c, cid, IBV_QPS_RTS, &ca), 0, "client: RTS attributes");
	is_int(qp_attr(&s, child, IBV_QPS_RTR, &sa), 0, "server: RTR again");
	is_int(sa.attr.rq_psn, ca.attr.sq_psn,
	       "server's receive PSN is the client's send PSN");
	is_int(id_req(&c, MPD_CM_ESTABLISH, cid, 0, &m), 0, "client: ESTABLISH (RTU)");
	ok(event(&s, &e, 3000) == 1 && e.event == EV_ESTABLISHED &&
	   e.id == child, "server: ESTABLISHED");
	is_int(id_req(&s, MPD_CM_NOTIFY, child, IBV_EVENT_COMM_EST, &m), EISCONN,
	       "NOTIFY(COMM_EST) once established: EISCONN");

	is_int(id_req(&c, MPD_CM_DISCONNECT, cid, 0, &m), 0, "client: DISCONNECT");
	ok(event(&s, &e, 3000) == 1 && e.event == EV_DISCONNECTED &&
	   e.id == child, "server: DISCONNECTED");
	is_int(id_req(&s, MPD_CM_DISCONNECT, child, 0, &m), 0,
	       "server: DISCONNECT (the DREP)");
	ok(event(&c, &e, 3000) == 1 && e.event == EV_DISCONNECTED &&
	   e.id == cid, "client: DISCONNECTED");
	rc = id_req(&s, MPD_CM_DESTROY_ID, child, 0, &m);
	ok(rc == 0 && m.u.cm_events_rep.events_reported == 2,
	   "DESTROY_ID: the child's events reported, ESTABLISHED and DISCONNECTED (%u)",
	   m.u.cm_events_rep.events_reported);
	is_int(id_req(&c, MPD_CM_DESTROY_ID, cid, 0, &m), 0, "client id destroyed");

	/* nobody listens on 7999 */
	rc = dial(&c, s.port.ip4, 7999, 0x44, &cid);
	ok(rc == 0 && event(&c, &e, 3000) == 1 && e.event == EV_REJECTED &&
	   e.status == 8, "a port nobody listens on: REJECTED, reason 8");
	id_req(&c, MPD_CM_DESTROY_ID, cid, 0, &m);

	/* a client that dies: its connection is torn down */
	if (!ok(raw_chan_open(&k, run_dir, "hca1") == 0, "a third session"))
		goto out;
	rc = dial(&k, s.port.ip4, 7471, 0x45, &kid);
	ok(rc == 0 && event(&s, &e, 3000) == 1 &&
	   e.event == EV_CONNECT_REQUEST, "it connects");
	child = e.child;
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_ACCEPT;
	m.u.cm_conn_req.id = child;
	m.u.cm_conn_req.param.qp_num = 0x46;
	raw_chan_request(&s, &m, NULL, 0);
	ok(event(&k, &e, 3000) == 1 && e.event == EV_CONNECT_RESPONSE,
	   "CONNECT_RESPONSE");
	id_req(&k, MPD_CM_ESTABLISH, kid, 0, &m);
	ok(event(&s, &e, 3000) == 1 && e.event == EV_ESTABLISHED,
	   "established");
	raw_chan_close(&k);
	ok(event(&s, &e, 5000) == 1 && e.event == EV_DISCONNECTED &&
	   e.id == child, "its session ends: the server gets DISCONNECTED");
	id_req(&s, MPD_CM_DESTROY_ID, child, 0, &m);

	/* a session's ids die with it: the port's table fills otherwise */
	for (n = 0; n < 6; n++) {
		struct raw_chan x;
		int made = 0;

		if (raw_chan_open(&x, run_dir, "hca1") != 0)
			break;
		for (i = 0; i < MPD_CM_SESSION_IDS; i++)
			made += create_id(&x, &ids[i % 16]) == 0;
		rc = create_id(&x, &ids[0]);
		raw_chan_close(&x);
		if (made != MPD_CM_SESSION_IDS || rc != ENOMEM)
			break;
		usleep(100000);
	}
	is_int(n, 6, "6 sessions of %d ids each, one after another (a port holds 16384)",
	       MPD_CM_SESSION_IDS);

	raw_chan_close(&c);
	raw_chan_close(&s);
out:
	kill(daemon, SIGTERM);
	waitpid(daemon, NULL, 0);
	snprintf(path, sizeof(path), "rm -rf %s", run_dir);
	if (system(path) != 0)
		tap_diag("could not remove %s", run_dir);
	return tap_done();
}
