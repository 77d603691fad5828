#!/bin/sh
# tests/golden/safety.sh: the browser on 100,000 frames deep and 1,000,000
# siblings, headless (--script): no recursion over the depth, no cost per
# sibling that is not drawn (the siblings are a column or less each: only
# main is drawn above the root). The rest of the safety cases need a
# terminal: tests/ui/safety.sh.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/golden/hl.sh"
command -v timeout >/dev/null 2>&1 || skip_all "timeout(1) is not installed"
[ -x "$TFLAME" ] || skip_all "$TFLAME is not built"
SEP='  ·  '

# Deep: f0..f99999 with 7 of 8 samples, main 1. k from the root picks f0
# (column 39 of 80 is in f0's [0,70)); four more k and Enter zoom to f4;
# in the icicle view j goes deeper: f5, f6. Screen 80x24: root on line 22.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%sf%d", i ? ";" : "", i; printf " 7\nmain 1\n" }' > "$T_TMP/deep"
hl_open 80 24 "$T_TMP/deep"
hl_prefix "100,000 frames deep: opens" 22 all
hl_keys k k k k k Enter
hl_prefix "100,000 frames deep: zoom five levels up" 0 "all › f0 › f1 › f2 › f3 › f4 "
# Levels 0-21 on screen (f4 at level 5 needs no scroll, 22 rows); frames
# go on to level 100,000: the top line says more than the 1,000 looked at.
hl_grep "100,000 frames deep: the top line says the levels above" '^all › .*▲ 1000\+ more levels$'
hl_keys i j j
hl_prefix "100,000 frames deep: icicle, moving on" 23 "f6${SEP}7 samples"
hl_keys q
hl_end
rm -f "$T_TMP/deep"

awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "main;s%d 1\n", i }' > "$T_TMP/wide"
hl_open 80 24 "$T_TMP/wide"
hl_prefix "1,000,000 siblings: opens" 22 all
hl_keys k
hl_prefix "1,000,000 siblings: main selected" 23 "main${SEP}1,000,000 samples"
hl_keys q
hl_end

done_testing
