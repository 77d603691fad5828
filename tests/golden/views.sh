#!/bin/sh
# tests/golden/views.sh: the views keys headless (--script, screens dumped
# as text): Tab (top table: 1 2 3, / filter, Esc, Enter), r, f, H, R, x,
# Backspace undo, s (sandwich) and --diff, as tests/ui/views.sh checked
# them in tmux; the mouse, the selection's reverse video and the colours
# stay there. Expected screens are worked out by hand from
# tests/ui/views.folded (100 samples: at 100 columns one sample is one
# column; graph area lines 1..28 of a 30-line screen, root row at line 28):
#   all 100 = idle 30 [0,30) + main 70 [30,100)
#   main = init 10 [30,40) + parse 30 [40,70) + run 30 [70,100)
#   parse = lex 20 [40,60) + parse 10 [60,70) > lex 10 [60,70)
#   run = self 25 + lex 5 [70,75)
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/golden/hl.sh"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
[ -x "$TFLAME" ] || skip_all "$TFLAME is not built"

F="$top_srcdir/tests/ui/views.folded"
SEP='  ·  '
# Table row: SELF SELF% TOTAL TOTAL% CALLERS NAME, counts 5 wide (the
# root's 100 has 3 digits; the header words need 5).
row() { printf '%5s %6s%% %5s %6s%% %7s  %s' "$@"; }

hl_open 100 30 "$F"
hl_status "open" "all${SEP}100 samples${SEP}100.00% of all"

# ---- top table ----
# lex: self 20 + 10 + 5 = 35, total the same (no lex inside a lex),
# callers parse and run. parse: self 0, total 30 (the inner parse is
# inside the outer one), callers main and parse. Self order, ties by
# total then name: lex 35, idle 30, run 25, init 10, main 0/70, parse 0/30.
hl_keys Tab
hl_line "Tab: table header" 1 " SELF   SELF% TOTAL  TOTAL% CALLERS  FUNCTION"
hl_line "Tab: lex first (self 35)" 2 "$(row 35 35.00 35 35.00 2 lex)"
hl_line "Tab: idle 30/30" 3 "$(row 30 30.00 30 30.00 1 idle)"
hl_line "Tab: run 25/30" 4 "$(row 25 25.00 30 30.00 1 run)"
hl_expect "Tab: main 0/70 before parse 0/30 (ties by total)" \
	eval "sc_is 6 '$(row 0 0.00 70 70.00 1 main)' && sc_is 7 '$(row 0 0.00 30 30.00 2 parse)'"
hl_status "Tab: status counts functions and names the key" "6 of 6 functions${SEP}sort: self"
hl_keys 2
hl_line "2: by total, main 70 first" 2 "$(row 0 0.00 70 70.00 1 main)"
hl_expect "2: idle, run, parse tie at 30: by self" \
	eval "sc_is 4 '$(row 30 30.00 30 30.00 1 idle)' && sc_is 5 '$(row 25 25.00 30 30.00 1 run)' && sc_is 6 '$(row 0 0.00 30 30.00 2 parse)'"
hl_keys 3
hl_line "3: by name, idle first" 2 "$(row 30 30.00 30 30.00 1 idle)"
hl_line "3: run last" 7 "$(row 25 25.00 30 30.00 1 run)"
hl_status "3: status" "6 of 6 functions${SEP}sort: name"
hl_keys /
hl_status "/: filter prompt" "filter:"
hl_type '^p'
hl_keys Enter
hl_expect "/^p: only parse" eval "sc_is 2 '$(row 0 0.00 30 30.00 2 parse)' && sc_is 3 ''"
hl_status "/^p: status shows the filter" "1 of 6 functions${SEP}sort: name${SEP}/^p"
hl_keys Esc
hl_status "Esc: filter cleared" "6 of 6 functions${SEP}sort: name"
# The selection stayed on parse (line 6); lex is two rows up.
# Enter: the graph, the heaviest lex (main;parse;lex, 20) selected and
# lex searched exactly: 3 frames, 35 samples with recursion counted once;
# main;parse;lex is the first of them in preorder.
hl_keys k k Enter
hl_expect "Enter on lex: back to the graph, lex searched, heaviest of 3 selected" \
	eval 'sc_is 29 "/^lex\$/  match 1 of 3${SEP}35.00% of samples${SEP}the heaviest of 3 frames of this function" && sc_is 28 all'
