/* SPDX-License-Identifier: Apache-2.0 */
/* The hand-made worlds of the sim/net suites (see net-world.h). */
#include "net-world.h"

static const HwLink base_link = {
    .name = "test link",
    .kind = HW_LINK_NVLINK,
    .bytes_per_s = RATE,
    .header_bytes = HEADER,
    .sm_payload_bytes = 128,
    .ce_payload_bytes = PAYLOAD,
    .latency_ps = LAT,
    .rx_buffer_bytes = 1 << 20,
    .credit_bytes = 16,
    .replay_latency_ps = REPLAY,
};

static const HwSwitch base_switch = {
    .name = "test switch",
    .kind = HW_SWITCH_NVSWITCH,
    .n_ports = 64,
    .latency_ps = SW_LAT,
};

static void
on_done(SimEngine *engine, const SimEvent *event, void *ctx)
{
    Done *done = ctx;
    ck_assert_uint_lt(event->arg[0], MAX_SENDS);
    done->time_ps[event->arg[0]] = sim_engine_now(engine);
    done->bytes[event->arg[0]] = event->arg[1];
    done->n_calls[event->arg[0]]++;
    done->n++;
}

void
world_init(World *w)
{
    *w = (World){.link = base_link, .sw = base_switch};
    w->graph = topo_graph_new();
}

/* Two GPUs joined by one bundle of n_links. */
void
world_pair(World *w, uint32_t n_links)
{
    topo_graph_add_vertex(w->graph, TOPO_GPU, 0, NULL);
    topo_graph_add_vertex(w->graph, TOPO_GPU, 0, NULL);
    topo_graph_add_bundle(w->graph, 0, 1, &w->link, n_links);
}

/* n_gpus GPUs (vertices 0..n-1) around one switch, each by a bundle of
 * n_links. */
void
world_star(World *w, uint32_t n_gpus, uint32_t n_links)
{
    for (uint32_t g = 0; g < n_gpus; g++)
        topo_graph_add_vertex(w->graph, TOPO_GPU, 0, NULL);
    uint32_t sw = topo_graph_add_vertex(w->graph, TOPO_NVSWITCH, w->sw.latency_ps, &w->sw);
    for (uint32_t g = 0; g < n_gpus; g++)
        topo_graph_add_bundle(w->graph, g, sw, &w->link, n_links);
}

/* Two switches joined by a bundle of 2, n_per_leaf GPUs (one link each)
 * on each: GPUs 0..n-1 on the first, n..2n-1 on the second. */
void
world_two_switches(World *w, uint32_t n_per_leaf)
{
    for (uint32_t g = 0; g < 2 * n_per_leaf; g++)
        topo_graph_add_vertex(w->graph, TOPO_GPU, 0, NULL);
    uint32_t s0 = topo_graph_add_vertex(w->graph, TOPO_NVSWITCH, w->sw.latency_ps, &w->sw);
    uint32_t s1 = topo_graph_add_vertex(w->graph, TOPO_NVSWITCH, w->sw.latency_ps, &w->sw);
    for (uint32_t g = 0; g < 2 * n_per_leaf; g++)
        topo_graph_add_bundle(w->graph, g, g < n_per_leaf ? s0 : s1, &w->link, 1);
    topo_graph_add_bundle(w->graph, s0, s1, &w->link, 2);
}

/* The host path: GPUs 0, 1 on PCIe switch 4, GPUs 2, 3 on PCIe switch 5,
 * both switches on CPU 6, which forwards between them and is an endpoint
 * too. Returns the CPU's vertex id. */
uint32_t
world_host(World *w)
{
    for (uint32_t g = 0; g < 4; g++)
        topo_graph_add_vertex(w->graph, TOPO_GPU, 0, NULL);
    uint32_t p0 = topo_graph_add_vertex(w->graph, TOPO_PCIE_SWITCH, PCIE_LAT, NULL);
    uint32_t p1 = topo_graph_add_vertex(w->graph, TOPO_PCIE_SWITCH, PCIE_LAT, NULL);
    uint32_t cpu = topo_graph_add_vertex(w->graph, TOPO_CPU, CPU_LAT, NULL);
    for (uint32_t g = 0; g < 4; g++)
        topo_graph_add_bundle(w->graph, g, g < 2 ? p0 : p1, &w->link, 1);
    topo_graph_add_bundle(w->graph, p0, cpu, &w->link, 1);
    topo_graph_add_bundle(w->graph, p1, cpu, &w->link, 1);
    return cpu;
}

