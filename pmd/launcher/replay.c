/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A capture replayed into a port (docs/replay.md). The file is read one
 * packet ahead: the packet due next waits in the reader's buffer until its
 * time comes, so memory stays at one block whatever the file's size.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_mbuf.h>

#include "madpmd/pcapng.h"
#include "madpmd/pcapread.h"
#include "replay.h"

enum skip {
	SKIP_LINK,		/* framing of the other link kind */
	SKIP_RECORD,		/* madpmd records */
	SKIP_FILTER,		/* from= / dir= */
	SKIP_OTHER,		/* other link types, other exported PDUs */
	SKIP_MALFORMED,		/* link-layer header or TLVs do not fit */
	SKIP_CUT,		/* cut short by the capture's snap length */
	SKIP_LARGE,		/* does not fit an mbuf */
	SKIP_MAX,
};

static const char *const skip_name[SKIP_MAX] = {
	[SKIP_LINK] = "of the other link kind",
	[SKIP_RECORD] = "records",
	[SKIP_FILTER] = "filtered out",
	[SKIP_OTHER] = "not a frame",
	[SKIP_MALFORMED] = "malformed",
	[SKIP_CUT] = "cut short in the capture",
	[SKIP_LARGE] = "too large for an mbuf",
};

struct fab_replay {
	char *file;
	enum mpd_link link;
	double speed;		/* 0: fast; else timed, this many times faster */
	char *from;		/* if_name, or NULL */
	uint32_t dir;		/* MPD_PCAPNG_DIR_*; UNKNOWN: any */
	uint32_t loops;		/* 0: forever */
	uint32_t loops_done;
	bool after_active;	/* hold until the port is Active */
	bool keep_cable;	/* inject beside the cable's traffic */
	double after_s;		/* hold this long after the first call */
	uint64_t start_ns;	/* when the first call came; 0: not yet */
	struct mpd_pcap_reader *rd;
	/* the frame due next, pointing into the reader or conv */
	bool pending;
	const uint8_t *frame;
	uint32_t len;
	uint64_t ts;
	uint64_t pass_sent;	/* frames of the current pass */
	/* time base: the first frame of a pass goes at once */
	bool based;
	uint64_t base_now, base_ts;
	uint64_t sent;
	uint64_t skipped[SKIP_MAX];
	bool done;
	char *error;
	uint8_t *conv;		/* rebuilt frames (Linux cooked captures) */
	uint64_t size;		/* of a regular file; 0: a pipe, stdin */
	/* for fab_replay_progress() on another thread: the reader may be
	 * reopened meanwhile, so the lcore publishes what it shows */
	uint64_t pub_sent, pub_off;
	uint32_t pub_pass;
	/* the interfaces the capture has, for a from= that matches none */
	char if_seen[8][32];
	unsigned int n_if_seen;
	bool if_more;
};

#define CONV_LEN	(RTE_MBUF_DEFAULT_DATAROOM + 64)

static void
set_error(struct fab_replay *r, const char *msg)
{
	if (!r->error)
		r->error = strdup(msg);
	r->done = true;
}

static int
reopen(struct fab_replay *r)
{
	char err[384];

	mpd_pcapread_close(r->rd);
	r->rd = mpd_pcapread_open(r->file, err, sizeof(err));
	if (!r->rd) {
		set_error(r, err);
		return -1;
	}
	return 0;
}

