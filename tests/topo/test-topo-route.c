/* SPDX-License-Identifier: Apache-2.0 */
/* sim/topo routing: a hand-built path's latency in closed form, to the
 * picosecond; GPUs that do not forward; the shipped systems routed as
 * hardware.md §4 wires them (the DGX-1V NV1/NV2 map and its host paths, and
 * with net-p2p its 2:1 bandwidths; H100 5/5/4/4 planes; NVL72's 18 planes;
 * DGX-2 trunks; A100 NVLink over PCIe); two DGX H100 nodes joined by
 * their NICs and a rail-optimized leaf/spine fabric; and net-p2p's memo of
 * alike copies, exact on every shape of system.
 */
#include <math.h>
#include <string.h>

#include "net/net-p2p.h"
#include "topo-suites.h"
#include "topo/topo-build.h"

/* 24 GB/s does not divide 256 B into whole picoseconds: rounding shows. */
static const HwLink test_link = {
    .name = "test link",
    .kind = HW_LINK_NVLINK,
    .bytes_per_s = UINT64_C(24000000000),
    .header_bytes = 16,
    .sm_payload_bytes = 128,
    .ce_payload_bytes = 256,
    .latency_ps = 150000,
    .rx_buffer_bytes = 16 << 10,
    .credit_bytes = 16,
};

static const HwSwitch test_switch = {
    .name = "test switch",
    .kind = HW_SWITCH_NVSWITCH,
    .n_ports = 64,
    .latency_ps = 200000,
    .port_buffer_bytes = 64 << 10,
};

/* GPU 0 =2 links= switch =1 link= GPU 1; GPU 1 -1 link- GPU 2. The GPUs
 * carry a latency the path must not count (they are its endpoints). */
static TopoGraph *
hand_built(void)
{
    TopoGraph *g = topo_graph_new();
    for (int i = 0; i < 3; i++)
        topo_graph_add_vertex(g, TOPO_GPU, 7000, NULL);
    uint32_t sw = topo_graph_add_vertex(g, TOPO_NVSWITCH, test_switch.latency_ps, &test_switch);
    topo_graph_add_bundle(g, 0, sw, &test_link, 2);
    topo_graph_add_bundle(g, sw, 1, &test_link, 1);
    topo_graph_add_bundle(g, 1, 2, &test_link, 1);
    return g;
}

/* Payload + 16 B header: on the 48 GB/s and the 24 GB/s bundle, rounded up
 * each (ceil(256 B / 48 GB/s) = 5334 ps, / 24 GB/s = 10667 ps); 2 × 150 ns
 * of link latency and 200 ns in the switch. */
static const struct {
    const char *name;
    uint64_t payload_bytes;
    uint64_t two_hops_ps;  /* GPU 0 -> switch -> GPU 1 */
    uint64_t first_hop_ps; /* GPU 0 -> switch alone */
} latency_cases[] = {
    {"header only", 0, 334 + 667 + 500000, 334 + 150000},
    {"4 B", 4, 417 + 834 + 500000, 417 + 150000},
    {"240 B", 240, 5334 + 10667 + 500000, 5334 + 150000},
    {"1 GiB", UINT64_C(1) << 30, UINT64_C(22369621667) + UINT64_C(44739243334) + 500000,
     UINT64_C(22369621667) + 150000},
};

START_TEST(path_latency_closed_form)
{
    const char *name = latency_cases[_i].name;
    uint64_t payload = latency_cases[_i].payload_bytes;
    g_autoptr(TopoGraph) g = hand_built();
    g_autoptr(TopoRouter) r = topo_router_new(g);
    TopoRoute route;
    ck_assert(topo_router_route(r, 0, 1, &route));
    ck_assert_uint_eq(route.n_paths, 1);
    topo_test_assert_path_joins(name, g, &route.path[0], 0, 1);
    ck_assert_uint_eq(route.path[0].n_hops, 2);
    uint64_t t = topo_path_latency_ps(g, &route.path[0], payload);
    ck_assert_msg(t == latency_cases[_i].two_hops_ps,
                  "%s: %" G_GUINT64_FORMAT " ps, expected %" G_GUINT64_FORMAT, name, t,
                  latency_cases[_i].two_hops_ps);
    /* The other way round crosses the same bundles in the other order. */
    ck_assert(topo_router_route(r, 1, 0, &route));
    t = topo_path_latency_ps(g, &route.path[0], payload);
    ck_assert_msg(t == latency_cases[_i].two_hops_ps, "%s reversed: %" G_GUINT64_FORMAT " ps", name,
                  t);
    /* One hop: no vertex crossed, so no switch latency. */
    TopoPath one = {.n_hops = 1, .weight = 2, .link = {0}};
    t = topo_path_latency_ps(g, &one, payload);
    ck_assert_msg(t == latency_cases[_i].first_hop_ps, "%s, one hop: %" G_GUINT64_FORMAT " ps",
                  name, t);
}
END_TEST

