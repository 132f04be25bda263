/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd-extcap: live capture from a running madpmd fabric, as a Wireshark
 * extcap (see docs/extcap.md).
 *
 *   madpmd-extcap --extcap-interfaces [--extcap-version=X]
 *   madpmd-extcap --extcap-interface IF --extcap-dlts
 *   madpmd-extcap --extcap-interface IF --extcap-config
 *   madpmd-extcap --extcap-interface IF --extcap-capture-filter F
 *   madpmd-extcap --capture --extcap-interface IF --fifo PATH
 *                 [--extcap-capture-filter F] [--run-dir DIR] [--kinds K,...]
 *
 * The fabric serves captures on <run dir>/capture: one request line
 * "CAPTURE [ports=N:P,...] [kinds=K,...]\n", answered by a growing pcapng
 * stream or by one "ERR <sentence>\n" line. We copy the stream to the fifo
 * byte for byte; the daemon writes whole pcapng, so nothing is parsed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "madpmd/chan.h"
#include "madpmd/run_dir.h"

#ifndef EXTCAP_VERSION
#define EXTCAP_VERSION		"0"
#endif
#ifndef EXTCAP_HELP
#define EXTCAP_HELP		"https://www.wireshark.org/docs/man-pages/extcap.html"
#endif

#define PROG			"madpmd-extcap"
#define IF_PREFIX		"madpmd-"
#define IF_ALL			"madpmd-all"
#define CAPTURE_SOCK		"capture"	/* in the run directory */
#define REQUEST_MAX		1023		/* bytes, with the newline */
#define ANSWER_TIMEOUT_MS	10000
#define COPY_BUF		65536

static const char *const kind_names[] = { "wire", "umad", "port", "wc", "cm" };
#define NKINDS			(sizeof(kind_names) / sizeof(kind_names[0]))
#define ALL_KINDS		((1u << NKINDS) - 1)

static const char *const kind_display[] = {
	"Wire packets",
	"umad messages (as the API saw them)",
	"Port events",
	"CQ completions",
	"rdma_cm events",
};

enum mode {
	MODE_NONE,
	MODE_INTERFACES,
	MODE_DLTS,
	MODE_CONFIG,
	MODE_FILTER,
	MODE_CAPTURE,
};

struct opts {
	enum mode mode;
	bool capture;
	bool dlts;
	bool config;
	bool interfaces;
	bool debug;
	const char *iface;
	const char *fifo;
	const char *cfilter;
	const char *run_dir;
	const char *kinds;
	const char *debug_file;
};

/* A selection of ports: NODE:PORT strings, or none meaning every port. */
struct portset {
	char **name;
	size_t n;
};

static volatile sig_atomic_t stop_signal;
static FILE *dbg_out;

static void
on_signal(int sig)
{
	stop_signal = sig;
}

static void __attribute__((format(printf, 1, 2)))
err(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void __attribute__((format(printf, 1, 2)))
dbg(const char *fmt, ...)
{
	va_list ap;

	if (!dbg_out)
		return;
	fputs(PROG ": ", dbg_out);
	va_start(ap, fmt);
	vfprintf(dbg_out, fmt, ap);
	va_end(ap);
	fputc('\n', dbg_out);
	fflush(dbg_out);
}

static void
portset_free(struct portset *ps)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		free(ps->name[i]);
	free(ps->name);
	ps->name = NULL;
	ps->n = 0;
}

static bool
portset_has(const struct portset *ps, const char *name)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (strcmp(ps->name[i], name) == 0)
			return true;
	return false;
}

static int
portset_add(struct portset *ps, const char *name, size_t len)
{
	char **grown;
	char *s;

	s = strndup(name, len);
	if (!s)
		return -1;
	if (portset_has(ps, s)) {
		free(s);
		return 0;
	}
	grown = realloc(ps->name, (ps->n + 1) * sizeof(*grown));
	if (!grown) {
		free(s);
		return -1;
	}
	ps->name = grown;
	ps->name[ps->n++] = s;
	return 0;
}

static const char *
run_dir_default(void)
{
	static char dir[4096];

	return mpd_run_dir_find(dir, sizeof(dir));
}

/*
 * The fabric's ports from <run dir>/nodes ("NAME GUID NPORTS ..." per
 * node), as NODE:PORT in topology order. -1 if there is no such file.
 */