/* "speed=..." and friends; -1 with a sentence on stderr. */
static int
parse_opt(struct fab_replay *r, const char *spec, char *kv)
{
	char *v = strchr(kv, '='), *end;
	double d;
	unsigned long n;

	*v++ = 0;
	if (!strcmp(kv, "cable")) {
		if (strcmp(v, "keep") && strcmp(v, "replace")) {
			fprintf(stderr, "madpmd: replay %s: cable=%s is not keep or replace\n",
				spec, v);
			return -1;
		}
		r->keep_cable = !strcmp(v, "keep");
		return 0;
	}
	if (!strcmp(kv, "after")) {
		if (!strcmp(v, "active")) {
			r->after_active = true;
			return 0;
		}
		errno = 0;
		d = strtod(v, &end);
		if (!*v || *end || errno || !(d >= 0 && d <= 86400)) {
			fprintf(stderr, "madpmd: replay %s: after=%s is not active or a number of seconds\n",
				spec, v);
			return -1;
		}
		r->after_s = d;
		return 0;
	}
	if (!strcmp(kv, "speed")) {
		if (!strcmp(v, "fast")) {
			r->speed = 0;
			return 0;
		}
		if (!strcmp(v, "timed")) {
			r->speed = 1;
			return 0;
		}
		errno = 0;
		d = strtod(v, &end);
		if (*v && !*end && !errno && isfinite(d) && d > 0) {
			r->speed = d;
			return 0;
		}
		fprintf(stderr, "madpmd: replay %s: speed=%s is not fast, timed or a factor above 0\n",
			spec, v);
		return -1;
	}
	if (!strcmp(kv, "from")) {
		free(r->from);
		r->from = strdup(v);
		if (!*v || !r->from) {
			fprintf(stderr, "madpmd: replay %s: from= needs an interface name, as the capture's if_name (e.g. hca2/1)\n",
				spec);
			return -1;
		}
		if (r->dir == UINT32_MAX)
			r->dir = MPD_PCAPNG_DIR_IN;
		return 0;
	}
	if (!strcmp(kv, "dir")) {
		if (!strcmp(v, "in")) {
			r->dir = MPD_PCAPNG_DIR_IN;
		} else if (!strcmp(v, "out")) {
			r->dir = MPD_PCAPNG_DIR_OUT;
		} else if (!strcmp(v, "any")) {
			r->dir = MPD_PCAPNG_DIR_UNKNOWN;
		} else {
			fprintf(stderr, "madpmd: replay %s: dir=%s is not in, out or any\n",
				spec, v);
			return -1;
		}
		return 0;
	}
	/* loop */
	errno = 0;
	n = strtoul(v, &end, 10);
	if (!*v || *end || errno || n > UINT32_MAX || *v == '-') {
		fprintf(stderr, "madpmd: replay %s: loop=%s is not a count (0: until the fabric stops)\n",
			spec, v);
		return -1;
	}
	r->loops = (uint32_t)n;
	return 0;
}

static bool
is_opt(const char *s)
{
	static const char *const keys[] = { "speed=", "from=", "dir=",
					    "loop=", "after=", "cable=" };
	unsigned int i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strncmp(s, keys[i], strlen(keys[i])))
			return true;
	return false;
}

/* "word=": where the options start, known or not */
static bool
looks_like_opt(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz_");

	return n > 0 && s[n] == '=';
}

struct fab_replay *
fab_replay_open(const char *spec, enum mpd_link link)
{
	struct fab_replay *r = calloc(1, sizeof(*r));
	char *s = spec ? strdup(spec) : NULL, *p, *c, err[384];
	struct stat st;

	if (!r || !s) {
		fprintf(stderr, "madpmd: replay %s: out of memory\n",
			spec ? spec : "");
		goto fail;
	}
	r->link = link;
	r->loops = 1;
	r->dir = UINT32_MAX;	/* not given */
	/* the file name ends at the first ",key=": names may hold commas */
	for (p = s; (c = strchr(p, ',')) && !looks_like_opt(c + 1);
	     p = c + 1)
		;
	if (c) {
		*c++ = 0;
		while (c) {
			char *kv = c;

			c = strchr(c, ',');
			if (c)
				*c++ = 0;
			if (!is_opt(kv)) {
				fprintf(stderr, "madpmd: replay %s: unknown option \"%s\" (speed=, from=, dir=, loop=, after=, cable=)\n",
					spec, kv);
				goto fail;
			}
			if (parse_opt(r, spec, kv) < 0)
				goto fail;
		}
	}
	if (r->dir == UINT32_MAX)
		r->dir = MPD_PCAPNG_DIR_UNKNOWN;
	if (!*s) {
		fprintf(stderr, "madpmd: replay %s: no capture file named\n",
			spec);
		goto fail;
	}
	if (!strcmp(s, "-") && r->loops != 1) {
		fprintf(stderr, "madpmd: replay %s: standard input plays once; loop= needs a file\n",
			spec);
		goto fail;
	}
	r->file = s;
	s = NULL;
	r->conv = malloc(CONV_LEN);
	if (!r->conv) {
		fprintf(stderr, "madpmd: replay %s: out of memory\n", spec);
		goto fail;
	}
	r->rd = mpd_pcapread_open(r->file, err, sizeof(err));
	if (!r->rd) {
		fprintf(stderr, "madpmd: replay: %s\n", err);
		goto fail;
	}
	if (strcmp(r->file, "-") != 0 && stat(r->file, &st) == 0 &&
	    S_ISREG(st.st_mode))
		r->size = (uint64_t)st.st_size;
	return r;

fail:
	free(s);
	fab_replay_close(r);
	return NULL;
}

/* An interface name seen in the capture, kept to list when from= matches
 * nothing. */
