/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: a node's port (pmd/node, no DPDK) fed frames off the
 * wire: the receive checks, then the SMA or PMA, whose answer is turned
 * around and encoded as the daemon does; and the same frames to a CA that
 * no client opens (hca_ca_rx(), its answer in the frame's buffer). Input:
 *   byte 0: bit 0 RoCEv2 port (else IB); bit 1 promiscuous; bits 2-3 the
 *           M_Key protection level (with M_Key 0x1234... set when nonzero)
 *   then frames of 2 bytes (length, little-endian) + that many bytes;
 *   state carries over from frame to frame (Sets change the port)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/mad.h"
#include "node/node.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
port_init(struct hca_port *p, uint8_t cfg)
{
	/* hca2 of pcaps/roce-v2.pcapng, so that its requests are taken */
	static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	static const uint8_t ip4[4] = { 192, 168, 77, 2 };

	memset(p, 0, sizeof(*p));
	snprintf(p->node_name, sizeof(p->node_name), "hca2");
	snprintf(p->node_desc, sizeof(p->node_desc), "hca2 fuzz");
	p->link = (cfg & 1) ? MPD_LINK_ROCE_V2 : MPD_LINK_IB;
	p->node_guid = 0x6d61640000000200ull;
	p->port_guid = p->node_guid + 1;
	p->sys_guid = p->node_guid;
	p->port_num = 1;
	p->num_ports = 1;
	p->lid = 2;
	p->sm_lid = 1;
	p->port_state = HCA_PORT_ACTIVE;
	p->phys_state = HCA_PHYS_LINKUP;
	p->link_width_active = 2;
	p->link_speed_active = 4;
	p->mtu_cap = 5;
	p->vl_cap = 4;
	p->op_vls = 1;
	p->pkeys[0] = 0xffff;
	p->pkeys[1] = 0x8001;
	p->mkey_protect = (cfg >> 2) & 3;
	if (p->mkey_protect)
		p->mkey = 0x1234567890abcdefull;
	memcpy(p->mac, mac, sizeof(mac));
	memcpy(p->ip4, ip4, sizeof(ip4));
	hca_sma_init(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hca_port port;
	static struct hca_port served;
	uint16_t flen;
	size_t cap;
	uint64_t now = 1000000000ull;
	uint8_t cfg, *buf, *mad, out[2048];
	struct mpd_pkt pk;
	enum hca_reply r;
	size_t len;

	if (size < 1)
		return 0;
	cfg = data[0];
	port_init(&port, cfg);
	port_init(&served, cfg);
	data++;
	size--;
	while (size >= 2) {
		len = (size_t)(data[0] | data[1] << 8);
		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		/* exactly the frame's bytes, so that ASan sees overruns */
		buf = malloc(len ? len : 1);
		if (!buf)
			return 0;
		memcpy(buf, data, len);
		data += len;
		size -= len;
		now += 1000000;
		if (hca_port_rx(&port, buf, (uint16_t)len, cfg & 2, &pk, &mad) ==
		    HCA_RX_MAD) {
			uint32_t qp = pk.bth.dest_qp;

			if (mad < buf || mad + MPD_MAD_LEN > buf + len)
				abort();
			r = hca_node_agent(&port, qp, mad, &pk, now);
			if (r == HCA_REPLY) {
				hca_port_reverse(&port, &pk, qp);
				(void)mpd_pkt_encode(&pk, mad, MPD_MAD_LEN, out,
						     sizeof(out));
			}
		}
		free(buf);
		/* the same bytes to a CA no client opens (ca_rx.c), its
		 * answer built in the frame's own buffer of cap bytes */
		cap = len + 300 > UINT16_MAX ? UINT16_MAX : len + 300;
		buf = malloc(cap);
		if (!buf)
			return 0;
		memcpy(buf, data - len, len);
		flen = (uint16_t)len;
		if (hca_ca_rx(&served, buf, &flen, (uint16_t)cap, now) &&
		    (flen < MPD_MAD_LEN || flen > cap))
			abort();
		free(buf);
	}
	return 0;
}
