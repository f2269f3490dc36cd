/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim calibrate: fits a system's fixed costs from measurements.
 *
 *   copy-overhead: one cudaMemcpyPeer ([host] copy_overhead), from the
 *     p2p_latency rows (GPU pairs with a direct NVLink route), the
 *     algorithm column containing --match;
 *   latency: the runtime model's two unsourced constants ([runtime]
 *     host_issue and kernel_setup of models/runtime/nccl.ini), once across
 *     every system's collective rows of at most 1 KiB (cli-validate-cross.c),
 *     no --system;
 *   gemm: a GPU's gemm_ceiling_fp16 and gemm_ceiling_fp8 ([gpu], the largest
 *     share of peak a GEMM reaches), from the GEMM rows of nvlsim-bench gpu's
 *     CSV (kind gemm; dtype bf16 or fp16, fp8): each row's own ceiling (its
 *     rate over peak and the tile-wave share of the kernel model), their
 *     median, and the error of the model's GEMM time at the fit, also
 *     leaving each row out;
 *   memory: a GPU's hbm_efficiency ([gpu], the share of HBM bandwidth a
 *     streaming kernel sustains), from the reduce rows of nvlsim-bench gpu's
 *     CSV (their median), its error shown on them and on the copy rows;
 *   loopback: a loopback model's [loopback] costs from nvlsim-bench
 *     loopback's rows (cli-calibrate-loopback.c);
 *   interference: how much more than the SMs it loses a persistent GEMM
 *     slows beside a collective's CTAs (WORK_REPLAY_GEMM_BESIDE_CTAS,
 *     work-replay.h), from nvlsim-bench interfere's GEMM rows beside CTAs
 *     that hold their SMs and move nothing (their median); the replayer's
 *     slowdown then shown on every other row of the file, held out;
 *   compute-efficiency: the share of the kernel model's rate a training
 *     step sustains, from training rows (the schema of
 *     shared/reference/training.csv): every system's, the one share of
 *     every generation (work-compute.h), or those of --system, a GPU's own
 *     training_efficiency ([gpu]); each row's own value, the median of
 *     them, and the error leaving each row out (cli-validate-train.c).
 *
 * For copy-overhead each row's simulated time without the fixed cost is
 * taken from its measured time; the fit is the median of those (robust to
 * a few odd rows). The command prints the fit, its error on the rows it
 * was fitted on, and the line to put in the model; nvlsim validate then
 * judges it on every other row (latency: nvlsim validate --cross).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo-world.h"
#include "cli/cli-rows.h"
#include "cli/cli-validate-cross.h"
#include "cli/cli-validate.h"
#include "cli/cli.h"
#include "coll/coll-run.h"
#include "net/net-p2p.h"
#include "core/core-units.h"
#include "core/core-csv.h"
#include "work/work-compute.h"
#include "work/work-replay.h"
#include "hw/hw-models.h"

#define LATENCY_BYTES 4

typedef struct CalibrateOptions {
    char *system;
    char *match;
    char *fidelity;
    char *fit_ranks;
    char *output, *gpus, *nodes, *collective, *nccl_env;
} CalibrateOptions;

typedef struct Calibration {
    const CalibrateOptions *o;
    NetFidelity fidelity;
    const SimCsv *csv;
    CliRowColumns col;
    TopoWorld *fabric;             /* one node */
    GArray *measured_us, *base_us; /* base: the simulated time without the fixed cost */
} Calibration;

#define OPT(field) CLI_OPTION_AT(CalibrateOptions, field)

