#!/bin/sh
# tests/fuzz/run.sh: builds the libFuzzer harnesses with clang
# (-fsanitize=fuzzer,address,undefined) and runs each for FUZZ_SECONDS
# (default 60), one after the other, under `nice -n 10`. `make fuzz` runs it.
#   tests/fuzz/run.sh [HARNESS...]   (folded perf sniff load ...; default: all of
#   tests/fuzz/fuzz_*.c)
# Seeds: the repository's fixtures, plus ../shared/corpus when present (read
# at run time, never copied into the repository). The growing corpus and any
# crash-*/leak-*/timeout-* files land in $FUZZ_DIR (default
# $top_builddir/fuzz-out); a finding makes the exit status 1 (the other harnesses
# still run).
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${FUZZ_SECONDS:=60}"
: "${FUZZ_DIR:=$top_builddir/fuzz-out}"
: "${CLANG:=clang}"
src=$top_srcdir/src
incs=$(for d in "$src"/*/; do printf -- " -I%s" "${d%/}"; done)
fz=$top_srcdir/tests/fuzz
if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "fuzz: $CLANG not found (Debian: apt-get install clang libclang-rt-dev)" >&2
	exit 77
fi
[ -f "$top_builddir/config.h" ] || { echo "fuzz: run ./configure first" >&2; exit 1; }

# default: every tests/fuzz/fuzz_*.c
harnesses=${*:-$(cd "$fz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')}
mkdir -p "$FUZZ_DIR/bin"
flags="-g -O1 -std=c11 -D_GNU_SOURCE -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
# Every file of the library (all of src/ but main.c): a file split in two
# needs no change here.
srcs=$(cd "$src" && ls ./*.c ./*/*.c | sed 's|^\./||; s|\.c$||' | grep -v '^main$')
# load.c reads perf.data too: libdw, libelf, libzstd, liblzma, zlib (and ISA-L
# where configure found it) and libiberty
# (as READER_LIBS in Makefile.am)
# and the regexes (rx.c) PCRE2
libs="$(pkg-config --libs libdw libelf libzstd 2>/dev/null || echo -ldw -lelf -lzstd) $(pkg-config --libs liblzma 2>/dev/null) $(pkg-config --libs zlib 2>/dev/null || echo -lz) $(pkg-config --libs libisal 2>/dev/null) -liberty $(pkg-config --libs yajl 2>/dev/null || echo -lyajl) $(pkg-config --libs libpcre2-8 2>/dev/null || echo -lpcre2-8) -lm"
# the views' curses code is linked into every harness (called by few)
libs="$libs $(pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)"
# The library compiled once (a file again only when its source, or any
# header, is newer: a struct changed in a header makes every object built
# before it read the struct wrongly), then each harness linked against it.
mkdir -p "$FUZZ_DIR/obj"
objs=""
# shellcheck disable=SC2012
newest_h=$(ls -t "$src"/*.h "$src"/*/*.h 2>/dev/null | head -n 1)
for f in $srcs; do
	o=$FUZZ_DIR/obj/$(printf '%s' "$f" | tr / _).o
	if [ ! -f "$o" ] || [ "$src/$f.c" -nt "$o" ] || { [ -n "$newest_h" ] && [ "$newest_h" -nt "$o" ]; }; then
		# shellcheck disable=SC2086
		$CLANG $flags -c -I"$top_builddir" -I"$src" $incs -o "$o" "$src/$f.c" || exit 1
	fi
	objs="$objs $o"
done
for h in $harnesses; do
	echo "fuzz: building fuzz_$h"
	# shellcheck disable=SC2086
	$CLANG $flags -I"$top_builddir" -I"$src" $incs -I"$fz" -o "$FUZZ_DIR/bin/fuzz_$h" \
		"$fz/fuzz_$h.c" $objs -lunistring $libs -lpthread || exit 1
done

# seed DIR PREFIX FILE...: copies the first 64 KiB of each file into DIR,
# after PREFIX (the harness's option bytes, as printf escapes).
seed() {
	d=$1 pre=$2; shift 2
	for f in "$@"; do
		[ -f "$f" ] || continue
		n=$(printf '%s' "$f" | cksum | cut -d' ' -f1)
		{ printf "$pre"; case $f in *.gz) gzip -dc "$f";; *) cat "$f";; esac; } 2>/dev/null |
			head -c 65536 > "$d/seed-$n"
	done
}

