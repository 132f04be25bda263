#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Offline replay through the launcher: stock OpenSM sweeps the default
# fabric while madpmd captures it; then what hca2's port received is
# replayed into hca2 of a fresh fabric (no SM, no cable) and captured
# again. hca2 must answer the same MADs the same way, in the same order,
# as stock tshark decodes both captures.
# Usage: test_replay_fabric.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-replay.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-replay-$$ madpmd-replay2-$$)

# 1. the original: OpenSM's sweep, captured
export MADPMD_RUN_DIR=$tmp/run
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-replay-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --capture "$tmp/sweep.pcapng" \
	> "$tmp/madpmd.log" 2>&1 &
pids+=($!)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/capture" ] && break; sleep 0.1; done
timeout 60 "$run" opensm -o -f "$tmp/opensm.log" > /dev/null 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log"
ok $? "stock OpenSM sweeps the fabric to SUBNET UP, captured"
# and an SA answering saquery
"$run" opensm -f "$tmp/opensm-sa.log" > /dev/null 2>&1 &
pids+=($!)
for i in $(seq 100); do grep -q "SUBNET UP" "$tmp/opensm-sa.log" 2>/dev/null && break; sleep 0.1; done
"$run" --node hca2 saquery -N > "$tmp/sa.N" 2>&1 &&
	"$run" --node hca2 saquery -p > "$tmp/sa.p" 2>&1
ok $? "stock saquery gets NodeRecords and PathRecords from OpenSM's SA, captured"
stop_all

# 2. what hca2 received, into a fresh hca2, as fast as it takes it
export MADPMD_RUN_DIR=$tmp/run2
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-replay2-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --capture "$tmp/replay.pcapng" \
	--replay "hca2:1=$tmp/sweep.pcapng,from=hca2/1" --exit-after-replay=1 \
	> "$tmp/madpmd2.log" 2>&1 &
pids+=($!)
for i in $(seq 150); do kill -0 "${pids[0]}" 2>/dev/null || break; sleep 0.1; done
! kill -0 "${pids[0]}" 2>/dev/null
ok $? "madpmd --exit-after-replay stops by itself once the replay is done"
wait "${pids[0]}"
pids=()

# 2b. the same capture cut short inside a block: it plays up to there,
# the summary says where it stopped, and madpmd exits 2
size=$(stat -c %s "$tmp/sweep.pcapng")
head -c $((size * 2 / 3 + 3)) "$tmp/sweep.pcapng" > "$tmp/cut.pcapng"
export MADPMD_RUN_DIR=$tmp/run2b
eal_prefixes+=(madpmd-replay2b-$$)
timeout 60 "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-replay2b-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" \
	--replay "hca2:1=$tmp/cut.pcapng,from=hca2/1" --exit-after-replay=1 \
	> "$tmp/madpmd2b.log" 2>&1
rc=$?
line=$(grep "replay of .*cut.pcapng" "$tmp/madpmd2b.log" | tail -1)
cut_sent=$(echo "$line" | sed -n 's/.*: \([0-9]*\) frames sent.*/\1/p')
[ $rc = 2 ] && [ "${cut_sent:-0}" -gt 0 ] && echo "$line" | grep -q "; stopped: .*cut.pcapng"
ok $? "a capture cut short: ${cut_sent:-no} frames replayed, the summary says where it stopped, exit $rc (2)"
echo "# $line"

# 4. saquery's requests, as hca1 received them, injected into hca1 of a
# third fabric (its cable kept) once a new OpenSM there has brought it up
# (after=active): the SA, an API client of the port, answers every one
export MADPMD_RUN_DIR=$tmp/run3
eal_prefixes+=(madpmd-replay3-$$)
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-replay3-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --capture "$tmp/sa.pcapng" \
	--replay "hca1:1=$tmp/sweep.pcapng,from=hca1/1,after=active,cable=keep" \
	--exit-after-replay=2 > "$tmp/madpmd3.log" 2>&1 &
