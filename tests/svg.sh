#!/bin/sh
# tests/svg.sh: tflame --svg[=FILE]: the document's frames and geometry
# (worked out by hand below), --svg=FILE, --inverted, --width, colour
# rules, --diff, and well-formed XML on hostile names (xmllint and
# Python's xml.etree when installed; SKIP with the reason otherwise).
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/lib.sh"

"$TFLAME" --list-options 2>/dev/null | grep -q "^svg	" || skip_all "this tflame has no --svg option"
D=$T_TMP

# xml NAME FILE: xmllint --noout and xml.etree, or SKIP.
xml() {
	if command -v xmllint >/dev/null 2>&1; then
		if xmllint --noout "$2" 2> "$D/xmllint.err"; then pass "$1: xmllint"
		else fail "$1: xmllint" "$(head -20 "$D/xmllint.err")"; fi
	else
		skip "$1: xmllint" "xmllint is not installed (Debian: libxml2-utils)"
	fi
	if command -v python3 >/dev/null 2>&1; then
		if python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$2" 2> "$D/py.err"
		then pass "$1: xml.etree"
		else fail "$1: xml.etree" "$(tail -5 "$D/py.err")"; fi
	else
		skip "$1: xml.etree" "python3 is not installed"
	fi
}
# has NAME FILE STRING: FILE contains STRING (fixed string).
has() {
	if grep -qF -- "$3" "$2"; then pass "$1"
	else fail "$1" "want: $3" "$(grep -F '<title>' "$2" | head -12)"; fi
}

cat > "$D/p.folded" <<'X'
main;eval;add 5
main;eval 1
main;parse;lex 3
main;parse 2
main 1
other 2
X
# Total 14 at width 1200: 1180 px inside 10 px margins, 1180/14 = 84.2857 px
# a sample, ends rounded to 0.01 px. Levels: all 0, main other 1, eval
# parse 2, add lex 3; height 36 + 4 * 16 + 34 = 134; flame y = 36 +
# (3 - level) * 16: all 84, main 68, parse 52, lex 36.
#   main  [0,12)  x 10        width 1011.43  (12 * 84.2857 = 1011.43)
#   other [12,14) x 1021.43   width 168.57
#   parse [6,11)  x 515.71    width 421.43   (6 * 84.2857 = 505.71)
#   lex   [6,9)   x 515.71    width 252.86   (end 9 * 84.2857 + 10 = 768.57)
"$TFLAME" --svg "$D/p.folded" > "$D/p.svg" 2> "$D/err"; rc=$?
check "--svg: exit 0" test "$rc" -eq 0
check "--svg: nothing on stderr" test ! -s "$D/err"
check "--svg: an XML document" sh -c 'head -1 "$1" | grep -q "^<?xml " && tail -1 "$1" | grep -qx "</svg>"' sh "$D/p.svg"
check "--svg: one <title> per frame (7)" test "$(grep -c '<title>' "$D/p.svg")" -eq 7
has "--svg: 1200 x 134" "$D/p.svg" 'width="1200" height="134"'
has "--svg: all" "$D/p.svg" '<title>all (14 samples, 100.00%)</title><rect x="10" y="84" width="1180" height="15"'
has "--svg: main" "$D/p.svg" '<title>main (12 samples, 85.71%)</title><rect x="10" y="68" width="1011.43" height="15"'
has "--svg: other" "$D/p.svg" '<title>other (2 samples, 14.29%)</title><rect x="1021.43" y="68" width="168.57" height="15"'
has "--svg: parse" "$D/p.svg" '<title>parse (5 samples, 35.71%)</title><rect x="515.71" y="52" width="421.43" height="15"'
has "--svg: lex" "$D/p.svg" '<title>lex (3 samples, 21.43%)</title><rect x="515.71" y="36" width="252.86" height="15"'
has "--svg: label" "$D/p.svg" '<text x="518.71" y="46.5">lex</text>'
has "--svg: a script" "$D/p.svg" '<script type="text/ecmascript"><![CDATA['
xml "--svg" "$D/p.svg"

"$TFLAME" --svg="$D/file.svg" "$D/p.folded" > "$D/stdout" 2> "$D/err"; rc=$?
check "--svg=FILE: exit 0" test "$rc" -eq 0
check "--svg=FILE: nothing on stdout" test ! -s "$D/stdout"
same "--svg=FILE: the same document in FILE" "$D/file.svg" "$D/p.svg"

