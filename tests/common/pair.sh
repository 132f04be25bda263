# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the shell tests that run stock verbs tools between two nodes
# (after tap.sh): a fabric, and a server/client pair of a tool.
#   fabric PREFIX RUNDIR [launcher options...]: madpmd in the background
#     (its PID in $daemon and pids), its log in $tmp/PREFIX.log, waited for
#     until hca2's socket is there (and on RoCE both ports Active)
#   resident_sm NODE LOG: OpenSM on NODE under madpmd-run ($run), staying
#     (its PID in $sm and pids), its log LOG flushed line by line (-d2);
#     0 once LOG says SUBNET UP, within 30 s
#   pair_run NAME TOOL ARGS...: TOOL -d madpmd0 as the server on hca1, then
#     TOOL -d madpmd0 ... localhost as the client on hca2 (every node's HCA
#     is madpmd0 under madpmd-run), each a process of its
#     own under madpmd-run ($run), on the next TCP port from $port; outputs
#     in $tmp/NAME.srv and $tmp/NAME.cli, exit statuses in $rc1 and $rc2
fabric() {
	local prefix=$1 rundir=$2 i
	shift 2
	"$madpmd" --no-huge --no-pci -m 512 -l 0,1 --file-prefix="$prefix" \
		-- --run-dir "$rundir" "$@" > "$tmp/$prefix.log" 2>&1 &
	daemon=$!
	pids+=($daemon)
	for i in $(seq 100); do [ -S "$rundir/hca2/umad" ] && break; sleep 0.1; done
	# a RoCE port is Active with its link, which comes up after the
	# sockets are there (no SM to wait for: wait for that)
	case " $* " in
	*" roce "*)
		for i in $(seq 100); do
			MADPMD_RUN_DIR=$rundir "$run" --node hca1 ibv_devinfo 2>/dev/null |
				grep -q PORT_ACTIVE &&
			MADPMD_RUN_DIR=$rundir "$run" --node hca2 ibv_devinfo 2>/dev/null |
				grep -q PORT_ACTIVE && break
			sleep 0.1
		done ;;
	esac
}

resident_sm() {
	local i
	"$run" --node "$1" opensm -d2 -f "$2" > /dev/null 2>&1 &
	sm=$!
	pids+=($sm)
	for i in $(seq 300); do grep -q "SUBNET UP" "$2" 2>/dev/null && break; sleep 0.1; done
	grep -q "SUBNET UP" "$2"
}

pair_run() {
	local name=$1 tool=$2 srv
	shift 2
	port=$((port + 1))
	timeout 60 "$run" --node hca1 "$tool" -d madpmd0 -p $port "$@" \
		> "$tmp/$name.srv" 2>&1 &
	srv=$!
	pids+=($srv)
	# the server listens once its QP is made
	sleep 0.5
	timeout 60 "$run" --node hca2 "$tool" -d madpmd0 -p $port "$@" localhost \
		> "$tmp/$name.cli" 2>&1
	rc2=$?
	wait $srv
	rc1=$?
}

# the last lines of both sides, after a pair that failed
pair_show() {
	sed 's/^/# srv: /' "$tmp/$1.srv" | tail -"${2:-8}"
	sed 's/^/# cli: /' "$tmp/$1.cli" | tail -"${2:-8}"
}
