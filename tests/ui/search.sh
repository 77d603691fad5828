#!/bin/sh
# tests/ui/search.sh: incremental search in a real terminal (tmux), and
# --search with --print. Every expectation is worked out by hand from
# search.folded (see its header): at 100 columns a column is 10 samples;
# the graph is lines 1..28 of a 30-line pane, root row at line 28 (flame),
# level 1 at line 27, level 2 at 26, level 3 at 25; line 29 is the status
# line or the prompt.
# Run directly (sh tests/ui/search.sh) it finds an in-tree build by itself.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require

F="$top_srcdir/tests/ui/search.folded"

# ---- --print (no terminal needed) ----
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

command -v tmux >/dev/null 2>&1 || { skip "browser tests" "tmux is not installed"; done_testing; exit; }
command -v bash >/dev/null 2>&1 || { skip "browser tests" "bash is not installed"; done_testing; exit; }

# SGR attribute A (4 underline, 2 dim) set somewhere on line N of the -e
# screen; 38/48 colour arguments are skipped.
line_has_attr() {
	sed -n "$(($1 + 1))p" "$TM_SCREEN_E_FILE" | grep -o "$(printf '\033')\[[0-9;]*m" |
		sed "s/^$(printf '\033')\[//; s/m\$//" | awk -F';' -v a="$2" '{
		for (i = 1; i <= NF; i++) {
			if ($i == 38 || $i == 48) { i += ($(i + 1) == 5) ? 2 : 4; continue }
			if ($i == a) found = 1
		}
	} END { exit !found }'
}
# The attributes in force where TEXT first starts on line N: the SGR
# parameters since the last reset (tmux writes ESC[0m, or ESC[0;Am, before
# a change), carried over from the lines above as tmux does.
attrs_at() {
	awk -v n="$(($1 + 1))" -v t="$2" '
	function scan(s,    k, m, parts, p) {
		m = split(s, parts, "\033\\[")
		for (k = 2; k <= m; k++) {
			p = parts[k]; sub(/m.*/, "", p)
			if (p == "" || p == "0") out = ""
			else if (p ~ /^0;/) out = substr(p, 2)
			else out = out ";" p
		}
	}
	NR < n { scan($0); next }
	NR == n { i = index($0, t); if (!i) exit 1; scan(substr($0, 1, i - 1)); print out; exit }
	' "$TM_SCREEN_E_FILE"
}
has_attr_at() { # N TEXT A
	attrs_at "$1" "$2" | awk -F';' -v a="$3" '{
		for (i = 1; i <= NF; i++) {
			if ($i == 38 || $i == 48) { i += ($(i + 1) == 5) ? 2 : 4; continue }
			if ($i == a) found = 1
		}
	} END { exit !found }'
}
cursor_x_is() { [ "$(tm_format '#{cursor_x}')" = "$1" ] && [ "$(tm_format '#{cursor_flag}')" = 1 ]; }

tm_start 100 30 || { fail "tmux server starts"; done_testing; exit; }
tm_tflame "$(q "$F")"
expect "open: level 3 is work [0,30), Work [30,40), work [40,60), alpha [60,70)" \
	tm_wait_line 25 "$(printf '%-30s%-10s%-20s%s' work Work work alpha)"

# ---- incremental typing ----
tm_keys /
expect "/: the prompt replaces the status line" tm_wait_line 29 "/"
expect "/: the cursor shows, after the /" tm_wait cursor_x_is 1
# 'a' (smart case: any case) is in main, alpha x3, tiny_leaf, beta, gamma;
# 'all' is the root, not a frame.
tm_type a
# a: main (700, holding every other match but one) and other;alpha (300):
# 1000 of 1000.
expect "typing a: 7 matches at once, and their share" tm_wait_line 29 "/a  7 matches${SEP}100.00% of samples"
tm_type l
expect "typing al: 3 matches (the alphas, 300 + 100 + 300)" tm_wait_line 29 "/al  3 matches${SEP}70.00% of samples"
expect "al: main;alpha (line 26) is underlined" tm_wait has_attr_at 26 alpha 4
expect "al: beta is dimmed" tm_wait has_attr_at 26 beta 2
expect "al: beta is not underlined" tm_wait eval '! has_attr_at 26 beta 4'
tm_keys BSpace
expect "Backspace: back to a, 7 matches" tm_wait_line 29 "/a  7 matches${SEP}100.00% of samples"

