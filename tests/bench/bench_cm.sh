#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Benchmark (not a test; never run by meson test, never fails on figures,
# but fails loudly when a tool does): the CM's connection set-up beside
# the limit measured in the same run.
#
#  1. stock cmtime on IB with a resident OpenSM (routes are PathRecords
#     from its SA): server `cmtime -b ADDR -p PORT` on hca1 (it serves
#     until stopped), client `cmtime -s ADDR -p PORT -c CONNECTIONS` on
#     hca2; its per-step table, and connections/s of its connect step and
#     of all its steps together (create id to destroy).
#  2. what a connection costs in control round trips, counted by the
#     daemon (the chan_requests xstat of hca1 and hca2, before and after
#     cmtime): every rdma_cm call and every verbs call of both sides is a
#     request and its reply on a session's socket; plus 3 MAD exchanges
#     through the lcore (REQ/REP, DREQ/DREP, the SA's PathRecord; the RTU
#     goes one way).
#  3. the floor: that many round trips between two processes, with
#     nothing else done, by bench_chan_rtt: over a SOCK_SEQPACKET
#     socketpair, unpinned (pair), both on CPU 0 (same: a wake-up is a
#     switch) and on CPUs 0 and 1 (split: every wake-up crosses vCPUs),
#     and over the real daemon's socket asking PORT_INFO, its cheapest
#     request (daemon, unpinned). Floor connections/s are round trips/s
#     divided by the round trips a connection costs.
#
#   tests/bench/bench_cm.sh [--runs N] [CONNECTIONS]     (default 1000)
# Environment: BUILD_DIR (default build). Needs dpdk-telemetry.py.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${BUILD_DIR:-$top/build}" && pwd)
runs=1
if [ "${1:-}" = --runs ]; then
	runs=$2
	shift 2
fi
conns=${1:-1000}
run=$build/lib/umad/madpmd-run
rtt=$build/tests/bench/bench_chan_rtt
tmp=$(mktemp -d /tmp/madpmd-bench-cm.XXXXXX)
prefix=madpmd-bcm-$$
daemon=
sm=
srv=
cleanup() {
	local p
	for p in $srv $sm $daemon; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$tmp" "/var/run/dpdk/$prefix"
}
trap cleanup EXIT
die() {
	echo "bench_cm: $*" >&2
	exit 1
}
export MADPMD_RUN_DIR=$tmp/run

"$build/pmd/madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=$prefix \
	-- --run-dir "$MADPMD_RUN_DIR" > "$tmp/madpmd.log" 2>&1 &
daemon=$!
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
[ -S "$MADPMD_RUN_DIR/hca2/umad" ] || die "madpmd did not start: $(tail -3 "$tmp/madpmd.log")"
# -d2: its log flushed at each line, to be waited for
"$run" --node hca1 opensm -d2 -f "$tmp/opensm.log" > /dev/null 2>&1 &
sm=$!
for i in $(seq 300); do grep -q "SUBNET UP" "$tmp/opensm.log" 2>/dev/null && break; sleep 0.1; done
grep -q "SUBNET UP" "$tmp/opensm.log" || die "opensm did not bring the subnet up"
addr=$("$run" --node hca1 --print-addr)

tel() { echo "$1" | timeout 20 dpdk-telemetry.py -f "$prefix" 2>/dev/null | tr -d ' \n'; }
ports=$(tel /madpmd/ports)
ethdev() { echo "$ports" | grep -o "\"$1\":{\"ethdev_port\":[0-9]*" | grep -o '[0-9]*$'; }
eth1=$(ethdev hca1/1)
eth2=$(ethdev hca2/1)
[ -n "$eth1" ] && [ -n "$eth2" ] || die "no /madpmd/ports from dpdk-telemetry.py"
# requests the daemon served on hca1's and hca2's channels, together
requests() {
	local a b
	a=$(tel "/ethdev/xstats,$eth1" | grep -o '"chan_requests":[0-9]*' | grep -o '[0-9]*$')
	b=$(tel "/ethdev/xstats,$eth2" | grep -o '"chan_requests":[0-9]*' | grep -o '[0-9]*$')
	[ -n "$a" ] && [ -n "$b" ] || die "no chan_requests xstat"
	echo "$a $b"
}
rate() { sed -n 's/.* rate=\([0-9]*\).*/\1/p'; }
p50() { sed -n 's/.* p50_us=\([0-9.]*\).*/\1/p'; }
# a cmtime step's total ms
step_ms() { awk -F: -v s="$1" '$1 ~ "^"s" *$" { split($2, f, " "); print f[1] }' "$2"; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }

for r in $(seq "$runs"); do
	echo "run $r: $(uptime | sed 's/.*load/load/')"
	pair=$("$rtt" pair -n 50000) || die "bench_chan_rtt pair failed"
	same=$("$rtt" pair -s -n 50000) || die "bench_chan_rtt pair -s failed"
	split=$("$rtt" pair -x -n 20000) || die "bench_chan_rtt pair -x failed"
	dmn=$("$rtt" daemon "$MADPMD_RUN_DIR/hca2/umad" -n 50000) ||
		die "bench_chan_rtt daemon failed"

	port=$((30000 + RANDOM % 20000))
	"$run" --node hca1 cmtime -b "$addr" -p $port > "$tmp/srv.out" 2>&1 &
	srv=$!
	sleep 0.5
	before=$(requests)
	timeout 120 "$run" --node hca2 cmtime -s "$addr" -p $port -c "$conns" \
		> "$tmp/cli.out" 2>&1 || die "cmtime client failed: $(tail -5 "$tmp/cli.out")"
	# the server's last DISCONNECTED handled: it destroys those ids
	sleep 1
	after=$(requests)
	kill -0 $srv 2>/dev/null || die "cmtime server gone: $(tail -5 "$tmp/srv.out")"
	kill $srv
	wait $srv 2>/dev/null || true
	srv=
	grep -q "^connect *:" "$tmp/cli.out" || die "no step table from cmtime: $(tail -5 "$tmp/cli.out")"

	sed -n '/^step/,$p' "$tmp/cli.out" | sed "s/^/run $r: cmtime: /"
	connect_ms=$(step_ms connect "$tmp/cli.out")
	all_ms=$(sed -n '/^step/,$p' "$tmp/cli.out" |
		 awk -F: 'NR > 1 { split($2, f, " "); s += f[1] } END { print s }')
	set -- $before $after
	srv_rt=$(calc %.1f "($3 - $1) / $conns")
	cli_rt=$(calc %.1f "($4 - $2) / $conns")
	rts=$(calc %.1f "$srv_rt + $cli_rt + 3")
	conn_rate=$(calc %.0f "$conns * 1000 / $connect_ms")
	all_rate=$(calc %.0f "$conns * 1000 / $all_ms")
	echo "run $r: round trips a connection costs: $cli_rt client + $srv_rt server requests + 3 MAD exchanges = $rts"
	echo "run $r: connections/s: cmtime connect step $conn_rate, all steps $all_rate"
	for f in pair same split dmn; do
		line=${!f}
		fr=$(echo "$line" | rate)
		fc=$(calc %.0f "$fr / $rts")
		echo "run $r: floor $(echo "$line" | sed 's/^mode=\([^ ]*\).*/\1/'): $fr round trips/s (p50 $(echo "$line" | p50) us): $fc connections/s; cmtime / floor: connect step $(calc %.2f "$conn_rate / $fc"), all steps $(calc %.2f "$all_rate / $fc")"
	done
done
echo "end: $(uptime | sed 's/.*load/load/')"
