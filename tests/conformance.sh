#!/bin/sh
# `tflame --collapse` against the perf -> folded goldens of the shared corpus
# (INDEX.md §1.1, §1.2). The corpus is not part of the project (licence), so
# without it every case is skipped, not passed.
. "${top_srcdir:-.}/tests/lib.sh"

C=${TFLAME_CORPUS:-$top_srcdir/../shared/corpus}
[ -d "$C/derived/inferno-semantics" ] && [ -d "$C/inferno/collapse-perf" ] ||
	skip_all "no corpus at $C (set TFLAME_CORPUS)"

IDENT=0     # golden outputs reproduced byte for byte
GOLDEN=0    # golden comparisons made

# golden NAME INPUT WANT [OPTION...]: stdout must equal WANT byte for byte,
# with exit status 0 and nothing on stderr (no corpus input is malformed);
# for an empty WANT, exit status 1 and "no samples in the input".
golden() {
	name=$1 in=$2 want=$3
	shift 3
	# One pass, and the same file split between 2 and 3 threads (forced
	# even for small files): the output must not change.
	for th in 1 2 3; do
		GOLDEN=$((GOLDEN + 1))
		rc=0
		"$TFLAME" --collapse --threads=$th "$@" "$in" > "$T_TMP/got" 2> "$T_TMP/err" || rc=$?
		label=$name
		[ "$th" -gt 1 ] && label="$name ($th threads)"
		# An empty golden (no-events.txt): the same empty output, but a run
		# that keeps no samples fails with a reason (issue 18 item 9).
		want_rc=0 want_err=
		[ -s "$want" ] || { want_rc=1 want_err="tflame: no samples in the input"; }
		if cmp -s "$T_TMP/got" "$want"; then
			IDENT=$((IDENT + 1))
			if [ "$rc" -eq "$want_rc" ] && [ "$(cat "$T_TMP/err")" = "$want_err" ]; then
				pass "$label"
			else
				fail "$label" "output identical, but exit status $rc and stderr:" "$(head -5 "$T_TMP/err")"
			fi
		else
			fail "$label" "exit status $rc; stderr: $(head -3 "$T_TMP/err")" \
				"$(diff -u "$want" "$T_TMP/got" | head -30)"
		fi
	done
}

# §1.1: the upstream FlameGraph matrix, 13 inputs x 6 options, against the
# inferno-semantics goldens.
for in in "$C"/flamegraph/test/perf-*.txt; do
	stem=$(basename "$in" .txt)
	for opt in pid tid kernel jit all addrs; do
		golden "$stem --$opt" "$in" \
			"$C/derived/inferno-semantics/$stem-collapsed-$opt.txt" "--$opt"
	done
done

gz=$C/flamegraph/example-perf-stacks.txt.gz
eps=$T_TMP/example-perf-stacks.txt
if [ -f "$gz" ] && gunzip -c "$gz" > "$eps"; then
	golden "example-perf-stacks (derived)" "$eps" \
		"$C/derived/inferno-semantics/example-perf-stacks-collapsed.txt"
else
	skip "example-perf-stacks (derived)" "cannot gunzip $gz"
fi

# §1.2: inferno's own cases. results/X-collapsed-a+b.txt is input X.txt
# with options --a --b (the test-name rule of inferno's tests).
for want in "$C"/inferno/collapse-perf/results/*-collapsed*.txt; do
	base=$(basename "$want" .txt)
	stem=${base%%-collapsed*}
	opts=${base#"$stem"-collapsed}
	opts=${opts#-}
	set --
	for o in $(printf '%s' "$opts" | tr '+' ' '); do
		set -- "$@" "--$o"
	done
	if [ -f "$C/inferno/collapse-perf/$stem.txt" ]; then
		in=$C/inferno/collapse-perf/$stem.txt
	elif [ -f "$C/flamegraph/test/$stem.txt" ]; then
		in=$C/flamegraph/test/$stem.txt
	elif [ "$stem" = example-perf-stacks ] && [ -s "$eps" ]; then
		in=$eps
	else
		skip "inferno $base" "no input for $stem"
		continue
	fi
	golden "inferno $base${1:+ $*}" "$in" "$want" "$@"
done

# warn NAME INPUT CLASS WANT_STDOUT: inferno asserts exactly one warning of
# its class; tflame reports it as the only malformed line, and the class is
# named in the message. The surviving record is worked out by hand: comm
# inline-counter, frame main+0x1f without its offset, period 250000.
warn() {
	name=$1 in=$2 class=$3
	rc=0
	"$TFLAME" --collapse "$in" > "$T_TMP/got" 2> "$T_TMP/err" || rc=$?
	printf '%s\n' "$4" > "$T_TMP/want"
	if [ "$rc" -eq 0 ] && cmp -s "$T_TMP/got" "$T_TMP/want" &&
	   [ "$(wc -l < "$T_TMP/err")" -eq 1 ] &&
	   grep -q ": skipped 1 malformed line (first at line [0-9]*: $class " "$T_TMP/err"; then
		pass "$name"
	else
		fail "$name" "exit status $rc" "stdout: $(cat "$T_TMP/got")" "stderr: $(cat "$T_TMP/err")"
	fi
}
warn "empty-line.txt: exactly 1 weird event line" \
	"$C/inferno/collapse-perf/empty-line.txt" "unrecognized event line" \
	"inline-counter;main 250000"
warn "weird-stack-line.txt: exactly 1 weird stack line" \
	"$C/inferno/collapse-perf/weird-stack-line.txt" "unrecognized frame line" \
	"inline-counter;main 250000"

# collapse-guess: neither folded nor perf, so an error and no output.
for f in unknown-format invalid-perf-with-empty-line-after-event-line; do
	in=$C/inferno/collapse-guess/$f.txt
	rc=0
	"$TFLAME" --collapse "$in" > "$T_TMP/got" 2> "$T_TMP/err" || rc=$?
	if [ "$rc" -eq 1 ] && [ ! -s "$T_TMP/got" ] &&
	   grep -q "not a profile: none of" "$T_TMP/err"; then
		pass "collapse-guess $f: rejected"
	else
		fail "collapse-guess $f: rejected" "exit status $rc" "stderr: $(cat "$T_TMP/err")"
	fi
done

echo "# $IDENT of $GOLDEN golden outputs byte-identical"
done_testing
