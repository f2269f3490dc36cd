/* SPDX-License-Identifier: Apache-2.0 */
/* A training job's ranks on trays and racks, written out by hand: Llama
 * 3.1 405B's layout of Megatron-Bridge's GB300 rows (tp 4, pp 8, dp 8) on
 * 256 GPUs, 3.6 racks' worth. Its 64 trays spread over 4 racks of 16;
 * Megatron-LM orders ranks tp innermost, then dp, then pp, so rank r is
 * GPU r % 4 of tray (r / 4) % 16 of rack r / 64: a tp group is one tray,
 * a dp group 8 trays of one rack, a pp group two ranks a rack. */
#include <string.h>

#include "work-suites.h"
#include "work/work-run.h"

#define LLAMA_405B                                                                                 \
    "[scenario]\nsystem = gb300-nvl72\nmodel = llama3.1-405b\nfidelity = analytic\n"               \
    "[layout]\ntp = 4\npp = 8\ndp = 8\nvp = 4\nsp = yes\naccount_for_embedding = yes\n"            \
    "account_for_loss = yes\n[batch]\nglobal_batch = 64\nseq_len = 8192\n"

/* The rack, tray and GPU of the tray that rank r's GPU is on in world. */
static void
where(const TopoWorld *world, uint32_t r, uint32_t *rack, uint32_t *tray, uint32_t *gpu)
{
    const TopoVertex *v = topo_graph_vertex(world->graph, topo_graph_gpu_vertex(world->graph, r));
    *rack = v->node;
    *tray = v->index / 4;
    *gpu = v->index % 4;
}

START_TEST(megatron_ranks_on_racks_by_hand)
{
    g_autofree char *models = work_test_models_dir();
    g_setenv("NVLSIM_MODELS", models, TRUE);
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkScenario) s = work_scenario_load_data(LLAMA_405B, "s.ini", NULL, models, &error);
    ck_assert_msg(s != NULL, "%s", error ? error->message : "");
    g_autoptr(TopoWorld) world = NULL;
    WorkRunResult result;
    ck_assert_msg(work_run_scenario(s, NULL, &world, &result, NULL, &error), "%s",
                  error ? error->message : "");
    ck_assert_uint_eq(result.n_gpus, 256);
    ck_assert_uint_eq(result.n_hosts, 64);
    ck_assert_uint_eq(result.n_domains, 4);
    ck_assert_uint_eq(world->graph->n_nodes, 4);
    ck_assert_uint_eq(world->system->n_hosts, 16); /* each rack narrowed to its 16 trays */
    static const struct {
        uint32_t rank, rack, tray, gpu;
    } ranks[] = {
        {0, 0, 0, 0},  {3, 0, 0, 3},   {4, 0, 1, 0},   {63, 0, 15, 3},
        {64, 1, 0, 0}, {100, 1, 9, 0}, {131, 2, 0, 3}, {255, 3, 15, 3},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(ranks); i++) {
        uint32_t rack, tray, gpu;
        where(world, ranks[i].rank, &rack, &tray, &gpu);
        ck_assert_msg(rack == ranks[i].rack && tray == ranks[i].tray && gpu == ranks[i].gpu,
                      "rank %u: rack %u tray %u GPU %u", ranks[i].rank, rack, tray, gpu);
    }
    /* Rank 100 (tp 0, dp 1, pp 3): its tp group is tray 9 of rack 1, its
     * dp group ranks 96 + 4k, trays 8 to 15 of rack 1, its pp group
     * ranks 4 + 32k, two in each rack. */
    for (uint32_t t = 0; t < 4; t++) {
        uint32_t rack, tray, gpu;
        where(world, 100 + t, &rack, &tray, &gpu);
        ck_assert(rack == 1 && tray == 9 && gpu == t);
    }
    for (uint32_t k = 0; k < 8; k++) {
        uint32_t rack, tray, gpu;
        where(world, 96 + 4 * k, &rack, &tray, &gpu);
        ck_assert(rack == 1 && tray == 8 + k && gpu == 0);
    }
    uint32_t per_rack[4] = {0};
    for (uint32_t k = 0; k < 8; k++) {
        uint32_t rack, tray, gpu;
        where(world, 4 + 32 * k, &rack, &tray, &gpu);
        per_rack[rack]++;
    }
    for (uint32_t d = 0; d < 4; d++)
        ck_assert_uint_eq(per_rack[d], 2);
    work_run_result_clear(&result);
}
END_TEST

