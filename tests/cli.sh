#!/bin/sh
# Command line behaviour: batch outputs, merging, exit codes, messages.
. "${top_srcdir:-.}/tests/lib.sh"

cat > "$T_TMP/p.folded" <<'X'
main;eval;add 5
main;eval 1
main;parse;lex 3
main;parse 2
main 1
other 2
X

# --print at 28 columns, worked out by hand: total 14, 2 columns per sample.
# main [0,24) eval [0,12) add [0,10) parse [12,22) lex [12,18) other [24,28);
# a label gets width-1 columns, "other" in 3 columns is "o..".
cat > "$T_TMP/want.print" <<'X'
all: 14 samples
add      |  lex  |
eval       |parse    |
main                   |o..|
all                        |
X
"$TFLAME" --print --width 28 "$T_TMP/p.folded" > "$T_TMP/got.print" 2>"$T_TMP/err"
same "--print draws the flame graph (root at the bottom)" "$T_TMP/got.print" "$T_TMP/want.print"
{ head -1 "$T_TMP/want.print"; tail -n +2 "$T_TMP/want.print" | tac; } > "$T_TMP/want.icicle"
"$TFLAME" --print --inverted -w 28 "$T_TMP/p.folded" > "$T_TMP/got.icicle"
same "--print --inverted puts the root on top" "$T_TMP/got.icicle" "$T_TMP/want.icicle"
COLUMNS=28 "$TFLAME" --print "$T_TMP/p.folded" > "$T_TMP/got.cols"
same "--print takes its width from COLUMNS" "$T_TMP/got.cols" "$T_TMP/want.print"
# A chain 2,500 frames deep: --print finds its levels from what it draws
# (not a scan of the tree), growing the area past the first guess of rows
# and the layout's look-ahead; every level must be there, leaf on top.
seq 1 2500 | awk '{ printf "%s%s", (NR > 1 ? ";" : ""), "f" $1 } END { print " 1" }' > "$T_TMP/deep.folded"
{ echo "all: 1 samples"; seq 2500 -1 1 | awk '{ printf "%-9s|\n", "f" $1 }'; printf '%-9s|\n' all; } > "$T_TMP/want.deep"
"$TFLAME" --print -w 10 "$T_TMP/deep.folded" > "$T_TMP/got.deep" 2>"$T_TMP/err"
same "--print draws every level of a 2,500-deep chain" "$T_TMP/got.deep" "$T_TMP/want.deep"

printf 'main 1\nmain;eval 1\nmain;eval;add 5\nmain;parse 2\nmain;parse;lex 3\nother 2\n' > "$T_TMP/want.collapse"
"$TFLAME" --collapse "$T_TMP/p.folded" > "$T_TMP/got.collapse"
same "--collapse writes sorted merged stacks" "$T_TMP/got.collapse" "$T_TMP/want.collapse"
"$TFLAME" --collapse < "$T_TMP/p.folded" > "$T_TMP/got.stdin"
same "no file: reads a pipe on stdin" "$T_TMP/got.stdin" "$T_TMP/want.collapse"
cat "$T_TMP/p.folded" | "$TFLAME" --collapse - > "$T_TMP/got.dash"
same "'-' reads stdin" "$T_TMP/got.dash" "$T_TMP/want.collapse"

printf 'main;eval;add 5\n' > "$T_TMP/q.folded"
printf 'main 1\nmain;eval 1\nmain;eval;add 10\nmain;parse 2\nmain;parse;lex 3\nother 2\n' > "$T_TMP/want.merge"
"$TFLAME" --collapse "$T_TMP/p.folded" "$T_TMP/q.folded" > "$T_TMP/got.merge"
same "several files merge like cat" "$T_TMP/got.merge" "$T_TMP/want.merge"

printf 'a;b 1\nthis line has no count\na;b 2\n\ngarbage\n' > "$T_TMP/bad.folded"
"$TFLAME" --collapse "$T_TMP/bad.folded" > "$T_TMP/got.bad" 2> "$T_TMP/err.bad"; rc=$?
printf 'a;b 3\n' > "$T_TMP/want.bad"
same "valid lines survive bad neighbours" "$T_TMP/got.bad" "$T_TMP/want.bad"
check "malformed lines do not fail the run" test "$rc" -eq 0
grep -q "^tflame: $T_TMP/bad.folded: skipped 2 malformed lines (first at line 2: " "$T_TMP/err.bad" &&
	pass "summary of skipped lines names file, count and first line" ||
	fail "summary of skipped lines" "$(cat "$T_TMP/err.bad")"

