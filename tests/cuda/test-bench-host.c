/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim-bench's host side, without a GPU: the command line (valid and
 * invalid), nccl-tests' size sweeps and bus bandwidth factors, the CSV rows
 * (header of collectives.csv, quoting, the committed fixture byte for
 * byte), the reference results of --check, its tolerance, and the median.
 * tests/cuda/test-bench-validate.sh replays the fixture with nvlsim
 * validate. */
#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuda/bench-host.h"

static char *
srcdir_file(const char *relative)
{
    const char *top = g_getenv("top_srcdir");
    return g_build_filename(top ? top : ".", relative, NULL);
}

/* Parses a command line written as one string (words split on blanks). */
static bool
parse_line(const char *line, BenchArgs *args, GError **error)
{
    g_autofree char *full = g_strconcat("nvlsim-bench ", line, NULL);
    g_auto(GStrv) argv = g_strsplit(full, " ", -1);
    return bench_parse_args((int)g_strv_length(argv), argv, args, error);
}

START_TEST(parse_coll_full)
{
    g_autoptr(GError) error = NULL;
    BenchArgs a;
    ck_assert_msg(parse_line("coll --op allreduce -b 8 -e 128M -f 2 --gpus 8 --iters 50 "
                             "--warmup 10 --check --csv out.csv --system dgx-h100 --datatype float",
                             &a, &error),
                  "%s", error ? error->message : "");
    ck_assert_int_eq(a.mode, BENCH_MODE_COLL);
    ck_assert_int_eq(a.op, COLL_OP_ALL_REDUCE);
    ck_assert_uint_eq(a.min_bytes, 8);
    ck_assert_uint_eq(a.max_bytes, 134217728);
    ck_assert_uint_eq(a.step_factor, 2);
    ck_assert_uint_eq(a.n_gpus, 8);
    ck_assert_uint_eq(a.n_iters, 50);
    ck_assert_uint_eq(a.n_warmup, 10);
    ck_assert(a.check);
    ck_assert_str_eq(a.csv_path, "out.csv");
    ck_assert_str_eq(a.system, "dgx-h100");
    ck_assert_str_eq(a.dtype, "float");
    ck_assert_uint_eq(a.dtype_bytes, 4);
    bench_args_clear(&a);
}
END_TEST

START_TEST(parse_defaults_and_units)
{
    g_autoptr(GError) error = NULL;
    BenchArgs a;
    ck_assert_msg(parse_line("coll --op all_gather -d bfloat16", &a, &error), "%s",
                  error ? error->message : "");
    /* nccl-tests' defaults: 32M, 20 iterations, 5 warm-up. */
    ck_assert_uint_eq(a.min_bytes, 32u << 20);
    ck_assert_uint_eq(a.max_bytes, 32u << 20);
    ck_assert_uint_eq(a.n_iters, 20);
    ck_assert_uint_eq(a.n_warmup, 5);
    ck_assert_uint_eq(a.n_gpus, 0);
    ck_assert(!a.check);
    ck_assert_ptr_null(a.csv_path);
    ck_assert_ptr_null(a.system);
    ck_assert_uint_eq(a.dtype_bytes, 2);
    bench_args_clear(&a);

    ck_assert_msg(parse_line("loopback --ranks 4 -b 1k -e 1G -f 4 --iters 3", &a, &error), "%s",
                  error ? error->message : "");
    ck_assert_int_eq(a.mode, BENCH_MODE_LOOPBACK);
    ck_assert_uint_eq(a.n_rank_counts, 1);
    ck_assert_uint_eq(a.rank_counts[0], 4);
    ck_assert_int_eq(a.op, COLL_OP_ALL_REDUCE);
    ck_assert_ptr_null(a.system);
    ck_assert_uint_eq(a.min_bytes, 1024);
    ck_assert_uint_eq(a.max_bytes, 1073741824);
    ck_assert_uint_eq(a.step_factor, 4);
    ck_assert_uint_eq(a.n_iters, 3);
    bench_args_clear(&a);

    ck_assert_msg(
        parse_line("loopback --ranks 2,4,8 --op allgather --system loopback-x", &a, &error), "%s",
        error ? error->message : "");
    ck_assert_uint_eq(a.n_rank_counts, 3);
    ck_assert_uint_eq(a.rank_counts[0], 2);
    ck_assert_uint_eq(a.rank_counts[1], 4);
    ck_assert_uint_eq(a.rank_counts[2], 8);
    ck_assert_int_eq(a.op, COLL_OP_ALL_GATHER);
    ck_assert_str_eq(a.system, "loopback-x");
    bench_args_clear(&a);

    /* nvlsim's own units: GB is 10^9, MiB 2^20. */
    ck_assert_msg(parse_line("coll --op broadcast -b 4MiB -e 1GB", &a, &error), "%s",
                  error ? error->message : "");
    ck_assert_uint_eq(a.min_bytes, 4u << 20);
    ck_assert_uint_eq(a.max_bytes, 1000000000);
    bench_args_clear(&a);

    ck_assert_msg(parse_line("gpu --csv g.csv --iters 7", &a, &error), "%s",
                  error ? error->message : "");
    ck_assert_int_eq(a.mode, BENCH_MODE_GPU);
    ck_assert_str_eq(a.csv_path, "g.csv");
    ck_assert_uint_eq(a.n_iters, 7);
    bench_args_clear(&a);

    ck_assert_msg(parse_line("interfere --iters 3 --csv i.csv", &a, &error), "%s",
                  error ? error->message : "");
    ck_assert_int_eq(a.mode, BENCH_MODE_INTERFERE);
    ck_assert_str_eq(a.csv_path, "i.csv");
    ck_assert_uint_eq(a.n_iters, 3);
    bench_args_clear(&a);
}
END_TEST

