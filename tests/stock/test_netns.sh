#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# One fabric, two daemons, two network namespaces: ibsim's
# net.2sw2path4hca split in half (Switch1, Hca1, Hca3 in namespace A;
# Switch2, Hca2, Hca4 in B, each daemon given the whole file and
# --nodes), its two cables between the switches carried by two veth
# pairs through net_af_packet. Stock `opensm -o` in A brings up the nodes
# of both; stock ibnetdiscover, from either side, sees the fabric ibsim
# sees in the whole file; ibtracert, smpquery, perfquery and rping (its
# path from a resident OpenSM's SA) cross from one daemon to the other;
# stock dumpcap on a veth captures the IB
# frames in their Ethernet envelope and stock tshark with the plugin
# decodes them; frames that are not IB, or cut short, are dropped and
# counted while the fabric keeps working. The links train on each end's
# heartbeats (EtherType 0x88b6, decoded by the plugin): when B goes away
# A's ends go Down and the resident SM, told by trap 128, drops B's
# nodes; B back, the SM brings it Active again; a port disabled by
# ibportstate takes the other daemon's end down with it. The same for a
# cable between a net_hca port and a served CA.
# Usage: test_netns.sh <madpmd> <madpmd-run> <madpmd.so plugin>
set -u
madpmd=$1
run=$2
plugin=$3
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/ibnd.sh"

net=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP network namespaces and veths need root"
	exit 0
fi
for t in ip opensm ibnetdiscover dumpcap tshark python3; do
	command -v $t > /dev/null || { echo "1..0 # SKIP $t is not installed"; exit 0; }
done
[ -r "$net" ] || { echo "1..0 # SKIP $net missing (apt-get install ibsim-utils)"; exit 0; }

tmp=$(mktemp -d /tmp/madpmd-netns.XXXXXX)
nsa=madpmd-a-$$
nsb=madpmd-b-$$
eal_prefixes=(madpmd-netns-a-$$ madpmd-netns-b-$$ madpmd-netns-c-$$)
# the namespaces take their veths with them
trap 'tap_cleanup; ip netns del $nsa 2>/dev/null; ip netns del $nsb 2>/dev/null' EXIT
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"

ip netns add $nsa && ip netns add $nsb &&
for c in 3 5; do
	ip link add mpa$c-$$ type veth peer name mpb$c-$$ &&
	ip link set mpa$c-$$ netns $nsa && ip link set mpb$c-$$ netns $nsb &&
	ip -n $nsa link set mpa$c-$$ up && ip -n $nsb link set mpb$c-$$ up || break
done
ip -n $nsa link show mpa5-$$ > /dev/null 2>&1 && ip -n $nsb link show mpb5-$$ > /dev/null 2>&1
ok $? "two namespaces, two veth pairs between them (one per Switch1--Switch2 cable)"
ina=(ip netns exec $nsa)
inb=(ip netns exec $nsb)

# B first: its switch is there when A's SM looks across. Patterns too.
start_b() {
	"${inb[@]}" "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-netns-b-$$ \
		--vdev "net_af_packet0,iface=mpb3-$$" --vdev "net_af_packet1,iface=mpb5-$$" -- \
		--run-dir "$tmp/run-b" --topology "$net" --nodes 'Switch2,Hca[24]' \
		--wire Switch2:3=net_af_packet0 --wire Switch2:5=net_af_packet1 \
		> "$tmp/madpmd-b$1.log" 2>&1 < /dev/null &
	db=$!
	pids+=($db)
}
start_b ""
# A's veth of cable 3 without the qdisc bypass: dumpcap sees what A sends
"${ina[@]}" "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-netns-a-$$ \
	--vdev "net_af_packet0,iface=mpa3-$$,qdisc_bypass=0" \
	--vdev "net_af_packet1,iface=mpa5-$$" -- \
	--run-dir "$tmp/run-a" --topology "$net" --nodes 'Switch1,Hca1,Hca3' \
	--wire Switch1:3=net_af_packet0 --wire Switch1:5=net_af_packet1 \
	--capture "$tmp/fabric-a.pcapng" > "$tmp/madpmd-a.log" 2>&1 < /dev/null &
da=$!
pids+=($da)
for i in $(seq 100); do
	[ -s "$tmp/run-a/ports" ] && [ -s "$tmp/run-b/ports" ] && break
	sleep 0.1
done
grep -q "runs 3 of the 6 nodes" "$tmp/madpmd-a.log" &&
	grep -q "runs 3 of the 6 nodes" "$tmp/madpmd-b.log" &&
	[ -S "$tmp/run-a/Hca3/umad" ] && [ ! -e "$tmp/run-a/Hca2" ] &&
	[ -S "$tmp/run-b/Hca4/umad" ] && [ ! -e "$tmp/run-b/Hca1" ]
