#!/bin/sh
# tests/browse.sh: what the browser tells at a glance (issue 18), headless
# (--script; the dumps are the screen as text). Every expectation is worked
# out by hand from tests/ui/basic.folded (100 samples: at 100 columns a
# sample is a column; its header gives the tree) and search.folded.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/lib.sh"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
D=$T_TMP
B=$top_srcdir/tests/ui/basic.folded
S=$top_srcdir/tests/ui/search.folded
SEP='  ·  '
cd "$D" || exit 1

# line N of the out file (1-based)
line() { sed -n "${1}p" "$D/out"; }
# is NAME N WANT: line N is WANT exactly
is() {
	if [ "$(line "$2")" = "$3" ]; then pass "$1"; else fail "$1" "want: |$3|" "got:  |$(line "$2")|"; fi
}
# starts NAME N WANT: line N starts with WANT
starts() {
	case $(line "$2") in "$3"*) pass "$1" ;; *) fail "$1" "want: |$3...|" "got:  |$(line "$2")|" ;; esac
}

# ---- p: the hot path ----
# From all: main 80 (not idle 20), parse 50 (not init 10, run 20),
# parse_expr 30 (not lex 20), parse_term 20 (its only child), alloc_node 8.
printf 'size=100x30 p dump p dump q\n' > keys
run --script=keys "$B"
expect_rc "p" 0
starts "p: all > main > parse > parse_expr > parse_term > alloc_node" 30 "alloc_node${SEP}8 samples${SEP}8.00% of all"
is "p at a leaf: says there is nothing to follow" 60 "no callee to follow from here"

# ---- S: the most self in view ----
# idle and next_token have 20 self each, the most; idle comes first. Zoomed
# into main (l from idle selects main, Enter), idle is out of view:
# next_token, 20 of main's 80 (25%).
printf 'size=100x30 S dump l Enter S dump q\n' > keys
run --script=keys "$B"
starts "S: idle, 20 self (first of the two)" 30 "idle${SEP}20 samples${SEP}20.00% of all"
starts "S zoomed into main: next_token" 60 "next_token${SEP}20 samples${SEP}20.00% of all${SEP}25.00% of view"

# ---- d: the details ----
# k k k l: main, parse, lex (under column 49), parse_expr. The details take
# rows 24-28 of 30 (3 for the name, 2 for numbers): total 30, 30% of all
# and of the (unzoomed) view, 30 of parse's 50 = 60%; self 10; depth 3;
# its only caller is parse.
printf 'size=100x30 k k k l d dump p dump 0 d dump q\n' > keys
run --script=keys "$B"
is "d: the name" 25 "parse_expr"
is "d: the name needs one row of three" 26 ""
is "d: total, % of all, of view, of parent" 28 \
	"total 30 samples${SEP}30.00% of all${SEP}30.00% of view${SEP}60.00% of parent"
is "d: self, depth, callers" 29 "self 10 samples (10.00% of all)${SEP}depth 3${SEP}1 distinct caller of the function"
starts "d: the status line stays" 30 "parse_expr${SEP}30 samples"
# p from parse_expr: parse_term, alloc_node (8 of parse_term's 20 = 40%);
# alloc_node is called by parse_term and by eval.
is "d follows the selection: alloc_node's total" 58 \
	"total 8 samples${SEP}8.00% of all${SEP}8.00% of view${SEP}40.00% of parent"
is "d: alloc_node has 2 distinct callers" 59 \
	"self 8 samples (8.00% of all)${SEP}depth 5${SEP}2 distinct callers of the function"
# 0 d: unzoomed, details hidden: row 27 is the graph's level 1 again
is "d again: hidden, the graph has its rows back" 88 "$(printf '%-20s%s' idle main)"

# A name of 250 characters wraps over the 3 name rows (100, 100, 50); one of
# 400 ends its third row with "..": 98 characters and the dots.
long=$(awk 'BEGIN { for (i = 0; i < 250; i++) printf "%c", 97 + i % 26 }')
longer=$(awk 'BEGIN { for (i = 0; i < 400; i++) printf "%c", 65 + i % 26 }')
printf 'main;%s 1\nmain;%s 1\n' "$long" "$longer" > long.folded
# By name, the upper-case one comes first: k k selects it, l the other.
printf 'size=100x30 k k d dump l dump q\n' > keys
run --script=keys long.folded
is "d: a 400-character name, row 1 of 3" 25 "$(printf '%s' "$longer" | cut -c1-100)"
is "d: row 2 of 3" 26 "$(printf '%s' "$longer" | cut -c101-200)"
is "d: row 3 of 3, cut with .. at its end" 27 "$(printf '%s' "$longer" | cut -c201-298).."
is "d: a 250-character name, row 1 of 3" 55 "$(printf '%s' "$long" | cut -c1-100)"
is "d: row 2 of 3" 56 "$(printf '%s' "$long" | cut -c101-200)"
is "d: row 3 of 3, the last 50" 57 "$(printf '%s' "$long" | cut -c201-250)"

