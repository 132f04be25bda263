#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Switches: ibsim's example net.2sw2path4hca (two 8-port switches cabled
# twice, two CAs on each) in madpmd, then its examples net and
# net.2sw2path4hca2port. Stock `opensm -o` on Hca1 brings each up; stock
# ibnetdiscover sees the same switches, CAs and cables as under ibsim
# itself (when ibsim and libumad2sim are installed); LID-routed,
# directed-route and mixed SMPs, ibroute, ibtracert, ibportstate,
# perfquery and a resident OpenSM's SA cross the switches; the capture
# has the switch ports' frames, and with the plugin their Source and
# Destination name the CA ports that ibnetdiscover gives their LIDs; a
# switch port follows its peer CA's link set down and up at the prompt.
# Usage: test_switch.sh <madpmd> <madpmd-run> [madpmd.so plugin]
set -u
madpmd=$1
run=$2
plugin=${3:-}
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/ibnd.sh"

net=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
if [ ! -r "$net" ] || ! command -v opensm > /dev/null ||
   ! command -v ibnetdiscover > /dev/null; then
	echo "1..0 # SKIP $net, opensm or infiniband-diags missing (apt-get install ibsim-utils opensm infiniband-diags)"
	exit 0
fi

tmp=$(mktemp -d /tmp/madpmd-switch.XXXXXX)
eal_prefixes=(madpmd-switch-$$)
export MADPMD_RUN_DIR=$tmp/run
# our own OpenSM cache: a neighbour table of another fabric confuses it
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"


"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-switch-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --topology "$net" \
	--capture "$tmp/fabric.pcapng" > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/Hca4/umad" ] && break; sleep 0.1; done
[ -S "$MADPMD_RUN_DIR/Hca4/umad" ]
ok $? "madpmd starts $(basename "$net") with its two switches"

timeout 60 "$run" --node Hca1 opensm -o -f "$tmp/opensm.log" > "$tmp/opensm.out" 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log" && ! grep -q "ERR" "$tmp/opensm.log"
ok $? "opensm -o on Hca1 reaches SUBNET UP without errors"
grep ERR "$tmp/opensm.log" | head -n 5 | sed 's/^/# /'

timeout 30 "$run" --node Hca1 ibnetdiscover > "$tmp/ibnd" 2> "$tmp/ibnd.err"
topo_norm "$tmp/ibnd" > "$tmp/ibnd.norm"
[ "$(grep -c '^Switch' "$tmp/ibnd")" = 2 ] && [ "$(grep -c '^Ca' "$tmp/ibnd")" = 4 ] &&
	[ "$(wc -l < "$tmp/ibnd.norm")" = 12 ] && [ ! -s "$tmp/ibnd.err" ]
ok $? "ibnetdiscover: 2 switches, 4 CAs, 12 cable ends (6 cables) ($(wc -l < "$tmp/ibnd.norm"))"
grep -q '^Switch 8 "S-0000000000200000" \[3\] "S-0000000000200001"\[3\]$' "$tmp/ibnd.norm" &&
	grep -q '^Switch 8 "S-0000000000200000" \[5\] "S-0000000000200001"\[5\]$' "$tmp/ibnd.norm" &&
	grep -q '^Ca 2 "H-0000000000100009" \[1\](10000a) "S-0000000000200001"\[2\]$' "$tmp/ibnd.norm"
ok $? "ibnetdiscover: both cables Switch1[3,5]--Switch2[3,5], Hca4 on Switch2[2]"

# the same file under ibsim, the reference (tests/common/ibnd.sh)
have_ibsim=0
dpkg -L libumad2sim0 2>/dev/null | grep -q '/libumad2sim\.so$' &&
	command -v ibsim > /dev/null && have_ibsim=1
if [ "$have_ibsim" = 1 ]; then
	ibsim_view "$net" Hca1 "$tmp/ibnd.sim.norm" &&
		diff "$tmp/ibnd.sim.norm" "$tmp/ibnd.norm" > "$tmp/ibnd.diff"
	ok $? "ibnetdiscover's nodes and cables are ibsim's ($(wc -l < "$tmp/ibnd.sim.norm") cable ends there, seen through ibsim's simulated CA)"
	sed 's/^/# /' "$tmp/ibnd.diff"
