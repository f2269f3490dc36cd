/* SPDX-License-Identifier: Apache-2.0 */
/* coll-tune: NCCL's cost model. The worked example of nccl_model.md §8
 * from the tables; the channel search on the shipped systems against
 * NCCL's logs where there are some; what NCCL disables; the choice on
 * DGX H100, DGX A100 and DGX-1; the chunking of §6; and a self-check of
 * invariants over every shipped system (the choice is the fastest allowed,
 * times grow with size, plans fit the buffers). */
#include <math.h>

#include "coll-suites.h"

#define TOL 1e-9
#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define KIB 1024ull

static const char *const shipped[] = {
    "aws-p5-h100", "aws-p6-b200",     "dgx-a100",  "dgx-b200",  "dgx-h100",
    "dgx-h200",    "dgx1-p100",       "dgx1-v100", "dgx2-v100", "gb200-nvl72",
    "gb300-nvl72", "gcp-a3mega-h100", "gcp-a3ultra-h200", "hgx-b300", "hgx-h800",
};

/* ---- NCCL's view of the systems ---------------------------------------- */

static const struct {
    const char *id;
    uint32_t n_nodes;
    uint32_t sm, arch, scale;
    double nvlink_bw, pci_bw, net_bw; /* NCCL's GB/s */
    bool nvswitch, nvls;
} infos[] = {
    /* 18 x 20.6; Gen5 x16 = 16 x 240 / 80; one 400 Gb/s NIC per GPU */
    {"dgx-h100", 1, 90, 2, 0, 370.8, 48.0, 50.0, true, true},
    {"dgx-h100", 3, 90, 2, 2, 370.8, 48.0, 50.0, true, true},
    {"dgx-a100", 1, 80, 1, 0, 240.0, 24.0, 25.0, true, false},
    /* 4 x 18 (SM60), Gen3 12, one 100 Gb/s NIC per 2 GPUs */
    {"dgx1-p100", 1, 60, 0, 0, 72.0, 12.0, 6.25, false, false},
    {"dgx1-v100", 1, 70, 0, 0, 120.0, 12.0, 6.25, false, false},
    /* 4 x 100 Gb/s EFA per GPU */
    {"aws-p5-h100", 2, 90, 2, 1, 370.8, 48.0, 50.0, true, true},
    {"dgx-b200", 4, 100, 3, 2, 721.8, 48.0, 50.0, true, true},
    {"hgx-h800", 1, 90, 2, 0, 164.8, 48.0, 50.0, true, true},
    {"dgx2-v100", 1, 70, 0, 0, 120.0, 12.0, 6.25, true, false},
    /* C2C host link: the GPU's own Gen6 for pci_bw */
    {"gb200-nvl72", 1, 100, 3, 0, 721.8, 96.0, 50.0, true, true},
    /* Blackwell Ultra, SM 10.3: NCCL's SM100 tables; one 800 Gb/s NIC per GPU */
    {"gb300-nvl72", 1, 103, 3, 0, 721.8, 96.0, 100.0, true, true},
    /* its GPUs and NICs on PCIe Gen6 x16: 16 x 480 / 80 */
    {"hgx-b300", 4, 103, 3, 2, 721.8, 96.0, 100.0, true, true},
};

START_TEST(info_from_systems)
{
    CollTopoInfo info;
    coll_test_info(infos[_i].id, infos[_i].n_nodes, &info);
    const char *id = infos[_i].id;
    ck_assert_msg(info.sm_version == infos[_i].sm && info.arch_index == infos[_i].arch &&
                      info.scale_index == infos[_i].scale,
                  "%s: sm %u arch %u scale %u", id, info.sm_version, info.arch_index,
                  info.scale_index);
    ck_assert_msg(fabs(info.nvlink_bw - infos[_i].nvlink_bw) < 1e-6, "%s: nvlink_bw %g", id,
                  info.nvlink_bw);
    ck_assert_msg(fabs(info.pci_bw - infos[_i].pci_bw) < 1e-6, "%s: pci_bw %g", id, info.pci_bw);
    ck_assert_msg(fabs(info.net_bw - infos[_i].net_bw) < 1e-6, "%s: net_bw %g", id, info.net_bw);
    ck_assert_msg(info.nvswitch == infos[_i].nvswitch && info.nvls == infos[_i].nvls,
                  "%s: nvswitch %d nvls %d", id, info.nvswitch, info.nvls);
    ck_assert_msg(info.nvlink_all_pairs && !info.cpu_amd, "%s: all pairs %d amd %d", id,
                  info.nvlink_all_pairs, info.cpu_amd);
    ck_assert_uint_eq(info.ppn * info.n_nodes, info.n_ranks);
}
END_TEST

/* ---- The channel search -------------------------------------------------- */

