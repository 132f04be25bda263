#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The SM where ibsim puts it: port 0 of the first switch of
# net.2sw2path4hca. Stock tools open Switch1 as a switch device (port 0
# alone, as the kernel's sysfs shows a switch); stock `opensm -o` there
# brings the fabric up and ibnetdiscover from the switch sees what it sees
# from the same place under ibsim; a resident OpenSM on the switch is the
# master SM for the CAs (sminfo), its SA answers PathRecords across both
# switches, its IsSM bit is in the switch's port 0 and clears when it is
# killed, and a new one takes over; a standby there tells the master on a
# CA with trap 144 from the switch. Directed-route and LID-routed MADs
# leave from port 0; verbs on a switch's port 0 are refused at once.
# Usage: test_switch_sm.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/ibnd.sh"

net=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
if [ ! -r "$net" ] || ! command -v opensm > /dev/null ||
   ! command -v ibnetdiscover > /dev/null; then
	echo "1..0 # SKIP $net, opensm or infiniband-diags missing (apt-get install ibsim-utils opensm infiniband-diags)"
	exit 0
fi

tmp=$(mktemp -d /tmp/madpmd-switch-sm.XXXXXX)
eal_prefixes=(madpmd-switch-sm-$$)
export MADPMD_RUN_DIR=$tmp/run
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"

"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-switch-sm-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --topology "$net" --switch-clients 'Switch[2]' \
	> "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do
	[ -S "$MADPMD_RUN_DIR/Hca4/umad" ] && [ -S "$MADPMD_RUN_DIR/Switch1/umad" ] &&
		[ -S "$MADPMD_RUN_DIR/Switch2/umad" ] && break
	sleep 0.1
done
grep -q '^Switch1 0x0000000000200000 0$' "$MADPMD_RUN_DIR/nodes"
ok $? "Switch1's port 0 serves clients: listed as a switch node (no ports but 0)"

"$run" --node Switch1 ibstat > "$tmp/ibstat.sw" 2>&1
grep -q "^Switch 'madpmd0'" "$tmp/ibstat.sw" && grep -q "Number of ports: 0" "$tmp/ibstat.sw" &&
	grep -q "^	Port 0:" "$tmp/ibstat.sw" && ! grep -q "^	Port [1-9]" "$tmp/ibstat.sw" &&
	grep -q "Port GUID: 0x0000000000200000" "$tmp/ibstat.sw"
ok $? "ibstat on Switch1: madpmd0, a switch with port 0 alone, as under ibsim and the kernel"
sed 's/^/# /' "$tmp/ibstat.sw" | head -n 4

"$run" --node Switch1 sh -c 'cat /sys/class/infiniband/madpmd0/node_type &&
	ls /sys/class/infiniband/madpmd0/ports &&
	cat /sys/class/infiniband_mad/umad0/port' > "$tmp/sysfs" 2>&1
if grep -q "no /sys/class/infiniband" "$tmp/sysfs"; then
	skip "/sys/class/infiniband of a switch" "$(head -n 1 "$tmp/sysfs")"
else
	[ "$(cat "$tmp/sysfs")" = "$(printf '2: switch\n0\n0')" ]
	ok $? "madpmd-run's /sys/class/infiniband/madpmd0 on Switch1: node_type 2: switch, ports/0 alone, umad0 is port 0"
	sed 's/^/# /' "$tmp/sysfs"
fi

"$run" --node Switch1 smpquery -D nodeinfo 0 > "$tmp/ni0" 2>&1
grep -q "NodeType:\.*Switch" "$tmp/ni0" && grep -q "LocalPort:\.*0$" "$tmp/ni0"
ok $? "smpquery -D nodeinfo 0 from Switch1: its own SMA, LocalPortNum 0"

timeout 60 "$run" --node Switch1 opensm -o -f "$tmp/opensm.log" > "$tmp/opensm.out" 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log" && ! grep -q "ERR" "$tmp/opensm.log"
ok $? "opensm -o on Switch1's port 0 reaches SUBNET UP without errors"
grep ERR "$tmp/opensm.log" | head -n 5 | sed 's/^/# /'

timeout 30 "$run" --node Switch1 ibnetdiscover > "$tmp/ibnd" 2> "$tmp/ibnd.err"
topo_norm "$tmp/ibnd" > "$tmp/ibnd.norm"
[ "$(grep -c '^Switch' "$tmp/ibnd")" = 2 ] && [ "$(grep -c '^Ca' "$tmp/ibnd")" = 4 ] &&
	[ "$(wc -l < "$tmp/ibnd.norm")" = 12 ] && [ ! -s "$tmp/ibnd.err" ]
