#!/bin/sh
# tests/golden/ui.sh: the browser's keys, headless (--script, screens
# dumped as text): what tests/ui/ui.sh checked in tmux without needing a
# terminal (attributes, mouse, resize, signals and the tty stay there).
# Every expected screen is worked out by hand from tests/ui/basic.folded
# (see its header): at 100 columns one sample is one column, and the graph
# area is lines 1..28 of a 30-line screen, root row at line 28 (flame).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/golden/hl.sh"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
[ -x "$TFLAME" ] || skip_all "$TFLAME is not built"

F="$top_srcdir/tests/ui/basic.folded"
SEP='  ·  '

hl_open 100 30 "$F"

# ---- open ----
hl_status "open: status line names the root" "all${SEP}100 samples${SEP}100.00% of all"
hl_line "open: breadcrumb is 'all'" 0 "all"
hl_line "open: root row at the bottom" 28 "all"
hl_line "open: idle [0,20) and main [20,100) on level 1" \
	27 "$(printf '%-20s%s' idle main)"
hl_line "open: level 2 is init [20,30), parse [30,80), run [80,100)" \
	26 "$(printf '%20s%-10s%-50s%s' '' init parse run)"
hl_line "open: labels cut with .. (load_config in 5 cells)" \
	25 "$(printf '%20s%-10s%-20s%-30s%s' '' loa.. lex parse_expr eval)"

# ---- moves: the preferred column starts at 49, the middle of the root ----
hl_keys k
hl_status "k: main (child of all under column 49)" "main${SEP}80 samples${SEP}80.00% of all"
hl_keys k
hl_status "k: parse [30,80)" "parse${SEP}50 samples${SEP}50.00% of all"
hl_keys Up
hl_status "Up: lex [30,50)" "lex${SEP}20 samples${SEP}20.00% of all"
hl_keys l
hl_status "l: parse_expr, the next frame on the row" "parse_expr${SEP}30 samples${SEP}30.00% of all"
hl_keys Right
hl_status "Right: eval [80,95), across parents" "eval${SEP}15 samples${SEP}15.00% of all"
hl_keys k
hl_status "k: alloc_node under eval (5 samples, not parse_term's 8)" \
	"alloc_node${SEP}5 samples${SEP}5.00% of all"
hl_keys j
hl_status "j: back to eval" "eval${SEP}15 samples${SEP}15.00% of all"
hl_keys Down
hl_status "Down: run" "run${SEP}20 samples${SEP}20.00% of all"
hl_keys h
hl_status "h: parse, the previous frame on the row" "parse${SEP}50 samples${SEP}50.00% of all"
# h set the preferred column to parse's middle, 54: up goes to parse_expr.
hl_keys k
hl_status "k after h: parse_expr under column 54" "parse_expr${SEP}30 samples${SEP}30.00% of all"
hl_keys Left
hl_status "Left: lex" "lex${SEP}20 samples${SEP}20.00% of all"
hl_keys h
hl_status "h: load_config" "load_config${SEP}6 samples${SEP}6.00% of all"
hl_keys j
hl_status "j: init" "init${SEP}10 samples${SEP}10.00% of all"
hl_keys j j
hl_status "j j: all" "all${SEP}100 samples${SEP}100.00% of all"
# The column is sticky: k k k from the root with column 22 (load_config's
# middle) reaches load_config again, not parse (main's middle would be 59).
hl_keys k k k
hl_status "k k k: the sticky column leads back to load_config" \
	"load_config${SEP}6 samples${SEP}6.00% of all"

# ---- zoom ----
hl_keys j l
hl_status "to parse" "parse${SEP}50 samples${SEP}50.00% of all"
hl_keys Enter
hl_line "Enter: breadcrumb all › main › parse" 0 "all › main › parse"
hl_status "zoom: status adds % of view" \
	"parse${SEP}50 samples${SEP}50.00% of all${SEP}100.00% of view"
