/* SPDX-License-Identifier: Apache-2.0 */
/* Collectives on jobs that take part of an NVLink domain (topo-place.h):
 * 16 trays of a GB200 NVL72 rack are one NCCL node of 64 ranks (multi-node
 * NVLink: one clique), two racks of 16 trays two nodes. Each shape runs as
 * it does on the rack narrowed to the trays it takes (hw_system_partition,
 * which training runs on), to the picosecond, and moves the bytes its
 * schedule says: a ring 2(n-1)/n of the buffer a rank, NVLS the buffer and
 * a rank's share, NVLS-tree as much again over a head's NIC. A job of a
 * full rack and 14 trays of another (72 + 56) is two NCCL nodes of
 * different sizes, which NCCL runs without a fallback. */
#include <string.h>

#include "coll-suites.h"
#include "coll/coll-build.h"
#include "coll/coll-run.h"
#include "topo/topo-build.h"
#include "topo/topo-place.h"
#include "topo/topo-route.h"

typedef struct Job {
    HwSystem *system;
    TopoGraph *graph;
    TopoRouter *router;
    CollComm *comm;
} Job;

/* ask placed on system id's whole domains (hosts_per_domain 0), or the
 * same GPUs as every GPU of the domains narrowed to that many hosts. */
static void
job_init(Job *j, const char *id, TopoPlaceAsk ask, uint32_t hosts_per_domain)
{
    g_autoptr(GError) error = NULL;
    j->system = coll_test_load_system(id);
    g_auto(TopoPlace) place = {0};
    TopoPlaceField bad;
    ck_assert_msg(topo_place(j->system, &ask, &place, &bad, &error), "%s",
                  error ? error->message : "");
    if (hosts_per_domain != 0)
        hw_system_partition(j->system, hosts_per_domain);
    j->graph = topo_build_system(j->system, place.n_domains, &error);
    ck_assert_msg(j->graph != NULL, "%s", error ? error->message : "");
    j->router = topo_router_new(j->graph);
    j->comm =
        hosts_per_domain != 0
            ? coll_comm_new(j->system, j->graph, j->router, place.n_gpus, &error)
            : coll_comm_new_local(j->system, j->graph, j->router, place.local, place.per_domain,
                                  place.n_domains, place.domain_ranks, &error);
    ck_assert_msg(j->comm != NULL, "%s", error ? error->message : "");
}

static void
job_clear(Job *j)
{
    coll_comm_free(j->comm);
    topo_router_free(j->router);
    topo_graph_free(j->graph);
    hw_system_free(j->system);
}

/* The simulated time of call on comm, NCCL's choices unless forced. */
static CollResult
run_call(const CollComm *comm, CollOp op, CollAlgo algo, uint64_t n_bytes)
{
    CollCall call = {.op = op, .n_bytes = n_bytes, .elem_bytes = 4, .algo = algo};
    CollResult r;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(coll_run(comm, &call, NET_FIDELITY_FLOW, &r, &error), "%s",
                  error ? error->message : "");
    return r;
}

/* 64 GPUs on 16 trays: one NCCL node of 64 ranks on 16 hosts, 4 a host;
 * NCCL's model runs NVLS for a large all_reduce, as in one whole rack. */
START_TEST(sixteen_trays_are_one_node)
{
    Job j;
    job_init(&j, "gb200-nvl72", (TopoPlaceAsk){.n_gpus = 64, .n_hosts = 16}, 0);
    ck_assert_uint_eq(j.comm->n_nodes, 1);
    ck_assert_uint_eq(j.comm->ppn, 64);
    ck_assert_uint_eq(j.comm->n_hosts, 16);
    ck_assert_uint_eq(coll_comm_ranks_per_host(j.comm), 4);
    CollAlgo algo = COLL_ALGO_AUTO;
    CollProto proto = COLL_PROTO_AUTO;
    ck_assert(
        coll_tune_select(&j.comm->info, COLL_OP_ALL_REDUCE, UINT64_C(1) << 30, &algo, &proto));
    ck_assert_int_eq(algo, COLL_ALGO_NVLS);
    job_clear(&j);
}
END_TEST

/* A ring over the 16 trays: each rank sends 2(n-1)/n of the buffer (each
 * message to the 18 switch planes rounded up to whole bytes a plane), and
 * the call takes the same picoseconds as on the rack narrowed to 16
 * trays; so do NVLS and NCCL's choice. */