/* A path's weight is its narrowest bundle; GPUs do not forward, so GPU 0
 * cannot reach GPU 2 through GPU 1; an endpoint has no route to itself. */
START_TEST(hand_built_routes)
{
    g_autoptr(TopoGraph) g = hand_built();
    g_autoptr(TopoRouter) r = topo_router_new(g);
    TopoRoute route;
    ck_assert(topo_router_route(r, 0, 1, &route));
    ck_assert_uint_eq(route.path[0].weight, 1);
    ck_assert_uint_eq(route.total_weight, 1);
    ck_assert(topo_router_route(r, 1, 2, &route));
    ck_assert_uint_eq(route.n_paths, 1);
    ck_assert_uint_eq(route.path[0].n_hops, 1);
    ck_assert(!topo_router_route(r, 0, 2, &route));
    ck_assert_uint_eq(route.n_paths, 0);
    ck_assert(!topo_router_route(r, 2, 0, &route));
    ck_assert(!topo_router_route(r, 1, 1, &route));
}
END_TEST

/* hardware.md §4.2: the DGX-1V pairs, every unordered pair once. 0 = no
 * NVLink (routed through the host). */
static const struct {
    uint32_t a, b, n_links;
} dgx1v_pairs[] = {
    {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 5, 2}, {2, 3, 2}, {4, 7, 2}, {5, 6, 2},
    {6, 7, 2}, {0, 1, 1}, {0, 2, 1}, {1, 3, 1}, {2, 6, 1}, {3, 7, 1}, {4, 5, 1},
    {4, 6, 1}, {5, 7, 1}, {0, 5, 0}, {0, 6, 0}, {0, 7, 0}, {1, 4, 0}, {1, 6, 0},
    {1, 7, 0}, {2, 4, 0}, {2, 5, 0}, {2, 7, 0}, {3, 4, 0}, {3, 5, 0}, {3, 6, 0},
};

/* Both directions of a DGX-1V pair: one NVLink bundle of the map's width,
 * or, for non-neighbours, host paths (through a CPU, no NVLink). */
START_TEST(dgx1v_routes_follow_the_map)
{
    g_autoptr(HwSystem) sys = topo_test_load_system("dgx1-v100");
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoGraph) g = topo_build_system(sys, 1, &error);
    ck_assert_msg(g != NULL, "%s", error ? error->message : "");
    g_autoptr(TopoRouter) r = topo_router_new(g);
    for (int dir = 0; dir < 2; dir++) {
        uint32_t a = dir ? dgx1v_pairs[_i].b : dgx1v_pairs[_i].a;
        uint32_t b = dir ? dgx1v_pairs[_i].a : dgx1v_pairs[_i].b;
        uint32_t va = topo_graph_gpu_vertex(g, a), vb = topo_graph_gpu_vertex(g, b);
        g_autofree char *name = g_strdup_printf("DGX-1V GPU%u->GPU%u", a, b);
        TopoRoute route;
        ck_assert_msg(topo_router_route(r, va, vb, &route), "%s: no route", name);
        ck_assert_msg(route.n_paths >= 1, "%s: no paths", name);
        for (uint32_t p = 0; p < route.n_paths; p++)
            topo_test_assert_path_joins(name, g, &route.path[p], va, vb);
        const TopoPath *first = &route.path[0];
        if (dgx1v_pairs[_i].n_links > 0) {
            const TopoLink *link = topo_graph_link(g, first->link[0]);
            ck_assert_msg(route.n_paths == 1 && first->n_hops == 1,
                          "%s: %u paths, first of %u hops; expected one direct bundle", name,
                          route.n_paths, first->n_hops);
            ck_assert_msg(link->spec->kind == HW_LINK_NVLINK, "%s: not NVLink", name);
            ck_assert_msg(link->n_links == dgx1v_pairs[_i].n_links,
                          "%s: bundle of %u links, expected %u", name, link->n_links,
                          dgx1v_pairs[_i].n_links);
            ck_assert_uint_eq(first->weight, link->n_links);
            continue;
        }
        for (uint32_t p = 0; p < route.n_paths; p++) {
            ck_assert_msg(topo_test_path_visits(g, &route.path[p], TOPO_CPU),
                          "%s: path %u does not cross a CPU", name, p);
            ck_assert_msg(!topo_test_path_uses(g, &route.path[p], HW_LINK_NVLINK),
                          "%s: path %u uses NVLink", name, p);
        }
    }
}
END_TEST