static const GOptionEntry calibrate_entries[] = {
    {"system", 's', 0, G_OPTION_ARG_STRING, OPT(system),
     "System whose rows to fit (required but for latency)", "NAME"},
    {"match", 0, 0, G_OPTION_ARG_STRING, OPT(match),
     "copy-overhead: fit only rows whose algorithm contains TEXT", "TEXT"},
    {"fidelity", 0, 0, G_OPTION_ARG_STRING, OPT(fidelity), "packet or flow (default flow)", "F"},
    {"fit-ranks", 0, 0, G_OPTION_ARG_STRING, OPT(fit_ranks),
     "loopback: fit the rows of K ranks (default the fewest); the others are held out", "K"},
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, OPT(output),
     "cluster: the system file to write, deriving from --system", "FILE.ini"},
    {"gpus", 0, 0, G_OPTION_ARG_STRING, OPT(gpus),
     "cluster: the ranks of a log without '#  Rank' lines", "N"},
    {"nodes", 0, 0, G_OPTION_ARG_STRING, OPT(nodes),
     "cluster: the hosts of a log without '#  Rank' lines", "N"},
    {"collective", 0, 0, G_OPTION_ARG_STRING, OPT(collective),
     "cluster: the collective of a log that does not name it", "C"},
    {"nccl-env", 0, 0, G_OPTION_ARG_STRING, OPT(nccl_env),
     "cluster: the NCCL variables the logs' runs set that they do not print", "VARS"},
    G_OPTION_ENTRY_NULL,
};

const CliUsage cli_calibrate_usage = {
    .args = "WHAT [FILE.csv] | cluster --system BASE -o MINE.ini LOG...",
    .summary = "WHAT is latency, copy-overhead, compute-efficiency, gemm, memory,\n"
               "loopback or interference. Fits the runtime's unsourced costs of a\n"
               "collective call ([runtime] host_issue and kernel_setup) once across\n"
               "every system's rows, a system's fixed cost\n"
               "of one peer copy ([host] copy_overhead) from a measurement file, the\n"
               "share of the kernel model a training step sustains, once across every\n"
               "generation's steps (or a GPU's own, [gpu] training_efficiency, with\n"
               "--system), a GPU's GEMM ceilings\n"
               "([gpu] gemm_ceiling_fp16/fp8) or sustained HBM share ([gpu] hbm_efficiency)\n"
               "from nvlsim-bench gpu's CSV, a loopback\n"
               "model's costs ([loopback]) from nvlsim-bench loopback's CSV, or how much a\n"
               "persistent GEMM slows beside a collective's CTAs from nvlsim-bench\n"
               "interfere's CSV.",
    .description = "Without FILE.csv, latency and copy-overhead read the shipped\n"
                   "data/measurements/collectives.csv, compute-efficiency its training.csv\n"
                   "(nvlsim --version prints the folder); gemm, memory, loopback and\n"
                   "interference need one (tests/device/run.sh writes them).\n"
                   "The fits shipped in models/ and sim/:\n"
                   "  nvlsim calibrate latency\n"
                   "  nvlsim calibrate copy-overhead --system dgx1-p100 \\\n"
                   "    --match 'modified p2pBandwidthLatencyTest'\n"
                   "  nvlsim calibrate compute-efficiency\n"
                   "  M=tests/data/measured/h200-2026-12-04\n"
                   "  nvlsim calibrate loopback $M/loopback-all_reduce.csv --system loopback-h200\n"
                   "  nvlsim calibrate interference $M/interfere.csv --system dgx-h200\n"
                   "  nvlsim calibrate memory $M/gpu.csv --system dgx-h200  (every GPU's default)\n"
                   "  nvlsim calibrate gemm $M/gpu.csv --system dgx-h200  (a check of the sourced\n"
                   "    Hopper ceilings, which stay)\n"
                   "Judge a fit on the rows it was not fitted on with nvlsim validate.",
    .entries = calibrate_entries,
};

static int
compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void
add_sample(Calibration *c, double measured_us, double base_us)
{
    g_array_append_val(c->measured_us, measured_us);
    g_array_append_val(c->base_us, base_us);
}

