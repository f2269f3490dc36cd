/* SPDX-License-Identifier: Apache-2.0 */
/* Schedules on an ideal crossbar against closed forms: n GPUs around one
 * switch, one link each, no launch or step overhead, no CTA limit, free
 * reductions. Ring all_reduce moves 2(n-1)/n S per GPU in 2(n-1) steps of
 * S/n (each a transfer plus, for Simple, a flag); all_gather and
 * reduce_scatter (n-1)/n S in n-1 steps; a bandwidth-bound ring's busbw is
 * the link's payload rate, LL's half of it, LL128's 120/128; tree and NVLS
 * move the bytes their structure says; packet and flow fidelity agree. */
#include <math.h>
#include <string.h>

#include "coll-suites.h"
#include "coll-xbar.h"
#include "coll/coll-build.h"
#include "core/core-time.h"
#include "net/net.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

#define RATE XBAR_RATE
#define LAT XBAR_LAT
#define SW_LAT XBAR_SW_LAT
#define HEADER XBAR_HEADER

typedef bool (*BuildFn)(CollBuild *, GError **);

/* Runs op over the crossbar with one channel, chunk = slice = slice_bytes. */
static CollExecResult
xbar_run(Xbar *x, BuildFn build, CollOp op, CollAlgo algo, CollProto proto, uint64_t n_bytes,
         uint64_t slice_bytes, uint32_t n_channels, NetFidelity fidelity, uint64_t *sent)
{
    CollCall call = {.op = op, .n_bytes = n_bytes, .elem_bytes = 4, .algo = algo, .proto = proto};
    CollBuild b = {.comm = &x->comm, .call = &call, .algo = algo, .proto = proto};
    b.plan = (CollTunePlan){.n_channels = n_channels,
                            .chunk_bytes = slice_bytes,
                            .slice_bytes = slice_bytes,
                            .slices_in_flight = 8};
    b.ex = coll_exec_new(x->graph, x->router, NULL, proto, n_channels, 0, 0);
    uint32_t parts[16];
    for (uint32_t r = 0; r < x->comm.n_ranks; r++)
        parts[r] = coll_exec_participant(b.ex, x->vertex[r]);
    b.rank_part = parts;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(build(&b, &error), "%s", error ? error->message : "");
    CollExecResult result;
    ck_assert_msg(coll_exec_run(b.ex, fidelity, &result, &error), "%s",
                  error ? error->message : "");
    for (uint32_t r = 0; sent != NULL && r < x->comm.n_ranks; r++) {
        uint64_t received;
        coll_exec_participant_bytes(b.ex, parts[r], &sent[r], &received);
    }
    coll_exec_free(b.ex);
    return result;
}

/* One transfer of b payload bytes GPU-switch-GPU, flow fidelity: the
 * bottleneck's wire time plus the rest of one packet's path. */
static uint64_t
transfer_ps(uint64_t b, double wire_factor)
{
    uint64_t wire = (uint64_t)ceil((double)b * wire_factor);
    uint64_t n_packets = (wire + 127) / 128, pkt = MIN(wire, 128);
    uint64_t drain = sim_serialization_ps(wire + n_packets * HEADER, RATE);
    return drain + sim_serialization_ps(pkt + HEADER, RATE) + 2 * LAT + SW_LAT;
}

/* A small write (a flag) from a GPU to another. */
static uint64_t
flag_ps(void)
{
    return 2 * sim_serialization_ps(8 + HEADER, RATE) + 2 * LAT + SW_LAT;
}

START_TEST(ring_all_reduce_closed_form)
{
    const uint32_t n = 4;
    const uint64_t S = 4 * 128 * 64; /* segments of 64 whole packets */
    Xbar x;
    xbar_init(&x, n);
    uint64_t sent[16];
    CollExecResult simple = xbar_run(&x, coll_build_ring, COLL_OP_ALL_REDUCE, COLL_ALGO_RING,
                                     COLL_PROTO_SIMPLE, S, S / n, 1, NET_FIDELITY_FLOW, sent);
    /* 2(n-1) steps of S/n, each a transfer then its flag. */
    ck_assert_uint_eq(simple.time_ps, 2 * (n - 1) * (transfer_ps(S / n, 1.0) + flag_ps()));
    for (uint32_t r = 0; r < n; r++)
        ck_assert_uint_eq(sent[r], 2 * (n - 1) * S / n);
    ck_assert_uint_eq(simple.payload_bytes, n * 2 * (n - 1) * S / n);
    /* LL: the flag travels in the data, which is twice as large. */
    CollExecResult ll = xbar_run(&x, coll_build_ring, COLL_OP_ALL_REDUCE, COLL_ALGO_RING,
                                 COLL_PROTO_LL, S, S / n, 1, NET_FIDELITY_FLOW, NULL);
    ck_assert_uint_eq(ll.time_ps, 2 * (n - 1) * transfer_ps(S / n, 2.0));
    xbar_clear(&x);
}
END_TEST

