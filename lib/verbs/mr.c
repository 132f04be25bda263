/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory regions: the daemon reads and writes registered memory itself
 * (one-sided operations reach a client that does not run), so REG_MR
 * hands back a memfd that the library maps over the application's pages
 * [addr rounded down, addr + length rounded up to pages), their contents
 * copied in
 * first (madpmd/verbs.h).
 *
 * - When the last MR of such a range goes, its pages become private
 *   anonymous memory again, their contents copied back (rdma-core's
 *   ibv_dofork_range() on deregistration): memory freed after
 *   ibv_dereg_mr() and used again is inherited by a child like any other.
 * - A new MR whose pages all lie in a range a live MR backs is an alias
 *   of that MR (no new memfd: remapping would detach the first MR). One
 *   that overlaps such ranges in part gets one memfd for all their pages
 *   and its own: the daemon moves those MRs onto it (keys unchanged) and
 *   the library maps it over the whole range. A peer's RDMA WRITE into
 *   those MRs while this happens may be lost, as a write of another
 *   thread to the pages would be.
 * - Pages in shared mappings not ours (a file, or memory shared with
 *   another process) cannot be moved into a memfd: EINVAL. Unmapped or
 *   unreadable pages, and read-only ones for an access that writes:
 *   EFAULT.
 * - The pages are marked MADV_DONTFORK, as ibv_fork_init() would: a
 *   child does not share them with the daemon.
 * - Another thread that writes those pages while ibv_reg_mr() or the
 *   last ibv_dereg_mr() copies them loses its write: register buffers of
 *   whole pages (as ibv_*_pingpong do), or register before sharing them
 *   between threads.
 *   The calling thread's own stack may be among them (a buffer on the
 *   stack): the copy and the remap run on a stack of their own.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "madpmd/page.h"
#include "verbs_priv.h"


struct mpd_v_mr;

/* The process's pages moved into memfds, whichever context did it (two
 * contexts may register the same buffer): ranges_lock */
struct mpd_v_range {
	struct mpd_v_range *next;
	uint64_t start, end;
	uint32_t map_id;		/* the daemon's name for its memfd */
	struct mpd_v_mr *mrs;		/* live; none: the pages stay ours */
};

static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mpd_v_range *ranges;

struct mpd_v_mr {
	struct ibv_mr mr;
	struct mpd_v_range *range;
	struct mpd_v_mr *next;		/* in its range */
};

struct seg {
	uint64_t start, end;
	int prot;
	bool shared;
};

#define MAX_SEGS	64

/* Is [lo, hi) covered by ranges of ours (live or not)? */
static bool
ours(uint64_t lo, uint64_t hi)
{
	struct mpd_v_range *r;

	while (lo < hi) {
		for (r = ranges; r; r = r->next)
			if (r->start <= lo && lo < r->end)
				break;
		if (!r)
			return false;
		lo = r->end;
	}
	return true;
}

/* The mappings over [lo, hi) from /proc/self/maps: their count, or a
 * negative errno (a hole: EFAULT). */
static int
read_segs(uint64_t lo, uint64_t hi, struct seg *segs)
{
	char line[512], perms[8];
	unsigned long long s, e;
	uint64_t pos = lo;
	int n = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -EIO;
	while (pos < hi && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s", &s, &e, perms) != 3)
			continue;
		if (e <= pos)
			continue;
		if (s > pos || n == MAX_SEGS)
			break;
		segs[n].start = pos;
		segs[n].end = e < hi ? e : hi;
		segs[n].prot = (perms[0] == 'r' ? PROT_READ : 0) |
			       (perms[1] == 'w' ? PROT_WRITE : 0) |
			       (perms[2] == 'x' ? PROT_EXEC : 0);
		segs[n].shared = perms[3] == 's';
		pos = segs[n].end;
		n++;
	}
	fclose(f);
	return pos < hi ? (n == MAX_SEGS ? -ENOMEM : -EFAULT) : n;
}

/* Access that lets the HCA write the pages: the kernel pins them for
 * writing (ib_umem_get() with FOLL_WRITE), which a mapping without write
 * permission refuses with EFAULT; so does this library, or a peer's RDMA
 * WRITE would change read-only memory (.rodata, an mprotect()ed page). */
static int
check_writable(const struct seg *segs, int n, uint64_t lo, uint64_t hi,
	       uint32_t access)
{
	int i;

	if (!(access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND)))
		return 0;
	for (i = 0; i < n; i++)
		if (segs[i].start < hi && lo < segs[i].end &&
		    !(segs[i].prot & PROT_WRITE))
			return EFAULT;
	return 0;
}

