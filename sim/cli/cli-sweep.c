/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim sweep: a base scenario and axes over its keys (a sweep file; see
 * cli-sweep.h and the command's --help), every point of their cross
 * product simulated as nvlsim run would, on a pool of threads, one CSV row
 * per point. Rows are journaled in the output folder as points finish
 * (cli-sweep-out.c), so a killed sweep resumes with the points it lacks.
 *
 * Each point loads its own scenario and builds its own fabric and stream:
 * workers share only the read-only sweep and the output folder, so a row
 * depends on its point alone, never on --jobs or on which thread ran it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/core-output.h"
#include "topo/topo-world.h"
#include "cli/cli-run.h"
#include "cli/cli-plot.h"
#include "cli/cli-progress.h"
#include "cli/cli-sweep.h"
#include "cli/cli.h"
#include "core/core-text.h"
#include "core/core-time.h"
#include "core/core-units.h"
#include "hw/hw-keys.h"
#include "core/core-csv.h"
#include "work/work-run.h"
#include "work/work-scenario.h"

static void
axis_free(gpointer data)
{
    CliSweepAxis *axis = data;
    g_free(axis->key);
    g_strfreev(axis->values);
    g_free(axis);
}

void
cli_sweep_free(CliSweep *sweep)
{
    if (sweep == NULL)
        return;
    g_free(sweep->path);
    g_free(sweep->base_name);
    g_free(sweep->base_text);
    if (sweep->axes != NULL)
        g_ptr_array_free(sweep->axes, TRUE);
    work_cache_free(sweep->cache);
    g_free(sweep);
}

/* Every key of the base must be a scenario key: an axis cannot mend a
 * typo, which would make every point invalid. */
static bool
check_base_keys(const CliSweep *sweep, GKeyFile *base, GError **error)
{
    g_auto(GStrv) groups = g_key_file_get_groups(base, NULL);
    for (char **group = groups; *group != NULL; group++) {
        g_auto(GStrv) keys = g_key_file_get_keys(base, *group, NULL, NULL);
        for (char **key = keys; key != NULL && *key != NULL; key++) {
            g_autofree char *name = g_strdup_printf("%s.%s", *group, *key);
            if (!work_scenario_key_known(name))
                return hw_keys_failf(error, "%s: [sweep] base: %s: [%s] %s: unknown scenario key",
                                     sweep->path, sweep->base_name, *group, *key);
        }
    }
    return true;
}

/* [sweep] base: a scenario file relative to the sweep file's folder, or
 * "builtin" for nvlsim run's built-in study. */
static bool
load_base(CliSweep *sweep, GKeyFile *kf, GError **error)
{
    GError *local = NULL;
    g_autofree char *base = hw_keys_get_string(kf, "sweep", "base", &local);
    if (base == NULL && !g_error_matches(local, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND)) {
        hw_keys_failf(error, "%s: [sweep] base: %s", sweep->path, local->message);
        g_error_free(local);
        return false;
    }
    g_clear_error(&local);
    if (base == NULL || *g_strstrip(base) == '\0')
        return hw_keys_failf(
            error,
            "%s: [sweep] base: missing: a scenario file (relative to the sweep file's "
            "folder) or builtin",
            sweep->path);
    if (strcmp(base, "builtin") == 0) {
        sweep->base_name = g_strdup("(built-in)");
        sweep->base_text = g_strdup(work_scenario_default);
    } else {
        g_autofree char *dir = g_path_get_dirname(sweep->path);
        g_autofree char *file =
            g_path_is_absolute(base) ? g_strdup(base) : g_build_filename(dir, base, NULL);
        gsize length;
        if (!sim_text_read(file, "a scenario file", &sweep->base_text, &length, error)) {
            g_prefix_error(error, "%s: [sweep] base: ", sweep->path);
            return false;
        }
        sweep->base_name = g_path_get_basename(file);
    }
    g_autoptr(GKeyFile) parsed = g_key_file_new();
    if (!hw_keys_data_load(parsed, sweep->base_name, sweep->base_text, strlen(sweep->base_text),
                           error)) {
        g_prefix_error(error, "%s: [sweep] base: ", sweep->path);
        return false;
    }
    return check_base_keys(sweep, parsed, error);
}

/* The values of one axis: stripped, none empty, none twice. */
static bool
load_axis_values(const CliSweep *sweep, GKeyFile *kf, CliSweepAxis *axis, GError **error)
{
    gsize n = 0;
    GError *local = NULL;
    axis->values = hw_keys_get_string_list(kf, "axes", axis->key, &n, &local);
    if (local != NULL) {
        hw_keys_failf(error, "%s: [axes] %s: %s", sweep->path, axis->key, local->message);
        g_error_free(local);
        return false;
    }
    if (n == 0)
        return hw_keys_failf(
            error, "%s: [axes] %s: no values; expected a comma-separated list such as 1, 2, 4",
            sweep->path, axis->key);
    if (n > CLI_SWEEP_MAX_POINTS)
        return hw_keys_failf(error, "%s: [axes] %s: more than %u values", sweep->path, axis->key,
                             CLI_SWEEP_MAX_POINTS);
    axis->n_values = (uint32_t)n;
    for (gsize i = 0; i < n; i++) {
        g_strstrip(axis->values[i]);
        if (axis->values[i][0] == '\0')
            return hw_keys_failf(error, "%s: [axes] %s: value %zu of %zu is empty", sweep->path,
                                 axis->key, i + 1, n);
        for (gsize j = 0; j < i; j++)
            if (strcmp(axis->values[i], axis->values[j]) == 0)
                return hw_keys_failf(error, "%s: [axes] %s: value '%s' is given twice", sweep->path,
                                     axis->key, axis->values[i]);
    }
    return true;
}

/* [axes]: group.key = v1, v2, ... for scenario keys, each once. */
static bool
load_axes(CliSweep *sweep, GKeyFile *kf, GError **error)
{
    gsize n_keys = 0;
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "axes", &n_keys, NULL);
    if (n_keys == 0)
        return hw_keys_failf(
            error, "%s: [axes]: no axes; expected lines such as layout.tp = 1, 2, 4", sweep->path);
    uint64_t n_points = 1;
    for (gsize k = 0; k < n_keys; k++) {
        const char *key = keys[k];
        if (strchr(key, '.') == NULL)
            return hw_keys_failf(error, "%s: [axes] %s: expected group.key, such as layout.tp",
                                 sweep->path, key);
        if (!work_scenario_key_known(key))
            return hw_keys_failf(error,
                                 "%s: [axes] %s: unknown scenario key; see nvlsim run --help",
                                 sweep->path, key);
        for (gsize j = 0; j < k; j++)
            if (strcmp(keys[j], key) == 0)
                return hw_keys_failf(error, "%s: [axes] %s: given twice", sweep->path, key);
        CliSweepAxis *axis = g_new0(CliSweepAxis, 1);
        axis->key = g_strdup(key);
        g_ptr_array_add(sweep->axes, axis);
        if (!load_axis_values(sweep, kf, axis, error))
            return false;
        n_points *= axis->n_values;
        if (n_points > CLI_SWEEP_MAX_POINTS)
            return hw_keys_failf(error, "%s: [axes]: more than %u points", sweep->path,
                                 CLI_SWEEP_MAX_POINTS);
    }
    sweep->n_points = (uint32_t)n_points;
    return true;
}

