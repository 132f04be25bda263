#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The CM's endurance: cm_endurance (a program on rdma-core's own headers,
# under madpmd-run) connects from hca2 to a listener on hca1 and tears the
# connection down, CYCLES times one after the other (RDMA_PS_TCP, a QP
# per connection, address, route from a resident OpenSM's SA, ESTABLISHED,
# DISCONNECTED, QP and id destroyed; the listener stays). Soft-RoCE users
# report a CM that stops after about a thousand connections: this one
# must not. The client stops, alive and with nothing in flight, after 500
# cycles (the warm-up), after half of them and after the last; there the
# connections that linger (timewait) are waited out, and the daemon must
# hold the listener's id and nothing else (cm_ids, cm_conns in
# /madpmd/ports). Every connection is counted as made on both ports
# (cm_conns_established, and the shutdown summary's "CM:" line).
#
# The daemon's resident memory (VmRSS), from the warm-up to the end and
# from half-way to the end. What grows after the warm-up is buffers of a
# fixed size that are used round and round, their pages resident once
# each was used (measured with smaps): the CM's send queue of each port
# (4096 MADs, 1.25 MiB, 5 MADs a cycle for both) and the first MiB of
# each session ring that carries the traffic (a ring starts again at
# data[0] once past it): the two CM sessions' receive rings and both of
# OpenSM's (its SA answers the route of every cycle), full after 1000 to
# 6000 cycles; 2.8 to 4.4 MiB in all here. So: at most 8 MiB from the warm-up
# (a fixed bound, whatever CYCLES is), and at most 512 kB over the second
# half, when they are full: a leak of 100 bytes a connection shows there.
# A sanitized daemon's heap (ASan's quarantine) tells nothing: skipped.
#
# Usage: test_cm_endurance.sh <madpmd> <madpmd-run> <cm_endurance> [CYCLES]
set -u
madpmd=$1
run=$2
prog=$3
cycles=${4:-10000}
warm=500
half=$((cycles / 2))
warm_slack_kb=8192
half_slack_kb=512
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/pair.sh"

