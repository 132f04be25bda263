#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# madpmd-run --net: a command in its node's own network namespace, where
# eth0 holds the node's address and reaches the other nodes' over the
# fabric, Ethernet beside RoCE on a RoCE port, in the same capture as the
# RDMA traffic it sets up; IPoIB on IB ports, joined to the broadcast
# group OpenSM made, across switches. Stock programs whose side channel is TCP to
# the peer's address run between two nodes: ping, qperf -cm 1 (rdma_cm
# to that address), libfabric's fi_pingpong with msg and rdm endpoints
# (its verbs provider finds the device behind eth0's address), perftest
# without -R (its exchange over TCP). tshark reads ARP, ICMP, TCP and
# RoCE in the one capture. The addresses exist only in those namespaces:
# none in the machine's, nothing sent to them from it. A daemon and its
# clients as nobody do the same in a user namespace.
# Usage: test_net.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
here=$(dirname "$0")
. "$here/../common/tap.sh"
. "$here/../common/stage.sh"
. "$here/../common/pair.sh"

tmp=$(mktemp -d /tmp/madpmd-net.XXXXXX)
chmod 755 "$tmp"
eal_prefixes=(madpmd-net-$$ madpmd-net-q-$$ madpmd-net-ib-$$ madpmd-net-nobody-$$)
export MADPMD_RUN_DIR=$tmp/run
port=$((20000 + ($$ + 7919) % 20000))

"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-net-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --link roce --capture "$tmp/cap.pcapng" \
	> "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do
	"$run" --node hca2 ibv_devinfo 2>/dev/null | grep -q PORT_ACTIVE && break
	sleep 0.1
done
a1=$("$run" --node hca1 --print-addr)
a2=$("$run" --node hca2 --print-addr)

"$run" --node hca2 --net ip -4 -o addr show > "$tmp/addr2" 2>&1
"$run" --node hca2 --net ip route show > "$tmp/route2" 2>&1
sed 's/^/# /' "$tmp/addr2" "$tmp/route2"
grep -q "^[0-9]*: eth0 .*inet $a2/16 " "$tmp/addr2" &&
	grep -q "^default dev eth0" "$tmp/route2"
ok $? "hca2 --net: eth0 holds hca2's address $a2, every address on its link"
"$run" --node hca2 --net sh -c 'cat /sys/class/net/eth0/address
	cat /sys/class/infiniband/madpmd0/ports/1/gid_attrs/ndevs/1' > "$tmp/sys2" 2>&1
[ "$(sed -n 2p "$tmp/sys2")" = eth0 ] && [ -n "$(head -1 "$tmp/sys2")" ]
ok $? "hca2 --net: /sys/class/net is the namespace's (eth0 $(head -1 "$tmp/sys2")), the RoCE GID's netdev is eth0"
# the machine's own namespace has none of it
! ip -4 -o addr show | grep -qE " ($a1|$a2)/"
ok $? "the machine's namespace has neither node's address"

# ping, with the second node's commands in its namespace beside
timeout 20 "$run" --node hca1 --net ping -c 3 -W 2 "$a2" > "$tmp/ping" 2>&1
rc=$?
grep -q "3 received" "$tmp/ping"
ok $? "hca1 --net: ping $a2 over the fabric, 3 of 3 answered (exit $rc)"

# libfabric: msg and rdm endpoints on the address behind eth0
for e in msg rdm; do
	port=$((port + 1))
	timeout 30 "$run" --node hca2 --net fi_pingpong -p verbs -e $e -B $port \
		-I 100 -S 64 > "$tmp/fi_$e.srv" 2>&1 &
	srv=$!
	pids+=($srv)
	sleep 1
	timeout 30 "$run" --node hca1 --net fi_pingpong -p verbs -e $e -P $port \
		-I 100 -S 64 "$a2" > "$tmp/fi_$e.cli" 2>&1
	rc=$?
	wait $srv
	rc1=$?
	grep -qE '^64 +100 +=100 ' "$tmp/fi_$e.cli" && [ $rc = 0 ] && [ $rc1 = 0 ]
	ok $? "fi_pingpong -p verbs -e $e to $a2: 100 of 100 (exit $rc1, $rc)"
