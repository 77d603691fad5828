#!/bin/sh
# tests/ui/progress.sh: the load progress line. It appears on the terminal
# (stderr) when a load takes longer than 0.3 s, is erased when the load is
# done, and never goes to stdout or to a stderr that is not a terminal.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require

# A regular file of known size: percent and ETA, in the bytes written to a
# pty (script(1)): the load may end between two tmux polls. The file is big
# enough to take well over 0.3 s on one thread (3 million lines: 375,000
# distinct leaves 8 times, which loads about as slowly as 3 million distinct
# ones and is written four times faster);
# once the line is there tflame is stopped (SIGTERM: a background job
# ignores SIGINT), the rest of the load would prove nothing more. No tmux
# here: it runs in the background while the pipe cases below wait on their
# slow producers, and is checked at the end.
FILE_ERE='tflame: [^ ]*big\.folded  [0-9.]+ [KM]?B / [0-9.]+ [KM]?B +[0-9]+%  ETA [0-9]+s  [0-9.]+ [KM]?B/s  [0-9]+ stacks'
bigpid=
if command -v script >/dev/null 2>&1; then
	(
		awk 'BEGIN { for (i = 0; i < 375000; i++) printf "m;s%d;t%d 1\n", i % 50000, i }' > "$T_TMP/big1"
		cat "$T_TMP/big1" "$T_TMP/big1" "$T_TMP/big1" "$T_TMP/big1" \
			"$T_TMP/big1" "$T_TMP/big1" "$T_TMP/big1" "$T_TMP/big1" > "$T_TMP/big.folded"
		rm -f "$T_TMP/big1"
		: > "$T_TMP/typescript"
		script -qec "echo \$\$ > '$T_TMP/big.pid'; exec '$TFLAME' --threads=1 --collapse '$T_TMP/big.folded' > /dev/null" \
			/dev/null >> "$T_TMP/typescript" 2>&1 &
		spid=$!
		n=0     # 50 ms steps, 60 s at most
		while kill -0 "$spid" 2>/dev/null && [ $n -lt 1200 ] &&
			! grep -aEq "$FILE_ERE" "$T_TMP/typescript"; do
			sleep 0.05
			n=$((n + 1))
		done
		[ -s "$T_TMP/big.pid" ] && kill -TERM "$(cat "$T_TMP/big.pid")" 2>/dev/null
		wait "$spid"
		rm -f "$T_TMP/big.folded"
	) &
	bigpid=$!
fi

# A slow producer, like perf script on a big perf.data: a first burst of
# 9000 stacks (90 KB, over the 64 KB that format detection reads first),
# then main;f0 main;f1 main;f2, one stack every 50 ms, the line being
# redrawn as they come, until the test has seen the progress line (it
# creates $T_TMP/go; at most 20 s, or the N the first argument says); then
# it writes how many rounds it made to $T_TMP/rounds. The load outlives
# the 0.3 s threshold by as long as the progress line takes to show.
cat > "$T_TMP/slow.sh" <<'X'
awk 'BEGIN { for (i = 0; i < 9000; i++) print "main;f" (i % 3) " 1" }'
n=0
while [ ! -e "$T_TMP/go" ] && [ $n -lt "${1:-133}" ]; do
	for f in 0 1 2; do
		echo "main;f$f 1"
		sleep 0.05
	done
	n=$((n + 1))
done
echo $n > "$T_TMP/rounds"
X
# Worked out by hand: f0, f1 and f2 get 3000 samples each from the burst
# and one a round.
want_slow() {
	local n
	n=$(cat "$T_TMP/rounds")
	printf 'main;f0 %d\nmain;f1 %d\nmain;f2 %d\n' $((3000 + n)) $((3000 + n)) $((3000 + n)) > "$T_TMP/want"
}

tm_start 100 10 || { fail "tmux server starts"; done_testing; exit; }

