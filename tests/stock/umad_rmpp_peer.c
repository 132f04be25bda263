/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two ends of large RMPP transfers, written against libibumad only (so it
 * runs over madpmd's drop-in through madpmd-run, or anything else):
 *
 *   umad_rmpp_peer serve
 *	answers each vendor Get with a GetResp of the size the request asks
 *	for, filled with a pattern derived from the TID
 *   umad_rmpp_peer query DLID SIZE COUNT [REQSIZE]
 *	asks COUNT times for SIZE bytes and checks every byte; exit 0 when
 *	all came back whole. With REQSIZE the requests carry that many
 *	bytes of pattern too, which the server checks (RMPP both ways).
 *
 * The class is vendor range 2 (0x30), which carries the RMPP header (IBA
 * 13.6); both agents register with rmpp_version 1 so the stack does the
 * segmentation, windows, ACKs and retransmissions.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#define VENDOR_CLASS	0x30
#define CLASS_VERSION	1
#define METHOD_GET	0x01
#define METHOD_GET_RESP	0x81
#define DATA_OFF	40		/* MAD, RMPP and vendor headers */
#define MAX_DATA	(1u << 20)
#define QP1_QKEY	0x80010000u

static uint8_t oui[3] = { 0x00, 0x6d, 0x70 };
static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint8_t
pattern(uint32_t tid, uint32_t i)
{
	return (uint8_t)(tid * 31u + i * 7u + (i >> 8));
}

/* MAD, RMPP and vendor headers; Active only for a multi-segment send */
static void
build_hdr(uint8_t *mad, uint8_t method, uint64_t tid, int active)
{
	unsigned int i;

	memset(mad, 0, DATA_OFF);
	mad[0] = 1;				/* BaseVersion */
	mad[1] = VENDOR_CLASS;
	mad[2] = CLASS_VERSION;
	mad[3] = method;
	for (i = 0; i < 8; i++)
		mad[8 + i] = (uint8_t)(tid >> (56 - 8 * i));
	mad[24] = 1;				/* RMPPVersion */
	mad[25] = active ? 1 : 0;		/* RMPPType DATA */
	mad[26] = active ? 0x01 : 0;		/* RRespTime 0, Active */
	memcpy(mad + 37, oui, 3);
}

static int
open_agent(int *fd, int *agent)
{
	long mask[16 / sizeof(long)] = { 0 };

	mask[0] = 1L << METHOD_GET;
	if (umad_init() < 0) {
		fprintf(stderr, "umad_rmpp_peer: umad_init failed\n");
		return -1;
	}
	*fd = umad_open_port(NULL, 0);
	if (*fd < 0) {
		fprintf(stderr, "umad_rmpp_peer: umad_open_port: %s\n",
			strerror(-*fd));
		return -1;
	}
	*agent = umad_register_oui(*fd, VENDOR_CLASS, 1, oui, mask);
	if (*agent < 0) {
		fprintf(stderr, "umad_rmpp_peer: umad_register_oui: %s\n",
			strerror(-*agent));
		umad_close_port(*fd);
		return -1;
	}
	return 0;
}

static int
serve(void)
{
	size_t cap = umad_size() + DATA_OFF + MAX_DATA;
	uint8_t *in = malloc(cap), *out = malloc(cap);
	unsigned long served = 0;
	int fd, agent, rc = 1;

	if (!in || !out || open_agent(&fd, &agent))
		goto out;
	printf("serving\n");
	fflush(stdout);
	while (!stop) {
		struct ib_mad_addr *a = umad_get_mad_addr(in);
		uint8_t *req = umad_get_mad(in), *resp = umad_get_mad(out);
		int len = (int)(cap - umad_size()), n;
		uint64_t tid = 0;
		uint32_t size, i, bad;

		n = umad_recv(fd, in, &len, 200);
		/* a signal in poll() is -EIO, as in rdma-core's dev_poll() */
		if (stop)
			break;
		if (n == -ETIMEDOUT || n == -EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "umad_rmpp_peer: umad_recv: %s\n",
				strerror(-n));
			goto out_port;
		}
		if (umad_status(in) || req[3] != METHOD_GET)
			continue;
		for (i = 0; i < 8; i++)
			tid = tid << 8 | req[8 + i];
		/* a long request: check what RMPP put together */
		bad = 0;
		for (i = 4; len > DATA_OFF && i < (uint32_t)len - DATA_OFF; i++)
			bad += req[DATA_OFF + i] != pattern((uint32_t)tid, i);
		size = get_be32(req + DATA_OFF);
		if (size > MAX_DATA)
			size = MAX_DATA;
		memset(out, 0, umad_size());
		build_hdr(resp, METHOD_GET_RESP, tid, 1);
		if (bad) {
			fprintf(stderr, "umad_rmpp_peer: %u bytes of a %d-byte request differ\n",
				bad, len);
			resp[5] = 0x1c;		/* Status: invalid field */
			size = 0;
		}
		for (i = 0; i < size; i++)
			resp[DATA_OFF + i] = pattern((uint32_t)tid, i);
		umad_set_addr(out, ntohs(a->lid), ntohl(a->qpn), a->sl,
			      QP1_QKEY);
		n = umad_send(fd, agent, out, (int)(DATA_OFF + size), 0, 0);
		if (n < 0)
			fprintf(stderr, "umad_rmpp_peer: umad_send: %s\n",
				strerror(-n));
		else
			served++;
	}
	printf("served %lu\n", served);
	rc = 0;
out_port:
	umad_close_port(fd);
out:
	free(in);
	free(out);
	return rc;
}

