/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The drop-in librdmacm.so.1 on its own, from a program built on
 * rdma-core's headers and linked with rdma-core's librdmacm (the drop-in
 * replaces it at run time: the first check is that it did):
 *   test_rdmacm_api LIBPATH all        the library alone, then nofabric
 *   test_rdmacm_api LIBPATH nofabric   MADPMD_RUN_DIR with no daemon
 *   test_rdmacm_api LIBPATH fabric     a daemon runs (MADPMD_RUN_DIR)
 * The library alone: rdma_getaddrinfo() (numeric, passive, "localhost", its errors),
 * rdma_event_str() for every event, rpoll()/rselect() against
 * poll()/select(), ENOSYS from the rsocket calls, a join's argument checks.
 * nofabric: every call that needs the daemon fails with ENODEV, no crash.
 * fabric: an event channel's fd is pollable and quiet, O_NONBLOCK gives
 * EAGAIN, rdma_get_devices() lists the node's device; an id is made,
 * bound to the wildcard, refused an AF_UNIX address, destroyed; a UDP id
 * resolves a group address and its join fails MULTICAST_ERROR
 * -ENETUNREACH (no SM runs), an RC id's join EINVAL, a second leave
 * EADDRNOTAVAIL. A channel destroyed while another thread waits in
 * rdma_get_cm_event() (rping's cm_thread does, while main tears down):
 * its fd number is free at once, the waiter stays blocked as on the
 * kernel's file, the process's fds go back to what they were, and 100
 * rounds racing an event's arrival with the destroy do not crash.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "tap.h"

static void
check_loaded(const char *want)
{
	char real_want[4096], real_got[4096];
	Dl_info info;

	ok(dladdr((void *)rdma_create_event_channel, &info) &&
	   info.dli_fname, "dladdr finds librdmacm");
	if (!realpath(want, real_want) ||
	    !realpath(info.dli_fname, real_got)) {
		ok(0, "the library paths resolve (%s, %s)", want,
		   info.dli_fname);
		return;
	}
	ok(!strcmp(real_want, real_got), "the drop-in is the librdmacm loaded (%s)",
	   real_got);
}

static void
test_getaddrinfo(void)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct sockaddr_in *sin;
	struct sockaddr_in6 *sin6;
	int rc;

	/* numeric destination, TCP port space */
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	rc = rdma_getaddrinfo("192.0.2.7", "7471", &hints, &res);
	is_int(rc, 0, "getaddrinfo numeric: 0");
	if (!rc) {
		sin = (struct sockaddr_in *)res->ai_dst_addr;
		ok(res->ai_dst_len == sizeof(*sin) && sin->sin_family == AF_INET &&
		   sin->sin_addr.s_addr == inet_addr("192.0.2.7") &&
		   ntohs(sin->sin_port) == 7471,
		   "numeric: destination 192.0.2.7:7471");
		ok(!res->ai_src_addr && !(res->ai_flags & RAI_PASSIVE),
		   "numeric: no source, not passive");
		is_int(res->ai_qp_type, IBV_QPT_RC, "numeric: RC (from TCP)");
		is_int(res->ai_port_space, RDMA_PS_TCP, "numeric: RDMA_PS_TCP");
		is_int(res->ai_family, AF_INET, "numeric: AF_INET");
		rdma_freeaddrinfo(res);
		res = NULL;
	}

	/* passive: the wildcard source, UDP port space gives UD */
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_UDP;
	hints.ai_family = AF_INET;
	rc = rdma_getaddrinfo(NULL, "7174", &hints, &res);
	is_int(rc, 0, "getaddrinfo passive: 0");
	if (!rc) {
		sin = (struct sockaddr_in *)res->ai_src_addr;
		ok((res->ai_flags & RAI_PASSIVE) && sin &&
		   sin->sin_family == AF_INET &&
		   sin->sin_addr.s_addr == htonl(INADDR_ANY) &&
		   ntohs(sin->sin_port) == 7174,
		   "passive: source 0.0.0.0:7174, RAI_PASSIVE");
		ok(!res->ai_dst_addr, "passive: no destination");
		is_int(res->ai_qp_type, IBV_QPT_UD, "passive: UD (from UDP)");
		rdma_freeaddrinfo(res);
		res = NULL;
	}

	/* a host name, through getaddrinfo(): loopback */
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	rc = rdma_getaddrinfo("localhost", "7471", &hints, &res);
	is_int(rc, 0, "getaddrinfo localhost: 0");
	if (!rc) {
		sin = (struct sockaddr_in *)res->ai_dst_addr;
		sin6 = (struct sockaddr_in6 *)res->ai_dst_addr;
		ok((sin->sin_family == AF_INET &&
		    sin->sin_addr.s_addr == htonl(INADDR_LOOPBACK)) ||
		   (sin6->sin6_family == AF_INET6 &&
		    IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr)),
		   "localhost: a loopback address");
		rdma_freeaddrinfo(res);
		res = NULL;
	}

	/* RAI_NUMERICHOST refuses a name; RAI_FAMILY picks IPv6 */
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_NUMERICHOST;
	rc = rdma_getaddrinfo("localhost", NULL, &hints, &res);
	is_int(rc, EAI_NONAME, "RAI_NUMERICHOST with a name: EAI_NONAME");
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_NUMERICHOST | RAI_FAMILY;
	hints.ai_family = AF_INET6;
	hints.ai_port_space = RDMA_PS_TCP;
	res = NULL;
	rc = rdma_getaddrinfo("::1", "18515", &hints, &res);
	is_int(rc, 0, "getaddrinfo ::1 with RAI_FAMILY AF_INET6: 0");
	if (!rc) {
		sin6 = (struct sockaddr_in6 *)res->ai_dst_addr;
		ok(sin6->sin6_family == AF_INET6 &&
		   IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr) &&
		   ntohs(sin6->sin6_port) == 18515 &&
		   res->ai_dst_len == sizeof(*sin6),
		   "::1: destination [::1]:18515");
		rdma_freeaddrinfo(res);
	}
	hints.ai_flags = RAI_NUMERICHOST | RAI_FAMILY;
	hints.ai_family = AF_INET;
	rc = rdma_getaddrinfo("::1", NULL, &hints, &res);
	ok(rc != 0, "::1 with RAI_FAMILY AF_INET: refused (%d)", rc);

	errno = 0;
	rc = rdma_getaddrinfo(NULL, NULL, NULL, &res);
	ok(rc == -1 && errno == EINVAL, "no node, service or hints: EINVAL");
	rdma_freeaddrinfo(NULL);
	ok(1, "rdma_freeaddrinfo(NULL) returns");
}

