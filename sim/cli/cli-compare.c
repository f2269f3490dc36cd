/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim compare: one scenario on several systems, side by side (by
 * default one of each generation: Pascal, Volta, Ampere, Hopper,
 * Blackwell), and an all-reduce size sweep on one node of each.
 *
 * The training table gives each system's step time, its speed-up over the
 * first system that ran, tokens/s, MFU, memory per GPU and whether it
 * fits, and where the time went. A system where the scenario cannot run
 * (fp8 on a GPU without it, a layout its nodes cannot hold) is a row with
 * its reason, not an error. The collective table gives nccl-tests' bus
 * bandwidth per size and system.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core-output.h"
#include "topo/topo-world.h"
#include "cli/cli-plot.h"
#include "cli/cli-run.h"
#include "cli/cli.h"
#include "coll/coll-run.h"
#include "core/core-time.h"
#include "core/core-csv.h"
#include "work/work-run.h"

#define DEFAULT_SYSTEMS "dgx1-p100,dgx1-v100,dgx-a100,dgx-h100,dgx-b200"

typedef struct CompareOptions {
    char *systems;
    char **sets;
    char *csv;
    char *coll_csv;
    char *min_bytes, *max_bytes;
    char *plot, *coll_plot;
    char *measured;
    gboolean no_coll;
} CompareOptions;

#define OPT(field) CLI_OPTION_AT(CompareOptions, field)

static const GOptionEntry compare_entries[] = {
    {"systems", 's', 0, G_OPTION_ARG_STRING, OPT(systems),
     "Systems to compare, comma-separated (default " DEFAULT_SYSTEMS ")", "A,B,..."},
    {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, OPT(sets),
     "Override a scenario key on every system (layout.tp=4); repeatable", "KEY=VALUE"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, OPT(csv), "Write the training table as CSV", "FILE"},
    {"coll-csv", 0, 0, G_OPTION_ARG_FILENAME, OPT(coll_csv), "Write the all-reduce sweep as CSV",
     "FILE"},
    {"minbytes", 'b', 0, G_OPTION_ARG_STRING, OPT(min_bytes), "Smallest all-reduce (default 1MiB)",
     "SIZE"},
    {"maxbytes", 'e', 0, G_OPTION_ARG_STRING, OPT(max_bytes), "Largest all-reduce (default 1GiB)",
     "SIZE"},
    {"no-coll", 0, 0, G_OPTION_ARG_NONE, OPT(no_coll), "Skip the all-reduce sweep", NULL},
    {"measured", 0, 0, G_OPTION_ARG_FILENAME, OPT(measured),
     "Instead of a scenario: each test of an nccl-tests log (as validate reads it) beside the "
     "same calls simulated on its system, or on each of --systems; --coll-csv and --coll-plot "
     "take the curves",
     "LOG"},
    {"plot", 0, 0, G_OPTION_ARG_FILENAME, OPT(plot),
     "Plot the step time per system with gnuplot (the CSV goes beside it without --csv)",
     "FILE.png|FILE.svg|FILE.pdf"},
    {"coll-plot", 0, 0, G_OPTION_ARG_FILENAME, OPT(coll_plot),
     "Plot the all-reduce bus bandwidth per size and system (the CSV beside it without "
     "--coll-csv)",
     "FILE.png|FILE.svg|FILE.pdf"},
    G_OPTION_ENTRY_NULL,
};

const CliUsage cli_compare_usage = {
    .args = "[SCENARIO.ini] | --measured LOG",
    .summary = "Runs one training scenario (default: the built-in study of nvlsim run) on\n"
               "several systems and an all-reduce size sweep on one node of each.",
    .description = "The scenario's own system is replaced by each of --systems; its nodes are as\n"
                   "many as the layout needs. With --measured, nccl-tests' output (text or\n"
                   "-J JSON, as nvlsim validate takes it): each test's bus bandwidth per size,\n"
                   "measured and simulated with the same ranks and hosts, and the error.\n"
                   "Exit status: 0 done (rows that cannot run say why),\n"
                   "1 bad scenario, system or log, 2 usage.",
    .entries = compare_entries,
};

typedef struct Row {
    char *system;
    char *reason; /* NULL when it ran */
    WorkRunResult result;
    uint32_t n_nodes;
    char *gpu;
    uint64_t hbm_bytes;
} Row;

