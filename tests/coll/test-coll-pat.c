/* SPDX-License-Identifier: Apache-2.0 */
/* PAT (coll-build-pat.c) against counts and closed forms worked by hand,
 * NCCL's choice of it, and --gpus-per-node's placement.
 *
 * On the ideal crossbar (coll-xbar.h) each GPU stands for a node of one
 * GPU: a communicator of n ranks, one per node, so that PAT runs. One
 * channel, no CTA cap, no step overhead, Simple (each send waits for its
 * data to land, then its flag). */
#include <math.h>

#include "coll-suites.h"
#include "coll-xbar.h"
#include "coll/coll-build.h"
#include "core/core-time.h"
#include "hw/hw-models.h"
#include "topo/topo-build.h"

/* Runs op with PAT on n crossbar GPUs as n nodes of one: chunk bytes a
 * chunk, one channel; the result, and each rank's sent and received
 * bytes into sent[], received[] (may be NULL). */
static CollExecResult
pat_run(uint32_t n, CollOp op, uint64_t n_bytes, uint64_t chunk, NetFidelity fidelity,
        uint64_t *sent, uint64_t *received)
{
    Xbar x;
    xbar_init(&x, n);
    x.comm.n_nodes = n;
    x.comm.ppn = 1;
    CollCall call = {.op = op, .n_bytes = n_bytes, .elem_bytes = 4};
    CollBuild b = {
        .comm = &x.comm, .call = &call, .algo = COLL_ALGO_PAT, .proto = COLL_PROTO_SIMPLE};
    b.plan = (CollTunePlan){
        .n_channels = 1, .chunk_bytes = chunk, .slice_bytes = chunk, .slices_in_flight = 8};
    b.ex = coll_exec_new(x.graph, x.router, NULL, COLL_PROTO_SIMPLE, 1, 0, 0);
    uint32_t parts[XBAR_MAX_GPUS];
    for (uint32_t r = 0; r < n; r++)
        parts[r] = coll_exec_participant(b.ex, x.vertex[r]);
    b.rank_part = parts;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(coll_build_pat(&b, &error), "%s", error ? error->message : "");
    CollExecResult result;
    ck_assert_msg(coll_exec_run(b.ex, fidelity, &result, &error), "%s",
                  error ? error->message : "");
    for (uint32_t r = 0; sent != NULL && r < n; r++)
        coll_exec_participant_bytes(b.ex, parts[r], &sent[r], &received[r]);
    coll_exec_free(b.ex);
    xbar_clear(&x);
    return result;
}

/* The aggregation NCCL's constructors compute (collectives.h:792-815):
 * postFreq doubles while a chunk holds twice the channel's data that many
 * times and it is below n/2; aggFactor doubles on, log2 NCCL_STEPS = 3
 * times at most, below n/2 too; the parallel factor is postFreq, at most
 * 512 / 32 = 16 worker groups. */
START_TEST(pat_params_are_nccls)
{
    static const struct {
        uint32_t n;
        uint64_t chunk, channel;
        CollPatParams want;
    } cases[] = {
        {8, 1 << 20, 4 << 20, {3, 1, 4, 1}},  /* big: no aggregation; 8 -> 4 (n/2) */
        {32, 1 << 20, 1 << 20, {5, 1, 8, 1}}, /* 1 x 2 x 2 x 2: NCCL_STEPS' three halvings */
        {8, 65536, 32768, {3, 2, 4, 2}},      /* 64K / 32K = 2: postFreq 2, then 4 = n/2 */
        {64, 524288, 4096, {6, 32, 32, 16}},  /* 128 / 2^k >= 2 up to 32 = n/2; 16 groups */
        {5, 1 << 20, 1 << 20, {3, 1, 2, 1}},  /* 5 / 2 = 2 bounds both */
        {2, 1 << 20, 1024, {1, 1, 1, 1}},     /* n / 2 = 1: nothing to aggregate */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        CollPatParams p;
        coll_pat_params(cases[i].n, cases[i].chunk, cases[i].channel, &p);
        ck_assert_msg(
            p.n_dims == cases[i].want.n_dims && p.post_pieces == cases[i].want.post_pieces &&
                p.agg_pieces == cases[i].want.agg_pieces && p.parallel == cases[i].want.parallel,
            "case %zu: n %u: dims %u post %u agg %u parallel %u", i, cases[i].n, p.n_dims,
            p.post_pieces, p.agg_pieces, p.parallel);
    }
}
END_TEST