START_TEST(ring_and_nvls_over_sixteen_trays)
{
    Job placed, narrowed;
    TopoPlaceAsk ask = {.n_gpus = 64, .n_hosts = 16};
    job_init(&placed, "gb200-nvl72", ask, 0);
    job_init(&narrowed, "gb200-nvl72", ask, 16);
    const uint32_t n = 64;
    const uint64_t S = (uint64_t)n * 2 * 64 * 1024; /* 2 channels, whole chunks a rank */
    uint64_t sent[64], received[64];
    coll_test_all_reduce(placed.comm, coll_build_ring, COLL_ALGO_RING, S, 2, 64 * 1024,
                         NET_FIDELITY_FLOW, sent, received);
    uint64_t messages = 2 * 2 * (n - 1), slack = 18 * messages;
    for (uint32_t r = 0; r < n; r++) {
        ck_assert_uint_ge(sent[r], 2 * (n - 1) * (S / n));
        ck_assert_uint_le(sent[r] - 2 * (n - 1) * (S / n), slack);
        ck_assert_uint_ge(received[r], 2 * (n - 1) * (S / n));
    }
    static const CollAlgo algos[] = {COLL_ALGO_RING, COLL_ALGO_NVLS, COLL_ALGO_AUTO};
    for (size_t i = 0; i < G_N_ELEMENTS(algos); i++) {
        CollResult a = run_call(placed.comm, COLL_OP_ALL_REDUCE, algos[i], UINT64_C(64) << 20);
        CollResult b = run_call(narrowed.comm, COLL_OP_ALL_REDUCE, algos[i], UINT64_C(64) << 20);
        ck_assert_int_eq(a.algo, b.algo);
        ck_assert_msg(a.time_ps == b.time_ps,
                      "%s: %" G_GUINT64_FORMAT " ps on the rack, %" G_GUINT64_FORMAT " narrowed",
                      coll_algo_name(a.algo), a.time_ps, b.time_ps);
    }
    job_clear(&placed);
    job_clear(&narrowed);
}
END_TEST

/* An NVLS all_reduce of S = 256 KiB a rank on comm, one chunk: each rank
 * sends its copy of the buffer and its reduced share to multicast, S +
 * S/n, and receives the reduced share and the whole result, each message
 * to the 18 switch planes rounded up to whole bytes a plane. */
static void
nvls_bytes_by_hand(const CollComm *comm)
{
    const uint32_t n = comm->n_ranks;
    const uint64_t S = (uint64_t)n * 256 * 1024;
    g_autofree uint64_t *sent = g_new(uint64_t, n);
    g_autofree uint64_t *received = g_new(uint64_t, n);
    coll_test_all_reduce(comm, coll_build_nvls, COLL_ALGO_NVLS, S, 1, S, NET_FIDELITY_FLOW, sent,
                         received);
    uint64_t slack = 18 * 2 * n;
    for (uint32_t r = 0; r < n; r++) {
        ck_assert_uint_ge(sent[r], S + S / n);
        ck_assert_uint_le(sent[r] - (S + S / n), slack);
        ck_assert_uint_ge(received[r], S + S / n);
        ck_assert_uint_le(received[r] - (S + S / n), slack);
    }
}

/* NVLS inside the 64-GPU domain: each rank sends its copy of the buffer
 * and its reduced share to multicast, S + S/64, and receives the reduced
 * share and the whole result, as on a whole rack with 64 in place of 72. */
START_TEST(nvls_in_a_sixty_four_gpu_domain)
{
    Job j;
    job_init(&j, "gb200-nvl72", (TopoPlaceAsk){.n_gpus = 64, .n_hosts = 16}, 0);
    nvls_bytes_by_hand(j.comm);
    job_clear(&j);
}
END_TEST

/* Two racks of 16 trays (2 x 64): two NCCL nodes of 64; NCCL's model runs
 * NVLS-tree for a large all_reduce; a head sends its share again over its
 * tray's NIC, a GPU that is no head only its copy of the buffer; the
 * same picoseconds as on two racks narrowed to 16 trays. */
