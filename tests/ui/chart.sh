#!/bin/sh
# tests/ui/chart.sh: a flame chart drawn again, finer, for a frame zoomed
# into (Enter on a frame narrower than the chart's cells can show). The
# profile, worked out by hand: 100,000 samples of main;busy but for 40 in
# the middle, main;short (3 of them main;short;a, then 3 main;short;b).
# The range's chart keeps the frames of 1/16384 of it, 6 samples: short
# (40) is there, a and b (3 each) are not. Zoomed into short at 100
# columns a column is 0.4 samples, so Enter draws the chart of short's 40
# samples alone: a and b are there, 3/40 of the width each (7.5 columns).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require
P=$T_TMP/burst.cpuprofile
awk 'BEGIN {
	printf "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},\"children\":[2]},"
	printf "{\"id\":2,\"callFrame\":{\"functionName\":\"main\"},\"children\":[3,4]},"
	printf "{\"id\":3,\"callFrame\":{\"functionName\":\"busy\"}},"
	printf "{\"id\":4,\"callFrame\":{\"functionName\":\"short\"},\"children\":[5,6]},"
	printf "{\"id\":5,\"callFrame\":{\"functionName\":\"a\"}},{\"id\":6,\"callFrame\":{\"functionName\":\"b\"}}],"
	printf "\"startTime\":0,\"endTime\":10000000,\"samples\":["
	for (i = 0; i < 100000; i++) {
		k = i - 50000
		id = (k >= 0 && k < 3) ? 5 : (k >= 3 && k < 6) ? 6 : (k >= 6 && k < 40) ? 4 : 3
		printf "%s%d", i ? "," : "", id
	}
	printf "],\"timeDeltas\":["
	for (i = 0; i < 100000; i++)
		printf "%s100", i ? "," : ""
	printf "]}\n"
}' > "$P"
ab_line() { tm__grep '^a +b( |$)'; }

tm_start 100 12 || { fail "tmux server starts"; done_testing; exit; }
tm_tflame "$(q "$P")"
expect "open: 100,000 samples" status_is "all${SEP}100,000 samples"
tm_keys C
expect "C: the flame chart" tm_wait_line 0 "[chart] all"
tm_keys / s h o r t Enter
expect "/short: the search zooms into short, too narrow at the root" tm_wait_line 0 "[chart] all › main › short"
expect "/short: a and b (3 samples each) are not in the range's chart" tm_wait eval '! ab_line'
tm_keys Escape Enter
expect "Enter: the chart of short's span, finer" tm_wait_line 0 "[chart: a frame's span] all › main › short"
expect "Enter: a and b, side by side" tm_wait ab_line
expect "Enter: the notice says u goes back" status_is "the chart of this frame alone, finer (u: back)"
tm_keys u
expect "u: the range's chart again, zoomed into short" tm_wait_line 0 "[chart] all › main › short"
expect "u: a and b gone again" tm_wait eval '! ab_line'
tm_keys Enter
expect "Enter again: the span's chart" tm_wait_line 0 "[chart: a frame's span] all › main › short"
tm_keys 0
expect "0: the range's whole chart" tm_wait_line 0 "[chart] all"
expect "0: main selected, all samples" status_is "main${SEP}100,000 samples"
tm_keys C
expect "C: the flame graph" tm_wait_line 0 "all"
expect "q quits" quit
done_testing