/* Only [sweep] base and [axes]: a typo is an error, not a silent default. */
static bool
check_groups(const CliSweep *sweep, GKeyFile *kf, GError **error)
{
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    for (char **group = groups; *group != NULL; group++)
        if (strcmp(*group, "sweep") != 0 && strcmp(*group, "axes") != 0)
            return hw_keys_failf(error, "%s: [%s]: unknown group; expected [sweep] and [axes]",
                                 sweep->path, *group);
    if (!g_key_file_has_group(kf, "sweep"))
        return hw_keys_failf(error, "%s: [sweep]: missing group; expected base = SCENARIO.ini",
                             sweep->path);
    if (!g_key_file_has_group(kf, "axes"))
        return hw_keys_failf(error,
                             "%s: [axes]: missing group; expected lines such as layout.tp = 1, 2",
                             sweep->path);
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "sweep", NULL, NULL);
    for (char **key = keys; key != NULL && *key != NULL; key++)
        if (strcmp(*key, "base") != 0)
            return hw_keys_failf(error, "%s: [sweep] %s: unknown key; expected base", sweep->path,
                                 *key);
    return true;
}

static CliSweep *
sweep_load(const char *path, const char *data, gsize length, GError **error)
{
    g_autoptr(CliSweep) sweep = g_new0(CliSweep, 1);
    sweep->path = g_strdup(path);
    sweep->axes = g_ptr_array_new_with_free_func(axis_free);
    sweep->cache = work_cache_new();
    g_autoptr(GKeyFile) kf = hw_keys_open(path, "a sweep file", NULL, data, length, error);
    if (kf == NULL)
        return NULL;
    g_key_file_set_list_separator(kf, ',');
    if (!check_groups(sweep, kf, error) || !load_base(sweep, kf, error) ||
        !load_axes(sweep, kf, error))
        return NULL;
    return g_steal_pointer(&sweep);
}