ok $? "each daemon runs its three nodes of the file (--nodes), none of the other's"
# the crossing links train once both ends hear each other's heartbeats
port_is() {	# run-dir, port, its peer, state
	awk -v p="$2" -v d="$3" '$2 == p && $9 == d' "$tmp/$1/ports" | grep -q "$4"
}
for i in $(seq 50); do
	port_is run-a Switch1:3 net_af_packet0 LinkUp && port_is run-a Switch1:5 net_af_packet1 LinkUp &&
		port_is run-b Switch2:3 net_af_packet0 LinkUp && port_is run-b Switch2:5 net_af_packet1 LinkUp &&
		break
	sleep 0.1
done
port_is run-a Switch1:3 net_af_packet0 LinkUp && port_is run-a Switch1:5 net_af_packet1 LinkUp &&
	port_is run-b Switch2:3 net_af_packet0 LinkUp && port_is run-b Switch2:5 net_af_packet1 LinkUp
ok $? "the switch ports of the crossing cables are wired to net_af_packet and train (after $i looks)"

"${ina[@]}" dumpcap -q -i mpa3-$$ -w "$tmp/veth.pcapng" > "$tmp/dumpcap.log" 2>&1 &
dc=$!
pids+=($dc)
for i in $(seq 50); do grep -q "Capturing on" "$tmp/dumpcap.log" 2>/dev/null && break; sleep 0.1; done
sleep 0.3

"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" timeout 60 "$run" --node Hca1 \
	opensm -o -f "$tmp/opensm.log" > "$tmp/opensm.out" 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log" && ! grep -q "ERR" "$tmp/opensm.log"
ok $? "opensm -o on Hca1 in namespace A reaches SUBNET UP without errors"
grep ERR "$tmp/opensm.log" | head -n 5 | sed 's/^/# /'
# each daemon writes its ports file on its own clock: wait for both
for i in $(seq 30); do
	[ "$(grep -c Active "$tmp/run-a/ports")" = 6 ] && [ "$(grep -c Active "$tmp/run-b/ports")" = 6 ] && break
	sleep 0.1
done
[ "$(grep -c Active "$tmp/run-a/ports")" = 6 ] && [ "$(grep -c Active "$tmp/run-b/ports")" = 6 ]
ok $? "the SM in A brought B's ports Active too (6 and 6: 4 switch ports, 2 CA ports each)"
if [ "$(grep -c Active "$tmp/run-a/ports")" != 6 ] || [ "$(grep -c Active "$tmp/run-b/ports")" != 6 ]; then
	sed 's/^/# A: /' "$tmp/run-a/ports"
	sed 's/^/# B: /' "$tmp/run-b/ports"
	grep -h "link over" "$tmp/madpmd-a.log" "$tmp/madpmd-b.log" | sed 's/^/# /'
fi

"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" timeout 30 "$run" --node Hca1 \
	ibnetdiscover > "$tmp/ibnd-a" 2> "$tmp/ibnd-a.err"
topo_norm "$tmp/ibnd-a" > "$tmp/ibnd-a.norm"
[ "$(grep -c '^Switch' "$tmp/ibnd-a")" = 2 ] && [ "$(grep -c '^Ca' "$tmp/ibnd-a")" = 4 ] &&
	[ "$(wc -l < "$tmp/ibnd-a.norm")" = 12 ] &&
	grep -q '^Switch 8 "S-0000000000200000" \[5\] "S-0000000000200001"\[5\]$' "$tmp/ibnd-a.norm"
ok $? "ibnetdiscover from A: 2 switches, 4 CAs, both cables across ($(wc -l < "$tmp/ibnd-a.norm") cable ends)"
"${inb[@]}" env MADPMD_RUN_DIR="$tmp/run-b" timeout 30 "$run" --node Hca4 \
	ibnetdiscover > "$tmp/ibnd-b" 2> "$tmp/ibnd-b.err"
topo_norm "$tmp/ibnd-b" > "$tmp/ibnd-b.norm"
cmp -s "$tmp/ibnd-a.norm" "$tmp/ibnd-b.norm"
ok $? "ibnetdiscover from Hca4 in B sees the same fabric"

ibsim_view "$net" Hca1 "$tmp/ibnd.sim.norm"
rc=$?
if [ $rc = 2 ]; then
	skip "the fabric under ibsim" "ibsim or libumad2sim not installed"
else
	[ $rc = 0 ] && diff "$tmp/ibnd.sim.norm" "$tmp/ibnd-a.norm" > "$tmp/ibnd.diff"
	ok $? "the two daemons' fabric is the one ibsim makes of the whole file ($(wc -l < "$tmp/ibnd.sim.norm") cable ends there)"
	sed 's/^/# /' "$tmp/ibnd.diff"
fi

# LIDs the SM gave
lid_of() { sed -n "s/^\[1\].*# lid \([0-9]*\) lmc [0-9]* \"[^\"]*\" .*/\1/p" \
		<(grep -A1 "^Ca.*# \"$1\"" "$tmp/ibnd-a"); }
lid1=$(lid_of Hca1)
lid4=$(lid_of Hca4)
sw2=$(sed -n 's/^Switch.*# "Switch2" .*port 0 lid \([0-9]*\) .*/\1/p' "$tmp/ibnd-a")
sw1=$(sed -n 's/^Switch.*# "Switch1" .*port 0 lid \([0-9]*\) .*/\1/p' "$tmp/ibnd-a")
[ -n "$lid1" ] && [ -n "$lid4" ] && [ -n "$sw2" ]
ok $? "LIDs from ibnetdiscover: Hca1 $lid1, Hca4 $lid4, Switch2 $sw2"

