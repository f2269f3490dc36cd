/* SPDX-License-Identifier: Apache-2.0 */
/* Stragglers and faults in the work layer. A straggler that starts each
 * step D late stretches a synchronous step (pure data or tensor
 * parallelism on one DGX H100, every rank simulated) by exactly D; one
 * whose compute runs at rate r stretches a step whose compute is on the
 * critical path by exactly C / r - C per compute C (hand-built, to the
 * picosecond); a straggler outside the job or a replica is an error.
 * Scenarios read [faults] and [stragglers], turn the symmetric shortcut off
 * when GPUs differ, and name file, group and key in their errors.
 */
#include <string.h>

#include "core/core-time.h"
#include "work/work-gen.h"
#include "work/work-replay.h"
#include "work/work-run.h"
#include "work/work-scenario.h"
#include "work-suites.h"

#define MS (SIM_PS_PER_MS)

/* The step of stream on one DGX H100 with stragglers (may be NULL). */
static uint64_t
step_with(const WorkStream *s, const WorkStragglers *st, const char *what)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    g_autoptr(GError) error = NULL;
    ck_assert_msg(work_stream_check(s, &error), "%s: %s", what, error ? error->message : "");
    WorkReplayResult res;
    WorkReplayOptions o = {.fidelity = NET_FIDELITY_FLOW, .stragglers = st};
    ck_assert_msg(work_replay_with(s, f.system, f.graph, f.router, &o, &res, &error), "%s: %s",
                  what, error ? error->message : "");
    uint64_t step = res.step_ps;
    work_replay_result_clear(&res);
    work_test_fabric_clear(&f);
    return step;
}

static const struct {
    const char *name;
    uint32_t tp, dp;
    WorkZero zero;
    uint32_t straggler;
} delay_cases[] = {
    {"pure DP, 8 GPUs", 1, 8, WORK_ZERO_0, 3},
    {"pure DP, ZeRO 1", 1, 8, WORK_ZERO_1, 6},
    {"pure TP, 4 GPUs (the tiny model's 4 heads)", 4, 1, WORK_ZERO_0, 3},
    {"TP 2 x DP 4", 2, 4, WORK_ZERO_0, 5},
};

/* The tiny model's step (4 microbatches) with every rank detailed: one GPU
 * 7 ms late each step. Every call waits for it, and each rank's traffic is
 * only calls it is part of, so the whole step moves 7 ms later. */
START_TEST(straggler_delay_stretches_the_step)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l =
        work_test_layout(delay_cases[_i].tp, 1, delay_cases[_i].dp, 4 * delay_cases[_i].dp, 128);
    l.zero = delay_cases[_i].zero;
    l.flash_attention = true;
    g_autoptr(GError) error = NULL;
    ck_assert(work_layout_check(&l, m, &error));
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    o.symmetric = false;
    g_autoptr(WorkStream) s = work_gen_stream(m, &l, f.system->gpu, &o);
    work_test_fabric_clear(&f);
    uint32_t gpu = delay_cases[_i].straggler;
    WorkStragglers st = {.n_gpus = 1, .gpus = &gpu, .compute_rate = 1.0, .delay_ps = 7 * MS};
    uint64_t healthy = step_with(s, NULL, delay_cases[_i].name);
    uint64_t late = step_with(s, &st, delay_cases[_i].name);
    ck_assert_msg(late == healthy + 7 * MS,
                  "%s: %" G_GUINT64_FORMAT " ps late, healthy %" G_GUINT64_FORMAT
                  " ps: stretched by %" G_GUINT64_FORMAT " ps, expected 7 ms",
                  delay_cases[_i].name, late, healthy, late - healthy);
}
END_TEST

/* Eight ranks of a tensor group, each computing C then all-reducing,
 * twice. */
