/* SPDX-License-Identifier: BSD-3-Clause */
/* The launcher's interactive prompt (librte_cmdline, testpmd style). */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <cmdline_socket.h>
#include <rte_ethdev.h>

#include "fabric.h"
#include "launcher.h"
#include "node/node.h"
#include "rte_pmd_hca.h"

static struct fabric *fab;

static const char *const port_states[] = {
	"NOP", "Down", "Init", "Armed", "Active",
};
static const char *const phys_states[] = {
	"NOP", "Sleep", "Polling", "Disabled", "Training", "LinkUp",
	"ErrorRecovery", "PhyTest",
};

/* A port without an ethdev: a switch's or a served CA's */
static void
node_port_state(const struct fab_port *p, uint8_t *st, uint8_t *ph,
		uint16_t *lid, uint16_t *sm)
{
	if (p->sw)
		fab_switch_port_state(p, st, ph, lid, sm);
	else
		fab_ca_port_state(p, st, ph, lid, sm);
}

uint64_t
launcher_ports_signature(const struct fabric *f)
{
	uint64_t h = 14695981039346656037ull;	/* FNV-1a over the states */
	unsigned int i;

	for (i = 0; i < f->nports; i++) {
		const struct fab_port *p = &f->port[i];
		struct rte_pmd_hca_port_info pi;
		uint8_t st = 0, ph = 0;
		uint16_t lid = 0, sm = 0;
		uint64_t v;

		if (!fab_port_ethdev(p)) {
			node_port_state(p, &st, &ph, &lid, &sm);
		} else if (p->hca &&
			   rte_pmd_hca_port_info_get(p->port_id, &pi) == 0) {
			st = pi.port_state;
			ph = pi.phys_state;
			lid = pi.lid;
			sm = pi.sm_lid;
		}
		v = (uint64_t)st << 48 | (uint64_t)ph << 32 |
		    (uint64_t)lid << 16 | sm;
		h = (h ^ v) * 1099511628211ull;
	}
	return h;
}

void
launcher_show_ports(const struct fabric *f, FILE *out)
{
	unsigned int i;

	fprintf(out, "%-4s %-20s %-10s %-5s %-7s %-9s %-6s %-6s %s\n", "idx",
		"port", "ethdev", "link", "state", "phys", "LID", "SMLID",
		"peer");
	for (i = 0; i < f->nports; i++) {
		const struct fab_port *p = &f->port[i];
		struct rte_pmd_hca_port_info pi;
		char name[FAB_NAME_LEN + 8], peer[FAB_NAME_LEN + 8];

		if (p->hca || !fab_port_ethdev(p))
			snprintf(name, sizeof(name), "%s:%u", p->node, p->num);
		else
			snprintf(name, sizeof(name), "%s", p->dev);
		if (p->peer < 0)
			snprintf(peer, sizeof(peer), "-");
		else if (f->port[p->peer].hca ||
			 !fab_port_ethdev(&f->port[p->peer]))
			snprintf(peer, sizeof(peer), "%s:%u",
				 f->port[p->peer].node, f->port[p->peer].num);
		else
			snprintf(peer, sizeof(peer), "%s",
				 f->port[p->peer].dev);
		if (!fab_port_ethdev(p)) {
			uint8_t st, ph;
			uint16_t lid, sm;

			node_port_state(p, &st, &ph, &lid, &sm);
			/* a served CA: no ethdev, no clients */
			fprintf(out, "%-4u %-20s %-10s %-5s %-7s %-9s %-6u %-6u %s\n",
				i, name, p->sw ? "switch" : "served",
				p->link == MPD_LINK_IB ? "ib" : "roce",
				st < 5 ? port_states[st] : "?",
				ph < 8 ? phys_states[ph] : "?", lid, sm, peer);
			continue;
		}
		if (!p->hca ||
		    rte_pmd_hca_port_info_get(p->port_id, &pi) != 0) {
			fprintf(out, "%-4u %-20s %-10s %-5s %-7s %-9s %-6s %-6s %s\n",
				i, name, p->dev, "eth", "-", "-", "-", "-",
				peer);
			continue;
		}
		fprintf(out, "%-4u %-20s %-10s %-5s %-7s %-9s %-6u %-6u %s\n",
			i, name, p->dev, pi.link_roce ? "roce" : "ib",
			pi.port_state < 5 ? port_states[pi.port_state] : "?",
			pi.phys_state < 8 ? phys_states[pi.phys_state] : "?",
			pi.lid, pi.sm_lid, peer);
	}
}