"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" timeout 30 "$run" --node Hca1 \
	ibtracert "$lid1" "$lid4" > "$tmp/tracert" 2>&1
grep -q '"Switch1"' "$tmp/tracert" && grep -q '"Switch2"' "$tmp/tracert" &&
	grep -q "To ca .*\"Hca4\"" "$tmp/tracert"
ok $? "ibtracert Hca1 -> Hca4 goes Switch1, across the veth, Switch2"
sed 's/^/# /' "$tmp/tracert" | head -n 6

"${inb[@]}" env MADPMD_RUN_DIR="$tmp/run-b" timeout 30 "$run" --node Hca4 \
	smpquery nodedesc "$lid1" > "$tmp/nodedesc" 2>&1
grep -q "Node Description:.*Hca1" "$tmp/nodedesc"
ok $? "smpquery from Hca4 in B, LID-routed to Hca1 in A: $(tr -s '.' < "$tmp/nodedesc")"

# a veth's frames hold IB MTU 1024 at most: the crossing ports say so
# (MTUCap), and the SM set NeighborMTU to it; the local cables keep 4096
"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" timeout 30 "$run" --node Hca1 \
	smpquery -D portinfo 0,1 3 > "$tmp/pi3" 2>&1
"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" timeout 30 "$run" --node Hca1 \
	smpquery -D portinfo 0,1 1 > "$tmp/pi1" 2>&1
grep -q "^MtuCap:\.*1024$" "$tmp/pi3" && grep -q "^NeighborMTU:\.*1024$" "$tmp/pi3" &&
	grep -q "^MtuCap:\.*4096$" "$tmp/pi1" && grep -q "^NeighborMTU:\.*4096$" "$tmp/pi1" &&
	grep -q "Switch1\[3\]: IB over mpa3-$$, 1500 bytes a frame at most: MTUCap 1024" "$tmp/madpmd-a.log"
ok $? "Switch1[3] on the veth: MTUCap and NeighborMTU 1024 (the veth's 1500-byte frames); Switch1[1]: 4096"

pq() {	# PortXmitPkts of Switch2 port $1 or Hca4 (port 1), asked from A
	"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" timeout 30 "$run" --node Hca3 \
		perfquery "$@" 2>&1 | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)$/\1/p'
}
x1=$(pq "$lid4" 1)
x2=$(pq "$lid4" 1)
s3=$(pq "$sw2" 3)
s5=$(pq "$sw2" 5)
[ -n "$x1" ] && [ -n "$x2" ] && [ "$x2" -gt "$x1" ] && [ "${s3:-0}" -gt 0 ] && [ "${s5:-0}" -gt 0 ]
ok $? "perfquery from Hca3 in A: Hca4's PortXmitPkts moves ($x1, then $x2), Switch2 sent on both cables ($s3, $s5)"

# Switch1[5]'s PortRcvErrors, asked from A
rcv_errs() {
	"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" timeout 30 "$run" --node Hca1 \
		perfquery "$sw1" 5 2>&1 | sed -n 's/^PortRcvErrors:\.*\([0-9]*\)$/\1/p'
}
e0=$(rcv_errs)
# what is not an IB frame, or is cut short, or is damaged, arrives on A's
# veth of cable 5
"${inb[@]}" python3 - "mpb5-$$" <<'EOF' 2> "$tmp/inject.err"
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
src = bytes.fromhex('020000000099')
bcast = b'\xff' * 6
# an IPv4 EtherType: not ours
s.send(bcast + src + b'\x08\x00' + bytes(46))
# our EtherType, an LRH whose PktLen (64 words) the frame does not hold
s.send(bcast + src + b'\x88\xb5' + bytes.fromhex('f0020001004000ff') + bytes(38))
# our EtherType, too short for an LRH at all
s.send(bcast + src + b'\x88\xb5' + b'\xf0\x02')
# an SMP as long as its LRH says (72 words and the VCRC), CRCs zero:
# a wire from outside is checked, a cable in the daemon is not. From B's
# own MAC, which A's end learns from every IB frame
src = bytes.fromhex(open('/sys/class/net/%s/address' % sys.argv[1]).read().strip().replace(':', ''))
lrh = bytes.fromhex('f002ffff0048ffff')
bth = bytes.fromhex('6400ffff000000000000000000000000')[:12]
deth = bytes(8)
mad = bytes.fromhex('01810101') + bytes(252)
s.send(bcast + src + b'\x88\xb5' + lrh + bth + deth + mad + bytes(4 + 2))
EOF
ok $? "four frames injected on the veth of cable 5 (IPv4, IB cut short, 2 bytes, an SMP with bad CRCs)"
e1=$(rcv_errs)
[ -n "$e0" ] && [ -n "$e1" ] && [ "$e1" = $((e0 + 1)) ]
ok $? "perfquery: Switch1[5] checked the SMP's CRCs and dropped it, PortRcvErrors $e0 -> $e1"
"${inb[@]}" env MADPMD_RUN_DIR="$tmp/run-b" timeout 30 "$run" --node Hca2 \
	smpquery nodedesc "$lid1" > "$tmp/nodedesc2" 2>&1
