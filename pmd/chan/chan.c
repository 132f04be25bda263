/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client channel's socket and sessions (madpmd/chan.h). A control
 * thread of its own (epoll) accepts clients, answers HELLO with the
 * session's shared memory and pipes (wake.c), and hands every other request to
 * the service's handler table; the lcore drains the send rings in
 * hca_chan_send_burst(). No client can hurt the others: connections that
 * never say HELLO are limited and timed out, one process holds a bounded
 * number of sessions, descriptors running out refuses the newcomer
 * instead of spinning, and a client that dies or sends garbage is cut off
 * with everything it held freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_log.h>

#include "madpmd/clock.h"
#include "chan_priv.h"

#define RING_HDR	((uint32_t)sizeof(struct mpd_chan_ring))
#define TAG_LISTEN	((uint64_t)-1)
#define TAG_INOTIFY	((uint64_t)-2)
#define SEND_BUDGET	8	/* records per session per turn */
#define ACCEPT_BATCH	64	/* newcomers taken per wake-up */
#define BURST_RECORDS	256	/* per call: sends that stay on the port
				 * take no frame, and a client may write
				 * as fast as we read */

static const struct hca_chan_service *const services[] = {
	&hca_chan_umad, &hca_chan_verbs, &hca_chan_cm, &hca_chan_net,
};

static void
session_free(struct hca_session *s)
{
	if (s->sock >= 0)
		close(s->sock);
	chan_wake_close(s);
	if (s->shm)
		munmap(s->shm, s->shm_size);
	hca_mad_client_fini(&s->mc);
	free(s);
}

/* The last of the control thread and a pending wake-up frees it. */
static void
session_put(struct hca_session *s)
{
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0)
		session_free(s);
}

static void owed_wakes(struct hca_chan *ch);

/* Out of every list, everything it held freed; then let go. */
static void
session_end(struct hca_chan *ch, struct hca_session *s)
{
	epoll_ctl(ch->epfd, EPOLL_CTL_DEL, s->sock, NULL);
	if (!s->listed) {
		TAILQ_REMOVE(&ch->pending, s, next);
		ch->npending--;
		session_put(s);
		return;
	}
	rte_spinlock_lock(ch->cfg.lock);
	if (ch->rr == s)
		ch->rr = TAILQ_NEXT(s, next);
	TAILQ_REMOVE(&ch->sessions, s, next);
	ch->nsessions--;
	hca_mad_client_detach(ch->cfg.ml, &s->mc);
	rte_spinlock_unlock(ch->cfg.lock);
	/* its ids' peers hear of it (DREQ, REJ): wake whom that woke */
	hca_chan_cm_end(ch, s);
	owed_wakes(ch);
	hca_chan_verbs_end(ch, s);
	CHAN_LOG(INFO, "%s: client pid %d gone (%" PRIu64 " sent, %" PRIu64
		 " received)", ch->node, (int)s->pid, s->mc.sent,
		 s->mc.received);
	session_put(s);
	/* what it made (QPs' send WR copies, tables of its objects) goes
	 * back to the system, not only to malloc's free lists: a client
	 * that took its whole share and left leaves the daemon as it was.
	 * Not under AddressSanitizer, whose allocator is not glibc's: glibc's
	 * trim walked arenas another thread was using (a SEGV in mtrim) */
#ifndef __SANITIZE_ADDRESS__
	malloc_trim(0);
#endif
}

/* The sessions of s's process, or of its user */
static unsigned int
sessions_of(const struct hca_chan *ch, const struct hca_session *s,
	    bool user)
{
	const struct hca_session *o;
	unsigned int n = 0;

	TAILQ_FOREACH(o, &ch->sessions, next)
		n += user ? o->uid == s->uid : o->pid == s->pid;
	return n;
}

