/* SPDX-License-Identifier: Apache-2.0 */
/* Measurement rows in the schema of shared/reference/collectives.csv: the
 * columns the commands read, and the fields they parse. Shared by validate
 * and calibrate. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/core-csv.h"

typedef struct CliRowColumns {
    int system, collective, algorithm, protocol, dtype, num_gpus, bytes, time_us, busbw, in_place,
        note;
    /* Optional (-1 when the file lacks them; their fields read empty). */
    int harness, launch_mode, cuda_graph, visible_devices, gpus_per_node, generation, source,
        nodes, domains, nccl_env;
} CliRowColumns;

/* Finds the columns; an error names the file and the missing column. The
 * optional ones may be absent. */
bool cli_rows_find_columns(const SimCsv *csv, CliRowColumns *col, GError **error);

/* The GPU pair of a p2p row, from its note ("... GPU0->GPU3 ..."); 0,1 and
 * false when the note names none. */
bool cli_rows_pair(const char *note, uint32_t *a, uint32_t *b);

/* A non-negative number in row r, column c; the error names file, line and
 * column. */
bool cli_rows_number(const SimCsv *csv, guint r, int c, const char *column, double *out,
                     GError **error);

/* A measured value (a time, a bandwidth, a rate) in row r, column c: a
 * finite number above 0, since errors are taken relative to it. */
bool cli_rows_measure(const SimCsv *csv, guint r, int c, const char *column, double *out,
                      GError **error);

/* A whole number from min to max in row r, column c (a count of GPUs, a
 * matrix size); the error names file, line, column and the range. */
bool cli_rows_whole(const SimCsv *csv, guint r, int c, const char *column, uint64_t min,
                    uint64_t max, uint64_t *out, GError **error);

/* The median of v[0 .. n) leaving out v[skip] (skip >= n: none left out),
 * as fits take it; NaN when nothing is left. */
double cli_rows_median(const double *v, guint n, guint skip);
