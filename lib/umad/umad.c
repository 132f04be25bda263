/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port sessions of libibumad over madpmd: umad_open_port() connects to
 * the node's daemon and returns the session's eventfd as the port fd;
 * MADs travel in the two shared-memory rings of madpmd/chan.h, agents are
 * registered over the control socket. The semantics are those of
 * libibumad 44 over the kernel's ib_umad (see docs/umad.md for where they
 * differ and why).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "madpmd/clock.h"
#include "madpmd/mad.h"
#include "madpmd/rmpp.h"
#include "madpmd/run_delay.h"
#include "umad_priv.h"

#define OPENIB_OUI	0x001405u
/* a request leaves the duplicate check this long after its last retry
 * would have timed out, even if nobody read its end */
#define UMAD_TID_SLACK_MS	1000u

struct umad_sess {
	int efd;			/* the port fd */
	int sock;
	void *shm;
	size_t shm_size;
	struct mpd_ring_view tx;	/* we produce */
	struct mpd_ring_view rx;	/* we consume */
	pthread_mutex_t tx_lock;
	pthread_mutex_t rx_lock;
	pthread_mutex_t ctl_lock;	/* one request in flight */
	uint32_t seq;
	uint32_t agents;		/* bit n: agent n registered */
	uint32_t rmpp_agents;		/* bit n: ... with rmpp_version 1 */
	unsigned int refs;		/* table's + callers'; under tbl_lock */
	char node[MPD_CHAN_NODE_MAX];
	int port_num;
	uint64_t spin_ns;		/* umad_recv() spins this long first */
	uint64_t spin_off_until;	/* ns: preempted while spinning */
	uint64_t alive_at;		/* ns: the daemon was there */
	bool gone_told;			/* a wait failed with EIO for it */
	/* the session's shares of the port (madpmd/chan.h), under tx_lock */
	uint64_t posted[3];		/* sends of each share we queued */
	uint32_t share[3];		/* how many may be held at once */
	struct umad_tids tids;		/* requests in flight, under tx_lock */
	bool roce;			/* an Ethernet port: sends need a GRH */
	int doorbell;			/* the daemon's, or -1 (madpmd/chan.h) */
	int doorbell_rd;		/* kept: no SIGPIPE */
	uint8_t gids[8][16];		/* RoCE GIDs the daemon resolved */
	unsigned int ngids;		/* under ctl_lock */
	struct mpd_chan_rx_wake wake;	/* the port fd, under rx_lock */
};

/* How long umad_recv() and umad_poll() spin on the ring before sleeping in
 * poll(): an answer from the fabric usually takes a few microseconds, and
 * waking a sleeping thread costs more than that. MADPMD_UMAD_SPIN_US=0
 * turns it off. */
#define UMAD_SPIN_US_DEFAULT	50u
#define UMAD_SPIN_US_MAX	10000u

static uint64_t
spin_ns_from_env(void)
{
	const char *v = getenv("MADPMD_UMAD_SPIN_US");
	unsigned long us = UMAD_SPIN_US_DEFAULT;
	char *end;

	if (v && *v) {
		us = strtoul(v, &end, 10);
		if (*end || us > UMAD_SPIN_US_MAX)
			us = UMAD_SPIN_US_DEFAULT;
	}
	return (uint64_t)us * 1000u;
}

/* fd -> session; the fd numbers are small, so a plain array */
static pthread_mutex_t tbl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct umad_sess **tbl;
static int tbl_len;

static void
sess_free(struct umad_sess *s)
{
	if (s->sock >= 0)
		close(s->sock);
	if (s->doorbell >= 0)
		close(s->doorbell);
	if (s->doorbell_rd >= 0)
		close(s->doorbell_rd);
	if (s->wake.efd_w >= 0)
		close(s->wake.efd_w);
	if (s->shm)
		munmap(s->shm, s->shm_size);
	pthread_mutex_destroy(&s->tx_lock);
	pthread_mutex_destroy(&s->rx_lock);
	pthread_mutex_destroy(&s->ctl_lock);
	free(s);
}

static struct umad_sess *
sess_get(int fd)
{
	struct umad_sess *s = NULL;

	pthread_mutex_lock(&tbl_lock);
	if (fd >= 0 && fd < tbl_len && tbl[fd]) {
		s = tbl[fd];
		s->refs++;
	}
	pthread_mutex_unlock(&tbl_lock);
	return s;
}

