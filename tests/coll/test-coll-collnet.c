/* SPDX-License-Identifier: Apache-2.0 */
/* CollNet (SHARP) on two and four DGX H100 nodes (QM9700 fabric, SHARPv3):
 * NCCL's enable rules (only with CollNet on, a SHARPv2+ fabric, two nodes
 * or more); its model against the numbers worked out from tuning.cc by
 * hand; the bytes the schedules move, counted by hand (each node's data
 * once up into the switches and once down, the switches reducing it, the
 * chain or the heads' scatter and gather inside the node); packet and flow
 * fidelity within 2% when bandwidth-bound. Its own runner: the packet
 * engine on 16 GPUs takes a few seconds.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "coll-two-level.h"
#include "coll/coll-build.h"
#include "coll/coll-run.h"
#include "hw/hw-system.h"
#include "topo/topo-build.h"
#include "topo/topo-route.h"

static HwSystem *
load(const char *id, bool collnet)
{
    const char *top = g_getenv("top_srcdir");
    g_autofree char *dir = g_build_filename(top ? top : ".", "models", NULL);
    g_autoptr(GError) error = NULL;
    HwSystem *system = hw_system_load_by_id(id, dir, &error);
    ck_assert_msg(system != NULL, "%s: %s", id, error ? error->message : "");
    system->collnet = collnet;
    return system;
}

/* ---- The tuner. ---- */

START_TEST(enable_rules)
{
    static const struct {
        const char *id;
        bool collnet;
        uint32_t n_nodes;
        bool runs;
    } cases[] = {
        {"dgx-h100", false, 2, false},   /* NCCL_COLLNET_ENABLE=0, the default */
        {"dgx-h100", true, 1, false},    /* one node: under NCCL_COLLNET_NODE_THRESHOLD */
        {"dgx-h100", true, 2, true},     /* QM9700, SHARPv3 */
        {"dgx-a100", true, 2, true},     /* QM8700, SHARPv2 */
        {"dgx1-v100", true, 2, false},   /* SB7800, SHARPv1: not for NCCL */
        {"aws-p5-h100", true, 2, false}, /* Ethernet */
    };
    g_autoptr(HwSystem) sys = load(cases[_i].id, cases[_i].collnet);
    CollTopoInfo info;
    coll_tune_info(sys, sys->n_gpus * cases[_i].n_nodes, cases[_i].n_nodes, &info);
    ck_assert_msg(info.collnet == cases[_i].runs, "%s collnet=%d on %u nodes: collnet %d",
                  cases[_i].id, cases[_i].collnet, cases[_i].n_nodes, info.collnet);
    bool picked = false;
    for (uint64_t bytes = 1024; bytes <= (UINT64_C(1) << 30); bytes *= 4) {
        CollAlgo algo = COLL_ALGO_AUTO;
        CollProto proto = COLL_PROTO_AUTO;
        ck_assert(coll_tune_select(&info, COLL_OP_ALL_REDUCE, bytes, &algo, &proto));
        picked = picked || algo == COLL_ALGO_COLLNET_DIRECT || algo == COLL_ALGO_COLLNET_CHAIN;
        ck_assert_msg((coll_tune_time_us(&info, COLL_OP_ALL_REDUCE, COLL_ALGO_COLLNET_CHAIN,
                                         COLL_PROTO_SIMPLE, bytes) >= 0) == cases[_i].runs,
                      "%s: collnet_chain's time at %" G_GUINT64_FORMAT " B", cases[_i].id, bytes);
    }
    /* Where it runs, NCCL's model prefers it at some size (its latency
     * does not grow with the ranks, ring's does). */
    ck_assert_msg(picked == cases[_i].runs, "%s: CollNet picked %d", cases[_i].id, picked);
    /* Never for other collectives, nor with LL or LL128. */
    ck_assert(coll_tune_time_us(&info, COLL_OP_ALL_GATHER, COLL_ALGO_COLLNET_DIRECT,
                                COLL_PROTO_SIMPLE, 1 << 20) < 0);
    ck_assert(coll_tune_time_us(&info, COLL_OP_ALL_REDUCE, COLL_ALGO_COLLNET_DIRECT, COLL_PROTO_LL,
                                1 << 20) < 0);
}
END_TEST

/* 16 H100 (SM90) on 2 nodes, 8 CX-7 (50 GB/s, PCIe Gen5 x16: 48 GB/s to
 * the NIC): the CollNet Direct graph has a head per NIC, 8 channels at
 * 48 GB/s (the SM90 inter-node speed list's first; 2 x 48 on a head's
 * NVLinks fits its 18 x 20.6), not duplicated (SM90, below 50 GB/s, more
 * than 4 channels). busBw = 8 x 48 / (ppn/heads = 1) x 0.85 = 326.4,
 * algBw = 163.2 GB/s; latency 2 (1 x 3.7 + 7 x 0.4) + 31 = 44 us
 * (tuning.cc:340-348, :418-422, hwLatencies NVLINK 3.7, NET 31). */
