#!/bin/sh
# --time=START,END: exactly the samples whose times fall in the range count.
# Expected output comes from hand-worked cases and from the raw inputs
# filtered by a few lines of Python (the records' own TIME fields, the
# .cpuprofile's startTime + timeDeltas), then collapsed without --time.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/lib.sh"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"

D=$T_TMP

# ---- perf script, worked by hand ----
# tests/data/three.perf: samples at 1.0 s (a), 1.5 s (b, another thread)
# and 2.0 s (a), 250000 each: the recording spans 1 s; offsets are from its
# first sample.
cp "$top_srcdir/tests/data/three.perf" "$D/t.perf"
tcase() {   # NAME RANGE WANT... (no WANT: no samples, exit status 1)
	name=$1 range=$2
	shift 2
	printf '%s' "$*" > "$D/want"
	run --collapse --time="$range" "$D/t.perf"
	if [ -s "$D/want" ]; then expect_rc "$name" 0; else expect_rc "$name" 1; fi
	expect_out "$name" "$D/want"
}
tcase "--time=0.5,1: the 1.5 s sample" 0.5,1 'prog;main;b 250000
'
tcase "--time=0,0.5: the start is in, the end is out" 0,0.5 'prog;main;a 250000
'
tcase "--time=,: everything" , 'prog;main;a 500000
prog;main;b 250000
'
tcase "--time=0.5,: from 0.5 s to the end, the last sample in" 0.5, 'prog;main;a 250000
prog;main;b 250000
'
tcase "--time=50%,100%: 100% keeps the last sample" 50%,100% 'prog;main;a 250000
prog;main;b 250000
'
tcase "--time=50%/1: the first half, its end out" 50%/1 'prog;main;a 250000
'
tcase "--time=0.000000001,0.5: a ns after the first sample" 0.000000001,0.5 ''
expect_err "--time=0.000000001,0.5" "no samples in that range \\(the recording spans 1\\.000000 s\\)"
run --print -w 40 --time=0.5,1 "$D/t.perf"
expect_rc "--print --time" 0
grep -q "^all: 1 sample · 250.0 µs cpu-clock$" "$D/out" && pass "--print --time: the range's total" ||
	fail "--print --time: the range's total" "$(head -1 "$D/out")"

# --print --view=heatmap, worked by hand: a span of 1 s in at most 20
# columns (-w 30 less the labels) takes 100 ms columns (50 ms would need
# 21), so 11 of them; 25 rows of 4 ms; the three samples are at offset 0 of
# columns 0, 5 and 10, each the largest count (1): the darkest shade.
{
	echo "heat map: 3 samples over 1 s from the first; a column is 100 ms, a row 4 ms"
	echo "         0"
	echo "      0 |@    @    @|"
	r=1
	while [ $r -lt 25 ]; do printf '%7s |%11s|\n' "$((r * 4)) ms" ''; r=$((r + 1)); done
	echo "samples per cell: '@' 1"
} > "$D/want"
run --print --view=heatmap -w 30 "$D/t.perf"
expect_rc "--view=heatmap" 0
expect_out "--view=heatmap: 11 columns of 100 ms, the samples at 0, 0.5 and 1 s" "$D/want"
# (the label of column 10, "500 ms", would not fit in 11 columns)
run --print --view=heatmap --time=0.5, -w 30 "$D/t.perf"
{
	echo "heat map: 2 samples over 500 ms from the first; a column is 50 ms, a row 2 ms"
	echo "         0"
	echo "      0 |@         @|"
	r=1
	while [ $r -lt 25 ]; do printf '%7s |%11s|\n' "$((r * 2)) ms" ''; r=$((r + 1)); done
	echo "samples per cell: '@' 1"
} > "$D/want"
expect_out "--view=heatmap --time=0.5,: the range's two samples" "$D/want"
# the browser has it too (tests/heat.sh); --collapse and --svg do not
run --collapse --view=heatmap "$D/t.perf"
expect_rc "--view=heatmap with --collapse" 2
printf 'a;b 1\n' > "$D/f.folded"
run --print --view=heatmap "$D/f.folded"
expect_rc "--view=heatmap on folded input" 1
expect_err "--view=heatmap on folded input" "no sample times"

