/* SPDX-License-Identifier: Apache-2.0 */
/* The unit parser: a table of accepted texts with their exact integer
 * values, and a table of rejected texts with the error code and a piece of
 * the message each must carry. */
#include <string.h>

#include "core/core-units.h"
#include "core-suites.h"

typedef bool (*ParseFn)(const char *text, uint64_t *out, GError **error);

static const struct {
    const char *text;
    ParseFn parse;
    uint64_t expect;
} accepted[] = {
    {"250ns", sim_units_parse_time_ps, 250000},
    {"0.1ns", sim_units_parse_time_ps, 100},
    {"1.5us", sim_units_parse_time_ps, 1500000},
    {"3\xc2\xb5s", sim_units_parse_time_ps, 3000000},
    {"1 s", sim_units_parse_time_ps, 1000000000000},
    {" 2ms ", sim_units_parse_time_ps, 2000000000},
    {"1e3ns", sim_units_parse_time_ps, 1000000},
    {"1.5e-3us", sim_units_parse_time_ps, 1500},
    {"0.4ps", sim_units_parse_time_ps, 0},
    {"0.5ps", sim_units_parse_time_ps, 1},
    {"0ns", sim_units_parse_time_ps, 0},
    {".5ns", sim_units_parse_time_ps, 500},
    {"4MiB", sim_units_parse_size_bytes, 4194304},
    {"1.5KiB", sim_units_parse_size_bytes, 1536},
    {"2.5KB", sim_units_parse_size_bytes, 2500},
    {"1GB", sim_units_parse_size_bytes, 1000000000},
    {"16 GiB", sim_units_parse_size_bytes, UINT64_C(17179869184)},
    {"1e3B", sim_units_parse_size_bytes, 1000},
    {"0B", sim_units_parse_size_bytes, 0},
    {"8TiB", sim_units_parse_size_bytes, UINT64_C(8) << 40},
    {"450GB/s", sim_units_parse_bandwidth_bytes_per_s, 450000000000},
    {"400Gbit/s", sim_units_parse_bandwidth_bytes_per_s, 50000000000},
    {"400Gb/s", sim_units_parse_bandwidth_bytes_per_s, 50000000000},
    {"25.78125Gbit/s", sim_units_parse_bandwidth_bytes_per_s, 3222656250},
    {"1GiB/s", sim_units_parse_bandwidth_bytes_per_s, 1073741824},
    {"3.35TB/s", sim_units_parse_bandwidth_bytes_per_s, 3350000000000},
    {"4bit/s", sim_units_parse_bandwidth_bytes_per_s, 1},
    {"12bit/s", sim_units_parse_bandwidth_bytes_per_s, 2},
    {"989TFLOP/s", sim_units_parse_rate_flops_per_s, 989000000000000},
    {"2.25PFLOP/s", sim_units_parse_rate_flops_per_s, 2250000000000000},
    {"19.5TFLOP/s", sim_units_parse_rate_flops_per_s, 19500000000000},
    {"100000", sim_units_parse_count, 100000},
    {"1e5", sim_units_parse_count, 100000},
    {"1.5e3", sim_units_parse_count, 1500},
    {"0", sim_units_parse_count, 0},
    {"123456789012345678", sim_units_parse_count, UINT64_C(123456789012345678)},
    {"18446744073709551616ps", sim_units_parse_time_ps, UINT64_C(18446744073709551600)},
};

START_TEST(accepts)
{
    g_autoptr(GError) error = NULL;
    uint64_t got = 12345;
    bool ok = accepted[_i].parse(accepted[_i].text, &got, &error);
    ck_assert_msg(ok, "'%s' rejected: %s", accepted[_i].text, error ? error->message : "");
    ck_assert_msg(got == accepted[_i].expect, "'%s': got %" PRIu64 ", expected %" PRIu64,
                  accepted[_i].text, got, accepted[_i].expect);
}
END_TEST

