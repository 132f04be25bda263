/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PerfMgt attribute layouts (IBA 16.1) and ClassPortInfo (13.4.8.1):
 * golden bytes written by hand from the IBA tables, random round trips,
 * reserved bits left zero, every error path, and layout sanity.
 */
#include <stdio.h>
#include <string.h>

#include "madpmd/attr.h"
#include "madpmd/mad.h"
#include "madpmd/wire.h"
#include "tap.h"

#define ITERS 100
#define N(a) (sizeof(a) / sizeof((a)[0]))

struct attr {
	const struct mpd_layout *l;
	size_t size;		/* sizeof the host struct */
};

static const struct attr attrs[] = {
	{ &mpd_class_port_info_layout, sizeof(struct mpd_class_port_info) },
	{ &mpd_port_counters_layout, sizeof(struct mpd_port_counters) },
	{ &mpd_port_counters_ext_layout,
	  sizeof(struct mpd_port_counters_ext) },
};

static int
bit_is_set(const uint8_t *b, unsigned int bit)
{
	return (b[bit / 8] >> (7 - bit % 8)) & 1;
}

static void
bit_set(uint8_t *b, unsigned int bit)
{
	b[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
}

/* Every field inside wire_len and inside the host struct, a width its
 * member can hold, whole bytes for byte arrays, and no wire bit or member
 * byte used twice. */
static void
check_layout(const struct mpd_layout *l, size_t size)
{
	uint8_t wire[256] = { 0 }, mem[1024] = { 0 };
	unsigned int bits = 0;
	uint16_t i;
	int bad = 0;

	if (!ok(l->wire_len <= sizeof(wire) && size <= sizeof(mem) &&
		l->nfields > 0, "%s: sizes are sane", l->name))
		return;
	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];
		unsigned int b, m;

		if (f->bits == 0 || f->bit_off + f->bits > 8u * l->wire_len ||
		    f->mem_off + f->mem_size > size ||
		    (f->kind == MPD_FK_UINT &&
		     (f->bits > 8u * f->mem_size || f->bits > 64 ||
		      (f->mem_size != 1 && f->mem_size != 2 &&
		       f->mem_size != 4 && f->mem_size != 8))) ||
		    (f->kind == MPD_FK_BYTES &&
		     (f->bit_off % 8 || f->bits != 8u * f->mem_size))) {
			tap_diag("%s.%s: bad geometry", l->name, f->name);
			bad++;
			continue;
		}
		for (b = f->bit_off; b < f->bit_off + f->bits; b++) {
			if (bit_is_set(wire, b)) {
				tap_diag("%s.%s: wire bit %u used twice",
					 l->name, f->name, b);
				bad++;
				break;
			}
			bit_set(wire, b);
		}
		for (m = f->mem_off; m < f->mem_off + f->mem_size; m++) {
			if (mem[m]++) {
				tap_diag("%s.%s: member byte %u used twice",
					 l->name, f->name, m);
				bad++;
				break;
			}
		}
		bits += f->bits;
		if (f->name == NULL || mpd_layout_find(l, f->name) != f) {
			tap_diag("%s: field %u name not unique", l->name, i);
			bad++;
		}
	}
	ok(bad == 0, "%s: %u fields, %u of %u bits, no overlap", l->name,
	   l->nfields, bits, 8u * l->wire_len);
}

static void
random_fill(const struct mpd_layout *l, void *obj)
{
	uint16_t i;

	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];

		if (f->kind == MPD_FK_UINT)
			mpd_field_store(f, obj, rnd_bits(f->bits));
		else
			rnd_bytes((uint8_t *)obj + f->mem_off, f->mem_size);
	}
}

static void
max_fill(const struct mpd_layout *l, void *obj)
{
	uint16_t i;

	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];

		if (f->kind == MPD_FK_UINT)
			mpd_field_store(f, obj, f->bits >= 64 ? ~0ull :
					(1ull << f->bits) - 1);
		else
			memset((uint8_t *)obj + f->mem_off, 0xff, f->mem_size);
	}
}

static unsigned int
popcount(const uint8_t *b, size_t n)
{
	unsigned int c = 0;
	size_t i;

	for (i = 0; i < n; i++)
		c += (unsigned int)__builtin_popcount(b[i]);
	return c;
}

