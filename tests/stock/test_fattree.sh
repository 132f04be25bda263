#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Scale: a two-level fat tree of 288 hosts on 24 36-port switches
# (scripts/gen-fattree --leaves 16 --spines 8 --links 2) in one daemon,
# the first 4 CAs with ethdevs (--client-ports 4) and the other 284
# served by the daemon alone. Stock `opensm -o` on H-1 brings all of it
# up; stock ibnetdiscover sees the same switches, CAs and cables as
# under ibsim; ibtracert crosses a spine; served CAs answer smpquery and
# perfquery (their counters move) but no client opens one. Then the
# 648-host tree (36 leaves, 18 spines) comes up with one ethdev, and
# ibtracert crosses its spine; then a three-level tree of 12-port switches
# (432 hosts, 180 switches) under OpenSM's default, ftree and updn
# routing, a route crossing a spine.
# Usage: test_fattree.sh <madpmd> <madpmd-run> <gen-fattree>
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

tmp=$(mktemp -d /tmp/madpmd-fattree.XXXXXX)
eal_prefixes=(madpmd-fattree-$$)
export MADPMD_RUN_DIR=$tmp/run
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"

"$gen" --leaves 16 --spines 8 --links 2 > "$tmp/fat288"
[ "$(grep -c '^Hca' "$tmp/fat288")" = 288 ] && [ "$(grep -c '^Switch' "$tmp/fat288")" = 24 ]
ok $? "gen-fattree: 288 hosts, 24 switches"

"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-fattree-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --topology "$tmp/fat288" --client-ports 4 \
	> "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 200); do [ -s "$MADPMD_RUN_DIR/ports" ] && break; sleep 0.1; done
grep -q "284 of 288 CAs are served by the daemon alone" "$tmp/madpmd.log" &&
	[ -S "$MADPMD_RUN_DIR/H-4/umad" ] && [ ! -e "$MADPMD_RUN_DIR/H-5" ]
ok $? "madpmd starts the tree: H-1..H-4 with ethdevs, 284 CAs served"

timeout 120 "$run" --node H-1 opensm -o -f "$tmp/opensm.log" > "$tmp/opensm.out" 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log" && ! grep -q "ERR" "$tmp/opensm.log"
ok $? "opensm -o on H-1 reaches SUBNET UP without errors"
grep ERR "$tmp/opensm.log" | head -n 5 | sed 's/^/# /'

for i in $(seq 30); do
	[ "$(awk '$3 == "served" && $5 == "Active"' "$MADPMD_RUN_DIR/ports" | wc -l)" = 284 ] && break
	sleep 0.1
done
[ "$(awk '$3 == "served" && $5 == "Active"' "$MADPMD_RUN_DIR/ports" | wc -l)" = 284 ] &&
	[ "$(awk '$3 == "switch" && $5 == "Active"' "$MADPMD_RUN_DIR/ports" | wc -l)" = 800 ]
ok $? "ports table: 284 served CA ports and 800 cabled switch ports Active"

timeout 60 "$run" --node H-1 ibnetdiscover > "$tmp/ibnd" 2> "$tmp/ibnd.err"
topo_norm "$tmp/ibnd" > "$tmp/ibnd.norm"
[ "$(grep -c '^Switch' "$tmp/ibnd")" = 24 ] && [ "$(grep -c '^Ca' "$tmp/ibnd")" = 288 ] &&
	[ "$(wc -l < "$tmp/ibnd.norm")" = 1088 ]
ok $? "ibnetdiscover: 24 switches, 288 CAs, 1088 cable ends ($(wc -l < "$tmp/ibnd.norm"))"

ibsim_view "$tmp/fat288" H-1 "$tmp/ibnd.sim.norm"
rc=$?
if [ $rc = 2 ]; then
	skip "ibnetdiscover under ibsim" "ibsim or libumad2sim not installed"
else
	[ $rc = 0 ] && diff "$tmp/ibnd.sim.norm" "$tmp/ibnd.norm" > "$tmp/ibnd.diff"
	ok $? "ibnetdiscover's nodes and cables are ibsim's ($(wc -l < "$tmp/ibnd.sim.norm") cable ends there)"
	head -n 10 "$tmp/ibnd.diff" | sed 's/^/# /'
fi

