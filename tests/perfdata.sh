#!/bin/sh
# The native perf.data reader against perf's own: for each recording made
# here (programs in tests/perfdata/, built and recorded fresh in $T_TMP),
#   perf script -i X.data | tflame --collapse [OPT] -     (want)
#   tflame --collapse [OPT] X.data                        (got)
# must be byte-identical, tflame must exit 0 with nothing on stderr, and the
# wanted output must not be empty. Needs perf, permission to record
# (kernel.perf_event_paranoid) and a C compiler; cases that need more (kernel
# samples, g++, x86-64, zstd, Python >= 3.12) are skipped with the reason.
. "${top_srcdir:-.}/tests/lib.sh"

P=$top_srcdir/tests/perfdata
OPTS="--pid --tid --kernel --jit --all --addrs"

command -v perf > /dev/null 2>&1 || skip_all "perf is not installed"
PARANOID=$(cat /proc/sys/kernel/perf_event_paranoid 2> /dev/null || echo '?')
# Without BPF events perf record ends at once: otherwise its side-band
# thread waits out a 1 s poll after the workload (perf >= 5.1 has the option).
NOBPF=
if perf record -q --no-bpf-event -e cpu-clock:u -o /dev/null true > /dev/null 2>&1; then
	NOBPF=--no-bpf-event
elif ! perf record -q -e cpu-clock:u -o /dev/null true > /dev/null 2> "$T_TMP/probe.log"; then
	skip_all "'perf record -e cpu-clock:u true' fails (sysctl kernel.perf_event_paranoid is $PARANOID: users need 2 or less to profile their own processes, or root or CAP_PERFMON): $(grep -v '^ *$' "$T_TMP/probe.log" | head -1)"
fi

first_of() {
	for c in "$@"; do
		command -v "$c" > /dev/null 2>&1 && { echo "$c"; return 0; }
	done
	return 1
}
CC_FP=$(first_of clang gcc cc) || skip_all "no C compiler (clang, gcc or cc)"
CC_DW=$(first_of gcc clang cc)
CXX_FP=$(first_of g++ clang++ c++) || CXX_FP=
[ "$CC_FP" = clang ] || echo "# no clang: frame-pointer programs built with $CC_FP"
CFLAGS_FP="-std=c11 -O2 -g -fno-omit-frame-pointer"
CFLAGS_DW="-std=c11 -O2 -g -fomit-frame-pointer"

# Kernel samples: root, or perf_event_paranoid <= 1, and perf agreeing.
KERNEL_WHY=
if [ "$(id -u)" -ne 0 ] && ! [ "$PARANOID" -le 1 ] 2> /dev/null; then
	KERNEL_WHY="kernel samples need root or kernel.perf_event_paranoid <= 1 (it is $PARANOID)"
elif ! perf record -q $NOBPF -e cpu-clock -o /dev/null true > /dev/null 2> "$T_TMP/probe.log"; then
	KERNEL_WHY="'perf record -e cpu-clock true' fails: $(grep -v '^ *$' "$T_TMP/probe.log" | head -1)"
fi

# build OUT SRC COMPILER [FLAG...]: $T_TMP/OUT from tests/perfdata/SRC.
build() {
	b_out=$1 b_src=$2
	shift 2
	"$@" -o "$T_TMP/$b_out" "$P/$b_src" > "$T_TMP/build-$b_out.log" 2>&1 && return 0
	fail "build $b_out" "command: $* -o $T_TMP/$b_out $P/$b_src" "$(head -20 "$T_TMP/build-$b_out.log")"
	return 1
}

# record NAME STDOUT CMD...: runs CMD in $T_TMP with its standard output to
# STDOUT and its standard error to $T_TMP/NAME.log; a failed test if it fails.
record() {
	r_name=$1 r_out=$2
	shift 2
	(cd "$T_TMP" && exec "$@") > "$r_out" 2> "$T_TMP/$r_name.log" && return 0
	fail "$r_name: recording" "command: $*" "$(tail -15 "$T_TMP/$r_name.log")"
	return 1
}

