/* SPDX-License-Identifier: Apache-2.0 */
/* One scenario simulated (see work-run.h). */
#include "work/work-run.h"

#include <string.h>

#include "core/core-memory.h"
#include "core/core-time.h"
#include "hw/hw-keys.h"

#include "work/work-gen.h"

void
work_run_result_clear(WorkRunResult *result)
{
    work_replay_result_clear(&result->replay);
    memset(result, 0, sizeof *result);
}

WorkStream *
work_run_stream(const WorkScenario *s, const HwGpu *gpu, GError **error)
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
    if (!work_stream_check(stream, error)) {
        g_prefix_error(error, "%s: the generated step: ", s->path);
        work_stream_free(stream);
        return NULL;
    }
    return stream;
}

bool
work_run(const WorkScenario *s, const WorkStream *stream, const HwSystem *system,
         const TopoGraph *graph, const TopoRouter *router, WorkRunResult *result, GError **error)
{
    memset(result, 0, sizeof *result);
    if (stream->n_gpus > topo_graph_n_gpus(graph)) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                    "%s: the job needs %u GPUs but %u nodes of %s have %u", s->path, stream->n_gpus,
                    graph->n_nodes, system->id, topo_graph_n_gpus(graph));
        return false;
    }
    if (!work_replay_stragglers(stream, system, graph, router, s->fidelity, s->analytic,
                                s->link_bin_ps, &s->stragglers, &result->replay, error)) {
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