# ---- levels off screen, PageUp, Ctrl-D ----
# 100x6: 4 rows of graph, levels 0-3 shown; frames go to level 5
# (alloc_node under parse_term, 8 columns): 2 more, drawn from column 85
# (100 - 15). PageUp moves 3 rows up under column 49: main, parse, lex;
# lex's child needs level 4, so levels 1-4 show: 1 more above, 1 below.
# Ctrl-D moves 2 down: parse, main; level 0 comes back into view.
printf 'size=100x6 dump PgUp dump C-d dump q\n' > keys
run --script=keys "$B"
is "levels beyond the screen: said on the top line" 1 "all$(printf '%82s' '')▲ 2 more levels"
is "PageUp: a level hidden each way" 7 "all$(printf '%67s' '')▲ 1 more level  ▼ 1 more level"
starts "PageUp: 3 rows up, lex" 12 "lex${SEP}20 samples"
is "Ctrl-D: back to 2 more levels above" 13 "all$(printf '%82s' '')▲ 2 more levels"
starts "Ctrl-D: 2 rows down, main" 18 "main${SEP}80 samples"

# ---- search: the share while typing, the heaviest match in view ----
# In beta (k k: main, then beta under column 49; Enter), /work matches
# main;alpha;work 297, beta;Work 100 and beta;work 200 (597 of 1000). Enter
# selects the heaviest in view, beta;work: the 3rd match in preorder (the
# first from the selection would be Work, the 2nd).
printf 'size=100x30 k k Enter / type=work dump Enter dump q\n' > keys
run --script=keys "$S"
is "typing: the count and the share of samples" 30 "/work  3 matches${SEP}59.70% of samples"
starts "Enter: the heaviest match in view, beta;work" 60 \
	"/work/  match 3 of 3${SEP}59.70% of samples (100.00% of view)"

# ---- nothing to undo; x on every sample ----
printf 'size=100x30 u dump q\n' > keys
run --script=keys "$B"
is "u with nothing to undo says so" 30 "already showing all samples: nothing to undo"
printf 'main;a 3\nmain;b 1\n' > one.folded
printf 'size=60x8 k x dump q\n' > keys
run --script=keys one.folded
is "x on the frame that has every sample: refused" 8 "not dropped: every sample is in it, nothing would be left"
is "x refused: no transform in the breadcrumb" 1 "all"

# ---- --top implies the table ----
run --print --top=3 "$B"
expect_rc "--top=3 --print" 0
# by self: idle 20, next_token 20 (ties by total, then name), alloc_node 13
awk 'NR > 1 { print $NF }' "$D/out" | tr '\n' ' ' > got
printf 'idle next_token alloc_node ' > want
same "--top=3 --print: the table's first 3 rows" got want
run --print --top=3 --view=flame "$B"
expect_rc "--top with another --view" 2
expect_err "--top with another --view" '^tflame: --top applies to the table: add --view=table$'

# ---- the table groups digits by thousands ----
# b 49,154,250,000 + c 1,234,567 = a's total 49,155,484,567 (14 columns)
printf 'a;b 49154250000\na;c 1234567\n' > big.folded
run --print --view=table big.folded
{
	printf '%14s %7s %14s %7s %7s  %s\n' SELF SELF% TOTAL TOTAL% CALLERS FUNCTION
	printf '%14s %7s %14s %7s %7s  %s\n' 49,154,250,000 100.00% 49,154,250,000 100.00% 1 b
	printf '%14s %7s %14s %7s %7s  %s\n' 1,234,567 0.00% 1,234,567 0.00% 1 c
	printf '%14s %7s %14s %7s %7s  %s\n' 0 0.00% 49,155,484,567 100.00% 1 a
} > want
expect_out "--print --view=table: counts grouped by thousands" want
printf 'size=80x10 Tab dump q\n' > keys
run --script=keys big.folded
is "the browser's table: grouped too" 3 \
	"$(printf '%14s %7s %14s %7s %7s  %s' 49,154,250,000 100.00% 49,154,250,000 100.00% 1 b)"