/* With the flow engine and copy engines, as nvlsim p2p runs them (the
 * system's fixed cost per copy included), a large copy over an NV2 pair runs
 * at twice an NV1 pair's rate (both bandwidth-bound on their bundle), and
 * every pair of a kind at the same rate. 1 GiB keeps latency and a per-copy
 * cost of some microseconds well inside the 0.1%. */
START_TEST(dgx1v_nv2_is_twice_nv1)
{
    g_autoptr(HwSystem) sys = topo_test_load_system("dgx1-v100");
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoGraph) g = topo_build_system(sys, 1, &error);
    ck_assert_msg(g != NULL, "%s", error ? error->message : "");
    g_autoptr(TopoRouter) r = topo_router_new(g);
    NetP2p p2p = {
        .fidelity = NET_FIDELITY_FLOW,
        .issuer = NET_ISSUER_CE,
        .copy_overhead_ps = sys->copy_overhead_ps,
        .graph = g,
        .router = r,
    };
    const uint64_t n_bytes = UINT64_C(1) << 30;
    double nv[3] = {0, 0, 0}; /* by n_links: the first pair's bandwidth */
    for (size_t i = 0; i < G_N_ELEMENTS(dgx1v_pairs); i++) {
        uint32_t k = dgx1v_pairs[i].n_links;
        if (k == 0)
            continue;
        for (int dir = 0; dir < 2; dir++) {
            uint32_t a = dir ? dgx1v_pairs[i].b : dgx1v_pairs[i].a;
            uint32_t b = dir ? dgx1v_pairs[i].a : dgx1v_pairs[i].b;
            ck_assert_msg(net_p2p_nvlink(&p2p, a, b), "GPU%u->GPU%u: no NVLink", a, b);
            double bw = net_p2p_bandwidth(&p2p, NET_P2P_UNIDIRECTIONAL, a, b, n_bytes);
            if (nv[k] == 0)
                nv[k] = bw;
            ck_assert_msg(fabs(bw - nv[k]) <= 1e-6 * nv[k],
                          "GPU%u->GPU%u (NV%u): %.6g B/s, other NV%u pairs %.6g B/s", a, b, k, bw,
                          k, nv[k]);
        }
    }
    ck_assert_msg(nv[1] > 0 && fabs(nv[2] / nv[1] - 2.0) <= 0.002,
                  "NV2 %.6g B/s vs NV1 %.6g B/s: ratio %.5f, expected 2 within 0.1%%", nv[2], nv[1],
                  nv[2] / nv[1]);
}
END_TEST

/* Every route of an NVSwitch system between local GPUs a and b: n_paths
 * paths of 2 hops (GPU, NVSwitch, GPU) over NVLink, or 4 with a trunk
 * between boards (GPU, NVSwitch, NVSwitch, GPU). */
