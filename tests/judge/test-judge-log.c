/* SPDX-License-Identifier: Apache-2.0 */
/* judge-log: real nccl-tests logs (tests/data/logs/, their sources in its
 * README) parse to the rows written out by hand here; the same log under
 * a launcher's prefixes, as JSON and as a paste without its header (with
 * hints) parses to the same rows; each malformed part is reported with
 * its line and the rest is still read. */
#include <check.h>
#include <glib.h>
#include <math.h>
#include <string.h>

#include "judge/judge-log.h"
#include "judge-suites.h"

static char *
log_text(const char *name)
{
    const char *top = g_getenv("top_srcdir");
    g_autofree char *path = g_build_filename(top ? top : ".", "tests", "data", "logs", name, NULL);
    char *text = NULL;
    ck_assert_msg(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
    return text;
}

static JudgeLog *
read_text(const char *text, const JudgeLogHints *hints)
{
    g_autoptr(GError) error = NULL;
    JudgeLog *log = judge_log_read("test.log", text, strlen(text), hints, &error);
    ck_assert_msg(log != NULL, "%s", error ? error->message : "");
    return log;
}

static const JudgeLogTest *
only_test(const JudgeLog *log)
{
    for (guint i = 0; i < log->problems->len; i++)
        fprintf(stderr, "problem: %s\n", (const char *)log->problems->pdata[i]);
    ck_assert_uint_eq(log->problems->len, 0);
    ck_assert_uint_eq(log->tests->len, 1);
    return log->tests->pdata[0];
}

/* Whether a problem names line and holds word. */
static bool
has_problem(const JudgeLog *log, uint32_t line, const char *word)
{
    g_autofree char *at = g_strdup_printf("test.log:%u: ", line);
    for (guint i = 0; i < log->problems->len; i++) {
        const char *p = log->problems->pdata[i];
        if (g_str_has_prefix(p, at) && strstr(p, word) != NULL)
            return true;
    }
    return false;
}

/* The H200 log's five sizes, out-of-place and in-place, as printed. */
static const struct {
    uint32_t line;
    uint64_t bytes;
    double time[2], algbw[2], busbw[2];
} h200_rows[] = {
    {26, 1073741824, {4396.8, 4382.1}, {244.21, 245.03}, {457.90, 459.43}},
    {27, 2147483648, {8538.8, 8500.0}, {251.50, 252.64}, {471.56, 473.71}},
    {28, 4294967296, {16756, 16759}, {256.32, 256.28}, {480.61, 480.53}},
    {29, 8589934592, {33250, 33228}, {258.34, 258.51}, {484.39, 484.71}},
    {30, 17179869184, {66214, 66226}, {259.46, 259.41}, {486.49, 486.40}},
};

/* Checks t against the H200 log's rows, lines shifted by line_shift (0
 * where the rows keep their lines, as a prefixed copy does). */
static void
check_h200_rows(const JudgeLogTest *t, int line_shift)
{
    ck_assert_int_eq(t->op, COLL_OP_ALL_REDUCE);
    ck_assert_uint_eq(t->n_ranks, 16);
    ck_assert_uint_eq(t->rows->len, G_N_ELEMENTS(h200_rows));
    for (guint i = 0; i < t->rows->len; i++) {
        const JudgeLogRow *row = &g_array_index(t->rows, JudgeLogRow, i);
        ck_assert_uint_eq(row->line, (uint32_t)((int)h200_rows[i].line + line_shift));
        ck_assert_uint_eq(row->bytes, h200_rows[i].bytes);
        ck_assert_str_eq(row->type, "float");
        ck_assert_str_eq(row->redop, "sum");
        ck_assert_int_eq(row->root, -1);
        for (int k = 0; k < 2; k++) {
            ck_assert(row->has[k]);
            ck_assert_double_eq_tol(row->time_us[k], h200_rows[i].time[k], 1e-9);
            ck_assert_double_eq_tol(row->algbw[k], h200_rows[i].algbw[k], 1e-9);
            ck_assert_double_eq_tol(row->busbw[k], h200_rows[i].busbw[k], 1e-9);
        }
    }
}

START_TEST(h200_log_as_printed)
{
    g_autofree char *text = log_text("oci-h200-all-reduce.log");
    g_autoptr(JudgeLog) log = read_text(text, NULL);
    const JudgeLogTest *t = only_test(log);
    check_h200_rows(t, 0);
    ck_assert_uint_eq(t->line, 1); /* the line that ran all_reduce_perf */
    ck_assert_uint_eq(t->n_hosts, 2);
    ck_assert_uint_eq(t->ranks_per_host, 8);
    ck_assert_str_eq(t->device, "NVIDIA H200");
    ck_assert_str_eq(t->nccl_version, "2.27.5");
    ck_assert_str_eq(t->system, "dgx-h200");
    ck_assert_uint_eq(t->n_threads, 1);
    ck_assert_uint_eq(t->n_gpus_per_thread, 1);
    ck_assert(!t->cuda_graph && !t->blocking);
    /* The system came from a rule, and says so. */
    ck_assert_uint_eq(t->stated->len, 1);
    ck_assert_ptr_nonnull(strstr(t->stated->pdata[0], "reference system"));
}
END_TEST

/* The suite's rows: one per group and size, the measured values as
 * printed, on the log's lines. */
START_TEST(h200_log_as_suite_rows)
{
    g_autofree char *text = log_text("oci-h200-all-reduce.log");
    g_autoptr(JudgeLog) log = read_text(text, NULL);
    g_autoptr(SimCsv) csv = judge_log_table(log);
    ck_assert_uint_eq(csv->rows->len, 10);
    int c_sys = sim_csv_column(csv, "nvlsim_system"), c_gpus = sim_csv_column(csv, "num_gpus"),
        c_nodes = sim_csv_column(csv, "nodes"), c_per = sim_csv_column(csv, "gpus_per_node"),
        c_op = sim_csv_column(csv, "collective"), c_bytes = sim_csv_column(csv, "bytes"),
        c_time = sim_csv_column(csv, "time_us"), c_in = sim_csv_column(csv, "in_place"),
        c_ver = sim_csv_column(csv, "nccl_version"), c_mode = sim_csv_column(csv, "launch_mode"),
        c_graph = sim_csv_column(csv, "cuda_graph"), c_harness = sim_csv_column(csv, "harness");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_sys), "dgx-h200");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_gpus), "16");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_nodes), "2");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_per), "8");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_op), "all_reduce");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_bytes), "1073741824");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_time), "4396.8");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_in), "0");
    ck_assert_str_eq(sim_csv_field(csv, 1, c_time), "4382.1");
    ck_assert_str_eq(sim_csv_field(csv, 1, c_in), "1");
    ck_assert_str_eq(sim_csv_field(csv, 9, c_time), "66226");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_ver), "2.27.5");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_mode), "mpi");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_graph), "0");
    ck_assert_str_eq(sim_csv_field(csv, 0, c_harness), "nccl-tests");
    ck_assert_uint_eq(g_array_index(csv->lines, uint32_t, 0), 26);
    ck_assert_uint_eq(g_array_index(csv->lines, uint32_t, 9), 30);
}
END_TEST