/* Round trips, reserved bits, and the error paths of one layout. */
static void
check_codec(const struct mpd_layout *l, size_t size)
{
	uint8_t a[1024] __attribute__((aligned(8)));
	uint8_t b[1024] __attribute__((aligned(8)));
	uint8_t wire[256], wire2[256];
	unsigned int bits = 0, it;
	int bad = 0, n;
	uint16_t i;

	for (it = 0; it < ITERS; it++) {
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		random_fill(l, a);
		n = mpd_layout_encode(l, a, wire, sizeof(wire));
		if (n != l->wire_len ||
		    mpd_layout_decode(l, wire, l->wire_len, b) != l->wire_len ||
		    memcmp(a, b, size) != 0 ||
		    mpd_layout_encode(l, b, wire2, l->wire_len) != l->wire_len ||
		    memcmp(wire, wire2, l->wire_len) != 0)
			bad++;
	}
	ok(bad == 0, "%s: %d random round trips", l->name, ITERS);

	/* every field at its maximum sets exactly the field bits */
	memset(a, 0, sizeof(a));
	max_fill(l, a);
	for (i = 0; i < l->nfields; i++)
		bits += l->fields[i].bits;
	n = mpd_layout_encode(l, a, wire, sizeof(wire));
	is_int(n == l->wire_len ? popcount(wire, l->wire_len) : 0, bits,
	       "%s: all-ones fields leave the reserved bits zero", l->name);

	/* a value one bit too wide, field by field */
	bad = 0;
	for (i = 0; i < l->nfields; i++) {
		const struct mpd_field *f = &l->fields[i];

		if (f->kind != MPD_FK_UINT || f->bits >= 8u * f->mem_size)
			continue;
		memset(a, 0, sizeof(a));
		mpd_field_store(f, a, 1ull << f->bits);
		if (mpd_layout_encode(l, a, wire, sizeof(wire)) != MPD_ERANGE) {
			tap_diag("%s.%s: 1 << %u accepted", l->name, f->name,
				 f->bits);
			bad++;
		}
		mpd_field_store(f, a, (1ull << f->bits) - 1);
		if (mpd_layout_encode(l, a, wire, sizeof(wire)) != l->wire_len) {
			tap_diag("%s.%s: maximum refused", l->name, f->name);
			bad++;
		}
	}
	ok(bad == 0, "%s: MPD_ERANGE for every value wider than its field",
	   l->name);

	memset(a, 0, sizeof(a));
	is_int(mpd_layout_encode(l, a, wire, l->wire_len - 1u), MPD_ENOSPC,
	       "%s: encode into %u bytes is MPD_ENOSPC", l->name,
	       l->wire_len - 1u);
	is_int(mpd_layout_encode(l, a, wire, 0), MPD_ENOSPC,
	       "%s: encode into 0 bytes is MPD_ENOSPC", l->name);
	is_int(mpd_layout_decode(l, wire, l->wire_len - 1u, b), MPD_ETRUNC,
	       "%s: decode of %u bytes is MPD_ETRUNC", l->name,
	       l->wire_len - 1u);
	is_int(mpd_layout_decode(l, wire, 0, b), MPD_ETRUNC,
	       "%s: decode of 0 bytes is MPD_ETRUNC", l->name);
}

static void
golden(const struct mpd_layout *l, const void *obj, const uint8_t *want,
       size_t len)
{
	uint8_t wire[256];
	int n = mpd_layout_encode(l, obj, wire, sizeof(wire));
	size_t i;

	is_int(n, (long long)len, "%s: golden value encodes to %zu bytes",
	       l->name, len);
	if (n != (int)len)
		return;
	for (i = 0; i < len; i++)
		if (wire[i] != want[i])
			tap_diag("%s: byte %zu is 0x%02x, IBA says 0x%02x",
				 l->name, i, wire[i], want[i]);
	ok(memcmp(wire, want, len) == 0, "%s: golden bytes", l->name);
}

