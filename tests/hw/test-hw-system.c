/* SPDX-License-Identifier: Apache-2.0 */
/* sim/hw system models: every shipped system loads with the wiring of
 * hardware.md §4 (the DGX-1V pair map exactly, link sums per GPU, switch
 * planes, hosts); malformed system files fail with the file, group and key
 * named and what was expected. */
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-suites.h"
#include "hw/hw-system.h"

static HwSystem *
load_shipped(const char *id)
{
    g_autofree char *dir = hw_test_models_dir();
    g_autoptr(GError) error = NULL;
    HwSystem *system = hw_system_load_by_id(id, dir, &error);
    ck_assert_msg(system != NULL, "%s: %s", id, error ? error->message : "");
    return system;
}

/* NVLinks of GPU g: direct pairs plus links to the switches of its board. */
static uint64_t
gpu_nvlinks(const HwSystem *system, uint32_t g)
{
    uint64_t n = 0;
    for (uint32_t peer = 0; peer < system->n_gpus; peer++)
        n += peer == g ? 0 : hw_system_pair_links(system, g, peer);
    for (uint32_t s = 0; s < system->n_switches_per_board; s++)
        n += system->gpu_switch_links[s];
    return n;
}

static const struct {
    const char *id;
    uint32_t n_gpus;
    uint32_t nvlink_generation;
    uint32_t n_switches_per_board; /* 0: direct pairs only */
    uint32_t n_hosts;
    uint32_t n_nics;
} shipped[] = {
    {"dgx1-p100", 8, 1, 0, 1, 4},        {"dgx1-v100", 8, 2, 0, 1, 4},
    {"dgx2-v100", 16, 2, 6, 1, 8},       {"dgx-a100", 8, 3, 6, 1, 8},
    {"dgx-h100", 8, 4, 4, 1, 8},         {"dgx-h200", 8, 4, 4, 1, 8},
    {"hgx-h800", 8, 4, 4, 1, 8},         {"dgx-b200", 8, 5, 2, 1, 8},
    {"gb200-nvl72", 72, 5, 18, 18, 72},  {"aws-p5-h100", 8, 4, 4, 1, 32},
    {"gcp-a3mega-h100", 8, 4, 4, 1, 8},  {"aws-p6-b200", 8, 5, 2, 1, 8},
    {"gb300-nvl72", 72, 5, 18, 18, 72},  {"hgx-b300", 8, 5, 2, 1, 8},
    {"gcp-a3ultra-h200", 8, 4, 4, 1, 8},
};

/* Every shipped system loads; each GPU uses all its NVLinks; the parts
 * agree on the NVLink generation. */
START_TEST(shipped_systems_load)
{
    g_autoptr(HwSystem) system = load_shipped(shipped[_i].id);
    const char *id = shipped[_i].id;
    ck_assert_str_eq(system->id, id);
    ck_assert_msg(system->n_gpus == shipped[_i].n_gpus, "%s: %u GPUs", id, system->n_gpus);
    ck_assert_uint_eq(system->gpu->nvlink_generation, shipped[_i].nvlink_generation);
    ck_assert_uint_eq(system->nvlink->generation, shipped[_i].nvlink_generation);
    ck_assert_uint_eq(system->n_switches_per_board, shipped[_i].n_switches_per_board);
    ck_assert_uint_eq(system->n_hosts, shipped[_i].n_hosts);
    ck_assert_uint_eq(system->n_nics, shipped[_i].n_nics);
    ck_assert_uint_eq(system->n_nodes, 1);
    ck_assert(system->nic != NULL && system->fabric_switch != NULL && system->pcie != NULL);
    ck_assert_msg((system->nvswitch != NULL) == (shipped[_i].n_switches_per_board > 0), "%s", id);
    if (system->nvswitch)
        ck_assert_uint_eq(system->nvswitch->link->generation, shipped[_i].nvlink_generation);
    for (uint32_t g = 0; g < system->n_gpus; g++)
        ck_assert_msg(gpu_nvlinks(system, g) == system->gpu->n_nvlinks,
                      "%s: GPU %u uses %" G_GUINT64_FORMAT, id, g, gpu_nvlinks(system, g));
}
END_TEST

