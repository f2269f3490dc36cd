/* SPDX-License-Identifier: Apache-2.0 */
/* validate --cross system|generation|source on training rows: each group's
 * rows (by system, GPU generation, the GPU's sm_version / 10, or source)
 * simulated at the compute efficiency fitted on the other groups' rows,
 * the median of those rows' own (the efficiency at which a row's step is
 * its measured one, as calibrate compute-efficiency fits it). Beside it,
 * each row at the efficiency nvlsim ships and at one efficiency fitted on
 * every row. Each row is simulated five times (two to find its own
 * efficiency, then shipped, held out and shared); times in seconds.
 */
#include <math.h>
#include <string.h>

#include "cli/cli-rows.h"
#include "cli/cli-validate-cross.h"
#include "cli/cli-validate-train.h"
#include "cli/cli.h"
#include "hw/hw-models.h"

/* A GPU generation's name, by its compute capability. */
static const char *
generation_name(uint64_t sm_version)
{
    static const struct {
        uint64_t sm;
        const char *name;
    } names[] = {{60, "Pascal"}, {70, "Volta"}, {80, "Ampere"}, {90, "Hopper"}, {100, "Blackwell"}};
    const char *name = "(older)";
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
        if (sm_version >= names[i].sm)
            name = names[i].name;
    return name;
}

/* Row's group under key: its system, its GPU's generation (each system's
 * kept in generations, so that its file is read once) or its source. */
static char *
cross_group(const TrainRow *row, ValidateCross key, GHashTable *generations, GError **error)
{
    if (key == VALIDATE_CROSS_SYSTEM)
        return g_strdup(row->system);
    if (key == VALIDATE_CROSS_SOURCE)
        return g_strdup(row->source);
    const char *name = g_hash_table_lookup(generations, row->system);
    if (name == NULL) {
        HwSystem *system = hw_system_load_by_id(row->system, hw_models_dir(), error);
        if (system == NULL)
            return NULL;
        name = generation_name(system->gpu->sm_version);
        hw_system_free(system);
        g_hash_table_insert(generations, g_strdup(row->system), (gpointer)name);
    }
    return g_strdup(name);
}

/* A row's step at efficiency k, its error against the measurement. */
static bool
error_at(const TrainRow *row, double k, double *step_s, double *err_pct, GError **error)
{
    double compute;
    if (!train_row_run_at(row, k, step_s, &compute, error))
        return false;
    *err_pct = 100.0 * (*step_s - row->measured_s) / row->measured_s;
    return true;
}

/* The plain step: the efficiency nvlsim ships (the GPU's own where it has
 * one). */
static bool
error_plain(const TrainRow *row, double *step_s, double *err_pct, GError **error)
{
    WorkRunResult result = {0};
    bool ok = train_row_run(row, NULL, &result, error);
    if (ok) {
        *step_s = result.step_s;
        *err_pct = 100.0 * (*step_s - row->measured_s) / row->measured_s;
    }
    work_run_result_clear(&result);
    return ok;
}

typedef struct CrossRow {
    TrainRow row;
    char *group;
    double k;                    /* its own efficiency */
    double plain_s, plain_err;   /* at the shipped efficiency */
    double held_s, held_err;     /* at the efficiency fitted on the other groups */
    double shared_s, shared_err; /* at the one efficiency fitted on every row */
} CrossRow;

/* The median of the rows' own efficiencies outside group (NULL: all). */
static double
median_outside(const GArray *rows, const char *group)
{
    g_autofree double *k = g_new0(double, MAX(rows->len, 1));
    guint n = 0;
    for (guint i = 0; i < rows->len; i++) {
        const CrossRow *c = &g_array_index(rows, CrossRow, i);
        if (group == NULL || strcmp(c->group, group) != 0)
            k[n++] = c->k;
    }
    return cli_rows_median(k, n, G_MAXUINT);
}

static bool
cross_measure(GArray *rows, GPtrArray *groups, GError **error)
{
    for (guint i = 0; i < rows->len; i++) {
        CrossRow *c = &g_array_index(rows, CrossRow, i);
        double step1;
        if (!train_row_efficiency(&c->row, &c->k, &step1, error) ||
            !error_plain(&c->row, &c->plain_s, &c->plain_err, error))
            return false;
    }
    double shared = median_outside(rows, NULL);
    for (guint g = 0; g < groups->len; g++) {
        double k = median_outside(rows, groups->pdata[g]);
        for (guint i = 0; i < rows->len; i++) {
            CrossRow *c = &g_array_index(rows, CrossRow, i);
            if (strcmp(c->group, groups->pdata[g]) == 0 &&
                !error_at(&c->row, k, &c->held_s, &c->held_err, error))
                return false;
        }
    }
    for (guint i = 0; i < rows->len; i++) {
        CrossRow *c = &g_array_index(rows, CrossRow, i);
        if (!error_at(&c->row, shared, &c->shared_s, &c->shared_err, error))
            return false;
    }
    return true;
}

/* Prints the rows, the table and the rows v skipped; returns the held-out
 * MAPE. */