CliSweep *
cli_sweep_load(const char *path, GError **error)
{
    return sweep_load(path, NULL, 0, error);
}

CliSweep *
cli_sweep_load_data(const char *data, gsize length, const char *path, GError **error)
{
    g_return_val_if_fail(data != NULL, NULL);
    return sweep_load(path, data, length, error);
}

const char *
cli_sweep_point_value(const CliSweep *sweep, uint32_t index, uint32_t a)
{
    g_return_val_if_fail(index < sweep->n_points && a < sweep->axes->len, NULL);
    /* Mixed radix, the last axis the fastest digit. */
    for (uint32_t b = sweep->axes->len - 1; b > a; b--) {
        const CliSweepAxis *axis = g_ptr_array_index(sweep->axes, b);
        index /= axis->n_values;
    }
    const CliSweepAxis *axis = g_ptr_array_index(sweep->axes, a);
    return axis->values[index % axis->n_values];
}

char **
cli_sweep_point_sets(const CliSweep *sweep, uint32_t index)
{
    char **sets = g_new0(char *, sweep->axes->len + 1);
    for (uint32_t a = 0; a < sweep->axes->len; a++) {
        const CliSweepAxis *axis = g_ptr_array_index(sweep->axes, a);
        sets[a] = g_strdup_printf("%s=%s", axis->key, cli_sweep_point_value(sweep, index, a));
    }
    return sets;
}

/* The result columns, after point, status, reason and one per axis. */
static const char result_header[] = "step_time_s,tokens_per_s,tflops_per_gpu,mfu,memory_gib,fits,"
                                    "compute_s,tp_s,pp_s,dp_s,ep_s,cp_s,idle_s,gpus,nodes,domains";
enum { N_RESULT_COLUMNS = 16 };

char *
cli_sweep_header(const CliSweep *sweep)
{
    GString *h = g_string_new(NULL);
    SimCsvWriter w = {.text = h};
    sim_csv_put_plain(&w, "point,status,reason");
    for (guint a = 0; a < sweep->axes->len; a++) {
        const CliSweepAxis *axis = g_ptr_array_index(sweep->axes, a);
        sim_csv_put_line(&w, axis->key);
    }
    sim_csv_put_plain(&w, "%s", result_header);
    return g_string_free(h, FALSE);
}

static double
seconds(uint64_t ps)
{
    return (double)ps / (double)SIM_PS_PER_S;
}

