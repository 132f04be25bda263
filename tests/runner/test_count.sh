#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/test-count, the counter behind scripts/test's "N passed, N failed",
# fed testlog.json files as meson writes them.
# usage: test_count.sh scripts/test-count
set -u
count=$1
tmp=$(mktemp -d /tmp/madpmd-test-count.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
# rec NAME RESULT STDOUT: one testlog.json line
rec() {
	python3 -c 'import json, sys; print(json.dumps({"name": "madpmd:x / " + sys.argv[1], "result": sys.argv[2], "stdout": sys.argv[3]}))' "$@"
}
# is LABEL WANT LOG [STATUS]: the first line of the counts
is() {
	local got
	got=$(MADPMD_TEST_MAY_SKIP="${may:-}" "$count" "$3" "${4:-0}" | head -1)
	[ "$got" = "$2" ]
	ok $? "$1: '$got' (want '$2')"
}

{ rec a OK $'ok 1 - a\n1..1'; rec b OK $'ok 1 - b\n1..1'; } > "$tmp/ok.json"
is "two passing tests" "2 0 0" "$tmp/ok.json"
{ rec a OK $'ok 1 - a\n1..1'; rec b SKIP $'1..0 # SKIP no plugin'; } > "$tmp/skip.json"
is "a test that skips is skipped and failed" "1 1 1" "$tmp/skip.json"
may="b" is "unless MADPMD_TEST_MAY_SKIP names it" "1 0 1" "$tmp/skip.json"
may="c" is "and only the tests it names" "1 1 1" "$tmp/skip.json"
"$count" "$tmp/skip.json" | grep -q "^test: b skipped, counted as failed: SKIP no plugin"
ok $? "the skip and its reason are printed"
{ rec a OK $'ok 1 - a\nok 2 - # SKIP no /dev/full\n1..2'; } > "$tmp/sub.json"
is "a skipped check inside a passing test is not a failure" "1 0 0" "$tmp/sub.json"
"$count" "$tmp/sub.json" | grep -q "^test: a: one check skipped: ok 2 - # SKIP no /dev/full"
ok $? "but is listed"
{ rec a FAIL 'not ok 1'; rec b TIMEOUT ''; rec c UNEXPECTEDPASS ''; rec d EXPECTEDFAIL ''; } > "$tmp/fail.json"
is "FAIL, TIMEOUT, UNEXPECTEDPASS fail; EXPECTEDFAIL passes" "1 3 0" "$tmp/fail.json"
is "no testlog.json (a stale one was removed, meson did not run)" "0 1 0" "$tmp/none.json" 1
is "meson failed without a failed test (an argument error)" "2 1 0" "$tmp/ok.json" 2
is "meson failed with a failed test: counted once" "1 3 0" "$tmp/fail.json" 1
echo '{not json' > "$tmp/bad.json"
is "an unreadable log" "0 1 0" "$tmp/bad.json"
echo "1..$n"
exit $fail
