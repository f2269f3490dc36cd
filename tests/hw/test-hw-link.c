/* SPDX-License-Identifier: Apache-2.0 */
/* HwLink: every shipped link model loads with its figures exact; the payload
 * rate matches its closed form; malformed files fail naming file, group and
 * key; model names resolve under a models folder. */
#include <string.h>

#include "hw/hw-link.h"
#include "hw-suites.h"

static const struct {
    const char *file;
    HwLinkKind kind;
    uint64_t generation;
    uint64_t n_lanes;
    uint64_t lane_bytes_per_s;
    uint64_t bytes_per_s;
    uint64_t header_bytes;
    uint64_t sm_payload_bytes;
    uint64_t ce_payload_bytes;
} shipped[] = {
    {"nvlink1.ini", HW_LINK_NVLINK, 1, 8, 2500000000, 20000000000, 16, 128, 256},
    {"nvlink2.ini", HW_LINK_NVLINK, 2, 8, 3222656250, 25000000000, 16, 128, 256},
    {"nvlink3.ini", HW_LINK_NVLINK, 3, 4, 6250000000, 25000000000, 16, 128, 256},
    {"nvlink4.ini", HW_LINK_NVLINK, 4, 2, 12500000000, 25000000000, 16, 128, 256},
    {"nvlink5.ini", HW_LINK_NVLINK, 5, 2, 25000000000, 50000000000, 16, 128, 256},
    {"nvlink6.ini", HW_LINK_NVLINK, 6, 2, 25000000000, 50000000000, 16, 128, 256},
    {"c2c.ini", HW_LINK_C2C, 0, 90, 5000000000, 450000000000, 16, 128, 256},
    {"pcie3.ini", HW_LINK_PCIE, 3, 16, 1000000000, 15754000000, 24, 256, 256},
    {"pcie4.ini", HW_LINK_PCIE, 4, 16, 2000000000, 31508000000, 24, 256, 256},
    {"pcie5.ini", HW_LINK_PCIE, 5, 16, 4000000000, 63015000000, 24, 256, 256},
    {"pcie6.ini", HW_LINK_PCIE, 6, 16, 8000000000, 118000000000, 16, 256, 256},
    {"qpi-e5v4.ini", HW_LINK_CPU, 0, 40, 1200000000, 38400000000, 8, 64, 64},
    {"upi-spr.ini", HW_LINK_CPU, 0, 96, 2000000000, 128000000000, 8, 64, 64},
    {"ib-edr.ini", HW_LINK_NETWORK, 0, 4, 3222656250, 12500000000, 26, 4096, 4096},
    {"ib-hdr.ini", HW_LINK_NETWORK, 0, 4, 6640625000, 25000000000, 26, 4096, 4096},
    {"ib-ndr.ini", HW_LINK_NETWORK, 0, 4, 13281250000, 50000000000, 26, 4096, 4096},
    {"ib-xdr.ini", HW_LINK_NETWORK, 0, 4, 26562500000, 100000000000, 26, 4096, 4096},
    {"eth-100g.ini", HW_LINK_NETWORK, 0, 4, 3222656250, 12500000000, 82, 4096, 4096},
    {"eth-200g.ini", HW_LINK_NETWORK, 0, 4, 6640625000, 25000000000, 82, 4096, 4096},
    {"eth-400g.ini", HW_LINK_NETWORK, 0, 4, 13281250000, 50000000000, 82, 4096, 4096},
};