hl_keys n
hl_grep "n: the next lex (main;parse;parse;lex, 10 samples)" "match 2 of 3.*lex${SEP}10 samples\$"
hl_keys N Esc
hl_status "N, Esc: lex [40,60) (20 samples) is selected, no search" "lex${SEP}20 samples${SEP}20.00% of all"
# Zoomed into main (70 samples), the table covers main's subtree only.
hl_keys j j Enter Tab
hl_status "table of the zoom: 5 functions" "5 of 5 functions"
hl_grep "table of the zoom: lex is 35/70 = 50%" "^$(row 35 50.00 35 50.00 2 lex)\$"
hl_expect "table of the zoom: no idle row" eval '! sc_grep "idle$"'
hl_keys Tab 0
hl_line "Tab back, 0: whole graph" 0 "all"
# s and f act on the table's selected row: lex, first by self. (The
# table opens sorted by name, the last key used, on idle; 1 re-sorts with
# idle still selected; Home goes to the first row.)
hl_keys Tab 1
hl_line "1: by self again, idle on line 3 (selected: tests/ui/views.sh)" 3 "$(row 30 30.00 30 30.00 1 idle)"
hl_keys Home s
hl_line "s in the table: sandwich of the selected row (lex)" 0 "sandwich: lex"
# Closing the sandwich (s) comes back to the table it was opened from.
hl_keys s f
hl_expect "f in the table: focus on lex" eval 'sc_is 0 "[focus lex] all" && sc_is 27 lex'
hl_keys BS
hl_line "Backspace: focus undone" 0 "all"

# ---- reverse ----
# Stacks leaf first: lex;parse;main 20, lex;parse;parse;main 10,
# lex;run;main 5, run;main 25, init;main 10, idle 30. By name: idle [0,30)
# init [30,40) lex [40,75) run [75,100); init > main [30,40);
# lex = parse [40,70) + run [70,75); run > main [75,100).
hl_keys r
hl_line "r: breadcrumb shows the transform" 0 "[reverse] all"
hl_line "r: leaves are roots" 27 "$(printf '%-30s%-10s%-35s%s' idle init lex run)"
hl_line "r: callers of each leaf above it" 26 "$(printf '%30s%-10s%-30s%-5s%s' '' main parse run main)"
hl_line "r: then their callers" 25 "$(printf '%40s%-20s%-10s%s' '' main parse main)"
hl_line "r: main above parse;parse" 24 "$(printf '%60s%s' '' main)"
hl_keys BS
hl_line "Backspace: undone" 29 "undone: reverse"
hl_line "Backspace: the graph is back" 27 "$(printf '%-30s%s' idle main)"
hl_line "Backspace: no transform left" 0 "all"
hl_keys BS
hl_line "Backspace with nothing to undo" 29 "already showing all samples: nothing to undo"

# ---- focus ----
hl_keys k k k
hl_status "to lex" "lex${SEP}20 samples${SEP}20.00% of all"
hl_keys f
hl_line "f: breadcrumb" 0 "[focus lex] all"
hl_expect "f: lex is the only frame, 35 samples (all three call sites)" \
	eval 'sc_is 27 lex && sc_is 26 "" && sc_starts 29 "lex${SEP}35 samples${SEP}100.00% of all"'
hl_keys u
hl_line "u undoes too" 0 "all"

