#!/bin/sh
# tests/ui/ui.sh: the browser in a real terminal (tmux), driven by keys.
# Every expected screen below is worked out by hand from basic.folded (see
# its header): at 100 columns one sample is one column, and the graph area
# is lines 1..28 of a 30-line pane, root row at line 28 (flame).
# Run directly (sh tests/ui/ui.sh) it finds an in-tree build by itself.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require

F="$top_srcdir/tests/ui/basic.folded"
trap 'tm_stop; tmux -L "$TM_SOCK-in" kill-server 2>/dev/null; rm -rf "$T_TMP" "$HOME"' EXIT

# Single-quotes $1 for the pane's shell.
# Starts tflame on the fixture at the prompt; the shell then prints rc=N.
alternate_is() { [ "$(tm_format '#{alternate_on}')" = "$1" ]; }

# SGR parameters of line N of the last -e screen, one sequence per line.
sgr_params() {
	sed -n "$(($1 + 1))p" "$TM_SCREEN_E_FILE" | grep -o "$(printf '\033')\[[0-9;]*m" |
		sed "s/^$(printf '\033')\[//; s/m\$//"
}
# Whether line N sets attribute A (a plain SGR number: 2 dim, 7 reverse);
# 38/48 colour arguments are skipped, so 48;5;2 is not "dim".
line_has_attr() {
	sgr_params "$1" | awk -F';' -v a="$2" '{
		for (i = 1; i <= NF; i++) {
			if ($i == 38 || $i == 48) { i += ($(i + 1) == 5) ? 2 : 4; continue }
			if ($i == a) found = 1
		}
	} END { exit !found }'
}
line_has_colour() { sgr_params "$1" | grep -Eq '(^|;)(48;5;[0-9]+|4[0-7])(;|$)'; }
screen_has_colour() { grep -Eq "$(printf '\033')\[([0-9;]*;)?(38;5|48;5|3[0-7]|4[0-7])[;m]" "$TM_SCREEN_E_FILE"; }
# Background colour (256 form) of the cell where TEXT starts on line N.
bg_before() {
	sed -n "$(($1 + 1))p" "$TM_SCREEN_E_FILE" |
		sed -n "s/.*48;5;\([0-9]*\)m$2.*/\1/p"
}

# ---- terminal that cannot be opened (no tmux needed) ----
if command -v setsid >/dev/null 2>&1; then
	setsid -w "$TFLAME" "$F" </dev/null >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q '^tflame: cannot open the terminal: ' "$T_TMP/err"; then
		pass "no controlling terminal: message and exit 1"
	else
		fail "no controlling terminal: message and exit 1" "rc=$rc" "$(cat "$T_TMP/err")"
	fi
else
	skip "no controlling terminal: message and exit 1" "setsid missing"
fi

tm_start 100 30 || { fail "tmux server starts"; done_testing; exit; }

# ---- open ----
tm_tflame "$(q "$F")"
expect "open: status line names the root" status_is "all${SEP}100 samples${SEP}100.00% of all"
expect "open: breadcrumb is 'all'" tm_wait_line 0 "all"
expect "open: root row at the bottom" tm_wait_line 28 "all"
expect "open: idle [0,20) and main [20,100) on level 1" \
	tm_wait_line 27 "$(printf '%-20s%s' idle main)"
expect "open: level 2 is init [20,30), parse [30,80), run [80,100)" \
	tm_wait_line 26 "$(printf '%20s%-10s%-50s%s' '' init parse run)"
expect "open: labels cut with .. (load_config in 5 cells)" \
	tm_wait_line 25 "$(printf '%20s%-10s%-20s%-30s%s' '' loa.. lex parse_expr eval)"
expect "open: the alternate screen is on" tm_wait alternate_is 1

# ---- moves: the preferred column starts at 49, the middle of the root ----
tm_keys k
expect "k: main (child of all under column 49)" status_is "main${SEP}80 samples${SEP}80.00% of all"
tm_keys k
expect "k: parse [30,80)" status_is "parse${SEP}50 samples${SEP}50.00% of all"
tm_keys Up
expect "Up: lex [30,50)" status_is "lex${SEP}20 samples${SEP}20.00% of all"
tm_keys l
expect "l: parse_expr, the next frame on the row" status_is "parse_expr${SEP}30 samples${SEP}30.00% of all"
tm_keys Right
expect "Right: eval [80,95), across parents" status_is "eval${SEP}15 samples${SEP}15.00% of all"
tm_keys k
expect "k: alloc_node under eval (5 samples, not parse_term's 8)" \
	status_is "alloc_node${SEP}5 samples${SEP}5.00% of all"
