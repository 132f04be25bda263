/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client channel against a real daemon: this program is a plain
 * process (no EAL) speaking madpmd/chan.h to `madpmd` running the default
 * fabric. It sends SMPs to its own port (answered locally) and to the
 * other node (over the wire), lets one time out, registers conflicting
 * agents, holds the ISSM device, and checks that a client sending garbage
 * or killed outright is cut off while the others keep working.
 *   test_chan <madpmd>
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "madpmd/attr.h"
#include "madpmd/chan.h"
#include "madpmd/mad.h"
#include "madpmd/ring.h"
#include "madpmd/wire.h"
#include "raw_chan.h"
#include "tap.h"

static char run_dir[64];

static int
reg(struct raw_chan *c, uint8_t cls, uint8_t ver, uint64_t methods, uint8_t qpn)
{
	struct mpd_chan_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.type = MPD_CHAN_REGISTER;
	m.u.reg_req.mgmt_class = cls;
	m.u.reg_req.class_version = ver;
	m.u.reg_req.qpn = qpn;
	m.u.reg_req.method_mask[0] = methods;
	rc = raw_chan_request(c, &m, NULL, 0);
	return rc ? -rc : (int)m.u.reg_rep.agent_id;
}

/* struct ib_user_mad: agent, status, timeout, retries, length, addr */
struct umad {
	uint32_t agent_id, status, timeout_ms, retries, length;
	uint32_t qpn, qkey;
	uint16_t lid;
	uint8_t sl, path_bits, grh_present, gid_index, hop_limit, tclass;
	uint8_t gid[16];
	uint32_t flow_label;
	uint16_t pkey_index;
	uint8_t rsvd[6];
	uint8_t data[MPD_MAD_LEN];
};

static int
send_dr(struct raw_chan *c, int agent, uint8_t hops, uint16_t attr,
	uint32_t timeout, uint32_t retries, uint64_t tid)
{
	struct umad u;
	struct mpd_mad m;
	unsigned int i;

	memset(&u, 0, sizeof(u));
	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_DR;
	m.hdr.class_version = 1;
	m.hdr.method = MPD_METHOD_GET;
	m.hdr.tid = tid;
	m.hdr.attr_id = attr;
	m.hdr.class_specific = hops;	/* hop pointer 0, count */
	m.dr_slid = m.dr_dlid = MPD_LID_PERMISSIVE;
	for (i = 1; i <= hops; i++)
		m.initial_path[i] = 1;
	mpd_mad_encode(&m, NULL, 0, u.data, sizeof(u.data));
	u.agent_id = (uint32_t)agent;
	u.timeout_ms = timeout;
	u.retries = retries;
	u.length = MPD_MAD_LEN;
	u.lid = 0xffff;
	return mpd_ring_put(&c->tx, MPD_CHAN_REC_UMAD, &u, sizeof(u), NULL, 0);
}

/* Wait for one record (up to ms). */
static int
recv_umad(struct raw_chan *c, struct umad *u, int ms)
{
	return raw_chan_next(c, MPD_CHAN_REC_UMAD, u, sizeof(*u), ms);
}

