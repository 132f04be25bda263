#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Hostile clients against the daemon's guarantees (pmd/chan, pmd/mad):
# garbage on the control socket, silent connections past the descriptor
# limit, a client's shares (outstanding sends, RMPP transfers and bytes),
# fairness between send rings, sessions per process, per user and per
# port (a second user, nobody, beside root), ring
# positions overwritten, clients killed in the middle of RMPP, OpenSM
# killed, duplicate TIDs, full receive rings and unserved classes. The
# default fabric (hca1 -- hca2) runs with 256 descriptors and stock OpenSM
# as its SM; after each attack stock infiniband-diags must still get the
# right answers, and at the end the daemon must exit 0 on SIGTERM with no
# sanitizer report.
# Usage: test_hostile.sh <madpmd> <madpmd-run> <chan_attack>
set -u
madpmd=$1
run=$2
attack=$3
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-hostile.XXXXXX)
prefix=madpmd-hostile-$$
eal_prefixes=($prefix)
export MADPMD_RUN_DIR=$tmp/run
# OpenSM's caches and dumps stay in the test's directory
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
began=$SECONDS
# a sanitized build: stock_env (tests/pmd/meson.build) preloads its runtime
sanitized=
case ${LD_PRELOAD:-} in *libasan*) sanitized=1 ;; esac

# ---- helpers ----------------------------------------------------------------

# wait up to $3 tenths of a second for pattern $2 in file $1
wait_for() {
	local i
	for i in $(seq "$3"); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}

# stop one process this test started, and forget it
stop_one() {
	local p=$1 i keep=()
	stop "$p"
	for i in "${pids[@]}"; do [ "$i" = "$p" ] || keep+=("$i"); done
	pids=("${keep[@]}")
}

# stop everything this test started but the daemon and OpenSM
stop_clients() {
	local p
	for p in "${pids[@]}"; do
		[ "$p" = "$daemon" ] || [ "$p" = "${sm:-}" ] || stop_one "$p"
	done
}

# DPDK telemetry, as dpdk-telemetry.py -f $prefix (docs/launcher.md)
# speaks it, without a Python start-up per question
tel() {
	timeout 10 "$attack" telemetry "/var/run/dpdk/$prefix/dpdk_telemetry.v2" "$1" 2>/dev/null
}

# an xstat of a port, by its name in /madpmd/ports (hca1/1)
declare -A ethdev
xstat() {
	[ -n "${ethdev[$1]:-}" ] || return 1
	tel "/ethdev/xstats,${ethdev[$1]}" | grep -o "\"$2\": *[0-9]*" | grep -o '[0-9]*$'
}

rss_kb() {
	awk '/^VmRSS/ {print $2}' "/proc/$daemon/status"
}

rss_anon_kb() {
	awk '/^RssAnon/ {print $2}' "/proc/$daemon/status"
}

# the daemon's own heap: RSS less DPDK's memory, which grows as its
# pools are first touched, and less the clients' rings
rss_anon_kb() {
	awk '/^RssAnon/ {print $2}' "/proc/$daemon/status"
}

# clients' rings the daemon has mapped (memfd "madpmd-umad")
ring_maps() {
	grep -c "madpmd-umad" "/proc/$daemon/maps"
}

# where the time goes, as a TAP comment
section() {
	echo "# $1 (at $((SECONDS - began)) s)"
}

# ms since the epoch
now() {
	date +%s%3N
}

# stock smpquery from node $1: NodeInfo of LID $2 shows GUID $3
nodeinfo_is() {
	"$run" --node "$1" smpquery nodeinfo "$2" > "$tmp/ni.out" 2>&1 &&
		grep -q "^Guid:\.*$3$" "$tmp/ni.out"
}

# PortInfo:CapabilityMask of LID $1, as hca2 sees it
capmask() {
	"$run" --node hca2 smpquery portinfo "$1" 2>/dev/null | awk -F. '/^CapMask/ {print $NF}'
}

