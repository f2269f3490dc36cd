/* SPDX-License-Identifier: Apache-2.0 */
/* What a send may ask besides its bytes, and a link's credits, against
 * closed forms at both fidelities: a paced send (its sender produces the
 * bytes at a rate) takes that rate however idle the link; beside an
 * unpaced one it keeps its rate and the other takes the rest; sends in one
 * queue go back to back; a link whose buffer holds fewer packets than its
 * credit round trip carries them at buffer / round trip, which the packet
 * engine stalls into and the flow engine charges. The worlds are
 * net-world's: 25 GB/s links, 256 B packets with 16 B headers. */
#include <check.h>
#include <math.h>

#include "net-suites.h"
#include "net-world.h"

#define N_PACKETS UINT64_C(1000)
#define PACED (RATE / 4)          /* payload bytes/s: a packet every 40.96 ns, 4x its wire time */
#define PACKET_PS UINT64_C(10880) /* 272 B at 25 GB/s */

static NetFidelity
fidelity_of(int i)
{
    return i == 0 ? NET_FIDELITY_PACKET : NET_FIDELITY_FLOW;
}

/* Its last packet is produced at bytes / rate and crosses the link whole. */
START_TEST(paced_send_takes_its_rate)
{
    World w;
    world_init(&w);
    w.fidelity = fidelity_of(_i);
    world_pair(&w, 1);
    world_start(&w, 1);
    world_send_paced(&w, 0, 1, N_PACKETS * PAYLOAD, 0, PACED, 0);
    world_run(&w);
    uint64_t expect = ser(N_PACKETS * PAYLOAD, PACED) + PACKET_PS + LAT;
    ck_assert_msg(w.done.time_ps[0] == expect,
                  "%s: %" G_GUINT64_FORMAT " ps, expected %" G_GUINT64_FORMAT,
                  net_fidelity_name(w.fidelity), w.done.time_ps[0], expect);
    world_free(&w);
}
END_TEST

/* Beside a paced send, an unpaced one gets what the paced one leaves of
 * the link: 25 - 6.25 x 272/256 GB/s of wire. The paced one keeps its time
 * (the packet engine a packet later at most: one of the other's may be on
 * the wire when its own is ready). */
START_TEST(paced_and_unpaced_share_a_link)
{
    World w;
    world_init(&w);
    w.fidelity = fidelity_of(_i);
    world_pair(&w, 1);
    world_start(&w, 1);
    world_send_paced(&w, 0, 1, N_PACKETS * PAYLOAD, 0, PACED, 0);
    world_send(&w, 0, 1, N_PACKETS * PAYLOAD, 1);
    world_run(&w);
    double wire = (double)(PAYLOAD + HEADER) / PAYLOAD;
    double rest = ((double)RATE - wire * (double)PACED) / wire;
    double unpaced_ps = (double)(N_PACKETS * PAYLOAD) / rest * 1e12 + (double)LAT;
    uint64_t paced_ps = ser(N_PACKETS * PAYLOAD, PACED) + PACKET_PS + LAT;
    ck_assert_uint_ge(w.done.time_ps[0], paced_ps);
    ck_assert_uint_le(w.done.time_ps[0], paced_ps + PACKET_PS);
    ck_assert_msg(fabs((double)w.done.time_ps[1] - unpaced_ps) / unpaced_ps < 0.005,
                  "%s: %" G_GUINT64_FORMAT " ps, expected %.0f", net_fidelity_name(w.fidelity),
                  w.done.time_ps[1], unpaced_ps);
    world_free(&w);
}
END_TEST

/* Two sends in one queue: the second starts when the first has left, so
 * the first takes the whole link and the second follows it back to back
 * (not sharing it: with no queue they would end within a packet of each
 * other). */
START_TEST(queued_sends_go_one_after_another)
{
    World w;
    world_init(&w);
    w.fidelity = fidelity_of(_i);
    world_pair(&w, 1);
    world_start(&w, 1);
    world_send_paced(&w, 0, 1, N_PACKETS * PAYLOAD, 0, 0, 3);
    world_send_paced(&w, 0, 1, N_PACKETS * PAYLOAD, 1, 0, 3);
    world_run(&w);
    ck_assert_uint_eq(w.done.time_ps[0], N_PACKETS * PACKET_PS + LAT);
    ck_assert_uint_eq(w.done.time_ps[1], 2 * N_PACKETS * PACKET_PS + LAT);
    world_free(&w);
}
END_TEST

/* A buffer of 4 packets (68 credits of 16 B, 17 a packet) on a link whose
 * credit round trip (serialization, latency there and back) is 8 times 4
 * packets' serialization: the link carries an eighth of its rate. The
 * flow engine charges it, 1000 packets x 8 x their wire time; the packet
 * engine sends 4 packets per round trip, the last 4 without waiting for
 * credits to come back. */
START_TEST(too_few_credits_for_the_round_trip)
{
    const uint64_t lat = (8 * 4 * PACKET_PS - PACKET_PS) / 2, round_trip = 8 * 4 * PACKET_PS;
    World w;
    world_init(&w);
    w.fidelity = fidelity_of(_i);
    w.link.latency_ps = lat;
    w.link.rx_buffer_bytes = 4 * (PAYLOAD + HEADER);
    world_pair(&w, 1);
    world_start(&w, 1);
    world_send(&w, 0, 1, N_PACKETS * PAYLOAD, 0);
    world_run(&w);
    uint64_t expect = w.fidelity == NET_FIDELITY_FLOW
                          ? 8 * N_PACKETS * PACKET_PS + lat
                          : (N_PACKETS / 4 - 1) * round_trip + 4 * PACKET_PS + lat;
    ck_assert_msg(w.done.time_ps[0] == expect,
                  "%s: %" G_GUINT64_FORMAT " ps, expected %" G_GUINT64_FORMAT,
                  net_fidelity_name(w.fidelity), w.done.time_ps[0], expect);
    world_free(&w);
}
END_TEST

Suite *
net_send_suite(void)
{
    Suite *s = suite_create("net-send");
    TCase *tc = tcase_create("closed-forms");
    tcase_add_loop_test(tc, paced_send_takes_its_rate, 0, 2);
    tcase_add_loop_test(tc, paced_and_unpaced_share_a_link, 0, 2);
    tcase_add_loop_test(tc, queued_sends_go_one_after_another, 0, 2);
    tcase_add_loop_test(tc, too_few_credits_for_the_round_trip, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
