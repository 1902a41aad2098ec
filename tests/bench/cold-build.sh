#!/bin/bash
# Cold builds (make bench): a cold `tbisect bisect` of the default range
# against its physical bound, one full build plus the VM runs, and the build
# of state 13 (a comment in include/linux/sched.h) after state 12 from a
# cold cache, with ccache through cppfilter and without (CPP_FILTER = no).
# Each part starts from an empty work directory (its ccache included).
# Prints figures and ratios; asserts nothing.
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
BIN=$TOP/tbisect
now() { date +%s.%N; }
el() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
fresh() { local w; w=$(mktemp -d /tmp/tbisect-cold.XXXXXX); echo "$w"; }

echo "# cold bisect of the default range ($(nproc) cores)"
W=$(fresh)
t0=$(now); TBISECT_WORKDIR=$W "$BIN" prepare 2>/dev/null; t1=$(now)
TBISECT_WORKDIR=$W "$BIN" bisect >"$W/bisect.out" 2>"$W/bisect.err"; st=$?; t2=$(now)
read -r boot bench < <(sed -n 's/^phases: .* boot \([0-9.]*\) s, tbench \([0-9.]*\) s,.*/\1 \2/p' "$W/bisect.out")
build=$(sed -n 's/^phases: .* build \([0-9.]*\) s,.*/\1/p' "$W/bisect.out")
prep=$(el "$t0" "$t1"); bis=$(el "$t1" "$t2")
# Each build of the bisection, the first (full) one, and the sum of its wide
# compiles (more than half of the objects compiled, not from ccache): what
# no cache can serve.
builds=$(awk '
  / objects: / { for (i = 1; i < NF; i++) if ($(i + 1) == "objects:") {
      n[$3] = $i; c[$3] = $(i + 2)
      if ($(i + 4) == "on") c[$3] += $(i + 7)	# distcc: "on distcc hosts, M here"
    } }
  / built in [0-9.]* s$/ {
    printf "  build %s: %s s; %s of %s objects compiled\n", $3, $(NF - 1), c[$3], n[$3]
    if (full == "") full = $(NF - 1)
    if (n[$3] > 0 && c[$3] * 2 > n[$3]) w += $(NF - 1)
  }
  END { printf "full %s\nwide %.1f\n", full, w }' "$W/bisect.err")
full=$(echo "$builds" | sed -n 's/^full //p')
wide=$(echo "$builds" | sed -n 's/^wide //p')
echo "  exit $st; $(grep '^first bad state' "$W/bisect.out" | head -1)"
echo "  prepare ${prep} s, bisect ${bis} s; compiling ${build:-?} s, first (full) build ${full:-?} s"
echo "  VM runs: boot ${boot:-?} s + tbench ${bench:-?} s (summed over runs)"
echo "  $(grep '^cost:' "$W/bisect.out")"
echo "$builds" | grep -v '^full \|^wide '
awk -v b="$bis" -v f="${full:-0}" -v w="$wide" -v r1="${boot:-0}" -v r2="${bench:-0}" 'BEGIN {
  printf "  ratio bisect / (one full build + runs) = %.1f / (%.1f + %.1f) = %.2f (goal 1.1)\n", b, f, r1 + r2, b / (f + r1 + r2)
  printf "  ratio bisect / (wide compiles + runs) = %.1f / (%.1f + %.1f) = %.2f\n", b, w, r1 + r2, b / (w + r1 + r2) }'
rm -rf "$W"

for filter in yes no; do
  echo "# state 13 after state 12, cold cache, CPP_FILTER = $filter"
  W=$(fresh)
  TBISECT_WORKDIR=$W "$BIN" -s CPP_FILTER=$filter prepare 2>/dev/null
  for s in 12 13; do
    t0=$(now)
    TBISECT_WORKDIR=$W "$BIN" -s CPP_FILTER=$filter build $s >"$W/b.out" 2>"$W/b.err"
    t1=$(now)
    echo "  state $s: $(el "$t0" "$t1") s; $(grep -o '[0-9]* objects: .*' "$W/b.err" | tail -1); kernel $(awk -F'\t' '{print substr($5, 1, 16)}' "$W/b.out")"
  done
  rm -rf "$W"
done