/* The result columns of a simulated point, as nvlsim run --csv prints
 * them; a replayed trace has no model, so no throughput or memory. */
static void
put_result(SimCsvWriter *w, const WorkScenario *s, const WorkRunResult *r)
{
    sim_csv_put_plain(w, "%.9f", r->step_s);
    if (s->trace_path == NULL)
        sim_csv_put_plain(w, "%.1f,%.3f,%.5f,%.4f,%d", r->tokens_per_s, r->tflops_per_gpu, r->mfu,
                          (double)r->memory.total_bytes / (1 << 30), r->fits);
    else
        sim_csv_put_plain(w, ",,,,");
    for (int k = 0; k < WORK_N_TIMES; k++)
        sim_csv_put_plain(w, "%.9f", seconds(r->replay.time_ps[k]));
    sim_csv_put_plain(w, "%u,%u,%u", r->n_gpus, r->n_hosts, r->n_domains);
}

/* Point index simulated, as its CSV row: a point that does not load or run
 * is a row too, "invalid" with the reason. */
char *
cli_sweep_point_row(const CliSweep *sweep, uint32_t index)
{
    g_auto(GStrv) sets = cli_sweep_point_sets(sweep, index);
    GError *error = NULL;
    g_autoptr(WorkScenario) s =
        work_scenario_load_data(sweep->base_text, sweep->base_name, sets, NULL, &error);
    g_autoptr(TopoWorld) fabric = NULL;
    WorkRunResult result = {0};
    bool ok = s != NULL && work_run_scenario(s, sweep->cache, &fabric, &result, NULL, &error);
    GString *row = g_string_new(NULL);
    SimCsvWriter w = {.text = row};
    sim_csv_put_plain(&w, "%u,%s", index, ok ? "ok" : "invalid");
    sim_csv_put_line(&w, ok ? NULL : error->message);
    for (uint32_t a = 0; a < sweep->axes->len; a++)
        sim_csv_put_line(&w, cli_sweep_point_value(sweep, index, a));
    if (ok) {
        put_result(&w, s, &result);
    } else {
        for (int c = 0; c < N_RESULT_COLUMNS; c++)
            sim_csv_put(&w, NULL);
    }
    sim_csv_end_row(&w);
    g_clear_error(&error);
    work_run_result_clear(&result);
    return g_string_free(row, FALSE);
}

/* What the workers share with the main thread. */
typedef struct SweepRun {
    const CliSweep *sweep;
    CliSweepOut *out;
    GMutex lock;
    GCond finished; /* signalled as each point finishes */
    uint32_t n_missing;
    uint32_t n_done; /* points finished by this run, written or skipped */
    GError *error;   /* the first failure to write a row; later points are skipped */
} SweepRun;

static void
run_point(gpointer data, gpointer user_data)
{
    SweepRun *run = user_data;
    uint32_t index = GPOINTER_TO_UINT(data) - 1;
    g_mutex_lock(&run->lock);
    bool stop = run->error != NULL;
    g_mutex_unlock(&run->lock);
    GError *error = NULL;
    if (!stop) {
        g_autofree char *row = cli_sweep_point_row(run->sweep, index);
        cli_sweep_out_put(run->out, index, row, &error);
    }
    g_mutex_lock(&run->lock);
    if (error != NULL && run->error == NULL)
        run->error = g_steal_pointer(&error);
    run->n_done++;
    g_cond_signal(&run->finished);
    g_mutex_unlock(&run->lock);
    g_clear_error(&error);
}

/* The order points are run in: visit k runs point k * stride mod n, the
 * stride the nearest to n / phi (the golden ratio) that is coprime with n,
 * so that every point is visited once and the first k visited spread
 * evenly over the grid, its slowest axis included. Points differ in cost
 * along the grid (in bench/sweep-gpt3-layouts.ini, tp 1's are a third of
 * the mean and GB200 NVL72's, the last system, three times it): run in
 * point order, the first finished are no sample of the rest, and an ETA
 * from their rate was about 3x short. Results do not depend on the order
 * (each row is its point's alone, results.csv is in point order). */
