/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "madpmd/pcapng.h"
#include "oracle.h"
#include "tap.h"

enum exp_kind { EXP_UINT, EXP_STR, EXP_BYTES, EXP_GID, EXP_ABSENT };

struct expect {
	int frame;
	char *field;
	unsigned int occ;
	enum exp_kind kind;
	uint64_t u;
	char *s;		/* EXP_STR; EXP_BYTES as lowercase hex */
	uint8_t gid[16];
};

struct oracle {
	char dir[64];
	char path[128];
	struct mpd_pcapng *w;
	int if_eth, if_ib;
	int nframes;
	char **labels;
	struct expect *exp;
	size_t nexp, capexp;
	char **fields;		/* distinct field names, in -e order */
	size_t nfields;
	char **args;
	size_t nargs;
	int write_err;
	char *plugin_dir;	/* oracle_set_plugin_dir() */
	int *allow_err;		/* oracle_allow_errors(), by frame */
	size_t nallow;
};

static void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (!q) {
		perror("realloc");
		exit(99);
	}
	return q;
}

static char *
xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		perror("strdup");
		exit(99);
	}
	return d;
}

struct oracle *
oracle_new(const char *name)
{
	struct oracle *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	snprintf(o->dir, sizeof(o->dir), "/tmp/madpmd-oracle-XXXXXX");
	if (!mkdtemp(o->dir)) {
		free(o);
		return NULL;
	}
	/* tshark runs as nobody: it must be able to read the capture */
	chmod(o->dir, 0755);
	snprintf(o->path, sizeof(o->path), "%s/%s.pcapng", o->dir, name);
	o->w = mpd_pcapng_open(o->path);
	if (!o->w) {
		rmdir(o->dir);
		free(o);
		return NULL;
	}
	o->if_eth = mpd_pcapng_add_interface(o->w, MPD_LINKTYPE_ETHERNET,
					     "roce", "RoCE wire");
	o->if_ib = mpd_pcapng_add_interface(o->w, MPD_LINKTYPE_UPPER_PDU,
					    "ib", "native IB wire");
	return o;
}

void
oracle_free(struct oracle *o)
{
	size_t i;

	if (!o)
		return;
	if (o->w)
		mpd_pcapng_close(o->w);
	if (!getenv("MADPMD_KEEP_PCAP")) {
		char err[160];

		unlink(o->path);
		snprintf(err, sizeof(err), "%s/tshark.err", o->dir);
		unlink(err);
		rmdir(o->dir);
	} else {
		tap_diag("capture kept: %s", o->path);
	}
	for (i = 0; i < o->nexp; i++) {
		free(o->exp[i].field);
		free(o->exp[i].s);
	}
	for (i = 0; i < o->nfields; i++)
		free(o->fields[i]);
	for (i = 0; i < o->nargs; i++)
		free(o->args[i]);
	for (i = 0; i < (size_t)o->nframes; i++)
		free(o->labels[i]);
	free(o->labels);
	free(o->fields);
	free(o->args);
	free(o->exp);
	free(o->plugin_dir);
	free(o->allow_err);
	free(o);
}

static void
use_field(struct oracle *o, const char *field)
{
	size_t i;

	for (i = 0; i < o->nfields; i++)
		if (strcmp(o->fields[i], field) == 0)
			return;
	o->fields = xrealloc(o->fields, (o->nfields + 1) * sizeof(char *));
	o->fields[o->nfields++] = xstrdup(field);
}

static struct expect *
new_expect(struct oracle *o, int frame, const char *field, unsigned int occ,
	   enum exp_kind kind)
{
	struct expect *e;

	if (o->nexp == o->capexp) {
		o->capexp = o->capexp ? 2 * o->capexp : 256;
		o->exp = xrealloc(o->exp, o->capexp * sizeof(*o->exp));
	}
	e = &o->exp[o->nexp++];
	memset(e, 0, sizeof(*e));
	e->frame = frame;
	e->field = xstrdup(field);
	e->occ = occ;
	e->kind = kind;
	use_field(o, field);
	return e;
}

void
oracle_expect_uint(struct oracle *o, int frame, const char *field,
		   unsigned int occurrence, uint64_t value)
{
	new_expect(o, frame, field, occurrence, EXP_UINT)->u = value;
}

