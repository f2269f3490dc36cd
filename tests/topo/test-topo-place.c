/* SPDX-License-Identifier: Apache-2.0 */
/* A job's GPUs on hosts and NVLink domains (topo-place.h), written out by
 * hand: NVL72 trays of 4 GPUs, 18 to a rack; DGX boxes, one host a domain;
 * what each refusal names. */
#include <string.h>

#include "topo-suites.h"
#include "topo/topo-place.h"

/* Places ask on system id; fails the test when it does not place. */
static void
place_ok(const char *id, TopoPlaceAsk ask, TopoPlace *out)
{
    g_autoptr(HwSystem) sys = topo_test_load_system(id);
    g_autoptr(GError) error = NULL;
    TopoPlaceField bad;
    ck_assert_msg(topo_place(sys, &ask, out, &bad, &error), "%s: %s", id,
                  error ? error->message : "");
}

/* Asserts that ask does not place on id, blaming field, with an error
 * holding words. */
static void
place_refused(const char *id, TopoPlaceAsk ask, TopoPlaceField field, const char *words)
{
    g_autoptr(HwSystem) sys = topo_test_load_system(id);
    g_autoptr(GError) error = NULL;
    TopoPlace out;
    TopoPlaceField bad = TOPO_PLACE_GPUS;
    ck_assert(!topo_place(sys, &ask, &out, &bad, &error));
    ck_assert_ptr_nonnull(error);
    ck_assert_msg(bad == field, "field %d, expected %d: %s", bad, field, error->message);
    ck_assert_msg(strstr(error->message, words) != NULL, "'%s' lacks '%s'", error->message, words);
}

/* 64 GPUs on 16 trays of one NVL72 rack: trays 0-15, all 4 GPUs each, one
 * domain (one NCCL node of 64 ranks). */