static int
reg(struct mpd_verbs_ctx *c, struct ibv_pd *pd, uint64_t addr, uint64_t len,
    uint32_t access, uint32_t alias, uint64_t merge_lo, uint64_t merge_hi,
    struct mpd_v_reg_mr_rep *rep, int *fd)
{
	struct mpd_chan_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.type = MPD_V_REG_MR;
	m.len = sizeof(m.u.v_reg_mr_req);
	m.u.v_reg_mr_req.pd = pd->handle;
	m.u.v_reg_mr_req.access = access;
	m.u.v_reg_mr_req.addr = addr;
	m.u.v_reg_mr_req.length = len;
	m.u.v_reg_mr_req.alias = alias;
	m.u.v_reg_mr_req.merge_lo = merge_lo;
	m.u.v_reg_mr_req.merge_hi = merge_hi;
	rc = mpd_v_call(c, &m, fd);
	if (!rc)
		*rep = m.u.v_reg_mr_rep;
	return rc;
}

/* Whole pages, the bytes around the application's buffer included: by
 * the kernel (process_vm_readv on ourselves), which reads them as they
 * are where a memcpy would read past a heap block (and AddressSanitizer
 * would rightly say so). The system call itself, not libc's: a
 * sanitizer's interceptor would check the pages against the shadow
 * the application's allocator gave them (UCX poisons its pools), and
 * fresh pages may still carry a dead mapping's shadow; these are bytes
 * moved as they are, whatever anyone made of them. */
static int
copy_pages(void *dst, uint64_t lo, size_t len)
{
	size_t done = 0;

	while (done < len) {
		struct iovec l = { (uint8_t *)dst + done, len - done };
		struct iovec r = { (void *)(uintptr_t)(lo + done), len - done };
		ssize_t n = syscall(SYS_process_vm_readv, getpid(), &l, 1UL,
				    &r, 1UL, 0UL);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

/* [lo, lo + len) copied into a mapping of the memfd (fd >= 0) or into
 * private anonymous pages: the mapping, or NULL with errno */
static void *
copy_aside(int fd, uint64_t lo, size_t len)
{
	void *tmp = fd >= 0 ?
		    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) :
		    mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int e;

	if (tmp == MAP_FAILED)
		return NULL;
	if (copy_pages(tmp, lo, len) != 0) {
		e = errno;
		munmap(tmp, len);
		errno = e;
		return NULL;
	}
	return tmp;
}

/* The segments' protections again, over the pages mapped anew */
static void
keep_prot(const struct seg *segs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (segs[i].prot != (PROT_READ | PROT_WRITE))
			mprotect((void *)(uintptr_t)segs[i].start,
				 (size_t)(segs[i].end - segs[i].start),
				 segs[i].prot);
}

/* Move [lo, hi) into the memfd: copy, map over, restore protections */
static int
move_pages_here(int fd, uint64_t lo, uint64_t hi, const struct seg *segs,
		int n)
{
	size_t len = (size_t)(hi - lo);
	void *tmp, *p;

	/* nothing below may write these pages until the remap (no heap
	 * allocation: the pages may hold the heap) */
	tmp = copy_aside(fd, lo, len);
	if (!tmp)
		return errno;
	p = mmap((void *)(uintptr_t)lo, len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	munmap(tmp, len);
	if (p == MAP_FAILED)
		return errno;
	keep_prot(segs, n);
	madvise((void *)(uintptr_t)lo, len, MADV_DONTFORK);
	return 0;
}

/* Back from the memfd to private anonymous pages: copy out, move the
 * copy over (the memfd's mapping goes with it), restore protections */
static int
move_back_here(uint64_t lo, uint64_t hi, const struct seg *segs, int n)
{
	size_t len = (size_t)(hi - lo);
	void *tmp, *p;
	int i;

	tmp = copy_aside(-1, lo, len);
	if (!tmp)
		return errno;
	p = mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)(uintptr_t)lo);
	if (p == MAP_FAILED) {
		i = errno;
		munmap(tmp, len);
		return i;
	}
	keep_prot(segs, n);
	return 0;
}

/*
 * The pages may hold this thread's own stack (a buffer on the stack is
 * registered as well as any): a write to them between the copy and the
 * remap (a call's return address, a local) would be lost, and the thread
 * would return into garbage. So the move runs on a stack of its own, a
 * fresh mapping that cannot lie in the range, and this thread's stack is
 * left alone from before the copy until after the remap (a signal
 * handler runs on the current stack: the move's).
 */
