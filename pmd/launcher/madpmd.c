/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd: starts a soft InfiniBand/RoCE fabric, testpmd style.
 *
 *   madpmd [EAL options] -- [--topology NETFILE] [--run-dir DIR]
 *          [--capture FILE] [-i] [--link ib|roce] [--wire NODE:PORT=ETHDEV]
 *          [--idle-polls N] [--idle-sleep-us N] [--no-intr]
 *          [--client-ports N]
 *          [--duration SECONDS]
 *          [--lossy drop=P,dup=P,reorder=P[,seed=N][,port=NODE:PORT]
 *                   [,mad=CLASS[:ATTR]]...]
 *          [--replay NODE:PORT=FILE[,...]] [--exit-after-replay[=S]]
 *          [--ib-dissector NAME] [--umad-mode MODE]
 *   madpmd --help | --version
 *
 * One net_hca port per HCA port of the topology, wired back to back as the
 * topology says (or to another ethdev with --wire), moved by one busy-poll
 * lcore that sleeps when the fabric is idle.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_log.h>
#include <rte_lcore.h>
#include <rte_pdump.h>
#include <rte_version.h>

#include "fabric.h"
#include "madpmd/chan.h"
#include "madpmd/clock.h"
#include "madpmd/run_dir.h"
#include "capsock.h"
#include "launcher.h"
#include "replay.h"
#include "topology.h"

static struct fabric fab;
static volatile sig_atomic_t quit_signal;
static bool own_prefix;		/* EAL options and runtime dir are ours */
static volatile bool ports_file_stop;

static void
on_signal(int sig)
{
	quit_signal = sig;
	fab.stop = true;
	launcher_prompt_quit();
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: madpmd [EAL options] -- [options]\n"
		"       madpmd --help | --version\n"
		"  --topology FILE        ibsim net file (default: embedded two-HCA fabric)\n"
		"  --run-dir DIR          where clients find the fabric (default: $MADPMD_RUN_DIR,\n"
		"                         else /run/madpmd for root, $XDG_RUNTIME_DIR/madpmd\n"
		"                         or /tmp/madpmd-UID for a normal user)\n"
		"  --capture FILE         capture every HCA port to a pcapng ('-': stdout)\n"
		"  -i, --interactive      prompt (help, show ports, show counters, set link,\n"
		"                         capture start|stop, quit)\n"
		"  --link ib|roce         framing of every HCA port (default ib)\n"
		"  --wire NODE:PORT=DEV   connect a node's port to ethdev DEV (from --vdev):\n"
		"                         on an IB fabric, IB frames in Ethernet (EtherType\n"
		"                         0x88b5) to another daemon's port\n"
		"  --nodes NAME[,NAME...] run only these nodes of the topology (shell\n"
		"                         patterns): the rest run in other daemons, reached\n"
		"                         by --wire or --trunk\n"
		"  --trunk DEV            every cable to another daemon's node without a\n"
		"                         --wire goes over ethdev DEV, addressed by its ends\n"
		"  --switch-clients NAME[,NAME...]  switches whose port 0 serves clients\n"
		"                         (shell patterns; the SM port's switch always does)\n"
		"  --client-ports N       CA ports with an ethdev, which clients open: the\n"
		"                         topology's first N (default 16, at most %u); the CAs\n"
		"                         after them answer with their SMA and PMA only\n"
		"  --idle-polls N         empty polls before the lcore sleeps (default 256)\n"
		"  --idle-sleep-us N      longest idle sleep in microseconds (default 200)\n"
		"  --no-intr              idle: sleep by the clock, not until a client sends\n"
		"  --duration SECONDS     stop after this long (default: until SIGINT/SIGTERM)\n"
		"  --lossy drop=P,dup=P,reorder=P[,seed=N][,port=NODE:PORT][,mad=CLASS[:ATTR]]...\n"
		"                         drop, duplicate and reorder frames on the wires\n"
		"                         (P: 0.05 or 5%%; one port's wire or all; only\n"
		"                         MADs of these classes/attributes, e.g. mad=0x07:0x0014)\n"
		"  --replay NODE:PORT=FILE[,speed=fast|timed|N][,from=IF][,dir=in|out|any]\n"
		"           [,loop=N][,after=active|SECONDS][,cable=replace|keep]\n"
		"                         feed a pcap/pcapng capture into the port instead\n"
		"                         of its cable, or beside it with cable=keep; after=\n"
		"                         holds it until the port is Active or that long\n"
		"                         (madpmd(1), REPLAY); repeatable\n"
		"  --exit-after-replay[=SECONDS]  stop that long (default 1) after every replay\n"
		"  --ib-dissector NAME    what native IB packets in captures name:\n"
		"                         infiniband (stock, default) or madpmd_ib (plugin)\n"
		"  --umad-mode MODE       permissions of the client and capture sockets\n"
		"                         (default 0600, as /dev/infiniband/umad*)\n"
		"  -h, --help             this text\n"
		"  --version              madpmd's version and the DPDK it runs on\n"
		"  -v, --verbose          EAL's informational lines too (else its warnings\n"
		"                         and errors only; EAL's --log-level overrides)\n"
		"Without EAL options madpmd uses --no-huge --no-pci -m 256, two lcores\n"
		"that may run on any CPU (--lcores '0@(0-N),1@(0-N)') and a file prefix\n"
		"of its own, which work on a small machine without hugepages. With EAL\n"
		"options of your own and no hugepages reserved, add --no-huge.\n",
		RTE_MAX_ETHPORTS);
}