/* The p2p_latency rows of direct NVLink pairs. */
static bool
collect_copies(Calibration *c, GError **error)
{
    const SimCsv *csv = c->csv;
    const CalibrateOptions *o = c->o;
    NetP2p p2p = {.fidelity = c->fidelity,
                  .issuer = NET_ISSUER_CE,
                  .graph = c->fabric->graph,
                  .router = c->fabric->router};
    for (guint r = 0; r < csv->rows->len; r++) {
        if (strcmp(sim_csv_field(csv, r, c->col.system), o->system) != 0 ||
            strcmp(sim_csv_field(csv, r, c->col.collective), "p2p_latency") != 0 ||
            (o->match && !strstr(sim_csv_field(csv, r, c->col.algorithm), o->match)))
            continue;
        double measured, bytes = LATENCY_BYTES;
        if (!cli_rows_measure(csv, r, c->col.time_us, "time_us", &measured, error))
            return false;
        if (*sim_csv_field(csv, r, c->col.bytes) != '\0' &&
            !cli_rows_number(csv, r, c->col.bytes, "bytes", &bytes, error))
            return false;
        uint32_t a, b, n = topo_graph_n_gpus(p2p.graph);
        cli_rows_pair(sim_csv_field(csv, r, c->col.note), &a, &b);
        if (a >= n || b >= n || a == b || bytes < 1 || !net_p2p_nvlink(&p2p, a, b))
            continue;
        add_sample(c, measured,
                   (double)net_p2p_time_ps(&p2p, NET_P2P_UNIDIRECTIONAL, a, b, (uint64_t)bytes) /
                       1e6);
    }
    return true;
}

/* Prints the fit of key from the samples. */
static void
report_fit(const Calibration *c, const char *what, const char *path, const char *key)
{
    guint n = c->measured_us->len;
    g_autofree double *residual = g_new(double, n);
    for (guint i = 0; i < n; i++)
        residual[i] =
            g_array_index(c->measured_us, double, i) - g_array_index(c->base_us, double, i);
    qsort(residual, n, sizeof(double), compare_double);
    double fit = MAX(n % 2 ? residual[n / 2] : (residual[n / 2 - 1] + residual[n / 2]) / 2, 0);
    double sum_abs = 0, worst = 0;
    for (guint i = 0; i < n; i++) {
        double m = g_array_index(c->measured_us, double, i);
        double pct = fabs(g_array_index(c->base_us, double, i) + fit - m) / m * 100;
        sum_abs += pct;
        worst = MAX(worst, pct);
    }
    const CalibrateOptions *o = c->o;
    printf("# nvlsim calibrate %s: %s, %u rows of %s%s%s (%s fidelity)\n", what, path, n, o->system,
           o->match ? " matching " : "", o->match ? o->match : "", net_fidelity_name(c->fidelity));
    printf("# measured - simulated without it: min %.3f us, median %.3f us, max %.3f us\n",
           residual[0], fit, residual[n - 1]);
    printf("# error on the fitted rows: MAPE %.2f%%, max %.2f%%\n", sum_abs / n, worst);
    printf("%s = %.0fns\n", key, fit * 1e3);
}

static int
calibrate_run(Calibration *c, const char *what, const char *path)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(SimCsv) csv = sim_csv_read(path, &error);
    g_autoptr(TopoWorld) fabric = csv ? topo_world_load(c->o->system, 1, NULL, &error) : NULL;
    c->csv = csv;
    c->fabric = fabric;
    c->measured_us = g_array_new(FALSE, FALSE, sizeof(double));
    c->base_us = g_array_new(FALSE, FALSE, sizeof(double));
    bool ok =
        fabric != NULL && cli_rows_find_columns(csv, &c->col, &error) && collect_copies(c, &error);
    int status = CLI_EXIT_OK;
    if (!ok) {
        cli_print_error("calibrate", error);
        status = CLI_EXIT_BAD_INPUT;
    } else if (c->measured_us->len == 0) {
        fprintf(stderr, "nvlsim calibrate: %s: no p2p_latency (direct NVLink) rows of %s%s%s\n",
                path, c->o->system, c->o->match ? " matching " : "",
                c->o->match ? c->o->match : "");
        status = CLI_EXIT_BAD_INPUT;
    } else {
        report_fit(c, what, path, "copy_overhead");
    }
    g_array_unref(c->measured_us);
    g_array_unref(c->base_us);
    return status;
}

