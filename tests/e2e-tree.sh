# End-to-end tests of TREE mode: a kernel git history (tests/make-history.sh,
# 32 first-parent commits, 2 --no-ff merges, a scheduler regression inside
# the second merged branch, one commit that does not build) bisected with
# the real engine, builds and boots.  Sourced by tests/run.sh after the
# series tests: uses its helpers (ok, no, check, tb, has), $W (a prepared
# work directory whose linux/ holds the pristine base) and $T.
U=$T/user
bash tests/make-history.sh "$W/linux" "$U" >"$T/out" 2>&1
check "history made: 32 first-parent commits, 2 merges" grep -q "^32 first-parent commits, 2 merges" "$T/out"
# The user has work in progress: it must survive every command.
echo "local change" >>"$U/MAINTAINERS"
echo "untracked" >"$U/my-notes.txt"
user_state() {
  git -C "$U" rev-parse HEAD; git -C "$U" status --porcelain; git -C "$U" for-each-ref
  git -C "$U" stash list; md5sum <"$U/MAINTAINERS"
}
before=$(user_state | md5sum)
culprit=$(git -C "$U" rev-parse culprit)
broken=$(git -C "$U" rev-parse broken)
cat >"$T/tree.conf" <<CONF
TREE = $U
GOOD = v-good
BAD = v-bad
KCONFIG = $TOP/kconfig/tbench.config
IMAGE_INIT = $TOP/images/init
PLOT_DIR = $T/plots
CONF
grep -v '^GOOD\|^BAD' "$T/tree.conf" >"$T/tree-norange.conf"
tt() { "$BIN" -c "$T/tree.conf" "$@" >"$T/out" 2>&1; st=$?; }

tt states
check "states: GOOD and the 32 first-parent commits" test "$st" = 0 -a "$(grep -c $'^[0-9]' "$T/out")" = 33
check "states: the two merges are marked" test "$(grep -c $'\tmerge\t' "$T/out")" = 2
check "states: the branch's commits are not on the first-parent line" test -z "$(grep "do not preempt" "$T/out")"
check "states: a tagged commit is named by its tag (v-good first, broken, v-bad last), others by short id" \
  test "$(awk -F'\t' '$1 ~ /^[0-9]+$/ && !(length($4) == 12 && $4 ~ /^[0-9a-f]+$/) { printf "%s ", $4 }' "$T/out")" = "v-good broken v-bad "
# A config range in TREE mode: two configurations at one of the user's
# revisions, made in tbisect's own clone; the user's refs untouched.
{ cat "$TOP/kconfig/examples/cfs-bandwidth-good.config"; printf 'CONFIG_CFS_BANDWIDTH=y\nCONFIG_FHANDLE=y\n'; } >"$T/tree-bad.config"
tt -s GOOD_CONFIG="$TOP/kconfig/examples/cfs-bandwidth-good.config" -s BAD_CONFIG="$T/tree-bad.config" -s AT=v-good states
check "TREE config range: listed at AT=v-good (exit $st), GOOD's configuration and one step per option or group" \
  test "$st" = 0 -a "$(grep -P '^[0-9]+\t[0-9a-f]{12}\tok\t' "$T/out" | cut -f4 | tr '\n' ' ')" = "good-config CONFIG_CFS_BANDWIDTH CONFIG_FHANDLE+1 "
check "TREE config range: made on the revision AT names, in tbisect's clone, not in the user's repository" \
  test -n "$(grep "at $(git -C "$U" rev-parse --short=12 v-good)" "$T/out")" -a -z "$(git -C "$U" for-each-ref refs/tbisect)"
tt states v-bad v-good
check "GOOD not an ancestor of BAD: exit 2, said" test "$st" = 2 -a -n "$(grep "is not an ancestor" "$T/out")"
tt states v-good no-such-rev
check "unknown revision: exit 2, named" test "$st" = 2 -a -n "$(grep "'no-such-rev' is not a commit" "$T/out")"
"$BIN" -c "$T/tree-norange.conf" bisect >"$T/out" 2>&1; st=$?
check "no GOOD in TREE mode: exit 2, says what to set" test "$st" = 2 -a -n "$(grep "TREE mode needs GOOD" "$T/out")"

