#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# madpmd's command line and prompt: --help and --version answer without
# EAL (no /var/run/dpdk directory made) and --help names every option of
# the source's option table and every --replay key; an unknown option is
# one line; EAL without --no-huge on a machine without hugepages says to
# add it; the prompt's help, and its answers in order with stdin and
# stdout pipes; show counters on a port with nothing counted says so; a
# --vdev whose probe fails ends the run (exit 1); madpmd's own runtime
# directory goes at exit, and one a SIGKILLed run left goes at the next.
# docs/launcher.md is checked to name the same options and commands.
# Usage: test_cli.sh <madpmd> <source root>
set -u
madpmd=$1
src=$2
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-cli.XXXXXX)
prefix=madpmd-cli-$$
eal_prefixes=($prefix-h $prefix-v $prefix-huge $prefix-i $prefix-l $prefix-s $prefix-vdev)

# the long options of parse_app()'s table, the keys of --replay
opts=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", [a-z_]*_argument.*/\1/p' \
	"$src/pmd/launcher/madpmd.c")
keys=$(sed -n '/^is_opt(/,/^}/p' "$src/pmd/launcher/replay.c" |
	grep -o '"[a-z]*="' | tr -d '"')
[ "$(echo "$opts" | wc -w)" -ge 15 ] && [ "$(echo "$keys" | wc -w)" -ge 6 ]
ok $? "the option table has $(echo "$opts" | wc -w) options, --replay $(echo "$keys" | wc -w) keys"

# 1. --help and --version, with and without EAL options: no EAL at all
"$madpmd" --help > "$tmp/help.out" 2> "$tmp/help.err" &
p=$!
wait $p
rc=$?
[ $rc = 0 ] && [ ! -e "/var/run/dpdk/madpmd-$p" ] && [ ! -s "$tmp/help.err" ]
ok $? "madpmd --help: exit $rc, nothing on stderr, no /var/run/dpdk/madpmd-$p"
"$madpmd" --no-huge --file-prefix=$prefix-h -- --help > "$tmp/help2.out" 2>&1
rc=$?
[ $rc = 0 ] && [ ! -e "/var/run/dpdk/$prefix-h" ] && cmp -s "$tmp/help.out" "$tmp/help2.out"
ok $? "madpmd EAL-options -- --help: the same text, exit $rc, no /var/run/dpdk/$prefix-h"
"$madpmd" --file-prefix=$prefix-h --help > "$tmp/help3.out" 2>&1
rc=$?
[ $rc = 0 ] && [ ! -e "/var/run/dpdk/$prefix-h" ] && cmp -s "$tmp/help.out" "$tmp/help3.out"
ok $? "--help among EAL options (no --): the same, exit $rc"
missing=
for o in $opts; do
	grep -q -- "--$o\b" "$tmp/help.out" || missing+=" --$o"
done
for k in $keys; do
	grep -q -- "$k" "$tmp/help.out" || missing+=" $k"
done
[ -z "$missing" ]
ok $? "--help names every option and replay key${missing:+ (missing:$missing)}"
missing=
for o in $opts; do
	case $o in help|version) continue ;; esac
	grep -q -- "\`--$o" "$src/docs/launcher.md" || missing+=" --$o"
done
[ -z "$missing" ]
ok $? "docs/launcher.md's table names every option${missing:+ (missing:$missing)}"

"$madpmd" --version > "$tmp/ver.out" 2>&1 &
p=$!
wait $p
rc=$?
[ $rc = 0 ] && [ ! -e "/var/run/dpdk/madpmd-$p" ] &&
	grep -Eq '^madpmd [0-9]+\.[0-9]+\.[0-9]+ \(DPDK [0-9.]+' "$tmp/ver.out" &&
	[ "$(wc -l < "$tmp/ver.out")" = 1 ]
ok $? "madpmd --version: \"$(head -1 "$tmp/ver.out")\", exit $rc, no runtime directory"
"$madpmd" --no-huge --file-prefix=$prefix-v -- --version > "$tmp/ver2.out" 2>&1
rc=$?
[ $rc = 0 ] && [ ! -e "/var/run/dpdk/$prefix-v" ] && cmp -s "$tmp/ver.out" "$tmp/ver2.out"
ok $? "madpmd EAL-options -- --version: the same, exit $rc"

# 2. mistakes: one line each, no getopt "--:" prefix, exit 1, no EAL
check_one_line() {
	local what=$1 want=$2 rc
	shift 2
	"$@" > "$tmp/bad.out" 2>&1
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l < "$tmp/bad.out")" = 1 ] &&
		grep -q -- "$want" "$tmp/bad.out" && ! grep -q -- '--:' "$tmp/bad.out" &&
		! grep -q '^EAL' "$tmp/bad.out"
	ok $? "$what: \"$(head -1 "$tmp/bad.out")\" (exit $rc)"
}
check_one_line "an unknown option after --" "unknown option --bogus" \
	"$madpmd" --no-huge --file-prefix=$prefix-h -- --bogus
check_one_line "an unknown option, no EAL options" "unknown option --bogus" \
	"$madpmd" --bogus
