/* SPDX-License-Identifier: Apache-2.0 */
/* The packet engine against closed forms, to the picosecond: one packet,
 * a long transfer at line rate, transfers sharing a source link or a switch
 * output, N-to-1 incast, a permutation through a crossbar, spraying over
 * unequal planes, credit-limited rates (link and switch buffers), CRC
 * replays; and bytes conserved, credits never negative and all returned,
 * determinism (same seed, same trace hash), and the switches' deciding
 * ahead giving the same times as deciding one packet at a time. */
#include <check.h>
#include <string.h>

#include "core/core-engine.h"
#include "core/core-time.h"
#include "net/net-packet.h"
#include "net/net.h"
#include "net-suites.h"
#include "net-world.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

static NetPacketLinkStats
link_stats(const World *w, uint32_t link)
{
    NetPacketLinkStats ls;
    net_packet_link_stats(w->net, link, &ls);
    return ls;
}

static const struct {
    const char *name;
    NetIssuer issuer;
    uint64_t n_bytes;
    uint64_t n_packets;
    uint64_t expect_ps;
} one_packet_cases[] = {
    {"a full CE packet", NET_ISSUER_CE, 256, 1, 10880 + LAT},
    {"a partial packet", NET_ISSUER_CE, 100, 1, 4640 + LAT},
    {"one byte", NET_ISSUER_CE, 1, 1, 680 + LAT},
    {"zero bytes: a header alone", NET_ISSUER_CE, 0, 1, 640 + LAT},
    {"a full SM packet", NET_ISSUER_SM, 128, 1, 5760 + LAT},
    {"256 B from SMs is two packets", NET_ISSUER_SM, 256, 2, 2 * 5760 + LAT},
};

START_TEST(one_packet_one_link)
{
    World w;
    world_init(&w);
    world_pair(&w, 1);
    world_start(&w, 1);
    world_send_as(&w, 0, 1, one_packet_cases[_i].n_bytes, 3, one_packet_cases[_i].issuer);
    world_run(&w);
    ck_assert_msg(w.done.time_ps[3] == one_packet_cases[_i].expect_ps,
                  "%s: landed at %" PRIu64 " ps, expected %" PRIu64, one_packet_cases[_i].name,
                  w.done.time_ps[3], one_packet_cases[_i].expect_ps);
    ck_assert_uint_eq(w.done.bytes[3], one_packet_cases[_i].n_bytes);
    ck_assert_uint_eq(w.stats.n_packets, one_packet_cases[_i].n_packets);
    world_free(&w);
}
END_TEST

static const struct {
    const char *name;
    uint64_t n_full;
    uint64_t tail_bytes; /* payload of a last, short packet; 0 for none */
    uint32_t n_links;
} line_rate_cases[] = {
    {"1000 full packets", 1000, 0, 1},
    {"1000 full packets and a short one", 1000, 100, 1},
    {"a bundle of 4 is one wire of 4x the rate", 3000, 17, 4},
};

START_TEST(long_transfer_at_line_rate)
{
    World w;
    world_init(&w);
    world_pair(&w, line_rate_cases[_i].n_links);
    world_start(&w, 1);
    uint64_t rate = RATE * line_rate_cases[_i].n_links;
    uint64_t k = line_rate_cases[_i].n_full, tail = line_rate_cases[_i].tail_bytes;
    world_send(&w, 0, 1, k * PAYLOAD + tail, 0);
    world_run(&w);
    /* Packets leave back to back: payload at rate x payload / (payload + header). */
    uint64_t expect = LAT + k * ser(PAYLOAD + HEADER, rate) + (tail ? ser(tail + HEADER, rate) : 0);
    ck_assert_msg(w.done.time_ps[0] == expect, "%s: landed at %" PRIu64 " ps, expected %" PRIu64,
                  line_rate_cases[_i].name, w.done.time_ps[0], expect);
    ck_assert_uint_eq(w.stats.n_packets, k + (tail ? 1 : 0));
    NetPacketLinkStats ls = link_stats(&w, 0);
    ck_assert_uint_eq(ls.wire_bytes, k * PAYLOAD + tail + ls.n_packets * HEADER);
    world_free(&w);
}
END_TEST

