# SPDX-License-Identifier: BSD-3-Clause
# Sourced by tests that run madpmd's programs as another user (nobody):
# the build tree may be out of that user's reach (a clone in a mode-0700
# directory, as mktemp -d makes), so they run copies.
#   stage_run DIR RUN: madpmd-run (RUN) and what it runs from beside it
#     (the drop-in libibumad.so.3, madpmd-sysfs, madpmd-addr, and the
#     build tree's libibverbs.so.1 and librdmacm.so.1 as an install keeps
#     them, in the same directory) copied into DIR, readable by all;
#     prints the copy of madpmd-run
stage_run() {
	local dir=$1 src=${2%/*} f

	mkdir -p "$dir" || return 1
	for f in madpmd-run madpmd-sysfs madpmd-addr libibumad.so.3; do
		cp -L "$src/$f" "$dir/$f" || return 1
	done
	for f in "$src/../verbs/libibverbs.so.1" "$src/../rdmacm/librdmacm.so.1"; do
		[ -e "$f" ] && { cp -L "$f" "$dir/" || return 1; }
	done
	chmod 755 "$dir"
	echo "$dir/madpmd-run"
}