"$TFLAME" --collapse "$T_TMP/does-not-exist" > /dev/null 2> "$T_TMP/err.nf"; rc=$?
check "missing file: exit 1" test "$rc" -eq 1
grep -qx "tflame: $T_TMP/does-not-exist: No such file or directory" "$T_TMP/err.nf" &&
	pass "missing file: message" || fail "missing file: message" "$(cat "$T_TMP/err.nf")"
"$TFLAME" --collapse "$T_TMP" > /dev/null 2> "$T_TMP/err.dir"; rc=$?
check "directory: exit 1" test "$rc" -eq 1
grep -q "Is a directory" "$T_TMP/err.dir" && pass "directory: message" || fail "directory: message" "$(cat "$T_TMP/err.dir")"

"$TFLAME" --help > "$T_TMP/help" 2> "$T_TMP/err.help"; rc=$?
check "--help exits 0" test "$rc" -eq 0
grep -q '^Usage: tflame ' "$T_TMP/help" && pass "--help prints usage on stdout" || fail "--help usage"
"$TFLAME" --version > "$T_TMP/ver"; rc=$?
check "--version exits 0" test "$rc" -eq 0
grep -q '^tflame [0-9]' "$T_TMP/ver" && pass "--version names the version" || fail "--version" "$(cat "$T_TMP/ver")"
check "--help writes nothing on stderr" test ! -s "$T_TMP/err.help"
"$TFLAME" --sort=weight --collapse "$T_TMP/p.folded" > "$T_TMP/got.sortw"
same "--collapse output does not depend on --sort" "$T_TMP/got.sortw" "$T_TMP/want.collapse"

# --sort=input is a flame chart: time order, a frame where it first ran.
# 8 samples in 40 columns: b [0,5), a's own [5,10), b [10,15), c [15,25),
# then a new a;b [25,40).
printf 'a;b 1\na 1\na;b 1\nc 2\na;b 3\n' > "$T_TMP/chart.folded"
cat > "$T_TMP/want.chart" <<'X'
all: 8 samples
b   |     b   |          b             |
a             |c        |a             |
all                                    |
X
"$TFLAME" --print -w 40 --sort=input "$T_TMP/chart.folded" > "$T_TMP/got.chart"
same "--sort=input draws a flame chart in time order" "$T_TMP/got.chart" "$T_TMP/want.chart"
printf 'a 1\na;b 5\nc 2\n' > "$T_TMP/want.chartc"
"$TFLAME" --collapse --sort=input "$T_TMP/chart.folded" > "$T_TMP/got.chartc"
same "--collapse still merges by stack with --sort=input" "$T_TMP/got.chartc" "$T_TMP/want.chartc"

# ---- usage errors: exactly one line of error, then the hint, exit 2 ----
usage_err() {   # NAME ERROR-REGEX ARGS...
	name=$1 re=$2; shift 2
	"$TFLAME" "$@" > "$T_TMP/out.u" 2> "$T_TMP/err.u"; rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$T_TMP/err.u")" -eq 2 ] && ! [ -s "$T_TMP/out.u" ] &&
	   sed -n 1p "$T_TMP/err.u" | grep -qE "^tflame: $re" &&
	   [ "$(sed -n 2p "$T_TMP/err.u")" = "Try 'tflame --help' for more information." ]; then
		pass "$name"
	else
		fail "$name" "rc=$rc" "$(cat "$T_TMP/err.u")"
	fi
}
usage_err "unknown option: one line, the hint, exit 2" "unrecognized option '--no-such-option'" \
	--no-such-option "$T_TMP/p.folded"
usage_err "unknown short option" "invalid option -- 'Z'" -Z "$T_TMP/p.folded"
usage_err "missing value" "option '--sort' requires an argument" "$T_TMP/p.folded" --sort
usage_err "bad number" "invalid value for --width: 'abc'" --width=abc --print "$T_TMP/p.folded"
usage_err "number out of range" "invalid value for --min-width: '0'" --min-width=0 "$T_TMP/p.folded"
usage_err "bad fixed value names the choices" "invalid value for --format: 'xml' \(one of: auto folded perf perf-data pprof cpuprofile speedscope\)" \
	--format=xml "$T_TMP/p.folded"
usage_err "control bytes in a bad value are escaped" "invalid value for --sort: 'a\^\[b'" \
	--sort="$(printf 'a\033b')" "$T_TMP/p.folded"