else
	skip "ibnetdiscover under ibsim" "ibsim or libumad2sim not installed"
fi

# LIDs the SM gave
sw1=$(sed -n 's/^Switch.*# "Switch1" .*port 0 lid \([0-9]*\) .*/\1/p' "$tmp/ibnd")
"$run" --node Hca2 ibstat > "$tmp/ibstat.Hca2" 2>&1
hca2=$(awk '/Base lid/ {print $3; exit}' "$tmp/ibstat.Hca2")
"$run" --node Hca1 ibstat > "$tmp/ibstat.Hca1" 2>&1
hca1=$(awk '/Base lid/ {print $3; exit}' "$tmp/ibstat.Hca1")
[ -n "$sw1" ] && [ -n "$hca1" ] && [ -n "$hca2" ] && [ "$hca2" != 0 ]
ok $? "LIDs: Switch1 $sw1, Hca1 $hca1, Hca2 $hca2"

"$run" --node Hca1 smpquery nodedesc "$hca2" > "$tmp/nd" 2>&1
grep -q "Hca2" "$tmp/nd"
ok $? "smpquery nodedesc $hca2 from Hca1: LID-routed through both switches to Hca2"
"$run" --node Hca1 smpquery -D nodedesc 0,1,3,1 > "$tmp/nd.dr" 2>&1
grep -q "Hca2" "$tmp/nd.dr"
ok $? "smpquery -D nodedesc 0,1,3,1: directed route through both switches to Hca2"
"$run" --node Hca3 smpquery -D nodeinfo 0,1,5,2 > "$tmp/ni.dr" 2>&1
grep -q "Guid:\.*0x0000000000100009" "$tmp/ni.dr" && grep -q "LocalPort:\.*1" "$tmp/ni.dr"
ok $? "smpquery -D nodeinfo 0,1,5,2 from Hca3 (no SM there): Hca4 over the second cable"
"$run" --node Hca1 smpquery -D nodeinfo 0,1,3 > "$tmp/ni.sw" 2>&1
grep -q "NodeType:\.*Switch" "$tmp/ni.sw" && grep -q "LocalPort:\.*3" "$tmp/ni.sw"
ok $? "smpquery -D nodeinfo 0,1,3: Switch2, LocalPortNum 3"

"$run" --node Hca1 ibroute "$sw1" > "$tmp/ibroute" 2>&1
grep -q "6 valid lids dumped" "$tmp/ibroute" &&
	grep -Eq "^0x0*$(printf '%x' "$hca1") 001 " "$tmp/ibroute" &&
	grep -Eq "^0x0*$(printf '%x' "$hca2") 00[35] " "$tmp/ibroute"
ok $? "ibroute $sw1: Switch1's LFT as OpenSM set it (Hca1 on port 1, Hca2 over port 3 or 5)"
sed 's/^/# /' "$tmp/ibroute"

"$run" --node Hca1 ibtracert "$hca1" "$hca2" > "$tmp/trace" 2>&1
grep -q '"Switch1"' "$tmp/trace" && grep -q '"Switch2"' "$tmp/trace" &&
	grep -q 'To ca .*"Hca2"' "$tmp/trace"
ok $? "ibtracert $hca1 $hca2: Hca1 -> Switch1 -> Switch2 -> Hca2"

"$run" --node Hca1 perfquery "$sw1" 1 > "$tmp/pq" 2>&1
xp=$(awk -F. '/^PortXmitPkts/ {print $NF}' "$tmp/pq")
rp=$(awk -F. '/^PortRcvPkts/ {print $NF}' "$tmp/pq")
grep -q "PortSelect:\.*1$" "$tmp/pq" && [ "${xp:-0}" -gt 0 ] && [ "${rp:-0}" -gt 0 ]
ok $? "perfquery $sw1 1: the switch's PMA counts port 1 (PortXmitPkts $xp, PortRcvPkts $rp)"

