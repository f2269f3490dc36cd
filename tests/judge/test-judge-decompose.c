/* SPDX-License-Identifier: Apache-2.0 */
/* judge-decompose: lines through exact points, and misses put down to the
 * latency or the bandwidth they were built from. */
#include <check.h>
#include <math.h>

#include "judge-suites.h"
#include "judge/judge-decompose.h"

/* t = alpha + bytes / (beta * 1e3), us. */
static double
line_us(double alpha_us, double beta_gbps, double bytes)
{
    return alpha_us + bytes / (beta_gbps * 1e3);
}

START_TEST(test_line_exact)
{
    double bytes[7], us[7], w[7];
    for (int i = 0; i < 7; i++) {
        bytes[i] = pow(8.0, i + 3); /* 512 B .. 512 MiB */
        us[i] = line_us(7.5, 40.0, bytes[i]);
        w[i] = 1.0 / (us[i] * us[i]);
    }
    JudgeLine l;
    judge_line_fit(bytes, us, w, 7, &l);
    ck_assert(l.fitted);
    ck_assert_double_eq_tol(l.alpha_us, 7.5, 1e-9);
    ck_assert_double_eq_tol(l.beta_gbps, 40.0, 1e-9);
    ck_assert_double_eq_tol(judge_line_time(&l, 1e6), 7.5 + 25.0, 1e-9);
    /* unweighted: the same exact line */
    judge_line_fit(bytes, us, NULL, 7, &l);
    ck_assert_double_eq_tol(l.alpha_us, 7.5, 1e-6);
    ck_assert_double_eq_tol(l.beta_gbps, 40.0, 1e-9);
}
END_TEST

START_TEST(test_line_degenerate)
{
    /* one size twice (out-of-place and in-place): no line */
    double bytes[2] = {1e6, 1e6}, us[2] = {10.0, 12.0};
    JudgeLine l;
    judge_line_fit(bytes, us, NULL, 2, &l);
    ck_assert(!l.fitted);
    ck_assert(isnan(l.beta_gbps));
    ck_assert_double_eq_tol(l.alpha_us, 11.0, 1e-12);
    /* time falling with size: no bandwidth, the intercept kept */
    double b2[2] = {1e3, 1e6}, u2[2] = {20.0, 10.0};
    judge_line_fit(b2, u2, NULL, 2, &l);
    ck_assert(l.fitted);
    ck_assert(isinf(l.beta_gbps));
    ck_assert_double_eq_tol(l.alpha_us, 20.0 + 10.0 * 1e3 / 999e3, 1e-9);
}
END_TEST

static JudgeDecompose *
sweep_of(double m_alpha, double m_beta, double s_alpha, double s_beta, const char *system)
{
    JudgeDecompose *d = judge_decompose_new();
    for (int i = 10; i <= 30; i += 4) {
        double b = ldexp(1.0, i);
        judge_decompose_add(d, system, "all_reduce", 16, 2, 2, "src", "nccl-tests", "ring/Simple",
                            b, line_us(m_alpha, m_beta, b), line_us(s_alpha, s_beta, b));
    }
    return d;
}

START_TEST(test_latency_miss)
{
    g_autoptr(JudgeDecompose) d = sweep_of(20.0, 100.0, 23.0, 100.0, "a");
    GPtrArray *sweeps = judge_decompose_sweeps(d);
    ck_assert_uint_eq(sweeps->len, 1);
    const JudgeSweep *s = g_ptr_array_index(sweeps, 0);
    ck_assert_uint_eq(s->n_rows, 6);
    ck_assert_uint_eq(s->n_ranks, 16);
    ck_assert_uint_eq(s->n_hosts, 2);
    ck_assert_uint_eq(s->n_domains, 2);
    ck_assert_double_eq_tol(s->share, 1.0, 1e-12);
    ck_assert_uint_eq(s->pieces->len, 1);
    const JudgePiece *p = g_ptr_array_index(s->pieces, 0);
    ck_assert_double_eq_tol(p->simulated.alpha_us - p->measured.alpha_us, 3.0, 1e-6);
    ck_assert_double_eq_tol(p->simulated.beta_gbps, p->measured.beta_gbps, 1e-6);
    ck_assert_double_eq_tol(p->bandwidth_pct, 0.0, 1e-6);
    ck_assert(p->latency_pct > 0);
    /* The latency part of each row is 3 us of its measured time. */
    double want = 0;
    for (int i = 10; i <= 30; i += 4)
        want += 100.0 * 3.0 / line_us(20.0, 100.0, ldexp(1.0, i));
    ck_assert_double_eq_tol(p->latency_pct, want / 6, 1e-6);
}
END_TEST

