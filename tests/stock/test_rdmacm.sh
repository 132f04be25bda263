#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Stock rdmacm-utils over the drop-in librdmacm.so.1 (and libibverbs.so.1),
# unmodified, between two nodes of one fabric, each side a process of its
# own under madpmd-run: rping (connect, 20 validated pings, disconnect),
# ucmatose (RC, 10 and 100 connections), udaddy (UD ids through SIDR),
# rdma_server/rdma_client (rdma_create_ep, rdma_get_request), cmtime
# (connection set-up steps for 100 connections); a connection to a port
# nobody listens on is REJECTED (reason 8, invalid service ID); mckey (IB:
# both join a group through OpenSM's SA, which lists it while they are
# in it and no longer after they left; the sender's 10 datagrams reach the
# receiver; also as a send-only member; a member killed is taken out of
# the group by the daemon; with the SM gone a join fails
# MULTICAST_ERROR -EINVAL: the SM's port answers the Set "unsupported
# class", status 0x000C). On IB after
# a resident OpenSM gave the ports their LIDs (routes are PathRecords from its SA),
# and rping and ucmatose again on RoCE. The server binds to hca1's
# address as `madpmd-run --print-addr` prints it. Meanwhile, on a third
# fabric whose wire drops every REQ (--lossy mad=0x07:0x0010), a client's
# REQ is sent again after each time-out, 15 times as the kernel's cma
# asks, then it is UNREACHABLE (-ETIMEDOUT) after a minute and a half.
# Daemons stop cleanly.
# Usage: test_rdmacm.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/pair.sh"

tmp=$(mktemp -d /tmp/madpmd-rdmacm.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-cm-$$ madpmd-cm-roce-$$ madpmd-cm-req-$$)
port=$((20000 + $$ % 20000))

# cm_pair NAME "SERVER CMD" "CLIENT CMD": the server on hca1 in the
# background, the client on hca2 once the server listens (or a second
# went by); outputs in $tmp/NAME.srv and .cli, exit statuses $rc1, $rc2
cm_pair() {
	local name=$1 srv_cmd=$2 cli_cmd=$3 srv
	timeout 60 "$run" --node hca1 $srv_cmd > "$tmp/$name.srv" 2>&1 &
	srv=$!
	pids+=($srv)
	sleep 0.5
	timeout 60 "$run" --node hca2 $cli_cmd > "$tmp/$name.cli" 2>&1
	rc2=$?
	wait $srv
	rc1=$?
}

