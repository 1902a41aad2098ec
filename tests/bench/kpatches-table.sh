#!/bin/bash
# Regenerates the effect table of kpatches/README.md from tbisect's own
# runs: every state in icount mode (deterministic, one run) and in
# wall-clock mode (median of RUNS runs, with min-max spread), each patch
# against its parent.  Usage: tests/bench/kpatches-table.sh [RUNS]
set -u
cd "$(dirname "$0")/../.."
runs=${1:-5}
B=./tbisect
$B -q prepare || exit 2
n=$($B -q states | tail -n +2 | wc -l)
all=$(seq 0 $((n - 1)))
$B -q measure $all >/tmp/kt-icount.txt || exit 2
$B -q -s MODE=wallclock measure -n "$runs" $all >/tmp/kt-wall.txt || exit 2
mode_w=$(awk -F'\t' 'NR==1{print $5}' /tmp/kt-wall.txt)
# Wall-clock spreads: min/max of the runs.
echo "| # | patch | mechanism | icount MB/s | icount vs parent | wall-clock MB/s (median of $runs, min-max) | wall-clock vs parent |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
paste /tmp/kt-icount.txt /tmp/kt-wall.txt | awk -F'\t' '
{
  i=$1; name=$2; ic=$3+0; wc=$8+0; mm=$9; sub(/median of [0-9]+ \(/, "", mm); sub(/\)/, "", mm)
  gsub(/min /, "", mm); gsub(/, max /, "-", mm)
  mech="-"; f="kpatches/" name
  if (name != "base") { while ((getline l < f) > 0) if (l ~ /^Mechanism: /) { mech=substr(l, 12) } close(f) }
  di = (NR > 1) ? sprintf("%+.2f%%", 100*(ic-pic)/pic) : "-"
  dw = (NR > 1) ? sprintf("%+.1f%%", 100*(wc-pwc)/pwc) : "-"
  printf "| %d | %s | %s | %.3f | %s | %.2f (%s) | %s |\n", i, name, mech, ic, di, wc, mm, dw
  pic=ic; pwc=wc
}'
echo
echo "icount: $(awk -F'\t' 'NR==1{print $5}' /tmp/kt-icount.txt); wall-clock: $mode_w"
