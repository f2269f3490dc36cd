/* SPDX-License-Identifier: Apache-2.0 */
/* sim/topo faults: [faults] lists parsed, checked against a system and
 * applied as the graph is built; bad faults fail with file, group, key and
 * what was expected. Closed forms, to the picosecond, of traffic over a
 * faulted graph (sim/net's flow and packet engines): a transfer over a
 * bundle at half rate takes the half-rate serialization; one DGX H100
 * plane of 5 links down leaves 13 of 18 links, so a transfer sprayed over
 * the others takes 18/13 of the time; traffic routes around a GPU's lost
 * bundle and puts not one byte on the plane it lost.
 */
#include <math.h>
#include <string.h>

#include "core/core-time.h"
#include "net/net-p2p.h"
#include "net/net.h"
#include "topo-suites.h"
#include "topo/topo-build.h"
#include "topo/topo-fault.h"

/* Faults from "[faults]\n" + text; fails the test on an error. */
static TopoFaults *
faults_of(const char *text)
{
    g_autofree char *data = g_strdup_printf("[faults]\n%s\n", text);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    ck_assert(g_key_file_load_from_data(kf, data, (gsize)-1, G_KEY_FILE_NONE, NULL));
    TopoFaults *faults = topo_faults_new();
    g_autoptr(GError) error = NULL;
    ck_assert_msg(topo_faults_load(faults, kf, "test.ini", &error), "%s: %s", text,
                  error ? error->message : "");
    return faults;
}

typedef struct Faulted {
    HwSystem *sys;
    TopoFaults *faults;
    TopoGraph *graph;
    TopoRouter *router;
} Faulted;

static void
faulted_load(Faulted *f, const char *id, uint32_t n_nodes, const char *faults)
{
    f->sys = topo_test_load_system(id);
    f->faults = faults_of(faults);
    g_autoptr(GError) error = NULL;
    f->graph = topo_build_system_faulted(f->sys, n_nodes, f->faults, &error);
    ck_assert_msg(f->graph != NULL, "%s with %s: %s", id, faults, error ? error->message : "");
    f->router = topo_router_new(f->graph);
}

static void
faulted_clear(Faulted *f)
{
    topo_router_free(f->router);
    topo_graph_free(f->graph);
    topo_faults_free(f->faults);
    hw_system_free(f->sys);
}

/* Vertex of NVSwitch plane s of node (one board). */
static uint32_t
switch_vertex(const TopoGraph *g, uint32_t node, uint32_t s)
{
    uint32_t found = TOPO_NONE;
    for (uint32_t v = 0; v < topo_graph_n_vertices(g); v++) {
        const TopoVertex *x = topo_graph_vertex(g, v);
        if (x->kind == TOPO_NVSWITCH && x->node == node && x->index == s)
            found = v;
    }
    ck_assert_uint_ne(found, TOPO_NONE);
    return found;
}

/* The bundle from vertex a to vertex b, or NULL. */
static const TopoLink *
bundle(const TopoGraph *g, uint32_t a, uint32_t b)
{
    for (uint32_t l = 0; l < topo_graph_n_links(g); l++) {
        const TopoLink *link = topo_graph_link(g, l);
        if (link->src == a && link->dst == b)
            return link;
    }
    return NULL;
}

static uint32_t
gpu(const Faulted *f, uint32_t i)
{
    return topo_graph_gpu_vertex(f->graph, i);
}

/* The route's path weights, sorted down, as "5,4,4". */
static char *
weights(const Faulted *f, uint32_t a, uint32_t b)
{
    TopoRoute route;
    ck_assert(topo_router_route(f->router, gpu(f, a), gpu(f, b), &route));
    uint32_t w[TOPO_MAX_PATHS];
    for (uint32_t p = 0; p < route.n_paths; p++)
        w[p] = route.path[p].weight;
    for (uint32_t i = 0; i < route.n_paths; i++)
        for (uint32_t j = i + 1; j < route.n_paths; j++)
            if (w[j] > w[i]) {
                uint32_t t = w[i];
                w[i] = w[j];
                w[j] = t;
            }
    GString *s = g_string_new(NULL);
    for (uint32_t p = 0; p < route.n_paths; p++)
        g_string_append_printf(s, "%s%u", p ? "," : "", w[p]);
    return g_string_free(s, FALSE);
}