/* One precision's GEMM rows: their ceilings, the fit and its errors. */
static void
fit_gemm(const HwGpu *gpu, WorkMath math, const char *key, const GArray *shapes,
         const GArray *rates)
{
    guint n = rates->len;
    if (n == 0)
        return;
    g_autofree double *c = g_new(double, n);
    for (guint i = 0; i < n; i++) {
        const uint64_t *mnk = &g_array_index(shapes, uint64_t, 3 * i);
        c[i] = work_compute_gemm_fit_ceiling(gpu, math, mnk[0], mnk[1], mnk[2],
                                             g_array_index(rates, double, i));
    }
    double fit = cli_rows_median(c, n, G_MAXUINT);
    /* The model's rate for a row at ceiling x is x times the row's rate at
     * its own ceiling over that ceiling. */
    double sum_in = 0, sum_out = 0, worst = 0;
    printf("%-6s %7s %7s %7s %12s %9s %8s %8s\n", "dtype", "m", "n", "k", "TFLOP/s", "ceiling",
           "err_%", "loo_%");
    for (guint i = 0; i < n; i++) {
        const uint64_t *mnk = &g_array_index(shapes, uint64_t, 3 * i);
        double out = n > 1 ? cli_rows_median(c, n, i) : fit;
        double e_in = 100.0 * (fit / c[i] - 1.0), e_out = 100.0 * (out / c[i] - 1.0);
        sum_in += fabs(e_in);
        sum_out += fabs(e_out);
        worst = MAX(worst, fabs(e_out));
        printf("%-6s %7" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT
               " %12.1f %9.4f %+7.2f%% %+7.2f%%\n",
               math == WORK_MATH_FP8 ? "fp8" : "fp16", mnk[0], mnk[1], mnk[2],
               g_array_index(rates, double, i) / 1e12, c[i], e_in, e_out);
    }
    printf("# %u GEMMs: the model's rate at the fit, MAPE %.2f%%; fitted on the others, MAPE "
           "%.2f%%, max %.2f%%\n",
           n, sum_in / n, sum_out / n, worst);
    printf("%s = %.3f\n", key, fit);
}

/* nvlsim-bench gpu's CSV at path and the system it calibrates, with the
 * columns names[0 .. n) found into col; false after printing the error. */
static bool
open_gpu_csv(const char *path, const char *system_id, const char *bench, const char *const *names,
             unsigned n, int *col, SimCsv **csv, HwSystem **system)
{
    g_autoptr(GError) error = NULL;
    *csv = sim_csv_read(path, &error);
    *system = *csv != NULL ? hw_system_load_by_id(system_id, hw_models_dir(), &error) : NULL;
    if (*system == NULL) {
        cli_print_error("calibrate", error);
        return false;
    }
    for (unsigned i = 0; i < n; i++)
        if ((col[i] = sim_csv_column(*csv, names[i])) < 0) {
            fprintf(stderr, "nvlsim calibrate: %s: no column %s (expected nvlsim-bench %s's CSV)\n",
                    path, names[i], bench);
            return false;
        }
    return true;
}