static void
sess_put(struct umad_sess *s)
{
	bool last;

	pthread_mutex_lock(&tbl_lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(&tbl_lock);
	if (last)
		sess_free(s);
}

static void
sess_put_cleanup(void *arg)
{
	sess_put(arg);
}

/* Insert s under its fd. A stale entry (the application closed a port
 * fd with close() and the number came back) is dropped. */
static int
sess_insert(struct umad_sess *s)
{
	struct umad_sess *old = NULL;
	bool last = false;

	pthread_mutex_lock(&tbl_lock);
	if (s->efd >= tbl_len) {
		int len = s->efd + 64;
		struct umad_sess **t = realloc(tbl, (size_t)len * sizeof(*t));

		if (!t) {
			pthread_mutex_unlock(&tbl_lock);
			return -ENOMEM;
		}
		memset(t + tbl_len, 0, (size_t)(len - tbl_len) * sizeof(*t));
		tbl = t;
		tbl_len = len;
	}
	old = tbl[s->efd];
	if (old)
		last = --old->refs == 0;
	s->refs = 1;
	tbl[s->efd] = s;
	pthread_mutex_unlock(&tbl_lock);
	if (last)
		sess_free(old);
	return 0;
}

static struct umad_sess *
sess_remove(int fd)
{
	struct umad_sess *s = NULL;

	pthread_mutex_lock(&tbl_lock);
	if (fd >= 0 && fd < tbl_len && tbl[fd]) {
		s = tbl[fd];
		tbl[fd] = NULL;
	}
	pthread_mutex_unlock(&tbl_lock);
	return s;
}

/* ---- shared memory ------------------------------------------------------- */

static int
attach_ring(struct umad_sess *s, uint32_t off, struct mpd_ring_view *v)
{
	uint64_t end = (uint64_t)off + sizeof(struct mpd_chan_ring) +
		       MPD_CHAN_RING_SIZE;
	struct mpd_chan_ring *r;

	if (off < sizeof(struct mpd_chan_shm) || (off & 63) ||
	    end > s->shm_size)
		return -EPROTO;
	r = (struct mpd_chan_ring *)((uint8_t *)s->shm + off);
	if (r->size != MPD_CHAN_RING_SIZE)
		return -EPROTO;
	return mpd_ring_attach(v, r, MPD_CHAN_RING_SIZE) ? -EPROTO : 0;
}

static int
map_shm(struct umad_sess *s, const struct mpd_chan_session *h)
{
	const uint64_t span = sizeof(struct mpd_chan_ring) + MPD_CHAN_RING_SIZE;
	struct mpd_chan_shm hdr;
	struct stat st;
	void *p;

	s->shm_size = h->rep.shm_size;
	if (s->shm_size < sizeof(struct mpd_chan_shm) ||
	    fstat(h->memfd, &st) != 0 || (uint64_t)st.st_size < s->shm_size)
		return -EPROTO;
	p = mmap(NULL, s->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 h->memfd, 0);
	if (p == MAP_FAILED)
		return -errno;
	s->shm = p;
	/* one copy of the header: the daemon can rewrite it under us, and
	 * the offsets checked must be the offsets used */
	memcpy(&hdr, p, sizeof(hdr));
	if (hdr.magic != MPD_CHAN_MAGIC || hdr.version != MPD_CHAN_VERSION)
		return -EPROTO;
	/* the two rings must not overlap */
	if ((uint64_t)hdr.tx_off < (uint64_t)hdr.rx_off + span &&
	    (uint64_t)hdr.rx_off < (uint64_t)hdr.tx_off + span)
		return -EPROTO;
	if (attach_ring(s, hdr.tx_off, &s->tx) ||
	    attach_ring(s, hdr.rx_off, &s->rx))
		return -EPROTO;
	return 0;
}

/* ---- the eventfd: readable exactly when records are queued --------------- */

/* The rules are madpmd/chan.h's "Wake-ups" (lib/chan/wake.c). rx_lock held. */
static bool
rx_settle(struct umad_sess *s)
{
	return mpd_chan_rx_settle(&s->wake, &s->rx);
}

static void
rx_left_queued(struct umad_sess *s)
{
	mpd_chan_rx_left_queued(&s->wake);
}

static bool
sess_dead(struct umad_sess *s)
{
	struct pollfd p = { .fd = s->sock, .events = POLLRDHUP };

	return poll(&p, 1, 0) == 1 &&
	       (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL));
}

/*
 * The daemon went away. The first wait that sees it fails with EIO, as a
 * read of the kernel's umad fd does once its device is removed; later
 * waits last their time-out, as on a port whose link is down: a receiver
 * that loops on every error (OpenSM's umad_receiver) would spin on EIO
 * and fill its log. Sends keep failing with EIO.
 */
static bool
sess_gone_first(struct umad_sess *s)
{
	return !__atomic_exchange_n(&s->gone_told, true, __ATOMIC_RELAXED);
}

/*
 * sess_dead() costs a system call: a send looks at most once a millisecond
 * (a daemon that goes away is noticed by the next umad_recv()/umad_poll()
 * at once, by umad_send() within a millisecond).
 */
static bool
sess_dead_lazy(struct umad_sess *s)
{
	uint64_t now = mpd_mono_ns();

	if (now - __atomic_load_n(&s->alive_at, __ATOMIC_RELAXED) < 1000000u)
		return false;
	if (sess_dead(s))
		return true;
	__atomic_store_n(&s->alive_at, now, __ATOMIC_RELAXED);
	return false;
}

/*
 * poll() the port fd (and the socket, for a daemon that goes away) for up
 * to timeout_ms (< 0: forever). 0 when the eventfd is readable,
 * -ETIMEDOUT, or -EIO (poll failed, EINTR included as in libibumad, or
 * the daemon is gone). errno is set to match.
 */
