#!/bin/sh
# tests/golden/colour.sh: colour that carries meaning, what of it shows as
# text: the options, --print, the labels without their _[k] annotations,
# [kernel] [jit] [inlined] in the status line, the legend (L), the help's
# colour section, c cycling the palettes; the browser headless (--script).
# The colours themselves need a terminal: tests/ui/colour.sh. The fixture
# codetypes.folded has frames of every code type; its header gives the
# layout (100x30 screen, one sample a column, level L on line 28 - L).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/golden/hl.sh"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
[ -x "$TFLAME" ] || skip_all "$TFLAME is not built"
SEP='  ·  '

F="$top_srcdir/tests/ui/codetypes.folded"

# ---- without a terminal: options and --print ----

"$TFLAME" --print --width 100 "$F" > "$T_TMP/print" 2>&1
if grep -q '_\[' "$T_TMP/print"; then
	fail "--print: labels leave out the annotations" "$(cat "$T_TMP/print")"
else
	check "--print: labels leave out the annotations" grep -q '^do_syscall_64  *|Foo::bar  *|Foo::inl *|$' "$T_TMP/print"
fi
"$TFLAME" --collapse "$F" > "$T_TMP/collapse"
check "--collapse keeps the annotations" grep -qF 'Interpreter;do_syscall_64_[k];ksys_write_[k] 40' "$T_TMP/collapse"

"$TFLAME" --colors=nope --print "$F" > /dev/null 2> "$T_TMP/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "^tflame: invalid --colors 'nope' (hot, mem, io, wakeup, chain, java, js, perl, python, rust, red, green, blue, aqua, yellow, purple, orange)$" "$T_TMP/err"; then
	pass "--colors=nope: exit 2, the palettes listed"
else
	fail "--colors=nope: exit 2, the palettes listed" "rc=$rc" "$(cat "$T_TMP/err")"
fi
for p in hot mem io wakeup chain java js perl python rust red green blue aqua yellow purple orange; do
	"$TFLAME" --colors="$p" --print "$F" > /dev/null 2>&1 || { fail "--colors=$p is accepted"; continue; }
	pass "--colors=$p is accepted"
done
"$TFLAME" --color-rule='(=red' --print "$F" > /dev/null 2> "$T_TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^tflame: invalid --color-rule '(=red': " "$T_TMP/err" &&
	pass "--color-rule with a bad regex: exit 2 and why" ||
	fail "--color-rule with a bad regex: exit 2 and why" "rc=$rc" "$(cat "$T_TMP/err")"
"$TFLAME" --color-rule='main=pink' --print "$F" > /dev/null 2> "$T_TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^tflame: invalid --color-rule 'main=pink': unknown colour" "$T_TMP/err" &&
	pass "--color-rule with an unknown colour: exit 2" ||
	fail "--color-rule with an unknown colour: exit 2" "rc=$rc" "$(cat "$T_TMP/err")"
printf 'main->rgb(1,2,3)\nmain rgb(1,2,3)\n' > "$T_TMP/bad.map"
"$TFLAME" --palette-map="$T_TMP/bad.map" --print "$F" > /dev/null 2> "$T_TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$T_TMP/err")" = "tflame: $T_TMP/bad.map:2: expected NAME->rgb(R,G,B)" ] &&
	pass "--palette-map with a bad line: FILE:LINE and exit 2" ||
	fail "--palette-map with a bad line: FILE:LINE and exit 2" "rc=$rc" "$(cat "$T_TMP/err")"

# ---- java ----
hl_open 100 30 --colors=java "$F"
hl_status "java: opens" "all${SEP}100 samples"
hl_line "java: labels leave out _[k] and _[j]" 24 "$(printf '%-40s%-20s%s' do_syscall_64 Foo::bar Foo::inl)"
# Status line: k k k reaches the JIT frame under the middle column (49);
# h the kernel side, k its kernel callee.
hl_keys k k k
hl_status "java: the status line says [jit]" "java/lang/Thread::run [jit]${SEP}30 samples${SEP}30.00% of all"
hl_keys h k
hl_status "java: the status line says [kernel]" "do_syscall_64 [kernel]${SEP}40 samples${SEP}40.00% of all"
hl_keys l l
hl_status "java: the status line says [inlined]" "Foo::inl [inlined]${SEP}10 samples${SEP}10.00% of all"

# ---- legend ----
hl_keys L
hl_line "L: the legend line names the hues" \
	28 "java     Java/JIT     inlined     C++     kernel     native"