START_TEST(lone_packet_takes_the_path_latency)
{
    World w;
    world_init(&w);
    world_star(&w, 2, 1);
    world_start(&w, 1);
    TopoRoute route;
    ck_assert(topo_router_route(w.router, 0, 1, &route));
    world_send(&w, 0, 1, PAYLOAD, 0);
    world_send(&w, 1, 0, 0, 1);
    world_run(&w);
    ck_assert_uint_eq(w.done.time_ps[0], topo_path_latency_ps(w.graph, &route.path[0], PAYLOAD));
    ck_assert_uint_eq(w.done.time_ps[0], 2 * 10880 + 2 * LAT + SW_LAT);
    ck_assert_uint_eq(w.done.time_ps[1], 2 * 640 + 2 * LAT + SW_LAT);
    world_free(&w);
}
END_TEST

START_TEST(lone_packet_over_the_host_path)
{
    /* GPU 0 to GPU 2 crosses PCIe switch, CPU, PCIe switch: four hops. */
    World w;
    world_init(&w);
    uint32_t cpu = world_host(&w);
    world_start(&w, 1);
    TopoRoute route;
    ck_assert(topo_router_route(w.router, 0, 2, &route));
    ck_assert_uint_eq(route.n_paths, 1);
    ck_assert_uint_eq(route.path[0].n_hops, 4);
    world_send(&w, 0, 2, PAYLOAD, 0);
    world_send(&w, 3, cpu, 1, 1);
    world_run(&w);
    ck_assert_uint_eq(w.done.time_ps[0], topo_path_latency_ps(w.graph, &route.path[0], PAYLOAD));
    ck_assert_uint_eq(w.done.time_ps[0], 4 * (10880 + LAT) + 2 * PCIE_LAT + CPU_LAT);
    ck_assert_uint_eq(w.done.time_ps[1], 2 * (680 + LAT) + PCIE_LAT);
    world_free(&w);
}
END_TEST

START_TEST(two_sends_share_a_source_link)
{
    const uint64_t k = 1000, s = 10880;
    World w;
    world_init(&w);
    world_pair(&w, 1);
    world_start(&w, 1);
    world_send(&w, 0, 1, k * PAYLOAD, 0);
    world_send(&w, 0, 1, k * PAYLOAD, 1);
    world_run(&w);
    /* Round robin: each gets every other packet, so half the rate. */
    ck_assert_uint_eq(w.done.time_ps[0], LAT + (2 * k - 1) * s);
    ck_assert_uint_eq(w.done.time_ps[1], LAT + 2 * k * s);
    world_free(&w);
}
END_TEST

START_TEST(two_senders_share_a_switch_output)
{
    const uint64_t k = 1000, s = 10880;
    World w;
    world_init(&w);
    world_star(&w, 3, 1);
    world_start(&w, 1);
    world_send(&w, 0, 2, k * PAYLOAD, 0);
    world_send(&w, 1, 2, k * PAYLOAD, 1);
    world_run(&w);
    /* The switch-to-GPU2 link carries both, alternating, from the moment the
     * first packets are ready: each at half the rate. */
    uint64_t expect = 2 * k * s + star_tail_ps(RATE);
    ck_assert_uint_eq(w.done.time_ps[0], expect - s);
    ck_assert_uint_eq(w.done.time_ps[1], expect);
    world_free(&w);
}
END_TEST

START_TEST(incast_limited_by_the_output)
{
    /* 7 senders of 5000 packets: more than their 1 MiB of switch credits
     * hold, so the inputs stall on credits while the output never idles. */
    const uint32_t n = 7;
    const uint64_t k = 5000, s = 10880;
    World w;
    world_init(&w);
    world_star(&w, n + 1, 1);
    world_start(&w, 1);
    for (uint32_t g = 0; g < n; g++)
        world_send(&w, g, n, k * PAYLOAD, g);
    world_run(&w);
    uint64_t expect = n * k * s + star_tail_ps(RATE);
    for (uint32_t g = 0; g < n; g++) {
        /* The last round of the round robin serves inputs 0..n-1 in order. */
        ck_assert_uint_eq(w.done.time_ps[g], expect - (n - 1 - g) * s);
        /* 65536 credits of 16 B, 17 a packet: down to fewer than one packet's. */
        ck_assert_int_lt(link_stats(&w, 2 * g).credits_min, 17);
    }
    world_free(&w);
}
END_TEST

