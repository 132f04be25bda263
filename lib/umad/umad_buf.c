/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The umad buffer: struct ib_user_mad (64 bytes, the P_Key-index ABI that
 * every kernel since 2.6.x offers) followed by the MAD. Accessors, and
 * the debug dumps.
 */
#include <endian.h>
#include <string.h>

#include "umad_priv.h"

UMAD_EXPORT void *
umad_get_mad(void *umad)
{
	return ((struct ib_user_mad *)umad)->data;
}

UMAD_EXPORT size_t
umad_size(void)
{
	return sizeof(struct ib_user_mad);
}

UMAD_EXPORT int
umad_status(void *umad)
{
	return (int)((struct ib_user_mad *)umad)->status;
}

UMAD_EXPORT ib_mad_addr_t *
umad_get_mad_addr(void *umad)
{
	return &((struct ib_user_mad *)umad)->addr;
}

/* mad_addr: GID in network order, flow label in host order (the man
 * page's contract); NULL clears the GRH. */
UMAD_EXPORT int
umad_set_grh(void *umad, void *mad_addr)
{
	struct ib_user_mad *mad = umad;
	const struct ib_mad_addr *a = mad_addr;

	if (!a) {
		mad->addr.grh_present = 0;
		return 0;
	}
	mad->addr.grh_present = 1;
	memcpy(mad->addr.gid, a->gid, sizeof(mad->addr.gid));
	mad->addr.flow_label = htobe32((uint32_t)a->flow_label);
	mad->addr.hop_limit = a->hop_limit;
	mad->addr.traffic_class = a->traffic_class;
	return 0;
}

UMAD_EXPORT int
umad_set_pkey(void *umad, int pkey_index)
{
	((struct ib_user_mad *)umad)->addr.pkey_index = (uint16_t)pkey_index;
	return 0;
}

UMAD_EXPORT int
umad_get_pkey(void *umad)
{
	return ((struct ib_user_mad *)umad)->addr.pkey_index;
}

UMAD_EXPORT int
umad_set_addr(void *umad, int dlid, int dqp, int sl, int qkey)
{
	struct ib_user_mad *mad = umad;

	UMAD_DBG("umad %p dlid %u dqp %d sl %d, qkey %x", umad,
		 (unsigned int)dlid, dqp, sl, (unsigned int)qkey);
	mad->addr.qpn = htobe32((uint32_t)dqp);
	mad->addr.lid = htobe16((uint16_t)dlid);
	mad->addr.qkey = htobe32((uint32_t)qkey);
	mad->addr.sl = (uint8_t)sl;
	return 0;
}

UMAD_EXPORT int
umad_set_addr_net(void *umad, __be16 dlid, __be32 dqp, int sl, __be32 qkey)
{
	struct ib_user_mad *mad = umad;

	UMAD_DBG("umad %p dlid %u dqp %u sl %d qkey %x", umad,
		 be16toh(dlid), be32toh(dqp), sl, be32toh(qkey));
	mad->addr.qpn = dqp;
	mad->addr.lid = dlid;
	mad->addr.qkey = qkey;
	mad->addr.sl = (uint8_t)sl;
	return 0;
}

UMAD_EXPORT int
umad_debug(int level)
{
	if (level >= 0)
		mpd_chan_debug = level;
	return mpd_chan_debug;
}

UMAD_EXPORT void
umad_addr_dump(ib_mad_addr_t *addr)
{
	static const char hex[] = "0123456789abcdef";
	char gid[2 * sizeof(addr->gid) + 1];
	size_t i;

	for (i = 0; i < sizeof(addr->gid); i++) {
		gid[2 * i] = hex[addr->gid[i] >> 4];
		gid[2 * i + 1] = hex[addr->gid[i] & 0xf];
	}
	gid[2 * i] = '\0';
	mpd_chan_warn(__func__,
		       "qpn %u qkey 0x%x lid %u sl %u\n"
		       "grh_present %u gid_index %u hop_limit %u traffic_class %u flow_label 0x%x pkey_index 0x%x\n"
		       "Gid 0x%s",
		       be32toh(addr->qpn), be32toh(addr->qkey),
		       be16toh(addr->lid), addr->sl, addr->grh_present,
		       addr->gid_index, addr->hop_limit, addr->traffic_class,
		       be32toh(addr->flow_label), addr->pkey_index, gid);
}

UMAD_EXPORT void
umad_dump(void *umad)
{
	struct ib_user_mad *mad = umad;

	mpd_chan_warn(__func__, "agent id %u status %x timeout %u",
		       mad->agent_id, mad->status, mad->timeout_ms);
	umad_addr_dump(&mad->addr);
}