START_TEST(nvls_tree_on_two_racks_of_sixty_four)
{
    Job placed, narrowed;
    TopoPlaceAsk ask = {.n_gpus = 128, .n_hosts = 32};
    job_init(&placed, "gb300-nvl72", ask, 0);
    job_init(&narrowed, "gb300-nvl72", ask, 16);
    ck_assert_uint_eq(placed.comm->n_nodes, 2);
    ck_assert_uint_eq(placed.comm->ppn, 64);
    ck_assert_uint_eq(placed.comm->n_hosts, 32);
    CollAlgo algo = COLL_ALGO_AUTO;
    CollProto proto = COLL_PROTO_AUTO;
    ck_assert(
        coll_tune_select(&placed.comm->info, COLL_OP_ALL_REDUCE, UINT64_C(1) << 30, &algo, &proto));
    ck_assert_int_eq(algo, COLL_ALGO_NVLS_TREE);
    CollTuneGraph g;
    coll_tune_graph(&placed.comm->info, COLL_ALGO_NVLS, &g);
    uint32_t heads = g.n_channels;
    const uint64_t S = (uint64_t)heads * 2 * 256 * 1024;
    uint64_t sent[128], received[128];
    coll_test_all_reduce(placed.comm, coll_build_nvls_tree, COLL_ALGO_NVLS_TREE, S, 2, 256 * 1024,
                         NET_FIDELITY_FLOW, sent, received);
    uint32_t n_heads = 0;
    for (uint32_t r = 0; r < 128; r++) {
        uint32_t local = r % 64;
        bool head = false;
        for (uint32_t h = 0; h < heads; h++)
            head = head || local == h * 64 / heads;
        n_heads += head;
        uint64_t expect = S + (head ? 2 * S / heads : 0), slack = 18 * 2 * (S / (256 * 1024));
        ck_assert_uint_ge(sent[r], expect);
        ck_assert_uint_le(sent[r] - expect, slack);
    }
    ck_assert_uint_eq(n_heads, 2 * heads);
    CollResult a = run_call(placed.comm, COLL_OP_ALL_REDUCE, COLL_ALGO_AUTO, UINT64_C(256) << 20);
    CollResult b = run_call(narrowed.comm, COLL_OP_ALL_REDUCE, COLL_ALGO_AUTO, UINT64_C(256) << 20);
    ck_assert_int_eq(a.algo, COLL_ALGO_NVLS_TREE);
    ck_assert_uint_eq(a.time_ps, b.time_ps);
    job_clear(&placed);
    job_clear(&narrowed);
}
END_TEST

/* 72 + 56: nodes of 72 and 56 ranks on 32 trays. NCCL's tuner averages
 * ranks per node (nRanks / nNodes = 64, tuning.cc:281) and searches as the
 * smaller node allows (the minimum over nodes, init.cc:1439-1445). A ring
 * sends 2(n-1)/n of the buffer a rank (and a channel's again where it
 * relays between nodes), and takes the same picoseconds with
 * the racks the other way round (56 + 72: the same cycle). NVLS-tree keeps
 * as many heads a node as the smaller has (connect.cc:433-441), spread
 * over each node's ranks; NCCL's choice runs. */
