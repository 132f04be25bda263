/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs service of the channel (madpmd/verbs.h): PDs, MRs,
 * completion channels, CQs, SRQs and QPs made on a session's requests,
 * on the control thread. The daemon makes every shared mapping itself
 * (memfds sealed at their size) and hands the fd over; the objects go
 * into the port's QP layer under the port lock and out of it when the
 * client asks or goes. Handles are indexes into the session's own table,
 * checked for their kind, so a client can name only its own objects.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rte_log.h>

#include "madpmd/clock.h"
#include "chan_priv.h"


enum vobj_kind {
	VOBJ_FREE = 0,
	VOBJ_PD,
	VOBJ_MR,
	VOBJ_COMP,
	VOBJ_CQ,
	VOBJ_SRQ,
	VOBJ_QP,
	VOBJ_MW,
	VOBJ_KINDS
};

struct mr_map;

struct chan_vobj {
	uint8_t kind;
	uint32_t pd;			/* VOBJ_PD: its number */
	void *p;
	struct mr_map *old;		/* VOBJ_MR: a mapping merged away */
	uint64_t units;			/* queue or CQ entries it holds */
};

static void
v_async(struct hca_v_owner *o, const struct mpd_v_async_rec *r)
{
	struct hca_session *s = (struct hca_session *)((char *)o -
				offsetof(struct hca_session, vo));
	bool wake;
	int rc;

	if (o->dead)
		return;
	rc = mpd_ring_put_wake(&s->rx, MPD_CHAN_REC_ASYNC, r, sizeof(*r),
			       NULL, 0, &wake);
	if (rc == -EBADMSG)
		chan_session_kill(s, "garbage in its receive ring's tail");
	if (rc)
		return;
	if (wake && !__atomic_load_n(&((struct mpd_chan_shm *)s->shm)->rx_awake,
				     __ATOMIC_ACQUIRE))
		chan_wake_mark(s->ch, s);
}

static const struct hca_v_owner_ops v_owner_ops = {
	.async = v_async,
};

/* The table, made at the first verbs request */
static int
table(struct hca_session *s)
{
	if (s->vobj)
		return 0;
	s->vobj = calloc(MPD_V_MAX_OBJECTS, sizeof(*s->vobj));
	if (!s->vobj)
		return ENOMEM;
	s->vo.ops = &v_owner_ops;
	s->vo.id = s->mc.id;
	return 0;
}

_Static_assert(VOBJ_KINDS <= sizeof(((struct chan_vuse *)0)->objs) /
	       sizeof(uint32_t), "chan_vuse kinds");

/*
 * Shares (madpmd/verbs.h): what one process holds of the port, all its
 * sessions together, and what one user's processes hold, so that no
 * client takes the port's QP numbers, MR keys or the daemon's memory
 * from the others, however many contexts it opens (ENOMEM past one).
 */
static const uint32_t proc_objs[VOBJ_KINDS] = {
	[VOBJ_PD] = MPD_V_PROC_PDS, [VOBJ_MR] = MPD_V_PROC_MRS,
	[VOBJ_COMP] = MPD_V_MAX_OBJECTS, [VOBJ_CQ] = MPD_V_PROC_CQS,
	[VOBJ_SRQ] = MPD_V_PROC_SRQS, [VOBJ_QP] = MPD_V_PROC_QPS,
	[VOBJ_MW] = MPD_V_PROC_MRS,
};

static void
vuse_add(struct chan_vuse *u, const struct chan_vuse *o)
{
	unsigned int k;

	for (k = 0; k < VOBJ_KINDS; k++)
		u->objs[k] += o->objs[k];
	u->wqes += o->wqes;
	u->cqes += o->cqes;
}

/* A QP or SRQ holds queue entries, a CQ completion entries */
static void
vuse_units(struct chan_vuse *u, uint8_t kind, int64_t units)
{
	if (kind == VOBJ_QP || kind == VOBJ_SRQ)
		u->wqes += (uint64_t)units;
	else if (kind == VOBJ_CQ)
		u->cqes += (uint64_t)units;
}

/* 0, or ENOMEM when one more object of kind (none: kind VOBJ_FREE)
 * holding units more entries takes s's process or user past a share */
static int
share_check(struct hca_session *s, uint8_t kind, int64_t units)
{
	struct chan_vuse proc = { 0 }, user = { 0 }, *u[2] = { &proc, &user };
	const struct hca_session *o;
	unsigned int i;

	TAILQ_FOREACH(o, &s->ch->sessions, next) {
		if (o == s)
			continue;
		if (o->pid == s->pid)
			vuse_add(&proc, &o->vuse);
		if (o->uid == s->uid)
			vuse_add(&user, &o->vuse);
	}
	for (i = 0; i < 2; i++) {
		uint64_t times = i ? MPD_V_USER_SHARES : 1;

		vuse_add(u[i], &s->vuse);
		vuse_units(u[i], kind, units);
		/* regions and windows take keys of one table: one share */
		if (kind != VOBJ_FREE &&
		    u[i]->objs[kind] + 1 +
		    (kind == VOBJ_MR ? u[i]->objs[VOBJ_MW] :
		     kind == VOBJ_MW ? u[i]->objs[VOBJ_MR] : 0) >
		    proc_objs[kind] * times)
			return ENOMEM;
		if (u[i]->wqes > MPD_V_PROC_WQES * times ||
		    u[i]->cqes > MPD_V_PROC_CQES * times)
			return ENOMEM;
	}
	return 0;
}