static void
assert_switch_route(const char *name, const TopoGraph *g, const TopoRoute *route, uint32_t va,
                    uint32_t vb, uint32_t n_paths, uint32_t n_hops)
{
    ck_assert_msg(route->n_paths == n_paths, "%s: %u paths, expected %u", name, route->n_paths,
                  n_paths);
    for (uint32_t p = 0; p < route->n_paths; p++) {
        const TopoPath *path = &route->path[p];
        topo_test_assert_path_joins(name, g, path, va, vb);
        ck_assert_msg(path->n_hops == n_hops, "%s: path %u has %u hops, expected %u", name, p,
                      path->n_hops, n_hops);
        TopoVertexKind kinds[TOPO_MAX_HOPS + 1];
        topo_test_path_kinds(g, path, kinds);
        for (uint32_t h = 1; h < n_hops; h++)
            ck_assert_msg(kinds[h] == TOPO_NVSWITCH, "%s: path %u crosses a %s", name, p,
                          topo_vertex_kind_name(kinds[h]));
        for (uint32_t h = 0; h < n_hops; h++)
            ck_assert_msg(topo_graph_link(g, path->link[h])->spec->kind == HW_LINK_NVLINK,
                          "%s: path %u hop %u is not NVLink", name, p, h);
    }
}

typedef struct Fabric {
    HwSystem *sys;
    TopoGraph *graph;
    TopoRouter *router;
} Fabric;

static void
fabric_load(Fabric *f, const char *id, uint32_t n_nodes)
{
    f->sys = topo_test_load_system(id);
    g_autoptr(GError) error = NULL;
    f->graph = topo_build_system(f->sys, n_nodes, &error);
    ck_assert_msg(f->graph != NULL, "%s: %s", id, error ? error->message : "");
    f->router = topo_router_new(f->graph);
}

static void
fabric_clear(Fabric *f)
{
    topo_router_free(f->router);
    topo_graph_free(f->graph);
    hw_system_free(f->sys);
}

/* DGX H100: every ordered pair sprays over the 4 NVSwitch chips with the
 * 5/5/4/4 split of a GPU's 18 NVLinks. */
START_TEST(dgx_h100_planes)
{
    Fabric f;
    fabric_load(&f, "dgx-h100", 1);
    for (uint32_t a = 0; a < 8; a++)
        for (uint32_t b = 0; b < 8; b++) {
            if (a == b)
                continue;
            g_autofree char *name = g_strdup_printf("DGX H100 GPU%u->GPU%u", a, b);
            uint32_t va = topo_graph_gpu_vertex(f.graph, a), vb = topo_graph_gpu_vertex(f.graph, b);
            TopoRoute route;
            ck_assert_msg(topo_router_route(f.router, va, vb, &route), "%s: no route", name);
            assert_switch_route(name, f.graph, &route, va, vb, 4, 2);
            uint32_t weights[4];
            for (uint32_t p = 0; p < 4; p++)
                weights[p] = route.path[p].weight;
            uint32_t n5 = 0, n4 = 0;
            for (uint32_t p = 0; p < 4; p++) {
                n5 += weights[p] == 5;
                n4 += weights[p] == 4;
            }
            ck_assert_msg(n5 == 2 && n4 == 2, "%s: weights %u,%u,%u,%u, expected 5,5,4,4", name,
                          weights[0], weights[1], weights[2], weights[3]);
            ck_assert_uint_eq(route.total_weight, 18);
            /* Each plane once: the four paths cross four different switches. */
            for (uint32_t p = 0; p < 4; p++)
                for (uint32_t q = p + 1; q < 4; q++)
                    ck_assert_msg(topo_graph_link(f.graph, route.path[p].link[0])->dst !=
                                      topo_graph_link(f.graph, route.path[q].link[0])->dst,
                                  "%s: paths %u and %u share a switch", name, p, q);
        }
    fabric_clear(&f);
}
END_TEST

/* GB200 NVL72: 72 GPUs in one NVLink domain; any pair sprays over all 18
 * NVSwitch chips, one link each. */
START_TEST(gb200_nvl72_planes)
{
    Fabric f;
    fabric_load(&f, "gb200-nvl72", 1);
    ck_assert_uint_eq(topo_graph_n_gpus(f.graph), 72);
    static const uint32_t pairs[][2] = {{0, 1}, {0, 71}, {35, 36}, {71, 0}, {3, 40}};
    for (size_t i = 0; i < G_N_ELEMENTS(pairs); i++) {
        uint32_t a = pairs[i][0], b = pairs[i][1];
        g_autofree char *name = g_strdup_printf("NVL72 GPU%u->GPU%u", a, b);
        uint32_t va = topo_graph_gpu_vertex(f.graph, a), vb = topo_graph_gpu_vertex(f.graph, b);
        TopoRoute route;
        ck_assert_msg(topo_router_route(f.router, va, vb, &route), "%s: no route", name);
        assert_switch_route(name, f.graph, &route, va, vb, 18, 2);
        for (uint32_t p = 0; p < route.n_paths; p++)
            ck_assert_msg(route.path[p].weight == 1, "%s: path %u weight %u", name, p,
                          route.path[p].weight);
        ck_assert_uint_eq(route.total_weight, 18);
    }
    fabric_clear(&f);
}
END_TEST

