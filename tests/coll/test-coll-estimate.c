/* SPDX-License-Identifier: Apache-2.0 */
/* coll-estimate: the closed form's steps, costs and bounds as the
 * simulation lays them out and charges them, and the estimate beside the
 * simulated kernel where the form is close (bandwidth-bound sizes, and a
 * latency-bound one). */
#include <string.h>

#include "coll-suites.h"
#include "coll/coll-estimate.h"
#include "core/core-time.h"
#include "topo/topo-build.h"

typedef struct Fixture {
    HwSystem *system;
    TopoGraph *graph;
    TopoRouter *router;
    CollComm *comm;
} Fixture;

static void
fixture_init(Fixture *f, const char *id, uint32_t n_ranks)
{
    f->system = coll_test_load_system(id);
    g_autoptr(GError) error = NULL;
    uint32_t n_nodes = (n_ranks + f->system->n_gpus - 1) / f->system->n_gpus;
    f->graph = topo_build_system(f->system, n_nodes, &error);
    ck_assert_msg(f->graph != NULL, "%s: %s", id, error ? error->message : "");
    f->router = topo_router_new(f->graph);
    f->comm = coll_comm_new(f->system, f->graph, f->router, n_ranks, &error);
    ck_assert_msg(f->comm != NULL, "%s: %s", id, error ? error->message : "");
}

static void
fixture_clear(Fixture *f)
{
    coll_comm_free(f->comm);
    topo_router_free(f->router);
    topo_graph_free(f->graph);
    hw_system_free(f->system);
}

static void
estimate(const Fixture *f, CollOp op, CollAlgo algo, uint64_t bytes, CollEstimate *e)
{
    CollCall call = {.op = op, .n_bytes = bytes, .elem_bytes = 4, .algo = algo};
    g_autoptr(GError) error = NULL;
    ck_assert_msg(coll_estimate(f->comm, &call, e, &error), "%s", error ? error->message : "");
}

/* The estimate beside the simulated kernel, within tolerance_pct. */
typedef struct Case {
    const char *system;
    uint32_t n_ranks;
    CollOp op;
    CollAlgo algo;
    uint64_t bytes;
    double tolerance_pct;
} Case;

static const Case cases[] = {
    {"dgx-h100", 8, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, 256 << 20, 1},
    {"dgx-a100", 8, COLL_OP_ALL_REDUCE, COLL_ALGO_AUTO, 64 << 20, 1},
    {"dgx-h100", 8, COLL_OP_ALL_REDUCE, COLL_ALGO_AUTO, 8, 1}, /* latency-bound */
    {"dgx-h100", 8, COLL_OP_ALL_GATHER, COLL_ALGO_RING, 256 << 20, 1},
    {"dgx-h100", 8, COLL_OP_BROADCAST, COLL_ALGO_AUTO, 1 << 30, 1},
    {"dgx1-v100", 8, COLL_OP_ALL_REDUCE, COLL_ALGO_AUTO, 64 << 20, 1},
    /* The exit of each node relays over NVLink to the GPU on the next
     * node's rail (PXN, coll-build.c's ring_hop), a hop the form does not
     * count: 1.0% under the simulated kernel. */
    {"dgx-a100", 16, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, 1 << 30, 2},
    /* coll-exec paces a CTA's sends at its channel's rate, so a chain's
     * slices cross each hop no faster than the CTA writes them; the fill
     * takes every hop's copy whole, while the other channels keep the
     * links busy through part of it: 3.2% over the simulated kernel. */
    {"dgx-a100", 16, COLL_OP_ALL_REDUCE, COLL_ALGO_TREE, 1 << 30, 4},
    {"dgx-h100", 8, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, 256 << 20, 1},
    /* The heads' tree forwards chunk by chunk: between its hops and the
     * switch stages the form counts each stage's fill whole, 1.9% over. */
    {"dgx-h100", 16, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS_TREE, 1 << 30, 3},
    {"dgx-h100", 128, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS_TREE, 8, 1}, /* latency-bound */
    {"dgx-h100", 8, COLL_OP_ALLTOALL, COLL_ALGO_AUTO, 256 << 20, 1},
    {"dgx-h100", 8, COLL_OP_SENDRECV, COLL_ALGO_AUTO, 256 << 20, 1},
    {"dgx-h100", 16, COLL_OP_ALLTOALL, COLL_ALGO_AUTO, 256 << 20, 3},
    {"dgx-h100", 16, COLL_OP_SENDRECV, COLL_ALGO_AUTO, 256 << 20, 1},
    /* DGX-1V's pairs without an NVLink relay through a GPU (NVB): the
     * relay's forwarding, which the form does not count, takes 2.2%. */
    {"dgx1-v100", 8, COLL_OP_ALLTOALL, COLL_ALGO_AUTO, 64 << 20, 3},
};

