# tests/lib.sh: sourced by every shell test. Isolates the environment and
# emits TAP (automake's tap-driver reads it).
#   plan N | ok COND-EXIT-STATUS NAME (via check) | skip_all REASON | done_testing
set -u
export LC_ALL=C.UTF-8 LANG=C.UTF-8
unset NO_COLOR COLORTERM TFLAME_CONFIG
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