# wait up to $2 tenths for IsSM (bit 1) on LID $1 to be $3 (1 or 0)
wait_issm() {
	local i cm
	for i in $(seq "$2"); do
		cm=$(capmask "$1")
		[ -n "$cm" ] && [ $(( (cm & 2) != 0 )) = "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# a resident OpenSM on hca1; its PID in $sm
start_sm() {
	# -d2: its log flushed at each line, so that we see SUBNET UP
	"$run" --node hca1 opensm -d2 -f "$tmp/$1" > /dev/null 2>&1 &
	sm=$!
	pids+=($sm)
	wait_for "$tmp/$1" "SUBNET UP" 150
}

# utime + stime (ticks) of the daemon's channel threads
chan_ticks() {
	local t sum=0
	for t in /proc/$daemon/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in
		hca-chan-*) sum=$((sum + $(awk '{print $14 + $15}' "$t/stat"))) ;;
		esac
	done
	echo $sum
}

# ---- the fabric ---------------------------------------------------------------

# 256 descriptors (check 2); the daemon's own leaks are ours to report
daemon_asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1
# sockets another user may open too (the sessions of two users, below)
chmod 755 "$tmp"
(
	ulimit -n 256 || exit 1
	ASAN_OPTIONS=$daemon_asan exec "$madpmd" --no-huge --no-pci -m 256 -l 0,1 \
		--file-prefix=$prefix --log-level=pmd.net.hca:info -- \
		--run-dir "$MADPMD_RUN_DIR" --umad-mode 0666
) > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
[ -S "$MADPMD_RUN_DIR/hca1/umad" ] && [ -S "$MADPMD_RUN_DIR/hca2/umad" ] &&
	[ "$(awk '/^Max open files/ {print $4}' /proc/$daemon/limits)" = 256 ]
ok $? "madpmd runs the default fabric with 256 descriptors"
# the ethdev behind each port (the launcher names them once it runs)
for p in hca1/1 hca2/1; do
	for i in $(seq 50); do
		ethdev[$p]=$(tel /madpmd/ports | grep -o "\"$p\": *{\"ethdev_port\": *[0-9]*" | grep -o '[0-9]*$')
		[ -n "${ethdev[$p]}" ] && break
		sleep 0.1
	done
done

timeout 60 "$run" opensm -d2 -o -f "$tmp/opensm-once.log" > /dev/null 2>&1
for node in hca1 hca2; do "$run" --node $node ibstat > "$tmp/ibstat.$node" 2>&1; done
lid1=$(awk '/Base lid/ {print $3}' "$tmp/ibstat.hca1")
lid2=$(awk '/Base lid/ {print $3}' "$tmp/ibstat.hca2")
guid1=$(awk '/Node GUID/ {print $3}' "$tmp/ibstat.hca1")
guid2=$(awk '/Node GUID/ {print $3}' "$tmp/ibstat.hca2")
start_sm opensm.log
[ "${lid1:-0}" != 0 ] && [ "${lid2:-0}" != 0 ] && [ -n "$guid2" ] &&
	"$run" --node hca2 sminfo 2>/dev/null | grep -q "sm lid $lid1 .*SMINFO_MASTER"
ok $? "stock OpenSM brings it up and stays as SM (hca1 LID $lid1, hca2 LID $lid2)"

section "the control socket"

for c in garbage short big early hello2 badlen unknown; do
	"$run" --node hca2 "$attack" sock $c > "$tmp/sock.out" 2>&1
	ok $? "control socket, $(cat "$tmp/sock.out")"
done
kill -0 $daemon 2>/dev/null && nodeinfo_is hca1 "$lid2" "$guid2"
ok $? "the daemon stays up: smpquery nodeinfo $lid2 shows hca2's GUID $guid2"

section "the outstanding share"

"$run" --node hca2 "$attack" hog-out 0x777 > "$tmp/hog.out" 2>&1 &
hog=$!
pids+=($hog)
wait_for "$tmp/hog.out" holding 100
us=$(sed -n 's/^sent 256, then umad_send -5 errno Cannot allocate memory in \([0-9]*\) us$/\1/p' "$tmp/hog.out")
[ -n "$us" ] && [ "$us" -lt 100000 ]
ok $? "a client's requests to LID 0x777: $(grep ^sent "$tmp/hog.out") (at once)"
t0=$(now)
nodeinfo_is hca2 "$lid1" "$guid1"
ok $? "while it holds them, stock smpquery from the same port gets hca1's GUID ($(( $(now) - t0 )) ms)"
stop_one $hog
q0=$(xstat hca2/1 chan_quota)
"$run" --node hca2 "$attack" raw-over 0x777 300 > "$tmp/raw.out" 2>&1
rc=$?
q1=$(xstat hca2/1 chan_quota)
[ $rc = 0 ] && [ $(( ${q1:-0} - ${q0:-0} )) -ge 44 ]
ok $? "a raw client ignoring its share: $(cat "$tmp/raw.out"); xstat chan_quota ${q0:-?} -> ${q1:-?}"

section "a duplicate TID"

"$run" --node hca2 "$attack" duptid "$lid1" > "$tmp/dup.out" 2>&1
ok $? "one TID sent twice while the first waits: $(cat "$tmp/dup.out")"
"$run" --node hca2 "$attack" raw-dup 0x777 > "$tmp/rawdup.out" 2>&1
ok $? "the same from a raw client: $(cat "$tmp/rawdup.out")"

section "wake-ups"

# every answer must wake whoever waits for it, whichever way it waits; a
# lost one shows as a wait of a second (the daemon writes no eventfd while
# a client spins, and the client then makes its fd readable itself)
for spin in 50 0; do
	MADPMD_UMAD_SPIN_US=$spin "$run" --node hca2 "$attack" wakeups "$lid1" 40000 > "$tmp/wk.out" 2>&1
	ok $? "40,000 requests to hca1, 1-32 in flight, spin ${spin} us: $(cat "$tmp/wk.out")"
done

# the client on the lcore's CPU (-l 0,1: the lcore has CPU 1): each
# waits for the other to be switched in, and the two hand over by
# yielding (madpmd/chan.h, "Sharing a CPU"); the lcore says how often at
# exit, checked at the end
MADPMD_UMAD_SPIN_US=50 taskset -c 1 "$run" --node hca2 "$attack" wakeups "$lid1" 40000 > "$tmp/wk.out" 2>&1
ok $? "the same pinned to the lcore's CPU: $(cat "$tmp/wk.out")"

section "a class nobody serves"

u0=$(xstat hca1/1 mad_unmatched)
"$run" --node hca2 "$attack" unmatched "$lid1" > "$tmp/unm.out" 2>&1
ok $? "a vendor Get nobody serves is answered at once: $(cat "$tmp/unm.out")"
# ibsysstat checks only the umad status, not the MAD's, so over the
# kernel too its ping "succeeds" against such an answer; what matters is
# that it hears at once instead of waiting out its time-out
t0=$(now)
"$run" --node hca2 ibsysstat "$lid1" > "$tmp/sys.out" 2>&1
rc=$?
t_sys=$(( $(now) - t0 ))
t0=$(now)
"$run" --node hca2 ibccquery -e CongestionInfo "$lid1" > "$tmp/cc.out" 2>&1
rc_cc=$?
t_cc=$(( $(now) - t0 ))
u1=$(xstat hca1/1 mad_unmatched)
[ $t_sys -lt 500 ] && [ $(( ${u1:-0} - ${u0:-0} )) -ge 3 ]
ok $? "stock ibsysstat $lid1 (no server) is answered in $t_sys ms (exit $rc); xstat mad_unmatched ${u0:-?} -> ${u1:-?}"
[ $t_cc -lt 500 ] && [ $rc_cc != 0 ] && grep -q "error status 0xc;" "$tmp/cc.out"
ok $? "stock ibccquery CongestionInfo $lid1 fails in $t_cc ms: $(grep -o "MAD completed with error status 0xc" "$tmp/cc.out")"

section "a receive ring nobody empties"

r0=$(xstat hca2/1 chan_ring_full)
"$run" --node hca2 "$attack" ringfull hca1 "$lid2" 30000 > "$tmp/rf.out" 2>&1
rc=$?
r1=$(xstat hca2/1 chan_ring_full)
[ $rc = 0 ] && [ "${r1:-0}" -gt "${r0:-0}" ]
ok $? "30000 MADs from hca1 for an agent that never reads: xstat chan_ring_full ${r0:-?} -> ${r1:-?}"

section "fairness between send rings"

# one client to a LID nobody has (frames on the wire), one to its own
# SMA (answered on the port: no frame), then two of those
for flood in "0x777" "$lid1" "$lid1 $lid1"; do
	fl=()
	for target in $flood; do
		"$run" --node hca1 "$attack" flood "$target" 60 > "$tmp/flood.out" 2>&1 &
		fl+=($!)
		pids+=($!)
	done
	wait_for "$tmp/flood.out" flooding 50
	sleep 0.3
	good=0
	bad=0
	worst=0
	t0=$(now)
	# each must be answered within its own time-out (1 s), not by a
	# retry; three that are not say enough (each costs seconds)
	for i in $(seq 20); do
		t1=$(now)
		"$run" --node hca2 perfquery "$lid1" > /dev/null 2>&1 && good=$((good + 1))
		t1=$(( $(now) - t1 ))
		[ $t1 -gt $worst ] && worst=$t1
		[ $t1 -lt 1000 ] || bad=$((bad + 1))
		[ $bad -lt 3 ] || break
	done
	t_pq=$(( $(now) - t0 ))
	kill -0 $daemon 2>/dev/null && [ $good = 20 ] && [ $worst -lt 1000 ]
	ok $? "${#fl[@]} client(s) of hca1 $(head -1 "$tmp/flood.out") without pause: $good of $i stock perfquery $lid1 from hca2 answered, the slowest in $worst ms ($t_pq ms in all)"
	for f in "${fl[@]}"; do stop_one $f; done
done

section "sessions per process and per port"

"$run" --node hca2 "$attack" sessions 100 > "$tmp/sess.0" 2>&1 &
pids+=($!)
wait_for "$tmp/sess.0" holding 100
grep -q "^opened 16$" "$tmp/sess.0" && grep -q "^refused: .*Too many open files" "$tmp/sess.0"
ok $? "one process opening ports in a loop: $(grep ^opened "$tmp/sess.0"), then $(grep ^refused "$tmp/sess.0")"
nodeinfo_is hca2 "$lid1" "$guid1"
ok $? "meanwhile another process opens one and queries (smpquery from hca2)"
# a user holds 48 of a port's 64 sessions at most: three processes of
# 16; a fourth of the same user opens none, another user's 16 more; then
# the port is full for everyone
for i in 1 2 3; do
	"$run" --node hca2 "$attack" sessions 16 > "$tmp/sess.$i" 2>&1 &
	pids+=($!)
	wait_for "$tmp/sess.$i" holding 100
done
held=$(cat "$tmp"/sess.[0-3] | awk '/^opened/ {n += $2} END {print n}')
[ "$held" = 48 ] && grep -q "^opened 0$" "$tmp/sess.3" && grep -q "^refused: .*Too many users" "$tmp/sess.3"
ok $? "one user's four processes hold $held sessions of hca2, its share; the fourth opens none: $(grep ^refused "$tmp/sess.3")"
if [ "$(id -u)" = 0 ]; then
	# user nobody, able to search the directories above the build tree
	# (a clone in a mktemp -d); no sysfs view (its user namespace would
	# drop that capability)
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--inh-caps=+dac_read_search --ambient-caps=+dac_read_search -- \
		env HOME="$tmp" MADPMD_SYSFS=0 "$run" --node hca2 "$attack" sessions 16 \
		> "$tmp/sess.5" 2>&1 &
	pids+=($!)
	wait_for "$tmp/sess.5" holding 100
	grep -q "^opened 16$" "$tmp/sess.5"
	ok $? "meanwhile another user (nobody) opens its 16: $(grep ^opened "$tmp/sess.5")"
	"$run" --node hca2 "$attack" sessions 1 > "$tmp/sess.4" 2>&1 &
	pids+=($!)
	wait_for "$tmp/sess.4" holding 100
	held=$(cat "$tmp"/sess.[0-35] | awk '/^opened/ {n += $2} END {print n}')
	[ "$held" = 64 ] && grep -q "^opened 0$" "$tmp/sess.4"
	ok $? "two users hold $held sessions of hca2; one more is refused: $(grep ^refused "$tmp/sess.4")"
else
	skip "another user's sessions beside" "not root: one user only"
	skip "the port full" "not root: one user holds 48 of 64"
fi
stop_clients
sleep 0.3
nodeinfo_is hca2 "$lid1" "$guid1"
ok $? "once they are gone, hca2 serves new sessions again"

section "shared memory a session uses"

# 30,000 requests and answers write 10 MB through each ring of a session
# (16 in flight, so that the rings are often empty, not always): with
# rings that wrap, every page of the 16 MiB memfd gets touched; with rings
# that start again when empty, what the session uses stays resident
for i in 1 2 3 4; do
	"$run" --node hca2 "$attack" pingpong "$lid1" 30000 > "$tmp/pp.$i" 2>&1 &
	pids+=($!)
done
for i in 1 2 3 4; do wait_for "$tmp/pp.$i" holding 600; done
# (bash, not awk: under ASan's LD_PRELOAD mawk trips over its own bug;
# from a copy: bash reads a line at a time and seeks back, and each seek
# in /proc/PID/smaps makes the file again up to there, over 100 s for the
# 31,000 lines of an ASan daemon's)
cat "/proc/$daemon/smaps" > "$tmp/smaps"
shm_kb=0
m=0
while read -r k v rest; do
	case $k in
	Rss:) [ $m = 1 ] && shm_kb=$((shm_kb + v)) ;;
	*-*) case $rest in *memfd:madpmd-umad*) m=1 ;; *) m=0 ;; esac ;;
	esac
