/* SPDX-License-Identifier: Apache-2.0 */
/* The discrete-event loop: pooled events, a ladder queue keyed (time_ps,
 * phase, seq), a handler table, and run-until-drained/limit/stop.
 *
 * The clock is the pair (now_ps, now_phase) of the event being run; an event
 * may be scheduled at that point or later, never before, which is what
 * keeps the queue's keys monotone. The event is taken off the queue before
 * its handler runs and its slot is given back after. The slots of the next
 * few events are prefetched while this one runs: with 1e5 pending events
 * the slots span megabytes, and a cold slot would otherwise stall every
 * dispatch.
 */
#include "core/core-engine.h"

#include <glib.h>

#include "core/core-debug.h"
#include "core/core-memory.h"
#include "core/core-pool.h"
#include "core/core-queue.h"

typedef struct SimHandler {
    SimHandlerFn fn;
    void *ctx;
    char *name;
} SimHandler;

struct SimEngine {
    uint64_t now_ps;
    SimPhase now_phase; /* phase of the event being run (or last run) */
    uint64_t next_seq;
    SimQueue queue;
    SimPool pool;
    SimHandler *handlers;
    uint32_t n_handlers;
    bool stop_requested;
    uint64_t n_events_executed;
    uint64_t trace_hash;
    uint64_t watchdog_events;     /* 0: off */
    uint64_t last_progress_event; /* n_events_executed at the last progress */
    bool watch_memory;
};

G_DEFINE_QUARK(sim - error - quark, sim_error)

SimEngine *
sim_engine_new(void)
{
    SimEngine *engine = g_new0(SimEngine, 1);
    sim_queue_init(&engine->queue);
    sim_pool_init(&engine->pool);
    engine->trace_hash = UINT64_C(0xcbf29ce484222325);
    return engine;
}

void
sim_engine_free(SimEngine *engine)
{
    if (engine == NULL)
        return;
    for (uint32_t i = 0; i < engine->n_handlers; i++)
        g_free(engine->handlers[i].name);
    g_free(engine->handlers);
    sim_queue_clear(&engine->queue);
    sim_pool_clear(&engine->pool);
    g_free(engine);
}

SimHandlerId
sim_engine_register(SimEngine *engine, const char *name, SimHandlerFn fn, void *ctx)
{
    g_return_val_if_fail(fn != NULL, 0);
    engine->handlers = g_renew(SimHandler, engine->handlers, engine->n_handlers + 1);
    engine->handlers[engine->n_handlers] = (SimHandler){fn, ctx, g_strdup(name)};
    return engine->n_handlers++;
}

const char *
sim_engine_handler_name(const SimEngine *engine, SimHandlerId handler)
{
    g_return_val_if_fail(handler < engine->n_handlers, NULL);
    return engine->handlers[handler].name;
}

SimEvent *
sim_engine_schedule(SimEngine *engine, uint64_t time_ps, SimPhase phase, SimHandlerId handler)
{
    g_assert(time_ps > engine->now_ps || (time_ps == engine->now_ps && phase >= engine->now_phase));
    SIM_HOT_ASSERT(handler < engine->n_handlers);
    SIM_HOT_ASSERT(engine->next_seq < (UINT64_C(1) << SIM_QUEUE_SEQ_BITS));

    uint32_t slot = sim_pool_take(&engine->pool);
    SimEvent *event = sim_pool_at(&engine->pool, slot);
    event->time_ps = time_ps;
    event->handler = handler;
    event->target = 0;
    sim_queue_push(&engine->queue, time_ps, sim_queue_order(phase, engine->next_seq++), slot);
    return event;
}

/* Folds one executed event into the trace hash (FNV-1a style, by words). */
static inline uint64_t
trace_mix(uint64_t hash, uint64_t word)
{
    hash ^= word;
    hash *= UINT64_C(0x100000001b3);
    return hash ^ (hash >> 29);
}

/* How many events ahead of the one being run to prefetch the slot of. */
#define PREFETCH_DISTANCE 4

static inline void
dispatch(SimEngine *engine, const SimQueueEntry *top)
{
    uint32_t slot = top->slot;
    engine->now_ps = top->time_ps;
    engine->now_phase = sim_queue_order_phase(top->order);
    sim_queue_pop(&engine->queue);
    const SimQueueEntry *ahead = sim_queue_ahead(&engine->queue, PREFETCH_DISTANCE);
    if (ahead != NULL)
        __builtin_prefetch(sim_pool_at(&engine->pool, ahead->slot));

    SimEvent *event = sim_pool_at(&engine->pool, slot);
    const SimHandler *handler = &engine->handlers[event->handler];
    handler->fn(engine, event, handler->ctx);

    uint64_t h = engine->trace_hash;
    h = trace_mix(h, engine->now_ps);
    h = trace_mix(h, (uint64_t)engine->now_phase << 32 | event->handler);
    engine->trace_hash = trace_mix(h, event->target);
    sim_pool_give(&engine->pool, slot);
    engine->n_events_executed++;
    /* The full structural check is O(n): every 4096th event is enough to
     * catch a broken queue near where it broke. */
    SIM_HOT_ASSERT((engine->n_events_executed & 4095) != 0 || sim_queue_is_valid(&engine->queue));
}

SimRunOutcome
sim_engine_run(SimEngine *engine, uint64_t until_ps)
{
    engine->stop_requested = false;
    while (engine->queue.n_entries > 0) {
        const SimQueueEntry *top = sim_queue_top(&engine->queue);
        if (top->time_ps > until_ps) {
            if (until_ps > engine->now_ps)
                engine->now_ps = until_ps;
            return SIM_RUN_TIME_LIMIT;
        }
        dispatch(engine, top);
        if (engine->stop_requested)
            return SIM_RUN_STOPPED;
        if (engine->watchdog_events > 0 &&
            engine->n_events_executed - engine->last_progress_event >= engine->watchdog_events)
            return SIM_RUN_STALLED;
        if (engine->watch_memory &&
            (engine->n_events_executed & (SIM_MEMORY_CHECK_EVENTS - 1)) == 0) {
            SimMemory m;
            if (sim_memory_exceeded(&m))
                return SIM_RUN_MEMORY;
        }
    }
    return SIM_RUN_DRAINED;
}

void
sim_engine_set_watchdog(SimEngine *engine, uint64_t max_events)
{
    engine->watchdog_events = max_events;
    engine->last_progress_event = engine->n_events_executed;
}

void
sim_engine_watch_memory(SimEngine *engine)
{
    engine->watch_memory = true;
}

void
sim_engine_progress(SimEngine *engine)
{
    engine->last_progress_event = engine->n_events_executed;
}

void
sim_engine_stop(SimEngine *engine)
{
    engine->stop_requested = true;
}

uint64_t
sim_engine_now(const SimEngine *engine)
{
    return engine->now_ps;
}

void
sim_engine_get_stats(const SimEngine *engine, SimEngineStats *stats)
{
    *stats = (SimEngineStats){
        .n_events_executed = engine->n_events_executed,
        .n_events_scheduled = engine->next_seq,
        .n_events_pending = engine->queue.n_entries,
        .pool_high_water = engine->pool.high_water,
        .pool_n_slots = engine->pool.n_slots,
        .pool_n_grows = engine->pool.n_grows,
    };
}

uint64_t
sim_engine_trace_hash(const SimEngine *engine)
{
    return engine->trace_hash;
}