static WorkStream *
tp_steps(uint64_t compute_ps)
{
    WorkStream *s = work_stream_new(8);
    uint32_t ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    uint32_t group = work_stream_group(s, WORK_CAT_TP, ranks, 8);
    for (uint32_t r = 0; r < 8; r++) {
        uint32_t prev = WORK_NONE;
        for (int k = 0; k < 2; k++) {
            WorkTask c = {.kind = WORK_TASK_COMPUTE,
                          .category = WORK_CAT_COMPUTE,
                          .rank = r,
                          .group = WORK_NONE,
                          .peer = WORK_NONE,
                          .duration_ps = compute_ps};
            uint32_t t = work_stream_add(s, &c, &prev, prev == WORK_NONE ? 0 : 1, NULL);
            WorkTask a = {.kind = WORK_TASK_COLL,
                          .category = WORK_CAT_TP,
                          .rank = r,
                          .group = group,
                          .peer = WORK_NONE,
                          .op = COLL_OP_ALL_REDUCE,
                          .bytes = 8 << 20};
            prev = work_stream_add(s, &a, &t, 1, NULL);
        }
    }
    return s;
}

static const struct {
    double rate;
    uint64_t delay_ps;
    uint64_t added_ps; /* 2 x (C / rate - C) + delay, C = 4 ms */
} rate_cases[] = {
    {0.5, 0, 2 * 4 * MS},           {0.8, 0, 2 * 1 * MS}, {0.25, 0, 2 * 12 * MS},
    {0.5, 3 * MS, 8 * MS + 3 * MS}, {1.0, 0, 0},
};

/* The straggler's compute is on the critical path of every call: the step
 * grows by exactly its extra compute (and its delay). */
START_TEST(straggler_rate_stretches_its_compute)
{
    g_autoptr(WorkStream) s = tp_steps(4 * MS);
    uint32_t gpu = 6;
    WorkStragglers st = {.n_gpus = 1,
                         .gpus = &gpu,
                         .compute_rate = rate_cases[_i].rate,
                         .delay_ps = rate_cases[_i].delay_ps};
    g_autofree char *what = g_strdup_printf("rate %g, delay %" G_GUINT64_FORMAT " ps",
                                            rate_cases[_i].rate, rate_cases[_i].delay_ps);
    uint64_t healthy = step_with(s, NULL, what), slow = step_with(s, &st, what);
    ck_assert_msg(slow == healthy + rate_cases[_i].added_ps,
                  "%s: %" G_GUINT64_FORMAT " ps, healthy %" G_GUINT64_FORMAT
                  " ps, expected %" G_GUINT64_FORMAT " ps more",
                  what, slow, healthy, rate_cases[_i].added_ps);
}
END_TEST

/* A straggler outside the job, or a replica (no tasks of its own), is an
 * error naming it. */
START_TEST(straggler_must_have_its_own_compute)
{
    g_autoptr(WorkStream) s = tp_steps(MS);
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    uint32_t gpu = 8;
    WorkStragglers st = {.n_gpus = 1, .gpus = &gpu, .compute_rate = 0.5};
    WorkReplayResult res;
    g_autoptr(GError) error = NULL;
    WorkReplayOptions ro = {.fidelity = NET_FIDELITY_FLOW, .stragglers = &st};
    ck_assert(!work_replay_with(s, f.system, f.graph, f.router, &ro, &res, &error));
    ck_assert_str_eq(error->message,
                     "[stragglers] ranks: GPU 8 is not one of the job's GPUs; expected 0 to 7");
    g_clear_error(&error);

    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = work_test_layout(8, 1, 1, 2, 128);
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    g_autoptr(WorkStream) sym = work_gen_stream(m, &l, f.system->gpu, &o);
    gpu = 3;
    ck_assert(!work_replay_with(sym, f.system, f.graph, f.router, &ro, &res, &error));
    ck_assert_msg(strstr(error->message, "GPU 3 runs no compute task of its own") != NULL, "%s",
                  error->message);
    work_test_fabric_clear(&f);
}
END_TEST

/* ---- Scenarios. ---- */

#define BASE                                                                                       \
    "[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\n[layout]\ntp = 8\n[batch]\n"                \
    "global_batch = 8\n"

static WorkScenario *
load(const char *text, char **sets, GError **error)
{
    g_autofree char *models = work_test_models_dir();
    return work_scenario_load_data(text, "s.ini", sets, models, error);
}