# --only-pid, --only-tid, --only-comm: one of each kind given must match
tonly() {   # NAME WANT ARGS...
	name=$1
	printf '%s' "$2" > "$D/want"
	shift 2
	run --collapse "$@" "$D/t.perf"
	expect_rc "$name" 0
	expect_out "$name" "$D/want"
}
tonly "--only-tid=101: thread 101's sample" 'prog;main;b 250000
' --only-tid=101
tonly "--only-pid=100: both threads of process 100" 'prog;main;a 500000
prog;main;b 250000
' --only-pid=100
tonly "--only-tid=100 --only-tid=101: either" 'prog;main;a 500000
prog;main;b 250000
' --only-tid=100 --only-tid=101
tonly "--only-comm=prog --only-tid=100: both kinds must match" 'prog;main;a 500000
' --only-comm=prog --only-tid=100
tonly "--only-tid=100 --time=0.5,: the range on the thread" 'prog;main;a 250000
' --only-tid=100 --time=0.5,
run --collapse --only-comm=nope "$D/t.perf"
expect_rc "--only-comm=nope" 1
expect_err "--only-comm=nope" "no thread of the input matches; it has 2 \\(comm pid/tid, samples\\): prog 100/100 \\(2\\), prog 100/101 \\(1\\)"
run --collapse --only-pid=x "$D/t.perf"
expect_rc "--only-pid=x" 2
# The grid is the recording's (1 s on all threads), whichever threads
# count: 20 columns at most (-w 30 less 10) make steps of 100 ms (11
# columns; 50 ms would need 21), 25 rows of 4 ms; b at 0.5 s in column 5.
run --print --view=heatmap -w 30 --only-tid=101 "$D/t.perf"
sed -n '1p;3p' "$D/out" > "$D/got1"
printf '%s\n' "heat map: 1 sample over 1 s from the first; a column is 100 ms, a row 4 ms" \
	"      0 |     @     |" > "$D/want"
same "--view=heatmap --only-tid=101: the thread's one sample, on the recording's grid" "$D/got1" "$D/want"

# errors
printf 'a;b 1\n' > "$D/f.folded"
run --collapse --time=0,1 "$D/f.folded"
expect_rc "--time on folded input" 1
expect_err "--time on folded input" "--time: the input has no sample times"
run --collapse --time=2,1 "$D/t.perf"
expect_rc "--time=2,1" 2
expect_err "--time=2,1" "the end comes before the start"
run --collapse --time="$(printf 'x\033]0;T\007')" "$D/t.perf"
expect_rc "--time with control bytes" 2
if grep -q "$(printf '\033')" "$D/err"; then fail "--time with control bytes: echoed raw"; else pass "--time with control bytes: not echoed raw"; fi

