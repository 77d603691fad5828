#!/bin/sh
# tests/ui/regex.sh: no regex can freeze tflame (issue 21, defects 1 and 2).
#   - the issue's reproductions with --print: a backtracking pattern on a
#     long name, and a pattern whose compiled form was gigabytes, finish
#     (timeout 60 is a hang guard, not a timing) with the matches worked
#     out below and a note on the names the pattern was too costly on;
#   - in the browser (tmux): typing such a pattern shows its result, Esc
#     cancels a search that is still running, q quits and the terminal is
#     restored; SIGTERM and SIGINT end a running search's browser.
# (An exact-name search staying exact: tests/golden/regex.sh, headless.)
# Run directly (sh tests/ui/regex.sh) it finds an in-tree build by itself.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/ui/tmux.sh"

tm_require

# A2000: 2,000 a's. The profile (10 samples):
#   main;A2000 4      no 'b': cannot match (a*)*\1b
#   main;A2000cb 3    matches at its 'b' ((a*)* empty, \1 empty), but
#                     trying from its first 'a' backtracks 2^2000 ways:
#                     too costly, counted as no match
#   main;ab 2         matches ((a*)* empty at the b)
#   other 1
A2000=$(awk 'BEGIN { s = "a"; while (length(s) < 2000) s = s s; print substr(s, 1, 2000) }')
F="$T_TMP/long.folded"
{
	printf 'main;%s 4\n' "$A2000"
	printf 'main;%scb 3\n' "$A2000"
	printf 'main;ab 2\nother 1\n'
} > "$F"

# ---- --print: the issue's reproductions ----
timeout 60 "$TFLAME" --no-config --print -w 100 --search='(a*)*\1b' "$F" > "$T_TMP/out" 2> "$T_TMP/err"
rc=$?
check "--search='(a*)*\\\\1b' on a 2,000-a name: finishes, exit 0" test "$rc" -eq 0
printf '%s\n' "/(a*)*\\1b/  1 match${SEP}20.00% of samples" > "$T_TMP/want"
sed -n 2p "$T_TMP/out" > "$T_TMP/got"
same "--search='(a*)*\\\\1b': only main;ab matches (2 of 10 samples)" "$T_TMP/got" "$T_TMP/want"
echo "tflame: --search: the pattern was too costly on 1 name (counted as no match)" > "$T_TMP/want"
same "--search='(a*)*\\\\1b': says it was too costly on the a...cb name" "$T_TMP/err" "$T_TMP/want"

# (a{1,1000}){1,1000}b: a's right before a b, only in "ab". Compiling it
# must not take gigabytes: under a 1 GiB address space (not for a sanitizer
# build, which cannot run under ulimit -v at all).
lim='ulimit -v 1048576' gib=' in 1 GiB'
if ! (ulimit -v 1048576 && "$TFLAME" --version) > /dev/null 2>&1; then
	lim=: gib=
	skip "--search='(a{1,1000}){1,1000}b' in 1 GiB" "this build cannot run under ulimit -v (sanitizers)"
fi
(eval "$lim"; timeout 60 "$TFLAME" --no-config --threads=1 --print -w 100 \
	--search='(a{1,1000}){1,1000}b' "$F") > "$T_TMP/out" 2> "$T_TMP/err"
rc=$?
check "--search='(a{1,1000}){1,1000}b': finishes$gib, exit 0" test "$rc" -eq 0
echo "/(a{1,1000}){1,1000}b/  1 match${SEP}20.00% of samples" > "$T_TMP/want"
sed -n 2p "$T_TMP/out" > "$T_TMP/got"
same "--search='(a{1,1000}){1,1000}b': only main;ab matches" "$T_TMP/got" "$T_TMP/want"

# --hide with the same pattern: ab hidden (its 2 samples go to main), the
# a...cb name kept (too costly: not hidden), and a note says so.
timeout 60 "$TFLAME" --no-config --collapse --hide='(a*)*\1b' "$F" > "$T_TMP/out" 2> "$T_TMP/err"
rc=$?
{
	printf 'main 2\n'
	printf 'main;%s 4\n' "$A2000"
	printf 'main;%scb 3\n' "$A2000"
	printf 'other 1\n'
} > "$T_TMP/want"
check "--hide='(a*)*\\\\1b': finishes, exit 0" test "$rc" -eq 0
same "--hide='(a*)*\\\\1b': ab hidden, the costly name kept" "$T_TMP/out" "$T_TMP/want"
check "--hide='(a*)*\\\\1b': a note on the costly name" \
	grep -qx 'tflame: --hide: the pattern was too costly on 1 name (not hidden)' "$T_TMP/err"

# ---- the browser ----
# start FILE ARGS...: tflame through a shell that records its PID
start() {
	f=$1
	shift
	tm_tflame_pid --no-config "$@" "$(q "$f")"
}

tm_start 100 30 || { fail "tmux server starts"; done_testing; exit; }

start "$F"
expect "open: the graph is drawn" tm_wait_prefix 28 "all"
tm_keys /
tm_type '(a*)*\1b'
expect "typed (a*)*\\\\1b: the result at once, 1 match and the costly name said" \
	tm_wait_line 29 "/(a*)*\\1b  1 match${SEP}20.00% of samples, too costly on 1 name"
tm_keys Enter
expect "Enter: the status line says it too" \
	tm_wait_grep "^/\\(a\\*\\)\\*\\\\1b/  match 1 of 1${SEP}20.00% of samples${SEP}too costly on 1 name"
tm_keys Escape
expect "Esc: the search is cleared, ab (its first match) selected" tm_wait_prefix 29 "ab${SEP}2 samples"
tm_keys q
expect "q: tflame exits 0" tm_wait_grep '^rc=0$'
expect "q: the alternate screen is off" tm_wait alternate_is 0
tty_sane "q after a costly search"

# Many costly names: a pass of seconds (20,000 names, each stopped by the
# match limit). It goes on in slices: Esc cancels it, signals end tflame.
awk 'BEGIN { a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	for (i = 0; i < 20000; i++) printf "main;f%d_%scb 1\n", i, a }' > "$T_TMP/many.folded"
start "$T_TMP/many.folded"
expect "many: the graph is drawn" tm_wait_prefix 28 "all"
tm_keys /
tm_type '(a*)*\1b'
expect "many: the pass runs, its progress shown" tm_wait_grep '^/\(a\*\)\*\\1b  searching [0-9]+%'
tm_keys Escape
expect "many: Esc cancels the running pass at once" tm_wait_prefix 29 "all${SEP}20,000 samples"
tm_keys q
expect "many: q then exits 0" tm_wait_grep '^rc=0$'
expect "many: the alternate screen is off" tm_wait alternate_is 0

printf 'search = (a*)*\\1b\n' > "$T_TMP/search.cfg"
for sig in TERM INT; do
	start "$T_TMP/many.folded" "--config=$(q "$T_TMP/search.cfg")"
	expect "SIG$sig: the --search pass is running" tm_wait_grep 'searching [0-9]+%'
	kill -"$sig" "$(cat "$T_TMP/pid")"
	want=143
	[ $sig = INT ] && want=130
	expect "SIG$sig during the pass: exit $want" tm_wait_grep "^rc=$want\$"
	expect "SIG$sig: the alternate screen is off" tm_wait alternate_is 0
	tty_sane "SIG$sig"
done

# An exact-name search (*) across transforms (defect 2): tests/golden/regex.sh.

done_testing
