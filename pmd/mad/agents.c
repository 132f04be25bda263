/* SPDX-License-Identifier: BSD-3-Clause */
/* The agent table: which client agent a MAD is for (IBA 13.4.5, the
 * kernel's find_mad_agent()). */
#include "mad_priv.h"

static bool
agent_takes(const struct hca_mad_agent *a, uint8_t cls, uint8_t ver,
	    uint8_t method, bool vendor2, uint32_t oui)
{
	return a->used && a->mgmt_class == cls && a->class_version == ver &&
	       (a->method_mask[method / 64] & (1ull << (method % 64))) &&
	       (!vendor2 || a->oui == oui);
}

bool
mad_find_agent(const struct hca_mad_layer *ml, const uint8_t *mad,
	       struct hca_mad_client **pc, uint32_t *pid)
{
	uint8_t cls = mpd_mad_class(mad), ver = mad[MPD_MAD_OFF_CLASS_VER];
	uint8_t method = mpd_mad_method(mad) & 0x7f;
	bool vendor2 = cls >= MPD_CLASS_VENDOR_R2_LO &&
		       cls <= MPD_CLASS_VENDOR_R2_HI;
	uint32_t oui = (uint32_t)mad[MPD_VENDOR_OFF_OUI] << 16 |
		       (uint32_t)mad[MPD_VENDOR_OFF_OUI + 1] << 8 |
		       mad[MPD_VENDOR_OFF_OUI + 2];
	struct hca_mad_client *c;
	uint32_t i;

	TAILQ_FOREACH(c, &ml->clients, next) {
		if (c->dead)
			continue;
		for (i = 0; i < HCA_MAD_AGENTS; i++) {
			if (!agent_takes(&c->agent[i], cls, ver, method,
					 vendor2, oui))
				continue;
			*pc = c;
			*pid = i;
			return true;
		}
	}
	return false;
}

bool
mad_find_agent_by_tid(const struct hca_mad_layer *ml, uint64_t tid,
		      struct hca_mad_client **pc, uint32_t *pid)
{
	uint32_t hi_tid = (uint32_t)(tid >> 32);
	struct hca_mad_client *c;
	uint32_t i;

	TAILQ_FOREACH(c, &ml->clients, next)
		for (i = 0; i < HCA_MAD_AGENTS; i++)
			if (c->agent[i].used && c->agent[i].hi_tid == hi_tid) {
				*pc = c;
				*pid = i;
				return true;
			}
	return false;
}

bool
hca_mad_smp_for_client(const struct hca_mad_layer *ml, const uint8_t *mad)
{
	struct hca_mad_client *c;
	uint32_t id;

	/* the SMA answers every SMP but SMInfo, which is the SM's */
	if (mpd_mad_attr_id(mad) != MPD_ATTR_SM_INFO)
		return false;
	return mad_find_agent(ml, mad, &c, &id);
}