done < "$tmp/smaps"
nshm=$(grep -c 'memfd:madpmd-umad' "/proc/$daemon/maps")
[ "$(cat "$tmp"/pp.[1-4] | grep -c '^answered 30000 of 30000')" = 4 ] &&
	[ "$nshm" -ge 4 ] && [ "$shm_kb" -le $(( nshm * 3 * 1024 )) ]
ok $? "4 clients after 30,000 answered requests each: $nshm session memfds hold $shm_kb KiB resident of $(( nshm * 16 )) MiB"
stop_clients

section "ring positions overwritten"

"$run" --node hca2 "$attack" scribble > "$tmp/scribble.out" 2>&1
rc=$?
while read -r line; do
	case $line in
	*": working;"* | *": cut-off;"* | *": refused by its own ring;"*)
		ok 0 "ring position overwritten, $line" ;;
	*) ok 1 "ring position overwritten, $line (neither cut off nor working)" ;;
	esac
done < <(grep ': .*; bystander' "$tmp/scribble.out")
# the helper has 13 cases (chan_attack.c's scribbles[]): a helper that
# reports none must not pass for one whose cases all went well
[ "$(grep -c ': .*; bystander' "$tmp/scribble.out")" = 13 ]
ok $? "all 13 ring-position cases reported ($(grep -c ': .*; bystander' "$tmp/scribble.out"))"
[ $rc = 0 ] && ! grep -q "NOT answered" "$tmp/scribble.out" &&
	kill -0 $daemon 2>/dev/null && nodeinfo_is hca1 "$lid2" "$guid2"
