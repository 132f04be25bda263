#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# RMPP (IBA 13.6) over lossy wires: the default fabric with every wire
# dropping, duplicating and reordering frames. Stock OpenSM must still
# bring it up, stock saquery must still get every record, and 100 KB
# transfers between two libibumad programs must arrive whole, with the
# daemon's RMPP senders having timed out and sent windows again.
# Usage: test_lossy.sh <madpmd> <madpmd-run> <umad_rmpp_peer>
set -u
madpmd=$1
run=$2
peer=$3
. "$(dirname "$0")/../common/tap.sh"

lossy=${MADPMD_TEST_LOSSY:-drop=4%,dup=3%,reorder=3%,seed=20261121}
tmp=$(mktemp -d /tmp/madpmd-lossy.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-lossy-$$)
export MADPMD_RUN_DIR=$tmp/run

"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-lossy-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --lossy "$lossy" \
	> "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
[ -S "$MADPMD_RUN_DIR/hca2/umad" ] && grep -q "lossy wires: $lossy" "$tmp/madpmd.log"
ok $? "madpmd runs the default fabric with lossy wires ($lossy)"

# a resident SM: its sweeps retry what the wire loses; the SA answers
"$run" opensm -f "$tmp/opensm.log" > "$tmp/opensm.out" 2>&1 &
pids+=($!)
for i in $(seq 600); do grep -q "SUBNET UP" "$tmp/opensm.log" 2>/dev/null && break; sleep 0.1; done
grep -q "SUBNET UP" "$tmp/opensm.log"
ok $? "OpenSM brings the lossy fabric to SUBNET UP"
lid2=
for i in $(seq 100); do
	"$run" --node hca2 ibstat > "$tmp/ibstat.hca2" 2>&1
	grep -q "State: Active" "$tmp/ibstat.hca2" && break
	sleep 0.1
done
lid2=$(awk '/Base lid/ {print $3}' "$tmp/ibstat.hca2")
grep -q "State: Active" "$tmp/ibstat.hca2" && [ "${lid2:-0}" != 0 ]
ok $? "hca2 is Active with LID ${lid2:-none}"

# saquery's answers are multi-segment RMPP from OpenSM's SA on hca1.
# saquery sends its request with no retries (ibdiag_sa.c), so a lost
# request or lost single-segment answer is a time-out, as on any lossy
# fabric; what must never happen is an answer with records missing.
sa_runs() {
	local opt=$1 what=$2 want=$3 i c
	good=0 lost=0 partial=0
	for i in $(seq 10); do
		"$run" --node hca2 saquery $opt > "$tmp/sa.out" 2>&1
		c=$(grep -c "$what dump" "$tmp/sa.out")
		if [ "$c" -eq "$want" ]; then
			good=$((good + 1))
		elif [ "$c" -eq 0 ] && grep -q "timed out" "$tmp/sa.out"; then
			lost=$((lost + 1))
		else
			partial=$((partial + 1))
			sed 's/^/# saquery: /' "$tmp/sa.out" | tail -4
		fi
	done
}
sa_runs -p PathRecord 4
[ $partial -eq 0 ] && [ $good -ge 6 ]
ok $? "saquery PathRecords over the lossy wire: $good of 10 runs got all 4 records, $lost timed out, $partial incomplete"
sa_runs -N NodeRecord 2
[ $partial -eq 0 ] && [ $good -ge 6 ]
ok $? "saquery -N over the lossy wire: $good of 10 runs got both NodeRecords, $lost timed out, $partial incomplete"

# large transfers: hca2 answers, hca1 asks (hundreds of segments each way
# through windows of 64)
"$run" --node hca2 "$peer" serve > "$tmp/peer.out" 2>&1 &
server=$!
pids+=($server)
for i in $(seq 50); do grep -q serving "$tmp/peer.out" && break; sleep 0.1; done
"$run" --node hca1 "$peer" query "$lid2" 100000 4 > "$tmp/query.out" 2>&1
ok $? "4 transfers of 100000 bytes (455 segments) arrive whole: $(tail -1 "$tmp/query.out")"
"$run" --node hca1 "$peer" query "$lid2" 3000 20 30000 > "$tmp/query2.out" 2>&1
ok $? "20 requests of 30000 bytes reach the server whole, 20 answers of 3000 come back whole: $(tail -1 "$tmp/query2.out")"

# what the wires did, and that RMPP had to recover from it
stop_all
lost=$(awk '/wire from/ {s += $5} END {print s + 0}' "$tmp/madpmd.log")
dup=$(awk '/wire from/ {s += $7} END {print s + 0}' "$tmp/madpmd.log")
reord=$(awk '/wire from/ {s += $9} END {print s + 0}' "$tmp/madpmd.log")
[ "$lost" -gt 0 ] && [ "$dup" -gt 0 ] && [ "$reord" -gt 0 ]
ok $? "the wires lost $lost, duplicated $dup and reordered $reord frames"
tmo=$(awk '/RMPP:/ {s += $8} END {print s + 0}' "$tmp/madpmd.log")
failed=$(awk '/RMPP:/ {s += $12} END {print s + 0}' "$tmp/madpmd.log")
[ "$tmo" -gt 0 ]
ok $? "RMPP senders timed out and sent windows again $tmo times ($failed transfers given up, retried by their clients)"

tap_done