static const struct {
    const char *id;
    uint32_t n_nodes;
    CollAlgo algo;
    uint32_t n_channels;
    double bw_intra, bw_inter;
    uint32_t comm_channels; /* 0: not checked */
    const char *why;
} graphs[] = {
    {"dgx-h100", 1, COLL_ALGO_RING, 12, 30, 30, 24,
     "6 x 60 duplicated; '24 coll channels' in NCCL's 8 x H100 logs"},
    {"dgx-h100", 1, COLL_ALGO_TREE, 12, 30, 30, 24, "the ring's channels"},
    {"dgx-h100", 1, COLL_ALGO_NVLS, 8, 40, 60, 0,
     "one head per GPU, 9 x 40 <= 370.8; pass 2 raises bw_inter"},
    {"dgx-a100", 1, COLL_ALGO_RING, 12, 20, 20, 24, "6 x 40 duplicated"},
    {"dgx1-p100", 1, COLL_ALGO_RING, 4, 18, 18, 8, "hybrid cube mesh: 4 rings of one link"},
    {"dgx1-v100", 1, COLL_ALGO_RING, 6, 20, 20, 12, "6 single-link rings beat 2 double-link"},
    {"dgx-b200", 1, COLL_ALGO_RING, 16, 45, 45, 32, "8 x 90 duplicated"},
    {"dgx-b200", 1, COLL_ALGO_NVLS, 8, 80, 90, 0, "9 x 80 <= 721.8"},
    {"hgx-h800", 1, COLL_ALGO_RING, 8, 20, 20, 16,
     "4 x 40 duplicated; '16 coll channels' in NVIDIA/nccl#892"},
    {"dgx2-v100", 1, COLL_ALGO_RING, 6, 20, 20, 12, "3 x 40 duplicated"},
    {"dgx-h100", 2, COLL_ALGO_RING, 8, 48, 48, 16, "one channel per 400G NIC"},
    {"dgx-h100", 2, COLL_ALGO_NVLS, 8, 40, 48, 0, "8 heads with a NIC each"},
    {"aws-p5-h100", 2, COLL_ALGO_RING, 8, 48, 48, 16,
     "one channel per NET device, a GPU's 4 EFA adapters; '16 coll channels' and 8 rings in "
     "the NCCL 2.22.3 log of KeitaW/p5-nccl-test-2024-07-19"},
    {"dgx-a100", 2, COLL_ALGO_TREE, 8, 30, 24, 16, "pass 2 raises the tree's bw_intra"},
};

START_TEST(search_finds_nccl_graphs)
{
    CollTopoInfo info;
    coll_test_info(graphs[_i].id, graphs[_i].n_nodes, &info);
    CollTuneGraph g;
    coll_tune_graph(&info, graphs[_i].algo, &g);
    ck_assert_msg(
        g.n_channels == graphs[_i].n_channels && fabs(g.bw_intra - graphs[_i].bw_intra) < TOL &&
            fabs(g.bw_inter - graphs[_i].bw_inter) < TOL,
        "%s x %u %s (%s): %u x %g/%g", graphs[_i].id, graphs[_i].n_nodes,
        coll_algo_name(graphs[_i].algo), graphs[_i].why, g.n_channels, g.bw_intra, g.bw_inter);
    if (graphs[_i].comm_channels != 0)
        ck_assert_msg(coll_tune_channels(&info) == graphs[_i].comm_channels,
                      "%s x %u: %u comm channels", graphs[_i].id, graphs[_i].n_nodes,
                      coll_tune_channels(&info));
}
END_TEST

START_TEST(small_accessors)
{
    CollTopoInfo h100, b200, b200x2, a100;
    coll_test_info("dgx-h100", 1, &h100);
    coll_test_info("dgx-b200", 1, &b200);
    coll_test_info("dgx-b200", 2, &b200x2);
    coll_test_info("dgx-a100", 1, &a100);
    /* nvlsChannels: '16 nvls channels' on 8 x H100; SM100 24, 32 multi-node */
    ck_assert_uint_eq(coll_tune_nvls_channels(&h100), 16);
    ck_assert_uint_eq(coll_tune_nvls_channels(&b200), 24);
    ck_assert_uint_eq(coll_tune_nvls_channels(&b200x2), 32);
    ck_assert_uint_eq(coll_tune_nvls_channels(&a100), 0);
    ck_assert_double_eq_tol(coll_tune_nvls_efficiency(&h100), 0.85, TOL);
    ck_assert_double_eq_tol(coll_tune_nvls_efficiency(&b200), 0.74, TOL);
    ck_assert_double_eq_tol(coll_tune_nvls_efficiency(&a100), 0.0, TOL);
    /* NVLink per-step latencies (hwLatencies, tuning.cc:156-176); NVLS's
     * is its whole synchronisation, charged once per call. */
    ck_assert_double_eq_tol(coll_tune_step_latency_us(&h100, COLL_ALGO_RING, COLL_PROTO_LL), 0.6,
                            TOL);
    ck_assert_double_eq_tol(coll_tune_step_latency_us(&h100, COLL_ALGO_TREE, COLL_PROTO_LL128),
                            1.25, TOL);
    ck_assert_double_eq_tol(coll_tune_step_latency_us(&h100, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE),
                            25.0, TOL);
    ck_assert_double_eq_tol(coll_tune_step_latency_us(&h100, COLL_ALGO_AUTO, COLL_PROTO_LL), 0.0,
                            TOL);
    /* PAT uses the tree's graph; p2p on 8 x H100: '32 p2p channels per peer' */
    CollTuneGraph tree, pat, direct;
    coll_tune_graph(&h100, COLL_ALGO_TREE, &tree);
    coll_tune_graph(&h100, COLL_ALGO_PAT, &pat);
    coll_tune_graph(&h100, COLL_ALGO_DIRECT, &direct);
    ck_assert_uint_eq(pat.n_channels, tree.n_channels);
    ck_assert_uint_eq(direct.n_channels, 32);
}
END_TEST

/* ---- §8: 8 x H100, ring all_reduce --------------------------------------- */

