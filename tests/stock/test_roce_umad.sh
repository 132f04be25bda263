#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# umad over RoCE: a program written against libibumad only, on the default
# fabric with RoCE links, addresses the other HCA by GID; the fabric's own
# address table says where it is, and what cannot be addressed fails in
# umad_send().
# Usage: test_roce_umad.sh <madpmd> <madpmd-run> <umad_roce>
set -u
madpmd=$1
run=$2
client=$3
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-roce.XXXXXX)
eal_prefixes=(madpmd-roce-$$)
export MADPMD_RUN_DIR=$tmp/run

"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-roce-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --link roce > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
# the ports file comes once the fabric runs
for i in $(seq 100); do [ -s "$MADPMD_RUN_DIR/ports" ] && break; sleep 0.1; done
[ -S "$MADPMD_RUN_DIR/hca2/umad" ] && [ -s "$MADPMD_RUN_DIR/ports" ]
ok $? "madpmd runs the default fabric on RoCE"
"$run" --node hca1 "$client" hca2 > "$tmp/client.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/client.out"
[ $rc -eq 0 ] && [ "$(grep -c '^ok' "$tmp/client.out")" -eq 6 ]
ok $? "the client's six checks pass"
kill -TERM "$daemon"
wait "$daemon"
rc=$?
pids=()
[ $rc -eq 0 ] && ! grep -Eq "ERROR: (Address|Leak)Sanitizer|runtime error" "$tmp/madpmd.log"
ok $? "madpmd exits 0 on SIGTERM, no sanitizer report (status $rc)"
tap_done