/* The memfd: a header page, the send ring, the receive ring. */
static int
session_shm(struct hca_session *s, int *memfd)
{
	size_t page = mpd_page_size();
	size_t rx_off = mpd_page_round(page + RING_HDR + MPD_CHAN_RING_SIZE);
	struct mpd_chan_shm *hdr;
	uint8_t *base;

	s->shm_size = mpd_page_round(rx_off + RING_HDR + MPD_CHAN_RING_SIZE);
	*memfd = memfd_create("madpmd-umad", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (*memfd < 0)
		return errno;
	/* sealed at its size: a client that shrinks it would make our
	 * accesses fault */
	if (ftruncate(*memfd, (off_t)s->shm_size) != 0 ||
	    fcntl(*memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
				       F_SEAL_SEAL) != 0)
		return errno;
	base = mmap(NULL, s->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    *memfd, 0);
	if (base == MAP_FAILED)
		return errno;
	s->shm = base;
	hdr = s->shm;
	hdr->magic = MPD_CHAN_MAGIC;
	hdr->version = MPD_CHAN_VERSION;
	hdr->tx_off = (uint32_t)page;
	hdr->rx_off = (uint32_t)rx_off;
	mpd_ring_init((struct mpd_chan_ring *)(base + page), MPD_CHAN_RING_SIZE);
	mpd_ring_init((struct mpd_chan_ring *)(base + rx_off),
		      MPD_CHAN_RING_SIZE);
	if (mpd_ring_attach(&s->tx, (struct mpd_chan_ring *)(base + page),
			    MPD_CHAN_RING_SIZE) != 0 ||
	    mpd_ring_attach(&s->rx, (struct mpd_chan_ring *)(base + rx_off),
			    MPD_CHAN_RING_SIZE) != 0)
		return EINVAL;
	return 0;
}

/* HELLO: 0 (replied with the fds), a positive errno to reply, or -1 when
 * the client is gone. */
static int
do_hello(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	int fds[CHAN_MAX_FDS], nfds = 0, memfd = -1, rc;

	if (m->u.hello_req.version != MPD_CHAN_VERSION)
		return EPROTONOSUPPORT;
	if (m->u.hello_req.port_num &&
	    m->u.hello_req.port_num != ch->cfg.port->port_num)
		return EINVAL;
	if (ch->nsessions >= CHAN_MAX_SESSIONS)
		return EUSERS;
	if (sessions_of(ch, s, false) >= CHAN_SESSIONS_PER_PID)
		return EMFILE;
	if (sessions_of(ch, s, true) >= CHAN_SESSIONS_PER_UID)
		return EUSERS;
	s->mc.id = ++ch->next_session_id;
	if (hca_mad_client_init(&s->mc, services[0]->client_ops,
				(uint32_t)s->pid, s->mc.id) != 0)
		return ENOMEM;
	rc = session_shm(s, &memfd);
	if (rc)
		goto out;
	rc = chan_wake_open(s, ch->cfg.doorbells, fds + 1, &nfds);
	if (rc)
		goto out;
	m->status = 0;
	m->len = sizeof(m->u.hello_rep);
	memset(&m->u, 0, sizeof(m->u));
	m->u.hello_rep.version = MPD_CHAN_VERSION;
	m->u.hello_rep.shm_size = (uint32_t)s->shm_size;
	m->u.hello_rep.share_out = HCA_MAD_CLIENT_OUT;
	m->u.hello_rep.share_xfer = HCA_MAD_CLIENT_XFER_SENDS;
	rte_spinlock_lock(ch->cfg.lock);
	hca_chan_port_info(ch, &m->u.hello_rep.port);
	rte_spinlock_unlock(ch->cfg.lock);
	fds[0] = memfd;
	rc = hca_chan_send_reply(s->sock, m, fds, nfds + 1);
	close(memfd);
	chan_wake_sent(fds + 1, nfds);
	if (rc != 0)
		return -1;
	/* only now does the data plane see the session */
	TAILQ_REMOVE(&ch->pending, s, next);
	ch->npending--;
	rte_spinlock_lock(ch->cfg.lock);
	TAILQ_INSERT_TAIL(&ch->sessions, s, next);
	ch->nsessions++;
	__atomic_add_fetch(&ch->gen, 1, __ATOMIC_RELEASE);
	s->listed = true;
	hca_mad_client_attach(ch->cfg.ml, &s->mc);
	((struct mpd_chan_shm *)s->shm)->doorbell_armed = ch->armed;
	((struct mpd_chan_shm *)s->shm)->lcore_cpu = ch->cpu;
	rte_spinlock_unlock(ch->cfg.lock);
	CHAN_LOG(INFO, "%s: client pid %d connected", ch->node, (int)s->pid);
	return 0;
out:
	if (memfd >= 0)
		close(memfd);
	return rc ? rc : ENOMEM;
}

static const struct hca_chan_handler *
find_handler(uint32_t type, const struct hca_chan_service **svc)
{
	unsigned int i;
	const struct hca_chan_handler *h;

	for (i = 0; i < sizeof(services) / sizeof(services[0]); i++)
		for (h = services[i]->handlers; h->type; h++)
			if (h->type == type) {
				*svc = services[i];
				return h;
			}
	return NULL;
}

static void
owed_wakes(struct hca_chan *ch)
{
	struct hca_session *w[HCA_CHAN_WAKE_MAX];
	struct hca_v_comp *k[HCA_V_KICKS_MAX];
	unsigned int nw, nk;

	rte_spinlock_lock(ch->cfg.lock);
	nw = hca_chan_wakes(ch, w);
	nk = ch->cfg.verbs ? hca_v_kicks(ch->cfg.verbs, k) : 0;
	rte_spinlock_unlock(ch->cfg.lock);
	hca_chan_wake(w, nw);
	hca_v_kick(k, nk);
}

/* One control request; false cuts the client off. */
static bool
session_input(struct hca_chan *ch, struct hca_session *s)
{
	const struct hca_chan_service *svc = NULL;
	const struct hca_chan_handler *h;
	struct mpd_chan_msg m;
	ssize_t n;
	int rc;

	do
		n = recv(s->sock, &m, sizeof(m), MSG_DONTWAIT | MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n == 0 || (n < 0 && errno != EAGAIN))
		return false;			/* closed or died */
	if (n < 0)
		return true;
	if ((size_t)n != sizeof(m)) {
		if (chan_warn_ok(ch))
			CHAN_LOG(WARNING, "%s: pid %d: malformed control message (%zd bytes, %zu expected)",
				 ch->node, (int)s->pid, n, sizeof(m));
		return false;
	}
	if (m.len > sizeof(m.u)) {
		if (chan_warn_ok(ch))
			CHAN_LOG(WARNING, "%s: pid %d: malformed control message (a body of %u bytes, at most %zu)",
				 ch->node, (int)s->pid, m.len, sizeof(m.u));
		return false;
	}
	/* this thread alone writes it; xstats read it as they come */
	ch->cfg.port->cnt.chan_requests++;
	if (m.type == MPD_CHAN_HELLO) {
		if (s->listed)
			return false;		/* one HELLO per session */
		rc = do_hello(ch, s, &m);
		if (rc <= 0)
			return rc == 0;
		/* refused: say why, then the session ends */
		m.status = rc;
		m.len = 0;
		hca_chan_send_reply(s->sock, &m, NULL, 0);
		return false;
	} else if (!s->listed) {
		return false;			/* HELLO comes first */
	} else if ((h = find_handler(m.type, &svc)) != NULL) {
		/* a service the port has not (verbs on a switch's port 0)
		 * fails at once */
		rc = svc->ready ? svc->ready(ch) : 0;
		if (!rc)
			rc = h->ctl(ch, s, &m);
		/* what the request made the port owe: a flush's completion
		 * events, an error's async event */
		owed_wakes(ch);
		if (rc == CHAN_REPLIED || rc == CHAN_GONE)
			return rc == CHAN_REPLIED;
	} else {
		if (chan_warn_ok(ch))
			CHAN_LOG(WARNING, "%s: pid %d: unknown control message type %u",
				 ch->node, (int)s->pid, m.type);
		return false;
	}
	m.status = rc;
	if (rc)
		m.len = 0;
	return hca_chan_send_reply(s->sock, &m, NULL, 0) == 0;
}

/*
 * Past the descriptor limit: take the newcomer with the descriptor kept in
 * reserve and close it, so that the backlog drains instead of waking us
 * for ever. One reserve for the process, handed over under a lock, so
 * that the channels of two ports refusing at once do not take each
 * other's. Said once a second, with how many. false: none was taken.
 */
static pthread_mutex_t reserve_lock = PTHREAD_MUTEX_INITIALIZER;
static int reserve_fd = -1;

static void
reserve_make(void)
{
	pthread_mutex_lock(&reserve_lock);
	if (reserve_fd < 0)
		reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pthread_mutex_unlock(&reserve_lock);
}

static bool
refuse_one(struct hca_chan *ch)
{
	uint64_t now = mpd_mono_ms();
	int fd;

	pthread_mutex_lock(&reserve_lock);
	if (reserve_fd >= 0) {
		close(reserve_fd);
		reserve_fd = -1;
	}
	fd = accept4(ch->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		ch->refused++;
	}
	reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pthread_mutex_unlock(&reserve_lock);
	if (ch->refused && now >= ch->refused_logged + 1000) {
		CHAN_LOG(WARNING, "%s: out of descriptors: refusing a client (%" PRIu64 " refused)",
			 ch->node, ch->refused);
		ch->refused_logged = now;
	}
	return fd >= 0;
}

/* One newcomer from the backlog; false when there is none to take. */
static bool
accept_client(struct hca_chan *ch)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct hca_session *s;
	int fd;

	fd = accept4(ch->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EMFILE && errno != ENFILE)
			return errno == EINTR || errno == ECONNABORTED;
		if (refuse_one(ch))
			return true;
		/* not even the reserve: stop listening until housekeeping
		 * gets one back, rather than wake up for ever */
		if (!ch->listen_paused &&
		    epoll_ctl(ch->epfd, EPOLL_CTL_DEL, ch->listen_fd, NULL) == 0)
			ch->listen_paused = true;
		return false;
	}
	/* the oldest silent connection makes room for the newcomer */
	if (ch->npending >= CHAN_MAX_PENDING)
		session_end(ch, TAILQ_FIRST(&ch->pending));
	s = calloc(1, sizeof(*s));
	if (!s || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
		free(s);
		close(fd);
		return true;
	}
	s->ch = ch;
	s->sock = fd;
	s->wake_fd = s->db_r = -1;
	s->refs = 1;
	s->pid = cred.pid;
	s->uid = cred.uid;
	s->hello_deadline = mpd_mono_ms() + CHAN_HELLO_MS;
	ev.data.ptr = s;
	if (epoll_ctl(ch->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		session_free(s);
		return true;
	}
	TAILQ_INSERT_TAIL(&ch->pending, s, next);
	ch->npending++;
	return true;
}

