# tests/golden/hl.sh: sourced by the headless browser tests (after
# tests/lib.sh). A test reads as the tmux tests do, keys then what the
# screen must show, but no terminal is involved: the keys are gathered into
# one key script (src/ui/script.h), each expectation adds a dump to it, and
# hl_end runs tflame --script once, then checks every dumped screen in
# order, one TAP line each. Expected screens are worked out by hand.
#
#   hl_open W H [ENV=V... --] ARG...  a session on a W x H screen: tflame
#                         with ARGs (already split: no shell quoting needed)
#   hl_stdin FILE         the session's stdin is FILE through a pipe (cat)
#   hl_keys TOKEN...      key-script tokens: k, Enter, Esc, BS, C-w, j*3 ...
#   hl_type TEXT          TEXT's bytes as keys, one a token (blanks: Space)
#   hl_size W H           the screen becomes W x H (a resize, headless)
#   hl_expect NAME CMD... CMD must succeed on the screen at this point; it
#                         reads it with the sc_* helpers below
#   hl_line NAME N TEXT   line N (0 = top) is exactly TEXT
#   hl_prefix NAME N TEXT line N starts with TEXT
#   hl_status NAME TEXT   the last line (status or prompt) starts with TEXT
#   hl_grep NAME ERE      some line matches ERE
#   hl_dump               a dump without a check (for checks over several
#                         screens: $HL_DUMPS is its number, $HL_DIR/s.N the
#                         screens when the checks run)
#   hl_end [RC]           plays the session; tflame must exit RC (0)
#
# Inside an expectation, $HL_SCREEN is the screen as a file (one line per
# row, trailing blanks cut) and these read it:
#   sc_is N TEXT  sc_starts N TEXT  sc_grep ERE  sc_line N

HL_DIR="$T_TMP/hl"
HL_SESSION=0

# The words quoted for eval, in HL_Q, without a process per word (a test
# has hundreds of them).
hl_quote() {
	local a r q=""
	for a in "$@"; do
		r=""
		while :; do
			case $a in
			*\'*) r="$r${a%%\'*}'\\''"; a=${a#*\'} ;;
			*) break ;;
			esac
		done
		q="$q '$r$a'"
	done
	HL_Q=$q
}

hl_open() {
	rm -rf "$HL_DIR"
	mkdir -p "$HL_DIR"
	HL_SESSION=$((HL_SESSION + 1))
	HL_W=$1 HL_H=$2 HL_N=0 HL_DUMPS=0 HL_DIRTY=1 HL_ENV="" HL_STDIN=""
	shift 2
	case " $* " in
	*" -- "*) while [ "$1" != "--" ]; do hl_quote "$1"; HL_ENV="$HL_ENV$HL_Q"; shift; done; shift ;;
	esac
	hl_quote "$@"
	HL_ARGS=$HL_Q
	printf 'size=%dx%d\n' "$HL_W" "$HL_H" > "$HL_DIR/keys"
	: > "$HL_DIR/heights"
}
hl_stdin() { HL_STDIN=$1; }
hl_keys() { printf '%s\n' "$*" >> "$HL_DIR/keys"; HL_DIRTY=1; }
hl_type() {
	local t="$1" c
	while [ -n "$t" ]; do
		c=${t%"${t#?}"}
		t=${t#?}
		case $c in
		' ') hl_keys Space ;;
		'#') hl_keys 'type=#' ;;        # a '#' token starts a comment
		*) hl_keys "$c" ;;
		esac
	done
}
hl_size() { HL_W=$1 HL_H=$2; hl_keys "size=$1x$2"; }

hl_dump() {
	echo dump >> "$HL_DIR/keys"
	echo "$HL_H" >> "$HL_DIR/heights"
	HL_DUMPS=$((HL_DUMPS + 1))
	HL_DIRTY=0
}
hl_expect() {
	[ "$HL_DIRTY" = 1 ] && hl_dump
	HL_N=$((HL_N + 1))
	hl_quote "$@"
	eval "HL_C$HL_N=\$HL_Q HL_S$HL_N=$HL_DUMPS"
}
hl_line() { hl_expect "$1" sc_is "$2" "$3"; }
hl_prefix() { hl_expect "$1" sc_starts "$2" "$3"; }
hl_status() { hl_expect "$1" sc_starts "$((HL_H - 1))" "$2"; }
hl_grep() { hl_expect "$1" sc_grep "$2"; }

# The screen's lines are read once into HL_L0, HL_L1, ... (no process
# per check).
hl__load() {
	local i=0 l
	[ "$HL_LOADED" = "$HL_SCREEN" ] && return
	while IFS= read -r l; do
		eval "HL_L$i=\$l"
		i=$((i + 1))
	done < "$HL_SCREEN"
	HL_NL=$i
	HL_LOADED=$HL_SCREEN
}
sc_line() {
	hl__load
	if [ "$1" -lt "$HL_NL" ]; then eval "printf '%s\\n' \"\$HL_L$1\""; else echo; fi
}
sc_is() {
	hl__load
	[ "$1" -lt "$HL_NL" ] || { [ -z "$2" ]; return; }
	eval "[ \"\$HL_L$1\" = \"\$2\" ]"
}
sc_starts() {
	hl__load
	[ "$1" -lt "$HL_NL" ] || { [ -z "$2" ]; return; }
	eval "case \$HL_L$1 in \"\$2\"*) return 0 ;; esac"
	return 1
}
sc_grep() { grep -Eq -- "$1" "$HL_SCREEN"; }

hl_end() {
	local want="${1:-0}" k=1 n name
	rc=0
	HL_LOADED=
	if [ -n "$HL_STDIN" ]; then
		eval "cat \"\$HL_STDIN\" | timeout -k 5 $T ${HL_ENV:+env$HL_ENV} \"\$TFLAME\" \"--script=\$HL_DIR/keys\" $HL_ARGS" \
			> "$HL_DIR/out" 2> "$HL_DIR/err" || rc=$?
	else
		eval "timeout -k 5 $T ${HL_ENV:+env$HL_ENV} \"\$TFLAME\" \"--script=\$HL_DIR/keys\" $HL_ARGS" \
			< /dev/null > "$HL_DIR/out" 2> "$HL_DIR/err" || rc=$?
	fi
	if [ "$rc" -eq "$want" ]; then
		pass "headless session $HL_SESSION: exit status $want"
	else
		fail "headless session $HL_SESSION: exit status $want" "tflame --script$HL_ARGS: got $rc" \
			"$(head -c 600 "$HL_DIR/err")"
	fi
	# The dumps one file each, by the height each was made at.
	awk -v dir="$HL_DIR" 'NR == FNR { h[++nd] = $1; next }
		{ while (d <= nd && used >= h[d]) { d++; used = 0 }
		  if (d > nd) exit
		  print > (dir "/s." d); used++ }' d=1 "$HL_DIR/heights" "$HL_DIR/out"
	while [ "$k" -le "$HL_N" ]; do
		eval "n=\$HL_S$k"
		HL_SCREEN="$HL_DIR/s.$n"
		[ -f "$HL_SCREEN" ] || : > "$HL_SCREEN"
		eval "eval \"set -- \$HL_C$k\""
		name=$1
		shift
		if "$@"; then
			pass "$name"
		else
			fail "$name" "screen $n of $HL_DUMPS:" "$(sed 's/^/|/' "$HL_SCREEN")" "$(head -c 300 "$HL_DIR/err")"
		fi
		k=$((k + 1))
	done
}
