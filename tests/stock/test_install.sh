#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# `meson install` puts each piece where its ecosystem looks, the places
# asked of the ecosystems themselves (never written here): DPDK's
# RTE_EAL_PMD_PATH (and the librte_eal stock dpdk-testpmd loads), tshark's
# -G folders, ld.so's search path, pkg-config's pc_path. Three installs:
# - a system one (--prefix=/usr): configured in a temporary build
#   directory, checked through `meson introspect --installed` (nothing is
#   built, nothing is installed into /);
# - a user one (--prefix=<HOME>/.local): configured likewise; nothing may
#   land outside the prefix, and Wireshark's pieces land in that HOME's
#   personal folders;
# - this build directory, staged with `meson install --destdir`: every file
#   where introspection said, nothing outside the prefix (unless it is
#   /usr), the staged madpmd-run finds the staged drop-ins and runs stock
#   ibstat over them against the staged madpmd, the bash completion
#   completes, and (root, in a private mount namespace whose overlay adds
#   the staged PMD to RTE_EAL_PMD_PATH) stock dpdk-testpmd loads net_hca
#   without -d, and madpmd runs beside it.
# Usage: test_install.sh SOURCE_DIR BUILD_DIR
set -u
src=$1
build=$2
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-install.XXXXXX)
chmod 755 "$tmp"
# a sanitized build's runtimes (stock_env) are for what it built, not for
# meson, pkg-config or tshark
san_preload=${LD_PRELOAD:-}
unset LD_PRELOAD
san=(env ${san_preload:+LD_PRELOAD="$san_preload"})

# introspected installs: "destination source" lines
installed() {
	meson introspect "$1" --installed | python3 -c '
import json, sys
for s, d in sorted(json.load(sys.stdin).items(), key=lambda x: x[1]):
	print(d, s)'
}
# the destinations of the installed files named $2 in listing $1
dest_of() {
	awk -v n="$2" '{ k = split($1, p, "/"); if (p[k] == n) print $1 }' "$1"
}
buildopt() {
	meson introspect "$build" --buildoptions | python3 -c '
import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == sys.argv[1]))' "$1"
}

# ---- what the ecosystems say -------------------------------------------
cfg=
for d in $(pkg-config --cflags-only-I libdpdk | sed 's/-I//g'); do
	[ -f "$d/rte_build_config.h" ] && cfg=$d/rte_build_config.h && break
done
pmd_path=$(sed -n 's/^#define RTE_EAL_PMD_PATH "\(.*\)"$/\1/p' "${cfg:-/dev/null}")
dpdk_libdir=$(pkg-config --variable=libdir libdpdk)
eal=$(ldd "$(command -v dpdk-testpmd)" | awk '/librte_eal\.so/ {print $3}')
[ -n "$pmd_path" ] && [ -n "$eal" ] && grep -qaFx "$pmd_path" <(strings "$eal")
ok $? "DPDK's RTE_EAL_PMD_PATH ($pmd_path) is the directory compiled into the librte_eal stock dpdk-testpmd loads ($eal)"
folders=$(tshark -G folders 2>/dev/null)
ws_global=$(awk -F'\t' '/^Global Plugins:/ {print $2}' <<< "$folders")
ws_extcap=$(awk -F'\t' '/^Extcap path:/ {print $2}' <<< "$folders")
# tshark as root ignores personal folders: ask as nobody, with our HOME
home=$tmp/home
mkdir -p "$home"
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
ws_folders=$("${as_user[@]}" env -u XDG_CONFIG_HOME HOME="$home" tshark -G folders 2>/dev/null)
ws_personal=$(awk -F'\t' '/^Personal Plugins:/ {print $2}' <<< "$ws_folders")
# Wireshark 4.0's personal extcap folder: <personal configuration>/extcap
ws_personal_extcap=$(awk -F'\t' '/^Personal configuration:/ {print $2 "/extcap"}' <<< "$ws_folders")
ld_dirs=$(/lib64/ld-linux-x86-64.so.2 --help 2>/dev/null | sed -n 's/^  \(\/.*\) (system search path)$/\1/p')
pc_path=$(pkg-config --variable pc_path pkg-config)
sys_umad=$(ldconfig -p | awk '/libibumad\.so\.3 .*x86-64/ {print $NF; exit}')
completions=/usr/share/bash-completion/completions
pkg-config --exists bash-completion &&
	completions=$(pkg-config --variable=completionsdir bash-completion)
[ -n "$ws_global" ] && [ -n "$ws_extcap" ] && [ -n "$ws_personal" ] && [ -n "$ld_dirs" ]
ok $? "tshark names its plugin folders ($ws_global, personal $ws_personal) and extcap folder ($ws_extcap); ld.so its search path"