# At 60 columns the exact columns (2 x 14 + 27) would leave the names 5
# columns (under 24): the counts take their short form, 8 wide:
# 49,154,250,000 = 49.2 G, 49,155,484,567 = 49.2 G, 1,234,567 = 1.2 M.
printf 'size=60x8 Tab dump q\n' > keys
run --script=keys big.folded
is "a narrow table: the header, 8-wide count columns" 2 \
	"$(printf '%8s %7s %8s %7s %7s  %s' SELF SELF% TOTAL TOTAL% CALLERS FUNCTION)"
is "a narrow table: b, 49.2 G" 3 "$(printf '%8s %7s %8s %7s %7s  %s' '49.2 G' 100.00% '49.2 G' 100.00% 1 b)"
is "a narrow table: c, 1.2 M" 4 "$(printf '%8s %7s %8s %7s %7s  %s' '1.2 M' 0.00% '1.2 M' 0.00% 1 c)"

# ---- --diff in text: marks on the frames, before and delta in the table ----
# BEFORE/AFTER: grow 10 -> 40 (+300%), shrink 50 -> 20 (-60%), gone
# 20 -> 0, fresh 0 -> 20 (new); 80 samples each. At 80 columns a sample is
# one column: fresh [0,20), grow [20,60), shrink [60,80).
printf 'main;grow 10 40\nmain;shrink 50 20\nmain;gone 20 0\nmain;fresh 0 20\n' > n.diff
run --diff --print -w 80 n.diff
{
	echo 'diff: before 80  after 80  delta +0 (+0.00%)'
	echo 'all: 80 samples'
	printf '%-19s|%-39s|%-19s|\n' 'fresh new' 'grow +300%' 'shrink -60%'
	printf '%-79s|\n' main all
} > want
expect_out "--diff --print: each frame says how it changed" want
# By self: grow 40, then fresh and shrink 20 (equal totals: by name), main
# 0 with 80; gone, 0 in AFTER, was 20.
run --diff --print --view=table n.diff
{
	printf '%4s %7s %5s %7s %6s %5s %8s  %s\n' SELF SELF% TOTAL TOTAL% BEFORE DELTA DELTA% FUNCTION
	printf '%4s %7s %5s %7s %6s %5s %8s  %s\n' 40 50.00% 40 50.00% 10 +30 +300.00% grow
	printf '%4s %7s %5s %7s %6s %5s %8s  %s\n' 20 25.00% 20 25.00% 0 +20 new fresh
	printf '%4s %7s %5s %7s %6s %5s %8s  %s\n' 20 25.00% 20 25.00% 50 -30 -60.00% shrink
	printf '%4s %7s %5s %7s %6s %5s %8s  %s\n' 0 0.00% 80 100.00% 80 +0 +0.00% main
	printf '%4s %7s %5s %7s %6s %5s %8s  %s\n' 0 0.00% 0 0.00% 20 -20 -100.00% gone
} > want
expect_out "--diff --view=table: before, delta and its share" want
# the browser's table (Tab) too: counts 5 wide (the total, 80, and the
# header), BEFORE 6 (its header), DELTA one more for the sign
printf 'size=90x10 Tab dump q\n' > keys
run --diff --script=keys n.diff
is "--diff, the browser's table: its header" 2 \
	"$(printf '%5s %7s %5s %7s %6s %7s %8s  %s' SELF SELF% TOTAL TOTAL% BEFORE DELTA DELTA% FUNCTION)"
is "--diff, the browser's table: grow" 3 \
	"$(printf '%5s %7s %5s %7s %6s %7s %8s  %s' 40 50.00% 40 50.00% 10 +30 +300.00% grow)"
is "--diff, the browser's table: gone, -100%" 7 \
	"$(printf '%5s %7s %5s %7s %6s %7s %8s  %s' 0 0.00% 0 0.00% 20 -20 -100.00% gone)"

