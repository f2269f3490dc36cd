/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim compare --measured LOG: each test of an nccl-tests log (read by
 * judge-log.h, as validate reads it) beside the same calls simulated on
 * the log's system or on each of --systems: nccl-tests' bus bandwidth per
 * size, measured (out-of-place) and simulated, with the error; the curves
 * as CSV and a plot (series: "measured", then each system).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli-plot.h"
#include "cli/cli.h"
#include "coll/coll-run.h"
#include "core/core-csv.h"
#include "core/core-output.h"
#include "core/core-time.h"
#include "hw/hw-models.h"
#include "judge/judge-log.h"

/* nccl-tests' bus bandwidth of each row of t simulated on system, into
 * busbw[0 .. rows); false with an error. */
static bool
simulate_test(const JudgeLogTest *t, const char *system, double *busbw, GError **error)
{
    HwSystem *sys = hw_system_load_by_id(system, hw_models_dir(), error);
    if (sys == NULL)
        return false;
    g_autoptr(TopoWorld) fabric = NULL;
    g_autoptr(CollComm) comm = judge_log_test_comm(t, sys, &fabric, NULL, error);
    if (comm == NULL)
        return false;
    CollHarness h = judge_log_test_harness(t);
    double factor = coll_busbw_factor(t->op, t->n_ranks);
    for (guint i = 0; i < t->rows->len; i++) {
        const JudgeLogRow *row = &g_array_index(t->rows, JudgeLogRow, i);
        uint32_t elem = coll_dtype_bytes(row->type);
        if (elem == 0) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "line %u: type '%s': expected float, double, half, bfloat16, int8, "
                        "int32 or int64",
                        row->line, row->type);
            return false;
        }
        CollCall call = {.op = t->op, .n_bytes = row->bytes, .elem_bytes = elem};
        CollResult r;
        if (!coll_run(comm, &call, NET_FIDELITY_FLOW, &r, error))
            return false;
        double s = (double)coll_reported_ps(comm, &r, &h) / (double)SIM_PS_PER_S;
        busbw[i] = (double)row->bytes / s / 1e9 * factor;
    }
    return true;
}

/* The measured group of a row: out-of-place, else in-place. */
static int
group_of(const JudgeLogRow *row)
{
    return row->has[0] ? 0 : 1;
}

static void
print_test(const JudgeLog *log, const JudgeLogTest *t, char **systems, guint n, const double *busbw)
{
    printf("\n# %s:%u: %s on %u ranks", log->path, t->line, coll_op_name(t->op), t->n_ranks);
    if (t->n_hosts > 0)
        printf(" (%u hosts)", t->n_hosts);
    printf(", measured on %s%s%s; nccl-tests' busbw (GB/s), simulated at flow fidelity\n",
           t->device != NULL ? t->device : t->system, t->nccl_version ? ", NCCL " : "",
           t->nccl_version ? t->nccl_version : "");
    for (guint k = 0; k < t->stated->len; k++)
        printf("#   stated: %s\n", (const char *)t->stated->pdata[k]);
    printf("%12s %10s", "bytes", "measured");
    for (guint s = 0; s < n; s++)
        printf(" %14s %8s", systems[s], "error");
    printf("\n");
    for (guint i = 0; i < t->rows->len; i++) {
        const JudgeLogRow *row = &g_array_index(t->rows, JudgeLogRow, i);
        double measured = row->busbw[group_of(row)];
        printf("%12" G_GUINT64_FORMAT " %10.2f", row->bytes, measured);
        for (guint s = 0; s < n; s++) {
            double sim = busbw[(size_t)s * t->rows->len + i];
            if (measured > 0)
                printf(" %14.2f %+7.1f%%", sim, 100.0 * (sim - measured) / measured);
            else
                printf(" %14.2f %8s", sim, "-");
        }
        printf("\n");
    }
}

