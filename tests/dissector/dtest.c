/* SPDX-License-Identifier: BSD-3-Clause */
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
#include "madpmd/records.h"
#include "dtest.h"
#include "tap.h"

static char plugin_root[64];
static char home_dir[96];

static void
cleanup(void)
{
	char p[160];

	if (!plugin_root[0] || getenv("MADPMD_KEEP_PCAP"))
		return;
	snprintf(p, sizeof(p), "%s/4.0/epan/madpmd.so", plugin_root);
	unlink(p);
	snprintf(p, sizeof(p), "%s/4.0/epan", plugin_root);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/4.0", plugin_root);
	rmdir(p);
	/* tshark may leave a profile behind in its HOME */
	snprintf(p, sizeof(p), "rm -rf '%s'", plugin_root);
	if (system(p) != 0)
		fprintf(stderr, "# could not remove %s\n", plugin_root);
}

static int
copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	close(out);
	return n < 0 ? -1 : 0;
}

static char *
run(const char *const *argv_in, int *status)
{
	const char *argv[128];
	size_t a = 0, i, n = 0, cap = 65536;
	int pfd[2], st;
	char *out;
	ssize_t r;
	pid_t pid;

	if (getuid() == 0) {
		argv[a++] = "setpriv";
		argv[a++] = "--reuid=nobody";
		argv[a++] = "--regid=nogroup";
		argv[a++] = "--clear-groups";
		argv[a++] = "--";
	}
	for (i = 0; argv_in[i] && a < 126; i++)
		argv[a++] = argv_in[i];
	argv[a] = NULL;
	if (pipe(pfd) != 0)
		return NULL;
	pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		int dn = open("/dev/null", O_WRONLY);

		dup2(pfd[1], STDOUT_FILENO);
		if (!getenv("DTEST_STDERR") && dn >= 0)
			dup2(dn, STDERR_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		setenv("HOME", home_dir, 1);
		setenv("WIRESHARK_PLUGIN_DIR", plugin_root, 1);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	out = malloc(cap);
	while (out && (r = read(pfd[0], out + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (cap - n < 4096) {
			char *q = realloc(out, cap *= 2);

			if (!q) {
				free(out);
				out = NULL;
			}
			out = q;
		}
	}
	close(pfd[0]);
	waitpid(pid, &st, 0);
	if (out)
		out[n] = '\0';
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out;
}

char *
dtest_tshark(const char *file, const char *const *args)
{
	const char *argv[100];
	size_t a = 0, i;
	int st;
	char *out;

	argv[a++] = "tshark";
	argv[a++] = "-n";
	argv[a++] = "-r";
	argv[a++] = file;
	for (i = 0; args && args[i] && a < 98; i++)
		argv[a++] = args[i];
	argv[a] = NULL;
	out = run(argv, &st);
	if (out && st != 0) {
		tap_diag("tshark exited with %d", st);
		free(out);
		return NULL;
	}
	return out;
}

char *
dtest_tshark_g(const char *what)
{
	const char *argv[] = { "tshark", "-G", what, NULL };
	int st;

	return run(argv, &st);
}

const char *
dtest_init(const char *name)
{
	const char *so = getenv("MADPMD_PLUGIN");
	char p[160];
	char *plugins;

	(void)name;
	tap_seed();
	if (!so || access(so, R_OK) != 0) {
		printf("1..0 # SKIP MADPMD_PLUGIN does not name the built "
		       "plugin (run through meson test)\n");
		return NULL;
	}
	snprintf(plugin_root, sizeof(plugin_root),
		 "/tmp/madpmd-plugin-XXXXXX");
	if (!mkdtemp(plugin_root)) {
		printf("1..0 # SKIP cannot create a plugin directory: %s\n",
		       strerror(errno));
		return NULL;
	}
	atexit(cleanup);
	chmod(plugin_root, 0755);
	snprintf(p, sizeof(p), "%s/4.0", plugin_root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/4.0/epan", plugin_root);
	mkdir(p, 0755);
	snprintf(home_dir, sizeof(home_dir), "%s/home", plugin_root);
	mkdir(home_dir, 0777);
	chmod(home_dir, 0777);
	snprintf(p, sizeof(p), "%s/4.0/epan/madpmd.so", plugin_root);
	if (copy_file(so, p) != 0) {
		printf("1..0 # SKIP cannot copy %s: %s\n", so, strerror(errno));
		return NULL;
	}
	chmod(p, 0644);
	if (getenv("MADPMD_SAN_PRELOAD")) {
		/* sanitized plugin: its runtimes must be in tshark from the
		 * start. tshark's own leaks at exit are not ours to report;
		 * extcap helpers (not instrumented) hang under the preload,
		 * so point tshark at an empty extcap directory. */
		setenv("LD_PRELOAD", getenv("MADPMD_SAN_PRELOAD"), 1);
		setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1", 1);
		setenv("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1", 1);
		snprintf(p, sizeof(p), "%s/no-extcap", plugin_root);
		mkdir(p, 0755);
		setenv("WIRESHARK_EXTCAP_DIR", p, 1);
		tap_diag("sanitized plugin: tshark runs with LD_PRELOAD=%s",
			 getenv("MADPMD_SAN_PRELOAD"));
	}
	plugins = dtest_tshark_g("plugins");
	if (!plugins || !strstr(plugins, "madpmd.so")) {
#if defined(__SANITIZE_ADDRESS__)
		printf("1..0 # SKIP sanitized build: stock tshark cannot load "
		       "an AddressSanitizer-instrumented plugin (the ASan "
		       "runtime must come first in the process)\n");
		free(plugins);
		return NULL;
#else
		tap_diag("tshark -G plugins does not list madpmd.so");
#endif
	}
	free(plugins);
	return plugin_root;
}

struct oracle *
dtest_oracle(const char *name)
{
	struct oracle *o = oracle_new(name);

	if (o)
		oracle_set_plugin_dir(o, plugin_root);
	return o;
}

uint64_t
dtest_next_ts(uint64_t step_ns)
{
	static uint64_t ts = 1700000000000000000ull;

	ts += step_ns ? step_ns : 1000;
	return ts;
}

static void
expect_transport(struct oracle *o, int fr, const struct mpd_pkt *p,
		 bool corrupt)
{
	if (p->link == MPD_LINK_IB) {
		oracle_expect_uint(o, fr, "madpmd.lrh.vl", 0, p->lrh.vl);
		oracle_expect_uint(o, fr, "madpmd.lrh.sl", 0, p->lrh.sl);
		oracle_expect_uint(o, fr, "madpmd.lrh.lnh", 0, p->lrh.lnh);
		oracle_expect_uint(o, fr, "madpmd.lrh.dlid", 0, p->lrh.dlid);
		oracle_expect_uint(o, fr, "madpmd.lrh.slid", 0, p->lrh.slid);
		oracle_expect_uint(o, fr, "madpmd.lrh.pktlen", 0,
				   p->lrh.pkt_len);
		oracle_expect_uint(o, fr, "madpmd.vcrc", 0, p->vcrc);
		if (!corrupt)
			oracle_expect_uint(o, fr, "madpmd.vcrc.status", 0, 1);
	}
	if (p->has_grh) {
		oracle_expect_uint(o, fr, "madpmd.grh.tclass", 0,
				   p->grh.tclass);
		oracle_expect_uint(o, fr, "madpmd.grh.flowlabel", 0,
				   p->grh.flow_label);
		oracle_expect_uint(o, fr, "madpmd.grh.hoplmt", 0,
				   p->grh.hop_limit);
		oracle_expect_gid(o, fr, "madpmd.grh.sgid", 0, p->grh.sgid);
		oracle_expect_gid(o, fr, "madpmd.grh.dgid", 0, p->grh.dgid);
	}
	oracle_expect_uint(o, fr, "madpmd.bth.opcode", 0, p->bth.opcode);
	oracle_expect_uint(o, fr, "madpmd.bth.pkey", 0, p->bth.pkey);
	oracle_expect_uint(o, fr, "madpmd.bth.destqp", 0, p->bth.dest_qp);
	oracle_expect_uint(o, fr, "madpmd.bth.psn", 0, p->bth.psn);
	oracle_expect_uint(o, fr, "madpmd.deth.qkey", 0, p->deth.qkey);
	oracle_expect_uint(o, fr, "madpmd.deth.srcqp", 0, p->deth.src_qp);
	oracle_expect_uint(o, fr, "madpmd.icrc", 0, p->icrc);
	if (!corrupt)
		oracle_expect_uint(o, fr, "madpmd.icrc.status", 0, 1);
}

int
dtest_add_pkt(struct oracle *o, const char *label, struct mpd_pkt *p,
	      const void *payload, size_t len, uint64_t ts, int corrupt_at,
	      uint8_t *frame_out, size_t *frame_len)
{
	uint8_t buf[4096];
	uint32_t if_eth, if_up;
	struct mpd_pcapng *w = oracle_writer(o, &if_eth, &if_up);
	int n = mpd_pkt_encode(p, payload, len, buf, sizeof(buf)), rc, fr;

	if (!ok(n > 0, "%s: encode (%s)", label,
		n > 0 ? "ok" : mpd_strerror(n)))
		return 0;
	/* a random TTL under 5 draws the IP dissector's own expert note */
	if (p->link == MPD_LINK_ROCE_V2 && p->ip_ver == 4 && p->ip4.ttl < 5) {
		p->ip4.ttl = 64;
		n = mpd_pkt_encode(p, payload, len, buf, sizeof(buf));
	}
	if (corrupt_at >= 0 && corrupt_at < n)
		buf[corrupt_at] ^= 0x01;
	if (!ts)
		ts = dtest_next_ts(0);
	if (p->link == MPD_LINK_IB)
		rc = mpd_pcapng_write_exported(w, if_up, ts, MPD_PCAPNG_DIR_OUT,
					       MPD_REC_DISSECTOR_IB,
					       MPD_EXP_PDU_NO_PORT,
					       MPD_EXP_PDU_NO_PORT, buf,
					       (size_t)n);
	else
		rc = mpd_pcapng_write(w, if_eth, ts, MPD_PCAPNG_DIR_OUT, buf,
				      (size_t)n);
	if (!ok(rc == 0, "%s: written", label))
		return 0;
	fr = oracle_add_written(o, label);
	expect_transport(o, fr, p, corrupt_at >= 0);
	if (frame_out && frame_len) {
		memcpy(frame_out, buf, (size_t)n);
		*frame_len = (size_t)n;
	}
	return fr;
}

void
dtest_field_name(char *out, size_t cap, const char *prefix, const char *member)
{
	size_t n = (size_t)snprintf(out, cap, "%s.", prefix);
	const char *m;

	for (m = member; *m && n + 1 < cap; m++) {
		if (*m == '[') {
			m = strchr(m, ']');
			if (!m)
				break;
			continue;
		}
		if (*m != '_')
			out[n++] = (char)tolower((unsigned char)*m);
	}
	out[n] = '\0';
}

static bool
is_text(const char *m)
{
	size_t n = strlen(m);

	return strcmp(m, "desc") == 0 ||
	       (n >= 9 && strcmp(m + n - 9, "node_desc") == 0) ||
	       (n >= 12 && strcmp(m + n - 12, "service_name") == 0);
}

void
dtest_fill_layout(const struct mpd_layout *l, void *obj)
{
	uint16_t i;

	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];
		uint8_t *mem = (uint8_t *)obj + f->mem_off;

		if (f->kind == MPD_FK_UINT) {
			mpd_field_store(f, obj, rnd_bits(f->bits));
		} else if (is_text(f->name)) {
			size_t k, n = 1 + rnd64() % (f->mem_size - 1);
			static const char cs[] =
				"abcdefghijklmnopqrstuvwxyz0123456789-";

			memset(mem, 0, f->mem_size);
			for (k = 0; k < n; k++)
				mem[k] = (uint8_t)cs[rnd64() % (sizeof(cs) - 1)];
		} else {
			rnd_bytes(mem, f->mem_size);
		}
	}
}

void
dtest_expect_layout(struct oracle *o, int frame, const struct mpd_layout *l,
		    const void *obj, const char *prefix, unsigned int occ)
{
	uint16_t i, j;

	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];
		const uint8_t *mem = (const uint8_t *)obj + f->mem_off;
		char name[160], other[160];
		unsigned int k = 0, n = 0;

		dtest_field_name(name, sizeof(name), prefix, f->name);
		for (j = 0; j < l->nfields; j++) {
			dtest_field_name(other, sizeof(other), prefix,
					 l->fields[j].name);
			if (strcmp(name, other) == 0) {
				n++;
				if (j < i)
					k++;
			}
		}
		if (f->kind == MPD_FK_UINT) {
			oracle_expect_uint(o, frame, name, occ * n + k,
					   mpd_field_load(f, obj));
		} else if (is_text(f->name)) {
			char s[257];

			memcpy(s, mem, f->mem_size);
			s[f->mem_size] = '\0';
			oracle_expect_str(o, frame, name, occ * n + k, s);
		} else if (f->mem_size == 16 && strstr(f->name, "gid")) {
			oracle_expect_gid(o, frame, name, occ * n + k, mem);
		} else {
			oracle_expect_bytes(o, frame, name, occ * n + k, mem,
					    f->mem_size);
		}
	}
}

void
dtest_expect_mad_hdr(struct oracle *o, int frame, const struct mpd_mad_hdr *h)
{
	oracle_expect_uint(o, frame, "madpmd.mad.basever", 0, h->base_version);
	oracle_expect_uint(o, frame, "madpmd.mad.mgmtclass", 0, h->mgmt_class);
	oracle_expect_uint(o, frame, "madpmd.mad.classver", 0,
			   h->class_version);
	oracle_expect_uint(o, frame, "madpmd.mad.method", 0, h->method);
	oracle_expect_uint(o, frame, "madpmd.mad.tid", 0, h->tid);
	oracle_expect_uint(o, frame, "madpmd.mad.attributeid", 0, h->attr_id);
	oracle_expect_uint(o, frame, "madpmd.mad.attributemodifier", 0,
			   h->attr_mod);
	if (h->mgmt_class != MPD_CLASS_SUBN_DR)
		oracle_expect_uint(o, frame, "madpmd.mad.status", 0, h->status);
}
