/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's receive checks and its own agents: what every frame off the
 * wire goes through before the MAD layer sees it, and the dispatch of
 * Get/Set to the SMA and PMA that the wire and loopback share.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/mad.h"
#include "node.h"

/* PortRcvErrors and its detail (IBA 16.1.4 PortRcvErrorDetails): a bad
 * ICRC or VCRC is a local physical error, anything else a malformed
 * packet (lengths, versions, headers, VL) */
static void
count_drop(struct hca_port *p, int status)
{
	p->cnt.rcv_errors++;
	switch (status) {
	case MPD_ETRUNC:
	case MPD_ELEN:
		p->cnt.rcv_malformed_errors++;
		p->cnt.drop_truncated++;
		break;
	case MPD_EICRC:
		p->cnt.rcv_local_phys_errors++;
		p->cnt.drop_bad_icrc++;
		break;
	case MPD_EVCRC:
		p->cnt.rcv_local_phys_errors++;
		p->cnt.drop_bad_vcrc++;
		break;
	default:
		p->cnt.rcv_malformed_errors++;
		p->cnt.drop_bad_header++;
		break;
	}
}

/* IBA 7.11.1: multicast LIDs are 0xC000..0xFFFE; on RoCE, a group MAC */
static bool
pkt_is_multicast(const struct mpd_pkt *pk)
{
	if (pk->link == MPD_LINK_IB)
		return pk->lrh.dlid >= MPD_LID_MCAST_LO &&
		       pk->lrh.dlid != MPD_LID_PERMISSIVE;
	return pk->eth.dst[0] & 1;
}

bool
hca_port_pkey_ok(const struct hca_port *p, uint16_t pkey)
{
	unsigned int i;

	for (i = 0; i < HCA_PKEY_TABLE_LEN; i++)
		if (mpd_pkey_match(p->pkeys[i], pkey))
			return true;
	return false;
}

uint16_t
hca_port_pkey_index(const struct hca_port *p, uint16_t pkey)
{
	unsigned int i;

	for (i = 0; i < HCA_PKEY_TABLE_LEN; i++)
		if ((p->pkeys[i] & MPD_PKEY_BASE_MASK) ==
		    (pkey & MPD_PKEY_BASE_MASK))
			return (uint16_t)i;
	return 0;
}

/*
 * IBA 7.11.1: a CA takes the packets addressed to one of its LIDs
 * (LID .. LID + 2^LMC - 1), multicast and the permissive LID. A port the
 * SM has not given a LID yet cannot tell, and takes everything.
 */
static bool
dlid_ok(const struct hca_port *p, uint16_t dlid)
{
	if (!p->lid || dlid >= MPD_LID_MCAST_LO)
		return true;
	return hca_port_owns_lid(p, dlid);
}

bool
hca_port_owns_lid(const struct hca_port *p, uint16_t dlid)
{
	return p->lid && dlid != MPD_LID_PERMISSIVE && dlid >= p->lid &&
	       (unsigned int)(dlid - p->lid) < (1u << p->lmc);
}

void
hca_port_neigh(const struct hca_port *p, struct hca_neigh *n)
{
	mpd_put_be64(n->gid, p->gid_prefix);
	mpd_put_be64(n->gid + 8, p->port_guid);
	memcpy(n->mac, p->mac, sizeof(n->mac));
	memcpy(n->ip4, p->ip4, sizeof(n->ip4));
}

static const uint8_t ip4_mapped[12] = { [10] = 0xff, [11] = 0xff };

bool
hca_gid_ip4_mapped(const uint8_t gid[16])
{
	return memcmp(gid, ip4_mapped, sizeof(ip4_mapped)) == 0;
}

void
hca_gid_from_ip4(const uint8_t ip4[4], uint8_t gid[16])
{
	memcpy(gid, ip4_mapped, sizeof(ip4_mapped));
	memcpy(gid + 12, ip4, 4);
}

