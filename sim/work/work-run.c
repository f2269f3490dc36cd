/* SPDX-License-Identifier: Apache-2.0 */
/* One scenario simulated (see work-run.h). */
#include "work/work-run.h"

#include <string.h>

#include "core/core-memory.h"
#include "core/core-time.h"
#include "hw/hw-keys.h"
#include "hw/hw-models.h"
#include "topo/topo-place.h"

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
    return true;
}

/* result's figures from its replay: step time, and for a generated step
 * its throughput, FLOP rates and memory. */
static void
fill_figures(const WorkScenario *s, const HwSystem *system, WorkRunResult *result)
{
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
}

/* ---- The analytic tier's steady state. ----
 *
 * Past its warm-up, a pipeline repeats itself: every further microbatch
 * (every pp of them, interleaved) adds the same forwards, backwards,
 * transfers and collectives in the same order, and at the analytic tier,
 * where each call takes its time alone stretched by what the calls in
 * flight ask of its links, the same time; the warm-up, the drain, the
 * gradient reduction and the optimizer step do not grow. So the step of m
 * microbatches, and each part of its time, is a + b m once m is past the
 * warm-up, and two replays of m1 and m2 = m1 + d microbatches give it:
 * x(m) = x(m1) + (x(m2) - x(m1)) (m - m1) / d, exactly where (m - m1) is a
 * multiple of d. m1 = 2 pp is past any rank's warm-up (1F1B's pp - 1
 * forwards, the interleaved schedule's 2 (pp - 1) + (vp - 1) pp of vp
 * chunks) and d is 1, or pp where the interleaved schedule needs whole
 * rounds of pp microbatches. Taken where the two replays are shorter than
 * the step's (m > m1 + m2), for 1F1B and the interleaved schedule: GPipe
 * runs every forward before any backward, so the backwards' calls meet
 * the forwards' of other stages in a pattern that is not periodic (its
 * step strays from a + b m by some microseconds). */
static bool
steady_counts(const WorkLayout *l, uint64_t *m1, uint64_t *m2)
{
    if (l->schedule == WORK_SCHEDULE_GPIPE)
        return false;
    uint64_t m = work_layout_microbatches(l);
    uint64_t d = l->schedule == WORK_SCHEDULE_INTERLEAVED ? l->pp : 1;
    *m1 = MAX(2 * (uint64_t)l->pp, 2);
    *m2 = *m1 + d;
    return m > *m1 + *m2 && (m - *m1) % d == 0;
}

/* x(m1) + (x(m2) - x(m1)) q, at least 0. */
static uint64_t
extend(uint64_t x1, uint64_t x2, uint64_t q)
{
    int64_t x = (int64_t)x1 + ((int64_t)x2 - (int64_t)x1) * (int64_t)q;
    return x > 0 ? (uint64_t)x : 0;
}

/* s's generated step at the analytic tier from two replays of m1 and m2
 * microbatches on world (see above): the step and its breakdown
 * extended to s's microbatches; counts (tasks, calls, flows, events) are
 * the two replays'. */
