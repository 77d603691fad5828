#!/bin/sh
# tests/ui/colour.sh: colour that carries meaning, in a real terminal (tmux,
# capture-pane -e): the colours themselves (what shows as text, the options
# and the keys: tests/golden/colour.sh, headless). The fixture codetypes.folded has frames of every code
# type; its header gives the layout (100x30 pane, one sample a column, level
# L on line 28 - L). Expected colours are worked out by hand from palette.h:
#   java, 256 colours: kernel is orange, r 190..255 g 90..155 b 0, so in
#     xterm's cube (levels 0 95 135 175 215 255; ties go to the lower level)
#     r 175/215/255, g 95/135: 130 136 166 172 202 208. JIT is green, g
#     200..255 -> 215/255, r = b 50..110 -> 95: 77 83. Inlined is aqua,
#     r 95, g = b 165..220 -> 175/215: 73 80.
#   java, 8 colours: kernel (orange) magenta 45, JIT green 42, inlined cyan 46.
#   java, 24-bit: the channels themselves (48;2;R;G;B) in those ranges.
#   #ff0000 in 256 colours is 196 (cube 5,0,0); rgb(0,0,255) is 21.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

F="$top_srcdir/tests/ui/codetypes.folded"
ESC=$(printf '\033')

tm_require

# The terminal type tm_start gives the pane (it decides the colours).
TERM_256=""
if infocmp tmux-256color >/dev/null 2>&1; then TERM_256=tmux-256color
elif infocmp screen-256color >/dev/null 2>&1; then TERM_256=screen-256color; fi


# Lines 0..N-1 of the last -e screen and line N up to TEXT: tmux carries
# attributes over line ends, so what is in force at TEXT may come from above.
sgr_upto() {
	local line prefix
	tm__e
	line=$(sed -n "$(($1 + 1))p" "$TM_SCREEN_E_FILE")
	prefix=${line%%"$2"*}
	[ "$prefix" = "$line" ] && { printf 'absent\n'; return; }
	[ "$1" -gt 0 ] && sed -n "1,$1p" "$TM_SCREEN_E_FILE"
	printf '%s\n' "$prefix"
}
# The background in force where TEXT starts on line N of the last -e
# screen: "5;N" (256), "2;R;G;B" (24-bit), "4N" (8), "" (none).
bg_of() {
	sgr_upto "$1" "$2" | grep -o "$ESC\[[0-9;]*m" | sed "s/^$ESC\[//; s/m\$//" | awk -F';' '
		{
			if (NF == 0) bg = ""
			for (i = 1; i <= NF; i++) {
				if ($i == 48 && $(i + 1) == 5) { bg = "5;" $(i + 2); i += 2 }
				else if ($i == 48 && $(i + 1) == 2) { bg = "2;" $(i + 2) ";" $(i + 3) ";" $(i + 4); i += 4 }
				else if ($i == 38) i += ($(i + 1) == 5) ? 2 : 4
				else if ($i ~ /^4[0-7]$/) bg = $i
				else if ($i == 49 || $i == 0 || $i == "") bg = ""
			}
		}
		END { print bg }'
}
# The last background set before TEXT on line N (a legend's swatch ends in
# a reset before its label).
swatch_of() {
	sgr_upto "$1" "$2" | grep -o "$ESC\[[0-9;]*m" | sed "s/^$ESC\[//; s/m\$//" | awk -F';' '
		{
			for (i = 1; i <= NF; i++) {
				if ($i == 48 && $(i + 1) == 5) { bg = "5;" $(i + 2); i += 2 }
				else if ($i == 48 && $(i + 1) == 2) { bg = "2;" $(i + 2) ";" $(i + 3) ";" $(i + 4); i += 4 }
				else if ($i == 38) i += ($(i + 1) == 5) ? 2 : 4
				else if ($i ~ /^4[0-7]$/) bg = $i
			}
		}
		END { print bg }'
}
swatch_in() {
	local n=$1 text=$2 got v
	shift 2
	got=$(swatch_of "$n" "$text")
	for v in "$@"; do [ "$got" = "$v" ] && return 0; done
	return 1
}
# bg_in N TEXT VALUE...: the background at TEXT is one of the VALUEs.
bg_in() {
	local n=$1 text=$2 got v
	shift 2
	got=$(bg_of "$n" "$text")
	for v in "$@"; do [ "$got" = "$v" ] && return 0; done
	return 1
}
# bg_rgb N TEXT RMIN RMAX GMIN GMAX BMIN BMAX: a 24-bit background in range.
bg_rgb() {
	bg_of "$1" "$2" | awk -F';' -v r0="$3" -v r1="$4" -v g0="$5" -v g1="$6" -v b0="$7" -v b1="$8" '
		{ exit !($1 == 2 && NF == 4 && $2 >= r0 && $2 <= r1 && $3 >= g0 && $3 <= g1 && $4 >= b0 && $4 <= b1) }'
}
no_colour_sgr() {
	tm__e
	! grep -Eq "$ESC\[([0-9;]*;)?(38;5|48;5|38;2|48;2|3[0-7]|4[0-7]|9[0-7]|10[0-7])[;m]" "$TM_SCREEN_E_FILE"
}
differs() { [ "$(bg_of "$1" "$2")" != "$(bg_of "$3" "$4")" ] && [ -n "$(bg_of "$1" "$2")" ]; }
dump_bg() { echo "kernel: $(bg_of 24 do_syscall_64) jit: $(bg_of 24 Foo::bar) inlined: $(bg_of 24 Foo::inl)"; }
expect_bg() {
	local name=$1; shift
	if tm_wait "$@"; then pass "$name"; else fail "$name" "$(dump_bg)" "screen:" "$(tm_dump)"; fi
}

