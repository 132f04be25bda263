/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client channel's control plane (madpmd/chan.h): the node's control
 * socket, sessions and their shared memory, agent registration, and the
 * ISSM FIFO. It runs on a control thread of its own (epoll); the data
 * plane (mad_layer.c) runs on the lcore. Both share sessions under
 * hi->lock. A client that dies or sends garbage is cut off and all it
 * held is freed; other clients never notice.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <inttypes.h>

#include "madpmd/mad.h"
#include "umad_srv.h"

#define CAP_IS_SM	(1u << 1)	/* PortInfo:CapabilityMask.IsSM */
#define RING_HDR	((uint32_t)sizeof(struct mpd_chan_ring))
#define PAGE		4096u
#define TAG_LISTEN	((uint64_t)-1)
#define TAG_INOTIFY	((uint64_t)-2)

static size_t
round_page(size_t n)
{
	return (n + PAGE - 1) & ~(size_t)(PAGE - 1);
}

static void
session_free(struct hca_session *s)
{
	if (s->sock >= 0)
		close(s->sock);
	if (s->efd >= 0)
		close(s->efd);
	if (s->shm)
		munmap(s->shm, s->shm_size);
	free(s);
}

void
hca_session_kill(struct hca_session *s, const char *why)
{
	if (!s->dead)
		HCA_LOG(WARNING, "%s: cutting off client pid %d: %s",
			s->hi->port.node_name, (int)s->pid, why);
	s->dead = true;
}

/* Unlink a session and everything the data plane holds for it. */
static void
session_end(struct hca_umad_srv *srv, struct hca_session *s)
{
	struct hca_internals *hi = srv->hi;
	unsigned int i;

	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, s->sock, NULL);
	rte_spinlock_lock(&hi->lock);
	TAILQ_REMOVE(&srv->sessions, s, next);
	srv->nsessions--;
	for (i = 0; i < HCA_MAX_OUTSTANDING; i++) {
		struct hca_outstanding *o = &srv->out[i];

		if (o->used && o->s == s)
			hca_out_free(srv, o);
	}
	for (i = 0; i < HCA_MAX_XFERS; i++)
		if (srv->xfer[i].used && srv->xfer[i].s == s)
			hca_xfer_free(&srv->xfer[i]);
	rte_spinlock_unlock(&hi->lock);
	HCA_LOG(INFO, "%s: client pid %d gone (%" PRIu64 " sent, %" PRIu64
		" received)", hi->port.node_name, (int)s->pid, s->sent,
		s->received);
	session_free(s);
}

static void
fill_port_info(const struct hca_internals *hi, struct mpd_chan_port_info *pi)
{
	const struct hca_port *p = &hi->port;

	memset(pi, 0, sizeof(*pi));
	snprintf(pi->ca_name, sizeof(pi->ca_name), "%s", p->node_name);
	memcpy(pi->node_desc, p->node_desc, sizeof(pi->node_desc));
	pi->node_guid = p->node_guid;
	pi->sys_guid = p->sys_guid;
	pi->port_guid = p->port_guid;
	pi->gid_prefix = p->gid_prefix;
	pi->node_type = 1;
	pi->num_ports = p->num_ports;
	pi->port_num = p->port_num;
	pi->lid = p->lid;
	pi->lmc = p->lmc;
	pi->sm_lid = p->sm_lid;
	pi->sm_sl = p->sm_sl;
	pi->state = p->port_state;
	pi->phys_state = p->phys_state;
	pi->rate = hca_port_rate_mbps(p) / 1000;	/* Gb/s, as sysfs */
	pi->capmask = hca_sma_cap_mask(p);
	pi->link_layer = p->link == MPD_LINK_IB ? 0 : 1;
	pi->fw_ver = 1;
	pi->num_pkeys = HCA_PKEY_TABLE_LEN;
	memcpy(pi->pkeys, p->pkeys, sizeof(pi->pkeys));
}

static int
send_reply(int sock, struct mpd_chan_msg *m, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m) ? 0 : -1;
}

