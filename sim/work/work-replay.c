/* SPDX-License-Identifier: Apache-2.0 */
/* The replayer (see work-replay.h). State lives in arrays indexed by task,
 * call and rank; events carry those indices. */
#include "work/work-replay-state.h"

#include <math.h>
#include <string.h>

void
work_replay_result_clear(WorkReplayResult *result)
{
    net_link_load_free(result->link_load);
    if (result->start_ps != NULL)
        g_array_unref(result->start_ps);
    if (result->end_ps != NULL)
        g_array_unref(result->end_ps);
    memset(result, 0, sizeof *result);
}

/* ---- Running. ---- */

static void task_done(Replay *r, uint32_t task);

/* Communication and compute share the GPU. While a collective's kernel
 * runs, its c CTAs (one a channel, NCCL's ncclDevKernel grid, NCCL src/
 * enqueue.cc; or the SMs its task names, work-stream.h) hold as many of the
 * S SMs, and its traffic moves D bytes a second through HBM. A compute task
 * of memory share f (work-stream.h) then takes, per full-rate picosecond,
 *     (1 - f) g S / (S - c) + f (1 + D / B)
 * picoseconds (at least one SM is left):
 * - its SM-bound kernels (GEMMs, attention) spread their waves over the
 *   SMs left, and Hopper's persistent ones lose g more: beside 1 to 64
 *   CTAs that hold their SMs and move nothing, three bf16 GEMMs on one
 *   H200 (8192^3, 4096^3, 8192 x 3584 x 8192) took 0.93 to 1.38 times
 *   S / (S - c), the median g = 1.210 (WORK_REPLAY_GEMM_BESIDE_CTAS, by
 *   nvlsim calibrate interference tests/data/measured/h200-2026-12-04/
 *   interfere.csv --system dgx-h200: 7.1% on those rows, 6.1% on the 54
 *   held out; the smallest GEMM, of 4 waves, loses most, the waves it
 *   gains on S - c SMs not being S / (S - c)). Earlier GPUs' cuBLAS
 *   kernels are not persistent: g = 1 [U: not measured];
 * - its memory-bound kernels keep their SMs (beside 1 to 64 spinning CTAs
 *   the same file's bf16 add lost at most 0.6%) but share HBM: beside N
 *   CTAs copying 20 GB/s each, as a channel paced by its link does, it
 *   took 1 + D / B of its time within 1.4% (1.157 measured against 1.154
 *   for N = 32, 1.320 against 1.307 for N = 64). A copy that runs flat out
 *   alone is no such demand: it yields under contention, and 1 + D / B
 *   overstates its effect (by 20% to 35% from 16 CTAs).
 * Progress is counted in full-rate picoseconds at that rate r in parts of
 * RATE_ONE: floor(dt RATE_ONE / r) over dt, and what is left takes
 * ceil(left r / RATE_ONE). Transfers' kernels and a kernel waiting for its
 * peers before the call starts are left out. */
#define RATE_ONE WORK_REPLAY_RATE_ONE

double
work_replay_slowdown(double g, double f, double sms, double ctas, double hbm_ratio)
{
    double sm = g * sms / (sms - ctas);
    double hbm = 1.0 + hbm_ratio;
    return (1.0 - f) * sm + f * hbm;
}

/* The running compute's picoseconds per full-rate picosecond on gpu, in
 * parts of RATE_ONE. */
static uint64_t
compute_rate(const Replay *r, uint32_t gpu)
{
    uint32_t c = MIN(r->ctas[gpu], r->n_sms - 1);
    if (c == 0)
        return RATE_ONE;
    double f = (double)work_stream_task(r->s, r->running[gpu])->memory_share / WORK_SHARE_ONE;
    double slowdown = work_replay_slowdown(
        r->persistent ? WORK_REPLAY_GEMM_BESIDE_CTAS : 1.0, f, (double)r->n_sms, (double)c,
        (double)r->hbm_bytes_per_s[gpu] / (double)r->stream_bytes_per_s);
    return (uint64_t)llround(slowdown * (double)RATE_ONE);
}

static uint64_t
compute_progress(const Replay *r, uint32_t gpu, uint64_t dt)
{
    return (uint64_t)((unsigned __int128)dt * RATE_ONE / compute_rate(r, gpu));
}

static uint64_t
compute_left_time(const Replay *r, uint32_t gpu, uint64_t left)
{
    unsigned __int128 t =
        ((unsigned __int128)left * compute_rate(r, gpu) + RATE_ONE - 1) / RATE_ONE;
    return t >= SIM_TIME_NEVER ? SIM_TIME_NEVER : (uint64_t)t;
}

