/* SPDX-License-Identifier: Apache-2.0 */
/* The runs' shared cache (work-cache.h): scenarios run with one cache give
 * the same results, to the picosecond and task by task, as each run alone;
 * a world is built once per system and node count, and a rerun simulates
 * no call shape again. */
#include "work-suites.h"
#include "work/work-run.h"

#define BASE                                                                                       \
    "[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\n[layout]\ntp = 4\npp = 2\ndp = 2\n"         \
    "[batch]\nglobal_batch = 16\n"

/* The base with sets (NULL-terminated), run with cache (or NULL). */
static void
run(char **sets, WorkCache *cache, WorkRunResult *result)
{
    g_autofree char *models = work_test_models_dir();
    g_setenv("NVLSIM_MODELS", models, TRUE);
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkScenario) s = work_scenario_load_data(BASE, "s.ini", sets, models, &error);
    ck_assert_msg(s != NULL, "%s", error ? error->message : "");
    ck_assert_msg(work_run_scenario(s, cache, NULL, result, NULL, &error), "%s",
                  error ? error->message : "");
}

START_TEST(cached_runs_as_alone)
{
    /* Two node counts (16 and 8 GPUs: 2 and 1 nodes), both tiers, two
     * microbatch sizes: shapes shared across sizes, tiers kept apart (the
     * analytic tier first: its shapes have no flows' time alone, which
     * the flow tier's would wrongly take). */
    char *sets[][3] = {
        {"batch.micro_batch=1", "scenario.fidelity=analytic", NULL},
        {"batch.micro_batch=2", "scenario.fidelity=analytic", NULL},
        {"batch.micro_batch=1", NULL, NULL},
        {"batch.micro_batch=2", NULL, NULL},
        {"batch.micro_batch=1", "layout.dp=1", NULL},
    };
    g_autoptr(WorkCache) cache = work_cache_new();
    for (int pass = 0; pass < 2; pass++) {
        guint n_worlds, n_shapes;
        work_cache_counts(cache, &n_worlds, &n_shapes);
        for (size_t k = 0; k < G_N_ELEMENTS(sets); k++) {
            WorkRunResult alone, cached;
            run(sets[k], NULL, &alone);
            run(sets[k], cache, &cached);
            ck_assert_uint_eq(cached.replay.step_ps, alone.replay.step_ps);
            ck_assert_uint_eq(cached.replay.start_ps->len, alone.replay.start_ps->len);
            for (guint t = 0; t < alone.replay.start_ps->len; t++) {
                ck_assert_uint_eq(g_array_index(cached.replay.start_ps, uint64_t, t),
                                  g_array_index(alone.replay.start_ps, uint64_t, t));
                ck_assert_uint_eq(g_array_index(cached.replay.end_ps, uint64_t, t),
                                  g_array_index(alone.replay.end_ps, uint64_t, t));
            }
            work_run_result_clear(&alone);
            work_run_result_clear(&cached);
        }
        guint n_worlds_after, n_shapes_after;
        work_cache_counts(cache, &n_worlds_after, &n_shapes_after);
        ck_assert_uint_eq(n_worlds_after, 2);
        ck_assert_uint_gt(n_shapes_after, 0);
        /* The second pass finds every shape the first simulated. */
        if (pass == 1)
            ck_assert_uint_eq(n_shapes_after, n_shapes);
    }
}
END_TEST

Suite *
work_cache_suite(void)
{
    Suite *s = suite_create("work-cache");
    TCase *tc = tcase_create("cache");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, cached_runs_as_alone);
    suite_add_tcase(s, tc);
    return s;
}