/* Pages of transfers over for a second given back, a session at a time:
 * the system call outside the port lock, the session ours meanwhile (only
 * this thread ends it). */
static void
trim_sessions(struct hca_chan *ch)
{
	struct hca_session *s;
	struct hca_mad_trim t;

	TAILQ_FOREACH(s, &ch->sessions, next) {
		rte_spinlock_lock(ch->cfg.lock);
		while (hca_mad_trim_begin(&s->mc, &t)) {
			rte_spinlock_unlock(ch->cfg.lock);
			hca_mad_trim_run(&t);
			rte_spinlock_lock(ch->cfg.lock);
			hca_mad_trim_end(&s->mc, &t);
		}
		hca_mad_trim_mark(&s->mc);
		rte_spinlock_unlock(ch->cfg.lock);
	}
}

/* Silent connections past their time; dead sessions; ISSM retries;
 * memory of finished transfers. */
static void
housekeeping(struct hca_chan *ch)
{
	struct hca_session *s, *tmp;
	uint64_t now = mpd_mono_ms();

	while ((s = TAILQ_FIRST(&ch->pending)) != NULL &&
	       s->hello_deadline <= now) {
		CHAN_LOG(INFO, "%s: pid %d said no HELLO in %u ms: closed",
			 ch->node, (int)s->pid, CHAN_HELLO_MS);
		session_end(ch, s);
	}
	if (ch->listen_paused) {
		struct epoll_event ev = { .events = EPOLLIN,
					  .data.u64 = TAG_LISTEN };

		reserve_make();
		if (reserve_fd >= 0 &&
		    epoll_ctl(ch->epfd, EPOLL_CTL_ADD, ch->listen_fd, &ev) == 0)
			ch->listen_paused = false;
	}
	/* sessions the data plane found talking garbage */
	for (s = TAILQ_FIRST(&ch->sessions); s; s = tmp) {
		tmp = TAILQ_NEXT(s, next);
		if (!s->mc.dead)
			continue;
		if (s->kill_why && chan_warn_ok(ch))
			CHAN_LOG(WARNING, "%s: cutting off client pid %d: %s",
				 ch->node, (int)s->pid, s->kill_why);
		session_end(ch, s);
	}
	hca_issm_events(ch, now);
	if (now >= ch->trim_ms) {
		ch->trim_ms = now + CHAN_TRIM_MS;
		trim_sessions(ch);
	}
}

