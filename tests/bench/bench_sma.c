/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SMP Get(NodeInfo) responses per second through one net_hca port on one
 * lcore (ICRC and VCRC checked on every request and generated on every
 * response), side by side with the bare DPDK path on the same loop: a
 * net_ring port that hands the same mbufs straight back, touching no
 * payload. Both loops refill the request bytes the same way, so the ratio
 * is the SMA path's cost per packet.
 *
 *   bench_sma [seconds per run, default 2]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "madpmd/wire.h"

#define BURST	32
#define NBUF	(4 * BURST)

static uint8_t req[512];
static int req_len;

static int
build_request(void)
{
	uint8_t mad[MPD_MAD_LEN];
	struct mpd_mad m;
	struct mpd_pkt p;

	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = MPD_CLASS_SUBN_DR;
	m.hdr.class_version = 1;
	m.hdr.method = MPD_METHOD_GET;
	m.hdr.attr_id = MPD_ATTR_NODE_INFO;
	m.hdr.tid = 0x1234;
	m.hdr.class_specific = 1 << 8 | 1;
	m.dr_slid = m.dr_dlid = MPD_LID_PERMISSIVE;
	m.initial_path[1] = 1;
	if (mpd_mad_encode(&m, NULL, 0, mad, sizeof(mad)) < 0)
		return -1;
	memset(&p, 0, sizeof(p));
	p.link = MPD_LINK_IB;
	p.lrh.vl = MPD_VL15;
	p.lrh.dlid = p.lrh.slid = MPD_LID_PERMISSIVE;
	p.bth.opcode = MPD_OP_UD_SEND_ONLY;
	p.bth.pkey = 0xffff;
	req_len = mpd_pkt_encode(&p, mad, sizeof(mad), req, sizeof(req));
	return req_len > 0 ? 0 : -1;
}

static int
port_start(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	return rte_eth_dev_configure(port, 1, 1, &conf) ||
	       rte_eth_rx_queue_setup(port, 0, 1024, 0, NULL, mp) ||
	       rte_eth_tx_queue_setup(port, 0, 1024, 0, NULL) ||
	       rte_eth_dev_start(port);
}

/* Requests in, answers out, for secs; returns answers per second. */
static double
run(uint16_t port, struct rte_mempool *mp, double secs, uint64_t *bad)
{
	struct rte_mbuf *m[NBUF];
	uint64_t end, start, done = 0;
	unsigned int i, have = NBUF;

	if (rte_pktmbuf_alloc_bulk(mp, m, NBUF))
		return -1;
	for (i = 0; i < NBUF; i++) {
		rte_pktmbuf_append(m[i], (uint16_t)req_len);
		memcpy(rte_pktmbuf_mtod(m[i], void *), req, (size_t)req_len);
	}
	start = rte_get_tsc_cycles();
	end = start + (uint64_t)(secs * (double)rte_get_tsc_hz());
	while (rte_get_tsc_cycles() < end) {
		uint16_t sent = 0, got;

		for (i = 0; i < 64; i++) {
			sent = rte_eth_tx_burst(port, 0, m, BURST);
			got = rte_eth_rx_burst(port, 0, m, BURST);
			done += got;
			if (sent != BURST || got != BURST)
				goto out;
			/* the answer becomes the next request */
			for (uint16_t k = 0; k < got; k++) {
				m[k]->data_len = m[k]->pkt_len =
					(uint32_t)req_len;
				memcpy(rte_pktmbuf_mtod(m[k], void *), req,
				       (size_t)req_len);
			}
		}
	}
	have = BURST;
out:
	*bad += have != BURST;
	rte_pktmbuf_free_bulk(m + BURST, NBUF - BURST);
	if (have == BURST)
		rte_pktmbuf_free_bulk(m, BURST);
	return (double)done * (double)rte_get_tsc_hz() /
	       (double)(rte_get_tsc_cycles() - start);
}

int
main(int argc, char **argv)
{
	char prefix[64];
	char *eal[] = {
		argv[0], (char *)"--no-huge", (char *)"--no-pci",
		(char *)"-m", (char *)"256", (char *)"-l", (char *)"0",
		(char *)"--no-telemetry", (char *)"--vdev", (char *)"net_hca0",
		prefix, NULL,
	};
	double secs = argc > 1 ? atof(argv[1]) : 2.0, sma, fwd;
	struct rte_ring *r;
	struct rte_mempool *mp;
	uint16_t hca = 0;
	uint64_t bad = 0;
	int ring_port;

	snprintf(prefix, sizeof(prefix), "--file-prefix=bench-sma-%d",
		 (int)getpid());
	if (rte_eal_init(11, eal) < 0 || build_request())
		return 1;
	mp = rte_pktmbuf_pool_create("bench", 4095, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	r = rte_ring_create("bench_loop", 1024, 0,
			    RING_F_SP_ENQ | RING_F_SC_DEQ);
	ring_port = r ? rte_eth_from_ring(r) : -1;
	if (!mp || ring_port < 0 || port_start(hca, mp) ||
	    port_start((uint16_t)ring_port, mp))
		return 1;
	sma = run(hca, mp, secs, &bad);
	fwd = run((uint16_t)ring_port, mp, secs, &bad);
	printf("frame: DR SMP Get(NodeInfo), %d bytes, bursts of %d, 1 lcore, %.1f s per run\n",
	       req_len, BURST, secs);
	printf("%-44s %10.2f M/s\n", "net_hca SMA (check ICRC/VCRC, answer, CRCs)",
	       sma / 1e6);
	printf("%-44s %10.2f M/s\n", "io forwarding through net_ring (no payload)",
	       fwd / 1e6);
	printf("ratio forwarding / SMA: %.2f  (SMA cost per answer %.1f ns, loop %.1f ns)\n",
	       fwd / sma, 1e9 / sma - 1e9 / fwd, 1e9 / fwd);
	if (bad)
		printf("warning: %llu run(s) lost packets\n",
		       (unsigned long long)bad);
	rte_eal_cleanup();
	snprintf(prefix, sizeof(prefix), "rm -rf /var/run/dpdk/bench-sma-%d",
		 (int)getpid());
	return system(prefix) != 0 || bad != 0;
}