# ---- a narrow status line: the amount in short form ----
# all: 49,155,484,567 samples. At 42 columns (41 usable) "all" (3), then
# "  ·  " + "49,155,484,567 samples" (29) and "  ·  " + "100.00% of all" (19)
# do not fit (51); "49.2 G samples" (19 with its separator) does (41). The
# details line keeps the exact count.
printf 'size=42x8 dump q\n' > keys
run --script=keys big.folded
starts "narrow: 49.2 G samples, and the share still fits" 8 "all${SEP}49.2 G samples${SEP}100.00% of all"

# ---- --unit: what folded counts are ----
# 1,500,000,000 + 500,000,000 = 2,000,000,000 of the unit
printf 'a;b 1500000000\na;c 500000000\n' > ns.folded
run --unit=ns --print -w 30 ns.folded
is "--unit=ns: the total as a time" 1 "all: 2.00 s"
printf 'size=80x8 dump q\n' > keys
run --unit=cycles --script=keys ns.folded
starts "--unit=cycles: counted in the status line" 8 "all${SEP}2,000,000,000 cycles${SEP}100.00% of all"
run --unit=bytes --script=keys ns.folded
starts "--unit=bytes: SI bytes" 8 "all${SEP}2.0 GB${SEP}100.00% of all"
run --unit='a b' --print ns.folded
expect_rc "--unit='a b'" 2
expect_err "--unit='a b'" "^tflame: --unit needs a word"

# ---- perf input: the samples beside the weight (item 1) ----
# w.perf: four samples of cpu-clock, their periods nanoseconds: a 100,000
# and 300,000 (thread 100), b 600,000 and main's own 60,000 (thread 101).
# all = main = 1,060,000 ns ("1.1 ms") in 4 samples; a 400,000 in 2; b
# 600,000 in 1 (56.60% of all); main's self 60,000 in 1 (5.66%).
cat > w.perf <<'PERF'
prog 100/100 [000] 1.000000: 100000 cpu-clock:
	ffffffff a (/bin/x)
	ffffffff main (/bin/x)

prog 100/100 [000] 1.100000: 300000 cpu-clock:
	ffffffff a (/bin/x)
	ffffffff main (/bin/x)

prog 100/101 [001] 1.200000: 600000 cpu-clock:
	ffffffff b (/lib/y.so)
	ffffffff main (/bin/x)

prog 100/101 [001] 1.300000: 60000 cpu-clock:
	ffffffff main (/bin/x)

PERF
# 100x12: the details take rows 9-11 (name, total, self); k k: main; k:
# its widest child b; f: focus on b
printf 'size=100x12 d dump k k dump k dump f dump q\n' > keys
run --script=keys w.perf
starts "perf details: the root's time and its 4 samples" 10 "total 1.1 ms cpu-clock in 4 samples${SEP}100.00% of all"
starts "perf details: main's self, 1 sample" 23 "self 60.0 µs cpu-clock in 1 sample (5.66% of all)"
starts "perf details: b, 600 us in 1 sample" 34 "total 600.0 µs cpu-clock in 1 sample${SEP}56.60% of all"
starts "perf details: focus on b counts its sample only" 46 "total 600.0 µs cpu-clock in 1 sample${SEP}100.00% of all"
# the status line counts them too: the root's 4, main's 4, b's 1
printf 'size=100x8 dump k k dump k dump q\n' > keys
run --script=keys w.perf
starts "perf status line: all, 4 samples" 8 "all${SEP}1.1 ms cpu-clock in 4 samples${SEP}100.00% of all"
starts "perf status line: main, 4 samples" 16 "main${SEP}1.1 ms cpu-clock in 4 samples${SEP}100.00% of all"
starts "perf status line: b, 1 sample" 24 "b${SEP}600.0 µs cpu-clock in 1 sample${SEP}56.60% of all"
# beyond TFLAME_SAMPLES_CHEAP samples the status line does not count them
# (a pass each time the tree changes), until the details pane has
printf 'size=100x12 dump d dump q\n' > keys
export TFLAME_SAMPLES_CHEAP=3
run --script=keys w.perf
unset TFLAME_SAMPLES_CHEAP
starts "perf status line over the bound: no count" 12 "all${SEP}1.1 ms cpu-clock${SEP}100.00% of all"
starts "perf status line over the bound: counted once the details have" 24 "all${SEP}1.1 ms cpu-clock in 4 samples${SEP}100.00% of all"
printf 'size=100x12 d dump q\n' > keys
run --only-tid=101 --script=keys w.perf
starts "perf details --only-tid=101: b and main's own" 10 "total 660.0 µs cpu-clock in 2 samples${SEP}100.00% of all"
# the object (perf's DSO) of the selected frame: the row above total
# (row 9 at 100x12: two name rows, then the object); main is in /bin/x, b
# in /lib/y.so, the root has none (its name rows are blank, row 9 too)
printf 'size=100x12 d dump k k dump k dump q\n' > keys
run --script=keys w.perf
is "perf details: no object for all" 9 ""
is "perf details: main is in /bin/x" 21 "object /bin/x"
is "perf details: b is in /lib/y.so" 33 "object /lib/y.so"
# "helper" from /bin/x in the first 200 records, /lib/y.so in the last 200:
# one frame, two objects, whether one thread reads them or pieces merge
awk 'BEGIN { for (i = 0; i < 400; i++) {
	printf "prog 100/100 [000] %.6f: 1000 cpu-clock:\n", 1 + i / 1000
	printf "\tffffffff helper (%s)\n\tffffffff f%d (/bin/x)\n\tffffffff main (/bin/x)\n\n", i < 200 ? "/bin/x" : "/lib/y.so", i % 7 } }' > two.perf