static int
read_fabric_ports(const char *run_dir, struct portset *ps)
{
	char path[PATH_MAX];
	char line[512];
	char name[256];
	unsigned int nports, p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", run_dir, MPD_CHAN_NODES);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char port[300];

		if (sscanf(line, "%255s %*s %u", name, &nports) != 2 ||
		    name[0] == '#' || nports == 0 || nports > 254)
			continue;
		for (p = 1; p <= nports; p++) {
			int len = snprintf(port, sizeof(port), "%s:%u", name, p);

			if (portset_add(ps, port, (size_t)len) != 0) {
				fclose(f);
				return -1;
			}
		}
	}
	fclose(f);
	return 0;
}

/* A fabric runs: its capture socket is there and its pid is alive. */
static bool
fabric_running(const char *run_dir)
{
	char path[PATH_MAX];
	struct stat st;
	FILE *f;
	int pid = 0;

	snprintf(path, sizeof(path), "%s/%s", run_dir, CAPTURE_SOCK);
	if (stat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
		return false;
	snprintf(path, sizeof(path), "%s/madpmd.pid", run_dir);
	f = fopen(path, "r");
	if (!f)
		return true;	/* a socket without a pid file: let it answer */
	if (fscanf(f, "%d", &pid) != 1)
		pid = 0;
	fclose(f);
	/* EPERM: alive, just not ours */
	return pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH;
}

/* "madpmd-hca1-1" -> "hca1:1", "madpmd-all" -> "" (every port). */
static int
iface_to_port(const char *iface, char *out, size_t size)
{
	const char *node, *dash;
	char *end;
	unsigned long p;

	if (strcmp(iface, IF_ALL) == 0) {
		out[0] = '\0';
		return 0;
	}
	if (strncmp(iface, IF_PREFIX, strlen(IF_PREFIX)) != 0)
		return -1;
	node = iface + strlen(IF_PREFIX);
	dash = strrchr(node, '-');
	if (!dash || dash == node || !dash[1])
		return -1;
	if (dash[1] < '1' || dash[1] > '9')
		return -1;
	p = strtoul(dash + 1, &end, 10);
	if (*end || p > 254)
		return -1;
	if ((size_t)snprintf(out, size, "%.*s:%lu", (int)(dash - node), node,
			     p) >= size)
		return -1;
	return 0;
}

static bool
iface_valid(const char *iface)
{
	char port[300];

	return iface_to_port(iface, port, sizeof(port)) == 0;
}

static int
kind_index(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		if (strlen(kind_names[i]) == len &&
		    strncmp(s, kind_names[i], len) == 0)
			return (int)i;
	return -1;
}

/* "wire,umad" -> a kind mask; on error a sentence in msg. */
static int
parse_kinds(const char *s, size_t len, unsigned int *mask, char *msg,
	    size_t msz)
{
	const char *end = s + len;

	*mask = 0;
	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		size_t n = comma ? (size_t)(comma - s) : (size_t)(end - s);
		int k = kind_index(s, n);

		if (k < 0) {
			snprintf(msg, msz, "unknown record kind \"%.*s\" (kinds: wire, umad, port, wc, cm)",
				 (int)n, s);
			return -1;
		}
		*mask |= 1u << k;
		s += n + (comma ? 1 : 0);
		if (comma && s == end)
			break;	/* a trailing comma */
	}
	if (!*mask) {
		snprintf(msg, msz, "no record kind given (kinds: wire, umad, port, wc, cm)");
		return -1;
	}
	return 0;
}

/* "hca1:1,hca2:1" -> ports: NODE:PORT, PORT 1..254 without leading 0s. */
static int
parse_ports(const char *s, size_t len, struct portset *ps, char *msg,
	    size_t msz)
{
	const char *end = s + len;

	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		size_t n = comma ? (size_t)(comma - s) : (size_t)(end - s);
		const char *colon = memchr(s, ':', n);
		size_t digits = colon ? n - (size_t)(colon - s) - 1 : 0;
		unsigned int p = 0;
		size_t i;

		for (i = 0; i < digits && i < 3; i++) {
			if (colon[1 + i] < '0' || colon[1 + i] > '9')
				break;
			p = p * 10 + (unsigned int)(colon[1 + i] - '0');
		}
		if (!colon || colon == s || i != digits || digits == 0 ||
		    colon[1] == '0' || p > 254) {
			snprintf(msg, msz, "bad port \"%.*s\": write NODE:PORT, e.g. hca1:1",
				 (int)n, s);
			return -1;
		}
		if (portset_add(ps, s, n) != 0) {
			snprintf(msg, msz, "out of memory");
			return -1;
		}
		s += n + (comma ? 1 : 0);
	}
	if (!ps->n) {
		snprintf(msg, msz, "no port given after ports=");
		return -1;
	}
	return 0;
}

