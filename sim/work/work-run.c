/* SPDX-License-Identifier: Apache-2.0 */
/* One scenario simulated (see work-run.h). */
#include "work/work-run.h"

#include <string.h>

#include "core/core-memory.h"
#include "core/core-time.h"
#include "hw/hw-keys.h"
#include "hw/hw-models.h"

#include "work/work-gen.h"
#include "work/work-trace.h"

void
work_run_result_clear(WorkRunResult *result)
{
    work_replay_result_clear(&result->replay);
    memset(result, 0, sizeof *result);
}

WorkStream *
work_run_stream(const WorkScenario *s, const HwGpu *gpu, WorkMatch **match_out, GError **error)
{
    g_return_val_if_fail(s->trace_path == NULL, NULL);
    uint64_t n_tasks;
    uint64_t need = work_gen_stream_bytes(s->model, &s->layout, gpu, &s->gen, &n_tasks);
    if (!sim_memory_fits(need)) {
        g_autofree char *detail = g_strdup_printf("up to %" G_GUINT64_FORMAT " tasks", n_tasks);
        sim_memory_need_error(error, need, "generating the step", detail,
                              "fewer microbatches (a smaller global_batch or a larger "
                              "micro_batch) or fewer layers shrink it");
        g_prefix_error(error, "%s: ", s->path);
        return NULL;
    }
    WorkStream *stream = work_gen_stream(s->model, &s->layout, gpu, &s->gen);
    WorkMatch *match = work_stream_check_match(stream, error);
    if (match == NULL) {
        g_prefix_error(error, "%s: the generated step: ", s->path);
        work_stream_free(stream);
        return NULL;
    }
    if (match_out != NULL)
        *match_out = match;
    else
        work_match_free(match);
    return stream;
}

/* Replays stream (with its match, or NULL) on world, whose graph must hold
 * the job's GPUs, with shapes shared with other runs (or NULL), and fills
 * result. */
static bool
run_on(const WorkScenario *s, const WorkStream *stream, const WorkMatch *match,
       const TopoWorld *world, CollShapes *shapes, WorkRunResult *result, GError **error)
{
    const HwSystem *system = world->system;
    const TopoGraph *graph = world->graph;
    memset(result, 0, sizeof *result);
    if (stream->n_gpus > topo_graph_n_gpus(graph)) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                    "%s: the job needs %u GPUs but %u nodes of %s have %u", s->path, stream->n_gpus,
                    graph->n_nodes, system->id, topo_graph_n_gpus(graph));
        return false;
    }
    WorkReplayOptions o = {.fidelity = s->fidelity,
                           .analytic = s->analytic,
                           .link_bin_ps = s->link_bin_ps,
                           .stragglers = &s->stragglers,
                           .shapes = shapes,
                           .match = match};
    if (!work_replay_with(stream, system, graph, world->router, &o, &result->replay, error)) {
        if (s->trace_path != NULL)
            g_prefix_error(error, "%s: [scenario] trace: %s: ", s->path, s->trace_path);
        else
            g_prefix_error(error, "%s: ", s->path);
        return false;
    }
    result->n_gpus = stream->n_gpus;
    result->n_tasks = stream->tasks->len;
    result->step_s = (double)result->replay.step_ps / (double)SIM_PS_PER_S;
    if (s->trace_path == NULL && result->step_s > 0) {
        const WorkLayout *l = &s->layout;
        double tokens = (double)l->global_batch * (double)l->seq_len;
        double gpus = (double)work_layout_gpus(l);
        bool full = l->recompute == WORK_RECOMPUTE_FULL;
        result->tokens_per_s = tokens / result->step_s;
        result->tflops_per_gpu = (double)work_model_flops_per_token(s->model, l->seq_len, full) *
                                 tokens / result->step_s / gpus / 1e12;
        /* Against the peak of the fastest math the step runs (bf16, or
         * its linear layers' fp8 or fp4), which no kernel beats. */
        double peak = MAX(work_compute_peak(system->gpu, WORK_MATH_FP16),
                          work_compute_peak(system->gpu, s->gen.compute.linear_math));
        result->mfu = work_model_causal_flops_per_token(s->model, l->seq_len) * tokens /
                      result->step_s / (gpus * peak);
        result->fits = work_memory_fits(l, s->model, system->gpu->hbm_bytes, &result->memory);
    }
    return true;
}