START_TEST(test_bandwidth_miss)
{
    g_autoptr(JudgeDecompose) d = sweep_of(20.0, 100.0, 20.0, 125.0, "a");
    const JudgeSweep *s = g_ptr_array_index(judge_decompose_sweeps(d), 0);
    const JudgePiece *p = g_ptr_array_index(s->pieces, 0);
    ck_assert_double_eq_tol(p->simulated.beta_gbps / p->measured.beta_gbps, 1.25, 1e-9);
    ck_assert_double_eq_tol(p->simulated.alpha_us, p->measured.alpha_us, 1e-6);
    ck_assert_double_eq_tol(p->latency_pct, 0.0, 1e-6);
    ck_assert(p->bandwidth_pct > 0);
}
END_TEST

START_TEST(test_pieces_and_shares)
{
    g_autoptr(JudgeDecompose) d = judge_decompose_new();
    /* sweep "small": 2% too slow everywhere; sweep "big": LL below 64 KiB
     * (alpha 5 measured, 6 simulated), Simple above (beta 50 measured, 40
     * simulated), added out of order. */
    for (int i = 20; i >= 10; i -= 2) {
        double b = ldexp(1.0, i);
        const char *ran = b < 65536 ? "ring/LL" : "ring/Simple";
        double m = b < 65536 ? line_us(5, 10, b) : line_us(30, 50, b);
        double s = b < 65536 ? line_us(6, 10, b) : line_us(30, 40, b);
        judge_decompose_add(d, "x", "all_reduce", 8, 1, 1, "src", "nccl-tests", ran, b, m, s);
        judge_decompose_add(d, "x", "all_gather", 8, 1, 1, "src", "nccl-tests", "ring/Simple", b, m,
                            1.02 * m);
    }
    /* not positive: left out */
    judge_decompose_add(d, "x", "all_gather", 8, 1, 1, "src", "nccl-tests", "ring/Simple", 1, 0, 1);
    GPtrArray *sweeps = judge_decompose_sweeps(d);
    ck_assert_uint_eq(sweeps->len, 2);
    const JudgeSweep *big = g_ptr_array_index(sweeps, 0), *small = g_ptr_array_index(sweeps, 1);
    ck_assert_str_eq(big->collective, "all_reduce");
    ck_assert_str_eq(small->collective, "all_gather");
    ck_assert_uint_eq(small->n_rows, 6);
    ck_assert_double_eq_tol(small->sum_abs_pct, 6 * 2.0, 1e-9);
    ck_assert_double_eq_tol(big->share + small->share, 1.0, 1e-12);
    ck_assert(big->share > small->share);
    ck_assert_uint_eq(big->pieces->len, 2);
    const JudgePiece *ll = g_ptr_array_index(big->pieces, 0),
                     *simple = g_ptr_array_index(big->pieces, 1);
    ck_assert_str_eq(ll->ran, "ring/LL");
    ck_assert_uint_eq(ll->n_rows, 3);
    ck_assert_double_eq(ll->min_bytes, 1024);
    ck_assert_double_eq(ll->max_bytes, 16384);
    ck_assert_double_eq_tol(ll->measured.alpha_us, 5, 1e-6);
    ck_assert_double_eq_tol(ll->simulated.alpha_us, 6, 1e-6);
    ck_assert_str_eq(simple->ran, "ring/Simple");
    ck_assert_uint_eq(simple->n_rows, 3);
    ck_assert_double_eq_tol(simple->measured.beta_gbps, 50, 1e-6);
    ck_assert_double_eq_tol(simple->simulated.beta_gbps, 40, 1e-6);
    ck_assert(simple->bandwidth_pct > simple->latency_pct);
}
END_TEST

Suite *
judge_decompose_suite(void)
{
    Suite *s = suite_create("judge-decompose");
    TCase *tc = tcase_create("lines");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_line_exact);
    tcase_add_test(tc, test_line_degenerate);
    tcase_add_test(tc, test_latency_miss);
    tcase_add_test(tc, test_bandwidth_miss);
    tcase_add_test(tc, test_pieces_and_shares);
    suite_add_tcase(s, tc);
    return s;
}