typedef enum { BW_RING_LL, BW_RING_LL128, BW_RING_SIMPLE, BW_TREE_LL, BW_NVLS } ExampleBw;

static const struct {
    CollAlgo algo;
    CollProto proto;
    double latency_us;
    ExampleBw bw;
} example[] = {
    {COLL_ALGO_RING, COLL_PROTO_LL, 15.0, BW_RING_LL},         /* 6.6 + 14 x 0.6 */
    {COLL_ALGO_RING, COLL_PROTO_LL128, 40.6, BW_RING_LL128},   /* 14.0 + 14 x 1.9 */
    {COLL_ALGO_RING, COLL_PROTO_SIMPLE, 56.0, BW_RING_SIMPLE}, /* 8.4 + 14 x 3.4 */
    {COLL_ALGO_TREE, COLL_PROTO_LL, 15.2, BW_TREE_LL},         /* 6.8 + 2 x 7 x 0.6 */
    {COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, 25.0, BW_NVLS},        /* NVLink NVLS hw latency */
};

/* §8's algorithm GB/s, restated from the text, for the graph found. */
static double
example_alg_bw(ExampleBw kind, const CollTuneGraph *g)
{
    double b = g->n_channels * g->bw_intra, nch = g->n_channels, ratio = 8.0 / 14.0;
    switch (kind) {
    case BW_RING_LL:
        return fmin(141.0, 0.5 * b) * ratio;
    case BW_RING_LL128:
        return fmin(0.92 * b, nch * 36.7) * ratio;
    case BW_RING_SIMPLE:
        return b * ratio;
    case BW_TREE_LL: /* tree all_reduce 0.92 (cap 38.7/channel), LL / 3.8, algBw = busBw / 2 */
        return fmin(fmin(0.92 * b, nch * 38.7) / 3.8, 141.0) * 0.5;
    case BW_NVLS:
        return fmin(g->bw_intra * 0.85 * (nch - 1) / nch * 2, g->bw_inter) * nch * ratio;
    }
    return 0.0;
}

START_TEST(worked_example)
{
    CollTopoInfo info;
    coll_test_info("dgx-h100", 1, &info);
    const char *name = coll_algo_name(example[_i].algo);
    const char *proto = coll_proto_name(example[_i].proto);
    double lat =
        coll_tune_time_us(&info, COLL_OP_ALL_REDUCE, example[_i].algo, example[_i].proto, 0);
    ck_assert_msg(fabs(lat - example[_i].latency_us) < TOL, "%s/%s: latency %.12g, expected %g",
                  name, proto, lat, example[_i].latency_us);
    /* 1 GiB is past the tree correction factors (log2(1 GiB / 64) = 24). */
    CollTuneGraph g;
    coll_tune_graph(&info, example[_i].algo, &g);
    double expect = example[_i].latency_us + GIB / (1000.0 * example_alg_bw(example[_i].bw, &g));
    double t =
        coll_tune_time_us(&info, COLL_OP_ALL_REDUCE, example[_i].algo, example[_i].proto, GIB);
    ck_assert_msg(fabs(t - expect) < 1e-6 * expect, "%s/%s: 1 GiB in %.9g us, expected %.9g", name,
                  proto, t, expect);
}
END_TEST

/* The maintainers' figure for 8 x H100 NVLS all_reduce: busBW ~480 GB/s
 * (nccl-tests#212); the model's busBw is 8 x 59.5 = 476. */
START_TEST(nvls_bus_bandwidth)
{
    CollTopoInfo info;
    coll_test_info("dgx-h100", 1, &info);
    double t = coll_tune_time_us(&info, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, GIB);
    double busbw = GIB / (1000.0 * (t - 25.0)) * coll_busbw_factor(COLL_OP_ALL_REDUCE, 8);
    ck_assert_double_eq_tol(busbw, 476.0, 1e-6);
}
END_TEST

/* The tree correction factor and the ring plateau (tuning.cc:630-654). */
START_TEST(time_corrections)
{
    CollTopoInfo one, two;
    coll_test_info("dgx-h100", 1, &one);
    coll_test_info("dgx-h100", 2, &two);
    /* 64 KiB: log2(65536 / 64) = 10, LL factor .6 */
    double t0 = coll_tune_time_us(&one, COLL_OP_ALL_REDUCE, COLL_ALGO_TREE, COLL_PROTO_LL, 0);
    double t = coll_tune_time_us(&one, COLL_OP_ALL_REDUCE, COLL_ALGO_TREE, COLL_PROTO_LL, 65536);
    CollTuneGraph g;
    coll_tune_graph(&one, COLL_ALGO_TREE, &g);
    double bw = example_alg_bw(BW_TREE_LL, &g) * 0.6;
    ck_assert_double_eq_tol(t, t0 + 65536 / (1000.0 * bw), 1e-9);
    /* Ring Simple all_reduce on 2 nodes: x1.4 once bytes / (channels x
     * ranks) reaches 64 (16 channels, 16 ranks: 16 KiB). */
    double lat = coll_tune_time_us(&two, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_SIMPLE, 0);
    coll_tune_graph(&two, COLL_ALGO_RING, &g);
    double alg = g.n_channels * g.bw_intra * 16.0 / 30.0;
    double below =
        coll_tune_time_us(&two, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_SIMPLE, 16383);
    double above =
        coll_tune_time_us(&two, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_SIMPLE, 16384);
    ck_assert_double_eq_tol(below, lat + 16383 / (1000.0 * alg), 1e-9);
    ck_assert_double_eq_tol(above, 1.4 * lat + 16384 / (1000.0 * alg), 1e-9);
}
END_TEST

