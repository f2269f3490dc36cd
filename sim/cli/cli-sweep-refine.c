/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim sweep --refine K: every point at the analytic tier (each call its
 * time alone, no shared network: work-replay.h), then the best K again at
 * the base scenario's own fidelity, the two step times side by side in
 * DIR/refined.csv, so that a search over many layouts costs the analytic
 * tier and its answer is confirmed by the event tier.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli-sweep.h"
#include "cli/cli.h"
#include "core/core-output.h"
#include "core/core-csv.h"

bool
cli_sweep_set_analytic(CliSweep *sweep, char **event_base, GError **error)
{
    for (guint a = 0; a < sweep->axes->len; a++) {
        const CliSweepAxis *axis = sweep->axes->pdata[a];
        if (strcmp(axis->key, "scenario.fidelity") == 0) {
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "%s: [axes] scenario.fidelity: --refine runs the points at the analytic "
                        "tier and the best at the base's fidelity; expected no fidelity axis",
                        sweep->path);
            return false;
        }
    }
    g_autoptr(GKeyFile) kf = g_key_file_new();
    if (!g_key_file_load_from_data(kf, sweep->base_text, (gsize)-1, G_KEY_FILE_NONE, error))
        return false;
    g_key_file_set_string(kf, "scenario", "fidelity", "analytic");
    *event_base = sweep->base_text;
    sweep->base_text = g_key_file_to_data(kf, NULL, NULL);
    return true;
}

/* Whether a smaller value of column ranks first: times ("_s", not rates
 * "_per_s") and memory ("_gib"). */
static bool
smaller_first(const char *column)
{
    return (g_str_has_suffix(column, "_s") && !g_str_has_suffix(column, "_per_s")) ||
           g_str_has_suffix(column, "_gib");
}

typedef struct Ranked {
    uint32_t point;
    double value, analytic_s;
} Ranked;

static int
by_value(const void *a, const void *b, void *ctx)
{
    const Ranked *x = a, *y = b;
    bool smaller = *(const bool *)ctx;
    if (x->value != y->value)
        return (x->value < y->value) == smaller ? -1 : 1;
    return x->point < y->point ? -1 : 1;
}

/* The ok points of results.csv by rank_by, best first. */
static GArray *
rank_points(const char *results, const char *rank_by, GError **error)
{
    g_autoptr(SimCsv) csv = sim_csv_read(results, error);
    if (csv == NULL)
        return NULL;
    int c_point = sim_csv_column(csv, "point"), c_status = sim_csv_column(csv, "status");
    int c_rank = sim_csv_column(csv, rank_by), c_time = sim_csv_column(csv, "step_time_s");
    if (c_rank < 0 || strcmp(rank_by, "point") == 0 || strcmp(rank_by, "status") == 0 ||
        strcmp(rank_by, "reason") == 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--rank-by: '%s': expected a result column of %s (tokens_per_s, "
                    "step_time_s, mfu, memory_gib ...)",
                    rank_by, results);
        return NULL;
    }
    GArray *ranked = g_array_new(FALSE, FALSE, sizeof(Ranked));
    for (guint r = 0; r < csv->rows->len; r++) {
        char *end;
        Ranked x = {.point = (uint32_t)strtoul(sim_csv_field(csv, r, c_point), NULL, 10)};
        x.value = g_ascii_strtod(sim_csv_field(csv, r, c_rank), &end);
        x.analytic_s = g_ascii_strtod(sim_csv_field(csv, r, c_time), NULL);
        if (strcmp(sim_csv_field(csv, r, c_status), "ok") == 0 && *end == '\0' &&
            end != sim_csv_field(csv, r, c_rank) && isfinite(x.value))
            g_array_append_val(ranked, x);
    }
    bool smaller = smaller_first(rank_by);
    g_array_sort_with_data(ranked, by_value, &smaller);
    return ranked;
}

typedef struct RefineJob {
    const CliSweep *sweep; /* with the event tier's base */
    const Ranked *point;
    char *row;
} RefineJob;

static void
refine_point(gpointer data, gpointer user_data)
{
    (void)user_data;
    RefineJob *job = data;
    job->row = cli_sweep_point_row(job->sweep, job->point->point);
}

/* The step time of a point's row (the column after the axes). */
static double
row_step_s(const char *header, const char *row)
{
    g_autofree char *text = g_strconcat(header, "\n", row, NULL);
    g_autoptr(SimCsv) csv = sim_csv_read_data(text, strlen(text), "row", NULL);
    if (csv == NULL || csv->rows->len != 1)
        return NAN;
    const char *field = sim_csv_field(csv, 0, sim_csv_column(csv, "step_time_s"));
    return *field != '\0' ? g_ascii_strtod(field, NULL) : NAN;
}

bool
cli_sweep_refine(const CliSweep *sweep, const char *event_base, const char *dir,
                 const char *results, uint32_t k, const char *rank_by, int jobs,
                 uint32_t *n_refined, GError **error)
{
    g_autoptr(GArray) ranked = rank_points(results, rank_by, error);
    if (ranked == NULL)
        return false;
    uint32_t n = MIN(k, ranked->len);
    CliSweep event = *sweep;
    event.base_text = (char *)event_base;
    g_autofree RefineJob *job = g_new0(RefineJob, MAX(n, 1));
    GThreadPool *pool = g_thread_pool_new(refine_point, NULL, jobs, FALSE, error);
    if (pool == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        job[i] = (RefineJob){.sweep = &event, .point = &g_array_index(ranked, Ranked, i)};
        g_thread_pool_push(pool, &job[i], NULL);
    }
    g_thread_pool_free(pool, FALSE, TRUE);
    g_autofree char *header = cli_sweep_header(sweep);
    g_autofree char *path = g_build_filename(dir, "refined.csv", NULL);
    char *tmp = NULL;
    FILE *f = sim_output_open(path, &tmp, error);
    if (f != NULL) {
        fprintf(f, "rank,%s,analytic_step_time_s,event_over_analytic,%s\n", rank_by, header);
        for (uint32_t i = 0; i < n; i++) {
            double event_s = row_step_s(header, job[i].row);
            fprintf(f, "%u,%.9g,%.9f,%.6f,%s", i + 1, job[i].point->value,
                    job[i].point->analytic_s, event_s / job[i].point->analytic_s, job[i].row);
        }
    }
    for (uint32_t i = 0; i < n; i++)
        g_free(job[i].row);
    *n_refined = n;
    return f != NULL && sim_output_commit(f, tmp, path, error);
}
