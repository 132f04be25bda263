#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Benchmark (not a test; never run by meson test, never fails on figures):
# madpmd against ibsim + libumad2sim, the baseline, and against the bare
# shared-memory round trip, the floor, in one run on the same topology
# file (hca1 -- hca2) with the same client binary, linked against
# rdma-core's libibumad.
#
# Default (unpinned): nothing pinned by this script (no taskset; madpmd
# with its default EAL and launcher settings), as a user runs it. Each run:
#  1. bench_shm_rtt: two processes ping-pong 64 bytes through the client
#     channel's own rings, busy-polling; 1 and 32 in flight;
#  2. madpmd: a fresh fabric, `opensm -o` to give out LIDs, then
#     bench_umad -L: LID-routed SMP Get(NodeInfo) from hca1 to hca2's LID
#     with 1 and 32 MADs in flight (under madpmd-run);
#  3. ibsim: the same (SIM_HOST=hca1 LD_PRELOAD=libumad2sim.so).
# One line per run and window with the ratios madpmd/ibsim and
# madpmd/bare, then (min / median / max) over the runs.
# Targets, quiet: madpmd/ibsim rate >= 10 (1 and 32 in flight); with 1 in
# flight madpmd/bare p50 <= 8 and p99 <= 25. Loaded (--loaded): every run
# madpmd/ibsim rate >= 4 and p50 <= 0.25 (1 and 32 in flight).
#
#   tests/bench/bench_umad.sh [--runs N] [--loaded] [--dr] [SECONDS]
#   tests/bench/bench_umad.sh --pinned [SECONDS]
#
# SECONDS measured per window (default 3; 5 with --pinned).
#   --runs N   repeat the whole run N times (default 1): per-run lines, then
#              the summary
#   --loaded   one CPU-bound process (a shell loop) beside each measurement,
#              bare, madpmd and ibsim alike, started before the client and
#              stopped by its PID after it
#   --dr       directed-route SMPs along 0,1 instead of LID-routed ones
#   --pinned   the earlier measurement instead: client on CPU 0, madpmd's
#              lcore and ibsim on CPU 1, DR SMPs, plus stock `opensm -o`
#              sweeps (SWEEPS, default 5), EXTRA_IDLE_SLEEP_US (one more
#              madpmd client run with that --idle-sleep-us, default 10,
#              empty for none) and SPIN=1 (client runs spinning on
#              umad_recv)
# Environment: BUILD_DIR (default build); MADPMD_OPTS, launcher options
# added to every madpmd start (default none: the default settings), for
# experiments.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${BUILD_DIR:-$top/build}" && pwd)
runs=1
loaded=0
pinned=0
dr=0
secs=
while [ $# -gt 0 ]; do
	case $1 in
	--runs)
		[ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] ||
			{ echo "bench_umad: --runs needs a count" >&2; exit 2; }
		runs=$2
		shift 2 ;;
	--loaded) loaded=1; shift ;;
	--pinned) pinned=1; shift ;;
	--dr) dr=1; shift ;;
	-h|--help) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bench_umad: unknown option $1 (see --help)" >&2; exit 2 ;;
	*)
		[[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]] ||
			{ echo "bench_umad: SECONDS must be a number, not '$1'" >&2; exit 2; }
		secs=$1
		shift ;;
	esac
done
if [ "$pinned" = 1 ]; then
	secs=${secs:-5}
	[ "$loaded" = 0 ] && [ "$runs" = 1 ] && [ "$dr" = 0 ] ||
		{ echo "bench_umad: --pinned takes no other option" >&2; exit 2; }
else
	secs=${secs:-3}
fi
sweeps=${SWEEPS:-5}
extra_sleep=${EXTRA_IDLE_SLEEP_US-10}
read -r -a madpmd_opts <<< "${MADPMD_OPTS:-}"
madpmd=$build/pmd/madpmd
run=$build/lib/umad/madpmd-run
client=$build/tests/bench/bench_umad
bare=$build/tests/bench/bench_shm_rtt

die() {
	echo "bench_umad: $*" >&2
	exit 1
}
[ -x "$madpmd" ] || die "no madpmd at $madpmd: build it first (ninja -C $build)"
[ -x "$client" ] || die "no bench_umad at $client: build it first (ninja -C $build)"
[ -x "$bare" ] || die "no bench_shm_rtt at $bare: build it first (ninja -C $build)"
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
daemon_kind=
hog=

# stop what we started, by PID: SIGTERM, SIGKILL after 3 s
stop() {
	local p=$1
	kill -TERM "$p" 2>/dev/null || return 0
	for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}