tmp=$(mktemp -d /tmp/madpmd-cm-endurance.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
prefix=madpmd-cmend-$$
eal_prefixes=($prefix)
port=$((20000 + $$ % 20000))

# /madpmd/ports, one line, no blanks
ports_json() {
	echo /madpmd/ports | timeout 20 dpdk-telemetry.py -f "$prefix" 2>/dev/null |
		tr -d ' \n'
}

# cm JSON PORT KEY: a figure of a port (hca1/1) in ports_json's output
cm() {
	echo "$1" | grep -o "\"$2\":{[^}]*}" | grep -o "\"$3\":[0-9]*" |
		grep -o '[0-9]*$'
}

# Wait (up to 15 s) until the lingering connections are gone: hca1 holds
# the listener's id only, hca2 nothing. Leaves the last figures in $j.
settle() {
	local i
	for i in $(seq 60); do
		j=$(ports_json)
		[ "$(cm "$j" hca1/1 cm_ids)" = 1 ] &&
		[ "$(cm "$j" hca1/1 cm_conns)" = 0 ] &&
		[ "$(cm "$j" hca2/1 cm_ids)" = 0 ] &&
		[ "$(cm "$j" hca2/1 cm_conns)" = 0 ] && return 0
		sleep 0.25
	done
	return 1
}

# Wait until the client says "paused N" (or is gone): 0 when it did
paused() {
	until grep -q "^paused $1\$" "$tmp/client.out"; do
		kill -0 "$cli" 2>/dev/null || return 1
		sleep 0.1
	done
}

figures() {
	echo "ids $(cm "$j" hca1/1 cm_ids)/$(cm "$j" hca2/1 cm_ids), connections live $(cm "$j" hca1/1 cm_conns)/$(cm "$j" hca2/1 cm_conns), made $(cm "$j" hca1/1 cm_conns_established)/$(cm "$j" hca2/1 cm_conns_established) (hca1/hca2)"
}

# VmRSS RssAnon RssShmem (kB) of the daemon
rss() {
	awk '/^(VmRSS|RssAnon|RssShmem):/ { printf "%s ", $2 }' "/proc/$daemon/status"
}

# rss_check FROM TO SLACK WHAT: VmRSS grew by at most SLACK kB
rss_check() {
	local a=($1) b=($2)
	if ldd "$madpmd" | grep -q libasan; then
		skip "the daemon's VmRSS $4" "a sanitized daemon (ASan's quarantine)"
		return
	fi
	[ -n "${a[0]:-}" ] && [ -n "${b[0]:-}" ] && [ $((b[0] - a[0])) -le $3 ]
	ok $? "the daemon's VmRSS $4: ${a[0]:-?} -> ${b[0]:-?} kB, grown $((${b[0]:-0} - ${a[0]:-0})) kB (at most $3; anonymous ${a[1]:-?} -> ${b[1]:-?}, shared ${a[2]:-?} -> ${b[2]:-?})"
}

export MADPMD_RUN_DIR=$tmp/run
fabric $prefix "$MADPMD_RUN_DIR"
# -d2: its log flushed at each line, to be waited for
resident_sm hca1 "$tmp/opensm.log"
ok $? "a resident opensm reaches SUBNET UP"
addr=$("$run" --node hca1 --print-addr)

# each side waits for a line on a FIFO where it stops (fd 3 the client's,
# 4 the server's, which keeps its listener until then)
mkfifo "$tmp/go-cli" "$tmp/go-srv"
timeout 300 "$run" --node hca1 "$prog" server "$addr" $port $cycles \
	< "$tmp/go-srv" > "$tmp/server.out" 2>&1 &
srv=$!
pids+=($srv)
exec 4> "$tmp/go-srv"
for i in $(seq 100); do grep -q "listens" "$tmp/server.out" && break; sleep 0.1; done
timeout 300 "$run" --node hca2 "$prog" client "$addr" $port $cycles $warm $half $cycles \
	< "$tmp/go-cli" > "$tmp/client.out" 2>&1 &
cli=$!
pids+=($cli)
exec 3> "$tmp/go-cli"

paused $warm
ok $? "$warm connections made and torn down (warm-up)"
settle
ok $? "after $warm: the listener's id only, no connection left: $(figures)"
rss0=$(rss)
echo >&3

paused $half
ok $? "$half connections made and torn down"
settle
ok $? "after $half: the listener's id only, no connection left: $(figures)"
rss1=$(rss)
echo >&3

paused $cycles
ok $? "$cycles connections made and torn down, one after the other"
settle
ok $? "after $cycles: the listener's id only, no connection left: $(figures)"
[ "$(cm "$j" hca1/1 cm_conns_established)" = $cycles ] &&
	[ "$(cm "$j" hca2/1 cm_conns_established)" = $cycles ]
ok $? "every one established on both ports"
rss2=$(rss)
rss_check "$rss0" "$rss2" $warm_slack_kb "from $warm to $cycles cycles"
rss_check "$rss1" "$rss2" $half_slack_kb "from $half to $cycles cycles"
exec 3>&- 4>&-

wait $cli
rc2=$?
wait $srv
rc1=$?
grep -h -E "^(not )?ok - " "$tmp/server.out" "$tmp/client.out" | sed 's/^/# /'
[ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q "^ok - server" "$tmp/server.out" &&
	grep -q "^ok - client" "$tmp/client.out"
ok $? "cm_endurance server exit $rc1, client exit $rc2"
# the drop-ins of a sanitized build report into the programs' output
! grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$tmp/server.out" "$tmp/client.out"
ok $? "no sanitizer report from the drop-in libraries"
[ $rc1 = 0 ] || sed 's/^/# server: /' "$tmp/server.out" | tail -5
[ $rc2 = 0 ] || sed 's/^/# client: /' "$tmp/client.out" | tail -5

stop $sm
daemon_stop_check $daemon "$tmp/$prefix.log"
ok $? "the daemon stops cleanly"
grep -h "CM:" "$tmp/$prefix.log" | sed 's/^/# /'
grep -q "hca1:1 CM: 0 ids, 0 connections live, $cycles connections made" "$tmp/$prefix.log" &&
	grep -q "hca2:1 CM: 0 ids, 0 connections live, $cycles connections made" "$tmp/$prefix.log"
ok $? "its summary: no id, no connection left, $cycles made on each port"
tap_done
