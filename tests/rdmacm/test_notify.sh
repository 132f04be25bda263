#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rdma_notify(3) on a fabric whose wire drops every CM RTU
# (--lossy drop=100%,mad=0x07:0x0014): cm_notify, a program on rdma-core's
# own headers, as server on hca1 and client on hca2 under madpmd-run (see
# cm_notify.c for the checks). The wire must have dropped RTUs and
# nothing else, and the daemon must stop cleanly.
# Usage: test_notify.sh <madpmd> <madpmd-run> <cm_notify>
set -u
madpmd=$1
run=$2
prog=$3
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/pair.sh"

tmp=$(mktemp -d /tmp/madpmd-notify.XXXXXX)
eal_prefixes=(madpmd-notify-$$)
port=$((20000 + $$ % 20000))

# each "ok - ..." / "not ok - ..." line of cm_notify, as TAP
tap_lines() {
	local side=$1 line
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok 0 "$side: ${line#ok - }" ;;
		"not ok - "*) ok 1 "$side: ${line#not ok - }" ;;
		esac
	done < "$tmp/$side.out"
}

export MADPMD_RUN_DIR=$tmp/run
fabric madpmd-notify-$$ "$MADPMD_RUN_DIR" --lossy drop=100%,mad=0x07:0x0014
# -d2: its log flushed at each line, to be waited for
"$run" --node hca1 opensm -d2 -f "$tmp/opensm.log" > /dev/null 2>&1 &
sm=$!
pids+=($sm)
for i in $(seq 300); do grep -q "SUBNET UP" "$tmp/opensm.log" 2>/dev/null && break; sleep 0.1; done
grep -q "SUBNET UP" "$tmp/opensm.log"
ok $? "a resident opensm reaches SUBNET UP with every CM RTU dropped"
addr=$("$run" --node hca1 --print-addr)

timeout 60 "$run" --node hca1 "$prog" server "$addr" $port > "$tmp/server.out" 2>&1 &
srv=$!
pids+=($srv)
sleep 0.5
timeout 60 "$run" --node hca2 "$prog" client "$addr" $port > "$tmp/client.out" 2>&1
rc2=$?
wait $srv
rc1=$?
tap_lines server
tap_lines client
[ $rc1 = 0 ] && [ $rc2 = 0 ]
ok $? "cm_notify server exit $rc1, client exit $rc2"
[ $rc1 = 0 ] || sed 's/^/# server: /' "$tmp/server.out" | tail -5
[ $rc2 = 0 ] || sed 's/^/# client: /' "$tmp/client.out" | tail -5

stop $sm
daemon_stop_check $daemon "$tmp/madpmd-notify-$$.log"
ok $? "the daemon stops cleanly"
lost=$(awk '/wire from/ {s += $5} END {print s + 0}' "$tmp/madpmd-notify-$$.log")
grep -h 'wire from' "$tmp/madpmd-notify-$$.log" | sed 's/^/# /'
[ "$lost" -gt 0 ]
ok $? "the wire dropped $lost frames (the RTUs)"
tap_done
