#!/bin/sh
# tests/ui/safety.sh: a profile whose names are terminal escape sequences
# must not reach the terminal (issue 5). tflame runs in tmux on such names
# (title set with OSC 0 and OSC 2, OSC 52 clipboard, SGR colours, alternate
# screen off, cursor moves, erase, BEL, backspace, C1 controls); the pane
# must show visible escapes while tmux's own state (pane title, alternate
# screen, paste buffers, colours) stays as it was. A control at the end
# shows that the same bytes written raw do change that state, so every
# check here can fail. Also: SIGHUP, SIGWINCH storms, SIGTSTP from kill with
# a resize while stopped, and running out of memory. (Huge trees in the
# browser: tests/golden/safety.sh, headless.)
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require

title_is() { [ "$(tm_format '#{pane_title}')" = "$1" ]; }
no_buffers() { [ -z "$(tm list-buffers 2>/dev/null)" ]; }
# tmux untouched: our title, no buffer (OSC 52), and the alternate screen
# as expected (on while tflame runs: a leaked ESC [?1049l would end it).
state_ok() {
	title_is safe-title && [ "$(tm_format '#{window_name}')" = safe-name ] &&
		no_buffers && alternate_is "$1"
}
expect_state() {
	if state_ok "$2"; then pass "$1"
	else fail "$1" "title '$(tm_format '#{pane_title}')' window '$(tm_format '#{window_name}')' alternate $(tm_format '#{alternate_on}')" \
		"buffers: $(tm list-buffers 2>&1)" "screen:" "$(tm_dump)"; fi
}

# Folded frames cannot hold ';' (the separator), so the sequences that need
# one (OSC 0 title, OSC 52 clipboard) come as process names (COMM) of a
# perf script file, which keeps ';' there; both files load into one tree.
# The names (display form per text.h: C0 as ^X, C1 as <U+XXXX>):
O0=$(printf '\033]0;PWNED-TITLE\007')             # ^[]0;PWNED-TITLE^G (perf)
O52=$(printf '\033]52;c;UFdORUQ=\007')            # ^[]52;c;UFdORUQ=^G (perf)
K1=$(printf '\033kPWNED-NAME\033\\')              # ^[kPWNED-NAME^[\ (screen title)
E2=$(printf '\033[?1049l\033[2J\033[H')           # ^[[?1049l^[[2J^[[H
E4=$(printf '\033[31m\033[42mred\033[0m')         # ^[[31m^[[42mred^[[0m
E7=$(printf 'ding\007\010\010')                   # ding^G^H^H
C1=$(printf '\302\233?1049l\302\2332J')           # <U+009B>?1049l<U+009B>2J
E8=$(printf '\033[H\033[1A\033[K\033[5G')         # ^[[H^[[1A^[[K^[[5G
# 100 samples. Byte order of the root's children: E4 (ESC [) < O0 (ESC ] 0)
# < O52 (ESC ] 5) < K1 (ESC k) < C1 (C2 9B): E4 30 [0,30), O0 12 [30,42),
# O52 8 [42,50), K1 40 [50,90), C1 10 [90,100) in samples. The folded
# file's last line has no count: a malformed line whose message carries an
# escape, as does the file name.
F="evil$(printf '\033]0;FILE-TITLE\007').folded"
{
	printf '%s;%s 40\n' "$K1" "$E2"
	printf '%s;%s 30\n' "$E4" "$E7"
	printf '%s;%s 10\n' "$C1" "$E8"
	printf 'bad\033]0;NOTICE-TITLE\007line\n'
} > "$T_TMP/$F"
{
	printf '%s 1234 1.000000: 12 cycles:\n\tffffffff81000000 main (/bin/evil)\n\n' "$O0"
	printf '%s 1235 2.000000: 8 cycles:\n\tffffffff81000000 main (/bin/evil)\n\n' "$O52"
} > "$T_TMP/evil.perf"

tm_start 160 30 || skip_all "tmux did not start"
tm set -g set-clipboard on        # OSC 52 from the pane would make a buffer
tm set -g allow-rename on         # ESC k would rename the window
tm rename-window -t t safe-name
tm select-pane -t t -T safe-title
expect "tmux starts with our pane title" title_is safe-title