# partition enforcement: OpenSM turns it on for the switch ports that face
# CAs (part_enforce both) and gives them the default partition; the
# switch keeps what it was set to, and the management traffic so far
# matched (no constraint error on that port)
"$run" --node Hca1 smpquery portinfo "$sw1" 1 > "$tmp/pi1" 2>&1
"$run" --node Hca1 smpquery portinfo "$sw1" 3 > "$tmp/pi3" 2>&1
"$run" --node Hca1 smpquery pkeys "$sw1" 1 > "$tmp/pk1" 2>&1
grep -q "PartEnforceInb:\.*1$" "$tmp/pi1" && grep -q "PartEnforceOutb:\.*1$" "$tmp/pi1" &&
	grep -q "PartEnforceOutb:\.*0$" "$tmp/pi3" && grep -q "^ *0: 0xffff" "$tmp/pk1" &&
	grep -q "PortXmitConstraintErrors:\.*0$" "$tmp/pq" &&
	grep -q "PortRcvConstraintErrors:\.*0$" "$tmp/pq"
ok $? "Switch1 port 1 (to Hca1) enforces partitions both ways as OpenSM set it, P_Key 0xffff, no constraint error; port 3 (to Switch2) does not"

# a mixed route (IBA 14.2.2.3, which ibsim refuses): LID-routed to the
# switch, then directed out of the port to its peer
"$run" --node Hca1 ibportstate "$sw1" 3 query > "$tmp/ps" 2>&1
grep -q "Peer PortInfo" "$tmp/ps" && grep -q "DR path slid $hca1; dlid 65535; 0,3 port 3" "$tmp/ps" &&
	[ "$(grep -c 'LinkState:\.*Active' "$tmp/ps")" = 2 ]
ok $? "ibportstate $sw1 3 query: Switch1's port 3 and its peer over a LID-then-directed route"

# a resident OpenSM: its SA answers across the switches
"$run" --node Hca1 opensm -f "$tmp/opensm-res.log" > /dev/null 2>&1 &
osm=$!
pids+=($osm)
for i in $(seq 100); do grep -q "SUBNET UP" "$tmp/opensm-res.log" 2>/dev/null && break; sleep 0.1; done
"$run" --node Hca4 sminfo > "$tmp/sminfo" 2>&1
grep -q "sm lid $hca1 .*SMINFO_MASTER" "$tmp/sminfo"
ok $? "sminfo from Hca4: $(cat "$tmp/sminfo")"
"$run" --node Hca4 saquery -p > "$tmp/sa.p" 2>&1
[ "$(grep -c 'PathRecord dump' "$tmp/sa.p")" = 36 ]
ok $? "saquery -p from Hca4: a PathRecord between each pair of the 6 ports ($(grep -c 'PathRecord dump' "$tmp/sa.p"))"
"$run" --node Hca4 saquery -N > "$tmp/sa.N" 2>&1
[ "$(grep -c 'NodeRecord dump' "$tmp/sa.N")" = 6 ]
ok $? "saquery -N from Hca4: the 6 NodeRecords (RMPP across both switches)"
stop "$osm"

daemon_stop_check "$daemon" "$tmp/madpmd.log"
ok $? "madpmd stops cleanly on SIGTERM"

# the capture: an interface for each cabled switch port, the frames in
# and out of it, decoded by stock tshark
if command -v tshark > /dev/null; then
	tshark -r "$tmp/fabric.pcapng" -T fields -e frame.interface_name \
		-e frame.packet_flags_direction -e infiniband.mad.attributeid \
		> "$tmp/cap.fields" 2> "$tmp/cap.err"
	swifs=$(awk -F'\t' '$1 ~ /^Switch/ {print $1}' "$tmp/cap.fields" | sort -u | tr '\n' ' ')
	[ "$(echo $swifs | wc -w)" = 8 ] &&
		grep -q $'^Switch2/3\t0x00000001\t0x0010' "$tmp/cap.fields" &&
		grep -q $'^Switch2/3\t0x00000002\t0x0010' "$tmp/cap.fields"
	ok $? "capture: frames in and out of the 8 cabled switch ports ($swifs), NodeDescription both ways on Switch2/3"
	tshark -r "$tmp/fabric.pcapng" > "$tmp/cap.txt" 2>&1
	! grep -qi "malformed" "$tmp/cap.txt" && [ -s "$tmp/cap.txt" ]
	ok $? "capture: stock tshark decodes its $(wc -l < "$tmp/cap.txt") frames without a malformed one"