# ---- an invalid regex keeps the last valid highlight ----
tm_type 'l('
expect "al(: the regex error in the prompt" tm_wait_line 29 '/al(  missing closing parenthesis'
expect "al(: the highlight of al stays (alpha underlined)" tm_wait has_attr_at 26 alpha 4
expect "al(: beta still dimmed" tm_wait has_attr_at 26 beta 2
tm_keys BSpace
expect "Backspace: al is valid again" tm_wait_line 29 "/al  3 matches${SEP}70.00% of samples"

# ---- Enter accepts and selects the first match; n/N with wrap ----
tm_keys Enter
expect "Enter: the first match from the root on, main;alpha" \
	status_is "/al/  match 1 of 3${SEP}70.00% of samples"
expect "Enter: the status names the selection on the right" tm_wait_grep 'alpha  ·  300 samples$'
expect "Enter: the cursor is hidden again" tm_wait eval '[ "$(tm_format "#{cursor_flag}")" = 0 ]'
tm_keys n
expect "n: gamma;alpha" status_is "/al/  match 2 of 3${SEP}70.00% of samples"
tm_keys n
expect "n: other;alpha" status_is "/al/  match 3 of 3${SEP}70.00% of samples"
tm_keys n
expect "n at the last match: wraps to the first, with a message" \
	tm_wait_line 29 "/al/  match 1 of 3${SEP}70.00% of samples${SEP}search wrapped around to the first match"
tm_keys N
expect "N at the first match: wraps to the last, with a message" \
	tm_wait_line 29 "/al/  match 3 of 3${SEP}70.00% of samples${SEP}search wrapped around to the last match"
tm_keys N
expect "N: back to gamma;alpha" status_is "/al/  match 2 of 3${SEP}70.00% of samples"

# ---- zoomed: % of view, and a match outside the view ----
# From gamma;alpha (level 3): j j is main; Enter zooms into it. In main's
# view the alphas under it are 300 + 100 = 400 of 700: 57.14%.
tm_keys j j Enter
expect "zoom into main" tm_wait_line 0 "all › main"
expect "zoomed: 3 matches, % of samples and (% of view)" \
	status_is "/al/  3 matches${SEP}70.00% of samples (57.14% of view)"
tm_keys n n
expect "n n in main's view: gamma;alpha" status_is "/al/  match 2 of 3${SEP}70.00% of samples (57.14% of view)"
tm_keys n
expect "n to other;alpha, outside the view: zoomed out to all" tm_wait_line 0 "all"
expect "n: the message says so" \
	tm_wait_line 29 "/al/  match 3 of 3${SEP}70.00% of samples${SEP}zoomed out to show the match"

# ---- Esc in normal mode clears the search ----
tm_keys Escape
expect "Esc: the plain status line is back" status_is "alpha${SEP}300 samples${SEP}30.00% of all"
expect "Esc: nothing is dimmed any more" tm_wait eval '! has_attr_at 26 beta 2 && ! line_has_attr 25 4'

# ---- Esc in the prompt restores the search before it ----
tm_keys /
tm_type work
expect "work: smart case finds work, Work and work (297 + 100 + 200)" \
	tm_wait_line 29 "/work  3 matches${SEP}59.70% of samples"
tm_keys Enter
# Enter selects the heaviest match in view (the whole graph): main;alpha;work,
# 297 samples, before beta;work 200 and beta;Work 100; the first of 3.
expect "Enter: the heaviest match, main;alpha;work (297)" \
	status_is "/work/  match 1 of 3${SEP}59.70% of samples"
expect "Enter: the right side names it" tm_wait_grep "  work${SEP}297 samples\$"
tm_keys /
tm_type Work
expect "Work (upper case): case-sensitive, 1 match" tm_wait_line 29 "/Work  1 match${SEP}10.00% of samples"
expect "Work: beta;Work underlined" tm_wait has_attr_at 25 Work 4
tm_keys Escape
expect "Esc in the prompt: /work/ is back" status_is "/work/  match 1 of 3${SEP}59.70% of samples"
expect "Esc in the prompt: the selected work frame is underlined again" \
	tm_wait has_attr_at 25 work 4
