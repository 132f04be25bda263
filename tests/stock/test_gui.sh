#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The real Wireshark GUI (wireshark-qt under Xvfb), as an unprivileged
# user who installed madpmd's plugin and extcap in the personal
# directories, and configured nothing:
#   - it opens a sample capture: the window shows it (title, a screenshot
#     that is not blank), and the rows the GUI itself dissected and drew
#     say what stock tshark says of the same frames;
#   - Capture > Start (Ctrl+E, sent by xdotool) on madpmd-all captures
#     live from a running fabric at once (no options dialog, no "Configure
#     all extcaps before start of capture") while smpquery runs: the file
#     it writes holds the SMPs and madpmd's records, and the GUI drew them;
#   - a user who may not open the capture socket gets the extcap's error
#     in a dialog at once, the capture ended (no dumpcap left waiting).
# What the GUI dissected is recorded by a Lua post-dissector run inside
# it (-X lua_script:), one line a dissected frame with its columns.
# Usage: test_gui.sh <madpmd> <madpmd-run> <madpmd-extcap> <madpmd.so> <pcaps dir>
# MADPMD_SAN_PRELOAD: sanitizer runtimes for a sanitized build: the stock
# tools get them (the drop-ins), the GUI runs without the plugin.
set -u
madpmd=$1
run=$2
extcap=$3
plugin=$4
pcaps=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/tap.sh"
. "$here/../common/stage.sh"
. "$here/../common/gui.sh"

for t in Xvfb wireshark xwd xwininfo xdotool tshark python3; do
	if ! command -v "$t" > /dev/null; then
		echo "1..0 # SKIP no $t (./scripts/setup installs wireshark-qt, xvfb, x11-apps, x11-utils, xdotool)"
		exit 0
	fi
done

tmp=$(mktemp -d /tmp/madpmd-gui.XXXXXX)
prefix=madpmd-gui-$$
eal_prefixes=("$prefix")
export MADPMD_RUN_DIR=$tmp/run
chmod 755 "$tmp"
home=$tmp/home
mkdir -p "$home/.local/lib/wireshark/plugins/4.0/epan" \
	"$home/.config/wireshark/extcap" "$tmp/no-extcap" "$tmp/cap"
# the personal directories a user would copy them into (docs/extcap.md).
# A sanitized build's plugin needs the sanitizer runtimes preloaded into
# Wireshark, and with them its dumpcap hangs on exit: such a build's GUI
# runs without the plugin (stock decoding; the plugin's own tests cover it).
plugin_in=1
if [ -n "${MADPMD_SAN_PRELOAD:-}" ]; then
	plugin_in=
else
	cp "$plugin" "$home/.local/lib/wireshark/plugins/4.0/epan/"
fi
cp "$extcap" "$home/.config/wireshark/extcap/madpmd-extcap"
cp "$pcaps/perfquery.pcapng" "$tmp/perfquery.pcapng"
chmod 644 "$tmp/perfquery.pcapng"
chmod 777 "$tmp/cap"
as_user=(env)
if [ "$(id -u)" = 0 ]; then
	# root's Wireshark ignores the personal plugin directory
	as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups -- env)
	chown -R nobody "$home"
fi
# stock tools over a sanitized drop-in libibumad
tool=()
[ -n "${MADPMD_SAN_PRELOAD:-}" ] &&
	tool=(env LD_PRELOAD="$MADPMD_SAN_PRELOAD" ASAN_OPTIONS=detect_leaks=0)

# what the GUI dissected and drew (tests/common/gui.sh)
gui_seen_lua "$tmp/seen.lua"

# 1. what the options dialog starts from: defaults, nothing required
"$extcap" --extcap-interface madpmd-all --extcap-config > "$tmp/config"; rc=$?
[ $rc = 0 ] &&
	grep -q "^arg {number=0}{call=--run-dir}.*{default=$MADPMD_RUN_DIR}.*{required=false}" "$tmp/config" &&
	grep -q '^arg {number=1}{call=--kinds}{[^}]*}{type=multicheck}.*{required=false}{save=false}' "$tmp/config" &&
	! grep -q 'required=true' "$tmp/config" &&
	[ "$(grep -c '^value {arg=1}.*{enabled=true}{default=true}$' "$tmp/config")" = 5 ]