/* hardware.md §4.2, the nvidia-smi topo map of DGX-1V. */
static const uint32_t dgx1v_links[8][8] = {
    {0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0}, {1, 2, 0, 2, 0, 0, 1, 0},
    {2, 1, 2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1},
    {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0},
};

START_TEST(dgx1_v100_pair_map_is_exact)
{
    g_autoptr(HwSystem) system = load_shipped("dgx1-v100");
    ck_assert_uint_eq(hw_system_pair_links(system, 0, 3), 2);
    ck_assert_uint_eq(hw_system_pair_links(system, 0, 1), 1);
    ck_assert_uint_eq(hw_system_pair_links(system, 0, 5), 0);
    for (uint32_t a = 0; a < 8; a++)
        for (uint32_t b = 0; b < 8; b++)
            ck_assert_msg(hw_system_pair_links(system, a, b) == dgx1v_links[a][b],
                          "GPU %u-%u: %u links, expected %u", a, b,
                          hw_system_pair_links(system, a, b), dgx1v_links[a][b]);
    ck_assert_uint_eq(system->n_pairs, 16);
    for (uint32_t i = 0; i < system->n_pairs; i++)
        ck_assert(system->pairs[i].a < system->pairs[i].b);
    for (uint32_t i = 1; i < system->n_pairs; i++)
        ck_assert(system->pairs[i - 1].a < system->pairs[i].a ||
                  (system->pairs[i - 1].a == system->pairs[i].a &&
                   system->pairs[i - 1].b < system->pairs[i].b));
}
END_TEST

START_TEST(dgx1_p100_is_a_single_link_cube_mesh)
{
    g_autoptr(HwSystem) system = load_shipped("dgx1-p100");
    ck_assert_uint_eq(system->n_pairs, 16);
    for (uint32_t a = 0; a < 8; a++)
        for (uint32_t b = 0; b < 8; b++)
            ck_assert_uint_eq(hw_system_pair_links(system, a, b), dgx1v_links[a][b] ? 1 : 0);
}
END_TEST

START_TEST(switch_planes)
{
    g_autoptr(HwSystem) h100 = load_shipped("dgx-h100");
    const uint32_t h100_split[] = {5, 5, 4, 4};
    uint64_t sum = 0;
    for (uint32_t s = 0; s < 4; s++) {
        ck_assert_uint_eq(h100->gpu_switch_links[s], h100_split[s]);
        sum += h100->gpu_switch_links[s];
    }
    ck_assert_uint_eq(sum, 18);
    ck_assert_uint_eq(h100->n_boards, 1);
    ck_assert_uint_eq(h100->n_pairs, 0);

    g_autoptr(HwSystem) nvl72 = load_shipped("gb200-nvl72");
    ck_assert_uint_eq(nvl72->n_gpus, 72);
    ck_assert_uint_eq(nvl72->n_switches_per_board, 18);
    for (uint32_t s = 0; s < 18; s++)
        ck_assert_uint_eq(nvl72->gpu_switch_links[s], 1);
    ck_assert_uint_eq(nvl72->n_hosts * nvl72->n_cpus_per_host, 36);
    ck_assert_uint_eq(nvl72->gpu_host_link->kind, HW_LINK_C2C);
    ck_assert_uint_eq(nvl72->gpus_per_pcie_switch, 0);

    g_autoptr(HwSystem) dgx2 = load_shipped("dgx2-v100");
    ck_assert_uint_eq(dgx2->n_boards, 2);
    ck_assert_uint_eq(dgx2->n_switches_per_board, 6);
    ck_assert_uint_eq(dgx2->n_trunk_links, 8);
    ck_assert_uint_eq(dgx2->nvswitch->n_ports, 18);
}
END_TEST

/* hardware.md §4.6-4.7: GB300 NVL72 is GB200 NVL72's rack with Blackwell
 * Ultra and XDR NICs; HGX B300 is DGX B200's baseboard likewise, both on
 * PCIe Gen6 where the NICs meet the rest (B300 and ConnectX-8 are Gen6).
 * Every other part is the sibling's. */
