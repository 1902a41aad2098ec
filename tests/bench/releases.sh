#!/bin/bash
# Benchmark: tbench across Debian's linux-source releases, every series.
# `tbisect releases` turns every version the archive offers into one
# first-parent commit of a git tree; TREE mode then measures each release
# (each one a near-full kernel build) and bisects the oldest against the
# newest.  Prints the throughput of every release, the cost, the plot,
# every step with its profile, and the profile of each change of series.
#
# TBISECT_BENCH_WORKDIR: work directory (default ~/.cache/tbisect-releases,
# kept so that a second run reuses the builds and runs).
set -u
cd "$(dirname "$0")/../.."
W=${TBISECT_BENCH_WORKDIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tbisect-releases}
export TBISECT_WORKDIR=$W
t0=$(date +%s)
./tbisect releases || exit 1
t1=$(date +%s)
R=$W/releases/tree
mapfile -t V < <(git -C "$R" log --first-parent --reverse --format=%s releases | sed 's/^linux-source-[0-9.]* //; s/~/_/g')
echo "releases: ${#V[@]} versions imported in $((t1 - t0)) s: ${V[*]}"
tr() { ./tbisect -s "TREE=$R" -s "GOOD=${V[0]}" -s "BAD=${V[${#V[@]}-1]}" -s "PLOT_DIR=$PWD/plots" "$@"; }
# The first version is GOOD, state 0; measure them all, side by side.
tr measure "${V[@]}" | tee "$W/releases-measure.txt"
t2=$(date +%s)
echo "releases: measured in $((t2 - t1)) s"
for i in "${!V[@]}"; do
  printf 'release: %s\t%s\n' "${V[$i]}" "$(awk -F'\t' -v i="$i" '$1 == i { print $3 "\t" $4 "\t" $5 }' "$W/releases-measure.txt")"
done
# The same as a markdown table, each release against the one before it.
echo "| release | MB/s | vs the release before |"
echo "|---|---:|---:|"
awk -F'\t' '$1 ~ /^[0-9]+$/ && $3 ~ / MB\/s$/ {
  v = $3 + 0; d = n++ ? sprintf("%+.3f%%", (v - p) / p * 100) : ""
  printf "| %s | %.3f | %s |\n", $2, v, d; p = v }' "$W/releases-measure.txt"
tr bisect | tee "$W/releases-bisect.txt"
t3=$(date +%s)
echo "releases: bisect in $((t3 - t2)) s (after the measurements)"
# The whole curve, every step above 0.01% marked: icount repeats agree to
# 0.0000%, so steps that small are real.
tr -s THRESHOLD=0.01% sweep | tee "$W/releases-sweep.txt"
cp plots/tbisect.png plots/releases.png 2>/dev/null && echo "releases: plot plots/releases.png"
# Every step above CULPRIT_FLOOR, each profiled against its parent (PROFILE
# is on in icount mode): where the instructions of each release go.
t4=$(date +%s)
tr culprits | tee "$W/releases-culprits.txt"
echo "releases: culprits and their profiles in $(( $(date +%s) - t4 )) s"
# The step from one series to the next (6.1 -> 6.12), profiled on its own.
mapfile -t S < <(git -C "$R" log --first-parent --reverse --format=%s releases | sed 's/^linux-source-\([0-9.]*\) .*/\1/')
for i in "${!V[@]}"; do
  [ "$i" -gt 0 ] && [ "${S[$i]}" != "${S[$((i - 1))]}" ] &&
    tr profile --top 20 "${V[$((i - 1))]}" "${V[$i]}" | tee "$W/releases-profile-${V[$i]}.txt"
done
