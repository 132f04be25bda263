#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Installing the plugin takes nothing from the stock InfiniBand dissector
# (issue 16, item 1). A copy of the built plugin is put where
# `meson install` puts it (Wireshark's global plugin directory, under a
# private root: WIRESHARK_PLUGIN_DIR points tshark there) and, separately,
# in a user's personal plugin directory (a private HOME). For every sample
# of pcaps/, each stock infiniband.* field (all of them, every occurrence)
# has the same values as with no plugin at all, the stock display filters
# match the same frames, and frame.protocols is the stock one with "madpmd"
# added beside (after "infiniband") on the frames the plugin decodes.
# tshark runs as nobody; only the test's temporary directory is written.
# Usage: test_installed.sh PCAPS_DIR PLUGIN INSTALL_DIR
set -u
pcaps=${1:-}
plugin=${2:-${MADPMD_PLUGIN:-}}
install_dir=${3:-}
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

if [ -z "$plugin" ] || [ ! -r "$plugin" ] || [ -z "$install_dir" ]; then
	echo "1..0 # SKIP no plugin (give PCAPS_DIR PLUGIN INSTALL_DIR, or run through meson test)"
	exit 0
fi
command -v tshark > /dev/null || { echo "1..0 # SKIP tshark is not installed"; exit 0; }

