# tests/lib.sh: sourced by every shell test. Isolates the environment and
# emits TAP (automake's tap-driver reads it).
#   plan N | ok COND-EXIT-STATUS NAME (via check) | skip_all REASON | done_testing
set -u
export LC_ALL=C.UTF-8 LANG=C.UTF-8
unset NO_COLOR COLORTERM TFLAME_CONFIG
# the test profiles' writers import pbwire.py: no __pycache__ in the sources
export PYTHONDONTWRITEBYTECODE=1
export HOME="${TMPDIR:-/tmp}/tflame-test-home.$$"
export XDG_CONFIG_HOME="$HOME/.config"
mkdir -p "$HOME"
: "${TFLAME:=${top_builddir:-..}/src/tflame}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
T_N=0
T_FAILED=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tflame-test.XXXXXX")
trap 'rm -rf "$T_TMP" "$HOME"' EXIT

# pass NAME / fail NAME [DETAIL...]
pass() { T_N=$((T_N + 1)); echo "ok $T_N - $1"; }
fail() {
	T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1))
	echo "not ok $T_N - $1"; shift
	for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /'; done
}
skip() { T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP ${2:-}"; }
# check NAME CMD...: passes when CMD exits 0.
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "command failed: $*"; fi; }
# same NAME GOT_FILE WANT_FILE: byte comparison with a diff on failure.
same() {
	if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "$(diff -u "$3" "$2" | head -40)"; fi
}
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
done_testing() { echo "1..$T_N"; [ "$T_FAILED" -eq 0 ]; }

# Running tflame on a case, for the scripts that check exit status, stdout
# and stderr: run ARGS... runs it under timeout (T seconds, generous: the
# sanitizer build is several times slower; rc 124: it had to be killed),
# stdout in $D/out and stderr in $D/err (D: $T_TMP unless set).
: "${T:=120}"
run() {
	rc=0
	timeout -k 5 "$T" "$TFLAME" "$@" > "${D:-$T_TMP}/out" 2> "${D:-$T_TMP}/err" || rc=$?
}
# The messages must not contain a byte a terminal would act on: C0 controls
# (but newline) and DEL, and C1 controls in their UTF-8 form (C2 80..9F).
clean_err() {
	! tr -d '\n' < "$1" | LC_ALL=C grep -q "$(printf '[\001-\037\177]')" &&
		! LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1"
}
# expect_rc NAME WANT: one TAP line on the exit status (with stderr on failure).
expect_rc() {
	if [ "$rc" -eq "$2" ]; then pass "$1: exit status $2"
	else fail "$1: exit status $2" "got $rc" "$(head -c 600 "${D:-$T_TMP}/err")"; fi
}
# expect_err NAME ERE: stderr matches ERE and is clean.
expect_err() {
	if grep -Eq -- "$2" "${D:-$T_TMP}/err" && clean_err "${D:-$T_TMP}/err"; then pass "$1: message"
	else fail "$1: message" "want /$2/ without control bytes; got:" "$(head -c 600 "${D:-$T_TMP}/err" | od -c | head -8)"; fi
}
expect_quiet() {
	if [ ! -s "${D:-$T_TMP}/err" ]; then pass "$1: nothing on stderr"
	else fail "$1: nothing on stderr" "$(head -c 600 "${D:-$T_TMP}/err")"; fi
}
# expect_out NAME WANT_FILE: stdout byte for byte.
expect_out() { same "$1" "${D:-$T_TMP}/out" "$2"; }
