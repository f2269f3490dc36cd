/* SPDX-License-Identifier: Apache-2.0 */
/* The discrete-event engine: a clock, a queue of pending events, a handler
 * table and the loop that runs them.
 *
 * Upper layers register handlers (name, function, context) and schedule
 * events for them; the engine knows nothing of what they model. Order is
 * total and reproducible: events run by (time_ps, phase, schedule order).
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/core-event.h"
#include "core/core-time.h"

typedef struct SimEngine SimEngine;

/* A run that cannot finish (a deadlock, or the watchdog's livelock) is an
 * outcome, not a crash: the layer that runs the engine reports it as this
 * error, naming what is stuck. */
#define SIM_ERROR (sim_error_quark())
GQuark sim_error_quark(void);
typedef enum SimError {
    SIM_ERROR_STALLED,
} SimError;

/* Runs one event. event is valid until the handler returns; the handler may
 * schedule new events (at or after sim_engine_now) and may stop the run. */
typedef void (*SimHandlerFn)(SimEngine *engine, const SimEvent *event, void *ctx);

typedef enum SimRunOutcome {
    SIM_RUN_DRAINED,    /* no event left */
    SIM_RUN_TIME_LIMIT, /* the next event lies past the limit */
    SIM_RUN_STOPPED,    /* a handler called sim_engine_stop */
    SIM_RUN_STALLED,    /* the watchdog: events ran without progress */
    SIM_RUN_MEMORY,     /* sim_engine_watch_memory: the process outgrew its limit */
} SimRunOutcome;

typedef struct SimEngineStats {
    uint64_t n_events_executed;
    uint64_t n_events_scheduled;
    uint64_t n_events_pending;
    uint32_t pool_high_water; /* most events ever pending at once */
    uint32_t pool_n_slots;    /* slots allocated */
    uint32_t pool_n_grows;    /* times the pool allocated a chunk */
} SimEngineStats;

SimEngine *sim_engine_new(void);
void sim_engine_free(SimEngine *engine);

/* Adds a handler; name is copied and used only in diagnostics. Handlers are
 * registered while the world is built, before the run. */
SimHandlerId sim_engine_register(SimEngine *engine, const char *name, SimHandlerFn fn, void *ctx);

/* The name a handler was registered with. */
const char *sim_engine_handler_name(const SimEngine *engine, SimHandlerId handler);

/* Queues an event for handler at time_ps in the given phase. The clock is
 * the (time, phase) of the event being run: time_ps must be later than
 * sim_engine_now, or equal with a phase no lower than the running event's;
 * anything earlier is the past, a bug, and aborts. Returns the event so the
 * caller can fill target and arg (arg is not cleared); the pointer is valid
 * until the event has run. */
SimEvent *sim_engine_schedule(SimEngine *engine, uint64_t time_ps, SimPhase phase,
                              SimHandlerId handler);

/* Runs events in order until none is left, the next one is later than
 * until_ps (then the clock advances to until_ps, if that is later than now),
 * or a handler stops the run.
 * SIM_TIME_NEVER means no limit. A stopped or limited run can be resumed by
 * calling sim_engine_run again. */
SimRunOutcome sim_engine_run(SimEngine *engine, uint64_t until_ps);

/* Asks the running loop to return SIM_RUN_STOPPED after the current event. */
void sim_engine_stop(SimEngine *engine);

/* The watchdog: once max_events events have run in a row without a call
 * to sim_engine_progress, sim_engine_run returns SIM_RUN_STALLED (a
 * livelock: events keep coming but nothing the model counts as work gets
 * done). 0, the default, turns it off. Clients call sim_engine_progress
 * when a unit of work completes (a message lands, an operation ends). A
 * deadlock, where events run out before the work does, is the client's to
 * see: the run drains early. */
void sim_engine_set_watchdog(SimEngine *engine, uint64_t max_events);

/* Once called, sim_engine_run returns SIM_RUN_MEMORY when the process
 * holds more than its memory limit (core-memory.h), checked every
 * SIM_MEMORY_CHECK_EVENTS events: a run too large for the machine ends
 * with an error its client reports, not in the allocator. */
void sim_engine_watch_memory(SimEngine *engine);
void sim_engine_progress(SimEngine *engine);

/* The current simulated time in ps. */
uint64_t sim_engine_now(const SimEngine *engine);

void sim_engine_get_stats(const SimEngine *engine, SimEngineStats *stats);

/* A hash of every event executed so far (time, phase, handler, target):
 * two runs with the same inputs and seed give the same value. */
uint64_t sim_engine_trace_hash(const SimEngine *engine);