# ---- no file while stdin is a terminal: a hint, not a wait for input ----
# script(1) runs tflame on a pseudo-terminal; timeout turns a hang into 124.
if command -v script > /dev/null 2>&1 && command -v timeout > /dev/null 2>&1; then
	timeout 10 script -qec "'$TFLAME'" /dev/null < /dev/null > "$T_TMP/out.tty" 2>&1; rc=$?
	tr -d '\r' < "$T_TMP/out.tty" > "$T_TMP/out.tty2"
	printf '%s\n' "tflame: no input: give a profile file, pipe one in (perf script | tflame)," \
		"or run where perf record left a perf.data" \
		"Try 'tflame --help' for more information." > "$T_TMP/want.tty"
	if [ $rc -eq 2 ] && cmp -s "$T_TMP/out.tty2" "$T_TMP/want.tty"; then
		pass "no file, stdin a terminal: the hint, exit 2, no hang"
	else
		fail "no file, stdin a terminal: the hint, exit 2, no hang" "rc=$rc (124: it waited)" "$(cat "$T_TMP/out.tty2")"
	fi
else
	skip "no file, stdin a terminal: the hint, exit 2, no hang" "no script(1) or timeout(1)"
fi

# ---- config file ----
# The default place is $XDG_CONFIG_HOME/tflame/config (lib.sh isolates HOME
# and sets XDG_CONFIG_HOME under it).
mkdir -p "$XDG_CONFIG_HOME/tflame"
CFG=$XDG_CONFIG_HOME/tflame/config
printf '# test\n\n  width = 28 \ninverted\r\n' > "$CFG"
"$TFLAME" --print "$T_TMP/p.folded" > "$T_TMP/got.cfg" 2> "$T_TMP/err.cfg"
same "config: width and inverted from \$XDG_CONFIG_HOME/tflame/config" "$T_TMP/got.cfg" "$T_TMP/want.icicle"
"$TFLAME" --print --width=28 --no-config "$T_TMP/p.folded" > "$T_TMP/got.cfg"
same "--no-config: built-in defaults" "$T_TMP/got.cfg" "$T_TMP/want.print"
printf 'width = 5\n' > "$CFG"
"$TFLAME" --print -w 28 "$T_TMP/p.folded" > "$T_TMP/got.cfg"
same "the command line overrides the config (-w 28 over width = 5)" "$T_TMP/got.cfg" "$T_TMP/want.print"
printf 'inverted = no\nwidth = 28\n' > "$CFG"
"$TFLAME" --print "$T_TMP/p.folded" > "$T_TMP/got.cfg"
same "config: 'inverted = no' leaves the default" "$T_TMP/got.cfg" "$T_TMP/want.print"
(unset XDG_CONFIG_HOME; mkdir -p "$HOME/.config/tflame"; printf 'width = 28\ninverted = on\n' > "$HOME/.config/tflame/config"
 "$TFLAME" --print "$T_TMP/p.folded") > "$T_TMP/got.cfg"
same "config: ~/.config/tflame/config without XDG_CONFIG_HOME" "$T_TMP/got.cfg" "$T_TMP/want.icicle"
printf 'width = 28\ninverted = 1\n' > "$T_TMP/other.cfg"
TFLAME_CONFIG=$T_TMP/other.cfg "$TFLAME" --print "$T_TMP/p.folded" > "$T_TMP/got.cfg"
same "TFLAME_CONFIG names the file" "$T_TMP/got.cfg" "$T_TMP/want.icicle"
printf 'width = 5\n' > "$CFG"
"$TFLAME" --print --config="$T_TMP/other.cfg" "$T_TMP/p.folded" > "$T_TMP/got.cfg"
same "--config=FILE replaces the default file" "$T_TMP/got.cfg" "$T_TMP/want.icicle"
TFLAME_CONFIG= "$TFLAME" --print -w 28 "$T_TMP/p.folded" > "$T_TMP/got.cfg"
same "empty TFLAME_CONFIG: no config file" "$T_TMP/got.cfg" "$T_TMP/want.print"
rm -f "$CFG"

# cfg_err NAME FILE-CONTENT MESSAGE: exit 2 and "tflame: FILE:LINE: MESSAGE".
cfg_err() {
	printf '%b' "$2" > "$T_TMP/bad.cfg"
	"$TFLAME" --config "$T_TMP/bad.cfg" --collapse "$T_TMP/p.folded" > /dev/null 2> "$T_TMP/err.c"; rc=$?
	if [ $rc -eq 2 ] && [ "$(cat "$T_TMP/err.c")" = "tflame: $T_TMP/bad.cfg:$3" ]; then
		pass "config error: $1"
	else
		fail "config error: $1" "rc=$rc" "got:  $(cat "$T_TMP/err.c")" "want: tflame: $T_TMP/bad.cfg:$3"
	fi
}
cfg_err "unknown option, line counted past comments" '# c\n\nsort = name\ncolour = red\n' \
	"4: unknown option 'colour'"
