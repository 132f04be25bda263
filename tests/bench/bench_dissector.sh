#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Benchmark (not a test): tshark's time to decode a large RoCEv2 capture
# with the madpmd plugin against the stock InfiniBand dissector on the same
# wire packets (plugin loaded but "--disable-protocol madpmd", which hands
# every RoCE packet back to the stock dissector). Target: ratio <= 1.25.
#
#   tests/bench/bench_dissector.sh [BUILD_DIR] [COUNT] [RUNS]
#
# BUILD_DIR defaults to build-ws; COUNT PerfMgt Get requests (each with its
# response, so 2*COUNT frames) default 200000; RUNS per side default 3 (the
# best run of each side is compared). Set MODE=fields to time a run that
# builds the tree (-T fields) instead of the summary lines.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build-ws}" && pwd)
count=${2:-200000}
runs=${3:-3}
mode=${MODE:-summary}
plugin=$build/dissector/madpmd.so
pktgen=$build/lib/madpmd-pktgen

[ -f "$plugin" ] || { echo "bench_dissector: no plugin at $plugin: build it first (ninja -C $build)" >&2; exit 1; }
[ -x "$pktgen" ] || { echo "bench_dissector: no madpmd-pktgen at $pktgen" >&2; exit 1; }

work=$(mktemp -d /tmp/madpmd-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$work/plugins/4.0/epan" "$work/home"
cp "$plugin" "$work/plugins/4.0/epan/"
chmod -R a+rX "$work/plugins"
chmod 777 "$work/home"

"$pktgen" -o "$work/roce.pcapng" --kind perf-get --link roce --count "$count" >/dev/null 2>&1
chmod 644 "$work/roce.pcapng"
frames=$((2 * count))

# tshark ignores WIRESHARK_PLUGIN_DIR as root: drop to nobody
as_user=()
if [ "$(id -u)" = 0 ]; then
	as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
fi
tshark_env() {
	"${as_user[@]}" env HOME="$work/home" WIRESHARK_PLUGIN_DIR="$work/plugins" \
		tshark "$@"
}
tshark_run() {
	tshark_env -n -r "$work/roce.pcapng" "$@"
}

if ! tshark_env -G plugins 2>/dev/null | grep -q madpmd.so; then
	echo "bench_dissector: tshark does not load $plugin" >&2
	exit 1
fi

extra=()
if [ "$mode" = fields ]; then
	extra=(-T fields -e frame.number -e infiniband.mad.transactionid -e madpmd.mad.tid)
fi

best() {	# best wall time in seconds of $runs runs of tshark "$@"
	local b="" t s e
	for _ in $(seq "$runs"); do
		s=$(date +%s.%N)
		tshark_run "$@" "${extra[@]}" >/dev/null 2>&1 ||
			{ echo "bench_dissector: tshark $* failed" >&2; exit 1; }
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc -l)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}

# sanity: both sides decode every frame, the plugin with zero malformed
ours=$(tshark_run -Y madpmd 2>/dev/null | wc -l)
stock=$(tshark_run --disable-protocol madpmd -Y infiniband 2>/dev/null | wc -l)
bad=$(tshark_run -Y '_ws.malformed || _ws.expert.severity >= "error"' 2>/dev/null | wc -l)
echo "capture: $frames RoCEv2 frames (PerfMgt Get/GetResp), $(du -h "$work/roce.pcapng" | cut -f1)"
echo "decoded: madpmd $ours frames, stock $stock frames; malformed/error with madpmd: $bad"

t_ours=$(best)
t_stock=$(best --disable-protocol madpmd)
ratio=$(echo "$t_ours / $t_stock" | bc -l)
printf 'mode %s, best of %d runs\n' "$mode" "$runs"
printf 'madpmd plugin : %8.3f s  (%8.0f frames/s)\n' "$t_ours" "$(echo "$frames / $t_ours" | bc -l)"
printf 'stock (ib)    : %8.3f s  (%8.0f frames/s)\n' "$t_stock" "$(echo "$frames / $t_stock" | bc -l)"
printf 'ratio madpmd/stock: %.3f (target <= 1.25)\n' "$ratio"
