/* SPDX-License-Identifier: Apache-2.0 */
/* A call's traffic (coll_run_traffic) and the collective session: the
 * flows carry what the schedule sends (the executor's own payload count),
 * NVLS's go between GPUs and every switch plane in proportion to its
 * links, and a prepared call started on a session's borrowed engine and
 * network, on GPUs of another node, ends exactly when coll_run says. */
#include <math.h>

#include "coll-suites.h"
#include "coll/coll-run.h"
#include "coll/coll-session.h"
#include "topo/topo-build.h"

typedef struct Fabric {
    HwSystem *system;
    TopoGraph *graph;
    TopoRouter *router;
} Fabric;

static void
fabric_load(Fabric *f, const char *id, uint32_t n_nodes)
{
    g_autoptr(GError) error = NULL;
    f->system = coll_test_load_system(id);
    f->graph = topo_build_system(f->system, n_nodes, &error);
    ck_assert_msg(f->graph != NULL, "%s", error ? error->message : "");
    f->router = topo_router_new(f->graph);
}

static void
fabric_clear(Fabric *f)
{
    topo_router_free(f->router);
    topo_graph_free(f->graph);
    hw_system_free(f->system);
}

/* op of bytes on the first n GPUs: its result and traffic. */
static GArray *
traffic_of(const Fabric *f, uint32_t n, CollOp op, CollAlgo algo, uint64_t bytes, CollResult *res)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(CollComm) comm = coll_comm_new(f->system, f->graph, f->router, n, &error);
    ck_assert_msg(comm != NULL, "%s", error ? error->message : "");
    CollCall call = {.op = op, .n_bytes = bytes, .elem_bytes = 2, .algo = algo};
    GArray *flows = g_array_new(FALSE, FALSE, sizeof(CollFlow));
    ck_assert_msg(coll_run_traffic(comm, &call, NET_FIDELITY_FLOW, res, flows, &error), "%s",
                  error ? error->message : "");
    return flows;
}

/* A ring's flows go GPU to GPU, and carry what its messages carried (the
 * executor's payload count; Simple adds nothing on the wire): each flow
 * is copies of its channels' mean bytes, rounded up, so at most one byte
 * a copy more. */
START_TEST(ring_flows_carry_the_schedule_payload)
{
    Fabric f;
    fabric_load(&f, "dgx-h100", 1);
    CollResult res;
    g_autoptr(GArray) flows = traffic_of(&f, 8, COLL_OP_ALL_REDUCE, COLL_ALGO_RING, 64 << 20, &res);
    ck_assert_int_eq(res.proto, COLL_PROTO_SIMPLE);
    uint64_t sum = 0, copies = 0;
    for (guint i = 0; i < flows->len; i++) {
        const CollFlow *x = &g_array_index(flows, CollFlow, i);
        ck_assert_int_eq(topo_graph_vertex(f.graph, x->src)->kind, TOPO_GPU);
        ck_assert_int_eq(topo_graph_vertex(f.graph, x->dst)->kind, TOPO_GPU);
        ck_assert_uint_gt(x->max_bytes_per_s, 0);
        sum += x->bytes * x->copies;
        copies += x->copies;
    }
    ck_assert_uint_ge(sum, res.exec.payload_bytes);
    ck_assert_uint_lt(sum, res.exec.payload_bytes + copies);
    /* Every channel's ring: one connection out of each GPU a channel. */
    ck_assert_uint_eq(copies, 8 * res.n_channels);
    fabric_clear(&f);
}
END_TEST

/* NVLS on a DGX H100 (four NVSwitch planes of 5, 4, 4 and 5 links from
 * each GPU): every flow joins a GPU and a switch, each GPU reaches all
 * four planes both ways (the schedule runs one plane of each width and
 * stands it for its twin), and a plane's bytes are as its links. */
START_TEST(nvls_flows_reach_every_plane_by_its_links)
{
    Fabric f;
    fabric_load(&f, "dgx-h100", 1);
    CollResult res;
    g_autoptr(GArray) flows = traffic_of(&f, 8, COLL_OP_ALL_REDUCE, COLL_ALGO_NVLS, 64 << 20, &res);
    ck_assert_int_eq(res.algo, COLL_ALGO_NVLS);
    uint64_t up[8][4] = {{0}}, down[8][4] = {{0}};
    uint32_t links[4] = {0};
    for (guint i = 0; i < flows->len; i++) {
        const CollFlow *x = &g_array_index(flows, CollFlow, i);
        const TopoVertex *a = topo_graph_vertex(f.graph, x->src);
        const TopoVertex *b = topo_graph_vertex(f.graph, x->dst);
        ck_assert_msg((a->kind == TOPO_GPU) != (b->kind == TOPO_GPU), "flow %u", i);
        const TopoVertex *gpu = a->kind == TOPO_GPU ? a : b;
        const TopoVertex *sw = a->kind == TOPO_GPU ? b : a;
        ck_assert_int_eq(sw->kind, TOPO_NVSWITCH);
        ck_assert_uint_lt(sw->index, 4);
        uint64_t(*to)[4] = a->kind == TOPO_GPU ? up : down;
        to[gpu->index][sw->index] += x->bytes * x->copies;
    }
    for (uint32_t l = 0; l < topo_graph_n_links(f.graph); l++) {
        const TopoLink *link = topo_graph_link(f.graph, l);
        if (link->src == topo_graph_gpu_vertex(f.graph, 0) &&
            topo_graph_vertex(f.graph, link->dst)->kind == TOPO_NVSWITCH)
            links[topo_graph_vertex(f.graph, link->dst)->index] = link->n_links;
    }
    for (uint32_t g = 0; g < 8; g++)
        for (uint32_t p = 0; p < 4; p++) {
            ck_assert_uint_gt(up[g][p], 0);
            ck_assert_uint_gt(down[g][p], 0);
            /* bytes / links the same on every plane, to rounding. */
            double a = (double)up[g][p] / links[p], b = (double)up[g][0] / links[0];
            ck_assert_msg(fabs(a - b) <= 1e-4 * b, "gpu %u plane %u: %g vs %g", g, p, a, b);
            ck_assert_uint_eq(up[g][p], up[0][p]);
            ck_assert_uint_eq(down[g][p], down[0][p]);
        }
    fabric_clear(&f);
}
END_TEST

