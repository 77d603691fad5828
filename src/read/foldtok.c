/* foldtok: the ';' and '\n' masks of folded text (see foldtok.h). */
#include "config.h"
#include "foldtok.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define FOLDTOK_X86 1
#include <immintrin.h>
#endif

/* The plain loop: the reference the others must match, and the kind of
 * machines without x86's vectors. */
static void scan_scalar(const char *p, size_t n, uint64_t *semi, uint64_t *nl)
{
	size_t words = (n + 63) / 64;
	for (size_t k = 0; k < words; k++) {
		uint64_t s = 0, l = 0;
		size_t lim = n - 64 * k < 64 ? n - 64 * k : 64;
		for (size_t i = 0; i < lim; i++) {
			char c = p[64 * k + i];
			s |= (uint64_t)(c == ';') << i;
			l |= (uint64_t)(c == '\n') << i;
		}
		semi[k] = s;
		nl[k] = l;
	}
}

#ifdef FOLDTOK_X86
#ifndef FOLDTOK_AHEAD
#define FOLDTOK_AHEAD 4096
#endif
/* One word of 64 bytes at q. */
static inline void word_sse2(const char *q, uint64_t *semi, uint64_t *nl)
{
	const __m128i vs = _mm_set1_epi8(';'), vn = _mm_set1_epi8('\n');
	uint64_t s = 0, l = 0;
	for (int j = 0; j < 4; j++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(q + 16 * j));
		s |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vs)) << (16 * j);
		l |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vn)) << (16 * j);
	}
	*semi = s;
	*nl = l;
}

static void scan_sse2(const char *p, size_t n, uint64_t *semi, uint64_t *nl)
{
	size_t full = n / 64, k;
	for (k = 0; k < full; k++) {
		__builtin_prefetch(p + 64 * k + FOLDTOK_AHEAD);
		word_sse2(p + 64 * k, &semi[k], &nl[k]);
	}
	if (n % 64) {
		/* The tail in a zeroed word: no read past p + n; NULs are
		 * neither ';' nor '\n'. */
		char tail[64] = { 0 };
		memcpy(tail, p + 64 * k, n % 64);
		word_sse2(tail, &semi[k], &nl[k]);
	}
}

__attribute__((target("avx2")))
static inline void word_avx2(const char *q, uint64_t *semi, uint64_t *nl)
{
	const __m256i vs = _mm256_set1_epi8(';'), vn = _mm256_set1_epi8('\n');
	__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)q);
	__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(q + 32));
	*semi = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, vs)) |
	        (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, vs)) << 32;
	*nl = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, vn)) |
	      (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, vn)) << 32;
}

__attribute__((target("avx2")))
static void scan_avx2(const char *p, size_t n, uint64_t *semi, uint64_t *nl)
{
	size_t full = n / 64, k;
	for (k = 0; k < full; k++) {
		__builtin_prefetch(p + 64 * k + FOLDTOK_AHEAD);
		word_avx2(p + 64 * k, &semi[k], &nl[k]);
	}
	if (n % 64) {
		char tail[64] = { 0 };
		memcpy(tail, p + 64 * k, n % 64);
		word_avx2(tail, &semi[k], &nl[k]);
	}
}
#endif

/* -1 until decided; then an enum foldtok_kind. Threads racing to decide
 * decide the same. */
static atomic_int chosen = -1;

/* The best kind at most k that this CPU runs. */
static enum foldtok_kind supported(enum foldtok_kind k)
{
#ifdef FOLDTOK_X86
	__builtin_cpu_init();
	if (k == FOLDTOK_AVX2 && !__builtin_cpu_supports("avx2"))
		k = FOLDTOK_SSE2;
	return k;
#else
	(void)k;
	return FOLDTOK_SCALAR;
#endif
}

enum foldtok_kind foldtok_kind(void)
{
	int k = atomic_load_explicit(&chosen, memory_order_relaxed);
	if (k >= 0)
		return (enum foldtok_kind)k;
	enum foldtok_kind want = FOLDTOK_AVX2;
	const char *e = getenv("TFLAME_SIMD");
	if (e && strcmp(e, "scalar") == 0)
		want = FOLDTOK_SCALAR;
	else if (e && strcmp(e, "sse2") == 0)
		want = FOLDTOK_SSE2;
	k = (int)supported(want);
	atomic_store_explicit(&chosen, k, memory_order_relaxed);
	return (enum foldtok_kind)k;
}

void foldtok_set_kind(enum foldtok_kind k)
{
	atomic_store_explicit(&chosen, (int)supported(k), memory_order_relaxed);
}

const char *foldtok_kind_name(enum foldtok_kind k)
{
	return k == FOLDTOK_AVX2 ? "avx2" : k == FOLDTOK_SSE2 ? "sse2" : "scalar";
}

void foldtok_scan(const char *p, size_t n, uint64_t *semi, uint64_t *nl)
{
	if (n > FOLDTOK_WINDOW)
		xdie("internal error: foldtok_scan of %zu bytes", n);
	switch (foldtok_kind()) {
#ifdef FOLDTOK_X86
	case FOLDTOK_AVX2:
		scan_avx2(p, n, semi, nl);
		return;
	case FOLDTOK_SSE2:
		scan_sse2(p, n, semi, nl);
		return;
#endif
	default:
		scan_scalar(p, n, semi, nl);
		return;
	}
}