static void
row_clear(Row *row)
{
    g_free(row->system);
    g_free(row->reason);
    g_free(row->gpu);
    work_run_result_clear(&row->result);
}

/* The scenario on one system: the overrides, then system=. */
static void
run_on(const char *path, char **sets, const char *system, Row *row)
{
    row->system = g_strdup(system);
    GPtrArray *all = g_ptr_array_new_with_free_func(g_free);
    for (char **s = sets; s != NULL && *s != NULL; s++)
        g_ptr_array_add(all, g_strdup(*s));
    g_ptr_array_add(all, g_strdup_printf("scenario.system=%s", system));
    g_ptr_array_add(all, NULL);
    GError *error = NULL;
    g_autoptr(WorkScenario) s = work_scenario_load(path, (char **)all->pdata, NULL, &error);
    g_autoptr(TopoWorld) fabric = NULL;
    if (s == NULL || !work_run_scenario(s, NULL, &fabric, &row->result, NULL, &error)) {
        row->reason = g_strdup(error->message);
        g_error_free(error);
    } else {
        row->n_nodes = row->result.n_hosts;
        row->gpu = g_strdup(fabric->system->gpu->name);
        row->hbm_bytes = fabric->system->gpu->hbm_bytes;
    }
    g_ptr_array_unref(all);
}

static double
share(const Row *row, WorkTime t)
{
    return row->result.replay.step_ps > 0
               ? 100.0 * (double)row->result.replay.time_ps[t] / (double)row->result.replay.step_ps
               : 0.0;
}

static void
print_rows(const Row *rows, guint n, double base_s)
{
    printf("%-12s %-18s %5s %10s %8s %10s %6s %9s %5s  %s\n", "system", "gpu", "gpus", "step_s",
           "speedup", "tokens/s", "mfu_%", "mem_GiB", "fits", "% compute tp pp dp ep cp idle");
    for (guint i = 0; i < n; i++) {
        const Row *r = &rows[i];
        if (r->reason != NULL) {
            printf("%-12s cannot run: %s\n", r->system, r->reason);
            continue;
        }
        const WorkRunResult *w = &r->result;
        printf("%-12s %-18s %5u %10.3f %7.2fx %10.0f %6.1f %9.2f %5s  %.0f %.0f %.0f %.0f %.0f "
               "%.0f %.0f\n",
               r->system, r->gpu, w->n_gpus, w->step_s, base_s / w->step_s, w->tokens_per_s,
               100.0 * w->mfu, (double)w->memory.total_bytes / (1 << 30), w->fits ? "yes" : "no",
               share(r, WORK_TIME_COMPUTE), share(r, WORK_TIME_TP), share(r, WORK_TIME_PP),
               share(r, WORK_TIME_DP), share(r, WORK_TIME_EP), share(r, WORK_TIME_CP),
               share(r, WORK_TIME_IDLE));
    }
}

static bool
write_rows(const char *path, const Row *rows, guint n, double base_s, GError **error)
{
    char *tmp = NULL;
    FILE *out = sim_output_open(path, &tmp, error);
    if (out == NULL)
        return false;
    SimCsvWriter csv = {.file = out};
    sim_csv_put_plain(&csv, "system,gpu,gpus,nodes,status,reason,step_time_s,speedup,"
                            "tokens_per_s,tflops_per_gpu,mfu,memory_gib,hbm_gib,fits");
    for (int k = 0; k < WORK_N_TIMES; k++)
        sim_csv_put_plain(&csv, "%s_s", work_time_name(k));
    sim_csv_end_row(&csv);
    for (guint i = 0; i < n; i++) {
        const Row *r = &rows[i];
        sim_csv_put(&csv, r->system);
        if (r->reason != NULL) {
            sim_csv_put_plain(&csv, ",,,invalid");
            sim_csv_put_line(&csv, r->reason);
            sim_csv_put_plain(&csv, ",,,,,,,");
            for (int k = 0; k < WORK_N_TIMES; k++)
                sim_csv_put(&csv, NULL);
            sim_csv_end_row(&csv);
            continue;
        }
        const WorkRunResult *w = &r->result;
        sim_csv_put(&csv, r->gpu);
        sim_csv_put_plain(&csv, "%u,%u,ok,,%.9f,%.4f,%.1f,%.3f,%.5f,%.4f,%.4f,%d", w->n_gpus,
                          r->n_nodes, w->step_s, base_s / w->step_s, w->tokens_per_s,
                          w->tflops_per_gpu, w->mfu, (double)w->memory.total_bytes / (1 << 30),
                          (double)r->hbm_bytes / (1 << 30), w->fits);
        for (int k = 0; k < WORK_N_TIMES; k++)
            sim_csv_put_plain(&csv, "%.9f", (double)w->replay.time_ps[k] / (double)SIM_PS_PER_S);
        sim_csv_end_row(&csv);
    }
    return sim_output_commit(out, tmp, path, error);
}