static void *
ctl_thread(void *arg)
{
	struct hca_chan *ch = arg;
	struct epoll_event ev[16];

	while (!ch->stop) {
		int n = epoll_wait(ch->epfd, ev, 16, 100), i, k;

		for (i = 0; i < n; i++) {
			struct hca_session *s = ev[i].data.ptr;

			if (ev[i].data.u64 == TAG_LISTEN) {
				/* the whole backlog, a bounded number a round */
				for (k = 0; k < ACCEPT_BATCH && accept_client(ch);
				     k++)
					;
				continue;
			}
			if (ev[i].data.u64 == TAG_INOTIFY)
				continue;	/* housekeeping reads it */
			if ((ev[i].events & (EPOLLERR | EPOLLHUP)) ||
			    !session_input(ch, s))
				session_end(ch, s);
		}
		housekeeping(ch);
	}
	return NULL;
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

static int
chan_listen(struct hca_chan *ch)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(ch->sock_path) >= sizeof(sa.sun_path)) {
		CHAN_LOG(ERR, "%s: run directory path too long for a socket: %s",
			 ch->node, ch->sock_path);
		return -1;
	}
	if (mkdir_p(ch->dir) != 0) {
		CHAN_LOG(ERR, "%s: cannot create %s: %s", ch->node, ch->dir,
			 strerror(errno));
		return -1;
	}
	unlink(ch->sock_path);
	ch->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
					SOCK_CLOEXEC, 0);
	memcpy(sa.sun_path, ch->sock_path, strlen(ch->sock_path) + 1);
	if (ch->listen_fd < 0 ||
	    bind(ch->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod(ch->sock_path, ch->cfg.mode) != 0 ||
	    listen(ch->listen_fd, 64) != 0) {
		CHAN_LOG(ERR, "%s: cannot listen on %s: %s", ch->node,
			 ch->sock_path, strerror(errno));
		return -1;
	}
	return 0;
}

