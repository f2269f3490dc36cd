/* SPDX-License-Identifier: Apache-2.0 */
/* NVLS-tree on two DGX H100 nodes (16 ranks, 8 NVLS heads a node), its
 * bytes by hand: every rank sends its copy of the whole buffer S to its
 * node's switches and gets all of S back by multicast; head h of each node
 * owns one eighth of every channel's data: the switches send it its
 * node's sum of that share, it stores the total to the multicast address,
 * and over its NIC it sends each channel's share once, up the tree where
 * its node is a leaf, down the one where it is the root. With two
 * channels, tree 0 (node 0 the root) and tree 1 (node 1) carry half of S
 * each. The tuner picks NVLS-tree for large all_reduce on two nodes
 * (NCCL 2.22 on two p5 nodes: "Connected NVLS tree", nHeads 8); packet and
 * flow fidelity agree. */
#include <math.h>

#include "coll-suites.h"
#include "coll-two-level.h"
#include "core/core-time.h"
#include "coll/coll-build.h"
#include "coll/coll-run.h"
#include "topo/topo-build.h"
#include "topo/topo-route.h"

typedef struct TwoNodes {
    HwSystem *system;
    TopoGraph *graph;
    TopoRouter *router;
    CollComm *comm;
} TwoNodes;

/* Two nodes of the shipped system id, every GPU a rank. */
static void
two_nodes_init(TwoNodes *t, const char *id)
{
    g_autoptr(GError) error = NULL;
    t->system = coll_test_load_system(id);
    t->graph = topo_build_system(t->system, 2, &error);
    ck_assert_msg(t->graph != NULL, "%s", error ? error->message : "");
    t->router = topo_router_new(t->graph);
    t->comm = coll_comm_new(t->system, t->graph, t->router, 2 * t->system->n_gpus, &error);
    ck_assert_msg(t->comm != NULL, "%s", error ? error->message : "");
}

static void
two_nodes_clear(TwoNodes *t)
{
    coll_comm_free(t->comm);
    topo_router_free(t->router);
    topo_graph_free(t->graph);
    hw_system_free(t->system);
}

/* An NVLS-tree all_reduce of S bytes on comm, on n_channels channels,
 * chunk bytes a head, with no costs beyond the wire. */
static CollExecResult
nvls_tree_run(const CollComm *comm, uint64_t S, uint32_t n_channels, uint64_t chunk,
              NetFidelity fidelity, uint64_t *sent, uint64_t *received)
{
    return coll_test_all_reduce(comm, coll_build_nvls_tree, COLL_ALGO_NVLS_TREE, S, n_channels,
                                chunk, fidelity, sent, received);
}

START_TEST(nvls_tree_bytes_by_hand)
{
    TwoNodes t;
    two_nodes_init(&t, "dgx-h100");
    CollTuneGraph g;
    coll_tune_graph(&t.comm->info, COLL_ALGO_NVLS, &g);
    ck_assert_uint_eq(g.n_channels, 8); /* a head on every GPU, each with its NIC */
    const uint64_t S = UINT64_C(16) << 20, heads = 8;
    uint64_t sent[16], received[16];
    nvls_tree_run(t.comm, S, 2, 256 * 1024, NET_FIDELITY_FLOW, sent, received);
    uint64_t share = S / heads; /* a head's part of the buffer */
    /* Over its NIC a head sends its share of every channel once: down
     * the tree its node roots, up the other; it receives as much. */
    uint64_t net = S / heads;
    /* The switch planes carry 5, 5, 4 and 4 eighteenths of each message,
     * each rounded to whole bytes: at most a byte a plane a message. */
    uint64_t slack = 4 * (2 * S / (256 * 1024));
    for (uint32_t r = 0; r < 16; r++) {
        /* Its copy of S and its share to multicast through the switches,
         * its share over its NIC. */
        ck_assert_uint_le(sent[r] - (S + share + net), slack);
        /* Its node's sum of its share, all of S by multicast, the other
         * node's share over its NIC. */
        ck_assert_uint_le(received[r] - (share + S + net), slack);
    }
    two_nodes_clear(&t);
}
END_TEST

