#!/bin/sh
# tests/hostile.sh: inputs meant to break tflame (issue 5). Each case runs
# under `timeout` (bounded time), and checks the exit status, the message,
# that stderr carries no raw control byte, and that the valid lines around
# the bad ones are still loaded (through --collapse). Inputs are generated
# here at run time so the repository stays small. Expected outputs are
# worked out by hand in the comments.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/lib.sh"

command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
D=$T_TMP

# ---- empty input: a run that keeps no samples fails, saying so (issue 18
# item 9) ----
: > "$D/empty"
run --collapse "$D/empty"
expect_rc "empty file --collapse" 1
check "empty file --collapse: no output" test ! -s "$D/out"
expect_err "empty file --collapse" '^tflame: no samples in the input$'
run --print -w 20 "$D/empty"
expect_rc "empty file --print" 1
check "empty file --print: no output" test ! -s "$D/out"
expect_err "empty file --print" '^tflame: no samples in the input$'
run --collapse /dev/null
expect_rc "/dev/null (character device, empty)" 1

# ---- NUL bytes: inside a name they are data; a line of NULs is malformed ----
printf 'a\000b;c 3\n\000\000\000\nx;y 2\n' > "$D/nul"
run --collapse "$D/nul"
expect_rc "NUL bytes" 0
printf 'a\000b;c 3\nx;y 2\n' > "$D/want"
expect_out "NUL bytes: names keep them, valid lines loaded" "$D/want"
expect_err "NUL bytes" 'skipped 1 malformed line \(first at line 2: no sample count at the end of the line: "\^@\^@\^@"\)'
run --print -w 12 "$D/nul"
# 5 samples in 12 columns: a^@b [0,7) (3*12/5 = 7.2), x [7,12); labels get
# width-1 columns: "a^@b" is 4 of 6, "x" 1 of 4; row 1 c [0,7), y [7,12).
printf 'all: 5 samples\nc     |y   |\na^@b  |x   |\nall        |\n' > "$D/want"
expect_out "NUL bytes: --print shows ^@" "$D/want"

# ---- binary garbage (bytes 1..255 from a fixed generator, digits taken
# out so that no garbage line can end in a count) ----
LC_ALL=C awk 'BEGIN { x = 12345
	for (i = 0; i < 200000; i++) { x = (x * 1103515 + 12345) % 2147483648
		printf "%c", int(x / 65536) % 255 + 1 } }' | LC_ALL=C tr -d '0-9' > "$D/garbage"
run --collapse "$D/garbage"
expect_rc "binary garbage" 1
expect_err "binary garbage" '^tflame: .*garbage: not a profile: none of perf.data, perf script, folded, pprof, cpuprofile or speedscope \(line [0-9]+: '
check "binary garbage: no output" test ! -s "$D/out"
{ printf 'ok;first 2\n'; cat "$D/garbage"; printf '\nok;last 3\n'; } > "$D/garbage2"
run --collapse "$D/garbage2"
expect_rc "garbage between valid lines" 0
printf 'ok;first 2\nok;last 3\n' > "$D/want"
expect_out "garbage between valid lines: the valid lines are loaded" "$D/want"
expect_err "garbage between valid lines" 'skipped [0-9]+ malformed lines \(first at line 2: '
# issue 18 item 10: junk, NUL bytes and bad counts before good lines: the
# first lines that parse decide the format; the bad ones are reported with
# the first one's line number, the good ones loaded.
printf 'garbage here\n\000\000\000\nx;y abc\na;b -3\nmain;foo 5\nmain;bar 3\n' > "$D/junkfirst"
run --collapse "$D/junkfirst"
expect_rc "junk, NULs and bad counts before folded lines" 0
printf 'main;bar 3\nmain;foo 5\n' > "$D/want"
expect_out "junk before folded lines: the folded lines are loaded" "$D/want"
expect_err "junk before folded lines" \
	'skipped 4 malformed lines \(first at line 1: no sample count at the end of the line: "garbage here"\)'
# perf script after junk: prog's record, leaf first, is prog;start;main 7
printf 'junk line\n\000\000\nprog 12 1.000: 7 cycles:\n\t401000 main (/usr/bin/prog)\n\t401100 start (/usr/bin/prog)\n\n' \
	> "$D/junkperf"
