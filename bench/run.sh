#!/bin/sh
# tflame benchmarks: `make bench` runs this with the build directory as cwd.
#
# usage: run.sh [--quick] [--gen-only] [--load-only] [--time-only] [--size N[K|M|G]] [--seed N]
#   (the same words may come in $BENCH_ARGS: `BENCH_ARGS=--quick make bench`)
#
#   --quick     64 MiB inputs instead of 1 GiB (well under a minute)
#   --gen-only  generate the inputs, measure nothing
#   --load-only the folded inputs only: issue 20's load table and their
#               times to first paint (first screen, whole profile)
#   --time-only the inputs with sample times only (perf script, trace):
#               the time views' keys
#
# Inputs go to bench/data/ under the build directory and are reused while the
# generator, size and seed are unchanged (bench/data/NAME.stamp):
#   folded-sorted    genfolded: unique stacks, byte-wise sorted (collapser output)
#   folded-shuffled  the same lines in random order
#   folded-real-*    genfolded --real (real-shaped: deep, a node per ~350 B),
#                    sorted and shuffled
#   perf             genperf: records of real `perf script` recordings, varied
#   pprof            genpprof: a Go-shaped pprof profile, raw and gzip -1,
#                    and with each stack once (--unique)
#   json             genjsonprof.py: a V8 .cpuprofile and a speedscope file
#                    (skipped without python3)
#   trace            gentrace: a Chrome trace of 10 million timed samples on
#                    8 threads (1 million with --quick), for the time views
# Recordings for the perf input come from $TFLAME_BENCH_PERF (a directory of
# *.perf.txt files); without it, bench/data/recordings/ is used, where this
# script records bench/workload/minisearch with `perf record -g` if it can.
#
# For each input it prints: size, lines, `cat > /dev/null` MB/s (best of 3),
# `tflame --collapse FILE > /dev/null` seconds and MB/s (best of 3), the
# target MB/s, peak RSS (/usr/bin/time, Debian package `time`), and tree
# nodes, unique names and bytes per node when tflame has `--stats` (a line
# "nodes N names N bytes N" on stderr). The collapse column checks that
# `tflame --collapse` of both folded inputs reproduces the sorted file byte
# for byte. MB means MiB (2^20 bytes) throughout. Then issue 20's load
# table: the four folded inputs on 1 and 2 threads side by side, wall and
# CPU (user + sys) seconds, best of BENCH_LOAD_RUNS (default 5), each file's
# page cache put in a known state first (read: dropped and read once; the
# shuffled files also as written 4 KiB at a time: see cache_read). Then time
# to first paint: to the first screen (a preview while a long load goes on;
# the real-shaped shuffled file's against 1 s) and to the whole profile's
# (best of 3 each), keys on the largest tree and searches (from inside
# tflame: --bench-keys), each the run of BENCH_RUNS with the lowest maximum,
# with the highest maximum of all runs beside it.
#
# Then the other readers on the pprof and JSON inputs (a quarter of the
# main size), best of BENCH_LOAD_RUNS: the load (tflame --print -w 1, as
# the folded rows) against the targets, then tflame --collapse: wall and
# CPU (user + sys) seconds, MB/s of the uncompressed input by wall (the
# targets', as the folded rows') and by CPU time (the steadier figure on a
# shared machine), --svg, and `go tool pprof -traces` on the same pprof
# file when go is installed.
#
# Last, perf.data files: two recordings of bench/workload/minisearch made
# with perf record in a temp dir (frame pointers and DWARF, BENCH_PERFDATA_MB
# each, default 200, 32 with --quick, 0 to skip): perf script -i F | tflame
# --collapse - against tflame --collapse F (wall time, peak RSS, speedup),
# whether both give the same bytes (MATCH/DIFFER, with the first differing
# lines), and time to first paint both ways. Skipped without perf or without
# permission to record (kernel.perf_event_paranoid).
#
# Environment: TFLAME (default ./src/tflame), CC (default cc), BENCH_RUNS
# (default 3), BENCH_LOAD_RUNS (default 5), TFLAME_BENCH_PERF,
# BENCH_PERFDATA_MB.
set -eu

srcdir=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
TFLAME=${TFLAME:-./src/tflame}
# A user's config file (sort, threads, ...) must not change what is measured.
export TFLAME_CONFIG=
CC=${CC:-cc}
runs=${BENCH_RUNS:-3}
data=bench/data
bin=$data/bin

quick=0 gen_only=0 load_only=0 time_only=0 size='' seed=1
# shellcheck disable=SC2086 # BENCH_ARGS is a list of words
set -- ${BENCH_ARGS:-} "$@"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--gen-only) gen_only=1 ;;
	--load-only) load_only=1 ;;
	--time-only) time_only=1 ;;
	--size) size=$2; shift ;;
	--seed) seed=$2; shift ;;
	-h|--help) sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p;}' "$0"; exit 0 ;;
	*) echo "run.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$size" ] || { [ $quick = 1 ] && size=64M || size=1G; }

die() { echo "run.sh: $*" >&2; exit 1; }
now() { date +%s.%N; }
# elapsed T0 T1 -> seconds
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# rate BYTES SECONDS -> MiB/s
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.1f", n / 1048576 / s; else print "-" }'; }
filesize() { wc -c < "$1" | tr -d ' '; }
sum_of() { cksum < "$1" | cut -d' ' -f1,2; }

mkdir -p "$bin" "$data/recordings"

# ---- generators -----------------------------------------------------------
build() { # NAME SOURCE [LIBS]: rebuilt when the source changes
	id=$(cksum < "$2")
	if [ ! -x "$bin/$1" ] || [ "$(cat "$bin/$1.id" 2> /dev/null)" != "$id" ]; then
		# shellcheck disable=SC2086
		$CC -std=c11 -O2 -o "$bin/$1" "$2" ${3:-} || die "cannot build $1"
		echo "$id" > "$bin/$1.id"
	fi
}
build genfolded "$srcdir/bench/genfolded.c" -lm
build genperf "$srcdir/bench/genperf.c"
build ptyrun "$srcdir/bench/ptyrun.c" -lutil
build genpprof "$srcdir/bench/genpprof.c"
build gentrace "$srcdir/bench/gentrace.c"

# gen FILE STAMP COMMAND...: write COMMAND's output to FILE unless FILE.stamp
# says FILE was made by STAMP and FILE still has the size it had then.
# FILE.stamp: line 1 STAMP, line 2 "BYTES LINES CKSUM".
gen() {
	f=$1 want=$2
	shift 2
	if [ -f "$f" ] && [ -f "$f.stamp" ] && [ "$(sed -n 1p "$f.stamp")" = "$want" ] &&
	   [ "$(sed -n 2p "$f.stamp" | cut -d' ' -f1)" = "$(filesize "$f")" ]; then
		return 0
	fi
	rm -f "$f" "$f.stamp"
	t0=$(now)
	"$@" > "$f.tmp" 2> "$f.log" || { cat "$f.log" >&2; rm -f "$f.tmp"; die "generating $f failed"; }
	t1=$(now)
	mv "$f.tmp" "$f"
	n=$(filesize "$f")
	printf '%s\n%s %s %s\n' "$want" "$n" "$(wc -l < "$f" | tr -d ' ')" "$(sum_of "$f")" > "$f.stamp"
	s=$(elapsed "$t0" "$t1")
	echo "generated $f: $(rate "$n" 1) MB in $s s ($(rate "$n" "$s") MB/s)"
	sed 's/^/  /' "$f.log"
}

