#!/bin/bash
# Time to culprit on the shipped series: tbisect cold (empty work dir and
# ccache) and warm, against a plain hand-written "git bisect run" script,
# plus the physical-limit reference row.  Prints a table with ratios.
# Takes about an hour on a 2-core machine (the plain script rebuilds every
# kernel from scratch).  BENCH_SKIP_PLAIN=1 skips the plain script.
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD BIN=$TOP/tbisect
W=${BENCH_WORKDIR:-/tmp/tbisect-bench}
rm -rf "$W"; mkdir -p "$W"
export TBISECT_WORKDIR=$W
export CCACHE_DIR=$W/ccache
good=$(awk -F' *= *' '$1=="GOOD"{print $2}' bisect.conf)
bad=$(awk -F' *= *' '$1=="BAD"{print $2}' bisect.conf)
now() { date +%s.%N; }
el() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.0f", b-a}'; }
# Prefixes each line with the time it was written (for estimates.sh).
stamp() { while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done; }

echo "# cold: empty work dir and ccache"
t0=$(now); "$BIN" -q prepare; t1=$(now)
"$BIN" bisect >"$W/cold.out" 2> >(stamp >"$W/cold.err"); t2=$(now); sleep 1
cold_prepare=$(el "$t0" "$t1"); cold_bisect=$(el "$t1" "$t2")
culprit=$(sed -n 's/^first bad state: \([0-9]*\) .*/\1/p' "$W/cold.out")
cost=$(grep '^cost:' "$W/cold.out")
hits=$(ccache -s 2>/dev/null | awk '/Hits:/{print $2" hits of "$4; exit}')
echo "  prepare ${cold_prepare}s, bisect ${cold_bisect}s, culprit $culprit; $cost; ccache $hits"
echo "  $(grep '^phases:' "$W/cold.out")"
echo "  estimated against actual time left, cold:"
bash tests/bench/estimates.sh "$W/cold.err" "$t2"

echo "# warm: kernels and ccache filled, results cleared"
mv "$W/results.tsv" "$W/results.cold.tsv"
t0=$(now); "$BIN" bisect >"$W/warm.out" 2> >(stamp >"$W/warm.err"); t1=$(now); sleep 1
warm=$(el "$t0" "$t1"); echo "  bisect ${warm}s; $(grep '^cost:' "$W/warm.out")"
echo "  $(grep '^phases:' "$W/warm.out")"
echo "  estimated against actual time left, warm:"
bash tests/bench/estimates.sh "$W/warm.err" "$t1"

echo "# warm, one VM at a time (VMS=1): what side-by-side runs save"
mv "$W/results.tsv" "$W/results.warm.tsv"
t0=$(now); "$BIN" -s VMS=1 bisect >"$W/warm1.out" 2>"$W/warm1.err"; t1=$(now)
warm1=$(el "$t0" "$t1"); echo "  bisect ${warm1}s; $(grep '^cost:' "$W/warm1.out")"
culprit1=$(sed -n 's/^first bad state: \([0-9]*\) .*/\1/p' "$W/warm1.out")

echo "# warm ccache only: kernel cache and results cleared"
mv "$W/results.tsv" "$W/results.warm1.tsv"; rm -rf "$W/kernels"
ccache -z >/dev/null 2>&1
t0=$(now); "$BIN" bisect >"$W/cc.out" 2> >(stamp >"$W/cc.err"); t1=$(now); sleep 1
ccwarm=$(el "$t0" "$t1")
cchits=$(ccache -s 2>/dev/null | awk '/Hits:/{print $2" of "$4; exit}')
echo "  bisect ${ccwarm}s; $(grep '^cost:' "$W/cc.out"); ccache hits $cchits"
echo "  $(grep '^phases:' "$W/cc.out")"
echo "  estimated against actual time left, warm ccache only:"
bash tests/bench/estimates.sh "$W/cc.err" "$t1"
ccculprit=$(sed -n 's/^first bad state: \([0-9]*\) .*/\1/p' "$W/cc.out")