/* Bytes and messages by hand. all_gather of S on n ranks: every rank
 * receives the n-1 other ranks' S/n once and sends as many pieces (each
 * offset s in 1..n-1 is sent once, on the dim of its lowest set bit), so
 * sent = received = (n-1) S/n per rank, as for a ring. Messages: big
 * pieces go one a message, n (n-1) per chunk; with 32 KiB a rank and
 * 64 KiB chunks on 8 ranks postFreq is 2 (pat_params_are_nccls): dim 2
 * carries offset 4 (one message), dim 1 offsets 2 and 6 (one), dim 0
 * 1, 3, 5, 7 (two): 4 messages a rank. reduce_scatter mirrors it. */
START_TEST(pat_bytes_and_messages_by_hand)
{
    static const struct {
        uint32_t n;
        uint64_t per_rank, chunk, messages;
    } cases[] = {
        {8, 1 << 20, 1 << 20, 8 * 7},       /* one chunk, one piece a message */
        {8, 1 << 20, 256 << 10, 4 * 8 * 7}, /* four chunks */
        {5, 1 << 20, 1 << 20, 5 * 4},       /* not a power of two */
        {8, 32 << 10, 64 << 10, 8 * 4},     /* aggregated two pieces a message */
        {16, 1 << 20, 1 << 20, 16 * 15},
    };
    static const CollOp ops[] = {COLL_OP_ALL_GATHER, COLL_OP_REDUCE_SCATTER};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        for (size_t o = 0; o < G_N_ELEMENTS(ops); o++) {
            uint32_t n = cases[i].n;
            uint64_t sent[XBAR_MAX_GPUS], received[XBAR_MAX_GPUS];
            CollExecResult r = pat_run(n, ops[o], cases[i].per_rank * n, cases[i].chunk,
                                       NET_FIDELITY_FLOW, sent, received);
            for (uint32_t k = 0; k < n; k++) {
                ck_assert_uint_eq(sent[k], (n - 1) * cases[i].per_rank);
                ck_assert_uint_eq(received[k], (n - 1) * cases[i].per_rank);
            }
            ck_assert_msg(r.n_messages == cases[i].messages,
                          "case %zu %s: %" G_GUINT64_FORMAT
                          " messages, expected %" G_GUINT64_FORMAT,
                          i, coll_op_name(ops[o]), r.n_messages, cases[i].messages);
            ck_assert_uint_eq(r.net.payload_bytes_delivered,
                              (uint64_t)n * (n - 1) * cases[i].per_rank);
        }
}
END_TEST

/* A transfer of b bytes GPU-switch-GPU at flow fidelity (test-coll-exec's
 * form): the wire with headers, one more packet, two links and the switch;
 * and a flag, two small writes' worth of the same path. */
static uint64_t
xbar_transfer_ps(uint64_t b)
{
    uint64_t n_packets = (b + 127) / 128, pkt = MIN(b, 128);
    return sim_serialization_ps(b + n_packets * XBAR_HEADER, XBAR_RATE) +
           sim_serialization_ps(pkt + XBAR_HEADER, XBAR_RATE) + 2 * XBAR_LAT + XBAR_SW_LAT;
}

/* all_gather with one piece a rank (one chunk, postFreq 1): every rank
 * sends its n-1 pieces one after another, each waiting for its data to
 * land (Simple's fence), while what it forwards has long arrived: the
 * last send of rank r at n = 8 forwards offset 6, received by its third
 * send (pieces 4; 2, 6; 1, 3, 5, 7). Each send is alone on its links (a
 * rank's one send goes to one rank, every rank a different one). The last
 * piece lands after (n-1) transfers; its receiver sees it a flag later:
 * T = (n-1) x transfer(S/n) + flag, to the picosecond. */
START_TEST(pat_all_gather_closed_form)
{
    static const uint32_t ns[] = {2, 4, 8, 16};
    for (size_t i = 0; i < G_N_ELEMENTS(ns); i++) {
        uint32_t n = ns[i];
        uint64_t piece = 65536;
        CollExecResult r =
            pat_run(n, COLL_OP_ALL_GATHER, piece * n, piece, NET_FIDELITY_FLOW, NULL, NULL);
        uint64_t flag =
            2 * sim_serialization_ps(8 + XBAR_HEADER, XBAR_RATE) + 2 * XBAR_LAT + XBAR_SW_LAT;
        uint64_t want = (n - 1) * xbar_transfer_ps(piece) + flag;
        ck_assert_msg(r.time_ps == want,
                      "n %u: %" G_GUINT64_FORMAT " ps, expected %" G_GUINT64_FORMAT, n, r.time_ps,
                      want);
    }
}
END_TEST

