#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Benchmark (not a test; never run by meson test, never fails on figures):
# stock OpenSM bringing up a fabric of switches on madpmd and on ibsim +
# libumad2sim, the baseline, in one run, on the same net files.
#
# Fabrics: ibsim's own examples (net, net.2sw2path4hca,
# net.2sw2path4hca2port from /usr/share/doc/ibsim-utils/net-examples) and
# two-level fat trees from scripts/gen-fattree: 288 hosts on 24 36-port
# switches (16 leaves, 8 spines, 2 cables each) and 648 hosts on 54 (36
# leaves, 18 spines); the three-level tree of 12-port switches (432 hosts,
# 180 switches); with --big the three-level tree of 36-port switches
# (11,664 hosts, 1,620 switches), ibsim with its tables raised to hold it
# (-N 16384 -S 2048 -P 131072). For each fabric and run, a fresh daemon of each
# kind, then `opensm -o` from the file's first CA (madpmd's libibumad on
# LD_LIBRARY_PATH, libumad2sim in LD_PRELOAD): the wall time of the
# whole OpenSM process (a single sweep to SUBNET UP, then exit), and the
# time to SUBNET UP from OpenSM's own log, and the CPU time the daemon
# used meanwhile (all its threads). On the 648-host tree, after the
# sweep, bench_umad's LID-routed SMP Get(NodeInfo) from H-1 to H-648:
# three switch hops each way (leaf, spine, leaf), 1 and 32 in flight;
# the daemon's RSS; ibnetdiscover from H-1 (its wall time: the same SMPs
# on both); and with a resident OpenSM on H-1, saquery -N (every
# NodeRecord, an RMPP transfer of 702 records) from 1 client and from 8
# at once on H-1 ... H-8, three each (ibsim serves 10 clients at most):
# queries a second.
# Per fabric: the medians, and madpmd's time as a fraction of ibsim's
# (below 1: madpmd is faster). --sm-port runs OpenSM where ibsim puts it
# by default instead: the file's first port (port 0 of the first node
# when it is a switch), on both. --madpmd-run runs madpmd's tools the way
# a user does (madpmd-run --node NODE, its private sysfs and run
# directory found) instead of on LD_LIBRARY_PATH.
#
#   tests/bench/bench_fabric.sh [--runs N] [--only NAME] [--sm-port] [--big]
#                               [--madpmd-run] [SECONDS]
#
# SECONDS per round-trip window (default 2). NAME: net, 2sw2path4hca,
# 2sw2path4hca2port, fat288, fat648, fat3-432 or (--big) fat3-11664.
# Environment: BUILD_DIR (default
# build); MADPMD_OPTS, launcher options added to every madpmd start.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${BUILD_DIR:-$top/build}" && pwd)
runs=3
only=
secs=2
sm_port=0
big=0
via_run=0
while [ $# -gt 0 ]; do
	case $1 in
	--runs)
		[ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] ||
			{ echo "bench_fabric: --runs needs a count" >&2; exit 2; }
		runs=$2
		shift 2 ;;
	--only)
		[ $# -ge 2 ] || { echo "bench_fabric: --only needs a name" >&2; exit 2; }
		only=$2
		shift 2 ;;
	--sm-port) sm_port=1; shift ;;
	--big) big=1; shift ;;
	--madpmd-run) via_run=1; shift ;;
	-h|--help) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bench_fabric: unknown option $1 (see --help)" >&2; exit 2 ;;
	*)
		[[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]] ||
			{ echo "bench_fabric: SECONDS must be a number, not '$1'" >&2; exit 2; }
		secs=$1
		shift ;;
	esac
done
read -r -a madpmd_opts <<< "${MADPMD_OPTS:-}"
madpmd=$build/pmd/madpmd
client=$build/tests/bench/bench_umad
examples=/usr/share/doc/ibsim-utils/net-examples

die() {
	echo "bench_fabric: $*" >&2
	exit 1
}
[ -x "$madpmd" ] || die "no madpmd at $madpmd: build it first (ninja -C $build)"
[ -x "$client" ] || die "no bench_umad at $client: build it first (ninja -C $build)"
for p in ibsim opensm python3; do
	command -v $p > /dev/null ||
		die "$p is missing: apt-get install -y ibsim-utils libumad2sim0 opensm python3"
done
umad2sim=$(dpkg -L libumad2sim0 2>/dev/null | grep '/libumad2sim\.so$' | head -n 1) ||
	true
[ -n "$umad2sim" ] || die "libumad2sim.so not found: apt-get install -y libumad2sim0"

tmp=$(mktemp -d /tmp/madpmd-bench-fabric.XXXXXX)
# libumad2sim makes its sysfs (sys-PID) in the working directory
cd "$tmp"
export MADPMD_RUN_DIR=$tmp/run
export IBSIM_SOCKNAME=ibsim-bench-$$
daemon=
daemon_kind=