START_TEST(ring_all_gather_and_reduce_scatter)
{
    const uint32_t n = 8;
    const uint64_t S = 8 * 128 * 32;
    Xbar x;
    xbar_init(&x, n);
    CollOp ops[] = {COLL_OP_ALL_GATHER, COLL_OP_REDUCE_SCATTER};
    for (size_t i = 0; i < G_N_ELEMENTS(ops); i++) {
        uint64_t sent[16];
        CollExecResult r = xbar_run(&x, coll_build_ring, ops[i], COLL_ALGO_RING, COLL_PROTO_SIMPLE,
                                    S, S / n, 1, NET_FIDELITY_FLOW, sent);
        ck_assert_uint_eq(r.time_ps, (n - 1) * (transfer_ps(S / n, 1.0) + flag_ps()));
        for (uint32_t k = 0; k < n; k++)
            ck_assert_uint_eq(sent[k], (n - 1) * S / n);
    }
    xbar_clear(&x);
}
END_TEST

/* busbw of a long ring all_reduce: the link's payload rate for SM packets
 * (128 of 144 B), half of it with LL, 120/128 of it with LL128. */
START_TEST(ring_busbw_is_link_bandwidth)
{
    const uint32_t n = 8;
    const uint64_t S = UINT64_C(256) << 20;
    static const struct {
        CollProto proto;
        double efficiency;
    } cases[] = {
        {COLL_PROTO_SIMPLE, 1.0},
        {COLL_PROTO_LL, 0.5},
        {COLL_PROTO_LL128, 120.0 / 128.0},
    };
    Xbar x;
    xbar_init(&x, n);
    double link = (double)RATE * 128.0 / (128.0 + HEADER);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        CollExecResult r = xbar_run(&x, coll_build_ring, COLL_OP_ALL_REDUCE, COLL_ALGO_RING,
                                    cases[i].proto, S, 1 << 20, 8, NET_FIDELITY_FLOW, NULL);
        double busbw = (double)S / ((double)r.time_ps / 1e12) * 2 * (n - 1) / n;
        double expect = link * cases[i].efficiency;
        ck_assert_msg(fabs(busbw - expect) / expect < 0.01, "%s: busbw %.3f GB/s, expected %.3f",
                      coll_proto_name(cases[i].proto), busbw / 1e9, expect / 1e9);
    }
    xbar_clear(&x);
}
END_TEST

/* Tree on one node is a chain 0-1-...-(n-1) rooted at 0: reduce up, then
 * broadcast down; the ends send S once, the middle twice. NVLS: each rank
 * sends its copy of every segment (S) and its own reduced segment to
 * multicast (S/n). */
START_TEST(tree_and_nvls_traffic)
{
    const uint32_t n = 4;
    const uint64_t S = 4 * 128 * 64;
    Xbar x;
    xbar_init(&x, n);
    uint64_t sent[16];
    xbar_run(&x, coll_build_tree, COLL_OP_ALL_REDUCE, COLL_ALGO_TREE, COLL_PROTO_SIMPLE, S, S, 1,
             NET_FIDELITY_FLOW, sent);
    ck_assert_uint_eq(sent[0], S);     /* root: down to rank 1 */
    ck_assert_uint_eq(sent[1], 2 * S); /* up to 0, down to 2 */
    ck_assert_uint_eq(sent[n - 1], S); /* leaf: up only */
    xbar_run(&x, coll_build_nvls, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, S, S, 1,
             NET_FIDELITY_FLOW, sent);
    for (uint32_t r = 0; r < n; r++)
        ck_assert_uint_eq(sent[r], S + S / n);
    xbar_clear(&x);
}
END_TEST

/* Nodes of different sizes (4 + 3 ranks on the crossbar, as NCCL counts a
 * rack of 72 and one of 56): the ring runs node by node, node 0's last
 * rank to node 1's first (connect.cc:104-109), each node's chain its own;
 * on the crossbar every hop is alike, so the ring is the one-node closed
 * form, 2(n-1) steps of S/n. The tree (one channel): chains 0-1-2-3 and
 * 4-5-6, node 1's head 4 a child of node 0's head 0. */
START_TEST(nodes_of_different_sizes)
{
    const uint32_t n = 7, sizes[] = {4, 3};
    const uint64_t S = 7 * 128 * 64;
    Xbar x;
    xbar_init(&x, n);
    xbar_split(&x, sizes, 2);
    ck_assert_uint_eq(coll_comm_node(&x.comm, 3), 0);
    ck_assert_uint_eq(coll_comm_node(&x.comm, 4), 1);
    ck_assert_uint_eq(coll_comm_node_ranks(&x.comm, 1), 3);
    uint64_t sent[16];
    CollExecResult ring = xbar_run(&x, coll_build_ring, COLL_OP_ALL_REDUCE, COLL_ALGO_RING,
                                   COLL_PROTO_SIMPLE, S, S / n, 1, NET_FIDELITY_FLOW, sent);
    ck_assert_uint_eq(ring.time_ps, 2 * (n - 1) * (transfer_ps(S / n, 1.0) + flag_ps()));
    for (uint32_t r = 0; r < n; r++)
        ck_assert_uint_eq(sent[r], 2 * (n - 1) * S / n);
    xbar_run(&x, coll_build_tree, COLL_OP_ALL_REDUCE, COLL_ALGO_TREE, COLL_PROTO_SIMPLE, S, S, 1,
             NET_FIDELITY_FLOW, sent);
    static const uint64_t times_s[] = {2, 2, 2, 1, 2, 2, 1}; /* the root: down to 1 and 4 */
    for (uint32_t r = 0; r < n; r++)
        ck_assert_msg(sent[r] == times_s[r] * S, "rank %u sent %" G_GUINT64_FORMAT, r, sent[r]);
    xbar_clear(&x);
}
END_TEST