static UMAD_CANCEL_FRAME int
sess_wait(struct umad_sess *s, int timeout_ms)
{
	struct pollfd p[2] = {
		{ .fd = s->efd, .events = POLLIN },
		{ .fd = s->sock, .events = POLLRDHUP },
	};
	/* gone and told: only the eventfd, which nobody writes now */
	int n = poll(p, __atomic_load_n(&s->gone_told, __ATOMIC_RELAXED) ?
			1 : 2, timeout_ms);

	if (n < 0) {
		UMAD_DBG("poll: %m");
		return -EIO;
	}
	if (p[0].revents & POLLIN)
		return 0;
	if (p[0].revents & (POLLERR | POLLNVAL | POLLHUP)) {
		errno = EIO;
		return -EIO;
	}
	if (p[1].revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)) {
		UMAD_DBG("%s: the daemon is gone", s->node);
		if (sess_gone_first(s)) {
			errno = EIO;
			return -EIO;
		}
		/* another thread was told: wait as it does */
		return sess_wait(s, timeout_ms);
	}
	errno = ETIMEDOUT;
	return -ETIMEDOUT;
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

/*
 * A thread that waits for a CPU while it could run (its run delay, from
 * /proc/thread-self/schedstat; not the time a look took: a virtual CPU
 * has gaps of its own) shares its CPU with a busy process: spinning there
 * may take the CPU from whoever must answer (the daemon's lcore, a peer).
 * For a while after, umad_recv() waits in poll() at once. Only while the
 * lcore's CPU is not known: one known to be another CPU does not wait for
 * ours, and a thread that sleeps there waits for its wake-up and then for
 * the busy process's slice to end (on EEVDF a woken sleeper does not
 * preempt at once): 30k MADs/s with one in flight against 440-500k
 * spinning (docs/benchmarks.md). Looked at once every 10 ms at most;
 * shared when it waited a tenth of that time.
 */
#define SPIN_CHECK_NS		10000000u
#define SPIN_OFF_NS		100000000u	/* no spinning for 100 ms */

static __thread uint64_t spin_checked_ns, spin_run_delay;

static bool
spin_preempted(uint64_t now)
{
	uint64_t d, last = spin_checked_ns, before = spin_run_delay;

	if (now - last < SPIN_CHECK_NS)
		return false;
	d = mpd_run_delay_ns();
	spin_checked_ns = now;
	spin_run_delay = d;
	return last && d - before > (now - last) / 10;
}

/* Spin up to spin_ns for a record; true when one is queued. While it
 * spins the daemon does not write the eventfd (madpmd/chan.h). */