static uint32_t
visit_stride(uint32_t n)
{
    if (n <= 2)
        return 1;
    uint32_t stride = (uint32_t)((double)n * 0.6180339887498949 + 0.5);
    for (;; stride++) {
        uint32_t a = n, b = stride;
        while (b != 0) {
            uint32_t t = a % b;
            a = b;
            b = t;
        }
        if (a == 1)
            return stride;
    }
}

/* Runs the points the folder lacks on jobs threads; waits for them,
 * drawing progress when stderr is a terminal: the ETA is what is left at
 * the rate so far, which the visiting order makes a fair sample of. */
static bool
run_points(SweepRun *run, int jobs, GError **error)
{
    uint32_t n = run->sweep->n_points;
    for (uint32_t i = 0; i < n; i++)
        run->n_missing += !cli_sweep_out_has(run->out, i);
    if (run->n_missing == 0)
        return true;
    /* Error domains make their quark on first use (G_DEFINE_QUARK), a race
     * (benign, but a race) when two workers first fail at once: make them
     * before any worker starts. */
    hw_key_error_quark();
    sim_units_error_quark();
    g_file_error_quark();
    g_key_file_error_quark();
    GThreadPool *pool = g_thread_pool_new(run_point, run, jobs, FALSE, error);
    if (pool == NULL)
        return false;
    g_autoptr(CliProgress) progress = cli_progress_new("points", n);
    uint32_t stride = visit_stride(n);
    for (uint64_t k = 0; k < n; k++) {
        uint32_t i = (uint32_t)(k * stride % n);
        if (!cli_sweep_out_has(run->out, i))
            g_thread_pool_push(pool, GUINT_TO_POINTER(i + 1), NULL);
    }
    uint32_t n_found = cli_sweep_out_n_found(run->out);
    g_mutex_lock(&run->lock);
    while (run->n_done < run->n_missing) {
        cli_progress_update(progress, n_found + run->n_done, run->n_done, -1);
        g_cond_wait_until(&run->finished, &run->lock,
                          g_get_monotonic_time() + G_TIME_SPAN_SECOND / 4);
    }
    g_mutex_unlock(&run->lock);
    cli_progress_free(g_steal_pointer(&progress));
    g_thread_pool_free(pool, FALSE, TRUE);
    if (run->error != NULL) {
        g_propagate_error(error, run->error);
        run->error = NULL;
        return false;
    }
    return true;
}

typedef struct SweepOptions {
    char *out;
    char *jobs;
    char *plot;
    char *refine;
    char *rank_by;
} SweepOptions;

#define OPT(field) CLI_OPTION_AT(SweepOptions, field)

static const GOptionEntry sweep_entries[] = {
    {"out", 'o', 0, G_OPTION_ARG_FILENAME, OPT(out),
     "The output folder (created; a rerun resumes it)", "DIR"},
    {"jobs", 'j', 0, G_OPTION_ARG_STRING, OPT(jobs),
     "Points simulated at once (default: one per core)", "N"},
    {"refine", 0, 0, G_OPTION_ARG_STRING, OPT(refine),
     "Every point at the analytic tier (fidelity = analytic), then the best K again at the "
     "base's fidelity, both step times in DIR/refined.csv",
     "K"},
    {"rank-by", 0, 0, G_OPTION_ARG_STRING, OPT(rank_by),
     "The result column --refine ranks by (default tokens_per_s; smallest first for a time "
     "or memory column, _s but not _per_s, or _gib; else largest)",
     "COLUMN"},
    {"plot", 0, 0, G_OPTION_ARG_FILENAME, OPT(plot),
     "Draw results.csv as heat maps of step time over two axes with gnuplot (layout.tp "
     "and layout.pp when swept, else the first two), one panel per combination of the "
     "other axes' values",
     "FILE.png|FILE.svg|FILE.pdf"},
    G_OPTION_ENTRY_NULL,
};

