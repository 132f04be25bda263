#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The first hour of a normal user (nobody when we are root), with nothing
# typed but the commands of the README: no --run-dir, no MADPMD_RUN_DIR,
# no options to tshark. The user's session has an XDG_RUNTIME_DIR (here
# one in our temp dir, as pam_systemd makes /run/user/UID).
# - madpmd puts its run directory in $XDG_RUNTIME_DIR/madpmd, mode 0700;
# - a tool started right after the daemon waits for it ("ready");
# - before any SM, a tool that needs one says "no SM" in one line;
# - `madpmd-run opensm` brings the fabric up and says where it logs (the
#   user cannot write /var/log/opensm.log);
# - tshark -i madpmd-all, run by the user, captures live through the
#   extcap, which finds the fabric by itself;
# - stopping the daemon leaves OpenSM waiting quietly: one ERR 5404, not a
#   flood of them.
# Usage: test_first_hour.sh <madpmd> <madpmd-run> <madpmd-extcap>
set -u
madpmd=$1
run=$2
extcap=$3
here=$(dirname "$0")
. "$here/../common/tap.sh"
. "$here/../common/stage.sh"

tmp=$(mktemp -d /tmp/madpmd-first.XXXXXX)
chmod 755 "$tmp"
mkdir -p "$tmp/home" "$tmp/xdg" "$tmp/extcap" "$tmp/no-plugins" "$tmp/cap"
chmod 700 "$tmp/xdg"
# the build tree may be out of nobody's reach: run copies
srun=$(stage_run "$tmp/stage" "$run")
cp "$madpmd" "$tmp/stage/madpmd" && chmod 755 "$tmp/stage/madpmd"
cp "$extcap" "$tmp/extcap/madpmd-extcap"
chmod 755 "$tmp/extcap" "$tmp/extcap/madpmd-extcap" "$tmp/cap"
as=(env)
if [ "$(id -u)" = 0 ]; then
	as=(setpriv --reuid=nobody --regid=nogroup --clear-groups -- env)
	chown nobody "$tmp/home" "$tmp/xdg" "$tmp/cap"
fi
# the user's session: their HOME and XDG_RUNTIME_DIR, nothing of ours
as+=(-u MADPMD_RUN_DIR -u MADPMD_NODE -u XDG_CONFIG_HOME HOME="$tmp/home"
     XDG_RUNTIME_DIR="$tmp/xdg" PATH="$tmp/stage:$PATH")
uid=$("${as[@]}" id -u)
rd=$tmp/xdg/madpmd

# 1. the daemon, as the README starts it (no EAL options), and a tool at once
"${as[@]}" madpmd -- > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
"${as[@]}" madpmd-run ibstat -l > "$tmp/ibstat.out" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(cat "$tmp/ibstat.out")" = madpmd0 ]
ok $? "madpmd-run ibstat -l, started right after madpmd, waits for it and sees madpmd0 (exit $rc: $(head -c 300 "$tmp/ibstat.out"))"
perm=$(stat -c '%a %u' "$rd" 2>/dev/null)
[ "$perm" = "700 $uid" ] && [ -e "$rd/ready" ] && [ -S "$rd/hca1/umad" ]
ok $? "the run directory is \$XDG_RUNTIME_DIR/madpmd, the user's, mode 0700 ($perm), with ready and the sockets"

# 2. no SM yet: one line says what to do
"${as[@]}" madpmd-run --node hca2 saquery -N > "$tmp/nosm.out" 2>&1
n_hint=$(grep -c "^madpmd: no SM: .*(run madpmd-run opensm)$" "$tmp/nosm.out")
[ "$n_hint" = 1 ]
ok $? "saquery with no SM: one line says \"no SM ... (run madpmd-run opensm)\" ($(grep -m1 'no SM' "$tmp/nosm.out"))"

# 3. OpenSM, plainly
"${as[@]}" madpmd-run opensm > "$tmp/opensm.out" 2>&1 &
sm=$!
pids+=($sm)
osm_log=$rd/opensm-hca1/opensm.log
for i in $(seq 300); do
	[ "$(awk '$2 ~ /^hca[12]:1$/ && $5 == "Active"' "$rd/ports" 2>/dev/null | wc -l)" = 2 ] && break
	sleep 0.1
done
[ "$(awk '$2 ~ /^hca[12]:1$/ && $5 == "Active"' "$rd/ports" 2>/dev/null | wc -l)" = 2 ] &&
	grep -q "^madpmd-run: opensm logs to $osm_log " "$tmp/opensm.out" && [ -s "$osm_log" ]
ok $? "madpmd-run opensm brings both ports to Active and logs to $osm_log, as it says: $(grep -m1 'logs to' "$tmp/opensm.out")"
"${as[@]}" madpmd-run --node hca2 saquery -N > "$tmp/sa.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "NodeDescription" "$tmp/sa.out" && ! grep -q "no SM" "$tmp/sa.out"
ok $? "then saquery -N answers, with no hint (exit $rc)"

# 4. live capture, as that user: tshark finds the extcap and the fabric
"${as[@]}" WIRESHARK_EXTCAP_DIR="$tmp/extcap" WIRESHARK_PLUGIN_DIR="$tmp/no-plugins" \
	tshark -i madpmd-all -a duration:6 -w "$tmp/cap/live.pcapng" > "$tmp/tshark.out" 2>&1 &
ts=$!
pids+=($ts)
for i in $(seq 50); do
	grep -q "Capturing on" "$tmp/tshark.out" && break
	sleep 0.1
done
sleep 1
"${as[@]}" madpmd-run --node hca2 saquery -N > /dev/null 2>&1
wait "$ts"
rc=$?
sa=$("${as[@]}" WIRESHARK_PLUGIN_DIR="$tmp/no-plugins" tshark -r "$tmp/cap/live.pcapng" \
	-Y 'infiniband.mad.mgmtclass == 0x03' 2>/dev/null | wc -l)
[ $rc = 0 ] && [ "$sa" -ge 2 ]
ok $? "tshark -i madpmd-all as the user, no options: saquery's SA MADs in the capture ($sa, exit $rc)"

# 5. the daemon stops: OpenSM waits quietly
daemon_stop_check "$daemon" "$tmp/madpmd.log"
ok $? "madpmd stops cleanly on SIGTERM"
[ ! -e "$rd/ready" ] && [ ! -e "$rd/madpmd.pid" ]
ok $? "ready and madpmd.pid are gone with it"
sleep 1
s0=$(stat -c %s "$osm_log")
sleep 3
s1=$(stat -c %s "$osm_log")
n5404=$(grep -c "ERR 5404" "$osm_log")
kill -0 "$sm" 2>/dev/null && [ $((s1 - s0)) -lt 4096 ] && [ "$n5404" -le 2 ]
ok $? "OpenSM, its daemon gone, waits quietly: its log grew $((s1 - s0)) bytes in 3 s, $n5404 ERR 5404 line(s)"
stop "$sm"
tap_done