uint64_t
launcher_xstat(uint16_t port_id, const char *name)
{
	uint64_t id, v = 0;

	if (rte_eth_xstats_get_id_by_name(port_id, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port_id, &id, &v, 1) != 1)
		return 0;
	return v;
}

void
launcher_show_summary(const struct fabric *f, FILE *out)
{
	static const char *const names[] = {
		"rmpp_sent", "rmpp_received", "rmpp_timeouts", "rmpp_failed",
		"qp_pkts_out", "qp_retransmits", "qp_seq_naks", "qp_duplicates",
		"cm_ids", "cm_conns", "cm_conns_established",
		"qp_rnr_naks_sent", "qp_rnr_naks_rcvd", "qp_rnr_retry_exc",
		"netif_to_host", "netif_from_host", "netif_dropped",
	};
	unsigned int i, j;

	if (f->shared_yields)
		fprintf(out, "madpmd: lcore: %" PRIu64 " yields to a client spinning on its CPU\n",
			f->shared_yields);
	if (f->lcore_moves)
		fprintf(out, "madpmd: lcore: %" PRIu64 " moves off a client's CPU to one with nothing to run\n",
			f->lcore_moves);
	fab_trunk_stats(f, out);
	for (i = 0; i < f->nports; i++) {
		const struct fab_port *p = &f->port[i];
		uint64_t v[RTE_DIM(names)];

		if (p->lost || p->duplicated || p->reordered)
			fprintf(out, "madpmd: wire from %s:%u: %" PRIu64 " lost, %" PRIu64 " duplicated, %" PRIu64 " reordered\n",
				p->node, p->num, p->lost, p->duplicated,
				p->reordered);
		if (p->ew.on && !p->trunk)
			fprintf(out, "madpmd: %s, IB link of %s: %s, %" PRIu64 " IB frames in, %" PRIu64 " out, heartbeats %" PRIu64 " in, %" PRIu64 " out, %" PRIu64 " times lost; dropped: %" PRIu64 " not ours (EtherType, MAC), %" PRIu64 " shorter than their LRH or bad heartbeats, %" PRIu64 " without headroom, %" PRIu64 " from strangers (not the trained peer)\n",
				p->dev, p->peer >= 0 ? f->port[p->peer].dev : "-",
				p->ew.up ? "up" : "down", p->ew.rx, p->ew.tx,
				p->ew.hellos_rx, p->ew.hellos_tx, p->ew.downs,
				p->ew.not_ib, p->ew.bad, p->ew.no_room,
				p->ew.strangers);
		if (!p->hca)
			continue;
		for (j = 0; j < RTE_DIM(names); j++)
			v[j] = launcher_xstat(p->port_id, names[j]);
		if (v[0] || v[1] || v[2] || v[3])
			fprintf(out, "madpmd: %s:%u RMPP: %" PRIu64 " sent, %" PRIu64 " received, %" PRIu64 " time-outs, %" PRIu64 " failed\n",
				p->node, p->num, v[0], v[1], v[2], v[3]);
		if (v[4])
			fprintf(out, "madpmd: %s:%u QPs: %" PRIu64 " packets sent, %" PRIu64 " time-outs sent again, %" PRIu64 " sequence NAKs, %" PRIu64 " duplicates\n",
				p->node, p->num, v[4], v[5], v[6], v[7]);
		if (v[11] || v[12] || v[13])
			fprintf(out, "madpmd: %s:%u RNR NAKs: %" PRIu64 " sent, %" PRIu64 " heard, %" PRIu64 " WRs out of RNR retries\n",
				p->node, p->num, v[11], v[12], v[13]);
		if (v[8] || v[9] || v[10])
			fprintf(out, "madpmd: %s:%u CM: %" PRIu64 " ids, %" PRIu64 " connections live, %" PRIu64 " connections made\n",
				p->node, p->num, v[8], v[9], v[10]);
		if (v[14] || v[15] || v[16])
			fprintf(out, "madpmd: %s:%u IP (madpmd-run --net): %" PRIu64 " frames to the node's network namespace, %" PRIu64 " from it, %" PRIu64 " dropped\n",
				p->node, p->num, v[14], v[15], v[16]);
	}
}

