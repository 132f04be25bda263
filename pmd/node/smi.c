/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A CA port's subnet management interface for directed-route SMPs (IBA
 * 14.2.2.2): the hop pointer and return path at the end port, as the
 * kernel's drivers/infiniband/core/smi.c moves them. A switch's are in
 * switch_fwd.c.
 */
#include "madpmd/mad.h"
#include "madpmd/wire.h"
#include "node.h"

/*
 * Directed route at a CA port (IBA 14.2.2.2, as the kernel's smi.c): a
 * request at the end of its path (C14-9:3) notes its arrival port and
 * moves the pointer to count + 1, the step the end port's SMI takes
 * before the SMA or an SM sees it; one LID-routed there already has it
 * (C14-9:4). A response back at the requester (C14-13:3) goes from 1 to
 * 0 for the SM; 0 is one LID-routed back (C14-13:4). Anything else is a
 * switch's to handle.
 */
bool
hca_port_dr_recv(const struct hca_port *p, uint8_t *mad)
{
	uint8_t ptr = mad[MPD_SMP_OFF_HOP_PTR], cnt = mad[MPD_SMP_OFF_HOP_CNT];

	if (cnt > MPD_SMP_MAX_HOPS)
		return false;
	if (mad[MPD_MAD_OFF_STATUS] & (MPD_SMP_STATUS_D >> 8)) {
		if (ptr == 1) {
			if (mpd_get_be16(mad + MPD_SMP_OFF_DR_SLID) !=
			    MPD_LID_PERMISSIVE)
				return false;
			mad[MPD_SMP_OFF_HOP_PTR] = 0;
			return true;
		}
		return ptr == 0;
	}
	if (ptr == cnt) {
		/* the LID-routed last leg is a switch's */
		if (mpd_get_be16(mad + MPD_SMP_OFF_DR_DLID) !=
		    MPD_LID_PERMISSIVE)
			return false;
		if (cnt)
			mad[MPD_SMP_OFF_RET_PATH + cnt] = p->port_num;
		mad[MPD_SMP_OFF_HOP_PTR] = (uint8_t)(cnt + 1);
		return true;
	}
	return ptr == cnt + 1;
}

/*
 * The response to a DR request the port took, as it leaves (IBA C14-13:1):
 * the pointer from count + 1 back to count, where the first switch on the
 * way back finds the port to send it out of; a hop count of 0 (the port
 * itself) goes straight to 0 (C14-13:3).
 */
void
hca_port_dr_reply(uint8_t *mad)
{
	uint8_t ptr = mad[MPD_SMP_OFF_HOP_PTR], cnt = mad[MPD_SMP_OFF_HOP_CNT];

	if (cnt && ptr == cnt + 1)
		mad[MPD_SMP_OFF_HOP_PTR] = cnt;
	else if (ptr == 1)
		mad[MPD_SMP_OFF_HOP_PTR] = 0;
}
