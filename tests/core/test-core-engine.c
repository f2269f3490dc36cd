/* SPDX-License-Identifier: Apache-2.0 */
/* SimEngine: dispatch order (FIFO at equal times, phases, agreement with a
 * reference sort), time monotonicity, pool reuse, run limits and stops,
 * the watchdog and the memory limit, determinism, and the past-scheduling
 * guard. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/core-engine.h"
#include "core/core-hold.h"
#include "core/core-memory.h"
#include "core/core-rng.h"
#include "core-suites.h"

/* What a recording handler saw: one entry per event run. */
typedef struct Seen {
    uint64_t time_ps;
    uint64_t phase;
    uint64_t seq; /* arg[1]: the order the test scheduled it in */
    uint32_t target;
} Seen;

static void
on_record(SimEngine *engine, const SimEvent *event, void *ctx)
{
    GArray *seen = ctx;
    ck_assert_uint_eq(event->time_ps, sim_engine_now(engine));
    Seen s = {event->time_ps, event->arg[0], event->arg[1], event->target};
    g_array_append_val(seen, s);
}

static void
schedule_recorded(SimEngine *engine, SimHandlerId h, uint64_t time_ps, SimPhase phase, uint64_t seq,
                  uint32_t target)
{
    SimEvent *event = sim_engine_schedule(engine, time_ps, phase, h);
    event->target = target;
    event->arg[0] = phase;
    event->arg[1] = seq;
}

START_TEST(equal_times_run_fifo)
{
    SimEngine *engine = sim_engine_new();
    GArray *seen = g_array_new(FALSE, FALSE, sizeof(Seen));
    SimHandlerId h = sim_engine_register(engine, "record", on_record, seen);
    for (uint32_t i = 0; i < 100; i++)
        schedule_recorded(engine, h, 5000, 0, i, i);
    ck_assert_int_eq(sim_engine_run(engine, SIM_TIME_NEVER), SIM_RUN_DRAINED);
    ck_assert_uint_eq(seen->len, 100);
    for (uint32_t i = 0; i < 100; i++)
        ck_assert_uint_eq(g_array_index(seen, Seen, i).target, i);
    g_array_free(seen, TRUE);
    sim_engine_free(engine);
}
END_TEST

START_TEST(lower_phase_runs_first)
{
    SimEngine *engine = sim_engine_new();
    GArray *seen = g_array_new(FALSE, FALSE, sizeof(Seen));
    SimHandlerId h = sim_engine_register(engine, "record", on_record, seen);
    /* Scheduled as phases 2,1,0,2,1,0 at one time: run as 0,0,1,1,2,2 with
     * the earlier-scheduled first within a phase. */
    for (uint32_t i = 0; i < 6; i++)
        schedule_recorded(engine, h, 7, (SimPhase)(2 - i % 3), i, i);
    sim_engine_run(engine, SIM_TIME_NEVER);
    const uint32_t expect[] = {2, 5, 1, 4, 0, 3};
    for (int i = 0; i < 6; i++)
        ck_assert_uint_eq(g_array_index(seen, Seen, i).target, expect[i]);
    g_array_free(seen, TRUE);
    sim_engine_free(engine);
}
END_TEST