START_TEST(sixteen_trays_of_a_rack)
{
    g_auto(TopoPlace) p = {0};
    place_ok("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 64, .n_hosts = 16}, &p);
    ck_assert_uint_eq(p.n_hosts, 16);
    ck_assert_uint_eq(p.gpus_per_host, 4);
    ck_assert_uint_eq(p.n_domains, 1);
    ck_assert_uint_eq(p.hosts_per_domain, 16);
    ck_assert_uint_eq(p.per_domain, 64);
    for (uint32_t i = 0; i < 64; i++)
        ck_assert_uint_eq(p.local[i], i);
    ck_assert(!p.hosts_filled);
    ck_assert(p.domains_spread);
}
END_TEST

/* 8 GPUs on 4 trays, 2 each: GPUs 0, 1 of trays 0 to 3. */
START_TEST(two_gpus_of_four_trays)
{
    g_auto(TopoPlace) p = {0};
    place_ok("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 8, .n_hosts = 4}, &p);
    static const uint32_t expect[] = {0, 1, 4, 5, 8, 9, 12, 13};
    ck_assert_uint_eq(p.per_domain, 8);
    ck_assert_uint_eq(p.gpus_per_host, 2);
    for (uint32_t i = 0; i < 8; i++)
        ck_assert_uint_eq(p.local[i], expect[i]);
}
END_TEST

/* 128 GPUs on 32 trays: two racks of 16 trays (the fewest racks, as many
 * trays in each), not 18 + 14; and the same said with domains = 2. */
START_TEST(two_racks_of_sixty_four)
{
    g_auto(TopoPlace) p = {0};
    place_ok("gb300-nvl72", (TopoPlaceAsk){.n_gpus = 128, .n_hosts = 32}, &p);
    ck_assert_uint_eq(p.n_domains, 2);
    ck_assert_uint_eq(p.hosts_per_domain, 16);
    ck_assert_uint_eq(p.per_domain, 64);
    ck_assert_uint_eq(p.local[63], 63);
    g_auto(TopoPlace) q = {0};
    place_ok("gb300-nvl72", (TopoPlaceAsk){.n_gpus = 128, .n_domains = 2}, &q);
    ck_assert_uint_eq(q.n_hosts, 32);
    ck_assert_uint_eq(q.per_domain, 64);
    ck_assert(!q.domains_spread);
    ck_assert(q.hosts_filled);
}
END_TEST

/* Unstated hosts: up to one rack the GPUs fill it in order (6 GPUs: tray
 * 0 and half of tray 1); beyond, whole trays over whole racks. */
START_TEST(unstated_hosts_fill_in_order)
{
    g_auto(TopoPlace) p = {0};
    place_ok("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 6}, &p);
    ck_assert_uint_eq(p.n_hosts, 2);
    ck_assert_uint_eq(p.gpus_per_host, 4);
    ck_assert_uint_eq(p.per_domain, 6);
    ck_assert_uint_eq(p.local[5], 5);
    ck_assert(p.hosts_filled);
    g_auto(TopoPlace) q = {0};
    place_ok("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 1440}, &q);
    ck_assert_uint_eq(q.n_hosts, 360);
    ck_assert_uint_eq(q.n_domains, 20);
    ck_assert_uint_eq(q.per_domain, 72);
    g_auto(TopoPlace) r = {0};
    place_ok("gb200-nvl72", (TopoPlaceAsk){.n_hosts = 16}, &r);
    ck_assert_uint_eq(r.n_gpus, 64);
}
END_TEST

/* A DGX box is one host and one domain: 2 GPUs on 2 nodes is one GPU of
 * each of two domains; a device list picks the same GPUs of each. */
START_TEST(one_gpu_a_host_on_boxes)
{
    g_auto(TopoPlace) p = {0};
    place_ok("dgx-h100", (TopoPlaceAsk){.n_gpus = 2, .n_hosts = 2}, &p);
    ck_assert_uint_eq(p.n_domains, 2);
    ck_assert_uint_eq(p.per_domain, 1);
    ck_assert_uint_eq(p.local[0], 0);
    static const uint32_t devices[] = {6, 2};
    g_auto(TopoPlace) q = {0};
    place_ok("dgx-h100", (TopoPlaceAsk){.n_gpus = 8, .devices = devices, .n_devices = 2}, &q);
    ck_assert_uint_eq(q.n_domains, 4);
    ck_assert_uint_eq(q.per_domain, 2);
    ck_assert_uint_eq(q.local[0], 6);
    ck_assert_uint_eq(q.local[1], 2);
    /* On a rack, a device list is of a tray's GPUs: 2 trays of GPU 3. */
    static const uint32_t three[] = {3};
    g_auto(TopoPlace) r = {0};
    place_ok("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 2, .devices = three, .n_devices = 1}, &r);
    ck_assert_uint_eq(r.n_domains, 1);
    ck_assert_uint_eq(r.local[0], 3);
    ck_assert_uint_eq(r.local[1], 7);
}
END_TEST

/* A full rack and one of 14 trays (72 + 56): the hosts of each domain
 * listed; domain 1 takes the first 56 of a domain's 72 placed GPUs. */
START_TEST(a_rack_and_fourteen_trays)
{
    static const uint32_t racks[] = {18, 14};
    g_auto(TopoPlace) p = {0};
    place_ok("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 128, .n_domains = 2, .domain_hosts = racks},
             &p);
    ck_assert_uint_eq(p.n_hosts, 32);
    ck_assert_uint_eq(p.gpus_per_host, 4);
    ck_assert_uint_eq(p.n_domains, 2);
    ck_assert_uint_eq(p.hosts_per_domain, 18);
    ck_assert_uint_eq(p.per_domain, 72);
    ck_assert_ptr_nonnull(p.domain_ranks);
    ck_assert_uint_eq(topo_place_domain_ranks(&p, 0), 72);
    ck_assert_uint_eq(topo_place_domain_ranks(&p, 1), 56);
    for (uint32_t i = 0; i < 72; i++)
        ck_assert_uint_eq(p.local[i], i);
    ck_assert(!p.domains_spread);
    /* the GPUs and hosts unstated: the listed hosts, whole */
    g_auto(TopoPlace) q = {0};
    place_ok("gb200-nvl72", (TopoPlaceAsk){.n_domains = 2, .domain_hosts = racks}, &q);
    ck_assert_uint_eq(q.n_gpus, 128);
    /* two GPUs a tray on the same racks */
    g_auto(TopoPlace) h = {0};
    place_ok("gb200-nvl72",
             (TopoPlaceAsk){.gpus_per_host = 2, .n_domains = 2, .domain_hosts = racks}, &h);
    ck_assert_uint_eq(h.n_gpus, 64);
    ck_assert_uint_eq(topo_place_domain_ranks(&h, 1), 28);
    ck_assert_uint_eq(h.local[2], 4);
    /* listed alike: no per-domain counts */
    static const uint32_t alike[] = {16, 16};
    g_auto(TopoPlace) e = {0};
    place_ok("gb200-nvl72", (TopoPlaceAsk){.n_domains = 2, .domain_hosts = alike}, &e);
    ck_assert_ptr_null(e.domain_ranks);
    ck_assert_uint_eq(e.per_domain, 64);
}
END_TEST

/* Each refusal names the field at fault and what fits. */
START_TEST(refusals_name_the_field)
{
    /* trays that do not divide the GPUs */
    place_refused("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 64, .n_hosts = 15}, TOPO_PLACE_HOSTS,
                  "do not split evenly over 15 hosts");
    /* more GPUs a tray than it has */
    place_refused("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 64, .n_hosts = 8}, TOPO_PLACE_HOSTS,
                  "more than the 4 of a gb200-nvl72 host");
    place_refused("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 16, .gpus_per_host = 8},
                  TOPO_PLACE_GPUS_PER_HOST, "expected 1 to 4");
    /* a partition larger than its domain */
    place_refused("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 80, .n_hosts = 20, .n_domains = 1},
                  TOPO_PLACE_DOMAINS, "more than the 18 of a gb200-nvl72 domain");
    /* racks of unequal size */
    place_refused("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 128, .n_domains = 3}, TOPO_PLACE_DOMAINS,
                  "do not split evenly over 3 NVLink domains");
    place_refused("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 100}, TOPO_PLACE_GPUS,
                  "25 hosts need 2 NVLink domains");
    place_refused("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 74}, TOPO_PLACE_GPUS,
                  "not whole hosts of gb200-nvl72 (4 GPUs each)");
    /* listed domains: more hosts than a rack, or other hosts than stated */
    static const uint32_t big[] = {19, 13}, racks[] = {18, 14};
    place_refused("gb200-nvl72", (TopoPlaceAsk){.n_domains = 2, .domain_hosts = big},
                  TOPO_PLACE_DOMAINS, "domain 1 is asked for 19 hosts: expected 1 to the 18");
    place_refused("gb200-nvl72",
                  (TopoPlaceAsk){.n_hosts = 30, .n_domains = 2, .domain_hosts = racks},
                  TOPO_PLACE_HOSTS, "30 hosts, but the NVLink domains listed hold 32");
    place_refused("gb200-nvl72",
                  (TopoPlaceAsk){.n_gpus = 100, .n_domains = 2, .domain_hosts = racks},
                  TOPO_PLACE_HOSTS, "100 GPUs do not split evenly over 32 hosts");
    static const uint32_t five[] = {5};
    place_refused("gb200-nvl72", (TopoPlaceAsk){.n_gpus = 4, .devices = five, .n_devices = 1},
                  TOPO_PLACE_DEVICES, "GPU 5 is not one of a host of gb200-nvl72 (0 to 3)");
}
END_TEST

Suite *
topo_place_suite(void)
{
    Suite *s = suite_create("topo-place");
    TCase *tc = tcase_create("place");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, sixteen_trays_of_a_rack);
    tcase_add_test(tc, two_gpus_of_four_trays);
    tcase_add_test(tc, two_racks_of_sixty_four);
    tcase_add_test(tc, unstated_hosts_fill_in_order);
    tcase_add_test(tc, one_gpu_a_host_on_boxes);
    tcase_add_test(tc, a_rack_and_fourteen_trays);
    tcase_add_test(tc, refusals_name_the_field);
    suite_add_tcase(s, tc);
    return s;
}