tm_keys /
tm_type xyz
expect "xyz: no match" tm_wait_line 29 "/xyz  no match"
tm_keys Escape
expect "Esc after xyz: /work/ again" status_is "/work/  match 1 of 3${SEP}59.70% of samples"

# ---- * searches the exact name: case-sensitive, anchored ----
tm_keys '*'
expect "*: /^work\$/, the two frames named work (297 + 200)" \
	status_is "/^work\$/  match 1 of 2${SEP}49.70% of samples"

# ---- prompt editing and history ----
tm_keys /
tm_keys Up
expect "Up: the last search, from * (297 + 200)" tm_wait_line 29 "/^work\$  2 matches${SEP}49.70% of samples"
tm_keys Up
expect "Up again: work" tm_wait_line 29 "/work  3 matches${SEP}59.70% of samples"
tm_keys Down
expect "Down: ^work\$ recalled unchanged is still exact" tm_wait_line 29 "/^work\$  2 matches${SEP}49.70% of samples"
tm_keys BSpace
tm_type '$'
expect "^work\$ retyped is a regex again: smart case, 3 matches" tm_wait_line 29 "/^work\$  3 matches${SEP}59.70% of samples"
tm_keys Up
tm_keys Down Down
expect "Down past the newest: the (empty) line being typed before Up" tm_wait_line 29 "/"
tm_type laf
tm_keys Left Left
expect "Left Left: the cursor after l" tm_wait cursor_x_is 2
tm_type e
expect "typing in the middle: leaf" tm_wait_line 29 "/leaf  1 match${SEP}0.30% of samples"
tm_keys Home
tm_type x
expect "Home, x: xleaf" tm_wait_line 29 "/xleaf  no match"
tm_keys Home DC
expect "Home, Delete: leaf again" tm_wait_line 29 "/leaf  1 match${SEP}0.30% of samples"
tm_keys End
tm_type ' zz'
tm_keys C-w
expect "Ctrl-W: deletes the word zz" tm_wait_line 29 "/leaf   no match"
tm_keys Left C-u
expect "Ctrl-U: deletes up to the cursor (a space left)" tm_wait_line 29 "/   no match"
tm_keys End C-u
tm_type leaf
expect "retyped leaf" tm_wait_line 29 "/leaf  1 match${SEP}0.30% of samples"

# ---- a match narrower than a cell is brought into view ----
# tiny_leaf (3 samples) has no column at all (10 samples a column), so it
# is not drawn. In main (700) it would be 0.43 columns; in main;alpha (300)
# it is [0,1): one column. Enter zooms into main;alpha and selects it.
tm_keys Enter
expect "narrow match: zoomed into main;alpha" tm_wait_line 0 "all › main › alpha"
expect "narrow match: selected, 3 of main;alpha's 300 samples (1.00% of view)" \
	status_is "/leaf/  match 1 of 1${SEP}0.30% of samples (1.00% of view)"
expect "narrow match: a one-column dot, then work [1,100)" tm_wait_line 25 "·work"
expect "narrow match: the dot is selected (reverse)" tm_wait has_attr_at 25 "·" 7
tm_keys q
expect "q quits" tm_wait_grep '^rc=0$'

# ---- --search in the browser ----
tm_run "clear; $(q "$TFLAME") --search=leaf $(q "$F"); echo rc=\$?"
expect "--search=leaf: opens zoomed to the narrow match" tm_wait_line 0 "all › main › alpha"
expect "--search=leaf: the match is selected" status_is "/leaf/  match 1 of 1${SEP}0.30% of samples (1.00% of view)"
tm_keys /
tm_keys Up
expect "--search is in the history" tm_wait_line 29 "/leaf  1 match${SEP}0.30% of samples"
tm_keys Escape q
expect "quits" tm_wait_grep '^rc=0$'