# compare NAME DATA HOW [OPT...]: one comparison. HOW is "file" (tflame
# reads DATA by name) or "stdin" (tflame reads DATA from standard input);
# the wanted output is made from $T_TMP/NAME.script.
compare() {
	c_name=$1 c_data=$2 c_how=$3
	shift 3
	c_label="$c_name${1:+ $*}"
	want=$T_TMP/want got=$T_TMP/got
	if ! "$TFLAME" --collapse "$@" - < "$T_TMP/$c_name.script" > "$want" 2> "$T_TMP/want.err"; then
		fail "$c_label" "perf script | tflame --collapse $* - failed: $(head -3 "$T_TMP/want.err")"
		return
	fi
	[ -s "$T_TMP/want.err" ] && printf '# %s: perf script | tflame --collapse: %s\n' "$c_label" "$(head -1 "$T_TMP/want.err")"
	if [ ! -s "$want" ]; then
		fail "$c_label" "perf script | tflame --collapse $* - gives nothing: no comparison" \
			"perf script said: $(head -3 "$T_TMP/$c_name.script.err")" \
			"perf record said: $(tail -5 "$T_TMP/$c_name.log")"
		return
	fi
	c_rc=0
	if [ "$c_how" = stdin ]; then
		"$TFLAME" --collapse "$@" - < "$c_data" > "$got" 2> "$T_TMP/err" || c_rc=$?
	else
		"$TFLAME" --collapse "$@" "$c_data" > "$got" 2> "$T_TMP/err" || c_rc=$?
	fi
	# perf losing samples on a busy machine is a fact about the recording
	# that tflame reports (PERF_RECORD_LOST), not an error of tflame's
	if grep -Eq ': perf lost [0-9,]+ samples? while recording$' "$T_TMP/err"; then
		printf '# %s: %s\n' "$c_label" "$(grep -E 'perf lost' "$T_TMP/err" | head -1)"
		grep -Ev ': perf lost [0-9,]+ samples? while recording$' "$T_TMP/err" > "$T_TMP/err2" || true
		mv "$T_TMP/err2" "$T_TMP/err"
	fi
	if [ "$c_rc" -ne 0 ] || [ -s "$T_TMP/err" ]; then
		if cmp -s "$got" "$want"; then c_what="output identical"; else c_what="output differs"; fi
		fail "$c_label" "$c_what, but exit status $c_rc and stderr:" "$(head -5 "$T_TMP/err")"
		return
	fi
	same "$c_label" "$got" "$want"
}

# conform NAME DATA HOW [OPT...]: perf script of DATA, then compare with no
# option, each of $OPTS, and each extra OPT alone.
conform() {
	k_name=$1 k_data=$2 k_how=$3
	shift 3
	if ! perf script -F+pid -i "$k_data" > "$T_TMP/$k_name.script" 2> "$T_TMP/$k_name.script.err"; then
		fail "$k_name: perf script" "$(tail -10 "$T_TMP/$k_name.script.err")" \
			"perf record said: $(tail -5 "$T_TMP/$k_name.log")"
		return 1
	fi
	"$TFLAME" --collapse - < "$T_TMP/$k_name.script" 2> /dev/null |
		awk -v n="$k_name" '{ s += $NF; k++; d = split($0, f, ";"); if (d > m) m = d }
			END { printf "# %s: weight %d in %d stacks, the deepest %d frames with the comm\n", n, s, k, m }'
	compare "$k_name" "$k_data" "$k_how"
	for o in $OPTS "$@"; do
		compare "$k_name" "$k_data" "$k_how" "$o"
	done
	return 0
}

# expect NAME DESCRIPTION CMD...: a check that the recording shows what the
# case is about (run on $T_TMP/NAME.folded, perf script's stacks collapsed).
expect() {
	e_name=$1 e_what=$2
	shift 2
	if "$@"; then
		pass "$e_name: perf script shows $e_what"
	else
		fail "$e_name: perf script shows $e_what" "$(head -5 "$T_TMP/$e_name.folded" | cut -c1-300)"
	fi
}
folded() { "$TFLAME" --collapse "$@" - < "$T_TMP/$k_name.script" > "$T_TMP/$k_name.folded" 2> /dev/null; }
has() { grep -q -e "$1" "$T_TMP/$k_name.folded"; }

# rec_case NAME HOW PERF-RECORD-ARGS...: record into $T_TMP/NAME.data (the
# program's output in NAME.out), then conform with $EXTRA. HOW: file, or
# stdin (a pipe-mode recording, "-o -" in the arguments).
EXTRA=
rec_case() {
	k_name=$1 k_how=$2
	shift 2
	if [ "$k_how" = stdin ]; then
		record "$k_name" "$T_TMP/$k_name.data" perf record -q $NOBPF "$@" || return 1
	else
		record "$k_name" "$T_TMP/$k_name.out" perf record -q $NOBPF -o "$k_name.data" "$@" || return 1
	fi
	conform "$k_name" "$T_TMP/$k_name.data" "$k_how" $EXTRA
}

