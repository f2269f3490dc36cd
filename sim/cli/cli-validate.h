/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim validate's parts (internal to sim/cli): the accounting every row
 * kind shares, and one replayer per kind of row. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "topo/topo-world.h"
#include "cli/cli-progress.h"
#include "cli/cli-rows.h"
#include "coll/coll-harness.h"
#include "net/net.h"
#include "core/core-csv.h"
#include "judge/judge-decompose.h"

/* Rows whose printed value cannot be judged this finely are skipped. */
#define VALIDATE_MAX_ROUNDING_SHARE 0.05

typedef struct Validation {
    const char *command; /* "validate" or "calibrate", for messages */
    NetFidelity fidelity;
    bool analytic;           /* training rows at the analytic tier (fidelity flow) */
    const char *only_system; /* NULL: every system */
    uint64_t min_bytes;      /* rows below it are skipped */
    bool quiet;
    bool read_only;            /* read and check every row, simulate none */
    FILE *err;                 /* where malformed rows are reported: stderr; NULL: counted only */
    GHashTable *fabrics;       /* "system|nodes" -> TopoWorld */
    GHashTable *comms;         /* "system|gpus" -> CollComm (on a fabric of fabrics) */
    GHashTable *memo;          /* a row's simulation key -> double* (simulated, model) */
    uint32_t n_rows;           /* rows read */
    GPtrArray *groups;         /* ValidateGroup */
    GHashTable *skipped;       /* reason -> count */
    GHashTable *defaults;      /* a default rows took, stated -> count */
    uint32_t n_bad;            /* malformed rows reported */
    FILE *out;                 /* per-row CSV, or NULL */
    bool training;             /* the rows are training steps (cli-validate-train.c) */
    GPtrArray *models;         /* WorkModel *: the shipped models, for training rows */
    GPtrArray *model_ids;      /* char *, beside models */
    GPtrArray *samples;        /* ValidateSample *: collective rows kept for refits; NULL: none */
    CliProgress *progress;     /* the progress line over the rows, or NULL (borrowed) */
    JudgeDecompose *decompose; /* collective rows by sweep (--decompose), or NULL */
} Validation;

/* A collective row as simulated, kept so that the runtime's fitted
 * constants (host_issue, kernel_setup) can be refitted and the row
 * predicted again without simulating it again (cli-validate-cross.c). */
typedef struct ValidateSample {
    char *system, *generation, *source; /* the groups of --cross */
    uint32_t ppn; /* ranks a host's thread drives (coll_comm_ranks_per_host) */
    uint64_t n_bytes;
    CollHarness harness;
    const HwRuntime *runtime; /* the system's (NULL: not NCCL's kernels): runtime_copy */
    HwRuntime runtime_copy;
    uint64_t kernel_ps; /* the simulated kernel without the runtime's setup */
    bool by_time;       /* measured is a time in us, else a bus bandwidth in GB/s */
    double factor;      /* nccl-tests' bus factor */
    double measured;
    double model; /* NCCL's model in the same unit, NAN if none */
} ValidateSample;

/* The row's value (its unit) with the runtime rt in place of the system's
 * (NULL: the system's own). */
double validate_sample_predict(const ValidateSample *s, const HwRuntime *rt);
void validate_sample_free(gpointer sample);

/* One replayed row. */
typedef struct ValidateRow {
    uint32_t line;
    const char *system, *measure;
    uint32_t n_gpus;
    uint64_t n_bytes;
    const char *detail; /* "GPU0->GPU3", "ring/LL128" ... */
    const char *where;  /* beside the row (NULL none): training rows, where the simulated
                           step's time went and the defaults taken; collective rows, the
                           defaults taken */
    const char *unit;   /* "us", "GB/s" */
    double measured, simulated;
    double model; /* NCCL's model's value in the same unit, NAN if none */
} ValidateRow;

/* The path of NAME ("collectives.csv", "training.csv") of the shipped
 * measurement suite: data/measurements/ of the data folder (core-data.h).
 * Newly allocated. */
char *validate_suite_file(const char *name);

/* A validation with nothing replayed yet, flow fidelity; and its end. */
void validate_init(Validation *v);
void validate_clear(Validation *v);

/* The most fabrics (with their communicators and the simulations they
 * ran) validate keeps between rows: past it they are dropped and built
 * again when a row needs them, so that memory follows the rows being
 * replayed, not the file. */
#define VALIDATE_MAX_FABRICS 8
/* The most memoized simulations kept between rows, likewise. */
#define VALIDATE_MAX_MEMO 65536

/* Drops the fabrics, communicators and memoized simulations when there
 * are more than the limits above. */
void validate_trim_caches(Validation *v);

/* Replays every row of the stream (training rows when it has their
 * schema; with read_only, reads and checks them only) as it reads them,
 * printing them unless quiet; false and error when a column is missing or
 * the file is malformed past its rows so far (those are replayed). */
bool validate_rows(Validation *v, SimCsvStream *rows, GError **error);

/* A row was read and replayed: counts it on the progress line. */
void validate_row_done(Validation *v);

void validate_skip(Validation *v, const char *reason);
/* Counts a row that took the default stated (printed with the results). */
void validate_default(Validation *v, const char *stated);
/* Prints a line "# skipped N rows: REASON" for each reason rows were
 * skipped for; returns the rows skipped. */
uint32_t validate_print_skipped(const Validation *v);
void validate_record(Validation *v, const ValidateRow *row);
/* Reports a malformed row on v->err ("FILE:LINE: column C: message") and
 * counts it; the run goes on. */
void validate_bad(Validation *v, const SimCsv *csv, guint r, const char *column, const char *format,
                  ...) G_GNUC_PRINTF(5, 6);
/* The same for an error whose message names file and line already. */
void validate_bad_error(Validation *v, const GError *error);
/* The fabric of n_nodes nodes of system, built once; with collnet, a
 * fabric of its own whose system runs NCCL's CollNet (false and an error
 * when its fabric switch has no SHARPv2 or later, or on one node); with
 * nccl_env (NCCL_* variables a run set, hw_nccl_env_parse; NULL or ""
 * none), one whose NCCL runs with them over the system file's. */
TopoWorld *validate_fabric(Validation *v, const char *system, uint32_t n_nodes, bool collnet,
                           const char *nccl_env, GError **error);
/* Half a unit of the printed value's last decimal, over the value. */
double validate_rounding_share(const char *text, double value);

void validate_p2p_row(Validation *v, const SimCsv *csv, const CliRowColumns *col, guint r);
void validate_coll_row(Validation *v, const SimCsv *csv, const CliRowColumns *col, guint r);
/* Prints the sweeps of v->decompose, largest share of the error first:
 * each piece's measured and simulated latency and bandwidth. */
void validate_print_decompose(Validation *v);

/* Whether csv has the schema of shared/reference/training.csv. */
bool validate_is_training(const SimCsv *csv);
/* Replays every training row as validate_rows does. */
bool validate_train_rows(Validation *v, SimCsvStream *rows, GError **error);
/* nvlsim calibrate compute-efficiency: fits the compute efficiency on the
 * training rows of path, of v->only_system (a GPU's training_efficiency)
 * or of every system (WORK_COMPUTE_STEP_EFFICIENCY); prints each row, the
 * fit, its error on the rows and leaving each row out; returns the exit
 * status. */
int validate_train_calibrate(Validation *v, const char *path);
