#!/bin/sh
# tests/hostile-perfdata.sh: damaged and hostile perf.data files (made at run
# time by tests/fuzz/perfdata_seeds.py: truncations at and inside every
# record, impossible record sizes, header and feature offsets past the end,
# overlapping or wrapping, huge counts in callchains, read groups, EVENT_DESC
# and CMDLINE, every sample_type bit, a stream with huge TRACING_DATA and
# AUXTRACE, nested and inflating COMPRESSED records, many maps, threads and
# forks, MMAPs of /dev/zero, a FIFO, /proc/self/mem, directories ...). Each
# one must end within $T seconds with exit status 0 or 1, no sanitizer
# report, a message on stderr when it fails, no control byte in a message
# or in --print's output, and --collapse output that is still folded lines.
# perf is kept off PATH: what the native reader declines would otherwise go
# to `perf script` (load.c), and this test is about tflame.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/lib.sh"

command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
# Generous: the sanitizer build is several times slower; every file here
# takes well under a second with a plain build.
T=${HOSTILE_TIMEOUT:-60}
# Peak RSS allowed (KiB), when GNU time is there to measure it.
RSS_MAX=${HOSTILE_RSS_MAX:-1048576}
D=$T_TMP
H=$D/hostile
mkdir -p "$H" "$D/nobin"
HOSTILE_FIFO=$D/fifo
export HOSTILE_FIFO
mkfifo "$HOSTILE_FIFO" || skip_all "mkfifo failed"
# HOSTILE_BIG=1: also the large files (minutes with some versions).
if ! python3 "$top_srcdir/tests/fuzz/perfdata_seeds.py" hostile "$H" ${HOSTILE_BIG:+--big} 2> "$D/gen.err"; then
	skip_all "perfdata_seeds.py failed: $(head -c 200 "$D/gen.err")"
fi
gnutime=
[ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1 && gnutime=/usr/bin/time

# C0 controls but newline, DEL, C1 controls in their UTF-8 form.
has_ctl() {
	tr -d '\n' < "$1" | LC_ALL=C grep -q "$(printf '[\001-\037\177]')" ||
		LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1"
}
# run FILE ARGS...: tflame ARGS FILE under timeout; $rc, $D/out, $D/err, $rss.
run() {
	f=$1; shift
	rc=0 rss=0
	if [ -n "$gnutime" ]; then
		timeout -k 5 "$T" "$gnutime" -f %M -o "$D/rss" env PATH="$D/nobin" \
			"$TFLAME" --no-config "$@" "$f" > "$D/out" 2> "$D/err" < /dev/null || rc=$?
		rss=$(tail -n 1 "$D/rss" 2>/dev/null)
		case $rss in ''|*[!0-9]*) rss=0;; esac
	else
		timeout -k 5 "$T" env PATH="$D/nobin" \
			"$TFLAME" --no-config "$@" "$f" > "$D/out" 2> "$D/err" < /dev/null || rc=$?
	fi
}
# Folded output: every line "STACK COUNT" (a name with a newline in it must
# not start a line of its own).
folded_lines() { LC_ALL=C awk '!/ [0-9]+$/ { bad = 1 } END { exit bad }' "$1"; }

for f in "$H"/*; do
	n=${f##*/}
	run "$f" --collapse
	problems=
	case $rc in 0|1) ;; 124|137) problems="$problems; killed after ${T}s (hang)";;
		*) problems="$problems; exit status $rc";; esac
	if grep -q 'Sanitizer\|runtime error:' "$D/err"; then
		problems="$problems; sanitizer report"
	fi
	[ "$rc" = 1 ] && [ ! -s "$D/err" ] && problems="$problems; failed without a message"
	has_ctl "$D/err" && problems="$problems; control bytes in a message"
	[ "$rss" -gt "$RSS_MAX" ] && problems="$problems; peak RSS ${rss} KiB"
	if [ -z "$problems" ]; then
		pass "$n: --collapse ends (status $rc), bounded, clean messages"
	else
		fail "$n: --collapse ends (status $rc), bounded, clean messages" "${problems#; }" \
			"$(head -c 600 "$D/err")"
	fi
	if [ "$rc" = 0 ]; then
		if folded_lines "$D/out"; then
			pass "$n: --collapse output is folded lines"
		else
			fail "$n: --collapse output is folded lines" "$(head -c 300 "$D/out" | od -c | head -6)"
		fi
	fi
	# What reaches a terminal: --print, with its header (event name).
	run "$f" --print -w 60
	if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
		fail "$n: --print ends (status $rc)" "$(head -c 600 "$D/err")"
	elif has_ctl "$D/out" || has_ctl "$D/err"; then
		fail "$n: --print writes no control byte" "$(head -c 300 "$D/out" | od -c | head -6)"
	else
		pass "$n: --print ends, no control byte"
	fi
done
done_testing