/* ---- What NCCL runs ------------------------------------------------------ */

static const struct {
    const char *id;
    uint32_t n_ranks, n_nodes;
    CollOp op;
    CollAlgo algo;
    CollProto proto;
    bool runs;
    const char *why;
} combos[] = {
    {"dgx-h100", 8, 1, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS_TREE, COLL_PROTO_SIMPLE, false,
     "NVLS tree needs nodes"},
    {"dgx-h100", 16, 2, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS_TREE, COLL_PROTO_SIMPLE, true, ""},
    {"dgx-h100", 16, 2, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, false,
     "multi-node NVLS needs CollNet"},
    {"dgx-h100", 8, 1, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_LL, false, "NVLS is Simple"},
    {"dgx-h100", 8, 1, COLL_OP_ALL_GATHER, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, true, ""},
    {"dgx-h100", 16, 2, COLL_OP_REDUCE_SCATTER, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, false,
     "multi-node NVLS"},
    {"dgx-h100", 8, 1, COLL_OP_ALL_GATHER, COLL_ALGO_PAT, COLL_PROTO_SIMPLE, false,
     "PAT needs one rank per node"},
    {"dgx-h100", 8, 8, COLL_OP_ALL_GATHER, COLL_ALGO_PAT, COLL_PROTO_SIMPLE, true, ""},
    {"dgx1-p100", 8, 8, COLL_OP_REDUCE_SCATTER, COLL_ALGO_PAT, COLL_PROTO_SIMPLE, true, "SM60"},
    {"dgx-h100", 8, 8, COLL_OP_ALL_GATHER, COLL_ALGO_PAT, COLL_PROTO_LL, false, "PAT is Simple"},
    {"dgx-h100", 8, 8, COLL_OP_ALL_REDUCE, COLL_ALGO_PAT, COLL_PROTO_SIMPLE, false, "PAT is AG/RS"},
    {"dgx-h100", 8, 1, COLL_OP_ALL_GATHER, COLL_ALGO_TREE, COLL_PROTO_LL, false, "tree is AR"},
    {"dgx-h100", 8, 1, COLL_OP_BROADCAST, COLL_ALGO_TREE, COLL_PROTO_SIMPLE, false, "ring only"},
    {"dgx-h100", 8, 1, COLL_OP_BROADCAST, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, false, "ring only"},
    {"dgx-h100", 8, 1, COLL_OP_REDUCE, COLL_ALGO_RING, COLL_PROTO_LL128, true, ""},
    {"dgx-h100", 8, 1, COLL_OP_ALL_REDUCE, COLL_ALGO_DIRECT, COLL_PROTO_SIMPLE, false, "p2p"},
    {"dgx-h100", 8, 1, COLL_OP_ALL_REDUCE, COLL_ALGO_AUTO, COLL_PROTO_SIMPLE, false, "AUTO"},
    {"dgx-h100", 8, 1, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_AUTO, false, "AUTO"},
    {"dgx-h100", 8, 1, COLL_OP_ALLTOALL, COLL_ALGO_RING, COLL_PROTO_SIMPLE, false, "p2p"},
    {"dgx-h100", 8, 1, COLL_OP_ALLTOALL, COLL_ALGO_DIRECT, COLL_PROTO_LL128, false, "p2p"},
    {"dgx-h100", 8, 1, COLL_OP_SENDRECV, COLL_ALGO_DIRECT, COLL_PROTO_SIMPLE, true, ""},
    {"dgx-a100", 8, 1, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, false, "SM80"},
    /* §5: LL128 is off before Volta; DGX-1's rings are direct NVLink (NVL) */
    {"dgx1-p100", 8, 1, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_LL128, false, "SM60"},
    {"dgx1-p100", 8, 1, COLL_OP_ALL_REDUCE, COLL_ALGO_TREE, COLL_PROTO_LL128, false, "SM60"},
    {"dgx1-v100", 8, 1, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_LL128, true, "SM70, NVL"},
    {"dgx1-v100", 16, 2, COLL_OP_ALL_GATHER, COLL_ALGO_RING, COLL_PROTO_LL128, true, "PIX NIC"},
};

START_TEST(combinations_nccl_runs)
{
    g_autoptr(HwSystem) system = coll_test_load_system(combos[_i].id);
    CollTopoInfo info;
    coll_tune_info(system, combos[_i].n_ranks, combos[_i].n_nodes, &info);
    double t = coll_tune_time_us(&info, combos[_i].op, combos[_i].algo, combos[_i].proto, MIB);
    ck_assert_msg((t >= 0.0) == combos[_i].runs, "%s %u/%u %s %s/%s (%s): time %g", combos[_i].id,
                  combos[_i].n_ranks, combos[_i].n_nodes, coll_op_name(combos[_i].op),
                  coll_algo_name(combos[_i].algo), coll_proto_name(combos[_i].proto),
                  combos[_i].why, t);
}
END_TEST

/* ---- The choice ----------------------------------------------------------- */

static const CollOp nccl_ops[] = {COLL_OP_ALL_REDUCE, COLL_OP_ALL_GATHER, COLL_OP_REDUCE_SCATTER,
                                  COLL_OP_BROADCAST, COLL_OP_REDUCE};

