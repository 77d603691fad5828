#!/bin/sh
# tests/fuzz/replay.sh: replays every kept fuzz finding and seed (tests/data/
# fuzz/HARNESS/*, every HARNESS there) through the harness built as a plain
# program (replay_HARNESS),
# one TAP line per file. A harness aborts on a broken invariant and the
# sanitizer build (CI) turns any memory error or UB into a failure.
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
bin=${top_builddir:-.}/tests/fuzz
for d in "$top_srcdir"/tests/data/fuzz/*/; do
	h=$(basename "$d")
	for f in "$top_srcdir"/tests/data/fuzz/"$h"/*; do
		[ -f "$f" ] || continue
		name="fuzz $h: $(basename "$f")"
		if out=$(cd "$T_TMP" && timeout 60 "$bin/replay_$h" "$f" 2>&1); then
			pass "$name"
		else
			fail "$name" "$out"
		fi
	done
done
done_testing
