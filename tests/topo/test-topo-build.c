/* SPDX-License-Identifier: Apache-2.0 */
/* sim/topo graphs of the shipped systems: vertices of each kind and link
 * bundles counted from the system files; bundles come in reverse pairs;
 * node replication keeps the id layout (node k = node 0 + k × the per-node
 * counts) and adds a leaf/spine fabric sized from the switch model; several
 * nodes of a system without a NIC fail with an error naming the system.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "topo-suites.h"
#include "core/core-time.h"
#include "topo/topo-build.h"
#include "topo/topo-fault.h"

/* Counts from the system files: GPUs; NVSwitch chips (boards × switches);
 * CPUs (hosts × cpus); PCIe switches (gpus / gpus_per_pcie_switch); NICs;
 * bundles: pairs, GPU-switch and trunk bundles, CPU-CPU links, PCIe switch
 * uplinks, one host link per GPU, one per NIC. */
static const struct {
    const char *id;
    uint32_t n[TOPO_N_VERTEX_KINDS];
    uint32_t n_bundles;
} shipped[] = {
    /* 16 pairs + 1 QPI + 4 uplinks + 8 GPUs + 4 NICs */
    {"dgx1-v100", {[TOPO_GPU] = 8, [TOPO_CPU] = 2, [TOPO_PCIE_SWITCH] = 4, [TOPO_NIC] = 4}, 33},
    /* 8 × 4 planes + 1 UPI + 8 uplinks + 8 GPUs + 8 NICs */
    {"dgx-h100",
     {[TOPO_GPU] = 8, [TOPO_CPU] = 2, [TOPO_NVSWITCH] = 4, [TOPO_PCIE_SWITCH] = 8, [TOPO_NIC] = 8},
     57},
    /* 8 × 6 planes + 1 UPI + 4 uplinks + 8 GPUs + 8 NICs */
    {"dgx-a100",
     {[TOPO_GPU] = 8, [TOPO_CPU] = 2, [TOPO_NVSWITCH] = 6, [TOPO_PCIE_SWITCH] = 4, [TOPO_NIC] = 8},
     69},
    /* 16 × 6 planes + 6 trunks + 1 UPI + 8 uplinks + 16 GPUs + 8 NICs */
    {"dgx2-v100",
     {[TOPO_GPU] = 16,
      [TOPO_CPU] = 2,
      [TOPO_NVSWITCH] = 12,
      [TOPO_PCIE_SWITCH] = 8,
      [TOPO_NIC] = 8},
     135},
    /* 72 × 18 planes + 72 C2C + 72 NICs (no CPU-CPU link model, no PCIe switch) */
    {"gb200-nvl72",
     {[TOPO_GPU] = 72, [TOPO_CPU] = 36, [TOPO_NVSWITCH] = 18, [TOPO_NIC] = 72},
     1440},
};

