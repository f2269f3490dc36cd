/* SPDX-License-Identifier: Apache-2.0 */
/* coll-harness: what a benchmark reports for a call, each branch of its
 * closed form to the picosecond, and its names. */
#include "coll-suites.h"
#include "coll/coll-harness.h"

/* A runtime with round numbers: issue 4 us per GPU (1 us in a graph),
 * launch latency 3 us, gaps 1 us (0.5 us in a graph), 20 calls. */
static const HwRuntime rt = {
    .host_issue_ps = 4000000,
    .graph_issue_ps = 1000000,
    .launch_latency_ps = 3000000,
    .kernel_gap_ps = 1000000,
    .graph_kernel_gap_ps = 500000,
    .kernel_setup_ps = 7000000,
    .n_iterations = 20,
};

START_TEST(nccl_tests_device_bound)
{
    /* One process per GPU: H = 4 us < D = 12 + 1 us; T = D + (H + L) / 20. */
    CollHarness h = COLL_HARNESS_DEFAULT;
    CollHarnessTime t;
    coll_harness_time(&rt, &h, 8, 12000000, &t);
    ck_assert_uint_eq(t.issue_ps, 4000000);
    ck_assert_uint_eq(t.device_ps, 13000000);
    ck_assert_uint_eq(t.time_ps, 13000000 + (4000000 + 3000000) / 20);
}
END_TEST

START_TEST(nccl_tests_host_bound)
{
    /* One thread drives 8 GPUs: H = 32 us > D = 13 us; T = H + (D + L) / 20. */
    CollHarness h = {.kind = COLL_HARNESS_NCCL_TESTS, .mode = COLL_LAUNCH_THREADS};
    CollHarnessTime t;
    coll_harness_time(&rt, &h, 8, 12000000, &t);
    ck_assert_uint_eq(t.issue_ps, 32000000);
    ck_assert_uint_eq(t.time_ps, 32000000 + (13000000 + 3000000) / 20);
}
END_TEST

START_TEST(cuda_graph_and_blocking)
{
    CollHarnessTime t;
    /* A graph: H = 8 x 1 us, D = 12 + 0.5 us. */
    CollHarness g = {
        .kind = COLL_HARNESS_NCCL_TESTS, .mode = COLL_LAUNCH_THREADS, .cuda_graph = true};
    coll_harness_time(&rt, &g, 8, 12000000, &t);
    ck_assert_uint_eq(t.time_ps, 12500000 + (8000000 + 3000000) / 20);
    /* Waiting for every call pays issue, launch and kernel each time. */
    CollHarness b = {.kind = COLL_HARNESS_BLOCKING, .mode = COLL_LAUNCH_MPI};
    coll_harness_time(&rt, &b, 8, 12000000, &t);
    ck_assert_uint_eq(t.time_ps, 4000000 + 3000000 + 12000000);
    /* Not NCCL's kernels (a loopback system): the kernel alone. */
    coll_harness_time(NULL, &b, 8, 12000000, &t);
    ck_assert_uint_eq(t.time_ps, 12000000);
}
END_TEST

START_TEST(iterations_and_gpus_per_thread)
{
    /* nccl-tests -n 5: the once-only terms over 5 calls, not the runtime's 20. */
    CollHarness n = {.kind = COLL_HARNESS_NCCL_TESTS, .mode = COLL_LAUNCH_MPI, .n_iterations = 5};
    CollHarnessTime t;
    coll_harness_time(&rt, &n, 8, 12000000, &t);
    ck_assert_uint_eq(t.time_ps, 13000000 + (4000000 + 3000000) / 5);
    /* nccl-tests -t 2 -g 4 on a host of 8: H = 4 x 4 us = 16 us > D = 13 us. */
    CollHarness g = {
        .kind = COLL_HARNESS_NCCL_TESTS, .mode = COLL_LAUNCH_THREADS, .gpus_per_thread = 4};
    coll_harness_time(&rt, &g, 8, 12000000, &t);
    ck_assert_uint_eq(t.issue_ps, 16000000);
    ck_assert_uint_eq(t.time_ps, 16000000 + (13000000 + 3000000) / 20);
    /* One process per GPU ignores the GPUs per thread. */
    g.mode = COLL_LAUNCH_MPI;
    coll_harness_time(&rt, &g, 8, 12000000, &t);
    ck_assert_uint_eq(t.issue_ps, 4000000);
}
END_TEST

START_TEST(names)
{
    CollHarnessKind k;
    CollLaunchMode m;
    ck_assert(coll_harness_kind_parse("NCCL-tests", &k) && k == COLL_HARNESS_NCCL_TESTS);
    ck_assert(coll_harness_kind_parse("blocking", &k) && k == COLL_HARNESS_BLOCKING);
    ck_assert(!coll_harness_kind_parse("pytorch", &k));
    ck_assert(coll_launch_mode_parse("Threads", &m) && m == COLL_LAUNCH_THREADS);
    ck_assert(!coll_launch_mode_parse("", &m));
    ck_assert_str_eq(coll_launch_mode_name(COLL_LAUNCH_MPI), "mpi");
    ck_assert_str_eq(coll_harness_kind_name(COLL_HARNESS_BLOCKING), "blocking");
}
END_TEST

Suite *
coll_harness_suite(void)
{
    Suite *s = suite_create("coll-harness");
    TCase *tc = tcase_create("harness");
    tcase_add_test(tc, nccl_tests_device_bound);
    tcase_add_test(tc, nccl_tests_host_bound);
    tcase_add_test(tc, cuda_graph_and_blocking);
    tcase_add_test(tc, iterations_and_gpus_per_thread);
    tcase_add_test(tc, names);
    suite_add_tcase(s, tc);
    return s;
}
