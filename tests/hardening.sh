#!/bin/sh
# tests/hardening.sh: files tflame is told to read that are not what they
# seem, and names written to a terminal (issue 21, defects 4, 5 and 8).
#  - --palette-map (and palette-map = in the config): /dev/zero, a FIFO and
#    a file over the cap are refused at once with a message, never read.
#  - --collapse on a terminal (a pty made by util-linux script) writes names
#    in display form; to a pipe, the exact bytes.
#  - the usual config file is optional: a directory, a FIFO or a path too
#    long at its place gives one warning naming it, and the run goes on
#    (--help and --version too); --config and TFLAME_CONFIG stay strict.
# The tests run as root here, and chmod 000 does not stop root from reading,
# so "unreadable" is made with what fails for root as well: a directory at
# the path (EISDIR), a FIFO, a path through a regular file (ENOTDIR), a name
# over PATH_MAX (ENAMETOOLONG).
# Every run has a hang guard (timeout 20): the old code blocked forever on
# a FIFO. No timing is asserted.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"

command -v timeout >/dev/null 2>&1 || skip_all "timeout (coreutils) is not installed"
command -v mkfifo >/dev/null 2>&1 || skip_all "mkfifo is not installed"

F="$T_TMP/in.folded"
printf 'main;work 3\nmain 1\n' > "$F"
FIFO="$T_TMP/fifo"
mkfifo "$FIFO"

# run ARGS...: tflame with a hang guard; stdout, stderr and the status in
# $T_TMP/out, $T_TMP/err and $rc. Memory is capped when the binary starts
# under the cap (a sanitizer build reserves too much address space to):
# the old code read /dev/zero into memory without end.
limit=
if (ulimit -v 2000000 && "$TFLAME" --no-config --version) >/dev/null 2>&1; then limit=2000000; fi
run() {
	if [ -n "$limit" ]; then
		(ulimit -v "$limit"; exec timeout 20 "$TFLAME" "$@") > "$T_TMP/out" 2> "$T_TMP/err" < /dev/null
	else
		timeout 20 "$TFLAME" "$@" > "$T_TMP/out" 2> "$T_TMP/err" < /dev/null
	fi
	rc=$?
}
# err_is TEXT: stderr is exactly the line TEXT.
err_is() { printf '%s\n' "$1" > "$T_TMP/want-err"; cmp -s "$T_TMP/err" "$T_TMP/want-err"; }
# expect NAME COND...: one TAP line, with the run's outputs on failure.
expect() {
	local name=$1; shift
	if "$@"; then pass "$name"; else
		fail "$name" "rc=$rc" "stderr: $(head -c 600 "$T_TMP/err")" "stdout: $(head -c 300 "$T_TMP/out")"
	fi
}

# ---- 4: palette maps -------------------------------------------------------
run --no-config --print --palette-map=/dev/zero "$F"
expect "--palette-map=/dev/zero: refused, exit 2, says why" \
	eval '[ $rc = 2 ] && err_is "tflame: /dev/zero: not a regular file (a character device)"'

run --no-config --print --palette-map="$FIFO" "$F"
expect "--palette-map=FIFO: refused at once (no writer needed), exit 2" \
	eval '[ $rc = 2 ] && err_is "tflame: $FIFO: not a regular file (a FIFO)"'

# 64 MiB + 1 byte, sparse: no disk used. The cap is 64 MiB.
truncate -s $((64 * 1024 * 1024 + 1)) "$T_TMP/big.map" 2>/dev/null ||
	dd if=/dev/zero of="$T_TMP/big.map" bs=1 count=0 seek=$((64 * 1024 * 1024 + 1)) 2>/dev/null
run --no-config --print --palette-map="$T_TMP/big.map" "$F"
expect "--palette-map over 64 MiB: refused, exit 2" \
	eval '[ $rc = 2 ] && err_is "tflame: $T_TMP/big.map: larger than 64 MB"'

printf 'main->rgb(1,2,3)\n' > "$T_TMP/good.map"
run --no-config --print --width=20 --palette-map="$T_TMP/good.map" "$F"
expect "a small regular map still loads" eval '[ $rc = 0 ] && [ ! -s "$T_TMP/err" ]'

printf '# colours\npalette-map = /dev/zero\n' > "$T_TMP/zero.conf"
run --config="$T_TMP/zero.conf" --print "$F"
expect "palette-map = /dev/zero in the config: FILE:LINE, exit 2" \
	eval '[ $rc = 2 ] && err_is "tflame: $T_TMP/zero.conf:2: /dev/zero: not a regular file (a character device)"'

printf 'palette-map = %s\n' "$FIFO" > "$T_TMP/fifo.conf"
run --config="$T_TMP/fifo.conf" --print "$F"
expect "palette-map = FIFO in the config: refused, exit 2" \
	eval '[ $rc = 2 ] && err_is "tflame: $T_TMP/fifo.conf:1: $FIFO: not a regular file (a FIFO)"'