const CliUsage cli_sweep_usage = {
    .args = "SWEEP.ini --out DIR",
    .summary =
        "Simulates a training step for every point of a sweep: a base scenario and axes over\n"
        "its keys, their cross product run on a pool of threads, one CSV row per point.",
    .description =
        "A sweep file:\n"
        "  [sweep]\n"
        "  base = gpt3-175b-dgx-h100.ini   # relative to this file's folder; or builtin\n"
        "  [axes]\n"
        "  scenario.system = dgx-a100, dgx-h100\n"
        "  layout.tp = 2, 4, 8\n"
        "  batch.micro_batch = 1, 2\n"
        "Axes are scenario keys as --set names them (group.key; nvlsim run --help lists\n"
        "them), each with a comma-separated list of values. Points are numbered from 0 in\n"
        "the order of the cross product, the first axis varying slowest.\n"
        "\n"
        "DIR/results.csv: columns point, status (ok | invalid), reason (why a point is\n"
        "invalid), one per axis named by its key, then step_time_s, tokens_per_s,\n"
        "tflops_per_gpu, mfu, memory_gib, fits, the mean time per GPU in compute_s, tp_s,\n"
        "pp_s, dp_s, ep_s, cp_s, idle_s (exposed communication, idle), gpus, nodes (hosts)\n"
        "and domains (NVLink domains); one row per point in point order, the same bytes whatever "
        "--jobs. A point that does not\n"
        "load or run is a row with its reason, not an error.\n"
        "\n"
        "Progress: when stderr is a terminal, one line there says points done of all,\n"
        "points a second and the time left at that rate, erased at the end. Points run\n"
        "in a scattered order (a golden-ratio stride through the grid), so that those\n"
        "done are a fair sample of the grid's costs and the time left tracks the real\n"
        "one; results.csv is in point order whatever the order they ran in.\n"
        "\n"
        "Resuming: each finished point is journaled in DIR/points/ (a file appears whole\n"
        "or not at all), so a sweep killed at any moment, rerun with the same --out,\n"
        "simulates only the points it lacks. DIR/sweep.ini records the sweep (the base\n"
        "scenario's hash, the axes): a folder holding another sweep is an error.\n"
        "\n"
        "Exit status: 0 done (invalid points included), 1 bad sweep file, base scenario or\n"
        "output folder, 2 usage.",
    .entries = sweep_entries,
};

/* How many of the best points --refine confirms, and by what. */
typedef struct SweepRefine {
    uint32_t k; /* 0: no refinement */
    const char *rank_by;
} SweepRefine;

