#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A three-level fat tree split between four daemons in four network
# namespaces (scripts/gen-fattree --part I/4: a quarter of the pods and
# of the spines each), every cut cable carried by the one net_af_packet
# trunk (--trunk) each daemon has on a veth into a bridge of a fifth
# namespace. One stock OpenSM, resident in the first, brings up the whole
# tree; stock ibnetdiscover from a CA of the first daemon and from one of
# the third sees every switch and CA, the same fabric ibsim makes of the
# whole file; ibtracert crosses from the first part to the last. The
# third daemon killed, the others' ends of its cables go down, the
# switches' traps tell the SM and its sweep drops that part; started
# again, its cables train, the SM brings it back, and the other parts
# answered throughout.
# Usage: test_fattree_split.sh <madpmd> <madpmd-run> <gen-fattree> [PORTS]
#        PORTS: the switches' (12 by default: 432 hosts, 180 switches)
set -u
madpmd=$1
run=$2
gen=$3
k=${4:-12}
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/ibnd.sh"

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP network namespaces and veths need root"
	exit 0
fi
for t in ip opensm ibnetdiscover saquery python3; do
	command -v $t > /dev/null || { echo "1..0 # SKIP $t is not installed"; exit 0; }
done

tmp=$(mktemp -d /tmp/madpmd-split.XXXXXX)
br=madpmd-br-$$
ns=(madpmd-s1-$$ madpmd-s2-$$ madpmd-s3-$$ madpmd-s4-$$)
eal_prefixes=(madpmd-split-1-$$ madpmd-split-2-$$ madpmd-split-3-$$ madpmd-split-4-$$)
# the namespaces take their veths and the bridge with them
trap 'tap_cleanup; for s in "${ns[@]}" $br; do ip netns del $s 2>/dev/null; done' EXIT
trap 'exit 143' TERM INT
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"

half=$((k / 2))
# the 36-port tree (11,664 hosts) takes OpenSM minutes across daemons
slow=$(( k > 12 ? 10 : 1 ))
hosts=$((k * half * half))
switches=$((k * k + half * half))
"$gen" --levels 3 --ports $k > "$tmp/tree"
cut=0
for i in 1 2 3 4; do
	"$gen" --levels 3 --ports $k --part $i/4 > "$tmp/part$i" 2> "$tmp/part$i.say"
	c=$(sed -n 's/.*; \([0-9]*\) of its cables lead to other parts$/\1/p' "$tmp/part$i.say")
	cut=$((cut + ${c:-0}))
done
cut=$((cut / 2))
[ "$(grep -c '^Hca' "$tmp/tree")" = $hosts ] &&
	[ "$(cat "$tmp/part"[1-4] | tr ',' '\n' | sort -u | wc -l)" = $((hosts + switches)) ] &&
	[ "$cut" -gt 0 ]
ok $? "gen-fattree --levels 3 --ports $k: $hosts hosts, $switches switches; --part I/4: four parts, each node in one, $cut cables cut"
sed 's/^/# /' "$tmp/part1.say"

ip netns add $br && ip -n $br link add br0 type bridge && ip -n $br link set br0 up &&
for i in 0 1 2 3; do
	ip netns add ${ns[i]} &&
	ip link add mt$i-$$ type veth peer name mb$i-$$ &&
	ip link set mt$i-$$ netns ${ns[i]} && ip link set mb$i-$$ netns $br &&
	ip -n $br link set mb$i-$$ master br0 && ip -n $br link set mb$i-$$ up &&
	ip -n ${ns[i]} link set mt$i-$$ up || break
done
ip -n ${ns[3]} link show mt3-$$ > /dev/null 2>&1
ok $? "four namespaces, each a veth into one bridge (a fifth namespace)"