# H-288 hangs off leaf L-16: from H-1 on L-1 the route goes up a spine
far=$(ibnd_ca_lid "$tmp/ibnd" H-288)
near=$(ibnd_ca_lid "$tmp/ibnd" H-1)
[ -n "$far" ] && [ -n "$near" ] && [ "$far" != 0 ]
ok $? "LIDs from ibnetdiscover: H-1 $near, H-288 $far"
"$run" --node H-1 ibtracert "$near" "$far" > "$tmp/trace" 2>&1
grep -q '"L-1"' "$tmp/trace" && grep -q '"S-[1-8]"' "$tmp/trace" &&
	grep -q '"L-16"' "$tmp/trace" && grep -q 'To ca .*"H-288"' "$tmp/trace"
ok $? "ibtracert $near $far: H-1 -> L-1 -> a spine -> L-16 -> H-288"
sed 's/^/# /' "$tmp/trace"

"$run" --node H-2 smpquery nodedesc "$far" > "$tmp/nd" 2>&1
grep -q "H-288" "$tmp/nd"
ok $? "smpquery nodedesc $far from H-2: the served CA answers across three switches"
"$run" --node H-3 perfquery "$far" 1 > "$tmp/pq1" 2>&1
"$run" --node H-3 perfquery "$far" 1 > "$tmp/pq2" 2>&1
p1=$(awk -F. '/^PortXmitPkts/ {print $NF}' "$tmp/pq1")
p2=$(awk -F. '/^PortXmitPkts/ {print $NF}' "$tmp/pq2")
[ -n "$p1" ] && [ -n "$p2" ] && [ "$p2" -gt "$p1" ]
ok $? "perfquery $far: the served CA's PMA counts its own answers (PortXmitPkts $p1 then $p2)"

"$run" --node H-288 ibstat > "$tmp/served.out" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q 'node "H-288" is served by madpmd alone' "$tmp/served.out"
ok $? "madpmd-run --node H-288 fails with what the node is (rc $rc)"

daemon_stop_check "$daemon" "$tmp/madpmd.log"
ok $? "madpmd stops cleanly"

# served CAs are native IB: on RoCE a CA past --client-ports is refused
printf 'Hca\t1 "r1"\n[1]\t"r2"[1]\n\nHca\t1 "r2"\n[1]\t"r1"[1]\n' > "$tmp/net.roce"
eal_prefixes+=(madpmd-fattree-$$-roce)
timeout 30 "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-fattree-$$-roce \
	-- --run-dir "$tmp/roce" --topology "$tmp/net.roce" --link roce --client-ports 1 \
	> "$tmp/roce.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q 'CA "r2" is past --client-ports (1 CA ports with an ethdev), and a CA served by the daemon alone is native IB only' "$tmp/roce.out"
ok $? "--link roce with a CA past --client-ports: refused, exit $rc, with the reason"
grep 'madpmd:' "$tmp/roce.out" | head -n 2 | sed 's/^/# /'

# the 648-host tree of 36-port switches (36 leaves, 18 spines), its SM's
# CA the only one with an ethdev
"$gen" > "$tmp/fat648"
rm -rf "$MADPMD_RUN_DIR" "$OSM_CACHE_DIR"
mkdir -p "$OSM_CACHE_DIR"
eal_prefixes+=(madpmd-fattree-$$-648)
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-fattree-$$-648 \
	-- --run-dir "$MADPMD_RUN_DIR" --topology "$tmp/fat648" --client-ports 1 \
	> "$tmp/madpmd.648.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 200); do [ -s "$MADPMD_RUN_DIR/ports" ] && break; sleep 0.1; done
timeout 120 "$run" --node H-1 opensm -o -f "$tmp/opensm.648.log" > /dev/null 2>&1
grep -q "SUBNET UP" "$tmp/opensm.648.log" && ! grep -q "ERR" "$tmp/opensm.648.log"
ok $? "648 hosts, 54 switches (-m 256, --client-ports 1): opensm -o reaches SUBNET UP without errors"
grep ERR "$tmp/opensm.648.log" | head -n 5 | sed 's/^/# /'
timeout 60 "$run" --node H-1 ibnetdiscover > "$tmp/ibnd" 2> /dev/null
[ "$(grep -c '^Switch' "$tmp/ibnd")" = 54 ] && [ "$(grep -c '^Ca' "$tmp/ibnd")" = 648 ]
ok $? "648: ibnetdiscover sees 54 switches and 648 CAs ($(grep -c '^Switch' "$tmp/ibnd"), $(grep -c '^Ca' "$tmp/ibnd"))"
far=$(ibnd_ca_lid "$tmp/ibnd" H-648)
near=$(ibnd_ca_lid "$tmp/ibnd" H-1)
"$run" --node H-1 ibtracert "$near" "$far" > "$tmp/trace.648" 2>&1
grep -q '"L-1"' "$tmp/trace.648" && grep -q '"S-[0-9]*"' "$tmp/trace.648" &&
	grep -q '"L-36"' "$tmp/trace.648" && grep -q 'To ca .*"H-648"' "$tmp/trace.648"