ok $? "the daemon survives the scribbling and others get right answers (helper exit $rc)"

section "HELLO's pipes filled and made blocking"

# O_NONBLOCK belongs to an open file: a client that shared one with the
# daemon could make the daemon's next write (its wake-up) or read (the
# lcore's doorbell) block, and every client of the port would hang
"$run" --node hca2 "$attack" fds 64 > "$tmp/fds.out" 2>&1
rc=$?
echo "# $(head -1 "$tmp/fds.out")"
[ $rc = 0 ] && grep -q "bystander's Get answered" "$tmp/fds.out"
ok $? "a client that fills its pipes, makes them blocking and reads its own doorbell: $(head -1 "$tmp/fds.out") (exit $rc)"
kill -0 $daemon 2>/dev/null && nodeinfo_is hca1 "$lid2" "$guid2"
ok $? "then the daemon still serves stock smpquery from the other node"

section "The doorbell: the sleeping lcore's alone to read"

# a byte read by anyone but the lcore before its epoll looked at the
# ring left it asleep with a send queued (madpmd/chan.h, "Doorbell")
"$run" --node hca2 "$attack" doorbell > "$tmp/db.out" 2>&1
rc=$?
[ $rc = 0 ]
ok $? "uncounted rings stay, a counted one is read back by the lcore: $(head -1 "$tmp/db.out") (exit $rc)"

