#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Stock OpenSM and infiniband-diags, unmodified, over madpmd's drop-in
# libibumad on the default fabric (hca1 -- hca2).
# Usage: test_stock_tools.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-stock.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-stock-$$)
export MADPMD_RUN_DIR=$tmp/run

"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-stock-$$ \
	--log-level=pmd.net.hca:info -- --run-dir "$MADPMD_RUN_DIR" \
	--capture "$tmp/fabric.pcapng" > "$tmp/madpmd.log" 2>&1 &
pids+=($!)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
[ -S "$MADPMD_RUN_DIR/hca2/umad" ]
ok $? "madpmd runs the default fabric"

# 1. one sweep to SUBNET UP
timeout 60 "$run" opensm -o -f "$tmp/opensm-once.log" > "$tmp/opensm-once.out" 2>&1
grep -q "SUBNET UP" "$tmp/opensm-once.log"
ok $? "opensm -o reaches SUBNET UP"
for node in hca1 hca2; do
	"$run" --node $node ibstat > "$tmp/ibstat.$node" 2>&1
	grep -q "State: Active" "$tmp/ibstat.$node" && ! grep -q "Base lid: 0$" "$tmp/ibstat.$node"
	ok $? "ibstat on $node: Active with a LID ($(grep -m1 'Base lid' "$tmp/ibstat.$node" | tr -d '\t'))"
done
lid1=$(awk '/Base lid/ {print $3}' "$tmp/ibstat.hca1")
lid2=$(awk '/Base lid/ {print $3}' "$tmp/ibstat.hca2")

# 2. a resident SM for the SA and SMInfo
"$run" opensm -f "$tmp/opensm.log" > "$tmp/opensm.out" 2>&1 &
pids+=($!)
for i in $(seq 100); do grep -q "SUBNET UP" "$tmp/opensm.log" 2>/dev/null && break; sleep 0.1; done
"$run" --node hca2 sminfo > "$tmp/sminfo" 2>&1
grep -q "sm lid $lid1 .*SMINFO_MASTER" "$tmp/sminfo"
ok $? "sminfo from hca2: $(cat "$tmp/sminfo")"

guid2=$(awk '/Node GUID/ {print $3}' "$tmp/ibstat.hca2")
"$run" smpquery nodeinfo "$lid2" > "$tmp/ni" 2>&1
grep -q "Guid:\.*$guid2" "$tmp/ni"
ok $? "smpquery nodeinfo $lid2 (LID routed) shows hca2's GUID $guid2"
"$run" smpquery -D nodeinfo 0,1 > "$tmp/ni.dr" 2>&1
grep -q "Guid:\.*$guid2" "$tmp/ni.dr"
ok $? "smpquery -D nodeinfo 0,1 (directed route) shows the same node"
"$run" smpquery nodedesc "$lid2" 2>&1 | grep -q "hca2"
ok $? "smpquery nodedesc: hca2"
"$run" smpquery portinfo "$lid2" > "$tmp/pi" 2>&1
grep -q "LinkState:\.*Active" "$tmp/pi" && grep -q "SMLid:\.*$lid1" "$tmp/pi"
ok $? "smpquery portinfo: Active, SMLid $lid1"
"$run" smpquery -D pkeys 0,1 2>&1 | grep -q "0xffff"
ok $? "smpquery -D pkeys: the default partition"

"$run" --node hca2 saquery -N > "$tmp/sa.N" 2>&1
[ "$(grep -c 'NodeRecord dump' "$tmp/sa.N")" -eq 2 ]
ok $? "saquery -N from hca2: every NodeRecord (2; multi-segment RMPP over the wire)"
"$run" --node hca2 saquery -p > "$tmp/sa.p" 2>&1
[ "$(grep -c 'PathRecord dump' "$tmp/sa.p")" -eq 4 ]
ok $? "saquery PathRecords: all 4 source/destination pairs"
"$run" --node hca2 saquery -g 2>&1 | grep -q "MCMemberRecord"
ok $? "saquery -g: the IPoIB broadcast group"

"$run" perfquery "$lid2" > "$tmp/pq" 2>&1 && grep -q "PortRcvPkts" "$tmp/pq"
ok $? "perfquery $lid2"
"$run" perfquery -x "$lid2" 2>&1 | grep -q "PortUnicastRcvPkts"
ok $? "perfquery -x $lid2 (PortCountersExtended)"
"$run" perfquery -r "$lid2" > /dev/null 2>&1
before=$("$run" perfquery "$lid2" 2>/dev/null | awk -F. '/^PortRcvPkts/ {print $NF}')
[ -n "$before" ] && [ "$before" -le 2 ]
ok $? "perfquery -r clears the counters (PortRcvPkts now $before)"