ok $? "648: ibtracert $near $far: H-1 -> L-1 -> a spine -> L-36 -> H-648"
daemon_stop_check "$daemon" "$tmp/madpmd.648.log"
ok $? "648: madpmd stops cleanly"

# a three-level fat tree of 12-port switches (gen-fattree --levels 3): 12
# pods of 6 edge and 6 aggregation switches, 36 spines, 432 hosts; up
# under OpenSM's default routing engine, ftree and updn, each from a
# fresh start; a route from H-1 to H-432 climbs to a spine and down
"$gen" --levels 3 --ports 12 > "$tmp/fat3"
[ "$(grep -c '^Hca' "$tmp/fat3")" = 432 ] && [ "$(grep -c '^Switch' "$tmp/fat3")" = 180 ] &&
	[ "$(grep -c '^Switch.*"C-' "$tmp/fat3")" = 36 ]
ok $? "gen-fattree --levels 3 --ports 12: 432 hosts, 180 switches, 36 of them spines"
for engine in default ftree updn; do
	rm -rf "$MADPMD_RUN_DIR" "$OSM_CACHE_DIR"
	mkdir -p "$OSM_CACHE_DIR"
	eal_prefixes+=(madpmd-fattree-$$-3$engine)
	"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-fattree-$$-3$engine \
		-- --run-dir "$MADPMD_RUN_DIR" --topology "$tmp/fat3" --client-ports 1 \
		> "$tmp/madpmd.3$engine.log" 2>&1 &
	daemon=$!
	pids+=($daemon)
	for i in $(seq 200); do [ -e "$MADPMD_RUN_DIR/ready" ] && break; sleep 0.1; done
	r=()
	[ $engine != default ] && r=(-R $engine)
	timeout 120 "$run" --node H-1 opensm -o "${r[@]}" -f "$tmp/opensm.3$engine.log" > /dev/null 2>&1
	# the engine says it programmed every switch (the default: minhop)
	e=$engine
	[ $e = default ] && e=minhop
	grep -q "SUBNET UP" "$tmp/opensm.3$engine.log" && ! grep -q "ERR" "$tmp/opensm.3$engine.log" &&
		grep -q "$e tables configured on all switches" "$tmp/opensm.3$engine.log"
	ok $? "3 levels, 432 hosts, routing $engine: opensm -o reaches SUBNET UP without errors, $e tables configured on all switches"
	grep -E "ERR|tables configured" "$tmp/opensm.3$engine.log" | head -n 5 | sed 's/^/# /'
	timeout 60 "$run" --node H-1 ibnetdiscover > "$tmp/ibnd" 2> /dev/null
	if [ $engine = default ]; then
		topo_norm "$tmp/ibnd" > "$tmp/ibnd.norm"
		[ "$(grep -c '^Switch' "$tmp/ibnd")" = 180 ] && [ "$(grep -c '^Ca' "$tmp/ibnd")" = 432 ] &&
			[ "$(wc -l < "$tmp/ibnd.norm")" = 2592 ]
		ok $? "3 levels: ibnetdiscover sees 180 switches, 432 CAs, 2592 cable ends ($(wc -l < "$tmp/ibnd.norm"))"
	fi
	far=$(ibnd_ca_lid "$tmp/ibnd" H-432)
	near=$(ibnd_ca_lid "$tmp/ibnd" H-1)
	"$run" --node H-1 ibtracert "$near" "$far" > "$tmp/trace.3$engine" 2>&1
	grep -q '"E-1-1"' "$tmp/trace.3$engine" && grep -q '"A-1-[0-9]*"' "$tmp/trace.3$engine" &&
		grep -q '"C-[0-9]*"' "$tmp/trace.3$engine" && grep -q '"A-12-[0-9]*"' "$tmp/trace.3$engine" &&
		grep -q '"E-12-6"' "$tmp/trace.3$engine" && grep -q 'To ca .*"H-432"' "$tmp/trace.3$engine"
	ok $? "3 levels, $engine: ibtracert $near $far: H-1 -> E-1-1 -> A-1-x -> a spine -> A-12-x -> E-12-6 -> H-432"
	[ $engine = default ] && sed 's/^/# /' "$tmp/trace.3$engine"
	daemon_stop_check "$daemon" "$tmp/madpmd.3$engine.log"
	ok $? "3 levels, $engine: madpmd stops cleanly"
done
tap_done
