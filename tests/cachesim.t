#!/bin/bash
# The cache model (src/guest/cachesim.c) against Cachegrind, a simulator
# nobody here wrote: one program (tests/cache/walk.c) walks memory in a
# pattern natively under valgrind --tool=cachegrind, and feeds the same
# addresses to the model (build/walk-model), both with the model's default
# geometry.  Cachegrind's L1 data and last-level read misses of the
# function walk() must be within 1% of the model's (they differ by walk's
# own few stack accesses).  Needs valgrind (make deps).  TAP, then
# "N passed, N failed".
cd "$(dirname "$0")/.."
patterns="seq stride hot random"
work=$(mktemp -d /tmp/tbisect-cachesim.XXXXXX)
n=0 pass=0 fail=0
echo "1..$(echo $patterns | wc -w)"
geom=$(./build/walk-model --geometry)
for p in $patterns; do
  n=$((n + 1))
  valgrind --tool=cachegrind --cache-sim=yes $geom --cachegrind-out-file="$work/cg.$p" \
    ./build/walk "$p" >/dev/null 2>"$work/err.$p"
  st=$?
  # fn=walk's rows: line Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw.
  read -r cd1 cdl < <(awk '/^fn=/ { w = $0 == "fn=walk"; next } /^f[il]=/ { next }
    w && /^[0-9]/ { d1 += $6; dl += $7 } END { print d1 + 0, dl + 0 }' "$work/cg.$p" 2>/dev/null)
  read -r md1 mdl < <(./build/walk-model "$p" | awk '{ v[$1] = $2 } END { print v["D1mr"] + 0, v["DLmr"] + 0 }')
  what="cachesim: $p: L1 data misses $md1 (Cachegrind $cd1), last-level misses $mdl (Cachegrind $cdl)"
  if [ "$st" = 0 ] && awk -v a="$cd1" -v b="$md1" -v c="$cdl" -v d="$mdl" 'BEGIN {
       exit !(a > 1000 && c > 1000 && (a - b) ^ 2 <= (a / 100) ^ 2 && (c - d) ^ 2 <= (c / 100) ^ 2) }'; then
    pass=$((pass + 1)); echo "ok $n - $what, within 1%"
  else
    fail=$((fail + 1)); echo "not ok $n - $what, not within 1% (valgrind exit $st)"
    tail -3 "$work/err.$p" | sed 's/^/# /'
  fi
done
rm -rf "$work"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