rc=0
for h in $harnesses; do
	seeds=$FUZZ_DIR/seeds/$h corpus=$FUZZ_DIR/corpus/$h
	rm -rf "$seeds"
	mkdir -p "$seeds" "$corpus"
	case $h in folded|load|perfdata) pre='\000';; perf) pre='\000\000';; *) pre='';; esac
	# the model harnesses: flags, a count of operations, three bytes each
	# (reverse, hide, focus, merge recursion, drop, pop; see each harness)
	case $h in transform|diff) pre='\000\006\000\000\001\003\000\002\001\000\003\004\000\000\005\000\004\006\000\000';;
		views) pre='\000\015\001\000\000\002\001\000\003\000\002\004\001\000\005\003\000\000\000\000\006\000\003\007\003\000\007\002\000\007\000\000\007\004\012\007\006\144\002\002\000';; esac
	if [ "$h" = cpuprofile ] || [ "$h" = speedscope ] || [ "$h" = jsonscan ]; then
		# JSON seeds: the kept ones (option byte first) and the fixtures
		cp "$top_srcdir"/tests/data/fuzz/"$h"/* "$seeds"/ 2>/dev/null || :
		seed "$seeds" '\000' "$top_srcdir"/tests/data/"$h"/*.cpuprofile "$top_srcdir"/tests/data/"$h"/*.json
		# the scanner's: both readers' fixtures, every container fast
		[ "$h" = jsonscan ] && seed "$seeds" '\002' "$top_srcdir"/tests/data/cpuprofile/*.cpuprofile \
			"$top_srcdir"/tests/data/cpuprofile/*.json "$top_srcdir"/tests/data/speedscope/*.json
	elif [ "$h" = transform ] || [ "$h" = diff ] || [ "$h" = views ]; then
		# folded profiles: the kept seeds (control bytes first), the UI
		# fixtures and the shared corpus's folded files behind operations
		cp "$top_srcdir"/tests/data/fuzz/"$h"/* "$seeds"/ 2>/dev/null || :
		seed "$seeds" "$pre" "$top_srcdir"/tests/ui/*.folded "$top_srcdir"/tests/ui/*.diff \
			"$top_srcdir"/examples/demo.folded
		if [ -d "$top_srcdir/../shared/corpus" ]; then
			find "$top_srcdir/../shared/corpus" -type f -name '*.folded' > "$FUZZ_DIR/list"
			# shellcheck disable=SC2046
			seed "$seeds" "$pre" $(cat "$FUZZ_DIR/list")
		fi
	elif [ "$h" = conf ] || [ "$h" = palettemap ]; then
		# config and palette map seeds: the kept ones
		cp "$top_srcdir"/tests/data/fuzz/"$h"/* "$seeds"/ 2>/dev/null || :
	elif [ "$h" = pprof ] || [ "$h" = regex ]; then
		# pprof and regex seeds: kept in the harness's form (option byte first)
		cp "$top_srcdir"/tests/data/fuzz/"$h"/* "$seeds"/ 2>/dev/null || :
	elif [ "$h" = perfdata ]; then
		# perf.data seeds: the kept ones (already in the harness's form,
		# option byte first), the generated ones, the recorded fixtures
		cp "$top_srcdir"/tests/data/fuzz/perfdata/* "$seeds"/ 2>/dev/null || :
		python3 "$fz/perfdata_seeds.py" seeds "$seeds" --prefix || :
		# the hostile set too (it reaches far more of the error paths)
		HOSTILE_FIFO=/nonexistent/fifo python3 "$fz/perfdata_seeds.py" hostile "$seeds" --prefix || :
		seed "$seeds" "$pre" "$top_srcdir"/tests/data/*.perf.gz
	else
		seed "$seeds" "$pre" "$top_srcdir"/tests/ui/*.folded "$top_srcdir"/tests/data/* \
			"$top_srcdir"/examples/demo.folded
	fi
	if [ "$h" != perfdata ] && [ "$h" != cpuprofile ] && [ "$h" != speedscope ] && [ "$h" != jsonscan ] &&
	   [ "$h" != regex ] &&
	   [ "$h" != transform ] && [ "$h" != diff ] && [ "$h" != views ] &&
	   [ "$h" != conf ] && [ "$h" != palettemap ] &&
	   [ -d "$top_srcdir/../shared/corpus" ]; then
		find "$top_srcdir/../shared/corpus" -type f ! -name '*.md' ! -name '*.tsv' > "$FUZZ_DIR/list"
		# shellcheck disable=SC2046
		seed "$seeds" "$pre" $(cat "$FUZZ_DIR/list")
	fi
	echo "fuzz: fuzz_$h for ${FUZZ_SECONDS}s ($(ls "$seeds" | wc -l) seeds)"
	# -timeout: an input taking 10 s is a hang; -max_len keeps runs fast
	# (perf.data seeds are larger: a header, attributes, features).
	maxlen=16384
	dict=$fz/tflame.dict
	[ "$h" = perfdata ] && maxlen=32768 dict=$fz/perfdata.dict
	case $h in cpuprofile|speedscope|jsonscan) dict=$fz/json.dict;; conf|palettemap) dict=$fz/conf.dict;; regex) dict=$fz/regex.dict;; esac
	# the model harnesses run many operations over a profile: small ones
	# are enough and keep executions fast
	case $h in transform|diff|views|browser) maxlen=4096 dict=$fz/model.dict;; esac
	if ! (cd "$FUZZ_DIR" && nice -n 10 "$FUZZ_DIR/bin/fuzz_$h" -max_total_time="$FUZZ_SECONDS" \
		-timeout=10 -max_len=$maxlen -dict="$dict" -print_final_stats=1 \
		-artifact_prefix="$FUZZ_DIR/$h-" "$corpus" "$seeds" 2>&1 | tee "$FUZZ_DIR/$h.log" | grep -v '^#[0-9]*	\(NEW\|REDUCE\|pulse\)'); then
		:
	fi
	if ls "$FUZZ_DIR/$h"-* >/dev/null 2>&1; then
		echo "fuzz: fuzz_$h found something: $(ls "$FUZZ_DIR/$h"-*)"
		rc=1
	fi
done
exit $rc
