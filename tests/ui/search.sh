#!/bin/sh
# tests/ui/search.sh: incremental search in a real terminal (tmux): what
# needs one (tests/golden/search.sh plays the keys headless): underline and
# dim, the cursor, a pass cut into slices by keys typed in a burst, the
# search index made in the background. Every expectation is worked out by
# hand from search.folded (see its header): at 100 columns a column is 10
# samples; the graph is lines 1..28 of a 30-line pane, root row at line 28
# (flame), level 1 at line 27, level 2 at 26, level 3 at 25; line 29 is the
# status line or the prompt.
# Run directly (sh tests/ui/search.sh) it finds an in-tree build by itself.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require

F="$top_srcdir/tests/ui/search.folded"


# The attributes in force where TEXT first starts on line N: the SGR
# parameters since the last reset (tmux writes ESC[0m, or ESC[0;Am, before
# a change), carried over from the lines above as tmux does.
attrs_at() {
	tm__e
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

# ---- the prompt: cursor, highlight ----
tm_keys /
expect "/: the prompt replaces the status line" tm_wait_line 29 "/"
expect "/: the cursor shows, after the /" tm_wait cursor_x_is 1
tm_type al
expect "typing al: 3 matches (the alphas, 300 + 100 + 300)" tm_wait_line 29 "/al  3 matches${SEP}70.00% of samples"
expect "al: main;alpha (line 26) is underlined" tm_wait has_attr_at 26 alpha 4
expect "al: beta is dimmed" tm_wait has_attr_at 26 beta 2
expect "al: beta is not underlined" tm_wait eval '! has_attr_at 26 beta 4'

# ---- an invalid regex keeps the last valid highlight ----
tm_type '('
expect "al(: the regex error in the prompt" tm_wait_line 29 '/al(  missing closing parenthesis'
expect "al(: the highlight of al stays (alpha underlined)" tm_wait has_attr_at 26 alpha 4
expect "al(: beta still dimmed" tm_wait has_attr_at 26 beta 2
tm_keys BSpace
expect "Backspace: al is valid again" tm_wait_line 29 "/al  3 matches${SEP}70.00% of samples"
tm_keys Enter
expect "Enter: the first match from the root on, main;alpha" \
	status_is "/al/  match 1 of 3${SEP}70.00% of samples"
expect "Enter: the cursor is hidden again" tm_wait eval '[ "$(tm_format "#{cursor_flag}")" = 0 ]'

# ---- Esc in normal mode clears the search ----
# main;alpha is selected (line 26), as other;alpha was in the key sequence
# of the headless test: 300 samples too.
tm_keys Escape
expect "Esc: the plain status line is back" status_is "alpha${SEP}300 samples${SEP}30.00% of all"
expect "Esc: nothing is dimmed any more" tm_wait eval '! has_attr_at 26 beta 2 && ! line_has_attr 25 4'

# ---- Esc in the prompt restores the search before it ----
# Enter selects the heaviest match in view: main;alpha;work (297).
tm_keys /
tm_type work
tm_keys Enter
expect "Enter: main;alpha;work (297 + 100 + 200)" status_is "/work/  match 1 of 3${SEP}59.70% of samples"
tm_keys /
tm_type Work
expect "Work (upper case): case-sensitive, 1 match" tm_wait_line 29 "/Work  1 match${SEP}10.00% of samples"
expect "Work: beta;Work underlined" tm_wait has_attr_at 25 Work 4
tm_keys Escape
expect "Esc in the prompt: /work/ is back" status_is "/work/  match 1 of 3${SEP}59.70% of samples"
expect "Esc in the prompt: the selected work frame is underlined again" \
	tm_wait has_attr_at 25 work 4

# ---- the prompt's cursor moves ----
tm_keys /
tm_type laf
tm_keys Left Left
expect "Left Left: the cursor after l" tm_wait cursor_x_is 2
tm_keys Escape q
expect "q quits" tm_wait_grep '^rc=0$'

# ---- --search in the browser (acts when it opens: not headless, where the
# screen is 80x24 until the script's size=) ----
# tiny_leaf is one column in main;alpha (300 samples, 3 a column): zoomed
# there, the dot on line 25 at column 0, selected.
tm_run "clear; $(q "$TFLAME") --search=leaf $(q "$F"); echo rc=\$?"
expect "--search=leaf: opens zoomed to the narrow match" tm_wait_line 0 "all › main › alpha"
expect "--search=leaf: the match is selected" status_is "/leaf/  match 1 of 1${SEP}0.30% of samples (1.00% of view)"
expect "narrow match: a one-column dot, then work [1,100)" tm_wait_line 25 "·work"
expect "narrow match: the dot is selected (reverse)" tm_wait has_attr_at 25 "·" 7
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
# Once the names' character signatures are ready (the index thread has
# ended: tm_idle), a one-key search is decided from them, a longer one
# filtered by them. The counts come from awk, not from tflame: names
# fn_1..fn_300000 holding a 7, and those ending in 77.
n7=$(awk 'BEGIN { for (i = 1; i <= 300000; i++) n += index(i "", "7") > 0; print n }')
n77=$(awk 'BEGIN { for (i = 1; i <= 300000; i++) n += i % 100 == 77; print n }')
# each name has 1 sample of 300,000: their share in the prompt
p7=$(awk -v n="$n7" 'BEGIN { printf "%.2f", 100 * n / 300000 }')
p77=$(awk -v n="$n77" 'BEGIN { printf "%.2f", 100 * n / 300000 }')
if [ -d /proc/self/task ]; then
	tm_tflame_pid --threads=2 "$(q "$T_TMP/many.folded")"
	expect "2 threads: opens" status_is "all${SEP}300,000 samples"
	# The index starts after the first paint: after a key it has started.
	tm_keys /
	expect "/: the prompt" tm_wait_line 29 "/"
	expect "the index of the tree is made (its thread has ended)" tm_idle
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
	expect "r: the reversed tree's index is made" tm_idle
	tm_keys /
	tm_type 7
	expect "reversed, signatures: '7' in $n7 frames" tm_wait_line 29 "/7  $n7 matches${SEP}$p7% of samples"
	tm_keys Escape u
	expect "u: undone" tm_wait eval '! tm__grep "\[reverse\]"'
	expect "u: the index is made again" tm_idle
	tm_keys /
	tm_type 7
	expect "undone, signatures again: '7' in $n7 frames" tm_wait_line 29 "/7  $n7 matches${SEP}$p7% of samples"
	tm_keys Escape q
	expect "2 threads: quits" tm_wait_grep '^rc=0$'
else
	skip "signatures computed in the background" "no /proc/PID/task to see the index thread end"
fi

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
