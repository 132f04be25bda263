#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Targeted faults: --lossy drop=100%,mad=CLASS[:ATTR] loses every frame
# carrying a MAD of that class (and attribute) and nothing else. Stock
# perfquery is the oracle: with PortCounters (PerfMgt 0x04:0x0012) lost it
# fails while perfquery -x (PortCountersExtended, 0x001D), SMPs and
# OpenSM still get through; with the whole class lost -x fails too. The
# daemon counts exactly the frames it dropped, on the asking side's wire
# only. On RoCEv2 (UDP 4791, QP1) umad_roce's PortCounters query to hca2
# is lost the same way while its loopback query answers. Malformed
# selectors are refused with a sentence. libibmad sends a timed-out
# request again (same TID) when the daemon's time-out reaches it before
# its own receive time-out does, so how many PortCounters requests went
# out is read from the daemon's capture (stock tshark), not assumed.
# Usage: test_lossy_select.sh <madpmd> <madpmd-run> <umad_roce>
set -u
madpmd=$1
run=$2
roce=$3
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-lossysel.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=()
export MADPMD_RUN_DIR=$tmp/run

# start a daemon with --lossy $1 and bring the fabric up with opensm -o
start() {
	local pfx=madpmd-lossysel-$$-$1
	eal_prefixes+=("$pfx")
	rm -rf "$MADPMD_RUN_DIR"
	"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix="$pfx" \
		-- --run-dir "$MADPMD_RUN_DIR" --lossy "$2" \
		--capture "$tmp/$1.pcapng" > "$tmp/madpmd-$1.log" 2>&1 &
	daemon=$!
	pids+=($daemon)
	for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
	timeout 60 "$run" opensm -o -f "$tmp/opensm-$1.log" > /dev/null 2>&1
	grep -q "SUBNET UP" "$tmp/opensm-$1.log"
}

# "madpmd: wire from hca1:1: N lost, ..." -> N (0 when not printed)
lost_from() {
	awk -v p="$2:" '$3 == "from" && $4 == p {print $5; f = 1} END {if (!f) print 0}' "$1"
}

start attr 'drop=100%,mad=0x04:0x0012,mad=0x07'
ok $? "OpenSM brings up a fabric that loses PerfMgt PortCounters and CM MADs"
"$run" --node hca2 ibstat > "$tmp/ibstat.out" 2>&1
lid2=$(awk '/Base lid/ {print $3}' "$tmp/ibstat.out")
"$run" --node hca1 smpquery -t 200 nodeinfo "$lid2" > "$tmp/smp.out" 2>&1 &&
	grep -q "^NodeType" "$tmp/smp.out"
ok $? "smpquery NodeInfo of hca2 (LID ${lid2:-none}, class 0x01) answers"
"$run" --node hca1 perfquery -t 200 -x "$lid2" > "$tmp/pqx.out" 2>&1 &&
	grep -q "^PortXmitData" "$tmp/pqx.out"
ok $? "perfquery -x (PortCountersExtended 0x001D, after ClassPortInfo 0x0001) answers"
"$run" --node hca1 perfquery -t 200 "$lid2" > "$tmp/pq.out" 2>&1
rc=$?
[ $rc -ne 0 ] && ! grep -q "^PortXmitData" "$tmp/pq.out"
ok $? "perfquery (PortCounters 0x0012) gets no answer (status $rc)"
"$run" --node hca1 perfquery -t 200 "$lid2" > "$tmp/pq2.out" 2>&1
[ $? -ne 0 ]
ok $? "... every time: a second perfquery fails too"
daemon_stop_check "$daemon" "$tmp/madpmd-attr.log"
ok $? "madpmd exits cleanly"
l1=$(lost_from "$tmp/madpmd-attr.log" hca1:1)
l2=$(lost_from "$tmp/madpmd-attr.log" hca2:1)
# what hca1 sent of the lost kinds (its side of the capture), and what
# of it reached hca2 (none may)
pc_out=$(tshark -r "$tmp/attr.pcapng" -Y "(infiniband.mad.mgmtclass == 0x04 && infiniband.mad.attributeid == 0x0012) || infiniband.mad.mgmtclass == 0x07" \
	-T fields -e frame.interface_name 2>/dev/null | sort | uniq -c)
sent=$(echo "$pc_out" | awk '$2 == "hca1/1" {print $1}')
got=$(echo "$pc_out" | awk '$2 == "hca2/1" {print $1}')
[ "${sent:-0}" -ge 2 ] && [ "$l1" = "$sent" ] && [ -z "$got" ] && [ "$l2" = 0 ]
ok $? "the wire lost exactly the PortCounters requests hca1 sent, two perfqueries' worth (lost $l1, sent ${sent:-0}, reached hca2 ${got:-0}) and nothing from hca2 ($l2)"

