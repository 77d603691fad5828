#!/bin/sh
# tflame benchmarks: `make bench` runs this with the build directory as cwd.
#
# usage: run.sh [--quick] [--gen-only] [--size N[K|M|G]] [--seed N]
#   (the same words may come in $BENCH_ARGS: `BENCH_ARGS=--quick make bench`)
#
#   --quick     64 MiB inputs instead of 1 GiB (well under a minute)
#   --gen-only  generate the inputs, measure nothing
#
# Inputs go to bench/data/ under the build directory and are reused while the
# generator, size and seed are unchanged (bench/data/NAME.stamp):
#   folded-sorted    genfolded: unique stacks, byte-wise sorted (collapser output)
#   folded-shuffled  the same lines in random order
#   perf             genperf: records of real `perf script` recordings, varied
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
# for byte. MB means MiB (2^20 bytes) throughout.
#
# Environment: TFLAME (default ./src/tflame), CC (default cc), BENCH_RUNS
# (default 3), TFLAME_BENCH_PERF.
set -eu

srcdir=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
TFLAME=${TFLAME:-./src/tflame}
CC=${CC:-cc}
runs=${BENCH_RUNS:-3}
data=bench/data
bin=$data/bin

quick=0 gen_only=0 size='' seed=1
# shellcheck disable=SC2086 # BENCH_ARGS is a list of words
set -- ${BENCH_ARGS:-} "$@"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--gen-only) gen_only=1 ;;
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
fs=$data/folded-sorted-$size-s$seed.folded
fu=$data/folded-shuffled-$size-s$seed.folded
gen "$fs" "genfolded-$(src_id "$srcdir/bench/genfolded.c") --size $size --seed $seed" \
	"$bin/genfolded" --size "$size" --seed "$seed" --stats
gen "$fu" "genfolded-$(src_id "$srcdir/bench/genfolded.c") --size $size --seed $seed --shuffled" \
	"$bin/genfolded" --size "$size" --seed "$seed" --shuffled --stats

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

[ $gen_only = 1 ] && exit 0

# ---- measurements ---------------------------------------------------------
[ -x "$TFLAME" ] || die "$TFLAME not found (build it, or set TFLAME)"
timer=''
if [ -x /usr/bin/time ]; then
	timer=/usr/bin/time
else
	echo "note: /usr/bin/time missing (Debian package 'time'): no peak RSS" >&2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Does this tflame have --stats?
printf 'a;b 1\na;c 2\n' > "$tmp/tiny.folded"
statsopt=''
if "$TFLAME" --stats --collapse "$tmp/tiny.folded" > /dev/null 2> "$tmp/err" &&
   grep -q '^nodes [0-9]' "$tmp/err"; then
	statsopt=--stats
fi

best_cat() { # FILE -> seconds
	b=''
	for _ in 1 2 3; do
		t0=$(now); cat "$1" > /dev/null; t1=$(now)
		b=$(awk -v b="$b" -v s="$(elapsed "$t0" "$t1")" 'BEGIN { print (b == "" || s < b) ? s : b }')
	done
	echo "$b"
}

# Column layout shared by the header and the rows.
row() {
	printf '%-16s %6s %9s %9s %8s %8s %7s %7s %9s %8s %6s %-8s\n' "$@"
}
echo
echo "tflame bench: $(basename "$TFLAME") on $(uname -m), $(nproc 2>/dev/null || echo '?') cpus; inputs $size, seed $seed; MB = MiB"
row input MB lines 'cat MB/s' 'tflame s' 'MB/s' target 'RSS MB' nodes names 'B/node' collapse

ref=$(sed -n 2p "$fs.stamp" | cut -d' ' -f3,4)
for f in "$fs" "$fu" $fp; do
	case $f in
	*sorted*) label=folded-sorted target=1000 ;;
	*shuffled*) label=folded-shuffled target=300 ;;
	*) label=perf-script target=400 ;;
	esac
	bytes=$(sed -n 2p "$f.stamp" | cut -d' ' -f1)
	lines=$(sed -n 2p "$f.stamp" | cut -d' ' -f2)
	ct=$(best_cat "$f")
	best='' rss=- fail=''
	i=0
	while [ $i -lt "$runs" ]; do
		i=$((i + 1))
		t0=$(now)
		if [ -n "$timer" ]; then
			# shellcheck disable=SC2086
			$timer -f '%M' -o "$tmp/rss" "$TFLAME" $statsopt --collapse "$f" > /dev/null 2> "$tmp/err" || fail=$?
		else
			# shellcheck disable=SC2086
			"$TFLAME" $statsopt --collapse "$f" > /dev/null 2> "$tmp/err" || fail=$?
		fi
		t1=$(now)
		[ -z "$fail" ] || break
		s=$(elapsed "$t0" "$t1")
		best=$(awk -v b="$best" -v s="$s" 'BEGIN { print (b == "" || s < b) ? s : b }')
		if [ -n "$timer" ]; then
			r=$(tail -n 1 "$tmp/rss")
			rss=$(awk -v r="$r" -v p="$rss" 'BEGIN { r /= 1024; if (p == "-" || r > p) printf "%.0f", r; else print p }')
		fi
	done
	if [ -n "$fail" ]; then
		row "$label" "$(rate "$bytes" 1)" "$lines" "$(rate "$bytes" "$ct")" "FAIL($fail)" - ">=$target" - - - - -
		sed 's/^/    /' "$tmp/err" | head -n 5
		continue
	fi
	nodes=- names=- bpn=-
	st=$(grep '^nodes [0-9]' "$tmp/err" | tail -n 1 || true)
	if [ -n "$st" ]; then
		# shellcheck disable=SC2086 # split "nodes N names N bytes N"
		set -- $st
		nodes=${2:-?} names=${4:-?}
		[ -n "${6:-}" ] && bpn=$(awk -v b="$6" -v n="$2" 'BEGIN { if (n > 0) printf "%.1f", b / n; else print "-" }')
	fi
	check=-
	case $label in
	folded-*)
		got=$("$TFLAME" --collapse "$f" 2> /dev/null | cksum | cut -d' ' -f1,2)
		if [ "$got" = "$ref" ]; then check=same; else check=DIFFERS; fi ;;
	esac
	row "$label" "$(rate "$bytes" 1)" "$lines" "$(rate "$bytes" "$ct")" "$best" \
		"$(rate "$bytes" "$best")" ">=$target" "$rss" "$nodes" "$names" "$bpn" "$check"
done
echo "targets: sorted folded >= 1000 MB/s, shuffled >= 300 MB/s, perf script >= 400 MB/s (single thread), <= 48 B/node"