tm_keys j
expect "j: back to eval" status_is "eval${SEP}15 samples${SEP}15.00% of all"
tm_keys Down
expect "Down: run" status_is "run${SEP}20 samples${SEP}20.00% of all"
tm_keys h
expect "h: parse, the previous frame on the row" status_is "parse${SEP}50 samples${SEP}50.00% of all"
# h set the preferred column to parse's middle, 54: up goes to parse_expr.
tm_keys k
expect "k after h: parse_expr under column 54" status_is "parse_expr${SEP}30 samples${SEP}30.00% of all"
tm_keys Left
expect "Left: lex" status_is "lex${SEP}20 samples${SEP}20.00% of all"
tm_keys h
expect "h: load_config" status_is "load_config${SEP}6 samples${SEP}6.00% of all"
tm_keys j
expect "j: init" status_is "init${SEP}10 samples${SEP}10.00% of all"
tm_keys j j
expect "j j: all" status_is "all${SEP}100 samples${SEP}100.00% of all"
# The column is sticky: k k k from the root with column 22 (load_config's
# middle) reaches load_config again, not parse (main's middle would be 59).
tm_keys k k k
expect "k k k: the sticky column leads back to load_config" \
	status_is "load_config${SEP}6 samples${SEP}6.00% of all"

# ---- zoom ----
tm_keys j l
expect "to parse" status_is "parse${SEP}50 samples${SEP}50.00% of all"
tm_keys Enter
expect "Enter: breadcrumb all › main › parse" tm_wait_line 0 "all › main › parse"
expect "zoom: status adds % of view" \
	status_is "parse${SEP}50 samples${SEP}50.00% of all${SEP}100.00% of view"
expect "zoom: parse alone on its row, full width" tm_wait_line 26 "parse"
expect "zoom: lex [0,40) and parse_expr [40,100) (50 samples over 100 columns)" \
	tm_wait_line 25 "$(printf '%-40s%s' lex parse_expr)"
expect "zoom: next_token [0,40), parse_term [40,80)" \
	tm_wait_line 24 "$(printf '%-40s%s' next_token parse_term)"
expect "zoom: alloc_node [40,56)" \
	tm_wait_line 23 "$(printf '%40s%s' '' alloc_node)"
expect "zoom: ancestors main and all drawn full width" \
	tm_wait eval 'tm__line_is 27 main && tm__line_is 28 all'
expect "zoom: ancestor row is dimmed" line_has_attr 27 2
expect "zoom: frame rows are not dimmed" eval '! line_has_attr 25 2'
tm_keys j
expect "j from the zoom root: ancestor main" \
	status_is "main${SEP}80 samples${SEP}80.00% of all"
expect "an ancestor has no % of view" eval '! tm__grep "of view"'
# After a zoom the column is the middle (49): parse_expr [40,100) of the view.
tm_keys k k
expect "k k: through parse into the view, parse_expr under column 49" \
	status_is "parse_expr${SEP}30 samples${SEP}30.00% of all${SEP}60.00% of view"
tm_keys Enter
expect "Enter: all › main › parse › parse_expr" tm_wait_line 0 "all › main › parse › parse_expr"
tm_keys BSpace
expect "Backspace: back to all › main › parse" tm_wait_line 0 "all › main › parse"
expect "Backspace: the selection stays on parse_expr" \
	status_is "parse_expr${SEP}30 samples${SEP}30.00% of all${SEP}60.00% of view"
tm_keys u
expect "u: back to all" tm_wait_line 0 "all"
expect "u: whole graph again" tm_wait_line 26 "$(printf '%20s%-10s%-50s%s' '' init parse run)"
expect "u: the selection stays on parse_expr" status_is "parse_expr${SEP}30 samples${SEP}30.00% of all"
# Zoomed into parse_expr the column is 49 again, inside parse_term [0,66).
tm_keys Enter k Enter
expect "two zooms: all › main › parse › parse_expr › parse_term" \
	tm_wait_line 0 "all › main › parse › parse_expr › parse_term"