else
	skip "capture of switch ports" "tshark not installed"
fi
# the plugin, in tshark's two passes (as nobody, who may read a copy):
# every IB frame's Source and Destination name the CA port that holds the
# LID, as ibnetdiscover lists the ports' LIDs; a switch's own LID (perfquery
# and ibroute to Switch1) and the permissive LID stay numbers
if [ -n "$plugin" ] && command -v tshark > /dev/null; then
	view=$tmp/view
	mkdir -p "$view/plugins/4.0/epan" "$view/home"
	cp "$plugin" "$view/plugins/4.0/epan/madpmd.so"
	cp "$tmp/fabric.pcapng" "$view/"
	chmod 711 "$tmp"
	chmod -R a+rX "$view"
	chmod 777 "$view/home"
	as=()
	[ "$(id -u)" = 0 ] && as=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
	"${as[@]}" env HOME="$view/home" WIRESHARK_PLUGIN_DIR="$view/plugins" \
		tshark -2 -r "$view/fabric.pcapng" -Y infiniband.lrh -T fields \
		-e infiniband.lrh.slid -e infiniband.lrh.dlid -e _ws.col.Source \
		-e _ws.col.Destination > "$tmp/names" 2> "$tmp/names.err"
	# ibnetdiscover: Ca ... # "Hca1", then [1](guid) "S-..."[1] # lid 1 ...
	awk '/^Ca/ { ca = $0; sub(/^.*# "/, "", ca); sub(/".*$/, "", ca) }
	     /^Switch/ { ca = "" }
	     ca != "" && /^\[[0-9]+\]/ && /# lid / {
		p = $1; sub(/^\[/, "", p); sub(/\].*$/, "", p)
		l = $0; sub(/^.*# lid /, "", l); sub(/ .*$/, "", l)
		print l "\t" ca "/" p }' "$tmp/ibnd" > "$tmp/ca.lids"
	read -r nbad nca nsw <<< "$(awk -F'\t' -v sw="$sw1" '
		NR == FNR { n[$1] = $2; next }
		{ es = ($1 in n) ? n[$1] : "LID: " $1
		  ed = ($2 in n) ? n[$2] : "LID: " $2
		  if ($3 != es || $4 != ed) { bad++; if (bad <= 3) print > "/dev/stderr" }
		  if ($1 in n) ca++
		  if ($1 == sw) swn++ }
		END { print bad + 0, ca + 0, swn + 0 }' "$tmp/ca.lids" "$tmp/names" 2> "$tmp/names.bad")"
	[ "$(wc -l < "$tmp/ca.lids")" = 4 ] && [ "$nbad" = 0 ] && [ "$nca" -gt 0 ] &&
		[ "$nsw" -gt 0 ] && [ ! -s "$tmp/names.err" ]
	ok $? "plugin: Source and Destination of all $(wc -l < "$tmp/names") IB frames name the CA port of the LID ($(tr '\t\n' '= ' < "$tmp/ca.lids")as ibnetdiscover has them; $nca frames from CAs), Switch1's own LID $sw1 stays a number ($nsw frames); $nbad wrong"
	sed 's/^/# /' "$tmp/names.bad" "$tmp/names.err"
fi
# nodes of the daemon leave CRCs to the launcher (MPD_PKT_CRC_LATER),
# which makes them for the capture: every frame's, checked on their own
python3 "$(dirname "$0")/../common/ib_crc.py" "$tmp/fabric.pcapng" \
	> "$tmp/crc.out" 2>&1
read -r nframes nbad < "$tmp/crc.out" || true
[ "${nframes:-0}" -gt 100 ] && [ "${nbad:-1}" = 0 ]
ok $? "capture: ICRC and VCRC right in every one of its ${nframes:-no} IB frames (${nbad:-?} wrong)"

