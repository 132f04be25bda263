# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the fabric tests: ibnetdiscover's output compared between
# madpmd and ibsim.

# ibnetdiscover's nodes and cables, whatever the LIDs, speeds, vendor
# and the order of discovery: one line per cable end
topo_norm() {
	awk '/^(Switch|Ca)[ \t]/ { node = $0; sub(/[ \t]*#.*/, "", node)
				     gsub(/[ \t]+/, " ", node); next }
	     /^\[/ { l = $0; sub(/[ \t]*#.*/, "", l); gsub(/[ \t]+/, " ", l)
		     print node " " l }' "$1" | sort
}

# The LID of CA $2's port 1 in ibnetdiscover output $1: its port line
# [1](guid) "S-..."[n] # lid N lmc 0 ... after "Ca ... # "NAME""
ibnd_ca_lid() {
	awk -v n="\"$2\"" '/^Ca/ { want = index($0, "# " n) > 0; next }
			      want && /^\[1\]/ { sub(/.*# lid /, ""); print $1; exit }' "$1"
}

# The reference: ibsim's view of net file $1, as stock `opensm -o` and
# ibnetdiscover see it from CA $2 over rdma-core's libibumad under
# libumad2sim (not madpmd's drop-in, nor the ASan run's preload),
# normalized into $3. Needs the test's tmp, pids and stop (tap.sh).
# Returns 2 when ibsim or libumad2sim is not installed, 1 when the tools
# did not see ibsim's simulated CA (the view would not be ibsim's).
ibsim_view() {
	local net=$1 host=$2 out=$3 sim i umad2sim sim_env

	umad2sim=$(dpkg -L libumad2sim0 2>/dev/null | grep '/libumad2sim\.so$' | head -n 1)
	command -v ibsim > /dev/null && [ -n "$umad2sim" ] || return 2
	export IBSIM_SOCKNAME=ibsim-$$
	ibsim -s -n "$net" > "$tmp/ibsim.log" 2>&1 < /dev/null &
	sim=$!
	pids+=($sim)
	for i in $(seq 100); do grep -q "simulator ready" "$tmp/ibsim.log" && break; sleep 0.1; done
	sleep 0.2
	rm -rf "$tmp/sim-cache"
	mkdir -p "$tmp/sim-cache"
	sim_env=(env -u LD_LIBRARY_PATH -u MADPMD_RUN_DIR -u MADPMD_NODE
		 OSM_CACHE_DIR="$tmp/sim-cache" OSM_TMP_DIR="$tmp/sim-cache"
		 SIM_HOST="$host" LD_PRELOAD="$umad2sim")
	"${sim_env[@]}" timeout 60 opensm -o -f "$tmp/opensm.sim.log" > /dev/null 2>&1
	"${sim_env[@]}" timeout 60 ibnetdiscover > "$tmp/ibnd.sim" 2> /dev/null
	"${sim_env[@]}" timeout 30 ibstat > "$tmp/ibstat.sim" 2>&1
	stop "$sim"
	topo_norm "$tmp/ibnd.sim" > "$out"
	grep -Eq "(CA|Switch) type: simulator" "$tmp/ibstat.sim" && [ -s "$out" ]
}
