/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hostile client of madpmd's umad channel (madpmd/chan.h), for
 * tests/pmd/test_hostile.sh. Through libmadpmd where the library lets it
 * misbehave, and speaking the raw protocol (socket, HELLO, memfd rings)
 * where it must cheat. The node is $MADPMD_NODE in $MADPMD_RUN_DIR, as
 * madpmd-run sets them.
 *
 *   chan_attack sock CASE           abuse the control socket (CASE: garbage
 *                                   short big early hello2 badlen unknown);
 *                                   0 when the daemon closes it at once
 *   chan_attack silent N SECS       up to N connections that never say
 *                                   HELLO, for SECS; then how many the
 *                                   daemon still holds
 *   chan_attack sessions MAX        open ports until refused (or MAX); hold
 *   chan_attack hog-out DLID        requests with a time-out until
 *                                   umad_send() fails; hold
 *   chan_attack raw-over DLID N     N such requests ignoring the share
 *   chan_attack duptid DLID         one TID sent twice while it waits
 *   chan_attack raw-dup DLID        the same, past the library's check
 *   chan_attack unmatched DLID      a Get of a class nobody serves
 *   chan_attack ringfull NODE DLID N  an agent that never reads, and N
 *                                   MADs for it from NODE
 *   chan_attack flood DLID SECS     sends without pause, no time-out
 *   chan_attack pingpong DLID N     N requests, 16 in flight; hold
 *   chan_attack wakeups DLID N      N requests, 1-32 in flight, each answer
 *                                   waited for by umad_recv(), poll() or
 *                                   umad_poll(); 0 when none waited 1 s
 *   chan_attack scribble            each ring position overwritten, one
 *                                   session per case
 *   chan_attack fds N               HELLO's pipes filled and made blocking,
 *                                   the doorbell rung and read back, N
 *                                   answers owed; 0 when a bystander and
 *                                   the attacker are still answered
 *   chan_attack doorbell            rings not counted stay in the doorbell
 *                                   (nobody reads it behind the sleeping
 *                                   lcore's back), a counted one is read
 *                                   back by the lcore it woke
 *   chan_attack rmpp-hog DLID N SIZE [MS]  N RMPP sends of SIZE bytes,
 *                                   MS each ACK's wait (20000); hold
 *   chan_attack sa-loop SMLID N     N SA GetTable(NodeRecord) in one session
 *   chan_attack serve               answer vendor Gets with RMPP responses
 *   chan_attack victims N DLID      N RMPP clients, each SIGKILLed a few ms
 *                                   into its transfer; their pids
 *   chan_attack telemetry SOCK CMD  one DPDK telemetry (v2) command: its
 *                                   JSON reply (what dpdk-telemetry.py
 *                                   does, without a Python start-up)
 *
 * "hold" modes print "holding" and wait for SIGTERM. Exit status 0 means
 * what the mode checks held, 1 that it did not, 2 that something else
 * failed (no daemon, bad arguments).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "madpmd/clock.h"
#include "madpmd/chan.h"
#include "madpmd/run_dir.h"
#include "madpmd/mad.h"
#include "madpmd/ring.h"
#include "madpmd/rmpp.h"
#include "raw_chan.h"

#define OUI		0x006d70u	/* vendor MADs of ours */
#define VCLASS_RMPP	0x30	/* vendor range 2: RMPP transfers */
#define VCLASS_SINK	0x31	/* an agent that never reads */
#define VCLASS_NONE	0x3f	/* nobody serves it */
#define VDATA		MPD_VENDOR_DATA_OFF
#define GSI_QP		1
#define MAX_DATA	((int)MPD_RMPP_MAX_MSG)
#define UMAD_HDR	((uint32_t)sizeof(struct ib_user_mad))

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void
hold(void)
{
	printf("holding\n");
	fflush(stdout);
	for (;;)
		pause();
}

static const char *
env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

/* <run_dir>/<node>/umad */
static int
sock_path(struct sockaddr_un *sa, const char *node)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s/%s",
		     env_or("MADPMD_RUN_DIR", MPD_RUN_DIR_SYSTEM), node,
		     MPD_CHAN_SOCK) >= (int)sizeof(sa->sun_path))
		return -1;
	return 0;
}

static const char *
my_node(void)
{
	return env_or("MADPMD_NODE", "hca1");
}

/* ---- MADs ---------------------------------------------------------------- */

static void
mad_hdr(uint8_t *mad, uint8_t cls, uint8_t ver, uint8_t method, uint64_t tid,
	uint16_t attr)
{
	memset(mad, 0, MPD_MAD_LEN);
	mad[MPD_MAD_OFF_BASE_VER] = MPD_BASE_VERSION;
	mad[MPD_MAD_OFF_CLASS] = cls;
	mad[MPD_MAD_OFF_CLASS_VER] = ver;
	mad[MPD_MAD_OFF_METHOD] = method;
	mpd_put_be64(mad + MPD_MAD_OFF_TID, tid);
	mpd_put_be16(mad + MPD_MAD_OFF_ATTR_ID, attr);
}

/* Vendor range 2: OUI, and RMPP Active for a message of several segments. */
static void
vendor_hdr(uint8_t *mad, uint8_t cls, uint8_t method, uint64_t tid,
	   bool active)
{
	mad_hdr(mad, cls, 1, method, tid, 0x0010);
	mad[MPD_RMPP_OFF] = MPD_RMPP_VERSION;
	if (active) {
		mad[MPD_RMPP_OFF_TYPE] = MPD_RMPP_TYPE_DATA;
		mad[MPD_RMPP_OFF_FLAGS] = MPD_RMPP_FLAG_ACTIVE;
	}
	mad[MPD_VENDOR_OFF_OUI] = (uint8_t)(OUI >> 16);
	mad[MPD_VENDOR_OFF_OUI + 1] = (uint8_t)(OUI >> 8);
	mad[MPD_VENDOR_OFF_OUI + 2] = (uint8_t)OUI;
}

static uint8_t
pattern(uint64_t tid, uint32_t i)
{
	return (uint8_t)(tid * 31u + i * 7u + (i >> 8));
}

/* ---- through libmadpmd --------------------------------------------------- */

static uint8_t oui_bytes[3] = { OUI >> 16, (OUI >> 8) & 0xff, OUI & 0xff };

static int
port_open(const char *node)
{
	int fd = umad_open_port(node, 0);

	if (fd < 0)
		fprintf(stderr, "chan_attack: umad_open_port(%s): %s\n",
			node ? node : "default", strerror(-fd));
	return fd;
}

/* An agent that sends (and gets its responses); methods to receive
 * requests too. */
static int
agent(int fd, uint8_t cls, uint8_t ver, uint8_t rmpp, uint64_t methods)
{
	long mask[16 / sizeof(long)];
	int id;

	memset(mask, 0, sizeof(mask));
	memcpy(mask, &methods, sizeof(methods));
	if (cls >= MPD_CLASS_VENDOR_R2_LO && cls <= MPD_CLASS_VENDOR_R2_HI)
		id = umad_register_oui(fd, cls, rmpp, oui_bytes, mask);
	else
		id = umad_register(fd, cls, ver, rmpp, mask);
	if (id < 0)
		fprintf(stderr, "chan_attack: registering class 0x%02x: %s\n",
			cls, strerror(errno));
	return id;
}