START_TEST(h100_small_sizes_pick_ll)
{
    CollTopoInfo info;
    coll_test_info("dgx-h100", 1, &info);
    static const uint64_t sizes[] = {8, 64, 1024, 4096};
    for (size_t o = 0; o < G_N_ELEMENTS(nccl_ops); o++)
        for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++) {
            CollAlgo algo = COLL_ALGO_AUTO;
            CollProto proto = COLL_PROTO_AUTO;
            ck_assert(coll_tune_select(&info, nccl_ops[o], sizes[s], &algo, &proto));
            ck_assert_msg(proto == COLL_PROTO_LL, "%s %llu B: %s/%s", coll_op_name(nccl_ops[o]),
                          (unsigned long long)sizes[s], coll_algo_name(algo),
                          coll_proto_name(proto));
        }
}
END_TEST

START_TEST(h100_large_all_reduce_picks_nvls)
{
    CollTopoInfo info;
    coll_test_info("dgx-h100", 1, &info);
    static const uint64_t sizes[] = {64 * MIB, 256 * MIB, GIB, 8 * GIB};
    for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++) {
        CollAlgo algo = COLL_ALGO_AUTO;
        CollProto proto = COLL_PROTO_AUTO;
        ck_assert(coll_tune_select(&info, COLL_OP_ALL_REDUCE, sizes[s], &algo, &proto));
        ck_assert_msg(algo == COLL_ALGO_NVLS && proto == COLL_PROTO_SIMPLE, "%llu B: %s/%s",
                      (unsigned long long)sizes[s], coll_algo_name(algo), coll_proto_name(proto));
    }
}
END_TEST

/* Over every op and size from 8 B to 8 GiB: A100 never picks NVLS;
 * DGX-1 P100 never picks LL128 (pre-Volta). */
static const struct {
    const char *id;
    CollAlgo never_algo;
    CollProto never_proto;
} nevers[] = {
    {"dgx-a100", COLL_ALGO_NVLS, COLL_N_PROTOS},
    {"dgx-a100", COLL_ALGO_NVLS_TREE, COLL_N_PROTOS},
    {"dgx1-p100", COLL_N_ALGOS, COLL_PROTO_LL128},
};

START_TEST(never_picked)
{
    for (uint32_t n_nodes = 1; n_nodes <= 2; n_nodes++) {
        CollTopoInfo info;
        coll_test_info(nevers[_i].id, n_nodes, &info);
        for (size_t o = 0; o < G_N_ELEMENTS(nccl_ops); o++)
            for (uint64_t size = 8; size <= 8 * GIB; size *= 4) {
                CollAlgo algo = COLL_ALGO_AUTO;
                CollProto proto = COLL_PROTO_AUTO;
                ck_assert(coll_tune_select(&info, nccl_ops[o], size, &algo, &proto));
                ck_assert_msg(algo != nevers[_i].never_algo && proto != nevers[_i].never_proto,
                              "%s x %u %s %llu B: %s/%s", nevers[_i].id, n_nodes,
                              coll_op_name(nccl_ops[o]), (unsigned long long)size,
                              coll_algo_name(algo), coll_proto_name(proto));
            }
    }
}
END_TEST

START_TEST(forced_choices)
{
    CollTopoInfo h100, a100;
    coll_test_info("dgx-h100", 1, &h100);
    coll_test_info("dgx-a100", 1, &a100);
    CollAlgo algo = COLL_ALGO_TREE;
    CollProto proto = COLL_PROTO_AUTO;
    ck_assert(coll_tune_select(&h100, COLL_OP_ALL_REDUCE, GIB, &algo, &proto));
    ck_assert_int_eq(algo, COLL_ALGO_TREE);
    algo = COLL_ALGO_AUTO;
    proto = COLL_PROTO_LL128;
    ck_assert(coll_tune_select(&h100, COLL_OP_ALL_REDUCE, GIB, &algo, &proto));
    ck_assert_int_eq(proto, COLL_PROTO_LL128);
    ck_assert(algo == COLL_ALGO_RING || algo == COLL_ALGO_TREE);
    algo = COLL_ALGO_NVLS;
    proto = COLL_PROTO_AUTO;
    ck_assert(!coll_tune_select(&a100, COLL_OP_ALL_REDUCE, GIB, &algo, &proto));
    ck_assert_int_eq(algo, COLL_ALGO_NVLS);
    ck_assert_int_eq(proto, COLL_PROTO_AUTO);
    algo = COLL_ALGO_NVLS;
    proto = COLL_PROTO_LL;
    ck_assert(!coll_tune_select(&h100, COLL_OP_ALL_REDUCE, GIB, &algo, &proto));
}
END_TEST

/* ---- p2p ------------------------------------------------------------------ */

/* LL while a peer's bytes fit 16 KiB per channel (one channel below the
 * 64 KiB minimum part); time = ring base + one ring step + bytes / rate. */
