/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_set_option(): the value travels in the request, checked for the
 * size each option has as the kernel's ucma_set_option_id() checks it;
 * the daemon takes RDMA_OPTION_ID's (TOS, REUSEADDR, AFONLY,
 * ACK_TIMEOUT) and answers the others (ENOSYS for RDMA_OPTION_IB_PATH,
 * EINVAL otherwise).
 */
#include <errno.h>
#include <string.h>

#include "rdmacm_priv.h"

/* The option's value, or EINVAL when optlen is not its size */
static int
option_value(int level, int optname, const void *optval, size_t optlen,
	     uint64_t *value)
{
	uint8_t u8;
	int i;

	*value = 0;
	if (level != RDMA_OPTION_ID)
		return 0;
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(u8))
			return EINVAL;
		memcpy(&u8, optval, sizeof(u8));
		*value = u8;
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		if (optlen != sizeof(i))
			return EINVAL;
		memcpy(&i, optval, sizeof(i));
		*value = (uint64_t)(int64_t)i;
		return 0;
	default:
		return 0;
	}
}

CMA_EXPORT int
rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval,
		size_t optlen)
{
	struct mpd_cm_option_req *req;
	struct mpd_chan_msg m;
	int rc;

	if (!id || !optval || !optlen)
		return cma_err(EINVAL);
	memset(&m, 0, sizeof(m));
	m.type = MPD_CM_SET_OPTION;
	m.len = sizeof(*req);
	req = &m.u.cm_option_req;
	req->id = cma_id(id)->handle;
	req->level = (uint32_t)level;
	req->optname = (uint32_t)optname;
	rc = option_value(level, optname, optval, optlen, &req->value);
	if (!rc)
		rc = cma_call(cma_chan(id->channel), &m);
	return rc ? cma_err(rc) : 0;
}