static int
do_hello(struct hca_umad_srv *srv, struct hca_session *s,
	 struct mpd_chan_msg *m)
{
	struct hca_internals *hi = srv->hi;
	struct mpd_chan_shm *hdr;
	size_t rx_off = round_page(PAGE + RING_HDR + MPD_CHAN_RING_SIZE);
	int fds[2], memfd;

	if (s->shm)
		return EBUSY;
	if (m->u.hello_req.version != MPD_CHAN_VERSION)
		return EPROTONOSUPPORT;
	if (m->u.hello_req.port_num && m->u.hello_req.port_num !=
				       hi->port.port_num)
		return EINVAL;
	s->pid = (pid_t)m->u.hello_req.pid;
	s->id = ++srv->next_session_id;
	s->shm_size = round_page(rx_off + RING_HDR + MPD_CHAN_RING_SIZE);
	memfd = memfd_create("madpmd-umad", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (memfd < 0)
		return errno;
	/* sealed at its size: a client that shrinks it would make our
	 * accesses fault */
	if (ftruncate(memfd, (off_t)s->shm_size) != 0 ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
				      F_SEAL_SEAL) != 0)
		goto fail;
	s->shm = mmap(NULL, s->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      memfd, 0);
	if (s->shm == MAP_FAILED) {
		s->shm = NULL;
		goto fail;
	}
	hdr = s->shm;
	hdr->magic = MPD_CHAN_MAGIC;
	hdr->version = MPD_CHAN_VERSION;
	hdr->tx_off = PAGE;
	hdr->rx_off = (uint32_t)rx_off;
	mpd_ring_init((struct mpd_chan_ring *)((uint8_t *)s->shm + PAGE),
		      MPD_CHAN_RING_SIZE);
	mpd_ring_init((struct mpd_chan_ring *)((uint8_t *)s->shm + rx_off),
		      MPD_CHAN_RING_SIZE);
	mpd_ring_attach(&s->tx, (struct mpd_chan_ring *)((uint8_t *)s->shm +
							 PAGE),
			MPD_CHAN_RING_SIZE);
	mpd_ring_attach(&s->rx, (struct mpd_chan_ring *)((uint8_t *)s->shm +
							 rx_off),
			MPD_CHAN_RING_SIZE);
	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->efd < 0)
		goto fail;
	m->status = 0;
	m->len = sizeof(m->u.hello_rep);
	memset(&m->u, 0, sizeof(m->u));
	m->u.hello_rep.version = MPD_CHAN_VERSION;
	m->u.hello_rep.shm_size = (uint32_t)s->shm_size;
	rte_spinlock_lock(&hi->lock);
	fill_port_info(hi, &m->u.hello_rep.port);
	rte_spinlock_unlock(&hi->lock);
	fds[0] = memfd;
	fds[1] = s->efd;
	if (send_reply(s->sock, m, fds, 2) != 0) {
		close(memfd);
		return -1;	/* the client is gone */
	}
	close(memfd);
	/* only now does the data plane see the session */
	rte_spinlock_lock(&hi->lock);
	TAILQ_INSERT_TAIL(&srv->sessions, s, next);
	srv->nsessions++;
	rte_spinlock_unlock(&hi->lock);
	HCA_LOG(INFO, "%s: client pid %d connected", hi->port.node_name,
		(int)s->pid);
	return 0;
fail:
	close(memfd);
	return errno ? errno : ENOMEM;
}

/* IBA 13.4.5 / the kernel's ib_mad: a (class, version, method) is served
 * by one agent per port; the vendor range-2 classes add the OUI. */
static bool
agents_conflict(const struct hca_agent *a, const struct mpd_chan_register_req *r)
{
	if (!a->used || !a->mgmt_class || a->mgmt_class != r->mgmt_class ||
	    a->class_version != r->class_version)
		return false;
	if (r->mgmt_class >= MPD_CLASS_VENDOR_R2_LO &&
	    r->mgmt_class <= MPD_CLASS_VENDOR_R2_HI && a->oui != r->oui)
		return false;
	return (a->method_mask[0] & r->method_mask[0]) ||
	       (a->method_mask[1] & r->method_mask[1]);
}