static int
compare_seen(const void *pa, const void *pb)
{
    const Seen *a = pa, *b = pb;
    if (a->time_ps != b->time_ps)
        return a->time_ps < b->time_ps ? -1 : 1;
    if (a->phase != b->phase)
        return a->phase < b->phase ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

START_TEST(agrees_with_reference_sort)
{
    enum { N = 100000 };
    SimEngine *engine = sim_engine_new();
    GArray *seen = g_array_new(FALSE, FALSE, sizeof(Seen));
    SimHandlerId h = sim_engine_register(engine, "record", on_record, seen);
    Seen *expect = g_new(Seen, N);
    SimRng rng;
    sim_rng_init(&rng, 2024, 0);
    for (uint32_t i = 0; i < N; i++) {
        /* Few distinct times, so ties (and the phase rule) are common. */
        uint64_t t = sim_rng_below(&rng, 5000);
        SimPhase phase = (SimPhase)sim_rng_below(&rng, 3);
        schedule_recorded(engine, h, t, phase, i, i);
        expect[i] = (Seen){t, phase, i, i};
    }
    qsort(expect, N, sizeof(Seen), compare_seen);
    sim_engine_run(engine, SIM_TIME_NEVER);
    ck_assert_uint_eq(seen->len, N);
    for (uint32_t i = 0; i < N; i++)
        ck_assert_msg(g_array_index(seen, Seen, i).target == expect[i].target,
                      "event %u: ran %u, reference sort says %u", i,
                      g_array_index(seen, Seen, i).target, expect[i].target);
    g_free(expect);
    g_array_free(seen, TRUE);
    sim_engine_free(engine);
}
END_TEST

/* A model whose handlers schedule 0 to 3 successors, some at the current
 * time, checking on every event that time never goes backwards. */
typedef struct Branching {
    SimRng rng;
    SimHandlerId handler;
    uint64_t last_ps;
    uint64_t n_run;
    uint64_t budget;
} Branching;

static void
on_branch(SimEngine *engine, const SimEvent *event, void *ctx)
{
    Branching *b = ctx;
    ck_assert_uint_ge(sim_engine_now(engine), b->last_ps);
    ck_assert_uint_eq(event->time_ps, sim_engine_now(engine));
    b->last_ps = sim_engine_now(engine);
    b->n_run++;
    uint64_t n_children = b->n_run < b->budget ? sim_rng_below(&b->rng, 4) : 0;
    for (uint64_t i = 0; i < n_children; i++) {
        /* A third of the children at the current time, in this event's
         * phase or a later one (arg[0] carries the phase). */
        uint64_t delay = sim_rng_below(&b->rng, 3) == 0 ? 0 : sim_rng_below(&b->rng, 100);
        uint64_t phase = sim_rng_below(&b->rng, 3);
        if (delay == 0 && phase < event->arg[0])
            phase = event->arg[0];
        SimEvent *next =
            sim_engine_schedule(engine, event->time_ps + delay, (SimPhase)phase, b->handler);
        next->target = event->target + 1;
        next->arg[0] = phase;
    }
}

START_TEST(time_never_goes_back)
{
    SimEngine *engine = sim_engine_new();
    Branching b = {.budget = 200000};
    sim_rng_init(&b.rng, 99, 0);
    b.handler = sim_engine_register(engine, "branch", on_branch, &b);
    for (int i = 0; i < 64; i++)
        sim_engine_schedule(engine, sim_rng_below(&b.rng, 50), 0, b.handler)->arg[0] = 0;
    ck_assert_int_eq(sim_engine_run(engine, SIM_TIME_NEVER), SIM_RUN_DRAINED);
    SimEngineStats stats;
    sim_engine_get_stats(engine, &stats);
    ck_assert_uint_eq(stats.n_events_executed, b.n_run);
    ck_assert_uint_eq(stats.n_events_scheduled, b.n_run);
    ck_assert_uint_eq(stats.n_events_pending, 0);
    ck_assert_uint_gt(b.n_run, 100000);
    sim_engine_free(engine);
}
END_TEST

START_TEST(pool_slots_are_reused)
{
    SimHoldConfig config = {.n_pending = 10, .n_events = 100000, .mean_delay_ps = 1000, .seed = 1};
    SimHoldResult r;
    sim_hold_run(&config, &r);
    /* 10 pending plus the one being dispatched; one chunk, never regrown. */
    ck_assert_uint_eq(r.pool_high_water, 11);
    ck_assert_uint_eq(r.pool_n_grows, 1);
}
END_TEST

START_TEST(pool_grows_then_reuses)
{
    SimEngine *engine = sim_engine_new();
    GArray *seen = g_array_new(FALSE, FALSE, sizeof(Seen));
    SimHandlerId h = sim_engine_register(engine, "record", on_record, seen);
    SimEngineStats stats;
    for (int round = 0; round < 3; round++) {
        for (uint32_t i = 0; i < 5000; i++)
            schedule_recorded(engine, h, sim_engine_now(engine) + i, 0, i, i);
        sim_engine_run(engine, SIM_TIME_NEVER);
        sim_engine_get_stats(engine, &stats);
        ck_assert_uint_eq(stats.pool_high_water, 5000);
        ck_assert_uint_eq(stats.pool_n_grows, 5); /* 5 chunks of 1024 slots */
        ck_assert_uint_eq(stats.pool_n_slots, 5 * 1024);
    }
    ck_assert_uint_eq(seen->len, 15000);
    g_array_free(seen, TRUE);
    sim_engine_free(engine);
}
END_TEST

START_TEST(run_until_a_limit_then_resume)
{
    SimEngine *engine = sim_engine_new();
    GArray *seen = g_array_new(FALSE, FALSE, sizeof(Seen));
    SimHandlerId h = sim_engine_register(engine, "record", on_record, seen);
    for (uint32_t i = 1; i <= 3; i++)
        schedule_recorded(engine, h, 10 * i, 0, i, i);
    ck_assert_int_eq(sim_engine_run(engine, 20), SIM_RUN_TIME_LIMIT);
    ck_assert_uint_eq(seen->len, 2); /* events at exactly the limit run */
    ck_assert_uint_eq(sim_engine_now(engine), 20);
    ck_assert_int_eq(sim_engine_run(engine, 25), SIM_RUN_TIME_LIMIT);
    ck_assert_uint_eq(sim_engine_now(engine), 25);
    ck_assert_int_eq(sim_engine_run(engine, 5), SIM_RUN_TIME_LIMIT);
    ck_assert_uint_eq(sim_engine_now(engine), 25); /* a limit in the past moves nothing */
    ck_assert_int_eq(sim_engine_run(engine, SIM_TIME_NEVER), SIM_RUN_DRAINED);
    ck_assert_uint_eq(seen->len, 3);
    ck_assert_uint_eq(sim_engine_now(engine), 30);
    g_array_free(seen, TRUE);
    sim_engine_free(engine);
}
END_TEST

static void
on_stop_at_second(SimEngine *engine, const SimEvent *event, void *ctx)
{
    int *n_run = ctx;
    if (++*n_run == 2)
        sim_engine_stop(engine);
    (void)event;
}

/* A handler that reschedules itself at the same instant forever, calling
 * sim_engine_progress every `every` events (0: never). */
typedef struct Spinner {
    uint64_t n_run, every, until;
    SimHandlerId h;
} Spinner;

static void
on_spin(SimEngine *engine, const SimEvent *event, void *ctx)
{
    Spinner *sp = ctx;
    (void)event;
    if (sp->every > 0 && ++sp->n_run % sp->every == 0)
        sim_engine_progress(engine);
    else if (sp->every == 0)
        sp->n_run++;
    if (sp->n_run < sp->until)
        sim_engine_schedule(engine, sim_engine_now(engine), 0, sp->h);
}

/* The watchdog stops a run that makes no progress after exactly its
 * number of events; progress resets it; off (0) by default. */
START_TEST(watchdog_stops_a_livelock)
{
    SimEngine *engine = sim_engine_new();
    Spinner sp = {.until = 5000};
    sp.h = sim_engine_register(engine, "spin", on_spin, &sp);
    sim_engine_schedule(engine, 7, 0, sp.h);
    sim_engine_set_watchdog(engine, 1000);
    ck_assert_int_eq(sim_engine_run(engine, SIM_TIME_NEVER), SIM_RUN_STALLED);
    ck_assert_uint_eq(sp.n_run, 1000);
    ck_assert_uint_eq(sim_engine_now(engine), 7);
    /* Progress every 999 events keeps it running to the end. */
    sp.every = 999;
    sim_engine_progress(engine);
    ck_assert_int_eq(sim_engine_run(engine, SIM_TIME_NEVER), SIM_RUN_DRAINED);
    ck_assert_uint_eq(sp.n_run, 5000);
    sim_engine_free(engine);

    engine = sim_engine_new();
    sp = (Spinner){.until = 200000};
    sp.h = sim_engine_register(engine, "spin", on_spin, &sp);
    sim_engine_schedule(engine, 0, 0, sp.h);
    ck_assert_int_eq(sim_engine_run(engine, SIM_TIME_NEVER), SIM_RUN_DRAINED);
    ck_assert_uint_eq(sp.n_run, 200000);
    sim_engine_free(engine);
}
END_TEST

/* Watching memory, a run stops at the first check past the limit
 * (NVLSIM_MEMORY_LIMIT of 1 MB, below any process's resident set), after
 * exactly SIM_MEMORY_CHECK_EVENTS events; unwatched, it drains. The
 * variable's bad values are errors naming it. */
START_TEST(memory_limit_stops_a_watched_run)
{
    g_setenv("NVLSIM_MEMORY_LIMIT", "1MB", TRUE);
    ck_assert(sim_memory_check_env(NULL));
    SimMemory m;
    ck_assert(sim_memory_exceeded(&m));
    ck_assert_uint_eq(m.limit_bytes, 1000000);
    ck_assert_str_eq(m.limit_origin, "NVLSIM_MEMORY_LIMIT");
    ck_assert_uint_gt(m.in_use_bytes, m.limit_bytes);

    SimEngine *engine = sim_engine_new();
    Spinner sp = {.until = 3 * SIM_MEMORY_CHECK_EVENTS};
    sp.h = sim_engine_register(engine, "spin", on_spin, &sp);
    sim_engine_schedule(engine, 0, 0, sp.h);
    sim_engine_watch_memory(engine);
    ck_assert_int_eq(sim_engine_run(engine, SIM_TIME_NEVER), SIM_RUN_MEMORY);
    ck_assert_uint_eq(sp.n_run, SIM_MEMORY_CHECK_EVENTS);
    sim_engine_free(engine);

    engine = sim_engine_new();
    sp = (Spinner){.until = 3 * SIM_MEMORY_CHECK_EVENTS};
    sp.h = sim_engine_register(engine, "spin", on_spin, &sp);
    sim_engine_schedule(engine, 0, 0, sp.h);
    ck_assert_int_eq(sim_engine_run(engine, SIM_TIME_NEVER), SIM_RUN_DRAINED);
    sim_engine_free(engine);

    g_autoptr(GError) error = NULL;
    sim_memory_error(&error, "the test", "nothing shrinks it");
    ck_assert(g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOMEM));
    ck_assert_ptr_nonnull(strstr(error->message, "the limit 1.0 MiB (NVLSIM_MEMORY_LIMIT)"));
    g_clear_error(&error);
    const char *bad[] = {"lots", "0", "-1GB", "1.5B"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_setenv("NVLSIM_MEMORY_LIMIT", bad[i], TRUE);
        ck_assert(!sim_memory_check_env(&error));
        ck_assert_ptr_nonnull(strstr(error->message, "NVLSIM_MEMORY_LIMIT: '"));
        g_clear_error(&error);
    }
    g_unsetenv("NVLSIM_MEMORY_LIMIT");
    ck_assert(sim_memory_check_env(NULL));
}
END_TEST