/* 1 when the port has IsSM set, 0 when clear, -1 when it cannot be asked */
static int
port_is_sm(const char *node)
{
	struct raw_chan c;
	struct mpd_chan_msg m;
	int ret = -1;

	if (raw_chan_open(&c, run_dir, node) != 0) {
		tap_diag("port_is_sm(%s): cannot open a session", node);
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_CHAN_PORT_INFO;
	if (raw_chan_request(&c, &m, NULL, 0) == 0)
		ret = !!(m.u.port.capmask & (1u << 1));
	else
		tap_diag("port_is_sm(%s): PORT_INFO request failed", node);
	raw_chan_close(&c);
	return ret;
}

int
main(int argc, char **argv)
{
	struct raw_chan a, b, g;
	struct umad u;
	struct mpd_node_info ni;
	char path[256], sock[256];
	pid_t daemon, child;
	int agent, i, n, fd, fd2, st;

	if (argc < 2) {
		fprintf(stderr, "usage: test_chan <madpmd>\n");
		return 2;
	}
	tap_seed();
	snprintf(run_dir, sizeof(run_dir), "/tmp/madpmd-chan-%d", (int)getpid());
	daemon = fork();
	if (daemon == 0) {
		execl(argv[1], argv[1], "--", "--run-dir", run_dir, (char *)NULL);
		_exit(127);
	}
	/* the ports table is written once every port has started: before,
	 * a client may already connect and see a port still coming up */
	snprintf(sock, sizeof(sock), "%s/ports", run_dir);
	for (i = 0; i < 100 && access(sock, F_OK) != 0; i++)
		usleep(100000);
	snprintf(sock, sizeof(sock), "%s/hca2/umad", run_dir);
	if (!ok(access(sock, F_OK) == 0, "madpmd serves %s", sock))
		goto out;
	if (!ok(raw_chan_open(&a, run_dir, "hca1") == 0, "HELLO on hca1: memfd and eventfd"))
		goto out;
	ok(strcmp(a.port.ca_name, "hca1") == 0 && a.port.state == 2 &&
	   a.port.phys_state == 5 && a.port.port_num == 1,
	   "port info: hca1 port 1, Init, LinkUp");
	agent = reg(&a, MPD_CLASS_SUBN_DR, 1, 0, 0);
	is_int(agent, 0, "first agent is 0");

	/* hop count 0: our own port's SMA, no wire */
	send_dr(&a, agent, 0, MPD_ATTR_NODE_INFO, 200, 1, 0x11);
	n = recv_umad(&a, &u, 2000);
	mpd_layout_decode(&mpd_node_info_layout, u.data + 64, 64, &ni);
	ok(n == 64 + MPD_MAD_LEN && u.status == 0 && u.data[3] == 0x81 &&
	   ni.node_guid == a.port.node_guid,
	   "DR Get(NodeInfo), 0 hops: our own SMA answers (status %u)",
	   u.status);
	is_int(mpd_get_be64(u.data + 8) & 0xffffffff, 0x11,
	       "the answer carries our TID (low 32 bits)");

	/* one hop: across the wire to hca2 */
	send_dr(&a, agent, 1, MPD_ATTR_NODE_INFO, 200, 1, 0x12);
	n = recv_umad(&a, &u, 2000);
	mpd_layout_decode(&mpd_node_info_layout, u.data + 64, 64, &ni);
	ok(n == 64 + MPD_MAD_LEN && u.status == 0 &&
	   ni.node_guid != a.port.node_guid && ni.node_type == 1,
	   "DR Get(NodeInfo), 1 hop: hca2 answers over the wire (guid %llx)",
	   (unsigned long long)ni.node_guid);
	ok(u.data[4] & 0x80, "the response has the D bit");

	/* two hops: hca2 is no switch, nothing comes back */
	send_dr(&a, agent, 2, MPD_ATTR_NODE_INFO, 100, 2, 0x13);
	n = recv_umad(&a, &u, 3000);
	ok(n > 0 && u.status == ETIMEDOUT && u.length == 24,
	   "an unanswered send comes back after its retries: status %u, length %u",
	   u.status, u.length);

	/* registration conflicts and a killed client */
	child = fork();
	if (child == 0) {
		struct raw_chan k;

		if (raw_chan_open(&k, run_dir, "hca1") || reg(&k, MPD_CLASS_SUBN_LID, 1,
						   1u << MPD_METHOD_TRAP, 0) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	usleep(300000);
	ok(raw_chan_open(&b, run_dir, "hca1") == 0, "a second client on hca1");
	is_int(reg(&b, MPD_CLASS_SUBN_LID, 1, 1u << MPD_METHOD_TRAP, 0),
	       -EINVAL, "Trap on SubnLID already has an agent: EINVAL");
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	for (i = 0, n = -1; i < 30 && n < 0; i++) {
		usleep(100000);
		n = reg(&b, MPD_CLASS_SUBN_LID, 1, 1u << MPD_METHOD_TRAP, 0);
	}
	ok(n >= 0, "after the holder was killed, the agent is free again");

	/* a client writing garbage is cut off; the others go on */
	if (raw_chan_open(&g, run_dir, "hca1") == 0) {
		uint8_t junk[200];
		char c;

		rnd_bytes(junk, sizeof(junk));
		mpd_ring_put(&g.tx, MPD_CHAN_REC_UMAD, junk, sizeof(junk), NULL, 0);
		for (i = 0; i < 30; i++) {
			struct pollfd p = { .fd = g.sock, .events = POLLIN };

			if (poll(&p, 1, 100) > 0)
				break;
		}
		ok(recv(g.sock, &c, 1, MSG_DONTWAIT) == 0,
		   "a client sending garbage is cut off (socket closed)");
		raw_chan_close(&g);
	}
	send_dr(&a, agent, 1, MPD_ATTR_NODE_DESC, 200, 1, 0x14);
	n = recv_umad(&a, &u, 2000);
	ok(n > 0 && u.status == 0 && strncmp((char *)u.data + 64, "hca2", 4) == 0,
	   "the first client still gets answers (NodeDescription '%.8s')",
	   (char *)u.data + 64);

	/* ISSM: IsSM while the FIFO is held open */
	snprintf(path, sizeof(path), "%s/hca1/issm", run_dir);
	ok(port_is_sm("hca1") == 0, "IsSM clear at first");
	fd = open(path, O_RDONLY | O_NONBLOCK);
	usleep(300000);
	ok(fd >= 0 && port_is_sm("hca1") == 1, "opening %s sets IsSM", path);
	fd2 = open(path, O_RDONLY | O_NONBLOCK);
	ok(fd2 < 0 && errno == ENXIO,
	   "a second SM cannot open it while it is held (%s)",
	   fd2 < 0 ? strerror(errno) : "opened");
	if (fd2 >= 0)
		close(fd2);
	close(fd);
	usleep(300000);
	ok(port_is_sm("hca1") == 0, "closing it clears IsSM");
	fd = open(path, O_RDONLY | O_NONBLOCK);
	usleep(300000);
	ok(fd >= 0 && port_is_sm("hca1") == 1, "the next SM opens it and sets IsSM");
	if (fd >= 0)
		close(fd);
	usleep(300000);
	ok(port_is_sm("hca1") == 0, "and clears it on close");
	raw_chan_close(&a);
	raw_chan_close(&b);
out:
	kill(daemon, SIGTERM);
	waitpid(daemon, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "madpmd stopped cleanly");
	ok(access(run_dir, F_OK) != 0, "and removed %s", run_dir);
	return tap_done();
}