/* What a collective call holds on each of its GPUs while it runs (none for
 * a transfer): its CTAs, and the HBM bytes a second its traffic moves,
 * three for each byte of its bus traffic (the arriving byte written, read
 * back to be forwarded or reduced, and the user buffer read or written:
 * NCCL's Simple protocol through its FIFO [D]) over its time alone. */
static void
call_load(const Replay *r, uint32_t call, CallState *cs)
{
    const WorkCall *c = &g_array_index(r->m->calls, WorkCall, call);
    cs->ctas = 0;
    cs->hbm_bytes_per_s = 0;
    if (c->group == WORK_NONE)
        return;
    const WorkTask *t = work_stream_task(r->s, g_array_index(r->m->call_tasks, uint32_t, c->task0));
    cs->ctas = t->sms > 0 ? t->sms : coll_session_channels(r->session, r->call_shape[call]);
    uint64_t alone = coll_session_alone_ps(r->session, r->call_shape[call]);
    if (cs->ctas == 0 || alone == 0)
        return;
    const WorkGroup *g = r->s->groups->pdata[t->group];
    double bus = (double)t->bytes * coll_busbw_factor(t->op, g->n_ranks);
    cs->hbm_bytes_per_s = (uint64_t)llround(3.0 * bus * (double)SIM_PS_PER_S / (double)alone);
}

/* Schedules the end of gpu's running compute at its rate now. */
static void
compute_schedule(Replay *r, uint32_t gpu)
{
    uint64_t end = r->since[gpu] + compute_left_time(r, gpu, r->left_ps[gpu]);
    SimEvent *ev = sim_engine_schedule(r->engine, MAX(end, r->since[gpu]), 0, r->h_compute);
    ev->target = r->running[gpu];
    ev->arg[0] = ++r->epoch[gpu];
}

/* A call's load (call_load) arrives on (delta > 0) or leaves (delta < 0)
 * its GPUs: each running compute is charged for the time at the old rate
 * and its end moved to the new one. */
static void
call_ctas(Replay *r, uint32_t call, int64_t delta)
{
    const WorkCall *c = &g_array_index(r->m->calls, WorkCall, call);
    const CallState *cs = &r->calls[call];
    if (cs->ctas == 0)
        return;
    uint64_t now = sim_engine_now(r->engine);
    for (uint32_t k = 0; k < c->n_tasks; k++) {
        uint32_t gpu =
            work_stream_task(r->s, g_array_index(r->m->call_tasks, uint32_t, c->task0 + k))->rank;
        bool running = r->running[gpu] != WORK_NONE;
        if (running && now > r->since[gpu]) {
            uint64_t done = compute_progress(r, gpu, now - r->since[gpu]);
            r->left_ps[gpu] -= MIN(done, r->left_ps[gpu]);
            r->since[gpu] = now;
        }
        r->ctas[gpu] = (uint32_t)((int64_t)r->ctas[gpu] + delta * (int64_t)cs->ctas);
        r->hbm_bytes_per_s[gpu] =
            (uint64_t)((int64_t)r->hbm_bytes_per_s[gpu] + delta * (int64_t)cs->hbm_bytes_per_s);
        if (running)
            compute_schedule(r, gpu);
    }
}

static void
start_call(Replay *r, uint32_t call)
{
    CallState *cs = &r->calls[call];
    const WorkCall *c = &g_array_index(r->m->calls, WorkCall, call);
    uint64_t now = sim_engine_now(r->engine);
    cs->started = true;
    call_load(r, call, cs);
    call_ctas(r, call, +1);
    for (uint32_t k = 0; k < c->n_tasks; k++)
        r->start[g_array_index(r->m->call_tasks, uint32_t, c->task0 + k)] = now;
    coll_session_start(r->session, r->call_place[call], call);
}

static void
try_call(Replay *r, uint32_t call)
{
    CallState *cs = &r->calls[call];
    const WorkCall *c = &g_array_index(r->m->calls, WorkCall, call);
    if (cs->started || cs->n_arrived < c->n_tasks ||
        (c->prev != WORK_NONE && !r->calls[c->prev].done))
        return;
    start_call(r, call);
}