tm_keys Home
expect "Home: back to all" tm_wait_line 0 "all"
tm_keys Enter
expect "zoom into parse_term from the root" tm_wait_line 0 "all › main › parse › parse_expr › parse_term"
tm_keys 0
expect "0: back to all" tm_wait_line 0 "all"
tm_keys j j Enter j
expect "select the ancestor main from inside parse" \
	tm_wait eval 'tm__line_is 0 "all › main › parse" && tm__line_starts 29 "main${SEP}"'
tm_keys Enter
expect "Enter on an ancestor zooms out to it" tm_wait_line 0 "all › main"
expect "main's view: init [0,12), parse [12,75), run [75,100)" \
	tm_wait_line 26 "$(printf '%-12s%-63s%s' init parse run)"
tm_keys u
expect "u: from main back to all" tm_wait_line 0 "all"

# ---- orientation ----
tm_keys i
expect "i: icicle, root row at the top" \
	tm_wait eval 'tm__line_is 1 all && tm__line_is 2 "$(printf "%-20s%s" idle main)"'
expect "i: bottom graph row now empty" tm_wait_line 28 ""
tm_keys i
expect "i again: flame, root row at the bottom" tm_wait_line 28 "all"

# ---- colour ----
expect "256 colours: frames have a background colour" line_has_colour 27
expect "same name, same colour (both alloc_node frames)" \
	tm_wait eval '[ -n "$(bg_before 23 alloc)" ] && [ "$(bg_before 23 alloc)" = "$(bg_before 24 al\\.\\.)" ]'
tm_keys j
expect "all selected" status_is "all${SEP}100 samples"
expect "the selection is reverse video" line_has_attr 28 7

# ---- help ----
tm_keys '?'
expect "?: help screen" tm_wait_line 0 "tflame keys"
expect "help: q quits" tm_wait_grep '^  q +quit$'
expect "help: Enter zooms" tm_wait_grep '^  Enter +zoom into the selected frame'
"$TFLAME" --list-keys >"$T_TMP/keys" 2>/dev/null
# The help scrolls when it does not fit: page through it with Space, up to
# the footer's "(end)", gathering every page.
help_pages() {
	: >"$T_TMP/help"
	local n=0
	while [ $n -lt 20 ]; do
		tm_wait_grep '^(lines [0-9]+-[0-9]+ of [0-9]+|press any key)' || return 1
		cat "$TM_SCREEN_FILE" >>"$T_TMP/help"
		grep -Eq '^lines .*\(end\)|^press any key' "$TM_SCREEN_FILE" && return 0
		local foot
		foot=$(grep -E '^lines ' "$TM_SCREEN_FILE")
		tm_keys Space
		tm_wait eval "! grep -qxF '$foot' \"\$TM_SCREEN_FILE\"" || return 1
		n=$((n + 1))
	done
	return 1
}
help_lists_all() {
	local view keys desc
	[ -s "$T_TMP/keys" ] || return 1
	while IFS='	' read -r view keys desc; do
		grep -qxF "$view" "$T_TMP/help" || return 1
		grep -Eq "^  $(printf '%s' "$keys" | sed 's/[][\.*^$?+(){}|]/\\&/g') +$(printf '%s' "$desc" | sed 's/[][\.*^$?+(){}|]/\\&/g')\$" "$T_TMP/help" || return 1
	done <"$T_TMP/keys"
}
check "help: Space pages down to the end" help_pages
check "help: every --list-keys line is on the help screen" help_lists_all
tm_keys g
expect "help: g goes back to the top" tm_wait_grep '^lines 1-'
tm_keys j
expect "help: j scrolls one line" tm_wait_grep '^lines 2-'
tm_keys k
expect "help: k scrolls back" tm_wait_grep '^lines 1-'
check "--list-keys: VIEW<TAB>KEYS<TAB>DESCRIPTION lines" \
	grep -qx "$(printf 'Flame graph\th, Left\tselect the frame to the left')" "$T_TMP/keys"