run --collapse "$D/junkperf"
expect_rc "junk before perf script" 0
printf 'prog;start;main 7\n' > "$D/want"
expect_out "junk before perf script: the record is loaded" "$D/want"
expect_err "junk before perf script" 'skipped 2 malformed lines \(first at line 1: '
# a binary file keeps its message, whatever lines follow its header
{ printf '\177ELF\002\001\001\000\n'; printf 'main;foo 5\nmain 1\n'; } > "$D/elfish"
run --collapse "$D/elfish"
expect_rc "an ELF header, then folded lines" 1
expect_err "an ELF header, then folded lines" 'elfish: not a profile \(an ELF file'
{ printf '\211PNG\r\n\032\n'; printf 'main;foo 5\nmain 1\n'; } > "$D/pngish"
run --collapse "$D/pngish"
expect_rc "a PNG header, then folded lines" 1
expect_err "a PNG header, then folded lines" 'pngish: not a profile \(a PNG image\)'
run --collapse --format=perf "$D/garbage"
expect_rc "binary garbage read as perf script" 1
check "binary garbage read as perf script: no stacks" test ! -s "$D/out"
check "binary garbage read as perf script: clean messages" clean_err "$D/err"

# ---- a 10 MB single line: one name of 10,000,000 bytes ----
awk 'BEGIN { s = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	while (length(s) < 10000000) s = s s; printf "main;%s 5\n", substr(s, 1, 10000000) }' > "$D/long"
printf 'after 1\n' >> "$D/long"
run --collapse "$D/long"
expect_rc "10 MB line" 0
# Sorted: "after" < "main".
{ printf 'after 1\n'; head -1 "$D/long"; } > "$D/want"
expect_out "10 MB line: loaded whole, neighbour too" "$D/want"
# Through a pipe the stream reader must grow its buffer: before, a first
# line longer than the 64 KiB first block made it spin forever.
rc=0
cat "$D/long" | timeout -k 5 "$T" "$TFLAME" --collapse > "$D/out" 2> "$D/err" || rc=$?
expect_rc "10 MB line on a pipe" 0
expect_out "10 MB line on a pipe: loaded whole" "$D/want"
# The same line without a count: one malformed line, a short message.
{ printf 'a 1\n'; head -1 "$D/long" | sed 's/ 5$//'; printf 'b 2\n'; } > "$D/longbad"
run --collapse "$D/longbad"
expect_rc "10 MB malformed line" 0
printf 'a 1\nb 2\n' > "$D/want"
expect_out "10 MB malformed line: neighbours loaded" "$D/want"
expect_err "10 MB malformed line" 'skipped 1 malformed line \(first at line 2: .*xxxx\.\.'
check "10 MB malformed line: message stays short" test "$(wc -c < "$D/err")" -lt 400

# ---- 100,000 frames deep ----
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%sf%d", i ? ";" : "", i; printf " 7\nmain 1\n" }' > "$D/deep"
run --collapse "$D/deep"
expect_rc "100,000-frame stack" 0
# Byte order: "f0;..." < "main".
expect_out "100,000-frame stack: --collapse gives it back" "$D/deep"
run --print -w 16 "$D/deep"
expect_rc "100,000-frame stack --print" 0
# Header + the root row + 100,000 levels (f* is 14 of 16 columns wide).
check "100,000-frame stack --print: 100,002 lines" test "$(wc -l < "$D/out")" -eq 100002
check "100,000-frame stack --print: deepest frame on top" \
	test "$(sed -n 2p "$D/out")" = "f99999       |"

# ---- 1,000,000 siblings under one parent ----
awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "main;s%d 1\n", (i * 7919) % 1000000 }' > "$D/wide"
run --collapse "$D/wide"
expect_rc "1,000,000 siblings" 0
LC_ALL=C sort "$D/wide" > "$D/want"
expect_out "1,000,000 siblings: all loaded, byte order" "$D/want"
run --print -w 30 "$D/wide"
# Sibling k (byte order) covers samples [k, k+1), columns
# [floor(30k/1e6), floor(30(k+1)/1e6)): empty but for the 30 siblings whose
# end crosses a column boundary, one per column, each too narrow for a label.
printf 'all: 1000000 samples\n%s\n%-29s|\n%-29s|\n' '||||||||||||||||||||||||||||||' main all > "$D/want"
expect_out "1,000,000 siblings --print" "$D/want"