/* nvlsim calibrate gemm FILE.csv --system NAME. */
static int
calibrate_gemm(const char *path, const char *system_id)
{
    static const char *const names[] = {"kind", "dtype", "m", "n", "k", "flops_per_s"};
    int col[G_N_ELEMENTS(names)];
    g_autoptr(SimCsv) csv = NULL;
    g_autoptr(HwSystem) system = NULL;
    if (!open_gpu_csv(path, system_id, "gpu", names, G_N_ELEMENTS(names), col, &csv, &system))
        return CLI_EXIT_BAD_INPUT;
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) shapes16 = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_autoptr(GArray) rates16 = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) shapes8 = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_autoptr(GArray) rates8 = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint r = 0; r < csv->rows->len; r++) {
        if (strcmp(sim_csv_field(csv, r, col[0]), "gemm") != 0)
            continue;
        const char *dtype = sim_csv_field(csv, r, col[1]);
        bool fp8 = g_str_has_prefix(dtype, "fp8");
        if (!fp8 && strcmp(dtype, "bf16") != 0 && strcmp(dtype, "fp16") != 0)
            continue;
        uint64_t mnk[3];
        double rate;
        bool ok = true;
        /* GEMM sizes as nvlsim-bench runs them: up to 2^20 a side. */
        for (int d = 0; d < 3 && ok; d++)
            ok = cli_rows_whole(csv, r, col[2 + d], names[2 + d], 1, 1 << 20, &mnk[d], &error);
        if (!ok || !cli_rows_measure(csv, r, col[5], "flops_per_s", &rate, &error)) {
            cli_print_error("calibrate", error);
            return CLI_EXIT_BAD_INPUT;
        }
        if (isnan(work_compute_gemm_fit_ceiling(system->gpu, fp8 ? WORK_MATH_FP8 : WORK_MATH_FP16,
                                                mnk[0], mnk[1], mnk[2], rate)))
            continue; /* HBM-bound: says nothing of the ceiling */
        g_array_append_vals(fp8 ? shapes8 : shapes16, mnk, 3);
        g_array_append_val(fp8 ? rates8 : rates16, rate);
    }
    if (rates16->len + rates8->len == 0) {
        fprintf(stderr, "nvlsim calibrate: %s: no compute-bound gemm rows (bf16, fp16, fp8)\n",
                path);
        return CLI_EXIT_BAD_INPUT;
    }
    printf("# nvlsim calibrate gemm: %s on the %s of %s\n", path, system->gpu->name, system->id);
    fit_gemm(system->gpu, WORK_MATH_FP16, "gemm_ceiling_fp16", shapes16, rates16);
    fit_gemm(system->gpu, WORK_MATH_FP8, "gemm_ceiling_fp8", shapes8, rates8);
    return CLI_EXIT_OK;
}

/* A GPU's hbm_efficiency from the rows of nvlsim-bench gpu's CSV of kind
 * reduce (the reduction kernel, the cost collectives charge): each row's
 * rate over the GPU's HBM bandwidth, their median; then the model's error
 * on every reduce row (fitted) and copy row (held out). */