static void *
umad_buf(size_t data)
{
	void *p = calloc(1, umad_size() + data);

	if (!p) {
		fprintf(stderr, "chan_attack: out of memory\n");
		exit(2);
	}
	return p;
}

/* A GSI Get to a LID nobody has: PerfMgt PortCounters. */
static void
perf_get(void *buf, uint16_t dlid, uint64_t tid)
{
	mad_hdr(umad_get_mad(buf), MPD_CLASS_PERF, 1, MPD_METHOD_GET, tid,
		MPD_ATTR_PERF_PORT_COUNTERS);
	umad_set_addr(buf, dlid, GSI_QP, 0, MPD_QP1_QKEY);
}

/* An SMP (LID routed) NodeInfo Get, for the SMA of dlid. */
static void
smp_get(void *buf, uint16_t dlid, uint64_t tid)
{
	mad_hdr(umad_get_mad(buf), MPD_CLASS_SUBN_LID, 1, MPD_METHOD_GET, tid,
		MPD_ATTR_NODE_INFO);
	umad_set_addr(buf, dlid, 0, 0, 0);
}

static uint16_t
my_lid(void)
{
	umad_port_t p;
	uint16_t lid;

	if (umad_get_port(my_node(), 0, &p) < 0)
		return 0;
	lid = (uint16_t)p.base_lid;
	umad_release_port(&p);
	return lid;
}

/* ---- the raw protocol ---------------------------------------------------- */

struct raw {
	int sock, efd, efd_w, doorbell, db_rd;	/* HELLO's pipes */
	uint8_t *shm;
	size_t shm_size;
	struct mpd_chan_ring *txr, *rxr;
	struct mpd_ring_view tx, rx;
	struct mpd_chan_port_info port;
	uint32_t share_out;
	uint32_t seq;
	bool refused;		/* its own ring refused a send */
};

static int
raw_connect(const char *node)
{
	struct sockaddr_un sa;
	int fd;

	if (sock_path(&sa, node) != 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
hello_msg(struct mpd_chan_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = MPD_CHAN_HELLO;
	m->len = sizeof(m->u.hello_req);
	m->u.hello_req.version = MPD_CHAN_VERSION;
	m->u.hello_req.pid = (uint32_t)getpid();
}

static void
raw_close(struct raw *c)
{
	if (c->shm)
		munmap(c->shm, c->shm_size);
	if (c->efd >= 0)
		close(c->efd);
	if (c->efd_w >= 0)
		close(c->efd_w);
	if (c->doorbell >= 0)
		close(c->doorbell);
	if (c->db_rd >= 0)
		close(c->db_rd);
	if (c->sock >= 0)
		close(c->sock);
	memset(c, 0, sizeof(*c));
	c->sock = c->efd = c->efd_w = c->doorbell = c->db_rd = -1;
}

static int
raw_open(struct raw *c, const char *node)
{
	struct mpd_chan_msg m;
	struct mpd_chan_shm *h;
	int fds[5] = { -1, -1, -1, -1, -1 };
	void *p;

	memset(c, 0, sizeof(*c));
	c->efd = c->efd_w = c->doorbell = c->db_rd = -1;
	c->sock = raw_connect(node);
	if (c->sock < 0)
		return -1;
	hello_msg(&m);
	if (raw_chan_call(c->sock, &c->seq, &m, fds, 5) != 0 || fds[0] < 0)
		goto fail;
	c->port = m.u.hello_rep.port;
	c->share_out = m.u.hello_rep.share_out;
	c->shm_size = m.u.hello_rep.shm_size;
	p = mmap(NULL, c->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fds[0], 0);
	close(fds[0]);
	c->efd = fds[1];
	c->efd_w = fds[2];
	c->doorbell = fds[3];
	c->db_rd = fds[4];
	if (p == MAP_FAILED)
		goto fail;
	c->shm = p;
	h = p;
	if (h->magic != MPD_CHAN_MAGIC)
		goto fail;
	c->txr = (struct mpd_chan_ring *)(c->shm + h->tx_off);
	c->rxr = (struct mpd_chan_ring *)(c->shm + h->rx_off);
	mpd_ring_attach(&c->tx, c->txr, MPD_CHAN_RING_SIZE);
	mpd_ring_attach(&c->rx, c->rxr, MPD_CHAN_RING_SIZE);
	return 0;
fail:
	raw_close(c);
	return -1;
}

static int
raw_register(struct raw *c, uint8_t cls, uint8_t ver, uint8_t qpn)
{
	struct mpd_chan_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.type = MPD_CHAN_REGISTER;
	m.len = sizeof(m.u.reg_req);
	m.u.reg_req.mgmt_class = cls;
	m.u.reg_req.class_version = ver;
	m.u.reg_req.qpn = qpn;
	rc = raw_chan_call(c->sock, &c->seq, &m, NULL, 0);
	return rc ? -1 : (int)m.u.reg_rep.agent_id;
}

/* One send record: the ib_user_mad header then the MAD. */
static int
raw_send(struct raw *c, const struct ib_user_mad *h, const uint8_t *mad,
	 uint32_t len)
{
	const struct mpd_chan_shm *s = (const void *)c->shm;
	uint8_t one = 1;
	int rc = mpd_ring_put(&c->tx, MPD_CHAN_REC_UMAD, h, UMAD_HDR, mad, len);

	/* ring the daemon's doorbell when its lcore sleeps (madpmd/chan.h) */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!rc && c->doorbell >= 0 &&
	    __atomic_load_n(&s->doorbell_armed, __ATOMIC_ACQUIRE) &&
	    write(c->doorbell, &one, 1) < 0 && errno != EAGAIN)
		rc = -errno;
	return rc;
}

/* 0, or the ring's error (-EBADMSG: garbage where its consumer's
 * position should be) */
static int
raw_smp_get(struct raw *c, int agent_id, uint16_t dlid, uint64_t tid)
{
	struct ib_user_mad h;
	uint8_t mad[MPD_MAD_LEN];

	memset(&h, 0, sizeof(h));
	h.agent_id = (uint32_t)agent_id;
	h.addr.lid = htons(dlid);
	mad_hdr(mad, MPD_CLASS_SUBN_LID, 1, MPD_METHOD_GET, tid,
		MPD_ATTR_NODE_INFO);
	return raw_send(c, &h, mad, sizeof(mad));
}

/* True while the daemon keeps the session (no hang-up on the socket). */
static bool
raw_alive(const struct raw *c)
{
	struct pollfd p = { .fd = c->sock, .events = POLLRDHUP };

	return !(poll(&p, 1, 0) == 1 &&
		 (p.revents & (POLLHUP | POLLRDHUP | POLLERR)));
}

/* The next received record within ms: its ib_user_mad and MAD (up to
 * MPD_MAD_LEN). 1, 0 (none), -1 (the ring is garbage just now). */
static int
raw_recv(struct raw *c, struct ib_user_mad *h, uint8_t *mad, int ms)
{
	uint64_t end = mpd_mono_ms() + (uint64_t)ms;
	const uint8_t *d;
	uint32_t len, kind;
	int rc;

	for (;;) {
		rc = mpd_ring_peek(&c->rx, &d, &len, &kind);
		if (rc > 0 && kind == MPD_CHAN_REC_UMAD && len >= UMAD_HDR) {
			memcpy(h, d, UMAD_HDR);
			memset(mad, 0, MPD_MAD_LEN);
			memcpy(mad, d + UMAD_HDR,
			       len - UMAD_HDR < MPD_MAD_LEN ? len - UMAD_HDR :
							      MPD_MAD_LEN);
			mpd_ring_consume(&c->rx);
			return 1;
		}
		if (rc > 0) {
			mpd_ring_consume(&c->rx);
			continue;
		}
		if (mpd_mono_ms() >= end)
			return rc < 0 ? -1 : 0;
		sleep_ms(1);
	}
}

/* ---- sock: the control socket -------------------------------------------- */

/* Wait up to ms for the daemon to close the connection: the time it
 * took, or -1. */
static int
closed_within(int fd, int ms)
{
	uint64_t t0 = mpd_mono_ms();
	char buf[sizeof(struct mpd_chan_msg)];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
		int left = ms - (int)(mpd_mono_ms() - t0);
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0)
			return -1;
		/* a refusal may come first; then the hang-up */
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			return (int)(mpd_mono_ms() - t0);
	}
}