void
oracle_expect_str(struct oracle *o, int frame, const char *field,
		  unsigned int occurrence, const char *value)
{
	new_expect(o, frame, field, occurrence, EXP_STR)->s = xstrdup(value);
}

void
oracle_expect_bytes(struct oracle *o, int frame, const char *field,
		    unsigned int occurrence, const void *value, size_t len)
{
	struct expect *e = new_expect(o, frame, field, occurrence, EXP_BYTES);
	const uint8_t *b = value;
	size_t i;

	e->s = xrealloc(NULL, 2 * len + 1);
	for (i = 0; i < len; i++)
		sprintf(e->s + 2 * i, "%02x", b[i]);
	e->s[2 * len] = '\0';
}

void
oracle_expect_gid(struct oracle *o, int frame, const char *field,
		  unsigned int occurrence, const uint8_t gid[16])
{
	memcpy(new_expect(o, frame, field, occurrence, EXP_GID)->gid, gid, 16);
}

void
oracle_expect_absent(struct oracle *o, int frame, const char *field)
{
	new_expect(o, frame, field, 0, EXP_ABSENT);
}

void
oracle_forget(struct oracle *o, int frame, const char *field)
{
	size_t i, n = 0;

	for (i = 0; i < o->nexp; i++) {
		struct expect *e = &o->exp[i];

		if (e->frame == frame && strcmp(e->field, field) == 0) {
			free(e->field);
			free(e->s);
			continue;
		}
		o->exp[n++] = *e;
	}
	o->nexp = n;
}

void
oracle_expect_layout(struct oracle *o, int frame, const struct mpd_layout *l,
		     const void *obj, const struct oracle_map *map,
		     size_t nmap, unsigned int occurrence)
{
	uint16_t i;
	size_t j;

	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];
		const struct oracle_map *m = NULL;
		const uint8_t *mem = (const uint8_t *)obj + f->mem_off;

		for (j = 0; j < nmap; j++)
			if (strcmp(map[j].member, f->name) == 0)
				m = &map[j];
		if (!m) {
			ok(0, "%s.%s has an oracle mapping", l->name, f->name);
			continue;
		}
		if (!m->tshark)
			continue;
		if (f->kind == MPD_FK_UINT) {
			oracle_expect_uint(o, frame, m->tshark, occurrence,
					   mpd_field_load(f, obj));
		} else if (m->as == ORACLE_AS_STRING) {
			char s[257];
			size_t n = f->mem_size;	/* uint8_t: at most 255 */

			memcpy(s, mem, n);
			s[n] = '\0';
			oracle_expect_str(o, frame, m->tshark, occurrence, s);
		} else if (m->as == ORACLE_AS_GID && f->mem_size == 16) {
			oracle_expect_gid(o, frame, m->tshark, occurrence, mem);
		} else {
			oracle_expect_bytes(o, frame, m->tshark, occurrence,
					    mem, f->mem_size);
		}
	}
}

void
oracle_add_tshark_arg(struct oracle *o, const char *arg)
{
	o->args = xrealloc(o->args, (o->nargs + 1) * sizeof(char *));
	o->args[o->nargs++] = xstrdup(arg);
}

