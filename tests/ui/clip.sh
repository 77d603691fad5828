#!/bin/sh
# tests/ui/clip.sh: y and Y copy to the clipboard with OSC 52, read back from
# tmux's paste buffer (the private server runs with set-clipboard on, which
# makes tmux keep what applications copy). What is copied is the name as the
# screen shows it (text.h's display form): control bytes pasted into a shell
# would be typed, and ESC [ 2 0 1 ~ ends a bracketed paste early (issue 21).
# Also the usage hint in a real terminal.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require


# Names with raw bytes: "mäin" (UTF-8, 5 bytes) and "pa ESC rse" (6 bytes).
# main [0,75) of 100 columns holds column 49, the root's middle, so k goes
# main, pa^[rse, lex (each the only child of the one before).
F="$T_TMP/c.folded"
printf 'm\303\244in;pa\033rse;lex 3\nother 1\n' > "$F"

# buffer_is FILE: tmux's newest paste buffer holds FILE's bytes.
buffer_is() { tm save-buffer - > "$T_TMP/buf" 2>/dev/null && cmp -s "$T_TMP/buf" "$1"; }
expect_buffer() {
	if tm_wait buffer_is "$2"; then pass "$1"; else
		fail "$1" "buffer: $(od -c "$T_TMP/buf" | head -5)" "want: $(od -c "$2" | head -5)"
	fi
}

tm_start 100 30 || { fail "tmux server starts"; done_testing; exit; }
tm set -g set-clipboard on

tm_run "clear; $(q "$TFLAME") $(q "$F"); echo rc=\$?"
expect "open" status_is "all${SEP}4 samples"
tm_keys k k k
expect "k k k: lex" status_is "lex${SEP}3 samples"

tm_keys y
expect "y: status says what was copied" status_is "copied 3 bytes (name) to the clipboard"
printf 'lex' > "$T_TMP/want1"
expect_buffer "y: tmux's buffer holds the name 'lex'" "$T_TMP/want1"

# 5 + 1 + 7 + 1 + 3 = 17 bytes: mäin;pa^[rse;lex, root first, no count; the
# ESC as the two characters ^[ the screen shows, the UTF-8 kept.
tm_keys Y
expect "Y: status counts 17 bytes, says it is escaped" \
	status_is "copied 17 bytes (stack, escaped as shown) to the clipboard"
printf 'm\303\244in;pa^[rse;lex' > "$T_TMP/want2"
expect_buffer "Y: the buffer holds the stack as shown, ESC as ^[, UTF-8 intact" "$T_TMP/want2"

tm_keys j
expect "j: the frame with ESC in its name, shown escaped" status_is "pa^[rse${SEP}3 samples"
tm_keys y
printf 'pa^[rse' > "$T_TMP/want3"
expect_buffer "y: a name with ESC is copied as shown, no ESC byte" "$T_TMP/want3"
expect "y: status counts 7 bytes" status_is "copied 7 bytes (name, escaped as shown)"
# The ESC went out as base64: the screen is intact (breadcrumb, root row).
expect "the screen is intact after the copy" tm_wait eval 'tm__line_is 0 all && tm__line_is 28 all'

tm_keys j j Y
expect "Y on all: nothing to copy" status_is "nothing to copy"
tm_keys q
expect "q quits, status 0" tm_wait_grep '^rc=0$'

# ---- a name made to run commands when pasted into a shell ----
# "p", the end of a bracketed paste (ESC [ 2 0 1 ~), "q", CR, "r", BEL, "s":
# pasted raw, the shell would leave paste mode and run what the CR ends.
# Copied as shown: p ^[ [201~ q ^M r ^G s, 1+2+5+1+2+1+2+1 = 15 bytes.
G="$T_TMP/paste.folded"
printf 'p\033[201~q\rr\007s 1\n' > "$G"
tm_run "clear; $(q "$TFLAME") $(q "$G"); echo rc=\$?"
expect "open the profile of one hostile name" status_is "all${SEP}1 sample"
tm_keys k
expect "k: the hostile name, shown escaped" status_is "p^[[201~q^Mr^Gs${SEP}1 sample"
tm_keys y
printf 'p^[[201~q^Mr^Gs' > "$T_TMP/want4"
expect_buffer "y: no ESC, CR or BEL reaches the clipboard, the name as shown" "$T_TMP/want4"
expect "y: status counts 15 bytes, escaped" status_is "copied 15 bytes (name, escaped as shown)"
tm_keys Y
expect "Y: status says stack, 15 bytes" status_is "copied 15 bytes (stack, escaped as shown)"
expect_buffer "Y: the one-frame stack, the same text" "$T_TMP/want4"
tm_keys q
expect "q quits, status 0" tm_wait_grep '^rc=0$'

# ---- the usage hint: no file and stdin a terminal ----
tm_run "clear; $(q "$TFLAME"); echo rc=\$?"
expect "no file, stdin a terminal: a hint, exit 2, no hang" \
	tm_wait eval "tm__grep '^tflame: no input: give a profile file' && tm__grep '^Try .tflame --help.' && tm__grep '^rc=2\$'"

# (The config file applying to the browser: tests/golden/ui.sh, headless.)

tm_stop
done_testing
