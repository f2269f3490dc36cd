/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers the Check suites of sim/work and sim/report share: paths of the
 * shipped models, a loader, a tiny model for hand calculations, a built
 * system and a replay that fails the test on error. */
#pragma once

#include <check.h>
#include <glib.h>

#include "hw/hw-system.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"
#include "work/work-layout.h"
#include "work/work-model.h"
#include "work/work-replay.h"
#include "work/work-stream.h"

/* $top_srcdir/models (the shipped models), newly allocated. */
char *work_test_models_dir(void);

/* $top_srcdir/models/llm/FILE, newly allocated. */
char *work_test_model_path(const char *file);

/* The shipped model ID (models/llm/ID.ini); fails the test if it does not
 * load. Free with work_model_free. */
WorkModel *work_test_load_model(const char *id);

/* A tiny GPT block for hand calculations: 4 layers, hidden 64, FFN 256
 * (GeLU), 4 heads, vocabulary 1000, 128 learned positions, LayerNorm,
 * biases, tied embeddings. Free with work_model_free. */
WorkModel *work_test_tiny_model(void);

/* A 1F1B layout of microbatches of one sequence in Megatron's mixed
 * precision: bf16 weights and activations, fp32 gradients, Adam in fp32
 * (master copy, m, v: 12 bytes), 18 bytes a parameter before ZeRO; no
 * ZeRO, no recompute, attention unfused. */
WorkLayout work_test_layout(uint32_t tp, uint32_t pp, uint32_t dp, uint64_t global_batch,
                            uint64_t seq_len);

/* A shipped system built for n_nodes nodes, its graph and router. */
typedef struct WorkTestFabric {
    HwSystem *system;
    TopoGraph *graph;
    TopoRouter *router;
} WorkTestFabric;

/* Loads models/system/ID.ini and builds n_nodes of it; fails the test on
 * error. Release with work_test_fabric_clear. */
void work_test_fabric_load(WorkTestFabric *fabric, const char *id, uint32_t n_nodes);
void work_test_fabric_clear(WorkTestFabric *fabric);

/* Checks stream (work_stream_check) and replays it on fabric at flow
 * fidelity; fails the test, naming what, on an error. Clear result with
 * work_replay_result_clear. */
void work_test_replay(const WorkTestFabric *fabric, const WorkStream *stream, const char *what,
                      WorkReplayResult *result);