tmp=$(mktemp -d /tmp/madpmd-installed-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
# install_dir is <plugindir>/epan, plugindir <something>/plugins/4.0
sysplug=$tmp/root$install_dir
mkdir -p "$sysplug" "$tmp/none/4.0/epan" "$tmp/home" "$tmp/userhome" \
	"$tmp/userhome/.local/lib/wireshark/plugins/4.0/epan" "$tmp/no-extcap" "$tmp/pcaps"
cp "$plugin" "$sysplug/madpmd.so"
cp "$plugin" "$tmp/userhome/.local/lib/wireshark/plugins/4.0/epan/madpmd.so"
cp "$pcaps"/*.pcapng "$tmp/pcaps/"
chmod -R a+rX "$tmp"
chmod 777 "$tmp/home" "$tmp/userhome"
# WIRESHARK_PLUGIN_DIR replaces the global directory: <root>/.../plugins
sysdir=$(dirname "$(dirname "$sysplug")")

preload=()
if [ -n "${MADPMD_SAN_PRELOAD:-}" ]; then
	preload=(LD_PRELOAD="$MADPMD_SAN_PRELOAD" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
		 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
fi
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
# ts none|system|user ARGS...
ts() {
	local how=$1 e
	shift
	case $how in
	none)   e=(HOME="$tmp/home" WIRESHARK_PLUGIN_DIR="$tmp/none") ;;
	system) e=(HOME="$tmp/home" WIRESHARK_PLUGIN_DIR="$sysdir") ;;
	user)   e=(HOME="$tmp/userhome" WIRESHARK_PLUGIN_DIR="$tmp/none") ;;
	esac
	"${as_user[@]}" env "${e[@]}" WIRESHARK_EXTCAP_DIR="$tmp/no-extcap" \
		"${preload[@]}" tshark "$@" 2>> "$tmp/tshark.err"
}

ts none -G plugins | grep -q madpmd.so
[ $? != 0 ]
ok $? "no plugin: tshark does not load madpmd.so"
for how in system user; do
	ts $how -G plugins | grep -q madpmd.so
	ok $? "$how install: tshark loads madpmd.so"
done

# every field of the stock dissector
ts none -G fields | awk -F'\t' '$1 == "F" && $3 ~ /^infiniband\./ { print $3 }' > "$tmp/fields"
nf=$(wc -l < "$tmp/fields")
[ "$nf" -gt 200 ]
ok $? "the stock dissector has $nf infiniband.* fields"
eargs=()
while read -r f; do eargs+=(-e "$f"); done < "$tmp/fields"

for path in "$tmp"/pcaps/*.pcapng; do
	fn=$(basename "$path")
	# columns 1..nf: the stock fields; then frame.protocols (and, with
	# the plugin, madpmd.mad.method)
	ts none -n -r "$path" -T fields -E occurrence=a "${eargs[@]}" -e frame.protocols \
		> "$tmp/$fn.none"
	cut -f 1-"$nf" "$tmp/$fn.none" > "$tmp/$fn.snone"
	vals=$(grep -c '[^[:space:]]' "$tmp/$fn.snone")
	# the personal directory is the same loader: one sample is enough
	hows=(system)
	[ "$fn" = roce-v2.pcapng ] && hows+=(user)
	for how in "${hows[@]}"; do
		ts $how -n -r "$path" -T fields -E occurrence=a "${eargs[@]}" \
			-e frame.protocols -e madpmd.mad.method > "$tmp/$fn.$how"
		cut -f 1-"$nf" "$tmp/$fn.$how" > "$tmp/$fn.s$how"
		cmp -s "$tmp/$fn.snone" "$tmp/$fn.s$how" && [ "$vals" -gt 0 ]
		ok $? "$fn ($how install): every infiniband.* field as without the plugin ($vals frames with stock values)"
		# the stock protocols, with ":madpmd" added where madpmd decoded
		# (not on native IB exported for the stock dissector: madpmd
		# decodes those as a postdissector, after frame.protocols)
		bad=$(paste <(cut -f $((nf + 1)) "$tmp/$fn.none") \
			    <(cut -f $((nf + 1))- "$tmp/$fn.$how") | awk -F'\t' '
			{ g = $2; sub(/:madpmd$/, "", g) }
			g != $1 || ($3 != "" && $2 !~ /:madpmd$/ &&
				    $2 !~ /^exported_pdu:infiniband/) { print NR ": " $1 " / " $2 }' | head -3)
		[ -z "$bad" ]
		ok $? "$fn ($how install): frame.protocols is the stock one, madpmd added on the frames it decodes${bad:+ ($bad)}"
	done
done

# roce-v2: the RoCE MADs are the stock dissector's and ours
f=$tmp/pcaps/roce-v2.pcapng
if [ -f "$f" ]; then
	for flt in 'infiniband.mad.mgmtclass == 4' 'infiniband.portcounters.portselect'; do
		a=$(ts none -n -r "$f" -Y "$flt" | wc -l)
		b=$(ts system -n -r "$f" -Y "$flt" | wc -l)
		[ "$a" -gt 0 ] && [ "$a" = "$b" ]
		ok $? "roce-v2: -Y '$flt' matches $b frames installed, $a without the plugin"
	done
	p=$(ts system -n -r "$f" -Y 'infiniband && madpmd.icrc.status == 1' | wc -l)
	all=$(ts none -n -r "$f" | wc -l)
	[ "$p" -gt 0 ] && [ "$p" = "$all" ]
	ok $? "roce-v2: $p of $all frames are infiniband and madpmd (ICRC checked) at once"
	prot=$(ts system -n -r "$f" -T fields -e frame.protocols | sort -u)
	[ "$prot" = "eth:ethertype:ip:udp:infiniband:madpmd" ]
	ok $? "roce-v2: frame.protocols $prot"
	# take_roce off: the plugin steps aside
	prot=$(ts system -n -r "$f" -o madpmd.take_roce:FALSE -T fields -e frame.protocols | sort -u)
	[ "$prot" = "eth:ethertype:ip:udp:infiniband" ]
	ok $? "roce-v2, madpmd.take_roce:FALSE: frame.protocols $prot"
fi

if [ -s "$tmp/tshark.err" ] && grep -qv "^Running as user" "$tmp/tshark.err"; then
	sed 's/^/# tshark: /' "$tmp/tshark.err" | sort -u | head -5
fi
echo "1..$n"
exit $fail
