/* SPDX-License-Identifier: Apache-2.0 */
/* The flow engine's incremental max-min against a solve of every flow, on
 * random traffic: transfers of random sizes between random GPUs, starting
 * at random times, some paced, some in send queues, some SM-issued, on
 * random switched graphs (links of unequal rates, some bundles degraded
 * with CRC errors) and on two DGX H100 nodes. In checked mode the engine
 * compares every flow's rate after every recomputation with the full solve
 * (and aborts unless they are the same double); the whole run, every
 * transfer's landing time, must match a run on full solves to the
 * picosecond. */
#include <check.h>

#include "hw/hw-models.h"
#include "hw/hw-system.h"
#include "net/net.h"
#include "net-suites.h"
#include "topo/topo-build.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

#define N_XFERS 96
#define MAX_GPUS 16

/* Rates (25, 50 and 12.5 GB/s) and packets of the test worlds (net-world). */
static const HwLink rand_links[] = {
    {.name = "slow",
     .kind = HW_LINK_NVLINK,
     .bytes_per_s = UINT64_C(25000000000),
     .header_bytes = 16,
     .sm_payload_bytes = 128,
     .ce_payload_bytes = 256,
     .latency_ps = 100000,
     .rx_buffer_bytes = 1 << 20,
     .credit_bytes = 16,
     .replay_latency_ps = 1000000},
    {.name = "fast",
     .kind = HW_LINK_NVLINK,
     .bytes_per_s = UINT64_C(50000000000),
     .header_bytes = 16,
     .sm_payload_bytes = 128,
     .ce_payload_bytes = 256,
     .latency_ps = 150000,
     .rx_buffer_bytes = 1 << 20,
     .credit_bytes = 16,
     .replay_latency_ps = 1000000},
    {.name = "thin",
     .kind = HW_LINK_NVLINK,
     .bytes_per_s = UINT64_C(12500000000),
     .header_bytes = 32,
     .sm_payload_bytes = 64,
     .ce_payload_bytes = 128,
     .latency_ps = 80000,
     .rx_buffer_bytes = 4 << 10,
     .credit_bytes = 16,
     .replay_latency_ps = 1000000},
};

static const HwSwitch rand_switch = {
    .name = "rates switch",
    .kind = HW_SWITCH_NVSWITCH,
    .n_ports = 64,
    .latency_ps = 250000,
};

typedef struct Xfer {
    uint32_t src, dst; /* GPU indices */
    uint64_t n_bytes;
    uint64_t start_ps;
    uint64_t max_bytes_per_s;
    uint32_t queue;
    NetIssuer issuer;
} Xfer;

typedef struct Run {
    const TopoGraph *graph;
    NetModel *net;
    const Xfer *xfers;
    SimHandlerId done_handler;
    uint64_t done_ps[N_XFERS];
    uint32_t n_done;
} Run;

static void
on_start(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)engine;
    Run *r = ctx;
    const Xfer *x = &r->xfers[event->arg[0]];
    NetSend send = {
        .src = topo_graph_gpu_vertex(r->graph, x->src),
        .dst = topo_graph_gpu_vertex(r->graph, x->dst),
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
    ck_assert_uint_lt(event->arg[0], N_XFERS);
    r->done_ps[event->arg[0]] = sim_engine_now(engine);
    r->n_done++;
}

/* Runs xfers on graph with rates solved as mode says. */
static void
run_xfers(Run *r, const TopoGraph *graph, const TopoRouter *router, const Xfer *xfers,
          NetFlowRates mode, NetStats *stats)
{
    *r = (Run){.graph = graph, .xfers = xfers};
    SimEngine *engine = sim_engine_new();
    NetOptions options = {.seed = 1, .flow_rates = mode};
    r->net = net_new(NET_FIDELITY_FLOW, engine, graph, router, &options);
    r->done_handler = sim_engine_register(engine, "done", on_done, r);
    SimHandlerId start = sim_engine_register(engine, "start", on_start, r);
    for (uint32_t i = 0; i < N_XFERS; i++)
        sim_engine_schedule(engine, xfers[i].start_ps, 0, start)->arg[0] = i;
    ck_assert_int_eq(sim_engine_run(engine, UINT64_MAX), SIM_RUN_DRAINED);
    ck_assert_uint_eq(r->n_done, N_XFERS);
    net_get_stats(r->net, stats);
    net_free(r->net);
    sim_engine_free(engine);
}

/* Random traffic among n_gpus GPUs over 40 us: a third paced (1 to 20
 * GB/s), a fifth in one of four send queues. */
static void
random_xfers(GRand *rng, uint32_t n_gpus, Xfer *xfers)
{
    for (uint32_t i = 0; i < N_XFERS; i++) {
        Xfer *x = &xfers[i];
        x->src = (uint32_t)g_rand_int_range(rng, 0, (gint32)n_gpus);
        x->dst = (x->src + (uint32_t)g_rand_int_range(rng, 1, (gint32)n_gpus)) % n_gpus;
        x->n_bytes = (uint64_t)g_rand_int_range(rng, 1, 4 << 20);
        x->start_ps = (uint64_t)g_rand_int_range(rng, 0, 40000) * 1000;
        x->max_bytes_per_s = g_rand_int_range(rng, 0, 3) == 0
                                 ? (uint64_t)g_rand_int_range(rng, 1, 21) * UINT64_C(1000000000)
                                 : 0;
        x->queue = g_rand_int_range(rng, 0, 5) == 0 ? (uint32_t)g_rand_int_range(rng, 1, 5) : 0;
        x->issuer = g_rand_boolean(rng) ? NET_ISSUER_CE : NET_ISSUER_SM;
    }
}