static void
chan_free(struct hca_chan *ch)
{
	if (ch->listen_fd >= 0)
		close(ch->listen_fd);
	if (ch->epfd >= 0)
		close(ch->epfd);
	hca_issm_stop(ch);
	free(ch);
}

int
hca_chan_start(struct hca_chan **pc, const struct hca_chan_cfg *cfg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	const struct hca_port *p = cfg->port;
	char nodes[600], tname[16], file[32];
	struct hca_chan *ch;
	FILE *f;

	*pc = NULL;
	if (!cfg->run_dir[0])
		return 0;	/* no channel asked for */
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return ENOMEM;
	ch->cfg = *cfg;
	if (!ch->cfg.node_type)
		ch->cfg.node_type = MPD_NODE_TYPE_CA;
	ch->listen_fd = ch->epfd = ch->inotify_fd = ch->issm_fd = -1;
	ch->issm_wd = -1;
	reserve_make();
	TAILQ_INIT(&ch->sessions);
	TAILQ_INIT(&ch->pending);
	snprintf(ch->node, sizeof(ch->node), "%s", p->node_name);
	snprintf(ch->dir, sizeof(ch->dir), "%s/%s", cfg->run_dir,
		 p->node_name);
	/* one socket and ISSM device per port, as the kernel's umadN/issmN */
	mpd_chan_port_file(file, sizeof(file), MPD_CHAN_SOCK, p->port_num);
	snprintf(ch->sock_path, sizeof(ch->sock_path), "%s/%s", ch->dir, file);
	mpd_chan_port_file(file, sizeof(file), MPD_CHAN_ISSM, p->port_num);
	snprintf(ch->issm_path, sizeof(ch->issm_path), "%s/%s", ch->dir, file);
	if (chan_listen(ch) != 0 || hca_issm_start(ch) != 0)
		goto fail;
	ch->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ch->epfd < 0)
		goto fail;
	ev.data.u64 = TAG_LISTEN;
	epoll_ctl(ch->epfd, EPOLL_CTL_ADD, ch->listen_fd, &ev);
	ev.data.u64 = TAG_INOTIFY;
	epoll_ctl(ch->epfd, EPOLL_CTL_ADD, ch->inotify_fd, &ev);
	snprintf(nodes, sizeof(nodes), "%s/%s", cfg->run_dir, MPD_CHAN_NODES);
	/* the node once, by its first port; a switch's is port 0, and it
	 * shows no other (madpmd/chan.h, MPD_CHAN_NODES) */
	f = p->port_num == 1 || cfg->node_type == MPD_NODE_TYPE_SWITCH ?
	    fopen(nodes, "a") : NULL;
	if (f) {
		fprintf(f, "%s 0x%016" PRIx64 " %u\n", p->node_name,
			p->node_guid, cfg->node_type == MPD_NODE_TYPE_SWITCH ?
			0 : p->num_ports);
		fclose(f);
	}
	snprintf(tname, sizeof(tname), "hca-chan-%u", cfg->port_id);
	if (rte_ctrl_thread_create(&ch->thread, tname, NULL, ctl_thread,
				   ch) != 0)
		goto fail;
	CHAN_LOG(INFO, "%s: clients connect to %s", ch->node, ch->sock_path);
	*pc = ch;
	return 0;