stop_daemon() {
	[ -n "$daemon" ] || return 0
	stop "$daemon"
	# madpmd with default EAL options removes its own runtime directory
	# (madpmd-<pid>) on exit; not when it had to be killed
	if [ "$daemon_kind" = madpmd ] && [ "$pinned" = 0 ]; then
		rm -rf "/var/run/dpdk/madpmd-$daemon"
	fi
	daemon=
	daemon_kind=
}
# the CPU-bound process beside a measurement (--loaded)
hog_start() {
	[ "$loaded" = 1 ] || return 0
	sh -c 'while :; do :; done' &
	hog=$!
}
hog_stop() {
	[ -n "$hog" ] || return 0
	stop "$hog"
	hog=
}
cleanup() {
	hog_stop
	stop_daemon
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
	local eal=()
	rm -rf "$MADPMD_RUN_DIR"
	# pinned: the EAL options spelled out, with our own file prefix;
	# unpinned: none at all, madpmd's defaults as a user gets them
	[ "$pinned" = 1 ] &&
		eal=(--no-huge --no-pci -m 256 -l 0,1 --file-prefix="$prefix")
	"$madpmd" "${eal[@]}" -- --run-dir "$MADPMD_RUN_DIR" --topology "$tmp/net" \
		${madpmd_opts[@]+"${madpmd_opts[@]}"} "$@" > "$tmp/madpmd.log" 2>&1 &
	daemon=$!
	daemon_kind=madpmd
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
	local pin=()
	[ "$pinned" = 1 ] && pin=(taskset -c 1)
	: > "$tmp/ibsim.log"
	${pin[@]+"${pin[@]}"} ibsim -s -n "$tmp/net" > "$tmp/ibsim.log" 2>&1 < /dev/null &
	daemon=$!
	daemon_kind=ibsim
	for _ in $(seq 200); do
		grep -q "simulator ready" "$tmp/ibsim.log" && sleep 0.2 && return 0
		kill -0 "$daemon" 2>/dev/null || break
		sleep 0.05
	done
	cat "$tmp/ibsim.log" >&2
	die "ibsim did not start (log above)"
}

# a command on hca1 of the running system ($1: madpmd or ibsim); on CPU 0
# with --pinned
on_hca1() {
	local sys=$1 pin=()
	shift
	[ "$pinned" = 1 ] && pin=(taskset -c 0)
	if [ "$sys" = madpmd ]; then
		${pin[@]+"${pin[@]}"} "$run" --node hca1 "$@"
	else
		SIM_HOST=hca1 LD_PRELOAD="$umad2sim" ${pin[@]+"${pin[@]}"} "$@"
	fi
}

# lines "window=W rate=R p50_us=X p99_us=Y ..." of $tmp/client.out into
# $tmp/results as "run label W rate p50 p99", echoed with a prefix
collect() {	# run label
	local r=$1 label=$2 line w k
	local -a v
	while read -r line; do
		[[ $line == window=* ]] || continue
		w=$(sed -n 's/^window=\([0-9]*\).*/\1/p' <<< "$line")
		v=()
		for k in rate p50_us p99_us; do
			v+=("$(sed -n "s/.* $k=\([0-9.]*\).*/\1/p" <<< "$line")")
		done
		echo "$r $label $w ${v[*]}" >> "$tmp/results"
		printf 'run %s %-7s %s\n' "$r" "$label" "$line"
	done < "$tmp/client.out"
}

client_run() {	# run label system [client options]
	local r=$1 label=$2 sys=$3
	shift 3
	on_hca1 "$sys" "$client" -t "$secs" "$@" > "$tmp/client.out" 2> "$tmp/client.err" || {
		hog_stop
		cat "$tmp/client.err" >&2
		die "bench_umad failed under $label"
	}
	collect "$r" "$label"
}

# OpenSM's one sweep: LIDs for LID-routed SMPs
sm_sweep() {	# system
	local log=$tmp/opensm.log
	rm -rf "$OSM_CACHE_DIR" "$log"
	mkdir -p "$OSM_CACHE_DIR"
	on_hca1 "$1" timeout 60 opensm -o -f "$log" > "$tmp/opensm.out" 2>&1 || true
	grep -q "SUBNET UP" "$log" 2>/dev/null ||
		die "opensm -o did not reach SUBNET UP under $1 ($(tail -n 3 "$tmp/opensm.out"))"
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3g", a / b; else print "-" }'
}

# ---- the earlier, pinned measurement (--pinned) ----------------------------

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