start class 'drop=100%,mad=0x04'
ok $? "OpenSM brings up a fabric that loses every PerfMgt MAD"
"$run" --node hca1 smpquery -t 200 nodeinfo "$lid2" > "$tmp/smp.out" 2>&1
ok $? "smpquery NodeInfo still answers"
"$run" --node hca1 perfquery -t 200 -x "$lid2" > "$tmp/pqx.out" 2>&1
rc=$?
[ $rc -ne 0 ] && ! grep -q "^PortXmitData" "$tmp/pqx.out"
ok $? "perfquery -x gets no answer either (status $rc)"
"$run" --node hca1 perfquery -t 200 > "$tmp/pqlocal.out" 2>&1
ok $? "perfquery of the local port (no wire) answers"
daemon_stop_check "$daemon" "$tmp/madpmd-class.log"
ok $? "madpmd exits cleanly"
l1=$(lost_from "$tmp/madpmd-class.log" hca1:1)
l2=$(lost_from "$tmp/madpmd-class.log" hca2:1)
[ "$l1" -ge 1 ] && [ "$l2" = 0 ]
ok $? "the wire lost PerfMgt frames from hca1 only ($l1, $l2)"

# RoCEv2: no SM, umad_roce addresses the peer by GID
pfx=madpmd-lossysel-$$-roce
eal_prefixes+=("$pfx")
rm -rf "$MADPMD_RUN_DIR"
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix="$pfx" \
	-- --run-dir "$MADPMD_RUN_DIR" --link roce \
	--lossy 'drop=100%,mad=0x04:0x0012' > "$tmp/madpmd-roce.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
# a RoCE port is Active with its link, which comes up after the sockets
# are there: a query sent before would not reach the wire at all
for i in $(seq 100); do
	"$run" --node hca1 ibstat 2>/dev/null | grep -q "State: Active" &&
		"$run" --node hca2 ibstat 2>/dev/null | grep -q "State: Active" && break
	sleep 0.1
done
timeout 60 "$run" --node hca1 "$roce" hca2 > "$tmp/roce.out" 2>&1
grep -q "^not ok .*Get(PortCounters) to the peer's GID 0" "$tmp/roce.out" &&
	grep -q "^ok .*its own GID: the port's own PMA answers" "$tmp/roce.out"
ok $? "RoCEv2: PortCounters to hca2's GID goes unanswered, the loopback query answers"
daemon_stop_check "$daemon" "$tmp/madpmd-roce.log"
ok $? "madpmd exits cleanly"
l1=$(lost_from "$tmp/madpmd-roce.log" hca1:1)
l2=$(lost_from "$tmp/madpmd-roce.log" hca2:1)
[ "$l1" = 1 ] && [ "$l2" = 0 ]
ok $? "the RoCE wire lost exactly the one request from hca1 ($l1, $l2)"

# malformed selectors: a sentence and a non-zero status
bad() {
	local pfx=madpmd-lossysel-$$-bad
	eal_prefixes+=("$pfx")
	timeout 30 "$madpmd" --no-huge --no-pci -m 256 -l 0,1 \
		--file-prefix="$pfx" -- --run-dir "$tmp/badrun" --lossy "$1" \
		> "$tmp/bad.out" 2>&1
	rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "$2" "$tmp/bad.out"
	ok $? "--lossy $1 is refused (status $rc): $(grep -m1 -- "$2" "$tmp/bad.out")"
}
bad 'drop=100%,mad=0x100' 'mad=0x100: give a management class'
bad 'drop=100%,mad=7:0x10000' 'mad=7:0x10000: give a management class'
bad 'drop=100%,mad=rtu' 'mad=rtu: give a management class'
bad 'drop=100%,mad=7:' 'mad=7:: give a management class'
bad 'drop=100%,mad=' 'mad=: give a management class'
bad "drop=1$(printf ',mad=%d' 1 2 3 4 5 6 7 8 9)" 'at most 8 mad= selectors'
bad ',' 'give drop=P,dup=P,reorder=P'
bad '' 'give drop=P,dup=P,reorder=P'
bad 'drop=5%,,dup=5%' 'give drop=P,dup=P,reorder=P'
bad 'drop=5%,' 'give drop=P,dup=P,reorder=P'
bad 'drop=5%,drop=50%' 'drop= given twice'
bad 'drop=5%,seed=1,seed=2' 'seed= given twice'

tap_done