START_TEST(shipped_graphs)
{
    const char *id = shipped[_i].id;
    g_autoptr(HwSystem) sys = topo_test_load_system(id);
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoGraph) g = topo_build_system(sys, 0, &error);
    ck_assert_msg(g != NULL, "%s: %s", id, error ? error->message : "");
    ck_assert_msg(g->n_nodes == 1, "%s: %u nodes; 0 should mean the system's own 1", id,
                  g->n_nodes);
    uint32_t n[TOPO_N_VERTEX_KINDS] = {0};
    for (uint32_t v = 0; v < topo_graph_n_vertices(g); v++) {
        const TopoVertex *vertex = topo_graph_vertex(g, v);
        ck_assert_msg(vertex->index == n[vertex->kind], "%s: vertex %u is %s %u, expected %u", id,
                      v, topo_vertex_kind_name(vertex->kind), vertex->index, n[vertex->kind]);
        n[vertex->kind]++;
        ck_assert_uint_eq(vertex->node, 0);
    }
    for (int k = 0; k < TOPO_N_VERTEX_KINDS; k++)
        ck_assert_msg(n[k] == shipped[_i].n[k], "%s: %u %s vertices, expected %u", id, n[k],
                      topo_vertex_kind_name(k), shipped[_i].n[k]);
    ck_assert_uint_eq(topo_graph_n_gpus(g), sys->n_gpus);
    ck_assert_uint_eq(g->gpus->len, n[TOPO_GPU]);
    ck_assert_uint_eq(g->cpus->len, n[TOPO_CPU]);
    ck_assert_uint_eq(g->nics->len, n[TOPO_NIC]);
    ck_assert_msg(topo_graph_n_links(g) == 2 * shipped[_i].n_bundles,
                  "%s: %u links, expected %u bundles both ways", id, topo_graph_n_links(g),
                  2 * shipped[_i].n_bundles);
    for (uint32_t l = 0; l < topo_graph_n_links(g); l++) {
        const TopoLink *ab = topo_graph_link(g, l), *ba = topo_graph_link(g, l ^ 1);
        ck_assert_msg(ab->src == ba->dst && ab->dst == ba->src && ab->n_links == ba->n_links &&
                          ab->spec == ba->spec,
                      "%s: link %u and %u are not one bundle's two directions", id, l, l ^ 1);
        ck_assert_uint_eq(ab->bytes_per_s, ab->n_links * ab->spec->bytes_per_s);
        ck_assert_uint_eq(ab->latency_ps, ab->spec->latency_ps);
        ck_assert_msg(ab->rx_buffer_bytes > 0, "%s: link %u has no receive buffer", id, l);
    }
}
END_TEST

/* Two DGX H100 nodes: node 1 is node 0 shifted by the per-node counts; the
 * fabric comes after both: 8 rails of one leaf each (a QM9700 leaf has 32
 * down ports), one spine vertex, a leaf-spine bundle of the 32 up ports
 * per leaf, and one NIC-leaf bundle per NIC. */
START_TEST(two_nodes_layout)
{
    g_autoptr(HwSystem) sys = topo_test_load_system("dgx-h100");
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoGraph) one = topo_build_system(sys, 1, &error);
    g_autoptr(TopoGraph) g = topo_build_system(sys, 2, &error);
    ck_assert_msg(g != NULL && one != NULL, "%s", error ? error->message : "");
    uint32_t nv = topo_graph_n_vertices(one), nl = topo_graph_n_links(one);
    ck_assert_uint_eq(g->n_nodes, 2);
    ck_assert_uint_eq(g->n_node_vertices, nv);
    ck_assert_uint_eq(g->n_node_links, nl);
    ck_assert_uint_eq(topo_graph_n_gpus(g), 16);
    for (uint32_t v = 0; v < nv; v++) {
        const TopoVertex *a = topo_graph_vertex(g, v), *b = topo_graph_vertex(g, v + nv);
        ck_assert_msg(a->node == 0 && b->node == 1 && a->kind == b->kind && a->index == b->index,
                      "vertex %u and %u are not one vertex in nodes 0 and 1", v, v + nv);
    }
    for (uint32_t l = 0; l < nl; l++) {
        const TopoLink *a = topo_graph_link(g, l), *b = topo_graph_link(g, l + nl);
        ck_assert_msg(b->src == a->src + nv && b->dst == a->dst + nv && b->n_links == a->n_links,
                      "link %u of node 1 is not link %u shifted", l + nl, l);
    }
    for (uint32_t gpu = 0; gpu < 16; gpu++)
        ck_assert_uint_eq(topo_graph_gpu_vertex(g, gpu),
                          g_array_index(g->gpus, uint32_t, gpu % 8) + (gpu / 8) * nv);
    uint32_t n_leaves = 0, n_spines = 0;
    for (uint32_t v = 2 * nv; v < topo_graph_n_vertices(g); v++) {
        const TopoVertex *f = topo_graph_vertex(g, v);
        ck_assert_uint_eq(f->node, TOPO_NONE);
        ck_assert_msg(f->sw == sys->fabric_switch, "fabric vertex %u has no switch model", v);
        n_leaves += f->kind == TOPO_LEAF;
        n_spines += f->kind == TOPO_SPINE;
    }
    ck_assert_uint_eq(n_leaves, 8);
    ck_assert_uint_eq(n_spines, 1);
    ck_assert_uint_eq(topo_graph_n_links(g), 2 * nl + 2 * (8 + 16));
    for (uint32_t l = 2 * nl; l < topo_graph_n_links(g); l++) {
        const TopoLink *link = topo_graph_link(g, l);
        ck_assert_uint_eq(link->spec->kind, HW_LINK_NETWORK);
        TopoVertexKind a = topo_graph_vertex(g, link->src)->kind;
        TopoVertexKind b = topo_graph_vertex(g, link->dst)->kind;
        if (a == TOPO_SPINE || b == TOPO_SPINE)
            ck_assert_uint_eq(link->n_links, 32);
        else
            ck_assert_msg((a == TOPO_NIC) != (b == TOPO_NIC) && link->n_links == 1,
                          "fabric link %u joins a %s and a %s", l, topo_vertex_kind_name(a),
                          topo_vertex_kind_name(b));
    }
}
END_TEST

