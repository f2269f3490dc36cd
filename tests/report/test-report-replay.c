/* SPDX-License-Identifier: Apache-2.0 */
/* Traces of generated steps: a step work_gen_stream writes (tensor,
 * pipeline and data parallelism, sequence parallelism and its userbuffers
 * overlap, ZeRO, replicas, interleaving, recompute) written with report_trace_write and read back
 * with work_trace_read replays to the same step, to the picosecond, with
 * the same breakdown and the same task times, on a DGX H100. */
#include <glib/gstdio.h>

#include "report/report-trace.h"
#include "report-suites.h"
#include "work-test-support.h"
#include "work/work-gen.h"
#include "work/work-replay.h"

static const struct {
    uint32_t tp, pp, dp, vp;
    bool sp, symmetric, tp_overlap;
    WorkZero zero;
    WorkRecompute recompute;
    WorkSchedule schedule;
    uint64_t microbatches;
} cases[] = {
    {2, 1, 1, 1, false, true, false, WORK_ZERO_0, WORK_RECOMPUTE_NONE, WORK_SCHEDULE_1F1B, 2},
    {2, 2, 2, 1, false, true, false, WORK_ZERO_1, WORK_RECOMPUTE_NONE, WORK_SCHEDULE_1F1B, 4},
    {2, 2, 2, 1, true, false, false, WORK_ZERO_0, WORK_RECOMPUTE_FULL, WORK_SCHEDULE_GPIPE, 2},
    {1, 2, 4, 2, false, true, false, WORK_ZERO_3, WORK_RECOMPUTE_SELECTIVE,
     WORK_SCHEDULE_INTERLEAVED, 4},
    {1, 4, 2, 1, false, true, false, WORK_ZERO_2, WORK_RECOMPUTE_NONE, WORK_SCHEDULE_1F1B, 6},
    {2, 2, 2, 1, true, true, true, WORK_ZERO_1, WORK_RECOMPUTE_NONE, WORK_SCHEDULE_1F1B, 4},
};

START_TEST(generated_step_replays_the_same_from_a_trace)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = {
        .tp = cases[_i].tp,
        .cp = 1,
        .pp = cases[_i].pp,
        .dp = cases[_i].dp,
        .vp = cases[_i].vp,
        .ep = 1,
        .sp = cases[_i].sp,
        .flash_attention = true,
        .zero = cases[_i].zero,
        .recompute = cases[_i].recompute,
        .schedule = cases[_i].schedule,
        .global_batch = cases[_i].microbatches * cases[_i].dp,
        .micro_batch = 1,
        .seq_len = 128,
        .param_bytes = 2,
        .grad_bytes = 4,
        .optimizer_bytes = 12,
        .activation_bytes = 2,
    };
    g_autofree char *what = g_strdup_printf("case %d", _i);
    g_autoptr(GError) error = NULL;
    ck_assert_msg(work_layout_check(&l, m, &error), "%s: %s", what, error ? error->message : "");
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    o.symmetric = cases[_i].symmetric;
    o.tp_overlap = cases[_i].tp_overlap;
    g_autoptr(WorkStream) s = work_gen_stream(m, &l, f.system->gpu, &o);
    ck_assert_msg(work_stream_check(s, &error), "%s: %s", what, error ? error->message : "");

    g_autofree char *dir = g_dir_make_tmp("test-report-replay-XXXXXX", NULL);
    ck_assert(dir != NULL);
    g_autofree char *path = g_build_filename(dir, "step.csv", NULL);
    bool written = report_trace_write(s, path, &error);
    g_autoptr(WorkStream) back = written ? work_trace_read(path, &error) : NULL;
    g_unlink(path);
    g_rmdir(dir);
    ck_assert_msg(written, "%s: write: %s", what, error ? error->message : "");
    ck_assert_msg(back != NULL, "%s: read: %s", what, error ? error->message : "");
    ck_assert_uint_eq(back->tasks->len, s->tasks->len);
    ck_assert(memcmp(back->replicas, s->replicas, sizeof s->replicas) == 0);

    WorkReplayResult a, b;
    work_test_replay(&f, s, what, &a);
    work_test_replay(&f, back, what, &b);
    ck_assert_uint_gt(a.step_ps, 0);
    ck_assert_msg(a.step_ps == b.step_ps,
                  "%s: generated %" G_GUINT64_FORMAT " ps, from the trace %" G_GUINT64_FORMAT, what,
                  a.step_ps, b.step_ps);
    for (int k = 0; k < WORK_N_TIMES; k++) {
        ck_assert_msg(a.time_ps[k] == b.time_ps[k],
                      "%s: %s %" G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT, what, work_time_name(k),
                      a.time_ps[k], b.time_ps[k]);
        ck_assert_uint_eq(a.rank_time_ps[k], b.rank_time_ps[k]);
    }
    ck_assert_uint_eq(a.n_detailed, b.n_detailed);
    ck_assert_uint_eq(a.n_calls, b.n_calls);
    ck_assert_uint_eq(a.flops, b.flops);
    /* The trace keeps each rank's tasks in order, and so their times. */
    for (guint i = 0; i < s->tasks->len; i++) {
        ck_assert_uint_eq(g_array_index(a.start_ps, uint64_t, i),
                          g_array_index(b.start_ps, uint64_t, i));
        ck_assert_uint_eq(g_array_index(a.end_ps, uint64_t, i),
                          g_array_index(b.end_ps, uint64_t, i));
    }
    work_replay_result_clear(&a);
    work_replay_result_clear(&b);
    work_test_fabric_clear(&f);
}
END_TEST

Suite *
report_replay_suite(void)
{
    Suite *s = suite_create("report-replay");
    TCase *tc = tcase_create("round-trip");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, generated_step_replays_the_same_from_a_trace, 0, G_N_ELEMENTS(cases));
    suite_add_tcase(s, tc);
    return s;
}