ok $? "--extcap-config: the run directory defaults to \$MADPMD_RUN_DIR, nothing is required, every kind is checked by default and not saved"

# 2. an X server of our own (it picks a free display)
gui_xvfb
ok $? "Xvfb runs on $display"

ws=("${as_user[@]}" HOME="$home" XDG_RUNTIME_DIR="$home" TMPDIR="$tmp/cap"
	DISPLAY="$display"
	MADPMD_RUN_DIR="$MADPMD_RUN_DIR" WIRESHARK_EXTCAP_DIR="$tmp/no-extcap"
	wireshark -X "lua_script:$tmp/seen.lua")
ts() {
	"${as_user[@]}" HOME="$home" WIRESHARK_EXTCAP_DIR="$tmp/no-extcap" \
		tshark "$@"
}
chmod 700 "$home"

# wait up to $3 s for line $2 in file $1
logged() {
	local i
	for i in $(seq $((10 * $3))); do grep -q "$2" "$1" && return 0; sleep 0.1; done
	return 1
}
# dumpcap and extcaps Wireshark $1 runs
children() { ps -o pid=,comm= --ppid "$1" 2>/dev/null; }
# stop Wireshark $1, then what it ran (a dumpcap left waiting on a fifo
# outlives it)
stop_ws() {
	local kids k
	kids=$(children "$1" | awk '{print $1}')
	stop "$1"
	for k in $kids; do stop "$k"; done
}

# 3. a sample capture
: > "$tmp/seen1.txt"
chmod 666 "$tmp/seen1.txt"
MADPMD_GUI_SEEN=$tmp/seen1.txt "${ws[@]}" -r "$tmp/perfquery.pcapng" > "$tmp/ws1.log" 2>&1 &
w1=$!
pids+=($w1)
win=$(window perfquery.pcapng 30)
ok $? "wireshark -r perfquery.pcapng: its window is titled perfquery.pcapng ($win)"
sleep 2
c=$(colours "${win:-none}" read)
[ "${c:-0}" -gt 50 ]
ok $? "a screenshot of the window is not blank: ${c:-no} colours"
rows "$tmp/seen1.txt" > "$tmp/rows1"
ts -r "$tmp/perfquery.pcapng" -T fields -e frame.number -e _ws.col.Protocol \
	-e _ws.col.Info > "$tmp/tshark1" 2> "$tmp/tshark1.err"
drawn=$(wc -l < "$tmp/rows1")
differ=$(join -t "$(printf '\t')" -j 1 "$tmp/rows1" "$tmp/tshark1" -o 1.1,1.2,1.3,2.2,2.3 |
	awk -F'\t' '$2 != $4 || $3 != $5' | head -3)
same=$(join -t "$(printf '\t')" -j 1 "$tmp/rows1" "$tmp/tshark1" | wc -l)
[ "$drawn" -ge 10 ] && [ "$same" = "$drawn" ] && [ -z "$differ" ]
ok $? "the GUI drew $drawn rows, each with tshark's Protocol and Info for that frame${differ:+ (differ: $differ)}"
recs=$(awk -F'\t' '$2 == "madpmd"' "$tmp/rows1" | wc -l)
# the wire's PerfMgt: the plugin decodes it beside the stock dissector by
# default (madpmd.decode_ib), so its Protocol and Info are madpmd's
ib=$(awk -F'\t' '$2 == "InfiniBand" && $3 ~ /^PERF /' "$tmp/rows1" | wc -l)
[ -n "$plugin_in" ] &&
	ib=$(awk -F'\t' '$2 == "madpmd" && $3 ~ /^PerfMgt .*\[hca[12]\/1 (in|out)\]$/' "$tmp/rows1" | wc -l)