check "--list-keys: q quits everywhere" grep -qx "$(printf 'Everywhere\tq\tquit')" "$T_TMP/keys"
check "--list-keys: the table's own keys" grep -qx "$(printf 'Table of functions (Tab)\t/\tshow only functions matching a regex')" "$T_TMP/keys"
tm_keys x
expect "any key closes the help" status_is "all${SEP}100 samples"

# ---- mouse: X10 reports typed into the pane (ESC [ M b x y, +32 each),
# the bytes the pane's terminal (here tmux) sends for button 1 ----
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
# The pane's terminal must have been asked for clicks (mode 1000): tmux
# only sends reports then, whatever bytes we type in ourselves below.
expect "mouse reporting is on while tflame runs" \
	tm_wait eval '[ "$(tm_format "#{mouse_standard_flag}")" = 1 ]'
click 35 26
expect "click on (35, line 26) selects parse" status_is "parse${SEP}50 samples"
click 85 25 2
expect "double-click on eval zooms into it" tm_wait_line 0 "all › main › run › eval"
tm_keys 0

# ---- resize ----
tm resize-window -t t -x 60 -y 20
expect "resize 60x20: root row at line 18" tm_wait_line 18 "all"
expect "resize 60x20: idle [0,12), main [12,60)" tm_wait_line 17 "$(printf '%-12s%s' idle main)"
expect "resize 60x20: status on line 19" tm_wait_prefix 19 "eval${SEP}15 samples"
tm resize-window -t t -x 10 -y 3
expect "10x3: too small message" tm_wait_grep 'too small'
tm resize-window -t t -x 1 -y 1
tm resize-window -t t -x 100 -y 30
expect "back to 100x30 after 1x1: graph again" \
	tm_wait eval 'tm__line_is 28 all && tm__line_starts 29 "eval${SEP}15 samples"'

# ---- suspend and resume ----
tm_keys C-z
expect "C-z: the shell is back, terminal restored" \
	tm_wait eval 'tm__grep Stopped && alternate_is 0'
tm_run 'fg; echo rc=$?'
expect "fg: the graph is redrawn" \
	tm_wait eval 'tm__line_is 28 all && tm__line_starts 29 "eval${SEP}15 samples"'

# ---- quit ----
tm_keys q
expect "q: exit status 0" tm_wait_grep '^rc=0$'
expect "q: alternate screen off" tm_wait alternate_is 0
tm_run 'clear; stty -a | tr " " "\n" | grep -Ex -- "-?(icanon|echo)" | tr "\n" " "; echo'
expect "q: the tty is back in canonical mode with echo" tm_wait_grep '^icanon echo ?$'

# ---- SIGTERM ----
tm_run "clear; sh -c 'echo \$\$ >$(q "$T_TMP/pid"); exec $(q "$TFLAME") $(q "$F")'; echo rc=\$?"
expect "started for SIGTERM" status_is "all${SEP}100 samples"
kill -TERM "$(cat "$T_TMP/pid")"
expect "SIGTERM: exit status 143" tm_wait_grep '^rc=143$'
expect "SIGTERM: alternate screen off" tm_wait alternate_is 0
tm_run 'clear; stty -a | tr " " "\n" | grep -Ex -- "-?(icanon|echo)" | tr "\n" " "; echo'
expect "SIGTERM: the tty is back in canonical mode with echo" tm_wait_grep '^icanon echo ?$'

# ---- Ctrl-C ----
tm_tflame "$(q "$F")"
expect "started for Ctrl-C" status_is "all${SEP}100 samples"
tm_keys C-c
expect "Ctrl-C (SIGINT): exit status 130" tm_wait_grep '^rc=130$'
expect "Ctrl-C: alternate screen off" tm_wait alternate_is 0

# ---- monochrome ----
tm_run "clear; NO_COLOR=1 $(q "$TFLAME") $(q "$F"); echo rc=\$?"
expect "NO_COLOR: opens" status_is "all${SEP}100 samples"
expect "NO_COLOR: no colour anywhere" eval '! screen_has_colour'
expect "NO_COLOR: the selection is still reverse video" line_has_attr 28 7
tm_keys q
expect "NO_COLOR: quits" tm_wait_grep '^rc=0$'

