/* The flow engine against closed forms, to the picosecond: one transfer,
 * two flows sharing a link, N-to-1 incast, a permutation (a ring) through a
 * crossbar, spraying over planes of unequal width, and bytes conserved. */
#include <check.h>

#include "core/core-engine.h"
#include "net/net.h"
#include "net-suites.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

#define LINK_BYTES_PER_S UINT64_C(25000000000) /* 25 GB/s */
#define LINK_LATENCY_PS UINT64_C(100000)       /* 100 ns */
#define SWITCH_LATENCY_PS UINT64_C(250000)     /* 250 ns */
#define HEADER UINT64_C(16)
#define PAYLOAD UINT64_C(256)

static const HwLink test_link = {
    .name = "test link",
    .kind = HW_LINK_NVLINK,
    .bytes_per_s = LINK_BYTES_PER_S,
    .header_bytes = HEADER,
    .sm_payload_bytes = 128,
    .ce_payload_bytes = PAYLOAD,
    .latency_ps = LINK_LATENCY_PS,
    .rx_buffer_bytes = 1 << 20,
    .credit_bytes = 16,
};

static const HwSwitch test_switch = {
    .name = "test switch",
    .kind = HW_SWITCH_NVSWITCH,
    .n_ports = 64,
    .latency_ps = SWITCH_LATENCY_PS,
};

typedef struct Done {
    uint64_t time_ps[64];
    uint64_t bytes[64];
    uint32_t n;
} Done;

static void
on_done(SimEngine *engine, const SimEvent *event, void *ctx)
{
    Done *done = ctx;
    ck_assert_uint_lt(event->arg[0], 64);
    done->time_ps[event->arg[0]] = sim_engine_now(engine);
    done->bytes[event->arg[0]] = event->arg[1];
    done->n++;
}

typedef struct World {
    SimEngine *engine;
    TopoGraph *graph;
    TopoRouter *router;
    NetModel *net;
    SimHandlerId done_handler;
    Done done;
} World;

/* n_gpus GPUs around one switch, each by one bundle of n_links. */
static void
world_star(World *w, uint32_t n_gpus, uint32_t n_links)
{
    w->graph = topo_graph_new();
    for (uint32_t g = 0; g < n_gpus; g++)
        topo_graph_add_vertex(w->graph, TOPO_GPU, 0, NULL);
    uint32_t sw = topo_graph_add_vertex(w->graph, TOPO_NVSWITCH, SWITCH_LATENCY_PS, &test_switch);
    for (uint32_t g = 0; g < n_gpus; g++)
        topo_graph_add_bundle(w->graph, g, sw, &test_link, n_links);
}

static void
world_start(World *w)
{
    w->engine = sim_engine_new();
    w->router = topo_router_new(w->graph);
    w->net = net_new(NET_FIDELITY_FLOW, w->engine, w->graph, w->router, NULL);
    w->done_handler = sim_engine_register(w->engine, "done", on_done, &w->done);
    w->done = (Done){0};
}

static void
world_send(World *w, uint32_t src, uint32_t dst, uint64_t n_bytes, uint64_t cookie)
{
    NetSend send = {
        .src = src,
        .dst = dst,
        .n_bytes = n_bytes,
        .path = NET_PATH_SPRAY,
        .issuer = NET_ISSUER_CE,
        .on_done = w->done_handler,
        .cookie = cookie,
    };
    net_send(w->net, &send);
}

static void
world_run_and_free(World *w)
{
    ck_assert_int_eq(sim_engine_run(w->engine, SIM_TIME_NEVER), SIM_RUN_DRAINED);
    NetStats stats;
    net_get_stats(w->net, &stats);
    ck_assert_uint_eq(stats.n_sends, stats.n_sends_done);
    ck_assert_uint_eq(stats.payload_bytes_sent, stats.payload_bytes_delivered);
    net_free(w->net);
    topo_router_free(w->router);
    topo_graph_free(w->graph);
    sim_engine_free(w->engine);
}

/* Serialization of k full packets at rate. */
static uint64_t
ser_ps(uint64_t k, uint64_t bytes_per_s)
{
    return sim_serialization_ps(k * (PAYLOAD + HEADER), bytes_per_s);
}

START_TEST(one_transfer_one_link)
{
    World w;
    w.graph = topo_graph_new();
    topo_graph_add_vertex(w.graph, TOPO_GPU, 0, NULL);
    topo_graph_add_vertex(w.graph, TOPO_GPU, 0, NULL);
    topo_graph_add_bundle(w.graph, 0, 1, &test_link, 1);
    world_start(&w);
    world_send(&w, 0, 1, 1000 * PAYLOAD, 0);
    world_run_and_free(&w);
    /* 1000 packets of 272 B at 25 GB/s, then the link latency. */
    ck_assert_uint_eq(w.done.n, 1);
    ck_assert_uint_eq(w.done.time_ps[0], 10880000 + LINK_LATENCY_PS);
    ck_assert_uint_eq(w.done.bytes[0], 1000 * PAYLOAD);
}
END_TEST