# ---- a pass longer than a slice: 300,000 distinct names ----
# Matching runs in slices between keys; the whole pattern typed in one burst
# must still end with the right result. fn_1999[0-9] (a regex: the slow
# path) matches fn_19990..fn_19999 and fn_199900..fn_199999: 10 + 100.
awk 'BEGIN { for (i = 1; i <= 300000; i++) printf "root;fn_%d 1\n", i }' >"$T_TMP/many.folded"
tm_run "clear; $(q "$TFLAME") $(q "$T_TMP/many.folded"); echo rc=\$?"
expect "300,000 names: opens" status_is "all${SEP}300,000 samples"
tm_keys /
tm_type 'fn_1999[0-9]'
expect "typed in one burst: every key taken, the sliced pass ends with 110 matches" \
	tm_wait_line 29 "/fn_1999[0-9]  110 matches${SEP}0.04% of samples"
tm_keys Enter
expect "Enter: the first match, fn_19990 (name order), 110 samples of 300,000" \
	status_is "/fn_1999[0-9]/  match 1 of 110${SEP}0.04% of samples"
tm_keys q
expect "quits" tm_wait_grep '^rc=0$'

# ---- the same names on 2 threads: signatures computed in the background ----
# After a second the names' character signatures are ready; a one-key
# search is then decided from them, a longer one filtered by them. The
# counts come from awk, not from tflame: names fn_1..fn_300000 holding a 7,
# and those ending in 77.
n7=$(awk 'BEGIN { for (i = 1; i <= 300000; i++) n += index(i "", "7") > 0; print n }')
n77=$(awk 'BEGIN { for (i = 1; i <= 300000; i++) n += i % 100 == 77; print n }')
# each name has 1 sample of 300,000: their share in the prompt
p7=$(awk -v n="$n7" 'BEGIN { printf "%.2f", 100 * n / 300000 }')
p77=$(awk -v n="$n77" 'BEGIN { printf "%.2f", 100 * n / 300000 }')
tm_run "clear; $(q "$TFLAME") --threads=2 $(q "$T_TMP/many.folded"); echo rc=\$?"
expect "2 threads: opens" status_is "all${SEP}300,000 samples"
sleep 1
tm_keys /
tm_type 7
expect "signatures: '7' has the $n7 names with a 7 (counted by awk)" \
	tm_wait_line 29 "/7  $(printf "%d" "$n7") matches${SEP}$p7% of samples"
tm_type '7$'
expect "signatures: '77\$' has the $n77 names ending in 77" tm_wait_line 29 "/77\$  $n77 matches${SEP}$p77% of samples"
tm_keys BSpace BSpace BSpace
tm_type Q
expect "signatures: 'Q' (case-sensitive) has none" tm_wait_line 29 "/Q  no match"
tm_keys Escape
# A transform at once, while the index of the tree it replaces may still
# be in the making, and undone: each tree gets an index of its own. The
# reversed tree has the fn_ frames at the top, root under each: still
# $n7 frames with a 7.
tm_keys r
expect "r: reversed" tm_wait_grep '\[reverse\]'
sleep 1
tm_keys /
tm_type 7
expect "reversed, signatures: '7' in $n7 frames" tm_wait_line 29 "/7  $n7 matches${SEP}$p7% of samples"
tm_keys Escape u
expect "u: undone" tm_wait eval '! tm__grep "\[reverse\]"'
sleep 1
tm_keys /
tm_type 7
expect "undone, signatures again: '7' in $n7 frames" tm_wait_line 29 "/7  $n7 matches${SEP}$p7% of samples"
tm_keys Escape q
expect "2 threads: quits" tm_wait_grep '^rc=0$'

# ---- without colour: matches still stand out ----
tm_run "clear; NO_COLOR=1 $(q "$TFLAME") --search=beta $(q "$F"); echo rc=\$?"
expect "NO_COLOR: beta selected" status_is "/beta/  match 1 of 1${SEP}30.00% of samples"
tm_keys k
expect "NO_COLOR: k to a child of beta" status_is "/beta/  1 match${SEP}30.00% of samples"
expect "NO_COLOR: beta is bold and underlined" tm_wait eval 'has_attr_at 26 beta 4 && has_attr_at 26 beta 1'
expect "NO_COLOR: main is dimmed" tm_wait has_attr_at 27 main 2
tm_keys q
expect "NO_COLOR: quits" tm_wait_grep '^rc=0$'

tm_stop
done_testing