check_one_line "an EAL option without --" "EAL options go before --" \
	"$madpmd" --no-huge -m 64
check_one_line "an unknown short option" "unknown option -x" "$madpmd" -- -x
check_one_line "an option without its value" "--topology needs a value" \
	"$madpmd" -- --topology
check_one_line "a stray argument" 'unexpected argument "stray"' \
	"$madpmd" -- stray
[ ! -e "/var/run/dpdk/$prefix-h" ]
ok $? "none of them left /var/run/dpdk/$prefix-h"

# 3. no hugepages and EAL options without --no-huge: the hint
pages=$(awk '/^HugePages_Total:/ {print $2}' /proc/meminfo)
if [ "${pages:-0}" = 0 ]; then
	timeout 60 "$madpmd" -l 0 --no-pci --file-prefix=$prefix-huge -- \
		--run-dir "$tmp/run-huge" > "$tmp/huge.out" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q "^madpmd: no hugepages are reserved.*add --no-huge" "$tmp/huge.out" &&
		[ ! -e "$tmp/run-huge" ]
	ok $? "no hugepages, no --no-huge: exit $rc and $(grep -c -- --no-huge "$tmp/huge.out") line naming --no-huge"
else
	skip "the missing-hugepages hint" "this machine has $pages hugepages"
fi

# 4. a --vdev that does not start ends the run: exit 1, the device named
timeout 60 "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=$prefix-vdev \
	--vdev "net_af_packet0,iface=nosuch-$$" -- --run-dir "$tmp/run-vdev" \
	--duration 1 > "$tmp/vdev.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "^madpmd: --vdev net_af_packet0,iface=nosuch-$$: net_af_packet0 did not start" "$tmp/vdev.out" &&
	[ ! -e "$tmp/run-vdev/hca1" ] && { [ "$(id -u)" != 0 ] || [ ! -e "/var/run/dpdk/$prefix-vdev" ]; }
ok $? "a --vdev whose probe fails (no such interface): exit $rc, $(grep -c 'did not start' "$tmp/vdev.out") line naming it, no runtime directory left"

# a port wired twice, an ethdev carrying two ports: refused, said
wire2() {
	timeout 60 "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=$prefix-vdev \
		--vdev net_null0 --vdev net_null1 -- --run-dir "$tmp/run-wire" \
		--duration 1 "$@" > "$tmp/wire2.out" 2>&1
}
wire2 --wire hca1:1=net_null0 --wire hca1:1=net_null1
rc=$?
[ $rc = 1 ] && grep -q "^madpmd: --wire hca1:1=net_null1: hca1:1 is wired already (to net_null0)" "$tmp/wire2.out"
ok $? "--wire for a port wired already: exit $rc, $(grep -h 'wired already' "$tmp/wire2.out")"
wire2 --wire hca1:1=net_null0 --wire hca2:1=net_null0
rc=$?
[ $rc = 1 ] && grep -q "^madpmd: --wire hca2:1=net_null0: net_null0 carries hca1:1 already" "$tmp/wire2.out"
ok $? "--wire of an ethdev that carries a port already: exit $rc, $(grep -h 'carries' "$tmp/wire2.out")"

# 5. madpmd's own runtime directory (no EAL options: madpmd-<pid>): gone
# after a run, and one a killed run left is removed by the next
if [ "$(id -u)" = 0 ]; then
	"$madpmd" -- --run-dir "$tmp/run-own" > "$tmp/own.out" 2>&1 &
	dead=$!
	eal_prefixes+=(madpmd-$dead)
	for i in $(seq 100); do [ -S "$tmp/run-own/hca2/umad" ] && break; sleep 0.1; done
	kill -9 $dead
	wait $dead 2> /dev/null
	[ -e "/var/run/dpdk/madpmd-$dead/config" ]
	ok $? "a run killed with SIGKILL leaves /var/run/dpdk/madpmd-$dead"
	# a directory is taken for a dead run's once it is 10 s old
	touch -d '1 minute ago' "/var/run/dpdk/madpmd-$dead/config"
	timeout 60 "$madpmd" -- --run-dir "$tmp/run-own2" --duration 1 > "$tmp/own2.out" 2>&1 &
	next=$!
	eal_prefixes+=(madpmd-$next)
	wait $next
	rc=$?
	[ $rc = 0 ] && [ ! -e "/var/run/dpdk/madpmd-$dead" ] && [ ! -e "/var/run/dpdk/madpmd-$next" ] &&
		grep -q "removed [1-9][0-9]* runtime director" "$tmp/own2.out"
	ok $? "the next run removes it, and its own at exit (exit $rc): $(grep -h 'runtime director' "$tmp/own2.out")"
else
	skip "runtime directories of madpmd's own prefix" "not root: they live in \$XDG_RUNTIME_DIR"
fi

# 6. the prompt through pipes
{ echo help; echo "show ports"; echo "show counters hca2"; echo "show counters nosuch"; echo quit; } |
	timeout 60 "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=$prefix-i -- \
		--run-dir "$tmp/run" -i > "$tmp/prompt.out" 2> "$tmp/prompt.log"