# ibsim's other examples with switches: up, and seen as under ibsim
for f in net net.2sw2path4hca2port; do
	net=$(dirname "$net")/$f
	[ -r "$net" ] || { skip "$f" "not installed"; continue; }
	rm -rf "$MADPMD_RUN_DIR" "$OSM_CACHE_DIR"
	mkdir -p "$OSM_CACHE_DIR"
	"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-switch-$$ \
		-- --run-dir "$MADPMD_RUN_DIR" --topology "$net" \
		> "$tmp/madpmd.$f.log" 2>&1 &
	daemon=$!
	pids+=($daemon)
	for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/Hca1/umad" ] && break; sleep 0.1; done
	timeout 60 "$run" --node Hca1 opensm -o -f "$tmp/opensm.$f.log" > /dev/null 2>&1
	timeout 30 "$run" --node Hca1 ibnetdiscover > "$tmp/ibnd.$f" 2> /dev/null
	topo_norm "$tmp/ibnd.$f" > "$tmp/ibnd.$f.norm"
	grep -q "SUBNET UP" "$tmp/opensm.$f.log" && ! grep -q "ERR" "$tmp/opensm.$f.log" &&
		[ "$(grep -c '^Switch' "$tmp/ibnd.$f")" = 2 ]
	ok $? "$f: opensm -o reaches SUBNET UP; ibnetdiscover sees $(grep -c '^Switch' "$tmp/ibnd.$f") switches, $(grep -c '^Ca' "$tmp/ibnd.$f") CAs, $(wc -l < "$tmp/ibnd.$f.norm") cable ends"
	if [ "$have_ibsim" = 1 ]; then
		ibsim_view "$net" Hca1 "$tmp/ibnd.sim.$f.norm" &&
			diff "$tmp/ibnd.sim.$f.norm" "$tmp/ibnd.$f.norm" > "$tmp/ibnd.$f.diff"
		ok $? "$f: ibnetdiscover's nodes and cables are ibsim's ($(wc -l < "$tmp/ibnd.sim.$f.norm") cable ends there)"
		sed 's/^/# /' "$tmp/ibnd.$f.diff"
	fi
	daemon_stop_check "$daemon" "$tmp/madpmd.$f.log"
	ok $? "$f: madpmd stops cleanly"
done

# a CA's link at the prompt: the switch port at the other end follows,
# and its trap 128 has a resident OpenSM without periodic sweeps (-s 0)
# bring it back. Hca4 is a CA the daemon serves alone (--client-ports 6:
# Hca1-3 have ethdevs).
net=$(dirname "$net")/net.2sw2path4hca
rm -rf "$MADPMD_RUN_DIR" "$OSM_CACHE_DIR"
mkdir -p "$OSM_CACHE_DIR"
mkfifo "$tmp/prompt"
exec 7<> "$tmp/prompt"
"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-switch-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --topology "$net" -i --client-ports 6 \
	< "$tmp/prompt" > "$tmp/madpmd.prompt.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/Hca3/umad" ] && break; sleep 0.1; done
"$run" --node Hca1 opensm -s 0 -p 15 -f "$tmp/opensm.link.log" > /dev/null 2>&1 &
osm=$!
pids+=($osm)
for i in $(seq 100); do grep -q "SUBNET UP" "$tmp/opensm.link.log" 2>/dev/null && break; sleep 0.1; done
echo "set link Hca3:1 down" >&7
for i in $(seq 50); do
	"$run" --node Hca1 smpquery -D portinfo 0,1 2 > "$tmp/pi.down" 2>&1
	grep -q "^LinkState:\.*Down" "$tmp/pi.down" && break
	sleep 0.1
done
for i in $(seq 50); do grep -q "num:128" "$tmp/opensm.link.log" && break; sleep 0.1; done
grep -q "^LinkState:\.*Down" "$tmp/pi.down" &&
	grep -q "num:128 (Link state change) Producer:2 (Switch)" "$tmp/opensm.link.log"
ok $? "set link Hca3:1 down: Switch1's port 2 goes Down, and the switch sends OpenSM trap 128"

echo "set link Hca3:1 up" >&7
for i in $(seq 50); do
	"$run" --node Hca1 smpquery -D portinfo 0,1 2 > "$tmp/pi.again" 2>&1
	grep -q "^LinkState:\.*Active" "$tmp/pi.again" && break
	sleep 0.1
done
grep -q "^LinkState:\.*Active" "$tmp/pi.again" &&
	grep -q "num:128 (Link state change) Producer:2 (Switch)" "$tmp/opensm.link.log"
