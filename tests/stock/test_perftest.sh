#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# perftest (Debian's package, unmodified) over the drop-in libibverbs.so.1
# between two nodes: ib_{send,write,read,atomic}_{lat,bw}, each server on
# hca1 and client on hca2 in processes of their own, on IB after OpenSM
# and on RoCE. Each must exit 0 on both sides and print its result line.
# These are functional checks: the figures are the benchmarks' business
# (tests/bench), not pass/fail criteria here.
# Usage: test_perftest.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/pair.sh"

tmp=$(mktemp -d /tmp/madpmd-perftest.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-pt-$$ madpmd-pt-roce-$$)
port=$((40000 + $$ % 20000))

# perf NAME TOOL ARGS...: server on hca1, client on hca2
perf() {
	local name=$1 tool=$2 line
	shift 2
	pair_run "$name" "$tool" "$@"
	# the result line: "#bytes #iterations ..." then the numbers
	line=$(grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$tmp/$name.cli" | head -1 |
	       tr -s ' \t' ' ')
	[ $rc1 = 0 ] && [ $rc2 = 0 ] && [ -n "$line" ]
	ok $? "$name: $tool $* (exit $rc1/$rc2):$line"
	[ $rc1 = 0 ] && [ $rc2 = 0 ] && [ -n "$line" ] || pair_show "$name" 6
}

export MADPMD_RUN_DIR=$tmp/run
fabric madpmd-pt-$$ "$MADPMD_RUN_DIR"
timeout 60 "$run" opensm -o -f "$tmp/opensm.log" > /dev/null 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log"
ok $? "IB: opensm -o reaches SUBNET UP"
for t in send write read atomic; do
	perf ib_${t}_lat ib_${t}_lat -n 1000
	perf ib_${t}_bw ib_${t}_bw -n 1000
done
perf ib_send_lat_ud ib_send_lat -c UD -n 1000
perf ib_send_bw_uc ib_send_bw -c UC -n 1000
perf ib_write_bw_multi ib_write_bw -n 500 -s 1048576
daemon_stop_check $daemon "$tmp/madpmd-pt-$$.log"
ok $? "IB: the daemon stops cleanly"

# A perftest on the lcore's CPU (-l 0,1: CPU 1) polling its CQ while the
# lcore must run for the completion to come: it yields, and the lcore,
# with nothing to do, yields back instead of polling or sleeping
# (madpmd/chan.h, "Sharing a CPU"). A daemon of its own, so that only
# verbs clients can have made it yield.
if [ "$(nproc)" -ge 2 ]; then
	eal_prefixes+=(madpmd-pt-cpu-$$)
	export MADPMD_RUN_DIR=$tmp/run-cpu
	fabric madpmd-pt-cpu-$$ "$MADPMD_RUN_DIR" --link roce
	port=$((port + 1))
	taskset -c 1 timeout 60 "$run" --node hca1 ib_send_lat -d madpmd0 \
		-p $port -n 5000 > "$tmp/cpu.srv" 2>&1 &
	srv=$!
	pids+=($srv)
	sleep 0.5
	taskset -c 0 timeout 60 "$run" --node hca2 ib_send_lat -d madpmd0 \
		-p $port -n 5000 localhost > "$tmp/cpu.cli" 2>&1
	rc2=$?
	wait $srv
	rc1=$?
	line=$(grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$tmp/cpu.cli" | head -1 |
	       tr -s ' \t' ' ')
	[ $rc1 = 0 ] && [ $rc2 = 0 ] && [ -n "$line" ]
	ok $? "ib_send_lat, its server pinned to the lcore's CPU (exit $rc1/$rc2):$line"
	daemon_stop_check $daemon "$tmp/madpmd-pt-cpu-$$.log"
	ok $? "that daemon stops cleanly"
	yields=$(sed -n 's/^madpmd: lcore: \([0-9]*\) yields to a client spinning on its CPU$/\1/p' \
		 "$tmp/madpmd-pt-cpu-$$.log")
	[ "${yields:-0}" -gt 0 ]
	ok $? "the lcore saw the verbs client polling on its CPU and yielded to it ${yields:-0} times"
else
	skip "a perftest on the lcore's CPU" "one CPU: the lcore has no CPU of its own"
fi

export MADPMD_RUN_DIR=$tmp/run-roce
fabric madpmd-pt-roce-$$ "$MADPMD_RUN_DIR" --link roce
perf roce_send_lat ib_send_lat -n 1000
perf roce_write_bw ib_write_bw -n 1000
perf roce_read_lat ib_read_lat -n 1000
perf roce_atomic_bw ib_atomic_bw -n 1000
daemon_stop_check $daemon "$tmp/madpmd-pt-roce-$$.log"
ok $? "RoCE: the daemon stops cleanly"

tap_done