static void
test_event_str(void)
{
	static const char *const want[] = {
		"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR",
		"CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR",
		"UNREACHABLE", "REJECTED", "ESTABLISHED", "DISCONNECTED",
		"DEVICE_REMOVAL", "MULTICAST_JOIN", "MULTICAST_ERROR",
		"ADDR_CHANGE", "TIMEWAIT_EXIT",
	};
	char name[64];
	unsigned int i;
	int bad = 0;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		snprintf(name, sizeof(name), "RDMA_CM_EVENT_%s", want[i]);
		if (strcmp(rdma_event_str((enum rdma_cm_event_type)i), name)) {
			tap_diag("event %u: %s, want %s", i,
				 rdma_event_str((enum rdma_cm_event_type)i), name);
			bad++;
		}
	}
	ok(!bad, "rdma_event_str: all 16 events by rdma-core's names");
	ok(!strcmp(rdma_event_str((enum rdma_cm_event_type)16), "UNKNOWN EVENT") &&
	   !strcmp(rdma_event_str((enum rdma_cm_event_type)-1), "UNKNOWN EVENT"),
	   "rdma_event_str: UNKNOWN EVENT past the last");
}

static void
test_rpoll(void)
{
	struct pollfd a[2], b[2];
	struct timeval tv = { 0 };
	fd_set r1, r2;
	int p[2], q[2], n1, n2;

	if (pipe(p) || pipe(q)) {
		ok(0, "pipes");
		return;
	}
	a[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	a[1] = (struct pollfd){ .fd = q[1], .events = POLLOUT };
	memcpy(b, a, sizeof(a));
	n1 = rpoll(a, 2, 0);
	n2 = poll(b, 2, 0);
	ok(n1 == n2 && n1 == 1 && a[0].revents == b[0].revents &&
	   a[1].revents == b[1].revents,
	   "rpoll as poll: the write end ready, the read end not (%d)", n1);
	if (write(p[1], "x", 1) != 1)
		ok(0, "write");
	a[0].revents = a[1].revents = b[0].revents = b[1].revents = 0;
	n1 = rpoll(a, 2, 100);
	n2 = poll(b, 2, 100);
	ok(n1 == 2 && n2 == 2 && (a[0].revents & POLLIN) &&
	   a[0].revents == b[0].revents,
	   "rpoll as poll: a byte makes the read end ready");
	close(p[1]);
	a[0].revents = 0;
	n1 = rpoll(a, 1, 0);
	b[0].revents = 0;
	n2 = poll(b, 1, 0);
	ok(n1 == n2 && a[0].revents == b[0].revents,
	   "rpoll as poll: a closed write end (revents 0x%x)", a[0].revents);
	FD_ZERO(&r1);
	FD_SET(p[0], &r1);
	r2 = r1;
	n1 = rselect(p[0] + 1, &r1, NULL, NULL, &tv);
	n2 = select(p[0] + 1, &r2, NULL, NULL, &tv);
	ok(n1 == n2 && n1 == 1 && FD_ISSET(p[0], &r1),
	   "rselect as select: the read end ready");
	close(p[0]);
	close(q[0]);
	close(q[1]);
}

static void
test_enosys(void)
{
	struct rdma_cm_join_mc_attr_ex mc;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_id id;
	char buf[8];
	int rc;

	errno = 0;
	rc = rsocket(AF_INET, SOCK_STREAM, 0);
	ok(rc == -1 && errno == ENOSYS, "rsocket: -1 ENOSYS");
	errno = 0;
	ok(rbind(3, (struct sockaddr *)&sin, sizeof(sin)) == -1 &&
	   errno == ENOSYS, "rbind: -1 ENOSYS");
	errno = 0;
	ok(rconnect(3, (struct sockaddr *)&sin, sizeof(sin)) == -1 &&
	   errno == ENOSYS, "rconnect: -1 ENOSYS");
	errno = 0;
	ok(rsend(3, buf, sizeof(buf), 0) == -1 && errno == ENOSYS,
	   "rsend: -1 ENOSYS");
	errno = 0;
	ok(rrecv(3, buf, sizeof(buf), 0) == -1 && errno == ENOSYS,
	   "rrecv: -1 ENOSYS");
	errno = 0;
	ok(rfcntl(3, F_GETFL) == -1 && errno == ENOSYS, "rfcntl: -1 ENOSYS");
	errno = 0;
	ok(riomap(3, buf, sizeof(buf), PROT_WRITE, 0, -1) == -1 &&
	   errno == ENOSYS, "riomap: -1 ENOSYS");
	errno = 0;
	ok(riowrite(3, buf, sizeof(buf), 0, 0) == (size_t)-1 &&
	   errno == ENOSYS, "riowrite: -1 ENOSYS");

	/* a join's arguments are checked before any request, as
	 * rdma-core checks them (the id is never looked at) */
	memset(&id, 0, sizeof(id));
	sin.sin_addr.s_addr = inet_addr("239.1.1.1");
	memset(&mc, 0, sizeof(mc));
	mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_RESERVED;
	mc.addr = (struct sockaddr *)&sin;
	errno = 0;
	ok(rdma_join_multicast_ex(&id, &mc, NULL) == -1 && errno == ENOTSUP,
	   "rdma_join_multicast_ex with a reserved comp_mask bit: ENOTSUP");
	mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
		       RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	mc.join_flags = RDMA_MC_JOIN_FLAG_RESERVED;
	errno = 0;
	ok(rdma_join_multicast_ex(&id, &mc, NULL) == -1 && errno == EINVAL,
	   "rdma_join_multicast_ex with a reserved flag: EINVAL first");
	errno = 0;
	ok(rdma_join_multicast(&id, NULL, NULL) == -1 && errno == EINVAL,
	   "rdma_join_multicast without an address: EINVAL");
}

static void
test_nofabric(void)
{
	struct rdma_event_channel *ch;
	struct ibv_context **devs;
	struct rdma_cm_id *id = NULL;
	struct rdma_addrinfo hints, *res;
	int n = -1;

	errno = 0;
	ch = rdma_create_event_channel();
	ok(!ch && errno == ENODEV,
	   "no daemon: rdma_create_event_channel NULL, ENODEV (%s)",
	   strerror(errno));
	errno = 0;
	ok(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) == -1 &&
	   errno == ENODEV && !id,
	   "no daemon: synchronous rdma_create_id -1, ENODEV");
	errno = 0;
	devs = rdma_get_devices(&n);
	ok(!devs && n == 0 && errno == ENODEV,
	   "no daemon: rdma_get_devices NULL, 0 devices, ENODEV");
	/* rdma_create_ep: its address info is fine, its id is not */
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res) == 0) {
		errno = 0;
		ok(rdma_create_ep(&id, res, NULL, NULL) == -1 &&
		   errno == ENODEV,
		   "no daemon: rdma_create_ep -1, ENODEV");
		rdma_freeaddrinfo(res);
	} else {
		ok(0, "getaddrinfo for rdma_create_ep");
	}
}

