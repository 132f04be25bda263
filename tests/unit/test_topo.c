/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the net-file parser: the default fabric, fabrics in
 * ibsim's own style and in ibnetdiscover's, settings and includes, every
 * error with its exact "FILE:LINE: ..." message, and random mutations of
 * valid files (no crash, success or a located error). ibsim's example
 * files are parsed too when found on disk (MADPMD_IBSIM_EXAMPLES or the
 * Debian package's doc directory).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "madpmd/topo.h"
#include "tap.h"

#define ERRLEN	512

/* ---- fabrics ---------------------------------------------------------------- */

/* ibsim's style: two switches joined by two cables, HCAs on both. */
static const char net_2sw[] =
	"# Two switches joined by two cables, two HCAs on each.\n"
	"# The first port in the file (port 0 of \"sw1\") is the SM port.\n"
	"\n"
	"Switch\t8 \"sw1\"\n"
	"[1]\t\"hca1\"[1]\n"
	"[2]\t\"hca3\"[1]\n"
	"[3]\t\"sw2\"[3]\n"
	"[5]\t\"sw2\"[5]\tw=3 s=7\n"
	"\n"
	"Switch 8 \"sw2\"\n"
	"[1]\t\"hca2\"[1]\n"
	"# a comment inside a block\n"
	"[2]\t\"hca4\"[2]\n"
	"[3]\t\"sw1\"[3]\n"
	"[5]\t\"sw1\"[5]\tw=1 s=3\n"
	"\n"
	"Hca\t2 \"hca1\"\n"
	"[1]\t\"sw1\"[1]\n"
	"\n"
	"Hca\t2 \"hca2\"\n"
	"[1]\t\"sw2\"[1]\n"
	"\n"
	"Hca\t1 \"hca3\"\n"
	"[1]\t\"sw1\"[2]\n"
	"\n"
	"Hca \t2 \"hca4\"\n"
	"[2]\t\"sw2\"[2]\n";

/* ibnetdiscover's style: GUID lines, descriptions, LIDs, "4xQDR". */
static const char net_disc[] =
	"#\n"
	"# Topology file: generated on Mon Jan  1 00:00:00 2024\n"
	"#\n"
	"# Initiated from node 0002c90300001230 port 0002c90300001231\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0xc738\n"
	"sysimgguid=0x2c90300004560\n"
	"switchguid=0x2c90300004560(2c90300004560)\n"
	"Switch\t4 \"S-0002c90300004560\"\t\t# \"SwitchX -  Mellanox Technologies\" enhanced port 0 lid 3 lmc 0\n"
	"[1]\t\"H-0002c90300001230\"[1](2c90300001231) \t\t# \"node1 mlx4_0\" lid 1 4xQDR\n"
	"[3]\t\"H-0002c90300001240\"[2](2c90300001242) \t\t# \"node2 mlx4_0\" lid 2 4xFDR\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0x1003\n"
	"sysimgguid=0x2c90300001233\n"
	"caguid=0x2c90300001230\n"
	"Ca\t2 \"H-0002c90300001230\"\t\t# \"node1 mlx4_0\"\n"
	"[1](2c90300001231) \t\"S-0002c90300004560\"[1]\t\t# lid 1 lmc 0 \"SwitchX -  Mellanox Technologies\" lid 3 4xQDR\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0x1003\n"
	"sysimgguid=0x2c90300001243\n"
	"caguid=0x2c90300001240\n"
	"Ca\t2 \"H-0002c90300001240\"\t\t# \"node2 mlx4_0\"\n"
	"[2](2c90300001242) \t\"S-0002c90300004560\"[3]\t\t# lid 2 lmc 0 \"SwitchX -  Mellanox Technologies\" lid 3 4xFDR\n";

static struct mpd_topo *
parse(const char *text, char *err)
{
	struct mpd_topo *t = mpd_topo_parse_string(text, "t", err, ERRLEN);

	if (!t)
		tap_diag("error: %s", err);
	return t;
}

/* Every cable seen from both ends, and counted once. */
static int
links_consistent(const struct mpd_topo *t)
{
	unsigned int i, j, links = 0;

	for (i = 0; i < t->num_nodes; i++) {
		const struct mpd_topo_node *nd = &t->node[i];

		for (j = 1; j <= nd->num_ports; j++) {
			const struct mpd_topo_port *pt = &nd->port[j];
			const struct mpd_topo_port *rp;

			if (pt->num != j)
				return 0;
			if (pt->peer_node < 0) {
				if (pt->peer_port || pt->width_active)
					return 0;
				continue;
			}
			if ((unsigned int)pt->peer_node >= t->num_nodes ||
			    !pt->peer_port ||
			    pt->peer_port > t->node[pt->peer_node].num_ports)
				return 0;
			rp = &t->node[pt->peer_node].port[pt->peer_port];
			if ((unsigned int)rp->peer_node != i || rp->peer_port != j)
				return 0;
			if (rp->width_active != pt->width_active ||
			    rp->speed_active != pt->speed_active ||
			    rp->speed_ext_active != pt->speed_ext_active ||
			    !pt->width_active || !pt->speed_active)
				return 0;
			links++;
		}
	}
	return links == 2 * t->num_links;
}

/* "a"[n] is cabled to "b"[m] */
static int
cabled(const struct mpd_topo *t, const char *a, unsigned int n, const char *b,
       unsigned int m)
{
	int ia = mpd_topo_find(t, a), ib = mpd_topo_find(t, b);

	if (ia < 0 || ib < 0 || n > t->node[ia].num_ports)
		return 0;
	return t->node[ia].port[n].peer_node == ib &&
	       t->node[ia].port[n].peer_port == m;
}

static const struct mpd_topo_node *
node(const struct mpd_topo *t, const char *name)
{
	static const struct mpd_topo_node none;
	int i = mpd_topo_find(t, name);

	return i < 0 ? &none : &t->node[i];
}

/* ---- well-formed files --------------------------------------------------------- */

static void
test_default(void)
{
	char err[ERRLEN];
	struct mpd_topo *t = parse(mpd_topo_default(), err);
	unsigned int n = 99;
	uint8_t port = 99;

	ok(t, "default fabric parses");
	if (!t)
		return;
	is_int(t->num_nodes, 2, "default: 2 nodes");
	is_int(t->num_links, 1, "default: 1 cable");
	ok(!strcmp(t->node[0].name, "hca1") && !strcmp(t->node[1].name, "hca2"),
	   "default: hca1 then hca2");
	ok(t->node[0].type == MPD_TOPO_CA && t->node[1].type == MPD_TOPO_CA,
	   "default: both are CAs");
	ok(t->node[0].num_ports == 1 && t->node[1].num_ports == 1,
	   "default: one port each");
	ok(cabled(t, "hca1", 1, "hca2", 1) && cabled(t, "hca2", 1, "hca1", 1),
	   "default: hca1[1] <-> hca2[1]");
	is_int(t->node[0].guid, 0x100000, "default: hca1 NodeGUID");
	is_int(t->node[0].port[1].guid, 0x100001, "default: hca1 PortGUID");
	is_int(t->node[1].guid, 0x100002, "default: hca2 NodeGUID");
	is_int(t->node[1].port[1].guid, 0x100003, "default: hca2 PortGUID");
	ok(!t->node[0].guid_given, "default: GUIDs are ibsim's defaults");
	is_int(t->node[0].sys_guid, 0x100000, "default: SystemImageGUID");
	ok(!strcmp(t->node[0].desc, "hca1"), "default: description is the name");
	is_int(t->node[0].port[1].width_active, 2, "default: 4x");
	is_int(t->node[0].port[1].speed_active, 1, "default: SDR");
	ok(mpd_topo_sm_port(t, &n, &port) == 0 && n == 0 && port == 1,
	   "default: SM port is hca1 port 1");
	is_int(mpd_topo_first_ca(t), 0, "default: first CA is hca1");
	is_int(mpd_topo_find(t, "hca2"), 1, "find hca2");
	is_int(mpd_topo_find(t, "hca3"), -1, "find a missing node");
	is_int(mpd_topo_find(t, NULL), -1, "find NULL");
	ok(links_consistent(t), "default: cables consistent");
	mpd_topo_free(t);
}

static void
test_2sw(void)
{
	char err[ERRLEN];
	struct mpd_topo *t = parse(net_2sw, err);
	const struct mpd_topo_port *p5;
	unsigned int n = 99;
	uint8_t port = 99;

	ok(t, "ibsim-style 2-switch fabric parses");
	if (!t)
		return;
	is_int(t->num_nodes, 6, "2sw: 6 nodes");
	is_int(t->num_links, 6, "2sw: 6 cables");
	ok(links_consistent(t), "2sw: cables consistent");
	ok(node(t, "sw1")->type == MPD_TOPO_SWITCH &&
	   node(t, "sw2")->type == MPD_TOPO_SWITCH, "2sw: switches");
	is_int(node(t, "sw1")->num_ports, 8, "2sw: sw1 has 8 ports");
	is_int(node(t, "hca3")->num_ports, 1, "2sw: hca3 has 1 port");
	ok(cabled(t, "sw1", 3, "sw2", 3) && cabled(t, "sw1", 5, "sw2", 5),
	   "2sw: two cables between the switches");
	ok(cabled(t, "hca4", 2, "sw2", 2), "2sw: hca4 port 2 to sw2 port 2");
	ok(node(t, "hca4")->port[1].peer_node == -1 &&
	   node(t, "sw1")->port[4].peer_node == -1, "2sw: unlisted ports are unconnected");
	is_int(node(t, "sw1")->guid, 0x200000, "2sw: sw1 GUID");
	is_int(node(t, "sw2")->guid, 0x200001, "2sw: sw2 GUID");
	is_int(node(t, "sw2")->port[7].guid, 0x200001, "2sw: switch ports share the NodeGUID");
	is_int(node(t, "hca1")->guid, 0x100000, "2sw: hca1 GUID");
	is_int(node(t, "hca2")->guid, 0x100003, "2sw: hca2 GUID (2 ports + 1 after hca1)");
	is_int(node(t, "hca3")->guid, 0x100006, "2sw: hca3 GUID");
	is_int(node(t, "hca4")->guid, 0x100008, "2sw: hca4 GUID");
	is_int(node(t, "hca4")->port[2].guid, 0x10000a, "2sw: hca4 port 2 GUID");
	p5 = &node(t, "sw1")->port[5];
	ok(p5->link_given && p5->width_enabled == 3 && p5->speed_enabled == 7,
	   "2sw: w=3 s=7 on sw1 port 5");
	ok(p5->width_active == 1 && p5->speed_active == 2,
	   "2sw: sw1-sw2 port 5 link runs 1x DDR");
	ok(!node(t, "sw1")->port[3].link_given &&
	   node(t, "sw1")->port[3].width_active == 2, "2sw: other links 4x");
	is_int(node(t, "sw1")->port[5].line, 8, "2sw: port line number");
	is_int(node(t, "hca4")->line, 26, "2sw: header line number");
	ok(mpd_topo_sm_port(t, &n, &port) == 0 && n == 0 && port == 0,
	   "2sw: SM port is sw1 port 0");
	is_int(mpd_topo_first_ca(t), 2, "2sw: first CA is hca1");
	mpd_topo_free(t);
}

static void
test_disc(void)
{
	char err[ERRLEN];
	struct mpd_topo *t = parse(net_disc, err);
	const struct mpd_topo_node *sw, *h1, *h2;

	ok(t, "ibnetdiscover-style fabric parses");
	if (!t)
		return;
	is_int(t->num_nodes, 3, "disc: 3 nodes");
	is_int(t->num_links, 2, "disc: 2 cables");
	ok(links_consistent(t), "disc: cables consistent");
	sw = node(t, "S-0002c90300004560");
	h1 = node(t, "H-0002c90300001230");
	h2 = node(t, "H-0002c90300001240");
	ok(sw->guid == 0x2c90300004560ull && sw->guid_given,
	   "disc: switchguid= sets the switch GUID");
	is_int(sw->sys_guid, 0x2c90300004560ull, "disc: sysimgguid");
	is_int(sw->vendor_id, 0x2c9, "disc: vendid");
	is_int(sw->device_id, 0xc738, "disc: devid");
	ok(!strcmp(sw->desc, "SwitchX -  Mellanox Technologies"),
	   "disc: quoted description");
	is_int(sw->esp0, 1, "disc: enhanced port 0");
	ok(sw->port[0].lid == 3 && sw->port[0].lmc == 0, "disc: switch LID 3");
	ok(h1->guid == 0x2c90300001230ull && h1->guid_given, "disc: caguid=");
	is_int(h1->port[1].guid, 0x2c90300001231ull, "disc: CA PortGUID");
	is_int(h1->sys_guid, 0x2c90300001233ull, "disc: CA sysimgguid");
	is_int(h1->device_id, 0x1003, "disc: CA devid");
	ok(!strcmp(h1->desc, "node1 mlx4_0"), "disc: CA description");
	is_int(h1->port[1].lid, 1, "disc: CA port LID from the port line");
	ok(cabled(t, "S-0002c90300004560", 3, "H-0002c90300001240", 2),
	   "disc: switch port 3 to node2 port 2");
	is_int(h2->port[2].guid, 0x2c90300001242ull, "disc: node2 port 2 GUID");
	ok(h2->port[1].peer_node == -1, "disc: node2 port 1 unconnected");
	ok(sw->port[1].link_given && sw->port[1].width_enabled == 3 &&
	   sw->port[1].speed_enabled == 7, "disc: 4xQDR enables 1x|4x, SDR..QDR");
	ok(sw->port[1].width_active == 2 && sw->port[1].speed_active == 4 &&
	   sw->port[1].speed_ext_active == 0, "disc: link runs 4x QDR");
	is_int(sw->port[3].speed_ext_enabled, 1, "disc: 4xFDR enables FDR");
	is_int(h2->port[2].speed_ext_active, 1, "disc: node2 link runs FDR");
	mpd_topo_free(t);
}

static void
test_settings(void)
{
	static const char text[] =
		"width=3\n"
		"speed=3\n"
		"extspeed=2\n"
		"rtguid=0x900\n"
		"Rt 2 \"r1\" # router one\n"
		"[1] \"c1\"\n"
		"[2] \"c2\" [1] e=0\n"
		"\n"
		"Ca 1 \"c1\"\n"
		"  [1] \"r1\"\n"
		"\n"
		"caguid=0x500\n"
		"sysimgguid=0x777\n"
		"vendid=0x1234\n"
		"Hca2 \"c2\"\n"
		"[1] \"r1\"[2]\n"
		"\n"
		"caguid+0x10\n"
		"Hca 1 \"c3\"\n"
		"Rtr 1 \"r2\"\n"
		"pdebug=1\n"
		"Switch 0x10 \"sw\" # plain text desc lid 9 lmc 2\n";
	char err[ERRLEN];
	struct mpd_topo *t = parse(text, err);
	const struct mpd_topo_node *r1, *c1, *c2, *c3, *sw;

	ok(t, "settings fabric parses");
	if (!t)
		return;
	is_int(t->num_nodes, 6, "settings: 6 nodes");
	is_int(t->num_links, 2, "settings: 2 cables");
	ok(links_consistent(t), "settings: cables consistent");
	r1 = node(t, "r1");
	c1 = node(t, "c1");
	c2 = node(t, "c2");
	c3 = node(t, "c3");
	sw = node(t, "sw");
	ok(r1->type == MPD_TOPO_ROUTER && node(t, "r2")->type == MPD_TOPO_ROUTER,
	   "Rt and Rtr are routers");
	ok(c1->type == MPD_TOPO_CA && c2->type == MPD_TOPO_CA, "Ca and Hca are CAs");
	ok(!strcmp(r1->desc, "router one"), "unquoted description");
	ok(!strcmp(sw->desc, "plain text desc"), "description ends at \" lid \"");
	ok(sw->port[0].lid == 9 && sw->port[0].lmc == 2 && sw->esp0 == 0,
	   "switch header lid and lmc");
	is_int(sw->num_ports, 16, "hex port count");
	is_int(sw->guid, MPD_TOPO_SWITCH_GUID_BASE, "switch default GUID");
	is_int(r1->guid, 0x900, "rtguid=");
	is_int(node(t, "r2")->guid, 0x903, "router GUIDs count up by ports + 1");
	is_int(c1->guid, MPD_TOPO_CA_GUID_BASE, "CA default GUID");
	ok(!c1->guid_given && c2->guid_given, "guid_given");
	is_int(c2->guid, 0x500, "caguid=");
	is_int(c2->sys_guid, 0x777, "sysimgguid= for the next node");
	is_int(c3->sys_guid, c3->guid, "sysimgguid= for one node only");
	is_int(c2->vendor_id, 0x1234, "vendid= for the next node");
	is_int(c3->vendor_id, 0, "vendid= for one node only");
	is_int(c3->guid, 0x510, "caguid+ is relative to the last caguid=");
	ok(cabled(t, "r1", 1, "c1", 1), "remote port defaults to 1");
	ok(cabled(t, "r1", 2, "c2", 1), "blank before the remote [port]");
	ok(c1->port[1].width_enabled == 3 && c1->port[1].speed_enabled == 3 &&
	   c1->port[1].speed_ext_enabled == 2, "width=/speed=/extspeed= defaults");
	ok(c1->port[1].width_active == 2 && c1->port[1].speed_active == 2 &&
	   c1->port[1].speed_ext_active == 2, "active: 4x DDR EDR");
	ok(r1->port[2].link_given && r1->port[2].speed_ext_active == 0,
	   "e=0 on one end: no extended speed");
	mpd_topo_free(t);
}

static void
test_crlf(void)
{
	static const char text[] =
		"\t# indented comment\r\n"
		"  Hca 1 \"a\"  \r\n"
		"\t[1] \"b\"[1]\r\n"
		"\r\n"
		"Hca 1 \"b\"\r\n"
		"[1] \"a\"[1]";
	char err[ERRLEN];
	struct mpd_topo *t = parse(text, err);

	ok(t && t->num_nodes == 2 && t->num_links == 1 && links_consistent(t),
	   "CRLF line ends, leading blanks, no final newline");
	mpd_topo_free(t);
}

/* ---- port addresses: ip= ---------------------------------------------------- */

static bool
ip_is(const struct mpd_topo_port *pt, uint8_t a, uint8_t b, uint8_t c,
      uint8_t d)
{
	return pt->ip4_given && pt->ip4[0] == a && pt->ip4[1] == b &&
	       pt->ip4[2] == c && pt->ip4[3] == d;
}

static void
test_addresses(void)
{
	static const char text[] =
		"Hca\t2 \"a\"\n"
		"[1]\t\"b\"[1]\tip=192.168.7.1\n"
		"[2]\t\"b\"[2]\tw=3 ip=192.168.8.1\ts=7\t# ip=1.2.3.4 in a comment\n"
		"\n"
		"Hca\t2 \"b\"\n"
		"[1](100003)\t\"a\"[1] ip=10.0.0.2\t\t# lid 2 lmc 0 \"a\" lid 1 4xQDR\n"
		"[2]\t\"a\"[2] vip=10.9.9.9\n";
	char err[ERRLEN];
	struct mpd_topo *t = parse(text, err);

	if (!ok(t != NULL, "ip= on port lines parses"))
		tap_diag("%s", err);
	if (!t)
		return;
	ok(ip_is(&t->node[0].port[1], 192, 168, 7, 1) &&
	   ip_is(&t->node[0].port[2], 192, 168, 8, 1),
	   "each port its own address, in network order, among w= and s=");
	ok(t->node[0].port[2].width_enabled == 3 &&
	   t->node[0].port[2].speed_enabled == 7,
	   "w= and s= around ip= still apply");
	ok(ip_is(&t->node[1].port[1], 10, 0, 0, 2) &&
	   t->node[1].port[1].lid == 2,
	   "beside ibnetdiscover's (guid) and lid comment");
	ok(!t->node[1].port[2].ip4_given,
	   "vip= is not ip= (ignored as ibsim ignores unknown options)");
	mpd_topo_free(t);

	t = parse("Hca 1 \"a\"\n[1] \"b\"[1] # ip=10.0.0.1\n\n"
		  "Hca 1 \"b\"\n[1] \"a\"[1]\n", err);
	ok(t && !t->node[0].port[1].ip4_given && !t->node[1].port[1].ip4_given,
	   "ip= inside a '#' comment is not an address; no ip=, none given");
	mpd_topo_free(t);
}

/* ---- errors -------------------------------------------------------------------- */

static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{ "", "t: defines no nodes: expected at least one Hca or Switch block" },
	{ "# nothing\n\n", "t: defines no nodes: expected at least one Hca or Switch block" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1]\n\nHca 1 \"b\"\n[1] \"a\"[1]\nfoo bar\n",
	  "t:6: unrecognized line \"foo bar\": expected Switch, Hca, Ca or Rt <ports> \"<name>\", a port line [N] \"<name>\"[M], a setting such as caguid=0x... or include \"<file>\"" },
	{ "Switch 4 \"sw1\"\n[1] \"h\"[1]\n\n\n\n\n[5] \"h\"[1]\n",
	  "t:7: port line outside a node block: it must follow its Switch/Hca line or another port line, without a blank line between" },
	{ "Switch 4 \"sw1\"\n[1] \"h\"[1]\n[2] \"h\"[2]\n\n\n\n[5] \"h\"[1]\n",
	  "t:7: port line outside a node block: it must follow its Switch/Hca line or another port line, without a blank line between" },
	{ "Switch 4 \"sw1\"\n[1] \"h\"[1]\n\nHca 2 \"h\"\n[1] \"sw1\"[1]\n\n\n# x\nSwitch 4 \"sw2\"\n[5] \"h\"[2]\n",
	  "t:10: port 5 out of range: \"sw2\" has 4 ports" },
	{ "Hca 1 \"h1\"\n[1] \"foo\"[1]\n",
	  "t:2: unknown node \"foo\" (port 1 of \"h1\" is cabled to it)" },
	{ "Hca 2 \"h1\"\n\n\n\n\n\n\n\n\n\n\nHca 1 \"h2\"\n[1] \"h1\"[1]\n\n\n",
	  "t:13: \"h2\" port 1 is cabled to \"h1\" port 1, but \"h1\" has no line for port 1; describe every cable on both of its ends, as ibsim requires" },
	{ "Hca 2 \"h1\"\n[1] \"h2\"[1]\n#\n#\n#\n#\n#\n[1] \"h3\"[1]\n",
	  "t:8: port 1 of \"h1\" is connected twice (lines 2 and 8)" },
	{ "Hca 1 \"a\"\n[1] \"b\"\n\nHca 1 \"b\"\n[1] \"c\"\n\nHca 1 \"c\"\n[1] \"b\"\n",
	  "t:2: \"a\" port 1 is cabled to \"b\" port 1, but \"b\" port 1 is cabled to \"c\" port 1 (t:5)" },
	{ "Hca 1 \"a\"\n[1] \"b\"[2]\n\nHca 1 \"b\"\n",
	  "t:2: port 2 out of range: \"b\" has 1 port" },
	{ "Hca 2 \"a\"\n[1] \"a\"[1]\n",
	  "t:2: port 1 of \"a\" is cabled to itself" },
	{ "Hca 1 \"a\"\n\nSwitch 8 \"a\"\n",
	  "t:3: node \"a\" is already defined at t:1" },
	{ "caguid=0x10\nHca 1 \"a\"\ncaguid=0x10\nHca 1 \"b\"\n",
	  "t:4: NodeGUID 0x10 of \"b\" is already the NodeGUID of \"a\" (t:2)" },
	{ "Hca \"a\"\n", "t:1: expected the number of ports after \"Hca\", as in Hca 8 \"name\"" },
	{ "Switch 0 \"a\"\n", "t:1: bad number of ports 0: want 1..255" },
	{ "Switch 256 \"a\"\n", "t:1: bad number of ports 256: want 1..255" },
	{ "Switch 99999999999999999999999 \"a\"\n",
	  "t:1: expected the number of ports after \"Switch\", as in Switch 8 \"name\"" },
	{ "Switch 4x \"a\"\n", "t:1: bad number of ports after \"Switch\"" },
	{ "Switch 4 sw\n", "t:1: expected a quoted node name, as in \"sw1\"" },
	{ "Switch 4 \"sw\n", "t:1: node name has no closing '\"'" },
	{ "Switch 4 \"\"\n", "t:1: empty node name \"\"" },
	{ "Switch 4 \"0123456789012345678901234567890123456789012345678901234567890123456789\"\n",
	  "t:1: node name \"01234567890123456789...\" is longer than 64 characters" },
	{ "Switch 4 \"m#sw\"\n",
	  "t:1: node name \"m#sw\": '#' and '@' are reserved for ibsim's modules and port aliases, which madpmd does not support" },
	{ "Switch 4 \"sw\" nodeguid=0x1\n",
	  "t:1: unexpected \"nodeguid=0x1\" after the node name; only a '#' comment may follow" },
	{ "Hca 1 \"a\"\n[x] \"b\"\n", "t:2: expected a port number after '['" },
	{ "Hca 1 \"a\"\n[1 \"b\"\n", "t:2: expected ']' after port number 1" },
	{ "Hca 1 \"a\"\n[0] \"b\"\n", "t:2: port 0 cannot be cabled: ports are numbered from 1" },
	{ "Hca 1 \"a\"\n[1](1234 \"b\"\n", "t:2: '(' without ')' after the port number" },
	{ "Hca 1 \"a\"\n[1] b\n", "t:2: expected a quoted node name, as in \"sw1\"" },
	{ "Hca 1 \"a\"\n[1] \"b\"[\n", "t:2: expected a port number after \"b\"[" },
	{ "Hca 1 \"a\"\n[1] \"b\"[2\n", "t:2: expected ']' after port number 2 of \"b\"" },
	{ "Hca 1 \"a\"\n[1] \"b\"[0]\n",
	  "t:2: port 0 of \"b\" cannot be cabled: ports are numbered from 1" },
	{ "Hca 1 \"a\"\n[1] \"b\"[256]\n",
	  "t:2: port 256 out of range: \"b\" has at most 255 ports" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] w=0\n",
	  "t:2: bad link width w=0: want 1..31, LinkWidthEnabled bits (1x=1 4x=2 8x=4 12x=8 2x=16)" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] w=x\n", "t:2: bad w= value: expected a number" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] s=8\n",
	  "t:2: bad link speed s=8: want 1..7, LinkSpeedEnabled bits (SDR=1 DDR=2 QDR=4), or 0 for QDR" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] e=16\n",
	  "t:2: bad extended link speed e=16: want 0..15, LinkSpeedExtEnabled bits (FDR=1 EDR=2 HDR=4 NDR=8)" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] w=1\n\nHca 1 \"b\"\n[1] \"a\"[1] w=2\n",
	  "t:2: \"a\" port 1 (w=1) and \"b\" port 1 (w=2) have no link width in common" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] s=1\n\nHca 1 \"b\"\n[1] \"a\"[1] s=2\n",
	  "t:2: \"a\" port 1 (s=1) and \"b\" port 1 (s=2) have no link speed in common" },
	{ "Hca 1 \"a\"\n@[1] \"x\"\n",
	  "t:2: port aliases ('@') are an ibsim extension madpmd does not support" },
	{ "Hca 1 \"a\"\n[1] \"x@\"\n",
	  "t:2: node name \"x@\": '#' and '@' are reserved for ibsim's modules and port aliases, which madpmd does not support" },
	{ "module=\"m\"\n", "t:1: \"module\" (ibsim's name prefixes) is not supported by madpmd" },
	{ "do link \"a\" 1\n", "t:1: \"do\" (ibsim console commands in a net file) is not supported by madpmd" },
	{ "caguid 0x10\n", "t:1: expected '=' after \"caguid\" (or '+' for a relative GUID)" },
	{ "vendid+1\n", "t:1: expected '=' after \"vendid\"" },
	{ "caguid=\n", "t:1: expected a number after \"caguid=\"" },
	{ "caguid=0x10 junk\n", "t:1: unexpected \"junk\" after the value of \"caguid\"" },
	{ "vendid=0x1000000\n", "t:1: vendid 0x1000000 does not fit 24 bits" },
	{ "devid=0x10000\n", "t:1: devid 0x10000 does not fit 16 bits" },
	{ "width=0\n",
	  "t:1: bad width=0: want 1..31, LinkWidthEnabled bits (1x=1 4x=2 8x=4 12x=8 2x=16)" },
	{ "speed=8\n", "t:1: bad speed=8: want 1..7, LinkSpeedEnabled bits (SDR=1 DDR=2 QDR=4)" },
	{ "extspeed=16\n",
	  "t:1: bad extspeed=16: want 0..15, LinkSpeedExtEnabled bits (FDR=1 EDR=2 HDR=4 NDR=8)" },
	{ "include\n", "t:1: unrecognized line \"include\": expected Switch, Hca, Ca or Rt <ports> \"<name>\", a port line [N] \"<name>\"[M], a setting such as caguid=0x... or include \"<file>\"" },
	{ "include \"\"\n", "t:1: include needs a file name, as in include \"net.part\"" },
	{ "include \"x\n", "t:1: include file name has no closing '\"'" },
	{ "include \"x\" y\n", "t:1: unexpected text after the include file name" },
	{ "\n\ninclude /nonexistent/madpmd-topo\n",
	  "t:3: cannot read include file \"/nonexistent/madpmd-topo\": No such file or directory" },
	/* a device or a directory is never read: 64 MiB of /dev/zero was */
	{ "include /dev/zero\n",
	  "t:1: cannot read include file \"/dev/zero\": not a regular file" },
	{ "include \"/\"\n",
	  "t:1: cannot read include file \"/\": not a regular file" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] ip=10.0.0\n",
	  "t:2: bad ip= value \"10.0.0\": expected the port's IPv4 address, as in ip=10.0.0.1" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] ip=10.0.0.256 w=2\n",
	  "t:2: bad ip= value \"10.0.0.256\": expected the port's IPv4 address, as in ip=10.0.0.1" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] ip=\n",
	  "t:2: bad ip= value \"\": expected the port's IPv4 address, as in ip=10.0.0.1" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] ip=fe80::1\n",
	  "t:2: bad ip= value \"fe80::1\": expected the port's IPv4 address, as in ip=10.0.0.1" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] ip=10.0.0.1.2.3.4.5.6.7.8.9\n",
	  "t:2: bad ip= value \"10.0.0.1.2.3.4.5.6.7.8.9\": expected the port's IPv4 address, as in ip=10.0.0.1" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] ip=0.0.0.0\n",
	  "t:2: bad ip= value 0.0.0.0: a port's address is unicast (not 0.0.0.0, multicast or 255.255.255.255)" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] ip=239.1.1.1\n",
	  "t:2: bad ip= value 239.1.1.1: a port's address is unicast (not 0.0.0.0, multicast or 255.255.255.255)" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] ip=255.255.255.255\n",
	  "t:2: bad ip= value 255.255.255.255: a port's address is unicast (not 0.0.0.0, multicast or 255.255.255.255)" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] ip=10.0.0.1 ip=10.0.0.2\n",
	  "t:2: ip= given twice for port 1" },
	{ "Switch 4 \"sw\"\n[1] \"b\"[1] ip=10.0.0.1\n",
	  "t:2: ip= on a switch port: only CA and router ports have an IPv4 address" },
	{ "Hca 1 \"a\"\n[1] \"b\"[1] ip=10.1.2.3\n\nHca 2 \"b\"\n[1] \"a\"[1]\n[2] \"c\"[1] ip=10.1.2.3\n\nHca 1 \"c\"\n[1] \"b\"[2]\n",
	  "t:6: ip=10.1.2.3 of \"b\" port 2 is already the address of \"a\" port 1 (t:2)" },
	/* a file's bytes in an error never reach the terminal raw */
	{ "\x1b[2J\x07Hca 1 \"a\xc3\xa9\"\n", "t:1: unrecognized line \"\\x1b[2J\\x07Hca 1 \"a\\xc3\\xa9\"\": expected Switch, Hca, Ca or Rt <ports> \"<name>\", a port line [N] \"<name>\"[M], a setting such as caguid=0x... or include \"<file>\"" },
	{ "HCA 1 \"a\"\n", "t:1: unrecognized line \"HCA 1 \"a\"\": expected Switch, Hca, Ca or Rt <ports> \"<name>\", a port line [N] \"<name>\"[M], a setting such as caguid=0x... or include \"<file>\"" },
};