/* Each line with a launcher's prefix reads as the plain log. */
static char *
prefixed(const char *text, const char *prefix)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    GString *out = g_string_new(NULL);
    for (char **l = lines; *l != NULL; l++)
        if (**l != '\0' || l[1] != NULL)
            g_string_append_printf(out, "%s%s\n", prefix, *l);
    return g_string_free(out, FALSE);
}

START_TEST(launcher_prefixes)
{
    static const char *const prefixes[] = {"0: ", "[1,0]<stdout>:", "[0] "};
    g_autofree char *text = log_text("oci-h200-all-reduce.log");
    for (size_t i = 0; i < G_N_ELEMENTS(prefixes); i++) {
        g_autofree char *p = prefixed(text, prefixes[i]);
        g_autoptr(JudgeLog) log = read_text(p, NULL);
        const JudgeLogTest *t = only_test(log);
        check_h200_rows(t, 0);
        ck_assert_uint_eq(t->n_hosts, 2);
        ck_assert_str_eq(t->device, "NVIDIA H200");
    }
}
END_TEST

/* The A100 log names its test on the command line only; its 40GB GPUs
 * run on dgx-a100's 80GB ones, stated. */
START_TEST(a100_log_command_line)
{
    g_autofree char *text = log_text("oci-a100-all-reduce.log");
    g_autoptr(JudgeLog) log = read_text(text, NULL);
    const JudgeLogTest *t = only_test(log);
    ck_assert_int_eq(t->op, COLL_OP_ALL_REDUCE);
    ck_assert_uint_eq(t->n_ranks, 16);
    ck_assert_uint_eq(t->n_hosts, 2);
    ck_assert_str_eq(t->system, "dgx-a100");
    ck_assert_ptr_null(t->nccl_version);
    ck_assert_uint_eq(t->rows->len, 1);
    const JudgeLogRow *row = &g_array_index(t->rows, JudgeLogRow, 0);
    ck_assert_uint_eq(row->line, 25);
    ck_assert_uint_eq(row->bytes, UINT64_C(10737418240));
    ck_assert_double_eq_tol(row->time_us[0], 90330, 1e-9);
    ck_assert_double_eq_tol(row->busbw[1], 218.96, 1e-9);
    ck_assert_uint_eq(t->stated->len, 2);
    ck_assert_ptr_nonnull(strstr(t->stated->pdata[1], "same SM 8.0 chip"));
}
END_TEST

