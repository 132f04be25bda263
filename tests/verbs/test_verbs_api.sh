#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_verbs_api (built on rdma-core's headers and libibverbs) run over the
# drop-in on hca1 of an IB fabric OpenSM brought up.
# Usage: test_verbs_api.sh <madpmd> <madpmd-run> <test_verbs_api>
set -u
madpmd=$1
run=$2
prog=$3
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/pair.sh"

# relay FILE [PREFIX]: a program's own TAP lines, renumbered into this
# plan (its diagnostics too, unless PREFIX names the lines)
relay() {
	local line
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok 0 "${2:-}${line#ok [0-9]* - }" ;;
		"not ok "*) ok 1 "${2:-}${line#not ok [0-9]* - }" ;;
		"#"*) [ -n "${2:-}" ] || echo "$line" ;;
		esac
	done < "$1"
}

tmp=$(mktemp -d /tmp/madpmd-vapi.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-vapi-$$ madpmd-vapi-roce-$$)
export MADPMD_RUN_DIR=$tmp/run
# sockets every user may open, in a directory every user reaches: a
# second user's pingpong below
chmod 755 "$tmp"
"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-vapi-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --umad-mode 0666 > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
# a context waiting for its port while OpenSM brings the fabric up
timeout 60 "$run" --node hca1 "$prog" madpmd0 port-events > "$tmp/port.out" 2>&1 &
waiter=$!
pids+=($waiter)
# and stock ibv_asyncwatch, which opens the device and makes nothing
timeout 60 "$run" --node hca1 ibv_asyncwatch -d madpmd0 > "$tmp/watch.out" 2>&1 &
watcher=$!
pids+=($watcher)
for i in $(seq 100); do grep -q '^# ready' "$tmp/port.out" && break; sleep 0.1; done
for i in $(seq 100); do grep -q 'async event FD' "$tmp/watch.out" && break; sleep 0.1; done
timeout 60 "$run" opensm -o -f "$tmp/opensm.log" > /dev/null 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log"
ok $? "IB: opensm -o reaches SUBNET UP"
wait $waiter
rc=$?
relay "$tmp/port.out" "port events: "
[ $rc = 0 ]
ok $? "port events: the waiter exits 0 (exit $rc)"
for i in $(seq 50); do grep -q IBV_EVENT_PORT_ACTIVE "$tmp/watch.out" && break; sleep 0.1; done
kill $watcher 2>/dev/null
wait $watcher 2>/dev/null
grep -q 'event_type IBV_EVENT_PORT_ACTIVE.*port 1' "$tmp/watch.out"
ok $? "stock ibv_asyncwatch prints the port's PORT_ACTIVE: $(grep -m1 PORT_ACTIVE "$tmp/watch.out")"

# clients that take the largest share they can and leave, four times,
# first: the daemon's anonymous memory after them is what it was before
# (what they made given back to the system, not kept in malloc's free
# lists: 29 MB became 106 MB before)
rss_anon() { awk '/^RssAnon:/ {print $2}' /proc/$daemon/status; }
rss0=$(rss_anon)
hogs=0
for r in 1 2 3 4; do
	timeout 60 "$run" --node hca1 "$prog" madpmd0 hog > "$tmp/hog$r.out" 2>&1 &&
		hogs=$((hogs + 1))
done
# the last one's session ends after the client does
sleep 0.5
rss4=$(rss_anon)
ok $([ $hogs = 4 ]; echo $?) "four clients each take their share and leave: $(grep -h '^# hogged' "$tmp/hog1.out")"
if ldd "$madpmd" 2> /dev/null | grep -q libasan; then
	skip "the daemon's memory after four hogs" "ASan's allocator holds freed memory in its quarantine ($rss0 kB, then $rss4 kB)"
else
	[ -n "$rss0" ] && [ -n "$rss4" ] && [ "$rss4" -le $((rss0 + 16384)) ]
	ok $? "the daemon's anonymous memory after them is within 16 MiB of what it was before (${rss0:-?} kB, then ${rss4:-?} kB)"
fi

# the program's own TAP lines, renumbered into this plan
MADPMD_TEST_DAEMON_PID=$daemon \
	timeout 90 "$run" --node hca1 "$prog" madpmd0 > "$tmp/api.out" 2>&1
rc=$?
relay "$tmp/api.out"
[ $rc = 0 ]
ok $? "test_verbs_api exits 0 (exit $rc)"
[ $rc = 0 ] || tail -5 "$tmp/api.out" | sed 's/^/# /'