static bool
spin(struct umad_sess *s)
{
	struct mpd_chan_shm *h = s->shm;
	uint64_t now, end;
	unsigned int i, n;
	bool got = false, yield;
	uint32_t lcore;
	int cpu;

	if (!s->spin_ns)
		return false;
	now = mpd_mono_ns();
	cpu = sched_getcpu();
	/* on the lcore's own CPU the answer comes only once we let it run
	 * (madpmd/chan.h, "Sharing a CPU"); while its CPU is not known, a
	 * thread that waits for its own does not spin on what it may not own */
	lcore = __atomic_load_n(&h->lcore_cpu, __ATOMIC_RELAXED);
	yield = cpu >= 0 && (uint32_t)cpu + 1 == lcore;
	if (!lcore || cpu < 0) {
		if (spin_preempted(now))
			__atomic_store_n(&s->spin_off_until,
					 now + SPIN_OFF_NS, __ATOMIC_RELAXED);
		if (now < __atomic_load_n(&s->spin_off_until,
					  __ATOMIC_RELAXED))
			return false;
	}
	if (cpu >= 0)
		__atomic_store_n(&h->rx_awake_cpu, (uint32_t)cpu + 1,
				 __ATOMIC_RELAXED);
	__atomic_add_fetch(&h->rx_awake, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	end = now + s->spin_ns;
	/* a yield takes longer than a look at the clock; pauses do not */
	n = yield ? 1 : 64;
	do {
		for (i = 0; i < n; i++) {
			got = !mpd_ring_empty(&s->rx);
			if (got)
				break;
			if (yield)
				sched_yield();
			else
				cpu_relax();
		}
	} while (!got && mpd_mono_ns() < end);
	__atomic_sub_fetch(&h->rx_awake, 1, __ATOMIC_SEQ_CST);
	/* a record the daemon saw us awake for, and did not wake us */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return got || !mpd_ring_empty(&s->rx);
}

/*
 * Wait until a record is queued: sess_wait() plus the check that the ring
 * really holds one (an eventfd write may land after its record was taken;
 * such a wake-up is cleared and waited through).
 */
static UMAD_CANCEL_FRAME int
sess_wait_rec(struct umad_sess *s, int timeout_ms)
{
	int64_t deadline = timeout_ms > 0 ?
			   (int64_t)mpd_mono_ms() + timeout_ms : 0;
	int left = timeout_ms, rc, old;
	bool empty;

	if (timeout_ms != 0 && spin(s))
		return 0;
	for (;;) {
		rc = sess_wait(s, left);
		if (rc < 0)
			return rc;
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
		pthread_mutex_lock(&s->rx_lock);
		empty = mpd_ring_empty(&s->rx) && rx_settle(s);
		pthread_mutex_unlock(&s->rx_lock);
		pthread_setcancelstate(old, NULL);
		if (!empty)
			return 0;
		if (timeout_ms > 0) {
			int64_t d = deadline - (int64_t)mpd_mono_ms();

			if (d <= 0) {
				errno = ETIMEDOUT;
				return -ETIMEDOUT;
			}
			left = (int)d;
		} else if (timeout_ms == 0) {
			errno = ETIMEDOUT;
			return -ETIMEDOUT;
		}
	}
}

/* ---- public: ports ------------------------------------------------------- */

UMAD_EXPORT int
umad_init(void)
{
	UMAD_DBG("umad_init");
	return 0;
}

UMAD_EXPORT int
umad_done(void)
{
	UMAD_DBG("umad_done");
	return 0;
}

static int
open_lookup(const char *ca_name, struct mpd_chan_node *n)
{
	switch (mpd_chan_node_lookup(ca_name, n)) {
	case MPD_CHAN_NODE_FOUND:
		return 0;
	case MPD_CHAN_NODE_UNKNOWN:
		mpd_chan_once(MPD_CHAN_ONCE_UNKNOWN_NODE,
			  "no node \"%s\" in %s/%s (pick a listed one with madpmd-run --node, MADPMD_NODE or the CA name)",
			  n->name, n->run_dir, MPD_CHAN_NODES);
		return -ENODEV;
	case MPD_CHAN_NODE_NO_FABRIC:
	default:
		if (n->name[0])
			mpd_chan_once(MPD_CHAN_ONCE_NO_FABRIC,
				  "no fabric running: nothing listens at %s/%s/%s (start madpmd, or set MADPMD_RUN_DIR)",
				  n->run_dir, n->name, MPD_CHAN_SOCK);
		else
			mpd_chan_once(MPD_CHAN_ONCE_NO_FABRIC,
				  "no fabric running: no node listed in %s/%s (start madpmd, or set MADPMD_RUN_DIR)",
				  n->run_dir, MPD_CHAN_NODES);
		return -EIO;
	}
}

UMAD_EXPORT int
umad_open_port(const char *ca_name, int portnum)
{
	struct umad_sess *s = NULL;
	struct mpd_chan_session h;
	struct mpd_chan_node n;
	int rc, fl;

	UMAD_DBG("ca %s port %d", ca_name ? ca_name : "(null)", portnum);
	rc = open_lookup(ca_name, &n);
	if (rc < 0)
		return rc;
	if (portnum < 0 || (unsigned int)portnum > n.num_ports)
		return -EINVAL;
	rc = mpd_chan_hello(&n, portnum, &h);
	if (rc < 0)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s) {
		mpd_chan_session_close(&h);
		return -EIO;
	}
	s->sock = h.sock;
	s->efd = h.efd;
	s->doorbell = h.doorbell;
	s->doorbell_rd = h.doorbell_rd;
	s->wake.efd_w = h.efd_w;
	s->seq = h.seq;
	s->port_num = (int)h.rep.port.port_num;
	s->share[MPD_CHAN_SHARE_OUT] = h.rep.share_out;
	s->share[MPD_CHAN_SHARE_XFER] = h.rep.share_xfer;
	s->roce = h.rep.port.link_layer == 1;
	s->spin_ns = spin_ns_from_env();
	snprintf(s->node, sizeof(s->node), "%s", n.name);
	pthread_mutex_init(&s->tx_lock, NULL);
	pthread_mutex_init(&s->rx_lock, NULL);
	pthread_mutex_init(&s->ctl_lock, NULL);
	rc = map_shm(s, &h);
	close(h.memfd);
	s->wake.efd = s->efd;
	s->wake.shm = s->shm;
	if (rc < 0) {
		mpd_chan_once(MPD_CHAN_ONCE_PROTOCOL,
			  "the daemon of node %s sent shared memory this library cannot use (%s)",
			  n.name, strerror(-rc));
		goto fail;
	}
	/* ours to clear without blocking (the daemon makes it so anyway) */
	fl = fcntl(s->efd, F_GETFL);
	if (fl < 0 || fcntl(s->efd, F_SETFL, fl | O_NONBLOCK) < 0)
		goto fail;
	if (sess_insert(s) < 0)
		goto fail;
	UMAD_DBG("opened %s port %d fd %d", n.name, s->port_num, s->efd);
	return s->efd;
fail:
	close(s->efd);
	sess_free(s);
	return -EIO;
}

UMAD_EXPORT int
umad_close_port(int portid)
{
	struct umad_sess *s = sess_remove(portid);

	UMAD_DBG("closing fd %d", portid);
	if (s) {
		/* the socket goes with the last reference; the daemon then
		 * frees the session's agents */
		shutdown(s->sock, SHUT_RDWR);
		sess_put(s);
	}
	close(portid);
	return 0;
}

UMAD_EXPORT int
umad_get_fd(int portid)
{
	UMAD_DBG("fd %d", portid);
	return portid;
}

/* ---- public: send and receive -------------------------------------------- */

static int
send_fail(int err)
{
	errno = err;
	return -EIO;
}

/* Queue a send that takes the given share: -ENOBUFS when the session
 * holds all of that share already (what the daemon has taken and no
 * longer holds for is published in the shared memory). tx_lock held. */