section "RMPP: the transfers and bytes of a share"

rss0=$(rss_kb)
"$run" --node hca2 "$attack" rmpp-hog 0x777 300 $(( (2 << 20) - 64 )) > "$tmp/rh.out" 2>&1 &
rh=$!
pids+=($rh)
wait_for "$tmp/rh.out" holding 600
rss1=$(rss_kb)
taken=$(sed -n 's/.*bytes: \([0-9]*\) taken.*/\1/p' "$tmp/rh.out")
at_once=$(sed -n 's/.*taken, \([0-9]*\) refused at once.*/\1/p' "$tmp/rh.out")
slowest=$(sed -n 's/.*the slowest in \([0-9]*\) us.*/\1/p' "$tmp/rh.out")
later=$(sed -n 's/.*handed back later: \([0-9]*\) ENOMEM.*/\1/p' "$tmp/rh.out")
echo "# $(head -1 "$tmp/rh.out")"
[ -n "$taken" ] && [ "$taken" -le 8 ] && [ $(( taken + at_once + later )) = 300 ]
ok $? "300 RMPP sends of 2 MiB to LID 0x777: ${taken:-?} taken (16 MiB share), the rest refused with ENOMEM"
[ -n "$at_once" ] && [ "$at_once" = $(( 300 - taken )) ] && [ "${slowest:-0}" -lt 100000 ]
ok $? "and refused at once by umad_send(): ${at_once:-?} at once (the slowest in ${slowest:-?} us), ${later:-?} handed back later"
# no malloc() on this path any more (the transfers run in the client's
# arena), so ASan's quarantine does not count here either
[ $(( rss1 - rss0 )) -lt 65536 ]
ok $? "the daemon's RSS grows by $(( (rss1 - rss0) / 1024 )) MiB meanwhile"
"$run" --node hca2 saquery -N > "$tmp/sa.2" 2>&1
"$run" --node hca1 saquery -N > "$tmp/sa.1" 2>&1
[ "$(grep -c 'NodeRecord dump' "$tmp/sa.2")" = 2 ] && [ "$(grep -c 'NodeRecord dump' "$tmp/sa.1")" = 2 ]
ok $? "meanwhile stock saquery -N gets every NodeRecord, from hca2 (RMPP over the wire) and hca1"
stop_one $rh
"$run" --node hca2 "$attack" sa-loop "$lid1" 20 > "$tmp/saloop.out" 2>&1
ok $? "one session receives 20 RMPP responses in a row: $(tail -1 "$tmp/saloop.out")"
# transfers that are over give their pages back while the client stays
anon0=$(rss_anon_kb)
"$run" --node hca2 "$attack" rmpp-hog 0x777 8 $(( (2 << 20) - 64 )) 50 > "$tmp/rt.out" 2>&1 &
rt=$!
pids+=($rt)
for i in $(seq 20); do
	anon1=$(rss_anon_kb)
	[ $(( anon1 - anon0 )) -ge 12288 ] && break
	sleep 0.05