# Icicle: y = 36 + level * 16: main 52, lex 84.
"$TFLAME" --svg --inverted "$D/p.folded" > "$D/i.svg"
has "--svg --inverted: main one level below the top" "$D/i.svg" '<title>main (12 samples, 85.71%)</title><rect x="10" y="52"'
has "--svg --inverted: lex at the bottom" "$D/i.svg" '<title>lex (3 samples, 21.43%)</title><rect x="515.71" y="84"'

# -w 600: 580 px, 12 * 580 / 14 = 497.14.
"$TFLAME" --svg -w 600 "$D/p.folded" > "$D/w.svg"
has "--svg -w 600: image width" "$D/w.svg" '<svg version="1.1" width="600" height="134"'
has "--svg -w 600: main" "$D/w.svg" '<title>main (12 samples, 85.71%)</title><rect x="10" y="68" width="497.14"'

"$TFLAME" --svg --color-rule='^main$=#123456' "$D/p.folded" > "$D/c.svg"
has "--svg --color-rule" "$D/c.svg" '<title>main (12 samples, 85.71%)</title><rect x="10" y="68" width="1011.43" height="15" fill="#123456"/>'

# --diff: b's self grew from 1 to 2, the largest change: full red,
# (255, 215 - 175, 40); a is unchanged: (230, 230, 230).
printf 'a;b 1\na 1\n' > "$D/before.folded"
printf 'a;b 2\na 1\n' > "$D/after.folded"
"$TFLAME" --svg --diff "$D/before.folded" "$D/after.folded" > "$D/d.svg"
has "--svg --diff: grew is red" "$D/d.svg" 'fill="#ff2828"'
has "--svg --diff: unchanged is white" "$D/d.svg" 'fill="#e6e6e6"'
"$TFLAME" --svg --diff --negate "$D/before.folded" "$D/after.folded" > "$D/n.svg"
has "--svg --diff --negate: blue" "$D/n.svg" 'fill="#2828ff"'
xml "--svg --diff" "$D/d.svg"

# Hostile names: control bytes, invalid UTF-8, XML specials, the CDATA end,
# a script end tag, a C1 control, a 100,000-byte name.
{
	printf 'main;\001ctl\033[31m;\377\376bad 3\n'
	printf 'main;]]>;</script> 2\n'
	printf 'main;a&b<c>"'"'"' 1\n'
	printf 'main;\302\205c1;\355\240\200surrogate 1\n'
	printf 'main;%s 1\n' "$(head -c 100000 /dev/zero | tr '\0' L)"
} > "$D/h.folded"
"$TFLAME" --svg "$D/h.folded" > "$D/h.svg" 2> "$D/err"; rc=$?
check "hostile: exit 0" test "$rc" -eq 0
xml "hostile" "$D/h.svg"
check "hostile: no raw control byte" sh -c '! tr -d "\n\t" < "$1" | LC_ALL=C grep -q "$(printf "[\001-\037\177]")"' sh "$D/h.svg"
check "hostile: the only ]]> ends the script" test "$(grep -c ']]>' "$D/h.svg")" -eq 1
has "hostile: </script> escaped" "$D/h.svg" '<title>&lt;/script&gt; ('
has "hostile: control bytes as ^ escapes" "$D/h.svg" '<title>^Actl^[[31m ('
check "hostile: the long name is there, its label cut" grep -q 'LLLLLLLL\.\.</text>' "$D/h.svg"

# Not a UTF-8 locale: the document stays UTF-8 (U+FFFD, not '?').
LC_ALL=C "$TFLAME" --svg "$D/h.folded" > "$D/hc.svg"
has "hostile, C locale: invalid UTF-8 as U+FFFD" "$D/hc.svg" "$(printf '<title>\357\277\275\357\277\275bad (')"
xml "hostile, C locale" "$D/hc.svg"

"$TFLAME" --svg="$D/no/such/dir/x.svg" "$D/p.folded" > /dev/null 2> "$D/err"; rc=$?
check "--svg=FILE in a missing directory: exit 1" test "$rc" -eq 1
check "--svg=FILE in a missing directory: a message" grep -q 'x.svg' "$D/err"

done_testing