static void
note_if(struct fab_replay *r, const char *name)
{
	unsigned int i;

	if (!name)
		return;
	for (i = 0; i < r->n_if_seen; i++)
		if (!strcmp(r->if_seen[i], name))
			return;
	if (r->n_if_seen == RTE_DIM(r->if_seen)) {
		r->if_more = true;
		return;
	}
	snprintf(r->if_seen[r->n_if_seen++], sizeof(r->if_seen[0]), "%s",
		 name);
}

static bool
wanted(struct fab_replay *r, const struct mpd_pcap_pkt *p)
{
	if (r->from && (!p->if_name || strcmp(p->if_name, r->from))) {
		if (!r->sent)
			note_if(r, p->if_name);
		return false;
	}
	return r->dir == MPD_PCAPNG_DIR_UNKNOWN || p->direction == r->dir;
}

/* The end of a pass: again, or done. */
static bool
pass_over(struct fab_replay *r)
{
	const char *e = mpd_pcapread_error(r->rd);

	if (e) {
		set_error(r, e);	/* cut short or damaged: stop there */
		return false;
	}
	r->loops_done++;
	/* a pass that sent nothing would send nothing again */
	if ((r->loops && r->loops_done >= r->loops) || !r->pass_sent) {
		r->done = true;
		return false;
	}
	r->pass_sent = 0;
	r->based = false;	/* the next pass starts at once */
	return reopen(r) == 0;
}

/* Read up to the next frame for this port; false at the end. */
static bool
next_frame(struct fab_replay *r)
{
	struct mpd_pcap_pkt p;
	enum mpd_frame_kind k;
	bool eth = r->link != MPD_LINK_IB;
	int rc;

	while (!r->done) {
		rc = mpd_pcapread_next(r->rd, &p);
		if (rc < 0) {
			set_error(r, mpd_pcapread_error(r->rd));
			return false;
		}
		if (rc == 0) {
			if (!pass_over(r))
				return false;
			continue;
		}
		if (!wanted(r, &p)) {
			r->skipped[SKIP_FILTER]++;
			continue;
		}
		k = mpd_pcap_frame(&p, r->conv, CONV_LEN, &r->frame, &r->len);
		if (k == MPD_FRAME_MALFORMED &&
		    (p.linktype == MPD_LINKTYPE_LINUX_SLL ||
		     p.linktype == MPD_LINKTYPE_LINUX_SLL2) &&
		    p.caplen > CONV_LEN) {
			r->skipped[SKIP_LARGE]++;	/* did not fit conv */
			continue;
		}
		switch (k) {
		case MPD_FRAME_RECORD:
			r->skipped[SKIP_RECORD]++;
			continue;
		case MPD_FRAME_NONE:
			r->skipped[SKIP_OTHER]++;
			continue;
		case MPD_FRAME_MALFORMED:
			r->skipped[SKIP_MALFORMED]++;
			continue;
		case MPD_FRAME_ETH:
		case MPD_FRAME_IB:
			break;
		}
		if ((k == MPD_FRAME_ETH) != eth) {
			r->skipped[SKIP_LINK]++;
			continue;
		}
		if (p.caplen < p.origlen) {
			r->skipped[SKIP_CUT]++;
			continue;
		}
		if (r->len > RTE_MBUF_DEFAULT_DATAROOM) {
			r->skipped[SKIP_LARGE]++;
			continue;
		}
		r->ts = p.ts_ns;
		r->pending = true;
		return true;
	}
	return false;
}

static bool
due(struct fab_replay *r, uint64_t now_ns)
{
	uint64_t gap, elapsed;

	if (r->speed == 0)
		return true;
	if (!r->based) {
		r->based = true;
		r->base_now = now_ns;
		r->base_ts = r->ts;
		return true;
	}
	/* a capture's clock may step back: such a frame is late, send it */
	gap = r->ts > r->base_ts ? r->ts - r->base_ts : 0;
	elapsed = now_ns > r->base_now ? now_ns - r->base_now : 0;
	return (double)gap <= (double)elapsed * r->speed;
}

uint16_t
fab_replay_burst(struct fab_replay *r, uint64_t now_ns,
		 struct rte_mempool *mp, struct rte_mbuf **m, uint16_t n)
{
	struct rte_mbuf *mb;
	uint16_t k = 0;
	char *d;

