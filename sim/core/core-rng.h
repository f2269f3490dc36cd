/* SPDX-License-Identifier: Apache-2.0 */
/* Seeded random-number streams, one per component.
 *
 * A stream is named by (seed, stream_id): the numbers component 7 draws are
 * the same whether the world has 8 components or 8000, and whatever order
 * they were created in. The generator is xoshiro256** (Blackman & Vigna),
 * seeded through SplitMix64.
 */
#pragma once

#include <stdint.h>

typedef struct SimRng {
    uint64_t s[4];
} SimRng;

/* Initializes rng as stream stream_id of the run seeded with seed. */
void sim_rng_init(SimRng *rng, uint64_t seed, uint64_t stream_id);

/* Next 64 uniformly distributed bits. */
static inline uint64_t
sim_rng_next_u64(SimRng *rng)
{
    uint64_t *s = rng->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* The rare path of sim_rng_below, given its first 128-bit product. */
uint64_t sim_rng_below_slow(SimRng *rng, uint64_t n, unsigned __int128 m);

/* Uniform integer in [0, n), without modulo bias (Lemire's method). n > 0. */
static inline uint64_t
sim_rng_below(SimRng *rng, uint64_t n)
{
    unsigned __int128 m = (unsigned __int128)sim_rng_next_u64(rng) * n;
    /* A low half below n may fall among the 2^64 mod n biased values, which
     * must be redrawn; that happens with probability below n / 2^64. */
    if ((uint64_t)m < n)
        return sim_rng_below_slow(rng, n, m);
    return (uint64_t)(m >> 64);
}

/* Uniform double in [0, 1), 53 random bits. */
static inline double
sim_rng_uniform(SimRng *rng)
{
    return (double)(sim_rng_next_u64(rng) >> 11) * 0x1.0p-53;
}

/* Exponentially distributed double with the given mean (> 0). */
double sim_rng_exponential(SimRng *rng, double mean);