/*
 * The capture filter: whitespace-separated "kinds=K[,K...]" and
 * "ports=NODE:PORT[,...]" terms, each at most once; empty means no limit.
 */
static int
parse_filter(const char *f, unsigned int *kinds, struct portset *ports,
	     char *msg, size_t msz)
{
	bool seen_kinds = false, seen_ports = false;

	*kinds = ALL_KINDS;
	while (*f) {
		size_t n;
		const char *eq;

		f += strspn(f, " \t\r\n");
		if (!*f)
			break;
		n = strcspn(f, " \t\r\n");
		eq = memchr(f, '=', n);
		if (eq && eq - f == 5 && strncmp(f, "kinds", 5) == 0) {
			if (seen_kinds) {
				snprintf(msg, msz, "kinds= given twice");
				return -1;
			}
			seen_kinds = true;
			if (parse_kinds(eq + 1, n - 6, kinds, msg, msz) != 0)
				return -1;
		} else if (eq && eq - f == 5 && strncmp(f, "ports", 5) == 0) {
			if (seen_ports) {
				snprintf(msg, msz, "ports= given twice");
				return -1;
			}
			seen_ports = true;
			if (parse_ports(eq + 1, n - 6, ports, msg, msz) != 0)
				return -1;
		} else {
			snprintf(msg, msz, "\"%.*s\" is not a madpmd capture filter term: write kinds=wire,umad,port,wc,cm and/or ports=NODE:PORT,...",
				 (int)n, f);
			return -1;
		}
		f += n;
	}
	return 0;
}

static void
print_interfaces(const char *run_dir)
{
	struct portset ps = { 0 };
	size_t i;

	printf("extcap {version=%s}{help=%s}\n", EXTCAP_VERSION, EXTCAP_HELP);
	/* no fabric is not an error (Wireshark asks at every start), but the
	 * interface list is where a Wireshark user looks: one entry says why
	 * and what to do (capturing on it fails with the same sentence) */
	if (!fabric_running(run_dir) || read_fabric_ports(run_dir, &ps) != 0 ||
	    ps.n == 0) {
		dbg("no fabric running in %s", run_dir);
		printf("interface {value=" IF_ALL "}{display=madpmd: no fabric running in %s (start one: madpmd -- -i, then madpmd-run opensm)}\n",
		       run_dir);
		portset_free(&ps);
		return;
	}
	for (i = 0; i < ps.n; i++) {
		char *colon = strrchr(ps.name[i], ':');

		printf("interface {value=" IF_PREFIX "%.*s-%s}{display=madpmd %.*s port %s}\n",
		       (int)(colon - ps.name[i]), ps.name[i], colon + 1,
		       (int)(colon - ps.name[i]), ps.name[i], colon + 1);
	}
	printf("interface {value=" IF_ALL "}{display=madpmd all ports}\n");
	portset_free(&ps);
}

static void
print_dlts(void)
{
	/* pcapng names each interface's link type; this is only a label */
	printf("dlt {number=252}{name=EXPORTED_PDU}{display=madpmd fabric (IB as exported PDU, RoCE as Ethernet, records)}\n");
}

static void
print_config(void)
{
	size_t i;

	/*
	 * Wireshark 4.0's GUI refuses to start a capture while a required
	 * argument holds its default ("Configure all extcaps before start of
	 * capture"): the run directory has a default, so it is not required.
	 * A saved multicheck starts from its saved preference, empty (every
	 * box unchecked) until the user saves one: the kinds are not saved,
	 * so the dialog shows the values' defaults, all checked.
	 */
	printf("arg {number=0}{call=--run-dir}{display=Run directory}{type=string}"
	       "{default=%s}{tooltip=The fabric's run directory (madpmd --run-dir)}"
	       "{required=false}{group=Fabric}\n", run_dir_default());
	printf("arg {number=1}{call=--kinds}{display=Capture}{type=multicheck}"
	       "{tooltip=What to capture: wire packets and the records of what the API saw}"
	       "{required=false}{save=false}{group=Fabric}\n");
	for (i = 0; i < NKINDS; i++)
		printf("value {arg=1}{value=%s}{display=%s}{enabled=true}{default=true}\n",
		       kind_names[i], kind_display[i]);
}