rc=$?
ok $rc "madpmd -- -i with stdin and stdout pipes runs the commands and quits (exit $rc)"
[ "$(id -u)" != 0 ] || [ ! -e "/var/run/dpdk/$prefix-i" ]
ok $? "and its runtime directory (--file-prefix=$prefix-i) is gone: EAL leaves it, madpmd removes it"
missing=
for c in "help" "show ports" "show counters" "set link" "capture start" "capture stop" "quit"; do
	grep -q "^  $c" "$tmp/prompt.out" || missing+=" '$c'"
	grep -q "^| \`$c" "$src/docs/launcher.md" || missing+=" '$c' (docs/launcher.md)"
done
[ -z "$missing" ]
ok $? "help lists every command, as docs/launcher.md does${missing:+ (missing:$missing)}"
# each answer between its command's prompt and the next prompt
order=$(awk '
	/^madpmd> help/ { s = "help" } /^  show ports:/ && s == "help" { s = "h" }
	/^madpmd> show ports/ && s == "h" { s = "p" } /^idx +port/ && s == "p" { s = "t" }
	/^madpmd> show counters hca2/ && s == "t" { s = "c" }
	/^hca2: every counter is zero/ && s == "c" { s = "z" }
	/^madpmd> show counters nosuch/ && s == "z" { s = "n" }
	/^no port "nosuch"/ && s == "n" { s = "u" }
	/^madpmd> quit/ && s == "u" { s = "ok" }
	END { print s }' "$tmp/prompt.out")
[ "$order" = ok ]
ok $? "every answer comes after its command and before the next prompt (got to: ${order:-nothing})"
grep -q "^hca2: every counter is zero" "$tmp/prompt.out"
ok $? "show counters with nothing counted says so"

# 7. a line no command takes gets usage; set link takes the peer down too
{ echo "set lnk"; echo "set link hca1:1 sideways"; echo "frobnicate now"
  echo "set link hca1:1 down"; sleep 0.5; echo "show ports"
  echo "set link hca1:1 up"; sleep 1; echo "show ports"; echo quit; } |
	timeout 60 "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=$prefix-l -- \
		--run-dir "$tmp/run" -i > "$tmp/link.out" 2> "$tmp/link.log"
ok $? "a second prompt session runs (exit $?)"
uses=$(grep -c "^usage: set link <node:port> up|down$" "$tmp/link.out")
[ "$uses" = 2 ] && ! grep -q "Bad arguments" "$tmp/link.out"
ok $? "'set lnk' and a bad state print set link's usage, not a bare 'Bad arguments' ($uses)"
grep -q "^frobnicate: no such command (help lists them)$" "$tmp/link.out" &&
	! grep -q "Command not found" "$tmp/link.out"
ok $? "an unknown command is named, with where to look"
st=$(awk '/^madpmd> show ports/ { n++ } n == 1 && $2 ~ /^hca[12]:1$/ { printf "%s=%s/%s ", $2, $5, $6 }' "$tmp/link.out")
[ "$st" = "hca1:1=Down/Disabled hca2:1=Down/Polling " ]
ok $? "set link hca1:1 down: hca1:1 Disabled, and its peer hca2:1 loses its carrier (Down, Polling): $st"
st=$(awk '/^madpmd> show ports/ { n++ } n == 2 && $2 ~ /^hca[12]:1$/ { printf "%s=%s/%s ", $2, $5, $6 }' "$tmp/link.out")
[ "$st" = "hca1:1=Init/LinkUp hca2:1=Init/LinkUp " ]
ok $? "set link hca1:1 up: both ends train again: $st"

# 8. the same with a served CA at the other end (hca2: no ethdev, the lcore
# answers for it), both ways
{ echo "set link hca1:1 down"; sleep 0.5; echo "show ports"
  echo "set link hca1:1 up"; sleep 0.5; echo "show ports"
  echo "set link hca2:1 down"; sleep 0.5; echo "show ports"
  echo "set link hca2:1 up"; sleep 0.5; echo "show ports"; echo quit; } |
	timeout 60 "$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=$prefix-s -- \
		--run-dir "$tmp/run" -i --client-ports 1 > "$tmp/served.out" 2> "$tmp/served.log"
ok $? "a prompt session with hca2 served (--client-ports 1) runs (exit $?)"
st=$(awk '/^madpmd> show ports/ { n++ } n >= 1 && $2 ~ /^hca[12]:1$/ { printf "%s%s=%s/%s/%s", (n > s ? (s = n) > 1 ? "; " : "" : " "), $2, $3, $5, $6 }' "$tmp/served.out")
[ "$st" = "hca1:1=net_hca0/Down/Disabled hca2:1=served/Down/Polling; hca1:1=net_hca0/Init/LinkUp hca2:1=served/Init/LinkUp; hca1:1=net_hca0/Down/Polling hca2:1=served/Down/Disabled; hca1:1=net_hca0/Init/LinkUp hca2:1=served/Init/LinkUp" ]
ok $? "set link down and up on hca1:1, then on the served hca2:1: the other end follows each time ($st)"

tap_done
