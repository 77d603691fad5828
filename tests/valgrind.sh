#!/bin/sh
# tests/valgrind.sh (make check-valgrind; CI runs it on the plain build):
# a representative set of runs under valgrind memcheck -- unit tests, the
# fuzz replays of every kept finding, and tflame's batch modes on ordinary,
# perf script, threaded and hostile inputs. Each must report no error and no
# definitely lost block (--error-exitcode, --errors-for-leak-kinds=definite).
# Prints TAP; exit 1 on any failure, 77 (skip) without valgrind.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
command -v valgrind >/dev/null 2>&1 || { echo "1..0 # SKIP valgrind is not installed"; exit 77; }
D=$T_TMP
# PCRE2's JIT code reads whole words past what it matches: valgrind takes
# that for errors, so the regexes run on PCRE2's interpreter here (rx.c).
export TFLAME_NO_JIT=1
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite"

# vg NAME CMD...: one TAP line; valgrind's report goes to the log on failure.
vg() {
	name=$1; shift
	rc=0
	$VG --log-file="$D/vg.log" "$@" > "$D/out" 2> "$D/err" || rc=$?
	if [ "$rc" -eq 99 ] || [ -s "$D/vg.log" ]; then
		fail "valgrind: $name" "$(head -40 "$D/vg.log")"
	elif [ "$rc" -gt 2 ]; then
		fail "valgrind: $name" "exit status $rc" "$(head -5 "$D/err")"
	else
		pass "valgrind: $name"
	fi
}

for t in test_tree test_folded test_perfscript test_text test_layout test_sniff test_strtab test_treeorder test_treeperm test_search test_rx test_searchidx test_timeline test_heatmap test_timeindex test_lineedit test_dsomap test_pprof test_source \
	test_speedscope test_cpuprofile test_json test_jsonscan test_nodewalk test_xalloc test_svg test_palette test_conf test_clip test_unit test_arena test_treejoin test_treejoin2 \
	test_prefault; do
	vg "unit $t" "$top_builddir/tests/unit/$t"
done
for h in folded perf sniff load; do
	set -- "$top_srcdir"/tests/data/fuzz/$h/*
	[ -f "$1" ] && vg "fuzz replay $h ($# findings)" "$top_builddir/tests/fuzz/replay_$h" "$@"
done

F=$top_srcdir/tests/ui/basic.folded
vg "--collapse" "$TFLAME" --collapse "$F"
# the browser, headless: moves, zoom, a search, n/N, *, H, undo, the table
printf 'size=60x12 k k Enter / type=a Enter n N * H type=b Enter u t j Esc BS dump q\n' > "$D/keys"
vg "--script (the browser headless)" "$TFLAME" --script="$D/keys" "$F"
# the views of sample times: the heat map, a range and back, the flame
# chart, the thread picker, a search shown on the heat map, the details
printf 'size=100x30 t v l*25 Enter BS a C C T Space Enter / type=b Enter t Esc d p S q\n' > "$D/keys"
vg "--script (heat map, range, chart, threads, details)" "$TFLAME" --script="$D/keys" \
	"$top_srcdir/tests/data/three.perf"
# the details with perf input: the samples behind the amounts through a
# range, a focus and its undo; the objects of frames read in 3 pieces
printf 'size=100x30 d k k t v l*25 Enter k f u BS a q\n' > "$D/keys"
vg "--script (details: samples through a range and a transform)" "$TFLAME" --script="$D/keys" \
	"$top_srcdir/tests/data/three.perf"
gzip -dc "$top_srcdir/tests/data/minisearch.perf.gz" > "$D/m.perf"
printf 'size=100x30 d k k k k dump q\n' > "$D/keys"
vg "--script --threads=3 (details: objects merged from pieces)" "$TFLAME" --threads=3 --script="$D/keys" "$D/m.perf"
vg "--print" "$TFLAME" --print -w 80 "$F"
# a Go CPU profile read in parts on two threads, as big ones are
export TFLAME_PARTS=1
vg "pprof in parts, 2 threads" "$TFLAME" --threads=2 --collapse "$top_srcdir/tests/data/pprof/cpu.pb.gz"
unset TFLAME_PARTS
vg "--print --inverted --sort=weight" "$TFLAME" --print -i --sort=weight -w 33 "$F"
vg "--print --sort=input (flame chart)" "$TFLAME" --print --sort=input -w 50 "$F"
vg "--print --search" "$TFLAME" --print -w 80 --search='pars|^e' "$F"
vg "--print --colors=java" "$TFLAME" --print -w 80 --colors=java "$F"
vg "--collapse from a pipe" sh -c "cat '$F' | $VG --log-file='$D/vg2.log' '$TFLAME' --collapse; test ! -s '$D/vg2.log'"
gzip -dc "$top_srcdir/tests/data/minisearch.perf.gz" > "$D/p.perf"
vg "perf script" "$TFLAME" --collapse --all "$D/p.perf"
vg "perf script on 3 threads" "$TFLAME" --collapse --threads=3 --pid "$D/p.perf"
vg "perf script --print" "$TFLAME" --print -w 120 "$D/p.perf"

# Hostile inputs (see tests/hostile.sh), smaller.
printf 'a\000b;c 3\n\000\000\000\nx;y 2\nbig 18446744073709551616\nneg -4\n' > "$D/h1"
printf 'evil\033[31m;\033]0;t\007x;\302\233y;z\342\200\256w 4\nok \377\376;\303 2\n' >> "$D/h1"
vg "hostile names and counts" "$TFLAME" --collapse "$D/h1"
vg "hostile names --print" "$TFLAME" --print -w 60 "$D/h1"
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "%sf%d", i ? ";" : "", i; printf " 7\nmain 1\n" }' > "$D/deep"
vg "20,000-frame stack --print" "$TFLAME" --print -w 30 "$D/deep"
LC_ALL=C awk 'BEGIN { x = 7; for (i = 0; i < 50000; i++) { x = (x * 1103515 + 12345) % 2147483648
	printf "%c", int(x / 65536) % 255 + 1 } }' > "$D/garbage"
vg "binary garbage" "$TFLAME" --collapse "$D/garbage"
vg "binary garbage as perf" "$TFLAME" --collapse --format=perf "$D/garbage"
: > "$D/empty"
vg "empty file --print" "$TFLAME" --print "$D/empty"
vg "missing file" "$TFLAME" --collapse "$D/no-such-file"
vg "directory" "$TFLAME" --collapse "$D"

done_testing