ok $? "ibnetdiscover from Switch1: 2 switches, 4 CAs, 12 cable ends ($(wc -l < "$tmp/ibnd.norm"))"
ibsim_view "$net" Switch1 "$tmp/ibnd.sim.norm"
rc=$?
if [ $rc = 2 ]; then
	skip "ibnetdiscover from Switch1 under ibsim" "ibsim or libumad2sim not installed"
else
	[ $rc = 0 ] && diff "$tmp/ibnd.sim.norm" "$tmp/ibnd.norm" > "$tmp/ibnd.diff"
	ok $? "ibnetdiscover from Switch1: ibsim's nodes and cables, seen from ibsim's SM port ($(wc -l < "$tmp/ibnd.sim.norm") cable ends there)"
	sed 's/^/# /' "$tmp/ibnd.diff"
fi

sw1=$(sed -n 's/^Switch.*# "Switch1" .*port 0 lid \([0-9]*\) .*/\1/p' "$tmp/ibnd")
"$run" --node Hca2 ibstat > "$tmp/ibstat.Hca2" 2>&1
hca2=$(awk '/Base lid/ {print $3; exit}' "$tmp/ibstat.Hca2")
[ -n "$sw1" ] && [ "$sw1" != 0 ] && [ -n "$hca2" ] && [ "$hca2" != 0 ]
ok $? "LIDs: Switch1 $sw1, Hca2 $hca2"

"$run" --node Switch1 smpquery -D nodeinfo 0,3 > "$tmp/ni.dr" 2>&1
grep -q "Guid:\.*0x0000000000200001" "$tmp/ni.dr" && grep -q "LocalPort:\.*3$" "$tmp/ni.dr"
ok $? "smpquery -D nodeinfo 0,3 from Switch1: out its port 3 to Switch2 (LocalPortNum 3)"
"$run" --node Switch1 smpquery nodedesc "$hca2" > "$tmp/nd" 2>&1
grep -q "Hca2" "$tmp/nd"
ok $? "smpquery nodedesc $hca2 from Switch1: LID-routed from port 0 through both switches"
"$run" --node Switch1 perfquery "$hca2" 1 > "$tmp/pq" 2>&1
grep -q "PortSelect:\.*1$" "$tmp/pq" && grep -q "^PortRcvPkts" "$tmp/pq"
ok $? "perfquery $hca2 1 from Switch1: a GMP on QP1 from port 0 and its answer"

# --switch-clients: Switch2's port 0 serves clients too
"$run" --node Switch2 smpquery -D nodeinfo 0,3 > "$tmp/ni.sw2" 2>&1
grep -q '^Switch2 0x0000000000200001 0$' "$MADPMD_RUN_DIR/nodes" &&
	grep -q "Guid:\.*0x0000000000200000" "$tmp/ni.sw2" && grep -q "LocalPort:\.*3$" "$tmp/ni.sw2"
ok $? "--switch-clients 'Switch[2]': Switch2's port 0 serves clients too (smpquery -D 0,3 from it reaches Switch1)"

# sminfo from node $1 into file $2 until it names a master (matching the
# extended regex $3, if given), 10 s at most
# (OpenSM's log is buffered until it exits: ask the SM itself)
wait_master() {
	local i
	for i in $(seq 100); do
		"$run" --node "$1" sminfo > "$2" 2>&1
		grep -Eq "${3:-}.*SMINFO_MASTER" "$2" && return 0
		sleep 0.1
	done
	return 1
}

# a resident SM on the switch
"$run" --node Switch1 opensm -f "$tmp/opensm.res.log" > "$tmp/opensm.res.out" 2>&1 &
osm=$!
pids+=($osm)
wait_master Hca4 "$tmp/sminfo"
grep -q "sm lid $sw1 sm guid 0x200000, .* SMINFO_MASTER" "$tmp/sminfo"
ok $? "sminfo from Hca4: the master SM is on Switch1 (LID $sw1), its SMInfo answered by OpenSM itself"
sed 's/^/# /' "$tmp/sminfo"
"$run" --node Switch1 ibstat > "$tmp/ibstat.sm" 2>&1
cap=$(awk '/Capability mask/ {print $3; exit}' "$tmp/ibstat.sm")
[ -n "$cap" ] && [ $((cap & 2)) = 2 ] && grep -q "SM lid: $sw1" "$tmp/ibstat.sm"
ok $? "Switch1's port 0: IsSM set while OpenSM holds it (CapabilityMask $cap), SM LID $sw1"
"$run" --node Hca4 saquery -p --src-to-dst 6:4 > "$tmp/pr" 2>&1
"$run" --node Hca4 saquery > "$tmp/nr" 2>&1
[ "$(grep -c NodeRecord "$tmp/nr")" = 6 ] && grep -q "PathRecord dump" "$tmp/pr"
ok $? "saquery from Hca4 to the SA on Switch1: 6 NodeRecords, a PathRecord across the switches"
stop "$osm"
for i in $(seq 50); do
	"$run" --node Switch1 ibstat > "$tmp/ibstat.gone" 2>&1
	cap=$(awk '/Capability mask/ {print $3; exit}' "$tmp/ibstat.gone")
	[ -n "$cap" ] && [ $((cap & 2)) = 0 ] && break
	sleep 0.1