static int
ring_put_share(struct umad_sess *s, enum mpd_chan_share share,
	       const struct ib_user_mad *hdr, const void *data, int length)
{
	struct mpd_chan_shm *h = s->shm;
	uint64_t key = 0, now = 0;
	int rc;

	/* a request that waits for its response: refused while another
	 * with its TID waits (ib_umad_write()'s is_duplicate()) */
	if (share == MPD_CHAN_SHARE_OUT) {
		key = umad_tid_key(data, hdr->agent_id);
		now = (int64_t)mpd_mono_ms();
		if (umad_tids_busy(&s->tids, key, now))
			return -EEXIST;
	}
	if (share != MPD_CHAN_SHARE_NONE &&
	    s->posted[share] - __atomic_load_n(&h->share_done[share],
					       __ATOMIC_ACQUIRE) >=
	    s->share[share])
		return -ENOBUFS;
	rc = mpd_ring_put(&s->tx, MPD_CHAN_REC_UMAD, hdr, UMAD_HDR_SIZE, data,
			  (uint32_t)length);
	if (rc)
		return rc;
	s->posted[share]++;
	if (key)
		umad_tids_add(&s->tids, key, now + (uint64_t)hdr->timeout_ms *
				 (hdr->retries + 1u) + UMAD_TID_SLACK_MS);
	/* the record is published; a daemon that went to sleep before it
	 * could see it waits for the doorbell (madpmd/chan.h) */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (s->doorbell >= 0 &&
	    __atomic_load_n(&h->doorbell_armed, __ATOMIC_ACQUIRE)) {
		__atomic_add_fetch(&h->doorbell_rings, 1, __ATOMIC_RELEASE);
		mpd_chan_kick(s->doorbell);
	}
	return 0;
}

static int
ring_send(struct umad_sess *s, enum mpd_chan_share share,
	  const struct ib_user_mad *hdr, const void *data, int length)
{
	int64_t deadline = 0;
	struct timespec nap = { 0, 20000 };
	int rc, old;

	for (;;) {
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
		pthread_mutex_lock(&s->tx_lock);
		rc = ring_put_share(s, share, hdr, data, length);
		pthread_mutex_unlock(&s->tx_lock);
		pthread_setcancelstate(old, NULL);
		if (rc != -ENOSPC)
			return rc;
		/* full: the daemon's lcore drains it; wait a little */
		if (!deadline)
			deadline = (int64_t)mpd_mono_ms() + UMAD_SEND_WAIT_MS;
		else if ((int64_t)mpd_mono_ms() >= deadline)
			return -ENOMEM;
		if (sess_dead(s))
			return -EPIPE;
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 1000000)
			nap.tv_nsec *= 2;
	}
}

/*
 * A RoCE send needs a GRH whose destination GID the fabric has (the
 * kernel's ib_resolve_eth_dmac()): 0, EINVAL or EHOSTUNREACH. The daemon
 * answers from its address table once per GID; the last few are kept.
 */
static int
sess_resolve(struct umad_sess *s, const struct ib_user_mad *mad)
{
	struct mpd_chan_msg m;
	unsigned int i;
	int rc, old;

	if (!s->roce)
		return 0;
	if (!mad->addr.grh_present)
		return EINVAL;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&s->ctl_lock);
	for (i = 0; i < s->ngids && i < 8; i++)
		if (!memcmp(s->gids[i], mad->addr.gid, 16))
			break;
	rc = 0;
	if (i == s->ngids || i == 8) {
		memset(&m, 0, sizeof(m));
		m.type = MPD_CHAN_RESOLVE;
		m.len = sizeof(m.u.resolve_req);
		memcpy(m.u.resolve_req.gid, mad->addr.gid, 16);
		rc = mpd_chan_call(s->sock, &s->seq, &m, NULL, 0, NULL);
		rc = rc < 0 ? EIO : m.status;
		if (!rc)
			memcpy(s->gids[s->ngids++ % 8], mad->addr.gid, 16);
	}
	pthread_mutex_unlock(&s->ctl_lock);
	pthread_setcancelstate(old, NULL);
	return rc;
}

/* umad_send() on a session: 0 or the errno of the -EIO. */
static int
sess_send(struct umad_sess *s, struct ib_user_mad *mad, int agentid,
	  int length)
{
	struct ib_user_mad hdr;
	uint32_t agents;
	bool rmpp;
	int rc;

	/* what the kernel's write() checks before it takes the MAD */
	if (length < UMAD_RMPP_HDR || agentid < 0 ||
	    agentid >= MPD_CHAN_MAX_AGENTS)
		return EINVAL;
	if (length > UMAD_MAX_DATA)
		return EMSGSIZE;
	agents = __atomic_load_n(&s->agents, __ATOMIC_ACQUIRE);
	if (!(agents & (1u << agentid)) || sess_dead_lazy(s))
		return EIO;
	/* ib_umad_write(): an active RMPP header needs an agent registered
	 * for RMPP, and without RMPP a send is one MAD */
	rmpp = __atomic_load_n(&s->rmpp_agents, __ATOMIC_RELAXED) &
	       (1u << agentid);
	if (mpd_class_has_rmpp(mpd_mad_class(mad->data)) &&
	    (mad->data[MPD_RMPP_OFF_FLAGS] & MPD_RMPP_FLAG_ACTIVE)) {
		if (!rmpp)
			return EINVAL;
	} else if (length > UMAD_SEG_SIZE) {
		return EINVAL;
	}
	rc = sess_resolve(s, mad);
	if (rc)
		return rc;
	memcpy(&hdr, mad, sizeof(hdr));
	hdr.status = 0;
	hdr.length = (uint32_t)(UMAD_HDR_SIZE + length);
	rc = ring_send(s, mpd_chan_send_share(mad->data, (uint32_t)length,
					      rmpp, hdr.timeout_ms),
		       &hdr, mad->data, length);
	switch (rc) {
	case 0:
		return 0;
	case -EEXIST:
		UMAD_DBG("%s: a request with TID 0x%" PRIx64 " is in flight",
			 s->node, mpd_mad_tid(mad->data));
		return EINVAL;
	case -ENOBUFS:
		UMAD_DBG("%s: the session's share of the port is in use",
			 s->node);
		return ENOMEM;
	case -ENOMEM:
		UMAD_DBG("%s: send ring full for %d ms", s->node,
			 UMAD_SEND_WAIT_MS);
		return ENOMEM;
	case -EMSGSIZE:
		return EMSGSIZE;
	case -EBADMSG:
		UMAD_DBG("%s: send ring corrupt (the daemon's tail)", s->node);
		return EIO;
	default:
		return EIO;
	}
}