/* Time one packet adds after draining, on GPU-switch-GPU. */
static uint64_t
star_tail_ps(uint64_t bytes_per_s)
{
    return ser_ps(1, bytes_per_s) + 2 * LINK_LATENCY_PS + SWITCH_LATENCY_PS;
}

START_TEST(two_flows_share_a_link)
{
    World w;
    world_star(&w, 3, 1);
    world_start(&w);
    world_send(&w, 0, 2, 1000 * PAYLOAD, 0);
    world_send(&w, 1, 2, 1000 * PAYLOAD, 1);
    world_run_and_free(&w);
    /* The switch-to-GPU2 link carries both: each at half the rate. */
    uint64_t expect = ser_ps(2000, LINK_BYTES_PER_S) + star_tail_ps(LINK_BYTES_PER_S);
    ck_assert_uint_eq(w.done.time_ps[0], expect);
    ck_assert_uint_eq(w.done.time_ps[1], expect);
}
END_TEST

START_TEST(incast_limited_by_output)
{
    const uint32_t n = 7;
    World w;
    world_star(&w, n + 1, 1);
    world_start(&w);
    for (uint32_t g = 0; g < n; g++)
        world_send(&w, g, n, 500 * PAYLOAD, g);
    world_run_and_free(&w);
    uint64_t expect = ser_ps(n * 500, LINK_BYTES_PER_S) + star_tail_ps(LINK_BYTES_PER_S);
    for (uint32_t g = 0; g < n; g++)
        ck_assert_uint_eq(w.done.time_ps[g], expect);
}
END_TEST

START_TEST(permutation_at_full_rate)
{
    const uint32_t n = 8;
    World w;
    world_star(&w, n, 2);
    world_start(&w);
    for (uint32_t g = 0; g < n; g++)
        world_send(&w, g, (g + 1) % n, 4000 * PAYLOAD, g);
    world_run_and_free(&w);
    /* A ring on a non-blocking crossbar: every flow alone on its links. */
    uint64_t expect = ser_ps(4000, 2 * LINK_BYTES_PER_S) + star_tail_ps(2 * LINK_BYTES_PER_S);
    for (uint32_t g = 0; g < n; g++)
        ck_assert_uint_eq(w.done.time_ps[g], expect);
}
END_TEST

START_TEST(spray_over_unequal_planes)
{
    /* Two GPUs, two switches: 5 links to one, 4 to the other, as on an
     * H100's 5/5/4/4 split. Bytes split 5:4 and both planes finish together. */
    World w;
    w.graph = topo_graph_new();
    topo_graph_add_vertex(w.graph, TOPO_GPU, 0, NULL);
    topo_graph_add_vertex(w.graph, TOPO_GPU, 0, NULL);
    uint32_t s0 = topo_graph_add_vertex(w.graph, TOPO_NVSWITCH, SWITCH_LATENCY_PS, &test_switch);
    uint32_t s1 = topo_graph_add_vertex(w.graph, TOPO_NVSWITCH, SWITCH_LATENCY_PS, &test_switch);
    for (uint32_t g = 0; g < 2; g++) {
        topo_graph_add_bundle(w.graph, g, s0, &test_link, 5);
        topo_graph_add_bundle(w.graph, g, s1, &test_link, 4);
    }
    world_start(&w);
    TopoRoute route;
    ck_assert(topo_router_route(w.router, 0, 1, &route));
    ck_assert_uint_eq(route.n_paths, 2);
    ck_assert_uint_eq(route.total_weight, 9);
    world_send(&w, 0, 1, 9 * 1000 * PAYLOAD, 0);
    world_run_and_free(&w);
    uint64_t expect = ser_ps(5000, 5 * LINK_BYTES_PER_S) + star_tail_ps(4 * LINK_BYTES_PER_S);
    ck_assert_uint_eq(w.done.time_ps[0], expect);
}
END_TEST

START_TEST(late_flow_takes_its_share)
{
    /* Flow 1 starts when flow 0 is half done; from then on they share. */
    World w;
    world_star(&w, 3, 1);
    world_start(&w);
    world_send(&w, 0, 2, 2000 * PAYLOAD, 0);
    uint64_t half = ser_ps(1000, LINK_BYTES_PER_S);
    sim_engine_run(w.engine, half);
    world_send(&w, 1, 2, 1000 * PAYLOAD, 1);
    world_run_and_free(&w);
    /* Both have 1000 packets left at half: they finish together after 2000 more. */
    uint64_t expect = half + ser_ps(2000, LINK_BYTES_PER_S) + star_tail_ps(LINK_BYTES_PER_S);
    ck_assert_uint_eq(w.done.time_ps[0], expect);
    ck_assert_uint_eq(w.done.time_ps[1], expect);
}
END_TEST

Suite *
net_flow_suite(void)
{
    Suite *s = suite_create("net-flow");
    TCase *tc = tcase_create("closed-forms");
    tcase_add_test(tc, one_transfer_one_link);
    tcase_add_test(tc, two_flows_share_a_link);
    tcase_add_test(tc, incast_limited_by_output);
    tcase_add_test(tc, permutation_at_full_rate);
    tcase_add_test(tc, spray_over_unequal_planes);
    tcase_add_test(tc, late_flow_takes_its_share);
    suite_add_tcase(s, tc);
    return s;
}