# ---- counts at and beyond 2^64 ----
printf 'max 18446744073709551615\n' > "$D/max"
run --collapse "$D/max"
expect_rc "count 2^64-1" 0
expect_out "count 2^64-1: exact" "$D/max"
expect_quiet "count 2^64-1"
printf 'big 18446744073709551616\nhuge 99999999999999999999999999999\nok 1\n' > "$D/big"
run --collapse "$D/big"
expect_rc "count 2^64 and beyond" 0
printf 'big 18446744073709551615\nhuge 18446744073709551615\nok 1\n' > "$D/want"
expect_out "count 2^64 and beyond: clamped to 2^64-1, never wrapped" "$D/want"
expect_err "count 2^64 and beyond" '2 sample counts too large, clamped to 18446744073709551615'
printf 'a 18446744073709551615\na 1\nb 1\n' > "$D/sum"
run --collapse "$D/sum"
expect_rc "sum beyond 2^64" 0
printf 'a 18446744073709551615\nb 1\n' > "$D/want"
expect_out "sum beyond 2^64: saturates" "$D/want"
expect_err "sum beyond 2^64" 'sample totals exceed 18446744073709551615 and were clamped'

# Fractional counts beyond 2^64 clamp too (their fraction goes): before,
# 1e400.5 became inf and was dropped, and two 1e308.5 summed to inf, whose
# inf/inf column was NaN. a and b are clamped, b's sum saturates.
printf 'a 1%0400d.5\nb 1%0308d.5\nb 1%0308d.5\nc 1\n' 0 0 0 > "$D/bigfrac"
run --collapse "$D/bigfrac"
expect_rc "fractional counts beyond 2^64" 0
printf 'a 18446744073709551615\nb 18446744073709551615\nc 1\n' > "$D/want"
expect_out "fractional counts beyond 2^64: clamped, not inf, not dropped" "$D/want"
expect_err "fractional counts beyond 2^64" '3 sample counts too large, clamped to 18446744073709551615'
run --print -w 20 "$D/bigfrac"
# The root saturates at 2^64-1 and so does a alone: a spans all 20 columns.
printf 'all: 18446744073709551615 samples\n%-19s|\n%-19s|\n' a all > "$D/want"
expect_out "fractional counts beyond 2^64 --print" "$D/want"

# ---- integers stay exact beside fractions, sums of decimals are exact ----
# As doubles, 2^53 + 1 read back as ...992, 0.1 + 0.2 as 0.30000000000000004
# and 2^64 - 2 beside a fraction as 18446744073709551616. The tree keeps
# decimal fixed point (one decimal here): all three exact.
printf 'a 9007199254740993\nb 0.1\nb 0.2\n' > "$D/dec"
run --collapse "$D/dec"
expect_rc "2^53 + 1 beside 0.1 + 0.2" 0
printf 'a 9007199254740993\nb 0.3\n' > "$D/want"
expect_out "2^53 + 1 beside 0.1 + 0.2: both exact" "$D/want"
expect_quiet "2^53 + 1 beside 0.1 + 0.2"
# No room for a decimal beside 2^64 - 2: the fraction is rounded (half up,
# so the sum is exactly 2^64 - 1) and the user told; the integer is kept.
printf 'a 18446744073709551614\nb 0.5\n' > "$D/dec"
run --collapse "$D/dec"
expect_rc "2^64 - 2 beside 0.5" 0
printf 'a 18446744073709551614\nb 1\n' > "$D/want"
expect_out "2^64 - 2 beside 0.5: the integer exact, the fraction rounded" "$D/want"
expect_err "2^64 - 2 beside 0.5" '1 count rounded to 0 decimals'
# Samples of the root alone (a stack of empty frames) are written " 3",
# which must read back as the same profile.
printf ';;;; 3\na;b 1\n' > "$D/rootonly"
run --collapse "$D/rootonly"
printf ' 3\na;b 1\n' > "$D/want"
expect_out "root samples: written as \" 3\"" "$D/want"
cp "$D/want" "$D/rootonly2"
run --collapse "$D/rootonly2"
expect_rc "root samples read back" 0
expect_out "root samples read back: the same profile" "$D/want"

# ---- counts that are not counts (SPEC.md §B.2: rejected as malformed) ----
printf 'ok;x 2\nneg -4\nnan NaN\nexp 1e999\ninf inf\nplus +3\nhex 0x10\n' > "$D/notcount"
run --collapse "$D/notcount"
expect_rc "negative, NaN, 1e999 counts" 0
printf 'ok;x 2\n' > "$D/want"
expect_out "negative, NaN, 1e999 counts: only the valid line" "$D/want"
expect_err "negative, NaN, 1e999 counts" 'skipped 6 malformed lines \(first at line 2: no sample count at the end of the line: "neg -4"\)'

