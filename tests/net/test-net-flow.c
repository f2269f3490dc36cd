/* The flow engine against closed forms, to the picosecond: one transfer,
 * two flows sharing a link, N-to-1 incast, a permutation (a ring) through a
 * crossbar, spraying over planes of unequal width, a late flow taking its
 * share; bytes conserved in every run. The worlds are the packet suite's
 * (net-world), at flow fidelity. */
#include <check.h>

#include "net-suites.h"
#include "net-world.h"

static void
flow_world(World *w)
{
    world_init(w);
    w->fidelity = NET_FIDELITY_FLOW;
}

/* Serialization of k full packets at rate. */
static uint64_t
packets_ps(uint64_t k, uint64_t bytes_per_s)
{
    return ser(k * (PAYLOAD + HEADER), bytes_per_s);
}

START_TEST(one_transfer_one_link)
{
    World w;
    flow_world(&w);
    world_pair(&w, 1);
    world_start(&w, 1);
    world_send(&w, 0, 1, 1000 * PAYLOAD, 0);
    world_run(&w);
    /* 1000 packets of 272 B at 25 GB/s, then the link latency. */
    ck_assert_uint_eq(w.done.time_ps[0], 10880000 + LAT);
    ck_assert_uint_eq(w.done.bytes[0], 1000 * PAYLOAD);
    world_free(&w);
}
END_TEST

START_TEST(two_flows_share_a_link)
{
    World w;
    flow_world(&w);
    world_star(&w, 3, 1);
    world_start(&w, 1);
    world_send(&w, 0, 2, 1000 * PAYLOAD, 0);
    world_send(&w, 1, 2, 1000 * PAYLOAD, 1);
    world_run(&w);
    /* The switch-to-GPU2 link carries both: each at half the rate. */
    uint64_t expect = packets_ps(2000, RATE) + star_tail_ps(RATE);
    ck_assert_uint_eq(w.done.time_ps[0], expect);
    ck_assert_uint_eq(w.done.time_ps[1], expect);
    world_free(&w);
}
END_TEST

START_TEST(incast_limited_by_output)
{
    const uint32_t n = 7;
    World w;
    flow_world(&w);
    world_star(&w, n + 1, 1);
    world_start(&w, 1);
    for (uint32_t g = 0; g < n; g++)
        world_send(&w, g, n, 500 * PAYLOAD, g);
    world_run(&w);
    uint64_t expect = packets_ps(n * 500, RATE) + star_tail_ps(RATE);
    for (uint32_t g = 0; g < n; g++)
        ck_assert_uint_eq(w.done.time_ps[g], expect);
    world_free(&w);
}
END_TEST

START_TEST(permutation_at_full_rate)
{
    const uint32_t n = 8;
    World w;
    flow_world(&w);
    world_star(&w, n, 2);
    world_start(&w, 1);
    for (uint32_t g = 0; g < n; g++)
        world_send(&w, g, (g + 1) % n, 4000 * PAYLOAD, g);
    world_run(&w);
    /* A ring on a non-blocking crossbar: every flow alone on its links. */
    uint64_t expect = packets_ps(4000, 2 * RATE) + star_tail_ps(2 * RATE);
    for (uint32_t g = 0; g < n; g++)
        ck_assert_uint_eq(w.done.time_ps[g], expect);
    world_free(&w);
}
END_TEST

START_TEST(spray_over_unequal_planes)
{
    /* Two GPUs, two switches: 5 links to one, 4 to the other, as on an
     * H100's 5/5/4/4 split. Bytes split 5:4 and both planes finish together. */
    World w;
    flow_world(&w);
    topo_graph_add_vertex(w.graph, TOPO_GPU, 0, NULL);
    topo_graph_add_vertex(w.graph, TOPO_GPU, 0, NULL);
    uint32_t s0 = topo_graph_add_vertex(w.graph, TOPO_NVSWITCH, SW_LAT, &w.sw);
    uint32_t s1 = topo_graph_add_vertex(w.graph, TOPO_NVSWITCH, SW_LAT, &w.sw);
    for (uint32_t g = 0; g < 2; g++) {
        topo_graph_add_bundle(w.graph, g, s0, &w.link, 5);
        topo_graph_add_bundle(w.graph, g, s1, &w.link, 4);
    }
    world_start(&w, 1);
    TopoRoute route;
    ck_assert(topo_router_route(w.router, 0, 1, &route));
    ck_assert_uint_eq(route.n_paths, 2);
    ck_assert_uint_eq(route.total_weight, 9);
    world_send(&w, 0, 1, 9 * 1000 * PAYLOAD, 0);
    world_run(&w);
    uint64_t expect = packets_ps(5000, 5 * RATE) + star_tail_ps(4 * RATE);
    ck_assert_uint_eq(w.done.time_ps[0], expect);
    world_free(&w);
}
END_TEST

START_TEST(late_flow_takes_its_share)
{
    /* Flow 1 starts when flow 0 is half done; from then on they share. */
    World w;
    flow_world(&w);
    world_star(&w, 3, 1);
    world_start(&w, 1);
    world_send(&w, 0, 2, 2000 * PAYLOAD, 0);
    uint64_t half = packets_ps(1000, RATE);
    sim_engine_run(w.engine, half);
    world_send(&w, 1, 2, 1000 * PAYLOAD, 1);
    world_run(&w);
    /* Both have 1000 packets left at half: they finish together after 2000 more. */
    uint64_t expect = half + packets_ps(2000, RATE) + star_tail_ps(RATE);
    ck_assert_uint_eq(w.done.time_ps[0], expect);
    ck_assert_uint_eq(w.done.time_ps[1], expect);
    world_free(&w);
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
