#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The drop-in librdmacm.so.1 against rdma-core's own (the oracle): the
# same soname, the same version nodes in the same chain, every symbol in
# the node it has there and nothing else exported; every import it makes
# of libibverbs resolves in madpmd's drop-in libibverbs.so.1 (stock tools
# are linked BIND_NOW).
# Usage: test_rdmacm_abi.sh <our librdmacm.so> <stock librdmacm.so.1> <our libibverbs dir>
set -u
ours=$1
stock=$2
verbsdir=$3
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-rdmacm-abi.XXXXXX)

# "NODE SYMBOL" for each versioned symbol a library defines
exports() {
	objdump -T "$1" | awk '$2 != "" && /RDMACM_1\.[0-9]/ && $0 !~ /\*UND\*/ {
		n = split($0, f, " "); print f[n - 1], f[n] }' | sort
}
verdefs() {
	objdump -p "$1" | sed -n '/^Version definitions:/,/^$/p' |
		awk 'NF >= 4 { print $4 } NF == 1 { print "  parent " $1 }'
}

exports "$stock" > "$tmp/stock.syms"
exports "$ours" > "$tmp/ours.syms"
nstock=$(wc -l < "$tmp/stock.syms")
[ "$nstock" -ge 68 ]
ok $? "rdma-core's librdmacm: $nstock entries in RDMACM_1.x (v44: 68 symbols and the 4 version nodes)"

for node in RDMACM_1.0 RDMACM_1.1 RDMACM_1.2 RDMACM_1.3; do
	missing=$(grep "^$node " "$tmp/stock.syms" | comm -23 - "$tmp/ours.syms" |
		awk '{print $2}' | tr '\n' ' ')
	want=$(grep -c "^$node " "$tmp/stock.syms")
	[ -z "$missing" ] && [ "$want" -gt 0 ]
	ok $? "$node: all $want of rdma-core's entries (the node itself included), in the same node${missing:+ (missing: $missing)}"
done

extra=$(comm -13 "$tmp/stock.syms" "$tmp/ours.syms" | tr '\n' ' ')
[ -z "$extra" ]
ok $? "nothing exported that rdma-core's does not${extra:+ (extra: $extra)}"

# everything else local: no unversioned global function or object
loose=$(objdump -T "$ours" | awk '$0 !~ /\*UND\*/ && ($3 == "DF" || $3 == "DO" || $2 == "DF" || $2 == "DO") && $0 !~ /RDMACM_1/ {print $NF}' | tr '\n' ' ')
[ -z "$loose" ]
ok $? "no unversioned export${loose:+ ($loose)}"

verdefs "$stock" > "$tmp/stock.vd"
verdefs "$ours" > "$tmp/ours.vd"
diff "$tmp/stock.vd" "$tmp/ours.vd" > "$tmp/vd.diff"
ok $? "version definitions and their chain as rdma-core's: $(grep -v parent "$tmp/ours.vd" | tr '\n' ' ')"
[ -s "$tmp/vd.diff" ] && sed 's/^/# /' "$tmp/vd.diff"

soname=$(objdump -p "$ours" | awk '$1 == "SONAME" {print $2}')
[ "$soname" = librdmacm.so.1 ]
ok $? "soname $soname"

needed=$(objdump -p "$ours" | awk '$1 == "NEEDED" {print $2}' | sort | tr '\n' ' ')
case " $needed " in
*" libibverbs.so.1 "*) ! echo " $needed " | grep -q " librdmacm" ;;
*) false ;;
esac
ok $? "needs libibverbs.so.1, not rdma-core's librdmacm: $needed"

# every import resolves at once in madpmd's libibverbs (ldd -r binds all)
LD_LIBRARY_PATH=$verbsdir ldd -r "$ours" > "$tmp/ldd.out" 2>&1
rc=$?
verbs=$(awk '/libibverbs.so.1 =>/ {print $3}' "$tmp/ldd.out")
[ $rc = 0 ] && ! grep -q "undefined symbol\|not found" "$tmp/ldd.out" &&
	[ "$(realpath "$verbs")" = "$(realpath "$verbsdir/libibverbs.so.1")" ]
ok $? "ldd -r: every import resolves, in madpmd's libibverbs ($verbs)"
grep "undefined symbol\|not found" "$tmp/ldd.out" | head -5 | sed 's/^/# /'
imports=$(objdump -T "$ours" | awk '/\*UND\*/ && /IBVERBS_/ {print $NF}' | wc -l)
[ "$imports" -gt 10 ]
ok $? "its ibv_* calls are versioned imports of IBVERBS_1.x ($imports)"

tap_done
