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

cat > t.perf <<'X'
prog 100/100 [000] 1.000000: 250000 cpu-clock:
	ffffffff a (/bin/x)
	ffffffff main (/bin/x)

prog 100/101 [001] 1.500000: 250000 cpu-clock:
	ffffffff b (/bin/x)
	ffffffff main (/bin/x)

prog 100/100 [000] 2.000000: 250000 cpu-clock:
	ffffffff a (/bin/x)
	ffffffff main (/bin/x)

X
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
case $(line 90) in "prog${SEP}500,000 samples${SEP}100.00% of all"*) pass "Enter: the range's total, 2 x 250000" ;;
	*) fail "Enter: the range's total, 2 x 250000" "$(line 90)" ;; esac
is "Backspace: the heat map again" 91 "heat map: 3 samples over 1 s; a column is 20 ms, a row 800 us"
is "Backspace: the selection kept" 120 \
	"0.500 s: 1 sample${SEP}selected 0.000-0.501 s (500.8 ms): 2 samples${SEP}Enter shows them"
is "a: the whole recording, no range" 121 "all"
case $(line 150) in "prog${SEP}750,000 samples${SEP}100.00% of all"*) pass "a: all 3 samples" ;;
	*) fail "a: all 3 samples" "$(line 150)" ;; esac

# --view=heatmap opens on it; --only-tid=101 keeps b alone: one sample, a
# span of 0, so the smallest column step, 1 ms (25 rows of 40 us).
printf 'size=100x30 dump q\n' > keys
run --view=heatmap --only-tid=101 --script=keys t.perf
expect_rc "--view=heatmap --only-tid" 0
is "--view=heatmap --only-tid=101: one sample" 1 "heat map: 1 sample over 0 us; a column is 1 ms, a row 40 us"

# no times: a notice, the graph stays
printf 'main;a 1\n' > f.folded
printf 'size=100x30 t dump q\n' > keys
run --script=keys f.folded
is "t without sample times: said" 30 \
	"no sample times in this profile (perf script, perf.data and .cpuprofile files have them)"
done_testing
