#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# madpmd-extcap the way Wireshark calls it: discovery, DLTs, configuration
# and capture-filter checks (also against the fabric's ports), then live
# captures by stock tshark from a real fabric (brought up meanwhile by
# stock OpenSM), stops by tshark, by the fifo's reader going away and by
# the fabric ending; a refused capture ends its reader's wait at once.
# Usage: test_extcap.sh <madpmd-extcap> <madpmd> <madpmd-run>
# MADPMD_SAN_PRELOAD: sanitizer runtimes for stock OpenSM loading a
# sanitized drop-in libibumad (never for tshark: it runs extcaps).
set -u
extcap=$1
madpmd=$2
run=$3
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-extcap.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
prefix=madpmd-extcap-$$
eal_prefixes=("$prefix")
export MADPMD_RUN_DIR=$tmp/run

# tshark runs as an unprivileged user when we are root: root's tshark
# ignores WIRESHARK_EXTCAP_DIR. It finds a copy of our extcap there, and no
# plugin (stock decoding; a sanitized plugin would need a preload).
chmod 755 "$tmp"
mkdir -p "$tmp/extcap" "$tmp/no-plugins" "$tmp/home" "$tmp/cap"
cp "$extcap" "$tmp/extcap/madpmd-extcap"
chmod 755 "$tmp/extcap" "$tmp/extcap/madpmd-extcap"
chmod 777 "$tmp/cap"
as_user=(env)
if [ "$(id -u)" = 0 ]; then
	as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups -- env)
	chown nobody "$tmp/home"
fi
# a command, not a function: "$!" of "${tshark[@]} ... &" is tshark's pid
tshark=("${as_user[@]}" HOME="$tmp/home" MADPMD_RUN_DIR="$MADPMD_RUN_DIR"
	WIRESHARK_EXTCAP_DIR="$tmp/extcap" WIRESHARK_PLUGIN_DIR="$tmp/no-plugins"
	tshark)
ts() { "${tshark[@]}" "$@"; }
san=()
[ -n "${MADPMD_SAN_PRELOAD:-}" ] &&
	san=(env LD_PRELOAD="$MADPMD_SAN_PRELOAD" ASAN_OPTIONS=detect_leaks=0)