static int
calibrate_memory(const char *path, const char *system_id)
{
    static const char *const names[] = {"kind", "name", "dtype", "bytes_per_s"};
    int col[G_N_ELEMENTS(names)];
    g_autoptr(SimCsv) csv = NULL;
    g_autoptr(HwSystem) system = NULL;
    if (!open_gpu_csv(path, system_id, "gpu", names, G_N_ELEMENTS(names), col, &csv, &system))
        return CLI_EXIT_BAD_INPUT;
    double hbm = (double)system->gpu->hbm_bytes_per_s;
    g_autoptr(GArray) shares = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint r = 0; r < csv->rows->len; r++) {
        const char *kind = sim_csv_field(csv, r, col[0]);
        if (strcmp(kind, "reduce") != 0 && strcmp(kind, "copy") != 0)
            continue;
        char *end = NULL;
        double rate = g_ascii_strtod(sim_csv_field(csv, r, col[3]), &end);
        if (end == NULL || *end != '\0' || !(rate > 0) || !isfinite(rate)) {
            fprintf(stderr, "nvlsim calibrate: %s:%u: bytes_per_s: expected a positive number\n",
                    path, g_array_index(csv->lines, uint32_t, r));
            return CLI_EXIT_BAD_INPUT;
        }
        g_array_append_val(rows, r);
        if (strcmp(kind, "reduce") == 0) {
            double share = rate / hbm;
            g_array_append_val(shares, share);
        }
    }
    if (shares->len == 0) {
        fprintf(stderr,
                "nvlsim calibrate: %s: no reduce rows (nvlsim-bench gpu's reduction "
                "kernel)\n",
                path);
        return CLI_EXIT_BAD_INPUT;
    }
    double fit = cli_rows_median((const double *)shares->data, shares->len, shares->len);
    printf("# nvlsim calibrate memory: %s on the %s of %s (HBM %.0f GB/s)\n", path,
           system->gpu->name, system->id, hbm / 1e9);
    printf("  %-7s %-22s %-5s %12s %12s %8s\n", "kind", "name", "dtype", "measured", "model",
           "error");
    for (guint i = 0; i < rows->len; i++) {
        guint r = g_array_index(rows, guint, i);
        double rate = g_ascii_strtod(sim_csv_field(csv, r, col[3]), NULL);
        const char *kind = sim_csv_field(csv, r, col[0]);
        printf("  %-7s %-22s %-5s %7.1f GB/s %7.1f GB/s %+7.2f%%%s\n", kind,
               sim_csv_field(csv, r, col[1]), sim_csv_field(csv, r, col[2]), rate / 1e9,
               fit * hbm / 1e9, 100 * (fit * hbm - rate) / rate,
               strcmp(kind, "copy") == 0 ? "  (held out)" : "");
    }
    printf("[gpu] of models/gpu/%s.ini:\nhbm_efficiency = %.3f\n", system->ids.gpu, fit);
    return CLI_EXIT_OK;
}

/* nvlsim calibrate interference FILE.csv --system NAME: g, the GEMM's
 * slowdown beside c spinning CTAs over S / (S - c), the median over those
 * rows; then the replayer's slowdown beside a collective on every row,
 * the fitted ones and the held-out ones (work-replay.c): a GEMM (all
 * SM-bound) g S / (S - c), a streaming kernel (all memory-bound)
 * 1 + D / B, D the holder's bytes a second alone and B the GPU's
 * streaming rate. */