cfg_err "bad value" 'min-width = x\n' "1: invalid value for --min-width: 'x'"
cfg_err "bad fixed value" 'sort = heavy\n' "1: invalid value for --sort: 'heavy' (one of: name weight input)"
cfg_err "flag with a bad yes/no" 'inverted = maybe\n' "1: 'inverted' is yes or no, not 'maybe'"
cfg_err "option with a value given none" 'sort\n' "1: 'sort' needs a value: sort = VALUE"
cfg_err "dashes" '--sort = name\n' "1: write option names without their dashes"
cfg_err "output modes are command line only" 'print\n' "1: 'print' cannot be set in a config file"
"$TFLAME" --config "$T_TMP/none.cfg" --collapse "$T_TMP/p.folded" > /dev/null 2> "$T_TMP/err.c"; rc=$?
[ $rc -eq 2 ] && [ "$(cat "$T_TMP/err.c")" = "tflame: $T_TMP/none.cfg: No such file or directory" ] &&
	pass "--config with a missing file: exit 2" || fail "--config with a missing file: exit 2" "rc=$rc" "$(cat "$T_TMP/err.c")"

# Every option --list-options marks "config" goes through the same code in
# the file as on the command line (a new option does, with no code of its
# own): "NAME = yes" for a flag behaves as --NAME, "NAME = V" as --NAME=V:
# the same exit status and, for an error, the same message after FILE:LINE.
# V is a fixed set's first value, else 2 (a bad value for some options,
# which is fine: the errors must then agree). The ones marked "-" are refused.
"$TFLAME" --list-options > "$T_TMP/listopts"
while IFS='	' read -r name arg values cfg; do
	if [ "$arg" = flag ]; then line="$name = yes" opt="--$name"
	else
		v=2; [ "$values" != - ] && v=${values%% *}
		line="$name = $v" opt="--$name=$v"
	fi
	printf '%s\n' "$line" > "$T_TMP/one.cfg"
	"$TFLAME" --config "$T_TMP/one.cfg" --collapse "$T_TMP/p.folded" > /dev/null 2> "$T_TMP/err.c"; rc=$?
	if [ "$cfg" = config ]; then
		"$TFLAME" --no-config "$opt" --collapse "$T_TMP/p.folded" > /dev/null 2> "$T_TMP/err.o"; rc_o=$?
		e_o=$(sed -n 1p "$T_TMP/err.o"); e_c=$(sed -n 1p "$T_TMP/err.c")
		if [ $rc -eq $rc_o ] && { [ $rc -ne 2 ] || [ "$e_c" = "tflame: $T_TMP/one.cfg:1: ${e_o#tflame: }" ]; }; then
			pass "config '$line' acts as $opt (status $rc)"
		else
			fail "config '$line' acts as $opt" "config: rc=$rc $e_c" "option: rc=$rc_o $e_o"
		fi
	else
		[ $rc -eq 2 ] && grep -q "'$name' cannot be set in a config file" "$T_TMP/err.c" &&
			pass "config refuses $name" || fail "config refuses $name" "rc=$rc" "$(cat "$T_TMP/err.c")"
	fi
done < "$T_TMP/listopts"

# A value with '=' and '#' in it (only the first '=' splits; a '#' after the
# name is not a comment): this colour rule is valid, as on the command line.
printf 'color-rule = ^a$=#ff0000\ncolors = java\n' > "$T_TMP/rule.cfg"
"$TFLAME" --config "$T_TMP/rule.cfg" --collapse "$T_TMP/p.folded" > "$T_TMP/got.rule" 2> "$T_TMP/err.rule"
same "config: color-rule = REGEX=#rrggbb is read whole" "$T_TMP/got.rule" "$T_TMP/want.collapse"

# Output to a closed pipe: quiet, no message storm.
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "s%d;f%d 1\n", i, i }' > "$T_TMP/big.folded"
"$TFLAME" --collapse "$T_TMP/big.folded" 2> "$T_TMP/err.pipe" | head -1 > /dev/null
check "closed pipe: nothing on stderr" test ! -s "$T_TMP/err.pipe"

# A real `perf record --call-graph dwarf` recording (minisearch built by gcc
# without frame pointers, see bench/workload/README): unwound by DWARF, with
# "(inlined)" frames. The total of the folded counts must equal the sum of
# the periods on the event lines (counted here with awk, independently), and
# DWARF unwinding must have recovered the callers of the hot leaf.
D="$top_srcdir/tests/data/minisearch-dwarf.perf.gz"
gunzip -c "$D" > "$T_TMP/dwarf.perf"
want=$(awk '/cpu-clock/ { for (i = 1; i <= NF; i++) if ($i ~ /^cpu-clock/) s += $(i - 1) } END { printf "%d\n", s }' "$T_TMP/dwarf.perf")
"$TFLAME" --collapse "$T_TMP/dwarf.perf" > "$T_TMP/dwarf.folded" 2> "$T_TMP/dwarf.err"
got=$(awk '{ s += $NF } END { printf "%d\n", s }' "$T_TMP/dwarf.folded")
check "dwarf recording: every sample's period is counted ($want)" test "$got" = "$want" -a ! -s "$T_TMP/dwarf.err"
check "dwarf recording: callers unwound (main;corpus_generate;doc_generate)" \
	grep -q '^ms_gcc;_start;__libc_start_main_impl;__libc_start_call_main;main;corpus_generate;doc_generate;' "$T_TMP/dwarf.folded"

