/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "madpmd" tap: one entry per matched MAD response (class, the request's
 * method and attribute, response time), and two readers of it:
 *  - service response time tables (Statistics > Service Response Time >
 *    madpmd in Wireshark, "-z madpmd,srt[,filter]" in tshark): one table
 *    per management class, one row per request method;
 *  - "tshark -z madpmd,rtt[,filter]", a plain table of the same times.
 */
#include <stdio.h>
#include <string.h>

#include <epan/packet.h>
#include <epan/srt_table.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>
#include <wsutil/nstime.h>

#include "madpmd.h"

int madpmd_tap = -1;

struct rtt_row {
	guint8 mgmt_class;
	guint8 method;
	guint32 count;
	nstime_t min, max, total;
};

struct rtt_stats {
	char *filter;
	GHashTable *rows;	/* class << 8 | method -> struct rtt_row */
};

static void
rtt_reset(void *arg)
{
	struct rtt_stats *rs = arg;

	g_hash_table_remove_all(rs->rows);
}

static tap_packet_status
rtt_packet(void *arg, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
	   const void *data, tap_flags_t flags _U_)
{
	struct rtt_stats *rs = arg;
	const struct madpmd_rtt_tap *t = data;
	guint key = (guint)t->mgmt_class << 8 | t->method;
	struct rtt_row *r = g_hash_table_lookup(rs->rows, GUINT_TO_POINTER(key));

	if (!r) {
		r = g_new0(struct rtt_row, 1);
		r->mgmt_class = t->mgmt_class;
		r->method = t->method;
		r->min = t->rtt;
		r->max = t->rtt;
		nstime_set_zero(&r->total);
		g_hash_table_insert(rs->rows, GUINT_TO_POINTER(key), r);
	}
	r->count++;
	if (nstime_cmp(&t->rtt, &r->min) < 0)
		r->min = t->rtt;
	if (nstime_cmp(&t->rtt, &r->max) > 0)
		r->max = t->rtt;
	nstime_add(&r->total, &t->rtt);
	return TAP_PACKET_REDRAW;
}

static gint
row_cmp(gconstpointer a, gconstpointer b)
{
	const struct rtt_row *x = *(const struct rtt_row *const *)a;
	const struct rtt_row *y = *(const struct rtt_row *const *)b;

	if (x->mgmt_class != y->mgmt_class)
		return x->mgmt_class - y->mgmt_class;
	return x->method - y->method;
}

static double
ms(const nstime_t *t)
{
	return nstime_to_msec(t);
}

static void
rtt_draw(void *arg)
{
	struct rtt_stats *rs = arg;
	GPtrArray *rows = g_ptr_array_new();
	GHashTableIter it;
	gpointer k, v;
	guint i;

	g_hash_table_iter_init(&it, rs->rows);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_ptr_array_add(rows, v);
	g_ptr_array_sort(rows, row_cmp);

	printf("\n");
	printf("===================================================================================\n");
	printf("MAD response times (madpmd)\n");
	printf("Filter: %s\n", rs->filter ? rs->filter : "");
	printf("%-32s %-20s %8s %12s %12s %12s\n", "Class", "Method", "Count",
	       "Min(ms)", "Max(ms)", "Avg(ms)");
	for (i = 0; i < rows->len; i++) {
		const struct rtt_row *r = g_ptr_array_index(rows, i);
		char cls[40], meth[40];

		snprintf(cls, sizeof(cls), "%s (0x%02x)",
			 madpmd_class_name(r->mgmt_class), r->mgmt_class);
		snprintf(meth, sizeof(meth), "%s (0x%02x)",
			 madpmd_method_name(r->method), r->method);
		printf("%-32s %-20s %8u %12.6f %12.6f %12.6f\n", cls, meth,
		       r->count, ms(&r->min), ms(&r->max),
		       r->count ? ms(&r->total) / r->count : 0.0);
	}
	printf("===================================================================================\n");
	g_ptr_array_free(rows, TRUE);
}