static void
assert_weights(const Faulted *f, uint32_t a, uint32_t b, const char *expect)
{
    g_autofree char *got = weights(f, a, b);
    ck_assert_msg(strcmp(got, expect) == 0, "GPU%u->GPU%u: path weights %s, expected %s", a, b, got,
                  expect);
}

/* ---- Applied as the graph is built. ---- */

/* DGX H100 planes are 5,5,4,4 links: plane 1 down leaves 5,4,4 on every
 * node; its switches keep no link at all. */
START_TEST(plane_down_on_every_node)
{
    Faulted f;
    faulted_load(&f, "dgx-h100", 2, "planes_down = 1");
    ck_assert(f.graph->faulted);
    for (uint32_t node = 0; node < 2; node++) {
        uint32_t sw = switch_vertex(f.graph, node, 1);
        for (uint32_t l = 0; l < topo_graph_n_links(f.graph); l++)
            ck_assert_msg(topo_graph_link(f.graph, l)->src != sw &&
                              topo_graph_link(f.graph, l)->dst != sw,
                          "node %u: link %u still reaches plane 1", node, l);
    }
    for (uint32_t a = 0; a < 16; a++)
        for (uint32_t b = 0; b < 16; b++)
            if (a != b && a / 8 == b / 8)
                assert_weights(&f, a, b, "5,4,4");
    faulted_clear(&f);
}
END_TEST

/* GPU 3 loses 2 of its 5 links to plane 1: its routes weigh 5,4,4,3; the
 * other GPUs' routes between themselves keep 5,5,4,4. All of the bundle
 * down: GPU 3's routes leave plane 1 out, the others still use it. */
START_TEST(links_down_on_one_gpu)
{
    Faulted f;
    faulted_load(&f, "dgx-h100", 1, "links_down = 3:1x2");
    const TopoLink *l = bundle(f.graph, gpu(&f, 3), switch_vertex(f.graph, 0, 1));
    ck_assert(l != NULL);
    ck_assert_uint_eq(l->n_links, 3);
    ck_assert_uint_eq(l->bytes_per_s, 3 * f.sys->nvlink->bytes_per_s);
    ck_assert_uint_eq(bundle(f.graph, switch_vertex(f.graph, 0, 1), gpu(&f, 3))->n_links, 3);
    assert_weights(&f, 3, 6, "5,4,4,3");
    assert_weights(&f, 6, 3, "5,4,4,3");
    assert_weights(&f, 0, 1, "5,5,4,4");
    faulted_clear(&f);

    faulted_load(&f, "dgx-h100", 1, "links_down = 3:1");
    ck_assert(bundle(f.graph, gpu(&f, 3), switch_vertex(f.graph, 0, 1)) == NULL);
    assert_weights(&f, 3, 0, "5,4,4");
    assert_weights(&f, 0, 3, "5,4,4");
    assert_weights(&f, 0, 1, "5,5,4,4");
    faulted_clear(&f);
}
END_TEST

/* A slow bundle keeps its links (and its share of the spray) at half the
 * rate; a noisy one its rate with the error rate; the others the model's. */
START_TEST(slow_and_noisy_bundles)
{
    Faulted f;
    faulted_load(&f, "dgx-h100", 1,
                 "slow_links = 3:1\nslow_rate = 0.5\ncrc_links = 2:0\ncrc_error_rate = 1e-4");
    uint64_t link = f.sys->nvlink->bytes_per_s;
    uint32_t s0 = switch_vertex(f.graph, 0, 0), s1 = switch_vertex(f.graph, 0, 1);
    const TopoLink *slow[] = {bundle(f.graph, gpu(&f, 3), s1), bundle(f.graph, s1, gpu(&f, 3))};
    for (int d = 0; d < 2; d++) {
        ck_assert_uint_eq(slow[d]->n_links, 5);
        ck_assert_uint_eq(slow[d]->bytes_per_s, 5 * link / 2);
        ck_assert(slow[d]->packet_error_rate == 0);
    }
    ck_assert_uint_eq(bundle(f.graph, gpu(&f, 4), s1)->bytes_per_s, 5 * link);
    assert_weights(&f, 3, 4, "5,5,4,4");
    ck_assert(bundle(f.graph, gpu(&f, 2), s0)->packet_error_rate == 1e-4);
    ck_assert(bundle(f.graph, s0, gpu(&f, 2))->packet_error_rate == 1e-4);
    ck_assert(bundle(f.graph, gpu(&f, 1), s0)->packet_error_rate == 0);
    ck_assert(f.graph->faulted);
    faulted_clear(&f);
}
END_TEST

