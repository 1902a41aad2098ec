#!/bin/bash
# Regenerates the effect tables of kpatches/README.md from tbisect's own
# runs, each patch against its parent:
#  1. every state in icount mode, SMP=1 (deterministic: one run each), with
#     tbench in the root cgroup (depth 0) and three levels deep (depth 3,
#     user.slice/user-1000.slice/session-1.scope);
#  2. the 2008 mechanisms' rows: icount SMP=2 (seeded runs, median of
#     SEEDS) at depth 0 and 3, and wall-clock (median of RUNS, min-max) at
#     SMP=1 and SMP=2, depth 3;
#  3. REPEATS runs of one kernel one at a time (SMP=1, depth 3): repeat
#     spread, boot and run times.
# Usage: tests/bench/kpatches-table.sh [RUNS [SEEDS [REPEATS]]]   (default 3 5 5)
# Extra tbisect options (e.g. -s WORKDIR=...) come from TBISECT_OPTS; the
# raw outputs go to TABLE_DIR (default /tmp/kpatches-table).  STEPS picks
# what is measured (default "smp1 smp2 wall repeats"); the tables are printed
# from TABLE_DIR either way.
set -u
cd "$(dirname "$0")/../.."
runs=${1:-3}
seeds=${2:-5}
repeats=${3:-5}
B=./tbisect
out=${TABLE_DIR:-/tmp/kpatches-table}
mkdir -p "$out"
# shellcheck disable=SC2086
tb() { $B -q ${TBISECT_OPTS:-} "$@"; }
tb prepare || exit 2
n=$(tb states | tail -n +2 | wc -l)
all=$(seq 0 $((n - 1)))
pairs="4:5 9:10 15:16 17:18"	# the mechanisms: parent:state
rows=$(echo "$pairs" | tr ': ' '\n\n' | sort -nu | tr '\n' ' ')
steps=${STEPS:-smp1 smp2 wall repeats}
step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
t0=$(date +%s)
if step smp1; then
	for d in 0 3; do
		tb -s SMP=1 -s CGROUP_DEPTH=$d measure $all >"$out/icount-1-$d.txt" || exit 2
	done
fi
t1=$(date +%s)
if step smp2; then
	for d in 0 3; do
		# shellcheck disable=SC2086
		tb -s SMP=2 -s CGROUP_DEPTH=$d measure -n "$seeds" $rows >"$out/icount-2-$d.txt" || exit 2
	done
fi
t2=$(date +%s)
if step wall; then
	for smp in 1 2; do
		# shellcheck disable=SC2086
		tb -s MODE=wallclock -s SMP=$smp -s CGROUP_DEPTH=3 measure -n "$runs" $rows \
			>"$out/wall-$smp-3.txt" || exit 2
	done
fi
t3=$(date +%s)

# The MB/s of state $2 in measure output $1; with 'mm', "median (min-max)".
val() { awk -F'\t' -v k="$2" -v mm="${3:-}" '$1 == k { v = $3 + 0; r = $4
	sub(/.*\(min /, "", r); sub(/, max /, "-", r); sub(/\).*/, "", r)
	print (mm ? sprintf("%.2f (%s)", v, r) : v) }' "$1"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f%%", 100 * (b - a) / a }'; }
mech() { [ "$1" = base ] && { echo -; return; }
	sed -n 's/^Mechanism: //p' "kpatches/$1" | head -1; }

echo "### Every state, icount, SMP=1 (one run each)"
echo
echo "| # | patch | mechanism | root cgroup | vs parent | depth 3 | vs parent |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for i in $all; do
	name=$(awk -F'\t' -v k="$i" '$1 == k { print $2 }' "$out/icount-1-0.txt")
	printf '| %s | %s | %s |' "$i" "$name" "$(mech "$name")"
	for d in 0 3; do
		f=$out/icount-1-$d.txt v=$(val "$f" "$i")
		if [ "$i" = 0 ]; then c=-; else c=$(pct "$(val "$f" $((i - 1)))" "$v"); fi
		printf ' %.3f | %s |' "$v" "$c"
	done
	echo
done
echo
echo "### The mechanisms: SMP=2 and wall-clock (median, min-max)"
echo
cols="icount-2-0:icount,_SMP=2,_root_cgroup,_${seeds}_seeds icount-2-3:icount,_SMP=2,_depth_3,_${seeds}_seeds wall-1-3:wall-clock,_SMP=1,_depth_3,_${runs}_runs wall-2-3:wall-clock,_SMP=2,_depth_3,_${runs}_runs"
printf '| patch |'; for c in $cols; do printf ' %s: parent -> state | change |' "$(echo "${c#*:}" | tr _ ' ')"; done; echo
printf '| --- |'; for c in $cols; do printf ' --- | --- |'; done; echo
for pair in $pairs; do
	p=${pair%:*} s=${pair#*:}
	printf '| %s |' "$(awk -F'\t' -v k="$s" '$1 == k { print $2 }' "$out/icount-1-0.txt")"
	for c in $cols; do
		f=$out/${c%%:*}.txt
		printf ' %s -> %s | %s |' "$(val "$f" "$p" mm)" "$(val "$f" "$s" mm)" "$(pct "$(val "$f" "$p")" "$(val "$f" "$s")")"
	done
	echo
done
echo
echo "icount: $(awk -F'\t' 'NR==1{print $5}' "$out/icount-1-0.txt"), $(awk -F'\t' 'NR==1{print $5}' "$out/icount-2-0.txt"); wall-clock: $(awk -F'\t' 'NR==1{print $5}' "$out/wall-1-3.txt"); $(qemu-system-x86_64 --version | head -1)"
echo "icount SMP=1 tables took $((t1 - t0)) s, SMP=2 rows $((t2 - t1)) s, wall-clock rows $((t3 - t2)) s"
echo

# Repeats of state 6 (hrtick on), SMP=1, depth 3, one at a time: exactness,
# boot and run times.
if step repeats; then
	tb -s SMP=1 -s CGROUP_DEPTH=3 -s VMS=1 measure -n "$repeats" 6 >/dev/null || exit 2
fi
tb results --format tsv >"$out/results.tsv" || exit 2
awk -F'\t' -v r="$repeats" '
NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
$c["state"] == 6 && $c["status"] == "ok" && $c["mode"] == "icount" && $c["guest_cpus"] == 1 &&
$c["cgroup_depth"] == 3 { k = n++; v[k] = $c["mbps"]; boot[k] = $c["boot_s"]; run[k] = $c["boot_s"] + $c["bench_s"] }
END {
	if (n < r) { print "repeats: too few runs recorded"; exit 1 }
	lo = hi = v[n - r]
	for (k = n - r; k < n; k++) { if (v[k] < lo) lo = v[k]; if (v[k] > hi) hi = v[k]; bs += boot[k]; rs += run[k] }
	printf "state 6, SMP=1, depth 3: %d runs (the first beside another VM, the rest alone): %.4f..%.4f MB/s, spread %.4f%%, mean boot %.1f s, mean run %.1f s\n",
		r, lo, hi, 100 * (hi - lo) / lo, bs / r, rs / r }' "$out/results.tsv"