START_TEST(a_rack_and_fourteen_trays)
{
    static const uint32_t racks[] = {18, 14}, turned[] = {14, 18};
    Job j, t;
    job_init(&j, "gb200-nvl72", (TopoPlaceAsk){.n_domains = 2, .domain_hosts = racks}, 0);
    job_init(&t, "gb200-nvl72", (TopoPlaceAsk){.n_domains = 2, .domain_hosts = turned}, 0);
    const CollComm *c = j.comm;
    ck_assert_uint_eq(c->n_ranks, 128);
    ck_assert_uint_eq(c->n_nodes, 2);
    ck_assert(!c->even);
    ck_assert_uint_eq(c->ppn, 72);
    ck_assert_uint_eq(coll_comm_node_ranks(c, 1), 56);
    ck_assert_uint_eq(coll_comm_node(c, 71), 0);
    ck_assert_uint_eq(coll_comm_node(c, 72), 1);
    ck_assert_uint_eq(c->n_hosts, 32);
    ck_assert_uint_eq(coll_comm_ranks_per_host(c), 4);
    ck_assert_uint_eq(c->info.ppn, 64);
    ck_assert_uint_eq(c->info.node_ranks, 56);
    ck_assert_uint_eq(c->info.max_node_ranks, 72);
    const uint32_t n = 128;
    const uint64_t S = (uint64_t)n * 2 * 64 * 1024;
    uint64_t sent[128], received[128];
    coll_test_all_reduce(c, coll_build_ring, COLL_ALGO_RING, S, 2, 64 * 1024, NET_FIDELITY_FLOW,
                         sent, received);
    /* Channel c enters each node at its local rank c and leaves from the
     * one before; the hop between nodes goes through the leaving node's
     * GPU on the entry's rail (PXN), which forwards that channel's ring
     * bytes: ranks 0 and 72 for channel 0, 1 and 73 for channel 1. */
    uint64_t slack = 18 * 2 * 2 * (n - 1), ring = 2 * (n - 1) * (S / n);
    for (uint32_t r = 0; r < n; r++) {
        bool relay = r == 0 || r == 1 || r == 72 || r == 73;
        uint64_t expect = ring + (relay ? ring / 2 : 0);
        ck_assert_uint_ge(sent[r], expect);
        ck_assert_msg(sent[r] - expect <= slack, "rank %u sent %" G_GUINT64_FORMAT, r, sent[r]);
        ck_assert_uint_ge(received[r], expect);
    }
    CollResult a = run_call(j.comm, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, UINT64_C(64) << 20);
    CollResult b = run_call(t.comm, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, UINT64_C(64) << 20);
    ck_assert_msg(a.time_ps == b.time_ps, "%" G_GUINT64_FORMAT " ps, %" G_GUINT64_FORMAT " turned",
                  a.time_ps, b.time_ps);
    CollTuneGraph g;
    coll_tune_graph(&c->info, COLL_ALGO_NVLS, &g);
    uint32_t heads = g.n_channels;
    ck_assert_uint_ge(heads, 2);
    const uint64_t T = (uint64_t)heads * 2 * 256 * 1024;
    coll_test_all_reduce(c, coll_build_nvls_tree, COLL_ALGO_NVLS_TREE, T, 2, 256 * 1024,
                         NET_FIDELITY_FLOW, sent, received);
    uint32_t n_heads = 0;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t node = r < 72 ? 0 : 1, local = r - 72 * node, size = node ? 56 : 72;
        bool head = false;
        for (uint32_t h = 0; h < heads; h++)
            head = head || local == h * size / heads;
        n_heads += head;
        uint64_t expect = T + (head ? 2 * T / heads : 0), tslack = 18 * 2 * (T / (256 * 1024));
        ck_assert_uint_ge(sent[r], expect);
        ck_assert_uint_le(sent[r] - expect, tslack);
    }
    ck_assert_uint_eq(n_heads, 2 * heads);
    CollResult auto_run = run_call(c, COLL_OP_ALL_REDUCE, COLL_ALGO_AUTO, UINT64_C(1) << 30);
    ck_assert_int_eq(auto_run.algo, COLL_ALGO_NVLS_TREE);
    job_clear(&j);
    job_clear(&t);
}
END_TEST

/* Nodes of different sizes without NVSwitch (DGX-1 V100's hybrid cube
 * mesh, whose rings NCCL searches node by node): refused, not guessed. */
START_TEST(different_nodes_need_nvswitch)
{
    g_autoptr(GError) error = NULL;
    HwSystem *sys = coll_test_load_system("dgx1-v100");
    TopoGraph *graph = topo_build_system(sys, 2, &error);
    ck_assert_msg(graph != NULL, "%s", error ? error->message : "");
    TopoRouter *router = topo_router_new(graph);
    static const uint32_t gpus[] = {0, 1, 2, 3, 8, 9};
    ck_assert_ptr_null(coll_comm_new_gpus(sys, graph, router, gpus, 6, &error));
    ck_assert_msg(strstr(error->message, "holding different numbers of ranks (2 to 4) are "
                                         "simulated on NVSwitch systems only") != NULL,
                  "%s", error->message);
    topo_router_free(router);
    topo_graph_free(graph);
    hw_system_free(sys);
}
END_TEST

/* 16 DGX H100 nodes on a rail-only fabric (each rail its own network):
 * a ring enters and leaves every node on one rail (PXN where the next
 * node's first rank is on another), so it never needed the spine, and it
 * takes the same picoseconds as on the rail-optimized fat tree; alltoall
 * crosses rails over NVLink and runs. */