# ---- hide ----
# Hiding ^parse$ moves both lex under parse to main: main;lex 30.
hl_keys H
hl_status "H: prompt" "hide frames matching:"
hl_type '^parse$'
hl_keys Enter
hl_line "H: breadcrumb" 0 "[hide ^parse\$] all"
hl_line "H: lex re-attached to main" 26 "$(printf '%30s%-10s%-30s%s' '' init lex run)"
hl_expect "H: samples kept" eval "sc_is 25 '$(printf '%70s%s' '' lex)' && sc_starts 29 'all${SEP}100 samples'"
hl_keys H
hl_type 'x('
hl_keys Enter
hl_grep "H with a bad regex: message" '^bad regex: '
hl_line "H with a bad regex: stack unchanged" 0 "[hide ^parse\$] all"
hl_keys H Esc
hl_line "H, Esc: cancelled" 0 "[hide ^parse\$] all"
# H edits as the search prompt does: a cursor that moves, Ctrl-G, and a
# history of its own (Up: the last accepted, here the bad 'x(')
hl_keys H
hl_type 'pse'
hl_keys Left Left
hl_type 'ar'
hl_status "H: typing at the cursor" "hide frames matching: parse"
hl_keys C-g
hl_line "H, Ctrl-G: cancelled" 0 "[hide ^parse\$] all"
hl_keys H Up
hl_status "H, Up: the last hide pattern" "hide frames matching: x("
hl_keys Up
hl_status "H, Up again: the one before" "hide frames matching: ^parse\$"
hl_keys Esc
hl_keys BS

# ---- a search lives on through transforms, run again on the new tree ----
hl_keys /
hl_type lex
hl_keys Enter
hl_grep "/lex: 3 frames, 35% of samples" "^/lex/  match 1 of 3${SEP}35.00% of samples"
hl_keys r
hl_expect "r: the search runs on the reversed tree (one lex root)" \
	eval 'sc_is 0 "[reverse] all" && sc_grep "^/lex/ .*1 match.*35.00% of samples"'
hl_keys Esc BS
hl_expect "Esc, Backspace: no search, no transform" \
	eval 'sc_is 0 all && sc_is 29 "undone: reverse"'

# ---- merge recursion, drop ----
hl_keys R
hl_line "R: breadcrumb" 0 "[merge recursion] all"
hl_line "R: parse;parse;lex joined parse;lex (30)" \
	25 "$(printf '%40s%-30s%s' '' lex lex)"
hl_line "R: nothing deeper" 24 ""
hl_keys k k l
hl_status "to run" "run${SEP}30 samples"
# Without run: 70 samples over 100 columns, x -> floor(x * 100 / 70):
# idle [0,42), main [42,100), init [42,57), parse [57,100).
hl_keys x
hl_line "x: two transforms in the breadcrumb" 0 "[merge recursion] [drop run] all"
hl_expect "x: run is gone" eval "sc_is 27 '$(printf '%-42s%s' idle main)' && sc_is 26 '$(printf '%42s%-15s%s' '' init parse)'"
hl_status "x: its samples too" "all${SEP}70 samples${SEP}100.00% of all"
hl_keys BS
hl_line "Backspace: the last transform goes first" 0 "[merge recursion] all"
hl_keys BS
hl_line "Backspace: none left" 0 "all"

# ---- sandwich ----
# Callers of parse (outermost only): parse;main 30. Callees: parse 30 =
# lex 20 [0,66) + parse 10 [66,100) > lex. Top pane lines 1-14 (parse on
# line 14), bottom pane lines 15-28 (parse on line 15).
hl_keys k k
hl_status "to parse" "parse${SEP}30 samples"
hl_keys s
hl_line "s: breadcrumb" 0 "sandwich: parse"
hl_expect "s: callers above" eval 'sc_is 14 parse && sc_is 13 main && sc_is 12 ""'
hl_expect "s: callees below" eval "sc_is 15 parse && sc_is 16 '$(printf '%-66s%s' lex parse)' && sc_is 17 '$(printf '%66s%s' '' lex)'"
hl_status "s: status" "parse${SEP}30 samples${SEP}100.00% of the function${SEP}30.00% of all"
hl_keys k
hl_status "k: the caller main" "main${SEP}30 samples${SEP}100.00% of the function"
hl_keys j j j
hl_status "j j j: across to the callees, lex" "lex${SEP}20 samples${SEP}66.67% of the function${SEP}20.00% of all"
# Callers of lex, 35 over 100 columns: parse 30 [0,85) + run 5 [85,100);
# above parse: main 20 [0,57) + parse 10 [57,85) > main; above run: main.
hl_keys Enter
hl_line "Enter: sandwich of lex" 0 "sandwich: lex"
hl_expect "lex's callers" eval "sc_is 13 '$(printf '%-85s%s' parse run)' && sc_is 12 '$(printf '%-57s%-28s%s' main parse main)' && sc_is 11 '$(printf '%57s%s' '' main)'"
hl_expect "lex has no callees" eval 'sc_is 15 lex && sc_is 16 ""'
# The mouse does the same in tests/ui/views.sh: here k reaches parse, the
# caller under the middle column (30 of lex's 35), Enter its sandwich.
hl_keys k
hl_status "k: the caller parse, 30 of lex's 35" \
	"parse${SEP}30 samples${SEP}85.71% of the function${SEP}30.00% of all"
