#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Two-port HCAs: each port serves its own clients (umad, umad.2; issm,
# issm.2), as the kernel has one umad and issm device per port. Two HCAs
# cabled port 1 to port 1 and port 2 to port 2 are two subnets; stock
# OpenSM brings each up from its own port of hca1 (-g PORT_GUID), and
# infiniband-diags reach the second subnet with -P 2; stock
# ibv_asyncwatch on hca2 hears both ports come up.
# Usage: test_multiport.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-multiport.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-mp-$$)
export MADPMD_RUN_DIR=$tmp/run
printf 'Hca 2 "hca1"\n[1] "hca2"[1]\n[2] "hca2"[2]\n\nHca 2 "hca2"\n[1] "hca1"[1]\n[2] "hca1"[2]\n' > "$tmp/net"

"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-mp-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --topology "$tmp/net" > "$tmp/madpmd.log" 2>&1 &
pids+=($!)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad.2" ] && break; sleep 0.1; done
[ -S "$MADPMD_RUN_DIR/hca1/umad" ] && [ -S "$MADPMD_RUN_DIR/hca1/umad.2" ] &&
	[ -p "$MADPMD_RUN_DIR/hca1/issm" ] && [ -p "$MADPMD_RUN_DIR/hca1/issm.2" ]
ok $? "each port of hca1 has its socket and ISSM device: $(ls "$MADPMD_RUN_DIR/hca1" | tr '\n' ' ')"

"$run" --node hca1 ibstat > "$tmp/ibstat.hca1" 2>&1
g1=$(awk '/Port 1:/ {p = 1} p && /Port GUID/ {print $3; exit}' "$tmp/ibstat.hca1")
g2=$(awk '/Port 2:/ {p = 1} p && /Port GUID/ {print $3; exit}' "$tmp/ibstat.hca1")
[ -n "$g1" ] && [ -n "$g2" ] && [ "$g1" != "$g2" ]
ok $? "ibstat lists both ports of hca1 ($g1, $g2)"

# stock ibv_asyncwatch on hca2, which opens the device and makes nothing:
# the kernel sends every port's events to every context
timeout 60 "$run" --node hca2 ibv_asyncwatch > "$tmp/watch.out" 2>&1 &
watcher=$!
pids+=($watcher)
for i in $(seq 100); do grep -q 'async event FD' "$tmp/watch.out" && break; sleep 0.1; done
for g in "$g1" "$g2"; do
	timeout 60 "$run" --node hca1 opensm -g "$g" -o -f "$tmp/opensm.$g.log" > /dev/null 2>&1
	grep -q "SUBNET UP" "$tmp/opensm.$g.log"
	ok $? "stock OpenSM on port $g reaches SUBNET UP"
done
for i in $(seq 50); do
	grep -q 'IBV_EVENT_PORT_ACTIVE.*port 2' "$tmp/watch.out" && break
	sleep 0.1
done
stop $watcher
grep -q 'IBV_EVENT_PORT_ACTIVE.*port 1' "$tmp/watch.out" &&
	grep -q 'IBV_EVENT_PORT_ACTIVE.*port 2' "$tmp/watch.out"
ok $? "stock ibv_asyncwatch on hca2 prints PORT_ACTIVE for both ports: $(grep PORT_ACTIVE "$tmp/watch.out" | tr '\n' ';')"
"$run" --node hca2 ibstat > "$tmp/ibstat.hca2" 2>&1
[ "$(grep -c 'State: Active' "$tmp/ibstat.hca2")" -eq 2 ]
ok $? "both ports of hca2 are Active, one subnet each"
"$run" --node hca1 ibstat > "$tmp/ibstat.hca1" 2>&1
l2=$(awk '/Port 2:/ {p = 1} p && /Base lid/ {print $3; exit}' "$tmp/ibstat.hca1")
"$run" --node hca2 smpquery -P 2 nodedesc "$l2" > "$tmp/nd" 2>&1
grep -q "hca1" "$tmp/nd"
ok $? "smpquery -P 2 nodedesc $l2 from hca2 reaches hca1 over the second subnet"
"$run" --node hca2 perfquery -P 2 "$l2" > "$tmp/pq" 2>&1
grep -q "PortSelect:\.*2$" "$tmp/pq"
ok $? "perfquery -P 2 $l2: hca1's PMA answers for port 2"

# a resident SM on port 2 only: IsSM on hca1:2, not hca1:1
"$run" --node hca1 opensm -g "$g2" -f "$tmp/opensm-res.log" > /dev/null 2>&1 &
pids+=($!)
for i in $(seq 100); do grep -q "SUBNET UP" "$tmp/opensm-res.log" 2>/dev/null && break; sleep 0.1; done
l1=$(awk '/Port 1:/ {p = 1} p && /Base lid/ {print $3; exit}' "$tmp/ibstat.hca1")
cm1=$("$run" --node hca1 smpquery -P 1 portinfo "$l1" 2>/dev/null | awk -F. '/^CapMask/ {print $NF}')
cm2=$("$run" --node hca1 smpquery -P 2 portinfo "$l2" 2>/dev/null | awk -F. '/^CapMask/ {print $NF}')
# CapabilityMask bit 1 is IsSM
[ -n "$cm1" ] && [ -n "$cm2" ] && (( (cm2 & 2) && !(cm1 & 2) ))
ok $? "OpenSM holding issm.2 sets IsSM on port 2 only (port 1:$cm1; port 2:$cm2)"
tap_done
