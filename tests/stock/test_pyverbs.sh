#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rdma-core's own pyverbs test suite (Debian's python3-pyverbs, the tests
# shipped gzipped in /usr/share/doc/rdma-core/tests), unmodified, over the
# drop-in libibverbs.so.1 and librdmacm.so.1: device, pd, mr, cq,
# cq_events, cqex, qp, qpex, shared_pd and rdmacm on hca1 of an IB fabric
# with a resident OpenSM, then on hca1 of a RoCE fabric (their traffic
# goes from the port to itself). Each
# module must have no failure and no error, and every skip must be one
# the device honestly reports as unsupported (a capability it does not
# have, from the list below): any other reason is a failure. The counts
# are printed for docs/verbs.md.
#
# test_rdmacm finds the device's IPv4 address as on a host with IPoIB:
# /sys/class/infiniband/hca1/device/net/<ifname>/ and `ip -j addr show
# <ifname>`. madpmd's ports have addresses but no netdev, so that module
# runs in a mount and network namespace of its own (unshare, inside
# madpmd-run's): infiniband/hca1/device/net/ib0 added to the
# /sys/class/infiniband madpmd-run made (or, where it made none, a tmpfs
# over /sys/class, every entry bound back, with that directory) and, in
# the private netns, an interface ib0 (dummy, or an
# empty bridge where the kernel has no dummy) that carries hca1's fabric
# address and is never up. It is a name for the address only: rdma_cm
# resolves through the daemon, and the run directory (unix sockets) is
# the same file system inside.
# Usage: test_pyverbs.sh <madpmd> <madpmd-run>
set -u

# inside the namespaces: --in-netns ADDR DEV CMD...
if [ "${1:-}" = --in-netns ]; then
	addr=$2 dev=$3 old=$4
	shift 4
	set -e
	ip link add ib0 type dummy 2>/dev/null || ip link add ib0 type bridge
	ip addr add "$addr/32" dev ib0
	# madpmd-run made /sys/class/infiniband (a tmpfs of its own): add
	# the netdev to it; else make a /sys/class of our own
	if [ -d "/sys/class/infiniband/$dev/ports" ] &&
	   mkdir -p "/sys/class/infiniband/$dev/device/net/ib0" 2>/dev/null; then
		set +e
		exec "$@"
	fi
	mkdir -p "$old"
	mount --bind /sys/class "$old"
	mount -t tmpfs -o mode=0755 madpmd-sysclass /sys/class
	for e in "$old"/*; do
		b=${e##*/}
		[ "$b" = infiniband ] && continue
		mkdir "/sys/class/$b"
		mount --bind "$e" "/sys/class/$b"
	done
	mkdir -p "/sys/class/infiniband/$dev/device/net/ib0"
	set +e
	exec "$@"
fi
self=$(readlink -f "$0")
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/pair.sh"

tmp=$(mktemp -d /tmp/madpmd-pyverbs.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-pyv-$$ madpmd-pyv-roce-$$)
src=/usr/share/doc/rdma-core/tests
py=/usr/bin/python3	# the interpreter python3-pyverbs is built for

# what this device does not have, and says so with EOPNOTSUPP
honest='Device memory is not supported|Allocating dmabuf is not supported'
honest+='|Create custom mr with additional access flags [0-9]+ is not supported'
honest+='|Rereg MR is not supported|Create XRCD is not supported'
honest+='|To Create RAW QP must be done by root on Ethernet link layer'
honest+='|Create Raw Packet QP (with|without)( extended)? attrs is not supported'
honest+='|All gid indices populated, cannot check bad flow'
# objects shared through a copy of cmd_fd (ibv_import_device())
honest+='|Importing a device is not supported'
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

netns_ok=0
unshare --mount --net --propagation private true 2>/dev/null || netns_ok=$?

total_pass=0 total_skip=0 total_fail=0
# modules LINK: each module on hca1 of a fabric of that link
modules() {
	local link=$1 mod out ns rc ran skip bad pass odd addr
	addr=$("$run" --node hca1 --print-addr)
	for mod in test_device test_pd test_mr test_cq test_cq_events \
		   test_cqex test_qp test_qpex test_shared_pd test_rdmacm; do
		out=$tmp/$link-$mod.out
		ns=()
		if [ $mod = test_rdmacm ]; then
			if [ $netns_ok != 0 ]; then
				skip "$link: pyverbs $mod" "unshare --mount --net fails here (not root?)"
				continue
			fi
			ns=(unshare --mount --net --propagation private --kill-child
			    "$self" --in-netns "$addr" madpmd0 "$tmp/sysclass-$link")
		fi
		# inside madpmd-run: its /sys/class/infiniband gets the netdev
		(cd "$tmp/py" && timeout 300 "$run" --node hca1 "${ns[@]}" "$py" \
			tests/run_tests.py --dev madpmd0 -v "tests.$mod") > "$out" 2>&1
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
		ok $? "$link: pyverbs $mod: $pass passed, $skip skipped, $bad failed (exit $rc)"
		grep -E '\.\.\. skipped ' "$out" | sed "s/.*skipped '//; s/'\$//" |
			sort | uniq -c | sed 's/^/#   skip: /'
		[ -n "$odd" ] && echo "$odd" | sed 's/^/#   NOT a capability we lack: /'
		if [ $rc != 0 ] || [ $bad != 0 ]; then
			grep -E '^(FAIL|ERROR):|Error' "$out" | head -10 | sed 's/^/#   /'
		fi
	done
}

export MADPMD_RUN_DIR=$tmp/run
"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-pyv-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
# resident: rdma_cm asks it for PathRecords and multicast joins
resident_sm hca1 "$tmp/opensm.log"
ok $? "IB: a resident opensm reaches SUBNET UP"
modules ib
stop $sm
daemon_stop_check $daemon "$tmp/madpmd.log"
ok $? "IB: the daemon stops cleanly"

# RoCE: no SM; fabric waits until the ports are Active with their link
export MADPMD_RUN_DIR=$tmp/run-roce
fabric madpmd-pyv-roce-$$ "$MADPMD_RUN_DIR" --link roce
modules roce
daemon_stop_check $daemon "$tmp/madpmd-pyv-roce-$$.log"
ok $? "RoCE: the daemon stops cleanly"
echo "# pyverbs total: $total_pass passed, $total_skip skipped, $total_fail failed"
tap_done