/* snprintf at *len, which stays at most size - 1: a long request is seen */
static void __attribute__((format(printf, 4, 5)))
append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *len)
		*len = size - 1;
	else
		*len += (size_t)n;
}

/* Ports and kinds from the interface, --kinds and the capture filter. */
static int
build_request(const struct opts *o, char *req, size_t size)
{
	char msg[512], port[300];
	struct portset fports = { 0 };
	unsigned int kinds = ALL_KINDS, fkinds;
	size_t i, len = 0;
	int rc = -1;

	if (iface_to_port(o->iface, port, sizeof(port)) != 0) {
		err("unknown interface %s: madpmd's interfaces are " IF_ALL
		    " and " IF_PREFIX "NODE-PORT (see --extcap-interfaces)",
		    o->iface);
		return -1;
	}
	if (o->kinds && *o->kinds &&
	    parse_kinds(o->kinds, strlen(o->kinds), &kinds, msg,
			sizeof(msg)) != 0) {
		err("--kinds: %s", msg);
		return -1;
	}
	if (o->cfilter &&
	    parse_filter(o->cfilter, &fkinds, &fports, msg, sizeof(msg)) != 0) {
		err("capture filter: %s", msg);
		goto out;
	}
	if (o->cfilter)
		kinds &= fkinds;
	if (!kinds) {
		err("the capture filter's kinds= and --kinds select no kind in common");
		goto out;
	}
	append(req, size, &len, "CAPTURE");
	if (port[0]) {
		/* one port's interface: a filter may only narrow it */
		if (fports.n && !portset_has(&fports, port)) {
			err("the capture filter's ports= leaves out %s, the port of interface %s",
			    port, o->iface);
			goto out;
		}
		append(req, size, &len, " ports=%s", port);
	} else {
		for (i = 0; i < fports.n; i++)
			append(req, size, &len, "%s%s", i ? "," : " ports=",
			       fports.name[i]);
	}
	/* all kinds: say nothing, so kinds added later come too */
	if (kinds != ALL_KINDS) {
		bool first = true;

		append(req, size, &len, " kinds=");
		for (i = 0; i < NKINDS; i++) {
			if (!(kinds & (1u << i)))
				continue;
			append(req, size, &len, "%s%s", first ? "" : ",",
			       kind_names[i]);
			first = false;
		}
	}
	/* room for the newline, within REQUEST_MAX */
	if (len + 1 > REQUEST_MAX || len + 2 > size) {
		err("the capture request is longer than %d bytes: select fewer ports",
		    REQUEST_MAX);
		goto out;
	}
	req[len++] = '\n';
	req[len] = '\0';
	rc = 0;
out:
	portset_free(&fports);
	return rc;
}

/* A port of a per-port interface that the fabric does not have. */
static int
check_port_known(const struct opts *o)
{
	struct portset ps = { 0 };
	char port[300];
	int rc = 0;

	if (iface_to_port(o->iface, port, sizeof(port)) != 0 || !port[0])
		return 0;
	if (read_fabric_ports(o->run_dir, &ps) == 0 && ps.n &&
	    !portset_has(&ps, port)) {
		err("the fabric in %s has no port %s (interface %s); restart Wireshark's interface list or see --extcap-interfaces",
		    o->run_dir, port, o->iface);
		rc = -1;
	}
	portset_free(&ps);
	return rc;
}