hl_keys Enter
hl_line "Enter on parse: its sandwich" 0 "sandwich: parse"
hl_keys s
hl_status "s: back to the graph, selection kept" "parse${SEP}30 samples"
hl_keys q
hl_end

# ---- a `*` search in the history after a transform ----
# `*` on main remembers main's name id (1); focused on lex, id 1 is lex.
# Recalled after the transform, the search must still be for main.
hl_open 100 30 "$F"
hl_status "open again" "all${SEP}100 samples"
hl_keys k '*' Esc k k
hl_status "to lex" "lex${SEP}20 samples"
hl_keys f / Up Enter
hl_grep "history after a transform: /^main\$/ finds nothing in lex's focus" \
	 "^/\^main\\\$/  no match"
hl_keys q
hl_end

# ---- --view=table --table-sort=total starts in the table ----
hl_open 100 30 --view=table --table-sort=total "$F"
hl_expect "--view=table: the browser opens on the table, by total" \
	eval "sc_is 2 '$(row 0 0.00 70 70.00 1 main)' && sc_starts 29 '6 of 6 functions${SEP}sort: total'"
# (a double-click on a row: tests/ui/views.sh)
hl_keys q
hl_end

# ---- --view=sandwich starts in the sandwich (default: most self, lex) ----
hl_open 100 30 --view=sandwich "$F"
hl_line "--view=sandwich: opens on lex's sandwich" 0 "sandwich: lex"
hl_keys s
hl_line "s: to the flame graph" 28 all
hl_keys q
hl_end
hl_open 100 30 --view=sandwich=nosuch "$F"
hl_expect "--view=sandwich=nosuch: graph and a message" \
	eval 'sc_is 28 all && sc_is 29 "no such function for the sandwich"'
hl_keys q
hl_end

# ---- diff ----
# views.diff: grow 10 -> 40, shrink 50 -> 20, same 40 -> 40; AFTER total
# 100 = main: grow [0,40) same [40,80) shrink [80,100). Largest |self
# delta| 30: grow full red (255,40,40) -> xterm 196, shrink full blue
# (40,40,255) -> 21, same pale grey (230,230,230) -> 254.
D="$top_srcdir/tests/ui/views.diff"
hl_open 100 30 --diff "$D"
hl_line "diff: widths from AFTER" 26 "$(printf '%-40s%-40s%s' grow same shrink)"
hl_status "diff: status has before, after, delta" \
	"all${SEP}100 samples${SEP}100.00% of all${SEP}before 100  after 100  delta +0 (+0.00%)"
hl_keys k k h
hl_status "diff: grow 10 -> 40 is +300%" \
	"grow${SEP}40 samples${SEP}40.00% of all${SEP}before 10  after 40  delta +30 (+300.00%)"
hl_keys q
hl_end
# BEFORE and AFTER as two files: the status line names both, in order
# (140 columns: room for the names)
printf 'main;grow 10\nmain;shrink 50\nmain;same 40\n' > "$T_TMP/old.folded"
printf 'main;grow 40\nmain;shrink 20\nmain;same 40\n' > "$T_TMP/new.folded"
cd "$T_TMP" || exit 1
hl_open 140 30 --diff old.folded new.folded
hl_grep "diff of two files: the status line says old.folded → new.folded" 'old\.folded → new\.folded  \? help$'
hl_keys q
hl_end

done_testing