# count the frames of a capture matching a display filter
count() { ts -r "$1" -Y "$2" 2>/dev/null | wc -l; }
# wait up to $2 tenths of a second for process $1 to end
gone() {
	local i
	for i in $(seq "$2"); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	return 1
}
# the pid of our extcap running a capture (our copy's path is unique)
extcap_pid() {
	local f
	for f in /proc/[0-9]*/cmdline; do
		tr '\0' ' ' < "$f" 2>/dev/null | grep -q "^$tmp/extcap/madpmd-extcap .*--capture" &&
			{ f=${f#/proc/}; echo "${f%/cmdline}"; return 0; }
	done
	return 1
}
# wait for tshark's capture file to hold the stream's first blocks
started() {
	local i
	for i in $(seq 150); do [ -s "$1" ] && return 0; sleep 0.1; done
	return 1
}

# 1. Discovery, with no fabric: the extcap line and one interface that
# says why and what to do
out=$("$extcap" --extcap-interfaces --extcap-version=4.0 2> "$tmp/err"); rc=$?
[ $rc = 0 ] && [ "$(echo "$out" | wc -l)" = 2 ] &&
	echo "$out" | head -1 | grep -Eq '^extcap \{version=[^}]+\}\{help=[^}]+\}$' &&
	[ "$(echo "$out" | tail -1)" = "interface {value=madpmd-all}{display=madpmd: no fabric running in $MADPMD_RUN_DIR (start one: madpmd -- -i, then madpmd-run opensm)}" ] &&
	[ ! -s "$tmp/err" ]
ok $? "no fabric: --extcap-interfaces prints the extcap line and madpmd-all saying so ($(tr '\n' ' ' <<< "$out"))"
ts -D > "$tmp/D0" 2>&1; rc=$?
[ $rc = 0 ] && [ "$(grep -c madpmd "$tmp/D0")" = 1 ] &&
	grep -q "madpmd-all (madpmd: no fabric running in .*start one: madpmd -- -i" "$tmp/D0"
ok $? "no fabric: tshark -D lists one madpmd interface, which says how to start one: $(grep madpmd "$tmp/D0")"

out=$("$extcap" --extcap-interface madpmd-hca1-1 --extcap-dlts); rc=$?
[ $rc = 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
	echo "$out" | grep -Eq '^dlt \{number=252\}\{name=EXPORTED_PDU\}\{display=[^}]+\}$'
ok $? "--extcap-dlts: $out"

"$extcap" --extcap-interface madpmd-all --extcap-config > "$tmp/config"; rc=$?
grep -q "^arg {number=0}{call=--run-dir}{display=[^}]*}{type=string}{default=$MADPMD_RUN_DIR}.*{required=false}" "$tmp/config" &&
	grep -q '^arg {number=1}{call=--kinds}{display=[^}]*}{type=multicheck}.*{required=false}{save=false}' "$tmp/config" &&
	! grep -q 'required=true' "$tmp/config" &&
	[ "$(grep -E '^value \{arg=1\}\{value=[a-z]+\}\{display=[^}]+\}\{enabled=true\}\{default=true\}$' "$tmp/config" |
		grep -o '{value=[a-z]*}' | sort | tr -d '\n')" = '{value=cm}{value=port}{value=umad}{value=wc}{value=wire}' ] &&
	[ "$(grep -c '^arg ' "$tmp/config")" = 2 ] && [ "$(grep -c '^value ' "$tmp/config")" = 5 ] &&
	[ $rc = 0 ]
ok $? "--extcap-config: --run-dir (default \$MADPMD_RUN_DIR, not required) and --kinds (multicheck of 5 kinds, all by default, not saved)"

# capture-filter check: no output is valid, one line is the error
out=$("$extcap" --extcap-interface madpmd-all --extcap-capture-filter 'kinds=wire,umad  ports=hca1:1,hca2:1'); rc=$?
[ $rc = 0 ] && [ -z "$out" ]
ok $? "capture filter 'kinds=wire,umad ports=hca1:1,hca2:1' is valid"
bad=0
for f in 'kinds=wire,bogus' 'ports=hca1' 'ports=hca1:0' 'kinds=' 'wire' 'kinds=wc kinds=cm'; do
	out=$("$extcap" --extcap-interface madpmd-all --extcap-capture-filter "$f"); rc=$?
	if [ $rc != 0 ] || [ "$(echo "$out" | wc -l)" != 1 ] || [ -z "$out" ]; then
		echo "# filter '$f': rc $rc, '$out'"
		bad=1
	fi
done
[ $bad = 0 ]
ok $? "bad capture filters each get one line of error ($("$extcap" --extcap-interface madpmd-all --extcap-capture-filter 'kinds=wire,bogus'))"
out=$("$extcap" --extcap-interface madpmd-hca1-1 --extcap-capture-filter 'ports=hca2:1'); rc=$?
[ $rc = 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "leaves out hca1:1"
ok $? "a one-port interface's filter must keep its port, checked as it is typed: $out"
out=$("$extcap" --extcap-interface madpmd-bogus --extcap-capture-filter 'kinds=wire'); rc=$?
[ $rc = 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "unknown interface"
ok $? "a filter for an interface that is not madpmd's: $out"

"$extcap" --capture --extcap-interface bogus --fifo "$tmp/none" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "unknown interface bogus" "$tmp/err" && [ ! -e "$tmp/none" ]
ok $? "an unknown interface: exit 1, $(cat "$tmp/err")"
"$extcap" --capture --extcap-interface madpmd-all --fifo "$tmp/none" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "no madpmd fabric runs in $MADPMD_RUN_DIR" "$tmp/err"
ok $? "no fabric: capture fails with exit 1, $(cat "$tmp/err")"

# 2. The real fabric, its sockets open to the unprivileged tshark
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=$prefix -- \
	--run-dir "$MADPMD_RUN_DIR" --umad-mode 0666 > "$tmp/madpmd.log" 2>&1 &
madpmd_pid=$!
pids+=($madpmd_pid)
for i in $(seq 200); do
	[ -S "$MADPMD_RUN_DIR/hca2/umad" ] && [ -S "$MADPMD_RUN_DIR/capture" ] && break
	kill -0 $madpmd_pid 2>/dev/null || break
	sleep 0.1
done
if [ ! -S "$MADPMD_RUN_DIR/capture" ]; then
	ok 1 "madpmd runs the default fabric: daemon has no capture socket $MADPMD_RUN_DIR/capture"
	sed 's/^/# madpmd: /' "$tmp/madpmd.log" | tail -8
	echo "1..$n"
	exit 1
fi
ok 0 "madpmd runs the default fabric with its capture socket"

out=$("$extcap" --extcap-interfaces --extcap-version=4.0)
[ "$(echo "$out" | grep -c '^interface ')" = 3 ] &&
	echo "$out" | grep -qx 'interface {value=madpmd-hca1-1}{display=madpmd hca1 port 1}' &&
	echo "$out" | grep -qx 'interface {value=madpmd-hca2-1}{display=madpmd hca2 port 1}' &&
	echo "$out" | grep -qx 'interface {value=madpmd-all}{display=madpmd all ports}'
ok $? "--extcap-interfaces: madpmd-hca1-1, madpmd-hca2-1, madpmd-all"
ts -D > "$tmp/D1" 2>&1
grep -q 'madpmd-hca1-1 (madpmd hca1 port 1)' "$tmp/D1" &&
	grep -q 'madpmd-hca2-1 (madpmd hca2 port 1)' "$tmp/D1" &&
	grep -q 'madpmd-all (madpmd all ports)' "$tmp/D1"
ok $? "tshark -D lists them"

# 3. tshark captures hca2's port while stock OpenSM brings the fabric up;
# tshark's duration ends it
c1=$tmp/cap/c1.pcapng
"${tshark[@]}" -i madpmd-hca2-1 -a duration:8 -w "$c1" > "$tmp/ts1.log" 2>&1 &
t1=$!
pids+=($t1)
started "$c1"
ok $? "tshark -i madpmd-hca2-1 starts capturing"
x1=$(extcap_pid)
timeout 60 "${san[@]}" "$run" opensm -o -f "$tmp/opensm.log" > "$tmp/opensm.out" 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log"
ok $? "opensm -o reaches SUBNET UP during the capture"
gone $t1 300; wait $t1; rc=$?
[ $rc = 0 ] && grep -q "packets captured" "$tmp/ts1.log"
ok $? "tshark stops after its duration (exit $rc: $(grep -o '[0-9]* packets captured' "$tmp/ts1.log"))"
[ -n "$x1" ] && gone "$x1" 30
ok $? "and the extcap (pid ${x1:-none}) has exited"
sets=$(count "$c1" 'infiniband.mad.method == 0x02 && infiniband.mad.attributeid == 0x0015')
[ "$sets" -gt 0 ]
ok $? "the capture holds OpenSM's SubnSet(PortInfo) SMPs to hca2: $sets"
others=$(ts -r "$c1" -T fields -e frame.interface_name 2>/dev/null | sort -u | grep -v '^hca2/1' | tr '\n' ' ')
[ -z "$others" ]
ok $? "every frame is on hca2/1's interfaces${others:+ (also: $others)}"
recs=$(count "$c1" 'exported_pdu.prot_name == "madpmd"')
[ "$recs" -gt 0 ]
ok $? "and records (port events of hca2 coming up) are there: $recs"

# 4. a second capture: every port, narrowed by a capture filter; stopped
# by SIGINT as a user would
c2=$tmp/cap/c2.pcapng
"${tshark[@]}" -i madpmd-all -f 'kinds=wire ports=hca1:1' -w "$c2" > "$tmp/ts2.log" 2>&1 &
t2=$!
pids+=($t2)
started "$c2"
ok $? "tshark -i madpmd-all -f 'kinds=wire ports=hca1:1' starts capturing"
x2=$(extcap_pid)
"${san[@]}" "$run" smpquery -D nodeinfo 0,1 > "$tmp/smpquery" 2>&1
grep -q "Guid:" "$tmp/smpquery"
ok $? "smpquery -D nodeinfo 0,1 from hca1 meanwhile"
sleep 1
kill -INT $t2
gone $t2 100; wait $t2; rc=$?
[ $rc = 0 ] && [ -n "$x2" ] && gone "$x2" 30
ok $? "SIGINT stops tshark (exit $rc) and the extcap (pid ${x2:-none})"
gets=$(count "$c2" 'infiniband.mad.attributeid == 0x0011')
ifs=$(ts -r "$c2" -T fields -e frame.interface_name 2>/dev/null | sort -u | tr '\n' ' ')
recs=$(count "$c2" 'exported_pdu.prot_name == "madpmd"')
[ "$gets" -gt 0 ] && [ "$ifs" = "hca1/1 " ] && [ "$recs" = 0 ]
ok $? "only hca1/1's wire: $gets NodeInfo SMPs, interfaces: $ifs, $recs records"

# 5. errors from the daemon and from the fabric's port list; filters are
# checked against the fabric as they are typed
out=$("$extcap" --extcap-interface madpmd-all --extcap-capture-filter 'ports=hca1:1,hca9:1'); rc=$?
[ $rc = 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "has no port hca9:1"
ok $? "a filter naming a port the fabric lacks is invalid at once: $out"
out=$("$extcap" --extcap-interface madpmd-hca2-1 --extcap-capture-filter 'kinds=umad ports=hca2:1,hca1:1'); rc=$?
[ $rc = 0 ] && [ -z "$out" ]
ok $? "one naming the fabric's ports is valid"
"$extcap" --capture --extcap-interface madpmd-hca9-1 --fifo "$tmp/none" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "no port hca9:1" "$tmp/err" && [ ! -e "$tmp/none" ]
ok $? "an interface of no port: exit 1, $(cat "$tmp/err")"
"$extcap" --capture --extcap-interface madpmd-all --extcap-capture-filter 'ports=hca9:1' \
	--fifo "$tmp/none" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "madpmd refused the capture: ." "$tmp/err" && [ ! -e "$tmp/none" ]
ok $? "a port the daemon does not know: exit 1, $(cat "$tmp/err")"

# a capture that fails before its stream starts ends the reader's wait
# on the fifo (dumpcap would otherwise wait for a writer until stopped)
mkfifo "$tmp/fifo-err"
"$extcap" --capture --extcap-interface madpmd-all --extcap-capture-filter 'ports=hca9:1' \
	--fifo "$tmp/fifo-err" 2> "$tmp/err" &
x5=$!
pids+=($x5)
timeout 10 cat "$tmp/fifo-err" > "$tmp/fifo-err.out"; rc=$?
gone $x5 50; wait $x5; xrc=$?
[ $rc = 0 ] && [ ! -s "$tmp/fifo-err.out" ] && [ $xrc = 1 ] &&
	grep -q "madpmd refused the capture" "$tmp/err"
ok $? "a refused capture closes the fifo: its reader gets end of file at once (cat $rc, extcap $xrc)"

# 6. Wireshark's side of the fifo goes away: the extcap ends by itself
mkfifo "$tmp/fifo"
"$extcap" --capture --extcap-interface madpmd-all --fifo "$tmp/fifo" 2> "$tmp/err" &
x3=$!
pids+=($x3)
head -c 4 "$tmp/fifo" > "$tmp/head"
gone $x3 50; wait $x3; rc=$?
[ $rc = 0 ] && [ "$(od -An -tx1 "$tmp/head" | tr -d ' ')" = 0a0d0d0a ]
ok $? "the reader closes the fifo after the SHB's 4 bytes: the extcap exits 0 $(cat "$tmp/err")"

# 7. the fabric stops: the stream ends, the extcap exits 0
rm -f "$tmp/fifo"
mkfifo "$tmp/fifo"
"$extcap" --capture --extcap-interface madpmd-hca1-1 --fifo "$tmp/fifo" 2> "$tmp/err" &
x4=$!
pids+=($x4)
cat "$tmp/fifo" > "$tmp/cap/c4.pcapng" &
c4=$!
pids+=($c4)
sleep 1
stop $madpmd_pid
gone $x4 100; wait $x4; rc=$?
gone $c4 30
[ $rc = 0 ] && [ "$(od -An -N4 -tx1 "$tmp/cap/c4.pcapng" | tr -d ' ')" = 0a0d0d0a ] &&
	capinfos "$tmp/cap/c4.pcapng" > "$tmp/c4.info" 2>&1
ok $? "madpmd stops: the extcap exits $rc and what it copied is a pcapng file $(cat "$tmp/err")"

tap_done