done
[ -n "$cap" ] && [ $((cap & 2)) = 0 ]
ok $? "OpenSM gone: IsSM clears on Switch1's port 0 ($cap)"
"$run" --node Switch1 opensm -f "$tmp/opensm.again.log" > /dev/null 2>&1 &
osm=$!
pids+=($osm)
wait_master Hca1 "$tmp/sminfo2"
# master before its sweep ends: SUBNET UP comes a moment later
for i in $(seq 100); do grep -q "SUBNET UP" "$tmp/opensm.again.log" && break; sleep 0.1; done
stop "$osm"
grep -q "SUBNET UP" "$tmp/opensm.again.log" && grep -q "SMINFO_MASTER" "$tmp/sminfo2"
ok $? "a new OpenSM on Switch1 takes over: SUBNET UP, master again"
sed 's/^/# /' "$tmp/sminfo2"

# an SM on the switch that is not the master: a master on Hca1 without
# periodic sweeps (-s 0) hears Switch1's trap 144 when the standby takes
# the ISSM (IsSM in port 0's CapabilityMask) and when it lets go, and
# sweeps: its SA lists 2 SMs, then 1 again
mkdir -p "$tmp/osm-master"
OSM_CACHE_DIR=$tmp/osm-master "$run" --node Hca1 opensm -s 0 -f "$tmp/opensm.master.log" > /dev/null 2>&1 &
master=$!
pids+=($master)
hca1_lid() { "$run" --node Hca1 ibstat 2>/dev/null | awk '/Base lid/ {print $3; exit}'; }
wait_master Hca4 "$tmp/sminfo3" "sm lid $(hca1_lid) "
sms() { "$run" --node Hca4 saquery -s 2>/dev/null | grep -c "PortInfoRecord dump"; }
before=$(sms)
"$run" --node Switch1 opensm -f "$tmp/opensm.standby.log" > /dev/null 2>&1 &
standby=$!
pids+=($standby)
for i in $(seq 100); do [ "$(sms)" = 2 ] && break; sleep 0.1; done
two=$(sms)
[ "$before" = 1 ] && [ "$two" = 2 ] && grep -q "SMINFO_MASTER" "$tmp/sminfo3"
ok $? "a standby OpenSM on Switch1: its trap 144 has the master on Hca1 (no periodic sweep) sweep, and the SA lists 2 SMs ($before before)"
stop "$standby"
for i in $(seq 100); do [ "$(sms)" = 1 ] && break; sleep 0.1; done
[ "$(sms)" = 1 ]
ok $? "the standby gone: IsSM cleared on Switch1, trap 144 again, the SA lists 1 SM"
stop "$master"
grep -q "Entering STANDBY state" "$tmp/opensm.standby.log" &&
	grep -q "num:144 .*Producer:2 (Switch)" "$tmp/opensm.master.log"
ok $? "OpenSM's logs: the one on Switch1 was standby, the master received trap 144 from a switch"

if command -v ibv_devinfo > /dev/null; then
	"$run" --node Switch1 ibv_devinfo > "$tmp/devinfo" 2>&1
	rc=$?
	"$run" --node Switch1 ibv_rc_pingpong -d Switch1 -g 0 > "$tmp/pingpong" 2>&1 &
	pp=$!
	pids+=($pp)
	for i in $(seq 50); do kill -0 "$pp" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$pp" 2>/dev/null
	alive=$?
	stop "$pp"
	[ "$alive" != 0 ]
	ok $? "verbs on Switch1's port 0 fail at once, they do not hang (ibv_devinfo rc $rc)"
else
	skip "verbs on a switch's port 0" "ibverbs-utils not installed"
fi

daemon_stop_check "$daemon" "$tmp/madpmd.log"
ok $? "madpmd stops cleanly"
tap_done
