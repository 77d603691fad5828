#!/bin/sh
# tests/ui/progress.sh: the load progress line. It appears on the terminal
# (stderr) when a load takes longer than 0.3 s, is erased when the load is
# done, and never goes to stdout or to a stderr that is not a terminal.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require

# A slow producer, like perf script on a big perf.data: a first burst of
# 9000 stacks (90 KB, over the 64 KB that format detection reads first), then 60
# stacks, one every 50 ms (3 s in all), so the load outlives the 0.3 s
# threshold and the line is redrawn many times as the stacks come.
cat > "$T_TMP/slow.sh" <<'X'
awk 'BEGIN { for (i = 0; i < 9000; i++) print "main;f" (i % 3) " 1" }'
i=0
while [ $i -lt 60 ]; do
	echo "main;f$((i % 3)) 1"
	sleep 0.05
	i=$((i + 1))
done
X
# Worked out by hand: f0, f1 and f2 get 3000 + 20 samples each.
printf 'main;f0 3020\nmain;f1 3020\nmain;f2 3020\n' > "$T_TMP/want"

tm_start 100 10 || { fail "tmux server starts"; done_testing; exit; }

tm_run "clear; sh '$T_TMP/slow.sh' | '$TFLAME' --collapse - > '$T_TMP/out'; echo rc=\$?"
expect "pipe: progress line with bytes, rate and stacks" \
	tm_wait_grep '^tflame: <stdin>  [0-9.]+ [KM]?B  [0-9.]+ [KM]?B/s  [0-9]+ stacks'
expect "pipe: the load ends" tm_wait_grep '^rc=0'
expect "pipe: the progress line is erased when done" eval '! tm__grep "stacks"'
same "pipe: stdout holds only the folded result" "$T_TMP/out" "$T_TMP/want"

# A JSON reader (speedscope) on a slow pipe: it reads 1 MiB slices, so
# 20000 samples at once (120 KB, past format detection), then 8 bursts of
# 200000 (1.2 MB each), one every 0.2 s.
cat > "$T_TMP/slowjson.sh" <<'X'
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json",'
printf '"shared":{"frames":[{"name":"a"},{"name":"b"}]},'
printf '"profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":1,"samples":['
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "[0,1]," }'
i=0
while [ $i -lt 8 ]; do
	sleep 0.2
	awk 'BEGIN { for (i = 0; i < 200000; i++) printf "[0,1]," }'
	i=$((i + 1))
done
printf '[0,1]],"weights":['
awk 'BEGIN { for (i = 0; i < 1620000; i++) printf "1,"; printf "1]}]}" }'
X
# Worked out by hand: 20000 + 8 * 200000 + 1 samples of a;b, weight 1 each.
printf 'a;b 1620001\n' > "$T_TMP/wantjson"
tm_run "clear; sh '$T_TMP/slowjson.sh' | '$TFLAME' --collapse - > '$T_TMP/outjson'; echo rcj=\$?"
expect "JSON pipe: progress line with bytes, rate and stacks" \
	tm_wait_grep '^tflame: <stdin>  [0-9.]+ [KM]?B  [0-9.]+ [KM]?B/s  [0-9]+ stacks'
expect "JSON pipe: the load ends" tm_wait_grep '^rcj=0'
expect "JSON pipe: the progress line is erased when done" eval '! tm__grep "stacks"'
same "JSON pipe: stdout holds only the folded result" "$T_TMP/outjson" "$T_TMP/wantjson"

# stderr to a file: no progress at all, even on a slow load.
tm_run "clear; sh '$T_TMP/slow.sh' | '$TFLAME' --collapse - > '$T_TMP/out2' 2> '$T_TMP/err2'; echo rc2=\$?"
expect "stderr not a terminal: the load ends" tm_wait_grep '^rc2=0'
check "stderr not a terminal: nothing written to it" test ! -s "$T_TMP/err2"
same "stderr not a terminal: same result" "$T_TMP/out2" "$T_TMP/want"

# A regular file of known size: percent and ETA, in the bytes written to a
# pty (script(1)): the load may end between two tmux polls. The file is big
# enough to take well over 0.3 s on one thread (3 million distinct leaves).
awk 'BEGIN { for (i = 0; i < 3000000; i++) printf "m;s%d;t%d 1\n", i % 50000, i }' > "$T_TMP/big.folded"
if command -v script >/dev/null 2>&1; then
	script -qec "'$TFLAME' --threads=1 --collapse '$T_TMP/big.folded' > /dev/null" /dev/null > "$T_TMP/typescript" 2>&1
	if grep -aEq 'tflame: [^ ]*big\.folded  [0-9.]+ [KM]?B / [0-9.]+ [KM]?B +[0-9]+%  ETA [0-9]+s  [0-9.]+ [KM]?B/s  [0-9]+ stacks' "$T_TMP/typescript"; then
		pass "file: progress with size, percent and ETA"
	else
		fail "file: progress with size, percent and ETA" "$(tr '\r' '\n' < "$T_TMP/typescript" | head -5)"
	fi
else
	skip "file: progress with size, percent and ETA" "script(1) is missing"
fi

done_testing
