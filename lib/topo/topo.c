/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibsim net-file parser. The semantics follow ibsim's sim_net.c (the GUID
 * counters, the per-type keywords, w=/s=/e= options, ibnetdiscover's
 * "lid N 4xQDR" data, cables described on both ends); the syntax is
 * checked more strictly, so that a typo is a "FILE:LINE: ..." message
 * instead of a silently different fabric. docs/topology.md lists every
 * difference.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <arpa/inet.h>

#include "madpmd/topo.h"

#define MAX_FILE_SIZE	(64u << 20)
#define NTYPES		4	/* indexed by enum mpd_topo_type */

/*
 * The embedded default fabric: two single-port HCAs cabled back to back.
 * hca1 comes first, so its port 1 is the SM port; GUIDs are ibsim's
 * defaults (hca1 0x100000, port 0x100001; hca2 0x100002, port 0x100003).
 */
static const char default_fabric[] =
	"# madpmd's default fabric: two 1-port HCAs cabled back to back.\n"
	"# The first port in the file, hca1 port 1, is the SM port.\n"
	"Hca\t1 \"hca1\"\n"
	"[1]\t\"hca2\"[1]\n"
	"\n"
	"Hca\t1 \"hca2\"\n"
	"[1]\t\"hca1\"[1]\n";

/* One file (or string) being read; parents are the files including it. */
struct src {
	const char *name;		/* as shown in messages */
	const char *dir;		/* for relative includes, NULL: cwd */
	unsigned int file;		/* index in parser.files */
	unsigned int line;
	unsigned int depth;
	const struct src *parent;
};

/* A port line's remote end, resolved once every node is known. */
struct ref {
	unsigned int node;
	uint8_t port;
	uint8_t rport;
	char name[MPD_TOPO_NAME_MAX + 1];
};

struct parser {
	struct mpd_topo *t;
	size_t nodes_cap;
	unsigned int *node_file;	/* file of each node's block */
	char **files;			/* names for messages */
	unsigned int nfiles;
	struct ref *refs;
	size_t nrefs, refs_cap;
	/* open-addressed indices of nodes by name and by NodeGUID */
	int *by_name, *by_guid;
	size_t hmask;
	/* the current line */
	char *buf;
	size_t buf_cap;
	/* settings in effect, as ibsim keeps them */
	uint64_t guid_abs[NTYPES], guid_next[NTYPES];
	bool guid_set[NTYPES];
	uint64_t sysimgguid;
	uint32_t vendid;
	uint16_t devid;
	uint8_t width, speed, speed_ext;
	/* the message */
	char *err;
	size_t errlen;
	bool failed;
};

/* ---- messages ------------------------------------------------------------ */

static void
vmsg(struct parser *p, const char *file, unsigned int line,
     const struct src *chain, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));

/* The bytes of a file in a message, control characters and all that is
 * not ASCII as \xNN: an error never writes a file's escape sequences to
 * the user's terminal. In place, truncated to cap. */
static void
escape_msg(char *msg, size_t cap)
{
	char *raw = strdup(msg);
	size_t n = 0, i;

	if (!raw)
		return;
	for (i = 0; raw[i] && n + 1 < cap; i++) {
		unsigned char c = (unsigned char)raw[i];

		if (c >= 0x20 && c < 0x7f) {
			msg[n++] = (char)c;
			continue;
		}
		if (n + 5 > cap)
			break;
		snprintf(msg + n, cap - n, "\\x%02x", c);
		n += 4;
	}
	msg[n] = '\0';
	free(raw);
}

static void
vmsg(struct parser *p, const char *file, unsigned int line,
     const struct src *chain, const char *fmt, va_list ap)
{
	size_t n = 0;
	int r;

	if (p->failed)
		return;
	p->failed = true;
	if (!p->err || !p->errlen)
		return;
	r = line ? snprintf(p->err, p->errlen, "%s:%u: ", file, line) :
		   snprintf(p->err, p->errlen, "%s: ", file);
	if (r > 0)
		n = (size_t)r < p->errlen ? (size_t)r : p->errlen - 1;
	r = vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	if (r > 0)
		n = n + (size_t)r < p->errlen ? n + (size_t)r : p->errlen - 1;
	for (; chain; chain = chain->parent) {
		r = snprintf(p->err + n, p->errlen - n, " (included from %s:%u)",
			     chain->name, chain->line);
		if (r > 0)
			n = n + (size_t)r < p->errlen ? n + (size_t)r :
							p->errlen - 1;
	}
	escape_msg(p->err, p->errlen);
}

