/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The nodes' network namespaces (netns.h). The child that makes one or
 * adds a device to it does system calls only (it is forked from a
 * threaded process): everything it needs is prepared before the fork,
 * and it hands its fds back over a socketpair (SCM_RIGHTS).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <net/route.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "netns.h"

#define NODE_MAX	64
#define CHILD_MS	3000

struct ns_entry {
	char node[NODE_MAX];
	int ns;
	int user;			/* -1: the daemon's own */
};

static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ns_entry *tab;
static unsigned int ntab;

static struct ns_entry *
find(const char *node)
{
	unsigned int i;

	for (i = 0; i < ntab; i++)
		if (!strcmp(tab[i].node, node))
			return &tab[i];
	return NULL;
}

/* What the child needs, made before the fork */
struct child_plan {
	int join_ns, join_user;		/* -1: make them */
	char uid_map[32], gid_map[32];
	struct ifreq tun;		/* TUNSETIFF */
	struct ifreq hw, mtu, addr, mask, up, lo;
	struct rtentry route;
	char ifname[HCA_NETNS_IFNAMSIZ];
	bool tap;			/* else a TUN (IPoIB: no link layer) */
	char no_ip6[64];		/* its disable_ipv6 */
};

static int
write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static int
enter(const struct child_plan *c, bool *made_user)
{
	*made_user = false;
	if (c->join_ns >= 0) {
		if (c->join_user >= 0 && setns(c->join_user, CLONE_NEWUSER))
			return -1;
		return setns(c->join_ns, CLONE_NEWNET);
	}
	if (unshare(CLONE_NEWNET) == 0)
		return 0;
	if (errno != EPERM)
		return -1;
	/* not root: a user namespace of ours, our uid mapped to itself */
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
		return -1;
	*made_user = true;
	if (write_file("/proc/self/setgroups", "deny\n") ||
	    write_file("/proc/self/uid_map", c->uid_map) ||
	    write_file("/proc/self/gid_map", c->gid_map))
		return -1;
	return 0;
}

static int
configure(const struct child_plan *c, int dev, bool first)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;
	struct ifreq flags;

	if (s < 0)
		return -1;
	if (ioctl(dev, TUNSETIFF, &c->tun))
		goto out;
	/* IPoIB here carries IPv4 alone (no neighbour discovery over IB):
	 * no IPv6 on the TUN, whose packets would only be dropped (the
	 * namespace's own /proc/sys/net; where it cannot, they are) */
	if (!c->tap)
		write_file(c->no_ip6, "1\n");
	if ((c->tap && ioctl(s, SIOCSIFHWADDR, &c->hw)) ||
	    ioctl(s, SIOCSIFMTU, &c->mtu) ||
	    ioctl(s, SIOCSIFADDR, &c->addr) ||
	    ioctl(s, SIOCSIFNETMASK, &c->mask))
		goto out;
	flags = c->up;
	if (ioctl(s, SIOCGIFFLAGS, &flags))
		goto out;
	flags.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &flags))
		goto out;
	if (first) {
		flags = c->lo;
		if (ioctl(s, SIOCGIFFLAGS, &flags))
			goto out;
		flags.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &flags) ||
		    ioctl(s, SIOCADDRT, &c->route))
			goto out;
	}
	rc = 0;
out:
	close(s);
	return rc;
}

static int
send_fds(int sock, int err, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct iovec iov = { &err, sizeof(err) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (nfds) {
		memset(&cb, 0, sizeof(cb));
		mh.msg_control = cb.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* The child: into the namespace, the device made; its fd, then (when it
 * made them) the namespaces' */
static void
child(int sock, const struct child_plan *c)
{
	int fds[3], n = 0, err;
	bool made_user;

	if (enter(c, &made_user))
		goto fail;
	fds[n++] = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fds[0] < 0 || configure(c, fds[0], c->join_ns < 0))
		goto fail;
	if (c->join_ns < 0) {
		fds[n++] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (fds[1] < 0)
			goto fail;
		if (made_user) {
			fds[n++] = open("/proc/self/ns/user",
					O_RDONLY | O_CLOEXEC);
			if (fds[2] < 0)
				goto fail;
		}
	}
	_exit(send_fds(sock, 0, fds, n) ? 1 : 0);
fail:
	err = errno ? errno : EIO;
	send_fds(sock, err, NULL, 0);
	_exit(1);
}

/* The child's answer: 0 with its fds, or an errno */
static int
recv_fds(int sock, int *fds, int max, int *nfds)
{
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} cb;
	int err = EIO;
	struct iovec iov = { &err, sizeof(err) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cb.buf,
			     .msg_controllen = sizeof(cb.buf) };
	struct pollfd p = { .fd = sock, .events = POLLIN };
	struct cmsghdr *cm;
	ssize_t n;
	int i, got = 0;

	*nfds = 0;
	if (poll(&p, 1, CHILD_MS) != 1)
		return ETIMEDOUT;
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (n != sizeof(err))
		return EIO;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			got = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
	cm = CMSG_FIRSTHDR(&mh);
	if (got > max) {
		for (i = 0; i < got; i++)
			close(((int *)CMSG_DATA(cm))[i]);
		return EIO;
	}
	if (got)
		memcpy(fds, CMSG_DATA(cm), (size_t)got * sizeof(int));
	*nfds = got;
	if (err) {
		for (i = 0; i < got; i++)
			close(fds[i]);
		*nfds = 0;
	}
	return err;
}

static void
set_in(struct sockaddr *sa, const uint8_t ip4[4])
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	memcpy(&sin.sin_addr, ip4, 4);
	memcpy(sa, &sin, sizeof(sin));
}

