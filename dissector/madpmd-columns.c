/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet list of a madpmd capture: which port captured a frame, and
 * which ports sent and receive it.
 *
 * madpmd captures every port of a fabric into one file, one interface per
 * port ("hca1/1"), so a packet on a cable appears twice, sent at one end
 * and received at the other, and TCP over the fabric would read as a
 * retransmission. Info ends with the capturing end: "[hca1/1 out]",
 * "[hca2/1 in]".
 *
 * Source and Destination of a native IB packet name the CA port a LID or
 * GID is ("hca1/1") where the capture shows it: a frame a CA port sends
 * carries its own SLID (and SGID), and a port event record gives a CA
 * port's LID and LMC from then on. Switch ports forward other ports'
 * frames, so they teach nothing, and a switch's own LID stays a number.
 * RoCE packets keep their IP addresses, which are the nodes' own.
 *
 * A postdissector: it runs after every dissector, stock ones included, and
 * changes only the packet list's addresses and Info, so no field of any
 * protocol changes. The LID or GID stays in the frame's hardware addresses
 * (column "Hw src addr" and "Hw dest addr"). Records name their port as
 * Source in packet-madpmd.c.
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/to_str.h>

#include "madpmd.h"

static int proto_columns = -1;
static gboolean pref_port_addresses = TRUE;

/* what the capture showed of one LID or GID, in frame order */
struct named {
	guint32 frame;		/* from this frame on */
	const char *name;	/* "hca1/1", file scope */
};

/* address text ("LID: 3", a GID) -> wmem_array of struct named */
static wmem_map_t *addr_names;

static const char *
addr_key(wmem_allocator_t *pool, const address *a)
{
	return address_to_str(pool, a);
}

/* IBA 4.1.3: unicast LIDs are 0x0001-0xbfff; a GID starting 0xff is a
 * multicast group's */
static gboolean
unicast(const address *a)
{
	const guint8 *d = a->data;

	if (a->type != AT_IB)
		return FALSE;
	if (a->len == 2) {
		guint16 lid;

		memcpy(&lid, d, sizeof(lid));
		return lid > 0 && lid < 0xc000;
	}
	return a->len == 16 && d[0] != 0xff;
}

static void
learn(wmem_allocator_t *pool, const address *a, const char *name,
      guint32 frame)
{
	const char *key = addr_key(pool, a);
	wmem_array_t *h = wmem_map_lookup(addr_names, key);
	struct named n = { .frame = frame };
	guint c;

	if (!h) {
		h = wmem_array_new(wmem_file_scope(), sizeof(n));
		wmem_map_insert(addr_names,
				wmem_strdup(wmem_file_scope(), key), h);
	}
	c = wmem_array_get_count(h);
	if (c) {
		const struct named *last = wmem_array_index(h, c - 1);

		if (!strcmp(last->name, name) || last->frame >= frame)
			return;
	}
	n.name = wmem_strdup(wmem_file_scope(), name);
	wmem_array_append_one(h, n);
}

static void
learn_lids(wmem_allocator_t *pool, const char *name, guint32 lid_lmc,
	   guint32 frame)
{
	guint32 lid = lid_lmc & 0xffff, i, count = 1u << (lid_lmc >> 16);
	guint16 v;
	address a;

	/* LMC 0-7: the port answers 2^LMC LIDs from its base (IBA 7.11.1) */
	for (i = 0; i < count && lid + i < 0xc000; i++) {
		v = (guint16)(lid + i);
		set_address(&a, AT_IB, sizeof(v), &v);
		if (unicast(&a))
			learn(pool, &a, name, frame);
	}
}

/* The port the capture named a at frame: the latest before it, else the
 * first after it (a later pass knows the whole file). */
static const char *
name_of(packet_info *pinfo, const address *a)
{
	wmem_array_t *h;
	const struct named *n, *best;
	guint i, c;

	if (!unicast(a))
		return NULL;
	h = wmem_map_lookup(addr_names, addr_key(pinfo->pool, a));
	if (!h || !(c = wmem_array_get_count(h)))
		return NULL;
	best = wmem_array_index(h, 0);
	for (i = 1; i < c; i++) {
		n = wmem_array_index(h, i);
		if (n->frame > pinfo->num)
			break;
		best = n;
	}
	return best->name;
}

static gboolean
switch_port(packet_info *pinfo)
{
	const char *d = epan_get_interface_description(pinfo->epan,
		pinfo->rec->rec_header.packet_header.interface_id);

	/* capture.c describes a switch's port as "Sw1 port 3 (switch, ...)";
	 * before, its device as "Sw1[3]" */
	d = d ? strrchr(d, '(') : NULL;
	return d && (!strncmp(d, "(switch,", 8) || strchr(d, '['));
}

static void
name_addresses(packet_info *pinfo, const char *port)
{
	const char *src, *dst;

	if (!PINFO_FD_VISITED(pinfo) && pinfo->p2p_dir == P2P_DIR_SENT &&
	    pinfo->src.type == AT_IB && !switch_port(pinfo))
		learn(pinfo->pool, &pinfo->src, port, pinfo->num);
	src = name_of(pinfo, &pinfo->src);
	dst = name_of(pinfo, &pinfo->dst);
	/* the LID or GID stays within reach of a column */
	if (src || dst) {
		copy_address_shallow(&pinfo->dl_src, &pinfo->src);
		copy_address_shallow(&pinfo->dl_dst, &pinfo->dst);
	}
	if (src)
		set_address(&pinfo->src, AT_STRINGZ, (int)strlen(src) + 1, src);
	if (dst)
		set_address(&pinfo->dst, AT_STRINGZ, (int)strlen(dst) + 1, dst);
}

static int
columns_post(tvbuff_t *tvb _U_, packet_info *pinfo, proto_tree *tree _U_,
	     void *data _U_)
{
	gboolean records;
	const char *port = madpmd_port_name(pinfo, &records), *info, *sp;
	gpointer lid;
	size_t n;

	if (!port)
		return 0;
	/* records: one per event, on the port's interface or its own */
	if (records ||
	    p_get_proto_data(pinfo->pool, pinfo, proto_madpmd,
			     MADPMD_KEY_RECORD)) {
		lid = p_get_proto_data(pinfo->pool, pinfo, proto_madpmd,
				       MADPMD_KEY_PORT_LID);
		if (lid && !PINFO_FD_VISITED(pinfo))
			learn_lids(pinfo->pool, port, GPOINTER_TO_UINT(lid) - 1,
				   pinfo->num);
		return 0;
	}
	if (pref_port_addresses && pinfo->src.type == AT_IB)
		name_addresses(pinfo, port);
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
	module_t *m;

	/* a protocol of its own, so that it can be turned off apart:
	 * --disable-protocol madpmd_columns */
	proto_columns = proto_register_protocol(
		"madpmd capturing port in Info", "madpmd columns",
		"madpmd_columns");
	register_postdissector(create_dissector_handle(columns_post,
						       proto_columns));
	addr_names = wmem_map_new_autoreset(wmem_epan_scope(),
					    wmem_file_scope(), g_str_hash,
					    g_str_equal);
	m = prefs_register_protocol(proto_columns, NULL);
	prefs_register_bool_preference(m, "port_addresses",
		"Name ports in Source and Destination",
		"Source and Destination of a native IB packet name the CA "
		"port (hca1/1) that the capture shows holds its LID or GID; "
		"off: the LIDs and GIDs, as without the plugin",
		&pref_port_addresses);
}
