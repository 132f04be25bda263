#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Benchmark (not a test; never run by meson test, never fails on figures):
# real middleware between hca1 and hca2 of an IB fabric, beside perftest
# in the same run, as ratios to perftest's figure for the same thing
# (bandwidth in MiB/s, as perftest and UCX count it):
#   latency: ib_send_lat 8 B (the baseline), ucx_perftest tag_lat 8 B,
#            qperf rc_lat 8 B, an MPI ping-pong 8 B (Open MPI over UCX)
#   bandwidth: ib_write_bw 64 KiB (the baseline), ucx_perftest ucp_put_bw
#            64 KiB, qperf rc_bw 64 KiB, the MPI ping-pong at 128 KiB
# Each N times (default 5): the median, and its ratio to the baseline's.
# UCX is kept to rc_verbs/ud_verbs (two processes of one machine would
# meet in shared memory).
#
#   tests/bench/bench_middleware.sh [--runs N]
# Environment: BUILD_DIR (default build).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${BUILD_DIR:-$top/build}" && pwd)
runs=5
if [ "${1:-}" = --runs ]; then
	runs=$2
	shift 2
fi
run=$build/lib/umad/madpmd-run
tmp=$(mktemp -d /tmp/madpmd-bench-mw.XXXXXX)
prefix=madpmd-bmw-$$
daemon=
cleanup() {
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
	rm -rf "$tmp" "/var/run/dpdk/$prefix"
}
trap cleanup EXIT
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
export UCX_TLS=rc_verbs,ud_verbs,self UCX_NET_DEVICES=madpmd0:1
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
port=$((30000 + RANDOM % 20000))
export MADPMD_RUN_DIR=$tmp/run

"$build/pmd/madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=$prefix \
	-- --run-dir "$MADPMD_RUN_DIR" > "$tmp/madpmd.log" 2>&1 &
daemon=$!
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
timeout 60 "$run" --node hca1 opensm -o -f "$tmp/opensm.log" > /dev/null 2>&1
mpicc -O2 -o "$tmp/pp" "$top/tests/middleware/mpi_pingpong.c"
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)

# SRV_CMD... -- CLI_CMD...: the server on hca2, the client on hca1; the
# client's output
pair() {
	local srv=() cli=() pid
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	timeout 60 "$run" --node hca2 "${srv[@]}" > "$tmp/srv.out" 2>&1 &
	pid=$!
	sleep 0.7
	timeout 60 "$run" --node hca1 "${cli[@]}" 2>&1 || true
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# each prints one figure, or nothing
ib_lat() {
	port=$((port + 1))
	pair ib_send_lat -d madpmd0 -p $port -s 8 -n 5000 -- \
		ib_send_lat -d madpmd0 -p $port -s 8 -n 5000 localhost |
		awk '$1 == 8 && NF >= 5 {print $5; exit}'	# t_typical
}
ib_bw() {
	port=$((port + 1))
	pair ib_write_bw -d madpmd0 -p $port -s 65536 -n 2000 -- \
		ib_write_bw -d madpmd0 -p $port -s 65536 -n 2000 localhost |
		awk '$1 == 65536 {printf "%.0f\n", $4; exit}'	# BW average, MiB/s
}
ucx_lat() {
	port=$((port + 1))
	pair ucx_perftest -p $port -- ucx_perftest localhost -p $port -t tag_lat -s 8 -n 20000 |
		awk '$1 == "Final:" {print $3; exit}'		# 50%ile, us
}
ucx_bw() {
	port=$((port + 1))
	pair ucx_perftest -p $port -- ucx_perftest localhost -p $port -t ucp_put_bw -s 65536 -n 2000 |
		awk '$1 == "Final:" {printf "%.0f\n", $6; exit}'	# MiB/s
}
qperf_one() {
	port=$((port + 1))
	pair qperf -lp $port -- qperf -lp $port -t 2 -m "$2" localhost "$1" |
		awk '$1 == "latency" {v = $3; u = $4} $1 == "bw" {v = $3; u = $4}
		     END {if (v == "") exit
			  if (u == "ms") v *= 1000
			  # bandwidth in MiB/s, as perftest and UCX count
			  if (u == "GB/sec") v *= 1e9 / 1048576
			  if (u == "MB/sec") v *= 1e6 / 1048576
			  if (u == "KB/sec") v *= 1e3 / 1048576
			  print v}'
}
mpi_run() {
	timeout 120 mpirun "${root[@]}" --oversubscribe --mca pml ucx --mca btl self \
		-x UCX_TLS -x UCX_NET_DEVICES \
		-np 1 "$run" --node hca1 "$tmp/pp" : -np 1 "$run" --node hca2 "$tmp/pp" \
		2>/dev/null || true
}
mpi_lat() { mpi_run | awk '$1 == "pingpong" && $2 == 8 {print $3; exit}'; }
mpi_bw() { mpi_run | awk '$1 == "pingpong" && $2 == 131072 {printf "%.0f\n", $4 * 1e6 / 1048576; exit}'; }

median() { sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'; }
measure() {
	local f=$1 i
	for i in $(seq "$runs"); do "$f"; done | median
}

printf '%-40s %12s %10s\n' "case (median of $runs)" figure "/ perftest"
base=$(measure ib_lat)
printf '%-40s %9s us %10s\n' "ib_send_lat 8 B, t_typical" "${base:-fail}" 1.00
for c in "ucx_perftest tag_lat 8 B, 50%ile:ucx_lat" \
	 "qperf rc_lat 8 B:qperf_lat8" "MPI ping-pong 8 B, one way:mpi_lat"; do
	name=${c%%:*} f=${c##*:}
	[ "$f" = qperf_lat8 ] && v=$(for i in $(seq "$runs"); do qperf_one rc_lat 8; done | median) ||
		v=$(measure "$f")
	printf '%-40s %9s us %10s\n' "$name" "${v:-fail}" \
		"$(awk -v a="${v:-0}" -v b="${base:-0}" 'BEGIN {if (a > 0 && b > 0) printf "%.2f", a / b; else print "-"}')"
done
base=$(measure ib_bw)
printf '%-40s %9s MiB/s %7s\n' "ib_write_bw 64 KiB" "${base:-fail}" 1.00
for c in "ucx_perftest ucp_put_bw 64 KiB:ucx_bw" \
	 "qperf rc_bw 64 KiB:qperf_bw64k" "MPI ping-pong 128 KiB:mpi_bw"; do
	name=${c%%:*} f=${c##*:}
	[ "$f" = qperf_bw64k ] && v=$(for i in $(seq "$runs"); do qperf_one rc_bw 65536; done | median) ||
		v=$(measure "$f")
	printf '%-40s %9s MiB/s %7s\n' "$name" "${v:-fail}" \
		"$(awk -v a="${v:-0}" -v b="${base:-0}" 'BEGIN {if (a > 0 && b > 0) printf "%.2f", a / b; else print "-"}')"
done