START_TEST(permutation_through_a_crossbar_at_full_rate)
{
    const uint32_t n = 8;
    const uint64_t k = 4000;
    World w;
    world_init(&w);
    world_star(&w, n, 2);
    world_start(&w, 1);
    for (uint32_t g = 0; g < n; g++)
        world_send(&w, g, (g + 1) % n, k * PAYLOAD, g);
    world_run(&w);
    /* A ring on a non-blocking crossbar: every transfer alone on its links,
     * as if it were the only one. */
    uint64_t expect = k * ser(PAYLOAD + HEADER, 2 * RATE) + star_tail_ps(2 * RATE);
    for (uint32_t g = 0; g < n; g++)
        ck_assert_uint_eq(w.done.time_ps[g], expect);
    world_free(&w);
}
END_TEST

START_TEST(spray_over_unequal_planes)
{
    /* Two GPUs, two switches: 5 links to one, 4 to the other. Packets split
     * 5:4 and both planes finish together. */
    World w;
    world_init(&w);
    topo_graph_add_vertex(w.graph, TOPO_GPU, 0, NULL);
    topo_graph_add_vertex(w.graph, TOPO_GPU, 0, NULL);
    uint32_t s0 = topo_graph_add_vertex(w.graph, TOPO_NVSWITCH, SW_LAT, &w.sw);
    uint32_t s1 = topo_graph_add_vertex(w.graph, TOPO_NVSWITCH, SW_LAT, &w.sw);
    uint32_t up0 = topo_graph_add_bundle(w.graph, 0, s0, &w.link, 5);
    uint32_t up1 = topo_graph_add_bundle(w.graph, 0, s1, &w.link, 4);
    topo_graph_add_bundle(w.graph, 1, s0, &w.link, 5);
    topo_graph_add_bundle(w.graph, 1, s1, &w.link, 4);
    world_start(&w, 1);
    world_send(&w, 0, 1, 9000 * PAYLOAD, 0);
    world_run(&w);
    ck_assert_uint_eq(link_stats(&w, up0).n_packets, 5000);
    ck_assert_uint_eq(link_stats(&w, up1).n_packets, 4000);
    uint64_t expect = 5000 * ser(PAYLOAD + HEADER, 5 * RATE) + star_tail_ps(4 * RATE);
    ck_assert_uint_eq(w.done.time_ps[0], expect);
    world_free(&w);
}
END_TEST

START_TEST(late_sender_takes_its_share)
{
    const uint64_t s = 10880;
    World w;
    world_init(&w);
    world_star(&w, 3, 1);
    world_start(&w, 1);
    world_send(&w, 0, 2, 2000 * PAYLOAD, 0);
    uint64_t half = 1000 * s;
    sim_engine_run(w.engine, half);
    world_send(&w, 1, 2, 1000 * PAYLOAD, 1);
    world_run(&w);
    /* The output never idles: 3000 packets from the first one ready. Both
     * have 1000 left when the second arrives, so they end together. */
    uint64_t expect = 3000 * s + star_tail_ps(RATE);
    ck_assert_uint_eq(MAX(w.done.time_ps[0], w.done.time_ps[1]), expect);
    ck_assert_uint_ge(MIN(w.done.time_ps[0], w.done.time_ps[1]), expect - s);
    world_free(&w);
}
END_TEST

static const struct {
    const char *name;
    uint64_t credit_bytes;
    uint64_t rx_buffer_bytes;
    uint64_t n_fit; /* packets the buffer holds */
} credit_cases[] = {
    {"two packets, credits in bytes", 0, 2 * 272, 2},
    {"three packets in 16-byte credits", 16, 3 * 272, 3},
    {"two packets in 64-byte credits, rounded up", 64, 640, 2},
    {"a buffer smaller than one packet takes one at a time", 0, 100, 1},
};

/* Stopped halfway through a transfer, the engine names the link that still
 * holds data and what waits there; once all has landed, nothing. */