fabric3=$!
pids+=($fabric3)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca1/umad" ] && break; sleep 0.1; done
"$run" --node hca1 opensm -f "$tmp/opensm3.log" > /dev/null 2>&1 &
pids+=($!)
for i in $(seq 200); do kill -0 $fabric3 2>/dev/null || break; sleep 0.1; done
! kill -0 $fabric3 2>/dev/null && grep -q "SUBNET UP" "$tmp/opensm3.log"
ok $? "a new OpenSM brings the fabric up; the replay then runs and the fabric stops"
stop_all
# the summary, after any progress lines of a long replay
sent=$(sed -n 's/.*replay of .*: \([0-9]*\) frames sent.*/\1/p' "$tmp/madpmd2.log" | tail -1)
grep "replay of" "$tmp/madpmd2.log" | tail -1 | sed 's/^/# /'
[ "${sent:-0}" -gt 0 ]
ok $? "the replay sent ${sent:-0} frames into hca2"

# 3. the same answers, as stock tshark reads both
chmod 755 "$tmp"
chmod 644 "$tmp"/*.pcapng
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups -- env HOME="$tmp")
mkdir -p "$tmp/no-extcap" "$tmp/no-plugins"
export WIRESHARK_EXTCAP_DIR=$tmp/no-extcap WIRESHARK_PLUGIN_DIR=$tmp/no-plugins
answers() {	# what hca2's SMA sent back (GetResp): TID, method, attribute, modifier, status, data
	"${as_user[@]}" tshark -r "$1" --disable-protocol madpmd \
		-Y 'frame.interface_name == "hca2/1" && frame.p2p_dir == 0 && infiniband.mad.method == 0x81' \
		-T fields -e infiniband.mad.transactionid -e infiniband.mad.method \
		-e infiniband.mad.attributeid -e infiniband.mad.attributemodifier \
		-e infiniband.mad.status -e infiniband.mad.data 2>/dev/null
}
answers "$tmp/sweep.pcapng" > "$tmp/a.orig"
answers "$tmp/replay.pcapng" > "$tmp/a.replay"
na=$(wc -l < "$tmp/a.orig")
nb=$(wc -l < "$tmp/a.replay")
[ "$na" -gt 5 ] && cmp -s "$tmp/a.orig" "$tmp/a.replay"
ok $? "hca2 answers the replay as it answered OpenSM: $na and $nb answers, identical"
[ $fail = 0 ] || diff "$tmp/a.orig" "$tmp/a.replay" | head -10 | sed 's/^/# /'
sa_tids() {	# TIDs of SubnAdm requests (method) in, or answers out, at hca1
	"${as_user[@]}" tshark -r "$1" --disable-protocol madpmd \
		-Y "frame.interface_name == \"hca1/1\" && frame.p2p_dir == $2 && infiniband.mad.mgmtclass == 0x03 && infiniband.mad.method == $3" \
		-T fields -e infiniband.mad.transactionid 2>/dev/null | sort -u
}
sa_tids "$tmp/sweep.pcapng" 1 0x12 > "$tmp/q.orig"
sa_tids "$tmp/sa.pcapng" 1 0x12 > "$tmp/q.replay"
sa_tids "$tmp/sa.pcapng" 0 0x92 > "$tmp/r.replay"
nq=$(wc -l < "$tmp/q.orig")
[ "$nq" -ge 2 ] && cmp -s "$tmp/q.orig" "$tmp/q.replay" && cmp -s "$tmp/q.orig" "$tmp/r.replay"
ok $? "the $nq replayed SubnAdmGetTable requests each get a GetTableResp from the new SA, same TIDs"

"${as_user[@]}" tshark -r "$tmp/replay.pcapng" --disable-protocol madpmd \
	-Y 'frame.interface_name == "hca2/1" && infiniband.mad.attributeid == 0x0015 && infiniband.mad.method == 0x81' \
	-T fields -e infiniband.portinfo.portstate 2>/dev/null | tail -1 > "$tmp/state"
case $(cat "$tmp/state") in 4|0x04) true ;; *) false ;; esac
ok $? "the replayed Sets leave hca2 Active (last PortInfo answer: PortState $(cat "$tmp/state"))"

tap_done
