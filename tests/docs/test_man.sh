#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The manual pages (man/): each renders without a single groff or man-db
# warning, each is installed by man/meson.build, and the pages cannot
# drift from the code: every long option of madpmd, madpmd-run,
# madpmd-extcap and madpmd-pktgen, and every net_hca devarg, is in its page.
# Usage: test_man.sh <source root>
set -u
top=$1
mandir=$top/man
n=0
fail=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

for tool in man groff; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP no $tool: install man-db and groff-base (scripts/setup does)"
		exit 0
	fi
done

pages=()
for f in "$mandir"/*.[1-9] "$mandir"/*.[1-9]madpmd; do
	[ -e "$f" ] && pages+=("$f")
done
[ ${#pages[@]} -gt 0 ]
ok $? "pages found in man/ (${#pages[@]})"

# Debian's lintian check (man-db, with the preprocessors a page asks for),
# then groff with every warning on
for f in "${pages[@]}"; do
	name=${f##*/}
	warn=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l -Tutf8 -Z "$f" 2>&1 >/dev/null)
	[ -z "$warn" ]
	ok $? "$name: man --warnings says nothing"
	[ -n "$warn" ] && printf '# %s\n' "$warn"
	warn=$(groff -man -t -ww -z -rCHECKSTYLE=3 "$f" 2>&1)
	[ -z "$warn" ]
	ok $? "$name: groff -ww says nothing"
	[ -n "$warn" ] && printf '# %s\n' "$warn"
	text=$(groff -man -t -Tutf8 -P-cbou "$f" 2>/dev/null)
	printf '%s\n' "$text" | grep -q '^NAME' &&
		printf '%s\n' "$text" | grep -q '^SEE ALSO'
	ok $? "$name: renders, with NAME and SEE ALSO"
	grep -q "'$name'" "$mandir/meson.build" ||
		grep -q "'${name%.3madpmd}'" "$mandir/meson.build"
	ok $? "$name: installed by man/meson.build"
done

# The long options of a C getopt_long table: the lines between the line
# matching $2 and the next "};".
table_opts() {
	awk -v start="$2" '
		$0 ~ start { on = 1; next }
		on && /^[ \t]*};/ { exit }
		on { print }' "$1" |
		grep -o '{ "[a-z0-9-]*"' | sed 's/^{ "//; s/"$//'
}

# every word of a list on stdin appears in page $1 in the pattern $2 (an
# extended regular expression, OPT standing for the word as roff writes
# it: each "-" escaped as "\-")
check_in_page() {
	local page=$1 pattern=$2 what=$3 opt found=0 word re missing=()

	while read -r opt; do
		[ -n "$opt" ] || continue
		found=$((found + 1))
		word=${opt//-/'\\-'}
		re=${pattern//OPT/"$word"}
		grep -qE -- "$re" "$mandir/$page" || missing+=("$opt")
	done
	[ "$found" -gt 0 ] && [ ${#missing[@]} = 0 ]
	ok $? "$page: all $found $what documented${missing:+ (missing: ${missing[*]})}"
}

longopt='\\-\\-OPT([^a-z\\]|\\[^-]|$)'
check_in_page madpmd.1 "$longopt" "long options of madpmd.c" < <(
	table_opts "$top/pmd/launcher/madpmd.c" 'lopts\[\] = \{')
check_in_page madpmd-extcap.1 "$longopt" "long options of madpmd-extcap.c" < <(
	table_opts "$top/dissector/extcap/madpmd-extcap.c" 'long_opts\[\] = \{')
check_in_page madpmd-pktgen.1 "$longopt" "long options of madpmd-pktgen.c" < <(
	table_opts "$top/lib/tools/madpmd-pktgen.c" 'opts\[\] = \{')
# madpmd-run.sh: its case patterns "--name)" and "--name=*)"
check_in_page madpmd-run.1 "$longopt" "long options of madpmd-run.sh" < <(
	grep -oE '^[[:space:]]*(-[a-z]\|)?--[a-z-]+(=\*)?\)' \
		"$top/lib/umad/madpmd-run.sh" |
	grep -oE -- '--[a-z-]+' | sed 's/^--//' | sort -u)
# net_hca's devargs: the ARG_* keys of its kvargs list, each a tagged
# paragraph "key=..."
check_in_page net_hca.7 '^\.B[IR]? OPT=' "devargs of rte_eth_hca.c" < <(
	sed -n 's/^#define ARG_[A-Z_]*[[:space:]]*"\([a-z_]*\)"$/\1/p' \
		"$top/pmd/ethdev/rte_eth_hca.c")

# madpmd-capture(5): each record's size as records.h defines it opens its
# section ("24 bytes; ...", "56 bytes (52 ...", ...), and the magic
rec=$top/lib/include/madpmd/records.h
for def in HDR_LEN:"Common header" WC_LEN:"Kind 2" CM_FIXED:"Kind 3" \
	   PORT_LEN:"Kind 4" QP_LEN:"Kind 5"; do
	size=$(sed -n "s/^#define MPD_REC_${def%%:*}[[:space:]]*\([0-9]*\).*/\1/p" "$rec")
	awk -v sec="${def#*:}" -v size="$size" '
		/^\.SS / { on = index($0, sec) > 0; next }
		on && /^[0-9]+ bytes/ { found = ($1 == size); exit }
		END { exit !found }' "$mandir/madpmd-capture.5"
	ok $? "madpmd-capture.5: ${def#*:} is ${size:-?} bytes, as MPD_REC_${def%%:*}"
done
magic=$(sed -n 's/^#define MPD_REC_MAGIC[[:space:]]*\(0x[0-9a-f]*\)u.*/\1/p' "$rec")
grep -q "^0	4	magic	T{\$" "$mandir/madpmd-capture.5" &&
	grep -q "^$magic, " "$mandir/madpmd-capture.5"
ok $? "madpmd-capture.5: the magic is ${magic:-?}, as MPD_REC_MAGIC"

echo "1..$n"
exit $fail