/* A paste with one rank line: the ranks up to it, the hosts from
 * --nodes, the collective from the footer; 33 sizes. */
START_TEST(gb200_paste)
{
    g_autofree char *text = log_text("oci-gb200-all-reduce-paste.log");
    g_autoptr(JudgeLog) bare = read_text(text, NULL);
    const JudgeLogTest *t = only_test(bare);
    ck_assert_uint_eq(t->n_ranks, 128);
    ck_assert_uint_eq(t->n_hosts, 0);
    ck_assert_str_eq(t->system, "gb200-nvl72");
    ck_assert_str_eq(t->nccl_version, "2.29.2");
    ck_assert_uint_eq(t->rows->len, 33);
    JudgeLogHints hints = {.n_nodes = 32};
    g_autoptr(JudgeLog) log = read_text(text, &hints);
    t = only_test(log);
    ck_assert_uint_eq(t->n_hosts, 32);
    const JudgeLogRow *last = &g_array_index(t->rows, JudgeLogRow, 32);
    ck_assert_uint_eq(last->line, 39);
    ck_assert_uint_eq(last->bytes, UINT64_C(34359738368));
    ck_assert_double_eq_tol(last->time_us[0], 99744.6, 1e-9);
}
END_TEST

/* The table alone: refused without hints, read with them. */
START_TEST(headerless_paste)
{
    g_autofree char *text = log_text("oci-h200-all-reduce.log");
    const char *table =
        strstr(text, "#                                                              out");
    ck_assert_ptr_nonnull(table);
    g_autoptr(JudgeLog) bare = read_text(table, NULL);
    ck_assert_uint_eq(bare->tests->len, 0);
    ck_assert(has_problem(bare, 2, "give --collective"));
    JudgeLogHints hints = {
        .system = "dgx-h200", .n_gpus = 16, .n_nodes = 2, .collective = "all_reduce_perf"};
    g_autoptr(JudgeLog) log = read_text(table, &hints);
    const JudgeLogTest *t = only_test(log);
    check_h200_rows(t, 4 - 26);
    ck_assert_uint_eq(t->n_hosts, 2);
    ck_assert_ptr_null(t->device);
    /* Collective, ranks, hosts, the GPU and the harness were stated. */
    ck_assert_uint_eq(t->stated->len, 5);
}
END_TEST

