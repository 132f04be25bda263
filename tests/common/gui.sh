# SPDX-License-Identifier: BSD-3-Clause
# Sourced by tests that drive the real Wireshark GUI under Xvfb (after
# tap.sh, with $tmp a directory of the test's own and $here its tests
# directory for xwd_check.py):
#   gui_xvfb: an X server of our own on a free display, its pid in pids;
#     sets DISPLAY and display ("" when it did not start)
#   gui_seen_lua FILE: a Lua post-dissector to load with -X lua_script:,
#     which writes a line a dissected frame into $MADPMD_GUI_SEEN: number,
#     frame.protocols, the Protocol and Info columns (filled when the
#     packet list draws the row), then the Source and Destination
#     addresses (what those columns show; "NONE" for none)
#   windows: Wireshark's top-level windows, "id" "title"
#   window TITLE SECONDS: wait for a Wireshark window titled TITLE; its id
#   colours ID NAME: the colours in the window's screenshot (1: blank)
#   rows FILE: the rows the GUI drew: number, Protocol, Info, Source,
#     Destination ("" for none), one a frame, in order
gui_xvfb() {
	local i
	exec 5> "$tmp/display"
	Xvfb -displayfd 5 -screen 0 1280x1024x24 -nolisten tcp -ac > "$tmp/xvfb.log" 2>&1 &
	pids+=($!)
	exec 5>&-
	for i in $(seq 100); do [ -s "$tmp/display" ] && break; sleep 0.1; done
	display=
	[ -s "$tmp/display" ] && display=:$(head -1 "$tmp/display")
	export DISPLAY=$display
	[ -n "$display" ] && xwininfo -root > /dev/null 2>&1
}
gui_seen_lua() {
	cat > "$1" <<'LUA'
local out = assert(io.open(os.getenv("MADPMD_GUI_SEEN"), "w"))
local protocols = Field.new("frame.protocols")
local seen = Proto("madpmd_gui_seen", "what the GUI test saw")
function seen.dissector(tvb, pinfo, tree)
	out:write(pinfo.number, "\t", tostring(protocols()), "\t",
		  tostring(pinfo.cols.protocol), "\t",
		  tostring(pinfo.cols.info), "\t",
		  tostring(pinfo.src), "\t",
		  tostring(pinfo.dst), "\n")
	out:flush()
end
register_postdissector(seen)
LUA
	chmod 644 "$1"
}
windows() { xwininfo -root -tree | grep '("wireshark" "Wireshark")'; }
window() {
	local i w
	for i in $(seq $((10 * $2))); do
		w=$(windows | grep -F "\"$1\":" | awk '{print $1}' | head -1)
		[ -n "$w" ] && { echo "$w"; return 0; }
		sleep 0.1
	done
	return 1
}
colours() {
	xwd -id "$1" -silent > "$tmp/$2.xwd" 2>/dev/null &&
		python3 "$here/../stock/xwd_check.py" "$tmp/$2.xwd" | sed 's/.*colors=//'
}
rows() {
	awk -F'\t' '$4 != "(info)" {
		for (i = 5; i <= 6; i++) if ($i == "NONE") $i = ""
		print $1 "\t" $3 "\t" $4 "\t" $5 "\t" $6 }' "$1" |
		sort -n -u -t "$(printf '\t')" -k 1,1
}
