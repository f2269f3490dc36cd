/* SPDX-License-Identifier: Apache-2.0 */
/* Plane groups (sim/net/net-flow-planes.c) against one flow per plane:
 * random transfers sprayed over the NVSwitch planes of two DGX H100 nodes
 * (4 planes of 5, 5, 4 and 4 links) and of a GB200 NVL72 rack (18 planes),
 * some paced, some in send queues, some SM-issued, land as they do with
 * every plane a flow of its own, within the packet rounding of each
 * plane's part, while the solver fills a fraction of the flows. A send
 * to one NVSwitch among them (an NVLS write) uses a grouped link on its
 * own: the lumped flows part into their planes there and the run goes on
 * as the one that never lumped. */
#include <check.h>
#include <math.h>

#include "hw/hw-models.h"
#include "hw/hw-system.h"
#include "net/net.h"
#include "net-suites.h"
#include "net-traffic.h"
#include "topo/topo-build.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

#define N_XFERS 96

/* The first NVSwitch vertex of node 0. */
static uint32_t
first_switch(const TopoGraph *graph)
{
    for (uint32_t v = 0; v < topo_graph_n_vertices(graph); v++)
        if (topo_graph_vertex(graph, v)->kind == TOPO_NVSWITCH)
            return v;
    ck_abort_msg("no NVSwitch in the graph");
    return UINT32_MAX;
}

/* Random traffic among the first n_gpus GPUs (net-traffic.h), sizes 64 KiB
 * to 4 MiB in multiples of 18; when to_switch, from the 48th on one in
 * eight goes to an NVSwitch instead, from 20 us on. */
static void
random_xfers(GRand *rng, const TopoGraph *graph, uint32_t n_gpus, bool to_switch,
             TrafficXfer *xfers)
{
    traffic_random(rng, graph, n_gpus, 64 << 10, 4 << 20, 18, xfers, N_XFERS);
    if (to_switch)
        for (uint32_t i = N_XFERS / 2; i < N_XFERS; i += 8) {
            xfers[i].dst = first_switch(graph);
            xfers[i].start_ps = 20000000 + (uint64_t)i * 100000;
        }
}

/* Lumped and apart: every landing within slack ps plus rel of its
 * transfer's time (start to landing), and the lumped solver filling at
 * most max_fraction of the flows the other fills. Sizes are multiples of
 * 18, the planes' weights together, so that no plane's part rounds
 * (apart, a remainder of up to a byte a plane goes on the first plane,
 * which then drains up to 1.5e-3 of a 90 KB transfer's time later on
 * GB200). */
static void
compare(const char *system_id, uint32_t n_nodes, uint32_t n_gpus, int seed, bool to_switch,
        double slack, double rel, double max_fraction)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSystem) sys = hw_system_load_by_id(system_id, hw_models_dir(), &error);
    ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
    TopoGraph *g = topo_build_system(sys, n_nodes, &error);
    ck_assert_msg(g != NULL, "%s", error ? error->message : "");
    GRand *rng = g_rand_new_with_seed((guint32)seed);
    TrafficXfer xfers[N_XFERS];
    random_xfers(rng, g, n_gpus, to_switch, xfers);
    TopoRouter *router = topo_router_new(g);
    uint64_t lumped[N_XFERS], apart[N_XFERS];
    NetStats lumped_stats, apart_stats;
    traffic_run(g, router, xfers, N_XFERS, &(NetOptions){.seed = 1}, lumped, &lumped_stats);
    traffic_run(g, router, xfers, N_XFERS, &(NetOptions){.seed = 1, .flow_planes_apart = true},
                apart, &apart_stats);
    for (uint32_t i = 0; i < N_XFERS; i++) {
        double a = (double)lumped[i], b = (double)apart[i];
        ck_assert_msg(fabs(a - b) <= slack + rel * (b - (double)xfers[i].start_ps),
                      "%s seed %d: transfer %u lands at %.0f ps lumped, %.0f ps apart", system_id,
                      seed, i, a, b);
    }
    ck_assert_msg((double)lumped_stats.n_rate_flows <= max_fraction * (double)apart_stats.n_rate_flows,
                  "%s seed %d: the solver filled %" PRIu64 " flows lumped, %" PRIu64 " apart",
                  system_id, seed, lumped_stats.n_rate_flows, apart_stats.n_rate_flows);
    topo_router_free(router);
    g_rand_free(rng);
    topo_graph_free(g);
}

/* GB200's 18 planes are alike: to 2 ps. */
START_TEST(lumped_as_apart_gb200)
{
    compare("gb200-nvl72", 1, 72, _i, false, 2, 0, 1.0 / 12);
}
END_TEST

/* DGX H100's planes are 5, 5, 4 and 4 links wide: seen up to 1.25e-4 of
 * a transfer's time apart. Apart, a send's parts on a 5-link and a 4-link
 * plane drain at times that are equal but for the rounding of doubles
 * (5x / 5y against 4x / 4y), so they can end a picosecond apart, and in
 * that picosecond the other traffic on the plane that freed first speeds
 * up alone; the splits add up over a run. The same system with three
 * planes of 6 links agrees to 1 ps (checked by hand with a copy of the
 * model). Between nodes a transfer crosses one path: only in-node ones
 * lump. */
START_TEST(lumped_as_apart_dgx_h100)
{
    compare("dgx-h100", 2, 16, _i, false, 2, 2e-4, 0.9);
}
END_TEST

START_TEST(conflict_parts_the_planes)
{
    /* Half the run lumped, then sends to one switch: the rest apart. */
    compare("dgx-h100", 1, 8, _i, true, 2, 2e-4, 1.0);
}
END_TEST

Suite *
net_planes_suite(void)
{
    Suite *s = suite_create("net-planes");
    TCase *tc = tcase_create("lumped-vs-apart");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, lumped_as_apart_gb200, 0, 8);
    tcase_add_loop_test(tc, lumped_as_apart_dgx_h100, 0, 16);
    tcase_add_loop_test(tc, conflict_parts_the_planes, 0, 16);
    suite_add_tcase(s, tc);
    return s;
}
