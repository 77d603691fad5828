#!/bin/sh
# tests/golden/regex.sh: an exact-name search (*) stays exact across a
# transform and undo, and when recalled from the history after them
# (issue 21, defect 2), headless (--script); the rest of issue 21's regex
# cases (passes in slices, Esc and signals while one runs) need a terminal
# and are in tests/ui/regex.sh.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/golden/hl.sh"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
[ -x "$TFLAME" ] || skip_all "$TFLAME is not built"
SEP='  ·  '

# 10 samples, 10 columns each: main's children in byte order FOO [0,10),
# bar [10,20) (bar;foo above it), foo [20,100). The root is selected at
# first; k k selects main, then foo above the middle column. * on it:
# main;foo and main;bar;foo (preorder: main, FOO, bar, bar;foo, foo), not
# FOO: exact means case too. A regex of the quoted name, ^foo$ in smart
# case, would take FOO as well (3 matches).
E="$T_TMP/exact.folded"
printf 'main;foo 8\nmain;FOO 1\nmain;bar;foo 1\n' > "$E"
hl_open 100 30 --no-config "$E"
hl_prefix "exact: open" 28 "all"
hl_keys k k '*'
hl_prefix "*: foo's exact name, 2 matches, foo the 2nd" 29 "/^foo\$/  match 2 of 2${SEP}90.00% of samples"
hl_keys R
hl_prefix "R (a transform): still exact, 2 matches (not FOO)" \
	29 "/^foo\$/  2 matches${SEP}90.00% of samples"
hl_keys u
hl_prefix "u (undo): still exact, 2 matches" 29 "/^foo\$/  2 matches${SEP}90.00% of samples"
hl_keys r
hl_prefix "r (reverse): still exact, foo (8 + 1) as a root" 29 "/^foo\$/  1 match${SEP}90.00% of samples"
hl_keys u
hl_keys / Up
hl_line "recalled from the history after transforms: exact, 2 matches" 29 "/^foo\$  2 matches${SEP}90.00% of samples"
hl_keys Esc q
hl_end

done_testing