static void
rtt_finish(void *arg)
{
	struct rtt_stats *rs = arg;

	g_hash_table_destroy(rs->rows);
	g_free(rs->filter);
	g_free(rs);
}

static void
rtt_init(const char *opt_arg, void *userdata _U_)
{
	struct rtt_stats *rs = g_new0(struct rtt_stats, 1);
	const char *filter = NULL;
	GString *err;

	if (!strncmp(opt_arg, "madpmd,rtt,", 11))
		filter = opt_arg + 11;
	rs->filter = g_strdup(filter);
	rs->rows = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
					 g_free);
	err = register_tap_listener("madpmd", rs, filter, 0, rtt_reset,
				    rtt_packet, rtt_draw, rtt_finish);
	if (err) {
		fprintf(stderr, "tshark: madpmd,rtt: %s\n", err->str);
		g_string_free(err, TRUE);
		rtt_finish(rs);
	}
}

static stat_tap_ui rtt_ui = {
	REGISTER_STAT_GROUP_RESPONSE_TIME,
	"MAD response times (madpmd)",
	"madpmd,rtt",
	rtt_init,
	0,
	NULL
};

/* ---- service response time tables ------------------------------------ */

/* One table per class, in this order in the SRT array; the last one takes
 * every other class. */
static const guint8 srt_classes[] = {
	0x01, 0x81, 0x03, 0x04, 0x05, 0x06, 0x07, 0x21,
};
#define SRT_TABLES	(G_N_ELEMENTS(srt_classes) + 1)
#define SRT_ROWS	0x20	/* request methods are below 0x20 */

static guint
srt_table_of(guint8 mgmt_class)
{
	guint i;

	for (i = 0; i < G_N_ELEMENTS(srt_classes); i++)
		if (srt_classes[i] == mgmt_class)
			return i;
	return G_N_ELEMENTS(srt_classes);
}

static void
srt_init(struct register_srt *srt _U_, GArray *srt_array)
{
	guint i;
	int m;

	for (i = 0; i < SRT_TABLES; i++) {
		gboolean other = i == G_N_ELEMENTS(srt_classes);
		char *name, *filter;
		srt_stat_table *t;

		if (other) {
			name = g_strdup("Other classes");
			filter = NULL;
		} else {
			name = g_strdup_printf("%s (0x%02x)",
					       madpmd_class_name(srt_classes[i]),
					       srt_classes[i]);
			filter = g_strdup_printf("madpmd.mad.mgmtclass == 0x%02x && madpmd.mad.method",
						 srt_classes[i]);
		}
		t = init_srt_table(name, name, srt_array, SRT_ROWS, "Method",
				   filter, NULL);
		for (m = 0; m < SRT_ROWS; m++) {
			char *row = g_strdup_printf("%s (0x%02x)",
						    madpmd_method_name((guint8)m),
						    m);

			init_srt_table_row(t, m, row);
			g_free(row);
		}
		g_free(name);
		g_free(filter);
	}
}

static tap_packet_status
srt_packet(void *pss, packet_info *pinfo, epan_dissect_t *edt _U_,
	   const void *prv, tap_flags_t flags _U_)
{
	srt_data_t *data = pss;
	const struct madpmd_rtt_tap *t = prv;
	guint ti = srt_table_of(t->mgmt_class);
	srt_stat_table *st;

	if (ti >= data->srt_array->len)
		return TAP_PACKET_DONT_REDRAW;
	st = g_array_index(data->srt_array, srt_stat_table *, ti);
	add_srt_table_data(st, t->method < SRT_ROWS ? t->method : 0,
			   &t->req_time, pinfo);
	return TAP_PACKET_REDRAW;
}

void
madpmd_stats_register(void)
{
	madpmd_tap = register_tap("madpmd");
	register_stat_tap_ui(&rtt_ui, NULL);
	register_srt_table(proto_madpmd, "madpmd", SRT_TABLES, srt_packet,
			   srt_init, NULL);
}