static const struct {
    const char *id;
    uint32_t n_nodes;
    CollOp op;
    uint64_t n_bytes;
    CollProto proto;
    double time_us;
} p2ps[] = {
    {"dgx-h100", 1, COLL_OP_SENDRECV, 16384, COLL_PROTO_LL,
     6.6 + 0.6 + 16384 / (1000 * 370.8 * 0.5)},
    {"dgx-h100", 1, COLL_OP_SENDRECV, 16385, COLL_PROTO_SIMPLE, 8.4 + 3.4 + 16385 / (1000 * 370.8)},
    /* 8 peers of 16 KiB; 7/8 of the bytes over the NVLinks */
    {"dgx-h100", 1, COLL_OP_ALLTOALL, 131072, COLL_PROTO_LL,
     6.6 + 0.6 + 131072 * 7.0 / 8 / (1000 * 370.8 * 0.5)},
    {"dgx-h100", 1, COLL_OP_ALLTOALL, 131080, COLL_PROTO_SIMPLE,
     8.4 + 3.4 + 131080 * 7.0 / 8 / (1000 * 370.8)},
    /* DGX-1 P100 neighbours 3-4 and 7-0 have no direct link: one link via NVB */
    {"dgx1-p100", 1, COLL_OP_SENDRECV, MIB, COLL_PROTO_SIMPLE, 8.4 + 3.4 + MIB / (1000 * 18.0)},
    /* 2 nodes: half of the bytes leave the node at 50 GB/s a rank */
    {"dgx-h100", 2, COLL_OP_ALLTOALL, GIB, COLL_PROTO_SIMPLE,
     8.4 + 14.0 + GIB * 0.5 / (1000 * 50.0)},
    {"dgx-h100", 2, COLL_OP_SENDRECV, 8, COLL_PROTO_LL, 6.6 + 2.7 + 8 / (1000 * 50.0 * 0.5)},
};

START_TEST(p2p_choice_and_time)
{
    CollTopoInfo info;
    coll_test_info(p2ps[_i].id, p2ps[_i].n_nodes, &info);
    CollAlgo algo = COLL_ALGO_AUTO;
    CollProto proto = COLL_PROTO_AUTO;
    ck_assert(coll_tune_select(&info, p2ps[_i].op, p2ps[_i].n_bytes, &algo, &proto));
    ck_assert_msg(algo == COLL_ALGO_DIRECT && proto == p2ps[_i].proto, "%s %s %llu B: %s/%s",
                  p2ps[_i].id, coll_op_name(p2ps[_i].op), (unsigned long long)p2ps[_i].n_bytes,
                  coll_algo_name(algo), coll_proto_name(proto));
    double t = coll_tune_time_us(&info, p2ps[_i].op, algo, proto, p2ps[_i].n_bytes);
    ck_assert_msg(fabs(t - p2ps[_i].time_us) < 1e-9 * p2ps[_i].time_us + 1e-12,
                  "%s %s %llu B: %.12g us, expected %.12g", p2ps[_i].id, coll_op_name(p2ps[_i].op),
                  (unsigned long long)p2ps[_i].n_bytes, t, p2ps[_i].time_us);
}
END_TEST

/* ---- §6: channels and chunks per call -------------------------------------- */

static const struct {
    const char *id;
    uint32_t n_nodes;
    CollOp op;
    CollAlgo algo;
    CollProto proto;
    uint64_t n_bytes;
    uint32_t n_channels;
    uint64_t chunk_bytes, slice_bytes;
    uint32_t slices_in_flight;
    const char *why;
} plans[] = {
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_SIMPLE, GIB, 24, 2 * MIB, MIB, 4,
     "4 steps of 512 KiB a chunk, 2 a slice"},
    {"dgx-h100", 1, COLL_OP_ALL_GATHER, COLL_ALGO_RING, COLL_PROTO_SIMPLE, GIB, 24, 2 * MIB, MIB, 4,
     "as all_reduce"},
    {"dgx-h100", 1, COLL_OP_BROADCAST, COLL_ALGO_RING, COLL_PROTO_SIMPLE, GIB, 24, 512 * KIB,
     512 * KIB, 8, "broadcast: one step"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_LL, GIB, 24, 32 * KIB, 32 * KIB,
     8, "LL: a 64 KiB step holds 32 KiB of data"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_LL128, GIB, 24, 576000, 576000,
     8, "LL128: 614400 x 15/16"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_TREE, COLL_PROTO_SIMPLE, GIB, 24, 512 * KIB,
     512 * KIB, 8, "tree: one step"},
    /* tree LL128, 1 node: nsteps 1.8, halve while bytes / (24 x chunk) < 14.4 */
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_TREE, COLL_PROTO_LL128, GIB, 24, 576000, 576000,
     8, "77 chunks a channel"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_TREE, COLL_PROTO_LL128, 64 * MIB, 24, 144000,
     144000, 8, "4, then 9, then 19 chunks a channel"},
    /* NVLS: 16 channels x 8 heads = 128 ops on 128 KiB chunks */
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, GIB, 16, 128 * KIB,
     128 * KIB, 8, "1 GiB = 64 x 128 x 128 KiB: no shrink"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, GIB - 1, 16, 64 * KIB,
     64 * KIB, 8, "below 64 ops of chunks: 64 KiB"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, 64 * MIB, 16, 64 * KIB,
     64 * KIB, 8, "64 MiB = 8 x 128 x 64 KiB"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, 64 * MIB - 1, 16,
     32 * KIB, 32 * KIB, 8, "below: 32 KiB"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, 8 * MIB, 16, 32 * KIB,
     32 * KIB, 8, "8 MiB = 2 x 128 x 32 KiB"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, 8 * MIB - 1, 16,
     16 * KIB, 16 * KIB, 8, "below: 16 KiB"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, COLL_PROTO_SIMPLE, 8, 16, 16 * KIB,
     16 * KIB, 8, "NVLS keeps its 16 channels"},
    /* Channels: ring LL stops at nBytes >= nc x 512 threads x 8 x 8 ranks */
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_LL, 8, 1, 32 * KIB, 32 * KIB, 8,
     "tiny: one channel"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_LL, 64 * KIB, 2, 32 * KIB,
     32 * KIB, 8, "64 KiB = 2 x 32 KiB"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_LL, 64 * KIB - 1, 1, 32 * KIB,
     32 * KIB, 8, "just below"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, COLL_PROTO_SIMPLE, 100 * KIB, 3, 2 * MIB,
     MIB, 4, "Simple: 512 threads x 64 B a channel"},
    {"dgx-h100", 1, COLL_OP_ALL_REDUCE, COLL_ALGO_TREE, COLL_PROTO_LL, 8 * KIB, 2, 32 * KIB,
     32 * KIB, 8, "tree LL: 512 x 8 B a channel"},
    /* PAT on 8 nodes of one rank: halve while chunk x channels x 32 > bytes */
    {"dgx-h100", 0, COLL_OP_ALL_GATHER, COLL_ALGO_PAT, COLL_PROTO_SIMPLE, MIB, 0, 64 * KIB,
     64 * KIB, 8, "64 KiB floor"},
    /* p2p: 4 of the 32 channels a peer (8 peers share 32), 64 KiB parts */
    {"dgx-h100", 1, COLL_OP_SENDRECV, COLL_ALGO_DIRECT, COLL_PROTO_SIMPLE, MIB, 4, 512 * KIB,
     512 * KIB, 8, "NVLink p2p chunk"},
    {"dgx-h100", 1, COLL_OP_SENDRECV, COLL_ALGO_DIRECT, COLL_PROTO_LL, 1000, 1, 32 * KIB, 32 * KIB,
     8, "LL p2p"},
    {"dgx-h100", 1, COLL_OP_SENDRECV, COLL_ALGO_AUTO, COLL_PROTO_AUTO, 1000, 1, 32 * KIB, 32 * KIB,
     8, "AUTO resolves to DIRECT/LL"},
};

