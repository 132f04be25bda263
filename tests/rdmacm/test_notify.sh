#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rdma_notify(3) on a fabric whose wire drops every CM RTU
# (--lossy drop=100%,mad=0x07:0x0014), on IB and on RoCE: cm_notify, a
# program on rdma-core's own headers, as server on hca1 and client on
# hca2 under madpmd-run (see cm_notify.c for the checks). The wire must have dropped RTUs and
# nothing else, and the daemon must stop cleanly.
# Usage: test_notify.sh <madpmd> <madpmd-run> <cm_notify>
set -u
madpmd=$1
run=$2
prog=$3
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/pair.sh"

tmp=$(mktemp -d /tmp/madpmd-notify.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-notify-ib-$$ madpmd-notify-roce-$$)
port=$((20000 + $$ % 20000))

# each "ok - ..." / "not ok - ..." line of cm_notify, as TAP
tap_lines() {
	local label=$1 side=$2 line
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok 0 "$label: ${line#ok - }" ;;
		"not ok - "*) ok 1 "$label: ${line#not ok - }" ;;
		esac
	done < "$tmp/$side.out"
}

# notify_run LINK [launcher options]: the pair on a fabric of that link
# whose wire drops every RTU; on IB a resident OpenSM answers the routes
notify_run() {
	local link=$1 prefix=madpmd-notify-$1-$$ sm=
	shift
	export MADPMD_RUN_DIR=$tmp/run-$link
	fabric $prefix "$MADPMD_RUN_DIR" --lossy drop=100%,mad=0x07:0x0014 "$@"
	if [ "$link" = ib ]; then
		# -d2: its log flushed at each line, to be waited for
		resident_sm hca1 "$tmp/opensm.log"
		ok $? "$link: a resident opensm reaches SUBNET UP with every CM RTU dropped"
	fi
	addr=$("$run" --node hca1 --print-addr)
	port=$((port + 1))
	timeout 60 "$run" --node hca1 "$prog" server "$addr" $port > "$tmp/server.out" 2>&1 &
	srv=$!
	pids+=($srv)
	sleep 0.5
	timeout 60 "$run" --node hca2 "$prog" client "$addr" $port > "$tmp/client.out" 2>&1
	rc2=$?
	wait $srv
	rc1=$?
	tap_lines "$link: server" server
	tap_lines "$link: client" client
	[ $rc1 = 0 ] && [ $rc2 = 0 ]
	ok $? "$link: cm_notify server exit $rc1, client exit $rc2"
	[ $rc1 = 0 ] || sed 's/^/# server: /' "$tmp/server.out" | tail -5
	[ $rc2 = 0 ] || sed 's/^/# client: /' "$tmp/client.out" | tail -5

	[ -n "$sm" ] && stop $sm
	daemon_stop_check $daemon "$tmp/$prefix.log"
	ok $? "$link: the daemon stops cleanly"
	lost=$(awk '/wire from/ {s += $5} END {print s + 0}' "$tmp/$prefix.log")
	grep -h 'wire from' "$tmp/$prefix.log" | sed 's/^/# /'
	[ "$lost" -gt 0 ]
	ok $? "$link: the wire dropped $lost frames (the RTUs)"
}

notify_run ib
notify_run roce --link roce
tap_done