# one value of $tmp/results: run label window column(rate p50 p99)
res() {
	awk -v r="$1" -v l="$2" -v w="$3" -v c="$4" '
		$1 == r && $2 == l && $3 == w {
			print (c == "rate") ? $4 : (c == "p50") ? $5 : $6; exit }' \
		"$tmp/results"
}

pinned_main() {
	local labels=(madpmd) l w sw_m sw_i lg_m lg_i
	echo "bench_umad --pinned: $secs s per window; topology hca1 -- hca2; DR SMPs;" \
		"client on CPU 0, fabric on CPU 1; $(nproc) CPUs, $(uname -r)"
	start_madpmd
	client_run 1 madpmd madpmd
	[ "${SPIN:-0}" = 1 ] && { client_run 1 madpmd-spin madpmd -s; labels+=(madpmd-spin); }
	stop_daemon
	if [ -n "$extra_sleep" ]; then
		start_madpmd --idle-sleep-us "$extra_sleep"
		client_run 1 "madpmd-sleep$extra_sleep" madpmd
		labels+=("madpmd-sleep$extra_sleep")
		stop_daemon
	fi
	start_ibsim
	client_run 1 ibsim ibsim
	labels+=(ibsim)
	[ "${SPIN:-0}" = 1 ] && { client_run 1 ibsim-spin ibsim -s; labels+=(ibsim-spin); }
	stop_daemon

	for sys in madpmd ibsim; do
		for _ in $(seq "$sweeps"); do sweep_ms $sys; done > "$tmp/sweep.$sys"
		echo "$sys opensm -o ms (wall, in-log to SUBNET UP): $(tr ' \n' '/ ' < "$tmp/sweep.$sys")"
	done
	sw_m=$(median 1 < "$tmp/sweep.madpmd")
	sw_i=$(median 1 < "$tmp/sweep.ibsim")
	lg_m=$(median 2 < "$tmp/sweep.madpmd")
	lg_i=$(median 2 < "$tmp/sweep.ibsim")

	echo
	printf '%-20s %6s %12s %10s %10s\n' system window "MADs/s" "p50 us" "p99 us"
	for l in "${labels[@]}"; do
		for w in 1 32; do
			printf '%-20s %6s %12s %10s %10s\n' "$l" "$w" "$(res 1 "$l" $w rate)" \
				"$(res 1 "$l" $w p50)" "$(res 1 "$l" $w p99)"
		done
	done
	echo "opensm -o to SUBNET UP, median of $sweeps: wall madpmd $sw_m ms, ibsim $sw_i ms;" \
		"first log line to SUBNET UP madpmd $lg_m ms, ibsim $lg_i ms"
	echo
	for l in "${labels[@]}"; do
		case $l in madpmd*) ;; *) continue ;; esac
		for w in 1 32; do
			echo "$l/ibsim window=$w: rate $(ratio "$(res 1 "$l" $w rate)" "$(res 1 ibsim $w rate)") (target >= 4)," \
				"p50 $(ratio "$(res 1 "$l" $w p50)" "$(res 1 ibsim $w p50)")," \
				"p99 $(ratio "$(res 1 "$l" $w p99)" "$(res 1 ibsim $w p99)") (target <= 0.25)"
		done
	done
	echo "ibsim/madpmd opensm -o time: wall $(ratio "$sw_i" "$sw_m"), in-log $(ratio "$lg_i" "$lg_m")"
}

# ---- the default, unpinned measurement --------------------------------------

