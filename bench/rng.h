/* bench/rng.h: the benchmark generators' PRNG (xoshiro256**, seeded with
 * splitmix64), the same numbers in each, so that an input is the same for
 * a given seed. Header only: each generator is one file built by run.sh. */
#ifndef TFLAME_BENCH_RNG_H
#define TFLAME_BENCH_RNG_H

#include <stdint.h>

static uint64_t rs[4];

static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static inline void rng_seed(uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		seed += 0x9e3779b97f4a7c15u;
		rs[i] = mix64(seed);
	}
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng(void)
{
	uint64_t r = rotl(rs[1] * 5, 7) * 9, t = rs[1] << 17;
	rs[2] ^= rs[0];
	rs[3] ^= rs[1];
	rs[1] ^= rs[2];
	rs[0] ^= rs[3];
	rs[2] ^= t;
	rs[3] = rotl(rs[3], 45);
	return r;
}

/* [0, 1) */
static inline double unif(void)
{
	return (double)(rng() >> 11) * 0x1.0p-53;
}

/* [0, n) */
static inline uint32_t below(uint32_t n)
{
	return (uint32_t)(((rng() >> 32) * (uint64_t)n) >> 32);
}

#endif