# Graph area: lines 1..28, root on line 28, level 1 on 27 and so on; at 160
# columns one sample is 1.6 columns: E4 [0,48), O0 [48,67), O52 [67,80),
# K1 [80,144), C1 [144,160); level 2: E7 [0,48), main [48,67) and [67,80),
# E2 [80,144), E8 [144,160).
# The file is named by a glob: typed raw, its ESC would go to readline.
tm_run "clear; cd $(q "$T_TMP") && $(q "$TFLAME") evil*.folded evil.perf; echo rc=\$?"
expect "escapes: opens, root row at the bottom" tm_wait_prefix 28 "all"
expect_state "escapes: tmux state unchanged after the first draw" 1
expect "escapes: the notice shows the file name and malformed line visibly" tm_wait_grep \
	'evil\^\[\]0;FILE-TITLE\^G\.folded: skipped 1 malformed line.*bad\^\[\]0;NOTICE-TITLE\^Gline'
visible() { # line col text: the screen has text at 0-based column col
	sed -n "$(($1 + 1))p" "$TM_SCREEN_FILE" | cut -c"$(($2 + 1))"- | grep -q "^$(printf '%s' "$3" | sed 's/[][\.*^$]/\\&/g')"
}
expect "escapes: level 1 labels are visible escapes where the frames are" tm_wait eval \
	'visible 27 0 "^[[31m^[[42mred^[[0m" && visible 27 48 "^[]0;PWNED" && visible 27 67 "^[]52" && visible 27 80 "^[kPWNED-NAME^[\\" && visible 27 144 "<U+009B>?1"'
expect "escapes: level 2 labels too" tm_wait eval \
	'visible 26 0 "ding^G^H^H" && visible 26 48 "main" && visible 26 80 "^[[?1049l^[[2J^[[H" && visible 26 144 "^[[H"'
# A leaked ESC [31m or ESC [42m would show as SGR 31 or 42 in the -e
# capture; tflame itself uses 256-colour backgrounds (48;5;N) at this TERM.
no_leaked_sgr() {
	tm__e
	! grep -o "$(printf '\033')\[[0-9;]*m" "$TM_SCREEN_E_FILE" | sed "s/^$(printf '\033')\[//; s/m\$//" |
		awk -F';' '{ for (i = 1; i <= NF; i++) {
			if ($i == 38 || $i == 48) { i += ($(i + 1) == 5) ? 2 : 4; continue }
			if ($i == 31 || $i == 42) found = 1 } } END { exit !found }'
}
if infocmp tmux-256color >/dev/null 2>&1 || infocmp screen-256color >/dev/null 2>&1; then
	expect "escapes: no colour from a name reached the terminal" tm_wait no_leaked_sgr
else
	skip "escapes: no colour from a name reached the terminal" "no 256-colour terminfo"
fi

# Drive it. k from the root picks the child under the middle column,
# (160 - 1) / 2 = 79, inside O52 [67,80); l: K1; Enter zooms, k goes up to
# E2; after the help, u zooms out with E2 still selected; j h h: K1, O52,
# O0; l l l k: C1 then E8.
tm_keys k
expect "k: the status line names O52 visibly" tm_wait_prefix 29 "^[]52;c;UFdORUQ=^G${SEP}8 samples"
expect_state "k: tmux state unchanged" 1
tm_keys l
expect "l: K1 in the status line" tm_wait_prefix 29 "^[kPWNED-NAME^[\\${SEP}40 samples"
tm_keys Enter
expect "Enter: breadcrumb shows K1 visibly" tm_wait_line 0 "all › ^[kPWNED-NAME^[\\"
tm_keys k
expect "k: E2 (alternate screen off, clear, home) shown, not obeyed" \
	tm_wait_prefix 29 "^[[?1049l^[[2J^[[H${SEP}40 samples"
expect_state "zoomed: tmux state unchanged" 1
tm_keys '?'
expect "?: help screen" tm_wait_grep 'quit'
tm_keys Enter   # not a help-scrolling key: closes the help, does nothing else
expect "help closed" tm_wait_prefix 29 "^[[?1049l^[[2J^[[H${SEP}40 samples"
tm_keys u j h h
expect "u j h h: O0 (OSC 0 title) in the status line" tm_wait_prefix 29 "^[]0;PWNED-TITLE^G${SEP}12 samples"
tm_keys l l l
expect "l l l: C1 (C1 CSI) in the status line" tm_wait_prefix 29 "<U+009B>?1049l<U+009B>2J${SEP}10 samples"
tm_keys k
expect "k: E8 (cursor moves, erase) in the status line" tm_wait_prefix 29 "^[[H^[[1A^[[K^[[5G${SEP}10 samples"
expect_state "after moving around: tmux state unchanged" 1
tm_keys q
expect "q: exit status 0" tm_wait_grep '^rc=0$'
expect "q: the message on stderr is sanitized" \
	tm_wait_grep 'tflame: evil\^\[\]0;FILE-TITLE\^G\.folded: skipped 1 malformed line'