START_TEST(stuck_link_is_described)
{
    World w;
    world_init(&w);
    world_pair(&w, 1);
    world_start(&w, 1);
    world_send(&w, 0, 1, 64 * PAYLOAD, 0);
    ck_assert_int_eq(sim_engine_run(w.engine, 32 * 10880), SIM_RUN_TIME_LIMIT);
    g_autoptr(GString) out = g_string_new(NULL);
    net_describe_stuck(w.net, out, 4);
    ck_assert_msg(g_str_has_prefix(out->str, "; gpu 0 -> gpu 1: 1 queue waiting, credits in hand "),
                  "%s", out->str);
    world_run(&w);
    g_string_truncate(out, 0);
    net_describe_stuck(w.net, out, 4);
    ck_assert_str_eq(out->str, "");
    world_free(&w);
}
END_TEST

START_TEST(tiny_buffer_limits_the_rate)
{
    const uint64_t k = 100, s = 10880;
    World w;
    world_init(&w);
    w.link.credit_bytes = credit_cases[_i].credit_bytes;
    w.link.rx_buffer_bytes = credit_cases[_i].rx_buffer_bytes;
    world_pair(&w, 1);
    world_start(&w, 1);
    world_send(&w, 0, 1, k * PAYLOAD, 0);
    world_run(&w);
    /* A credit comes back a round trip (serialization, latency there and
     * back) after its packet started: m packets per round trip, a payload
     * rate of m x 256 B / RTT. */
    uint64_t m = credit_cases[_i].n_fit, rtt = s + 2 * LAT;
    uint64_t last_start = (k - 1) / m * rtt + (k - 1) % m * s;
    uint64_t expect = last_start + s + LAT;
    ck_assert_msg(w.done.time_ps[0] == expect, "%s: landed at %" PRIu64 " ps, expected %" PRIu64,
                  credit_cases[_i].name, w.done.time_ps[0], expect);
    ck_assert_int_eq(link_stats(&w, 0).credits_min, 0);
    world_free(&w);
}
END_TEST

START_TEST(tiny_switch_buffer_limits_the_rate)
{
    /* The switch's input buffer holds m packets: a credit of the first hop
     * returns when its packet leaves the switch, a switch latency later than
     * on a plain link. The second hop then never queues. */
    const uint64_t k = 100, s = 10880, m = 2 + (uint64_t)_i;
    World w;
    world_init(&w);
    w.sw.port_buffer_bytes = m * 272;
    world_star(&w, 2, 1);
    world_start(&w, 1);
    world_send(&w, 0, 1, k * PAYLOAD, 0);
    world_run(&w);
    uint64_t rtt = s + 2 * LAT + SW_LAT;
    uint64_t last_start = (k - 1) / m * rtt + (k - 1) % m * s;
    ck_assert_uint_eq(w.done.time_ps[0], last_start + star_tail_ps(RATE) + s);
    ck_assert_int_eq(link_stats(&w, 0).credits_total, (int64_t)(m * 17));
    ck_assert_int_eq(link_stats(&w, 0).credits_min, 0);
    world_free(&w);
}
END_TEST

static const double error_rates[] = {0, 0.001, 0.05, 0.3};

START_TEST(crc_errors_replay)
{
    const uint64_t k = 2000, s = 10880;
    World w;
    world_init(&w);
    w.link.packet_error_rate = error_rates[_i];
    world_pair(&w, 1);
    world_start(&w, 42);
    world_send(&w, 0, 1, k * PAYLOAD, 0);
    world_run(&w);
    uint64_t n = w.stats.n_replays;
    ck_assert_uint_eq(link_stats(&w, 0).n_replays, n);
    if (error_rates[_i] == 0)
        ck_assert_uint_eq(n, 0);
    else
        ck_assert_uint_gt(n, 0);
    /* Each failure costs its serialization and the replay stall. */
    ck_assert_uint_eq(w.done.time_ps[0], LAT + k * s + n * (s + REPLAY));
    ck_assert_uint_eq(link_stats(&w, 0).n_packets, k);
    world_free(&w);
}
END_TEST

/* Every ordered pair of a 4-GPU star, sizes around the packet size and
 * larger, issuers alternating; errors at error_rate on every link. */