/* Invalid command lines, each with a word its one-line error must hold. */
static const struct {
    const char *line, *names;
} invalid[] = {
    {"coll -b 8 -e 1M", "--op"},
    {"coll --op allfoo", "allfoo"},
    {"coll --op all_reduce -b 8X", "--minbytes"},
    {"coll --op all_reduce -e 1.5", "--maxbytes"},
    {"coll --op all_reduce -b 0", "--minbytes"},
    {"coll --op all_reduce -b 1M -e 1K", "--maxbytes"},
    {"coll --op all_reduce -f 1", "--stepfactor"},
    {"coll --op all_reduce -f two", "--stepfactor"},
    {"coll --op all_reduce --gpus 0", "--gpus"},
    {"coll --op all_reduce --iters 0", "--iters"},
    {"coll --op all_reduce --datatype float7", "--datatype"},
    {"coll --op all_reduce --check --datatype half", "--check"},
    {"coll --op alltoall --check", "--check"},
    {"coll --op all_reduce --frobnicate", "--frobnicate"},
    {"coll --op all_reduce extra", "extra"},
    {"loopback -b 8", "--ranks"},
    {"loopback --ranks 1", "--ranks"},
    {"loopback --ranks 2,,4", "--ranks"},
    {"loopback --ranks 2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18", "at most 16"},
    {"loopback --ranks 4 --op broadcast", "all_reduce or all_gather"},
    {"loopback --ranks 4 --check", "--check"},
    {"gpu --op all_reduce", "--op"},
    {"gpu -b 8", "-b"},
    {"interfere -e 1G", "-e"},
    {"interfere --ranks 4", "--ranks"},
    {"train", "train"},
    {"", "subcommand"},
};

START_TEST(parse_invalid)
{
    g_autoptr(GError) error = NULL;
    BenchArgs a;
    const char *line = invalid[_i].line;
    ck_assert_msg(!parse_line(line, &a, &error), "'%s': accepted", line);
    ck_assert_msg(error != NULL, "'%s': no error", line);
    ck_assert_msg(strstr(error->message, invalid[_i].names) != NULL,
                  "'%s': error '%s' does not name %s", line, error->message, invalid[_i].names);
    ck_assert_msg(strchr(error->message, '\n') == NULL, "'%s': error spans lines", line);
    ck_assert_ptr_null(a.dtype);
    bench_args_clear(&a);
}
END_TEST