# pingpong NAME [AS-USER...]: stock ibv_rc_pingpong, its server on hca1
# (run as AS-USER, root without), its client on hca2; true when both
# moved their bytes
pport=$((20000 + $$ % 20000))
pingpong() {
	local name=$1 srv
	shift
	pport=$((pport + 1))
	"$@" env MADPMD_RUN_DIR="$MADPMD_RUN_DIR" timeout 30 "$run" --node hca1 \
		ibv_rc_pingpong -d madpmd0 -p $pport -n 20 > "$tmp/$name.srv" 2>&1 \
		8>&- 9>&- 10>&- &
	srv=$!
	pids+=($srv)
	sleep 0.5
	timeout 30 "$run" --node hca2 ibv_rc_pingpong -d madpmd0 -p $pport -n 20 localhost \
		> "$tmp/$name.cli" 2>&1
	rc2=$?
	wait $srv
	rc1=$?
	[ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q "bytes in" "$tmp/$name.srv"
}

# hold K: a process holding its whole share of hca1 (five contexts),
# until its input closes (fd 7+K)
hold() {
	mkfifo "$tmp/hold$1.in"
	# the other holders' fifos not inherited: each sees its own EOF
	timeout 90 "$run" --node hca1 "$prog" madpmd0 hold < "$tmp/hold$1.in" \
		> "$tmp/hold$1.out" 2>&1 8>&- 9>&- 10>&- &
	holder[$1]=$!
	pids+=(${holder[$1]})
	eval "exec $((7 + $1))> \"\$tmp/hold$1.in\""
	for i in $(seq 200); do grep -q '^# holding' "$tmp/hold$1.out" && break; sleep 0.1; done
	grep -q '^# holding' "$tmp/hold$1.out"
}

# one process holding its share: stock ibv_rc_pingpong, another
# process, still makes its QP there
hold 1
ok $? "a process holds its share of hca1: $(grep -h '^# holding' "$tmp/hold1.out")"
# the share and the QPs live, in DPDK telemetry
tel=$(echo /madpmd/ports | timeout 20 dpdk-telemetry.py -f madpmd-vapi-$$ 2>/dev/null | tr -d ' \n' |
	grep -o '"hca1/1":{[^}]*}')
gauge() { echo "$tel" | grep -o "\"$1\":[0-9]*" | grep -o '[0-9]*$'; }
[ "$(gauge share_qps)" = 1024 ] && [ "$(gauge verbs_qps)" -ge 1024 ] &&
	[ "$(gauge verbs_qps_max)" = 4096 ] && [ "$(gauge share_mrs)" = 4096 ] &&
	[ "$(gauge share_cm_ids)" = 4096 ]
ok $? "telemetry /madpmd/ports: hca1/1 has $(gauge verbs_qps) QPs live of $(gauge verbs_qps_max), a process's share $(gauge share_qps) QPs, $(gauge share_mrs) MRs, $(gauge share_cm_ids) CM ids"
pingpong pp1
ok $? "beside it, stock ibv_rc_pingpong on hca1 works (server exit $rc1, client exit $rc2)"
[ $rc1 = 0 ] || sed 's/^/# srv: /' "$tmp/pp1.srv" | tail -4

# three such processes of one user hold that user's three shares: a
# fourth process of the user gets no QP, another user's pingpong works
if [ "$(id -u)" = 0 ]; then
	hold 2 && hold 3
	ok $? "two more processes of the same user hold theirs: $(cat "$tmp"/hold[23].out | grep -h '^# holding' | tr '\n' ' ')"
	pingpong pp4
	rc=$?
	[ $rc != 0 ] && grep -q "Couldn't create QP" "$tmp/pp4.srv"
	ok $? "a fourth process of that user: ibv_rc_pingpong's QP refused, the user's share taken ($(grep -h "Couldn't" "$tmp/pp4.srv" | head -1))"
	# user nobody, able to search the directories above the build tree
	# whatever their modes (a clone in a mktemp -d), nothing more; no
	# sysfs view (its user namespace would drop that capability)
	pingpong pp5 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--inh-caps=+dac_read_search --ambient-caps=+dac_read_search -- \
		env HOME="$tmp" MADPMD_SYSFS=0
	ok $? "another user (nobody): stock ibv_rc_pingpong on hca1 works (server exit $rc1, client exit $rc2)"
	[ $rc1 = 0 ] || sed 's/^/# srv: /' "$tmp/pp5.srv" | tail -4
else
	skip "a user's three shares and another user's pingpong" "not root: one user only"
fi
for k in 1 2 3; do
	[ -n "${holder[$k]:-}" ] || continue
	eval "exec $((7 + k))>&-"
	wait ${holder[$k]}
	rc=$?
	relay "$tmp/hold$k.out" "holder $k: "
	[ $rc = 0 ]
	ok $? "holder $k exits 0 (exit $rc)"
done

daemon_stop_check $daemon "$tmp/madpmd.log"
ok $? "the daemon stops cleanly"
# the RNR waits above, counted on both sides of hca1 (the pairs are on
# it): as many NAKs heard as sent, the 4 WRs out of retries among them
rnr=$(sed -n 's/^madpmd: hca1:1 RNR NAKs: \([0-9]*\) sent, \([0-9]*\) heard, \([0-9]*\) WRs out of RNR retries$/\1 \2 \3/p' \
      "$tmp/madpmd.log")
set -- $rnr
[ $# = 3 ] && [ "$1" -gt 0 ] && [ "$1" = "$2" ] && [ "$3" -ge 4 ]
ok $? "RNR NAKs counted (xstats qp_rnr_naks_sent/_rcvd/qp_rnr_retry_exc): ${rnr:-none} (sent, heard, WRs out of retries)"

# RoCE: the AH and QP-type rules there (no SM: fabric waits until the
# ports are Active with their links)
export MADPMD_RUN_DIR=$tmp/run-roce
fabric madpmd-vapi-roce-$$ "$MADPMD_RUN_DIR" --link roce
timeout 60 "$run" --node hca1 "$prog" madpmd0 roce > "$tmp/roce.out" 2>&1
rc=$?
relay "$tmp/roce.out"
[ $rc = 0 ]
ok $? "RoCE: test_verbs_api roce exits 0 (exit $rc)"
daemon_stop_check $daemon "$tmp/madpmd-vapi-roce-$$.log"
ok $? "the RoCE daemon stops cleanly"
tap_done