/* A DGX-1V's 4 NICs per node, not rail-optimized, fit one leaf with room
 * for both nodes: one leaf, no spine. */
START_TEST(two_nodes_one_leaf)
{
    g_autoptr(HwSystem) sys = topo_test_load_system("dgx1-v100");
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoGraph) g = topo_build_system(sys, 2, &error);
    ck_assert_msg(g != NULL, "%s", error ? error->message : "");
    uint32_t n[TOPO_N_VERTEX_KINDS] = {0};
    for (uint32_t v = 2 * g->n_node_vertices; v < topo_graph_n_vertices(g); v++)
        n[topo_graph_vertex(g, v)->kind]++;
    ck_assert_uint_eq(n[TOPO_LEAF], 1);
    ck_assert_uint_eq(n[TOPO_SPINE], 0);
    ck_assert_uint_eq(topo_graph_n_links(g), 2 * g->n_node_links + 2 * 8);
}
END_TEST

/* A system with no [network] group builds as one node; two nodes fail with
 * an error naming the system and the keys it lacks. */
START_TEST(no_nic_cannot_scale_out)
{
    static const char *const text = "[system]\nname = No NIC\ngpu = v100-sxm2\ngpus = 8\n\n"
                                    "[nvlink]\nlink = nvlink2\npairs = 0-1, 0-3x2, 4-5\n\n"
                                    "[host]\ncpus = 1\ngpu_link = pcie3\npcie = pcie3\n";
    g_autofree char *dir = g_dir_make_tmp("test-topo-XXXXXX", NULL);
    ck_assert(dir != NULL);
    g_autofree char *path = g_build_filename(dir, "no-nic-box.ini", NULL);
    ck_assert(g_file_set_contents(path, text, -1, NULL));
    g_autofree char *models = topo_test_models_dir();
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSystem) sys = hw_system_load(path, models, &error);
    g_unlink(path);
    g_rmdir(dir);
    ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
    ck_assert(sys->nic == NULL);

    g_autoptr(TopoGraph) one = topo_build_system(sys, 1, &error);
    ck_assert_msg(one != NULL, "one node: %s", error ? error->message : "");
    ck_assert_uint_eq(one->nics->len, 0);
    g_autoptr(TopoGraph) two = topo_build_system(sys, 2, &error);
    ck_assert(two == NULL);
    ck_assert(error != NULL);
    ck_assert_msg(strstr(error->message, sys->id) != NULL && strstr(error->message, "NIC") != NULL,
                  "message '%s' does not name system %s and its missing NIC", error->message,
                  sys->id);
}
END_TEST

/* The shipped DGX H100 with a line added to its [network] group (the
 * file's last), such as "tiers = 3"; fails the test when it does not
 * load. */
static HwSystem *
dgx_h100_with(const char *network_line)
{
    g_autofree char *models = topo_test_models_dir();
    g_autofree char *dgx = g_strdup_printf("%s/system/dgx-h100.ini", models);
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(dgx, &text, NULL, NULL));
    g_autofree char *data = g_strconcat(text, "\n", network_line, "\n", NULL);
    g_autoptr(GError) error = NULL;
    HwSystem *sys = hw_system_load_data(data, (gsize)-1, "dgx-h100-with.ini", models, &error);
    ck_assert_msg(sys != NULL, "%s: %s", network_line, error ? error->message : "");
    return sys;
}