static int
mode_sock(const char *what)
{
	struct mpd_chan_msg m;
	uint32_t seq = 0;
	uint8_t *big = NULL;
	int fd, fds[5] = { -1, -1, -1, -1, -1 }, ms, rc = 1, i;

	fd = raw_connect(my_node());
	if (fd < 0) {
		fprintf(stderr, "chan_attack: cannot connect\n");
		return 2;
	}
	memset(&m, 0, sizeof(m));
	if (!strcmp(what, "garbage")) {
		/* a datagram of the right size, every byte 0xa5 */
		memset(&m, 0xa5, sizeof(m));
		send(fd, &m, sizeof(m), MSG_NOSIGNAL);
	} else if (!strcmp(what, "short")) {
		send(fd, "\x01\x00\x00", 3, MSG_NOSIGNAL);
	} else if (!strcmp(what, "big")) {
		big = calloc(1, 64u << 10);
		if (!big)
			return 2;
		memcpy(big, &m, sizeof(m));
		((struct mpd_chan_msg *)big)->type = MPD_CHAN_HELLO;
		if (send(fd, big, 64u << 10, MSG_NOSIGNAL) < 0)
			perror("chan_attack: send 64 KiB");
	} else if (!strcmp(what, "early")) {
		/* REGISTER before HELLO */
		m.type = MPD_CHAN_REGISTER;
		m.len = sizeof(m.u.reg_req);
		m.u.reg_req.mgmt_class = MPD_CLASS_PERF;
		m.u.reg_req.class_version = 1;
		m.u.reg_req.qpn = 1;
		send(fd, &m, sizeof(m), MSG_NOSIGNAL);
	} else if (!strcmp(what, "hello2") || !strcmp(what, "badlen") ||
		   !strcmp(what, "unknown")) {
		hello_msg(&m);
		if (raw_chan_call(fd, &seq, &m, fds, 5) != 0 || fds[0] < 0) {
			fprintf(stderr, "chan_attack: HELLO refused\n");
			return 2;
		}
		for (i = 0; i < 5; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		if (!strcmp(what, "hello2")) {
			hello_msg(&m);
		} else if (!strcmp(what, "badlen")) {
			m.type = MPD_CHAN_PORT_INFO;
			m.len = 0xffffff00u;
		} else {
			memset(&m, 0, sizeof(m));
			m.type = 0x7777;
		}
		m.seq = ++seq;
		send(fd, &m, sizeof(m), MSG_NOSIGNAL);
	} else {
		fprintf(stderr, "chan_attack: no socket case %s\n", what);
		return 2;
	}
	/* well under the 1 s a silent connection is given */
	ms = closed_within(fd, 500);
	if (ms >= 0) {
		printf("%s: closed by the daemon after %d ms\n", what, ms);
		rc = 0;
	} else {
		printf("%s: still open after 500 ms\n", what);
	}
	free(big);
	close(fd);
	return rc;
}

/* ---- silent: connections that never say HELLO ---------------------------- */

static void
nofile_max(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Close the fds the daemon hung up on; how many still open. */
static int
reap(int *fds, int *n, unsigned long *closed)
{
	struct pollfd *p;
	int i, k = 0;

	if (!*n)
		return 0;
	p = calloc((size_t)*n, sizeof(*p));
	if (!p)
		return *n;
	for (i = 0; i < *n; i++) {
		p[i].fd = fds[i];
		p[i].events = POLLRDHUP;
	}
	poll(p, (nfds_t)*n, 0);
	for (i = 0; i < *n; i++) {
		if (p[i].revents & (POLLHUP | POLLRDHUP | POLLERR)) {
			close(fds[i]);
			(*closed)++;
		} else {
			fds[k++] = fds[i];
		}
	}
	free(p);
	*n = k;
	return k;
}

static int
mode_silent(int want, int secs)
{
	struct sockaddr_un sa;
	unsigned long connects = 0, busy = 0, closed = 0;
	uint64_t end = mpd_mono_ms() + (uint64_t)secs * 1000u;
	int *fds = calloc((size_t)want, sizeof(int)), n = 0, after, late;

	if (!fds || sock_path(&sa, my_node()) != 0)
		return 2;
	nofile_max();
	while ((int)connects < want && mpd_mono_ms() < end) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
					 SOCK_CLOEXEC, 0);

		if (fd < 0) {
			/* our own descriptors: let the daemon's hang-ups in */
			reap(fds, &n, &closed);
			sleep_ms(1);
			continue;
		}
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			fds[n++] = fd;
			connects++;
		} else {
			close(fd);
			busy++;		/* backlog full: the daemon is behind */
			reap(fds, &n, &closed);
			sleep_ms(1);
		}
		if (connects % 64 == 0)
			reap(fds, &n, &closed);
	}
	/* the daemon drains its backlog, then times the rest out */
	sleep_ms(300);
	after = reap(fds, &n, &closed);
	sleep_ms(1500);
	late = reap(fds, &n, &closed);
	printf("connects %lu backlog_full %lu closed_by_daemon %lu open_after_flood %d open_after_hello_time %d\n",
	       connects, busy, closed, after, late);
	while (n)
		close(fds[--n]);
	free(fds);
	return 0;
}

/* ---- sessions: ports until refused ---------------------------------------- */

static int
mode_sessions(int max)
{
	int i, fd = 0;

	for (i = 0; i < max; i++) {
		fd = umad_open_port(NULL, 0);
		if (fd < 0)
			break;
	}
	printf("opened %d\n", i);
	if (i < max)
		printf("refused: umad_open_port %s\n", strerror(-fd));
	hold();
	return 0;
}

/* ---- the outstanding share ------------------------------------------------ */

static int
mode_hog_out(uint16_t dlid)
{
	void *buf = umad_buf(MPD_MAD_LEN);
	int fd, id, i, rc = 0, err = 0;
	uint64_t t = 0;

	fd = port_open(NULL);
	if (fd < 0 || (id = agent(fd, MPD_CLASS_PERF, 1, 0, 0)) < 0)
		return 2;
	/* far more than any share; they all wait 60 s for an answer */
	for (i = 0; i < 4096; i++) {
		perf_get(buf, dlid, 0x100u + (unsigned int)i);
		t = mpd_mono_us();
		rc = umad_send(fd, id, buf, MPD_MAD_LEN, 60000, 0);
		t = mpd_mono_us() - t;
		if (rc < 0) {
			err = errno;
			break;
		}
	}
	printf("sent %d, then umad_send %d errno %s in %" PRIu64 " us\n", i,
	       rc, err ? strerror(err) : "-", t);
	hold();
	return 0;
}

