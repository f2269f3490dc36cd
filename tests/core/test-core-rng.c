/* SPDX-License-Identifier: Apache-2.0 */
/* SimRng: the xoshiro256** reference sequence, stream independence,
 * bounded and exponential draws. */
#include <math.h>

#include "core/core-rng.h"
#include "core-suites.h"

START_TEST(reference_sequence)
{
    /* The generator's published behaviour from state {1, 2, 3, 4}. */
    SimRng rng = {{1, 2, 3, 4}};
    const uint64_t expect[] = {11520, 0, 1509978240, UINT64_C(1215971899390074240)};
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(sim_rng_next_u64(&rng), expect[i]);
}
END_TEST

START_TEST(stream_ignores_other_streams)
{
    /* Stream 7 alone and stream 7 created after 1000 others agree. */
    SimRng alone;
    sim_rng_init(&alone, 42, 7);
    SimRng many[1000];
    for (int i = 0; i < 1000; i++)
        sim_rng_init(&many[i], 42, (uint64_t)(999 - i));
    for (int i = 0; i < 1000; i++)
        sim_rng_next_u64(&many[i]);
    SimRng *seven = &many[999 - 7];
    SimRng again;
    sim_rng_init(&again, 42, 7);
    ck_assert_uint_eq(sim_rng_next_u64(&alone), sim_rng_next_u64(&again));
    for (int i = 0; i < 100; i++)
        ck_assert_uint_eq(sim_rng_next_u64(&alone), sim_rng_next_u64(seven));
}
END_TEST

START_TEST(streams_and_seeds_differ)
{
    SimRng a, b, c;
    sim_rng_init(&a, 1, 0);
    sim_rng_init(&b, 1, 1);
    sim_rng_init(&c, 2, 0);
    uint64_t x = sim_rng_next_u64(&a);
    ck_assert_uint_ne(x, sim_rng_next_u64(&b));
    ck_assert_uint_ne(x, sim_rng_next_u64(&c));
}
END_TEST

START_TEST(below_is_bounded_and_uniform)
{
    SimRng rng;
    sim_rng_init(&rng, 3, 0);
    enum { N = 10, DRAWS = 200000 };
    int counts[N] = {0};
    for (int i = 0; i < DRAWS; i++) {
        uint64_t v = sim_rng_below(&rng, N);
        ck_assert_uint_lt(v, N);
        counts[v]++;
    }
    /* Chi-square with 9 degrees of freedom: 27.9 is the 0.1 % tail. */
    double chi2 = 0;
    for (int i = 0; i < N; i++) {
        double d = counts[i] - DRAWS / (double)N;
        chi2 += d * d / (DRAWS / (double)N);
    }
    ck_assert_msg(chi2 < 27.9, "chi-square %.1f says sim_rng_below is not uniform", chi2);
    ck_assert_uint_eq(sim_rng_below(&rng, 1), 0);
}
END_TEST

START_TEST(exponential_mean)
{
    SimRng rng;
    sim_rng_init(&rng, 5, 0);
    double sum = 0;
    enum { DRAWS = 200000 };
    for (int i = 0; i < DRAWS; i++) {
        double x = sim_rng_exponential(&rng, 1000.0);
        ck_assert(x >= 0 && isfinite(x));
        sum += x;
    }
    /* The standard error of the mean is 1000 / sqrt(2e5), about 2.2. */
    ck_assert_double_eq_tol(sum / DRAWS, 1000.0, 12.0);
}
END_TEST

START_TEST(exponential_tail_fractions)
{
    /* P(X > q * mean) = exp(-q), through the fast path (q = 0.5, 1), the
     * slow layers (q = 3) and the tail past the ziggurat's base (q = 8). */
    SimRng rng;
    sim_rng_init(&rng, 6, 0);
    enum { DRAWS = 1000000 };
    const double q[] = {0.5, 1.0, 3.0, 8.0};
    int above[4] = {0};
    for (int i = 0; i < DRAWS; i++) {
        double x = sim_rng_exponential(&rng, 1.0);
        for (int j = 0; j < 4; j++)
            above[j] += x > q[j];
    }
    for (int j = 0; j < 4; j++) {
        double p = exp(-q[j]);
        double sigma = sqrt(p * (1 - p) / DRAWS);
        double got = (double)above[j] / DRAWS;
        ck_assert_msg(fabs(got - p) < 5 * sigma + 1e-6, "P(X > %.1f) = %.6f, expected %.6f", q[j],
                      got, p);
    }
}
END_TEST

Suite *
core_rng_suite(void)
{
    Suite *s = suite_create("core-rng");
    TCase *tc = tcase_create("rng");
    tcase_add_test(tc, reference_sequence);
    tcase_add_test(tc, stream_ignores_other_streams);
    tcase_add_test(tc, streams_and_seeds_differ);
    tcase_add_test(tc, below_is_bounded_and_uniform);
    tcase_add_test(tc, exponential_mean);
    tcase_add_test(tc, exponential_tail_fractions);
    suite_add_tcase(s, tc);
    return s;
}
