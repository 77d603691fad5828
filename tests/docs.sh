#!/bin/sh
# Documentation against the program, driven by what the program says
# (--help, --list-keys, --list-options) so that a new option or key shows up
# here by itself: the man page, README and the three completion scripts know
# every option of --help; the man page documents nothing that --help lacks;
# the man page's KEYS and README's Keys match `tflame --list-keys` both ways;
# hidden options stay hidden; every fixed set of values is accepted by tflame
# and offered by the completions; the page renders without warnings; the
# bash completion works when driven the way bash drives it.
. "${top_srcdir:-.}/tests/lib.sh"

MAN=$top_srcdir/doc/tflame.1
BASHC=$top_srcdir/completions/tflame.bash
ZSHC=$top_srcdir/completions/_tflame
FISHC=$top_srcdir/completions/tflame.fish
have() { command -v "$1" > /dev/null 2>&1; }

for f in "$MAN" "$BASHC" "$ZSHC" "$FISHC"; do
	[ -s "$f" ] || { fail "${f#"$top_srcdir"/} exists and is not empty"; done_testing; exit; }
done

# ---- what the program says ------------------------------------------------

"$TFLAME" --help > "$T_TMP/help" 2>&1 || { fail "tflame --help runs" "$(cat "$T_TMP/help")"; done_testing; exit; }
# One line per option: its column of --help ("-w, --width=N"), then the long
# name, the short one ("" when none).
awk '/^ +-/ {
	sub(/^ +/, ""); split($0, a, /  +/); col = a[1]
	long = col; sub(/^-[A-Za-z], /, "", long); sub(/\[?=.*/, "", long)
	short = ""; if (col ~ /^-[A-Za-z],/) short = substr(col, 1, 2)
	printf "%s\t%s\t%s\n", col, long, short
}' "$T_TMP/help" > "$T_TMP/options"
cut -f2 "$T_TMP/options" > "$T_TMP/helplongs0"
n=$(($(wc -l < "$T_TMP/options")))
check "--help lists options ($n)" test "$n" -ge 10

# NAME<TAB>flag|value<TAB>fixed values or -<TAB>config or -, every option.
"$TFLAME" --list-options > "$T_TMP/listopts" 2> /dev/null || : > "$T_TMP/listopts"
while IFS='	' read -r col long short; do
	grep -q "^${long#--}	" "$T_TMP/listopts" && pass "--list-options knows $long" ||
		fail "--list-options knows $long" "the option table and --help disagree"
done < "$T_TMP/options"
# Options with a fixed set of values: "NAME<TAB>v1 v2 ...".
awk -F '\t' '$3 != "-" { print $1 "\t" $3 }' "$T_TMP/listopts" > "$T_TMP/fixed"
check "some options have a fixed set of values" test -s "$T_TMP/fixed"

"$TFLAME" --list-keys > "$T_TMP/keys" 2> /dev/null || : > "$T_TMP/keys"
# "VIEW<TAB>KEYS": the man page's KEYS has a subsection per view (.SS, the
# view's title), README's Keys a sub-heading ("Title:").
cut -f1,2 "$T_TMP/keys" > "$T_TMP/keynames"

# ---- the man page as text -------------------------------------------------

