/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICRC and VCRC of a frame computed without the codec: zlib's crc32() over
 * the bytes IBA 7.8.1 (and RoCE annexes A16/A17) say are covered, with the
 * variant fields set to ones, and a bitwise CRC-16 from IBA 7.8.2. Header
 * positions are read off the frame. For tests that must not take the
 * expected CRC from the encoder they check.
 */
#ifndef MADPMD_TEST_CRC_REF_H
#define MADPMD_TEST_CRC_REF_H

#include <stddef.h>
#include <stdint.h>

#include "madpmd/wire.h"

/* The ICRC a frame of the given link should carry (the frame's last 4
 * bytes, IB: before the VCRC). 0 on success, -1 when the frame is too
 * short or not of that link. */
int crc_ref_icrc(enum mpd_link link, const uint8_t *f, size_t len,
		 uint32_t *icrc);
/* The VCRC of an IB packet: over everything before its last two bytes. */
uint16_t crc_ref_vcrc(const uint8_t *f, size_t len);

#endif