grep -q "Node Description:.*Hca1" "$tmp/nodedesc2"
ok $? "the fabric still answers across both daemons after them"

# a stranger on cable 5's segment: heartbeats in B's name and in its own,
# SMPs, for 1.5 s. A's end keeps its trained peer: no flap, no take-over
forge=$(dirname "$0")/link_forge.py
"${inb[@]}" python3 "$forge" mpb5-$$ 1.5 peer deaf ib 2> "$tmp/forge.err"
ok $? "a stranger's heartbeats (in B's name with an interval of 65535 ms; another port's) and SMPs for 1.5 s on cable 5"
sleep 0.3
"${inb[@]}" env MADPMD_RUN_DIR="$tmp/run-b" timeout 30 "$run" --node Hca2 \
	smpquery nodedesc "$lid1" > "$tmp/nodedesc2" 2>&1
! grep -q "Switch1\[5\]: link over net_af_packet1 down" "$tmp/madpmd-a.log" &&
	port_is run-a Switch1:5 net_af_packet1 Active && grep -q "Node Description:.*Hca1" "$tmp/nodedesc2"
ok $? "A's Switch1[5] stays up and Active with its trained peer through it; the fabric answers across"

# rdma_cm across on IB: a resident OpenSM in A answers B's PathRecord
# query; A finds Hca4's address in the table it made from the file
"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" "$run" --node Hca1 \
	opensm -f "$tmp/opensm.res.log" > /dev/null 2>&1 &
osm=$!
pids+=($osm)
for i in $(seq 100); do grep -q "SUBNET UP" "$tmp/opensm.res.log" 2>/dev/null && break; sleep 0.1; done
addr4=$("${inb[@]}" env MADPMD_RUN_DIR="$tmp/run-b" "$run" --node Hca4 --print-addr)
"${inb[@]}" env MADPMD_RUN_DIR="$tmp/run-b" timeout 60 "$run" --node Hca4 \
	rping -s -a "$addr4" -C 10 -v > "$tmp/ibrping.srv" 2>&1 &
srv=$!
pids+=($srv)
sleep 0.5
"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" timeout 60 "$run" --node Hca1 \
	rping -c -a "$addr4" -C 10 -v -V > "$tmp/ibrping.cli" 2>&1
rc1=$?
wait $srv
rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$(grep -c 'ping data: rdma-ping-' "$tmp/ibrping.cli")" = 10 ] &&
	[ "$(grep -c 'server ping data: rdma-ping-' "$tmp/ibrping.srv")" = 10 ]
ok $? "IB: rping from Hca1 in A to Hca4 ($addr4) in B through both switches, the route from A's SM, 10 validated pings (exit $rc1, $rc2)"
"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" timeout 30 "$run" --node Hca1 \
	saquery -p --src-to-dst "$lid1:$lid4" > "$tmp/path14" 2>&1
"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" timeout 30 "$run" --node Hca1 \
	saquery -p --src-to-dst "$lid1:$(lid_of Hca3)" > "$tmp/path13" 2>&1
grep -q "^[[:space:]]*mtu\.*0x83$" "$tmp/path14" && grep -q "^[[:space:]]*mtu\.*0x85$" "$tmp/path13"
ok $? "the SA's PathRecord Hca1 -> Hca4 across the veth has MTU 1024, Hca1 -> Hca3 4096 ($(grep -h mtu "$tmp/path14" "$tmp/path13" | tr -s ' \t.' ' ' | tr '\n' ';'))"

# B goes away: its heartbeats stop, A's ends of both cables go down, and
# the resident SM hears of it (trap 128) and drops B's nodes
sa_nodes() {	# NodeRecords A's SM has
	"${ina[@]}" env MADPMD_RUN_DIR="$tmp/run-a" timeout 30 "$run" --node Hca3 \
		saquery -N 2>/dev/null | grep -c "NodeRecord dump"
}
# a stranger's heartbeats in B's name, hearing A, keep coming: they do
# not keep the dead peer's link up, nor take it once it is down
"${inb[@]}" python3 "$forge" mpb5-$$ 10 peer 2> "$tmp/forge2.err" &
fg=$!
pids+=($fg)
sleep 0.3
downs5() { grep -c "Switch1\[5\]: link over net_af_packet1 down" "$tmp/madpmd-a.log"; }
d0=$(downs5)
daemon_stop_check "$db" "$tmp/madpmd-b.log"
ok $? "daemon B stops cleanly on SIGTERM"
t0=$(date +%s%N)
for i in $(seq 50); do
	[ "$(downs5)" -gt "$d0" ] && break
	sleep 0.05
done
t1=$(date +%s%N)
stop "$fg"
[ "$(downs5)" -gt "$d0" ]
ok $? "a stranger's heartbeats in B's name (interval 65535 ms) do not keep cable 5 up: Down $(((t1 - t0) / 1000000)) ms after B stopped"
for i in $(seq 50); do
	! port_is run-a Switch1:3 net_af_packet0 LinkUp && ! port_is run-a Switch1:5 net_af_packet1 LinkUp && break
	sleep 0.1