printf 'size=100x12 d k k k k dump q\n' > keys
for th in 1 2; do
	run --threads=$th --script=keys two.perf
	is "perf details, $th thread(s): a name in two objects says so" 9 "object: several (the name is in more than one)"
	# k goes up at the column of the selection: f3's 57 of the 400 records
	starts "perf details, $th thread(s): it is helper" 12 "helper${SEP}57.0 µs cpu-clock in 57 samples${SEP}14.25% of all"
done
# folded input names no object: the name has the three rows
printf 'size=100x12 d k dump q\n' > keys
run --script=keys "$B"
is "folded details: no object row" 9 ""

# the table at 60 columns: exact (9-wide "1,060,000") would leave 60 -
# (18 + 27) = 15 columns for names: times instead, 8 columns wide ("µs" is
# one column of two bytes)
printf 'size=60x8 Tab dump q\n' > keys
run --script=keys w.perf
is "a narrow table in time: b" 3 "600.0 µs  56.60% 600.0 µs  56.60%       1  b"
is "a narrow table in time: main" 5 " 60.0 µs   5.66%   1.1 ms 100.00%       1  main"
# the --print header counts the samples of what is shown
run --print -w 40 w.perf
is "--print: 4 samples and their time" 1 "all: 4 samples · 1.1 ms cpu-clock"
run --print -w 40 --only-tid=101 w.perf
is "--print --only-tid: the thread's 2 samples" 1 "all: 2 samples · 660.0 µs cpu-clock"
run --print -w 40 --focus=a w.perf
is "--print --focus: a's 2 samples" 1 "all: 2 samples · 400.0 µs cpu-clock"
run --print -w 40 --time=0.15,1 w.perf
is "--print --time: the last 2 samples" 1 "all: 2 samples · 660.0 µs cpu-clock"
# without periods each record weighs 1: samples, no event amount
sed 's/: [0-9]* cpu-clock:/: cpu-clock:/' w.perf > np.perf
run --print -w 40 np.perf
is "--print, no periods: samples" 1 "all: 4 samples"

# ---- stdin is named stdin ----
printf 'size=100x30 dump q\n' > keys
timeout 60 "$TFLAME" --script=keys - < "$B" > "$D/out" 2> "$D/err"
case $(line 30) in *"  stdin  ? help") pass "the status line names stdin" ;;
	*) fail "the status line names stdin" "$(line 30)" ;; esac

# ---- the help wraps at narrow widths ----
# 40 columns: the key column is 20 wide (half the screen), descriptions
# start at column 22 and wrap at a blank within 18 columns.
printf 'size=40x60 ? dump PgDn dump PgDn dump PgDn dump q\n' > keys
run --script=keys "$B"
is "help: a description wraps, row 1" 8 "$(printf '  %-20s%s' 'h, Left' 'select the frame')"
is "help: a description wraps, row 2, aligned" 9 "                      to the left"
# "s, u, Backspace, Tab, Esc" in 19 columns: 17 and "..", then the text
# from column 22, wrapped
grep -q '^  s, u, Backspace, \.\. back to the view$' "$D/out" &&
	pass "help: a long key list is cut to its column" ||
	fail "help: a long key list is cut to its column" "$(grep '^  s, u' "$D/out")"

done_testing