START_TEST(scenario_reads_faults_and_stragglers)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkScenario) s = load(BASE "[stragglers]\nranks = 5, 3 3\ncompute_rate = 0.5\n"
                                          "step_delay = 2ms\n[faults]\nplanes_down = 1\n",
                                     NULL, &error);
    ck_assert_msg(s != NULL, "%s", error ? error->message : "");
    ck_assert_uint_eq(s->stragglers.n_gpus, 2);
    ck_assert_uint_eq(s->stragglers.gpus[0], 3);
    ck_assert_uint_eq(s->stragglers.gpus[1], 5);
    ck_assert(s->stragglers.compute_rate == 0.5);
    ck_assert_uint_eq(s->stragglers.delay_ps, 2 * MS);
    ck_assert(topo_faults_plane_down(s->faults, 1));
    ck_assert(!s->gen.symmetric);
    g_autofree char *text = work_stragglers_describe(&s->stragglers);
    ck_assert_str_eq(text, "GPUs 3, 5: at 0.5 of their compute rate, 2 ms late each step");

    /* A plane down leaves every GPU alike: the shortcut stays; a GPU's
     * link down, or --set of a straggler, turns it off. */
    g_autoptr(WorkScenario) plane = load(BASE "[faults]\nplanes_down = 1\n", NULL, &error);
    ck_assert(plane != NULL && plane->gen.symmetric);
    char *sets[] = {"faults.links_down=3:1x2", NULL};
    g_autoptr(WorkScenario) link = load(BASE, sets, &error);
    ck_assert(link != NULL && !link->gen.symmetric);
    char *sets2[] = {"stragglers.ranks=2", "step_delay=1ms", NULL};
    g_autoptr(WorkScenario) late = load(BASE, sets2, &error);
    ck_assert(late != NULL && !late->gen.symmetric && late->stragglers.delay_ps == MS);
    char *sets3[] = {"stragglers.ranks=2", NULL};
    g_autoptr(WorkScenario) idle = load(BASE, sets3, &error);
    ck_assert(idle != NULL && idle->gen.symmetric);
}
END_TEST

/* A slow host is its GPUs: on two DGX H100 hosts (tp 8, dp 2), host 1
 * at half its compute rate is ranks 8 to 15 at half theirs, to the
 * picosecond; a host beyond the job's is an error naming the key. */
static uint64_t
step_of(const char *text, char **sets)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkScenario) s = load(text, sets, &error);
    ck_assert_msg(s != NULL, "%s", error ? error->message : "");
    WorkRunResult r;
    ck_assert_msg(work_run_scenario(s, NULL, NULL, &r, NULL, &error), "%s",
                  error ? error->message : "");
    uint64_t step = r.replay.step_ps;
    work_run_result_clear(&r);
    return step;
}

START_TEST(slow_host_is_its_gpus)
{
    char *two[] = {"dp=2", NULL};
    uint64_t host = step_of(BASE "[stragglers]\nhosts = 1\ncompute_rate = 0.5\n", two);
    uint64_t ranks = step_of(
        BASE "[stragglers]\nranks = 8, 9, 10, 11, 12, 13, 14, 15\ncompute_rate = 0.5\n", two);
    uint64_t none = step_of(BASE, two);
    ck_assert_uint_eq(host, ranks);
    ck_assert_uint_gt(host, none);
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkScenario) s =
        load(BASE "[stragglers]\nhosts = 2\ncompute_rate = 0.5\n", two, &error);
    ck_assert_msg(s != NULL, "%s", error ? error->message : "");
    ck_assert(!s->gen.symmetric);
    g_autofree char *text = work_stragglers_describe(&s->stragglers);
    ck_assert_str_eq(text, "the GPUs of host 2: at 0.5 of their compute rate");
    WorkRunResult r;
    ck_assert(!work_run_scenario(s, NULL, NULL, &r, NULL, &error));
    ck_assert_msg(strstr(error->message, "s.ini: [stragglers] hosts: host 2 is not one of the "
                                         "job's 2 hosts; expected 0 to 1") != NULL,
                  "%s", error->message);
}
END_TEST

