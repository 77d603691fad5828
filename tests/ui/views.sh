#!/bin/sh
# tests/ui/views.sh: the views keys in a real terminal (tmux): Tab (top
# table: 1 2 3, / filter, Esc, Enter), r, f, H, R, x, Backspace undo, s
# (sandwich) and --diff colours. Expected screens are worked out by hand
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

# Background colour (256 form) of the cell where TEXT starts on line N.
bg_before() {
	sed -n "$(($1 + 1))p" "$TM_SCREEN_E_FILE" |
		sed -n "s/.*48;5;\([0-9]*\)m$2.*/\1/p"
}
bg_is() { [ "$(bg_before "$1" "$2")" = "$3" ]; }
# Whether line N sets SGR attribute A (7: reverse), skipping colour args.
line_has_attr() {
	sed -n "$(($1 + 1))p" "$TM_SCREEN_E_FILE" | grep -o "$(printf '\033')\[[0-9;]*m" |
		sed "s/^$(printf '\033')\[//; s/m\$//" | awk -F';' -v a="$2" '{
		for (i = 1; i <= NF; i++) {
			if ($i == 38 || $i == 48) { i += ($(i + 1) == 5) ? 2 : 4; continue }
			if ($i == a) found = 1
		}
	} END { exit !found }'
}
# Table row: SELF SELF% TOTAL TOTAL% CALLERS NAME, counts 5 wide (the
# root's 100 has 3 digits; the header words need 5).
row() { printf '%5s %6s%% %5s %6s%% %7s  %s' "$@"; }
# X10 mouse reports (ESC [ M b x y, +32 each) as tmux sends for button 1.
click() { # col row [n]: n press+release pairs in one go (2: a double-click)
	local x y bytes="" k=0
	x=$(printf "\\$(printf %o $((33 + $1)))")
	y=$(printf "\\$(printf %o $((33 + $2)))")
	while [ $k -lt "${3:-1}" ]; do
		bytes="$bytes$(printf '\033[M ')$x$y$(printf '\033[M#')$x$y"
		k=$((k + 1))
	done
	tm_bytes "$bytes"
}

tm_start 100 30 || { fail "tmux server starts"; done_testing; exit; }
tm_tflame "$(q "$F")"
expect "open" status_is "all${SEP}100 samples${SEP}100.00% of all"

# ---- top table ----
# lex: self 20 + 10 + 5 = 35, total the same (no lex inside a lex),
# callers parse and run. parse: self 0, total 30 (the inner parse is
# inside the outer one), callers main and parse. Self order, ties by
# total then name: lex 35, idle 30, run 25, init 10, main 0/70, parse 0/30.
tm_keys Tab
expect "Tab: table header" tm_wait_line 1 " SELF   SELF% TOTAL  TOTAL% CALLERS  FUNCTION"
expect "Tab: lex first (self 35)" tm_wait_line 2 "$(row 35 35.00 35 35.00 2 lex)"
expect "Tab: idle 30/30" tm_wait_line 3 "$(row 30 30.00 30 30.00 1 idle)"
expect "Tab: run 25/30" tm_wait_line 4 "$(row 25 25.00 30 30.00 1 run)"
expect "Tab: main 0/70 before parse 0/30 (ties by total)" \
	tm_wait eval "tm__line_is 6 '$(row 0 0.00 70 70.00 1 main)' && tm__line_is 7 '$(row 0 0.00 30 30.00 2 parse)'"
expect "Tab: status counts functions and names the key" status_is "6 of 6 functions${SEP}sort: self"
tm_keys 2
expect "2: by total, main 70 first" tm_wait_line 2 "$(row 0 0.00 70 70.00 1 main)"
expect "2: idle, run, parse tie at 30: by self" \
	tm_wait eval "tm__line_is 4 '$(row 30 30.00 30 30.00 1 idle)' && tm__line_is 5 '$(row 25 25.00 30 30.00 1 run)' && tm__line_is 6 '$(row 0 0.00 30 30.00 2 parse)'"
