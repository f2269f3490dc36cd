/* SPDX-License-Identifier: Apache-2.0 */
/* HwSwitch: every shipped switch model loads with its port link; malformed
 * files, and switches naming a link model that is missing, broken or of the
 * wrong kind, fail naming file, group and key. */
#include <string.h>

#include "hw/hw-switch.h"
#include "hw-suites.h"

static const struct {
    const char *file;
    HwSwitchKind kind;
    uint64_t generation;
    uint64_t n_ports;
    const char *link_model;
    uint64_t link_bytes_per_s;
    bool nvls;
    uint64_t nvls_bytes_per_s;
} shipped[] = {
    {"nvswitch1.ini", HW_SWITCH_NVSWITCH, 1, 18, "nvlink2", 25000000000, false, 0},
    {"nvswitch2.ini", HW_SWITCH_NVSWITCH, 2, 36, "nvlink3", 25000000000, false, 0},
    {"nvswitch3.ini", HW_SWITCH_NVSWITCH, 3, 64, "nvlink4", 25000000000, true, 25000000000},
    {"nvswitch4.ini", HW_SWITCH_NVSWITCH, 4, 72, "nvlink5", 50000000000, true, 50000000000},
    {"nvswitch5.ini", HW_SWITCH_NVSWITCH, 5, 72, "nvlink6", 50000000000, true, 50000000000},
    {"ib-sb7800.ini", HW_SWITCH_NETWORK, 0, 36, "ib-edr", 12500000000, false, 0},
    {"ib-qm8700.ini", HW_SWITCH_NETWORK, 0, 40, "ib-hdr", 25000000000, false, 0},
    {"ib-qm9700.ini", HW_SWITCH_NETWORK, 0, 64, "ib-ndr", 50000000000, false, 0},
    {"ib-q3400.ini", HW_SWITCH_NETWORK, 0, 144, "ib-xdr", 100000000000, false, 0},
    {"eth-400g-switch.ini", HW_SWITCH_NETWORK, 0, 64, "eth-400g", 50000000000, false, 0},
};

START_TEST(shipped_switches_load)
{
    const char *file = shipped[_i].file;
    g_autofree char *path = hw_test_model_path("switch", file);
    g_autofree char *models = hw_test_models_dir();
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSwitch) sw = hw_switch_load(path, models, &error);
    ck_assert_msg(sw != NULL, "%s: %s", file, error ? error->message : "");
    ck_assert_msg(sw->kind == shipped[_i].kind, "%s: kind", file);
    ck_assert_uint_eq(sw->generation, shipped[_i].generation);
    ck_assert_uint_eq(sw->n_ports, shipped[_i].n_ports);
    ck_assert_str_eq(sw->link_model, shipped[_i].link_model);
    ck_assert_ptr_nonnull(sw->link);
    ck_assert_uint_eq(sw->link->bytes_per_s, shipped[_i].link_bytes_per_s);
    ck_assert_msg(sw->nvls == shipped[_i].nvls, "%s: nvls", file);
    ck_assert_uint_eq(sw->nvls_bytes_per_s, shipped[_i].nvls_bytes_per_s);
    ck_assert_msg(sw->latency_ps > 0, "%s: latency", file);
}
END_TEST

START_TEST(every_shipped_switch_is_in_the_table)
{
    ck_assert_uint_eq(hw_test_count_models("switch"), G_N_ELEMENTS(shipped));
}
END_TEST

/* Models in the folder of hw_test_make_models_dir: testlink (nvlink),
 * testnet (network), broken (an unknown key). */
static const char *const valid_switch =
    "[switch]\nname = Test switch\nkind = nvswitch\ngeneration = 3\nports = 64\n"
    "link = testlink\nlatency = 200ns\nport_buffer = 16KiB\nnvls = yes\n"
    "nvls_bandwidth = 25GB/s\n";