static int
do_register(struct hca_umad_srv *srv, struct hca_session *s,
	    struct mpd_chan_msg *m)
{
	struct mpd_chan_register_req r = m->u.reg_req;
	struct hca_session *o;
	unsigned int i, id;
	int rc = 0;

	if (r.rmpp_version > 1 || r.qpn > 1 || r.oui >> 24 ||
	    (r.mgmt_class == 0 && (r.method_mask[0] | r.method_mask[1])))
		return EINVAL;
	/* RMPP only where the class carries an RMPP header (IBA 13.6.1) */
	if (r.rmpp_version && r.mgmt_class && !mpd_class_has_rmpp(r.mgmt_class))
		return EINVAL;
	rte_spinlock_lock(&srv->hi->lock);
	TAILQ_FOREACH(o, &srv->sessions, next)
		for (i = 0; i < MPD_CHAN_MAX_AGENTS; i++)
			if (agents_conflict(&o->agent[i], &r))
				rc = EINVAL;
	for (id = 0; !rc && id < MPD_CHAN_MAX_AGENTS; id++)
		if (!s->agent[id].used)
			break;
	if (!rc && id == MPD_CHAN_MAX_AGENTS)
		rc = ENOMEM;
	if (!rc) {
		struct hca_agent *a = &s->agent[id];

		a->used = true;
		a->mgmt_class = r.mgmt_class;
		a->class_version = r.class_version;
		a->rmpp_version = r.rmpp_version;
		a->qpn = r.qpn;
		a->method_mask[0] = r.method_mask[0];
		a->method_mask[1] = r.method_mask[1];
		a->oui = r.oui;
		a->hi_tid = ++srv->next_hi_tid;
		m->u.reg_rep.agent_id = id;
		m->len = sizeof(m->u.reg_rep);
	}
	rte_spinlock_unlock(&srv->hi->lock);
	return rc;
}

static int
do_unregister(struct hca_umad_srv *srv, struct hca_session *s,
	      struct mpd_chan_msg *m)
{
	uint32_t id = m->u.unreg_req.agent_id;
	unsigned int i;

	if (id >= MPD_CHAN_MAX_AGENTS || !s->agent[id].used)
		return EINVAL;
	rte_spinlock_lock(&srv->hi->lock);
	memset(&s->agent[id], 0, sizeof(s->agent[id]));
	for (i = 0; i < HCA_MAX_OUTSTANDING; i++)
		if (srv->out[i].used && srv->out[i].s == s &&
		    srv->out[i].agent == id)
			hca_out_free(srv, &srv->out[i]);
	rte_spinlock_unlock(&srv->hi->lock);
	m->len = 0;
	return 0;
}

/* One control request; false cuts the client off. */
static bool
session_input(struct hca_umad_srv *srv, struct hca_session *s)
{
	struct mpd_chan_msg m;
	ssize_t n;
	int rc;

	do
		n = recv(s->sock, &m, sizeof(m), MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n == 0 || (n < 0 && errno != EAGAIN))
		return false;			/* closed or died */
	if (n < 0)
		return true;
	if ((size_t)n != sizeof(m) || m.len > sizeof(m.u)) {
		HCA_LOG(WARNING, "%s: malformed control message (%zd bytes)",
			srv->hi->port.node_name, n);
		return false;
	}
	if (m.type != MPD_CHAN_HELLO && !s->shm)
		return false;			/* HELLO comes first */
	switch (m.type) {
	case MPD_CHAN_HELLO:
		rc = do_hello(srv, s, &m);
		if (rc == 0)
			return true;		/* replied with the fds */
		if (rc < 0)
			return false;
		break;
	case MPD_CHAN_REGISTER:
		rc = do_register(srv, s, &m);
		break;
	case MPD_CHAN_UNREGISTER:
		rc = do_unregister(srv, s, &m);
		break;
	case MPD_CHAN_PORT_INFO:
		rte_spinlock_lock(&srv->hi->lock);
		fill_port_info(srv->hi, &m.u.port);
		rte_spinlock_unlock(&srv->hi->lock);
		m.len = sizeof(m.u.port);
		rc = 0;
		break;
	default:
		HCA_LOG(WARNING, "%s: unknown control message type %u",
			srv->hi->port.node_name, m.type);
		return false;
	}
	m.status = rc;
	if (rc)
		m.len = 0;
	return send_reply(s->sock, &m, NULL, 0) == 0;
}