void
oracle_pkt_init(struct mpd_pkt *p, enum mpd_link link, uint32_t dest_qp,
		uint32_t src_qp)
{
	memset(p, 0, sizeof(*p));
	p->link = link;
	p->lrh.vl = dest_qp == 0 ? MPD_VL15 : (uint8_t)rnd_bits(3);
	p->lrh.sl = (uint8_t)rnd_bits(4);
	p->lrh.dlid = (uint16_t)(1 + rnd_bits(14));
	p->lrh.slid = (uint16_t)(1 + rnd_bits(14));
	/* QP0 never carries a GRH (IBA 14.2.2.1: SMPs are local) */
	p->has_grh = link == MPD_LINK_ROCE_V1 ||
		     (link == MPD_LINK_IB && dest_qp != 0 && (rnd64() & 1));
	p->grh.ip_ver = 6;
	p->grh.tclass = (uint8_t)rnd64();
	p->grh.flow_label = (uint32_t)rnd_bits(20);
	p->grh.next_hdr = MPD_GRH_NEXT_HDR_IBA;
	p->grh.hop_limit = (uint8_t)rnd64();
	p->grh.sgid[0] = 0xfe;
	p->grh.sgid[1] = 0x80;
	rnd_bytes(p->grh.sgid + 8, 8);
	p->grh.dgid[0] = 0xfe;
	p->grh.dgid[1] = 0x80;
	rnd_bytes(p->grh.dgid + 8, 8);
	rnd_bytes(p->eth.dst, 6);
	rnd_bytes(p->eth.src, 6);
	p->eth.dst[0] &= 0xfe;	/* unicast */
	p->eth.src[0] &= 0xfe;
	p->eth.has_vlan = link != MPD_LINK_IB && (rnd64() & 3) == 0;
	p->eth.vlan_tci = (uint16_t)(1 + rnd_bits(11));
	p->ip_ver = (rnd64() & 1) ? 6 : 4;
	p->ip4.tos = (uint8_t)(rnd_bits(6) << 2);
	p->ip4.id = (uint16_t)rnd64();
	p->ip4.frag = 0x4000;	/* DF */
	p->ip4.ttl = (uint8_t)(1 + rnd_bits(7));
	p->ip4.src[0] = 10;
	rnd_bytes(p->ip4.src + 1, 3);
	p->ip4.dst[0] = 10;
	rnd_bytes(p->ip4.dst + 1, 3);
	p->ip6.tclass = (uint8_t)rnd64();
	p->ip6.flow_label = (uint32_t)rnd_bits(20);
	p->ip6.hop_limit = (uint8_t)(1 + rnd_bits(7));
	memcpy(p->ip6.src, p->grh.sgid, 16);
	memcpy(p->ip6.dst, p->grh.dgid, 16);
	p->udp.sport = (uint16_t)(0xc000 | rnd_bits(14));
	p->udp.dport = MPD_ROCE_UDP_PORT;
	p->bth.opcode = MPD_OP_UD_SEND_ONLY;
	p->bth.se = (uint8_t)rnd_bits(1);
	p->bth.mig_req = (uint8_t)rnd_bits(1);
	p->bth.pkey = (uint16_t)(0x8000 | rnd_bits(15));
	p->bth.dest_qp = dest_qp;
	p->bth.ack_req = (uint8_t)rnd_bits(1);
	p->bth.psn = (uint32_t)rnd_bits(24);
	p->deth.qkey = dest_qp == 1 ? 0x80010000u : (uint32_t)rnd64();
	if (dest_qp == 0)
		p->deth.qkey = 0;
	p->deth.src_qp = src_qp;
}

static uint32_t
bswap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) |
	       (v << 24);
}

static void
expect_be32(struct oracle *o, int fr, const char *field, uint32_t v)
{
	uint8_t be[4];

	mpd_put_be32(be, v);
	oracle_expect_bytes(o, fr, field, 0, be, 4);
}

/* The extension headers the opcode carries (mpd_op_hdrs()), and no field
 * of those it does not. The stock dissector shows the AtomicETH's VA and
 * R_Key under the RETH's field names. */