/* DGX-2: two baseboards of 8 GPUs and 6 NVSwitch chips each, switch s of
 * one board trunked to switch s of the other. Across boards: GPU, switch,
 * trunk, switch, GPU on each of the 6 planes, the two switches of a path on
 * different boards; on one board, GPU, switch, GPU. */
START_TEST(dgx2_trunks)
{
    Fabric f;
    fabric_load(&f, "dgx2-v100", 1);
    ck_assert_uint_eq(topo_graph_n_gpus(f.graph), 16);
    static const uint32_t pairs[][2] = {{0, 8}, {8, 0}, {3, 12}, {7, 15}, {0, 1}, {9, 14}};
    for (size_t i = 0; i < G_N_ELEMENTS(pairs); i++) {
        uint32_t a = pairs[i][0], b = pairs[i][1];
        bool across = a / 8 != b / 8;
        g_autofree char *name = g_strdup_printf("DGX-2 GPU%u->GPU%u", a, b);
        uint32_t va = topo_graph_gpu_vertex(f.graph, a), vb = topo_graph_gpu_vertex(f.graph, b);
        TopoRoute route;
        ck_assert_msg(topo_router_route(f.router, va, vb, &route), "%s: no route", name);
        assert_switch_route(name, f.graph, &route, va, vb, 6, across ? 3 : 2);
        for (uint32_t p = 0; p < route.n_paths && across; p++) {
            const TopoLink *trunk = topo_graph_link(f.graph, route.path[p].link[1]);
            uint32_t s1 = topo_graph_vertex(f.graph, trunk->src)->index;
            uint32_t s2 = topo_graph_vertex(f.graph, trunk->dst)->index;
            ck_assert_msg(s1 / 6 == a / 8 && s2 / 6 == b / 8 && s1 % 6 == s2 % 6,
                          "%s: path %u trunks switch %u to %u", name, p, s1, s2);
            ck_assert_uint_eq(trunk->n_links, 8);
            ck_assert_uint_eq(route.path[p].weight, 1);
        }
    }
    fabric_clear(&f);
}
END_TEST

/* DGX A100: GPUs 2k and 2k+1 share a PCIe switch (a 2-hop PCIe path), yet
 * their peer traffic goes over the NVSwitch planes, never PCIe. */
START_TEST(dgx_a100_prefers_nvlink)
{
    Fabric f;
    fabric_load(&f, "dgx-a100", 1);
    for (uint32_t a = 0; a < 8; a++) {
        uint32_t b = a ^ 1;
        g_autofree char *name = g_strdup_printf("DGX A100 GPU%u->GPU%u", a, b);
        uint32_t va = topo_graph_gpu_vertex(f.graph, a), vb = topo_graph_gpu_vertex(f.graph, b);
        TopoRoute route;
        ck_assert_msg(topo_router_route(f.router, va, vb, &route), "%s: no route", name);
        assert_switch_route(name, f.graph, &route, va, vb, 6, 2);
        for (uint32_t p = 0; p < route.n_paths; p++) {
            ck_assert_msg(!topo_test_path_uses(f.graph, &route.path[p], HW_LINK_PCIE),
                          "%s: path %u uses PCIe", name, p);
            ck_assert_uint_eq(route.path[p].weight, 2);
        }
        ck_assert_uint_eq(route.total_weight, 12);
    }
    fabric_clear(&f);
}
END_TEST

