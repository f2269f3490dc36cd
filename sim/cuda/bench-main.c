/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim-bench: measures real GPUs in the terms nvlsim simulates them.
 *   nvlsim-bench coll --op OP [-b MIN] [-e MAX] [-f F] [--gpus N] [--check] [--csv FILE]
 *   nvlsim-bench gpu [--csv FILE]
 *   nvlsim-bench interfere [--csv FILE]
 *   nvlsim-bench loopback --ranks K[,K...] [--op all_reduce|all_gather] [-b MIN] [-e MAX]
 *                         [-f F] [--csv FILE]
 * The command line, sizes, CSV rows and reference results come from
 * bench-host.h; the measurements from the .cu files behind bench-device.h.
 * The table goes to standard output (standard error when the CSV does). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core-output.h"
#include "cuda/bench-device.h"
#include "cuda/bench-host.h"

#define ERR_LEN 512

/* The strings every row of one run points to. */
typedef struct BenchMeta {
    char system[320], driver[32], cuda[32], nccl[32], date[16];
} BenchMeta;

static void
bench_meta_init(BenchMeta *meta, const BenchDeviceInfo *info)
{
    snprintf(meta->system, sizeof meta->system, "%d x %s", info->n_gpus, info->gpu_name);
    bench_version_string(info->driver_version, 0, meta->driver, sizeof meta->driver);
    bench_version_string(info->runtime_version, 0, meta->cuda, sizeof meta->cuda);
    meta->nccl[0] = '\0';
    if (info->nccl_version)
        bench_version_string(info->nccl_version, 1, meta->nccl, sizeof meta->nccl);
    g_autoptr(GDateTime) now = g_date_time_new_now_utc();
    g_autofree char *date = g_date_time_format(now, "%Y-%m-%d");
    snprintf(meta->date, sizeof meta->date, "%s", date);
}

static BenchRow
bench_row(const BenchArgs *args, const BenchMeta *meta, const char *gpu, CollOp op,
          uint32_t n_ranks, uint64_t n_bytes, double time_us, bool in_place)
{
    BenchRow row = {0};
    row.system = meta->system;
    row.nvlsim_system = args->system;
    row.gpu = gpu;
    row.n_gpus = n_ranks;
    row.n_nodes = 1;
    row.collective = coll_op_name(op);
    row.dtype = "float";
    row.n_bytes = n_bytes;
    row.time_us = time_us;
    row.algbw_bytes_per_s = bench_algbw_bytes_per_s(n_bytes, time_us);
    row.busbw_bytes_per_s = bench_busbw_bytes_per_s(op, n_ranks, n_bytes, time_us);
    row.in_place = in_place;
    row.nccl_version = meta->nccl[0] ? meta->nccl : NULL;
    row.bench_version = PACKAGE_VERSION;
    row.date = meta->date;
    row.driver_version = meta->driver;
    row.cuda_version = meta->cuda;
    return row;
}

/* Number of elements of got[0 .. n) that differ from want (exact: every
 * value of the pattern and its sums is a small integer). */
static uint64_t
bench_count_wrong(const float *got, const float *want, size_t n)
{
    size_t first = n;
    if (bench_check_floats(got, want, n, 0.0, &first))
        return 0;
    uint64_t wrong = 0;
    for (size_t i = first; i < n; i++)
        wrong += !(got[i] == want[i]);
    return wrong;
}

static bool
bench_dev_op(CollOp op, BenchDevOp *out)
{
    switch (op) {
    case COLL_OP_ALL_REDUCE:
        *out = BENCH_DEV_ALL_REDUCE;
        return true;
    case COLL_OP_ALL_GATHER:
        *out = BENCH_DEV_ALL_GATHER;
        return true;
    case COLL_OP_REDUCE_SCATTER:
        *out = BENCH_DEV_REDUCE_SCATTER;
        return true;
    case COLL_OP_BROADCAST:
        *out = BENCH_DEV_BROADCAST;
        return true;
    case COLL_OP_REDUCE:
        *out = BENCH_DEV_REDUCE;
        return true;
    default:
        return false;
    }
}

/* What rank should hold after op over n ranks of nccl-tests' size. */
static void
bench_expected(CollOp op, uint32_t n, uint32_t rank, size_t count, float *want)
{
    switch (op) {
    case COLL_OP_ALL_GATHER:
        bench_expected_allgather(want, n, count / n);
        break;
    case COLL_OP_REDUCE_SCATTER:
        bench_expected_reduce_scatter(want, n, rank, count / n);
        break;
    case COLL_OP_BROADCAST:
        bench_input_fill(want, 0, count);
        break;
    default:
        bench_expected_allreduce(want, n, count);
        break;
    }
}