/* All-reduce bus bandwidth (GB/s) on one node of each system, per size. */
static bool
coll_sweep(char **systems, uint64_t min_bytes, uint64_t max_bytes, const char *csv, GError **error)
{
    guint n = g_strv_length(systems);
    g_autoptr(GArray) sizes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    for (uint64_t b = min_bytes; b <= max_bytes; b *= 4)
        g_array_append_val(sizes, b);
    g_autofree double *busbw = g_new0(double, (size_t)n * sizes->len);
    for (guint s = 0; s < n; s++) {
        g_autoptr(TopoWorld) f = topo_world_load(systems[s], 1, NULL, error);
        if (f == NULL)
            return false;
        g_autoptr(CollComm) comm =
            coll_comm_new(f->system, f->graph, f->router, f->system->n_gpus, error);
        if (comm == NULL)
            return false;
        for (guint i = 0; i < sizes->len; i++) {
            uint64_t bytes = g_array_index(sizes, uint64_t, i);
            CollCall call = {.op = COLL_OP_ALL_REDUCE, .n_bytes = bytes, .elem_bytes = 4};
            CollResult r;
            if (!coll_run(comm, &call, NET_FIDELITY_FLOW, &r, error))
                return false;
            CollHarness h = COLL_HARNESS_DEFAULT;
            busbw[(size_t)s * sizes->len + i] =
                (double)bytes / ((double)coll_reported_ps(comm, &r, &h) / (double)SIM_PS_PER_S) /
                1e9 * coll_busbw_factor(COLL_OP_ALL_REDUCE, comm->n_ranks);
        }
    }
    printf("\n# all_reduce bus bandwidth (GB/s, nccl-tests' busbw) on one node of each "
           "system\n%12s",
           "bytes");
    for (guint s = 0; s < n; s++)
        printf(" %12s", systems[s]);
    printf("\n");
    for (guint i = 0; i < sizes->len; i++) {
        printf("%12" G_GUINT64_FORMAT, g_array_index(sizes, uint64_t, i));
        for (guint s = 0; s < n; s++)
            printf(" %12.2f", busbw[(size_t)s * sizes->len + i]);
        printf("\n");
    }
    if (csv == NULL)
        return true;
    char *tmp = NULL;
    FILE *out = sim_output_open(csv, &tmp, error);
    if (out == NULL)
        return false;
    SimCsvWriter w = {.file = out};
    sim_csv_put_plain(&w, "system,size_bytes,busbw_GB_per_s");
    sim_csv_end_row(&w);
    for (guint s = 0; s < n; s++)
        for (guint i = 0; i < sizes->len; i++) {
            sim_csv_put(&w, systems[s]);
            sim_csv_put_plain(&w, "%" G_GUINT64_FORMAT ",%.4f", g_array_index(sizes, uint64_t, i),
                              busbw[(size_t)s * sizes->len + i]);
            sim_csv_end_row(&w);
        }
    return sim_output_commit(out, tmp, csv, error);
}