static void
expect_ext_headers(struct oracle *o, int fr, const struct mpd_pkt *p)
{
	uint32_t h = mpd_op_hdrs(p->bth.opcode);

	if (h & MPD_HDR_DETH) {
		oracle_expect_uint(o, fr, "infiniband.deth.q_key", 0,
				   p->deth.qkey);
		oracle_expect_uint(o, fr, "infiniband.deth.srcqp", 0,
				   p->deth.src_qp);
	} else {
		oracle_expect_absent(o, fr, "infiniband.deth.q_key");
	}
	if (h & MPD_HDR_RETH) {
		oracle_expect_uint(o, fr, "infiniband.reth.va", 0, p->reth.va);
		oracle_expect_uint(o, fr, "infiniband.reth.r_key", 0,
				   p->reth.rkey);
		oracle_expect_uint(o, fr, "infiniband.reth.dmalen", 0,
				   p->reth.dma_len);
	} else {
		oracle_expect_absent(o, fr, "infiniband.reth.dmalen");
	}
	if (h & MPD_HDR_ATOMIC) {
		oracle_expect_uint(o, fr, "infiniband.reth.va", 0,
				   p->atomic.va);
		oracle_expect_uint(o, fr, "infiniband.reth.r_key", 0,
				   p->atomic.rkey);
		oracle_expect_uint(o, fr, "infiniband.atomiceth.swapdt", 0,
				   p->atomic.swap_add);
		oracle_expect_uint(o, fr, "infiniband.atomiceth.cmpdt", 0,
				   p->atomic.compare);
	} else {
		oracle_expect_absent(o, fr, "infiniband.atomiceth.swapdt");
	}
	if (!(h & (MPD_HDR_RETH | MPD_HDR_ATOMIC)))
		oracle_expect_absent(o, fr, "infiniband.reth.va");
	if (h & MPD_HDR_AETH) {
		oracle_expect_uint(o, fr, "infiniband.aeth.syndrome", 0,
				   p->aeth.syndrome);
		oracle_expect_uint(o, fr, "infiniband.aeth.msn", 0,
				   p->aeth.msn);
	} else {
		oracle_expect_absent(o, fr, "infiniband.aeth.syndrome");
	}
	if (h & MPD_HDR_ATOMIC_ACK)
		oracle_expect_uint(o, fr, "infiniband.atomicacketh.origremdt",
				   0, p->atomic_orig);
	else
		oracle_expect_absent(o, fr, "infiniband.atomicacketh.origremdt");
	if (h & MPD_HDR_IMM)
		expect_be32(o, fr, "infiniband.immdt", p->imm);
	else
		oracle_expect_absent(o, fr, "infiniband.immdt");
	if (h & MPD_HDR_IETH)
		expect_be32(o, fr, "infiniband.ieth", p->ieth);
	else
		oracle_expect_absent(o, fr, "infiniband.ieth");
}