START_TEST(stop_then_resume)
{
    SimEngine *engine = sim_engine_new();
    int n_run = 0;
    SimHandlerId h = sim_engine_register(engine, "stopper", on_stop_at_second, &n_run);
    for (int i = 0; i < 4; i++)
        sim_engine_schedule(engine, (uint64_t)i, 0, h);
    ck_assert_int_eq(sim_engine_run(engine, SIM_TIME_NEVER), SIM_RUN_STOPPED);
    ck_assert_int_eq(n_run, 2);
    ck_assert_uint_eq(sim_engine_now(engine), 1);
    ck_assert_int_eq(sim_engine_run(engine, SIM_TIME_NEVER), SIM_RUN_DRAINED);
    ck_assert_int_eq(n_run, 4);
    sim_engine_free(engine);
}
END_TEST

START_TEST(handler_table)
{
    SimEngine *engine = sim_engine_new();
    int a = 0, b = 0;
    SimHandlerId ha = sim_engine_register(engine, "alpha", on_stop_at_second, &a);
    SimHandlerId hb = sim_engine_register(engine, "beta", on_stop_at_second, &b);
    ck_assert_uint_ne(ha, hb);
    ck_assert_str_eq(sim_engine_handler_name(engine, ha), "alpha");
    ck_assert_str_eq(sim_engine_handler_name(engine, hb), "beta");
    sim_engine_schedule(engine, 1, 0, hb);
    sim_engine_run(engine, SIM_TIME_NEVER);
    ck_assert_int_eq(a, 0);
    ck_assert_int_eq(b, 1);
    sim_engine_free(engine);
}
END_TEST