/* Runs op once on fresh inputs and counts wrong elements over the ranks
 * that hold a result (reduce: the root only). */
static int
bench_coll_check(BenchColl *coll, CollOp op, BenchDevOp dop, uint64_t n_bytes, bool in_place,
                 uint64_t *wrong, char *err)
{
    uint32_t n = (uint32_t)bench_coll_n_ranks(coll);
    size_t count = n_bytes / sizeof(float);
    size_t recv = op == COLL_OP_REDUCE_SCATTER ? count / n : count;
    float *got = g_malloc_n(recv ? recv : 1, sizeof(float));
    float *want = g_malloc_n(recv ? recv : 1, sizeof(float));
    int rc = 0;
    *wrong = 0;
    for (uint32_t r = 0; r < n && rc == 0; r++) {
        rc = bench_coll_result(coll, dop, n_bytes, in_place, (int)r, got, err, ERR_LEN);
        if (rc == 0 && (op != COLL_OP_REDUCE || r == 0)) {
            if (r == 0 || op == COLL_OP_REDUCE_SCATTER) /* the same for every rank otherwise */
                bench_expected(op, n, r, count, want);
            *wrong += bench_count_wrong(got, want, recv);
        }
    }
    g_free(got);
    g_free(want);
    return rc;
}

static void
bench_coll_header(FILE *t, CollOp op, uint32_t n, const BenchDeviceInfo *info,
                  const BenchMeta *meta)
{
    fprintf(t, "# nvlsim-bench coll %s: %u x %s, driver %s, CUDA %s, NCCL %s\n", coll_op_name(op),
            n, info->gpu_name, meta->driver, meta->cuda, meta->nccl);
    fprintf(t, "#%62s%35s\n", "out-of-place", "in-place");
    fprintf(t, "#%11s %13s %9s %7s %7s %8s %7s %7s %6s %8s %7s %7s %6s\n", "size", "count", "type",
            "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
            "#wrong");
    fprintf(t, "#%11s %13s %49s %7s %7s %15s %7s %7s\n", "(B)", "(elements)", "(us)", "(GB/s)",
            "(GB/s)", "(us)", "(GB/s)", "(GB/s)");
}

static void
bench_coll_line_half(FILE *t, const BenchArgs *args, const BenchRow *row, uint64_t wrong)
{
    fprintf(t, " %8.2f %7.2f %7.2f", row->time_us, row->algbw_bytes_per_s / 1e9,
            row->busbw_bytes_per_s / 1e9);
    if (args->check)
        fprintf(t, " %6" G_GUINT64_FORMAT, wrong);
    else
        fprintf(t, " %6s", "N/A");
}

/* One size, out of place then in place: two rows and a table line. */
static int
bench_coll_size(BenchColl *coll, const BenchArgs *args, const BenchMeta *meta, const char *gpu,
                BenchDevOp dop, uint64_t n_bytes, GArray *rows, FILE *table, char *err)
{
    uint32_t n = (uint32_t)bench_coll_n_ranks(coll);
    CollOp op = args->op;
    bool reduces = op != COLL_OP_ALL_GATHER && op != COLL_OP_BROADCAST;
    bool rooted = op == COLL_OP_BROADCAST || op == COLL_OP_REDUCE;
    BenchRow half[2];
    uint64_t wrong[2] = {0, 0};
    for (int in_place = 0; in_place < 2; in_place++) {
        double us = 0;
        if (bench_coll_time(coll, dop, n_bytes, in_place, args->n_warmup, args->n_iters, &us, err,
                            ERR_LEN) < 0)
            return -1;
        if (args->check &&
            bench_coll_check(coll, op, dop, n_bytes, in_place, &wrong[in_place], err) < 0)
            return -1;
        half[in_place] = bench_row(args, meta, gpu, op, n, n_bytes, us, in_place);
        g_array_append_val(rows, half[in_place]);
    }
    fprintf(table, " %11" G_GUINT64_FORMAT " %13" G_GUINT64_FORMAT " %9s %7s %7d", n_bytes,
            n_bytes / sizeof(float), "float", reduces ? "sum" : "none", rooted ? 0 : -1);
    bench_coll_line_half(table, args, &half[0], wrong[0]);
    bench_coll_line_half(table, args, &half[1], wrong[1]);
    fprintf(table, "\n");
    fflush(table);
    return 0;
}