tm_start 100 30 || { fail "tmux server starts"; done_testing; exit; }

ORANGE_256="5;130 5;136 5;166 5;172 5;202 5;208"
GREEN_256="5;77 5;83"
AQUA_256="5;73 5;80"

# ---- java in 256 colours ----
tm_tflame -- --colors=java "$(q "$F")"
expect "java: opens" status_is "all${SEP}100 samples"
if [ -n "$TERM_256" ]; then
	# shellcheck disable=SC2086
	{
		expect_bg "java: the kernel frame is orange" bg_in 24 do_syscall_64 $ORANGE_256
		expect_bg "java: the other kernel frame too" bg_in 23 ksys_write $ORANGE_256
		expect_bg "java: the JIT frame is green" bg_in 24 Foo::bar $GREEN_256
		expect_bg "java: the inlined frame is aqua" bg_in 24 Foo::inl $AQUA_256
	}
else
	skip "java: 256-colour hues" "no 256-colour terminfo for tmux"
fi
expect_bg "java: kernel and JIT frames differ in colour" differs 24 do_syscall_64 24 Foo::bar

# ---- legend ----
tm_keys L
expect "L: the legend line names the hues" \
	tm_wait_line 28 "java     Java/JIT     inlined     C++     kernel     native"
if [ -n "$TERM_256" ]; then
	expect_bg "L: the legend's kernel swatch is orange" swatch_in 28 " kernel" $ORANGE_256
else
	skip "L: the legend's kernel swatch is orange" "no 256-colour terminfo"
fi
tm_keys L

# ---- c cycles ----
tm_keys c c
expect "c again: perl" status_is "palette perl: "
if [ -n "$TERM_256" ]; then
	# shellcheck disable=SC2086
	expect_bg "c: under perl the kernel frame stays orange" bg_in 24 do_syscall_64 $ORANGE_256
else
	skip "c: under perl the kernel frame stays orange" "no 256-colour terminfo"
fi
quit

# ---- a real perf profile: --all --colors=java ----
# tests/data/nodefsync.perf.gz: `perf script` of `perf record -F 999 -g --
# node --perf-basic-prof work.js` (a loop of fib, JSON.stringify and
# fs.writeSync + fs.fsyncSync; 817 samples), so JIT frames come from the
# perf map (_[j]) and the fsync syscall has kernel frames (_[k]). From the
# root, 22 k go up the middle column to JS:*churn; l l reach
# JS:^fsyncSync (what the status line checks), Enter zooms into it and k
# selects its callee, leaving the JIT frame unselected.
# Hand-made expectations in 256 colours, as above: kernel (do_syscall_64)
# orange; JIT (JS:^fsyncSync) green; C++ (node::fs::Fsync) yellow, r = g
# 175..230 -> 175/215, b 50..70 -> 95: 143 185; native C (uv_fs_fsync)
# red, r 200..255 -> 215/255, g = b 50..130 -> 95/135: 167 174 203 210.
P="$top_srcdir/tests/data/nodefsync.perf.gz"
if command -v gzip >/dev/null 2>&1; then
	tm_run "clear; gzip -dc $(q "$P") | $(q "$TFLAME") --all --colors=java -; echo rc=\$?"
	expect "perf: opens" status_is "all${SEP}817.8 ms cpu-clock"
	tm_keys k k k k k k k k k k k k k k k k k k k k k k l l Enter k
	# every sample of the recording has a period of 1,001,001 ns: 96.1 ms is 96
	expect "perf: zoomed, its callee selected" status_is "Builtins_CEn..BuiltinExit${SEP}96.1 ms cpu-clock in 96 samples${SEP}11.75% of all"
	# The lines of the frames (their rows depend on the zoom, not fixed).
	row_of() { grep -n -- "$1" "$TM_SCREEN_FILE" | head -1 | cut -d: -f1 | awk '{ print $1 - 1 }'; }
	bg_row_in() { local t=$1; shift; bg_in "$(row_of "^ *$t")" "$t" "$@"; }
	if [ -n "$TERM_256" ]; then
		# shellcheck disable=SC2086
		{
			expect_bg "perf: kernel do_syscall_64 is orange" bg_row_in do_syscall_64 $ORANGE_256
			expect_bg "perf: JIT JS:^fsyncSync is green" bg_row_in 'JS:^fsyncSync' $GREEN_256
			expect_bg "perf: C++ node::fs::Fsync is yellow" bg_row_in node::fs::Fsync "5;143" "5;185"
			expect_bg "perf: native uv_fs_fsync is red" bg_row_in uv_fs_fsync "5;167" "5;174" "5;203" "5;210"
		}
	else
		skip "perf: code-type hues" "no 256-colour terminfo"
	fi
	quit