/* A PerfMgt Get(PortCounters) to dlid on the raw channel, waiting
 * timeout_ms for its answer: 0 or -1. */
static int
raw_perf_get(struct raw *c, int id, uint16_t dlid, uint32_t tid,
	     uint32_t timeout_ms)
{
	uint8_t mad[MPD_MAD_LEN];
	struct ib_user_mad h;

	memset(&h, 0, sizeof(h));
	h.agent_id = (uint32_t)id;
	h.timeout_ms = timeout_ms;
	h.addr.lid = htons(dlid);
	h.addr.qpn = htonl(GSI_QP);
	h.addr.qkey = htonl(MPD_QP1_QKEY);
	mad_hdr(mad, MPD_CLASS_PERF, 1, MPD_METHOD_GET, tid,
		MPD_ATTR_PERF_PORT_COUNTERS);
	return raw_send(c, &h, mad, sizeof(mad)) ? -1 : 0;
}

/* Raw: n requests with a time-out, the share ignored; the daemon must
 * hand back every one past it with ENOMEM. */
static int
mode_raw_over(uint16_t dlid, int n)
{
	struct ib_user_mad h;
	uint8_t mad[MPD_MAD_LEN];
	struct raw c;
	int id, i, enomem = 0, other = 0;

	if (raw_open(&c, my_node()) != 0 ||
	    (id = raw_register(&c, MPD_CLASS_PERF, 1, 1)) < 0)
		return 2;
	for (i = 0; i < n; i++)
		if (raw_perf_get(&c, id, dlid, 0x1000u + (uint32_t)i, 60000))
			return 2;
	while (raw_recv(&c, &h, mad, 1000) > 0) {
		if (h.status == ENOMEM)
			enomem++;
		else
			other++;
	}
	printf("%d sends, share %u: %d handed back with ENOMEM, %d otherwise; session %s\n",
	       n, c.share_out, enomem, other,
	       raw_alive(&c) ? "kept" : "cut off");
	return enomem == n - (int)c.share_out && !other ? 0 : 1;
}

/* The same duplicate from a client that skips the library's check: the
 * daemon hands the second back with EINVAL and keeps the session. */
static int
mode_raw_dup(uint16_t dlid)
{
	struct ib_user_mad h;
	uint8_t mad[MPD_MAD_LEN];
	struct raw c;
	int id, i, einval = 0, other = 0;

	if (raw_open(&c, my_node()) != 0 ||
	    (id = raw_register(&c, MPD_CLASS_PERF, 1, 1)) < 0)
		return 2;
	for (i = 0; i < 2; i++)
		if (raw_perf_get(&c, id, dlid, 0x4343, 3000))
			return 2;
	while (raw_recv(&c, &h, mad, 500) > 0) {
		if (h.status == EINVAL)
			einval++;
		else
			other++;
	}
	printf("raw: %d handed back with EINVAL, %d otherwise; session %s\n",
	       einval, other, raw_alive(&c) ? "kept" : "cut off");
	return einval == 1 && raw_alive(&c) ? 0 : 1;
}

static int
mode_duptid(uint16_t dlid)
{
	void *buf = umad_buf(MPD_MAD_LEN);
	int fd, id, len, got, err, rc = 1;
	uint64_t t0, us, tid;

	fd = port_open(NULL);
	if (fd < 0 || (id = agent(fd, MPD_CLASS_PERF, 1, 0, 0)) < 0)
		return 2;
	perf_get(buf, dlid, 0x4242);
	if (umad_send(fd, id, buf, MPD_MAD_LEN, 5000, 0) < 0)
		return 2;
	/* the same TID 31..0 with other upper bits: the daemon puts the
	 * agent's there, so over the kernel this is the same request too */
	perf_get(buf, dlid, 0x77000000004242ull);
	t0 = mpd_mono_us();
	got = umad_send(fd, id, buf, MPD_MAD_LEN, 5000, 0);
	err = errno;
	us = mpd_mono_us() - t0;
	if (got == 0) {
		printf("second send accepted\n");
		goto out;
	}
	printf("second send refused in %" PRIu64 " us: %s", us, strerror(err));
	len = MPD_MAD_LEN;
	got = umad_recv(fd, buf, &len, 1000);
	tid = mpd_get_be64((uint8_t *)umad_get_mad(buf) + MPD_MAD_OFF_TID);
	if (got < 0 || umad_status(buf) || (tid & 0xffffffffu) != 0x4242) {
		printf("; the first got no answer\n");
		goto out;
	}
	/* answered: the TID is free again */
	perf_get(buf, dlid, 0x4242);
	if (umad_send(fd, id, buf, MPD_MAD_LEN, 5000, 0) < 0) {
		printf("; after its answer the TID is still refused (%s)\n",
		       strerror(errno));
		goto out;
	}
	len = MPD_MAD_LEN;
	got = umad_recv(fd, buf, &len, 1000);
	printf("; after the answer it is sent again and %s\n",
	       got >= 0 && !umad_status(buf) ? "answered" : "not answered");
	rc = err == EINVAL && got >= 0 && !umad_status(buf) ? 0 : 1;
out:
	umad_close_port(fd);
	return rc;
}

/* ---- a class nobody serves ------------------------------------------------ */

static int
mode_unmatched(uint16_t dlid)
{
	void *buf = umad_buf(MPD_MAD_LEN);
	uint8_t *mad = umad_get_mad(buf);
	int fd, id, len, got;
	uint16_t status;
	uint64_t t0;

	fd = port_open(NULL);
	if (fd < 0 || (id = agent(fd, VCLASS_NONE, 1, 0, 0)) < 0)
		return 2;
	vendor_hdr(mad, VCLASS_NONE, MPD_METHOD_GET, 0x77, false);
	umad_set_addr(buf, dlid, 1, 0, MPD_QP1_QKEY);
	t0 = mpd_mono_ms();
	if (umad_send(fd, id, buf, MPD_MAD_LEN, 2000, 0) < 0)
		return 2;
	len = MPD_MAD_LEN;
	got = umad_recv(fd, buf, &len, 3000);
	if (got < 0 || umad_status(buf)) {
		printf("no answer after %d ms (%s)\n", (int)(mpd_mono_ms() - t0),
		       got < 0 ? strerror(-got) : strerror(umad_status(buf)));
		return 1;
	}
	status = (uint16_t)(mad[MPD_MAD_OFF_STATUS] << 8 |
			    mad[MPD_MAD_OFF_STATUS + 1]);
	printf("method 0x%02x status 0x%04x after %d ms\n",
	       mad[MPD_MAD_OFF_METHOD], status, (int)(mpd_mono_ms() - t0));
	return mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_GET_RESP &&
	       status == MPD_STATUS_METHOD_ATTR_UNSUP &&
	       mpd_mono_ms() - t0 < 500 ? 0 : 1;
}

