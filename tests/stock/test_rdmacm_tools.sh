#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Every stock rdmacm-utils binary loads over the drop-in librdmacm.so.1
# under madpmd-run, with a fabric running: each is linked BIND_NOW, so
# every librdmacm and libibverbs symbol it imports must resolve before
# main(). The oracle is the same binary with rdma-core's own libraries:
# a usage request must end with the same exit status and the same usage
# text, and the dynamic loader must say nothing. ldd under madpmd-run
# shows which libraries a tool gets.
# Usage: test_rdmacm_tools.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-rdmacm-tools.XXXXXX)
eal_prefixes=(madpmd-rctools-$$)
libdir=$(cd "$(dirname "$run")/.." && pwd)

export MADPMD_RUN_DIR=$tmp/run
"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-rctools-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done

for tool in rping ucmatose udaddy cmtime mckey rdma_server rdma_client \
	    riostream rstream; do
	if ! command -v "$tool" > /dev/null; then
		skip "$tool" "not installed (apt-get install rdmacm-utils)"
		continue
	fi
	# which libraries the tool gets under madpmd-run
	"$run" --node hca2 sh -c "ldd \"\$(command -v $tool)\"" > "$tmp/$tool.ldd" 2>&1
	cm=$(awk '/librdmacm.so.1 =>/ {print $3}' "$tmp/$tool.ldd")
	vb=$(awk '/libibverbs.so.1 =>/ {print $3}' "$tmp/$tool.ldd")
	case "$(realpath "$cm" 2>/dev/null)/$(realpath "$vb" 2>/dev/null)" in
	"$libdir"/rdmacm/*/"$libdir"/verbs/*) true ;;
	*) false ;;
	esac
	ok $? "$tool: madpmd-run gives it madpmd's librdmacm and libibverbs ($cm, $vb)"

	# the oracle: rdma-core's libraries, which load without a kernel
	timeout 10 "$tool" -h > "$tmp/$tool.stock" 2>&1
	want=$?
	LD_BIND_NOW=1 timeout 10 "$run" --node hca2 "$tool" -h > "$tmp/$tool.out" 2>&1
	got=$?
	! grep -qE "symbol lookup error|error while loading|version .* not found|undefined symbol" "$tmp/$tool.out"
	ok $? "$tool -h: the loader binds every symbol (LD_BIND_NOW)"
	grep -E "symbol lookup|error while loading|not found|undefined" "$tmp/$tool.out" | head -3 | sed 's/^/# /'
	[ "$got" = "$want" ] && [ "$want" -lt 128 ] && cmp -s "$tmp/$tool.stock" "$tmp/$tool.out"
	ok $? "$tool -h: exit $got and the usage text, as over rdma-core's (exit $want)"
done

daemon_stop_check $daemon "$tmp/madpmd.log"
ok $? "the daemon stops cleanly"
tap_done