static void
plan(struct child_plan *c, const struct hca_netns_req *r,
     const struct ns_entry *e)
{
	static const uint8_t mask16[4] = { 255, 255, 0, 0 };
	static const uint8_t any[4];

	memset(c, 0, sizeof(*c));
	c->join_ns = e ? e->ns : -1;
	c->join_user = e ? e->user : -1;
	snprintf(c->uid_map, sizeof(c->uid_map), "%u %u 1\n", getuid(),
		 getuid());
	snprintf(c->gid_map, sizeof(c->gid_map), "%u %u 1\n", getgid(),
		 getgid());
	c->tap = r->roce;
	snprintf(c->ifname, sizeof(c->ifname), "%s%u", r->roce ? "eth" : "ib",
		 r->port_num ? r->port_num - 1 : 0);
	memcpy(c->tun.ifr_name, c->ifname, sizeof(c->ifname));
	c->tun.ifr_flags = (r->roce ? IFF_TAP : IFF_TUN) | IFF_NO_PI;
	snprintf(c->no_ip6, sizeof(c->no_ip6),
		 "/proc/sys/net/ipv6/conf/%s/disable_ipv6", c->ifname);
	c->hw = c->mtu = c->addr = c->mask = c->up = c->tun;
	c->hw.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(c->hw.ifr_hwaddr.sa_data, r->mac, 6);
	c->mtu.ifr_mtu = (int)r->mtu;
	set_in(&c->addr.ifr_addr, r->ip4);
	/* every address of the fabric is on the link (the default route
	 * names the device, no gateway): nodes of any numbering reach
	 * each other by ARP */
	set_in(&c->mask.ifr_netmask, mask16);
	snprintf(c->lo.ifr_name, sizeof(c->lo.ifr_name), "lo");
	set_in(&c->route.rt_dst, any);
	set_in(&c->route.rt_genmask, any);
	c->route.rt_flags = RTF_UP;
	c->route.rt_dev = c->ifname;
}

int
hca_netns_add_port(const struct hca_netns_req *r, int *dev,
		   char ifname[HCA_NETNS_IFNAMSIZ])
{
	struct child_plan c;
	struct ns_entry *e;
	int sv[2], fds[3], nfds = 0, rc, status;
	pid_t pid;

	if (strlen(r->node) >= NODE_MAX)
		return ENAMETOOLONG;
	pthread_mutex_lock(&tab_lock);
	e = find(r->node);
	plan(&c, r, e);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		rc = errno;
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		child(sv[1], &c);
	}
	close(sv[1]);
	if (pid < 0) {
		rc = errno;
		close(sv[0]);
		goto out;
	}
	rc = recv_fds(sv[0], fds, 3, &nfds);
	close(sv[0]);
	if (rc == ETIMEDOUT)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc)
		goto out;
	if (!e && nfds < 2) {
		rc = EIO;
		goto close;
	}
	if (!e) {
		struct ns_entry *t = realloc(tab, (ntab + 1) * sizeof(*tab));

		if (!t) {
			rc = ENOMEM;
			goto close;
		}
		tab = t;
		e = &tab[ntab++];
		snprintf(e->node, sizeof(e->node), "%s", r->node);
		e->ns = fds[1];
		e->user = nfds > 2 ? fds[2] : -1;
	}
	*dev = fds[0];
	memcpy(ifname, c.ifname, HCA_NETNS_IFNAMSIZ);
	goto out;
close:
	while (nfds > 0)
		close(fds[--nfds]);
out:
	pthread_mutex_unlock(&tab_lock);
	return rc;
}

int
hca_netns_fds(const char *node, int *ns, int *user)
{
	struct ns_entry *e;
	int rc = 0;

	pthread_mutex_lock(&tab_lock);
	e = find(node);
	*ns = *user = -1;
	if (!e) {
		rc = ENOENT;
	} else {
		*ns = fcntl(e->ns, F_DUPFD_CLOEXEC, 3);
		if (e->user >= 0)
			*user = fcntl(e->user, F_DUPFD_CLOEXEC, 3);
		if (*ns < 0 || (e->user >= 0 && *user < 0)) {
			rc = errno;
			if (*ns >= 0)
				close(*ns);
			if (*user >= 0)
				close(*user);
			*ns = *user = -1;
		}
	}
	pthread_mutex_unlock(&tab_lock);
	return rc;
}