/* Two DGX H100 nodes, rail-optimized: GPU g's traffic leaves through NIC g
 * (on its PCIe switch) to the leaf of rail g. GPU 0 to the peer node's
 * GPU 0 stays on rail 0's leaf (6 hops); to the peer's GPU 1 it climbs to
 * the spine and down to rail 1's leaf (8 hops). Two DGX-1V nodes, not
 * rail-optimized, share one leaf: 6 hops whatever the rails (GPUs 2k and
 * 2k+1 share NIC k). */
static const TopoVertexKind via_leaf[] = {TOPO_GPU, TOPO_PCIE_SWITCH, TOPO_NIC, TOPO_LEAF,
                                          TOPO_NIC, TOPO_PCIE_SWITCH, TOPO_GPU};
static const TopoVertexKind via_spine[] = {TOPO_GPU,  TOPO_PCIE_SWITCH, TOPO_NIC,
                                           TOPO_LEAF, TOPO_SPINE,       TOPO_LEAF,
                                           TOPO_NIC,  TOPO_PCIE_SWITCH, TOPO_GPU};

static const struct {
    const char *name;
    const char *system;
    uint32_t a, b; /* global GPU numbers */
    uint32_t n_hops;
    const TopoVertexKind *kinds; /* n_hops + 1 */
    uint32_t nic_a, nic_b;       /* the NIC each GPU uses */
} cross_node_cases[] = {
    {"DGX H100 same rail 0->8", "dgx-h100", 0, 8, 6, via_leaf, 0, 0},
    {"DGX H100 same rail 13->5", "dgx-h100", 13, 5, 6, via_leaf, 5, 5},
    {"DGX H100 different rails 0->9", "dgx-h100", 0, 9, 8, via_spine, 0, 1},
    {"DGX H100 different rails 15->0", "dgx-h100", 15, 0, 8, via_spine, 7, 0},
    {"DGX-1V one leaf 0->9", "dgx1-v100", 0, 9, 6, via_leaf, 0, 0},
    {"DGX-1V one leaf 0->15", "dgx1-v100", 0, 15, 6, via_leaf, 0, 3},
    {"DGX-1V one leaf 14->3", "dgx1-v100", 14, 3, 6, via_leaf, 3, 1},
};

START_TEST(two_nodes_cross_the_fabric)
{
    const char *name = cross_node_cases[_i].name;
    Fabric f;
    fabric_load(&f, cross_node_cases[_i].system, 2);
    ck_assert_uint_eq(topo_graph_n_gpus(f.graph), 16);
    uint32_t a = cross_node_cases[_i].a, b = cross_node_cases[_i].b;
    uint32_t va = topo_graph_gpu_vertex(f.graph, a), vb = topo_graph_gpu_vertex(f.graph, b);
    TopoRoute route;
    ck_assert_msg(topo_router_route(f.router, va, vb, &route), "%s: no route", name);
    ck_assert_msg(route.n_paths == 1, "%s: %u paths, expected 1 (one NIC each)", name,
                  route.n_paths);
    const TopoPath *path = &route.path[0];
    topo_test_assert_path_joins(name, f.graph, path, va, vb);
    ck_assert_msg(path->n_hops == cross_node_cases[_i].n_hops, "%s: %u hops, expected %u", name,
                  path->n_hops, cross_node_cases[_i].n_hops);
    TopoVertexKind kinds[TOPO_MAX_HOPS + 1];
    topo_test_path_kinds(f.graph, path, kinds);
    for (uint32_t h = 0; h <= path->n_hops; h++)
        ck_assert_msg(kinds[h] == cross_node_cases[_i].kinds[h],
                      "%s: vertex %u is a %s, expected %s", name, h,
                      topo_vertex_kind_name(kinds[h]),
                      topo_vertex_kind_name(cross_node_cases[_i].kinds[h]));
    /* The NICs are those of the two GPUs. */
    const TopoVertex *nic_a =
        topo_graph_vertex(f.graph, topo_graph_link(f.graph, path->link[1])->dst);
    const TopoVertex *nic_b =
        topo_graph_vertex(f.graph, topo_graph_link(f.graph, path->link[path->n_hops - 3])->dst);
    ck_assert_msg(nic_a->node == a / 8 && nic_a->index == cross_node_cases[_i].nic_a &&
                      nic_b->node == b / 8 && nic_b->index == cross_node_cases[_i].nic_b,
                  "%s: leaves by NIC %u of node %u, enters by NIC %u of node %u", name,
                  nic_a->index, nic_a->node, nic_b->index, nic_b->node);
    ck_assert(topo_test_path_uses(f.graph, path, HW_LINK_NETWORK));
    ck_assert(!topo_test_path_uses(f.graph, path, HW_LINK_NVLINK));
    fabric_clear(&f);
}
END_TEST

