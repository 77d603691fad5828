#!/bin/sh
# tests/heat.sh: the browser's heat map of sample times (t), headless
# (--script, NO_COLOR so that cells are drawn as characters). Expectations
# are worked out by hand from three samples: a at 1.0 s and 2.0 s (thread
# 100), b at 1.5 s (thread 101), 250000 each.
#
# The span is 1 s; 100 columns leave 90 for cells (9 for the row labels, 1
# for the closing bar), so columns are the smallest step that fits: 20 ms
# (51 columns; 10 ms would need 101). 30 lines leave 26 rows, cut to 25 so
# that a row is a round 800 us. The samples fall in row 0 of columns 0, 25
# and 50; the largest cell has 1 sample, so each of them is the darkest
# shade, '@'.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/lib.sh"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
D=$T_TMP
cd "$D" || exit 1
SEP='  ·  '
NO_COLOR=1
export NO_COLOR

cp "$top_srcdir/tests/data/three.perf" t.perf
line() { sed -n "${1}p" "$D/out"; }
is() {
	if [ "$(line "$2")" = "$3" ]; then pass "$1"; else fail "$1" "want: |$3|" "got:  |$(line "$2")|"; fi
}

# t, then v at the first cell and l*25: the selection runs from 0 to the
# end of column 25's row 0, [0, 25 x 20 ms + 800 us) = [0, 500.8 ms):
# the samples at 0 and 0.5 s. Enter: their flame graph, a and b 250000
# each (a [0,50), b [50,100)), the range in the breadcrumb. Backspace: back
# to the heat map, the selection kept. a: the whole recording.
printf 'size=100x30 t dump v l*25 dump Enter dump BS dump a dump q\n' > keys
run --script=keys t.perf
expect_rc "t, v, Enter, Backspace, a" 0
is "the title: samples, span, column and row" 1 "heat map: 3 samples over 1 s; a column is 20 ms, a row 800 us"
is "column labels every 10 columns (200 ms)" 2 "         0         200 ms    400 ms    600 ms    800 ms"
is "row 0: the three samples" 3 "$(printf '%7s |@%24s@%24s@|' 0 '' '')"
is "row 1: nothing" 4 "$(printf '%7s |%51s|' '' '')"
is "the legend: one shade, 1 sample" 29 "samples a cell: @ 1"
is "the status: the cursor's cell" 30 "0.000 s: 1 sample${SEP}v starts a selection, Enter shows the cell"
is "v l*25: the selection and its samples" 60 \
	"0.500 s: 1 sample${SEP}selected 0.000-0.501 s (500.8 ms): 2 samples${SEP}Enter shows them"
is "Enter: the range in the breadcrumb" 61 "[0.000-0.501 s] all"
is "Enter: a and b, 250000 each (level 3: row 25)" 86 "$(printf '%-50s%s' a b)"
case $(line 90) in "prog${SEP}500.0 µs cpu-clock in 2 samples${SEP}100.00% of all"*) pass "Enter: the range's total, 2 x 250000" ;;
	*) fail "Enter: the range's total, 2 x 250000" "$(line 90)" ;; esac
is "Backspace: the heat map again" 91 "heat map: 3 samples over 1 s; a column is 20 ms, a row 800 us"
is "Backspace: the selection kept" 120 \
	"0.500 s: 1 sample${SEP}selected 0.000-0.501 s (500.8 ms): 2 samples${SEP}Enter shows them"
is "a: the whole recording, no range" 121 "all"
case $(line 150) in "prog${SEP}750.0 µs cpu-clock in 3 samples${SEP}100.00% of all"*) pass "a: all 3 samples" ;;
	*) fail "a: all 3 samples" "$(line 150)" ;; esac

# --view=heatmap opens on it; --only-tid=101 keeps b alone: one sample,
# on the grid of the whole recording (the same 1 s, 20 ms columns, 800 us
# rows), in column 25, row 0 (the cursor, '+' on an empty cell, at 0).
printf 'size=100x30 dump q\n' > keys
run --view=heatmap --only-tid=101 --script=keys t.perf
expect_rc "--view=heatmap --only-tid" 0
is "--view=heatmap --only-tid=101: one sample" 1 "heat map: 1 sample over 1 s; a column is 20 ms, a row 800 us"
is "--view=heatmap --only-tid=101: at 0.5 s, where the recording has it" 3 "$(printf '%7s |+%24s@%25s|' 0 '' '')"