# ---- invalid UTF-8 ----
printf 'ok \377\376;\303 2\nok;\355\240\200 1\n' > "$D/utf"
run --collapse "$D/utf"
expect_rc "invalid UTF-8" 0
printf 'ok \377\376;\303 2\nok;\355\240\200 1\n' | LC_ALL=C sort > "$D/want"
expect_out "invalid UTF-8: --collapse is byte-transparent" "$D/want"
run --print -w 40 "$D/utf"
expect_rc "invalid UTF-8 --print" 0
if command -v iconv >/dev/null 2>&1; then
	check "invalid UTF-8 --print: output is valid UTF-8" iconv -f UTF-8 -t UTF-8 "$D/out" -o /dev/null
else
	skip "invalid UTF-8 --print: output is valid UTF-8" "no iconv"
fi
check "invalid UTF-8 --print: U+FFFD shown" grep -q "$(printf '\357\277\275')" "$D/out"

# ---- names full of escapes and invisible characters ----
# ESC CSI (colour, cursor), OSC 0 (title) ended by BEL, OSC 52 (clipboard),
# backspace, C1 CSI (U+009B), bidi override (U+202E), zero-width space
# (U+200B) and joiner (U+200D).
printf 'evil\033[31mred\033[2J\033[H;\033]0;pwned\007t;\033]52;c;aGk=\033\\clip 4\nback\010\010sp;\302\2331m;rtl\342\200\256gnp.exe;z\342\200\213w\342\200\215j 3\nok 1\n' > "$D/esc"
run --collapse "$D/esc"
expect_rc "escape sequences" 0
LC_ALL=C sort "$D/esc" > "$D/want"
expect_out "escape sequences: --collapse is byte-transparent" "$D/want"
run --print -w 200 "$D/esc"
expect_rc "escape sequences --print" 0
check "escape sequences --print: no control byte reaches stdout" clean_err "$D/out"
check "escape sequences --print: no bidi or zero-width character" \
	eval '! LC_ALL=C grep -q "$(printf "\342\200[\213\215\256]")" "$D/out"'
check "escape sequences --print: visible ^[ and <U+...> escapes" \
	eval 'grep -qF "evil^[[31mred^[[2J^[[H" "$D/out" && grep -qF "<U+009B>1m" "$D/out" && grep -qF "rtl<U+202E>gnp.exe" "$D/out" && grep -qF "z<U+200B>w<U+200D>j" "$D/out" && grep -qF "back^H^Hsp" "$D/out"'
# A malformed line with escapes: the message shows them, visibly.
printf 'ok 1\n\033]0;pwned\007\033[2J no count\n' > "$D/escbad"
run --collapse "$D/escbad"
expect_err "escape sequences in a malformed line" 'first at line 2: .*"\^\[\]0;pwned\^G\^\[\[2J no count"'
# A file name with escapes: the message shows them, visibly.
run --collapse "$D/$(printf 'no\033]0;pwned\007such')"
expect_rc "escape sequences in a file name" 1
expect_err "escape sequences in a file name" 'no\^\[\]0;pwned\^Gsuch: No such file or directory'

# ---- wide CJK and emoji cut at odd widths ----
# One stack "日本語" (3 characters of 2 columns). The frame spans the whole
# width W and its label gets W-1 columns; cut labels are the longest prefix
# of width <= cols-2, "..", spaces to cols (text.h). W=7: all 6 columns fit;
# W=6: cols 5, "日" (2) ".." and a space; W=5: "日.."; W=4: cols 3, no
# character fits in 1 column: ".. "; the root "all" needs 3 of W-1.
printf '日本語 1\n' > "$D/cjk"
for w in 7 6 5 4; do
	case $w in
	7) frame='日本語|' root='all   |' ;;
	6) frame='日.. |' root='all  |' ;;
	5) frame='日..|' root='all |' ;;
	4) frame='.. |' root='all|' ;;
	esac
	run --print -w "$w" "$D/cjk"
	printf 'all: 1 samples\n%s\n%s\n' "$frame" "$root" > "$D/want"
	expect_out "CJK name cut at width $w" "$D/want"