/* The decoded golden bytes must equal the struct they came from. */
#define GOLDEN(layout, type, objp, want) do {				\
	type back_;							\
									\
	golden(&(layout), (objp), (want), sizeof(want));		\
	memset(&back_, 0, sizeof(back_));				\
	ok(mpd_layout_decode(&(layout), (want), sizeof(want), &back_)	\
	   == (int)sizeof(want) &&					\
	   memcmp(&back_, (objp), sizeof(type)) == 0,			\
	   "%s: golden bytes decode to the golden value",		\
	   (layout).name);						\
} while (0)

static void
golden_class_port_info(void)
{
	struct mpd_class_port_info cpi;
	static const uint8_t want[72] = {
		0x01, 0x01,		/* BaseVersion, ClassVersion */
		0x06, 0x00,		/* CapabilityMask */
		0x00, 0x00, 0x00, 0x32,	/* CapabilityMask2 1, RespTimeValue 18 */
		[8] = 0xfe, 0x80, [23] = 0x02,	/* RedirectGID */
		[24] = 0x10,		/* RedirectTC */
		0x3a, 0xbc, 0xde,	/* RedirectSL 3, RedirectFL 0xabcde */
		0x00, 0x07,		/* 28: RedirectLID */
		0xff, 0xff,		/* 30: RedirectP_Key */
		0x00,			/* 32: reserved */
		0x00, 0x00, 0x01,	/* 33: RedirectQP */
		0x80, 0x01, 0x00, 0x00,	/* 36: RedirectQ_Key */
		[40] = 0xfe, 0x80, [55] = 0x03,	/* TrapGID */
		[56] = 0x20,		/* TrapTC */
		0x5f, 0xff, 0xff,	/* TrapSL 5, TrapFL 0xfffff */
		0x00, 0x09,		/* 60: TrapLID */
		0x7f, 0xff,		/* 62: TrapP_Key */
		0x40,			/* 64: TrapHL */
		0x12, 0x34, 0x56,	/* 65: TrapQP */
		0x01, 0x02, 0x03, 0x04,	/* 68: TrapQ_Key */
	};

	memset(&cpi, 0, sizeof(cpi));
	cpi.base_version = 1;
	cpi.class_version = 1;
	cpi.capability_mask = 0x0600;
	cpi.capability_mask2 = 1;
	cpi.resp_time_value = 18;
	cpi.redirect_gid[0] = 0xfe;
	cpi.redirect_gid[1] = 0x80;
	cpi.redirect_gid[15] = 0x02;
	cpi.redirect_tc = 0x10;
	cpi.redirect_sl = 3;
	cpi.redirect_fl = 0xabcde;
	cpi.redirect_lid = 7;
	cpi.redirect_pkey = 0xffff;
	cpi.redirect_qp = 1;
	cpi.redirect_qkey = 0x80010000;
	cpi.trap_gid[0] = 0xfe;
	cpi.trap_gid[1] = 0x80;
	cpi.trap_gid[15] = 0x03;
	cpi.trap_tc = 0x20;
	cpi.trap_sl = 5;
	cpi.trap_fl = 0xfffff;
	cpi.trap_lid = 9;
	cpi.trap_pkey = 0x7fff;
	cpi.trap_hl = 64;
	cpi.trap_qp = 0x123456;
	cpi.trap_qkey = 0x01020304;
	GOLDEN(mpd_class_port_info_layout, struct mpd_class_port_info, &cpi,
	       want);
}

