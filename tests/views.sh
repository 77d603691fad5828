#!/bin/sh
# Batch forms of the views: --print --view=table|sandwich, the transform
# options (--reverse --focus --hide --merge-recursion, in command-line
# order, also for --collapse), --diff/--negate/--normalize, and their
# errors. Expected outputs are worked out by hand from tests/ui/views.folded:
#   all 100 = idle 30 + main 70; main = init 10 + parse 30 + run 30;
#   parse = lex 20 + parse 10 > lex 10; run = self 25 + lex 5.
. "${top_srcdir:-.}/tests/lib.sh"
F="$top_srcdir/tests/ui/views.folded"

# ---- table ----
# lex: self 20 + 10 + 5 = 35 = total, callers parse and run; parse: total
# 30 with the nested parse counted once, callers main and parse. Counts
# are 4 wide (the header word SELF) and 5 (TOTAL).
cat > "$T_TMP/want" <<'X'
SELF   SELF% TOTAL  TOTAL% CALLERS  FUNCTION
  35  35.00%    35  35.00%       2  lex
  30  30.00%    30  30.00%       1  idle
  25  25.00%    30  30.00%       1  run
  10  10.00%    10  10.00%       1  init
   0   0.00%    70  70.00%       1  main
   0   0.00%    30  30.00%       2  parse
X
"$TFLAME" --print --view=table "$F" > "$T_TMP/got" 2>&1
same "--view=table: by self, recursion once, callers" "$T_TMP/got" "$T_TMP/want"
printf '%s\n' "SELF   SELF% TOTAL  TOTAL% CALLERS  FUNCTION" \
	"   0   0.00%    70  70.00%       1  main" "  35  35.00%    35  35.00%       2  lex" > "$T_TMP/want"
"$TFLAME" --print --view=table --table-sort=total --top=2 "$F" > "$T_TMP/got" 2>&1
same "--table-sort=total --top=2" "$T_TMP/got" "$T_TMP/want"
"$TFLAME" --print --view=table --table-sort=name "$F" | sed -n '2p;7p' > "$T_TMP/got"
printf '%s\n' "  30  30.00%    30  30.00%       1  idle" "  25  25.00%    30  30.00%       1  run" > "$T_TMP/want"
same "--table-sort=name: idle first, run last" "$T_TMP/got" "$T_TMP/want"

# ---- sandwich ----
# Callers of parse: parse;main 30 (the nested parse is inside the outer
# one). Callees: parse 30 = lex 20 [0,20) + parse 10 [20,30) > lex; at 30
# columns one sample is one column; a frame ends with '|'.
cat > "$T_TMP/want" <<'X'
callers of parse: 30 samples, 30.00% of all
main                         |
parse                        |
callees of parse:
parse                        |
lex                |parse    |
                    lex      |
X
"$TFLAME" --print -w 30 --view=sandwich=parse "$F" > "$T_TMP/got" 2>&1
same "--view=sandwich=parse: callers above, callees below" "$T_TMP/got" "$T_TMP/want"
"$TFLAME" --print -w 30 --view=sandwich "$F" | head -1 > "$T_TMP/got"
echo "callers of lex: 35 samples, 35.00% of all" > "$T_TMP/want"
same "--view=sandwich: the function with most self samples (lex)" "$T_TMP/got" "$T_TMP/want"
"$TFLAME" --print --view=sandwich=nosuch "$F" > "$T_TMP/got" 2> "$T_TMP/err"
rc=$?
check "--view=sandwich=nosuch: exit 1" test "$rc" -eq 1
check "--view=sandwich=nosuch: message" grep -qx "tflame: no frame named 'nosuch'" "$T_TMP/err"

# ---- transforms ----
printf '%s\n' "idle 30" "init;main 10" "lex;parse;main 20" "lex;parse;parse;main 10" \
	"lex;run;main 5" "run;main 25" > "$T_TMP/want"