START_TEST(plan_chunks_and_channels)
{
    g_autoptr(HwSystem) system = coll_test_load_system(plans[_i].id);
    CollTopoInfo info;
    /* n_nodes 0: 8 nodes of one rank each */
    if (plans[_i].n_nodes == 0)
        coll_tune_info(system, 8, 8, &info);
    else
        coll_tune_info(system, system->n_gpus * plans[_i].n_nodes, plans[_i].n_nodes, &info);
    CollTunePlan plan;
    coll_tune_plan(&info, plans[_i].op, plans[_i].algo, plans[_i].proto, plans[_i].n_bytes, &plan);
    uint32_t n_channels =
        plans[_i].n_channels != 0 ? plans[_i].n_channels : coll_tune_channels(&info);
    ck_assert_msg(plan.n_channels == n_channels && plan.chunk_bytes == plans[_i].chunk_bytes &&
                      plan.slice_bytes == plans[_i].slice_bytes &&
                      plan.slices_in_flight == plans[_i].slices_in_flight,
                  "%s %s %s/%s %llu B (%s): %u channels, chunk %llu, slice %llu, %u in flight",
                  plans[_i].id, coll_op_name(plans[_i].op), coll_algo_name(plans[_i].algo),
                  coll_proto_name(plans[_i].proto), (unsigned long long)plans[_i].n_bytes,
                  plans[_i].why, plan.n_channels, (unsigned long long)plan.chunk_bytes,
                  (unsigned long long)plan.slice_bytes, plan.slices_in_flight);
}
END_TEST

/* ---- Self-check over every shipped system ---------------------------------- */

static const CollOp all_ops[] = {COLL_OP_ALL_REDUCE, COLL_OP_ALL_GATHER, COLL_OP_REDUCE_SCATTER,
                                 COLL_OP_BROADCAST,  COLL_OP_REDUCE,     COLL_OP_ALLTOALL,
                                 COLL_OP_SENDRECV};
static const uint64_t sizes[] = {0, 1, 8, 1000, 65536, MIB, 64 * MIB, GIB, 8 * GIB};

/* The choice is allowed and no slower than any allowed combination. */
static void
check_choice(const char *name, const CollTopoInfo *info, CollOp op, uint64_t n_bytes)
{
    CollAlgo algo = COLL_ALGO_AUTO;
    CollProto proto = COLL_PROTO_AUTO;
    ck_assert_msg(coll_tune_select(info, op, n_bytes, &algo, &proto), "%s %s %llu B: no choice",
                  name, coll_op_name(op), (unsigned long long)n_bytes);
    double chosen = coll_tune_time_us(info, op, algo, proto, n_bytes);
    ck_assert_msg(chosen >= 0.0, "%s %s: chose a disabled %s/%s", name, coll_op_name(op),
                  coll_algo_name(algo), coll_proto_name(proto));
    bool p2p = op == COLL_OP_ALLTOALL || op == COLL_OP_SENDRECV;
    for (int a = COLL_ALGO_RING; a < COLL_N_ALGOS && !p2p; a++)
        for (int p = COLL_PROTO_LL; p < COLL_N_PROTOS; p++) {
            double t = coll_tune_time_us(info, op, (CollAlgo)a, (CollProto)p, n_bytes);
            ck_assert_msg(t < 0.0 || chosen <= t, "%s %s %llu B: %s/%s (%g us) beats %s/%s (%g)",
                          name, coll_op_name(op), (unsigned long long)n_bytes,
                          coll_algo_name((CollAlgo)a), coll_proto_name((CollProto)p), t,
                          coll_algo_name(algo), coll_proto_name(proto), chosen);
        }
    CollTunePlan plan;
    coll_tune_plan(info, op, algo, proto, n_bytes, &plan);
    ck_assert_msg(plan.n_channels >= 1 && plan.n_channels <= 64 && plan.chunk_bytes > 0 &&
                      plan.slice_bytes > 0 && plan.slice_bytes <= plan.chunk_bytes &&
                      (plan.slices_in_flight == 4 || plan.slices_in_flight == 8) &&
                      plan.slice_bytes * plan.slices_in_flight <=
                          MAX(4915200, info->env.buffsize_bytes),
                  "%s %s %llu B %s/%s: plan %u channels, chunk %llu, slice %llu x %u", name,
                  coll_op_name(op), (unsigned long long)n_bytes, coll_algo_name(algo),
                  coll_proto_name(proto), plan.n_channels, (unsigned long long)plan.chunk_bytes,
                  (unsigned long long)plan.slice_bytes, plan.slices_in_flight);
}