done
wait_for "$tmp/rt.out" holding 600
sleep 3
anon2=$(rss_anon_kb)
[ $(( anon1 - anon0 )) -ge 12288 ] && [ $(( anon2 - anon0 )) -lt 4096 ]
ok $? "8 RMPP sends of 2 MiB that time out: the daemon's anonymous memory $(( (anon1 - anon0) / 1024 )) MiB more while they run, $(( (anon2 - anon0) / 1024 )) MiB more 3 s after (the client still there)"
stop_one $rt

section "clients killed in the middle of RMPP"

"$run" --node hca1 "$attack" serve > "$tmp/serve.out" 2>&1 &
srv=$!
pids+=($srv)
wait_for "$tmp/serve.out" serving 50
# the allocator's first growth is not what we measure
if [ -z "$sanitized" ]; then
	"$run" --node hca2 "$attack" victims 30 "$lid1" > /dev/null 2>&1
	sleep 0.5
fi
rss0=$(rss_kb)
anon0=$(rss_anon_kb)
maps0=$(ring_maps)
"$run" --node hca2 "$attack" victims 100 "$lid1" > "$tmp/victims.out" 2> "$tmp/victims.err"
rc=$?
sleep 1
rss1=$(rss_kb)
anon1=$(rss_anon_kb)
maps1=$(ring_maps)
gone=0
for v in $(cat "$tmp/victims.out"); do
	grep -q "client pid $v gone" "$tmp/madpmd.log" && gone=$((gone + 1))
done
[ $rc = 0 ] && [ $gone = 100 ]
ok $? "100 RMPP clients SIGKILLed in their transfers: $gone 'gone' lines in the log"
[ "$maps1" = "$maps0" ]
ok $? "no ring of theirs is left mapped in the daemon ($maps0 -> $maps1 rings of live clients)"
if [ -n "$sanitized" ]; then
	skip "the daemon's heap is back where it was" \
		"under ASan RSS is its quarantine (${anon0} -> ${anon1} kB); LeakSanitizer checks at exit"
