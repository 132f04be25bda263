/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device session (port 1's), which holds every verbs object of a
 * context (madpmd/verbs.h): its control requests, its shared memory
 * (receive ring for async events, the doorbell flag), and the list of
 * objects async events name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "verbs_priv.h"

static int
map_rx(struct mpd_verbs_ctx *c, int memfd, uint32_t shm_size)
{
	int rc = -mpd_chan_map_rx(memfd, shm_size, &c->shm, &c->rx);

	if (!rc)
		c->shm_size = shm_size;
	return rc;
}

int
mpd_v_sess_open(struct mpd_verbs_ctx *c)
{
	struct mpd_chan_session h;
	int rc, fd;

	rc = mpd_chan_hello(&c->vdev->node, 1, &h);
	if (rc < 0)
		return mpd_chan_hello_errno(rc);
	rc = map_rx(c, h.memfd, h.rep.shm_size);
	if (rc) {
		mpd_chan_session_close(&h);
		return rc;
	}
	/*
	 * The async fd is an epoll fd of our own over the session's wake-up
	 * socket, readable exactly when it is: blocking, as the kernel's,
	 * until the application makes it O_NONBLOCK, which then says nothing
	 * of the socket, which we read without blocking.
	 */
	fd = epoll_create1(EPOLL_CLOEXEC);
	if (fd < 0 || epoll_ctl(fd, EPOLL_CTL_ADD, h.efd,
				&(struct epoll_event){ .events = EPOLLIN }) < 0) {
		rc = errno;
		if (fd >= 0)
			close(fd);
		mpd_chan_session_close(&h);
		return rc;
	}
	c->ctl_sock[0] = h.sock;
	c->ctl_seq[0] = h.seq;
	mpd_v_port_seen(c, 1, &h.rep.port);
	c->db.fd = h.doorbell;
	c->db_rd = h.doorbell_rd;
	c->wake.efd_w = h.efd_w;
	c->db.armed = &((struct mpd_chan_shm *)c->shm)->doorbell_armed;
	c->db.rings = &((struct mpd_chan_shm *)c->shm)->doorbell_rings;
	c->wake.efd = h.efd;
	c->wake.shm = c->shm;
	/* ours alone, non-blocking as the daemon made it */
	c->wake.may_block = false;
	c->vctx.context.async_fd = fd;
	close(h.memfd);
	return 0;
}

int
mpd_v_sess_open_events(struct mpd_verbs_ctx *c, unsigned int port)
{
	struct mpd_v_port_rx *p = &c->prx[port - 2];
	struct mpd_chan_session h;
	struct mpd_chan_msg m;
	int rc;

	rc = mpd_chan_hello(&c->vdev->node, (int)port, &h);
	if (rc < 0)
		return mpd_chan_hello_errno(rc);
	rc = -mpd_chan_map_rx(h.memfd, h.rep.shm_size, &p->shm, &p->rx);
	if (rc) {
		p->shm = NULL;
		mpd_chan_session_close(&h);
		return rc;
	}
	p->shm_size = h.rep.shm_size;
	if (epoll_ctl(c->vctx.context.async_fd, EPOLL_CTL_ADD, h.efd,
		      &(struct epoll_event){ .events = EPOLLIN }) < 0) {
		rc = errno;
		munmap(p->shm, p->shm_size);
		p->shm = NULL;
		mpd_chan_session_close(&h);
		return rc;
	}
	p->wake.efd = h.efd;
	p->wake.efd_w = h.efd_w;
	p->wake.shm = p->shm;
	p->wake.may_block = false;
	c->ctl_sock[port - 1] = h.sock;
	c->ctl_seq[port - 1] = h.seq;
	mpd_v_port_seen(c, port, &h.rep.port);
	/* the session's doorbell is for MADs: not ours to keep */
	h.sock = h.efd = h.efd_w = -1;
	mpd_chan_session_close(&h);
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_OPEN_CONTEXT;
	if (mpd_chan_call(c->ctl_sock[port - 1], &c->ctl_seq[port - 1], &m,
			  NULL, 0, NULL) < 0)
		return EIO;
	return m.status > 0 ? m.status : m.status ? EPROTO : 0;
}

void
mpd_v_sess_close(struct mpd_verbs_ctx *c)
{
	struct mpd_v_skip *s;
	struct mpd_v_objref *o;
	unsigned int i;

	for (i = 0; c->prx && i + 2 <= c->vdev->node.num_ports; i++) {
		struct mpd_v_port_rx *p = &c->prx[i];

		if (p->shm)
			munmap(p->shm, p->shm_size);
		if (p->wake.efd >= 0)
			close(p->wake.efd);
		if (p->wake.efd_w >= 0)
			close(p->wake.efd_w);
	}
	free(c->prx);
	c->prx = NULL;

	/* the sockets go in ctx_free(); the daemon frees the objects */
	if (c->shm)
		munmap(c->shm, c->shm_size);
	if (c->db.fd >= 0)
		close(c->db.fd);
	if (c->db_rd >= 0)
		close(c->db_rd);
	c->db.fd = c->db_rd = -1;
	while ((s = c->skips)) {
		c->skips = s->next;
		free(s);
	}
	/* objects the application never destroyed are its leak, as with a
	 * closed kernel context: unlisted only */
	while ((o = c->objs))
		c->objs = o->next;
}

/* A request whose reply carries want fds (fds may be NULL for 0) */
int
mpd_v_call_fds(struct mpd_verbs_ctx *c, struct mpd_chan_msg *m, int *fds,
	       int want)
{
	int got[4], nfds = 0, rc, i;

	pthread_mutex_lock(&c->ctl_lock);
	rc = mpd_chan_call(c->ctl_sock[0], &c->ctl_seq[0], m, got, 4, &nfds);
	pthread_mutex_unlock(&c->ctl_lock);
	if (rc < 0)
		return EIO;
	if (!m->status && nfds == want) {
		for (i = 0; i < nfds; i++)
			fds[i] = got[i];
		return 0;
	}
	for (i = 0; i < nfds; i++)
		close(got[i]);
	if (m->status)
		return m->status > 0 ? m->status : EPROTO;
	/* fds nobody asked for are closed and forgotten */
	return want ? EPROTO : 0;
}

int
mpd_v_call(struct mpd_verbs_ctx *c, struct mpd_chan_msg *m, int *fd)
{
	return mpd_v_call_fds(c, m, fd, fd ? 1 : 0);
}

int
mpd_v_destroy(struct mpd_verbs_ctx *c, uint32_t type, uint32_t handle,
	      struct mpd_v_destroy_rep *rep)
{
	struct mpd_chan_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.len = sizeof(m.u.v_destroy_req);
	m.u.v_destroy_req.handle = handle;
	rc = mpd_v_call(c, &m, NULL);
	if (!rc && rep)
		*rep = m.u.v_destroy_rep;
	return rc;
}

void *
mpd_v_map(int fd, size_t size)
{
	struct stat st;
	void *p;
	int err;

	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < size) {
		close(fd);
		errno = EPROTO;
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = errno;
	close(fd);
	if (p == MAP_FAILED) {
		errno = err;
		return NULL;
	}
	return p;
}

void
mpd_v_obj_add(struct mpd_verbs_ctx *c, struct mpd_v_objref *o, uint32_t kind,
	      uint32_t handle, void *obj)
{
	o->kind = kind;
	o->handle = handle;
	o->obj = obj;
	o->async_returned = 0;
	pthread_mutex_lock(&c->obj_lock);
	o->next = c->objs;
	c->objs = o;
	pthread_mutex_unlock(&c->obj_lock);
}

void
mpd_v_obj_del(struct mpd_verbs_ctx *c, struct mpd_v_objref *o, uint32_t raised)
{
	struct mpd_v_objref **pp;
	struct mpd_v_skip *s;

	pthread_mutex_lock(&c->obj_lock);
	for (pp = &c->objs; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			break;
		}
	/* the ring is in order: the records not read yet all come before
	 * any of an object that takes the handle next */
	if (raised > o->async_returned) {
		s = malloc(sizeof(*s));
		if (s) {
			s->kind = o->kind;
			s->handle = o->handle;
			s->left = raised - o->async_returned;
			s->next = c->skips;
			c->skips = s;
		}
	}
	pthread_mutex_unlock(&c->obj_lock);
}

void
mpd_v_wait_count(struct mpd_verbs_ctx *c, const uint32_t *returned,
		 pthread_mutex_t *m, pthread_cond_t *cv, const uint32_t *acked)
{
	uint32_t want;

	pthread_mutex_lock(&c->obj_lock);
	want = *returned;
	pthread_mutex_unlock(&c->obj_lock);
	pthread_mutex_lock(m);
	while ((int32_t)(*acked - want) < 0)
		pthread_cond_wait(cv, m);
	pthread_mutex_unlock(m);
}