/* DGX-1V: GPUs 0 and 1 have one direct link. Down, their traffic goes the
 * way the router allows without it: GPUs do not forward, so over PCIe and
 * the host. GPUs 0 and 3 have two: one down leaves one. */
START_TEST(dgx1_direct_link_down)
{
    Faulted f;
    faulted_load(&f, "dgx1-v100", 1, "links_down = 0-1, 3-0x1");
    TopoRoute route;
    ck_assert(topo_router_route(f.router, gpu(&f, 0), gpu(&f, 1), &route));
    for (uint32_t p = 0; p < route.n_paths; p++) {
        ck_assert(!topo_test_path_uses(f.graph, &route.path[p], HW_LINK_NVLINK));
        ck_assert(topo_test_path_uses(f.graph, &route.path[p], HW_LINK_PCIE));
    }
    ck_assert(bundle(f.graph, gpu(&f, 0), gpu(&f, 1)) == NULL);
    ck_assert_uint_eq(bundle(f.graph, gpu(&f, 0), gpu(&f, 3))->n_links, 1);
    ck_assert_uint_eq(bundle(f.graph, gpu(&f, 0), gpu(&f, 4))->n_links, 2);
    faulted_clear(&f);
}
END_TEST

/* ---- Traffic over a faulted graph, closed forms. ---- */

/* One copy of 1000 full 256 B packets (272 B on the wire) from GPU 0 to
 * GPU 1 of a DGX-1V over their one NVLink 2 at half its 25 GB/s: each
 * packet 21,760 ps instead of 10,880, then the 150 ns link latency. Both
 * engines; the healthy link for contrast. */
static const struct {
    const char *name;
    NetFidelity fidelity;
    const char *faults;
    uint64_t expect_ps;
} half_rate_cases[] = {
    {"flow, healthy", NET_FIDELITY_FLOW, "", 1000 * UINT64_C(10880) + 150000},
    {"flow, half rate", NET_FIDELITY_FLOW, "slow_links = 0-1\nslow_rate = 0.5",
     1000 * UINT64_C(21760) + 150000},
    {"packet, healthy", NET_FIDELITY_PACKET, "", 1000 * UINT64_C(10880) + 150000},
    {"packet, half rate", NET_FIDELITY_PACKET, "slow_links = 1-0\nslow_rate = 0.5",
     1000 * UINT64_C(21760) + 150000},
};

START_TEST(half_rate_transfer_closed_form)
{
    Faulted f;
    faulted_load(&f, "dgx1-v100", 1, half_rate_cases[_i].faults);
    NetP2p p2p = {.fidelity = half_rate_cases[_i].fidelity,
                  .issuer = NET_ISSUER_CE,
                  .graph = f.graph,
                  .router = f.router};
    uint64_t t = net_p2p_time_ps(&p2p, NET_P2P_UNIDIRECTIONAL, 0, 1, 1000 * 256);
    ck_assert_msg(t == half_rate_cases[_i].expect_ps,
                  "%s: %" G_GUINT64_FORMAT " ps, expected %" G_GUINT64_FORMAT,
                  half_rate_cases[_i].name, t, half_rate_cases[_i].expect_ps);
    faulted_clear(&f);
}
END_TEST

typedef struct Sent {
    uint64_t last_ps;
} Sent;

static void
on_sent(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)event;
    Sent *s = ctx;
    s->last_ps = MAX(s->last_ps, sim_engine_now(engine));
}

/* Sends n_bytes from GPU a to GPU b alone at flow fidelity, counting every
 * link's wire bytes into load (may be NULL); returns when it landed. */
static uint64_t
send_alone(const Faulted *f, uint32_t a, uint32_t b, uint64_t n_bytes, NetLinkLoad *load)
{
    SimEngine *engine = sim_engine_new();
    Sent sent = {0};
    SimHandlerId h = sim_engine_register(engine, "sent", on_sent, &sent);
    NetModel *net = net_new(NET_FIDELITY_FLOW, engine, f->graph, f->router, NULL);
    if (load != NULL)
        net_set_link_load(net, load);
    NetSend send = {.src = gpu(f, a),
                    .dst = gpu(f, b),
                    .n_bytes = n_bytes,
                    .path = NET_PATH_SPRAY,
                    .issuer = NET_ISSUER_CE,
                    .on_done = h};
    net_send(net, &send);
    sim_engine_run(engine, SIM_TIME_NEVER);
    net_free(net);
    sim_engine_free(engine);
    return sent.last_ps;
}