# the SDK the build was configured with, so that the copies configure alike
sdk=$(buildopt dpdk_sdk_dir)

# ---- a system install, introspected --------------------------------------
meson setup "$tmp/sys" "$src" --prefix=/usr -Dtests=false ${sdk:+-Ddpdk_sdk_dir="$sdk"} \
	> "$tmp/setup-sys.log" 2>&1
ok $? "meson setup --prefix=/usr in a temporary build directory"
installed "$tmp/sys" > "$tmp/sys.list"
d=$(dest_of "$tmp/sys.list" librte_net_hca.so)
[ "$d" = "$pmd_path/librte_net_hca.so" ]
ok $? "system install: net_hca where EAL loads drivers from without -d ($d)"
d=$(dest_of "$tmp/sys.list" madpmd.so)
[ "$d" = "$ws_global/epan/madpmd.so" ]
ok $? "system install: the plugin in Wireshark's global plugin folder ($d)"
d=$(dest_of "$tmp/sys.list" madpmd-extcap | grep -v bash-completion)
[ "$d" = "$ws_extcap/madpmd-extcap" ]
ok $? "system install: the extcap in Wireshark's extcap folder ($d)"
d=$(dest_of "$tmp/sys.list" libmadpmd.so.0)
grep -qFx "${d%/*}" <<< "$ld_dirs"
ok $? "system install: libmadpmd.so.0 in a directory ld.so searches without ldconfig ($d)"
d=$(dest_of "$tmp/sys.list" libmadpmd.pc)
grep -qFx "${d%/*}" <<< "${pc_path//:/$'\n'}"
ok $? "system install: libmadpmd.pc where pkg-config looks ($d)"
d=$(dest_of "$tmp/sys.list" libibumad.so.3)
r=$(sed -n "s/^\tlibdir='\(.*\)'$/\1/p" "$tmp/sys/lib/umad/madpmd-run")
[ -n "$d" ] && ! grep -qFx "${d%/*}" <<< "$ld_dirs" && [ "${d%/*}" != "${sys_umad%/*}" ] &&
	[ "$r" = "${d%/*}" ]
ok $? "system install: the drop-ins in a private directory, not the system's (${d%/*}; rdma-core's: ${sys_umad%/*}), where madpmd-run looks ($r)"
for c in madpmd madpmd-run; do
	d=$(dest_of "$tmp/sys.list" $c | grep bash-completion)
	[ "$d" = "$completions/$c" ]
	ok $? "system install: bash completion for $c in bash-completion's folder ($d)"
done

# ---- a user install, introspected ----------------------------------------
prefix=$home/.local
# as that user would: their HOME
env -u XDG_CONFIG_HOME HOME="$home" meson setup "$tmp/user" "$src" --prefix="$prefix" -Dtests=false \
	${sdk:+-Ddpdk_sdk_dir="$sdk"} > "$tmp/setup-user.log" 2>&1
ok $? "meson setup --prefix=$prefix in a temporary build directory"
installed "$tmp/user" > "$tmp/user.list"
out=$(awk -v p="$prefix/" -v x="$ws_personal_extcap/madpmd-extcap" \
	'substr($1, 1, length(p)) != p && $1 != x' "$tmp/user.list")
[ -s "$tmp/user.list" ] && [ -z "$out" ]
ok $? "user install: all $(wc -l < "$tmp/user.list") files under the prefix but the extcap's link${out:+; outside: $out}"
d=$(dest_of "$tmp/user.list" madpmd-extcap | grep -v -e bash-completion -e "^$prefix/")
[ -n "$ws_personal_extcap" ] && [ "$d" = "$ws_personal_extcap/madpmd-extcap" ]
ok $? "user install: the extcap linked into Wireshark 4.0's personal extcap folder, as tshark names it ($d)"
d=$(dest_of "$tmp/user.list" madpmd.so)
[ "$d" = "$ws_personal/epan/madpmd.so" ]
ok $? "user install: the plugin in that user's personal plugin folder, as tshark names it ($d)"
d=$(dest_of "$tmp/user.list" librte_net_hca.so)
[ "$d" = "$prefix/$(buildopt libdir)/${pmd_path#"$dpdk_libdir"/}/librte_net_hca.so" ]
ok $? "user install: net_hca at DPDK's PMD path under the prefix, for -d ($d)"
d=$(dest_of "$tmp/user.list" madpmd | grep bash-completion)
[ "$d" = "$home/.local/share/bash-completion/completions/madpmd" ]
ok $? "user install: bash completion in bash-completion's user folder ($d)"