/* Writes rows (even after a failure: what was measured is kept). */
static int
bench_write_rows(FILE *csv, GArray *rows)
{
    g_autoptr(GError) error = NULL;
    if (!bench_csv_write(csv, (const BenchRow *)(void *)rows->data, rows->len, &error)) {
        fprintf(stderr, "nvlsim-bench: %s\n", error->message);
        return 1;
    }
    return 0;
}

static int
bench_main_coll(const BenchArgs *args, FILE *csv, FILE *table)
{
    char err[ERR_LEN] = "";
    BenchDevOp dop;
    if (!bench_dev_op(args->op, &dop) || strcmp(args->dtype ? args->dtype : "float", "float")) {
        fprintf(stderr, "nvlsim-bench: coll measures all_reduce, all_gather, reduce_scatter, "
                        "broadcast and reduce on float only\n");
        return 1;
    }
    BenchColl *coll = bench_coll_open((int)args->n_gpus, args->max_bytes, err, ERR_LEN);
    if (!coll) {
        fprintf(stderr, "nvlsim-bench: %s\n", err);
        return 1;
    }
    BenchDeviceInfo info;
    BenchMeta meta;
    bench_coll_info(coll, &info);
    bench_meta_init(&meta, &info);
    uint32_t n = (uint32_t)bench_coll_n_ranks(coll);
    g_autoptr(GArray) sizes = bench_sizes(args->min_bytes, args->max_bytes, args->step_factor,
                                          bench_size_unit_bytes(args->op, n, sizeof(float)));
    g_autoptr(GArray) rows = g_array_new(FALSE, TRUE, sizeof(BenchRow));
    bench_coll_header(table, args->op, n, &info, &meta);
    int status = 0;
    for (guint i = 0; i < sizes->len && status == 0; i++)
        if (bench_coll_size(coll, args, &meta, info.gpu_name, dop,
                            g_array_index(sizes, uint64_t, i), rows, table, err) < 0) {
            fprintf(stderr, "nvlsim-bench: %s\n", err);
            status = 1;
        }
    bench_coll_close(coll);
    return bench_write_rows(csv, rows) || status;
}

/* Loopback: each size timed, then checked against the host reference. */
static int
bench_loopback_size(BenchLoopback *lb, const BenchArgs *args, uint32_t k, uint64_t n_bytes,
                    double *us, uint64_t *wrong, char *err)
{
    BenchDevOp dop = args->op == COLL_OP_ALL_GATHER ? BENCH_DEV_ALL_GATHER : BENCH_DEV_ALL_REDUCE;
    if (bench_loopback_time(lb, dop, n_bytes, args->n_warmup, args->n_iters, us, err, ERR_LEN) < 0)
        return -1;
    size_t count = n_bytes / sizeof(float);
    float *got = g_malloc_n(count ? count : 1, sizeof(float));
    float *want = g_malloc_n(count ? count : 1, sizeof(float));
    if (dop == BENCH_DEV_ALL_GATHER)
        bench_expected_allgather(want, k, count / k);
    else
        bench_expected_allreduce(want, k, count);
    int rc = 0;
    *wrong = 0;
    for (uint32_t r = 0; r < k && rc == 0; r++) {
        rc = bench_loopback_result(lb, dop, n_bytes, (int)r, got, err, ERR_LEN);
        if (rc == 0)
            *wrong += bench_count_wrong(got, want, count);
    }
    g_free(got);
    g_free(want);
    return rc;
}

/* One rank count's sweep; rows appended. Returns 0, or 1 after printing
 * the error (the rows measured so far stay). */
