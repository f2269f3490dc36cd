/* SPDX-License-Identifier: Apache-2.0 */
/* sim_serialization_ps: exact, rounded up, 128-bit safe, saturating. */
#include "core/core-time.h"
#include "core-suites.h"

static const struct {
    const char *name;
    uint64_t n_bytes;
    uint64_t bytes_per_s;
    uint64_t expect_ps;
} cases[] = {
    {"nothing takes no time", 0, 25000000000, 0},
    {"one byte at 1 B/s is one second", 1, 1, 1000000000000},
    {"a third rounds up", 1, 3, 333333333334},
    {"SM payload on an NVLink 2/3 link", 128, 25000000000, 5120},
    {"CE payload on an NVLink 1 link", 256, 20000000000, 12800},
    {"4 GiB at 450 GB/s (128-bit product)", UINT64_C(4) << 30, 450000000000, 9544371769},
    {"16 GiB at 1 GB/s", UINT64_C(16) << 30, 1000000000, 17179869184000},
    {"1 GiB at 400 Gbit/s", UINT64_C(1) << 30, 50000000000, 21474836480},
    {"1000 B at 7 B/s", 1000, 7, 142857142857143},
    {"one byte at the fastest rate is 1 ps", 1, UINT64_MAX, 1},
    {"past 213 days saturates", UINT64_MAX, 1, SIM_TIME_NEVER},
};

START_TEST(serialization_exact)
{
    uint64_t got = sim_serialization_ps(cases[_i].n_bytes, cases[_i].bytes_per_s);
    ck_assert_msg(got == cases[_i].expect_ps, "%s: got %" PRIu64 " ps, expected %" PRIu64 " ps",
                  cases[_i].name, got, cases[_i].expect_ps);
}
END_TEST

Suite *
core_time_suite(void)
{
    Suite *s = suite_create("core-time");
    TCase *tc = tcase_create("serialization");
    tcase_add_loop_test(tc, serialization_exact, 0, sizeof cases / sizeof cases[0]);
    suite_add_tcase(s, tc);
    return s;
}