START_TEST(estimate_near_simulation)
{
    const Case *c = &cases[_i];
    Fixture f;
    fixture_init(&f, c->system, c->n_ranks);
    CollEstimate e;
    estimate(&f, c->op, c->algo, c->bytes, &e);
    CollCall call = {.op = c->op, .n_bytes = c->bytes, .elem_bytes = 4, .algo = c->algo};
    CollResult r;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(coll_run(f.comm, &call, NET_FIDELITY_FLOW, &r, &error), "%s",
                  error ? error->message : "");
    double off = 100.0 * ((double)e.kernel_ps - (double)r.time_ps) / (double)r.time_ps;
    ck_assert_msg(r.algo == e.algo && r.proto == e.proto, "case %d (%s %s): %s %s ran, not %s %s",
                  _i, c->system, coll_op_name(c->op), coll_algo_name(r.algo),
                  coll_proto_name(r.proto), coll_algo_name(e.algo), coll_proto_name(e.proto));
    ck_assert_msg(off < c->tolerance_pct && off > -c->tolerance_pct,
                  "case %d (%s %s of %" G_GUINT64_FORMAT " B on %u): estimate %.2f us, "
                  "simulated %.2f us (%+.2f%%, tolerance %.0f%%)",
                  _i, c->system, coll_op_name(c->op), c->bytes, c->n_ranks,
                  (double)e.kernel_ps / SIM_PS_PER_US, (double)r.time_ps / SIM_PS_PER_US, off,
                  c->tolerance_pct);
    fixture_clear(&f);
}
END_TEST

START_TEST(ring_steps_and_step_latency)
{
    Fixture f;
    fixture_init(&f, "dgx-h100", 8);
    CollEstimate e;
    estimate(&f, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, 64 << 20, &e);
    ck_assert_uint_eq(e.intra.n_steps, 14);
    ck_assert_uint_eq(e.inter.n_steps, 0);
    /* The wire and the synchronisation add up to NCCL's per-step latency. */
    ck_assert_uint_eq(e.intra.step_ps, (uint64_t)(e.intra.nccl_step_us * SIM_PS_PER_US));
    ck_assert_uint_eq(e.intra.n_writes, e.proto == COLL_PROTO_SIMPLE ? 2 : 1);
    ck_assert(e.intra.wire_ps > 0 && e.intra.sync_ps > 0);
    ck_assert_uint_eq(e.moved_bytes, (64 << 20) / 8 * 14);
    ck_assert_uint_eq(e.setup_ps, f.system->runtime->kernel_setup_ps);
    estimate(&f, COLL_OP_ALL_GATHER, COLL_ALGO_RING, 64 << 20, &e);
    ck_assert_uint_eq(e.intra.n_steps, 7);
    ck_assert_uint_eq(e.reduce_bytes, 0);
    fixture_clear(&f);
}
END_TEST

START_TEST(tree_steps_and_network_step)
{
    Fixture f;
    fixture_init(&f, "dgx-a100", 16);
    CollEstimate e;
    estimate(&f, COLL_OP_ALL_REDUCE, COLL_ALGO_TREE, 1 << 30, &e);
    ck_assert_uint_eq(e.intra.n_steps, 14); /* up and down a chain of 8 */
    ck_assert_uint_eq(e.inter.n_steps, 2);  /* up and down a tree of 2 nodes */
    ck_assert_uint_eq(e.proto, COLL_PROTO_SIMPLE);
    ck_assert_uint_eq(e.inter.sync_ps, 3 * f.system->runtime->proxy_post_ps);
    ck_assert_uint_eq(e.inter.step_ps, e.inter.wire_ps + e.inter.sync_ps);
    ck_assert(e.nic_bytes > 0 && e.nic_bytes_per_s > 0);
    fixture_clear(&f);
}
END_TEST

START_TEST(nvls_steps_and_bound)
{
    Fixture f;
    fixture_init(&f, "dgx-h100", 8);
    CollEstimate e;
    estimate(&f, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, 1 << 30, &e);
    ck_assert_uint_eq(e.intra.n_steps, 4);
    ck_assert_uint_eq(e.intra.sync_ps, 0);
    ck_assert_uint_eq(e.intra.n_hops, 1);
    ck_assert_int_eq(e.bound, COLL_BOUND_SWITCH);
    ck_assert_uint_eq(e.nvlink_bytes, (1 << 30) / 8 * 9); /* its copy up, its sum down */
    ck_assert_uint_eq(e.n_nvlinks, 18);
    ck_assert_uint_eq(e.reduce_bytes, 0);
    estimate(&f, COLL_OP_REDUCE_SCATTER, COLL_ALGO_NVLS, 1 << 30, &e);
    ck_assert_uint_eq(e.intra.n_steps, 2);
    fixture_clear(&f);
    /* A two-tier domain: ranks on one board write to their leaves (one
     * hop); on every board, to the spine above them (two), with the same
     * links and bytes. */
    Fixture one, all;
    fixture_init(&one, "whatif-gb300-nvl144", 8);
    fixture_init(&all, "whatif-gb300-nvl144", 144);
    CollEstimate a, b;
    estimate(&one, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, 1 << 30, &a);
    estimate(&all, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, 1 << 30, &b);
    ck_assert_uint_eq(a.intra.n_hops, 1);
    ck_assert_uint_eq(b.intra.n_hops, 2);
    ck_assert_uint_gt(b.intra.wire_ps, a.intra.wire_ps);
    ck_assert_uint_eq(a.n_nvlinks, 18);
    ck_assert_uint_eq(b.n_nvlinks, 18);
    fixture_clear(&one);
    fixture_clear(&all);
}
END_TEST