done
port_is run-a Switch1:3 net_af_packet0 Polling && port_is run-a Switch1:5 net_af_packet1 Polling &&
	grep -q "Switch1\[3\]: link over net_af_packet0 down" "$tmp/madpmd-a.log"
ok $? "A's ends of both cables go Down/Polling when B's heartbeats stop ($((i / 10)).$((i % 10)) s after)"
for i in $(seq 50); do [ "$(sa_nodes)" = 3 ] && break; sleep 0.2; done
nodes=$(sa_nodes)
[ "$nodes" = 3 ] && grep -q "num:128 (Link state change) Producer:2 (Switch)" "$tmp/opensm.res.log"
ok $? "the resident SM in A heard trap 128 and dropped B's nodes: $nodes NodeRecords (Switch1, Hca1, Hca3)"
grep "num:128" "$tmp/opensm.res.log" | head -n 2 | sed 's/^/# /'

# B comes back: the links train again and the SM brings B's ports Active
rm -f "$tmp/run-b/ports"
start_b -again
back() {
	[ "$(grep -c Active "$tmp/run-b/ports" 2>/dev/null)" = 6 ] && port_is run-a Switch1:3 net_af_packet0 Active &&
		port_is run-a Switch1:5 net_af_packet1 Active
}
for i in $(seq 100); do back && break; sleep 0.1; done
back && [ "$(sa_nodes)" = 6 ] &&
	[ "$(grep -c "Switch1\[5\]: link over net_af_packet1 up" "$tmp/madpmd-a.log")" = 2 ]
ok $? "B back: both links up again, the SM brought B's 6 ports Active ($((i / 10)).$((i % 10)) s) and has 6 NodeRecords"
"${inb[@]}" env MADPMD_RUN_DIR="$tmp/run-b" timeout 30 "$run" --node Hca2 \
	smpquery nodedesc "$lid1" > "$tmp/nodedesc3" 2>&1
grep -q "Node Description:.*Hca1" "$tmp/nodedesc3"
ok $? "the new B's Hca2 reaches Hca1 in A at its old LID $lid1"

# a disabled port stops training: B's SM-side tool disables Switch2's end
# of cable 3, and A's end goes down with it (cable 5 stays); enabled, both
# train again
ibps() {
	"${inb[@]}" env MADPMD_RUN_DIR="$tmp/run-b" timeout 30 "$run" --node Hca4 \
		ibportstate "$sw2" 3 "$1" > "$tmp/ibportstate.$1" 2>&1
}
ibps disable
rc=$?
for i in $(seq 50); do port_is run-a Switch1:3 net_af_packet0 Polling && break; sleep 0.1; done
[ $rc = 0 ] && port_is run-a Switch1:3 net_af_packet0 Polling && port_is run-b Switch2:3 net_af_packet0 Disabled &&
	port_is run-a Switch1:5 net_af_packet1 LinkUp
ok $? "ibportstate disables Switch2[3] in B: A's Switch1[3] goes Down/Polling ($((i / 10)).$((i % 10)) s), cable 5 stays up"
ibps enable
rc=$?
for i in $(seq 50); do port_is run-a Switch1:3 net_af_packet0 LinkUp && port_is run-b Switch2:3 net_af_packet0 LinkUp && break; sleep 0.1; done
[ $rc = 0 ] && port_is run-a Switch1:3 net_af_packet0 LinkUp && port_is run-b Switch2:3 net_af_packet0 LinkUp
ok $? "ibportstate enables it: both ends of cable 3 train again ($((i / 10)).$((i % 10)) s)"
stop "$osm"

stop "$dc"
chmod 755 "$tmp"
chmod 644 "$tmp/veth.pcapng" "$tmp/fabric-a.pcapng" 2>/dev/null
mkdir -p "$tmp/plugins/4.0/epan" "$tmp/home" "$tmp/no-extcap" "$tmp/no-plugins"
cp "$plugin" "$tmp/plugins/4.0/epan/madpmd.so"
chmod -R a+rX "$tmp/plugins"
chmod 777 "$tmp/home"
plugdir=$tmp/plugins
ts() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- env HOME="$tmp/home" \
	WIRESHARK_PLUGIN_DIR="$plugdir" \
	WIRESHARK_EXTCAP_DIR="$tmp/no-extcap" tshark "$@"; }
ts -r "$tmp/veth.pcapng" -Y 'eth.type == 0x88b5' -T fields -e eth.src \
	-e infiniband.mad.method -e madpmd.icrc.status -e madpmd.vcrc.status \
	> "$tmp/veth.txt" 2> "$tmp/veth.err"
