/* SPDX-License-Identifier: Apache-2.0 */
/* The hold model on SimEngine: one handler, one RNG stream, constant queue
 * size.
 *
 * The model is one component, so it draws every delay from one stream: a
 * stream per token would add a cache miss per event that belongs to the
 * model, not to the engine being measured. Setup (filling
 * the queue) and warm-up are outside the measured part; the wall clock is
 * read only around the measured run, so the figure is the engine's steady
 * state plus one RNG draw per event.
 */
#include "core/core-hold.h"

#include <glib.h>
#include <math.h>

#include "core/core-engine.h"
#include "core/core-rng.h"

typedef struct Hold {
    const SimHoldConfig *config;
    SimRng rng;
    SimHandlerId handler;
    uint64_t budget; /* events left before the run stops */
} Hold;

static uint64_t
draw_delay_ps(Hold *hold)
{
    SimRng *rng = &hold->rng;
    uint64_t mean = hold->config->mean_delay_ps;
    if (hold->config->delay == SIM_HOLD_DELAY_UNIFORM)
        return sim_rng_below(rng, 2 * mean + 1);
    return (uint64_t)(sim_rng_exponential(rng, (double)mean) + 0.5);
}

static void
on_hold(SimEngine *engine, const SimEvent *event, void *ctx)
{
    Hold *hold = ctx;
    uint64_t delay_ps = draw_delay_ps(hold);
    SimEvent *next = sim_engine_schedule(engine, event->time_ps + delay_ps, 0, hold->handler);
    next->target = event->target;
    if (--hold->budget == 0)
        sim_engine_stop(engine);
}

static void
run_budget(SimEngine *engine, Hold *hold, uint64_t n_events)
{
    if (n_events == 0)
        return;
    hold->budget = n_events;
    SimRunOutcome outcome = sim_engine_run(engine, SIM_TIME_NEVER);
    g_assert(outcome == SIM_RUN_STOPPED);
}

void
sim_hold_run(const SimHoldConfig *config, SimHoldResult *result)
{
    g_return_if_fail(config->n_pending >= 1 && config->n_pending <= UINT32_MAX / 2);

    SimEngine *engine = sim_engine_new();
    Hold hold = {.config = config};
    sim_rng_init(&hold.rng, config->seed, 0);
    hold.handler = sim_engine_register(engine, "hold", on_hold, &hold);
    for (uint32_t token = 0; token < config->n_pending; token++) {
        SimEvent *event = sim_engine_schedule(engine, draw_delay_ps(&hold), 0, hold.handler);
        event->target = token;
    }

    run_budget(engine, &hold, config->n_warmup);
    int64_t start_us = g_get_monotonic_time();
    run_budget(engine, &hold, config->n_events);
    int64_t end_us = g_get_monotonic_time();

    SimEngineStats stats;
    sim_engine_get_stats(engine, &stats);
    *result = (SimHoldResult){
        .n_events = config->n_events,
        .elapsed_us = end_us - start_us,
        .end_time_ps = sim_engine_now(engine),
        .pool_high_water = stats.pool_high_water,
        .pool_n_grows = stats.pool_n_grows,
        .trace_hash = sim_engine_trace_hash(engine),
    };
    sim_engine_free(engine);
}
