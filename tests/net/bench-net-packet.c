/* The packet engine's speed, not a test: an all-to-all among 8 GPUs, each
 * wired to 4 NVSwitch planes by 5/5/4/4 NVLink 4 links (a DGX H100 built by
 * hand, figures from models/link/nvlink4.ini and models/switch/nvswitch3.ini),
 * moving TOTAL bytes in all (default 1 GiB) as copy-engine packets. Prints
 * packets and events per wall second; the simulated time and trace hash do
 * not vary from run to run.
 *   usage: bench-net-packet [TOTAL_BYTES]
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/core-engine.h"
#include "net/net.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

#define N_GPUS 8
#define N_PLANES 4

static const HwLink nvlink4 = {
    .name = "NVLink 4",
    .kind = HW_LINK_NVLINK,
    .generation = 4,
    .bytes_per_s = 25000000000,
    .header_bytes = 16,
    .sm_payload_bytes = 128,
    .ce_payload_bytes = 256,
    .latency_ps = 150000,
    .rx_buffer_bytes = 16384,
    .credit_bytes = 16,
    .replay_latency_ps = 400000,
};

static const HwSwitch nvswitch3 = {
    .name = "NVSwitch gen 3",
    .kind = HW_SWITCH_NVSWITCH,
    .generation = 3,
    .n_ports = 64,
    .latency_ps = 200000,
    .port_buffer_bytes = 16384,
};

static void
on_done(SimEngine *engine, const SimEvent *event, void *ctx)
{
    uint64_t *last_ps = ctx;
    (void)event;
    *last_ps = MAX(*last_ps, sim_engine_now(engine));
}

int
main(int argc, char **argv)
{
    uint64_t total_bytes = argc > 1 ? g_ascii_strtoull(argv[1], NULL, 10) : UINT64_C(1) << 30;
    static const uint32_t plane_links[N_PLANES] = {5, 5, 4, 4};
    TopoGraph *graph = topo_graph_new();
    for (uint32_t g = 0; g < N_GPUS; g++)
        topo_graph_add_vertex(graph, TOPO_GPU, 0, NULL);
    for (uint32_t p = 0; p < N_PLANES; p++) {
        uint32_t sw = topo_graph_add_vertex(graph, TOPO_NVSWITCH, nvswitch3.latency_ps, &nvswitch3);
        for (uint32_t g = 0; g < N_GPUS; g++)
            topo_graph_add_bundle(graph, g, sw, &nvlink4, plane_links[p]);
    }
    TopoRouter *router = topo_router_new(graph);
    SimEngine *engine = sim_engine_new();
    NetOptions options = {.seed = 1};
    NetModel *net = net_new(NET_FIDELITY_PACKET, engine, graph, router, &options);
    uint64_t last_ps = 0;
    SimHandlerId done = sim_engine_register(engine, "done", on_done, &last_ps);

    uint64_t pair_bytes = total_bytes / (N_GPUS * (N_GPUS - 1));
    int64_t start_us = g_get_monotonic_time();
    for (uint32_t a = 0; a < N_GPUS; a++)
        for (uint32_t b = 0; b < N_GPUS; b++) {
            if (a == b)
                continue;
            NetSend send = {
                .src = a,
                .dst = b,
                .n_bytes = pair_bytes,
                .path = NET_PATH_SPRAY,
                .issuer = NET_ISSUER_CE,
                .on_done = done,
            };
            net_send(net, &send);
        }
    SimRunOutcome outcome = sim_engine_run(engine, SIM_TIME_NEVER);
    double wall_s = (double)(g_get_monotonic_time() - start_us) / 1e6;
    g_assert(outcome == SIM_RUN_DRAINED);

    NetStats stats;
    net_get_stats(net, &stats);
    SimEngineStats es;
    sim_engine_get_stats(engine, &es);
    printf("# packet engine: %d-GPU all-to-all over %d NVSwitch planes (5/5/4/4 NVLink 4)\n",
           N_GPUS, N_PLANES);
    printf("%-28s %" PRIu64 "\n", "payload_bytes", stats.payload_bytes_delivered);
    printf("%-28s %" PRIu64 "\n", "packets", stats.n_packets);
    printf("%-28s %" PRIu64 "\n", "events", es.n_events_executed);
    printf("%-28s %.2f\n", "events_per_packet",
           (double)es.n_events_executed / (double)stats.n_packets);
    printf("%-28s %.3f\n", "wall_s", wall_s);
    printf("%-28s %.2f\n", "Mpackets_per_wall_s", (double)stats.n_packets / wall_s / 1e6);
    printf("%-28s %.2f\n", "Mevents_per_wall_s", (double)es.n_events_executed / wall_s / 1e6);
    printf("%-28s %u\n", "event_pool_high_water", es.pool_high_water);
    printf("%-28s %" PRIu64 "\n", "sim_time_ps", last_ps);
    printf("%-28s %.1f\n", "per_gpu_send_GB_per_s",
           (double)pair_bytes * (N_GPUS - 1) / ((double)last_ps / 1e12) / 1e9);
    printf("%-28s %016" PRIx64 "\n", "trace_hash", sim_engine_trace_hash(engine));

    net_free(net);
    sim_engine_free(engine);
    topo_router_free(router);
    topo_graph_free(graph);
    return EXIT_SUCCESS;
}
