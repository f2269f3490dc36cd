/* SPDX-License-Identifier: Apache-2.0 */
/* HwNic: every shipped NIC model loads with its port link; malformed files
 * and NICs naming a link model that is missing or not a network link fail
 * naming file, group and key. */
#include "hw/hw-nic.h"
#include "hw-suites.h"

static const struct {
    const char *file;
    const char *link_model;
    uint64_t link_bytes_per_s;
    uint64_t pcie_generation;
    uint64_t pcie_lanes;
    uint64_t latency_ps;
} shipped[] = {
    {"cx4-edr.ini", "ib-edr", 12500000000, 3, 16, 600000},
    {"cx5-edr.ini", "ib-edr", 12500000000, 3, 16, 600000},
    {"cx6-hdr.ini", "ib-hdr", 25000000000, 4, 16, 600000},
    {"cx7-400gbe.ini", "eth-400g", 50000000000, 5, 16, 600000},
    {"cx7-ndr.ini", "ib-ndr", 50000000000, 5, 16, 600000},
    {"cx8-xdr.ini", "ib-xdr", 100000000000, 6, 16, 600000},
    {"cx9-xdr.ini", "ib-xdr", 100000000000, 6, 16, 600000},
    {"efa-100g.ini", "eth-100g", 12500000000, 4, 16, 2000000},
    {"efa-200g.ini", "eth-200g", 25000000000, 5, 16, 2000000},
    {"efa-400g.ini", "eth-400g", 50000000000, 5, 16, 2000000},
    {"gcp-200g.ini", "eth-200g", 25000000000, 5, 16, 5000000},
};

START_TEST(shipped_nics_load)
{
    const char *file = shipped[_i].file;
    g_autofree char *path = hw_test_model_path("nic", file);
    g_autofree char *models = hw_test_models_dir();
    g_autoptr(GError) error = NULL;
    g_autoptr(HwNic) nic = hw_nic_load(path, models, &error);
    ck_assert_msg(nic != NULL, "%s: %s", file, error ? error->message : "");
    ck_assert_str_eq(nic->port_link_model, shipped[_i].link_model);
    ck_assert_ptr_nonnull(nic->port_link);
    ck_assert_msg(nic->port_link->kind == HW_LINK_NETWORK, "%s: port kind", file);
    ck_assert_uint_eq(nic->port_link->bytes_per_s, shipped[_i].link_bytes_per_s);
    ck_assert_uint_eq(nic->pcie_generation, shipped[_i].pcie_generation);
    ck_assert_uint_eq(nic->pcie_lanes, shipped[_i].pcie_lanes);
    ck_assert_uint_eq(nic->latency_ps, shipped[_i].latency_ps);
}
END_TEST

START_TEST(every_shipped_nic_is_in_the_table)
{
    ck_assert_uint_eq(hw_test_count_models("nic"), G_N_ELEMENTS(shipped));
}
END_TEST

static const char *const valid_nic = "[nic]\nname = Test NIC\nlink = testnet\n"
                                     "pcie_generation = 5\npcie_lanes = 16\nlatency = 600ns\n"
                                     "transports = ib-verbs, rocev2\n";

static const struct {
    const char *name;
    const char *from, *to;
    const char *message_part;
} bad[] = {
    {"missing link model", "link = testnet", "link = ib-zdr",
     ": [nic] link: no link model 'ib-zdr': "},
    {"broken link model", "link = testnet", "link = broken",
     "/link/broken.ini: [link] bogus: unknown key"},
    {"NVLink port", "link = testnet", "link = testlink",
     ": [nic] link: 'testlink' is a nvlink link: expected a link of kind network"},
    {"unknown key", "pcie_lanes = 16\n", "pcie_lanes = 16\nports = 2\n",
     ": [nic] ports: unknown key; expected one of: name, link"},
    {"missing key", "latency = 600ns\n", "", ": [nic] latency: missing; expected adapter"},
    {"missing unit", "latency = 600ns", "latency = 600", ": [nic] latency: '600' has no unit"},
    {"old PCIe", "pcie_generation = 5", "pcie_generation = 2",
     ": [nic] pcie_generation: 2 is out of range: expected 3 to 6"},
    {"no lanes", "pcie_lanes = 16", "pcie_lanes = 0",
     ": [nic] pcie_lanes: 0 is out of range: expected 1 to 64"},
    {"no transport", "transports = ib-verbs, rocev2", "transports = ,",
     ": [nic] transports: ',' names none; expected transport ids such as ib-verbs"},
    {"transports missing", "transports = ib-verbs, rocev2\n", "",
     ": [nic] transports: missing"},
    {"a misspelt group", NULL, "[adapter]\nname = x\n",
     ": [adapter]: unknown group; expected [nic] only"},
};

START_TEST(bad_nics_fail_with_context)
{
    g_autofree char *dir = hw_test_make_models_dir();
    g_autofree char *text = hw_test_patch(bad[_i].name, valid_nic, bad[_i].from, bad[_i].to);
    g_autofree char *path = hw_test_write(dir, "nic", "bad.ini", text);
    g_autoptr(GError) error = NULL;
    g_autoptr(HwNic) nic = hw_nic_load(path, dir, &error);
    ck_assert_msg(nic == NULL, "%s: accepted", bad[_i].name);
    hw_test_assert_message(bad[_i].name, error->message, path, bad[_i].message_part);
    hw_test_remove_dir(dir);
}
END_TEST

START_TEST(missing_link_names_nic_and_path)
{
    g_autofree char *dir = hw_test_make_models_dir();
    g_autofree char *text = hw_test_patch("missing", valid_nic, "testnet", "ib-zdr");
    g_autofree char *path = hw_test_write(dir, "nic", "nic.ini", text);
    g_autoptr(GError) error = NULL;
    g_autoptr(HwNic) nic = hw_nic_load(path, dir, &error);
    ck_assert(nic == NULL);
    g_autofree char *expect =
        g_strdup_printf("%s: [nic] link: no link model 'ib-zdr': %s/link/ib-zdr.ini does not "
                        "exist; expected one of: broken, testlink, testnet",
                        path, dir);
    ck_assert_str_eq(error->message, expect);
    hw_test_remove_dir(dir);
}
END_TEST

Suite *
hw_nic_suite(void)
{
    Suite *s = suite_create("hw-nic");
    TCase *tc = tcase_create("nic");
    tcase_add_loop_test(tc, shipped_nics_load, 0, G_N_ELEMENTS(shipped));
    tcase_add_test(tc, every_shipped_nic_is_in_the_table);
    tcase_add_loop_test(tc, bad_nics_fail_with_context, 0, G_N_ELEMENTS(bad));
    tcase_add_test(tc, missing_link_names_nic_and_path);
    suite_add_tcase(s, tc);
    return s;
}