/* The next event of a non-blocking channel, within ms */
static struct rdma_cm_event *
next_event(struct rdma_event_channel *ch, int ms)
{
	struct rdma_cm_event *ev = NULL;
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };

	while (rdma_get_cm_event(ch, &ev) != 0) {
		if (errno != EAGAIN || poll(&p, 1, ms) <= 0)
			return NULL;
	}
	return ev;
}

/* Joins on a fabric with no SM: the port is not Active */
static void
test_fabric_join(struct rdma_event_channel *ch)
{
	struct sockaddr_in grp = { .sin_family = AF_INET };
	struct rdma_cm_id *id = NULL, *rc_id = NULL;
	struct rdma_cm_event *ev;
	int ctx = 0;

	grp.sin_addr.s_addr = inet_addr("239.1.1.1");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP) != 0) {
		ok(0, "rdma_create_id: a UDP id (%s)", strerror(errno));
		return;
	}
	errno = 0;
	ok(rdma_join_multicast(id, (struct sockaddr *)&grp, &ctx) == -1 &&
	   errno == EINVAL, "rdma_join_multicast of an id on no device: EINVAL");
	ok(rdma_resolve_addr(id, NULL, (struct sockaddr *)&grp, 2000) == 0,
	   "rdma_resolve_addr of a group address: 0");
	ev = next_event(ch, 2000);
	ok(ev && ev->event == RDMA_CM_EVENT_ADDR_RESOLVED && id->verbs,
	   "... ADDR_RESOLVED, the id on the device (%s)",
	   ev ? rdma_event_str(ev->event) : "no event");
	if (ev)
		rdma_ack_cm_event(ev);
	errno = 0;
	ok(rdma_join_multicast(id, (struct sockaddr *)&grp, &ctx) == 0,
	   "rdma_join_multicast: 0 (errno %d)", errno);
	ev = next_event(ch, 2000);
	ok(ev && ev->event == RDMA_CM_EVENT_MULTICAST_ERROR &&
	   ev->status == -ENETUNREACH && ev->id == id &&
	   ev->param.ud.private_data == &ctx,
	   "no SM: MULTICAST_ERROR -ENETUNREACH with the join's context (%s %d)",
	   ev ? rdma_event_str(ev->event) : "no event", ev ? ev->status : 0);
	if (ev)
		rdma_ack_cm_event(ev);
	ok(rdma_leave_multicast(id, (struct sockaddr *)&grp) == 0,
	   "rdma_leave_multicast of the failed join: 0");
	errno = 0;
	ok(rdma_leave_multicast(id, (struct sockaddr *)&grp) == -1 &&
	   errno == EADDRNOTAVAIL, "rdma_leave_multicast again: EADDRNOTAVAIL");
	ok(rdma_destroy_id(id) == 0, "rdma_destroy_id of the UDP id: 0");
	if (rdma_create_id(ch, &rc_id, NULL, RDMA_PS_TCP) == 0) {
		errno = 0;
		ok(rdma_join_multicast(rc_id, (struct sockaddr *)&grp, NULL) ==
		   -1 && errno == EINVAL, "rdma_join_multicast of an RC id: EINVAL");
		rdma_destroy_id(rc_id);
	}
}