tm_keys 3
expect "3: by name, idle first" tm_wait_line 2 "$(row 30 30.00 30 30.00 1 idle)"
expect "3: run last" tm_wait_line 7 "$(row 25 25.00 30 30.00 1 run)"
expect "3: status" status_is "6 of 6 functions${SEP}sort: name"
click 40 5
expect "a click selects the row (main, line 5)" tm_wait line_has_attr 5 7
tm_keys /
expect "/: filter prompt" status_is "filter:"
tm_type '^p'
tm_keys Enter
expect "/^p: only parse" tm_wait eval "tm__line_is 2 '$(row 0 0.00 30 30.00 2 parse)' && tm__line_is 3 ''"
expect "/^p: status shows the filter" status_is "1 of 6 functions${SEP}sort: name${SEP}/^p"
tm_keys Escape
expect "Esc: filter cleared" status_is "6 of 6 functions${SEP}sort: name"
# The selection stayed on parse (line 6); lex is two rows up.
# Enter: the graph, the heaviest lex (main;parse;lex, 20) selected and
# lex searched exactly: 3 frames, 35 samples with recursion counted once;
# main;parse;lex is the first of them in preorder.
tm_keys k k Enter
expect "Enter on lex: back to the graph, lex searched, heaviest of 3 selected" \
	tm_wait eval 'tm__line_is 29 "/^lex\$/  match 1 of 3${SEP}35.00% of samples${SEP}the heaviest of 3 frames of this function" && tm__line_is 28 all'
tm_keys n
expect "n: the next lex (main;parse;parse;lex, 10 samples)" tm_wait_grep "match 2 of 3.*lex${SEP}10 samples\$"
tm_keys N Escape
expect "N, Esc: lex [40,60) (20 samples) is selected, no search" status_is "lex${SEP}20 samples${SEP}20.00% of all"
# Zoomed into main (70 samples), the table covers main's subtree only.
tm_keys j j Enter Tab
expect "table of the zoom: 5 functions" status_is "5 of 5 functions"
expect "table of the zoom: lex is 35/70 = 50%" tm_wait_grep "^$(row 35 50.00 35 50.00 2 lex)\$"
expect "table of the zoom: no idle row" eval '! tm__grep "idle$"'
tm_keys Tab 0
expect "Tab back, 0: whole graph" tm_wait_line 0 "all"
# s and f act on the table's selected row: lex, first by self. (The
# table opens sorted by name, the last key used, on idle; 1 re-sorts with
# idle still selected; Home goes to the first row.)
tm_keys Tab 1
expect "1 keeps the selected function (idle) selected" \
	tm_wait eval "line_has_attr 3 7 && tm__line_is 3 '$(row 30 30.00 30 30.00 1 idle)'"
tm_keys Home s
expect "s in the table: sandwich of the selected row (lex)" tm_wait_line 0 "sandwich: lex"
# Closing the sandwich (s) comes back to the table it was opened from.
tm_keys s f
expect "f in the table: focus on lex" tm_wait eval 'tm__line_is 0 "[focus lex] all" && tm__line_is 27 lex'
tm_keys BSpace
expect "Backspace: focus undone" tm_wait_line 0 "all"

# ---- reverse ----
# Stacks leaf first: lex;parse;main 20, lex;parse;parse;main 10,
# lex;run;main 5, run;main 25, init;main 10, idle 30. By name: idle [0,30)
# init [30,40) lex [40,75) run [75,100); init > main [30,40);
# lex = parse [40,70) + run [70,75); run > main [75,100).
tm_keys r
expect "r: breadcrumb shows the transform" tm_wait_line 0 "[reverse] all"
expect "r: leaves are roots" tm_wait_line 27 "$(printf '%-30s%-10s%-35s%s' idle init lex run)"
expect "r: callers of each leaf above it" tm_wait_line 26 "$(printf '%30s%-10s%-30s%-5s%s' '' main parse run main)"
expect "r: then their callers" tm_wait_line 25 "$(printf '%40s%-20s%-10s%s' '' main parse main)"
expect "r: main above parse;parse" tm_wait_line 24 "$(printf '%60s%s' '' main)"
tm_keys BSpace
expect "Backspace: undone" tm_wait_line 29 "undone: reverse"
expect "Backspace: the graph is back" tm_wait_line 27 "$(printf '%-30s%s' idle main)"
expect "Backspace: no transform left" tm_wait_line 0 "all"
tm_keys BSpace
expect "Backspace with nothing to undo" tm_wait_line 29 "already showing all samples: nothing to undo"