static void
mixed_run(World *w, double error_rate, uint64_t seed)
{
    static const uint64_t sizes[] = {0, 1, 127, 128, 129, 255, 256, 257, 4096, 100000, 1 << 20};
    world_init(w);
    w->link.packet_error_rate = error_rate;
    world_star(w, 4, 2);
    world_start(w, seed);
    uint32_t i = 0;
    for (uint32_t a = 0; a < 4; a++)
        for (uint32_t b = 0; b < 4; b++) {
            if (a == b)
                continue;
            for (uint32_t j = 0; j < 3; j++, i++)
                world_send_as(w, a, b, sizes[i % G_N_ELEMENTS(sizes)], i,
                              i % 2 ? NET_ISSUER_SM : NET_ISSUER_CE);
        }
    world_run(w);
}

START_TEST(bytes_sent_are_bytes_delivered)
{
    World w;
    mixed_run(&w, 0, 1);
    ck_assert_uint_eq(w.done.n, 36);
    uint64_t payload = 0, n_packets = 0;
    for (uint32_t i = 0; i < 36; i++) {
        ck_assert_uint_eq(w.done.n_calls[i], 1);
        payload += w.done.bytes[i];
        uint64_t size = i % 2 ? 128 : PAYLOAD;
        n_packets += w.done.bytes[i] == 0 ? 1 : (w.done.bytes[i] + size - 1) / size;
    }
    ck_assert_uint_eq(w.stats.payload_bytes_delivered, payload);
    ck_assert_uint_eq(w.stats.n_packets, n_packets);
    /* What the links into GPUs carried, less headers, is what landed. */
    uint64_t landed = 0, n_landed = 0;
    for (uint32_t g = 0; g < 4; g++) {
        NetPacketLinkStats down = link_stats(&w, 2 * g + 1);
        landed += down.wire_bytes - down.n_packets * HEADER;
        n_landed += down.n_packets;
    }
    ck_assert_uint_eq(landed, payload);
    ck_assert_uint_eq(n_landed, n_packets);
    world_free(&w);
}
END_TEST

START_TEST(same_seed_same_trace)
{
    World a, b, c;
    mixed_run(&a, 0.01, 7);
    mixed_run(&b, 0.01, 7);
    mixed_run(&c, 0.01, 8);
    ck_assert_uint_gt(a.stats.n_replays, 0);
    ck_assert_uint_eq(a.trace_hash, b.trace_hash);
    ck_assert_uint_eq(a.stats.n_replays, b.stats.n_replays);
    for (uint32_t i = 0; i < 36; i++)
        ck_assert_uint_eq(a.done.time_ps[i], b.done.time_ps[i]);
    ck_assert_uint_ne(a.trace_hash, c.trace_hash);
    world_free(&a);
    world_free(&b);
    world_free(&c);
}
END_TEST

typedef enum LookaheadWorld {
    STAR,
    TWO_SWITCHES,
    HOST,
} LookaheadWorld;

static const struct {
    const char *name;
    LookaheadWorld world;
    uint64_t port_buffer_bytes; /* 0: the link's 1 MiB */
    uint64_t switch_latency_ps;
    double error_rate;
    bool whole_packets; /* sizes in whole packets: more ties */
} lookahead_cases[] = {
    {"star, roomy buffers", STAR, 0, SW_LAT, 0, false},
    {"two switches, 3-packet port buffers, CRC errors", TWO_SWITCHES, 3 * 272, SW_LAT, 0.02, false},
    {"two switches, no switch latency, whole packets", TWO_SWITCHES, 8 * 272, 0, 0, true},
    {"host path: PCIe switches, a CPU forwarding and receiving", HOST, 0, SW_LAT, 0.01, false},
};

/* Every ordered pair of endpoints twice (60 sends; 40 on the host path),
 * random sizes; done times into done_ps. */