/* Each system's transport charges what its model file says: every NIC
 * vertex holds the adapter's latency and the transport's step latency
 * (models/transport/ID.ini, loaded here on its own), and a small message
 * from GPU 0 of node 0 to GPU 0 of node 1 crosses two of them: its
 * latency is the wire's, hop by hop, the switches' and two sides of
 * adapter and transport. A system may name another transport its NIC
 * carries (RoCEv2 on a ConnectX-7). */
START_TEST(transport_steps_as_their_files)
{
    static const struct {
        const char *system, *transport;
    } cases[] = {
        {"dgx-h100", "ib-verbs"},   {"gb300-nvl72", "ib-verbs"},  {"aws-p5-h100", "efa-srd"},
        {"aws-p6-b200", "efa-srd"}, {"gcp-a3mega-h100", "tcpxo"},
    };
    g_autofree char *models = topo_test_models_dir();
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(HwSystem) sys = topo_test_load_system(cases[i].system);
        g_autoptr(GError) error = NULL;
        ck_assert_str_eq(sys->ids.transport, cases[i].transport);
        g_autofree char *file = g_strdup_printf("%s/transport/%s.ini", models, cases[i].transport);
        g_autoptr(HwTransport) t = hw_transport_load(file, &error);
        ck_assert_msg(t != NULL, "%s", error ? error->message : "");
        g_autoptr(TopoGraph) g = topo_build_system(sys, 2, &error);
        ck_assert_msg(g != NULL, "%s", error ? error->message : "");
        uint64_t side = sys->nic->latency_ps + t->step_latency_ps;
        for (uint32_t v = 0; v < topo_graph_n_vertices(g); v++)
            if (topo_graph_vertex(g, v)->kind == TOPO_NIC)
                ck_assert_uint_eq(topo_graph_vertex(g, v)->latency_ps, side);
        g_autoptr(TopoRouter) router = topo_router_new(g);
        TopoRoute route;
        uint32_t a = topo_graph_gpu_vertex(g, 0), b = topo_graph_gpu_vertex(g, sys->n_gpus);
        ck_assert(topo_router_route(router, a, b, &route));
        const TopoPath *path = &route.path[0];
        uint64_t expect = 0;
        uint32_t nics = 0;
        for (uint32_t h = 0; h < path->n_hops; h++) {
            const TopoLink *link = topo_graph_link(g, path->link[h]);
            expect += sim_serialization_ps(8 + link->spec->header_bytes, link->bytes_per_s) +
                      link->latency_ps;
            if (h + 1 == path->n_hops)
                continue;
            const TopoVertex *via = topo_graph_vertex(g, link->dst);
            nics += via->kind == TOPO_NIC;
            expect += via->kind == TOPO_NIC ? side : via->latency_ps;
        }
        ck_assert_uint_eq(nics, 2);
        ck_assert_msg(topo_path_latency_ps(g, path, 8) == expect,
                      "%s: %" G_GUINT64_FORMAT " ps, by hand %" G_GUINT64_FORMAT, cases[i].system,
                      topo_path_latency_ps(g, path, 8), expect);
    }
    g_autoptr(HwSystem) sys = dgx_h100_with("transport = rocev2");
    ck_assert_str_eq(sys->ids.transport, "rocev2");
    ck_assert_str_eq(sys->transport->name, "RoCEv2 (NCCL net_ib over Ethernet)");
}
END_TEST

/* An oversubscribed fabric: a 64-port QM9700 leaf at 3:1 has 48 ports down
 * and 16 up, so 49 DGX H100 nodes (one NIC of each on a rail's leaf) need
 * two leaves a rail, each with a 16-link bundle to the spine. */
