/* SPDX-License-Identifier: Apache-2.0 */
/* The flow engine against closed forms, to the picosecond: one transfer,
 * two flows sharing a link, N-to-1 incast, a permutation (a ring) through a
 * crossbar, spraying over planes of unequal width, a late flow taking its
 * share, a flow sent at the instant another drains, CRC errors at their
 * expected cost; bytes conserved in every run.
 * The worlds are the packet suite's (net-world), at flow fidelity. */
#include <check.h>
#include <string.h>
#include <math.h>

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

/* Stopped halfway through, the flow engine names the links of the
 * unfinished flow, its bytes left and its rate; once all has landed,
 * nothing. */
START_TEST(stuck_links_are_described)
{
    World w;
    world_init(&w);
    w.fidelity = NET_FIDELITY_FLOW;
    world_pair(&w, 1);
    world_start(&w, 1);
    world_send(&w, 0, 1, 1000 * PAYLOAD, 0);
    /* 256000 B at 25 GB/s x 256/272 drain in 10.88 us: at 5.44 us half is left. */
    ck_assert_int_eq(sim_engine_run(w.engine, 5440000), SIM_RUN_TIME_LIMIT);
    g_autoptr(GString) out = g_string_new(NULL);
    net_describe_stuck(w.net, out, 4);
    ck_assert_msg(g_str_has_prefix(out->str, "; gpu 0 -> gpu 1: 1 flow, "), "%s", out->str);
    ck_assert_msg(strstr(out->str, "slowest at 23.5 GB/s") != NULL, "%s", out->str);
    world_run(&w);
    g_string_truncate(out, 0);
    net_describe_stuck(w.net, out, 4);
    ck_assert_str_eq(out->str, "");
    world_free(&w);
}
END_TEST

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

/* A system whose links reach 0.8 of their rate (a cluster's measured
 * efficiency, [nvlink] efficiency): the same transfer drains in 10.88 us /
 * 0.8 = 13.6 us, then the same latency; the graph is not faulted. */
START_TEST(one_transfer_one_scaled_link)
{
    World w;
    flow_world(&w);
    world_pair(&w, 1);
    topo_graph_scale_links(w.graph, &w.link, 0.8);
    ck_assert(!w.graph->faulted);
    world_start(&w, 1);
    world_send(&w, 0, 1, 1000 * PAYLOAD, 0);
    world_run(&w);
    ck_assert_uint_eq(w.done.time_ps[0], 13600000 + LAT);
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

/* A transfer sent by a handler at the very picosecond another drains (a
 * collective forwarding what it received, its channels in step) has no
 * rate until the recomputation of that instant, which runs after the
 * drain: it must wait for it, not be taken for drained. */
static void
send_second(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)engine;
    (void)event;
    world_send(ctx, 2, 1, 1000 * PAYLOAD, 1);
}

START_TEST(flow_sent_at_a_drain_carries_its_bytes)
{
    World w;
    flow_world(&w);
    world_star(&w, 3, 1);
    world_start(&w, 1);
    SimHandlerId h = sim_engine_register(w.engine, "test-send-second", send_second, &w);
    world_send(&w, 0, 1, 1000 * PAYLOAD, 0);
    uint64_t drained = packets_ps(1000, RATE);
    sim_engine_schedule(w.engine, drained, 0, h);
    world_run(&w);
    ck_assert_uint_eq(w.done.time_ps[0], drained + star_tail_ps(RATE));
    ck_assert_uint_eq(w.done.time_ps[1], 2 * drained + star_tail_ps(RATE));
    world_free(&w);
}
END_TEST

/* One transfer's wire bytes, counted in bins of the link load: 1000
 * packets of 256 + 16 bytes on the link, spread over the bins its drain
 * crosses, at the link's rate in every full bin; the same at both
 * fidelities. Bins widen without losing a byte. */
static void
load_one_transfer(NetFidelity fidelity)
{
    World w;
    world_init(&w);
    w.fidelity = fidelity;
    world_pair(&w, 1);
    world_start(&w, 1);
    g_autoptr(NetLinkLoad) load = net_link_load_new(topo_graph_n_links(w.graph), 1000000, 64);
    net_set_link_load(w.net, load);
    world_send(&w, 0, 1, 1000 * PAYLOAD, 0);
    world_run(&w);
    double sum = 0, full_bin = (double)RATE * 1e-6;
    uint32_t l = 0;
    for (uint32_t i = 0; i < load->n_links; i++) {
        double link_sum = 0;
        for (uint32_t k = 0; k < load->max_bins; k++)
            link_sum += load->wire_bytes[(size_t)i * load->max_bins + k];
        if (link_sum > 0)
            l = i;
        sum += link_sum;
    }
    ck_assert_msg(fabs(sum - 1000.0 * (PAYLOAD + HEADER)) < 1e-3, "%s: %.3f bytes",
                  net_fidelity_name(fidelity), sum);
    /* 10.88 us of drain: bins 0 to 9 full, bin 10 the rest. */
    ck_assert_uint_eq(load->n_bins, 11);
    for (uint32_t k = 0; k < 10; k++)
        ck_assert_msg(fabs(load->wire_bytes[(size_t)l * load->max_bins + k] - full_bin) <
                          PAYLOAD + HEADER,
                      "%s: bin %u", net_fidelity_name(fidelity), k);
    world_free(&w);
}