static const struct {
    const char *name;
    const char *text;
    const char *set;
    const char *expect;
} bad_cases[] = {
    {"hosts not a number", "[stragglers]\nhosts = tray3\n", NULL,
     "s.ini: [stragglers] hosts: 'tray3' is not a host number; expected hosts of the job"},
    {"ranks not a number", "[stragglers]\nranks = three\n", NULL,
     "s.ini: [stragglers] ranks: 'three' is not a GPU number; expected GPUs of the job"},
    {"ranks beyond the job", "[stragglers]\nranks = 8\ncompute_rate = 0.5\n", NULL,
     "s.ini: [stragglers] ranks: GPU 8 is not one of the job's 8 GPUs; expected 0 to 7"},
    {"no ranks", "[stragglers]\ncompute_rate = 0.5\n", NULL,
     "s.ini: [stragglers] ranks: missing; expected GPUs of the job that straggle"},
    {"rate 0", "[stragglers]\nranks = 1\ncompute_rate = 0\n", NULL,
     "s.ini: [stragglers] compute_rate: '0' is out of range: expected a share above 0 and at "
     "most 1"},
    {"rate above 1", "[stragglers]\nranks = 1\ncompute_rate = 2\n", NULL,
     "s.ini: [stragglers] compute_rate: '2' is out of range"},
    {"rate NaN", "[stragglers]\nranks = 1\ncompute_rate = NaN\n", NULL,
     "s.ini: [stragglers] compute_rate: 'NaN' is not a number"},
    {"delay without a unit", "[stragglers]\nranks = 1\nstep_delay = 5\n", NULL,
     "s.ini: [stragglers] step_delay: "},
    {"unknown straggler key", "[stragglers]\nranks = 1\ndelay = 5ms\n", NULL,
     "s.ini: [stragglers] delay: unknown key; expected one of: ranks, hosts, compute_rate, step_delay"},
    {"unknown fault key", "[faults]\nplane = 1\n", NULL,
     "s.ini: [faults] plane: unknown key; expected one of: planes_down"},
    {"bad fault list", "[faults]\nlinks_down = 3\n", NULL,
     "s.ini: [faults] links_down: '3' is malformed"},
    {"fault rate 0 by --set", "[faults]\nslow_links = 0:0\nslow_rate = 0.5\n", "faults.slow_rate=0",
     "s.ini: [faults] slow_rate: '0' is out of range"},
    {"unknown --set key", "", "faults.plane=1",
     "--set faults.plane=1: unknown key faults.plane; groups are scenario, layout, batch, "
     "precision, faults, stragglers"},
};

START_TEST(bad_scenarios_name_file_group_key)
{
    g_autofree char *text = g_strconcat(BASE, bad_cases[_i].text, NULL);
    char *sets[] = {(char *)bad_cases[_i].set, NULL};
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkScenario) s = load(text, bad_cases[_i].set ? sets : NULL, &error);
    ck_assert_msg(s == NULL, "%s: loaded", bad_cases[_i].name);
    ck_assert_msg(strstr(error->message, bad_cases[_i].expect) != NULL,
                  "%s: message '%s' lacks '%s'", bad_cases[_i].name, error->message,
                  bad_cases[_i].expect);
}
END_TEST

Suite *
work_fault_suite(void)
{
    Suite *s = suite_create("work-fault");
    TCase *tc = tcase_create("stragglers");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, straggler_delay_stretches_the_step, 0, G_N_ELEMENTS(delay_cases));
    tcase_add_loop_test(tc, straggler_rate_stretches_its_compute, 0, G_N_ELEMENTS(rate_cases));
    tcase_add_test(tc, straggler_must_have_its_own_compute);
    suite_add_tcase(s, tc);
    tc = tcase_create("scenario");
    tcase_add_test(tc, scenario_reads_faults_and_stragglers);
    tcase_add_test(tc, slow_host_is_its_gpus);
    tcase_add_loop_test(tc, bad_scenarios_name_file_group_key, 0, G_N_ELEMENTS(bad_cases));
    suite_add_tcase(s, tc);
    return s;
}
