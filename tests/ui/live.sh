#!/bin/sh
# tests/ui/live.sh: the browser before the load ends. A load that outlasts
# 0.3 s opens the browser on a preview (what a stream gave so far, or a
# sample of a big file), marked on the status line ("loading ...", where
# "? help" is once the whole profile is shown); keys work meanwhile; the
# whole profile then replaces the preview, keeping the zoom, the selection
# and the search. No fixed sleeps: the pipe is fed in steps the test
# controls, and the file's load waits for the test (TFLAME_LOAD_HOLD).
# A 100x12 pane: the status line is line 11.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require

# A producer fed in steps: 8000 stacks main;a (9 bytes each: 72,000 bytes,
# past the 64 KiB that format detection reads first), then nothing until
# the test creates $T_TMP/go$1 (at most 30 s), then 4000 of main;b.
cat > "$T_TMP/slow.sh" <<'X'
awk 'BEGIN { for (i = 0; i < 8000; i++) print "main;a 1" }'
n=0
while [ ! -e "$T_TMP/go$1" ] && [ $n -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
awk 'BEGIN { for (i = 0; i < 4000; i++) print "main;b 1" }'
X

tm_start 100 12 || { fail "tmux server starts"; done_testing; exit; }

# ---- a pipe: the first part, then the whole ----
# Worked out by hand: the preview holds the 8000 stacks of the first step
# (a copy of what the stream gave: 72,000 bytes, "72.0 KB"), all of them
# main;a; the whole profile adds 4000 main;b: a has 8000 of 12,000, 66.67%.
rm -f "$T_TMP/go1"
tm_run "clear; T_TMP='$T_TMP' sh '$T_TMP/slow.sh' 1 | $(q "$TFLAME") -; echo rc=\$?"
expect "pipe: the preview of the first step, marked as loading" \
	tm_wait_grep '^all  ·  8,000 samples  ·  100\.00% of all +loading, 72\.0 KB read \(showing the first 72\.0 KB\)$'
check "pipe: no help hint while loading" eval '! grep -q "? help" "$TM_SCREEN_FILE"'
# keys while loading: a search, then Enter zooms into the match
tm_keys /
tm_type '^a$'
tm_keys Enter
expect "pipe: a search while loading: a, 8000 of 8000" \
	tm_wait_prefix 11 "/^a\$/  match 1 of 1${SEP}100.00% of samples"
tm_keys Enter
expect "pipe: Enter zooms into a while loading" tm_wait_line 0 "all › main › a"
touch "$T_TMP/go1"
expect "pipe: the whole profile: the search kept, a is 8000 of 12,000" \
	tm_wait_prefix 11 "/^a\$/  match 1 of 1${SEP}66.67% of samples (100.00% of view)"
expect "pipe: the zoom kept" tm_wait_line 0 "all › main › a"
check "pipe: no loading mark once loaded" eval '! grep -q "loading" "$TM_SCREEN_FILE"'
tm_keys Escape
expect "pipe: a selected, help hint back" \
	tm_wait_grep '^a  ·  8,000 samples  ·  66\.67% of all  ·  100\.00% of view +stdin  \? help$'
# unzoomed: main 12,000 = a 8000 at [0, 8000) + b 4000 at [8000, 12,000):
# at 100 columns, b starts at floor(100 * 8000 / 12,000) = 66
tm_keys u
expect "pipe: b is there once loaded" tm_wait_grep '^a {65}b$'
quit
expect "pipe: rc=0" tm_wait_grep '^rc=0$'

# ---- q while loading ends tflame at once, the terminal restored ----
rm -f "$T_TMP/go2"
tm_run "clear; T_TMP='$T_TMP' sh '$T_TMP/slow.sh' 2 | $(q "$TFLAME") -; echo rc=\$?"
expect "q while loading: the preview" tm_wait_grep 'loading, 72\.0 KB read'
tm_keys q
touch "$T_TMP/go2"      # the producer then meets the closed pipe
expect "q while loading: rc=0" tm_wait_grep '^rc=0$'
expect "q while loading: off the alternate screen" alternate_is 0
tty_sane "q while loading"

# ---- a file: a sample of it, then the whole ----
# 64 parts of 4000 lines, part k's stacks "p<k>;x": 256,000 samples in
# all, 1000-odd KB. The load waits for the test once its preview is made
# (TFLAME_LOAD_HOLD), which is a sample of lines from every part: fewer
# than all, more than none, marked "loading 0% (showing a N% sample)".
awk 'BEGIN { for (k = 0; k < 64; k++) for (i = 0; i < 4000; i++) printf "p%d;x 1\n", k }' > "$T_TMP/big.folded"
# The third time, the file is read in 8 parts (TFLAME_PARTS) on 2 threads.
for th in 1 2 parts; do
	rm -f "$T_TMP/hold"
	case $th in
	parts) how="8 parts on 2 threads"
		tm_tflame TFLAME_LOAD_HOLD="$T_TMP/hold" TFLAME_PARTS=8 -- --threads=2 "$(q "$T_TMP/big.folded")" ;;
	*) how="$th thread(s)"
		tm_tflame TFLAME_LOAD_HOLD="$T_TMP/hold" TFLAME_PIECE_BYTES=65536 -- --threads=$th "$(q "$T_TMP/big.folded")" ;;
	esac
	expect "file, $how: the preview is a sample" \
		tm_wait_grep '^all  ·  [0-9,]+ samples  ·  100\.00% of all .*loading 0% \(showing a [0-9.]+% sample\)$'
	n=$(sed -n '12p' "$TM_SCREEN_FILE" | sed 's/^all  ·  \([0-9,]*\) samples.*/\1/' | tr -d ,)
	check "file, $how: the sample has fewer samples than the file ($n)" \
		test "${n:-0}" -gt 0 -a "${n:-0}" -lt 256000
	touch "$T_TMP/hold"
	expect "file, $how: the whole file, 256,000 samples" \
		status_is "all${SEP}256,000 samples${SEP}100.00% of all"
	expect "file, $how: the help hint once loaded" tm_wait_grep '\? help$'
	quit
done

done_testing