START_TEST(blackwell_ultra_systems_are_their_siblings)
{
    static const char *const pairs[][2] = {{"gb200-nvl72", "gb300-nvl72"},
                                           {"dgx-b200", "hgx-b300"}};
    for (size_t i = 0; i < G_N_ELEMENTS(pairs); i++) {
        g_autoptr(HwSystem) old = load_shipped(pairs[i][0]);
        g_autoptr(HwSystem) ultra = load_shipped(pairs[i][1]);
        const char *id = pairs[i][1];
        ck_assert_uint_eq(ultra->gpu->sm_version, 103);
        ck_assert_uint_eq(ultra->gpu->n_sms, 160);
        ck_assert_str_eq(ultra->ids.nic, "cx8-xdr");
        ck_assert_str_eq(ultra->ids.fabric_switch, "ib-q3400");
        ck_assert_msg(ultra->nic->port_link->bytes_per_s * 8 == 800000000000, "%s", id);
        ck_assert_uint_eq(ultra->n_gpus, old->n_gpus);
        ck_assert_uint_eq(ultra->n_nics, old->n_nics);
        ck_assert_uint_eq(ultra->n_hosts, old->n_hosts);
        ck_assert_uint_eq(ultra->n_cpus_per_host, old->n_cpus_per_host);
        ck_assert_uint_eq(ultra->gpus_per_pcie_switch, old->gpus_per_pcie_switch);
        ck_assert_uint_eq(ultra->n_switches_per_board, old->n_switches_per_board);
        for (uint32_t s = 0; s < ultra->n_switches_per_board; s++)
            ck_assert_uint_eq(ultra->gpu_switch_links[s], old->gpu_switch_links[s]);
        ck_assert_str_eq(ultra->ids.nvlink, old->ids.nvlink);
        ck_assert_str_eq(ultra->ids.nvswitch, old->ids.nvswitch);
        ck_assert_str_eq(ultra->ids.gpu_host_link, i == 0 ? old->ids.gpu_host_link : "pcie6");
        ck_assert_str_eq(ultra->ids.pcie, "pcie6");
        ck_assert_str_eq(old->ids.pcie, "pcie5");
        ck_assert_uint_eq(ultra->rail_optimized, old->rail_optimized);
    }
}
END_TEST

/* An id is a plain file stem; a path (a '/' or .ini) names a file. */
START_TEST(ids_and_paths)
{
    g_autofree char *dir = hw_test_models_dir();
    static const struct {
        const char *id, *message_part;
    } cases[] = {
        {"../system/dgx-h100", "../system/dgx-h100: no such system file"},
        {"dgx-h100.ini", "dgx-h100.ini: no such system file"},
        {"", "'' is not a plain model id"},
        {"no-such-system", "no system model 'no-such-system'"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GError) error = NULL;
        g_autoptr(HwSystem) system = hw_system_load_by_id(cases[i].id, dir, &error);
        ck_assert_msg(system == NULL, "'%s' accepted", cases[i].id);
        ck_assert_msg(strstr(error->message, cases[i].message_part) != NULL,
                      "'%s': message '%s' lacks '%s'", cases[i].id, error->message,
                      cases[i].message_part);
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSystem) none = hw_system_load_by_id("no-such-system", dir, &error);
    ck_assert_msg(strstr(error->message, "expected one of: aws-p5-h100, aws-p6-b200, ") != NULL,
                  "%s", error->message);
    g_autofree char *path = hw_test_model_path("system", "dgx-h100.ini");
    g_autoptr(HwSystem) by_path = hw_system_load_by_id(path, dir, &error);
    ck_assert_msg(by_path != NULL, "%s: %s", path, error ? error->message : "");
    ck_assert_str_eq(by_path->id, "dgx-h100");
    ck_assert_uint_eq(by_path->n_gpus, 8);
}
END_TEST

/* Two valid files, then the text each bad case changes. */
static const char *switch_system = "[system]\nname = Test\ngpu = h100-sxm5\ngpus = 8\n\n"
                                   "[nvlink]\nlink = nvlink4\nswitch = nvswitch3\n"
                                   "switches = 4\ngpu_switch_links = 5,5,4,4\n\n"
                                   "[host]\ncpus = 2\ngpu_link = pcie5\npcie = pcie5\n"
                                   "gpus_per_pcie_switch = 1\ncpu_link = upi-spr\n\n"
                                   "[network]\nnic = cx7-ndr\nnics = 8\n"
                                   "fabric_switch = ib-qm9700\n";