# 3. two clients at once on one node, and a killed client
( for i in $(seq 20); do "$run" --node hca2 perfquery "$lid1" > /dev/null 2>&1 || exit 1; done ) &
a=$!
( for i in $(seq 20); do "$run" --node hca2 saquery -N > /dev/null 2>&1 || exit 1; done ) &
b=$!
wait $a; ra=$?
wait $b; rb=$?
[ $ra -eq 0 ] && [ $rb -eq 0 ]
ok $? "20 perfquery and 20 saquery runs at once on hca2 all succeed"
"$run" --node hca2 ibping -S > /dev/null 2>&1 &
victim=$!
sleep 0.5
kill -KILL $victim
wait $victim 2>/dev/null
sleep 0.3
"$run" --node hca2 saquery -N 2>/dev/null | grep -c "NodeRecord dump" | grep -q 2
ok $? "after a client is killed with SIGKILL, new clients are served"
grep -q "client pid $victim gone" "$tmp/madpmd.log"
ok $? "and madpmd freed what it held"

# 4. a port disabled by an SMP takes its cable down: the other end's link
# goes (Down, Polling) as a real cable's far end does, and both train
# again when it is enabled (ibportstate on hca1's own port, DR path 0)
phys() { "$run" --node "$1" ibstat 2>/dev/null | awk -F': ' '/Physical state/ { print $2; exit }'; }
timeout 10 "$run" --node hca1 ibportstate -D 0 1 disable > "$tmp/ps.off" 2>&1
for i in $(seq 30); do [ "$(phys hca2)" = Polling ] && break; sleep 0.1; done
st="hca1 $(phys hca1), hca2 $(phys hca2)"
[ "$st" = "hca1 Disabled, hca2 Polling" ]
ok $? "ibportstate -D 0 1 disable on hca1: its peer hca2 loses the link ($st)"
timeout 10 "$run" --node hca1 ibportstate -D 0 1 enable > "$tmp/ps.on" 2>&1
for i in $(seq 30); do [ "$(phys hca2)" = LinkUp ] && [ "$(phys hca1)" = LinkUp ] && break; sleep 0.1; done
st="hca1 $(phys hca1), hca2 $(phys hca2)"
[ "$st" = "hca1 LinkUp, hca2 LinkUp" ]
ok $? "ibportstate -D 0 1 enable on hca1: both ends train again ($st)"

# 5. the wire of all that, as stock tshark reads it
stop_all
chmod 755 "$tmp"
chmod 644 "$tmp/fabric.pcapng"
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups -- env HOME="$tmp")
# extcap helpers are not needed to read a file (and hang under a sanitizer preload)
mkdir -p "$tmp/no-extcap"
export WIRESHARK_EXTCAP_DIR="$tmp/no-extcap"
frames=$("${as_user[@]}" tshark -r "$tmp/fabric.pcapng" --disable-protocol madpmd 2>/dev/null | wc -l)
sets=$("${as_user[@]}" tshark -r "$tmp/fabric.pcapng" --disable-protocol madpmd -Y 'infiniband.mad.method == 0x02 && infiniband.mad.attributeid == 0x0015' 2>/dev/null | wc -l)
bad=$({ "${as_user[@]}" tshark -r "$tmp/fabric.pcapng" --disable-protocol madpmd -Y '_ws.malformed || _ws.expert.severity >= 8388608' 2>/dev/null || echo "tshark failed"; } | wc -l)
[ "$frames" -gt 100 ] && [ "$sets" -gt 0 ] && [ "$bad" -eq 0 ]
ok $? "the fabric capture decodes in stock tshark: $frames frames, $sets SubnSet(PortInfo) from OpenSM, $bad malformed"
# records (OpenSM's umad sends and receives, port events) and wire packets
# of every port, written in the order they happened
back=$("${as_user[@]}" tshark -r "$tmp/fabric.pcapng" --disable-protocol madpmd -T fields \
	-e frame.number -e frame.time_delta 2>/dev/null | awk '$2 ~ /^-/ { print $1 }' | head -3 | tr '\n' ' ')
recs=$("${as_user[@]}" tshark -r "$tmp/fabric.pcapng" --disable-protocol madpmd \
	-Y 'exported_pdu.prot_name == "madpmd"' 2>/dev/null | wc -l)
[ -z "$back" ] && [ "$recs" -gt 0 ]
ok $? "the capture's $frames frames ($recs records) are in time order${back:+: frames $back precede their predecessor}"

tap_done