# daemon i (0-3) runs part i+1; its first CA in the file has an ethdev
first_host() { tr ',' '\n' < "$tmp/part$1" | head -n 1; }
start() {	# index, log suffix
	ip netns exec ${ns[$1]} "$madpmd" --no-huge --no-pci -m 256 -l 0,1 \
		--file-prefix=${eal_prefixes[$1]} \
		--vdev "net_af_packet0,iface=mt$1-$$,framecnt=2048" -- \
		--run-dir "$tmp/run$1" --topology "$tmp/tree" \
		--nodes "$(cat "$tmp/part$(($1 + 1))")" --trunk net_af_packet0 \
		--client-ports 1 > "$tmp/madpmd$1$2.log" 2>&1 < /dev/null &
	d[$1]=$!
	pids+=(${d[$1]})
}
d=()
for i in 0 1 2 3; do start $i ""; done
all_up() {	# the log line of each daemon's trunk: every cable up
	local i
	for i in 0 1 2 3; do
		tail -n 20 "$tmp/madpmd$i${1:-}.log" 2>/dev/null | grep "(trunk): " | tail -n 1 |
			grep -q "(trunk): \([0-9]*\) of its \1 cables up" || return 1
	done
}
for i in $(seq 150); do all_up && break; sleep 0.2; done
all_up && grep -q "cables to other daemons' nodes over net_af_packet0 (trunk)" "$tmp/madpmd0.log" &&
	[ "$(sed -n 's/^madpmd: \([0-9]*\) cables to other.*/\1/p' "$tmp/madpmd"[0-3].log |
	     awk '{ s += $1 } END { print s / 2 }')" = $cut ]
ok $? "each daemon's trunk carries its cut cables, and all $cut train ($((i / 5)) s)"
grep -h "(trunk)" "$tmp/madpmd"[0-3].log | head -n 8 | sed 's/^/# /'

in0=(ip netns exec ${ns[0]} env MADPMD_RUN_DIR="$tmp/run0" timeout 120 "$run" --node H-1)
h3=$(first_host 3)
in2=(ip netns exec ${ns[2]} env MADPMD_RUN_DIR="$tmp/run2" timeout 120 "$run" --node "$h3")

# a resident SM in the first namespace, its log flushed line by line
ip netns exec ${ns[0]} env MADPMD_RUN_DIR="$tmp/run0" "$run" --node H-1 \
	opensm -d2 -f "$tmp/opensm.log" > "$tmp/opensm.out" 2>&1 < /dev/null &
sm=$!
pids+=($sm)
t0=$(date +%s%N)
for i in $(seq $((600 * slow))); do grep -q "SUBNET UP" "$tmp/opensm.log" 2>/dev/null && break; sleep 0.2; done
t1=$(date +%s%N)
grep -q "SUBNET UP" "$tmp/opensm.log" && ! grep -q "ERR" "$tmp/opensm.log" &&
	grep -q "tables configured on all switches" "$tmp/opensm.log"
ok $? "opensm on H-1 in the first namespace: SUBNET UP across the four daemons, no error, every switch programmed ($(((t1 - t0) / 1000000)) ms)"
grep ERR "$tmp/opensm.log" | head -n 5 | sed 's/^/# /'

active() {	# Active ports in daemon $1's ports file
	awk '$5 == "Active"' "$tmp/run$1/ports" 2>/dev/null | wc -l
}
# every switch port is cabled; each CA has one port
total() { echo $(($(active 0) + $(active 1) + $(active 2) + $(active 3))); }
for i in $(seq $((100 * slow))); do [ "$(total)" = $((switches * k + hosts)) ] && break; sleep 0.2; done
[ "$(total)" = $((switches * k + hosts)) ]
ok $? "every cabled port of the four daemons is Active: $(total) of $((switches * k + hosts))"

"${in0[@]}" ibnetdiscover > "$tmp/ibnd0" 2> "$tmp/ibnd0.err"
"${in2[@]}" ibnetdiscover > "$tmp/ibnd2" 2> "$tmp/ibnd2.err"
topo_norm "$tmp/ibnd0" > "$tmp/ibnd0.norm"
topo_norm "$tmp/ibnd2" > "$tmp/ibnd2.norm"
[ "$(grep -c '^Switch' "$tmp/ibnd0")" = $switches ] && [ "$(grep -c '^Ca' "$tmp/ibnd0")" = $hosts ] &&
	cmp -s "$tmp/ibnd0.norm" "$tmp/ibnd2.norm"
ok $? "ibnetdiscover from H-1 (first daemon) and $h3 (third): $switches switches, $hosts CAs, the same $(wc -l < "$tmp/ibnd0.norm") cable ends"

