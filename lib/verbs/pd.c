/* SPDX-License-Identifier: BSD-3-Clause */
/* Protection domains: a handle of the device session, nothing more. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_priv.h"

VERBS_EXPORT struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	struct mpd_chan_msg m;
	struct ibv_pd *pd;
	int rc;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_ALLOC_PD;
	rc = mpd_v_call(mpd_verbs_ctx(context), &m, NULL);
	if (rc) {
		free(pd);
		errno = rc;
		return NULL;
	}
	pd->context = context;
	pd->handle = m.u.v_handle.handle;
	return pd;
}

/* EBUSY from the daemon while MRs, QPs, SRQs use it */
VERBS_EXPORT int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	int rc;

	if (!pd)
		return EINVAL;
	rc = mpd_v_destroy(mpd_verbs_ctx(pd->context), MPD_V_DEALLOC_PD,
			   pd->handle, NULL);
	if (rc)
		return rc;
	free(pd);
	return 0;
}