/* ---- a receive ring nobody empties ------------------------------------------ */

static int
mode_ringfull(const char *from, uint16_t dlid, int n)
{
	void *buf = umad_buf(MPD_MAD_LEN);
	int sink, fd, id, i, sent = 0;

	sink = port_open(NULL);
	if (sink < 0 || agent(sink, VCLASS_SINK, 1, 0, 1u << MPD_METHOD_GET) < 0)
		return 2;
	fd = port_open(from);
	if (fd < 0 || (id = agent(fd, VCLASS_SINK, 1, 0, 0)) < 0)
		return 2;
	for (i = 0; i < n; i++) {
		vendor_hdr(umad_get_mad(buf), VCLASS_SINK, MPD_METHOD_GET,
			   0x10000u + (unsigned int)i, false);
		umad_set_addr(buf, dlid, 1, 0, MPD_QP1_QKEY);
		sent += umad_send(fd, id, buf, MPD_MAD_LEN, 0, 0) == 0;
	}
	/* let the last ones arrive before the sink goes */
	sleep_ms(500);
	printf("sent %d MADs to an agent that never reads\n", sent);
	return 0;
}

/* ---- pingpong: requests answered, 16 in flight ---------------------------- */

static int
mode_pingpong(uint16_t dlid, int n)
{
	void *buf = umad_buf(MPD_MAD_LEN);
	int fd, id, sent = 0, answered = 0, len;

	fd = port_open(NULL);
	if (fd < 0 || (id = agent(fd, MPD_CLASS_PERF, 1, 0, 0)) < 0)
		return 2;
	while (answered < n) {
		while (sent < n && sent - answered < 16) {
			perf_get(buf, dlid, 0x10000u + (unsigned int)sent);
			if (umad_send(fd, id, buf, MPD_MAD_LEN, 1000, 0) < 0)
				goto out;
			sent++;
		}
		len = MPD_MAD_LEN;
		if (umad_recv(fd, buf, &len, 2000) < 0 || umad_status(buf))
			break;
		answered++;
	}
out:
	printf("answered %d of %d\n", answered, n);
	if (answered != n)
		return 1;
	hold();
	return 0;
}

/* ---- wakeups: every answer wakes whoever waits ------------------------------ */

/*
 * N requests, up to 32 in flight, each answer waited for in one of three
 * ways at random: umad_recv() with a time-out (it spins, then sleeps),
 * poll() on the port fd as an application does, then umad_recv(0), or
 * umad_poll(). A wake-up lost (a record queued, the fd not readable)
 * shows as a wait of a second; 0 when none was.
 */
static int
mode_wakeups(uint16_t dlid, int n)
{
	void *buf = umad_buf(MPD_MAD_LEN);
	int fd, id, sent = 0, answered = 0, stalls = 0, len, got, how[3] = { 0 };
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid(), t;

	fd = port_open(NULL);
	if (fd < 0 || (id = agent(fd, MPD_CLASS_PERF, 1, 0, 0)) < 0)
		return 2;
	while (answered < n) {
		unsigned int burst, k;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		burst = 1 + (unsigned int)(seed >> 59);	/* 1..32 */
		for (k = 0; k < burst && sent < n && sent - answered < 32; k++) {
			perf_get(buf, dlid, 0x30000u + (unsigned int)sent);
			if (umad_send(fd, id, buf, MPD_MAD_LEN, 2000, 0) < 0)
				goto out;
			sent++;
		}
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		k = (unsigned int)(seed >> 62) % 3;
		how[k]++;
		t = mpd_mono_ms();
		do {
			len = MPD_MAD_LEN;
			if (k == 0) {
				got = umad_recv(fd, buf, &len, 3000);
				break;
			}
			if (k == 1) {
				struct pollfd p = { .fd = umad_get_fd(fd),
						    .events = POLLIN };

				got = poll(&p, 1, 3000) == 1 ? 0 : -ETIMEDOUT;
			} else {
				got = umad_poll(fd, 3000);
			}
			if (got == 0)
				got = umad_recv(fd, buf, &len, 0);
			/* a wake-up whose record another look took: the
			 * kernel's fd has none, an eventfd may; wait again */
		} while (got == -EWOULDBLOCK && mpd_mono_ms() - t < 3000);
		if (mpd_mono_ms() - t >= 1000)
			stalls++;
		if (got < 0 || umad_status(buf))
			break;
		answered++;
	}
out:
	printf("answered %d of %d (waits: %d umad_recv, %d poll, %d umad_poll); %d waited a second or more\n",
	       answered, n, how[0], how[1], how[2], stalls);
	umad_close_port(fd);
	return answered == n && !stalls ? 0 : 1;
}

/* ---- flood: sends without pause -------------------------------------------- */

static int
mode_flood(uint16_t dlid, int secs)
{
	void *buf = umad_buf(MPD_MAD_LEN);
	uint16_t lid = my_lid();
	bool sma = dlid == lid;
	unsigned long sent = 0, failed = 0;
	uint64_t end = mpd_mono_ms() + (uint64_t)secs * 1000u, tid = 1;
	int fd, id;

	fd = port_open(NULL);
	if (fd < 0 || (id = sma ? agent(fd, MPD_CLASS_SUBN_LID, 1, 0, 0) :
				  agent(fd, MPD_CLASS_PERF, 1, 0, 0)) < 0)
		return 2;
	printf("flooding %s %u\n", sma ? "our own SMA at" : "LID", dlid);
	while (mpd_mono_ms() < end) {
		unsigned int i;

		for (i = 0; i < 256; i++) {
			if (sma)
				smp_get(buf, dlid, tid++);
			else
				perf_get(buf, dlid, tid++);
			if (umad_send(fd, id, buf, MPD_MAD_LEN, 0, 0) == 0)
				sent++;
			else
				failed++;
		}
	}
	printf("sent %lu, %lu refused\n", sent, failed);
	return 0;
}

/* ---- scribble: ring positions overwritten ---------------------------------- */

enum ring_end { TX_HEAD, TX_TAIL, RX_HEAD, RX_TAIL };

static const struct scribble {
	const char *name;
	enum ring_end which;
	int how;	/* 0 huge, 1 unaligned, 2 behind, 3 ahead, 4 at the end */
} scribbles[] = {
	{ "tx-head-huge", TX_HEAD, 0 },
	{ "tx-head-unaligned", TX_HEAD, 1 },
	{ "tx-head-behind", TX_HEAD, 2 },
	{ "tx-tail-huge", TX_TAIL, 0 },
	{ "tx-tail-unaligned", TX_TAIL, 1 },
	{ "tx-tail-behind", TX_TAIL, 2 },
	{ "tx-tail-ahead", TX_TAIL, 3 },
	{ "rx-head-huge", RX_HEAD, 0 },
	{ "rx-head-unaligned", RX_HEAD, 1 },
	{ "rx-head-end", RX_HEAD, 4 },
	{ "rx-tail-huge", RX_TAIL, 0 },
	{ "rx-tail-behind", RX_TAIL, 2 },
	{ "rx-tail-ahead", RX_TAIL, 3 },
};

static uint64_t *
ring_pos(struct raw *c, enum ring_end which)
{
	switch (which) {
	case TX_HEAD:
		return &c->txr->head;
	case TX_TAIL:
		return &c->txr->tail;
	case RX_HEAD:
		return &c->rxr->head;
	default:
		return &c->rxr->tail;
	}
}

