#!/bin/bash
# Makes a kernel git history for the TREE-mode tests, on top of the
# pristine linux-source-6.1 commit of a prepared work tree:
#
#   tests/make-history.sh SRC_REPO DEST
#
# DEST is a new repository sharing SRC_REPO's objects.  Its branch "main"
# holds 32 first-parent commits after the base (tag v-good) up to the tip
# (tag v-bad), with two --no-ff merges of topic branches:
#   - topic-docs: three documentation commits;
#   - sched-wakeup: a comment change in kernel/sched/fair.c, then the
#     regression (tag culprit), then two neutral commits.
# One commit on main does not compile (tag broken); the next one repairs it.
# Commits are made with plumbing (no work tree needed) and fixed dates, so
# the ids are the same on every machine; main is checked out at the end.
#
# The regression is a real scheduler change: kernel/sched/features.h turns
# off WAKEUP_PREEMPTION, so a task woken by a tbench packet no longer
# preempts the sender.  Measured in icount mode, see README.md (TREE mode).
set -eu
src=$1 dst=$2
git clone -q --shared --no-checkout "$src" "$dst"
cd "$dst"
export GIT_INDEX_FILE=$PWD/.git/history-index
export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.org
export GIT_COMMITTER_NAME="A U Thor" GIT_COMMITTER_EMAIL=author@example.org
when=1700000000
head=$(git rev-parse tbisect-base^{commit})
git tag v-good "$head"
git read-tree "$head"

commit() {
  when=$((when + 60))
  export GIT_AUTHOR_DATE="$when +0000" GIT_COMMITTER_DATE="$when +0000"
  head=$(git commit-tree "$(git write-tree)" -p "$head" -m "$1")
}
# put PATH < content: the file as given.
put() { git update-index --add --cacheinfo "100644,$(git hash-object -w --stdin),$1"; }
# append PATH LINE: a line added at the end of a file.
append() { { git cat-file blob ":$1"; echo "$2"; } | put "$1"; }
# edit PATH SED: the file run through sed.
edit() {
  local old new
  old=$(git cat-file blob ":$1" | git hash-object --stdin)
  git cat-file blob ":$1" | sed "$2" | put "$1"
  new=$(git rev-parse ":$1")
  [ "$old" != "$new" ] || { echo "make-history: '$2' changed nothing in $1" >&2; exit 1; }
}
doc() { append "$1" "$2"; commit "$3"; }
switch() { head=$1; git read-tree "$head"; }
merge() {
  local p1=$head tree
  tree=$(git merge-tree --write-tree "$p1" "$1")
  when=$((when + 60))
  export GIT_AUTHOR_DATE="$when +0000" GIT_COMMITTER_DATE="$when +0000"
  head=$(git commit-tree "$tree" -p "$p1" -p "$1" -m "Merge branch '$2'")
  git read-tree "$head"
}

D=Documentation
for i in 1 2 3 4; do doc $D/process/howto.rst "Note $i." "docs: howto: note $i"; done
fork=$head
for i in 5 6 7 8; do doc $D/admin-guide/README.rst "Remark $i." "docs: admin-guide: remark $i"; done
main=$head
switch "$fork"
for i in 1 2 3; do doc $D/filesystems/proc.rst "Topic note $i." "docs: proc: topic note $i"; done
docs=$head
switch "$main"
merge "$docs" topic-docs
for i in 9 10 11; do doc $D/process/changes.rst "Change note $i." "docs: changes: note $i"; done
fork=$head
for i in 12 13; do doc $D/process/changes.rst "Change note $i." "docs: changes: note $i"; done
edit kernel/fork.c 's/^static int max_threads;/static int max_threads this is not C;/'
commit "fork: tidy max_threads (does not build)"
git tag broken "$head"
edit kernel/fork.c 's/^static int max_threads this is not C;/static int max_threads;/'
commit "fork: repair the build"
for i in 16 17; do doc $D/process/changes.rst "Change note $i." "docs: changes: note $i"; done
main=$head
switch "$fork"
edit kernel/sched/fair.c '0,/^ \* Targeted preemption latency/s//&: the latency targeted by CFS/'
commit "sched/fair: say what the targeted latency is"
edit kernel/sched/features.h 's/^SCHED_FEAT(WAKEUP_PREEMPTION, true)/SCHED_FEAT(WAKEUP_PREEMPTION, false)/'
commit "sched/features: do not preempt on wakeup"
git tag culprit "$head"
doc $D/scheduler/sched-design-CFS.rst "Wakeups no longer preempt." "docs: sched: wakeups do not preempt"
doc $D/scheduler/sched-design-CFS.rst "See features.h." "docs: sched: point to features.h"
sched=$head
switch "$main"
merge "$sched" sched-wakeup
for i in 18 19 20 21 22 23 24 25 26 27 28 29 30; do
  doc $D/process/howto.rst "Later note $i." "docs: howto: later note $i"
done
git tag v-bad "$head"
git branch -q -f main "$head"
git symbolic-ref HEAD refs/heads/main
rm -f "$GIT_INDEX_FILE"
unset GIT_INDEX_FILE
git reset -q --hard main
echo "$(git rev-list --first-parent --count v-good..v-bad) first-parent commits," \
  "$(git rev-list --merges --count v-good..v-bad) merges"