START_TEST(oversubscribed_leaves)
{
    g_autoptr(HwSystem) sys = dgx_h100_with("oversubscription = 3");
    g_autoptr(GError) error = NULL;
    ck_assert_uint_eq(sys->oversubscription, 3);
    for (uint32_t n_nodes = 48; n_nodes <= 49; n_nodes++) {
        g_autoptr(TopoGraph) g = topo_build_system(sys, n_nodes, &error);
        ck_assert_msg(g != NULL, "%s", error ? error->message : "");
        uint32_t n[TOPO_N_VERTEX_KINDS] = {0};
        for (uint32_t v = n_nodes * g->n_node_vertices; v < topo_graph_n_vertices(g); v++)
            n[topo_graph_vertex(g, v)->kind]++;
        ck_assert_uint_eq(n[TOPO_LEAF], n_nodes == 48 ? 8 : 16);
        for (uint32_t l = n_nodes * g->n_node_links; l < topo_graph_n_links(g); l++) {
            const TopoLink *link = topo_graph_link(g, l);
            if (topo_graph_vertex(g, link->dst)->kind == TOPO_SPINE)
                ck_assert_uint_eq(link->n_links, 16);
        }
    }
}
END_TEST

/* A three-tier fat tree: 160 DGX H100 nodes on 64-port QM9700 leaves
 * (32 nodes a leaf, 5 leaves a rail, 40 in all) make two pods of 32 leaves
 * (a spine chip's 32 down ports), each pod's spines one vertex joined to
 * each of its leaves by the leaf's 32 up links and to the super-spine by
 * 32 chips x 32 up ports. Rail 0's GPUs meet inside pod 0 (leaf, spine,
 * leaf); GPU 0 and GPU 7 of another node meet over the super-spine. */
START_TEST(three_tiers)
{
    g_autoptr(HwSystem) sys = dgx_h100_with("tiers = 3");
    g_autoptr(GError) error = NULL;
    ck_assert_uint_eq(sys->fabric_tiers, 3);
    g_autoptr(TopoGraph) g = topo_build_system(sys, 160, &error);
    ck_assert_msg(g != NULL, "%s", error ? error->message : "");
    uint32_t n[TOPO_N_VERTEX_KINDS] = {0};
    for (uint32_t v = 160 * g->n_node_vertices; v < topo_graph_n_vertices(g); v++)
        n[topo_graph_vertex(g, v)->kind]++;
    ck_assert_uint_eq(n[TOPO_LEAF], 40);
    ck_assert_uint_eq(n[TOPO_SPINE], 2);
    ck_assert_uint_eq(n[TOPO_CORE], 1);
    for (uint32_t l = 160 * g->n_node_links; l < topo_graph_n_links(g); l++) {
        const TopoLink *link = topo_graph_link(g, l);
        TopoVertexKind a = topo_graph_vertex(g, link->src)->kind;
        TopoVertexKind b = topo_graph_vertex(g, link->dst)->kind;
        if (a == TOPO_LEAF && b == TOPO_SPINE)
            ck_assert_uint_eq(link->n_links, 32);
        if (a == TOPO_SPINE && b == TOPO_CORE)
            ck_assert_uint_eq(link->n_links, 32 * 32);
    }
    g_autoptr(TopoRouter) router = topo_router_new(g);
    static const TopoVertexKind in_pod[] = {TOPO_GPU,  TOPO_PCIE_SWITCH, TOPO_NIC,
                                            TOPO_LEAF, TOPO_SPINE,       TOPO_LEAF,
                                            TOPO_NIC,  TOPO_PCIE_SWITCH, TOPO_GPU};
    static const TopoVertexKind across[] = {TOPO_GPU,   TOPO_PCIE_SWITCH, TOPO_NIC,   TOPO_LEAF,
                                            TOPO_SPINE, TOPO_CORE,        TOPO_SPINE, TOPO_LEAF,
                                            TOPO_NIC,   TOPO_PCIE_SWITCH, TOPO_GPU};
    struct {
        uint32_t a, b;
        const TopoVertexKind *kinds;
        uint32_t n;
    } cases[] = {{0, 159 * 8, in_pod, G_N_ELEMENTS(in_pod)},
                 {0, 159 * 8 + 7, across, G_N_ELEMENTS(across)}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        TopoRoute route;
        ck_assert(topo_router_route(router, topo_graph_gpu_vertex(g, cases[i].a),
                                    topo_graph_gpu_vertex(g, cases[i].b), &route));
        TopoVertexKind kinds[TOPO_MAX_HOPS + 1];
        topo_test_path_kinds(g, &route.path[0], kinds);
        ck_assert_uint_eq(route.path[0].n_hops + 1, cases[i].n);
        for (uint32_t k = 0; k < cases[i].n; k++)
            ck_assert_msg(kinds[k] == cases[i].kinds[k], "case %zu hop %u: %s", i, k,
                          topo_vertex_kind_name(kinds[k]));
    }
}
END_TEST