static const struct {
    const char *text;
    ParseFn parse;
    SimUnitsError code;
    const char *message_part;
} rejected[] = {
    {"450", sim_units_parse_time_ps, SIM_UNITS_ERROR_UNIT, "'450' has no unit: expected a time"},
    {"", sim_units_parse_time_ps, SIM_UNITS_ERROR_SYNTAX, "'' is not a number"},
    {"ns", sim_units_parse_time_ps, SIM_UNITS_ERROR_SYNTAX, "'ns' is not a number"},
    {"-5ns", sim_units_parse_time_ps, SIM_UNITS_ERROR_RANGE, "'-5ns' is negative"},
    {"5xs", sim_units_parse_time_ps, SIM_UNITS_ERROR_UNIT, "unknown unit 'xs'"},
    {"5 NS", sim_units_parse_time_ps, SIM_UNITS_ERROR_UNIT, "units: ps, ns, us"},
    {"nan", sim_units_parse_time_ps, SIM_UNITS_ERROR_SYNTAX, "'nan' is not a number"},
    {"1e30s", sim_units_parse_time_ps, SIM_UNITS_ERROR_RANGE, "'1e30s' is too large"},
    {"1.2.3ns", sim_units_parse_time_ps, SIM_UNITS_ERROR_UNIT, "unknown unit '.3ns'"},
    {"5 ns extra", sim_units_parse_time_ps, SIM_UNITS_ERROR_UNIT, "unknown unit 'ns extra'"},
    {"1.5B", sim_units_parse_size_bytes, SIM_UNITS_ERROR_RANGE, "not a whole number of bytes"},
    {"18446744073709551616B", sim_units_parse_size_bytes, SIM_UNITS_ERROR_RANGE,
     "more than 18 significant digits"},
    {"18446744073709552000ps", sim_units_parse_time_ps, SIM_UNITS_ERROR_RANGE, "too large"},
    {"20000000TiB", sim_units_parse_size_bytes, SIM_UNITS_ERROR_RANGE, "too large"},
    {"4mib", sim_units_parse_size_bytes, SIM_UNITS_ERROR_UNIT, "expected a size such as 4MiB"},
    {"400Gbps", sim_units_parse_bandwidth_bytes_per_s, SIM_UNITS_ERROR_UNIT,
     "write bits as Gbit/s and bytes as GB/s"},
    {"450gb/s", sim_units_parse_bandwidth_bytes_per_s, SIM_UNITS_ERROR_UNIT, "unknown unit"},
    {"450GB", sim_units_parse_bandwidth_bytes_per_s, SIM_UNITS_ERROR_UNIT, "expected a bandwidth"},
    {"0GB/s", sim_units_parse_bandwidth_bytes_per_s, SIM_UNITS_ERROR_RANGE, "not positive"},
    {"1bit/s", sim_units_parse_bandwidth_bytes_per_s, SIM_UNITS_ERROR_RANGE, "below 1 B/s"},
    {"inf GB/s", sim_units_parse_bandwidth_bytes_per_s, SIM_UNITS_ERROR_SYNTAX, "not a number"},
    {"989TFLOPS", sim_units_parse_rate_flops_per_s, SIM_UNITS_ERROR_UNIT, "TFLOP/s"},
    {"1.5", sim_units_parse_count, SIM_UNITS_ERROR_RANGE, "'1.5' is not a whole number"},
    {"10k", sim_units_parse_count, SIM_UNITS_ERROR_SYNTAX, "'10k' is not a plain number"},
    {"-1", sim_units_parse_count, SIM_UNITS_ERROR_RANGE, "negative"},
};

START_TEST(rejects)
{
    g_autoptr(GError) error = NULL;
    uint64_t got = 12345;
    bool ok = rejected[_i].parse(rejected[_i].text, &got, &error);
    ck_assert_msg(!ok, "'%s' accepted as %" PRIu64, rejected[_i].text, got);
    ck_assert_msg(got == 12345, "'%s': output written on error", rejected[_i].text);
    ck_assert_msg(g_error_matches(error, SIM_UNITS_ERROR, (gint)rejected[_i].code),
                  "'%s': wrong error code %d (%s)", rejected[_i].text, error->code, error->message);
    ck_assert_msg(strstr(error->message, rejected[_i].message_part) != NULL,
                  "'%s': message '%s' lacks '%s'", rejected[_i].text, error->message,
                  rejected[_i].message_part);
}
END_TEST

Suite *
core_units_suite(void)
{
    Suite *s = suite_create("core-units");
    TCase *tc = tcase_create("units");
    tcase_add_loop_test(tc, accepts, 0, sizeof accepted / sizeof accepted[0]);
    tcase_add_loop_test(tc, rejects, 0, sizeof rejected / sizeof rejected[0]);
    suite_add_tcase(s, tc);
    return s;
}
