#!/bin/bash
# Estimated against actual time left at each step of a bisection.
# Usage: estimates.sh TIMESTAMPED-STDERR END-EPOCH
# The input is tbisect's stderr with each line prefixed by its epoch time
# (see stamp() in time-to-culprit.sh).  Prints one row per "bisect: testing"
# line: its estimate, the time that was really left, their ratio; then the
# worst ratio either way (the aim is within 2x at every step).
f=$1 end=$2
awk -v end="$end" '
function secs(s,   n, a, i, t) {
  n = split(s, a, " "); t = 0
  for (i = 1; i < n; i += 2) {
    if (a[i+1] == "h") t += 3600 * a[i]; else if (a[i+1] == "min") t += 60 * a[i]; else t += a[i]
  }
  return t
}
/bisect: testing/ {
  if (!match($0, /~[^)]*\)/)) next
  est = secs(substr($0, RSTART + 1, RLENGTH - 2)); act = end - $1
  r = act > 0 ? est / act : 0
  printf "  step %-2d  estimated %6.0f s  actual %6.0f s  ratio %5.2f\n", ++n, est, act, r
  if (r > 0 && (worst == 0 || (r > 1 ? r : 1 / r) > worst)) worst = r > 1 ? r : 1 / r
}
END { if (n) printf "  worst ratio over %d steps: %.2fx\n", n, worst; else print "  no estimates printed" }' "$f"