done

# perftest without -R: its own exchange over TCP to the peer's address
port=$((port + 1))
timeout 60 "$run" --node hca2 --net ib_send_bw -d madpmd0 -x 1 -p $port -n 200 \
	> "$tmp/bw.srv" 2>&1 &
srv=$!
pids+=($srv)
sleep 1
timeout 60 "$run" --node hca1 --net ib_send_bw -d madpmd0 -x 1 -p $port -n 200 "$a2" \
	> "$tmp/bw.cli" 2>&1
rc=$?
wait $srv
rc1=$?
grep -qE '^ 65536 +200 ' "$tmp/bw.cli" && [ $rc = 0 ] && [ $rc1 = 0 ]
ok $? "ib_send_bw -x 1 to $a2 (no -R: the exchange over TCP), exit $rc1, $rc"

daemon_stop_check $daemon "$tmp/madpmd.log"
ok $? "the RoCE daemon stops cleanly"
line=$(grep "^madpmd: hca1:1 IP (madpmd-run --net): " "$tmp/madpmd.log")
echo "# $line"
n_in=$(echo "$line" | sed -n 's/.*: \([0-9]*\) frames to .*/\1/p')
n_out=$(echo "$line" | sed -n 's/.* \([0-9]*\) from it.*/\1/p')
[ "${n_in:-0}" -ge 20 ] && [ "${n_out:-0}" -ge 20 ]
ok $? "the daemon counts hca1's frames to and from its namespace at exit (${n_in:-?} in, ${n_out:-?} out)"

# the capture: the side channels beside the RDMA traffic they set up
# (stock tshark, stock dissectors: one pass, a word per frame of interest)
tshark -r "$tmp/cap.pcapng" -T fields -e _ws.col.Protocol -Y \
	"(arp.src.proto_ipv4 == $a1 && arp.dst.proto_ipv4 == $a2) ||
	 (icmp.type == 0 && ip.src == $a2 && ip.dst == $a1) ||
	 (tcp.flags.syn == 1 && tcp.flags.ack == 0 && ip.dst == $a2) ||
	 (udp.dstport == 4791 && infiniband)" > "$tmp/cap.txt" 2>/dev/null
arp=$(grep -c '^ARP' "$tmp/cap.txt")
icmp=$(grep -c '^ICMP' "$tmp/cap.txt")
syn=$(grep -c '^TCP' "$tmp/cap.txt")
roce=$(grep -vcE '^(ARP|ICMP|TCP)' "$tmp/cap.txt")
echo "# capture: $arp ARP, $icmp echo replies, $syn SYNs to $a2, $roce RoCE frames"
[ "$arp" -ge 1 ] && [ "$icmp" -ge 3 ] && [ "$syn" -ge 5 ] && [ "$roce" -ge 100 ]
ok $? "one capture: ARP, ICMP and TCP between the nodes' addresses, and the RoCE traffic"

# qperf on a daemon that captures nothing (its bandwidth tests would fill
# the capture with a million frames)
"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-net-q-$$ \
	-- --run-dir "$tmp/q" --link roce > "$tmp/q.log" 2>&1 &
qd=$!
pids+=($qd)
export MADPMD_RUN_DIR=$tmp/q
for i in $(seq 100); do
	"$run" --node hca2 ibv_devinfo 2>/dev/null | grep -q PORT_ACTIVE && break
	sleep 0.1