/* Hints the header contradicts are problems; the test is left out. */
START_TEST(contradicting_hints)
{
    g_autofree char *text = log_text("oci-h200-all-reduce.log");
    JudgeLogHints gpus = {.n_gpus = 8};
    g_autoptr(JudgeLog) a = read_text(text, &gpus);
    ck_assert_uint_eq(a->tests->len, 0);
    ck_assert(has_problem(a, 5, "give 16 ranks; --gpus says 8"));
    JudgeLogHints nodes = {.n_nodes = 4};
    g_autoptr(JudgeLog) b = read_text(text, &nodes);
    ck_assert(has_problem(b, 5, "name 2 hosts; --nodes says 4"));
    JudgeLogHints system = {.system = "dgx-a100"};
    g_autoptr(JudgeLog) c = read_text(text, &system);
    ck_assert(has_problem(c, 24, "'NVIDIA H200' (H200 SXM); dgx-a100 has A100 SXM4 80GB"));
    JudgeLogHints op = {.collective = "all_gather"};
    g_autoptr(JudgeLog) d = read_text(text, &op);
    ck_assert_uint_eq(d->tests->len, 0);
    ck_assert(has_problem(d, 24,
                          "is all_reduce (the command line (line 1)); --collective says "
                          "all_gather"));
    /* Same GPU chip, another system: replayed, stated. */
    JudgeLogHints h100 = {.system = "dgx-h100"};
    g_autoptr(JudgeLog) e = read_text(text, &h100);
    const JudgeLogTest *t = only_test(e);
    ck_assert_str_eq(t->system, "dgx-h100");
    ck_assert_ptr_nonnull(strstr(t->stated->pdata[0], "same SM 9.0 chip"));
}
END_TEST

/* NCCL's "set by environment" lines (NCCL_DEBUG=INFO) give the test the
 * variables nvlsim models, once each; --nccl-env adds what the log does
 * not print, and one the log prints otherwise is a contradiction. The
 * rows carry them in the suite's nccl_env column. */
START_TEST(nccl_environment_lines)
{
    g_autofree char *text = log_text("oci-gb200-all-reduce-paste.log");
    g_autofree char *logged = g_strconcat(
        "node1:137:137 [0] NCCL INFO NCCL_BUFFSIZE set by environment to 16777216.\n"
        "node1:138:138 [1] NCCL INFO NCCL_BUFFSIZE set by environment to 16777216.\n"
        "node1:137:137 [0] NCCL INFO NCCL_IB_HCA set by environment to =mlx5_0,mlx5_1\n",
        text, NULL);
    JudgeLogHints nodes = {.n_nodes = 32};
    g_autoptr(JudgeLog) a = read_text(logged, &nodes);
    const JudgeLogTest *t = only_test(a);
    ck_assert_str_eq(t->nccl_env, "NCCL_BUFFSIZE=16777216");
    JudgeLogHints off = {.n_nodes = 32, .nccl_env = "NCCL_NVLS_ENABLE=0 NCCL_BUFFSIZE=16777216"};
    g_autoptr(JudgeLog) b = read_text(logged, &off);
    t = only_test(b);
    ck_assert_str_eq(t->nccl_env, "NCCL_BUFFSIZE=16777216 NCCL_NVLS_ENABLE=0");
    g_autoptr(SimCsv) rows = judge_log_table(b);
    int column = sim_csv_column(rows, "nccl_env");
    ck_assert_int_ge(column, 0);
    ck_assert_str_eq(sim_csv_field(rows, 0, column), "NCCL_BUFFSIZE=16777216 NCCL_NVLS_ENABLE=0");
    JudgeLogHints other = {.n_nodes = 32, .nccl_env = "NCCL_BUFFSIZE=8388608"};
    g_autoptr(JudgeLog) c = read_text(logged, &other);
    ck_assert_uint_eq(c->tests->len, 0);
    ck_assert(has_problem(c, 1,
                          "--nccl-env NCCL_BUFFSIZE=8388608: the log's NCCL has "
                          "NCCL_BUFFSIZE=16777216"));
}
END_TEST

/* Cut in a row: that row and the missing footer are problems; the rows
 * before are read. */
START_TEST(truncated_log)
{
    g_autofree char *text = log_text("oci-h200-all-reduce.log");
    char *cut = strstr(text, "8589934592    2147483648     float     sum      -1    33250  258.34");
    ck_assert_ptr_nonnull(cut);
    cut[strlen("8589934592    2147483648     float     sum      -1    33250  258.34")] = '\0';
    g_autoptr(JudgeLog) log = read_text(text, NULL);
    ck_assert(has_problem(log, 29, "7 fields: expected 13"));
    ck_assert(has_problem(log, 29, "ends without nccl-tests' footer"));
    ck_assert_uint_eq(log->tests->len, 1);
    const JudgeLogTest *t = log->tests->pdata[0];
    ck_assert_uint_eq(t->rows->len, 3);
}
END_TEST

/* A row whose algbw is not size / time, and one whose busbw is not algbw
 * times the factor: each a problem on its line; the other rows stay. */