START_TEST(model_direct)
{
    g_autoptr(HwSystem) sys = load("dgx-h100", true);
    CollTopoInfo info;
    coll_tune_info(sys, 16, 2, &info);
    CollTuneGraph g;
    coll_tune_graph(&info, COLL_ALGO_COLLNET_DIRECT, &g);
    ck_assert_uint_eq(g.n_channels, 8);
    ck_assert_double_eq_tol(g.bw_intra, 48.0, 1e-9);
    double t = coll_tune_time_us(&info, COLL_OP_ALL_REDUCE, COLL_ALGO_COLLNET_DIRECT,
                                 COLL_PROTO_SIMPLE, 1 << 20);
    ck_assert_double_eq_tol(t, 44.0 + (double)(1 << 20) / (1000.0 * 163.2), 1e-6);
    /* Chain: 2 (ppn - 1) x 2.8 + 30 = 69.2 us; algBw half of channels x
     * bw_intra, the tree graph's. */
    CollTuneGraph chain;
    coll_tune_graph(&info, COLL_ALGO_COLLNET_CHAIN, &chain);
    ck_assert_uint_gt(chain.n_channels, 0);
    double tc = coll_tune_time_us(&info, COLL_OP_ALL_REDUCE, COLL_ALGO_COLLNET_CHAIN,
                                  COLL_PROTO_SIMPLE, 1 << 20);
    ck_assert_double_eq_tol(
        tc, 69.2 + (double)(1 << 20) / (1000.0 * 0.5 * chain.n_channels * chain.bw_intra), 1e-6);
}
END_TEST

/* ---- The schedules. ---- */

typedef struct World {
    HwSystem *sys;
    TopoGraph *graph;
    TopoRouter *router;
    CollComm *comm;
} World;

static void
world_init(World *w, uint32_t n_nodes)
{
    w->sys = load("dgx-h100", true);
    g_autoptr(GError) error = NULL;
    w->graph = topo_build_system(w->sys, n_nodes, &error);
    ck_assert_msg(w->graph != NULL, "%s", error ? error->message : "");
    w->router = topo_router_new(w->graph);
    w->comm = coll_comm_new(w->sys, w->graph, w->router, w->sys->n_gpus * n_nodes, &error);
    ck_assert_msg(w->comm != NULL, "%s", error ? error->message : "");
}

static void
world_clear(World *w)
{
    coll_comm_free(w->comm);
    topo_router_free(w->router);
    topo_graph_free(w->graph);
    hw_system_free(w->sys);
}

/* Builds algo's all_reduce of n_bytes (NCCL's plan) and runs it; the
 * payload each node's ranks and the switches sent and received. */
static void
traffic(World *w, CollAlgo algo, uint64_t n_bytes, uint64_t *node_sent, uint64_t *node_received,
        uint64_t *switch_sent, uint64_t *switch_received)
{
    const CollComm *comm = w->comm;
    CollCall call = {.op = COLL_OP_ALL_REDUCE, .n_bytes = n_bytes, .elem_bytes = 4, .algo = algo};
    CollBuild b = {.comm = comm, .call = &call, .algo = algo, .proto = COLL_PROTO_SIMPLE};
    coll_tune_plan(&comm->info, call.op, algo, COLL_PROTO_SIMPLE, n_bytes, &b.plan);
    b.ex = coll_exec_new(w->graph, w->router, NULL, COLL_PROTO_SIMPLE, b.plan.n_channels, 0, 0);
    g_autofree uint32_t *parts = g_new(uint32_t, comm->n_ranks);
    for (uint32_t r = 0; r < comm->n_ranks; r++)
        parts[r] = coll_exec_participant(b.ex, comm->rank_vertex[r]);
    b.rank_part = parts;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(algo == COLL_ALGO_COLLNET_DIRECT ? coll_build_collnet_direct(&b, &error)
                                                   : coll_build_collnet_chain(&b, &error),
                  "%s", error ? error->message : "");
    CollExecResult result;
    ck_assert_msg(coll_exec_run(b.ex, NET_FIDELITY_FLOW, &result, &error), "%s",
                  error ? error->message : "");
    for (uint32_t node = 0; node < comm->n_nodes; node++)
        node_sent[node] = node_received[node] = 0;
    *switch_sent = *switch_received = 0;
    /* Participants past the ranks are the fabric's switches. */
    for (uint32_t p = 0; p < coll_exec_n_participants(b.ex); p++) {
        uint64_t s, r;
        coll_exec_participant_bytes(b.ex, p, &s, &r);
        if (p < comm->n_ranks) {
            node_sent[p / comm->ppn] += s;
            node_received[p / comm->ppn] += r;
        } else {
            *switch_sent += s;
            *switch_received += r;
        }
    }
    coll_exec_free(b.ex);
}

/* Each node's data goes up once and comes down once: the switches
 * receive and send n_nodes x S (leaves and, across leaves, the spine:
 * rail-optimized DGX H100 puts each rail on its own leaf, so one leaf a
 * channel here). Inside a node, per byte of the node's data: the chain
 * sends it up ppn - 1 hops and down ppn - 1, the head once more into the
 * tree: (2 ppn - 1) S; Direct scatters (ppn - 1)/ppn of each head's part
 * from the others and gathers it back, plus S into the tree:
 * (2 (ppn - 1) + 1) S as well. */