static void
scribble_one(struct raw *c, const struct scribble *s)
{
	uint64_t *p = ring_pos(c, s->which), v = __atomic_load_n(p,
							__ATOMIC_ACQUIRE);

	switch (s->how) {
	case 0:
		v = 0x7ff0000000000003ull;
		break;
	case 1:
		v += 3;
		break;
	case 2:
		v = v > MPD_CHAN_RING_SIZE ? v - MPD_CHAN_RING_SIZE - 64 : 0;
		if (s->which == TX_TAIL || s->which == RX_TAIL)
			v = 0;	/* back to the start: records replayed */
		break;
	case 3:
		v += 4096;
		break;
	default:
		v = (v & ~(uint64_t)(MPD_CHAN_RING_SIZE - 1)) +
		    MPD_CHAN_RING_SIZE - 3;
		break;
	}
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* A NodeInfo Get to our own SMA through c; true when the right answer
 * came back within ms. */
static bool
raw_works(struct raw *c, int agent_id, uint64_t tid, int ms)
{
	uint64_t end = mpd_mono_ms() + (uint64_t)ms;
	struct ib_user_mad h;
	uint8_t mad[MPD_MAD_LEN];

	if (raw_smp_get(c, agent_id, (uint16_t)c->port.lid, tid) == -EBADMSG) {
		c->refused = true;	/* its own ring saw the garbage */
		return false;
	}
	while (mpd_mono_ms() < end && raw_alive(c)) {
		if (raw_recv(c, &h, mad, 20) <= 0)
			continue;
		if (mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_GET_RESP &&
		    (mpd_get_be64(mad + MPD_MAD_OFF_TID) & 0xffffffffu) ==
		    (tid & 0xffffffffu))
			return mpd_get_be64(mad + MPD_SMP_DATA_OFF + 12) ==
			       c->port.node_guid;
	}
	return false;
}

#define NSCRIBBLES	(sizeof(scribbles) / sizeof(scribbles[0]))

/* Every case at once, a session each; then a bystander's query. */
static int
mode_scribble(void)
{
	struct raw by, c[NSCRIBBLES];
	int bid, id[NSCRIBBLES], k;
	bool works[NSCRIBBLES];
	unsigned int i;

	if (raw_open(&by, my_node()) != 0 ||
	    (bid = raw_register(&by, MPD_CLASS_SUBN_LID, 1, 0)) < 0)
		return 2;
	for (i = 0; i < NSCRIBBLES; i++) {
		if (raw_open(&c[i], my_node()) != 0 ||
		    (id[i] = raw_register(&c[i], MPD_CLASS_SUBN_LID, 1, 0)) < 0)
			return 2;
		/* some traffic first, so that there is history to replay */
		for (k = 0; k < 4; k++)
			if (!raw_works(&c[i], id[i], 0x100u + k, 300)) {
				printf("no answer before any scribbling\n");
				return 2;
			}
	}
	for (i = 0; i < NSCRIBBLES; i++)
		scribble_one(&c[i], &scribbles[i]);
	for (i = 0; i < NSCRIBBLES; i++)
		works[i] = raw_works(&c[i], id[i], 0x200, i ? 100 : 500);
	/* a cut-off is the control thread's, within its 100 ms round */
	sleep_ms(300);
	for (i = 0; i < NSCRIBBLES; i++) {
		const char *verdict = works[i] ? "working" :
				      !raw_alive(&c[i]) ? "cut-off" :
				      c[i].refused ? "refused by its own ring" :
				      "stalled";

		printf("%s: %s; bystander %s\n", scribbles[i].name, verdict,
		       raw_works(&by, bid, 0x300u + i, 1000) ? "answered" :
							       "NOT answered");
		raw_close(&c[i]);
	}
	raw_close(&by);
	return 0;
}

/* ---- RMPP ----------------------------------------------------------------- */

static int
mode_rmpp_hog(uint16_t dlid, int n, int size, int timeout_ms)
{
	void *buf, *back = umad_buf(MPD_MAD_LEN);
	int fd, id, i, ok = 0, at_once = 0, other = 0, later = 0, late_other = 0;
	uint64_t t, slowest = 0;

	if (size < MPD_MAD_LEN || size > MAX_DATA)
		return 2;
	buf = umad_buf((size_t)size);
	fd = port_open(NULL);
	if (fd < 0 || (id = agent(fd, VCLASS_RMPP, 1, 1, 0)) < 0)
		return 2;
	for (i = 0; i < n; i++) {
		int len = MPD_MAD_LEN;

		vendor_hdr(umad_get_mad(buf), VCLASS_RMPP, MPD_METHOD_SET,
			   0x20000u + (unsigned int)i, true);
		umad_set_addr(buf, dlid, 1, 0, MPD_QP1_QKEY);
		/* by default a long wait for each ACK: they hold their
		 * share */
		t = mpd_mono_us();
		if (umad_send(fd, id, buf, size, timeout_ms, 0) == 0) {
			ok++;
		} else if (errno == ENOMEM) {
			at_once++;
			t = mpd_mono_us() - t;
			slowest = t > slowest ? t : slowest;
		} else {
			other++;
		}
		/* sends handed back meanwhile (their headers only) */
		while (umad_recv(fd, back, &len, 0) >= 0) {
			if (umad_status(back) == ENOMEM)
				later++;
			else
				late_other++;
			len = MPD_MAD_LEN;
		}
	}
	for (;;) {
		int len = MPD_MAD_LEN;

		if (umad_recv(fd, back, &len, 500) < 0)
			break;
		if (umad_status(back) == ENOMEM)
			later++;
		else
			late_other++;
	}
	printf("%d RMPP sends of %d bytes: %d taken, %d refused at once (ENOMEM, the slowest in %" PRIu64 " us), %d failed otherwise; handed back later: %d ENOMEM, %d other\n",
	       n, size, ok - later, at_once, slowest, other, later, late_other);
	hold();
	return 0;
}

/* SA GetTable(NodeRecord) n times in one session, up to the first that
 * gets no whole answer */
static int
mode_sa_loop(uint16_t smlid, int n)
{
	void *buf = umad_buf(64u << 10);
	uint8_t *mad = umad_get_mad(buf);
	int fd, id, i;

	fd = port_open(NULL);
	if (fd < 0 || (id = agent(fd, MPD_CLASS_SUBN_ADM, 2, 1, 0)) < 0)
		return 2;
	for (i = 0; i < n; i++) {
		int len = 64 << 10, got;

		mad_hdr(mad, MPD_CLASS_SUBN_ADM, 2, MPD_METHOD_GET_TABLE,
			0x30000u + (unsigned int)i, MPD_ATTR_SA_NODE_RECORD);
		mad[MPD_RMPP_OFF] = MPD_RMPP_VERSION;
		umad_set_addr(buf, smlid, 1, 0, MPD_QP1_QKEY);
		if (umad_send(fd, id, buf, MPD_MAD_LEN, 500, 1) < 0) {
			printf("query %d: umad_send: %s\n", i + 1, strerror(errno));
			break;
		}
		got = umad_recv(fd, buf, &len, 2000);
		if (got < 0 || umad_status(buf) ||
		    mad[MPD_MAD_OFF_METHOD] != MPD_METHOD_GET_TABLE_RESP ||
		    len <= MPD_MAD_LEN) {
			printf("query %d: no whole answer (%s, status %d, %d bytes)\n",
			       i + 1, got < 0 ? strerror(-got) : "received",
			       got < 0 ? 0 : umad_status(buf), len);
			break;
		}
	}
	printf("%d of %d SA GetTable(NodeRecord) answered in one session\n",
	       i, n);
	umad_close_port(fd);
	return i == n ? 0 : 1;
}

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* Answer each vendor Get with a GetResp of the size its data asks for. */
static int
mode_serve(void)
{
	struct sigaction sa = { .sa_handler = on_term };
	void *in = umad_buf((size_t)MAX_DATA), *out = umad_buf((size_t)MAX_DATA);
	unsigned long served = 0;
	int fd, id;

	sigaction(SIGTERM, &sa, NULL);
	fd = port_open(NULL);
	if (fd < 0 || (id = agent(fd, VCLASS_RMPP, 1, 1,
				  1u << MPD_METHOD_GET)) < 0)
		return 2;
	printf("serving\n");
	fflush(stdout);
	while (!stop) {
		struct ib_mad_addr *a = umad_get_mad_addr(in);
		uint8_t *req = umad_get_mad(in), *resp = umad_get_mad(out);
		int len = MAX_DATA, got;
		uint32_t size, i;
		uint64_t tid;

		got = umad_recv(fd, in, &len, 200);
		if (got < 0 || umad_status(in) ||
		    req[MPD_MAD_OFF_METHOD] != MPD_METHOD_GET || len < VDATA + 4)
			continue;
		tid = mpd_get_be64(req + MPD_MAD_OFF_TID);
		size = mpd_get_be32(req + VDATA);
		if (size > (uint32_t)(MAX_DATA - VDATA))
			size = (uint32_t)(MAX_DATA - VDATA);
		vendor_hdr(resp, VCLASS_RMPP, MPD_METHOD_GET_RESP, tid,
			   VDATA + size > MPD_MAD_LEN);
		for (i = 0; i < size; i++)
			resp[VDATA + i] = pattern(tid, i);
		umad_set_addr(out, ntohs(a->lid), (int)ntohl(a->qpn), a->sl,
			      MPD_QP1_QKEY);
		if (umad_send(fd, id, out, (int)(VDATA + size), 0, 0) == 0)
			served++;
	}
	printf("served %lu\n", served);
	umad_close_port(fd);
	return 0;
}

/* A victim: an RMPP request of 256 KiB asking for as much back. */
static void
victim(int ready, uint16_t dlid)
{
	const uint32_t size = 256u << 10;
	void *buf = umad_buf(size + VDATA);
	uint8_t *mad = umad_get_mad(buf);
	int fd, id, len;
	uint32_t i;

	fd = umad_open_port(NULL, 0);
	if (fd < 0 || (id = agent(fd, VCLASS_RMPP, 1, 1, 0)) < 0)
		_exit(2);
	vendor_hdr(mad, VCLASS_RMPP, MPD_METHOD_GET, 0x40000u + (unsigned)getpid(),
		   true);
	mpd_put_be32(mad + VDATA, size);
	for (i = 4; i < size; i++)
		mad[VDATA + i] = (uint8_t)i;
	umad_set_addr(buf, dlid, 1, 0, MPD_QP1_QKEY);
	if (write(ready, "r", 1) != 1)
		_exit(2);
	umad_send(fd, id, buf, (int)(VDATA + size), 2000, 0);
	len = (int)(size + VDATA);
	umad_recv(fd, buf, &len, 5000);
	_exit(0);
}

static int
mode_victims(int n, uint16_t dlid)
{
	int i, killed = 0;

	srand((unsigned int)getpid());
	for (i = 0; i < n; i++) {
		int p[2];
		char c;
		pid_t pid;

		if (pipe(p) != 0)
			return 2;
		pid = fork();
		if (pid < 0)
			return 2;
		if (pid == 0) {
			close(p[0]);
			victim(p[1], dlid);
		}
		close(p[1]);
		/* its session is open; a few ms into its transfer, it dies */
		if (read(p[0], &c, 1) == 1) {
			sleep_ms((unsigned int)(rand() % 12));
			kill(pid, SIGKILL);
			killed++;
			printf("%d\n", (int)pid);
		}
		close(p[0]);
		waitpid(pid, NULL, 0);
	}
	fprintf(stderr, "chan_attack: %d of %d victims killed in their transfer\n",
		killed, n);
	return killed == n ? 0 : 1;
}

/* ---- fds: the pipes HELLO hands over, abused ------------------------------ */

/* Write a byte at a time until it is full: how many went in. */
static long
fill_pipe(int fd)
{
	uint8_t b = 1;
	long n = 0;

	while (write(fd, &b, 1) == 1)
		n++;
	return errno == EAGAIN ? n : -1;
}

static bool
make_blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0;
}