src_id() { cksum < "$1" | cut -d' ' -f1; }
if [ $time_only = 0 ]; then
fs=$data/folded-sorted-$size-s$seed.folded
fu=$data/folded-shuffled-$size-s$seed.folded
gen "$fs" "genfolded-$(src_id "$srcdir/bench/genfolded.c") --size $size --seed $seed" \
	"$bin/genfolded" --size "$size" --seed "$seed" --stats
gen "$fu" "genfolded-$(src_id "$srcdir/bench/genfolded.c") --size $size --seed $seed --shuffled" \
	"$bin/genfolded" --size "$size" --seed "$seed" --shuffled --stats

# Real-shaped (genfolded --real): deeper stacks that fork near their ends,
# about a node per 350 bytes, as profiles collapsed from real programs.
rs=$data/folded-real-sorted-$size-s$seed.folded
ru=$data/folded-real-shuffled-$size-s$seed.folded
gen "$rs" "genfolded-$(src_id "$srcdir/bench/genfolded.c") --real --size $size --seed $seed" \
	"$bin/genfolded" --real --size "$size" --seed "$seed" --stats
gen "$ru" "genfolded-$(src_id "$srcdir/bench/genfolded.c") --real --size $size --seed $seed --shuffled" \
	"$bin/genfolded" --real --size "$size" --seed "$seed" --shuffled --stats
fi

if [ $load_only = 1 ] && [ $gen_only = 0 ]; then
	load_speed_only=1
else
	load_speed_only=0
fi

# For search: a profile with over a million distinct names (a flat Zipf
# over a big vocabulary); a quarter of the main size.
if [ $load_speed_only = 0 ]; then
[ $quick = 1 ] && nsize=48M nnames=1000000 || nsize=256M nnames=4000000
fn=$data/folded-names-$nsize-s$seed.folded
[ $time_only = 1 ] ||
gen "$fn" "genfolded-$(src_id "$srcdir/bench/genfolded.c") --size $nsize --names $nnames --zipf 0.5 --seed $seed" \
	"$bin/genfolded" --size "$nsize" --names "$nnames" --zipf 0.5 --seed "$seed" --stats

