/* SPDX-License-Identifier: Apache-2.0 */
/* Probes: a fresh engine per probe, so probes are independent and
 * reproducible. */
#include "net/net-probe.h"

typedef struct Probe {
    uint64_t *done_ps;
    uint64_t last_ps;
} Probe;

static void
on_landed(SimEngine *engine, const SimEvent *event, void *ctx)
{
    Probe *probe = ctx;
    uint64_t now = sim_engine_now(engine);
    if (probe->done_ps != NULL)
        probe->done_ps[event->arg[0]] = now;
    probe->last_ps = MAX(probe->last_ps, now);
}

void
net_probe_run(NetFidelity fidelity, const TopoGraph *graph, const TopoRouter *router,
              const NetProbeXfer *xfers, size_t n_xfers, NetIssuer issuer, uint64_t *done_ps,
              NetProbeResult *result)
{
    SimEngine *engine = sim_engine_new();
    Probe probe = {.done_ps = done_ps};
    SimHandlerId landed = sim_engine_register(engine, "probe-landed", on_landed, &probe);
    NetModel *net = net_new(fidelity, engine, graph, router, NULL);
    for (size_t i = 0; i < n_xfers; i++) {
        NetSend send = {
            .src = xfers[i].src,
            .dst = xfers[i].dst,
            .n_bytes = xfers[i].n_bytes,
            .path = NET_PATH_SPRAY,
            .issuer = issuer,
            .on_done = landed,
            .cookie = i,
        };
        net_send(net, &send);
    }
    SimRunOutcome outcome = sim_engine_run(engine, SIM_TIME_NEVER);
    g_assert(outcome == SIM_RUN_DRAINED);
    net_get_stats(net, &result->stats);
    g_assert(result->stats.n_sends_done == n_xfers);
    SimEngineStats es;
    sim_engine_get_stats(engine, &es);
    result->n_events = es.n_events_executed;
    result->trace_hash = sim_engine_trace_hash(engine);
    result->last_done_ps = probe.last_ps;
    net_free(net);
    sim_engine_free(engine);
}
