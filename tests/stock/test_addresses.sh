#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The IPv4 addresses of HCA ports, which rdma_cm resolves to ports:
# madpmd-run --print-addr asks the daemon (HELLO) for a node's port 1.
# The default fabric's documented defaults on IB; a topology file's
# ip= on RoCE, where stock ibv_devinfo shows it as the IPv4-mapped GID 1;
# clear failures for an unknown node, no daemon, and a malformed ip=.
# Usage: test_addresses.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-addr.XXXXXX)
eal_prefixes=()

# start a daemon on run dir $tmp/$1 with the launcher options after it
start() {
	local name=$1 pfx=madpmd-addr-$$-$1
	shift
	eal_prefixes+=("$pfx")
	"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix="$pfx" \
		-- --run-dir "$tmp/$name" "$@" > "$tmp/madpmd-$name.log" 2>&1 &
	daemon=$!
	pids+=($daemon)
	# the ports table comes once every node is made (hca2's socket
	# comes before hca3 and hca4 are, and the address warning after)
	for i in $(seq 100); do [ -s "$tmp/$name/ports" ] && break; sleep 0.1; done
	[ -S "$tmp/$name/hca2/umad" ] && [ -s "$tmp/$name/ports" ]
}

dotted='^([0-9]{1,3}\.){3}[0-9]{1,3}$'

# no daemon: a sentence, status 1
MADPMD_RUN_DIR=$tmp/none "$run" --print-addr > "$tmp/none.out" 2> "$tmp/none.err"
rc=$?
[ $rc = 1 ] && [ ! -s "$tmp/none.out" ] && grep -q "no fabric running" "$tmp/none.err"
ok $? "no daemon: status $rc, $(cat "$tmp/none.err")"

start ib
ok $? "madpmd runs the default fabric on IB"
export MADPMD_RUN_DIR=$tmp/ib
a1=$("$run" --print-addr 2> "$tmp/a1.err")
rc1=$?
a2=$("$run" --node hca2 --print-addr 2> "$tmp/a2.err")
rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] && [[ $a1 =~ $dotted ]] && [[ $a2 =~ $dotted ]] &&
	[ "$a1" != "$a2" ]
ok $? "hca1 (the default node) and hca2 print one address each, different: $a1, $a2"
[ "$a1" = 10.77.215.214 ] && [ "$a2" = 10.77.214.65 ]
ok $? "they are the defaults docs/launcher.md gives for the default fabric"
[ "$(MADPMD_NODE=hca2 "$run" --print-addr)" = "$a2" ]
ok $? "MADPMD_NODE picks the node as --node does"
"$run" --node hca9 --print-addr > "$tmp/unk.out" 2> "$tmp/unk.err"
rc=$?
[ $rc -ne 0 ] && [ ! -s "$tmp/unk.out" ] && grep -q 'no node "hca9"' "$tmp/unk.err"
ok $? "an unknown node: status $rc, $(cat "$tmp/unk.err")"
"$run" --print-addr ibstat > /dev/null 2> "$tmp/cmd.err"
rc=$?
[ $rc = 2 ]
ok $? "--print-addr with a command is a usage error (status $rc)"
daemon_stop_check "$daemon" "$tmp/madpmd-ib.log"
ok $? "madpmd stops cleanly"

# a topology giving hca2 its address; RoCE: GID 1 is ::ffff:<address>
# (hca3 takes hca1's default address: a warning names both)
printf 'Hca\t1 "hca1"\n[1]\t"hca2"[1]\n\nHca\t1 "hca2"\n[1]\t"hca1"[1]\tip=192.168.77.2\t# lid 2\n\nHca\t1 "hca3"\n[1]\t"hca4"[1] ip=%s\n\nHca\t1 "hca4"\n[1]\t"hca3"[1]\n' \
	"$a1" > "$tmp/net.ip"
start roce --topology "$tmp/net.ip" --link roce
ok $? "madpmd runs a topology with ip= on RoCE"
export MADPMD_RUN_DIR=$tmp/roce
b2=$("$run" --node hca2 --print-addr)
b1=$("$run" --node hca1 --print-addr)
[ "$b2" = 192.168.77.2 ] && [ "$b1" = "$a1" ]
ok $? "hca2 prints the topology's address ($b2), hca1 keeps its default ($b1)"
grep -q "warning: hca1:1 and hca3:1 both have the IPv4 address $a1" "$tmp/madpmd-roce.log"
ok $? "hca3 given hca1's default address: $(grep -m1 -o 'warning: [^;]*' "$tmp/madpmd-roce.log")"
for i in $(seq 50); do
	"$run" --node hca2 ibv_devinfo -v > "$tmp/devinfo.out" 2>&1
	grep -q "::ffff:192.168.77.2" "$tmp/devinfo.out" && break
	sleep 0.1
done
grep -q "GID\[ *1\]:.*::ffff:192.168.77.2" "$tmp/devinfo.out"
ok $? "stock ibv_devinfo -v: hca2's GID 1 is ::ffff:192.168.77.2"
daemon_stop_check "$daemon" "$tmp/madpmd-roce.log"
ok $? "madpmd stops cleanly"

# a malformed address: the topology's line, status non-zero
printf 'Hca\t1 "hca1"\n[1]\t"hca2"[1]\tip=10.1.300.1\n\nHca\t1 "hca2"\n[1]\t"hca1"[1]\n' \
	> "$tmp/net.bad"
eal_prefixes+=(madpmd-addr-$$-bad)
timeout 30 "$madpmd" --no-huge --no-pci -m 256 -l 0,1 \
	--file-prefix=madpmd-addr-$$-bad -- --run-dir "$tmp/bad" \
	--topology "$tmp/net.bad" > "$tmp/bad.out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] &&
	grep -q "net.bad:2: bad ip= value \"10.1.300.1\"" "$tmp/bad.out"
ok $? "ip=10.1.300.1 is refused (status $rc): $(grep -m1 'bad ip=' "$tmp/bad.out")"

tap_done
