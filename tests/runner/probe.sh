#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A test that skips on request, to show that scripts/test fails when a test
# skips: MADPMD_TEST_DELIBERATE_SKIP=1 ./scripts/test --quick --suite runner
if [ -n "${MADPMD_TEST_DELIBERATE_SKIP:-}" ]; then
	echo "1..0 # SKIP deliberately skipped (MADPMD_TEST_DELIBERATE_SKIP is set)"
	exit 0
fi
echo "ok 1 - the probe runs (MADPMD_TEST_DELIBERATE_SKIP=1 makes it skip)"
echo "1..1"