static void
expect_headers(struct oracle *o, int fr, const struct mpd_pkt *p)
{
	if (p->link == MPD_LINK_IB) {
		oracle_expect_uint(o, fr, "infiniband.lrh.vl", 0, p->lrh.vl);
		oracle_expect_uint(o, fr, "infiniband.lrh.lver", 0, p->lrh.lver);
		oracle_expect_uint(o, fr, "infiniband.lrh.sl", 0, p->lrh.sl);
		oracle_expect_uint(o, fr, "infiniband.lrh.lnh", 0, p->lrh.lnh);
		oracle_expect_uint(o, fr, "infiniband.lrh.dlid", 0, p->lrh.dlid);
		oracle_expect_uint(o, fr, "infiniband.lrh.pktlen", 0,
				   p->lrh.pkt_len);
		oracle_expect_uint(o, fr, "infiniband.lrh.slid", 0, p->lrh.slid);
		oracle_expect_uint(o, fr, "infiniband.variant.crc", 0,
				   (uint16_t)(p->vcrc >> 8 | p->vcrc << 8));
	} else {
		oracle_expect_bytes(o, fr, "eth.dst", 0, p->eth.dst, 6);
		oracle_expect_bytes(o, fr, "eth.src", 0, p->eth.src, 6);
		if (p->eth.has_vlan)
			oracle_expect_uint(o, fr, "vlan.id", 0,
					   p->eth.vlan_tci & 0xfff);
		else
			oracle_expect_absent(o, fr, "vlan.id");
	}
	if (p->has_grh) {
		oracle_expect_uint(o, fr, "infiniband.grh.ipver", 0,
				   p->grh.ip_ver);
		oracle_expect_uint(o, fr, "infiniband.grh.tclass", 0,
				   p->grh.tclass);
		oracle_expect_uint(o, fr, "infiniband.grh.flowlabel", 0,
				   p->grh.flow_label);
		oracle_expect_uint(o, fr, "infiniband.grh.paylen", 0,
				   p->grh.pay_len);
		oracle_expect_uint(o, fr, "infiniband.grh.nxthdr", 0,
				   p->grh.next_hdr);
		oracle_expect_uint(o, fr, "infiniband.grh.hoplmt", 0,
				   p->grh.hop_limit);
		oracle_expect_gid(o, fr, "infiniband.grh.sgid", 0, p->grh.sgid);
		oracle_expect_gid(o, fr, "infiniband.grh.dgid", 0, p->grh.dgid);
	} else {
		oracle_expect_absent(o, fr, "infiniband.grh.ipver");
	}
	if (p->link == MPD_LINK_ROCE_V2 && p->ip_ver == 4) {
		oracle_expect_uint(o, fr, "ip.len", 0, p->ip4.total_len);
		oracle_expect_uint(o, fr, "ip.dsfield", 0, p->ip4.tos);
		oracle_expect_uint(o, fr, "ip.ttl", 0, p->ip4.ttl);
		oracle_expect_uint(o, fr, "ip.checksum", 0, p->ip4.csum);
		oracle_expect_uint(o, fr, "ip.checksum.status", 0, 1);
	} else if (p->link == MPD_LINK_ROCE_V2) {
		oracle_expect_uint(o, fr, "ipv6.plen", 0, p->ip6.pay_len);
		oracle_expect_uint(o, fr, "ipv6.flow", 0, p->ip6.flow_label);
		oracle_expect_uint(o, fr, "ipv6.hlim", 0, p->ip6.hop_limit);
		oracle_expect_uint(o, fr, "udp.checksum", 0, p->udp.csum);
		oracle_expect_uint(o, fr, "udp.checksum.status", 0, 1);
	}
	if (p->link == MPD_LINK_ROCE_V2) {
		oracle_expect_uint(o, fr, "udp.srcport", 0, p->udp.sport);
		oracle_expect_uint(o, fr, "udp.dstport", 0, p->udp.dport);
		oracle_expect_uint(o, fr, "udp.length", 0, p->udp.len);
	}
	oracle_expect_uint(o, fr, "infiniband.bth.opcode", 0, p->bth.opcode);
	oracle_expect_uint(o, fr, "infiniband.bth.se", 0, p->bth.se);
	oracle_expect_uint(o, fr, "infiniband.bth.m", 0, p->bth.mig_req);
	oracle_expect_uint(o, fr, "infiniband.bth.padcnt", 0, p->bth.pad_cnt);
	oracle_expect_uint(o, fr, "infiniband.bth.tver", 0, p->bth.tver);
	oracle_expect_uint(o, fr, "infiniband.bth.p_key", 0, p->bth.pkey);
	oracle_expect_uint(o, fr, "infiniband.bth.destqp", 0, p->bth.dest_qp);
	oracle_expect_uint(o, fr, "infiniband.bth.a", 0, p->bth.ack_req);
	oracle_expect_uint(o, fr, "infiniband.bth.psn", 0, p->bth.psn);
	expect_ext_headers(o, fr, p);
	/* tshark reads the ICRC bytes big-endian; IB sends them LSB first */
	oracle_expect_uint(o, fr, "infiniband.invariant.crc", 0,
			   bswap32(p->icrc));
}

static int
write_frame(struct oracle *o, const char *label, enum mpd_link link,
	    const uint8_t *f, size_t n)
{
	uint64_t ts = 1700000000000000000ull + (uint64_t)o->nframes * 1000;
	int rc;

	if (link == MPD_LINK_IB)
		rc = mpd_pcapng_write_exported(o->w, (uint32_t)o->if_ib, ts,
					       MPD_PCAPNG_DIR_OUT,
					       "infiniband",
					       MPD_EXP_PDU_NO_PORT,
					       MPD_EXP_PDU_NO_PORT, f, n);
	else
		rc = mpd_pcapng_write(o->w, (uint32_t)o->if_eth, ts,
				      MPD_PCAPNG_DIR_OUT, f, n);
	if (rc) {
		o->write_err = rc;
		return 0;
	}
	o->labels = xrealloc(o->labels, (o->nframes + 1) * sizeof(char *));
	o->labels[o->nframes] = xstrdup(label);
	return ++o->nframes;
}

int
oracle_add_frame(struct oracle *o, const char *label, enum mpd_link link,
		 const void *frame, size_t len)
{
	return write_frame(o, label, link, frame, len);
}