START_TEST(shipped_links_load)
{
    const char *file = shipped[_i].file;
    g_autofree char *path = hw_test_model_path("link", file);
    g_autoptr(GError) error = NULL;
    g_autoptr(HwLink) link = hw_link_load(path, &error);
    ck_assert_msg(link != NULL, "%s: %s", file, error ? error->message : "");
    ck_assert_msg(link->kind == shipped[_i].kind, "%s: kind %s", file,
                  hw_link_kind_name(link->kind));
    ck_assert_uint_eq(link->generation, shipped[_i].generation);
    ck_assert_uint_eq(link->n_lanes, shipped[_i].n_lanes);
    ck_assert_uint_eq(link->lane_bytes_per_s, shipped[_i].lane_bytes_per_s);
    ck_assert_uint_eq(link->bytes_per_s, shipped[_i].bytes_per_s);
    ck_assert_uint_eq(link->header_bytes, shipped[_i].header_bytes);
    ck_assert_uint_eq(link->sm_payload_bytes, shipped[_i].sm_payload_bytes);
    ck_assert_uint_eq(link->ce_payload_bytes, shipped[_i].ce_payload_bytes);
    /* What every model must have, whatever its figures. */
    ck_assert_msg(link->latency_ps > 0 && link->credit_bytes > 0, "%s", file);
    ck_assert_msg(link->rx_buffer_bytes >= link->header_bytes + link->ce_payload_bytes, "%s", file);
    ck_assert_msg(link->packet_error_rate == 0.0, "%s: shipped models are error-free", file);
}
END_TEST

START_TEST(every_shipped_link_is_in_the_table)
{
    ck_assert_uint_eq(hw_test_count_models("link"), G_N_ELEMENTS(shipped));
}
END_TEST

/* bytes_per_s * payload / (payload + header), exact where the quotient is a
 * double; the last row needs the 128-bit numerator. */
static const struct {
    uint64_t bytes_per_s, header_bytes, payload_bytes;
    double expect;
} rates[] = {
    {25000000000, 16, 240, 23437500000.0},
    {25000000000, 0, 128, 25000000000.0},
    {25000000000, 16, 16, 12500000000.0},
    {50000000000, 26, 4070, 49682617187.5},
    {15754000000, 24, 232, 14277062500.0},
    {63015000000, 24, 1000, 61538085937.5},
    {1, 1, 1, 0.5},
    {UINT64_MAX, 1, 1, 9223372036854775808.0},
};

START_TEST(payload_rate_closed_form)
{
    HwLink link = {.bytes_per_s = rates[_i].bytes_per_s, .header_bytes = rates[_i].header_bytes};
    double got = hw_link_payload_bytes_per_s(&link, rates[_i].payload_bytes);
    ck_assert_msg(got == rates[_i].expect, "row %d: %.17g, expected %.17g", _i, got,
                  rates[_i].expect);
}
END_TEST

/* The shipped NVLink 4 and NDR models through the same formula. */
START_TEST(payload_rate_of_shipped_models)
{
    g_autofree char *nv_path = hw_test_model_path("link", "nvlink4.ini");
    g_autofree char *ib_path = hw_test_model_path("link", "ib-ndr.ini");
    g_autoptr(HwLink) nv = hw_link_load(nv_path, NULL);
    g_autoptr(HwLink) ib = hw_link_load(ib_path, NULL);
    ck_assert(nv != NULL && ib != NULL);
    ck_assert_double_eq(hw_link_payload_bytes_per_s(nv, 240), 23437500000.0);
    ck_assert_double_eq(hw_link_payload_bytes_per_s(ib, 4070), 49682617187.5);
}
END_TEST

/* Lines of hw_test_valid_link to replace, and what the error must say
 * after the path. */
