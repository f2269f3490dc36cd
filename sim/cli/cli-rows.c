/* SPDX-License-Identifier: Apache-2.0 */
/* Reading measurement rows: column lookup and field parsing with errors
 * that name the file, line and column. */
#include "cli/cli-rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core-units.h"

bool
cli_rows_find_columns(const SimCsv *csv, CliRowColumns *col, GError **error)
{
    static const char *const names[] = {
        "nvlsim_system", "collective", "algorithm",  "protocol", "dtype",       "num_gpus",
        "bytes",         "time_us",    "busbw_gbps", "in_place", "source_note",
    };
    int *slots[] = {
        &col->system, &col->collective, &col->algorithm, &col->protocol,
        &col->dtype,  &col->num_gpus,   &col->bytes,     &col->time_us,
        &col->busbw,  &col->in_place,   &col->note,
    };
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        *slots[i] = sim_csv_column(csv, names[i]);
        if (*slots[i] < 0) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:1: no column '%s': expected the columns of collectives.csv", csv->path,
                        names[i]);
            return false;
        }
    }
    col->harness = sim_csv_column(csv, "harness");
    col->launch_mode = sim_csv_column(csv, "launch_mode");
    col->cuda_graph = sim_csv_column(csv, "cuda_graph");
    col->visible_devices = sim_csv_column(csv, "visible_devices");
    col->gpus_per_node = sim_csv_column(csv, "gpus_per_node");
    col->generation = sim_csv_column(csv, "generation");
    col->source = sim_csv_column(csv, "source_url");
    col->nodes = sim_csv_column(csv, "nodes");
    col->domains = sim_csv_column(csv, "domains");
    col->nccl_env = sim_csv_column(csv, "nccl_env");
    return true;
}

bool
cli_rows_pair(const char *note, uint32_t *a, uint32_t *b)
{
    for (const char *p = strstr(note, "GPU"); p != NULL; p = strstr(p + 1, "GPU")) {
        unsigned x, y;
        if (sscanf(p, "GPU%u->GPU%u", &x, &y) == 2) {
            *a = x;
            *b = y;
            return true;
        }
    }
    *a = 0;
    *b = 1;
    return false;
}

bool
cli_rows_number(const SimCsv *csv, guint r, int c, const char *column, double *out,
                GError **error)
{
    const char *text = sim_csv_field(csv, r, c);
    char *end;
    *out = g_ascii_strtod(text, &end);
    if (*text == '\0' || *end != '\0' || !isfinite(*out) || *out < 0) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s:%u: column %s: '%s': expected a non-negative number", csv->path,
                    g_array_index(csv->lines, uint32_t, r), column, text);
        return false;
    }
    return true;
}

bool
cli_rows_measure(const SimCsv *csv, guint r, int c, const char *column, double *out,
                 GError **error)
{
    const char *text = sim_csv_field(csv, r, c);
    char *end;
    *out = g_ascii_strtod(text, &end);
    if (*text != '\0' && *end == '\0' && isfinite(*out) && *out > 0)
        return true;
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s:%u: column %s: '%s': expected a positive measurement", csv->path,
                g_array_index(csv->lines, uint32_t, r), column, text);
    return false;
}

bool
cli_rows_whole(const SimCsv *csv, guint r, int c, const char *column, uint64_t min, uint64_t max,
               uint64_t *out, GError **error)
{
    const char *text = sim_csv_field(csv, r, c);
    if (sim_units_parse_count(text, out, NULL) && *out >= min && *out <= max)
        return true;
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s:%u: column %s: '%s': expected a whole number from %" G_GUINT64_FORMAT
                " to %" G_GUINT64_FORMAT,
                csv->path, g_array_index(csv->lines, uint32_t, r), column, text, min, max);
    return false;
}

static int
compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double
cli_rows_median(const double *v, guint n, guint skip)
{
    g_autofree double *rest = g_new(double, MAX(n, 1));
    guint m = 0;
    for (guint i = 0; i < n; i++)
        if (i != skip)
            rest[m++] = v[i];
    if (m == 0)
        return NAN;
    qsort(rest, m, sizeof(double), compare_doubles);
    return m % 2 ? rest[m / 2] : 0.5 * (rest[m / 2 - 1] + rest[m / 2]);
}