START_TEST(same_seed_same_trace)
{
    SimHoldConfig config = {
        .n_pending = 1000, .n_warmup = 1000, .n_events = 200000, .mean_delay_ps = 1000000};
    SimHoldResult first, second, other;
    for (int d = 0; d < 2; d++) {
        config.delay = d == 0 ? SIM_HOLD_DELAY_EXPONENTIAL : SIM_HOLD_DELAY_UNIFORM;
        config.seed = 7;
        sim_hold_run(&config, &first);
        sim_hold_run(&config, &second);
        config.seed = 8;
        sim_hold_run(&config, &other);
        ck_assert_uint_eq(first.trace_hash, second.trace_hash);
        ck_assert_uint_eq(first.end_time_ps, second.end_time_ps);
        ck_assert_uint_ne(first.trace_hash, other.trace_hash);
    }
}
END_TEST

static void
on_schedule_in_past(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)ctx;
    sim_engine_schedule(engine, event->time_ps - 1, 0, event->handler);
}

static void
on_schedule_lower_phase(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)ctx;
    sim_engine_schedule(engine, event->time_ps, 0, event->handler);
}

START_TEST(scheduling_an_earlier_phase_now_aborts)
{
    /* At the running event's time, a lower phase is already the past. */
    SimEngine *engine = sim_engine_new();
    SimHandlerId h = sim_engine_register(engine, "bad", on_schedule_lower_phase, NULL);
    sim_engine_schedule(engine, 100, 1, h);
    sim_engine_run(engine, SIM_TIME_NEVER);
}
END_TEST

