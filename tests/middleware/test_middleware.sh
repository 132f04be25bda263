#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Real middleware from Debian, unmodified, between two nodes of an IB
# fabric (UCX and MPI on RoCE too), started as a user starts it under
# madpmd-run: UCX (ucx_info -d;
# ucx_perftest's UCP tag_lat and put_bw, UCT am_lat over rc_verbs and
# ud_verbs), Open MPI 4.1 over UCX (a user's program, built with mpicc: a
# ping-pong whose every byte is checked and an allreduce, one rank per
# node), qperf (its RC, UC and UD tests, polling and waiting on events,
# the RC ones connected by rdma_cm too, from the nodes' namespaces to the
# peer's IPoIB address)
# and libfabric's verbs provider (fi_info; fi_pingpong). Every node's HCA
# is madpmd0, so one UCX_NET_DEVICES serves both ranks, as on a cluster.
# UCX is kept to its verbs transports: two processes of one machine would
# otherwise meet in shared memory, past the fabric; the port counters,
# read over the wire with perfquery, show the MPI traffic crossed it.
# Usage: test_middleware.sh <madpmd> <madpmd-run> <mpi_pingpong.c>
set -u
madpmd=$1
run=$2
mpisrc=$3
here=$(dirname "$0")
. "$here/../common/tap.sh"
. "$here/../common/pair.sh"
. "$here/../common/stage.sh"

tmp=$(mktemp -d /tmp/madpmd-mw.XXXXXX)
chmod 755 "$tmp"
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-mw-$$ madpmd-mw-roce-$$)
export MADPMD_RUN_DIR=$tmp/run
# the side channels' TCP ports (loopback)
port=$((20000 + $$ % 20000))
export UCX_TLS=rc_verbs,ud_verbs,self UCX_NET_DEVICES=madpmd0:1

fabric madpmd-mw-$$ "$MADPMD_RUN_DIR" --umad-mode 0666
# a resident SM: its SA takes the nodes' IPoIB joins (qperf below)
resident_sm hca1 "$tmp/opensm.log"
ok $? "a resident opensm reaches SUBNET UP"

# "Field:....value" of a diag's dump
field() { sed -n "s/^$2:\.*//p" "$1" | head -1; }

# ---- UCX ----
for node in hca1 hca2; do
	"$run" --node $node ucx_info -d > "$tmp/ucx_info.$node" 2>&1
	awk '/Transport: rc_verbs/ {t = 1} /Transport: ud_verbs/ {u = 1}
	     /Device: madpmd0:1/ && (t || u) {d++} END {exit !(t && u && d >= 2)}' \
		"$tmp/ucx_info.$node"
	ok $? "$node: ucx_info -d finds rc_verbs and ud_verbs on madpmd0:1"
done
# as a normal user, with copies of madpmd-run and the drop-ins it can read
if [ "$(id -u)" = 0 ]; then
	srun=$(stage_run "$tmp/stage" "$run")
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		env HOME="$tmp" "$srun" --node hca2 ucx_info -d > "$tmp/ucx_info.nobody" 2>&1
	grep -q "Device: madpmd0:1" "$tmp/ucx_info.nobody"
	ok $? "as nobody: ucx_info -d finds madpmd0:1"
fi

# ucx_perftest NAME ARGS...: the server on hca2, the client on hca1;
# the client's output in $tmp/NAME.out, its "Final:" line in $final
perftest() {
	local name=$1 srv
	shift
	port=$((port + 1))
	timeout 60 "$run" --node hca2 ucx_perftest -p $port > "$tmp/$name.srv" 2>&1 &
	srv=$!
	pids+=($srv)
	sleep 1
	timeout 60 "$run" --node hca1 ucx_perftest localhost -p $port "$@" \
		> "$tmp/$name.out" 2>&1
	rc=$?
	wait $srv
	final=$(grep '^Final:' "$tmp/$name.out" | tr -s ' ')
	echo "# $name: $final"
	[ $rc = 0 ] && [ -n "$final" ]
}
perftest tag_lat -t tag_lat -n 2000
ok $? "ucx_perftest -t tag_lat (UCP, rc_verbs+ud_verbs): median $(echo "$final" | cut -d' ' -f3) us"
perftest put_bw -t ucp_put_bw -s 65536 -n 500
ok $? "ucx_perftest -t ucp_put_bw -s 65536: $(echo "$final" | cut -d' ' -f6) MB/s"
for tl in rc_verbs ud_verbs; do
	perftest am_$tl -t am_lat -d madpmd0:1 -x $tl -n 2000
	ok $? "ucx_perftest -t am_lat -d madpmd0:1 -x $tl (UCT am_short): median $(echo "$final" | cut -d' ' -f3) us"
