/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd-sysfs: runs a command with the node's HCA in /sys/class, for the
 * stock tools that read the kernel's sysfs themselves (ibstatus, scripts
 * of the libibumad and libibverbs era) instead of calling a library
 * madpmd-run replaces.
 *
 *   madpmd-sysfs COMMAND [ARGS...]    (MADPMD_RUN_DIR, MADPMD_NODE set)
 *
 * In a mount namespace of its own (root, or a user namespace that maps
 * the caller's uid to itself, so the command runs as the same user), a
 * tmpfs goes over /sys/class with every entry bound back except
 * infiniband, infiniband_mad and infiniband_verbs, which are made here
 * the way the kernel's ib_core, ib_umad and ib_uverbs show one CA: the
 * node, with its ports. Then it execs the command, in this process: its
 * PID is the one madpmd-run was started as.
 *
 * A watcher process keeps the ports' files in step until the command
 * exits. It holds no session (a session counts against the per-port
 * limit of the clients the command and others open): it reads the
 * daemon's <run-dir>/ports every 250 ms, and when that table changed
 * (state, LID, SM LID of some port) asks the daemon for the node's ports
 * again, through a HELLO it closes at once. So a change of the port's
 * attributes alone (IsSM in cap_mask as an SM stops, an SL) shows with
 * the next change of state or LID. When the daemon goes away the ports
 * become DOWN/Disabled.
 *
 * Without the privilege for a namespace it says so in one line and runs
 * the command as it is.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "madpmd/attr.h"
#include "sysfs_cover.h"
#include "sysfs_dev.h"
#include "sysfs_net.h"
#include "umad_priv.h"

#define SYSCLASS	"/sys/class"
#define WATCH_MS	250
#define MAX_PORTS	32

struct sysfs_port {
	bool up;			/* the daemon serves it */
	struct mpd_chan_port_info pi;
};

static const char *ca_dir;		/* SYSCLASS/infiniband/<node> */
static bool in_netns;			/* madpmd-run --net */

static void
say(const char *fmt, ...)
{
	va_list ap;

	fputs("madpmd-run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A whole file, replaced by rename so a reader sees old or new. */
static int
put(const char *dir, const char *name, const char *fmt, ...)
{
	char path[UMAD_PATH_MAX], tmp[UMAD_PATH_MAX + 2];
	va_list ap;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s", dir, name);
	f = fopen(tmp, "we");
	if (!f)
		return -1;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	rc = fclose(f);
	if (rc == 0)
		rc = rename(tmp, path);
	if (rc)
		unlink(tmp);
	return rc;
}

static int
mkdirf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return mkdir(buf, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/* The kernel's "%04x:%04x:%04x:%04x" of a GUID. */
static void
guid_str(char *buf, size_t size, uint64_t g)
{
	snprintf(buf, size, "%04x:%04x:%04x:%04x", (unsigned int)(g >> 48),
		 (unsigned int)(g >> 32) & 0xffff,
		 (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
}

/* The kernel's rate file (drivers/infiniband/core/sysfs.c, rate_show). */
static void
rate_str(char *buf, size_t size, const struct mpd_chan_port_info *pi)
{
	static const struct { uint8_t code; int tenths; const char *name; }
	speeds[] = {
		{ 1, 25, "" }, { 2, 50, " DDR" }, { 4, 100, " QDR" },
		{ 8, 100, " FDR10" }, { 16, 140, " FDR" }, { 32, 250, " EDR" },
		{ 64, 500, " HDR" }, { 128, 1000, " NDR" },
	};
	static const struct { uint8_t code; int lanes; } widths[] = {
		{ 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 },
	};
	int tenths = 25, lanes = 4, rate;
	const char *name = "";
	unsigned int i;

	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == pi->speed_active) {
			tenths = speeds[i].tenths;
			name = speeds[i].name;
		}
	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (widths[i].code == pi->width_active)
			lanes = widths[i].lanes;
	if (!pi->speed_active && !pi->width_active && pi->rate) {
		/* RoCE: what the daemon says, no IB width and speed */
		snprintf(buf, size, "%u Gb/sec (%dX)", pi->rate, 1);
		return;
	}
	rate = tenths * lanes;
	snprintf(buf, size, "%d%s Gb/sec (%dX%s)", rate / 10,
		 rate % 10 ? ".5" : "", lanes, name);
}

/* The port's number in sysfs: a switch's one port is its port 0 */
static unsigned int
sysfs_num(const struct sysfs_port *sp, unsigned int p)
{
	return sp->pi.node_type == MPD_NODE_TYPE_SWITCH ? 0 : p;
}

static int
write_port_state(const struct sysfs_port *sp, unsigned int num)
{
	static const char *const states[] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
	};
	static const char *const phys[] = {
		"<unknown>", "Sleep", "Polling", "Disabled",
		"PortConfigurationTraining", "LinkUp", "LinkErrorRecovery",
		"Phy Test",
	};
	const struct mpd_chan_port_info *pi = &sp->pi;
	char dir[UMAD_PATH_MAX], rate[64];
	uint64_t iid = pi->port_guid, pfx = pi->gid_prefix;
	unsigned int i;
	int rc = 0;

	snprintf(dir, sizeof(dir), "%s/ports/%u", ca_dir, num);
	rate_str(rate, sizeof(rate), pi);
	rc |= put(dir, "state", "%u: %s\n", pi->state,
		  pi->state < 6 ? states[pi->state] : "UNKNOWN");
	rc |= put(dir, "phys_state", "%u: %s\n", pi->phys_state,
		  pi->phys_state < 8 ? phys[pi->phys_state] : "<unknown>");
	rc |= put(dir, "rate", "%s\n", rate);
	rc |= put(dir, "lid", "0x%x\n", pi->lid);
	rc |= put(dir, "sm_lid", "0x%x\n", pi->sm_lid);
	rc |= put(dir, "lid_mask_count", "%u\n", pi->lmc);
	rc |= put(dir, "sm_sl", "%u\n", pi->sm_sl);
	rc |= put(dir, "cap_mask", "0x%08x\n", pi->capmask);
	rc |= put(dir, "link_layer", "%s\n",
		  pi->link_layer ? "Ethernet" : "InfiniBand");
	snprintf(dir, sizeof(dir), "%s/ports/%u/gids", ca_dir, num);
	rc |= put(dir, "0", "%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x\n",
		  (unsigned int)(pfx >> 48), (unsigned int)(pfx >> 32) & 0xffff,
		  (unsigned int)(pfx >> 16) & 0xffff, (unsigned int)pfx & 0xffff,
		  (unsigned int)(iid >> 48), (unsigned int)(iid >> 32) & 0xffff,
		  (unsigned int)(iid >> 16) & 0xffff, (unsigned int)iid & 0xffff);
	/* RoCE: GID 1 is the port's IPv4 address, mapped (the drop-in
	 * libibverbs' table); both RoCE v2 */
	if (pi->link_layer)
		rc |= put(dir, "1", "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n",
			  pi->ip4[0], pi->ip4[1], pi->ip4[2], pi->ip4[3]);
	snprintf(dir, sizeof(dir), "%s/ports/%u/gid_attrs/types", ca_dir, num);
	for (i = 0; i < (pi->link_layer ? 2u : 1u); i++) {
		char name[8];

		snprintf(name, sizeof(name), "%u", i);
		rc |= put(dir, name, "%s\n",
			  pi->link_layer ? "RoCE v2" : "IB/RoCE v1");
	}
	/* in the node's network namespace a RoCE GID has its device (UCX
	 * reads the netdev's address and mask there) */
	snprintf(dir, sizeof(dir), "%s/ports/%u/gid_attrs/ndevs", ca_dir, num);
	for (i = 0; in_netns && pi->link_layer && i < 2; i++) {
		char name[8];

		snprintf(name, sizeof(name), "%u", i);
		rc |= put(dir, name, "eth%u\n", num - 1);
	}
	snprintf(dir, sizeof(dir), "%s/ports/%u/pkeys", ca_dir, num);
	for (i = 0; i < pi->num_pkeys && i < 32; i++) {
		char name[8];

		snprintf(name, sizeof(name), "%u", i);
		rc |= put(dir, name, "0x%04x\n", pi->pkeys[i]);
	}
	return rc ? -1 : 0;
}

/* The node's CA, its ports, and the umad and uverbs classes pointing at
 * it; first port's attributes for the CA's (they are the node's). */
static int
put_dev(const char *dir, dev_t d)
{
	return put(dir, "dev", "%u:%u\n", major(d), minor(d));
}

static int
write_tree(const char *node, struct sysfs_port *ports, unsigned int nports,
	   const struct mpd_sysfs_dev_nums *nums)
{
	char dir[UMAD_PATH_MAX], buf[64];
	const struct mpd_chan_port_info *pi = NULL;
	unsigned int p, u = 0;
	int rc = 0;

	for (p = 1; p <= nports && !pi; p++)
		if (ports[p].up)
			pi = &ports[p].pi;
	if (!pi)
		return -1;
	if (mkdirf(dir, sizeof(dir), SYSCLASS "/infiniband") ||
	    mkdirf(dir, sizeof(dir), "%s", ca_dir) ||
	    mkdirf(dir, sizeof(dir), "%s/ports", ca_dir))
		return -1;
	rc |= put(ca_dir, "node_type", "%u: %s\n",
		  pi->node_type ? pi->node_type : 1,
		  pi->node_type == MPD_NODE_TYPE_SWITCH ? "switch" : "CA");
	guid_str(buf, sizeof(buf), pi->node_guid);
	rc |= put(ca_dir, "node_guid", "%s\n", buf);
	guid_str(buf, sizeof(buf), pi->sys_guid);
	rc |= put(ca_dir, "sys_image_guid", "%s\n", buf);
	rc |= put(ca_dir, "fw_ver", "%u.%u.%u\n", pi->fw_ver >> 24,
		  (pi->fw_ver >> 16) & 0xff, pi->fw_ver & 0xffff);
	rc |= put(ca_dir, "hca_type", "madpmd net_hca\n");
	rc |= put(ca_dir, "hw_rev", "0x0\n");
	rc |= put(ca_dir, "board_id", "MADPMD\n");
	rc |= put(ca_dir, "node_desc", "%s\n", pi->node_desc);
	if (mkdirf(dir, sizeof(dir), SYSCLASS "/infiniband_mad") ||
	    mkdirf(dir, sizeof(dir), SYSCLASS "/infiniband_verbs") ||
	    mkdirf(dir, sizeof(dir), SYSCLASS "/infiniband_verbs/uverbs0"))
		return -1;
	rc |= put(SYSCLASS "/infiniband_mad", "abi_version", "5\n");
	rc |= put(SYSCLASS "/infiniband_verbs", "abi_version", "6\n");
	rc |= put(dir, "ibdev", "%s\n", node);
	rc |= put(dir, "abi_version", "1\n");
	if (nums)
		rc |= put_dev(dir, nums->uverbs);
	for (p = 1; p <= nports; p++, u++) {
		unsigned int num = sysfs_num(&ports[p], p);

		if (!ports[p].up)
			continue;
		if (mkdirf(dir, sizeof(dir), "%s/ports/%u", ca_dir, num) ||
		    mkdirf(dir, sizeof(dir), "%s/ports/%u/gids", ca_dir, num) ||
		    mkdirf(dir, sizeof(dir), "%s/ports/%u/gid_attrs", ca_dir, num) ||
		    mkdirf(dir, sizeof(dir), "%s/ports/%u/gid_attrs/types",
			   ca_dir, num) ||
		    mkdirf(dir, sizeof(dir), "%s/ports/%u/gid_attrs/ndevs",
			   ca_dir, num) ||
		    mkdirf(dir, sizeof(dir), "%s/ports/%u/pkeys", ca_dir, num))
			return -1;
		rc |= write_port_state(&ports[p], num);
		/* ib_umad numbers its devices umadN/issmN, N from 0 */
		if (mkdirf(dir, sizeof(dir), SYSCLASS "/infiniband_mad/umad%u", u))
			return -1;
		rc |= put(dir, "ibdev", "%s\n", node);
		rc |= put(dir, "port", "%u\n", num);
		if (nums && u < MPD_SYSFS_DEV_PORTS)
			rc |= put_dev(dir, nums->umad[u]);
		if (mkdirf(dir, sizeof(dir), SYSCLASS "/infiniband_mad/issm%u", u))
			return -1;
		rc |= put(dir, "ibdev", "%s\n", node);
		rc |= put(dir, "port", "%u\n", num);
		if (nums && u < MPD_SYSFS_DEV_PORTS)
			rc |= put_dev(dir, nums->issm[u]);
	}
	return rc ? -1 : 0;
}

static int
write_id_map(const char *file, const char *line)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, line, strlen(line));
	close(fd);
	return n == (ssize_t)strlen(line) ? 0 : -1;
}

/*
 * A private mount namespace: as root directly; else in a user namespace
 * mapping the caller's uid and gid to themselves (the capabilities it
 * brings last until exec: enough for the mounts, and the command runs as
 * the same user it was started as).
 */
static int
private_mounts(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char line[64];

	if (unshare(CLONE_NEWNS) != 0) {
		if (errno != EPERM ||
		    unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			return -1;
		snprintf(line, sizeof(line), "%u %u 1\n", uid, uid);
		if (write_id_map("/proc/self/setgroups", "deny\n") ||
		    write_id_map("/proc/self/uid_map", line))
			return -1;
		snprintf(line, sizeof(line), "%u %u 1\n", gid, gid);
		if (write_id_map("/proc/self/gid_map", line))
			return -1;
	}
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

static bool
ours(const char *name)
{
	return !strcmp(name, "infiniband") || !strcmp(name, "infiniband_mad") ||
	       !strcmp(name, "infiniband_verbs");
}

/* A tmpfs over /sys/class with the kernel's classes bound back, ours
 * left out */
static int
cover_sysclass(void)
{
	return mpd_sysfs_cover(SYSCLASS, "madpmd-sysclass",
			       MS_NOSUID | MS_NODEV | MS_NOEXEC, ours);
}

/* The node's ports as the daemon has them now: how many answered. */
static unsigned int
fetch_ports(const struct mpd_chan_node *n, struct sysfs_port *ports,
	    unsigned int nports)
{
	struct mpd_chan_session h;
	unsigned int p, up = 0;

	for (p = 1; p <= nports; p++) {
		/* a switch's one port: port 0 */
		ports[p].up = mpd_chan_hello(n, n->sw ? 0 : (int)p, &h) == 0;
		if (!ports[p].up)
			continue;
		ports[p].pi = h.rep.port;
		mpd_chan_session_close(&h);
		up++;
	}
	return up;
}

/* <run-dir>/ports, NUL-terminated; false when the daemon has none. */
static bool
read_table(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return false;
	while (len < size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	return true;
}

/*
 * The watcher: a grandchild, in a session of its own (a ^C for the
 * command is not for it), nobody's child to wait for. It follows the
 * command's PID through a pidfd and stops with it.
 */
static void
watch(pid_t cmd, const struct mpd_chan_node *n, struct sysfs_port *ports,
      unsigned int nports)
{
	/* a line a port: a large fabric's table fits */
	static char last[1 << 20], cur[1 << 20];
	struct pollfd pfd = { .events = POLLIN };
	char table[UMAD_PATH_MAX + 8];
	struct sysfs_port now[MAX_PORTS + 1];
	unsigned int p;
	int null;

	setsid();
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	snprintf(table, sizeof(table), "%s/ports", n->run_dir);
	read_table(table, last, sizeof(last));
	pfd.fd = pidfd_open(cmd, 0);
	for (;;) {
		if (pfd.fd >= 0) {
			if (poll(&pfd, 1, WATCH_MS) != 0)
				break;	/* the command exited */
		} else {
			usleep(WATCH_MS * 1000);
			if (kill(cmd, 0) != 0 && errno == ESRCH)
				break;
		}
		if (!read_table(table, cur, sizeof(cur))) {
			/* the daemon is gone: so is the link */
			for (p = 1; p <= nports; p++) {
				if (!ports[p].up)
					continue;
				ports[p].pi.state = 1;
				ports[p].pi.phys_state = 3;
				write_port_state(&ports[p],
						 sysfs_num(&ports[p], p));
			}
			break;
		}
		if (!strcmp(cur, last))
			continue;
		memcpy(last, cur, strlen(cur) + 1);
		if (!fetch_ports(n, now, nports))
			continue;
		for (p = 1; p <= nports; p++) {
			if (!ports[p].up || !now[p].up ||
			    !memcmp(&now[p].pi, &ports[p].pi, sizeof(now[p].pi)))
				continue;
			ports[p].pi = now[p].pi;
			write_port_state(&ports[p], sysfs_num(&ports[p], p));
		}
	}
	_exit(0);
}

/* Builds the tree and starts the watcher; -1 with a sentence said.
 * With net (madpmd-run --net) first into the node's network namespace,
 * or exit 1: the command is not run without the IP it asked for. */
static int
setup(bool sysfs, bool net)
{
	static struct sysfs_port ports[MAX_PORTS + 1];
	static struct mpd_sysfs_dev_nums dev_nums;
	const struct mpd_sysfs_dev_nums *nums;
	static char dir[UMAD_PATH_MAX];
	static struct mpd_chan_node n;
	pid_t self = getpid(), child;
	unsigned int nports;
	int status;

	if (mpd_chan_node_lookup(NULL, &n) != MPD_CHAN_NODE_FOUND) {
		if (net) {
			say("--net: no node %s to take the network namespace of",
			    n.name);
			exit(1);
		}
		return -1;	/* madpmd-run checked; the tool will say */
	}
	if (net) {
		char msg[512];

		if (mpd_sysfs_net_join(&n, msg, sizeof(msg)) != 0) {
			say("--net: %s", msg);
			exit(1);
		}
		in_netns = true;
	}
	if (!sysfs)
		return 0;
	nports = n.num_ports < MAX_PORTS ? n.num_ports : MAX_PORTS;
	if (!fetch_ports(&n, ports, nports))
		return -1;	/* the tool will meet the same */
	snprintf(dir, sizeof(dir), SYSCLASS "/infiniband/%s", n.dev);
	ca_dir = dir;
	if (private_mounts() != 0) {
		say("no /sys/class/infiniband or /dev/infiniband for %s: no private mount namespace here (%s; needs root or user namespaces); running the command without them",
		    n.name, strerror(errno));
		return -1;
	}
	/* the namespace's own sysfs: its network devices in /sys/class/net
	 * (the rest is the machine's, as in a container) */
	if (in_netns && mount("sysfs", "/sys", "sysfs",
			      MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		say("--net: /sys/class/net is the machine's: cannot mount the namespace's sysfs (%s)",
		    strerror(errno));
	if (cover_sysclass() != 0) {
		say("no /sys/class/infiniband or /dev/infiniband for %s: cannot cover /sys/class (%s); running the command without them",
		    n.name, strerror(errno));
		return -1;
	}
	nums = &dev_nums;
	if (mpd_sysfs_dev(nports, &dev_nums) != 0) {
		say("no /dev/infiniband for %s: %s; running the command without it",
		    n.name, strerror(errno));
		nums = NULL;
	}
	if (write_tree(n.dev, ports, nports, nums) != 0) {
		say("no /sys/class/infiniband for %s: cannot write it (%s); running the command without it",
		    n.name, strerror(errno));
		umount2(SYSCLASS, MNT_DETACH);
		return -1;
	}
	child = fork();
	if (child == 0) {
		if (fork() == 0)
			watch(self, &n, ports, nports);
		_exit(0);
	}
	if (child > 0)
		waitpid(child, &status, 0);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *off = getenv("MADPMD_SYSFS"), *net = getenv("MADPMD_NET");

	if (argc < 2) {
		fprintf(stderr, "usage: madpmd-sysfs COMMAND [ARGS...] (madpmd-run runs it)\n");
		return 2;
	}
	setup(!off || strcmp(off, "0"), net && !strcmp(net, "1"));
	execvp(argv[1], argv + 1);
	fprintf(stderr, "madpmd-run: %s: %s\n", argv[1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
