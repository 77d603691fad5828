#!/bin/sh
# A run that keeps no samples exits 1 with a reason that names what the
# input had (issue 18 item 9), and writes nothing: no empty graph, no
# empty browser. The expected messages are written by hand from the inputs
# below (counts by eye: 3 cpu-clock records and 2 cycles records).
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/lib.sh"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
D=$T_TMP

cat > "$D/two.perf" <<'PERF'
prog 100/100 [000] 1.000000: 250000 cpu-clock:ppp:
	ffffffff a (/bin/x)
	ffffffff main (/bin/x)

prog 100/100 [000] 1.100000: 1000 cycles:u:
	ffffffff b (/bin/x)
	ffffffff main (/bin/x)

prog 100/100 [000] 1.200000: 250000 cpu-clock:ppp:
	ffffffff a (/bin/x)
	ffffffff main (/bin/x)

prog 100/101 [001] 1.300000: 1000 cycles:u:
	ffffffff b (/bin/x)
	ffffffff main (/bin/x)

prog 100/101 [001] 1.400000: 250000 cpu-clock:ppp:
	ffffffff c (/bin/x)
	ffffffff main (/bin/x)

PERF

# expect_only NAME TEXT: stderr is exactly TEXT (one line) and stdout is empty.
expect_only() {
	printf '%s\n' "$2" > "$D/want_err"
	if cmp -s "$D/err" "$D/want_err" && [ ! -s "$D/out" ]; then pass "$1: the message alone"
	else fail "$1: the message alone" "want: $2" "stderr: $(head -c 600 "$D/err")" \
		"stdout: $(head -c 200 "$D/out")"; fi
}

# ---- --event-filter that matches nothing: the events there were ----
EV='events in this file: cpu-clock (3 samples), cycles (2 samples)'
run --collapse --event-filter=nope "$D/two.perf"
expect_rc "--event-filter=nope, perf script" 1
expect_only "--event-filter=nope, perf script" "tflame: --event-filter=nope: no samples of that event; $EV"
run --print --event-filter=nope - < "$D/two.perf"
expect_rc "--event-filter=nope --print, stdin" 1
expect_only "--event-filter=nope --print, stdin" "tflame: --event-filter=nope: no samples of that event; $EV"
# Cut into pieces of a few records read by 3 threads: the counts of every
# piece add up, whichever finishes first.
TFLAME_PIECE_BYTES=150 run --collapse --threads=3 --event-filter=nope "$D/two.perf"
expect_rc "--event-filter=nope, 3 threads" 1
expect_only "--event-filter=nope, 3 threads" "tflame: --event-filter=nope: no samples of that event; $EV"
cp "$D/two.perf" "$D/again.perf"
run --collapse --event-filter=nope "$D/two.perf" "$D/again.perf"
expect_rc "--event-filter=nope, two files" 1
expect_only "--event-filter=nope, two files" \
	"tflame: --event-filter=nope: no samples of that event; events in these files: cpu-clock (6 samples), cycles (4 samples)"
# records of the event asked for that weigh nothing (period 0): not
# "no samples of that event"
printf 'prog 100/100 [000] 1.0: 0 cpu-clock:\n\tffff a (/bin/x)\n\n' > "$D/zero.perf"
run --collapse --event-filter=cpu-clock "$D/zero.perf"
expect_rc "--event-filter=cpu-clock, period 0" 1
expect_only "--event-filter=cpu-clock, period 0" "tflame: no samples in the input"
# the filter compares names without modifiers, as the list shows them
run --collapse --event-filter=cycles "$D/two.perf"
expect_rc "--event-filter=cycles" 0
printf 'prog;main;b 2000\n' > "$D/want"
expect_out "--event-filter=cycles: the two cycles records" "$D/want"

# ---- -f folded on perf script text ----
run --collapse -f folded "$D/two.perf"
expect_rc "-f folded on perf script" 1
expect_err "-f folded on perf script" "^tflame: .*two.perf: its lines look like perf script output, not folded stacks: leave out -f folded, or give -f perf$"
check "-f folded on perf script: no output" test ! -s "$D/out"
printf 'no count here\nnor here\n' > "$D/junk"
run --collapse -f folded "$D/junk"
expect_rc "-f folded on text that is neither" 1
if grep -q "look like perf script" "$D/err"; then
	fail "-f folded on text that is neither: not called perf script" "$(cat "$D/err")"
else
	pass "-f folded on text that is neither: not called perf script"
fi
expect_err "-f folded on text that is neither" "^tflame: no samples in the input$"

# ---- --hide of every frame: how many names there were ----
printf 'a;b 2\nc 1\n' > "$D/abc.folded"
run --collapse --hide=. "$D/abc.folded"
expect_rc "--hide=. " 1
expect_only "--hide=. " "tflame: --hide=.: every frame is hidden (the input has 3 distinct names); nothing is left to show"
run --print --hide='^[ab]$' --hide=c "$D/abc.folded"
expect_rc "--hide twice, --print" 1
expect_only "--hide twice, --print" "tflame: --hide=^[ab]\$ --hide=c: every frame is hidden (the input has 3 distinct names); nothing is left to show"
run --collapse --hide=b "$D/abc.folded"
expect_rc "--hide=b: something is left" 0
printf 'a 2\nc 1\n' > "$D/want"
expect_out "--hide=b: the children of b move up" "$D/want"
# the browser does not open on nothing (headless, through a key script)
printf 'q\n' > "$D/keys"
run --script="$D/keys" --hide=. "$D/abc.folded"
expect_rc "--hide=. in the browser" 1
expect_only "--hide=. in the browser" "tflame: --hide=.: every frame is hidden (the input has 3 distinct names); nothing is left to show"

# ---- an empty input in the browser ----
: > "$D/empty"
run --script="$D/keys" "$D/empty"
expect_rc "empty input in the browser" 1
expect_only "empty input in the browser" "tflame: no samples in the input"

# ---- --time and --only: what the recording had ----
run --collapse --time=5,6 "$D/two.perf"
expect_rc "--time past the end" 1
expect_only "--time past the end" "tflame: --time=5,6: no samples in that range (the recording spans 0.400000 s)"
run --collapse --only-tid=7 "$D/two.perf"
expect_rc "--only-tid=7" 1
expect_only "--only-tid=7" "tflame: --only: no thread of the input matches; it has 2 (comm pid/tid, samples): prog 100/100 (2), prog 100/101 (1)"

# ---- --sample-type that the profile lacks: its types ----
cp "$top_srcdir/tests/data/pprof/cpu.pb.gz" "$D/cpu.pb.gz"
TFLAME=$(cd "$(dirname "$TFLAME")" && pwd)/$(basename "$TFLAME")
cd "$D" || exit 1
run --collapse --sample-type=x cpu.pb.gz
expect_rc "--sample-type=x" 1
expect_only "--sample-type=x" "tflame: cpu.pb.gz: no sample type \"x\" in this profile (it has: samples/count cpu/nanoseconds)"

done_testing