static int
bench_loopback_ranks(const BenchArgs *args, uint32_t k, const char *system_id, BenchMeta *meta,
                     GArray *rows, char *note, FILE *table)
{
    char err[ERR_LEN] = "";
    BenchLoopback *lb = bench_loopback_open((int)k, args->max_bytes, err, ERR_LEN);
    if (!lb) {
        fprintf(stderr, "nvlsim-bench: %s\n", err);
        return 1;
    }
    BenchDeviceInfo info;
    bench_loopback_info(lb, &info);
    bench_meta_init(meta, &info);
    g_autofree char *derived = bench_loopback_system_id(info.gpu_name);
    snprintf(note, 96, "loopback: %u virtual ranks on one GPU, ring Simple-style kernel", k);
    g_autoptr(GArray) sizes = bench_sizes(args->min_bytes, args->max_bytes, args->step_factor,
                                          bench_loopback_unit_bytes(args->op, k));
    fprintf(table, "# nvlsim-bench loopback: ring %s, %u ranks on %s\n", coll_op_name(args->op), k,
            info.gpu_name);
    fprintf(table, "#%11s %10s %8s %8s %6s\n", "size (B)", "time (us)", "algbw", "busbw", "#wrong");
    int status = 0;
    for (guint i = 0; i < sizes->len && status == 0; i++) {
        uint64_t n_bytes = g_array_index(sizes, uint64_t, i), wrong = 0;
        double us = 0;
        if (bench_loopback_size(lb, args, k, n_bytes, &us, &wrong, err) < 0) {
            fprintf(stderr, "nvlsim-bench: %s\n", err);
            status = 1;
            break;
        }
        BenchRow row = bench_row(args, meta, info.gpu_name, args->op, k, n_bytes, us, true);
        row.nvlsim_system = system_id ? system_id : g_intern_string(derived);
        row.algorithm = "Ring";
        row.protocol = "Simple";
        row.note = g_intern_string(note);
        g_array_append_val(rows, row);
        fprintf(table, " %11" G_GUINT64_FORMAT " %10.2f %8.2f %8.2f %6" G_GUINT64_FORMAT "\n",
                n_bytes, us, row.algbw_bytes_per_s / 1e9, row.busbw_bytes_per_s / 1e9, wrong);
        fflush(table);
        status = wrong != 0;
    }
    bench_loopback_close(lb);
    return status;
}

static int
bench_main_loopback(const BenchArgs *args, FILE *csv, FILE *table)
{
    BenchMeta meta;
    char note[96];
    g_autoptr(GArray) rows = g_array_new(FALSE, TRUE, sizeof(BenchRow));
    int status = 0;
    for (uint32_t i = 0; i < args->n_rank_counts && status == 0; i++)
        status = bench_loopback_ranks(args, args->rank_counts[i], args->system, &meta, rows, note,
                                      table);
    return bench_write_rows(csv, rows) || status;
}

/* gpu and interfere: one call that writes its own rows. */
static int
bench_main_device(const BenchArgs *args, FILE *csv, FILE *table)
{
    char err[ERR_LEN] = "";
    unsigned n_iters = args->n_iters ? args->n_iters : 20;
    int rc = args->mode == BENCH_MODE_GPU ? bench_gpu_run(n_iters, table, csv, err, ERR_LEN)
                                          : bench_interfere_run(n_iters, table, csv, err, ERR_LEN);
    if (rc < 0) {
        fprintf(stderr, "nvlsim-bench: %s\n", err);
        return 1;
    }
    return 0;
}

int
main(int argc, char **argv)
{
    BenchArgs args = {0};
    g_autoptr(GError) error = NULL;
    sim_output_catch_signals();
    if (!bench_parse_args(argc, argv, &args, &error)) {
        fprintf(stderr, "nvlsim-bench: %s\n", error->message);
        bench_args_clear(&args);
        return 2;
    }
    FILE *csv = stdout;
    char *tmp = NULL; /* taken by sim_output_commit */
    if (args.csv_path && !(csv = sim_output_open(args.csv_path, &tmp, &error))) {
        fprintf(stderr, "nvlsim-bench: %s\n", error->message);
        bench_args_clear(&args);
        return 1;
    }
    FILE *table = csv == stdout ? stderr : stdout;
    int status = 1;
    switch (args.mode) {
    case BENCH_MODE_COLL:
        status = bench_main_coll(&args, csv, table);
        break;
    case BENCH_MODE_GPU:
    case BENCH_MODE_INTERFERE:
        status = bench_main_device(&args, csv, table);
        break;
    case BENCH_MODE_LOOPBACK:
        status = bench_main_loopback(&args, csv, table);
        break;
    }
    /* Kept after a failure too: what was measured is written whole. */
    if (csv != stdout && !sim_output_commit(csv, tmp, args.csv_path, &error)) {
        fprintf(stderr, "nvlsim-bench: %s\n", error->message);
        status = 1;
    }
    bench_args_clear(&args);
    return status;
}
