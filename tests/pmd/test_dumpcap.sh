#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Stock dpdk-dumpcap on madpmd's RoCE ports, the DPDK way: a secondary
# process that attaches to the launcher (which calls rte_pdump_init()).
# Secondary processes need hugepage memory, so the test reserves a few
# 2 MiB pages and mounts its own hugetlbfs for the run, and gives them
# back after; dpdk-dumpcap takes no -d, so the net_hca driver is preloaded
# into it. Traffic: PerfMgt requests replayed into hca2, answered by its PMA.
# Then native IB: two net_hca ports cabled to each other leave their CRCs
# to the launcher (rte_pmd_hca_crc_lazy); with dpdk-dumpcap looking at
# one, every frame it sees carries them, both ways (DR SMPs of smpquery).
# Usage: test_dumpcap.sh <madpmd> <librte_net_hca.so> <madpmd-pktgen>
#        <madpmd-run>
set -u
madpmd=$1
driver=$2
pktgen=$3
run=$4
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-dumpcap.XXXXXX)
prefix=madpmd-dumpcap-$$
eal_prefixes=("$prefix" "$prefix-ib")
pages_before=$(cat /proc/sys/vm/nr_hugepages)
huge=$tmp/huge
give_back() {
	mountpoint -q "$huge" && umount "$huge"
	echo "$pages_before" > /proc/sys/vm/nr_hugepages
	tap_cleanup
}
trap give_back EXIT

need=$((pages_before + 48))
echo "$need" > /proc/sys/vm/nr_hugepages 2>/dev/null
mkdir -p "$huge"
[ "$(cat /proc/sys/vm/nr_hugepages)" -ge "$need" ] &&
	mount -t hugetlbfs -o pagesize=2M nodev "$huge"
ok $? "48 hugepages reserved and a hugetlbfs of our own mounted (secondary processes need them)"

"$pktgen" --kind perf-get --link roce --count 20 -o "$tmp/req.pcapng" 2>/dev/null
# A secondary process maps the primary's memory at the primary's
# addresses: put them where nothing of a sanitized secondary's lives
# (AddressSanitizer's shadow ends below 0x100080000000, its heap and the
# libraries are far above), or its EAL init fails now and then
"$madpmd" --no-pci -m 64 --huge-dir "$huge" -l 0,1 --file-prefix=$prefix \
	--base-virtaddr=0x200000000000 -- \
	--run-dir "$tmp/run" --link roce \
	--replay "hca2:1=$tmp/req.pcapng,speed=timed,loop=0" \
	> "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$tmp/run/capture" ] && break; sleep 0.1; done
[ -S "$tmp/run/capture" ] && ! grep -q "dpdk-dumpcap will not attach" "$tmp/madpmd.log"
ok $? "madpmd runs a RoCE fabric on hugepages with pdump initialised"

# a sanitized driver in stock dpdk-dumpcap: runtimes first, its leaks not ours
export LD_PRELOAD="${MADPMD_TESTPMD_PRELOAD:-} $driver" ASAN_OPTIONS=detect_leaks=0
timeout 30 dpdk-dumpcap --file-prefix=$prefix -D > "$tmp/list.out" 2>&1
grep -q "net_hca0" "$tmp/list.out" && grep -q "net_hca1" "$tmp/list.out"
ok $? "dpdk-dumpcap -D lists the fabric's ports: $(grep -o 'net_hca[0-9]' "$tmp/list.out" | tr '\n' ' ')"
timeout 30 dpdk-dumpcap --file-prefix=$prefix -i net_hca1 -c 40 \
	-w "$tmp/dump.pcapng" > "$tmp/dumpcap.out" 2>&1
ok $? "dpdk-dumpcap -i net_hca1 -c 40 captures and exits"
unset LD_PRELOAD ASAN_OPTIONS