# ibsim holds 2,048 nodes without its tables raised
[ $((hosts + switches)) -le 2048 ] && ibsim_view "$tmp/tree" H-1 "$tmp/ibnd.sim.norm"
rc=$?
if [ $((hosts + switches)) -gt 2048 ]; then
	:
elif [ $rc = 2 ]; then
	skip "the tree under ibsim" "ibsim or libumad2sim not installed"
else
	[ $rc = 0 ] && diff "$tmp/ibnd.sim.norm" "$tmp/ibnd0.norm" > "$tmp/ibnd.diff"
	ok $? "the four daemons' fabric is the one ibsim makes of the whole file ($(wc -l < "$tmp/ibnd.sim.norm") cable ends there)"
	head -n 10 "$tmp/ibnd.diff" | sed 's/^/# /'
fi

far=$(ibnd_ca_lid "$tmp/ibnd0" H-$hosts)
near=$(ibnd_ca_lid "$tmp/ibnd0" H-1)
"${in0[@]}" ibtracert "$near" "$far" > "$tmp/trace" 2>&1
grep -q '"E-1-1"' "$tmp/trace" && grep -q '"C-[0-9]*"' "$tmp/trace" &&
	grep -q "\"E-$k-$half\"" "$tmp/trace" && grep -q "To ca .*\"H-$hosts\"" "$tmp/trace"
ok $? "ibtracert H-1 -> H-$hosts: from the first daemon's part over a spine to the last's"
sed 's/^/# /' "$tmp/trace"

# the third daemon dies: the others' ends of its cables go down, their
# switches trap, and the SM's sweep drops its part
sa_nodes() {
	"${in0[@]}" saquery -N 2>/dev/null | grep -c "NodeRecord dump"
}
part3=$(tr ',' '\n' < "$tmp/part3" | wc -l)
n0=$(sa_nodes)
kill -KILL ${d[2]}
wait ${d[2]} 2>/dev/null
t0=$(date +%s%N)
for i in $(seq $((300 * slow))); do [ "$(sa_nodes)" = $((hosts + switches - part3)) ] && break; sleep 0.2; done
t1=$(date +%s%N)
[ "$n0" = $((hosts + switches)) ] && [ "$(sa_nodes)" = $((hosts + switches - part3)) ] &&
	grep -q "num:128 (Link state change) Producer:2 (Switch)" "$tmp/opensm.log"
ok $? "the third daemon killed: trap 128, and the SM's NodeRecords go from $n0 to $(sa_nodes) (its $part3 nodes gone, $(((t1 - t0) / 1000000)) ms)"
"${in0[@]}" smpquery nodedesc "$far" > "$tmp/nd-far" 2>&1
grep -q "H-$hosts" "$tmp/nd-far"
ok $? "the last part still answers meanwhile: H-$hosts at LID $far"

rm -f "$tmp/run2/ports"
start 2 -again
back() {
	[ "$(sa_nodes)" = $((hosts + switches)) ] &&
		[ "$(total)" = $((switches * k + hosts)) ]
}
t0=$(date +%s%N)
for i in $(seq $((300 * slow))); do back && break; sleep 0.3; done
t1=$(date +%s%N)
back
ok $? "started again: its cables train, the SM brings its part back: $(sa_nodes) NodeRecords, $(total) ports Active ($(((t1 - t0) / 1000000)) ms)"
"${in2[@]}" ibnetdiscover > "$tmp/ibnd2b" 2> "$tmp/ibnd2b.err"
topo_norm "$tmp/ibnd2b" > "$tmp/ibnd2b.norm"
cmp -s "$tmp/ibnd0.norm" "$tmp/ibnd2b.norm"
ok $? "ibnetdiscover from the new third daemon's $h3 sees the whole tree again"

stop "$sm"
for i in 0 1 3; do
	daemon_stop_check "${d[i]}" "$tmp/madpmd$i.log"
	ok $? "daemon $((i + 1)) stops cleanly"
done
daemon_stop_check "${d[2]}" "$tmp/madpmd2-again.log"
ok $? "the third daemon, started again, stops cleanly"
grep -h "trunk of" "$tmp/madpmd"[0-3]*.log | sed 's/^/# /'
tap_done
