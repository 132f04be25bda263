#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Benchmark (not a test; never run by meson test, never fails on figures):
# how steady perftest's headline figures are over madpmd. Each of
# ib_{send,write,read,atomic}_{lat,bw}, on IB (a resident OpenSM, for
# -R's path records) and on RoCE, without and with -R (rdma_cm), runs
# N times (default 10) between hca1 and hca2 (bw: 64 B messages). Per
# case: bw, the message rate's min, max and max/min (target within 2x);
# lat, the typical latency's min and max and the largest maximum of the
# runs (target under 1 ms on a quiet machine).
#
#   tests/bench/bench_perftest.sh [--runs N]
# Environment: BUILD_DIR (default build).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${BUILD_DIR:-$top/build}" && pwd)
runs=10
if [ "${1:-}" = --runs ]; then
	runs=$2
	shift 2
fi
run=$build/lib/umad/madpmd-run
tmp=$(mktemp -d /tmp/madpmd-bench-pt.XXXXXX)
prefix=madpmd-bpt-$$
daemon= sm=
cleanup() {
	[ -n "$sm" ] && kill "$sm" 2>/dev/null && wait "$sm" 2>/dev/null
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
	rm -rf "$tmp" "/var/run/dpdk/$prefix"
}
trap cleanup EXIT
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
port=$((30000 + RANDOM % 20000))

# one client's result line, empty when the pair failed; with -R the
# client connects to hca1's fabric address, as rdma_cm resolves it
perf() {
	local tool=$1 to=localhost
	shift
	case " $* " in *" -R "*) to=$addr ;; esac
	port=$((port + 1))
	timeout 60 "$run" --node hca1 "$tool" -d madpmd0 -p $port "$@" \
		> "$tmp/srv.out" 2>&1 &
	local srv=$!
	sleep 0.5
	timeout 60 "$run" --node hca2 "$tool" -d madpmd0 -p $port "$@" "$to" \
		2>&1 | grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' | head -1 || true
	wait $srv || true
}

# case NAME TOOL ARGS...: N runs, one summary line
one_case() {
	local name=$1 tool=$2 line vals=() maxes=() i
	shift 2
	for i in $(seq "$runs"); do
		line=$(perf "$tool" "$@")
		[ -n "$line" ] || { vals+=(fail); continue; }
		case $tool in
		*_bw) vals+=("$(echo "$line" | awk '{print $5}')") ;;
		*) vals+=("$(echo "$line" | awk '{print $5}')")
		   maxes+=("$(echo "$line" | awk '{print $4}')") ;;
		esac
	done
	printf '%s\n' "${vals[@]}" | awk -v name="$name" -v bw="${tool##*_}" \
		-v maxes="${maxes[*]:-}" '
		$1 == "fail" { fail++; next }
		{ v = $1 + 0; if (n == 0 || v < lo) lo = v; if (v > hi) hi = v; n++ }
		END {
			mx = 0; k = split(maxes, m, " ")
			for (i = 1; i <= k; i++) if (m[i] + 0 > mx) mx = m[i] + 0
			if (bw == "bw")
				printf "%-28s %2d runs: %.3f..%.3f M msg/s, max/min %.2f%s\n",
				       name, n, lo, hi, lo ? hi / lo : 0,
				       fail ? sprintf(", %d failed", fail) : ""
			else
				printf "%-28s %2d runs: typical %.2f..%.2f us, max/min %.2f, largest maximum %.1f us%s\n",
				       name, n, lo, hi, lo ? hi / lo : 0, mx,
				       fail ? sprintf(", %d failed", fail) : ""
		}'
}

# message sizes of the bw cases: 64 B (an atomic is 8 whatever is asked)
bw_size() {
	[ "$1" = atomic ] && echo 8 || echo 64
}

for link in ib roce; do
	export MADPMD_RUN_DIR=$tmp/run-$link
	"$build/pmd/madpmd" --no-huge --no-pci -m 512 -l 0,1 \
		--file-prefix=$prefix -- --run-dir "$MADPMD_RUN_DIR" \
		--link $link > "$tmp/madpmd-$link.log" 2>&1 &
	daemon=$!
	for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
	if [ $link = ib ]; then
		"$run" --node hca1 opensm -f "$tmp/opensm.log" > /dev/null 2>&1 &
		sm=$!
		for i in $(seq 300); do grep -q "SUBNET UP" "$tmp/opensm.log" 2>/dev/null && break; sleep 0.1; done
	else
		sleep 1
	fi
	addr=$("$run" --node hca1 --print-addr)
	for cm in "" -R; do
		for t in send write read atomic; do
			one_case "$link ib_${t}_lat $cm" ib_${t}_lat -n 5000 $cm
			one_case "$link ib_${t}_bw $cm" ib_${t}_bw -s $(bw_size $t) -n 100000 $cm
		done
	done
	if [ -n "$sm" ]; then
		kill "$sm"; wait "$sm" 2>/dev/null || true; sm=
	fi
	kill "$daemon"; wait "$daemon" 2>/dev/null || true; daemon=
	rm -rf "/var/run/dpdk/$prefix"
done