# Physical limit: (ceil(log2 N) + 2) x (one-file rebuild + link + boot + benchmark).
# State indexes of the range, from tbisect's state list (index, commit, kind, name, subject).
"$BIN" states >"$W/states.out"
gi=$(awk -F'\t' -v n="${good%.patch}" '$4==n || $4==n".patch"{print $1}' "$W/states.out")
bi=$(awk -F'\t' -v n="${bad%.patch}" '$4==n || $4==n".patch"{print $1}' "$W/states.out")
states=$(( bi - gi + 1 ))
onefile=$(grep -h build_seconds "$W"/kernels/*/info 2>/dev/null | cut -d= -f2 | sort -n | head -1)
read -r boot bench < <(awk -F'\t' 'NR>1 && $5=="ok"{b+=$13; t+=$14; n++} END{printf "%.1f %.1f\n", b/n, t/n}' "$W/results.warm.tsv")
limit=$(awk -v s="$states" -v o="${onefile:-6}" -v b="$boot" -v t="$bench" \
  'BEGIN{l=log(s-1)/log(2); c=int(l); if (c<l) c++; printf "%.0f", (c+2)*(o+b+t)}')

plain="skipped" plain_ok="-"
if [ -z "${BENCH_SKIP_PLAIN:-}" ]; then
  echo "# plain git bisect run (fresh O= without ccache per step, one wall-clock run, fixed threshold)"
  P=$W/plain-linux
  gc=$(awk -F'\t' -v i="$gi" '$1==i{print $2}' "$W/states.out")
  bc=$(awk -F'\t' -v i="$bi" '$1==i{print $2}' "$W/states.out")
  git clone -q --no-checkout "$W/linux" "$P" && git -C "$P" checkout -q "$bc"
  img=$(ls "$W"/images/*.cpio | head -1)
  # The hand-picked threshold: 2% under one wall-clock run of GOOD would be typical;
  # we give it the icount midpoint scaled to TCG speed it cannot know, so use a run.
  thr=${PLAIN_THRESHOLD:-}
  t0=$(now)
  if [ -z "$thr" ]; then
    git -C "$P" checkout -q "$gc"
    g1=$(cd "$P" && bash "$TOP/tests/bench/plain-step.sh" "$TOP/kconfig/tbench.config" "$img" 0 2>&1 | sed -n 's/.* \([0-9.]*\) MB\/s.*/\1/p')
    thr=$(awk -v g="$g1" 'BEGIN{printf "%.3f", g*0.97}')
  fi
  ( cd "$P" && git bisect start "$bc" "$gc" >/dev/null 2>&1 && \
    git bisect run bash "$TOP/tests/bench/plain-step.sh" "$TOP/kconfig/tbench.config" "$img" "$thr" ) >"$W/plain.out" 2>&1
  t1=$(now); plain=$(el "$t0" "$t1")
  pc=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit/\1/p' "$W/plain.out" | head -1)
  pci=$(awk -F'\t' -v c="${pc:0:12}" '$2==c{print $1}' "$W/states.out")
  plain_ok="state ${pci:-?}"
  echo "  ${plain}s, named $plain_ok (threshold $thr MB/s)"
fi

echo
echo "time to culprit, range $good .. $bad ($states states), 2 cores"
printf "%-44s %9s %12s %10s\n" "method" "seconds" "culprit" "vs tbisect"
printf "%-44s %9s %12s %10s\n" "tbisect cold (empty work dir + ccache)" "$((cold_prepare + cold_bisect))" "state $culprit" "1.00"
printf "%-44s %9s %12s %10s\n" "tbisect warm (kernels cached)" "$warm" "state $culprit" \
  "$(awk -v a="$warm" -v t="$((cold_prepare + cold_bisect))" 'BEGIN{printf "%.2f", a/t}')"
printf "%-44s %9s %12s %10s\n" "tbisect warm, one VM at a time (VMS=1)" "$warm1" "state $culprit1" \
  "$(awk -v a="$warm1" -v t="$((cold_prepare + cold_bisect))" 'BEGIN{printf "%.2f", a/t}')"
printf "%-44s %9s %12s %10s\n" "tbisect warm ccache only" "$ccwarm" "state $ccculprit" \
  "$(awk -v a="$ccwarm" -v t="$((cold_prepare + cold_bisect))" 'BEGIN{printf "%.2f", a/t}')"
printf "%-44s %9s %12s %10s\n" "physical limit (log2 N + 2) x one step" "$limit" "-" "-"
if [ "$plain" != skipped ]; then
  printf "%-44s %9s %12s %10s\n" "plain git bisect run" "$plain" "$plain_ok" \
    "$(awk -v p="$plain" -v t="$((cold_prepare + cold_bisect))" 'BEGIN{printf "%.2fx", p/t}')"
fi
awk -v w="$warm" -v c="$ccwarm" -v l="$limit" \
  'BEGIN{printf "ratio to the physical limit: warm %.2f, warm ccache only %.2f\n", w/l, c/l}'
if [ "$plain" != skipped ]; then
  awk -v p="$plain" -v w="$warm" -v c="$ccwarm" -v t="$((cold_prepare + cold_bisect))" \
    'BEGIN{printf "plain script / tbisect: cold %.2fx, warm ccache only %.2fx, warm %.2fx\n", p/t, p/c, p/w}'
fi