# ---- the search on the heat map ----
# /^b$/ matches b, sampled once, at 0.5 s: column 25 (l*25).
printf 'size=100x30 / type=^b$ Enter t dump l*25 dump q\n' > keys
run --script=keys t.perf
is "search: the title counts the samples in its frames" 1 \
	"heat map: 3 samples over 1 s; a column is 20 ms, a row 800 us${SEP}search: 1 underlined"
is "search: none at 0 s" 30 "0.000 s: 1 sample, 0 in the search's frames${SEP}v starts a selection, Enter shows the cell"
is "search: b's sample at 0.5 s" 60 "0.500 s: 1 sample, 1 in the search's frames${SEP}v starts a selection, Enter shows the cell"

# ---- T: the thread picker ----
# Thread 100 has 2 of the 3 samples (66.67%), 101 one. On 100 columns the
# sparklines get 100 - 44 - 18 = 38 cells over the 1 s (+1 ns) recording:
# 0 s in cell 0, 1.0 s in cell 37 (floor(1e9 x 38 / (1e9 + 1))), 0.5 s in
# cell 18. Space unchecks 100, Enter keeps 101: b alone, 250000; the heat
# map then counts its one sample.
printf 'size=100x12 T dump Space Enter dump t dump q\n' > keys
LC_ALL=C.UTF-8 run --script=keys t.perf
expect_rc "T, Space, Enter" 0
is "T: the header" 2 "$(printf '    %12s %7s %8s %8s  %-16s %s' SAMPLES SHARE PID TID COMMAND ACTIVITY)"
is "T: thread 100 first, 2 samples, active at 0 and 1 s" 3 \
	"$(printf '[x] %12s %7s %8s %8s  %-16s ' 2 66.67% 100 100 prog)█$(printf '%36s' '')█"
is "T: thread 101, 1 sample at 0.5 s" 4 \
	"$(printf '[x] %12s %7s %8s %8s  %-16s ' 1 33.33% 100 101 prog)$(printf '%18s' '')█"
is "T: the recording" 12 "the recording: 1.000 s, 3 samples"
case $(line 24) in "prog${SEP}250.0 µs cpu-clock in 1 sample${SEP}100.00% of all"*) pass "Space Enter: thread 101 alone" ;;
	*) fail "Space Enter: thread 101 alone" "$(line 24)" ;; esac
is "Space Enter: b is its only stack (level 3: row 7 of 10)" 20 "b"
# 12 lines leave 8 for rows: 5 of 4 ms
is "t after: the heat map counts thread 101 only" 25 "heat map: 1 sample over 1 s; a column is 20 ms, a row 4 ms"

# ---- the flame chart: the stacks in time order ----
# a (0 s), b (0.5 s), a (1 s): three thirds of 60 columns, a again after b
# instead of merged with the first a.
run --print --view=chart -w 60 t.perf
{
	echo 'all: 3 samples · 750.0 µs cpu-clock'
	printf '%-19s|%-19s|%-19s|\n' a b a
	printf '%-59s|\n' main prog all
} > want
expect_out "--print --view=chart: a, b, a in time order" want
# C in the browser: the chart (a b a: the last cell of a frame is a gap),
# C again: the graph (a [0,40), b [40,60)); in a time range (the first two
# samples, selected as above) the chart has a then b.
printf 'size=60x8 C dump C dump q\n' > keys
run --script=keys t.perf
is "C: [chart] on the top line" 1 "[chart] all"
is "C: a, b, a" 4 "$(printf '%-20s%-20s%s' a b a)"
is "C again: the flame graph" 9 "all"
is "C again: a and b merged by name" 12 "$(printf '%-40s%s' a b)"
printf 'size=100x30 t v l*25 Enter C dump q\n' > keys
run --script=keys t.perf
is "a range, then C: the chart of the range" 1 "[chart 0.000-0.501 s] all"
is "a range, then C: a then b" 26 "$(printf '%-50s%s' a b)"
printf 'main;a 1\n' > f.folded
run --print --view=chart f.folded
expect_rc "--view=chart without sample times" 1
expect_err "--view=chart without sample times" "--view=chart: the input has no sample times"
run --collapse --view=chart t.perf
expect_rc "--view=chart with --collapse" 2

# no times: a notice, the graph stays
printf 'main;a 1\n' > f.folded
printf 'size=100x30 t dump q\n' > keys
run --script=keys f.folded
is "t without sample times: said" 30 \
	"no sample times here: perf.data, perf script, .cpuprofile, Chrome traces and speedscope have them"
done_testing