frames=$(wc -l < "$tmp/veth.txt")
srcs=$(cut -f1 "$tmp/veth.txt" | sort -u | wc -l)
reqs=$(awk -F'\t' '$2 == "0x01"' "$tmp/veth.txt" | wc -l)
resps=$(awk -F'\t' '$2 == "0x81"' "$tmp/veth.txt" | wc -l)
# madpmd checks the CRCs of the MADs (the RC traffic of rping is the
# stock dissector's alone)
mads=$(awk -F'\t' '$2 != ""' "$tmp/veth.txt" | wc -l)
good=$(awk -F'\t' '$2 != "" && $3 == "1" && $4 == "1"' "$tmp/veth.txt" | wc -l)
[ "$frames" -gt 20 ] && [ "$srcs" = 2 ] && [ "$reqs" -gt 0 ] && [ "$resps" -gt 0 ] &&
	[ "$good" = "$mads" ]
ok $? "dumpcap on the veth: $frames IB frames in EtherType 0x88b5, both ways ($srcs MACs), tshark decodes $reqs SMP requests and $resps answers, ICRC and VCRC good in $good of $mads MADs"
bad=$(ts -r "$tmp/veth.pcapng" -Y 'eth.type == 0x88b5 && (_ws.malformed || _ws.expert.severity >= 8388608)' 2>/dev/null | wc -l)
[ "$bad" = 0 ]
ok $? "no malformed frame, no expert error on the veth ($bad)"
ifs=$(ts -r "$tmp/fabric-a.pcapng" -Y 'frame.interface_name == "Switch1/3"' 2>/dev/null | wc -l)
[ "$ifs" -gt 0 ]
ok $? "A's own capture has the frames of Switch1/3, the port on the veth ($ifs)"

# the heartbeats on the veth, both ways, each naming the other end
ts -r "$tmp/veth.pcapng" -Y madpmd.link -T fields -e madpmd.link.guid \
	-e madpmd.link.port -e madpmd.link.heard_guid -e madpmd.link.interval \
	> "$tmp/hello.txt" 2> /dev/null
hs=$(cut -f1,2 "$tmp/hello.txt" | sort -u | tr '\t\n' ': ')
heard=$(awk -F'\t' '$3 != ""' "$tmp/hello.txt" | cut -f3 | sort -u | wc -l)
[ "$(cut -f1,2 "$tmp/hello.txt" | sort -u | wc -l)" = 2 ] && [ "$heard" = 2 ] &&
	grep -q $'0x0000000000200000\t3' "$tmp/hello.txt" && grep -q $'0x0000000000200001\t3' "$tmp/hello.txt"
ok $? "tshark decodes the heartbeats of cable 3 ($(wc -l < "$tmp/hello.txt")): Switch1[3] and Switch2[3] ($hs), each hearing the other"

daemon_stop_check "$db" "$tmp/madpmd-b-again.log"
ok $? "the second daemon B stops cleanly on SIGTERM"
daemon_stop_check "$da" "$tmp/madpmd-a.log"
ok $? "daemon A stops cleanly on SIGTERM"
line=$(grep "net_af_packet1, IB link of Switch1\[5\]" "$tmp/madpmd-a.log")
echo "# $line"
in5=$(echo "$line" | sed -n 's/.* \([0-9]*\) IB frames in.*/\1/p')
notours=$(echo "$line" | sed -n 's/.*dropped: \([0-9]*\) not ours.*/\1/p')
short=$(echo "$line" | sed -n 's/.*, \([0-9]*\) shorter than their LRH.*/\1/p')
strangers=$(echo "$line" | sed -n 's/.*, \([0-9]*\) from strangers.*/\1/p')
[ "${in5:-0}" -gt 0 ] && [ "${notours:-0}" -ge 1 ] && [ "${short:-0}" = 2 ] && [ "${strangers:-0}" -ge 100 ]
ok $? "A counted the injected frames: ${notours:-?} not ours, ${short:-?} cut short, ${strangers:-?} from strangers, beside ${in5:-?} IB frames"

# RoCE: the default fabric (hca1 -- hca2) split, --link roce, its cable a
# third veth pair carrying RoCEv2 as it is. Stock rping crosses, hca2's
# address resolved in A through the file alone.
ip link add mpra-$$ type veth peer name mprb-$$ &&
	ip link set mpra-$$ netns $nsa && ip link set mprb-$$ netns $nsb &&
	ip -n $nsa link set mpra-$$ up && ip -n $nsb link set mprb-$$ up
"${inb[@]}" "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-netns-b-$$ \
	--vdev "net_af_packet0,iface=mprb-$$" -- --run-dir "$tmp/roce-b" --link roce \
	--nodes hca2 --wire hca2:1=net_af_packet0 > "$tmp/roce-b.log" 2>&1 < /dev/null &
rb=$!
pids+=($rb)
"${ina[@]}" "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-netns-a-$$ \
	--vdev "net_af_packet0,iface=mpra-$$,qdisc_bypass=0" -- --run-dir "$tmp/roce-a" \
	--link roce --nodes hca1 --wire hca1:1=net_af_packet0 > "$tmp/roce-a.log" 2>&1 < /dev/null &
ra=$!
pids+=($ra)
for i in $(seq 100); do
	# the ports table is written once every port is set up and started
	# (the sockets come earlier, at probe, before the MTU is set)
	[ -S "$tmp/roce-a/hca1/umad" ] && [ -S "$tmp/roce-b/hca2/umad" ] &&
		[ -s "$tmp/roce-a/ports" ] && [ -s "$tmp/roce-b/ports" ] && break
	sleep 0.1
