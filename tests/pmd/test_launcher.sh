#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The madpmd launcher: default fabric and prompt, topology errors, an
# external wire (net_pcap replaying PerfMgt requests) with a capture that
# stock tshark decodes, telemetry through stock dpdk-telemetry.py, and a
# clean SIGTERM shutdown. Usage: test_launcher.sh <madpmd> <madpmd-pktgen>
set -u
madpmd=$1
pktgen=$2
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

tmp=$(mktemp -d /tmp/madpmd-launcher.XXXXXX)
chmod 755 "$tmp"
export MADPMD_RUN_DIR=$tmp/run
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$tmp" /var/run/dpdk/madpmd-lt-$$-*
}
trap cleanup EXIT
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups -- env HOME="$tmp")

# 1. default fabric, the prompt
mkfifo "$tmp/prompt.in"
"$madpmd" -- -i < "$tmp/prompt.in" > "$tmp/prompt.log" 2>&1 &
mpid=$!
pids+=("$mpid")
{ echo "show ports"; echo "set link hca2 down"; echo "show ports"; echo "set link hca2:1 up";
  echo "show counters nosuchport"; echo quit; } > "$tmp/prompt.in"
for i in $(seq 100); do kill -0 "$mpid" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$mpid" 2>/dev/null && wait "$mpid"
ok $? "madpmd -- -i runs the default fabric and quits on 'quit'"
grep -Eq '^0 +hca1:1 +net_hca0 +ib +Init +LinkUp .* hca2:1$' "$tmp/prompt.log"
ok $? "show ports: hca1:1 is Init/LinkUp and cabled to hca2:1"
grep -Eq '^1 +hca2:1 +net_hca1 +ib +Down +Disabled' "$tmp/prompt.log"
ok $? "set link hca2 down: the port is Down/Disabled"
grep -q 'no port "nosuchport"' "$tmp/prompt.log"
ok $? "an unknown port gets a sentence, not a crash"
[ ! -e "$MADPMD_RUN_DIR" ] && [ ! -e "/var/run/dpdk/madpmd-$mpid" ]
ok $? "run directory and EAL runtime directory (madpmd-$mpid) removed on exit"

# 2. topology errors name the file and line
printf 'Hca 1 "a"\n[1] "b"[1]\n\nHca 1 "b"\n[1] "a"[7]\n' > "$tmp/bad.net"
timeout 30 "$madpmd" -- --topology "$tmp/bad.net" > "$tmp/bad.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "bad.net:[0-9]" "$tmp/bad.log"
ok $? "a malformed topology fails with FILE:LINE (exit $rc: $(grep -m1 'bad.net' "$tmp/bad.log"))"

timeout 30 "$madpmd" -- --ib-dissector wireshark > "$tmp/badopt.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "give infiniband" "$tmp/badopt.log"
ok $? "--ib-dissector with a name we do not make: a sentence (exit $rc)"

# 3. an external wire, capture, tshark
"$pktgen" --kind perf-get --link roce --count 10 -o "$tmp/in.pcapng" 2>/dev/null
prefix=madpmd-lt-$$-a
timeout 60 "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=$prefix \
	--vdev "net_pcap0,rx_pcap=$tmp/in.pcapng,tx_pcap=$tmp/out.pcap" -- \
	--link roce --wire hca2:1=net_pcap0 --capture "$tmp/cap.pcapng" --duration 3 \
	> "$tmp/wire.log" 2>&1
ok $? "madpmd with --wire hca2:1=net_pcap0 --capture ran for 3 s and exited"
chmod 644 "$tmp/cap.pcapng" "$tmp/out.pcap" 2>/dev/null
inb=$("${as_user[@]}" tshark -r "$tmp/cap.pcapng" -Y 'frame.interface_name == "hca2/1" && infiniband.mad.method == 0x01' 2>/dev/null | wc -l)
outb=$("${as_user[@]}" tshark -r "$tmp/cap.pcapng" -Y 'frame.interface_name == "hca2/1" && infiniband.mad.method == 0x81 && infiniband.mad.status == 0' 2>/dev/null | wc -l)
[ "$inb" -eq 20 ] && [ "$outb" -eq 20 ]
ok $? "the capture holds the 20 requests into hca2/1 and its 20 answers ($inb, $outb)"
dirs=$("${as_user[@]}" tshark -r "$tmp/cap.pcapng" -T fields -e frame.packet_flags_direction 2>/dev/null | sort | uniq -c | wc -l)
[ "$dirs" -eq 2 ]
ok $? "both directions are marked in the capture"
bad=$({ "${as_user[@]}" tshark -r "$tmp/cap.pcapng" -Y '_ws.malformed || _ws.expert.severity >= 8388608' 2>/dev/null || echo "tshark failed"; } | wc -l)
[ "$bad" -eq 0 ]
ok $? "stock tshark finds no malformed frame in the capture"
# native IB captures name the plugin's dissector when asked
prefix=madpmd-lt-$$-ib
"$pktgen" --kind perf-get --link ib --count 2 -o "$tmp/ib-in.pcapng" 2>/dev/null
timeout 60 "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=$prefix -- \
	--run-dir "$tmp/run-ib" --ib-dissector madpmd_ib --capture "$tmp/ib.pcapng" \
	--replay "hca2:1=$tmp/ib-in.pcapng" --exit-after-replay \
	> "$tmp/ib.log" 2>&1 < /dev/null
chmod 644 "$tmp/ib.pcapng" 2>/dev/null
names=$("${as_user[@]}" tshark -r "$tmp/ib.pcapng" -Y 'frame.interface_name == "hca2/1"' \
	-T fields -e exported_pdu.prot_name 2>/dev/null | sort | uniq -c | tr -s ' ' | tr '\n' ';')
echo "$names" | grep -q "madpmd_ib" && ! echo "$names" | grep -q "infiniband"
ok $? "--ib-dissector madpmd_ib: the capture's IB packets name madpmd_ib ($names)"
rm -rf "/var/run/dpdk/$prefix"
back=$("${as_user[@]}" tshark -r "$tmp/out.pcap" -Y 'infiniband.mad.method == 0x81' 2>/dev/null | wc -l)
[ "$back" -eq 20 ]
ok $? "the answers went back out on the external wire ($back)"

# 4. telemetry and SIGTERM
prefix=madpmd-lt-$$-b
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=$prefix -- > "$tmp/tel.log" 2>&1 &
pid=$!
pids+=("$pid")
for i in $(seq 50); do grep -q "hca2:1" "$tmp/tel.log" && break; sleep 0.2; done
echo /madpmd/ports | timeout 20 dpdk-telemetry.py -f $prefix > "$tmp/tel.json" 2>&1
grep -q '"hca1/1"' "$tmp/tel.json" && grep -q '"port_state": 2' "$tmp/tel.json"
ok $? "dpdk-telemetry.py /madpmd/ports shows hca1/1 in Init"
kill -TERM "$pid"
for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$pid" 2>/dev/null && wait "$pid"
ok $? "SIGTERM stops madpmd cleanly (exit 0)"
grep -q "signal 15, shutting down" "$tmp/tel.log"
ok $? "and it says so"
[ $fail = 0 ] || for f in "$tmp"/*.log "$tmp/tel.json"; do sed "s|^|# $(basename "$f"): |" "$f" | tail -15; done
echo "1..$n"
exit $fail
