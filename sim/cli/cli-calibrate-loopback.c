/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim calibrate loopback: fits a loopback model's three costs
 * ([loopback] cta_bandwidth, step_overhead, launch; flag_latency is held)
 * from nvlsim-bench loopback rows of one rank count. The kernel's closed
 * form (coll-loopback.h), which the simulation equals, is linear in them:
 *     T = launch + wire_bytes x (1 / B) + n_hops x (2 L + step_overhead)
 * so the fit is a weighted linear least squares in (launch, 1/B, per-hop
 * cost) with weights 1/T (every row's relative error counts the same),
 * keeping launch and step_overhead non-negative. Then every row is
 * simulated with the fit: the rows of the fitted rank count give the fit's
 * own error, those of the other rank counts (and of the other collective)
 * the error on data the fit never saw. Prints the lines for the model.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli-rows.h"
#include "cli/cli.h"
#include "coll/coll-loopback.h"
#include "coll/coll-run.h"
#include "hw/hw-models.h"
#include "topo/topo-build.h"

typedef struct LoopRow {
    uint32_t line, n_ranks;
    CollOp op;
    uint64_t n_bytes;
    double measured_us;
} LoopRow;

/* The loopback rows of system_id in csv: all_reduce and all_gather with a
 * time. NULL after printing the error of a malformed row. */
static GArray *
read_rows(const char *path, const SimCsv *csv, const CliRowColumns *col, const char *system_id)
{
    g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(LoopRow));
    for (guint r = 0; r < csv->rows->len; r++) {
        LoopRow row = {.line = g_array_index(csv->lines, uint32_t, r)};
        if (strcmp(sim_csv_field(csv, r, col->system), system_id) != 0 ||
            !coll_op_parse(sim_csv_field(csv, r, col->collective), &row.op) ||
            (row.op != COLL_OP_ALL_REDUCE && row.op != COLL_OP_ALL_GATHER) ||
            *sim_csv_field(csv, r, col->time_us) == '\0')
            continue;
        g_autoptr(GError) error = NULL;
        double gpus, bytes;
        if (!cli_rows_number(csv, r, col->num_gpus, "num_gpus", &gpus, &error) ||
            !cli_rows_number(csv, r, col->bytes, "bytes", &bytes, &error) ||
            !cli_rows_number(csv, r, col->time_us, "time_us", &row.measured_us, &error)) {
            cli_print_error("calibrate", error);
            return NULL;
        }
        if (gpus < 2 || gpus > 4096 || gpus != floor(gpus) || bytes < 1 || bytes > 1e15 ||
            bytes != floor(bytes) || !(row.measured_us > 0)) {
            fprintf(stderr,
                    "nvlsim calibrate: %s:%u: expected 2 to 4096 ranks, a whole positive "
                    "size and a positive time\n",
                    path, row.line);
            return NULL;
        }
        row.n_ranks = (uint32_t)gpus;
        row.n_bytes = (uint64_t)bytes;
        g_array_append_val(rows, row);
    }
    return g_steal_pointer(&rows);
}

/* Solves the 3 x 3 system a x = b (Gaussian elimination, partial
 * pivoting); false when it is singular. */