int
launcher_show_counters(const struct fabric *f, int idx, FILE *out)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	uint16_t pid = f->port[idx].port_id;
	int n, i, shown = -1;

	n = rte_eth_xstats_get_names(pid, NULL, 0);
	if (n <= 0)
		return -1;
	names = calloc((size_t)n, sizeof(*names));
	xs = calloc((size_t)n, sizeof(*xs));
	if (!names || !xs || rte_eth_xstats_get_names(pid, names, n) != n ||
	    rte_eth_xstats_get(pid, xs, n) != n)
		goto out;
	shown = 0;
	for (i = 0; i < n; i++) {
		if (!xs[i].value)
			continue;
		fprintf(out, "  %-40s %" PRIu64 "\n", names[xs[i].id].name,
			xs[i].value);
		shown++;
	}
out:
	free(names);
	free(xs);
	return shown;
}

/* ---- commands ----------------------------------------------------------- */

/*
 * librte_cmdline writes its prompt and messages to the fd, we write
 * through stdio: flush after each command, or with stdout a pipe or a
 * file the answers would come out in a block after everything else.
 */
static void
cmd_done(void)
{
	fflush(stdout);
}

struct cmd_show_ports { cmdline_fixed_string_t show, ports; };

static void
cmd_show_ports_parsed(void *res __rte_unused, struct cmdline *cl __rte_unused,
		      void *data __rte_unused)
{
	launcher_show_ports(fab, stdout);
	cmd_done();
}

static cmdline_parse_token_string_t tok_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_ports, show, "show");
static cmdline_parse_token_string_t tok_ports =
	TOKEN_STRING_INITIALIZER(struct cmd_show_ports, ports, "ports");
static cmdline_parse_inst_t cmd_show_ports = {
	.f = cmd_show_ports_parsed,
	.help_str = "show ports: port states, LIDs and wires",
	.tokens = { (void *)&tok_show, (void *)&tok_ports, NULL },
};

struct cmd_show_cnt {
	cmdline_fixed_string_t show, counters, port;
};

static int
find_or_say(const char *spec)
{
	int idx = fab_find_node_port(fab, spec);

	if (idx < 0)
		printf("no port \"%s\": give node:port, node or an ethdev name (see show ports)\n",
		       spec);
	return idx;
}

static void
cmd_show_cnt_parsed(void *res, struct cmdline *cl __rte_unused,
		    void *data __rte_unused)
{
	struct cmd_show_cnt *r = res;
	int idx = find_or_say(r->port), n;

	if (idx < 0)
		goto out;
	if (!fab_port_ethdev(&fab->port[idx])) {
		printf("%s has no ethdev: its PMA counts it (perfquery LID PORT)\n",
		       r->port);
		goto out;
	}
	n = launcher_show_counters(fab, idx, stdout);
	if (n == 0)
		printf("%s: every counter is zero\n", r->port);
	else if (n < 0)
		printf("%s: its counters cannot be read\n", r->port);
out:
	cmd_done();
}

static cmdline_parse_token_string_t tok_show2 =
	TOKEN_STRING_INITIALIZER(struct cmd_show_cnt, show, "show");
static cmdline_parse_token_string_t tok_counters =
	TOKEN_STRING_INITIALIZER(struct cmd_show_cnt, counters, "counters");
static cmdline_parse_token_string_t tok_cnt_port =
	TOKEN_STRING_INITIALIZER(struct cmd_show_cnt, port, NULL);
static cmdline_parse_inst_t cmd_show_cnt = {
	.f = cmd_show_cnt_parsed,
	.help_str = "show counters <node:port>: the port's non-zero counters",
	.tokens = { (void *)&tok_show2, (void *)&tok_counters,
		    (void *)&tok_cnt_port, NULL },
};

struct cmd_link {
	cmdline_fixed_string_t set, link, port, state;
};