/*
 * Loopback binds as the wildcard does (the kernel's cma_any_addr()): to
 * no device, the address kept. libfabric's verbs provider keeps the
 * interface addresses an id binds to a device, and took 127.0.0.1 when
 * we bound it to one.
 */
static void
test_bind_loopback(struct rdma_event_channel *ch)
{
	struct sockaddr_in lo = { .sin_family = AF_INET,
				  .sin_port = htons(7471) };
	struct sockaddr_in6 lo6 = { .sin6_family = AF_INET6,
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in *got;
	struct rdma_cm_id *id;
	int rc;

	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		ok(0, "rdma_create_id for a loopback bind (%s)", strerror(errno));
		return;
	}
	rc = rdma_bind_addr(id, (struct sockaddr *)&lo);
	got = (struct sockaddr_in *)rdma_get_local_addr(id);
	ok(rc == 0 && !id->verbs && got->sin_family == AF_INET &&
	   got->sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
	   got->sin_port == htons(7471),
	   "rdma_bind_addr 127.0.0.1:7471: bound to no device, the address kept (rc %d, verbs %p)",
	   rc, (void *)id->verbs);
	ok(rc == 0 && rdma_listen(id, 4) == 0 && !id->verbs,
	   "... and listens on every device, as a wildcard listener");
	rdma_destroy_id(id);
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0) {
		rc = rdma_bind_addr(id, (struct sockaddr *)&lo6);
		ok(rc == 0 && !id->verbs,
		   "rdma_bind_addr [::1]: bound to no device (rc %d)", rc);
		rdma_destroy_id(id);
	}
}

