#!/bin/sh
# tests/parallel.sh: the parallel loader (issue 21).
#
# Defect 3: each piece's search for its first line must not read on to the
# end of the file. On a valid line followed by a 512 MiB hole (NUL bytes,
# no newline) in 4096 pieces, that was 4096 searches of 256 MiB on average:
# 100 s here, where one pass takes half a second. The hang guard (30 s) is
# far above the latter; tests/unit/test_load counts the bytes searched,
# which does not depend on the machine.
#
# Defect 7: under a memory limit (ulimit -v) where one thread loads a file,
# several threads must too: they fall back to fewer instead of dying with
# "out of memory" (the old loader needed 1.5 times the memory of one thread
# here). The limit is found from what one thread needs on this machine.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/lib.sh"

command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
D=$T_TMP
T=60    # for the runs that take under a second

# ---- 3: a file with few newlines ----------------------------------------

# hole NAME FIRST WANT_OUT WANT_MSG: FIRST, then NUL bytes to 512 MiB (a
# sparse file: no disk, but 512 MiB of page cache while it is read), read
# on 2 threads in 4096 pieces; stdout must be WANT_OUT, stderr must hold
# WANT_MSG (the hole is one malformed line).
hole() {
	printf "$2" > "$D/hole"
	if ! truncate -s 512M "$D/hole" 2> /dev/null; then
		skip "$1" "truncate(1) cannot make a 512 MiB sparse file here"
		return
	fi
	rc=0
	TFLAME_PIECE_BYTES=131072 timeout -k 5 30 "$TFLAME" --no-config --threads=2 --collapse "$D/hole" \
		> "$D/out" 2> "$D/err" || rc=$?
	rm -f "$D/hole"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		fail "$1: within 30 s" "killed after 30 s: the cut search reads the file over and over"
		return
	fi
	check "$1: exit status 0" [ "$rc" -eq 0 ]
	printf "$3" > "$D/want"
	same "$1: the valid lines are loaded" "$D/out" "$D/want"
	if grep -qF "$4" "$D/err"; then
		pass "$1: the hole is reported"
	else
		fail "$1: the hole is reported" "want: $4" "got: $(head -c 300 "$D/err")"
	fi
}

# Line 1 is a stack; line 2 is the hole, which has no count.
hole "folded line then 512 MiB of NUL" 'a;b 1\n' 'a;b 1\n' \
	"skipped 1 malformed line (first at line 2: no sample count"
# A perf script record (lines 1-4, leaf frame first, the command as the
# root); line 5 is the hole, which is no event line.
hole "perf script record then 512 MiB of NUL" \
	'prog 123 [000] 1.0: cycles:\n\tffff main (/bin/prog)\n\tffff start (/bin/prog)\n\n' \
	'prog;start;main 1\n' "skipped 1 malformed line (first at line 5: unrecognized event line"

# ---- 7: under ulimit -v --------------------------------------------------

# 600,000 distinct stacks (28 MB; a tree of 630,000 nodes): the tree, not
# the mapped file, is most of the memory. Distinct lines of count 1, so
# --collapse gives them back in byte order: sort(1) says what to expect.
awk 'BEGIN { for (i = 0; i < 600000; i++)
	printf "main;run;a%d;b%d;c%d;leaf_function_%d 1\n", i / 20000, i / 400, i / 20, i }' > "$D/mem.folded"
LC_ALL=C sort "$D/mem.folded" > "$D/mem.want"

# Sanitizer builds reserve terabytes of shadow memory and cannot start
# under any ulimit -v.
if ! (ulimit -v 400000 && "$TFLAME" --version) > /dev/null 2>&1; then
	skip "ulimit -v: several threads load what one can" "this build cannot run under ulimit -v (sanitizers?)"
	done_testing
	exit
fi

# The smallest limit of 96 MB * 1.1^k under which one thread loads it.
one=''
lim=96000
while [ "$lim" -le 1200000 ]; do
	if (ulimit -v "$lim" && timeout -k 5 "$T" "$TFLAME" --no-config --threads=1 --collapse "$D/mem.folded") \
		> "$D/out" 2> /dev/null && cmp -s "$D/out" "$D/mem.want"; then
		one=$lim
		break
	fi
	lim=$((lim * 11 / 10))
done
if [ -z "$one" ]; then
	skip "ulimit -v: several threads load what one can" "one thread fails under every limit up to 1.2 GB"
	done_testing
	exit
fi
# 32 MB above that: the old loader needed 75 MB more with 2 threads.
lim=$((one + 32000))
for th in 2 4; do
	for piece in default 2097152; do
		name="ulimit -v $lim (one thread: $one), $th threads, pieces of $piece bytes"
		rc=0
		if [ "$piece" = default ]; then
			(ulimit -v "$lim" && exec timeout -k 5 "$T" "$TFLAME" --no-config --threads=$th \
				--collapse "$D/mem.folded") > "$D/out" 2> "$D/err" || rc=$?
		else
			(ulimit -v "$lim" && exec env TFLAME_PIECE_BYTES=$piece timeout -k 5 "$T" "$TFLAME" --no-config \
				--threads=$th --collapse "$D/mem.folded") > "$D/out" 2> "$D/err" || rc=$?
		fi
		if [ "$rc" -eq 0 ]; then
			same "$name: same output as one thread" "$D/out" "$D/mem.want"
		else
			fail "$name: loads" "exit status $rc" "$(head -3 "$D/err")"
		fi
	done
done

done_testing