static void
test_errors(void)
{
	char err[ERRLEN];
	struct mpd_topo *t;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(err, 'x', sizeof(err));
		t = mpd_topo_parse_string(bad[i].text, "t", err, sizeof(err));
		ok(!t, "bad[%zu] rejected", i);
		if (!ok(!strcmp(err, bad[i].msg), "bad[%zu] message: %s", i,
			bad[i].msg))
			tap_diag("got: %s", err);
		mpd_topo_free(t);
	}

	/* a NUL byte only comes from a file */
	t = mpd_topo_parse_string(NULL, "t", err, sizeof(err));
	ok(!t && !strcmp(err, "t: no topology text given"), "NULL text");
	t = mpd_topo_parse_file(NULL, err, sizeof(err));
	ok(!t && !strcmp(err, "(null): no topology file given"), "NULL path");
	t = mpd_topo_parse_file("/nonexistent/net", err, sizeof(err));
	ok(!t && !strcmp(err, "/nonexistent/net: cannot read: No such file or directory"),
	   "missing file: %s", err);
	t = mpd_topo_parse_file("/", err, sizeof(err));
	ok(!t && !strcmp(err, "/: cannot read: Is a directory"),
	   "directory: %s", err);

	/* a short buffer truncates, no buffer is fine */
	t = mpd_topo_parse_string("Hca 0 \"a\"\n", "t", err, 8);
	ok(!t && !strcmp(err, "t:1: ba"), "short error buffer: %s", err);
	t = mpd_topo_parse_string("Hca 0 \"a\"\n", "t", NULL, 0);
	ok(!t, "no error buffer");
	t = mpd_topo_parse_string("Hca 0 \"a\"\n", "t", err, 0);
	ok(!t, "zero-length error buffer");
	t = mpd_topo_parse_string("Hca 1 \"a\"\n", NULL, err, sizeof(err));
	ok(t && !err[0], "default name, error buffer cleared on success");
	mpd_topo_free(t);
}