UMAD_EXPORT int
umad_send(int portid, int agentid, void *umad, int length, int timeout_ms,
	  int retries)
{
	struct ib_user_mad *mad = umad;
	struct umad_sess *s;
	int rc;

	errno = 0;
	UMAD_DBG("fd %d agentid %d umad %p timeout %u", portid, agentid, umad,
		 (unsigned int)timeout_ms);
	if (!mad)
		return send_fail(EFAULT);
	mad->timeout_ms = (uint32_t)timeout_ms;
	mad->retries = (uint32_t)retries;
	mad->agent_id = (uint32_t)agentid;
	if (mpd_chan_debug > 1)
		umad_dump(mad);
	s = sess_get(portid);
	if (!s)
		return send_fail(EBADF);
	pthread_cleanup_push(sess_put_cleanup, s);
	rc = sess_send(s, mad, agentid, length);
	pthread_cleanup_pop(1);
	if (!rc)
		return 0;
	UMAD_DBG("send failed: %s", strerror(rc));
	return send_fail(rc);
}

/*
 * Whether a record in the receive ring is a message to hand out: the
 * daemon writes the ring, so kind, length and agent id are checked, on a
 * private copy of the header (the ring can change under us). Anything
 * else is skipped, as the kernel never queues it.
 */
static bool
rx_usable(struct umad_sess *s, const uint8_t *rec, uint32_t len,
	  uint32_t kind, struct ib_user_mad *hdr)
{
	if (kind != MPD_CHAN_REC_UMAD || len < (uint32_t)UMAD_HDR_SIZE ||
	    len > MPD_CHAN_MAX_MSG) {
		UMAD_DBG("%s: skipping a record of kind %u, %u bytes", s->node,
			 kind, len);
		return false;
	}
	memcpy(hdr, rec, UMAD_HDR_SIZE);
	/* the return value of umad_recv(): never negative, never past the
	 * agents a port can have */
	if (hdr->agent_id >= MPD_CHAN_MAX_AGENTS) {
		UMAD_DBG("%s: skipping a record for agent %u", s->node,
			 hdr->agent_id);
		return false;
	}
	return true;
}

static void
sess_tid_done(struct umad_sess *s, uint64_t key)
{
	pthread_mutex_lock(&s->tx_lock);
	umad_tids_del(&s->tids, key);
	pthread_mutex_unlock(&s->tx_lock);
}

/*
 * Take the next record for a caller with room for *length data bytes;
 * the kernel's ib_umad_read()/copy_recv_mad() rules. rx_lock held.
 */
static int
rx_take(struct umad_sess *s, struct ib_user_mad *mad, int *length)
{
	struct ib_user_mad hdr;
	const uint8_t *rec;
	uint32_t len, kind, mlen;
	int rc, room = *length;

	/* ib_umad_read() refuses a count under the 64-byte header before it
	 * looks at the queue or at a dead device */
	if (room < 0)
		return -EINVAL;
	for (;;) {
		rc = mpd_ring_peek(&s->rx, &rec, &len, &kind);
		if (rc < 0) {
			UMAD_DBG("%s: receive ring corrupt", s->node);
			return -EIO;
		}
		if (rc == 0) {
			if (!rx_settle(s))
				continue;
			return sess_dead(s) && sess_gone_first(s) ?
			       -EIO : -EWOULDBLOCK;
		}
		if (rx_usable(s, rec, len, kind, &hdr))
			break;
		mpd_ring_consume(&s->rx);
	}
	mlen = len - UMAD_HDR_SIZE;
	/* room for the whole MAD, or for the first segment of a longer one */
	if ((mlen <= UMAD_SEG_SIZE && (uint32_t)room < mlen) ||
	    (mlen > UMAD_SEG_SIZE && room < UMAD_SEG_SIZE))
		return -EINVAL;
	hdr.length = UMAD_HDR_SIZE + mlen;
	memcpy(mad, &hdr, UMAD_HDR_SIZE);
	if ((uint32_t)room < mlen) {
		/* the first segment (it carries the RMPP payload length);
		 * the message stays queued for a bigger buffer */
		memcpy(mad->data, rec + UMAD_HDR_SIZE, UMAD_SEG_SIZE);
		*length = (int)mlen;
		return -ENOSPC;
	}
	memcpy(mad->data, rec + UMAD_HDR_SIZE, mlen);
	mpd_ring_consume(&s->rx);
	if (mpd_ring_empty(&s->rx))
		rx_settle(s);
	else
		rx_left_queued(s);
	/* a response, or a send handed back, ends the request it names */
	if (mlen >= MPD_MAD_HDR_LEN &&
	    (hdr.status || mpd_mad_is_response(mad->data)))
		sess_tid_done(s, umad_tid_key(mad->data, hdr.agent_id));
	*length = (int)mlen;
	return (int)hdr.agent_id;
}

