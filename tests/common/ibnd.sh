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
