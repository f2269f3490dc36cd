/* SPDX-License-Identifier: Apache-2.0 */
/* The packet and flow engines must agree: the same traffic through both,
 * bandwidth-bound, within 2% of each other and of the closed form. Cases:
 * one transfer on one link, two flows sharing a link, an all-to-all through
 * a crossbar, a ring (a permutation) through a crossbar, and 5/5/4/4 planes
 * as on an H100 baseboard; and, on two DGX H100 nodes, one copy and a ring
 * across the fabric (against each other only). */
#include <check.h>
#include <math.h>

#include "hw/hw-models.h"
#include "hw/hw-system.h"
#include "net/net-probe.h"
#include "net-suites.h"
#include "topo/topo-build.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

#define BW UINT64_C(25000000000)
#define HEADER UINT64_C(16)
#define PAYLOAD UINT64_C(256)

static const HwLink agree_link = {
    .name = "agree link",
    .kind = HW_LINK_NVLINK,
    .bytes_per_s = BW,
    .header_bytes = HEADER,
    .sm_payload_bytes = 128,
    .ce_payload_bytes = PAYLOAD,
    .latency_ps = 150000,
    .rx_buffer_bytes = 64 << 10,
    .credit_bytes = 16,
};

static const HwSwitch agree_switch = {
    .name = "agree switch",
    .kind = HW_SWITCH_NVSWITCH,
    .n_ports = 64,
    .latency_ps = 200000,
    .port_buffer_bytes = 64 << 10,
};

typedef struct Case {
    const char *name;
    uint32_t n_gpus;
    uint32_t n_planes; /* switches; 0: GPUs 0 and 1 joined directly */
    uint32_t links[4]; /* per plane, links from every GPU */
    uint64_t n_bytes;  /* per transfer */
    enum { ONE, SHARE, ALL_TO_ALL, RING } traffic;
} Case;

static double
wire_s(uint64_t n_bytes, uint64_t bytes_per_s)
{
    return (double)n_bytes * (PAYLOAD + HEADER) / PAYLOAD / (double)bytes_per_s;
}

static const Case cases[] = {
    {"one transfer", 2, 0, {1}, 64 << 20, ONE},
    {"two share a link", 3, 1, {1}, 32 << 20, SHARE},
    {"all-to-all crossbar", 8, 1, {4}, 4 << 20, ALL_TO_ALL},
    {"ring crossbar", 8, 1, {2}, 32 << 20, RING},
    {"ring 5/5/4/4 planes", 8, 4, {5, 5, 4, 4}, 36 << 20, RING},
};

static double
closed_form_s(const Case *c)
{
    uint32_t width = 0;
    for (uint32_t p = 0; p < MAX(c->n_planes, 1); p++)
        width += c->links[p];
    uint64_t rate = width * BW;
    switch (c->traffic) {
    case ONE:
    case RING:
        return wire_s(c->n_bytes, rate);
    case SHARE:
        return wire_s(2 * c->n_bytes, rate);
    case ALL_TO_ALL:
        return wire_s((c->n_gpus - 1) * c->n_bytes, rate);
    }
    return 0;
}

static TopoGraph *
build(const Case *c)
{
    TopoGraph *g = topo_graph_new();
    for (uint32_t i = 0; i < c->n_gpus; i++)
        topo_graph_add_vertex(g, TOPO_GPU, 0, NULL);
    if (c->n_planes == 0) {
        topo_graph_add_bundle(g, 0, 1, &agree_link, c->links[0]);
        return g;
    }
    for (uint32_t p = 0; p < c->n_planes; p++) {
        uint32_t sw =
            topo_graph_add_vertex(g, TOPO_NVSWITCH, agree_switch.latency_ps, &agree_switch);
        for (uint32_t i = 0; i < c->n_gpus; i++)
            topo_graph_add_bundle(g, i, sw, &agree_link, c->links[p]);
    }
    return g;
}