fail:
	unlink(ch->sock_path);
	chan_free(ch);
	return EIO;
}

void
hca_chan_stop(struct hca_chan *ch)
{
	struct hca_session *s, *w[HCA_CHAN_WAKE_MAX];

	if (!ch)
		return;
	ch->stop = true;
	pthread_join(ch->thread, NULL);
	while ((s = TAILQ_FIRST(&ch->pending)) != NULL)
		session_end(ch, s);
	while ((s = TAILQ_FIRST(&ch->sessions)) != NULL)
		session_end(ch, s);
	/* wake-ups nobody took hold their sessions */
	hca_chan_wake(w, hca_chan_wakes(ch, w));
	unlink(ch->sock_path);
	hca_issm_stop(ch);
	rmdir(ch->dir);
	chan_free(ch);
}

/* Up to SEND_BUDGET records of one session, and no more than *left;
 * false when it has no more. */
static bool
session_sends(struct hca_chan *ch, struct hca_session *s, uint64_t now_ns,
	      struct hca_mad_out *out, unsigned int *left)
{
	const struct hca_chan_service *svc = services[0];
	unsigned int budget = SEND_BUDGET;

	while (!s->mc.dead && out->room && *left && budget--) {
		const uint8_t *rec;
		uint32_t len, kind;
		int rc = mpd_ring_peek(&s->tx, &rec, &len, &kind);

		if (rc == 0)
			return false;
		if (rc < 0 || kind != svc->rec_kind) {
			chan_session_kill(s, "garbage in its send ring");
			return false;
		}
		svc->rec(ch, s, rec, len, now_ns, out);
		mpd_ring_consume(&s->tx);
		(*left)--;
	}
	return !s->mc.dead;
}

bool
hca_chan_idle(const struct hca_chan *ch)
{
	return TAILQ_EMPTY(&ch->sessions);
}

uint32_t
hca_chan_gen(const struct hca_chan *ch)
{
	return __atomic_load_n(&ch->gen, __ATOMIC_ACQUIRE);
}

/* Where the lcore runs, for the clients that may share its CPU
 * (madpmd/chan.h, "Sharing a CPU"): stored when it moves, never read
 * back from shared memory. */
static void
publish_cpu(struct hca_chan *ch)
{
	int cpu = sched_getcpu();
	struct hca_session *s;

	if (cpu < 0 || (uint32_t)cpu + 1 == ch->cpu)
		return;
	ch->cpu = (uint32_t)cpu + 1;
	TAILQ_FOREACH(s, &ch->sessions, next)
		__atomic_store_n(&((struct mpd_chan_shm *)s->shm)->lcore_cpu,
				 ch->cpu, __ATOMIC_RELAXED);
}

bool
hca_chan_spins_on(struct hca_chan *ch, int cpu)
{
	const struct mpd_chan_shm *h;
	struct hca_session *s;
	bool on = false;

	rte_spinlock_lock(ch->cfg.lock);
	TAILQ_FOREACH(s, &ch->sessions, next) {
		uint32_t y;
		bool spins;

		h = s->shm;
		/* a umad thread in its spin, or a verbs thread that yielded
		 * since the last look (madpmd/chan.h, "Sharing a CPU") */
		y = __atomic_load_n(&h->poll_yields, __ATOMIC_RELAXED);
		spins = __atomic_load_n(&h->rx_awake, __ATOMIC_RELAXED) ||
			y != s->yields_seen;
		s->yields_seen = y;
		if (spins &&
		    __atomic_load_n(&h->rx_awake_cpu, __ATOMIC_RELAXED) ==
		    (uint32_t)cpu + 1) {
			on = true;
			break;
		}
	}
	rte_spinlock_unlock(ch->cfg.lock);
	return on;
}

