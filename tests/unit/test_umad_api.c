/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libibumad over madpmd (lib/umad), linked as libmadpmd: every error path
 * that needs no daemon, the buffer accessors against rdma-core's struct
 * layouts, the string helpers, and the channel for real against a small
 * stand-in for the daemon's control plane written here from
 * madpmd/chan.h (HELLO with a memfd and an eventfd, REGISTER, UNREGISTER,
 * PORT_INFO), whose rings the test drives as the daemon's lcore would.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>
#include <infiniband/umad_str.h>

#include "madpmd/clock.h"
#include "madpmd/chan.h"
#include "madpmd/page.h"
#include "madpmd/ring.h"
#include "tap.h"

#define NODE_GUID	0x0002c90300001230ull
#define PORT_GUID	0x0002c90300001231ull
#define GID_PREFIX	0xfe80000000000000ull
#define MAX_SESS	8
#define SHARE_OUT	4	/* the sessions' shares, small to fill */
#define SHARE_XFER	16
#define RING_HDR	((uint32_t)sizeof(struct mpd_chan_ring))
#define PAGE		mpd_page_size()

static char tmp_root[256];

/* a call's result and the errno it left, before TAP output can touch it */
static int ret_, err_;
#define E(call)	(errno = 0, ret_ = (int)(call), err_ = errno, ret_)

/* ---- helpers ---------------------------------------------------------------- */

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		tap_diag("cannot write %s", path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void
make_node_dir(const char *run_dir, const char *node)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", run_dir, node);
	mkdir(path, 0700);
}

static bool
fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* stderr into a file while a piece of the test runs */
static int saved_stderr = -1;
static char err_path[512];

static void
capture_stderr(void)
{
	int fd;

	snprintf(err_path, sizeof(err_path), "%s/stderr.txt", tmp_root);
	fflush(stderr);
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* Stop capturing; how often needle occurs in what was written. */
static int
captured_count(const char *needle, char *first_line, size_t len)
{
	char buf[8192], *p;
	ssize_t n;
	int fd, count = 0;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	fd = open(err_path, O_RDONLY);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (first_line && len) {
		size_t l = strcspn(buf, "\n");

		if (l >= len)
			l = len - 1;
		memcpy(first_line, buf, l);
		first_line[l] = '\0';
	}
	for (p = buf; (p = strstr(p, needle)); p += strlen(needle))
		count++;
	return count;
}

/* ---- the stand-in daemon: control plane per madpmd/chan.h -------------------- */

struct tsess {
	bool used;
	bool gone;			/* the client hung up */
	unsigned int gen;		/* order of HELLOs */
	int sock;
	int efd;			/* the daemon's end of the wake-ups */
	int efd_r;			/* the client's, until HELLO's reply */
	uint8_t *shm;
	size_t shm_size;
	struct mpd_ring_view c2d;	/* the client's send ring */
	struct mpd_ring_view d2c;	/* the client's receive ring */
	struct {
		bool used;
		struct mpd_chan_register_req req;
	} agent[MPD_CHAN_MAX_AGENTS];
};

static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	int lfd;
	int stop[2];
	char sock_path[512];
	struct tsess s[MAX_SESS];
	int hellos, registers, unregisters, port_infos, garbage;
	unsigned int gen;
	struct mpd_chan_register_req last_reg;
	struct mpd_chan_port_info port;
} srv = { .lock = PTHREAD_MUTEX_INITIALIZER, .lfd = -1 };

static void
srv_port_init(void)
{
	struct mpd_chan_port_info *p = &srv.port;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	snprintf(p->ca_name, sizeof(p->ca_name), "hca1");
	snprintf(p->node_desc, sizeof(p->node_desc), "hca1 HCA-1");
	p->node_guid = NODE_GUID;
	p->sys_guid = NODE_GUID;
	p->port_guid = PORT_GUID;
	p->gid_prefix = GID_PREFIX;
	p->node_type = 1;
	p->num_ports = 2;
	p->port_num = 1;
	p->lid = 0x12;
	p->lmc = 0;
	p->sm_lid = 1;
	p->sm_sl = 0;
	p->state = 4;
	p->phys_state = 5;
	p->rate = 40;
	p->capmask = 0x02510868;
	p->link_layer = 0;
	p->fw_ver = 0x02030004;
	p->num_pkeys = 4;
	for (i = 0; i < 4; i++)
		p->pkeys[i] = (uint16_t)(i ? 0x8000 | i : 0xffff);
}

static int
srv_reply(struct tsess *s, struct mpd_chan_msg *m, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (nfds) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	return sendmsg(s->sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ?
	       0 : -1;
}

static int
srv_hello(struct tsess *s, struct mpd_chan_msg *m)
{
	size_t rx_off = mpd_page_round(PAGE + RING_HDR + MPD_CHAN_RING_SIZE);
	struct mpd_chan_shm *hdr;
	int memfd, fds[3];

	if (s->shm)
		return EBUSY;
	if (m->u.hello_req.version != MPD_CHAN_VERSION)
		return EPROTONOSUPPORT;
	/* like net_hca: port 1 serves the node */
	if (m->u.hello_req.port_num > 1)
		return EINVAL;
	s->shm_size = mpd_page_round(rx_off + RING_HDR + MPD_CHAN_RING_SIZE);
	memfd = memfd_create("test-umad", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, (off_t)s->shm_size) != 0)
		return EIO;
	s->shm = mmap(NULL, s->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      memfd, 0);
	if (s->shm == MAP_FAILED) {
		s->shm = NULL;
		close(memfd);
		return EIO;
	}
	hdr = (struct mpd_chan_shm *)s->shm;
	hdr->magic = MPD_CHAN_MAGIC;
	hdr->version = MPD_CHAN_VERSION;
	hdr->tx_off = (uint32_t)PAGE;
	hdr->rx_off = (uint32_t)rx_off;
	mpd_ring_init((struct mpd_chan_ring *)(s->shm + PAGE),
		      MPD_CHAN_RING_SIZE);
	mpd_ring_init((struct mpd_chan_ring *)(s->shm + rx_off),
		      MPD_CHAN_RING_SIZE);
	mpd_ring_attach(&s->c2d, (struct mpd_chan_ring *)(s->shm + PAGE),
			MPD_CHAN_RING_SIZE);
	mpd_ring_attach(&s->d2c, (struct mpd_chan_ring *)(s->shm + rx_off),
			MPD_CHAN_RING_SIZE);
	{
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
			       SOCK_CLOEXEC, 0, sv) != 0)
			return EIO;
		s->efd = sv[0];
		s->efd_r = sv[1];
	}
	m->status = 0;
	m->len = sizeof(m->u.hello_rep);
	memset(&m->u, 0, sizeof(m->u));
	m->u.hello_rep.version = MPD_CHAN_VERSION;
	m->u.hello_rep.shm_size = (uint32_t)s->shm_size;
	m->u.hello_rep.port = srv.port;
	m->u.hello_rep.share_out = SHARE_OUT;
	m->u.hello_rep.share_xfer = SHARE_XFER;
	/* the daemon's order (madpmd/chan.h): the memfd, the client's end
	 * of the wake-ups, ours */
	fds[0] = memfd;
	fds[1] = s->efd_r;
	fds[2] = s->efd;
	srv_reply(s, m, fds, 3);
	close(memfd);
	close(s->efd_r);
	s->efd_r = -1;
	srv.hellos++;
	s->gen = ++srv.gen;
	return 0;
}

static bool
conflicts(const struct mpd_chan_register_req *a,
	  const struct mpd_chan_register_req *r)
{
	if (!a->mgmt_class || a->mgmt_class != r->mgmt_class ||
	    a->class_version != r->class_version)
		return false;
	if (r->mgmt_class >= 0x30 && r->mgmt_class <= 0x4f && a->oui != r->oui)
		return false;
	return (a->method_mask[0] & r->method_mask[0]) ||
	       (a->method_mask[1] & r->method_mask[1]);
}

static int
srv_register(struct tsess *s, struct mpd_chan_msg *m)
{
	const struct mpd_chan_register_req *r = &m->u.reg_req;
	int i, j, id = -1;

	srv.registers++;
	srv.last_reg = *r;
	if (r->qpn > 1 || r->rmpp_version > 1 || r->oui >> 24)
		return EINVAL;
	for (i = 0; i < MAX_SESS; i++)
		for (j = 0; srv.s[i].used && j < MPD_CHAN_MAX_AGENTS; j++)
			if (srv.s[i].agent[j].used &&
			    conflicts(&srv.s[i].agent[j].req, r))
				return EINVAL;
	for (i = 0; i < MPD_CHAN_MAX_AGENTS && id < 0; i++)
		if (!s->agent[i].used)
			id = i;
	if (id < 0)
		return ENOMEM;
	s->agent[id].used = true;
	s->agent[id].req = *r;
	memset(&m->u, 0, sizeof(m->u));
	m->u.reg_rep.agent_id = (uint32_t)id;
	m->len = sizeof(m->u.reg_rep);
	return 0;
}

