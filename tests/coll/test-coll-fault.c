/* SPDX-License-Identifier: Apache-2.0 */
/* Collectives on faulted systems: NCCL's tuner sees the NVLinks a node's
 * ranks have left (a link down is counted at init; a slow or noisy one is
 * not); with one DGX H100 plane of 5 links down, 13 of a GPU's 18 links
 * are left, so NVLS all_reduce (link-bound) gets 13/18 of its marginal
 * bandwidth, a ring all_reduce (below its links, at NCCL's channel
 * speeds) at most that, an all-to-all at most 3/4, and those two at most
 * the payload rate of 13 links.
 */
#include <math.h>
#include <string.h>

#include "coll-suites.h"
#include "coll/coll-run.h"
#include "topo/topo-build.h"
#include "topo/topo-fault.h"

typedef struct Faulted {
    HwSystem *sys;
    TopoFaults *faults;
    TopoGraph *graph;
    TopoRouter *router;
    CollComm *comm;
} Faulted;

/* n_ranks of one node of system id with faults ("KEY=VALUE;..."). */
static void
faulted_init(Faulted *f, const char *id, const char *faults)
{
    f->sys = coll_test_load_system(id);
    g_auto(GStrv) items = g_strsplit(faults, ";", -1);
    g_autoptr(GError) error = NULL;
    f->faults = topo_faults_from_sets(faults[0] ? items : NULL, "test", &error);
    ck_assert_msg(f->faults != NULL, "%s: %s", faults, error ? error->message : "");
    f->graph = topo_build_system_faulted(f->sys, 1, f->faults, &error);
    ck_assert_msg(f->graph != NULL, "%s: %s", faults, error ? error->message : "");
    f->router = topo_router_new(f->graph);
    f->comm = coll_comm_new(f->sys, f->graph, f->router, f->sys->n_gpus, &error);
    ck_assert_msg(f->comm != NULL, "%s: %s", faults, error ? error->message : "");
}

static void
faulted_clear(Faulted *f)
{
    coll_comm_free(f->comm);
    topo_router_free(f->router);
    topo_graph_free(f->graph);
    topo_faults_free(f->faults);
    hw_system_free(f->sys);
}

/* What NCCL's tuner counts: the fewest NVLinks a rank has (NVSwitch), or
 * the fewest and the most among its direct links (DGX-1V, 6 each). */
static const struct {
    const char *id, *faults;
    uint32_t ring_links;
    double nvlink_bw; /* NCCL's GB/s: links x 20.6 (H100), 20 (V100) */
} seen_cases[] = {
    {"dgx-h100", "", 18, 18 * 20.6},
    {"dgx-h100", "planes_down=1", 13, 13 * 20.6},
    {"dgx-h100", "planes_down=2", 14, 14 * 20.6},
    {"dgx-h100", "links_down=3:1x2", 16, 16 * 20.6},
    {"dgx-h100", "links_down=3:1", 13, 13 * 20.6},
    {"dgx-h100", "slow_links=3:1;slow_rate=0.5", 18, 18 * 20.6},
    {"dgx-h100", "crc_links=3:1;crc_error_rate=1e-3", 18, 18 * 20.6},
    {"dgx1-v100", "", 6, 6 * 20.0},
    {"dgx1-v100", "links_down=0-1", 5, 6 * 20.0},
    {"dgx1-v100", "slow_links=0-1;slow_rate=0.25", 6, 6 * 20.0},
};

START_TEST(tuner_sees_links_down)
{
    Faulted f;
    faulted_init(&f, seen_cases[_i].id, seen_cases[_i].faults);
    const CollTopoInfo *info = &f.comm->info;
    ck_assert_msg(info->nvlink_ring_links == seen_cases[_i].ring_links &&
                      fabs(info->nvlink_bw - seen_cases[_i].nvlink_bw) < 1e-9,
                  "%s with '%s': %u links, %.2f GB/s; expected %u, %.2f", seen_cases[_i].id,
                  seen_cases[_i].faults, info->nvlink_ring_links, info->nvlink_bw,
                  seen_cases[_i].ring_links, seen_cases[_i].nvlink_bw);
    faulted_clear(&f);
}
END_TEST

/* A healthy graph and one built with no fault give NCCL the same view. */
START_TEST(no_fault_same_view)
{
    Faulted f;
    faulted_init(&f, "dgx1-v100", "");
    CollTopoInfo plain;
    coll_tune_info(f.sys, 8, 1, &plain);
    ck_assert(!f.graph->faulted);
    ck_assert(memcmp(&plain, &f.comm->info, sizeof plain) == 0);
    faulted_clear(&f);
}
END_TEST

/* NICs down are seen at init, as net_ib lists only active ports: on two
 * DGX H100 nodes NCCL sees 8 NICs, one a GPU, at the NDR port's 50 GB/s;
 * with NIC 3 down 7, so 7/8 of the network bandwidth a GPU; with a NIC
 * slow, all 8 still. */