/*
 * A session that fills its port fd (through the daemon's end of the
 * socketpair, which it holds to wake itself) and its doorbell, makes every
 * fd it was given blocking (O_NONBLOCK belongs to the open file: had the
 * daemon used one of them as it is, its next write or read would now
 * block), then sends N SMP Gets to its own port that the daemon must
 * answer into its ring and wake it for, and rings its doorbell and reads
 * it back for a second. A bystander session's SMP Get must come back
 * meanwhile, and the attacker's N answers be in its ring.
 */
static int
mode_fds(int n)
{
	struct raw a, by;
	struct ib_user_mad h;
	uint8_t mad[MPD_MAD_LEN];
	long wake_fill, db_fill = 0;
	int ida, idb, i, got = 0, ok = 0, steal = -1;
	uint64_t t, end;
	bool by_ok;

	if (raw_open(&a, my_node()) != 0 || raw_open(&by, my_node()) != 0)
		return 2;
	ida = raw_register(&a, MPD_CLASS_SUBN_LID, 1, 0);
	idb = raw_register(&by, MPD_CLASS_SUBN_LID, 1, 0);
	if (ida < 0 || idb < 0)
		return 2;
	wake_fill = fill_pipe(a.efd_w);
	if (a.doorbell >= 0)
		db_fill = fill_pipe(a.doorbell);
	if (wake_fill <= 0 || db_fill < 0 ||
	    !make_blocking(a.efd) || !make_blocking(a.efd_w) ||
	    (a.doorbell >= 0 && (!make_blocking(a.doorbell) ||
				 !make_blocking(a.db_rd)))) {
		printf("could not set the attack up (wake %ld, doorbell %ld): %s\n",
		       wake_fill, db_fill, strerror(errno));
		return 2;
	}
	/* room to ring again, read through a reader of our own that does
	 * not block (the daemon may read it empty first) */
	if (a.doorbell >= 0) {
		char path[32];
		uint8_t buf[4096];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", a.db_rd);
		steal = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (steal < 0)
			return 2;
		while (read(steal, buf, sizeof(buf)) > 0)
			;
	}
	for (i = 0; i < n; i++)
		if (raw_smp_get(&a, ida, (uint16_t)a.port.lid, 0x7000u + (unsigned)i))
			return 2;
	/* ring and take the ring back: the daemon's reader must neither
	 * block nor spin on what we took */
	end = mpd_mono_ms() + 1000;
	while (a.doorbell >= 0 && mpd_mono_ms() < end) {
		uint8_t b = 1;

		if (write(a.doorbell, &b, 1) == 1 && read(steal, &b, 1) < 0 &&
		    errno != EAGAIN)
			break;
	}
	if (steal >= 0)
		close(steal);
	t = mpd_mono_ms();
	by_ok = raw_works(&by, idb, 0x7777u, 3000);
	t = mpd_mono_ms() - t;
	end = mpd_mono_ms() + 3000;
	while (got < n && mpd_mono_ms() < end) {
		if (raw_recv(&a, &h, mad, 20) <= 0)
			continue;
		got++;
		if (mad[MPD_MAD_OFF_METHOD] == MPD_METHOD_GET_RESP &&
		    mpd_get_be64(mad + MPD_SMP_DATA_OFF + 12) == a.port.node_guid)
			ok++;
	}
	printf("port fd filled with %ld bytes, doorbell with %ld, all fds blocking; bystander's Get %s in %" PRIu64 " ms; attacker's answers %d of %d (%d NodeInfo)\n",
	       wake_fill, db_fill, by_ok ? "answered" : "NOT answered", t, got,
	       n, ok);
	raw_close(&a);
	raw_close(&by);
	return by_ok && ok == n ? 0 : 1;
}

