#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Benchmark (not a test): madpmd against ibsim + libumad2sim, the baseline,
# in one run on the same topology file (hca1 -- hca2) with the same client
# binary, linked against rdma-core's libibumad:
#  1. bench_umad: DR SMP Get(NodeInfo) 0,1 from hca1, 1 and 32 outstanding:
#     MADs/s, median and p99 latency (under madpmd-run / LD_PRELOAD);
#  2. stock `opensm -o` on a fresh fabric: wall time of the whole command,
#     and OpenSM's own time from its first log line to SUBNET UP; medians.
# Targets: rate ratio >= 4, latency ratio <= 0.25.
#
#   tests/bench/bench_umad.sh [SECONDS]
#
# SECONDS measured per window (default 5). Environment: BUILD_DIR (default
# build), SWEEPS (opensm runs per system, default 5), EXTRA_IDLE_SLEEP_US
# (one more madpmd client run with this --idle-sleep-us, default 10; empty
# for none), SPIN=1 (add client runs that spin on umad_recv). The client
# runs on CPU 0; madpmd's lcore and ibsim run on CPU 1.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${BUILD_DIR:-$top/build}" && pwd)
secs=${1:-5}
sweeps=${SWEEPS:-5}
extra_sleep=${EXTRA_IDLE_SLEEP_US-10}
madpmd=$build/pmd/madpmd
run=$build/lib/umad/madpmd-run
client=$build/tests/bench/bench_umad

die() {
	echo "bench_umad: $*" >&2
	exit 1
}
[ -x "$madpmd" ] || die "no madpmd at $madpmd: build it first (ninja -C $build)"
[ -x "$client" ] || die "no bench_umad at $client: build it first (ninja -C $build)"
for p in ibsim opensm taskset; do
	command -v $p > /dev/null ||
		die "$p is missing: apt-get install -y ibsim-utils libumad2sim0 opensm util-linux"
done
umad2sim=$(dpkg -L libumad2sim0 2>/dev/null | grep '/libumad2sim\.so$' | head -n 1) ||
	true
[ -n "$umad2sim" ] || die "libumad2sim.so not found: apt-get install -y libumad2sim0"

tmp=$(mktemp -d /tmp/madpmd-bench-umad.XXXXXX)
prefix=madpmd-bench-$$
export MADPMD_RUN_DIR=$tmp/run
# our own ibsim socket names and OpenSM cache: other fabrics may be running
export IBSIM_SOCKNAME=ibsim-bench-$$
export OSM_CACHE_DIR=$tmp/cache
daemon=

# stop what we started, by PID: SIGTERM, SIGKILL after 3 s
stop() {
	local p=$1
	kill -TERM "$p" 2>/dev/null || return 0
	for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}
cleanup() {
	[ -z "$daemon" ] || stop "$daemon"
	daemon=
	rm -rf "$tmp" "/var/run/dpdk/$prefix"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the same net file for both; madpmd reads ibsim's format
cat > "$tmp/net" <<'EOF'
Hca 1 "hca1"
[1] "hca2"[1]

Hca 1 "hca2"
[1] "hca1"[1]
EOF

start_madpmd() {	# extra launcher options
	rm -rf "$MADPMD_RUN_DIR"
	"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix="$prefix" -- \
		--run-dir "$MADPMD_RUN_DIR" --topology "$tmp/net" "$@" \
		> "$tmp/madpmd.log" 2>&1 &
	daemon=$!
	# the ports table is written once every port is up; then the lcore
	for _ in $(seq 200); do
		[ -S "$MADPMD_RUN_DIR/hca2/umad" ] && [ -s "$MADPMD_RUN_DIR/ports" ] &&
			sleep 0.2 && return 0
		kill -0 "$daemon" 2>/dev/null || break
		sleep 0.05
	done
	cat "$tmp/madpmd.log" >&2
	die "madpmd did not start (log above)"
}

start_ibsim() {
	: > "$tmp/ibsim.log"
	taskset -c 1 ibsim -s -n "$tmp/net" > "$tmp/ibsim.log" 2>&1 < /dev/null &
	daemon=$!
	for _ in $(seq 200); do
		grep -q "simulator ready" "$tmp/ibsim.log" && sleep 0.2 && return 0
		kill -0 "$daemon" 2>/dev/null || break
		sleep 0.05
	done
	cat "$tmp/ibsim.log" >&2
	die "ibsim did not start (log above)"
}

stop_daemon() {
	stop "$daemon"
	daemon=
}

# a command on hca1 of the running system ($1: madpmd or ibsim), on CPU 0
on_hca1() {
	local sys=$1
	shift
	if [ "$sys" = madpmd ]; then
		taskset -c 0 "$run" --node hca1 "$@"
	else
		SIM_HOST=hca1 LD_PRELOAD="$umad2sim" taskset -c 0 "$@"
	fi
}

declare -A res	# res[label:window:key]
client_run() {	# label system [client options]
	local label=$1 sys=$2 line w k
	shift 2
	on_hca1 "$sys" "$client" -t "$secs" "$@" > "$tmp/client.out" 2> "$tmp/client.err" || {
		cat "$tmp/client.err" >&2
		die "bench_umad failed under $label"
	}
	while read -r line; do
		w=$(sed -n 's/.*window=\([0-9]*\).*/\1/p' <<< "$line")
		for k in rate p50_us p99_us n timeouts errors; do
			res[$label:$w:$k]=$(sed -n "s/.* $k=\([0-9.]*\).*/\1/p" <<< "$line")
		done
		echo "$label $line"
	done < "$tmp/client.out"
}

# ms from OpenSM's first log line to SUBNET UP (its lines carry microseconds)
log_ms() {
	awk '{ split($3, t, ":"); us = (t[1] * 3600 + t[2] * 60 + t[3]) * 1e6 + $4
	       if (NR == 1) s = us
	       if (/SUBNET UP/) { printf "%.1f\n", (us - s) / 1000; exit } }' "$1"
}