# DWARF recordings leave out the program's first 20 ms (perf record -D):
# inside ld.so's start-up code perf's unwinder (libunwind) loses frames that
# tflame's (elfutils) finds, a difference the man page states; the rest of
# the program unwinds alike.
DW_DELAY=
perf record -q $NOBPF -D 20 -e cpu-clock:u -o /dev/null true > /dev/null 2>&1 && DW_DELAY="-D 20"

build cpu cpu.c $CC_FP $CFLAGS_FP && HAVE_CPU=1 || HAVE_CPU=
build cpu-dw cpu.c $CC_DW $CFLAGS_DW && HAVE_CPU_DW=1 || HAVE_CPU_DW=

# 1, 2. Frame pointers, user only then with kernel frames.
if [ -n "$HAVE_CPU" ]; then
	rec_case fp-user file -e cpu-clock:u -F 999 -g ./cpu &&
		folded && expect fp-user "main;run;descend;...;work" has ';main;run;descend;.*;work'
	# the same file compressed, and through a pipe: read whole first
	if command -v gzip > /dev/null 2>&1 && [ -s "$T_TMP/fp-user.data" ]; then
		gzip -c "$T_TMP/fp-user.data" > "$T_TMP/fp-user.data.gz"
		"$TFLAME" --collapse - < "$T_TMP/fp-user.script" > "$T_TMP/want" 2> /dev/null
		"$TFLAME" --collapse "$T_TMP/fp-user.data.gz" > "$T_TMP/got" 2> "$T_TMP/err"
		same "fp-user, gzip-compressed" "$T_TMP/got" "$T_TMP/want"
		cat "$T_TMP/fp-user.data" | "$TFLAME" --collapse - > "$T_TMP/got" 2> "$T_TMP/err"
		same "fp-user, the file form on a pipe" "$T_TMP/got" "$T_TMP/want"
	fi
	if [ -z "$KERNEL_WHY" ]; then
		rec_case fp-kernel file -e cpu-clock -F 999 -g ./cpu &&
			folded --kernel && expect fp-kernel "kernel frames" has '_\[k\]'
	else
		skip "fp-kernel" "$KERNEL_WHY"
	fi
fi

# 3, 4. DWARF unwinding (no frame pointers).
if [ -n "$HAVE_CPU_DW" ]; then
	rec_case dwarf-user file $DW_DELAY -e cpu-clock:u -F 499 --call-graph dwarf,16384 ./cpu-dw &&
		folded && expect dwarf-user "qsort calling cmp_u32" has 'qsort.*;cmp_u32'
	if [ -z "$KERNEL_WHY" ]; then
		rec_case dwarf-kernel file $DW_DELAY -e cpu-clock -F 499 --call-graph dwarf,16384 ./cpu-dw &&
			folded --kernel && expect dwarf-kernel "kernel frames" has '_\[k\]'
	else
		skip "dwarf-kernel" "$KERNEL_WHY"
	fi
fi

# 5. Three named threads and main.
if build threads threads.c $CC_FP $CFLAGS_FP -pthread; then
	rec_case threads file -e cpu-clock:u -F 999 -g ./threads &&
		folded && expect threads "four comms (alpha, beta, gamma, threads)" \
			sh -c 'for c in alpha beta gamma threads; do grep -q "^$c;" "$1" || exit 1; done' sh "$T_TMP/threads.folded"
fi

# 6. fork + exec: the child execs the same program through a link named
# fe-child, so its comm changes at the exec.
if build forkexec forkexec.c $CC_FP $CFLAGS_FP && ln -s forkexec "$T_TMP/fe-child"; then
	rec_case forkexec file -e cpu-clock:u -F 999 -g ./forkexec ./fe-child &&
		folded && expect forkexec "the child (fe-child;...;child_work) and the parent (parent_work)" \
			sh -c 'grep -q "^fe-child;.*child_work" "$1" && grep -q "^forkexec;.*parent_work" "$1"' sh "$T_TMP/forkexec.folded"
fi

# 7. C++: frame pointers, then DWARF.
if [ -z "$CXX_FP" ]; then
	skip "cxx-fp" "no C++ compiler (g++, clang++ or c++)"
	skip "cxx-dwarf" "no C++ compiler (g++, clang++ or c++)"