/* ---- files and includes -------------------------------------------------------- */

static int
write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[512];
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	if (fwrite(text, 1, len, f) != len)
		r = -1;
	if (fclose(f))
		r = -1;
	return r;
}

static void
test_files(void)
{
	static const char top[] =
		"# top\n"
		"include \"part\"\n"
		"Hca 1 \"h2\"\n"
		"[1] \"h1\"[1]\n";
	static const char part[] =
		"Hca 1 \"h1\"\n"
		"[1] \"h2\"[1]\n"
		"\n"
		"include sub/leaf\n";
	static const char leaf[] = "Switch 4 \"sw\"\n";
	static const char bad_leaf[] = "Switch 4 \"sw\"\n[9] \"h1\"\n";
	static const char loop[] = "# loop\ninclude \"loop\"\n";
	static const char nul[] = "Hca 1 \"a\"\n[1] \"b\0\"\n";
	char dir[] = "/tmp/madpmd-topo-XXXXXX", path[512], sub[512];
	char err[ERRLEN], want[1024];
	struct mpd_topo *t;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	ok(mkdir(sub, 0700) == 0 &&
	   write_file(dir, "top", top, sizeof(top) - 1) == 0 &&
	   write_file(dir, "part", part, sizeof(part) - 1) == 0 &&
	   write_file(dir, "sub/leaf", leaf, sizeof(leaf) - 1) == 0 &&
	   write_file(dir, "loop", loop, sizeof(loop) - 1) == 0 &&
	   write_file(dir, "nul", nul, sizeof(nul) - 1) == 0 &&
	   write_file(dir, "empty", "", 0) == 0, "test files written");

	snprintf(path, sizeof(path), "%s/top", dir);
	t = mpd_topo_parse_file(path, err, sizeof(err));
	if (!ok(t, "includes relative to the including file"))
		tap_diag("error: %s", err);
	if (t) {
		is_int(t->num_nodes, 3, "include: 3 nodes");
		ok(!strcmp(t->node[0].name, "h1") && !strcmp(t->node[1].name, "sw") &&
		   !strcmp(t->node[2].name, "h2"), "include: nodes in reading order");
		ok(cabled(t, "h1", 1, "h2", 1) && links_consistent(t),
		   "include: cable across files");
		mpd_topo_free(t);
	}

	ok(write_file(dir, "sub/leaf", bad_leaf, sizeof(bad_leaf) - 1) == 0,
	   "bad leaf written");
	t = mpd_topo_parse_file(path, err, sizeof(err));
	snprintf(want, sizeof(want),
		 "%s/sub/leaf:2: port 9 out of range: \"sw\" has 4 ports (included from %s/part:4) (included from %s/top:2)",
		 dir, dir, dir);
	ok(!t && !strcmp(err, want), "error in a nested include: %s", err);

	snprintf(path, sizeof(path), "%s/loop", dir);
	t = mpd_topo_parse_file(path, err, sizeof(err));
	snprintf(want, sizeof(want), "%s/loop:2: includes nest deeper than 9 files (does \"loop\" include itself?)",
		 dir);
	ok(!t && !strncmp(err, want, strlen(want)), "include loop: %.200s", err);

	snprintf(path, sizeof(path), "%s/nul", dir);
	t = mpd_topo_parse_file(path, err, sizeof(err));
	snprintf(want, sizeof(want), "%s:2: NUL byte in the line: not a text file",
		 path);
	ok(!t && !strcmp(err, want), "NUL byte: %s", err);

	snprintf(path, sizeof(path), "%s/empty", dir);
	t = mpd_topo_parse_file(path, err, sizeof(err));
	snprintf(want, sizeof(want), "%s: defines no nodes: expected at least one Hca or Switch block",
		 path);
	ok(!t && !strcmp(err, want), "empty file: %s", err);

	unlink(path);
	snprintf(path, sizeof(path), "%s/nul", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/loop", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub/leaf", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/part", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/top", dir);
	unlink(path);
	rmdir(sub);
	rmdir(dir);
}