# ---- focus ----
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
expect "f: lex is the only frame, 35 samples (all three call sites)" \
	tm_wait eval 'tm__line_is 27 lex && tm__line_is 26 "" && tm__line_starts 29 "lex${SEP}35 samples${SEP}100.00% of all"'
tm_keys u
expect "u undoes too" tm_wait_line 0 "all"

# ---- hide ----
# Hiding ^parse$ moves both lex under parse to main: main;lex 30.
tm_keys H
expect "H: prompt" status_is "hide frames matching:"
tm_type '^parse$'
tm_keys Enter
expect "H: breadcrumb" tm_wait_line 0 "[hide ^parse\$] all"
expect "H: lex re-attached to main" tm_wait_line 26 "$(printf '%30s%-10s%-30s%s' '' init lex run)"
expect "H: samples kept" tm_wait eval "tm__line_is 25 '$(printf '%70s%s' '' lex)' && tm__line_starts 29 'all${SEP}100 samples'"
tm_keys H
tm_type 'x('
tm_keys Enter
expect "H with a bad regex: message" tm_wait_grep '^bad regex: '
expect "H with a bad regex: stack unchanged" tm_wait_line 0 "[hide ^parse\$] all"
tm_keys H Escape
expect "H, Esc: cancelled" tm_wait_line 0 "[hide ^parse\$] all"
# H edits as the search prompt does: a cursor that moves, Ctrl-G, and a
# history of its own (Up: the last accepted, here the bad 'x(')
tm_keys H
tm_type 'pse'
tm_keys Left Left
tm_type 'ar'
expect "H: typing at the cursor" status_is "hide frames matching: parse"
tm_keys C-g
expect "H, Ctrl-G: cancelled" tm_wait_line 0 "[hide ^parse\$] all"
tm_keys H Up
expect "H, Up: the last hide pattern" status_is "hide frames matching: x("
tm_keys Up
expect "H, Up again: the one before" status_is "hide frames matching: ^parse\$"
tm_keys Escape
tm_keys BSpace

# ---- a search lives on through transforms, run again on the new tree ----
tm_keys /
tm_type lex
tm_keys Enter
expect "/lex: 3 frames, 35% of samples" tm_wait_grep "^/lex/  match 1 of 3${SEP}35.00% of samples"
tm_keys r
expect "r: the search runs on the reversed tree (one lex root)" \
	tm_wait eval 'tm__line_is 0 "[reverse] all" && tm__grep "^/lex/ .*1 match.*35.00% of samples"'
tm_keys Escape BSpace
expect "Esc, Backspace: no search, no transform" \
	tm_wait eval 'tm__line_is 0 all && tm__line_is 29 "undone: reverse"'

# ---- merge recursion, drop ----
tm_keys R
expect "R: breadcrumb" tm_wait_line 0 "[merge recursion] all"
expect "R: parse;parse;lex joined parse;lex (30)" \
	tm_wait_line 25 "$(printf '%40s%-30s%s' '' lex lex)"
expect "R: nothing deeper" tm_wait_line 24 ""
tm_keys k k l
expect "to run" status_is "run${SEP}30 samples"
# Without run: 70 samples over 100 columns, x -> floor(x * 100 / 70):
# idle [0,42), main [42,100), init [42,57), parse [57,100).
tm_keys x
expect "x: two transforms in the breadcrumb" tm_wait_line 0 "[merge recursion] [drop run] all"
expect "x: run is gone" tm_wait eval "tm__line_is 27 '$(printf '%-42s%s' idle main)' && tm__line_is 26 '$(printf '%42s%-15s%s' '' init parse)'"
expect "x: its samples too" status_is "all${SEP}70 samples${SEP}100.00% of all"
tm_keys BSpace
expect "Backspace: the last transform goes first" tm_wait_line 0 "[merge recursion] all"
tm_keys BSpace
expect "Backspace: none left" tm_wait_line 0 "all"