START_TEST(rail_only_ring_as_fat_tree)
{
    g_autofree char *models = coll_test_models_dir();
    g_autofree char *dgx = g_strdup_printf("%s/system/dgx-h100.ini", models);
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(dgx, &text, NULL, NULL));
    g_autofree char *data = g_strconcat(text, "\nrail_only = yes\n", NULL);
    g_autoptr(GError) error = NULL;
    Job fat, ro;
    job_init(&fat, "dgx-h100", (TopoPlaceAsk){.n_gpus = 128}, 0);
    ro.system = hw_system_load_data(data, (gsize)-1, "dgx-h100-ro.ini", models, &error);
    ck_assert_msg(ro.system != NULL, "%s", error ? error->message : "");
    ro.graph = topo_build_system(ro.system, 16, &error);
    ck_assert_msg(ro.graph != NULL, "%s", error ? error->message : "");
    ro.router = topo_router_new(ro.graph);
    ro.comm = coll_comm_new(ro.system, ro.graph, ro.router, 128, &error);
    ck_assert_msg(ro.comm != NULL, "%s", error ? error->message : "");
    CollResult a = run_call(fat.comm, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, UINT64_C(256) << 20);
    CollResult b = run_call(ro.comm, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, UINT64_C(256) << 20);
    ck_assert_msg(a.time_ps == b.time_ps,
                  "%" G_GUINT64_FORMAT " ps on the fat tree, %" G_GUINT64_FORMAT " rail-only",
                  a.time_ps, b.time_ps);
    CollResult c = run_call(ro.comm, COLL_OP_ALLTOALL, COLL_ALGO_AUTO, UINT64_C(64) << 20);
    ck_assert_uint_gt(c.time_ps, 0);
    job_clear(&fat);
    job_clear(&ro);
}
END_TEST

/* NVLS across the boards of a two-tier domain (whatif-gb300-nvl144): each
 * plane's spine reduces and multicasts for the 144 ranks, each sending its
 * copy of the buffer and its reduced share, S + S/144, as on one switch
 * tier; NCCL's model picks NVLS for a large all_reduce on it. Eight ranks
 * across two boards (GPUs 32 to 39) run NVLS through the spine, one hop
 * longer each way than eight on one board (GPUs 0 to 7): slower, with the
 * same bytes. */
START_TEST(nvls_across_boards)
{
    Job j;
    job_init(&j, "whatif-gb300-nvl144", (TopoPlaceAsk){.n_gpus = 144}, 0);
    CollAlgo algo = COLL_ALGO_AUTO;
    CollProto proto = COLL_PROTO_AUTO;
    ck_assert(
        coll_tune_select(&j.comm->info, COLL_OP_ALL_REDUCE, UINT64_C(1) << 30, &algo, &proto));
    ck_assert_int_eq(algo, COLL_ALGO_NVLS);
    nvls_bytes_by_hand(j.comm);
    g_autoptr(GError) error = NULL;
    static const uint32_t one_board[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const uint32_t two_boards[] = {32, 33, 34, 35, 36, 37, 38, 39};
    g_autoptr(CollComm) a = coll_comm_new_gpus(j.system, j.graph, j.router, one_board, 8, &error);
    g_autoptr(CollComm) b = coll_comm_new_gpus(j.system, j.graph, j.router, two_boards, 8, &error);
    ck_assert_msg(a != NULL && b != NULL, "%s", error ? error->message : "");
    ck_assert(a->info.nvls && b->info.nvls);
    CollResult ra = run_call(a, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, UINT64_C(8) << 20);
    CollResult rb = run_call(b, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, UINT64_C(8) << 20);
    ck_assert_msg(rb.time_ps > ra.time_ps,
                  "%" G_GUINT64_FORMAT " ps across, %" G_GUINT64_FORMAT " on one board", rb.time_ps,
                  ra.time_ps);
    job_clear(&j);
}
END_TEST

Suite *
coll_place_suite(void)
{
    Suite *s = suite_create("coll-place");
    TCase *tc = tcase_create("place");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, sixteen_trays_are_one_node);
    tcase_add_test(tc, ring_and_nvls_over_sixteen_trays);
    tcase_add_test(tc, nvls_in_a_sixty_four_gpu_domain);
    tcase_add_test(tc, nvls_tree_on_two_racks_of_sixty_four);
    tcase_add_test(tc, a_rack_and_fourteen_trays);
    tcase_add_test(tc, different_nodes_need_nvswitch);
    tcase_add_test(tc, rail_only_ring_as_fat_tree);
    tcase_add_test(tc, nvls_across_boards);
    suite_add_tcase(s, tc);
    return s;
}