#define MOVE_STACK	(64u << 10)

struct move_job {
	int fd;				/* -1: back to anonymous pages */
	uint64_t lo, hi;
	const struct seg *segs;
	int n;
	int rc;
};

static void
move_tramp(unsigned int hi32, unsigned int lo32)
{
	struct move_job *j = (struct move_job *)(uintptr_t)
			     ((uint64_t)hi32 << 32 | lo32);

	if (j->fd < 0)
		j->rc = move_back_here(j->lo, j->hi, j->segs, j->n);
	else
		j->rc = move_pages_here(j->fd, j->lo, j->hi, j->segs, j->n);
}

static int
move_pages(int fd, uint64_t lo, uint64_t hi, const struct seg *segs, int n)
{
	struct move_job j = { fd, lo, hi, segs, n, 0 };
	ucontext_t here, there;
	uintptr_t jp = (uintptr_t)&j;
	void *stack;

	stack = mmap(NULL, MOVE_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return ENOMEM;
	if (getcontext(&there) != 0) {
		munmap(stack, MOVE_STACK);
		return errno;
	}
	there.uc_stack.ss_sp = stack;
	there.uc_stack.ss_size = MOVE_STACK;
	there.uc_link = &here;
	makecontext(&there, (void (*)(void))move_tramp, 2,
		    (unsigned int)((uint64_t)jp >> 32), (unsigned int)jp);
	if (swapcontext(&here, &there) != 0)
		j.rc = errno;
	munmap(stack, MOVE_STACK);
	return j.rc;
}

static struct ibv_mr *
reg_mr(struct ibv_pd *pd, void *addr, size_t length, unsigned int access)
{
	struct mpd_v_range *r, *live = NULL, *nr = NULL, **pr;
	uint64_t a = (uintptr_t)addr, lo, hi, ulo, uhi;
	struct mpd_v_mr *m2;
	bool grew, merge;
	struct mpd_v_reg_mr_rep rep;
	struct seg segs[MAX_SEGS];
	struct mpd_verbs_ctx *c;
	struct mpd_v_mr *mr;
	int rc, n, i, fd = -1;

	access &= ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	if (!pd || !length || length > MPD_V_MAX_MR_SIZE ||
	    a + length < a ||
	    ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & IBV_ACCESS_LOCAL_WRITE))) {
		errno = EINVAL;
		return NULL;
	}
	c = mpd_verbs_ctx(pd->context);
	lo = a & ~(uint64_t)(mpd_page_size() - 1);
	hi = mpd_page_round(a + length);
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&ranges_lock);
	for (r = ranges; r; r = r->next)
		if (r->mrs && r->start <= lo && hi <= r->end)
			live = r;
	/* live ranges it overlaps in part: one range for them all */
	ulo = lo;
	uhi = hi;
	for (grew = !live; grew;) {
		grew = false;
		for (r = ranges; r; r = r->next) {
			if (!r->mrs || r->end <= ulo || uhi <= r->start ||
			    (r->start >= ulo && r->end <= uhi))
				continue;
			ulo = r->start < ulo ? r->start : ulo;
			uhi = r->end > uhi ? r->end : uhi;
			grew = true;
		}
	}
	merge = ulo != lo || uhi != hi;
	if (!merge)
		for (r = ranges; r && !live; r = r->next)
			merge = r->mrs && r->start < hi && lo < r->end;
	if (live) {
		n = read_segs(lo, hi, segs);
		rc = n < 0 ? -n : check_writable(segs, n, lo, hi, access);
		if (!rc)
			rc = reg(c, pd, a, length, access, live->map_id, 0, 0,
				 &rep, NULL);
		if (rc)
			goto fail;
		mr->range = live;
		goto done;
	}
	/* the MR's own pages among all that move, read once */
	n = read_segs(ulo, uhi, segs);
	rc = n < 0 ? -n : check_writable(segs, n, lo, hi, access);
	if (rc)
		goto fail;
	lo = ulo;
	hi = uhi;
	for (i = 0; i < n; i++) {
		if (!(segs[i].prot & PROT_READ)) {
			rc = EFAULT;
			goto fail;
		}
		if (segs[i].shared && !ours(segs[i].start, segs[i].end)) {
			rc = EINVAL;
			goto fail;
		}
	}
	nr = calloc(1, sizeof(*nr));
	if (!nr) {
		rc = ENOMEM;
		goto fail;
	}
	rc = reg(c, pd, a, length, access, MPD_V_NO_HANDLE, merge ? lo : 0,
		 merge ? hi : 0, &rep, &fd);
	if (rc)
		goto fail;
	rc = rep.map_len == hi - lo ? move_pages(fd, lo, hi, segs, n) : EPROTO;
	close(fd);
	if (rc) {
		mpd_v_destroy(c, MPD_V_DEREG_MR, rep.handle, NULL);
		goto fail;
	}
	nr->start = lo;
	nr->end = hi;
	nr->map_id = rep.map_id;
	/* the ranges inside (live ones merged, dead ones) become nr */
	for (pr = &ranges; (r = *pr);) {
		if (r->start < lo || r->end > hi) {
			pr = &r->next;
			continue;
		}
		while ((m2 = r->mrs)) {
			r->mrs = m2->next;
			m2->range = nr;
			m2->next = nr->mrs;
			nr->mrs = m2;
		}
		*pr = r->next;
		free(r);
	}
	nr->next = ranges;
	ranges = nr;
	mr->range = nr;
