#!/bin/bash
# The unit tests as a TAP source for prove; UNIT_BIN picks the build
# (build/unit, or build/unit-asan under ASan/UBSan).  The messages the tests
# provoke on purpose go to a file, shown only when a test fails.
cd "$(dirname "$0")/.."
bin=${UNIT_BIN:-build/unit}
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
UNIT_STDERR=$bin.err "./$bin"; st=$?
[ "$st" = 0 ] || sed 's/^/# /' "$bin.err"
exit "$st"