/* Error at the current line of s; returns -1. */
static int
src_err(struct parser *p, const struct src *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
src_err(struct parser *p, const struct src *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(p, s->name, s->line, s->parent, fmt, ap);
	va_end(ap);
	return -1;
}

/* Error at a line of a file already read (line 0: the file itself). */
static int
file_err(struct parser *p, const char *file, unsigned int line,
	 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
file_err(struct parser *p, const char *file, unsigned int line,
	 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(p, file, line, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

static int
no_mem(struct parser *p, const char *file)
{
	return file_err(p, file, 0, "out of memory");
}

/* ---- small lexical helpers ------------------------------------------------ */

static char *
skip_ws(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* An unsigned number (base 0: decimal, 0x hex, 0 octal); -1 if there is
 * none or it overflows 64 bits. */
static int
get_num(char **pp, int base, unsigned long long *v)
{
	char *e;

	if (!isdigit((unsigned char)**pp))
		return -1;
	errno = 0;
	*v = strtoull(*pp, &e, base);
	if (errno == ERANGE)
		return -1;
	*pp = e;
	return 0;
}

/* Nothing but blanks or a '#' comment at s. */
static bool
at_end(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '\0' || *s == '#';
}

/* Copy the quoted string at *pp (which points at '"') into out. */
static int
get_quoted(struct parser *p, const struct src *s, char **pp, char *out,
	   size_t max, const char *what)
{
	char *q = *pp + 1, *e = strchr(q, '"');
	size_t n;

	if (!e)
		return src_err(p, s, "%s has no closing '\"'", what);
	n = (size_t)(e - q);
	if (!n)
		return src_err(p, s, "empty %s \"\"", what);
	if (n > max)
		return src_err(p, s, "%s \"%.20s...\" is longer than %zu characters",
			       what, q, max);
	memcpy(out, q, n);
	out[n] = '\0';
	*pp = e + 1;
	return 0;
}

/* A node name, its own or a remote one, at *pp. */
static int
get_name(struct parser *p, const struct src *s, char **pp, char *out)
{
	*pp = skip_ws(*pp);
	if (**pp != '"')
		return src_err(p, s, "expected a quoted node name, as in \"sw1\"");
	if (get_quoted(p, s, pp, out, MPD_TOPO_NAME_MAX, "node name") < 0)
		return -1;
	if (strpbrk(out, "#@"))
		return src_err(p, s, "node name \"%s\": '#' and '@' are reserved for ibsim's modules and port aliases, which madpmd does not support",
			       out);
	return 0;
}

/* ---- node indices --------------------------------------------------------- */

static size_t
hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 32));
}

static size_t
hash_guid(uint64_t g)
{
	g *= 0x9e3779b97f4a7c15ull;
	return (size_t)(g ^ (g >> 29));
}

/* Slot holding the node called name, or the empty one where it goes. */
static int *
name_slot(struct parser *p, const char *name)
{
	size_t i = hash_name(name) & p->hmask;

	while (p->by_name[i] >= 0 &&
	       strcmp(p->t->node[p->by_name[i]].name, name))
		i = (i + 1) & p->hmask;
	return &p->by_name[i];
}

static int *
guid_slot(struct parser *p, uint64_t guid)
{
	size_t i = hash_guid(guid) & p->hmask;

	while (p->by_guid[i] >= 0 && p->t->node[p->by_guid[i]].guid != guid)
		i = (i + 1) & p->hmask;
	return &p->by_guid[i];
}

/* Keep both tables under half full for one more node. */
static int
index_reserve(struct parser *p)
{
	size_t size = p->hmask + 1, i;
	int *old_name = p->by_name, *old_guid = p->by_guid;
	unsigned int k;

	if (p->by_name && 2 * ((size_t)p->t->num_nodes + 1) <= size)
		return 0;
	size = p->by_name ? size * 2 : 64;
	p->by_name = malloc(size * sizeof(int));
	p->by_guid = malloc(size * sizeof(int));
	if (!p->by_name || !p->by_guid) {
		free(p->by_name);
		free(p->by_guid);
		p->by_name = old_name;
		p->by_guid = old_guid;
		return -1;
	}
	for (i = 0; i < size; i++)
		p->by_name[i] = p->by_guid[i] = -1;
	p->hmask = size - 1;
	for (k = 0; k < p->t->num_nodes; k++) {
		*name_slot(p, p->t->node[k].name) = (int)k;
		*guid_slot(p, p->t->node[k].guid) = (int)k;
	}
	free(old_name);
	free(old_guid);
	return 0;
}

/* ---- node blocks ---------------------------------------------------------- */

static const char *
src_file_of(const struct parser *p, unsigned int node)
{
	return p->files[p->node_file[node]];
}

/* ibsim's description: '#', blanks, then "quoted" or the text up to the
 * first " enhanced port ", " base port ", " lid " or " lmc ". Returns
 * where the rest of the line starts. */
static char *
get_desc(char *s, char *out)
{
	static const char *const marks[] = {
		" enhanced port ", " base port ", " lid ", " lmc ",
	};
	char *e = NULL, *m;
	size_t i, n;

	s = skip_ws(s + 1);
	if (*s == '"') {
		s++;
		e = strchr(s, '"');
		if (!e)
			e = s + strlen(s);
	} else {
		for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
			m = strstr(s, marks[i]);
			if (m && (!e || m < e))
				e = m;
		}
		if (!e)
			e = s + strlen(s);
	}
	n = (size_t)(e - s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n > MPD_TOPO_DESC_MAX)
		n = MPD_TOPO_DESC_MAX;	/* NodeDescription's size */
	memcpy(out, s, n);
	out[n] = '\0';
	return *e ? e + 1 : e;
}

/* "lid N" and "lmc N" anywhere in s, as ibsim reads them. */
static void
get_lid_lmc(const char *s, uint16_t *lid, uint8_t *lmc)
{
	const char *m;

	if ((m = strstr(s, "lid ")))
		*lid = (uint16_t)strtoul(m + 4, NULL, 0);
	if ((m = strstr(s, "lmc ")))
		*lmc = (uint8_t)(strtoul(m + 4, NULL, 0) & 7);
}

/* "Switch|Hca|Ca|Rt <nports> "<name>" [# desc ...]"; s is past the
 * keyword. Returns the new node's index or -1. */
static int
parse_header(struct parser *p, const struct src *s, enum mpd_topo_type type,
	     const char *kw, char *l)
{
	struct mpd_topo *t = p->t;
	struct mpd_topo_node *nd;
	unsigned long long v;
	char name[MPD_TOPO_NAME_MAX + 1];
	uint64_t guid;
	int *slot;
	unsigned int i;

	l = skip_ws(l);
	if (get_num(&l, 0, &v) < 0)
		return src_err(p, s, "expected the number of ports after \"%s\", as in %s 8 \"name\"",
			       kw, kw);
	if (*l != ' ' && *l != '\t' && *l != '"')
		return src_err(p, s, "bad number of ports after \"%s\"", kw);
	if (v < 1 || v > MPD_TOPO_PORTS_MAX)
		return src_err(p, s, "bad number of ports %llu: want 1..%d",
			       v, MPD_TOPO_PORTS_MAX);
	if (get_name(p, s, &l, name) < 0)
		return -1;
	l = skip_ws(l);
	if (*l && *l != '#')
		return src_err(p, s, "unexpected \"%.20s\" after the node name; only a '#' comment may follow",
			       l);

	if (index_reserve(p) < 0)
		return no_mem(p, s->name);
	slot = name_slot(p, name);
	if (*slot >= 0)
		return src_err(p, s, "node \"%s\" is already defined at %s:%u",
			       name, src_file_of(p, (unsigned int)*slot),
			       t->node[*slot].line);
	guid = p->guid_next[type];
	if (*guid_slot(p, guid) >= 0) {
		i = (unsigned int)*guid_slot(p, guid);
		return src_err(p, s, "NodeGUID 0x%llx of \"%s\" is already the NodeGUID of \"%s\" (%s:%u)",
			       (unsigned long long)guid, name, t->node[i].name,
			       src_file_of(p, i), t->node[i].line);
	}

	if (t->num_nodes == p->nodes_cap) {
		size_t cap = p->nodes_cap ? p->nodes_cap * 2 : 16;
		struct mpd_topo_node *nn;
		unsigned int *nf;

		nn = realloc(t->node, cap * sizeof(*nn));
		if (!nn)
			return no_mem(p, s->name);
		t->node = nn;
		nf = realloc(p->node_file, cap * sizeof(*nf));
		if (!nf)
			return no_mem(p, s->name);
		p->node_file = nf;
		p->nodes_cap = cap;
	}
	nd = &t->node[t->num_nodes];
	memset(nd, 0, sizeof(*nd));
	nd->port = calloc(v + 1, sizeof(*nd->port));
	if (!nd->port)
		return no_mem(p, s->name);
	nd->type = type;
	memcpy(nd->name, name, sizeof(name));
	nd->num_ports = (uint8_t)v;
	nd->line = s->line;
	nd->guid = guid;
	nd->guid_given = p->guid_set[type];
	nd->sys_guid = p->sysimgguid ? p->sysimgguid : guid;
	nd->vendor_id = p->vendid;
	nd->device_id = p->devid;
	/* as ibsim: vendid and sysimgguid hold for one node, devid sticks */
	p->guid_set[type] = false;
	p->sysimgguid = 0;
	p->vendid = 0;
	p->guid_next[type] += type == MPD_TOPO_SWITCH ? 1 : v + 1;

	if (*l == '#')
		l = get_desc(l, nd->desc);
	if (!nd->desc[0])
		memcpy(nd->desc, name, sizeof(name));
	if (type == MPD_TOPO_SWITCH) {
		if (strstr(l, "enhanced port 0"))
			nd->esp0 = 1;
		else if (strstr(l, "base port 0"))
			nd->esp0 = -1;
		get_lid_lmc(l, &nd->port[0].lid, &nd->port[0].lmc);
	}
	for (i = 0; i <= v; i++) {
		struct mpd_topo_port *pt = &nd->port[i];

		pt->num = (uint8_t)i;
		pt->peer_node = -1;
		pt->guid = type == MPD_TOPO_SWITCH ? guid : guid + i;
		pt->width_enabled = p->width;
		pt->speed_enabled = p->speed;
		pt->speed_ext_enabled = p->speed_ext;
	}
	p->node_file[t->num_nodes] = s->file;
	*slot = (int)t->num_nodes;
	*guid_slot(p, guid) = (int)t->num_nodes;
	return (int)t->num_nodes++;
}

/* ibnetdiscover's "lid N <width>x<speed>" after the last quote, which
 * sets the enabled width and speed the way ibsim maps them. */
static bool
get_link_data(char *rest, struct mpd_topo_port *pt)
{
	static const struct {
		const char *name;
		uint8_t speed, ext;
	} speeds[] = {
		{ "SDR", 1, 0 }, { "DDR", 3, 0 }, { "QDR", 7, 0 },
		{ "FDR", 7, 1 }, { "EDR", 7, 3 }, { "HDR", 7, 7 },
		{ "NDR", 7, 15 }, { "FDR10", 7, 0 },
	};
	char *q = strrchr(rest, '"'), *m, speed[10];
	int lid, width;
	size_t i;

	m = strstr(q ? q : rest, "lid");
	if (!m || sscanf(m, "lid %d %dx%9s", &lid, &width, speed) != 3)
		return false;
	/* an unknown width or speed leaves that value alone, as in ibsim */
	if (width == 1)
		pt->width_enabled = 1;
	else if (width == 2)
		pt->width_enabled = 16;
	else if (width == 4)
		pt->width_enabled = 3;
	else if (width == 8)
		pt->width_enabled = 4;
	else if (width == 12)
		pt->width_enabled = 11;
	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		if (strncmp(speed, speeds[i].name, strlen(speed)))
			continue;
		pt->speed_enabled = speeds[i].speed;
		if (speeds[i].ext)
			pt->speed_ext_enabled = speeds[i].ext;
		break;
	}
	return true;
}