START_TEST(tuner_sees_nics_down)
{
    static const struct {
        const char *faults;
        double nets; /* NET devices NCCL sees a node */
    } cases[] = {
        {"", 8}, {"nics_down=3", 7}, {"nics_down=3,4", 6}, {"slow_nics=3;slow_rate=0.5", 8}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(HwSystem) sys = coll_test_load_system("dgx-h100");
        g_auto(GStrv) items = g_strsplit(cases[i].faults, ";", -1);
        g_autoptr(GError) error = NULL;
        g_autoptr(TopoFaults) faults =
            topo_faults_from_sets(cases[i].faults[0] ? items : NULL, "test", &error);
        ck_assert_msg(faults != NULL, "%s", error ? error->message : "");
        g_autoptr(TopoGraph) graph = topo_build_system_faulted(sys, 2, faults, &error);
        ck_assert_msg(graph != NULL, "%s", error ? error->message : "");
        g_autoptr(TopoRouter) router = topo_router_new(graph);
        g_autoptr(CollComm) comm = coll_comm_new(sys, graph, router, 16, &error);
        ck_assert_msg(comm != NULL, "%s", error ? error->message : "");
        double expect = comm->info.nic_bw * cases[i].nets / 8;
        ck_assert_msg(fabs(comm->info.net_bw - expect) < 1e-9,
                      "'%s': %.3f GB/s a GPU; expected %.3f", cases[i].faults, comm->info.net_bw,
                      expect);
    }
}
END_TEST

/* busbw of op of n_bytes as NCCL (or algo) runs it, flow fidelity. */
static double
busbw(const Faulted *f, CollOp op, CollAlgo algo, uint64_t n_bytes, uint64_t *time_ps)
{
    CollCall call = {.op = op, .n_bytes = n_bytes, .elem_bytes = 4, .algo = algo};
    CollResult r;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(coll_run(f->comm, &call, NET_FIDELITY_FLOW, &r, &error), "%s",
                  error ? error->message : "");
    *time_ps = r.time_ps;
    return (double)n_bytes / ((double)r.time_ps / 1e12) * coll_busbw_factor(op, f->comm->n_ranks);
}

/* One H100's NVLinks carry at most links x 25 GB/s x 128 / (128 + 27) of
 * SM payload. */
static double
payload_bound(uint32_t links)
{
    return links * 25e9 * 128.0 / (128.0 + 27.0);
}

/* How each runs healthy: NVLS is link-bound (its switch reduces, so its
 * busbw is not bounded by a GPU's link rate); the ring's channels run at
 * NCCL's speeds, below the links, and so does the all-to-all, nearer to
 * them (95%): once the links are fewer, it comes closer still (96%), so
 * its share is above 13/18, under 3/4. */
static const struct {
    const char *name;
    CollOp op;
    CollAlgo algo;
    double max_share;
    bool link_bound;
} share_cases[] = {
    {"ring all_reduce", COLL_OP_ALL_REDUCE, COLL_ALGO_RING, 13.0 / 18.0, false},
    {"all-to-all", COLL_OP_ALLTOALL, COLL_ALGO_AUTO, 0.75, false},
    {"NVLS all_reduce", COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, 13.0 / 18.0, true},
};

/* 512 MiB and 1 GiB: the bandwidth their difference takes (fixed costs
 * cancel) with plane 1 down is at most the case's share of the healthy
 * one, exactly 13/18 (within 0.1%) where the healthy one is link-bound;
 * the faulted busbw of a ring or an all-to-all stays under 13 links'
 * payload rate. */
START_TEST(plane_down_bandwidth_share)
{
    Faulted h, d;
    faulted_init(&h, "dgx-h100", "");
    faulted_init(&d, "dgx-h100", "planes_down=1");
    const char *name = share_cases[_i].name;
    CollOp op = share_cases[_i].op;
    CollAlgo algo = share_cases[_i].algo;
    uint64_t th[2], td[2];
    busbw(&h, op, algo, UINT64_C(512) << 20, &th[0]);
    double bh = busbw(&h, op, algo, UINT64_C(1) << 30, &th[1]);
    busbw(&d, op, algo, UINT64_C(512) << 20, &td[0]);
    double bd = busbw(&d, op, algo, UINT64_C(1) << 30, &td[1]);
    double share = (double)(th[1] - th[0]) / (double)(td[1] - td[0]);
    ck_assert_msg(share <= share_cases[_i].max_share * 1.001, "%s: marginal share %.5f > %.5f",
                  name, share, share_cases[_i].max_share);
    if (share_cases[_i].link_bound)
        ck_assert_msg(fabs(share / (13.0 / 18.0) - 1) < 0.001, "%s: marginal share %.5f, not 13/18",
                      name, share);
    else
        ck_assert_msg(bd <= payload_bound(13) && bh <= payload_bound(18),
                      "%s: busbw %.2f GB/s faulted, %.2f healthy", name, bd / 1e9, bh / 1e9);
    ck_assert_msg(bd / bh <= 0.75, "%s: %.3f of the healthy busbw", name, bd / bh);
    faulted_clear(&h);
    faulted_clear(&d);
}
END_TEST

Suite *
coll_fault_suite(void)
{
    Suite *s = suite_create("coll-fault");
    TCase *tc = tcase_create("tuner");
    tcase_add_loop_test(tc, tuner_sees_links_down, 0, G_N_ELEMENTS(seen_cases));
    tcase_add_test(tc, no_fault_same_view);
    tcase_add_test(tc, tuner_sees_nics_down);
    suite_add_tcase(s, tc);
    tc = tcase_create("bandwidth");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, plane_down_bandwidth_share, 0, G_N_ELEMENTS(share_cases));
    suite_add_tcase(s, tc);
    return s;
}