sweep_ms() {	# system: wall ms of one opensm -o on a fresh fabric, and in-log ms
	local sys=$1 t0 t1 log=$tmp/opensm.log
	if [ "$sys" = madpmd ]; then start_madpmd; else start_ibsim; fi
	rm -rf "$OSM_CACHE_DIR" "$log"
	mkdir -p "$OSM_CACHE_DIR"
	t0=$EPOCHREALTIME
	on_hca1 "$sys" timeout 60 opensm -o -f "$log" > "$tmp/opensm.out" 2>&1 || true
	t1=$EPOCHREALTIME
	stop_daemon
	grep -q "SUBNET UP" "$log" 2>/dev/null ||
		die "opensm -o did not reach SUBNET UP under $sys ($(tail -n 3 "$tmp/opensm.out"))"
	echo "$t0 $t1 $(log_ms "$log")" | awk '{ printf "%.1f %s\n", ($2 - $1) * 1000, $3 }'
}

median() {	# of column $1
	cut -d' ' -f"$1" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "bench_umad: $secs s per window; topology hca1 -- hca2; client on CPU 0, fabric on CPU 1; $(nproc) CPUs, $(uname -r)"

labels=(madpmd)
start_madpmd
client_run madpmd madpmd
[ "${SPIN:-0}" = 1 ] && { client_run madpmd-spin madpmd -s; labels+=(madpmd-spin); }
stop_daemon
if [ -n "$extra_sleep" ]; then
	start_madpmd --idle-sleep-us "$extra_sleep"
	client_run "madpmd-sleep$extra_sleep" madpmd
	labels+=("madpmd-sleep$extra_sleep")
	stop_daemon
fi
start_ibsim
client_run ibsim ibsim
labels+=(ibsim)
[ "${SPIN:-0}" = 1 ] && { client_run ibsim-spin ibsim -s; labels+=(ibsim-spin); }
stop_daemon

for sys in madpmd ibsim; do
	for _ in $(seq "$sweeps"); do sweep_ms $sys; done > "$tmp/sweep.$sys"
	echo "$sys opensm -o ms (wall, in-log to SUBNET UP): $(tr ' \n' '/ ' < "$tmp/sweep.$sys")"
done
sw_m=$(median 1 < "$tmp/sweep.madpmd")
sw_i=$(median 1 < "$tmp/sweep.ibsim")
lg_m=$(median 2 < "$tmp/sweep.madpmd")
lg_i=$(median 2 < "$tmp/sweep.ibsim")

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'
}

echo
printf '%-20s %6s %12s %10s %10s\n' system window "MADs/s" "p50 us" "p99 us"
for l in "${labels[@]}"; do
	for w in 1 32; do
		printf '%-20s %6s %12s %10s %10s\n' "$l" "$w" "${res[$l:$w:rate]}" \
			"${res[$l:$w:p50_us]}" "${res[$l:$w:p99_us]}"
	done
done
echo "opensm -o to SUBNET UP, median of $sweeps: wall madpmd $sw_m ms, ibsim $sw_i ms;" \
	"first log line to SUBNET UP madpmd $lg_m ms, ibsim $lg_i ms"
echo
for l in "${labels[@]}"; do
	case $l in madpmd*) ;; *) continue ;; esac
	for w in 1 32; do
		echo "$l/ibsim window=$w: rate $(ratio "${res[$l:$w:rate]}" "${res[ibsim:$w:rate]}") (target >= 4)," \
			"p50 $(ratio "${res[$l:$w:p50_us]}" "${res[ibsim:$w:p50_us]}")," \
			"p99 $(ratio "${res[$l:$w:p99_us]}" "${res[ibsim:$w:p99_us]}") (target <= 0.25)"
	done
done
echo "ibsim/madpmd opensm -o time: wall $(ratio "$sw_i" "$sw_m"), in-log $(ratio "$lg_i" "$lg_m")"
