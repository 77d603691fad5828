#!/usr/bin/env bash
# Every C file of tflame compiled for arm64 (syntax only, warnings as
# errors): there the SSE2 and AVX2 paths are left out, and the portable ones
# must build. Uses the cross compiler aarch64-linux-gnu-gcc (Debian:
# gcc-aarch64-linux-gnu), the config.h of a configured build (the first
# argument, else the source tree) and this machine's library headers (the
# same on every architecture). Without the compiler: SKIP (said, exit 0).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top}" && pwd)
cc=${CROSS_CC:-aarch64-linux-gnu-gcc}
if ! command -v "$cc" > /dev/null; then
	echo "arm64: SKIP: no $cc (apt-get install gcc-aarch64-linux-gnu)"
	exit 0
fi
[ -f "$build/config.h" ] || { echo "arm64.sh: no config.h in $build (configure first)" >&2; exit 1; }
# shellcheck disable=SC2046
libs=$(pkg-config --cflags ncursesw libdw libelf libzstd zlib liblzma yajl libpcre2-8 2> /dev/null || true)
isal=$(pkg-config --cflags libisal 2> /dev/null || true)
inc=(-I"$build" -I"$top/src" -I"$top/src/model" -I"$top/src/read" -I"$top/src/render" -I"$top/src/ui"
     -I"$top/src/views" -I"$top/tests/unit" -I"$top/tests/fuzz")
n=0 bad=0
for f in "$top"/src/*.c "$top"/src/*/*.c "$top"/tests/unit/*.c "$top"/tests/fuzz/*.c; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	if ! "$cc" -std=c11 -fsyntax-only -Wall -Wextra -Werror "${inc[@]}" $libs $isal -idirafter /usr/include "$f"; then
		bad=$((bad + 1))
	fi
done
echo "arm64: $n files, $bad that do not compile"
[ "$bad" -eq 0 ]