void
hca_chan_send_burst(struct hca_chan *ch, uint64_t now_ns,
		    struct hca_mad_out *out)
{
	struct hca_session *s, *first;
	unsigned int left = BURST_RECORDS;
	bool more = true;

	if (!TAILQ_EMPTY(&ch->sessions))
		publish_cpu(ch);

	/* round robin: each turn starts after the session served first in
	 * the last one, and takes a few records of each, until the room or
	 * the sends run out */
	while (more && out->room && left) {
		more = false;
		first = ch->rr ? ch->rr : TAILQ_FIRST(&ch->sessions);
		s = first;
		while (s && out->room && left) {
			more |= session_sends(ch, s, now_ns, out, &left);
			s = TAILQ_NEXT(s, next) ? TAILQ_NEXT(s, next) :
						  TAILQ_FIRST(&ch->sessions);
			if (s == first)
				break;
		}
		ch->rr = s;
	}
}

/* A doorbell its client counted a ring of, read empty. Nobody else
 * reads it: a read while the lcore sleeps could take the byte of a ring
 * its epoll has yet to look at (the pipe is no longer readable then, the
 * edge is dropped) and the lcore would sleep on with a send queued. The
 * count is the client's to write: a wrong one only costs a read of its
 * own pipe, or leaves its own doorbell full. Port lock held. */
static void
doorbell_read_back(struct hca_session *s)
{
	uint32_t rings = __atomic_load_n(
		&((struct mpd_chan_shm *)s->shm)->doorbell_rings,
		__ATOMIC_ACQUIRE);

	if (rings == s->rings_seen)
		return;
	s->rings_seen = rings;
	chan_doorbell_drain(s);
}

bool
hca_chan_arm(struct hca_chan *ch, bool on)
{
	struct hca_session *s;
	bool pending = false;

	rte_spinlock_lock(ch->cfg.lock);
	ch->armed = on;
	TAILQ_FOREACH(s, &ch->sessions, next)
		__atomic_store_n(&((struct mpd_chan_shm *)s->shm)->doorbell_armed,
				 on, __ATOMIC_RELEASE);
	/* our store before their rings, as a client's send before its look
	 * at doorbell_armed; no session, no ring to look at */
	if (!TAILQ_EMPTY(&ch->sessions))
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* sends already queued (a burst stops at BURST_RECORDS, and sends
	 * to the port itself make no frame to show for them) */
	TAILQ_FOREACH(s, &ch->sessions, next)
		pending |= on && !s->mc.dead && !mpd_ring_empty(&s->tx);
	/* send queues with work due now (a timer the lcore sleeps until:
	 * rte_pmd_hca_wake_at()) */
	pending |= on && ch->cfg.verbs &&
		   hca_verbs_wake_at(ch->cfg.verbs) <= mpd_mono_ns();
	pending |= on && hca_cm_busy(ch->cfg.cm);
	/* awake again: a doorbell rang only if a session holds one; the
	 * ones counted as rung are read back here, by the lcore alone
	 * (madpmd/chan.h, "Doorbell") */
	pending |= !on && !TAILQ_EMPTY(&ch->sessions);
	if (!on)
		TAILQ_FOREACH(s, &ch->sessions, next)
			doorbell_read_back(s);
	rte_spinlock_unlock(ch->cfg.lock);
	return pending;
}

unsigned int
hca_chan_wakes(struct hca_chan *ch, struct hca_session **w)
{
	unsigned int n = ch->nwake;

	memcpy(w, ch->wake, n * sizeof(*w));
	ch->nwake = 0;
	return n;
}

void
hca_chan_wake(struct hca_session **w, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct hca_session *s = w[i];

		s->wake = false;
		/* counted first: a client woken by the write sees the count
		 * move, and reads the fd until it has read as many writes */
		__atomic_add_fetch(&((struct mpd_chan_shm *)s->shm)->rx_kicks, 1,
				   __ATOMIC_RELEASE);
		chan_sock_kick(s->wake_fd);
		session_put(s);
	}
}