	if (!r->start_ns)
		r->start_ns = now_ns ? now_ns : 1;
	if ((double)(now_ns - r->start_ns) < r->after_s * 1e9)
		return 0;
	while (k < n && !r->done) {
		if (!r->pending && !next_frame(r))
			break;
		if (!due(r, now_ns))
			break;
		mb = rte_pktmbuf_alloc(mp);
		if (!mb)
			break;	/* the pool is dry: this frame goes next time */
		d = rte_pktmbuf_append(mb, (uint16_t)r->len);
		if (!d) {
			/* a pool with less room than the default */
			rte_pktmbuf_free(mb);
			r->skipped[SKIP_LARGE]++;
			r->pending = false;
			continue;
		}
		memcpy(d, r->frame, r->len);
		m[k++] = mb;
		r->pending = false;
		r->sent++;
		r->pass_sent++;
	}
	/* look ahead, so that done() turns true with the last frame */
	if (!r->pending && !r->done)
		next_frame(r);
	__atomic_store_n(&r->pub_sent, r->sent, __ATOMIC_RELAXED);
	__atomic_store_n(&r->pub_off, mpd_pcapread_offset(r->rd),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&r->pub_pass, r->loops_done + 1, __ATOMIC_RELAXED);
	return k;
}

bool
fab_replay_waits_active(const struct fab_replay *r)
{
	return r->after_active;
}

bool
fab_replay_keeps_cable(const struct fab_replay *r)
{
	return r->keep_cable;
}

bool
fab_replay_done(const struct fab_replay *r)
{
	return r->done;
}

/* A from= that took no frame, and filtered some out. */
static bool
from_matched_nothing(const struct fab_replay *r)
{
	return r->from && !r->sent && r->skipped[SKIP_FILTER];
}

bool
fab_replay_failed(const struct fab_replay *r)
{
	/* a from= that matched no frame did not do what was asked either */
	return r->error != NULL || (r->done && from_matched_nothing(r));
}

void
fab_replay_summary(const struct fab_replay *r, FILE *out)
{
	uint64_t total = 0;
	unsigned int i;
	const char *sep = "";

	for (i = 0; i < SKIP_MAX; i++)
		total += r->skipped[i];
	fprintf(out, "replay of %s: %llu frames sent, %llu skipped",
		r->file, (unsigned long long)r->sent,
		(unsigned long long)total);
	if (total) {
		fputs(" (", out);
		for (i = 0; i < SKIP_MAX; i++) {
			if (!r->skipped[i])
				continue;
			fprintf(out, "%s%llu %s", sep,
				(unsigned long long)r->skipped[i],
				skip_name[i]);
			sep = ", ";
		}
		fputc(')', out);
	}
	if (r->loops > 1)
		fprintf(out, ", %u of %u passes", r->loops_done, r->loops);
	else if (!r->loops)
		fprintf(out, ", %u passes", r->loops_done);
	if (r->error)
		fprintf(out, "; stopped: %s", r->error);
	else if (!r->done)
		fputs("; not finished", out);
	/* a from= that took nothing: what it could have named */
	if (from_matched_nothing(r)) {
		fprintf(out, "; from=%s matches no frame: the capture's interfaces are ",
			r->from);
		for (i = 0; i < r->n_if_seen; i++)
			fprintf(out, "%s%s", i ? ", " : "", r->if_seen[i]);
		if (!r->n_if_seen)
			fputs("unnamed (no if_name)", out);
		if (r->if_more)
			fputs(", ...", out);
	}
	fputc('\n', out);
}

void
fab_replay_progress(const struct fab_replay *r, double seconds, FILE *out)
{
	uint64_t sent = __atomic_load_n(&r->pub_sent, __ATOMIC_RELAXED);
	uint64_t off = __atomic_load_n(&r->pub_off, __ATOMIC_RELAXED);
	uint32_t pass = __atomic_load_n(&r->pub_pass, __ATOMIC_RELAXED);

	fprintf(out, "replay of %s: %llu frames sent", r->file,
		(unsigned long long)sent);
	if (!sent && !pass) {
		fprintf(out, ", %s after %.0f s\n",
			r->after_active ? "waiting for the port to be Active" :
					  "not started",
			seconds);
		return;
	}
	if (r->size)
		fprintf(out, ", %u%% of the file",
			(unsigned int)(off >= r->size ? 100 :
				       off * 100 / r->size));
	if (r->loops && pass > r->loops)
		pass = r->loops;	/* the last pass ended */
	if (r->loops > 1)
		fprintf(out, ", pass %u of %u", pass, r->loops);
	else if (!r->loops)
		fprintf(out, ", pass %u", pass);
	fprintf(out, ", %.0f s\n", seconds);
}

void
fab_replay_close(struct fab_replay *r)
{
	if (!r)
		return;
	mpd_pcapread_close(r->rd);
	free(r->conv);
	free(r->from);
	free(r->file);
	free(r->error);
	free(r);
}
