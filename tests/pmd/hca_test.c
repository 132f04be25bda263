/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "hca_test.h"

static struct rte_mempool *pool;
static char prefix[64];

int
hca_test_eal_init(const char *prog, const char *const *vdevs,
		  unsigned int nvdevs)
{
	char *argv[64];
	int argc = 0;
	unsigned int i;

	snprintf(prefix, sizeof(prefix), "--file-prefix=madpmd-test-%d",
		 (int)getpid());
	argv[argc++] = (char *)prog;
	argv[argc++] = (char *)"--no-huge";
	argv[argc++] = (char *)"--no-pci";
	argv[argc++] = (char *)"-m";
	argv[argc++] = (char *)"128";
	argv[argc++] = (char *)"--no-telemetry";
	argv[argc++] = (char *)"-l";
	argv[argc++] = (char *)"0";
	argv[argc++] = (char *)"--log-level=pmd.net.hca:debug";
	argv[argc++] = prefix;
	for (i = 0; i < nvdevs && argc < 62; i++) {
		argv[argc++] = (char *)"--vdev";
		argv[argc++] = (char *)vdevs[i];
	}
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0)
		return -1;
	pool = rte_pktmbuf_pool_create("hca_test", 1023, 32, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       rte_socket_id());
	return pool ? 0 : -1;
}

void
hca_test_eal_fini(void)
{
	uint16_t p;
	char cmd[160];

	RTE_ETH_FOREACH_DEV(p) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	rte_eal_cleanup();
	/* the runtime directory EAL made for our prefix */
	snprintf(cmd, sizeof(cmd), "rm -rf /var/run/dpdk/%s",
		 prefix + strlen("--file-prefix="));
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove the EAL runtime dir\n");
}

int
hca_test_port_start(uint16_t port)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(port, 1, 1, &conf) < 0 ||
	    rte_eth_rx_queue_setup(port, 0, 256, rte_socket_id(), NULL,
				   pool) < 0 ||
	    rte_eth_tx_queue_setup(port, 0, 256, rte_socket_id(), NULL) < 0 ||
	    rte_eth_dev_start(port) < 0)
		return -1;
	return 0;
}

int
hca_test_xchg(uint16_t port, const uint8_t *frame, size_t len, uint8_t *resp,
	      size_t cap)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *r[4];
	uint16_t n;
	int rlen = 0, i;

	if (!m)
		return -1;
	if (!rte_pktmbuf_append(m, (uint16_t)len)) {
		rte_pktmbuf_free(m);
		return -1;
	}
	memcpy(rte_pktmbuf_mtod(m, void *), frame, len);
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return -1;
	}
	n = rte_eth_rx_burst(port, 0, r, 4);
	for (i = 0; i < n; i++) {
		if (i == 0 && r[0]->pkt_len <= cap) {
			rlen = (int)r[0]->pkt_len;
			memcpy(resp, rte_pktmbuf_mtod(r[0], void *),
			       (size_t)rlen);
		}
		rte_pktmbuf_free(r[i]);
	}
	return n > 1 ? -1 : rlen;
}

uint64_t
hca_test_xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

int
hca_test_frame(enum mpd_link link, uint16_t port, uint32_t qp, uint16_t dlid,
	       uint16_t slid, uint16_t pkey, uint32_t qkey, const uint8_t *mad,
	       uint8_t *frame, size_t cap)
{
	struct rte_ether_addr mac;
	struct mpd_pkt p;

	memset(&p, 0, sizeof(p));
	p.link = link;
	p.lrh.vl = qp == 0 ? MPD_VL15 : 0;
	p.lrh.dlid = dlid;
	p.lrh.slid = slid;
	if (link != MPD_LINK_IB) {
		rte_eth_macaddr_get(port, &mac);
		memcpy(p.eth.dst, mac.addr_bytes, 6);
		p.eth.src[0] = 0x02;
		p.eth.src[5] = 0x99;
		p.ip_ver = 4;
		p.ip4.ttl = 64;
		p.ip4.src[0] = 10;
		p.ip4.src[3] = 99;
		p.ip4.dst[0] = 10;
		p.ip4.dst[3] = 1;
		p.udp.sport = 0xc001;
		p.udp.dport = MPD_ROCE_UDP_PORT;
	}
	p.bth.opcode = MPD_OP_UD_SEND_ONLY;
	p.bth.pkey = pkey;
	p.bth.dest_qp = qp;
	p.bth.psn = 7;
	p.deth.qkey = qkey;
	p.deth.src_qp = qp;
	return mpd_pkt_encode(&p, mad, MPD_MAD_LEN, frame, cap);
}