else
	skip "perf: a real profile" "gzip is not installed"
fi

# ---- the user's rules ----
printf '# our code\nInterpreter->rgb(0,0,255)\n' > "$T_TMP/team.map"
tm_tflame -- --colors=java "--color-rule='^GCTask=#ff0000'" "--palette-map=$(q "$T_TMP/team.map")" "$(q "$F")"
expect "rules: opens" status_is "all${SEP}"
if [ -n "$TERM_256" ]; then
	expect_bg "--color-rule paints GCTaskThread::run #ff0000 (196)" bg_in 25 GCTaskThread::run "5;196"
	expect_bg "--palette-map paints Interpreter rgb(0,0,255) (21)" bg_in 25 Interpreter "5;21"
	expect_bg "rules leave the other frames to the palette" bg_in 24 Foo::bar $GREEN_256
else
	skip "--color-rule and --palette-map colours" "no 256-colour terminfo"
fi
quit

# ---- NO_COLOR ----
tm_tflame NO_COLOR=1 -- --colors=java "$(q "$F")"
expect "NO_COLOR: opens" status_is "all${SEP}100 samples"
expect "NO_COLOR: not one colour SGR" tm_wait no_colour_sgr
tm_keys L
expect "NO_COLOR: still no colour SGR, the legend shown" \
	tm_wait eval 'tm__line_starts 28 "java  green:" && no_colour_sgr'
quit

# ---- 8 colours ----
if infocmp screen >/dev/null 2>&1; then
	tm_tflame TERM=screen -- --colors=java "$(q "$F")"
	expect "8 colours: opens" status_is "all${SEP}100 samples"
	expect_bg "8 colours: kernel is magenta (45)" bg_in 24 do_syscall_64 45
	expect_bg "8 colours: JIT is green (42)" bg_in 24 Foo::bar 42
	expect_bg "8 colours: inlined is cyan (46)" bg_in 24 Foo::inl 46
	quit
else
	skip "8 colours" "no terminfo entry 'screen'"
fi

# ---- one-cell frames: background only ----
# narrow.folded, 100 samples on 100 columns: under "a" (line 27) the frames
# n1 n2 n3 (one sample, one column each: columns 0, 1, 2 of line 26) and
# "wide" (97 columns from column 3). A one-cell frame shows no text, so its
# pair keeps the terminal's own text colour (only the background is sent
# when two such cells meet); a frame with text has black text (30).
printf 'a;n1 1\na;n2 1\na;n3 1\na;wide 97\n' > "$T_TMP/narrow.folded"
# looks N TEXT: "fg/bg" in force at each printable cell of line N before
# TEXT, then "at:fg/bg" at TEXT (fg: "" the terminal's own, "30" black,
# "5;N"; bg as in bg_of). Cells are bytes: only for ASCII before TEXT.
looks() {
	sgr_upto "$1" "$2" | awk -v last="$(($1 + 1))" '
		function sgr(p,   n, a, i) {
			if (p == "") { fg = ""; bg = ""; return }
			n = split(p, a, ";")
			for (i = 1; i <= n; i++) {
				if (a[i] == 0) { fg = ""; bg = "" }
				else if (a[i] == 38 || a[i] == 48) {
					v = a[i + 1] == 5 ? "5;" a[i + 2] : "rgb"
					if (a[i] == 38) fg = v; else bg = v
					i += a[i + 1] == 5 ? 2 : 4
				}
				else if (a[i] ~ /^3[0-7]$/) fg = a[i]
				else if (a[i] == 39) fg = ""
				else if (a[i] ~ /^4[0-7]$/) bg = a[i]
				else if (a[i] == 49) bg = ""
			}
		}
		{
			line = $0
			while (length(line) > 0) {
				if (match(line, /^\033\[[0-9;]*m/)) {
					sgr(substr(line, 3, RLENGTH - 3))
					line = substr(line, RLENGTH + 1)
				} else if (match(line, /^\033\[[0-9;]*[A-Za-z]/)) {
					line = substr(line, RLENGTH + 1)
				} else {
					if (NR == last) printf "%s/%s ", fg, bg
					line = substr(line, 2)
				}
			}
		}
		END { printf "at:%s/%s\n", fg, bg }'
}
# narrow_ok: three cells before "wide", each with a background and the
# terminal's own text colour, and black text on a background at "wide".
narrow_ok() {
	# shellcheck disable=SC2046
	set -- $(looks 26 wide)
	[ $# -eq 4 ] || return 1
	for c in "$1" "$2" "$3"; do
		case $c in /?*) ;; *) return 1 ;; esac
	done
	case $4 in at:30/?*) return 0 ;; esac
	return 1
}
tm_run "clear; $(q "$TFLAME") $(q "$T_TMP/narrow.folded"); echo rc=\$?"
expect "narrow: opens" status_is "all${SEP}100 samples"
if tm_wait narrow_ok; then
	pass "narrow: one-cell frames have a background and the terminal's text colour; wide has black text"