# Folded files are parsed in chunks on several threads: the result must be
# the one-thread result, byte for byte. Sorted and shuffled stacks with
# shared prefixes, so that chunks share nodes; one malformed line near the
# end must keep its line number (3001) across chunk boundaries.
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "m;f%d;g%d;h%d %d\n", i % 7, i % 13, i % 31, i % 5 + 1;
             print "no count here" }' > "$T_TMP/par.folded"
{ head -n 3000 "$T_TMP/par.folded" | sort -r; tail -n 1 "$T_TMP/par.folded"; } > "$T_TMP/par-rev.folded"
"$TFLAME" --threads=1 --collapse "$T_TMP/par.folded" > "$T_TMP/par1" 2> "$T_TMP/par1.err"
for f in par par-rev; do
	for th in 2 3; do
		"$TFLAME" --threads=$th --collapse "$T_TMP/$f.folded" > "$T_TMP/parn" 2> "$T_TMP/parn.err"
		same "folded $f, $th threads: same output as one" "$T_TMP/parn" "$T_TMP/par1"
	done
done
"$TFLAME" --threads=3 --collapse "$T_TMP/par.folded" 2>&1 > /dev/null |
	grep -q 'skipped 1 malformed line (first at line 3001' &&
	pass "folded, 3 threads: the bad line's number counts every chunk" ||
	fail "folded, 3 threads: the bad line's number counts every chunk" "$(cat "$T_TMP/parn.err")"

# Many pieces per thread (4 KB each here instead of 32 MB): the threads take
# them in turn and the main thread merges them in order between its own. A
# sorted copy keeps every piece's tree free of the child hash; the shuffled
# one does not; the perf recording is cut at blank lines.
LC_ALL=C sort "$T_TMP/par.folded" > "$T_TMP/par-sorted.folded"
"$TFLAME" --threads=1 --collapse "$T_TMP/par-sorted.folded" > "$T_TMP/pars1" 2> /dev/null
for th in 2 3; do
	for f in par par-rev par-sorted; do
		TFLAME_PIECE_BYTES=4096 "$TFLAME" --threads=$th --collapse "$T_TMP/$f.folded" > "$T_TMP/parn" 2> "$T_TMP/parn.err"
		want=$T_TMP/par1
		[ $f = par-sorted ] && want=$T_TMP/pars1
		same "folded $f in 4 KB pieces, $th threads: same output as one thread" "$T_TMP/parn" "$want"
	done
	TFLAME_PIECE_BYTES=4096 "$TFLAME" --threads=$th --collapse "$T_TMP/par.folded" 2>&1 > /dev/null |
		grep -q 'skipped 1 malformed line (first at line 3001' &&
		pass "folded in 4 KB pieces, $th threads: the bad line keeps its number" ||
		fail "folded in 4 KB pieces, $th threads: the bad line keeps its number"
	TFLAME_PIECE_BYTES=65536 "$TFLAME" --threads=$th --collapse "$T_TMP/dwarf.perf" > "$T_TMP/dwarfn" 2> /dev/null
	same "perf recording in 64 KB pieces, $th threads: same output as one" "$T_TMP/dwarfn" "$T_TMP/dwarf.folded"
done

# ---- tflame record: its usage, and perf missing ------------------------------
"$TFLAME" record --help > "$T_TMP/rec.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^Usage: tflame record ' "$T_TMP/rec.out" &&
	pass "record --help: its usage, exit 0" || fail "record --help: its usage, exit 0" "rc=$rc" "$(head -3 "$T_TMP/rec.out")"
"$TFLAME" record > "$T_TMP/rec.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q '^tflame: record: no command to profile' "$T_TMP/rec.out" &&
	pass "record with no command: the hint, exit 2" || fail "record with no command: the hint, exit 2" "rc=$rc" "$(cat "$T_TMP/rec.out")"
"$TFLAME" record -F lots -- true > "$T_TMP/rec.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q '^tflame: record: -F takes a number' "$T_TMP/rec.out" &&
	pass "record -F with a word: exit 2" || fail "record -F with a word: exit 2" "rc=$rc" "$(cat "$T_TMP/rec.out")"