/* Two nodes: each head's NIC carries its share of every channel once (up
 * the tree its node is a leaf of, down the one it roots); sixteen nodes:
 * NCCL's binary tree is 4 deep, 8 steps between nodes. */
START_TEST(nvls_tree_steps_and_bytes)
{
    Fixture f;
    fixture_init(&f, "dgx-h100", 16);
    CollEstimate e;
    estimate(&f, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS_TREE, 1 << 30, &e);
    ck_assert_uint_eq(e.intra.n_steps, 4);
    ck_assert_uint_eq(e.inter.n_steps, 2);
    ck_assert_uint_eq(e.nvlink_bytes, (1 << 30) / 8 * 9); /* its copy up, its head's share */
    ck_assert_uint_eq(e.nic_bytes, (1 << 30) / 8);
    ck_assert_uint_eq(e.reduce_bytes, (1 << 30) / 8 / 2); /* a root in half the channels */
    ck_assert_int_eq(e.bound, COLL_BOUND_SWITCH);
    fixture_clear(&f);
    fixture_init(&f, "dgx-h100", 128);
    estimate(&f, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS_TREE, 1 << 30, &e);
    ck_assert_uint_eq(e.inter.n_steps, 8);
    fixture_clear(&f);
}
END_TEST

START_TEST(direct_bytes_and_bound)
{
    Fixture f;
    fixture_init(&f, "dgx-h100", 16);
    CollEstimate e;
    estimate(&f, COLL_OP_ALLTOALL, COLL_ALGO_AUTO, 1 << 30, &e);
    ck_assert_int_eq(e.algo, COLL_ALGO_DIRECT);
    ck_assert_uint_eq(e.inter.n_steps, 1);
    ck_assert_uint_eq(e.moved_bytes, (uint64_t)(1 << 30) / 16 * 15);
    ck_assert_uint_eq(e.nvlink_bytes, (uint64_t)(1 << 30) / 16 * 7);
    ck_assert_uint_eq(e.nic_bytes, (uint64_t)(1 << 30) / 16 * 8);
    ck_assert_int_eq(e.bound, COLL_BOUND_NIC);
    ck_assert(e.bandwidth_ps > 0);
    estimate(&f, COLL_OP_SENDRECV, COLL_ALGO_AUTO, 1 << 30, &e);
    ck_assert_uint_eq(e.moved_bytes, 1 << 30);
    /* Its queue pair keeps the NIC busy: 8 slots of 128 KiB outlast a
     * chunk's round trip, so no window waits. */
    ck_assert(e.n_windows > 0 && e.window_dead_ps == 0 && e.slots_ps == 0);
    fixture_clear(&f);
}
END_TEST

START_TEST(refusals)
{
    Fixture f;
    CollEstimate e;
    g_autoptr(GError) error = NULL;
    fixture_init(&f, "loopback-h200", 4);
    CollCall call = {.op = COLL_OP_ALL_REDUCE, .n_bytes = 1 << 20, .elem_bytes = 4};
    ck_assert(!coll_estimate(f.comm, &call, &e, &error));
    ck_assert(strstr(error->message, "loopback") != NULL);
    fixture_clear(&f);
    g_clear_error(&error);
    fixture_init(&f, "dgx-h100", 8);
    call.algo = COLL_ALGO_TREE;
    call.op = COLL_OP_ALL_GATHER;
    ck_assert(!coll_estimate(f.comm, &call, &e, &error));
    fixture_clear(&f);
}
END_TEST

Suite *
coll_estimate_suite(void)
{
    Suite *s = suite_create("coll-estimate");
    TCase *tc = tcase_create("estimate");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, estimate_near_simulation, 0, G_N_ELEMENTS(cases));
    tcase_add_test(tc, ring_steps_and_step_latency);
    tcase_add_test(tc, tree_steps_and_network_step);
    tcase_add_test(tc, nvls_steps_and_bound);
    tcase_add_test(tc, nvls_tree_steps_and_bytes);
    tcase_add_test(tc, direct_bytes_and_bound);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return s;
}
