#!/bin/sh
# tests/ui/perfdata.sh: perf.data in a real terminal. `tflame record` runs
# perf record, opens the browser on the result and removes its temporary
# file; `tflame` alone opens ./perf.data; `perf record -o - | tflame` reads
# the stream and takes keys from the terminal. Skipped without perf or the
# permission to record (kernel.perf_event_paranoid).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require
command -v perf > /dev/null 2>&1 || skip_all "perf is not installed"
CC=$(command -v cc || command -v gcc || command -v clang) || skip_all "no C compiler"

# A program that spends its time in spin_here, long enough for ~300 samples.
cat > "$T_TMP/prog.c" <<'X'
#include <stdio.h>
__attribute__((noinline)) static long spin_here(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += (i * 7) % 13;
	return s;
}
int main(void) { printf("%ld\n", spin_here(300000000)); return 0; }
X
"$CC" -O1 -g -fno-omit-frame-pointer -o "$T_TMP/prog" "$T_TMP/prog.c" ||
	skip_all "the test program does not build"
mkdir -p "$T_TMP/rt"
# The ./perf.data of the second case, recorded first: if perf record fails
# here, everything is skipped.
perf record -q -e cpu-clock:u -F 999 -g -o "$T_TMP/perf.data" "$T_TMP/prog" > /dev/null 2>&1 ||
	skip_all "perf record fails here (kernel.perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"

tm_start 100 12 || { fail "tmux server starts"; done_testing; exit; }

# ---- tflame record: perf record, then the browser --------------------------
tm_run "cd '$T_TMP' && clear && TMPDIR='$T_TMP/rt' '$TFLAME' record -F 999 -e cpu-clock:u -- ./prog; echo rc=\$?"
expect "record: the browser opens on the recording, its weights in time" \
	tm_wait_grep '(ms|s) cpu-clock'
expect "record: the program's function is drawn" tm_wait_grep 'spin_here'
expect "record: the status line names the command, not a temporary file" \
	eval '! tm__grep "tflame-record-"'
tm_keys q
expect "record: q quits with status 0" tm_wait_grep '^rc=0'
ls -A "$T_TMP/rt" > "$T_TMP/left"
if [ ! -s "$T_TMP/left" ]; then
	pass "record: the temporary recording is removed"
else
	fail "record: the temporary recording is removed" "left: $(cat "$T_TMP/left")"
fi

# ---- no file on a terminal: ./perf.data -------------------------------------
tm_run "clear && '$TFLAME'; echo rc2=\$?"
expect "no file: ./perf.data is opened" tm_wait_grep 'spin_here'
expect "no file: the status line names perf.data" tm_wait_grep 'perf\.data'
tm_keys q
expect "no file: q quits with status 0" tm_wait_grep '^rc2=0'

# ---- the stream perf record -o - writes, keys from the terminal -----------
tm_run "clear && perf record -q -e cpu-clock:u -F 999 -g -o - ./prog 2>/dev/null | '$TFLAME'; echo rc3=\$?"
expect "stream: the browser opens on perf record's stream" tm_wait_grep 'spin_here'
tm_keys q
expect "stream: q quits with status 0" tm_wait_grep '^rc3=0'

tm_stop
done_testing