/* Is this process a member of group gid (primary or supplementary)? */
static bool
in_group(gid_t gid)
{
	gid_t groups[256];
	int i, n;

	if (getegid() == gid)
		return true;
	n = getgroups((int)(sizeof(groups) / sizeof(groups[0])), groups);
	for (i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/*
 * Why we may not connect to the capture socket at path, and the fix: the
 * socket's mode is madpmd's --umad-mode, its group the daemon's.
 */
static void
access_error(const char *path)
{
	struct passwd *pw;
	struct group *gr;
	struct stat st;
	char owner[64], group[64];
	unsigned int mode;

	if (stat(path, &st) != 0) {
		err("cannot connect to %s: %s; run Wireshark as the fabric's user, or start madpmd with --umad-mode 0666",
		    path, strerror(EACCES));
		return;
	}
	mode = st.st_mode & 0777;
	pw = getpwuid(st.st_uid);
	gr = getgrgid(st.st_gid);
	if (pw)
		snprintf(owner, sizeof(owner), "%s", pw->pw_name);
	else
		snprintf(owner, sizeof(owner), "uid %u", (unsigned int)st.st_uid);
	if (gr)
		snprintf(group, sizeof(group), "%s", gr->gr_name);
	else
		snprintf(group, sizeof(group), "gid %u", (unsigned int)st.st_gid);
	if ((mode & 0060) == 0060 && !in_group(st.st_gid))
		err("you may not open madpmd's capture socket %s (mode %04o, owner %s, group %s): join the group %s (e.g. sudo usermod -aG %s $USER, then log in again), or restart madpmd with --umad-mode 0666",
		    path, mode, owner, group, group, group);
	else if (in_group(st.st_gid))
		err("you may not open madpmd's capture socket %s (mode %04o, owner %s, group %s): restart madpmd with --umad-mode 0660 (its group %s, which you are in) or 0666, or run Wireshark as %s",
		    path, mode, owner, group, group, owner);
	else if (st.st_gid == 0)	/* joining root's group is no fix */
		err("you may not open madpmd's capture socket %s (mode %04o, owner %s): restart madpmd with --umad-mode 0666 (any user), or run Wireshark as %s",
		    path, mode, owner, owner);
	else
		err("you may not open madpmd's capture socket %s (mode %04o, owner %s): restart madpmd with --umad-mode 0666 (any user) or 0660 (then join its group %s), or run Wireshark as %s",
		    path, mode, owner, group, owner);
}

static int
connect_fabric(const char *run_dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s",
			     run_dir, CAPTURE_SOCK) >= sizeof(sa.sun_path)) {
		err("the run directory %s is too long for a socket path",
		    run_dir);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err("socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int e = errno;

		close(fd);
		if (e == ENOENT || e == ECONNREFUSED)
			err("no madpmd fabric runs in %s (no one listens on %s): start madpmd, or give --run-dir",
			    run_dir, sa.sun_path);
		else if (e == EACCES || e == EPERM)
			access_error(sa.sun_path);
		else
			err("cannot connect to %s: %s", sa.sun_path,
			    strerror(e));
		return -1;
	}
	return fd;
}

static int
write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static long
ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Wait for fd to be ready for events (or its peer to go), at most
 * timeout_ms (-1: forever); the stop signals get through only here.
 * 1 ready, 0 timed out, -1 stopped by a signal.
 */
static int
wait_fd(int fd, short events, int timeout_ms, const sigset_t *unblocked)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	struct timespec ts, *tsp = NULL;
	int n;

	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (timeout_ms % 1000) * 1000000L;
		tsp = &ts;
	}
	for (;;) {
		if (stop_signal)
			return -1;
		n = ppoll(&pfd, 1, tsp, unblocked);
		if (n < 0 && errno == EINTR)
			continue;
		return n > 0 ? 1 : n == 0 ? 0 : -1;
	}
}

/*
 * The daemon's answer: the first 4 bytes of a pcapng stream (into head),
 * or an "ERR" line. 0 with the stream started, -1 refused or failed,
 * 1 stopped by a signal.
 */
static int
read_answer(int sock, unsigned char *head, const sigset_t *unblocked)
{
	static const unsigned char shb[4] = { 0x0a, 0x0d, 0x0d, 0x0a };
	char line[1025];
	struct timespec t0;
	size_t got = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < sizeof(line) - 1) {
		long left = ANSWER_TIMEOUT_MS - ms_since(&t0);
		ssize_t n;
		int w;

		w = wait_fd(sock, POLLIN, left > 0 ? (int)left : 0, unblocked);
		if (w < 0)
			return stop_signal ? 1 : -1;
		if (w == 0) {
			err("madpmd did not answer the capture request within %d s",
			    ANSWER_TIMEOUT_MS / 1000);
			return -1;
		}
		n = read(sock, line + got,
			 got < 4 ? 4 - got : sizeof(line) - 1 - got);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			err("reading madpmd's answer: %s", strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got == 4 && memcmp(line, shb, 4) == 0) {
			memcpy(head, shb, 4);
			return 0;
		}
		if (got >= 4 && memcmp(line, "ERR ", 4) != 0)
			break;
		if (memchr(line, '\n', got))
			break;
	}
	line[got] = '\0';
	if (got > 4 && memcmp(line, "ERR ", 4) == 0) {
		line[strcspn(line, "\r\n")] = '\0';
		err("madpmd refused the capture: %s", line + 4);
	} else if (got == 0) {
		err("madpmd closed the capture connection without answering");
	} else {
		err("madpmd's answer is neither a pcapng stream nor an ERR line");
	}
	return -1;
}