static int
sweep(const char *path, const char *dir, int jobs, const SweepRefine *refine)
{
    if (cli_sweep_mpi_launched() && refine->k > 0) {
        fprintf(stderr, "nvlsim sweep: --refine runs on one machine: expected no mpirun\n");
        return CLI_EXIT_USAGE;
    }
    if (cli_sweep_mpi_launched())
        return cli_sweep_mpi(path, dir, jobs);
    if (refine->k > 0) {
        g_auto(GStrv) columns = g_strsplit(result_header, ",", -1);
        if (!g_strv_contains((const char *const *)columns, refine->rank_by)) {
            fprintf(stderr, "nvlsim sweep: --rank-by: '%s': expected a result column: %s\n",
                    refine->rank_by, result_header);
            return CLI_EXIT_USAGE;
        }
    }
    GError *error = NULL;
    g_autoptr(CliSweep) sweep = cli_sweep_load(path, &error);
    g_autofree char *event_base = NULL;
    bool analytic =
        sweep != NULL && (refine->k == 0 || cli_sweep_set_analytic(sweep, &event_base, &error));
    g_autoptr(CliSweepOut) out = analytic ? cli_sweep_out_open(dir, sweep, &error) : NULL;
    SweepRun run = {.sweep = sweep, .out = out};
    g_mutex_init(&run.lock);
    g_cond_init(&run.finished);
    gint64 t0 = g_get_monotonic_time();
    g_autofree char *header = sweep != NULL ? cli_sweep_header(sweep) : NULL;
    uint32_t n_ok = 0;
    bool ok = out != NULL && run_points(&run, jobs, &error) &&
              cli_sweep_out_finish(out, header, &n_ok, &error);
    g_mutex_clear(&run.lock);
    g_cond_clear(&run.finished);
    if (!ok) {
        cli_print_error("sweep", error);
        g_error_free(error);
        return CLI_EXIT_BAD_INPUT;
    }
    double wall_s = (double)(g_get_monotonic_time() - t0) / 1e6;
    printf("%s: %u points, %u ok, %u invalid; %u simulated now in %.2f s (%.2f points/s on %d "
           "thread%s), %u from an earlier run\n",
           cli_sweep_out_results_path(out), sweep->n_points, n_ok, sweep->n_points - n_ok,
           run.n_missing, wall_s, wall_s > 0 ? run.n_missing / wall_s : 0.0, jobs,
           jobs == 1 ? "" : "s", cli_sweep_out_n_found(out));
    if (refine->k == 0)
        return CLI_EXIT_OK;
    t0 = g_get_monotonic_time();
    uint32_t n_refined = 0;
    if (!cli_sweep_refine(sweep, event_base, dir, cli_sweep_out_results_path(out), refine->k,
                          refine->rank_by, jobs, &n_refined, &error)) {
        cli_print_error("sweep", error);
        g_error_free(error);
        return CLI_EXIT_BAD_INPUT;
    }
    g_autofree char *refined = g_build_filename(dir, "refined.csv", NULL);
    printf("%s: the best %u points by %s simulated again at the base's fidelity in %.2f s\n",
           refined, n_refined, refine->rank_by, (double)(g_get_monotonic_time() - t0) / 1e6);
    return CLI_EXIT_OK;
}

/* The heat map's axes: layout.tp across and layout.pp up when both are
 * axes; else the first two axes that take more than one value, the first
 * axes filling in when fewer do. */
static void
heatmap_axes(const CliSweep *sweep, int *x, int *y)
{
    *x = *y = -1;
    for (guint a = 0; a < sweep->axes->len; a++) {
        const CliSweepAxis *axis = sweep->axes->pdata[a];
        if (strcmp(axis->key, "layout.tp") == 0)
            *x = (int)a;
        if (strcmp(axis->key, "layout.pp") == 0)
            *y = (int)a;
    }
    if (*x >= 0 && *y >= 0)
        return;
    *x = *y = -1;
    for (int pass = 0; pass < 2; pass++)
        for (guint a = 0; a < sweep->axes->len && *y < 0; a++) {
            const CliSweepAxis *axis = sweep->axes->pdata[a];
            if ((pass == 0) != (axis->n_values > 1) || (int)a == *x)
                continue;
            if (*x < 0)
                *x = (int)a;
            else
                *y = (int)a;
        }
}

/* The heat map of results.csv (axes by heatmap_axes), in small multiples:
 * one panel per combination of the other axes' values (those that take
 * more than one), so that a cell is one point. */