done
a2=$("$run" --node hca2 --print-addr)
# qperf: its control connection TCP to the peer's address, its RC tests
# connected by rdma_cm to the same address (-cm 1: qperf's own exchange
# sets no GRH, which RoCE needs; its UC and UD tests have no -cm, and run
# on IB in stock_middleware)
port=$((port + 1))
timeout 120 "$run" --node hca2 --net qperf -lp $port > "$tmp/qperf.srv" 2>&1 &
qsrv=$!
pids+=($qsrv)
sleep 0.5
for t in rc_lat rc_bw rc_rdma_write_lat rc_rdma_read_bw; do
	timeout 20 "$run" --node hca1 --net qperf -lp $port -t 1 -cm 1 "$a2" $t \
		> "$tmp/qperf.$t" 2>&1
	rc=$?
	res=$(grep -E '^ +(latency|bw) += ' "$tmp/qperf.$t" | head -1 | tr -s ' ')
	[ $rc = 0 ] && [ -n "$res" ] && ! grep -qi "error\|failed" "$tmp/qperf.$t"
	ok $? "qperf -cm 1 $a2 $t, control over TCP to the peer:$res (exit $rc)"
done
stop $qsrv

daemon_stop_check $qd "$tmp/q.log"
ok $? "the second RoCE daemon stops cleanly"
export MADPMD_RUN_DIR=$tmp/run

# IB: IPoIB on the broadcast group OpenSM made (a resident SM: its SA
# takes the join), across a switch fabric (ibsim's net.2sw2path4hca:
# Hca1 on Switch1, Hca4 on Switch2, the group forwarded by OpenSM's MFTs)
net=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-net-ib-$$ \
	-- --run-dir "$tmp/ib" --topology "$net" --capture "$tmp/ib.pcapng" \
	> "$tmp/ib.log" 2>&1 &
ib=$!
pids+=($ib)
export MADPMD_RUN_DIR=$tmp/ib
for i in $(seq 100); do [ -S "$tmp/ib/Hca4/umad" ] && break; sleep 0.1; done
resident_sm Hca1 "$tmp/opensm.log"
b1=$("$run" --node Hca1 --print-addr)
b4=$("$run" --node Hca4 --print-addr)
"$run" --node Hca4 --net ip -o addr show ib0 > "$tmp/ib0" 2>&1
sed 's/^/# /' "$tmp/ib0"
grep -q "inet $b4/16 " "$tmp/ib0" && grep -q "mtu 2044" <("$run" --node Hca4 --net ip link show ib0)
ok $? "IB: Hca4 --net has ib0 with its address $b4, MTU 2044 (IPoIB datagram mode on IB MTU 2048)"
for i in $(seq 20); do
	timeout 10 "$run" --node Hca1 --net ping -c 1 -W 1 "$b4" > /dev/null 2>&1 && break
	sleep 0.2
done
timeout 20 "$run" --node Hca1 --net ping -c 3 -W 2 "$b4" > "$tmp/ibping" 2>&1
rc=$?
grep -q "3 received" "$tmp/ibping"
ok $? "IB: Hca1 --net pings Hca4's $b4 across both switches over IPoIB, 3 of 3 (exit $rc)"
port=$((port + 1))
timeout 30 "$run" --node Hca4 --net fi_pingpong -p verbs -e msg -B $port -I 100 -S 64 \
	> "$tmp/ibfi.srv" 2>&1 &
srv=$!
pids+=($srv)
sleep 1
timeout 30 "$run" --node Hca1 --net fi_pingpong -p verbs -e msg -P $port -I 100 -S 64 "$b4" \
	> "$tmp/ibfi.cli" 2>&1
