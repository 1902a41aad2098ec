#!/bin/bash
# Benchmark: listing the states of a large TREE range.  Makes a repository
# of N first-parent commits (default 10000, one merge of a 5-commit topic
# branch every 100) with git fast-import, then times `tbisect states` over
# the whole range: one git log, no process per commit.
set -eu
cd "$(dirname "$0")/../.."
N=${N:-10000}
T=$(mktemp -d /tmp/tbisect-bench-range.XXXXXX)
trap 'rm -rf "$T"' EXIT
git init -q "$T/repo"
{
  t=1700000000 mark=0 main=""
  for ((i = 1; i <= N; i++)); do
    t=$((t + 1))
    if (( i % 100 == 0 )); then
      # A topic branch of five commits off the current tip, merged --no-ff.
      base=$main
      for k in 1 2 3 4 5; do
        mark=$((mark + 1))
        printf 'commit refs/heads/topic\nmark :%d\ncommitter B <b@x> %d +0000\ndata 12\ntopic %05d\nfrom :%d\nM 644 inline topic/%d\ndata 2\n%d\n' \
          $mark $t $k $( ((k == 1)) && echo $base || echo $((mark - 1)) ) $k $k
      done
      topic=$mark
      mark=$((mark + 1))
      printf 'commit refs/heads/main\nmark :%d\ncommitter A <a@x> %d +0000\ndata 14\nmerge %07d\nfrom :%d\nmerge :%d\n' \
        $mark $t $i $main $topic
    else
      mark=$((mark + 1))
      printf 'commit refs/heads/main\nmark :%d\ncommitter A <a@x> %d +0000\ndata 15\ncommit %07d\n' $mark $t $i
      [ -n "$main" ] && printf 'from :%d\n' $main
      printf 'M 644 inline file\ndata %d\n%07d\n' 8 $i
    fi
    main=$mark
  done
} | git -C "$T/repo" fast-import --quiet
git -C "$T/repo" tag first "$(git -C "$T/repo" rev-list --max-parents=0 main)"
fp=$(git -C "$T/repo" rev-list --first-parent --count first..main)
all=$(git -C "$T/repo" rev-list --count first..main)
s=$(date +%s.%N)
TBISECT_WORKDIR=$T/w ./tbisect -s "TREE=$T/repo" -s GOOD=first -s BAD=main states >"$T/states" 2>/dev/null
e=$(date +%s.%N)
cold=$(echo "$e - $s" | bc)
s=$(date +%s.%N)
TBISECT_WORKDIR=$T/w ./tbisect -s "TREE=$T/repo" -s GOOD=first -s BAD=main states >"$T/states" 2>/dev/null
e=$(date +%s.%N)
warm=$(echo "$e - $s" | bc)
listed=$(($(wc -l <"$T/states") - 1))
merges=$(grep -c $'\tmerge\t' "$T/states")
printf 'git range: %d commits (%d first-parent, %d merges listed): states listed %d\n' "$all" "$fp" "$merges" "$listed"
printf 'git range: tbisect states %.3f s with the clone made, %.3f s after (%.1f us per state)\n' \
  "$cold" "$warm" "$(echo "$warm * 1000000 / $listed" | bc -l)"
[ "$listed" = $((fp + 1)) ]