int
oracle_add_pkt(struct oracle *o, const char *label, struct mpd_pkt *p,
	       const void *payload, size_t len)
{
	uint8_t buf[4096];
	int n = mpd_pkt_encode(p, payload, len, buf, sizeof(buf));
	int fr;

	if (!ok(n > 0, "%s: encode (%s)", label,
		n > 0 ? "ok" : mpd_strerror(n)))
		return 0;
	fr = write_frame(o, label, p->link, buf, (size_t)n);
	if (fr)
		expect_headers(o, fr, p);
	return fr;
}

/* ---- running tshark and checking ------------------------------------- */

struct row {
	char **cols;		/* one per -e field, after the fixed ones */
};

#define FIXED_COLS 3	/* frame.number, _ws.malformed, _ws.expert.severity */

static char *
read_all(int fd)
{
	size_t n = 0, cap = 65536;
	char *s = xrealloc(NULL, cap);
	ssize_t r;

	while ((r = read(fd, s + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (cap - n < 4096) {
			cap *= 2;
			s = xrealloc(s, cap);
		}
	}
	s[n] = '\0';
	return s;
}

static char *
run_tshark(struct oracle *o)
{
	const char *argv[64 + 2 * 1024];
	char errpath[160];
	size_t a = 0, i;
	int pfd[2], status;
	pid_t pid;
	char *out;

	if (getuid() == 0) {
		argv[a++] = "setpriv";
		argv[a++] = "--reuid=nobody";
		argv[a++] = "--regid=nogroup";
		argv[a++] = "--clear-groups";
		argv[a++] = "--";
	}
	argv[a++] = "tshark";
	argv[a++] = "-n";
	argv[a++] = "-r";
	argv[a++] = o->path;
	argv[a++] = "-o";
	argv[a++] = "ip.check_checksum:TRUE";
	argv[a++] = "-o";
	argv[a++] = "udp.check_checksum:TRUE";
	/* checks of the stock dissector stay stock even where the madpmd
	 * plugin is installed globally (harmless when it is not) */
	if (!o->plugin_dir) {
		argv[a++] = "--disable-protocol";
		argv[a++] = "madpmd";
	}
	for (i = 0; i < o->nargs && a < 48; i++)
		argv[a++] = o->args[i];
	argv[a++] = "-T";
	argv[a++] = "fields";
	argv[a++] = "-E";
	argv[a++] = "separator=/t";
	argv[a++] = "-E";
	argv[a++] = "occurrence=a";
	argv[a++] = "-E";
	argv[a++] = "aggregator=|";
	argv[a++] = "-E";
	argv[a++] = "quote=n";
	argv[a++] = "-e";
	argv[a++] = "frame.number";
	argv[a++] = "-e";
	argv[a++] = "_ws.malformed";
	argv[a++] = "-e";
	argv[a++] = "_ws.expert.severity";
	for (i = 0; i < o->nfields && a < sizeof(argv) / sizeof(argv[0]) - 3;
	     i++) {
		argv[a++] = "-e";
		argv[a++] = o->fields[i];
	}
	argv[a] = NULL;

	snprintf(errpath, sizeof(errpath), "%s/tshark.err", o->dir);
	if (pipe(pfd) != 0)
		return NULL;
	pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		int efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(pfd[1], STDOUT_FILENO);
		if (efd >= 0)
			dup2(efd, STDERR_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		if (getuid() == 0)
			setenv("HOME", "/tmp", 1);
		if (o->plugin_dir)
			setenv("WIRESHARK_PLUGIN_DIR", o->plugin_dir, 1);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	out = read_all(pfd[0]);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		FILE *f = fopen(errpath, "r");
		char line[512];

		tap_diag("tshark exited with status %d",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		while (f && fgets(line, sizeof(line), f))
			tap_diag("tshark: %s", strtok(line, "\n"));
		if (f)
			fclose(f);
		free(out);
		return NULL;
	}
	return out;
}

/* Split s in place on sep; returns count, pointers in v (at most max). */
static size_t
split(char *s, char sep, char **v, size_t max)
{
	size_t n = 0;

	v[n++] = s;
	while (*s && n < max) {
		if (*s == sep) {
			*s = '\0';
			v[n++] = s + 1;
		}
		s++;
	}
	return n;
}

static int
parse_uint(const char *s, uint64_t *v)
{
	char *end;

	if (strcmp(s, "True") == 0 || strcmp(s, "true") == 0) {
		*v = 1;
		return 0;
	}
	if (strcmp(s, "False") == 0 || strcmp(s, "false") == 0) {
		*v = 0;
		return 0;
	}
	if (!*s)
		return -1;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		*v = strtoull(s + 2, &end, 16);
	else
		*v = strtoull(s, &end, 10);
	return errno || end == s ? -1 : 0;
}

static void
hex_normalise(const char *in, char *out, size_t cap)
{
	size_t n = 0;

	for (; *in && n + 1 < cap; in++)
		if (isxdigit((unsigned char)*in))
			out[n++] = (char)tolower((unsigned char)*in);
	out[n] = '\0';
}

static int
check_one(const struct expect *e, char *val)
{
	char *occ[1024];
	size_t nocc = *val ? split(val, '|', occ, 1024) : 0;
	const char *v;
	uint64_t u;

	if (e->kind == EXP_ABSENT) {
		if (nocc == 0)
			return 1;
		tap_diag("frame %d %s: expected absent, tshark shows '%s'",
			 e->frame, e->field, occ[0]);
		return 0;
	}
	if (e->occ >= nocc) {
		tap_diag("frame %d %s[%u]: tshark shows only %zu occurrence(s)",
			 e->frame, e->field, e->occ, nocc);
		return 0;
	}
	v = occ[e->occ];
	switch (e->kind) {
	case EXP_UINT:
		if (parse_uint(v, &u) == 0 && u == e->u)
			return 1;
		tap_diag("frame %d %s[%u]: tshark '%s', codec 0x%llx (%llu)",
			 e->frame, e->field, e->occ, v,
			 (unsigned long long)e->u, (unsigned long long)e->u);
		return 0;
	case EXP_STR:
		if (strcmp(v, e->s) == 0)
			return 1;
		tap_diag("frame %d %s[%u]: tshark '%s', codec '%s'", e->frame,
			 e->field, e->occ, v, e->s);
		return 0;
	case EXP_BYTES: {
		char h[4096];

		hex_normalise(v, h, sizeof(h));
		if (strcmp(h, e->s) == 0)
			return 1;
		tap_diag("frame %d %s[%u]: tshark '%s', codec '%s'", e->frame,
			 e->field, e->occ, h, e->s);
		return 0;
	}
	case EXP_GID: {
		uint8_t g[16];
		char want[INET6_ADDRSTRLEN];

		if (inet_pton(AF_INET6, v, g) == 1 &&
		    memcmp(g, e->gid, 16) == 0)
			return 1;
		inet_ntop(AF_INET6, e->gid, want, sizeof(want));
		tap_diag("frame %d %s[%u]: tshark '%s', codec '%s'", e->frame,
			 e->field, e->occ, v, want);
		return 0;
	}
	default:
		return 0;
	}
}

void
oracle_set_plugin_dir(struct oracle *o, const char *dir)
{
	free(o->plugin_dir);
	o->plugin_dir = xstrdup(dir);
}

struct mpd_pcapng *
oracle_writer(struct oracle *o, uint32_t *if_eth, uint32_t *if_upper)
{
	if (if_eth)
		*if_eth = (uint32_t)o->if_eth;
	if (if_upper)
		*if_upper = (uint32_t)o->if_ib;
	return o->w;
}

int
oracle_add_written(struct oracle *o, const char *label)
{
	o->labels = xrealloc(o->labels, (o->nframes + 1) * sizeof(char *));
	o->labels[o->nframes] = xstrdup(label);
	return ++o->nframes;
}

void
oracle_allow_errors(struct oracle *o, int frame)
{
	o->allow_err = xrealloc(o->allow_err, (o->nallow + 1) * sizeof(int));
	o->allow_err[o->nallow++] = frame;
}

static int
error_allowed(const struct oracle *o, int frame)
{
	size_t i;

	for (i = 0; i < o->nallow; i++)
		if (o->allow_err[i] == frame)
			return 1;
	return 0;
}

int
oracle_run(struct oracle *o)
{
	size_t ncols = FIXED_COLS + o->nfields, i, nlines;
	char **lines, **cols, *out, *p;
	int *bad, failures = 0, fr;

	if (mpd_pcapng_close(o->w) != 0 || o->write_err) {
		o->w = NULL;
		ok(0, "capture %s written", o->path);
		return 1;
	}
	o->w = NULL;
	chmod(o->path, 0644);
	out = run_tshark(o);
	if (!ok(out != NULL, "tshark decodes %s", o->path))
		return 1;

	lines = xrealloc(NULL, ((size_t)o->nframes + 1) * sizeof(char *));
	for (i = 0; i <= (size_t)o->nframes; i++)
		lines[i] = NULL;
	nlines = 0;
	for (p = strtok(out, "\n"); p; p = strtok(NULL, "\n")) {
		long n = strtol(p, NULL, 10);

		if (n >= 1 && n <= o->nframes)
			lines[n] = p;
		nlines++;
	}
	failures += !ok(nlines == (size_t)o->nframes,
			"tshark reports %zu frames, %d written", nlines,
			o->nframes);

	bad = calloc((size_t)o->nframes + 1, sizeof(int));
	cols = xrealloc(NULL, ((size_t)o->nframes + 1) * ncols *
			      sizeof(char *));
	for (fr = 1; fr <= o->nframes; fr++) {
		char **c = cols + (size_t)fr * ncols;

		if (!lines[fr]) {
			bad[fr]++;
			continue;
		}
		if (split(lines[fr], '\t', c, ncols) != ncols) {
			tap_diag("frame %d: short tshark line", fr);
			bad[fr]++;
			continue;
		}
		if (*c[1]) {
			tap_diag("frame %d (%s): tshark marks it malformed", fr,
				 o->labels[fr - 1]);
			bad[fr]++;
		}
		/* PI_ERROR is 0x00800000 */
		if (strstr(c[2], "8388608") && !error_allowed(o, fr)) {
			tap_diag("frame %d (%s): expert info of error severity",
				 fr, o->labels[fr - 1]);
			bad[fr]++;
		}
	}
	for (i = 0; i < o->nexp; i++) {
		const struct expect *e = &o->exp[i];
		size_t col;
		char val[65536];

		if (e->frame < 1 || e->frame > o->nframes || !lines[e->frame])
			continue;
		for (col = 0; col < o->nfields; col++)
			if (strcmp(o->fields[col], e->field) == 0)
				break;
		snprintf(val, sizeof(val), "%s",
			 cols[(size_t)e->frame * ncols + FIXED_COLS + col]);
		if (!check_one(e, val))
			bad[e->frame]++;
	}
	for (fr = 1; fr <= o->nframes; fr++) {
		size_t n = 0;

		for (i = 0; i < o->nexp; i++)
			n += o->exp[i].frame == fr;
		failures += !ok(bad[fr] == 0,
				"frame %d (%s): tshark agrees on %zu fields",
				fr, o->labels[fr - 1], n);
	}
	free(bad);
	free(cols);
	free(lines);
	free(out);
	return failures;
}

void
oracle_expect_mad_hdr(struct oracle *o, int fr, const struct mpd_mad *m,
		      bool with_status)
{
	oracle_expect_uint(o, fr, "infiniband.mad.baseversion", 0,
			   m->hdr.base_version);
	oracle_expect_uint(o, fr, "infiniband.mad.mgmtclass", 0,
			   m->hdr.mgmt_class);
	oracle_expect_uint(o, fr, "infiniband.mad.classversion", 0,
			   m->hdr.class_version);
	oracle_expect_uint(o, fr, "infiniband.mad.method", 0, m->hdr.method);
	if (with_status)
		oracle_expect_uint(o, fr, "infiniband.mad.status", 0,
				   m->hdr.status);
	oracle_expect_uint(o, fr, "infiniband.mad.transactionid", 0,
			   m->hdr.tid);
	oracle_expect_uint(o, fr, "infiniband.mad.attributeid", 0,
			   m->hdr.attr_id);
	oracle_expect_uint(o, fr, "infiniband.mad.attributemodifier", 0,
			   m->hdr.attr_mod);
}