/* An object into handle h, counted in its session's use */
static void
vobj_set(struct hca_session *s, uint32_t h, struct chan_vobj o)
{
	s->vobj[h] = o;
	s->vuse.objs[o.kind]++;
	vuse_units(&s->vuse, o.kind, (int64_t)o.units);
}

static void
vobj_free(struct hca_session *s, struct chan_vobj *o)
{
	s->vuse.objs[o->kind]--;
	vuse_units(&s->vuse, o->kind, -(int64_t)o->units);
	o->kind = VOBJ_FREE;
}

static int
handle_new(struct hca_session *s, uint32_t *h)
{
	uint32_t i;

	for (i = 0; i < MPD_V_MAX_OBJECTS; i++)
		if (s->vobj[i].kind == VOBJ_FREE) {
			*h = i;
			return 0;
		}
	return ENOMEM;
}

static struct chan_vobj *
obj(struct hca_session *s, uint32_t h, uint8_t kind)
{
	if (!s->vobj || h >= MPD_V_MAX_OBJECTS || s->vobj[h].kind != kind)
		return NULL;
	return &s->vobj[h];
}

/* A sealed memfd of len bytes, mapped: the fd, or -errno */
static int
shm_make(const char *name, size_t len, void **map)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	int err;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		goto fail;
	*map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*map == MAP_FAILED)
		goto fail;
	return fd;
fail:
	err = errno;
	close(fd);
	return -err;
}

static int
reply_fd(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m,
	 int fd)
{
	int rc = hca_chan_reply(s, m, fd);

	close(fd);
	(void)ch;
	return rc ? CHAN_GONE : CHAN_REPLIED;
}

/* ---- PDs ---- */

static int
v_alloc_pd(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	uint32_t h;
	int rc = table(s);

	if (rc || (rc = handle_new(s, &h)) ||
	    (rc = share_check(s, VOBJ_PD, 0)))
		return rc;
	vobj_set(s, h, (struct chan_vobj){ .kind = VOBJ_PD,
					   .pd = ++ch->next_pd });
	m->len = sizeof(m->u.v_handle);
	m->u.v_handle.handle = h;
	return 0;
}

static bool
pd_used(struct hca_session *s, uint32_t pd)
{
	uint32_t i;

	for (i = 0; i < MPD_V_MAX_OBJECTS; i++) {
		struct chan_vobj *o = &s->vobj[i];

		if ((o->kind == VOBJ_MR || o->kind == VOBJ_QP ||
		     o->kind == VOBJ_SRQ || o->kind == VOBJ_MW) && o->pd == pd)
			return true;
	}
	return false;
}

static int
v_dealloc_pd(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	struct chan_vobj *o = obj(s, m->u.v_destroy_req.handle, VOBJ_PD);

	(void)ch;
	if (!o)
		return EINVAL;
	if (pd_used(s, o->pd))
		return EBUSY;
	vobj_free(s, o);
	m->len = 0;
	return 0;
}

/* ---- MRs ---- */

#define ACCESS_KNOWN	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
			 IBV_ACCESS_MW_BIND | IBV_ACCESS_RELAXED_ORDERING)

/* An MR's pages: a memfd mapping, shared by the MRs a client aliased to
 * it (control thread only) */
struct mr_map {
	struct mr_map *next;		/* in the port's list */
	uint8_t *map;
	uint64_t len;
	uint64_t page_va;		/* the client's address of byte 0 */
	uint32_t refs;			/* MRs on it */
	uint32_t id;			/* what an alias names */
	pid_t pid;			/* whose pages: only its MRs alias */
};

/* The port's mappings, for aliases from any session of their process
 * (a process with two contexts registers the same pages twice) */
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mr_map *maps;
static uint32_t next_map_id;

static void
mr_map_put(struct mr_map *mm)
{
	struct mr_map **pp;

	pthread_mutex_lock(&maps_lock);
	if (--mm->refs) {
		pthread_mutex_unlock(&maps_lock);
		return;
	}
	for (pp = &maps; *pp; pp = &(*pp)->next)
		if (*pp == mm) {
			*pp = mm->next;
			break;
		}
	pthread_mutex_unlock(&maps_lock);
	munmap(mm->map, mm->len);
	free(mm);
}

/* The mapping id names, of process pid, with a reference taken */
static struct mr_map *
mr_map_find(uint32_t id, pid_t pid)
{
	struct mr_map *mm;

	pthread_mutex_lock(&maps_lock);
	for (mm = maps; mm; mm = mm->next)
		if (mm->id == id && mm->pid == pid) {
			mm->refs++;
			break;
		}
	pthread_mutex_unlock(&maps_lock);
	return mm;
}

static void
mr_map_add(struct mr_map *mm)
{
	pthread_mutex_lock(&maps_lock);
	mm->id = ++next_map_id;
	mm->next = maps;
	maps = mm;
	pthread_mutex_unlock(&maps_lock);
}

static uint32_t
mrs_on(struct hca_session *s, struct mr_map *mm)
{
	uint32_t i, n = 0;

	for (i = 0; i < MPD_V_MAX_OBJECTS; i++)
		n += s->vobj[i].kind == VOBJ_MR &&
		     ((struct hca_v_mr *)s->vobj[i].p)->map == mm;
	return n;
}

