#!/bin/bash
# Benchmark: tbench across Debian's linux-source-6.1 point releases.
# `tbisect releases` turns every version the archive offers into one
# first-parent commit of a git tree; TREE mode then measures each release
# (each one a near-full kernel build) and bisects the oldest against the
# newest.  Prints the throughput of every release, the cost, the plot.
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
mapfile -t V < <(git -C "$R" log --first-parent --reverse --format=%s releases | sed 's/^linux-source-6.1 //')
echo "releases: ${#V[@]} versions imported in $((t1 - t0)) s: ${V[*]}"
tr() { ./tbisect -s "TREE=$R" -s "GOOD=${V[0]}" -s "BAD=${V[${#V[@]}-1]}" -s "PLOT_DIR=$PWD/plots" "$@"; }
# The first version is GOOD, state 0; measure them all, side by side.
tr measure "${V[@]}" | tee "$W/releases-measure.txt"
t2=$(date +%s)
echo "releases: measured in $((t2 - t1)) s"
paste <(printf '%s\n' "${V[@]}") <(grep "MB/s" "$W/releases-measure.txt" | cut -f3,4,5) |
  sed 's/^/release: /' 
tr bisect | tee "$W/releases-bisect.txt"
t3=$(date +%s)
echo "releases: bisect in $((t3 - t2)) s (after the measurements)"
tr plot
cp plots/tbisect.png plots/releases.png 2>/dev/null && echo "releases: plot plots/releases.png"