/* Told 8 racks of 8 trays, the same job: rank r on rack r / 32. */
START_TEST(domains_stated)
{
    g_autofree char *models = work_test_models_dir();
    g_setenv("NVLSIM_MODELS", models, TRUE);
    g_autoptr(GError) error = NULL;
    char *sets[] = {"scenario.domains=8", NULL};
    g_autoptr(WorkScenario) s = work_scenario_load_data(LLAMA_405B, "s.ini", sets, models, &error);
    ck_assert_msg(s != NULL, "%s", error ? error->message : "");
    g_autoptr(TopoWorld) world = NULL;
    WorkRunResult result;
    ck_assert_msg(work_run_scenario(s, NULL, &world, &result, NULL, &error), "%s",
                  error ? error->message : "");
    ck_assert_uint_eq(result.n_domains, 8);
    ck_assert_uint_eq(world->system->n_hosts, 8);
    uint32_t rack, tray, gpu;
    where(world, 100, &rack, &tray, &gpu);
    ck_assert(rack == 3 && tray == 1 && gpu == 0);
    work_run_result_clear(&result);
}
END_TEST

/* 3.6 racks as whole racks first (domains = 18, 18, 18, 10): rank r on
 * rack r / 72, tray (r % 72) / 4; the last rack takes 10 trays. The dp
 * group of rank 64 (tp 0, dp 0, pp 2: ranks 64 + 4k) is trays 16 and 17
 * of rack 0 and trays 0 to 5 of rack 1, two and six ranks: NCCL's nodes
 * of different sizes, which the step runs. Listed the other way round
 * (a smaller rack first) the job's GPUs would not be the first of the
 * racks: refused, naming the key. */
START_TEST(racks_listed)
{
    g_autofree char *models = work_test_models_dir();
    g_setenv("NVLSIM_MODELS", models, TRUE);
    g_autoptr(GError) error = NULL;
    char *sets[] = {"scenario.domains=18, 18, 18, 10", NULL};
    g_autoptr(WorkScenario) s = work_scenario_load_data(LLAMA_405B, "s.ini", sets, models, &error);
    ck_assert_msg(s != NULL, "%s", error ? error->message : "");
    ck_assert_uint_eq(s->domains, 4);
    g_autoptr(TopoWorld) world = NULL;
    WorkRunResult result;
    ck_assert_msg(work_run_scenario(s, NULL, &world, &result, NULL, &error), "%s",
                  error ? error->message : "");
    ck_assert_uint_eq(result.n_domains, 4);
    ck_assert_uint_eq(result.n_hosts, 64);
    ck_assert_uint_eq(world->system->n_hosts, 18);
    static const struct {
        uint32_t rank, rack, tray, gpu;
    } ranks[] = {
        {0, 0, 0, 0},    {71, 0, 17, 3}, {72, 1, 0, 0},
        {215, 2, 17, 3}, {216, 3, 0, 0}, {255, 3, 9, 3},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(ranks); i++) {
        uint32_t rack, tray, gpu;
        where(world, ranks[i].rank, &rack, &tray, &gpu);
        ck_assert_msg(rack == ranks[i].rack && tray == ranks[i].tray && gpu == ranks[i].gpu,
                      "rank %u: rack %u tray %u GPU %u", ranks[i].rank, rack, tray, gpu);
    }
    uint32_t per_rack[4] = {0};
    for (uint32_t k = 0; k < 8; k++) {
        uint32_t rack, tray, gpu;
        where(world, 64 + 4 * k, &rack, &tray, &gpu);
        per_rack[rack]++;
        ck_assert_uint_eq(tray, rack == 0 ? 16 + k : k - 2);
    }
    ck_assert(per_rack[0] == 2 && per_rack[1] == 6);
    ck_assert_uint_gt(result.replay.step_ps, 0);
    work_run_result_clear(&result);
    char *turned[] = {"scenario.domains=10+18+18+18", NULL};
    g_autoptr(WorkScenario) t =
        work_scenario_load_data(LLAMA_405B, "t.ini", turned, models, &error);
    ck_assert_msg(t != NULL, "%s", error ? error->message : "");
    g_autoptr(TopoWorld) none = NULL;
    ck_assert(!work_run_scenario(t, NULL, &none, &result, NULL, &error));
    ck_assert_msg(strstr(error->message, "t.ini: [scenario] domains: domain 1 has 10 hosts") !=
                      NULL,
                  "%s", error->message);
}
END_TEST

Suite *
work_place_suite(void)
{
    Suite *s = suite_create("work-place");
    TCase *tc = tcase_create("place");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, megatron_ranks_on_racks_by_hand);
    tcase_add_test(tc, domains_stated);
    tcase_add_test(tc, racks_listed);
    suite_add_tcase(s, tc);
    return s;
}