/* A rail-only fabric (Wang et al., "Rail-only", 2023): 64 DGX H100 nodes,
 * 32 a 64-port leaf, two leaves a rail, each rail's two joined by a spine
 * of its own; no switch joins two rails. GPU 0 reaches GPU 0 of node 40
 * over its rail; GPU 7 of node 40 by NVLink to GPU 7 of its own node
 * (every plane, as their links share it) and that GPU's NIC (PXN). */
START_TEST(rail_only_fabric)
{
    g_autoptr(HwSystem) sys = dgx_h100_with("rail_only = yes");
    g_autoptr(GError) error = NULL;
    ck_assert(sys->rail_only);
    g_autoptr(TopoGraph) g = topo_build_system(sys, 64, &error);
    ck_assert_msg(g != NULL, "%s", error ? error->message : "");
    uint32_t n[TOPO_N_VERTEX_KINDS] = {0};
    for (uint32_t v = 64 * g->n_node_vertices; v < topo_graph_n_vertices(g); v++)
        n[topo_graph_vertex(g, v)->kind]++;
    ck_assert_uint_eq(n[TOPO_LEAF], 16);
    ck_assert_uint_eq(n[TOPO_SPINE], 8);
    ck_assert_uint_eq(n[TOPO_CORE], 0);
    for (uint32_t l = 64 * g->n_node_links; l < topo_graph_n_links(g); l++) {
        const TopoLink *link = topo_graph_link(g, l);
        const TopoVertex *a = topo_graph_vertex(g, link->src), *b = topo_graph_vertex(g, link->dst);
        if (a->kind == TOPO_LEAF && b->kind == TOPO_SPINE)
            ck_assert_uint_eq(a->index / 2, b->index); /* rail r's leaves 2r, 2r + 1 */
    }
    g_autoptr(TopoRouter) router = topo_router_new(g);
    static const TopoVertexKind rail[] = {TOPO_GPU,  TOPO_PCIE_SWITCH, TOPO_NIC,
                                          TOPO_LEAF, TOPO_SPINE,       TOPO_LEAF,
                                          TOPO_NIC,  TOPO_PCIE_SWITCH, TOPO_GPU};
    static const TopoVertexKind pxn[] = {TOPO_GPU, TOPO_NVSWITCH,    TOPO_GPU,   TOPO_PCIE_SWITCH,
                                         TOPO_NIC, TOPO_LEAF,        TOPO_SPINE, TOPO_LEAF,
                                         TOPO_NIC, TOPO_PCIE_SWITCH, TOPO_GPU};
    TopoRoute route;
    TopoVertexKind kinds[TOPO_MAX_HOPS + 1];
    ck_assert(topo_router_route(router, topo_graph_gpu_vertex(g, 0),
                                topo_graph_gpu_vertex(g, 40 * 8), &route));
    ck_assert_uint_eq(route.n_paths, 1);
    topo_test_path_kinds(g, &route.path[0], kinds);
    ck_assert_uint_eq(route.path[0].n_hops + 1, G_N_ELEMENTS(rail));
    for (uint32_t k = 0; k < G_N_ELEMENTS(rail); k++)
        ck_assert_int_eq(kinds[k], rail[k]);
    ck_assert(topo_router_route(router, topo_graph_gpu_vertex(g, 0),
                                topo_graph_gpu_vertex(g, 40 * 8 + 7), &route));
    ck_assert_uint_eq(route.n_paths, 4); /* the four NVSwitch planes */
    uint32_t links = 0;
    for (uint32_t p = 0; p < route.n_paths; p++) {
        topo_test_path_kinds(g, &route.path[p], kinds);
        ck_assert_uint_eq(route.path[p].n_hops + 1, G_N_ELEMENTS(pxn));
        for (uint32_t k = 0; k < G_N_ELEMENTS(pxn); k++)
            ck_assert_int_eq(kinds[k], pxn[k]);
        const TopoVertex *via =
            topo_graph_vertex(g, topo_graph_link(g, route.path[p].link[1])->dst);
        ck_assert_uint_eq(via->index, 7);
        ck_assert_uint_eq(via->node, 0);
        links += route.path[p].weight;
    }
    ck_assert_uint_eq(route.total_weight, links);
    ck_assert_uint_eq(links, 18); /* 5 + 5 + 4 + 4 */
}
END_TEST