stop() {
	local p=$1
	kill -TERM "$p" 2>/dev/null || return 0
	for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}
# a background job started under set -m: its whole process group
stop_group() {
	local p=$1
	kill -TERM -- -"$p" 2>/dev/null || return 0
	for _ in $(seq 50); do kill -0 -- -"$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL -- -"$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}
stop_daemon() {
	[ -n "$daemon" ] || return 0
	stop "$daemon"
	[ "$daemon_kind" = madpmd ] && rm -rf "/var/run/dpdk/madpmd-$daemon"
	daemon=
	daemon_kind=
}
cleanup() {
	stop_daemon
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the fabrics: name file
fabrics=()
for e in net net.2sw2path4hca net.2sw2path4hca2port; do
	if [ -f "$examples/$e" ]; then
		fabrics+=("${e#net.}:$examples/$e")
	elif [ -f "$examples/$e.gz" ]; then
		zcat "$examples/$e.gz" > "$tmp/$e"
		fabrics+=("${e#net.}:$tmp/$e")
	fi
done
"$top/scripts/gen-fattree" --leaves 16 --spines 8 --links 2 > "$tmp/fat288"
"$top/scripts/gen-fattree" > "$tmp/fat648"
"$top/scripts/gen-fattree" --levels 3 --ports 12 > "$tmp/fat3-432"
fabrics+=("fat288:$tmp/fat288" "fat648:$tmp/fat648" "fat3-432:$tmp/fat3-432")
if [ "$big" = 1 ]; then
	"$top/scripts/gen-fattree" --levels 3 > "$tmp/fat3-11664"
	fabrics+=("fat3-11664:$tmp/fat3-11664")
fi
# ibsim's tables (sim.h: 2048 nodes, 256 switches, 13312 ports) raised
# for the three-level trees; OpenSM's sweep of 11,664 hosts takes minutes
ibsim_args=()
sweep_timeout=120

first_ca() {	# the first Hca of a net file (its SM node here)
	awk '$1 == "Hca" { for (i = 3; i <= NF; i++) if ($i ~ /^"/) {
		gsub(/"/, "", $i); print $i; exit } }' "$1"
}

first_node() {	# the first node of a net file: its port is the SM port
	awk '$1 == "Hca" || $1 == "Switch" { for (i = 3; i <= NF; i++)
		if ($i ~ /^"/) { gsub(/"/, "", $i); print $i; exit } }' "$1"
}

start_madpmd() {	# net file
	rm -rf "$MADPMD_RUN_DIR"
	"$madpmd" -- --run-dir "$MADPMD_RUN_DIR" --topology "$1" \
		${madpmd_opts[@]+"${madpmd_opts[@]}"} > "$tmp/madpmd.log" 2>&1 &
	daemon=$!
	daemon_kind=madpmd
	for _ in $(seq 400); do
		[ -s "$MADPMD_RUN_DIR/ports" ] && sleep 0.2 && return 0
		kill -0 "$daemon" 2>/dev/null || break
		sleep 0.05
	done
	tail -n 20 "$tmp/madpmd.log" >&2
	die "madpmd did not start (log above)"
}

start_ibsim() {	# net file
	ibsim -s -n ${ibsim_args[@]+"${ibsim_args[@]}"} "$1" > "$tmp/ibsim.log" 2>&1 < /dev/null &
	daemon=$!
	daemon_kind=ibsim
	for _ in $(seq 6000); do
		grep -q "simulator ready" "$tmp/ibsim.log" && sleep 0.2 && return 0
		kill -0 "$daemon" 2>/dev/null || break
		sleep 0.05
	done
	tail -n 20 "$tmp/ibsim.log" >&2
	die "ibsim did not start (log above)"
}

