/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client side of the control channel (madpmd/chan.h), shared by
 * lib/umad, lib/verbs and lib/rdmacm: finding the node, connecting to
 * its socket, HELLO with the memfd and eventfd, and request/reply on the
 * socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "chan_client.h"
#include "madpmd/run_dir.h"

int mpd_chan_debug;

static atomic_bool once_done[MPD_CHAN_ONCE_MAX];

void
mpd_chan_warn(const char *fn, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ibwarn: [%d] %s: %s\n", (int)getpid(), fn, buf);
}

void
mpd_chan_once(enum mpd_chan_once kind, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (atomic_exchange(&once_done[kind], true))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "madpmd: %s\n", buf);
}

void
mpd_chan_no_sm_hint(const char *ca_name, const struct mpd_chan_port_info *pi)
{
	static const char *const states[] = {
		"Down", "Down", "Initializing", "Armed",
	};

	if (pi->link_layer || pi->state >= 4 || pi->phys_state != 5 ||
	    pi->sm_lid || !strcmp(program_invocation_short_name, "opensm"))
		return;
	mpd_chan_once(MPD_CHAN_ONCE_NO_SM,
		      "no SM: %s port %u is %s with LID 0: no subnet manager has brought the fabric up (run madpmd-run opensm)",
		      ca_name, (unsigned int)pi->port_num, states[pi->state]);
}

/* A node name is one path component, nothing else. */
static bool
valid_name(const char *s)
{
	size_t len = strlen(s);

	if (!len || len >= MPD_CHAN_NODE_MAX || s[0] == '.' || strchr(s, '/'))
		return false;
	return true;
}

/* "<node> <node_guid> <num_ports>"; false for anything else. */
static bool
parse_node_line(char *line, struct mpd_chan_node *n)
{
	char *save = NULL, *name, *guid, *ports, *end;
	unsigned long long g;
	unsigned long p;

	name = strtok_r(line, " \t\r\n", &save);
	guid = strtok_r(NULL, " \t\r\n", &save);
	ports = strtok_r(NULL, " \t\r\n", &save);
	if (!name || !guid || !ports || !valid_name(name))
		return false;
	errno = 0;
	g = strtoull(guid, &end, 0);
	if (errno || *end)
		return false;
	p = strtoul(ports, &end, 0);
	if (errno || *end || p > 255)
		return false;
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->node_guid = g;
	n->num_ports = p ? (unsigned int)p : 1;
	n->sw = p == 0;
	return true;
}

enum mpd_chan_lookup
mpd_chan_node_lookup(const char *ca_name, struct mpd_chan_node *n)
{
	enum mpd_chan_lookup res = MPD_CHAN_NODE_NO_FABRIC;
	const char *want = ca_name, *dev = getenv("MADPMD_DEVICE");
	char path[MPD_CHAN_PATH_MAX + 16], line[512];
	struct mpd_chan_node cand;
	char dir[sizeof(n->run_dir)];
	bool own;
	FILE *f;

	memset(n, 0, sizeof(*n));
	snprintf(n->run_dir, sizeof(n->run_dir), "%s",
		 mpd_run_dir_find(dir, sizeof(dir)));
	if (dev && !valid_name(dev))
		dev = NULL;
	/* the process's CA by the name it has here */
	if (want && dev && !strcmp(want, dev))
		want = NULL;
	own = !want || !*want;
	if (own) {
		want = getenv("MADPMD_NODE");
		if (want && !*want)
			want = NULL;
	}
	if (want)
		snprintf(n->name, sizeof(n->name), "%s", want);
	if (want && !valid_name(want)) {
		/* cannot be a node of any fabric; say "unknown" if one runs */
		snprintf(path, sizeof(path), "%s/%s", n->run_dir, MPD_CHAN_NODES);
		return access(path, F_OK) == 0 ? MPD_CHAN_NODE_UNKNOWN :
						 MPD_CHAN_NODE_NO_FABRIC;
	}
	snprintf(path, sizeof(path), "%s/%s", n->run_dir, MPD_CHAN_NODES);
	f = fopen(path, "re");
	if (!f)
		return MPD_CHAN_NODE_NO_FABRIC;
	while (fgets(line, sizeof(line), f)) {
		memset(&cand, 0, sizeof(cand));
		if (!parse_node_line(line, &cand))
			continue;
		res = MPD_CHAN_NODE_UNKNOWN;
		if (want && strcmp(cand.name, want))
			continue;
		memcpy(n->name, cand.name, sizeof(n->name));
		snprintf(n->dev, sizeof(n->dev), "%s",
			 own && dev ? dev : cand.name);
		n->node_guid = cand.node_guid;
		n->num_ports = cand.num_ports;
		n->sw = cand.sw;
		res = MPD_CHAN_NODE_FOUND;
		break;
	}
	fclose(f);
	return res;
}