static int
srv_unregister(struct tsess *s, struct mpd_chan_msg *m)
{
	uint32_t id = m->u.unreg_req.agent_id;

	srv.unregisters++;
	if (id >= MPD_CHAN_MAX_AGENTS || !s->agent[id].used)
		return EINVAL;
	s->agent[id].used = false;
	m->len = 0;
	return 0;
}

/* The client is gone (or cut off): free all it held, as the daemon does. */
static void
srv_drop(struct tsess *s)
{
	close(s->sock);
	s->sock = -1;
	if (s->efd >= 0)
		close(s->efd);
	if (s->efd_r >= 0)
		close(s->efd_r);
	s->efd = s->efd_r = -1;
	if (s->shm)
		munmap(s->shm, s->shm_size);
	s->shm = NULL;
	s->used = false;
	s->gone = true;
}

/* One request; false cuts the client off. */
static bool
srv_input(struct tsess *s)
{
	struct mpd_chan_msg m;
	ssize_t n = recv(s->sock, &m, sizeof(m), MSG_DONTWAIT);
	int rc;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return false;
	if (n < 0)
		return true;
	if (n != (ssize_t)sizeof(m) || m.len > sizeof(m.u)) {
		srv.garbage++;
		return false;
	}
	if (m.type != MPD_CHAN_HELLO && !s->shm) {
		srv.garbage++;
		return false;
	}
	switch (m.type) {
	case MPD_CHAN_HELLO:
		rc = srv_hello(s, &m);
		if (!rc)
			return true;
		break;
	case MPD_CHAN_REGISTER:
		rc = srv_register(s, &m);
		break;
	case MPD_CHAN_UNREGISTER:
		rc = srv_unregister(s, &m);
		break;
	case MPD_CHAN_PORT_INFO:
		srv.port_infos++;
		memset(&m.u, 0, sizeof(m.u));
		m.u.port = srv.port;
		m.len = sizeof(m.u.port);
		rc = 0;
		break;
	default:
		srv.garbage++;
		return false;
	}
	m.status = rc;
	if (rc)
		m.len = 0;
	return srv_reply(s, &m, NULL, 0) == 0;
}

static void *
srv_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p[2 + MAX_SESS];
		int map[2 + MAX_SESS], n = 0, i;

		pthread_mutex_lock(&srv.lock);
		p[n].fd = srv.stop[0];
		p[n++].events = POLLIN;
		p[n].fd = srv.lfd;
		p[n++].events = POLLIN;
		for (i = 0; i < MAX_SESS; i++) {
			if (!srv.s[i].used || srv.s[i].sock < 0)
				continue;
			map[n] = i;
			p[n].fd = srv.s[i].sock;
			p[n++].events = POLLIN;
		}
		pthread_mutex_unlock(&srv.lock);
		if (poll(p, (nfds_t)n, -1) < 0)
			continue;
		if (p[0].revents)
			return NULL;
		pthread_mutex_lock(&srv.lock);
		if (p[1].revents & POLLIN) {
			int fd = accept4(srv.lfd, NULL, NULL, SOCK_CLOEXEC);

			for (i = 0; fd >= 0 && i < MAX_SESS; i++) {
				if (srv.s[i].used)
					continue;
				memset(&srv.s[i], 0, sizeof(srv.s[i]));
				srv.s[i].used = true;
				srv.s[i].sock = fd;
				srv.s[i].efd = srv.s[i].efd_r = -1;
				fd = -1;
			}
			if (fd >= 0)
				close(fd);
		}
		for (i = 2; i < n; i++) {
			struct tsess *s = &srv.s[map[i]];

			if (s->sock != p[i].fd || !p[i].revents)
				continue;
			if ((p[i].revents & (POLLHUP | POLLERR)) ||
			    !srv_input(s))
				srv_drop(s);
		}
		pthread_mutex_unlock(&srv.lock);
	}
}