static void
cmd_link_parsed(void *res, struct cmdline *cl __rte_unused,
		void *data __rte_unused)
{
	struct cmd_link *r = res;
	int idx = find_or_say(r->port), rc;
	bool up = strcmp(r->state, "up") == 0;
	struct fab_port *p;

	if (idx < 0)
		goto out;
	p = &fab->port[idx];
	if (p->sw || p->ca) {
		/* the polling lcore owns the switches and served CAs: it
		 * takes the request */
		__atomic_store_n(&p->link_req, up ? FAB_LINK_UP : FAB_LINK_DOWN,
				 __ATOMIC_RELEASE);
		if (p->ca)
			__atomic_store_n(&fab->ca_link_reqs, true,
					 __ATOMIC_RELEASE);
		/* the lcore's next look at the cables' ends takes it */
		hca_link_changed();
		goto out;
	}
	rc = up ? rte_eth_dev_set_link_up(p->port_id) :
		  rte_eth_dev_set_link_down(p->port_id);
	if (rc) {
		printf("set link %s %s: %s\n", r->port, r->state,
		       rte_strerror(-rc));
		goto out;
	}
	/* the port at the other end of the cable loses its carrier with it
	 * (Down, Polling) and trains again after, as a real link's far end
	 * does: the lcore sees to it on the port's LSC event */
out:
	cmd_done();
}

static cmdline_parse_token_string_t tok_set =
	TOKEN_STRING_INITIALIZER(struct cmd_link, set, "set");
static cmdline_parse_token_string_t tok_link =
	TOKEN_STRING_INITIALIZER(struct cmd_link, link, "link");
static cmdline_parse_token_string_t tok_link_port =
	TOKEN_STRING_INITIALIZER(struct cmd_link, port, NULL);
static cmdline_parse_token_string_t tok_link_state =
	TOKEN_STRING_INITIALIZER(struct cmd_link, state, "up#down");
static cmdline_parse_inst_t cmd_link = {
	.f = cmd_link_parsed,
	.help_str = "set link <node:port> up|down: take the link down (Disabled) or bring it back (a net_hca, switch or served CA port)",
	.tokens = { (void *)&tok_set, (void *)&tok_link, (void *)&tok_link_port,
		    (void *)&tok_link_state, NULL },
};

struct cmd_cap_start { cmdline_fixed_string_t capture, start, file; };

static void
cmd_cap_start_parsed(void *res, struct cmdline *cl __rte_unused,
		     void *data __rte_unused)
{
	struct cmd_cap_start *r = res;
	char *req = strdup(r->file);

	if (!req)
		return;
	fab->cap_request = req;
	printf("capturing every HCA port to %s\n", r->file);
	cmd_done();
}

static cmdline_parse_token_string_t tok_capture =
	TOKEN_STRING_INITIALIZER(struct cmd_cap_start, capture, "capture");
static cmdline_parse_token_string_t tok_start =
	TOKEN_STRING_INITIALIZER(struct cmd_cap_start, start, "start");
static cmdline_parse_token_string_t tok_file =
	TOKEN_STRING_INITIALIZER(struct cmd_cap_start, file, NULL);
static cmdline_parse_inst_t cmd_cap_start = {
	.f = cmd_cap_start_parsed,
	.help_str = "capture start <file.pcapng>: capture every HCA port",
	.tokens = { (void *)&tok_capture, (void *)&tok_start,
		    (void *)&tok_file, NULL },
};

struct cmd_cap_stop { cmdline_fixed_string_t capture, stop; };

static void
cmd_cap_stop_parsed(void *res __rte_unused, struct cmdline *cl __rte_unused,
		    void *data __rte_unused)
{
	char *req = strdup("");

	if (req)
		fab->cap_request = req;
}

static cmdline_parse_token_string_t tok_capture2 =
	TOKEN_STRING_INITIALIZER(struct cmd_cap_stop, capture, "capture");
static cmdline_parse_token_string_t tok_stop =
	TOKEN_STRING_INITIALIZER(struct cmd_cap_stop, stop, "stop");
static cmdline_parse_inst_t cmd_cap_stop = {
	.f = cmd_cap_stop_parsed,
	.help_str = "capture stop: close the capture",
	.tokens = { (void *)&tok_capture2, (void *)&tok_stop, NULL },
};

struct cmd_quit { cmdline_fixed_string_t quit; };

static void
cmd_quit_parsed(void *res __rte_unused, struct cmdline *cl,
		void *data __rte_unused)
{
	cmdline_quit(cl);
}

static cmdline_parse_token_string_t tok_quit =
	TOKEN_STRING_INITIALIZER(struct cmd_quit, quit, "quit");
static cmdline_parse_inst_t cmd_quit = {
	.f = cmd_quit_parsed,
	.help_str = "quit: stop the fabric and exit",
	.tokens = { (void *)&tok_quit, NULL },
};

/* help lists the table it is in */
static cmdline_parse_inst_t cmd_help;
static cmdline_parse_inst_t cmd_other;