hl_line "zoom: parse alone on its row, full width" 26 "parse"
hl_line "zoom: lex [0,40) and parse_expr [40,100) (50 samples over 100 columns)" \
	25 "$(printf '%-40s%s' lex parse_expr)"
hl_line "zoom: next_token [0,40), parse_term [40,80)" \
	24 "$(printf '%-40s%s' next_token parse_term)"
hl_line "zoom: alloc_node [40,56)" \
	23 "$(printf '%40s%s' '' alloc_node)"
hl_expect "zoom: ancestors main and all drawn full width" \
	eval 'sc_is 27 main && sc_is 28 all'
hl_keys j
hl_status "j from the zoom root: ancestor main" "main${SEP}80 samples${SEP}80.00% of all"
hl_expect "an ancestor has no % of view" eval '! sc_grep "of view"'
# After a zoom the column is the middle (49): parse_expr [40,100) of the view.
hl_keys k k
hl_status "k k: through parse into the view, parse_expr under column 49" \
	"parse_expr${SEP}30 samples${SEP}30.00% of all${SEP}60.00% of view"
hl_keys Enter
hl_line "Enter: all › main › parse › parse_expr" 0 "all › main › parse › parse_expr"
hl_keys BS
hl_line "Backspace: back to all › main › parse" 0 "all › main › parse"
hl_status "Backspace: the selection stays on parse_expr" \
	"parse_expr${SEP}30 samples${SEP}30.00% of all${SEP}60.00% of view"
hl_keys u
hl_line "u: back to all" 0 "all"
hl_line "u: whole graph again" 26 "$(printf '%20s%-10s%-50s%s' '' init parse run)"
hl_status "u: the selection stays on parse_expr" "parse_expr${SEP}30 samples${SEP}30.00% of all"
# Zoomed into parse_expr the column is 49 again, inside parse_term [0,66).
hl_keys Enter k Enter
hl_line "two zooms: all › main › parse › parse_expr › parse_term" \
	0 "all › main › parse › parse_expr › parse_term"
hl_keys Home
hl_line "Home: back to all" 0 "all"
hl_keys Enter
hl_line "zoom into parse_term from the root" 0 "all › main › parse › parse_expr › parse_term"
hl_keys 0
hl_line "0: back to all" 0 "all"
hl_keys j j Enter j
hl_expect "select the ancestor main from inside parse" \
	eval 'sc_is 0 "all › main › parse" && sc_starts 29 "main${SEP}"'
hl_keys Enter
hl_line "Enter on an ancestor zooms out to it" 0 "all › main"
hl_line "main's view: init [0,12), parse [12,75), run [75,100)" \
	26 "$(printf '%-12s%-63s%s' init parse run)"
hl_keys u
hl_line "u: from main back to all" 0 "all"

# ---- orientation ----
hl_keys i
hl_expect "i: icicle, root row at the top" \
	eval 'sc_is 1 all && sc_is 2 "$(printf "%-20s%s" idle main)"'
hl_line "i: bottom graph row now empty" 28 ""
hl_keys i
hl_line "i again: flame, root row at the bottom" 28 "all"
hl_keys j
hl_status "all selected" "all${SEP}100 samples"