/* w=, s= and e= options: ibsim takes the letter nearest before each '='
 * and ignores the ones it does not know. */
static int
get_port_opts(struct parser *p, const struct src *s, char *rest,
	      struct mpd_topo_port *pt)
{
	char *eq, *k;
	unsigned long long v;

	for (eq = strchr(rest, '='); eq; eq = strchr(eq + 1, '=')) {
		char *val = eq + 1;

		for (k = eq; k > rest && !isalpha((unsigned char)k[-1]); k--)
			;
		if (k == rest)
			continue;
		k--;
		if (*k != 'w' && *k != 's' && *k != 'e')
			continue;
		if (get_num(&val, 0, &v) < 0)
			return src_err(p, s, "bad %c= value: expected a number",
				       *k);
		switch (*k) {
		case 'w':
			if (v < 1 || v > 31)
				return src_err(p, s, "bad link width w=%llu: want 1..31, LinkWidthEnabled bits (1x=1 4x=2 8x=4 12x=8 2x=16)",
					       v);
			pt->width_enabled = (uint8_t)v;
			break;
		case 's':
			if (v > 7)
				return src_err(p, s, "bad link speed s=%llu: want 1..7, LinkSpeedEnabled bits (SDR=1 DDR=2 QDR=4), or 0 for QDR",
					       v);
			pt->speed_enabled = v ? (uint8_t)v : 4;
			break;
		default:
			if (v > 15)
				return src_err(p, s, "bad extended link speed e=%llu: want 0..15, LinkSpeedExtEnabled bits (FDR=1 EDR=2 HDR=4 NDR=8)",
					       v);
			pt->speed_ext_enabled = (uint8_t)v;
			break;
		}
		pt->link_given = true;
	}
	return 0;
}