/* rail_only needs rails, two tiers and no CollNet; a NIC down would cut
 * its node off its rail. */
START_TEST(rail_only_refusals)
{
    g_autofree char *models = topo_test_models_dir();
    g_autofree char *dgx = g_strdup_printf("%s/system/dgx-h100.ini", models);
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(dgx, &text, NULL, NULL));
    static const struct {
        const char *rails, *lines, *words;
    } cases[] = {
        {"rail_optimized = no", "rail_only = yes", "rail_only: yes needs rails"},
        {"rail_optimized = yes", "rail_only = yes\ntiers = 3",
         "rail_only: yes on a fabric of 3 tiers"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_auto(GStrv) parts = g_strsplit(text, "rail_optimized = yes", 2);
        ck_assert_uint_eq(g_strv_length(parts), 2);
        g_autofree char *data =
            g_strconcat(parts[0], cases[i].rails, parts[1], "\n", cases[i].lines, "\n", NULL);
        g_autoptr(GError) error = NULL;
        g_autoptr(HwSystem) sys = hw_system_load_data(data, (gsize)-1, "ro.ini", models, &error);
        ck_assert_ptr_null(sys);
        ck_assert_msg(strstr(error->message, cases[i].words) != NULL, "%s", error->message);
    }
    g_autoptr(HwSystem) sys = dgx_h100_with("rail_only = yes");
    g_autoptr(TopoFaults) faults = topo_faults_new();
    g_autoptr(GKeyFile) kf = g_key_file_new();
    ck_assert(g_key_file_load_from_data(kf, "[faults]\nnics_down = 3\n", (gsize)-1, 0, NULL));
    g_autoptr(GError) error = NULL;
    ck_assert(topo_faults_load(faults, kf, "f.ini", &error));
    ck_assert(!topo_faults_check(faults, sys, &error));
    ck_assert_msg(strstr(error->message, "a NIC down cuts its node off its rail") != NULL, "%s",
                  error->message);
}
END_TEST

/* A two-tier NVLink domain (whatif-gb300-nvl144: 4 boards of 36 GPUs, a
 * leaf chip a plane on each, and each plane's spine above the leaves, 36
 * links from each): 4 x 18 leaves and 18 spines. GPUs of one board meet
 * through a leaf on each of the 18 planes; GPUs of two boards through
 * leaf, spine and leaf, on each plane. Narrowed to 20 trays, the domain
 * keeps 80 GPUs on 3 boards (36, 36 and 8). */
