#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rdma-core's own pyverbs test suite (Debian's python3-pyverbs, the tests
# shipped gzipped in /usr/share/doc/rdma-core/tests), unmodified, over the
# drop-in libibverbs.so.1: device, pd, mr, cq, cq_events, cqex, qp, qpex
# on hca1 of an IB fabric OpenSM brought up (their traffic goes from the
# port to itself). Each module must have no failure and no error, and
# every skip must be one the device honestly reports as unsupported (a
# capability it does not have, from the list below): any other reason is
# a failure. The counts are printed for docs/verbs.md.
# Usage: test_pyverbs.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-pyverbs.XXXXXX)
eal_prefixes=(madpmd-pyv-$$)
src=/usr/share/doc/rdma-core/tests
py=/usr/bin/python3	# the interpreter python3-pyverbs is built for

# what this device does not have, and says so with EOPNOTSUPP
honest='Device memory is not supported|Allocating dmabuf is not supported'
honest+='|Reg MR with MW access is not supported|Create memory window of type [0-9] is not supported'
honest+='|Create custom mr with additional access flags [0-9]+ is not supported'
honest+='|Rereg MR is not supported|Create XRCD is not supported'
honest+='|To Create RAW QP must be done by root on Ethernet link layer'
honest+='|All gid indices populated, cannot check bad flow'
# one test's skip with a generic reason: RDMA atomic write (IBA 1.5), an
# operation this device does not have
honest_re="^([a-z_0-9]+: ($honest)|test_qp_ex_rc_atomic_write: Extended QP is not supported on this device)"

# "test: reason" for each skip: the test's name line comes first, the
# "... skipped 'reason'" line after it (or after its docstring)
skips() {
	local line name=
	while IFS= read -r line; do
		case "$line" in
		test_*" ("*) name=${line%% *} ;;
		esac
		case "$line" in
		*"... skipped '"*)
			line=${line#*... skipped \'}
			echo "$name: ${line%\'}" ;;
		esac
	done < "$1"
}

if [ ! -d "$src" ] || ! "$py" -c 'import pyverbs' 2>/dev/null; then
	ok 1 "python3-pyverbs and rdma-core's tests are installed ($src)"
	tap_done
fi
mkdir -p "$tmp/py"
cp -r "$src" "$tmp/py/"
gunzip -f "$tmp/py/tests/"*.gz

export MADPMD_RUN_DIR=$tmp/run
"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-pyv-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
timeout 60 "$run" opensm -o -f "$tmp/opensm.log" > /dev/null 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log"
ok $? "IB: opensm -o reaches SUBNET UP"

total_pass=0 total_skip=0 total_fail=0
for mod in test_device test_pd test_mr test_cq test_cq_events test_cqex \
	   test_qp test_qpex; do
	out=$tmp/$mod.out
	(cd "$tmp/py" && timeout 300 "$run" --node hca1 "$py" \
		tests/run_tests.py --dev hca1 -v "tests.$mod") > "$out" 2>&1
	rc=$?
	ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$out")
	skip=$(grep -c '\.\.\. skipped ' "$out")
	bad=$(grep -cE '\.\.\. (FAIL|ERROR)$' "$out")
	ran=${ran:-0}
	pass=$((ran - skip - bad))
	odd=$(skips "$out" | grep -vE "$honest_re" | sort -u)
	total_pass=$((total_pass + pass))
	total_skip=$((total_skip + skip))
	total_fail=$((total_fail + bad))
	[ $rc = 0 ] && [ "$ran" -gt 0 ] && [ $bad = 0 ] && [ -z "$odd" ]
	ok $? "pyverbs $mod: $pass passed, $skip skipped, $bad failed (exit $rc)"
	grep -E '\.\.\. skipped ' "$out" | sed "s/.*skipped '//; s/'\$//" |
		sort | uniq -c | sed 's/^/#   skip: /'
	[ -n "$odd" ] && echo "$odd" | sed 's/^/#   NOT a capability we lack: /'
	if [ $rc != 0 ] || [ $bad != 0 ]; then
		grep -E '^(FAIL|ERROR):|Error' "$out" | head -10 | sed 's/^/#   /'
	fi
done
echo "# pyverbs total: $total_pass passed, $total_skip skipped, $total_fail failed"

daemon_stop_check $daemon "$tmp/madpmd.log"
ok $? "the daemon stops cleanly"
tap_done