static void
on_end(SimEngine *engine, const SimEvent *event, void *ctx)
{
    uint64_t *ends = ctx;
    ends[event->target] = sim_engine_now(engine);
}

/* On two nodes of DGX H100, all_reduces of 16 MiB on node 1's GPUs 8 ..
 * 15, on 8 and 9, on all 16, and a transfer from GPU 3 to GPU 12, started
 * apart on one session's engine and network, each end when the call run
 * alone there ends (coll_run on those GPUs; for the transfer, its flow's
 * time plus the launch). */
START_TEST(a_call_alone_in_a_session_ends_when_coll_run_does)
{
    Fabric f;
    fabric_load(&f, "dgx-h100", 2);
    uint64_t launch = 7000000;
    g_autoptr(CollSession) s =
        coll_session_new(f.system, f.graph, f.router, NET_FIDELITY_FLOW, false, launch, NULL);
    uint32_t node1[8] = {8, 9, 10, 11, 12, 13, 14, 15}, pair[2] = {8, 9}, all[16];
    for (uint32_t i = 0; i < 16; i++)
        all[i] = i;
    const uint32_t *gpus[3] = {node1, pair, all};
    uint32_t n[3] = {8, 2, 16};
    uint32_t shapes[4];
    uint64_t expect[4];
    for (int k = 0; k < 3; k++) {
        g_autoptr(GError) error = NULL;
        shapes[k] = coll_session_prepare(s, COLL_OP_ALL_REDUCE, 16 << 20, gpus[k], n[k], &error);
        ck_assert_msg(shapes[k] != COLL_SESSION_NONE, "%s", error ? error->message : "");
        g_autoptr(CollComm) comm =
            coll_comm_new_gpus(f.system, f.graph, f.router, gpus[k], n[k], &error);
        CollCall call = {.op = COLL_OP_ALL_REDUCE, .n_bytes = 16 << 20, .elem_bytes = 2};
        CollResult res;
        ck_assert(coll_run(comm, &call, NET_FIDELITY_FLOW, &res, &error));
        expect[k] = res.time_ps;
        ck_assert_uint_eq(coll_session_alone_ps(s, shapes[k]), res.time_ps);
        ck_assert_uint_eq(coll_session_channels(s, shapes[k]), res.n_channels);
    }
    uint32_t transfer[2] = {3, 12};
    shapes[3] = coll_session_prepare_transfer(s, 3, 12, 16 << 20);
    expect[3] = coll_session_flows_ps(s, shapes[3]) + launch;
    ck_assert_uint_eq(coll_session_n_flows(s, shapes[3]), 1);
    ck_assert_uint_eq(coll_session_alone_ps(s, shapes[3]), expect[3]);
    /* The same shape again is the one prepared. */
    g_autoptr(GError) error = NULL;
    uint32_t node0[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    ck_assert_uint_eq(coll_session_prepare(s, COLL_OP_ALL_REDUCE, 16 << 20, node0, 8, &error),
                      shapes[0]);
    ck_assert_uint_eq(coll_session_n_shapes(s), 4);

    const uint32_t *start_gpus[4] = {node1, pair, all, transfer};
    uint64_t ends[4] = {0};
    SimEngine *engine = sim_engine_new();
    SimHandlerId h = sim_engine_register(engine, "test-end", on_end, ends);
    NetModel *net = net_new(NET_FIDELITY_FLOW, engine, f.graph, f.router, NULL);
    uint32_t places[4];
    for (uint32_t k = 0; k < 4; k++)
        places[k] = coll_session_place(s, shapes[k], start_gpus[k], NULL, 0);
    coll_session_attach(s, engine, net, h, 4);
    uint64_t t0 = 0;
    for (uint32_t k = 0; k < 4; k++) {
        coll_session_start(s, places[k], k);
        ck_assert_int_eq(sim_engine_run(engine, SIM_TIME_NEVER), SIM_RUN_DRAINED);
        ck_assert_msg(ends[k] - t0 == expect[k],
                      "call %u: %" G_GUINT64_FORMAT " ps, expected %" G_GUINT64_FORMAT, k,
                      ends[k] - t0, expect[k]);
        t0 = ends[k];
    }
    uint64_t n_flows, n_load;
    coll_session_counts(s, &n_flows, &n_load);
    ck_assert_uint_eq(n_load, 0);
    uint64_t flows = 0;
    for (int k = 0; k < 4; k++)
        flows += coll_session_n_flows(s, shapes[k]);
    ck_assert_uint_eq(n_flows, flows);
    net_free(net);
    sim_engine_free(engine);
    fabric_clear(&f);
}
END_TEST

Suite *
coll_session_suite(void)
{
    Suite *s = suite_create("coll-session");
    TCase *tc = tcase_create("traffic");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, ring_flows_carry_the_schedule_payload);
    tcase_add_test(tc, nvls_flows_reach_every_plane_by_its_links);
    tcase_add_test(tc, a_call_alone_in_a_session_ends_when_coll_run_does);
    suite_add_tcase(s, tc);
    return s;
}