static void
test_fabric(const char *node)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct ibv_context **devs;
	struct rdma_cm_id *id = NULL;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct pollfd p;
	int n = -1, rc, fl;

	devs = rdma_get_devices(&n);
	ok(devs && n == 1 && devs[0] && !devs[1] &&
	   !strcmp(ibv_get_device_name(devs[0]->device), node),
	   "rdma_get_devices: one device, %s", node);
	if (devs) {
		struct ibv_context **again = rdma_get_devices(NULL);

		/* opened once for the life of the process, as librdmacm */
		ok(again && again[0] == devs[0],
		   "rdma_get_devices again: the same context");
		rdma_free_devices(again);
		rdma_free_devices(devs);
	}
	ch = rdma_create_event_channel();
	ok(ch && ch->fd >= 0, "rdma_create_event_channel: a channel, fd %d",
	   ch ? ch->fd : -1);
	if (!ch)
		return;
	p = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	rc = poll(&p, 1, 100);
	ok(rc == 0, "the channel fd is pollable and quiet with no event (%d)",
	   rc);
	fl = fcntl(ch->fd, F_GETFL);
	ok(fl >= 0 && !(fl & O_NONBLOCK),
	   "the channel fd is blocking, as the kernel's rdma_cm fd (flags 0x%x)",
	   fl);
	ok(fl >= 0 && fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) == 0,
	   "the channel fd takes O_NONBLOCK");
	errno = 0;
	ok(rdma_get_cm_event(ch, &ev) == -1 && errno == EAGAIN,
	   "rdma_get_cm_event on a non-blocking fd with no event: EAGAIN");
	errno = 0;
	ok(rdma_get_cm_event(ch, NULL) == -1 && errno == EINVAL,
	   "rdma_get_cm_event without a place for the event: EINVAL");

	errno = 0;
	rc = rdma_create_id(ch, &id, NULL, RDMA_PS_TCP);
	ok(rc == 0 && id && id->channel == ch && id->ps == RDMA_PS_TCP &&
	   id->qp_type == IBV_QPT_RC && !id->verbs,
	   "rdma_create_id: an RC id, not bound to a device yet (%s)",
	   rc ? strerror(errno) : "ok");
	if (rc == 0) {
		rc = rdma_bind_addr(id, (struct sockaddr *)&sin);
		ok(rc == 0, "rdma_bind_addr 0.0.0.0: 0 (%s)",
		   rc ? strerror(errno) : "ok");
		sin.sin_family = AF_UNIX;
		errno = 0;
		ok(rdma_bind_addr(id, (struct sockaddr *)&sin) == -1 &&
		   errno == EINVAL, "rdma_bind_addr AF_UNIX: EINVAL");
		ok(rdma_destroy_id(id) == 0, "rdma_destroy_id: 0");
	}
	test_bind_loopback(ch);
	test_fabric_join(ch);
	rdma_destroy_event_channel(ch);
	ok(1, "rdma_destroy_event_channel returns");
}