ok $? "set link Hca3:1 up: Switch1's trap 128 has OpenSM (no periodic sweep) make port 2 Active again ($(grep -c 'num:128' "$tmp/opensm.link.log") traps logged)"

# the other way: a switch port disabled by an SMP takes the CA's link down
# with it (no partner: Down, Polling), and enabled trains it again
"$run" --node Hca1 ibportstate -D 0,1 2 disable > "$tmp/ps.dis" 2>&1
for i in $(seq 50); do
	"$run" --node Hca3 ibstat > "$tmp/ibstat.dis" 2>&1
	grep -A1 "Port 1:" "$tmp/ibstat.dis" | grep -q "State: Down" && break
	sleep 0.1
done
"$run" --node Hca1 smpquery -D portinfo 0,1 2 > "$tmp/pi.dis" 2>&1
grep -q "^PhysLinkState:\.*Disabled" "$tmp/pi.dis" &&
	grep -A1 "Port 1:" "$tmp/ibstat.dis" | grep -q "State: Down" &&
	grep -A2 "Port 1:" "$tmp/ibstat.dis" | grep -q "Physical state: Polling"
ok $? "ibportstate -D 0,1 2 disable: Switch1's port 2 Disabled, Hca3's port Down and Polling"
"$run" --node Hca1 ibportstate -D 0,1 2 enable > "$tmp/ps.en" 2>&1
for i in $(seq 80); do
	"$run" --node Hca3 ibstat > "$tmp/ibstat.en" 2>&1
	grep -A1 "Port 1:" "$tmp/ibstat.en" | grep -q "State: Active" && break
	sleep 0.1
done
grep -A1 "Port 1:" "$tmp/ibstat.en" | grep -q "State: Active"
ok $? "ibportstate -D 0,1 2 enable: the link trains, trap 128, OpenSM makes Hca3's port Active again"
# a cable between switches, from the prompt: Switch2's end follows
echo "set link Switch1:5 down" >&7
for i in $(seq 50); do
	"$run" --node Hca1 smpquery -D portinfo 0,1,3 5 > "$tmp/pi.s2" 2>&1
	grep -q "^LinkState:\.*Down" "$tmp/pi.s2" && break
	sleep 0.1
done
"$run" --node Hca1 smpquery -D portinfo 0,1 5 > "$tmp/pi.s1" 2>&1
grep -q "^LinkState:\.*Down" "$tmp/pi.s2" && grep -q "^PhysLinkState:\.*Polling" "$tmp/pi.s2" &&
	grep -q "^PhysLinkState:\.*Disabled" "$tmp/pi.s1"
ok $? "set link Switch1:5 down: that port Disabled, Switch2's port 5 at the other end Down and Polling"
echo "set link Switch1:5 up" >&7
for i in $(seq 80); do
	"$run" --node Hca1 smpquery -D portinfo 0,1,3 5 > "$tmp/pi.s2" 2>&1
	grep -q "^LinkState:\.*Active" "$tmp/pi.s2" && break
	sleep 0.1
done
grep -q "^LinkState:\.*Active" "$tmp/pi.s2"
ok $? "set link Switch1:5 up: the cable trains, and OpenSM brings both ends Active again"
# a served CA's link at the prompt: Switch2's port 2 at the other end
echo "set link Hca4:1 down" >&7
for i in $(seq 50); do
	"$run" --node Hca1 smpquery -D portinfo 0,1,3 2 > "$tmp/pi.h4" 2>&1
	grep -q "^LinkState:\.*Down" "$tmp/pi.h4" && break
	sleep 0.1
done
for i in $(seq 30); do grep -q "Hca4:1 .*served.*Disabled" "$MADPMD_RUN_DIR/ports" && break; sleep 0.1; done
grep -q "^LinkState:\.*Down" "$tmp/pi.h4" && grep -q "Hca4:1 .*served.*Down *Disabled" "$MADPMD_RUN_DIR/ports"
ok $? "set link Hca4:1 down on a served CA: it is Disabled, Switch2's port 2 goes Down"
echo "set link Hca4:1 up" >&7
for i in $(seq 80); do
	"$run" --node Hca1 smpquery -D portinfo 0,1,3,2 1 > "$tmp/pi.h4" 2>&1
	grep -q "^LinkState:\.*Active" "$tmp/pi.h4" && break
	sleep 0.1