static const struct {
    const char *name;
    const char *from; /* NULL: `to` is the whole file */
    const char *to;
    const char *message_part;
} bad[] = {
    {"unknown key", "credit = 16B\n", "credit = 16B\ncredits = 16B\n",
     ": [link] credits: unknown key; expected one of: name, kind"},
    {"missing key", "latency = 150ns\n", "", ": [link] latency: missing; expected one hop"},
    {"missing unit", "latency = 150ns", "latency = 150", ": [link] latency: '150' has no unit"},
    {"zero bandwidth", "bandwidth = 25GB/s", "bandwidth = 0GB/s",
     ": [link] bandwidth: '0GB/s' is not positive"},
    {"bits for bytes", "bandwidth = 25GB/s", "bandwidth = 25Gbps",
     ": [link] bandwidth: '25Gbps' has an unknown unit 'Gbps'"},
    {"faster than the lanes", "bandwidth = 25GB/s", "bandwidth = 25.1GB/s",
     ": [link] bandwidth: 25100000000 B/s is more than lanes x lane_rate = 25000000000 B/s"},
    {"unknown kind", "kind = nvlink", "kind = infiniband",
     ": [link] kind: 'infiniband' is not one of: nvlink, c2c, pcie, cpu, network, memory"},
    {"generation out of range", "generation = 4", "generation = 7",
     ": [link] generation: 7 is out of range: expected 1 to 6"},
    {"generation on a network link", "kind = nvlink", "kind = network",
     ": [link] generation: 4 is out of range: expected 0 to 0"},
    {"no lanes", "lanes = 2", "lanes = 0", ": [link] lanes: 0 is out of range: expected 1 to"},
    {"zero SM payload", "sm_payload = 128B", "sm_payload = 0B",
     ": [link] sm_payload: 0 is out of range: expected 1 to"},
    {"zero CE payload", "ce_payload = 256B", "ce_payload = 0B",
     ": [link] ce_payload: 0 is out of range: expected 1 to"},
    {"zero credit", "credit = 16B", "credit = 0B",
     ": [link] credit: 0 is out of range: expected 1 to"},
    {"receive buffer below a packet", "rx_buffer = 16KiB", "rx_buffer = 200B",
     ": [link] rx_buffer: 200 B cannot hold one packet (header + payload = 272 B)"},
    {"replay buffer below a packet", "replay_buffer = 16KiB", "replay_buffer = 100B",
     ": [link] replay_buffer: 100 B cannot hold one packet (272 B)"},
    {"probability above 1", "packet_error_rate = 0", "packet_error_rate = 1.5",
     ": [link] packet_error_rate: '1.5' is out of range: expected a probability at least 0 and "
     "below 1"},
    {"certain error", "packet_error_rate = 0", "packet_error_rate = 1",
     ": [link] packet_error_rate: '1' is out of range: expected a probability at least 0 and "
     "below 1"},
    {"negative probability", "packet_error_rate = 0", "packet_error_rate = -1e-9",
     ": [link] packet_error_rate: '-1e-9' is out of range"},
    {"probability in words", "packet_error_rate = 0", "packet_error_rate = rare",
     ": [link] packet_error_rate: 'rare' is not a number"},
    {"probability with a unit", "packet_error_rate = 0", "packet_error_rate = 1%",
     ": [link] packet_error_rate: '1%' is not a number"},
    {"a misspelt group", NULL, "[links]\nname = x\n",
     ": [links]: unknown group; expected [link] only"},
    {"empty file", NULL, "", ": no [link] group"},
};

START_TEST(bad_links_fail_with_context)
{
    g_autofree char *dir = hw_test_make_models_dir();
    g_autofree char *text =
        hw_test_patch(bad[_i].name, hw_test_valid_link, bad[_i].from, bad[_i].to);
    g_autofree char *path = hw_test_write(dir, "link", "bad.ini", text);
    g_autoptr(GError) error = NULL;
    g_autoptr(HwLink) link = hw_link_load(path, &error);
    ck_assert_msg(link == NULL, "%s: accepted", bad[_i].name);
    hw_test_assert_message(bad[_i].name, error->message, path, bad[_i].message_part);
    hw_test_remove_dir(dir);
}
END_TEST

/* Variants of the valid file that must load, with the field they set. */
static const struct {
    const char *name;
    const char *from, *to;
    double packet_error_rate;
    uint64_t replay_buffer_bytes;
} good[] = {
    {"as is", "", "", 0.0, 16384},
    {"no link-level replay", "replay_buffer = 16KiB", "replay_buffer = 0B", 0.0, 0},
    {"error rate omitted", "packet_error_rate = 0\n", "", 0.0, 16384},
    {"small error rate", "packet_error_rate = 0", "packet_error_rate = 1e-12", 1e-12, 16384},
    {"blanks around", "packet_error_rate = 0", "packet_error_rate =  0.25  ", 0.25, 16384},
};