# A commit that does not build is a skip with the compiler's words.  It is
# the first build in this tree's O= directory: a full one, run on a
# pseudo-terminal (script(1)) to see its progress line.
script -qec "$(printf '%q ' "$BIN" -c "$T/tree.conf" measure broken)" "$T/pty" >"$T/out" 2>&1; st=$?
check "TREE: commit that does not build is a skip (exit 125)" test "$st" = 125
check "build progress on a terminal: steps done of expected, percent, time left" \
  grep -aqE "build: .*full build: [0-9]+/[0-9]+ steps \([0-9]+%\), .* elapsed, about .* left" "$T/pty"
check "build progress on a terminal: one line rewritten in place" \
  test "$(grep -ac $'\r\033\\[Ktbisect: build: ' "$T/pty")" -ge 1
has "does not compile" && ok "TREE: compiler error shown" || no "TREE: compiler error shown"

# Bisect, killed with -9 mid-way, then resumed.
"$BIN" -c "$T/tree.conf" bisect >"$T/out" 2>&1 &
pid=$!
# Killed once two runs are recorded, in the middle of what follows.
n0=$(nlines)
for i in $(seq 1 1200); do
  [ "$(nlines)" -ge $((n0 + 2)) ] && break; kill -0 $pid 2>/dev/null || break; sleep 1
done
sleep 2
running=$(kill -0 $pid 2>/dev/null && echo yes || echo no)
kill -9 $pid; wait $pid 2>/dev/null
check "TREE: kill -9 lands on a running bisection ($running), after $(( $(nlines) - n0 )) of its runs were recorded" \
  test "$running" = yes -a "$(nlines)" -ge $((n0 + 2))
gone "TREE: kill -9 during a bisect"
n1=$(nlines)
t1=$(date +%s)
tt bisect
echo "# TREE bisect after the kill: $(( $(date +%s) - t1 )) s, runs recorded before it: $n1"
grep -E "^(level|first bad|merge:|total:|cost:|phases:)" "$T/out" | sed 's/^/#   /'

check "TREE bisect names the commit inside the branch (exit $st)" \
  test "$st" = 0 -a -n "$(grep "^first bad commit: $culprit sched/features: do not preempt on wakeup" "$T/out")"
merge0=$(git -C "$U" rev-parse v-bad~13)
check "TREE bisect descended into the merge" test -n "$(grep "^merge: level 0 descended into $merge0" "$T/out")"
check "TREE bisect resumed from the $((n1 - n0)) runs before the kill" test -n "$(grep "^tbisect: resumed:" "$T/out")" -a "$n1" -ge $((n0 + 2))
again=$(awk -F'\t' -v n="$n1" 'NR>1 && $5=="ok" && NR<=n {had[$1]++} NR>n && $5=="ok" && had[$1]>=2 {x++} END{print x+0}' "$W/results.tsv")
check "TREE resume repeated no run the bisection already had ($again)" test "$again" = 0
"$BIN" -c "$T/tree.conf" report >"$T/out" 2>&1; st=$?
check "TREE report names the first bad commit by its id, its tag and the merge it was in" \
  test "$st" = 0 -a -n "$(grep "^first bad: $culprit (culprit) sched/features: do not preempt on wakeup" "$T/out")" \
       -a -n "$(grep "found inside merge ${merge0:0:12}" "$T/out")"
