#!/bin/sh
# tests/golden/search.sh: incremental search, headless (--script, screens
# dumped as text), and --search with --print: what tests/ui/search.sh
# checked without needing a terminal (attributes, the cursor, passes cut
# into slices by keys, the background index stay there). Every expectation
# is worked out by hand from tests/ui/search.folded (see its header): at
# 100 columns a column is 10 samples; the graph is lines 1..28 of a 30-line
# screen, root row at line 28 (flame), level 1 at line 27, level 2 at 26,
# level 3 at 25; line 29 is the status line or the prompt.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/golden/hl.sh"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
[ -x "$TFLAME" ] || skip_all "$TFLAME is not built"

F="$top_srcdir/tests/ui/search.folded"
SEP='  ·  '

# ---- --print ----
# alpha matches main;alpha 300, gamma;alpha 100 (nested in nothing that
# matches) and other;alpha 300: 700 of 1000 samples. Matching frames end
# in '*' instead of '|'.
{
	echo "all: 1000 samples"
	echo "/alpha/  3 matches${SEP}70.00% of samples"
	printf '%-29s|%-9s|%-19s|%-9s*\n' work Work work alpha
	printf '%-29s*%-29s|%-9s|%-29s*\n' alpha beta gamma alpha
	printf '%-69s|%-29s|\n' main other
	printf '%-99s|\n' all
} >"$T_TMP/want.print"
"$TFLAME" --print --width 100 --search=alpha "$F" >"$T_TMP/got.print" 2>"$T_TMP/err"
same "--print --search=alpha: match line, matches closed by *" "$T_TMP/got.print" "$T_TMP/want.print"
# Nested matches count once: 'a' matches main (700), which holds every
# other match under it, and other;alpha (300): 1000 samples, not the sum.
"$TFLAME" --print --width 100 --search='^(main|alpha)$' "$F" 2>/dev/null | sed -n 2p >"$T_TMP/got.line"
echo "/^(main|alpha)\$/  4 matches${SEP}100.00% of samples" >"$T_TMP/want.line"
same "--print: a match inside a match adds nothing (700 + 300, not 1400)" "$T_TMP/got.line" "$T_TMP/want.line"
"$TFLAME" --print --width 100 --search=zzz "$F" 2>/dev/null | sed -n 2p >"$T_TMP/got.line"
echo "/zzz/  no match${SEP}0.00% of samples" >"$T_TMP/want.line"
same "--print: no match" "$T_TMP/got.line" "$T_TMP/want.line"
"$TFLAME" --print --search='a(' "$F" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
if [ $rc -eq 2 ] && grep -q '^tflame: invalid --search regex: ' "$T_TMP/err" && ! [ -s "$T_TMP/out" ]; then
	pass "--search with an invalid regex: usage error, exit 2"
else
	fail "--search with an invalid regex: usage error, exit 2" "rc=$rc" "$(cat "$T_TMP/err")"
fi

hl_open 100 30 "$F"
hl_line "open: level 3 is work [0,30), Work [30,40), work [40,60), alpha [60,70)" \
	25 "$(printf '%-30s%-10s%-20s%s' work Work work alpha)"

# ---- incremental typing ----
hl_keys /
hl_line "/: the prompt replaces the status line" 29 "/"
# 'a' (smart case: any case) is in main, alpha x3, tiny_leaf, beta, gamma;
# 'all' is the root, not a frame.
# a: main (700, holding every other match but one) and other;alpha (300):
# 1000 of 1000.
hl_type a
hl_line "typing a: 7 matches at once, and their share" 29 "/a  7 matches${SEP}100.00% of samples"
hl_type l
hl_line "typing al: 3 matches (the alphas, 300 + 100 + 300)" 29 "/al  3 matches${SEP}70.00% of samples"
hl_keys BS
hl_line "Backspace: back to a, 7 matches" 29 "/a  7 matches${SEP}100.00% of samples"

# ---- an invalid regex keeps the last valid match count's search ----
hl_type 'l('
hl_line "al(: the regex error in the prompt" 29 '/al(  missing closing parenthesis'
hl_keys BS
hl_line "Backspace: al is valid again" 29 "/al  3 matches${SEP}70.00% of samples"

# ---- Enter accepts and selects the first match; n/N with wrap ----
hl_keys Enter
hl_status "Enter: the first match from the root on, main;alpha" \
	"/al/  match 1 of 3${SEP}70.00% of samples"
hl_grep "Enter: the status names the selection on the right" 'alpha  ·  300 samples$'
hl_keys n
hl_status "n: gamma;alpha" "/al/  match 2 of 3${SEP}70.00% of samples"
hl_keys n
hl_status "n: other;alpha" "/al/  match 3 of 3${SEP}70.00% of samples"
hl_keys n
hl_line "n at the last match: wraps to the first, with a message" \
	29 "/al/  match 1 of 3${SEP}70.00% of samples${SEP}search wrapped around to the first match"
hl_keys N
hl_line "N at the first match: wraps to the last, with a message" \
	29 "/al/  match 3 of 3${SEP}70.00% of samples${SEP}search wrapped around to the last match"