static const char *pair_system = "[system]\nname = Test\ngpu = v100-sxm2\ngpus = 8\n\n"
                                 "[nvlink]\nlink = nvlink2\npairs = 0-1, 0-3x2, 4-5\n\n"
                                 "[host]\ncpus = 1\ngpu_link = pcie3\npcie = pcie3\n";

static const char *loopback_system = "[system]\nname = Test\ngpu = h200\ngpus = 132\n\n"
                                     "[loopback]\ncta_bandwidth = 14GB/s\nflag_latency = 300ns\n"
                                     "step_overhead = 1us\nlaunch = 5us\n";

static const struct {
    const char *name;
    const char **base;
    const char *from; /* text of *base to replace */
    const char *to;
    const char *message_part; /* after the path */
} bad[] = {
    {"unknown GPU", &switch_system, "gpu = h100-sxm5", "gpu = h999",
     ": [system] gpu: no GPU model 'h999' ("},
    {"unknown NIC", &switch_system, "nic = cx7-ndr", "nic = cx99",
     ": [network] nic: no NIC model 'cx99' ("},
    {"id with a path", &switch_system, "gpu = h100-sxm5", "gpu = ../gpu/h100-sxm5",
     ": [system] gpu: '../gpu/h100-sxm5' is not a plain model id"},
    {"links over the GPU's", &switch_system, "5,5,4,4", "5,5,5,5",
     ": [nvlink] gpu_switch_links: GPU 0 uses 20 NVLinks (0 to peers, 20 to switches); "
     "expected at most 18, the NVLinks of the GPU h100-sxm5"},
    {"links under the GPU's", &switch_system, "5,5,4,4", "4,4,4,4",
     ": [nvlink] gpu_switch_links: GPU 0 uses 16 NVLinks (0 to peers, 16 to switches); "
     "expected all 18"},
    {"pairs over the GPU's", &pair_system, "0-3x2", "0-3x6",
     ": [nvlink] pairs: GPU 0 uses 7 NVLinks (7 to peers, 0 to switches); expected at most 6, the "
     "NVLinks of the GPU v100-sxm2"},
    {"switch ports", &switch_system, "switches = 4\ngpu_switch_links = 5,5,4,4",
     "switches = 2\ngpu_switch_links = 9,9",
     ": [nvlink] gpu_switch_links: switch 0 of each board needs 72 ports (8 GPUs x 9 links + 0 "
     "trunk ports); expected at most the 64 ports of nvswitch3"},
    {"trunk ports", &switch_system, "switches = 4\n",
     "switches = 4\nboards = 2\ntrunk_links = 50\n",
     ": [nvlink] gpu_switch_links: switch 0 of each board needs 70 ports (4 GPUs x 5 links + 50 "
     "trunk ports)"},
    {"pair out of range", &pair_system, "4-5", "4-8",
     ": [nvlink] pairs: '4-8' names GPU 8; expected GPU ids 0 to 7"},
    {"self pair", &pair_system, "4-5", "3-3", ": [nvlink] pairs: '3-3' joins GPU 3 to itself"},
    {"repeated pair", &pair_system, "4-5", "1-0",
     ": [nvlink] pairs: '1-0' repeats the pair 0-1; expected each pair once"},
    {"malformed pair", &pair_system, "4-5", "4:5",
     ": [nvlink] pairs: '4:5' is malformed; expected A-B or A-BxN"},
    {"pair of no links", &pair_system, "4-5", "4-5x0", ": [nvlink] pairs: '4-5x0' has 0 links"},
    {"unknown key", &switch_system, "gpus = 8\n", "gpus = 8\ngpuz = 8\n",
     ": [system] gpuz: unknown key; expected one of: name, gpu, gpus"},
    {"unknown group", &switch_system, "[host]", "[hosts]", ": [hosts]: unknown group"},
    {"missing group", &pair_system, "[host]\ncpus = 1\ngpu_link = pcie3\npcie = pcie3\n", "",
     ": no [host] group"},
    {"zero GPUs", &switch_system, "gpus = 8", "gpus = 0",
     ": [system] gpus: 0 is out of range: expected 1 to"},
    {"GPUs not divisible by boards", &switch_system, "switches = 4\n",
     "switches = 4\nboards = 3\ntrunk_links = 1\n",
     ": [nvlink] boards: 8 GPUs do not split evenly over 3 boards"},
    {"GPUs not divisible by hosts", &switch_system, "cpus = 2\n", "cpus = 2\nhosts = 3\n",
     ": [host] hosts: 8 GPUs do not split evenly over 3 hosts"},
    {"GPUs not divisible by PCIe switches", &switch_system, "gpus_per_pcie_switch = 1",
     "gpus_per_pcie_switch = 3", ": [host] gpus_per_pcie_switch: the 8 GPUs of a host"},
    {"NVLink generation", &switch_system, "link = nvlink4", "link = nvlink3",
     ": [nvlink] link: nvlink3 is of kind nvlink, generation 3; expected kind nvlink, "
     "generation 4 (that of the GPU h100-sxm5)"},
    {"not an NVLink", &switch_system, "link = nvlink4", "link = pcie5",
     ": [nvlink] link: pcie5 is of kind pcie"},
    {"switch generation", &switch_system, "switch = nvswitch3", "switch = nvswitch2",
     ": [nvlink] switch: nvswitch2 is not an NVSwitch with NVLink 4 ports"},
    {"fabric switch as NVSwitch", &switch_system, "switch = nvswitch3", "switch = ib-qm9700",
     ": [nvlink] switch: ib-qm9700 is not an NVSwitch"},
    {"NVSwitch as fabric switch", &switch_system, "fabric_switch = ib-qm9700",
     "fabric_switch = nvswitch3", ": [network] fabric_switch: nvswitch3 is an NVSwitch"},
    {"GPU link of the wrong kind", &switch_system, "gpu_link = pcie5", "gpu_link = nvlink4",
     ": [host] gpu_link: nvlink4 is of kind nvlink; expected kind pcie or c2c"},
    {"CPU link of the wrong kind", &switch_system, "cpu_link = upi-spr", "cpu_link = pcie5",
     ": [host] cpu_link: pcie5 is of kind pcie; expected kind cpu"},
    {"CPU link with one CPU", &switch_system, "cpus = 2", "cpus = 1",
     ": [host] cpu_link: given for hosts of one CPU"},
    {"counts for switches", &switch_system, "5,5,4,4", "5,5,8",
     ": [nvlink] gpu_switch_links: '5,5,8' has 3 counts for 4 switches"},
    {"zero links to a switch", &switch_system, "5,5,4,4", "9,9,0,0",
     ": [nvlink] gpu_switch_links: switch 2: 0 is out of range"},
    {"link count not a number", &switch_system, "5,5,4,4", "5,5,x,4",
     ": [nvlink] gpu_switch_links: switch 2: 'x'"},
    {"no link counts", &switch_system, "gpu_switch_links = 5,5,4,4\n", "",
     ": [nvlink] gpu_switch_links: missing while switch is given"},
    {"zero switches", &switch_system, "switches = 4", "switches = 0",
     ": [nvlink] switches: 0 or missing while switch is given"},
    {"switch keys without a switch", &pair_system,
     "pairs =", "switches = 4\npairs =", ": [nvlink] switches: given without a switch"},
    {"NVLink used by nothing", &pair_system, "pairs = 0-1, 0-3x2, 4-5\n", "",
     ": [nvlink] link: neither pairs nor a switch use it"},
    {"trunks on one board", &switch_system, "switches = 4\n", "switches = 4\ntrunk_links = 2\n",
     ": [nvlink] trunk_links: 2 with 1 boards; expected trunk links exactly when"},
    {"boards without trunks", &switch_system, "switches = 4\n", "switches = 4\nboards = 2\n",
     ": [nvlink] trunk_links: 0 with 2 boards"},
    {"nodes without a fabric", &switch_system, "fabric_switch = ib-qm9700", "nodes = 4",
     ": [network] nodes: 4 nodes without a fabric switch"},
    {"rail_optimized not yes/no", &switch_system, "nics = 8", "nics = 8\nrail_optimized = maybe",
     ": [network] rail_optimized: 'maybe' is not a yes/no value"},
    {"count with a unit", &switch_system, "gpus = 8", "gpus = 8GB", ": [system] gpus: '8GB'"},
    {"loopback with a host", &loopback_system, "[loopback]", "[host]\ncpus = 1\n[loopback]",
     ": [host]: a loopback system (virtual ranks on one GPU) has no [host] group"},
    {"loopback without launch", &loopback_system, "launch = 5us\n", "",
     ": [loopback] launch: missing"},
    {"loopback at a crawl", &loopback_system, "= 14GB/s", "= 1kB/s",
     ": [loopback] cta_bandwidth: '1kB/s' is out of range: expected 100MB/s"},
    {"loopback slot not in vectors", &loopback_system, "launch = 5us\n",
     "launch = 5us\nslot = 1000B\n", ": [loopback] slot: 1000 B is not a whole number of 16-byte"},
    {"loopback with 65 slots", &loopback_system, "launch = 5us\n", "launch = 5us\nslots = 65\n",
     ": [loopback] slots: 65 is out of range"},
    {"loopback unknown key", &loopback_system, "launch = 5us\n", "launch = 5us\nsms = 4\n",
     ": [loopback] sms: unknown key"},
};