else
	[ $(( anon1 - anon0 )) -lt 4096 ]
	ok $? "the daemon's heap is back where it was: RssAnon ${anon0} -> ${anon1} kB (VmRSS ${rss0} -> ${rss1} kB)"
fi
nodeinfo_is hca2 "$lid1" "$guid1" && "$run" --node hca2 saquery -N 2>/dev/null | grep -c "NodeRecord dump" | grep -qx 2
ok $? "stock smpquery and saquery still answer"
stop_one $srv

section "OpenSM killed"

wait_issm "$lid1" 30 1
ok $? "IsSM is set on hca1 while OpenSM holds its ISSM device (CapMask $(capmask "$lid1"))"
kill -KILL $sm
wait $sm 2>/dev/null
stop_one $sm
wait_issm "$lid1" 30 0
ok $? "OpenSM SIGKILLed: IsSM clears (CapMask $(capmask "$lid1"))"
start_sm opensm2.log
up=$?
wait_issm "$lid1" 30 1
issm=$?
"$run" --node hca2 sminfo > "$tmp/sminfo.out" 2>&1
[ $up = 0 ] && [ $issm = 0 ] && grep -q "sm lid $lid1 .*SMINFO_MASTER" "$tmp/sminfo.out"
ok $? "a new OpenSM takes over: SUBNET UP ($up), IsSM ($issm, CapMask $(capmask "$lid1")), $(cat "$tmp/sminfo.out")"

section "silent connections and running out of descriptors"

"$run" --node hca1 "$attack" silent 2000 6 > "$tmp/silent.out" 2>&1 &
sil=$!
pids+=($sil)
sleep 0.3
good=0
t0=$(now)
for i in 1 2 3 4 5; do
	nodeinfo_is hca1 "$lid2" "$guid2" && good=$((good + 1))
	"$run" --node hca1 perfquery "$lid2" > /dev/null 2>&1 && good=$((good + 1))
done
t_q=$(( $(now) - t0 ))
wait $sil
stop_one $sil
sed 's/^/# /' "$tmp/silent.out"
[ $good = 10 ]
ok $? "during a flood of connections that never say HELLO on hca1, stock smpquery and perfquery from hca1 answer: $good of 10 ($t_q ms)"
read -r connects after late < <(awk '/^connects/ {print $2, $8, $10}' "$tmp/silent.out")
[ "${connects:-0}" -ge 2000 ]
ok $? "the daemon took ${connects:-?} of them, more than its 256 descriptors"
[ -n "${after:-}" ] && [ "$after" -le 32 ] && [ "${late:-1}" = 0 ]
ok $? "it held at most 32 at the end (${after:-?}), none after their second (${late:-?})"

# now every descriptor: sessions (16 per process, 64 per port) on both
# ports, and connections that never say HELLO on hca2; meanwhile the
# holder of hca1's ISSM device (a plain process, so that its going frees
# no descriptor) goes
stop_one $sm
for i in $(seq 30); do [ -p "$MADPMD_RUN_DIR/hca1/issm" ] && break; sleep 0.1; done
sleep 600 < "$MADPMD_RUN_DIR/hca1/issm" &
holder=$!
pids+=($holder)
wait_issm "$lid1" 30 1
issm_up=$?
i=0
as_other=()
[ "$(id -u)" = 0 ] && as_other=(setpriv --reuid=nobody --regid=nogroup --clear-groups
	--inh-caps=+dac_read_search --ambient-caps=+dac_read_search -- env HOME="$tmp"
	MADPMD_SYSFS=0)
for node in hca2 hca2 hca2 hca2 hca1 hca1 hca1 hca1; do
	i=$((i + 1))
	# a port's fourth 16 sessions are another user's (48 a user)
	if [ $((i % 4)) = 0 ]; then
		"${as_other[@]}" "$run" --node $node "$attack" sessions 16 > "$tmp/fill.$i" 2>&1 &
	else
		"$run" --node $node "$attack" sessions 16 > "$tmp/fill.$i" 2>&1 &
	fi
	pids+=($!)