START_TEST(nvls_tree_packet_and_flow_agree)
{
    TwoNodes t;
    two_nodes_init(&t, "dgx-h100");
    const uint64_t S = UINT64_C(64) << 20;
    CollExecResult p = nvls_tree_run(t.comm, S, 4, 256 * 1024, NET_FIDELITY_PACKET, NULL, NULL);
    CollExecResult f = nvls_tree_run(t.comm, S, 4, 256 * 1024, NET_FIDELITY_FLOW, NULL, NULL);
    double diff = fabs((double)p.time_ps - (double)f.time_ps) / (double)f.time_ps;
    ck_assert_msg(diff <= 0.02, "packet %.2f us, flow %.2f us", (double)p.time_ps / 1e6,
                  (double)f.time_ps / 1e6);
    two_nodes_clear(&t);
}
END_TEST

/* NCCL's choice on two nodes: NVLS-tree once the call is large; one node
 * never gets it. The default call runs (no "not simulated"). */
START_TEST(nvls_tree_is_chosen_and_runs)
{
    TwoNodes t;
    two_nodes_init(&t, "dgx-h100");
    CollAlgo algo = COLL_ALGO_AUTO;
    CollProto proto = COLL_PROTO_AUTO;
    ck_assert(
        coll_tune_select(&t.comm->info, COLL_OP_ALL_REDUCE, UINT64_C(1) << 30, &algo, &proto));
    ck_assert_int_eq(algo, COLL_ALGO_NVLS_TREE);
    CollCall call = {.op = COLL_OP_ALL_REDUCE, .n_bytes = UINT64_C(64) << 20, .elem_bytes = 4};
    CollResult res;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(coll_run(t.comm, &call, NET_FIDELITY_FLOW, &res, &error), "%s",
                  error ? error->message : "");
    ck_assert_int_eq(res.algo, COLL_ALGO_NVLS_TREE);
    /* Bounded by the switches: no faster than NVLS on one node moves S
     * (each rank S out, S back over its 18 NVLinks at NCCL's 0.85). */
    double one_node_ps = (double)call.n_bytes / (18 * 25e9 * 0.85) * 1e12;
    ck_assert_msg((double)res.time_ps > one_node_ps, "%.1f us", (double)res.time_ps / 1e6);
    two_nodes_clear(&t);
}
END_TEST

/* Two GB200 NVL72 racks: the NICs carry only what crosses racks. A GPU
 * that is no head sends its copy of the buffer to the rack's switches and
 * nothing more (its tray's NIC stays idle); a head sends as well its
 * share to multicast and, over its NIC, its share to the other rack. */
START_TEST(nvls_tree_racks_cross_on_heads_only)
{
    TwoNodes t;
    two_nodes_init(&t, "gb200-nvl72");
    CollTuneGraph g;
    coll_tune_graph(&t.comm->info, COLL_ALGO_NVLS, &g);
    uint32_t heads = g.n_channels;
    ck_assert_uint_ge(heads, 2);
    const uint64_t S = (uint64_t)heads * 2 * 256 * 1024; /* whole chunks for every head */
    uint64_t sent[144], received[144];
    nvls_tree_run(t.comm, S, 2, 256 * 1024, NET_FIDELITY_FLOW, sent, received);
    uint32_t n_heads = 0;
    for (uint32_t r = 0; r < 144; r++) {
        uint32_t local = r % 72;
        bool head = false;
        for (uint32_t h = 0; h < heads; h++)
            head = head || local == h * 72 / heads;
        n_heads += head;
        /* Its share to multicast and its share over the NIC: 2 S / heads
         * beyond its copy of S; a GPU that is no head sends S alone. Each
         * message to the 18 switch planes rounds its eighteenths up to
         * whole bytes. */
        uint64_t expect = S + (head ? 2 * S / heads : 0), slack = 18 * 2 * (S / (256 * 1024));
        ck_assert_uint_ge(sent[r], expect);
        ck_assert_uint_le(sent[r] - expect, slack);
        if (!head)
            ck_assert_uint_lt(sent[r] - S, S / heads); /* nothing over a NIC */
    }
    ck_assert_uint_eq(n_heads, 2 * heads);
    two_nodes_clear(&t);
}
END_TEST