done
# a RoCE port's IB MTU follows what its interface's frames hold
"${ina[@]}" env MADPMD_RUN_DIR="$tmp/roce-a" timeout 30 "$run" --node hca1 \
	ibv_devinfo -v > "$tmp/devinfo" 2>&1
grep -q "active_mtu:.*1024 (3)" "$tmp/devinfo" && grep -q "max_mtu:.*4096 (5)" "$tmp/devinfo" &&
	grep -q "hca1:1: RoCE over mpra-$$, 1500 bytes a frame at most: IB MTU 1024" "$tmp/roce-a.log"
rc=$?
ok $rc "RoCE: stock ibv_devinfo shows hca1's active_mtu 1024 of max 4096, from the veth's MTU 1500"
[ $rc = 0 ] || grep -E 'mtu|RoCE over' "$tmp/devinfo" "$tmp/roce-a.log" | sed 's/^/# /'
"${ina[@]}" dumpcap -q -i mpra-$$ -w "$tmp/roce.pcapng" > "$tmp/dumpcap-roce.log" 2>&1 &
dc=$!
pids+=($dc)
for i in $(seq 50); do grep -q "Capturing on" "$tmp/dumpcap-roce.log" 2>/dev/null && break; sleep 0.1; done
sleep 0.3
addr2=$("${inb[@]}" env MADPMD_RUN_DIR="$tmp/roce-b" "$run" --node hca2 --print-addr)
"${inb[@]}" env MADPMD_RUN_DIR="$tmp/roce-b" timeout 60 "$run" --node hca2 \
	rping -s -a "$addr2" -C 10 -v > "$tmp/rping.srv" 2>&1 &
srv=$!
pids+=($srv)
sleep 0.5
"${ina[@]}" env MADPMD_RUN_DIR="$tmp/roce-a" timeout 60 "$run" --node hca1 \
	rping -c -a "$addr2" -C 10 -v -V > "$tmp/rping.cli" 2>&1
rc1=$?
wait $srv
rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$(grep -c 'ping data: rdma-ping-' "$tmp/rping.cli")" = 10 ] &&
	[ "$(grep -c 'server ping data: rdma-ping-' "$tmp/rping.srv")" = 10 ]
ok $? "RoCE: rping from hca1 in A to hca2 ($addr2) in B, 10 validated pings (exit $rc1, $rc2)"
# libpcap hands over what the kernel captured a block at a time
sleep 1
stop "$dc"
chmod 644 "$tmp/roce.pcapng"
# stock tshark without the plugin: RoCEv2 is UDP 4791
plugdir=$tmp/no-plugins
ts -r "$tmp/roce.pcapng" -Y infiniband \
	-T fields -e eth.src -e infiniband.mad.attributeid -e infiniband.bth.opcode \
	> "$tmp/roce.txt" 2> /dev/null
cm=$(awk -F'\t' '$2 == "0x0010" || $2 == "0x0013" || $2 == "0x0014"' "$tmp/roce.txt" | wc -l)
rc_ops=$(awk -F'\t' '$3 != "" && $3 != 100' "$tmp/roce.txt" | wc -l)
macs=$(cut -f1 "$tmp/roce.txt" | sort -u | wc -l)
[ "$cm" -ge 3 ] && [ "$rc_ops" -gt 20 ] && [ "$macs" = 2 ]
ok $? "RoCE: stock tshark (no plugin) on the veth decodes the CM's REQ, REP, RTU ($cm) and $rc_ops RC packets, both ways"
daemon_stop_check "$rb" "$tmp/roce-b.log" && daemon_stop_check "$ra" "$tmp/roce-a.log"
ok $? "RoCE: both daemons stop cleanly"

# the same cable as an IB link between two CAs: hca1 a net_hca port in A,
# hca2 a CA that B serves alone (--client-ports 0); each trains on the
# other's heartbeats and goes down when they stop
"${inb[@]}" "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-netns-b-$$ \
	--vdev "net_af_packet0,iface=mprb-$$" -- --run-dir "$tmp/ca-b" --client-ports 0 \
	--nodes hca2 --wire hca2:1=net_af_packet0 > "$tmp/ca-b.log" 2>&1 < /dev/null &
cb=$!
pids+=($cb)
"${ina[@]}" "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-netns-a-$$ \
	--vdev "net_af_packet0,iface=mpra-$$" -- --run-dir "$tmp/ca-a" \
	--nodes hca1 --wire hca1:1=net_af_packet0 > "$tmp/ca-a.log" 2>&1 < /dev/null &
ca=$!
pids+=($ca)
for i in $(seq 50); do
	port_is ca-a hca1:1 net_af_packet0 LinkUp 2>/dev/null && port_is ca-b hca2:1 net_af_packet0 LinkUp 2>/dev/null && break
	sleep 0.1
