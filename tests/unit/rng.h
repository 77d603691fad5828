/* rng.h: the unit tests' pseudo-random numbers (xorshift64), repeatable:
 * rnd() from a fixed seed, rnd_seed(s) to start elsewhere (s != 0). */
#ifndef TFLAME_TEST_RNG_H
#define TFLAME_TEST_RNG_H

#include <stdint.h>

static uint64_t rnd_state = 0x2545F4914F6CDD1DULL;

__attribute__((unused))
static void rnd_seed(uint64_t s)
{
	rnd_state = s;
}

__attribute__((unused))
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

#endif
