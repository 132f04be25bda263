/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * madpmd wire codec: SMP attributes (IBA 14.2.5) and PerfMgt attributes
 * (IBA 16.1.3), as host structs with their wire layouts.
 *
 * Encode with mpd_layout_encode(&mpd_<attr>_layout, &obj, buf, cap) and
 * decode with mpd_layout_decode(); every layout's wire_len is the
 * attribute's size on the wire.
 */
#ifndef MADPMD_ATTR_H
#define MADPMD_ATTR_H

#include <stdint.h>

#include "madpmd/field.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Node types (IBA 14.2.5.3) */
#define MPD_NODE_TYPE_CA	1
#define MPD_NODE_TYPE_SWITCH	2
#define MPD_NODE_TYPE_ROUTER	3

/* NodeInfo (IBA 14.2.5.3), 40 bytes */
struct mpd_node_info {
	uint8_t base_version;
	uint8_t class_version;
	uint8_t node_type;
	uint8_t num_ports;
	uint64_t sys_image_guid;
	uint64_t node_guid;
	uint64_t port_guid;
	uint16_t partition_cap;
	uint16_t device_id;
	uint32_t revision;
	uint8_t local_port_num;
	uint32_t vendor_id;	/* 24 bits */
};
extern const struct mpd_layout mpd_node_info_layout;

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_ATTR_H */