expect_state "after exit: tmux state unchanged" 0

# ---- signals ----
start_pid() { tm_tflame_pid 'evil*.folded' evil.perf; }   # the glob: in the pane's shell

start_pid
expect "started for SIGHUP" tm_wait_prefix 28 "all"
kill -HUP "$(cat "$T_TMP/pid")"
expect "SIGHUP: exit status 129" tm_wait_grep '^rc=129$'
expect "SIGHUP: alternate screen off" tm_wait alternate_is 0
tty_sane SIGHUP

# A storm of resizes and SIGWINCH; then at 80x24 the layout must be that
# size's: root on line 22, K1 at [40,72) on line 21 (80 * 50/100 = 40);
# the status line (23) still holds the load notice until a key.
start_pid
expect "started for the SIGWINCH storm" tm_wait_prefix 28 "all"
pid=$(cat "$T_TMP/pid")
k=0
for size in 20x5 200x50 1x1 90x10 3x40 160x30 33x7 120x44 5x5 80x24; do
	tm resize-window -t t -x "${size%x*}" -y "${size#*x}"
	j=0
	while [ $j -lt 20 ]; do kill -WINCH "$pid" 2>/dev/null; j=$((j + 1)); done
	k=$((k + 1))
done
expect "SIGWINCH storm: final layout for 80x24" tm_wait eval \
	'tm__line_starts 22 all && visible 21 40 "^[kPWNED-NAME^[\\"'
check "SIGWINCH storm: still running" kill -0 "$pid"
tm_keys k
# (80 - 1) / 2 = 39 is in O52 [33,40) (80 * 42/100 = 33.6).
expect "SIGWINCH storm: keys still work" tm_wait_prefix 23 "^[]52;c;UFdORUQ=^G${SEP}8 samples"

# SIGTSTP from outside (not the C-z key), a resize while stopped, then fg:
# the graph is redrawn for 70x20: root on line 18, K1 at [35,63).
kill -TSTP "$pid"
expect "SIGTSTP: the shell is back" tm_wait eval 'tm__grep Stopped && alternate_is 0'
tm resize-window -t t -x 70 -y 20
tm_run 'fg; echo rc=$?'
expect "fg after a resize while stopped: redrawn at 70x20" tm_wait eval \
	'tm__line_starts 18 all && visible 17 35 "^[kPWNED-NAME^[\\"'
tm_keys q
expect "after SIGTSTP and fg: q exits 0" tm_wait_grep '^rc=0$'
expect_state "after the signals: tmux state unchanged" 0

# The browser on 100,000 frames deep and 1,000,000 siblings: headless, in
# tests/golden/safety.sh.

# ---- out of memory under ulimit -v: a message, exit 1, terminal sane ----
awk 'BEGIN { for (i = 0; i < 300000; i++) printf "main;a%d;b%d;c%d 1\n", i, i, i }' > "$T_TMP/mem.folded"
if (ulimit -v 40000 && "$TFLAME" --version) >/dev/null 2>&1 &&
	! (ulimit -v 40000 && "$TFLAME" --collapse "$T_TMP/mem.folded") >/dev/null 2>&1; then
	tm_run "clear; (ulimit -v 40000; exec $(q "$TFLAME") $(q "$T_TMP/mem.folded")); echo rc=\$?"
	expect "ulimit -v: out of memory message and exit 1" \
		tm_wait eval 'tm__grep "^tflame: out of memory$" && tm__grep "^rc=1$"'
	expect "ulimit -v: alternate screen off" tm_wait alternate_is 0
	tty_sane "ulimit -v"
else
	skip "ulimit -v: out of memory" "the build cannot run under ulimit -v (sanitizers) or the profile fits"
fi

# ---- control: the same bytes written raw do change tmux's state ----
tm_run "clear; cat evil*.folded evil.perf"
if tm_wait eval '! title_is safe-title && ! no_buffers'; then
	pass "control: raw, these names set the title and a paste buffer"
	check "control: raw, ESC k renamed the window" test "$(tm_format '#{window_name}')" != safe-name
else
	skip "control: raw bytes change tmux's state" "this tmux ignored them; the checks above prove less"
fi

done_testing