static int
compare(const CompareOptions *o, const char *path)
{
    g_auto(GStrv) systems = g_strsplit(o->systems ? o->systems : DEFAULT_SYSTEMS, ",", -1);
    guint n = g_strv_length(systems);
    GError *error = NULL;
    uint64_t min_bytes = 1 << 20, max_bytes = UINT64_C(1) << 30;
    if (n == 0 || (o->min_bytes && !cli_parse_size("minbytes", o->min_bytes, &min_bytes, &error)) ||
        (o->max_bytes && !cli_parse_size("maxbytes", o->max_bytes, &max_bytes, &error))) {
        if (error == NULL)
            fprintf(stderr, "nvlsim compare: --systems: expected at least one system\n");
        else
            cli_print_error("compare", error);
        g_clear_error(&error);
        return CLI_EXIT_USAGE;
    }
    /* The scenario itself must load (with its own system) before it is
     * moved: a bad file is bad input, not a row. */
    g_autoptr(WorkScenario) check = work_scenario_load(path, o->sets, NULL, &error);
    if (check == NULL) {
        cli_print_error("compare", error);
        g_error_free(error);
        return CLI_EXIT_BAD_INPUT;
    }
    printf("# nvlsim compare: %s on %u systems\n", check->name, n);
    Row *rows = g_new0(Row, n);
    double base_s = 0;
    for (guint i = 0; i < n; i++) {
        run_on(path, o->sets, systems[i], &rows[i]);
        if (rows[i].reason == NULL && base_s == 0)
            base_s = rows[i].result.step_s;
    }
    print_rows(rows, n, base_s);
    int status = CLI_EXIT_OK;
    if (o->csv != NULL && !write_rows(o->csv, rows, n, base_s, &error))
        status = CLI_EXIT_BAD_INPUT;
    if (status == CLI_EXIT_OK && !o->no_coll &&
        !coll_sweep(systems, min_bytes, max_bytes, o->coll_csv, &error))
        status = CLI_EXIT_BAD_INPUT;
    if (status != CLI_EXIT_OK) {
        cli_print_error("compare", error);
        g_error_free(error);
    }
    if (status == CLI_EXIT_OK && o->plot != NULL) {
        g_autofree char *title = g_strdup_printf("nvlsim compare: %s", check->name);
        const char *const vars[] = {"plottitle", title, NULL};
        if (!cli_plot("compare", "compare", o->csv, o->plot, vars))
            status = CLI_EXIT_BAD_INPUT;
    }
    if (status == CLI_EXIT_OK && o->coll_plot != NULL && !o->no_coll) {
        const char *const vars[] = {"plottitle", "all_reduce bus bandwidth on one node", "series",
                                    "system", NULL};
        if (!cli_plot("compare", "busbw", o->coll_csv, o->coll_plot, vars))
            status = CLI_EXIT_BAD_INPUT;
    }
    for (guint i = 0; i < n; i++)
        row_clear(&rows[i]);
    g_free(rows);
    return status;
}

int
cli_compare(int argc, char **argv)
{
    CompareOptions o = {0};
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_compare_usage, &o);
    int status;
    if (!cli_parse_options(context, "compare", &argc, &argv)) {
        status = CLI_EXIT_USAGE;
    } else if (argc > 2) {
        fprintf(stderr, "nvlsim compare: expected at most one SCENARIO.ini, got %d arguments\n",
                argc - 1);
        status = CLI_EXIT_USAGE;
    } else if (o.measured != NULL &&
               (argc > 1 || o.sets != NULL || o.csv != NULL || o.plot != NULL || o.no_coll ||
                o.min_bytes != NULL || o.max_bytes != NULL)) {
        fprintf(stderr, "nvlsim compare: --measured compares a log's sizes: expected no "
                        "SCENARIO.ini, --set, --csv, --plot, --no-coll, -b or -e with it\n");
        status = CLI_EXIT_USAGE;
    } else if ((o.plot != NULL && !cli_plot_csv("compare", o.plot, &o.csv)) ||
               (o.coll_plot != NULL && !cli_plot_csv("compare", o.coll_plot, &o.coll_csv))) {
        status = CLI_EXIT_USAGE;
    } else if (o.measured != NULL) {
        status = cli_compare_measured(o.measured, o.systems, o.coll_csv, o.coll_plot);
    } else {
        status = compare(&o, argc == 2 ? argv[1] : NULL);
    }
    g_free(o.systems);
    g_strfreev(o.sets);
    g_free(o.csv);
    g_free(o.coll_csv);
    g_free(o.min_bytes);
    g_free(o.max_bytes);
    g_free(o.plot);
    g_free(o.coll_plot);
    g_free(o.measured);
    return status;
}