static double
cross_print(const Validation *v, const GArray *rows, const GPtrArray *groups, const char *key_name)
{
    printf("%5s %-14s %-36s %-10s %9s %7s %9s %7s %9s %7s\n", "line", "system", "model and layout",
           key_name, "measured", "own_k", "plain_s", "err_%", "held_s", "err_%");
    for (guint i = 0; i < rows->len; i++) {
        const CrossRow *c = &g_array_index(rows, CrossRow, i);
        printf("%5u %-14s %-36s %-10s %9.3f %7.4f %9.3f %+6.1f%% %9.3f %+6.1f%%\n", c->row.line,
               c->row.system, c->row.detail, c->group, c->row.measured_s, c->k, c->plain_s,
               c->plain_err, c->held_s, c->held_err);
    }
    printf("\n%-12s %5s %8s %13s %12s %10s\n", key_name, "rows", "k_used", "held_MAPE_%",
           "plain_MAPE_%", "shared_%");
    double held = 0, plain = 0, shared = 0;
    for (guint g = 0; g < groups->len; g++) {
        double h = 0, p = 0, sh = 0;
        guint n = 0;
        for (guint i = 0; i < rows->len; i++) {
            const CrossRow *c = &g_array_index(rows, CrossRow, i);
            if (strcmp(c->group, groups->pdata[g]) != 0)
                continue;
            h += fabs(c->held_err);
            p += fabs(c->plain_err);
            sh += fabs(c->shared_err);
            n++;
        }
        printf("%-12s %5u %8.4f %13.2f %12.2f %10.2f\n", (const char *)groups->pdata[g], n,
               median_outside(rows, groups->pdata[g]), h / n, p / n, sh / n);
        held += h;
        plain += p;
        shared += sh;
    }
    double n = rows->len;
    printf("# own_k: the efficiency at which a row's step is its measured one; k_used: the "
           "median of the other groups' rows' own; plain: the efficiency as shipped; shared: "
           "one efficiency for every row, k = %.4f (the median of all %u)\n",
           median_outside(rows, NULL), rows->len);
    printf("# plain MAPE %.2f%%, shared MAPE %.2f%%\n", plain / n, shared / n);
    validate_print_skipped(v);
    printf("CROSS MAPE: %.1f%% over %u rows\n", held / n, rows->len);
    return held / n;
}

static void
cross_rows_free(GArray *rows)
{
    for (guint i = 0; i < rows->len; i++) {
        CrossRow *c = &g_array_index(rows, CrossRow, i);
        train_row_clear(&c->row);
        g_free(c->group);
    }
    g_array_unref(rows);
}

int
validate_train_cross(Validation *v, const char *path, ValidateCross key, const char *key_name,
                     double max_mape)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(SimCsv) csv = sim_csv_read(path, &error);
    TrainColumns col;
    if (csv == NULL || !train_columns_find(csv, &col, &error)) {
        cli_print_error("validate", error);
        return CLI_EXIT_BAD_INPUT;
    }
    GArray *rows = g_array_new(FALSE, TRUE, sizeof(CrossRow));
    g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GHashTable) generations =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint r = 0; r < csv->rows->len && error == NULL; r++) {
        CrossRow c = {0};
        if (!train_row_scenario(v, csv, &col, r, &c.row))
            continue;
        c.group = cross_group(&c.row, key, generations, &error);
        if (c.group != NULL &&
            !g_ptr_array_find_with_equal_func(groups, c.group, g_str_equal, NULL))
            g_ptr_array_add(groups, g_strdup(c.group));
        g_array_append_val(rows, c);
    }
    int status = CLI_EXIT_OK;
    if (error == NULL && v->n_bad == 0 && rows->len == 0)
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: --cross %s: no training row to replay (%u skipped, why on stdout); "
                    "expected rows of two %ss or more",
                    path, key_name, validate_print_skipped(v), key_name);
    else if (error == NULL && v->n_bad == 0 && groups->len < 2)
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: --cross %s: the training rows are of %u %s; expected two or more, "
                    "one to leave out and one to fit on",
                    path, key_name, groups->len, key_name);
    if (error == NULL && v->n_bad == 0) {
        printf("# nvlsim validate --cross %s: %s: each %s's training rows simulated with the "
               "compute efficiency fitted on the other %ss' rows (%s fidelity)\n",
               key_name, path, key_name, key_name, net_fidelity_name(v->fidelity));
        if (cross_measure(rows, groups, &error)) {
            double mape = cross_print(v, rows, groups, key_name);
            if (max_mape > 0 && mape > max_mape) {
                fprintf(stderr, "nvlsim validate: %s: CROSS MAPE %.2f%% exceeds --max-mape %g%%\n",
                        path, mape, max_mape);
                status = CLI_EXIT_BAD_INPUT;
            }
        }
    }
    if (error != NULL) {
        cli_print_error("validate", error);
        status = CLI_EXIT_BAD_INPUT;
    }
    if (v->n_bad > 0)
        status = CLI_EXIT_BAD_INPUT;
    cross_rows_free(rows);
    return status;
}