static int
calibrate_interference(const char *path, const char *system_id)
{
    static const char *const names[] = {"victim", "holder", "ctas", "slowdown",
                                        "copy_alone_bytes_per_s"};
    int col[G_N_ELEMENTS(names)];
    g_autoptr(SimCsv) csv = NULL;
    g_autoptr(HwSystem) system = NULL;
    if (!open_gpu_csv(path, system_id, "interfere", names, G_N_ELEMENTS(names), col, &csv, &system))
        return CLI_EXIT_BAD_INPUT;
    double sms = (double)system->gpu->n_sms,
           stream = (double)hw_gpu_stream_bytes_per_s(system->gpu);
    guint n = csv->rows->len;
    g_autofree double *ctas = g_new0(double, MAX(n, 1));
    g_autofree double *slowdown = g_new0(double, MAX(n, 1));
    g_autofree double *copy = g_new0(double, MAX(n, 1));
    g_autoptr(GArray) own = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint r = 0; r < n; r++) {
        const char *victim = sim_csv_field(csv, r, col[0]);
        if (!g_str_has_prefix(victim, "gemm") && strcmp(victim, "add") != 0) {
            fprintf(stderr,
                    "nvlsim calibrate: %s:%u: victim: expected gemm, gemm_MxNxK or add, got '%s'\n",
                    path, g_array_index(csv->lines, uint32_t, r), victim);
            return CLI_EXIT_BAD_INPUT;
        }
        g_autoptr(GError) error = NULL;
        if (!cli_rows_number(csv, r, col[2], names[2], &ctas[r], &error) ||
            !cli_rows_number(csv, r, col[3], names[3], &slowdown[r], &error) ||
            !cli_rows_number(csv, r, col[4], names[4], &copy[r], &error)) {
            cli_print_error("calibrate", error);
            return CLI_EXIT_BAD_INPUT;
        }
        if (!(ctas[r] >= 1 && ctas[r] < sms && slowdown[r] > 0)) {
            fprintf(stderr,
                    "nvlsim calibrate: %s:%u: expected 1 to %.0f CTAs and a slowdown above 0\n",
                    path, g_array_index(csv->lines, uint32_t, r), sms - 1);
            return CLI_EXIT_BAD_INPUT;
        }
        if (g_str_has_prefix(victim, "gemm") &&
            strcmp(sim_csv_field(csv, r, col[1]), "spin") == 0) {
            double g = slowdown[r] * (sms - ctas[r]) / sms;
            g_array_append_val(own, g);
        }
    }
    if (own->len == 0) {
        fprintf(stderr, "nvlsim calibrate: %s: no gemm rows beside spinning CTAs (holder spin)\n",
                path);
        return CLI_EXIT_BAD_INPUT;
    }
    double fit = cli_rows_median((const double *)own->data, own->len, own->len);
    printf("# nvlsim calibrate interference: %s on the %s of %s (%.0f SMs, streaming %.0f GB/s)\n",
           path, system->gpu->name, system->id, sms, stream / 1e9);
    printf("  %-19s %-6s %5s %9s %9s %8s\n", "victim", "holder", "ctas", "measured", "model",
           "error");
    double sum_fit = 0, sum_held = 0;
    guint n_held = 0;
    for (guint r = 0; r < n; r++) {
        const char *victim = sim_csv_field(csv, r, col[0]);
        bool gemm = g_str_has_prefix(victim, "gemm");
        const char *holder = sim_csv_field(csv, r, col[1]);
        bool fitted = gemm && strcmp(holder, "spin") == 0;
        double model = work_replay_slowdown(fit, gemm ? 0 : 1, sms, ctas[r], copy[r] / stream);
        double err = 100 * (model - slowdown[r]) / slowdown[r];
        printf("  %-19s %-6s %5.0f %9.4f %9.4f %+7.2f%%%s\n", victim, holder, ctas[r], slowdown[r],
               model, err, fitted ? "" : "  (held out)");
        if (fitted)
            sum_fit += fabs(err);
        else
            sum_held += fabs(err), n_held++;
    }
    printf("# %u rows fitted: MAPE %.2f%%; %u held out: MAPE %.2f%%\n", own->len,
           sum_fit / own->len, n_held, n_held ? sum_held / n_held : 0.0);
    printf("WORK_REPLAY_GEMM_BESIDE_CTAS %.3f (sim/work/work-replay.h)\n", fit);
    return CLI_EXIT_OK;
}

/* The file to fit on for "calibrate WHAT [FILE.csv]": FILE.csv, or without
 * it the shipped file of WHAT's kind (newly allocated); NULL, after a
 * usage message, for an unknown WHAT or a missing file that has no
 * default. */
static char *
calibrate_input(int argc, char **argv)
{
    static const struct {
        const char *name, *suite_file; /* suite_file NULL: FILE.csv needed */
    } what[] = {
        {"latency", "collectives.csv"},
        {"copy-overhead", "collectives.csv"},
        {"compute-efficiency", "training.csv"},
        {"gemm", NULL},
        {"memory", NULL},
        {"loopback", NULL},
        {"interference", NULL},
    };
    size_t w = 0;
    while (argc >= 2 && w < G_N_ELEMENTS(what) && strcmp(argv[1], what[w].name) != 0)
        w++;
    if (argc < 2 || argc > 3 || w == G_N_ELEMENTS(what) ||
        (argc == 2 && what[w].suite_file == NULL)) {
        fprintf(stderr, "nvlsim calibrate: expected latency, copy-overhead or "
                        "compute-efficiency [FILE.csv], or gemm, memory, loopback or "
                        "interference FILE.csv\n");
        return NULL;
    }
    return argc == 3 ? g_strdup(argv[2]) : validate_suite_file(what[w].suite_file);
}