/*
 * madpmd's "ip=A.B.C.D" among the options (before any '#' comment): the
 * port's IPv4 address, which rdma_cm resolves to it. ibsim takes the
 * letter before '=' ('p') for an option it does not know and ignores it,
 * so such a file still starts ibsim.
 */
static int
get_port_ip(struct parser *p, const struct src *s, const char *rest,
	    enum mpd_topo_type type, struct mpd_topo_port *pt)
{
	size_t end = strcspn(rest, "#"), n;
	const char *m, *v;
	char val[INET_ADDRSTRLEN];
	struct in_addr a;
	uint32_t h;

	for (m = strstr(rest, "ip="); m && (size_t)(m - rest) < end;
	     m = strstr(m + 1, "ip=")) {
		if (m > rest && m[-1] != ' ' && m[-1] != '\t')
			continue;	/* part of another word */
		if (type == MPD_TOPO_SWITCH)
			return src_err(p, s, "ip= on a switch port: only CA and router ports have an IPv4 address");
		if (pt->ip4_given)
			return src_err(p, s, "ip= given twice for port %u",
				       pt->num);
		v = m + 3;
		n = strcspn(v, " \t#");
		if (n < sizeof(val)) {
			memcpy(val, v, n);
			val[n] = '\0';
		}
		if (n >= sizeof(val) || inet_pton(AF_INET, val, &a) != 1)
			return src_err(p, s, "bad ip= value \"%.*s\": expected the port's IPv4 address, as in ip=10.0.0.1",
				       (int)(n > 40 ? 40 : n), v);
		h = ntohl(a.s_addr);
		if (!h || h == UINT32_MAX || (h >> 28) == 0xe)
			return src_err(p, s, "bad ip= value %s: a port's address is unicast (not 0.0.0.0, multicast or 255.255.255.255)",
				       val);
		memcpy(pt->ip4, &a.s_addr, sizeof(pt->ip4));
		pt->ip4_given = true;
	}
	return 0;
}

/* "[N][(guid)] "remote"[M] [options] [# ...]" in node cur's block. */
static int
parse_port(struct parser *p, const struct src *s, unsigned int cur, char *l)
{
	struct mpd_topo_node *nd = &p->t->node[cur];
	struct mpd_topo_port *pt;
	unsigned long long v, rv = 1;
	struct ref *r;

	l = skip_ws(l + 1);
	if (get_num(&l, 10, &v) < 0)
		return src_err(p, s, "expected a port number after '['");
	l = skip_ws(l);
	if (*l != ']')
		return src_err(p, s, "expected ']' after port number %llu", v);
	if (v == 0)
		return src_err(p, s, "port 0 cannot be cabled: ports are numbered from 1");
	if (v > nd->num_ports)
		return src_err(p, s, "port %llu out of range: \"%s\" has %u port%s",
			       v, nd->name, nd->num_ports,
			       nd->num_ports == 1 ? "" : "s");
	pt = &nd->port[v];
	if (pt->line)
		return src_err(p, s, "port %llu of \"%s\" is connected twice (lines %u and %u)",
			       v, nd->name, pt->line, s->line);
	l = skip_ws(l + 1);
	if (*l == '(') {	/* ibnetdiscover's port GUID: ignored */
		l = strchr(l, ')');
		if (!l)
			return src_err(p, s, "'(' without ')' after the port number");
		l++;
	}
	if (p->nrefs == p->refs_cap) {
		size_t cap = p->refs_cap ? p->refs_cap * 2 : 64;

		r = realloc(p->refs, cap * sizeof(*r));
		if (!r)
			return no_mem(p, s->name);
		p->refs = r;
		p->refs_cap = cap;
	}
	r = &p->refs[p->nrefs];
	if (get_name(p, s, &l, r->name) < 0)
		return -1;
	l = skip_ws(l);
	if (*l == '[') {
		l = skip_ws(l + 1);
		if (get_num(&l, 10, &rv) < 0)
			return src_err(p, s, "expected a port number after \"%s\"[",
				       r->name);
		l = skip_ws(l);
		if (*l != ']')
			return src_err(p, s, "expected ']' after port number %llu of \"%s\"",
				       rv, r->name);
		l++;
		if (rv == 0)
			return src_err(p, s, "port 0 of \"%s\" cannot be cabled: ports are numbered from 1",
				       r->name);
		if (rv > MPD_TOPO_PORTS_MAX)
			return src_err(p, s, "port %llu out of range: \"%s\" has at most %d ports",
				       rv, r->name, MPD_TOPO_PORTS_MAX);
	}
	if (get_port_opts(p, s, l, pt) < 0 ||
	    get_port_ip(p, s, l, nd->type, pt) < 0)
		return -1;
	if (nd->type != MPD_TOPO_ROUTER && get_link_data(l, pt))
		pt->link_given = true;
	if (nd->type == MPD_TOPO_CA)
		get_lid_lmc(l, &pt->lid, &pt->lmc);
	pt->line = s->line;
	r->node = cur;
	r->port = (uint8_t)v;
	r->rport = (uint8_t)rv;
	p->nrefs++;
	return 0;
}

