/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers for tests that drive net_hca ports through their ethdev face. */
#ifndef MADPMD_HCA_TEST_H
#define MADPMD_HCA_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "madpmd/mad.h"
#include "madpmd/wire.h"

/* Start EAL (no hugepages, unique file prefix) with the given vdevs;
 * returns 0 or -1. hca_test_eal_fini() cleans up, file prefix included. */
int hca_test_eal_init(const char *prog, const char *const *vdevs,
		      unsigned int nvdevs);
void hca_test_eal_fini(void);
/* Configure and start port with one rx and one tx queue. */
int hca_test_port_start(uint16_t port);

/* Send one frame into the port (from its wire) and collect what it
 * answers within a short time; returns the response length (0: none). */
int hca_test_xchg(uint16_t port, const uint8_t *frame, size_t len,
		  uint8_t *resp, size_t cap);
/* An xstat by name; UINT64_MAX when absent. */
uint64_t hca_test_xstat(uint16_t port, const char *name);

/* Wrap a 256-byte MAD for QP qp in a frame on link (IB: LID-routed with
 * the given LIDs; RoCE: to the port's MAC). Returns the frame length. */
int hca_test_frame(enum mpd_link link, uint16_t port, uint32_t qp,
		   uint16_t dlid, uint16_t slid, uint16_t pkey, uint32_t qkey,
		   const uint8_t *mad, uint8_t *frame, size_t cap);

#endif
