/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A umad client on a RoCE port, written against libibumad only (run it
 * under madpmd-run): sends with a GRH go where the destination GID is in
 * the fabric, and sends that cannot be addressed fail in umad_send() at
 * once. Usage: umad_roce <peer node>. TAP on stdout.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

static int n, fails;

static void
ok(int cond, const char *what)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ++n, what);
	fails += !cond;
}

/* Get(PortCounters) from the PMA behind gid; the response's status, or
 * -errno of umad_send (errno kept), or -ETIMEDOUT. */
static int
perf_get(int fd, int agent, const uint8_t gid[16], int grh, uint32_t tid)
{
	uint8_t buf[64 + 256], *mad = buf + 64;
	struct ib_user_mad *u = (struct ib_user_mad *)buf;
	int len, rc;

	memset(buf, 0, sizeof(buf));
	umad_set_addr(buf, 0, 1, 0, 0x80010000);
	if (grh) {
		u->addr.grh_present = 1;
		u->addr.hop_limit = 64;
		memcpy(u->addr.gid, gid, 16);
	}
	mad[0] = 1;			/* BaseVersion */
	mad[1] = 0x04;			/* PerfMgt */
	mad[2] = 1;
	mad[3] = 0x01;			/* Get */
	*(uint32_t *)(mad + 12) = htobe32(tid);
	mad[16] = 0x00;
	mad[17] = 0x12;			/* PortCounters */
	mad[64 + 1] = 1;		/* PortSelect */
	rc = umad_send(fd, agent, buf, 256, 500, 0);
	if (rc < 0)
		return -errno;
	len = 256;
	rc = umad_recv(fd, buf, &len, 2000);
	if (rc < 0)
		return -ETIMEDOUT;
	if (u->status)
		return -(int)u->status;
	return be16toh(*(uint16_t *)(mad + 4)) | (mad[3] == 0x81 ? 0 : 0x10000);
}

int
main(int argc, char **argv)
{
	umad_port_t peer, me;
	uint8_t gid[16];
	int fd, agent, rc;

	if (argc != 2 || umad_init() < 0)
		return 2;
	if (umad_get_port(argv[1], 1, &peer) < 0 ||
	    umad_get_port(NULL, 1, &me) < 0) {
		printf("Bail out! cannot read the ports\n");
		return 1;
	}
	ok(!strcmp(me.link_layer, "Ethernet"),
	   "this port is a RoCE port");
	fd = umad_open_port(NULL, 1);
	agent = fd >= 0 ? umad_register(fd, 0x04, 1, 0, NULL) : -1;
	ok(agent >= 0, "a PerfMgt agent");
	memcpy(gid, &peer.gid_prefix, 8);
	memcpy(gid + 8, &peer.port_guid, 8);
	rc = perf_get(fd, agent, gid, 1, 1);
	ok(rc == 0, "Get(PortCounters) to the peer's GID 0: answered");
	if (rc)
		printf("# got %d\n", rc);
	rc = perf_get(fd, agent, gid, 0, 2);
	ok(rc == -EINVAL, "without a GRH: umad_send fails at once, EINVAL");
	gid[15] ^= 0x55;
	rc = perf_get(fd, agent, gid, 1, 3);
	ok(rc == -EHOSTUNREACH,
	   "to a GID nobody in the fabric has: EHOSTUNREACH at once");
	memcpy(gid, &me.gid_prefix, 8);
	memcpy(gid + 8, &me.port_guid, 8);
	rc = perf_get(fd, agent, gid, 1, 4);
	ok(rc == 0, "to its own GID: the port's own PMA answers (loopback)");
	umad_close_port(fd);
	umad_release_port(&peer);
	umad_release_port(&me);
	printf("1..%d\n", n);
	return fails != 0;
}