# Column 7 is the tic ("N name"), 8 the subject.
check "TREE plot names the tagged culprit by its tag, the other commits by their subject, none by a short id" \
  test -n "$(awk -F'\t' '$7 ~ /^[0-9]+ culprit$/' "$T/plots/tbisect.dat")" \
       -a "$(awk -F'\t' '$7 != " " && index($8, substr($7, index($7, " ") + 1)) == 1' "$T/plots/tbisect.dat" | wc -l)" -ge 2 \
       -a -z "$(awk -F'\t' '$7 ~ /^[0-9]+ [0-9a-f]+$/' "$T/plots/tbisect.dat")"
check "the user's tree is untouched: HEAD, index, work tree, refs" test "$(user_state | md5sum)" = "$before"

# culprits over the merge's step descends into the branch, as bisect does.
merge=$(git -C "$U" rev-parse v-bad~13)
tt culprits v-bad~14 v-bad~13
check "TREE culprits: the merge is a change and its branch is searched (exit $st)" \
  test "$st" = 0 -a -n "$(grep "^merge ${merge:0:12}: searching its branch" "$T/out")"
check "TREE culprits names the commit inside the merged branch" \
  test -n "$(grep "^first bad commit: $culprit sched/features: do not preempt on wakeup" "$T/out")"
# attribute: the merge backed out (-m 1), a commit inside the branch (off the
# first-parent line) backed out, and a revert that does not apply.
tt attribute v-bad~14 v-bad~13 --revert culprit --revert broken
sed -n '/^attribution at/,/^cost/p' "$T/out" | sed 's/^/#   /'
recovered() { awk -v c="$1" '$2 == c { sub("%", "", $4); print $4 }' "$T/out"; }
r_merge=$(recovered "${merge:0:12}"); r_cul=$(recovered "${culprit:0:12}")
check "TREE attribute: backing out the merge recovers > 1% ($r_merge)" \
  awk -v r="$r_merge" 'BEGIN { exit !(r + 0 > 1) }'
check "TREE attribute: backing out the commit inside the branch recovers > 1% ($r_cul)" \
  awk -v r="$r_cul" 'BEGIN { exit !(r + 0 > 1) }'
check "TREE attribute: a revert that does not apply is reported, not measured" \
  test -n "$(awk -v c="${broken:0:12}" '$2 == c && $3 == "no-revert"' "$T/out")"
tt attribute v-bad~14 v-bad~13 --revert v-bad~2
check "TREE attribute: a commit BAD does not contain is refused (exit $st)" \
  test "$st" = 2 -a -n "$(grep "is not in BAD" "$T/out")"

# A config the commit cannot give is a skip, never a run with another setup.
printf 'CONFIG_TBISECT_NO_SUCH_OPTION=y\n' >"$T/impossible.config"
TBISECT_WORKDIR=$T/w-cfg tt -s "KCONFIG=$T/impossible.config" measure v-good
check "TREE: a required option missing from the resolved config is a skip (exit $st)" \
  test "$st" = 125 -a -n "$(grep "resolved .config lacks CONFIG_TBISECT_NO_SUCH_OPTION=y" "$T/out")"
check "TREE: a config skip is not called a compile failure" \
  test -n "$(grep "cannot be configured for the benchmark" "$T/out")" -a -z "$(grep "does not compile" "$T/out")"
rm -rf "$T/w-cfg"
check "the user's tree is still untouched" test "$(user_state | md5sum)" = "$before"

# A build that times out is a skip now, not a state remembered as broken.
TBISECT_WORKDIR=$T/w-to tt -s BUILD_TIMEOUT=10 measure v-good
check "build timeout: a skip (exit $st), said, not called a compile failure" \
  test "$st" = 125 -a -n "$(grep "the build timed out after" "$T/out")" -a -z "$(grep "does not compile" "$T/out")"
check "build timeout: not recorded, the next command builds again" test -z "$(ls "$T"/w-to/kernels/*/info 2>/dev/null)"
rm -rf "$T/w-to"

# releases: a version apt would read as more than a version is refused.
tb releases '6.1.170-3;ls'
check "releases: a malformed version is refused (exit 2)" test "$st" = 2 -a -n "$(grep "is not a Debian version" "$T/out")"
