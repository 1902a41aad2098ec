#!/bin/bash
# The libFuzzer targets (tests/fuzz/fuzz.c, built by make fuzz-build): each
# runs FUZZ_TEST_SECONDS (default 5) over its seeds in a fresh corpus.  A
# crash, a leak, a sanitizer report or a target that runs nothing fails.
# TAP, then "N passed, N failed".
cd "$(dirname "$0")/.."
secs=${FUZZ_TEST_SECONDS:-5}
names="conf series console store kcfg"
work=$(mktemp -d /tmp/tbisect-fuzz.XXXXXX)
echo "1..$(echo $names | wc -w)"
n=0 pass=0 fail=0
for name in $names; do
  n=$((n + 1))
  mkdir -p "$work/corpus-$name"
  out=$work/$name.log
  ./build/fuzz/$name -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$work/" \
    "$work/corpus-$name" "tests/fuzz/seeds-$name" >"$out" 2>&1
  st=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out")
  if [ "$st" = 0 ] && [ "${runs:-0}" -gt 0 ] && ! grep -q "ERROR:" "$out"; then
    pass=$((pass + 1)); echo "ok $n - fuzz: $name parser, $runs inputs in $secs s, no crash, leak or sanitizer report"
  else
    fail=$((fail + 1)); echo "not ok $n - fuzz: $name parser (exit $st, ${runs:-0} inputs)"
    grep -E "ERROR|SUMMARY|#0|#1|#2" "$out" | head -8 | sed 's/^/# /'
  fi
done
rm -rf "$work"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