done

# ---- Open MPI over UCX ----
lid1=$("$run" --node hca1 ibstat | awk '/Base lid/ {print $3; exit}')
counters() { "$run" --node hca2 perfquery -x "$lid1" 1 > "$tmp/pq.$1" 2>&1; }
# the ASan pass preloads the sanitizer for our drop-ins into stock
# programs; into mpirun it finds Open MPI 4.1.4's own use-after-free
# (orte_rml_oob_send_buffer_nb after orte_rml_send_callback freed the
# buffer), and the ranks cannot have it while mpirun has not: MPI runs in
# the plain pass only
mpi_san=
case ${LD_PRELOAD:-} in
*libasan*) mpi_san="a sanitized build: ASan in mpirun finds Open MPI's own use-after-free" ;;
esac
if [ -n "$mpi_san" ]; then
	skip "MPI over UCX between the nodes" "$mpi_san"
elif mpicc -O2 -o "$tmp/mpi_pingpong" "$mpisrc" > "$tmp/mpicc.log" 2>&1; then
	ok 0 "mpicc builds the ping-pong"
	counters before
	root=()
	[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
	timeout 120 mpirun "${root[@]}" --oversubscribe --mca pml ucx --mca btl self \
		-x UCX_TLS -x UCX_NET_DEVICES \
		-np 1 "$run" --node hca1 "$tmp/mpi_pingpong" : \
		-np 1 "$run" --node hca2 "$tmp/mpi_pingpong" > "$tmp/mpi.out" 2>&1
	rc=$?
	counters after
	sed -n 's/^pingpong /# MPI ping-pong /p' "$tmp/mpi.out"
	[ $rc = 0 ] && [ "$(grep -c '^pingpong ' "$tmp/mpi.out")" = 9 ] &&
		[ "$(grep -c '^allreduce ok 65536' "$tmp/mpi.out")" = 2 ] &&
		grep -q "rank 0 of 2 .* node hca1" "$tmp/mpi.out" &&
		grep -q "rank 1 of 2 .* node hca2" "$tmp/mpi.out"
	ok $? "mpirun, a rank on hca1 and one on hca2 (pml ucx): ping-pong 8 B..512 KiB checked byte by byte, allreduce of 64Ki ints right on both (exit $rc)"
	sent=$(( ($(field "$tmp/pq.after" PortXmitData) - $(field "$tmp/pq.before" PortXmitData)) * 4 ))
	# rank 0 sends 500 x (8 .. 32 KiB) and 50 x (128 KiB, 512 KiB)
	want=$((500 * (8 + 32 + 128 + 512 + 2048 + 8192 + 32768) + 50 * (131072 + 524288)))
	[ "$sent" -ge "$want" ]
	ok $? "hca1:1 sent $sent bytes during the run (PortXmitData, over the wire), at least the $want the ping-pong sends"
else
	ok 1 "mpicc builds the ping-pong ($(tail -1 "$tmp/mpicc.log"))"
fi

# ---- qperf, as on two hosts: both in their nodes' namespaces (--net),
# its control connection TCP to the peer's address over IPoIB, the test
# over the fabric; -cp 0 waits on completion events (a SIGALRM ends
# each); -cm 1 connects its RC tests by rdma_cm to that address ----
a2=$("$run" --node hca2 --print-addr)
port=$((port + 1))
timeout 300 "$run" --node hca2 --net qperf -lp $port > "$tmp/qperf.srv" 2>&1 &
qsrv=$!
pids+=($qsrv)
for i in $(seq 50); do
	timeout 5 "$run" --node hca1 --net ping -c 1 -W 1 "$a2" > /dev/null 2>&1 && break
	sleep 0.2
done
for mode in poll event cm; do
	opt=() tests="rc_lat rc_bw rc_rdma_write_lat rc_rdma_read_bw uc_lat ud_lat ud_bw"
	[ $mode = event ] && opt=(-cp 0)
	[ $mode = cm ] && opt=(-cm 1) tests="rc_lat rc_bw rc_rdma_write_lat rc_rdma_read_bw"
	for t in $tests; do
		timeout 20 "$run" --node hca1 --net qperf -lp $port -t 1 "${opt[@]}" \
			"$a2" $t > "$tmp/qperf.$t.$mode" 2>&1
		rc=$?
		res=$(grep -E '^ +(latency|bw|send_bw) += ' "$tmp/qperf.$t.$mode" | head -1 |
			tr -s ' ')
		[ $rc = 0 ] && [ -n "$res" ] && ! grep -qi "error\|failed" "$tmp/qperf.$t.$mode"
		ok $? "qperf $a2 $t ($mode${opt[*]:+, ${opt[*]}}):$res (exit $rc)"
	done
done
stop $qsrv

# ---- libfabric's verbs provider ----
"$run" --node hca1 fi_info -p verbs > "$tmp/fi_info" 2>&1
awk '/domain: madpmd0$/ {d = 1} /domain: madpmd0-dgram/ {g = 1}
     /type: FI_EP_MSG/ {m = 1} /type: FI_EP_RDM/ {r = 1} /type: FI_EP_DGRAM/ {u = 1}
     END {exit !(d && g && m && r && u)}' "$tmp/fi_info"
ok $? "fi_info -p verbs: domains madpmd0 (MSG, RDM) and madpmd0-dgram (DGRAM)"
port=$((port + 1))
timeout 30 "$run" --node hca2 fi_pingpong -p verbs -e dgram -B $port -I 100 \
	> "$tmp/fi_dgram.srv" 2>&1 &
srv=$!
pids+=($srv)
sleep 1
timeout 30 "$run" --node hca1 fi_pingpong -p verbs -e dgram -P $port -I 100 localhost \
	> "$tmp/fi_dgram.cli" 2>&1
rc=$?
wait $srv
rc1=$?
# every size up to the UD MTU: 64, 256, 1k, 4k
sizes=$(awk '$2 == 100 && $3 == "=100" {printf "%s ", $1}' "$tmp/fi_dgram.cli")
[ $rc = 0 ] && [ $rc1 = 0 ] && [ "$sizes" = "64 256 1k 4k " ]
ok $? "fi_pingpong -p verbs -e dgram: ${sizes}bytes, 100 of 100 each (exit $rc1, $rc)"

stop $sm
daemon_stop_check $daemon "$tmp/madpmd-mw-$$.log"
ok $? "the daemon stops cleanly"

# ---- the same UCX and MPI on RoCE (UD over RoCE v2: the completion's
# sl tells UCX the frame was IPv4, as mlx5's does) ----
fabric madpmd-mw-roce-$$ "$tmp/roce" --link roce
export MADPMD_RUN_DIR=$tmp/roce
perftest roce_tag_lat -t tag_lat -n 2000
ok $? "RoCE: ucx_perftest -t tag_lat (UCP, rc_verbs+ud_verbs): median $(echo "$final" | cut -d' ' -f3) us"
perftest roce_put_bw -t ucp_put_bw -s 65536 -n 500
ok $? "RoCE: ucx_perftest -t ucp_put_bw -s 65536: $(echo "$final" | cut -d' ' -f6) MB/s"
perftest roce_am_ud -t am_lat -d madpmd0:1 -x ud_verbs -n 2000
ok $? "RoCE: ucx_perftest -t am_lat -x ud_verbs: median $(echo "$final" | cut -d' ' -f3) us"
if [ -n "$mpi_san" ]; then
	skip "RoCE: MPI over UCX" "$mpi_san"
elif [ -x "$tmp/mpi_pingpong" ]; then
	timeout 120 mpirun "${root[@]}" --oversubscribe --mca pml ucx --mca btl self \
		-x UCX_TLS -x UCX_NET_DEVICES \
		-np 1 "$run" --node hca1 "$tmp/mpi_pingpong" : \
		-np 1 "$run" --node hca2 "$tmp/mpi_pingpong" > "$tmp/mpi.roce.out" 2>&1
	rc=$?
	[ $rc = 0 ] && [ "$(grep -c '^pingpong ' "$tmp/mpi.roce.out")" = 9 ] &&
		[ "$(grep -c '^allreduce ok 65536' "$tmp/mpi.roce.out")" = 2 ]
	ok $? "RoCE: mpirun, a rank on each node: ping-pong checked byte by byte, allreduce right (exit $rc)"
fi
daemon_stop_check $daemon "$tmp/madpmd-mw-roce-$$.log"
ok $? "the RoCE daemon stops cleanly"
tap_done
