/* SPDX-License-Identifier: Apache-2.0 */
/* A call's latency terms, each exactly where the executor and coll_run
 * put it, to the picosecond: an 8-byte all_reduce of two ranks (two ring
 * steps of 4 bytes) on two GPUs joined by one link, and on GPU 0 of two
 * DGX H100 nodes. The kernel's
 * setup delays every step once; a step's synchronisation adds to each of
 * the two steps; Simple's flag follows each step's data inside a node,
 * while between nodes the proxy carries the data and there is no flag
 * (the step's network cost stands for it). */
#include "coll-suites.h"
#include "coll/coll-build.h"
#include "coll/coll-run.h"
#include "topo/topo-build.h"
#include "topo/topo-route.h"

static const HwLink pair_link = {
    .name = "one link",
    .kind = HW_LINK_NVLINK,
    .bytes_per_s = UINT64_C(25000000000),
    .header_bytes = 16,
    .sm_payload_bytes = 128,
    .ce_payload_bytes = 256,
    .latency_ps = 150000,
    .rx_buffer_bytes = 1 << 20,
    .credit_bytes = 16,
};

static const HwSystem pair_system = {.id = "pair", .name = "two GPUs"};

typedef struct Pair {
    TopoGraph *graph;
    TopoRouter *router;
    uint32_t vertex[2];
    uint32_t node_first[2];
    CollComm comm;
} Pair;

/* Two GPUs and their link. */
static void
pair_init(Pair *p)
{
    p->graph = topo_graph_new();
    for (uint32_t g = 0; g < 2; g++)
        p->vertex[g] = topo_graph_add_vertex(p->graph, TOPO_GPU, 0, NULL);
    topo_graph_add_bundle(p->graph, p->vertex[0], p->vertex[1], &pair_link, 1);
    p->router = topo_router_new(p->graph);
    p->comm = (CollComm){.system = &pair_system,
                         .graph = p->graph,
                         .router = p->router,
                         .n_ranks = 2,
                         .n_nodes = 1,
                         .ppn = 2,
                         .even = true,
                         .node_first = p->node_first,
                         .rank_vertex = p->vertex};
    p->node_first[0] = 0;
    p->node_first[1] = 2;
}

static void
pair_clear(Pair *p)
{
    topo_router_free(p->router);
    topo_graph_free(p->graph);
}

/* The 8-byte ring all_reduce of comm's two ranks with setup start_ps and
 * step costs. */
static uint64_t
ring_run(const CollComm *comm, CollProto proto, uint64_t start_ps, uint64_t step_ps,
         uint64_t net_step_ps)
{
    CollCall call = {.op = COLL_OP_ALL_REDUCE, .n_bytes = 8, .elem_bytes = 4};
    CollBuild b = {.comm = comm, .call = &call, .algo = COLL_ALGO_RING, .proto = proto};
    b.plan =
        (CollTunePlan){.n_channels = 1, .chunk_bytes = 4, .slice_bytes = 4, .slices_in_flight = 8};
    b.ex = coll_exec_new(comm->graph, comm->router, NULL, proto, 1, 0, start_ps);
    coll_exec_set_step_overhead(b.ex, step_ps, net_step_ps);
    uint32_t parts[2];
    for (uint32_t r = 0; r < 2; r++)
        parts[r] = coll_exec_participant(b.ex, comm->rank_vertex[r]);
    b.rank_part = parts;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(coll_build_ring(&b, &error), "%s", error ? error->message : "");
    CollExecResult result;
    ck_assert_msg(coll_exec_run(b.ex, NET_FIDELITY_FLOW, &result, &error), "%s",
                  error ? error->message : "");
    coll_exec_free(b.ex);
    return result.time_ps;
}

/* One packet of payload bytes from rank 0 to rank 1 (8: a flag). */
static uint64_t
packet_ps(const CollComm *comm, uint64_t payload)
{
    TopoRoute route;
    ck_assert(topo_router_route(comm->router, comm->rank_vertex[0], comm->rank_vertex[1], &route));
    return topo_path_latency_ps(comm->graph, &route.path[0], payload);
}

/* GPU 0 of each of two DGX H100 nodes. */
typedef struct Nodes {
    HwSystem *system;
    TopoGraph *graph;
    TopoRouter *router;
    CollComm *comm;
} Nodes;

static void
nodes_init(Nodes *n)
{
    g_autoptr(GError) error = NULL;
    n->system = coll_test_load_system("dgx-h100");
    n->graph = topo_build_system(n->system, 2, &error);
    ck_assert_msg(n->graph != NULL, "%s", error ? error->message : "");
    n->router = topo_router_new(n->graph);
    const uint32_t gpus[] = {0, n->system->n_gpus};
    n->comm = coll_comm_new_gpus(n->system, n->graph, n->router, gpus, 2, &error);
    ck_assert_msg(n->comm != NULL, "%s", error ? error->message : "");
}

static void
nodes_clear(Nodes *n)
{
    coll_comm_free(n->comm);
    topo_router_free(n->router);
    topo_graph_free(n->graph);
    hw_system_free(n->system);
}

