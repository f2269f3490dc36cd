/* SPDX-License-Identifier: Apache-2.0 */
/* SimQueue: the ladder queue against a reference (linear scan for the
 * minimum) under random monotone pushes and pops, its structure checked as
 * it goes; the push that lands before a freshly built window; and entries
 * so far apart that a bucket would span the whole clock. */
#include "core/core-queue.h"
#include "core/core-rng.h"
#include "core-suites.h"

typedef struct Reference {
    GArray *entries; /* unsorted */
} Reference;

static SimQueueEntry
reference_pop_min(Reference *r)
{
    guint best = 0;
    for (guint i = 1; i < r->entries->len; i++)
        if (sim_queue_entry_before(&g_array_index(r->entries, SimQueueEntry, i),
                                   &g_array_index(r->entries, SimQueueEntry, best)))
            best = i;
    SimQueueEntry e = g_array_index(r->entries, SimQueueEntry, best);
    g_array_remove_index_fast(r->entries, best);
    return e;
}

/* Delay scales: ties (0), short, and far beyond the window. */
static const uint64_t spreads_ps[] = {1, 100, 1000000, UINT64_C(1) << 40};

START_TEST(matches_reference)
{
    uint64_t spread = spreads_ps[_i];
    SimQueue q;
    sim_queue_init(&q);
    Reference ref = {g_array_new(FALSE, FALSE, sizeof(SimQueueEntry))};
    SimRng rng;
    sim_rng_init(&rng, 21, _i);
    uint64_t now = 0, seq = 0;
    for (int step = 0; step < 40000; step++) {
        bool push = q.n_entries == 0 || sim_rng_below(&rng, 100) < (step < 20000 ? 60 : 40);
        if (push) {
            uint64_t delay = sim_rng_below(&rng, 4) == 0 ? 0 : sim_rng_below(&rng, spread);
            uint8_t phase = (uint8_t)sim_rng_below(&rng, 3);
            SimQueueEntry e = {now + delay, sim_queue_order(phase, seq), (uint32_t)seq};
            seq++;
            sim_queue_push(&q, e.time_ps, e.order, e.slot);
            g_array_append_val(ref.entries, e);
        } else {
            const SimQueueEntry *top = sim_queue_top(&q);
            SimQueueEntry expect = reference_pop_min(&ref);
            ck_assert_msg(top->slot == expect.slot,
                          "step %d: queue gives %u at %" PRIu64 " ps, reference %u at %" PRIu64
                          " ps",
                          step, top->slot, top->time_ps, expect.slot, expect.time_ps);
            now = top->time_ps;
            sim_queue_pop(&q);
        }
        ck_assert_uint_eq(q.n_entries, ref.entries->len);
        if (step % 499 == 0)
            ck_assert_msg(sim_queue_is_valid(&q), "step %d: structure broken", step);
    }
    while (q.n_entries > 0) {
        ck_assert_uint_eq(sim_queue_top(&q)->slot, reference_pop_min(&ref).slot);
        sim_queue_pop(&q);
    }
    ck_assert_uint_gt(q.n_rebuilds, 0);
    g_array_free(ref.entries, TRUE);
    sim_queue_clear(&q);
}
END_TEST

START_TEST(push_before_window)
{
    /* A window is built at 1000 ps when top() is asked (the engine does this
     * before stopping at a time limit); then something is scheduled at 500
     * ps, before the window starts. It must come out first. */
    SimQueue q;
    sim_queue_init(&q);
    for (uint32_t i = 0; i < 100; i++) {
        sim_queue_push(&q, 1000 + 10 * i, sim_queue_order(0, i), i);
    }
    ck_assert_uint_eq(sim_queue_top(&q)->time_ps, 1000);
    sim_queue_push(&q, 500, sim_queue_order(0, 100), 100);
    ck_assert(sim_queue_is_valid(&q));
    ck_assert_uint_eq(sim_queue_top(&q)->slot, 100);
    sim_queue_pop(&q);
    for (uint32_t i = 0; i < 100; i++) {
        ck_assert_uint_eq(sim_queue_top(&q)->slot, i);
        sim_queue_pop(&q);
    }
    ck_assert_uint_eq(q.n_entries, 0);
    sim_queue_clear(&q);
}
END_TEST

/* A few entries a day of simulated time apart (a link slowed a
 * hundred-billion-fold, a step of hours): the coarse rung's bucket width
 * comes out at 2^64 ps or more, which must stay a valid shift. */
static const uint64_t far_ps[][3] = {
    {UINT64_C(88392001596991764), 8625164, 8625164 + 1},
    {UINT64_MAX - 1, 2, UINT64_C(1) << 62},
    {UINT64_MAX / 2, UINT64_MAX, 3},
};

START_TEST(far_apart)
{
    SimQueue q;
    sim_queue_init(&q);
    sim_queue_push(&q, 1, sim_queue_order(0, 0), 0);
    ck_assert_uint_eq(sim_queue_top(&q)->slot, 0);
    sim_queue_pop(&q);
    /* Pushed out of order, after the first window was spent: the queue
     * rebuilds its coarse rung from them and gives them back sorted. */
    for (uint32_t i = 0; i < G_N_ELEMENTS(far_ps[_i]); i++)
        sim_queue_push(&q, far_ps[_i][i], sim_queue_order(0, i + 1), i + 1);
    uint64_t last = 0;
    uint32_t n_popped = 0;
    while (q.n_entries > 0) {
        const SimQueueEntry *top = sim_queue_top(&q);
        ck_assert_msg(top->time_ps >= last, "case %d: %" PRIu64 " ps after %" PRIu64 " ps", _i,
                      top->time_ps, last);
        ck_assert_msg(sim_queue_is_valid(&q), "case %d: structure broken", _i);
        last = top->time_ps;
        sim_queue_pop(&q);
        n_popped++;
    }
    ck_assert_uint_eq(n_popped, G_N_ELEMENTS(far_ps[_i]));
    sim_queue_clear(&q);
}
END_TEST

Suite *
core_queue_suite(void)
{
    Suite *s = suite_create("core-queue");
    TCase *tc = tcase_create("queue");
    tcase_add_loop_test(tc, matches_reference, 0, sizeof spreads_ps / sizeof spreads_ps[0]);
    tcase_add_test(tc, push_before_window);
    tcase_add_loop_test(tc, far_apart, 0, G_N_ELEMENTS(far_ps));
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