bool
hca_gid_multicast(const uint8_t gid[16])
{
	/* rdma_is_multicast_addr(): an IPv4 group mapped, or ff00::/8 */
	if (hca_gid_ip4_mapped(gid))
		return (gid[12] & 0xf0) == 0xe0;
	return gid[0] == 0xff;
}

void
hca_gid_group_mac(const uint8_t gid[16], uint8_t mac[6])
{
	/* RFC 1112 6.4 (01:00:5e and the group's low 23 bits), RFC 2464 7
	 * (33:33 and the group's last 32 bits) */
	if (hca_gid_ip4_mapped(gid)) {
		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = gid[13] & 0x7f;
		mac[4] = gid[14];
		mac[5] = gid[15];
		return;
	}
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, gid + 12, 4);
}

/* GID 1 of a RoCEv2 port: its IPv4 address, mapped */
static bool
gid_is_ip4(const uint8_t gid[16], const uint8_t ip4[4])
{
	return hca_gid_ip4_mapped(gid) && memcmp(gid + 12, ip4, 4) == 0;
}

bool
hca_port_resolve(const struct hca_port *p, const uint8_t gid[16],
		 struct hca_neigh *n)
{
	struct hca_neigh self;
	uint32_t i;

	hca_port_neigh(p, &self);
	if (!memcmp(self.gid, gid, 16) || gid_is_ip4(gid, self.ip4)) {
		*n = self;
		return true;
	}
	for (i = 0; i < p->nneigh; i++)
		if (!memcmp(p->neigh[i].gid, gid, 16) ||
		    gid_is_ip4(gid, p->neigh[i].ip4)) {
			*n = p->neigh[i];
			return true;
		}
	return false;
}

void
hca_port_count_rcv(struct hca_port *p, uint32_t len, bool multicast)
{
	p->cnt.rcv_pkts++;
	p->cnt.rcv_data += hca_data_words(p->link, len);
	if (multicast)
		p->cnt.multicast_rcv_pkts++;
	else
		p->cnt.unicast_rcv_pkts++;
}

void
hca_port_count_xmit(struct hca_port *p, uint32_t len)
{
	p->cnt.xmit_pkts++;
	p->cnt.unicast_xmit_pkts++;
	p->cnt.xmit_data += hca_data_words(p->link, len);
}

void
hca_port_uncount_xmit(struct hca_port *p, uint32_t len)
{
	p->cnt.xmit_pkts--;
	p->cnt.unicast_xmit_pkts--;
	p->cnt.xmit_data -= hca_data_words(p->link, len);
}

enum hca_rx
hca_port_rx(struct hca_port *p, uint8_t *buf, uint16_t len, bool promisc,
	    struct mpd_pkt *pk, uint8_t **mad)
{
	uint32_t qp;
	int rc;

	rc = mpd_pkt_decode(p->link, buf, len, hca_port_crc_flags(p), pk);
	if (rc != MPD_OK) {
		count_drop(p, rc);
		return HCA_RX_DROP;
	}
	hca_port_count_rcv(p, len, pkt_is_multicast(pk));
	qp = pk->bth.dest_qp;