static void
put_curve(SimCsvWriter *w, const char *series, const JudgeLogTest *t, const double *busbw)
{
    for (guint i = 0; i < t->rows->len; i++) {
        const JudgeLogRow *row = &g_array_index(t->rows, JudgeLogRow, i);
        sim_csv_put(w, series);
        sim_csv_put_plain(w, "%" G_GUINT64_FORMAT ",%.4f", row->bytes,
                          busbw != NULL ? busbw[i] : row->busbw[group_of(row)]);
        sim_csv_end_row(w);
    }
}

int
cli_compare_measured(const char *path, const char *systems_text, const char *csv, const char *plot)
{
    g_autoptr(GError) error = NULL;
    uint32_t n_bad = 0;
    g_autoptr(JudgeLog) log = cli_log_open("compare", "--measured: ", path, NULL, &n_bad);
    if (log == NULL)
        return CLI_EXIT_BAD_INPUT;
    int status = n_bad > 0 ? CLI_EXIT_BAD_INPUT : CLI_EXIT_OK;
    if (log->tests->len == 0) {
        if (status == CLI_EXIT_OK)
            fprintf(stderr, "nvlsim compare: --measured: %s: no test to compare\n", path);
        return CLI_EXIT_BAD_INPUT;
    }
    char *tmp = NULL;
    FILE *out = csv != NULL ? sim_output_open(csv, &tmp, &error) : NULL;
    if (csv != NULL && out == NULL) {
        cli_print_error("compare", error);
        return CLI_EXIT_BAD_INPUT;
    }
    SimCsvWriter w = {.file = out};
    sim_csv_put_plain(&w, "system,size_bytes,busbw_GB_per_s");
    sim_csv_end_row(&w);
    printf("# nvlsim compare --measured: %s, %u test%s\n", path, log->tests->len,
           log->tests->len == 1 ? "" : "s");
    for (guint k = 0; k < log->tests->len && status != CLI_EXIT_USAGE; k++) {
        const JudgeLogTest *t = log->tests->pdata[k];
        g_auto(GStrv) systems =
            g_strsplit(systems_text != NULL ? systems_text : t->system, ",", -1);
        guint n = g_strv_length(systems);
        g_autofree double *busbw = g_new0(double, (size_t)n *MAX(t->rows->len, 1));
        bool ok = true;
        for (guint s = 0; s < n && ok; s++)
            if (!simulate_test(t, systems[s], busbw + (size_t)s * t->rows->len, &error)) {
                g_prefix_error(&error, "%s:%u: on %s: ", path, t->line, systems[s]);
                cli_print_error("compare", error);
                g_clear_error(&error);
                ok = false;
            }
        if (!ok) {
            status = CLI_EXIT_BAD_INPUT;
            continue;
        }
        print_test(log, t, systems, n, busbw);
        g_autofree char *prefix =
            log->tests->len > 1 ? g_strdup_printf("test %u: ", k + 1) : g_strdup("");
        g_autofree char *measured = g_strdup_printf("%smeasured", prefix);
        put_curve(&w, measured, t, NULL);
        for (guint s = 0; s < n; s++) {
            g_autofree char *series = g_strdup_printf("%s%s", prefix, systems[s]);
            put_curve(&w, series, t, busbw + (size_t)s * t->rows->len);
        }
    }
    if (out != NULL) {
        if (status != CLI_EXIT_OK) {
            sim_output_abandon(out, tmp);
            return status;
        }
        if (!sim_output_commit(out, tmp, csv, &error)) {
            cli_print_error("compare", error);
            return CLI_EXIT_BAD_INPUT;
        }
    }
    if (status == CLI_EXIT_OK && plot != NULL) {
        g_autofree char *title = g_path_get_basename(path);
        g_autofree char *full = g_strdup_printf("measured (%s) and simulated bus bandwidth", title);
        const char *const vars[] = {"plottitle", full, "series", "system", NULL};
        if (!cli_plot("compare", "busbw", csv, plot, vars))
            status = CLI_EXIT_BAD_INPUT;
    }
    return status;
}