/* n_gpus GPUs on a chain of 2 to 4 switches, each GPU on one or two of
 * them by bundles of one or two links of a random rate; one bundle in
 * four degraded (half to full rate, packet error rate up to 1e-3). */
static TopoGraph *
random_graph(GRand *rng, uint32_t *n_gpus)
{
    TopoGraph *g = topo_graph_new();
    *n_gpus = (uint32_t)g_rand_int_range(rng, 4, MAX_GPUS + 1);
    uint32_t n_switches = (uint32_t)g_rand_int_range(rng, 2, 5);
    for (uint32_t i = 0; i < *n_gpus; i++)
        topo_graph_add_vertex(g, TOPO_GPU, 0, NULL);
    for (uint32_t s = 0; s < n_switches; s++)
        topo_graph_add_vertex(g, TOPO_NVSWITCH, rand_switch.latency_ps, &rand_switch);
    for (uint32_t i = 0; i < *n_gpus + n_switches - 1; i++) {
        uint32_t a = i, b = *n_gpus + (uint32_t)g_rand_int_range(rng, 0, (gint32)n_switches);
        if (i >= *n_gpus) /* the chain of switches */
            a = i, b = i + 1;
        const HwLink *spec = &rand_links[g_rand_int_range(rng, 0, G_N_ELEMENTS(rand_links))];
        uint32_t link = topo_graph_add_bundle(g, a, b, spec, (uint32_t)g_rand_int_range(rng, 1, 3));
        if (g_rand_int_range(rng, 0, 4) == 0)
            topo_graph_degrade_bundle(g, link, g_rand_double_range(rng, 0.5, 1),
                                      g_rand_double_range(rng, 0, 1e-3));
        /* A GPU on more switches: more paths, bigger components. */
        if (i < *n_gpus && g_rand_boolean(rng)) {
            uint32_t other = *n_gpus + (b - *n_gpus + 1) % n_switches;
            topo_graph_add_bundle(g, a, other, spec, 1);
        }
    }
    return g;
}

/* Both runs on xfers: checked (every recomputation compared) against full,
 * landing times to the picosecond, and the incremental one solving no
 * more flows than the full one. */
static void
compare_runs(int seed, const TopoGraph *g, const Xfer *xfers)
{
    TopoRouter *router = topo_router_new(g);
    Run checked, full;
    NetStats checked_stats, full_stats;
    run_xfers(&checked, g, router, xfers, NET_FLOW_RATES_CHECKED, &checked_stats);
    run_xfers(&full, g, router, xfers, NET_FLOW_RATES_FULL, &full_stats);
    for (uint32_t i = 0; i < N_XFERS; i++)
        ck_assert_msg(checked.done_ps[i] == full.done_ps[i],
                      "seed %d: transfer %u lands at %" PRIu64 " ps incremental, %" PRIu64
                      " ps full",
                      seed, i, checked.done_ps[i], full.done_ps[i]);
    ck_assert_uint_eq(checked_stats.n_rate_updates, full_stats.n_rate_updates);
    ck_assert_uint_le(checked_stats.n_rate_flows, full_stats.n_rate_flows);
    ck_assert_uint_le(checked_stats.n_rate_links, full_stats.n_rate_links);
    topo_router_free(router);
}

START_TEST(incremental_matches_full_random_graphs)
{
    GRand *rng = g_rand_new_with_seed((guint32)_i);
    uint32_t n_gpus;
    TopoGraph *g = random_graph(rng, &n_gpus);
    Xfer xfers[N_XFERS];
    random_xfers(rng, n_gpus, xfers);
    compare_runs(_i, g, xfers);
    topo_graph_free(g);
    g_rand_free(rng);
}
END_TEST

START_TEST(incremental_matches_full_dgx_h100)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSystem) sys = hw_system_load_by_id("dgx-h100", hw_models_dir(), &error);
    ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
    TopoGraph *g = topo_build_system(sys, 2, &error);
    ck_assert_msg(g != NULL, "%s", error ? error->message : "");
    GRand *rng = g_rand_new_with_seed((guint32)_i);
    Xfer xfers[N_XFERS];
    random_xfers(rng, topo_graph_n_gpus(g), xfers);
    compare_runs(_i, g, xfers);
    g_rand_free(rng);
    topo_graph_free(g);
}
END_TEST

Suite *
net_rates_suite(void)
{
    Suite *s = suite_create("net-rates");
    TCase *tc = tcase_create("incremental-vs-full");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, incremental_matches_full_random_graphs, 0, 40);
    tcase_add_loop_test(tc, incremental_matches_full_dgx_h100, 0, 8);
    suite_add_tcase(s, tc);
    return s;
}