START_TEST(two_tier_nvlink_domain)
{
    g_autoptr(HwSystem) sys = topo_test_load_system("whatif-gb300-nvl144");
    ck_assert_uint_eq(sys->status, HW_SYSTEM_WHAT_IF);
    ck_assert_uint_eq(sys->n_boards, 4);
    ck_assert_uint_eq(sys->n_board_gpus, 36);
    ck_assert_uint_eq(sys->n_spine_links, 36);
    ck_assert_uint_eq(hw_system_nvswitch_chips(sys), 4 * 18 + 18 * 2);
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoGraph) g = topo_build_system(sys, 1, &error);
    ck_assert_msg(g != NULL, "%s", error ? error->message : "");
    uint32_t n[TOPO_N_VERTEX_KINDS] = {0};
    for (uint32_t v = 0; v < topo_graph_n_vertices(g); v++)
        n[topo_graph_vertex(g, v)->kind]++;
    ck_assert_uint_eq(n[TOPO_NVSWITCH], 4 * 18 + 18);
    g_autoptr(TopoRouter) router = topo_router_new(g);
    static const struct {
        uint32_t b, hops;
    } cases[] = {{35, 2}, {36, 4}, {143, 4}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        TopoRoute route;
        ck_assert(topo_router_route(router, topo_graph_gpu_vertex(g, 0),
                                    topo_graph_gpu_vertex(g, cases[i].b), &route));
        ck_assert_uint_eq(route.n_paths, 18);
        for (uint32_t p = 0; p < route.n_paths; p++) {
            TopoVertexKind kinds[TOPO_MAX_HOPS + 1];
            topo_test_path_kinds(g, &route.path[p], kinds);
            ck_assert_uint_eq(route.path[p].n_hops, cases[i].hops);
            for (uint32_t k = 1; k < cases[i].hops; k++)
                ck_assert_int_eq(kinds[k], TOPO_NVSWITCH);
        }
    }
    hw_system_partition(sys, 20);
    ck_assert_uint_eq(sys->n_gpus, 80);
    ck_assert_uint_eq(sys->n_boards, 3);
    g_autoptr(TopoGraph) narrowed = topo_build_system(sys, 2, &error);
    ck_assert_msg(narrowed != NULL, "%s", error ? error->message : "");
    ck_assert_uint_eq(topo_graph_n_gpus(narrowed), 160);
}
END_TEST

/* spine_links joins boards instead of trunks, not besides them, only where
 * there are boards, within the leaf's ports. */
START_TEST(two_tier_refusals)
{
    g_autofree char *models = topo_test_models_dir();
    g_autofree char *path = g_strdup_printf("%s/system/whatif-gb300-nvl144.ini", models);
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    static const struct {
        const char *from, *to, *words;
    } cases[] = {
        {"spine_links = 36", "spine_links = 36\ntrunk_links = 4",
         "[nvlink] spine_links: given with trunk_links"},
        {"boards = 4", "boards = 1",
         "[nvlink] spine_links: 36 with 1 boards; expected spine links exactly when there are 2 "
         "or more boards"},
        {"spine_links = 36", "spine_links = 37",
         "switch 0 of each board needs 73 ports (36 GPUs x 1 links + 37 spine ports)"},
        {"status = what-if", "status = rumoured",
         "[system] status: 'rumoured' is not one of: product, announced, what-if"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_auto(GStrv) parts = g_strsplit(text, cases[i].from, 2);
        ck_assert_uint_eq(g_strv_length(parts), 2);
        g_autofree char *data = g_strconcat(parts[0], cases[i].to, parts[1], NULL);
        g_autoptr(GError) error = NULL;
        g_autoptr(HwSystem) sys = hw_system_load_data(data, (gsize)-1, "w.ini", models, &error);
        ck_assert_ptr_null(sys);
        ck_assert_msg(strstr(error->message, cases[i].words) != NULL, "%s", error->message);
    }
}
END_TEST

Suite *
topo_build_suite(void)
{
    Suite *s = suite_create("topo-build");
    TCase *tc = tcase_create("build");
    tcase_add_loop_test(tc, shipped_graphs, 0, G_N_ELEMENTS(shipped));
    tcase_add_test(tc, two_nodes_layout);
    tcase_add_test(tc, two_nodes_one_leaf);
    tcase_add_test(tc, no_nic_cannot_scale_out);
    tcase_add_test(tc, transport_steps_as_their_files);
    tcase_add_test(tc, oversubscribed_leaves);
    tcase_add_test(tc, three_tiers);
    tcase_add_test(tc, rail_only_fabric);
    tcase_add_test(tc, rail_only_refusals);
    tcase_add_test(tc, two_tier_nvlink_domain);
    tcase_add_test(tc, two_tier_refusals);
    suite_add_tcase(s, tc);
    return s;
}