rc=$?
wait $srv
rc1=$?
grep -qE '^64 +100 +=100 ' "$tmp/ibfi.cli" && [ $rc = 0 ] && [ $rc1 = 0 ]
ok $? "IB: fi_pingpong -e msg to $b4 over the IPoIB address (exit $rc1, $rc)"
port=$((port + 1))
timeout 60 "$run" --node Hca4 --net qperf -lp $port > "$tmp/ibq.srv" 2>&1 &
qsrv=$!
pids+=($qsrv)
sleep 0.5
timeout 20 "$run" --node Hca1 --net qperf -lp $port -t 1 -cm 1 "$b4" rc_lat > "$tmp/ibq.cli" 2>&1
rc=$?
res=$(grep -E '^ +latency += ' "$tmp/ibq.cli" | tr -s ' ')
[ $rc = 0 ] && [ -n "$res" ]
ok $? "IB: qperf -cm 1 $b4 rc_lat, its control over TCP on IPoIB:$res (exit $rc)"
stop $qsrv
stop $sm
daemon_stop_check $ib "$tmp/ib.log"
ok $? "the IB daemon stops cleanly"
# the capture: the join, IPoIB ARP and IP, decoded by stock tshark
tshark -r "$tmp/ib.pcapng" -T fields -e _ws.col.Protocol -Y \
	"(infiniband.mad.attributeid == 0x0038 && infiniband.mad.method == 0x02) ||
	 (arp && infiniband.deth.srcqp == 2) ||
	 (icmp.type == 0 && ip.src == $b4 && infiniband) ||
	 (tcp.flags.syn == 1 && tcp.flags.ack == 0 && ip.dst == $b4 && infiniband)" \
	> "$tmp/ib.txt" 2>/dev/null
sort "$tmp/ib.txt" | uniq -c | sed 's/^/# capture: /'
[ "$(grep -c '^ARP' "$tmp/ib.txt")" -ge 2 ] && [ "$(grep -c '^ICMP' "$tmp/ib.txt")" -ge 3 ] &&
	[ "$(grep -c '^TCP' "$tmp/ib.txt")" -ge 2 ] &&
	[ "$(grep -cvE '^(ARP|ICMP|TCP)' "$tmp/ib.txt")" -ge 2 ]
ok $? "IB capture: each node's MCMemberRecord join, IPoIB ARP from QPN 2, ICMP and TCP, read by stock tshark"
grep "^madpmd: Hca[14]:1 IP " "$tmp/ib.log" | sed 's/^/# /'
export MADPMD_RUN_DIR=$tmp/run

# a normal user: daemon and clients as nobody, the namespace in a user
# namespace of theirs
if [ "$(id -u)" = 0 ]; then
	srun=$(stage_run "$tmp/stage" "$run")
	# the daemon too: the build tree may be out of nobody's reach
	cp "$madpmd" "$tmp/stage/madpmd" && chmod 755 "$tmp/stage/madpmd"
	as=(setpriv --reuid=nobody --regid=nogroup --clear-groups -- env HOME="$tmp"
	    XDG_RUNTIME_DIR="$tmp/xdg" MADPMD_RUN_DIR="$tmp/nrun")
	mkdir -p "$tmp/xdg" "$tmp/nrun" && chown nobody "$tmp/xdg" "$tmp/nrun"
	"${as[@]}" "$tmp/stage/madpmd" --no-huge --no-pci -m 256 -l 0,1 \
		--file-prefix=madpmd-net-nobody-$$ -- --run-dir "$tmp/nrun" --link roce \
		> "$tmp/nobody.log" 2>&1 &
	nd=$!
	pids+=($nd)
	for i in $(seq 100); do
		"${as[@]}" "$srun" --node hca2 ibv_devinfo 2>/dev/null | grep -q PORT_ACTIVE && break
		sleep 0.1
	done
	b2=$("${as[@]}" "$srun" --node hca2 --print-addr)
	"${as[@]}" "$srun" --node hca2 --net true
	"${as[@]}" timeout 20 "$srun" --node hca1 --net sh -c "id -u; ping -c 2 -W 2 $b2" \
		> "$tmp/nobody.ping" 2>&1
	rc=$?
	[ "$(head -1 "$tmp/nobody.ping")" = 65534 ] && grep -q "2 received" "$tmp/nobody.ping"
	ok $? "as nobody (daemon and clients): hca1 --net pings hca2's $b2, still uid $(head -1 "$tmp/nobody.ping") (exit $rc)"
	stop $nd
else
	skip "as nobody" "not root"
fi
tap_done