/* The same schedules at packet and flow fidelity, bandwidth-bound. */
START_TEST(packet_and_flow_agree)
{
    static const struct {
        BuildFn build;
        CollAlgo algo;
        CollProto proto;
    } cases[] = {
        {coll_build_ring, COLL_ALGO_RING, COLL_PROTO_SIMPLE},
        {coll_build_ring, COLL_ALGO_RING, COLL_PROTO_LL128},
        {coll_build_tree, COLL_ALGO_TREE, COLL_PROTO_SIMPLE},
        {coll_build_nvls, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE},
    };
    Xbar x;
    xbar_init(&x, 8);
    const uint64_t S = UINT64_C(128) << 20;
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        CollExecResult p = xbar_run(&x, cases[i].build, COLL_OP_ALL_REDUCE, cases[i].algo,
                                    cases[i].proto, S, 1 << 20, 4, NET_FIDELITY_PACKET, NULL);
        CollExecResult f = xbar_run(&x, cases[i].build, COLL_OP_ALL_REDUCE, cases[i].algo,
                                    cases[i].proto, S, 1 << 20, 4, NET_FIDELITY_FLOW, NULL);
        double diff = fabs((double)p.time_ps - (double)f.time_ps) / (double)f.time_ps;
        ck_assert_msg(diff <= 0.02, "%s/%s: packet %.2f us, flow %.2f us",
                      coll_algo_name(cases[i].algo), coll_proto_name(cases[i].proto),
                      (double)p.time_ps / 1e6, (double)f.time_ps / 1e6);
    }
    xbar_clear(&x);
}
END_TEST

/* Two GPUs that each wait to receive before they send: the run cannot
 * finish, and says where each program stands instead of aborting. */
START_TEST(deadlock_is_reported)
{
    Xbar x;
    xbar_init(&x, 2);
    CollExec *ex = coll_exec_new(x.graph, x.router, NULL, COLL_PROTO_SIMPLE, 1, 0, 0);
    uint32_t p0 = coll_exec_participant(ex, x.vertex[0]),
             p1 = coll_exec_participant(ex, x.vertex[1]);
    uint32_t to1 = coll_exec_connection(ex, p0, p1, 2, 1.0);
    uint32_t to0 = coll_exec_connection(ex, p1, p0, 2, 1.0);
    uint32_t g0 = coll_exec_program(ex, p0), g1 = coll_exec_program(ex, p1);
    coll_exec_op(ex, g0, &to0, 1, &to1, 1, 4096, 0);
    coll_exec_op(ex, g1, &to1, 1, &to0, 1, 4096, 0);
    for (int f = 0; f < 2; f++) {
        CollExecResult result;
        g_autoptr(GError) error = NULL;
        ck_assert(!coll_exec_run(ex, f ? NET_FIDELITY_PACKET : NET_FIDELITY_FLOW, &result, &error));
        ck_assert(g_error_matches(error, SIM_ERROR, SIM_ERROR_STALLED));
        static const char *const parts[] = {
            "the collective stalled at 0.000 us (a deadlock: no event left), 2 of 2 programs",
            "program 0 on gpu 0 at operation 1 of 1 waits for a message from gpu 1 (0 sent, 0 "
            "seen, 0 taken)",
            "program 1 on gpu 1 at operation 1 of 1 waits for a message from gpu 0"};
        for (size_t i = 0; i < G_N_ELEMENTS(parts); i++)
            ck_assert_msg(strstr(error->message, parts[i]) != NULL, "'%s' lacks '%s'",
                          error->message, parts[i]);
    }
    coll_exec_free(ex);
    xbar_clear(&x);
}
END_TEST

Suite *
coll_exec_suite(void)
{
    Suite *s = suite_create("coll-exec");
    TCase *tc = tcase_create("crossbar");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, ring_all_reduce_closed_form);
    tcase_add_test(tc, ring_all_gather_and_reduce_scatter);
    tcase_add_test(tc, ring_busbw_is_link_bandwidth);
    tcase_add_test(tc, tree_and_nvls_traffic);
    tcase_add_test(tc, nodes_of_different_sizes);
    tcase_add_test(tc, packet_and_flow_agree);
    tcase_add_test(tc, deadlock_is_reported);
    suite_add_tcase(s, tc);
    return s;
}
