#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Stock dpdk-testpmd loads net_hca with -d and is the cable: io forwarding
# between a net_pcap port replaying PerfMgt requests (made by
# madpmd-pktgen) and a RoCE net_hca port, whose answers testpmd forwards
# back into the pcap port's tx file. Stock tshark then reads the answers.
# Usage: test_testpmd.sh <librte_net_hca.so> <madpmd-pktgen>
# MADPMD_TESTPMD_PRELOAD: sanitizer runtimes a sanitized PMD needs in testpmd
set -u
so=$1
pktgen=$2
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

tmp=$(mktemp -d /tmp/madpmd-testpmd.XXXXXX)
# EAL refuses a driver under a world-writable directory such as /tmp
drv=$(mktemp -d /run/madpmd-testpmd.XXXXXX)
prefix=madpmd-testpmd-$$
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp" "$drv" "/var/run/dpdk/$prefix" "/var/run/dpdk/$prefix-2" \
		"/var/run/dpdk/$prefix-3"
}
trap cleanup EXIT
[ -n "${MADPMD_KEEP_TMP:-}" ] && trap - EXIT
chmod 755 "$tmp" "$drv"
cp "$so" "$drv/"

mac=02:00:00:00:77:01
count=40
"$pktgen" --kind perf-get --link roce --dst-mac $mac --count $count -o "$tmp/in.pcapng" 2>/dev/null
ok $? "madpmd-pktgen wrote $((2 * count)) PerfMgt requests"

# start, let the pcap drain, stop; testpmd prints its port stats on stop
{ echo start; sleep 3; echo stop; echo "show port xstats 1"
  echo "set link-down port 1"; sleep 0.3; echo "set link-up port 1"; sleep 0.3; echo quit; } |
	timeout 90 env ${MADPMD_TESTPMD_PRELOAD:+LD_PRELOAD="$MADPMD_TESTPMD_PRELOAD" ASAN_OPTIONS=detect_leaks=0} \
		dpdk-testpmd -d "$drv/$(basename "$so")" --no-huge --no-pci -m 256 \
		--file-prefix=$prefix --lcores=0@0,1@0 --no-telemetry --log-level=pmd.net.hca:info \
		--vdev "net_pcap0,rx_pcap=$tmp/in.pcapng,tx_pcap=$tmp/out.pcap" \
		--vdev "net_hca0,link=roce,mac=$mac,node=testpmd-hca" \
		-- -i --forward-mode=io --no-flush-rx --total-num-mbufs=8192 > "$tmp/testpmd.log" 2>&1
rc=$?
ok $rc "dpdk-testpmd ran and quit cleanly (exit $rc)"
grep -q "net_hca0: port 1 node 'testpmd-hca'" "$tmp/testpmd.log"
ok $? "testpmd probed net_hca0 from the -d driver"
rx=$(awk '/ib_port_rcv_pkts:/ {print $2}' "$tmp/testpmd.log")
[ "${rx:-0}" -eq $((2 * count)) ]
ok $? "the HCA port received every request (ib_port_rcv_pkts=${rx:-none})"
# a NIC's link interrupt: testpmd prints each of net_hca's LSC events
lsc=$(sed -n '/set link-down port 1/,/testpmd> quit/p' "$tmp/testpmd.log" | grep -c "Port 1: link state change event")
[ "$lsc" = 2 ]
ok $? "set link-down and link-up port 1: net_hca raises an LSC event for each ($lsc)"

chmod 644 "$tmp/out.pcap" 2>/dev/null
as_user=()
# tshark as root ignores plugin dirs: run it as nobody, with a HOME of its own
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups -- env HOME="$tmp")
resp=$("${as_user[@]}" tshark -r "$tmp/out.pcap" -Y 'infiniband.mad.method == 0x81 && infiniband.mad.status == 0' 2>/dev/null | wc -l)
[ "$resp" -eq $((2 * count)) ]
ok $? "tshark decodes $resp GetResp MADs with status 0 in testpmd's output (want $((2 * count)))"
pc=$("${as_user[@]}" tshark -r "$tmp/out.pcap" -Y 'infiniband.mad.attributeid == 0x0012' -T fields -e infiniband.portcounters.portrcvpkts 2>/dev/null | tail -1)
[ -n "$pc" ] && [ "$pc" -ge $((2 * count - 1)) ]
ok $? "the last PortCounters answer counts the requests before it (PortRcvPkts=${pc:-none})"
bad=$({ "${as_user[@]}" tshark -r "$tmp/out.pcap" -Y '_ws.malformed || _ws.expert.severity >= 8388608' 2>/dev/null || echo "tshark failed"; } | wc -l)
[ "$bad" -eq 0 ]
ok $? "no malformed frame in the output"

# two HCAs cabled through testpmd: tx_first sends a burst of testpmd's own
# (UDP, not IB) packets into each; both ports must see and drop them
{ echo "start tx_first"; sleep 2; echo stop; echo "show port xstats all"; echo quit; } |
	timeout 90 env ${MADPMD_TESTPMD_PRELOAD:+LD_PRELOAD="$MADPMD_TESTPMD_PRELOAD" ASAN_OPTIONS=detect_leaks=0} \
		dpdk-testpmd -d "$drv/$(basename "$so")" --no-huge --no-pci -m 256 \
		--file-prefix=$prefix-2 --lcores=0@0,1@0 --no-telemetry \
		--vdev "net_hca0,node=left" --vdev "net_hca1,node=right" \
		-- -i --forward-mode=io --total-num-mbufs=8192 > "$tmp/testpmd2.log" 2>&1
ok $? "dpdk-testpmd forwards between two net_hca ports"
errs=$(awk '/ib_port_rcv_errors:/ {print $2}' "$tmp/testpmd2.log" | tr '\n' ' ')
[ "$errs" = "32 32 " ]
ok $? "each port received testpmd's tx_first burst and dropped it as not IB (PortRcvErrors: $errs)"
rm -rf "/var/run/dpdk/$prefix-2"

# a port that cannot make its channel (a run directory under /proc) fails
# its probe and gives back what it took: nothing freed twice or freed
# that the heap never gave (before: "EAL: Error: Invalid memory", the
# MAC address inside the port's private data handed to rte_free())
echo quit |
	timeout 90 env ${MADPMD_TESTPMD_PRELOAD:+LD_PRELOAD="$MADPMD_TESTPMD_PRELOAD" ASAN_OPTIONS=detect_leaks=0} \
		dpdk-testpmd -d "$drv/$(basename "$so")" --no-huge --no-pci -m 256 \
		--file-prefix=$prefix-3 --no-telemetry \
		--vdev "net_hca0,node=nodir,run_dir=/proc/madpmd-none" \
		-- -i --total-num-mbufs=2048 > "$tmp/testpmd3.log" 2>&1
grep -q "failed to initialize net_hca0" "$tmp/testpmd3.log" &&
	grep -q "cannot create /proc/madpmd-none" "$tmp/testpmd3.log"
ok $? "a port whose run directory cannot be made fails its probe, saying why"
! grep -q "Invalid memory\|ERROR: AddressSanitizer" "$tmp/testpmd3.log"
ok $? "and unwinds cleanly: no invalid free"
rm -rf "/var/run/dpdk/$prefix-3"
[ $fail = 0 ] || sed 's/^/# /' "$tmp/testpmd.log" "$tmp/testpmd2.log" \
	"$tmp/testpmd3.log" | tail -40
echo "1..$n"
exit $fail