START_TEST(good_variants_load)
{
    g_autofree char *dir = hw_test_make_models_dir();
    g_autofree char *text =
        hw_test_patch(good[_i].name, hw_test_valid_link, good[_i].from, good[_i].to);
    g_autofree char *path = hw_test_write(dir, "link", "good.ini", text);
    g_autoptr(GError) error = NULL;
    g_autoptr(HwLink) link = hw_link_load(path, &error);
    ck_assert_msg(link != NULL, "%s: %s", good[_i].name, error ? error->message : "");
    ck_assert_double_eq(link->packet_error_rate, good[_i].packet_error_rate);
    ck_assert_uint_eq(link->replay_buffer_bytes, good[_i].replay_buffer_bytes);
    hw_test_remove_dir(dir);
}
END_TEST

/* Names resolve under models_dir/link; bad names and missing files are
 * errors that show what was looked for. */
static const struct {
    const char *name;
    const char *message_part; /* NULL: must load */
} names[] = {
    {"testlink", NULL},
    {"nvlink9", "no link model 'nvlink9': "},
    {"../link/testlink", "'../link/testlink' is not a link model name"},
    {".hidden", "'.hidden' is not a link model name"},
    {"", "'' is not a link model name"},
};

START_TEST(load_by_name)
{
    g_autofree char *dir = hw_test_make_models_dir();
    g_autoptr(GError) error = NULL;
    g_autoptr(HwLink) link = hw_link_load_by_name(names[_i].name, dir, &error);
    if (names[_i].message_part == NULL) {
        ck_assert_msg(link != NULL, "%s: %s", names[_i].name, error ? error->message : "");
    } else {
        ck_assert_msg(link == NULL, "'%s': accepted", names[_i].name);
        ck_assert_msg(strstr(error->message, names[_i].message_part) != NULL,
                      "'%s': message '%s' lacks '%s'", names[_i].name, error->message,
                      names[_i].message_part);
    }
    hw_test_remove_dir(dir);
}
END_TEST

START_TEST(missing_model_names_the_path)
{
    g_autofree char *dir = hw_test_make_models_dir();
    g_autoptr(GError) error = NULL;
    g_autoptr(HwLink) link = hw_link_load_by_name("nvlink9", dir, &error);
    ck_assert(link == NULL);
    g_autofree char *expect =
        g_strdup_printf("no link model 'nvlink9': %s/link/nvlink9.ini does not exist; expected one "
                        "of: broken, testlink, testnet",
                        dir);
    ck_assert_str_eq(error->message, expect);
    hw_test_remove_dir(dir);
}
END_TEST

START_TEST(missing_models_folder_is_named)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(HwLink) link = hw_link_load_by_name("nvlink4", "/nonexistent/nvlsim", &error);
    ck_assert(link == NULL);
    ck_assert_str_eq(error->message,
                     "no link model 'nvlink4': /nonexistent/nvlsim: no such folder of models");
}
END_TEST

START_TEST(kind_names)
{
    ck_assert_str_eq(hw_link_kind_name(HW_LINK_NVLINK), "nvlink");
    ck_assert_str_eq(hw_link_kind_name(HW_LINK_C2C), "c2c");
    ck_assert_str_eq(hw_link_kind_name(HW_LINK_PCIE), "pcie");
    ck_assert_str_eq(hw_link_kind_name(HW_LINK_CPU), "cpu");
    ck_assert_str_eq(hw_link_kind_name(HW_LINK_NETWORK), "network");
}
END_TEST

Suite *
hw_link_suite(void)
{
    Suite *s = suite_create("hw-link");
    TCase *tc = tcase_create("link");
    tcase_add_loop_test(tc, shipped_links_load, 0, G_N_ELEMENTS(shipped));
    tcase_add_test(tc, every_shipped_link_is_in_the_table);
    tcase_add_loop_test(tc, payload_rate_closed_form, 0, G_N_ELEMENTS(rates));
    tcase_add_test(tc, payload_rate_of_shipped_models);
    tcase_add_loop_test(tc, bad_links_fail_with_context, 0, G_N_ELEMENTS(bad));
    tcase_add_loop_test(tc, good_variants_load, 0, G_N_ELEMENTS(good));
    tcase_add_loop_test(tc, load_by_name, 0, G_N_ELEMENTS(names));
    tcase_add_test(tc, missing_model_names_the_path);
    tcase_add_test(tc, missing_models_folder_is_named);
    tcase_add_test(tc, kind_names);
    suite_add_tcase(s, tc);
    return s;
}