	if (p->link == MPD_LINK_IB) {
		/* IBA 7.6.5: VL15 carries QP0 only, and QP0 only VL15; a
		 * packet on the wrong VL is malformed (VL15Dropped is for
		 * VL15 packets the port had no room for) */
		if ((pk->lrh.vl == MPD_VL15) != (qp == 0)) {
			count_drop(p, MPD_EINVAL);	/* a bad header */
			return HCA_RX_DROP;
		}
		if (!dlid_ok(p, pk->lrh.dlid)) {
			p->cnt.drop_bad_dlid++;
			return HCA_RX_DROP;
		}
	} else if (memcmp(pk->eth.dst, p->mac, sizeof(p->mac)) != 0 &&
		   !promisc && !(pkt_is_multicast(pk) && qp == MPD_QPN_MCAST)) {
		return HCA_RX_DROP;	/* not for this port, nor a group's */
	}
	if (qp > 1) {
		/* the QP layer checks its QP's P_Key and Q_Key */
		if (pk->bth.opcode == MPD_OP_UD_SEND_ONLY ||
		    pk->bth.opcode == MPD_OP_UD_SEND_ONLY_IMM ||
		    hca_port_pkey_ok(p, pk->bth.pkey))
			return HCA_RX_DATA;
		p->cnt.pkey_violations++;
		return HCA_RX_DROP;
	}
	if (qp == 0 && p->link != MPD_LINK_IB) {
		p->cnt.drop_no_agent++;	/* no QP0 on RoCE */
		return HCA_RX_DROP;
	}
	if ((pk->bth.opcode != MPD_OP_UD_SEND_ONLY &&
	     pk->bth.opcode != MPD_OP_UD_SEND_ONLY_IMM)) {
		count_drop(p, MPD_EOPCODE);	/* QP0/QP1 are UD */
		return HCA_RX_DROP;
	}
	if (pk->payload_len != MPD_MAD_LEN) {
		count_drop(p, MPD_ELEN);
		return HCA_RX_DROP;
	}
	if (qp == 1) {
		/* QP0 is exempt from P_Key checks (IBA 10.9.3) */
		if (!hca_port_pkey_ok(p, pk->bth.pkey)) {
			p->cnt.pkey_violations++;
			return HCA_RX_DROP;
		}
		if (pk->deth.qkey != MPD_QP1_QKEY) {
			p->cnt.qkey_violations++;
			return HCA_RX_DROP;
		}
	}
	*mad = buf + (pk->payload - buf);
	return HCA_RX_MAD;
}

void
hca_port_reverse(const struct hca_port *p, struct mpd_pkt *pk, uint32_t qp)
{
	uint8_t tmp[16];
	uint16_t lid;

	if (pk->link == MPD_LINK_IB) {
		lid = pk->lrh.dlid;
		pk->lrh.dlid = pk->lrh.slid;
		/* a DR SMP to a port without a LID comes back permissive */
		pk->lrh.slid = p->lid && lid != MPD_LID_PERMISSIVE ? p->lid : lid;
		pk->lrh.vl = qp == 0 ? MPD_VL15 : 0;
	} else {
		memcpy(pk->eth.dst, pk->eth.src, 6);
		memcpy(pk->eth.src, p->mac, 6);
		if (pk->ip_ver == 4) {
			memcpy(tmp, pk->ip4.dst, 4);
			memcpy(pk->ip4.dst, pk->ip4.src, 4);
			memcpy(pk->ip4.src, tmp, 4);
			pk->ip4.ttl = 64;
		} else {
			memcpy(tmp, pk->ip6.dst, 16);
			memcpy(pk->ip6.dst, pk->ip6.src, 16);
			memcpy(pk->ip6.src, tmp, 16);
			pk->ip6.hop_limit = 64;
		}
		pk->udp.dport = MPD_ROCE_UDP_PORT;
	}
	if (pk->has_grh) {
		memcpy(tmp, pk->grh.dgid, 16);
		memcpy(pk->grh.dgid, pk->grh.sgid, 16);
		memcpy(pk->grh.sgid, tmp, 16);
	}
	pk->bth.dest_qp = pk->deth.src_qp;
	pk->bth.se = 0;
	pk->bth.ack_req = 0;
	pk->bth.opcode = MPD_OP_UD_SEND_ONLY;
	pk->deth.src_qp = qp;
	pk->deth.qkey = qp == 0 ? 0 : MPD_QP1_QKEY;
}

uint16_t
hca_port_answer(struct hca_port *p, struct mpd_pkt *pk, const uint8_t *mad,
		enum hca_reply r, uint8_t *buf, uint16_t cap)
{
	int n;

	hca_port_reverse(p, pk, pk->bth.dest_qp);
	if (r == HCA_TRAP) {
		pk->lrh.dlid = p->sm_lid;
		pk->lrh.slid = p->lid;
	}
	n = mpd_pkt_encode_flags(pk, mad, MPD_MAD_LEN, buf, cap,
				 hca_port_enc_flags(p));
	if (n < 0) {
		p->cnt.xmit_discards++;
		return 0;
	}
	return (uint16_t)n;
}