if [ -n "$plugin_in" ]; then
	[ "$recs" -gt 0 ] && [ "$ib" -gt 0 ]
	ok $? "among them madpmd's records, decoded by the plugin ($recs: $(awk -F'\t' '$2 == "madpmd" {print $3; exit}' "$tmp/rows1")), and PerfMgt on the wire, which port captured it in Info ($ib: $(awk -F'\t' '$2 == "madpmd" && $3 ~ /^PerfMgt / {print $3; exit}' "$tmp/rows1"))"
else
	skip "madpmd's records decoded by the plugin in the GUI" "a sanitized build: no plugin in Wireshark"
fi
stop_ws $w1

# 4. a fabric; its sockets open to the unprivileged Wireshark
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=$prefix -- \
	--run-dir "$MADPMD_RUN_DIR" --umad-mode 0666 > "$tmp/madpmd.log" 2>&1 &
madpmd_pid=$!
pids+=($madpmd_pid)
for i in $(seq 200); do
	[ -S "$MADPMD_RUN_DIR/hca2/umad" ] && [ -S "$MADPMD_RUN_DIR/capture" ] && break
	kill -0 $madpmd_pid 2>/dev/null || break
	sleep 0.1
done
[ -S "$MADPMD_RUN_DIR/capture" ]
ok $? "madpmd runs the default fabric (--umad-mode 0666)"

# 5. live capture, with nothing configured, started as a user does: the
# interface selected, Capture > Start (Ctrl+E). The GUI first checks that
# the extcap's required options are set (what double-clicking the
# interface does too); the options given here only name the file and
# the duration.
live=$tmp/cap/live.pcapng
: > "$tmp/seen2.txt"
chmod 666 "$tmp/seen2.txt"
MADPMD_GUI_SEEN=$tmp/seen2.txt "${ws[@]}" -i madpmd-all -a duration:6 -w "$live" \
	> "$tmp/ws2.log" 2>&1 &
w2=$!
pids+=($w2)
win=$(window "The Wireshark Network Analyzer" 30) && sleep 1 &&
	xdotool windowfocus --sync "$win" key ctrl+e
logged "$tmp/ws2.log" "Capture started" 15
ok $? "Capture > Start on madpmd-all starts capturing at once$(windows | grep -o '"[^"]*Interface Options[^"]*"' | sed 's/^/: no, Wireshark opened /')"
xargs=$(children $w2 | awk '$2 == "madpmd-extcap" {print $1}' | head -1)
xargs=$([ -n "$xargs" ] && tr '\0' ' ' < "/proc/$xargs/cmdline")
case $xargs in
*"--run-dir $MADPMD_RUN_DIR"*) ! echo "$xargs" | grep -q -- --kinds ;;
*) false ;;
esac
ok $? "Wireshark runs the extcap with the default run directory and every kind: ${xargs:-no extcap running}"
"${tool[@]}" "$run" smpquery -D nodeinfo 0,1 > "$tmp/smpquery.out" 2>&1 &&
	"${tool[@]}" "$run" smpquery -D portinfo 0,1 1 >> "$tmp/smpquery.out" 2>&1
ok $? "smpquery -D nodeinfo and portinfo from hca1 meanwhile"
logged "$tmp/ws2.log" "Capture stopped" 20
ok $? "the capture stops after its duration"
win=$(window live.pcapng 10)
ok $? "the window is titled live.pcapng ($win)"
sleep 1
c=$(colours "${win:-none}" live)
[ "${c:-0}" -gt 50 ]
ok $? "a screenshot of the window is not blank: ${c:-no} colours"
smps=$(ts -r "$live" -Y 'infiniband.mad.attributeid == 0x0011 || infiniband.mad.attributeid == 0x0015' 2>/dev/null | wc -l)
recs=$(ts -r "$live" -Y 'exported_pdu.prot_name == "madpmd"' 2>/dev/null | wc -l)
[ "$smps" -ge 4 ] && [ "$recs" -ge 2 ]
ok $? "the GUI's capture file holds the NodeInfo and PortInfo SMPs ($smps) and madpmd's records ($recs)"
rows "$tmp/seen2.txt" > "$tmp/rows2"
grep -q "Get(NodeInfo)" "$tmp/rows2" && grep -q "GetResp(NodeInfo)" "$tmp/rows2" &&
	{ [ -z "$plugin_in" ] || awk -F'\t' '$2 == "madpmd"' "$tmp/rows2" | grep -q .; }