elif build cxx cxx.cpp $CXX_FP -O2 -g -fno-omit-frame-pointer; then
	rec_case cxx-fp file -e cpu-clock:u -F 999 -g ./cxx &&
		folded && expect cxx-fp "demangled C++ names" has 'geo::Cloud::order_by_norm'
	rec_case cxx-dwarf file $DW_DELAY -e cpu-clock:u -F 499 --call-graph dwarf ./cxx &&
		folded && expect cxx-dwarf "std::sort with the lambda" has 'std::.*lambda'
fi

# 8. Compressed (zstd) records.
if [ -n "$HAVE_CPU" ]; then
	if perf version --build-options 2> /dev/null | grep -q 'zstd: \[ OFF'; then
		skip "compressed" "perf is built without zstd (perf version --build-options)"
	elif ! perf record -q $NOBPF -z -e cpu-clock:u -o /dev/null true > /dev/null 2> "$T_TMP/probe.log"; then
		skip "compressed" "perf record -z fails: $(grep -v '^ *$' "$T_TMP/probe.log" | head -1)"
	else
		rec_case compressed file -z -e cpu-clock:u -F 999 -g ./cpu
	fi
fi

# 9. Two events; also --event-filter on the second.
if [ -n "$HAVE_CPU" ]; then
	EV=cpu-clock,task-clock
	[ -n "$KERNEL_WHY" ] && EV=cpu-clock:u,task-clock:u
	EXTRA=--event-filter=task-clock
	rec_case two-events file -e $EV -F 999 -g ./cpu &&
		folded --event-filter=task-clock && expect two-events "task-clock samples" test -s "$T_TMP/two-events.folded"
	EXTRA=
	# --event-filter of an event not recorded: exit status 1, and the
	# events listed with their samples as perf script -F event counts them
	# (names without modifiers, the busiest first, digits grouped)
	if [ -s "$T_TMP/two-events.data" ]; then
		perf script -i "$T_TMP/two-events.data" -F event 2> /dev/null |
			awk '{ sub(/:.*/, ""); n[$1]++ } END { for (e in n) print n[e], e }' | sort -k1,1nr -k2,2 |
			awk 'function grp(x,  s) { s = ""; while (length(x) > 3) { s = "," substr(x, length(x) - 2) s
			                           x = substr(x, 1, length(x) - 3) } return x s }
			     { printf "%s%s (%s sample%s)", (NR > 1 ? ", " : ""), $2, grp($1 ""), ($1 == 1 ? "" : "s") }' \
			> "$T_TMP/evlist"
		want="tflame: --event-filter=nope: no samples of that event; events in this file: $(cat "$T_TMP/evlist")"
		rc=0
		"$TFLAME" --collapse --event-filter=nope "$T_TMP/two-events.data" > "$T_TMP/got" 2> "$T_TMP/err" || rc=$?
		got_err=$(grep -Ev ': perf lost [0-9,]+ samples? while recording$' "$T_TMP/err")
		if [ "$rc" -eq 1 ] && [ ! -s "$T_TMP/got" ] && [ "$got_err" = "$want" ]; then
			pass "two-events --event-filter=nope: the file's events and their samples"
		else
			fail "two-events --event-filter=nope: the file's events and their samples" \
				"exit status $rc (want 1)" "want: $want" "got: $got_err"
		fi
	fi
fi

# 10. Pipe mode: perf record -o - writes the data to standard output.
if [ -n "$HAVE_CPU" ]; then
	rec_case pipe stdin -e cpu-clock:u -F 999 -g -o - ./cpu
fi

# 11. JIT: code in an anonymous executable mapping, named by
# /tmp/perf-PID.map (the program writes it and prints its name).
if [ "$(uname -m)" != x86_64 ]; then
	skip "jit" "x86-64 only (this is $(uname -m))"
elif build jit jit.c $CC_FP $CFLAGS_FP; then
	rec_case jit file -e cpu-clock:u -F 999 -g ./jit &&
		folded && expect jit "jitted_loop" has ';jitted_loop '
	m=$(head -1 "$T_TMP/jit.out" 2> /dev/null)
	case $m in /tmp/perf-[0-9]*.map) rm -f "$m" ;; esac
fi