/* Every allowed combination takes no less time for more bytes. */
static void
check_growth(const char *name, const CollTopoInfo *info, CollOp op)
{
    for (int a = COLL_ALGO_RING; a < COLL_N_ALGOS; a++)
        for (int p = COLL_PROTO_LL; p < COLL_N_PROTOS; p++) {
            double before = -1.0;
            for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++) {
                double t = coll_tune_time_us(info, op, (CollAlgo)a, (CollProto)p, sizes[s]);
                if (t < 0.0)
                    continue;
                ck_assert_msg(t >= before, "%s %s %s/%s: %g us at %llu B after %g", name,
                              coll_op_name(op), coll_algo_name((CollAlgo)a),
                              coll_proto_name((CollProto)p), t, (unsigned long long)sizes[s],
                              before);
                before = t;
            }
        }
}

START_TEST(self_check)
{
    const char *id = shipped[_i / 2];
    uint32_t n_nodes = _i % 2 + 1;
    CollTopoInfo info;
    coll_test_info(id, n_nodes, &info);
    g_autofree char *name = g_strdup_printf("%s x %u", id, n_nodes);
    CollTuneGraph ring, tree;
    coll_tune_graph(&info, COLL_ALGO_RING, &ring);
    coll_tune_graph(&info, COLL_ALGO_TREE, &tree);
    ck_assert_msg(ring.n_channels >= 1 && ring.n_channels == tree.n_channels && ring.bw_intra > 0.1,
                  "%s: ring %u x %g, tree %u", name, ring.n_channels, ring.bw_intra,
                  tree.n_channels);
    for (size_t o = 0; o < G_N_ELEMENTS(all_ops); o++) {
        check_growth(name, &info, all_ops[o]);
        for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++)
            check_choice(name, &info, all_ops[o], sizes[s]);
    }
}
END_TEST

/* One rank: NCCL's table holds Ring/Simple at no cost. */
START_TEST(one_rank_costs_nothing)
{
    g_autoptr(HwSystem) system = coll_test_load_system("dgx-h100");
    CollTopoInfo info;
    coll_tune_info(system, 1, 1, &info);
    CollAlgo algo = COLL_ALGO_AUTO;
    CollProto proto = COLL_PROTO_AUTO;
    ck_assert(coll_tune_select(&info, COLL_OP_ALL_REDUCE, MIB, &algo, &proto));
    ck_assert_int_eq(algo, COLL_ALGO_RING);
    ck_assert_int_eq(proto, COLL_PROTO_SIMPLE);
    ck_assert_double_eq_tol(coll_tune_time_us(&info, COLL_OP_ALL_REDUCE, algo, proto, MIB), 0.0,
                            TOL);
    ck_assert(!info.nvls);
}
END_TEST

Suite *
coll_tune_suite(void)
{
    Suite *s = suite_create("coll-tune");
    TCase *tc = tcase_create("tune");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, info_from_systems, 0, G_N_ELEMENTS(infos));
    tcase_add_loop_test(tc, search_finds_nccl_graphs, 0, G_N_ELEMENTS(graphs));
    tcase_add_test(tc, small_accessors);
    tcase_add_loop_test(tc, worked_example, 0, G_N_ELEMENTS(example));
    tcase_add_test(tc, nvls_bus_bandwidth);
    tcase_add_test(tc, time_corrections);
    tcase_add_loop_test(tc, combinations_nccl_runs, 0, G_N_ELEMENTS(combos));
    tcase_add_test(tc, h100_small_sizes_pick_ll);
    tcase_add_test(tc, h100_large_all_reduce_picks_nvls);
    tcase_add_loop_test(tc, never_picked, 0, G_N_ELEMENTS(nevers));
    tcase_add_test(tc, forced_choices);
    tcase_add_loop_test(tc, p2p_choice_and_time, 0, G_N_ELEMENTS(p2ps));
    tcase_add_loop_test(tc, plan_chunks_and_channels, 0, G_N_ELEMENTS(plans));
    tcase_add_loop_test(tc, self_check, 0, 2 * G_N_ELEMENTS(shipped));
    tcase_add_test(tc, one_rank_costs_nothing);
    suite_add_tcase(s, tc);
    return s;
}
