/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugin loads into stock tshark as an unprivileged user, registers its
 * protocol, handles, fields (all madpmd.*, none shared with infiniband.*),
 * preferences and the "-z madpmd,rtt" statistic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtest.h"
#include "tap.h"

static size_t
count_prefix(const char *fields, const char *prefix, size_t *bad)
{
	const char *line = fields;
	size_t n = 0;

	*bad = 0;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		/* F<TAB>name<TAB>abbrev<TAB>... */
		const char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;

		if (line[0] == 'F' && t2 && (!nl || t2 < nl)) {
			const char *ab = t2 + 1;

			if (!strncmp(ab, prefix, strlen(prefix)))
				n++;
		}
		line = nl ? nl + 1 : NULL;
	}
	return n;
}

int
main(void)
{
	static const char *const must[] = {
		"\tmadpmd.rec.kind\t", "\tmadpmd.umad.status\t",
		"\tmadpmd.wc.status\t", "\tmadpmd.cmevent.event\t",
		"\tmadpmd.port.newstate\t", "\tmadpmd.icrc.status\t",
		"\tmadpmd.vcrc.status\t", "\tmadpmd.rmpp.segment\t",
		"\tmadpmd.response_in\t", "\tmadpmd.response_to\t",
		"\tmadpmd.time\t", "\tmadpmd.sa.pathrecord.dlid\t",
		"\tmadpmd.sa.noderecord.nodeinfo.nodeguid\t",
		"\tmadpmd.cm.mra.servicetimeout\t",
		"\tmadpmd.cm.lap.alternate.locallid\t",
		"\tmadpmd.cm.apr.apstatus\t", "\tmadpmd.cm.sidrreq.serviceid\t",
		"\tmadpmd.cm.sidrrep.qpn\t",
		"\tmadpmd.perf.portcountersext.portxmitdata\t",
		"\tmadpmd.perf.portxmitdatasl.portxmitdatasl\t",
		"\tmadpmd.smp.portinfo.capabilitymask2\t",
	};
	char *plugins, *fields, *protos, *prefs, *z;
	size_t i, n, bad;

	if (!dtest_init("load"))
		return 0;
	plugins = dtest_tshark_g("plugins");
	ok(plugins && strstr(plugins, "madpmd.so") &&
	   strstr(plugins, "dissector"), "tshark -G plugins lists madpmd.so");
	protos = dtest_tshark_g("protocols");
	ok(protos && strstr(protos, "\tmadpmd\tmadpmd"),
	   "tshark -G protocols lists madpmd");
	fields = dtest_tshark_g("fields");
	n = fields ? count_prefix(fields, "madpmd.", &bad) : 0;
	ok(n > 400, "%zu madpmd.* fields registered", n);
	for (i = 0; i < sizeof(must) / sizeof(must[0]); i++)
		ok(fields && strstr(fields, must[i]), "field %s registered",
		   must[i] + 1);
	prefs = dtest_tshark_g("defaultprefs");
	ok(prefs && strstr(prefs, "madpmd.take_roce: TRUE") &&
	   strstr(prefs, "madpmd.check_crc: TRUE") &&
	   strstr(prefs, "madpmd.reassemble: TRUE"),
	   "preferences take_roce, check_crc, reassemble (default on)");
	{
		const char *argv_z[] = { "-z", "help", NULL };

		z = dtest_tshark("/dev/null", argv_z);
		free(z);
	}
	z = dtest_tshark_g("dissector-tables");
	ok(z != NULL, "tshark -G dissector-tables runs");
	free(z);
	free(plugins);
	free(protos);
	free(fields);
	free(prefs);
	return tap_done();
}