# 12. Recursion 300 deep: perf keeps kernel.perf_event_max_stack frames
# (127 by default): the kernel when it walks frame pointers, perf script
# (--max-stack defaults to the sysctl) when it unwinds the DWARF copy.
MAXSTACK=$(cat /proc/sys/kernel/perf_event_max_stack 2> /dev/null || echo 127)
truncated() {
	if [ "$MAXSTACK" -lt 300 ] 2> /dev/null; then
		expect "$k_name" "a truncated chain (bottom;dive... never reaching main)" \
			sh -c 'grep -q "dive;dive;bottom " "$1" && ! grep -q ";main;.*;bottom " "$1"' sh "$T_TMP/$k_name.folded"
	else
		skip "$k_name: perf script shows a truncated chain" "kernel.perf_event_max_stack is $MAXSTACK"
	fi
}
if build deep deep.c $CC_FP $CFLAGS_FP; then
	rec_case deep-fp file -e cpu-clock:u -F 999 -g ./deep && folded && truncated
fi
if build deep-dw deep.c $CC_DW $CFLAGS_DW; then
	rec_case deep-dwarf file $DW_DELAY -e cpu-clock:u -F 499 --call-graph dwarf ./deep-dw && folded && truncated
fi

# 13. No call chains at all (no -g).
if [ -n "$HAVE_CPU" ]; then
	rec_case no-callchain file -e cpu-clock:u -F 999 ./cpu
fi

# 14. Python's perf trampolines (3.12+): python writes /tmp/perf-PID.map.
# Python is rarely built with frame pointers, so the py:: frames show in
# the DWARF recording (the unwinder stops at the trampoline), seldom with -g.
PY_PROG='import os
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def shuffle_sort(n):
    return sorted(str(i * 7919 % n) for i in range(n))
print("/tmp/perf-%d.map" % os.getpid(), flush=True)
for _ in range(20):
    fib(22)
    shuffle_sort(60000)
'
PY=
PYENV_PYS=
command -v pyenv > /dev/null 2>&1 && PYENV_PYS=$(ls -d "$(pyenv root 2> /dev/null)"/versions/3.1[2-9]*/bin/python3 2> /dev/null)
for p in python3.14 python3.13 python3.12 python3 $PYENV_PYS; do
	if command -v $p > /dev/null 2>&1 && $p -c 'import sys; sys.exit(sys.version_info < (3,12))' 2> /dev/null; then
		PY=$p
		break
	fi
done
if ! command -v python3 > /dev/null 2>&1 && [ -z "$PY" ]; then
	skip "python" "no python3"
elif [ -z "$PY" ]; then
	skip "python" "python3 -X perf needs Python >= 3.12 (python3 is $(python3 -c 'import platform; print(platform.python_version())' 2> /dev/null))"
else
	rec_case python-fp file -e cpu-clock:u -F 999 -g $PY -X perf -c "$PY_PROG"
	m=$(head -1 "$T_TMP/python-fp.out" 2> /dev/null)
	case $m in /tmp/perf-[0-9]*.map) rm -f "$m" ;; esac
	# Python's start-up and the compiling of the program (about 0.1 s of
	# the 1 s run) are left out as well: lazy binding runs there, and a
	# sample in its trampoline (_dl_runtime_resolve_xsavec, on a realigned
	# stack) unwinds differently in the two unwinders, like ld.so's start-up
	PY_DELAY=
	[ -n "$DW_DELAY" ] && PY_DELAY="-D 150"
	rec_case python-dwarf file $PY_DELAY -e cpu-clock:u -F 499 --call-graph dwarf $PY -X perf -c "$PY_PROG" &&
		folded && expect python-dwarf "py:: frames" has ';py::fib:'
	m=$(head -1 "$T_TMP/python-dwarf.out" 2> /dev/null)
	case $m in /tmp/perf-[0-9]*.map) rm -f "$m" ;; esac
fi

# TFLAME_PERFDATA_KEEP=DIR keeps everything made here (programs,
# recordings, perf script outputs, logs) in DIR, and perf's build-id cache
# in DIR/buildid, to rerun a case by hand:
#   perf script --buildid-dir DIR/buildid -i DIR/NAME.data
if [ -n "${TFLAME_PERFDATA_KEEP:-}" ] && mkdir -p "$TFLAME_PERFDATA_KEEP" &&
   cp -R "$T_TMP"/. "$TFLAME_PERFDATA_KEEP"/; then
	[ -d "$HOME/.debug" ] && cp -R "$HOME/.debug" "$TFLAME_PERFDATA_KEEP/buildid"
	echo "# everything kept in $TFLAME_PERFDATA_KEEP"
fi
done_testing