static void
on_call_end(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)engine;
    Replay *r = ctx;
    uint32_t call = event->target;
    coll_session_end(r->session, call);
    r->calls[call].done = true;
    call_ctas(r, call, -1);
    const WorkCall *c = &g_array_index(r->m->calls, WorkCall, call);
    for (uint32_t k = 0; k < c->n_tasks; k++)
        task_done(r, g_array_index(r->m->call_tasks, uint32_t, c->task0 + k));
    if (c->group != WORK_NONE && call + 1 < r->m->calls->len &&
        g_array_index(r->m->calls, WorkCall, call + 1).prev == call)
        try_call(r, call + 1);
}

static void
try_compute(Replay *r, uint32_t rank)
{
    if (r->busy[rank] || r->next_compute[rank] == r->x->compute0[rank + 1])
        return;
    uint32_t task = r->x->compute_list[r->next_compute[rank]];
    if (!r->ready[task])
        return;
    uint64_t start = sim_engine_now(r->engine);
    if (r->late_ps != NULL && r->next_compute[rank] == r->x->compute0[rank])
        start += r->late_ps[rank];
    r->busy[rank] = true;
    r->next_compute[rank]++;
    r->start[task] = start;
    r->running[rank] = task;
    r->left_ps[rank] = r->duration[task];
    r->since[rank] = start;
    compute_schedule(r, rank);
}

static void
on_compute(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)engine;
    Replay *r = ctx;
    uint32_t task = event->target;
    uint32_t rank = work_stream_task(r->s, task)->rank;
    if (event->arg[0] != r->epoch[rank])
        return; /* moved by a call's CTAs since */
    r->busy[rank] = false;
    r->running[rank] = WORK_NONE;
    task_done(r, task);
    try_compute(r, rank);
}

static void
task_ready(Replay *r, uint32_t task)
{
    r->ready[task] = true;
    const WorkTask *t = work_stream_task(r->s, task);
    if (t->kind == WORK_TASK_COMPUTE) {
        try_compute(r, t->rank);
        return;
    }
    uint32_t call = g_array_index(r->m->task_call, uint32_t, task);
    r->calls[call].n_arrived++;
    try_call(r, call);
}

static void
task_done(Replay *r, uint32_t task)
{
    r->end[task] = sim_engine_now(r->engine);
    r->n_done++;
    sim_engine_progress(r->engine);
    for (uint32_t k = r->x->dependents0[task]; k < r->x->dependents0[task + 1]; k++) {
        uint32_t d = r->x->dependents[k];
        if (--r->deps_left[d] == 0)
            task_ready(r, d);
    }
}

/* A step that cannot finish: how far it got, the first unfinished task and
 * the links still holding data. */
static GError *
stall_error(const Replay *r, SimRunOutcome outcome)
{
    const WorkStream *stream = r->s;
    uint32_t n = stream->tasks->len, stuck = 0;
    while (stuck < n && !(r->ready[stuck] && r->end[stuck] == 0))
        stuck++;
    g_autoptr(GString) task = g_string_new(NULL);
    if (stuck < n) {
        const WorkTask *t = work_stream_task(stream, stuck);
        g_string_printf(task, "; task %u (%s on rank %u) was ready and never finished", stuck,
                        work_task_kind_name(t->kind), t->rank);
    }
    g_autoptr(GString) links = g_string_new(NULL);
    net_describe_stuck(r->net, links, 4);
    return g_error_new(
        SIM_ERROR, SIM_ERROR_STALLED, "the step stalled at %.3f us (%s), %u of %u tasks done%s%s%s",
        (double)sim_engine_now(r->engine) / SIM_PS_PER_US,
        outcome == SIM_RUN_STALLED ? "a livelock: events without progress"
                                   : "a deadlock: no event left",
        r->n_done, n, task->str, links->len ? "; links holding data" : "", links->str);
}

/* ---- Set-up. ---- */

