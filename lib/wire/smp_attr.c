/* SPDX-License-Identifier: BSD-3-Clause */
/* SMP attribute layouts (IBA 14.2.5). */
#include "madpmd/attr.h"

#define F(m, o, w) MPD_FIELD(struct mpd_node_info, m, o, w)
static const struct mpd_field node_info_fields[] = {	/* IBA 14.2.5.3 */
	F(base_version, 0, 8),
	F(class_version, 8, 8),
	F(node_type, 16, 8),
	F(num_ports, 24, 8),
	F(sys_image_guid, 32, 64),
	F(node_guid, 96, 64),
	F(port_guid, 160, 64),
	F(partition_cap, 224, 16),
	F(device_id, 240, 16),
	F(revision, 256, 32),
	F(local_port_num, 288, 8),
	F(vendor_id, 296, 24),
};
#undef F
const struct mpd_layout mpd_node_info_layout =
	MPD_LAYOUT("NodeInfo", 40, node_info_fields);