START_TEST(parse_leaves_argv)
{
    char *argv[] = {"nvlsim-bench", "coll", "--op", "all_reduce", "-b", "8", NULL};
    char *before[G_N_ELEMENTS(argv)];
    memcpy(before, argv, sizeof argv);
    BenchArgs a;
    ck_assert(bench_parse_args(6, argv, &a, NULL));
    ck_assert_mem_eq(before, argv, sizeof argv);
    bench_args_clear(&a);
}
END_TEST

START_TEST(sizes_nccl_tests_sweep)
{
    /* nccl-tests -b 8 -e 128M -f 2: 8, 16, ... 134217728, 25 sizes. */
    g_autoptr(GArray) s = bench_sizes(8, 128u << 20, 2, 4);
    ck_assert_uint_eq(s->len, 25);
    for (guint i = 0; i < s->len; i++)
        ck_assert_uint_eq(g_array_index(s, uint64_t, i), UINT64_C(8) << i);

    /* all_gather of floats on 8 ranks: multiples of 32 bytes; 8 and 16 round
     * to nothing and are dropped. */
    uint64_t unit = bench_size_unit_bytes(COLL_OP_ALL_GATHER, 8, 4);
    ck_assert_uint_eq(unit, 32);
    ck_assert_uint_eq(bench_size_unit_bytes(COLL_OP_ALL_REDUCE, 8, 4), 4);
    ck_assert_uint_eq(bench_size_unit_bytes(COLL_OP_ALLTOALL, 8, 2), 16);
    /* The loopback kernel: an all_gather's share is whole float4 vectors. */
    ck_assert_uint_eq(bench_loopback_unit_bytes(COLL_OP_ALL_GATHER, 8), 128);
    ck_assert_uint_eq(bench_loopback_unit_bytes(COLL_OP_ALL_REDUCE, 8), 4);
    g_autofree char *h200 = bench_loopback_system_id("NVIDIA H200");
    g_autofree char *h100 = bench_loopback_system_id("NVIDIA  H100 80GB HBM3");
    g_autofree char *plain = bench_loopback_system_id("Tesla");
    ck_assert_str_eq(h200, "loopback-h200");
    ck_assert_str_eq(h100, "loopback-h100");
    ck_assert_str_eq(plain, "loopback-tesla");
    g_autoptr(GArray) ag = bench_sizes(8, 128u << 20, 2, unit);
    ck_assert_uint_eq(ag->len, 23);
    ck_assert_uint_eq(g_array_index(ag, uint64_t, 0), 32);

    /* Sizes that are not multiples round down: 100, 300, 900 by 32. */
    g_autoptr(GArray) odd = bench_sizes(100, 1000, 3, 32);
    ck_assert_uint_eq(odd->len, 3);
    ck_assert_uint_eq(g_array_index(odd, uint64_t, 0), 96);
    ck_assert_uint_eq(g_array_index(odd, uint64_t, 1), 288);
    ck_assert_uint_eq(g_array_index(odd, uint64_t, 2), 896);

    /* min == max: one size; a max near 2^64 does not overflow. */
    g_autoptr(GArray) one = bench_sizes(32u << 20, 32u << 20, 2, 4);
    ck_assert_uint_eq(one->len, 1);
    g_autoptr(GArray) big = bench_sizes(UINT64_C(1) << 62, UINT64_MAX, 2, 1);
    ck_assert_uint_eq(big->len, 2);
}
END_TEST

START_TEST(bandwidths_and_median)
{
    /* 8 ranks: all_reduce 2(n-1)/n = 1.75, all_gather (n-1)/n = 0.875. */
    double algbw = bench_algbw_bytes_per_s(1000000, 10.0);
    ck_assert_double_eq_tol(algbw, 1e11, 1e-3);
    ck_assert_double_eq_tol(bench_busbw_bytes_per_s(COLL_OP_ALL_REDUCE, 8, 1000000, 10.0), 1.75e11,
                            1e-3);
    ck_assert_double_eq_tol(bench_busbw_bytes_per_s(COLL_OP_ALL_GATHER, 8, 1000000, 10.0), 0.875e11,
                            1e-3);

    const double odd[] = {5, 1, 9, 3, 7};
    ck_assert_double_eq(bench_median_us(odd, 5), 5);
    ck_assert_double_eq(odd[0], 5); /* not sorted in place */
    const double even[] = {4, 1, 3, 2};
    ck_assert_double_eq(bench_median_us(even, 4), 2.5);
    const double single[] = {42.5};
    ck_assert_double_eq(bench_median_us(single, 1), 42.5);
}
END_TEST

