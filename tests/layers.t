#!/bin/bash
# layers.t: src/ stands in five layers, drawn from the code's own includes
# and calls: a module uses only modules of its own layer or below, no two
# modules use each other (directly or round a loop), and the commands stand
# side by side in the top layer, none using another.
#
# The layers, one per row, are the folders (README.md, Layout):
#   4  src/cmd/ and src/main.c  the commands, and the table that runs them
#   3  src/shared/              what the commands share (cmd, why, changes, cfgneed)
#   2  src/measure/ src/output/ measured states and runs; plots and reports
#   1  src/kernel/ src/guest/ src/engine/   the tree and builds; the VM and
#                               its benchmarks; the bisection and statistics
#   0  src/base/                util, run, conf, lock, progress
# A module is a .c file with the header of its name; a header with no .c
# of its own (commands.h) is a module of its folder too.  "Uses" is an
# #include "x.h" in the module's .c or .h, or a call (a symbol its object
# needs that another's defines, from nm).
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

layer_of() {
	case $1 in
	src/base) echo 0 ;;
	src/kernel | src/guest | src/engine) echo 1 ;;
	src/measure | src/output) echo 2 ;;
	src/shared) echo 3 ;;
	src/cmd | src) echo 4 ;;
	*) echo unknown ;;
	esac
}

inc=$(for d in src/*/; do printf -- '-I%s ' "${d%/}"; done)
pk=$(pkg-config --cflags inih gsl libcrypto jansson 2>/dev/null)
: >"$tmp/mods"
fail_compile=""
for c in $(find src -name '*.c' ! -name tbprof.c | sort); do
	m=$(basename "$c" .c)
	echo "$m $(layer_of "$(dirname "$c")") $c" >>"$tmp/mods"
	# shellcheck disable=SC2086
	cc -c -O0 -std=gnu11 -D_GNU_SOURCE $inc $pk -o "$tmp/$m.o" "$c" 2>>"$tmp/cc.err" ||
		fail_compile="$fail_compile $c"
	nm -g --defined-only "$tmp/$m.o" | awk -v m="$m" 'NF == 3 { print $3, m }' >>"$tmp/defs"
	nm -u "$tmp/$m.o" | awk -v m="$m" '{ print m, $NF }' >>"$tmp/undef"
	h=${c%.c}.h
	for f in "$c" $( [ -f "$h" ] && echo "$h"); do
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)\.h".*/\1/p' "$f" |
			awk -v m="$m" '{ n = split($1, p, "/"); print m, p[n] }' >>"$tmp/incs"
	done
done
for h in $(find src -name '*.h' | sort); do
	m=$(basename "$h" .h)
	[ -f "${h%.h}.c" ] && continue
	echo "$m $(layer_of "$(dirname "$h")") $h" >>"$tmp/mods"
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)\.h".*/\1/p' "$h" |
		awk -v m="$m" '{ n = split($1, p, "/"); print m, p[n] }' >>"$tmp/incs"
done

# Edges "from to why": calls through the symbol table, then includes.
awk 'FNR == NR { def[$1] = $2; next } ($2 in def) && def[$2] != $1 { print $1, def[$2], $2 }' \
	"$tmp/defs" "$tmp/undef" >"$tmp/edges"
awk 'FNR == NR { mod[$1] = 1; next } ($2 in mod) && $2 != $1 { print $1, $2, "#include " $2 ".h" }' \
	"$tmp/mods" "$tmp/incs" >>"$tmp/edges"
sort -u -k1,2 "$tmp/edges" -o "$tmp/edges"

n=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
echo "1..6"

[ -z "$fail_compile" ]
ok $? "every module compiles on its own (its headers are whole)"
[ -n "$fail_compile" ] && sed 's/^/# /' "$tmp/cc.err"

nmod=$(wc -l <"$tmp/mods")
[ "$nmod" -ge 30 ] && [ "$(wc -l <"$tmp/edges")" -gt "$nmod" ]
ok $? "the graph was read: $nmod modules, $(wc -l <"$tmp/edges") uses"

awk '{ print $2 }' "$tmp/mods" | grep -qx unknown
unk=$?
grep -w unknown "$tmp/mods" | sed 's/^/# a folder with no layer: /'
nl=$(awk '{ print $2 }' "$tmp/mods" | sort -u | wc -l)
[ $unk -ne 0 ] && [ "$nl" -le 5 ]
ok $? "every folder has a layer, and there are at most 5 of them ($nl)"

up=$(awk 'FNR == NR { L[$1] = $2; next } L[$2] > L[$1] { printf "%s (layer %d) uses %s (layer %d): %s\n", $1, L[$1], $2, L[$2], $3 }' \
	"$tmp/mods" "$tmp/edges")
[ -z "$up" ]
ok $? "no module uses one in a layer above its own"
[ -n "$up" ] && echo "$up" | sed 's/^/# /'

# tsort names a loop when there is one.
awk '{ print $2, $1 }' "$tmp/edges" | tsort >/dev/null 2>"$tmp/tsort.err"
[ ! -s "$tmp/tsort.err" ]
ok $? "no cycle: no two modules use each other, directly or round a loop"
sed 's/^/# /' "$tmp/tsort.err"

cc=$(awk 'FNR == NR { if ($3 ~ /^src\/cmd\/cmd_.*\.c$/) c[$1] = 1; next } ($1 in c) && ($2 in c) { print $1, "uses", $2 ": " $3 }' \
	"$tmp/mods" "$tmp/edges")
top=$(awk '$3 ~ /^src\/cmd\// && $2 != 4' "$tmp/mods")
[ -z "$cc" ] && [ -z "$top" ]
ok $? "the command files stand side by side in the top layer, none using another"
[ -n "$cc$top" ] && printf '%s\n%s\n' "$cc" "$top" | sed '/^$/d; s/^/# /'

# For the record: the longest chain of uses, module by module.
awk '{ print $2, $1 }' "$tmp/edges" | tsort 2>/dev/null >"$tmp/order"
awk 'FNR == NR { d[$1] = 0; ord[++k] = $1; next } { e[$1] = e[$1] " " $2 }
     END { best = 0
	   for (i = 1; i <= k; i++) { m = ord[i]; n = split(e[m], t, " ")
		for (j = 1; j <= n; j++) if (d[t[j]] + 1 > d[m]) d[m] = d[t[j]] + 1
		if (d[m] > best) best = d[m] }
	   printf "# longest chain of uses: %d modules\n", best + 1 }' "$tmp/order" "$tmp/edges"