done
# Emoji (2 columns each) and a combining sequence: "😀😀x" in 4 columns is
# "😀.." (2 + 2), and "e" + U+0301 stays whole.
printf '😀😀x;e\314\201 1\n' > "$D/emoji"
run --print -w 5 "$D/emoji"
printf 'all: 1 samples\ne\314\201   |\n😀..|\nall |\n' > "$D/want"
expect_out "emoji name cut at width 5" "$D/want"

# ---- a file truncated while it is mapped (SIGBUS without the guard) ----
# A 400,000-line file; once tflame has mapped it (seen in /proc/PID/maps) it
# is cut to 5,000 bytes. Lines read before the cut stay; the rest is gone.
awk 'BEGIN { for (i = 0; i < 400000; i++) printf "main;f%d;g%d 1\n", i % 1000, i }' > "$D/trunc"
if [ -r /proc/self/maps ]; then
	"$TFLAME" --collapse "$D/trunc" > "$D/out" 2> "$D/err" &
	pid=$!
	k=0
	while [ $k -lt 20000 ] && kill -0 $pid 2>/dev/null &&
		! grep -q "$D/trunc" "/proc/$pid/maps" 2>/dev/null; do k=$((k + 1)); done
	truncate -s 5000 "$D/trunc" 2>/dev/null || : > "$D/trunc"
	rc=0
	wait $pid || rc=$?
	if [ "$rc" -gt 128 ]; then
		fail "file truncated while mapped: no crash" "killed by signal $((rc - 128))"
	elif grep -q 'truncated while being read' "$D/err"; then
		pass "file truncated while mapped: no crash, exit status $rc"
		expect_err "file truncated while mapped" 'the file was truncated while being read; only the lines before the cut were loaded'
		# The line being parsed at the instant of the cut reads NUL bytes
		# from then on (source.h): it may come out with NULs in its names,
		# or, when its bytes and the line before's are both NULs by then,
		# as one more sample of the line before (count 2). Every other
		# line is one of the file's.
		lines=$(wc -l < "$D/out")
		odd=$(LC_ALL=C grep -Eavc '^main;f[0-9]+;g[0-9]+ 1$' "$D/out")
		if [ "$lines" -ge 1 ] && [ "$lines" -lt 400000 ] && [ "$odd" -le 1 ] &&
			{ [ "$odd" -eq 0 ] || LC_ALL=C grep -Eaq '^main;f[0-9]+;g[0-9]+ 2$' "$D/out" ||
			[ "$(LC_ALL=C grep -Eav '^main;f[0-9]+;g[0-9]+ 1$' "$D/out" | tr -cd '\000' | wc -c)" -gt 0 ]; }; then
			pass "file truncated while mapped: the $lines lines read before the cut are kept"
		else
			fail "file truncated while mapped: the lines read before the cut are kept" \
				"$lines lines, $odd odd" "$(LC_ALL=C grep -Eav '^main;f[0-9]+;g[0-9]+ 1$' "$D/out" | head -5 | od -c | head -20)"
		fi
	else
		skip "file truncated while mapped" "tflame finished before the file was cut (rc $rc)"
	fi
else
	skip "file truncated while mapped" "no /proc"
fi

# ---- a file that grows while read ----
# Starts with 100,000 lines "a;b 1"; a writer appends "grow;x 1" lines the
# whole time. The size seen at open is read; a line cut by the writer at
# that moment is at most one malformed line.
awk 'BEGIN { for (i = 0; i < 100000; i++) print "a;b 1" }' > "$D/grow"
( while :; do printf 'grow;x 1\ngrow;x 1\ngrow;x 1\ngrow;x 1\n' >> "$D/grow" || exit; done ) 2>/dev/null &
wpid=$!
run --collapse "$D/grow"
kill $wpid 2>/dev/null; wait $wpid 2>/dev/null
expect_rc "file growing while read" 0
check "file growing while read: the first 100,000 lines loaded" grep -qx 'a;b 100000' "$D/out"
check "file growing while read: nothing else but grow;x" eval '! grep -Evq "^(a;b 100000|grow;x [0-9]+)\$" "$D/out"'
check "file growing while read: at most one cut line" \
	eval '[ ! -s "$D/err" ] || grep -Eqx "tflame: .*: skipped 1 malformed line \\(first at line [0-9]+: .*\\)" "$D/err"'