done
grep -q "^LinkState:\.*Active" "$tmp/pi.h4"
ok $? "set link Hca4:1 up: it trains, and OpenSM (trap 128) makes Hca4's port Active again"
# a second OpenSM on Hca3 takes the ISSM: IsSM set in Hca3's CapabilityMask,
# and Hca3 sends the master trap 144, which has it (no periodic sweep)
# sweep and find the standby; it goes, and the same again
sms() { "$run" --node Hca1 saquery -s 2>/dev/null | grep -c "PortInfoRecord dump"; }
before=$(sms)
mkdir -p "$tmp/osm2-cache"
OSM_CACHE_DIR=$tmp/osm2-cache "$run" --node Hca3 opensm -p 1 -f "$tmp/opensm.standby.log" > /dev/null 2>&1 &
osm2=$!
pids+=($osm2)
for i in $(seq 50); do [ "$(grep -c "num:144" "$tmp/opensm.link.log")" -ge 1 ] && [ "$(sms)" = 2 ] && break; sleep 0.2; done
grep -q "Received Generic Notice type:4 num:144 .* Producer:1 (Channel Adapter)" "$tmp/opensm.link.log" &&
	[ "$before" = 1 ] && [ "$(sms)" = 2 ] && grep -q "Entering STANDBY state" "$tmp/opensm.standby.log"
ok $? "a standby OpenSM on Hca3: Hca3's trap 144 (new CapabilityMask) has the master sweep, and its SA lists 2 SMs ($before before)"
stop "$osm2"
for i in $(seq 50); do [ "$(grep -c "num:144" "$tmp/opensm.link.log")" -ge 2 ] && [ "$(sms)" = 1 ] && break; sleep 0.2; done
[ "$(grep -c "num:144" "$tmp/opensm.link.log")" = 2 ] && [ "$(sms)" = 1 ]
ok $? "the standby gone: IsSM cleared, a second trap 144, and the master's SA lists 1 SM again"
stop "$osm"
echo quit >&7
for i in $(seq 100); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
wait "$daemon"
ok $? "quit at the prompt: madpmd exits 0"
exec 7>&-

# M_Key: OpenSM keys every port (protection level 2); a switch asked
# without the key does not answer and sends the SM Bad M_Key trap 256
rm -rf "$MADPMD_RUN_DIR" "$OSM_CACHE_DIR"
mkdir -p "$OSM_CACHE_DIR"
printf 'm_key 0x0000000000001234\nm_key_protection_level 2\nm_key_lease_period 0\n' \
	> "$tmp/osm-mkey.conf"
"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-switch-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --topology "$net" > "$tmp/madpmd.mkey.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/Hca4/umad" ] && break; sleep 0.1; done
"$run" --node Hca1 opensm -F "$tmp/osm-mkey.conf" -s 0 -f "$tmp/opensm.mkey.log" > /dev/null 2>&1 &
osm=$!
pids+=($osm)
for i in $(seq 100); do grep -q "SUBNET UP" "$tmp/opensm.mkey.log" 2>/dev/null && break; sleep 0.1; done
"$run" --node Hca3 smpquery -t 300 -D portinfo 0,1 1 > "$tmp/mkey.no" 2>&1
rc=$?
"$run" --node Hca3 smpquery -y 0x1234 -D portinfo 0,1 1 > "$tmp/mkey.yes" 2>&1
for i in $(seq 30); do grep -q "num:256" "$tmp/opensm.mkey.log" && break; sleep 0.1; done
[ $rc != 0 ] && grep -q "^LinkState:\.*Active" "$tmp/mkey.yes" &&
	grep -q "num:256 (Bad M_Key) Producer:2 (Switch)" "$tmp/opensm.mkey.log"
ok $? "M_Key set by OpenSM: Switch1 answers smpquery -y with the key only, and without it sends OpenSM trap 256 (Bad M_Key, from a switch)"
stop "$osm"
daemon_stop_check "$daemon" "$tmp/madpmd.mkey.log"
ok $? "madpmd stops cleanly"
tap_done