cm_tools() {
	local link=$1 addr

	addr=$("$run" --node hca1 --print-addr)
	ok $? "$link: hca1's address is $addr"

	port=$((port + 1))
	cm_pair ${link}_rping "rping -s -a $addr -p $port -C 20 -v" \
		"rping -c -a $addr -p $port -C 20 -v -V"
	[ $rc1 = 0 ] && [ $rc2 = 0 ] &&
		[ "$(grep -c 'ping data: rdma-ping-' "$tmp/${link}_rping.cli")" = 20 ]
	ok $? "$link: rping 20 validated pings (server exit $rc1, client exit $rc2)"
	[ $rc1 = 0 ] && [ $rc2 = 0 ] || pair_show ${link}_rping

	port=$((port + 1))
	cm_pair ${link}_ucma "ucmatose -b $addr -p $port -c 10 -C 50" \
		"ucmatose -s $addr -p $port -c 10 -C 50"
	[ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q "test complete" "$tmp/${link}_ucma.cli"
	ok $? "$link: ucmatose 10 connections, 50 messages each (exit $rc1, $rc2)"
	[ $rc1 = 0 ] && [ $rc2 = 0 ] || pair_show ${link}_ucma

	# a connection to a port nobody listens on
	port=$((port + 1))
	timeout 30 "$run" --node hca2 ucmatose -s "$addr" -p $port -c 1 -C 1 \
		> "$tmp/${link}_rej.cli" 2>&1
	rc2=$?
	[ $rc2 != 0 ] && grep -q "RDMA_CM_EVENT_REJECTED, error: 8" "$tmp/${link}_rej.cli"
	ok $? "$link: a connection nobody listens for is REJECTED, reason 8 (exit $rc2)"
	[ $rc2 != 0 ] || sed 's/^/# /' "$tmp/${link}_rej.cli" | tail -5
}

# start_sm RUNDIR LOG: a resident OpenSM on hca1 (routes are PathRecords
# from its SA; -d2: its log flushed at each line, to be waited for); its
# PID in $sm
start_sm() {
	MADPMD_RUN_DIR=$1 "$run" --node hca1 opensm -d2 -f "$2" > /dev/null 2>&1 &
	sm=$!
	pids+=($sm)
	for i in $(seq 300); do grep -q "SUBNET UP" "$2" 2>/dev/null && break; sleep 0.1; done
	grep -q "SUBNET UP" "$2"
}

# ---- a lost REQ, in the background: it takes a minute ----
fabric madpmd-cm-req-$$ "$tmp/run-req" --lossy drop=100%,mad=0x07:0x0010
req_daemon=$daemon
start_sm "$tmp/run-req" "$tmp/opensm-req.log"
ok $? "lost REQ: a resident opensm reaches SUBNET UP with every CM REQ dropped"
req_sm=$sm
req_addr=$(MADPMD_RUN_DIR=$tmp/run-req "$run" --node hca1 --print-addr)
MADPMD_RUN_DIR=$tmp/run-req timeout 200 "$run" --node hca1 ucmatose -b "$req_addr" \
	> "$tmp/req.srv" 2>&1 &
req_srv=$!
pids+=($req_srv)
sleep 0.5
req_t0=$(date +%s)
MADPMD_RUN_DIR=$tmp/run-req timeout 200 "$run" --node hca2 ucmatose -s "$req_addr" -c 1 -C 1 \
	> "$tmp/req.cli" 2>&1 &
req_cli=$!
pids+=($req_cli)

# ---- InfiniBand ----
export MADPMD_RUN_DIR=$tmp/run
fabric madpmd-cm-$$ "$MADPMD_RUN_DIR"
start_sm "$MADPMD_RUN_DIR" "$tmp/opensm.log"
ok $? "IB: a resident opensm reaches SUBNET UP"
cm_tools ib
addr=$("$run" --node hca1 --print-addr)

port=$((port + 1))
cm_pair ib_ucma100 "ucmatose -b $addr -p $port -c 100 -C 10" \
	"ucmatose -s $addr -p $port -c 100 -C 10"
[ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q "test complete" "$tmp/ib_ucma100.cli"
ok $? "IB: ucmatose 100 connections (exit $rc1, $rc2)"
[ $rc1 = 0 ] && [ $rc2 = 0 ] || pair_show ib_ucma100

# (udaddy's -p is the port space; it uses port 7174)
cm_pair ib_udaddy "udaddy -b $addr -c 4 -C 20" "udaddy -s $addr -c 4 -C 20"
[ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q "test complete" "$tmp/ib_udaddy.cli"
ok $? "IB: udaddy 4 UD ids through SIDR, 20 datagrams each (exit $rc1, $rc2)"
[ $rc1 = 0 ] && [ $rc2 = 0 ] || pair_show ib_udaddy

port=$((port + 1))
cm_pair ib_rdma_srv "rdma_server -s $addr -p $port" \
	"rdma_client -s $addr -p $port"
[ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q "rdma_client: end 0" "$tmp/ib_rdma_srv.cli"
ok $? "IB: rdma_server / rdma_client (exit $rc1, $rc2)"
[ $rc1 = 0 ] && [ $rc2 = 0 ] || pair_show ib_rdma_srv

# cmtime's server serves until it is stopped: the client's steps count
port=$((port + 1))
timeout 120 "$run" --node hca1 cmtime -b "$addr" -p $port > "$tmp/ib_cmtime.srv" 2>&1 &
srv=$!
pids+=($srv)
sleep 0.5
timeout 60 "$run" --node hca2 cmtime -s "$addr" -p $port -c 100 > "$tmp/ib_cmtime.cli" 2>&1
rc2=$?
kill -0 $srv 2>/dev/null
alive=$?
stop $srv
[ $rc2 = 0 ] && [ $alive = 0 ] && grep -q "^connect *:" "$tmp/ib_cmtime.cli"
ok $? "IB: cmtime 100 connections (client exit $rc2, server still serving: $alive)"
sed 's/^/# cmtime: /' "$tmp/ib_cmtime.cli" | grep -E "step|connect|disconnect|resolve"

# mckey: the receiver on hca1 joins first; the group is on the SA (its
# MGID as the kernel's cma_set_mgid() maps 239.1.2.x for RDMA_PS_UDP);
# then the sender on hca2 joins and sends 10 datagrams to it
sa_groups() {
	"$run" --node hca2 saquery -g 2>/dev/null | sed -n 's/.*MGID\.*//p'
}
# mckey_pair NAME GROUP SENDER-OPTIONS
mckey_pair() {
	local name=$1 grp=$2 mgid=$3 i srv
	shift 3
	timeout 60 "$run" --node hca1 stdbuf -oL mckey -m "$grp" -b "$addr" \
		> "$tmp/$name.srv" 2>&1 &
	srv=$!
	pids+=($srv)
	for i in $(seq 100); do sa_groups | grep -qx "$mgid" && break; sleep 0.1; done
	sa_groups | grep -qx "$mgid"
	ok $? "IB: $name: the receiver's join is on the SA: group $mgid"
	# the SA has it before the receiver's QP is attached (its library
	# does that as it hands mckey the JOIN event): datagrams sent before
	# are lost, as on a real fabric
	for i in $(seq 100); do grep -q "^mckey: joined" "$tmp/$name.srv" && break; sleep 0.1; done
	timeout 60 "$run" --node hca2 stdbuf -oL mckey -m "$grp" -s -b "$addr2" -C 10 "$@" \
		> "$tmp/$name.cli" 2>&1
	rc2=$?
	# (the sender posts its 10 unsignaled, leaves and destroys its QP
	# at once: what it posted goes out first, as from a HCA)
	wait $srv
	rc1=$?
	[ $rc1 = 0 ] && [ $rc2 = 0 ] &&
		grep -q "^mckey: joined dgid: $mgid mlid 0xc[0-9a-f]* sl 0$" "$tmp/$name.srv" &&
		grep -q "^mckey: joined dgid: $mgid mlid 0xc" "$tmp/$name.cli" &&
		grep -q "data transfers complete" "$tmp/$name.srv" &&
		grep -q "return status 0" "$tmp/$name.cli"
	ok $? "IB: $name: 10 datagrams from hca2 received on hca1 (exit $rc1, $rc2)"
	[ $rc1 = 0 ] && [ $rc2 = 0 ] || pair_show $name
	sed -n 's/^mckey: joined/# receiver joined/p' "$tmp/$name.srv"
	# both left: the last member's Delete removes the group
	for i in $(seq 50); do sa_groups | grep -qx "$mgid" || break; sleep 0.1; done
	! sa_groups | grep -qx "$mgid"
	ok $? "IB: $name: both left, the group is gone from the SA"
}
addr2=$("$run" --node hca2 --print-addr)
mckey_pair ib_mckey 239.1.2.3 ff12:4001:ffff::f01:203
mckey_pair ib_mckey_sendonly 239.1.2.4 ff12:4001:ffff::f01:204 -o
# a member killed: its session's end leaves the group for it
timeout -s KILL 3 "$run" --node hca1 mckey -m 239.1.2.6 -b "$addr" \
	> "$tmp/ib_mckey_kill.srv" 2>&1 &
srv=$!
pids+=($srv)
for i in $(seq 100); do sa_groups | grep -qx ff12:4001:ffff::f01:206 && break; sleep 0.1; done
sa_groups | grep -qx ff12:4001:ffff::f01:206
joined=$?
wait $srv
for i in $(seq 50); do sa_groups | grep -qx ff12:4001:ffff::f01:206 || break; sleep 0.1; done
[ $joined = 0 ] && ! sa_groups | grep -qx ff12:4001:ffff::f01:206
ok $? "IB: mckey killed in its group: the daemon leaves it, the SA drops the group (joined: $joined)"

stop $sm
# the SM is gone: its port (hca1) answers the Set from hca2 as a MAD
# nobody takes (status 0x000C, IBA 13.4.7); sa_query.c makes any status
# -EINVAL (mckey reports it, then its leave succeeds: it exits 0)
timeout 30 "$run" --node hca2 mckey -m 239.1.2.5 -b "$addr2" -C 1 \
	> "$tmp/ib_mckey_nosm.srv" 2>&1
rc1=$?
grep -q "RDMA_CM_EVENT_MULTICAST_ERROR, error: -22" "$tmp/ib_mckey_nosm.srv" &&
	! grep -q "joined dgid" "$tmp/ib_mckey_nosm.srv"
rc2=$?
ok $rc2 "IB: mckey with the SM gone: MULTICAST_ERROR -EINVAL (exit $rc1)"
[ $rc2 = 0 ] || sed 's/^/# /' "$tmp/ib_mckey_nosm.srv" | tail -5

daemon_stop_check $daemon "$tmp/madpmd-cm-$$.log"
ok $? "IB: the daemon stops cleanly"

# ---- RoCE ----
export MADPMD_RUN_DIR=$tmp/run-roce
fabric madpmd-cm-roce-$$ "$MADPMD_RUN_DIR" --link roce
cm_tools roce
# rdma_cm over IPv6 on RoCE: hca1's GID 0 (its link-local address, from
# ibv_devinfo) as an AF_INET6 address, RoCEv2 over IPv6 underneath
addr6=$("$run" --node hca1 ibv_devinfo -v |
	sed -n 's/.*GID\[ *0\]:[[:space:]]*\([0-9a-f:]*\),.*/\1/p' | head -1)
port=$((port + 1))
cm_pair roce_rping6 "rping -s -a $addr6 -p $port -C 10 -v" \
	"rping -c -a $addr6 -p $port -C 10 -v -V"
[ -n "$addr6" ] && [ $rc1 = 0 ] && [ $rc2 = 0 ] &&
	[ "$(grep -c 'ping data: rdma-ping-' "$tmp/roce_rping6.cli")" = 10 ]
ok $? "RoCE: rping over IPv6 to hca1's GID 0 ($addr6): 10 validated pings (exit $rc1, $rc2)"
[ $rc1 = 0 ] && [ $rc2 = 0 ] || pair_show roce_rping6
# mckey on RoCE: no SA, the join is the port's own (RoCEv2 to the IPv4
# group, its MGID the group mapped: cma_iboe_set_mgid()), both at once
addr=$("$run" --node hca1 --print-addr)
addr2=$("$run" --node hca2 --print-addr)
for mode in "" -o; do
	name=roce_mckey${mode:+_sendonly}
	timeout 60 "$run" --node hca1 stdbuf -oL mckey -m 239.1.3.1 -b "$addr" \
		> "$tmp/$name.srv" 2>&1 &
	srv=$!
	pids+=($srv)
	for i in $(seq 100); do grep -q "^mckey: joined" "$tmp/$name.srv" && break; sleep 0.1; done
	timeout 60 "$run" --node hca2 stdbuf -oL mckey -m 239.1.3.1 -s -b "$addr2" \
		-C 10 $mode > "$tmp/$name.cli" 2>&1
	rc2=$?
	wait $srv
	rc1=$?
	[ $rc1 = 0 ] && [ $rc2 = 0 ] &&
		grep -q "^mckey: joined dgid: ::ffff:239.1.3.1 mlid 0x0 sl 0$" "$tmp/$name.srv" &&
		grep -q "data transfers complete" "$tmp/$name.srv" &&
		grep -q "return status 0" "$tmp/$name.cli"
	ok $? "RoCE: $name: 10 datagrams from hca2 to 239.1.3.1 received on hca1 (exit $rc1, $rc2)"
	[ $rc1 = 0 ] && [ $rc2 = 0 ] || pair_show $name
	sed -n 's/^mckey: joined/# receiver joined/p' "$tmp/$name.srv"
done
# RoCEv2 carries IPv4 groups only (the kernel refuses IPv6 ones)
timeout 30 "$run" --node hca2 mckey -m ff0e::1:2 -b "$addr2" -C 1 \
	> "$tmp/roce_mckey6.srv" 2>&1
rc1=$?
[ $rc1 != 0 ] && grep -qi "not supported\|failed to join\|-95" "$tmp/roce_mckey6.srv"
ok $? "RoCE: mckey to an IPv6 group is refused (exit $rc1: $(grep -m1 -i join "$tmp/roce_mckey6.srv"))"
daemon_stop_check $daemon "$tmp/madpmd-cm-roce-$$.log"
ok $? "RoCE: the daemon stops cleanly"

# ---- the lost REQ's end ----
wait $req_cli
rc2=$?
req_s=$(($(date +%s) - req_t0))
# each try waits twice the path's packet life time (OpenSM's default 18:
# 1 s) and the CM response time-out (20: 4.1 s), as the kernel's cm.c
grep -q "RDMA_CM_EVENT_UNREACHABLE, error: -110" "$tmp/req.cli" &&
	[ $req_s -ge 60 ] && [ $req_s -le 130 ]
ok $? "lost REQ: UNREACHABLE, -ETIMEDOUT, after ${req_s} s (16 REQs 6.1 s apart) (exit $rc2)"
grep -q "RDMA_CM_EVENT_UNREACHABLE" "$tmp/req.cli" || sed 's/^/# cli: /' "$tmp/req.cli" | tail -5
stop $req_srv
stop $req_sm
daemon_stop_check $req_daemon "$tmp/madpmd-cm-req-$$.log"
ok $? "lost REQ: the daemon stops cleanly"
lost=$(awk '/wire from hca2/ {s += $5} END {print s + 0}' "$tmp/madpmd-cm-req-$$.log")
[ "$lost" = 16 ]
ok $? "lost REQ: the wire dropped the REQ and its 15 retries ($lost frames)"

tap_done