static size_t
traffic(const Case *c, NetProbeXfer *x)
{
    size_t n = 0;
    switch (c->traffic) {
    case ONE:
        x[n++] = (NetProbeXfer){0, 1, c->n_bytes};
        break;
    case SHARE:
        x[n++] = (NetProbeXfer){0, 2, c->n_bytes};
        x[n++] = (NetProbeXfer){1, 2, c->n_bytes};
        break;
    case ALL_TO_ALL:
        for (uint32_t i = 0; i < c->n_gpus; i++)
            for (uint32_t j = 0; j < c->n_gpus; j++)
                if (i != j)
                    x[n++] = (NetProbeXfer){i, j, c->n_bytes};
        break;
    case RING:
        for (uint32_t i = 0; i < c->n_gpus; i++)
            x[n++] = (NetProbeXfer){i, (i + 1) % c->n_gpus, c->n_bytes};
        break;
    }
    return n;
}

START_TEST(engines_agree)
{
    const Case *c = &cases[_i];
    TopoGraph *g = build(c);
    TopoRouter *r = topo_router_new(g);
    NetProbeXfer xfers[64];
    size_t n = traffic(c, xfers);
    NetProbeResult packet, flow;
    net_probe_run(NET_FIDELITY_PACKET, g, r, xfers, n, NET_ISSUER_CE, NULL, &packet);
    net_probe_run(NET_FIDELITY_FLOW, g, r, xfers, n, NET_ISSUER_CE, NULL, &flow);
    double cf = closed_form_s(c);
    double tp = (double)packet.last_done_ps / 1e12, tf = (double)flow.last_done_ps / 1e12;
    ck_assert_msg(fabs(tp - cf) / cf <= 0.02, "%s: packet %.3f us vs closed form %.3f us", c->name,
                  tp * 1e6, cf * 1e6);
    ck_assert_msg(fabs(tf - cf) / cf <= 0.02, "%s: flow %.3f us vs closed form %.3f us", c->name,
                  tf * 1e6, cf * 1e6);
    ck_assert_msg(fabs(tp - tf) / tf <= 0.02, "%s: packet %.3f us vs flow %.3f us", c->name,
                  tp * 1e6, tf * 1e6);
    ck_assert_uint_eq(packet.stats.payload_bytes_sent, packet.stats.payload_bytes_delivered);
    ck_assert_uint_eq(flow.stats.payload_bytes_sent, flow.stats.payload_bytes_delivered);
    topo_router_free(r);
    topo_graph_free(g);
}
END_TEST

/* Two DGX H100 nodes on their fabric: NVLink, PCIe, NIC and InfiniBand hops
 * in one path, each with its own packet size. */
START_TEST(engines_agree_across_nodes)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSystem) sys = hw_system_load_by_id("dgx-h100", hw_models_dir(), &error);
    ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
    TopoGraph *g = topo_build_system(sys, 2, &error);
    ck_assert_msg(g != NULL, "%s", error ? error->message : "");
    TopoRouter *r = topo_router_new(g);
    NetProbeXfer xfers[16];
    size_t n = 0;
    if (_i == 0) {
        xfers[n++] =
            (NetProbeXfer){topo_graph_gpu_vertex(g, 0), topo_graph_gpu_vertex(g, 9), 64 << 20};
    } else {
        for (uint32_t i = 0; i < 16; i++)
            xfers[n++] = (NetProbeXfer){topo_graph_gpu_vertex(g, i),
                                        topo_graph_gpu_vertex(g, (i + 1) % 16), 16 << 20};
    }
    NetProbeResult packet, flow;
    net_probe_run(NET_FIDELITY_PACKET, g, r, xfers, n, NET_ISSUER_CE, NULL, &packet);
    net_probe_run(NET_FIDELITY_FLOW, g, r, xfers, n, NET_ISSUER_CE, NULL, &flow);
    double tp = (double)packet.last_done_ps, tf = (double)flow.last_done_ps;
    ck_assert_msg(fabs(tp - tf) / tf <= 0.02, "case %d: packet %.3f us vs flow %.3f us", _i,
                  tp / 1e6, tf / 1e6);
    topo_router_free(r);
    topo_graph_free(g);
}
END_TEST

Suite *
net_agree_suite(void)
{
    Suite *s = suite_create("net-agree");
    TCase *tc = tcase_create("packet-vs-flow");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, engines_agree, 0, G_N_ELEMENTS(cases));
    tcase_add_loop_test(tc, engines_agree_across_nodes, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