/* ibsim's shipped examples, where a copy is on disk. */
static void
test_ibsim_examples(void)
{
	const char *dirs[] = {
		getenv("MADPMD_IBSIM_EXAMPLES"),
		"/usr/share/doc/ibsim-utils/examples",
		"/usr/share/doc/ibsim/examples",
	};
	char path[1024], err[ERRLEN];
	struct mpd_topo *t;
	struct dirent *de;
	unsigned int n = 0;
	size_t i;
	DIR *d;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!dirs[i] || !(d = opendir(dirs[i])))
			continue;
		while ((de = readdir(d))) {
			if (strncmp(de->d_name, "net", 3) ||
			    strstr(de->d_name, ".gz"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
			t = mpd_topo_parse_file(path, err, sizeof(err));
			if (!ok(t && t->num_nodes && t->num_links &&
				links_consistent(t), "ibsim example %s", path))
				tap_diag("error: %s", err);
			if (t)
				tap_diag("%s: %u nodes, %u cables", de->d_name,
					 t->num_nodes, t->num_links);
			mpd_topo_free(t);
			n++;
		}
		closedir(d);
		break;
	}
	if (!n)
		tap_diag("no ibsim example files on disk; set MADPMD_IBSIM_EXAMPLES to a net-examples directory to parse them");
}