/*
 * Where the stream goes: Wireshark's fifo (opened once its reader is
 * there, without blocking, so that a stop meanwhile gets through), a file,
 * or "-". -1 on error, -2 stopped by a signal.
 */
static int
open_output(const char *path, int sock, const sigset_t *unblocked)
{
	int fd, w;

	if (strcmp(path, "-") == 0) {
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			err("standard output: %s", strerror(errno));
		return fd;
	}
	for (;;) {
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CREAT | O_CLOEXEC,
			  0644);
		if (fd >= 0 || errno != ENXIO)
			break;
		/* ENXIO: a fifo with no reader yet; the fabric may stop meanwhile */
		w = wait_fd(sock, POLLRDHUP, 50, unblocked);
		if (w < 0)
			return -2;
		if (w > 0) {
			err("madpmd ended the capture before its reader opened %s",
			    path);
			return -1;
		}
	}
	if (fd < 0)
		err("cannot open %s: %s", path, strerror(errno));
	return fd;
}

/*
 * A capture that fails before its stream starts: Wireshark's dumpcap has
 * the fifo open for reading and waits for a writer, for ever (a fifo that
 * never had one shows no end of file), so our error would reach the GUI
 * only when the user stops the capture, behind dumpcap's "Interrupted
 * system call". Opening and closing the fifo gives dumpcap its end of
 * file at once: the capture ends, and Wireshark shows what we wrote on
 * standard error. Only an existing fifo, whose reader may come a little
 * after us; never a file we would create.
 */
static void
release_reader(const char *path)
{
	struct stat st;
	int fd, i;

	if (!path || stat(path, &st) != 0 || !S_ISFIFO(st.st_mode))
		return;
	for (i = 0; i < 100; i++) {	/* 5 s for dumpcap to open it */
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			dbg("closed %s so that its reader sees the error", path);
			close(fd);
			return;
		}
		if (errno != ENXIO || stop_signal)
			return;
		usleep(50000);
	}
}

/* Stream from the daemon to out until EOF, a stop signal or the reader goes. */
static int
copy_stream(int sock, int out, const unsigned char *head,
	    const sigset_t *unblocked)
{
	static char buf[COPY_BUF];
	size_t len = 4, off = 0;
	unsigned long long total = 0;
	bool eof = false;

	memcpy(buf, head, 4);
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = out, .events = len ? POLLOUT : 0 },
			{ .fd = sock, .events = POLLIN },
		};
		ssize_t n;

		if (stop_signal) {
			dbg("stopped by signal %d after %llu bytes",
			    (int)stop_signal, total);
			return 0;
		}
		if (eof && !len) {
			dbg("madpmd ended the stream after %llu bytes", total);
			return 0;
		}
		n = ppoll(pfd, len || eof ? 1 : 2, NULL, unblocked);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err("poll: %s", strerror(errno));
			return -1;
		}
		if (pfd[0].revents & (POLLERR | POLLHUP)) {
			dbg("the reader closed the fifo after %llu bytes", total);
			return 0;
		}
		if (len && (pfd[0].revents & POLLOUT)) {
			n = write(out, buf + off, len);
			if (n < 0 && errno == EPIPE) {
				dbg("the reader closed the fifo");
				return 0;
			}
			if (n < 0 && errno != EAGAIN && errno != EINTR) {
				err("writing the capture: %s", strerror(errno));
				return -1;
			}
			if (n > 0) {
				off += (size_t)n;
				len -= (size_t)n;
				total += (unsigned long long)n;
				if (!len)
					off = 0;
			}
			continue;
		}
		if (!len && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			n = read(sock, buf, sizeof(buf));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n < 0) {
				err("reading from madpmd: %s", strerror(errno));
				return -1;
			}
			if (n == 0)
				eof = true;
			len = (size_t)n;
		}
	}
}