done:
	mr->next = mr->range->mrs;
	mr->range->mrs = mr;
	pthread_mutex_unlock(&ranges_lock);
	mr->mr.context = pd->context;
	mr->mr.pd = pd;
	mr->mr.addr = addr;
	mr->mr.length = length;
	mr->mr.handle = rep.handle;
	mr->mr.lkey = rep.lkey;
	mr->mr.rkey = rep.rkey;
	return &mr->mr;
fail:
	pthread_mutex_unlock(&ranges_lock);
	free(nr);
	free(mr);
	errno = rc;
	return NULL;
}

VERBS_EXPORT struct ibv_mr *
(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg_mr(pd, addr, length, (unsigned int)access);
}

/* The MR's iova is its address: the daemon knows no other */
VERBS_EXPORT struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		 unsigned int access)
{
	if (iova != (uintptr_t)addr) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return reg_mr(pd, addr, length, access);
}

VERBS_EXPORT struct ibv_mr *
(ibv_reg_mr_iova)(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		  int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

/* ranges_lock held: a range its last MR left becomes the process's own
 * pages again; one that cannot (no memory for the copy) stays a memfd's,
 * as before, and is kept for registrations to come */
static void
range_release(struct mpd_v_range *r)
{
	struct seg segs[MAX_SEGS];
	struct mpd_v_range **pr;
	int n;

	if (r->mrs)
		return;
	n = read_segs(r->start, r->end, segs);
	if (n < 0 || move_pages(-1, r->start, r->end, segs, n) != 0)
		return;
	for (pr = &ranges; *pr; pr = &(*pr)->next)
		if (*pr == r) {
			*pr = r->next;
			break;
		}
	free(r);
}

VERBS_EXPORT int
ibv_dereg_mr(struct ibv_mr *ibmr)
{
	struct mpd_v_mr *mr = (struct mpd_v_mr *)ibmr, **pp;
	struct mpd_verbs_ctx *c;
	int rc;

	if (!ibmr)
		return EINVAL;
	c = mpd_verbs_ctx(ibmr->context);
	pthread_mutex_lock(&ranges_lock);
	rc = mpd_v_destroy(c, MPD_V_DEREG_MR, ibmr->handle, NULL);
	if (!rc) {
		for (pp = &mr->range->mrs; *pp; pp = &(*pp)->next)
			if (*pp == mr) {
				*pp = mr->next;
				break;
			}
		range_release(mr->range);
	}
	pthread_mutex_unlock(&ranges_lock);
	if (rc)
		return rc;
	free(mr);
	return 0;
}

/* A context closes: its MRs (the application's leak, freed by the
 * daemon) leave the ranges, and those left without one are the
 * process's own pages again */
void
mpd_v_ranges_free(struct mpd_verbs_ctx *c)
{
	struct mpd_v_range *r, *next;
	struct mpd_v_mr **pp, *mr;

	pthread_mutex_lock(&ranges_lock);
	for (r = ranges; r; r = next) {
		next = r->next;
		for (pp = &r->mrs; (mr = *pp);) {
			if (mr->mr.context != &c->vctx.context) {
				pp = &mr->next;
				continue;
			}
			*pp = mr->next;
			free(mr);
		}
		range_release(r);
	}
	pthread_mutex_unlock(&ranges_lock);
}