static void
version(void)
{
	printf("madpmd %s (%s)\n", MADPMD_VERSION, rte_version());
}

/* --help or --version among the EAL options (or anywhere, when there is
 * no "--"): answer before EAL runs, whatever else is there. */
static void
early_exit_options(int end, char **argv)
{
	int i;

	for (i = 1; i < end; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(argv[i], "--version")) {
			version();
			exit(0);
		}
	}
}

/* Reserved hugepages, from /proc/meminfo; -1 when it does not say. */
static long
hugepages_total(void)
{
	char line[256];
	long n = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Total: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * EAL failed with options of the user's: without --no-huge the usual
 * cause is a machine without hugepages, which EAL reports as "Cannot get
 * hugepage information" and EACCES or ENOMEM. Say what to do.
 */
static void
eal_failure_hint(int sep, char **argv, int err)
{
	long pages;
	int i;

	for (i = 1; i < sep; i++)
		if (!strcmp(argv[i], "--no-huge"))
			return;
	pages = hugepages_total();
	if (pages == 0)
		fprintf(stderr, "madpmd: no hugepages are reserved (HugePages_Total is 0 in /proc/meminfo): add --no-huge to the EAL options (madpmd --no-huge --no-pci -m 256 -l 0,1 -- ...), give no EAL options at all, or reserve some (echo 64 > /proc/sys/vm/nr_hugepages)\n");
	else if (err == ENOMEM)
		fprintf(stderr, "madpmd: not enough hugepage memory for -m/--socket-mem (%ld pages reserved): ask for less, reserve more, or add --no-huge\n",
			pages);
}

/* testpmd's convention: EAL options, "--", application options. The
 * index of "--", 0 when there is none (every option is madpmd's). */
static int
find_separator(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return 0;
}

/*
 * EAL with the options before "--" (argv[1..sep-1]); with none ("--"
 * first, or no "--" at all) with options that work on a small machine
 * without hugepages.
 */
static int
eal_init(char **argv, int sep, bool verbose)
{
	static char prefix[64], lcores[64];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char *def[16];
	int n = 0, rc;

	if (sep > 1) {
		rc = rte_eal_init(sep, argv);
		return rc < 0 ? rc : 0;
	}
	snprintf(prefix, sizeof(prefix), "--file-prefix=madpmd-%d",
		 (int)getpid());
	def[n++] = argv[0];
	def[n++] = (char *)"--no-huge";
	def[n++] = (char *)"--no-pci";
	def[n++] = (char *)"-m";
	def[n++] = (char *)"256";
	/* not pinned: the scheduler moves the polling lcore away from a
	 * busy process rather than make it share that one's CPU */
	if (ncpu > 1)
		snprintf(lcores, sizeof(lcores), "--lcores=0@(0-%ld),1@(0-%ld)",
			 ncpu - 1, ncpu - 1);
	else
		snprintf(lcores, sizeof(lcores), "-l0");
	def[n++] = lcores;
	def[n++] = prefix;
	/* its warning that no legacy telemetry commands exist is noise */
	if (!verbose)
		def[n++] = (char *)"--log-level=lib.telemetry:error";
	def[n] = NULL;
	own_prefix = true;
	rc = rte_eal_init(n, def);
	return rc < 0 ? rc : 0;
}

struct app_opts {
	const char *topology;
	const char *run_dir;
	const char *capture;
	bool interactive;
	bool verbose;			/* EAL's informational lines too */
	const char *nodes;		/* --nodes: this daemon's part */
	const char *wires[16];
	unsigned int nwires;
	const char *trunk;		/* --trunk: the other cables */
	unsigned int duration;
	const char *lossy;
	const char *replays[16];
	unsigned int nreplays;
	int exit_after_replay;		/* seconds; -1: keep running */
};

static int
parse_uint(const char *opt, const char *val, unsigned int max,
	   unsigned int *out)
{
	char *end;
	unsigned long v = strtoul(val, &end, 0);

	if (!*val || *end || v > max) {
		fprintf(stderr, "madpmd: %s %s: give a number from 0 to %u\n",
			opt, val, max);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

static int
parse_app(int argc, char **argv, struct app_opts *o, bool no_sep)
{
	static const struct option lopts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "run-dir", required_argument, NULL, 'r' },
		{ "capture", required_argument, NULL, 'c' },
		{ "interactive", no_argument, NULL, 'i' },
		{ "link", required_argument, NULL, 'l' },
		{ "wire", required_argument, NULL, 'w' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "trunk", required_argument, NULL, 'T' },
		{ "switch-clients", required_argument, NULL, 'S' },
		{ "idle-polls", required_argument, NULL, 'p' },
		{ "client-ports", required_argument, NULL, 'C' },
		{ "idle-sleep-us", required_argument, NULL, 's' },
		{ "no-intr", no_argument, NULL, 'N' },
		{ "duration", required_argument, NULL, 'd' },
		{ "lossy", required_argument, NULL, 'L' },
		{ "replay", required_argument, NULL, 'R' },
		{ "exit-after-replay", optional_argument, NULL, 'E' },
		{ "umad-mode", required_argument, NULL, 'M' },
		{ "ib-dissector", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int u;
	int c;

	/* getopt's own messages name argv[0], which is "--" here */
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":ihv", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
			o->topology = optarg;
			break;
		case 'r':
			o->run_dir = optarg;
			break;
		case 'c':
			o->capture = optarg;
			break;
		case 'i':
			o->interactive = true;
			break;
		case 'l':
			if (strcmp(optarg, "ib") == 0) {
				fab.opts.link = MPD_LINK_IB;
			} else if (strcmp(optarg, "roce") == 0) {
				fab.opts.link = MPD_LINK_ROCE_V2;
			} else {
				fprintf(stderr, "madpmd: --link %s: give ib or roce\n",
					optarg);
				return -1;
			}
			break;
		case 'w':
			if (o->nwires == 16 || !strchr(optarg, '=')) {
				fprintf(stderr, "madpmd: --wire %s: give NODE:PORT=ETHDEV (at most 16)\n",
					optarg);
				return -1;
			}
			o->wires[o->nwires++] = optarg;
			break;
		case 'S':
			fab.opts.switch_clients = optarg;
			break;
		case 'n':
			o->nodes = optarg;
			break;
		case 'T':
			o->trunk = optarg;
			break;
		case 'p':
			if (parse_uint("--idle-polls", optarg, 1u << 30,
				       &fab.opts.idle_polls))
				return -1;
			break;
		case 'C':
			if (parse_uint("--client-ports", optarg,
				       RTE_MAX_ETHPORTS,
				       &fab.opts.client_ports))
				return -1;
			break;
		case 's':
			if (parse_uint("--idle-sleep-us", optarg, 1000000,
				       &fab.opts.idle_sleep_us))
				return -1;
			break;
		case 'N':
			fab.opts.no_intr = true;
			break;
		case 'd':
			if (parse_uint("--duration", optarg, 86400 * 365,
				       &o->duration))
				return -1;
			break;
		case 'L':
			o->lossy = optarg;
			break;
		case 'R':
			if (o->nreplays == 16 || !strchr(optarg, '=')) {
				fprintf(stderr, "madpmd: --replay %s: give NODE:PORT=FILE[,options] (at most 16)\n",
					optarg);
				return -1;
			}
			o->replays[o->nreplays++] = optarg;
			break;
		case 'E':
			o->exit_after_replay = 1;
			if (optarg && parse_uint("--exit-after-replay", optarg,
						 3600, &u))
				return -1;
			if (optarg)
				o->exit_after_replay = (int)u;
			break;
		case 'I':
			if (strcmp(optarg, "infiniband") &&
			    strcmp(optarg, "madpmd_ib")) {
				fprintf(stderr, "madpmd: --ib-dissector %s: give infiniband (stock Wireshark) or madpmd_ib (the madpmd plugin)\n",
					optarg);
				return -1;
			}
			fab.opts.ib_dissector = optarg;
			break;
		case 'M': {
			char *end;
			unsigned long m = strtoul(optarg, &end, 8);

			if (!*optarg || *end || m > 0777) {
				fprintf(stderr, "madpmd: --umad-mode %s: give octal permissions such as 0600 or 0666\n",
					optarg);
				return -1;
			}
			fab.opts.umad_mode = (unsigned int)m;
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			version();
			exit(0);
		case 'v':
			o->verbose = true;
			break;
		case ':':
			fprintf(stderr, "madpmd: %s needs a value (madpmd --help lists the options)\n",
				argv[optind - 1]);
			return -1;
		default: {
			/* a short option by its letter, a long one as given */
			char letter[3] = { '-', (char)optopt, '\0' };

			fprintf(stderr, "madpmd: unknown option %s (madpmd --help lists the options%s)\n",
				optopt ? letter : argv[optind - 1],
				no_sep ? "; EAL options go before --" : "");
			return -1;
		}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "madpmd: unexpected argument \"%s\"\n",
			argv[optind]);
		return -1;
	}
	return 0;
}

/* "NODE:PORT=REST" of option opt: the port's index (-1 with a message)
 * and where REST starts; a net_hca port's, or with any_node a switch's or
 * a served CA's too. */
static int
spec_port(const char *opt, const char *spec, bool any_node,
	  const char **rest)
{
	char left[2 * FAB_NAME_LEN];
	const char *eq = strchr(spec, '=');
	int a;

	if (!eq || (size_t)(eq - spec) >= sizeof(left)) {
		fprintf(stderr, "madpmd: %s %s: give NODE:PORT=...\n", opt,
			spec);
		return -1;
	}
	memcpy(left, spec, (size_t)(eq - spec));
	left[eq - spec] = '\0';
	a = any_node ? fab_find_node_port(&fab, left) : fab_find(&fab, left);
	/* an ethdev's own name is not a node's port */
	if (a >= 0 && !fab.port[a].hca && fab_port_ethdev(&fab.port[a]))
		a = -1;
	if (a < 0) {
		fprintf(stderr, "madpmd: %s %s: no %s port \"%s\" among the nodes this daemon runs\n",
			opt, spec, any_node ? "node" : "HCA", left);
		return -1;
	}
	*rest = eq + 1;
	return a;
}

/* A port leaves the topology's wire, if it has one. */
static void
uncable(struct fab_port *p)
{
	if (p->peer >= 0) {
		fab.port[p->peer].peer = -1;
		p->peer = -1;
	}
}

/* --wire NODE:PORT=ETHDEV: the node's port is cabled to an external ethdev
 * instead of its topology peer. */
static int
apply_wire(const char *spec)
{
	const char *dev;
	int a = spec_port("--wire", spec, true, &dev), b;

	if (a < 0)
		return -1;
	if (fab.port[a].wired) {
		fprintf(stderr, "madpmd: --wire %s: %s:%u is wired already (to %s)\n",
			spec, fab.port[a].node, fab.port[a].num,
			fab.port[fab.port[a].peer].dev);
		return -1;
	}
	/* one ethdev is one cable's end */
	for (b = 0; b < (int)fab.nports; b++)
		if (!fab.port[b].hca && fab.port[b].peer >= 0 &&
		    fab.port[fab.port[b].peer].wired &&
		    !strcmp(fab.port[b].dev, dev)) {
			fprintf(stderr, "madpmd: --wire %s: %s carries %s:%u already; give each port an ethdev of its own\n",
				spec, dev, fab.port[fab.port[b].peer].node,
				fab.port[fab.port[b].peer].num);
			return -1;
		}
	b = fab_add_external(&fab, dev);
	if (b < 0)
		return -1;
	uncable(&fab.port[a]);
	fab.port[a].wired = true;
	return fab_connect(&fab, a, b);
}

/* A cable of the topology to a node another daemon runs (--nodes) is
 * dark unless --wire gave the port an ethdev to that daemon: said, so a
 * forgotten --wire is not a mystery in OpenSM's log. */
static void
warn_dark_cables(const struct fabric *f)
{
	unsigned int i;

	for (i = 0; i < f->nports; i++) {
		const struct fab_port *p = &f->port[i];

		if (!p->far[0] || p->peer >= 0)
			continue;
		fprintf(stderr, "madpmd: %s[%u]'s cable leads to %s, which this daemon does not run (--nodes): it stays dark without --wire %s:%u=ETHDEV or --trunk\n",
			p->node, p->num, p->far, p->node, p->num);
	}
}

/* --replay NODE:PORT=SPEC: the port leaves its cable and takes the frames
 * of a capture instead. */
static int
apply_replay(const char *spec)
{
	const char *file;
	int a = spec_port("--replay", spec, false, &file);
	struct fab_port *p;

	if (a < 0)
		return -1;
	p = &fab.port[a];
	if (p->replay) {
		fprintf(stderr, "madpmd: --replay %s: that port already replays a capture\n",
			spec);
		return -1;
	}
	p->replay = fab_replay_open(file, p->link);
	if (!p->replay)
		return -1;
	if (!fab_replay_keeps_cable(p->replay))
		uncable(p);
	fab.replays_left++;
	return 0;
}

/* A line for each replay still playing, every REPLAY_PROGRESS_S on a long
 * run (none for a replay that ends sooner). */
#define REPLAY_PROGRESS_S	5

static void
show_replay_progress(struct fabric *f, double seconds)
{
	unsigned int i;

	for (i = 0; i < f->nports; i++) {
		struct fab_port *p = &f->port[i];

		if (!p->replay || __atomic_load_n(&p->replay_done,
						  __ATOMIC_RELAXED))
			continue;
		fprintf(stderr, "madpmd: %s:%u: ", p->node, p->num);
		fab_replay_progress(p->replay, seconds, stderr);
	}
}

/*
 * A normal user's default run directory: made 0700 (and checked to be
 * theirs: /tmp/madpmd-<uid> may have been planted). Sockets opened to other
 * users by --umad-mode are out of their reach in there: say so.
 */
static int
private_run_dir(const char *dir, unsigned int umad_mode)
{
	if (mpd_run_dir_private(dir) != 0) {
		fprintf(stderr, "madpmd: cannot use run directory %s: %s%s\n",
			dir, errno == EPERM ?
			"it is not a directory of yours with mode 0700" :
			strerror(errno),
			"; give --run-dir DIR (or set MADPMD_RUN_DIR)");
		return -1;
	}
	if (umad_mode & 077)
		fprintf(stderr, "madpmd: --umad-mode 0%o: other users cannot reach %s (yours alone); give --run-dir DIR, a directory they can enter, for them\n",
			umad_mode, dir);
	return 0;
}

/* The run directory, before the ports: they add themselves to "nodes". */
static int
make_run_dir(const char *dir)
{
	char path[4096];
	FILE *f;
	int fd;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		int err = errno;
		char own[4096];

		fprintf(stderr, "madpmd: cannot create run directory %s: %s%s%s\n",
			dir, strerror(err),
			err == EACCES && geteuid() != 0 ?
			"; without --run-dir and MADPMD_RUN_DIR your own is " : "",
			err == EACCES && geteuid() != 0 ?
			mpd_run_dir_own(own, sizeof(own), NULL) : "");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/madpmd.pid", dir);
	/* one fabric per run directory */
	f = fopen(path, "r");
	if (f) {
		int pid = 0;

		if (fscanf(f, "%d", &pid) == 1 && pid > 0 && kill(pid, 0) == 0) {
			fclose(f);
			fprintf(stderr, "madpmd: a fabric (pid %d) already runs in %s: stop it or use --run-dir\n",
				pid, dir);
			return -1;
		}
		fclose(f);
	}
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "madpmd: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s", dir, MPD_CHAN_NODES);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	return 0;
}

/*
 * <run-dir>/ready: every node serves clients (its socket listens, its
 * ports run, the lcore polls). Made last at start-up and first at a stop,
 * so a client that sees it can connect; madpmd-run waits for it while
 * madpmd.pid names a live daemon (docs/launcher.md, "Ready").
 */
static void
mark_ready(const char *dir, bool ready)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, MPD_RUN_READY);
	if (!ready) {
		unlink(path);
		return;
	}
	f = fopen(path, "we");
	if (!f) {
		fprintf(stderr, "madpmd: cannot write %s: %s\n", path,
			strerror(errno));
		return;
	}
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
}