static void
golden_port_counters(void)
{
	struct mpd_port_counters pc;
	static const uint8_t want[44] = {
		0x00,			/* reserved */
		0x01,			/* PortSelect */
		0xff, 0xff,		/* CounterSelect */
		0x01, 0x02,		/* 4: SymbolErrorCounter */
		0x03, 0x04,		/* 6: LinkErrorRecovery, LinkDowned */
		0x05, 0x06,		/* 8: PortRcvErrors */
		0x07, 0x08,		/* 10: PortRcvRemotePhysicalErrors */
		0x09, 0x0a,		/* 12: PortRcvSwitchRelayErrors */
		0x0b, 0x0c,		/* 14: PortXmitDiscards */
		0x0d, 0x0e,		/* 16: Xmit/RcvConstraintErrors */
		0x0f,			/* 18: CounterSelect2 */
		0x12,	/* 19: LocalLinkIntegrity 1, ExcessiveBufferOverrun 2 */
		0x13, 0x14,		/* 20: QP1Dropped */
		0x15, 0x16,		/* 22: VL15Dropped */
		0x17, 0x18, 0x19, 0x20,	/* 24: PortXmitData */
		0x21, 0x22, 0x23, 0x24,	/* 28: PortRcvData */
		0x25, 0x26, 0x27, 0x28,	/* 32: PortXmitPkts */
		0x29, 0x30, 0x31, 0x32,	/* 36: PortRcvPkts */
		0x33, 0x34, 0x35, 0x36,	/* 40: PortXmitWait */
	};

	memset(&pc, 0, sizeof(pc));
	pc.port_select = 1;
	pc.counter_select = 0xffff;
	pc.symbol_error_counter = 0x0102;
	pc.link_error_recovery_counter = 3;
	pc.link_downed_counter = 4;
	pc.port_rcv_errors = 0x0506;
	pc.port_rcv_remote_physical_errors = 0x0708;
	pc.port_rcv_switch_relay_errors = 0x090a;
	pc.port_xmit_discards = 0x0b0c;
	pc.port_xmit_constraint_errors = 0x0d;
	pc.port_rcv_constraint_errors = 0x0e;
	pc.counter_select2 = 0x0f;
	pc.local_link_integrity_errors = 1;
	pc.excessive_buffer_overrun_errors = 2;
	pc.qp1_dropped = 0x1314;
	pc.vl15_dropped = 0x1516;
	pc.port_xmit_data = 0x17181920;
	pc.port_rcv_data = 0x21222324;
	pc.port_xmit_pkts = 0x25262728;
	pc.port_rcv_pkts = 0x29303132;
	pc.port_xmit_wait = 0x33343536;
	GOLDEN(mpd_port_counters_layout, struct mpd_port_counters, &pc, want);
}

static void
golden_port_counters_ext(void)
{
	struct mpd_port_counters_ext pc;
	static const uint8_t want[72] = {
		0x00, 0xff, 0x00, 0xff,	/* reserved, PortSelect, CounterSelect */
		0x00, 0x00, 0x00, 0x00,	/* reserved */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* XmitData */
		0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, /* RcvData */
		0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, /* XmitPkts */
		0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, /* RcvPkts */
		0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, /* UcXmit */
		0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, /* UcRcv */
		0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, /* McXmit */
		0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, /* McRcv */
	};

	memset(&pc, 0, sizeof(pc));
	pc.port_select = 0xff;
	pc.counter_select = 0x00ff;
	pc.port_xmit_data = 0x0102030405060708ull;
	pc.port_rcv_data = 0x1112131415161718ull;
	pc.port_xmit_pkts = 0x2122232425262728ull;
	pc.port_rcv_pkts = 0x3132333435363738ull;
	pc.port_unicast_xmit_pkts = 0x4142434445464748ull;
	pc.port_unicast_rcv_pkts = 0x5152535455565758ull;
	pc.port_multicast_xmit_pkts = 0x6162636465666768ull;
	pc.port_multicast_rcv_pkts = 0xf1f2f3f4f5f6f7f8ull;
	GOLDEN(mpd_port_counters_ext_layout, struct mpd_port_counters_ext,
	       &pc, want);
}

int
main(void)
{
	size_t i;

	tap_seed();
	for (i = 0; i < N(attrs); i++) {
		check_layout(attrs[i].l, attrs[i].size);
		check_codec(attrs[i].l, attrs[i].size);
		/* PerfMgt data starts at MAD byte 64 and has 192 bytes */
		ok(attrs[i].l->wire_len <= MPD_MAD_LEN - MPD_PERF_DATA_OFF,
		   "%s fits the PerfMgt data area", attrs[i].l->name);
	}
	golden_class_port_info();
	golden_port_counters();
	golden_port_counters_ext();
	is_int(mpd_class_port_info_layout.wire_len, 72,
	       "ClassPortInfo is 72 bytes");
	is_int(mpd_port_counters_ext_layout.wire_len, 72,
	       "PortCountersExtended is 72 bytes");
	return tap_done();
}