START_TEST(expected_results)
{
    ck_assert_float_eq(bench_input_value(0, 0), 1);
    ck_assert_float_eq(bench_input_value(2, 5), 18);
    ck_assert_float_eq(bench_input_value(1, 97), 2); /* the pattern repeats every 97 */
    ck_assert_float_eq(bench_input_value(3, 96), 388);

    /* 4 ranks: (1 + 2 + 3 + 4) × ((i % 97) + 1). */
    float ar[200];
    bench_expected_allreduce(ar, 4, 200);
    ck_assert_float_eq(ar[0], 10);
    ck_assert_float_eq(ar[1], 20);
    ck_assert_float_eq(ar[96], 970);
    ck_assert_float_eq(ar[97], 10);
    ck_assert_float_eq(ar[199], 60);

    /* The sum of the filled inputs equals it, in float, exactly. */
    float in[200], sum[200] = {0};
    for (uint32_t r = 0; r < 4; r++) {
        bench_input_fill(in, r, 200);
        for (size_t i = 0; i < 200; i++)
            sum[i] += in[i];
    }
    ck_assert(bench_check_floats(sum, ar, 200, 0, NULL));

    /* all_gather of 3 elements from 2 ranks: rank 0's then rank 1's. */
    float ag[6];
    bench_expected_allgather(ag, 2, 3);
    const float want_ag[] = {1, 2, 3, 2, 4, 6};
    ck_assert_mem_eq(ag, want_ag, sizeof want_ag);

    /* reduce_scatter: rank 1 of 2 gets elements 3..5 of the all-reduce. */
    float rs[3];
    bench_expected_reduce_scatter(rs, 2, 1, 3);
    const float want_rs[] = {12, 15, 18};
    ck_assert_mem_eq(rs, want_rs, sizeof want_rs);

    /* 587 ranks: the largest sum, 97 × 587 × 588 / 2, is still exact. */
    float big[97];
    bench_expected_allreduce(big, 587, 97);
    ck_assert_float_eq(big[96], 16740066.0f);
}
END_TEST

START_TEST(check_tolerance)
{
    const float want[] = {100, 200, 300, 400};
    float got[] = {100, 200, 300, 400};
    size_t bad = 99;
    ck_assert(bench_check_floats(got, want, 4, 0, &bad));
    ck_assert_uint_eq(bad, 4);

    got[2] = 300.03f; /* 1e-4 relative */
    ck_assert(!bench_check_floats(got, want, 4, 0, &bad));
    ck_assert_uint_eq(bad, 2);
    ck_assert(!bench_check_floats(got, want, 4, 1e-5, &bad));
    ck_assert(bench_check_floats(got, want, 4, 1e-3, &bad));
    ck_assert_uint_eq(bad, 4);

    got[1] = NAN;
    ck_assert(!bench_check_floats(got, want, 4, 1, &bad));
    ck_assert_uint_eq(bad, 1);
    got[1] = -200; /* sign wrong: off by 200% */
    ck_assert(!bench_check_floats(got, want, 4, 1, &bad));
    ck_assert_uint_eq(bad, 1);
    ck_assert(bench_check_floats(got, want, 1, 0, NULL));
    ck_assert(bench_check_floats(got, want, 0, 0, &bad));
    ck_assert_uint_eq(bad, 0);
}
END_TEST

/* The rows of tests/data/bench-fixture.csv: two all_reduce sizes and one
 * all_gather on a DGX H100, with text that needs quoting; then two rows of
 * the loopback kernel on one H200 (its algorithm and protocol named). */
