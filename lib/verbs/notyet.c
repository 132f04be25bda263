/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs this drop-in does not carry out (dma-buf MRs, re-registering,
 * ECE, importing objects, providers: docs/verbs.md says what
 * works). Each fails at once as the man page says a refused call fails,
 * with errno EOPNOTSUPP: -1, NULL, or EOPNOTSUPP itself where the verb
 * returns an errno. Objects these calls would take can never have come
 * from here: the calls that free them say EINVAL.
 */
#include <errno.h>

#include "verbs_priv.h"

static void *
null_not_yet(void)
{
	errno = VERBS_NOT_YET;
	return NULL;
}

VERBS_EXPORT struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
		  uint64_t iova, int fd, int access)
{
	(void)pd, (void)offset, (void)length, (void)iova, (void)fd,
	(void)access;
	return null_not_yet();
}

VERBS_EXPORT int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
	     size_t length, int access)
{
	(void)mr, (void)flags, (void)pd, (void)addr, (void)length,
	(void)access;
	/* not a capability of this device: the error pyverbs and rdma-core
	 * callers take as "unsupported" */
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

VERBS_EXPORT int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
			   uint32_t flags)
{
	(void)qp, (void)op, (void)flags;
	return 0;	/* "not guaranteed in order": always true */
}

VERBS_EXPORT int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp, (void)ece;
	return EOPNOTSUPP;
}

VERBS_EXPORT int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp, (void)ece;
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

VERBS_EXPORT int
ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
			    struct ibv_ah_attr *attr,
			    uint8_t eth_mac[ETHERNET_LL_SIZE], uint16_t *vid)
{
	(void)context, (void)attr, (void)eth_mac, (void)vid;
	return VERBS_NOT_YET;
}

/* No memory is pinned the kernel's way: fork needs nothing */
VERBS_EXPORT int
ibv_fork_init(void)
{
	return 0;
}

VERBS_EXPORT enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

VERBS_EXPORT int
ibv_dontfork_range(void *base, size_t size)
{
	(void)base, (void)size;
	return 0;
}

VERBS_EXPORT int
ibv_dofork_range(void *base, size_t size)
{
	(void)base, (void)size;
	return 0;
}

/* Sharing objects through a context's command fd (a copy of its control
 * socket here): the daemon keeps each context's objects its own */
VERBS_EXPORT struct ibv_context *
ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	return null_not_yet();
}

VERBS_EXPORT struct ibv_pd *
ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context, (void)pd_handle;
	return null_not_yet();
}

VERBS_EXPORT void
ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

VERBS_EXPORT struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd, (void)mr_handle;
	return null_not_yet();
}

VERBS_EXPORT void
ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

VERBS_EXPORT struct ibv_dm *
ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context, (void)dm_handle;
	return null_not_yet();
}

VERBS_EXPORT void
ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}

/*
 * IBVERBS_PRIVATE_34: the interface of rdma-core 44's providers, which
 * this library does not load. The symbols exist so that programs linked
 * with providers (perftest loads libmlx5 and libefa) start; a provider
 * that registers itself is ignored, and every command fails.
 */
#define PRIVATE_STUB(name)						\
	int name(void);							\
	VERBS_EXPORT int						\
	name(void)							\
	{								\
		errno = VERBS_NOT_YET;					\
		return VERBS_NOT_YET;					\
	}