/* NCCL's rule (tuning.cc:215-223, :295-303): PAT for all_gather and
 * reduce_scatter, Simple, SM60+, one GPU per node. Its latency
 * (tuning.cc:429-434): base 8 us (:154) + log2(nodes) x (14 us, the NET
 * tree Simple latency with ppn 1 (:174, :391) / 3.5) + ranks x 2.8 us; 8
 * nodes of one H100: 8 + 3 x 4 + 22.4 = 42.4 us. With 1 MiB all_gather
 * NCCL takes it over the ring (whose latency alone is 7 net steps).
 * Two GPUs a node: no PAT. */
START_TEST(pat_nccl_picks_it_one_gpu_per_node)
{
    g_autoptr(HwSystem) sys = coll_test_load_system("dgx-h100");
    CollTopoInfo info;
    coll_tune_info(sys, 8, 8, &info);
    double lat = coll_tune_time_us(&info, COLL_OP_ALL_GATHER, COLL_ALGO_PAT, COLL_PROTO_SIMPLE, 0);
    ck_assert_msg(fabs(lat - 42.4) < 1e-4, "PAT latency %.6f us", lat);
    ck_assert(coll_tune_time_us(&info, COLL_OP_ALL_GATHER, COLL_ALGO_PAT, COLL_PROTO_LL, 0) < 0);
    ck_assert(coll_tune_time_us(&info, COLL_OP_ALL_REDUCE, COLL_ALGO_PAT, COLL_PROTO_SIMPLE, 0) <
              0);
    CollAlgo algo = COLL_ALGO_AUTO;
    CollProto proto = COLL_PROTO_AUTO;
    ck_assert(coll_tune_select(&info, COLL_OP_ALL_GATHER, 1 << 20, &algo, &proto));
    ck_assert_int_eq(algo, COLL_ALGO_PAT);
    ck_assert_int_eq(proto, COLL_PROTO_SIMPLE);
    coll_tune_info(sys, 16, 8, &info);
    ck_assert(coll_tune_time_us(&info, COLL_OP_ALL_GATHER, COLL_ALGO_PAT, COLL_PROTO_SIMPLE,
                                1 << 20) < 0);
}
END_TEST

/* --gpus-per-node's placement (coll_comm_new_local with GPUs 0..K-1):
 * 4 ranks, 1 a node, on GPU 0 of nodes 0-3 (global 0, 8, 16, 24 of
 * DGX H100's 8 a node); 8 ranks, 2 a node: GPUs 0 and 1 of each. PAT
 * runs on the first and not on the second. */
START_TEST(gpus_per_node_places_the_first_of_each_node)
{
    g_autoptr(HwSystem) sys = coll_test_load_system("dgx-h100");
    g_autoptr(GError) error = NULL;
    TopoGraph *graph = topo_build_system(sys, 4, &error);
    ck_assert_msg(graph != NULL, "%s", error ? error->message : "");
    TopoRouter *router = topo_router_new(graph);
    static const uint32_t local[] = {0, 1};
    for (uint32_t k = 1; k <= 2; k++) {
        CollComm *comm = coll_comm_new_local(sys, graph, router, local, k, 4, NULL, &error);
        ck_assert_msg(comm != NULL, "%s", error ? error->message : "");
        ck_assert_uint_eq(comm->n_ranks, 4 * k);
        ck_assert_uint_eq(comm->n_nodes, 4);
        ck_assert_uint_eq(comm->ppn, k);
        for (uint32_t r = 0; r < comm->n_ranks; r++)
            ck_assert_uint_eq(comm->rank_vertex[r],
                              topo_graph_gpu_vertex(graph, (r / k) * 8 + r % k));
        CollCall call = {.op = COLL_OP_ALL_GATHER,
                         .n_bytes = 1 << 20,
                         .elem_bytes = 4,
                         .algo = COLL_ALGO_PAT,
                         .proto = COLL_PROTO_SIMPLE};
        CollResult res;
        bool ran = coll_run(comm, &call, NET_FIDELITY_FLOW, &res, &error);
        ck_assert_msg(ran == (k == 1), "%u a node: %s", k, error ? error->message : "ran");
        g_clear_error(&error);
        coll_comm_free(comm);
    }
    topo_router_free(router);
    topo_graph_free(graph);
}
END_TEST

Suite *
coll_pat_suite(void)
{
    Suite *s = suite_create("coll-pat");
    TCase *tc = tcase_create("pat");
    tcase_add_test(tc, pat_params_are_nccls);
    tcase_add_test(tc, pat_bytes_and_messages_by_hand);
    tcase_add_test(tc, pat_all_gather_closed_form);
    tcase_add_test(tc, pat_nccl_picks_it_one_gpu_per_node);
    tcase_add_test(tc, gpus_per_node_places_the_first_of_each_node);
    suite_add_tcase(s, tc);
    return s;
}