chmod 755 "$tmp"
chmod 644 "$tmp/dump.pcapng" 2>/dev/null
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups -- env HOME="$tmp")
mkdir -p "$tmp/no-extcap" "$tmp/no-plugins"
export WIRESHARK_EXTCAP_DIR=$tmp/no-extcap WIRESHARK_PLUGIN_DIR=$tmp/no-plugins
req=$("${as_user[@]}" tshark -r "$tmp/dump.pcapng" -Y 'udp.dstport == 4791 && infiniband.mad.method == 0x01' 2>/dev/null | wc -l)
resp=$("${as_user[@]}" tshark -r "$tmp/dump.pcapng" -Y 'udp.dstport == 4791 && infiniband.mad.method == 0x81 && infiniband.mad.status == 0' 2>/dev/null | wc -l)
bad=$({ "${as_user[@]}" tshark -r "$tmp/dump.pcapng" -Y '_ws.malformed || _ws.expert.severity >= 8388608' 2>/dev/null || echo "tshark failed"; } | wc -l)
[ "$req" -gt 0 ] && [ "$resp" -gt 0 ] && [ "$bad" -eq 0 ]
ok $? "stock tshark reads the dump: $req RoCEv2 PerfMgt Gets into hca2, $resp answers from its PMA, $bad malformed"

daemon_stop_check "$daemon" "$tmp/madpmd.log"
ok $? "madpmd exits 0 (sanitizer report clean)"

cat > "$tmp/net" <<'NET'
Hca 1 "hca1"
[1] "hca2"[1]

Hca 1 "hca2"
[1] "hca1"[1]
NET
"$madpmd" --no-pci -m 64 --huge-dir "$huge" -l 0,1 --file-prefix=$prefix-ib \
	--base-virtaddr=0x200000000000 -- \
	--run-dir "$tmp/run-ib" --topology "$tmp/net" \
	> "$tmp/madpmd-ib.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -s "$tmp/run-ib/ports" ] && break; sleep 0.1; done
# a stock tool on hca1 (the sanitizer runtimes first in a sanitized build)
on_hca1() {
	env LD_PRELOAD="${MADPMD_TESTPMD_PRELOAD:-}" ASAN_OPTIONS=detect_leaks=0 \
		MADPMD_RUN_DIR="$tmp/run-ib" "$run" --node hca1 "$@"
}
on_hca1 smpquery -D nodeinfo 0,1 > "$tmp/smp.out" 2>&1
grep -q "NodeDesc\|Guid" "$tmp/smp.out"
ok $? "an IB fabric of two net_hca ports answers a DR SMP from hca1 to hca2"
# DR SMPs both ways on hca1's cable while dpdk-dumpcap looks at net_hca0
(for i in $(seq 400); do
	[ -e "$tmp/smp-stop" ] && exit 0
	on_hca1 smpquery -D nodeinfo 0,1 > /dev/null 2>&1 || exit 1
done) &
smp=$!
pids+=($smp)
export LD_PRELOAD="${MADPMD_TESTPMD_PRELOAD:-} $driver" ASAN_OPTIONS=detect_leaks=0
timeout 30 dpdk-dumpcap --file-prefix=$prefix-ib -i net_hca0 -c 40 \
	-w "$tmp/ib.pcapng" > "$tmp/dumpcap-ib.out" 2>&1
ok $? "dpdk-dumpcap -i net_hca0 -c 40 on the IB fabric captures and exits"
unset LD_PRELOAD ASAN_OPTIONS
touch "$tmp/smp-stop"
wait "$smp"
ok $? "every smpquery meanwhile answered"
# every frame's ICRC and VCRC, computed by the checker on its own
python3 "$(dirname "$0")/../common/ib_crc.py" "$tmp/ib.pcapng" \
	> "$tmp/ib-crc.out" 2>&1
read -r nframes nbad < "$tmp/ib-crc.out" || true
[ "${nframes:-0}" -ge 40 ] && [ "${nbad:-1}" = 0 ]
ok $? "dpdk-dumpcap saw ${nframes:-no} IB frames, ICRC or VCRC wrong in ${nbad:-?} (zero: left to the launcher)"

daemon_stop_check "$daemon" "$tmp/madpmd-ib.log"
ok $? "madpmd exits 0 (sanitizer report clean)"
tap_done
