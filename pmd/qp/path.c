/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a QP's packets go: the headers to its destination (RC, UC) or a
 * WR's address (UD), on IB and on RoCEv2, and the path MTU in bytes.
 */
#include <string.h>

#include "qp_priv.h"

uint32_t
qp_mtu_bytes(uint32_t path_mtu)
{
	return path_mtu >= 1 && path_mtu <= 5 ? 128u << path_mtu : 0;
}

bool
hca_path_headers(const struct hca_port *p, const struct mpd_v_ah *ah,
		 struct mpd_pkt *pk)
{
	struct hca_neigh n;

	memset(pk, 0, sizeof(*pk));
	pk->link = p->link;
	if (p->link == MPD_LINK_IB) {
		pk->lrh.sl = ah->sl & 0xf;
		pk->lrh.vl = p->sl2vl[ah->sl & 0xf] & 0xf;
		if (pk->lrh.vl == MPD_VL15)
			pk->lrh.vl = 0;
		pk->lrh.dlid = ah->dlid;
		pk->lrh.slid = (uint16_t)(p->lid | (ah->src_path_bits &
						    ((1u << p->lmc) - 1)));
		if (!ah->is_global)
			return true;
		pk->has_grh = true;
		pk->grh.ip_ver = 6;
		pk->grh.tclass = ah->traffic_class;
		pk->grh.flow_label = ah->flow_label & 0xfffff;
		pk->grh.next_hdr = MPD_GRH_NEXT_HDR_IBA;
		pk->grh.hop_limit = ah->hop_limit;
		mpd_put_be64(pk->grh.sgid, p->gid_prefix);
		mpd_put_be64(pk->grh.sgid + 8, p->port_guid);
		memcpy(pk->grh.dgid, ah->dgid, 16);
		return true;
	}
	/* RoCEv2 (IBA A17.4): the GID, through the fabric's table; a
	 * group's is its IP group and that group's MAC */
	if (!ah->is_global)
		return false;
	if (hca_gid_multicast(ah->dgid)) {
		memset(&n, 0, sizeof(n));
		hca_gid_group_mac(ah->dgid, n.mac);
		if (hca_gid_ip4_mapped(ah->dgid))
			memcpy(n.ip4, ah->dgid + 12, 4);
	} else if (!hca_port_resolve(p, ah->dgid, &n)) {
		return false;
	}
	memcpy(pk->eth.dst, n.mac, 6);
	memcpy(pk->eth.src, p->mac, 6);
	if (hca_gid_ip4_mapped(ah->dgid)) {
		pk->ip_ver = 4;
		pk->ip4.tos = ah->traffic_class;
		pk->ip4.ttl = ah->hop_limit ? ah->hop_limit : 64;
		pk->ip4.frag = 0x4000;
		memcpy(pk->ip4.src, p->ip4, 4);
		memcpy(pk->ip4.dst, n.ip4, 4);
	} else {
		pk->ip_ver = 6;
		pk->ip6.tclass = ah->traffic_class;
		pk->ip6.flow_label = ah->flow_label & 0xfffff;
		pk->ip6.hop_limit = ah->hop_limit ? ah->hop_limit : 64;
		mpd_put_be64(pk->ip6.src, p->gid_prefix);
		mpd_put_be64(pk->ip6.src + 8, p->port_guid);
		memcpy(pk->ip6.dst, ah->dgid, 16);
	}
	pk->udp.dport = MPD_ROCE_UDP_PORT;
	return true;
}

bool
qp_headers(struct hca_verbs *v, struct hca_v_qp *qp, const struct mpd_v_ah *ah,
	   uint32_t dest_qp, struct mpd_pkt *pk)
{
	const struct hca_port *p = v->port;

	if (!hca_path_headers(p, ah, pk))
		return false;
	pk->bth.pkey = p->pkeys[qp->attr.pkey_index % HCA_PKEY_TABLE_LEN];
	pk->bth.dest_qp = dest_qp & PSN_MASK;
	if (p->link == MPD_LINK_IB)
		return true;
	/* the source port spreads flows (RoCEv2 annex A17.3.2) */
	pk->udp.sport = (uint16_t)(0xc000 | ((qp->qpn ^ dest_qp) & 0x3fff));
	return true;
}