/* ---- settings and includes ------------------------------------------------ */

static int parse_text(struct parser *p, const struct src *parent,
		      const char *name, const char *dir, const char *text,
		      size_t len);

static int
read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0, n = 0, got;
	char *buf = NULL, *nb;
	int err = 0;

	if (!f)
		return -errno;
	do {
		if (n == cap) {
			if (cap >= MAX_FILE_SIZE) {
				err = -EFBIG;
				break;
			}
			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	if (!err && ferror(f))
		err = errno ? -errno : -EIO;
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	if (!buf) {
		buf = malloc(1);
		if (!buf)
			return -ENOMEM;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* Directory part of path, or NULL for the working directory. */
static char *
dir_of(const char *path)
{
	const char *sl = strrchr(path, '/');

	if (!sl)
		return NULL;
	if (sl == path)
		return strdup("/");
	return strndup(path, (size_t)(sl - path));
}

static int
parse_file(struct parser *p, const struct src *parent, const char *path)
{
	char *text = NULL, *dir = NULL;
	struct stat st;
	size_t len = 0;
	int r;

	/* an include names a file of the fabric, never a device or a FIFO
	 * (a topology from elsewhere must not make us read /dev/zero or wait
	 * on a pipe); the top file is the user's own choice, a pipe allowed */
	if (parent && stat(path, &st) != 0)
		return src_err(p, parent, "cannot read include file \"%s\": %s",
			       path, strerror(errno));
	if (parent && !S_ISREG(st.st_mode))
		return src_err(p, parent, "cannot read include file \"%s\": not a regular file",
			       path);
	r = read_file(path, &text, &len);
	if (r < 0) {
		if (parent)
			return src_err(p, parent, "cannot read include file \"%s\": %s",
				       path, r == -EFBIG ? "larger than 64 MiB" :
				       strerror(-r));
		return file_err(p, path, 0, "cannot read: %s",
				r == -EFBIG ? "larger than 64 MiB" :
				strerror(-r));
	}
	dir = dir_of(path);
	if (strchr(path, '/') && !dir) {
		free(text);
		return no_mem(p, path);
	}
	r = parse_text(p, parent, path, dir, text, len);
	free(dir);
	free(text);
	return r;
}

/* include "file" (or a bare name): relative to the including file's
 * directory, then, as ibsim, to the working directory. */
static int
parse_include(struct parser *p, const struct src *s, char *l)
{
	char name[4096], *path = NULL, *e;
	size_t n;
	FILE *f;
	int r;

	l = skip_ws(l);
	if (*l == '"') {
		e = strchr(l + 1, '"');
		if (!e)
			return src_err(p, s, "include file name has no closing '\"'");
		l++;
	} else {
		e = l + strcspn(l, " \t#");
	}
	n = (size_t)(e - l);
	if (!n)
		return src_err(p, s, "include needs a file name, as in include \"net.part\"");
	if (n >= sizeof(name))
		return src_err(p, s, "include file name too long");
	memcpy(name, l, n);
	name[n] = '\0';
	if (!at_end(*e == '"' ? e + 1 : e))
		return src_err(p, s, "unexpected text after the include file name");
	if (s->depth >= MPD_TOPO_INCLUDE_MAX)
		return src_err(p, s, "includes nest deeper than %d files (does \"%s\" include itself?)",
			       MPD_TOPO_INCLUDE_MAX, name);

	if (name[0] != '/' && s->dir) {
		if (asprintf(&path, "%s/%s", s->dir, name) < 0)
			return no_mem(p, s->name);
		f = fopen(path, "r");
		if (f) {
			fclose(f);
		} else if (errno == ENOENT) {
			free(path);
			path = NULL;
		}
	}
	r = parse_file(p, s, path ? path : name);
	free(path);
	return r;
}

/* key=value lines. Returns 0, or -1 with the message set. */
static int
parse_setting(struct parser *p, const struct src *s, const char *key, char *l)
{
	static const struct {
		const char *key;
		int type;
	} guid_keys[] = {
		{ "switchguid", MPD_TOPO_SWITCH },
		{ "hcaguids", MPD_TOPO_CA }, { "hcaguid", MPD_TOPO_CA },
		{ "caguid", MPD_TOPO_CA }, { "caguids", MPD_TOPO_CA },
		{ "rtguid", MPD_TOPO_ROUTER },
	};
	unsigned long long v;
	bool rel = false;
	size_t i;
	int type = 0;

	for (i = 0; i < sizeof(guid_keys) / sizeof(guid_keys[0]); i++)
		if (!strcmp(key, guid_keys[i].key))
			type = guid_keys[i].type;
	l = skip_ws(l);
	if (*l == '+' && type)
		rel = true;
	else if (*l != '=')
		return src_err(p, s, "expected '=' after \"%s\"%s", key,
			       type ? " (or '+' for a relative GUID)" : "");
	l = skip_ws(l + 1);
	if (get_num(&l, 0, &v) < 0)
		return src_err(p, s, "expected a number after \"%s%c\"", key,
			       rel ? '+' : '=');
	if (*l == '(')		/* ibnetdiscover repeats the GUID in () */
		l += strcspn(l, ")") + (strchr(l, ')') ? 1 : 0);
	l = skip_ws(l);
	if (*l && *l != '#')
		return src_err(p, s, "unexpected \"%.20s\" after the value of \"%s\"",
			       l, key);

	if (type) {
		if (!rel)
			p->guid_abs[type] = v;
		p->guid_next[type] = p->guid_abs[type] + (rel ? v : 0);
		p->guid_set[type] = true;
	} else if (!strcmp(key, "sysimgguid")) {
		p->sysimgguid = v;
	} else if (!strcmp(key, "vendid")) {
		if (v > 0xffffff)
			return src_err(p, s, "vendid 0x%llx does not fit 24 bits", v);
		p->vendid = (uint32_t)v;
	} else if (!strcmp(key, "devid")) {
		if (v > 0xffff)
			return src_err(p, s, "devid 0x%llx does not fit 16 bits", v);
		p->devid = (uint16_t)v;
	} else if (!strcmp(key, "width")) {
		if (v < 1 || v > 31)
			return src_err(p, s, "bad width=%llu: want 1..31, LinkWidthEnabled bits (1x=1 4x=2 8x=4 12x=8 2x=16)",
				       v);
		p->width = (uint8_t)v;
	} else if (!strcmp(key, "speed")) {
		if (v < 1 || v > 7)
			return src_err(p, s, "bad speed=%llu: want 1..7, LinkSpeedEnabled bits (SDR=1 DDR=2 QDR=4)",
				       v);
		p->speed = (uint8_t)v;
	} else {	/* extspeed */
		if (v > 15)
			return src_err(p, s, "bad extspeed=%llu: want 0..15, LinkSpeedExtEnabled bits (FDR=1 EDR=2 HDR=4 NDR=8)",
				       v);
		p->speed_ext = (uint8_t)v;
	}
	return 0;
}

/* ---- lines ---------------------------------------------------------------- */

static const struct {
	const char *kw;
	enum mpd_topo_type type;
} headers[] = {
	{ "Switch", MPD_TOPO_SWITCH }, { "Hca", MPD_TOPO_CA },
	{ "Ca", MPD_TOPO_CA }, { "Rt", MPD_TOPO_ROUTER },
	{ "Rtr", MPD_TOPO_ROUTER },
};

static const char *const settings[] = {
	"switchguid", "hcaguids", "hcaguid", "caguid", "caguids", "rtguid",
	"sysimgguid", "vendid", "devid", "width", "speed", "extspeed",
};

/* One line in p->buf; *cur is the node whose block is open, or -1. */
static int
parse_line(struct parser *p, const struct src *s, int *cur)
{
	char *l = skip_ws(p->buf), key[16];
	size_t n, i;
	int r;

	if (!*l) {		/* a blank line ends a block */
		*cur = -1;
		return 0;
	}
	if (*l == '#')
		return 0;
	if (*l == '@')
		return src_err(p, s, "port aliases ('@') are an ibsim extension madpmd does not support");
	if (*l == '[') {
		if (*cur < 0)
			return src_err(p, s, "port line outside a node block: it must follow its Switch/Hca line or another port line, without a blank line between");
		return parse_port(p, s, (unsigned int)*cur, l);
	}

	for (n = 0; isalpha((unsigned char)l[n]); n++)
		;
	if (!n || n >= sizeof(key))
		goto unknown;
	memcpy(key, l, n);
	key[n] = '\0';
	l += n;
	for (i = 0; i < sizeof(headers) / sizeof(headers[0]); i++) {
		if (strcmp(key, headers[i].kw))
			continue;
		r = parse_header(p, s, headers[i].type, key, l);
		if (r < 0)
			return -1;
		*cur = r;
		return 0;
	}
	*cur = -1;
	for (i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (!strcmp(key, settings[i]))
			return parse_setting(p, s, key, l);
	if (!strcmp(key, "include") && (*l == ' ' || *l == '\t' || *l == '"'))
		return parse_include(p, s, l);
	if (!strcmp(key, "pdebug"))	/* ibsim's parser debugging */
		return 0;
	if (!strcmp(key, "module"))
		return src_err(p, s, "\"module\" (ibsim's name prefixes) is not supported by madpmd");
	if (!strcmp(key, "do"))
		return src_err(p, s, "\"do\" (ibsim console commands in a net file) is not supported by madpmd");
unknown:
	l = skip_ws(p->buf);
	return src_err(p, s, "unrecognized line \"%.24s\": expected Switch, Hca, Ca or Rt <ports> \"<name>\", a port line [N] \"<name>\"[M], a setting such as caguid=0x... or include \"<file>\"",
		       l);
}

static int
parse_text(struct parser *p, const struct src *parent, const char *name,
	   const char *dir, const char *text, size_t len)
{
	struct src s = {
		.parent = parent,
		.depth = parent ? parent->depth + 1 : 1,
		.dir = dir,
	};
	size_t pos = 0, n;
	const char *nl;
	char **files, *nm;
	int cur = -1;

	nm = strdup(name);
	files = realloc(p->files, (p->nfiles + 1) * sizeof(*files));
	if (files)
		p->files = files;
	if (!nm || !files) {
		free(nm);
		return no_mem(p, name);
	}
	s.file = p->nfiles;
	p->files[p->nfiles++] = nm;
	s.name = nm;

	for (; pos < len; pos = nl ? (size_t)(nl - text) + 1 : len) {
		nl = memchr(text + pos, '\n', len - pos);
		n = nl ? (size_t)(nl - text) - pos : len - pos;
		s.line++;
		if (memchr(text + pos, '\0', n))
			return src_err(p, &s, "NUL byte in the line: not a text file");
		if (n + 1 > p->buf_cap) {
			char *b = realloc(p->buf, n + 1);

			if (!b)
				return no_mem(p, name);
			p->buf = b;
			p->buf_cap = n + 1;
		}
		memcpy(p->buf, text + pos, n);
		while (n && isspace((unsigned char)p->buf[n - 1]))
			n--;
		p->buf[n] = '\0';
		if (parse_line(p, &s, &cur) < 0)
			return -1;
	}
	return 0;
}

/* ---- cables ---------------------------------------------------------------- */

static uint8_t
best_width(uint8_t w)
{
	static const uint8_t order[] = { 8, 4, 2, 16, 1 };	/* as ibsim */
	size_t i;

	for (i = 0; i < sizeof(order); i++)
		if (w & order[i])
			return order[i];
	return 0;
}

static uint8_t
best_speed(uint8_t sp)
{
	return sp & 4 ? 4 : sp & 2 ? 2 : sp & 1;
}

static uint8_t
best_speed_ext(uint8_t sp)
{
	return sp & 8 ? 8 : sp & 4 ? 4 : sp & 2 ? 2 : sp & 1;
}

/* Resolve every port line's remote end and check that both ends describe
 * the same cable (ibsim requires it), then the link's active values. */
static int
link_ports(struct parser *p)
{
	struct mpd_topo *t = p->t;
	struct mpd_topo_node *nd, *rn;
	struct mpd_topo_port *pt, *rp;
	const struct ref *r;
	const char *file;
	size_t i;
	int ri;

	for (i = 0; i < p->nrefs; i++) {
		r = &p->refs[i];
		nd = &t->node[r->node];
		pt = &nd->port[r->port];
		file = src_file_of(p, r->node);
		ri = *name_slot(p, r->name);
		if (ri < 0)
			return file_err(p, file, pt->line, "unknown node \"%s\" (port %u of \"%s\" is cabled to it)",
					r->name, r->port, nd->name);
		rn = &t->node[ri];
		if (r->rport > rn->num_ports)
			return file_err(p, file, pt->line, "port %u out of range: \"%s\" has %u port%s",
					r->rport, rn->name, rn->num_ports,
					rn->num_ports == 1 ? "" : "s");
		if ((unsigned int)ri == r->node && r->rport == r->port)
			return file_err(p, file, pt->line, "port %u of \"%s\" is cabled to itself",
					r->port, nd->name);
		pt->peer_node = ri;
		pt->peer_port = r->rport;
	}

	for (i = 0; i < p->nrefs; i++) {
		r = &p->refs[i];
		nd = &t->node[r->node];
		pt = &nd->port[r->port];
		rn = &t->node[pt->peer_node];
		rp = &rn->port[pt->peer_port];
		file = src_file_of(p, r->node);
		if (!rp->line)
			return file_err(p, file, pt->line, "\"%s\" port %u is cabled to \"%s\" port %u, but \"%s\" has no line for port %u; describe every cable on both of its ends, as ibsim requires",
					nd->name, r->port, rn->name,
					pt->peer_port, rn->name, pt->peer_port);
		if ((unsigned int)rp->peer_node != r->node ||
		    rp->peer_port != r->port)
			return file_err(p, file, pt->line, "\"%s\" port %u is cabled to \"%s\" port %u, but \"%s\" port %u is cabled to \"%s\" port %u (%s:%u)",
					nd->name, r->port, rn->name,
					pt->peer_port, rn->name, pt->peer_port,
					t->node[rp->peer_node].name,
					rp->peer_port,
					src_file_of(p, (unsigned int)pt->peer_node),
					rp->line);
		pt->width_active = best_width(pt->width_enabled &
					      rp->width_enabled);
		if (!pt->width_active)
			return file_err(p, file, pt->line, "\"%s\" port %u (w=%u) and \"%s\" port %u (w=%u) have no link width in common",
					nd->name, r->port, pt->width_enabled,
					rn->name, pt->peer_port,
					rp->width_enabled);
		pt->speed_active = best_speed(pt->speed_enabled &
					      rp->speed_enabled);
		if (!pt->speed_active)
			return file_err(p, file, pt->line, "\"%s\" port %u (s=%u) and \"%s\" port %u (s=%u) have no link speed in common",
					nd->name, r->port, pt->speed_enabled,
					rn->name, pt->peer_port,
					rp->speed_enabled);
		pt->speed_ext_active = best_speed_ext(pt->speed_ext_enabled &
						      rp->speed_ext_enabled);
		if ((unsigned int)pt->peer_node > r->node ||
		    ((unsigned int)pt->peer_node == r->node &&
		     pt->peer_port > r->port))
			t->num_links++;
	}
	return 0;
}

/* Two ports given the same IPv4 address: rdma_cm could not tell them apart.
 * Reported at the later port's line. */
static int
check_addresses(struct parser *p)
{
	const struct mpd_topo *t = p->t;
	const struct mpd_topo_port *a, *b;
	unsigned int n, i, m, j;
	char ip[INET_ADDRSTRLEN];

	for (n = 0; n < t->num_nodes; n++)
		for (i = 1; i <= t->node[n].num_ports; i++) {
			a = &t->node[n].port[i];
			if (!a->ip4_given)
				continue;
			for (m = 0; m <= n; m++)
				for (j = 1; j <= t->node[m].num_ports; j++) {
					b = &t->node[m].port[j];
					if (m == n && j >= i)
						break;
					if (!b->ip4_given ||
					    memcmp(a->ip4, b->ip4, 4))
						continue;
					inet_ntop(AF_INET, a->ip4, ip,
						  sizeof(ip));
					return file_err(p, src_file_of(p, n),
							a->line, "ip=%s of \"%s\" port %u is already the address of \"%s\" port %u (%s:%u)",
							ip, t->node[n].name, i,
							t->node[m].name, j,
							src_file_of(p, m),
							b->line);
				}
		}
	return 0;
}

/* ---- entry points ---------------------------------------------------------- */

static void
parser_init(struct parser *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->err = err;
	p->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	p->guid_abs[MPD_TOPO_CA] = MPD_TOPO_CA_GUID_BASE;
	p->guid_abs[MPD_TOPO_SWITCH] = MPD_TOPO_SWITCH_GUID_BASE;
	p->guid_abs[MPD_TOPO_ROUTER] = MPD_TOPO_ROUTER_GUID_BASE;
	memcpy(p->guid_next, p->guid_abs, sizeof(p->guid_next));
	p->width = MPD_TOPO_DEFAULT_WIDTH;
	p->speed = MPD_TOPO_DEFAULT_SPEED;
	p->speed_ext = MPD_TOPO_DEFAULT_SPEED_EXT;
}

/* Finish: link, check, free the parser; returns t or NULL. */
static struct mpd_topo *
parser_finish(struct parser *p, const char *name, int rc)
{
	struct mpd_topo *t = p->t;
	unsigned int i;

	if (!rc && !t->num_nodes)
		rc = file_err(p, name, 0, "defines no nodes: expected at least one Hca or Switch block");
	if (!rc)
		rc = link_ports(p);
	if (!rc)
		rc = check_addresses(p);
	for (i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	free(p->files);
	free(p->node_file);
	free(p->refs);
	free(p->by_name);
	free(p->by_guid);
	free(p->buf);
	if (rc < 0) {
		mpd_topo_free(t);
		return NULL;
	}
	return t;
}

struct mpd_topo *
mpd_topo_parse_file(const char *path, char *err, size_t errlen)
{
	struct parser p;

	parser_init(&p, err, errlen);
	if (!path) {
		file_err(&p, "(null)", 0, "no topology file given");
		return NULL;
	}
	p.t = calloc(1, sizeof(*p.t));
	if (!p.t) {
		no_mem(&p, path);
		return NULL;
	}
	return parser_finish(&p, path, parse_file(&p, NULL, path));
}

struct mpd_topo *
mpd_topo_parse_string(const char *text, const char *name, char *err,
		      size_t errlen)
{
	struct parser p;

	if (!name)
		name = "<string>";
	parser_init(&p, err, errlen);
	if (!text) {
		file_err(&p, name, 0, "no topology text given");
		return NULL;
	}
	p.t = calloc(1, sizeof(*p.t));
	if (!p.t) {
		no_mem(&p, name);
		return NULL;
	}
	return parser_finish(&p, name,
			     parse_text(&p, NULL, name, NULL, text,
					strlen(text)));
}

void
mpd_topo_free(struct mpd_topo *t)
{
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->num_nodes; i++)
		free(t->node[i].port);
	free(t->node);
	free(t);
}

const char *
mpd_topo_default(void)
{
	return default_fabric;
}

int
mpd_topo_find(const struct mpd_topo *t, const char *name)
{
	unsigned int i;

	if (!t || !name)
		return -1;
	for (i = 0; i < t->num_nodes; i++)
		if (!strcmp(t->node[i].name, name))
			return (int)i;
	return -1;
}

int
mpd_topo_first_ca(const struct mpd_topo *t)
{
	unsigned int i;

	if (!t)
		return -1;
	for (i = 0; i < t->num_nodes; i++)
		if (t->node[i].type == MPD_TOPO_CA)
			return (int)i;
	return -1;
}

int
mpd_topo_sm_port(const struct mpd_topo *t, unsigned int *node, uint8_t *port)
{
	if (!t || !t->num_nodes)
		return -1;
	if (node)
		*node = 0;
	if (port)
		*port = t->node[0].type == MPD_TOPO_SWITCH ? 0 : 1;
	return 0;
}

const char *
mpd_topo_type_name(enum mpd_topo_type type)
{
	switch (type) {
	case MPD_TOPO_CA:
		return "Ca";
	case MPD_TOPO_SWITCH:
		return "Switch";
	case MPD_TOPO_ROUTER:
		return "Router";
	default:
		return "Unknown";
	}
}