# ---- 5: --collapse on a terminal ---------------------------------------------
# Names holding OSC 0 (title), OSC 52 (clipboard) and a bracketed-paste end
# with CR. Sorted byte-wise they are already in --collapse's order, so a
# pipe gets the file back byte for byte. On a terminal: the display form of
# text.h, written out here by hand (ESC ^[, BEL ^G, CR ^M, U+009B
# <U+009B>); the pty adds a CR before each LF (onlcr), taken off again.
printf 'a\033]0;PWNED\007 1\nb\033]52;c;UFdORUQ=\007;x 2\nc\033[201~\rrm -rf y 3\nd\302\2332J 4\n' > "$T_TMP/evil.folded"
printf 'a^[]0;PWNED^G 1\nb^[]52;c;UFdORUQ=^G;x 2\nc^[[201~^Mrm -rf y 3\nd<U+009B>2J 4\n' > "$T_TMP/evil.want"
run --no-config --collapse "$T_TMP/evil.folded"
expect "--collapse to a pipe: the exact bytes" eval '[ $rc = 0 ] && cmp -s "$T_TMP/out" "$T_TMP/evil.folded"'
if command -v script >/dev/null 2>&1 && script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
	timeout 20 script -qec "$(q "$TFLAME") --no-config --collapse $(q "$T_TMP/evil.folded")" /dev/null \
		< /dev/null > "$T_TMP/tty.raw" 2>&1
	rc=$?
	tr -d '\r' < "$T_TMP/tty.raw" > "$T_TMP/tty.out"
	if [ $rc = 0 ] && cmp -s "$T_TMP/tty.out" "$T_TMP/evil.want"; then
		pass "--collapse to a terminal: names in display form, no escape sequence"
	else
		fail "--collapse to a terminal: names in display form, no escape sequence" "rc=$rc" \
			"got: $(od -c "$T_TMP/tty.raw" | head -8)"
	fi
	if ! tr -d '\r\n' < "$T_TMP/tty.raw" | LC_ALL=C grep -q "$(printf '[\001-\037\177]')"; then
		pass "--collapse to a terminal: no control byte but the line ends"
	else
		fail "--collapse to a terminal: no control byte but the line ends" "$(od -c "$T_TMP/tty.raw" | head -8)"
	fi
else
	skip "--collapse to a terminal" "util-linux script is not installed"
	skip "--collapse to a terminal: control bytes" "util-linux script is not installed"
fi

# ---- 8: the usual config file is optional --------------------------------------
CONF="$XDG_CONFIG_HOME/tflame/config"
mkdir -p "$CONF"        # a directory where the file should be: EISDIR, root too
version=$("$TFLAME" --no-config --version)
run --version
expect "default config a directory: --version works, exit 0" eval '[ $rc = 0 ] && [ "$(cat "$T_TMP/out")" = "$version" ]'
expect "  ...with one warning naming the path" \
	err_is "tflame: warning: $CONF: Is a directory; config file skipped"
run --help
expect "default config a directory: --help works, exit 0" \
	eval '[ $rc = 0 ] && grep -q "^Usage: tflame" "$T_TMP/out" && [ "$(wc -l < "$T_TMP/err")" = 1 ]'
run --collapse "$F"
expect "default config a directory: the profile is read, one warning" \
	eval '[ $rc = 0 ] && [ "$(cat "$T_TMP/out")" = "$(printf "main 1\nmain;work 3")" ] && err_is "tflame: warning: $CONF: Is a directory; config file skipped"'
run --config="$CONF" --version
expect "--config=DIR stays strict: exit 2 with the reason" \
	eval '[ $rc = 2 ] && [ ! -s "$T_TMP/out" ] && err_is "tflame: $CONF: Is a directory"'
rmdir "$CONF"

mkfifo "$CONF"
run --version
expect "default config a FIFO: no hang, --version exit 0, one warning" \
	eval '[ $rc = 0 ] && [ "$(cat "$T_TMP/out")" = "$version" ] && err_is "tflame: warning: $CONF: not a regular file (a FIFO); config file skipped"'
run --config="$CONF" --print "$F"
expect "--config=FIFO: no hang, exit 2 with the reason" \
	eval '[ $rc = 2 ] && err_is "tflame: $CONF: not a regular file (a FIFO)"'
export TFLAME_CONFIG="$CONF"
run --print "$F"
unset TFLAME_CONFIG
expect "TFLAME_CONFIG=FIFO: no hang, exit 2 with the reason" \
	eval '[ $rc = 2 ] && err_is "tflame: $CONF: not a regular file (a FIFO)"'
rm -f "$CONF"

# XDG_CONFIG_HOME of 5000 bytes: the path is over PATH_MAX (ENAMETOOLONG).
# The warning shows the path cut to fit a line.
long=/$(printf '%05000d' 0 | tr 0 x)
home=$XDG_CONFIG_HOME
export XDG_CONFIG_HOME="$long"
run --collapse "$F"
expect "XDG_CONFIG_HOME too long: the run goes on, one warning" \
	eval '[ $rc = 0 ] && [ -s "$T_TMP/out" ] && [ "$(wc -l < "$T_TMP/err")" = 1 ] && grep -q "^tflame: warning: /xxxx.*: File name too long; config file skipped\$" "$T_TMP/err"'

# XDG_CONFIG_HOME is a regular file: ENOTDIR below it.
: > "$T_TMP/plain"
export XDG_CONFIG_HOME="$T_TMP/plain"
run --version
export XDG_CONFIG_HOME="$home"
expect "XDG_CONFIG_HOME a file: --version exit 0, one warning" \
	eval '[ $rc = 0 ] && err_is "tflame: warning: $T_TMP/plain/tflame/config: Not a directory; config file skipped"'

# What is kept: a missing file says nothing, a mistake in a readable file
# is still an error (exit 2, FILE:LINE).
run --version
expect "no config file: silent" eval '[ $rc = 0 ] && [ ! -s "$T_TMP/err" ]'
mkdir -p "$XDG_CONFIG_HOME/tflame"
printf 'sort = heavy\n' > "$CONF"
run --print "$F"
expect "a bad line in the usual config is still exit 2 with FILE:LINE" \
	eval '[ $rc = 2 ] && grep -q "^tflame: $CONF:1: invalid value for --sort" "$T_TMP/err"'
rm -f "$CONF"

done_testing