mkdir -p "$T_TMP/noperf" "$T_TMP/rect"
PATH="$T_TMP/noperf" TMPDIR="$T_TMP/rect" "$TFLAME" record -- true > "$T_TMP/rec.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q '^tflame: record: perf is not installed' "$T_TMP/rec.out" &&
	[ -z "$(ls -A "$T_TMP/rect")" ] &&
	pass "record without perf: says so, exit 1, no file left" ||
	fail "record without perf: says so, exit 1, no file left" "rc=$rc" "$(cat "$T_TMP/rec.out")" "$(ls -A "$T_TMP/rect")"
# A perf that fails (as with kernel.perf_event_paranoid too high).
printf '#!/bin/sh\necho "perf_event_open: Permission denied" >&2\nexit 255\n' > "$T_TMP/noperf/perf"
chmod +x "$T_TMP/noperf/perf"
PATH="$T_TMP/noperf:$PATH" TMPDIR="$T_TMP/rect" "$TFLAME" record -- true > "$T_TMP/rec.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q '^tflame: record: perf record failed (exit status 255)' "$T_TMP/rec.out" &&
	[ -z "$(ls -A "$T_TMP/rect")" ] &&
	pass "record when perf fails: says so, exit 1, no file left" ||
	fail "record when perf fails: says so, exit 1, no file left" "rc=$rc" "$(cat "$T_TMP/rec.out")"

# ---- compressed input: gzip, xz, zstd, as files and on pipes ----------------
"$TFLAME" --collapse "$T_TMP/p.folded" > "$T_TMP/plain.out"
# gzip twice: by ISA-L (when built with it) and by zlib (TFLAME_INFLATE=zlib)
for inf in isal zlib; do
	TFLAME_INFLATE=$inf; export TFLAME_INFLATE
	zs="gzip xz zstd"; by=""
	[ $inf = zlib ] && zs=gzip by=" (zlib)"
	for z in $zs; do
		if ! command -v $z > /dev/null 2>&1; then
			skip "$z$by: file and pipe read as the plain file" "no $z command"
			continue
		fi
		$z -c < "$T_TMP/p.folded" > "$T_TMP/p.$z"
		"$TFLAME" --collapse "$T_TMP/p.$z" > "$T_TMP/z.out" 2> "$T_TMP/z.err"
		same "$z$by: a compressed file reads as the plain one" "$T_TMP/z.out" "$T_TMP/plain.out"
		"$TFLAME" --collapse - < "$T_TMP/p.$z" > "$T_TMP/z.out" 2> "$T_TMP/z.err"
		cat "$T_TMP/p.$z" | "$TFLAME" --collapse - > "$T_TMP/z2.out" 2> "$T_TMP/z.err"
		same "$z$by: on a pipe too" "$T_TMP/z2.out" "$T_TMP/plain.out"
		# cut in the middle: an error that says so, exit 1
		n=$(wc -c < "$T_TMP/p.$z")
		head -c $((n / 2)) "$T_TMP/p.$z" > "$T_TMP/cut.$z"
		"$TFLAME" --collapse "$T_TMP/cut.$z" > /dev/null 2> "$T_TMP/z.err"; rc=$?
		[ $rc -eq 1 ] && grep -q "the $z data is cut short" "$T_TMP/z.err" &&
			pass "$z$by: cut short: says so, exit 1" || fail "$z$by: cut short: says so, exit 1" "rc=$rc" "$(cat "$T_TMP/z.err")"
	done
	if command -v gzip > /dev/null 2>&1; then
		# two members one after the other (cat a.gz b.gz): both are read
		{ gzip -c < "$T_TMP/p.folded"; gzip -c < "$T_TMP/p.folded"; } > "$T_TMP/two.gz"
		"$TFLAME" --collapse "$T_TMP/two.gz" | awk '{ s += $NF } END { print s }' > "$T_TMP/two.sum"
		awk '{ s += 2 * $NF } END { print s }' "$T_TMP/plain.out" > "$T_TMP/two.want"
		same "gzip$by: concatenated members count twice" "$T_TMP/two.sum" "$T_TMP/two.want"
		printf '\037\213\010\000not deflate data at all' > "$T_TMP/bad.gz"
		"$TFLAME" --collapse "$T_TMP/bad.gz" > /dev/null 2> "$T_TMP/z.err"; rc=$?
		[ $rc -eq 1 ] && grep -q 'the gzip data is corrupt' "$T_TMP/z.err" &&
			pass "gzip$by: corrupt data: says so, exit 1" || fail "gzip$by: corrupt data: says so, exit 1" "rc=$rc" "$(cat "$T_TMP/z.err")"
	fi
done
unset TFLAME_INFLATE