else
	fail "narrow: one-cell frames have a background and the terminal's text colour; wide has black text" \
		"looks: $(looks 26 wide)"
fi
# k onto "a", k onto "wide" (under the middle), h: n3, now a dot.
tm_keys k k h
expect "narrow: h selects n3, a dot" tm_wait_line 26 "  ·wide"
dot_ok() { looks 26 "·" | grep -Eq ' at:30/.+$'; }
if tm_wait dot_ok; then
	pass "narrow: the dot is in black"
else
	fail "narrow: the dot is in black" "looks: $(looks 26 "·")"
fi
quit

# ---- 24-bit colour ----
# A direct-colour entry "<TERM>-direct" compiled into a private TERMINFO:
# TERM's own entry plus RGB, 2^24 colours and SGR 38;2 / 48;2.
if [ -n "$TERM_256" ] && command -v tic >/dev/null 2>&1; then
	direct=${TERM_256%-256color}-direct
	mkdir -p "$T_TMP/terminfo"
	printf '%s\n' "$direct|$TERM_256 with 24-bit colour (tflame tests)," \
		'	RGB, colors#0x1000000, pairs#0x10000,' \
		'	setab=\E[%?%p1%{8}%<%t4%p1%d%e48;2;%p1%{65536}%/%d;%p1%{256}%/%{255}%&%d;%p1%{255}%&%d%;m,' \
		'	setaf=\E[%?%p1%{8}%<%t3%p1%d%e38;2;%p1%{65536}%/%d;%p1%{256}%/%{255}%&%d;%p1%{255}%&%d%;m,' \
		"	use=$TERM_256," > "$T_TMP/direct.ti"
	if TERMINFO="$T_TMP/terminfo" tic -x -o "$T_TMP/terminfo" "$T_TMP/direct.ti" 2>"$T_TMP/tic.err"; then
		tm_tflame "TERMINFO=$(q "$T_TMP/terminfo")" COLORTERM=truecolor -- --colors=java "$(q "$F")"
		expect "24-bit: opens" status_is "all${SEP}100 samples"
		expect_bg "24-bit: the kernel frame is orange rgb(190..255,90..155,0)" \
			bg_rgb 24 do_syscall_64 190 255 90 155 0 0
		expect_bg "24-bit: the JIT frame is green rgb(50..110,200..255,50..110)" \
			bg_rgb 24 Foo::bar 50 110 200 255 50 110
		quit
		tm_tflame "TERMINFO=$(q "$T_TMP/terminfo")" -- --colors=java "$(q "$F")"
		expect_bg "24-bit: not without COLORTERM (256 colours)" bg_in 24 Foo::bar $GREEN_256
		quit
		tm_tflame "TERMINFO=$(q "$T_TMP/terminfo")" COLORTERM=truecolor NO_COLOR=1 -- --colors=java "$(q "$F")"
		expect "24-bit: NO_COLOR still wins" tm_wait no_colour_sgr
		quit
	else
		skip "24-bit colour" "tic failed: $(head -1 "$T_TMP/tic.err")"
	fi
	if infocmp "$direct" >/dev/null 2>&1; then
		skip "24-bit: falls back to 256 colours without a direct entry" "$direct is installed"
	else
		tm_tflame COLORTERM=truecolor -- --colors=java "$(q "$F")"
		expect_bg "24-bit: falls back to 256 colours without a direct entry" bg_in 24 Foo::bar $GREEN_256
		quit
	fi
else
	skip "24-bit colour" "no 256-colour terminfo or no tic"
fi

done_testing