# ---- what is not a regular file ----
run --collapse "$D"
expect_rc "directory" 1
expect_err "directory" "^tflame: $D: Is a directory\$"
if mkfifo "$D/fifo" 2>/dev/null; then
	( printf 'p;q 2\n' > "$D/fifo" ) &
	run --collapse "$D/fifo"
	wait
	expect_rc "FIFO" 0
	printf 'p;q 2\n' > "$D/want"
	expect_out "FIFO: read as a stream" "$D/want"
else
	skip "FIFO" "mkfifo failed"
fi
# /dev/zero: an endless line of NUL bytes; reading stops at 64 MiB of one
# line (source.h), whatever the format.
run --collapse /dev/zero
expect_rc "/dev/zero" 1
expect_err "/dev/zero" '^tflame: /dev/zero: a line longer than 64 MiB: not a text profile$'
run --collapse --format=folded /dev/zero
expect_rc "/dev/zero as folded" 1
rc=0
head -c 80000000 /dev/zero | timeout -k 5 "$T" "$TFLAME" --collapse > "$D/out" 2> "$D/err" || rc=$?
expect_rc "NUL bytes on a pipe" 1
expect_err "NUL bytes on a pipe" '^tflame: <stdin>: a line longer than 64 MiB: not a text profile$'

# Unreadable: root reads anything, so as root the file is read by an
# unprivileged user (setpriv), else the case is skipped.
printf 'a 1\n' > "$D/secret"
chmod 000 "$D/secret"
chmod 755 "$D"
if [ "$(id -u)" != 0 ]; then
	run --collapse "$D/secret"
	expect_rc "unreadable file" 1
	expect_err "unreadable file" "^tflame: $D/secret: Permission denied\$"
elif command -v setpriv >/dev/null 2>&1 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	rc=0
	timeout -k 5 "$T" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TFLAME" --collapse "$D/secret" > "$D/out" 2> "$D/err" || rc=$?
	if grep -q 'cannot open\|error while loading' "$D/err"; then
		skip "unreadable file" "the unprivileged user cannot run $TFLAME"
	else
		expect_rc "unreadable file (as an unprivileged user)" 1
		expect_err "unreadable file" "^tflame: $D/secret: Permission denied\$"
	fi
else
	skip "unreadable file" "running as root without setpriv"
fi
chmod 700 "$D"

# ---- streaming stdin keeps memory to the tree, not the stream ----
# The same 1,000 stacks repeated: 5 MB and then 50 MB through a pipe give
# the same tree, so the peak RSS (GNU time's %M, KB) may not grow with the
# stream; 4 MB of slack for allocator noise (a kept stream would add 45).
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
	awk 'BEGIN { for (i = 0; i < 1000; i++) printf "main;m%d;f%d;leaf%d %d\n", i % 10, i % 100, i, i % 7 + 1 }' > "$D/block"
	rss() { # MB of stream -> peak RSS in KB
		awk -v n="$1" 'BEGIN { while ((getline l < ARGV[1]) > 0) b = b l "\n"; ARGV[1] = ""
			for (i = 0; i < n * 1000000 / length(b); i++) printf "%s", b }' "$D/block" |
			/usr/bin/time -f %M -o "$D/rss" "$TFLAME" --collapse > "$D/out" 2> "$D/err"
		tail -1 "$D/rss"
	}
	small=$(rss 5) big=$(rss 50)
	if [ "$big" -le $((small + 4096)) ] && [ "$(wc -l < "$D/out")" -eq 1000 ]; then
		pass "streaming stdin: peak RSS ${small} KB for 5 MB, ${big} KB for 50 MB"
	else
		fail "streaming stdin: memory follows the tree" "5 MB: $small KB, 50 MB: $big KB, $(wc -l < "$D/out") stacks"
	fi
else
	skip "streaming stdin: memory follows the tree" "no GNU time"
fi

# ---- output to a closed pipe, SIGPIPE ignored (EPIPE): quiet ----
awk 'BEGIN { for (i = 0; i < 300000; i++) printf "s%d 1\n", i }' > "$D/many"
rc=$( (trap '' PIPE; "$TFLAME" --collapse "$D/many" 2> "$D/err"; echo $? > "$D/rc") | head -1 > /dev/null; cat "$D/rc")
check "EPIPE: exit status 1" test "$rc" -eq 1
expect_quiet "EPIPE"

done_testing
