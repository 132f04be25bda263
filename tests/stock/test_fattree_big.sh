#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The size of the largest InfiniBand subnets: the three-level fat tree of
# 36-port switches (scripts/gen-fattree --levels 3: 11,664 hosts, 1,620
# switches, 69,984 ports) in one daemon, H-1 with an ethdev and every
# other CA served. Stock `opensm -o` on H-1 brings it up with its default
# routing engine and programs every switch; every cabled port is Active;
# stock ibnetdiscover from H-1 sees every switch and CA; ibtracert goes
# from H-1 up to a spine and down to H-11664; the daemon stays under 1
# GiB. (docs/benchmarks.md, "Three levels", has the times: none is
# checked here.)
# Usage: test_fattree_big.sh <madpmd> <madpmd-run> <gen-fattree>
set -u
madpmd=$1
run=$2
gen=$3
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/ibnd.sh"

if ! command -v opensm > /dev/null || ! command -v ibnetdiscover > /dev/null ||
   ! command -v python3 > /dev/null; then
	echo "1..0 # SKIP opensm, infiniband-diags or python3 missing (apt-get install opensm infiniband-diags python3)"
	exit 0
fi

tmp=$(mktemp -d /tmp/madpmd-fattree-big.XXXXXX)
eal_prefixes=(madpmd-fattree-big-$$)
export MADPMD_RUN_DIR=$tmp/run
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"

"$gen" --levels 3 > "$tmp/fat3"
[ "$(grep -c '^Hca' "$tmp/fat3")" = 11664 ] && [ "$(grep -c '^Switch' "$tmp/fat3")" = 1620 ] &&
	[ "$(grep -c '^Switch.*"C-' "$tmp/fat3")" = 324 ]
ok $? "gen-fattree --levels 3: 11,664 hosts, 1,620 switches, 324 of them spines"

"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-fattree-big-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --topology "$tmp/fat3" --client-ports 1 \
	> "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 600); do [ -e "$MADPMD_RUN_DIR/ready" ] && break; sleep 0.1; done
[ -e "$MADPMD_RUN_DIR/ready" ] &&
	grep -q "^madpmd: 11663 of 11664 CAs are served by the daemon alone" "$tmp/madpmd.log" &&
	grep -q "^madpmd: fabric up: 69984 ports, 1620 switches" "$tmp/madpmd.log"
ok $? "madpmd runs it: 69,984 ports, 11,663 CAs served, H-1 with an ethdev; a summary, not a table of 69,984 lines ($(wc -l < "$tmp/madpmd.log") lines)"

timeout 900 "$run" --node H-1 opensm -o -f "$tmp/opensm.log" > "$tmp/opensm.out" 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log" && ! grep -q "ERR" "$tmp/opensm.log" &&
	grep -q "minhop tables configured on all switches" "$tmp/opensm.log"
ok $? "opensm -o on H-1 reaches SUBNET UP without errors, minhop tables configured on all switches"
grep ERR "$tmp/opensm.log" | head -n 5 | sed 's/^/# /'

for i in $(seq 50); do
	sw=$(awk '$3 == "switch" && $5 == "Active"' "$MADPMD_RUN_DIR/ports" | wc -l)
	ca=$(awk '($3 == "served" || $2 == "H-1:1") && $5 == "Active"' "$MADPMD_RUN_DIR/ports" | wc -l)
	[ "$sw" = 58320 ] && [ "$ca" = 11664 ] && break
	sleep 0.2
done
[ "$sw" = 58320 ] && [ "$ca" = 11664 ]
ok $? "ports file: 58,320 switch ports and 11,664 CA ports Active ($sw, $ca)"

timeout 300 "$run" --node H-1 ibnetdiscover > "$tmp/ibnd" 2> "$tmp/ibnd.err"
[ "$(grep -c '^Switch' "$tmp/ibnd")" = 1620 ] && [ "$(grep -c '^Ca' "$tmp/ibnd")" = 11664 ]
ok $? "ibnetdiscover from H-1: 1,620 switches, 11,664 CAs ($(grep -c '^Switch' "$tmp/ibnd"), $(grep -c '^Ca' "$tmp/ibnd"))"

far=$(ibnd_ca_lid "$tmp/ibnd" H-11664)
near=$(ibnd_ca_lid "$tmp/ibnd" H-1)
timeout 60 "$run" --node H-1 ibtracert "$near" "$far" > "$tmp/trace" 2>&1
grep -q '"E-1-1"' "$tmp/trace" && grep -q '"A-1-[0-9]*"' "$tmp/trace" &&
	grep -q '"C-[0-9]*"' "$tmp/trace" && grep -q '"A-36-[0-9]*"' "$tmp/trace" &&
	grep -q '"E-36-18"' "$tmp/trace" && grep -q 'To ca .*"H-11664"' "$tmp/trace"
ok $? "ibtracert ${near:-?} ${far:-?}: H-1 -> E-1-1 -> A-1-x -> a spine -> A-36-x -> E-36-18 -> H-11664"
sed 's/^/# /' "$tmp/trace"

rss=$(awk '/^VmRSS/ { print $2 }' /proc/$daemon/status 2>/dev/null)
[ -n "$rss" ] && [ "$rss" -le 1048576 ]
ok $? "the daemon's RSS with the tree up: ${rss:-?} kB (at most 1 GiB)"

daemon_stop_check "$daemon" "$tmp/madpmd.log"
ok $? "madpmd stops cleanly"
tap_done