static void
accept_client(struct hca_umad_srv *srv)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	struct hca_session *s;
	int fd = accept4(srv->listen_fd, NULL, NULL,
			 SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (srv->nsessions >= HCA_MAX_SESSIONS ||
	    !(s = calloc(1, sizeof(*s)))) {
		HCA_LOG(WARNING, "%s: refusing a client: %u sessions is the limit",
			srv->hi->port.node_name, HCA_MAX_SESSIONS);
		close(fd);
		return;
	}
	s->hi = srv->hi;
	s->sock = fd;
	s->efd = -1;
	ev.data.ptr = s;
	if (epoll_ctl(srv->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		session_free(s);
}

/* A session not yet in the list (before HELLO) is ended here. */
static void
drop_session(struct hca_umad_srv *srv, struct hca_session *s)
{
	struct hca_session *o;
	bool listed = false;

	rte_spinlock_lock(&srv->hi->lock);
	TAILQ_FOREACH(o, &srv->sessions, next)
		listed |= o == s;
	rte_spinlock_unlock(&srv->hi->lock);
	if (listed) {
		session_end(srv, s);
	} else {
		epoll_ctl(srv->epfd, EPOLL_CTL_DEL, s->sock, NULL);
		session_free(s);
	}
}

/*
 * ISSM (the kernel's umad "issm" device): IsSM while someone holds the
 * FIFO open; inotify sees every open and close. The kernel lets one
 * process hold it (ib_umad_sm_open(): -EAGAIN or a wait for the next); a
 * FIFO cannot refuse an open, so while it is held its name is taken by a
 * socket file, which open() refuses with ENXIO, and given back to a fresh
 * FIFO on the last close.
 */
static int
issm_fifo(struct hca_umad_srv *srv)
{
	char tmp[sizeof(srv->issm_path) + 8];
	int fd, wd;

	snprintf(tmp, sizeof(tmp), "%s.new", srv->issm_path);
	unlink(tmp);
	/* we hold it read-write so that blocking opens return */
	if (mkfifo(tmp, srv->hi->umad_mode) != 0 ||
	    chmod(tmp, srv->hi->umad_mode) != 0)
		return -1;
	fd = open(tmp, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	wd = inotify_add_watch(srv->inotify_fd, tmp,
			       IN_OPEN | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE);
	if (wd < 0 || rename(tmp, srv->issm_path) != 0)
		goto fail_fd;
	if (srv->issm_wd >= 0 && srv->issm_wd != wd)
		inotify_rm_watch(srv->inotify_fd, srv->issm_wd);
	if (srv->issm_fd >= 0)
		close(srv->issm_fd);
	srv->issm_fd = fd;
	srv->issm_wd = wd;
	return 0;
fail_fd:
	close(fd);
fail:
	unlink(tmp);
	return -1;
}

/* The FIFO is held: its name goes to a socket file nobody can open. */
static void
issm_busy(struct hca_umad_srv *srv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmp[sizeof(srv->issm_path) + 8];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.busy", srv->issm_path);
	if (strlen(tmp) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, tmp, strlen(tmp) + 1);
	unlink(tmp);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    rename(tmp, srv->issm_path) != 0)
		unlink(tmp);
	close(fd);
}

static void
issm_events(struct hca_umad_srv *srv)
{
	char buf[4096] __attribute__((aligned(8)));
	ssize_t n = read(srv->inotify_fd, buf, sizeof(buf));
	ssize_t off = 0;
	int before = srv->issm_opens;

	while (n > 0 && off + (ssize_t)sizeof(struct inotify_event) <= n) {
		const struct inotify_event *e = (const void *)(buf + off);

		off += (ssize_t)sizeof(*e) + e->len;
		if (e->wd != srv->issm_wd)
			continue;	/* a FIFO we no longer hold */
		if (e->mask & IN_OPEN)
			srv->issm_opens++;
		if (e->mask & (IN_CLOSE_WRITE | IN_CLOSE_NOWRITE))
			srv->issm_opens--;
	}
	if (srv->issm_opens < 0)
		srv->issm_opens = 0;
	if ((before > 0) == (srv->issm_opens > 0))
		return;
	if (srv->issm_opens > 0)
		issm_busy(srv);
	else if (issm_fifo(srv) != 0)
		HCA_LOG(ERR, "%s: cannot make %s again: %s",
			srv->hi->port.node_name, srv->issm_path,
			strerror(errno));
	rte_spinlock_lock(&srv->hi->lock);
	if (srv->issm_opens > 0)
		srv->hi->port.cap_mask |= CAP_IS_SM;
	else
		srv->hi->port.cap_mask &= ~CAP_IS_SM;
	hca_rec_port_check(srv->hi);
	rte_spinlock_unlock(&srv->hi->lock);
	HCA_LOG(INFO, "%s: IsSM %s", srv->hi->port.node_name,
		srv->issm_opens > 0 ? "set" : "cleared");
	if (srv->issm_opens > 1)
		HCA_LOG(WARNING, "%s: %d processes opened the ISSM device at once; one SM per port",
			srv->hi->port.node_name, srv->issm_opens);
}

static uint32_t
ctl_thread(void *arg)
{
	struct hca_umad_srv *srv = arg;
	struct epoll_event ev[16];

	while (!srv->stop) {
		struct hca_session *s, *tmp;
		int n = epoll_wait(srv->epfd, ev, 16, 100), i;

		for (i = 0; i < n; i++) {
			if (ev[i].data.u64 == TAG_LISTEN) {
				accept_client(srv);
				continue;
			}
			if (ev[i].data.u64 == TAG_INOTIFY) {
				issm_events(srv);
				continue;
			}
			s = ev[i].data.ptr;
			if ((ev[i].events & (EPOLLERR | EPOLLHUP)) ||
			    !session_input(srv, s))
				drop_session(srv, s);
		}
		/* sessions the data plane found talking garbage */
		for (s = TAILQ_FIRST(&srv->sessions); s; s = tmp) {
			tmp = TAILQ_NEXT(s, next);
			if (s->dead)
				session_end(srv, s);
		}
	}
	return 0;
}

static int
mkdir_p(const char *path)
{
	char tmp[512], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int
hca_umad_srv_start(struct hca_internals *hi)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct hca_umad_srv *srv;
	char nodes[600], tname[16], file[32];
	FILE *f;

	if (!hi->run_dir[0])
		return 0;	/* no channel asked for */
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->hi = hi;
	srv->listen_fd = srv->epfd = srv->inotify_fd = srv->issm_fd = -1;
	srv->issm_wd = -1;
	TAILQ_INIT(&srv->sessions);
	hca_out_init(srv);
	snprintf(srv->dir, sizeof(srv->dir), "%s/%s", hi->run_dir,
		 hi->port.node_name);
	/* one socket and ISSM device per port, as the kernel's umadN/issmN */
	mpd_chan_port_file(file, sizeof(file), MPD_CHAN_SOCK,
			   hi->port.port_num);
	snprintf(srv->sock_path, sizeof(srv->sock_path), "%s/%s", srv->dir,
		 file);
	mpd_chan_port_file(file, sizeof(file), MPD_CHAN_ISSM,
			   hi->port.port_num);
	snprintf(srv->issm_path, sizeof(srv->issm_path), "%s/%s", srv->dir,
		 file);
	if (strlen(srv->sock_path) >= sizeof(sa.sun_path)) {
		HCA_LOG(ERR, "%s: run directory path too long for a socket: %s",
			hi->port.node_name, srv->sock_path);
		goto fail;
	}
	if (mkdir_p(srv->dir) != 0) {
		HCA_LOG(ERR, "%s: cannot create %s: %s", hi->port.node_name,
			srv->dir, strerror(errno));
		goto fail;
	}
	unlink(srv->sock_path);
	unlink(srv->issm_path);
	srv->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
					 SOCK_CLOEXEC, 0);
	memcpy(sa.sun_path, srv->sock_path, strlen(srv->sock_path) + 1);
	if (srv->listen_fd < 0 ||
	    bind(srv->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod(srv->sock_path, hi->umad_mode) != 0 ||
	    listen(srv->listen_fd, 64) != 0) {
		HCA_LOG(ERR, "%s: cannot listen on %s: %s", hi->port.node_name,
			srv->sock_path, strerror(errno));
		goto fail;
	}
	if ((srv->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0 ||
	    issm_fifo(srv) != 0) {
		HCA_LOG(ERR, "%s: cannot set up %s: %s", hi->port.node_name,
			srv->issm_path, strerror(errno));
		goto fail;
	}
	srv->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (srv->epfd < 0)
		goto fail;
	ev.data.u64 = TAG_LISTEN;
	epoll_ctl(srv->epfd, EPOLL_CTL_ADD, srv->listen_fd, &ev);
	ev.data.u64 = TAG_INOTIFY;
	epoll_ctl(srv->epfd, EPOLL_CTL_ADD, srv->inotify_fd, &ev);
	snprintf(nodes, sizeof(nodes), "%s/%s", hi->run_dir, MPD_CHAN_NODES);
	/* the node once, by its first port */
	f = hi->port.port_num == 1 ? fopen(nodes, "a") : NULL;
	if (f) {
		fprintf(f, "%s 0x%016" PRIx64 " %u\n", hi->port.node_name,
			hi->port.node_guid, hi->port.num_ports);
		fclose(f);
	}
	hi->srv = srv;
	snprintf(tname, sizeof(tname), "hca-umad-%u", hi->port_id);
	if (rte_ctrl_thread_create(&srv->thread, tname, NULL,
				   (void *(*)(void *))(uintptr_t)ctl_thread,
				   srv) != 0) {
		hi->srv = NULL;
		goto fail;
	}
	HCA_LOG(INFO, "%s: clients connect to %s", hi->port.node_name,
		srv->sock_path);
	return 0;
fail:
	if (srv->listen_fd >= 0)
		close(srv->listen_fd);
	if (srv->inotify_fd >= 0)
		close(srv->inotify_fd);
	if (srv->issm_fd >= 0)
		close(srv->issm_fd);
	if (srv->epfd >= 0)
		close(srv->epfd);
	free(srv);
	return -EIO;
}

void
hca_umad_srv_stop(struct hca_internals *hi)
{
	struct hca_umad_srv *srv = hi->srv;
	struct hca_session *s;
	unsigned int i;

	if (!srv)
		return;
	srv->stop = true;
	pthread_join(srv->thread, NULL);
	rte_spinlock_lock(&hi->lock);
	hi->srv = NULL;
	rte_spinlock_unlock(&hi->lock);
	while ((s = TAILQ_FIRST(&srv->sessions)) != NULL) {
		TAILQ_REMOVE(&srv->sessions, s, next);
		session_free(s);
	}
	for (i = 0; i < HCA_MAX_XFERS; i++)
		if (srv->xfer[i].used)
			hca_xfer_free(&srv->xfer[i]);
	close(srv->listen_fd);
	close(srv->inotify_fd);
	close(srv->issm_fd);
	close(srv->epfd);
	unlink(srv->sock_path);
	unlink(srv->issm_path);
	rmdir(srv->dir);
	free(srv);
}