/*
 * rdma_cm ids are a process's share of the port, however many event
 * channels (each a session with the daemon) hold them: MPD_CM_PROC_IDS
 * (4096) from five channels, then ENOMEM; one destroyed, one more fits.
 */
static void
test_id_share(void)
{
	enum { NCH = 5, MAX = 4096 + 64 };
	struct rdma_event_channel *ch[NCH];
	struct rdma_cm_id **ids = calloc(MAX, sizeof(*ids));
	int i, n = 0, err = 0, rc;

	for (i = 0; i < NCH; i++)
		ch[i] = rdma_create_event_channel();
	if (!ok(ids && ch[0] && ch[NCH - 1], "id share: %d event channels",
		NCH))
		return;
	while (n < MAX) {
		errno = 0;
		if (rdma_create_id(ch[n % NCH], &ids[n], NULL, RDMA_PS_TCP)) {
			err = errno;
			break;
		}
		n++;
	}
	ok(n == 4096 && err == ENOMEM,
	   "id share: %d ids from %d channels of one process, then ENOMEM (errno %d)",
	   n, NCH, err);
	if (n > 0) {
		rdma_destroy_id(ids[--n]);
		rc = rdma_create_id(ch[0], &ids[n], NULL, RDMA_PS_TCP);
		ok(rc == 0, "id share: one destroyed, one more created (%s)",
		   rc ? strerror(errno) : "ok");
		if (rc == 0)
			n++;
	}
	while (n > 0)
		rdma_destroy_id(ids[--n]);
	for (i = 0; i < NCH; i++)
		rdma_destroy_event_channel(ch[i]);
	free(ids);
}

static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

struct waiter {
	struct rdma_event_channel *ch;
	int entered;			/* atomic */
	int returned;			/* atomic */
};

