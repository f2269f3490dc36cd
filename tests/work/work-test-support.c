/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers the Check suites of sim/work and sim/report share (declared in
 * work-test-support.h). */
#include <stdlib.h>

#include "topo/topo-build.h"
#include "work-test-support.h"

char *
work_test_models_dir(void)
{
    const char *top = g_getenv("top_srcdir");
    return g_build_filename(top ? top : ".", "models", NULL);
}

char *
work_test_model_path(const char *file)
{
    g_autofree char *models = work_test_models_dir();
    return g_build_filename(models, "llm", file, NULL);
}

WorkModel *
work_test_load_model(const char *id)
{
    g_autofree char *models = work_test_models_dir();
    g_autoptr(GError) error = NULL;
    WorkModel *m = work_model_load_by_id(id, models, &error);
    ck_assert_msg(m != NULL, "%s: %s", id, error ? error->message : "");
    return m;
}

WorkModel *
work_test_tiny_model(void)
{
    WorkModel tiny = {
        .name = g_strdup("tiny GPT"),
        .n_layers = 4,
        .hidden_size = 64,
        .ffn_hidden_size = 256,
        .n_heads = 4,
        .n_kv_heads = 4,
        .vocab_size = 1000,
        .seq_len = 128,
        .ffn_kind = WORK_FFN_GELU,
        .norm = WORK_NORM_LAYERNORM,
        .positions = WORK_POSITIONS_LEARNED,
        .linear_bias = true,
        .tied_embeddings = true,
    };
    return g_memdup2(&tiny, sizeof tiny);
}

WorkLayout
work_test_layout(uint32_t tp, uint32_t pp, uint32_t dp, uint64_t global_batch, uint64_t seq_len)
{
    return (WorkLayout){
        .tp = tp,
        .cp = 1,
        .pp = pp,
        .dp = dp,
        .vp = 1,
        .ep = 1,
        .zero = WORK_ZERO_0,
        .recompute = WORK_RECOMPUTE_NONE,
        .schedule = WORK_SCHEDULE_1F1B,
        .global_batch = global_batch,
        .micro_batch = 1,
        .seq_len = seq_len,
        .param_bytes = 2,
        .grad_bytes = 4,
        .optimizer_bytes = 12,
        .activation_bytes = 2,
    };
}

void
work_test_fabric_load(WorkTestFabric *fabric, const char *id, uint32_t n_nodes)
{
    g_autofree char *models = work_test_models_dir();
    g_autoptr(GError) error = NULL;
    fabric->system = hw_system_load_by_id(id, models, &error);
    ck_assert_msg(fabric->system != NULL, "%s: %s", id, error ? error->message : "");
    fabric->graph = topo_build_system(fabric->system, n_nodes, &error);
    ck_assert_msg(fabric->graph != NULL, "%s x %u: %s", id, n_nodes, error ? error->message : "");
    fabric->router = topo_router_new(fabric->graph);
}

void
work_test_fabric_clear(WorkTestFabric *fabric)
{
    topo_router_free(fabric->router);
    topo_graph_free(fabric->graph);
    hw_system_free(fabric->system);
    *fabric = (WorkTestFabric){0};
}

void
work_test_replay(const WorkTestFabric *fabric, const WorkStream *stream, const char *what,
                 WorkReplayResult *result)
{
    g_autoptr(GError) error = NULL;
    ck_assert_msg(work_stream_check(stream, &error), "%s: check: %s", what,
                  error ? error->message : "");
    ck_assert_msg(work_replay(stream, fabric->system, fabric->graph, fabric->router,
                              NET_FIDELITY_FLOW, result, &error),
                  "%s: replay: %s", what, error ? error->message : "");
}