void
world_start(World *w, uint64_t seed)
{
    NetOptions options = {.seed = seed};
    w->engine = sim_engine_new();
    w->router = topo_router_new(w->graph);
    w->net = net_new(w->fidelity, w->engine, w->graph, w->router, &options);
    ck_assert_ptr_nonnull(w->net);
    w->done_handler = sim_engine_register(w->engine, "done", on_done, &w->done);
}

static void
world_send_with(World *w, uint32_t src, uint32_t dst, uint64_t n_bytes, uint64_t cookie,
                NetIssuer issuer, uint64_t max_bytes_per_s, uint32_t queue)
{
    NetSend send = {
        .src = src,
        .dst = dst,
        .n_bytes = n_bytes,
        .path = NET_PATH_SPRAY,
        .issuer = issuer,
        .max_bytes_per_s = max_bytes_per_s,
        .queue = queue,
        .on_done = w->done_handler,
        .target = 7,
        .cookie = cookie,
    };
    net_send(w->net, &send);
}

void
world_send_as(World *w, uint32_t src, uint32_t dst, uint64_t n_bytes, uint64_t cookie,
              NetIssuer issuer)
{
    world_send_with(w, src, dst, n_bytes, cookie, issuer, 0, 0);
}

void
world_send_paced(World *w, uint32_t src, uint32_t dst, uint64_t n_bytes, uint64_t cookie,
                 uint64_t max_bytes_per_s, uint32_t queue)
{
    world_send_with(w, src, dst, n_bytes, cookie, NET_ISSUER_CE, max_bytes_per_s, queue);
}

void
world_send(World *w, uint32_t src, uint32_t dst, uint64_t n_bytes, uint64_t cookie)
{
    world_send_as(w, src, dst, n_bytes, cookie, NET_ISSUER_CE);
}

/* Runs to the end and checks what every run must satisfy: each send done
 * once, bytes delivered == bytes sent, and on every link credits never
 * below zero and all of them back or on their way. */
void
world_run(World *w)
{
    ck_assert_int_eq(sim_engine_run(w->engine, SIM_TIME_NEVER), SIM_RUN_DRAINED);
    net_get_stats(w->net, &w->stats);
    ck_assert_uint_eq(w->stats.n_sends, w->stats.n_sends_done);
    ck_assert_uint_eq(w->done.n, w->stats.n_sends);
    ck_assert_uint_eq(w->stats.payload_bytes_sent, w->stats.payload_bytes_delivered);
    for (uint32_t i = 0; i < MAX_SENDS; i++)
        ck_assert_uint_le(w->done.n_calls[i], 1);
    for (uint32_t l = 0; w->fidelity == NET_FIDELITY_PACKET && l < topo_graph_n_links(w->graph);
         l++) {
        NetPacketLinkStats ls;
        net_packet_link_stats(w->net, l, &ls);
        ck_assert_int_ge(ls.credits_min, 0);
        ck_assert_int_eq(ls.credits + ls.credits_returning, ls.credits_total);
    }
    w->trace_hash = sim_engine_trace_hash(w->engine);
}

void
world_free(World *w)
{
    net_free(w->net);
    topo_router_free(w->router);
    topo_graph_free(w->graph);
    sim_engine_free(w->engine);
}

uint64_t
ser(uint64_t wire_bytes, uint64_t bytes_per_s)
{
    return sim_serialization_ps(wire_bytes, bytes_per_s);
}

/* What one full packet adds after the last one left its source, on
 * GPU-switch-GPU at one rate: its second hop, two link latencies and the
 * switch. */
uint64_t
star_tail_ps(uint64_t bytes_per_s)
{
    return ser(PAYLOAD + HEADER, bytes_per_s) + 2 * LAT + SW_LAT;
}