static void
srv_start(const char *run_dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	srv_port_init();
	snprintf(srv.sock_path, sizeof(srv.sock_path), "%s/hca1/umad", run_dir);
	if (strlen(srv.sock_path) >= sizeof(sa.sun_path)) {
		tap_diag("socket path too long: %s", srv.sock_path);
		exit(1);
	}
	memcpy(sa.sun_path, srv.sock_path, strlen(srv.sock_path) + 1);
	srv.lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (srv.lfd < 0 || bind(srv.lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(srv.lfd, 16) || pipe(srv.stop)) {
		tap_diag("cannot start the test server at %s", srv.sock_path);
		exit(1);
	}
	pthread_create(&srv.thread, NULL, srv_main, NULL);
}

static void
srv_stop(void)
{
	int i;

	if (write(srv.stop[1], "x", 1) != 1)
		return;
	pthread_join(srv.thread, NULL);
	for (i = 0; i < MAX_SESS; i++) {
		struct tsess *s = &srv.s[i];

		if (!s->used)
			continue;
		if (s->sock >= 0)
			close(s->sock);
		if (s->efd >= 0)
			close(s->efd);
		if (s->efd_r >= 0)
			close(s->efd_r);
		if (s->shm)
			munmap(s->shm, s->shm_size);
	}
	close(srv.lfd);
	close(srv.stop[0]);
	close(srv.stop[1]);
	unlink(srv.sock_path);
}

/* The live session whose HELLO came last. */
static struct tsess *
srv_last(void)
{
	struct tsess *last = NULL;
	int i;

	pthread_mutex_lock(&srv.lock);
	for (i = 0; i < MAX_SESS; i++)
		if (srv.s[i].used && srv.s[i].shm &&
		    (!last || srv.s[i].gen > last->gen))
			last = &srv.s[i];
	pthread_mutex_unlock(&srv.lock);
	return last;
}

/* The lcore's side: queue a record for the client, then wake it. */
static int
srv_inject(struct tsess *s, uint32_t agent, uint32_t status,
	   const void *mad, uint32_t len, bool wake)
{
	struct ib_user_mad hdr;
	static const uint8_t one = 1;
	int rc;

	memset(&hdr, 0, sizeof(hdr));
	hdr.agent_id = agent;
	hdr.status = status;
	hdr.length = (uint32_t)sizeof(hdr) + len;
	hdr.addr.qpn = htobe32(1);
	hdr.addr.lid = htobe16(0x34);
	pthread_mutex_lock(&srv.lock);
	rc = mpd_ring_put(&s->d2c, MPD_CHAN_REC_UMAD, &hdr, sizeof(hdr), mad, len);
	/* each write counted first (madpmd/chan.h, "Wake-ups") */
	if (!rc && wake)
		__atomic_add_fetch(&((struct mpd_chan_shm *)s->shm)->rx_kicks, 1,
				   __ATOMIC_RELEASE);
	if (!rc && wake && send(s->efd, &one, 1, MSG_DONTWAIT) != 1)
		rc = -EIO;

	pthread_mutex_unlock(&srv.lock);
	return rc;
}

/* The daemon's wake-up: counted, then a byte into the pipe. */
static void
srv_kick(struct tsess *s)
{
	static const uint8_t one = 1;

	__atomic_add_fetch(&((struct mpd_chan_shm *)s->shm)->rx_kicks, 1,
			   __ATOMIC_RELEASE);
	if (send(s->efd, &one, 1, MSG_DONTWAIT) != 1)
		tap_diag("wake-up send failed");
}

/* A daemon gone wrong: a record of any kind and length, whose header (if
 * len holds one) names agent; the rest is zeros. No wake-up. */
static int
srv_inject_raw(struct tsess *s, uint32_t kind, uint32_t agent, uint32_t len)
{
	uint8_t *rec = calloc(1, len + 1);
	struct ib_user_mad hdr;
	int rc;

	if (!rec)
		return -ENOMEM;
	memset(&hdr, 0, sizeof(hdr));
	hdr.agent_id = agent;
	hdr.length = len;
	memcpy(rec, &hdr, len < sizeof(hdr) ? len : sizeof(hdr));
	pthread_mutex_lock(&srv.lock);
	rc = mpd_ring_put(&s->d2c, kind, rec, len, NULL, 0);
	pthread_mutex_unlock(&srv.lock);
	free(rec);
	return rc;
}

/* The lcore's side: the next record the client sent (0: none). */
static uint32_t
srv_take(struct tsess *s, struct ib_user_mad *hdr, uint8_t *mad, uint32_t max)
{
	const uint8_t *rec;
	uint32_t len = 0, kind;

	pthread_mutex_lock(&srv.lock);
	if (mpd_ring_peek(&s->c2d, &rec, &len, &kind) == 1 &&
	    kind == MPD_CHAN_REC_UMAD && len >= sizeof(*hdr)) {
		memcpy(hdr, rec, sizeof(*hdr));
		len -= (uint32_t)sizeof(*hdr);
		if (mad)
			memcpy(mad, rec + sizeof(*hdr), len < max ? len : max);
		mpd_ring_consume(&s->c2d);
	} else {
		len = 0;
	}
	pthread_mutex_unlock(&srv.lock);
	return len;
}

static bool
wait_gone(struct tsess *s)
{
	int64_t end = (int64_t)mpd_mono_ms() + 2000;
	bool gone;

	do {
		pthread_mutex_lock(&srv.lock);
		gone = s->gone;
		pthread_mutex_unlock(&srv.lock);
		if (gone)
			return true;
		sleep_ms(5);
	} while ((int64_t)mpd_mono_ms() < end);
	return false;
}

/* ---- buffers, layouts, strings -------------------------------------------------- */

static void
test_layout(void)
{
	uint8_t buf[64 + 256] __attribute__((aligned(8)));
	struct ib_mad_addr grh;
	uint8_t gid[16];
	int i;

	is_int(umad_size(), 64, "umad_size() is 64 (P_Key-index ABI)");
	is_int(sizeof(struct ib_user_mad), 64, "struct ib_user_mad is 64 bytes");
	is_int(sizeof(struct ib_mad_addr), 44, "struct ib_mad_addr is 44 bytes");
	is_int(offsetof(struct ib_user_mad, addr), 20, "addr at 20");
	is_int(offsetof(struct ib_user_mad, length), 16, "length at 16");
	is_int(offsetof(struct ib_mad_addr, pkey_index), 36, "pkey_index at 36");
	is_int(offsetof(struct ib_mad_addr, flow_label), 32, "flow_label at 32");
	is_int(offsetof(struct umad_reg_attr, oui), 24, "umad_reg_attr.oui at 24");
	is_int(offsetof(struct umad_reg_attr, rmpp_version), 28,
	       "umad_reg_attr.rmpp_version at 28");

	memset(buf, 0, sizeof(buf));
	ok(umad_get_mad(buf) == buf + 64, "umad_get_mad() is the buffer + 64");
	ok((uint8_t *)umad_get_mad_addr(buf) == buf + 20,
	   "umad_get_mad_addr() is the buffer + 20");
	is_int(umad_set_addr(buf, 0x1234, 1, 5, (int)0x80010000), 0,
	       "umad_set_addr");
	ok(!memcmp(buf + 20, "\x00\x00\x00\x01", 4), "qpn big-endian at 20");
	ok(!memcmp(buf + 24, "\x80\x01\x00\x00", 4), "qkey big-endian at 24");
	ok(!memcmp(buf + 28, "\x12\x34", 2), "lid big-endian at 28");
	is_int(buf[30], 5, "sl at 30");
	memset(buf, 0, sizeof(buf));
	umad_set_addr_net(buf, htobe16(0xbeef), htobe32(0x10203), 3,
			  htobe32(0x80010000));
	ok(!memcmp(buf + 20, "\x00\x01\x02\x03\x80\x01\x00\x00\xbe\xef\x03", 11),
	   "umad_set_addr_net stores its arguments as given");
	is_int(umad_set_pkey(buf, 0x1ab), 0, "umad_set_pkey");
	is_int(buf[56] | buf[57] << 8, 0x1ab, "pkey_index host order at 56");
	is_int(umad_get_pkey(buf), 0x1ab, "umad_get_pkey round trip");
	memcpy(buf + 4, "\x6e\x00\x00\x00", 4);
	is_int(umad_status(buf), 110, "umad_status reads offset 4");

	memset(&grh, 0, sizeof(grh));
	for (i = 0; i < 16; i++)
		gid[i] = (uint8_t)(0xf0 + i);
	memcpy(grh.gid, gid, 16);
	grh.flow_label = 0x12345;	/* host order on input */
	grh.hop_limit = 63;
	grh.traffic_class = 7;
	umad_set_grh(buf, &grh);
	is_int(buf[32], 1, "set_grh: grh_present at 32");
	ok(!memcmp(buf + 36, gid, 16), "set_grh: gid at 36");
	ok(!memcmp(buf + 52, "\x00\x01\x23\x45", 4),
	   "set_grh: flow label made big-endian at 52");
	is_int(buf[34], 63, "set_grh: hop_limit at 34");
	is_int(buf[35], 7, "set_grh: traffic_class at 35");
	umad_set_grh(buf, NULL);
	is_int(buf[32], 0, "set_grh(NULL) clears grh_present");

	is_int(umad_debug(-1), 0, "umad_debug(-1) reads the level");
	is_int(umad_debug(2), 2, "umad_debug sets the level");
	capture_stderr();
	umad_dump(buf);
	umad_debug(0);
	ok(captured_count("agent id", NULL, 0) == 1, "umad_dump writes to stderr");
	is_int(umad_init(), 0, "umad_init");
	is_int(umad_done(), 0, "umad_done");
}

static void
test_strings(void)
{
	ok(!strcmp(umad_class_str(0x01), "Subn"), "class 0x01");
	ok(!strcmp(umad_class_str(0x81), "Subn"), "class 0x81");
	ok(!strcmp(umad_class_str(0x03), "SubnAdm"), "class 0x03");
	ok(!strcmp(umad_class_str(0x04), "Perf"), "class 0x04");
	ok(!strcmp(umad_class_str(0x07), "ComMgt"), "class 0x07");
	ok(!strcmp(umad_class_str(0x10), "DevAdm"), "class 0x10");
	ok(!strcmp(umad_class_str(0x21), "CongestionManagment"),
	   "class 0x21 (rdma-core's spelling)");
	ok(!strcmp(umad_class_str(0x13), "Application"), "class 0x13");
	ok(!strcmp(umad_class_str(0x0a), "Vendor"), "class 0x0a");
	ok(!strcmp(umad_class_str(0x40), "Vendor"), "class 0x40");
	ok(!strcmp(umad_class_str(0x50), "<unknown>"), "class 0x50");
	ok(!strcmp(umad_method_str(0x03, 0x12), "GetTable"), "SA GetTable");
	ok(!strcmp(umad_method_str(0x03, 0x92), "GetTableResp"), "SA GetTableResp");
	ok(!strcmp(umad_method_str(0x03, 0x81), "GetResp"), "SA falls back");
	ok(!strcmp(umad_method_str(0x01, 0x12), "<unknown"),
	   "SMP GetTable unknown (rdma-core's string)");
	ok(!strcmp(umad_method_str(0x04, 0x07), "TrapRepress"), "TrapRepress");
	ok(!strcmp(umad_common_mad_status_str(htobe16(0x0000)), "Success"),
	   "status 0");
	ok(!strcmp(umad_common_mad_status_str(htobe16(0x0001)), "Busy"),
	   "status busy");
	ok(!strcmp(umad_common_mad_status_str(htobe16(0x0002)),
		   "Redirection required"), "status redirect");
	ok(!strcmp(umad_common_mad_status_str(htobe16(0x000c)),
		   "Method/Attribute combo not supported"), "status 3<<2");
	ok(!strcmp(umad_common_mad_status_str(htobe16(0x001c)),
		   "Invalid attribute/modifier field"), "status 7<<2");
	ok(!strcmp(umad_sa_mad_status_str(htobe16(0x0300)), "No Records"),
	   "SA status 3");
	ok(!strcmp(umad_sa_mad_status_str(htobe16(0x0800)),
		   "Priority Suggested"), "SA status 8");
	ok(!strcmp(umad_sa_mad_status_str(htobe16(0x0900)), "Undefined Error"),
	   "SA status 9");
	ok(!strcmp(umad_attribute_str(0x01, htobe16(0x0015)), "PortInfo"),
	   "SMP PortInfo");
	ok(!strcmp(umad_attribute_str(0x81, htobe16(0x0020)), "SMInfo"),
	   "DR SMInfo");
	ok(!strcmp(umad_attribute_str(0x03, htobe16(0x0035)), "PathRecord"),
	   "SA PathRecord");
	ok(!strcmp(umad_attribute_str(0x03, htobe16(0x00f3)),
		   "InformInfoRecord"), "SA InformInfoRecord");
	ok(!strcmp(umad_attribute_str(0x07, htobe16(0x0010)),
		   "ConnectRequest"), "CM REQ");
	ok(!strcmp(umad_attribute_str(0x04, htobe16(0x0001)),
		   "Class Port Info"), "PerfMgt ClassPortInfo");
	ok(!strcmp(umad_attribute_str(0x01, htobe16(0x7777)), "<unknown>"),
	   "unknown attribute");
}

static void
test_device_list_sort(void)
{
	struct umad_device_node n[3], *head;

	memset(n, 0, sizeof(n));
	n[0].ca_name = "mlx5_2";
	n[1].ca_name = "hca1";
	n[2].ca_name = "mlx5_0";
	n[0].next = &n[1];
	n[1].next = &n[2];
	head = &n[0];
	is_int(umad_sort_ca_device_list(&head, 0), 0, "sort, size counted");
	ok(head == &n[1] && head->next == &n[2] && head->next->next == &n[0] &&
	   !n[0].next, "sorted by name");
	is_int(umad_sort_ca_device_list(&head, 2), EINVAL,
	   "a size shorter than the list is EINVAL");
	is_int(umad_sort_ca_device_list(&head, 4), EINVAL,
	   "a size longer than the list is EINVAL");
	is_int(umad_sort_ca_device_list(&head, 1), 0, "size 1: nothing to do");
}

/* The shared ring at its edges, as both sides use it. */
static void
test_ring_edges(void)
{
	uint64_t mem[(sizeof(struct mpd_chan_ring) + 64) / 8];
	struct mpd_chan_ring *r = (struct mpd_chan_ring *)mem;
	uint8_t data[64], out[64];
	struct mpd_ring_view p, c;
	const uint8_t *rec;
	uint32_t len, kind;

	memset(data, 0x5a, sizeof(data));
	is_int(mpd_ring_init(r, 64), 0, "a 64-byte ring");
	mpd_ring_attach(&p, r, 64);
	mpd_ring_attach(&c, r, 64);
	is_int(mpd_ring_put(&p, MPD_CHAN_REC_UMAD, data, 24, NULL, 0), 0,
	       "a 24-byte record");
	is_int(mpd_ring_peek(&c, &rec, &len, &kind), 1, "peeked");
	mpd_ring_consume(&c);
	/* head now at 32: a 32-byte record would need 8 + 32 + 32 of
	 * padding, more than the whole ring, for ever */
	is_int(mpd_ring_put(&p, MPD_CHAN_REC_UMAD, data, 32, NULL, 0), -EMSGSIZE,
	       "half the ring is too big: -EMSGSIZE, not -ENOSPC for ever");
	is_int(mpd_ring_put(&p, MPD_CHAN_REC_UMAD, data, 8, NULL, 0), 0,
	       "an 8-byte record");
	mpd_ring_peek(&c, &rec, &len, &kind);
	mpd_ring_consume(&c);
	/* head at 48: 16 bytes to the end, the next record needs 32 */
	is_int(mpd_ring_put(&p, MPD_CHAN_REC_UMAD, data, 20, data, 4), 0,
	       "size / 2 - 8 bytes fit, after a pad to the end");
	is_int(r->head, 48 + 16 + 32, "head counts the pad");
	is_int(mpd_ring_peek(&c, &rec, &len, &kind), 1, "peeked past the pad");
	is_int(len, 24, "24 bytes");
	memcpy(out, rec, len);
	mpd_ring_consume(&c);
	ok(!memcmp(out, data, 24) && mpd_ring_empty(&c), "intact; ring empty");
	is_int(mpd_ring_put(&p, MPD_CHAN_REC_UMAD, data, 0xfffffff0u, data, 0x20u),
	       -EMSGSIZE, "lengths whose sum wraps: -EMSGSIZE");
}

/* ---- no daemon --------------------------------------------------------------- */

static void
test_no_daemon(void)
{
	char dir[300], nodes[400], path[600], line[512];
	long mask[2] = { 0, 0 };
	uint8_t oui[3] = { 0x00, 0x14, 0x05 };
	struct umad_reg_attr attr;
	uint8_t buf[64 + 256];
	char cas[4][UMAD_CA_NAME_LEN];
	umad_port_t port;
	umad_ca_t ca;
	uint32_t id;
	int len, fd, n;

	snprintf(dir, sizeof(dir), "%s/empty", tmp_root);
	mkdir(dir, 0700);
	setenv("MADPMD_RUN_DIR", dir, 1);
	unsetenv("MADPMD_NODE");

	capture_stderr();
	is_int(umad_open_port("hca1", 1), -EIO, "empty run dir: open is -EIO");
	is_int(umad_open_port(NULL, 0), -EIO, "again, no CA named: -EIO");
	n = captured_count("madpmd: no fabric running:", line, sizeof(line));
	is_int(n, 1, "the no-fabric sentence is printed once");
	snprintf(path, sizeof(path),
		 "madpmd: no fabric running: nothing listens at %s/hca1/umad (start madpmd, or set MADPMD_RUN_DIR)",
		 dir);
	ok(!strcmp(line, path), "it names the socket and what to do");
	if (strcmp(line, path))
		tap_diag("got \"%s\"", line);
	is_int(umad_get_cas_names(cas, 4), 0, "no fabric: no CA names");
	errno = EINTR;
	ok(!umad_get_ca_device_list() && errno == 0,
	   "no fabric: empty device list, errno 0");
	is_int(umad_get_ca(NULL, &ca), -ENODEV, "no fabric: get_ca -ENODEV");
	is_int(umad_get_port(NULL, 0, &port), -ENODEV,
	       "no fabric: get_port -ENODEV");
	is_int(umad_get_issm_path(NULL, 0, path, sizeof(path)), -ENODEV,
	       "no fabric: get_issm_path -ENODEV");

	/* a fabric is listed, but nothing listens */
	snprintf(nodes, sizeof(nodes), "%s/nodes", dir);
	write_file(nodes, "hca1 0x0002c90300001230 1\nhca2 0x0002c90300001240 1\n");
	make_node_dir(dir, "hca1");
	capture_stderr();
	is_int(umad_open_port("hca1", 1), -EIO, "listed, no socket: -EIO");
	is_int(captured_count("madpmd:", NULL, 0), 0,
	       "and no second sentence (once per process)");
	capture_stderr();
	is_int(umad_open_port("nosuch", 1), -ENODEV, "unknown CA: -ENODEV");
	is_int(umad_open_port("../hca1", 1), -ENODEV, "a path is no CA: -ENODEV");
	is_int(umad_open_port("hca1", 2), -EINVAL, "port past num_ports: -EINVAL");
	is_int(umad_open_port("hca1", -1), -EINVAL, "negative port: -EINVAL");
	setenv("MADPMD_NODE", "zzz", 1);
	is_int(umad_open_port(NULL, 0), -ENODEV, "MADPMD_NODE unknown: -ENODEV");
	is_int(captured_count("madpmd: no node \"nosuch\" in ", NULL, 0), 1,
	       "the unknown-node sentence names it, once");
	is_int(umad_get_cas_names(cas, 4), 0, "MADPMD_NODE unknown: no CA");
	setenv("MADPMD_NODE", "hca2", 1);
	is_int(umad_get_cas_names(cas, 4), 1, "MADPMD_NODE selects one CA");
	ok(!strcmp(cas[0], "hca2"), "named after the node");
	unsetenv("MADPMD_NODE");
	is_int(umad_get_cas_names(cas, 4), 1, "default: the first node");
	ok(!strcmp(cas[0], "hca1"), "which is hca1");
	is_int(umad_get_cas_names(cas, 0), 0, "max 0: none");

	is_int(umad_get_issm_path("hca2", 1, path, sizeof(path)), 0,
	       "get_issm_path");
	snprintf(line, sizeof(line), "%s/hca2/issm", dir);
	ok(!strcmp(path, line), "issm path is RUN_DIR/node/issm");
	is_int(umad_get_issm_path(NULL, 0, path, sizeof(path)), 0,
	       "get_issm_path, default node and port");
	is_int(umad_get_issm_path("nosuch", 1, path, sizeof(path)), -ENODEV,
	       "get_issm_path unknown CA: -ENODEV");
	is_int(umad_get_issm_path("hca1", 2, path, sizeof(path)), -EINVAL,
	       "get_issm_path bad port: -EINVAL");
	is_int(umad_get_issm_path("hca1", -3, path, sizeof(path)), -EINVAL,
	       "get_issm_path negative port: -EINVAL");
	is_int(umad_get_port("hca1", 1, &port), -EIO,
	       "get_port, nothing listening: -EIO");
	is_int(umad_get_port("hca1", 5, &port), -EIO,
	       "get_port, no such port: -EIO (as the sysfs read fails)");
	is_int(umad_get_ca_portguids("nosuch", NULL, 0), -ENODEV,
	       "get_ca_portguids unknown CA: -ENODEV");

	/* calls on something that is not a port */
	fd = open("/dev/null", O_RDONLY);
	len = 256;
	is_int(E(umad_recv(fd, buf, &len, 0)), -EINVAL, "recv on a non-port fd");
	is_int(err_, EINVAL, "errno EINVAL");
	is_int(umad_recv(-1, buf, &len, 0), -EINVAL, "recv on fd -1");
	is_int(umad_recv(fd, buf, NULL, 0), -EINVAL, "recv, NULL length");
	is_int(umad_recv(fd, NULL, &len, 0), -EINVAL, "recv, NULL buffer");
	is_int(umad_poll(fd, 0), -EINVAL, "poll on a non-port fd");
	is_int(E(umad_send(fd, 0, buf, 256, 0, 0)), -EIO, "send on a non-port fd");
	is_int(err_, EBADF, "errno EBADF");
	is_int(E(umad_register(fd, 0x04, 1, 0, mask)), -EPERM,
	       "register on a non-port fd: -EPERM");
	is_int(err_, EBADF, "errno EBADF");
	is_int(umad_register_oui(fd, 0x20, 0, oui, mask), -EINVAL,
	       "register_oui class 0x20: -EINVAL");
	is_int(umad_register_oui(fd, 0x50, 0, oui, mask), -EINVAL,
	       "register_oui class 0x50: -EINVAL");
	is_int(umad_register_oui(fd, 0x30, 0, oui, mask), -EPERM,
	       "register_oui class 0x30, non-port fd: -EPERM");
	memset(&attr, 0, sizeof(attr));
	is_int(umad_register2(fd, NULL, &id), EINVAL, "register2 NULL attr");
	is_int(umad_register2(fd, &attr, NULL), EINVAL, "register2 NULL id");
	attr.mgmt_class = 0x30;
	is_int(umad_register2(fd, &attr, &id), EINVAL,
	       "register2 vendor class with OUI 0: EINVAL");
	attr.oui = 0x01001405;
	is_int(umad_register2(fd, &attr, &id), EINVAL,
	       "register2 OUI over 24 bits: EINVAL");
	attr.oui = 0x001405;
	is_int(umad_register2(fd, &attr, &id), EBADF,
	       "register2 on a non-port fd: EBADF");
	is_int(E(umad_unregister(fd, 0)), -1, "unregister on a non-port fd: -1");
	is_int(err_, EBADF, "errno EBADF");
	is_int(umad_get_fd(fd), fd, "umad_get_fd is the identity");
	close(fd);
	is_int(umad_release_port(NULL), -ENODEV, "release_port(NULL)");
	is_int(umad_release_ca(NULL), -ENODEV, "release_ca(NULL)");
}

/* ---- with the stand-in daemon -------------------------------------------------- */

struct injector {
	struct tsess *s;
	int delay_ms;
	uint8_t mad[256];
};

/*
 * The daemon's lcore on the client's CPU (madpmd/chan.h, "Sharing a
 * CPU"): a thread pinned to that CPU gets to run only when the client
 * lets it. It answers, with no wake-up, only while it sees the client
 * spin on that CPU; a client that paused there instead would hold the
 * CPU for its whole spin, then sleep with no wake-up coming.
 */
struct yielder {
	struct tsess *s;
	int cpu;
	volatile bool ready;
	bool seen;
	uint8_t mad[256];
};

/* Pins the calling thread to one CPU. */
static void
pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *
answer_on_cpu(void *arg)
{
	struct yielder *y = arg;
	const struct mpd_chan_shm *h = (const void *)y->s->shm;
	int64_t end = (int64_t)mpd_mono_ms() + 500;

	pin_to(y->cpu);
	y->ready = true;
	while ((int64_t)mpd_mono_ms() < end) {
		if (__atomic_load_n(&h->rx_awake, __ATOMIC_ACQUIRE) &&
		    __atomic_load_n(&h->rx_awake_cpu, __ATOMIC_RELAXED) ==
		    (uint32_t)y->cpu + 1) {
			y->seen = true;
			srv_inject(y->s, 2, 0, y->mad, sizeof(y->mad), false);
			break;
		}
		sched_yield();
	}
	return NULL;
}

/* Pins the calling thread to the CPU it runs on: that CPU, its affinity
 * before in *old; -1 (reported) when it cannot. */
static int
pin_here(cpu_set_t *old)
{
	int cpu = sched_getcpu();

	if (cpu < 0 || pthread_getaffinity_np(pthread_self(), sizeof(*old), old)) {
		ok(0, "sched_getcpu / pthread_getaffinity_np: %m");
		return -1;
	}
	pin_to(cpu);
	return cpu;
}

static void
test_shared_cpu(struct tsess *s, int fd)
{
	uint8_t buf[64 + 256] __attribute__((aligned(8)));
	struct mpd_chan_shm *h = (void *)s->shm;
	int len, rc = 0, tries, cpu;
	struct yielder y;
	cpu_set_t old;
	pthread_t thr;

	cpu = pin_here(&old);
	if (cpu < 0)
		return;
	__atomic_store_n(&h->lcore_cpu, (uint32_t)cpu + 1, __ATOMIC_RELEASE);
	/* a few tries: another process may take the CPU mid-spin */
	for (tries = 0; tries < 5; tries++) {
		len = 256;
		while (umad_recv(fd, buf, &len, 0) >= 0)
			len = 256;
		memset(&y, 0, sizeof(y));
		y.s = s;
		y.cpu = cpu;
		memset(y.mad, 0x5a, sizeof(y.mad));
		pthread_create(&thr, NULL, answer_on_cpu, &y);
		while (!y.ready)
			sched_yield();
		len = 256;
		memset(buf, 0, sizeof(buf));
		rc = umad_recv(fd, buf, &len, 100);
		pthread_join(thr, NULL);
		if (y.seen && rc == 2)
			break;
	}
	__atomic_store_n(&h->lcore_cpu, 0, __ATOMIC_RELEASE);
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	ok(y.seen, "on the lcore's CPU the client spins by yielding: the daemon, pinned there, ran and saw it spin (rx_awake_cpu %u, try %d)",
	   __atomic_load_n(&h->rx_awake_cpu, __ATOMIC_RELAXED), tries + 1);
	is_int(rc, 2, "and the answer it queued with no wake-up is received");
	ok(buf[64] == 0x5a && buf[64 + 255] == 0x5a, "its bytes");
	is_int(__atomic_load_n(&h->rx_awake, __ATOMIC_RELAXED), 0,
	       "the client spins no more");
}

static volatile bool hog_stop;

static void *
hog_cpu(void *arg)
{
	pin_to(*(int *)arg);
	while (!hog_stop)
		;
	return NULL;
}

/* Whether one umad_recv() with nothing to receive spun first: spin()
 * stores rx_awake_cpu before it looks at the ring. */
static bool
recv_spun(struct mpd_chan_shm *h, int fd)
{
	uint8_t buf[64 + 256] __attribute__((aligned(8)));
	int len = 256;

	__atomic_store_n(&h->rx_awake_cpu, 0, __ATOMIC_RELAXED);
	umad_recv(fd, buf, &len, 2);
	return __atomic_load_n(&h->rx_awake_cpu, __ATOMIC_RELAXED) != 0;
}

/*
 * A thread that shares its CPU with a busy one stops spinning for a while
 * while the lcore's CPU is unknown, and spins anyway once the lcore is
 * known to run elsewhere: a wake-up would wait for the busy thread's
 * slice, and the spin takes nothing from the lcore (madpmd/chan.h).
 */
static void
test_spin_elsewhere(struct tsess *s, int fd)
{
	struct mpd_chan_shm *h = (void *)s->shm;
	int cpu, calls, spun = 0, i;
	cpu_set_t old;
	pthread_t thr;

	cpu = pin_here(&old);
	if (cpu < 0)
		return;
	hog_stop = false;
	pthread_create(&thr, NULL, hog_cpu, &cpu);
	__atomic_store_n(&h->lcore_cpu, 0, __ATOMIC_RELEASE);
	/* the run delay is looked at every 10 ms: compete with the busy
	 * thread for 3 ms before each wait, for up to a second or so */
	for (calls = 1; calls <= 300; calls++) {
		int64_t end = (int64_t)mpd_mono_us() + 3000;

		while ((int64_t)mpd_mono_us() < end)
			;
		if (!recv_spun(h, fd))
			break;
	}
	ok(calls <= 300, "lcore's CPU unknown: a thread sharing its CPU with a busy one stops spinning (after %d waits)",
	   calls);
	/* a CPU that is not ours: the other one, or any other number */
	__atomic_store_n(&h->lcore_cpu, (uint32_t)(cpu ^ 1) + 1,
			 __ATOMIC_RELEASE);
	for (i = 0; i < 20; i++)
		spun += recv_spun(h, fd);
	is_int(spun, 20, "lcore on CPU %d, ours %d: the same thread spins again, at once, in every wait",
	       cpu ^ 1, cpu);
	hog_stop = true;
	pthread_join(thr, NULL);
	__atomic_store_n(&h->lcore_cpu, 0, __ATOMIC_RELEASE);
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
}

static void *
inject_later(void *arg)
{
	struct injector *in = arg;

	sleep_ms(in->delay_ms);
	srv_inject(in->s, 2, 0, in->mad, sizeof(in->mad), true);
	return NULL;
}

static void
test_info(void)
{
	struct umad_device_node *list;
	char cas[2][UMAD_CA_NAME_LEN];
	__be64 guids[4];
	umad_port_t port;
	umad_ca_t ca;

	is_int(umad_get_port("hca1", 1, &port), 0, "get_port");
	ok(!strcmp(port.ca_name, "hca1") && port.portnum == 1,
	   "port: CA name and number");
	ok(port.base_lid == 0x12 && port.sm_lid == 1 && port.state == 4 &&
	   port.phys_state == 5 && port.rate == 40 && port.lmc == 0,
	   "port: LIDs, state, rate");
	ok(port.capmask == htobe32(0x02510868), "port: capmask network order");
	ok(port.port_guid == htobe64(PORT_GUID) &&
	   port.gid_prefix == htobe64(GID_PREFIX),
	   "port: GUID and GID prefix network order");
	ok(!strcmp(port.link_layer, "InfiniBand"), "port: link layer");
	ok(port.pkeys_size == 4 && port.pkeys && port.pkeys[0] == 0xffff &&
	   port.pkeys[3] == 0x8003, "port: P_Key table");
	is_int(umad_release_port(&port), 0, "release_port");
	ok(!port.pkeys && !port.pkeys_size, "release_port frees the P_Keys");
	is_int(umad_get_port(NULL, 0, &port), 0, "get_port, default CA and port");
	ok(port.portnum == 1, "the daemon picked port 1");
	umad_release_port(&port);
	pthread_mutex_lock(&srv.lock);
	srv.port.link_layer = 1;
	pthread_mutex_unlock(&srv.lock);
	umad_get_port("hca1", 1, &port);
	ok(!strcmp(port.link_layer, "Ethernet"), "RoCE port: Ethernet");
	umad_release_port(&port);
	pthread_mutex_lock(&srv.lock);
	srv.port.link_layer = 0;
	pthread_mutex_unlock(&srv.lock);

	is_int(umad_get_ca("hca1", &ca), 0, "get_ca");
	ok(!strcmp(ca.ca_name, "hca1") && ca.node_type == 1,
	   "ca: name and node type");
	is_int(ca.numports, 1, "ca: the daemon serves port 1 of 2");
	ok(ca.ports[1] && !ca.ports[2] && !ca.ports[0], "ca: ports[1] only");
	ok(ca.node_guid == htobe64(NODE_GUID) &&
	   ca.system_guid == htobe64(NODE_GUID), "ca: GUIDs network order");
	ok(!strcmp(ca.fw_ver, "2.3.4"), "ca: firmware version");
	is_int(umad_release_ca(&ca), 0, "release_ca");
	ok(!ca.ports[1], "release_ca frees the ports");

	is_int(umad_get_ca_portguids("hca1", guids, 1), -ENOMEM,
	       "portguids: no room for ports 0 and 1");
	is_int(umad_get_ca_portguids("hca1", guids, 4), 2, "portguids");
	ok(guids[0] == 0 && guids[1] == htobe64(PORT_GUID),
	   "port 0 has none, port 1 its GUID");
	is_int(umad_get_ca_portguids(NULL, NULL, 0), 0,
	       "portguids without an array: 0 (as libibumad)");

	is_int(umad_get_cas_names(cas, 2), 1, "one CA");
	list = umad_get_ca_device_list();
	ok(list && !strcmp(list->ca_name, "hca1") && !list->next,
	   "device list: the node");
	umad_free_ca_device_list(list);
}

static void
test_session(void)
{
	uint8_t *big, mad[256], buf[64 + 2048] __attribute__((aligned(8)));
	uint8_t rbuf[64 + 256] __attribute__((aligned(8)));
	struct ib_user_mad *um = (struct ib_user_mad *)buf, hdr;
	long mask[2] = { 0, 0 };
	uint8_t oui[3] = { 0x00, 0x02, 0xc9 };
	struct umad_reg_attr attr;
	struct injector in;
	struct tsess *s, *s2;
	pthread_t thr;
	int fd, fd2, a_smp, a_perf, a_vend, a_rmpp, len, rc, i;
	uint32_t id;
	int64_t t0;

	fd = umad_open_port("hca1", 1);
	ok(fd >= 0, "open_port: fd %d", fd);
	if (fd < 0)
		return;
	s = srv_last();
	ok(s != NULL, "the daemon saw HELLO");
	if (!s)
		return;
	is_int(umad_get_fd(fd), fd, "get_fd");
	ok(!fd_readable(fd), "the port fd is not readable while idle");
	is_int(umad_open_port("hca1", 2), -EINVAL,
	       "the daemon refuses port 2: -EINVAL");

	/* agents */
	a_smp = umad_register(fd, 0x81, 1, 0, NULL);
	is_int(a_smp, 0, "register DR SMP: agent 0");
	ok(srv.last_reg.qpn == 0 && srv.last_reg.mgmt_class == 0x81,
	   "class 0x81 goes to QP0");
	mask[0] = 1 << 1;	/* Get */
	a_perf = umad_register(fd, 0x04, 1, 0, mask);
	is_int(a_perf, 1, "register PerfMgt: agent 1");
	ok(srv.last_reg.qpn == 1 && srv.last_reg.oui == 0x001405 &&
	   srv.last_reg.method_mask[0] == 2,
	   "QP1, the OpenIB OUI, the method mask");
	is_int(E(umad_register(fd, 0x04, 1, 0, mask)), -EPERM,
	       "the same class/version/method again: -EPERM");
	is_int(err_, EINVAL, "errno holds the cause, EINVAL");
	a_vend = umad_register_oui(fd, 0x30, 0, oui, mask);
	is_int(a_vend, 2, "register_oui: agent 2");
	ok(srv.last_reg.oui == 0x0002c9 && srv.last_reg.class_version == 1,
	   "OUI and class version 1 passed on");
	memset(&attr, 0, sizeof(attr));
	attr.mgmt_class = 0x03;
	attr.mgmt_class_version = 2;
	attr.rmpp_version = 1;
	attr.flags = 0x4;
	is_int(umad_register2(fd, &attr, &id), EINVAL,
	       "register2 with an unknown flag: EINVAL");
	is_int(attr.flags, UMAD_USER_RMPP, "and the supported flags returned");
	attr.flags = 0;
	is_int(umad_register2(fd, &attr, &id), 0, "register2 SA: 0");
	is_int(id, 3, "agent 3");
	ok(srv.last_reg.rmpp_version == 1 && srv.last_reg.qpn == 1,
	   "rmpp version and QP1");
	attr.rmpp_version = 2;
	attr.mgmt_class = 0x06;
	is_int(umad_register2(fd, &attr, &id), EINVAL,
	       "register2 refused by the daemon: its errno, positive");
	is_int(umad_unregister(fd, 3), 0, "unregister agent 3");
	is_int(E(umad_unregister(fd, 3)), -1, "unregister it again: -1");
	is_int(err_, EINVAL, "errno EINVAL");
	is_int(E(umad_unregister(fd, 40)), -1, "unregister agent 40: -1");
	is_int(err_, EINVAL, "errno EINVAL");

	/* send */
	memset(buf, 0, sizeof(buf));
	for (i = 0; i < 256; i++)
		buf[64 + i] = (uint8_t)i;
	umad_set_addr(buf, 0x34, 1, 0, 0x80010000);
	is_int(umad_send(fd, a_perf, buf, 256, 100, 3), 0, "send");
	ok(um->agent_id == (uint32_t)a_perf && um->timeout_ms == 100 &&
	   um->retries == 3, "agent, timeout and retries set in the buffer");
	memset(&hdr, 0, sizeof(hdr));
	is_int(srv_take(s, &hdr, mad, sizeof(mad)), 256,
	       "the daemon reads a 256-byte MAD from the send ring");
	ok(hdr.agent_id == (uint32_t)a_perf && hdr.timeout_ms == 100 &&
	   hdr.retries == 3 && hdr.length == 64 + 256 &&
	   hdr.addr.lid == htobe16(0x34) && hdr.addr.qkey == htobe32(0x80010000),
	   "the record's header: agent, timeout, retries, length, address");
	ok(!memcmp(mad, buf + 64, 256), "the record's MAD bytes");
	/* the session's share of sends waiting for a response: full, the
	 * next fails at once; each the daemon says it let go makes room */
	for (i = 1; i < SHARE_OUT; i++) {
		buf[64 + 15] = (uint8_t)i;	/* TIDs differ: no duplicate */
		if (umad_send(fd, a_perf, buf, 256, 100, 0) != 0)
			break;
	}
	buf[64 + 15] = 0xf0;
	is_int(i, SHARE_OUT, "sends with a time-out up to the share");
	is_int(E(umad_send(fd, a_perf, buf, 256, 100, 0)), -EIO,
	       "one more with a time-out: -EIO");
	is_int(err_, ENOMEM, "errno ENOMEM, at once");
	buf[64 + 3] = 0x81;	/* a GetResp waits for nothing */
	is_int(umad_send(fd, a_perf, buf, 256, 0, 0), 0,
	       "a response still goes");
	buf[64 + 3] = 3;
	__atomic_store_n(&((struct mpd_chan_shm *)s->shm)->share_done[MPD_CHAN_SHARE_OUT],
			 1, __ATOMIC_RELEASE);
	buf[64 + 15] = 0xf1;
	is_int(umad_send(fd, a_perf, buf, 256, 100, 0), 0,
	       "a send the daemon let go of makes room for one");
	buf[64 + 15] = 0xf2;
	is_int(E(umad_send(fd, a_perf, buf, 256, 100, 0)), -EIO,
	       "and only one");
	while (srv_take(s, &hdr, NULL, 0))
		;
	/* ib_umad_write()'s is_duplicate(): the first request (TID bytes
	 * 8..15) waits for its answer; the same TID 31..0 is refused at
	 * once, whatever its upper bits, before the share is looked at */
	buf[64 + 15] = 15;
	buf[64 + 8] = 0x99;
	is_int(E(umad_send(fd, a_perf, buf, 256, 100, 0)), -EIO,
	       "the TID of a request in flight: -EIO");
	is_int(err_, EINVAL, "errno EINVAL (a duplicate), not ENOMEM");
	memcpy(mad, buf + 64, 256);
	mad[3] = 0x81;		/* its GetResp */
	is_int(srv_inject(s, (uint32_t)a_perf, 0, mad, 256, true), 0,
	       "the daemon queues the answer");
	len = 256;
	is_int(umad_recv(fd, rbuf, &len, 1000), a_perf, "which is read");
	is_int(E(umad_send(fd, a_perf, buf, 256, 100, 0)), -EIO,
	       "the TID again after its answer: -EIO");
	is_int(err_, ENOMEM, "errno ENOMEM: no longer a duplicate, the share is full");
	buf[64 + 8] = 8;
	is_int(E(umad_send(fd, 3, buf, 256, 0, 0)), -EIO,
	       "send by an unregistered agent: -EIO");
	is_int(err_, EIO, "errno EIO");
	is_int(E(umad_send(fd, 32, buf, 256, 0, 0)), -EIO, "send by agent 32: -EIO");
	is_int(err_, EINVAL, "errno EINVAL");
	is_int(E(umad_send(fd, a_perf, buf, 20, 0, 0)), -EIO,
	       "send of 20 bytes: -EIO");
	is_int(err_, EINVAL, "errno EINVAL");
	is_int(E(umad_send(fd, a_perf, buf, (int)MPD_CHAN_MAX_MSG, 0, 0)), -EIO,
	       "send over 2 MiB: -EIO");
	is_int(err_, EMSGSIZE, "errno EMSGSIZE");
	/* ib_umad_write(): without RMPP a send is one MAD; an active RMPP
	 * header needs an agent registered for RMPP */
	is_int(E(umad_send(fd, a_perf, buf, 300, 0, 0)), -EIO,
	       "300 bytes by an agent without RMPP: -EIO");
	is_int(err_, EINVAL, "errno EINVAL");
	memset(mad, 0, sizeof(mad));
	mad[1] = 0x30;		/* vendor range 2: has the RMPP header */
	mad[24] = 1;		/* RMPPVersion */
	mad[25] = 1;		/* DATA */
	mad[26] = 0x01;		/* Active */
	memcpy(buf + 64, mad, 256);
	is_int(E(umad_send(fd, a_vend, buf, 256, 0, 0)), -EIO,
	       "an active RMPP header by an agent without RMPP: -EIO");
	is_int(err_, EINVAL, "errno EINVAL");
	is_int(srv_take(s, &hdr, NULL, 0), 0, "nothing more in the send ring");

	/* the send ring full: the daemon does not drain it (whole RMPP
	 * messages of 2 MiB by an RMPP agent) */
	a_rmpp = umad_register_oui(fd, 0x31, 1, oui, mask);
	ok(a_rmpp >= 0, "an RMPP agent for vendor class 0x31");
	big = calloc(1, MPD_CHAN_MAX_MSG);
	big[64 + 1] = 0x31;
	big[64 + 24] = 1;
	big[64 + 25] = 1;
	big[64 + 26] = 0x01;
	for (i = 0; i < 8; i++) {
		rc = E(umad_send(fd, a_rmpp, big, (int)MPD_CHAN_MAX_MSG - 64,
				 0, 0));
		if (rc)
			break;
	}
	is_int(i, 3, "three 2 MiB messages fill the 8 MiB ring");
	is_int(err_, ENOMEM, "the fourth waits, then fails with ENOMEM");
	ok(srv_take(s, &hdr, NULL, 0) == MPD_CHAN_MAX_MSG - 64,
	   "the daemon takes one");
	is_int(umad_send(fd, a_rmpp, big, (int)MPD_CHAN_MAX_MSG - 64, 0, 0), 0,
	       "and the next send fits");
	while (srv_take(s, &hdr, NULL, 0))
		;
	free(big);

	/* receive */
	len = 256;
	is_int(E(umad_recv(fd, buf, &len, 0)), -EWOULDBLOCK,
	       "recv, nothing queued, timeout 0: -EWOULDBLOCK");
	is_int(err_, EWOULDBLOCK, "errno EWOULDBLOCK");
	t0 = (int64_t)mpd_mono_ms();
	is_int(E(umad_recv(fd, buf, &len, 50)), -ETIMEDOUT,
	       "recv, nothing queued, timeout 50: -ETIMEDOUT");
	ok((int64_t)mpd_mono_ms() - t0 >= 45, "after 50 ms");
	is_int(err_, ETIMEDOUT, "errno ETIMEDOUT");
	is_int(umad_poll(fd, 20), -ETIMEDOUT, "poll: -ETIMEDOUT");
	is_int(umad_poll(fd, 0), -ETIMEDOUT, "poll, timeout 0: -ETIMEDOUT");

	/* the length rule of ib_umad_read(): a count under the 64-byte
	 * header is refused before the queue is looked at; any other is
	 * measured against a queued message only (not the man page's 256) */
	len = -1;
	is_int(E(umad_recv(fd, buf, &len, 0)), -EINVAL,
	       "recv, nothing queued, length -1: -EINVAL");
	is_int(err_, EINVAL, "errno EINVAL");
	is_int(len, -1, "*length left as it was");
	len = INT_MIN;
	is_int(E(umad_recv(fd, buf, &len, 0)), -EINVAL,
	       "recv, nothing queued, length INT_MIN: -EINVAL");
	is_int(err_, EINVAL, "errno EINVAL");
	len = -1;
	is_int(E(umad_recv(fd, buf, &len, 20)), -ETIMEDOUT,
	       "length -1 with a timeout: the wait comes first, -ETIMEDOUT (rdma-core polls, then reads)");
	is_int(err_, ETIMEDOUT, "errno ETIMEDOUT");
	len = 0;
	is_int(E(umad_recv(fd, buf, &len, 0)), -EWOULDBLOCK,
	       "length 0, nothing queued: -EWOULDBLOCK, as the kernel");
	len = 255;
	is_int(E(umad_recv(fd, buf, &len, 0)), -EWOULDBLOCK,
	       "length 255, nothing queued: -EWOULDBLOCK, as the kernel");
	is_int(err_, EWOULDBLOCK, "errno EWOULDBLOCK");

	for (i = 0; i < 256; i++)
		mad[i] = (uint8_t)(255 - i);
	is_int(srv_inject(s, (uint32_t)a_perf, 0, mad, 256, true), 0,
	       "the daemon queues a MAD");
	ok(fd_readable(fd), "the port fd is readable");
	is_int(umad_poll(fd, 0), 0, "poll: 0");
	len = 100;
	is_int(umad_recv(fd, buf, &len, 0), -EINVAL,
	       "recv with room for 100 bytes: -EINVAL");
	ok(fd_readable(fd), "the MAD stays queued");
	len = 255;
	is_int(E(umad_recv(fd, buf, &len, 0)), -EINVAL,
	       "recv with room for 255 bytes: -EINVAL");
	is_int(err_, EINVAL, "errno EINVAL");
	len = -5;
	is_int(umad_recv(fd, buf, &len, 0), -EINVAL, "negative length: -EINVAL");
	len = -5;
	is_int(umad_recv(fd, buf, &len, 10), -EINVAL,
	       "negative length, with a timeout: -EINVAL");
	ok(fd_readable(fd), "the MAD stays queued");
	len = 256;
	memset(buf, 0, sizeof(buf));
	is_int(umad_recv(fd, buf, &len, 0), a_perf, "recv: the agent id");
	is_int(len, 256, "length: the MAD's");
	ok(!memcmp(buf + 64, mad, 256), "the MAD's bytes");
	ok(um->length == 64 + 256 && um->addr.lid == htobe16(0x34),
	   "the header: length and source LID");
	ok(!fd_readable(fd), "the port fd is not readable once drained");

	/* two queued: readable until both are read */
	srv_inject(s, 1, 0, mad, 256, true);
	srv_inject(s, 2, 0, mad, 256, true);
	len = 256;
	is_int(umad_recv(fd, buf, &len, 0), 1, "first of two");
	ok(fd_readable(fd), "still readable");
	len = 256;
	is_int(umad_recv(fd, buf, &len, 10), 2, "second of two");
	ok(!fd_readable(fd), "not readable");

	/* an RMPP message longer than the buffer */
	big = calloc(1, 64 + 1000);
	for (i = 0; i < 1000; i++)
		big[64 + i] = (uint8_t)(i * 7);
	srv_inject(s, 3, 0, big + 64, 1000, true);
	len = 256;
	memset(buf, 0, sizeof(buf));
	is_int(E(umad_recv(fd, buf, &len, 0)), -ENOSPC,
	       "recv of 1000 bytes into 256: -ENOSPC");
	is_int(err_, ENOSPC, "errno ENOSPC");
	is_int(len, 1000, "length: the size needed");
	ok(!memcmp(buf + 64, big + 64, 256) && buf[64 + 256] == 0,
	   "the header and the first 256 bytes copied");
	ok(um->agent_id == 3 && um->length == 64 + 1000,
	   "the header says who and how long");
	ok(fd_readable(fd), "the message stays queued");
	len = 1000;
	is_int(umad_recv(fd, big, &len, 0), 3, "recv with room: the message");
	is_int(len, 1000, "all 1000 bytes");
	ok(!fd_readable(fd), "not readable");
	free(big);

	/* a send time-out as the kernel reports it */
	memset(mad, 0xa5, 24);
	srv_inject(s, (uint32_t)a_perf, ETIMEDOUT, mad, 24, true);
	len = 24;
	is_int(umad_recv(fd, buf, &len, -1), a_perf,
	       "a time-out report fits 24 bytes");
	is_int(umad_status(buf), ETIMEDOUT, "status ETIMEDOUT");
	is_int(len, 24, "length 24");

	/* a wake-up whose record was already taken (counted, as the daemon
	 * counts every write) */
	srv_kick(s);
	ok(fd_readable(fd), "a stray wake-up makes the fd readable");
	is_int(umad_poll(fd, 30), -ETIMEDOUT, "poll sees through it");
	ok(!fd_readable(fd), "and clears it");
	srv_kick(s);
	len = 256;
	is_int(umad_recv(fd, buf, &len, 30), -ETIMEDOUT,
	       "recv with a timeout sees through it too");
	/* a record whose wake-up has not come yet */
	srv_inject(s, 1, 0, mad, 256, false);
	len = 256;
	is_int(umad_recv(fd, buf, &len, 0), 1,
	       "recv with timeout 0 looks at the ring itself");

	/* a daemon writing garbage into the receive ring: what no kernel
	 * would queue is skipped, a broken ring is -EIO */
	ok(!srv_inject_raw(s, 7, 1, 300) &&
	   !srv_inject_raw(s, MPD_CHAN_REC_UMAD, 1, 20) &&
	   !srv_inject_raw(s, MPD_CHAN_REC_UMAD, 32, 64 + 256) &&
	   !srv_inject_raw(s, MPD_CHAN_REC_UMAD, 0xffffffffu, 64 + 256) &&
	   !srv_inject_raw(s, MPD_CHAN_REC_UMAD, 0x80000000u, 64 + 24) &&
	   !srv_inject_raw(s, MPD_CHAN_REC_UMAD, 1, MPD_CHAN_MAX_MSG + 8),
	   "the daemon queues: an unknown kind, a record shorter than its header, records for agents 32, 0xffffffff and 0x80000000, one over 2 MiB");
	srv_inject(s, 2, 0, mad, 256, true);
	len = 256;
	memset(buf, 0, sizeof(buf));
	is_int(umad_recv(fd, buf, &len, 0), 2,
	       "recv skips them all: the good MAD, agent 2");
	ok(len == 256 && !memcmp(buf + 64, mad, 256) && um->agent_id == 2,
	   "its bytes and header");
	ok(!fd_readable(fd), "nothing left queued");
	srv_inject(s, 1, 0, mad, 256, true);
	pthread_mutex_lock(&srv.lock);
	s->d2c.r->head = ~0ull;
	pthread_mutex_unlock(&srv.lock);
	len = 256;
	is_int(E(umad_recv(fd, buf, &len, 0)), -EIO,
	       "a receive ring whose head is garbage: -EIO");
	is_int(err_, EIO, "errno EIO");
	pthread_mutex_lock(&srv.lock);
	s->d2c.r->head = s->d2c.head;
	pthread_mutex_unlock(&srv.lock);
	is_int(umad_recv(fd, buf, &len, 0), 1, "the head set right: the MAD");
	/* and the send ring's tail, which the daemon writes */
	pthread_mutex_lock(&srv.lock);
	s->c2d.r->tail = s->c2d.tail + 8;
	pthread_mutex_unlock(&srv.lock);
	memcpy(buf + 64, mad, 256);
	is_int(E(umad_send(fd, a_perf, buf, 256, 0, 0)), -EIO,
	       "a send ring whose tail is past its head: -EIO");
	is_int(err_, EIO, "errno EIO");
	pthread_mutex_lock(&srv.lock);
	s->c2d.r->tail = s->c2d.tail;
	pthread_mutex_unlock(&srv.lock);
	is_int(umad_send(fd, a_perf, buf, 256, 0, 0), 0,
	       "the tail set right: send 0");
	is_int(srv_take(s, &hdr, NULL, 0), 256, "and the daemon has it");

	/* blocking receive, woken by the daemon */
	in.s = s;
	in.delay_ms = 50;
	memset(in.mad, 0x3c, sizeof(in.mad));
	pthread_create(&thr, NULL, inject_later, &in);
	len = 256;
	t0 = (int64_t)mpd_mono_ms();
	is_int(umad_recv(fd, buf, &len, -1), 2,
	       "recv, timeout -1: woken by the daemon");
	ok((int64_t)mpd_mono_ms() - t0 >= 40 && buf[64] == 0x3c, "after the delay, its MAD");
	pthread_join(thr, NULL);
	pthread_create(&thr, NULL, inject_later, &in);
	is_int(umad_poll(fd, 2000), 0, "poll, woken by the daemon");
	pthread_join(thr, NULL);
	len = 256;
	is_int(umad_recv(fd, buf, &len, 0), 2, "and the MAD is there");
	test_shared_cpu(s, fd);
	test_spin_elsewhere(s, fd);

	/* a second session: agents conflict across sessions */
	fd2 = umad_open_port(NULL, 0);
	ok(fd2 >= 0 && fd2 != fd, "a second session on the default node");
	s2 = srv_last();
	is_int(E(umad_register(fd2, 0x04, 1, 0, mask)), -EPERM,
	       "PerfMgt Get taken by the first session: -EPERM");
	is_int(err_, EINVAL, "errno EINVAL");
	mask[0] = 1 << 2;	/* Set */
	is_int(umad_register(fd2, 0x04, 1, 0, mask), 0,
	       "PerfMgt Set is free: agent 0 of this session");
	is_int(umad_close_port(fd2), 0, "close the second session");
	ok(s2 && wait_gone(s2), "the daemon sees it go");

	/* the daemon goes away */
	pthread_mutex_lock(&srv.lock);
	shutdown(s->sock, SHUT_RDWR);
	pthread_mutex_unlock(&srv.lock);
	usleep(2000);	/* umad_send() looks once a millisecond */
	is_int(E(umad_send(fd, a_perf, buf, 256, 0, 0)), -EIO,
	       "send after the daemon hung up: -EIO");
	is_int(err_, EIO, "errno EIO");
	len = 256;
	is_int(umad_recv(fd, buf, &len, -1), -EIO,
	       "blocking recv after the daemon hung up: -EIO");
	/* told once: later waits last their time-out (a receiver that loops
	 * on errors, as OpenSM's does, must not spin) */
	is_int(umad_recv(fd, buf, &len, 0), -EWOULDBLOCK,
	       "non-blocking recv after that: -EWOULDBLOCK, nothing queued");
	t0 = (int64_t)mpd_mono_ms();
	is_int(umad_recv(fd, buf, &len, 60), -ETIMEDOUT,
	       "recv with a time-out after that: -ETIMEDOUT");
	ok((int64_t)mpd_mono_ms() - t0 >= 55, "... after its time-out, not at once");
	len = -1;
	is_int(umad_recv(fd, buf, &len, 0), -EINVAL,
	       "a negative length is -EINVAL even then (checked first, as the kernel)");
	t0 = (int64_t)mpd_mono_ms();
	is_int(umad_poll(fd, 60), -ETIMEDOUT, "poll: -ETIMEDOUT");
	ok((int64_t)mpd_mono_ms() - t0 >= 55, "... after its time-out");
	is_int(E(umad_register(fd, 0x05, 1, 0, NULL)), -EPERM,
	       "register after the daemon hung up: -EPERM");
	is_int(err_, EIO, "errno EIO");
	is_int(umad_close_port(fd), 0, "close_port");
	len = 256;
	is_int(umad_recv(fd, buf, &len, 0), -EINVAL, "the fd is no port now");
}

int
main(void)
{
	char run[300], nodes[400];

	tap_seed();
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/madpmd-umad-XXXXXX");
	if (!mkdtemp(tmp_root)) {
		perror("mkdtemp");
		return 1;
	}
	test_layout();
	test_strings();
	test_device_list_sort();
	test_ring_edges();
	test_no_daemon();

	snprintf(run, sizeof(run), "%s/run", tmp_root);
	mkdir(run, 0700);
	make_node_dir(run, "hca1");
	snprintf(nodes, sizeof(nodes), "%s/nodes", run);
	write_file(nodes, "hca1 0x0002c90300001230 2\n");
	setenv("MADPMD_RUN_DIR", run, 1);
	unsetenv("MADPMD_NODE");
	srv_start(run);
	test_info();
	test_session();
	srv_stop();
	is_int(srv.garbage, 0, "the daemon never saw a malformed request");

	nftw(tmp_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