START_TEST(bad_systems_fail_with_context)
{
    g_autofree char *dir = g_dir_make_tmp(NULL, NULL);
    g_autofree char *path = g_build_filename(dir, "bad.ini", NULL);
    g_autofree char *text = hw_test_patch(bad[_i].name, *bad[_i].base, bad[_i].from, bad[_i].to);
    ck_assert(g_file_set_contents(path, text, -1, NULL));
    g_autofree char *models = hw_test_models_dir();
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSystem) system = hw_system_load(path, models, &error);
    ck_assert_msg(system == NULL, "%s: accepted", bad[_i].name);
    hw_test_assert_message(bad[_i].name, error->message, path, bad[_i].message_part);
    g_unlink(path);
    g_rmdir(dir);
}
END_TEST

/* NICs attach to hosts, so they split over them evenly. */
START_TEST(nics_split_over_hosts)
{
    g_autofree char *dir = g_dir_make_tmp(NULL, NULL);
    g_autofree char *hosts =
        hw_test_patch("nics", switch_system, "cpus = 2", "cpus = 2\nhosts = 2");
    g_autofree char *text = hw_test_patch("nics", hosts, "nics = 8", "nics = 7");
    g_autofree char *path = g_build_filename(dir, "bad.ini", NULL);
    ck_assert(g_file_set_contents(path, text, -1, NULL));
    g_autofree char *models = hw_test_models_dir();
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSystem) system = hw_system_load(path, models, &error);
    ck_assert(system == NULL);
    hw_test_assert_message("nics", error->message, path,
                           ": [network] nics: 7 NICs do not split evenly over 2 hosts");
    g_unlink(path);
    g_rmdir(dir);
}
END_TEST