START_TEST(scheduling_in_the_past_aborts)
{
    SimEngine *engine = sim_engine_new();
    SimHandlerId h = sim_engine_register(engine, "bad", on_schedule_in_past, NULL);
    sim_engine_schedule(engine, 100, 0, h);
    sim_engine_run(engine, SIM_TIME_NEVER);
}
END_TEST

Suite *
core_engine_suite(void)
{
    Suite *s = suite_create("core-engine");
    TCase *order = tcase_create("order");
    tcase_add_test(order, equal_times_run_fifo);
    tcase_add_test(order, lower_phase_runs_first);
    tcase_add_test(order, agrees_with_reference_sort);
    tcase_add_test(order, time_never_goes_back);
    tcase_add_test(order, watchdog_stops_a_livelock);
    tcase_add_test(order, memory_limit_stops_a_watched_run);
    tcase_add_test_raise_signal(order, scheduling_in_the_past_aborts, SIGABRT);
    tcase_add_test_raise_signal(order, scheduling_an_earlier_phase_now_aborts, SIGABRT);
    suite_add_tcase(s, order);

    TCase *pool = tcase_create("pool");
    tcase_add_test(pool, pool_slots_are_reused);
    tcase_add_test(pool, pool_grows_then_reuses);
    suite_add_tcase(s, pool);

    TCase *run = tcase_create("run");
    tcase_add_test(run, run_until_a_limit_then_resume);
    tcase_add_test(run, stop_then_resume);
    tcase_add_test(run, handler_table);
    tcase_add_test(run, same_seed_same_trace);
    suite_add_tcase(s, run);

    /* Generous limits: sanitizer and valgrind builds run these too. */
    tcase_set_timeout(order, 120);
    tcase_set_timeout(pool, 120);
    tcase_set_timeout(run, 120);
    return s;
}
