#!/bin/sh
# tests/prefetch.sh: the prefetch hints of pprof's read-ahead are in the
# object code. gcc 12 (-O2) takes a static helper whose only effect is a
# __builtin_prefetch for a function without effects and drops every call
# to it: the read-ahead of the repeated-stack table prefetched nothing, and
# the slower load said nothing (6% of the CPU on make bench's pprof file).
# The helper is always inlined now. No timing: the prefetch instructions
# are counted in libtflame.a.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/lib.sh"

lib=${top_builddir:-..}/src/libtflame.a
[ -f "$lib" ] || skip_all "$lib is not built"
command -v objdump > /dev/null 2>&1 || skip_all "objdump (binutils) is not installed"
case $(uname -m) in
x86_64|i?86) pat='prefetch' ;;
aarch64|arm64) pat='prfm' ;;
*) skip_all "no prefetch mnemonic known for $(uname -m)" ;;
esac
objdump -d --no-show-raw-insn "$lib" > "$T_TMP/dis" 2> /dev/null || skip_all "objdump cannot read $lib"

# count MEMBER [FUNCTION]: prefetch instructions in an archive member (in
# one of its functions)
count() {
	awk -v m="$1" -v f="${2:-}" -v pat="$pat" '
		/^[^ ]+\.o: +file format/ { in_m = ($1 == m ":") }
		/^[0-9a-f]+ <.*>:$/ { fn = $2; sub(/^</, "", fn); sub(/>:$/, "", fn) }
		in_m && (f == "" || fn == f) && $0 ~ "\t" pat { n++ }
		END { print n + 0 }' "$T_TMP/dis"
}

n=$(count pprof.o)
# the slot of a sample ahead, its entry and the entry's key end
if [ "$n" -ge 3 ]; then pass "pprof's read-ahead prefetches ($n)"
else fail "pprof's read-ahead prefetches" "$n prefetch instructions in pprof.o, want 3"; fi
done_testing