START_TEST(columns_that_do_not_add_up)
{
    g_autofree char *text = log_text("oci-h200-all-reduce.log");
    char *algbw = strstr(text, "4396.8  244.21");
    memcpy(algbw, "4396.8  344.21", strlen("4396.8  344.21"));
    char *busbw = strstr(text, "251.50  471.56");
    memcpy(busbw, "251.50  271.56", strlen("251.50  271.56"));
    g_autoptr(JudgeLog) log = read_text(text, NULL);
    ck_assert(has_problem(log, 26, "out-of-place algbw 344.21 GB/s does not add up"));
    ck_assert(has_problem(log, 27, "out-of-place busbw 271.56 GB/s does not add up"));
    ck_assert_uint_eq(log->problems->len, 2);
    const JudgeLogTest *t = log->tests->pdata[0];
    ck_assert_uint_eq(t->rows->len, 3);
}
END_TEST

START_TEST(two_gpu_models)
{
    g_autofree char *text = log_text("oci-h200-all-reduce.log");
    char *rank9 = strstr(text, "device  1 [0x2d] NVIDIA H200\n#  Rank 10");
    ck_assert_ptr_nonnull(rank9);
    g_autofree char *edited =
        g_strdup_printf("%.*sdevice  1 [0x2d] NVIDIA H100 80GB HBM3%s", (int)(rank9 - text), text,
                        rank9 + strlen("device  1 [0x2d] NVIDIA H200"));
    g_autoptr(JudgeLog) log = read_text(edited, NULL);
    ck_assert_uint_eq(log->tests->len, 0);
    ck_assert(has_problem(log, 14, "two GPU models in one test: 'NVIDIA H200' (line 5)"));
}
END_TEST

/* Two logs in one: two tests, each with its own header. */
START_TEST(several_tests)
{
    g_autofree char *h200 = log_text("oci-h200-all-reduce.log");
    g_autofree char *a100 = log_text("oci-a100-all-reduce.log");
    g_autofree char *both = g_strconcat(h200, "some shell output\n", a100, NULL);
    g_autoptr(JudgeLog) log = read_text(both, NULL);
    ck_assert_uint_eq(log->problems->len, 0);
    ck_assert_uint_eq(log->tests->len, 2);
    const JudgeLogTest *a = log->tests->pdata[0], *b = log->tests->pdata[1];
    check_h200_rows(a, 0);
    ck_assert_str_eq(b->system, "dgx-a100");
    ck_assert_uint_eq(b->line, 35);
    ck_assert_uint_eq(g_array_index(b->rows, JudgeLogRow, 0).line, 35 + 24);
}
END_TEST

/* nccl-tests -J: the H200 run's first two sizes as its JSON writer lays
 * them out (src/util.cu), reading as the text does. */