hl_line "L: the root moves up a line" 27 "all"
hl_keys L
hl_line "L again: the legend is gone" 28 "all"

# ---- ? lists the hues of the palette ----
hl_keys '?' G
hl_grep "?: a colour section names the palette" '^colours: java, code types of a JVM'
hl_grep "?: and what green means" '^ +Java and JIT code \(_\[j\]; java/ org/ a\.b\.C names\)$'
hl_keys q
hl_status "?: any key closes it" "Foo::inl [inlined]"

# ---- c cycles ----
hl_keys c
hl_status "c: the status line names the next palette" "palette js: code types of node/V8"
hl_keys c
hl_status "c again: perl" "palette perl: "
hl_keys l
hl_status "c: the notice goes with the next key" "Foo::inl [inlined]${SEP}"
hl_keys c*15
hl_status "c: 15 more wrap around to java (17 palettes)" "palette java: "
hl_keys q
hl_end

# ---- a real perf profile: --all --colors=java ----
# tests/data/nodefsync.perf.gz (see tests/ui/colour.sh): from the root, 22
# k go up the middle column to JS:*churn; l l reach JS:^fsyncSync, Enter
# zooms into it and k selects its callee.
if command -v gzip >/dev/null 2>&1; then
	gzip -dc "$top_srcdir/tests/data/nodefsync.perf.gz" > "$T_TMP/nodefsync.perf"
	hl_open 100 30 --all --colors=java -
	hl_stdin "$T_TMP/nodefsync.perf"
	hl_status "perf: opens" "all${SEP}817.8 ms cpu-clock"
	hl_keys k*22
	hl_status "perf: 22 k reach JS:*churn" "JS:*churn /tmp/colt/perf/work.js:3:15 [jit]${SEP}"
	hl_keys l l
	hl_status "perf: l l reach JS:^fsyncSync" "JS:^fsyncSync node:fs:1322:19 [jit]${SEP}"
	hl_keys Enter k
	# every sample of the recording has a period of 1,001,001 ns: 96.1 ms is 96
	hl_status "perf: zoomed, its callee selected" "Builtins_CEn..BuiltinExit${SEP}96.1 ms cpu-clock in 96 samples${SEP}11.75% of all"
	hl_expect "perf: no label shows an annotation" eval '! grep -q "_\[[kjiw]\]" "$HL_SCREEN"'
	hl_keys q
	hl_end
else
	skip "perf: a real profile" "gzip is not installed"
fi

# ---- the user's rules in the legend ----
printf '# our code\nInterpreter->rgb(0,0,255)\n' > "$T_TMP/team.map"
hl_open 100 30 --colors=java '--color-rule=^GCTask=#ff0000' "--palette-map=$T_TMP/team.map" "$F"
hl_status "rules: opens" "all${SEP}"
hl_keys L
hl_grep "rules: the legend lists the rule and the map" '^java .* native  rules:    \^GCTask  map: 1 name$'
hl_keys q
hl_end

# ---- NO_COLOR: the legend in words ----
hl_open 100 30 NO_COLOR=1 -- --colors=java "$F"
hl_status "NO_COLOR: opens" "all${SEP}100 samples"
hl_keys L
hl_line "NO_COLOR: the legend names the hues in words" \
	28 "java  green: Java/JIT  aqua: inlined  yellow: C++  orange: kernel  red: native"
hl_keys q
hl_end

# ---- one-cell frames ----
# narrow.folded, 100 samples on 100 columns: under "a" (line 27) the frames
# n1 n2 n3 (one sample, one column each: columns 0, 1, 2 of line 26) and
# "wide" (97 columns from column 3). A one-cell frame shows no text.
printf 'a;n1 1\na;n2 1\na;n3 1\na;wide 97\n' > "$T_TMP/narrow.folded"
hl_open 100 30 "$T_TMP/narrow.folded"
hl_status "narrow: opens" "all${SEP}100 samples"
hl_line "narrow: n1 n2 n3 are one blank cell each, then wide" 26 "   wide"
# k onto "a", k onto "wide" (under the middle), h: n3, now a dot.
hl_keys k k h
hl_status "narrow: h selects n3" "n3${SEP}1 sample${SEP}1.00% of all"
hl_line "narrow: the selected one-cell frame shows a dot" 26 "  ·wide"
hl_keys q
hl_end

done_testing
