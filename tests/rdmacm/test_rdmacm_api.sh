#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_rdmacm_api (built on rdma-core's headers and librdmacm) over the
# drop-in librdmacm.so.1: with no daemon (an empty run directory, and one
# whose nodes file names a node nobody serves), then on hca1 of a
# running fabric through madpmd-run.
# Usage: test_rdmacm_api.sh <madpmd> <madpmd-run> <test_rdmacm_api> <our librdmacm.so>
set -u
madpmd=$1
run=$2
prog=$3
lib=$4
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-rdmacm-api.XXXXXX)
eal_prefixes=(madpmd-rcapi-$$)
libdirs=$(dirname "$lib"):$(dirname "$lib")/../verbs

# relay NAME OUTFILE RC: the program's own TAP lines, renumbered into
# this plan
relay() {
	local name=$1 out=$2 rc=$3 line
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok 0 "$name: ${line#ok [0-9]* - }" ;;
		"not ok "*) ok 1 "$name: ${line#not ok [0-9]* - }" ;;
		"#"*) echo "$line" ;;
		esac
	done < "$out"
	[ "$rc" = 0 ]
	ok $? "$name: test_rdmacm_api exits 0 (exit $rc)"
	[ "$rc" = 0 ] || tail -5 "$out" | sed 's/^/# /'
}

# ---- no daemon: nothing in the run directory ----
mkdir -p "$tmp/empty"
MADPMD_RUN_DIR=$tmp/empty LD_LIBRARY_PATH=$libdirs timeout 30 \
	"$prog" "$lib" all > "$tmp/empty.out" 2> "$tmp/empty.err"
relay "no run directory" "$tmp/empty.out" $?
grep -q "no fabric running" "$tmp/empty.err"
ok $? "no daemon: the library says so on stderr: $(head -1 "$tmp/empty.err")"

# ---- a node listed, its socket gone (a daemon that died) ----
mkdir -p "$tmp/stale/hca1"
echo "hca1 0x0002c90300000001 1" > "$tmp/stale/nodes"
MADPMD_RUN_DIR=$tmp/stale LD_LIBRARY_PATH=$libdirs timeout 30 \
	"$prog" "$lib" nofabric > "$tmp/stale.out" 2> "$tmp/stale.err"
relay "a dead daemon" "$tmp/stale.out" $?
grep -q "nothing listens at $tmp/stale/hca1/umad" "$tmp/stale.err"
ok $? "a dead daemon: the library names the socket: $(head -1 "$tmp/stale.err")"

# ---- a fabric ----
export MADPMD_RUN_DIR=$tmp/run
"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-rcapi-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
timeout 60 "$run" --node hca2 "$prog" "$lib" fabric madpmd0 > "$tmp/fabric.out" 2>&1
relay "fabric" "$tmp/fabric.out" $?

daemon_stop_check $daemon "$tmp/madpmd.log"
ok $? "the daemon stops cleanly"
tap_done
