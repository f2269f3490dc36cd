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
#include "net-traffic.h"
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
compare_runs(int seed, const TopoGraph *g, const TrafficXfer *xfers)
{
    TopoRouter *router = topo_router_new(g);
    uint64_t checked[N_XFERS], full[N_XFERS];
    NetStats checked_stats, full_stats;
    NetOptions checked_options = {.seed = 1, .flow_rates = NET_FLOW_RATES_CHECKED};
    NetOptions full_options = {.seed = 1, .flow_rates = NET_FLOW_RATES_FULL};
    traffic_run(g, router, xfers, N_XFERS, &checked_options, checked, &checked_stats);
    traffic_run(g, router, xfers, N_XFERS, &full_options, full, &full_stats);
    for (uint32_t i = 0; i < N_XFERS; i++)
        ck_assert_msg(checked[i] == full[i],
                      "seed %d: transfer %u lands at %" PRIu64 " ps incremental, %" PRIu64
                      " ps full",
                      seed, i, checked[i], full[i]);
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
    TrafficXfer xfers[N_XFERS];
    traffic_random(rng, g, n_gpus, 1, 4 << 20, 1, xfers, N_XFERS);
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
    TrafficXfer xfers[N_XFERS];
    traffic_random(rng, g, topo_graph_n_gpus(g), 1, 4 << 20, 1, xfers, N_XFERS);
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