# ---- this build, staged --------------------------------------------------
stage=$tmp/stage
P=$(buildopt prefix)
meson install -C "$build" --destdir "$stage" --no-rebuild > "$tmp/install.log" 2>&1
ok $? "meson install --destdir (prefix $P)"
installed "$build" > "$tmp/build.list"
missing=$(while read -r d s; do [ -e "$stage$d" ] || echo "$d"; done < "$tmp/build.list")
[ -z "$missing" ]
ok $? "every file introspection lists is staged${missing:+; missing: $missing}"
if [ "$P" = /usr ]; then
	skip "nothing staged outside the prefix" "the prefix is /usr: the system layout above applies"
else
	out=$(cd "$stage" && find . ! -type d | sed 's/^\.//' | awk -v p="$P/" 'substr($0, 1, length(p)) != p')
	[ -z "$out" ]
	ok $? "nothing staged outside the prefix $P${out:+: $out}"
fi

# bash completion, from the staged file, without the bash-completion package
comp=$(dest_of "$tmp/build.list" madpmd | grep bash-completion)
r=$(bash -c 'source "$1"; COMP_WORDS=(madpmd --r); COMP_CWORD=1; _madpmd; echo "${COMPREPLY[*]}"' _ "$stage$comp")
[ "$r" = "--run-dir --replay" ]
ok $? "completing 'madpmd --r' gives --run-dir --replay (got: $r)"
r=$(bash -c 'source "$1"; COMP_WORDS=(madpmd -- --link ""); COMP_CWORD=3; _madpmd; echo "${COMPREPLY[*]}"' _ "$stage$comp")
[ "$r" = "ib roce" ]
ok $? "completing 'madpmd -- --link ' gives ib roce (got: $r)"
# every long option of madpmd.c and madpmd-run.sh, and no other
want=$(sed -n '/lopts\[\] = {/,/};/s/^[[:space:]]*{ "\([a-z-]*\)".*/--\1/p' "$src/pmd/launcher/madpmd.c" | sort)
got=$(bash -c 'source "$1"; COMP_WORDS=(madpmd --); COMP_CWORD=1; _madpmd; printf "%s\n" "${COMPREPLY[@]}"' _ "$stage$comp" | sort)
[ -n "$want" ] && [ "$want" = "$got" ]
ok $? "completion offers exactly madpmd's long options ($(echo $want))"
want=$(sed -n 's/^[[:space:]]*\(-h|\)\{0,1\}\(--[a-z-][a-z-]*\))$/\2/p' "$src/lib/umad/madpmd-run.sh" | sort -u)
got=$(bash -c 'source "$1"; COMP_WORDS=(madpmd-run --); COMP_CWORD=1; _madpmd_run; printf "%s\n" "${COMPREPLY[@]}"' _ "$stage$comp" | sort)
[ -n "$want" ] && [ "$want" = "$got" ]
ok $? "completion offers exactly madpmd-run's long options ($(echo $want))"
# madpmd-pktgen's and madpmd-extcap's, each from its own file
for t in "madpmd-pktgen lib/tools/madpmd-pktgen.c _madpmd_pktgen" \
	 "madpmd-extcap dissector/extcap/madpmd-extcap.c _madpmd_extcap"; do
	set -- $t
	c=$(dest_of "$tmp/build.list" "$1" | grep bash-completion)
	want=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", [a-z_]*_argument,.*/--\1/p' "$src/$2" | sort)
	got=$(bash -c 'source "$1"; COMP_WORDS=(x --); COMP_CWORD=1; '"$3"'; printf "%s\n" "${COMPREPLY[@]}"' _ "$stage$c" |
		grep -- '^--' | sort)
	[ -n "$c" ] && [ -n "$want" ] && [ "$want" = "$got" ]
	ok $? "completion for $1 ($c) offers exactly its long options ($(echo $want))"
	r=$("$stage$(dest_of "$tmp/build.list" "$1" | grep -v bash-completion | head -1)" --version 2>&1)
	[ "$r" = "$1 $(meson introspect "$build" --projectinfo | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')" ]
	ok $? "$1 --version: $r"
done
r=$("$stage$P/bin/madpmd-run" --version 2>&1)
[ "${r% *}" = madpmd-run ] && [ -n "${r#madpmd-run }" ]
ok $? "madpmd-run --version: $r"

# man finds the staged pages by name, as it would under the prefix
bad=
for pg in "1 madpmd" "1 madpmd-run" "5 madpmd-topology" "7 net_hca" "3madpmd umad_recv"; do
	MANWIDTH=80 man -M "$stage$P/share/man" $pg 2>/dev/null | grep -q "^NAME" || bad="$bad ${pg#* }"
done
[ -z "$bad" ]
ok $? "man finds madpmd(1), madpmd-run(1), madpmd-topology(5), net_hca(7), umad_recv(3madpmd) in the staged share/man${bad:+; not:$bad}"

