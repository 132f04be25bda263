#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# docs/tutorial.md, run as written: its `sh root` block as root, then its
# `sh` blocks in order, as one script of a normal user (nobody when we are
# root) in a fresh HOME with a session's XDG_RUNTIME_DIR, in a copy of the
# source tree as a fresh clone has it after scripts/setup. That builds and
# installs madpmd into the user's ~/.local as the page says, so the
# install, the personal plugin and extcap folders, the default run
# directory, madpmd-run --wait-active, the example program and the filter
# are all checked here; then what the page says you see is checked too,
# in tshark and in the Wireshark GUI under Xvfb.
# It builds its own plain copy (the same in the suite's plain and ASan
# passes, about 30 s each).
# Usage: test_tutorial.sh SOURCE_DIR
set -u
src=$1
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-tutorial.XXXXXX)
chmod 755 "$tmp"
page=$src/docs/tutorial.md

# blocks FILE INFO [N]: the lines of FILE's fenced blocks whose info
# string is INFO ("sh root", "sh", "sh install", "console"), or of the
# Nth such block alone
blocks() {
	awk -v info="$2" -v want="${3:-0}" '
		$0 == "```" info { k++; on = !want || k == want; next }
		/^```/ { on = 0 } on' "$1"
}
# session SECONDS PATH SCRIPT: SCRIPT with bash -e in the source copy, as
# the user in a session of their own (HOME, XDG_RUNTIME_DIR), nothing of
# ours, for at most SECONDS
session() {
	(cd "$tmp/src" && timeout "$1" "${as[@]}" env -i HOME="$tmp/home" \
		XDG_RUNTIME_DIR="$tmp/xdg" PATH="$2" LANG=C.UTF-8 USER=nobody \
		bash -e "$3")
}

# the blocks: "```sh root" (as root) and "```sh" (as the user)
blocks "$page" "sh root" > "$tmp/root.sh"
blocks "$page" sh > "$tmp/user.sh"
[ -s "$tmp/root.sh" ] && [ "$(grep -c . "$tmp/user.sh")" -ge 10 ]
ok $? "docs/tutorial.md has a root block ($(grep -c . "$tmp/root.sh") line) and user blocks ($(grep -c . "$tmp/user.sh") lines)"

# a fresh clone after scripts/setup: the tracked files and build/dpdk-sdk
mkdir -p "$tmp/src/build" "$tmp/home" "$tmp/xdg"
(cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$tmp/src") &&
	cp -a "$src/build/dpdk-sdk" "$tmp/src/build/"
ok $? "a copy of the tracked source tree and its DPDK SDK headers in $tmp/src"
chmod 700 "$tmp/xdg"
as=(env)
if [ "$(id -u)" = 0 ]; then
	(cd "$tmp/src" && bash -e "$tmp/root.sh") > "$tmp/root.log" 2>&1
	rc=$?
	ok $rc "the root block as root: $(tr '\n' ';' < "$tmp/root.sh") (exit $rc)"
	chown -R nobody "$tmp/src" "$tmp/home" "$tmp/xdg"
	as=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
else
	skip "the root block" "not root: scripts/setup installed the packages already (the suite ran it)"
fi

# Debian's PATH for a normal user
session 1200 /usr/local/bin:/usr/bin:/bin "$tmp/user.sh" > "$tmp/user.log" 2>&1
rc=$?
ok $rc "the user blocks as a normal user, as written (exit $rc)"
[ $rc = 0 ] || tail -20 "$tmp/user.log" | sed 's/^/# /'

r=$tmp/src
[ -x "$tmp/home/.local/bin/madpmd" ] && [ -x "$tmp/home/.local/bin/madpmd-run" ] &&
	[ -e "$tmp/home/.local/lib/wireshark/plugins/4.0/epan/madpmd.so" ] &&
	[ -L "$tmp/home/.config/wireshark/extcap/madpmd-extcap" ] &&
	[ -x "$tmp/home/.config/wireshark/extcap/madpmd-extcap" ]
ok $? "installed in ~/.local: madpmd, madpmd-run, the plugin in the personal plugin folder, the extcap linked into ~/.config/wireshark/extcap"
grep -q "^madpmd-run: opensm logs to $tmp/xdg/madpmd/opensm-hca1/opensm.log" "$tmp/user.log"
ok $? "madpmd-run opensm logs into the user's run directory and says so"
grep -qx 'client: sent "hello, RDMA"' "$r/client.out" 2>/dev/null &&
	grep -q '^server: received "hello, RDMA" (11 bytes)$' "$r/server.out" 2>/dev/null
ok $? "hello_rdma: the client sent, the server received ($(tr '\n' ';' < "$r/client.out" 2>/dev/null))"
out=$(sed -n '/CM event\|CQ completion\|InfiniBand/p' "$tmp/user.log")
miss=
for w in "CM event CONNECT_RESPONSE" "CM event ESTABLISHED" "CM event DISCONNECTED" \
	 "RC Send Only" "RC Acknowledge" "RECV SUCCESS" "SEND SUCCESS"; do
	grep -q "$w" <<< "$out" || miss+=" '$w'"
done
[ -n "$out" ] && [ -z "$miss" ] && ! grep -q Malformed <<< "$out"
ok $? "the filter shows the CM events, the SEND and its ACK, both completions, nothing malformed${miss:+ (missing:$miss)}"
[ -z "$miss" ] || sed 's/^/# /' <<< "$out"
# what the page shows is what tshark printed (frame numbers and times
# aside, spaces collapsed)
flat=$(sed 's/  */ /g' <<< "$out")
bad=
while read -r line; do
	grep -qF -- "$line" <<< "$flat" || bad+=" '$line'"
done < <(blocks "$page" console | grep ' \.\.\. ' |
	 sed 's/^ *[0-9]* \.\.\. *//; s/  */ /g')
[ -z "$bad" ]
ok $? "each line the page shows is in tshark's output${bad:+ (not:$bad)}"
# the page's Wireshark command as the user, under an X server of our own:
# the window opens the capture, and the rows the GUI drew are the lines
# the page shows (Source, Destination, Protocol, Info; a Lua
# post-dissector, tests/common/gui.sh, records what it drew)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/gui.sh"
wscmd=$(blocks "$page" console | grep '^wireshark -r hour.pcapng ')
missing=
for t in Xvfb wireshark xwininfo xwd; do
	command -v "$t" > /dev/null || missing+=" $t"
done
if [ -n "$missing" ]; then
	skip "the page's Wireshark command in the GUI" "no$missing (./scripts/setup installs wireshark-qt, xvfb, x11-apps, x11-utils)"
	skip "the GUI draws the page's lines" "no$missing"
else
	gui_xvfb
	gui_seen_lua "$tmp/seen.lua"
	: > "$tmp/seen.txt"
	chmod 666 "$tmp/seen.txt"
	(cd "$tmp/src" && exec "${as[@]}" env -i HOME="$tmp/home" \
		XDG_RUNTIME_DIR="$tmp/xdg" PATH="$tmp/home/.local/bin:/usr/local/bin:/usr/bin:/bin" \
		LANG=C.UTF-8 USER=nobody DISPLAY="$display" MADPMD_GUI_SEEN="$tmp/seen.txt" \
		bash -c "$wscmd -X lua_script:$tmp/seen.lua") > "$tmp/ws.log" 2>&1 &
	ws=$!
	pids+=($ws)
	win=$(window hour.pcapng 30)
	ok $? "the page's command ($(cut -c1-40 <<< "$wscmd")...) opens hour.pcapng in Wireshark as the user (window $win)"
	# each line of the page: Source|Destination|Protocol|Info
	want=$(blocks "$page" console | grep ' \.\.\. ' |
		sed -E 's/^ *[0-9]+ \.\.\. +([^ ]+) → +([^ ]*) +([^ ]+) [0-9]+ (.*)$/\1|\2|\3|\4/')
	bad=
	for i in $(seq 50); do
		rows "$tmp/seen.txt" | awk -F'\t' '{print $4 "|" $5 "|" $2 "|" $3}' > "$tmp/gui.rows"
		bad=
		while read -r line; do
			grep -qxF -- "$line" "$tmp/gui.rows" || bad+=" '$line'"
		done <<< "$want"
		[ -z "$bad" ] && break
		sleep 0.2
	done
	[ "$(grep -c . <<< "$want")" -ge 5 ] && [ -z "$bad" ]
	ok $? "the GUI drew $(grep -c . "$tmp/gui.rows") rows, among them each of the page's $(grep -c . <<< "$want") lines with its Source, Destination, Protocol and Info${bad:+ (not drawn:$bad)}"
	[ -z "$bad" ] || sed 's/^/# drawn: /' "$tmp/gui.rows"
	stop "$ws"
fi

# the README's block, after its install block (the tutorial's, run above)
blocks "$src/README.md" "sh install" > "$tmp/readme-install.sh"
blocks "$src/README.md" sh > "$tmp/readme.sh"
{ cat "$tmp/root.sh"; blocks "$page" sh 1; } > "$tmp/tut-install.sh"
cmp -s "$tmp/readme-install.sh" "$tmp/tut-install.sh"
ok $? "the README's install block is the tutorial's (setup, build, install), run above"
# in the same terminal as the install: its export of PATH holds
session 300 "$tmp/home/.local/bin:/usr/local/bin:/usr/bin:/bin" "$tmp/readme.sh" \
	> "$tmp/readme.log" 2>&1
rc=$?
ok $rc "the README's block as a normal user, as written ($(grep -c . "$tmp/readme.sh") commands, exit $rc)"
[ $rc = 0 ] || tail -20 "$tmp/readme.log" | sed 's/^/# /'
grep -q "NodeDescription.*hca1" "$tmp/readme.log" && grep -q "node_guid" "$tmp/readme.log" &&
	[ -s "$tmp/src/fabric.pcapng" ] && [ -s "$tmp/src/again.pcapng" ] &&
	[ "$(grep -c '\(LID: [0-9]*\|hca[12]/1\) → \(LID: [0-9]*\|hca[12]/1\) .*\(SubnMgt\|SubnAdm\)' "$tmp/readme.log")" -ge 10 ]
ok $? "saquery, ibv_devinfo, the live capture and the file's MADs, and the replay's capture"

# the tutorial's processes: those running in its tree
left=
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/cwd" 2>/dev/null)" = "$tmp/src" ] && left+=" ${p#/proc/}"
done
[ -z "$left" ]
ok $? "nothing of the tutorial's is left running${left:+:$left}"
[ -n "$left" ] && kill $left 2>/dev/null
tap_done