static int
do_capture(const struct opts *o)
{
	char req[REQUEST_MAX + 2];
	unsigned char head[4];
	sigset_t block, unblocked;
	int sock = -1, out = -1, rc = 1, r;

	if (!o->fifo) {
		err("--capture needs --fifo PATH (Wireshark gives it)");
		return 1;
	}
	if (build_request(o, req, sizeof(req)) != 0 ||
	    check_port_known(o) != 0) {
		release_reader(o->fifo);
		return 1;
	}
	/* the stop signals are let in only while waiting, never lost */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	sigdelset(&unblocked, SIGINT);
	sigdelset(&unblocked, SIGTERM);
	sigdelset(&unblocked, SIGHUP);

	sock = connect_fabric(o->run_dir);
	if (sock < 0)
		goto out;
	dbg("request: %.*s", (int)strcspn(req, "\n"), req);
	if (write_all(sock, req, strlen(req)) != 0) {
		err("sending the capture request to madpmd: %s",
		    strerror(errno));
		goto out;
	}
	r = read_answer(sock, head, &unblocked);
	if (r != 0) {
		rc = r > 0 ? 0 : 1;
		goto out;
	}
	out = open_output(o->fifo, sock, &unblocked);
	if (out < 0) {
		rc = out == -2 ? 0 : 1;
		goto out;
	}
	rc = copy_stream(sock, out, head, &unblocked) == 0 ? 0 : 1;
out:
	if (out >= 0)
		close(out);
	else if (rc != 0)
		release_reader(o->fifo);
	if (sock >= 0)
		close(sock);
	return rc;
}

/*
 * The filter as the capture would take it on this interface and this
 * fabric (when its nodes file can be read): its syntax, a one-port
 * interface's port among its ports=, each port in the fabric. 0, or -1
 * with the sentence in msg.
 */
static int
check_filter(const struct opts *o, char *msg, size_t msz)
{
	struct portset ps = { 0 }, fabric = { 0 };
	unsigned int kinds;
	char port[300];
	size_t i;
	int rc = -1;

	if (iface_to_port(o->iface, port, sizeof(port)) != 0) {
		snprintf(msg, msz, "unknown interface %s: madpmd's interfaces are " IF_ALL " and " IF_PREFIX "NODE-PORT",
			 o->iface);
		return -1;
	}
	if (parse_filter(o->cfilter, &kinds, &ps, msg, msz) != 0)
		goto out;
	if (port[0] && ps.n && !portset_has(&ps, port)) {
		snprintf(msg, msz, "ports= leaves out %s, the port of interface %s",
			 port, o->iface);
		goto out;
	}
	if (ps.n && read_fabric_ports(o->run_dir, &fabric) == 0 && fabric.n) {
		for (i = 0; i < ps.n; i++) {
			if (portset_has(&fabric, ps.name[i]))
				continue;
			snprintf(msg, msz, "the fabric in %s has no port %s",
				 o->run_dir, ps.name[i]);
			goto out;
		}
	}
	rc = 0;
out:
	portset_free(&fabric);
	portset_free(&ps);
	return rc;
}

static int
do_validate(const struct opts *o)
{
	char msg[512];

	/* Wireshark shows the first output line as the error, none = valid */
	if (check_filter(o, msg, sizeof(msg)) != 0)
		printf("%s\n", msg);
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --extcap-interfaces [--extcap-version=X]\n"
		"       " PROG " --help | --version\n"
		"       " PROG " --extcap-interface IF --extcap-dlts | --extcap-config\n"
		"       " PROG " --extcap-interface IF --extcap-capture-filter F\n"
		"       " PROG " --capture --extcap-interface IF --fifo PATH\n"
		"              [--extcap-capture-filter F] [--run-dir DIR] [--kinds K,...]\n"
		"Live capture from a running madpmd fabric, for Wireshark (an extcap).\n"
		"IF: " IF_ALL " or " IF_PREFIX "NODE-PORT; K: wire, umad, port, wc, cm;\n"
		"F: [kinds=K,...] [ports=NODE:PORT,...]; PATH \"-\": standard output.\n"
		"Run directory default: $MADPMD_RUN_DIR, else the first of\n"
		"$XDG_RUNTIME_DIR/madpmd (or /tmp/madpmd-UID) and " MPD_RUN_DIR_SYSTEM "\n"
		"where a fabric runs.\n");
}

enum {
	OPT_INTERFACES = 256,
	OPT_VERSION,
	OPT_INTERFACE,
	OPT_DLTS,
	OPT_CONFIG,
	OPT_CFILTER,
	OPT_CAPTURE,
	OPT_FIFO,
	OPT_CONTROL_IN,
	OPT_CONTROL_OUT,
	OPT_RELOAD,
	OPT_DEBUG,
	OPT_DEBUG_FILE,
	OPT_RUN_DIR,
	OPT_KINDS,
	OPT_HELP,
	OPT_PROG_VERSION,
};