/* Bytes waiting in a pipe, -1 when unknown */
static int
pipe_bytes(int fd)
{
	int n;

	return ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}

/* Armed within ms: the port's lcore sleeps on the doorbells */
static bool
wait_armed(const struct raw *c, int ms)
{
	const struct mpd_chan_shm *h = (const void *)c->shm;
	uint64_t end = mpd_mono_ms() + (uint64_t)ms;

	while (!__atomic_load_n(&h->doorbell_armed, __ATOMIC_ACQUIRE)) {
		if (mpd_mono_ms() >= end)
			return false;
		usleep(1000);
	}
	return true;
}

/*
 * The doorbell is the sleeping lcore's alone to read (madpmd/chan.h,
 * "Doorbell"): a reader that took a ring's byte before the lcore's epoll
 * looked at it left the lcore asleep with the send queued, until its
 * 100 ms time-out (ib_send_lat's 50 ms maximums). Three rings that the
 * client did not count must still be in the pipe after 300 ms (the
 * channel thread read every doorbell each 50 ms); a counted ring while
 * the lcore sleeps must be read back by the lcore it wakes.
 */
static int
mode_doorbell(void)
{
	struct mpd_chan_shm *h;
	uint8_t b[3] = { 1, 1, 1 };
	uint64_t end;
	int left, after;
	struct raw c;

	if (raw_open(&c, my_node()) != 0 || c.doorbell < 0)
		return 2;
	h = (struct mpd_chan_shm *)c.shm;
	if (!wait_armed(&c, 3000)) {
		printf("the lcore never slept\n");
		return 2;
	}
	if (write(c.doorbell, b, sizeof(b)) != (ssize_t)sizeof(b))
		return 2;
	usleep(300000);
	left = pipe_bytes(c.db_rd);
	if (!wait_armed(&c, 3000))
		return 2;
	__atomic_add_fetch(&h->doorbell_rings, 1, __ATOMIC_RELEASE);
	if (write(c.doorbell, b, 1) != 1)
		return 2;
	end = mpd_mono_ms() + 3000;
	while ((after = pipe_bytes(c.db_rd)) > 0 && mpd_mono_ms() < end)
		usleep(1000);
	printf("uncounted rings left after 300 ms: %d of 3; after a counted ring: %d\n",
	       left, after);
	raw_close(&c);
	return left == 3 && after == 0 ? 0 : 1;
}

/* ---- DPDK telemetry ---------------------------------------------------------- */

static int
mode_telemetry(const char *path, const char *cmd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char buf[1 << 16];
	ssize_t n;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return 2;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("chan_attack: telemetry socket");
		return 2;
	}
	/* the greeting (version, pid, max_output_len), then one command */
	if (recv(fd, buf, sizeof(buf), 0) <= 0 ||
	    send(fd, cmd, strlen(cmd), MSG_NOSIGNAL) < 0 ||
	    (n = recv(fd, buf, sizeof(buf) - 1, 0)) <= 0) {
		perror("chan_attack: telemetry");
		close(fd);
		return 2;
	}
	buf[n] = '\0';
	printf("%s\n", buf);
	close(fd);
	return 0;
}

/* ---- main ----------------------------------------------------------------- */

static int
usage(void)
{
	fprintf(stderr, "usage: chan_attack MODE [ARGS] (see the source)\n");
	return 2;
}

static uint16_t
lid_arg(const char *s)
{
	return (uint16_t)strtoul(s, NULL, 0);
}

int
main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(m, "sock") && argc == 3)
		return mode_sock(argv[2]);
	if (!strcmp(m, "silent") && argc == 4)
		return mode_silent(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(m, "sessions") && argc == 3)
		return mode_sessions(atoi(argv[2]));
	if (!strcmp(m, "hog-out") && argc == 3)
		return mode_hog_out(lid_arg(argv[2]));
	if (!strcmp(m, "raw-over") && argc == 4)
		return mode_raw_over(lid_arg(argv[2]), atoi(argv[3]));
	if (!strcmp(m, "raw-dup") && argc == 3)
		return mode_raw_dup(lid_arg(argv[2]));
	if (!strcmp(m, "duptid") && argc == 3)
		return mode_duptid(lid_arg(argv[2]));
	if (!strcmp(m, "unmatched") && argc == 3)
		return mode_unmatched(lid_arg(argv[2]));
	if (!strcmp(m, "ringfull") && argc == 5)
		return mode_ringfull(argv[2], lid_arg(argv[3]), atoi(argv[4]));
	if (!strcmp(m, "wakeups") && argc == 4)
		return mode_wakeups(lid_arg(argv[2]), atoi(argv[3]));
	if (!strcmp(m, "pingpong") && argc == 4)
		return mode_pingpong(lid_arg(argv[2]), atoi(argv[3]));
	if (!strcmp(m, "flood") && argc == 4)
		return mode_flood(lid_arg(argv[2]), atoi(argv[3]));
	if (!strcmp(m, "scribble") && argc == 2)
		return mode_scribble();
	if (!strcmp(m, "doorbell") && argc == 2)
		return mode_doorbell();
	if (!strcmp(m, "fds") && argc == 3)
		return mode_fds(atoi(argv[2]));
	if (!strcmp(m, "rmpp-hog") && (argc == 5 || argc == 6))
		return mode_rmpp_hog(lid_arg(argv[2]), atoi(argv[3]),
				     atoi(argv[4]),
				     argc == 6 ? atoi(argv[5]) : 20000);
	if (!strcmp(m, "sa-loop") && argc == 4)
		return mode_sa_loop(lid_arg(argv[2]), atoi(argv[3]));
	if (!strcmp(m, "serve") && argc == 2)
		return mode_serve();
	if (!strcmp(m, "victims") && argc == 4)
		return mode_victims(atoi(argv[2]), lid_arg(argv[3]));
	if (!strcmp(m, "telemetry") && argc == 4)
		return mode_telemetry(argv[2], argv[3]);
	return usage();
}
