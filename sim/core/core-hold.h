/* SPDX-License-Identifier: Apache-2.0 */
/* The hold model: the classic priority-queue benchmark (Jones, CACM 1986).
 *
 * n_pending events wait in the queue; each one, when it runs, schedules one
 * successor at now + a random delay, so the queue size stays constant and
 * every event costs one dequeue and one enqueue. It measures the engine's
 * per-event cost with nothing else in the way, and, being seeded, doubles as
 * a determinism check.
 */
#pragma once

#include <stdint.h>

typedef enum SimHoldDelay {
    SIM_HOLD_DELAY_EXPONENTIAL, /* the classic hold distribution */
    SIM_HOLD_DELAY_UNIFORM,     /* uniform on [0, 2 * mean] */
} SimHoldDelay;

typedef struct SimHoldConfig {
    uint64_t n_pending;     /* events kept in the queue */
    uint64_t n_warmup;      /* events run before measuring */
    uint64_t n_events;      /* events measured */
    uint64_t mean_delay_ps; /* mean successor delay */
    SimHoldDelay delay;
    uint64_t seed;
} SimHoldConfig;

typedef struct SimHoldResult {
    uint64_t n_events;    /* events executed in the measured part */
    int64_t elapsed_us;   /* wall-clock time of the measured part */
    uint64_t end_time_ps; /* simulated time at the end */
    uint32_t pool_high_water;
    uint32_t pool_n_grows;
    uint64_t trace_hash; /* over warm-up and measured events */
} SimHoldResult;

/* Runs the hold model; n_pending must be at least 1. */
void sim_hold_run(const SimHoldConfig *config, SimHoldResult *result);