/* The latest a packet of 272 B ends after draining, over every path of
 * the route from a to b: on each path its serialization on both hops less
 * the bottleneck's (counted in the drain), two link latencies and the
 * switch. */
static uint64_t
tail_ps(const Faulted *f, uint32_t a, uint32_t b)
{
    TopoRoute route;
    ck_assert(topo_router_route(f->router, gpu(f, a), gpu(f, b), &route));
    uint64_t worst = 0;
    for (uint32_t p = 0; p < route.n_paths; p++) {
        const TopoLink *up = topo_graph_link(f->graph, route.path[p].link[0]);
        uint64_t ser = sim_serialization_ps(272, up->bytes_per_s);
        worst =
            MAX(worst, ser + 2 * up->latency_ps + topo_graph_vertex(f->graph, up->dst)->latency_ps);
    }
    return worst;
}

/* 18 x 13 x 100 packets of 256 B from GPU 0 to GPU 1 of a DGX H100. Healthy
 * the 18 links carry 1300 packets each: 1300 x 10,880 ps; with plane 1's 5
 * links down the 13 left carry 1800 each: 18/13 of the time. */
START_TEST(plane_down_transfer_closed_form)
{
    const uint64_t n_bytes = 18 * 13 * 100 * UINT64_C(256);
    Faulted healthy, down;
    faulted_load(&healthy, "dgx-h100", 1, "");
    faulted_load(&down, "dgx-h100", 1, "planes_down = 1");
    uint64_t t0 = send_alone(&healthy, 0, 1, n_bytes, NULL);
    uint64_t t1 = send_alone(&down, 0, 1, n_bytes, NULL);
    ck_assert_uint_eq(t0, 1300 * UINT64_C(10880) + tail_ps(&healthy, 0, 1));
    ck_assert_uint_eq(t1, 1800 * UINT64_C(10880) + tail_ps(&down, 0, 1));
    faulted_clear(&healthy);
    faulted_clear(&down);
}
END_TEST

/* GPU 3 lost its bundle to plane 1: GPU 0's copy to GPU 3 puts 0 bytes on
 * GPU 0's link to plane 1 (which still serves its other peers) and its
 * bytes over the other three in proportion 5:4:4. */
START_TEST(routes_avoid_a_lost_bundle)
{
    const uint64_t n_bytes = 13 * 1000 * UINT64_C(256);
    Faulted f;
    faulted_load(&f, "dgx-h100", 1, "links_down = 3:1");
    g_autoptr(NetLinkLoad) load = net_link_load_new(topo_graph_n_links(f.graph), SIM_PS_PER_S, 2);
    send_alone(&f, 0, 3, n_bytes, load);
    double wire[4];
    for (uint32_t s = 0; s < 4; s++) {
        const TopoLink *l = bundle(f.graph, gpu(&f, 0), switch_vertex(f.graph, 0, s));
        uint32_t id = (uint32_t)(l - &g_array_index(f.graph->links, TopoLink, 0));
        wire[s] = load->wire_bytes[(size_t)id * load->max_bins] +
                  load->wire_bytes[(size_t)id * load->max_bins + 1];
    }
    ck_assert(wire[1] == 0);
    ck_assert(bundle(f.graph, gpu(&f, 0), switch_vertex(f.graph, 0, 1)) != NULL);
    /* The three planes left are lumped into one flow (net-flow-planes.c),
     * whose wire bytes the links share by their widths, in doubles. */
    ck_assert_msg(fabs(wire[0] - 5000 * 272.0) <= 1e-9 * wire[0] &&
                      fabs(wire[2] - 4000 * 272.0) <= 1e-9 * wire[2] &&
                      fabs(wire[3] - 4000 * 272.0) <= 1e-9 * wire[3],
                  "wire bytes to planes 0, 2, 3: %.6f, %.6f, %.6f", wire[0], wire[2], wire[3]);
    faulted_clear(&f);
}
END_TEST

/* ---- Bad faults. ---- */