ok $? "the GUI drew them live: $(wc -l < "$tmp/rows2") rows, e.g. $(awk -F'\t' '$2 == "madpmd" {print $3; exit}' "$tmp/rows2")"
stop_ws $w2

# 6. a user who may not open the capture socket (madpmd's default mode);
# only root can make a socket of its own that the test's user may not open
if [ "$(id -u)" = 0 ]; then
	# the user's copies: the build tree may be out of its reach
	user_extcap=$home/.config/wireshark/extcap/madpmd-extcap
	user_run=$(stage_run "$tmp/bin" "$run")
	sock=$MADPMD_RUN_DIR/capture
	chmod 0600 "$sock"
	"${as_user[@]}" "$user_extcap" --capture --extcap-interface madpmd-all \
		--fifo "$tmp/none" 2> "$tmp/denied.err"; rc=$?
	[ $rc = 1 ] && grep -q -- "restart madpmd with --umad-mode 0666" "$tmp/denied.err"
	ok $? "the extcap names the fix: $(cat "$tmp/denied.err")"
	# a group's socket: the group to join (one nobody is not in)
	grp=adm
	getent group "$grp" > /dev/null || grp=root
	chgrp "$grp" "$sock" && chmod 0660 "$sock"
	"${as_user[@]}" "$user_extcap" --capture --extcap-interface madpmd-all \
		--fifo "$tmp/none" 2> "$tmp/denied-group.err"; rc=$?
	[ $rc = 1 ] && grep -q -- "join the group $grp" "$tmp/denied-group.err"
	ok $? "of a 0660 socket, the group to join: $(cat "$tmp/denied-group.err")"
	chmod 0600 "$sock"
	chmod 0600 "$MADPMD_RUN_DIR/hca1/umad"
	"${as_user[@]}" "$user_run" smpquery nodeinfo 1 > /dev/null 2> "$tmp/denied-run.err"; rc=$?
	[ $rc = 1 ] && grep -q -- "--umad-mode 0666" "$tmp/denied-run.err"
	ok $? "so does madpmd-run of a node's umad socket: $(cat "$tmp/denied-run.err")"
	chmod 0666 "$MADPMD_RUN_DIR/hca1/umad"
	MADPMD_GUI_SEEN=/dev/null "${ws[@]}" -k -i madpmd-all -w "$tmp/cap/denied.pcapng" \
		> "$tmp/ws3.log" 2>&1 &
	w3=$!
	pids+=($w3)
	logged "$tmp/ws3.log" "Capture stopped" 15
	ok $? "Wireshark's capture ends at once, not when the user stops it"
	for i in $(seq 50); do
		dlg=$(windows | grep -v -F '"The Wireshark Network Analyzer":' |
			grep -F '"Wireshark":' | awk '{print $1}' | head -1)
		[ -n "$dlg" ] && break
		sleep 0.1
	done
	sleep 1
	c=$(colours "${dlg:-none}" denied)
	[ -n "$dlg" ] && [ "${c:-0}" -gt 20 ]
	ok $? "an error dialog shows ($dlg, ${c:-no} colours)"
	left=$(children $w3 | tr '\n' ' ')
	[ -z "$left" ]
	ok $? "no dumpcap or extcap left waiting${left:+: $left}"
	stop_ws $w3
	chmod 0666 "$sock"
else
	for c in "the extcap names the fix" "of a 0660 socket, the group to join" \
		"so does madpmd-run" "Wireshark's capture ends at once" \
		"an error dialog shows" "no dumpcap or extcap left waiting"; do
		skip "$c" "not root: the test's user owns the sockets"
	done
fi

daemon_stop_check $madpmd_pid "$tmp/madpmd.log"
ok $? "madpmd exits cleanly"

tap_done