/* ---- mutations ------------------------------------------------------------------ */

static void
test_fuzz(void)
{
	static const char *const tokens[] = {
		"[", "]", "\"", "\n", "\n\n", "#", "=", "0", "1", "9", "255", "256",
		" ", "\t", "(", ")", "@", "w=", "s=0", "e=15", "lid 1 4xQDR",
		"Switch 4 \"x\"", "Hca 1 \"hca1\"", "include \"/nonexistent\"",
		"caguid=0x100000", "caguid+1", "\"hca1\"[1]", "[1] \"sw1\"[1]",
	};
	const char *bases[] = { net_2sw, net_disc, mpd_topo_default() };
	unsigned int iter, k, accepted = 0, rejected = 0, bad_msg = 0, bad_links = 0;
	char buf[8192], tmp[8192], err[ERRLEN];
	struct mpd_topo *t;
	size_t len, pos, n, tl;

	for (iter = 0; iter < 2000; iter++) {
		const char *b = bases[rnd64() % 3];

		len = strlen(b);
		memcpy(buf, b, len + 1);
		for (k = 1 + (unsigned int)(rnd64() % 4); k; k--) {
			pos = len ? rnd64() % (len + 1) : 0;
			switch (rnd64() % 5) {
			case 0:		/* flip a byte (never to NUL) */
				if (pos < len)
					buf[pos] = (char)(1 + rnd64() % 255);
				break;
			case 1:		/* delete a run */
				n = rnd64() % 8;
				if (pos + n > len)
					n = len - pos;
				memmove(buf + pos, buf + pos + n, len - pos - n + 1);
				len -= n;
				break;
			case 2:		/* insert a token */
			case 3: {
				const char *tk = tokens[rnd64() % (sizeof(tokens) / sizeof(tokens[0]))];

				tl = strlen(tk);
				if (len + tl >= sizeof(buf))
					break;
				memmove(buf + pos + tl, buf + pos, len - pos + 1);
				memcpy(buf + pos, tk, tl);
				len += tl;
				break;
			}
			default:	/* duplicate a chunk */
				n = rnd64() % 64;
				if (pos + n > len)
					n = len - pos;
				if (len + n >= sizeof(buf))
					break;
				memcpy(tmp, buf + pos, n);
				memmove(buf + pos + n, buf + pos, len - pos + 1);
				memcpy(buf + pos, tmp, n);
				len += n;
				break;
			}
		}
		err[0] = '\0';
		t = mpd_topo_parse_string(buf, "fuzz", err, sizeof(err));
		if (t) {
			accepted++;
			if (!links_consistent(t))
				bad_links++;
			mpd_topo_free(t);
		} else {
			rejected++;
			if (strncmp(err, "fuzz:", 5) || !strchr(err + 5, ':'))
				if (bad_msg++ < 3)
					tap_diag("bad message: \"%s\" for:\n%s", err, buf);
		}
	}
	tap_diag("mutations: %u accepted, %u rejected", accepted, rejected);
	ok(accepted + rejected == 2000, "2000 mutated files parsed without a crash");
	is_int(bad_msg, 0, "every rejection says FILE:...: what");
	is_int(bad_links, 0, "every accepted fabric has consistent cables");
	ok(accepted && rejected, "mutations both accepted and rejected");
}

int
main(void)
{
	tap_seed();
	test_default();
	test_2sw();
	test_disc();
	test_settings();
	test_crlf();
	test_addresses();
	test_errors();
	test_files();
	test_ibsim_examples();
	test_fuzz();
	return tap_done();
}
