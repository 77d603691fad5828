# tests/ui/tmux.sh: sourced by the UI tests (after tests/lib.sh). Drives a
# program in a private tmux server: one session "t", one pane running an
# interactive bash with the prompt "$ ". Screens are read with capture-pane
# and POLLED for until they match (TM_TIMEOUT_MS, 50 ms steps): no test
# sleeps a fixed time and hopes.
#
#   tm_require            skip without tmux, bash or tflame; absolute $TFLAME
#   tm_start W H          start the server and the shell
#   tm_stop               kill the server
#   tm_keys KEY...        tmux send-keys (key names: Enter, BSpace, C-z, ...)
#   tm_type TEXT          send TEXT literally
#   tm_bytes TEXT         send TEXT's bytes (escape sequences, mouse reports)
#   tm_run CMD            type CMD and Enter at the prompt
#   tm_screen [-e]        the screen now (-e: with SGR attributes)
#   tm_line N [-e]        line N of the screen (0 = top)
#   tm_wait CMD...        poll until CMD succeeds; CMD sees the screen in
#                         $TM_SCREEN_FILE (plain) and $TM_SCREEN_E_FILE (-e,
#                         after tm__e)
#   tm_wait_line N TEXT   poll until line N is exactly TEXT
#   tm_wait_prefix N TEXT poll until line N starts with TEXT
#   tm_wait_grep ERE      poll until some line matches ERE
#   tm_format FMT         tmux display-message -p FMT (e.g. #{alternate_on})
#   tm_dump               the last polled screen, for failure messages
#
# and what every UI script shares: tm_require also sets the exit trap (the
# server stopped, the temporary files gone), SEP is the status line's
# separator, q shell-quotes for tm_run, and
#   tm_tflame [ENV=V... --] ARG...  clear, run tflame with ARGs (quote them
#                         with q), the shell printing rc=N when it exits
#   tm_tflame_pid [ENV=V... --] ARG...  the same, tflame's PID in $T_TMP/pid
#                         (for signals and tm_idle)
#   tm_idle               poll until tflame (tm_tflame_pid) runs one thread:
#                         what it started in the background (the search
#                         index of a new tree) has ended; Linux /proc
#   status_is TEXT        poll until the status line (the last) starts so
#   quit                  q, and poll until tflame exited with 0
#   alternate_is 0|1      whether the pane is on its alternate screen
#   tty_sane NAME         one TAP line: the pane's tty is in canonical mode
#                         with echo (run at the prompt, after tflame)
#   line_has_attr N A     line N of the last -e screen sets SGR attribute A
#                         (1 bold, 2 dim, 4 underline, 7 reverse)
#   bg_before N TEXT      the 256-colour background where TEXT starts on
#                         line N of the last -e screen
#   click COL ROW [N]     N (1) clicks of button 1 as X10 mouse reports

TM_SOCK="tflame-test-$$"
TM_TIMEOUT_MS=${TM_TIMEOUT_MS:-5000}
TM_SCREEN_FILE="$T_TMP/screen"
TM_SCREEN_E_FILE="$T_TMP/screen-e"
unset TMUX TMUX_PANE

tm() { tmux -L "$TM_SOCK" -f /dev/null "$@"; }

