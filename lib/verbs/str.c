/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names and rates: the strings libibverbs prints (the same words as
 * rdma-core's, which scripts match on) and the IBA static rate encodings
 * (IBA 9.11.1, Table 226 StaticRate).
 */
#include "verbs_priv.h"

#define DIM(a)	(sizeof(a) / sizeof((a)[0]))

VERBS_EXPORT const char *
ibv_node_type_str(enum ibv_node_type node_type)
{
	static const char *const names[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter",
		[IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router",
		[IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC",
		[IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	if ((unsigned int)node_type >= DIM(names) || !names[node_type])
		return "unknown";
	return names[node_type];
}

VERBS_EXPORT const char *
ibv_port_state_str(enum ibv_port_state port_state)
{
	static const char *const names[] = {
		[IBV_PORT_NOP] = "PORT_NOP",
		[IBV_PORT_DOWN] = "PORT_DOWN",
		[IBV_PORT_INIT] = "PORT_INIT",
		[IBV_PORT_ARMED] = "PORT_ARMED",
		[IBV_PORT_ACTIVE] = "PORT_ACTIVE",
		[IBV_PORT_ACTIVE_DEFER] = "PORT_ACTIVE_DEFER",
	};

	if ((unsigned int)port_state >= DIM(names))
		return "unknown";
	return names[port_state];
}

VERBS_EXPORT const char *
ibv_event_type_str(enum ibv_event_type event)
{
	static const char *const names[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	if ((unsigned int)event >= DIM(names) || !names[event])
		return "unknown";
	return names[event];
}

VERBS_EXPORT const char *
ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	if ((unsigned int)status >= DIM(names) || !names[status])
		return "unknown";
	return names[status];
}

/* StaticRate encodings and what each carries, in Mb/s */
static const struct {
	enum ibv_rate rate;
	int mbps;
} rates[] = {
	{ IBV_RATE_2_5_GBPS, 2500 },	{ IBV_RATE_5_GBPS, 5000 },
	{ IBV_RATE_10_GBPS, 10000 },	{ IBV_RATE_14_GBPS, 14062 },
	{ IBV_RATE_20_GBPS, 20000 },	{ IBV_RATE_25_GBPS, 25781 },
	{ IBV_RATE_28_GBPS, 28125 },	{ IBV_RATE_30_GBPS, 30000 },
	{ IBV_RATE_40_GBPS, 40000 },	{ IBV_RATE_50_GBPS, 53125 },
	{ IBV_RATE_56_GBPS, 56250 },	{ IBV_RATE_60_GBPS, 60000 },
	{ IBV_RATE_80_GBPS, 80000 },	{ IBV_RATE_100_GBPS, 103125 },
	{ IBV_RATE_112_GBPS, 112500 },	{ IBV_RATE_120_GBPS, 120000 },
	{ IBV_RATE_168_GBPS, 168750 },	{ IBV_RATE_200_GBPS, 206250 },
	{ IBV_RATE_300_GBPS, 309375 },	{ IBV_RATE_400_GBPS, 425000 },
	{ IBV_RATE_600_GBPS, 637500 },	{ IBV_RATE_800_GBPS, 850000 },
	{ IBV_RATE_1200_GBPS, 1275000 },
};

VERBS_EXPORT int
ibv_rate_to_mbps(enum ibv_rate rate)
{
	unsigned int i;

	for (i = 0; i < DIM(rates); i++)
		if (rates[i].rate == rate)
			return rates[i].mbps;
	return -1;
}

VERBS_EXPORT enum ibv_rate
mbps_to_ibv_rate(int mbps)
{
	unsigned int i;

	for (i = 0; i < DIM(rates); i++)
		if (rates[i].mbps == mbps)
			return rates[i].rate;
	return IBV_RATE_MAX;
}

/* The old API: multiples of 2.5 Gb/s (only the rates that are) */
VERBS_EXPORT int
ibv_rate_to_mult(enum ibv_rate rate)
{
	int mbps = ibv_rate_to_mbps(rate);

	return mbps > 0 && mbps % 2500 == 0 ? mbps / 2500 : -1;
}

VERBS_EXPORT enum ibv_rate
mult_to_ibv_rate(int mult)
{
	return mult > 0 && mult <= 48 ? mbps_to_ibv_rate(mult * 2500)
				      : IBV_RATE_MAX;
}