static void
build_index(Replay *r)
{
    const WorkStream *s = r->s;
    uint32_t n = s->tasks->len, n_gpus = s->n_gpus;
    r->x = work_index_new(s);
    r->deps_left = g_new0(uint32_t, n);
    r->start = g_new0(uint64_t, n);
    r->end = g_new0(uint64_t, n);
    r->duration = g_new0(uint64_t, n);
    r->ready = g_new0(bool, n);
    r->next_compute = g_new(uint32_t, n_gpus);
    r->busy = g_new0(bool, n_gpus);
    r->n_sms = (uint32_t)MAX(r->system->gpu->n_sms, 1);
    r->persistent = r->system->gpu->sm_version >= 90;
    r->stream_bytes_per_s = MAX(hw_gpu_stream_bytes_per_s(r->system->gpu), 1);
    r->ctas = g_new0(uint32_t, n_gpus);
    r->hbm_bytes_per_s = g_new0(uint64_t, n_gpus);
    r->running = g_new(uint32_t, n_gpus);
    r->left_ps = g_new0(uint64_t, n_gpus);
    r->since = g_new0(uint64_t, n_gpus);
    r->epoch = g_new0(uint64_t, n_gpus);
    double gemm_rate = (double)r->system->gpu->fp16_flops_per_s *
                       work_compute_gemm_ceiling(r->system->gpu, WORK_MATH_FP16);
    for (uint32_t i = 0; i < n; i++) {
        const WorkTask *t = work_stream_task(s, i);
        r->deps_left[i] = t->n_deps;
        if (t->kind == WORK_TASK_COMPUTE) {
            r->duration[i] = t->duration_ps;
            if (t->duration_ps == 0 && t->flops > 0 && gemm_rate > 0) {
                double ps = (double)t->flops / gemm_rate * (double)SIM_PS_PER_S;
                r->duration[i] = ps >= (double)SIM_TIME_NEVER ? SIM_TIME_NEVER : (uint64_t)ps;
            }
        }
    }
    for (uint32_t g = 0; g < n_gpus; g++) {
        r->next_compute[g] = r->x->compute0[g];
        r->running[g] = WORK_NONE;
    }
    r->calls = g_new0(CallState, r->m->calls->len);
}

static void
replay_clear(Replay *r)
{
    if (r->net != NULL)
        net_free(r->net);
    if (r->engine != NULL)
        sim_engine_free(r->engine);
    coll_session_free(r->session);
    g_free(r->call_instance);
    g_free(r->call_shape);
    g_free(r->call_place);
    if (r->instance_call != NULL)
        g_array_unref(r->instance_call);
    work_index_free(r->x);
    g_free(r->deps_left);
    g_free(r->start);
    g_free(r->end);
    g_free(r->duration);
    g_free(r->ready);
    g_free(r->next_compute);
    g_free(r->busy);
    g_free(r->ctas);
    g_free(r->hbm_bytes_per_s);
    g_free(r->running);
    g_free(r->left_ps);
    g_free(r->since);
    g_free(r->epoch);
    g_free(r->late_ps);
    g_free(r->calls);
}

/* The stragglers' compute, slowed and delayed. */
static bool
apply_stragglers(Replay *r, const WorkStragglers *st, GError **error)
{
    if (!work_stragglers_active(st))
        return true;
    r->late_ps = g_new0(uint64_t, r->s->n_gpus);
    return work_stragglers_apply(st, r->s, r->x, r->duration, r->late_ps, error);
}

bool
work_replay(const WorkStream *stream, const HwSystem *system, const TopoGraph *graph,
            const TopoRouter *router, NetFidelity fidelity, WorkReplayResult *result,
            GError **error)
{
    return work_replay_sampled(stream, system, graph, router, fidelity, 0, result, error);
}

bool
work_replay_sampled(const WorkStream *stream, const HwSystem *system, const TopoGraph *graph,
                    const TopoRouter *router, NetFidelity fidelity, uint64_t link_bin_ps,
                    WorkReplayResult *result, GError **error)
{
    WorkReplayOptions o = {.fidelity = fidelity, .link_bin_ps = link_bin_ps};
    return work_replay_with(stream, system, graph, router, &o, result, error);
}

/* Every call's shape, prepared before the run; the engine, its handlers
 * and the network, lent to the session; the per-instance state of replica
 * traffic. */
static bool
replay_start(Replay *r, GError **error)
{
    r->n_copies = work_stream_n_copies(r->s);
    replay_index_instances(r);
    if (!replay_prepare(r, error))
        return false;
    replay_place(r);
    r->engine = sim_engine_new();
    r->h_compute = sim_engine_register(r->engine, "work-compute", on_compute, r);
    r->h_call_end = sim_engine_register(r->engine, "work-call-end", on_call_end, r);
    r->net = net_new(r->fidelity, r->engine, r->graph, r->router, NULL);
    coll_session_attach(r->session, r->engine, r->net, r->h_call_end, r->m->calls->len);
    return true;
}

/* Runs the step to its end; r->error when it cannot run (compute past the
 * clock) or cannot finish (a stall). */