/* calibrate cluster's options: the hints and the fidelity; its status. */
static int
calibrate_cluster(const CalibrateOptions *o, int n_logs, char **logs)
{
    JudgeLogHints hints;
    NetFidelity fidelity = NET_FIDELITY_FLOW;
    if (!cli_parse_log_hints("calibrate", NULL, o->gpus, o->nodes, o->collective, o->nccl_env,
                             &hints))
        return CLI_EXIT_USAGE;
    if (o->fidelity && !net_fidelity_parse(o->fidelity, &fidelity)) {
        fprintf(stderr, "nvlsim calibrate: --fidelity: '%s': expected packet or flow\n",
                o->fidelity);
        return CLI_EXIT_USAGE;
    }
    return cli_calibrate_cluster(o->system, o->output, &hints, fidelity, n_logs, logs);
}

int
cli_calibrate(int argc, char **argv)
{
    CalibrateOptions o = {0};
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_calibrate_usage, &o);
    int status = CLI_EXIT_USAGE;
    Calibration c = {.o = &o, .fidelity = NET_FIDELITY_FLOW};
    char *path = NULL; /* FILE.csv, or the shipped file */
    if (!cli_parse_options(context, "calibrate", &argc, &argv))
        goto out;
    if (argc >= 2 && strcmp(argv[1], "cluster") == 0) {
        status = calibrate_cluster(&o, argc - 2, argv + 2);
        goto out;
    }
    if ((path = calibrate_input(argc, argv)) == NULL)
        goto out;
    uint64_t fit_ranks = 0;
    if (o.fit_ranks && (!sim_units_parse_count(o.fit_ranks, &fit_ranks, NULL) || fit_ranks < 2 ||
                        fit_ranks > 4096)) {
        fprintf(stderr, "nvlsim calibrate: --fit-ranks: '%s': expected 2 to 4096 ranks\n",
                o.fit_ranks);
        goto out;
    }
    bool latency = strcmp(argv[1], "latency") == 0;
    if (o.system == NULL && !latency && strcmp(argv[1], "compute-efficiency") != 0) {
        fprintf(stderr, "nvlsim calibrate: --system is required\n");
        goto out;
    }
    if (latency && (o.system != NULL || o.match != NULL)) {
        fprintf(stderr, "nvlsim calibrate: latency is fitted once across every system's rows: "
                        "expected no --system or --match\n");
        goto out;
    }
    if (o.fidelity && !net_fidelity_parse(o.fidelity, &c.fidelity)) {
        fprintf(stderr, "nvlsim calibrate: --fidelity: '%s': expected packet or flow\n",
                o.fidelity);
        goto out;
    }
    if (latency) {
        status = validate_calibrate_runtime(path, c.fidelity);
    } else if (strcmp(argv[1], "loopback") == 0) {
        status = cli_calibrate_loopback(path, o.system, (uint32_t)fit_ranks, c.fidelity);
    } else if (strcmp(argv[1], "gemm") == 0) {
        status = calibrate_gemm(path, o.system);
    } else if (strcmp(argv[1], "memory") == 0) {
        status = calibrate_memory(path, o.system);
    } else if (strcmp(argv[1], "interference") == 0) {
        status = calibrate_interference(path, o.system);
    } else if (strcmp(argv[1], "compute-efficiency") == 0) {
        Validation v;
        validate_init(&v);
        v.command = "calibrate";
        v.fidelity = c.fidelity;
        v.only_system = o.system;
        status = validate_train_calibrate(&v, path);
        validate_clear(&v);
    } else {
        status = calibrate_run(&c, argv[1], path);
    }
out:
    g_free(path);
    g_free(o.system);
    g_free(o.match);
    g_free(o.fidelity);
    g_free(o.fit_ranks);
    g_free(o.output);
    g_free(o.gpus);
    g_free(o.nodes);
    g_free(o.collective);
    g_free(o.nccl_env);
    return status;
}
