# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the shell tests: TAP results, and stopping what a test
# started. A test sets "tmp" (its directory) and "eal_prefixes" (the EAL
# file prefixes it used) and appends the PIDs it starts to "pids"; on exit
# everything is stopped, newest first, and removed.
n=0
fail=0
pids=()
eal_prefixes=()

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

# a check that cannot mean anything in this run, and why
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# SIGTERM, and SIGKILL for whatever ignores it for 3 s (OpenSM does when
# its daemon is gone)
stop() {
	local p=$1 i
	kill -TERM "$p" 2>/dev/null || return 0
	for i in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
}

# Stop a daemon the test started (a child of this shell) with SIGTERM and
# say how it ended: 0 when it exited by itself with status 0 and its log
# has no sanitizer report (ASan, LSan, UBSan), else 1 with the reason on
# stdout as a TAP comment. It leaves the list of PIDs to stop.
daemon_stop_check() {
	local p=$1 log=$2 i rc keep=()

	for i in "${pids[@]}"; do [ "$i" = "$p" ] || keep+=("$i"); done
	pids=("${keep[@]}")
	if ! kill -TERM "$p" 2>/dev/null; then
		echo "# $p was gone before SIGTERM"
		wait "$p" 2>/dev/null
		return 1
	fi
	for i in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$p" 2>/dev/null; then
		echo "# $p still runs 10 s after SIGTERM: killed"
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		return 1
	fi
	wait "$p"
	rc=$?
	if [ "$rc" != 0 ]; then
		echo "# $p exited with status $rc"
		return 1
	fi
	if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|Sanitizer:DEADLYSIGNAL' "$log"; then
		echo "# sanitizer report in $(basename "$log"):"
		grep -E -m5 'ERROR: |runtime error:|SUMMARY:' "$log" | sed 's/^/#   /'
		return 1
	fi
	return 0
}

stop_all() {
	local i
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop "${pids[i]}"; done
	pids=()
}

tap_cleanup() {
	local p
	stop_all
	[ -n "${tmp:-}" ] && rm -rf "$tmp"
	for p in "${eal_prefixes[@]}"; do rm -rf "/var/run/dpdk/$p"; done
}
trap tap_cleanup EXIT

# The last lines of the test's logs when something failed, then the plan.
tap_done() {
	local f
	if [ "$fail" != 0 ] && [ -n "${tmp:-}" ]; then
		for f in "$tmp"/*.log "$tmp"/*.out; do
			[ -e "$f" ] && sed "s|^|# $(basename "$f"): |" "$f" | tail -8
		done
	fi
	echo "1..$n"
	exit "$fail"
}