START_TEST(setup_and_steps_in_a_node)
{
    Pair p;
    pair_init(&p);
    const uint64_t setup = 6263000, step = 450000;
    for (CollProto proto = COLL_PROTO_LL; proto < COLL_N_PROTOS; proto++) {
        uint64_t bare = ring_run(&p.comm, proto, 0, 0, 0);
        ck_assert_uint_eq(ring_run(&p.comm, proto, setup, 0, 0), bare + setup);
        ck_assert_uint_eq(ring_run(&p.comm, proto, setup, step, 0), bare + setup + 2 * step);
        /* A network cost is no cost inside a node. */
        ck_assert_uint_eq(ring_run(&p.comm, proto, 0, 0, 9000000), bare);
    }
    pair_clear(&p);
}
END_TEST

START_TEST(steps_across_nodes)
{
    Nodes n;
    nodes_init(&n);
    const uint64_t setup = 6263000, net = 21000000;
    for (CollProto proto = COLL_PROTO_LL; proto < COLL_N_PROTOS; proto++) {
        uint64_t bare = ring_run(n.comm, proto, 0, 0, 0);
        ck_assert_uint_eq(ring_run(n.comm, proto, setup, 0, net), bare + setup + 2 * net);
        /* An in-node step cost is not charged on the network's steps. */
        ck_assert_uint_eq(ring_run(n.comm, proto, 0, 450000, 0), bare);
    }
    /* The proxy carries the data between nodes: Simple takes no flag and no
     * fence there, each step one packet of its 4 bytes (LL's: 8 wire bytes
     * with the flags in them). */
    ck_assert_uint_eq(ring_run(n.comm, COLL_PROTO_SIMPLE, 0, 0, 0), 2 * packet_ps(n.comm, 4));
    ck_assert_uint_eq(ring_run(n.comm, COLL_PROTO_LL, 0, 0, 0), 2 * packet_ps(n.comm, 8));
    nodes_clear(&n);
}
END_TEST

START_TEST(simple_flags_in_a_node)
{
    /* Inside a node a Simple step is its data (one packet of 4 bytes), then
     * its 8-byte flag once the data has landed; an LL step one packet of 8
     * wire bytes, the flags in the lines. */
    Pair p;
    pair_init(&p);
    ck_assert_uint_eq(ring_run(&p.comm, COLL_PROTO_SIMPLE, 0, 0, 0),
                      2 * (packet_ps(&p.comm, 4) + packet_ps(&p.comm, 8)));
    ck_assert_uint_eq(ring_run(&p.comm, COLL_PROTO_LL, 0, 0, 0), 2 * packet_ps(&p.comm, 8));
    pair_clear(&p);
}
END_TEST

/* coll_run on shipped systems: the kernel starts after the runtime's
 * kernel_setup, and an NVLS call also after NCCL's NVLS latency less the
 * wire through the switch; a step between nodes costs the proxy's post
 * (three for Simple) on top of the NICs on its path. */
START_TEST(coll_run_start)
{
    g_autoptr(HwSystem) system = coll_test_load_system("dgx-h100");
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoGraph) graph = topo_build_system(system, 1, &error);
    ck_assert_msg(graph != NULL, "%s", error ? error->message : "");
    g_autoptr(TopoRouter) router = topo_router_new(graph);
    g_autoptr(CollComm) comm = coll_comm_new(system, graph, router, 8, &error);
    ck_assert_msg(comm != NULL, "%s", error ? error->message : "");
    CollCall ring = {.op = COLL_OP_ALL_REDUCE,
                     .n_bytes = 8,
                     .elem_bytes = 4,
                     .algo = COLL_ALGO_RING,
                     .proto = COLL_PROTO_LL};
    CollCall nvls = ring;
    nvls.algo = COLL_ALGO_NVLS;
    nvls.proto = COLL_PROTO_SIMPLE;
    CollResult r, n;
    ck_assert(coll_run(comm, &ring, NET_FIDELITY_FLOW, &r, &error));
    ck_assert(coll_run(comm, &nvls, NET_FIDELITY_FLOW, &n, &error));
    ck_assert_uint_eq(r.start_ps, system->runtime->kernel_setup_ps);
    ck_assert_uint_eq(n.start_ps, system->runtime->kernel_setup_ps);
    TopoRoute route;
    ck_assert(topo_router_route(router, comm->rank_vertex[0], comm->rank_vertex[1], &route));
    uint64_t sync = 25000000 - 2 * topo_path_latency_ps(graph, &route.path[0], 8);
    ck_assert_uint_ge(n.time_ps, n.start_ps + sync);
    ck_assert_uint_lt(n.time_ps, n.start_ps + sync + 5000000);
}
END_TEST

Suite *
coll_latency_suite(void)
{
    Suite *s = suite_create("coll-latency");
    TCase *tc = tcase_create("latency");
    tcase_add_test(tc, setup_and_steps_in_a_node);
    tcase_add_test(tc, steps_across_nodes);
    tcase_add_test(tc, simple_flags_in_a_node);
    tcase_add_test(tc, coll_run_start);
    suite_add_tcase(s, tc);
    return s;
}