# where madpmd's threads may run, as its EAL set them (no taskset here)
show_affinity() {
	local t name cpus out=
	for t in /proc/"$daemon"/task/*; do
		name=$(cat "$t/comm" 2>/dev/null) || continue
		cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status" 2>/dev/null)
		case $name in rte-worker-*|madpmd) out+=" $name:$cpus" ;; esac
	done
	echo "madpmd threads' CPUs (its EAL defaults):$out"
}

one_run() {	# run number
	local r=$1 route=(-L) sys
	[ "$dr" = 1 ] && route=()
	echo "run $r: load average $(cut -d' ' -f1-3 /proc/loadavg)"
	hog_start
	"$bare" -t "$secs" > "$tmp/client.out" 2> "$tmp/client.err" || {
		hog_stop
		cat "$tmp/client.err" >&2
		die "bench_shm_rtt failed"
	}
	hog_stop
	collect "$r" bare
	for sys in madpmd ibsim; do
		if [ "$sys" = madpmd ]; then start_madpmd; else start_ibsim; fi
		[ "$r" = 1 ] && [ "$sys" = madpmd ] && show_affinity
		[ "$dr" = 1 ] || sm_sweep "$sys"
		hog_start
		client_run "$r" "$sys" "$sys" ${route[@]+"${route[@]}"}
		hog_stop
		stop_daemon
	done
	for w in 1 32; do
		printf 'run %s window=%-2s madpmd/ibsim: rate %s p50 %s p99 %s | madpmd/bare: rate %s p50 %s p99 %s\n' \
			"$r" "$w" \
			"$(ratio "$(res "$r" madpmd $w rate)" "$(res "$r" ibsim $w rate)")" \
			"$(ratio "$(res "$r" madpmd $w p50)" "$(res "$r" ibsim $w p50)")" \
			"$(ratio "$(res "$r" madpmd $w p99)" "$(res "$r" ibsim $w p99)")" \
			"$(ratio "$(res "$r" madpmd $w rate)" "$(res "$r" bare $w rate)")" \
			"$(ratio "$(res "$r" madpmd $w p50)" "$(res "$r" bare $w p50)")" \
			"$(ratio "$(res "$r" madpmd $w p99)" "$(res "$r" bare $w p99)")"
	done
}

# min / median / max of stdin's numbers, and how many of them meet "op lim"
stats() {	# op limit (op: ge, le or -)
	sort -g | awk -v op="$1" -v lim="$2" '
		function f(x) { return x >= 1000 ? sprintf("%.0f", x) : sprintf("%.3g", x) }
		{ v[NR] = $1; if ((op == "ge" && $1 >= lim) || (op == "le" && $1 <= lim)) ok++ }
		END {
			if (!NR) { print "-"; exit }
			med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%10s %10s %10s", f(v[1]), f(med), f(v[NR])
			if (op != "-")
				printf "   %s %-6s %d of %d", op == "ge" ? ">=" : "<=", lim, ok + 0, NR
			printf "\n" }'
}

# per run, system a's column over system b's
ratios() {	# a b window column
	local r
	for r in $(seq "$runs"); do
		ratio "$(res "$r" "$1" "$3" "$4")" "$(res "$r" "$2" "$3" "$4")"
		echo
	done | grep -v '^-$' || true
}

summary() {
	local w sys c tgt
	echo
	echo "summary of $runs run(s), $secs s per window$([ "$loaded" = 1 ] && echo ', loaded'):" \
		"min / median / max"
	printf '%-8s %6s %-6s %10s %10s %10s\n' system window what min median max
	for w in 1 32; do
		for sys in bare madpmd ibsim; do
			for c in rate p50 p99; do
				printf '%-8s %6s %-6s ' "$sys" "$w" "$c"
				for r in $(seq "$runs"); do res "$r" "$sys" "$w" "$c"; done | stats - 0
			done
		done
	done
	echo
	printf '%-22s %6s %10s %10s %10s   %s\n' ratio window min median max "target, runs meeting it"
	for w in 1 32; do
		for c in rate p50 p99; do
			tgt="- 0"
			if [ "$loaded" = 1 ]; then
				[ "$c" = rate ] && tgt="ge 4"
				[ "$c" = p50 ] && tgt="le 0.25"
			else
				[ "$c" = rate ] && tgt="ge 10"
			fi
			printf '%-22s %6s ' "madpmd/ibsim $c" "$w"
			ratios madpmd ibsim "$w" "$c" | stats $tgt
		done
		for c in rate p50 p99; do
			tgt="- 0"
			if [ "$loaded" = 0 ] && [ "$w" = 1 ]; then
				[ "$c" = p50 ] && tgt="le 8"
				[ "$c" = p99 ] && tgt="le 25"
			fi
			printf '%-22s %6s ' "madpmd/bare $c" "$w"
			ratios madpmd bare "$w" "$c" | stats $tgt
		done
	done
}

if [ "$pinned" = 1 ]; then
	pinned_main
	exit 0
fi
echo "bench_umad: $runs run(s), $secs s per window; topology hca1 -- hca2;" \
	"$([ "$dr" = 1 ] && echo 'directed-route' || echo 'LID-routed') SMP Get(NodeInfo) hca1 -> hca2;" \
	"nothing pinned, default launcher settings${MADPMD_OPTS:+ plus $MADPMD_OPTS};" \
	"$([ "$loaded" = 1 ] && echo 'one CPU-bound process beside each measurement' || echo 'nothing started beside');" \
	"$(nproc) CPUs, $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ)"
: > "$tmp/results"
for r in $(seq "$runs"); do
	one_run "$r"
done
summary