static int
plot_sweep(const char *path, const char *dir, const char *plot_path)
{
    GError *error = NULL;
    g_autoptr(CliSweep) sweep = cli_sweep_load(path, &error);
    if (sweep == NULL) {
        cli_print_error("sweep", error);
        g_error_free(error);
        return CLI_EXIT_BAD_INPUT;
    }
    int x, y;
    heatmap_axes(sweep, &x, &y);
    g_autoptr(GString) facets = g_string_new(NULL);
    for (guint a = 0; a < sweep->axes->len; a++) {
        const CliSweepAxis *axis = sweep->axes->pdata[a];
        if ((int)a != x && (int)a != y && axis->n_values > 1)
            g_string_append_printf(facets, "%s%s", facets->len ? " " : "", axis->key);
    }
    g_autofree char *csv = g_build_filename(dir, "results.csv", NULL);
    g_autofree char *title = g_strdup_printf("nvlsim sweep: %s", path);
    const char *x_key = ((const CliSweepAxis *)sweep->axes->pdata[x])->key;
    const char *y_key = ((const CliSweepAxis *)sweep->axes->pdata[y])->key;
    const char *const vars[] = {"plottitle", title,    "xcol",      x_key, "ycol",
                                y_key,       "facets", facets->str, NULL};
    return cli_plot("sweep", "heatmap", csv, plot_path, vars) ? CLI_EXIT_OK : CLI_EXIT_BAD_INPUT;
}

/* What --plot needs, checked before the sweep runs: two axes, and a
 * plot file that can be written. */
static bool
plot_possible(const char *path, const char *plot_path)
{
    GError *error = NULL;
    g_autoptr(CliSweep) sweep = cli_sweep_load(path, &error);
    if (sweep != NULL && sweep->axes->len < 2) {
        fprintf(stderr, "nvlsim sweep: --plot: a heat map needs two axes, %s has %u\n", path,
                sweep->axes->len);
        return false;
    }
    if (sweep == NULL || !sim_output_check(plot_path, &error)) {
        cli_print_error("sweep", error);
        g_error_free(error);
        return false;
    }
    return true;
}

static bool
parse_jobs(const char *text, int *jobs)
{
    guint64 n = g_get_num_processors();
    g_autoptr(GError) error = NULL;
    if (text != NULL && !g_ascii_string_to_unsigned(text, 10, 1, 4096, &n, &error)) {
        fprintf(stderr, "nvlsim sweep: --jobs: %s\n", error->message);
        return false;
    }
    *jobs = (int)n;
    return true;
}

int
cli_sweep(int argc, char **argv)
{
    SweepOptions o = {0};
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_sweep_usage, &o);
    int status = CLI_EXIT_USAGE;
    int jobs = 1;
    guint64 refine_k = 0;
    if (!cli_parse_options(context, "sweep", &argc, &argv) || !parse_jobs(o.jobs, &jobs)) {
        status = CLI_EXIT_USAGE;
    } else if (argc != 2) {
        fprintf(stderr, "nvlsim sweep: expected one SWEEP.ini, got %d arguments\n", argc - 1);
    } else if (o.out == NULL) {
        fprintf(stderr, "nvlsim sweep: --out DIR is required\n");
    } else if (o.plot != NULL && !cli_plot_check("sweep", o.plot)) {
        status = CLI_EXIT_USAGE;
    } else if (o.plot != NULL && !plot_possible(argv[1], o.plot)) {
        status = CLI_EXIT_BAD_INPUT;
    } else if (o.refine != NULL && (!g_ascii_string_to_unsigned(
                                       o.refine, 10, 1, CLI_SWEEP_MAX_POINTS, &refine_k, NULL))) {
        fprintf(stderr, "nvlsim sweep: --refine: '%s': expected a number of points from 1\n",
                o.refine);
    } else if (o.rank_by != NULL && o.refine == NULL) {
        fprintf(stderr, "nvlsim sweep: --rank-by ranks the points --refine confirms: expected "
                        "--refine K with it\n");
    } else {
        SweepRefine refine = {.k = (uint32_t)refine_k,
                              .rank_by = o.rank_by != NULL ? o.rank_by : "tokens_per_s"};
        status = sweep(argv[1], o.out, jobs, &refine);
        if (status == CLI_EXIT_OK && o.plot != NULL)
            status = plot_sweep(argv[1], o.out, o.plot);
    }
    g_free(o.out);
    g_free(o.jobs);
    g_free(o.plot);
    g_free(o.refine);
    g_free(o.rank_by);
    return status;
}