/* A file deriving from a shipped system: the base's wiring and parts, the
 * file's figures over them (what its own runs measured), the base itself
 * untouched. */
START_TEST(derived_system_takes_the_base_and_its_own_figures)
{
    static const char text[] = "[system]\nbase = dgx-h100\nname = My H100s\n"
                               "[nvlink]\nefficiency = 0.9\n"
                               "[host]\nkernel_setup = 7us\n"
                               "[network]\nnic_efficiency = 0.8\nnic_latency = 1200ns\n";
    g_autofree char *models = hw_test_models_dir();
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSystem) mine =
        hw_system_load_data(text, sizeof text - 1, "mine.ini", models, &error);
    ck_assert_msg(mine != NULL, "%s", error ? error->message : "");
    g_autoptr(HwSystem) base = hw_system_load_by_id("dgx-h100", models, &error);
    ck_assert(base != NULL);
    ck_assert_str_eq(mine->name, "My H100s");
    ck_assert_uint_eq(mine->n_gpus, base->n_gpus);
    ck_assert_uint_eq(mine->n_nics, base->n_nics);
    ck_assert_uint_eq(mine->nvlink->bytes_per_s, base->nvlink->bytes_per_s);
    ck_assert_double_eq(mine->nvlink_efficiency, 0.9);
    ck_assert_double_eq(mine->nic_efficiency, 0.8);
    ck_assert_uint_eq(mine->nic->latency_ps, 1200000);
    ck_assert_uint_eq(mine->runtime->kernel_setup_ps, 7000000);
    ck_assert_double_eq(base->nvlink_efficiency, 1);
    ck_assert_double_eq(base->nic_efficiency, 1);
    ck_assert_uint_ne(base->nic->latency_ps, 1200000);
    ck_assert_uint_ne(base->runtime->kernel_setup_ps, 7000000);
}
END_TEST