static bool
run_steady(const WorkScenario *s, const TopoWorld *world, CollShapes *shapes, uint64_t m1,
           uint64_t m2, WorkRunResult *result, GError **error)
{
    const WorkLayout *l = &s->layout;
    uint64_t per = l->global_batch / work_layout_microbatches(l);
    uint64_t counts[2] = {m1, m2};
    WorkRunResult part[2];
    g_autoptr(CollShapes) own = shapes == NULL ? coll_shapes_new() : NULL;
    for (int k = 0; k < 2; k++) {
        WorkScenario r = *s;
        r.layout.global_batch = counts[k] * per;
        g_autoptr(WorkMatch) match = NULL;
        g_autoptr(WorkStream) stream = work_run_stream(&r, world->system->gpu, &match, error);
        if (stream == NULL ||
            !run_on(&r, stream, match, world, shapes ? shapes : own, &part[k], error)) {
            if (k == 1)
                work_run_result_clear(&part[0]);
            return false;
        }
    }
    uint64_t q = (work_layout_microbatches(l) - m1) / (m2 - m1);
    WorkReplayResult *a = &part[0].replay, *b = &part[1].replay, *x = &result->replay;
    memset(result, 0, sizeof *result);
    x->step_ps = extend(a->step_ps, b->step_ps, q);
    for (int k = 0; k < WORK_N_TIMES; k++) {
        x->time_ps[k] = extend(a->time_ps[k], b->time_ps[k], q);
        x->rank_time_ps[k] = extend(a->rank_time_ps[k], b->rank_time_ps[k], q);
    }
    x->flops = extend(a->flops, b->flops, q);
    x->slowed_ps = extend(a->slowed_ps, b->slowed_ps, q);
    x->n_detailed = a->n_detailed;
    x->n_calls = a->n_calls + b->n_calls;
    x->n_flows = a->n_flows + b->n_flows;
    x->n_mirror_flows = a->n_mirror_flows + b->n_mirror_flows;
    x->n_shapes = a->n_shapes + b->n_shapes;
    x->n_events = a->n_events + b->n_events;
    result->n_gpus = part[0].n_gpus;
    result->n_tasks = part[0].n_tasks + part[1].n_tasks;
    result->replayed_microbatches[0] = (uint32_t)m1;
    result->replayed_microbatches[1] = (uint32_t)m2;
    work_run_result_clear(&part[0]);
    work_run_result_clear(&part[1]);
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

/* The world of *system (taken) for the job's n_gpus placed on hosts and
 * NVLink domains as s says (topo-place.h; s->nodes hosts, s->domains):
 * cache's, with its shapes in *shapes, when there is one and no faults,
 * else one of its own. A job on several domains takes whole hosts, and
 * each domain is narrowed to the hosts it takes (hw_system_partition),
 * so that rank g sits on GPU g % per_domain of domain g / per_domain,
 * as Megatron-LM orders them (tp innermost, then cp, dp, pp); on one
 * domain the ranks take its GPUs in order. Domains listed with different
 * hosts are full ones and then one smaller, so that the job's GPUs are
 * the first of the world's, in order (a group that spans domains holds
 * different numbers of GPUs in each, as NCCL runs it: coll-run.h). The
 * hosts and domains the job spans in *n_hosts and *n_domains, the most
 * GPUs a host in *host_gpus. */
static TopoWorld *
world_for(const WorkScenario *s, WorkCache *cache, HwSystem **system, uint32_t n_gpus,
          CollShapes **shapes, uint32_t *n_hosts, uint32_t *n_domains, uint32_t *host_gpus_out,
          GError **error)
{
    HwSystem *sys = *system;
    TopoPlaceAsk ask = {.n_gpus = n_gpus,
                        .n_hosts = s->nodes,
                        .n_domains = s->domains,
                        .domain_hosts = s->domain_hosts};
    g_auto(TopoPlace) place = {0};
    TopoPlaceField bad;
    if (!topo_place(sys, &ask, &place, &bad, error)) {
        g_prefix_error(error, "%s: [scenario] %s: ", s->path,
                       bad == TOPO_PLACE_DOMAINS ? "domains"
                       : bad == TOPO_PLACE_HOSTS ? "nodes"
                                                 : "system");
        return NULL;
    }
    uint32_t host_gpus = topo_place_host_gpus(sys);
    if (place.n_domains > 1 && place.gpus_per_host != host_gpus) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                    "%s: [scenario] nodes: %u GPUs on %u hosts is %u a host over %u NVLink "
                    "domains; a job on several domains takes whole hosts of %s (%u GPUs): "
                    "expected %u nodes",
                    s->path, n_gpus, place.n_hosts, place.gpus_per_host, place.n_domains, sys->id,
                    host_gpus, (n_gpus + host_gpus - 1) / host_gpus);
        return NULL;
    }
    for (uint32_t d = 0; place.domain_ranks != NULL && d + 1 < place.n_domains; d++)
        if (place.domain_ranks[d] != place.per_domain) {
            g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                        "%s: [scenario] domains: domain %u has %u hosts, fewer than the %u of "
                        "another; a training job takes full domains and then one smaller (such "
                        "as 18, 18, 18, 10), its GPUs in order",
                        s->path, d + 1, s->domain_hosts[d], place.hosts_per_domain);
            return NULL;
        }
    if (place.n_domains > 1 && place.hosts_per_domain < sys->n_hosts)
        hw_system_partition(sys, place.hosts_per_domain);
    *n_hosts = place.n_hosts;
    *n_domains = place.n_domains;
    *host_gpus_out = place.gpus_per_host;
    if (cache != NULL && no_faults(s->faults)) {
        g_autofree char *key = g_strdup_printf("%s/%u", s->system_id, sys->n_hosts);
        return work_cache_world(cache, key, g_steal_pointer(system), place.n_domains, shapes,
                                error);
    }
    return topo_world_for_gpus(g_steal_pointer(system), place.n_domains, 0, s->faults, error);
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
    uint64_t m1 = 0, m2 = 0;
    bool steady = s->analytic && s->steady && s->trace_path == NULL && s->link_bin_ps == 0 &&
                  stream_out == NULL && steady_counts(&s->layout, &m1, &m2);
    g_autoptr(WorkMatch) match = NULL;
    g_autoptr(WorkStream) stream = NULL;
    if (!steady) {
        stream = s->trace_path != NULL ? work_trace_read(s->trace_path, error)
                                       : work_run_stream(s, system->gpu, &match, error);
        if (stream == NULL) {
            if (s->trace_path != NULL)
                g_prefix_error(error, "%s: [scenario] trace: ", s->path);
            return false;
        }
    }
    CollShapes *shapes = NULL;
    uint32_t n_gpus = steady ? (uint32_t)work_layout_gpus(&s->layout) : stream->n_gpus;
    uint32_t n_hosts = 0, n_domains = 0, host_gpus = 0;
    g_autoptr(TopoWorld) world =
        world_for(s, cache, &system, n_gpus, &shapes, &n_hosts, &n_domains, &host_gpus, error);
    if (world == NULL)
        return false;
    /* Slow hosts are their GPUs once the job is placed. */
    WorkScenario placed = *s;
    if (!work_stragglers_place(&s->stragglers, n_gpus, n_hosts, host_gpus, &placed.stragglers,
                               error)) {
        g_prefix_error(error, "%s: ", s->path);
        return false;
    }
    bool ok = steady ? run_steady(&placed, world, shapes, m1, m2, result, error)
                     : run_on(&placed, stream, match, world, shapes, result, error);
    g_free(placed.stragglers.gpus);
    if (!ok)
        return false;
    result->n_hosts = n_hosts;
    result->n_domains = n_domains;
    fill_figures(s, world->system, result);
    if (world_out != NULL)
        *world_out = g_steal_pointer(&world);
    if (stream_out != NULL)
        *stream_out = g_steal_pointer(&stream);
    return true;
}