run=$stage$P/bin/madpmd-run
umad=$(dest_of "$tmp/build.list" libibumad.so.3)
madpmd=$stage$P/bin/madpmd
export MADPMD_RUN_DIR=$tmp/run
eal_prefixes+=(madpmd-inst-$$ madpmd-inst-ns-$$ madpmd-inst-tp-$$)
"${san[@]}" "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-inst-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" > "$tmp/madpmd.log" 2>&1 &
pids+=($!)
for i in $(seq 100); do [ -s "$MADPMD_RUN_DIR/nodes" ] && break; sleep 0.1; done
# the tool sees one CA, the node madpmd-run selects: madpmd0 on every
# node, or named after the node with --device ''
{ "${san[@]}" "$run" ibstat -l; "${san[@]}" "$run" --node hca2 ibstat -l
  "${san[@]}" "$run" --device '' ibstat -l
  "${san[@]}" "$run" --node hca2 --device '' ibstat -l; } > "$tmp/ibstat.out" 2>&1
[ "$(tr '\n' ' ' < "$tmp/ibstat.out")" = "madpmd0 madpmd0 hca1 hca2 " ]
ok $? "the staged madpmd-run runs stock ibstat -l on each node of the staged madpmd: $(tr '\n' ' ' < "$tmp/ibstat.out")"
r=$("${san[@]}" "$run" printenv LD_LIBRARY_PATH)
[ "$(realpath "${r%%:*}")" = "$(realpath "$stage${umad%/*}")" ]
ok $? "the staged madpmd-run puts the staged drop-ins first on the library path (${r%%:*})"
r=$("$run" ldd "$(command -v ibstat)" | awk '/libibumad\.so\.3/ {print $3}')
[ -n "$r" ] && [ "$(realpath "$r")" = "$(realpath "$stage$umad")" ]
ok $? "under the staged madpmd-run, ibstat binds the staged libibumad.so.3 ($r)"
daemon_stop_check "${pids[-1]}" "$tmp/madpmd.log"
ok $? "the staged madpmd stops cleanly"

# stock testpmd, no -d: the staged PMD added to RTE_EAL_PMD_PATH by a
# read-only overlay in a mount namespace of its own (nothing in / changes;
# EAL refuses drivers under world-writable /tmp, so the layer is in /run)
pmd=$(dest_of "$tmp/build.list" librte_net_hca.so)
layer=
if [ "$(id -u)" = 0 ] && [ -d "$pmd_path" ] && layer=$(mktemp -d /run/madpmd-install.XXXXXX) &&
	cp "$stage$pmd" "$layer/" &&
	unshare -m mount -t overlay overlay -o "lowerdir=$layer:$pmd_path" "$pmd_path" 2>/dev/null; then
	{ echo quit; } | timeout 90 unshare -m sh -c '
		mount -t overlay overlay -o "lowerdir=$1:$2" "$2" || exit 99
		shift 2
		exec "$@"' _ "$layer" "$pmd_path" \
		"${san[@]}" dpdk-testpmd --no-huge --no-pci -m 256 --file-prefix=madpmd-inst-tp-$$ \
		--lcores=0@0,1@0 --no-telemetry --log-level=pmd.net.hca:info \
		--vdev net_hca0,node=installed \
		-- -i --total-num-mbufs=8192 > "$tmp/testpmd.log" 2>&1
	grep -q "net_hca0: port 0 node 'installed'" "$tmp/testpmd.log"
	ok $? "stock dpdk-testpmd, no -d, probes net_hca0 from DPDK's PMD directory"
	# madpmd links net_hca in: EAL loading the installed one too must
	# not get in its way (its own registers first and is the one probed)
	timeout 90 unshare -m sh -c '
		mount -t overlay overlay -o "lowerdir=$1:$2" "$2" || exit 99
		shift 2
		exec "$@"' _ "$layer" "$pmd_path" \
		"${san[@]}" "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-inst-ns-$$ \
		--log-level=lib.eal:debug -- --run-dir "$tmp/run-ns" --duration 2 > "$tmp/madpmd-ns.log" 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q "open shared lib $pmd_path/librte_net_hca.so" "$tmp/madpmd-ns.log" &&
		[ "$(grep -c ' Init .*LinkUp' "$tmp/madpmd-ns.log")" = 2 ]
	ok $? "madpmd, with EAL loading the installed net_hca too, runs its fabric (exit $rc)"
else
	skip "stock dpdk-testpmd loads net_hca without -d" "needs root and an overlay mount in a private mount namespace"
	skip "madpmd runs with net_hca installed in DPDK's PMD directory" "as above"
fi
[ -n "$layer" ] && rm -rf "$layer"
tap_done