/* As rping's cm_thread: wait for one event, ack it */
static void *
wait_event(void *arg)
{
	struct waiter *w = arg;
	struct rdma_cm_event *ev;

	__atomic_store_n(&w->entered, 1, __ATOMIC_RELEASE);
	if (rdma_get_cm_event(w->ch, &ev) == 0)
		rdma_ack_cm_event(ev);
	__atomic_store_n(&w->returned, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A thread waiting in rdma_get_cm_event() on w->ch: started, and given
 * 20 ms past its call (a destroy before the call would be the
 * application's use after free, not the race tested) */
static bool
start_waiter(struct waiter *w)
{
	pthread_t t;

	if (pthread_create(&t, NULL, wait_event, w))
		return false;
	pthread_detach(t);
	while (!__atomic_load_n(&w->entered, __ATOMIC_ACQUIRE))
		sched_yield();
	usleep(20000);
	return true;
}

static void
test_destroy_waiting(void)
{
	enum { ROUNDS = 100 };
	static struct waiter ws[ROUNDS + 1];
	struct sockaddr_in grp = { .sin_family = AF_INET };
	struct rdma_cm_id *id;
	int before, after = -1, fd, i, crashed = 0, waited = 0;

	before = count_fds();
	ws[0].ch = rdma_create_event_channel();
	if (!ok(ws[0].ch && start_waiter(&ws[0]),
		"destroy under a waiter: a thread waits in rdma_get_cm_event"))
		return;
	fd = ws[0].ch->fd;
	rdma_destroy_event_channel(ws[0].ch);
	usleep(100000);
	ok(!__atomic_load_n(&ws[0].returned, __ATOMIC_ACQUIRE),
	   "destroy under a waiter: the waiter stays blocked, as on the kernel's file");
	errno = 0;
	ok(fcntl(fd, F_GETFD) == -1 && errno == EBADF,
	   "destroy under a waiter: the channel's fd %d is closed at once", fd);
	for (i = 0; i < 20 && (after = count_fds()) != before; i++)
		usleep(50000);
	ok(after == before,
	   "destroy under a waiter: the session is let go (%d fds, %d before)",
	   after, before);

	/* an event on its way while the application tears down */
	grp.sin_addr.s_addr = inet_addr("239.1.1.2");
	for (i = 1; i <= ROUNDS; i++) {
		ws[i].ch = rdma_create_event_channel();
		if (!ws[i].ch || rdma_create_id(ws[i].ch, &id, NULL,
						RDMA_PS_UDP)) {
			crashed++;
			break;
		}
		if (!start_waiter(&ws[i])) {
			crashed++;
			break;
		}
		if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&grp, 2000))
			crashed++;
		if (i & 1)
			sched_yield();
		rdma_destroy_id(id);
		rdma_destroy_event_channel(ws[i].ch);
	}
	usleep(100000);
	for (i = 1; i <= ROUNDS; i++)
		waited += !__atomic_load_n(&ws[i].returned, __ATOMIC_ACQUIRE);
	ok(!crashed && i > ROUNDS,
	   "destroy racing an event: %d rounds, %d waiters still blocked",
	   i - 1, waited);
	for (i = 0; i < 20 && (after = count_fds()) != before; i++)
		usleep(50000);
	ok(after == before,
	   "destroy racing an event: every session let go (%d fds, %d before)",
	   after, before);
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s LIBPATH all|nofabric|fabric [NODE]\n",
			argv[0]);
		return 2;
	}
	check_loaded(argv[1]);
	if (!strcmp(argv[2], "all")) {
		test_getaddrinfo();
		test_event_str();
		test_rpoll();
		test_enosys();
	}
	if (!strcmp(argv[2], "all") || !strcmp(argv[2], "nofabric"))
		test_nofabric();
	else {
		test_fabric(argc > 3 ? argv[3] : "hca1");
		test_id_share();
		test_destroy_waiting();
	}
	return tap_done();
}