done
port_is ca-a hca1:1 net_af_packet0 LinkUp && port_is ca-b hca2:1 net_af_packet0 LinkUp
ok $? "IB, CA to CA: net_hca port hca1:1 in A and served hca2:1 in B train on each other's heartbeats ($((i / 10)).$((i % 10)) s)"
"${ina[@]}" env MADPMD_RUN_DIR="$tmp/ca-a" timeout 30 "$run" --node hca1 \
	smpquery -D nodedesc 0,1 > "$tmp/nodedesc-ca" 2>&1
grep -q "Node Description:.*hca2" "$tmp/nodedesc-ca"
ok $? "smpquery -D from hca1 in A: $(tr -s '.' < "$tmp/nodedesc-ca")"
"${ina[@]}" env MADPMD_RUN_DIR="$tmp/ca-a" timeout 30 "$run" --node hca1 \
	smpquery -D portinfo 0 1 > "$tmp/pi-ca1" 2>&1
"${ina[@]}" env MADPMD_RUN_DIR="$tmp/ca-a" timeout 30 "$run" --node hca1 \
	smpquery -D portinfo 0,1 1 > "$tmp/pi-ca2" 2>&1
grep -q "^MtuCap:\.*1024$" "$tmp/pi-ca1" && grep -q "^MtuCap:\.*1024$" "$tmp/pi-ca2"
ok $? "both ends on the veth say MTUCap 1024: net_hca hca1:1 and served hca2:1"
daemon_stop_check "$cb" "$tmp/ca-b.log"
ok $? "B stops cleanly"
for i in $(seq 50); do port_is ca-a hca1:1 net_af_packet0 Polling && break; sleep 0.1; done
port_is ca-a hca1:1 net_af_packet0 Polling && grep -q "hca1\[1\]: link over net_af_packet0 down" "$tmp/ca-a.log"
ok $? "hca1:1 in A goes Down/Polling when B's heartbeats stop ($((i / 10)).$((i % 10)) s)"
daemon_stop_check "$ca" "$tmp/ca-a.log"
ok $? "A stops cleanly"

# the veths crossed in A: each end hears who is really there and says
# that the file disagrees; the links come up all the same, as cables would
start_b -crossed
"${ina[@]}" "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-netns-a-$$ \
	--vdev "net_af_packet0,iface=mpa3-$$" --vdev "net_af_packet1,iface=mpa5-$$" -- \
	--run-dir "$tmp/run-x" --topology "$net" --nodes 'Switch1,Hca1,Hca3' \
	--wire Switch1:3=net_af_packet1 --wire Switch1:5=net_af_packet0 \
	> "$tmp/madpmd-x.log" 2>&1 < /dev/null &
dx=$!
pids+=($dx)
for i in $(seq 50); do grep -q "cables crossed" "$tmp/madpmd-x.log" "$tmp/madpmd-b-crossed.log" && break; sleep 0.1; done
sleep 0.3
grep -q "Switch1\[3\] over net_af_packet1: the other end is port 5 of 0x0000000000200001, the topology says Switch2\[3\] (0x0000000000200001): are the cables crossed?" "$tmp/madpmd-x.log" &&
	grep -q "Switch2\[3\] over net_af_packet0: the other end is port 5 of 0x0000000000200000" "$tmp/madpmd-b-crossed.log"
ok $? "cables crossed in A: both daemons say who is really at the other end and what the file says"
grep -h "cables crossed" "$tmp/madpmd-x.log" | head -n 1 | sed 's/^/# /'
daemon_stop_check "$dx" "$tmp/madpmd-x.log" && daemon_stop_check "$db" "$tmp/madpmd-b-crossed.log"
ok $? "both stop cleanly"

# mistakes are said
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-netns-c-$$ -- \
	--run-dir "$tmp/run-c" --topology "$net" --nodes 'Switch1,Hca9' \
	--duration 1 > "$tmp/typo.log" 2>&1 < /dev/null
rc=$?
[ $rc = 1 ] && grep -q 'no node of .* is named "Hca9"' "$tmp/typo.log"
ok $? "--nodes with a name the file lacks: exit 1 and the name ($rc)"
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-netns-c-$$ -- \
	--run-dir "$tmp/run-c" --topology "$net" --nodes 'Switch1,Hca1,Hca3' \
	--wire Hca2:1=net_af_packet0 --duration 1 > "$tmp/other.log" 2>&1 < /dev/null
rc=$?
[ $rc = 1 ] && grep -q 'no node port "Hca2:1" among the nodes this daemon runs' "$tmp/other.log"
ok $? "--wire on another daemon's node: exit 1 with the reason ($rc)"
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-netns-c-$$ -- \
	--run-dir "$tmp/run-c" --topology "$net" --nodes 'Switch1,Hca1,Hca3' \
	--duration 1 > "$tmp/dark.log" 2>&1 < /dev/null
rc=$?
[ $rc = 0 ] && grep -q "Switch1\[3\]'s cable leads to Switch2\[3\], which this daemon does not run" "$tmp/dark.log" &&
	grep -q "Switch1\[5\]'s cable leads to Switch2\[5\]" "$tmp/dark.log"
ok $? "a cable to another daemon's node without --wire: said, and the daemon runs ($rc)"
tap_done
