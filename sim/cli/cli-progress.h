/* SPDX-License-Identifier: Apache-2.0 */
/* A progress line for the long commands (validate, sweep), on stderr:
 *
 *   412/1308 rows, 23.4 rows/s, ETA 38s
 *
 * drawn only when stderr is a terminal: one line rewritten in place
 * (carriage return), its text made at most 4 times a second, erased
 * before the command prints a row or a message and at the end. Nothing at
 * all when stderr is not a terminal, so that a log or a pipe holds the
 * command's output alone.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct CliProgress CliProgress;

/* A progress line counting unit ("rows", "points") of n_total (0: not
 * known: done and the rate, no ETA), started now. Inactive (every call a
 * no-op) unless stderr is a terminal. */
CliProgress *cli_progress_new(const char *unit, uint64_t n_total);
/* Erases the line; NULL is allowed. */
void cli_progress_free(CliProgress *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CliProgress, cli_progress_free)

bool cli_progress_active(const CliProgress *p);

/* n_done of the total are done, n_run of them by this run (the rate's
 * count: a resumed sweep's earlier points are done, not run). Redraws the
 * line when its text is a quarter of a second old, or at once when it was
 * erased (cli_progress_hide). eta_s: the caller's estimate of the seconds
 * left, or a negative number for the line's own: what is left at the mean
 * rate so far. */
void cli_progress_update(CliProgress *p, uint64_t n_done, uint64_t n_run, double eta_s);

/* Erases the line; the next update draws it again. */
void cli_progress_hide(CliProgress *p);
/* Erases the line before the command writes to stream when that would
 * write over it: stream is stderr, or stdout and a terminal too. */
void cli_progress_before_output(CliProgress *p, FILE *stream);

/* A duration for people: "42s", "3m07s", "2h05m" (into buf of size). */
void cli_progress_format_duration(char *buf, size_t size, double s);