# ---- pprof: the real binary on Go's profiles (expected from go tool pprof -raw,
# tests/data/pprof/README) --------------------------------------------------------
PP=$top_srcdir/tests/data/pprof
"$TFLAME" --collapse "$PP/cpu.pb.gz" > "$T_TMP/pp.out" 2> "$T_TMP/pp.err"
same "pprof: a gzip'ed CPU profile, found by content" "$T_TMP/pp.out" "$PP/cpu.folded"
gzip -dc < "$PP/heap.pb.gz" | "$TFLAME" --collapse --sample-type=alloc_space - > "$T_TMP/pp.out" 2> "$T_TMP/pp.err"
same "pprof: heap alloc_space, plain on a pipe" "$T_TMP/pp.out" "$PP/heap.alloc_space.folded"
# counted as the stream arrives (TFLAME_PPROF_AHEAD: on pipes too; a gzip'ed
# file is by default): heap's default type has samples of value 0; allocs's
# default_sample_type is not the last type, which is what is counted early
for f in heap allocs; do
	gzip -dc < "$PP/$f.pb.gz" | TFLAME_PPROF_AHEAD=1 "$TFLAME" --collapse - > "$T_TMP/pp.out" 2> "$T_TMP/pp.err"
	same "pprof: $f, default type, counted as it arrives on a pipe" "$T_TMP/pp.out" "$PP/$f.folded"
	TFLAME_PPROF_AHEAD=0 "$TFLAME" --collapse "$PP/$f.pb.gz" > "$T_TMP/pp.out" 2> "$T_TMP/pp.err"
	same "pprof: $f, default type, a gzip'ed file not counted as it arrives" "$T_TMP/pp.out" "$PP/$f.folded"
	"$TFLAME" --collapse "$PP/$f.pb.gz" > "$T_TMP/pp.out" 2> "$T_TMP/pp.err"
	same "pprof: $f, default type, a gzip'ed file" "$T_TMP/pp.out" "$PP/$f.folded"
done
# a gzip'ed profile whose stacks repeat, 200,000 samples (11.6 MB): counted as
# it inflates, the pages of the samples counted moved ahead to take the rest;
# with a default_sample_type other than the last (the one counted), read again
# (repeat.py sums the expected stacks as it writes them)
if command -v python3 > /dev/null 2>&1 && command -v gzip > /dev/null 2>&1; then
	for ty in last first; do
		python3 "$PP/repeat.py" 200000 "$T_TMP/rep.pb" "$T_TMP/rep.want" $ty &&
			gzip -1 -c "$T_TMP/rep.pb" > "$T_TMP/rep.pb.gz"
		"$TFLAME" --collapse "$T_TMP/rep.pb.gz" > "$T_TMP/pp.out" 2> "$T_TMP/pp.err"
		same "pprof: stacks that repeat, gzip'ed, the default the $ty type" "$T_TMP/pp.out" "$T_TMP/rep.want"
		[ ! -s "$T_TMP/pp.err" ] && pass "... nothing said" || fail "... nothing said" "$(cat "$T_TMP/pp.err")"
	done
else
	skip "pprof: stacks that repeat, gzip'ed" "python3 or gzip is not installed"
fi
# read in parts, as a big Go profile is (TFLAME_PARTS: whatever the size)
TFLAME_PARTS=1 "$TFLAME" --collapse "$PP/cpu.pb.gz" > "$T_TMP/pp.out" 2> "$T_TMP/pp.err"
same "pprof in parts: the CPU profile" "$T_TMP/pp.out" "$PP/cpu.folded"
TFLAME_PARTS=1 "$TFLAME" --collapse --sample-type=alloc_space "$PP/heap.pb.gz" > "$T_TMP/pp.out" 2> "$T_TMP/pp.err"
same "pprof in parts: heap alloc_space" "$T_TMP/pp.out" "$PP/heap.alloc_space.folded"
"$TFLAME" --print -w 40 "$PP/cpu.pb.gz" 2> /dev/null | head -n 1 > "$T_TMP/pp.head"
grep -qE '^all: 41 samples . 1\.2[0-9] s cpu$' "$T_TMP/pp.head" &&
	pass "pprof: --print says samples and time" || fail "pprof: --print says samples and time" "$(cat "$T_TMP/pp.head")"
"$TFLAME" --collapse --sample-type=nosuch "$PP/cpu.pb.gz" > /dev/null 2> "$T_TMP/pp.err"; rc=$?
[ $rc -eq 1 ] && grep -q 'nosuch' "$T_TMP/pp.err" &&
	pass "pprof: an unknown --sample-type is named, exit 1" ||
	fail "pprof: an unknown --sample-type is named, exit 1" "rc=$rc" "$(cat "$T_TMP/pp.err")"

