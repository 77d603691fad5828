/* foldtok: where the ';' and '\n' bytes of folded text are, as bit masks
 * of 64 bytes each (bit i of word k: byte 64 k + i). The folded reader
 * walks these masks instead of calling memchr for each frame and line:
 * frames are about 12 bytes long, and a call cost more than its search.
 *
 * The masks are made 64 bytes at a time with SSE2 (x86-64's baseline) or,
 * when the CPU has it, AVX2, chosen once at run time; other machines, and
 * TFLAME_SIMD=scalar, use a plain loop. Every kind gives the same masks. */
#ifndef TFLAME_FOLDTOK_H
#define TFLAME_FOLDTOK_H

#include <stddef.h>
#include <stdint.h>

enum foldtok_kind {
	FOLDTOK_SCALAR,
	FOLDTOK_SSE2,
	FOLDTOK_AVX2
};

/* Bytes a call of foldtok_scan covers at most: a window of 64 words. */
#define FOLDTOK_WINDOW 4096u

/* Fills semi[k] and nl[k] for the 64-byte words of p[0..n), n at most
 * FOLDTOK_WINDOW: (n + 63) / 64 words each; the bits of the last word past
 * n are 0. Reads no byte outside p[0..n). */
void foldtok_scan(const char *p, size_t n, uint64_t *semi, uint64_t *nl);

/* The kind foldtok_scan uses: the best the CPU has, or what the
 * environment variable TFLAME_SIMD asks for (scalar, sse2, avx2; a kind
 * the CPU lacks falls back to the best below it). Decided at the first
 * call. */
enum foldtok_kind foldtok_kind(void);
/* For tests: use k from now on (a kind the CPU lacks falls back as
 * above). Not while another thread scans. */
void foldtok_set_kind(enum foldtok_kind k);
/* "scalar", "sse2", "avx2". */
const char *foldtok_kind_name(enum foldtok_kind k);

#endif