# ---- help: 46 rows of text, 28 of them on a 30-line screen ----
hl_keys '?'
hl_line "?: help screen" 0 "tflame keys"
hl_grep "help: q quits" '^  q +quit$'
hl_grep "help: Enter zooms" '^  Enter +zoom into the selected frame'
"$TFLAME" --list-keys >"$T_TMP/keys" 2>/dev/null
# The help scrolls when it does not fit: Space pages down, up to the
# footer's "(end)"; pages are gathered from the dumps FIRST..LAST, each one
# further down than the one before until the end.
help_pages() {
	local n="$1" foot="" f
	: >"$T_TMP/help"
	while [ "$n" -le "$2" ]; do
		f=$(grep -E '^(lines [0-9]+-[0-9]+ of [0-9]+|press any key)' "$HL_DIR/s.$n") || return 1
		[ "$f" != "$foot" ] || return 1
		cat "$HL_DIR/s.$n" >>"$T_TMP/help"
		case $f in *"(end)"* | "press any key"*) return 0 ;; esac
		foot=$f
		n=$((n + 1))
	done
	return 1
}
# Each VIEW<TAB>KEYS<TAB>DESC line of --list-keys: a help line that is
# VIEW, and one that is two blanks, KEYS, blanks, DESC (one awk, not four
# processes a key).
help_lists_all() {
	[ -s "$T_TMP/keys" ] || return 1
	awk -F'\t' 'NR == FNR { line[NR] = $0; n = NR; next }
		{
			v = 0; k = 0
			for (i = 1; i <= n; i++) {
				h = line[i]
				if (h == $1) v = 1
				if (substr(h, 1, 2 + length($2)) == "  " $2) {
					rest = substr(h, 3 + length($2))
					if (match(rest, /^ +/) && substr(rest, RLENGTH + 1) == $3) k = 1
				}
			}
			if (!v || !k) { print "missing: " $0 > "/dev/stderr"; bad = 1 }
		}
		END { exit bad }' "$T_TMP/help" "$T_TMP/keys"
}
first=$HL_DUMPS
for _ in 1 2 3 4 5 6 7 8; do
	hl_keys Space
	hl_dump
done
hl_expect "help: Space pages down to the end" help_pages "$first" "$HL_DUMPS"
hl_expect "help: every --list-keys line is on the help screen" help_lists_all
hl_keys g
hl_grep "help: g goes back to the top" '^lines 1-'
hl_keys j
hl_grep "help: j scrolls one line" '^lines 2-'
hl_keys k
hl_grep "help: k scrolls back" '^lines 1-'
check "--list-keys: VIEW<TAB>KEYS<TAB>DESCRIPTION lines" \
	grep -qx "$(printf 'Flame graph\th, Left\tselect the frame to the left')" "$T_TMP/keys"
check "--list-keys: q quits everywhere" grep -qx "$(printf 'Everywhere\tq\tquit')" "$T_TMP/keys"
check "--list-keys: the table's own keys" grep -qx "$(printf 'Table of functions (Tab)\t/\tshow only functions matching a regex')" "$T_TMP/keys"
hl_keys x
hl_status "any key closes the help" "all${SEP}100 samples"
hl_end

# ---- raw perf script on a pipe (a real recording of bench/workload) ----
# Total = the sum of the period column (awk: 1,579,289,250); the process
# name is the root's only child, so it spans the whole row above the root.
if command -v gzip >/dev/null 2>&1; then
	gzip -dc "$top_srcdir/tests/data/minisearch.perf.gz" > "$T_TMP/minisearch.perf"
	hl_open 100 30 -
	hl_stdin "$T_TMP/minisearch.perf"
	hl_status "perf pipe: collapsed and opened" "all${SEP}1.58 s cpu-clock"
	hl_line "perf pipe: the process name is the root's child" 27 "minisearch"
	hl_keys k
	hl_status "perf pipe: k selects the process" "minisearch${SEP}1.58 s cpu-clock"
	hl_keys k
	hl_status "perf pipe: then the libc start frame under it" "__libc_start_call_main${SEP}"
	hl_end
else
	skip "perf pipe" "gzip is not installed"
fi

# ---- the config file applies to the browser ----
mkdir -p "$T_TMP/home/.config/tflame"
printf '# icicle by default\ninverted = yes\n' > "$T_TMP/home/.config/tflame/config"
hl_open 100 30 "HOME=$T_TMP/home" XDG_CONFIG_HOME= -- "$F"
hl_line "config inverted = yes: the root row is on top (line 1)" 1 "all"
hl_keys q
hl_end

done_testing