/* No live mapping of the session lies partly inside [lo, hi) */
static bool
merge_ok(struct hca_session *s, uint64_t lo, uint64_t hi)
{
	uint32_t i;

	for (i = 0; i < MPD_V_MAX_OBJECTS; i++) {
		struct mr_map *mm;

		if (s->vobj[i].kind != VOBJ_MR)
			continue;
		mm = ((struct hca_v_mr *)s->vobj[i].p)->map;
		if (mm->page_va + mm->len <= lo || hi <= mm->page_va)
			continue;
		if (mm->page_va < lo || mm->page_va + mm->len > hi)
			return false;
		/* MRs of another session on it would stay behind */
		if (mm->refs != mrs_on(s, mm))
			return false;
	}
	return true;
}

/* Lock held: every MR of the session inside nm's pages onto nm (their
 * old mappings are let go by merge_release(), after the lock) */
static void
merge_move(struct hca_session *s, struct mr_map *nm)
{
	uint32_t i;

	for (i = 0; i < MPD_V_MAX_OBJECTS; i++) {
		struct hca_v_mr *mr;
		struct mr_map *mm;

		if (s->vobj[i].kind != VOBJ_MR)
			continue;
		mr = s->vobj[i].p;
		mm = mr->map;
		if (mm == nm || mm->page_va < nm->page_va ||
		    mm->page_va + mm->len > nm->page_va + nm->len)
			continue;
		mr->base = nm->map + (mr->iova - nm->page_va);
		mr->map = nm;
		s->vobj[i].old = mm;	/* nm's reference: merge_release() */
	}
}

static void
merge_release(struct hca_session *s, struct mr_map *nm)
{
	uint32_t i;

	for (i = 0; i < MPD_V_MAX_OBJECTS; i++)
		if (s->vobj[i].kind == VOBJ_MR && s->vobj[i].old) {
			pthread_mutex_lock(&maps_lock);
			nm->refs++;
			pthread_mutex_unlock(&maps_lock);
			mr_map_put(s->vobj[i].old);
			s->vobj[i].old = NULL;
		}
}

