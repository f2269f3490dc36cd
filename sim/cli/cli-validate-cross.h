/* SPDX-License-Identifier: Apache-2.0 */
/* Fitting the runtime's unsourced constants across systems, and
 * leave-one-group-out validation of them (cli-validate-cross.c). */
#pragma once

#include "cli/cli-validate.h"

typedef enum ValidateCross {
    VALIDATE_CROSS_SYSTEM,
    VALIDATE_CROSS_GENERATION,
    VALIDATE_CROSS_SOURCE,
} ValidateCross;

/* "system", "generation" or "source"; false if neither. */
bool validate_cross_parse(const char *text, ValidateCross *key);

/* Fits rt's host_issue and kernel_setup (starting from rt's) on the
 * samples (ValidateSample *) for which use[i]; returns their MAPE. */
double validate_fit_runtime(const GPtrArray *samples, const bool *use, HwRuntime *rt);

/* Prints each group's MAPE under constants fitted without it, and the last
 * line "CROSS MAPE: X% (>= 1 MiB Y%, < 1 MiB Z%) over N rows"; returns X. */
double validate_cross_report(const GPtrArray *samples, ValidateCross key, const char *key_name);

/* nvlsim calibrate latency FILE.csv: fits host_issue and kernel_setup on
 * every collective row of an NCCL system, prints the fit, its error and
 * the lines for the runtime model; returns the exit status. */
int validate_calibrate_runtime(const char *path, NetFidelity fidelity);

/* nvlsim validate --cross KEY on a training file: each group's rows (by
 * system, GPU generation or source) simulated at the compute efficiency
 * fitted, as calibrate compute-efficiency fits it, on the other groups'
 * rows; beside it each row at the efficiency nvlsim ships and at one
 * efficiency fitted on every row. The exit status; the held-out MAPE
 * is gated by max_mape (0: none). */
int validate_train_cross(Validation *v, const char *path, ValidateCross key, const char *key_name,
                         double max_mape);