#define N_FIXTURE_ROWS 5
static guint
fixture_rows(BenchRow *rows)
{
    static const struct {
        CollOp op;
        uint64_t n_bytes;
        double time_us;
        bool in_place;
    } measured[] = {
        {COLL_OP_ALL_REDUCE, 1048576, 38.52, true},
        {COLL_OP_ALL_REDUCE, 134217728, 652.31, true},
        {COLL_OP_ALL_GATHER, 134217728, 341.7, false},
    };
    for (guint i = 0; i < G_N_ELEMENTS(measured); i++) {
        rows[i] = (BenchRow){
            .system = "NVIDIA DGX H100 (test fixture, \"8-GPU\" board)",
            .nvlsim_system = "dgx-h100",
            .gpu = "NVIDIA H100 80GB HBM3",
            .generation = "Hopper",
            .nvlink_gen = "NVLink4 + NVSwitch gen3",
            .n_gpus = 8,
            .n_nodes = 1,
            .collective = coll_op_name(measured[i].op),
            .dtype = "float",
            .n_bytes = measured[i].n_bytes,
            .time_us = measured[i].time_us,
            .algbw_bytes_per_s = bench_algbw_bytes_per_s(measured[i].n_bytes, measured[i].time_us),
            .busbw_bytes_per_s = bench_busbw_bytes_per_s(measured[i].op, 8, measured[i].n_bytes,
                                                         measured[i].time_us),
            .in_place = measured[i].in_place,
            .nccl_version = "2.21.5",
            .bench_version = "0.1",
            .date = "2025-01-31",
            .driver_version = "550.54.15",
            .cuda_version = "12.4",
            .note = "written by tests/cuda/test-bench-host, not measured",
        };
    }
    static const struct {
        CollOp op;
        uint32_t n_ranks;
        uint64_t n_bytes;
        double time_us;
    } loopback[] = {
        {COLL_OP_ALL_REDUCE, 8, 1048576, 160.0},
        {COLL_OP_ALL_GATHER, 4, 4194304, 250.0},
    };
    guint n = G_N_ELEMENTS(measured);
    for (guint i = 0; i < G_N_ELEMENTS(loopback); i++, n++) {
        rows[n] = (BenchRow){
            .system = "1 x NVIDIA H200",
            .nvlsim_system = "loopback-h200",
            .gpu = "NVIDIA H200",
            .n_gpus = loopback[i].n_ranks,
            .n_nodes = 1,
            .collective = coll_op_name(loopback[i].op),
            .algorithm = "Ring",
            .protocol = "Simple",
            .dtype = "float",
            .n_bytes = loopback[i].n_bytes,
            .time_us = loopback[i].time_us,
            .algbw_bytes_per_s = bench_algbw_bytes_per_s(loopback[i].n_bytes, loopback[i].time_us),
            .busbw_bytes_per_s = bench_busbw_bytes_per_s(loopback[i].op, loopback[i].n_ranks,
                                                         loopback[i].n_bytes, loopback[i].time_us),
            .in_place = true,
            .bench_version = "0.1",
            .date = "2026-11-30",
            .driver_version = "580.65.06",
            .cuda_version = "13.0",
            .note = "loopback, written by tests/cuda/test-bench-host, not measured",
        };
    }
    g_assert(n == N_FIXTURE_ROWS);
    return n;
}

static char *
write_to_string(const BenchRow *rows, guint n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    g_autoptr(GError) error = NULL;
    ck_assert_msg(bench_csv_write(f, rows, n, &error), "%s", error ? error->message : "");
    fclose(f);
    return text;
}

START_TEST(csv_header_is_collectives_csv)
{
    /* tests/data/validate-fixture.csv holds rows of data/measurements/collectives.csv;
     * both end their lines in CRLF, bench_csv_write in LF (the reader takes
     * either). */
    g_autofree char *path = srcdir_file("tests/data/validate-fixture.csv");
    g_autofree char *reference = NULL;
    ck_assert_msg(g_file_get_contents(path, &reference, NULL, NULL), "%s: unreadable", path);
    reference[strcspn(reference, "\r\n")] = '\0';
    ck_assert_str_eq(bench_csv_header(), reference);

    g_autofree char *empty = write_to_string(NULL, 0);
    g_autofree char *want = g_strconcat(reference, "\n", NULL);
    ck_assert_str_eq(empty, want);
}
END_TEST

