#!/bin/bash
# The cost figure (COST = cycles, docs/cost.md), measured: what a run under
# the plugin's cache model costs against the same run without it; the two
# seeded regressions in estimated cycles beside their instruction change;
# the layout-only series (kpatches/layout) bisected both ways.
# BENCH_WORKDIR (default /tmp/tbisect-bench-cost) is emptied first; the
# builds (a full one first, several minutes on 2 cores) are not timed here.
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD BIN=$TOP/tbisect
W=${BENCH_WORKDIR:-/tmp/tbisect-bench-cost}
rm -rf "$W"; mkdir -p "$W"
export TBISECT_WORKDIR=$W
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", b - a}'; }
# The figure or the cycles of state $2 from results.tsv: column $1, runs
# with (cyc) or without (ins) cycles.
fig() { awk -F'\t' -v col="$1" -v s="$2" -v want="$3" 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
  $c["state"] == s && $c["status"] == "ok" && $c["bench"] == "tbench" && (want == "cyc") == ($c["cycles"] >= 0) { v = $c[col] }
  END { printf "%s", v }' "$W/results.tsv"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%+.2f%%", 100 * (b - a) / a}'; }

"$BIN" -q prepare || exit 2
"$BIN" -q measure 4 5 9 10 >/dev/null 2>&1 || exit 2
echo "# states 4, 5, 9 and 10 built and measured first: not counted"

# 1. One run of state 4 with the model against one without (the kernel
# built, the image made): wall seconds, and the boot and tbench parts.
# Run it on an otherwise idle machine: the ratio is of wall seconds.
t0=$(now); "$BIN" measure -n 1 4 >"$W/plain.out" 2>&1; t1=$(now)
"$BIN" -s COST=cycles measure 4 >"$W/cycles.out" 2>&1; t2=$(now)
part() { sed -n 's/.*boot \([0-9.]*\) s, tbench \([0-9.]*\) s.*/\1 \2/p' "$1" | tail -1; }
read -r pb pt < <(part "$W/plain.out")
read -r cb ct < <(part "$W/cycles.out")
pw=$(secs "$t0" "$t1") cw=$(secs "$t1" "$t2")
echo "# one tbench run of state 4 (SECONDS = 2, SMP 1), wall seconds"
printf '%-22s %8s %8s %8s\n' run total boot tbench
printf '%-22s %8s %8s %8s\n' "plain icount" "$pw" "$pb" "$pt"
printf '%-22s %8s %8s %8s\n' "COST = cycles" "$cw" "$cb" "$ct"
printf '%-22s %8s %8s %8s\n' "ratio" "$(awk -v a="$pw" -v b="$cw" 'BEGIN{printf "%.2fx", b / a}')" \
	"$(awk -v a="$pb" -v b="$cb" 'BEGIN{printf "%.2fx", b / a}')" "$(awk -v a="$pt" -v b="$ct" 'BEGIN{printf "%.2fx", b / a}')"
echo "# MB/s with and without the model: $(fig mbps 4 ins) and $(fig mbps 4 cyc)"

# 2. Repeats: a second run under the model, the same cycles to the digit.
"$BIN" -q -s COST=cycles measure -n 1 4 >/dev/null 2>&1
echo "# two runs under the model, estimated cycles per operation: $(awk -F'\t' 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
  $c["state"] == 4 && $c["cycles"] >= 0 && $c["bench"] == "tbench" { printf "%s ", $c["cycles"] }' "$W/results.tsv")"

# 3. The seeded regressions in both figures.
"$BIN" -q -s COST=cycles measure 5 9 10 >/dev/null 2>&1
echo "# the seeded regressions: MB/s (instructions) and estimated cycles per operation"
printf '%-12s %-24s %-30s\n' change MB/s cycles/op
for p in "hrtick:4:5" "calc_delta:9:10"; do
	IFS=: read -r name a b <<<"$p"
	printf '%-12s %-24s %-30s\n' "$name" "$(fig mbps "$a" ins) -> $(fig mbps "$b" ins) $(pct "$(fig mbps "$a" ins)" "$(fig mbps "$b" ins)")" \
		"$(fig cycles "$a" cyc) -> $(fig cycles "$b" cyc) $(pct "$(fig cycles "$a" cyc)" "$(fig cycles "$b" cyc)")"
done

# 4. The layout-only series: bisected on instructions, then on cycles.
L="-s PATCHES=$TOP/kpatches/layout"
"$BIN" -q $L prepare || exit 2
t0=$(now); "$BIN" $L bisect base head >"$W/lay-ins.out" 2>&1; si=$?; t1=$(now)
"$BIN" $L -s COST=cycles bisect base head >"$W/lay-cyc.out" 2>&1; sc=$?; t2=$(now)
echo "# kpatches/layout, base..head"
echo "instructions: exit $si in $(secs "$t0" "$t1") s: $(grep -m1 "^first bad state\|^no regression" "$W/lay-ins.out")"
echo "cycles:       exit $sc in $(secs "$t1" "$t2") s: $(grep -m1 "^first bad state\|^no regression" "$W/lay-cyc.out")"
grep "^estimated cycles (cache model):" "$W/lay-cyc.out"
"$BIN" -q prepare >/dev/null 2>&1