/* the commands; cmd_other, last, takes every line none of them does */
static cmdline_parse_ctx_t ctx[] = {
	&cmd_help, &cmd_show_ports, &cmd_show_cnt, &cmd_link, &cmd_cap_start,
	&cmd_cap_stop, &cmd_quit, &cmd_other, NULL,
};
#define NCMDS	(RTE_DIM(ctx) - 2)

/* the same table without cmd_other, to ask whether a line is a command */
static cmdline_parse_ctx_t cmds_only[NCMDS + 1];
static struct cmdline *cmds_cl;

/*
 * A token that matches a whole line no command takes: instead of
 * librte_cmdline's bare "Bad arguments" or "Command not found", the line
 * gets the usage of the commands it starts like (two full matches would be
 * "Ambiguous", so it must refuse every line a command parses).
 */
struct cmd_other_res {
	char line[256];
};

static int
other_parse(cmdline_parse_token_hdr_t *tk __rte_unused, const char *buf,
	    void *res, unsigned int ressize)
{
	size_t n = strcspn(buf, "\r\n#");

	/* a command's line: its parsed length (>= 0) */
	if (!n || cmdline_parse_check(cmds_cl, buf) >= 0)
		return -1;
	if (res && ressize)
		snprintf(res, ressize, "%.*s", (int)n, buf);
	return (int)n;
}

static struct cmdline_token_ops other_ops = { .parse = other_parse };
static cmdline_parse_token_hdr_t tok_other = {
	.ops = &other_ops,
	.offset = offsetof(struct cmd_other_res, line),
};

static void
cmd_other_parsed(void *res, struct cmdline *c __rte_unused,
		 void *data __rte_unused)
{
	const struct cmd_other_res *r = res;
	char word[64];
	size_t n, k;
	unsigned int i, shown = 0;

	k = strspn(r->line, " \t");
	n = strcspn(r->line + k, " \t");
	snprintf(word, sizeof(word), "%.*s", (int)n, r->line + k);
	n = strlen(word);
	for (i = 0; i < NCMDS; i++) {
		const char *h = ctx[i]->help_str, *what;

		if (strncmp(h, word, n) || (h[n] != ' ' && h[n] != ':'))
			continue;
		/* help_str: "syntax: what it does" */
		what = strstr(h, ": ");
		printf("%s %.*s\n", shown++ ? "      " : "usage:",
		       (int)(what ? what - h : (ptrdiff_t)strlen(h)), h);
	}
	if (!shown)
		printf("%s: no such command (help lists them)\n", word);
	cmd_done();
}

static cmdline_parse_inst_t cmd_other = {
	.f = cmd_other_parsed,
	.help_str = NULL,
	.tokens = { &tok_other, NULL },
};

struct cmd_help_res { cmdline_fixed_string_t help; };

static void
cmd_help_parsed(void *res __rte_unused, struct cmdline *cl __rte_unused,
		void *data __rte_unused)
{
	unsigned int i;

	for (i = 0; i < NCMDS; i++)
		printf("  %s\n", ctx[i]->help_str);
	printf("A port is node:port, node (its port 1) or an ethdev name.\n");
	cmd_done();
}

static cmdline_parse_token_string_t tok_help =
	TOKEN_STRING_INITIALIZER(struct cmd_help_res, help, "help");
static cmdline_parse_inst_t cmd_help = {
	.f = cmd_help_parsed,
	.help_str = "help: this list",
	.tokens = { (void *)&tok_help, NULL },
};

static struct cmdline *cl;

void
launcher_prompt(struct fabric *f)
{
	unsigned int i;

	fab = f;
	for (i = 0; i < NCMDS; i++)
		cmds_only[i] = ctx[i];
	cmds_only[NCMDS] = NULL;
	cmds_cl = cmdline_new(cmds_only, "", -1, -1);
	if (!cmds_cl) {
		fprintf(stderr, "madpmd: cannot start the prompt\n");
		return;
	}
	cl = cmdline_stdin_new(ctx, "madpmd> ");
	if (!cl) {
		fprintf(stderr, "madpmd: cannot start the prompt\n");
		cmdline_free(cmds_cl);
		cmds_cl = NULL;
		return;
	}
	cmdline_interact(cl);
	cmdline_stdin_exit(cl);
	cl = NULL;
	cmdline_free(cmds_cl);
	cmds_cl = NULL;
}

void
launcher_prompt_quit(void)
{
	if (cl)
		cmdline_quit(cl);
}