static const struct {
    const char *name;
    const char *from, *to;
    const char *message_part;
} bad[] = {
    {"missing link model", "link = testlink", "link = nvlink9",
     ": [switch] link: no link model 'nvlink9': "},
    {"broken link model", "link = testlink", "link = broken",
     "/link/broken.ini: [link] bogus: unknown key"},
    {"link model as a path", "link = testlink", "link = ../link/testlink",
     ": [switch] link: '../link/testlink' is not a link model name"},
    {"network link on an NVSwitch", "link = testlink", "link = testnet",
     ": [switch] link: 'testnet' is a network link: expected a link of kind nvlink for a "
     "nvswitch switch"},
    {"NVLink on a network switch", "kind = nvswitch\ngeneration = 3\n", "kind = network\n",
     ": [switch] link: 'testlink' is a nvlink link: expected a link of kind network"},
    {"unknown key", "ports = 64\n", "ports = 64\nradix = 64\n",
     ": [switch] radix: unknown key; expected one of: name, kind"},
    {"missing key", "latency = 200ns\n", "", ": [switch] latency: missing; expected port to port"},
    {"missing unit", "latency = 200ns", "latency = 200", ": [switch] latency: '200' has no unit"},
    {"unknown kind", "kind = nvswitch", "kind = crossbar",
     ": [switch] kind: 'crossbar' is not one of: nvswitch, network"},
    {"generation out of range", "generation = 3", "generation = 6",
     ": [switch] generation: 6 is out of range: expected 1 to 5"},
    {"no ports", "ports = 64", "ports = 0", ": [switch] ports: 0 is out of range: expected 1 to"},
    {"port buffer below a packet", "port_buffer = 16KiB", "port_buffer = 64B",
     ": [switch] port_buffer: 64 B cannot hold one packet of 'testlink' (272 B)"},
    {"nvls not yes or no", "nvls = yes", "nvls = maybe",
     ": [switch] nvls: 'maybe' is not a yes/no value"},
    {"nvls without its rate", "nvls_bandwidth = 25GB/s\n", "",
     ": [switch] nvls_bandwidth: missing with nvls = yes"},
    {"nvls rate without nvls", "nvls = yes", "nvls = no",
     ": [switch] nvls_bandwidth: given with nvls = no"},
    {"zero nvls rate", "nvls_bandwidth = 25GB/s", "nvls_bandwidth = 0GB/s",
     ": [switch] nvls_bandwidth: '0GB/s' is not positive"},
    {"nvls on a network switch", "kind = nvswitch\ngeneration = 3\nports = 64\nlink = testlink",
     "kind = network\nports = 64\nlink = testnet", ": [switch] nvls: yes on a network switch"},
    {"a misspelt group", NULL, "[nvswitch]\nname = x\n",
     ": [nvswitch]: unknown group; expected [switch] only"},
};

START_TEST(bad_switches_fail_with_context)
{
    g_autofree char *dir = hw_test_make_models_dir();
    g_autofree char *text = hw_test_patch(bad[_i].name, valid_switch, bad[_i].from, bad[_i].to);
    g_autofree char *path = hw_test_write(dir, "switch", "bad.ini", text);
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSwitch) sw = hw_switch_load(path, dir, &error);
    ck_assert_msg(sw == NULL, "%s: accepted", bad[_i].name);
    hw_test_assert_message(bad[_i].name, error->message, path, bad[_i].message_part);
    hw_test_remove_dir(dir);
}
END_TEST

/* The whole message for a missing link model: switch file, group, key,
 * the name and the path looked for. */
START_TEST(missing_link_names_switch_and_path)
{
    g_autofree char *dir = hw_test_make_models_dir();
    g_autofree char *text = hw_test_patch("missing", valid_switch, "testlink", "nvlink9");
    g_autofree char *path = hw_test_write(dir, "switch", "sw.ini", text);
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSwitch) sw = hw_switch_load(path, dir, &error);
    ck_assert(sw == NULL);
    g_autofree char *expect =
        g_strdup_printf("%s: [switch] link: no link model 'nvlink9': %s/link/nvlink9.ini does not "
                        "exist; expected one of: broken, testlink, testnet",
                        path, dir);
    ck_assert_str_eq(error->message, expect);
    hw_test_remove_dir(dir);
}
END_TEST

static const struct {
    const char *name;
    const char *from, *to;
    bool nvls;
} good[] = {
    {"as is", "", "", true},
    {"nvls omitted", "nvls = yes\nnvls_bandwidth = 25GB/s\n", "", false},
    {"nvls as 1", "nvls = yes", "nvls = 1", true},
    {"nvls as TRUE", "nvls = yes", "nvls = TRUE", true},
    {"nvls as 0", "nvls = yes\nnvls_bandwidth = 25GB/s\n", "nvls = 0\n", false},
    {"network switch",
     "kind = nvswitch\ngeneration = 3\nports = 64\nlink = testlink\nlatency = 200ns\n"
     "port_buffer = 16KiB\nnvls = yes\nnvls_bandwidth = 25GB/s\n",
     "kind = network\nports = 64\nlink = testnet\nlatency = 200ns\nport_buffer = 16KiB\n", false},
};

START_TEST(good_variants_load)
{
    g_autofree char *dir = hw_test_make_models_dir();
    g_autofree char *text = hw_test_patch(good[_i].name, valid_switch, good[_i].from, good[_i].to);
    g_autofree char *path = hw_test_write(dir, "switch", "good.ini", text);
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSwitch) sw = hw_switch_load(path, dir, &error);
    ck_assert_msg(sw != NULL, "%s: %s", good[_i].name, error ? error->message : "");
    ck_assert_msg(sw->nvls == good[_i].nvls, "%s: nvls", good[_i].name);
    hw_test_remove_dir(dir);
}
END_TEST

Suite *
hw_switch_suite(void)
{
    Suite *s = suite_create("hw-switch");
    TCase *tc = tcase_create("switch");
    tcase_add_loop_test(tc, shipped_switches_load, 0, G_N_ELEMENTS(shipped));
    tcase_add_test(tc, every_shipped_switch_is_in_the_table);
    tcase_add_loop_test(tc, bad_switches_fail_with_context, 0, G_N_ELEMENTS(bad));
    tcase_add_test(tc, missing_link_names_switch_and_path);
    tcase_add_loop_test(tc, good_variants_load, 0, G_N_ELEMENTS(good));
    suite_add_tcase(s, tc);
    return s;
}