START_TEST(bytes_by_hand)
{
    static const CollAlgo algos[] = {COLL_ALGO_COLLNET_CHAIN, COLL_ALGO_COLLNET_DIRECT};
    World w;
    world_init(&w, 2);
    uint64_t S = UINT64_C(8) << 20, sent[2], received[2], sw_sent, sw_received;
    traffic(&w, algos[_i], S, sent, received, &sw_sent, &sw_received);
    uint32_t ppn = w.comm->ppn;
    ck_assert_uint_eq(sw_received, 2 * S);
    ck_assert_uint_eq(sw_sent, 2 * S);
    for (uint32_t node = 0; node < 2; node++) {
        ck_assert_uint_eq(sent[node], (2 * ppn - 1) * S);
        ck_assert_uint_eq(received[node], (2 * ppn - 1) * S);
    }
    world_clear(&w);
}
END_TEST

/* Bandwidth-bound (256 MiB on 2 nodes): packet and flow within 2%. */
START_TEST(fidelities_agree)
{
    static const CollAlgo algos[] = {COLL_ALGO_COLLNET_CHAIN, COLL_ALGO_COLLNET_DIRECT};
    World w;
    world_init(&w, 2);
    CollCall call = {.op = COLL_OP_ALL_REDUCE,
                     .n_bytes = UINT64_C(256) << 20,
                     .elem_bytes = 4,
                     .algo = algos[_i]};
    CollResult flow, packet;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(coll_run(w.comm, &call, NET_FIDELITY_FLOW, &flow, &error), "%s",
                  error ? error->message : "");
    ck_assert_msg(coll_run(w.comm, &call, NET_FIDELITY_PACKET, &packet, &error), "%s",
                  error ? error->message : "");
    ck_assert_int_eq(flow.algo, algos[_i]);
    double ratio = (double)packet.time_ps / (double)flow.time_ps;
    ck_assert_msg(fabs(ratio - 1.0) < 0.02, "%s: packet %.3f us, flow %.3f us",
                  coll_algo_name(algos[_i]), packet.time_ps / 1e6, flow.time_ps / 1e6);
    world_clear(&w);
}
END_TEST

/* On the ideal two-level fabric (a GPU and its NIC a node, one SHARP
 * leaf, coll-two-level.h), one chunk: each head's data up to the leaf
 * (GPU, NIC, leaf), reduced there, the sum back down; the closed form of
 * two network legs, to the picosecond at flow fidelity, for both. */
START_TEST(two_level_closed_form)
{
    static const CollAlgo algos[] = {COLL_ALGO_COLLNET_CHAIN, COLL_ALGO_COLLNET_DIRECT};
    TwoLevel t;
    two_level_init(&t);
    const uint64_t S = 100096; /* whole 128 B packets */
    CollCall call = {
        .op = COLL_OP_ALL_REDUCE, .n_bytes = S, .elem_bytes = 4, .algo = algos[_i]};
    CollBuild b = {.comm = &t.comm,
                   .call = &call,
                   .algo = algos[_i],
                   .proto = COLL_PROTO_SIMPLE,
                   .plan = {.n_channels = 1,
                            .chunk_bytes = S,
                            .slice_bytes = S,
                            .slices_in_flight = 4}};
    b.ex = coll_exec_new(t.graph, t.router, NULL, COLL_PROTO_SIMPLE, 1, 0, 0);
    uint32_t parts[2] = {coll_exec_participant(b.ex, t.vertex[0]),
                         coll_exec_participant(b.ex, t.vertex[1])};
    b.rank_part = parts;
    g_autoptr(GError) error = NULL;
    bool built = algos[_i] == COLL_ALGO_COLLNET_CHAIN ? coll_build_collnet_chain(&b, &error)
                                                      : coll_build_collnet_direct(&b, &error);
    ck_assert_msg(built, "%s", error ? error->message : "");
    CollExecResult r;
    ck_assert_msg(coll_exec_run(b.ex, NET_FIDELITY_FLOW, &r, &error), "%s",
                  error ? error->message : "");
    uint64_t leg = two_level_transfer_ps(S, 2, TWO_LEVEL_NIC_LAT);
    ck_assert_msg(r.time_ps == 2 * leg, "%s: %" G_GUINT64_FORMAT " ps, expected %" G_GUINT64_FORMAT,
                  coll_algo_name(algos[_i]), r.time_ps, 2 * leg);
    coll_exec_free(b.ex);
    two_level_clear(&t);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("coll-collnet");
    TCase *tc = tcase_create("collnet");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, enable_rules, 0, 6);
    tcase_add_test(tc, model_direct);
    tcase_add_loop_test(tc, bytes_by_hand, 0, 2);
    tcase_add_loop_test(tc, fidelities_agree, 0, 2);
    tcase_add_loop_test(tc, two_level_closed_form, 0, 2);
    suite_add_tcase(s, tc);
    SRunner *runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