enum hca_reply
hca_node_agent(struct hca_port *p, uint32_t qp, uint8_t *mad,
	       const struct mpd_pkt *pk, uint64_t now_ns)
{
	if (!mpd_mad_is_get_set(mad))
		return HCA_NOT_MINE;
	if (qp == 0)
		return hca_sma_handle(p, mad, pk, now_ns);
	if (qp == 1 && mpd_mad_class(mad) == MPD_CLASS_PERF)
		return hca_pma_handle(p, mad) ? HCA_REPLY : HCA_NO_REPLY;
	return HCA_NOT_MINE;
}

uint32_t
hca_port_rate_mbps(const struct hca_port *p)
{
	/* IBA 14.2.5.6 LinkSpeedActive (per lane) x LinkWidthActive */
	static const uint32_t lane_mbps[] = { [1] = 2500, [2] = 5000,
					      [4] = 10000 };
	static const uint32_t lanes[] = { [1] = 1, [2] = 4, [4] = 8, [8] = 12 };
	unsigned int s = p->link_speed_active, w = p->link_width_active;

	return (s < sizeof(lane_mbps) / sizeof(lane_mbps[0]) ? lane_mbps[s] : 0) *
	       (w < sizeof(lanes) / sizeof(lanes[0]) ? lanes[w] : 0);
}

enum hca_reply
hca_node_unmatched(struct hca_port *p, uint8_t *mad)
{
	uint16_t status = MPD_STATUS_METHOD_ATTR_UNSUP;

	if (mpd_mad_class(mad) == MPD_CLASS_SUBN_DR)
		status |= MPD_SMP_STATUS_D;
	mad[MPD_MAD_OFF_METHOD] = MPD_METHOD_GET_RESP;
	mpd_put_be16(mad + MPD_MAD_OFF_STATUS, status);
	p->cnt.mad_unmatched++;
	return HCA_REPLY;
}

/* FNV-1a: stable default GUIDs and addresses from the port's name */
static uint32_t
name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

void
hca_port_defaults(struct hca_port *p, const char *name)
{
	uint32_t h = name_hash(name);

	memset(p, 0, sizeof(*p));
	snprintf(p->node_name, sizeof(p->node_name), "%s", name);
	p->link = MPD_LINK_IB;
	/* "madpmd" vendor-style prefix, 24 bits of name hash, port in the
	 * low byte: unique per name and stable across runs */
	p->node_guid = 0x6d61640000000000ull | (uint64_t)(h & 0xffffff) << 8;
	p->port_num = 1;
	p->num_ports = 1;
	p->port_state = HCA_PORT_DOWN;
	p->phys_state = HCA_PHYS_POLLING;
	p->admin_up = 1;
	p->gid_prefix = 0xfe80000000000000ull;
	p->subnet_timeout = 18;
	p->resp_time = 16;
	p->link_width_supported = 1 | 2;
	p->link_width_enabled = 1 | 2;
	p->link_width_active = 2;		/* 4x */
	p->link_speed_supported = 1 | 2 | 4;
	p->link_speed_enabled = 1 | 2 | 4;
	p->link_speed_active = 4;		/* QDR */
	p->mtu_cap = 5;				/* 4096 */
	p->neighbor_mtu = 5;
	p->vl_cap = 1;				/* VL0 */
	p->op_vls = 1;
	p->pkeys[0] = 0xffff;
	p->mac[0] = 0x02;		/* locally administered */
	p->mac[2] = (uint8_t)(h >> 24);
	p->mac[3] = (uint8_t)(h >> 16);
	p->mac[4] = (uint8_t)(h >> 8);
	p->mac[5] = (uint8_t)h;
	p->ip4[0] = 10;
	p->ip4[1] = 77;
	p->ip4[2] = (uint8_t)(h >> 8);
	p->ip4[3] = (uint8_t)(1 + (h & 0xfd));
}
