/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared inside the wire codec; not installed. */
#ifndef MADPMD_WIRE_PRIV_H
#define MADPMD_WIRE_PRIV_H

#include "madpmd/wire.h"

int mpd_eth_encode(const struct mpd_eth *h, uint8_t *buf, size_t cap);
int mpd_eth_decode(const uint8_t *buf, size_t len, struct mpd_eth *h);
/* IPv4 without options; total_len and csum computed by the caller. */
int mpd_ipv4_encode(const struct mpd_ipv4 *h, uint8_t *buf, size_t cap);
/* Returns the header length (IHL * 4); checks version, IHL and checksum. */
int mpd_ipv4_decode(const uint8_t *buf, size_t len, struct mpd_ipv4 *h);
int mpd_ipv6_encode(const struct mpd_ipv6 *h, uint8_t *buf, size_t cap);
int mpd_ipv6_decode(const uint8_t *buf, size_t len, struct mpd_ipv6 *h);
int mpd_udp_encode(const struct mpd_udp *h, uint8_t *buf, size_t cap);
int mpd_udp_decode(const uint8_t *buf, size_t len, struct mpd_udp *h);
/* Internet checksum (RFC 1071) of buf, folded, not inverted, added to sum. */
uint32_t mpd_inet_sum(uint32_t sum, const uint8_t *buf, size_t len);
uint16_t mpd_inet_fold(uint32_t sum);

#endif