on_node() {	# system node command...
	local sys=$1 node=$2
	shift 2
	if [ "$sys" = madpmd ] && [ "$via_run" = 1 ]; then
		"$build/lib/umad/madpmd-run" --node "$node" "$@"
	elif [ "$sys" = madpmd ]; then
		# the drop-in libibumad on the library path, as libumad2sim
		# is preloaded for ibsim: madpmd-run's private sysfs (a mount
		# namespace, a few ms a process) is not timed
		env LD_LIBRARY_PATH="$build/lib/umad${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
			MADPMD_NODE="$node" "$@"
	else
		env -u LD_LIBRARY_PATH -u MADPMD_RUN_DIR SIM_HOST="$node" \
			LD_PRELOAD="$umad2sim" "$@"
	fi
}

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# CPU time of the daemon so far, all its threads, in ns (schedstat)
daemon_cpu_ns() {
	cat /proc/"$daemon"/task/*/schedstat 2>/dev/null |
		awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# opensm -o once: "WALL_MS UP_MS CPU_MS", UP from its log (first line to
# SUBNET UP), CPU the daemon's during it
sweep() {	# system node
	local log=$tmp/osm.log t0 wall c0 cpu
	rm -rf "$tmp/osm" "$log"
	mkdir -p "$tmp/osm"
	c0=$(daemon_cpu_ns)
	t0=$(date +%s%N)
	OSM_CACHE_DIR=$tmp/osm OSM_TMP_DIR=$tmp/osm on_node "$1" "$2" \
		timeout "$sweep_timeout" opensm -o -f "$log" > "$tmp/osm.out" 2>&1 ||
		{ echo "bench_fabric: opensm on $1 failed:" >&2; tail -n 5 "$log" >&2; return 1; }
	wall=$(ms_since "$t0")
	cpu=$(( ($(daemon_cpu_ns) - c0) / 1000000 ))
	grep -q "SUBNET UP" "$log" ||
		{ echo "bench_fabric: no SUBNET UP on $1:" >&2; grep ERR "$log" | head -n 5 >&2; return 1; }
	python3 - "$log" "$wall" "$cpu" <<'PY'
import sys
def t(line):
    h, m, s = line.split()[2].split(":")
    return (int(h) * 60 + int(m)) * 60 + int(s) + int(line.split()[3]) / 1e6
lines = open(sys.argv[1]).read().splitlines()
up = next(l for l in lines if "SUBNET UP" in l)
print(sys.argv[2], round((t(up) - t(lines[0])) * 1000), sys.argv[3])
PY
}

# H-648 by directed route from H-1: leaf L-1's first uplink (port 19) to
# S-1, S-1's port 36 to L-36, its port 18 to the host
far_path=0,1,19,36,18

round_trips() {	# system node: bench_umad lines into $tmp/rt-SYSTEM
	local lid w
	lid=$(on_node "$1" "$2" smpquery -D portinfo $far_path 2>/dev/null |
		sed -n 's/^Lid:\.*\([0-9]*\)$/\1/p')
	[ -n "$lid" ] && [ "$lid" != 0 ] ||
		{ echo "bench_fabric: no LID for H-648 on $1" >&2; return 1; }
	for w in 1 32; do
		on_node "$1" "$2" "$client" -t "$secs" -w $w -l "$lid" 2>/dev/null |
			grep "^window=" >> "$tmp/rt-$1" || true
	done
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# after the sweep: "RSS_KB IBND_MS" (the daemon's RSS, ibnetdiscover's
# wall time from node)
after_sweep() {	# system node
	local t0 rss
	rss=$(awk '/^VmRSS/ { print $2 }' /proc/"$daemon"/status)
	t0=$(date +%s%N)
	on_node "$1" "$2" ibnetdiscover > "$tmp/ibnd.out" 2>/dev/null ||
		{ echo "bench_fabric: ibnetdiscover on $1 failed" >&2; return 1; }
	echo "$rss $(ms_since "$t0")"
}

# A resident OpenSM on node, then saquery -N from 1 client and from 8 at
# once (H-1 ... H-8), 3 queries each: "Q1_PER_S Q8_PER_S"
sa_clients() {	# system node
	local sm t0 i pids=() w1 w8 k
	rm -rf "$tmp/osm-r" "$tmp/osm-r.log"
	mkdir -p "$tmp/osm-r"
	# in a process group of its own: stopped whole, whatever runs it
	# (env, madpmd-run) between this shell and OpenSM
	set -m
	OSM_CACHE_DIR=$tmp/osm-r OSM_TMP_DIR=$tmp/osm-r on_node "$1" "$2" \
		opensm -d2 -f "$tmp/osm-r.log" > /dev/null 2>&1 &
	sm=$!
	set +m
	for _ in $(seq 600); do
		grep -q "SUBNET UP" "$tmp/osm-r.log" 2>/dev/null && break
		sleep 0.1
	done
	grep -q "SUBNET UP" "$tmp/osm-r.log" 2>/dev/null ||
		{ echo "bench_fabric: no resident SM on $1" >&2; stop_group "$sm"; return 1; }
	for k in 1 8; do
		pids=()
		t0=$(date +%s%N)
		for i in $(seq "$k"); do
			( for _ in 1 2 3; do
				on_node "$1" "H-$i" saquery -N > /dev/null 2>&1 ||
					echo fail >> "$tmp/sa-fail"
			  done ) &
			pids+=($!)
		done
		wait "${pids[@]}"
		[ "$k" = 1 ] && w1=$(ms_since "$t0") || w8=$(ms_since "$t0")
	done
	stop_group "$sm"
	[ ! -s "$tmp/sa-fail" ] ||
		{ echo "bench_fabric: saquery failed on $1 ($(wc -l < "$tmp/sa-fail") times)" >&2; rm -f "$tmp/sa-fail"; }
	awk -v a="$w1" -v b="$w8" 'BEGIN { printf "%.1f %.1f\n", 3000 / a, 24000 / b }'
}

if [ "$sm_port" = 1 ]; then
	echo "opensm -o on each file's SM port (its first node's: ibsim's default)"
else
	echo "opensm -o on each file's first CA"
fi
printf '%-18s %8s %8s %8s %8s %7s %8s %8s\n' fabric madpmd ibsim madpmd ibsim "m/i" \
	madpmd ibsim
printf '%-18s %8s %8s %8s %8s %7s %8s %8s\n' "" "wall ms" "wall ms" "up ms" "up ms" wall \
	"cpu ms" "cpu ms"
for f in "${fabrics[@]}"; do
	name=${f%%:*}
	file=${f#*:}
	[ -z "$only" ] || [ "$only" = "$name" ] || continue
	node=$(first_ca "$file")
	sm=$node
	ibsim_args=()
	sweep_timeout=120
	if [[ $name == fat3-* ]]; then
		ibsim_args=(-N 16384 -S 2048 -P 131072)
		sweep_timeout=1800
	fi
	[ "$sm_port" = 1 ] && sm=$(first_node "$file")
	: > "$tmp/m.txt"
	: > "$tmp/i.txt"
	for _ in $(seq "$runs"); do
		for sys in madpmd ibsim; do
			start_$sys "$file"
			sweep $sys "$sm" >> "$tmp/${sys:0:1}.txt"
			if [ "$name" = fat648 ]; then
				round_trips $sys "$node"
				echo "$(after_sweep $sys "$node") $(sa_clients $sys "$node")" \
					>> "$tmp/x-$sys"
			fi
			stop_daemon
		done
	done
	mw=$(cut -d' ' -f1 "$tmp/m.txt" | median)
	iw=$(cut -d' ' -f1 "$tmp/i.txt" | median)
	mu=$(cut -d' ' -f2 "$tmp/m.txt" | median)
	iu=$(cut -d' ' -f2 "$tmp/i.txt" | median)
	mc=$(cut -d' ' -f3 "$tmp/m.txt" | median)
	ic=$(cut -d' ' -f3 "$tmp/i.txt" | median)
	printf '%-18s %8s %8s %8s %8s %7s %8s %8s\n' "$name" "$mw" "$iw" "$mu" "$iu" \
		"$(awk -v a="$mw" -v b="$iw" 'BEGIN { printf "%.2f", a / b }')" "$mc" "$ic"
done

if [ -f "$tmp/x-madpmd" ] && [ -f "$tmp/x-ibsim" ]; then
	echo
	echo "fat648 after the sweep: RSS, ibnetdiscover from H-1, saquery -N per second (1 and 8 clients)"
	printf '%-22s %10s %10s %7s\n' "" madpmd ibsim "m/i"
	for c in "1 RSS MB" "2 ibnetdiscover ms" "3 saquery/s 1 client" "4 saquery/s 8 clients"; do
		col=${c%% *}
		mv=$(cut -d' ' -f"$col" "$tmp/x-madpmd" | median)
		iv=$(cut -d' ' -f"$col" "$tmp/x-ibsim" | median)
		if [ "$col" = 1 ]; then
			mv=$((mv / 1024))
			iv=$((iv / 1024))
		fi
		printf '%-22s %10s %10s %7s\n' "${c#* }" "$mv" "$iv" \
			"$(awk -v a="$mv" -v b="$iv" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
	done
fi

# field of the bench_umad lines of window w: median over the runs
rt() {	# system window field
	[ -f "$tmp/rt-$1" ] || { echo -; return; }
	grep "^window=$2 " "$tmp/rt-$1" | tr ' ' '\n' | sed -n "s/^$3=//p" | median
}
if [ -f "$tmp/rt-madpmd" ] || [ -f "$tmp/rt-ibsim" ]; then
	echo
	echo "SMP Get(NodeInfo) H-1 -> H-648 on fat648, LID-routed, 3 switch hops each way"
	printf '%-9s %10s %10s %7s %9s %9s %9s %9s\n' window "madpmd/s" "ibsim/s" "m/i" \
		"m p50 us" "i p50 us" "m p99 us" "i p99 us"
	for w in 1 32; do
		mr=$(rt madpmd $w rate)
		ir=$(rt ibsim $w rate)
		printf '%-9s %10s %10s %7s %9s %9s %9s %9s\n' $w "$mr" "$ir" \
			"$(awk -v a="$mr" -v b="$ir" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
			"$(rt madpmd $w p50_us)" "$(rt ibsim $w p50_us)" \
			"$(rt madpmd $w p99_us)" "$(rt ibsim $w p99_us)"
	done
fi