static int
query(int dlid, uint32_t size, unsigned int count, uint32_t reqsize)
{
	size_t cap = umad_size() + DATA_OFF + MAX_DATA;
	uint8_t *buf = malloc(cap);
	unsigned int k, good = 0;
	int fd, agent;

	if (reqsize < 4)
		reqsize = 4;
	if (!buf || size > MAX_DATA || reqsize > MAX_DATA ||
	    open_agent(&fd, &agent)) {
		free(buf);
		return 1;
	}
	for (k = 0; k < count; k++) {
		uint8_t *mad = umad_get_mad(buf);
		uint64_t tid = 0x10000u + k;
		int len, n;
		uint32_t i, bad = 0;

		len = (int)(DATA_OFF + reqsize > 256 ? DATA_OFF + reqsize : 256);
		memset(buf, 0, umad_size() + (size_t)len);
		build_hdr(mad, METHOD_GET, tid, len > 256);
		for (i = 4; i < (uint32_t)len - DATA_OFF; i++)
			mad[DATA_OFF + i] = pattern((uint32_t)tid, i);
		put_be32(mad + DATA_OFF, size);
		umad_set_addr(buf, dlid, 1, 0, QP1_QKEY);
		n = umad_send(fd, agent, buf, len, 2000, 3);
		if (n < 0) {
			printf("not ok %u: umad_send: %s\n", k, strerror(-n));
			continue;
		}
		do {
			len = (int)(cap - umad_size());
			n = umad_recv(fd, buf, &len, 60000);
		} while (n >= 0 && umad_status(buf) == 0 &&
			 mad[3] != METHOD_GET_RESP);
		if (n < 0 || umad_status(buf)) {
			printf("not ok %u: %s\n", k,
			       n < 0 ? strerror(-n) : strerror(umad_status(buf)));
			continue;
		}
		if (mad[4] || mad[5]) {
			printf("not ok %u: the server saw a damaged request\n",
			       k);
			continue;
		}
		if ((uint32_t)len < DATA_OFF + size) {
			printf("not ok %u: %d bytes, wanted %u\n", k, len,
			       DATA_OFF + size);
			continue;
		}
		tid = 0;
		for (i = 0; i < 8; i++)
			tid = tid << 8 | mad[8 + i];
		for (i = 0; i < size; i++)
			bad += mad[DATA_OFF + i] != pattern((uint32_t)tid, i);
		if (bad) {
			printf("not ok %u: %u bytes differ\n", k, bad);
			continue;
		}
		good++;
	}
	printf("%u of %u transfers of %u bytes whole\n", good, count, size);
	umad_close_port(fd);
	free(buf);
	return good == count ? 0 : 1;
}

int
main(int argc, char **argv)
{
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (argc == 2 && strcmp(argv[1], "serve") == 0)
		return serve();
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "query") == 0)
		return query(atoi(argv[2]), (uint32_t)strtoul(argv[3], NULL, 0),
			     (unsigned int)atoi(argv[4]),
			     argc == 6 ? (uint32_t)strtoul(argv[5], NULL, 0) : 0);
	fprintf(stderr, "usage: umad_rmpp_peer serve | query DLID SIZE COUNT [REQSIZE]\n");
	return 2;
}
