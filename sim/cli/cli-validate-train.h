/* SPDX-License-Identifier: Apache-2.0 */
/* A training row of validate (cli-validate-train.c) as a scenario, for the
 * files that replay one at a chosen compute efficiency (the
 * leave-one-group-out of cli-validate-train-cross.c). */
#pragma once

#include "cli/cli-run.h"
#include "cli/cli-validate.h"

/* Where each column of training.csv is in a file. */
typedef struct TrainColumns {
    int source, system, model, params_b, layers, hidden, heads, seq_len, global_batch, micro_batch,
        tp, pp, dp, num_gpus, time;
    /* optional: -1 when absent (a blank field then: a stated default, or
     * the row skipped) */
    int precision, cp, vp, fsdp, recompute, stack;
    int nodes, domains; /* optional: hosts and NVLink domains (topo-place.h) */
} TrainColumns;

/* A training row as a scenario. */
typedef struct TrainRow {
    char *ini;    /* the scenario's text */
    char *where;  /* FILE:LINE */
    char *detail; /* "megatron-145b tp8 pp8 dp24 vp2" */
    char *source; /* the source's short name */
    const char *system;
    uint32_t line, n_gpus;
    double measured_s;
    bool placed;  /* the row states its hosts or NVLink domains */
    char *stated; /* "micro_batch 1, ..." the defaults the row took; NULL: none */
} TrainRow;

/* Finds the columns of training.csv in csv; false and error naming the
 * first missing one. */
bool train_columns_find(const SimCsv *csv, TrainColumns *col, GError **error);

/* Row r of csv as a scenario in row (cleared by train_row_clear); false
 * when it is skipped (counted in v) or malformed (reported in v). */
bool train_row_scenario(Validation *v, const SimCsv *csv, const TrainColumns *col, guint r,
                        TrainRow *row);
void train_row_clear(TrainRow *row);

/* Simulates row with sets (--set texts, NULL-terminated, or NULL) applied
 * into result (the caller clears it); false and error on failure. */
bool train_row_run(const TrainRow *row, char **sets, WorkRunResult *result, GError **error);

/* The step and its compute time, in seconds, of row at compute efficiency
 * k (0 to 1); false and error on failure. */
bool train_row_run_at(const TrainRow *row, double k, double *step_s, double *compute_s,
                      GError **error);

/* The efficiency k_out at which row's simulated step equals its measured
 * one, and the step at k = 1 in step1_s (seconds); false and error on
 * failure. */
bool train_row_efficiency(const TrainRow *row, double *k_out, double *step1_s, GError **error);