static const struct {
    const char *name;
    const char *system;
    const char *faults;
    const char *expect; /* in the message */
} bad_cases[] = {
    {"unknown key", "dgx-h100", "plane_down = 1",
     "test.ini: [faults] plane_down: unknown key; expected one of: planes_down, links_down"},
    {"plane out of range", "dgx-h100", "planes_down = 4",
     "[faults] planes_down: '4' names plane 4; expected NVSwitch planes 0 to 3 of dgx-h100"},
    {"plane not a number", "dgx-h100", "planes_down = one",
     "test.ini: [faults] planes_down: 'one' is not a plane number; expected"},
    {"no planes on a DGX-1", "dgx1-v100", "planes_down = 0",
     "[faults] planes_down: '0': dgx1-v100 has no NVSwitch planes"},
    {"unknown GPU", "dgx-h100", "links_down = 8:0",
     "[faults] links_down: '8:0' names GPU 8; expected GPUs 0 to 7 of dgx-h100"},
    {"unknown GPU of a pair", "dgx1-v100", "slow_links = 0-9\nslow_rate = 0.5",
     "[faults] slow_links: '0-9' names GPU 9; expected GPUs 0 to 7 of dgx1-v100"},
    {"malformed bundle", "dgx-h100", "links_down = 3/1",
     "test.ini: [faults] links_down: '3/1' is malformed; expected G:P"},
    {"a GPU to itself", "dgx1-v100", "links_down = 2-2",
     "test.ini: [faults] links_down: '2-2' joins GPU 2 to itself"},
    {"no such pair", "dgx1-v100", "crc_links = 0-5\ncrc_error_rate = 1e-3",
     "[faults] crc_links: '0-5': GPUs 0 and 5 of dgx1-v100 have no direct link; expected one of: "
     "0-1, 0-2"},
    {"pairs on a switch system", "dgx-h100", "links_down = 0-1",
     "[faults] links_down: '0-1': GPUs 0 and 1 of dgx-h100 have no direct link; expected G:P"},
    {"more links than the bundle", "dgx-h100", "links_down = 3:2x5",
     "[faults] links_down: '3:2x5' takes 5 links in all from a bundle of 4; expected xN with N "
     "at most 4"},
    {"partial losses add up", "dgx-h100", "links_down = 3:2x2, 3:2x3",
     "takes 5 links in all from a bundle of 4"},
    {"x0", "dgx-h100", "links_down = 3:2x0", "'3:2x0' is malformed"},
    {"a slow bundle named in part", "dgx-h100", "slow_links = 3:1x2\nslow_rate = 0.5",
     "test.ini: [faults] slow_links: '3:1x2': a slow or noisy bundle is named whole"},
    {"slow without a rate", "dgx-h100", "slow_links = 3:1",
     "test.ini: [faults] slow_rate: missing; slow_links and slow_nics need the share of the rate "
     "they keep"},
    {"rate 0", "dgx-h100", "slow_links = 3:1\nslow_rate = 0",
     "test.ini: [faults] slow_rate: '0' is out of range: expected a share above 0 and at most 1"},
    {"rate above 1", "dgx-h100", "slow_links = 3:1\nslow_rate = 1.5",
     "test.ini: [faults] slow_rate: '1.5' is out of range: expected a share above 0"},
    {"rate NaN", "dgx-h100", "slow_links = 3:1\nslow_rate = nan",
     "test.ini: [faults] slow_rate: 'nan' is not a number: expected a share above 0"},
    {"rate negative", "dgx-h100", "slow_links = 3:1\nslow_rate = -0.5",
     "test.ini: [faults] slow_rate: '-0.5' is out of range"},
    {"error rate 1", "dgx-h100", "crc_links = 3:1\ncrc_error_rate = 1",
     "test.ini: [faults] crc_error_rate: '1' is out of range: expected a probability at least 0 "
     "and below 1"},
    {"error rate missing", "dgx-h100", "crc_links = 3:1",
     "test.ini: [faults] crc_error_rate: missing; crc_links needs"},
    {"NIC out of range", "dgx-h100", "nics_down = 8",
     "[faults] nics_down: '8' names NIC 8; expected NICs 0 to 7 of dgx-h100"},
    {"NIC not a number", "dgx-h100", "nics_down = three",
     "test.ini: [faults] nics_down: 'three' is not a NIC number; expected a node's NICs"},
    {"slow NIC without a rate", "dgx-h100", "slow_nics = 2",
     "test.ini: [faults] slow_rate: missing; slow_links and slow_nics need the share"},
    {"every NIC down", "dgx1-v100", "nics_down = 0,1,2,3",
     "[faults] nics_down: every one of dgx1-v100's 4 NICs is down; expected at least one up"},
};