PRIVATE_STUB(__ioctl_final_num_attrs)
PRIVATE_STUB(__verbs_log)
PRIVATE_STUB(_verbs_init_and_alloc_context)
PRIVATE_STUB(execute_ioctl)
PRIVATE_STUB(ibv_cmd_advise_mr)
PRIVATE_STUB(ibv_cmd_alloc_dm)
PRIVATE_STUB(ibv_cmd_alloc_mw)
PRIVATE_STUB(ibv_cmd_alloc_pd)
PRIVATE_STUB(ibv_cmd_attach_mcast)
PRIVATE_STUB(ibv_cmd_close_xrcd)
PRIVATE_STUB(ibv_cmd_create_ah)
PRIVATE_STUB(ibv_cmd_create_counters)
PRIVATE_STUB(ibv_cmd_create_cq)
PRIVATE_STUB(ibv_cmd_create_cq_ex)
PRIVATE_STUB(ibv_cmd_create_flow)
PRIVATE_STUB(ibv_cmd_create_flow_action_esp)
PRIVATE_STUB(ibv_cmd_create_qp)
PRIVATE_STUB(ibv_cmd_create_qp_ex)
PRIVATE_STUB(ibv_cmd_create_qp_ex2)
PRIVATE_STUB(ibv_cmd_create_rwq_ind_table)
PRIVATE_STUB(ibv_cmd_create_srq)
PRIVATE_STUB(ibv_cmd_create_srq_ex)
PRIVATE_STUB(ibv_cmd_create_wq)
PRIVATE_STUB(ibv_cmd_dealloc_mw)
PRIVATE_STUB(ibv_cmd_dealloc_pd)
PRIVATE_STUB(ibv_cmd_dereg_mr)
PRIVATE_STUB(ibv_cmd_destroy_ah)
PRIVATE_STUB(ibv_cmd_destroy_counters)
PRIVATE_STUB(ibv_cmd_destroy_cq)
PRIVATE_STUB(ibv_cmd_destroy_flow)
PRIVATE_STUB(ibv_cmd_destroy_flow_action)
PRIVATE_STUB(ibv_cmd_destroy_qp)
PRIVATE_STUB(ibv_cmd_destroy_rwq_ind_table)
PRIVATE_STUB(ibv_cmd_destroy_srq)
PRIVATE_STUB(ibv_cmd_destroy_wq)
PRIVATE_STUB(ibv_cmd_detach_mcast)
PRIVATE_STUB(ibv_cmd_free_dm)
PRIVATE_STUB(ibv_cmd_get_context)
PRIVATE_STUB(ibv_cmd_modify_cq)
PRIVATE_STUB(ibv_cmd_modify_flow_action_esp)
PRIVATE_STUB(ibv_cmd_modify_qp)
PRIVATE_STUB(ibv_cmd_modify_qp_ex)
PRIVATE_STUB(ibv_cmd_modify_srq)
PRIVATE_STUB(ibv_cmd_modify_wq)
PRIVATE_STUB(ibv_cmd_open_qp)
PRIVATE_STUB(ibv_cmd_open_xrcd)
PRIVATE_STUB(ibv_cmd_poll_cq)
PRIVATE_STUB(ibv_cmd_post_recv)
PRIVATE_STUB(ibv_cmd_post_send)
PRIVATE_STUB(ibv_cmd_post_srq_recv)
PRIVATE_STUB(ibv_cmd_query_context)
PRIVATE_STUB(ibv_cmd_query_device_any)
PRIVATE_STUB(ibv_cmd_query_mr)
PRIVATE_STUB(ibv_cmd_query_port)
PRIVATE_STUB(ibv_cmd_query_qp)
PRIVATE_STUB(ibv_cmd_query_srq)
PRIVATE_STUB(ibv_cmd_read_counters)
PRIVATE_STUB(ibv_cmd_reg_dm_mr)
PRIVATE_STUB(ibv_cmd_reg_dmabuf_mr)
PRIVATE_STUB(ibv_cmd_reg_mr)
PRIVATE_STUB(ibv_cmd_req_notify_cq)
PRIVATE_STUB(ibv_cmd_rereg_mr)
PRIVATE_STUB(ibv_cmd_resize_cq)
PRIVATE_STUB(ibv_read_ibdev_sysfs_file)
PRIVATE_STUB(verbs_allow_disassociate_destroy)
PRIVATE_STUB(verbs_init_cq)
PRIVATE_STUB(verbs_open_device)
PRIVATE_STUB(verbs_set_ops)
PRIVATE_STUB(verbs_uninit_context)

/* a provider's constructor calls this: nothing to register with */
void verbs_register_driver_34(const void *ops);

VERBS_EXPORT void
verbs_register_driver_34(const void *ops)
{
	(void)ops;
}