/* The placement with a published log: two p5 nodes, NCCL 2.22.3 (KeitaW/
 * p5-nccl-test-2024-07-19): "16 coll channels", "nHeads 8", "Connected
 * NVLS tree" (NVLS-tree was run). */
START_TEST(nvls_tree_p5_as_logged)
{
    CollTopoInfo info;
    coll_test_info("aws-p5-h100", 2, &info);
    ck_assert_uint_eq(coll_tune_channels(&info), 16);
    CollTuneGraph g;
    coll_tune_graph(&info, COLL_ALGO_NVLS, &g);
    ck_assert_uint_eq(g.n_channels, 8);
    CollAlgo algo = COLL_ALGO_AUTO;
    CollProto proto = COLL_PROTO_AUTO;
    ck_assert(coll_tune_select(&info, COLL_OP_ALL_REDUCE, UINT64_C(1) << 30, &algo, &proto));
    ck_assert_int_eq(algo, COLL_ALGO_NVLS_TREE);
}
END_TEST

/* NVLS-tree on it, one chunk: each node's switch reduces its GPU's copy
 * for the head (up, then down), node 1's head sends its sum up the tree
 * to node 0 (NIC, leaf, NIC), which sends the total back down; each head
 * stores it to the multicast address, the switch copies it back. On the
 * critical path: four switch hops and two network ones, to the
 * picosecond at flow fidelity. */
START_TEST(nvls_tree_two_level_closed_form)
{
    TwoLevel t;
    two_level_init(&t);
    CollTuneGraph g;
    coll_tune_graph(&t.comm.info, COLL_ALGO_NVLS, &g);
    ck_assert_uint_eq(g.n_channels, 1); /* one head a node */
    /* S / 0.85 is whole packets (117760 B = 920 x 128), so that the
     * flow engine's per-hop wire factor, a float, is exact. */
    const uint64_t S = 100096;
    CollExecResult r = nvls_tree_run(&t.comm, S, 1, S, NET_FIDELITY_FLOW, NULL, NULL);
    /* Through the switch at NCCL's NVLS efficiency for Hopper (0.85): the
     * wire carries S / 0.85. */
    uint64_t wire = (uint64_t)ceil((double)S * (1.0 / coll_tune_nvls_efficiency(&t.comm.info)));
    ck_assert_uint_eq(wire, 117760);
    uint64_t sw_hop = two_level_transfer_ps(wire, 1, 0);
    uint64_t net_hop = two_level_transfer_ps(S, 4, 2 * TWO_LEVEL_NIC_LAT + TWO_LEVEL_LEAF_LAT);
    ck_assert_uint_eq(r.time_ps, 4 * sw_hop + 2 * net_hop);
    two_level_clear(&t);
}
END_TEST

Suite *
coll_nvls_tree_suite(void)
{
    Suite *s = suite_create("coll-nvls-tree");
    TCase *tc = tcase_create("nvls-tree");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, nvls_tree_bytes_by_hand);
    tcase_add_test(tc, nvls_tree_packet_and_flow_agree);
    tcase_add_test(tc, nvls_tree_is_chosen_and_runs);
    tcase_add_test(tc, nvls_tree_racks_cross_on_heads_only);
    tcase_add_test(tc, nvls_tree_p5_as_logged);
    tcase_add_test(tc, nvls_tree_two_level_closed_form);
    suite_add_tcase(s, tc);
    return s;
}
