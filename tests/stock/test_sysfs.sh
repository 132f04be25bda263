#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# What a fabric shows outside the channel: the run directory's ports
# file follows the ports (Active once a resident OpenSM brought them up),
# and stock ibstatus (a shell script reading /sys/class/infiniband
# itself) under madpmd-run prints the node's ports with the state, LIDs
# and GID that stock ibstat (through the drop-in libibumad) and the ports
# file give. A command that runs across the SM's bring-up sees the
# change; the host's /sys/class is untouched; as nobody (a user
# namespace) it works too, or says so in one line and runs the command;
# when the daemon stops the ports read DOWN; no watcher outlives its
# command.
# Usage: test_sysfs.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/../common/stage.sh"
. "$(dirname "$0")/../common/pair.sh"

tmp=$(mktemp -d /tmp/madpmd-sysfs.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
chmod 755 "$tmp"
eal_prefixes=(madpmd-sysfs-$$)
export MADPMD_RUN_DIR=$tmp/run
sysfs_bin=$(dirname "$run")/madpmd-sysfs
sysib=/sys/class/infiniband

# the ports file's line of node:port, as "state phys lid smlid"
ports_line() {
	awk -v p="$1" '$2 == p {print $5, $6, $7, $8}' "$MADPMD_RUN_DIR/ports" 2>/dev/null
}

"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-sysfs-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" --umad-mode 0666 > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do
	[ -S "$MADPMD_RUN_DIR/hca2/umad" ] && [ -n "$(ports_line hca2:1)" ] && break
	sleep 0.1
done
chmod 755 "$MADPMD_RUN_DIR" 2>/dev/null
[ "$(ports_line hca2:1)" = "Init LinkUp 0 0" ]
ok $? "before an SM: the ports file has hca2:1 Init, LID 0 ($(ports_line hca2:1))"

"$run" --node hca2 ibstatus > "$tmp/ibstatus.init" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "^Infiniband device 'madpmd0' port 1 status:" "$tmp/ibstatus.init" &&
	grep -q "state:.*2: INIT" "$tmp/ibstatus.init" &&
	[ "$(grep -c '^Infiniband device' "$tmp/ibstatus.init")" = 1 ]
ok $? "stock ibstatus under madpmd-run: hca2 port 1, INIT, the node's one CA (exit $rc)"

# a command that runs across the bring-up: reads INIT, waits for ACTIVE
"$run" --node hca1 sh -c "cat $sysib/madpmd0/ports/1/state > '$tmp/across.before';
	for i in \$(seq 300); do grep -q ACTIVE $sysib/madpmd0/ports/1/state && break; sleep 0.1; done;
	cat $sysib/madpmd0/ports/1/state $sysib/madpmd0/ports/1/lid > '$tmp/across.after'" &
across=$!
pids+=($across)
sleep 0.3

resident_sm hca1 "$tmp/opensm.log"
ok $? "a resident opensm on hca1 reaches SUBNET UP"

# 1. the ports file follows
for i in $(seq 50); do
	case "$(ports_line hca1:1) $(ports_line hca2:1)" in
	"Active "*" Active "*) break ;;
	esac
	sleep 0.1
done
read -r st1 ph1 lid1 sml1 < <(ports_line hca1:1)
read -r st2 ph2 lid2 sml2 < <(ports_line hca2:1)
[ "$st1 $st2" = "Active Active" ] && [ "${lid1:-0}" != 0 ] && [ "${lid2:-0}" != 0 ] &&
	[ "$sml2" = "$lid1" ]
ok $? "the ports file follows: hca1:1 $st1 LID $lid1, hca2:1 $st2 LID $lid2, SM LID $sml2"

wait $across
grep -q "2: INIT" "$tmp/across.before" && grep -q "4: ACTIVE" "$tmp/across.after" &&
	grep -qx "$(printf '0x%x' "${lid1:-0}")" "$tmp/across.after"
ok $? "a command running across the bring-up saw $(head -1 "$tmp/across.before") then $(head -1 "$tmp/across.after") (LID $(sed -n 2p "$tmp/across.after"))"