/* Inside node 1 of two: CPU 0 reaches the GPUs of its socket over PCIe
 * (CPU, PCIe switch, GPU), the other socket's through UPI first; never over
 * NVLink, never out of the node. And back. */
START_TEST(two_nodes_cpu_to_gpu_over_pcie)
{
    Fabric f;
    fabric_load(&f, "dgx-h100", 2);
    uint32_t cpu = g_array_index(f.graph->cpus, uint32_t, 0) + f.graph->n_node_vertices;
    ck_assert_uint_eq(topo_graph_vertex(f.graph, cpu)->node, 1);
    for (uint32_t g = 8; g < 16; g++) {
        uint32_t vg = topo_graph_gpu_vertex(f.graph, g);
        for (int dir = 0; dir < 2; dir++) {
            uint32_t src = dir ? vg : cpu, dst = dir ? cpu : vg;
            g_autofree char *name =
                g_strdup_printf("node 1 %s GPU%u", dir ? "CPU0 <-" : "CPU0 ->", g);
            TopoRoute route;
            ck_assert_msg(topo_router_route(f.router, src, dst, &route), "%s: no route", name);
            ck_assert_msg(route.n_paths >= 1, "%s: no paths", name);
            const TopoPath *path = &route.path[0];
            topo_test_assert_path_joins(name, f.graph, path, src, dst);
            bool same_socket = g % 8 < 4;
            ck_assert_msg(path->n_hops == (same_socket ? 2u : 3u), "%s: %u hops", name,
                          path->n_hops);
            ck_assert_msg(topo_test_path_uses(f.graph, path, HW_LINK_PCIE), "%s: no PCIe", name);
            ck_assert_msg(!topo_test_path_uses(f.graph, path, HW_LINK_NVLINK) &&
                              !topo_test_path_uses(f.graph, path, HW_LINK_NETWORK),
                          "%s: leaves PCIe and the host", name);
            uint32_t gpu_hop = dir ? path->link[0] : path->link[path->n_hops - 1];
            ck_assert_msg(topo_graph_link(f.graph, gpu_hop)->spec->kind == HW_LINK_PCIE,
                          "%s: the GPU's own link is not PCIe", name);
            for (uint32_t h = 0; h < path->n_hops; h++)
                ck_assert_uint_eq(
                    topo_graph_vertex(f.graph, topo_graph_link(f.graph, path->link[h])->dst)->node,
                    1);
        }
    }
    fabric_clear(&f);
}
END_TEST

/* A memo of peer copies (net-p2p.h) answers a copy with the time of an
 * alike one simulated before: on systems of every shape (DGX-1V's mixed
 * NV1/NV2 and host paths, DGX-2's trunks, GB200 NVL72's planes, two DGX
 * H100 nodes over their NICs, a degraded DGX A100), every copy of the
 * matrices' kinds between the GPUs below gives the same time to the ps as
 * simulated alone, and every one of these fabrics finds copies alike. */
static const struct {
    const char *system;
    uint32_t n_nodes;
    NetFidelity fidelity;
    const char *fault; /* or NULL */
    uint32_t gpus[8], n_gpus;
    bool via_host; /* copies staged through host memory too */
} memo_cases[] = {
    {"dgx1-v100", 1, NET_FIDELITY_PACKET, NULL, {0, 1, 2, 3, 4, 5, 6, 7}, 8, true},
    {"dgx2-v100", 1, NET_FIDELITY_PACKET, NULL, {0, 1, 8, 9}, 4, true},
    {"gb200-nvl72", 1, NET_FIDELITY_PACKET, NULL, {0, 1, 4, 5, 40, 71}, 6, false},
    {"dgx-h100", 2, NET_FIDELITY_PACKET, NULL, {0, 1, 8, 9}, 4, true},
    {"dgx-a100", 1, NET_FIDELITY_FLOW, "slow_links=0:1", {0, 1, 2, 3, 4, 5, 6, 7}, 8, true},
};