static void
replay_run(Replay *r)
{
    const WorkStream *stream = r->s;
    SimRunOutcome outcome = SIM_RUN_DRAINED;
    if (work_stream_check_durations(stream, r->duration, WORK_REPLAY_MAX_COMPUTE_PS, &r->error)) {
        for (uint32_t i = 0; i < stream->tasks->len; i++)
            if (r->deps_left[i] == 0)
                task_ready(r, i);
        sim_engine_set_watchdog(r->engine, WORK_REPLAY_WATCHDOG_EVENTS);
        sim_engine_watch_memory(r->engine);
        outcome = sim_engine_run(r->engine, SIM_TIME_NEVER);
    }
    if (r->error == NULL && outcome == SIM_RUN_MEMORY)
        sim_memory_error(&r->error, "the step's simulation",
                         "fewer GPUs or fidelity = analytic shrink it");
    else if (r->error == NULL && (outcome != SIM_RUN_DRAINED || r->n_done < stream->tasks->len))
        r->error = stall_error(r, outcome);
}

/* A finished run's result, into a zeroed one (load taken when not NULL). */
static void
replay_result(const Replay *r, NetLinkLoad **load, WorkReplayResult *result)
{
    const WorkStream *stream = r->s;
    uint64_t slowed = 0;
    for (uint32_t i = 0; i < stream->tasks->len; i++) {
        const WorkTask *t = work_stream_task(stream, i);
        result->step_ps = MAX(result->step_ps, r->end[i]);
        if (t->kind != WORK_TASK_COMPUTE)
            continue;
        result->flops += t->flops;
        uint64_t took = r->end[i] - r->start[i];
        slowed += took > r->duration[i] ? took - r->duration[i] : 0;
    }
    /* The run drained with every task done: every call ended, every rank idle. */
    for (uint32_t c = 0; c < r->m->calls->len; c++)
        g_assert(r->calls[c].done);
    for (uint32_t g = 0; g < stream->n_gpus; g++)
        g_assert(r->next_compute[g] == r->x->compute0[g + 1] && !r->busy[g]);
    result->n_calls = r->m->calls->len;
    coll_session_counts(r->session, &result->n_flows, &result->n_mirror_flows);
    result->n_shapes = coll_session_n_shapes(r->session);
    SimEngineStats es;
    sim_engine_get_stats(r->engine, &es);
    result->n_events = es.n_events_executed;
    result->start_ps = g_array_sized_new(FALSE, FALSE, sizeof(uint64_t), stream->tasks->len);
    result->end_ps = g_array_sized_new(FALSE, FALSE, sizeof(uint64_t), stream->tasks->len);
    g_array_append_vals(result->start_ps, r->start, stream->tasks->len);
    g_array_append_vals(result->end_ps, r->end, stream->tasks->len);
    result->link_load = g_steal_pointer(load);
    work_replay_breakdown(stream, result);
    result->slowed_ps = result->n_detailed ? slowed / result->n_detailed : 0;
}

bool
work_replay_with(const WorkStream *stream, const HwSystem *system, const TopoGraph *graph,
                 const TopoRouter *router, const WorkReplayOptions *o, WorkReplayResult *result,
                 GError **error)
{
    g_return_val_if_fail(stream->n_gpus <= topo_graph_n_gpus(graph), false);
    memset(result, 0, sizeof *result);
    g_autoptr(WorkMatch) own = o->match == NULL ? work_match_new(stream, error) : NULL;
    const WorkMatch *match = o->match != NULL ? o->match : own;
    if (match == NULL)
        return false;
    Replay r = {.s = stream,
                .m = match,
                .system = system,
                .graph = graph,
                .router = router,
                .fidelity = o->analytic ? NET_FIDELITY_FLOW : o->fidelity};
    /* A transfer's kernel, queued behind the work before it: its setup and
     * the stream's gap (the host issued it ahead). */
    const HwRuntime *rt = system->runtime;
    uint64_t launch_ps = rt != NULL ? rt->kernel_setup_ps + rt->kernel_gap_ps : 0;
    r.session =
        coll_session_new(system, graph, router, r.fidelity, o->analytic, launch_ps, o->shapes);
    build_index(&r);
    if (!apply_stragglers(&r, o->stragglers, error) || !replay_start(&r, error)) {
        replay_clear(&r);
        return false;
    }
    NetLinkLoad *load = NULL;
    if (o->link_bin_ps > 0) {
        load = net_link_load_new(topo_graph_n_links(graph), o->link_bin_ps, WORK_REPLAY_LINK_BINS);
        net_set_link_load(r.net, load);
    }
    replay_run(&r);
    bool ok = r.error == NULL;
    if (ok)
        replay_result(&r, &load, result);
    else
        g_propagate_error(error, r.error);
    net_link_load_free(load);
    replay_clear(&r);
    return ok;
}