# 2. stock ibstatus against stock ibstat (the drop-in libibumad)
for node in hca1 hca2; do
	"$run" --node $node ibstatus > "$tmp/ibstatus.$node" 2>&1
	"$run" --node $node ibstat > "$tmp/ibstat.$node" 2>&1
	lid=$(awk '/Base lid:/ {print $3}' "$tmp/ibstat.$node")
	smlid=$(awk '/SM lid:/ {print $3}' "$tmp/ibstat.$node")
	pguid=$(awk '/Port GUID:/ {print $3}' "$tmp/ibstat.$node")
	# GID 0: subnet prefix, then the port GUID in four groups
	g=${pguid#0x}
	want_gid="fe80:0000:0000:0000:${g:0:4}:${g:4:4}:${g:8:4}:${g:12:4}"
	f=$tmp/ibstatus.$node
	grep -q "^Infiniband device 'madpmd0' port 1 status:" "$f" &&
		grep -q "state:.*4: ACTIVE" "$f" && grep -q "phys state:.*5: LinkUp" "$f" &&
		grep -Eq "base lid:[[:space:]]+$(printf '0x%x' "${lid:-0}")\$" "$f" &&
		grep -Eq "sm lid:[[:space:]]+$(printf '0x%x' "${smlid:-0}")\$" "$f" &&
		grep -Eq "default gid:[[:space:]]+$want_gid\$" "$f" &&
		grep -q "link_layer:.*InfiniBand" "$f" && [ -n "$lid" ] && [ "$lid" != 0 ]
	ok $? "ibstatus $node: ACTIVE/LinkUp, base lid $(printf '0x%x' "${lid:-0}") and sm lid $(printf '0x%x' "${smlid:-0}") as ibstat, GID $want_gid"
done
nguid=$(awk '/Node GUID:/ {print $3}' "$tmp/ibstat.hca2")
g=${nguid#0x}
"$run" --node hca2 sh -c "cat $sysib/madpmd0/node_guid $sysib/madpmd0/node_type \
	/sys/class/infiniband_mad/umad0/ibdev /sys/class/infiniband_mad/umad0/port \
	/sys/class/infiniband_mad/abi_version $sysib/madpmd0/ports/1/pkeys/0" > "$tmp/attrs" 2>&1
[ "$(tr '\n' ' ' < "$tmp/attrs")" = "${g:0:4}:${g:4:4}:${g:8:4}:${g:12:4} 1: CA madpmd0 1 5 0xffff " ]
ok $? "node_guid, node_type, infiniband_mad/umad0 and a P_Key as the kernel writes them: $(tr '\n' ' ' < "$tmp/attrs")"

[ ! -e "$sysib/madpmd0" ]
ok $? "outside madpmd-run /sys/class is the host's"
MADPMD_SYSFS=0 "$run" --node hca2 sh -c "[ ! -e $sysib/madpmd0 ]"
ok $? "MADPMD_SYSFS=0: madpmd-run leaves /sys alone"

# 3. as an unprivileged user
if [ "$(id -u)" = 0 ]; then
	nobody_run=$(stage_run "$tmp/bin" "$run")
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		env HOME="$tmp" MADPMD_RUN_DIR="$MADPMD_RUN_DIR" \
		"$nobody_run" --node hca2 sh -c 'id -u; ibstatus' > "$tmp/nobody.out" 2> "$tmp/nobody.err"
	rc=$?
	if grep -q "state:.*4: ACTIVE" "$tmp/nobody.out"; then
		[ "$(head -1 "$tmp/nobody.out")" = 65534 ] && [ ! -s "$tmp/nobody.err" ]
		ok $? "as nobody (a user namespace): ibstatus ACTIVE, the command still runs as uid $(head -1 "$tmp/nobody.out")"
	else
		[ "$(grep -c '^madpmd-run: no /sys/class/infiniband' "$tmp/nobody.err")" = 1 ] &&
			[ "$(head -1 "$tmp/nobody.out")" = 65534 ]
		ok $? "as nobody without user namespaces: one line says so and the command runs ($(head -1 "$tmp/nobody.err"))"
	fi
else
	skip "as nobody" "not root"
fi

# 4. the daemon goes: a command still running sees the ports DOWN
"$run" --node hca1 sleep 60 &
sleeper=$!
pids+=($sleeper)
sleep 0.5
stop $sm
daemon_stop_check $daemon "$tmp/madpmd.log"
ok $? "the daemon stops cleanly"
if [ "$(id -u)" = 0 ]; then
	for i in $(seq 20); do
		st=$(nsenter -t $sleeper -m cat $sysib/madpmd0/ports/1/state 2>&1)
		[ "$st" = "1: DOWN" ] && break
		sleep 0.1
	done
	[ "$st" = "1: DOWN" ]
	ok $? "a command still running reads the ports DOWN once the daemon is gone ($st)"
else
	skip "the ports DOWN after the daemon" "nsenter needs root"
fi
stop $sleeper
sleep 0.6
# (pgrep without the sanitizers the ASan run preloads: it hung in a futex)
# ours only: those of this test's fabric (another user's madpmd-run, from
# the same build tree, has watchers of its own)
left=
for p in $(env -u LD_PRELOAD pgrep -f "^($sysfs_bin|$tmp/bin/madpmd-sysfs) "); do
	tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null |
		grep -qxF "MADPMD_RUN_DIR=$MADPMD_RUN_DIR" && left+="$p "
done
[ -z "$left" ]
ok $? "no madpmd-sysfs watcher outlives its command${left:+ (left: $left)}"
tap_done