rm -f "$T_TMP/go"
tm_run "clear; T_TMP='$T_TMP' sh '$T_TMP/slow.sh' | '$TFLAME' --collapse - > '$T_TMP/out'; echo rc=\$?"
expect "pipe: progress line with bytes, rate and stacks" \
	tm_wait_grep '^tflame: <stdin>  [0-9.]+ [KM]?B  [0-9.]+ [KM]?B/s  [0-9]+ stacks'
touch "$T_TMP/go"
expect "pipe: the load ends" tm_wait_grep '^rc=0'
expect "pipe: the progress line is erased when done" eval '! tm__grep "stacks"'
want_slow
same "pipe: stdout holds only the folded result" "$T_TMP/out" "$T_TMP/want"

# A JSON reader (speedscope) on a slow pipe: it reads 1 MiB slices, so
# 20000 samples at once (120 KB, past format detection), then bursts of
# 200000 (1.2 MB each), one every 0.2 s until $T_TMP/go is there (at most
# 100), then one more sample and the weights, 1 each.
cat > "$T_TMP/slowjson.sh" <<'X'
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json",'
printf '"shared":{"frames":[{"name":"a"},{"name":"b"}]},'
printf '"profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":1,"samples":['
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "[0,1]," }'
n=0
while [ ! -e "$T_TMP/go" ] && [ $n -lt 100 ]; do
	sleep 0.2
	awk 'BEGIN { for (i = 0; i < 200000; i++) printf "[0,1]," }'
	n=$((n + 1))
done
printf '[0,1]],"weights":['
awk -v n=$((20000 + n * 200000)) 'BEGIN { for (i = 0; i < n; i++) printf "1,"; printf "1]}]}" }'
echo $n > "$T_TMP/rounds"
X
rm -f "$T_TMP/go"
tm_run "clear; T_TMP='$T_TMP' sh '$T_TMP/slowjson.sh' | '$TFLAME' --collapse - > '$T_TMP/outjson'; echo rcj=\$?"
expect "JSON pipe: progress line with bytes, rate and stacks" \
	tm_wait_grep '^tflame: <stdin>  [0-9.]+ [KM]?B  [0-9.]+ [KM]?B/s  [0-9]+ stacks'
touch "$T_TMP/go"
expect "JSON pipe: the load ends" tm_wait_grep '^rcj=0'
expect "JSON pipe: the progress line is erased when done" eval '! tm__grep "stacks"'
# Worked out by hand: 20000 + 200000 a burst + 1 samples of a;b, weight 1.
printf 'a;b %d\n' $((20000 + $(cat "$T_TMP/rounds") * 200000 + 1)) > "$T_TMP/wantjson"
same "JSON pipe: stdout holds only the folded result" "$T_TMP/outjson" "$T_TMP/wantjson"

# stderr to a file: no progress at all, even on a slow load: 4 rounds of
# 3 stacks, 50 ms apart (0.6 s, twice the threshold).
rm -f "$T_TMP/go"
tm_run "clear; T_TMP='$T_TMP' sh '$T_TMP/slow.sh' 4 | '$TFLAME' --collapse - > '$T_TMP/out2' 2> '$T_TMP/err2'; echo rc2=\$?"
expect "stderr not a terminal: the load ends" tm_wait_grep '^rc2=0'
check "stderr not a terminal: nothing written to it" test ! -s "$T_TMP/err2"
want_slow
same "stderr not a terminal: same result" "$T_TMP/out2" "$T_TMP/want"

# The file case (started at the top) has ended by now.
if [ -n "$bigpid" ]; then
	wait "$bigpid"
	if grep -aEq "$FILE_ERE" "$T_TMP/typescript"; then
		pass "file: progress with size, percent and ETA"
	else
		fail "file: progress with size, percent and ETA" "$(tr '\r' '\n' < "$T_TMP/typescript" | head -5)"
	fi
else
	skip "file: progress with size, percent and ETA" "script(1) is missing"
fi

done_testing
