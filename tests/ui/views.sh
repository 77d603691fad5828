#!/bin/sh
# tests/ui/views.sh: the views in a real terminal (tmux): what needs one
# (tests/golden/views.sh plays their keys headless): clicks in the table
# and the sandwich, the selected row's reverse video, a transformed tree's
# colours and --diff's. Expected screens are worked out by hand
# from views.folded (100 samples: at 100 columns one sample is one column;
# graph area lines 1..28 of a 30-line pane, root row at line 28):
#   all 100 = idle 30 [0,30) + main 70 [30,100)
#   main = init 10 [30,40) + parse 30 [40,70) + run 30 [70,100)
#   parse = lex 20 [40,60) + parse 10 [60,70) > lex 10 [60,70)
#   run = self 25 + lex 5 [70,75)
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require

F="$top_srcdir/tests/ui/views.folded"

bg_is() { [ "$(bg_before "$1" "$2")" = "$3" ]; }
# Table row: SELF SELF% TOTAL TOTAL% CALLERS NAME, counts 5 wide (the
# root's 100 has 3 digits; the header words need 5).
row() { printf '%5s %6s%% %5s %6s%% %7s  %s' "$@"; }

tm_start 100 30 || { fail "tmux server starts"; done_testing; exit; }
tm_tflame "$(q "$F")"
expect "open" status_is "all${SEP}100 samples${SEP}100.00% of all"

# ---- top table: the selected row ----
# By name: idle, init, lex, main, parse, run on lines 2..7.
tm_keys Tab 3
expect "3: by name, idle first" tm_wait_line 2 "$(row 30 30.00 30 30.00 1 idle)"
click 40 5
expect "a click selects the row (main, line 5)" tm_wait line_has_attr 5 7
# Home: idle; 1 sorts by self (lex 35, idle 30, ...) with idle still selected.
tm_keys Home 1
expect "1 keeps the selected function (idle) selected" \
	tm_wait eval "line_has_attr 3 7 && tm__line_is 3 '$(row 30 30.00 30 30.00 1 idle)'"
tm_keys Tab
expect "Tab: the graph again" tm_wait_line 28 all

# ---- focus: colours by name ----
tm_keys k k k
expect "to lex" status_is "lex${SEP}20 samples${SEP}20.00% of all"
lexbg=$(bg_before 25 lex)
tm_keys f
expect "f: breadcrumb" tm_wait_line 0 "[focus lex] all"
# Colours are cached by name id, and a transformed tree numbers its names
# anew (lex is id 1 there, main here): lex must keep lex's colour.
if infocmp tmux-256color >/dev/null 2>&1 || infocmp screen-256color >/dev/null 2>&1; then
	expect "f: lex keeps its colour ($lexbg)" tm_wait eval '[ -n "$lexbg" ] && bg_is 27 lex "$lexbg"'
else
	skip "f: lex keeps its colour" "no 256-colour terminfo"
fi
tm_keys u
expect "u undoes too" tm_wait_line 0 "all"

# ---- sandwich: clicks ----
# k k k: lex again. Callers of lex, 35 over 100 columns: parse 30 [0,85)
# + run 5 [85,100) on line 13, lex on lines 14 and 15.
tm_keys k k k s
expect "s: sandwich of lex" tm_wait_line 0 "sandwich: lex"
expect "lex's callers" tm_wait_line 13 "$(printf '%-85s%s' parse run)"
click 90 13
expect "click on run above lex: 5 of lex's 35" \
	status_is "run${SEP}5 samples${SEP}14.29% of the function${SEP}5.00% of all"
click 10 13 2
expect "double-click on parse: its sandwich" tm_wait_line 0 "sandwich: parse"
tm_keys s
expect "s: back to the graph, its selection (lex) kept" status_is "lex${SEP}20 samples"
tm_keys q
expect "q: exit status 0" tm_wait_grep '^rc=0$'

# ---- --view=table --table-sort=total starts in the table ----
tm_run clear
tm_tflame --view=table --table-sort=total "$(q "$F")"
expect "--view=table: the browser opens on the table, by total" \
	tm_wait eval "tm__line_is 2 '$(row 0 0.00 70 70.00 1 main)' && tm__line_starts 29 '6 of 6 functions${SEP}sort: total'"
click 10 3 2
expect "double-click on lex (line 3): the graph, lex selected" \
	tm_wait eval 'tm__line_is 28 all && tm__line_starts 29 "/^lex\$/  match 1 of 3"'
tm_keys q
expect "--view=table: quits" tm_wait_grep '^rc=0$'

# ---- diff ----
# views.diff: grow 10 -> 40, shrink 50 -> 20, same 40 -> 40; AFTER total
# 100 = main: grow [0,40) same [40,80) shrink [80,100). Largest |self
# delta| 30: grow full red (255,40,40) -> xterm 196, shrink full blue
# (40,40,255) -> 21, same pale grey (230,230,230) -> 254.
D="$top_srcdir/tests/ui/views.diff"
tm_run clear
tm_tflame --diff "$(q "$D")"
expect "diff: widths from AFTER" tm_wait_line 26 "$(printf '%-40s%-40s%s' grow same shrink)"
expect "diff: status has before, after, delta" \
	status_is "all${SEP}100 samples${SEP}100.00% of all${SEP}before 100  after 100  delta +0 (+0.00%)"
if infocmp tmux-256color >/dev/null 2>&1 || infocmp screen-256color >/dev/null 2>&1; then
	expect "diff: grew is red (196)" tm_wait bg_is 26 grow 196
	expect "diff: shrank is blue (21)" bg_is 26 shrink 21
	expect "diff: unchanged is grey (254)" bg_is 26 same 254
else
	skip "diff colours" "no 256-colour terminfo"
	skip "diff colours" "no 256-colour terminfo"
	skip "diff colours" "no 256-colour terminfo"
fi
tm_keys q
expect "diff: quits" tm_wait_grep '^rc=0$'
tm_run clear
tm_tflame --diff --negate "$(q "$D")"
if infocmp tmux-256color >/dev/null 2>&1 || infocmp screen-256color >/dev/null 2>&1; then
	expect "--negate: grew is blue" tm_wait bg_is 26 grow 21
else
	skip "--negate colours" "no 256-colour terminfo"
fi
tm_keys q
expect "--negate: quits" tm_wait_grep '^rc=0$'
tm_stop
done_testing
