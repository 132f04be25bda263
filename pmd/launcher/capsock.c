/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture socket, <run_dir>/capture (docs/extcap.md): a client sends
 * one line, "CAPTURE [ports=NODE:PORT,...] [kinds=wire,umad,port,wc,cm]
 * [ib=infiniband|madpmd_ib]",
 * and reads a pcapng stream of the fabric while it runs, or one line
 * "ERR <sentence>" for a request we cannot serve. madpmd-extcap is such a
 * client. This thread only accepts and sets a capture up, for many clients
 * at once: each has REQ_TIMEOUT_S in all to send its line (a client that
 * trickles bytes holds up nobody); the polling lcore writes to the
 * capture, and cuts it off if it does not keep up.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "capsock.h"
#include "madpmd/clock.h"
#include "madpmd/pcapng.h"

#define REQ_MAX		1024
#define REQ_TIMEOUT_MS	2000		/* to send the whole request line */
#define PENDING_MAX	16		/* clients still sending theirs */
#define SNDBUF		(4 << 20)	/* slack for a reader that lags */

static struct {
	struct fabric *f;
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	pthread_t thread;
	volatile bool stop;
	bool running;
} cs = { .fd = -1 };

static void __attribute__((format(printf, 2, 3)))
reply_err(int fd, const char *fmt, ...)
{
	va_list ap;
	char line[REQ_MAX + 128];
	int n = snprintf(line, sizeof(line), "ERR ");

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n < (int)sizeof(line) - 1) {
		line[n++] = '\n';
		(void)!send(fd, line, (size_t)n, MSG_NOSIGNAL);
	}
}

/* "ports=a:1,b:1" into sel[]; NULL, or the port spec we do not know */
static const char *
parse_ports(const struct fabric *f, char *list, bool *sel)
{
	char *save = NULL, *p;

	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		int i = fab_find(f, p);

		if (i < 0 || !f->port[i].hca)
			return p;
		sel[i] = true;
	}
	return NULL;
}

/* A client still sending its request line */
struct pending {
	int fd;
	size_t n;
	uint64_t deadline;		/* ms */
	char buf[REQ_MAX];
};

/* Read what the client sent: 1 with the line in buf, 0 for more to come,
 * -1 when it closed, failed or sent more than a line holds. */
static int
read_more(struct pending *c)
{
	ssize_t r = recv(c->fd, c->buf + c->n, sizeof(c->buf) - 1 - c->n,
			 MSG_DONTWAIT);
	char *nl;

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (r <= 0)
		return -1;
	c->n += (size_t)r;
	c->buf[c->n] = '\0';
	nl = strchr(c->buf, '\n');
	if (!nl)
		return c->n < sizeof(c->buf) - 1 ? 0 : -1;
	*nl = '\0';
	if (nl > c->buf && nl[-1] == '\r')
		nl[-1] = '\0';
	return 1;
}

static void
serve(int fd, char *req)
{
	static bool sel[FAB_MAX_PORTS];
	uint32_t kinds = FAB_CAP_ALL;
	const char *ib = NULL;
	bool some_port = false;
	char what[96], *save = NULL, *tok;
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	struct mpd_pcapng *w;
	struct fab_sink *s;
	int sndbuf = SNDBUF, fl;

	/* what we echo back in an ERR line is printable */
	for (tok = req; *tok; tok++)
		if ((unsigned char)*tok < 0x20 && *tok != '\t')
			*tok = '?';
		else if ((unsigned char)*tok >= 0x7f)
			*tok = '?';
	memset(sel, 0, sizeof(sel));
	tok = strtok_r(req, " \t", &save);
	if (!tok || strcmp(tok, "CAPTURE") != 0) {
		reply_err(fd, "unknown request \"%s\": send CAPTURE [ports=NODE:PORT,...] [kinds=wire,umad,port,wc,cm]",
			  tok ? tok : "");
		goto out;
	}
	while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
		if (strncmp(tok, "ports=", 6) == 0) {
			const char *bad = parse_ports(cs.f, tok + 6, sel);

			if (bad) {
				reply_err(fd, "no HCA port \"%s\" in the fabric (see the run directory's ports file)",
					  bad);
				goto out;
			}
			some_port = true;
		} else if (strncmp(tok, "ib=", 3) == 0) {
			if (strcmp(tok + 3, "infiniband") &&
			    strcmp(tok + 3, "madpmd_ib")) {
				reply_err(fd, "ib=%s: give infiniband (the stock dissector) or madpmd_ib (the plugin's)",
					  tok + 3);
				goto out;
			}
			ib = !strcmp(tok + 3, "madpmd_ib") ? "madpmd_ib"
							   : "infiniband";
		} else if (strncmp(tok, "kinds=", 6) == 0) {
			if (fab_cap_kinds_parse(tok + 6, &kinds)) {
				reply_err(fd, "kinds=%s: give a list of wire, umad, port, wc, cm",
					  tok + 6);
				goto out;
			}
		} else {
			reply_err(fd, "unknown argument \"%s\": give ports=, kinds= or ib=",
				  tok);
			goto out;
		}
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0)
		snprintf(what, sizeof(what), "capture client pid %d",
			 (int)cred.pid);
	else
		snprintf(what, sizeof(what), "a capture client");
	w = mpd_pcapng_fdopen(fd);
	if (!w) {
		reply_err(fd, "cannot start the capture: %s", strerror(errno));
		goto out;
	}
	s = fab_sink_new(cs.f, w, kinds, some_port ? sel : NULL, what);
	if (!s) {
		mpd_pcapng_close(w);
		return;
	}
	s->live = true;
	if (ib)
		s->ib_dissector = ib;
	/* headers out at once; from now on a full socket means "too slow" */
	if (mpd_pcapng_flush(w) != 0) {
		fab_sink_free(s);
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fab_sink_attach(cs.f, s) != 0) {
		fprintf(stderr, "madpmd: %s refused: %d captures already run\n",
			what, FAB_MAX_SINKS);
		fab_sink_free(s);
		return;
	}
	fprintf(stderr, "madpmd: %s: capturing\n", what);
	return;
