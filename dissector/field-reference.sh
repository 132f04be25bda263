#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Print the madpmd plugin's field reference (markdown) from tshark itself:
#   dissector/field-reference.sh [path/to/madpmd.so] > fields.md
# Runs tshark unprivileged with a private plugin directory.
set -euo pipefail
so=$(realpath "${1:-build-ws/dissector/madpmd.so}")
work=$(mktemp -d /tmp/madpmd-fields.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/p/4.0/epan" "$work/h"
cp "$so" "$work/p/4.0/epan/"
chmod -R a+rwX "$work"
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
"${as_user[@]}" env HOME="$work/h" WIRESHARK_PLUGIN_DIR="$work/p" tshark -G fields |
awk -F'\t' -v OFS='\t' '
# group: madpmd.<x>, or madpmd.<x>.<y> for the attribute/record families
$1 == "F" && $3 ~ /^madpmd\./ {
	n = split($3, part, ".")
	group = "madpmd." part[2]
	if (n > 3 && part[2] ~ /^(sa|smp|perf|cm)$/)
		group = group "." part[3]
	print group, $3, $2, $4
}' | LC_ALL=C sort -t"$(printf '\t')" -k1,1 -k2,2 |
awk -F'\t' '
$1 != last {
	printf "\n#### %s\n\n| Field | Name | Type |\n|---|---|---|\n", $1
	last = $1
}
{ printf "| `%s` | %s | %s |\n", $2, $3, $4 }'