# tm_require: skips the whole script without tmux, bash or a built tflame;
# makes $TFLAME absolute (the pane's shell starts elsewhere).
tm_require() {
	command -v tmux >/dev/null 2>&1 || skip_all "tmux is not installed"
	command -v bash >/dev/null 2>&1 || skip_all "bash is not installed"
	case $TFLAME in /*) ;; *) TFLAME="$(pwd)/$TFLAME" ;; esac
	[ -x "$TFLAME" ] || skip_all "$TFLAME is not built"
	trap 'tm_stop; rm -rf "$T_TMP" "$HOME"' EXIT
}

SEP='  ·  '
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
tm_tflame() {
	local envs=""
	case " $* " in
	*" -- "*) while [ "$1" != "--" ]; do envs="$envs $1"; shift; done; shift ;;
	esac
	tm_run "clear; ${envs:+env$envs }$(q "$TFLAME") $*; echo rc=\$?"
}
tm_tflame_pid() {
	local envs=""
	case " $* " in
	*" -- "*) while [ "$1" != "--" ]; do envs="$envs $1"; shift; done; shift ;;
	esac
	rm -f "$T_TMP/pid"
	tm_run "clear; sh -c 'echo \$\$ >\"\$0\"; exec \"\$@\"' $(q "$T_TMP/pid") ${envs:+env$envs }$(q "$TFLAME") $*; echo rc=\$?"
}
tm__one_thread() {
	local p
	p=$(cat "$T_TMP/pid" 2>/dev/null) && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = tflame ] &&
		[ "$(ls "/proc/$p/task" | wc -l)" -eq 1 ]
}
tm_idle() { tm_wait tm__one_thread; }
status_is() { tm_wait_prefix $((TM_H - 1)) "$1"; }
quit() { tm_keys q; tm_wait_grep '^rc=0$'; }

tm_start() {
	TM_H=$2
	local term=screen
	# 256 colours when the terminfo is there (it decides what tflame draws).
	if infocmp tmux-256color >/dev/null 2>&1; then term=tmux-256color
	elif infocmp screen-256color >/dev/null 2>&1; then term=screen-256color; fi
	tm start-server \; set -g default-terminal "$term" \; \
		set -g history-limit 0 \; \
		new-session -d -s t -x "$1" -y "$2" \
		"env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i" 2>/dev/null ||
		return 1
	tm_wait_grep '^\$ ?$'
}

alternate_is() { [ "$(tm_format '#{alternate_on}')" = "$1" ]; }
tty_sane() {
	tm_run 'clear; stty -a | tr " " "\n" | grep -Ex -- "-?(icanon|echo)" | tr "\n" " "; echo'
	expect "$1: the tty is back in canonical mode with echo" tm_wait_grep '^icanon echo ?$'
}
# SGR parameters of line N of the last -e screen, one sequence per line.
sgr_params() {
	tm__e
	sed -n "$(($1 + 1))p" "$TM_SCREEN_E_FILE" | grep -o "$(printf '\033')\[[0-9;]*m" |
		sed "s/^$(printf '\033')\[//; s/m\$//"
}
# 38/48 colour arguments are skipped, so 48;5;2 is not "dim".
line_has_attr() {
	sgr_params "$1" | awk -F';' -v a="$2" '{
		for (i = 1; i <= NF; i++) {
			if ($i == 38 || $i == 48) { i += ($(i + 1) == 5) ? 2 : 4; continue }
			if ($i == a) found = 1
		}
	} END { exit !found }'
}
bg_before() {
	tm__e
	sed -n "$(($1 + 1))p" "$TM_SCREEN_E_FILE" |
		sed -n "s/.*48;5;\([0-9]*\)m$2.*/\1/p"
}
# X10 reports (ESC [ M b x y, +32 each), the bytes a terminal (here tmux)
# sends for button 1: press and release, N times in one go (2: a double-click).
click() {
	local x y bytes="" k=0
	x=$(printf "\\$(printf %o $((33 + $1)))")
	y=$(printf "\\$(printf %o $((33 + $2)))")
	while [ $k -lt "${3:-1}" ]; do
		bytes="$bytes$(printf '\033[M ')$x$y$(printf '\033[M#')$x$y"
		k=$((k + 1))
	done
	tm_bytes "$bytes"
}

tm_stop() { tm kill-server 2>/dev/null || :; }

tm_keys() { tm send-keys -t t "$@"; }
# tm_bytes TEXT: TEXT's bytes, as a terminal would send them (no key names,
# no tmux command parsing of ';').
tm_bytes() {
	# shellcheck disable=SC2046
	tm send-keys -t t -H $(printf '%s' "$1" | od -An -tx1)
}
tm_type() { tm send-keys -t t -l -- "$1"; }
tm_run() { tm_type "$1"; tm_keys Enter; }

tm_screen() { tm capture-pane -p -t t "$@"; }
tm_line() { local n=$1; shift; tm_screen "$@" | sed -n "$((n + 1))p"; }
tm_format() { tm display-message -p -t t "$1"; }

# Sleeps 50 ms; the fallback keeps a shell without fractional sleep usable.
tm_nap() { sleep 0.05 2>/dev/null || sleep 1; }

# A poll takes the plain screen only, kept in $TM_SCR too (lines are read
# from it without a process per check); the -e screen is taken when a check
# first needs it (tm__e), so most polls cost one tmux call, not two.
TM_NL='
'
tm_wait() {
	local waited=0
	while :; do
		TM_SCR=$(tm_screen 2>/dev/null) || TM_SCR=
		printf '%s\n' "$TM_SCR" >"$TM_SCREEN_FILE"
		rm -f "$TM_SCREEN_E_FILE"
		"$@" && return 0
		[ "$waited" -ge "$TM_TIMEOUT_MS" ] && return 1
		tm_nap
		waited=$((waited + 50))
	done
}

# tm__e: the -e screen of this poll in $TM_SCREEN_E_FILE (every reader of
# it calls this first).
tm__e() { [ -e "$TM_SCREEN_E_FILE" ] || tm_screen -e >"$TM_SCREEN_E_FILE" 2>/dev/null || :; }
# Line N of the polled screen in TM_LINE.
tm__nth() {
	local s="$TM_SCR" n="$1"
	while [ "$n" -gt 0 ]; do
		case $s in
		*"$TM_NL"*) s=${s#*"$TM_NL"} ;;
		*) s= ;;
		esac
		n=$((n - 1))
	done
	TM_LINE=${s%%"$TM_NL"*}
}
tm__line_is() { tm__nth "$1"; [ "$TM_LINE" = "$2" ]; }
tm__line_starts() {
	tm__nth "$1"
	case $TM_LINE in "$2"*) return 0 ;; esac
	return 1
}
tm__grep() { grep -Eq -- "$1" "$TM_SCREEN_FILE"; }

tm_wait_line() { tm_wait tm__line_is "$1" "$2"; }
tm_wait_prefix() { tm_wait tm__line_starts "$1" "$2"; }
tm_wait_grep() { tm_wait tm__grep "$1"; }

tm_dump() { sed 's/^/|/' "$TM_SCREEN_FILE"; }

# expect NAME CMD...: one TAP line; on failure the screen goes to the log.
expect() {
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "screen:" "$(tm_dump)"; fi
}
