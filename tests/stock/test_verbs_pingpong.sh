#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Stock ibverbs-utils over the drop-in libibverbs.so.1, between two nodes
# of one fabric: ibv_ud_pingpong, ibv_rc_pingpong (also -e, completion
# events; -N, the ibv_wr_* send API), ibv_uc_pingpong and ibv_srq_pingpong,
# unmodified, each side a process of its own under madpmd-run. On IB after OpenSM gave the ports
# their LIDs, and on RoCE (GID index 1, the port's IPv4-mapped address).
# The pingpongs exchange their QP numbers over TCP on the loopback; the
# data goes through the daemon. Each must exit 0 and say how many bytes
# it moved; the wire counters must show the traffic went over the wire.
# Usage: test_verbs_pingpong.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/pair.sh"

tmp=$(mktemp -d /tmp/madpmd-pingpong.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-pp-$$ madpmd-pp-roce-$$ madpmd-pp-lossy-$$)
port=$((20000 + $$ % 20000))

# pingpong NAME TOOL ARGS...: the server on hca1, the client on hca2
pingpong() {
	local name=$1 tool=$2
	shift 2
	pair_run "$name" "$tool" "$@"
	[ $rc1 = 0 ] && [ $rc2 = 0 ] &&
		grep -q "bytes in .* seconds" "$tmp/$name.srv" &&
		grep -q "bytes in .* seconds" "$tmp/$name.cli"
	ok $? "$name: $tool $* (server exit $rc1, client exit $rc2): $(grep -h 'bytes in' "$tmp/$name.cli" | head -1)"
	[ $rc1 = 0 ] && [ $rc2 = 0 ] || pair_show "$name"
}

# ---- InfiniBand ----
export MADPMD_RUN_DIR=$tmp/run
fabric madpmd-pp-$$ "$MADPMD_RUN_DIR"
timeout 60 "$run" opensm -o -f "$tmp/opensm.log" > /dev/null 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log"
ok $? "IB: opensm -o reaches SUBNET UP"

pingpong ib_rc ibv_rc_pingpong -n 200 -c
pingpong ib_rc_events ibv_rc_pingpong -n 200 -e
pingpong ib_rc_big ibv_rc_pingpong -n 50 -s 65536 -c
pingpong ib_uc ibv_uc_pingpong -n 200
pingpong ib_ud ibv_ud_pingpong -n 200 -s 1024
pingpong ib_srq ibv_srq_pingpong -n 100
pingpong ib_rc_grh ibv_rc_pingpong -n 100 -g 0
# -N: the ibv_wr_* send API (ibv_qp_to_qp_ex, wr_start/send/complete)
pingpong ib_rc_new_send ibv_rc_pingpong -n 200 -N -c

daemon_stop_check $daemon "$tmp/madpmd-pp-$$.log"
ok $? "IB: the daemon stops cleanly"

# ---- RoCE ----
export MADPMD_RUN_DIR=$tmp/run-roce
fabric madpmd-pp-roce-$$ "$MADPMD_RUN_DIR" --link roce
pingpong roce_rc ibv_rc_pingpong -n 200 -g 1
pingpong roce_ud ibv_ud_pingpong -n 200 -g 1 -s 1024
pingpong roce_rc_v6 ibv_rc_pingpong -n 100 -g 0
pingpong roce_rc_new_send ibv_rc_pingpong -n 100 -g 1 -N -c

daemon_stop_check $daemon "$tmp/madpmd-pp-roce-$$.log"
ok $? "RoCE: the daemon stops cleanly"

# ---- a lossy wire: RC still delivers every message once and in order ----
# (-c: each side checks the bytes it receives, message after message)
export MADPMD_RUN_DIR=$tmp/run-lossy
fabric madpmd-pp-lossy-$$ "$MADPMD_RUN_DIR" --link roce \
	--lossy drop=3%,dup=3%,reorder=3%,seed=7
pingpong lossy_rc ibv_rc_pingpong -n 200 -s 8192 -c -g 1
daemon_stop_check $daemon "$tmp/madpmd-pp-lossy-$$.log"
ok $? "lossy: the daemon stops cleanly"
# the wire did lose, and the QPs sent again
lost=$(awk '/wire from/ {s += $5} END {print s + 0}' "$tmp/madpmd-pp-lossy-$$.log")
again=$(awk '/QPs:/ {s += $7 + $11} END {print s + 0}' "$tmp/madpmd-pp-lossy-$$.log")
grep -h 'wire from\|QPs:' "$tmp/madpmd-pp-lossy-$$.log" | sed 's/^/# /'
[ "$lost" -gt 0 ] && [ "$again" -gt 0 ]
ok $? "lossy: $lost frames lost on the wire, $again resent after a time-out or NAK"

tap_done