START_TEST(bad_faults_fail_with_context)
{
    g_autoptr(HwSystem) sys = topo_test_load_system(bad_cases[_i].system);
    g_autofree char *data = g_strdup_printf("[faults]\n%s\n", bad_cases[_i].faults);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    ck_assert(g_key_file_load_from_data(kf, data, (gsize)-1, G_KEY_FILE_NONE, NULL));
    g_autoptr(TopoFaults) faults = topo_faults_new();
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoGraph) g = NULL;
    if (topo_faults_load(faults, kf, "test.ini", &error))
        g = topo_build_system_faulted(sys, 1, faults, &error);
    ck_assert_msg(g == NULL && error != NULL, "%s: no error", bad_cases[_i].name);
    ck_assert_msg(strstr(error->message, bad_cases[_i].expect) != NULL,
                  "%s: message '%s' lacks '%s'", bad_cases[_i].name, error->message,
                  bad_cases[_i].expect);
}
END_TEST

/* --fault KEY=VALUE items: lists given twice add up; a key that is not a
 * [faults] key names the option and the keys. */
START_TEST(faults_from_options)
{
    char *sets[] = {"links_down=3:1x1", "links_down=3:1x1", "slow_links=0:0", "slow_rate=0.25",
                    NULL};
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoFaults) faults = topo_faults_from_sets(sets, "--fault", &error);
    ck_assert_msg(faults != NULL, "%s", error ? error->message : "");
    TopoBundleFault bf;
    topo_faults_bundle(faults, 3, 1, TOPO_FAULT_NONE, 5, &bf);
    ck_assert_uint_eq(bf.n_links, 3);
    topo_faults_bundle(faults, 0, 0, TOPO_FAULT_NONE, 5, &bf);
    ck_assert(bf.rate_factor == 0.25 && bf.n_links == 5);
    g_autofree char *text = topo_faults_describe(faults, NULL);
    ck_assert_str_eq(text, "GPU 3 to plane 1: 1 link down; GPU 3 to plane 1: 1 link down; GPU 0 "
                           "to plane 0: at 0.25 of its rate (on every node)");
    char *bad[] = {"plane=1", NULL};
    g_autoptr(GError) e2 = NULL;
    ck_assert(topo_faults_from_sets(bad, "--fault", &e2) == NULL);
    ck_assert_msg(strstr(e2->message, "--fault plane=1: expected KEY=VALUE with KEY one of: "
                                      "planes_down, links_down") != NULL,
                  "%s", e2->message);
}
END_TEST

/* NIC 3 of every DGX H100 node down: NIC 3 gets no fabric link; GPU 3, the
 * one GPU it served, reaches the network through NIC 4 (the next one up),
 * and every route between the two nodes crosses the NIC it crossed
 * before except GPU 3's: the rings that used NIC 3, and only they, move. */
START_TEST(nic_down_moves_only_its_gpus)
{
    g_autoptr(HwSystem) sys = topo_test_load_system("dgx-h100");
    char *sets[] = {"nics_down=3", NULL};
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoFaults) faults = topo_faults_from_sets(sets, "--fault", &error);
    ck_assert_msg(faults != NULL, "%s", error ? error->message : "");
    ck_assert(topo_faults_check(faults, sys, &error));
    g_autofree char *text = topo_faults_describe(faults, sys);
    ck_assert_str_eq(text, "NIC 3 down (on every node)");
    g_autoptr(TopoGraph) whole = topo_build_system(sys, 2, &error);
    g_autoptr(TopoGraph) faulted = topo_build_system_faulted(sys, 2, faults, &error);
    ck_assert_msg(whole != NULL && faulted != NULL, "%s", error ? error->message : "");
    ck_assert(faulted->faulted);
    ck_assert_uint_eq(topo_graph_n_links(faulted), topo_graph_n_links(whole) - 2 * 2);
    g_autoptr(TopoRouter) before = topo_router_new(whole);
    g_autoptr(TopoRouter) after = topo_router_new(faulted);
    for (uint32_t g = 0; g < 8; g++) {
        ck_assert_uint_eq(topo_router_gpu_nic(before, g), g);
        ck_assert_uint_eq(topo_router_gpu_nic(after, g), g == 3 ? 4 : g);
    }
    for (uint32_t a = 0; a < 8; a++)
        for (uint32_t b = 8; b < 16; b++) {
            TopoRoute r0, r1;
            ck_assert(topo_router_route(before, topo_graph_gpu_vertex(whole, a),
                                        topo_graph_gpu_vertex(whole, b), &r0));
            ck_assert(topo_router_route(after, topo_graph_gpu_vertex(faulted, a),
                                        topo_graph_gpu_vertex(faulted, b), &r1));
            /* The first NIC each route crosses, by its index in node 0. */
            uint32_t nic[2] = {TOPO_NONE, TOPO_NONE};
            const TopoGraph *graphs[2] = {whole, faulted};
            const TopoRoute *routes[2] = {&r0, &r1};
            for (int k = 0; k < 2; k++)
                for (uint32_t h = 0; h < routes[k]->path[0].n_hops && nic[k] == TOPO_NONE; h++) {
                    const TopoLink *l = topo_graph_link(graphs[k], routes[k]->path[0].link[h]);
                    const TopoVertex *v = topo_graph_vertex(graphs[k], l->dst);
                    if (v->kind == TOPO_NIC)
                        nic[k] = v->index;
                }
            ck_assert_uint_eq(nic[0], a);
            ck_assert_msg(nic[1] == (a == 3 ? 4 : a), "GPU %u to GPU %u: NIC %u", a, b, nic[1]);
        }
}
END_TEST

