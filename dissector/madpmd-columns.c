/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet list of a madpmd capture: which port captured a frame.
 *
 * madpmd captures every port of a fabric into one file, one interface per
 * port ("hca1/1"), so a packet on a cable appears twice, sent at one end
 * and received at the other, and TCP over the fabric would read as a
 * retransmission. Info ends with the capturing end: "[hca1/1 out]",
 * "[hca2/1 in]". A postdissector: it runs after every dissector, stock
 * ones included, and reads the frame's interface and direction only, so
 * no field of any protocol changes. (Records name their port as Source in
 * packet-madpmd.c.)
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/proto_data.h>

#include "madpmd.h"

static int proto_columns = -1;

static int
columns_post(tvbuff_t *tvb _U_, packet_info *pinfo, proto_tree *tree _U_,
	     void *data _U_)
{
	gboolean records;
	const char *port = madpmd_port_name(pinfo, &records), *info, *sp;
	size_t n;

	/* records: one per event, on the port's interface or its own */
	if (!port || records ||
	    p_get_proto_data(pinfo->pool, pinfo, proto_madpmd,
			     MADPMD_KEY_RECORD))
		return 0;
	info = col_get_text(pinfo->cinfo, COL_INFO);
	n = info ? strlen(info) : 0;
	sp = n && info[n - 1] != ' ' ? " " : "";
	switch (pinfo->p2p_dir) {
	case P2P_DIR_SENT:
		col_append_fstr(pinfo->cinfo, COL_INFO, "%s[%s out]", sp, port);
		break;
	case P2P_DIR_RECV:
		col_append_fstr(pinfo->cinfo, COL_INFO, "%s[%s in]", sp, port);
		break;
	default:
		col_append_fstr(pinfo->cinfo, COL_INFO, "%s[%s]", sp, port);
		break;
	}
	return 0;
}

void
madpmd_columns_register(void)
{
	/* a protocol of its own, so that it can be turned off apart:
	 * --disable-protocol madpmd_columns */
	proto_columns = proto_register_protocol(
		"madpmd capturing port in Info", "madpmd columns",
		"madpmd_columns");
	register_postdissector(create_dissector_handle(columns_post,
						       proto_columns));
}