UMAD_EXPORT int
umad_recv(int portid, void *umad, int *length, int timeout_ms)
{
	struct umad_sess *s;
	int rc = 0, err = 0, old;

	errno = 0;
	UMAD_DBG("fd %d umad %p timeout %u", portid, umad,
		 (unsigned int)timeout_ms);
	if (!umad || !length) {
		errno = EINVAL;
		return -EINVAL;
	}
	s = sess_get(portid);
	if (!s) {
		errno = EINVAL;
		return -EINVAL;
	}
	pthread_cleanup_push(sess_put_cleanup, s);
	for (;;) {
		if (timeout_ms) {
			rc = sess_wait_rec(s, timeout_ms);
			if (rc < 0) {
				/* errno as poll() left it, or the cause */
				err = errno ? errno : -rc;
				break;
			}
		}
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
		pthread_mutex_lock(&s->rx_lock);
		rc = rx_take(s, umad, length);
		pthread_mutex_unlock(&s->rx_lock);
		pthread_setcancelstate(old, NULL);
		err = rc < 0 ? -rc : 0;
		/* another thread took what the wait saw: wait again, as a
		 * single reader of the kernel's fd would never see this */
		if (rc != -EWOULDBLOCK || !timeout_ms)
			break;
	}
	pthread_cleanup_pop(1);
	if (rc >= 0) {
		UMAD_DBG("mad received by agent %d length %d", rc, *length);
		errno = 0;
		return rc;
	}
	errno = err;
	return rc;
}

UMAD_EXPORT int
umad_poll(int portid, int timeout_ms)
{
	struct umad_sess *s;
	int rc;

	UMAD_DBG("fd %d timeout %u", portid, (unsigned int)timeout_ms);
	s = sess_get(portid);
	if (!s) {
		errno = EINVAL;
		return -EINVAL;
	}
	pthread_cleanup_push(sess_put_cleanup, s);
	rc = sess_wait_rec(s, timeout_ms);
	pthread_cleanup_pop(1);
	return rc;
}

/* ---- public: agents ------------------------------------------------------ */

static int
ctl_register(struct umad_sess *s, const struct mpd_chan_register_req *req,
	     uint32_t *agent_id)
{
	struct mpd_chan_msg m;
	int rc, old;

	memset(&m, 0, sizeof(m));
	m.type = MPD_CHAN_REGISTER;
	m.len = sizeof(m.u.reg_req);
	m.u.reg_req = *req;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&s->ctl_lock);
	rc = mpd_chan_call(s->sock, &s->seq, &m, NULL, 0, NULL);
	if (!rc && !m.status && (m.len < sizeof(m.u.reg_rep) ||
				 m.u.reg_rep.agent_id >= MPD_CHAN_MAX_AGENTS))
		rc = -EPROTO;
	if (!rc && !m.status) {
		*agent_id = m.u.reg_rep.agent_id;
		if (req->rmpp_version)
			__atomic_fetch_or(&s->rmpp_agents, 1u << *agent_id,
					  __ATOMIC_RELAXED);
		else
			__atomic_fetch_and(&s->rmpp_agents,
					   ~(1u << *agent_id),
					   __ATOMIC_RELAXED);
		__atomic_fetch_or(&s->agents, 1u << *agent_id,
				  __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&s->ctl_lock);
	pthread_setcancelstate(old, NULL);
	if (rc < 0) {
		UMAD_DBG("%s: REGISTER: %s", s->node, strerror(-rc));
		return EIO;
	}
	return m.status > 0 ? m.status : (m.status ? EIO : 0);
}

static uint8_t
class_qpn(int mgmt_class)
{
	return mgmt_class == 0x01 || mgmt_class == 0x81 ? 0 : 1;
}

/* umad_register() and umad_register_oui(): the agent id, or -EPERM with
 * errno holding the cause. */
static int
register_v1(int portid, const struct mpd_chan_register_req *req)
{
	struct umad_sess *s = sess_get(portid);
	uint32_t id = 0;
	int rc;

	if (!s) {
		errno = EBADF;
		return -EPERM;
	}
	rc = ctl_register(s, req, &id);
	sess_put(s);
	if (rc) {
		UMAD_DBG("fd %d registering qp %d class 0x%x version %d failed: %s",
			 portid, req->qpn, req->mgmt_class, req->class_version,
			 strerror(rc));
		errno = rc;
		return -EPERM;
	}
	UMAD_DBG("fd %d registered to use agent %u qp %d", portid, id,
		 req->qpn);
	return (int)id;
}