# ---- V8 .cpuprofile and speedscope: the real binary on the fixtures (expected
# from Python over the JSON: tests/data/cpuprofile/README, speedscope/gen.py) ----
CP=$top_srcdir/tests/data/cpuprofile SS=$top_srcdir/tests/data/speedscope
"$TFLAME" --collapse "$CP/work.cpuprofile" > "$T_TMP/j.out" 2> "$T_TMP/j.err"
same "cpuprofile: node --cpu-prof's file, found by content" "$T_TMP/j.out" "$CP/work.folded"
"$TFLAME" --collapse - < "$SS/two.speedscope.json" > "$T_TMP/j.out" 2> "$T_TMP/j.err"
same "speedscope: two profiles, a root each, on a pipe" "$T_TMP/j.out" "$SS/two.folded"
"$TFLAME" --collapse --profile=2 "$SS/two.speedscope.json" > "$T_TMP/j.out" 2> "$T_TMP/j.err"
same "speedscope: --profile=2" "$T_TMP/j.out" "$SS/two.2.folded"

# ---- files that are no profile: said what they are -----------------------------
"$TFLAME" --collapse "$TFLAME" > /dev/null 2> "$T_TMP/k.err"; rc=$?
[ $rc -eq 1 ] && grep -q 'not a profile (an ELF file' "$T_TMP/k.err" &&
	pass "an ELF file: said so, exit 1" || fail "an ELF file: said so, exit 1" "rc=$rc" "$(cat "$T_TMP/k.err")"
printf '\211PNG\r\n\032\n0000' > "$T_TMP/k.png"
"$TFLAME" --collapse "$T_TMP/k.png" > /dev/null 2> "$T_TMP/k.err"; rc=$?
[ $rc -eq 1 ] && grep -q 'not a profile (a PNG image)' "$T_TMP/k.err" &&
	pass "a PNG image: said so, exit 1" || fail "a PNG image: said so, exit 1" "rc=$rc" "$(cat "$T_TMP/k.err")"

# ---- no silent hang or garbage on a terminal (a pty from util-linux script) ----
if command -v script >/dev/null 2>&1 && script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	sq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
	printf 'a;b 1\n' > "$T_TMP/s.folded"
	# `tflame -` reading a terminal would wait for a profile typed by hand
	timeout 20 script -qec "$(sq "$TFLAME") --collapse -" /dev/null > "$T_TMP/pty.out" 2>&1; rc=$?
	[ $rc -eq 2 ] && grep -q 'standard input is a terminal' "$T_TMP/pty.out" &&
		pass "tflame - on a terminal: refused, exit 2" ||
		fail "tflame - on a terminal: refused, exit 2" "rc=$rc" "$(cat "$T_TMP/pty.out")"
	# TERM=dumb cannot draw the browser: refused before loading
	TERM=dumb timeout 20 script -qec "$(sq "$TFLAME") $(sq "$T_TMP/s.folded")" /dev/null \
		< /dev/null > "$T_TMP/pty.out" 2>&1; rc=$?
	[ $rc -eq 2 ] && grep -q 'TERM=dumb) cannot move its cursor' "$T_TMP/pty.out" &&
		! grep -q "$(printf '\033')" "$T_TMP/pty.out" &&
		pass "TERM=dumb: refused with a message, nothing drawn" ||
		fail "TERM=dumb: refused with a message, nothing drawn" "rc=$rc" "$(od -c "$T_TMP/pty.out" | head -5)"
	# any other terminal type without cursor addressing: one made here
	printf 'nocup|a terminal that cannot address its cursor,\n\tcols#80, lines#24, bel=^G,\n' > "$T_TMP/nocup.ti"
	if command -v tic >/dev/null 2>&1 && tic -o "$T_TMP/terminfo" "$T_TMP/nocup.ti" 2>/dev/null; then
		TERMINFO="$T_TMP/terminfo" TERM=nocup timeout 20 script -qec "$(sq "$TFLAME") $(sq "$T_TMP/s.folded")" \
			/dev/null < /dev/null > "$T_TMP/pty.out" 2>&1; rc=$?
		[ $rc -ne 0 ] && grep -q 'TERM=nocup) cannot move its cursor' "$T_TMP/pty.out" &&
			pass "a terminal without cursor addressing: refused with a message" ||
			fail "a terminal without cursor addressing: refused with a message" "rc=$rc" \
				"$(od -c "$T_TMP/pty.out" | head -5)"
	else
		skip "a terminal without cursor addressing" "tic (ncurses-bin) cannot compile an entry here"
	fi
else
	skip "tflame - on a terminal" "util-linux script cannot make a pty here"
fi

done_testing
