/* SPDX-License-Identifier: Apache-2.0 */
/* A miss split into latency and bandwidth. The rows of one measured sweep
 * (one system, collective, rank count, host count, NVLink domain count,
 * source and harness) are cut where the algorithm or protocol that ran
 * changes, and each piece gets the line t = alpha + bytes / beta fitted to the measured
 * times and, with the same weights, to the simulated ones. A miss then
 * reads "latency off by X us" (the alphas) or "bandwidth off by Y%" (the
 * betas), whichever carries more of the piece's error.
 *
 * The fit is least squares on the relative error (each row weighted by
 * its measured time to the power -2), so that a sweep's small sizes count
 * as much as its large ones.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* t(bytes) = alpha_us + bytes / (beta_gbps * 1e3), in us. */
typedef struct JudgeLine {
    double alpha_us;
    double beta_gbps; /* +INF: the time does not grow with size; NAN: not fitted */
    bool fitted;      /* two sizes or more */
} JudgeLine;

/* The weighted least-squares line through (bytes[i], us[i]) with weights
 * weight[i] (NULL: 1). Not fitted (alpha the weighted mean, beta NAN) with
 * fewer than two distinct sizes. A slope of zero or less (the time falls
 * with size) gives beta +INF and the intercept of the fit. */
void judge_line_fit(const double *bytes, const double *us, const double *weight, guint n,
                    JudgeLine *line);
/* The line's time at bytes, us. */
double judge_line_time(const JudgeLine *line, double bytes);

/* A piece of a sweep: its rows ran one algorithm and protocol. */
typedef struct JudgePiece {
    char *ran; /* "nvls/Simple" */
    uint32_t n_rows;
    double min_bytes, max_bytes;
    JudgeLine measured, simulated;
    /* The mean over the piece's rows of |simulated - measured| / measured
     * the alphas alone explain, and the betas alone, in percent. */
    double latency_pct, bandwidth_pct;
} JudgePiece;

typedef struct JudgeSweep {
    char *key; /* "system|collective|ranks|hosts|domains|source|harness" as added */
    char *system, *collective, *source, *harness;
    uint32_t n_ranks, n_hosts, n_domains;
    uint32_t n_rows;
    double sum_abs_pct; /* the rows' |simulated - measured| / measured, percent, summed */
    double share;       /* of the sum over every sweep */
    GPtrArray *pieces;  /* JudgePiece *, by size */
} JudgeSweep;

typedef struct JudgeDecompose JudgeDecompose;

JudgeDecompose *judge_decompose_new(void);
void judge_decompose_free(JudgeDecompose *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(JudgeDecompose, judge_decompose_free)

/* One replayed row of a sweep: measured and simulated times in us; ran
 * names what the simulation ran ("ring/LL"). A row whose times are not
 * both positive is left out. */
void judge_decompose_add(JudgeDecompose *d, const char *system, const char *collective,
                         uint32_t n_ranks, uint32_t n_hosts, uint32_t n_domains, const char *source,
                         const char *harness, const char *ran, double bytes, double measured_us,
                         double simulated_us);

/* The sweeps with their pieces fitted, largest share of the error first
 * (owned by d; valid until the next add). */
GPtrArray *judge_decompose_sweeps(JudgeDecompose *d);