# ---- sandwich ----
# Callers of parse (outermost only): parse;main 30. Callees: parse 30 =
# lex 20 [0,66) + parse 10 [66,100) > lex. Top pane lines 1-14 (parse on
# line 14), bottom pane lines 15-28 (parse on line 15).
tm_keys k k
expect "to parse" status_is "parse${SEP}30 samples"
tm_keys s
expect "s: breadcrumb" tm_wait_line 0 "sandwich: parse"
expect "s: callers above" tm_wait eval 'tm__line_is 14 parse && tm__line_is 13 main && tm__line_is 12 ""'
expect "s: callees below" tm_wait eval "tm__line_is 15 parse && tm__line_is 16 '$(printf '%-66s%s' lex parse)' && tm__line_is 17 '$(printf '%66s%s' '' lex)'"
expect "s: status" status_is "parse${SEP}30 samples${SEP}100.00% of the function${SEP}30.00% of all"
tm_keys k
expect "k: the caller main" status_is "main${SEP}30 samples${SEP}100.00% of the function"
tm_keys j j j
expect "j j j: across to the callees, lex" status_is "lex${SEP}20 samples${SEP}66.67% of the function${SEP}20.00% of all"
# Callers of lex, 35 over 100 columns: parse 30 [0,85) + run 5 [85,100);
# above parse: main 20 [0,57) + parse 10 [57,85) > main; above run: main.
tm_keys Enter
expect "Enter: sandwich of lex" tm_wait_line 0 "sandwich: lex"
expect "lex's callers" tm_wait eval "tm__line_is 13 '$(printf '%-85s%s' parse run)' && tm__line_is 12 '$(printf '%-57s%-28s%s' main parse main)' && tm__line_is 11 '$(printf '%57s%s' '' main)'"
expect "lex has no callees" tm_wait eval 'tm__line_is 15 lex && tm__line_is 16 ""'
click 90 13
expect "click on run above lex: 5 of lex's 35" \
	status_is "run${SEP}5 samples${SEP}14.29% of the function${SEP}5.00% of all"
click 10 13 2
expect "double-click on parse: its sandwich" tm_wait_line 0 "sandwich: parse"
tm_keys s
expect "s: back to the graph, selection kept" status_is "parse${SEP}30 samples"
tm_keys q
expect "q: exit status 0" tm_wait_grep '^rc=0$'

# ---- a `*` search in the history after a transform ----
# `*` on main remembers main's name id (1); focused on lex, id 1 is lex.
# Recalled after the transform, the search must still be for main.
tm_run clear
tm_tflame "$(q "$F")"
expect "open again" status_is "all${SEP}100 samples"
tm_keys k '*' Escape k k
expect "to lex" status_is "lex${SEP}20 samples"
tm_keys f / Up Enter
expect "history after a transform: /^main\$/ finds nothing in lex's focus" \
	tm_wait_grep "^/\^main\\\$/  no match"
tm_keys q
expect "quits" tm_wait_grep '^rc=0$'

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

# ---- --view=sandwich starts in the sandwich (default: most self, lex) ----
tm_run clear
tm_tflame --view=sandwich "$(q "$F")"
expect "--view=sandwich: opens on lex's sandwich" tm_wait_line 0 "sandwich: lex"
tm_keys s
expect "s: to the flame graph" tm_wait_line 28 all
tm_keys q
expect "--view=sandwich: quits" tm_wait_grep '^rc=0$'
tm_run clear
tm_tflame --view=sandwich=nosuch "$(q "$F")"
expect "--view=sandwich=nosuch: graph and a message" \
	tm_wait eval 'tm__line_is 28 all && tm__line_is 29 "no such function for the sandwich"'
tm_keys q
expect "--view=sandwich=nosuch: quits" tm_wait_grep '^rc=0$'

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
tm_keys k k h
expect "diff: grow 10 -> 40 is +300%" \
	status_is "grow${SEP}40 samples${SEP}40.00% of all${SEP}before 10  after 40  delta +30 (+300.00%)"
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
# BEFORE and AFTER as two files: the status line names both, in order
printf 'main;grow 10\nmain;shrink 50\nmain;same 40\n' > "$T_TMP/old.folded"
printf 'main;grow 40\nmain;shrink 20\nmain;same 40\n' > "$T_TMP/new.folded"
tm_run "cd $(q "$T_TMP")"
tm resize-window -t t -x 140 -y 30 2>/dev/null   # room for the name
tm_tflame --diff old.folded new.folded
expect "diff of two files: the status line says old.folded → new.folded" \
	tm_wait_grep 'old\.folded → new\.folded  \? help$'
tm_keys q
expect "diff of two files: quits" tm_wait_grep '^rc=0$'
tm resize-window -t t -x 100 -y 30 2>/dev/null

done_testing
