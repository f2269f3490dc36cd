/* SPDX-License-Identifier: Apache-2.0 */
/* The analytic tier's steady state (work-run.c): a step of many
 * microbatches, composed from two short replays of its steady state, is
 * the step replayed whole to the picosecond, and so is the first detailed
 * rank's every part of its time (the mean over ranks within the rounding
 * of the replays' means, times the microbatches extended), for 1F1B and
 * the interleaved schedule, with data, tensor, context and expert
 * parallelism, userbuffers overlap and FSDP; a step too short for it, a
 * GPipe one, a flow-fidelity one and one whose stream is asked for are
 * replayed whole. */
#include "work-suites.h"
#include "work/work-run.h"

/* scenario (a file's text) with sets, at the analytic tier, composed from
 * its steady state or not. */
static void
run(const char *scenario, char **sets, bool steady, WorkRunResult *result)
{
    g_autofree char *models = work_test_models_dir();
    g_setenv("NVLSIM_MODELS", models, TRUE);
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkScenario) s = work_scenario_load_data(scenario, "s.ini", sets, models, &error);
    ck_assert_msg(s != NULL, "%s", error ? error->message : "");
    s->steady = steady;
    ck_assert_msg(work_run_scenario(s, NULL, NULL, result, NULL, &error), "%s",
                  error ? error->message : "");
}

#define LLAMA                                                                                      \
    "[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\nfidelity = analytic\n[layout]\n"           \
    "tp = 2\npp = 2\ndp = 2\nsp = yes\n[batch]\nglobal_batch = 64\nseq_len = 2048\n"
#define MIXTRAL                                                                                    \
    "[scenario]\nsystem = dgx-h100\nmodel = mixtral-8x7b\nfidelity = analytic\n[layout]\n"        \
    "tp = 1\npp = 2\ndp = 8\nep = 8\n[batch]\nglobal_batch = 192\nseq_len = 1024\n"

static const struct {
    const char *scenario;
    const char *sets[4];
    uint32_t m, m1, m2; /* the step's microbatches, and the replays' */
} cases[] = {
    {LLAMA, {NULL}, 32, 4, 5},
    {LLAMA, {"layout.vp=2", NULL}, 32, 4, 6},
    {LLAMA, {"batch.micro_batch=2", NULL}, 16, 4, 5},
    {LLAMA, {"layout.cp=2", "layout.dp=1", NULL}, 64, 4, 5},
    {LLAMA, {"layout.tp_comm_overlap=yes", "layout.pp=4", "layout.dp=1", NULL}, 64, 8, 9},
    {LLAMA, {"layout.zero=3", "layout.fsdp=yes", "layout.pp=1", NULL}, 32, 2, 3},
    {MIXTRAL, {NULL}, 24, 4, 5},
};

START_TEST(steady_state_is_the_whole_step)
{
    char **sets = (char **)cases[_i].sets;
    WorkRunResult whole, steady;
    run(cases[_i].scenario, sets, false, &whole);
    run(cases[_i].scenario, sets, true, &steady);
    ck_assert_uint_eq(whole.replayed_microbatches[0], 0);
    ck_assert_uint_eq(steady.replayed_microbatches[0], cases[_i].m1);
    ck_assert_uint_eq(steady.replayed_microbatches[1], cases[_i].m2);
    ck_assert_msg(steady.replay.step_ps == whole.replay.step_ps,
                  "case %d: steady %" G_GUINT64_FORMAT " ps, whole %" G_GUINT64_FORMAT " ps", _i,
                  steady.replay.step_ps, whole.replay.step_ps);
    /* The parts: the first rank's exact; the means over the detailed
     * ranks rounded down in each replay, a picosecond at most, which the
     * extension multiplies by the rounds added, q. */
    int64_t rounds = (cases[_i].m - cases[_i].m1) / (cases[_i].m2 - cases[_i].m1);
    for (int k = 0; k < WORK_N_TIMES; k++) {
        int64_t d = (int64_t)steady.replay.time_ps[k] - (int64_t)whole.replay.time_ps[k];
        ck_assert_msg(d >= -rounds - 1 && d <= rounds + 1, "case %d, %s: steady %" G_GUINT64_FORMAT
                      " ps, whole %" G_GUINT64_FORMAT " ps", _i, work_time_name(k),
                      steady.replay.time_ps[k], whole.replay.time_ps[k]);
        ck_assert_uint_eq(steady.replay.rank_time_ps[k], whole.replay.rank_time_ps[k]);
    }
    ck_assert_uint_eq(steady.replay.flops, whole.replay.flops);
    /* The compute's slowing beside collectives, a mean rounded down too. */
    int64_t slowed = (int64_t)steady.replay.slowed_ps - (int64_t)whole.replay.slowed_ps;
    ck_assert_msg(slowed >= -rounds - 1 && slowed <= rounds + 1,
                  "case %d, slowed: steady %" G_GUINT64_FORMAT " ps, whole %" G_GUINT64_FORMAT
                  " ps",
                  _i, steady.replay.slowed_ps, whole.replay.slowed_ps);
    ck_assert_double_eq(steady.tokens_per_s, whole.tokens_per_s);
    ck_assert_uint_lt(steady.n_tasks, whole.n_tasks);
    work_run_result_clear(&whole);
    work_run_result_clear(&steady);
}
END_TEST

/* Replayed whole: too few microbatches (8 of them, under m1 + m2 = 9),
 * GPipe, flow fidelity, and a stream asked for. */
START_TEST(short_flow_and_streamed_steps_replay_whole)
{
    char *few[] = {"batch.global_batch=16", NULL};
    WorkRunResult r;
    run(LLAMA, few, true, &r);
    ck_assert_uint_eq(r.replayed_microbatches[0], 0);
    work_run_result_clear(&r);
    char *gpipe[] = {"layout.schedule=gpipe", NULL};
    run(LLAMA, gpipe, true, &r);
    ck_assert_uint_eq(r.replayed_microbatches[0], 0);
    work_run_result_clear(&r);
    char *flow[] = {"scenario.fidelity=flow", NULL};
    run(LLAMA, flow, true, &r);
    ck_assert_uint_eq(r.replayed_microbatches[0], 0);
    work_run_result_clear(&r);
    g_autofree char *models = work_test_models_dir();
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkScenario) s = work_scenario_load_data(LLAMA, "s.ini", NULL, models, &error);
    ck_assert_msg(s != NULL, "%s", error ? error->message : "");
    WorkStream *stream = NULL;
    ck_assert(work_run_scenario(s, NULL, NULL, &r, &stream, &error));
    ck_assert_uint_eq(r.replayed_microbatches[0], 0);
    ck_assert_uint_eq(r.n_tasks, stream->tasks->len);
    work_stream_free(stream);
    work_run_result_clear(&r);
}
END_TEST

Suite *
work_steady_suite(void)
{
    Suite *s = suite_create("work-steady");
    TCase *tc = tcase_create("steady");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, steady_state_is_the_whole_step, 0, G_N_ELEMENTS(cases));
    tcase_add_test(tc, short_flow_and_streamed_steps_replay_whole);
    suite_add_tcase(s, tc);
    return s;
}
