/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabric topologies in ibsim's "net file" format (also what ibnetdiscover
 * prints): Switch/Hca/Ca/Rt blocks, each followed by its cabled ports.
 * docs/topology.md describes the syntax we accept and where it differs
 * from ibsim. No DPDK: the launcher and the tests both use it.
 */
#ifndef MADPMD_TOPO_H
#define MADPMD_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NodeInfo:NodeType values */
enum mpd_topo_type {
	MPD_TOPO_CA = 1,
	MPD_TOPO_SWITCH = 2,
	MPD_TOPO_ROUTER = 3,
};

#define MPD_TOPO_NAME_MAX	64	/* node name, bytes without the NUL */
#define MPD_TOPO_DESC_MAX	64	/* NodeDescription is 64 bytes */
#define MPD_TOPO_PORTS_MAX	255
#define MPD_TOPO_INCLUDE_MAX	9	/* nesting depth, as in ibsim */

/* ibsim's defaults for what the file does not say */
#define MPD_TOPO_CA_GUID_BASE		0x100000ull
#define MPD_TOPO_SWITCH_GUID_BASE	0x200000ull
#define MPD_TOPO_ROUTER_GUID_BASE	0x300000ull
#define MPD_TOPO_DEFAULT_WIDTH		2	/* 4x */
#define MPD_TOPO_DEFAULT_SPEED		1	/* SDR */
#define MPD_TOPO_DEFAULT_SPEED_EXT	0	/* none */

struct mpd_topo_port {
	uint8_t num;			/* port number (index in node->port) */
	int peer_node;			/* node index at the other end, -1: none */
	uint8_t peer_port;		/* port number there, 0 if unconnected */
	uint64_t guid;			/* PortGUID (a switch's is its NodeGUID) */
	/* PortInfo enabled masks: LinkWidthEnabled (1x=1 4x=2 8x=4 12x=8
	 * 2x=16), LinkSpeedEnabled (SDR=1 DDR=2 QDR=4), LinkSpeedExtEnabled
	 * (FDR=1 EDR=2 HDR=4 NDR=8) */
	uint8_t width_enabled;
	uint8_t speed_enabled;
	uint8_t speed_ext_enabled;
	/* the link's active values: the highest both ends enable (0 when
	 * unconnected), one bit of the masks above */
	uint8_t width_active;
	uint8_t speed_active;
	uint8_t speed_ext_active;
	bool link_given;		/* w=/s=/e= or "4xQDR" on the port line */
	uint16_t lid;			/* "lid N" from ibnetdiscover, 0: none */
	uint8_t lmc;
	/* "ip=A.B.C.D": the port's IPv4 address (network order), unique in
	 * the fabric; else the port keeps its default */
	bool ip4_given;
	uint8_t ip4[4];
	unsigned int line;		/* port line in its file, 0: none */
};

struct mpd_topo_node {
	enum mpd_topo_type type;
	char name[MPD_TOPO_NAME_MAX + 1];	/* the quoted node id */
	char desc[MPD_TOPO_DESC_MAX + 1];	/* "# desc", else the name */
	uint8_t num_ports;
	uint64_t guid;			/* NodeGUID */
	uint64_t sys_guid;		/* SystemImageGUID */
	bool guid_given;		/* set by a switchguid=/caguid=/... line */
	uint32_t vendor_id;		/* vendid=, 0 when not given */
	uint16_t device_id;		/* devid=, 0 when not given */
	int esp0;			/* switch: 1 enhanced, -1 base port 0 */
	/* port[0 .. num_ports]; port[0] is a switch's management port and
	 * unused on CAs and routers */
	struct mpd_topo_port *port;
	unsigned int line;		/* header line in its file */
};

struct mpd_topo {
	struct mpd_topo_node *node;
	unsigned int num_nodes;
	unsigned int num_links;		/* cables, each counted once */
};

/*
 * Parse a net file. On failure returns NULL and writes one line to err
 * (when errlen > 0): "FILE:LINE: what is wrong" (just "FILE: ..." when
 * the problem has no line, e.g. the file cannot be read).
 */
struct mpd_topo *mpd_topo_parse_file(const char *path, char *err,
				     size_t errlen);
/* The same from text in memory; name stands for the file in messages and
 * relative include paths resolve against the working directory. */
struct mpd_topo *mpd_topo_parse_string(const char *text, const char *name,
				       char *err, size_t errlen);
void mpd_topo_free(struct mpd_topo *t);

/* The embedded default fabric: two 1-port HCAs, "hca1" and "hca2",
 * cabled port 1 to port 1. Parse it with mpd_topo_parse_string(). */
const char *mpd_topo_default(void);

/* Index of the node called name, or -1. */
int mpd_topo_find(const struct mpd_topo *t, const char *name);
/* Index of the first CA in the file, or -1. */
int mpd_topo_first_ca(const struct mpd_topo *t);
/* The SM port, as in ibsim: the first port of the first node (port 0 of
 * a switch, port 1 of a CA or router). 0, or -1 when t has no nodes. */
int mpd_topo_sm_port(const struct mpd_topo *t, unsigned int *node,
		     uint8_t *port);
/* "Switch", "Ca" or "Router" */
const char *mpd_topo_type_name(enum mpd_topo_type type);

#ifdef __cplusplus
}
#endif

#endif /* MADPMD_TOPO_H */