out:
	close(fd);
}

static void
drop_pending(struct pending *c, int *n, int i, const char *why)
{
	if (why)
		reply_err(c[i].fd, "%s", why);
	close(c[i].fd);
	c[i] = c[--*n];
}

static void
accept_one(struct pending *c, int *n)
{
	int fd = accept4(cs.fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	/* the longest waiting gives way to the newcomer */
	if (*n == PENDING_MAX)
		drop_pending(c, n, 0, "too many capture clients sending their request at once");
	c[*n].fd = fd;
	c[*n].n = 0;
	c[*n].deadline = mpd_mono_ms() + REQ_TIMEOUT_MS;
	(*n)++;
}

static void *
accept_loop(void *arg)
{
	static struct pending c[PENDING_MAX];
	struct pollfd p[PENDING_MAX + 1];
	int n = 0, i;

	(void)arg;
	while (!cs.stop) {
		uint64_t now;

		p[0].fd = cs.fd;
		p[0].events = POLLIN;
		for (i = 0; i < n; i++) {
			p[i + 1].fd = c[i].fd;
			p[i + 1].events = POLLIN;
			p[i + 1].revents = 0;
		}
		if (poll(p, (nfds_t)n + 1, 100) < 0)
			continue;
		now = mpd_mono_ms();
		/* from the end: dropping one moves the last into its place */
		for (i = n - 1; i >= 0; i--) {
			int rc = p[i + 1].revents ? read_more(&c[i]) : 0;

			if (rc > 0) {
				int fd = c[i].fd;

				c[i].fd = -1;
				serve(fd, c[i].buf);
				c[i] = c[--n];
			} else if (rc < 0) {
				drop_pending(c, &n, i, "send one line: CAPTURE [ports=NODE:PORT,...] [kinds=wire,umad,port,wc,cm]");
			} else if (now >= c[i].deadline) {
				drop_pending(c, &n, i, "the request line took too long: send it at once");
			}
		}
		if (p[0].revents & POLLIN)
			accept_one(c, &n);
	}
	while (n > 0)
		drop_pending(c, &n, n - 1, NULL);
	return NULL;
}

int
capsock_start(struct fabric *f, const char *run_dir, unsigned int mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (snprintf(cs.path, sizeof(cs.path), "%s/capture", run_dir) >=
	    (int)sizeof(cs.path)) {
		fprintf(stderr, "madpmd: run directory %s: too long for a socket path\n",
			run_dir);
		return -1;
	}
	cs.f = f;
	cs.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (cs.fd < 0)
		goto fail;
	memcpy(sa.sun_path, cs.path, strlen(cs.path) + 1);
	unlink(cs.path);
	if (bind(cs.fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(cs.path, mode) < 0 || listen(cs.fd, 8) < 0)
		goto fail;
	if (pthread_create(&cs.thread, NULL, accept_loop, NULL) != 0) {
		errno = EAGAIN;
		goto fail;
	}
	pthread_setname_np(cs.thread, "madpmd-capture");
	cs.running = true;
	return 0;
fail:
	fprintf(stderr, "madpmd: cannot serve captures at %s: %s\n", cs.path,
		strerror(errno));
	if (cs.fd >= 0)
		close(cs.fd);
	cs.fd = -1;
	unlink(cs.path);
	return -1;
}

void
capsock_stop(void)
{
	if (!cs.running)
		return;
	cs.stop = true;
	pthread_join(cs.thread, NULL);
	close(cs.fd);
	unlink(cs.path);
	cs.fd = -1;
	cs.running = false;
}
