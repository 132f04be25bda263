#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ibutils (ibdiagnet, ibdiagpath, ibis) on a switch fabric, ibsim's
# net.2sw2path4hca, with a resident OpenSM on Hca1: ibdiagnet runs
# clean and dumps every switch's LFT as stock ibroute reads it; ibis, the
# Tcl MAD layer ibdiagpath runs on, reads Switch1's LFT block by directed
# route exactly as ibroute does (the SMP ibdiagpath -l sends); ibdiagpath
# follows a directed route across both switches. (Its IPoIB check finds
# no member of the broadcast group: no node runs IPoIB yet.)
#
# ibdiagpath -l itself reads the entry before the one it wants: its path
# walk (ibdebug.tcl, "lindex $FDBsBlock $LidMod64") indexes ibis's
# "smLftBlockMad dump", which starts with the word "-lft" (ibdiagnet's
# own LFT dump strips it); so it dead-ends, on any fabric, where LID-1's
# port differs (LID 1: entry 0, 0xff). That is the stock tool's bug; the
# answer it gets is checked here to be the right one.
# Usage: test_ibutils.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/pair.sh"

net=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
tmp=$(mktemp -d /tmp/madpmd-ibutils.XXXXXX)
eal_prefixes=(madpmd-ibutils-$$)
export MADPMD_RUN_DIR=$tmp/run
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR" "$tmp/diag"

"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix=madpmd-ibutils-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --topology "$net" > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/Hca4/umad" ] && break; sleep 0.1; done
resident_sm Hca1 "$tmp/opensm.log"
# and its SA serves the IPoIB broadcast group (what ibdiagpath looks for)
for i in $(seq 100); do
	"$run" --node Hca2 saquery -g 2>/dev/null | grep -q "ff12:401b:ffff::ffff:ffff" && break
	sleep 0.2
done
grep -q "SUBNET UP" "$tmp/opensm.log" &&
	"$run" --node Hca2 saquery -g 2>/dev/null | grep -q "ff12:401b:ffff::ffff:ffff"
ok $? "a resident opensm on Hca1 reaches SUBNET UP, its SA serves the IPoIB broadcast group"

# a stock tool that dies of a signal: every thread's backtrace, to tell
# its fault from ours (ibdiagnet is ibis fed a script)
backtrace() {
	local core
	core=$(ls "$tmp"/core* 2>/dev/null | head -1)
	[ -n "$core" ] && command -v gdb > /dev/null &&
		gdb -batch -ex 'thread apply all bt 12' "$1" "$core" 2>/dev/null |
		grep -E '^(#|Thread)' | head -40 | sed 's/^/# /'
	rm -f "$tmp"/core*
}
ulimit -c unlimited 2>/dev/null

# the oracle: every switch's LFT as stock ibroute reads it ("LID port")
"$run" --node Hca1 ibroute -D 0,1 > "$tmp/ibroute.sw1" 2>&1
"$run" --node Hca1 ibroute -D 0,1,3 > "$tmp/ibroute.sw2" 2>&1
lft() { awk '/^0x[0-9a-f]+ [0-9]+ :/ {printf "%s %d\n", $1, $2}' "$1"; }
[ "$(lft "$tmp/ibroute.sw1" | wc -l)" = 6 ] && [ "$(lft "$tmp/ibroute.sw2" | wc -l)" = 6 ]
ok $? "ibroute reads six LIDs in each switch's LFT"

(cd "$tmp" && timeout 120 "$run" --node Hca1 ibdiagnet -o "$tmp/diag") > "$tmp/ibdiagnet.out" 2>&1
rc=$?
grep '^-[EW]-' "$tmp/ibdiagnet.out" | sed 's/^/# /'
# its report is what is checked; its exit status is said: in the suite
# (never run alone) ibis has died of SIGSEGV after "Done", backtrace below
if [ $rc -gt 128 ]; then
	echo "# ibdiagnet died of signal $((rc - 128)) after its report; the backtrace:"
	backtrace /usr/bin/ibis
fi
grep -q '^-I- Done\. Run time was' "$tmp/ibdiagnet.out" && ! grep -q '^-E-' "$tmp/ibdiagnet.out"
ok $? "ibdiagnet: its report done, no error ($(grep -c '^-W-' "$tmp/ibdiagnet.out") warnings; exit $rc)"
# ibdiagnet.fdbs: "osm_ucast_mgr_dump_ucast_routes: Switch GUID", then
# "LID : port : ..." lines
fdbs() {
	awk -v g="$1" '/^osm_ucast_mgr_dump_ucast_routes/ {on = ($3 == g)}
		       on && /^0x[0-9a-f]+ :/ {printf "%s %d\n", $1, $3}' "$tmp/diag/ibdiagnet.fdbs"
}
[ -n "$(fdbs 0x0000000000200000)" ] &&
	[ "$(fdbs 0x0000000000200000)" = "$(lft "$tmp/ibroute.sw1")" ] &&
	[ "$(fdbs 0x0000000000200001)" = "$(lft "$tmp/ibroute.sw2")" ]
ok $? "ibdiagnet's LFT dump of both switches is ibroute's"

# ibis, as ibdiagpath -l uses it: Switch1's LFT block 0 by directed route
cat > "$tmp/lft.tcl" <<'EOF'
ibis_init
ibis_set_port [lindex [lindex [ibis_get_local_ports_info] 0] 0]
set st [smLftBlockMad getByDr {1} 0]
set lft [smLftBlockMad cget -lft]
puts "status $st"
for {set i 1} {$i <= 6} {incr i} { puts [format "0x%04x %d" $i [lindex $lft $i]] }
puts "dump [lindex [smLftBlockMad dump] 0]"
exit
EOF
timeout 60 "$run" --node Hca1 ibis "$tmp/lft.tcl" > "$tmp/ibis.out" 2>&1
[ "$(sed -n 's/^status //p' "$tmp/ibis.out")" = 0 ] &&
	[ "$(grep '^0x' "$tmp/ibis.out")" = "$(lft "$tmp/ibroute.sw1")" ]
ok $? "ibis smLftBlockMad getByDr {1} 0 (ibdiagpath -l's SMP): Switch1's entries for LIDs 1-6 as ibroute reads them"
grep -q '^dump -lft$' "$tmp/ibis.out"
ok $? "ibis's dump of it starts with the word -lft, which ibdiagpath -l's walk counts as entry 0"

timeout 60 "$run" --node Hca1 ibdiagpath -o "$tmp/diag" -d 1,3,5 > "$tmp/ibdiagpath.out" 2>&1
grep -E '^-I- (From|To):' "$tmp/ibdiagpath.out" | sed 's/^/# /'
grep '^-[EI]- .*IPoIB\|^-I- Subnet:' "$tmp/ibdiagpath.out" | sed 's/^/# /'
[ "$(grep -c '^-I- To: .*guid=0x0000000000200001 ' "$tmp/ibdiagpath.out")" = 1 ] &&
	grep -q '^-I- To: .*guid=0x0000000000200000 .*Port=5$' "$tmp/ibdiagpath.out"
ok $? "ibdiagpath -d 1,3,5: out Switch1's port 3 to Switch2, out its port 5 back to Switch1"

# OpenSM first: it would fill its log while its daemon is gone
stop $sm
daemon_stop_check $daemon "$tmp/madpmd.log"
ok $? "the daemon stops cleanly"
tap_done
