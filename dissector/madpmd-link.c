/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The heartbeat of an IB link between two madpmd daemons (EtherType
 * 0x88b6, lib/wire/ib_eth.c): who sends it, how often, and whom it hears.
 * A link is up while both ends' heartbeats name each other; one that
 * names nobody is an end that hears nothing yet (or any more).
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "madpmd/wire.h"
#include "madpmd.h"

static int hf_link = -1, hf_magic = -1, hf_version = -1, hf_flags = -1;
static int hf_flag_heard = -1, hf_interval = -1, hf_guid = -1, hf_port = -1;
static int hf_heard_guid = -1, hf_heard_port = -1;
static gint ett_link = -1, ett_flags = -1;
static expert_field ei_bad, ei_deaf;
static dissector_handle_t link_handle;

static int
dissect_link(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
	     void *data _U_)
{
	static int *const flags[] = { &hf_flag_heard, NULL };
	guint len = tvb_reported_length(tvb);
	proto_item *ti;
	proto_tree *t;
	guint8 fl, port;
	guint64 guid;

	col_set_str(pinfo->cinfo, COL_PROTOCOL, "madpmd link");
	ti = proto_tree_add_item(tree, hf_link, tvb, 0,
				 MIN(len, MPD_LINK_HELLO_LEN), ENC_NA);
	t = proto_item_add_subtree(ti, ett_link);
	if (len < MPD_LINK_HELLO_LEN ||
	    tvb_memeql(tvb, 0, (const guint8 *)"MPDL", 4) != 0 ||
	    tvb_get_guint8(tvb, 4) != MPD_LINK_HELLO_VERSION) {
		col_set_str(pinfo->cinfo, COL_INFO, "Not a heartbeat");
		expert_add_info(pinfo, ti, &ei_bad);
		return (int)len;
	}
	proto_tree_add_item(t, hf_magic, tvb, 0, 4, ENC_ASCII);
	proto_tree_add_item(t, hf_version, tvb, 4, 1, ENC_BIG_ENDIAN);
	proto_tree_add_bitmask(t, tvb, 5, hf_flags, ett_flags, flags,
			       ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_interval, tvb, 6, 2, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_guid, tvb, 8, 8, ENC_BIG_ENDIAN);
	proto_tree_add_item(t, hf_port, tvb, 16, 1, ENC_BIG_ENDIAN);
	fl = tvb_get_guint8(tvb, 5);
	guid = tvb_get_ntoh64(tvb, 8);
	port = tvb_get_guint8(tvb, 16);
	col_add_fstr(pinfo->cinfo, COL_INFO, "Heartbeat from 0x%016" PRIx64
		     "[%u]", guid, port);
	if (fl & MPD_LINK_HEARD) {
		proto_tree_add_item(t, hf_heard_guid, tvb, 20, 8,
				    ENC_BIG_ENDIAN);
		proto_tree_add_item(t, hf_heard_port, tvb, 28, 1,
				    ENC_BIG_ENDIAN);
		col_append_fstr(pinfo->cinfo, COL_INFO,
				", hears 0x%016" PRIx64 "[%u]",
				tvb_get_ntoh64(tvb, 20), tvb_get_guint8(tvb, 28));
	} else {
		col_append_str(pinfo->cinfo, COL_INFO, ", hears nobody");
		expert_add_info(pinfo, ti, &ei_deaf);
	}
	return MPD_LINK_HELLO_LEN;
}

void
madpmd_link_register(void)
{
	static hf_register_info hf[] = {
		{ &hf_link, { "IB link heartbeat", "madpmd.link", FT_NONE,
		  BASE_NONE, NULL, 0, "madpmd --wire link heartbeat",
		  HFILL } },
		{ &hf_magic, { "Magic", "madpmd.link.magic", FT_STRING,
		  BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_version, { "Version", "madpmd.link.version", FT_UINT8,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_flags, { "Flags", "madpmd.link.flags", FT_UINT8,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_flag_heard, { "Hears the other end",
		  "madpmd.link.flags.heard", FT_BOOLEAN, 8, NULL,
		  MPD_LINK_HEARD, NULL, HFILL } },
		{ &hf_interval, { "Interval (ms)", "madpmd.link.interval",
		  FT_UINT16, BASE_DEC, NULL, 0,
		  "How often the sender sends one", HFILL } },
		{ &hf_guid, { "Port GUID", "madpmd.link.guid", FT_UINT64,
		  BASE_HEX, NULL, 0, "The sender's port", HFILL } },
		{ &hf_port, { "Port number", "madpmd.link.port", FT_UINT8,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_heard_guid, { "Heard port GUID",
		  "madpmd.link.heard_guid", FT_UINT64, BASE_HEX, NULL, 0,
		  "The port at the other end, as the sender hears it",
		  HFILL } },
		{ &hf_heard_port, { "Heard port number",
		  "madpmd.link.heard_port", FT_UINT8, BASE_DEC, NULL, 0,
		  NULL, HFILL } },
	};
	static gint *ett[] = { &ett_link, &ett_flags };
	static ei_register_info ei[] = {
		{ &ei_bad, { "madpmd.link.bad", PI_MALFORMED, PI_ERROR,
		  "Not a madpmd link heartbeat (magic, version or length)",
		  EXPFILL } },
		{ &ei_deaf, { "madpmd.link.deaf", PI_SEQUENCE, PI_NOTE,
		  "The sender hears nobody: the link is down", EXPFILL } },
	};
	expert_module_t *em;

	proto_register_field_array(proto_madpmd, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto_madpmd);
	expert_register_field_array(em, ei, array_length(ei));
	link_handle = create_dissector_handle_with_name_and_description(
		dissect_link, proto_madpmd, "madpmd_link",
		"madpmd IB link heartbeats");
}

void
madpmd_link_handoff(void)
{
	dissector_add_uint("ethertype", MPD_ETHERTYPE_LINK, link_handle);
}
