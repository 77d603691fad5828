#!/bin/sh
# tests/ui/ui.sh: the browser in a real terminal (tmux), driven by keys:
# what needs the terminal (tests/golden/ui.sh plays the keys headless).
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


line_has_colour() { sgr_params "$1" | grep -Eq '(^|;)(48;5;[0-9]+|4[0-7])(;|$)'; }
screen_has_colour() { tm__e; grep -Eq "$(printf '\033')\[([0-9;]*;)?(38;5|48;5|3[0-7]|4[0-7])[;m]" "$TM_SCREEN_E_FILE"; }

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

# The keys, the layout and the help are checked headless, on the same
# fixture, by tests/golden/ui.sh; here what needs the terminal: the
# alternate screen, attributes and colours, the mouse, resizes, signals,
# the tty, stdin on a pipe.

# ---- open ----
tm_tflame "$(q "$F")"
expect "open: status line names the root" status_is "all${SEP}100 samples${SEP}100.00% of all"
expect "open: the alternate screen is on" tm_wait alternate_is 1

# ---- colour ----
expect "256 colours: frames have a background colour" line_has_colour 27
expect "same name, same colour (both alloc_node frames)" \
	tm_wait eval '[ -n "$(bg_before 23 alloc)" ] && [ "$(bg_before 23 alloc)" = "$(bg_before 24 al\\.\\.)" ]'
expect "the selection is reverse video" line_has_attr 28 7

# ---- zoom: the ancestors are dimmed ----
# k k: main, then parse [30,80) under column 49; zoomed into it, main and
# all are ancestors drawn full width on lines 27 and 28, lex on line 25.
tm_keys k k Enter
expect "zoom: ancestors main and all drawn full width" \
	tm_wait eval 'tm__line_is 0 "all › main › parse" && tm__line_is 27 main && tm__line_is 28 all'
expect "zoom: ancestor row is dimmed" line_has_attr 27 2
expect "zoom: frame rows are not dimmed" eval '! line_has_attr 25 2'
tm_keys 0 j j
expect "0 j j: back to all, all selected" \
	tm_wait eval 'tm__line_is 0 all && tm__line_starts 29 "all${SEP}100 samples"'

# ---- mouse: X10 reports typed into the pane (ESC [ M b x y, +32 each),
# the bytes the pane's terminal (here tmux) sends for button 1 ----
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
tty_sane q

# ---- SIGTERM ----
tm_tflame_pid "$(q "$F")"
expect "started for SIGTERM" status_is "all${SEP}100 samples"
kill -TERM "$(cat "$T_TMP/pid")"
expect "SIGTERM: exit status 143" tm_wait_grep '^rc=143$'
expect "SIGTERM: alternate screen off" tm_wait alternate_is 0
tty_sane SIGTERM

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

# ---- a terminal too small from the start ----
tm resize-window -t t -x 10 -y 3
tm_run "clear; $(q "$TFLAME") $(q "$F")"
expect "start at 10x3: too small message" tm_wait_grep 'too small'
tm_keys q
expect "start at 10x3: q quits" tm_wait_grep '^\$ ?$'

tm_stop
done_testing