START_TEST(csv_fields)
{
    BenchRow rows[N_FIXTURE_ROWS];
    fixture_rows(rows);
    rows[0].driver_version = NULL;
    rows[0].note = "a \"quoted\", note";
    g_autofree char *text = write_to_string(rows, 1);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    ck_assert_uint_eq(g_strv_length(lines), 3); /* header, row, "" after the last newline */
    ck_assert_str_eq(lines[1], "\"NVIDIA DGX H100 (test fixture, \"\"8-GPU\"\" board)\",dgx-h100,"
                               "NVIDIA H100 80GB HBM3,Hopper,NVLink4 + NVSwitch gen3,8,1,"
                               "all_reduce,,,float,1048576,38.520,27.222,47.638,1,2.21.5,"
                               "\"nvlsim-bench 0.1 on NVIDIA H100 80GB HBM3, 2025-01-31\","
                               "\"CUDA 12.4; a \"\"quoted\"\", note\",nccl-tests,threads,0");
}
END_TEST

START_TEST(csv_fixture_byte_for_byte)
{
    BenchRow rows[N_FIXTURE_ROWS];
    guint n = fixture_rows(rows);
    g_autoptr(GError) error = NULL;
    g_autofree char *tmp = NULL;
    int fd = g_file_open_tmp("bench-fixture-XXXXXX.csv", &tmp, &error);
    ck_assert_msg(fd >= 0, "%s", error ? error->message : "");
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(bench_csv_write(f, rows, n, &error), "%s", error ? error->message : "");
    fclose(f);

    g_autofree char *written = NULL, *committed = NULL;
    g_autofree char *path = srcdir_file("tests/data/bench-fixture.csv");
    ck_assert(g_file_get_contents(tmp, &written, NULL, NULL));
    ck_assert_msg(g_file_get_contents(path, &committed, NULL, NULL), "%s: unreadable", path);
    g_unlink(tmp);
    ck_assert_str_eq(written, committed);
}
END_TEST

START_TEST(csv_write_error)
{
    FILE *f = fopen("/dev/full", "w");
    if (f == NULL)
        return; /* no /dev/full here: nothing to test */
    BenchRow rows[N_FIXTURE_ROWS];
    guint n = fixture_rows(rows);
    g_autoptr(GError) error = NULL;
    ck_assert(!bench_csv_write(f, rows, n, &error));
    ck_assert_ptr_nonnull(error);
    fclose(f);
}
END_TEST

static Suite *
bench_host_suite(void)
{
    Suite *suite = suite_create("cuda-bench-host");
    TCase *args = tcase_create("args");
    tcase_add_test(args, parse_coll_full);
    tcase_add_test(args, parse_defaults_and_units);
    tcase_add_loop_test(args, parse_invalid, 0, G_N_ELEMENTS(invalid));
    tcase_add_test(args, parse_leaves_argv);
    suite_add_tcase(suite, args);
    TCase *sweep = tcase_create("sweep");
    tcase_add_test(sweep, sizes_nccl_tests_sweep);
    tcase_add_test(sweep, bandwidths_and_median);
    suite_add_tcase(suite, sweep);
    TCase *check = tcase_create("check");
    tcase_add_test(check, expected_results);
    tcase_add_test(check, check_tolerance);
    suite_add_tcase(suite, check);
    TCase *csv = tcase_create("csv");
    tcase_add_test(csv, csv_header_is_collectives_csv);
    tcase_add_test(csv, csv_fields);
    tcase_add_test(csv, csv_fixture_byte_for_byte);
    tcase_add_test(csv, csv_write_error);
    suite_add_tcase(suite, csv);
    return suite;
}

int
main(void)
{
    SRunner *runner = srunner_create(bench_host_suite());
    srunner_run_all(runner, CK_NORMAL);
    int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