static uint64_t
lookahead_run(uint32_t c, bool lookahead, uint64_t *done_ps, uint64_t *n_replays)
{
    World w;
    world_init(&w);
    w.sw.latency_ps = lookahead_cases[c].switch_latency_ps;
    w.sw.port_buffer_bytes = lookahead_cases[c].port_buffer_bytes;
    w.link.packet_error_rate = lookahead_cases[c].error_rate;
    uint32_t endpoints[6] = {0, 1, 2, 3, 4, 5}, n_endpoints = 6;
    if (lookahead_cases[c].world == TWO_SWITCHES) {
        world_two_switches(&w, 3);
    } else if (lookahead_cases[c].world == STAR) {
        world_star(&w, 6, 2);
    } else {
        endpoints[4] = world_host(&w);
        n_endpoints = 5;
    }
    world_start(&w, 5);
    if (!lookahead)
        net_packet_disable_lookahead(w.net);
    uint64_t x = 99;
    uint32_t n = 0;
    for (uint32_t rep = 0; rep < 2; rep++)
        for (uint32_t a = 0; a < n_endpoints; a++)
            for (uint32_t b = 0; b < n_endpoints; b++) {
                if (a == b)
                    continue;
                x = x * 6364136223846793005u + 1442695040888963407u;
                uint64_t size = (x >> 33) % 200000;
                if (lookahead_cases[c].whole_packets)
                    size -= size % PAYLOAD;
                world_send(&w, endpoints[a], endpoints[b], size, n++);
            }
    world_run(&w);
    ck_assert_uint_eq(w.done.n, n);
    memcpy(done_ps, w.done.time_ps, sizeof w.done.time_ps);
    *n_replays = w.stats.n_replays;
    SimEngineStats es;
    sim_engine_get_stats(w.engine, &es);
    world_free(&w);
    return es.n_events_executed;
}

START_TEST(deciding_ahead_changes_no_time)
{
    uint64_t ahead_ps[MAX_SENDS], alone_ps[MAX_SENDS], ahead_replays, alone_replays;
    uint64_t ahead_events = lookahead_run(_i, true, ahead_ps, &ahead_replays);
    uint64_t alone_events = lookahead_run(_i, false, alone_ps, &alone_replays);
    for (uint32_t i = 0; i < MAX_SENDS; i++)
        ck_assert_msg(ahead_ps[i] == alone_ps[i],
                      "%s: send %u landed at %" PRIu64 " ps deciding ahead, %" PRIu64
                      " ps one at a time",
                      lookahead_cases[_i].name, i, ahead_ps[i], alone_ps[i]);
    ck_assert_uint_eq(ahead_replays, alone_replays);
    ck_assert_msg(ahead_events < alone_events, "%s: %" PRIu64 " events ahead, %" PRIu64 " alone",
                  lookahead_cases[_i].name, ahead_events, alone_events);
}
END_TEST

Suite *
net_packet_suite(void)
{
    Suite *s = suite_create("net-packet");
    TCase *tc = tcase_create("closed-forms");
    tcase_add_loop_test(tc, one_packet_one_link, 0, G_N_ELEMENTS(one_packet_cases));
    tcase_add_test(tc, stuck_link_is_described);
    tcase_add_loop_test(tc, long_transfer_at_line_rate, 0, G_N_ELEMENTS(line_rate_cases));
    tcase_add_test(tc, lone_packet_takes_the_path_latency);
    tcase_add_test(tc, lone_packet_over_the_host_path);
    tcase_add_test(tc, two_sends_share_a_source_link);
    tcase_add_test(tc, two_senders_share_a_switch_output);
    tcase_add_test(tc, incast_limited_by_the_output);
    tcase_add_test(tc, permutation_through_a_crossbar_at_full_rate);
    tcase_add_test(tc, spray_over_unequal_planes);
    tcase_add_test(tc, late_sender_takes_its_share);
    suite_add_tcase(s, tc);
    tc = tcase_create("credits-and-errors");
    tcase_add_loop_test(tc, tiny_buffer_limits_the_rate, 0, G_N_ELEMENTS(credit_cases));
    tcase_add_loop_test(tc, tiny_switch_buffer_limits_the_rate, 0, 2);
    tcase_add_loop_test(tc, crc_errors_replay, 0, G_N_ELEMENTS(error_rates));
    suite_add_tcase(s, tc);
    tc = tcase_create("conservation-and-determinism");
    tcase_add_test(tc, bytes_sent_are_bytes_delivered);
    tcase_add_test(tc, same_seed_same_trace);
    tcase_add_loop_test(tc, deciding_ahead_changes_no_time, 0, G_N_ELEMENTS(lookahead_cases));
    suite_add_tcase(s, tc);
    return s;
}