static void
copy_mask(uint64_t dst[2], const long *method_mask)
{
	if (method_mask)
		memcpy(dst, method_mask, 16);
	else
		memset(dst, 0, 16);
}

UMAD_EXPORT int
umad_register(int portid, int mgmt_class, int mgmt_version,
	      uint8_t rmpp_version, long method_mask[16 / sizeof(long)])
{
	struct mpd_chan_register_req req;

	UMAD_DBG("fd %d mgmt_class %u mgmt_version %u rmpp_version %d method_mask %p",
		 portid, (unsigned int)mgmt_class, (unsigned int)mgmt_version,
		 rmpp_version, (void *)method_mask);
	memset(&req, 0, sizeof(req));
	req.mgmt_class = (uint8_t)mgmt_class;
	req.class_version = (uint8_t)mgmt_version;
	req.rmpp_version = rmpp_version;
	req.qpn = class_qpn(mgmt_class);
	copy_mask(req.method_mask, method_mask);
	req.oui = OPENIB_OUI;
	return register_v1(portid, &req);
}

UMAD_EXPORT int
umad_register_oui(int portid, int mgmt_class, uint8_t rmpp_version,
		  uint8_t oui[3], long method_mask[16 / sizeof(long)])
{
	struct mpd_chan_register_req req;

	UMAD_DBG("fd %d mgmt_class %u rmpp_version %d", portid,
		 (unsigned int)mgmt_class, rmpp_version);
	if (mgmt_class < 0x30 || mgmt_class > 0x4f) {
		UMAD_DBG("mgmt class %d not in vendor range 2", mgmt_class);
		return -EINVAL;
	}
	memset(&req, 0, sizeof(req));
	req.mgmt_class = (uint8_t)mgmt_class;
	req.class_version = 1;
	req.rmpp_version = rmpp_version;
	req.qpn = 1;
	copy_mask(req.method_mask, method_mask);
	if (oui)
		req.oui = (uint32_t)oui[0] << 16 | (uint32_t)oui[1] << 8 | oui[2];
	return register_v1(portid, &req);
}

UMAD_EXPORT int
umad_register2(int port_fd, struct umad_reg_attr *attr, uint32_t *agent_id)
{
	struct mpd_chan_register_req req;
	struct umad_sess *s;
	uint32_t id = 0;
	int rc;

	if (!attr || !agent_id)
		return EINVAL;
	UMAD_DBG("fd %d mgmt_class %u mgmt_class_version %u flags 0x%08x oui 0x%06x rmpp_version %u",
		 port_fd, attr->mgmt_class, attr->mgmt_class_version,
		 attr->flags, attr->oui, attr->rmpp_version);
	if (attr->mgmt_class >= 0x30 && attr->mgmt_class <= 0x4f &&
	    ((attr->oui & 0x00ffffff) == 0 || (attr->oui & 0xff000000) != 0)) {
		UMAD_DBG("mgmt class %d is in vendor range 2 but oui (0x%08x) is invalid",
			 attr->mgmt_class, attr->oui);
		return EINVAL;
	}
	s = sess_get(port_fd);
	if (!s)
		return EBADF;
	/* the kernel names the flags it supports when given others */
	if (attr->flags & ~(uint32_t)UMAD_USER_RMPP) {
		attr->flags = UMAD_USER_RMPP;
		sess_put(s);
		return EINVAL;
	}
	memset(&req, 0, sizeof(req));
	req.mgmt_class = attr->mgmt_class;
	req.class_version = attr->mgmt_class_version;
	req.rmpp_version = attr->rmpp_version;
	req.qpn = class_qpn(attr->mgmt_class);
	req.flags = attr->flags;
	memcpy(req.method_mask, attr->method_mask, sizeof(req.method_mask));
	req.oui = attr->oui;
	rc = ctl_register(s, &req, &id);
	sess_put(s);
	if (rc) {
		UMAD_DBG("fd %d registering class 0x%x failed: %s", port_fd,
			 attr->mgmt_class, strerror(rc));
		return rc;
	}
	*agent_id = id;
	return 0;
}

UMAD_EXPORT int
umad_unregister(int portid, int agentid)
{
	struct mpd_chan_msg m;
	struct umad_sess *s;
	int rc, old;

	UMAD_DBG("fd %d unregistering agent %d", portid, agentid);
	s = sess_get(portid);
	if (!s) {
		errno = EBADF;
		return -1;
	}
	if (agentid < 0 || agentid >= MPD_CHAN_MAX_AGENTS) {
		sess_put(s);
		errno = EINVAL;
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_CHAN_UNREGISTER;
	m.len = sizeof(m.u.unreg_req);
	m.u.unreg_req.agent_id = (uint32_t)agentid;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&s->ctl_lock);
	rc = mpd_chan_call(s->sock, &s->seq, &m, NULL, 0, NULL);
	if (!rc && !m.status)
		__atomic_fetch_and(&s->agents, ~(1u << agentid),
				   __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->ctl_lock);
	pthread_setcancelstate(old, NULL);
	sess_put(s);
	if (rc < 0) {
		errno = EIO;
		return -1;
	}
	if (m.status) {
		errno = m.status > 0 ? m.status : EIO;
		return -1;
	}
	return 0;
}