"$TFLAME" --collapse --reverse "$F" > "$T_TMP/got" 2>&1
same "--reverse: leaf to root" "$T_TMP/got" "$T_TMP/want"
echo "lex 35" > "$T_TMP/want"
"$TFLAME" --collapse --focus=lex "$F" > "$T_TMP/got" 2>&1
same "--focus=lex merges its three call sites" "$T_TMP/got" "$T_TMP/want"
printf '%s\n' "idle 30" "main;init 10" "main;lex 30" "main;run 25" "main;run;lex 5" > "$T_TMP/want"
"$TFLAME" --collapse --hide='^parse$' "$F" > "$T_TMP/got" 2>&1
same "--hide: children move to the caller" "$T_TMP/got" "$T_TMP/want"
printf '%s\n' "idle 30" "main;init 10" "main;parse;lex 30" "main;run 25" "main;run;lex 5" > "$T_TMP/want"
"$TFLAME" --collapse --merge-recursion "$F" > "$T_TMP/got" 2>&1
same "--merge-recursion: parse;parse;lex joins parse;lex" "$T_TMP/got" "$T_TMP/want"
# Order matters: focus then hide leaves lex; hide then focus finds no parse.
echo "lex 30" > "$T_TMP/want"
"$TFLAME" --collapse --focus=parse --hide='^parse$' "$F" > "$T_TMP/got" 2>&1
same "transforms apply in command-line order" "$T_TMP/got" "$T_TMP/want"
"$TFLAME" --collapse --hide='^parse$' --focus=parse "$F" > /dev/null 2> "$T_TMP/err"
rc=$?
check "--focus on a hidden name: exit 1" test "$rc" -eq 1
check "--focus on a hidden name: message" grep -qx "tflame: no frame named parse" "$T_TMP/err"
# A bad --hide regex is an option error, found before loading: exit 2,
# naming the option; in a config file, naming FILE:LINE as other config
# errors do (issue 21, defect 11).
"$TFLAME" --no-config --collapse --hide='[' "$F" > /dev/null 2> "$T_TMP/err"
rc=$?
check "--hide='[': exit 2" test "$rc" -eq 2
check "--hide='[': the message names --hide" grep -q "^tflame: --hide: invalid regex '\[': " "$T_TMP/err"
"$TFLAME" --no-config --collapse --hide='(' "$F" > /dev/null 2> "$T_TMP/err"
rc=$?
check "--hide='(': exit 2" test "$rc" -eq 2
check "--hide='(': the message names --hide" grep -q "^tflame: --hide: invalid regex '(': " "$T_TMP/err"
printf '# comment\nreverse\nhide = [\n' > "$T_TMP/hide.cfg"
"$TFLAME" --config="$T_TMP/hide.cfg" --collapse "$F" > /dev/null 2> "$T_TMP/err"
rc=$?
check "hide = [ in the config: exit 2" test "$rc" -eq 2
check "hide = [ in the config: FILE:3: --hide: ..." \
	grep -q "^tflame: $T_TMP/hide.cfg:3: --hide: invalid regex '\[': " "$T_TMP/err"
"$TFLAME" --print -w 10 --reverse "$F" | head -1 > "$T_TMP/got"
echo "all: 100 samples" > "$T_TMP/want"
same "--print --reverse keeps every sample" "$T_TMP/got" "$T_TMP/want"

# ---- diff ----
printf 'a;b 10\na;c 10\n' > "$T_TMP/before"
printf 'a;b 30\na;c 5\n' > "$T_TMP/after"
# 20 -> 35 samples: +15, +75%. Widths from AFTER: 35 samples, b 30 c 5.
# Each frame says its change: b 10 -> 30 (+200%), a and all 20 -> 35
# (+75%); c (10 -> 5, -50%) has 4 columns, too few for "c" and "-50%".
"$TFLAME" --print -w 35 --diff "$T_TMP/before" "$T_TMP/after" > "$T_TMP/got" 2>&1
cat > "$T_TMP/want" <<'X'
diff: before 20  after 35  delta +15 (+75.00%)
all: 35 samples
b +200%                      |c   |
a +75%                            |
all +75%                          |
X
same "--diff BEFORE AFTER: widths from AFTER, totals in the header" "$T_TMP/got" "$T_TMP/want"
"$TFLAME" --print -w 35 --diff --normalize "$T_TMP/before" "$T_TMP/after" | head -1 > "$T_TMP/got"
echo "diff: before 35  after 35  delta +0 (+0.00%)" > "$T_TMP/want"
same "--normalize scales BEFORE (20) to AFTER's total (35)" "$T_TMP/got" "$T_TMP/want"
"$TFLAME" --print -w 10 --diff "$top_srcdir/tests/ui/views.diff" | head -1 > "$T_TMP/got"
echo "diff: before 100  after 100  delta +0 (+0.00%)" > "$T_TMP/want"
same "--diff with one difffolded file" "$T_TMP/got" "$T_TMP/want"
"$TFLAME" --print -w 10 --threads=2 --diff "$top_srcdir/tests/ui/views.diff" | head -1 > "$T_TMP/got"
same "--diff with one difffolded file: read in one pass even with --threads" "$T_TMP/got" "$T_TMP/want"
"$TFLAME" --collapse --diff "$top_srcdir/tests/ui/views.diff" > "$T_TMP/got"
printf '%s\n' "main;grow 40" "main;same 40" "main;shrink 20" > "$T_TMP/want"
same "--collapse --diff: the AFTER stacks" "$T_TMP/got" "$T_TMP/want"

# ---- usage errors ----
for args in "--negate" "--normalize" "--view=bogus" "--table-sort=bogus" "--top=0"; do
	"$TFLAME" --print $args "$F" > /dev/null 2>&1
	rc=$?
	check "usage error: $args exits 2" test "$rc" -eq 2
done
"$TFLAME" --print --diff "$F" "$F" "$F" > /dev/null 2> "$T_TMP/err"
rc=$?
check "--diff with three files: exit 2" test "$rc" -eq 2

done_testing