# ---- a real perf script recording, filtered by its TIME fields ----
filter_perf() {    # FILE FROM_S TO_S: records whose time - first time is in [FROM, TO)
	python3 - "$@" <<'EOF'
import re, sys
from decimal import Decimal
text = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read()
recs = [r for r in text.split("\n\n") if r.strip()]
def t(r):
    # the word before the first ':' after the pid is the time
    return Decimal(re.search(r" (\d+\.\d+):", r.split("\n")[0]).group(1))
first = min(t(r) for r in recs)
lo, hi = Decimal(sys.argv[2]), Decimal(sys.argv[3])
out = [r for r in recs if lo <= t(r) - first < hi]
sys.stdout.write("".join(r.strip("\n") + "\n\n" for r in out))
EOF
}
if command -v python3 >/dev/null 2>&1; then
	gzip -dc "$top_srcdir/tests/data/minisearch.perf.gz" > "$D/ms.perf"
	for range in 0,1 1.25,2.5 0,0.000497 0.000497,0.000498 3,10; do
		from=${range%,*} to=${range#*,}
		filter_perf "$D/ms.perf" "$from" "$to" > "$D/ms.part"
		"$TFLAME" --collapse -f perf "$D/ms.part" > "$D/want" 2> /dev/null
		n=$(grep -c 'cpu-clock' "$D/ms.part")
		run --collapse --time="$range" "$D/ms.perf"
		expect_out "minisearch --time=$range ($n records, by Python over TIME)" "$D/want"
		# the parallel loader: pieces of 64 KiB, each with its own times
		TFLAME_PIECE_BYTES=65536 run --collapse --threads=2 --time="$range" "$D/ms.perf"
		expect_out "minisearch --time=$range on 2 threads, 64 KiB pieces" "$D/want"
	done
else
	skip "perf script --time against Python" "no python3"
fi

# ---- perf.data: its samples' times, against perf's own text of them ----
# perf script --ns -F+pid prints what perf.data holds (to the ns) (tests/perfdata.sh checks
# that tflame reads both alike); its TIME fields, filtered by Python, give
# the records a range keeps.
if command -v perf >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 &&
	perf record -q -F 1999 -g -o "$D/p.data" -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' \
		> "$D/rec.log" 2>&1 &&
	perf script --ns -F+pid -i "$D/p.data" > "$D/p.perf" 2> /dev/null && [ -s "$D/p.perf" ]; then
	for range in 0,0.05 0.1,0.2 25%,75%; do
		from=${range%,*} to=${range#*,}
		case $range in
		*%*) # the span from the script's own first and last times
			span=$(python3 -c 'import re,sys; t=[float(m) for m in re.findall(r" (\d+\.\d+):", open(sys.argv[1]).read())]; print(max(t)-min(t))' "$D/p.perf")
			from=$(python3 -c "print(int($span * ${from%\%} / 100 * 1e9) / 1e9)")
			to=$(python3 -c "print(int($span * ${to%\%} / 100 * 1e9) / 1e9)")
			range="$from,$to" ;;
		esac
		filter_perf "$D/p.perf" "$from" "$to" > "$D/p.part"
		"$TFLAME" --collapse -f perf "$D/p.part" > "$D/want" 2> /dev/null
		n=$(grep -c 'cpu-clock\|cycles' "$D/p.part")
		run --collapse --time="$range" "$D/p.data"
		expect_out "perf.data --time=$range ($n records, by Python over perf script's TIME)" "$D/want"
	done
else
	skip "perf.data --time against perf script" "perf record or perf script did not work here: $(tail -1 "$D/rec.log" 2>/dev/null)"
fi

# ---- a real .cpuprofile, filtered by startTime + timeDeltas ----
if command -v python3 >/dev/null 2>&1; then
	cp="$top_srcdir/tests/data/cpuprofile/work.cpuprofile"
	for range in 0,0.1 0.2,0.35 0.5, 10%/3; do
		python3 - "$cp" "$range" > "$D/want" <<'EOF'
import collections, json, sys
from decimal import Decimal
prof = json.load(open(sys.argv[1], encoding="utf-8"))
nodes = {n["id"]: n for n in prof["nodes"]}
parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", [])}
times, t = [], prof["startTime"]
for d in prof["timeDeltas"]:
    t += d
    times.append(t * 1000)                  # ns
first, last = min(times), max(times)
a, b = sys.argv[2].split(",") if "," in sys.argv[2] else (None, None)
if a is None:                               # P%/N
    p, n = sys.argv[2].split("%/")
    step = int((last - first) * Decimal(p) / 100)
    lo = first + step * (int(n) - 1)
    hi = first + step * int(n) if step * int(n) < last - first else last + 1
else:
    lo = first + int(Decimal(a) * 10**9) if a else 0
    hi = first + int(Decimal(b) * 10**9) if b else last + 1
w = collections.Counter(s for s, tm in zip(prof["samples"], times) if lo <= tm < hi)
folded = collections.Counter()
for i, c in w.items():
    fr, j = [], i
    while j is not None:
        name = nodes[j]["callFrame"]["functionName"] or "(anonymous)"
        if not (j not in parent and name == "(root)"):
            fr.append(name)
        j = parent.get(j)
    folded[";".join(reversed(fr or ["(root)"]))] += c
for s in sorted(folded, key=lambda s: s.encode()):
    print(s, folded[s])
EOF
		run --collapse --time="$range" "$cp"
		expect_out "work.cpuprofile --time=$range (by Python over timeDeltas)" "$D/want"
	done
else
	skip ".cpuprofile --time against Python" "no python3"
fi

# ---- speedscope: profiles in time units have times (worked by hand) ----
# evented, ms: a open 0-40, b open 10-30 inside it, c 100-150. Stretches:
# a@0 (10), a;b@10 (20), a@30 (10), c@100 (50).
cat > "$D/ev.json" << 'EOF'
{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"},{"name":"b"},{"name":"c"}]},
"profiles":[{"type":"evented","name":"main","unit":"milliseconds","startValue":0,"endValue":150,
"events":[{"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":10},{"type":"C","frame":1,"at":30},{"type":"C","frame":0,"at":40},{"type":"O","frame":2,"at":100},{"type":"C","frame":2,"at":150}]}]}
EOF
run --collapse --time=0.005,0.035 "$D/ev.json"
expect_rc "speedscope evented --time=5ms,35ms" 0
printf 'a 10\na;b 20\n' > "$D/want"
expect_out "speedscope evented --time=5ms,35ms: a;b@10 and a@30" "$D/want"
run --collapse --time=0.035,1 "$D/ev.json"
printf 'c 50\n' > "$D/want"
expect_out "speedscope evented --time=35ms,1s: c@100" "$D/want"
# three profiles: p1 evented ms (a@0, 10), p2 sampled ms from startValue
# 5 (b@5 weighs 4, a;b@9 weighs 6), p3 in "none" (no times)
cat > "$D/three.json" << 'EOF'
{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"},{"name":"b"}]},
"profiles":[{"type":"evented","name":"p1","unit":"milliseconds","startValue":0,"endValue":10,"events":[{"type":"O","frame":0,"at":0},{"type":"C","frame":0,"at":10}]},
{"type":"sampled","name":"p2","unit":"milliseconds","startValue":5,"endValue":20,"samples":[[1],[0,1]],"weights":[4,6]},
{"type":"sampled","name":"p3","unit":"none","startValue":0,"endValue":2,"samples":[[1]],"weights":[2]}]}
EOF
run --collapse --time=0.004,0.01 "$D/three.json"
printf 'p2;a;b 6\np2;b 4\n' > "$D/want"
expect_out "speedscope sampled --time=4ms,10ms: p2's samples at 5 and 9 ms" "$D/want"
run --collapse --only-comm=p2 "$D/three.json"
expect_out "speedscope --only-comm=p2: a profile is a thread" "$D/want"
run --collapse --only-tid=1 "$D/three.json"
printf 'p1;a 10\n' > "$D/want"
expect_out "speedscope --only-tid=1: the first profile" "$D/want"
run --collapse --profile=p2 --time=0.004,1 "$D/three.json"
printf 'a;b 6\n' > "$D/want"
expect_out "speedscope --profile=p2 --time: from p2's first sample (5 ms)" "$D/want"

# ---- Chrome trace ProfileChunk events: times (worked by hand) ----
# pid 1's profile starts at 1000 us: main@1010, main;work@1020 and @1030,
# a later chunk main;work@1035; pid 7's has no Profile event (start 0):
# other@100, @150. The first sample is other@100 us: times below are
# from it.
cat > "$D/trace.json" << 'EOF'
{"traceEvents":[
{"args":{"data":{"startTime":1000}},"id":"0x1","name":"Profile","ph":"P","pid":1,"tid":2},
{"args":{"data":{"cpuProfile":{"nodes":[{"callFrame":{"functionName":"(root)"},"id":1},{"callFrame":{"functionName":"main"},"id":2,"parent":1},{"callFrame":{"functionName":"work"},"id":3,"parent":2}],"samples":[2,3,3]},"timeDeltas":[10,10,10]}},"id":"0x1","name":"ProfileChunk","ph":"P","pid":1,"tid":2},
{"args":{"data":{"cpuProfile":{"nodes":[{"callFrame":{"functionName":"(root)"},"id":1},{"callFrame":{"functionName":"other"},"id":2,"parent":1}],"samples":[2,2]},"timeDeltas":[100,50]}},"id":"0x1","name":"ProfileChunk","ph":"P","pid":7,"tid":8},
{"args":{"data":{"cpuProfile":{"samples":[3]},"timeDeltas":[5]}},"id":"0x1","name":"ProfileChunk","ph":"P","pid":1,"tid":2}]}
EOF
run --collapse --time=0.0009,0.000925 "$D/trace.json"
expect_rc "Chrome trace --time=910us,925us" 0
printf 'main 1\nmain;work 1\n' > "$D/want"
expect_out "Chrome trace --time=910us,925us: main@1010 and main;work@1020" "$D/want"
run --collapse --time=0,0.0001 "$D/trace.json"
printf 'other 2\n' > "$D/want"
expect_out "Chrome trace --time=0,100us: pid 7's two samples" "$D/want"
run --collapse --only-pid=1 --time=0.00093,1 "$D/trace.json"
printf 'main;work 2\n' > "$D/want"
expect_out "Chrome trace --only-pid=1 --time=930us,: the deltas sum across chunks" "$D/want"

# ---- a real Chrome trace (node's ProfileChunk events), by Python ----
if command -v python3 > /dev/null 2>&1; then
	tr="$top_srcdir/tests/data/cpuprofile/node-trace.json"
	for range in ',' 0,0.1 0.05,0.25 '0.2,' '0.3,'; do
		python3 "$top_srcdir/tests/data/cpuprofile/trace_expected.py" "$tr" "$range" > "$D/want"
		run --collapse --time="$range" "$tr"
		expect_out "node-trace.json --time=$range (by Python over the chunks' timeDeltas)" "$D/want"
	done
else
	skip "Chrome trace --time against Python" "no python3"
fi

done_testing