hl_keys N
hl_status "N: back to gamma;alpha" "/al/  match 2 of 3${SEP}70.00% of samples"

# ---- zoomed: % of view, and a match outside the view ----
# From gamma;alpha (level 3): j j is main; Enter zooms into it. In main's
# view the alphas under it are 300 + 100 = 400 of 700: 57.14%.
hl_keys j j Enter
hl_line "zoom into main" 0 "all › main"
hl_status "zoomed: 3 matches, % of samples and (% of view)" \
	"/al/  3 matches${SEP}70.00% of samples (57.14% of view)"
hl_keys n n
hl_status "n n in main's view: gamma;alpha" "/al/  match 2 of 3${SEP}70.00% of samples (57.14% of view)"
hl_keys n
hl_line "n to other;alpha, outside the view: zoomed out to all" 0 "all"
hl_line "n: the message says so" \
	29 "/al/  match 3 of 3${SEP}70.00% of samples${SEP}zoomed out to show the match"

# ---- Esc in normal mode clears the search ----
hl_keys Esc
hl_status "Esc: the plain status line is back" "alpha${SEP}300 samples${SEP}30.00% of all"

# ---- Esc in the prompt restores the search before it ----
hl_keys /
hl_type work
hl_line "work: smart case finds work, Work and work (297 + 100 + 200)" \
	29 "/work  3 matches${SEP}59.70% of samples"
hl_keys Enter
# Enter selects the heaviest match in view (the whole graph): main;alpha;work,
# 297 samples, before beta;work 200 and beta;Work 100; the first of 3.
hl_status "Enter: the heaviest match, main;alpha;work (297)" \
	"/work/  match 1 of 3${SEP}59.70% of samples"
hl_grep "Enter: the right side names it" "  work${SEP}297 samples\$"
hl_keys /
hl_type Work
hl_line "Work (upper case): case-sensitive, 1 match" 29 "/Work  1 match${SEP}10.00% of samples"
hl_keys Esc
hl_status "Esc in the prompt: /work/ is back" "/work/  match 1 of 3${SEP}59.70% of samples"
hl_keys /
hl_type xyz
hl_line "xyz: no match" 29 "/xyz  no match"
hl_keys Esc
hl_status "Esc after xyz: /work/ again" "/work/  match 1 of 3${SEP}59.70% of samples"

# ---- * searches the exact name: case-sensitive, anchored ----
hl_keys '*'
hl_status "*: /^work\$/, the two frames named work (297 + 200)" \
	"/^work\$/  match 1 of 2${SEP}49.70% of samples"

# ---- prompt editing and history ----
hl_keys / Up
hl_line "Up: the last search, from * (297 + 200)" 29 "/^work\$  2 matches${SEP}49.70% of samples"
hl_keys Up
hl_line "Up again: work" 29 "/work  3 matches${SEP}59.70% of samples"
hl_keys Down
hl_line "Down: ^work\$ recalled unchanged is still exact" 29 "/^work\$  2 matches${SEP}49.70% of samples"
hl_keys BS
hl_type '$'
hl_line "^work\$ retyped is a regex again: smart case, 3 matches" 29 "/^work\$  3 matches${SEP}59.70% of samples"
hl_keys Up
hl_keys Down Down
hl_line "Down past the newest: the (empty) line being typed before Up" 29 "/"
hl_type laf
hl_keys Left Left
hl_type e
hl_line "typing in the middle: leaf" 29 "/leaf  1 match${SEP}0.30% of samples"
hl_keys Home
hl_type x
hl_line "Home, x: xleaf" 29 "/xleaf  no match"
hl_keys Home Del
hl_line "Home, Delete: leaf again" 29 "/leaf  1 match${SEP}0.30% of samples"
hl_keys End
hl_type ' zz'
hl_keys C-w
hl_line "Ctrl-W: deletes the word zz" 29 "/leaf   no match"
hl_keys Left C-u
hl_line "Ctrl-U: deletes up to the cursor (a space left)" 29 "/   no match"
hl_keys End C-u
hl_type leaf
hl_line "retyped leaf" 29 "/leaf  1 match${SEP}0.30% of samples"

# ---- a match narrower than a cell is brought into view ----
# tiny_leaf (3 samples) has no column at all (10 samples a column), so it
# is not drawn. In main (700) it would be 0.43 columns; in main;alpha (300)
# it is [0,1): one column. Enter zooms into main;alpha and selects it.
hl_keys Enter
hl_line "narrow match: zoomed into main;alpha" 0 "all › main › alpha"
hl_status "narrow match: selected, 3 of main;alpha's 300 samples (1.00% of view)" \
	"/leaf/  match 1 of 1${SEP}0.30% of samples (1.00% of view)"
hl_line "narrow match: a one-column dot, then work [1,100)" 25 "·work"
hl_end

# --search in the browser stays in tests/ui/search.sh: it acts when the
# browser opens, and a key script opens at 80x24 before its size=.

done_testing