static bool
solve3(double a[3][3], double b[3], double x[3])
{
    for (int c = 0; c < 3; c++) {
        int p = c;
        for (int r = c + 1; r < 3; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        if (fabs(a[p][c]) < 1e-300)
            return false;
        for (int k = 0; k < 3; k++) {
            double t = a[c][k];
            a[c][k] = a[p][k];
            a[p][k] = t;
        }
        double t = b[c];
        b[c] = b[p];
        b[p] = t;
        for (int r = c + 1; r < 3; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 3; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = 2; c >= 0; c--) {
        double s = b[c];
        for (int k = c + 1; k < 3; k++)
            s -= a[c][k] * x[k];
        x[c] = s / a[c][c];
    }
    return true;
}

/* Row i's terms of the closed form, f = (1, wire bytes, hops), and its
 * measured time y in ps; false when the row is not of k ranks. */
static bool
row_terms(const HwLoopback *lb, const GArray *rows, guint i, uint32_t k, double f[3], double *y)
{
    const LoopRow *row = &g_array_index(rows, LoopRow, i);
    if (row->n_ranks != k)
        return false;
    CollLoopbackTerms t;
    coll_loopback_terms(lb, row->op, k, row->n_bytes, &t);
    f[0] = 1;
    f[1] = t.wire_bytes;
    f[2] = t.n_hops;
    *y = row->measured_us * 1e6;
    return true;
}

/* Weighted least squares over the fit rows for (launch_ps, ps per byte,
 * per-hop ps), with the unknowns in fixed[] held at the values x[] has;
 * returns the sum of squared relative errors (HUGE_VAL when singular). */
static double
least_squares(const HwLoopback *lb, const GArray *rows, uint32_t k, const bool fixed[3],
              double x[3])
{
    double a[3][3] = {{0}}, b[3] = {0}, f[3], y;
    for (guint i = 0; i < rows->len; i++) {
        if (!row_terms(lb, rows, i, k, f, &y))
            continue;
        double w = 1 / (y * y);
        for (int p = 0; p < 3; p++)
            y -= fixed[p] ? f[p] * x[p] : 0;
        for (int p = 0; p < 3; p++) {
            for (int q = 0; q < 3; q++)
                a[p][q] += fixed[p] || fixed[q] ? 0 : w * f[p] * f[q];
            b[p] += fixed[p] ? 0 : w * f[p] * y;
        }
    }
    for (int p = 0; p < 3; p++)
        if (fixed[p]) {
            a[p][p] = 1;
            b[p] = x[p];
        }
    if (!solve3(a, b, x))
        return HUGE_VAL;
    double sse = 0;
    for (guint i = 0; i < rows->len; i++) {
        if (!row_terms(lb, rows, i, k, f, &y))
            continue;
        double e = (x[0] + x[1] * f[1] + x[2] * f[2] - y) / y;
        sse += e * e;
    }
    return sse;
}

/* The fit with launch >= 0 and per-hop cost >= 2 L (step_overhead >= 0):
 * the unconstrained solution if it is feasible, else the best feasible one
 * with the violated bounds held. False when 1/B comes out non-positive. */
static bool
fit(HwLoopback *lb, const GArray *rows, uint32_t k)
{
    double path_ps = 2.0 * (double)lb->port.latency_ps, best = HUGE_VAL, chosen[3] = {0};
    for (int held = 0; held < 4; held++) {
        bool fixed[3] = {held & 1, false, (held & 2) != 0};
        double x[3] = {0, 0, 2 * path_ps};
        double sse = least_squares(lb, rows, k, fixed, x);
        if (sse < best && x[0] >= 0 && x[1] > 0 && x[2] >= 2 * path_ps) {
            best = sse;
            memcpy(chosen, x, sizeof chosen);
        }
    }
    if (best == HUGE_VAL)
        return false;
    hw_loopback_set_costs(lb, (uint64_t)llround(1e12 / chosen[1]),
                          (uint64_t)llround(chosen[2] - 2 * path_ps), (uint64_t)llround(chosen[0]));
    return true;
}

typedef struct Errors {
    guint n;
    double sum, max;
} Errors;

static void
errors_add(Errors *e, double err)
{
    e->n++;
    e->sum += fabs(err);
    e->max = MAX(e->max, fabs(err));
}

static void
errors_print(const char *what, const Errors *e)
{
    if (e->n > 0)
        printf("  %-34s %3u rows  MAPE %6.2f%%  max %6.2f%%\n", what, e->n, 100 * e->sum / e->n,
               100 * e->max);
}

/* Simulates every row with the fitted model and prints the errors, fitted
 * and held out, by rank count. */
static bool
report_errors(const HwSystem *system, const GArray *rows, uint32_t k, NetFidelity fidelity,
              GError **error)
{
    g_autoptr(TopoGraph) graph = topo_build_system(system, 1, error);
    if (graph == NULL)
        return false;
    g_autoptr(TopoRouter) router = topo_router_new(graph);
    Errors fitted = {0}, held = {0};
    for (guint i = 0; i < rows->len; i++) {
        const LoopRow *row = &g_array_index(rows, LoopRow, i);
        g_autoptr(CollComm) comm = coll_comm_new(system, graph, router, row->n_ranks, error);
        CollCall call = {.op = row->op, .n_bytes = row->n_bytes, .elem_bytes = 4};
        CollResult r;
        if (comm == NULL || !coll_run(comm, &call, fidelity, &r, error)) {
            g_prefix_error(error, "line %u: ", row->line);
            return false;
        }
        double err = ((double)r.time_ps / 1e6 - row->measured_us) / row->measured_us;
        errors_add(row->n_ranks == k ? &fitted : &held, err);
    }
    printf("Simulated with the fit (%s fidelity):\n",
           fidelity == NET_FIDELITY_PACKET ? "packet" : "flow");
    g_autofree char *what = g_strdup_printf("fitted (%u ranks)", k);
    errors_print(what, &fitted);
    errors_print("held out (the other rank counts)", &held);
    if (held.n == 0)
        printf("  (no held-out rows: measure another rank count to judge the fit)\n");
    return true;
}

int
cli_calibrate_loopback(const char *path, const char *system_id, uint32_t fit_ranks,
                       NetFidelity fidelity)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(SimCsv) csv = sim_csv_read(path, &error);
    CliRowColumns col;
    g_autoptr(HwSystem) system = csv != NULL && cli_rows_find_columns(csv, &col, &error)
                                     ? hw_system_load_by_id(system_id, hw_models_dir(), &error)
                                     : NULL;
    if (system == NULL) {
        cli_print_error("calibrate", error);
        return CLI_EXIT_BAD_INPUT;
    }
    if (system->loopback == NULL) {
        fprintf(stderr, "nvlsim calibrate: --system %s: not a loopback system (no [loopback])\n",
                system_id);
        return CLI_EXIT_BAD_INPUT;
    }
    g_autoptr(GArray) rows = read_rows(path, csv, &col, system_id);
    if (rows == NULL)
        return CLI_EXIT_BAD_INPUT;
    uint32_t k = fit_ranks;
    guint n_fit = 0;
    for (guint i = 0; i < rows->len; i++) {
        uint32_t n = g_array_index(rows, LoopRow, i).n_ranks;
        k = fit_ranks ? k : (k == 0 ? n : MIN(k, n));
    }
    for (guint i = 0; i < rows->len; i++)
        n_fit += g_array_index(rows, LoopRow, i).n_ranks == k;
    if (n_fit < 3) {
        fprintf(stderr,
                "nvlsim calibrate: %s: %u rows of %s on %u ranks: expected at least 3 (timed "
                "all_reduce or all_gather rows of nvlsim-bench loopback)\n",
                path, n_fit, system_id, k);
        return CLI_EXIT_BAD_INPUT;
    }
    if (!fit(system->loopback, rows, k)) {
        fprintf(stderr, "nvlsim calibrate: %s: the %u-rank rows do not determine a CTA rate\n",
                path, k);
        return CLI_EXIT_BAD_INPUT;
    }
    const HwLoopback *lb = system->loopback;
    printf("# nvlsim calibrate loopback: %s from %s, fitted on its %u rows of %u ranks "
           "(flag_latency %.1fns held)\n",
           system_id, path, n_fit, k, (double)lb->flag_latency_ps / 1e3);
    if (!report_errors(system, rows, k, fidelity, &error)) {
        cli_print_error("calibrate", error);
        return CLI_EXIT_BAD_INPUT;
    }
    printf("[loopback] of models/system/%s.ini:\n", system_id);
    printf("cta_bandwidth = %.6gGB/s\n", (double)lb->cta_bytes_per_s / 1e9);
    printf("step_overhead = %.1fns\n", (double)lb->step_overhead_ps / 1e3);
    printf("launch = %.1fns\n", (double)lb->launch_ps / 1e3);
    return CLI_EXIT_OK;
}
