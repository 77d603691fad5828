#!/bin/sh
# tests/hostile-pprof.sh: pprof profiles made against the reader's own
# structures. Expected stacks come from the generator's Python, which
# works them out from the ids it writes (not from tflame).
#
# The repeated-stack cache (src/read/pprof.c) finds a stack seen before by
# a hash with a fixed seed, so a profile can be made whose stacks all share
# one 64-bit hash (tests/data/pprof/collide.py). Without a bound on the
# slots a lookup reads, each new stack would compare itself with all those
# before it: quadratic (300,000 such stacks: minutes). The guard is a
# generous timeout, no timing assertion.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/lib.sh"

command -v timeout > /dev/null 2>&1 || skip_all "timeout(1) is not installed"
command -v python3 > /dev/null 2>&1 || skip_all "python3 is not installed (it makes the profiles)"
D=$T_TMP
T=60

python3 "$top_srcdir/tests/data/pprof/collide.py" 300000 "$D/collide.pb" "$D/want" ||
	skip_all "collide.py failed"
run --collapse "$D/collide.pb"
expect_rc "300,000 stacks with one hash (rc 124: killed by the ${T} s guard)" 0
expect_out "300,000 stacks with one hash: every stack, counts summed" "$D/want"
# each colliding stack has the ids of its second word dangling: at least one
expect_err "300,000 stacks with one hash" \
	'^tflame: .*collide\.pb: [0-9]+ references to locations, functions or mappings that the profile does not hold'

# gzip'ed, its samples are counted as the file inflates (src/read/pprof_pre.c),
# by the same hash in a table of the prepass's own, bounded the same way; it
# goes on past its first 65,536 samples when 3 in 4 repeat: 4 hot ones a key
if command -v gzip > /dev/null 2>&1; then
	python3 "$top_srcdir/tests/data/pprof/collide.py" 300000 "$D/collide3.pb" "$D/want" 4 ||
		fail "collide.py 4 failed"
	gzip -1 -c "$D/collide3.pb" > "$D/collide.pb.gz"
	run --collapse "$D/collide.pb.gz"
	expect_rc "300,000 stacks with one hash, gzip'ed (rc 124: killed by the ${T} s guard)" 0
	expect_out "300,000 stacks with one hash, gzip'ed: every stack, counts summed" "$D/want"
else
	skip "300,000 stacks with one hash, gzip'ed" "gzip is not installed"
fi

done_testing