/* The linear layers' precision on the system's GPU: fp8 needs fp8 tensor
 * cores (Hopper, Ada, Blackwell), MXFP8 Blackwell's block-scaled ones
 * (sm_version 100 and later), NVFP4 fp4 tensor cores (a peak_fp4). */
static bool
check_precision(const WorkScenario *s, const HwSystem *system, GError **error)
{
    const HwGpu *gpu = system->gpu;
    const WorkComputeConfig *c = &s->gen.compute;
    const char *math = NULL, *needs = NULL, *instead = NULL;
    if (c->scaling == WORK_SCALING_NVFP4 && gpu->fp4_flops_per_s == 0) {
        math = "nvfp4";
        needs = "fp4 tensor cores (Blackwell's; the GPU file's peak_fp4)";
    } else if (c->scaling == WORK_SCALING_MXFP8 && gpu->sm_version < 100) {
        math = "mxfp8";
        needs = "block-scaled fp8 tensor cores (Blackwell's, sm_version 100 and later)";
    } else if (c->linear_math == WORK_MATH_FP8 && gpu->fp8_flops_per_s == 0) {
        math = "fp8";
        needs = "fp8 tensor cores";
    }
    if (math == NULL)
        return true;
    instead = gpu->fp8_flops_per_s > 0 ? "bf16, fp16 or fp8" : "bf16 or fp16";
    g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                "%s: [precision] math: %s needs %s, which the %s of %s lacks; expected %s", s->path,
                math, needs, gpu->name, system->id, instead);
    return false;
}

/* Whether faults are none (a cached world has none). */
static bool
no_faults(const TopoFaults *faults)
{
    return faults == NULL || faults->faults->len == 0;
}

bool
work_run_scenario(const WorkScenario *s, WorkCache *cache, TopoWorld **world_out,
                  WorkRunResult *result, WorkStream **stream_out, GError **error)
{
    /* The GPU model shapes the generated kernels: load the system first. */
    g_autoptr(HwSystem) system = hw_system_load_by_id(s->system_id, hw_models_dir(), error);
    if (system == NULL) {
        g_prefix_error(error, "%s: [scenario] system: ", s->path);
        return false;
    }
    if (system->loopback != NULL) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                    "%s: [scenario] system: %s is virtual ranks on one GPU (nvlsim-bench's "
                    "loopback kernel), not a system to train on; expected a real system such as "
                    "dgx-h100",
                    s->path, system->id);
        return false;
    }
    if (!topo_faults_check(s->faults, system, error)) {
        g_prefix_error(error, "%s: ", s->path);
        return false;
    }
    if (s->trace_path == NULL && !check_precision(s, system, error))
        return false;
    g_autoptr(WorkMatch) match = NULL;
    g_autoptr(WorkStream) stream = s->trace_path != NULL
                                       ? work_trace_read(s->trace_path, error)
                                       : work_run_stream(s, system->gpu, &match, error);
    if (stream == NULL) {
        if (s->trace_path != NULL)
            g_prefix_error(error, "%s: [scenario] trace: ", s->path);
        return false;
    }
    CollShapes *shapes = NULL;
    uint32_t n_nodes = topo_world_nodes(system, s->nodes, stream->n_gpus);
    g_autoptr(TopoWorld) world =
        cache != NULL && no_faults(s->faults)
            ? work_cache_world(cache, s->system_id, g_steal_pointer(&system), n_nodes, &shapes,
                               error)
            : topo_world_for_gpus(g_steal_pointer(&system), n_nodes, 0, s->faults, error);
    if (world == NULL || !run_on(s, stream, match, world, shapes, result, error))
        return false;
    if (world_out != NULL)
        *world_out = g_steal_pointer(&world);
    if (stream_out != NULL)
        *stream_out = g_steal_pointer(&stream);
    return true;
}