static int
v_reg_mr(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	const struct mpd_v_reg_mr_req *r = &m->u.v_reg_mr_req;
	struct chan_vobj *pd = obj(s, r->pd, VOBJ_PD);
	uint64_t page_mask = mpd_page_size() - 1;
	uint64_t page = r->addr & ~page_mask;
	uint64_t end = r->addr + r->length;
	struct mr_map *mm = NULL;
	struct hca_v_mr *mr;
	uint32_t h;
	int fd = -1, rc;

	if (!pd || !r->length || r->length > MPD_V_MAX_MR_SIZE || end < r->addr)
		return EINVAL;
	/* IBA 10.6.3.1: remote write or atomic needs local write */
	if ((r->access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(r->access & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	/* zero-based, on-demand paging: not this device's */
	if (r->access & ~(uint32_t)ACCESS_KNOWN)
		return EOPNOTSUPP;
	if (r->alias != MPD_V_NO_HANDLE) {
		/* a reference taken: dropped on every failure below */
		mm = mr_map_find(r->alias, s->pid);
		if (!mm)
			return EINVAL;
		/* every byte inside the pages the alias's memfd backs */
		if (r->addr < mm->page_va || end - mm->page_va > mm->len ||
		    r->merge_hi) {
			mr_map_put(mm);
			return EINVAL;
		}
	}
	if (r->merge_hi) {
		/* page aligned, holding the new MR, and no live mapping of
		 * the session only partly inside */
		if (((r->merge_lo | r->merge_hi) & page_mask) ||
		    r->merge_lo > page || r->merge_hi < end ||
		    r->merge_hi - r->merge_lo > 2 * MPD_V_MAX_MR_SIZE ||
		    !merge_ok(s, r->merge_lo, r->merge_hi))
			return EINVAL;
		page = r->merge_lo;
		end = r->merge_hi;
	}
	if ((rc = handle_new(s, &h)) || (rc = share_check(s, VOBJ_MR, 0)) ||
	    !(mr = calloc(1, sizeof(*mr)))) {
		if (mm)
			mr_map_put(mm);
		return rc ? rc : ENOMEM;
	}
	if (!mm) {
		mm = calloc(1, sizeof(*mm));
		if (!mm) {
			free(mr);
			return ENOMEM;
		}
		mm->len = ((end + page_mask) & ~page_mask) - page;
		mm->page_va = page;
		mm->refs = 1;
		mm->pid = s->pid;
		fd = shm_make("madpmd-mr", mm->len, (void **)&mm->map);
		if (fd < 0) {
			free(mm);
			free(mr);
			return -fd;
		}
		mr_map_add(mm);
	}
	mr->owner = &s->vo;
	mr->pd = pd->pd;
	mr->access = r->access;
	mr->iova = r->addr;
	mr->length = r->length;
	mr->map = mm;
	mr->base = mm->map + (r->addr - mm->page_va);
	rte_spinlock_lock(ch->cfg.lock);
	rc = hca_v_mr_add(ch->cfg.verbs, mr);
	if (!rc && r->merge_hi)
		merge_move(s, mm);
	rte_spinlock_unlock(ch->cfg.lock);
	if (rc) {
		if (fd >= 0)
			close(fd);
		mr_map_put(mm);
		free(mr);
		return rc;
	}
	if (r->merge_hi)
		merge_release(s, mm);
	vobj_set(s, h, (struct chan_vobj){ .kind = VOBJ_MR, .pd = mr->pd,
					   .p = mr });
	memset(&m->u, 0, sizeof(m->u));
	m->len = sizeof(m->u.v_reg_mr_rep);
	m->u.v_reg_mr_rep.handle = h;
	m->u.v_reg_mr_rep.lkey = mr->key;
	m->u.v_reg_mr_rep.rkey = mr->key;
	m->u.v_reg_mr_rep.map_id = mm->id;
	if (fd < 0)
		return 0;
	m->u.v_reg_mr_rep.map_len = mm->len;
	return reply_fd(ch, s, m, fd);
}

static void
mr_free(struct hca_chan *ch, struct hca_v_mr *mr)
{
	rte_spinlock_lock(ch->cfg.lock);
	mr->users = 0;
	hca_v_mr_remove(ch->cfg.verbs, mr);
	rte_spinlock_unlock(ch->cfg.lock);
	mr_map_put(mr->map);
	free(mr);
}

static int
v_dereg_mr(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	struct chan_vobj *o = obj(s, m->u.v_destroy_req.handle, VOBJ_MR);
	struct hca_v_mr *mr;
	int rc;

	if (!o)
		return EINVAL;
	mr = o->p;
	/* ibv_dereg_mr(3): EBUSY while windows are bound to it; looked at
	 * and taken out under one lock, or the lcore could bind one to it
	 * in between */
	rte_spinlock_lock(ch->cfg.lock);
	rc = hca_v_mr_remove(ch->cfg.verbs, mr);
	rte_spinlock_unlock(ch->cfg.lock);
	if (rc)
		return rc;
	mr_map_put(mr->map);
	free(mr);
	vobj_free(s, o);
	m->len = 0;
	return 0;
}

/* ---- memory windows (pmd/qp/mw.c binds and invalidates them) ---- */

static int
v_alloc_mw(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	const struct mpd_v_alloc_mw_req *r = &m->u.v_alloc_mw_req;
	struct chan_vobj *pd = obj(s, r->pd, VOBJ_PD);
	struct hca_v_mr *mw;
	uint32_t h;
	int rc;

	if (!pd || (r->type != IBV_MW_TYPE_1 && r->type != IBV_MW_TYPE_2))
		return EINVAL;
	if ((rc = handle_new(s, &h)) || (rc = share_check(s, VOBJ_MW, 0)))
		return rc;
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return ENOMEM;
	mw->owner = &s->vo;
	mw->pd = pd->pd;
	mw->mw_type = (uint8_t)r->type;
	rte_spinlock_lock(ch->cfg.lock);
	rc = hca_v_mr_add(ch->cfg.verbs, mw);
	rte_spinlock_unlock(ch->cfg.lock);
	if (rc) {
		free(mw);
		return rc;
	}
	vobj_set(s, h, (struct chan_vobj){ .kind = VOBJ_MW, .pd = mw->pd,
					   .p = mw });
	memset(&m->u, 0, sizeof(m->u));
	m->len = sizeof(m->u.v_alloc_mw_rep);
	m->u.v_alloc_mw_rep.handle = h;
	m->u.v_alloc_mw_rep.rkey = mw->key;
	return 0;
}

/* Unbound (its region may go then) and its key gone: a peer's access
 * through it fails from now */
static void
mw_free(struct hca_chan *ch, struct hca_v_mr *mw)
{
	rte_spinlock_lock(ch->cfg.lock);
	hca_v_mr_remove(ch->cfg.verbs, mw);
	rte_spinlock_unlock(ch->cfg.lock);
	free(mw);
}

static int
v_dealloc_mw(struct hca_chan *ch, struct hca_session *s,
	     struct mpd_chan_msg *m)
{
	struct chan_vobj *o = obj(s, m->u.v_destroy_req.handle, VOBJ_MW);

	if (!o)
		return EINVAL;
	mw_free(ch, o->p);
	vobj_free(s, o);
	m->len = 0;
	return 0;
}

/* ---- completion channels ---- */

static int
v_create_channel(struct hca_chan *ch, struct hca_session *s,
		 struct mpd_chan_msg *m)
{
	struct hca_v_comp *c;
	uint32_t h;
	int theirs, rc = table(s);

	(void)ch;
	if (rc || (rc = handle_new(s, &h)))
		return rc;
	c = calloc(1, sizeof(*c));
	if (!c)
		return ENOMEM;
	/* a socketpair: our sends never wait, whatever the client does
	 * with the open file (wake.c) */
	rc = chan_sock_pair(&c->fd, &theirs);
	if (rc) {
		free(c);
		return rc;
	}
	c->refs = 1;
	vobj_set(s, h, (struct chan_vobj){ .kind = VOBJ_COMP, .p = c });
	m->len = sizeof(m->u.v_handle);
	m->u.v_handle.handle = h;
	/* and a copy of ours, with which the client wakes itself when it
	 * leaves events pending (lib/verbs/channel.c) */
	m->status = 0;
	rc = hca_chan_send_reply(s->sock, m, (int[]){ theirs, c->fd }, 2);
	close(theirs);
	return rc ? CHAN_GONE : CHAN_REPLIED;
}

static bool
comp_used(struct hca_session *s, struct hca_v_comp *c)
{
	uint32_t i;

	for (i = 0; i < MPD_V_MAX_OBJECTS; i++)
		if (s->vobj[i].kind == VOBJ_CQ &&
		    ((struct hca_v_cq *)s->vobj[i].p)->comp == c)
			return true;
	return false;
}

static int
v_destroy_channel(struct hca_chan *ch, struct hca_session *s,
		  struct mpd_chan_msg *m)
{
	struct chan_vobj *o = obj(s, m->u.v_destroy_req.handle, VOBJ_COMP);

	(void)ch;
	if (!o)
		return EINVAL;
	if (comp_used(s, o->p))
		return EBUSY;
	hca_v_comp_put(o->p);
	vobj_free(s, o);
	m->len = 0;
	return 0;
}

/* ---- CQs ---- */

/* A ring of a power of two > cqe entries: its mapping's size */
static size_t
cq_size(uint32_t cqe, uint32_t *ncqe)
{
	uint32_t n = 2;

	while (n <= cqe)
		n <<= 1;
	*ncqe = n;
	return mpd_page_round(256 + (size_t)n * sizeof(struct mpd_v_cqe));
}

static int
v_create_cq(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	const struct mpd_v_create_cq_req *r = &m->u.v_create_cq_req;
	struct chan_vobj *co = NULL;
	struct hca_v_cq *cq;
	uint32_t h, ncqe;
	size_t len;
	void *map;
	int fd, rc = table(s);

	if (rc)
		return rc;
	if (!r->cqe || r->cqe >= MPD_V_MAX_CQE)
		return EINVAL;
	if (r->channel != MPD_V_NO_HANDLE &&
	    !(co = obj(s, r->channel, VOBJ_COMP)))
		return EINVAL;
	if ((rc = handle_new(s, &h)))
		return rc;
	len = cq_size(r->cqe, &ncqe);
	if ((rc = share_check(s, VOBJ_CQ, ncqe)))
		return rc;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return ENOMEM;
	fd = shm_make("madpmd-cq", len, &map);
	if (fd < 0) {
		free(cq);
		return -fd;
	}
	hca_v_cq_init(cq, map, len, ncqe);
	cq->owner = &s->vo;
	cq->handle = h;
	if (co) {
		cq->comp = co->p;
		hca_v_comp_get(cq->comp);
	}
	vobj_set(s, h, (struct chan_vobj){ .kind = VOBJ_CQ, .p = cq,
					   .units = ncqe });
	m->len = sizeof(m->u.v_create_cq_rep);
	memset(&m->u, 0, sizeof(m->u));
	m->u.v_create_cq_rep.handle = h;
	m->u.v_create_cq_rep.ncqe = ncqe;
	m->u.v_create_cq_rep.shm_size = (uint32_t)len;
	return reply_fd(ch, s, m, fd);
}

/* The new mapping is made before and the old one unmapped after the
 * lock: under it only the switch and the copy of what is not polled */
static int
v_resize_cq(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	const struct mpd_v_resize_cq_req r = m->u.v_resize_cq_req;
	struct chan_vobj *o = obj(s, r.handle, VOBJ_CQ);
	struct hca_v_cq *cq;
	uint32_t ncqe;
	size_t len, old_len;
	void *map, *old;
	int fd, rc;

	if (!o || !r.cqe || r.cqe >= MPD_V_MAX_CQE)
		return EINVAL;
	cq = o->p;
	len = cq_size(r.cqe, &ncqe);
	if ((rc = share_check(s, VOBJ_FREE, (int64_t)ncqe -
				(int64_t)o->units)))
		return rc;
	fd = shm_make("madpmd-cq", len, &map);
	if (fd < 0)
		return -fd;
	rte_spinlock_lock(ch->cfg.lock);
	old = cq->map;
	old_len = cq->map_len;
	rc = hca_v_cq_resize(cq, map, len, ncqe, r.cqe, r.ci,
			     hca_v_cq_owed(ch->cfg.verbs, cq));
	rte_spinlock_unlock(ch->cfg.lock);
	if (rc) {
		munmap(map, len);
		close(fd);
		return rc;
	}
	munmap(old, old_len);
	memset(&m->u, 0, sizeof(m->u));
	m->len = sizeof(m->u.v_resize_cq_rep);
	vuse_units(&s->vuse, VOBJ_CQ, (int64_t)ncqe - (int64_t)o->units);
	o->units = ncqe;
	m->u.v_resize_cq_rep.ncqe = ncqe;
	m->u.v_resize_cq_rep.shm_size = (uint32_t)len;
	return reply_fd(ch, s, m, fd);
}

static void
cq_free(struct hca_v_cq *cq)
{
	if (cq->comp)
		hca_v_comp_put(cq->comp);
	munmap(cq->map, cq->map_len);
	free(cq);
}

static int
v_destroy_cq(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	struct chan_vobj *o = obj(s, m->u.v_destroy_req.handle, VOBJ_CQ);
	struct hca_v_cq *cq;
	int rc;

	if (!o)
		return EINVAL;
	cq = o->p;
	rte_spinlock_lock(ch->cfg.lock);
	rc = hca_v_cq_remove(ch->cfg.verbs, cq);
	rte_spinlock_unlock(ch->cfg.lock);
	if (rc)
		return rc;
	memset(&m->u, 0, sizeof(m->u));
	m->len = sizeof(m->u.v_destroy_rep);
	m->u.v_destroy_rep.comp_events = cq->events;
	m->u.v_destroy_rep.async_events = cq->async_events;
	cq_free(cq);
	vobj_free(s, o);
	return 0;
}

/* ---- SRQs ---- */

static int
v_create_srq(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	const struct mpd_v_create_srq_req *r = &m->u.v_create_srq_req;
	struct chan_vobj *pd = obj(s, r->pd, VOBJ_PD);
	uint32_t h, wqes = 1, stride, sge;
	struct hca_v_srq *srq;
	size_t len;
	void *map;
	int fd, rc;

	if (!pd || !r->max_wr || r->max_wr > MPD_V_MAX_QP_WR ||
	    r->max_sge > MPD_V_MAX_SGE || r->srq_limit > r->max_wr)
		return EINVAL;
	if ((rc = handle_new(s, &h)))
		return rc;
	while (wqes < r->max_wr)
		wqes <<= 1;
	if ((rc = share_check(s, VOBJ_SRQ, wqes)))
		return rc;
	sge = r->max_sge ? r->max_sge : 1;
	stride = (uint32_t)((sizeof(struct mpd_v_rwqe) +
			     sge * sizeof(struct mpd_v_sge) + 63) & ~63u);
	sge = (stride - (uint32_t)sizeof(struct mpd_v_rwqe)) /
	      (uint32_t)sizeof(struct mpd_v_sge);
	if (sge > MPD_V_MAX_SGE)
		sge = MPD_V_MAX_SGE;
	len = mpd_page_round(256 + (size_t)wqes * stride);
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return ENOMEM;
	fd = shm_make("madpmd-srq", len, &map);
	if (fd < 0) {
		free(srq);
		return -fd;
	}
	hca_v_srq_init(srq, map, len, wqes, stride, sge);
	srq->owner = &s->vo;
	srq->handle = h;
	srq->pd = pd->pd;
	srq->limit = r->srq_limit;
	vobj_set(s, h, (struct chan_vobj){ .kind = VOBJ_SRQ, .pd = pd->pd,
					   .p = srq, .units = wqes });
	memset(&m->u, 0, sizeof(m->u));
	m->len = sizeof(m->u.v_create_srq_rep);
	m->u.v_create_srq_rep.handle = h;
	m->u.v_create_srq_rep.shm_size = (uint32_t)len;
	m->u.v_create_srq_rep.max_wr = wqes;
	m->u.v_create_srq_rep.max_sge = sge;
	return reply_fd(ch, s, m, fd);
}

static int
v_modify_srq(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	const struct mpd_v_modify_srq_req *r = &m->u.v_modify_srq_req;
	struct chan_vobj *o = obj(s, r->handle, VOBJ_SRQ);
	int rc;

	if (!o)
		return EINVAL;
	rte_spinlock_lock(ch->cfg.lock);
	rc = hca_v_srq_modify(ch->cfg.verbs, o->p, r->attr_mask, r->max_wr,
			      r->srq_limit);
	rte_spinlock_unlock(ch->cfg.lock);
	m->len = 0;
	return rc;
}

static int
v_destroy_srq(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	struct chan_vobj *o = obj(s, m->u.v_destroy_req.handle, VOBJ_SRQ);
	struct hca_v_srq *srq;

	(void)ch;
	if (!o)
		return EINVAL;
	srq = o->p;
	if (srq->users)
		return EBUSY;
	memset(&m->u, 0, sizeof(m->u));
	m->len = sizeof(m->u.v_destroy_rep);
	m->u.v_destroy_rep.async_events = srq->async_events;
	munmap(srq->map, srq->map_len);
	free(srq);
	vobj_free(s, o);
	return 0;
}

/* ---- QPs ---- */

static int
v_create_qp(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	struct mpd_v_create_qp_req r = m->u.v_create_qp_req;
	struct chan_vobj *pd = obj(s, r.pd, VOBJ_PD);
	struct chan_vobj *scq = obj(s, r.send_cq, VOBJ_CQ);
	struct chan_vobj *rcq = obj(s, r.recv_cq, VOBJ_CQ);
	struct chan_vobj *srq = NULL;
	struct mpd_v_qp_cap cap = r.cap;
	struct mpd_v_qp_shm hdr;
	struct hca_v_qp *qp;
	uint32_t h;
	size_t len;
	void *map;
	int fd, rc;

	if (!pd || !scq || !rcq)
		return EINVAL;
	if (r.srq != MPD_V_NO_HANDLE && !(srq = obj(s, r.srq, VOBJ_SRQ)))
		return EINVAL;
	if (r.qp_type != IBV_QPT_RC && r.qp_type != IBV_QPT_UC &&
	    r.qp_type != IBV_QPT_UD)
		return EOPNOTSUPP;
	if (srq && r.qp_type == IBV_QPT_UC)
		return EINVAL;
	len = hca_v_qp_layout(r.qp_type, &cap, srq != NULL, &hdr);
	if (!len)
		return EINVAL;
	if ((rc = share_check(s, VOBJ_QP, hdr.sq_wqes + hdr.rq_wqes)))
		return rc;
	if ((rc = handle_new(s, &h)))
		return rc;
	fd = shm_make("madpmd-qp", len, &map);
	if (fd < 0)
		return -fd;
	memcpy(map, &hdr, sizeof(hdr));
	r.pd = pd->pd;		/* the QP layer knows PD numbers, not handles */
	qp = hca_v_qp_new(&s->vo, h, &r, &cap, map, len);
	if (!qp) {
		munmap(map, len);
		close(fd);
		return ENOMEM;
	}
	rte_spinlock_lock(ch->cfg.lock);
	rc = hca_v_qp_add(ch->cfg.verbs, qp, scq->p, rcq->p,
			  srq ? srq->p : NULL);
	rte_spinlock_unlock(ch->cfg.lock);
	if (rc) {
		hca_v_qp_free(qp);
		close(fd);
		return rc;
	}
	vobj_set(s, h, (struct chan_vobj){ .kind = VOBJ_QP, .pd = pd->pd,
					   .p = qp,
					   .units = hdr.sq_wqes + hdr.rq_wqes });
	memset(&m->u, 0, sizeof(m->u));
	m->len = sizeof(m->u.v_create_qp_rep);
	m->u.v_create_qp_rep.handle = h;
	m->u.v_create_qp_rep.qpn = hca_v_qp_num(qp);
	m->u.v_create_qp_rep.shm_size = (uint32_t)len;
	m->u.v_create_qp_rep.cap = cap;
	return reply_fd(ch, s, m, fd);
}

static int
v_modify_qp(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	const struct mpd_v_modify_qp_req *r = &m->u.v_modify_qp_req;
	struct chan_vobj *o = obj(s, r->handle, VOBJ_QP);
	uint64_t now = mpd_mono_ns();
	int rc;

	if (!o)
		return EINVAL;
	rte_spinlock_lock(ch->cfg.lock);
	rc = hca_v_qp_modify(ch->cfg.verbs, o->p, &r->attr, r->attr_mask, now);
	rte_spinlock_unlock(ch->cfg.lock);
	/* a lcore asleep until a ring or a timer looks at the QP in its
	 * new state: sends queued before RTS, the flush of Error */
	if (!rc)
		chan_doorbell_ring(&ch->cfg);
	m->len = 0;
	return rc;
}

static int
v_query_qp(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	struct chan_vobj *o = obj(s, m->u.v_destroy_req.handle, VOBJ_QP);

	if (!o)
		return EINVAL;
	rte_spinlock_lock(ch->cfg.lock);
	hca_v_qp_query(o->p, &m->u.v_query_qp_rep);
	rte_spinlock_unlock(ch->cfg.lock);
	m->len = sizeof(m->u.v_query_qp_rep);
	return 0;
}

/* ibv_open_device(): a context, to hear the port's events */
static int
v_open_context(struct hca_chan *ch, struct hca_session *s,
	       struct mpd_chan_msg *m)
{
	(void)ch;
	m->len = 0;
	return table(s);
}

/* ibv_attach_mcast(), ibv_detach_mcast() */
static int
v_mcast(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	const struct mpd_v_mcast_req r = m->u.v_mcast_req;
	struct chan_vobj *o = obj(s, r.qp, VOBJ_QP);
	int rc;

	m->len = 0;
	if (!o)
		return EINVAL;
	rte_spinlock_lock(ch->cfg.lock);
	if (m->type == MPD_V_ATTACH_MCAST)
		rc = hca_v_mcast_attach(ch->cfg.verbs, o->p, r.gid, r.lid);
	else
		rc = hca_v_mcast_detach(ch->cfg.verbs, o->p, r.gid, r.lid);
	rte_spinlock_unlock(ch->cfg.lock);
	return rc;
}

/*
 * The sends a client posted before it destroys its QP go on the wire
 * first, as a HCA's would have long before the call came: mckey's sender
 * posts ten unsignaled UD sends, leaves its group and destroys its QP at
 * once, and on a loaded machine that used to overtake the lcore. The
 * lcore sends; this thread rings it and waits, a bounded time (an RC
 * window the peer does not open, or a client that writes its producer
 * index on and on, costs at most SETTLE_MAX_NS).
 */
#define SETTLE_MAX_NS	(20 * 1000 * 1000)
#define SETTLE_STEP_NS	(20 * 1000)

static void
qp_settle(struct hca_chan *ch, struct hca_v_qp *qp)
{
	const struct timespec step = { 0, SETTLE_STEP_NS };
	unsigned int i;
	bool pending;

	for (i = 0; i < SETTLE_MAX_NS / SETTLE_STEP_NS; i++) {
		rte_spinlock_lock(ch->cfg.lock);
		pending = hca_v_qp_sends_pending(qp);
		rte_spinlock_unlock(ch->cfg.lock);
		if (!pending)
			return;
		/* a sleeping lcore wakes; an awake one wakes once more */
		if (i == 0)
			chan_doorbell_ring(&ch->cfg);
		nanosleep(&step, NULL);
	}
	CHAN_LOG(DEBUG, "QP 0x%06x destroyed with sends not sent",
		 hca_v_qp_num(qp));
}

static uint32_t
qp_destroy(struct hca_chan *ch, struct hca_v_qp *qp)
{
	uint32_t events;

	rte_spinlock_lock(ch->cfg.lock);
	hca_v_qp_remove(ch->cfg.verbs, qp);
	events = hca_v_qp_async_events(qp);
	rte_spinlock_unlock(ch->cfg.lock);
	hca_v_qp_free(qp);
	return events;
}

static int
v_destroy_qp(struct hca_chan *ch, struct hca_session *s, struct mpd_chan_msg *m)
{
	struct chan_vobj *o = obj(s, m->u.v_destroy_req.handle, VOBJ_QP);
	uint32_t events;

	if (!o)
		return EINVAL;
	qp_settle(ch, o->p);
	/* read under the lock that raises them, with the QP out of reach */
	events = qp_destroy(ch, o->p);
	vobj_free(s, o);
	memset(&m->u, 0, sizeof(m->u));
	m->len = sizeof(m->u.v_destroy_rep);
	m->u.v_destroy_rep.async_events = events;
	return 0;
}

/* Everything the session made, freed when it ends: QPs first (they use
 * the rest), then SRQs, CQs, windows (bound to MRs), MRs, channels. Its
 * owner is dead already, so nothing reaches its rings in between. */
void
hca_chan_verbs_end(struct hca_chan *ch, struct hca_session *s)
{
	static const uint8_t order[] = { VOBJ_QP, VOBJ_SRQ, VOBJ_CQ, VOBJ_MW,
					 VOBJ_MR, VOBJ_COMP };
	unsigned int k;
	uint32_t i;

	if (!s->vobj)
		return;
	rte_spinlock_lock(ch->cfg.lock);
	s->vo.dead = true;
	rte_spinlock_unlock(ch->cfg.lock);
	for (k = 0; k < sizeof(order); k++)
		for (i = 0; i < MPD_V_MAX_OBJECTS; i++) {
			struct chan_vobj *o = &s->vobj[i];

			if (o->kind != order[k])
				continue;
			switch (o->kind) {
			case VOBJ_QP:
				qp_destroy(ch, o->p);
				break;
			case VOBJ_SRQ:
				munmap(((struct hca_v_srq *)o->p)->map,
				       ((struct hca_v_srq *)o->p)->map_len);
				free(o->p);
				break;
			case VOBJ_CQ:
				cq_free(o->p);
				break;
			case VOBJ_MW:
				mw_free(ch, o->p);
				break;
			case VOBJ_MR:
				mr_free(ch, o->p);
				break;
			case VOBJ_COMP:
				hca_v_comp_put(o->p);
				break;
			}
			vobj_free(s, o);
		}
	free(s->vobj);
	s->vobj = NULL;
}

void
hca_chan_port_events(struct hca_chan *ch)
{
	const struct hca_port *p = ch->cfg.port;
	uint32_t ev[4], n = 0, i;
	struct hca_session *s;
	bool active = p->port_state == HCA_PORT_ACTIVE;
	bool was = ch->ev_state == HCA_PORT_ACTIVE;

	if (p->port_state == ch->ev_state && p->lid == ch->ev_lid &&
	    p->sm_lid == ch->ev_sm_lid)
		return;
	/* IBA 11.6.3 affiliated port events, as the kernel raises them */
	if (active && !was)
		ev[n++] = IBV_EVENT_PORT_ACTIVE;
	if (!active && was)
		ev[n++] = IBV_EVENT_PORT_ERR;
	if (active && was && p->lid != ch->ev_lid)
		ev[n++] = IBV_EVENT_LID_CHANGE;
	if (active && was && p->sm_lid != ch->ev_sm_lid)
		ev[n++] = IBV_EVENT_SM_CHANGE;
	ch->ev_state = p->port_state;
	ch->ev_lid = p->lid;
	ch->ev_sm_lid = p->sm_lid;
	TAILQ_FOREACH(s, &ch->sessions, next) {
		if (!s->vobj || s->vo.dead)
			continue;	/* not a verbs context */
		for (i = 0; i < n; i++) {
			struct mpd_v_async_rec r = {
				.event_type = ev[i], .obj = MPD_V_OBJ_PORT,
				.handle = p->port_num,
			};

			v_async(&s->vo, &r);
		}
	}
}

static const struct hca_chan_handler verbs_handlers[] = {
	{ MPD_V_ALLOC_PD, v_alloc_pd },
	{ MPD_V_DEALLOC_PD, v_dealloc_pd },
	{ MPD_V_REG_MR, v_reg_mr },
	{ MPD_V_DEREG_MR, v_dereg_mr },
	{ MPD_V_ALLOC_MW, v_alloc_mw },
	{ MPD_V_DEALLOC_MW, v_dealloc_mw },
	{ MPD_V_CREATE_CHANNEL, v_create_channel },
	{ MPD_V_DESTROY_CHANNEL, v_destroy_channel },
	{ MPD_V_CREATE_CQ, v_create_cq },
	{ MPD_V_DESTROY_CQ, v_destroy_cq },
	{ MPD_V_RESIZE_CQ, v_resize_cq },
	{ MPD_V_CREATE_SRQ, v_create_srq },
	{ MPD_V_MODIFY_SRQ, v_modify_srq },
	{ MPD_V_DESTROY_SRQ, v_destroy_srq },
	{ MPD_V_CREATE_QP, v_create_qp },
	{ MPD_V_MODIFY_QP, v_modify_qp },
	{ MPD_V_QUERY_QP, v_query_qp },
	{ MPD_V_DESTROY_QP, v_destroy_qp },
	{ MPD_V_ATTACH_MCAST, v_mcast },
	{ MPD_V_DETACH_MCAST, v_mcast },
	{ MPD_V_OPEN_CONTEXT, v_open_context },
	{ 0, NULL },
};

/* A switch's port 0 has no QPs above 1 for clients */
static int
verbs_ready(const struct hca_chan *ch)
{
	return ch->cfg.verbs ? 0 : ENODEV;
}

const struct hca_chan_service hca_chan_verbs = {
	.handlers = verbs_handlers,
	.ready = verbs_ready,
};