done
for f in "$tmp"/fill.*; do wait_for "$f" holding 100; done
"$run" --node hca2 "$attack" silent 1000000 4 > "$tmp/silent2.out" 2>&1 &
sil=$!
pids+=($sil)
sleep 1
cleared=$(grep -c "hca1: IsSM cleared" "$tmp/madpmd.log")
stop_one $holder
sleep 1.5
fds=$(ls /proc/$daemon/fd | wc -l)
wait $sil
stop_one $sil
sed 's/^/# /' "$tmp/silent2.out"
echo "# the daemon had $fds descriptors"
echo "# sessions: $(cat "$tmp"/fill.* | awk '/^opened/ {n += $2} END {print n}')"
grep -q "out of descriptors: refusing a client" "$tmp/madpmd.log"
ok $? "with its descriptors used up the daemon refuses newcomers ($(grep -c "out of descriptors" "$tmp/madpmd.log") times)"
read -r connects after late < <(awk '/^connects/ {print $2, $8, $10}' "$tmp/silent2.out")
[ -n "${after:-}" ] && [ "$after" -le 32 ]
ok $? "and drains its backlog instead of leaving it (${after:-?} left open)"
c0=$(chan_ticks)
sleep 1
c1=$(chan_ticks)
[ $(( c1 - c0 )) -lt 30 ]
ok $? "its channel threads do not spin at the limit: $(( c1 - c0 )) ticks in 1 s"
[ $issm_up = 0 ] && [ "$(grep -c "hca1: IsSM cleared" "$tmp/madpmd.log")" -gt "$cleared" ]
ok $? "the holder of hca1's ISSM device goes at the limit: IsSM cleared"
stop_clients
for i in $(seq 30); do [ -p "$MADPMD_RUN_DIR/hca1/issm" ] && break; sleep 0.1; done
[ -p "$MADPMD_RUN_DIR/hca1/issm" ]
ok $? "once descriptors are back, the ISSM FIFO is there again ($(grep -c "cannot make .*issm again" "$tmp/madpmd.log") attempts failed)"
kill -0 $daemon 2>/dev/null && nodeinfo_is hca2 "$lid1" "$guid1" && nodeinfo_is hca1 "$lid2" "$guid2"
ok $? "and stock smpquery answers on both ports"

# whether the limit was still hit when the FIFO was made again is a race;
# a FIFO that cannot be made for sure: its temporary name (issm.c) taken
sleep 600 < "$MADPMD_RUN_DIR/hca1/issm" &
holder=$!
pids+=($holder)
wait_issm "$lid1" 30 1
issm_up=$?
mkdir "$MADPMD_RUN_DIR/hca1/issm.new"
stop_one $holder
sleep 1.5
fails=$(grep -c "cannot make .*issm again (File exists)" "$tmp/madpmd.log")
[ $issm_up = 0 ] && [ ! -p "$MADPMD_RUN_DIR/hca1/issm" ] && [ "$fails" -ge 1 ]
ok $? "an ISSM FIFO that cannot be made is tried again each second ($fails attempts in 1.5 s)"
rmdir "$MADPMD_RUN_DIR/hca1/issm.new"
for i in $(seq 25); do [ -p "$MADPMD_RUN_DIR/hca1/issm" ] && break; sleep 0.1; done
start_sm opensm3.log
up=$?
wait_issm "$lid1" 30 1
issm=$?
[ $up = 0 ] && [ $issm = 0 ]
ok $? "and made once it can be: a new OpenSM opens it, SUBNET UP ($up) and IsSM ($issm, CapMask $(capmask "$lid1"))"

# ---- the end ------------------------------------------------------------------

stop_one $sm
daemon_stop_check $daemon "$tmp/madpmd.log"
ok $? "madpmd exits 0 on SIGTERM, no sanitizer report"
yields=$(sed -n 's/^madpmd: lcore: \([0-9]*\) yields to a client spinning on its CPU$/\1/p' "$tmp/madpmd.log")
[ "${yields:-0}" -gt 0 ]
ok $? "the lcore yielded to a client spinning on its CPU (${yields:-no} times), instead of sleeping"
! grep -lE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$tmp"/*.out "$tmp"/fill.* 2>/dev/null
ok $? "no sanitizer report from the clients (chan_attack, the drop-in libibumad)"
echo "# $((SECONDS - began)) s"
tap_done