/* NCCL's environment: a system file's [nccl] nvls_enable, and variables a
 * run set over it (bare numbers are bytes, as NCCL reads them); what is
 * not one of the modelled variables, set twice or out of range is refused
 * and leaves the environment as it was. */
START_TEST(nccl_environment)
{
    static const char text[] = "[system]\nbase = aws-p5-h100\n[nccl]\nnvls_enable = 0\n";
    g_autofree char *models = hw_test_models_dir();
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSystem) off = hw_system_load_data(text, sizeof text - 1, "off.ini", models, &error);
    ck_assert_msg(off != NULL, "%s", error ? error->message : "");
    ck_assert(off->nccl.nvls_off);
    ck_assert_uint_eq(off->nccl.buffsize_bytes, 8 << 20); /* the base's */
    g_autofree char *off_text = hw_nccl_env_text(&off->nccl);
    ck_assert_str_eq(off_text, "NCCL_BUFFSIZE=8388608 NCCL_P2P_NET_CHUNKSIZE=524288 "
                               "NCCL_NVLS_CHUNKSIZE=524288 NCCL_NVLSTREE_MAX_CHUNKSIZE=524288 "
                               "NCCL_NVLS_ENABLE=0");

    HwNcclEnv env = {.nvls_chunk_bytes = 65536};
    ck_assert(hw_nccl_env_parse("NCCL_NVLS_ENABLE=0, NCCL_BUFFSIZE=16777216", &env, &error));
    ck_assert(env.nvls_off);
    ck_assert_uint_eq(env.buffsize_bytes, 16 << 20);
    ck_assert_uint_eq(env.nvls_chunk_bytes, 65536);
    ck_assert(hw_nccl_env_parse("NCCL_NVLS_ENABLE=2 NCCL_NVLS_CHUNKSIZE=32KiB", &env, &error));
    ck_assert(!env.nvls_off);
    ck_assert_uint_eq(env.nvls_chunk_bytes, 32768);
    ck_assert(hw_nccl_env_parse("", &env, &error));

    static const char *const refused[][2] = {
        {"NCCL_ALGO=ring", "expected NAME=VALUE with NAME one of NCCL_BUFFSIZE"},
        {"nccl_buffsize=1", "expected NAME=VALUE"},
        {"NCCL_BUFFSIZE", "expected NAME=VALUE"},
        {"NCCL_BUFFSIZE=1 NCCL_BUFFSIZE=2", "NCCL_BUFFSIZE is set twice"},
        {"NCCL_NVLS_ENABLE=3", "NCCL_NVLS_ENABLE: 3 is out of range: expected 0 to 2"},
        {"NCCL_BUFFSIZE=lots", "NCCL_BUFFSIZE: 'lots'"},
    };
    HwNcclEnv before = env;
    for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
        g_clear_error(&error);
        ck_assert(!hw_nccl_env_parse(refused[i][0], &env, &error));
        ck_assert_msg(strstr(error->message, refused[i][1]) != NULL, "%s: %s", refused[i][0],
                      error->message);
        ck_assert_uint_eq(env.buffsize_bytes, before.buffsize_bytes);
        ck_assert_uint_eq(env.nvls_chunk_bytes, before.nvls_chunk_bytes);
        ck_assert(env.nvls_off == before.nvls_off);
    }
}
END_TEST

Suite *
hw_system_suite(void)
{
    Suite *s = suite_create("hw-system");
    TCase *tc = tcase_create("system");
    tcase_add_loop_test(tc, shipped_systems_load, 0, G_N_ELEMENTS(shipped));
    tcase_add_test(tc, blackwell_ultra_systems_are_their_siblings);
    tcase_add_test(tc, dgx1_v100_pair_map_is_exact);
    tcase_add_test(tc, dgx1_p100_is_a_single_link_cube_mesh);
    tcase_add_test(tc, switch_planes);
    tcase_add_test(tc, ids_and_paths);
    tcase_add_loop_test(tc, bad_systems_fail_with_context, 0, G_N_ELEMENTS(bad));
    tcase_add_test(tc, nics_split_over_hosts);
    tcase_add_test(tc, derived_system_takes_the_base_and_its_own_figures);
    tcase_add_test(tc, nccl_environment);
    suite_add_tcase(s, tc);
    return s;
}