# ---- mouse through tmux's own mouse support (set -g mouse on): tflame
# runs in a second tmux server whose client is attached in our pane, so our
# pane is that client's terminal; we type the SGR reports (ESC [ < b;x;y M
# press, m release, 1-based) a terminal emulator sends for clicks ----
TM_INNER="$TM_SOCK-in"
tm_inner() { tmux -L "$TM_INNER" -f /dev/null "$@"; }
sgr_click() { # col row [n]: 0-based cell, n clicks in one go
	local k=0 bytes=""
	while [ $k -lt "${3:-1}" ]; do
		bytes="$bytes$(printf '\033[<0;%d;%dM\033[<0;%d;%dm' $(($1 + 1)) $(($2 + 1)) $(($1 + 1)) $(($2 + 1)))"
		k=$((k + 1))
	done
	tm_bytes "$bytes"
}
if tm_inner new-session -d -s in -x 100 -y 30 "$(q "$TFLAME") $(q "$F")" 2>/dev/null &&
	tm_inner set -g mouse on >/dev/null && tm_inner set -g status off >/dev/null; then
	tm_run "clear; tmux -L $(q "$TM_INNER") -f /dev/null attach -t in"
	expect "tmux mouse on: tflame shown through a nested client" \
		tm_wait eval 'tm__line_is 28 all && [ "$(tm_format "#{mouse_sgr_flag}")" = 1 ]'
	sgr_click 35 26
	expect "tmux mouse on: click selects parse" status_is "parse${SEP}50 samples"
	sgr_click 85 25 2
	expect "tmux mouse on: double-click zooms into eval" tm_wait_line 0 "all › main › run › eval"
	tm_inner kill-server
	expect "tmux mouse on: back at our prompt" tm_wait_grep '^\$ ?$'
else
	skip "tmux mouse on: nested client" "second tmux server did not start"
fi

# ---- 8 colours and a locale that is not UTF-8 ----
tm_run "clear; LC_ALL=C TERM=screen $(q "$TFLAME") $(q "$F"); echo rc=\$?"
expect "C locale: ASCII separators in the status line" status_is "all  |  100 samples  |  100.00% of all"
tm_keys k k Enter
expect "C locale: breadcrumb all > main > parse" tm_wait_line 0 "all > main > parse"
only_ansi_colours() {
	line_has_colour 25 && ! sgr_params 25 | grep -q '48;5;' &&
		sgr_params 25 | grep -Eq '(^|;)4[135](;|$)'
}
expect "8 colours: frames on red, yellow or magenta" only_ansi_colours
tm_keys q
expect "8 colours: quits" tm_wait_grep '^rc=0$'

# ---- the profile on stdin, keys from the terminal ----
tm_run "clear; cat $(q "$F") | $(q "$TFLAME"); echo rc=\$?"
expect "stdin: opens on the terminal" status_is "all${SEP}100 samples"
tm_keys k
expect "stdin: keys still work" status_is "main${SEP}80 samples"
tm_keys q
expect "stdin: quits" tm_wait_grep '^rc=0$'

# ---- raw perf script on a pipe (a real recording of bench/workload) ----
# Total = the sum of the period column (awk: 1,579,289,250); the process
# name is the root's only child, so it spans the whole row above the root.
PERF_GZ="$top_srcdir/tests/data/minisearch.perf.gz"
tm_run "clear; gzip -dc $(q "$PERF_GZ") | $(q "$TFLAME") -; echo rc=\$?"
expect "perf pipe: collapsed and opened" status_is "all${SEP}1,579,289,250 samples"
expect "perf pipe: the process name is the root's child" tm_wait_line 27 "minisearch"
tm_keys k
expect "perf pipe: k selects the process" status_is "minisearch${SEP}1,579,289,250 samples"
tm_keys k
expect "perf pipe: then the libc start frame under it" status_is "__libc_start_call_main${SEP}"
tm_keys q
expect "perf pipe: quits" tm_wait_grep '^rc=0$'

# ---- a terminal too small from the start ----
tm resize-window -t t -x 10 -y 3
tm_run "clear; $(q "$TFLAME") $(q "$F")"
expect "start at 10x3: too small message" tm_wait_grep 'too small'
tm_keys q
expect "start at 10x3: q quits" tm_wait_grep '^\$ ?$'

tm_stop
done_testing