/* A noisy link: half its packets fail their CRC (p = 0.5), each failure
 * resending the packet and stalling the link a 1 us replay. The flow
 * engine charges the expectation, per packet its 272 B and p / (1 - p) = 1
 * failure: 10,880 + 10,880 + 1,000,000 ps for each of 1000 packets, then
 * the latency. The packet engine draws the failures; over 20000 packets at
 * p = 0.05 it lands within 10% (about 3 standard deviations) of the flow
 * engine's expectation. */
START_TEST(crc_errors_cost_their_expectation)
{
    World w;
    flow_world(&w);
    world_pair(&w, 1);
    topo_graph_degrade_bundle(w.graph, 0, 1.0, 0.5);
    world_start(&w, 1);
    world_send(&w, 0, 1, 1000 * PAYLOAD, 0);
    world_run(&w);
    ck_assert_uint_eq(w.done.time_ps[0], 1000 * (2 * UINT64_C(10880) + REPLAY) + LAT);
    world_free(&w);

    uint64_t t[2];
    for (int k = 0; k < 2; k++) {
        world_init(&w);
        w.fidelity = k == 0 ? NET_FIDELITY_FLOW : NET_FIDELITY_PACKET;
        world_pair(&w, 1);
        topo_graph_degrade_bundle(w.graph, 0, 1.0, 0.05);
        world_start(&w, 7);
        world_send(&w, 0, 1, 20000 * PAYLOAD, 0);
        world_run(&w);
        t[k] = w.done.time_ps[0];
        world_free(&w);
    }
    ck_assert_msg(fabs((double)t[1] / (double)t[0] - 1.0) < 0.10,
                  "packet %" PRIu64 " ps, flow %" PRIu64 " ps", t[1], t[0]);
}
END_TEST

START_TEST(link_load_counts_wire_bytes)
{
    load_one_transfer(NET_FIDELITY_FLOW);
    load_one_transfer(NET_FIDELITY_PACKET);
}
END_TEST

START_TEST(link_load_widens_without_loss)
{
    g_autoptr(NetLinkLoad) load = net_link_load_new(2, 10, 4);
    net_link_load_add(load, 0, 40.0, 0, 40); /* 10 a bin over bins 0-3 */
    net_link_load_add(load, 1, 7.0, 35, 35); /* a point in bin 3 */
    ck_assert_uint_eq(load->n_bins, 4);
    net_link_load_add(load, 0, 30.0, 40, 100); /* past 4 bins of 10: widen twice, to 40 */
    ck_assert_uint_eq(load->bin_ps, 40);
    ck_assert_uint_eq(load->n_bins, 3);
    /* [0, 40): the first 40; [40, 80) and [80, 100): 30 x 40/60 and 30 x 20/60. */
    ck_assert(fabs(load->wire_bytes[0] - 40.0) < 1e-9);
    ck_assert(fabs(load->wire_bytes[1] - 20.0) < 1e-9);
    ck_assert(fabs(load->wire_bytes[2] - 10.0) < 1e-9);
    double sum0 = 0;
    for (uint32_t k = 0; k < load->max_bins; k++)
        sum0 += load->wire_bytes[k];
    ck_assert(fabs(sum0 - 70.0) < 1e-9);
    ck_assert(fabs(load->wire_bytes[load->max_bins + 0] - 7.0) < 1e-9);
}
END_TEST

Suite *
net_flow_suite(void)
{
    Suite *s = suite_create("net-flow");
    TCase *tc = tcase_create("closed-forms");
    tcase_add_test(tc, one_transfer_one_link);
    tcase_add_test(tc, one_transfer_one_scaled_link);
    tcase_add_test(tc, stuck_links_are_described);
    tcase_add_test(tc, two_flows_share_a_link);
    tcase_add_test(tc, incast_limited_by_output);
    tcase_add_test(tc, permutation_at_full_rate);
    tcase_add_test(tc, spray_over_unequal_planes);
    tcase_add_test(tc, late_flow_takes_its_share);
    tcase_add_test(tc, flow_sent_at_a_drain_carries_its_bytes);
    tcase_add_test(tc, crc_errors_cost_their_expectation);
    tcase_add_test(tc, link_load_counts_wire_bytes);
    tcase_add_test(tc, link_load_widens_without_loss);
    suite_add_tcase(s, tc);
    return s;
}