START_TEST(p2p_memo_as_simulated)
{
    g_autoptr(HwSystem) sys = topo_test_load_system(memo_cases[_i].system);
    g_autoptr(GError) error = NULL;
    char *sets[] = {(char *)memo_cases[_i].fault, "slow_rate=0.5", NULL};
    g_autoptr(TopoFaults) faults =
        topo_faults_from_sets(memo_cases[_i].fault != NULL ? sets : NULL, "--fault", &error);
    ck_assert_msg(faults != NULL, "%s", error ? error->message : "");
    g_autoptr(TopoGraph) g = topo_build_system_faulted(sys, memo_cases[_i].n_nodes, faults, &error);
    ck_assert_msg(g != NULL, "%s", error ? error->message : "");
    g_autoptr(TopoRouter) r = topo_router_new(g);
    g_autoptr(NetP2pMemo) memo = net_p2p_memo_new();
    NetP2p alone = {.fidelity = memo_cases[_i].fidelity,
                    .issuer = NET_ISSUER_CE,
                    .copy_overhead_ps = sys->copy_overhead_ps,
                    .graph = g,
                    .router = r};
    NetP2p memoized = alone;
    memoized.memo = memo;
    static const NetP2pKind kinds[] = {NET_P2P_UNIDIRECTIONAL, NET_P2P_BIDIRECTIONAL,
                                       NET_P2P_VIA_HOST};
    const uint64_t n_bytes = 1 << 20;
    uint32_t per_node = g->gpus->len, n = memo_cases[_i].n_gpus;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
                uint32_t a = memo_cases[_i].gpus[i], b = memo_cases[_i].gpus[j];
                if (a == b || (kinds[k] == NET_P2P_VIA_HOST &&
                               (!memo_cases[_i].via_host || a / per_node != b / per_node)))
                    continue;
                uint64_t want = net_p2p_time_ps(&alone, kinds[k], a, b, n_bytes);
                uint64_t got = net_p2p_time_ps(&memoized, kinds[k], a, b, n_bytes);
                ck_assert_msg(got == want,
                              "%s: GPU%u->GPU%u kind %d: %" G_GUINT64_FORMAT
                              " ps from the memo, %" G_GUINT64_FORMAT " ps simulated",
                              memo_cases[_i].system, a, b, (int)kinds[k], got, want);
            }
    uint64_t n_simulated, n_found;
    net_p2p_memo_counts(memo, &n_simulated, &n_found);
    ck_assert_uint_gt(n_simulated, 0);
    ck_assert_msg(n_found > 0, "%s: no copy alike found in %" G_GUINT64_FORMAT,
                  memo_cases[_i].system, n_simulated);
}
END_TEST

Suite *
topo_route_suite(void)
{
    Suite *s = suite_create("topo-route");
    TCase *tc = tcase_create("closed-form");
    tcase_add_loop_test(tc, path_latency_closed_form, 0, G_N_ELEMENTS(latency_cases));
    tcase_add_test(tc, hand_built_routes);
    suite_add_tcase(s, tc);

    tc = tcase_create("dgx1-v100");
    tcase_add_loop_test(tc, dgx1v_routes_follow_the_map, 0, G_N_ELEMENTS(dgx1v_pairs));
    tcase_add_test(tc, dgx1v_nv2_is_twice_nv1);
    suite_add_tcase(s, tc);

    tc = tcase_create("switch-systems");
    tcase_add_test(tc, dgx_h100_planes);
    tcase_add_test(tc, gb200_nvl72_planes);
    tcase_add_test(tc, dgx2_trunks);
    tcase_add_test(tc, dgx_a100_prefers_nvlink);
    suite_add_tcase(s, tc);

    tc = tcase_create("two-nodes");
    tcase_add_loop_test(tc, two_nodes_cross_the_fabric, 0, G_N_ELEMENTS(cross_node_cases));
    tcase_add_test(tc, two_nodes_cpu_to_gpu_over_pcie);
    suite_add_tcase(s, tc);

    tc = tcase_create("p2p-memo");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, p2p_memo_as_simulated, 0, G_N_ELEMENTS(memo_cases));
    suite_add_tcase(s, tc);
    return s;
}
