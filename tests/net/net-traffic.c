/* SPDX-License-Identifier: Apache-2.0 */
/* Random traffic for the flow engine's reference tests (net-traffic.h). */
#include "net-traffic.h"

#include <check.h>

#include "core/core-engine.h"

typedef struct Run {
    NetModel *net;
    const TrafficXfer *xfers;
    uint32_t n;
    SimHandlerId done_handler;
    uint64_t *done_ps;
    uint32_t n_done;
} Run;

static void
on_start(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)engine;
    Run *r = ctx;
    const TrafficXfer *x = &r->xfers[event->arg[0]];
    NetSend send = {
        .src = x->src,
        .dst = x->dst,
        .n_bytes = x->n_bytes,
        .path = NET_PATH_SPRAY,
        .issuer = x->issuer,
        .max_bytes_per_s = x->max_bytes_per_s,
        .queue = x->queue,
        .on_done = r->done_handler,
        .cookie = event->arg[0],
    };
    net_send(r->net, &send);
}

static void
on_done(SimEngine *engine, const SimEvent *event, void *ctx)
{
    Run *r = ctx;
    ck_assert_uint_lt(event->arg[0], r->n);
    r->done_ps[event->arg[0]] = sim_engine_now(engine);
    r->n_done++;
}

void
traffic_random(GRand *rng, const TopoGraph *graph, uint32_t n_gpus, uint64_t min_bytes,
               uint64_t max_bytes, uint64_t unit, TrafficXfer *xfers, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        TrafficXfer *x = &xfers[i];
        uint32_t src = (uint32_t)g_rand_int_range(rng, 0, (gint32)n_gpus);
        uint32_t dst = (src + (uint32_t)g_rand_int_range(rng, 1, (gint32)n_gpus)) % n_gpus;
        x->src = topo_graph_gpu_vertex(graph, src);
        x->dst = topo_graph_gpu_vertex(graph, dst);
        x->n_bytes = unit * (uint64_t)g_rand_int_range(rng, (gint32)(min_bytes / unit),
                                                       (gint32)(max_bytes / unit));
        x->start_ps = (uint64_t)g_rand_int_range(rng, 0, 40000) * 1000;
        x->max_bytes_per_s = g_rand_int_range(rng, 0, 3) == 0
                                 ? (uint64_t)g_rand_int_range(rng, 1, 21) * UINT64_C(1000000000)
                                 : 0;
        x->queue = g_rand_int_range(rng, 0, 5) == 0 ? (uint32_t)g_rand_int_range(rng, 1, 5) : 0;
        x->issuer = g_rand_boolean(rng) ? NET_ISSUER_CE : NET_ISSUER_SM;
    }
}

void
traffic_run(const TopoGraph *graph, const TopoRouter *router, const TrafficXfer *xfers,
            uint32_t n, const NetOptions *options, uint64_t *done_ps, NetStats *stats)
{
    Run r = {.xfers = xfers, .n = n, .done_ps = done_ps};
    SimEngine *engine = sim_engine_new();
    r.net = net_new(NET_FIDELITY_FLOW, engine, graph, router, options);
    r.done_handler = sim_engine_register(engine, "done", on_done, &r);
    SimHandlerId start = sim_engine_register(engine, "start", on_start, &r);
    for (uint32_t i = 0; i < n; i++)
        sim_engine_schedule(engine, xfers[i].start_ps, 0, start)->arg[0] = i;
    ck_assert_int_eq(sim_engine_run(engine, UINT64_MAX), SIM_RUN_DRAINED);
    ck_assert_uint_eq(r.n_done, n);
    net_get_stats(r.net, stats);
    net_free(r.net);
    sim_engine_free(engine);
}