static void
close_fds(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

int
mpd_chan_call(int sock, uint32_t *seq, struct mpd_chan_msg *m, int *fds,
	       int max_fds, int *nfds)
{
	union {
		char buf[CMSG_SPACE(MPD_CHAN_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct mpd_chan_msg rep;
	struct iovec iov;
	struct msghdr mh;
	struct cmsghdr *c;
	int got[MPD_CHAN_MAX_FDS], ngot, i;
	ssize_t n;

	if (nfds)
		*nfds = 0;
	m->seq = ++*seq;
	m->status = 0;
	do
		n = send(sock, m, sizeof(*m), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*m))
		return n < 0 ? -errno : -EPROTO;
	for (;;) {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = &rep;
		iov.iov_len = sizeof(rep);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = sizeof(cbuf.buf);
		do
			n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (n == 0)
			return -EPIPE;
		ngot = 0;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			size_t k;

			if (c->cmsg_level != SOL_SOCKET ||
			    c->cmsg_type != SCM_RIGHTS)
				continue;
			k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (i = 0; i < (int)k; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int),
				       sizeof(int));
				if (ngot < MPD_CHAN_MAX_FDS)
					got[ngot++] = fd;
				else
					close(fd);
			}
		}
		/* a reply to an earlier request that timed out: skip it */
		if (n == (ssize_t)sizeof(rep) && rep.seq != m->seq) {
			close_fds(got, ngot);
			continue;
		}
		if (n != (ssize_t)sizeof(rep) || rep.type != m->type ||
		    (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
		    ngot > max_fds || rep.len > sizeof(rep.u)) {
			close_fds(got, ngot);
			return -EPROTO;
		}
		break;
	}
	*m = rep;
	for (i = 0; i < ngot; i++)
		fds[i] = got[i];
	if (nfds)
		*nfds = ngot;
	else
		close_fds(got, ngot);
	return 0;
}

static int
chan_connect(const struct mpd_chan_node *n, int port_num, char *sock_path,
	     size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = MPD_CHAN_CTL_TIMEOUT_S };
	char file[32];
	int fd, rc, err;

	/* each port has its socket; port 0 is the node's first */
	mpd_chan_port_file(file, sizeof(file), MPD_CHAN_SOCK,
			   port_num > 0 ? (unsigned int)port_num : 1);
	snprintf(sock_path, len, "%s/%s/%s", n->run_dir, n->name, file);
	if (strlen(sock_path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	do
		rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	while (rc < 0 && errno == EINTR);
	if (rc < 0 && errno != EISCONN) {
		err = errno;
		close(fd);
		return -err;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

int
mpd_chan_map_rx(int memfd, uint32_t shm_size, void **shm,
		struct mpd_ring_view *rx)
{
	const uint64_t span = sizeof(struct mpd_chan_ring) + MPD_CHAN_RING_SIZE;
	struct mpd_chan_shm hdr;
	struct mpd_chan_ring *r;
	struct stat st;
	void *p;

	*shm = NULL;
	if (shm_size < sizeof(hdr) || fstat(memfd, &st) != 0 ||
	    (uint64_t)st.st_size < shm_size)
		return -EPROTO;
	p = mmap(NULL, shm_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (p == MAP_FAILED)
		return -errno;
	memcpy(&hdr, p, sizeof(hdr));
	r = (struct mpd_chan_ring *)((uint8_t *)p + hdr.rx_off);
	if (hdr.magic != MPD_CHAN_MAGIC || hdr.version != MPD_CHAN_VERSION ||
	    hdr.rx_off < sizeof(hdr) || (hdr.rx_off & 63) ||
	    (uint64_t)hdr.rx_off + span > shm_size ||
	    r->size != MPD_CHAN_RING_SIZE ||
	    mpd_ring_attach(rx, r, MPD_CHAN_RING_SIZE)) {
		munmap(p, shm_size);
		return -EPROTO;
	}
	*shm = p;
	return 0;
}

void
mpd_chan_session_close(struct mpd_chan_session *h)
{
	if (h->sock >= 0)
		close(h->sock);
	if (h->memfd >= 0)
		close(h->memfd);
	if (h->efd >= 0)
		close(h->efd);
	if (h->efd_w >= 0)
		close(h->efd_w);
	if (h->doorbell >= 0)
		close(h->doorbell);
	if (h->doorbell_rd >= 0)
		close(h->doorbell_rd);
	h->sock = h->memfd = h->efd = h->efd_w = -1;
	h->doorbell = h->doorbell_rd = -1;
}

/* HELLO's fds (madpmd/chan.h): the memfd, the wake-up socketpair, the
 * doorbell pipe. */
static int
take_fds(struct mpd_chan_session *h, int *fds, int nfds)
{
	struct stat st;
	int i;

	for (i = 0; i < nfds; i++) {
		bool ok;

		if (fstat(fds[i], &st) != 0)
			return -EPROTO;
		ok = i == 0 ? S_ISREG(st.st_mode) :
		     i < 3 ? S_ISSOCK(st.st_mode) : S_ISFIFO(st.st_mode);
		if (!ok)
			return -EPROTO;
	}
	h->memfd = fds[0];
	h->efd = fds[1];
	h->efd_w = fds[2];
	if (nfds == 5) {
		h->doorbell = fds[3];
		h->doorbell_rd = fds[4];
	}
	return 0;
}

int
mpd_chan_hello(const struct mpd_chan_node *n, int port_num, struct mpd_chan_session *h)
{
	char path[MPD_CHAN_PATH_MAX + 2 * MPD_CHAN_NODE_MAX];
	struct mpd_chan_msg m;
	int fds[5], nfds, rc;

	memset(h, 0, sizeof(*h));
	h->sock = h->memfd = h->efd = h->efd_w = -1;
	h->doorbell = h->doorbell_rd = -1;
	rc = chan_connect(n, port_num, path, sizeof(path));
	/* no socket for a port past the first: a port nobody serves, as
	 * hello refuses one (the node's first port says if a fabric runs) */
	if (port_num > 1 && (rc == -ENOENT || rc == -ECONNREFUSED)) {
		MPD_CHAN_DBG("%s: nothing serves port %d at %s", n->name,
			     port_num, path);
		return -EINVAL;
	}
	if (rc == -EACCES || rc == -EPERM) {
		mpd_chan_once(MPD_CHAN_ONCE_NO_FABRIC,
			  "cannot connect to %s: %s (run as the daemon's user, or restart madpmd with --umad-mode 0666, or 0660 and join the socket's group)",
			  path, strerror(-rc));
		return -EIO;
	}
	if (rc == -ENAMETOOLONG) {
		mpd_chan_once(MPD_CHAN_ONCE_NO_FABRIC,
			  "the socket path %s is too long for a UNIX socket (set MADPMD_RUN_DIR to a shorter directory)",
			  path);
		return -EIO;
	}
	if (rc < 0) {
		mpd_chan_once(MPD_CHAN_ONCE_NO_FABRIC,
			  "no fabric running: nothing listens at %s (start madpmd, or set MADPMD_RUN_DIR)",
			  path);
		return -EIO;
	}
	h->sock = rc;
	memset(&m, 0, sizeof(m));
	m.type = MPD_CHAN_HELLO;
	m.len = sizeof(m.u.hello_req);
	m.u.hello_req.version = MPD_CHAN_VERSION;
	m.u.hello_req.port_num = (uint32_t)port_num;
	m.u.hello_req.pid = (uint32_t)getpid();
	rc = mpd_chan_call(h->sock, &h->seq, &m, fds, 5, &nfds);
	if (rc < 0) {
		mpd_chan_once(MPD_CHAN_ONCE_PROTOCOL,
			  "the daemon at %s did not answer HELLO (%s); is it a madpmd of this version?",
			  path, strerror(-rc));
		goto fail;
	}
	if (m.status) {
		close_fds(fds, nfds);
		if (m.status == EINVAL) {
			MPD_CHAN_DBG("%s: port %d refused", n->name, port_num);
			mpd_chan_session_close(h);
			return -EINVAL;
		}
		mpd_chan_once(MPD_CHAN_ONCE_PROTOCOL, "the daemon at %s refused HELLO: %s",
			  path, strerror(m.status));
		/* a share of the port taken (the process's sessions, the
		 * user's, the port's, memory): said as itself */
		if (m.status == EMFILE || m.status == EUSERS ||
		    m.status == ENOMEM) {
			mpd_chan_session_close(h);
			return -(int)m.status;
		}
		goto fail;
	}
	if ((nfds != 3 && nfds != 5) || m.len < sizeof(m.u.hello_rep) ||
	    m.u.hello_rep.version != MPD_CHAN_VERSION) {
		close_fds(fds, nfds);
		mpd_chan_once(MPD_CHAN_ONCE_PROTOCOL,
			  "the daemon at %s answered HELLO with channel version %u and %d fds, not %u and 3 or 5",
			  path, m.u.hello_rep.version, nfds, MPD_CHAN_VERSION);
		goto fail;
	}
	if (take_fds(h, fds, nfds) < 0) {
		close_fds(fds, nfds);
		mpd_chan_once(MPD_CHAN_ONCE_PROTOCOL,
			  "the daemon at %s sent HELLO fds that are not its shared memory, socket and pipe",
			  path);
		goto fail;
	}
	h->rep = m.u.hello_rep;
	h->rep.port.ca_name[sizeof(h->rep.port.ca_name) - 1] = '\0';
	h->rep.port.node_desc[sizeof(h->rep.port.node_desc) - 1] = '\0';
	return 0;
fail:
	mpd_chan_session_close(h);
	return -EIO;
}

int
mpd_chan_port_query(const struct mpd_chan_node *n, int port_num,
	       struct mpd_chan_port_info *pi)
{
	struct mpd_chan_session h;
	int rc;

	rc = mpd_chan_hello(n, port_num, &h);
	if (rc < 0)
		return rc;
	*pi = h.rep.port;
	mpd_chan_session_close(&h);
	return 0;
}