/*
 * <run-dir>/ports: the "show ports" table, kept in step with the ports (an
 * SM brings them up, a link goes down) by a control thread that looks
 * every 200 ms and replaces the file when the table changed. The rename
 * means a reader sees one whole table, old or new.
 */
static int
write_ports_file(const char *dir, const char *table)
{
	char path[4096], tmp[4096 + 8];
	FILE *f;

	snprintf(path, sizeof(path), "%s/ports", dir);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "we");
	if (!f)
		return -1;
	fputs(table, f);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* the ports table at start, up to a fabric this size */
#define PORTS_SHOWN_MAX	256

static char *
ports_table(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	launcher_show_ports(&fab, m);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void *
ports_file_loop(void *arg)
{
	const char *dir = arg;
	char *last = NULL, *cur;
	uint64_t sig, last_sig = 0;

	while (!ports_file_stop) {
		uint64_t t0 = mpd_mono_ns(), took;

		/* a fabric of thousands of ports: the table only when a
		 * port moved, not five times a second */
		sig = launcher_ports_signature(&fab);
		if (!last || sig != last_sig) {
			cur = ports_table();
			if (cur && last && !strcmp(cur, last)) {
				last_sig = sig;	/* what the file holds */
				free(cur);
			} else if (cur && write_ports_file(dir, cur) == 0) {
				free(last);
				last = cur;
				last_sig = sig;
			} else {
				free(cur);	/* tried again next time */
			}
		}
		/* while an SM sweeps 70,000 ports the table moves all the
		 * time: this thread's share of a CPU at most a twentieth */
		took = (mpd_mono_ns() - t0) / 1000;
		usleep((useconds_t)RTE_MAX(200000ull, 20 * took));
	}
	free(last);
	return NULL;
}

static void
remove_run_files(const char *dir)
{
	char path[4096];

	mark_ready(dir, false);
	snprintf(path, sizeof(path), "%s/madpmd.pid", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/ports", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, MPD_CHAN_NODES);
	unlink(path);
	rmdir(dir);	/* only when nothing else lives there */
}

int
main(int argc, char **argv)
{
	struct app_opts o = { .exit_after_replay = -1 };
	char eal_dir[4096];	/* PATH_MAX */
	char own_run_dir[4096];
	unsigned int i, elapsed = 0;
	int sep, err, rc = 1;
	pthread_t ports_thread;
	bool ports_thread_up = false;
	char **app_argv;
	/* EAL's own argv, as given (EAL may reorder it) */
	char *eal_args[256] = { NULL };
	bool primary;
	int k;

	fab.opts.link = MPD_LINK_IB;
	fab.opts.idle_polls = 256;
	fab.opts.client_ports = 16;
	fab.opts.idle_sleep_us = 200;
	fab.opts.umad_mode = 0600;
	sep = find_separator(argc, argv);
	early_exit_options(sep ? sep : argc, argv);
	/* madpmd's options first: --help, --version and mistakes end here,
	 * before EAL makes its runtime directory */
	app_argv = argv + sep;
	argv[0] = (char *)"madpmd";
	app_argv[0] = argv[0];
	if (parse_app(argc - sep, app_argv, &o, sep == 0))
		return 1;
	opterr = 1;
	/* the run directory and madpmd.pid before EAL (which takes a while):
	 * a client that finds them waits for "ready" (madpmd/chan.h) */
	if (!o.run_dir) {
		bool private;

		o.run_dir = mpd_run_dir_own(own_run_dir, sizeof(own_run_dir),
					    &private);
		/* a normal user's own: private, and reached only by that user */
		if (private && private_run_dir(o.run_dir, fab.opts.umad_mode))
			return 1;
	}
	if (make_run_dir(o.run_dir) != 0)
		return 1;
	/* a stop while it starts is a clean one too (its runtime directory
	 * removed); so is the terminal's going away */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	for (k = 1; k < sep && k < (int)RTE_DIM(eal_args); k++)
		eal_args[k] = argv[k];
	/* EAL's start-up lines (lcores, IOVA mode, sockets) bury madpmd's
	 * own: its notices, warnings and errors only, unless asked (EAL's
	 * --log-level, parsed by rte_eal_init(), still wins); net_hca's own
	 * log type keeps its level */
	if (!o.verbose)
		rte_log_set_level(RTE_LOGTYPE_EAL, RTE_LOG_NOTICE);
	if (eal_init(argv, sep, o.verbose) < 0) {
		err = rte_errno;
		fprintf(stderr, "madpmd: EAL initialisation failed: %s\n",
			rte_strerror(err));
		if (sep > 1)
			eal_failure_hint(sep, argv, err);
		/* not rte_eal_cleanup(): EAL is half set up */
		if (own_prefix)
			launcher_remove_runtime_dir(rte_eal_get_runtime_dir());
		remove_run_files(o.run_dir);
		return 1;
	}
	if (launcher_vdevs_check(sep < (int)RTE_DIM(eal_args) ? sep :
				 (int)RTE_DIM(eal_args), eal_args) != 0)
		goto out_eal;
	if (own_prefix) {
		unsigned int n = launcher_sweep_runtime_dirs(
					rte_eal_get_runtime_dir());

		if (n)
			fprintf(stderr, "madpmd: removed %u runtime director%s of madpmd runs that were killed\n",
				n, n == 1 ? "y" : "ies");
	}
	if (quit_signal)
		goto out_eal;
	fab.opts.run_dir = o.run_dir;
	if (topology_load(&fab, o.topology, o.nodes) != 0)
		goto out_ports;
	for (i = 0; i < o.nwires; i++)
		if (apply_wire(o.wires[i]) != 0)
			goto out_ports;
	if (o.trunk && fab_trunk_open(&fab, o.trunk) != 0)
		goto out_ports;
	warn_dark_cables(&fab);
	for (i = 0; i < o.nreplays; i++)
		if (apply_replay(o.replays[i]) != 0)
			goto out_ports;
	if (o.lossy) {
		if (fab_set_lossy(&fab, o.lossy) != 0)
			goto out_ports;
		fprintf(stderr, "madpmd: lossy wires: %s\n", o.lossy);
	}
	/* a capture client that goes away is an error on its socket */
	signal(SIGPIPE, SIG_IGN);
	if (fab_start(&fab) != 0)
		goto out_ports;
	if (o.capture && fab_capture_open(&fab, o.capture) != 0) {
		fprintf(stderr, "madpmd: cannot capture to %s: %s\n",
			o.capture, strerror(errno));
		goto out_ports;
	}
	if (capsock_start(&fab, o.run_dir, fab.opts.umad_mode) != 0)
		goto out_ports;
	if (rte_ctrl_thread_create(&ports_thread, "madpmd-ports", NULL,
				   ports_file_loop, (void *)o.run_dir) == 0)
		ports_thread_up = true;
	else
		fprintf(stderr, "madpmd: %s/ports will not be written: cannot start its thread\n",
			o.run_dir);
	launcher_telemetry_init(&fab);
	/* dpdk-dumpcap and dpdk-pdump attach as secondary processes */
	if (rte_pdump_init() != 0)
		fprintf(stderr, "madpmd: dpdk-dumpcap will not attach: %s\n",
			rte_strerror(rte_errno));

	fab.poll_lcore = rte_get_next_lcore(-1, 1, 0);
	if (fab.poll_lcore >= RTE_MAX_LCORE) {
		/* a single lcore: poll on it, no prompt */
		fprintf(stderr, "madpmd: one lcore only: polling on the main lcore\n");
		fab.poll_lcore = rte_lcore_id();
		if (o.duration)
			alarm(o.duration);
		signal(SIGALRM, on_signal);
		mark_ready(o.run_dir, true);
		fab_poll_loop(&fab);
		mark_ready(o.run_dir, false);
	} else {
		rte_eal_remote_launch(fab_poll_loop, &fab, fab.poll_lcore);
		if (o.capture && strcmp(o.capture, "-") == 0)
			fprintf(stderr, "madpmd: fabric up, capturing to stdout\n");
		else if (fab.nports > PORTS_SHOWN_MAX)
			/* a table of 70,000 lines helps nobody at start */
			fprintf(stderr, "madpmd: fabric up: %u ports, %u switches; `show ports` at the prompt and %s/ports list them\n",
				fab.nports, fab.nsw, o.run_dir);
		else
			launcher_show_ports(&fab, stderr);
		mark_ready(o.run_dir, true);
		if (o.interactive) {
			launcher_prompt(&fab);
		} else {
			unsigned int done_at = 0;

			while (!fab.stop &&
			       (!o.duration || elapsed < 10 * o.duration)) {
				usleep(100000);
				elapsed++;
				if (o.nreplays &&
				    elapsed % (10 * REPLAY_PROGRESS_S) == 0)
					show_replay_progress(&fab, elapsed / 10.0);
				if (o.nreplays && o.exit_after_replay >= 0 &&
				    !fab.replays_left && !done_at)
					done_at = elapsed;
				if (done_at && elapsed - done_at >=
				    10u * (unsigned int)o.exit_after_replay)
					break;
			}
		}
		mark_ready(o.run_dir, false);
		fab.stop = true;
		rte_eal_wait_lcore(fab.poll_lcore);
	}
	launcher_show_summary(&fab, stderr);
	rc = 0;
	/* a capture that broke partway: the fabric ran, the replay did not
	 * do what was asked (exit 2; its summary says how far it got) */
	for (i = 0; i < fab.nports; i++)
		if (fab.port[i].replay) {
			fprintf(stderr, "madpmd: %s:%u: ", fab.port[i].node,
				fab.port[i].num);
			fab_replay_summary(fab.port[i].replay, stderr);
			if (fab_replay_failed(fab.port[i].replay))
				rc = 2;
		}
	if (quit_signal)
		fprintf(stderr, "madpmd: signal %d, shutting down\n",
			(int)quit_signal);
out_ports:
	if (ports_thread_up) {
		ports_file_stop = true;
		pthread_join(ports_thread, NULL);
	}
	capsock_stop();
	/* the lcore closed its captures; here those of the error paths, and
	 * one the socket handed over as the lcore stopped */
	fab_capture_close_all(&fab);
	for (i = 0; i < fab.nports; i++) {
		fab_replay_close(fab.port[i].replay);
		fab.port[i].replay = NULL;
	}
	fab_stop(&fab);
out_eal:
	remove_run_files(o.run_dir);
	/* the primary's runtime directory serves nobody once it is gone
	 * (EAL leaves it behind); a secondary's is its primary's */
	primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	snprintf(eal_dir, sizeof(eal_dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (own_prefix || primary)
		launcher_remove_runtime_dir(eal_dir);
	return rc;
}