# Every .TP tag of the page as "SECTION<TAB>plain text", the roff markup
# removed: ".BR \-w \", \" \-\-width =\fIN\fP" gives "-w, --width=N".
awk '
function unescape(s) {
	gsub(/\\f[BIRP]/, "", s); gsub(/\\-/, "-", s); gsub(/\\&/, "", s)
	gsub(/\\c/, "", s); gsub(/\\~/, " ", s); gsub(/\\\(aq/, "\047", s)
	gsub(/\\e/, "\\", s)
	return s
}
function plain(line,    name, rest, n, i, c, q, arg, args, out, sep) {
	if (line !~ /^\./)
		return unescape(line)
	name = line; sub(/^\.[ \t]*/, "", name); sub(/[ \t].*/, "", name)
	rest = line; sub(/^\.[ \t]*[^ \t]*[ \t]*/, "", rest)
	if (name == "B" || name == "I") sep = " "
	else if (name ~ /^(BR|RB|BI|IB|IR|RI)$/) sep = ""
	else return ""
	n = 0; arg = ""; q = 0
	for (i = 1; i <= length(rest); i++) {
		c = substr(rest, i, 1)
		if (c == "\"") { q = !q; continue }
		if (!q && (c == " " || c == "\t")) {
			if (arg != "") args[++n] = arg
			arg = ""; continue
		}
		arg = arg c
	}
	if (arg != "") args[++n] = arg
	out = ""
	for (i = 1; i <= n; i++) out = out (i > 1 ? sep : "") args[i]
	return unescape(out)
}
/^\.SH/ { sec = $0; sub(/^\.SH[ \t]*/, "", sec); gsub(/"/, "", sec); ss = ""; next }
/^\.SS/ { ss = $0; sub(/^\.SS[ \t]*/, "", ss); gsub(/"/, "", ss); ss = unescape(ss); next }
tag { tag = 0; print sec "\t" plain($0) "\t" ss; next }
/^\.TP/ { tag = 1 }
' "$MAN" > "$T_TMP/mantags"
awk -F '\t' '$1 == "OPTIONS" { print $2 }' "$T_TMP/mantags" > "$T_TMP/manopts"
awk -F '\t' '$1 == "KEYS" { print $3 "\t" $2 }' "$T_TMP/mantags" > "$T_TMP/mankeys"

# ---- man page: sections, environment ---------------------------------------

sed -n 's/^\.SH[ \t]*//p' "$MAN" | tr -d '"' > "$T_TMP/mansections"
for sec in NAME SYNOPSIS DESCRIPTION OPTIONS KEYS "INPUT FORMATS" "CONFIGURATION FILE" \
	ENVIRONMENT FILES "EXIT STATUS" EXAMPLES "SEE ALSO"; do
	grep -qxF "$sec" "$T_TMP/mansections" && pass "man page: section $sec" ||
		fail "man page: section $sec" "sections: $(tr '\n' '|' < "$T_TMP/mansections")"
done
awk -F '\t' '$1 == "ENVIRONMENT" { print $2 }' "$T_TMP/mantags" | tr -s ', ' '\n\n' > "$T_TMP/manenv"
for v in NO_COLOR TERM COLUMNS LANG LC_ALL TFLAME_CONFIG XDG_CONFIG_HOME HOME; do
	grep -qxF "$v" "$T_TMP/manenv" && pass "man page: ENVIRONMENT has $v" ||
		fail "man page: ENVIRONMENT has $v" "entries: $(tr '\n' ' ' < "$T_TMP/manenv")"
done
# Every variable the program reads (getenv in src/) has an entry.
for v in $(grep -ho 'getenv("[A-Z_]*")' "$top_srcdir"/src/*.c "$top_srcdir"/src/*/*.c | sed 's/getenv("//; s/")//' | sort -u); do
	grep -qxF "$v" "$T_TMP/manenv" && pass "man page: ENVIRONMENT has $v (read in src/)" ||
		fail "man page: ENVIRONMENT has $v (read in src/)" "entries: $(tr '\n' ' ' < "$T_TMP/manenv")"
done

# The options a config file may not set (--list-options' last column "-",
# hidden ones aside) are named where the config file is described.
awk '/^\.SH/ { on = ($0 ~ /CONFIGURATION FILE/) } on && /^\.BR? / { print $2 }' "$MAN" |
	sed 's/\\-/-/g' > "$T_TMP/mancfgwords"
awk '/^Config file$/ { on = 1; ul = 1; next } on && ul && /^-+$/ { ul = 0; next } on && /^-+$/ { on = 0 } on' \
	"$top_srcdir/README" > "$T_TMP/readmecfg"
"$TFLAME" --list-options 2> /dev/null | awk -F '\t' '$4 == "-" { print $1 }' > "$T_TMP/clionly"
while IFS= read -r name; do
	grep -qxF -- "--$name" "$T_TMP/helplongs0" || continue      # hidden
	grep -qxF -- "$name" "$T_TMP/mancfgwords" && pass "man page: CONFIGURATION FILE says $name is not for the file" ||
		fail "man page: CONFIGURATION FILE says $name is not for the file"
	grep -qE -- "(^|[^-[:alnum:]])--$name([^-[:alnum:]]|\$)" "$T_TMP/readmecfg" &&
		pass "README: Config file says --$name is not for the file" ||
		fail "README: Config file says --$name is not for the file"
done < "$T_TMP/clionly"

# ---- man page: OPTIONS, both ways -------------------------------------------

while IFS='	' read -r col long short; do
	if grep -qxF -- "$col" "$T_TMP/manopts"; then
		pass "man page: OPTIONS has an entry '$col'"
	else
		fail "man page: OPTIONS has an entry '$col'" \
			"entries mentioning $long: $(grep -F -- "$long" "$T_TMP/manopts" | tr '\n' ' ')"
	fi
done < "$T_TMP/options"

cut -f1 "$T_TMP/options" > "$T_TMP/helpcols"
while IFS= read -r tag; do
	if grep -qxF -- "$tag" "$T_TMP/helpcols"; then
		pass "man page: '$tag' is an option of --help"
	else
		fail "man page: '$tag' is an option of --help" "not in: $(tr '\n' ' ' < "$T_TMP/helpcols")"
	fi
done < "$T_TMP/manopts"

# ---- man page: KEYS, both ways ----------------------------------------------

if [ -s "$T_TMP/keynames" ]; then
	while IFS= read -r k; do
		if grep -qxF -- "$k" "$T_TMP/mankeys"; then
			pass "man page: KEYS has an entry '$k'"
		else
			fail "man page: KEYS has an entry '$k'" "KEYS entries: $(tr '\n' '|' < "$T_TMP/mankeys")"
		fi
	done < "$T_TMP/keynames"
	while IFS= read -r k; do
		if grep -qxF -- "$k" "$T_TMP/keynames"; then
			pass "man page: key '$k' is in the key table"
		else
			fail "man page: key '$k' is in the key table" "tflame --list-keys: $(tr '\n' '|' < "$T_TMP/keynames")"
		fi
	done < "$T_TMP/mankeys"
else
	skip "man page: KEYS matches the key table" "tflame --list-keys printed nothing"
fi

# ---- man page: version, hidden options, rendering --------------------------

version=$("$TFLAME" --version | sed 's/^tflame //')
grep -q "^\.TH TFLAME 1 .*\"tflame $version\"" "$MAN" &&
	pass "man page: .TH names version $version" ||
	fail "man page: .TH names version $version" "$(grep '^\.TH' "$MAN")"

# Hidden options: the ones --list-options knows and --help does not.
cut -f2 "$T_TMP/options" > "$T_TMP/helplongs"
: > "$T_TMP/hidden"
while IFS='	' read -r name arg values cfg; do
	grep -qxF -- "--$name" "$T_TMP/helplongs" || echo "$name" >> "$T_TMP/hidden"
done < "$T_TMP/listopts"
check "some options are hidden (in --list-options, not in --help)" test -s "$T_TMP/hidden"
while IFS= read -r h; do
	if grep -qF -- "--$h" "$T_TMP/manopts" "$ZSHC" "$FISHC" ||
	   grep -qE -- "(^|[[:space:]])--$h=?([[:space:]]|\$)" "$BASHC"; then
		fail "hidden option --$h is not documented or completed"
	else
		pass "hidden option --$h is not documented or completed"
	fi
done < "$T_TMP/hidden"

if have groff; then
	groff -man -Tutf8 -ww -z "$MAN" > "$T_TMP/groff.out" 2>&1 && ! [ -s "$T_TMP/groff.out" ] &&
		pass "man page: groff -ww reports nothing" ||
		fail "man page: groff -ww reports nothing" "$(cat "$T_TMP/groff.out")"
else
	skip "man page: groff -ww reports nothing" "no groff"
fi
if have mandoc; then
	mandoc -Tlint "$MAN" > "$T_TMP/mandoc.out" 2>&1 && ! [ -s "$T_TMP/mandoc.out" ] &&
		pass "man page: mandoc -Tlint reports nothing" ||
		fail "man page: mandoc -Tlint reports nothing" "$(cat "$T_TMP/mandoc.out")"
else
	skip "man page: mandoc -Tlint reports nothing" "no mandoc"
fi

# ---- README: every option, every key ------------------------------------

README=$top_srcdir/README
while IFS='	' read -r col long short; do
	grep -qE -- "(^|[^-[:alnum:]])$long([^-[:alnum:]]|\$)" "$README" && pass "README names $long" ||
		fail "README names $long" "add it to README's Options"
done < "$T_TMP/options"
# The Keys section: lines "    KEYS   description" between "Keys" and the
# next underlined heading (unindented lines in between are sub-headings).
awk '/^Keys$/ { on = 1; ul = 1; next } on && ul && /^-+$/ { ul = 0; next }
     on && /^-+$/ { on = 0 } on && /^[^ ].*:$/ { sub(/:$/, ""); view = $0; next }
     on && /^    [^ ]/ { sub(/^    /, ""); split($0, a, /  +/); print view "\t" a[1] }' \
	"$README" > "$T_TMP/readmekeys"
if [ -s "$T_TMP/keynames" ]; then
	while IFS= read -r k; do
		grep -qxF -- "$k" "$T_TMP/readmekeys" && pass "README: Keys has '$k'" ||
			fail "README: Keys has '$k'" "README's keys: $(tr '\n' '|' < "$T_TMP/readmekeys")"
	done < "$T_TMP/keynames"
	while IFS= read -r k; do
		grep -qxF -- "$k" "$T_TMP/keynames" && pass "README: key '$k' is in the key table" ||
			fail "README: key '$k' is in the key table" "tflame --list-keys: $(tr '\n' '|' < "$T_TMP/keynames")"
	done < "$T_TMP/readmekeys"
else
	skip "README: Keys matches the key table" "tflame --list-keys printed nothing"
fi

# ---- zsh and fish: every option, syntax -------------------------------------

# zsh: an option is an _arguments spec: after ' { , * (repeatable) or the
# ")" closing an exclusion list, and before [ = + } or , (a name inside an
# exclusion list "(-c --collapse)" does not count).
while IFS='	' read -r col long short; do
	ok=1
	for o in $long $short; do
		grep -qE -- "['{,*)]$o([]=+},[]|\$)" "$ZSHC" || ok=""
	done
	[ -n "$ok" ] && pass "zsh completion: $col" || fail "zsh completion: $col" "no _arguments spec for $long $short"
done < "$T_TMP/options"

# fish: one complete line with -l NAME (and -s X for a short option).
while IFS='	' read -r col long short; do
	re="^complete .*-l ${long#--}( |\$)"
	line=$(grep -E -- "$re" "$FISHC")
	if [ -n "$line" ] && { [ -z "$short" ] || printf '%s\n' "$line" | grep -qE -- "-s ${short#-}( |\$)"; }; then
		pass "fish completion: $col"
	else
		fail "fish completion: $col" "no 'complete' line with -l ${long#--}${short:+ and -s ${short#-}}"
	fi
done < "$T_TMP/options"

if have zsh; then
	check "zsh completion: zsh -n" zsh -n "$ZSHC"
else
	skip "zsh completion: zsh -n" "no zsh"
fi
if have fish; then
	check "fish completion: fish -n" fish -n "$FISHC"
else
	skip "fish completion: fish -n" "no fish"
fi

# ---- options with a fixed set of values, everywhere ------------------------

printf 'a;b 1\n' > "$T_TMP/tiny.folded"
sorted_words() { printf '%s\n' $1 | LC_ALL=C sort; }
while IFS='	' read -r name values; do
	for v in $values; do
		# Accepted: not a usage error (--format=perf may still reject the
		# folded input, with status 1).
		"$TFLAME" "--$name=$v" --collapse "$T_TMP/tiny.folded" > /dev/null 2> "$T_TMP/err.v"
		rc=$?
		[ $rc -ne 2 ] && ! grep -q 'invalid value' "$T_TMP/err.v" &&
			pass "tflame accepts --$name=$v" || fail "tflame accepts --$name=$v" "rc=$rc" "$(cat "$T_TMP/err.v")"
	done
	"$TFLAME" "--$name=no-such-value" --collapse "$T_TMP/tiny.folded" > /dev/null 2> "$T_TMP/err.v"
	rc=$?
	named=1
	for v in $values; do grep -qw -- "$v" "$T_TMP/err.v" || named=""; done
	{ [ $rc -eq 2 ] && [ -n "$named" ]; } &&
		pass "--$name=no-such-value: exit 2, the values listed" ||
		fail "--$name=no-such-value: exit 2, the values listed" "rc=$rc" "$(cat "$T_TMP/err.v")"

	sorted_words "$values" > "$T_TMP/want.v"
	for v in $values; do
		grep -qE -- "['( ]$v[:' )]" "$ZSHC" && pass "zsh completion: --$name offers $v" ||
			fail "zsh completion: --$name offers $v" "no 'VALUE:' or (... VALUE ...) in $ZSHC"
	done
	if have fish; then
		HOME=$T_TMP fish --no-config -c 'source $argv[1]; complete -C"tflame --$argv[2] "' "$FISHC" "$name" \
			2>&1 | cut -f1 | LC_ALL=C sort > "$T_TMP/fish.v"
		same "fish completion: --$name offers $(echo $values)" "$T_TMP/fish.v" "$T_TMP/want.v"
	else
		skip "fish completion: --$name offers $(echo $values)" "no fish"
	fi
done < "$T_TMP/fixed"

# ---- bash: drive _tflame ----------------------------------------------------

if ! have bash; then
	skip_rest="no bash"
else
	skip_rest=""
fi

# bcomp WORDBREAKS LINE CWORD WORD...: the sorted candidates of _tflame, one
# a line, for the words bash would have made of LINE.
bcomp() {
	bash --norc --noprofile -c '
		source "$1" || exit 1
		COMP_WORDBREAKS=$2 COMP_LINE=$3 COMP_POINT=${#3} COMP_CWORD=$4
		shift 4
		COMP_WORDS=("$@") COMPREPLY=()
		_tflame tflame "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		((${#COMPREPLY[@]} == 0)) || printf "%s\n" "${COMPREPLY[@]}"
	' bash "$BASHC" "$@" | LC_ALL=C sort
}
WB=$(printf ' \t\n"'"'"'@><=;|&(:')       # bash's default
WB_NOEQ=$(printf ' \t\n"'"'"'@><;|&(:')   # the same without '='

# bcheck NAME WANT(lines, "\n"-separated) WORDBREAKS LINE CWORD WORD...
bcheck() {
	name=$1 want=$2; shift 2
	if [ -n "$skip_rest" ]; then skip "$name" "$skip_rest"; return; fi
	printf '%b' "$want" > "$T_TMP/b.want"
	bcomp "$@" > "$T_TMP/b.got" 2> "$T_TMP/b.err"
	if cmp -s "$T_TMP/b.got" "$T_TMP/b.want" && ! [ -s "$T_TMP/b.err" ]; then
		pass "$name"
	else
		fail "$name" "got: $(tr '\n' ' ' < "$T_TMP/b.got")" "want: $(tr '\n' ' ' < "$T_TMP/b.want")" "$(cat "$T_TMP/b.err")"
	fi
}

bcheck "bash completion: tflame --for<TAB> gives --format" '--format\n' \
	"$WB" "tflame --for" 1 tflame --for
bcheck "bash completion: tflame --format <TAB> offers every format" 'auto\ncpuprofile\nfolded\nperf\nperf-data\npprof\nspeedscope\n' \
	"$WB" "tflame --format " 2 tflame --format ""
bcheck "bash completion: tflame -f p<TAB> gives perf perf-data pprof" 'perf\nperf-data\npprof\n' \
	"$WB" "tflame -f p" 2 tflame -f p
bcheck "bash completion: tflame record --dw<TAB> gives --dwarf" '--dwarf\n' \
	"$WB" "tflame record --dw" 2 tflame record --dw
bcheck "bash completion: tflame --sort=<TAB> offers name weight input" 'input\nname\nweight\n' \
	"$WB" "tflame --sort=" 2 tflame --sort =
bcheck "bash completion: tflame --sort=we<TAB> gives weight" 'weight\n' \
	"$WB" "tflame --sort=we" 3 tflame --sort = we
bcheck "bash completion: --sort=we<TAB> without '=' in COMP_WORDBREAKS" '--sort=weight\n' \
	"$WB_NOEQ" "tflame --sort=we" 1 tflame --sort=we
bcheck "bash completion: tflame --colors=j<TAB> offers java js" 'java\njs\n' \
	"$WB" "tflame --colors=j" 3 tflame --colors = j
bcheck "bash completion: tflame --colors p<TAB> offers perl purple python" 'perl\npurple\npython\n' \
	"$WB" "tflame --colors p" 2 tflame --colors p
bcheck "bash completion: no candidates for --width's number" '' \
	"$WB" "tflame --width " 2 tflame --width ""

mkdir "$T_TMP/d"
: > "$T_TMP/d/profile.folded"
: > "$T_TMP/d/-dash.folded"
bcheck "bash completion: a plain word completes file names" "$T_TMP/d/profile.folded\n" \
	"$WB" "tflame $T_TMP/d/pro" 1 tflame "$T_TMP/d/pro"
bcheck "bash completion: file names after an option" "$T_TMP/d/profile.folded\n" \
	"$WB" "tflame -c $T_TMP/d/pro" 2 tflame -c "$T_TMP/d/pro"
bcheck "bash completion: after -- a word starting with - is a file" "$T_TMP/d/-dash.folded\n" \
	"$WB" "tflame -- $T_TMP/d/-" 2 tflame -- "$T_TMP/d/-"

# Every fixed set of values, from --list-options.
while IFS='	' read -r name values; do
	bcheck "bash completion: tflame --$name <TAB> offers $(echo $values)" \
		"$(sorted_words "$values" | sed 's/$/\\n/' | tr -d '\n')" \
		"$WB" "tflame --$name " 2 tflame "--$name" ""
done < "$T_TMP/fixed"

# With bash-completion itself: loaded on demand under the name make install
# gives it ("tflame"), and file names through its _filedir.
BC=/usr/share/bash-completion/bash_completion
if [ -n "$skip_rest" ] || ! [ -f "$BC" ]; then
	skip "bash-completion loads the completion by the command's name" "no bash-completion"
	skip "with bash-completion: file names through _filedir" "no bash-completion"
else
	mkdir -p "$T_TMP/bcu/completions"
	cp "$BASHC" "$T_TMP/bcu/completions/tflame"
	BASH_COMPLETION_USER_DIR=$T_TMP/bcu bash --norc --noprofile -c \
		'source "$1" && __load_completion tflame && complete -p tflame' bash "$BC" > "$T_TMP/bc.out" 2>&1
	grep -qx 'complete -F _tflame tflame' "$T_TMP/bc.out" &&
		pass "bash-completion loads the completion by the command's name" ||
		fail "bash-completion loads the completion by the command's name" "$(cat "$T_TMP/bc.out")"
	bash --norc --noprofile -c '
		source "$1"; source "$2"; cd "$3"
		COMP_WORDS=(tflame pro) COMP_CWORD=1 COMP_LINE="tflame pro" COMP_POINT=10 COMPREPLY=()
		_tflame tflame pro tflame; printf "%s\n" "${COMPREPLY[@]}"' bash "$BC" "$BASHC" "$T_TMP/d" > "$T_TMP/bc.files" 2>&1
	printf 'profile.folded\n' > "$T_TMP/bc.want"
	same "with bash-completion: file names through _filedir" "$T_TMP/bc.files" "$T_TMP/bc.want"
fi

# Every option of --help, long and short, is offered for "-"; so is "-"
# itself (standard input).
if [ -n "$skip_rest" ]; then
	skip "bash completion: tflame -<TAB> offers every option" "$skip_rest"
else
	bcomp "$WB" "tflame -" 1 tflame - > "$T_TMP/b.dash"
	while IFS='	' read -r col long short; do
		for o in $long $short; do
			grep -qxF -- "$o" "$T_TMP/b.dash" && pass "bash completion: $o" ||
				fail "bash completion: $o" "offered: $(tr '\n' ' ' < "$T_TMP/b.dash")"
		done
	done < "$T_TMP/options"
	grep -qx -- - "$T_TMP/b.dash" && pass "bash completion: '-' (stdin) is offered for -" ||
		fail "bash completion: '-' (stdin) is offered for -"
fi

done_testing