START_TEST(json_output)
{
    GString *json = g_string_new(
        "{\"version\":1,\"start_time\":\"2025-11-20 10:00:00\",\"args\":"
        "[\"/opt/oci-hpc/nccl-test/build/all_reduce_perf\",\"-b\",\"1G\",\"-e\",\"2G\",\"-J\","
        "\"out.json\"],\"env\":[],\"nccl_version\":22705,\"config\":{\"nthreads\":1,"
        "\"ngpus\":1,\"minimum_bytes\":1073741824,\"maximum_bytes\":2147483648,"
        "\"step_factor\":2,\"warmup_iters\":5,\"iterations\":50,\"aggregated_iterations\":1,"
        "\"validation\":1,\"graph\":0,\"blocking_collectives\":\"false\","
        "\"per_iter_timing\":\"false\",\"per_iter_skip\":0,\"parallel_init\":\"false\","
        "\"devices\":[");
    for (int r = 0; r < 16; r++)
        g_string_append_printf(json,
                               "%s{\"rank\":%d,\"group\":0,\"pid\":%d,\"hostname\":\"%s\","
                               "\"device\":%d,\"device_hex\":\"0x0f\",\"device_info\":"
                               "\"NVIDIA H200\"}",
                               r ? "," : "", r, 1000 + r, r < 8 ? "GPU-6550" : "GPU-3841", r % 8);
    g_string_append(json,
                    "]},\"results\":[{\"size\":1073741824,\"count\":268435456,\"type\":\"float\","
                    "\"redop\":\"sum\",\"root\":\"    -1\",\"out_of_place\":{\"time\":4396.800000,"
                    "\"alg_bw\":244.210000,\"bus_bw\":457.900000,\"nwrong\":0.000000},"
                    "\"in_place\":{\"time\":4382.100000,\"alg_bw\":245.030000,\"bus_bw\":"
                    "459.430000,\"nwrong\":0.000000},\"actual_iterations\":50,"
                    "\"experiment_name\":\"\"},{\"size\":2147483648,\"count\":536870912,"
                    "\"type\":\"float\",\"redop\":\"sum\",\"root\":\"    -1\",\"out_of_place\":"
                    "{\"time\":8538.800000,\"alg_bw\":251.500000,\"bus_bw\":471.560000,"
                    "\"nwrong\":0.000000},\"in_place\":{\"time\":8500.000000,\"alg_bw\":"
                    "252.640000,\"bus_bw\":473.710000,\"nwrong\":0.000000},"
                    "\"actual_iterations\":50,\"experiment_name\":\"\"}],\"out_of_bounds\":"
                    "{\"count\":0,\"okay\":\"true\"},\"average_bus_bandwidth\":{\"bandwidth\":"
                    "465.65,\"okay\":\"unchecked\"},\"errors\":[],\"end_time\":\"x\"}");
    ck_assert(judge_log_detect(json->str, json->len));
    g_autoptr(JudgeLog) log = read_text(json->str, NULL);
    const JudgeLogTest *t = only_test(log);
    ck_assert_int_eq(t->op, COLL_OP_ALL_REDUCE);
    ck_assert_uint_eq(t->n_ranks, 16);
    ck_assert_uint_eq(t->n_hosts, 2);
    ck_assert_str_eq(t->nccl_version, "2.27.5");
    ck_assert_str_eq(t->system, "dgx-h200");
    ck_assert_uint_eq(t->rows->len, 2);
    for (guint i = 0; i < 2; i++) {
        const JudgeLogRow *row = &g_array_index(t->rows, JudgeLogRow, i);
        ck_assert_uint_eq(row->bytes, h200_rows[i].bytes);
        for (int k = 0; k < 2; k++)
            ck_assert_double_eq_tol(row->time_us[k], h200_rows[i].time[k], 1e-9);
    }
    g_string_free(json, TRUE);
}
END_TEST

START_TEST(not_a_log)
{
    static const char *const csv = "system,bytes\nx,1\n";
    ck_assert(!judge_log_detect(csv, strlen(csv)));
    g_autoptr(GError) error = NULL;
    ck_assert_ptr_null(judge_log_read("x.log", csv, strlen(csv), NULL, &error));
    ck_assert_ptr_nonnull(strstr(error->message, "x.log: no nccl-tests table"));
    g_clear_error(&error);
    static const char *const json = "{\"a\": 1}";
    ck_assert_ptr_null(judge_log_read("x.json", json, strlen(json), NULL, &error));
    ck_assert_ptr_nonnull(strstr(error->message, "not nccl-tests' JSON output"));
    CollOp op;
    ck_assert(judge_log_collective("/opt/build/all_gather_perf_mpi", &op));
    ck_assert_int_eq(op, COLL_OP_ALL_GATHER);
    ck_assert(!judge_log_collective("hypercube_perf", &op));
}
END_TEST

Suite *
judge_log_suite(void)
{
    Suite *s = suite_create("judge-log");
    TCase *tc = tcase_create("logs");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, h200_log_as_printed);
    tcase_add_test(tc, h200_log_as_suite_rows);
    tcase_add_test(tc, launcher_prefixes);
    tcase_add_test(tc, a100_log_command_line);
    tcase_add_test(tc, gb200_paste);
    tcase_add_test(tc, headerless_paste);
    tcase_add_test(tc, contradicting_hints);
    tcase_add_test(tc, nccl_environment_lines);
    tcase_add_test(tc, truncated_log);
    tcase_add_test(tc, columns_that_do_not_add_up);
    tcase_add_test(tc, two_gpu_models);
    tcase_add_test(tc, several_tests);
    tcase_add_test(tc, json_output);
    tcase_add_test(tc, not_a_log);
    suite_add_tcase(s, tc);
    return s;
}