static const struct option long_opts[] = {
	{ "extcap-interfaces", no_argument, NULL, OPT_INTERFACES },
	{ "extcap-version", optional_argument, NULL, OPT_VERSION },
	{ "extcap-interface", required_argument, NULL, OPT_INTERFACE },
	{ "extcap-dlts", no_argument, NULL, OPT_DLTS },
	{ "extcap-config", no_argument, NULL, OPT_CONFIG },
	{ "extcap-capture-filter", required_argument, NULL, OPT_CFILTER },
	{ "capture", no_argument, NULL, OPT_CAPTURE },
	{ "fifo", required_argument, NULL, OPT_FIFO },
	/* no toolbar controls: accepted and ignored */
	{ "extcap-control-in", required_argument, NULL, OPT_CONTROL_IN },
	{ "extcap-control-out", required_argument, NULL, OPT_CONTROL_OUT },
	{ "extcap-reload-option", required_argument, NULL, OPT_RELOAD },
	{ "debug", no_argument, NULL, OPT_DEBUG },
	{ "debug-file", required_argument, NULL, OPT_DEBUG_FILE },
	{ "run-dir", required_argument, NULL, OPT_RUN_DIR },
	{ "kinds", required_argument, NULL, OPT_KINDS },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_PROG_VERSION },
	{ NULL, 0, NULL, 0 },
};

static int
parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_INTERFACES:
			o->interfaces = true;
			break;
		case OPT_VERSION:
			break;
		case OPT_INTERFACE:
			o->iface = optarg;
			break;
		case OPT_DLTS:
			o->dlts = true;
			break;
		case OPT_CONFIG:
			o->config = true;
			break;
		case OPT_CFILTER:
			o->cfilter = optarg;
			break;
		case OPT_CAPTURE:
			o->capture = true;
			break;
		case OPT_FIFO:
			o->fifo = optarg;
			break;
		case OPT_CONTROL_IN:
		case OPT_CONTROL_OUT:
		case OPT_RELOAD:
			break;
		case OPT_DEBUG:
			o->debug = true;
			break;
		case OPT_DEBUG_FILE:
			o->debug_file = optarg;
			break;
		case OPT_RUN_DIR:
			o->run_dir = optarg;
			break;
		case OPT_KINDS:
			o->kinds = optarg;
			break;
		case OPT_PROG_VERSION:
			printf(PROG " " EXTCAP_VERSION "\n");
			exit(0);
		case OPT_HELP:
			usage(stdout);
			exit(0);
		default:
			err("unknown or incomplete option %s (see --help)",
			    argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		err("unexpected argument %s (see --help)", argv[optind]);
		return -1;
	}
	if (o->interfaces)
		o->mode = MODE_INTERFACES;
	else if (o->iface && o->dlts)
		o->mode = MODE_DLTS;
	else if (o->iface && o->config)
		o->mode = MODE_CONFIG;
	else if (o->iface && o->capture)
		o->mode = MODE_CAPTURE;
	else if (o->iface && o->cfilter)
		o->mode = MODE_FILTER;
	if (o->mode == MODE_NONE) {
		err("nothing to do: give --extcap-interfaces, or --extcap-interface IF with --extcap-dlts, --extcap-config, --extcap-capture-filter or --capture (see --help)");
		return -1;
	}
	if (!o->run_dir || !*o->run_dir)
		o->run_dir = run_dir_default();
	return 0;
}

int
main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct opts o = { 0 };
	int rc = 0;

	if (parse_args(argc, argv, &o) != 0)
		return 1;
	if (o.debug_file) {
		dbg_out = fopen(o.debug_file, "a");
		if (!dbg_out)
			err("cannot open the debug file %s: %s", o.debug_file,
			    strerror(errno));
	} else if (o.debug) {
		dbg_out = stderr;
	}
	/* no SA_RESTART: a stop must cut a wait short */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	switch (o.mode) {
	case MODE_INTERFACES:
		print_interfaces(o.run_dir);
		break;
	case MODE_DLTS:
	case MODE_CONFIG:
		if (!iface_valid(o.iface)) {
			err("unknown interface %s: madpmd's interfaces are " IF_ALL
			    " and " IF_PREFIX "NODE-PORT", o.iface);
			rc = 1;
		} else if (o.mode == MODE_DLTS) {
			print_dlts();
		} else {
			print_config();
		}
		break;
	case MODE_FILTER:
		rc = do_validate(&o);
		break;
	case MODE_CAPTURE:
		rc = do_capture(&o);
		break;
	case MODE_NONE:
		break;
	}
	if (fflush(stdout) != 0 && rc == 0) {
		err("writing the answer: %s", strerror(errno));
		rc = 1;
	}
	if (dbg_out && dbg_out != stderr)
		fclose(dbg_out);
	return rc;
}