# Recordings: $TFLAME_BENCH_PERF, else our own of the minisearch workload.
rec=${TFLAME_BENCH_PERF:-$data/recordings}
have_rec() { ls "$rec"/*.perf.txt > /dev/null 2>&1; }
if ! have_rec && [ -z "${TFLAME_BENCH_PERF:-}" ] && command -v perf > /dev/null 2>&1; then
	echo "recording bench/workload/minisearch with perf into $rec"
	if $CC -std=c11 -O2 -g -fno-omit-frame-pointer -o "$bin/minisearch" \
		"$srcdir/bench/workload/minisearch.c" -lm &&
	   perf record -q -F 1999 -g -o "$rec/minisearch.data" -- "$bin/minisearch" 2 > /dev/null 2>&1 &&
	   perf script -i "$rec/minisearch.data" > "$rec/minisearch.perf.tmp" 2> /dev/null &&
	   [ -s "$rec/minisearch.perf.tmp" ]; then
		mv "$rec/minisearch.perf.tmp" "$rec/minisearch.perf.txt"
	else
		echo "  perf record failed (perf_event_paranoid?); no perf input" >&2
		rm -f "$rec/minisearch.perf.tmp"
	fi
	rm -f "$rec/minisearch.data"
	# A second, different recording: the gcc build without frame pointers,
	# unwound by DWARF (other stacks, inlined frames, longer records).
	if $CC -std=c11 -O2 -g -fomit-frame-pointer -o "$bin/minisearch-nofp" \
		"$srcdir/bench/workload/minisearch.c" -lm &&
	   perf record -q -F 999 --call-graph dwarf,16384 -o "$rec/dwarf.data" -- "$bin/minisearch-nofp" 1 > /dev/null 2>&1 &&
	   perf script -i "$rec/dwarf.data" > "$rec/minisearch-dwarf.perf.tmp" 2> /dev/null &&
	   [ -s "$rec/minisearch-dwarf.perf.tmp" ]; then
		mv "$rec/minisearch-dwarf.perf.tmp" "$rec/minisearch-dwarf.perf.txt"
	else
		rm -f "$rec/minisearch-dwarf.perf.tmp"
	fi
	rm -f "$rec/dwarf.data"
fi
fp=''
if have_rec; then
	fp=$data/perf-$size-s$seed.perf.txt
	recs=$(cat "$rec"/*.perf.txt | cksum | cut -d' ' -f1,2)
	gen "$fp" "genperf-$(src_id "$srcdir/bench/genperf.c") --size $size --seed $seed recordings $recs" \
		"$bin/genperf" --size "$size" --seed "$seed" "$rec"/*.perf.txt
else
	echo "no perf recordings (set TFLAME_BENCH_PERF=DIR with *.perf.txt): perf input skipped" >&2
fi

# The time views at issue 19's scale: a Chrome trace (the .cpuprofile
# reader's) of 10 million timed samples on 8 threads.
[ $quick = 1 ] && tsamp=1M || tsamp=10M
ft=$data/trace-$tsamp-s$seed.json
gen "$ft" "gentrace-$(src_id "$srcdir/bench/gentrace.c") --samples $tsamp --seed $seed" \
	"$bin/gentrace" --samples "$tsamp" --seed "$seed"

if [ $time_only = 0 ]; then
# The other readers: pprof (genpprof, raw and gzip) and the JSON formats
# (genjsonprof.py, needs python3); a quarter of the main size.
[ $quick = 1 ] && xsize=16 || xsize=256
pp=$data/pprof-${xsize}M-s$seed.pb
gen "$pp" "genpprof-$(src_id "$srcdir/bench/genpprof.c") --size ${xsize}M --seed $seed" \
	"$bin/genpprof" --size "${xsize}M" --seed "$seed"
gen "$pp.gz" "gzip -1 of $(sed -n 2p "$pp.stamp")" gzip -1 -c "$pp"
# the same walk with each stack once (as Go writes them): nothing for the
# repeated-stack cache to find, every sample a new stack for the tree
ppu=$data/pprof-unique-${xsize}M-s$seed.pb
gen "$ppu" "genpprof-$(src_id "$srcdir/bench/genpprof.c") --size ${xsize}M --seed $seed --unique" \
	"$bin/genpprof" --size "${xsize}M" --seed "$seed" --unique
jc='' js=''
if command -v python3 > /dev/null 2>&1; then
	jc=$data/json-${xsize}M.cpuprofile
	js=$data/json-${xsize}M.speedscope.json
	xmb=$(awk -v m="$xsize" 'BEGIN { printf "%.0f", m * 1.048576 }')
	gen "$jc" "genjsonprof-$(src_id "$srcdir/bench/genjsonprof.py") cpuprofile $xmb" \
		python3 "$srcdir/bench/genjsonprof.py" cpuprofile "$xmb"
	gen "$js" "genjsonprof-$(src_id "$srcdir/bench/genjsonprof.py") speedscope $xmb" \
		python3 "$srcdir/bench/genjsonprof.py" speedscope "$xmb"
else
	echo "python3 is missing: the cpuprofile and speedscope inputs are skipped" >&2
fi
fi

fi

[ $gen_only = 1 ] && exit 0

# ---- measurements ---------------------------------------------------------
[ -x "$TFLAME" ] || die "$TFLAME not found (build it, or set TFLAME)"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (Debian package 'time')"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# best_of CMD...: runs CMD $runs times; prints "SECONDS PEAK_RSS_MB" of the
# fastest run (peak RSS is the largest of all runs). CMD's stderr of the
# last run stays in $tmp/err.
best_of() {
	b='' m=0 i=0
	while [ $i -lt "$runs" ]; do
		i=$((i + 1))
		/usr/bin/time -f '%e %M' -o "$tmp/tm" "$@" > /dev/null 2> "$tmp/err" ||
			{ echo "FAIL -"; sed 's/^/    /' "$tmp/err" | head -n 5 >&2; return 0; }
		read -r s k < "$tmp/tm"
		b=$(awk -v b="$b" -v s="$s" 'BEGIN { print (b == "" || s < b) ? s : b }')
		m=$(awk -v m="$m" -v k="$k" 'BEGIN { k /= 1024; print (k > m) ? k : m }')
	done
	printf '%s %.0f\n' "$b" "$m"
}
best_cat() { # FILE -> seconds
	b=''
	for _ in 1 2 3; do
		t0=$(now); cat "$1" > /dev/null; t1=$(now)
		b=$(awk -v b="$b" -v s="$(elapsed "$t0" "$t1")" 'BEGIN { print (b == "" || s < b) ? s : b }')
	done
	echo "$b"
}
mb() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1048576 }'; }
# stat FIELD: a field of the last "nodes N names N bytes N ..." line in $tmp/err.
stat() { sed -n 's/^nodes /nodes /p' "$tmp/err" | tail -n 1 | awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }'; }
verdict() { # VALUE OP TARGET -> met / NOT met
	awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
		if (v == "" || v == "-" || v == "FAIL") { print "n/a"; exit }
		ok = (op == ">=") ? (v + 0 >= t + 0) : (v + 0 <= t + 0)
		print ok ? "met" : "NOT met" }'
}


# ---- time views (issue 19) -------------------------------------------------
# time_views FILE PATTERN: keys of the views of sample times, 200x50
# headless, each script run $runs times once the time index is built in the
# background (pause*3: 1.5 s), the lowest maximum of each key: the heat map
# (t: its cells from the index's bins), its cursor, v, Enter on 6 columns
# and on half of them (the range's tree), Backspace and a; the flame chart
# of the recording (C) and back; the thread picker (T: sparklines), Space,
# Enter (the threads' tree), the chart of those threads; in the chart, a
# search (PATTERN) and Enter on its match, too narrow for the chart's cells
# (the chart of its span alone), and u; a search (PATTERN)
# shown on the heat map. Then the index: bytes a sample beside the
# timeline's, and its build time (on its own thread, after the first
# paint).
time_views() {
	f=$1 pat=$2
	"$TFLAME" --stats --print -w 1 "$f" > /dev/null 2> "$tmp/err"
	nsamp=$(stat timed) tlb=$(stat timeline_bytes) lsec=$(stat load_s)
	# the heat map's columns on 200x50, from its title ("... over 1250 s;
	# a column is 10 s, ...")
	printf 'size=200x50 t dump q\n' > "$tmp/tvkeys"
	NO_COLOR=1 "$TFLAME" --script="$tmp/tvkeys" "$f" 2> /dev/null | head -n 1 > "$tmp/tvtitle"
	half=$(awk '
		function ns(v, u) { return u == "s" ? v * 1e9 : u == "ms" ? v * 1e6 : v * 1e3 }
		{ for (i = 1; i < NF; i++) {
			if ($i == "over") span = ns($(i + 1), substr($(i + 2), 1, length($(i + 2)) - 1))
			if ($i == "column" && $(i + 1) == "is") col = ns($(i + 2), substr($(i + 3), 1, length($(i + 3)) - 1))
		} }
		END { if (col > 0) printf "%d", (int(span / col) + 1) / 2; else print 1 }' "$tmp/tvtitle")
	: > "$tmp/tv"
	: > "$tmp/tvix"
	tv_run() { # LABEL SCRIPT
		: > "$tmp/tv1"
		i=0
		while [ $i -lt "$runs" ]; do
			i=$((i + 1))
			"$TFLAME" --stats --bench-keys "size=200x50 pause*3 $2 q" "$f" > /dev/null 2> "$tmp/tvr"
			sed -n 's/^bench-key //p' "$tmp/tvr" | awk -v l="$1" '$1 != "q" { print l, $1, $3, $6 + $9 }' >> "$tmp/tv1"
			sed -n 's/^timeindex_bytes //p' "$tmp/tvr" >> "$tmp/tvix"
		done
		awk '{ k = $1 "|" $2
			if (!(k in b) || $4 < b[k]) { b[k] = $4; n[k] = $3 }
			if (!(k in s)) { s[k] = 1; o[++m] = k } }
			END { for (i = 1; i <= m; i++) print o[i], n[o[i]], b[o[i]] }' "$tmp/tv1" >> "$tmp/tv"
	}
	tv_run 'heat-map' 't l*5 j*5 v l*5 Enter'
	tv_run "half-range($half-cols)" "t v l*$half Enter BS a"
	tv_run 'chart' 'C C'
	tv_run "chart-zoom($pat)" "C / type=$pat Enter Enter u Enter u"
	tv_run 'picker' 'T Space Enter C'
	tv_run "search($pat)" "/ type=$pat Enter t"
	ixb=$(awk 'NR == 1 { print $1 }' "$tmp/tvix")
	ixms=$(awk 'NR == 1 || $3 < b { b = $3 } END { print b }' "$tmp/tvix")
	echo
	echo "Time views on $(basename "$f"): ${nsamp:-?} samples (load ${lsec:-?} s), the timeline ${tlb:-?} B"
	echo "($(awk -v b="${tlb:-0}" -v n="${nsamp:-0}" 'BEGIN { printf "%.1f", n ? b / n : 0 }') B a sample),"\
	     "the time index ${ixb:-?} B ($(awk -v b="${ixb:-0}" -v n="${nsamp:-0}" 'BEGIN { printf "%.1f", n ? b / n : 0 }') B a sample),"\
	     "built in ${ixms:-?} ms after the first paint;"
	echo "200x50 headless, ms per key: the lowest maximum of $runs runs"
	printf '  %-22s %-6s %4s %9s  %s\n' view key n 'max ms' 'target <= 50 ms'
	while read -r k n mx; do
		printf '  %-22s %-6s %4s %9.3f  %s\n' "${k%%|*}" "${k#*|}" "$n" "$mx" "$(verdict "$mx" '<=' 50)"
	done < "$tmp/tv"
}

echo
echo "tflame bench: $(uname -m), $(nproc 2>/dev/null || echo '?') cpus, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "inputs $size, seed $seed; MB = MiB; times are the best of $runs runs; RSS is peak RSS"
if [ $time_only = 1 ]; then
	[ -n "$fp" ] && time_views "$fp" a
	time_views "$ft" fn_1
	exit 0
fi
echo
if [ $load_speed_only = 0 ]; then
echo "Load (tflame --stats --print -w 1 FILE: read, build the tree, finalize, exit)"
row() { printf '%-16s %7s %9s %9s %7s %9s %7s %8s %8s %7s %7s %7s %s\n' "$@"; }
row input MB lines nodes names 'cat MB/s' threads 'load s' 'MB/s' 'RSS MB' 'tree MB' 'B/node' 'target'
ref=$(sed -n 2p "$fs.stamp" | cut -d' ' -f3,4)
big='' bignodes=0
for f in "$fs" "$fu" $fp; do
	case $f in
	*sorted*) label=folded-sorted target=1000 ;;
	*shuffled*) label=folded-shuffled target=300 ;;
	*) label=perf-script target=400 ;;
	esac
	bytes=$(sed -n 2p "$f.stamp" | cut -d' ' -f1)
	lines=$(sed -n 2p "$f.stamp" | cut -d' ' -f2)
	crate=$(rate "$bytes" "$(best_cat "$f")")
	for th in 1 2; do
		case $label in perf-script) t2=700 ;; *) t2=$target ;; esac
		[ $th = 1 ] && tgt=$target || tgt=$t2
		# shellcheck disable=SC2046
		set -- $(best_of "$TFLAME" --stats --threads=$th --print -w 1 "$f")
		s=$1 rss=$2
		nodes=$(stat nodes) names=$(stat names) tb=$(stat bytes)
		r=$(rate "$bytes" "$s")
		bpn=$(awk -v b="$tb" -v n="$nodes" 'BEGIN { if (n > 0) printf "%.1f", b / n; else print "-" }')
		row "$label" "$(mb "$bytes")" "$lines" "$nodes" "$names" "$crate" "$th" "$s" "$r" "$rss" \
			"$(mb "$tb")" "$bpn" ">=$tgt MB/s: $(verdict "$r" '>=' "$tgt")"
		if [ "${nodes:-0}" -gt "$bignodes" ]; then big=$f bignodes=$nodes; fi
		# Peak RSS of a mapped file: the tree plus at most 128 MB.
		echo "$label $th $rss $(mb "$tb")" >> "$tmp/rss"
	done
done
fi

# Issue 20's table: each folded input on 1 and 2 threads side by side, the
# best of $lruns runs (BENCH_LOAD_RUNS, default 5): the lowest wall time and
# the lowest user + system CPU time (of any run: on a shared machine the
# CPU time is the steadier figure), MB/s from the wall time.
lruns=${BENCH_LOAD_RUNS:-5}
# CPU seconds the whole machine has been busy (all CPUs, /proc/stat; 0
# where there is none): what other work took during a row is this
# difference less the row's own CPU time.
busy_s() {
	hz=$(getconf CLK_TCK 2> /dev/null || echo 100)
	awk -v hz="$hz" '/^cpu / { print ($2 + $3 + $4 + $7 + $8 + $9) / hz; f = 1 } END { if (!f) print 0 }' /proc/stat 2> /dev/null ||
		echo 0
}
best_load() { # FILE THREADS -> "WALL CPU RSS_MB OTHERS_CPU_PERCENT"
	bw='' bc='' m=0 i=0 own=0 wall=0 b0=$(busy_s)
	while [ $i -lt "$lruns" ]; do
		i=$((i + 1))
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/tm" "$TFLAME" --threads="$2" --print -w 1 "$1" > /dev/null 2> "$tmp/err" ||
			{ echo "FAIL FAIL - -"; return 0; }
		read -r w u y k < "$tmp/tm"
		c=$(awk -v u="$u" -v y="$y" 'BEGIN { printf "%.2f", u + y }')
		own=$(awk -v a="$own" -v c="$c" 'BEGIN { print a + c }')
		wall=$(awk -v a="$wall" -v w="$w" 'BEGIN { print a + w }')
		bw=$(awk -v b="$bw" -v s="$w" 'BEGIN { print (b == "" || s < b) ? s : b }')
		bc=$(awk -v b="$bc" -v s="$c" 'BEGIN { print (b == "" || s < b) ? s : b }')
		m=$(awk -v m="$m" -v k="$k" 'BEGIN { k /= 1024; print (k > m) ? k : m }')
	done
	b1=$(busy_s)
	o=$(awk -v a="$b0" -v b="$b1" -v own="$own" -v w="$wall" \
		'BEGIN { x = b - a - own; if (x < 0) x = 0; if (w > 0) printf "%.0f%%", 100 * x / w; else print "-" }')
	printf '%s %s %.0f %s\n' "$bw" "$bc" "$m" "$o"
}
# The state of a file's page cache moves its load time by a third: a
# mapped file's pages are mapped one page cache folio at a time, and a
# file written 4 KiB at a time (as most writers write) is cached in 4 KiB
# folios, where reading it from the disk (readahead) fills large ones on
# file systems that have them (ext4 from Linux 6.11, xfs). The shuffled
# files' sweeps map the file once a group: 1 GiB of them took 4.6 s on
# one thread in 4 KiB folios against 3.5 s in large ones, the same bytes.
# So each row's file is first put in a known state: "read" drops its
# cached pages (dd iflag=nocache) and reads it once (cat); "written" is a
# copy written 4 KiB at a time (dd bs=4k, in $tmp), for the shuffled files.
cache_read() { dd if="$1" iflag=nocache count=0 status=none 2> /dev/null || true; cat "$1" > /dev/null; }
echo
echo "Load speed (issue 20): tflame --threads=N --print -w 1 FILE, best of $lruns: wall s, CPU s (user + sys), MB/s of the wall;"
echo "others: the CPU other work used while the row ran, in % of one CPU (above a few %, the figures are a shared machine's);"
echo "cache: the file's page cache as reading it fills it (read) or as writing it 4 KiB at a time leaves it (written)"
lrow() { printf '  %-30s %7s | %7s %7s %8s %6s | %7s %7s %8s %6s | %6s %6s  %s\n' "$@"; }
lrow 'input, cache' MB 'wall 1' 'CPU 1' 'MB/s 1' 'RSS 1' 'wall 2' 'CPU 2' 'MB/s 2' 'RSS 2' '2 / 1' others target
for f in "$fu" "$fu@written" "$fs" "$ru" "$ru@written" "$rs"; do
	cache=read
	case $f in
	*@written)
		cache=written f=${f%@written}
		dd if="$f" of="$tmp/written.folded" bs=4k status=none || die "copying $f failed"
		;;
	*) cache_read "$f" ;;
	esac
	case $f in
	*real-sorted*) label=real-sorted tgt='' ;;
	*real-shuffled*) label=real-shuffled tgt='' ;;
	*shuffled*) label=folded-shuffled tgt='1 thread >= 250 MB/s, 2 >= 400' ;;
	*) label=folded-sorted tgt='1 thread >= 1000 MB/s, 2 >= 1.7x of 1' ;;
	esac
	label="$label, $cache"
	[ $cache = read ] || f=$tmp/written.folded
	bytes=$(filesize "$f")
	# shellcheck disable=SC2046
	set -- $(best_load "$f" 1)
	w1=$1 c1=$2 m1=$3 o1=$4
	# shellcheck disable=SC2046
	set -- $(best_load "$f" 2)
	w2=$1 c2=$2 m2=$3 o2=$4
	r1=$(rate "$bytes" "$w1") r2=$(rate "$bytes" "$w2")
	sp=$(awk -v a="$w1" -v b="$w2" 'BEGIN { if (b + 0 > 0) printf "%.2fx", a / b; else print "-" }')
	v=''
	case $label in
	folded-shuffled*) v=": $(verdict "$r1" '>=' 250), $(verdict "$r2" '>=' 400)" ;;
	folded-sorted*) v=": $(verdict "$r1" '>=' 1000), $(verdict "${sp%x}" '>=' 1.7)" ;;
	esac
	lrow "$label" "$(mb "$bytes")" "$w1" "$c1" "$r1" "$m1" "$w2" "$c2" "$r2" "$m2" "$sp" "$o1/$o2" "$tgt$v"
	rm -f "$tmp/written.folded"
done

# paint_row FILE [TARGET_MS first|whole]: time to the first screen (a
# preview, marked "loading", when the load outlasts 0.3 s; else the whole
# profile's) and to the whole profile's screen ("? help" on the status
# line), each the best of 3; the one named against TARGET_MS.
paint_row() {
	bp='' bc=''
	for _ in 1 2 3; do
		"$bin/ptyrun" -p loading -s 200x50 -- "$TFLAME" "$1" > "$tmp/paint" || true
		c=$(sed -n 's/^first_paint_ms //p' "$tmp/paint")
		p=$(sed -n 's/^partial_paint_ms //p' "$tmp/paint")
		[ -n "$p" ] || p=$c
		bp=$(awk -v b="$bp" -v s="$p" 'BEGIN { print (b == "" || s + 0 < b + 0) ? s : b }')
		bc=$(awk -v b="$bc" -v s="$c" 'BEGIN { print (b == "" || s + 0 < b + 0) ? s : b }')
	done
	t=''
	if [ -n "${2:-}" ]; then
		v=$bp
		[ "${3:-first}" = first ] || v=$bc
		t="  (${3:-first} <= $2 ms: $(verdict "$v" '<=' "$2"))"
	fi
	printf '  %-36s first screen %8s ms, whole profile %8s ms%s\n' "$(basename "$1"):" "$bp" "$bc" "$t"
}

if [ $load_speed_only = 1 ]; then
	echo
	echo "Time to first paint (process start to the first screen, a preview while loading, and to the whole"
	echo "profile's; 200x50 pty, best of 3)"
	for f in "$fs" "$fu" "$rs" "$ru"; do
		case $f in *real-shuffled*) paint_row "$f" 1000 first ;; *) paint_row "$f" ;; esac
	done
	exit 0
fi

echo
echo "Memory"
while read -r label th rss tmb; do
	lim=$(awk -v t="$tmb" 'BEGIN { printf "%.0f", t + 128 }')
	echo "  $label, $th thread(s): peak RSS $rss MB, tree $tmb MB: <= tree + 128 MB = $lim MB: $(verdict "$rss" '<=' "$lim")"
done < "$tmp/rss"
"$TFLAME" --stats --print -w 1 "$fs" > /dev/null 2> "$tmp/err"
nb=$(stat bytes) nn=$(stat nodes) nm=$(stat name_bytes)
if [ -n "$nm" ]; then
	per=$(awk -v b="$nb" -v s="$nm" -v n="$nn" 'BEGIN { printf "%.1f", (b - s) / n }')
	echo "  $(basename "$fs"): $nb B for $nn nodes, of which $nm B are the name table"
	echo "  bytes per node without the name table: $per (target <= 48: $(verdict "$per" '<=' 48))"
fi
if [ -n "$fp" ]; then
	# Streaming: the same perf file through a pipe; memory must stay the
	# tree's plus at most 64 MB whatever the input size.
	/usr/bin/time -f '%e %M' -o "$tmp/tm" sh -c "cat '$fp' | '$TFLAME' --stats --collapse - > /dev/null" 2> "$tmp/err"
	tail -n 1 "$tmp/tm" > "$tmp/tm1"
	read -r s k < "$tmp/tm1"
	rss=$(awk -v k="$k" 'BEGIN { printf "%.0f", k / 1024 }')
	tmb=$(mb "$(stat bytes)")
	lim=$(awk -v t="$tmb" 'BEGIN { printf "%.0f", t + 64 }')
	echo "  perf script on a pipe: $(rate "$(filesize "$fp")" "$s") MB/s, peak RSS $rss MB, tree $tmb MB: <= tree + 64 MB = $lim MB: $(verdict "$rss" '<=' "$lim")"
fi

echo
echo "--collapse (writes folded text to /dev/null)"
for f in "$fs" $fp; do
	bytes=$(filesize "$f")
	for th in 1 2; do
		# shellcheck disable=SC2046
		set -- $(best_of "$TFLAME" --threads=$th --collapse "$f")
		echo "  $(basename "$f") threads=$th: $1 s, $(rate "$bytes" "$1") MB/s, peak RSS $2 MB"
	done
done
got=$("$TFLAME" --collapse "$fu" 2> /dev/null | cksum | cut -d' ' -f1,2)
[ "$got" = "$ref" ] && echo "  shuffled input collapses to the sorted file: same" ||
	echo "  shuffled input collapses to the sorted file: DIFFERS"
for f in "$fu" $fp; do
	a=$("$TFLAME" --threads=1 --collapse "$f" | cksum) b=$("$TFLAME" --threads=2 --collapse "$f" | cksum)
	[ "$a" = "$b" ] && echo "  $(basename "$f"), 1 and 2 threads: same output" ||
		echo "  $(basename "$f"), 1 and 2 threads: DIFFERENT OUTPUT"
done

echo
echo "Time to first paint (process start to the first screen, a preview while loading, and to the whole"
echo "profile's; 200x50 pty, best of 3)"
for f in "$fs" "$fu" "$ru" $fp; do
	case $f in
	*real-shuffled*) paint_row "$f" 1000 first ;;
	*sorted*) paint_row "$f" 2000 whole ;;
	*) paint_row "$f" ;;
	esac
done

echo
echo "Keys on the largest tree ($(basename "$big"), $bignodes nodes), 200x50 headless: ms per key, layout + render,"
echo "the run of $runs with the lowest maximum (the highest maximum of all runs beside it)"
keys='k*40 Enter*3 BS*3 Home l*20 h*20 j*40 i*4 resize*4 Enter Home'
has_search=0
if "$TFLAME" --list-keys 2> /dev/null | grep -Eq '(^|	)/	'; then
	has_search=1
fi
# The script runs $runs times, like the loads (best of $runs): a key's row
# is from the run whose maximum was lowest, and the last column gives the
# highest maximum of all runs, so the spread stays in sight. A maximum is
# the slowest layout plus the slowest render of that key in the run.
: > "$tmp/keys.all"
i=0
while [ $i -lt "$runs" ]; do
	i=$((i + 1))
	# headless (the browser on a screen curses keeps in memory): the
	# render is curses' work up to its output, not the terminal's
	"$TFLAME" --bench-keys "size=200x50 $keys q" "$big" > /dev/null 2> "$tmp/keys"
	sed -n 's/^bench-key //p' "$tmp/keys" >> "$tmp/keys.all"
done
printf '  %-8s %5s %12s %12s %12s %12s  %s\n' key n 'layout ms' 'render ms' 'total max' 'worst run' 'target <= 5 ms'
awk '$1 != "q" {
		t = $6 + $9
		if (!($1 in best) || t < best[$1]) { best[$1] = t; row[$1] = $0 }
		if (!($1 in worst) || t > worst[$1]) worst[$1] = t
		if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
	}
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]; split(row[k], f, " ")
			printf "%s %s %s %s %.3f %.3f\n", k, f[3], f[5], f[8], best[k], worst[k]
		}
	}' "$tmp/keys.all" | while read -r k n lmean rmean tot worst; do
	printf '  %-8s %5s %12s %12s %12s %12s  %s\n' "$k" "$n" "$lmean" "$rmean" "$tot" "$worst" "$(verdict "$tot" '<=' 5)"
done

echo
if [ $has_search = 1 ]; then
	"$TFLAME" --stats --print -w 1 "$fn" > /dev/null 2> "$tmp/err"
	echo "Search on $(basename "$fn") ($(stat nodes) nodes, $(stat names) distinct names): ms per keystroke,"
	echo "the pattern typed one key at a time; each key's whole match pass (run to its end) plus the redraw;"
	echo "typed after a 0.5 s pause (the names' signatures are computed in the background by then), and,"
	echo "for the first pattern, also at once after the first paint; and on the largest tree ($bignodes nodes);"
	echo "the run of $runs with the lowest max"
	largest=$big
	for pat in 'malloc' 'read|write' '^std::' 'malloc ' 'malloc  '; do
		# 'malloc ' (one trailing blank): malloc again, typed without the
		# pause; 'malloc  ' (two): on the largest tree, after the pause.
		script='pause /' big=$fn w=''
		case $pat in
		*'  ') pat=${pat%  }; big=$largest; script='pause pause /'; w=", on $(basename "$largest")" ;;
		*' ') pat=${pat% }; script='/'; w=', typed at once' ;;
		esac
		i=1
		while [ $i -le ${#pat} ]; do
			c=$(printf '%s' "$pat" | cut -c$i)
			[ "$c" = ' ' ] && c=Space
			script="$script $c"
			i=$((i + 1))
		done
		# Best of $runs runs, as above: "mean max" of each run, then the
		# run with the lowest max, and the highest max of all.
		: > "$tmp/s.all"
		i=0
		while [ $i -lt "$runs" ]; do
			i=$((i + 1))
			"$TFLAME" --bench-keys "size=200x50 $script Enter q" "$big" > /dev/null 2> "$tmp/s"
			sed -n 's/^bench-key //p' "$tmp/s" | awk '
				$1 != "/" && $1 != "Enter" && $1 != "q" { n += $3; sum += ($5 + $8) * $3; if ($6 + $9 > mx) mx = $6 + $9 }
				END { if (n) printf "%.1f %.1f %d\n", sum / n, mx, n }' >> "$tmp/s.all"
		done
		sort -n -k2 "$tmp/s.all" | awk -v p="$pat" -v w="$w" '
			NR == 1 { mean = $1; mx = $2; n = $3 }
			{ worst = $2 }
			END { if (n) printf "  %-10s mean %.1f ms, max %.1f ms over %d keystrokes, worst run max %.1f (target <= 50 ms: %s)%s\n", p, mean, mx, n, worst, mx <= 50 ? "met" : "NOT met", w }'
	done
else
	echo "Search: this tflame has no search yet"
fi

# ---- time views (issue 19) ----
if "$TFLAME" --list-keys 2> /dev/null | grep -q '^Heat map'; then
	[ -n "$fp" ] && time_views "$fp" a
	time_views "$ft" fn_1
fi

# ---- other formats --------------------------------------------------------
# Each reader to folded text, and --svg; beside pprof, the tool its users
# have (go tool pprof -traces, when go is installed), on the same file.
echo
echo "Other formats, best of $lruns: wall s, CPU s (user + sys), MB/s of the uncompressed input by wall and"
echo "by CPU time; the load (tflame --print -w 1 F: read, build the tree, finalize, exit; as the folded rows)"
echo "carries the target, by wall as theirs (pprof reads on two threads), then --collapse F and --svg F"
echo "(> /dev/null), which also write the output"
# best_cmd CMD...: runs CMD $lruns times -> "WALL CPU RSS_MB": the lowest
# wall and CPU times of any run, the largest peak RSS
best_cmd() {
	bw='' bc='' m=0 i=0
	while [ $i -lt "$lruns" ]; do
		i=$((i + 1))
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/tm" "$@" > /dev/null 2> "$tmp/err" ||
			{ echo "FAIL FAIL -"; sed 's/^/    /' "$tmp/err" | head -n 5 >&2; return 0; }
		read -r w u y k < "$tmp/tm"
		c=$(awk -v u="$u" -v y="$y" 'BEGIN { printf "%.2f", u + y }')
		bw=$(awk -v b="$bw" -v s="$w" 'BEGIN { print (b == "" || s < b) ? s : b }')
		bc=$(awk -v b="$bc" -v s="$c" 'BEGIN { print (b == "" || s < b) ? s : b }')
		m=$(awk -v m="$m" -v k="$k" 'BEGIN { k /= 1024; print (k > m) ? k : m }')
	done
	printf '%s %s %.0f\n' "$bw" "$bc" "$m"
}
frow() { printf '  %-28s %7s %-24s %7s %7s %8s %8s %7s  %s\n' "$@"; }
frow input MB command 'wall s' 'CPU s' 'MB/s' 'by CPU' 'RSS MB' 'target (MB/s by wall)'
for f in "$pp" "$pp.gz" "$ppu" $jc $js; do
	bytes=$(filesize "$f")
	case $f in
	*.gz) tgt=300 bytes=$(filesize "$pp") ;;
	*.pb) tgt=300 ;;
	*) tgt=150 ;;
	esac
	# shellcheck disable=SC2046
	set -- $(best_cmd "$TFLAME" --print -w 1 "$f")
	r=$(rate "$bytes" "$1")
	frow "$(basename "$f")" "$(mb "$bytes")" 'tflame --print -w 1' "$1" "$2" "$r" "$(rate "$bytes" "$2")" "$3" \
		">=$tgt: $(verdict "$r" '>=' "$tgt")"
	# shellcheck disable=SC2046
	set -- $(best_cmd "$TFLAME" --collapse "$f")
	frow '' '' 'tflame --collapse' "$1" "$2" "$(rate "$bytes" "$1")" "$(rate "$bytes" "$2")" "$3" ''
	case $f in
	*.gz)   # without counting the samples as they arrive, and the
		# decompression alone (gzip -dc; ISA-L's igzip when installed)
		# shellcheck disable=SC2046
		set -- $(best_cmd env TFLAME_PPROF_AHEAD=0 "$TFLAME" --print -w 1 "$f")
		frow '' '' 'TFLAME_PPROF_AHEAD=0 ...-w 1' "$1" "$2" "$(rate "$bytes" "$1")" "$(rate "$bytes" "$2")" "$3" ''
		# the type named: counted as it arrives, but no page moved
		# (src/read/pprof_read.c)
		# shellcheck disable=SC2046
		set -- $(best_cmd "$TFLAME" --sample-type=cpu --print -w 1 "$f")
		frow '' '' '--sample-type=cpu ...-w 1' "$1" "$2" "$(rate "$bytes" "$1")" "$(rate "$bytes" "$2")" "$3" ''
		for z in gzip igzip; do
			command -v $z > /dev/null 2>&1 || continue
			# shellcheck disable=SC2046
			set -- $(best_cmd $z -dc "$f")
			frow '' '' "$z -dc (alone)" "$1" "$2" "$(rate "$bytes" "$1")" "$(rate "$bytes" "$2")" "$3" ''
		done
		;;
	"$pp")  # --svg and go beside the first only
		# shellcheck disable=SC2046
		set -- $(best_cmd "$TFLAME" --svg "$f")
		frow '' '' 'tflame --svg' "$1" "$2" "$(rate "$bytes" "$1")" "$(rate "$bytes" "$2")" "$3" ''
		if command -v go > /dev/null 2>&1; then
			# once: it takes a minute and more on the big file
			lr=$lruns lruns=1
			# shellcheck disable=SC2046
			set -- $(best_cmd go tool pprof -traces "$f")
			lruns=$lr
			frow '' '' 'go tool pprof -traces (1 run)' "$1" "$2" "$(rate "$bytes" "$1")" "$(rate "$bytes" "$2")" "$3" ''
		else
			frow '' '' 'go tool pprof -traces' 'skipped: go is not installed' '' '' '' '' ''
		fi
		;;
	esac
done
# SVG of the big folded file: the tree is the same as --print's, so the
# difference is the writer.
# shellcheck disable=SC2046
set -- $(best_of "$TFLAME" --svg "$fs")
a=$1 ra=$2
# shellcheck disable=SC2046
set -- $(best_of "$TFLAME" --print -w 200 "$fs")
r=$(awk -v a="$a" -v b="$1" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }')
echo "  $(basename "$fs"): --svg $a s (RSS $ra MB), --print -w 200 $1 s (RSS $2 MB): ${r}x (target <= 2x: $(verdict "$r" '<=' 2))"
echo "  (flamegraph.pl, as published: 1.15 GB of folded stacks in 200 s, 9 GB RSS)"

# ---- perf.data ------------------------------------------------------------
# tflame reads perf's binary file itself (tflame --collapse X.data) or perf
# script's text (perf script -i X.data | tflame --collapse -). Both on two
# big recordings of bench/workload/minisearch made here with perf record
# (in a temp dir, removed at the end; --max-size cuts each at
# BENCH_PERFDATA_MB): frame pointers (clang if present, several copies at
# once under sh, perf record -g) and DWARF ($CC without frame pointers,
# several forked copies at once by bench/workload/msloop.c, --call-graph
# dwarf). Skipped when perf is missing or may not record
# (kernel.perf_event_paranoid).
echo
pd_mb=${BENCH_PERFDATA_MB:-}
[ -n "$pd_mb" ] || { [ $quick = 1 ] && pd_mb=32 || pd_mb=200; }
pd_skip=''
nobpf=''
ev=cpu-clock
if [ "$pd_mb" = 0 ]; then
	pd_skip="BENCH_PERFDATA_MB=0"
elif ! command -v perf > /dev/null 2>&1; then
	pd_skip="perf is not installed"
else
	if perf record -q --no-bpf-event -e cpu-clock:u -o /dev/null true > /dev/null 2>&1; then
		nobpf=--no-bpf-event
	fi
	if ! perf record -q $nobpf -e cpu-clock:u -o /dev/null true > /dev/null 2> "$tmp/err"; then
		pd_skip="'perf record -e cpu-clock:u true' fails (kernel.perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid 2> /dev/null || echo '?')): $(grep -v '^ *$' "$tmp/err" | head -n 1)"
	elif ! perf record -q $nobpf --max-size=1M -e cpu-clock:u -o /dev/null true > /dev/null 2>&1; then
		pd_skip="perf record has no --max-size (perf older than 5.5?)"
	elif ! perf record -q $nobpf -e cpu-clock -o /dev/null true > /dev/null 2>&1; then
		ev=cpu-clock:u # no kernel samples for us
	fi
fi
if [ -n "$pd_skip" ]; then
	echo "perf.data: SKIPPED: $pd_skip"
	exit 0
fi

pd=$tmp/perfdata
mkdir -p "$pd"
fp_cc=$CC
command -v clang > /dev/null 2>&1 && fp_cc=clang # gcc 12 leaves leaf functions without frame pointers
maxrate=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2> /dev/null || echo 100000)
fp_hz=$(awk -v m="$maxrate" 'BEGIN { print (m < 50000) ? m : 50000 }')
dw_hz=$(awk -v m="$maxrate" 'BEGIN { print (m < 4000) ? m : 4000 }') # more loses samples
ncopies=$(nproc 2> /dev/null || echo 2)
[ "$ncopies" -le 8 ] || ncopies=8
[ "$ncopies" -ge 2 ] || ncopies=2
"$fp_cc" -std=c11 -O2 -g -fno-omit-frame-pointer -o "$pd/minisearch" "$srcdir/bench/workload/minisearch.c" -lm ||
	die "cannot build minisearch with $fp_cc"
$CC -std=c11 -O2 -g -fomit-frame-pointer -o "$pd/msloop" "$srcdir/bench/workload/msloop.c" -lm ||
	die "cannot build msloop with $CC"

# pd_record NAME PERF-RECORD-OPTION... -- CMD...: $pd/NAME.data, cut by
# --max-size at $pd_mb MB (perf then ends the workload with SIGTERM, so its
# exit status is not looked at: the file is). No build-id cache: nothing of
# this goes to ~/.debug.
pd_record() {
	r=$1
	shift
	t0=$(now)
	perf record -q $nobpf -N -e "$ev" --max-size="${pd_mb}M" -o "$pd/$r.data" "$@" > /dev/null 2> "$pd/$r.log" || :
	t1=$(now)
	if [ ! -s "$pd/$r.data" ] || [ "$(filesize "$pd/$r.data")" -lt 1048576 ]; then
		echo "perf.data: recording $r failed:" >&2
		grep -v '^ *$' "$pd/$r.log" | head -n 5 | sed 's/^/    /' >&2
		return 1
	fi
	echo "recorded $r.data: $(mb "$(filesize "$pd/$r.data")") MB in $(elapsed "$t0" "$t1") s"
}
echo "perf.data: recording minisearch ($pd_mb MB per recording, $ev, perf $(perf version 2> /dev/null | sed 's/^perf version //'))"
# Frame pointers: $ncopies copies at a time, over and over, under sh (so the
# recording holds forks, execs and several processes).
# shellcheck disable=SC2016 # expanded by the inner sh
pd_record fp -F "$fp_hz" -g -- sh -c '
	i=0
	while [ $i -lt 400 ]; do
		i=$((i + 1)) j=1
		while [ $j -lt "$1" ]; do "$0" 1 > /dev/null & j=$((j + 1)); done
		"$0" 1 > /dev/null
		wait
	done' "$pd/minisearch" "$ncopies" || { echo "perf.data: SKIPPED: perf record failed"; rm -rf "$pd"; exit 0; }
sleep 1 # the copies sh had started when perf stopped it end within a second
# DWARF: $ncopies forked copies at a time, no exec (perf 6.1 often fails to
# unwind libc frames by DWARF in a process that execs after its libc was
# mapped, as sh's children do, where tflame unwinds them: see msloop.c).
pd_record dwarf -F "$dw_hz" --call-graph dwarf -- "$pd/msloop" "$ncopies" || { echo "perf.data: SKIPPED: perf record failed"; rm -rf "$pd"; exit 0; }

# pd_pipe F: perf script -i F | tflame --collapse - > /dev/null, $runs times;
# prints "WALL SCRIPT_S SCRIPT_RSS_MB TFLAME_CPU_S TFLAME_RSS_MB" of the
# fastest run (each RSS the largest of all runs; tflame's wall time is the
# pipe's, so its CPU time, user + system, is given).
pd_pipe() {
	b='' bs='' bt='' ms=0 mt=0 i=0
	while [ $i -lt "$runs" ]; do
		i=$((i + 1))
		t0=$(now)
		{ /usr/bin/time -f '%e %M' -o "$tmp/tm1" perf script -i "$1" 2> /dev/null ||
			echo "FAIL" > "$tmp/tm1"; } |
			{ /usr/bin/time -f '%U %S %M' -o "$tmp/tm2" "$TFLAME" --collapse - > /dev/null 2> "$tmp/err" ||
				echo "FAIL" > "$tmp/tm2"; }
		t1=$(now)
		if grep -q FAIL "$tmp/tm1" "$tmp/tm2"; then
			sed 's/^/    /' "$tmp/err" | head -n 5 >&2
			echo "FAIL - - - -"
			return 0
		fi
		s=$(elapsed "$t0" "$t1")
		read -r s1 k1 < "$tmp/tm1"
		read -r u2 y2 k2 < "$tmp/tm2"
		s2=$(awk -v u="$u2" -v y="$y2" 'BEGIN { printf "%.2f", u + y }')
		if [ -z "$b" ] || awk -v s="$s" -v b="$b" 'BEGIN { exit !(s < b) }'; then
			b=$s bs=$s1 bt=$s2
		fi
		ms=$(awk -v m="$ms" -v k="$k1" 'BEGIN { k /= 1024; print (k > m) ? k : m }')
		mt=$(awk -v m="$mt" -v k="$k2" 'BEGIN { k /= 1024; print (k > m) ? k : m }')
	done
	printf '%s %s %.0f %s %.0f\n' "$b" "$bs" "$ms" "$bt" "$mt"
}
# pd_paint MARKER CMD...: time to first paint, best of 3 (as above), in ms;
# FAIL when MARKER never came within 30 s. MARKER: "? help", the end of the
# status line; a warning (perf lost samples) takes its place there.
pd_paint() {
	b='' mk=$1
	shift
	for _ in 1 2 3; do
		ms=$("$bin/ptyrun" -t 30 -m "$mk" -s 200x50 -- "$@" 2> /dev/null | sed -n 's/^first_paint_ms //p')
		b=$(awk -v b="$b" -v s="$ms" 'BEGIN { print (b == "" || s + 0 < b + 0) ? s : b }')
	done
	echo "${b:-FAIL}"
}

# The outputs of both routes, compared byte for byte (and the size of the
# text perf script writes, counted on the way).
echo
for r in fp dwarf; do
	f=$pd/$r.data
	rm -f "$pd/fifo"
	mkfifo "$pd/fifo"
	wc -c < "$pd/fifo" > "$pd/$r.textbytes" &
	perf script -i "$f" 2> "$pd/$r.script.err" | tee "$pd/fifo" |
		"$TFLAME" --collapse - > "$pd/$r.want" 2> "$pd/$r.want.err" || :
	wait
	"$TFLAME" --stats --collapse "$f" > "$pd/$r.got" 2> "$tmp/err" || echo "exit $?" >> "$tmp/err"
	echo "$(filesize "$f") $(tr -d ' ' < "$pd/$r.textbytes") $(stat stacks)" > "$pd/$r.info"
	grep -v '^nodes ' "$tmp/err" > "$pd/$r.got.err" || :
	if cmp -s "$pd/$r.want" "$pd/$r.got" && [ -s "$pd/$r.want" ]; then
		echo MATCH > "$pd/$r.match"
	else
		echo DIFFER > "$pd/$r.match"
	fi
done

echo "perf.data: tflame --collapse F (native reader) against perf script -i F | tflame --collapse -"
echo "minisearch, perf record -e $ev: fp = $fp_cc -fno-omit-frame-pointer, -g -F $fp_hz, $ncopies copies at a time;"
echo "dwarf = $CC -fomit-frame-pointer, --call-graph dwarf -F $dw_hz, $ncopies forked copies. Wall seconds, best of $runs;"
echo "peak RSS in MB; the pipe's row gives perf script's wall time and RSS, and tflame's CPU time and RSS"
prow() { printf '  %-6s %7s %9s %8s  %-30s %7s %9s %7s %9s %7s %8s  %s\n' "$@"; }
prow rec MB samples 'text MB' route 'wall s' 'script s' 'RSS MB' 'tflame s' 'RSS MB' speedup output
for r in fp dwarf; do
	f=$pd/$r.data
	read -r bytes tbytes samples < "$pd/$r.info"
	# shellcheck disable=SC2046
	set -- $(pd_pipe "$f")
	pw=$1
	prow "$r" "$(mb "$bytes")" "${samples:--}" "$(mb "$tbytes")" 'perf script | tflame -c -' "$1" "$2" "$3" "$4" "$5" '' ''
	for th in 0 1; do
		if [ $th = 0 ]; then
			# shellcheck disable=SC2046
			set -- $(best_of "$TFLAME" --collapse "$f"); lbl='tflame -c F'
		else
			# shellcheck disable=SC2046
			set -- $(best_of "$TFLAME" --threads=1 --collapse "$f"); lbl='tflame -c --threads=1 F'
		fi
		sp=$(awk -v a="$pw" -v b="$1" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", a / b; else print "-" }')
		prow '' '' '' '' "$lbl" "$1" '' '' "$1" "$2" "$sp" "$([ $th = 0 ] && cat "$pd/$r.match")"
	done
done
for r in fp dwarf; do
	if [ -s "$pd/$r.got.err" ]; then
		echo "  $r: tflame -c F wrote on stderr: $(head -n 1 "$pd/$r.got.err")"
	fi
	if [ "$(cat "$pd/$r.match")" = DIFFER ]; then
		echo "  $r: the outputs DIFFER ($(wc -l < "$pd/$r.want" | tr -d ' ') lines from perf script, $(wc -l < "$pd/$r.got" | tr -d ' ') from tflame -c F);"
		echo "  first differing lines (< perf script | tflame -c -, > tflame -c F):"
		diff "$pd/$r.want" "$pd/$r.got" | grep '^[<>]' | head -n 10 | cut -c1-200 | sed 's/^/    /'
		[ -s "$pd/$r.want.err" ] && echo "  perf script | tflame -c - wrote on stderr: $(head -n 1 "$pd/$r.want.err")"
	fi
done

echo
echo "Time to first paint of a perf.data file (200x50 pty, best of 3)"
for r in fp dwarf; do
	f=$pd/$r.data
	mk='? help'
	[ -s "$pd/$r.got.err" ] && mk=$(head -n 1 "$pd/$r.got.err" | awk '{ print substr($0, length($0) - 14) }')
	a=$(pd_paint "$mk" "$TFLAME" "$f")
	# shellcheck disable=SC2016 # expanded by the inner sh
	b=$(pd_paint '? help' sh -c 'perf script -i "$1" 2> /dev/null | "$2" -' sh "$f" "$TFLAME")
	sp=$(awk -v a="$b" -v b="$a" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", a / b; else print "-" }')
	echo "  $r.data: tflame F $a ms; perf script -i F | tflame - $b ms ($sp)"
	[ "$a" = FAIL ] && echo "    tflame F: no '$mk' on the screen within 30 s"
done
rm -rf "$pd"
