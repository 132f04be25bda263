/* SPDX-License-Identifier: BSD-3-Clause */
/* The PMD's log type, in the lowest layer that logs (the channel), so
 * that the files above and beside it share it without calling each other. */
#include <rte_log.h>

RTE_LOG_REGISTER(hca_logtype, pmd.net.hca, NOTICE);
