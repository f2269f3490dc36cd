/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim sweep's parts (internal to sim/cli): the sweep a file describes,
 * and the output folder that journals its points so that a killed sweep
 * resumes where it stopped. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "work/work-cache.h"

/* Sweeps larger than this are refused: each point is a simulated step. */
#define CLI_SWEEP_MAX_POINTS 1000000u

/* One axis: a scenario key and the values it takes, in the file's order. */
typedef struct CliSweepAxis {
    char *key;     /* "group.key" */
    char **values; /* stripped, non-empty, distinct */
    uint32_t n_values;
} CliSweepAxis;

/* A sweep file: a base scenario and axes over its keys; its points are the
 * cross product, the first axis varying slowest. */
typedef struct CliSweep {
    char *path;      /* the sweep file */
    char *base_name; /* names the base in messages: its file name, or "(built-in)" */
    char *base_text; /* the base scenario's text */
    GPtrArray *axes; /* CliSweepAxis */
    uint32_t n_points;
    WorkCache *cache; /* the worlds and call shapes its points share */
} CliSweep;

/* Loads and checks a sweep file: [sweep] base (a scenario file relative to
 * the sweep file's folder, or "builtin") and [axes] group.key = v1, v2, ...
 * NULL and an error naming the file, group and key on bad input. */
CliSweep *cli_sweep_load(const char *path, GError **error);
/* The same from the text of a sweep file (length bytes; (gsize)-1: up to
 * its NUL); path names it in messages, and its folder is where base is
 * looked for. */
CliSweep *cli_sweep_load_data(const char *data, gsize length, const char *path, GError **error);
void cli_sweep_free(CliSweep *sweep);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CliSweep, cli_sweep_free)

/* Point index's overrides, "group.key=value" for each axis
 * (NULL-terminated; the caller frees it with g_strfreev). */
char **cli_sweep_point_sets(const CliSweep *sweep, uint32_t index);
/* The value of axis a at point index (owned by sweep). */
const char *cli_sweep_point_value(const CliSweep *sweep, uint32_t index, uint32_t a);

/* The CSV header of sweep's rows, and point index simulated as its row
 * (newly allocated; a point that does not load or run is an "invalid" row
 * with the reason). */
char *cli_sweep_header(const CliSweep *sweep);
char *cli_sweep_point_row(const CliSweep *sweep, uint32_t index);

/* --refine (cli-sweep-refine.c): makes sweep's base scenario run at the
 * analytic tier ([scenario] fidelity = analytic), handing back its own
 * text in *event_base (the caller frees it); false and an error when an
 * axis sets scenario.fidelity. */
bool cli_sweep_set_analytic(CliSweep *sweep, char **event_base, GError **error);
/* Runs the best k ok points of results (by the column rank_by: smallest
 * first for a time or memory column, "_s" but not "_per_s", or "_gib";
 * else largest) on
 * event_base, on jobs threads, and writes DIR/refined.csv: rank, the rank
 * value, the analytic step time, the event tier's over it, then the point's
 * row at the event tier; *n_refined points. */
bool cli_sweep_refine(const CliSweep *sweep, const char *event_base, const char *dir,
                      const char *results, uint32_t k, const char *rank_by, int jobs,
                      uint32_t *n_refined, GError **error);

/* Past one machine (cli-sweep-mpi.c): whether this process was started by
 * mpirun with more than one rank (and nvlsim is built with MPI); and the
 * sweep run over the ranks, rank 0 writing the folder. Returns the exit
 * status, the same on every rank. */
bool cli_sweep_mpi_launched(void);
int cli_sweep_mpi(const char *path, const char *dir, int jobs);

/* The output folder of a sweep: DIR/sweep.ini says which sweep it holds,
 * DIR/points/NNNNNN.csv holds each finished point's row (written to a
 * temporary and renamed: a row is whole or absent), DIR/results.csv the
 * rows in point order once all are done. */
typedef struct CliSweepOut CliSweepOut;

/* Opens dir for sweep: creates it, or checks that it holds the same sweep
 * (same base text and axes) and reads which points are done; locks it
 * against a second sweep at once. NULL and an error on a folder that cannot
 * be written, holds other files, or holds another sweep; nothing already in
 * the folder is changed then. */
CliSweepOut *cli_sweep_out_open(const char *dir, const CliSweep *sweep, GError **error);
void cli_sweep_out_free(CliSweepOut *out);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CliSweepOut, cli_sweep_out_free)

/* Whether point index's row was found when the folder was opened. */
bool cli_sweep_out_has(const CliSweepOut *out, uint32_t index);
/* Points found done when the folder was opened. */
uint32_t cli_sweep_out_n_found(const CliSweepOut *out);
/* Journals point index's row (one line, ending in '\n'), whole or not at
 * all. Safe to call from several threads at once for distinct points. */
bool cli_sweep_out_put(CliSweepOut *out, uint32_t index, const char *row, GError **error);
/* Writes DIR/results.csv (header, then every point's row in point order)
 * whole or not at all, and counts the rows whose status is "ok". False and
 * an error if a point has no row or the file cannot be written. */
bool cli_sweep_out_finish(CliSweepOut *out, const char *header, uint32_t *n_ok, GError **error);
/* DIR/results.csv. */
const char *cli_sweep_out_results_path(const CliSweepOut *out);
