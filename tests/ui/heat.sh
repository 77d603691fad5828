#!/bin/sh
# tests/ui/heat.sh: the heat map and a time range in a real terminal
# (tmux): colours on, the cursor and the selection as reverse video, the
# range in the breadcrumb. Expectations worked out by hand from three
# samples (a at 1.0 s and 2.0 s on thread 100, b at 1.5 s on 101), as in
# tests/heat.sh: at 100 columns, 20 ms columns, 25 rows of 800 us; the
# samples in row 0 of columns 0, 25 and 50.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require
cp "$top_srcdir/tests/data/three.perf" "$T_TMP/t.perf"
# SGR attribute A (7 reverse) set at column C of line N of the -e screen:
# the text before the cell is printed plain, so the cell is the first
# character after C columns of the line with the escapes dropped.
reverse_at() {
	tm__e
	sed -n "$(($1 + 1))p" "$TM_SCREEN_E_FILE" | awk -v col="$2" -v esc="$(printf '\033')" '{
		s = $0; c = 0; rev = 0; out = 0
		while (length(s) > 0) {
			if (substr(s, 1, 1) == esc) {
				m = match(s, /^\033\[[0-9;]*m/)
				if (m) {
					code = substr(s, 3, RLENGTH - 3); n = split(code, p, ";")
					for (i = 1; i <= n; i++) { if (p[i] == 7) rev = 1; if (p[i] == 0 || p[i] == 27 || p[i] == "") rev = 0 }
					s = substr(s, RLENGTH + 1); continue
				}
			}
			if (c == col) { out = rev; break }
			s = substr(s, 2); c++
		}
		exit !out
	}'
}

tm_start 100 30 || { fail "tmux server starts"; done_testing; exit; }
tm_tflame "$(q "$T_TMP/t.perf")"
# (The root is selected at first: waiting for prog here timed out, 5 s.)
expect "open: the root selected, 3 x 250 us" status_is "all${SEP}750.0 µs cpu-clock"
tm_keys t
expect "t: the heat map" tm_wait_line 0 "heat map: 3 samples over 1 s; a column is 20 ms, a row 800 us"
expect "t: the cursor's cell is reversed (column 9 of line 2)" tm_wait reverse_at 2 9
tm_keys v
tm_keys l l l l l l l l l l l l l l l l l l l l l l l l l
expect "v l*25: the selection runs to 0.5 s, its 2 samples" \
	status_is "0.500 s: 1 sample${SEP}selected 0.000-0.501 s (500.8 ms): 2 samples"
expect "v l*25: a cell inside the selection is reversed (column 20)" tm_wait reverse_at 2 20
expect "v l*25: a cell after it is not (column 70)" tm_wait eval '! reverse_at 2 70'
tm_keys Enter
expect "Enter: the range in the breadcrumb" tm_wait_line 0 "[0.000-0.501 s] all"
expect "Enter: the range's 2 samples" status_is "prog${SEP}500.0 µs cpu-clock"
tm_keys BSpace
expect "Backspace: the heat map, the selection kept" \
	status_is "0.500 s: 1 sample${SEP}selected 0.000-0.501 s (500.8 ms): 2 samples"
tm_keys a
expect "a: the whole recording again" status_is "prog${SEP}750.0 µs cpu-clock"
expect "a: no range in the breadcrumb" tm_wait_line 0 "all"
expect "q quits" quit
done_testing