/* NIC 5 at a quarter of its rate on two DGX H100 nodes: its links to the
 * leaf, both ways, on both nodes, carry a quarter of the NDR port's rate;
 * every other NIC's the whole; routes are those of the whole fabric. */
START_TEST(slow_nic_keeps_its_share)
{
    g_autoptr(HwSystem) sys = topo_test_load_system("dgx-h100");
    char *sets[] = {"slow_nics=5", "slow_rate=0.25", NULL};
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoFaults) faults = topo_faults_from_sets(sets, "--fault", &error);
    ck_assert_msg(faults != NULL, "%s", error ? error->message : "");
    ck_assert(topo_faults_check(faults, sys, &error));
    g_autoptr(TopoGraph) g = topo_build_system_faulted(sys, 2, faults, &error);
    ck_assert_msg(g != NULL, "%s", error ? error->message : "");
    uint64_t port = sys->nic->port_link->bytes_per_s;
    uint32_t n_slow = 0;
    for (uint32_t l = 0; l < topo_graph_n_links(g); l++) {
        const TopoLink *link = topo_graph_link(g, l);
        const TopoVertex *a = topo_graph_vertex(g, link->src), *b = topo_graph_vertex(g, link->dst);
        const TopoVertex *nic = a->kind == TOPO_NIC ? a : b->kind == TOPO_NIC ? b : NULL;
        if (nic == NULL || (a->kind != TOPO_LEAF && b->kind != TOPO_LEAF))
            continue;
        bool slow = nic->index == 5;
        n_slow += slow;
        ck_assert_uint_eq(link->bytes_per_s, slow ? port / 4 : port);
    }
    ck_assert_uint_eq(n_slow, 2 * 2);
    g_autofree char *text = topo_faults_describe(faults, sys);
    ck_assert_str_eq(text, "NIC 5: at 0.25 of its rate (on every node)");
}
END_TEST

Suite *
topo_fault_suite(void)
{
    Suite *s = suite_create("topo-fault");
    TCase *tc = tcase_create("applied");
    tcase_add_test(tc, plane_down_on_every_node);
    tcase_add_test(tc, links_down_on_one_gpu);
    tcase_add_test(tc, slow_and_noisy_bundles);
    tcase_add_test(tc, dgx1_direct_link_down);
    suite_add_tcase(s, tc);
    tc = tcase_create("traffic");
    tcase_add_loop_test(tc, half_rate_transfer_closed_form, 0, G_N_ELEMENTS(half_rate_cases));
    tcase_add_test(tc, plane_down_transfer_closed_form);
    tcase_add_test(tc, routes_avoid_a_lost_bundle);
    suite_add_tcase(s, tc);
    tc = tcase_create("bad");
    tcase_add_loop_test(tc, bad_faults_fail_with_context, 0, G_N_ELEMENTS(bad_cases));
    tcase_add_test(tc, faults_from_options);
    tcase_add_test(tc, nic_down_moves_only_its_gpus);
    tcase_add_test(tc, slow_nic_keeps_its_share);
    suite_add_tcase(s, tc);
    return s;
}
